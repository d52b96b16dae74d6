"""Exact Faro odds, each figure checked against brute force: every order of a small box
settled by the engine's own settlement rules, every placing of a rank's cards, and whole
deals through the engine."""

from __future__ import annotations

import doctest
import itertools
from collections import Counter
from fractions import Fraction
from math import comb

import pytest

import table.odds.faro
from table.cards import STANDARD_52, Card, Rank, parse_cards
from table.errors import BetRefusedError, TableError
from table.events import BetSettled, CardRole, Event
from table.faro import FaroTable
from table.faro.casekeep import Casekeep
from table.faro.rules import find_rules
from table.faro.settlement import call_kind, call_matches, decide
from table.faro.spots import parse_spot
from table.odds.faro import (
    faro_odds,
    faro_odds_from_out,
    faro_odds_of_cards,
    heel_edge_table,
    heel_odds,
    two_rank_odds,
)

STAKE = 2  # an even stake: a half split is exact, as the per-unit odds are


def box_of(text: str) -> list[Card]:
    return parse_cards(text)


def deck_without(box: list[Card]) -> list[Card]:
    return [card for card in STANDARD_52.cards if card not in set(box)]


def turns_of(order: tuple[Card, ...]) -> list[tuple[Card, Card]]:
    return [(order[i], order[i + 1]) for i in range(0, len(order) - 1, 2)]


def heel_net(rank: Rank, order: tuple[Card, ...], coppered: bool, rules_name: str) -> int | None:
    """The chips a bet of STAKE left on ``rank`` wins or loses; None: returned by the hoc."""
    rules = find_rules(rules_name)
    spot = parse_spot(rank.label)
    for loser, winner in turns_of(order):
        decision = decide(spot, STAKE, coppered, loser, winner, rules)
        if decision is not None:
            return decision.net
    return None


BOXES = [
    "KH KD KS 5C 5D 9H 2S",  # three of a kind, a pair, singles
    "7H 7D 7S 7C 3S 3H QD",  # a rank with all four left
    "AS 2S 3S 4S 5S 6S 7S",  # seven different ranks
    "JH JD QS",  # the last turn
    "8C",  # only the hoc
]


def nets_over_every_order(
    journal: list[Event], box: list[Card]
) -> tuple[Counter[tuple[str, str]], list[tuple[Card, ...]]]:
    """The table ``journal`` leaves, dealt on through every order of ``box``: what each
    punter's bet on each spot won or lost over all of them, and the orders."""
    nets: Counter[tuple[str, str]] = Counter()
    orders = list(itertools.permutations(box))
    for order in orders:
        trial = FaroTable.replay(journal)
        for card in order:
            for event in trial.deal(card):
                if isinstance(event, BetSettled):
                    nets[(event.punter, event.spot)] += event.net
    return nets, orders


@pytest.mark.parametrize("box_text", BOXES)
@pytest.mark.parametrize("rules_name", ["classic", "stuss"])
def test_every_rank_figure_matches_every_order_of_the_box(box_text: str, rules_name: str) -> None:
    box = box_of(box_text)
    rules = find_rules(rules_name)
    odds = faro_odds_from_out(deck_without(box), rules)
    orders = list(itertools.permutations(box))
    assert odds.cards_left == len(box)
    assert odds.turns_left == len(box) // 2
    for rank_odds in odds.ranks:
        spot = parse_spot(rank_odds.rank.label)
        next_turn: Counter[str] = Counter()
        hoc = 0
        straight = coppered = Fraction(0)
        straight_splits = 0
        for order in orders:
            if len(order) >= 3:
                decision = decide(spot, STAKE, False, order[0], order[1], rules)
                next_turn[decision.outcome.value if decision else "untouched"] += 1
            hoc += order[-1].rank is rank_odds.rank
            straight += heel_net(rank_odds.rank, order, False, rules_name) or 0
            coppered += heel_net(rank_odds.rank, order, True, rules_name) or 0
            touching = [t for t in turns_of(order) if rank_odds.rank in (t[0].rank, t[1].rank)]
            straight_splits += bool(touching) and touching[0][0].rank == touching[0][1].rank
        total = len(orders)
        if len(box) >= 3:
            assert rank_odds.lose == Fraction(next_turn["lose"], total)
            assert rank_odds.win == Fraction(next_turn["win"], total)
            assert rank_odds.split == Fraction(next_turn["split"], total)
            assert rank_odds.untouched == Fraction(next_turn["untouched"], total)
        assert rank_odds.hoc == Fraction(hoc, total)
        assert rank_odds.straight.edge == -straight / (STAKE * total)
        assert rank_odds.coppered.edge == -coppered / (STAKE * total)
        assert rank_odds.straight.split == Fraction(straight_splits, total)


