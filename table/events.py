"""The event vocabulary: one frozen dataclass per fact, and the one JSON codec.

Every event carries the table id, a per-table monotonic ``seq``, the time the fact
happened (seconds, given by the caller: the rules read no clock) and the deal
number. The journal, MQTT and the web page all use :func:`event_to_json` and
:func:`event_from_json`, so an event reads the same everywhere::

    {"type": "card_dealt", "seq": 7, "table": "t1", "at": 0.0, "deal": 1,
     "card": "QH", "role": "winner", "turn": 3}
"""

from __future__ import annotations

import dataclasses
import enum
import math
import re
import types
import typing
from dataclasses import dataclass, field
from typing import Any, ClassVar, TypeVar, Union

from table.cards import Card, Rank
from table.errors import TableError


class CardRole(enum.Enum):
    SODA = "soda"
    LOSER = "loser"
    WINNER = "winner"
    HOC = "hoc"
    PLAYER = "player"
    BANKER = "banker"
    BURN = "burn"
    # Baccarat Banque's two player hands (002), dealt right then left.
    RIGHT = "right"
    LEFT = "left"


class Outcome(enum.Enum):
    WIN = "win"
    LOSE = "lose"
    SPLIT = "split"
    PUSH = "push"
    RETURNED = "returned"
    # 003: chips on the layout that pay a loss on betting marks (the loss is already counted).
    TAKEN = "taken"


class AlarmKind(enum.Enum):
    UNKNOWN_CARD = "unknown_card"
    DUPLICATE_CARD = "duplicate_card"
    EXTRA_CARD = "extra_card"
    SHORT_DEAL = "short_deal"
    # Baccarat: a card while bets are still open; a third card the tableau forbids.
    EARLY_CARD = "early_card"
    FORBIDDEN_DRAW = "forbidden_draw"
    # A reader saw a card come out that it could not name (a torn sticker, a foreign code, a
    # card the camera cannot read, or one it is not sure of): the dealer names it.
    UNREAD_CARD = "unread_card"


class ReaderNoticeKind(enum.Enum):
    """What a card reader tells the table that stops no card."""

    READER_LOST = "reader_lost"  # the camera blind or gone, the scanner unplugged
    READER_BACK = "reader_back"  # it reads again
    READER_REMOVED = "reader_removed"  # the service started without it
    TWO_CARDS = "two_cards"  # two cards in the camera's view
    SEEN_BEFORE = "seen_before"  # a dealt card seen again: not a new card
    MISSED_CARD = "missed_card"  # the box showed a card no reader named


@dataclass(frozen=True, kw_only=True)
class Event:
    """A fact about one table. Subclasses add what the fact is about."""

    type_name: ClassVar[str] = "event"
    table: str
    seq: int
    at: float
    deal: int


_EVENT_TYPES: dict[str, type[Event]] = {}
E = TypeVar("E", bound=type[Event])
EventT = TypeVar("EventT", bound=Event)


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def event_type(cls: E) -> E:
    """Register an event class under its snake_case name (``CardDealt`` → ``card_dealt``)."""
    cls.type_name = _snake(cls.__name__)
    _EVENT_TYPES[cls.type_name] = cls
    return cls


_new_object = object.__new__
_set_attribute = object.__setattr__
_DEFAULTS: dict[type[Event], tuple[int, dict[str, Any]]] = {}


def build_event(cls: type[EventT], fields: dict[str, Any]) -> EventT:
    """The engine's trusted constructor: the same frozen event as ``cls(**fields)``, built
    in one step instead of one checked assignment per field, which is most of the time a
    deal takes. ``fields`` must name only the class's fields; it becomes the event's own."""
    known = _DEFAULTS.get(cls)
    if known is None:
        defaults = {
            item.name: item.default
            for item in dataclasses.fields(cls)
            if item.default is not dataclasses.MISSING
        }
        known = (len(dataclasses.fields(cls)), defaults)
        _DEFAULTS[cls] = known
    if len(fields) != known[0]:
        fields = {**known[1], **fields}
    event = _new_object(cls)
    _set_attribute(event, "__dict__", fields)
    return event


