"""Many Faro deals at once with numpy: splits, the edge of each kind of bet, bankroll curves.

A deal is a row of card numbers in box order (the soda first, the hoc last); card ``c`` is of
the deck's rank ``c // 4`` and suit ``c % 4`` (spades, hearts, diamonds, clubs, as in
:mod:`table.cards`). Every strategy is settled for every deal from whole-array comparisons,
following the engine's rules (:mod:`table.faro.settlement`):

``flat``
    one unit on a rank drawn at random for the deal, put back after each decision while the
    rank has cards in the box (a bet on the hoc's rank comes back, if the rank stayed out of
    the last turn: no bet is put back after it).
``coppered``
    the same, coppered.
``casekeep``
    reads the casekeep: one unit on every rank that is *cases* (one card left), which cannot
    split, from the turn after its third card until its last card shows (no bet when the
    third card comes in the last turn).
``caller``
    calls the last turn, one unit, whenever the rules allow the call.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from math import comb
from typing import Any

import numpy as np
import numpy.typing as npt

from table.cards import Suit
from table.errors import TableError
from table.faro.rules import FaroRules
from table.odds.faro import faro_odds_of_cards, options_in_force, rules_title, split_take

STRATEGIES = ("flat", "coppered", "casekeep", "caller")
BET_KINDS = ("straight", "coppered", "cases", "turn", "cat-hop", "colour")
CHUNK = 50_000
# A bankroll curve is kept at a few evenly spread deals, not at every deal, so that a run's
# memory does not grow with its length: the points a plot draws and the fewer that ``--json``
# lists (both include the last deal).
MAX_POINTS = 2000
SUMMARY_POINTS = 200

Progress = Callable[[int, int], None]
IntArray = npt.NDArray[np.integer[Any]]
FloatArray = npt.NDArray[np.float64]
_RED_SUITS = [index for index, suit in enumerate(Suit) if suit in (Suit.HEARTS, Suit.DIAMONDS)]


@dataclass(slots=True)
class BetKindResult:
    """Bets of one kind over all deals: how many, the punters' net, and the exact edge where
    the odds module gives one."""

    kind: str
    bets: int = 0
    net: float = 0.0
    exact_edge: Fraction | None = None

    @property
    def edge(self) -> float | None:
        """The bank's gain per unit bet (a returned bet counts as a bet)."""
        return -self.net / self.bets if self.bets else None


def sample_points(length: int, points: int = MAX_POINTS) -> IntArray:
    """Indices of at most ``points`` evenly spread deals, always the last one."""
    if length <= points:
        return np.arange(length)
    sampled: IntArray = np.unique(np.linspace(0, length - 1, points).round().astype(np.int64))
    return sampled


def _no_deals() -> IntArray:
    return np.zeros(0, dtype=np.int64)


def _no_results() -> FloatArray:
    return np.zeros(0)


@dataclass(slots=True)
class StrategyResult:
    """One strategy over all deals: its bets, the punter's net and his running result at the
    deals in ``kept`` (indices from 0, rising, the last deal among them)."""

    name: str
    bets: int = 0
    net: float = 0.0
    exact_edge: Fraction | None = None
    kept: IntArray = field(default_factory=_no_deals)
    kept_bankroll: FloatArray = field(default_factory=_no_results)

    def bankroll(self, points: int = MAX_POINTS) -> tuple[IntArray, FloatArray]:
        """The punter's running result in units after at most ``points`` evenly spread deals:
        the deals' numbers (from 1) and the results. Exact for the counts the simulator
        keeps (``MAX_POINTS``, ``SUMMARY_POINTS``); for another count each deal wanted is
        replaced by the next one kept."""
        if self.kept.size == 0:
            return _no_deals(), _no_results()
        wanted = sample_points(int(self.kept[-1]) + 1, points)
        # The last deal is always kept, so every wanted deal has one kept at or after it.
        where = np.unique(np.searchsorted(self.kept, wanted))
        return self.kept[where] + 1, self.kept_bankroll[where]

    @property
    def edge(self) -> float | None:
        return -self.net / self.bets if self.bets else None


@dataclass(slots=True)
class SimulationResult:
    rules: str
    options: dict[str, str]  # those the rules differ by from the named set (options_in_force)
    deals: int
    seed: int
    splits: int
    exact_splits_per_deal: Fraction
    strategies: dict[str, StrategyResult]
    bet_kinds: dict[str, BetKindResult]

    @property
    def title(self) -> str:
        return rules_title(self.rules, self.options)

    @property
    def splits_per_deal(self) -> float:
        return self.splits / self.deals if self.deals else 0.0


