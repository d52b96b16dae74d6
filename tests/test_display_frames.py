"""The casekeep and layout frames, computed from the table state."""

from __future__ import annotations

from display.frames import BeadState, LastTurn, casekeep_frame, layout_frame
from table.cards import Rank
from tests.conftest import deal, open_table


def test_003_abacus_frame_beads_in_the_order_the_cards_came() -> None:
    """003, кейскипер: each rank's beads in the order they came, finished ranks marked."""
    table = open_table(soda="5S")
    deal(table, "5H 9D 2C 5D")
    frame = casekeep_frame(table.state)
    five = frame.spindle(Rank.FIVE)
    assert five.beads == (BeadState.SODA, BeadState.LOSER, BeadState.WINNER, BeadState.IN_BOX)
    assert five.cases and not five.finished
    assert frame.spindle(Rank.NINE).beads[0] is BeadState.WINNER
    assert frame.spindle(Rank.KING).beads == (BeadState.IN_BOX,) * 4
    deal(table, "5C 3H")
    assert casekeep_frame(table.state).spindle(Rank.FIVE).finished


def test_layout_frame_shows_bets_the_last_turn_dead_ranks_and_cases() -> None:
    table = open_table(soda="7S")
    table.bet("dan", "9", 4)
    table.bet("anna", "9", 2, copper=True)
    table.bet("ben", "4+5", 3)
    table.bet("ben", "high", 1)
    deal(table, "7H 7D")  # a split on the seven: three sevens out
    frame = layout_frame(table.state)
    assert frame.lamp(Rank.SEVEN).last_turn is LastTurn.SPLIT
    assert frame.lamp(Rank.SEVEN).cases
    nine = frame.lamp(Rank.NINE)
    assert (nine.straight, nine.coppered, nine.in_groups) == (4, 2, 0)
    assert frame.lamp(Rank.FIVE).in_groups == 3
    assert frame.standing == (("ben", "high", 1),)
    assert not frame.bets_locked
    deal(table, "KH 7C")
    frame = layout_frame(table.state)
    assert frame.lamp(Rank.SEVEN).dead
    assert frame.lamp(Rank.KING).last_turn is LastTurn.LOSER
    assert frame.lamp(Rank.SEVEN).last_turn is LastTurn.WINNER
    table.deal("QH")
    assert layout_frame(table.state).bets_locked


def test_call_candidates_light_before_the_last_turn_and_alarms_show() -> None:
    table = open_table()
    last = {"7C", "JD", "3S"}
    deal(
        table,
        " ".join(str(c) for c in table.state.casekeep.remaining_cards() if str(c) not in last),
    )
    frame = layout_frame(table.state)
    assert {lamp.rank for lamp in frame.lamps if lamp.call_candidate} == {
        Rank.SEVEN,
        Rank.JACK,
        Rank.THREE,
    }
    table.call("ben", ["7", "J", "3"], 2)
    assert layout_frame(table.state).calls == (("ben", ("7", "J", "3"), 2),)
    table.deal("2C")  # dealt already: an alarm
    assert layout_frame(table.state).alarm is not None


def test_no_call_candidate_lights_where_the_last_turn_cannot_be_called() -> None:
    """Dutch Faro takes only red or black; at home rules three of a kind take no call (001):
    the lamps do not invite a call the table would refuse."""
    for rules, last in (("dutch", {"7C", "JD", "3S"}), ("home", {"7C", "7D", "7S"})):
        table = open_table(rules)
        left = table.state.casekeep.remaining_cards()
        deal(table, " ".join(str(card) for card in left if str(card) not in last))
        frame = layout_frame(table.state)
        assert not any(lamp.call_candidate for lamp in frame.lamps), rules


def test_monte_bank_layout_has_no_8_9_10() -> None:
    frame = layout_frame(open_table("monte-bank").state)
    assert [lamp.rank for lamp in frame.lamps if not lamp.in_deck] == [
        Rank.EIGHT,
        Rank.NINE,
        Rank.TEN,
    ]
