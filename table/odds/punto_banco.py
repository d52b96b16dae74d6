"""Exact Punto Banco odds for any shoe, by enumerating every coup without replacement.

A coup takes four to six cards. Every way the first cards can come is weighed by how many
ordered ways the shoe can give them; a coup that ends after four or five cards is weighed as
if the sixth (and fifth) were drawn anyway, so that every weight counts ordered six-card
draws and all add up to ``N (N-1) ... (N-5)``. The player's two cards count the same in
either order, and so do the banker's: each unordered pair is visited once, with its weight
doubled when its two values differ.

    >>> odds = punto_banco_odds(BaccaratShoe.full(8))
    >>> round(float(odds.banker), 6), round(float(odds.player), 6), round(float(odds.tie), 6)
    (0.458597, 0.446247, 0.095156)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

from table.errors import TableError
from table.odds.baccarat import (
    CARDS_PER_COUP,
    BaccaratShoe,
    banker_draws,
    check_commission,
    falling,
    player_draws,
)
from table.odds.json_fractions import JsonValue, fraction_text


@dataclass(frozen=True, slots=True)
class PuntoBancoPayouts:
    """What a house pays: 5% commission on the banker, or none with a banker's winning 6
    paid half; the tie at 8 (or 9) to 1; each pair at 11 to 1."""

    commission: Fraction = Fraction(1, 20)
    banker_six_pays_half: bool = False
    tie_pays: int = 8
    pair_pays: int = 11

    def __post_init__(self) -> None:
        check_commission(self.commission)
        if self.tie_pays < 1 or self.pair_pays < 1:
            raise TableError("a tie or a pair pays at least 1 to 1")

    def describe(self) -> str:
        banker = (
            "no commission, a banker's winning 6 pays half"
            if self.banker_six_pays_half
            else f"{float(self.commission) * 100:g}% commission on the banker"
        )
        return f"{banker}; tie {self.tie_pays} to 1; pairs {self.pair_pays} to 1"


@dataclass(frozen=True, slots=True)
class BetEdge:
    bet: str
    pays: str
    win: Fraction
    edge: Fraction  # the house's expected gain per unit bet; a push counts as a bet

    def to_json(self) -> dict[str, JsonValue]:
        return {
            "bet": self.bet,
            "pays": self.pays,
            "win": fraction_text(self.win),
            "edge": fraction_text(self.edge),
        }


@dataclass(frozen=True, slots=True)
class PuntoBancoOdds:
    shoe: BaccaratShoe
    payouts: PuntoBancoPayouts
    banker: Fraction
    player: Fraction
    tie: Fraction
    banker_with_six: Fraction  # the banker wins with a total of 6
    player_pair: Fraction  # the player's first two cards are of one rank
    banker_pair: Fraction
    edges: tuple[BetEdge, ...] = field(default=())

    def edge(self, bet: str) -> BetEdge:
        for edge in self.edges:
            if edge.bet == bet:
                return edge
        known = ", ".join(edge.bet for edge in self.edges)
        raise TableError(f"unknown Punto Banco bet {bet!r} (known: {known})")

    def to_json(self) -> dict[str, JsonValue]:
        return {
            "game": "punto-banco",
            "decks": self.shoe.decks,
            "cards_left": self.shoe.size,
            "payouts": self.payouts.describe(),
            "banker": fraction_text(self.banker),
            "player": fraction_text(self.player),
            "tie": fraction_text(self.tie),
            "banker_with_six": fraction_text(self.banker_with_six),
            "player_pair": fraction_text(self.player_pair),
            "banker_pair": fraction_text(self.banker_pair),
            "edges": [edge.to_json() for edge in self.edges],
        }


@dataclass(slots=True)
class CoupCounts:
    """Ordered six-card draws that end in each result."""

    banker: int = 0
    player: int = 0
    tie: int = 0
    banker_with_six: int = 0


def _settle(counts: CoupCounts, player_total: int, banker_total: int, ways: int) -> None:
    if banker_total > player_total:
        counts.banker += ways
        if banker_total == 6:
            counts.banker_with_six += ways
    elif player_total > banker_total:
        counts.player += ways
    else:
        counts.tie += ways


def _pairs(values: list[int]) -> list[tuple[int, int, int]]:
    """Every two-card hand as (first value, second value, ordered ways to draw it)."""
    hands = []
    for first in range(10):
        for second in range(first, 10):
            if first == second:
                ways = values[first] * (values[first] - 1)
            else:
                ways = 2 * values[first] * values[second]
            if ways:
                hands.append((first, second, ways))
    return hands


def enumerate_coups(shoe: BaccaratShoe) -> CoupCounts:
    """Count every coup the shoe can deal under 004's tableau."""
    if shoe.size < CARDS_PER_COUP:
        raise TableError(f"a coup may need {CARDS_PER_COUP} cards; the shoe holds {shoe.size}")
    values = shoe.value_counts()
    size = shoe.size
    after_four = (size - 4) * (size - 5)
    after_five = size - 5
    counts = CoupCounts()
    for p1, p2, player_ways in _pairs(values):
        values[p1] -= 1
        values[p2] -= 1
        player_total = (p1 + p2) % 10
        for b1, b2, banker_ways in _pairs(values):
            values[b1] -= 1
            values[b2] -= 1
            banker_total = (b1 + b2) % 10
            ways = player_ways * banker_ways
            if player_total >= 8 or banker_total >= 8:
                _settle(counts, player_total, banker_total, ways * after_four)
            elif player_draws(player_total):
                for third in range(10):
                    third_ways = ways * values[third]
                    if not third_ways:
                        continue
                    final_player = (player_total + third) % 10
                    if banker_draws(banker_total, third):
                        values[third] -= 1
                        for banker_third in range(10):
                            if values[banker_third]:
                                _settle(
                                    counts,
                                    final_player,
                                    (banker_total + banker_third) % 10,
                                    third_ways * values[banker_third],
                                )
                        values[third] += 1
                    else:
                        _settle(counts, final_player, banker_total, third_ways * after_five)
            elif banker_draws(banker_total, None):
                for banker_third in range(10):
                    if values[banker_third]:
                        _settle(
                            counts,
                            player_total,
                            (banker_total + banker_third) % 10,
                            ways * values[banker_third] * after_five,
                        )
            else:
                _settle(counts, player_total, banker_total, ways * after_four)
            values[b1] += 1
            values[b2] += 1
        values[p1] += 1
        values[p2] += 1
    return counts


