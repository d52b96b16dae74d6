"""Card readers wired to the service: raw readings through the reading filter, accepted cards
into the engine, and the filter's alarms and questions to the dealer.

Only cards the filter accepts reach the engine; a reader that goes away raises an alarm and is
reopened with a growing pause, while the dealer deals on from the console. Each reader's filter
follows the table: it counts as dealt the cards the engine took, from the reader or from the
dealer, and the dealer's voids and corrections.
"""

from __future__ import annotations

import contextlib
import json
import logging
import math
import queue
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Protocol, runtime_checkable

import numpy as np

from firmware_bridge.clock import ticks_diff
from table.baccarat.engine import card_key
from table.cards import Card
from table.errors import TableError
from table.events import (
    AlarmCleared,
    AlarmKind,
    AlarmRaised,
    CardDealt,
    CoupFinished,
    DealerCorrection,
    DealVoided,
    DeckStarted,
    Event,
    ReaderNoticeKind,
    ShoeStarted,
)
from table.faro.engine import FaroState
from table.language import CardCmd, CorrectCmd, UnreadCmd, VoidCmd, parse_line
from table.service.config import ReaderConfig
from table.service.journal import JournalError
from table.service.reading_filter import AlarmKind as ReaderAlarmKind
from table.service.reading_filter import (
    CardAccepted,
    ConfirmRequest,
    FilterOutput,
    ReaderAlarm,
    ReadingFilter,
    ReadingSource,
    with_decks,
)
from table.service.table_service import TableService
from vision.barcode import BarcodeReading, SerialScanner, read_frame_barcodes
from vision.errors import CameraUnavailableError, ScannerError, VisionError
from vision.frames import (
    CAMERA_HEIGHT,
    CAMERA_WIDTH,
    CameraOpenedLater,
    Frame,
    FrameSource,
    Image,
    ImageFolderSource,
    PiCameraSource,
    VideoCaptureSource,
)
from vision.profile import find_profile
from vision.recognize import ReadingStatus, Recognizer, bad_frame

log = logging.getLogger("dealtable.readers")

# Captures a stalled live camera leaves stuck in its driver before it stops reopening: one
# lets a driver that was stuck once start afresh, more would pile up without end.
MAX_CAPTURES_LEFT_STUCK = 2


@dataclass
class ReaderNews:
    """What a round of reading produced besides the cards the engine took."""

    alarms: list[ReaderAlarm] = field(default_factory=list)
    questions: list[ConfirmRequest] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)
    # Why the dealer's answer was taken back, the question left waiting as it was (the
    # journal could not keep it); "" once it is taken.
    taken_back: str = ""


# The reader alarms that are the table's news (journaled, on MQTT and the screens) without
# stopping a card. The others ask the dealer which card came out: the table's unread alarm
# says them already.
_NOTICES = {
    ReaderAlarmKind.READER_LOST: ReaderNoticeKind.READER_LOST,
    ReaderAlarmKind.TWO_CARDS: ReaderNoticeKind.TWO_CARDS,
    ReaderAlarmKind.SEEN_BEFORE: ReaderNoticeKind.SEEN_BEFORE,
    ReaderAlarmKind.MISSED_CARD: ReaderNoticeKind.MISSED_CARD,
}


