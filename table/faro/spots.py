"""Where a Faro bet lies: a rank, a group of adjacent ranks, a win-and-lose pair, or a
standing spot (high card, odd, even, and Dutch Faro's red and black).

Spots are written as in the table language: ``9``, ``4+5+9+10``, ``J>K`` (the jack to
win and the king to lose), ``high``, ``odd``, ``even``, ``red``, ``black``.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from functools import lru_cache

from table.cards import Rank
from table.errors import BetRefusedError
from table.faro.layout import ChipPlace, chip_place, group_shape
from table.text import ascii_lower


class SpotKind(enum.Enum):
    RANK = "rank"
    GROUP = "group"
    WIN_LOSE = "win-lose"
    HIGH = "high"
    ODD = "odd"
    EVEN = "even"
    RED = "red"
    BLACK = "black"
    CALL = "call"

    __hash__ = object.__hash__  # as Suit's: a member is its one instance


STANDING_KINDS = frozenset(
    {SpotKind.HIGH, SpotKind.ODD, SpotKind.EVEN, SpotKind.RED, SpotKind.BLACK}
)
COLOUR_KINDS = frozenset({SpotKind.RED, SpotKind.BLACK})
# 003: high card and odd/even stay on the layout until the punter withdraws them, so they
# stand from one deal to the next; no seed says so of Dutch Faro's colours.
UNTIL_WITHDRAWN_KINDS = frozenset({SpotKind.HIGH, SpotKind.ODD, SpotKind.EVEN})


@dataclass(frozen=True, slots=True)
class Spot:
    kind: SpotKind
    ranks: tuple[Rank, ...] = ()
    # Derived once: a spot is read on every settlement.
    text: str = field(init=False, compare=False)
    standing: bool = field(init=False, compare=False)

    def __post_init__(self) -> None:
        if self.kind is SpotKind.WIN_LOSE:
            text = f"{self.ranks[0].label}>{self.ranks[1].label}"
        elif self.kind in (SpotKind.RANK, SpotKind.GROUP):
            text = "+".join(rank.label for rank in self.ranks)
        else:
            text = self.kind.value
        object.__setattr__(self, "text", text)
        object.__setattr__(self, "standing", self.kind in STANDING_KINDS)

    @property
    def loser(self) -> Rank | None:
        """The rank a win-and-lose bet backs to lose (written second: ``J>K``)."""
        return self.ranks[1] if self.kind is SpotKind.WIN_LOSE else None

    @property
    def place(self) -> ChipPlace:
        """Where the bet's chips lie on the layout (see :func:`chip_place`)."""
        return chip_place(self.ranks, self.loser)

    @property
    def shape(self) -> str:
        if self.kind is SpotKind.WIN_LOSE:
            return "one to win, one to lose"
        return group_shape(self.ranks) or self.kind.value

    def __str__(self) -> str:
        return self.text


CALL_SPOT = Spot(SpotKind.CALL)
# Said at a Faro table by a dealer who also deals baccarat: named as such.
_BACCARAT_SIDES = frozenset(
    ("player", "banker", "tie", "player-pair", "banker-pair", "punto", "banca", "left", "right")
)
_NAMED = {kind.value: Spot(kind) for kind in STANDING_KINDS}


@lru_cache(maxsize=1024)
def parse_spot(text: str) -> Spot:
    """Read a spot as written in the table language; errors say what a spot may be."""
    cleaned = ascii_lower(text.strip())
    named = _NAMED.get(cleaned)
    if named is not None:
        return named
    if cleaned == "call":
        return CALL_SPOT
    try:
        if ">" in cleaned:
            win_text, _, lose_text = cleaned.partition(">")
            win, lose = Rank.parse(win_text), Rank.parse(lose_text)
            if win is lose or group_shape((win, lose)) is None:
                raise BetRefusedError(
                    f"spot {text!r}: a win-and-lose bet needs two different ranks that lie "
                    "next to each other or one apart on the layout"
                )
            return Spot(SpotKind.WIN_LOSE, (win, lose))
        ranks = tuple(sorted({Rank.parse(part) for part in cleaned.split("+")}))
    except BetRefusedError:
        raise
    except ValueError:
        baccarat = " is a baccarat side" if cleaned in _BACCARAT_SIDES else ""
        raise BetRefusedError(
            f"not a spot: {text!r}{baccarat} (expected a rank such as 9, a group such as "
            "4+5+9+10, a win-and-lose pair such as J>K, or high, odd, even, red, black)"
        ) from None
    if len(ranks) != len(cleaned.split("+")):
        raise BetRefusedError(f"spot {text!r} names a rank twice")
    if len(ranks) > 1 and group_shape(ranks) is None:
        raise BetRefusedError(
            f"spot {text!r}: these ranks do not lie together on the layout (a group is two to "
            "four ranks that touch: neighbours, one apart, three in a row or at a right angle, "
            "six-seven-eight, or a square)"
        )
    return Spot(SpotKind.RANK if len(ranks) == 1 else SpotKind.GROUP, ranks)
