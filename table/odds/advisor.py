"""The advisor: what the casekeep says about each live rank, for punters who want to know.

A table turns it on or off (a casino may not want it shown; a museum will): the service
asks :func:`advice_for` with the table's setting and puts the answer in the MQTT state, on
the web page and in the exhibit's explanations. Every figure is exact; ``to_json`` writes
fractions as ``"p/q"`` and adds a rounded percentage for a display.

    >>> from table.faro.casekeep import Casekeep
    >>> from table.faro.rules import find_rules
    >>> from table.cards import Card
    >>> from table.events import CardRole
    >>> casekeep = Casekeep(find_rules("classic").deck_spec)
    >>> for turn, text in enumerate(["KS", "KH", "KD"]):
    ...     casekeep.record(Card.parse(text), CardRole.LOSER, turn)
    >>> advice = advise(casekeep, find_rules("classic"))
    >>> king = advice.rank_advice(Card.parse("KC").rank)
    >>> king.cases, king.split_before_settled, king.edge
    (True, Fraction(0, 1), Fraction(0, 1))
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from table.cards import Rank
from table.errors import TableError
from table.faro.casekeep import Casekeep
from table.faro.engine import FaroState, Phase
from table.faro.rules import FaroRules
from table.odds.faro import RankOdds, faro_odds
from table.odds.json_fractions import JsonValue, fraction_text, percent_text


@dataclass(frozen=True, slots=True)
class RankAdvice:
    rank: Rank
    left: int
    split_next_turn: Fraction  # the next turn splits this rank
    split_before_settled: Fraction  # a bet left on it is settled by a split
    edge: Fraction  # the bank's edge on a bet left on it, straight or coppered alike
    hoc: Fraction  # its last card will be the hoc (a bet on it would come back)
    # The house takes a bet on it on its own: not on cases where it takes one only beside a
    # bet on a rank that can still split (003's no_bets_on_cases), but on the last turn.
    taken_alone: bool = True

    @property
    def cases(self) -> bool:
        """One card left: the rank can no longer split."""
        return self.left == 1

    @property
    def note(self) -> str:
        if self.cases and not self.taken_alone:
            return (
                "cases: cannot split, no edge; the house takes it only beside a bet on a rank "
                "that can still split"
            )
        if self.cases:
            return "cases: cannot split, no edge"
        return f"{self.left} left: the bank's edge {percent_text(self.edge, 2)}"

    def to_json(self) -> dict[str, JsonValue]:
        return {
            "rank": self.rank.label,
            "left": self.left,
            "cases": self.cases,
            "split_next_turn": fraction_text(self.split_next_turn),
            "split_before_settled": fraction_text(self.split_before_settled),
            "edge": fraction_text(self.edge),
            "edge_percent": percent_text(self.edge, 2),
            "hoc": fraction_text(self.hoc),
            "taken_alone": self.taken_alone,
            "note": self.note,
        }


@dataclass(frozen=True, slots=True)
class Advice:
    cards_left: int
    expected_splits: Fraction
    ranks: tuple[RankAdvice, ...]
    # "chip of an even stake" where a split takes half: of an odd stake the bank also takes
    # the odd chip, so a bet of 1 or 3 chips pays more (table.odds.faro.split_take).
    edges_per: str = "chip"

    def rank_advice(self, rank: Rank) -> RankAdvice:
        for advice in self.ranks:
            if advice.rank is rank:
                return advice
        raise TableError(f"rank {rank.label} is dead: no advice on it")

    @property
    def lowest_edge(self) -> tuple[Rank, ...]:
        """The live ranks a bet costs least on, of those the house takes a bet on alone: a
        bet it would refuse is no advice."""
        offered = [advice for advice in self.ranks if advice.taken_alone]
        if not offered:
            return ()
        least = min(advice.edge for advice in offered)
        return tuple(advice.rank for advice in offered if advice.edge == least)

    def to_json(self) -> dict[str, JsonValue]:
        return {
            "cards_left": self.cards_left,
            "expected_splits": fraction_text(self.expected_splits),
            "edges_per": self.edges_per,
            "lowest_edge": [rank.label for rank in self.lowest_edge],
            "ranks": [advice.to_json() for advice in self.ranks],
        }


def _rank_advice(odds: RankOdds, cases_taken_alone: bool) -> RankAdvice:
    return RankAdvice(
        rank=odds.rank,
        left=odds.left,
        split_next_turn=odds.split,
        split_before_settled=odds.straight.split,
        edge=odds.straight.edge,
        hoc=odds.hoc,
        taken_alone=cases_taken_alone or odds.left > 1,
    )


def advise(casekeep: Casekeep, rules: FaroRules) -> Advice:
    """Split risk and edge of every live rank, between turns (or before the soda)."""
    odds = faro_odds(casekeep, rules)
    # As the engine has it (003): the three cards of the last turn are backed as usual.
    cases_taken_alone = not rules.no_bets_on_cases or odds.turns_left == 1
    return Advice(
        cards_left=odds.cards_left,
        expected_splits=odds.expected_splits,
        ranks=tuple(_rank_advice(rank_odds, cases_taken_alone) for rank_odds in odds.ranks),
        edges_per=odds.edges_per,
    )


_ADVISED_PHASES = (Phase.AWAITING_SODA, Phase.BETTING, Phase.LOCKED)


def advice_for(state: FaroState, enabled: bool) -> Advice | None:
    """The advice to show for a table's state: None when the table has the advisor off,
    while no bet can be weighed (no deck, a turn half dealt, the deal over), or when the
    rules take no bet on a rank (Dutch Faro's red or black): it would point punters at bets
    the table refuses."""
    if not enabled or state.phase not in _ADVISED_PHASES or state.cards_left < 1:
        return None
    if not state.rules.rank_bets:
        return None
    return advise(state.casekeep, state.rules)