# Boxes of seven with two ranks of two to four cards side by side on the layout (4+5, 9+10,
# J+K), so that a turn may bring one card of each, and another after it.
TWO_RANK_BOXES = [
    "4S 4H 5S 5H 5D 9C 10D",
    "JS JH JD KS KH 2C 7D",
    "9S 9H 9D 9C 10S 10H QD",
]
BETWEEN_TWO = {
    "stands": find_rules("classic"),
    "independent": find_rules("classic", {"between_two": "independent"}),
    "plie": find_rules("casino-003"),
    "stuss": find_rules("stuss"),
}


def two_rank_spots(box: list[Card]) -> list[str]:
    """Every spot on two ranks the table takes with these cards in the box (both live)."""
    live = sorted({card.rank for card in box})
    spots = []
    for first, second in itertools.combinations(live, 2):
        try:
            spots.append(parse_spot(f"{first.label}+{second.label}").text)
        except BetRefusedError:
            continue
    return spots


@pytest.mark.parametrize("box_text", TWO_RANK_BOXES + BOXES[:3])
@pytest.mark.parametrize("rules_name", list(BETWEEN_TWO))
def test_a_bet_between_two_ranks_matches_every_order_of_the_box(
    box_text: str, rules_name: str
) -> None:
    """A bet on two ranks (001: "between two neighbouring cards"; 000: "entre dos valores"),
    each turn settled by the engine's own rule for it, the house's between_two."""
    box = box_of(box_text)
    rules = BETWEEN_TWO[rules_name]
    odds = faro_odds_from_out(deck_without(box), rules)
    orders = list(itertools.permutations(box))
    spots = two_rank_spots(box)
    assert sorted(spot for two in odds.two_ranks for spot in two.spots) == sorted(spots)
    assert spots
    for two in odds.two_ranks:
        for text in two.spots:
            spot = parse_spot(text)
            assert tuple(sorted(sum(c.rank is r for c in box) for r in spot.ranks))[::-1] == (
                two.left
            )
            for coppered in (False, True):
                outcomes: Counter[str] = Counter()
                net = 0
                for order in orders:
                    decision = next(
                        (
                            decided
                            for loser, winner in turns_of(order)
                            if (decided := decide(spot, STAKE, coppered, loser, winner, rules))
                        ),
                        None,
                    )
                    outcomes[decision.outcome.value if decision else "returned"] += 1
                    net += decision.net if decision else 0
                total = len(orders)
                win, lose = Fraction(outcomes["win"], total), Fraction(outcomes["lose"], total)
                assert (two.win, two.lose) == ((lose, win) if coppered else (win, lose))
                assert two.split == Fraction(outcomes["split"], total)
                assert two.push == Fraction(outcomes["push"], total)
                assert two.returned == Fraction(outcomes["returned"], total)
                assert two.edge == -Fraction(net, STAKE * total), (text, coppered)


def test_a_bet_between_two_ranks_from_the_soda_costs_what_its_rule_makes_it() -> None:
    """Both ranks with four cards left after the soda, a unit of an even stake: the classic
    rule (a turn that loses one and wins the other leaves the bet standing) costs 1.879%,
    000's independent ranks 1.806%, 003's plie 4.214%; each is half the chance of a split."""
    figures = {
        "stands": Fraction(331081, 17617950),
        "independent": Fraction(21211, 1174530),
        "plie": Fraction(21211, 503370),
    }
    for name, edge in figures.items():
        two = two_rank_odds(51, 4, 4, BETWEEN_TWO[name])
        assert two.edge == edge == two.split / 2
        assert two.win == two.lose
        assert two.win + two.lose + two.split + two.push + two.returned == 1
    assert [round(float(edge) * 100, 3) for edge in figures.values()] == [1.879, 1.806, 4.214]
    # One lost and one won in a turn: 003's plie costs the whole chance of it, 000's none.
    independent = two_rank_odds(51, 4, 4, BETWEEN_TWO["independent"])
    assert independent.push + independent.split == 2 * figures["plie"]
    # Before the soda, the soda may be of either rank.
    assert two_rank_odds(52, 4, 4, BETWEEN_TWO["stands"]).edge == Fraction(12959, 704718)
    assert two_rank_odds(51, 4, 4, BETWEEN_TWO["stuss"]).edge == 2 * figures["stands"]


