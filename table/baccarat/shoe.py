"""The baccarat shoe: several decks, a cut card, the burn at the start.

The pure model only: a seeded :class:`~table.shoe.Shoe` of ``decks`` standard decks,
with the cut card placed ``cut_card`` cards from the end. The engine counts the cards
it is given and knows by itself when the cut card is reached; a reader that sees the
cut card says so with the ``cut`` line.
"""

from __future__ import annotations

import random

from table.baccarat.tableau import POINTS
from table.cards import STANDARD_52, Card
from table.shoe import Shoe


def burn_count(first: Card) -> int:
    """How many cards the first card of a shoe burns: its value, a ten or court card ten."""
    return POINTS[first.rank] or 10


class BaccaratShoe(Shoe):
    """``decks`` shuffled standard decks and a cut card ``cut_card`` cards from the end."""

    def __init__(self, decks: int = 6, cut_card: int = 16, rng: random.Random | None = None):
        super().__init__(STANDARD_52, decks, rng)
        self.cut_at = len(self._cards) - cut_card

    @property
    def cards_out(self) -> int:
        return self._next

    @property
    def past_cut(self) -> bool:
        """The cut card has come out: the coup in play is the shoe's last."""
        return self._next >= self.cut_at


class ContinuousShuffler(Shoe):
    """004's continuous shuffler: ``decks`` decks in a machine that never runs out, since
    each coup's cards go back in (:meth:`take_back`) and are shuffled in with the rest."""

    def __init__(self, decks: int = 6, rng: random.Random | None = None):
        super().__init__(STANDARD_52, decks, rng)
        self._rng = rng or random.Random(0)
        self._out: list[Card] = []

    def draw(self) -> Card:
        card = super().draw()
        self._out.append(card)
        return card

    def take_back(self) -> None:
        """The cards dealt since the last take-back go back in, anywhere among the others."""
        remaining = self._cards[self._next :]
        for card in self._out:
            remaining.insert(self._rng.randint(0, len(remaining)), card)
        self._cards = remaining
        self._next = 0
        self._out = []
