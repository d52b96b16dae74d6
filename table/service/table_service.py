"""The running table: the engine, its journal, and everyone who listens.

Every command and every card goes through :meth:`TableService.execute`: the engine judges
it, the journal stores the events it caused, and only then are they handed to the
listeners (displays, MQTT). A refused command raises and changes nothing anywhere.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from table.baccarat.engine import BaccaratState, BaccaratTable
from table.baccarat.engine import Phase as BaccaratPhase
from table.baccarat.roads import COUPS_SHOWN
from table.baccarat.rules import BaccaratRules
from table.baccarat.rules import find_rules as find_baccarat_rules
from table.cards import Card
from table.checkpoints import CheckpointError, checkpoint_of, table_from_checkpoint
from table.dealer import Alarm
from table.errors import TableError
from table.events import Event, ReaderNoticeKind, RulesChosen, event_to_json
from table.faro.casekeep import Bead
from table.faro.engine import FaroState, FaroTable, Phase
from table.faro.rules import FaroRules, find_rules
from table.language import CardCmd, Command, RulesCmd, ShuffleCmd, parse_line
from table.odds.advisor import advice_for
from table.service.config import Config, ConfigError, archive_folder
from table.service.journal import ArchiveAside, Archived, Journal, JournalError, archives_of

Listener = Callable[[Sequence[Event]], None]
# How long the service waits before it tries a journal that could not write again.
JOURNAL_RETRY_SECONDS = 2.0
log = logging.getLogger("dealtable")


def _archiving_failed(error: JournalError) -> None:
    log.warning("%s; the records stay in the journal until the next deck", error)


class _Archiving:
    """An archive being written on a thread of its own, for the service's loop to drop its
    records from the journal once it is in place."""

    def __init__(self, aside: ArchiveAside) -> None:
        self.aside = aside
        self.started = time.monotonic()
        self.archived: Archived | None = None
        self.failed: JournalError | None = None
        self.thread = threading.Thread(target=self._write, name="archiving", daemon=True)
        self.thread.start()

    def _write(self) -> None:
        try:
            self.archived = self.aside.run()
        except JournalError as error:
            self.failed = error
        except Exception as error:  # a thread's own: said on the loop, never lost
            log.exception("the archiving failed")
            self.failed = JournalError(f"journal {self.aside.journal.path}: {error}")


class TableService:
    def __init__(
        self,
        config: Config,
        journal: Journal,
        clock: Callable[[], float] = time.time,
        archive_aside: bool = False,
    ) -> None:
        """``archive_aside``: an archiving's archive is written on a thread of its own
        while the table deals on, and its records leave the journal at the next
        :meth:`archive_some` after (the service's loop calls it); else all at the new deck,
        as a tool that deals on its own wants it."""
        self.config = config
        self.archive_aside = archive_aside
        self._archiving: _Archiving | None = None
        # An archive in place whose records leave the journal a step at a time, and when
        # its archiving began.
        self._dropping: tuple[Archived, float] | None = None
        self.journal = journal
        self.clock = clock
        self.listeners: list[Listener] = []
        # Why the journal could not keep the last events offered ("" once it keeps them).
        self.journal_trouble = ""
        # Told when journal_trouble changes: the table then changes in nothing the listeners
        # hear of, and the dealer must see why it waits.
        self.trouble_listeners: list[Callable[[], None]] = []
        self.resumed = journal.last_seq > 0
        table = config.table
        self.game: FaroTable | BaccaratTable
        # The config's rules when they differ from those of a deal still in progress: that deal
        # keeps the rules it began with, and the next one begins under the config's.
        self.rules_waiting = False
        self._checkpoint_kept: object = None  # the engine's checkpoint the journal keeps
        self._archiving_waits = False  # for the MQTT outbox to send what would be archived
        self._journal_tried_at = -math.inf
        if self.resumed:
            self.game = self._resume()
            self._finish_archiving()
            self._follow_config_rules()
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

    def _resume(self) -> FaroTable | BaccaratTable:
        table = table_from_journal(self.journal, self.config.table.id, self.config.table.game)
        self._check_game(table.game, table.state.rules.name)
        self._checkpoint_kept = table.state.checkpoint  # not written again
        return table

    def back_to_journal(self) -> None:
        """The table as its journal holds it, after a fault left it ahead of the journal:
        what was not written did not happen."""
        self.game = self._resume()

    def _check_game(self, game: str, rules: str) -> None:
        """A journal is dealt with the game it began with; a config for another is refused."""
        asked = self.config.table.game
        if game == asked:
            return
        dealt = f"the journal {self.journal.path} deals {game} ({rules} rules)"
        if self.config.source == Config.source:
            raise ConfigError(
                f"{dealt} but a run with no config deals {asked}: give it its table's --config"
            )
        raise ConfigError(
            f"{self.config.source}: [table] game: {dealt} but the config asks for {asked}; "
            f"a {asked} table needs a journal of its own"
        )

    def _keep_checkpoint(self) -> None:
        """When the engine takes a checkpoint (a deck or shoe starts, a continuous shuffler's
        coup locks), keep it in the journal, so that a start replays only from there. It
        saves time, nothing more: one not kept is only logged."""
        checkpoint = self.game.state.checkpoint
        if checkpoint is None or checkpoint is self._checkpoint_kept:
            return
        self._checkpoint_kept = checkpoint
        seq = checkpoint.last_seq
        try:
            body = checkpoint_of(checkpoint, seq)
        except Exception:  # the events are journaled: a checkpoint must not keep them unheard
            log.exception("no checkpoint of the table after record %d", seq)
            return
        if body is None:
            log.debug("no checkpoint of the table after record %d", seq)
            return
        try:
            self.journal.save_checkpoint(seq, body, archiving=bool(self.config.table.archive_every))
        except JournalError as error:
            log.warning("%s; the next start replays from the checkpoint before", error)
            return
        self._archive_if_due()

    def _archive_if_due(self) -> None:
        """Once ``archive_every`` records may move to an archive, move them (a new deck or
        shoe has just gone in): the journal a start checks stays the same length, however long
        the table deals. An archiving that fails moves nothing and is tried again at the next
        checkpoint."""
        every = self.config.table.archive_every
        journal = self.journal
        if not every or self.archiving:
            return
        try:
            upto = journal.before_spare_checkpoint()
            sent = journal.outbox_holds_back(upto)
        except JournalError as error:
            _archiving_failed(error)
            return
        if upto - journal.first_seq + 1 < every:
            return
        if sent is not None:
            if not self._archiving_waits:
                log.warning(
                    "journal %s: its records are not archived until the MQTT outbox has sent "
                    "them (it has sent up to record %d): %s",
                    journal.path,
                    sent,
                    "the broker is away"
                    if self.config.mqtt is not None
                    else "this table has no [mqtt] now, but an outbox once kept its place in "
                    "the journal; stop the service and run `dealtable archive --drop-outbox "
                    f"{journal.path}` to archive its records unsent",
                )
            self._archiving_waits = True
            return
        self._archiving_waits = False
        if self.archive_aside:
            try:
                aside = journal.archive_aside(archive_folder(self.config.table), upto)
            except JournalError as error:
                _archiving_failed(error)
                return
            self._archiving = _Archiving(aside)
            return
        started = time.monotonic()
        try:
            archived = journal.archive(archive_folder(self.config.table))
        except JournalError as error:
            _archiving_failed(error)
            return
        if archived is not None:
            self._archived(archived, started)

    def _archived(self, archived: Archived, started: float) -> None:
        log.info(
            "journal %s: records %d to %d moved to the archive %s in %.1f s",
            self.journal.path,
            archived.first_seq,
            archived.last_seq,
            archived.path,
            time.monotonic() - started,
        )
        self._drop_old_archives(archived.path.parent)

    @property
    def archiving(self) -> bool:
        """An archiving is under way (``archive_aside``): its archive being written, or its
        records leaving the journal."""
        return self._archiving is not None or self._dropping is not None

    def archive_some(self) -> None:
        """The service's loop's turn of an archiving under way: once its archive is
        written and in place, its records leave the journal, a deck (baccarat: a shoe) in
        one transaction at each turn, a few milliseconds, so that the table waits for no
        more between two cards or commands; the journal begins at a checkpoint after each.
        Stopped before they have all left, the start or the next archiving finishes."""
        work = self._archiving
        if work is not None:
            if work.thread.is_alive():
                return
            self._archiving = None
            if work.failed is not None:
                _archiving_failed(work.failed)
            if work.archived is not None:
                self._dropping = (work.archived, work.started)
            return
        if self._dropping is None:
            return
        archived, started = self._dropping
        try:
            done = self.journal.drop_archived_step(archived)
        except JournalError as error:
            # The archive stays in place: the next deck's archiving takes it as written.
            self._dropping = None
            _archiving_failed(error)
            return
        if done:
            self._dropping = None
            self._archived(archived, started)

    def stop_archiving(self) -> None:
        """The service stops: an archive being written is given up (what it left beside is
        cleared by the next archiving), one written stays in place, its records still in
        the journal left for the start to finish."""
        work, self._archiving, self._dropping = self._archiving, None, None
        if work is not None:
            work.aside.cancel()
            work.thread.join(timeout=2.0)

    def _finish_archiving(self) -> None:
        """An archiving the service was stopped in the middle of (a power cut) is finished as
        it starts: until then its archive and the journal both hold some records (``dealtable
        verify`` of the archives and the journal says which), and the next archiving would
        only finish it. Under ``dealtable run`` its loop drops them a step at a time."""
        if not self.config.table.archive_every:
            return
        folder = archive_folder(self.config.table)
        try:
            if self.archive_aside:
                # Left to the loop, a step at a time, as the table deals on.
                archived = self.journal.archiving_to_finish(folder)
                if archived is not None:
                    self._dropping = (archived, time.monotonic())
                return
            archived = self.journal.finish_archiving(folder)
        except JournalError as error:
            _archiving_failed(error)
            return
        if archived is not None:
            log.info(
                "journal %s: the archiving cut short when the service stopped is finished: "
                "records %d to %d are in the archive %s",
                self.journal.path,
                archived.first_seq,
                archived.last_seq,
                archived.path,
            )

    def _drop_old_archives(self, folder: Path) -> None:
        """Past ``archives_kept`` archives (an exhibit's SD card fills in a year or two), the
        oldest are deleted, each said in the log; 0 keeps them all."""
        kept = self.config.table.archives_kept
        if not kept:
            return
        for old in archives_of(self.journal.path, folder)[:-kept]:
            try:
                old.unlink()
            except OSError as error:
                log.warning("the old archive %s is not deleted: %s", old, error)
            else:
                log.info("the old archive %s is deleted: %d are kept", old, kept)

    def _config_rules(self) -> FaroRules | BaccaratRules:
        table = self.config.table
        if table.game == "faro":
            return find_rules(table.rules, table.options or None)
        return find_baccarat_rules(table.game, table.rules, table.options or None)

    def _between_deals(self) -> bool:
        state = self.game.state
        if isinstance(state, FaroState):
            # Bets that stand from deal to deal come back with the rules change.
            return state.phase in (Phase.NO_DECK, Phase.FINISHED)
        return state.phase is BaccaratPhase.NO_SHOE and not state.bets

    def _follow_config_rules(self) -> None:
        """Rules changed in the config since the journal was written: journaled as a rules
        event between deals, at once or after the deal in progress."""
        state = self.game.state
        if state.rules == self._config_rules():
            return
        journal_rules = _rules_text(state.rules.name, state.rules_options)
        config_rules = _rules_text(self.config.table.rules, self.config.table.options)
        # Faro's rules change between deals, baccarat's between shoes.
        unit = "deal" if isinstance(self.game.state, FaroState) else "shoe"
        if self._between_deals():
            self._record(self._choose_config_rules(self.clock()))
            log.info(
                "the config's rules (%s) replace the journal's (%s) from the next %s",
                config_rules,
                journal_rules,
                unit,
            )
        else:
            self.rules_waiting = True
            log.info(
                "the %s in progress (%s) goes on under the journal's rules (%s); the config's "
                "(%s) begin with the next %s",
                unit,
                self.game.state.where(),
                journal_rules,
                config_rules,
                unit,
            )

    def _choose_config_rules(self, at: float) -> list[Event]:
        table = self.config.table
        return self.game.choose_rules(table.rules, table.options or None, at=at)

    def _engine_class(self) -> type[FaroTable] | type[BaccaratTable]:
        return engine_for(self.config.table.game)

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

    def execute(
        self, command: Command, request_id: str | None = None, *, at: float | None = None
    ) -> list[Event]:
        """Carry out one command; its events are journaled before anyone hears of them, with
        the ``request_id`` it came with (see :meth:`Journal.append`), and carry ``at``, when
        it came in (the service's clock now if not given)."""
        at = self.clock() if at is None else at
        if self.rules_waiting and isinstance(command, ShuffleCmd):
            # The config's rules begin with the next deck, journaled with it: both or neither.
            events = self._choose_config_rules(at)
            try:
                events += self.game.apply(command, at=at)
            except TableError:
                self.game = self._resume()
                raise
            self._record(events, request_id)
            self.rules_waiting = False
            return events
        events = self.game.apply(command, at=at)
        self._record(events, request_id)
        if isinstance(command, RulesCmd):
            self.rules_waiting = False  # the dealer's rules are newer than the config's
        return events

    def execute_many(self, commands: Sequence[Command]) -> list[Event]:
        """Commands that belong together (a round of simulated bets): a refused one is skipped,
        and the events of the rest are journaled in one transaction, all or none."""
        events: list[Event] = []
        for command in commands:
            try:
                events += self.game.apply(command, at=self.clock())
            except TableError as refused:
                # Simulated punters propose bets the table may refuse (a broke punter, a dead
                # rank): expected, all day long, and kept nowhere, so memory stays flat.
                log.debug("refused: %s", refused)
        self._record(events)
        return events

    def execute_line(self, line: str) -> list[Event]:
        command = parse_line(line)
        return [] if command is None else self.execute(command)

    def card(
        self,
        card: Card,
        request_id: str | None = None,
        *,
        at: float | None = None,
        came_out: float | None = None,
    ) -> list[Event]:
        """The next card, given at ``at`` on the service's clock (now if not given). A card
        held a while (behind a question, an alarm, a journal that could not write) carries
        ``came_out``, when it came out; the alarm its naming answers carries ``at``."""
        return self.execute(CardCmd(card, came_out=came_out), request_id, at=at)

    def reader_notice(self, reader: str, notice: ReaderNoticeKind, message: str) -> list[Event]:
        """A card reader's news that stops no card, journaled before anyone hears of it."""
        events = self.game.reader_notice(reader, notice, message, at=self.clock())
        self._record(events)
        return events

    def _record(self, events: list[Event], request_id: str | None = None) -> None:
        try:
            self.journal.append(events, request_id)
        except JournalError as unwritten:
            # The engine moved on but the journal did not: go back to what the journal holds.
            self.back_to_journal()
            self.journal_failed(str(unwritten))
            raise
        # Nothing written shows nothing of the journal. The listeners draw the table with
        # the trouble gone, then hear that it has gone (once, on a frame that is whole).
        cleared = bool(self.journal_trouble and events)
        if cleared:
            log.info("the journal writes again; the table deals on")
            self.journal_trouble = ""
        self._keep_checkpoint()
        for listener in self.listeners:
            listener(events)
        if cleared:
            self._tell_trouble()

    def _set_journal_trouble(self, trouble: str) -> None:
        if trouble == self.journal_trouble:
            return
        self.journal_trouble = trouble
        self._tell_trouble()

    def _tell_trouble(self) -> None:
        for listener in self.trouble_listeners:
            listener()

    def journal_failed(self, reason: str) -> None:
        """The journal could not keep the table's events, or a part of the service's notes
        (the cards a reader holds): said once an outage, whichever part met it first, and
        shown until it writes again."""
        if not self.journal_trouble:
            log.error("%s; the table waits until the journal can write", reason)
            self._set_journal_trouble(reason)

    def journal_wrote(self) -> None:
        """A part of the service wrote the journal: whatever it could not write, it can."""
        if self.journal_trouble:
            log.info("the journal writes again; the table deals on")
            self._set_journal_trouble("")

    def try_the_journal(self, now: float) -> None:
        """While the journal cannot write, it is tried every :data:`JOURNAL_RETRY_SECONDS`
        (``now`` on the monotonic clock) with a note and nothing else: the trouble clears
        once the disk is freed, even with nothing waiting to be written (the croupier's page
        takes no bet while it shows)."""
        if not self.journal_trouble or now < self._journal_tried_at + JOURNAL_RETRY_SECONDS:
            return
        self._journal_tried_at = now
        try:
            self.journal.keep_note("written-at", repr(self.clock()))
        except JournalError:
            return
        self.journal_wrote()


def table_from_journal(
    journal: Journal, table_id: str, game: str = "faro", upto: int | None = None
) -> FaroTable | BaccaratTable:
    """The table a journal holds after record ``upto`` (its last if None): its newest sound
    checkpoint at or before it with the events after folded in, or, with none, the fold of
    every event since the first (dealt as ``game`` if the journal names none). A journal
    whose first records were archived is rebuilt only from a checkpoint."""
    last = journal.last_seq if upto is None else upto
    path = journal.path
    for seq, body, sound in _checkpoints_to_read(journal, last):
        if not sound:
            log.warning(
                "journal %s: the checkpoint after record %d does not match that record; "
                "it is not read",
                path,
                seq,
            )
            continue
        try:
            table = table_from_checkpoint(body)
        except CheckpointError as unreadable:
            log.info("journal %s: the checkpoint after record %d is not read: %s", path, seq,
                     unreadable)  # fmt: skip
            continue
        fold = table.state.apply
        for event in journal.events(after_seq=seq, upto=last):
            fold(event)
        return table
    if journal.opening is not None:
        begins = f"journal {path} begins after record {journal.opening.after_seq}"
        if last < journal.first_seq:
            raise JournalError(f"{begins}: record {last} was moved to an archive; read it there")
        raise JournalError(
            f"{begins}, the records before moved to an archive, and holds no checkpoint after "
            f"its first record that this dealtable reads: the table cannot be rebuilt from it"
        )
    stored = list(journal.events(upto=last))
    chosen = last_rules(stored)
    return engine_for(game if chosen is None else chosen.game).replay(stored, table_id)


def _checkpoints_to_read(journal: Journal, upto: int) -> Iterator[tuple[int, str, bool]]:
    """The journal's checkpoints at or before record ``upto``, newest first, each read only
    if the one after could not be."""
    try:
        yield from journal.newest_checkpoints(upto)
    except JournalError as unreadable:
        # They only save time (but where the records before were archived): rebuilt without.
        log.warning("%s; the table is rebuilt from the records", unreadable)


def shoe_so_far(journal: Journal, state: FaroState | BaccaratState) -> list[Event]:
    """What a baccarat table's roads show of the past: the shoe's newest coup results. Those
    since the engine's checkpoint come from its log, where a void or a correction has taken
    back what it undid; those before (a continuous shuffler's earlier coups, past any void)
    from the journal."""
    if isinstance(state, FaroState) or state.checkpoint is None:
        return []
    shoe = journal.last_event_of("shoe_started")
    archived = journal.archived_results() if shoe is None else []
    settled = journal.last_events_of(
        "coup_result",
        COUPS_SHOWN,
        after_seq=0 if shoe is None else shoe.seq,
        upto=state.checkpoint.last_seq,
    )
    return [*archived, *settled, *state.since_checkpoint]


def engine_for(game: str) -> type[FaroTable] | type[BaccaratTable]:
    """The engine that deals ``game``: Faro's, or the baccarat family's."""
    return FaroTable if game == "faro" else BaccaratTable


def last_rules(events: Sequence[Event]) -> RulesChosen | None:
    return next((e for e in reversed(events) if isinstance(e, RulesChosen)), None)


def _rules_text(rules: str, options: dict[str, str]) -> str:
    return " ".join([rules, *(f"{key}={value}" for key, value in options.items())])


def alarm_json(alarm: Alarm | None) -> dict[str, Any] | None:
    """The alarm waiting for the dealer, as the ``state`` topic carries it."""
    if alarm is None:
        return None
    return {"alarm": alarm.alarm_id, "kind": alarm.kind.value, "message": alarm.public_message}


def baccarat_snapshot(state: BaccaratState) -> dict[str, Any]:
    """The retained ``state`` of a baccarat table: the hands of the coup, the last result,
    the bets and the bankrolls (only cards already out of the shoe), the house's commission
    taken and each player's commission box in hundredths of a chip."""
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
        # A card face down at the table is face down here too: a screen may show this.
        "hands": [[card and str(card) for card in hand] for hand in state.shown_hands],
        "last_result": None if result is None else event_to_json(result),
        "bets": [
            {"bet": bet.bet_id, "punter": bet.punter, "spot": bet.spot, "stake": bet.stake}
            for bet in sorted(state.bets.values(), key=lambda bet: bet.bet_id)
        ],
        "bank": state.bank,
        "banker": state.banker,
        "bankrolls": dict(state.bankrolls),
        "house": state.house,
        "commission_box": dict(state.commission_box),
        "alarm": alarm_json(state.alarm),
        "readers_lost": dict(state.readers_lost),
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
        "readers_lost": dict(state.readers_lost),
        "advice": _advice(state) if advisor else None,
    }


def _advice(state: FaroState) -> dict[str, Any] | None:
    advice = advice_for(state, enabled=True)
    return None if advice is None else dict(advice.to_json())