def test_whole_deals_through_the_engine_settle_a_bet_between_two_ranks_at_the_exact_edge() -> None:
    """The engine itself, its bets handed back once both ranks are dead (001) included."""
    box = box_of("QC QD KS KH 2D")
    for name in ("stands", "independent", "plie"):
        rules = BETWEEN_TWO[name]
        table = FaroTable("t1", rules.name, {"between_two": rules.between_two})
        journal = [*table.opening, *table.fund_bank(100_000)]
        journal += table.seat("dan", 1000) + table.seat("anna", 1000) + table.new_deck()
        for card in [Card.parse("2C"), *(c for c in deck_without(box) if c != Card.parse("2C"))]:
            journal += table.deal(card)
        odds = faro_odds(table.state.casekeep, table.state.rules)
        spots = [spot for two in odds.two_ranks for spot in two.spots]
        assert sorted(spots) == ["2+K", "2+Q", "Q+K"]
        for spot in spots:
            journal += table.bet("dan", spot, STAKE)
            journal += table.bet("anna", spot, STAKE, copper=True)
        nets, orders = nets_over_every_order(journal, box)
        for two in odds.two_ranks:
            for spot in two.spots:
                for punter in ("dan", "anna"):
                    assert two.edge == -Fraction(nets[(punter, spot)], STAKE * len(orders))
        assert odds.two_ranks[0].left == (2, 2) and odds.two_ranks[0].edge > 0


def test_two_rank_odds_refuse_counts_no_box_can_hold() -> None:
    rules = find_rules("classic")
    with pytest.raises(TableError, match="1 to 4 cards left, not 5"):
        two_rank_odds(51, 5, 1, rules)
    with pytest.raises(TableError, match="1 to 4 cards left, not 0"):
        two_rank_odds(51, 4, 0, rules)
    with pytest.raises(TableError, match="3 and 3 cards of two ranks do not fit in 5"):
        two_rank_odds(5, 3, 3, rules)
    with pytest.raises(TableError, match="before the soda every rank has all 4"):
        two_rank_odds(52, 4, 3, rules)
    assert two_rank_odds(51, 3, 4, rules) == two_rank_odds(51, 4, 3, rules)


@pytest.mark.parametrize("box_text", BOXES[:4])
def test_expected_splits_and_calls_match_every_order(box_text: str) -> None:
    box = box_of(box_text)
    rules = find_rules("classic")
    odds = faro_odds_from_out(deck_without(box), rules)
    orders = list(itertools.permutations(box))
    splits = sum(
        sum(loser.rank == winner.rank for loser, winner in turns_of(order)) for order in orders
    )
    assert odds.expected_splits == Fraction(splits, len(orders))
    kinds: Counter[str] = Counter()
    right: Counter[str] = Counter()
    for order in orders:
        last = list(order[-3:])
        kind = call_kind(last, rules)
        assert kind is not None
        kinds[kind.name] += 1
        # One call fixed by the cards alone: their names in sorted order.
        if kind.name == "colour":
            named = tuple(sorted(card.colour.value for card in last))
        else:
            named = tuple(sorted(card.rank.label for card in last))
        right[kind.name] += call_matches((named[0], named[1], named[2]), *last)
    for call in odds.calls:
        assert call.probability == Fraction(kinds[call.kind], len(orders))
        if kinds[call.kind]:
            assert call.right == Fraction(right[call.kind], kinds[call.kind])
            assert call.edge == 1 - call.right * (call.pays + 1)  # type: ignore[operator]


