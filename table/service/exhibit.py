"""``dealtable exhibit``: a Faro table that deals unattended all day for a museum.

A turn, then what it did in plain words in the visitor's language, a pause, the next turn; a
new deck after the hoc. Simulated punters who run out of chips stand up and new ones sit
down, and the bank is refilled, so it deals forever. Nothing is kept from deal to deal:
memory stays flat however long it runs.
"""

from __future__ import annotations

import random
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TextIO

from display.narration import Narrator, language_or_english
from table.errors import TableError
from table.events import DealFinished, Event, TurnClosed
from table.faro.engine import FaroTable, Phase
from table.faro.punters import (
    DEMO_PUNTERS,
    SimulatedPunter,
    fresh_visitors,
    round_of_bets,
    simulated_seats,
)
from table.language import PunterCmd
from table.odds.advisor import advice_for
from table.odds.json_fractions import percent_text
from table.service.table_service import TableService
from table.shoe import Shoe

BANK = 2000


@dataclass
class ExhibitStats:
    deals: int = 0
    turns: int = 0
    refusals: int = 0
    sentences: int = 0


def run_exhibit(
    *,
    language: str = "en",
    seed: int = 1,
    rules: str = "classic",
    pause: float = 4.0,
    deals: int | None = None,
    out: TextIO = sys.stdout,
    sleep: Callable[[float], None] = time.sleep,
    clock: Callable[[], float] = time.time,
    after_deal: Callable[[ExhibitStats], None] | None = None,
    advisor: bool = False,
) -> ExhibitStats:
    """Deal ``deals`` decks (forever if None), explaining every turn."""
    spoken, unknown = language_or_english(language)
    if unknown:
        out.write(f"(language {language!r} is not known here: English instead)\n")
    narrator = Narrator(spoken)
    table = FaroTable("exhibit", rules)
    seats = simulated_seats(table.state.rules, DEMO_PUNTERS)
    stats = ExhibitStats()
    deal_number = 0
    while deals is None or stats.deals < deals:
        deal_number += 1
        _keep_the_table_going(table, seats, clock())
        narrate(narrator, table.new_deck(at=clock()), out, stats)
        shoe = Shoe(table.state.rules.deck_spec, rng=random.Random(f"{seed}:{deal_number}"))
        for card in shoe:
            state = table.state
            if state.bets_open:
                rng = random.Random(f"{seed}:{deal_number}:{state.turn}")
                events: list[Event] = []
                for command in round_of_bets(state, seats, rng):
                    try:
                        events += table.apply(command, at=clock())
                    except TableError:
                        stats.refusals += 1
                narrate(narrator, events, out, stats)
            dealt = table.deal(card, at=clock())
            narrate(narrator, dealt, out, stats)
            if advisor and any(isinstance(event, TurnClosed) for event in dealt):
                advice = advice_for(table.state, enabled=True)
                if advice is not None and advice.lowest_edge:
                    edge = advice.rank_advice(advice.lowest_edge[0]).edge
                    even_stake = advice.edges_per != "chip"
                    said = narrator.advise(
                        advice.lowest_edge, percent_text(edge, 2), even_stake=even_stake
                    )
                    out.write(said + "\n")
            if any(isinstance(event, TurnClosed | DealFinished) for event in dealt) and pause:
                sleep(pause)
        if table.state.phase is not Phase.FINISHED:
            raise TableError(f"the exhibit's deal {deal_number} did not finish")
        stats.deals += 1
        if after_deal is not None:
            after_deal(stats)
    return stats


def narrate(narrator: Narrator, events: list[Event], out: TextIO, stats: ExhibitStats) -> None:
    for line in narrator.explain(events):
        out.write(line + "\n")
        stats.sentences += 1
    stats.turns += sum(isinstance(event, TurnClosed) for event in events)
    out.flush()


def _keep_the_table_going(table: FaroTable, seats: Sequence[SimulatedPunter], now: float) -> None:
    for command in fresh_visitors(table.state, seats, BANK):
        table.apply(command, at=now)


class ExhibitVoice:
    """A museum exhibit around a real shoe: it explains every change of the table in plain
    words, and (if asked) simulated punters bet between turns on the cards the shoe deals."""

    def __init__(self, service: TableService, language: str, out: TextIO, punters: bool) -> None:
        self.service = service
        self.narrator = Narrator(language_or_english(language)[0])
        # A table resumed from its journal may be in the middle of a deal, with bets down
        # that this narrator never heard placed; the deal's events tell it how to say them.
        self.narrator.remember(service.journal.events(deal=service.faro.deal))
        self.out = out
        self.punters = punters
        self.stats = ExhibitStats()
        self._betting_window: tuple[int, int] | None = None
        service.listeners.append(self._changed)
        service.trouble_listeners.append(self._journal_trouble)

    def _changed(self, events: Sequence[Event]) -> None:
        narrate(self.narrator, list(events), self.out, self.stats)

    def _journal_trouble(self) -> None:
        self.out.write(self.narrator.journal(self.service.journal_trouble) + "\n")
        self.stats.sentences += 1
        self.out.flush()

    def place_bets(self, seed: int = 1) -> None:
        """Between turns, once a turn: the simulated punters' bets, journaled together."""
        state = self.service.faro
        window = (state.deal, state.turn)
        if not self.punters or not state.bets_open or window == self._betting_window:
            return
        self._betting_window = window
        if state.turn == 0:  # a new deal: the soda is out, no bet is down yet
            self.service.execute_many(
                fresh_visitors(state, DEMO_PUNTERS, self.service.config.table.bank)
            )
        rng = random.Random(f"{seed}:{state.deal}:{state.turn}")
        missing = [
            PunterCmd(punter.name, punter.bankroll)
            for punter in DEMO_PUNTERS
            if punter.name not in state.bankrolls
        ]
        self.service.execute_many([*missing, *round_of_bets(state, DEMO_PUNTERS, rng)])
