"""Punto Banco odds: complete enumeration checked against every six-card order of small
shoes dealt by a plain reference coup."""

from __future__ import annotations

import doctest
from collections import Counter
from fractions import Fraction

import pytest

import table.odds.punto_banco
from table.cards import Card, Rank, parse_cards
from table.errors import TableError
from table.odds.baccarat import BaccaratShoe
from table.odds.punto_banco import PuntoBancoPayouts, punto_banco_odds
from tests.baccarat_brute_force import punto_banco_coup, six_card_orders

SMALL_SHOES = [
    "AS 2H 3D 4C 5S 6H 7D 8C 9S",  # every value once: many draws, naturals
    "KS QH 10D 5C 5S 4H 6D 9C",  # many zeros
    "KS KH 3D 3C 7S 7H 2D 8C",  # pairs of ranks
    "6S 6H 6D 6C 7S 3H 3D",  # a banker 6 and the six-pays-half bet
]


def shoe_of(cards: list[Card]) -> BaccaratShoe:
    counts = Counter(card.rank for card in cards)
    return BaccaratShoe(1, tuple(counts.get(rank, 0) for rank in Rank))


@pytest.mark.parametrize("shoe_text", SMALL_SHOES)
def test_enumeration_matches_every_order_of_a_small_shoe(shoe_text: str) -> None:
    cards = parse_cards(shoe_text)
    results: Counter[str] = Counter()
    orders = 0
    for order in six_card_orders(cards):
        player, banker, player_pair, banker_pair = punto_banco_coup(order)
        orders += 1
        results["banker" if banker > player else "player" if player > banker else "tie"] += 1
        results["banker_with_six"] += banker > player and banker == 6
        results["player_pair"] += player_pair
        results["banker_pair"] += banker_pair
    odds = punto_banco_odds(shoe_of(cards))
    for name in ("banker", "player", "tie", "banker_with_six", "player_pair", "banker_pair"):
        assert getattr(odds, name) == Fraction(results[name], orders), name
    assert odds.banker + odds.player + odds.tie == 1


def test_every_bets_edge_follows_from_the_probabilities_and_payouts() -> None:
    shoe = shoe_of(parse_cards(SMALL_SHOES[3]))
    plain = punto_banco_odds(shoe)
    assert plain.edge("banker").edge == plain.player - plain.banker * Fraction(19, 20)
    assert plain.edge("player").edge == plain.banker - plain.player
    assert plain.edge("tie").edge == 1 - 9 * plain.tie
    assert plain.edge("player-pair").edge == 1 - 12 * plain.player_pair
    house = PuntoBancoPayouts(banker_six_pays_half=True, tie_pays=9)
    no_commission = punto_banco_odds(shoe, house)
    expected = plain.player - (plain.banker - plain.banker_with_six) - plain.banker_with_six / 2
    assert no_commission.edge("banker").edge == expected
    assert no_commission.edge("tie").edge == 1 - 10 * plain.tie
    with pytest.raises(TableError, match="unknown Punto Banco bet 'dragon'"):
        plain.edge("dragon")


def test_eight_decks_give_the_published_figures() -> None:
    # The long-published eight-deck figures, to the decimals they are printed with.
    odds = punto_banco_odds(BaccaratShoe.full(8))
    assert round(float(odds.banker), 6) == 0.458597
    assert round(float(odds.player), 6) == 0.446247
    assert round(float(odds.tie), 6) == 0.095156
    assert round(float(odds.edge("banker").edge), 5) == 0.01058
    assert round(float(odds.edge("player").edge), 5) == 0.01235
    assert round(float(odds.edge("tie").edge), 4) == 0.1436
    assert odds.player_pair == Fraction(31, 415)


def test_cards_out_change_the_odds_and_bad_shoes_are_refused() -> None:
    full = punto_banco_odds(BaccaratShoe.full(1))
    no_tens = punto_banco_odds(BaccaratShoe.full(1).without(parse_cards("10S 10H 10D 10C")))
    assert no_tens.shoe.size == 48
    assert no_tens.banker != full.banker
    with pytest.raises(TableError, match="the shoe holds 5"):
        punto_banco_odds(shoe_of(parse_cards("AS 2S 3S 4S 5S")))
    with pytest.raises(TableError, match=r"a share of a win, 0 to under 1 \(5% is 1/20\), not 1$"):
        PuntoBancoPayouts(commission=Fraction(1))


def test_json_has_every_bet_and_fractions_as_text() -> None:
    text = punto_banco_odds(BaccaratShoe.full(8)).to_json()
    assert text["decks"] == 8
    assert [edge["bet"] for edge in text["edges"]] == [  # type: ignore[index, union-attr]
        "banker",
        "player",
        "tie",
        "player-pair",
        "banker-pair",
    ]
    assert Fraction(str(text["player_pair"])) == Fraction(31, 415)
    assert "/" in str(text["tie"])


def test_docstring_examples() -> None:
    result = doctest.testmod(table.odds.punto_banco)
    assert result.attempted > 0 and result.failed == 0