def complete_event(cls: type[EventT], fields: dict[str, Any]) -> EventT:
    """:func:`build_event` for a dict that already names every field, defaults too: the
    engines' few events that come by the hundred each deal skip even the defaults lookup."""
    event = _new_object(cls)
    _set_attribute(event, "__dict__", fields)
    return event


# --- the table and its people ------------------------------------------------------------


@event_type
@dataclass(frozen=True, kw_only=True)
class RulesChosen(Event):
    game: str
    rules: str
    options: dict[str, str] = field(default_factory=dict)


@event_type
@dataclass(frozen=True, kw_only=True)
class BankFunded(Event):
    amount: int
    bankroll: int


@event_type
@dataclass(frozen=True, kw_only=True)
class PunterSeated(Event):
    punter: str
    bankroll: int


@event_type
@dataclass(frozen=True, kw_only=True)
class PunterLeft(Event):
    punter: str
    bankroll: int


@event_type
@dataclass(frozen=True, kw_only=True)
class BankerChosen(Event):
    banker: str


@event_type
@dataclass(frozen=True, kw_only=True)
class BankPassed(Event):
    from_banker: str
    to_banker: str


# --- the deal ------------------------------------------------------------------------------


@event_type
@dataclass(frozen=True, kw_only=True)
class DeckStarted(Event):
    deck: str
    cards: int


@event_type
@dataclass(frozen=True, kw_only=True)
class CardDealt(Event):
    """A card taken into the deal. ``face_down``: dealt face down to a hand its players hold
    (Chemin de Fer, Banque, Macao, 002): the journal keeps the card, the public events
    topic names none (:func:`public_record`) until the hand is shown."""

    card: Card
    role: CardRole
    turn: int
    face_down: bool = False


@event_type
@dataclass(frozen=True, kw_only=True)
class BetsLocked(Event):
    turn: int
    # True when the turn's first card locked the bets (the dealer had not): voiding that
    # card then reopens them.
    by_card: bool = False


@event_type
@dataclass(frozen=True, kw_only=True)
class TurnClosed(Event):
    """Both cards of a turn are out and the bets on their ranks settled; bets reopen. The
    bets the bank can no longer cover, and marks no longer covered by chips, come down
    after it (``bet_settled`` with outcome ``returned`` or ``taken``)."""

    turn: int
    loser: Card
    winner: Card
    split: bool
    cards_left: int


@event_type
@dataclass(frozen=True, kw_only=True)
class DealFinished(Event):
    hoc: Card
    splits: int
    bank: int
    bankrolls: dict[str, int]


@event_type
@dataclass(frozen=True, kw_only=True)
class DealVoided(Event):
    reason: str
    bank: int
    bankrolls: dict[str, int]


# --- bets ----------------------------------------------------------------------------------


@event_type
@dataclass(frozen=True, kw_only=True)
class BetPlaced(Event):
    """Chips put on a spot; ``stake`` is the stack's total after this bet.

    A Saratoga bet moved to another spot keeps its progression (000): ``base`` is the stake
    its progression started from and ``rides`` the wins it has ridden. Both are 0 for a new
    bet, whose progression starts from its stake."""

    bet: int
    punter: str
    spot: str
    amount: int
    stake: int
    coppered: bool = False
    mark: bool = False
    instruction: str = ""
    base: int = 0
    rides: int = 0


@event_type
@dataclass(frozen=True, kw_only=True)
class BetWithdrawn(Event):
    """Chips taken back from a stack; ``coppered`` and ``mark`` say which of a punter's
    stacks on the spot it was (as its :class:`BetPlaced` did), so that a withdrawal can be
    told without the bets before it."""

    bet: int
    punter: str
    spot: str
    amount: int
    stake: int
    coppered: bool = False
    mark: bool = False