def check_strategies(names: Sequence[str], rules: FaroRules) -> list[str]:
    """The strategies to run; ``all`` is every one the rules allow."""
    if not rules.rank_bets:
        raise TableError(
            f"the {rules.name} rules take only red or black; the simulated strategies bet on ranks"
        )
    wanted: list[str] = []
    for name in names:
        if name == "all":
            wanted += [s for s in STRATEGIES if s != "casekeep" or not rules.no_bets_on_cases]
        elif name not in STRATEGIES:
            raise TableError(f"unknown strategy {name!r} (known: {', '.join(STRATEGIES)}, all)")
        elif name == "casekeep" and rules.no_bets_on_cases:
            raise TableError(
                f"the {rules.name} rules forbid bets on cases, all the casekeep strategy makes"
            )
        else:
            wanted.append(name)
    if not wanted:
        raise TableError("name at least one strategy")
    return list(dict.fromkeys(wanted))


def bet_kinds_taken(rules: FaroRules) -> list[str]:
    """The kinds of bet the rules take: no bet on cases where they forbid it (003), no colour
    call where three of a kind is not called (001)."""
    forbidden: set[str] = set()
    if rules.no_bets_on_cases:
        forbidden.add("cases")
    if not _colour_calls(rules):
        forbidden.add("colour")
    return [kind for kind in BET_KINDS if kind not in forbidden]


def shuffled_decks(rng: np.random.Generator, deals: int, deck_size: int) -> IntArray:
    """``deals`` rows of card numbers, each row a deck in a uniformly random order."""
    decks = np.tile(np.arange(deck_size, dtype=np.int8), (deals, 1))
    shuffled: IntArray = rng.permuted(decks, axis=1)
    return shuffled


def _last_two_positions(positions: IntArray) -> tuple[IntArray, IntArray]:
    """Of each rank's four card positions, the third and fourth in box order."""
    a, b, c, d = (positions[:, :, i] for i in range(4))
    high_ab, low_ab = np.maximum(a, b), np.minimum(a, b)
    high_cd, low_cd = np.maximum(c, d), np.minimum(c, d)
    fourth = np.maximum(high_ab, high_cd)
    third = np.maximum(np.minimum(high_ab, high_cd), np.maximum(low_ab, low_cd))
    return third, fourth


@dataclass(slots=True)
class DealNets:
    """Each strategy's net per deal and bets per deal for one batch of deals."""

    splits: IntArray
    nets: dict[str, FloatArray]
    bets: dict[str, IntArray]
    kind_bets: dict[str, int]
    kind_nets: dict[str, float]


def settle_deals(decks: IntArray, rules: FaroRules, favourite: IntArray) -> DealNets:
    """Settle every strategy on these decks; ``favourite`` is each deal's flat rank index."""
    deals, size = decks.shape
    suits = len(rules.deck_spec.suits)
    ranks = size // suits
    take = float(split_take(rules))
    rank_at = decks // suits
    losers = rank_at[:, 1 : size - 1 : 2]
    winners = rank_at[:, 2 : size - 1 : 2]
    hoc = rank_at[:, size - 1]
    split_turns = losers == winners
    nets: dict[str, FloatArray] = {}
    bets: dict[str, IntArray] = {}
    kind_bets: dict[str, int] = {}
    kind_nets: dict[str, float] = {}

    chosen = favourite[:, None]
    on_loser = losers == chosen
    on_winner = winners == chosen
    splits = (on_loser & on_winner).sum(axis=1)
    losses = (on_loser & ~on_winner).sum(axis=1)
    wins = (on_winner & ~on_loser).sum(axis=1)
    # The last betting is before the last turn: a bet comes back at the hoc only if the last
    # turn left its rank alone.
    returned = ((hoc == favourite) & ~on_loser[:, -1] & ~on_winner[:, -1]).astype(np.int64)
    decisions = splits + losses + wins + returned
    nets["flat"] = (wins - losses - take * splits).astype(np.float64)
    nets["coppered"] = (losses - wins - take * splits).astype(np.float64)
    bets["flat"] = bets["coppered"] = decisions

    positions = np.empty_like(decks)
    np.put_along_axis(positions, decks, np.arange(size, dtype=np.int8), axis=1)
    third, fourth = _last_two_positions(positions.reshape(deals, ranks, suits).astype(np.int16))
    same_turn = (third % 2 == 1) & (fourth == third + 1)
    # A rank becomes cases when the turn of its third card closes; if that was the last turn
    # (its last card the hoc) no betting follows.
    third_in_last_turn = third >= size - 3
    cases_bet = ~same_turn & ~third_in_last_turn
    cases_net = np.where(fourth == size - 1, 0, np.where(fourth % 2 == 0, 1, -1)) * cases_bet
    nets["casekeep"] = cases_net.sum(axis=1).astype(np.float64)
    bets["casekeep"] = cases_bet.sum(axis=1)

    first, second, last = rank_at[:, size - 3], rank_at[:, size - 2], rank_at[:, size - 1]
    kinds = np.where(
        (first == second) & (second == last),
        2,
        np.where((first == second) | (second == last) | (first == last), 1, 0),
    )
    # A call names one order fixed by the cards left alone (lowest rank or black first);
    # the box's order is random, so it is as good as any other call.
    rank_order_right = (first <= second) & (second <= last)
    suit_at = decks[:, size - 3 :] % suits
    red = np.isin(suit_at, _RED_SUITS)
    colour_order_right = (red[:, 0] <= red[:, 1]) & (red[:, 1] <= red[:, 2])
    pays = np.array(
        [rules.call_pays, rules.cat_hop_pays, rules.cat_hop_pays if _colour_calls(rules) else 0]
    )
    called = (kinds < 2) | _colour_calls(rules)
    right = np.where(kinds == 2, colour_order_right, rank_order_right)
    call_net = np.where(right, pays[kinds], -1) * called
    nets["caller"] = call_net.astype(np.float64)
    bets["caller"] = np.broadcast_to(called, (deals,)).astype(np.int64)

    kind_bets["straight"] = int(decisions.sum())
    kind_nets["straight"] = float(nets["flat"].sum())
    kind_bets["coppered"] = int(decisions.sum())
    kind_nets["coppered"] = float(nets["coppered"].sum())
    kind_bets["cases"] = int(bets["casekeep"].sum())
    kind_nets["cases"] = float(nets["casekeep"].sum())
    for index, kind in enumerate(("turn", "cat-hop", "colour")):
        of_kind = (kinds == index) & called
        kind_bets[kind] = int(of_kind.sum())
        kind_nets[kind] = float(call_net[of_kind].sum())
    return DealNets(split_turns.sum(axis=1), nets, bets, kind_bets, kind_nets)


