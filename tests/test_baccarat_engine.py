"""The baccarat engine, rule by rule. Each test names the seed and the section it checks:
004 (Punto Banco, Spanish) and 002 (Chemin de Fer and its variants, Spanish)."""

from __future__ import annotations

import dataclasses
import functools
import random
from collections.abc import Callable
from typing import Any

import pytest

from display.baccarat_terminal import describe
from display.baccarat_view import baccarat_view
from table.baccarat import BaccaratTable, Draw, NextCard, Phase
from table.baccarat.engine import GEOMETRY
from table.baccarat.rules import MOST_CARDS_A_COUP
from table.baccarat.shoe import BaccaratShoe, burn_count
from table.baccarat.tableau import banker_draws
from table.cards import Card
from table.errors import IllegalCommandError, RulesError, TableError
from table.events import (
    AlarmCleared,
    AlarmKind,
    AlarmRaised,
    BankPassed,
    BetSettled,
    CardDealt,
    CardRole,
    CommissionTaken,
    CoupFinished,
    CoupResult,
    CutCardOut,
    DealerCorrection,
    DealVoided,
    Event,
    HandShown,
    PunterLeft,
    ReaderNoticeKind,
    RulesChosen,
    ShoeFinished,
    ShoeStarted,
    ThirdCardChoice,
    event_from_json,
    event_to_json,
    public_record,
)
from table.games import replay_lines
from table.language import GameCmd
from tests.baccarat_tables import (
    deal,
    open_chemin_de_fer,
    open_punto_banco,
    result,
    settlements,
)


def refused(table: BaccaratTable, action: Callable[[], Any], match: str) -> None:
    """The command is refused with a message naming why, and nothing changes."""
    before = table.state.copy()
    with pytest.raises(TableError, match=match):
        action()
    assert table.state == before


# --- 004: the deal and the tableau ---------------------------------------------------------


def test_004_four_cards_first_and_third_to_punto_second_and_fourth_to_banca() -> None:
    """004, El juego: 'la primera y la tercera de la mano del jugador, la segunda y cuarta
    a la mano de la banca'; the engine knows where each card goes before it comes."""
    table = open_punto_banco()
    table.lock()
    expected = ["player", "banker", "player", "banker"]
    for card, hand in zip(["2H", "3C", "4D", "5S"], expected, strict=True):
        assert table.state.next_card() == NextCard(hand, Draw.MUST)
        table.deal(card)
    assert table.state.hand("player") == [Card.parse("2H"), Card.parse("4D")]
    assert table.state.hand("banker") == [Card.parse("3C"), Card.parse("5S")]
    # Player 6 stands; banker 8 is a natural: the coup is already over.
    assert table.state.phase is Phase.BETTING
    assert table.state.last_result is not None
    assert table.state.last_result.naturals == ("banker",)


def test_004_a_natural_ends_the_coup_and_forbids_a_third_card() -> None:
    """004: 'Si cada mano totaliza 8 o 9 ... no se agregan más cartas'."""
    table = open_punto_banco()
    table.bet("ana", "player", 10)
    table.lock()
    events = deal(table, "9S 2C KH 3D")  # player 10+9 = natural 9, banker 5
    coup = result(events)
    assert (coup.winner, coup.naturals, coup.totals) == (
        "player",
        ("player",),
        {"player": 9, "banker": 5},
    )
    assert settlements(events) == [("ana", "player", "win", 10)]
    alarm = table.deal("4C")
    assert isinstance(alarm[0], AlarmRaised)
    assert alarm[0].kind is AlarmKind.FORBIDDEN_DRAW
    assert "a natural (player) ends the coup" in alarm[0].message


def test_004_banker_four_stands_on_a_players_third_ace() -> None:
    """004, Mano de la Banca: with 4 the banker stands when the Punto's third card is 1."""
    table = open_punto_banco()
    table.bet("ana", "player", 10)
    table.lock()
    deal(table, "2H 4C 3D KC")  # player 5 draws; banker 4 waits on the third card
    assert table.state.next_card() == NextCard("player", Draw.MUST)
    events = table.deal("AS")
    coup = result(events)
    assert coup.totals == {"player": 6, "banker": 4}
    assert coup.hands["banker"] == (Card.parse("4C"), Card.parse("KC"))
    assert settlements(events) == [("ana", "player", "win", 10)]


def test_004_banker_draws_with_three_unless_the_third_card_is_an_eight() -> None:
    """004: banker 3 'reparte' on 1-2-3-4-5-6-7-9-0, 'se planta' on 8."""
    table = open_punto_banco()
    table.lock()
    deal(table, "2H 3C 2D KC 8S")  # player 4 draws an 8: banker 3 stands
    last = table.state.last_result
    assert last is not None and last.hands["banker"] == (Card.parse("3C"), Card.parse("KC"))
    table.lock()
    deal(table, "2H 3C 2D KC 9S")  # the same with a 9: banker 3 draws
    assert table.state.next_card() == NextCard("banker", Draw.MUST)


def test_004_player_stands_on_6_and_banker_draws_on_0_to_5() -> None:
    """004: Punto 6-7 se planta; the banker then draws on 0-5 (stands on 6)."""
    table = open_punto_banco()
    table.lock()
    deal(table, "6H KC KD 5S")  # player 6 stands, banker 5 draws
    assert table.state.next_card() == NextCard("banker", Draw.MUST)
    refused(table, table.stand, "the tableau makes the banker draw on 5")
    events = table.deal("AS")
    assert result(events).winner == "tie"
    table.lock()
    events = deal(table, "6H KC KD 6S")  # banker 6 stands when the player stood
    assert result(events).winner == "tie"


# --- 004: bets and payouts -----------------------------------------------------------------


def commissions(events: list[Event]) -> list[tuple[str, int, int, int]]:
    """Each commission event as (who, hundredths noted, whole chips taken, hundredths left)."""
    return [
        (event.punter, event.noted, event.amount, event.box)
        for event in events
        if isinstance(event, CommissionTaken)
    ]


def test_004_punto_pays_1_to_1_banca_even_money_with_5_percent_to_the_commission_box() -> None:
    """004, Opciones de apuesta; 002, Puntuación 3: the 5 % is noted in a register. Whole
    chips go to the house as they fall due; a fraction of a chip waits in the box."""
    table = open_punto_banco()
    table.bet("ana", "banker", 20)
    table.bet("ben", "banker", 10)
    table.bet("cy", "banker", 1)
    table.bet("cy", "player", 7)
    table.lock()
    events = deal(table, "2H 9C 3D KC")  # player 5 draws, banker 9: natural
    assert settlements(events) == [
        ("ana", "banker", "win", 20),
        ("ben", "banker", "win", 10),
        ("cy", "banker", "win", 1),
        ("cy", "player", "lose", -7),
    ]
    assert [e.note for e in events if isinstance(e, BetSettled)][:3] == [
        "5 % commission to the box: 1.00",
        "5 % commission to the box: 0.50",
        "5 % commission to the box: 0.05",
    ]
    assert commissions(events) == [("ana", 100, 1, 0), ("ben", 50, 0, 50), ("cy", 5, 0, 5)]
    state = table.state
    assert state.bankrolls == {"ana": 1019, "ben": 1010, "cy": 994}
    assert state.commission_box == {"ben": 50, "cy": 5}
    assert state.house == 1 and state.bank == 10_000 - 20 - 10 - 1 + 7
    assert state.total_chips() == 13_000


def test_two_10_chip_banca_wins_cost_exactly_one_chip_of_commission() -> None:
    """The box keeps the fraction: 5 % of 10 twice is one chip, not one chip each time."""
    table = open_punto_banco()
    for cards in ("2H 9C 3D KC", "2S 9D 3C KH"):
        table.bet("ben", "banker", 10)
        table.lock()
        events = deal(table, cards)
    assert commissions(events) == [("ben", 50, 1, 0)]
    assert table.state.bankrolls["ben"] == 1000 + 10 + 10 - 1
    assert table.state.commission_box == {} and table.state.house == 1


def test_the_box_is_settled_rounded_up_when_the_shoe_ends_or_the_punter_leaves() -> None:
    table = open_punto_banco()
    table.bet("ben", "banker", 10)
    table.bet("cy", "banker", 30)
    table.lock()
    deal(table, "2H 9C 3D KC")
    assert table.state.commission_box == {"ben": 50, "cy": 50}
    left = table.leave("ben")
    assert commissions(left) == [("ben", 0, 1, 0)]
    assert isinstance(left[-1], PunterLeft) and left[-1].bankroll == 1000 + 10 - 1
    shoe = table.new_shoe()
    assert commissions(shoe) == [("cy", 0, 1, 0)]
    assert [type(e).__name__ for e in shoe][:2] == ["CommissionTaken", "ShoeFinished"]
    assert table.state.bankrolls["cy"] == 1000 + 30 - 1 - 1
    assert table.state.commission_box == {} and table.state.house == 3
    assert table.state.total_chips() + 1009 == 13_000  # ben left with his 1009


def test_the_chip_that_settles_the_box_is_held_back_from_staking() -> None:
    table = open_punto_banco(punters={"ana": 10})
    table.bet("ana", "banker", 10)
    table.lock()
    deal(table, "2H 9C 3D KC")
    assert table.state.bankrolls["ana"] == 20 and table.state.commission_box == {"ana": 50}
    refused(table, lambda: table.bet("ana", "player", 20), "ana has only 19 chips in hand")
    table.bet("ana", "player", 19)
    table.lock()
    deal(table, "2S 9D 3C KH")  # the Banca wins again: the 19 are lost
    assert table.state.bankrolls["ana"] == 1
    assert commissions(table.leave("ana")) == [("ana", 0, 1, 0)]
    assert table.state.total_chips() == 10_010  # ana left with no chip


def test_a_box_replays_and_a_voided_card_takes_its_commission_back() -> None:
    table = BaccaratTable("t1", "punto-banco", "standard", {"burn": "none"})
    events = [*table.opening, *table.fund_bank(10_000), *table.seat("ben", 1000)]
    events += table.new_shoe() + table.bet("ben", "banker", 10) + table.lock()
    events += deal(table, "2H 9C 3D")
    before = table.state.bankrolls.copy()
    events += deal(table, "KC")
    assert table.state.commission_box == {"ben": 50}
    assert BaccaratTable.replay(events).state == table.state
    table.void_card()
    assert table.state.commission_box == {} and table.state.bankrolls == before


def test_void_deal_between_coups_is_refused_and_a_stray_card_is_voided_alone() -> None:
    """As at Faro: a coup that is over stays as it ended. Before, the stray card's alarm was
    cleared as "coup voided" with nothing voided and the card never named."""
    table = BaccaratTable("t1", "punto-banco", "standard", {"burn": "none"})
    table.fund_bank(10_000)
    table.seat("ann", 100)
    table.new_shoe()
    table.bet("ann", "player", 10)
    table.lock()
    deal(table, "KS 2H 9S 3C")
    assert not table.state.coup_in_play
    stray = table.deal("5D")
    assert isinstance(stray[-1], AlarmRaised)
    before = table.state.copy()
    with pytest.raises(IllegalCommandError, match=r"no coup is being dealt.*'void' alone clears"):
        table.void_coup()
    assert table.state == before
    voided = table.void_card()
    assert [event.type_name for event in voided] == ["dealer_correction", "alarm_cleared"]


