"""The advisor: split risk and edge of each live rank, on only when the table wants it."""

from __future__ import annotations

import doctest
from fractions import Fraction

import table.odds.advisor
from table.cards import Rank
from table.odds.advisor import advice_for, advise
from table.odds.faro import heel_odds
from tests.conftest import deal, deal_rest, open_table


def test_advice_is_off_unless_the_table_turns_it_on() -> None:
    table = open_table()
    assert advice_for(table.state, enabled=False) is None
    assert advice_for(table.state, enabled=True) is not None


def test_no_advice_while_a_turn_is_half_dealt_or_the_deal_is_over() -> None:
    table = open_table()
    deal(table, "KD")
    assert advice_for(table.state, enabled=True) is None
    deal(table, "9C")
    assert advice_for(table.state, enabled=True) is not None
    deal_rest(table)
    assert table.state.cards_left == 0
    assert advice_for(table.state, enabled=True) is None


def test_each_live_rank_gets_its_split_risk_and_edge() -> None:
    table = open_table(soda="KS")
    deal(table, "KD KH 9C 9D")  # a split on kings, then a turn of nines: one king left
    advice = advise(table.state.casekeep, table.state.rules)
    assert advice.cards_left == 47
    king = advice.rank_advice(Rank.KING)
    assert king.cases and king.split_before_settled == 0 and king.edge == 0
    assert king.note == "cases: cannot split, no edge"
    nine = advice.rank_advice(Rank.NINE)
    assert nine.left == 2
    assert nine.split_next_turn == Fraction(2, 47 * 46)
    assert nine.edge == heel_odds(47, 2, table.state.rules).edge == Fraction(1, 94)
    ace = advice.rank_advice(Rank.ACE)
    assert ace.edge == heel_odds(47, 4, table.state.rules).edge > nine.edge
    assert advice.lowest_edge == (Rank.KING,)


def test_the_json_carries_fractions_and_percentages_for_a_display() -> None:
    table = open_table()
    text = advice_for(table.state, enabled=True)
    assert text is not None
    payload = text.to_json()
    assert payload["cards_left"] == 51
    first = payload["ranks"][0]  # type: ignore[index]
    assert first["rank"] == "A"  # type: ignore[index]
    assert Fraction(first["edge"]) == heel_odds(51, 4, table.state.rules).edge  # type: ignore[index, arg-type]
    assert first["edge_percent"] == "2.02%"  # type: ignore[index]


def test_docstring_examples() -> None:
    result = doctest.testmod(table.odds.advisor)
    assert result.attempted > 0 and result.failed == 0


def test_under_casino_003_the_advice_is_a_bet_the_house_takes() -> None:
    """003: most houses take a bet on cases only from a punter who also backs a rank that can
    still split. The advisor points at the cheapest bet taken alone, and says the condition."""
    from table.service.table_service import state_snapshot

    table = open_table("casino-003", soda="KS")
    deal(table, "KD KH 9C 9D")  # one king left: cases; two nines
    advice = advice_for(table.state, enabled=True)
    assert advice is not None
    king = advice.rank_advice(Rank.KING)
    assert king.edge == 0 and not king.taken_alone
    assert king.note == (
        "cases: cannot split, no edge; the house takes it only beside a bet on a rank that "
        "can still split"
    )
    assert advice.lowest_edge == (Rank.NINE,)
    table.bet("dan", "9", 2)  # the advice is taken
    shown = state_snapshot(table.state, advisor=True)["advice"]
    assert shown["lowest_edge"] == ["9"]
    assert next(rank for rank in shown["ranks"] if rank["rank"] == "K")["taken_alone"] is False
    # On the last turn the three cards are backed as usual, cases too.
    for card in table.state.casekeep.remaining_cards()[:-3]:
        table.deal(card)
    assert table.state.is_last_turn_next
    advice = advice_for(table.state, enabled=True)
    assert advice is not None and any(rank.cases for rank in advice.ranks)
    assert all(rank.taken_alone for rank in advice.ranks)
    assert set(advice.lowest_edge) >= {rank.rank for rank in advice.ranks if rank.cases}


def test_the_advisor_says_its_edges_are_per_chip_of_an_even_stake() -> None:
    """A 1-chip bet caught in a split is lost whole (the engine gives the bank the odd chip):
    the advisor's edge holds for an even stake, and it says so."""
    import io

    from table.service.exhibit import run_exhibit
    from tests.conftest import settlements

    table = open_table()
    table.bet("dan", "9", 1)
    table.bet("anna", "9", 2)
    assert [net for *_, net in settlements(deal(table, "9C 9D"))] == [-1, -1]
    advice = advice_for(table.state, enabled=True)
    assert advice is not None and advice.to_json()["edges_per"] == "chip of an even stake"
    stuss = advice_for(open_table("stuss").state, enabled=True)
    assert stuss is not None and stuss.to_json()["edges_per"] == "chip"
    out = io.StringIO()
    run_exhibit(language="en", seed=4, pause=0, deals=1, out=out, advisor=True)
    said = [line for line in out.getvalue().splitlines() if line.startswith("The casekeep")]
    assert said and all(line.endswith(" on an even number of chips).") for line in said)
