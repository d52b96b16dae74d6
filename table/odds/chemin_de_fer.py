"""Chemin de Fer's choices, valued exactly for any shoe (002).

The punter holding the player's cards chooses at a two-card 5: draw or stand. The banker,
seeing his own two cards and the player's third card (or that the player stood), may draw
or stand wherever he likes; 002 gives a standard table (the Punto Banco tableau of 004).
For every such moment this module gives the expected value of drawing and of standing,
per unit staked, for the side that chooses, given the shoe:

* at the player's 5 the other side plays 002's standard table;
* at the banker's choices the player draws on 0-4, stands on 6-7, and draws at 5 with the
  chance ``player_draws_at_five`` (1: the Punto Banco rule, 0: a strict table that makes
  the player stand, anything between: a player the banker cannot read).

Naturals are shown at once (002), so a choice is only ever made when neither side has one.
A bank's win pays the house ``commission`` (5% in French casinos, none at home); ties carry
the bets over, so they count as nothing won or lost.

Counting follows :mod:`table.odds.punto_banco`: every weight counts ordered six-card draws.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from table.errors import TableError
from table.odds.baccarat import (
    CARDS_PER_COUP,
    BaccaratShoe,
    banker_draws,
    check_commission,
    falling,
)
from table.odds.json_fractions import JsonValue, fraction_text

STOOD = 10  # the column of a banker's choice when the player took no third card
COLUMNS = 11


@dataclass(frozen=True, slots=True)
class Choice:
    """One moment of choice: the chance a coup reaches it, and what each action is worth to
    the side that chooses (the punter at the player's 5, the bank at the banker's)."""

    side: str  # "player" or "banker"
    total: int  # the chooser's two-card total
    player_third: int | None  # the banker's choices: the player's third card; None: stood
    reach: Fraction
    draw: Fraction
    stand: Fraction
    table: str  # what 002's standard table does: "draw" or "stand"

    @property
    def best(self) -> str:
        if self.draw == self.stand:
            return "either"
        return "draw" if self.draw > self.stand else "stand"

    @property
    def situation(self) -> str:
        if self.side == "player":
            return f"player {self.total}"
        third = (
            "player stood" if self.player_third is None else f"player's third {self.player_third}"
        )
        return f"banker {self.total}, {third}"

    def to_json(self) -> dict[str, JsonValue]:
        return {
            "side": self.side,
            "total": self.total,
            "player_third": self.player_third,
            "reach": fraction_text(self.reach),
            "draw": fraction_text(self.draw),
            "stand": fraction_text(self.stand),
            "table": self.table,
            "best": self.best,
        }


@dataclass(frozen=True, slots=True)
class CheminDeFerOdds:
    shoe: BaccaratShoe
    commission: Fraction
    player_draws_at_five: Fraction
    player_five: Choice | None  # None: no coup from this shoe gives the player a 5
    banker: tuple[Choice, ...]  # banker totals 0-7, each against a stood player and 0-9
    bank_gain_by_table: Fraction  # the bank's expected gain a coup playing the table
    bank_gain_playing_best: Fraction  # ... choosing the better action at every moment

    def banker_choice(self, total: int, player_third: int | None) -> Choice:
        for choice in self.banker:
            if choice.total == total and choice.player_third == player_third:
                return choice
        raise TableError(f"no banker choice at {total} against {player_third}")

    def to_json(self) -> dict[str, JsonValue]:
        return {
            "game": "chemin-de-fer",
            "decks": self.shoe.decks,
            "cards_left": self.shoe.size,
            "commission": fraction_text(self.commission),
            "player_draws_at_five": fraction_text(self.player_draws_at_five),
            "player_five": None if self.player_five is None else self.player_five.to_json(),
            "banker": [choice.to_json() for choice in self.banker],
            "bank_gain_by_table": fraction_text(self.bank_gain_by_table),
            "bank_gain_playing_best": fraction_text(self.bank_gain_playing_best),
        }


def _hands(values: list[int]) -> list[tuple[int, int, int]]:
    hands = []
    for first in range(10):
        for second in range(first, 10):
            ways = (
                values[first] * (values[first] - 1)
                if first == second
                else 2 * values[first] * values[second]
            )
            if ways:
                hands.append((first, second, ways))
    return hands


def _compare(player: int, banker: int) -> int:
    """+1 the banker wins, -1 the player wins, 0 a tie."""
    return (banker > player) - (player > banker)


class _Tally:
    """Ordered six-card draws, summed by the bank's result: wins and losses."""

    __slots__ = ("losses", "reach", "wins")

    def __init__(self) -> None:
        self.reach = 0
        self.wins = 0
        self.losses = 0

    def add(self, result: int, ways: int) -> None:
        if result > 0:
            self.wins += ways
        elif result < 0:
            self.losses += ways