def test_a_command_refused_while_an_alarm_waits_offers_only_what_resolves_it() -> None:
    """Between coups there is no coup to void and any card given would come as stray as the
    one alarmed: only its void resolves the alarm. A shoe run dry (002, Puntuación 5) has
    no card to void or correct: a new shoe, the coup's void, or the alarm's."""
    table = open_punto_banco()
    table.bet("ana", "banker", 10)
    table.lock()
    deal(table, "7H 7C KD KS 2C")  # a fifth card after the coup
    refused(table, table.lock, r"\); void the card first$")
    table.void_card()
    table.cut()
    table.deal("3C")  # after the shoe
    refused(table, table.new_shoe, r"\); void the card first$")
    table.void_card()
    burning = BaccaratTable("t1", "punto-banco", options={"decks": "1", "burn": "value"})
    burning.fund_bank(100)
    burning.seat("ana", 100)
    burning.new_shoe()
    deal(burning, "3C 4C")
    burning.deal("4C")  # seen once already in a one-deck shoe
    refused(burning, burning.stand, r"\); void the card or correct it first$")
    dry = open_punto_banco()
    dry.lock()
    deal(dry, "9H 10S 4D 3H")
    dry.shoe_empty()
    refused(
        dry,
        lambda: dry.bet("ana", "player", 5),
        r"\); shuffle a new shoe to finish coup 1, void the coup, or void the alarm first$",
    )
    burning.void_card()
    burning.shoe_empty()  # dry while burned, no coup waiting
    refused(burning, burning.stand, r"\); shuffle a new shoe, or void the alarm first$")


def test_a_reader_lost_mid_coup_stays_lost_when_the_coups_card_is_voided() -> None:
    table = BaccaratTable("t1", "punto-banco", "standard", {"burn": "none"})
    events = [*table.opening, *table.fund_bank(10_000), *table.seat("ben", 1000)]
    events += table.new_shoe() + table.bet("ben", "banker", 10) + table.lock()
    events += deal(table, "2H 9C")
    events += table.reader_notice("camera", ReaderNoticeKind.READER_LOST, "the camera is gone")
    events += table.void_card()
    assert table.state.readers_lost == {"camera": "the camera is gone"}
    assert len(table.state.hands[0]) + len(table.state.hands[1]) == 1
    assert BaccaratTable.replay(events).state == table.state


def test_004_tie_pays_8_to_1_and_punto_and_banca_push() -> None:
    """004: 'Cuando ambas manos tienen igual puntaje, se declara el Empate'."""
    table = open_punto_banco()
    table.bet("ana", "tie", 10)
    table.bet("ben", "player", 10)
    table.bet("cy", "banker", 10)
    table.lock()
    events = deal(table, "7H 7C KD KS")  # 7 against 7: both stand
    assert settlements(events) == [
        ("ana", "tie", "win", 80),
        ("ben", "player", "push", 0),
        ("cy", "banker", "push", 0),
    ]


def test_tie_9_to_1_no_commission_and_pairs_as_house_options() -> None:
    """Options: tie 9:1; no-commission (a Banca win with 6 pays 1:2); pairs 11:1."""
    table = open_punto_banco(rules="no-commission", tie_pays="9", pair_bets="true")
    table.bet("ana", "banker", 10)
    table.bet("ben", "bp", 5)
    table.bet("cy", "player-pair", 5)
    table.lock()
    # Player 2+3 = 5 draws a K: 5; banker 3+3 = 6 draws on a third 10? No: 6 draws on 6-7.
    events = deal(table, "2H 3C 3D 3S KH")
    coup = result(events)
    assert (coup.winner, coup.totals["banker"], coup.pairs) == ("banker", 6, ("banker",))
    assert settlements(events) == [
        ("ana", "banker", "win", 5),
        ("ben", "banker-pair", "win", 55),
        ("cy", "player-pair", "lose", -5),
    ]
    table.bet("ana", "tie", 3)
    table.lock()
    assert settlements(deal(table, "7H 7C KD KS")) == [("ana", "tie", "win", 27)]


def test_limits_bankrolls_and_the_house_bank_refuse_with_no_change() -> None:
    """Table limits and bankrolls: a bet over them is refused, naming why."""
    table = open_punto_banco(bank=100, max_bet="50", min_bet="5", punters={"ana": 60, "ben": 200})
    refused(table, lambda: table.bet("ana", "player", 4), "under the table minimum 5")
    refused(table, lambda: table.bet("ana", "player", 51), "over the table maximum 50")
    table.bet("ana", "player", 50)
    refused(table, lambda: table.bet("ana", "banker", 20), "ana has only 10 chips in hand")
    refused(table, lambda: table.bet("ben", "tie", 13), r"house bank \(100\) cannot cover")
    table.bet("ben", "tie", 12)  # 12 x 8 = 96: the bank covers it
    refused(table, lambda: table.bet("ana", "dragon", 5), "unknown side 'dragon'")
    refused(table, lambda: table.bet("ana", "player-pair", 5), "pair bets are not offered")
    refused(table, lambda: table.bet("zed", "player", 5), "zed is not seated")
    table.lock()
    refused(table, lambda: table.bet("ana", "banker", 5), "coup 1 is closed; bets are locked")


# --- misdeals ----------------------------------------------------------------------------


def test_a_card_before_bets_are_closed_is_an_alarm_and_void_resolves_it() -> None:
    """Misdeals: a card before bets are closed raises an alarm; nothing is settled."""
    table = open_punto_banco()
    table.bet("ana", "player", 10)
    events = table.deal("5H")
    assert [(e.kind, e.card) for e in events if isinstance(e, AlarmRaised)] == [
        (AlarmKind.EARLY_CARD, Card.parse("5H"))
    ]
    refused(table, lambda: table.bet("ben", "player", 5), "alarm 1 waits for the dealer")
    refused(table, lambda: table.deal("6H"), "alarm 1 waits")
    alarm = table.state.alarm
    assert alarm is not None and alarm.message.endswith("void it, lock, then deal")
    table.void_card()  # what the alarm says, step by step
    assert table.state.alarm is None and table.state.bets_open
    assert table.state.cards_out == 0
    table.lock()
    deal(table, "9C KD 7H AC 5D")
    assert table.state.coup_over


@pytest.mark.parametrize(("rules", "alarmed"), [("standard", True), ("shuffler", False)])
def test_004_with_a_shuffler_every_coups_cards_go_back_in(rules: str, alarmed: bool) -> None:
    """004: "seis mazos de cartas que se barajan después de cada mano". Dealt from a
    continuous shuffler, the same card can come in every coup; from a shoe, a seventh
    nine of spades in six decks is an alarm."""
    table = open_punto_banco(rules=rules)
    alarms = []
    for _ in range(7):
        table.bet("ana", "player", 10)
        table.lock()
        for card in ["9S", "8H", "KH", "KS"]:  # player 9, banker 8: naturals, the 9 wins
            alarms += [event for event in table.deal(card) if isinstance(event, AlarmRaised)]
            if alarms:
                break
        if alarms:
            break
    assert [alarm.message for alarm in alarms] == (
        ["card 9S has come out 6 times already in a 6-deck shoe"] if alarmed else []
    )
    if not alarmed:
        assert table.state.coup == 7 and not table.state.cut_out
        assert table.state.bankrolls["ana"] == 1070


def test_a_continuous_shufflers_shoe_names_no_cut_card_and_an_earlier_ones_still_reads() -> None:
    """A continuous shuffler never comes to a cut card: its ``shoe_started`` says it has none
    (``cut_at`` null), where a shoe's names where its cut card lies. A shuffler's shoe an
    earlier dealtable journaled with a number still reads, and replays to the same table."""
    table = BaccaratTable("t1", "punto-banco", "shuffler", {"decks": "1"})
    events = [*table.opening, *table.fund_bank(1000), *table.seat("ana", 100), *table.new_shoe()]
    events += table.bet("ana", "player", 10) + table.lock() + deal(table, "9S 8H KH KS")
    records = [event_to_json(event) for event in events]
    shoe = next(record for record in records if record["type"] == "shoe_started")
    assert shoe["cut_at"] is None
    assert describe(event_from_json(shoe)) == "shoe 1: 1 decks, 52 cards, no cut card; burn: none"
    shoe["cut_at"] = 36  # as an earlier dealtable wrote it
    earlier = BaccaratTable.replay(event_from_json(record) for record in records)
    assert earlier.state == table.state
    from_a_shoe = open_punto_banco().new_shoe()
    assert [event_to_json(e)["cut_at"] for e in from_a_shoe if isinstance(e, ShoeStarted)] == [
        6 * 52 - 16
    ]


def test_004_with_a_shuffler_a_voided_coups_cards_go_back_in_too() -> None:
    """A continuous shuffler takes back every coup's cards, a voided coup's as well: the
    card dealt again in the next coup is no duplicate, and the machine is as full as before."""
    table = open_punto_banco(rules="shuffler", decks="1")
    table.bet("ana", "player", 10)
    table.lock()
    deal(table, "9S 8H")
    table.void_coup()
    assert table.state.cards_out == 0
    table.bet("ana", "player", 10)  # the voided coup's stake came back
    table.lock()
    events = deal(table, "9S 8H KH KS")  # player 9, banker 8: the player's natural wins
    assert [event for event in events if isinstance(event, AlarmRaised)] == []
    assert table.state.bankrolls["ana"] == 1010


def test_a_third_card_the_tableau_forbids_is_an_alarm() -> None:
    """Misdeals: player 7 and banker 7 both stand; a fifth card is refused as a draw."""
    table = open_punto_banco()
    table.bet("ana", "banker", 10)
    table.lock()
    deal(table, "7H 7C KD KS")
    events = table.deal("2C")
    alarm = events[0]
    assert isinstance(alarm, AlarmRaised) and alarm.kind is AlarmKind.FORBIDDEN_DRAW
    assert "no third card to player on 7 or banker on 7" in alarm.message
    assert not [e for e in events if isinstance(e, BetSettled)]


def test_002_a_card_after_hands_that_chose_to_stand_says_they_stood() -> None:
    """002, Jugabilidad 1 and 4: the representative may stand on 5 and the banker may stand
    against the table; a card after the coup then finds hands that stood, not a tableau
    that barred them."""
    table = open_chemin_de_fer()
    table.bet("ana", "player", 30)
    table.lock()
    deal(table, "2H 2C 3D KS stand stand")  # player 5 stands; banker 2 stands against advice
    alarm = table.deal("9S")[0]
    assert isinstance(alarm, AlarmRaised)
    assert alarm.message == (
        "card 9S after coup 1 is over: the player stood on 5 and the banker stood on 2"
    )
    bound = open_chemin_de_fer(banker_discretion="false")
    bound.bet("ana", "player", 30)
    bound.lock()
    deal(bound, "2D 7C 3H KC stand")  # player 5 stands by choice; the table stands banker 7
    alarm = bound.deal("9H")[0]
    assert isinstance(alarm, AlarmRaised)
    assert alarm.message.endswith(
        "the player stood on 5; the tableau gives no third card to banker on 7"
    )


def test_a_misread_last_card_is_corrected_and_the_coup_settles_on_the_true_card() -> None:
    """Misdeals: the dealer corrects a card; the settlement from the misread is undone."""
    table = open_punto_banco()
    table.bet("ana", "player", 10)
    table.lock()
    deal(table, "2H 4C 3D KC")
    events = table.deal("AS")  # misread: settles player 6 against banker 4
    assert settlements(events) == [("ana", "player", "win", 10)]
    events = table.correct("5S")  # player 2+3+5 = 0: banker 4 draws on a third 5
    assert settlements(events) == []
    assert table.state.bankrolls["ana"] == 1000
    assert table.state.next_card() == NextCard("banker", Draw.MUST)
    assert settlements(table.deal("4D")) == [("ana", "player", "lose", -10)]


def test_void_the_coup_returns_every_stake_and_settles_nothing() -> None:
    table = open_punto_banco()
    table.bet("ana", "player", 10)
    table.bet("ben", "tie", 5)
    table.lock()
    deal(table, "2H 4C")
    events = table.void_coup()
    assert settlements(events) == [("ana", "player", "returned", 0), ("ben", "tie", "returned", 0)]
    assert isinstance(events[-1], DealVoided)
    assert table.state.bankrolls == {"ana": 1000, "ben": 1000, "cy": 1000}
    assert table.state.bets_open


