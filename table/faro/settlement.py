"""How one bet fares in one turn: pure functions from a bet and two cards to a decision.

Every path a bet can take in a turn is here, so that the engine settling a deal, the
worst-case checks before a bet is taken, and the odds all read the same rules.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from table.cards import Card, Colour
from table.events import Outcome
from table.faro.rules import FaroRules
from table.faro.spots import Spot, SpotKind

# Read from module globals: Python 3.11 reads an enum class's member through the hook its
# metaclass's __getattr__ installs, some ten times a global's cost, and every bet a card
# touches is decided here.
_WIN = Outcome.WIN
_LOSE = Outcome.LOSE
_SPLIT = Outcome.SPLIT
_PUSH = Outcome.PUSH
_RANK = SpotKind.RANK
_GROUP = SpotKind.GROUP
_WIN_LOSE = SpotKind.WIN_LOSE
_HIGH = SpotKind.HIGH
_ODD = SpotKind.ODD
_EVEN = SpotKind.EVEN
_RED = SpotKind.RED
_BLACK = SpotKind.BLACK
_RED_COLOUR = Colour.RED
_BLACK_COLOUR = Colour.BLACK


# Decision(...) runs the named tuple's __new__, a Python function; tuple.__new__ given every
# field in order makes the same tuple at half the cost, for every bet a card touches.
_new_tuple = tuple.__new__


class Decision(NamedTuple):
    """What a turn did to a bet: ``net`` for the punter, and whether the bet still stands.

    A named tuple rather than a dataclass: one is made for every bet a card touches."""

    outcome: Outcome
    net: int
    stays: bool
    note: str = ""


def plie_take(stake: int, rules: FaroRules) -> int:
    """What the bank takes from a bet caught in a split; an odd chip goes to the bank."""
    return stake if rules.split == "all" else (stake + 1) // 2


def _plie(stake: int, rules: FaroRules, note: str) -> Decision:
    return _new_tuple(Decision, (_SPLIT, -plie_take(stake, rules), False, note))


def decide(
    spot: Spot, stake: int, coppered: bool, loser: Card, winner: Card, rules: FaroRules
) -> Decision | None:
    """The decision for one bet in a turn of ``loser`` then ``winner``; None: untouched."""
    kind = spot.kind
    if kind is _RANK or kind is _GROUP:
        return _decide_ranks(spot, stake, coppered, loser, winner, rules)
    if kind is _WIN_LOSE:
        return _decide_win_lose(spot, stake, loser, winner, rules)
    if kind is _HIGH:
        if loser.rank == winner.rank:
            return _standing_tie(stake, rules, "equal ranks")
        backed = winner.rank > loser.rank
        return _standing(stake, backed != coppered, rules, high_card=True)
    if kind is _ODD or kind is _EVEN:
        # 003: ace, jack and king are odd, the queen even: the rank's number decides.
        loser_odd = loser.rank % 2 == 1
        winner_odd = winner.rank % 2 == 1
        if loser_odd == winner_odd:
            return _standing_tie(stake, rules, "both cards " + ("odd" if loser_odd else "even"))
        backed = winner_odd == (kind is _ODD)
        return _standing(stake, backed != coppered, rules, high_card=False)
    if kind is _RED or kind is _BLACK:
        if loser.colour is not winner.colour:
            return _standing_tie(stake, rules, "one red, one black")
        colour = _RED_COLOUR if kind is _RED else _BLACK_COLOUR
        return _standing(stake, winner.colour is colour, rules, high_card=False)
    return None


def _decide_ranks(
    spot: Spot, stake: int, coppered: bool, loser: Card, winner: Card, rules: FaroRules
) -> Decision | None:
    ranks = spot.ranks
    hit_loser = loser.rank in ranks
    hit_winner = winner.rank in ranks
    if not hit_loser and not hit_winner:
        return None
    if hit_loser and hit_winner:
        if loser.rank == winner.rank:
            return _plie(stake, rules, f"split on {loser.rank.label}")
        if len(ranks) == 2 and rules.between_two != "plie":
            if rules.between_two == "stands":
                return None
            return _new_tuple(Decision, (_PUSH, 0, False, "one rank lost, the other won"))
        return _plie(stake, rules, "two of its ranks in one turn")
    won = hit_winner != coppered
    return _new_tuple(Decision, (_WIN if won else _LOSE, stake if won else -stake, False, ""))


def _decide_win_lose(
    spot: Spot, stake: int, loser: Card, winner: Card, rules: FaroRules
) -> Decision | None:
    to_win, to_lose = spot.ranks
    right = winner.rank == to_win or loser.rank == to_lose
    wrong = loser.rank == to_win or winner.rank == to_lose
    if right and wrong:
        return _plie(stake, rules, f"split on {loser.rank.label}")
    if right:
        return _new_tuple(Decision, (_WIN, stake, False, ""))
    if wrong:
        return _new_tuple(Decision, (_LOSE, -stake, False, ""))
    return None


def _standing(stake: int, won: bool, rules: FaroRules, *, high_card: bool) -> Decision:
    stays = not (high_card and rules.high_card == "next-turn")
    return _new_tuple(Decision, (_WIN if won else _LOSE, stake if won else -stake, stays, ""))


def _standing_tie(stake: int, rules: FaroRules, why: str) -> Decision:
    # 003: a plie on a bet that acts every turn pays nothing and the bet stays. 001's
    # one-turn high card bet has no rule for equal ranks: it is handed back.
    if rules.high_card == "next-turn" and why == "equal ranks":
        return _new_tuple(Decision, (_PUSH, 0, False, why))
    return _new_tuple(Decision, (_SPLIT, 0, True, why))


@dataclass(frozen=True, slots=True)
class CallKind:
    name: str  # "turn", "cat-hop", "colour"
    pays: int


def call_kind(last_three: list[Card], rules: FaroRules) -> CallKind | None:
    """What calling these three cards is, at this table's odds; None when it may not be called."""
    distinct = len({card.rank for card in last_three})
    if distinct == 3:
        return CallKind("turn", rules.call_pays)
    if distinct == 2:
        return CallKind("cat-hop", rules.cat_hop_pays)
    if rules.three_of_a_kind == "colour":
        return CallKind("colour", rules.cat_hop_pays)
    return None


def call_matches(order: tuple[str, str, str], loser: Card, winner: Card, hoc: Card) -> bool:
    """Whether a call (ranks, or colours for three of a kind) names the cards as they came."""
    cards = (loser, winner, hoc)
    if order[0] in ("red", "black"):
        return all(card.colour.value == named for card, named in zip(cards, order, strict=True))
    return all(card.rank.label == named for card, named in zip(cards, order, strict=True))
