"""The reading filter: raw card readings in, accepted cards (or questions) out.

A camera reads every frame and a barcode shoe reads every slide; neither is trusted alone
to put a card into the game. The filter's rules:

* a camera card is accepted when ``agree_frames`` consecutive readings name it surely, and
  it is not the card accepted last (still lying in the box after a hand passed over);
* frames that are covered, in motion or spoiled are ignored: they neither count nor break
  a run; nor do a few that show no card (a hand over the whole box shows nothing
  card-like), short of the box seen empty for ``empty_frames``;
* a card accepted earlier that shows up again is an alarm, never a new card; in a shoe of
  several decks, once every copy of it is out (a barcode sticker names its deck, so the
  same sticker twice is the alarm there);
* a card read surely as often as a card needs, but never that often in a row (a hand
  spoiled a frame between), is asked about once the next card is read, before it;
* a card read only uncertainly for a while becomes a question to the dealer
  (:class:`ConfirmRequest`), never a guess; the cards accepted while it waits are held, in
  order, and go to the table after the card the dealer names, as they were dealt;
* with both a camera and a barcode shoe, each card must be named alike by both; when they
  differ, a conflict alarm asks the dealer; when one stays silent, an alarm says which;
* a card the camera cannot read at all (a joker, another deck's card), two cards in view,
  a foreign barcode and a lost reader each raise an alarm with a plain message;
* a card that lay in the box unread until the next one was accepted raises an alarm: a
  card may have been missed (not the card the dealer was asked about and answered for,
  still lying there until the camera sees anything else);
* with a new deck or shoe, the last deal's card still lying in the box is not taken for the
  new deal until the box is seen empty or another card is dealt.

Outputs are small frozen dataclasses; the event vocabulary is wired to them in the loop.
Time comes only from the timestamps passed in, but for the table's clock (``table_clock``),
read once for each card accepted and each question asked: when the card came in, its time in
the journal however long it waits behind a question, an alarm or a journal that cannot write.
A question keeps when it was asked: the table's alarm for it is raised at that time, and the
engine dates the card the dealer names for it from that alarm, however late the answer.

Alone (a bench, a test) the filter counts the cards it accepts as dealt. Wired to the table
(``follows_table``), it counts only the cards the table took (:meth:`ReadingFilter.placed`),
whoever gave them, and follows the dealer's voids and corrections
(:meth:`ReadingFilter.follow`): a card the engine refused is not dealt, and a corrected card is
dealt as the dealer named it.
"""

from __future__ import annotations

import enum
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from table.cards import Card
from vision.barcode import BarcodeReading, CardCode
from vision.recognize import CardReading, ReadingStatus


class ReadingSource(enum.Enum):
    CAMERA = "camera"
    BARCODE = "barcode"
    DEALER = "dealer"


class AlarmKind(enum.Enum):
    SEEN_BEFORE = "seen-before"  # a card already dealt shows up again
    CONFLICT = "conflict"  # camera and barcode name different cards
    READER_SILENT = "reader-silent"  # one reader named a card the other never did
    UNREADABLE = "unreadable"  # a card is there but matches nothing in the deck
    TWO_CARDS = "two-cards"
    FOREIGN_CODE = "foreign-code"  # a barcode that is not one of our stickers
    ANOTHER_DECK = "another-deck"  # one of our stickers, of a deck this shoe does not hold
    READER_LOST = "reader-lost"  # camera blind, scanner unplugged
    MISSED_CARD = "missed-card"  # a card lay in the box unread before the next was accepted


@dataclass(frozen=True)
class CardAccepted:
    card: Card
    source: ReadingSource
    timestamp: float
    confidence: float
    deck: int | None = None  # the deck number on its barcode sticker, when one was read
    # The table's clock when the card was accepted (None without a table_clock): the
    # card_dealt's ``at``, however long the card is held before the table takes it.
    came_in: float | None = None


@dataclass(frozen=True)
class ReaderAlarm:
    kind: AlarmKind
    message: str
    timestamp: float
    cards: tuple[Card, ...] = ()


@dataclass(frozen=True)
class ConfirmRequest:
    """Ask the dealer which card this is; answer with :meth:`ReadingFilter.confirm` (a card
    named), :meth:`ReadingFilter.confirm_guess` (the confirm button) or
    :meth:`ReadingFilter.dismiss` (no card: the dealer voids the question)."""

    choices: tuple[Card, ...]
    message: str
    timestamp: float
    guess: Card | None = None  # the reader's best guess; None when two readers disagree
    # The table's clock when the question was asked (None without a table_clock): the card
    # asked about came out then, before the cards held behind it, and the card the dealer
    # names for it is dealt at that time, not at the answer's.
    came_in: float | None = None
    # The sticker asked about (its card and deck number), where one was read: the dealer who
    # names that card vouches for its deck as one of the deal's.
    sticker: tuple[Card, int] | None = None
    # The code read, where the question is of one that is none of the deal's (a foreign
    # code, another deck's sticker): a barcode camera that sees it still after a restart
    # knows it asked about it.
    code: str | None = None

    @property
    def asked(self) -> str:
        """The cards asked about, as the dealer is told them: ``QH or QS`` (``which card``
        when the reader could name none)."""
        return " or ".join(card.code for card in self.choices) or "which card"