def test_a_card_seen_more_often_than_the_shoe_holds_is_an_alarm() -> None:
    table = open_punto_banco(decks="1")
    table.lock()
    events = deal(table, "2H 2H")
    assert [e.kind for e in events if isinstance(e, AlarmRaised)] == [AlarmKind.DUPLICATE_CARD]


# --- the shoe -----------------------------------------------------------------------------


@pytest.mark.parametrize(("first", "burned"), [("7S", 7), ("AS", 1), ("KD", 10), ("10H", 10)])
def test_the_first_card_burns_as_many_as_its_value_a_ten_burning_ten(
    first: str, burned: int
) -> None:
    """House option burn=value: the first card shown burns its value, a ten or court ten."""
    assert burn_count(Card.parse(first)) == burned
    table = open_punto_banco(burn="value")
    assert table.state.next_card() == NextCard("burn", Draw.MUST)
    refused(table, lambda: table.bet("ana", "player", 5), "bets open once the burn is done")
    shoe = BaccaratShoe(6, 16, random.Random(3))
    events = table.deal(first)
    for _ in range(burned):
        assert table.state.phase is Phase.BURNING
        events += table.deal(shoe.draw())
    assert table.state.bets_open
    assert all(e.role is CardRole.BURN for e in events if isinstance(e, CardDealt))


def test_the_cut_card_ends_the_shoe_after_the_coup_in_play() -> None:
    """The end of the shoe at the cut card: finish the coup, then reshuffle."""
    table = BaccaratTable("t1", "punto-banco", options={"decks": "8", "burn": "none"})
    table.fund_bank(1000)
    table.seat("ana", 100)
    table.new_shoe()
    shoe = BaccaratShoe(8, 16, random.Random(5))
    events = []
    while table.state.phase is not Phase.NO_SHOE:
        events += table.lock()
        while table.state.phase is Phase.DEALING:
            events += table.deal(shoe.draw())
    cut = next(i for i, e in enumerate(events) if isinstance(e, CutCardOut))
    finished = [i for i, e in enumerate(events) if isinstance(e, CoupFinished)]
    assert isinstance(events[-1], ShoeFinished)
    assert events[-2] is events[finished[-1]]  # the coup in play was finished first
    assert finished[-2] < cut < finished[-1]
    assert shoe.past_cut and table.state.cards_out == shoe.cards_out
    assert table.state.cards_out >= 8 * 52 - 16
    refused(table, lambda: table.bet("ana", "player", 5), "shoe 1 is finished; shuffle first")
    alarm = table.deal(shoe.draw())[0]
    assert isinstance(alarm, AlarmRaised) and alarm.kind is AlarmKind.EXTRA_CARD
    table.void_card()
    table.new_shoe()
    assert table.state.shoe == 2 and table.state.bets_open


@pytest.mark.parametrize("end", ["cut", "empty"])
def test_the_end_of_the_shoe_said_while_an_alarm_waits_ends_it_once_the_alarm_clears(
    end: str,
) -> None:
    """The cut card (or an empty shoe) between coups, while a stray card's alarm waits: the
    shoe ends when the dealer voids the card, and no further coup is dealt from it."""
    table = open_punto_banco()
    table.bet("ana", "player", 10)
    table.lock()
    deal(table, "9H 2C KD 5S")
    alarm = table.deal("3C")[0]  # after a natural
    assert isinstance(alarm, AlarmRaised) and alarm.kind is AlarmKind.FORBIDDEN_DRAW
    said = table.cut() if end == "cut" else table.shoe_empty()
    assert [e.type_name for e in said] == ["cut_card_out"]
    events = table.void_card()
    assert [e.type_name for e in events] == ["dealer_correction", "alarm_cleared", "shoe_finished"]
    assert table.state.phase is Phase.NO_SHOE
    refused(table, lambda: table.bet("ana", "player", 5), "shoe 1 is finished; shuffle first")
    refused(table, table.lock, "bets are not open")


def test_before_the_first_shoe_a_refusal_says_once_that_no_shoe_is_in_play() -> None:
    table = BaccaratTable("t1", "punto-banco")
    table.fund_bank(1000)
    table.seat("ana", 100)
    for action in (lambda: table.bet("ana", "player", 5), table.cut):
        before = table.state.copy()
        with pytest.raises(TableError) as refusal:
            action()
        assert "no shoe is in play yet" in str(refusal.value)
        assert str(refusal.value).count("no shoe") == 1
        assert table.state == before


def test_the_cut_card_said_again_after_the_shoe_it_ended_is_the_same_card() -> None:
    """The cut card ends the shoe after the coup in play (counted by the table, or said by
    a reader): said again once the shoe is over (the dealer saw it come out), it is the
    card already counted, not a refusal that no cut card can come out."""
    table = open_punto_banco(decks="1", cut_card="6")
    table.bet("ana", "player", 10)
    table.lock()
    deal(table, "2H 3C")
    assert [type(e) for e in table.cut()] == [CutCardOut]
    events = deal(table, "4D 5S")  # player 6 stands, banker 8: a natural
    assert isinstance(events[-1], ShoeFinished)
    assert table.cut() == [] and table.cut() == []
    table.new_shoe()
    shoe = BaccaratShoe(decks=1, cut_card=6, rng=random.Random(3))
    while table.state.phase is not Phase.NO_SHOE:  # the table counts the cut card
        table.lock()
        while table.state.coup_in_play:
            table.deal(shoe.draw())
    assert table.state.cut_out and table.state.cards_out >= 46
    assert table.cut() == []


@pytest.mark.parametrize(
    ("game", "least"),
    [("punto-banco", 6), ("chemin-de-fer", 6), ("banque", 9), ("macao", 2)],
)
def test_a_cut_card_leaves_at_least_the_cards_of_one_coup_behind_it(game: str, least: int) -> None:
    """002, Puntuación 5 and 004: the coup the cut card interrupts is finished from the shoe,
    so the cut card lies at least as many cards from the end as one coup can take."""
    with pytest.raises(RulesError, match=f"cut_card={least - 1}: at least {least} cards behind"):
        BaccaratTable("t", game, options={"decks": "1", "cut_card": str(least - 1)})
    table = BaccaratTable("t", game, options={"decks": "1", "cut_card": str(least)})
    assert table.state.rules.cut_at == 52 - least
    family = table.state.family
    geometry = GEOMETRY[family]
    assert MOST_CARDS_A_COUP[family] == len(geometry.plan) + len(geometry.actors)
    # A journal written before the check still replays its rules.
    recorded = RulesChosen(
        table="t", seq=1, at=0.0, deal=0, game=game, rules="standard", options={"cut_card": "1"}
    )
    assert BaccaratTable.replay([recorded]).state.rules.cut_card == 1


def test_002_a_shoe_that_runs_dry_mid_coup_is_reloaded_and_the_coup_plays_on() -> None:
    """002, Puntuación 5: 'Cuando el zapato ... se agota, todas las cartas se barajan
    nuevamente y se recargan; el juego continúa'. A shoe miscounted runs dry mid-coup: a new
    shoe goes in, burned as every shoe is, and the coup is finished from it; the coup's
    cards on the table are out of the new shoe."""
    table = BaccaratTable("t1", "punto-banco", options={"decks": "1", "burn": "one"})
    events = [*table.opening, *table.fund_bank(1000), *table.seat("ana", 100)]
    events += table.new_shoe() + deal(table, "2C")
    events += table.bet("ana", "banker", 10) + table.lock()
    events += deal(table, "9H 10S 4D 3H")  # player 3 must draw
    empty = table.shoe_empty()
    assert [(e.kind, e.message) for e in empty if isinstance(e, AlarmRaised)] == [
        (
            AlarmKind.SHORT_DEAL,
            "the shoe is empty during coup 1: shuffle a new shoe to finish coup 1 (002), or "
            "void the coup (every stake returned); void this alarm if cards are left",
        )
    ]
    events += empty
    refused(table, lambda: table.deal("5H"), "alarm 1 waits for the dealer")
    reloaded = table.new_shoe()
    assert [type(e) for e in reloaded] == [AlarmCleared, ShoeFinished, ShoeStarted]
    assert isinstance(reloaded[0], AlarmCleared)
    assert reloaded[0].resolution == "a new shoe finishes coup 1"
    events += reloaded
    state = table.state
    assert (state.shoe, state.coup, state.cards_out) == (2, 1, 4)
    assert state.next_card() == NextCard("burn", Draw.MUST)
    refused(table, lambda: table.bet("ana", "player", 5), "bets open once the burn is done")
    events += deal(table, "KC")  # the new shoe's burn
    assert state.phase is Phase.DEALING and state.next_card() == NextCard("player", Draw.MUST)
    duplicate = table.deal("9H")  # on the table, so not in a one-deck shoe
    assert [e.kind for e in duplicate if isinstance(e, AlarmRaised)] == [AlarmKind.DUPLICATE_CARD]
    events += duplicate + table.void_card()
    finished = deal(table, "5H KD")  # player 3 + 5 = 8; banker 3 draws on a 5: 3
    assert settlements(finished) == [("ana", "banker", "lose", -10)]
    events += finished
    assert state.bets_open and state.shoe == 2 and state.cards_out == 7
    assert state.total_chips() == 1100 and state.bankrolls["ana"] == 90
    assert BaccaratTable.replay(events).state == state


def test_a_coup_waiting_for_a_new_shoes_burn_may_still_be_voided() -> None:
    table = BaccaratTable("t1", "punto-banco", options={"burn": "one"})
    table.fund_bank(1000)
    table.seat("ana", 100)
    table.new_shoe()
    deal(table, "2C")
    table.bet("ana", "player", 10)
    table.lock()
    deal(table, "9H 10S")
    table.shoe_empty()
    table.new_shoe()
    events = table.void_coup()
    assert [e.type_name for e in events] == ["bet_settled", "deal_voided"]
    assert table.state.bankrolls["ana"] == 100 and table.state.phase is Phase.BURNING
    deal(table, "KC")
    assert table.state.bets_open and table.state.hands == []


def test_002_the_same_banker_keeps_the_bank_across_the_reshuffle() -> None:
    """002, Puntuación 5: 'el juego continúa con el banquero actual'."""
    table = open_chemin_de_fer()
    table.bet("ana", "player", 50)
    table.lock()
    deal(table, "2H")
    table.cut()  # the reader saw the cut card: this coup is the last
    events = deal(table, "9C 5D KC")  # banker natural 9 wins
    assert isinstance(events[-1], ShoeFinished)
    table.new_shoe()
    assert table.state.banker == "bea" and table.state.bank == 150


# --- 002: Chemin de Fer ------------------------------------------------------------------


def test_002_partial_stakes_largest_holds_the_cards_and_the_bank_passes_on_a_loss() -> None:
    """002, Preparación 2 and Jugabilidad 6: stakes aggregate, the largest stake holds the
    player's cards; when the bank loses it passes counter-clockwise."""
    table = open_chemin_de_fer(bank=100)
    table.bet("ana", "player", 30)
    table.bet("ben", "player", 50)
    table.bet("cy", "player", 20)
    refused(table, lambda: table.bet("cy", "player", 1), "at most 0 more")
    table.lock()
    events = deal(table, "9H 2C KD 5S")  # player natural 9 against banker 7
    coup = result(events)
    assert coup.holders == {"player": "ben", "banker": "bea"}
    assert settlements(events) == [
        ("ana", "player", "win", 30),
        ("ben", "player", "win", 50),
        ("cy", "player", "win", 20),
    ]
    assert [(e.from_banker, e.to_banker) for e in events if isinstance(e, BankPassed)] == [
        ("bea", "ana")
    ]
    assert table.state.bankrolls == {"bea": 400, "ana": 530, "ben": 550, "cy": 520}
    assert table.state.bank == 0
    refused(table, lambda: table.bet("ben", "player", 5), "ana has not announced a bank")


