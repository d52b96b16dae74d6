"""What every game engine shares: emitting events, alarms, and the dealer's corrections.

A card that cannot be (not in the deck, seen too often, out of turn) raises an alarm, and
nothing more is settled until the dealer voids it or corrects it. The dealer can also void
or correct the last card taken while only its own consequences followed it. The engines
(Faro, the baccarat family) inherit this from :class:`DealerDesk` and provide the hooks it
names.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Self

from table.cards import Card
from table.errors import BetRefusedError, CardRefusedError, IllegalCommandError
from table.events import (
    FACE_DOWN_MESSAGE,
    AlarmCleared,
    AlarmKind,
    AlarmRaised,
    BankFunded,
    CardDealt,
    DealerCorrection,
    Event,
    PunterLeft,
    PunterSeated,
    ReaderNotice,
    ReaderNoticeKind,
    build_event,
)

# complete_event's two steps, for DealerDesk._record.
_new_object = object.__new__
_set_attribute = object.__setattr__

# The reader notices that end a reader's loss.
NO_LONGER_LOST = (ReaderNoticeKind.READER_BACK, ReaderNoticeKind.READER_REMOVED)
# The reader notices about the reader itself, which name no card.
READER_PRESENCE = (ReaderNoticeKind.READER_LOST, *NO_LONGER_LOST)


@dataclass(frozen=True, slots=True)
class Alarm:
    """An alarm waiting for the dealer; ``card`` is the card that raised it, if one did."""

    alarm_id: int
    kind: AlarmKind
    message: str
    card: Card | None
    # The card was read for a place dealt face down: the public hears ``public_message``.
    face_down: bool = False
    # When it was raised: a card named for an unread card came out then.
    raised_at: float = 0.0

    @property
    def public_message(self) -> str:
        """The alarm as the room may hear it (the state topic, the pages)."""
        return FACE_DOWN_MESSAGE if self.face_down else self.message


class TableFolds:
    """The fold every game's state shares: applying an event by its handler, the folds of
    the bank's funds, who sits and alarms, and rewinding for a voided or corrected card.

    A game's state names its handlers in ``folds``, and keeps a ``checkpoint`` (the state
    a void goes back to: the deck's start at Faro, the shoe's at baccarat) with every event
    folded ``since_checkpoint``.
    """

    folds: ClassVar[Mapping[type[Event], Callable[[Any, Any], None]]]
    # Named in refusals: "a Faro table cannot apply …", "no coup to correct".
    game_title: ClassVar[str]
    # What the dealer voids whole: "deal" at Faro, "coup" at baccarat.
    unit: ClassVar[str]

    table: str
    bank: int
    bankrolls: dict[str, int]
    seats: list[str]
    alarm: Alarm | None
    # The card readers lost, by name, with what they said: until each is back or removed.
    readers_lost: dict[str, str]
    next_alarm_id: int
    next_bet_id: int
    last_seq: int
    checkpoint: TableFolds | None
    since_checkpoint: list[Event]

    def copy(self) -> Self:
        raise NotImplementedError

    def _take_checkpoint(self, seq: int) -> None:
        """The state after event ``seq`` becomes the one a void goes back to, with an empty
        log since."""
        self.since_checkpoint = []
        self.checkpoint = None
        checkpoint = self.copy()
        checkpoint.last_seq = seq
        self.checkpoint = checkpoint

    def apply(self, event: Event) -> None:
        """Fold one event into the state."""
        handler = self.folds.get(type(event))
        if handler is None:
            raise IllegalCommandError(
                f"a {self.game_title} table cannot apply a {event.type_name} event"
            )
        self.fold(event, handler)

    def fold(self, event: Event, handler: Callable[[Any, Any], None]) -> None:
        """Fold ``event`` with the handler its type has in ``folds``."""
        if self.checkpoint is not None:
            # Logged first: a new checkpoint then starts an empty log, and a voided card's
            # correction rebuilds the log without the card and without itself.
            self.since_checkpoint.append(event)
        handler(self, event)
        self.last_seq = event.seq

    def _fold_bank_funded(self, event: BankFunded) -> None:
        self.bank = event.bankroll

    def _fold_seated(self, event: PunterSeated) -> None:
        self.bankrolls[event.punter] = event.bankroll
        self.seats.append(event.punter)

    def _fold_left(self, event: PunterLeft) -> None:
        del self.bankrolls[event.punter]
        self.seats.remove(event.punter)

    def _fold_alarm(self, event: AlarmRaised) -> None:
        self.alarm = Alarm(
            event.alarm, event.kind, event.message, event.card, event.face_down, event.at
        )
        self.next_alarm_id = event.alarm + 1

    def _fold_alarm_cleared(self, event: AlarmCleared) -> None:
        self.alarm = None

    def _fold_reader_notice(self, event: ReaderNotice) -> None:
        if event.notice is ReaderNoticeKind.READER_LOST:
            self.readers_lost[event.reader] = event.message
        elif event.notice in NO_LONGER_LOST:
            self.readers_lost.pop(event.reader, None)

    def _fold_correction(self, event: DealerCorrection) -> None:
        """A voided or corrected card: the state becomes the checkpoint with every event
        since folded again, up to the card (a correction's new card then follows)."""
        if not event.undone:
            return
        checkpoint = self.checkpoint
        if checkpoint is None:
            raise IllegalCommandError(f"no {self.unit} to correct")
        rebuilt = checkpoint.copy()
        rebuilt.checkpoint = checkpoint
        voided_from = self._voided_from()
        for earlier in self.since_checkpoint[:voided_from]:
            rebuilt.apply(earlier)
        # A reader's news after the card is not the card's: a reader lost stays lost.
        for later in self.since_checkpoint[voided_from:]:
            if isinstance(later, ReaderNotice):
                rebuilt.apply(later)
        # Ids keep counting up so that a bet or alarm id is never given twice.
        rebuilt.next_alarm_id = max(self.next_alarm_id, rebuilt.next_alarm_id)
        rebuilt.next_bet_id = max(self.next_bet_id, rebuilt.next_bet_id)
        self.__dict__.update(rebuilt.__dict__)

    def _voided_from(self) -> int:
        """Where the voided card's events begin in the log since the checkpoint."""
        return last_card_index(self.since_checkpoint)


# The most chips one bankroll, bank or bet may hold: every event and screen writes them as a
# JSON number, which a browser reads exactly up to 2**53 - 1 and a JSON writer refuses past
# 4300 digits.
MOST_CHIPS = 2**53 - 1


def check_amount(what: str, amount: object, *, held: int = 0) -> None:
    """``amount`` chips, to be added to ``held`` (the chips already in the bank)."""
    if isinstance(amount, bool) or not isinstance(amount, int):
        raise BetRefusedError(f"{what}: the amount must be a whole number of chips, not {amount!r}")
    if amount <= 0:
        raise BetRefusedError(f"{what}: the amount must be positive, not {amount}")
    if amount > MOST_CHIPS - held:
        whole = "" if not held else f"the bank would hold {held + amount}, "
        raise BetRefusedError(f"{what}: {whole}at most {MOST_CHIPS} chips are counted")


def check_name(name: str) -> None:
    if not name or not name.replace("-", "").replace("_", "").replace(".", "").isalnum():
        raise IllegalCommandError(
            f"punter {name!r}: a name is letters, digits, '-', '_' or '.' with no spaces"
        )


def last_card_index(log: Sequence[Event]) -> int:
    """Where the last card taken stands in a log of events; -1 if none was."""
    for index in range(len(log) - 1, -1, -1):
        if isinstance(log[index], CardDealt):
            return index
    return -1


class DealerDesk:
    """Alarms and the dealer's voids and corrections, for a game engine.

    The engine has ``state`` (a :class:`TableFolds`), ``_number()`` (the deal or coup its
    events carry), ``_card_problem(card)`` (the alarm a card would raise, or None),
    ``_take_card(out, card)`` and ``_start_state(events, table_id)`` (the state a replay
    starts from), and answers :meth:`_undo_log`.
    """

    state: Any
    _at: float
    # The events the table opened with (its rules), for whoever records it from the start.
    opening: list[Event]
    # Events that follow a card as its own consequences: the card may still be voided.
    consequences: ClassVar[tuple[type[Event], ...]] = ()
    # Where a stake lies, for the table limits' messages: a Faro "spot", a baccarat "side".
    stake_place: ClassVar[str] = "spot"

    def _number(self) -> int:
        """The number the events carry as their ``deal``: the deal at Faro, the coup at
        baccarat."""
        raise NotImplementedError

    def _emit(
        self, out: list[Event], cls: type[Event], *, deal: int | None = None, **fields: Any
    ) -> Any:
        """Build an event of ``cls`` from keywords, fold it into the state, hand it out."""
        state = self.state
        fields["table"] = state.table
        fields["seq"] = state.last_seq + 1
        fields["at"] = self._at
        fields["deal"] = self._number() if deal is None else deal
        event = build_event(cls, fields)
        # TableFolds.fold, written out: every event of a baccarat coup comes this way.
        if state.checkpoint is not None:
            state.since_checkpoint.append(event)
        state.folds[cls](state, event)
        state.last_seq = event.seq
        out.append(event)
        return event

    def _record(
        self,
        out: list[Event],
        cls: type[Event],
        fields: dict[str, Any],
        handler: Callable[[Any, Any], None],
    ) -> None:
        """Build an event of ``cls`` from ``fields``, which name every field, defaults too,
        fold it by its known handler and hand it out. :meth:`_emit` builds one from keywords;
        the events that come by the hundred each deal come here, in one call where
        :func:`~table.events.complete_event` and :meth:`TableFolds.fold` took two more."""
        event = _new_object(cls)
        _set_attribute(event, "__dict__", fields)
        state = self.state
        if state.checkpoint is not None:
            state.since_checkpoint.append(event)
        handler(state, event)
        state.last_seq = fields["seq"]
        out.append(event)

    def _card_problem(self, card: Card) -> tuple[AlarmKind, str] | None:
        raise NotImplementedError

    def _deals_face_down(self) -> bool:
        """Whether the next card taken lies face down in a hand its players hold."""
        return False

    def _hides_a_card(self) -> bool:
        """Whether a card dealt face down lies unshown, or the next card is dealt so: a
        reader's word may name any card it has seen, the last one dealt as well as the next."""
        return self._deals_face_down()

    def _take_card(self, out: list[Event], card: Card) -> None:
        raise NotImplementedError

    def _undo_log(self, what: str) -> list[Event]:
        """The events since the state a void goes back to; raise if there is nothing to void."""
        raise NotImplementedError

    @classmethod
    def replay(cls, events: Iterable[Event], table_id: str | None = None) -> Self:
        """A table whose state is the fold of ``events`` (a journal, a recorded deal)."""
        events = list(events)
        table = cls.__new__(cls)
        table._at = 0.0
        table.opening = []
        table.state = table._start_state(
            events, table_id or (events[0].table if events else "table")
        )
        for event in events:
            table.state.apply(event)
        return table

    @classmethod
    def resume(cls, state: Any) -> Self:
        """A table whose state is ``state``, the state a deck or shoe start leaves (see
        :mod:`table.checkpoints`): it takes its checkpoint there, as that event's fold does."""
        table = cls.__new__(cls)
        table._at = 0.0
        table.opening = []
        state._take_checkpoint(state.last_seq)
        table.state = state
        table._follow_state()
        return table

    def _follow_state(self) -> None:
        """What the table keeps of its state besides ``state`` itself, after a resume."""

    def _start_state(self, events: Sequence[Event], table_id: str) -> Any:
        """The empty state a replay of ``events`` folds them into."""
        raise NotImplementedError

    def _trial_copy(self) -> Self:
        """A throw-away twin of this table, to try a correction on."""
        trial = copy.copy(self)
        trial.state = self.state.copy()
        trial.opening = []
        return trial

    def _begin(self, at: float | None) -> list[Event]:
        if at is not None:
            self._at = at
        return []

    def _check_seated(self, punter: str, what: str) -> None:
        if punter not in self.state.bankrolls:
            seated = ", ".join(self.state.seats) or "nobody"
            raise IllegalCommandError(f"{what}: {punter} is not seated (seated: {seated})")

    def _check_limits(self, what: str, stake: int) -> None:
        """The table minimum and maximum, for the whole stack a bet makes."""
        rules = self.state.rules
        if stake < rules.min_bet:
            raise BetRefusedError(f"{what}: {stake} is under the table minimum {rules.min_bet}")
        if rules.max_bet and stake > rules.max_bet:
            raise BetRefusedError(
                f"{what}: {stake} on one {self.stake_place} is over the table maximum "
                f"{rules.max_bet}"
            )

    def _refuse_during_alarm(self, what: str) -> None:
        # A refusal goes back to whoever sent the command, a punter's betting terminal too
        # (over MQTT, on the reply topic every terminal reads): the alarm as the room hears it.
        alarm = self.state.alarm
        if alarm is not None:
            raise IllegalCommandError(
                f"{what}: alarm {alarm.alarm_id} waits for the dealer ({alarm.public_message}); "
                + self._alarm_advice(alarm)
            )

    def _alarm_advice(self, alarm: Alarm) -> str:
        if alarm.kind is AlarmKind.UNREAD_CARD:
            return "answer it first"
        return f"void the card, correct it, or void the {self.state.unit} first"

    def _raise_alarm(
        self, out: list[Event], kind: AlarmKind, message: str, card: Card | None
    ) -> None:
        self._emit(
            out,
            AlarmRaised,
            alarm=self.state.next_alarm_id,
            kind=kind,
            message=message,
            card=card,
            # A reader's account of a card it could not name may name what it thought it saw.
            face_down=self._deals_face_down(),
        )

    def deal(
        self, card: Card | str, *, at: float | None = None, came_out: float | None = None
    ) -> list[Event]:
        """The next card out of the box or shoe. A card that cannot be raises an alarm;
        nothing is settled from it until the dealer resolves the alarm. ``came_out`` is when
        the card came out, if before ``at`` (a card held a while): the card and what it
        settles carry that time. A card named for an unread card came out when its alarm was
        raised, and carries that time unless told; the alarm's clearing carries ``at``."""
        card = Card.parse(card) if isinstance(card, str) else card
        alarm = self.state.alarm
        if alarm is not None and alarm.kind is not AlarmKind.UNREAD_CARD:
            # Refused as other commands are, in words the room may hear: a card given for a
            # place dealt face down is not named either.
            given = "card" if alarm.face_down else f"card {card}"
            raise CardRefusedError(
                f"{given}: alarm {alarm.alarm_id} waits for the dealer ({alarm.public_message})"
            )
        if at is not None:
            self._at = at
        out: list[Event] = []
        if alarm is not None:
            # The card a reader could not name, named by the dealer: it is dealt as it came.
            named = "the dealer named the card" if alarm.face_down else f"the card was {card}"
            self._emit(out, AlarmCleared, alarm=alarm.alarm_id, resolution=named)
        answered = self._at
        if came_out is None and alarm is not None:
            came_out = alarm.raised_at  # the card the reader could not name came out then
        if came_out is not None:
            self._at = came_out
        try:
            problem = self._card_problem(card)
            if problem is not None:
                self._raise_alarm(out, problem[0], problem[1], card)
                return out
            self._take_card(out, card)
        finally:
            self._at = answered
        return out

    def unread(self, what: str = "", *, at: float | None = None) -> list[Event]:
        """A reader saw a card come out that it could not name: an alarm, and nothing more is
        dealt until the dealer names the card or voids the alarm. ``what`` is the reader's
        account, with its advice to the dealer."""
        out = self._begin(at)
        self._refuse_during_alarm("unread")
        message = what or (
            "a card came out of the box that the reader could not read: name the card with "
            "'card CARD', or void this alarm if no card came out"
        )
        self._raise_alarm(out, AlarmKind.UNREAD_CARD, message, None)
        return out

    def reader_notice(
        self, reader: str, notice: ReaderNoticeKind, message: str, *, at: float | None = None
    ) -> list[Event]:
        """A card reader's news that stops no card (see :class:`ReaderNotice`). Heard even
        while an alarm waits: a reader lost then is the reason the dealer must know first."""
        if not reader or not reader.replace("-", "").replace("_", "").isalnum():
            raise IllegalCommandError(
                f"reader {reader!r}: a reader's name is letters, digits, '-' or '_'"
            )
        if not message.strip():
            raise IllegalCommandError(f"reader {reader}: a notice says what the reader saw")
        if notice in NO_LONGER_LOST and reader not in self.state.readers_lost:
            raise IllegalCommandError(
                f"reader {reader}: {notice.value.replace('_', ' ')}, but it is not lost "
                f"(lost: {', '.join(self.state.readers_lost) or 'none'})"
            )
        out = self._begin(at)
        # A reader's word on a card may name one read for a place dealt face down.
        face_down = notice not in READER_PRESENCE and self._hides_a_card()
        self._emit(
            out, ReaderNotice, reader=reader, notice=notice, message=message, face_down=face_down
        )
        return out

    def void_card(self, *, at: float | None = None) -> list[Event]:
        """The dealer voids the card an alarm stopped, or the last card taken (a misread)."""
        state = self.state
        out = self._begin(at)
        alarm = state.alarm
        if alarm is not None:
            if alarm.card is not None:
                self._correction(out, "void", alarm.card, None)
            self._emit(out, AlarmCleared, alarm=alarm.alarm_id, resolution="voided by the dealer")
            return out
        self._correction(out, "void", self._last_card("void"), None)
        return out

    def _correction(
        self, out: list[Event], action: str, of: Card | CardDealt, replacement: Card | None
    ) -> None:
        """The dealer's ``action`` on ``of``: the card an alarm stopped, or the last card
        taken (its ``card_dealt``), which is undone."""
        if isinstance(of, Card):
            self._emit(
                out,
                DealerCorrection,
                action=action,
                card=of,
                replacement=replacement,
                undone=False,
                face_down=self._deals_face_down(),
            )
            return
        # Told with the deal or coup of the card it takes back, even once its coup is over.
        self._emit(
            out,
            DealerCorrection,
            deal=of.deal,
            action=action,
            card=of.card,
            replacement=replacement,
            undone=True,
            face_down=of.face_down,
        )

    def correct(self, card: Card | str, *, at: float | None = None) -> list[Event]:
        """The dealer says the last card (or the alarmed one) was really ``card``."""
        card = Card.parse(card) if isinstance(card, str) else card
        state = self.state
        alarm = state.alarm
        # A refusal goes back to whoever sent the command, over MQTT perhaps on the reply
        # topic every terminal reads: a card given for a place dealt face down is not named,
        # as its correction on the events topic does not name it.
        hidden = self._corrects_face_down()
        given = "correct" if hidden else f"correct {card}"
        if alarm is not None and alarm.kind is AlarmKind.UNREAD_CARD:
            raise IllegalCommandError(
                f"{given}: alarm {alarm.alarm_id} is about a card the reader could not read: "
                "name it with 'card CARD', or void the alarm if no card came out"
            )
        if alarm is not None and alarm.card is None:
            raise IllegalCommandError(
                f"{given}: alarm {alarm.alarm_id} is not about a card ({alarm.public_message})"
            )
        # Tried on a twin first: a correction to a card that is no better changes nothing.
        trial_events = self._trial_copy()._correction_events(card, at, given, hidden)
        out = self._begin(at)
        for event in trial_events:
            state.apply(event)
            out.append(event)
        return out

    def _corrects_face_down(self) -> bool:
        """Whether a correction now is of a card dealt face down and still unshown: the card
        an alarm stopped for such a place, or the last card taken."""
        alarm: Alarm | None = self.state.alarm
        if alarm is not None:
            return alarm.face_down
        if not self._hides_a_card():
            return False
        log: Sequence[Event] = self.state.since_checkpoint
        index = last_card_index(log)
        last = log[index] if index >= 0 else None
        return isinstance(last, CardDealt) and last.face_down

    def _correction_events(
        self, card: Card, at: float | None, given: str, hidden: bool
    ) -> list[Event]:
        out = self._begin(at)
        alarm = self.state.alarm
        if alarm is not None:
            assert alarm.card is not None  # correct() refuses an alarm about no card
            self._correction(out, "correct", alarm.card, card)
            # The clearing names no card dealt face down: the public events topic carries it
            # whole (the journal has the card in the correction and the card_dealt after).
            corrected = "corrected by the dealer" if alarm.face_down else f"corrected to {card}"
            self._emit(out, AlarmCleared, alarm=alarm.alarm_id, resolution=corrected)
        else:
            self._correction(out, "correct", self._last_card(given), card)
        problem = self._card_problem(card)
        if problem is not None:
            kind, message = problem
            if hidden:  # the alarm's words name the card
                message = (
                    f"the card given cannot be taken ({kind.value.replace('_', ' ')}); "
                    "not named, as it would lie face down"
                )
            raise CardRefusedError(f"{given}: {message}")
        self._take_card(out, card)
        return out

    def _follows_the_card(self, event: Event) -> bool:
        """Whether ``event``, after a card, is that card's own consequence (a reader's
        notice and the dealer's correction of it too), not play that went on after it."""
        return isinstance(event, (*self.consequences, ReaderNotice)) or (
            isinstance(event, DealerCorrection) and not event.undone
        )

    def _last_card(self, what: str) -> CardDealt:
        """The last card taken, while only its consequences have followed it."""
        log = self._undo_log(what)
        index = last_card_index(log)
        if index < 0:
            raise IllegalCommandError(f"{what}: no card has been dealt in this {self.state.unit}")
        for event in log[index + 1 :]:
            if not self._follows_the_card(event):
                raise IllegalCommandError(
                    f"{what}: play went on after the last card "
                    f"({event.type_name.replace('_', ' ')}); it can no longer be voided"
                )
        card_event = log[index]
        assert isinstance(card_event, CardDealt)
        return card_event