FilterOutput = CardAccepted | ReaderAlarm | ConfirmRequest

# Frames that show nothing of the box; many bad frames in a row are a camera lost.
SPOILED = frozenset({ReadingStatus.OBSTRUCTED, ReadingStatus.BAD_FRAME})


@dataclass
class _Run:
    """Consecutive camera frames that name the same card."""

    card: Card | None = None
    frames: int = 0
    sure_frames: int = 0  # in a row, up to now
    sure_seen: int = 0  # in all
    best_confidence: float = 0.0
    runner_up: Card | None = None
    done: bool = False  # accepted, asked about or alarmed: say nothing more about it


@dataclass(frozen=True)
class _Dealt:
    card: Card
    deck: int | None  # the deck number on its barcode sticker; None when no sticker was read


@dataclass(frozen=True)
class _Unread:
    """A question for a card that came out while another waited (or while the table's alarm
    did): asked in its turn, once the cards before it are settled."""

    question: ConfirmRequest


@dataclass
class _Pending:
    card: Card
    timestamp: float
    confidence: float
    reported: bool = False
    deck: int | None = None


def with_decks(
    cards: Sequence[Card], stickers: Sequence[tuple[Card, int | None]]
) -> list[tuple[Card, int | None]]:
    """Each card with the deck number of a sticker of it known before, in their order; a
    card no sticker is left for has none (never guessed)."""
    decks: dict[Card, deque[int | None]] = {}
    for card, deck in stickers:
        decks.setdefault(card, deque()).append(deck)
    return [(card, decks[card].popleft() if decks.get(card) else None) for card in cards]


