"""Full Faro deals per second, 10 punters × 20 bets each, on one core.

One table deals deal after deal. Each deal: a new deck, shuffled by a seeded shoe, then between
turns every punter keeps up to eight bets on the layout until twenty are placed: straight
and coppered bets on live ranks, group bets, a win-and-lose bet; one punter's high-card bet
stands all deal; a call of the last turn. Every bet goes through the checked entry points,
as at a live table.

It then prints where the time goes, in the same run: the table alone (the same deals dealt
again from their written-down commands, without the punters' choosing), and what the
deal's events cost alone: making its frozen events, and folding them into a state (a
replay, no rule checked), on the last deal's own events; and a floor: the least bookkeeping
deals of as many bets take in this Python on this machine, to say how far any engine written
in it could go.

Run: ``make bench`` or ``.venv/bin/python bench/faro_deal.py [--deals N]``.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from typing import Any

from table.cards import Card, Rank
from table.errors import TableError
from table.events import Event, complete_event
from table.faro import FaroTable
from table.shoe import Shoe

PUNTERS = [f"p{number}" for number in range(10)]
BETS_PER_PUNTER = 20
GROUPS = ["4+5", "2+3", "8+9+10", "4+5+9+10", "6+7+8", "J+K", "3+10+J"]
RANKS = list(Rank)


def plan_for(rng: random.Random, plays_high_card: bool) -> list[tuple[str, bool]]:
    """The kinds of a punter's twenty bets, in the order they will be placed: straight and
    coppered bets on ranks, groups, a win-and-lose pair; one punter also backs high card."""
    kinds = [("rank", rng.random() < 0.3) for _ in range(15)]
    kinds += [("group", False)] * 4 + [("win-lose", False)]
    rng.shuffle(kinds)
    return [("high", False), *kinds[:19]] if plays_high_card else kinds


def open_table() -> FaroTable:
    table = FaroTable("bench")
    table.fund_bank(1_000_000_000)
    for name in PUNTERS:
        table.seat(name, 10_000_000)
    return table


def one_deal(seed: int, table: FaroTable | None = None) -> tuple[FaroTable, int]:
    """One full deal on ``table`` (a new table if none): new deck, soda, 25 turns, hoc."""
    rng = random.Random(seed)
    table = table or open_table()
    table.new_deck()
    shoe = Shoe(rng=rng)
    table.deal(shoe.draw())
    plans = {name: plan_for(rng, name == "p9") for name in PUNTERS}
    placed = dict.fromkeys(PUNTERS, 0)
    state = table.state
    casekeep = state.casekeep
    bets_made = 0
    for card in shoe:
        if state.bets_open:
            if state.is_last_turn_next:
                left = [c.rank.label for c in casekeep.remaining_cards()]
                if len(set(left)) > 1:
                    table.call("p0", left, 5)
            open_bets: dict[str, int] = dict.fromkeys(PUNTERS, 0)
            for bet in state.bets.values():
                open_bets[bet.punter] += 1
            for name in PUNTERS:
                if open_bets[name] >= 8 or placed[name] >= BETS_PER_PUNTER:
                    continue
                kind, copper = plans[name][placed[name]]
                placed[name] += 1
                if kind == "rank":
                    rank = rng.choice(RANKS)
                    while casekeep.left(rank) == 0:
                        rank = RANKS[(rank.value) % 13]
                    spot = rank.label
                elif kind == "group":
                    spot = rng.choice(GROUPS)
                elif kind == "win-lose":
                    spot = "J>K"
                else:
                    spot = "high"
                try:
                    table.bet(name, spot, rng.randint(1, 25), copper=copper)
                    bets_made += 1
                except TableError:
                    pass  # a group or pair that has gone dead: the punter skips it
        table.deal(card)
    return table, bets_made


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--deals", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    table = open_table()
    one_deal(0, table)  # warm caches
    per_round = max(1, args.deals // args.rounds)
    rates = []
    bets = 0
    for round_number in range(args.rounds):
        start = time.perf_counter()
        for seed in range(per_round):
            _, made = one_deal(round_number * per_round + seed, table)
            bets += made
        rates.append(per_round / (time.perf_counter() - start))
    print(
        f"faro_deal: {per_round * args.rounds} full deals, 10 punters, "
        f"{bets / (per_round * args.rounds):.0f} bets placed per deal, one core"
    )
    print(
        f"faro_deal: deals per second: median {statistics.median(rates):.0f} "
        f"(min {min(rates):.0f}, max {max(rates):.0f}); target at least 1000"
    )
    report_table_alone(per_round)
    report_event_costs(table)
    report_bookkeeping_floor(per_round, statistics.median(rates))


class CommandTape:
    """A table that writes down every command the punters and the dealer give it, so the
    same deals can be dealt again with the choosing left out."""

    def __init__(self, table: FaroTable) -> None:
        self.table = table
        self.state = table.state
        self.commands: list[tuple[str, tuple[Any, ...], dict[str, Any]]] = []

    def _given(self, verb: str, *args: Any, **options: Any) -> list[Event]:
        self.commands.append((verb, args, options))
        events: list[Event] = getattr(self.table, verb)(*args, **options)
        return events

    def new_deck(self) -> list[Event]:
        return self._given("new_deck")

    def deal(self, card: Card) -> list[Event]:
        return self._given("deal", card)

    def bet(self, punter: str, spot: str, amount: int, *, copper: bool) -> list[Event]:
        return self._given("bet", punter, spot, amount, copper=copper)

    def call(self, punter: str, order: list[str], amount: int) -> list[Event]:
        return self._given("call", punter, order, amount)


def report_table_alone(deals: int) -> None:
    """The same deals again from their written-down commands: what the table takes without
    the simulated punters' choosing (a refused command is given again and refused again)."""
    tape = CommandTape(open_table())
    for seed in range(deals):
        one_deal(seed, tape)  # type: ignore[arg-type]
    table = open_table()
    verbs = {verb: getattr(table, verb) for verb in ("new_deck", "deal", "bet", "call")}
    commands = [(verbs[verb], args, options) for verb, args, options in tape.commands]
    start = time.perf_counter()
    for command, args, options in commands:
        try:  # noqa: SIM105 - a with-block per command would be timed along with the table
            command(*args, **options)
        except TableError:
            pass
    rate = deals / (time.perf_counter() - start)
    assert table.state.bankrolls == tape.state.bankrolls
    print(
        f"faro_deal: the table alone (the same {deals} deals from their written-down "
        f"commands, no choosing): {rate:.0f} deals per second"
    )


