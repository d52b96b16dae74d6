from __future__ import annotations

import pytest

from table.cards import (
    MONTE_BANK_40,
    STANDARD_52,
    Card,
    Colour,
    Rank,
    Suit,
    find_deck,
    parse_cards,
)
from table.errors import CardParseError


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("10h", "10H"),
        ("QH", "QH"),
        ("Q♥", "QH"),
        ("TH", "10H"),
        ("as", "AS"),
        (" k♣ ", "KC"),
        ("10♦", "10D"),
        ("t♠", "10S"),
    ],
)
def test_cards_parse_from_every_written_form(text: str, code: str) -> None:
    card = Card.parse(text)
    assert str(card) == code
    assert Card.parse(str(card)) == card


def test_every_card_round_trips_through_its_code_its_symbol_and_its_repr() -> None:
    for card in STANDARD_52:
        assert Card.parse(card.code) == card
        assert Card.parse(card.pretty) == card
        assert eval(repr(card)) == card
    assert len(set(STANDARD_52)) == 52


@pytest.mark.parametrize("text", ["", "Q", "11H", "QX", "HQ", "1C", "10", "joker", "QHH"])
def test_unreadable_cards_raise_a_clear_error(text: str) -> None:
    with pytest.raises(CardParseError, match="not a card"):
        Card.parse(text)


def test_a_card_parse_error_is_a_value_error() -> None:
    with pytest.raises(ValueError):
        Card.parse("ZZ")


def test_colours_and_ranks() -> None:
    assert Card.parse("QH").colour is Colour.RED
    assert Card.parse("QD").colour is Colour.RED
    assert Card.parse("QS").colour is Colour.BLACK
    assert Suit.parse("♣") is Suit.CLUBS
    assert Rank.parse("t") is Rank.TEN
    assert Rank.ACE < Rank.TWO < Rank.KING  # ace low, as Faro's high card counts it
    assert [r.label for r in Rank] == [
        "A",
        "2",
        "3",
        "4",
        "5",
        "6",
        "7",
        "8",
        "9",
        "10",
        "J",
        "Q",
        "K",
    ]


def test_monte_bank_deck_has_40_cards_and_no_8_9_10() -> None:
    """000, Variantes: Monte Bank uses a 40-card Spanish-style deck without 8s, 9s and 10s."""
    assert len(MONTE_BANK_40) == 40
    assert {card.rank for card in MONTE_BANK_40}.isdisjoint({Rank.EIGHT, Rank.NINE, Rank.TEN})
    assert Card.parse("9H") not in MONTE_BANK_40
    assert find_deck("standard-52") is STANDARD_52
    with pytest.raises(CardParseError, match="unknown deck"):
        find_deck("tarot")


def test_parse_cards_reads_lists() -> None:
    assert parse_cards("KD, 9C 10h") == [Card.parse("KD"), Card.parse("9C"), Card.parse("10H")]


@pytest.mark.parametrize(
    ("text", "read_as"),
    [("Q\u017f", "QS"), ("10\u017f", "10S"), ("\u212a\u2665", "KH"), ("\u212aD", "KD")],
)
def test_a_letter_of_another_alphabet_is_no_rank_or_suit_though_its_case_maps_to_one(
    text: str, read_as: str
) -> None:
    """Python's upper() reads the long s (U+017F) as 'S', and lower() the Kelvin sign
    (U+212A) as 'k': a card named with them, by a reader's garbled code or a keyboard's, is
    not the card."""
    with pytest.raises(CardParseError, match="not a card"):
        Card.parse(text)
    with pytest.raises(CardParseError, match="not a colour"):
        Colour.parse("blac\u212a")
    assert str(Card.parse(read_as.lower())) == read_as


@pytest.mark.parametrize("text", ["Q H", "10 h", "1 0H", "Q\tH", "K\n♣", "Q\u00a0H"])
def test_a_card_with_a_space_inside_it_is_refused_not_glued_together(text: str) -> None:
    """Spaces around a card are a reader's or a typist's slack; a space, tab or line break
    inside one means two words (a sticker read in pieces, a rank and a suit sent apart), and
    the table does not guess which card was meant."""
    with pytest.raises(CardParseError, match=r"not a card: .* space inside it"):
        Card.parse(text)
