"""The baccarat family's card values, drawing tableau and shoe, as the odds need them.

A small self-contained copy of the rules, so that the odds do not wait for the baccarat
engine; the rules are those of the seeds:

* 004 (Punto Banco): ace 1, two to nine their face value, ten and the faces 0; a hand counts
  its total's last digit. The player has cards 1 and 3, the banker 2 and 4. A two-card 8 or 9
  on either side is a natural: no more cards. Otherwise the player draws on 0-5 and stands
  on 6-7. The banker draws on 0-2; on 3 unless the player's third card is an 8; on 4 if it
  is 2-7; on 5 if it is 4-7; on 6 if it is 6-7; stands on 7. When the player stood the
  banker draws on 0-5 and stands on 6-7.
* 002 (Chemin de Fer): the same values and the same banker table when the player drew; the
  player's 5 is a choice; when the player stood the banker "generally follows the Punto
  Banco logic". The banker may deviate from the table anywhere.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction

from table.cards import STANDARD_52, Card, Rank
from table.errors import TableError

MAX_DECKS = 8
# Six cards at most make a coup: the odds of a shoe with fewer are not one coup's odds.
CARDS_PER_COUP = 6


def check_commission(commission: Fraction) -> None:
    """A commission is a share of the win it is taken from (a percent is for people)."""
    if not 0 <= commission < 1:
        raise TableError(
            f"a commission is a share of a win, 0 to under 1 (5% is 1/20), not {commission}"
        )


def card_value(rank: Rank) -> int:
    """004: ace 1, two to nine at face value, ten and the faces nothing."""
    return rank.value if rank.value < 10 else 0


def hand_total(values: Iterable[int]) -> int:
    return sum(values) % 10


def is_natural(total: int) -> bool:
    return total >= 8


def player_draws(player_total: int) -> bool:
    """004's player column: draw on 0-5, stand on 6-7 (naturals never reach it)."""
    return player_total <= 5


def banker_draws(banker_total: int, player_third: int | None) -> bool:
    """004's banker table (and 002's standard table); ``player_third`` is the value of the
    player's third card, None when the player stood."""
    if player_third is None:
        return banker_total <= 5
    if banker_total <= 2:
        return True
    if banker_total == 3:
        return player_third != 8
    if banker_total == 4:
        return 2 <= player_third <= 7
    if banker_total == 5:
        return 4 <= player_third <= 7
    if banker_total == 6:
        return player_third in (6, 7)
    return False


@dataclass(frozen=True, slots=True)
class BaccaratShoe:
    """How many cards of each rank a shoe holds (suits do not matter in baccarat)."""

    decks: int
    rank_counts: tuple[int, ...]  # by rank, ace first

    @classmethod
    def full(cls, decks: int) -> BaccaratShoe:
        if isinstance(decks, bool) or not isinstance(decks, int) or not 1 <= decks <= MAX_DECKS:
            raise TableError(f"a baccarat shoe holds 1 to {MAX_DECKS} decks, not {decks!r}")
        return cls(decks, (4 * decks,) * 13)

    def without(self, cards_out: Iterable[Card]) -> BaccaratShoe:
        """The shoe once ``cards_out`` have been dealt; refuses cards the shoe cannot hold."""
        out = list(cards_out)
        for card, count in sorted(Counter(out).items()):
            if card not in STANDARD_52:
                raise TableError(f"impossible shoe: {card} is not a baccarat card")
            if count > self.decks:
                raise TableError(
                    f"impossible shoe: {card} out {count} times from a {self.decks}-deck shoe"
                )
        counts = list(self.rank_counts)
        for card in out:
            counts[card.rank.value - 1] -= 1
        for rank in Rank:
            if counts[rank.value - 1] < 0:
                held = self.rank_counts[rank.value - 1]
                raise TableError(
                    f"impossible shoe: more {rank.label}s out than the {held} the shoe held"
                )
        shoe = BaccaratShoe(self.decks, tuple(counts))
        if shoe.size < CARDS_PER_COUP:
            raise TableError(
                f"only {shoe.size} cards left: a coup may need {CARDS_PER_COUP}; "
                "the shoe is due for a new shuffle"
            )
        return shoe

    @property
    def size(self) -> int:
        return sum(self.rank_counts)

    def value_counts(self) -> list[int]:
        """Cards of each baccarat value 0 to 9."""
        values = [0] * 10
        for rank in Rank:
            values[card_value(rank)] += self.rank_counts[rank.value - 1]
        return values

    def describe(self) -> str:
        full = self.size == 52 * self.decks
        return f"{self.decks}-deck shoe" + ("" if full else f", {self.size} cards left")


def falling(n: int, k: int) -> int:
    """``n (n-1) ... (n-k+1)``: the ordered ways to draw ``k`` of ``n`` cards."""
    result = 1
    for i in range(k):
        result *= n - i
    return result
