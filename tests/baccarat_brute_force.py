"""A plain reference for the odds tests: one coup dealt card by card from a sequence, with
004's tableau written out as its table reads, and every six-card order of a small shoe."""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence

from table.cards import Card, Rank

# 004: "Reparte cuando la tercera carta del Punto es" (ten and faces are 0).
BANKER_DRAWS_ON_PLAYER_THIRD = {
    3: {1, 2, 3, 4, 5, 6, 7, 9, 0},
    4: {2, 3, 4, 5, 6, 7},
    5: {4, 5, 6, 7},
    6: {6, 7},
}


def value(card: Card) -> int:
    return card.rank.value if card.rank < Rank.TEN else 0


def banker_by_table(banker: int, player_third: int | None) -> bool:
    if player_third is None:
        return banker <= 5  # 004: the banker stands on 6 when the player took no card
    if banker <= 2:
        return True
    if banker >= 7:
        return False
    return player_third in BANKER_DRAWS_ON_PLAYER_THIRD[banker]


def six_card_orders(shoe: Sequence[Card]) -> Iterator[tuple[Card, ...]]:
    """Every ordered draw of six cards: each equally likely from a shuffled shoe."""
    return itertools.permutations(shoe, 6)


def punto_banco_coup(cards: Sequence[Card]) -> tuple[int, int, bool, bool]:
    """(player total, banker total, player pair, banker pair) of a coup dealt from ``cards``."""
    player = (value(cards[0]) + value(cards[2])) % 10
    banker = (value(cards[1]) + value(cards[3])) % 10
    pairs = (cards[0].rank == cards[2].rank, cards[1].rank == cards[3].rank)
    if player >= 8 or banker >= 8:
        return player, banker, *pairs
    next_card = 4
    player_third = None
    if player <= 5:
        player_third = value(cards[next_card])
        player = (player + player_third) % 10
        next_card += 1
    if banker_by_table(banker, player_third):
        banker = (banker + value(cards[next_card])) % 10
    return player, banker, *pairs
