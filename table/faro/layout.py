"""The Faro layout: the 13 spades in two rows with the seven at the end, and which ranks
lie next to which (003's betting diagram).

::

    A  2  3  4  5  6
                      7
    K  Q  J  10 9  8

A group bet covers two, three or four ranks that touch on this board.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache
from itertools import combinations
from typing import NamedTuple

from table.cards import Rank

TOP_ROW: tuple[Rank, ...] = (Rank.ACE, Rank.TWO, Rank.THREE, Rank.FOUR, Rank.FIVE, Rank.SIX)
BOTTOM_ROW: tuple[Rank, ...] = (
    Rank.KING, Rank.QUEEN, Rank.JACK, Rank.TEN, Rank.NINE, Rank.EIGHT,
)  # fmt: skip

# (row, column); the seven sits at the end between the rows.
POSITIONS: dict[Rank, tuple[int, int]] = {rank: (0, col) for col, rank in enumerate(TOP_ROW)}
POSITIONS.update({rank: (1, col) for col, rank in enumerate(BOTTOM_ROW)})


# Where the seven stands, in the same (row, column) units: at the end, half way between.
SEVEN_AT = (0.5, 6.0)


class ChipPlace(NamedTuple):
    """Where a bet's chips lie, in (row, column) units of the layout (the seven at
    :data:`SEVEN_AT`); ``outward`` is -1 above the top row's edge, 1 below the bottom row's,
    0 where ``row`` and ``column`` place them."""

    row: float
    column: float
    outward: int = 0


def _cell(rank: Rank) -> tuple[float, float]:
    return SEVEN_AT if rank is Rank.SEVEN else POSITIONS[rank]


# How far from a losing card's middle toward the winning card a win-and-lose bet lies: at
# the card's edge, on the card (003).
_TOWARD_THE_WINNER = 0.3


def chip_place(ranks: Iterable[Rank], loser: Rank | None = None) -> ChipPlace:
    """Where a bet on ``ranks`` lies, as on the felt (003): on the card of a single rank;
    where a group's cards meet, the middle of the block they span (between two neighbours,
    on the corner of a square or a right angle); and where that is the middle of a card
    (three in a row, two ranks one apart) off that card's outer edge, so that it is not
    taken for a bet on that card alone.

    A bet that one rank wins and ``loser`` loses lies on the losing card, at its edge toward
    the winning one, and off the outer edge when a card lies between them (003)."""
    cells = [_cell(rank) for rank in set(ranks)]
    rows, columns = [cell[0] for cell in cells], [cell[1] for cell in cells]
    row, column = (min(rows) + max(rows)) / 2, (min(columns) + max(columns)) / 2
    between = len(cells) > 1 and (row, column) in POSITIONS.values()
    outward = (-1 if row == 0 else 1) if between else 0
    if loser is not None:
        (loser_row, loser_column) = _cell(loser)
        (winner_row, winner_column) = next(cell for cell in cells if cell != _cell(loser))
        return ChipPlace(
            loser_row + _TOWARD_THE_WINNER * (winner_row - loser_row) / (2 if between else 1),
            loser_column
            + _TOWARD_THE_WINNER * (winner_column - loser_column) / (2 if between else 1),
            outward,
        )
    return ChipPlace(row, column, outward)


def _pair_shape(first: Rank, second: Rank) -> str | None:
    if Rank.SEVEN in (first, second):
        other = second if first is Rank.SEVEN else first
        return "beside the seven" if other in (Rank.SIX, Rank.EIGHT) else None
    (row_a, col_a), (row_b, col_b) = POSITIONS[first], POSITIONS[second]
    if row_a == row_b and abs(col_a - col_b) == 1:
        return "horizontal neighbours"
    if row_a == row_b and abs(col_a - col_b) == 2:
        return "one apart"
    if col_a == col_b:
        return "vertical neighbours"
    if abs(col_a - col_b) == 1:
        return "diagonal neighbours"
    return None


def _triple_shape(ranks: tuple[Rank, ...]) -> str | None:
    if set(ranks) == {Rank.SIX, Rank.SEVEN, Rank.EIGHT}:
        return "six, seven and eight"
    if Rank.SEVEN in ranks:
        return None
    cells = [POSITIONS[rank] for rank in ranks]
    rows = {row for row, _ in cells}
    cols = sorted(col for _, col in cells)
    if len(rows) == 1 and cols[2] - cols[0] == 2 and len(set(cols)) == 3:
        return "three in a row"
    if len(rows) == 2 and len(set(cols)) == 2 and cols[-1] - cols[0] == 1:
        return "right angle"
    return None


def _square_shape(ranks: tuple[Rank, ...]) -> str | None:
    if Rank.SEVEN in ranks:
        return None
    cells = {POSITIONS[rank] for rank in ranks}
    cols = sorted({col for _, col in cells})
    if len(cols) == 2 and cols[1] - cols[0] == 1 and len(cells) == 4:
        return "square"
    return None


def group_shape(ranks: Iterable[Rank]) -> str | None:
    """How these ranks lie together on the layout, or None when they are no legal group."""
    group = tuple(sorted(set(ranks)))
    if len(group) == 1:
        return "single rank"
    if len(group) == 2:
        return _pair_shape(*group)
    if len(group) == 3:
        return _triple_shape(group)
    if len(group) == 4:
        return _square_shape(group)
    return None


@cache
def legal_groups(size: int) -> tuple[tuple[Rank, ...], ...]:
    """Every legal group of ``size`` ranks, in rank order (for displays, punters and tests)."""
    return tuple(
        combo for combo in combinations(tuple(Rank), size) if group_shape(combo) is not None
    )
