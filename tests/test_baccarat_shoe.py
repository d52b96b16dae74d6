"""The baccarat shoe model: decks, the cut card, the burn count."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from table.baccarat.shoe import BaccaratShoe, ContinuousShuffler, burn_count
from table.cards import STANDARD_52, Card


@pytest.mark.parametrize("decks", [1, 6, 8])
def test_a_shoe_holds_its_decks_shuffled_by_the_seed(decks: int) -> None:
    shoe = BaccaratShoe(decks, 16, random.Random(9))
    cards = shoe.peek_remaining()
    assert len(cards) == 52 * decks
    assert Counter(cards) == Counter(dict.fromkeys(STANDARD_52.cards, decks))
    assert cards == BaccaratShoe(decks, 16, random.Random(9)).peek_remaining()


def test_the_cut_card_lies_its_count_from_the_end() -> None:
    shoe = BaccaratShoe(8, 16, random.Random(1))
    assert shoe.cut_at == 8 * 52 - 16
    for _ in range(shoe.cut_at - 1):
        shoe.draw()
    assert not shoe.past_cut
    shoe.draw()
    assert shoe.past_cut and shoe.cards_out == shoe.cut_at and len(shoe) == 16


@pytest.mark.parametrize(
    ("card", "burned"),
    [("AH", 1), ("2H", 2), ("9C", 9), ("10D", 10), ("JS", 10), ("QS", 10), ("KS", 10)],
)
def test_the_first_card_burns_its_value_a_ten_or_court_card_ten(card: str, burned: int) -> None:
    assert burn_count(Card.parse(card)) == burned


def test_a_continuous_shuffler_never_runs_out_and_deals_a_coups_cards_again() -> None:
    """004: under a continuous shuffler each coup's cards go back in with the others."""
    shuffler = ContinuousShuffler(1, random.Random(3))
    first_coup = [shuffler.draw() for _ in range(6)]
    shuffler.take_back()
    assert Counter(shuffler.peek_remaining()) == Counter(STANDARD_52.cards)
    dealt: list[Card] = []
    for _ in range(100):  # 600 cards from one deck
        coup = [shuffler.draw() for _ in range(6)]
        assert len(set(coup)) == 6  # within a coup, every card is another
        dealt += coup
        shuffler.take_back()
    assert set(first_coup) <= set(dealt)
    assert Counter(shuffler.peek_remaining()) == Counter(STANDARD_52.cards)