def exact_edges(rules: FaroRules) -> dict[str, Fraction | None]:
    """The long-run edge of each bet kind and strategy from a fresh deck, from the exact odds:
    the bank's expected take over the expected number of bets (counting returned ones)."""
    deck = rules.deck_spec
    odds = faro_odds_of_cards(list(deck.cards), rules)
    rank = odds.ranks[0]  # before the soda every rank is alike
    turns = odds.turns_left
    # The flat punter's rank is settled in every turn that touches it, and at the hoc if a
    # bet is on it then: its other cards all came before the last turn.
    before_last_turn = Fraction(
        comb(odds.cards_left - 3, rank.left - 1), comb(odds.cards_left - 1, rank.left - 1)
    )
    bets = turns * (1 - rank.untouched) + rank.hoc * before_last_turn
    flat = split_take(rules) * turns * rank.split / bets
    edges: dict[str, Fraction | None] = {
        "straight": flat,
        "coppered": flat,
        "flat": flat,
        "cases": Fraction(0),
        "casekeep": Fraction(0),
    }
    called = Fraction(0)
    taken = Fraction(0)
    for call in odds.calls:
        edges[call.kind] = call.edge
        if call.edge is not None:
            called += call.probability
            taken += call.probability * call.edge
    edges["caller"] = taken / called
    return edges


def _colour_calls(rules: FaroRules) -> bool:
    return rules.three_of_a_kind == "colour"


def simulate_faro(
    rules: FaroRules,
    deals: int,
    strategies: Sequence[str] = ("all",),
    seed: int = 1,
    progress: Progress | None = None,
) -> SimulationResult:
    """Deal ``deals`` shuffled decks and settle the strategies on each."""
    if deals < 1:
        raise TableError(f"simulate at least one deal, not {deals}")
    if seed < 0:
        # numpy's generators take no negative seed.
        raise TableError(f"seed {seed}: the seed is 0 or more")
    names = check_strategies(strategies, rules)
    deck = rules.deck_spec
    rng = np.random.default_rng(seed)
    exact = exact_edges(rules)
    kinds = {
        kind: BetKindResult(kind, exact_edge=exact.get(kind)) for kind in bet_kinds_taken(rules)
    }
    result = SimulationResult(
        rules=rules.name,
        options=options_in_force(rules),
        deals=deals,
        seed=seed,
        splits=0,
        exact_splits_per_deal=faro_odds_of_cards(list(deck.cards), rules).expected_splits,
        strategies={name: StrategyResult(name, exact_edge=exact.get(name)) for name in names},
        bet_kinds=kinds,
    )
    kept = np.union1d(sample_points(deals, MAX_POINTS), sample_points(deals, SUMMARY_POINTS))
    for strategy in result.strategies.values():
        strategy.kept = kept
        strategy.kept_bankroll = np.zeros(kept.size)
    done = 0
    while done < deals:
        batch = min(CHUNK, deals - done)
        decks = shuffled_decks(rng, batch, deck.size)
        favourite = rng.integers(0, len(deck.ranks), size=batch)
        settled = settle_deals(decks, rules, favourite)
        result.splits += int(settled.splits.sum())
        first, last = np.searchsorted(kept, (done, done + batch))
        in_batch = kept[first:last] - done
        for name in names:
            strategy = result.strategies[name]
            strategy.bets += int(settled.bets[name].sum())
            nets = settled.nets[name]
            # Results are whole or half units: these sums are exact, in any order.
            running = strategy.net + np.cumsum(nets)
            strategy.kept_bankroll[first:last] = running[in_batch]
            strategy.net += float(nets.sum())
        for kind, taken in kinds.items():
            taken.bets += settled.kind_bets[kind]
            taken.net += settled.kind_nets[kind]
        done += batch
        if progress is not None:
            progress(done, deals)
    return result