@event_type
@dataclass(frozen=True, kw_only=True)
class TurnCalled(Event):
    """A call of the last turn: the order of loser, winner and hoc (ranks or colours)."""

    bet: int
    punter: str
    order: tuple[str, str, str]
    amount: int
    pays: int


@event_type
@dataclass(frozen=True, kw_only=True)
class BetSettled(Event):
    """A bet met its card(s). ``net`` is what the punter gained (negative: what the bank
    took); ``stake`` is what still stands on the spot afterwards (0: the bet is gone)."""

    bet: int
    punter: str
    spot: str
    outcome: Outcome
    net: int
    stake: int
    turn: int
    note: str = ""


# --- integrity -----------------------------------------------------------------------------


@event_type
@dataclass(frozen=True, kw_only=True)
class AlarmRaised(Event):
    """``face_down``: the card was read for a place dealt face down (Chemin de Fer, Banque,
    Macao): the public events topic names neither it nor the message (:func:`public_record`)."""

    alarm: int
    kind: AlarmKind
    message: str
    card: Card | None = None
    face_down: bool = False


@event_type
@dataclass(frozen=True, kw_only=True)
class AlarmCleared(Event):
    alarm: int
    resolution: str


@event_type
@dataclass(frozen=True, kw_only=True)
class DealerCorrection(Event):
    """The dealer voided or corrected a card. ``undone`` is true when the card had been
    taken into the deal (its effects are rolled back), false when it was only alarmed.
    ``face_down``: the card, and its replacement, lie face down in a hand its players hold,
    named on the public events topic as a dealt card is (:func:`public_record`)."""

    action: str
    card: Card
    replacement: Card | None
    undone: bool
    face_down: bool = False


@event_type
@dataclass(frozen=True, kw_only=True)
class ReaderNotice(Event):
    """News from a card reader (``camera``, ``barcode``) that stops no card. A lost reader
    stays lost, on the screens, the layout's alarm lamp and MQTT's state, until it is back
    or removed; the other notices ask the dealer to look at the box and the dealt cards."""

    reader: str
    notice: ReaderNoticeKind
    message: str
    # A notice about a card read for a place dealt face down: its message is not public.
    face_down: bool = False


# --- baccarat: Punto Banco, Chemin de Fer, Banque, Macao ------------------------------------
# A coup reuses the shared facts: bets locked (``turn`` is the coup), card dealt (roles
# player, banker, right, left, burn), bet placed and settled, alarms and corrections, deal
# voided (the coup), bank passed. The envelope's ``deal`` is the coup the event is for: the
# coup in play, or between coups the coup to come (an earlier dealtable: the coup that ended).


@event_type
@dataclass(frozen=True, kw_only=True)
class ShoeStarted(Event):
    """A new shoe is loaded; ``cut_at`` cards leave it before the cut card. A continuous
    shuffler's shoe has no cut card: ``cut_at`` is None (an earlier dealtable wrote a
    number it never reached)."""

    shoe: int
    decks: int
    cards: int
    cut_at: int | None
    burn: str


@event_type
@dataclass(frozen=True, kw_only=True)
class CutCardOut(Event):
    """The cut card came out: this coup is the shoe's last."""

    shoe: int
    cards_out: int


@event_type
@dataclass(frozen=True, kw_only=True)
class ShoeFinished(Event):
    shoe: int
    coups: int
    cards_out: int


@event_type
@dataclass(frozen=True, kw_only=True)
class BankAnnounced(Event):
    """The banker puts ``amount`` in the bank: what the bank can lose this coup (002)."""

    banker: str
    amount: int


@event_type
@dataclass(frozen=True, kw_only=True)
class ThirdCardChoice(Event):
    """A hand drew a third card or stood. ``advised`` is the table's word (``draw``,
    ``stand`` or ``free``); ``deviation`` marks a banker going against it. ``forced``: the
    tableau left no choice. Where the hands lie face down every hand's draw or stand is told
    (``face_down``), forced or chosen, so that the room hears only that it drew or stood, as
    at the table: a choice told alone would say the hand's total."""

    hand: str
    total: int
    draws: bool
    advised: str
    deviation: bool
    forced: bool = False
    face_down: bool = False


