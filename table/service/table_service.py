"""The running table: the engine, its journal, and everyone who listens.

Every command and every card goes through :meth:`TableService.execute`: the engine judges
it, the journal stores the events it caused, and only then are they handed to the
listeners (displays, MQTT). A refused command raises and changes nothing anywhere.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

from table.baccarat.engine import BaccaratState, BaccaratTable
from table.cards import Card
from table.dealer import Alarm
from table.errors import TableError
from table.events import Event, event_to_json
from table.faro.casekeep import Bead
from table.faro.engine import FaroState, FaroTable
from table.language import CardCmd, Command, parse_line
from table.odds.advisor import advice_for
from table.service.config import Config
from table.service.journal import Journal, JournalError

Listener = Callable[[Sequence[Event]], None]


class TableService:
    def __init__(
        self, config: Config, journal: Journal, clock: Callable[[], float] = time.time
    ) -> None:
        self.config = config
        self.journal = journal
        self.clock = clock
        self.listeners: list[Listener] = []
        self.refusals: list[str] = []
        stored = list(journal.events())
        self.resumed = bool(stored)
        table = config.table
        self.game: FaroTable | BaccaratTable
        if stored:
            self.game = self._engine_class().replay(stored, table.id)
            return
        if table.game == "faro":
            self.game = FaroTable(table.id, table.rules, table.options or None, at=clock())
            funded = not self.game.state.rules.bank_passes
        else:
            self.game = BaccaratTable(
                table.id, table.game, table.rules, table.options or None, at=clock()
            )
            funded = self.game.state.rules.house_banks
        events: list[Event] = list(self.game.opening)
        if funded and table.bank:
            events += self.game.fund_bank(table.bank, at=clock())
        for punter in table.punters:
            events += self.game.seat(punter.name, punter.bankroll, at=clock())
        self.journal.append(events)

    def _engine_class(self) -> type[FaroTable] | type[BaccaratTable]:
        return FaroTable if self.config.table.game == "faro" else BaccaratTable

    @property
    def state(self) -> FaroState | BaccaratState:
        return self.game.state

    @property
    def faro(self) -> FaroState:
        """The state of a Faro table; the devices and screens built for Faro ask for it."""
        state = self.game.state
        if not isinstance(state, FaroState):
            raise TableError(f"this is a {self.config.table.game} table, not a Faro table")
        return state

    def execute(self, command: Command) -> list[Event]:
        """Carry out one command; its events are journaled before anyone hears of them."""
        events = self.game.apply(command, at=self.clock())
        self._record(events)
        return events

    def execute_many(self, commands: Sequence[Command]) -> list[Event]:
        """Commands that belong together (a round of simulated bets): a refused one is skipped,
        and the events of the rest are journaled in one transaction, all or none."""
        events: list[Event] = []
        for command in commands:
            try:
                events += self.game.apply(command, at=self.clock())
            except TableError as refused:
                self.refusals.append(str(refused))
        self._record(events)
        return events

    def execute_line(self, line: str) -> list[Event]:
        command = parse_line(line)
        return [] if command is None else self.execute(command)

    def card(self, card: Card) -> list[Event]:
        return self.execute(CardCmd(card))

    def _record(self, events: list[Event]) -> None:
        try:
            self.journal.append(events)
        except JournalError:
            # The engine moved on but the journal did not: go back to what the journal holds.
            self.game = self._engine_class().replay(
                list(self.journal.events()), self.config.table.id
            )
            raise
        for listener in self.listeners:
            listener(events)


def alarm_json(alarm: Alarm | None) -> dict[str, Any] | None:
    """The alarm waiting for the dealer, as the ``state`` topic carries it."""
    if alarm is None:
        return None
    return {"alarm": alarm.alarm_id, "kind": alarm.kind.value, "message": alarm.message}


def baccarat_snapshot(state: BaccaratState) -> dict[str, Any]:
    """The retained ``state`` of a baccarat table: the hands of the coup, the last result,
    the bets and the bankrolls (only cards already out of the shoe)."""
    result = state.last_result
    return {
        "table": state.table,
        "seq": state.last_seq,
        "game": state.game,
        "rules": state.rules.name,
        "shoe": state.shoe,
        "coup": state.coup,
        "phase": state.phase.value,
        "bets_open": state.bets_open,
        "hands": [[str(card) for card in hand] for hand in state.hands],
        "last_result": None if result is None else event_to_json(result),
        "bets": [
            {"bet": bet.bet_id, "punter": bet.punter, "spot": bet.spot, "stake": bet.stake}
            for bet in sorted(state.bets.values(), key=lambda bet: bet.bet_id)
        ],
        "bank": state.bank,
        "banker": state.banker,
        "bankrolls": dict(state.bankrolls),
        "alarm": alarm_json(state.alarm),
    }


def state_snapshot(state: FaroState, advisor: bool = False) -> dict[str, Any]:
    """What the retained ``state`` topic carries: only cards that are out, never the box;
    with the advisor on, each live rank's split risk and the bank's edge on it."""
    casekeep = state.casekeep
    spindles = {}
    for spindle in casekeep.abacus():
        spindles[spindle.rank.label] = {
            "out": [
                {"card": str(entry.card), "role": entry.role.value, "turn": entry.turn}
                for entry in spindle.entries
            ],
            "left": casekeep.left(spindle.rank),
            "cases": spindle.cases,
            "finished": spindle.finished,
            "beads": [bead.value for bead in spindle.beads if bead is not Bead.IN_BOX],
        }
    return {
        "table": state.table,
        "seq": state.last_seq,
        "game": "faro",
        "rules": state.rules.name,
        "deal": state.deal,
        "phase": state.phase.value,
        "turn": state.turn,
        "cards_left": state.cards_left,
        "bets_open": state.bets_open,
        "last_turn": [str(card) for card in state.last_turn] if state.last_turn else None,
        "hoc": str(state.hoc) if state.hoc else None,
        "splits": state.splits,
        "casekeep": spindles,
        "bets": [
            {
                "bet": bet.bet_id,
                "punter": bet.punter,
                "spot": "call" if bet.order else bet.spot.text,
                "order": list(bet.order) if bet.order else None,
                "stake": bet.stake,
                "coppered": bet.coppered,
                "mark": bet.mark,
            }
            for bet in sorted(state.bets.values(), key=lambda bet: bet.bet_id)
        ],
        "bank": state.bank_bankroll,
        "banker": state.banker,
        "bankrolls": dict(state.bankrolls),
        "alarm": alarm_json(state.alarm),
        "advice": _advice(state) if advisor else None,
    }


def _advice(state: FaroState) -> dict[str, Any] | None:
    advice = advice_for(state, enabled=True)
    return None if advice is None else dict(advice.to_json())
