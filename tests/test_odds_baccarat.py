"""The baccarat tableau and shoe the odds count with."""

from __future__ import annotations

import pytest

from table.cards import STANDARD_52, Rank, parse_cards
from table.errors import TableError
from table.odds.baccarat import BaccaratShoe, banker_draws, card_value, player_draws
from tests.baccarat_brute_force import banker_by_table, value


def test_the_tableau_is_004s_table() -> None:
    for banker in range(8):
        for third in (None, *range(10)):
            assert banker_draws(banker, third) == banker_by_table(banker, third), (banker, third)
    assert [total for total in range(8) if player_draws(total)] == [0, 1, 2, 3, 4, 5]


def test_card_values() -> None:
    for card in parse_cards("AS 2H 9D 10C JS QH KD"):
        assert card_value(card.rank) == value(card)
    assert card_value(Rank.KING) == 0 and card_value(Rank.ACE) == 1


def test_a_shoe_counts_cards_by_rank_and_by_value() -> None:
    shoe = BaccaratShoe.full(6).without(parse_cards("KH KD 5S"))
    assert shoe.size == 312 - 3
    assert shoe.rank_counts[Rank.KING.value - 1] == 22
    values = shoe.value_counts()
    assert values[0] == 4 * 24 - 2
    assert values[5] == 23
    assert sum(values) == shoe.size
    assert shoe.describe() == "6-deck shoe, 309 cards left"


def test_an_impossible_shoe_is_refused() -> None:
    with pytest.raises(TableError, match="KH out 2 times from a 1-deck shoe"):
        BaccaratShoe.full(1).without(parse_cards("KH KH"))
    with pytest.raises(TableError, match="1 to 8 decks"):
        BaccaratShoe.full(9)
    with pytest.raises(TableError, match="1 to 8 decks"):
        BaccaratShoe.full(0)
    nearly_empty = list(STANDARD_52.cards)[:48]
    with pytest.raises(TableError, match="only 4 cards left"):
        BaccaratShoe.full(1).without(nearly_empty)