@event_type
@dataclass(frozen=True, kw_only=True)
class HandShown(Event):
    """A hand dealt face down is turned over while its coup goes on: a natural (002, Baccarat
    Banque: a player hand's natural, the banker's hand having none). At a coup's end
    ``coup_result`` shows every hand."""

    hand: str
    cards: tuple[Card, ...]
    total: int


@event_type
@dataclass(frozen=True, kw_only=True)
class CoupResult(Event):
    """A coup's cards and who won. ``winner`` is the player hand's result (``player``,
    ``banker`` or ``tie``); Banque has one result per player hand in ``winners``.
    ``holders``: who held each side's cards (the banker, the representative)."""

    coup: int
    hands: dict[str, tuple[Card, ...]]
    totals: dict[str, int]
    winner: str
    winners: dict[str, str]
    naturals: tuple[str, ...]
    pairs: tuple[str, ...]
    holders: dict[str, str] = field(default_factory=dict)


@event_type
@dataclass(frozen=True, kw_only=True)
class CommissionTaken(Event):
    """The house's commission, kept as a commission box keeps it (002: noted in a register).

    ``noted``: hundredths of a chip that fell due (5 % of a winning Banca stake, or of a
    bank's winnings); ``amount``: the whole chips taken now, to the house, whose total is
    ``house``; ``box``: the hundredths still noted against ``punter`` afterwards. A box is
    settled, rounded up to a whole chip, when its shoe ends, its punter leaves or the bank
    passes from its banker: ``noted`` is then 0. Journals from before the box have neither
    field: their commission was rounded up each coup, and their box stays empty."""

    punter: str
    amount: int
    house: int
    noted: int = 0
    box: int = 0


@event_type
@dataclass(frozen=True, kw_only=True)
class CoupFinished(Event):
    """Every bet of the coup is settled; ``bank``: the house's bankroll (Punto Banco) or
    what is in the player-held bank."""

    coup: int
    bank: int
    house: int
    bankrolls: dict[str, int]


# --- the codec -----------------------------------------------------------------------------


class EventCodecError(TableError):
    """A JSON object that is not an event of this vocabulary."""


_ENVELOPE = ("type", "seq", "table", "at", "deal")


def event_to_json(event: Event) -> dict[str, Any]:
    """The event as a JSON-ready dict: ``type`` and the envelope first, then its fields."""
    data: dict[str, Any] = {
        "type": event.type_name,
        "seq": event.seq,
        "table": event.table,
        "at": event.at,
        "deal": event.deal,
    }
    for item in dataclasses.fields(event):
        if item.name in data:
            continue
        data[item.name] = _encode_value(getattr(event, item.name))
    return data


# What the public hears instead of an alarm's or a reader's words on a face-down card.
FACE_DOWN_MESSAGE = "about a card dealt face down: told to the dealer only"


# What a record dealt face down keeps from the room: the cards, and a hand's total and the
# table's word on it (which say the total too).
_FACE_DOWN_FIELDS = ("card", "replacement", "total", "advised", "deviation", "forced")


def public_record(record: dict[str, Any]) -> dict[str, Any]:
    """An event's JSON as the table's public hears it (the MQTT events topic): a card dealt
    face down is not named, so that no device at the table reads a hand its holder has not
    shown, nor in the dealer's correction of it, an alarm or a reader's notice, nor the
    total of a hand that draws or stands; ``hand_shown`` and ``coup_result`` name it once
    it is shown."""
    if record.get("face_down") is not True:
        return record
    hidden: dict[str, Any] = {
        name: None for name in _FACE_DOWN_FIELDS if record.get(name) is not None
    }
    if "message" in record:
        hidden["message"] = FACE_DOWN_MESSAGE
    return {**record, **hidden} if hidden else record