def _banker_outcomes(
    values: list[int], player: int, banker: int, scale: int, tally: _Tally
) -> None:
    """The banker draws one card: add each result, ``scale`` ways for each card."""
    for third in range(10):
        if values[third]:
            tally.add(_compare(player, (banker + third) % 10), scale * values[third])


def chemin_de_fer_odds(
    shoe: BaccaratShoe,
    *,
    commission: Fraction = Fraction(1, 20),
    player_draws_at_five: Fraction = Fraction(1),
) -> CheminDeFerOdds:
    """The value of drawing and of standing at every choice of a coup from this shoe."""
    check_commission(commission)
    if not 0 <= player_draws_at_five <= 1:
        raise TableError(f"the player draws at 5 with a chance 0 to 1, not {player_draws_at_five}")
    if shoe.size < CARDS_PER_COUP:
        raise TableError(f"a coup may need {CARDS_PER_COUP} cards; the shoe holds {shoe.size}")
    values = shoe.value_counts()
    size = shoe.size
    after_four = (size - 4) * (size - 5)
    after_five = size - 5
    # [player had 5][banker total][column]: drawing and standing at each banker choice.
    draw = [[[_Tally() for _ in range(COLUMNS)] for _ in range(8)] for _ in range(2)]
    stand = [[[_Tally() for _ in range(COLUMNS)] for _ in range(8)] for _ in range(2)]
    naturals = _Tally()
    five_draw, five_stand = _Tally(), _Tally()
    for p1, p2, player_ways in _hands(values):
        values[p1] -= 1
        values[p2] -= 1
        player = (p1 + p2) % 10
        for b1, b2, banker_ways in _hands(values):
            values[b1] -= 1
            values[b2] -= 1
            banker = (b1 + b2) % 10
            ways = player_ways * banker_ways
            if player >= 8 or banker >= 8:
                naturals.add(_compare(player, banker), ways * after_four)
            else:
                five = 1 if player == 5 else 0
                if player >= 5:
                    _stood(values, player, banker, ways, after_four, after_five, draw, stand, five)
                    if five:
                        five_stand.reach += ways * after_four
                        _table_stood(values, player, banker, ways, after_five, five_stand)
                if player <= 5:
                    _drew(values, player, banker, ways, after_five, draw, stand, five, five_draw)
            values[b1] += 1
            values[b2] += 1
        values[p1] += 1
        values[p2] += 1
    return _summarise(
        shoe, commission, player_draws_at_five, draw, stand, naturals, five_draw, five_stand
    )


def _stood(
    values: list[int],
    player: int,
    banker: int,
    ways: int,
    after_four: int,
    after_five: int,
    draw: list[list[list[_Tally]]],
    stand: list[list[list[_Tally]]],
    five: int,
) -> None:
    drawing = draw[five][banker][STOOD]
    standing = stand[five][banker][STOOD]
    drawing.reach += ways * after_four
    standing.reach += ways * after_four
    _banker_outcomes(values, player, banker, ways * after_five, drawing)
    standing.add(_compare(player, banker), ways * after_four)


