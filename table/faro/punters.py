"""Simulated punters: betting styles that read the table the way real punters do.

Each style looks at the state between turns and proposes table-language commands. They
draw from the ``random.Random`` they are given, so a seeded deal replays exactly. The demo,
the museum exhibit and the simulator use them; the engine judges what they propose.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from table.cards import Rank
from table.faro.engine import FaroState
from table.faro.layout import legal_groups
from table.faro.rules import FaroRules
from table.language import BankCmd, BetCmd, CallCmd, Command, LeaveCmd, PunterCmd, WithdrawCmd

Style = Callable[[FaroState, str, random.Random, int], list[Command]]


def _live(state: FaroState, minimum: int = 1) -> list[Rank]:
    """Live ranks with at least ``minimum`` cards left; where the house takes no bets on
    cases (003), ranks that can still split, but on the last turn."""
    if state.rules.no_bets_on_cases and not state.is_last_turn_next:
        minimum = max(minimum, 2)
    return [rank for rank in state.casekeep.live_ranks() if state.casekeep.left(rank) >= minimum]


def _has_bets(state: FaroState, punter: str) -> bool:
    return any(bet.punter == punter for bet in state.bets.values())


def flat(state: FaroState, punter: str, rng: random.Random, unit: int) -> list[Command]:
    """Keeps one straight bet of one unit on a live rank; at Saratoga it rides a paroli, and
    where the house gives betting marks a mark backs a second rank beside it."""
    if _has_bets(state, punter):
        return _mark_beside(state, punter, rng, unit)
    live = _live(state)
    if not live:
        return []
    instruction = "paroli 3" if state.rules.progressions else ""
    return [BetCmd(punter, rng.choice(live).label, unit, instruction=instruction)]


def _mark_beside(state: FaroState, punter: str, rng: random.Random, unit: int) -> list[Command]:
    """003: a mark is credit matched by chips on the layout, so it goes down beside them."""
    if not state.rules.betting_marks or state.marks_on_layout(punter):
        return []
    amount = min(unit, state.chips_on_layout(punter))
    backed = {rank for bet in state.bets_of(punter) for rank in bet.spot.ranks}
    live = [rank for rank in _live(state, 2) if rank not in backed]
    if not live or amount < state.rules.min_bet or amount * 2 > state.available(punter):
        return []
    return [BetCmd(punter, rng.choice(live).label, amount, mark=True)]


def coppered(state: FaroState, punter: str, rng: random.Random, unit: int) -> list[Command]:
    """Bets against a rank: the copper on top of the chips; at Saratoga it doubles after a
    loss (a martingale) up to eight units."""
    if _has_bets(state, punter):
        return []
    live = _live(state)
    if not live:
        return []
    instruction = f"martingale {unit * 8}" if state.rules.progressions else ""
    return [BetCmd(punter, rng.choice(live).label, unit, copper=True, instruction=instruction)]


def groups(state: FaroState, punter: str, rng: random.Random, unit: int) -> list[Command]:
    """Spreads chips between ranks: pairs, rows, right angles and squares of 003's layout."""
    if _has_bets(state, punter):
        return []
    deck_ranks = state.rules.deck_spec.rank_set
    can_split = set(_live(state, 2))
    candidates = [
        group
        for size in (2, 3, 4)
        for group in legal_groups(size)
        if all(rank in deck_ranks and not state.casekeep.is_dead(rank) for rank in group)
        and (
            not state.rules.no_bets_on_cases
            or state.is_last_turn_next
            or can_split.intersection(group)
        )
    ]
    if not candidates:
        return flat(state, punter, rng, unit)
    group = rng.choice(candidates)
    return [BetCmd(punter, "+".join(rank.label for rank in group), unit)]


def standing(state: FaroState, punter: str, rng: random.Random, unit: int) -> list[Command]:
    """Puts a bet on high card, odd or even and leaves it there every turn."""
    if _has_bets(state, punter):
        return []
    if state.rules.colour_bets and not state.rules.rank_bets:
        return [BetCmd(punter, rng.choice(("red", "black")), unit)]
    return [BetCmd(punter, rng.choice(("high", "odd", "even")), unit)]