def _encode_value(value: object) -> object:
    if isinstance(value, Card | enum.Enum):
        return str(value) if isinstance(value, Card) else value.value
    if isinstance(value, tuple | list):
        return [_encode_value(item) for item in value]
    if isinstance(value, dict):
        return {str(key): _encode_value(item) for key, item in value.items()}
    return value


def event_from_json(data: dict[str, Any]) -> Event:
    """Rebuild an event from :func:`event_to_json`'s output; errors name what is wrong."""
    if not isinstance(data, dict):
        raise EventCodecError(f"an event must be a JSON object, not {type(data).__name__}")
    type_name = data.get("type")
    cls = _EVENT_TYPES.get(type_name) if isinstance(type_name, str) else None
    if cls is None:
        raise EventCodecError(f"unknown event type {type_name!r}")
    hints = _hints(cls)
    kwargs: dict[str, Any] = {}
    for item in dataclasses.fields(cls):
        if item.name not in data:
            if item.default is dataclasses.MISSING and item.default_factory is dataclasses.MISSING:
                raise EventCodecError(f"{type_name} event lacks field {item.name!r}")
            continue
        try:
            kwargs[item.name] = _decode_value(hints[item.name], data[item.name])
        except (TableError, TypeError, ValueError) as error:
            raise EventCodecError(f"{type_name} event: field {item.name!r}: {error}") from None
    if len(kwargs) + 1 < len(data):
        # A field this type has not is no event of it: a misspelt name, or another's field.
        unknown = sorted(name for name in data if name != "type" and name not in kwargs)
        names = ", ".join(repr(name[:40]) for name in unknown[:5])
        raise EventCodecError(f"{type_name} event: unknown field {names}")
    return cls(**kwargs)


_HINTS_CACHE: dict[type[Event], dict[str, Any]] = {}


def _hints(cls: type[Event]) -> dict[str, Any]:
    hints = _HINTS_CACHE.get(cls)
    if hints is None:
        hints = typing.get_type_hints(cls)
        _HINTS_CACHE[cls] = hints
    return hints


def _decode_value(hint: Any, value: object) -> object:
    origin = typing.get_origin(hint)
    if origin in (Union, types.UnionType):
        options = typing.get_args(hint)
        if value is None and type(None) in options:
            return None
        inner = [option for option in options if option is not type(None)]
        return _decode_value(inner[0], value)
    if hint is Card:
        if not isinstance(value, str):
            raise TypeError(f"expected a card code, got {value!r}")
        return Card.parse(value)
    if hint is Rank:
        return Rank.parse(str(value))
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        return hint(value)
    if origin is tuple:
        if not isinstance(value, list | tuple):
            raise TypeError(f"expected a list, got {value!r}")
        args = typing.get_args(hint)
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_decode_value(args[0], item) for item in value)
        if len(value) != len(args):
            raise TypeError(f"expected a list of {len(args)} items, got {value!r}")
        return tuple(_decode_value(arg, item) for arg, item in zip(args, value, strict=True))
    if origin is dict:
        if not isinstance(value, dict):
            raise TypeError(f"expected an object, got {value!r}")
        _, value_hint = typing.get_args(hint)
        return {str(key): _decode_value(value_hint, item) for key, item in value.items()}
    if hint is float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise TypeError(f"expected a number, got {value!r}")
        if not math.isfinite(value):
            raise TypeError(f"expected a finite number, got {value!r}")
        return float(value)
    if hint in (int, str, bool):
        if type(value) is not hint:
            raise TypeError(f"expected {hint.__name__}, got {value!r}")
        return value
    raise TypeError(f"cannot decode {value!r} as {hint!r}")


def event_types() -> dict[str, type[Event]]:
    """Every registered event class by its JSON ``type`` name."""
    return dict(_EVENT_TYPES)