def _table_stood(
    values: list[int],
    player: int,
    banker: int,
    ways: int,
    after_five: int,
    tally: _Tally,
) -> None:
    if banker_draws(banker, None):
        _banker_outcomes(values, player, banker, ways * after_five, tally)
    else:
        tally.add(_compare(player, banker), ways * (after_five + 1) * after_five)


def _drew(
    values: list[int],
    player: int,
    banker: int,
    ways: int,
    after_five: int,
    draw: list[list[list[_Tally]]],
    stand: list[list[list[_Tally]]],
    five: int,
    five_draw: _Tally,
) -> None:
    for third in range(10):
        third_ways = ways * values[third]
        if not third_ways:
            continue
        final = (player + third) % 10
        drawing = draw[five][banker][third]
        standing = stand[five][banker][third]
        drawing.reach += third_ways * after_five
        standing.reach += third_ways * after_five
        values[third] -= 1
        _banker_outcomes(values, final, banker, third_ways, drawing)
        standing.add(_compare(final, banker), third_ways * after_five)
        if five:
            if banker_draws(banker, third):
                _banker_outcomes(values, final, banker, third_ways, five_draw)
            else:
                five_draw.add(_compare(final, banker), third_ways * after_five)
        values[third] += 1


def _summarise(
    shoe: BaccaratShoe,
    commission: Fraction,
    draws_at_five: Fraction,
    draw: list[list[list[_Tally]]],
    stand: list[list[list[_Tally]]],
    naturals: _Tally,
    five_draw: _Tally,
    five_stand: _Tally,
) -> CheminDeFerOdds:
    all_draws = falling(shoe.size, CARDS_PER_COUP)
    keep = 1 - commission

    def bank_value(tally: _Tally) -> Fraction:
        return tally.wins * keep - tally.losses

    choices = []
    by_table = bank_value(naturals)
    playing_best = by_table
    for banker in range(8):
        for column in (STOOD, *range(10)):
            # The player's 5 reaches the stood column when he stands, the others when he draws.
            five_weight = (1 - draws_at_five) if column == STOOD else draws_at_five
            parts = (
                (draw[0][banker][column], stand[0][banker][column], Fraction(1)),
                (draw[1][banker][column], stand[1][banker][column], five_weight),
            )
            reach = sum((weight * d.reach for d, _, weight in parts), Fraction(0))
            draw_value = sum((weight * bank_value(d) for d, _, weight in parts), Fraction(0))
            stand_value = sum((weight * bank_value(s) for _, s, weight in parts), Fraction(0))
            third = None if column == STOOD else column
            table = "draw" if banker_draws(banker, third) else "stand"
            by_table += draw_value if table == "draw" else stand_value
            playing_best += max(draw_value, stand_value)
            if reach:
                choices.append(
                    Choice(
                        side="banker",
                        total=banker,
                        player_third=third,
                        reach=reach / all_draws,
                        draw=draw_value / reach,
                        stand=stand_value / reach,
                        table=table,
                    )
                )
    # A late shoe may hold no two cards that make a 5: the player has no choice to weigh,
    # and the banker's choices are still worth telling.
    player_five = None
    if five_stand.reach:
        # The punter's result is the bank's with the sign turned and no commission.
        player_five = Choice(
            side="player",
            total=5,
            player_third=None,
            reach=Fraction(five_stand.reach, all_draws),
            draw=Fraction(five_draw.losses - five_draw.wins, five_stand.reach),
            stand=Fraction(five_stand.losses - five_stand.wins, five_stand.reach),
            table="choice",
        )
    return CheminDeFerOdds(
        shoe=shoe,
        commission=commission,
        player_draws_at_five=draws_at_five,
        player_five=player_five,
        banker=tuple(choices),
        bank_gain_by_table=by_table / all_draws,
        bank_gain_playing_best=playing_best / all_draws,
    )
