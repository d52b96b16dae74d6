"""Exact Faro odds from the casekeep, as fractions.

Everything follows from one fact: the cards left in the box lie in a uniformly random order.
Between turns ``N`` cards are left (``N`` odd: the soda and two cards a turn are out); they
make ``(N - 1) / 2`` more turns, a loser then a winner, and the last card is the hoc. So

* the next turn is a uniformly random ordered pair of two of the ``N`` cards: a rank with
  ``k`` left loses with chance ``k(N-k) / N(N-1)``, wins with the same chance, splits with
  ``k(k-1) / N(N-1)``;
* every turn is such a pair, so the expected number of splits left is the number of turns
  times the chance that two cards drawn from the box are of one rank;
* the hoc is any of the ``N`` cards alike: a rank ends as the hoc with chance ``k / N``;
* the last three cards are a uniformly random three of the ``N``: three ranks, a pair and
  one (a cat-hop), or three of a kind;
* a bet left on a rank until the rank next shows is settled by the first turn holding one of
  its ``k`` cards. That turn holds one of them (win or lose, equally likely: the two places
  of a turn are alike) or two of them (a split). Counting the places of the ``k`` cards,
  a split comes first in ``sum(C(N - 2i, k - 2) for the turns i)`` of the ``C(N, k)`` ways.

The bank's edge on such a bet is what it takes on a split times the chance of a split: the
win and the loss cancel, straight or coppered alike.

A bet between two ranks (a group of two, ``4+5``; ``m`` of their cards left, ``a`` and ``b``
of each) is settled the same way by the first turn holding one of the ``m``: one of them wins
or loses it, two of them come in ``sum(C(N - 2i, m - 2))`` of the ``C(N, m)`` ways, and those
two are any two of the ``m`` alike: one rank twice (a split) with chance
``(C(a, 2) + C(b, 2)) / C(m, 2)``, one card of each with chance ``ab / C(m, 2)``. What a turn
that loses one rank and wins the other does is the house's ``between_two``: a split
(``plie``), no payment (``independent``), or nothing (``stands``, the classic rule: the bet
waits for the cards left after that turn, ``a - 1`` and ``b - 1`` of them).

    >>> from table.faro.rules import find_rules
    >>> heel = heel_odds(51, 4, find_rules("classic"))
    >>> heel.split, heel.edge
    (Fraction(101, 2499), Fraction(101, 4998))
    >>> two_rank_odds(51, 4, 4, find_rules("classic")).edge
    Fraction(331081, 17617950)
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from math import comb

from table.cards import Card, Colour, DeckSpec, Rank
from table.errors import TableError
from table.faro.casekeep import Casekeep
from table.faro.layout import legal_groups
from table.faro.rules import RULE_SETS, FaroRules
from table.odds.json_fractions import JsonValue, fraction_text

ZERO = Fraction(0)
ONE = Fraction(1)


def options_in_force(rules: FaroRules) -> dict[str, str]:
    """The options by which ``rules`` differ from its named rule set, as the table language
    writes them: what a figure computed under them must be told with."""
    named = RULE_SETS.get(rules.name, FaroRules(name=rules.name)).describe()
    return {key: text for key, text in rules.describe().items() if named.get(key) != text}


def rules_title(name: str, options: Mapping[str, str]) -> str:
    """``classic rules``, or ``classic rules with split=all`` when options change them."""
    changed = ", ".join(f"{key}={text}" for key, text in options.items())
    return f"{name} rules with {changed}" if changed else f"{name} rules"


def split_take(rules: FaroRules) -> Fraction:
    """What the bank takes from each chip of an even stake caught in a split. Of an odd stake
    it takes the odd chip too (the engine's rule, :func:`table.faro.settlement.plie_take`):
    half of 3 chips is 2, of 1 chip the whole chip. So every edge here is per chip of an even
    stake (:func:`edges_per`); an odd stake pays more, a 1-chip bet as if the split took all."""
    return ONE if rules.split == "all" else Fraction(1, 2)


def edges_per(rules: FaroRules) -> str:
    """What the bank's edges are figured per, as the output says it (see :func:`split_take`)."""
    return "chip" if rules.split == "all" else "chip of an even stake"


# Said beside the figures wherever a split takes half: an odd stake's odd chip is the bank's.
ODD_STAKE_NOTE = (
    "on an odd stake a split also takes the odd chip: a 1-chip bet caught in a split is lost whole"
)


@dataclass(frozen=True, slots=True)
class HeelOdds:
    """A bet of one unit on one rank, left on the layout until the rank next shows.

    ``win``, ``lose``, ``split`` and ``returned`` (the rank's last card is the hoc) add up to
    one; ``edge`` is the bank's expected gain per unit bet."""

    cards_left: int
    rank_left: int
    coppered: bool
    win: Fraction
    lose: Fraction
    split: Fraction
    returned: Fraction
    edge: Fraction

    def to_json(self) -> dict[str, JsonValue]:
        return {
            "cards_left": self.cards_left,
            "rank_left": self.rank_left,
            "coppered": self.coppered,
            "win": fraction_text(self.win),
            "lose": fraction_text(self.lose),
            "split": fraction_text(self.split),
            "returned": fraction_text(self.returned),
            "edge": fraction_text(self.edge),
        }


@dataclass(frozen=True, slots=True)
class RankOdds:
    """One live rank: what the next turn does to it, and what a bet left on it is worth."""

    rank: Rank
    left: int
    lose: Fraction  # the next loser is of this rank, the winner of another
    win: Fraction  # the next winner is of this rank, the loser of another
    split: Fraction  # both cards of the next turn are of this rank
    untouched: Fraction  # the next turn leaves the rank alone
    hoc: Fraction  # the rank's last card is the hoc
    straight: HeelOdds
    coppered: HeelOdds

    def to_json(self) -> dict[str, JsonValue]:
        return {
            "rank": self.rank.label,
            "left": self.left,
            "next_turn": {
                "lose": fraction_text(self.lose),
                "win": fraction_text(self.win),
                "split": fraction_text(self.split),
                "untouched": fraction_text(self.untouched),
            },
            "hoc": fraction_text(self.hoc),
            "straight": self.straight.to_json(),
            "coppered": self.coppered.to_json(),
        }


@dataclass(frozen=True, slots=True)
class TwoRankOdds:
    """A bet of one unit between two ranks (a group of two: ``4+5``, ``J+K``), left on the
    layout until a turn settles it, with ``left`` cards of its ranks in the box (the larger
    count first); a coppered bet alike, its win and loss swapped.

    ``split``: settled by a split (one rank twice; under ``between_two=plie`` one card of
    each too); ``push``: settled with no payment by a turn that loses one rank and wins the
    other (``between_two=independent``); ``returned``: handed back (the last card of its
    ranks is the hoc, or, where such a turn leaves it standing, no card of them is left).
    ``win``, ``lose``, ``split``, ``push`` and ``returned`` add up to one; ``edge`` is the
    bank's expected gain per unit bet. ``spots``: the two-rank spots of the layout whose
    ranks have these counts left, where the figure is for a casekeep."""

    cards_left: int
    left: tuple[int, int]
    between_two: str
    win: Fraction
    lose: Fraction
    split: Fraction
    push: Fraction
    returned: Fraction
    edge: Fraction
    spots: tuple[str, ...] = ()

    def to_json(self) -> dict[str, JsonValue]:
        return {
            "cards_left": self.cards_left,
            "left": list(self.left),
            "between_two": self.between_two,
            "spots": list(self.spots),
            "win": fraction_text(self.win),
            "lose": fraction_text(self.lose),
            "split": fraction_text(self.split),
            "push": fraction_text(self.push),
            "returned": fraction_text(self.returned),
            "edge": fraction_text(self.edge),
        }


CALL_KINDS = ("turn", "cat-hop", "colour")


@dataclass(frozen=True, slots=True)
class CallOdds:
    """Calling the turn when the last three cards are of one kind.

    ``kind`` is named as the engine names it (:func:`table.faro.settlement.call_kind`):
    ``turn`` (three ranks), ``cat-hop`` (a pair and one), ``colour`` (three of a kind,
    called by colours). ``probability``: that the last three turn out this kind, from the
    cards left now. ``right``: that one call of their order is right once the kind is known;
    ``fair_pays``: the payout to one that would make the call even. ``pays`` and ``edge``
    are None where the rules allow no call."""

    kind: str
    probability: Fraction
    right: Fraction
    fair_pays: Fraction
    pays: int | None
    edge: Fraction | None

    def to_json(self) -> dict[str, JsonValue]:
        return {
            "kind": self.kind,
            "probability": fraction_text(self.probability),
            "right": fraction_text(self.right),
            "fair_pays": fraction_text(self.fair_pays),
            "pays": self.pays,
            "edge": None if self.edge is None else fraction_text(self.edge),
        }


@dataclass(frozen=True, slots=True)
class FaroOdds:
    """Every exact figure a casekeep gives, for one rule set."""

    rules: str
    options: dict[str, str]  # those the rules differ by from the named set (options_in_force)
    edges_per: str  # "chip of an even stake" where a split takes half (see split_take)
    deck: str
    cards_left: int
    turns_left: int
    ranks: tuple[RankOdds, ...]  # live ranks only, in rank order
    calls: tuple[CallOdds, ...]  # turn, cat-hop, colour
    expected_splits: Fraction  # in the turns left
    # The two-rank spots a bet may be put on now, by the counts of their ranks left.
    two_ranks: tuple[TwoRankOdds, ...] = ()

    @property
    def title(self) -> str:
        return rules_title(self.rules, self.options)

    def rank(self, rank: Rank) -> RankOdds:
        for odds in self.ranks:
            if odds.rank is rank:
                return odds
        raise TableError(f"rank {rank.label} is dead: no card of it is left in the box")

    def call(self, kind: str) -> CallOdds:
        for odds in self.calls:
            if odds.kind == kind:
                return odds
        raise TableError(f"unknown kind of call {kind!r} (known: {', '.join(CALL_KINDS)})")

    def to_json(self) -> dict[str, JsonValue]:
        return {
            "game": "faro",
            "rules": self.rules,
            "options": dict(self.options),
            "edges_per": self.edges_per,
            "deck": self.deck,
            "cards_left": self.cards_left,
            "turns_left": self.turns_left,
            "expected_splits": fraction_text(self.expected_splits),
            "ranks": [odds.to_json() for odds in self.ranks],
            "two_ranks": [odds.to_json() for odds in self.two_ranks],
            "calls": [odds.to_json() for odds in self.calls],
        }


# --- checking what the casekeep says ------------------------------------------------------


def remaining_after(cards_out: Iterable[Card], deck: DeckSpec) -> list[Card]:
    """The cards still in the box once ``cards_out`` are out; refuses an impossible casekeep."""
    out = list(cards_out)
    suits = len(deck.suits)
    by_rank = Counter(card.rank for card in out)
    for rank, count in sorted(by_rank.items()):
        if rank not in deck.rank_set:
            raise TableError(f"impossible casekeep: the {deck.name} deck has no {rank.label}s")
        if count > suits:
            raise TableError(
                f"impossible casekeep: {count} {rank.label}s out of a deck that holds {suits}"
            )
    seen: set[Card] = set()
    for card in out:
        if card in seen:
            raise TableError(f"impossible casekeep: {card} is out twice")
        seen.add(card)
    return [card for card in deck.cards if card not in seen]


def casekeep_remaining(casekeep: Casekeep) -> list[Card]:
    """The cards in the box as the casekeep has them; refuses an impossible casekeep."""
    out: list[Card] = []
    for rank in Rank:
        out.extend(entry.card for entry in casekeep.out(rank))
    return remaining_after(out, casekeep.deck)


def _turns_left(cards_left: int, deck: DeckSpec) -> int:
    if cards_left == deck.size:
        return (cards_left - 2) // 2  # the soda is still to come
    if cards_left <= 0:
        raise TableError("the deal is over: no card is left in the box")
    if cards_left % 2 == 0:
        raise TableError(
            f"odds are read between turns: with {cards_left} cards left a turn is half dealt "
            "(its winner is still to come)"
        )
    return (cards_left - 1) // 2


# --- the figures --------------------------------------------------------------------------


@cache
def _heel_counts(cards_left: int, rank_left: int) -> tuple[int, int, int, int]:
    """Ways (of ``C(N, k)``) a heel bet is settled by a win, a loss, a split, the hoc."""
    turns = (cards_left - 1) // 2
    single = sum(comb(cards_left - 2 * i, rank_left - 1) for i in range(1, turns + 1))
    double = (
        sum(comb(cards_left - 2 * i, rank_left - 2) for i in range(1, turns + 1))
        if rank_left >= 2
        else 0
    )
    returned = 1 if rank_left == 1 else 0
    return single, single, double, returned


@cache
def _heel(cards_left: int, rank_left: int, take: Fraction, coppered: bool) -> HeelOdds:
    if cards_left % 2 == 0:
        # Before the soda: the soda is any card alike, then the bet is placed.
        soda_of_rank = Fraction(rank_left, cards_left)
        after_other = _heel(cards_left - 1, rank_left, take, coppered)
        after_own = _heel(cards_left - 1, rank_left - 1, take, coppered)
        mixed = [
            soda_of_rank * getattr(after_own, name)
            + (1 - soda_of_rank) * getattr(after_other, name)
            for name in ("win", "lose", "split", "returned", "edge")
        ]
        return HeelOdds(cards_left, rank_left, coppered, *mixed)
    wins, losses, splits, returned = _heel_counts(cards_left, rank_left)
    ways = comb(cards_left, rank_left)
    win = Fraction(wins, ways)
    lose = Fraction(losses, ways)
    split = Fraction(splits, ways)
    if coppered:
        win, lose = lose, win
    return HeelOdds(
        cards_left=cards_left,
        rank_left=rank_left,
        coppered=coppered,
        win=win,
        lose=lose,
        split=split,
        returned=Fraction(returned, ways),
        edge=lose + take * split - win,
    )


def heel_odds(
    cards_left: int, rank_left: int, rules: FaroRules, *, coppered: bool = False
) -> HeelOdds:
    """A unit left on a rank with ``rank_left`` of its cards among the ``cards_left`` in the
    box, until the rank next shows; ``cards_left`` is the deck's size before the soda."""
    deck = rules.deck_spec
    if not 1 <= cards_left <= deck.size:
        raise TableError(f"cards left must be 1 to {deck.size} in a {deck.name} deck")
    _turns_left(cards_left, deck)
    if not 1 <= rank_left <= min(len(deck.suits), cards_left):
        raise TableError(
            f"a rank has 1 to {min(len(deck.suits), cards_left)} cards left "
            f"with {cards_left} in the box, not {rank_left}"
        )
    if cards_left == deck.size and rank_left != len(deck.suits):
        raise TableError(f"before the soda every rank has all {len(deck.suits)} cards left")
    return _heel(cards_left, rank_left, split_take(rules), coppered)


@cache
def _two_rank_chances(
    cards_left: int, left_a: int, left_b: int, between_two: str
) -> tuple[Fraction, Fraction, Fraction, Fraction]:
    """Chances (between turns) that a bet on two ranks is settled by one card of them (a
    win or a loss, alike), by a split, with no payment, or handed back."""
    m = left_a + left_b
    if m == 0 or cards_left == 1:
        return ZERO, ZERO, ZERO, ONE
    ways = comb(cards_left, m)
    turns = (cards_left - 1) // 2
    single = Fraction(sum(2 * comb(cards_left - 2 * i, m - 1) for i in range(1, turns + 1)), ways)
    returned = Fraction(1, cards_left) if m == 1 else ZERO
    split = push = ZERO
    if m >= 2:
        pairs = comb(m, 2)
        same = Fraction(comb(left_a, 2) + comb(left_b, 2), pairs)
        mixed = Fraction(left_a * left_b, pairs)
        for i in range(1, turns + 1):
            # Two of the m cards in turn i, none before it: any two of them alike.
            double = Fraction(comb(cards_left - 2 * i, m - 2), ways)
            split += double * same
            if between_two == "plie":
                split += double * mixed
            elif between_two == "independent":
                push += double * mixed
            elif mixed and double:
                # It stands: the rest of the box is any order of what is left.
                after = _two_rank_chances(cards_left - 2 * i, left_a - 1, left_b - 1, between_two)
                single += double * mixed * after[0]
                split += double * mixed * after[1]
                returned += double * mixed * after[3]
    return single, split, push, returned


@cache
def _two_rank(
    cards_left: int, left_a: int, left_b: int, take: Fraction, between_two: str
) -> TwoRankOdds:
    if cards_left % 2 == 0:
        # Before the soda: the soda is any card alike, then the bet is placed.
        soda_a = Fraction(left_a, cards_left)
        soda_b = Fraction(left_b, cards_left)
        after = (
            (soda_a, _two_rank(cards_left - 1, left_a - 1, left_b, take, between_two)),
            (soda_b, _two_rank(cards_left - 1, left_a, left_b - 1, take, between_two)),
            (1 - soda_a - soda_b, _two_rank(cards_left - 1, left_a, left_b, take, between_two)),
        )

        def mixed(name: str) -> Fraction:
            return sum((chance * getattr(odds, name) for chance, odds in after), ZERO)

        return TwoRankOdds(
            cards_left=cards_left,
            left=(left_a, left_b),
            between_two=between_two,
            win=mixed("win"),
            lose=mixed("lose"),
            split=mixed("split"),
            push=mixed("push"),
            returned=mixed("returned"),
            edge=mixed("edge"),
        )
    single, split, push, returned = _two_rank_chances(cards_left, left_a, left_b, between_two)
    # The card that settles it is as likely to lose as to win: the two places of a turn are alike.
    win = lose = single / 2
    return TwoRankOdds(
        cards_left=cards_left,
        left=(left_a, left_b),
        between_two=between_two,
        win=win,
        lose=lose,
        split=split,
        push=push,
        returned=returned,
        edge=lose + take * split - win,
    )


def two_rank_odds(cards_left: int, left_a: int, left_b: int, rules: FaroRules) -> TwoRankOdds:
    """A unit between two ranks (``4+5``) with ``left_a`` and ``left_b`` of their cards among
    the ``cards_left`` in the box, until a turn settles it, by the rules' ``between_two``;
    ``cards_left`` is the deck's size before the soda."""
    deck = rules.deck_spec
    if not 1 <= cards_left <= deck.size:
        raise TableError(f"cards left must be 1 to {deck.size} in a {deck.name} deck")
    _turns_left(cards_left, deck)
    suits = len(deck.suits)
    for left in (left_a, left_b):
        if not 1 <= left <= suits:
            raise TableError(f"a rank has 1 to {suits} cards left, not {left}")
    if left_a + left_b > cards_left:
        raise TableError(f"{left_a} and {left_b} cards of two ranks do not fit in {cards_left}")
    if cards_left == deck.size and (left_a, left_b) != (suits, suits):
        raise TableError(f"before the soda every rank has all {suits} cards left")
    big, small = max(left_a, left_b), min(left_a, left_b)
    return _two_rank(cards_left, big, small, split_take(rules), rules.between_two)


def _two_ranks_of(
    counts: Mapping[Rank, int], rules: FaroRules, left: int
) -> tuple[TwoRankOdds, ...]:
    """The two-rank spots a bet may go on now (both ranks live), grouped by their counts."""
    by_rank = tuple(counts.get(rank, 0) for rank in Rank)
    return _two_ranks_for(by_rank, left, split_take(rules), rules.between_two)


@cache
def _two_ranks_for(
    by_rank: tuple[int, ...], left: int, take: Fraction, between_two: str
) -> tuple[TwoRankOdds, ...]:
    # Cached whole: the advisor and the displays ask again for the same casekeep each event.
    spots: dict[tuple[int, int], list[str]] = {}
    for first, second in legal_groups(2):
        a, b = by_rank[first.value - 1], by_rank[second.value - 1]
        if a and b:
            spots.setdefault((max(a, b), min(a, b)), []).append(f"{first.label}+{second.label}")
    return tuple(
        dataclasses.replace(_two_rank(left, a, b, take, between_two), spots=tuple(spots[(a, b)]))
        for a, b in sorted(spots, reverse=True)
    )


def heel_edge_table(rules: FaroRules) -> list[tuple[HeelOdds, HeelOdds]]:
    """Straight and coppered heel bets for every count of cards in the box between turns
    and every count of the rank's cards."""
    deck = rules.deck_spec
    rows = []
    for cards_left in range(deck.size - 1, 0, -2):
        for rank_left in range(1, min(len(deck.suits), cards_left) + 1):
            rows.append(
                (
                    heel_odds(cards_left, rank_left, rules),
                    heel_odds(cards_left, rank_left, rules, coppered=True),
                )
            )
    return rows


def _colour_call_right(remaining: Sequence[Card]) -> Fraction:
    """A colour call on three of a kind: the chance one call of the order is right, over
    every three cards of one rank that may be the last three (all equally likely)."""
    reds: Counter[Rank] = Counter()
    blacks: Counter[Rank] = Counter()
    for card in remaining:
        (reds if card.colour is Colour.RED else blacks)[card.rank] += 1
    return _colour_right_for(tuple(sorted((reds[rank], blacks[rank]) for rank in reds | blacks)))


@cache
def _colour_right_for(colours_by_rank: tuple[tuple[int, int], ...]) -> Fraction:
    threes = 0
    right = Fraction(0)
    for red, black in colours_by_rank:
        for red_in_three in range(4):
            ways = comb(red, red_in_three) * comb(black, 3 - red_in_three)
            # The orders of the three colours are equally likely; one call names one order.
            right += Fraction(ways, comb(3, red_in_three))
            threes += ways
    return right / threes if threes else Fraction(1, 3)


def _calls(remaining: Sequence[Card], rules: FaroRules) -> tuple[CallOdds, ...]:
    counts = Counter(card.rank for card in remaining).values()
    left = len(remaining)
    threes = comb(left, 3)
    if threes == 0:
        three_kind = pair_and_one = three_ranks = ZERO
    else:
        three_kind = Fraction(sum(comb(k, 3) for k in counts), threes)
        pair_and_one = Fraction(sum(comb(k, 2) * (left - k) for k in counts), threes)
        three_ranks = 1 - three_kind - pair_and_one
    colour_right = _colour_call_right(remaining)
    kinds = (
        ("turn", three_ranks, Fraction(1, 6), rules.call_pays),
        ("cat-hop", pair_and_one, Fraction(1, 3), rules.cat_hop_pays),
        (
            "colour",
            three_kind,
            colour_right,
            rules.cat_hop_pays if rules.three_of_a_kind == "colour" else None,
        ),
    )
    calls = []
    for kind, probability, right, pays in kinds:
        edge = None if pays is None else 1 - right * (pays + 1)
        calls.append(CallOdds(kind, probability, right, 1 / right - 1, pays, edge))
    return tuple(calls)


def faro_odds_of_cards(remaining: Sequence[Card], rules: FaroRules) -> FaroOdds:
    """The odds with exactly these cards left in the box (checked against the rules' deck)."""
    deck = rules.deck_spec
    remaining = list(remaining)
    left = len(remaining)
    in_box = set(remaining)
    if len(in_box) != left or not in_box <= deck.card_set:
        raise TableError(
            f"impossible casekeep: the cards left are not {left} cards of one {deck.name} deck"
        )
    turns = _turns_left(left, deck)
    counts = Counter(card.rank for card in remaining)
    pairs = left * (left - 1)
    take = split_take(rules)
    ranks = []
    for rank in deck.ranks:
        k = counts.get(rank, 0)
        if k == 0:
            continue
        if left == 1:
            # Only the hoc is left: no turn will touch the rank, its bets come back.
            lose = win = split = ZERO
            untouched = ONE
        else:
            lose = win = Fraction(k * (left - k), pairs)
            split = Fraction(k * (k - 1), pairs)
            untouched = Fraction((left - k) * (left - k - 1), pairs)
        ranks.append(
            RankOdds(
                rank=rank,
                left=k,
                lose=lose,
                win=win,
                split=split,
                untouched=untouched,
                hoc=Fraction(k, left),
                straight=_heel(left, k, take, False),
                coppered=_heel(left, k, take, True),
            )
        )
    same_rank_pairs = sum(k * (k - 1) for k in counts.values())
    expected_splits = Fraction(turns * same_rank_pairs, pairs) if pairs else ZERO
    return FaroOdds(
        rules=rules.name,
        options=options_in_force(rules),
        edges_per=edges_per(rules),
        deck=deck.name,
        cards_left=left,
        turns_left=turns,
        ranks=tuple(ranks),
        calls=_calls(remaining, rules),
        expected_splits=expected_splits,
        two_ranks=_two_ranks_of(counts, rules, left),
    )


def faro_odds(casekeep: Casekeep, rules: FaroRules) -> FaroOdds:
    """The odds a casekeep gives under these rules."""
    if casekeep.deck != rules.deck_spec:
        raise TableError(
            f"the casekeep is of a {casekeep.deck.name} deck, the {rules.name} rules deal "
            f"a {rules.deck}"
        )
    return faro_odds_of_cards(casekeep_remaining(casekeep), rules)


def faro_odds_from_out(cards_out: Iterable[Card], rules: FaroRules) -> FaroOdds:
    """The odds once ``cards_out`` (the soda and every turn so far, in any order) are out."""
    return faro_odds_of_cards(remaining_after(cards_out, rules.deck_spec), rules)


def clear_cache() -> None:
    """Forget the counts kept between calls (a benchmark's cold start)."""
    _heel.cache_clear()
    _heel_counts.cache_clear()
    _two_rank.cache_clear()
    _two_rank_chances.cache_clear()
    _two_ranks_for.cache_clear()
    _colour_right_for.cache_clear()