class _TableReader:
    """What both readers share: a reading filter that follows the table, and the way its
    answers reach the engine."""

    service: TableService
    filter: ReadingFilter
    # The same notice again within this many seconds is the same trouble: logged, not
    # journaled again (a dealer waving a dealt card at the scanner, say).
    notice_repeat_seconds = 60.0
    # Once the journal could not keep a card (a disk full or failing), how long the cards
    # held wait before they are offered again: each offer reads the table back.
    journal_retry_seconds = 2.0
    # The most cards (and questions) held while the journal cannot write: a whole deck, ten
    # baccarat coups or so. A long outage must not pile them up in memory without bound,
    # nor deal the table on unrecorded: past this, each card read is refused, and named.
    held_at_most = 52

    def __init__(self, service: TableService) -> None:
        self.service = service
        self._sending: CardAccepted | None = None
        # When each notice was last told, by what it said (on the monotonic clock).
        self._told_at: dict[tuple[ReaderNoticeKind, str], float] = {}
        # Why the journal could not keep the last card offered ("" while it can), and when
        # the cards held meanwhile are offered again.
        self._unwritten = ""
        self._journal_retry_at = 0.0
        self._note_unwritten = False  # the held cards' note could not be kept, told once
        self._held_unkept = False  # what is held is not in the journal's note of it
        self._named_unwritten: set[Card] = set()  # the cards held so, each named once
        self._bound_told = False  # held_at_most reached this outage, and said
        # The request id each card held was read with (its scanner named it): journaled with
        # it once the card is dealt, however long it was held.
        self._held_requests: dict[CardAccepted, str] = {}
        self.filter = self._new_filter()
        # Resumed mid-deal: the cards dealt before the restart are out, the last one perhaps
        # still lying in the box.
        for card, deck in self._restore_decks():
            self.filter.placed(card, deck)
        self._kept_decks = self.filter.dealt_stickers
        # The alarm this reader raised for its question, and whether someone else (a void
        # over MQTT, say) has cleared it while the question still waits.
        self._asking_alarm: int | None = None
        self._cleared_elsewhere = False
        self._answering = False  # the dealer's answer is being carried out
        self._kept = ""
        self._restore_held()
        alarm = service.state.alarm
        if alarm is not None and alarm.kind is AlarmKind.UNREAD_CARD:
            # Asked before a restart: the cards read now wait for the dealer's answer.
            self.filter.ask_dealer(alarm.message, service.clock())
            self._asking_alarm = alarm.alarm_id
        self.filter.table_waits = alarm is not None
        service.listeners.append(self._changed)
        service.trouble_listeners.append(self._journal_trouble_changed)

    def _journal_trouble_changed(self) -> None:
        if not self.service.journal_trouble:
            # The journal writes again (the service tried it): the cards held for it go in
            # at the next reading, not after the pause, while the table says it deals on.
            self._journal_retry_at = 0.0

    # The journal's note of the question waiting and the cards held behind it: a shoe never
    # reads again a card that slid out, so a restart must not forget them.
    HELD_NOTE = "reader-held"

    @property
    def holds_cards(self) -> bool:
        """Whether cards the reader took wait to be dealt: held for the journal, or behind a
        question to the dealer, or the question's own card."""
        return self.filter.holds_anything

    @property
    def holds_unkept(self) -> bool:
        """Whether the reader holds cards or a question that the journal keeps neither as
        dealt nor in its note of what the reader holds (it could not write): a restart now
        would forget them."""
        return self._held_unkept and self.filter.holds_anything

    def _keep_held(self) -> None:
        if not (self._kept or self.filter.holds_anything):
            self._held_unkept = False
            return  # nothing held, and nothing kept to clear
        if self._journal_waits():
            self._held_unkept = True
            return  # kept once the journal writes again
        record = self.filter.held_record()
        record["seq"] = self.service.journal.last_seq
        text = json.dumps(record, sort_keys=True)
        if text == self._kept:
            self._held_unkept = False
            return
        try:
            self.service.journal.keep_note(self.HELD_NOTE, text)
        except JournalError as unwritten:
            self._held_unkept = True
            # The cards held are named as they are held (see _held_unwritten): a restart
            # meanwhile would not find them.
            if not self._note_unwritten:
                log.warning("the cards the reader holds are not kept for a restart: %s", unwritten)
            self._note_unwritten = True
            self.service.journal_failed(str(unwritten))
            return
        self._note_unwritten = False
        self._held_unkept = False
        self.service.journal_wrote()
        # Once the note says nothing is held, there is nothing to compare it with until
        # something is: the readings of a quiet table build no record.
        self._kept = text if self.filter.holds_anything else ""

    # The journal's note of the deck number on each dealt card's sticker: the engine counts
    # cards, not stickers, and in a shoe of several decks a restarted reader must still tell
    # a dealt sticker read again from another deck's copy of the card.
    DECKS_NOTE = "reader-decks"

    def _keep_decks(self) -> None:
        """Note the deck numbers of the dealt cards' stickers whenever they change. With one
        deck the card alone says which it is; with none read there is nothing to keep."""
        dealt = self.filter.dealt_stickers
        if self.filter.decks < 2 or dealt == self._kept_decks:
            return
        if not any(deck for _, deck in [*dealt, *self._kept_decks]):
            return
        record = {
            "seq": self.service.journal.last_seq,
            "dealt": [[card.code, deck] for card, deck in dealt],
        }
        try:
            self.service.journal.keep_note(self.DECKS_NOTE, json.dumps(record))
        except JournalError as unwritten:
            # Tried again at the next change; the table's own write fails and is told too.
            log.warning("the deck numbers of the dealt stickers are not kept: %s", unwritten)
            return
        self._kept_decks = dealt

    def _restore_decks(self) -> list[tuple[Card, int | None]]:
        """The cards the table counts as dealt, each with its sticker's deck number as last
        noted. A deck number is never guessed: a card missing from the note (given at the
        console, or dealt just before a crash) has none, and counts only as one more copy of its
        card. It is not taken to match every sticker of its card: the other decks' copies of
        it would then be refused as seen before."""
        dealt = table_dealt_cards(self.service)
        kept = self.service.journal.note(self.DECKS_NOTE)
        if not kept:
            return [(card, None) for card in dealt]
        record = json.loads(kept)
        since = self.service.journal.events(after_seq=record["seq"])
        if any(isinstance(event, DeckStarted | ShoeStarted) for event in since):
            return [(card, None) for card in dealt]  # the note is of a shoe gone by
        return with_decks(dealt, [(Card.parse(code), deck) for code, deck in record["dealt"]])

    def _restore_held(self) -> None:
        """Take up the question and the held cards the service left, unless the deal they
        belong to has been voided or a new deck or shoe has gone in since."""
        kept = self.service.journal.note(self.HELD_NOTE)
        if not kept:
            return
        record = json.loads(kept)
        if not (record["held"] or record["question"]):
            return
        self._kept = kept  # a stale note is cleared at the first reading, if not taken up
        since = self.service.journal.events(after_seq=record["seq"])
        if any(isinstance(event, DealVoided | DeckStarted | ShoeStarted) for event in since):
            return
        self.filter.restore_held(record)
        log.info(
            "the reader takes up what it held when the service stopped: %s",
            ", ".join(card.code for card in self.filter.held_cards) or "a question",
        )

    def _new_filter(self) -> ReadingFilter:
        raise NotImplementedError

    @property
    def name(self) -> str:
        """The reader's name in the table's notices: ``camera`` or ``barcode``."""
        raise NotImplementedError

    def _monotonic(self) -> float:
        raise NotImplementedError

    @property
    def lost(self) -> bool:
        """The table has this reader lost: the journal's word, so that a notice the journal
        could not take is told again, not taken as told."""
        return self.name in self.service.state.readers_lost

    def _notice(self, kind: ReaderNoticeKind, message: str) -> None:
        """Tell the table: journaled, then on MQTT, the screens and the layout's alarm lamp.
        A reader lost is told once an outage, however often it is retried meanwhile; any
        other notice at most once in :attr:`notice_repeat_seconds`."""
        if kind is ReaderNoticeKind.READER_LOST and self.lost:
            return
        now = self._monotonic()
        told = self._told_at
        if kind not in (ReaderNoticeKind.READER_LOST, ReaderNoticeKind.READER_BACK):
            if now - told.get((kind, message), -math.inf) < self.notice_repeat_seconds:
                return
            for key, at in list(told.items()):
                if now - at >= self.notice_repeat_seconds:
                    del told[key]  # long past: kept no longer than it can silence
            told[kind, message] = now
        try:
            self.service.reader_notice(self.name, kind, message)
        except TableError as refused:
            log.warning("the %s reader's notice was not journaled: %s", self.name, refused)

    def _works_again(self) -> None:
        """The reader reads again, after it was lost."""
        if not self.lost:
            return
        self._notice(ReaderNoticeKind.READER_BACK, f"the {self.name} reader reads again")
        log.info("the %s reader reads again", self.name)

    def _changed(self, events: Sequence[Event]) -> None:
        if self._unwritten and events:
            # The journal wrote (a line at the console, a bet over MQTT): it works again, and
            # the cards held for it are offered at the next reading, not after the pause.
            self._journal_retry_at = 0.0
        for event in events:
            if isinstance(event, AlarmRaised):
                self.filter.table_waits = True
            if isinstance(event, AlarmCleared) and event.alarm == self._asking_alarm:
                self._asking_alarm = None
                # Answered here, the question has ended already (one waiting now is the next);
                # cleared elsewhere, it ends at the next poll.
                self._cleared_elsewhere = not self._answering and self.filter.question is not None
        starts = [
            i for i, event in enumerate(events) if isinstance(event, DeckStarted | ShoeStarted)
        ]
        if starts:
            self.filter.new_deck(decks_in_play(self.service))  # every card unseen
            events = events[starts[-1] + 1 :]
        voided = any(isinstance(event, DealVoided) for event in events)
        if voided:
            self.filter.abandon_question()
            self.filter.drop_held()
            self._held_requests.clear()
        if voided or starts:
            self._keep_held()
        corrections = [event for event in events if isinstance(event, DealerCorrection)]
        for event in events:
            if isinstance(event, CardDealt):
                sending = self._sending
                deck = sending.deck if sending is not None and sending.card == event.card else None
                self.filter.placed(event.card, deck)
        if corrections or voided or any(isinstance(event, CoupFinished) for event in events):
            # Cards taken back or taken again (a shuffler takes a coup's cards back): the
            # engine's dealt cards are the truth. The card in the box stays the one there.
            dealt = [event.card for event in events if isinstance(event, CardDealt)]
            in_box = corrections[-1].card if corrections else (dealt[-1] if dealt else None)
            self.filter.follow(table_dealt_cards(self.service), in_box)
        self._keep_decks()

    def _route(
        self,
        outputs: Sequence[object],
        news: ReaderNews,
        named: tuple[BarcodeReading, str | None] | None = None,
    ) -> None:
        """Carry the filter's ``outputs`` out; ``named`` is the reading they came of and the
        request id its scanner named it by, journaled with its card."""
        held_again = 0
        for output in outputs:
            if isinstance(output, CardAccepted):
                request_id = self._held_requests.pop(output, None)
                if named is not None and named[0].code is not None:
                    code = named[0].code
                    if (code.card, code.deck_number) == (output.card, output.deck):
                        request_id = named[1]
                alarm = output.source is not ReadingSource.DEALER and self.service.state.alarm
                if alarm or self._journal_waits():
                    # Released into a table that cannot take it yet (the dealer's answer raised
                    # an alarm of its own, the journal cannot write): it waits again, ahead of
                    # those still held.
                    self._hold(output, held_again, request_id)
                    held_again += 1
                    continue
                self._sending = output  # its sticker's deck number, for the filter to keep
                # The card the dealer names answers the table's unread_card alarm, and the
                # engine dates it from that alarm, raised when it came out.
                came_out = None if output.source is ReadingSource.DEALER else output.came_in
                try:
                    self.service.card(output.card, request_id, came_out=came_out)
                except JournalError as unwritten:
                    # Out of the box all the same: it waits, and the cards after it behind it.
                    self._hold(output, held_again, request_id)
                    held_again += 1
                    self._journal_failed(unwritten, news)
                except TableError as refused:
                    news.refused.append(str(refused))
                else:
                    self._journal_works()
                finally:
                    self._sending = None
            elif isinstance(output, ReaderAlarm):
                log.warning("reader alarm: %s", output.message)
                news.alarms.append(output)
                notice = _NOTICES.get(output.kind)
                if notice is not None:
                    self._notice(notice, output.message)
            elif isinstance(output, ConfirmRequest) and output is self.filter.question:
                news.questions.append(output)
        self._ask_the_table(news)
        if self._unwritten:
            self._refuse_past_the_bound(news)
            if not self._answering:
                # The cards held in an answer are named once it is known whether it stands:
                # taken back, the card it named is held nowhere.
                self._name_held_unwritten(news)
        self._keep_held()

    def _name_held_unwritten(self, news: ReaderNews) -> None:
        for card in self.filter.held_cards:
            self._held_unwritten(card, news)

    def _hold(self, accepted: CardAccepted, position: int, request_id: str | None) -> None:
        """Hold a card the table cannot take yet, with the request id it is to be journaled
        with (the layout board's frame that brought its code: the board keeps the frame until
        the journal names it, and a restarted service knows the card dealt by it)."""
        self.filter.hold(accepted, position)
        if request_id is not None:
            self._held_requests[accepted] = request_id
        held = set(self.filter.held_cards)
        for card in [card for card in self._held_requests if card.card not in held]:
            del self._held_requests[card]  # let go of, or voided with its deal

    def _ask_the_table(self, news: ReaderNews) -> None:
        """A question waiting for the dealer is an alarm of the table's: the alarm lamp, MQTT,
        the web page and the journal show it, and nothing more is dealt until it is answered.
        While another alarm waits, it is raised once that one is resolved."""
        question = self.filter.question
        if question is None or self.service.state.alarm is not None or self._journal_waits():
            return
        try:
            # Raised at the time the card came out, as the card named for it is dealt: the
            # alarm is not cleared before it was raised, however late it is raised.
            events = self.service.execute(UnreadCmd(question.message), at=question.came_in)
        except JournalError as unwritten:
            self._journal_failed(unwritten, news)
            return
        except TableError as refused:
            news.refused.append(str(refused))
            return
        raised = [event for event in events if isinstance(event, AlarmRaised)]
        self._asking_alarm = raised[-1].alarm if raised else None

    def _catch_up(self, news: ReaderNews) -> None:
        """Follow what the table did meanwhile: a question whose alarm the dealer voided
        elsewhere is dismissed, the cards held for it go on; one left waiting is asked."""
        if self._cleared_elsewhere:
            self._cleared_elsewhere = False
            if self.filter.question is not None:
                self._route(self.filter.dismiss(), news)
                return
        waits = self.filter.table_waits and self.service.state.alarm is None
        if waits and not self._journal_waits():
            self._route(self.filter.release_held(), news)
        self._ask_the_table(news)

    def _journal_waits(self) -> bool:
        """The journal could not keep a card a moment ago: the cards wait their turn."""
        return bool(self._unwritten) and self._monotonic() < self._journal_retry_at

    def _journal_failed(self, unwritten: JournalError, news: ReaderNews) -> None:
        self._journal_retry_at = self._monotonic() + self.journal_retry_seconds
        if self._unwritten:
            return  # told once an outage
        self._unwritten = str(unwritten)
        # The service logs the journal's trouble once; the dealer at the console hears what
        # it means for the cards.
        news.refused.append(
            f"the journal cannot keep the cards ({unwritten}): each card read is held, in the "
            "order it came, and dealt once the journal can; check the disk"
        )

    def _refuse_past_the_bound(self, news: ReaderNews) -> None:
        """Past :attr:`held_at_most` cards held for the journal, each card read is refused:
        the dealer is told, once an outage, to stop dealing, and each card refused is named
        (kept nowhere, it is the dealer's to give once the journal writes)."""
        refused = self.filter.let_go_past(self.held_at_most)
        if not refused:
            return
        if not self._bound_told:
            self._bound_told = True
            message = (
                f"the journal cannot write and {self.held_at_most} cards are held for it, the "
                "most the reader holds: stop dealing; each card read from now on is refused "
                "and named"
            )
            log.error(message)
            news.refused.append(message)
        for item in refused:
            if isinstance(item, CardAccepted):
                message = (
                    f"refused, not held: {item.card}, read past the {self.held_at_most} cards "
                    "held for the journal; once it writes and those are dealt, give it with "
                    f"'card {item.card}', in this order"
                )
            else:
                message = (
                    f"refused, not asked: {item.message}, past the {self.held_at_most} cards "
                    "held for the journal; once it writes and those are dealt, give that card "
                    "with 'card CARD', in this order"
                )
            log.error(message)
            news.refused.append(message)

    @property
    def source_keeps_cards(self) -> bool:
        """Whether the source keeps each card until the journal has it and sends it again to
        a restarted service (the layout board's scanner): a card held is then not the
        dealer's to give at the console after a restart, or it would be dealt twice."""
        return False

    def _held_unwritten(self, card: Card, news: ReaderNews) -> None:
        """Each card held while the journal cannot write is named, once: kept nowhere else
        (unless its source keeps it), a restart meanwhile would forget it, and the dealer
        gives it at the console then."""
        if card in self._named_unwritten:
            return
        self._named_unwritten.add(card)
        if self.source_keeps_cards:
            message = (
                f"held until the journal can write: {card} (the source keeps it too, and sends "
                "it again to a restarted service: do not give it at the console)"
            )
        else:
            message = (
                f"held until the journal can write: {card} (a restart meanwhile forgets it: "
                "give it then with 'card CARD', in this order)"
            )
        log.error(message)
        news.refused.append(message)

    def _journal_works(self) -> None:
        if self._unwritten:
            self._unwritten = ""
            self._named_unwritten.clear()
            self._bound_told = False
            log.info("the journal keeps the cards again; those held are dealt in their order")

    def _end_the_tables_alarm(self) -> None:
        """The dealer answered the question with no new card: its alarm is voided first, so
        that the cards held for it are dealt as cards, not as the answer."""
        alarm = self.service.state.alarm
        if alarm is not None and alarm.alarm_id == self._asking_alarm:
            self.service.execute(VoidCmd())

    # The dealer's answers to the filter's question, from the console or a button.

    def answer(self, card: Card, timestamp: float) -> ReaderNews:
        """The card in the box is ``card``; the cards held meanwhile follow it."""
        asked = self.filter.question
        return self._answer(asked, lambda: self.filter.confirm(card, timestamp))

    def confirm_guess(self, timestamp: float) -> ReaderNews:
        """The confirm button: the card is the one the reader guessed."""
        asked = self.filter.question
        return self._answer(asked, lambda: self.filter.confirm_guess(timestamp))

    def dismiss_question(self) -> ReaderNews:
        """No card to deal for the question; the cards held meanwhile go on."""
        asked = self.filter.question
        return self._answer(asked, lambda: self.filter.dismiss())

    def _answered(self, asked: ConfirmRequest | None, outputs: list[FilterOutput]) -> ReaderNews:
        """The filter's outputs for the dealer's answer to ``asked``. A new card named answers
        the table's alarm too (the engine deals it as the card asked about); with none, the
        alarm is voided first, so that the cards held behind it go in as cards. An answer
        the filter refused leaves both waiting."""
        news = ReaderNews()
        named = any(
            isinstance(output, CardAccepted) and output.source is ReadingSource.DEALER
            for output in outputs
        )
        self._answering = True
        try:
            if asked is not None and self.filter.question is not asked and not named:
                self._end_the_tables_alarm()
            self._route(outputs, news)
        except JournalError as unwritten:
            self._journal_failed(unwritten, news)
        finally:
            self._answering = False
        return news

    def holding_for_the_journal(self) -> list[Card]:
        """The cards read and held because the journal could not write: they go in before
        any card given at the console."""
        return self.filter.held_cards if self._unwritten else []

    def answer_refused(self) -> str | None:
        """Why the dealer's answer cannot be taken now (the journal could not write a moment
        ago), or None: after the pause it is tried, and taken back if the journal fails."""
        if not self._journal_waits():
            return None
        return self._question_waits_for_the_journal()

    def _question_waits_for_the_journal(self) -> str:
        return (
            f"the journal cannot write ({self._unwritten}): the question waits; answer it again "
            "once the journal can"
        )

    def _answer(
        self, asked: ConfirmRequest | None, given: Callable[[], list[FilterOutput]]
    ) -> ReaderNews:
        """The filter's answer ``given``, carried out all or nothing: one the journal could
        not keep leaves the question and the held cards as they were, to be answered again."""
        before = self.filter.held_record()
        asking = self._asking_alarm
        news = self._answered(asked, given())
        alarm = self.service.state.alarm
        if self._unwritten and alarm is not None and alarm.alarm_id == asking:
            self.filter.go_back_to(before)
            self.filter.table_waits = True
            self._cleared_elsewhere = False
            news.taken_back = self._question_waits_for_the_journal()
        if self._unwritten:
            self._name_held_unwritten(news)
        return news

    @property
    def asks_the_table(self) -> bool:
        """The reader's question is the alarm the table waits on (or the table waits on
        none): the dealer's ``card`` and ``void`` answer the question. While another alarm
        waits, they are the engine's."""
        alarm = self.service.state.alarm
        return alarm is None or alarm.alarm_id == self._asking_alarm

    def close(self) -> None:
        if self._changed in self.service.listeners:
            self.service.listeners.remove(self._changed)


