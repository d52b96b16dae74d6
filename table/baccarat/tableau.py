"""Baccarat values, totals, naturals and the third-card tableau.

Values and totals follow 004 (and 002): ace 1, two to nine at face value, ten and the
court cards 0, and only the units digit of the sum counts::

    >>> total(parse_cards("9S 7H"))          # 004: 9+7=16, the hand counts 6
    6
    >>> total(parse_cards("KS AH 5D"))       # 004: K+A+5=16, the hand counts 6
    6
    >>> is_natural(parse_cards("10C 9D"))    # 004: 10+9=19 is a "natural" 9
    True

The tableau is one table for the player side and one for the banker, as 004 prints
them and 002 repeats them; Chemin de Fer adds the representative's choice at five and
the banker's discretion, both as :class:`Draw` ``MAY`` with the table's advice.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from typing import NamedTuple

from table.cards import Card, Rank, parse_cards  # noqa: F401  (the doctests read cards)

__all__ = [
    "Draw",
    "Verdict",
    "banker_draws",
    "card_value",
    "is_natural",
    "is_pair",
    "player_draws",
    "representative_rule",
    "total",
]

# A rank's baccarat value, indexed by the rank's number (ace 1 ... king 13): 10, J, Q and
# K count nothing. A tuple indexed by the int rank is the fastest lookup in a coup.
POINTS: tuple[int, ...] = (0, *(rank.value if rank.value < 10 else 0 for rank in Rank))


def card_value(card: Card) -> int:
    return POINTS[card.rank]


def total(cards: Sequence[Card]) -> int:
    """The hand's points: the units digit of the sum of its cards' values."""
    points = POINTS
    return sum(points[card.rank] for card in cards) % 10


def is_natural(cards: Sequence[Card]) -> bool:
    """A two-card 8 or 9 (004 and 002): it ends the coup at once."""
    return len(cards) == 2 and total(cards) >= 8


def is_pair(cards: Sequence[Card]) -> bool:
    """The first two cards share a rank (K-K is a pair, K-Q is not), for the pair bets."""
    return len(cards) >= 2 and cards[0].rank == cards[1].rank


class Draw(enum.Enum):
    """What the tableau says about the next card for a hand."""

    MUST = "must"
    MAY = "may"
    MUST_NOT = "must-not"


class Verdict(NamedTuple):
    """The tableau's word on a hand: ``advice`` is the table's answer when the hand may
    choose (True: draw), None when the choice is genuinely free (002's five)."""

    draw: Draw
    advice: bool | None = None


def player_draws(two_card_total: int) -> bool:
    """004, Punto: draw on 0 to 5, stand on 6 and 7 (8 and 9 are naturals)."""
    return two_card_total <= 5


# 004, Mano de la Banca; 002, Jugabilidad 3: the banker's two-card total against the
# value of the player's third card. A set lists the third-card values that make it draw.
_BANKER_DRAWS_ON: dict[int, frozenset[int]] = {
    0: frozenset(range(10)),
    1: frozenset(range(10)),
    2: frozenset(range(10)),
    3: frozenset({1, 2, 3, 4, 5, 6, 7, 9, 0}),
    4: frozenset({2, 3, 4, 5, 6, 7}),
    5: frozenset({4, 5, 6, 7}),
    6: frozenset({6, 7}),
    7: frozenset(),
}


def banker_draws(two_card_total: int, player_third: Card | None) -> bool:
    """004's banker: with the player standing, draw on 0 to 5 and stand on 6 and 7; after
    a player's third card, the table of 004 (which 002 repeats)."""
    if player_third is None:
        return two_card_total <= 5
    draws_on = _BANKER_DRAWS_ON.get(two_card_total)
    return draws_on is not None and POINTS[player_third.rank] in draws_on


def representative_rule(two_card_total: int, *, strict_five: bool = False) -> Verdict:
    """002, Jugabilidad 1: the representative draws on 0 to 4, stands on 6 and 7, and
    chooses at 5 (strict tables make them stand at 5)."""
    if two_card_total <= 4:
        return Verdict(Draw.MUST)
    if two_card_total == 5 and not strict_five:
        return Verdict(Draw.MAY)
    return Verdict(Draw.MUST_NOT)