@pytest.mark.parametrize("cards_left", range(1, 16, 2))
@pytest.mark.parametrize("rank_left", [1, 2, 3, 4])
def test_heel_odds_match_every_placing_of_the_ranks_cards(cards_left: int, rank_left: int) -> None:
    if rank_left > cards_left:
        return
    rules = find_rules("classic")
    heel = heel_odds(cards_left, rank_left, rules)
    outcomes: Counter[str] = Counter()
    for places in itertools.combinations(range(cards_left), rank_left):
        first = places[0]
        if first == cards_left - 1:
            outcomes["returned"] += 1
        elif first % 2 == 1:
            outcomes["win"] += 1
        elif len(places) > 1 and places[1] == first + 1:
            outcomes["split"] += 1
        else:
            outcomes["lose"] += 1
    ways = comb(cards_left, rank_left)
    assert heel.win == Fraction(outcomes["win"], ways)
    assert heel.lose == Fraction(outcomes["lose"], ways)
    assert heel.split == Fraction(outcomes["split"], ways)
    assert heel.returned == Fraction(outcomes["returned"], ways)
    assert heel.edge == heel.split / 2


def test_before_the_soda_every_placing_of_a_ranks_four_cards_in_the_deck() -> None:
    rules = find_rules("classic")
    king = faro_odds(Casekeep(rules.deck_spec), rules).rank(Rank.KING)
    first_turn: Counter[str] = Counter()
    heel: Counter[str] = Counter()
    hoc = 0
    placings = 0
    for places in itertools.combinations(range(52), 4):
        placings += 1
        hoc += places[-1] == 51
        in_turn_one = [p for p in places if p in (1, 2)]
        first_turn[
            "split"
            if len(in_turn_one) == 2
            else "lose"
            if in_turn_one == [1]
            else "win"
            if in_turn_one == [2]
            else "untouched"
        ] += 1
        after_soda = [p for p in places if p > 0]  # the soda may be a king: one fewer left
        first = after_soda[0]
        if first == 51:
            heel["returned"] += 1
        elif first % 2 == 0:
            heel["win"] += 1
        elif len(after_soda) > 1 and after_soda[1] == first + 1:
            heel["split"] += 1
        else:
            heel["lose"] += 1
    assert king.hoc == Fraction(hoc, placings)
    for outcome in ("lose", "win", "split", "untouched"):
        assert getattr(king, outcome) == Fraction(first_turn[outcome], placings)
    for outcome in ("win", "lose", "split", "returned"):
        assert getattr(king.straight, outcome) == Fraction(heel[outcome], placings)
    assert king.straight.edge == king.straight.split / 2


def test_a_full_deck_before_the_soda_averages_over_the_soda() -> None:
    rules = find_rules("classic")
    before = faro_odds(Casekeep(rules.deck_spec), rules)
    assert before.cards_left == 52
    assert before.turns_left == 25
    king = before.rank(Rank.KING)
    soda_is_king = heel_odds(51, 3, rules)
    soda_is_other = heel_odds(51, 4, rules)
    assert (
        king.straight.edge
        == Fraction(4, 52) * soda_is_king.edge + Fraction(48, 52) * soda_is_other.edge
    )
    # Whatever the soda, 25 turns follow, each a split with chance 3/51.
    assert before.expected_splits == Fraction(25, 17)


def test_whole_deals_through_the_engine_settle_at_the_exact_edge() -> None:
    box = box_of("KC 9D 9S QC 2D")
    table = FaroTable("t1", "classic")
    journal = [*table.opening, *table.fund_bank(100_000)]
    journal += table.seat("dan", 1000) + table.seat("anna", 1000) + table.new_deck()
    for card in [Card.parse("2C"), *(c for c in deck_without(box) if c != Card.parse("2C"))]:
        journal += table.deal(card)
    assert table.state.casekeep.remaining_cards() == sorted(box, key=STANDARD_52.cards.index)
    for rank in table.state.casekeep.live_ranks():
        journal += table.bet("dan", rank.label, STAKE)
        journal += table.bet("anna", rank.label, STAKE, copper=True)
    odds = faro_odds(table.state.casekeep, table.state.rules)
    nets, orders = nets_over_every_order(journal, box)
    assert [rank_odds.rank for rank_odds in odds.ranks] == [
        Rank.TWO,
        Rank.NINE,
        Rank.QUEEN,
        Rank.KING,
    ]
    for rank_odds in odds.ranks:
        label = rank_odds.rank.label
        assert rank_odds.straight.edge == -Fraction(nets[("dan", label)], STAKE * len(orders))
        assert rank_odds.coppered.edge == -Fraction(nets[("anna", label)], STAKE * len(orders))
    assert odds.rank(Rank.NINE).straight.edge > 0


