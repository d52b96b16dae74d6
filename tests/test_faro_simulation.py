"""The numpy simulator: every strategy's result per deal equals the engine's settlement of
the same decks, and long runs land on the exact figures."""

from __future__ import annotations

import tracemalloc
from collections import Counter
from fractions import Fraction
from itertools import combinations

import numpy as np
import pytest

import analysis.faro_simulation
from analysis.faro_simulation import (
    MAX_POINTS,
    STRATEGIES,
    SUMMARY_POINTS,
    check_strategies,
    exact_edges,
    sample_points,
    settle_deals,
    shuffled_decks,
    simulate_faro,
)
from table.cards import Card, Colour, Suit, parse_cards
from table.errors import TableError
from table.events import BetSettled
from table.faro import FaroTable
from table.faro.rules import FaroRules, find_rules
from table.odds.faro import faro_odds_of_cards, split_take

STAKE = 2  # even: a half split is a whole chip, as the simulator's half unit


def cards_of(row: np.ndarray, rules: FaroRules) -> list[Card]:
    deck = rules.deck_spec
    suits = tuple(Suit)
    return [Card(deck.ranks[int(c) // 4], suits[int(c) % 4]) for c in row]


def engine_results(
    cards: list[Card], favourite: int, rules: FaroRules
) -> tuple[dict[str, float], dict[str, int]]:
    """Deal the cards through the engine with a punter for each strategy, as the simulator
    describes them; each punter's net in units and the bets the engine settled for him
    (a bet returned at the hoc counts)."""
    table = FaroTable("sim", rules)
    if rules.bank_passes:
        table.seat("banker", 1_000_000)
        table.choose_banker("banker")
    else:
        table.fund_bank(1_000_000)
    for name in STRATEGIES:
        table.seat(name, 100_000)
    table.new_deck()
    rank = rules.deck_spec.ranks[favourite]
    nets = dict.fromkeys(STRATEGIES, 0.0)
    bets = dict.fromkeys(STRATEGIES, 0)
    state = table.state
    for card in cards:
        if state.bets_open:
            held = {(bet.punter, bet.spot.text) for bet in state.bets.values()}
            for punter in ("flat", "coppered"):
                if state.casekeep.left(rank) and (punter, rank.label) not in held:
                    table.bet(punter, rank.label, STAKE, copper=punter == "coppered")
            for live in state.casekeep.live_ranks():
                if state.casekeep.is_cases(live) and ("casekeep", live.label) not in held:
                    table.bet("casekeep", live.label, STAKE)
            if state.is_last_turn_next:
                last = state.casekeep.remaining_cards()
                if len({c.rank for c in last}) == 1:
                    words = sorted(c.colour is Colour.RED for c in last)
                    call = ["red" if red else "black" for red in words]
                else:
                    call = [c.rank.label for c in sorted(last, key=lambda c: c.rank)]
                if len({c.rank for c in last}) > 1 or rules.three_of_a_kind == "colour":
                    table.call("caller", call, 1)
        for event in table.deal(card):
            if isinstance(event, BetSettled):
                nets[event.punter] += event.net / (1 if event.punter == "caller" else STAKE)
                bets[event.punter] += 1
    return nets, bets


@pytest.mark.parametrize("rules_name", ["classic", "stuss", "monte-bank", "home"])
def test_every_deal_settles_as_the_engine_settles_it(rules_name: str) -> None:
    rules = find_rules(rules_name)
    rng = np.random.default_rng(7)
    decks = shuffled_decks(rng, 40, rules.deck_spec.size)
    favourite = rng.integers(0, len(rules.deck_spec.ranks), size=40)
    settled = settle_deals(decks, rules, favourite)
    for row, chosen, index in zip(decks, favourite, range(40), strict=True):
        nets, bets = engine_results(cards_of(row, rules), int(chosen), rules)
        for name in STRATEGIES:
            assert settled.nets[name][index] == nets[name], (name, index)
            assert settled.bets[name][index] == bets[name], (name, index)


@pytest.mark.parametrize("last_three", ["KS KH KD", "2C KH KD", "KH 2C KD", "2C 3C KD"])
def test_no_bet_is_counted_where_the_engine_takes_none(last_three: str) -> None:
    """The king, the flat punter's rank, shows in the last turn (or not) and ends as the hoc:
    after the last turn no bet can be put back on it, nor on a king that became cases."""
    rules = find_rules("classic")
    deck = rules.deck_spec
    suits = list(Suit)
    ending = [deck.ranks.index(c.rank) * 4 + suits.index(c.suit) for c in parse_cards(last_three)]
    row = np.array([*(n for n in range(52) if n not in ending), *ending], dtype=np.int8)
    king = len(deck.ranks) - 1
    settled = settle_deals(row[None, :], rules, np.array([king]))
    nets, bets = engine_results(cards_of(row, rules), king, rules)
    for name in STRATEGIES:
        assert settled.bets[name][0] == bets[name], name
        assert settled.nets[name][0] == nets[name], name


def test_a_scripted_deck_counts_its_splits() -> None:
    rules = find_rules("classic")
    row = np.arange(52, dtype=np.int8)  # four of a rank in a row: A A | A A ...
    settled = settle_deals(row[None, :], rules, np.array([0]))
    # Soda A, then turns (A,A) (A,2) (2,2) (2,3) ... : one split in every two turns.
    ranks = [c // 4 for c in row]
    expected = sum(ranks[i] == ranks[i + 1] for i in range(1, 51, 2))
    assert settled.splits[0] == expected == 13


def test_long_runs_land_on_the_exact_figures() -> None:
    rules = find_rules("classic")
    result = simulate_faro(rules, 200_000, seed=3)
    exact = faro_odds_of_cards(list(rules.deck_spec.cards), rules)
    assert result.exact_splits_per_deal == exact.expected_splits
    # 25 turns, each a split with chance 1/17: the sample mean's spread is about 0.0027.
    assert abs(result.splits_per_deal - float(exact.expected_splits)) < 0.015
    cases = result.bet_kinds["cases"]
    assert cases.exact_edge == 0
    assert cases.edge is not None and abs(cases.edge) < 0.003
    flat = result.strategies["flat"]
    assert flat.exact_edge == exact_edges(rules)["flat"]
    assert flat.edge is not None and abs(flat.edge - float(flat.exact_edge or 0)) < 0.008
    deal_numbers, bankroll = flat.bankroll()
    assert deal_numbers.shape == bankroll.shape == (MAX_POINTS,)
    assert deal_numbers[0] == 1 and deal_numbers[-1] == 200_000
    assert bankroll[-1] == flat.net


@pytest.mark.parametrize(
    ("rules_name", "edge"),
    [("classic", Fraction(625, 42002)), ("monte-bank", Fraction(361, 18470))],
)
def test_the_flat_edge_counts_a_returned_bet_only_when_one_was_on(
    rules_name: str, edge: Fraction
) -> None:
    """Every place the flat rank's cards can take (the soda first, the hoc last): a bet is
    settled in each turn holding one of them, and comes back at the hoc only if the last
    turn holds none (no bet is put back after it)."""
    rules = find_rules(rules_name)
    size = rules.deck_spec.size
    last_turn = (size - 2) // 2
    bets = splits = ways = 0
    for places in combinations(range(size), len(rules.deck_spec.suits)):
        turns = Counter((place + 1) // 2 for place in places if 0 < place < size - 1)
        bets += len(turns) + (size - 1 in places and last_turn not in turns)
        splits += sum(count == 2 for count in turns.values())
        ways += 1
    counted = split_take(rules) * Fraction(splits, bets)
    assert exact_edges(rules)["flat"] == counted == edge
    if rules_name == "classic":
        assert Fraction(bets, ways) == Fraction(21001, 5525)


def test_runs_are_reproducible_and_report_progress() -> None:
    rules = find_rules("classic")
    seen: list[tuple[int, int]] = []
    first = simulate_faro(
        rules, 120_000, ["flat"], seed=5, progress=lambda d, t: seen.append((d, t))
    )
    again = simulate_faro(rules, 120_000, ["flat"], seed=5)
    for points in (MAX_POINTS, SUMMARY_POINTS):
        first_curve = first.strategies["flat"].bankroll(points)
        again_curve = again.strategies["flat"].bankroll(points)
        assert all(map(np.array_equal, first_curve, again_curve))
    assert seen == [(50_000, 120_000), (100_000, 120_000), (120_000, 120_000)]
    assert list(first.strategies) == ["flat"]


def test_the_kept_curve_is_the_running_result_at_evenly_spread_deals(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(analysis.faro_simulation, "CHUNK", 700)
    rules = find_rules("classic")
    deals = 5_001
    result = simulate_faro(rules, deals, seed=4)
    # The same draws, every deal's result kept: the running result after each deal.
    rng = np.random.default_rng(4)
    nets: dict[str, list[np.ndarray]] = {name: [] for name in STRATEGIES}
    for start in range(0, deals, 700):
        batch = min(700, deals - start)
        decks = shuffled_decks(rng, batch, rules.deck_spec.size)
        favourite = rng.integers(0, len(rules.deck_spec.ranks), size=batch)
        for name, part in settle_deals(decks, rules, favourite).nets.items():
            nets[name].append(part)
    for name, strategy in result.strategies.items():
        every_deal = np.cumsum(np.concatenate(nets[name]))
        for points in (MAX_POINTS, SUMMARY_POINTS):
            deal_numbers, bankroll = strategy.bankroll(points)
            assert np.array_equal(deal_numbers, sample_points(deals, points) + 1)
            assert np.array_equal(bankroll, every_deal[deal_numbers - 1]), (name, points)
        assert strategy.net == every_deal[-1]
        assert strategy.kept.size <= MAX_POINTS + SUMMARY_POINTS


def test_memory_does_not_grow_with_the_deals(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(analysis.faro_simulation, "CHUNK", 500)
    rules = find_rules("classic")
    simulate_faro(rules, 500)  # numpy's own first allocations

    def peak_bytes(deals: int) -> int:
        tracemalloc.start()
        try:
            simulate_faro(rules, deals)
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    # Keeping every deal's result for four strategies would add 35,000 x 4 x 8 = 1.1 MB.
    assert peak_bytes(40_000) < peak_bytes(5_000) + 300_000


@pytest.mark.parametrize(
    ("rules_name", "kinds"),
    [
        ("classic", ["straight", "coppered", "cases", "turn", "cat-hop", "colour"]),
        ("casino-003", ["straight", "coppered", "turn", "cat-hop", "colour"]),  # no cases
        ("home", ["straight", "coppered", "cases", "turn", "cat-hop"]),  # no call on three
    ],
)
def test_only_the_bet_kinds_the_rules_take_are_reported(rules_name: str, kinds: list[str]) -> None:
    result = simulate_faro(find_rules(rules_name), 2000, seed=6)
    assert list(result.bet_kinds) == kinds
    assert all(kind.bets > 0 for kind in result.bet_kinds.values())


def test_strategies_are_checked_against_the_rules() -> None:
    classic = find_rules("classic")
    assert check_strategies(["all"], classic) == list(STRATEGIES)
    assert check_strategies(["caller", "flat", "caller"], classic) == ["caller", "flat"]
    with pytest.raises(TableError, match="unknown strategy 'martingale'"):
        check_strategies(["martingale"], classic)
    no_cases = find_rules("casino-003")
    assert "casekeep" not in check_strategies(["all"], no_cases)
    with pytest.raises(TableError, match="forbid bets on cases"):
        check_strategies(["casekeep"], no_cases)
    with pytest.raises(TableError, match="only red or black"):
        check_strategies(["all"], find_rules("dutch"))
    with pytest.raises(TableError, match="at least one deal"):
        simulate_faro(classic, 0)
    with pytest.raises(TableError, match="the seed is 0 or more"):
        simulate_faro(classic, 10, seed=-1)


def test_shuffled_decks_are_permutations() -> None:
    decks = shuffled_decks(np.random.default_rng(1), 1000, 52)
    assert np.array_equal(np.sort(decks, axis=1), np.tile(np.arange(52), (1000, 1)))
    # The first card is spread over the deck, not stuck in place.
    assert len(set(decks[:, 0].tolist())) > 45