def casekeep_reader(state: FaroState, punter: str, rng: random.Random, unit: int) -> list[Command]:
    """Reads the casekeep: never leaves a bet on a rank with two left (000's tip), favours
    cases, which cannot split."""
    commands: list[Command] = []
    for bet in state.bets.values():
        if bet.punter == punter and any(state.casekeep.left(r) == 2 for r in bet.spot.ranks):
            commands.append(WithdrawCmd(punter, bet.spot.text))
    if len(commands) < sum(1 for bet in state.bets.values() if bet.punter == punter):
        return commands
    cases = [rank for rank in _live(state) if state.casekeep.is_cases(rank)]
    safe = cases or [rank for rank in _live(state) if state.casekeep.left(rank) != 2]
    if safe:
        commands.append(BetCmd(punter, rng.choice(safe).label, unit * 2))
    return commands


def caller(state: FaroState, punter: str, rng: random.Random, unit: int) -> list[Command]:
    """Plays small until the last turn, then calls it where the house takes the call."""
    if state.calls_open:
        last = state.casekeep.remaining_cards()
        order = list(last)
        rng.shuffle(order)
        if len({card.rank for card in last}) == 1:
            words = tuple(card.colour.value for card in order)
        else:
            words = tuple(card.rank.label for card in order)
        return [CallCmd(punter, (words[0], words[1], words[2]), unit)]
    return flat(state, punter, rng, unit)


STYLES: dict[str, Style] = {
    "flat": flat,
    "coppered": coppered,
    "groups": groups,
    "standing": standing,
    "casekeep": casekeep_reader,
    "caller": caller,
}


@dataclass(frozen=True)
class SimulatedPunter:
    name: str
    style: str
    bankroll: int
    unit: int

    def propose(self, state: FaroState, rng: random.Random) -> list[Command]:
        if not state.rules.rank_bets:
            # Dutch Faro takes only red or black: every style plays the colours there.
            return standing(state, self.name, rng, self.unit)
        return STYLES[self.style](state, self.name, rng, self.unit)


DEMO_PUNTERS = (
    SimulatedPunter("anna", "flat", 100, 2),
    SimulatedPunter("ben", "coppered", 100, 2),
    SimulatedPunter("carla", "groups", 100, 3),
    SimulatedPunter("dmitri", "standing", 100, 1),
    SimulatedPunter("elena", "caller", 100, 2),
    SimulatedPunter("frank", "casekeep", 100, 2),
)


# Under rules where the bank is a player's own chips (home Faro), a simulated table seats one
# more player, first, who holds the bank with a banker's bankroll before it passes on.
HOME_BANKER = SimulatedPunter("hugo", "flat", 300, 1)


def simulated_seats(
    rules: FaroRules, punters: Sequence[SimulatedPunter]
) -> tuple[SimulatedPunter, ...]:
    """Who sits at a simulated table, in seat order: ``punters``, after a banker of their own
    when the house does not hold the bank."""
    return (HOME_BANKER, *punters) if rules.bank_passes else tuple(punters)


def round_of_bets(
    state: FaroState, punters: Sequence[SimulatedPunter], rng: random.Random
) -> list[Command]:
    """What the seated punters (the banker aside) propose between two turns, in seat order."""
    return [
        command
        for punter in punters
        if punter.name in state.bankrolls and punter.name != state.banker
        for command in punter.propose(state, rng)
    ]


# A punter with fewer chips than this, and none on the layout, can no longer play a round.
REFILL_BELOW = 4


def fresh_visitors(
    state: FaroState, seats: Sequence[SimulatedPunter], house_bank: int
) -> list[Command]:
    """Between deals, so that a table dealing all day keeps its punters betting: broke ones
    (no stake left on the layout) make way for new visitors in their seats, and a house bank
    below ``house_bank`` is topped up to it; as commands, journaled like the dealer's."""
    commands: list[Command] = []
    if not state.rules.bank_passes and state.bank < house_bank:
        commands.append(BankCmd(house_bank - state.bank))
    for punter in seats:
        name = punter.name
        if name not in state.bankrolls:
            commands.append(PunterCmd(name, punter.bankroll))
        elif state.bankrolls[name] < REFILL_BELOW and not state.bets_of(name):
            commands += [LeaveCmd(name), PunterCmd(name, punter.bankroll)]
    return commands
