"""Chemin de Fer's choices, checked against every six-card order of small shoes played out
by a plain reference coup that tries both actions at every choice."""

from __future__ import annotations

from collections import Counter, defaultdict
from fractions import Fraction

import pytest

from table.cards import Card, Rank, parse_cards
from table.errors import TableError
from table.odds.baccarat import BaccaratShoe
from table.odds.chemin_de_fer import chemin_de_fer_odds
from tests.baccarat_brute_force import banker_by_table, six_card_orders, value

COMMISSION = Fraction(1, 20)


def shoe_of(cards: list[Card]) -> BaccaratShoe:
    counts = Counter(card.rank for card in cards)
    return BaccaratShoe(1, tuple(counts.get(rank, 0) for rank in Rank))


def bank_result(player: int, banker: int) -> Fraction:
    if banker > player:
        return 1 - COMMISSION
    return Fraction(-1) if player > banker else Fraction(0)


def punter_result(player: int, banker: int) -> int:
    return (player > banker) - (banker > player)


class Reference:
    """Sums over every order: the bank's result of each action at each banker choice."""

    def __init__(self) -> None:
        self.reach: defaultdict[tuple[int, int | None], Fraction] = defaultdict(Fraction)
        self.draw: defaultdict[tuple[int, int | None], Fraction] = defaultdict(Fraction)
        self.stand: defaultdict[tuple[int, int | None], Fraction] = defaultdict(Fraction)
        self.by_table = Fraction(0)
        self.five_reach = 0
        self.five_draw = 0
        self.five_stand = 0

    def banker_choice(
        self, weight: Fraction, player: int, banker: int, third: int | None, next_card: Card
    ) -> None:
        cell = (banker, third)
        drawn = (banker + value(next_card)) % 10
        self.reach[cell] += weight
        self.draw[cell] += weight * bank_result(player, drawn)
        self.stand[cell] += weight * bank_result(player, banker)
        table = drawn if banker_by_table(banker, third) else banker
        self.by_table += weight * bank_result(player, table)

    def play(self, order: tuple[Card, ...], draws_at_five: Fraction) -> None:
        player = (value(order[0]) + value(order[2])) % 10
        banker = (value(order[1]) + value(order[3])) % 10
        if player >= 8 or banker >= 8:
            self.by_table += bank_result(player, banker)
            return
        third = value(order[4])
        drawn_player = (player + third) % 10
        draw_weight = Fraction(1) if player <= 4 else draws_at_five if player == 5 else Fraction(0)
        if draw_weight:
            self.banker_choice(draw_weight, drawn_player, banker, third, order[5])
        if draw_weight != 1:
            self.banker_choice(1 - draw_weight, player, banker, None, order[4])
        if player == 5:
            self.five_reach += 1
            banker_after_draw = (
                (banker + value(order[5])) % 10 if banker_by_table(banker, third) else banker
            )
            self.five_draw += punter_result(drawn_player, banker_after_draw)
            banker_after_stand = (
                (banker + value(order[4])) % 10 if banker_by_table(banker, None) else banker
            )
            self.five_stand += punter_result(player, banker_after_stand)


@pytest.mark.parametrize(
    ("shoe_text", "draws_at_five"),
    [
        ("AS 2H 3D 4C 5S 6H 7D 8C 9S", Fraction(1)),
        ("AS 2H 3D 4C 5S 6H 7D 8C 9S", Fraction(0)),
        ("KS QH 10D 5C 5S 4H 6D 9C 3S", Fraction(1, 3)),
    ],
)
def test_every_choice_matches_every_order_of_a_small_shoe(
    shoe_text: str, draws_at_five: Fraction
) -> None:
    cards = parse_cards(shoe_text)
    reference = Reference()
    orders = 0
    for order in six_card_orders(cards):
        orders += 1
        reference.play(order, draws_at_five)
    odds = chemin_de_fer_odds(
        shoe_of(cards), commission=COMMISSION, player_draws_at_five=draws_at_five
    )
    five = odds.player_five
    assert five.reach == Fraction(reference.five_reach, orders)
    assert five.draw == Fraction(reference.five_draw, reference.five_reach)
    assert five.stand == Fraction(reference.five_stand, reference.five_reach)
    reached = {cell for cell, weight in reference.reach.items() if weight}
    assert {(choice.total, choice.player_third) for choice in odds.banker} == reached
    for choice in odds.banker:
        cell = (choice.total, choice.player_third)
        assert choice.reach == reference.reach[cell] / orders
        assert choice.draw == reference.draw[cell] / reference.reach[cell]
        assert choice.stand == reference.stand[cell] / reference.reach[cell]
        assert choice.table == ("draw" if banker_by_table(*cell) else "stand")
    assert odds.bank_gain_by_table == reference.by_table / orders
    assert odds.bank_gain_playing_best >= odds.bank_gain_by_table


def test_a_six_deck_shoe() -> None:
    odds = chemin_de_fer_odds(BaccaratShoe.full(6))
    # Every banker total 0-7 meets a stood player and each third card.
    assert len(odds.banker) == 8 * 11
    assert sum(choice.reach for choice in odds.banker) < 1
    # Drawing at 5 beats standing while the banker keeps to the table.
    assert odds.player_five.draw > odds.player_five.stand
    # The banker's 3 against an 8: the table's stand is the better action.
    three_eight = odds.banker_choice(3, 8)
    assert three_eight.table == "stand" and three_eight.best == "stand"
    text = odds.to_json()
    assert text["player_draws_at_five"] == "1/1"
    assert len(text["banker"]) == 88  # type: ignore[arg-type]


def test_bad_settings_are_refused() -> None:
    shoe = BaccaratShoe.full(1)
    with pytest.raises(TableError, match=r"a share of a win, 0 to under 1 \(5% is 1/20\), not 2$"):
        chemin_de_fer_odds(shoe, commission=Fraction(2))
    with pytest.raises(TableError, match="draws at 5"):
        chemin_de_fer_odds(shoe, player_draws_at_five=Fraction(3, 2))
    with pytest.raises(TableError, match="no banker choice"):
        chemin_de_fer_odds(shoe).banker_choice(9, None)