def test_002_banco_one_punter_covers_the_bank_and_partial_stakes_come_back() -> None:
    """002, Preparación 2: 'banco' makes the caller the sole representative."""
    table = open_chemin_de_fer(bank=100, seats={"bea": 500, "ana": 500, "ben": 500, "cy": 90})
    table.bet("ana", "player", 30)
    refused(table, lambda: table.banco("cy"), "cy has 90 chips and cannot cover the bank of 100")
    refused(table, lambda: table.banco("bea"), "bea holds the bank")
    events = table.banco("ben")
    assert [(e.type_name, e.punter, e.amount) for e in events] == [  # type: ignore[attr-defined]
        ("bet_withdrawn", "ana", 30),
        ("bet_placed", "ben", 100),
    ]
    refused(table, lambda: table.bet("ana", "player", 10), "ben called banco")
    table.lock()
    events = deal(table, "3H 9C 5D KS")  # banker natural 9
    assert settlements(events) == [("ben", "banco", "lose", -100)]
    assert table.state.bank == 200 and table.state.banker == "bea"  # winnings grow the bank


def test_002_a_banco_is_withdrawn_whole_or_not_at_all() -> None:
    """002, Glosario: 'Banco: una llamada que iguala toda la apuesta de banca'. A banco cut
    down would leave a stake smaller than the bank that still shuts out every other punter."""
    table = open_chemin_de_fer()
    table.banco("ana")
    refused(table, lambda: table.withdraw("ana", "banco", 60), "a banco covers the whole bank")
    refused(table, lambda: table.bet("ben", "player", 10), "ana called banco")
    table.withdraw("ana", "banco")
    assert table.state.banco is None and not table.state.bets
    table.bet("ana", "player", 40)
    table.bet("ben", "player", 10)
    assert table.state.staked == 50


def test_002_the_representative_chooses_at_5_known_from_the_next_card_or_stand() -> None:
    """002, Jugabilidad 1: at 5 the representative may draw or stand."""
    table = open_chemin_de_fer()
    table.bet("ana", "player", 40)
    table.lock()
    deal(table, "2H 3C 3D JC")  # player 5, banker 3
    assert table.state.next_card() == NextCard("player", Draw.MAY)
    events = table.stand()
    assert [
        (e.hand, e.total, e.draws, e.advised) for e in events if isinstance(e, ThirdCardChoice)
    ] == [("player", 5, False, "free")]
    # The player stood: the banker follows 0-5 draw, 6-7 stand, with discretion.
    assert table.state.next_card() == NextCard("banker", Draw.MAY, True)
    events = table.deal("4S")  # the banker draws: 3 + 4 = 7 beats 5
    choice = next(e for e in events if isinstance(e, ThirdCardChoice))
    assert (choice.hand, choice.draws, choice.deviation) == ("banker", True, False)
    assert settlements(events) == [("ana", "player", "lose", -40)]
    assert table.state.bank == 140


def choices_told(events: list[Event]) -> list[tuple[str, int, bool, bool]]:
    return [(e.hand, e.total, e.draws, e.forced) for e in events if isinstance(e, ThirdCardChoice)]


def test_002_every_draw_and_stand_of_a_hand_held_face_down_is_told_forced_or_chosen() -> None:
    """002: the players hold their hands face down and say only "card" or "no". A choice is
    told, and so is every draw and stand the tableau forces, so that a choice told alone does
    not say the hand's total (a representative chooses only at 5)."""
    table = open_chemin_de_fer(banker_discretion="false")
    table.bet("ana", "player", 40)
    table.lock()
    events = deal(table, "2H 3C 4D JC")  # player 6 stands; banker 3 draws
    assert choices_told(events) == []  # told at the player's "non", as a stand on 5 is
    assert choices_told(table.stand()) == [("player", 6, False, True)]
    events = table.deal("4S")
    assert choices_told(events) == [("banker", 3, True, True)]
    assert isinstance(events[0], ThirdCardChoice) and isinstance(events[1], CardDealt)
    assert table.state.choices == {} and table.state.deviations == 0  # nothing was chosen
    assert all(e.face_down for e in table.state.since_checkpoint if isinstance(e, ThirdCardChoice))

    again = open_chemin_de_fer()
    again.bet("ana", "player", 40)
    again.lock()
    events = deal(again, "2H 3C 2D 5C")  # player 4, banker 8: a natural ends the coup
    assert choices_told(events) == []  # the natural ended the coup on its first cards


def test_002_a_void_of_the_bankers_second_card_leaves_the_players_no_to_come() -> None:
    table = open_chemin_de_fer()
    table.bet("ana", "player", 40)
    table.lock()
    deal(table, "2H 3C 4D JC")  # player 6 stands, as the tableau makes it
    assert [e.card.code for e in table.void_card() if isinstance(e, DealerCorrection)] == ["JC"]
    assert choices_told(deal(table, "2C")) == []
    assert table.state.next_card() == NextCard("player", Draw.MUST_NOT)
    assert choices_told(table.stand()) == [("player", 6, False, True)]
    assert table.state.next_card() == NextCard("banker", Draw.MAY, True)  # banker 5: draw


def public_coup(events: list[Event]) -> list[dict[str, Any]]:
    """Events as the MQTT events topic gives them, up to the coup's result (which shows
    every hand)."""
    told = []
    for event in events:
        if isinstance(event, CoupResult):
            break
        told.append(public_record(event_to_json(event)))
    return told


def chemin_de_fer_at_the_banker_second_card(
    player_second: str, banker_second: str = "JC", banker_discretion: str = "true"
) -> tuple[BaccaratTable, list[Event]]:
    """ana's 40 on the player; 2H, 3C, ``player_second`` and ``banker_second`` out at 10,
    11, 12 and 13: the player holds 2 and that card, the banker 3 and that card."""
    table = open_chemin_de_fer(banker_discretion=banker_discretion)
    table.bet("ana", "player", 40)
    events = table.lock(at=5.0)
    cards = ("2H", "3C", player_second, banker_second)
    for at, card in zip((10.0, 11.0, 12.0, 13.0), cards, strict=True):
        events += table.deal(card, at=at)
    return table, events


def test_002_a_forced_stand_waits_for_the_players_no_as_a_stand_on_5_does() -> None:
    """002: at the table the player says "non" on 5, 6 or 7 alike. A forced stand told at
    the banker's second card, with that card's time, and a chosen one only when the dealer
    keys it, would tell the room a 6 or 7 from a 5 by when it comes: on 6 and 7 the dealer
    keys the player's "non" too, and the stand is told then. While the table waits for it
    the screens show the same."""
    told, views, kept = [], [], []
    for second in ("3D", "4D", "5D"):  # the player holds 5, 6, 7
        table, events = chemin_de_fer_at_the_banker_second_card(second)
        assert choices_told(events) == []  # not at the banker's second card
        assert table.state.next_card().hand == "player"
        waiting = baccarat_view(table.state, [])
        events += table.stand(at=20.0)
        assert table.state.next_card() == NextCard("banker", Draw.MAY, True)
        views.append((waiting, baccarat_view(table.state, [])))
        events += table.deal("5S", at=30.0)  # banker 3 draws: 8
        told.append(public_coup(events))
        kept.append(choices_told(events)[0])
    assert told[0] == told[1] == told[2]
    assert views[0] == views[1] == views[2]
    assert [
        (e["hand"], e["draws"], e["at"]) for e in told[0] if e["type"] == "third_card_choice"
    ] == [("player", False, 20.0), ("banker", True, 30.0)]
    assert kept == [
        ("player", 5, False, False),
        ("player", 6, False, True),
        ("player", 7, False, True),
    ]


def test_002_a_players_no_not_keyed_is_told_as_play_moves_past_the_hand() -> None:
    """The dealer may slide the banker's card without keying the player's "non" on 6: the
    stand is told as that card comes, with its time, before the banker's draw. A void of
    that card leaves it told: the next card is the banker's."""
    table, _ = chemin_de_fer_at_the_banker_second_card("4D")
    events = table.deal("5S", at=30.0)
    assert [(type(e), e.at) for e in events[:3]] == [
        (ThirdCardChoice, 30.0),
        (ThirdCardChoice, 30.0),
        (CardDealt, 30.0),
    ]
    assert choices_told(events) == [("player", 6, False, True), ("banker", 3, True, False)]
    voided = table.void_card(at=31.0)
    assert [e.card.code for e in voided if isinstance(e, DealerCorrection)] == ["5S"]
    assert table.state.next_card() == NextCard("banker", Draw.MAY, True)
    assert choices_told(table.deal("6S", at=32.0)) == [("banker", 3, True, False)]
    corrected = table.correct("2S", at=33.0)
    assert choices_told(corrected) == [("banker", 3, True, False)]
    assert result(corrected).hands["banker"] == tuple(Card.parse(c) for c in ("3C", "JC", "2S"))


def test_002_where_the_banker_is_bound_the_coup_waits_for_the_players_no_on_6_as_on_5() -> None:
    """Without the banker's discretion, a banker on 7 stands as the tableau makes it: on 6
    the coup would end at the banker's second card, on 5 only at the player's word."""
    told = []
    for second in ("3D", "4D"):  # player 5, 6; banker 3 + 4 = 7
        table, events = chemin_de_fer_at_the_banker_second_card(
            second, "4C", banker_discretion="false"
        )
        assert table.state.phase is Phase.DEALING and table.state.next_card().hand == "player"
        events += table.stand(at=20.0)
        assert result(events).totals["banker"] == 7
        told.append(public_coup(events))
    assert told[0] == told[1]
    assert [(e["hand"], e["at"]) for e in told[0] if e["type"] == "third_card_choice"] == [
        ("player", 20.0),
        ("banker", 20.0),
    ]
    # There a card slid instead of the player's word on 6 is no hand's: an alarm, and the
    # stand waits still.
    table, _ = chemin_de_fer_at_the_banker_second_card("4D", "4C", banker_discretion="false")
    alarm = table.deal("9C", at=15.0)
    assert [(type(e), e.kind) for e in alarm] == [(AlarmRaised, AlarmKind.EXTRA_CARD)]  # type: ignore[attr-defined]
    table.void_card(at=16.0)
    assert choices_told(table.stand(at=20.0)) == [
        ("player", 6, False, True),
        ("banker", 7, False, True),
    ]


def test_002_a_card_no_hand_takes_while_a_players_no_waits_names_the_stand_to_key() -> None:
    """A banker bound to stand takes no card, nor does a player the tableau makes stand: a
    card slid before the player's "non" is keyed is an alarm. Voided, it leaves the coup
    waiting for that "non" (before, such a coup had ended by itself), so the alarm says what
    the dealer keys next, naming no total of a hand still face down."""
    table, _ = chemin_de_fer_at_the_banker_second_card("4D", "4C", banker_discretion="false")
    (alarm,) = table.deal("9C", at=15.0)
    assert isinstance(alarm, AlarmRaised) and not alarm.face_down
    assert alarm.message == (
        'card 9C during coup 1: no hand takes a card now; the player\'s "non" is keyed '
        "with 'stand'"
    )
    banque = open_chemin_de_fer(game="banque", bank=200, banker_discretion="false")
    banque.bet("ana", "right", 20)
    banque.lock()
    deal(banque, "2H 2C 3C 4D 5S 4S")  # right 6, left 7, banker 7: no hand draws
    (alarm,) = banque.deal("9C")
    assert isinstance(alarm, AlarmRaised)
    assert alarm.message.endswith("the right hand's \"non\" is keyed with 'stand'")


