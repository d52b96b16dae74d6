"""A shoe (or Faro dealing box) loaded with shuffled decks: the pure model.

The shuffle draws from a ``random.Random`` passed in, so a seed reproduces a deal; a
simulated shoe device adds timing and faults around this model.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

from table.cards import STANDARD_52, Card, DeckSpec
from table.errors import TableError


class ShoeEmptyError(TableError):
    """A card was drawn from an empty shoe."""


class Shoe:
    """``decks`` decks of ``deck`` shuffled together; cards leave one at a time from the top."""

    def __init__(
        self, deck: DeckSpec = STANDARD_52, decks: int = 1, rng: random.Random | None = None
    ):
        if decks < 1:
            raise TableError(f"a shoe holds at least one deck, not {decks}")
        self.deck = deck
        self.decks = decks
        self._cards: list[Card] = list(deck.cards) * decks
        (rng or random.Random(0)).shuffle(self._cards)
        self._next = 0

    @classmethod
    def stacked(cls, cards: list[Card], deck: DeckSpec = STANDARD_52) -> Shoe:
        """A shoe holding exactly these cards in this order (a recorded or scripted deal)."""
        shoe = cls(deck)
        shoe._cards = list(cards)
        return shoe

    def __len__(self) -> int:
        return len(self._cards) - self._next

    def __iter__(self) -> Iterator[Card]:
        while len(self):
            yield self.draw()

    def draw(self) -> Card:
        if self._next >= len(self._cards):
            raise ShoeEmptyError(f"the shoe is empty ({len(self._cards)} cards dealt)")
        card = self._cards[self._next]
        self._next += 1
        return card

    def peek_remaining(self) -> list[Card]:
        """The cards still in the shoe in order (for tests and scripted deals, never displays)."""
        return self._cards[self._next :]