@dataclass
class ReadingFilter:
    """Turns readings into accepted cards. ``sources`` says which readers run; ``decks`` how
    many copies of each card the shoe holds (one for a Faro deck); ``follows_table`` that the
    table says which cards it took (see the module's docstring)."""

    agree_frames: int = 3
    confirm_after_frames: int = 8
    unreadable_frames: int = 10
    missed_frames: int = 6  # unread card frames between two accepted cards that mean a miss
    # Frames showing no card (covered and spoiled ones aside) that mean the box is empty: more
    # than a hand passing over it, which may read as no card for a few frames.
    empty_frames: int = 15
    blind_frames: int = 90
    pair_timeout: float = 2.0
    sources: frozenset[ReadingSource] = frozenset({ReadingSource.CAMERA})
    decks: int = 1
    follows_table: bool = False
    table_clock: Callable[[], float] | None = None

    def __post_init__(self) -> None:
        if self.agree_frames < 1:
            raise ValueError(f"agree_frames must be at least 1, got {self.agree_frames}")
        if self.decks < 1:
            raise ValueError(f"decks must be at least 1, got {self.decks}")
        if not self.sources or ReadingSource.DEALER in self.sources:
            raise ValueError("sources must name the camera, the barcode shoe or both")
        self._run = _Run()
        self._stray_frames = 0
        # The cards of runs that came to nothing since the last card, by their sure frames.
        self._stray_sure: dict[Card, int] = {}
        self._stray_seen: dict[Card, int] = {}  # and by all their frames
        self._trouble_frames = 0
        self._trouble_status: ReadingStatus | None = None
        self._trouble_reported = False
        # The card the camera could not match, asked about and answered, still lies in the
        # box: its frames are that card's, not a card missed, until the camera sees anything
        # else (a hand or a slide may bring another such card, which is counted again).
        self._answered_in_box = False
        self._spoiled_frames = 0
        self._blind_reported = False
        self._question: ConfirmRequest | None = None
        # Accepted after the card asked about, and cards that came out unread after it.
        self._held: list[CardAccepted | _Unread] = []
        # An alarm of the table's waits for the dealer: cards read meanwhile are held, as for
        # a question, or the engine would refuse them and they would be lost.
        self.table_waits = False
        self._waiting: dict[ReadingSource, deque[_Pending]] = {
            ReadingSource.CAMERA: deque(),
            ReadingSource.BARCODE: deque(),
        }
        self._dealt: list[_Dealt] = []
        # The card the camera takes to be lying in the box, already dealt: a hand passing over
        # it or a flicker does not make it a new card.
        self._in_box: Card | None = None
        # The deck on the sticker of the card in the box, where a barcode camera read it: in a
        # shoe of several decks another deck's copy of that card is a card of its own.
        self._in_box_deck: int | None = None
        # What the camera took the card in the box for, when the dealer named it otherwise
        # (the card named and the camera's guess, until the table takes the card named).
        self._in_box_read_as: Card | None = None
        self._named_for: tuple[Card | None, Card | None] = (None, None)
        self._empty_frames = 0
        self._box_emptied = False  # since the card in the box was dealt (or read)
        self._frames_without_in_box = 0  # a barcode camera's, in a row
        # The foreign codes a barcode camera asked about, by the frame it last saw each in.
        self._foreign_seen: dict[str, int] = {}
        self._view_frames = 0

    @property
    def both_readers(self) -> bool:
        return self.sources == {ReadingSource.CAMERA, ReadingSource.BARCODE}

    @property
    def dealt(self) -> list[Card]:
        """The cards dealt so far, in order."""
        return [dealt.card for dealt in self._dealt]

    @property
    def dealt_stickers(self) -> list[tuple[Card, int | None]]:
        """The cards dealt so far, in order, each with the deck number on its sticker (None
        when no sticker was read)."""
        return [(dealt.card, dealt.deck) for dealt in self._dealt]

    @property
    def question(self) -> ConfirmRequest | None:
        """The question waiting for the dealer, if any."""
        return self._question

    # --- the camera -------------------------------------------------------------------

    def camera(self, reading: CardReading, timestamp: float) -> list[FilterOutput]:
        if reading.status is not ReadingStatus.UNREADABLE:
            self._answered_in_box = False
        if reading.status in SPOILED:
            return self._spoiled(reading, timestamp)
        self._spoiled_frames = 0
        self._blind_reported = False  # seeing again: blind once more is news once more
        if reading.status is not ReadingStatus.NO_CARD:
            self._empty_frames = 0
        if reading.status in (ReadingStatus.CARD, ReadingStatus.UNCERTAIN):
            assert reading.guess is not None
            self._trouble_frames = 0
            return self._vote(reading, reading.guess, timestamp)
        if reading.status is ReadingStatus.NO_CARD:
            # A hand over the whole box shows nothing card-like either: until the box has
            # been seen empty for longer than a hand passes, the card read before it is the
            # card read after it, and its run goes on.
            self._trouble_frames = 0
            self._empty_frames += 1
            if self._empty_frames >= self.empty_frames:
                self._end_run()
                self._box_emptied = True
                self._trouble_over()  # the card that troubled the camera is gone
                # The card dealt last is out of the box: in a shoe of several decks the next
                # card may be a copy of it, and is a card of its own.
                self._in_box = None
                self._in_box_deck = None
                self._in_box_read_as = None
            return []
        self._end_run()
        if reading.status is ReadingStatus.UNREADABLE and not self._answered_in_box:
            self._stray_frames += 1
        return self._trouble(reading, timestamp)

    def _end_run(self, next_run: _Run | None = None) -> None:
        """Close the current run; one that never came to anything was a card left unread."""
        run = self._run
        if not run.done and run.card is not None and not self._already_placed(run.card):
            self._stray_frames += run.frames
            self._stray_sure[run.card] = self._stray_sure.get(run.card, 0) + run.sure_seen
            self._stray_seen[run.card] = self._stray_seen.get(run.card, 0) + run.frames
        self._run = next_run or _Run()

    def _spoiled(self, reading: CardReading, timestamp: float) -> list[FilterOutput]:
        if reading.status is not ReadingStatus.BAD_FRAME:
            # A hand resting over the box is a camera that works: only frames that show
            # nothing (black, blank, overexposed) make it blind.
            return []
        self._spoiled_frames += 1
        if self._spoiled_frames >= self.blind_frames and not self._blind_reported:
            self._blind_reported = True
            return [
                ReaderAlarm(
                    AlarmKind.READER_LOST,
                    f"the camera has seen nothing usable for {self._spoiled_frames} frames "
                    f"({reading.detail}): check the lamp, the lens and the box",
                    timestamp,
                )
            ]
        return []

    def _trouble_over(self) -> None:
        """The card (or the cards) the camera could not take has left the box: trouble seen
        from now on is another card's, and is told again."""
        self._trouble_status = None
        self._trouble_frames = 0
        self._trouble_reported = False
        self._answered_in_box = False

    def _trouble(self, reading: CardReading, timestamp: float) -> list[FilterOutput]:
        if reading.status is not self._trouble_status:
            self._trouble_status = reading.status
            self._trouble_frames = 0
            self._trouble_reported = False
        self._trouble_frames += 1
        if self._trouble_reported:
            return []
        if reading.status is ReadingStatus.TWO_CARDS and self._trouble_frames >= self.agree_frames:
            self._trouble_reported = True
            return [
                ReaderAlarm(
                    AlarmKind.TWO_CARDS,
                    "two cards in view of the camera: clear the table beside the box",
                    timestamp,
                )
            ]
        if (
            reading.status is ReadingStatus.UNREADABLE
            and self._trouble_frames >= self.unreadable_frames
        ):
            self._trouble_reported = True
            what = (
                "a card in the box matches no card of this deck (a joker, a card of "
                f"another deck?): {reading.detail}"
            )
            return [ReaderAlarm(AlarmKind.UNREADABLE, what, timestamp), *self._ask(what, timestamp)]
        return []

    def _ask(
        self, what: str, timestamp: float, card: Card | None = None, code: str | None = None
    ) -> list[FilterOutput]:
        """Ask the dealer which card came out (``card`` is the reader's guess, if it has
        one; ``code`` the code read, if it is about one); the cards read meanwhile wait for
        the answer."""
        advice = (
            "confirm it on the console or with the button"
            if card is not None
            else "name it with 'card CARD', or void if no card came out"
        )
        choices = (card,) if card is not None else ()
        return self._pose(
            ConfirmRequest(choices, f"{what}: {advice}", timestamp, guess=card, code=code)
        )

    def _pose(self, question: ConfirmRequest) -> list[FilterOutput]:
        """One question at a time: while one waits, or the table's alarm does, this one
        waits in the line of held cards, and the cards read after it behind it."""
        if question.came_in is None and self.table_clock is not None:
            question = replace(question, came_in=self.table_clock())
        if self._question is not None or self.table_waits:
            self._held.append(_Unread(question))
            return []
        self._question = question
        return [question]

    def ask_dealer(self, message: str, timestamp: float) -> None:
        """Hold the cards read from now on until the dealer says which card came out: the
        table waits for that answer (a question asked before the service restarted, in its
        own words)."""
        if self._question is None:
            self._question = ConfirmRequest((), message, timestamp)
            self._asked_before_a_restart()

    def _vote(self, reading: CardReading, card: Card, timestamp: float) -> list[FilterOutput]:
        if self._run.card != card:
            self._end_run(_Run(card))
        run = self._run
        run.frames += 1
        if reading.status is ReadingStatus.CARD:
            run.sure_frames += 1
            run.sure_seen += 1
        else:
            run.sure_frames = 0  # "N consecutive frames agree" means N sure ones in a row
        if reading.confidence > run.best_confidence:
            run.best_confidence = reading.confidence
            run.runner_up = reading.runner_up
        if run.done:
            return []
        if run.sure_frames >= self.agree_frames:
            run.done = True
            return self._sighted(card, ReadingSource.CAMERA, timestamp, run.best_confidence)
        if self._already_placed(card):
            return []
        # A reading that flickers from card to card is as unsure as one that stays unsure:
        # the frames of the runs it broke into count towards asking, and the cards most read
        # are the choices.
        seen = {
            stray: frames
            for stray, frames in self._stray_seen.items()
            if not self._already_placed(stray)
        }
        seen[card] = seen.get(card, 0) + run.frames
        if sum(seen.values()) < self.confirm_after_frames:
            return []
        run.done = True
        self._box_emptied = False  # the card asked about lies there
        self._forget_strays()  # the frames read unsurely were this card's
        most_read = sorted(seen, key=lambda seen_card: (seen[seen_card], seen_card == card))
        first = most_read[-1]
        other = most_read[-2] if len(most_read) > 1 else run.runner_up
        choices = (first,) if other is None or other == first else (first, other)
        # A card read about as often as another is no guess: the confirm button takes none.
        guessed = other not in seen or seen[first] >= 2 * seen[other]
        listed = " or ".join(choice.code for choice in choices)
        return self._pose(
            ConfirmRequest(
                choices,
                f"the camera is not sure of this card: {listed}? "
                + (
                    "Confirm on the console or with the button"
                    if guessed
                    else "Say which with 'card CARD'"
                ),
                timestamp,
                guess=first if guessed else None,
            )
        )

    def _already_placed(self, card: Card) -> bool:
        """The camera sees the card dealt (or held, or asked about) last, still lying in the
        box (or reads it as the card it took it for when the dealer named it otherwise)."""
        if self._box_emptied:
            return False  # seen empty since: whatever lay there was taken away
        last = self._held[-1] if self._held else None
        if isinstance(last, CardAccepted):
            return card == last.card
        # A flicker (a hand passing) while the dealer is asked about the card must not make
        # it a second question.
        asked = last.question if isinstance(last, _Unread) else self._question
        if asked is not None and card in asked.choices:
            return True
        return card in (self._in_box, self._in_box_read_as)

    def _out(self) -> list[_Dealt]:
        """The cards dealt, then those held until the dealer answers the question."""
        return self._dealt + [
            _Dealt(held.card, held.deck) for held in self._held if isinstance(held, CardAccepted)
        ]

    def copies_out(self, card: Card) -> int:
        """How many copies of ``card`` are dealt, or read and waiting to be."""
        return sum(dealt.card == card for dealt in self._out())

    # --- the barcode shoe ------------------------------------------------------------

    def barcode(self, reading: BarcodeReading, timestamp: float) -> list[FilterOutput]:
        if reading.code is None:
            # A torn or smudged sticker reads as a foreign code too: a card may have come out.
            what = (
                f"the shoe read a code that is not one of our stickers: {reading.problem}"
                if reading.text
                else f"the shoe read no sticker: {reading.problem}"
            )
            return [
                ReaderAlarm(AlarmKind.FOREIGN_CODE, what, timestamp),
                *self._ask(what, timestamp, code=reading.text or None),
            ]
        if self.repeats_last(reading):
            return []  # the same sticker scanned twice in one slide
        sticker = _Dealt(reading.code.card, reading.code.deck_number)
        another_deck = self._another_deck(sticker)
        if another_deck:
            assert sticker.deck is not None  # a sticker without a deck is of no other deck
            question = ConfirmRequest(
                (),
                f"{another_deck}: name it with 'card CARD' if it is the deal's own (its deck "
                "is then one of the deal's), or void if it is a stray",
                timestamp,
                sticker=(sticker.card, sticker.deck),
                code=reading.text,
            )
            return [
                ReaderAlarm(AlarmKind.ANOTHER_DECK, another_deck, timestamp, (sticker.card,)),
                *self._pose(question),
            ]
        if sticker in self._out() or self.copies_out(sticker.card) >= self.decks:
            return [self._seen_before(sticker.card, timestamp, f" (deck {sticker.deck})")]
        return self._sighted(sticker.card, ReadingSource.BARCODE, timestamp, 1.0, deck=sticker.deck)

    def _another_deck(self, sticker: _Dealt) -> str:
        """Why a sticker's card is none of the deck or shoe being dealt, or "": once as many
        decks as the shoe holds have shown their numbers, a card of any other number was
        slipped in, or came from the last shoe."""
        decks = {dealt.deck for dealt in self._out() if dealt.deck is not None}
        if sticker.deck is None or sticker.deck in decks or len(decks) < self.decks:
            return ""
        numbers = ", ".join(str(number) for number in sorted(decks))
        dealt_from = (
            f"deck {numbers}"
            if self.decks == 1
            else f"decks {numbers}, the {self.decks} decks of this shoe"
        )
        return (
            f"the shoe read {sticker.card.code} of deck {sticker.deck}, but the cards dealt are "
            f"of {dealt_from}: a card of another deck came out of the box"
        )

    def barcode_view(
        self, readings: Sequence[BarcodeReading], timestamp: float
    ) -> list[FilterOutput]:
        """The stickers a barcode camera read in one frame. The camera sees the card lying in
        the box frame after frame, where a shoe reads each card once: that card is not read
        again (not even once the table refused it or the dealer voided it) until the box has
        been seen without it for ``empty_frames`` frames."""
        self._spoiled_frames = 0
        self._blind_reported = False  # seeing again: blind once more is news once more
        if any(self._lies_in_box(reading.code) for reading in readings):
            self._frames_without_in_box = 0
        else:
            self._frames_without_in_box += 1
            if self._frames_without_in_box >= self.empty_frames:
                self._in_box = None
                self._in_box_deck = None
        self._view_frames += 1
        outputs: list[FilterOutput] = []
        for reading in readings:
            code = reading.code
            if self._lies_in_box(code):
                continue
            if code is None or self._another_deck(_Dealt(code.card, code.deck_number)):
                # A foreign code in view is one card (or no card) asked about once: it is
                # asked about again only once it has been out of view a while.
                last_seen = self._foreign_seen.get(reading.text)
                self._foreign_seen[reading.text] = self._view_frames
                if last_seen is not None and self._view_frames - last_seen <= self.empty_frames:
                    continue
            said = self.barcode(reading, timestamp)
            if code is not None and any(isinstance(output, CardAccepted) for output in said):
                self._in_box = code.card  # whether the table takes it or not
                self._in_box_deck = code.deck_number
                self._frames_without_in_box = 0
            outputs += said
        self._foreign_seen = {
            text: seen
            for text, seen in self._foreign_seen.items()
            if self._view_frames - seen <= self.empty_frames
        }
        return outputs

    def _lies_in_box(self, code: CardCode | None) -> bool:
        """Whether a barcode camera's sticker is the card lying in the box: the same card,
        and the same deck where the deck is known."""
        if code is None or code.card != self._in_box:
            return False
        return self._in_box_deck is None or code.deck_number == self._in_box_deck

    def reader_lost(
        self, source: ReadingSource, message: str, timestamp: float
    ) -> list[FilterOutput]:
        return [
            ReaderAlarm(
                AlarmKind.READER_LOST,
                f"the {source.value} reader is lost: {message}; deal from the console",
                timestamp,
            )
        ]

    # --- deciding ----------------------------------------------------------------------

    def _sighted(
        self,
        card: Card,
        source: ReadingSource,
        timestamp: float,
        confidence: float,
        deck: int | None = None,
    ) -> list[FilterOutput]:
        # A barcode is never the card still lying in the box: the shoe reads each slide once,
        # and two copies of a card from different decks may well follow each other.
        if source is ReadingSource.CAMERA and self._already_placed(card):
            return []
        if not self.both_readers:
            return self._accept(card, source, timestamp, confidence, deck)
        other = ReadingSource.BARCODE if source is ReadingSource.CAMERA else ReadingSource.CAMERA
        waiting = self._waiting[other]
        if not waiting:
            self._waiting[source].append(_Pending(card, timestamp, confidence, deck=deck))
            return []
        partner = waiting.popleft()
        if partner.card == card:
            return self._accept(
                card,
                source,
                timestamp,
                min(confidence, partner.confidence),
                deck if deck is not None else partner.deck,
            )
        camera_card, barcode_card = (
            (card, partner.card) if source is ReadingSource.CAMERA else (partner.card, card)
        )
        message = (
            f"the camera saw {camera_card.code} but the shoe read {barcode_card.code}: "
            "which card was dealt? Say which with 'card CARD'"
        )
        return [
            ReaderAlarm(AlarmKind.CONFLICT, message, timestamp, (camera_card, barcode_card)),
            *self._pose(ConfirmRequest((camera_card, barcode_card), message, timestamp)),
        ]

    def tick(self, timestamp: float) -> list[FilterOutput]:
        """Call now and then: reports a card one reader named and the other never did."""
        outputs: list[FilterOutput] = []
        for source, waiting in self._waiting.items():
            for pending in waiting:
                if not pending.reported and timestamp - pending.timestamp > self.pair_timeout:
                    pending.reported = True
                    silent = "shoe" if source is ReadingSource.CAMERA else "camera"
                    what = (
                        f"the {source.value} read {pending.card.code} but the {silent} read nothing"
                    )
                    outputs.append(
                        ReaderAlarm(AlarmKind.READER_SILENT, what, timestamp, (pending.card,))
                    )
                    outputs += self._ask(what, timestamp, pending.card)
        return outputs

    def _accept(
        self,
        card: Card,
        source: ReadingSource,
        timestamp: float,
        confidence: float,
        deck: int | None = None,
    ) -> list[FilterOutput]:
        if self.copies_out(card) >= self.decks:
            return [self._seen_before(card, timestamp, "")]
        outputs: list[FilterOutput] = []
        missed = self._strays_missed(card) if source is ReadingSource.CAMERA else []
        for stray, sure_frames in missed:
            what = (
                f"before {card.code} the camera read {stray.code} surely in {sure_frames} "
                f"frames, but never {self.agree_frames} in a row"
            )
            outputs += self._ask(what, timestamp, stray)
        if self._stray_frames >= self.missed_frames and not missed:
            where = f"between {self.dealt[-1].code} and" if self.dealt else "before"
            outputs.append(
                ReaderAlarm(
                    AlarmKind.MISSED_CARD,
                    f"{where} {card.code} the box showed a card the camera could not read "
                    f"for {self._stray_frames} frames: a card may have been missed; check "
                    "the dealt cards",
                    timestamp,
                    (*self.dealt[-1:], card),
                )
            )
        self._forget_strays()
        if source is not ReadingSource.DEALER:
            # A new card read in the box: whatever troubled the camera before lay under it.
            # (A card the dealer names is the troubling card itself, still lying there.)
            self._trouble_over()
        self._box_emptied = False  # the card lies in the box, even while it is held
        came_in = None if self.table_clock is None else self.table_clock()
        accepted = CardAccepted(card, source, timestamp, confidence, deck, came_in)
        if self._question is not None or (self.table_waits and source is not ReadingSource.DEALER):
            # The card asked about came out first: this one waits for the dealer's answer.
            self._held.append(accepted)
            return outputs
        if not self.follows_table:
            self.placed(card, deck)
        outputs.append(accepted)
        return outputs

    def _forget_strays(self) -> None:
        self._stray_frames = 0
        self._stray_sure = {}
        self._stray_seen = {}

    def _strays_missed(self, card: Card) -> list[tuple[Card, int]]:
        """The cards, with their sure frames, read surely as often as a card needs before
        ``card`` but never that often in a row (a hand or glare spoiled a frame between):
        they came out before it and were not taken, and the dealer is asked about each."""
        return [
            (stray, sure_frames)
            for stray, sure_frames in self._stray_sure.items()
            if stray != card
            and sure_frames >= self.agree_frames
            and not self._already_placed(stray)
            and self.copies_out(stray) < self.decks
        ]

    def _seen_before(self, card: Card, timestamp: float, where: str) -> ReaderAlarm:
        dealt = self.dealt
        if self.decks > 1 and where:
            when = " in this shoe"
        elif self.decks > 1:
            when = f" {dealt.count(card)} times, every copy in this {self.decks}-deck shoe"
        else:
            position = dealt.index(card) + 1 if card in dealt else 0
            when = f" as card {position} of this deal" if position else ""
        return ReaderAlarm(
            AlarmKind.SEEN_BEFORE,
            f"{card.code}{where} was already dealt{when}: a second sighting is not a new "
            "card; check the box",
            timestamp,
            (card,),
        )

    # --- the table ------------------------------------------------------------------------

    def placed(self, card: Card, deck: int | None = None) -> None:
        """The table took ``card`` (from this reader, the console or anywhere else): it is
        dealt, and it is the card lying in the box now."""
        self._dealt.append(_Dealt(card, deck))
        self._in_box = card
        self._in_box_deck = deck
        named, read_as = self._named_for
        self._in_box_read_as = read_as if card == named else None
        self._named_for = (None, None)
        self._box_emptied = False
        self._frames_without_in_box = 0
        self._forget_strays()  # a card given by hand was the one the camera could not read

    def new_deck(self, decks: int = 1) -> None:
        """A new deck or shoe of ``decks`` decks: nothing of it is dealt yet. The card the
        camera still sees in the box, if the table took it, is the last deck's: it is not taken
        again until the box is seen empty or another card is dealt. A card in view that the
        table never took (the new deck's first, put in before the dealer said so) is read
        afresh."""
        in_view = self._run.card
        left = self._in_box
        if self._box_emptied or in_view not in (None, left):
            left = None
        if left is None or in_view != left:
            self._run = _Run()
        self.decks = decks
        self._dealt = []
        if left is None:
            self._in_box_deck = None
        self._in_box = left
        self._forget_strays()
        self._trouble_over()
        self._end_question()

    def follow(self, cards: Sequence[Card], in_box: Card | None = None) -> None:
        """The table's dealt cards after the dealer voided or corrected one, or voided the
        deal. ``in_box`` is the card the dealer voided or corrected: the camera still reads it
        so while it lies in the box, and it is not a new card."""
        self._dealt = [
            _Dealt(card, deck)
            for card, deck in with_decks(cards, [(dealt.card, dealt.deck) for dealt in self._dealt])
        ]
        if in_box is not None:
            if in_box != self._in_box:
                self._in_box_deck = None
            self._in_box = in_box
            self._frames_without_in_box = 0

    # --- the dealer's answers ---------------------------------------------------------------

    def confirm(self, card: Card, timestamp: float) -> list[FilterOutput]:
        """The dealer names the card asked about (or any card: the dealer is believed); it
        goes first, then the cards held while the question waited."""
        # Only a camera sees the card it asks about still lying in the box; a shoe reads each
        # card once, and in a shoe of several decks the same card may well come again.
        still_there = ReadingSource.CAMERA in self.sources and card == self._in_box
        if not still_there and self.copies_out(card) >= self.decks:
            # Every copy is out already, or read and waiting behind the question: the card
            # asked about is another. The question stays.
            return [self._seen_before(card, timestamp, "")]
        asked = self._question
        held = self._end_question()
        self._forget_strays()  # the frames the camera could not read were this card's
        self._answered_for_in_box()
        deck = None
        if asked is not None:
            # The camera will go on reading it as the card it guessed, or as the other choice.
            read_as = next((choice for choice in asked.choices if choice != card), None)
            guess = asked.guess
            self._named_for = (card, guess if guess not in (None, card) else read_as)
            if asked.sticker is not None and asked.sticker[0] == card:
                deck = asked.sticker[1]
        outputs = (
            [] if still_there else self._accept(card, ReadingSource.DEALER, timestamp, 1.0, deck)
        )
        return outputs + self._release(held)

    def confirm_guess(self, timestamp: float) -> list[FilterOutput]:
        """The confirm button: the card is the one the reader guessed. Nothing without a
        question, or when two readers disagree (the dealer names the card then)."""
        question = self._question
        if question is None or question.guess is None:
            return []
        return self.confirm(question.guess, timestamp)

    def dismiss(self) -> list[FilterOutput]:
        """The dealer cleared the question without naming a card (e.g. the box was empty);
        the cards held while it waited go on."""
        held = self._end_question()
        self._forget_strays()
        self._answered_for_in_box()
        if not held:
            self._run = _Run()  # the card asked about, if it is still there, is read afresh
        return self._release(held)

    def _answered_for_in_box(self) -> None:
        """The dealer has answered while the card the camera could not match lies in the box,
        asked about: the frames that go on showing it are of the card answered for."""
        self._answered_in_box = (
            self._trouble_status is ReadingStatus.UNREADABLE and self._trouble_reported
        )

    def release_held(self) -> list[FilterOutput]:
        """The table's alarm is resolved: the cards held while it waited go on, in the order
        they came (while a question waits they wait for its answer)."""
        self.table_waits = False
        if self._question is not None:
            return []
        held, self._held = self._held, []
        return self._release(held)

    def drop_held(self) -> None:
        """The deal (or coup) the held cards came in is voided: they are not dealt."""
        self._held = []

    def let_go_past(self, count: int) -> list[CardAccepted | ConfirmRequest]:
        """The cards and questions held past the first ``count``, no longer held: each is
        the caller's to name, as it is neither dealt nor kept."""
        past, self._held = self._held[count:], self._held[:count]
        return [item if isinstance(item, CardAccepted) else item.question for item in past]

    def hold(self, accepted: CardAccepted, position: int) -> None:
        """A card the table could not take yet (an alarm waits): it waits, at ``position``
        in the line of held cards, until the alarm is resolved. A question asked about a
        card that came out after it waits behind it again."""
        self.table_waits = True
        if self._question is not None:
            self._held.insert(0, _Unread(self._question))
            self._question = None
        self._held.insert(position, accepted)

    def repeats_last(self, reading: BarcodeReading) -> bool:
        """The sticker read is the one read last: the same card read again, not a new one."""
        out = self._out()
        code = reading.code
        return code is not None and bool(out) and out[-1] == _Dealt(code.card, code.deck_number)

    @property
    def holds_anything(self) -> bool:
        """A question waits, or cards are held."""
        return self._question is not None or bool(self._held)

    def held_record(self) -> dict[str, Any]:
        """The question waiting and the cards held behind it, as kept across a restart."""
        question = self._question
        return {
            "question": None if question is None else _question_record(question),
            "held": [
                {"card": item.card.code, "source": item.source.value, "deck": item.deck,
                 "at": item.timestamp, "came_in": item.came_in}
                if isinstance(item, CardAccepted)
                else {"unread": _question_record(item.question)}
                for item in self._held
            ],
        }  # fmt: skip

    def go_back_to(self, record: dict[str, Any]) -> None:
        """The question and the held cards as :meth:`held_record` kept them a moment ago: an
        answer the table could not take is as if not given."""
        self._question = None
        self._held = []
        self.restore_held(record)

    def restore_held(self, record: dict[str, Any]) -> None:
        """The question and the cards held behind it when the service stopped (see
        :meth:`held_record`)."""
        asked = record.get("question")
        if asked is not None:
            self._question = _question_from(asked)
        for item in record.get("held", []):
            if "card" in item:
                self._held.append(
                    CardAccepted(
                        Card.parse(item["card"]),
                        ReadingSource(item["source"]),
                        item["at"],
                        1.0,
                        item["deck"],
                        item.get("came_in"),  # a note written before cards kept it has none
                    )
                )
            else:
                self._held.append(_Unread(_question_from(item["unread"])))
        self._asked_before_a_restart()
        for question in [
            self._question,
            *(item.question for item in self._held if isinstance(item, _Unread)),
        ]:
            if question is not None and question.code:
                # In view still, it is the code asked about, not one to ask about again.
                self._foreign_seen[question.code] = self._view_frames

    def _asked_before_a_restart(self) -> None:
        """A camera's question taken up after a restart, with no card to guess and nothing
        read after it: the card it could not match lies in the box still (a restart moves no
        card), and the frames that show it are of the card asked about, not of a card to ask
        about once more. Another card read, or the box seen empty, ends it as before."""
        question = self._question
        if ReadingSource.CAMERA not in self.sources or question is None or self._held:
            return
        if question.choices or question.sticker is not None:
            return
        self._trouble_status = ReadingStatus.UNREADABLE
        self._trouble_reported = True

    @property
    def held_cards(self) -> list[Card]:
        """The cards read and waiting for the dealer's answer or the table's alarm."""
        return [held.card for held in self._held if isinstance(held, CardAccepted)]

    def abandon_question(self) -> None:
        """The deal (or coup) the question was about is voided: no card is dealt for it, and
        the cards held while it waited were of the voided deal too."""
        if self._question is not None:
            self._end_question()
            self._run = _Run()

    def _end_question(self) -> list[CardAccepted | _Unread]:
        self._question = None
        for waiting in self._waiting.values():
            waiting.clear()
        held, self._held = self._held, []
        return held

    def _release(self, held: list[CardAccepted | _Unread]) -> list[FilterOutput]:
        """The held cards go on in order, up to a card that came out unread: that one is
        asked about next, and those after it wait for that answer."""
        outputs: list[FilterOutput] = []
        for index, item in enumerate(held):
            if isinstance(item, _Unread):
                self._question = item.question
                outputs.append(item.question)
                self._held = held[index + 1 :]
                return outputs
            if not self.follows_table:
                self.placed(item.card, item.deck)
            outputs.append(item)
        return outputs


def _question_record(question: ConfirmRequest) -> dict[str, Any]:
    sticker = question.sticker
    return {
        "choices": [card.code for card in question.choices],
        "message": question.message,
        "at": question.timestamp,
        "guess": question.guess.code if question.guess else None,
        "came_in": question.came_in,
        # The dealer who names its card vouches for its deck, after a restart too.
        "sticker": None if sticker is None else [sticker[0].code, sticker[1]],
        "code": question.code,
    }


def _question_from(record: dict[str, Any]) -> ConfirmRequest:
    guess = record["guess"]
    sticker = record.get("sticker")  # a note written before questions kept it has none
    return ConfirmRequest(
        tuple(Card.parse(code) for code in record["choices"]),
        record["message"],
        record["at"],
        guess=Card.parse(guess) if guess else None,
        came_in=record.get("came_in"),  # a note written before questions kept it has none
        sticker=None if sticker is None else (Card.parse(sticker[0]), sticker[1]),
        code=record.get("code"),
    )