def test_002_a_void_around_the_players_no_goes_alike_on_5_and_on_6() -> None:
    """The banker's second card may be voided while the player's word waits, and no longer
    once the dealer has keyed it, on 6 as on 5."""
    for second in ("3D", "4D"):
        table, _ = chemin_de_fer_at_the_banker_second_card(second)
        voided = table.void_card(at=14.0)
        assert [e.card.code for e in voided if isinstance(e, DealerCorrection)] == ["JC"]
        assert choices_told(voided) == []
        table.deal("QC", at=15.0)
        table.stand(at=20.0)
        refused(table, table.void_card, r"play went on after the last card \(third card choice\)")
        refused(table, functools.partial(table.correct, "KC"), "play went on after the last card")
        assert table.state.next_card() == NextCard("banker", Draw.MAY, True)


def test_002_banque_each_hands_stand_is_told_at_its_own_no() -> None:
    """002, Baccarat Banque: a hand's forced stand is not told with the other hand's chosen
    one, nor the other way round: each hand's "non", keyed by the dealer, tells it."""
    told = []
    # right 2H + 3D, 4D or 5D: 5, 6 or 7; left 2C + 3S or 4S: 5 or 6; banker 3C + JC: 3
    for right, left in (("3D", "3S"), ("3D", "4S"), ("4D", "3S"), ("5D", "4S")):
        table = open_chemin_de_fer(game="banque", bank=200)
        table.bet("ana", "right", 20)
        table.bet("ben", "left", 30)
        events = table.lock(at=5.0)
        for at, card in enumerate(("2H", "2C", "3C", right, left, "JC"), start=10):
            events += table.deal(card, at=float(at))
        events += table.stand(at=20.0)
        assert table.state.next_card().hand == "left"
        events += table.stand(at=25.0)
        events += table.deal("5S", at=30.0)  # banker 3 draws
        told.append(public_coup(events))
    assert told[0] == told[1] == told[2] == told[3]
    assert [
        (e["hand"], e["draws"], e["at"]) for e in told[0] if e["type"] == "third_card_choice"
    ] == [("right", False, 20.0), ("left", False, 25.0), ("banker", True, 30.0)]


def test_002_journals_written_before_forced_stands_were_told_fold_alike() -> None:
    """A journal written before forced stands were told holds none: there a card, or the
    banker's stand, passes the player's hand that the tableau made stand."""
    opening = [
        "game chemin-de-fer",
        "rules standard burn=none",
        *(f"punter {name} 500" for name in ("bea", "ana", "ben")),
        "shuffle",
        "bank 100",
        "bet ana player 40",
        "lock",
        *(f"card {card}" for card in ("2H", "3C", "4D", "JC")),  # player 6, banker 3
    ]
    for ending in (["stand", "stand"], ["card 5S"]):  # the banker stands; draws
        replay = replay_lines([*opening, *ending])
        assert not replay.errors and isinstance(replay.game, BaccaratTable)
        dealt = replay.game.state
        earlier = [
            dataclasses.replace(event, seq=seq)
            for seq, event in enumerate(
                (e for e in replay.events if not (isinstance(e, ThirdCardChoice) and e.forced)),
                start=1,
            )
        ]
        assert len(earlier) == len(replay.events) - 1
        folded = BaccaratTable.replay(earlier).state
        assert folded.last_result is not None and dealt.last_result is not None
        assert folded.last_result.hands == dealt.last_result.hands
        assert (folded.phase, folded.bankrolls, folded.bank) == (
            dealt.phase,
            dealt.bankrolls,
            dealt.bank,
        )


def test_002_a_stand_refused_names_no_total_of_a_hand_held_face_down() -> None:
    """002: the players hold their cards face down. A refusal goes back to whoever sent the
    command, over MQTT on the reply topic every terminal reads unless the sender asked for its
    own: a player who must draw is told so, not what he holds."""
    table = open_chemin_de_fer()
    table.bet("ana", "player", 40)
    table.lock()
    deal(table, "2H 3C 2D JC")  # player 4 must draw; banker 3
    with pytest.raises(IllegalCommandError, match="the tableau makes the player draw") as refusal:
        table.stand()
    assert "4" not in str(refusal.value)
    bound = open_chemin_de_fer(banker_discretion="false")
    bound.bet("ana", "player", 40)
    bound.lock()
    deal(bound, "2H 3C 4D JC stand")  # player 6 says "non"; banker 3 must draw
    with pytest.raises(IllegalCommandError, match="the tableau makes the banker draw") as refusal:
        bound.stand()
    assert "3" not in str(refusal.value)


def test_002_a_strict_table_makes_the_representative_stand_at_5() -> None:
    """002, Jugabilidad 1: 'algunas mesas estrictas obligan a plantarse en 5'."""
    table = open_chemin_de_fer(rules="strict")
    table.bet("ana", "player", 40)
    table.lock()
    deal(table, "2H 3C 3D JC")
    assert table.state.next_card() == NextCard("player", Draw.MUST_NOT)  # his "non" is next
    assert choices_told(table.stand()) == [("player", 5, False, True)]
    assert table.state.next_card().hand == "banker"


def test_002_the_banker_may_deviate_from_the_table_and_each_deviation_is_recorded() -> None:
    """002, Jugabilidad 3-4: banker 3 stands on a third 8 by the table, but may draw."""
    table = open_chemin_de_fer()
    table.bet("ana", "player", 40)
    table.lock()
    deal(table, "2H 3C 2D JC 8S")  # player 4 draws an 8 (total 2); banker 3
    assert table.state.next_card() == NextCard("banker", Draw.MAY, False)
    events = table.deal("5S")  # draws anyway: 8
    choice = next(e for e in events if isinstance(e, ThirdCardChoice))
    assert (choice.advised, choice.draws, choice.deviation) == ("stand", True, True)
    assert table.state.deviations == 1
    table2 = open_chemin_de_fer(banker_discretion="false")
    table2.bet("ana", "player", 40)
    table2.lock()
    deal(table2, "2H 3C 2D JC 8S")
    assert table2.state.next_card() == NextCard(None, Draw.MUST_NOT)  # the table is binding


def test_002_a_tie_moves_no_money_and_the_stakes_stay_for_the_next_coup() -> None:
    """002, Puntuación 4: 'la banca y todas las apuestas permanecen en su lugar'."""
    table = open_chemin_de_fer()
    table.bet("ana", "player", 40)
    table.lock()
    events = deal(table, "2H 2C 5D 5S stand stand")  # 7 against 7: both say "non"
    assert settlements(events) == [("ana", "player", "push", 0)]
    assert [bet.stake for bet in table.state.bets.values()] == [40]
    assert table.state.banker == "bea" and table.state.bank == 100
    refused(table, lambda: table.withdraw("ana", "player"), "the stakes of the tied coup stand")
    refused(table, lambda: table.withdraw("ben", "player"), "ben has no stake on player")
    table.lock()
    events = deal(table, "9H 2C KD 5S")
    assert settlements(events) == [("ana", "player", "win", 40)]


def test_002_a_stake_placed_after_a_tie_may_come_back_the_tied_stake_stands() -> None:
    """002, Jugabilidad 7: the tied coup's stakes stay for the next coup; a stake placed
    since was never in the tie, and comes back as any stake does while bets are open."""
    table = open_chemin_de_fer()
    table.bet("ana", "player", 40)
    table.lock()
    deal(table, "2H 2C 5D 5S stand stand")  # 7 against 7: a tie, ana's 40 stays
    table.bet("ben", "player", 10)
    table.bet("ana", "player", 20)
    refused(table, lambda: table.withdraw("ana", "player", 30), "40 of it stands from the tied")
    events = table.withdraw("ana", "player")
    assert [(e.amount, e.stake) for e in events] == [(20, 40)]  # type: ignore[attr-defined]
    refused(table, lambda: table.withdraw("ana", "player"), "the stakes of the tied coup stand")
    events = table.withdraw("ben", "player")
    assert [(e.amount, e.stake) for e in events] == [(10, 0)]  # type: ignore[attr-defined]
    table.lock()
    events = deal(table, "9H 2C KD 5S")
    assert settlements(events) == [("ana", "player", "win", 40)]
    assert table.state.tied == {} and not table.state.carried


def test_002_casino_commission_5_percent_of_the_banks_winnings() -> None:
    """002, Puntuación 3: the casino takes 5 % of the bank's winnings (rounded up)."""
    table = open_chemin_de_fer(rules="casino")
    table.bet("ana", "player", 30)
    table.bet("ben", "player", 50)
    table.lock()
    events = deal(table, "3H 9C 5D KS")
    commission = [e for e in events if isinstance(e, CommissionTaken)]
    assert [(e.punter, e.amount) for e in commission] == [("bea", 4)]
    assert table.state.bank == 176 and table.state.house == 4
    assert table.state.total_chips() == 2000


def test_002_the_bankers_commission_box_is_settled_when_the_bank_passes() -> None:
    """002, Puntuación 3: a bank's 30 won notes 1.50; one chip goes at once, the half
    waits in the box and is taken, rounded up, when the bank passes from bea."""
    table = open_chemin_de_fer(rules="casino")
    table.bet("ana", "player", 30)
    table.lock()
    events = deal(table, "3H 9C 5D KS")  # the bank's natural 9 wins
    assert commissions(events) == [("bea", 150, 1, 50)]
    assert table.state.bank == 129 and table.state.commission_box == {"bea": 50}
    table.bet("ana", "player", 20)
    table.lock()
    events = deal(table, "9H 2C KD 3S")  # a natural 9 against 5: the bank loses, and passes
    assert commissions(events) == [("bea", 0, 1, 0)]
    passed = [e for e in events if isinstance(e, BankPassed)]
    assert [(e.from_banker, e.to_banker) for e in passed] == [("bea", "ana")]
    assert table.state.bankrolls["bea"] == 500 + 30 - 20 - 2
    assert table.state.house == 2 and table.state.commission_box == {}
    assert table.state.total_chips() == 2000


def test_002_the_chip_that_settles_the_bankers_box_is_held_back_from_the_bank() -> None:
    """002, Puntuación 3: the commission noted against a winning bank is paid even when
    the bank is then lost: the chip that will settle the box cannot be faded, and the
    house takes it, rounded up, as the bank passes."""
    seats = {"bea": 100, "ana": 300, "ben": 300}
    table = open_chemin_de_fer(rules="casino", bank=100, seats=seats)
    table.bet("ana", "player", 10)
    table.lock()
    deal(table, "2H 9C 4D KS")  # the bank's natural 9 wins 10: 0.50 noted against bea
    assert table.state.bank == 110 and table.state.commission_box == {"bea": 50}
    table.bet("ana", "player", 60)
    refused(
        table,
        lambda: table.bet("ben", "player", 50),
        "the bank holds 110, 1 of it held back for bea's commission box, and 60 is already "
        "staked; at most 49 more",
    )
    called = table.banco("ben")
    assert [(e.type_name, e.amount) for e in called] == [  # type: ignore[attr-defined]
        ("bet_withdrawn", 60),
        ("bet_placed", 109),
    ]
    table.lock()
    events = deal(table, "9H 2C KD 3S")  # a natural 9 against 5: ben takes all 109
    assert settlements(events) == [("ben", "banco", "win", 109)]
    assert commissions(events) == [("bea", 0, 1, 0)]
    passed = [e for e in events if isinstance(e, BankPassed)]
    assert [(e.from_banker, e.to_banker) for e in passed] == [("bea", "ana")]
    assert table.state.bankrolls == {"bea": 0, "ana": 290, "ben": 409}
    assert table.state.house == 1 and table.state.total_chips() == 700


