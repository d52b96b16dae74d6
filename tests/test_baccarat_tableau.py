"""Every cell of the drawing tables: 004's tableau (Punto Banco), 002's representative
rule and banker's table (Chemin de Fer), values, totals and naturals."""

from __future__ import annotations

import pytest

from table.baccarat.tableau import (
    Draw,
    Verdict,
    banker_draws,
    card_value,
    is_natural,
    is_pair,
    player_draws,
    representative_rule,
    total,
)
from table.cards import Card, Rank, Suit, parse_cards

# A card of each baccarat value: the ten stands for 0.
CARD_OF_VALUE = {value: Card(Rank(value if value else 10), Suit.CLUBS) for value in range(10)}


def test_004_card_values_ace_one_two_to_nine_face_tens_and_courts_zero() -> None:
    """004, Valores de las cartas; 002, Mazo de cartas."""
    values = {rank.label: card_value(Card(rank, Suit.SPADES)) for rank in Rank}
    assert values == {
        "A": 1, "2": 2, "3": 3, "4": 4, "5": 5, "6": 6, "7": 7, "8": 8, "9": 9,
        "10": 0, "J": 0, "Q": 0, "K": 0,
    }  # fmt: skip


@pytest.mark.parametrize(
    ("cards", "points", "natural"),
    [
        ("9S 7H", 6, False),  # 004: 9+7=16, la mano cuenta 6
        ("5S 5H 5D", 5, False),  # 004: 5+5+5=15, la mano cuenta 5
        ("10S 9H", 9, True),  # 004: 10+9=19, un 9 "natural"
        ("KS AH 5D", 6, False),  # 004: Rey+As+5=16, la mano cuenta 6
        ("7S 8H", 5, False),  # 002: 7 + 8 = 15 se puntúa como 5
        ("4C 4D", 8, True),
        ("QC KD", 0, False),
    ],
)
def test_004_and_002_totals_keep_the_units_digit(cards: str, points: int, natural: bool) -> None:
    hand = parse_cards(cards)
    assert total(hand) == points
    assert is_natural(hand) is natural


def test_a_natural_is_two_cards_only_and_a_pair_is_one_rank() -> None:
    assert not is_natural(parse_cards("2S 3S 3H"))  # 8 in three cards is no natural
    assert is_pair(parse_cards("KS KH"))
    assert not is_pair(parse_cards("KS QH"))  # both count 0 but are not a pair


@pytest.mark.parametrize("points", range(8))
def test_004_punto_draws_on_0_to_5_and_stands_on_6_and_7(points: int) -> None:
    """004, Reglas de la tercera carta, Punto: 1-2-3-4-5-0 se reparte; 6-7 se planta."""
    assert player_draws(points) is (points <= 5)


# 004, Mano de la Banca: every banker total 0-7 against every player third card (value
# 0-9), and against a player who stood (None). Hand-written from the seed's table.
BANKER_TABLE = {
    # total: (third-card values that make the banker draw, draws when the player stood)
    0: (set(range(10)), True),
    1: (set(range(10)), True),
    2: (set(range(10)), True),
    3: ({1, 2, 3, 4, 5, 6, 7, 9, 0}, True),
    4: ({2, 3, 4, 5, 6, 7}, True),
    5: ({4, 5, 6, 7}, True),
    6: ({6, 7}, False),
    7: (set(), False),
}


@pytest.mark.parametrize("banker", range(8))
@pytest.mark.parametrize("third", [*range(10), None])
def test_004_banker_tableau_every_cell(banker: int, third: int | None) -> None:
    """004, Mano de la Banca (and 002, Jugabilidad 2-3, which agrees): all 88 cells."""
    draws_on, draws_when_stood = BANKER_TABLE[banker]
    card = None if third is None else CARD_OF_VALUE[third]
    expected = draws_when_stood if third is None else third in draws_on
    assert banker_draws(banker, card) is expected


def test_004_banker_six_stands_when_the_player_did_not_draw() -> None:
    """004: '6 (Se planta si el Punto no reparte una tercera carta)'."""
    assert banker_draws(6, None) is False
    assert banker_draws(6, CARD_OF_VALUE[6]) is True


@pytest.mark.parametrize(
    ("points", "strict", "expected"),
    [(p, False, Verdict(Draw.MUST)) for p in range(5)]
    + [(5, False, Verdict(Draw.MAY)), (6, False, Verdict(Draw.MUST_NOT))]
    + [(7, False, Verdict(Draw.MUST_NOT))]
    + [(p, True, Verdict(Draw.MUST)) for p in range(5)]
    + [(5, True, Verdict(Draw.MUST_NOT)), (6, True, Verdict(Draw.MUST_NOT))]
    + [(7, True, Verdict(Draw.MUST_NOT))],
)
def test_002_representative_draws_0_to_4_chooses_at_5_stands_6_and_7(
    points: int, strict: bool, expected: Verdict
) -> None:
    """002, Jugabilidad 1: total 0-4 pedir; 5 a elección (mesas estrictas: plantarse);
    6 o 7 plantarse."""
    assert representative_rule(points, strict_five=strict) == expected


def test_the_engine_and_the_odds_read_the_same_tableau() -> None:
    """table.odds keeps its own copy of 004's tableau: the two must agree in every cell."""
    from table.odds import baccarat as odds

    for points in range(8):
        assert player_draws(points) is odds.player_draws(points)
        for third in [*range(10), None]:
            card = None if third is None else CARD_OF_VALUE[third]
            assert banker_draws(points, card) is odds.banker_draws(points, third), (points, third)
    for rank in Rank:
        assert card_value(Card(rank, Suit.HEARTS)) == odds.card_value(rank)