def test_an_impossible_casekeep_is_refused_with_the_reason() -> None:
    rules = find_rules("classic")
    with pytest.raises(TableError, match="5 Ks out of a deck that holds 4"):
        faro_odds_from_out(
            [*parse_cards("KS KH KD KC"), Card(Rank.KING, STANDARD_52.suits[0])], rules
        )
    with pytest.raises(TableError, match="KS is out twice"):
        faro_odds_from_out(parse_cards("KS KS 2C"), rules)
    with pytest.raises(TableError, match="no 8s"):
        faro_odds_from_out(parse_cards("8S"), find_rules("monte-bank"))
    with pytest.raises(TableError, match="half dealt"):
        faro_odds_from_out(parse_cards("2C KD"), rules)
    with pytest.raises(TableError, match="the deal is over"):
        faro_odds_from_out(STANDARD_52.cards, rules)
    casekeep = Casekeep(rules.deck_spec)
    for turn in range(5):
        casekeep.record(Card.parse("QH"), CardRole.LOSER, turn)
    with pytest.raises(TableError, match="impossible casekeep"):
        faro_odds(casekeep, rules)


def test_heel_table_covers_every_count_and_straight_equals_coppered() -> None:
    rules = find_rules("classic")
    rows = heel_edge_table(rules)
    counts = {(straight.cards_left, straight.rank_left) for straight, _ in rows}
    expected = {(n, k) for n in range(51, 0, -2) for k in range(1, min(4, n) + 1)}
    assert counts == expected
    for straight, coppered in rows:
        assert straight.edge == coppered.edge
        assert straight.win + straight.lose + straight.split + straight.returned == 1
    assert all(s.edge == 0 for s, _ in rows if s.rank_left == 1)
    stuss = {(s.cards_left, s.rank_left): s.edge for s, _ in heel_edge_table(find_rules("stuss"))}
    for straight, _ in rows:
        assert stuss[(straight.cards_left, straight.rank_left)] == 2 * straight.edge


def test_the_seeds_calling_figures_against_the_exact_ones() -> None:
    rules = find_rules("classic")
    odds = faro_odds_from_out(deck_without(box_of("3S 7H JD")), rules)
    turn = odds.call("turn")
    assert (turn.probability, turn.fair_pays, turn.edge) == (1, 5, Fraction(1, 6))
    cat_hop = faro_odds_from_out(deck_without(box_of("6S 6H 10D")), rules).call("cat-hop")
    # 000 says a cat-hop's fair odds are 3 to 1: the three orders make them 2 to 1.
    assert cat_hop.fair_pays == 2
    assert cat_hop.edge == 0
    one_to_one = find_rules("classic", {"cat_hop_pays": "1"})
    assert faro_odds_from_out(deck_without(box_of("6S 6H 10D")), one_to_one).call(
        "cat-hop"
    ).edge == Fraction(1, 3)
    no_colour = find_rules("home")
    three = faro_odds_from_out(deck_without(box_of("6S 6H 6D")), no_colour).call("colour")
    assert three.probability == 1
    assert three.pays is None and three.edge is None


def test_json_writes_every_fraction_as_p_over_q() -> None:
    odds = faro_odds_of_cards(box_of("KH KD KS 5C 5D 9H 2S"), find_rules("classic"))
    text = odds.to_json()
    king = next(rank for rank in text["ranks"] if rank["rank"] == "K")  # type: ignore[index, union-attr]
    assert king["next_turn"]["split"] == "1/7"  # type: ignore[index]
    assert Fraction(king["straight"]["edge"]) == odds.rank(Rank.KING).straight.edge  # type: ignore[index, arg-type]


def test_docstring_examples() -> None:
    result = doctest.testmod(table.odds.faro)
    assert result.attempted > 0 and result.failed == 0


def test_heel_odds_refuse_counts_no_box_can_hold() -> None:
    rules = find_rules("classic")
    with pytest.raises(TableError, match="1 to 4 cards left"):
        heel_odds(51, 5, rules)
    with pytest.raises(TableError, match="1 to 3 cards left with 3 in the box"):
        heel_odds(3, 4, rules)
    with pytest.raises(TableError, match="half dealt"):
        heel_odds(50, 2, rules)
    with pytest.raises(TableError, match="before the soda every rank has all 4"):
        heel_odds(52, 3, rules)
    with pytest.raises(TableError, match="1 to 40 in a monte-bank-40 deck"):
        heel_odds(41, 1, find_rules("monte-bank"))
