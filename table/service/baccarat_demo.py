"""``dealtable demo --game NAME``: a simulated baccarat shoe dealt in the terminal.

A seeded simulated shoe, simulated punters betting in different styles, the hands drawn
as the tableau (or a player's choice) says, and after every coup the cards, the
bankrolls, the settled bets and the five scoreboards.
"""

from __future__ import annotations

import random
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TextIO

from display.baccarat_terminal import describe, render_baccarat
from display.text import wrap
from table.baccarat import BaccaratState, BaccaratTable, Draw, Family, Phase
from table.baccarat.shoe import BaccaratShoe, ContinuousShuffler
from table.errors import TableError
from table.events import BankPassed, BetPlaced, BetSettled, CoupResult, Event

CLEAR_SCREEN = "\x1b[H\x1b[2J"
DEFAULT_COUPS_PER_SECOND = 1.0
# A continuous shuffler's shoe never ends: the demo deals about as many coups as a shoe gives.
SHUFFLER_COUPS = 80
# Lines told under the roads after a coup; more only where what must be told needs them.
FRAME_LINES = 8
NAMES = ("ana", "ben", "cy", "dora", "eli", "fay")


@dataclass
class BaccaratDemoResult:
    table: BaccaratTable
    events: list[Event]
    results: list[CoupResult]
    refusals: list[str]


def _punto_banco_bets(
    table: BaccaratTable, rng: random.Random, seated: list[str], events: list[Event]
) -> list[str]:
    """Styles: ana backs Banca, ben Punto, cy follows the last winner, the others mix in
    ties and (where offered) pairs."""
    state = table.state
    last = state.last_result.winner if state.last_result else "banker"
    wishes: list[tuple[str, str, int]] = []
    for index, name in enumerate(seated):
        if index == 0:
            wishes.append((name, "banker", 20))
        elif index == 1:
            wishes.append((name, "player", 10))
        elif index == 2:
            wishes.append((name, last if last != "tie" else "banker", 15))
        elif rng.random() < 0.5:
            wishes.append((name, rng.choice(("player", "banker")), rng.choice((5, 10, 25))))
            if rng.random() < 0.2:
                wishes.append((name, "tie", 5))
            if state.rules.pair_bets and rng.random() < 0.2:
                wishes.append((name, rng.choice(("player-pair", "banker-pair")), 5))
    return _place(table, wishes, events)


def _bank_game_bets(
    table: BaccaratTable, rng: random.Random, seated: list[str], events: list[Event]
) -> list[str]:
    """The banker announces a bank when it has none; punters fade it in turn; now and
    then one calls banco."""
    state = table.state
    lines: list[str] = []
    if not state.bank:
        banker = state.banker or seated[0]
        amount = min(100, state.bankrolls[banker])
        try:
            announced = table.announce_bank(amount)
            events += announced
            # A bank passed on as it is announced is told first, then who holds it.
            lines += [text for event in announced if (text := describe(event))]
        except TableError:
            events += table.pass_bank()
            lines.append(f"{banker} cannot hold the bank; it passes to {state.banker}")
            return lines
    punters = [name for name in seated if name != state.banker]
    start = (seated.index(state.banker) + 1) if state.banker in seated else 0
    in_turn = [seated[(start + step) % len(seated)] for step in range(len(seated))]
    in_turn = [name for name in in_turn if name in punters]
    sides = state.rules.player_hands
    if (
        state.family is not Family.BANQUE
        and not state.bets
        and rng.random() < 0.15
        and state.bankrolls[in_turn[0]] >= state.bank_at_risk
    ):
        events += table.banco(in_turn[0])
        return [*lines, f"{in_turn[0]} calls banco for {state.staked}"]
    wishes = [
        (name, rng.choice(sides), rng.choice((10, 20, 30)))
        for name in in_turn
        if rng.random() < 0.7
    ]
    return lines + _place(table, wishes, events)


def _place(
    table: BaccaratTable, wishes: list[tuple[str, str, int]], events: list[Event]
) -> list[str]:
    lines = []
    for name, side, amount in wishes:
        state = table.state
        room = state.available(name)
        if not state.rules.house_banks:
            room = min(room, state.bank_at_risk - state.staked)
        amount = min(amount, room)
        if amount <= 0:
            continue
        try:
            events += table.bet(name, side, amount)
        except TableError as refused:
            lines.append(f"{name}: refused: {refused}")
            continue
        lines.append(_bet_line(name, side, amount))
    return lines


def _bet_line(name: str, side: str, amount: int) -> str:
    return f"{name} bets {amount} on {side}"


def _fit(lines: list[str], placed: set[str]) -> list[str]:
    """The lines a frame tells: where they are too many, the bets placed give way first, as
    each bet's settlement repeats its punter, side and stake; who holds the bank, a banco, a
    refusal and every settlement are told."""
    spare = len(lines) - FRAME_LINES
    told = []
    for line in lines:
        if spare > 0 and line in placed:
            spare -= 1
            continue
        told.append(line)
    return told


def _dealing(state: BaccaratState) -> bool:
    return state.phase is Phase.DEALING