def test_002_a_bank_given_to_another_banker_passes_and_its_box_is_settled() -> None:
    """002, Jugabilidad 6 and Puntuación 3: a banker gives up a bank only by passing it;
    naming another banker while a bank is held is that pass, and the commission noted
    against the bank is taken as it goes."""
    table = open_chemin_de_fer(rules="casino")
    table.bet("ana", "player", 10)
    table.lock()
    deal(table, "2H 9C 4D KS")  # the bank's natural 9 wins 10: 0.50 noted against bea
    refused(table, lambda: table.choose_banker("bea"), "bea is the banker already")
    events = table.choose_banker("ben")
    assert commissions(events) == [("bea", 0, 1, 0)]
    assert [(e.from_banker, e.to_banker) for e in events if isinstance(e, BankPassed)] == [
        ("bea", "ben")
    ]
    assert table.state.banker == "ben" and table.state.bank == 0
    assert table.state.bankrolls["bea"] == 500 + 10 - 1 and table.state.house == 1
    events = table.choose_banker("cy")  # ben declines the bank before announcing one
    assert not [e for e in events if isinstance(e, BankPassed)]
    table.announce_bank(100)
    table.bet("bea", "player", 100)
    assert table.state.total_chips() == 2000


def test_002_the_banker_withdraws_after_a_win_and_the_bank_passes() -> None:
    """002, Jugabilidad 6: the banker may withdraw after any coup won."""
    table = open_chemin_de_fer()
    table.bet("ana", "player", 30)
    table.lock()
    deal(table, "3H 9C 5D KS")
    events = table.pass_bank()
    assert [(e.from_banker, e.to_banker) for e in events if isinstance(e, BankPassed)] == [
        ("bea", "ana")
    ]
    assert table.state.bankrolls["bea"] == 530
    table.announce_bank(200)
    refused(table, lambda: table.bet("ben", "player", 201), "the bank holds 200")


def test_002_a_bank_with_nobody_else_seated_has_no_one_to_pass_to() -> None:
    """002, Jugabilidad 6: the bank passes counter-clockwise to the next player; with the
    banker alone at the table there is none, and a pass is refused rather than handing
    the bank back to its own holder."""
    table = open_chemin_de_fer(seats={"bea": 500, "ana": 500, "ben": 500})
    table.leave("ana")
    table.leave("ben")
    refused(table, table.pass_bank, r"^pass: nobody else is seated to take bea's bank$")
    table.seat("cy", 300)
    events = table.pass_bank()
    assert [(e.from_banker, e.to_banker) for e in events if isinstance(e, BankPassed)] == [
        ("bea", "cy")
    ]


def test_002_a_bank_under_the_table_minimum_is_refused_as_no_stake_could_fade_it() -> None:
    """002, Preparación 1-2: the punters fade the bank the banker announces; one below the
    table minimum could take no stake, and the table would wait on it until it passed."""
    table = open_chemin_de_fer(bank=None, min_bet="5")
    refused(
        table,
        lambda: table.announce_bank(4),
        r"^bank 4: under the table minimum 5, so no stake could fade it$",
    )
    table.announce_bank(5)
    table.bet("ana", "player", 5)


def test_002_three_to_twelve_seats() -> None:
    """002, Jugadores: at least 3 (a banker and two representatives), at most 12."""
    table = BaccaratTable("t1", "chemin-de-fer")
    table.seat("bea", 100)
    table.seat("ana", 100)
    refused(table, table.new_shoe, "at least 3 seated")
    for number in range(10):
        table.seat(f"p{number}", 100)
    refused(table, lambda: table.seat("late", 100), "all 12 seats")


def test_002_a_punter_may_leave_below_three_seated_and_play_waits_for_another() -> None:
    """002, Jugadores: 'El número mínimo de jugadores es 3 (un banquero y dos
    representantes)'. Nobody is held at a table: the leave is taken, and the next coup
    waits, its bets and lock refused, until a third player sits down."""
    table = open_chemin_de_fer(seats={"bea": 500, "ana": 500, "ben": 500})
    table.bet("ana", "player", 40)
    table.lock()
    deal(table, "2H 2C 5D 5S stand stand")  # 7 against 7: a tie, ana's 40 stays
    table.leave("ben")
    short = "needs at least 3 seated.*; 2 seated, so play waits until another punter sits down"
    refused(table, table.lock, short)
    refused(table, lambda: table.bet("ana", "player", 10), short)
    refused(table, lambda: table.banco("ana"), short)
    # The tied coup cannot be played short-handed: its stake may come back.
    table.withdraw("ana", "player")
    table.seat("cy", 500)
    table.bet("ana", "player", 40)
    table.lock()
    events = deal(table, "9H 2C KD 5S")
    assert settlements(events) == [("ana", "player", "win", 40)]


def _tie_as_the_shoes_last_coup() -> BaccaratTable:
    table = open_chemin_de_fer(seats={"bea": 500, "ana": 500, "ben": 500})
    table.bet("ana", "player", 40)
    table.lock()
    table.cut()
    events = deal(table, "2H 2C 5D 5S stand stand")  # 7 against 7: a tie, the shoe's last coup
    assert isinstance(events[-1], ShoeFinished) and table.state.phase is Phase.NO_SHOE
    return table


def test_002_a_tie_as_the_shoes_last_coup_stands_for_the_next_shoes_first() -> None:
    """002, Puntuación 4-5: a tie leaves every stake for the next coup, and a new shoe keeps
    the banker."""
    table = _tie_as_the_shoes_last_coup()
    refused(table, lambda: table.withdraw("ana", "player"), "the stakes of the tied coup stand")
    table.new_shoe()
    refused(table, lambda: table.withdraw("ana", "player"), "the stakes of the tied coup stand")
    table.lock()
    events = deal(table, "9H 2C KD 5S")
    assert settlements(events) == [("ana", "player", "win", 40)]


def test_rules_refused_between_shoes_name_the_stakes_on_the_layout_not_the_shoe() -> None:
    """Between shoes the rules may change, unless stakes still lie on the layout: the
    refusal names them (002, Puntuación 4: a tie's stand for the next coup), not the shoe."""
    table = _tie_as_the_shoes_last_coup()
    refused(
        table,
        lambda: table.choose_rules("casino"),
        r"^rules casino: the stakes of the tied coup stand for the next coup \(002\): ana 40 "
        r"on player; the rules change once it is played$",
    )
    table.leave("ben")  # short-handed, the tied stake may come back
    refused(table, lambda: table.choose_rules("casino"), "once they are withdrawn$")
    placed = open_punto_banco()
    placed.bet("ana", "player", 30)
    placed.cut()
    refused(
        placed,
        lambda: placed.choose_rules("no-commission"),
        r"^rules no-commission: stakes lie on the layout: ana 30 on player; the rules change "
        r"once they are withdrawn$",
    )
    placed.withdraw("ana", "player")
    assert [e.type_name for e in placed.choose_rules("no-commission")] == ["rules_chosen"]


def test_002_a_tie_as_the_shoes_last_coup_comes_back_short_handed() -> None:
    """Short of players between shoes no shoe can go in: the tied stake comes back there as
    it would while bets are open, and its punter may leave."""
    table = _tie_as_the_shoes_last_coup()
    table.leave("ben")
    refused(table, table.new_shoe, "needs at least 3 seated")
    events = table.withdraw("ana", "player")
    assert [(e.type_name, e.amount) for e in events] == [("bet_withdrawn", 40)]  # type: ignore[attr-defined]
    assert [e.type_name for e in table.leave("ana")] == ["punter_left"]
    assert table.state.bankrolls == {"bea": 500}


def test_stakes_placed_before_the_cut_may_come_back_between_shoes() -> None:
    table = open_punto_banco()
    table.bet("ana", "player", 30)
    table.cut()
    assert table.state.phase is Phase.NO_SHOE
    refused(table, lambda: table.bet("ana", "player", 5), "shoe 1 is finished; shuffle first")
    table.withdraw("ana", "player", 10)
    table.withdraw("ana", "player")
    assert [e.type_name for e in table.leave("ana")] == ["punter_left"]


def test_002_in_chemin_de_fer_punters_stake_only_against_the_bank() -> None:
    table = open_chemin_de_fer()
    refused(table, lambda: table.bet("ana", "banker", 10), "stake against the bank")
    refused(table, lambda: table.bet("ana", "tie", 10), "unknown side 'tie'")
    refused(table, lambda: table.bet("ana", "player", 101), "the bank holds 100")
    refused(table, lambda: table.lock(), "nobody has faded the bank")


def test_the_bank_refused_during_a_new_shoes_burn_waits_for_the_burn_not_a_coup() -> None:
    """While a new shoe is burned no coup is in play: the bank's announcement, a pass or
    the house's funds wait for the burn; a coup waiting for the burn of a shoe loaded to
    finish it (002, Puntuación 5) is waited for as before."""
    table = BaccaratTable("t1", "chemin-de-fer", options={"burn": "one"})
    for name in ("bea", "ana", "ben"):
        table.seat(name, 500)
    table.new_shoe()
    refused(
        table,
        lambda: table.announce_bank(100),
        r"^bank 100: not while shoe 1 is burned; wait until the burn is done$",
    )
    refused(table, table.pass_bank, r"^pass: not while shoe 1 is burned; wait until the burn")
    house = BaccaratTable("t2", "punto-banco", options={"burn": "one"})
    house.seat("ana", 100)
    house.new_shoe()
    refused(house, lambda: house.fund_bank(10), r"^bank 10: not while shoe 1 is burned; wait")
    house.deal("5S")
    house.fund_bank(1000)
    house.lock()
    deal(house, "9H 10S")
    house.shoe_empty()
    house.new_shoe()  # loaded to finish coup 1: burned first
    refused(house, lambda: house.fund_bank(10), r"^bank 10: not during coup 1; wait for the coup")


def test_002_a_lock_before_the_bank_is_announced_asks_for_the_bank() -> None:
    """002, Preparación 1: the banker announces the bank before anyone fades it: a lock
    then is refused for the bank not announced, not for the stakes not placed."""
    table = open_chemin_de_fer(bank=None)
    refused(table, table.lock, r"^lock: bea has not announced a bank yet$")
    table.announce_bank(100)
    table.bet("ana", "player", 100)
    table.lock()
    deal(table, "9H 2C KD 5S")  # the player's natural: the bank passes to ana
    assert table.state.banker == "ana" and not table.state.bank
    refused(table, table.lock, r"^lock: ana has not announced a bank yet$")


# --- 002: Baccarat Banque and Macao -----------------------------------------------------


def test_002_banque_two_player_hands_against_one_banker() -> None:
    """002, Variantes, Baccarat Banque: the banker deals two player hands and plays both."""
    table = open_chemin_de_fer(game="banque", bank=200)
    table.bet("ana", "right", 20)
    table.bet("ben", "left", 30)
    table.lock()
    order = [table.state.next_card().hand]
    for card in ["9S", "2H", "3C", "KD", "4H"]:
        table.deal(card)
        order.append(table.state.next_card().hand)
    assert order == ["right", "left", "banker", "right", "left", "banker"]
    table.deal("4C")  # right 9 natural, left 6 stands, banker 7 chooses
    assert table.state.next_card() == NextCard("left", Draw.MUST_NOT)  # its "non" is next
    table.stand()
    assert table.state.next_card() == NextCard("banker", Draw.MAY, False)
    events = table.stand()
    coup = result(events)
    assert coup.winners == {"right": "player", "left": "banker"}
    assert coup.holders == {"right": "ana", "left": "ben", "banker": "bea"}
    assert settlements(events) == [("ana", "right", "win", 20), ("ben", "left", "lose", -30)]
    assert table.state.bank == 210 and table.state.banker == "bea"


@pytest.mark.parametrize(
    ("game", "cards", "face_down"),
    [
        ("punto-banco", "9S 2H 3C KD", [False] * 4),
        ("chemin-de-fer", "2H 3C 3D JC 5S", [True] * 4 + [False]),
        ("macao", "7S 5D", [True, True]),
    ],
)
def test_002_the_cards_the_players_hold_are_dealt_face_down(
    game: str, cards: str, face_down: list[bool]
) -> None:
    """002: where the players hold the cards, each hand's first two come face down (Macao's
    one); a third card comes face up. Punto Banco's hands are all shown (004)."""
    table = open_punto_banco(game) if game == "punto-banco" else open_chemin_de_fer(game)
    table.bet("ana", "player", 10)
    table.lock()
    events = deal(table, cards)
    dealt = [event for event in events if isinstance(event, CardDealt)]
    assert [event.face_down for event in dealt] == face_down
    assert [event.card.code for event in dealt] == cards.split()