class CameraReader(_TableReader):
    """A camera over the open dealing box: frames read on their own thread (a camera will not
    wait), recognised and filtered in the main loop, so only agreed cards reach the engine.

    With a recognizer it reads the cards' corner indices; without one it reads the barcode
    stickers on the cards (a barcode camera). A camera that fails (its driver raises, a USB
    camera is unplugged) is an alarm with the reason, and is reopened after a pause that
    grows while it keeps failing; a video or a folder that runs out is the end."""

    # How long closing waits for the capture thread to come out of the camera driver: a frame
    # takes a thirtieth of a second; a driver stuck longer is left to the operating system.
    close_timeout = 2.0
    # Frames read since the camera was (re)opened that show it works again: a driver that
    # fails after a frame or two keeps its growing pause.
    working_frames = 30
    # The backlog of a live camera (one that says so): the newest quarter second at 30 frames
    # a second, so that a loop slower than the camera reads the box as it is now. A recording
    # (a video file, a folder of frames) waits for the loop instead, its ``backlog`` full: it
    # is read faster than its frames are recognised, and a frame dropped is a card unseen.
    live_backlog = 8
    # How often a recording waiting for room in the backlog looks whether it is closed.
    wait_step = 0.05
    # A live camera that gives no frame for this long (seconds) is stuck in its driver (a
    # loose ribbon cable, a libcamera pipeline that hangs): it is lost, and reopened. So is
    # one that gives the very same picture, bit for bit, for as long: a sensor's noise never
    # does, a driver handing out one buffer over and over does.
    stall_seconds = 5.0

    def __init__(
        self,
        source: FrameSource,
        recognizer: Recognizer | None,
        service: TableService,
        *,
        agree_frames: int = 3,
        backlog: int = 120,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.source = source
        self.clock = clock
        self.recognizer = recognizer
        self.agree_frames = agree_frames
        self.kind = ReadingSource.CAMERA if recognizer is not None else ReadingSource.BARCODE
        super().__init__(service)
        if getattr(source, "live", False):
            backlog = min(backlog, self.live_backlog)
        self.frames: queue.Queue[Frame] = queue.Queue(maxsize=backlog)
        self.dropped = 0
        self.ended = False
        self._closing = threading.Event()
        self._failure: str | None = None  # why the capture thread stopped, if it failed
        self._reopen_at: float | None = None
        self._backoff = 0.5
        self._frames_since_open = 0
        self._usable_frames = 0  # in a row, showing the box
        self._live = bool(getattr(source, "live", False))
        self._last_frame_at = clock()
        self._last_image: Image | None = None
        self._same_picture_since: float | None = None
        # Set for a capture thread given up on while stuck in the driver: should the driver
        # ever return, its frames are not the reopened camera's.
        self._abandoned = threading.Event()
        # Captures given up on while stuck in the driver, as long as they stay stuck.
        self._left_stuck: list[threading.Thread] = []
        self._thread = self._start_capture()

    @property
    def name(self) -> str:
        return self.kind.value

    def _monotonic(self) -> float:
        return self.clock()

    def _start_capture(self) -> threading.Thread:
        self._failure = None
        self._frames_since_open = 0
        self._usable_frames = 0
        self._last_frame_at = self.clock()
        self._last_image = None
        self._same_picture_since = None
        self._abandoned = threading.Event()
        thread = threading.Thread(
            target=self._capture, args=(self._abandoned,), name="camera", daemon=True
        )
        thread.start()
        return thread

    def _new_filter(self) -> ReadingFilter:
        return ReadingFilter(
            agree_frames=self.agree_frames,
            sources=frozenset({self.kind}),
            decks=decks_in_play(self.service),
            follows_table=True,
            table_clock=self.service.clock,
        )

    def _capture(self, abandoned: threading.Event) -> None:
        try:
            for frame in self.source:
                if self._closing.is_set() or abandoned.is_set():
                    return  # close() releases the camera once this thread is out of it
                if not self._live:
                    if not self._wait_for_room(frame, abandoned):
                        return
                    continue
                try:
                    self.frames.put_nowait(frame)
                except queue.Full:
                    # The loop fell behind: the oldest frame goes, so that the loop reads
                    # what the box shows now. This thread alone puts, so the room stays.
                    with contextlib.suppress(queue.Empty):
                        self.frames.get_nowait()
                    self.dropped += 1
                    self.frames.put_nowait(frame)
        except Exception as error:  # libcamera raises plain RuntimeErrors: any is a lost camera
            if abandoned.is_set():
                return  # given up on already, and reported
            self._failure = _reason(error)
            log.error("camera: %s", self._failure)

    def _wait_for_room(self, frame: Frame, abandoned: threading.Event) -> bool:
        """Put a recording's ``frame`` in the backlog once there is room; False if the reader
        closed (or gave up on this capture) meanwhile."""
        while True:
            try:
                self.frames.put(frame, timeout=self.wait_step)
                return True
            except queue.Full:
                if self._closing.is_set() or abandoned.is_set():
                    return False

    def poll(self, limit: int = 30) -> ReaderNews:
        """Recognise the frames that have arrived (at most ``limit``) and act on the filter's
        answers; cards go to the engine."""
        news = ReaderNews()
        self._catch_up(news)
        due = self._reopen_at is not None and self.clock() >= self._reopen_at
        if due and not self._closing.is_set():
            self._reopen(news)
        for _ in range(limit):
            try:
                frame = self.frames.get_nowait()
            except queue.Empty:
                # Once the capture thread is done it puts no more frames: an empty backlog
                # then is the end of the source, or its failure.
                if self._reopen_at is None and not self.ended and self._capture_done():
                    self._stopped(news)
                elif self._reopen_at is None and not self.ended and self._stalled():
                    self._give_up_capture(
                        f"no frame from the camera for {self.stall_seconds:g} s (its driver "
                        "gives none)",
                        news,
                    )
                break
            self._last_frame_at = self.clock()
            self._frames_since_open += 1
            if self._frames_since_open == self.working_frames:
                self._backoff = 0.5
            if self.recognizer is not None:
                reading = self.recognizer.read(frame.image)
                shows_the_box = reading.status is not ReadingStatus.BAD_FRAME
                if not shows_the_box:
                    self._usable_frames = 0
                elif reading.status is not ReadingStatus.OBSTRUCTED:  # a hand: no news
                    self._usable_frames += 1
                self._route(self.filter.camera(reading, frame.timestamp), news)
            elif (blind := bad_frame(frame.image)) is not None:
                shows_the_box = False
                self._usable_frames = 0
                self._route(self.filter.camera(blind, frame.timestamp), news)
            else:
                shows_the_box = True
                self._usable_frames += 1
                codes = read_frame_barcodes(frame.image)
                self._route(self.filter.barcode_view(codes, frame.timestamp), news)
            if self._reopen_at is None and self._frozen(frame.image, shows_the_box):
                self._give_up_capture(
                    f"the camera gave the very same picture for {self.stall_seconds:g} s (its "
                    "driver hands out one frame over and over)",
                    news,
                )
                break
            if self._usable_frames >= self.working_frames:
                self._works_again()
            self._route(self.filter.tick(frame.timestamp), news)
        return news

    def _frozen(self, image: Image, shows_the_box: bool) -> bool:
        """A live camera has given the very same picture for :attr:`stall_seconds`. A black
        or blank picture may well repeat (a lens cap on): the blind alarm tells of that."""
        last, self._last_image = self._last_image, image
        now = self.clock()
        if not (self._live and shows_the_box and last is not None and np.array_equal(image, last)):
            self._same_picture_since = now  # first seen now
            return False
        since = now if self._same_picture_since is None else self._same_picture_since
        return now - since >= self.stall_seconds

    def _give_up_capture(self, failure: str, news: ReaderNews) -> None:
        """The capture is stuck in the driver: it is left there (should the driver ever
        return, its frames are not the reopened camera's), and the camera is lost."""
        self._abandoned.set()
        self._left_stuck.append(self._thread)
        with contextlib.suppress(queue.Empty):
            while True:
                self.frames.get_nowait()  # the stuck driver's
        self._failure = failure
        self._stopped(news)

    def _stalled(self) -> bool:
        """A live camera's driver has given no frame for :attr:`stall_seconds`."""
        return (
            self._live
            and not self._closing.is_set()
            and self.clock() - self._last_frame_at >= self.stall_seconds
        )

    def _capture_done(self) -> bool:
        """The capture thread has ended and its last frame has been read."""
        return not self._thread.is_alive() and self.frames.empty()

    def _stopped(self, news: ReaderNews) -> None:
        now = self.clock()
        if self._failure is None:
            self.ended = True
            lost = self.filter.reader_lost(self.kind, "no more frames from the camera", now)
            self._route(lost, news)
            return
        why = f"{self._failure}; it is reopened in {self._backoff:g} s"
        self._route(self.filter.reader_lost(self.kind, why, now), news)
        self._reopen_at = now + self._backoff
        self._backoff = min(self._backoff * 2, 10.0)

    def _reopen(self, news: ReaderNews) -> None:
        self._reopen_at = None
        self._left_stuck = [thread for thread in self._left_stuck if thread.is_alive()]
        if len(self._left_stuck) >= MAX_CAPTURES_LEFT_STUCK:
            # A driver that keeps every capture would gather one more stuck thread at each
            # reopening, without end: the camera waits until one comes back.
            self._failure = (
                f"its driver still holds {len(self._left_stuck)} captures given up on; it "
                "is reopened once one comes back (or restart the service)"
            )
            self._stopped(news)
            return
        reopen: Callable[[], None] | None = getattr(self.source, "reopen", None)
        try:
            if reopen is not None:
                reopen()
        except Exception as error:  # as in the capture thread: a failure, never a crash
            self._failure = _reason(error)
            self._stopped(news)
            return
        log.info("camera: reopened")
        self._thread = self._start_capture()

    def close(self) -> None:
        """Stop the capture thread, then release the camera: releasing it while the thread is
        inside a read crashes or hangs the driver."""
        super().close()
        self._closing.set()
        self._thread.join(self.close_timeout)
        if self._thread.is_alive():
            log.warning(
                "camera: no frame came within %.0f s of closing; the camera is left open to "
                "the operating system",
                self.close_timeout,
            )
            return
        self.source.close()


def _reason(error: Exception) -> str:
    """Why a camera failed, in one line: our own errors say it; a driver's is named."""
    return str(error) if isinstance(error, VisionError) else f"{type(error).__name__}: {error}"


def decks_in_play(service: TableService) -> int:
    """How many copies of each card the table's deck or shoe holds."""
    state = service.state
    return 1 if isinstance(state, FaroState) else state.rules.decks


def table_dealt_cards(service: TableService) -> list[Card]:
    """The cards the engine counts as out, in the order they were dealt: the deal's at Faro,
    the shoe's at baccarat (since its last coup, where a shuffler takes the cards back)."""
    state = service.state
    if isinstance(state, FaroState):
        return list(state.casekeep.dealt_cards())
    dealt = [event.card for event in state.since_checkpoint if isinstance(event, CardDealt)]
    left = {card: state.seen.get(card_key(card), 0) for card in dealt}
    out: list[Card] = []
    for card in reversed(dealt):  # the copies still out are the latest ones
        if left[card] > 0:
            left[card] -= 1
            out.append(card)
    return out[::-1]


def answer_from_console(
    reader: CameraReader | BarcodeShoeReader, line: str, timestamp: float
) -> list[str] | None:
    """A console line while ``reader`` waits for the dealer to say which card is in the box:
    ``card CARD`` answers it, through the reader's filter (which then knows the card was
    placed and will not take the same card again when it reads it); ``void`` dismisses it,
    no card dealt (it would void the card before the one asked about). ``correct`` would
    change the card before it too, so it is refused until the question is answered.
    Returns what to tell the dealer, or None when the line is not about the question."""
    question = reader.filter.question
    if question is None or not reader.asks_the_table:
        return None
    try:
        command = parse_line(line)
    except TableError:
        return None
    asked = question.asked
    refusal = reader.answer_refused()
    if refusal is not None and isinstance(command, CardCmd | VoidCmd):
        return [f"refused: {refusal}"]
    if isinstance(command, CorrectCmd):
        return [
            f"refused: correct {command.card}: the reader is asking which card is in the box "
            "now; answer with 'card CARD' first (correct changes the card before it)"
        ]
    if isinstance(command, VoidCmd) and not command.deal:
        news = reader.dismiss_question()
        if news.taken_back:
            return _told(news)
        return [
            f"void: the reader's question ({asked}?) is dismissed and no card is dealt for "
            "it; 'void' again voids the last card dealt",
            *_told(news),
        ]
    if not isinstance(command, CardCmd):
        return None
    every_copy_out = reader.filter.copies_out(command.card) >= reader.filter.decks
    if (
        every_copy_out
        and command.card in reader.filter.dealt
        and command.card not in question.choices
    ):
        return [
            f"refused: card {command.card}: that card was already taken from the box; the "
            f"reader asks about the card there now ({asked}?): say which with 'card CARD'"
        ]
    if command.card in reader.filter.held_cards and every_copy_out:
        return [
            f"refused: card {command.card}: that card came out after the one asked about and "
            f"waits behind it; the reader asks about the card before it ({asked}?): say which "
            "with 'card CARD'"
        ]
    return _told(reader.answer(command.card, timestamp))


def _told(news: ReaderNews) -> list[str]:
    taken_back = [f"refused: {news.taken_back}"] if news.taken_back else []
    return [
        *taken_back,
        *(f"reader alarm: {alarm.message}" for alarm in news.alarms),
        *(f"refused: {refused}" for refused in news.refused),
    ]


class Scanner(Protocol):
    """Where a barcode shoe's codes come from: a scanner on a serial port of its own
    (:class:`~vision.barcode.SerialScanner`) or one wired to the layout board."""

    def read(self) -> BarcodeReading | None: ...

    def close(self) -> None: ...


@runtime_checkable
class ScannerThatNamesItsCodes(Scanner, Protocol):
    """A scanner that can tell one code it read from another alike (the board names the
    frame that brought it): the card dealt from it is journaled with that name, as a
    command's request id is, so that the code sent again after a restart is known. Such a
    scanner keeps each code until the journal has its card, and sends it again to a
    restarted service."""

    def request_of_last_read(self) -> str | None: ...


@runtime_checkable
class ScannerThatStampsItsCodes(Scanner, Protocol):
    """A scanner whose device stamps each code with its own clock's ticks (ms) when it read
    it, the clock its light barrier stamps the cards' slides with too (the layout board): a
    code and its slide are paired on that one clock, whatever the service knows of it."""

    def ticks_of_last_read(self) -> int | None: ...


@runtime_checkable
class ScannerBehindAQueue(Scanner, Protocol):
    """A scanner whose codes wait in a queue of the device it is wired to while the service
    takes none (the layout board's, whose frames wait on the journal): the reader cannot
    name the cards read meanwhile, and the queue loses the oldest once full."""

    @property
    def holds_back(self) -> bool:
        """Whether the codes read now wait in the queue (the service has yet to settle what
        the device sent)."""
        ...

    @property
    def cards_it_keeps(self) -> int:
        """About how many cards the queue keeps, from empty."""
        ...

    def take_losses(self) -> list[str]:
        """The device's reports of events its queue lost since the last call."""
        ...


@dataclass(frozen=True)
class CodeRead:
    """A code read before its card's slide, waiting for it: when it was read (on the reader's
    ``monotonic`` clock), the request id its scanner named it by (None if it names none),
    and the ticks its scanner's device stamped it with (None if it stamps none)."""

    at: float
    request_id: str | None
    ticks: int | None = None


class BarcodeShoeReader(_TableReader):
    """A serial barcode scanner in the shoe: one line per card as it slides out.

    With a light barrier across the slot (:meth:`card_slid`), a card that slid out with no
    code read within :attr:`pair_within` seconds is a card the shoe could not read: the
    dealer is asked which it was, and the cards read meanwhile wait for the answer.

    A scanner that goes away (unplugged, or a port that opens but fails every read, as when
    another program reads it too) is an alarm and is reopened after a pause that grows while
    it keeps failing; the pause starts short again once the scanner has read a code or stayed
    open a while. The pause is timed on ``monotonic``, never on the wall clock: a clock set
    back by NTP would otherwise leave the scanner closed until it caught up."""

    # How long a reopened scanner must stay open, with no code read, to count as working.
    steady_after = 10.0
    # How far apart a card's slide past the light barrier and its code may come (seconds):
    # the scanner may read the sticker before the card reaches the beam, or after. Well under
    # the time between two cards dealt (half a second at the quickest), or a torn card's slide
    # would take the next card's code.
    pair_within = 0.3

    def __init__(
        self,
        url: str,
        service: TableService,
        clock: Callable[[], float],
        opener: Callable[[str], Scanner] | None = None,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self.url = url
        self.clock = clock
        self.monotonic = monotonic
        self._open: Callable[[str], Scanner] = opener or (
            lambda url: SerialScanner(url, clock=monotonic)
        )
        super().__init__(service)
        self.scanner: Scanner | None = None
        self._retry_at = 0.0
        self._backoff = 0.5
        self._opened_at = 0.0
        # Slides no code has answered yet, by time, each with when it was heard: one heard
        # late (a loop held up, frames the board kept) is judged from then, for its code comes
        # after it was heard, not after the card broke the beam.
        self._slides: deque[tuple[float, float]] = deque()
        self._codes: deque[CodeRead] = deque()  # codes read before their card's slide
        self._last_code: tuple[str, float] = ("", -1.0)
        self._drained_at = -math.inf  # when every code waiting was last read
        # The scanner's queue held back cards for the journal, and the dealer was told to
        # stop dealing: once, until the journal writes again.
        self._held_back_told = False
        # What the scanner's queue lost, told at the console and journaled once it can be.
        self._losses_unjournaled: list[str] = []

    @property
    def name(self) -> str:
        return ReadingSource.BARCODE.value

    @property
    def source_keeps_cards(self) -> bool:
        return isinstance(self.scanner, ScannerThatNamesItsCodes)

    def _monotonic(self) -> float:
        return self.monotonic()

    def card_slid(self, at: float | None = None, ticks: int | None = None) -> None:
        """The light barrier saw a card slide out of the shoe, ``at`` a time on the
        ``monotonic`` clock (now, if not given). A sensor heard late (the loop held up a
        moment) gives the time the card broke the beam: its code is paired by that. A
        barrier on the scanner's device gives its ``ticks`` too: a code that device stamped
        is paired by them."""
        if self.scanner is None:
            return  # the scanner is gone: the dealer gives the cards at the console
        slid_at = self.monotonic() if at is None else at
        if self.code_of_slide(slid_at, ticks) is None:
            self._slides.append((slid_at, max(slid_at, self.monotonic())))
            # Heard late, slides may come out of order with those heard already.
            self._slides = deque(sorted(self._slides))

    def code_of_slide(self, at: float, ticks: int | None = None) -> CodeRead | None:
        """The code read already of a card that slid out ``at`` (on the ``monotonic``
        clock; ``ticks`` on the scanner's device's, if its barrier is the device's), which
        the slide is paired with; None if its code is not read yet."""
        if self.scanner is None:
            return None
        while self._codes and self._read_before(self._codes[0], at, ticks) > self.pair_within:
            self._codes.popleft()  # a code whose card the beam missed
        return self._codes.popleft() if self._codes else None

    @staticmethod
    def _read_before(code: CodeRead, at: float, ticks: int | None) -> float:
        """How long before a slide ``at`` (``ticks``) ``code`` was read, in seconds: on the
        device's clock where both carry its ticks, since when the reader had a code says
        little of when the device read it (it waited in the device's queue, or a loop held
        up); else on the ``monotonic`` clock."""
        if ticks is not None and code.ticks is not None:
            return ticks_diff(ticks, code.ticks) / 1000
        return at - code.at

    @property
    def codes_waiting(self) -> list[CodeRead]:
        """The codes read that wait for their card's slide, oldest first."""
        return list(self._codes)

    @property
    def slides_waiting(self) -> int:
        """The slides :meth:`card_slid` was told of that wait still for a code, or for the
        pause after which the dealer is asked about them."""
        return len(self._slides)

    def _code_read(
        self,
        reading: BarcodeReading,
        now: float,
        codes_left: int,
        news: ReaderNews,
        request_id: str | None = None,
        ticks: int | None = None,
    ) -> bool:
        """Pair a code (its scanner named it ``request_id``, stamped it ``ticks``) with its
        card's slide; ``codes_left`` new codes (this one among them) were read together.
        Slides no code can answer came out unread, before it: they are asked about first, so
        that the cards keep their order. False for a code read again in its card's slide (a
        torn sticker read twice is one card to ask about)."""
        last_text, last_at = self._last_code
        self._last_code = (reading.text, now)
        if reading.text == last_text and now - last_at <= self.pair_within:
            return False
        if self.filter.repeats_last(reading):
            return True  # the same sticker read again later: the filter says nothing of it
        # Codes come in the order of their cards: of more slides waiting than codes read, the
        # newest are the codes' cards, and an older slide still waiting has lost its code. A
        # slide heard before the last read of the scanner by more than ``pair_within`` had its
        # code then, if any.
        self._unread_slides(self._drained_at, news, keep=codes_left)
        if self._slides:
            self._slides.popleft()
        else:
            self._codes.append(CodeRead(now, request_id, ticks))
        return True

    def _unread_slides(self, now: float, news: ReaderNews, keep: int = 0) -> None:
        """Slides that no code answered in time, and all but the ``keep`` newest: cards that
        came out unread, asked about in their order."""
        slides = self._slides
        while slides and ((keep and len(slides) > keep) or now - slides[0][1] > self.pair_within):
            slides.popleft()
            unread = BarcodeReading("", None, "a card slid past the light barrier")
            self._route(self.filter.barcode(unread, self.clock()), news)

    def _changed(self, events: Sequence[Event]) -> None:
        super()._changed(events)
        for event in events:
            if isinstance(event, CardDealt) and self._sending is None and self._slides:
                self._slides.popleft()  # a card the dealer gave at the console: its slide

    def _new_filter(self) -> ReadingFilter:
        return ReadingFilter(
            sources=frozenset({ReadingSource.BARCODE}),
            decks=decks_in_play(self.service),
            follows_table=True,
            table_clock=self.service.clock,
        )

    def poll(self, limit: int = 5) -> ReaderNews:
        """Read what has arrived, at most ``limit`` lines (a scanner left sending the same
        sticker over and over must not hold up the loop; the rest waits for the next call);
        accepted cards go to the engine (and so to the journal)."""
        news = ReaderNews()
        self._catch_up(news)
        now = self.clock()
        if self.scanner is None:
            if self.monotonic() < self._retry_at:
                return news
            try:
                self.scanner = self._open(self.url)
                self._opened_at = self.monotonic()
                log.info("barcode scanner open at %s", self.url)
            except ScannerError as error:
                self._failed(error, now, news)
                return news
        # Every code waiting is read before any slide is judged: after a loop held up a moment,
        # the slides and the codes of the cards dealt meanwhile are paired in their order.
        readings: list[BarcodeReading] = []
        requests: list[str | None] = []
        stamps: list[int | None] = []
        drained = False
        try:
            for _ in range(limit):
                if (reading := self.scanner.read()) is None:
                    drained = True
                    break
                readings.append(reading)
                scanner = self.scanner
                if isinstance(scanner, ScannerThatNamesItsCodes):
                    requests.append(scanner.request_of_last_read())
                else:
                    requests.append(None)
                if isinstance(scanner, ScannerThatStampsItsCodes):
                    stamps.append(scanner.ticks_of_last_read())
                else:
                    stamps.append(None)
        except ScannerError as error:
            self.scanner = None
            if self.monotonic() - self._opened_at >= self.steady_after:
                self._backoff = 0.5  # it worked a while: this is a new outage
            self._failed(error, now, news)
        else:
            if not readings and self.monotonic() - self._opened_at >= self.steady_after:
                self._works_again()  # open a while with nothing read: a quiet shoe
        if readings:
            self._backoff = 0.5  # it reads: it works
            self._works_again()
        read_at = self.monotonic()
        for index, reading in enumerate(readings):
            left = len(readings) - index
            if not self._code_read(reading, read_at, left, news, requests[index], stamps[index]):
                continue
            # Each card to the engine before the next line is judged: the filter knows a
            # card is dealt once the engine took it.
            self._route(self.filter.barcode(reading, now), news, (reading, requests[index]))
        if drained:
            self._unread_slides(read_at, news)
            self._drained_at = read_at
        self._route(self.filter.tick(now), news)
        self._queue_news(now, news)
        return news

    def _queue_news(self, now: float, news: ReaderNews) -> None:
        """What the scanner's queue does while the reader cannot take its cards: its cards
        held back there for the journal, stop dealing (told once an outage); events it lost,
        a reader alarm (cards may be lost with them)."""
        scanner = self.scanner
        if not isinstance(scanner, ScannerBehindAQueue):
            return
        for detail in scanner.take_losses():
            message = (
                f"the layout board lost events ({detail}): cards scanned or slid out may be "
                "among them, never dealt, as may a button press or the box-empty switch; "
                "check the dealt cards against the cards out of the shoe, and the box"
            )
            log.error(message)
            news.alarms.append(ReaderAlarm(ReaderAlarmKind.MISSED_CARD, message, now))
            self._losses_unjournaled.append(message)
        self._journal_losses()
        if not self.service.journal_trouble:
            self._held_back_told = False
        elif scanner.holds_back and not self._held_back_told:
            # The reader's bound on the cards it holds never comes into play: the queue
            # takes the cards, and the dealer would deal on, told nothing of them.
            self._held_back_told = True
            message = (
                "the journal cannot write and the layout board waits on it: stop dealing "
                "until it writes again; the board keeps the cards read meanwhile, about "
                f"{scanner.cards_it_keeps} more cards, and sends them once it writes (do not "
                "give them at the console); past that it loses the oldest"
            )
            log.error(message)
            news.refused.append(message)

    def _journal_losses(self) -> None:
        """The table hears of the events the scanner's queue lost (a ``missed_card``
        notice) once the journal can keep it."""
        while self._losses_unjournaled and not self.service.journal_trouble:
            message = self._losses_unjournaled[0]
            try:
                self.service.reader_notice(self.name, ReaderNoticeKind.MISSED_CARD, message)
            except JournalError:
                return  # told again once the journal writes
            except TableError as refused:
                log.warning("the %s reader's notice was not journaled: %s", self.name, refused)
            del self._losses_unjournaled[0]

    def _failed(self, error: ScannerError, now: float, news: ReaderNews) -> None:
        self._retry_at = self.monotonic() + self._backoff
        why = f"{error}; it is reopened in {self._backoff:g} s"
        self._backoff = min(self._backoff * 2, 10.0)
        self._route(self.filter.reader_lost(ReadingSource.BARCODE, why, now), news)

    def close(self) -> None:
        super().close()
        if self.scanner is not None:
            self.scanner.close()
            self.scanner = None


def open_camera(config: ReaderConfig) -> tuple[FrameSource, Recognizer | None]:
    """The camera the config names, with a recognizer of the deck profile it names (none for
    a barcode camera). A ProfileError or a FrameSourceError says what cannot be opened; a
    live camera not there now is opened later (a camera lost: the dealer deals from the
    console meanwhile)."""
    recognizer = None if config.kind == "barcode-camera" else Recognizer(find_profile(config.deck))
    kind, _, where = config.camera.partition(":")
    if kind == "video":
        return VideoCaptureSource(where), recognizer
    if kind not in ("picamera", "usb"):
        return ImageFolderSource(where), recognizer
    # Asked for the Pi camera's size: the recognizer is made for it, and a USB camera left at
    # its own may give five times the pixels to read.
    live: Callable[[], FrameSource] = (
        PiCameraSource
        if kind == "picamera"
        else partial(VideoCaptureSource, int(where or 0), width=CAMERA_WIDTH, height=CAMERA_HEIGHT)
    )
    try:
        return live(), recognizer
    except CameraUnavailableError as unavailable:
        log.warning("%s: the table starts without it, and opens it once it can", unavailable)
        return CameraOpenedLater(live, str(unavailable)), recognizer