def run_baccarat_demo(
    *,
    game: str = "punto-banco",
    seed: int = 1,
    rules: str = "standard",
    punters: int = 5,
    speed: float | None = None,
    out: TextIO = sys.stdout,
    colour: bool | None = None,
    sleep: Callable[[float], None] = time.sleep,
) -> BaccaratDemoResult:
    """Deal one full shoe (under a continuous shuffler, :data:`SHUFFLER_COUPS` coups);
    ``speed`` is coups per second (0 or None off a terminal: no pause)."""
    on_terminal = out.isatty()
    colour = on_terminal if colour is None else colour
    if speed is None:
        speed = DEFAULT_COUPS_PER_SECOND if on_terminal else 0.0
    pause = 1.0 / speed if speed > 0 else 0.0
    rng = random.Random(seed)
    table = BaccaratTable("demo", game, rules)
    state = table.state
    events: list[Event] = list(table.opening)
    if state.rules.house_banks:
        events += table.fund_bank(20_000)
    seated = list(NAMES[: max(punters, state.rules.min_seats)])
    for name in seated:
        events += table.seat(name, 500)
    events += table.new_shoe()
    shuffler = state.rules.shuffler
    shoe: BaccaratShoe | ContinuousShuffler = (
        ContinuousShuffler(state.rules.decks, random.Random(seed))
        if shuffler
        else BaccaratShoe(state.rules.decks, state.rules.cut_card, random.Random(seed))
    )
    chips = state.total_chips()
    results: list[CoupResult] = []
    refusals: list[str] = []
    while state.phase is Phase.BURNING:
        events += table.deal(shoe.draw())
    # What was said since the last frame: a bank announced that no one bet against, and
    # passed on, is told in the next frame.
    carried: list[str] = []
    alone: str | None = None  # the one player left with chips, where a player banks
    while state.phase is Phase.BETTING and not (shuffler and len(results) >= SHUFFLER_COUPS):
        if not state.rules.house_banks:
            playing = [name for name in seated if state.bankrolls[name] > 0]
            if len(playing) < 2:
                # No bank can be faded, nor held against its holder: the bank would only
                # pass round the table for ever.
                alone = playing[0] if playing else None
                break
        before_bets = len(events)
        if state.rules.house_banks:
            said = _punto_banco_bets(table, rng, seated, events)
        else:
            said = _bank_game_bets(table, rng, seated, events)
        refusals += [line for line in said if ": refused: " in line]
        lines, carried = carried + said, []
        if not state.bets_open:
            carried = lines
            continue
        if not state.rules.house_banks and not state.bank:
            # The banker could not hold it and passed it on: the next one announces it.
            carried = lines
            continue
        if not state.rules.house_banks and not state.bets:
            passed = table.pass_bank()
            events += passed
            carried = lines + [text for event in passed if (text := describe(event))]
            continue
        events += table.lock()
        while _dealing(state):
            following = state.next_card()
            if state.awaits_a_no:
                # A player held face down says "non" on 6 or 7 as on 5: the dealer keys it.
                coup = table.stand()
            elif following.draw is Draw.MAY:
                # The representative at 5 goes either way; a banker mostly follows the table.
                draws = rng.random() < 0.5 if following.advice is None else following.advice
                if following.advice is not None and rng.random() < 0.1:
                    draws = not draws
                coup = table.deal(shoe.draw()) if draws else table.stand()
            else:
                coup = table.deal(shoe.draw())
            events += coup
            lines += [
                text
                for event in coup
                if isinstance(event, BetSettled | CoupResult | BankPassed)
                if (text := describe(event))
            ]
            results += [event for event in coup if isinstance(event, CoupResult)]
        if isinstance(shoe, ContinuousShuffler):
            shoe.take_back()
        placed = {
            _bet_line(event.punter, event.spot, event.amount)
            for event in events[before_bets:]
            if isinstance(event, BetPlaced)
        }
        frame = render_baccarat(state, results, _fit(lines, placed), colour=colour)
        out.write(CLEAR_SCREEN + frame + "\n" if on_terminal else frame + "\n" + "-" * 78 + "\n")
        out.flush()
        if pause:
            sleep(pause)
    assert state.total_chips() == chips
    wins = {
        side: sum(1 for r in results if r.winner == side) for side in ("banker", "player", "tie")
    }
    bank = f"bank {state.bank}" if state.rules.house_banks else f"the bank with {state.banker}"
    if state.house:
        bank += f"; commission to the house {state.house}"
    ended = "Shuffler stopped" if shuffler else "Shoe over"
    if alone is not None:
        ended = f"Stopped: only {alone} has chips left to play"
    summary = (
        f"{ended}: {len(results)} coups, banker {wins['banker']}, player {wins['player']}, "
        f"tie {wins['tie']}; {bank}; "
        + ", ".join(f"{name} {state.bankrolls[name]}" for name in state.seats)
        + f"; chips on the table {state.total_chips()}"
    )
    out.write("\n" + "\n".join(wrap(summary)) + "\n")
    return BaccaratDemoResult(table, events, results, refusals)