def test_002_a_correction_of_a_card_dealt_face_down_says_so() -> None:
    """002: the dealer's correction of a card the players hold face down, whether the card
    was taken or an alarm stopped it, says it lies face down, as the card itself does, so
    that the public events topic names neither; so do the alarm the card raised and a
    reader's word on it, whose words are the dealer's only. A third card's correction, and
    a reader lost, are public."""
    table = open_chemin_de_fer("chemin-de-fer", decks="1")
    table.bet("ana", "player", 10)
    table.lock()
    deal(table, "2H 3C 2H")  # a one-deck shoe holds one 2♥: an alarm
    (alarm,) = [e for e in table.state.since_checkpoint if isinstance(e, AlarmRaised)]
    assert alarm.face_down
    assert alarm.message == "card 2H has come out once already in a 1-deck shoe"
    assert public_record(event_to_json(alarm))["card"] is None
    assert "2H" not in public_record(event_to_json(alarm))["message"]
    assert table.state.alarm is not None and "2H" not in table.state.alarm.public_message
    notice = table.reader_notice("camera", ReaderNoticeKind.TWO_CARDS, "2H and 3D together")
    assert "3D" not in public_record(event_to_json(notice[0]))["message"]
    by_the_alarm = table.correct("3D")
    corrected = [e for e in by_the_alarm if isinstance(e, DealerCorrection)]
    assert [(e.undone, e.replacement, e.face_down) for e in corrected] == [
        (False, Card.parse("3D"), True)
    ]
    assert public_record(event_to_json(corrected[0]))["card"] is None
    unread = table.unread("the camera saw JC or JS, and no barcode")
    assert "JC" not in public_record(event_to_json(unread[0]))["message"]
    deal(table, "JC")
    taken = [e for e in table.correct("JD") if isinstance(e, DealerCorrection)]
    assert [(e.undone, e.face_down) for e in taken] == [(True, True)]
    assert public_record(event_to_json(taken[0]))["replacement"] is None
    deal(table, "stand 5S")  # player 5 stands; banker 3 draws, face up
    third = [e for e in table.correct("6S") if isinstance(e, DealerCorrection)]
    assert [(e.undone, e.face_down) for e in third] == [(True, False)]
    assert public_record(event_to_json(third[0]))["replacement"] == "6S"
    lost = table.reader_notice("camera", ReaderNoticeKind.READER_LOST, "no picture for 5 s")
    assert public_record(event_to_json(lost[0]))["message"] == "no picture for 5 s"


def test_002_a_correction_refused_names_no_card_for_a_place_dealt_face_down() -> None:
    """A refusal goes back to whoever sent the command, over MQTT on the reply topic every
    terminal reads unless the sender asked for its own: the dealer's correction of a card the
    players hold face down is refused without naming the card he gave, as its correction
    would have been told. A third card's is named, as its correction would be."""
    table = open_chemin_de_fer("chemin-de-fer", decks="1")
    table.bet("ana", "player", 10)
    table.lock()
    deal(table, "2H 3C 3D JC")  # player 5 chooses; banker 3

    def refusal(action: Callable[[], Any]) -> str:
        with pytest.raises(TableError) as refused:
            action()
        return str(refused.value)

    duplicate = refusal(lambda: table.correct("2H"))  # the one 2♥ is the player's
    assert duplicate.startswith("correct:") and "2H" not in duplicate
    table.stand()  # the player stands; the banker's cards lie face down
    late = refusal(lambda: table.correct("7D"))
    assert "play went on" in late and "7D" not in late
    deal(table, "6S")  # banker 9 wins: the bank stays
    table.bet("ana", "player", 10)
    table.lock()
    deal(table, "4S 4H 2H")  # the one 2♥ again: an alarm on a card dealt face down
    stopped = refusal(lambda: table.correct("3C"))
    assert stopped.startswith("correct:") and "3C" not in stopped and "2H" not in stopped
    table.correct("6C")
    deal(table, "KH 3D")  # player 4+6: 0 draws, face up; the one 3♦ again: an alarm
    third = refusal(lambda: table.correct("4H"))
    assert third.startswith("correct 4H:")


@pytest.mark.parametrize(("game", "face_down"), [("chemin-de-fer", True), ("punto-banco", False)])
def test_a_correction_of_a_card_the_reader_could_not_read_says_to_name_it(
    game: str, face_down: bool
) -> None:
    """A card came out that the reader could not name: 'correct' has no card to correct
    and is refused with what answers the alarm (the card named with 'card', or the alarm
    voided), not that the alarm 'is not about a card' while it is about one, which at
    Chemin de Fer (002: the cards dealt face down) was all the refusal said."""
    table = open_chemin_de_fer() if game == "chemin-de-fer" else open_punto_banco()
    table.bet("ana", "player", 10)
    table.lock()
    deal(table, "2H")
    (alarm,) = table.unread()
    assert isinstance(alarm, AlarmRaised) and alarm.face_down is face_down
    refused(
        table,
        lambda: table.correct("5H"),
        # The card given is not named for a place dealt face down.
        ("^correct:" if face_down else "^correct 5H:")
        + r" alarm 1 is about a card the reader could not read: name it with 'card CARD', or "
        r"void the alarm if no card came out$",
    )
    table.deal("5H")
    assert table.state.alarm is None and [c.code for c in table.state.hands[1]] == ["5H"]


def test_002_banque_a_player_hands_natural_is_shown_while_the_coup_goes_on() -> None:
    """002, Baccarat Banque: a player hand's natural is turned over at once; the coup goes
    on for the other hands, whose cards stay face down. Voiding the card that made the
    natural takes the showing back with it."""
    table = open_chemin_de_fer(game="banque", bank=200)
    table.bet("ana", "right", 20)
    table.bet("ben", "left", 30)
    table.lock()
    deal(table, "9S 2H 3C KD 4H")
    events = table.deal("4C")  # right 9: a natural; left 6 and banker 7 go on
    assert [e.face_down for e in events if isinstance(e, CardDealt)] == [True]
    shown = [event for event in events if isinstance(event, HandShown)]
    assert [(e.hand, [c.code for c in e.cards], e.total) for e in shown] == [
        ("right", ["9S", "KD"], 9)
    ]
    assert describe(shown[0]) == "coup 1: the right hand shows a natural 9: 9♠ K♦"
    assert table.state.next_card() == NextCard("left", Draw.MUST_NOT)
    table.void_card()
    assert table.state.shown_hands == [[None, None], [None, None], [None]]
    again = table.deal("4C")
    assert [e.hand for e in again if isinstance(e, HandShown)] == ["right"]
    assert not [e for e in deal(table, "stand stand") if isinstance(e, HandShown)]


def test_002_banque_a_card_after_a_coup_a_natural_did_not_end_names_the_hands_that_stood() -> None:
    """002, Baccarat Banque: one player hand's natural does not end the coup; the other
    hand and the banker play on. A card after such a coup is refused for the hands that
    stood, not for the natural (the banker may even have drawn)."""
    table = open_chemin_de_fer(game="banque", bank=200)
    table.bet("ana", "right", 20)
    table.bet("ben", "left", 20)
    table.lock()
    deal(table, "9H 3C 3D KC 4S 4H stand stand")  # right 9 natural; left 7; banker 7 stands
    alarm = table.deal("5C")[0]
    assert isinstance(alarm, AlarmRaised) and alarm.kind is AlarmKind.FORBIDDEN_DRAW
    assert alarm.message == (
        "card 5C after coup 1 is over: the banker stood on 7; the tableau gives no third "
        "card to right on 9 or left on 7"
    )
    table.void_card()
    table.bet("ana", "right", 20)
    table.lock()
    deal(table, "2H 3H 4H 5H 6H 7H stand 8H")  # right 7 stands; left 9; banker 1 draws
    alarm = table.deal("9C")[0]
    assert isinstance(alarm, AlarmRaised)
    assert alarm.message == (
        "card 9C after coup 2 is over: the tableau gives no third card to right on 7 or left on 9"
    )
    table.void_card()
    # Where the naturals end the coup, they are named as before.
    table.bet("ana", "right", 20)
    table.lock()
    deal(table, "2D 3D 9D 5D 2C KD")  # banker 9+K: a natural
    alarm = table.deal("9S")[0]
    assert isinstance(alarm, AlarmRaised)
    assert alarm.message == "card 9S after coup 3 is over: a natural (banker) ends the coup"


def test_002_banque_the_bank_lasts_until_it_is_exhausted() -> None:
    """002: the Banque seat is semi-permanent; it lasts until the bank is spent."""
    table = open_chemin_de_fer(game="banque", bank=50)
    table.bet("ana", "right", 20)
    table.lock()
    deal(table, "9S 2H 3C KD 4H 4C stand stand")
    assert table.state.banker == "bea" and table.state.bank == 30  # lost, but kept
    table.bet("ana", "right", 30)
    table.lock()
    events = deal(table, "9S 2H 3C KD 4H 4C stand stand")
    assert [(e.from_banker, e.to_banker) for e in events if isinstance(e, BankPassed)] == [
        ("bea", "ana")
    ]


def test_002_macao_one_card_each_closest_to_nine() -> None:
    """002, Variantes, Macao: 'cada jugador recibe solo una carta e intenta acercarse lo
    más posible a 9'."""
    table = open_chemin_de_fer(game="macao")
    table.bet("ana", "player", 10)
    table.lock()
    assert table.state.next_card() == NextCard("player", Draw.MUST)
    events = deal(table, "7S 5H")
    coup = result(events)
    assert coup.hands == {"player": (Card.parse("7S"),), "banker": (Card.parse("5H"),)}
    assert coup.winner == "player"
    assert settlements(events) == [("ana", "player", "win", 10)]
    assert table.state.banker == "ana"  # the bank lost and passed


# --- the table language --------------------------------------------------------------------


def test_a_written_chemin_de_fer_coup_replays_line_by_line() -> None:
    record = """
    game chemin-de-fer
    rules standard burn=none
    punter bea 500
    punter ana 500
    punter ben 500
    shuffle
    bank 100
    bet ana player 30
    banco ben
    lock
    card 2H
    card 3C
    card 3D
    card JC
    stand          # the representative stands at 5
    card 4S        # the banker draws: 7
    bet ana banker 5
    """.splitlines()
    replay = replay_lines(record)
    assert [error.line_number for error in replay.errors] == [18]
    assert "stake against the bank" in replay.errors[0].message
    assert settlements(replay.events) == [("ben", "banco", "lose", -100)]
    table = replay.game
    assert isinstance(table, BaccaratTable)
    assert BaccaratTable.replay(replay.events).state == table.state


def test_rules_change_only_between_shoes_and_unknown_options_are_named() -> None:
    table = open_punto_banco()
    refused(table, lambda: table.choose_rules("standard", {"tie_pays": "9"}), "between shoes")
    with pytest.raises(RulesError, match="unknown punto-banco option 'dragon'"):
        BaccaratTable("t", "punto-banco", options={"dragon": "1"})
    with pytest.raises(RulesError, match="a shoe holds 1 to 8 decks"):
        BaccaratTable("t", "punto-banco", options={"decks": "9"})
    with pytest.raises(IllegalCommandError, match="this table deals punto-banco"):
        table.apply(GameCmd("macao"))


def test_002_both_naturals_the_higher_wins_and_equal_naturals_tie() -> None:
    """002, Preparación 4: 'si ambos anuncian, gana el más alto y los empates se anulan'."""
    table = open_chemin_de_fer()
    table.bet("ana", "player", 40)
    table.lock()
    events = deal(table, "8H 9C KD KS")  # player natural 8, banker natural 9
    coup = result(events)
    assert (coup.naturals, coup.winner) == (("player", "banker"), "banker")
    table.bet("ben", "player", 40)
    table.lock()
    events = deal(table, "8H 8C KD KS")  # 8 against 8: a tie, the stakes stay
    assert (result(events).winner, settlements(events)) == ("tie", [("ben", "player", "push", 0)])