def pair_probability(shoe: BaccaratShoe) -> Fraction:
    """That a hand's first two cards are of one rank (the same for player and banker)."""
    size = shoe.size
    same = sum(count * (count - 1) for count in shoe.rank_counts)
    return Fraction(same, size * (size - 1))


def punto_banco_odds(
    shoe: BaccaratShoe, payouts: PuntoBancoPayouts | None = None
) -> PuntoBancoOdds:
    """Banker, player, tie and pair probabilities, and the house edge of every bet."""
    payouts = payouts or PuntoBancoPayouts()
    counts = enumerate_coups(shoe)
    draws = falling(shoe.size, CARDS_PER_COUP)
    banker = Fraction(counts.banker, draws)
    player = Fraction(counts.player, draws)
    tie = Fraction(counts.tie, draws)
    with_six = Fraction(counts.banker_with_six, draws)
    pair = pair_probability(shoe)
    if payouts.banker_six_pays_half:
        banker_gain = banker - with_six / 2
        banker_pays = "1 to 1, a winning 6 pays 1 to 2"
    else:
        banker_gain = banker * (1 - payouts.commission)
        banker_pays = f"1 to 1 less {float(payouts.commission) * 100:g}% commission"
    edges = (
        BetEdge("banker", banker_pays, banker, player - banker_gain),
        BetEdge("player", "1 to 1", player, banker - player),
        BetEdge("tie", f"{payouts.tie_pays} to 1", tie, 1 - tie * (payouts.tie_pays + 1)),
        BetEdge(
            "player-pair", f"{payouts.pair_pays} to 1", pair, 1 - pair * (payouts.pair_pays + 1)
        ),
        BetEdge(
            "banker-pair", f"{payouts.pair_pays} to 1", pair, 1 - pair * (payouts.pair_pays + 1)
        ),
    )
    return PuntoBancoOdds(
        shoe=shoe,
        payouts=payouts,
        banker=banker,
        player=player,
        tie=tie,
        banker_with_six=with_six,
        player_pair=pair,
        banker_pair=pair,
        edges=edges,
    )
