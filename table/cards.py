"""Ranks, suits, cards and deck specifications.

Cards print as rank then suit (``10H``, ``QS``) and parse from the same text, from
``T`` for ten, from suit symbols (``Q♥``) and in any letter case::

    >>> Card.parse("q♥")
    Card.parse('QH')
    >>> str(Card.parse("TH"))
    '10H'
"""

from __future__ import annotations

import enum
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property

from table.errors import CardParseError
from table.text import ascii_lower, ascii_upper


class Colour(enum.Enum):
    RED = "red"
    BLACK = "black"

    @classmethod
    def parse(cls, text: str) -> Colour:
        try:
            return cls(ascii_lower(text.strip()))
        except ValueError:
            raise CardParseError(f"not a colour: {text!r} (expected red or black)") from None

    def __str__(self) -> str:
        return self.value


class Suit(enum.Enum):
    SPADES = "S"
    HEARTS = "H"
    DIAMONDS = "D"
    CLUBS = "C"

    # A member is its one instance, so identity is equality; the identity hash is computed
    # in C, where Enum's own hashes the name in Python for every card looked up.
    __hash__ = object.__hash__

    @property
    def symbol(self) -> str:
        return _SUIT_SYMBOLS[self]

    @property
    def colour(self) -> Colour:
        return Colour.RED if self in (Suit.HEARTS, Suit.DIAMONDS) else Colour.BLACK

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, Suit):
            return NotImplemented
        return _SUIT_ORDER.index(self) < _SUIT_ORDER.index(other)

    @classmethod
    def parse(cls, text: str) -> Suit:
        key = ascii_upper(text.strip())
        suit = _SUIT_BY_TEXT.get(key)
        if suit is None:
            raise CardParseError(f"not a suit: {text!r} (expected S H D C or ♠ ♥ ♦ ♣)")
        return suit

    def __str__(self) -> str:
        return self.value


_SUIT_ORDER = (Suit.SPADES, Suit.HEARTS, Suit.DIAMONDS, Suit.CLUBS)
_SUIT_SYMBOLS = {Suit.SPADES: "♠", Suit.HEARTS: "♥", Suit.DIAMONDS: "♦", Suit.CLUBS: "♣"}
_SUIT_BY_TEXT: dict[str, Suit] = {s.value: s for s in Suit}
_SUIT_BY_TEXT.update({symbol: suit for suit, symbol in _SUIT_SYMBOLS.items()})
_SUIT_BY_TEXT.update({"♤": Suit.SPADES, "♡": Suit.HEARTS, "♢": Suit.DIAMONDS, "♧": Suit.CLUBS})


class Rank(enum.IntEnum):
    """A card rank; its value is its Faro order with the ace low (A=1 … K=13)."""

    ACE = 1
    TWO = 2
    THREE = 3
    FOUR = 4
    FIVE = 5
    SIX = 6
    SEVEN = 7
    EIGHT = 8
    NINE = 9
    TEN = 10
    JACK = 11
    QUEEN = 12
    KING = 13

    @property
    def label(self) -> str:
        return _RANK_LABELS[self]

    @property
    def is_odd(self) -> bool:
        # 003: ace, jack and king count odd, queen even: the rank's number decides.
        return self.value % 2 == 1

    @classmethod
    def parse(cls, text: str) -> Rank:
        rank = _RANK_BY_TEXT.get(ascii_upper(text.strip()))
        if rank is None:
            raise CardParseError(f"not a rank: {text!r} (expected A 2 3 4 5 6 7 8 9 10 J Q K or T)")
        return rank

    def __str__(self) -> str:
        return self.label

    def __repr__(self) -> str:
        return f"Rank.{self.name}"


_RANK_LABELS = {rank: str(rank.value) for rank in Rank}
_RANK_LABELS.update({Rank.ACE: "A", Rank.JACK: "J", Rank.QUEEN: "Q", Rank.KING: "K"})
_RANK_BY_TEXT: dict[str, Rank] = {label: rank for rank, label in _RANK_LABELS.items()}
_RANK_BY_TEXT.update(
    {"T": Rank.TEN, "ACE": Rank.ACE, "KING": Rank.KING, "QUEEN": Rank.QUEEN, "JACK": Rank.JACK}
)