def test_002_a_winning_stake_of_100_receives_100_and_keeps_its_100() -> None:
    """002, Puntuación 1: 'recibe 100 fichas de ganancia y conserva las 100 originales'."""
    table = open_chemin_de_fer(bank=100)
    table.bet("ana", "player", 100)
    table.lock()
    events = deal(table, "9H 2C KD 5S")
    assert settlements(events) == [("ana", "player", "win", 100)]
    assert table.state.bankrolls["ana"] == 600
    assert table.state.bankrolls["bea"] == 400


def test_002_the_winning_banker_keeps_the_bank_and_every_stake() -> None:
    """002, Puntuación 2: 'el banquero ganador conserva la banca y todas las apuestas'."""
    table = open_chemin_de_fer(bank=100)
    table.bet("ana", "player", 30)
    table.bet("ben", "player", 70)
    table.lock()
    deal(table, "3H 9C 5D KS")
    assert (table.state.banker, table.state.bank) == ("bea", 200)
    assert table.state.bankrolls["bea"] == 600
    refused(table, lambda: table.announce_bank(50), "grows by its winnings")
    table.bet("cy", "player", 200)  # the grown bank can now be faded for 200
    assert table.state.staked == 200


def test_the_next_card_is_known_at_every_moment_of_a_coup() -> None:
    """004 and 002: where the next card goes, and whether the tableau makes it a must."""
    table = open_punto_banco()
    assert table.state.next_card() == NextCard(None, Draw.MUST_NOT)  # bets are open
    table.lock()
    seen = []
    for card in ["2H", "4C", "3D", "KC", "5S", "4D"]:
        seen.append(table.state.next_card())
        table.deal(card)
    assert seen == [
        NextCard("player", Draw.MUST),
        NextCard("banker", Draw.MUST),
        NextCard("player", Draw.MUST),
        NextCard("banker", Draw.MUST),
        NextCard("player", Draw.MUST),  # player 5 draws
        NextCard("banker", Draw.MUST),  # banker 4 draws on a third 5
    ]
    assert table.state.next_card() == NextCard(None, Draw.MUST_NOT)  # the coup is over


def test_a_voided_draw_takes_its_choice_with_it() -> None:
    """A banker's draw read from a misread card: voiding the card undoes the choice too."""
    table = open_chemin_de_fer()
    table.bet("ana", "player", 40)
    table.lock()
    deal(table, "2H 3C 2D JC 8S")
    table.deal("5S")  # the banker draws against the table: one deviation
    assert table.state.deviations == 1
    table.void_card()
    assert table.state.deviations == 0
    assert table.state.next_card() == NextCard("banker", Draw.MAY, False)
    events = table.stand()
    assert [e.deviation for e in events if isinstance(e, ThirdCardChoice)] == [False]
    assert settlements(events) == [("ana", "player", "lose", -40)]  # 3 beats 2


def test_002_among_equal_stakes_the_first_in_turn_holds_the_cards() -> None:
    """002, Preparación 2: punters fade in turn counter-clockwise; the largest stake
    holds the cards, and of two equal stakes the one earlier in turn."""
    table = open_chemin_de_fer(bank=100)
    table.bet("cy", "player", 30)  # cy sits third after the banker
    table.bet("ana", "player", 30)  # ana sits right after the banker
    assert table.state.holder("player") == "ana"
    table.bet("cy", "player", 10)
    assert table.state.holder("player") == "cy"


# --- every cell of the drawing tables, through the engine ---------------------------------

_VALUE_CARD = {v: f"{'K' if v == 0 else 'A' if v == 1 else v}" for v in range(10)}


def _coup_to_the_banker(table: BaccaratTable, banker: int, third: int | None) -> None:
    """Deal a coup up to the banker's decision: the banker holds ``banker`` in two cards
    (never a natural), the player draws a third card of value ``third`` (from 0) or
    stands on 6 (None)."""
    table.lock()
    first, second = ("KS", "KH") if third is not None else ("KS", "6H")
    deal(table, f"{first} {_VALUE_CARD[banker]}D {second} QD")
    if third is not None:
        table.deal(f"{_VALUE_CARD[third]}C")
    elif table.state.awaits_a_no:
        table.stand()  # Chemin de Fer: the player's "non" on 6, keyed by the dealer


@pytest.mark.parametrize("banker", range(8))
@pytest.mark.parametrize("third", [*range(10), None])
def test_004_every_cell_of_the_banker_tableau_through_the_engine(
    banker: int, third: int | None
) -> None:
    """004, Mano de la Banca, 88 cells: a must draw, or the coup ends with the banker's two
    cards."""
    expected = {
        0: set(range(10)),
        1: set(range(10)),
        2: set(range(10)),
        3: {0, 1, 2, 3, 4, 5, 6, 7, 9},
        4: {2, 3, 4, 5, 6, 7},
        5: {4, 5, 6, 7},
        6: {6, 7},
        7: set(),
    }[banker]
    draws = banker <= 5 if third is None else third in expected
    table = open_punto_banco()
    _coup_to_the_banker(table, banker, third)
    following = table.state.next_card()
    assert following == (NextCard("banker", Draw.MUST) if draws else NextCard(None, Draw.MUST_NOT))


@pytest.mark.parametrize("banker", range(8))
@pytest.mark.parametrize("third", [*range(10), None])
def test_002_every_cell_of_the_bankers_table_is_the_advice_to_a_free_banker(
    banker: int, third: int | None
) -> None:
    """002, Jugabilidad 2-4: the same table, as advice; the banker may choose either way."""
    table = open_chemin_de_fer()
    table.bet("ana", "player", 10)
    _coup_to_the_banker(table, banker, third)
    advice = banker_draws(banker, None if third is None else Card.parse(f"{_VALUE_CARD[third]}C"))
    assert table.state.next_card() == NextCard("banker", Draw.MAY, advice)


@pytest.mark.parametrize("player", range(8))
@pytest.mark.parametrize("rules", ["standard", "strict"])
def test_002_every_cell_of_the_representative_rule_through_the_engine(
    player: int, rules: str
) -> None:
    """002, Jugabilidad 1: draw on 0-4, choose at 5 (strict: stand), stand on 6 and 7."""
    table = open_chemin_de_fer(rules=rules)
    table.bet("ana", "player", 10)
    table.lock()
    deal(table, f"{_VALUE_CARD[player]}S KD KH QD")  # the banker holds 0
    following = table.state.next_card()
    if player <= 4:
        assert following == NextCard("player", Draw.MUST)
    elif player == 5 and rules == "standard":
        assert following == NextCard("player", Draw.MAY)
    else:  # the player stands, once his "non" is keyed: then the banker is next
        assert following == NextCard("player", Draw.MUST_NOT)
        assert choices_told(table.stand()) == [("player", player, False, True)]
        assert table.state.next_card().hand == "banker"


def test_a_card_followed_by_a_stand_can_no_longer_be_voided() -> None:
    table = open_chemin_de_fer()
    table.bet("ana", "player", 40)
    table.lock()
    deal(table, "2H 3C 3D JC stand")
    refused(table, table.void_card, "play went on after the last card")
    table.void_coup()
    assert table.state.bankrolls["ana"] == 500 and not table.state.bets


def test_002_banque_stakes_on_both_hands_together_stay_within_the_bank() -> None:
    """002: the bank can lose only what is in it, on the right and the left together."""
    table = open_chemin_de_fer(game="banque", bank=100)
    table.bet("ana", "right", 60)
    refused(table, lambda: table.bet("ben", "left", 41), "at most 40 more")
    table.bet("ben", "left", 40)
    refused(table, lambda: table.bet("ana", "player", 1), "unknown side 'player'")
    refused(table, lambda: table.banco("cy"), "banco is called at Chemin de Fer and Macao")


def test_002_macao_banco_written_as_a_bet_is_refused_with_the_line_that_calls_it() -> None:
    """002, Variantes, Macao is played as Chemin de Fer, banco and all: a stake written on
    'banco' is told to call it, as at Chemin de Fer, not that Macao has no such side."""
    for game in ("chemin-de-fer", "macao"):
        table = open_chemin_de_fer(game=game)
        refused(
            table,
            functools.partial(table.bet, "ana", "banco", 100),
            r"^bet ana banco 100: call banco with 'banco PUNTER'$",
        )
        assert [e.type_name for e in table.banco("ana")] == ["bet_placed"]


def test_faro_lines_at_a_baccarat_table_are_refused_by_name() -> None:
    replay = replay_lines(
        [
            "game punto-banco",
            "bank 100",
            "punter ana 50",
            "shuffle",
            "call ana 7 J 3 2",
            "move ana 9 10",
            "bet ana banker 5 copper",
            "withdraw ana banker copper",
            "withdraw ana call 7 J 3",
            "withdraw ana banker mark",
        ]
    )
    messages = [error.message for error in replay.errors]
    assert [error.line_number for error in replay.errors] == [5, 6, 7, 8, 9, 10]
    assert "calling the turn is Faro's" in messages[0]
    assert "withdrawn and placed again, not moved" in messages[1]
    assert "coppers, marks and progressions are Faro's" in messages[2]
    assert "coppers and marks are Faro's" in messages[3]
    assert "calling the turn is Faro's" in messages[4]
    assert "coppers and marks are Faro's" in messages[5]


def test_002_a_tie_whose_stakes_were_all_taken_back_holds_no_later_bank() -> None:
    """Short of players a tied stake may be taken back; with none left on the layout, the
    tie binds nothing: a new bank takes banco and lets a stake be withdrawn."""
    record = """game chemin-de-fer
        rules standard burn=none
        punter ana 100
        punter ben 100
        punter cy 100
        shuffle
        bank 50
        bet ben player 10
        lock
        card 2H
        card 3H
        card 4H
        card 3D
        stand
        stand
        leave cy
        withdraw ben player
        pass
        punter dee 100
        bank 40
        bet dee player 10
        withdraw dee player
        banco dee"""
    replay = replay_lines(line.strip() for line in record.splitlines())
    assert [error.message for error in replay.errors] == []
    assert replay.game is not None and replay.game.state.banco == "dee"


# --- the coup an event is for ------------------------------------------------------------


def test_what_comes_between_coups_carries_the_coup_it_is_for() -> None:
    """A bet placed between coup 1 and coup 2 is a bet on coup 2, and says so in its ``deal``;
    so do the bank announced, the bank passed by its holder, and a new shoe with its burn.
    What the last card of coup 1 causes (its result, settlement and end, the bank passing
    after a player's win) is coup 1's, and a void of that card after the coup ended too."""
    table = open_chemin_de_fer(bank=100)
    events = table.bet("ana", "player", 40) + table.lock()
    events += deal(table, "9H 3C KD 2D")  # player 9, a natural: coup 1 ends, ana wins
    assert {(type(e).__name__, e.deal) for e in events} >= {
        ("BetPlaced", 1),
        ("BetsLocked", 1),
        ("CoupResult", 1),
        ("BetSettled", 1),
        ("CoupFinished", 1),
        ("BankPassed", 1),
    }
    voided = table.void_card()
    assert [(type(e).__name__, e.deal) for e in voided] == [("DealerCorrection", 1)]
    again = table.deal("2D")
    assert {e.deal for e in again} == {1}
    between = table.announce_bank(100) + table.bet("cy", "player", 20)
    between += table.withdraw("cy", "player") + table.new_shoe() + table.bet("cy", "player", 10)
    assert between and {e.deal for e in between} == {2}
    locked = table.lock()
    assert [(type(e).__name__, e.deal, e.turn) for e in locked] == [("BetsLocked", 2, 2)]
