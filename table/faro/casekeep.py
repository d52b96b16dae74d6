"""The casekeep: which cards of each rank are out and how each went.

003's abacus has a spindle per rank with four beads. A losing card's bead is pushed to
the outer edge (or against the bead before it), a winning card's bead goes half way, and
when the fourth card of a rank is out all four beads are pushed together: the rank is
finished. A rank with one card left in the box is *cases*.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from table.cards import Card, DeckSpec, Rank
from table.events import CardRole


class Bead(enum.Enum):
    IN_BOX = "in-box"
    OUTER_EDGE = "outer-edge"  # a losing card (and the soda, set aside with the bank's cards)
    HALF_WAY = "half-way"  # a winning card
    FINISHED = "finished"  # all four out: pushed together


_BEAD_FOR_ROLE = {
    CardRole.LOSER: Bead.OUTER_EDGE,
    CardRole.SODA: Bead.OUTER_EDGE,
    CardRole.HOC: Bead.OUTER_EDGE,
    CardRole.WINNER: Bead.HALF_WAY,
}


@dataclass(frozen=True, slots=True)
class CasekeepEntry:
    card: Card
    role: CardRole
    turn: int


@dataclass(frozen=True, slots=True)
class Spindle:
    """One rank on the abacus, beads listed from the outer edge inwards."""

    rank: Rank
    beads: tuple[Bead, ...]
    entries: tuple[CasekeepEntry, ...]
    finished: bool
    cases: bool


class Casekeep:
    """Cards out of the box, by rank, in the order they came."""

    __slots__ = ("_by_rank", "_dealt", "_left", "deck")

    def __init__(self, deck: DeckSpec) -> None:
        self.deck = deck
        self._by_rank: dict[Rank, tuple[CasekeepEntry, ...]] = dict.fromkeys(deck.ranks, ())
        self._dealt: dict[Card, CasekeepEntry] = {}
        # Asked for every rank of every bet: counted as cards come rather than each time.
        self._left: dict[Rank, int] = dict.fromkeys(deck.ranks, len(deck.suits))

    def copy(self) -> Casekeep:
        twin = Casekeep.__new__(Casekeep)
        twin.deck = self.deck
        twin._by_rank = dict(self._by_rank)
        twin._dealt = dict(self._dealt)
        twin._left = dict(self._left)
        return twin

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Casekeep):
            return NotImplemented
        return self.deck == other.deck and self._by_rank == other._by_rank

    def __hash__(self) -> int:
        return hash(tuple(self._dealt))

    def __repr__(self) -> str:
        out = " ".join(f"{rank.label}:{self.out_count(rank)}" for rank in self.deck.ranks)
        return f"<Casekeep {out}>"

    def record(self, card: Card, role: CardRole, turn: int) -> None:
        entry = CasekeepEntry(card, role, turn)
        self._by_rank[card.rank] = (*self._by_rank[card.rank], entry)
        self._dealt[card] = entry
        self._left[card.rank] -= 1

    @property
    def last_entry(self) -> CasekeepEntry | None:
        """The card dealt last, and how it went."""
        return next(reversed(self._dealt.values()), None)

    def entry_for(self, card: Card) -> CasekeepEntry | None:
        """How this card went, if it is out."""
        return self._dealt.get(card)

    def out(self, rank: Rank) -> tuple[CasekeepEntry, ...]:
        return self._by_rank.get(rank, ())

    def out_count(self, rank: Rank) -> int:
        return len(self._by_rank.get(rank, ()))

    def left(self, rank: Rank) -> int:
        """Cards of this rank still in the box (0 for a rank the deck does not have)."""
        return self._left.get(rank, 0)

    def is_dead(self, rank: Rank) -> bool:
        return self.left(rank) == 0

    def all_dead(self, ranks: Iterable[Rank]) -> bool:
        """Whether none of these ranks has a card left: a bet on them can never be settled."""
        return all(self.left(rank) == 0 for rank in ranks)

    def is_cases(self, rank: Rank) -> bool:
        return self.left(rank) == 1

    @property
    def cards_out(self) -> int:
        return len(self._dealt)

    @property
    def cards_left(self) -> int:
        return self.deck.size - len(self._dealt)

    def live_ranks(self) -> list[Rank]:
        return [rank for rank in self.deck.ranks if self.left(rank) > 0]

    def remaining_cards(self) -> list[Card]:
        """The cards still in the box, in deck order (never their box order: unknown)."""
        # A dead rank's cards are passed over by its count: looking a card up runs its hash,
        # a Python function, and near the end of a deal most ranks are dead.
        left, dealt = self._left, self._dealt
        return [card for card in self.deck.cards if left[card.rank] and card not in dealt]

    def dealt_cards(self) -> Iterator[Card]:
        return iter(self._dealt)

    def spindle(self, rank: Rank) -> Spindle:
        entries = self.out(rank)
        size = len(self.deck.suits)
        finished = len(entries) == size
        if finished:
            beads = (Bead.FINISHED,) * size
        else:
            beads = tuple(_BEAD_FOR_ROLE[e.role] for e in entries)
            beads += (Bead.IN_BOX,) * (size - len(entries))
        return Spindle(rank, beads, entries, finished, len(entries) == size - 1)

    def abacus(self) -> list[Spindle]:
        """Every spindle, in rank order: 003's abacus."""
        return [self.spindle(rank) for rank in self.deck.ranks]