def report_event_costs(table: FaroTable) -> None:
    """Where a deal's time goes: the events alone, built and folded with no rule checked.

    The state is a fold of its events, so every deal pays for making each frozen event and
    folding it; measured here on the last deal's own events, in the same run as the rate."""
    events = list(table.state.since_checkpoint)
    copies = [(type(event), event.__dict__) for event in events]
    build_times, fold_times = [], []
    checkpoint = table.state.checkpoint
    assert checkpoint is not None
    for _ in range(200):
        start = time.perf_counter()
        for cls, fields in copies:
            complete_event(cls, dict(fields))
        build_times.append(time.perf_counter() - start)
        state = checkpoint.copy()
        start = time.perf_counter()
        for event in events:
            state.apply(event)
        fold_times.append(time.perf_counter() - start)
    assert state.bankrolls == table.state.bankrolls
    build = statistics.median(build_times) * 1e3
    fold = statistics.median(fold_times) * 1e3
    print(
        f"faro_deal: {len(events)} events a deal; making them alone {build:.2f} ms, "
        f"folding them (replay, no checks) {fold:.2f} ms a deal; "
        f"the target leaves 1 ms for the whole deal"
    )


def floor_deal(rng: random.Random, bankrolls: dict[str, int], log: list[tuple[Any, ...]]) -> None:
    """A deal reduced to its bookkeeping: straight and coppered bets on ranks only, up to
    eight placed before each turn, each checked only for a live rank and chips in hand, kept
    in plain dicts and settled with a plain tuple written down for each step. No group,
    standing bet, call, limit, alarm or fold: what is left is the least any engine does."""
    deck = [(rank, suit) for rank in range(1, 14) for suit in range(4)]
    rng.shuffle(deck)
    left = [4] * 14
    bets: dict[int, tuple[str, int, int, bool]] = {}
    by_rank: dict[int, set[int]] = {rank: set() for rank in range(1, 14)}
    committed = dict.fromkeys(bankrolls, 0)
    plan = [
        (name, rng.randrange(1, 14), rng.randint(1, 25), rng.random() < 0.3)
        for name in bankrolls
        for _ in range(BETS_PER_PUNTER)
    ]
    next_bet = placed = 0
    left[deck[0][0]] -= 1
    log.append(("card", deck[0], "soda"))
    for turn in range(25):
        for name, rank, amount, copper in plan[placed : placed + 8]:
            if left[rank] and amount <= bankrolls[name] - committed[name]:
                bets[next_bet] = (name, rank, amount, copper)
                by_rank[rank].add(next_bet)
                committed[name] += amount
                log.append(("bet_placed", next_bet, name, rank, amount, copper))
                next_bet += 1
        placed += 8
        loser, winner = deck[1 + 2 * turn], deck[2 + 2 * turn]
        log.append(("bets_locked", turn + 1))
        for card, role in ((loser, "loser"), (winner, "winner")):
            left[card[0]] -= 1
            log.append(("card", card, role))
        for bet_id in sorted(by_rank[loser[0]] | by_rank[winner[0]]):
            name, rank, amount, copper = bets.pop(bet_id)
            if loser[0] == winner[0]:
                net = -(amount // 2)
            else:
                net = amount if (rank == winner[0]) != copper else -amount
            bankrolls[name] += net
            committed[name] -= amount
            by_rank[rank].discard(bet_id)
            log.append(("bet_settled", bet_id, name, net))
        log.append(("turn_closed", loser, winner))


def report_bookkeeping_floor(deals: int, engine_rate: float) -> None:
    """How fast deals of as many bets go in this Python with next to nothing done per bet: the
    target's distance from what the interpreter on this machine allows, in the same run."""
    bankrolls = dict.fromkeys(PUNTERS, 10_000_000)
    log: list[tuple[Any, ...]] = []
    start = time.perf_counter()
    for seed in range(deals):
        log.clear()
        floor_deal(random.Random(seed), bankrolls, log)
    rate = deals / (time.perf_counter() - start)
    print(
        f"faro_deal: the floor (the same count of straight bets, bookkeeping only: no rule but a "
        f"live rank and chips in hand, events as plain tuples, nothing folded): {rate:.0f} deals "
        f"per second, {rate / engine_rate:.1f} times the engine's"
    )


if __name__ == "__main__":
    main()
