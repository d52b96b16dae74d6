"""``dealtable demo``: a full simulated Faro deck dealt in the terminal.

A seeded simulated dealing box, three to six simulated punters betting in different
styles, and after every card the layout with its chips, the casekeep, the last turn,
the bankrolls and a line per settled bet.
"""

from __future__ import annotations

import random
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TextIO

from display.terminal import describe, render_table
from display.text import count, wrap
from table.errors import TableError
from table.events import BetPlaced, BetWithdrawn, Event, TurnCalled
from table.faro.engine import FaroTable
from table.faro.punters import DEMO_PUNTERS, simulated_seats
from table.shoe import Shoe

CLEAR_SCREEN = "\x1b[H\x1b[2J"
DEFAULT_CARDS_PER_SECOND = 2.5


@dataclass
class DemoResult:
    table: FaroTable
    events: list[Event]
    refusals: list[str]


def run_demo(
    *,
    seed: int = 1,
    rules: str = "classic",
    punters: int = 6,
    speed: float | None = None,
    out: TextIO = sys.stdout,
    colour: bool | None = None,
    sleep: Callable[[float], None] = time.sleep,
) -> DemoResult:
    """Deal one full deck; ``speed`` is cards per second (0 or None off a terminal: no pause)."""
    if not 3 <= punters <= len(DEMO_PUNTERS):
        raise ValueError(f"the demo seats 3 to {len(DEMO_PUNTERS)} punters, not {punters}")
    on_terminal = out.isatty()
    colour = on_terminal if colour is None else colour
    if speed is None:
        speed = DEFAULT_CARDS_PER_SECOND if on_terminal else 0.0
    pause = 1.0 / speed if speed > 0 else 0.0

    rng = random.Random(seed)
    table = FaroTable("demo", rules)
    events: list[Event] = list(table.opening)
    seated = simulated_seats(table.state.rules, DEMO_PUNTERS[:punters])
    if not table.state.rules.bank_passes:
        events += table.fund_bank(2000)
    for punter in seated:
        events += table.seat(punter.name, punter.bankroll)
    events += table.new_deck()
    shoe = Shoe(table.state.rules.deck_spec, rng=random.Random(seed))
    refusals: list[str] = []

    def draw(lines: list[str]) -> None:
        frame = render_table(table.state, lines, colour=colour)
        out.write(CLEAR_SCREEN + frame + "\n" if on_terminal else frame + "\n" + "-" * 78 + "\n")
        out.flush()

    for card in shoe:
        lines: list[str] = []
        if table.state.bets_open:
            for punter in seated:
                if punter.name == table.state.banker:
                    continue
                for command in punter.propose(table.state, rng):
                    try:
                        new = table.apply(command)
                    except TableError as refused:
                        refusals.append(f"{punter.name}: {refused}")
                        lines.append(f"{punter.name}: refused: {refused}")
                        continue
                    events += new
                    lines += [
                        text
                        for e in new
                        if isinstance(e, BetPlaced | BetWithdrawn | TurnCalled)
                        if (text := describe(e))
                    ]
        dealt = table.deal(card)
        events += dealt
        lines += [text for e in dealt if (text := describe(e)) and not isinstance(e, BetPlaced)]
        draw(lines)
        if pause:
            sleep(pause)
    state = table.state
    # A home bank is its holder's own chips, counted with theirs below.
    bank = (
        f"the bank passes to {state.banker}"
        if state.rules.bank_passes
        else f"bank {state.bank_bankroll}"
    )
    summary = (
        f"Deal over: {count(state.splits, 'split')}; {bank}; "
        + ", ".join(f"{name} {state.bankrolls[name]}" for name in state.seats)
        + f"; chips on the table {state.total_chips()}"
    )
    out.write("\n" + "\n".join(wrap(summary)) + "\n")
    return DemoResult(table, events, refusals)