@dataclass(frozen=True, order=True, slots=True)
class Card:
    rank: Rank
    suit: Suit

    @classmethod
    def parse(cls, text: str) -> Card:
        """Read ``10h``, ``TH``, ``QH``, ``Q♥`` (any case, surrounding spaces ignored)."""
        if not isinstance(text, str):
            raise CardParseError(f"not a card: {text!r} (expected text such as 'QH')")
        cleaned = text.strip()
        cached = _CARD_BY_TEXT.get(ascii_upper(cleaned))
        if cached is not None:
            return cached
        if any(character.isspace() for character in cleaned):
            raise CardParseError(
                f"not a card: {text!r} (a space inside it: one card is written in one word, "
                "e.g. 'QH' or '10♠')"
            )
        if len(cleaned) < 2:
            raise CardParseError(
                f"not a card: {text!r} (expected rank then suit, e.g. 'QH' or '10♠')"
            )
        try:
            return cls(Rank.parse(cleaned[:-1]), Suit.parse(cleaned[-1]))
        except CardParseError as error:
            raise CardParseError(f"not a card: {text!r} ({error})") from None

    @property
    def colour(self) -> Colour:
        return self.suit.colour

    @property
    def code(self) -> str:
        return f"{self.rank.label}{self.suit.value}"

    @property
    def pretty(self) -> str:
        return f"{self.rank.label}{self.suit.symbol}"

    def __str__(self) -> str:
        return self.code

    def __repr__(self) -> str:
        return f"Card.parse({self.code!r})"


_CARD_BY_TEXT: dict[str, Card] = {}
for _suit in Suit:
    for _rank in Rank:
        _card = Card(_rank, _suit)
        for _rank_text in {_rank.label, "T" if _rank is Rank.TEN else _rank.label}:
            _CARD_BY_TEXT[f"{_rank_text}{_suit.value}"] = _card
            _CARD_BY_TEXT[f"{_rank_text}{_suit.symbol}"] = _card


@dataclass(frozen=True)
class DeckSpec:
    """Which cards make one deck: the standard 52, or Monte Bank's 40 (no 8, 9, 10)."""

    name: str
    ranks: tuple[Rank, ...]
    suits: tuple[Suit, ...] = tuple(Suit)

    @cached_property
    def cards(self) -> tuple[Card, ...]:
        return tuple(Card(rank, suit) for suit in self.suits for rank in self.ranks)

    @cached_property
    def card_set(self) -> frozenset[Card]:
        return frozenset(self.cards)

    @cached_property
    def rank_set(self) -> frozenset[Rank]:
        return frozenset(self.ranks)

    @cached_property  # asked before every card, for the cards left in the box
    def size(self) -> int:
        return len(self.ranks) * len(self.suits)

    def __contains__(self, card: object) -> bool:
        return card in self.card_set

    def __iter__(self) -> Iterator[Card]:
        return iter(self.cards)

    def __len__(self) -> int:
        return self.size


STANDARD_52 = DeckSpec("standard-52", tuple(Rank))
MONTE_BANK_40 = DeckSpec(
    "monte-bank-40", tuple(r for r in Rank if r not in (Rank.EIGHT, Rank.NINE, Rank.TEN))
)
DECKS: dict[str, DeckSpec] = {deck.name: deck for deck in (STANDARD_52, MONTE_BANK_40)}


def find_deck(name: str) -> DeckSpec:
    try:
        return DECKS[name]
    except KeyError:
        known = ", ".join(sorted(DECKS))
        raise CardParseError(f"unknown deck {name!r} (known: {known})") from None


def parse_cards(texts: Sequence[str] | str) -> list[Card]:
    """Parse several cards: a list of texts, or one text separated by spaces or commas."""
    if isinstance(texts, str):
        texts = texts.replace(",", " ").split()
    return [Card.parse(text) for text in texts]
