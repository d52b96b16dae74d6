"""Scoreboards: the bead plate, the big road and its three derived roads.

Computed purely from coup results, as baccarat tables show them on their boards:

- **bead plate**: every coup in order, six to a column, ties included;
- **big road**: a column per streak of banker or player wins, going down and turning
  right along the bottom when the column is full or blocked (the dragon tail); ties are
  marks on the last cell, pairs are marks on the cell of their coup;
- **big eye boy, small road, cockroach pig**: red or blue, read from the big road's
  streaks one, two and three columns back: red when the pattern repeats, blue when it
  breaks. A new column compares the lengths of the two columns before it; a cell down a
  column looks at the column ``k`` back: red if it has a cell at that row, blue if it
  stops just above it, red again if it stopped earlier. Each starts at the big road's
  second cell of column ``k`` or first cell of column ``k + 1``, whichever comes first.

>>> coups = [Coup(w) for w in ("banker", "banker", "player", "tie", "player")]
>>> big_road(coups).text()
['BP', 'BP']
>>> big_road(coups).cells[(1, 0)].ties
1
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

from table.events import CoupResult, DealerCorrection, Event, ShoeStarted

ROWS = 6
_LETTER = {"banker": "B", "player": "P", "tie": "T", "red": "R", "blue": "B"}


class Coup(NamedTuple):
    """What a scoreboard needs from a coup result."""

    winner: str  # banker, player or tie
    player_pair: bool = False
    banker_pair: bool = False

    @classmethod
    def from_result(cls, result: CoupResult) -> Coup:
        # The result's winner is its first hand's (the player's; at Banque the right hand's):
        # the pair marked beside it is that hand's too.
        first = next(iter(result.hands), "player")
        return cls(result.winner, first in result.pairs, "banker" in result.pairs)


@dataclass
class Cell:
    """One mark on a board: ``outcome`` is banker, player or tie (bead plate, big road)
    or red or blue (derived roads)."""

    outcome: str
    ties: int = 0
    player_pair: bool = False
    banker_pair: bool = False

    @property
    def letter(self) -> str:
        return _LETTER[self.outcome]


@dataclass
class Road:
    """Cells by (column, row); ``streaks`` lists each logical column's outcomes, which
    the derived roads read (a dragon tail still belongs to its streak)."""

    rows: int = ROWS
    cells: dict[tuple[int, int], Cell] = field(default_factory=dict)
    streaks: list[list[Cell]] = field(default_factory=list)

    @property
    def columns(self) -> int:
        return 1 + max((column for column, _ in self.cells), default=-1)

    def text(self, empty: str = " ") -> list[str]:
        """One string per row, a letter per cell, trailing blanks trimmed."""
        lines = []
        for row in range(self.rows):
            line = "".join(
                self.cells[(column, row)].letter if (column, row) in self.cells else empty
                for column in range(self.columns)
            )
            lines.append(line.rstrip(" "))
        while lines and not lines[-1].strip(empty):
            lines.pop()
        return lines


# The coups the scoreboards show: a whole eight-deck shoe (about 80), and the newest of a
# continuous shuffler's, whose shoe never ends.
COUPS_SHOWN = 160


def follow_shoe(results: list[CoupResult], events: Iterable[Event]) -> None:
    """Keep ``results`` to the coups of the shoe in play as its events come, the newest
    :data:`COUPS_SHOWN` of them: a new shoe starts its scoreboards afresh, and a card voided
    or corrected takes back the result of the coup it ended."""
    for event in events:
        if isinstance(event, ShoeStarted):
            results.clear()
        elif isinstance(event, DealerCorrection) and event.undone:
            # The card undone is of the coup the event carries: a result of that coup came
            # from it, and the corrected card's result follows, if the coup still ends.
            while results and results[-1].coup >= event.deal:
                results.pop()
        elif isinstance(event, CoupResult):
            results.append(event)
    if len(results) > COUPS_SHOWN:
        del results[: len(results) - COUPS_SHOWN]


def coups_of(results: Iterable[CoupResult]) -> list[Coup]:
    return [Coup.from_result(result) for result in results]


def bead_plate(coups: Sequence[Coup], rows: int = ROWS) -> Road:
    """Every coup in order, down each column of ``rows`` then on to the next."""
    road = Road(rows)
    for index, coup in enumerate(coups):
        road.cells[(index // rows, index % rows)] = Cell(
            coup.winner, player_pair=coup.player_pair, banker_pair=coup.banker_pair
        )
    return road


class _Placer:
    """Places streaks on a grid: down a column, then right along the row (dragon tail)."""

    def __init__(self, road: Road) -> None:
        self.road = road
        self.start = -1
        self.position = (-1, 0)
        self.tail = False

    def add(self, cell: Cell, new_streak: bool) -> None:
        road = self.road
        cells = road.cells
        if new_streak:
            column = self.start + 1
            while (column, 0) in cells:
                column += 1
            self.start = column
            self.position = (column, 0)
            self.tail = False
            road.streaks.append([cell])
        else:
            column, row = self.position
            below = (column, row + 1)
            if not self.tail and row + 1 < road.rows and below not in cells:
                self.position = below
            else:
                self.tail = True
                self.position = (column + 1, row)
            road.streaks[-1].append(cell)
        cells[self.position] = cell


def big_road(coups: Sequence[Coup], rows: int = ROWS) -> Road:
    road = Road(rows)
    placer = _Placer(road)
    last: Cell | None = None
    leading_ties = 0
    for coup in coups:
        if coup.winner == "tie":
            if last is None:
                leading_ties += 1
            else:
                last.ties += 1
            continue
        cell = Cell(coup.winner, player_pair=coup.player_pair, banker_pair=coup.banker_pair)
        if last is None:
            cell.ties = leading_ties  # ties before the first win mark the first cell
        placer.add(cell, last is None or last.outcome != coup.winner)
        last = cell
    return road


def derived_colours(big: Road, offset: int) -> list[str]:
    """The red and blue marks of the road reading ``offset`` columns back (1: big eye
    boy, 2: small road, 3: cockroach pig), in order."""
    lengths = [len(streak) for streak in big.streaks]
    colours = []
    for column, length in enumerate(lengths):
        for row in range(length):
            if column < offset or (column == offset and row == 0):
                continue
            if row == 0:
                same = lengths[column - 1] == lengths[column - 1 - offset]
                colours.append("red" if same else "blue")
            else:
                back = lengths[column - offset]
                colours.append("blue" if back == row else "red")
    return colours


def derived_road(big: Road, offset: int, rows: int = ROWS) -> Road:
    road = Road(rows)
    placer = _Placer(road)
    previous = ""
    for colour in derived_colours(big, offset):
        placer.add(Cell(colour), colour != previous)
        previous = colour
    return road


def big_eye_boy(big: Road) -> Road:
    return derived_road(big, 1)


def small_road(big: Road) -> Road:
    return derived_road(big, 2)


def cockroach_pig(big: Road) -> Road:
    return derived_road(big, 3)


@dataclass
class Scoreboard:
    """All five boards of a shoe."""

    bead_plate: Road
    big_road: Road
    big_eye_boy: Road
    small_road: Road
    cockroach_pig: Road

    @classmethod
    def of(cls, coups: Sequence[Coup], rows: int = ROWS) -> Scoreboard:
        big = big_road(coups, rows)
        return cls(
            bead_plate(coups, rows),
            big,
            derived_road(big, 1, rows),
            derived_road(big, 2, rows),
            derived_road(big, 3, rows),
        )
