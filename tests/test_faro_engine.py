"""The Faro engine, rule by rule. Each test names the seed and the section it checks:
000 (Spanish casino rules), 001 (English home rules), 003 (Russian casino procedure)."""

from __future__ import annotations

import pytest

from display.narration import Narrator
from table.baccarat import BaccaratTable
from table.cards import Card, Rank
from table.errors import BetRefusedError, CardRefusedError, IllegalCommandError, TableError
from table.events import (
    AlarmCleared,
    AlarmKind,
    AlarmRaised,
    BankPassed,
    BetSettled,
    BetsLocked,
    BetWithdrawn,
    CardDealt,
    CardRole,
    DealFinished,
    ReaderNotice,
    ReaderNoticeKind,
    TurnClosed,
    event_from_json,
    event_to_json,
)
from table.faro import FaroTable, Phase
from table.faro.casekeep import Bead
from table.faro.spots import parse_spot
from table.language import parse_line
from tests.conftest import cards, deal, deal_rest, open_table, settlements

# --- 001 "A turn": the worked example ------------------------------------------------------


def test_001_a_turn_dan_and_anna() -> None:
    """001, A turn, example: Dan 4 on the 9, Anna 2 coppered on the King; K♦ then 9♣."""
    table = open_table()
    table.bet("dan", "9", 4)
    table.bet("anna", "K", 2, copper=True)
    events = deal(table, "KD 9C")
    assert settlements(events) == [("dan", "9", "win", 4), ("anna", "K", "win", 2)]
    assert table.state.bankrolls == {"dan": 104, "anna": 102, "ben": 100}
    assert table.state.bank == 994
    assert table.state.bets == {}


def test_000_the_turn_loser_takes_straight_bets_and_pays_coppers() -> None:
    """000, El turno, steps 1-2: the first card loses for straight bets, wins for coppers."""
    table = open_table()
    table.bet("dan", "5", 3)
    table.bet("anna", "5", 2, copper=True)
    table.bet("ben", "8", 4, copper=True)
    events = deal(table, "5H 8S")
    assert settlements(events) == [
        ("dan", "5", "lose", -3),
        ("anna", "5", "win", 2),
        ("ben", "8", "lose", -4),
    ]


def test_000_bets_on_ranks_not_dealt_stay_for_the_next_turn() -> None:
    """000, El turno, step 4 / Apuesta de heel: unresolved bets stay until resolved."""
    table = open_table()
    table.bet("dan", "Q", 5)
    events = deal(table, "3H 4S") + deal(table, "6H 7S")
    assert settlements(events) == []
    assert [bet.stake for bet in table.state.bets.values()] == [5]
    assert settlements(deal(table, "9D QD")) == [("dan", "Q", "win", 5)]


# --- the deal: soda, turns, hoc ------------------------------------------------------------


def test_000_soda_is_dead_and_recorded_on_the_casekeep() -> None:
    """000, Preparación 3: the soda is dead, cannot be bet, and goes on the casekeep."""
    table = open_table(soda=None)
    with pytest.raises(BetRefusedError, match="soda"):
        table.bet("dan", "9", 1)
    events = table.deal(Card.parse("7H"))
    assert [(e.card, e.role) for e in events if isinstance(e, CardDealt)] == [
        (Card.parse("7H"), CardRole.SODA)
    ]
    entry = table.state.casekeep.out(Rank.SEVEN)[0]
    assert (entry.card, entry.role) == (Card.parse("7H"), CardRole.SODA)
    assert table.state.phase is Phase.BETTING


def test_001_a_full_deal_is_soda_24_turns_and_a_last_turn_of_three() -> None:
    """001, The last turn: after 24 turns three cards are left: loser, winner, hock."""
    table = open_table()
    events = deal_rest(table)
    roles = [e.role for e in events if isinstance(e, CardDealt)]
    assert roles.count(CardRole.LOSER) == 25
    assert roles.count(CardRole.WINNER) == 25
    assert roles[-1] is CardRole.HOC
    assert [e.turn for e in events if isinstance(e, TurnClosed)] == list(range(1, 26))
    finished = [e for e in events if isinstance(e, DealFinished)]
    assert len(finished) == 1
    assert finished[0].hoc == table.state.hoc
    assert table.state.phase is Phase.FINISHED


def test_000_bets_lock_while_a_turn_is_dealt_and_reopen_after() -> None:
    """000, El turno 5: no bets once the dealer reaches the box; open again between turns."""
    table = open_table()
    events = table.deal(Card.parse("3H"))
    assert isinstance(events[0], BetsLocked)
    with pytest.raises(BetRefusedError, match="locked while turn 1 is dealt"):
        table.bet("dan", "9", 1)
    table.deal(Card.parse("4H"))
    assert table.state.bets_open
    table.lock()
    with pytest.raises(BetRefusedError, match="locked while turn 2"):
        table.bet("dan", "9", 1)
    with pytest.raises(BetRefusedError, match="locked"):
        table.withdraw("dan", "9")


def test_001_bets_placed_moved_or_taken_back_between_turns() -> None:
    """001, Placing bets: before each turn a punter may place, move or take back bets."""
    table = open_table()
    table.bet("dan", "9", 4)
    table.move("dan", "9", "10")
    assert [(b.spot.text, b.stake) for b in table.state.bets.values()] == [("10", 4)]
    table.withdraw("dan", "10", 1)
    assert [b.stake for b in table.state.bets.values()] == [3]
    table.withdraw("dan", "10")
    assert table.state.bets == {}
    assert table.state.bankrolls["dan"] == 100


def test_003_hoc_bets_returned_and_the_last_turn_settles_as_usual() -> None:
    """003, Последний абцуг: bets on the hoc's card are returned; loser and winner as usual."""
    table = open_table()
    remaining = " ".join(str(c) for c in table.state.casekeep.remaining_cards())
    # Deal everything but the last three, which will be 4H (loser), 9H (winner), KH (hoc).
    last_three = {"4H", "9H", "KH"}
    first = [c for c in remaining.split() if c not in last_three]
    deal(table, " ".join(first))
    assert table.state.is_last_turn_next
    table.bet("dan", "K", 5)
    table.bet("anna", "9", 5)
    table.bet("ben", "4", 5)
    events = deal(table, "4H 9H KH")
    assert settlements(events) == [
        ("anna", "9", "win", 5),
        ("ben", "4", "lose", -5),
        ("dan", "K", "returned", 0),
    ]
    returned = [e for e in events if isinstance(e, BetSettled) and e.outcome.value == "returned"]
    assert returned[0].note == "on the hoc's rank"
    assert table.state.hoc == Card.parse("KH")


# --- splits ---------------------------------------------------------------------------------


def test_001_split_the_bank_takes_half_of_every_bet_coppered_or_not() -> None:
    """001, A turn, Split: two Queens: the banker takes half of every bet on the Queen."""
    table = open_table()
    table.bet("dan", "Q", 4)
    table.bet("anna", "Q", 6, copper=True)
    events = deal(table, "QH QS")
    assert settlements(events) == [("dan", "Q", "split", -2), ("anna", "Q", "split", -3)]
    assert table.state.bankrolls["dan"] == 98
    assert table.state.bankrolls["anna"] == 97
    assert table.state.splits == 1
    assert [e.split for e in events if isinstance(e, TurnClosed)] == [True]


def test_split_of_an_odd_stake_gives_the_odd_chip_to_the_bank() -> None:
    table = open_table()
    table.bet("dan", "Q", 5)
    assert settlements(deal(table, "QH QS")) == [("dan", "Q", "split", -3)]


def test_000_home_faro_split_loses_the_whole_bet() -> None:
    """000, Variantes, Faro casero: a split counts as a full loss, straight and coppered."""
    table = open_table("home-full-loss", {"host": 200, "dan": 100, "anna": 100})
    table.bet("dan", "Q", 4)
    table.bet("anna", "Q", 2, copper=True)
    events = deal(table, "QH QS")
    assert settlements(events) == [("dan", "Q", "split", -4), ("anna", "Q", "split", -2)]
    assert table.state.bankrolls["host"] == 206


def test_000_stuss_split_goes_wholly_to_the_bank() -> None:
    """000, Variantes, Stuss: splits go wholly to the banker."""
    table = open_table("stuss")
    table.bet("dan", "Q", 4)
    assert settlements(deal(table, "QH QS")) == [("dan", "Q", "split", -4)]
    assert table.state.bank == 1004


# --- bets on two or more ranks -------------------------------------------------------------


def test_001_between_two_ranks_one_wins_one_loses_nothing_happens() -> None:
    """001, Placing bets: between two cards, one wins and the other loses: nothing happens."""
    table = open_table()
    table.bet("dan", "4+5", 4)
    assert settlements(deal(table, "4H 5S")) == []
    assert [b.stake for b in table.state.bets.values()] == [4]
    assert settlements(deal(table, "9H 5C")) == [("dan", "4+5", "win", 4)]


def test_001_a_bet_that_stood_on_the_last_cards_of_both_ranks_is_handed_back() -> None:
    """001's stand leaves nothing to settle a bet once its ranks are out: the chips come back
    to the punter's hand at once, not at the end of the deal."""
    table = open_table()
    deal(table, "4C 5C 4D 5D 4S 5S")
    table.bet("dan", "4+5", 4)
    events = deal(table, "4H 5H")
    assert settlements(events) == [("dan", "4+5", "returned", 0)]
    returned = next(event for event in events if isinstance(event, BetSettled))
    assert returned.note == "4 and 5 are dead: nothing is left to settle it"
    assert table.state.bets == {}
    assert table.state.available("dan") == 100


def test_000_independent_option_each_rank_acts_on_its_own() -> None:
    """000, Apuesta múltiple: each rank acts independently: a loss and a win cancel out."""
    table = open_table(between_two="independent")
    table.bet("dan", "4+5", 4)
    assert settlements(deal(table, "4H 5S")) == [("dan", "4+5", "push", 0)]
    assert table.state.bets == {}


def test_003_group_settles_at_the_first_card_of_any_of_its_ranks() -> None:
    """003, ставки на группу достоинств: settled as soon as one of its cards appears."""
    table = open_table()
    table.bet("dan", "4+5+9+10", 3)
    table.bet("anna", "4+5+9+10", 3, copper=True)
    assert settlements(deal(table, "9D KS")) == [
        ("dan", "4+5+9+10", "lose", -3),
        ("anna", "4+5+9+10", "win", 3),
    ]


def test_003_two_ranks_of_a_group_in_one_turn_is_a_plie() -> None:
    """003, плие 2: two cards of the group in one turn: the house takes half."""
    table = open_table()
    table.bet("dan", "8+9+10", 4)
    assert settlements(deal(table, "8D 10S")) == [("dan", "8+9+10", "split", -2)]


def test_003_the_casino_003_house_makes_two_ranks_of_a_pair_in_one_turn_a_plie() -> None:
    """003, плие 2: a bet on two adjacent ranks (2 + 3, J + K) is a group like any other, so
    at the house of 003 one rank losing and the other winning in a turn is a plie: the house
    takes half, as the group rule says (the default house lets the bet stand, as 001)."""
    table = open_table("casino-003", {"dan": 20})
    table.bet("dan", "4+5", 4)
    table.bet("dan", "J+K", 4)
    assert settlements(deal(table, "4H 5S")) == [("dan", "4+5", "split", -2)]
    assert settlements(deal(table, "KD JC")) == [("dan", "J+K", "split", -2)]


@pytest.mark.parametrize(
    ("spot", "shape"),
    [
        ("5", "single rank"),
        ("2+3", "horizontal neighbours"),
        ("6+9", "diagonal neighbours"),
        ("2+Q", "vertical neighbours"),
        ("6+7", "beside the seven"),
        ("7+8", "beside the seven"),
        ("J+K", "one apart"),
        ("8+9+10", "three in a row"),
        ("3+10+J", "right angle"),
        ("6+7+8", "six, seven and eight"),
        ("4+5+9+10", "square"),
    ],
)
def test_003_every_bet_of_the_betting_diagram_is_taken(spot: str, shape: str) -> None:
    """003, размещение ставок в фаро, items а-л: each placement of the diagram."""
    table = open_table()
    table.bet("dan", spot, 2)
    (bet,) = table.state.bets.values()
    assert bet.spot.shape == shape


@pytest.mark.parametrize(
    ("spot", "place"),
    [
        ("5", (0, 4, 0)),  # on its card
        ("2+3", (0, 1.5, 0)),  # between the two
        ("6+9", (0.5, 4.5, 0)),  # on the corner the diagonal neighbours share
        ("6+7", (0.25, 5.5, 0)),  # beside the seven, which stands between the rows
        ("J+K", (1, 1, 1)),  # across the queen: off its outer edge, below the bottom row
        ("8+9+10", (1, 4, 1)),  # three in a row: off the middle card's outer edge
        ("A+2+3", (0, 1, -1)),  # the same above the top row
        ("3+10+J", (0.5, 2.5, 0)),  # a right angle: the corner its cards meet at
        ("4+5+9+10", (0.5, 3.5, 0)),  # a square: its middle corner
        ("2>3", (0, 1.7, 0)),  # to win and to lose: on the losing 3, at its edge toward the 2
        ("J>K", (1, 0.3, 1)),  # the queen between: off the king's outer edge, toward the jack
    ],
)
def test_003_a_bets_chips_lie_where_the_diagram_puts_them(
    spot: str, place: tuple[float, float, int]
) -> None:
    """003's diagram: a group's chips lie where its cards meet, so that no group looks like a
    bet on a single card; one rank to win and another to lose lies on the losing card, in its
    corner nearest the winning one, pushed outward when a card lies between (the displays
    draw them from this place)."""
    assert tuple(parse_spot(spot).place) == pytest.approx(place)


@pytest.mark.parametrize("spot", ["A+3+5", "2+9", "A+K+Q+J", "5+7", "A+6", "K+Q+J+10"])
def test_003_ranks_that_do_not_touch_are_no_group(spot: str) -> None:
    table = open_table()
    with pytest.raises(BetRefusedError, match="do not lie together"):
        table.bet("dan", spot, 2)
    assert table.state.bets == {}


def test_003_one_rank_to_win_and_the_other_to_lose() -> None:
    """003, ставка на то, что одна карта выиграет и одна проиграет: settled at either rank."""
    table = open_table()
    table.bet("dan", "J>K", 2)  # the jack to win, the king to lose
    table.bet("anna", "J>K", 2)
    table.bet("ben", "2>3", 2)
    events = deal(table, "KD 5S") + deal(table, "2S 9S")
    assert settlements(events) == [
        ("dan", "J>K", "win", 2),
        ("anna", "J>K", "win", 2),
        ("ben", "2>3", "lose", -2),
    ]
    with pytest.raises(BetRefusedError, match="no copper"):
        table.bet("dan", "J>K", 2, copper=True)


# --- bets that act every turn ---------------------------------------------------------------


def test_003_high_card_stands_every_turn_ace_low_and_equal_ranks_are_a_plie() -> None:
    """003, ставки, действующие в каждом абцуге 1 and плие 3: ace low; equal ranks: no
    payment and the bet stays until withdrawn."""
    table = open_table()
    table.bet("dan", "high", 5)
    table.bet("anna", "high", 5, copper=True)
    events = deal(table, "AH 2S")  # the winner is higher: the ace is low
    assert settlements(events) == [("dan", "high", "win", 5), ("anna", "high", "lose", -5)]
    events = deal(table, "KH 3S")
    assert settlements(events) == [("dan", "high", "lose", -5), ("anna", "high", "win", 5)]
    events = deal(table, "9H 9S")
    assert settlements(events) == [("dan", "high", "split", 0), ("anna", "high", "split", 0)]
    assert sorted(b.stake for b in table.state.bets.values()) == [5, 5]
    table.withdraw("dan", "high")
    assert [b.punter for b in table.state.bets.values()] == ["anna"]


def test_001_high_card_variant_is_a_bet_on_the_next_turn() -> None:
    """001, Variants, High card: the player's card higher than the banker's, next turn, 1:1."""
    table = open_table("home", {"host": 200, "dan": 10})
    table.bet("dan", "high", 2)
    assert settlements(deal(table, "3H 8S")) == [("dan", "high", "win", 2)]
    assert table.state.bets == {}


def test_003_odd_and_even_ace_jack_king_odd_queen_even() -> None:
    """003, ставки, действующие в каждом абцуге 2: A, J, K odd, Q even; same parity: plie."""
    table = open_table()
    table.bet("dan", "odd", 3)
    table.bet("anna", "even", 3)
    assert settlements(deal(table, "QH KS")) == [
        ("dan", "odd", "win", 3),
        ("anna", "even", "lose", -3),
    ]
    assert settlements(deal(table, "JH QS")) == [
        ("dan", "odd", "lose", -3),
        ("anna", "even", "win", 3),
    ]
    assert settlements(deal(table, "AH 3S")) == [
        ("dan", "odd", "split", 0),
        ("anna", "even", "split", 0),
    ]
    assert len(table.state.bets) == 2


def test_003_high_card_and_odd_even_stay_from_deal_to_deal_until_withdrawn() -> None:
    """003, ставки, действующие в каждом абцуге: they stay on the layout "до тех пор, пока
    их не отзывает понтер": the end of a deal does not take them down. Between deals the
    punter may withdraw them; a voided deal returns them with every other bet."""
    table = FaroTable("t1")
    events = list(table.opening)
    events += table.fund_bank(1000)
    events += table.seat("dan", 100) + table.seat("anna", 100)
    events += table.new_deck()
    events += deal(table, "2C")
    events += table.bet("dan", "odd", 3)
    events += table.bet("anna", "high", 5)
    events += table.bet("anna", "9", 4)
    finished = deal_rest(table)
    events += finished
    assert [
        e.spot for e in finished if isinstance(e, BetSettled) and e.outcome.value == "returned"
    ] == []
    assert {(bet.punter, bet.spot.text, bet.stake) for bet in table.state.bets.values()} == {
        ("dan", "odd", 3),
        ("anna", "high", 5),
    }
    assert table.state.total_chips() == 1200
    with pytest.raises(IllegalCommandError, match=r"dan still has bets on the layout \(odd\)"):
        table.leave("dan")
    events += table.withdraw("dan", "odd")
    (left,) = table.leave("dan")
    events.append(left)
    events += table.new_deck()
    events += deal(table, "2C")
    assert [bet.spot.text for bet in table.state.bets.values()] == ["high"]
    events += deal(table, "3H 8S")
    assert table.state.bankrolls["anna"] == finished[-1].bankrolls["anna"] + 5
    events += table.void_deal()
    assert settlements(events[-2:]) == [("anna", "high", "returned", 0)]
    assert table.state.bets == {}
    assert table.state.total_chips() + left.bankroll == 1200
    assert FaroTable.replay(events).state == table.state


def test_003_standing_bets_come_back_when_the_bank_passes_or_the_rules_change() -> None:
    """001, Winning the game: the bank passes after each deal, so a bet that stands until
    withdrawn comes back with the deal's end: the banker who took it banks no more. A rules
    change between deals returns the bets taken under the old rules."""
    home = open_table("home", {"host": 100, "dan": 100})
    home.bet("dan", "odd", 3)
    assert settlements(deal_rest(home))[-1] == ("dan", "odd", "returned", 0)
    assert home.state.bets == {}
    classic = open_table()
    classic.bet("dan", "even", 3)
    deal_rest(classic)
    events = classic.choose_rules("classic", {"cat_hop_pays": "1"})
    assert [(e.type_name, getattr(e, "note", "")) for e in events] == [
        ("bet_settled", "the rules changed"),
        ("rules_chosen", ""),
    ]
    assert classic.state.bets == {}


# --- calling the turn -----------------------------------------------------------------------


def _to_last_three(table: FaroTable, last: str) -> None:
    keep = set(last.split())
    first = [str(c) for c in table.state.casekeep.remaining_cards() if str(c) not in keep]
    deal(table, " ".join(first))
    assert table.state.is_last_turn_next


def test_001_ben_calls_the_turn_7_loses_j_wins_and_wins_8_chips() -> None:
    """001, The last turn: 3, 7 and J are left; Ben calls 7 loses, J wins, 2 chips: wins 8."""
    table = open_table()
    _to_last_three(table, "7C JD 3S")
    table.call("ben", ["7", "J", "3"], 2)
    events = deal(table, "7C JD 3S")
    assert ("ben", "call", "win", 8) in settlements(events)
    assert table.state.bankrolls["ben"] == 108


def test_000_a_failed_call_costs_the_whole_stake() -> None:
    """000, Declarar el turno: a failed call costs all the money bet."""
    table = open_table()
    _to_last_three(table, "7C JD 3S")
    table.call("ben", ["J", "7", "3"], 2)
    assert ("ben", "call", "lose", -2) in settlements(deal(table, "7C JD 3S"))


def test_001_calls_of_different_orders_are_taken_while_the_bank_can_pay_the_order_that_comes() -> (
    None
):
    """001, The last turn: calling the turn is a bet on the exact order of the three cards,
    so of calls on different orders one at most comes right: the bank takes them while it
    can pay the worst order, not as if every call could win at once."""
    table = open_table(bank=50, punters={"ann": 100, "ben": 100, "carla": 100})
    _to_last_three(table, "3S 7S JS")
    table.call("ann", ["3", "7", "J"], 5)
    table.call("ben", ["7", "3", "J"], 5)
    table.call("carla", ["J", "3", "7"], 5)  # 20 each, 60 if all could win
    with pytest.raises(BetRefusedError, match=r"cannot cover the layout .*worst turn: 55"):
        table.bet("ann", "3", 35)  # 7 loses, 3 wins: ben's call 20 and ann's 35 on the 3
    events = deal(table, "7S 3S JS")
    assert settlements(events) == [
        ("ann", "call", "lose", -5),
        ("ben", "call", "win", 20),
        ("carla", "call", "lose", -5),
    ]
    assert table.state.bank == 40


def test_003_a_call_that_comes_is_paid_though_a_standing_bet_won_on_the_last_turn() -> None:
    """003, последний абцуг and ставки, действующие в каждом абцуге: after the last turn only
    the calls are still to settle before the hoc; a high card bet won on that turn stays
    for the next deal, and is no reason to hand back a call the bank can pay."""
    table = open_table(bank=55, punters={"ann": 100, "dmitri": 100})
    _to_last_three(table, "3S 7S JS")
    table.bet("dmitri", "high", 20)
    table.call("ann", ["3", "7", "J"], 5)
    events = deal(table, "3S 7S JS")
    assert settlements(events) == [
        ("dmitri", "high", "win", 20),
        ("ann", "call", "win", 20),
        ("dmitri", "high", "returned", 0),  # the bank's 15 cannot cover it in the next deal
    ]
    assert table.state.bank == 15


def test_001_cat_hop_pays_2_to_1_and_the_option_pays_1_to_1() -> None:
    """001 / 000, cat-hop: a pair plus one pays 2 to 1; some houses pay 1 to 1 (000)."""
    for option, net in ((None, 6), ("1", 3)):
        table = open_table(**({"cat_hop_pays": option} if option else {}))
        _to_last_three(table, "6C 10D 6S")
        table.call("ben", ["6", "10", "6"], 3)
        assert ("ben", "call", "win", net) in settlements(deal(table, "6C 10D 6S"))


def test_003_three_of_a_kind_is_a_colour_cat_hop() -> None:
    """003, ставка катхоп 2: with three of one rank, the punter calls the colour order."""
    table = open_table()
    _to_last_three(table, "9H 9S 9D")
    with pytest.raises(BetRefusedError, match="call their colours"):
        table.call("ben", ["9", "9", "9"], 2)
    table.call("ben", ["red", "black", "red"], 2)
    table.call("dan", ["black", "red", "red"], 2)
    events = deal(table, "9H 9S 9D")
    assert ("ben", "call", "win", 4) in settlements(events)
    assert ("dan", "call", "lose", -2) in settlements(events)


def test_001_no_call_on_three_of_a_kind_under_home_rules() -> None:
    """001, calling the turn: three of a kind: no calling."""
    table = open_table("home", {"host": 200, "ben": 10})
    _to_last_three(table, "9H 9S 9D")
    with pytest.raises(BetRefusedError, match="no call on three of a kind"):
        table.call("ben", ["red", "black", "red"], 2)


def test_000_only_the_cards_left_can_be_called_and_only_before_the_last_turn() -> None:
    """000 / 003: the call names the last three cards, before the last turn only."""
    table = open_table()
    with pytest.raises(BetRefusedError, match="only before the last turn"):
        table.call("ben", ["7", "J", "3"], 2)
    _to_last_three(table, "7C JD 3S")
    with pytest.raises(BetRefusedError, match="only the cards left can be called"):
        table.call("ben", ["7", "J", "4"], 2)
    table.deal(Card.parse("7C"))
    with pytest.raises(BetRefusedError, match="only before the last turn"):
        table.call("ben", ["7", "J", "3"], 2)


def test_000_one_of_several_calls_is_withdrawn_by_naming_its_cards() -> None:
    """000, Cantar la última mano: a punter may call several orders of the last three; the
    dealer names which call to take back as DESIGN.md's table language writes a call (loser,
    winner, hoc), and a refusal lists the calls to choose from."""
    table = open_table(punters={"ann": 100})
    _to_last_three(table, "7S JS 3S")
    table.apply(parse_line("call ann 7 J 3 2"))
    table.apply(parse_line("call ann J 7 3 4"))
    before = table.state.copy()
    with pytest.raises(BetRefusedError) as refused:
        table.apply(parse_line("withdraw ann call 1"))
    assert str(refused.value) == (
        "withdraw ann call: ann has 2 calls (7 J 3 for 2, J 7 3 for 4); "
        "name one by its cards, e.g. withdraw ann call 7 J 3 1"
    )
    with pytest.raises(BetRefusedError, match=r"ann made no such call \(ann's calls: 7 J 3 for 2"):
        table.apply(parse_line("withdraw ann call 3 7 J"))
    with pytest.raises(BetRefusedError, match="a call cannot be moved; withdraw it and call again"):
        table.apply(parse_line("move ann call 9"))
    assert table.state == before
    taken = table.apply(parse_line("withdraw ann call J 7 3 1"))
    assert [(e.spot, e.amount, e.stake) for e in taken if isinstance(e, BetWithdrawn)] == [
        ("call", 1, 3)
    ]
    table.apply(parse_line("withdraw ann call 7 J 3"))
    assert [(bet.order, bet.stake) for bet in table.state.bets.values()] == [(("J", "7", "3"), 3)]
    table.apply(parse_line("withdraw ann call"))  # the one call left, named or not
    assert table.state.bets == {}


# --- the casekeep -----------------------------------------------------------------------------


def test_003_abacus_loser_to_the_edge_winner_half_way_finished_all_together() -> None:
    """003, кейскипер: a losing card's bead to the outer edge, a winning card's half way;
    the fourth card pushes all four together."""
    table = open_table(soda="5S")
    deal(table, "5H 5D")
    spindle = table.state.casekeep.spindle(Rank.FIVE)
    assert spindle.beads == (Bead.OUTER_EDGE, Bead.OUTER_EDGE, Bead.HALF_WAY, Bead.IN_BOX)
    assert spindle.cases and not spindle.finished
    deal(table, "2H 5C")
    spindle = table.state.casekeep.spindle(Rank.FIVE)
    assert spindle.beads == (Bead.FINISHED,) * 4
    assert spindle.finished
    assert [e.role for e in spindle.entries] == [
        CardRole.SODA,
        CardRole.LOSER,
        CardRole.WINNER,
        CardRole.WINNER,
    ]


def test_001_a_rank_with_no_cards_left_is_dead_and_takes_no_bets() -> None:
    """001, The case keeper: a rank with no cards left is dead; DESIGN: bets refused."""
    table = open_table(soda="7S")
    deal(table, "7H 7D 7C 2H")
    with pytest.raises(BetRefusedError) as refused:
        table.bet("dan", "7", 4)
    assert str(refused.value) == "bet on 7: rank 7 is dead (4 of 4 out) before turn 3"
    with pytest.raises(BetRefusedError, match="rank 7 is dead"):
        table.bet("dan", "6+7+8", 4)


# --- house options of 003: betting marks and cases -----------------------------------------


def test_003_betting_marks_must_be_matched_by_chips_on_the_layout() -> None:
    """003, ставочные марки: each mark matched by chips; uncovered marks come down."""
    table = open_table("casino-003", {"dan": 20})
    table.bet("dan", "9", 10)
    with pytest.raises(BetRefusedError, match="in marks would pass"):
        table.bet("dan", "K", 11, mark=True)
    table.bet("dan", "K", 10, mark=True)
    assert table.state.available("dan") == 10
    events = deal(table, "9H 3S")  # the chips on 9 lose: the marks are no longer covered
    assert settlements(events) == [
        ("dan", "9", "lose", -10),
        ("dan", "K", "returned", 0),
    ]
    assert table.state.bets == {}


def test_003_a_mark_is_matched_by_chips_somewhere_else_on_the_layout() -> None:
    """003, ставочные марки: for each mark the punter puts an equal amount in chips
    "куда-нибудь в другое место на табло": chips on the mark's own spot do not match it,
    neither when it is bet or moved nor after a turn."""
    table = open_table("casino-003", {"dan": 20})
    table.bet("dan", "9", 5)
    before = table.state.copy()
    with pytest.raises(BetRefusedError) as refused:
        table.bet("dan", "9", 5, mark=True)
    assert str(refused.value) == (
        "bet on 9: 5 in marks on 9 would pass the 0 in chips dan would have elsewhere on the "
        "layout (003: chips on the mark's own spot do not match it; they must lie somewhere else)"
    )
    assert table.state == before
    table.bet("dan", "K", 5, mark=True)
    with pytest.raises(BetRefusedError, match="5 in marks on K would pass the 0 in chips"):
        table.move("dan", "9", "K")
    table.bet("dan", "K", 5)
    events = deal(table, "9H 3S")  # the chips on 9 lose: only the K's own chips are left
    assert settlements(events) == [("dan", "9", "lose", -5), ("dan", "K", "returned", 0)]
    assert [(bet.spot.text, bet.stake, bet.mark) for bet in table.state.bets.values()] == [
        ("K", 5, False)
    ]


def test_003_a_mark_lying_with_chips_on_one_spot_is_taken_back_or_moved_alone() -> None:
    """003, ставочные марки: the punter takes back "свою марочную ставку", his bet in marks,
    alone; where chips of his lie on the same spot, the line says which by `mark` or
    `chips`, and a line that names neither is told those words, not copper."""
    table = open_table("casino-003", {"dan": 20})
    for line in ("bet dan 9 5", "bet dan 4 5", "bet dan 9 5 mark"):
        table.apply(parse_line(line))
    before = table.state.copy()
    for line in ("withdraw dan 9 2", "withdraw dan 9 plain 2", "move dan 9 10 plain"):
        with pytest.raises(BetRefusedError) as refused:
            table.apply(parse_line(line))
        assert "chips and marks" in str(refused.value) and "say mark or chips" in str(
            refused.value
        ), line
        assert table.state == before
    events = table.apply(parse_line("withdraw dan 9 mark"))
    assert [(e.spot, e.amount, e.stake) for e in events if isinstance(e, BetWithdrawn)] == [
        ("9", 5, 0)
    ]
    table.apply(parse_line("bet dan 9 3 mark"))
    table.apply(parse_line("withdraw dan 9 chips 1"))
    table.apply(parse_line("move dan 9 10 chips"))
    assert sorted((bet.spot.text, bet.stake, bet.mark) for bet in table.state.bets.values()) == [
        ("10", 4, False),
        ("4", 5, False),
        ("9", 3, True),
    ]


def test_003_no_bets_on_cases_unless_the_punter_backs_a_rank_that_can_split() -> None:
    """003, ставки на кейсиз: most casinos forbid a bet on cases until the punter bets on a
    rank that can still split."""
    table = open_table("casino-003", soda="QS")
    deal(table, "QH QD")
    with pytest.raises(BetRefusedError, match="cases"):
        table.bet("dan", "Q", 2)
    table.bet("dan", "3", 2)
    table.bet("dan", "Q", 2)
    assert len(table.state.bets) == 2


def test_003_marks_stay_covered_whatever_the_punter_bets_moves_or_takes_back() -> None:
    """003, ставочные марки: a mark is matched by chips on the layout, and a loss on marks is
    paid in chips, so no bet, move or withdrawal may leave a turn able to cost more."""
    table = open_table("casino-003", {"dan": 20})
    table.bet("dan", "8+9", 10)
    table.bet("dan", "9", 10, mark=True)
    before = table.state.copy()
    # If the 9 loses and the K wins, the marks and the copper on K lose 20 + 10 = 30 > 20.
    with pytest.raises(BetRefusedError, match="one turn could cost dan 30 with their marks"):
        table.bet("dan", "K", 10, copper=True)
    with pytest.raises(BetRefusedError, match="10 in marks would pass the 0 in chips"):
        table.withdraw("dan", "8+9")
    with pytest.raises(BetRefusedError, match="10 in marks would pass the 5 in chips"):
        table.withdraw("dan", "8+9", 5)
    assert table.state.bets == before.bets and table.state.bankrolls == before.bankrolls
    table.move("dan", "9", "K")  # the marks only change spots: still 10 against 10 in chips
    assert [(bet.spot.text, bet.mark) for bet in table.state.bets.values()] == [
        ("8+9", False),
        ("K", True),
    ]
    deal_rest(table)
    assert table.state.bankrolls["dan"] >= 0


def test_003_chips_that_pay_a_loss_on_marks_go_to_the_bank_and_are_said_so() -> None:
    """003: a loss on marks is paid from the punter's chips on the layout."""
    table = open_table("casino-003", {"anna": 10})
    narrator = Narrator("en")
    narrator.explain(table.bet("anna", "4", 10) + table.bet("anna", "9", 10, mark=True))
    events = deal(table, "9S 3S")
    assert settlements(events) == [("anna", "9", "lose", -10), ("anna", "4", "taken", 0)]
    assert table.state.bankrolls["anna"] == 0 and table.state.bets == {}
    said = " ".join(narrator.explain(events))
    assert "Anna loses 10 chips in marks on the 9." in said
    assert "Of Anna's loss on marks, the bank takes 10 chips from the bet on the 4." in said
    assert "gets back" not in said


def test_003_a_refusal_on_cases_says_one_card_of_each_rank_of_a_group_is_left() -> None:
    """003, ставки на кейсиз: cases is one card of a rank left. A group whose ranks are all
    cases has one card of each left, not one card in all, and the refusal says so."""
    table = open_table("casino-003", soda="2C")
    deal(table, "2H QS 2D QH QD 5S")  # one 2 and one Q left
    rule = (
        "the house takes a bet on cases only from a punter who also backs a rank that can "
        "still split"
    )
    with pytest.raises(BetRefusedError) as refused:
        table.bet("dan", "Q", 2)
    assert str(refused.value) == f"bet on Q: Q is cases (one card left); {rule}"
    with pytest.raises(BetRefusedError) as refused:
        table.bet("dan", "2+Q", 2)
    assert str(refused.value) == f"bet on 2+Q: 2+Q is on cases (one 2 and one Q left); {rule}"
    table.bet("dan", "9", 2)
    table.bet("dan", "Q", 2)
    table.bet("dan", "2+Q", 2)
    with pytest.raises(BetRefusedError) as refused:
        table.withdraw("dan", "9")
    assert str(refused.value) == (
        "withdraw dan 9: Q is cases (one card left), 2+Q is on cases (one 2 and one Q left); "
        f"{rule}"
    )


def test_003_on_the_last_turn_the_three_cards_are_backed_as_usual() -> None:
    """003, последний абцуг: punters may back any of the last three cards as usual, though
    each is cases."""
    table = open_table("casino-003", soda="2C")
    deal(table, " ".join(str(c) for c in table.state.casekeep.remaining_cards()[:-3]))
    assert table.state.is_last_turn_next
    table.bet("dan", "7" if table.state.casekeep.left(Rank.SEVEN) else "K", 5)
    assert len(table.state.bets) == 1


def test_003_a_move_or_withdrawal_cannot_leave_a_bet_on_cases_alone() -> None:
    table = open_table("casino-003", soda="2C")
    deal(table, "KS KH KD 3S")  # K is cases
    table.bet("dan", "9", 5)
    with pytest.raises(BetRefusedError, match="K is cases"):
        table.move("dan", "9", "K")
    table.bet("dan", "K", 4)
    with pytest.raises(BetRefusedError, match="K is cases"):
        table.withdraw("dan", "9")
    assert {bet.spot.text: bet.stake for bet in table.state.bets.values()} == {"9": 5, "K": 4}


# --- limits and bankrolls -------------------------------------------------------------------


def test_limits_minimum_maximum_bankroll_and_amounts() -> None:
    table = open_table(punters={"dan": 30}, min_bet="2", max_bet="20")
    with pytest.raises(BetRefusedError, match="under the table minimum 2"):
        table.bet("dan", "9", 1)
    table.bet("dan", "9", 15)
    with pytest.raises(BetRefusedError, match="21 on one spot is over the table maximum 20"):
        table.bet("dan", "9", 6)
    with pytest.raises(BetRefusedError, match="only 15 chips in hand"):
        table.bet("dan", "8", 16)
    with pytest.raises(BetRefusedError, match="must be positive"):
        table.bet("dan", "8", -3)
    with pytest.raises(BetRefusedError, match="whole number"):
        table.bet("dan", "8", 2.5)  # type: ignore[arg-type]
    with pytest.raises(IllegalCommandError, match="not seated"):
        table.bet("zoe", "8", 2)


def test_the_bank_takes_only_bets_it_could_pay_in_the_worst_turn() -> None:
    table = open_table(bank=10, punters={"dan": 100, "anna": 100})
    table.bet("dan", "9", 6)
    table.bet("anna", "9", 4)
    table.bet("anna", "9", 2, copper=True)  # if the 9 wins, the bank pays 6 + 4 - 2 = 8
    table.bet("dan", "K", 5)  # the K and the 9 cannot both win one turn: still at most 8
    with pytest.raises(BetRefusedError, match=r"the bank \(10\) cannot cover .*worst turn: 11"):
        table.bet("dan", "9", 3)
    assert table.state.bank == 10
    assert sum(bet.stake for bet in table.state.bets.values()) == 17


def test_003_high_card_and_odd_even_are_reckoned_by_the_turn_that_decides_them() -> None:
    """003, ставки, действующие в каждом абцуге: odd and even (or high card plain and
    coppered) cannot both win one turn; the bank takes both while it can pay the turn that
    costs it most, as it does for a plain and a coppered bet on one rank."""
    table = open_table(bank=30, punters={"dmitri": 100, "elena": 100, "dan": 100})
    table.bet("dmitri", "odd", 20)
    table.bet("elena", "even", 20)  # one wins what the other loses: the bank pays nothing
    table.bet("dan", "high", 10)
    table.bet("dan", "high", 10, copper=True)
    with pytest.raises(BetRefusedError, match=r"the bank \(30\) cannot cover .*worst turn: 31"):
        table.bet("dan", "9", 31)
    assert settlements(deal(table, "4H 9S")) == [
        ("dmitri", "odd", "win", 20),
        ("elena", "even", "lose", -20),
        ("dan", "high", "win", 10),
        ("dan", "high", "lose", -10),
    ]
    assert table.state.bank == 30


def test_001_a_bet_taken_back_that_hedged_another_brings_down_what_the_bank_cannot_cover() -> None:
    """001, Placing bets: "every punter may place, move or take back bets". The bank holds
    5: Dan's 10 on the 9 is covered only while Anna's coppered 5 on the 9 loses as it wins.
    She takes it back; the newest bet the bank can no longer cover comes down, and no turn
    can leave the bank paying chips it does not have."""
    table = open_table(bank=5, punters={"dan": 100, "anna": 100})
    table.bet("anna", "9", 5, copper=True)
    table.bet("dan", "9", 5)
    table.bet("dan", "9", 5)
    events = table.withdraw("anna", "9")
    returned = [e for e in events if isinstance(e, BetSettled)]
    assert [(e.punter, e.spot, e.outcome.value, e.net) for e in returned] == [
        ("dan", "9", "returned", 0)
    ]
    assert "the bank cannot cover it" in returned[0].note
    assert table.state.bets == {}
    deal(table, "2H 9C")
    assert (table.state.bank, table.state.bankrolls) == (5, {"dan": 100, "anna": 100})


def test_001_a_bet_moved_is_checked_where_it_goes_and_no_longer_where_it_lay() -> None:
    """001, Placing bets: a bet may be moved. The bank's cover is reckoned with the bet on
    its new spot only: a move that makes the worst turn too much is refused, one that
    does not is taken, as a withdrawal and a new bet would be."""
    table = open_table(bank=5, punters={"dan": 100, "anna": 100})
    table.bet("anna", "10>9", 5)  # the 10 to win, the 9 to lose: loses as the 9 wins
    table.bet("dan", "9", 5)
    table.bet("dan", "9", 5)
    with pytest.raises(BetRefusedError, match=r"the bank \(5\) cannot cover .*worst turn: 10"):
        table.move("anna", "10>9", "Q")
    assert [(b.punter, b.spot.text, b.stake) for b in table.state.bets.values()] == [
        ("anna", "10>9", 5),
        ("dan", "9", 10),
    ]
    alone = open_table(bank=5, punters={"dan": 100})
    alone.bet("dan", "9", 5)
    alone.move("dan", "9", "high")
    assert [(b.spot.text, b.stake) for b in alone.state.bets.values()] == [("high", 5)]


# --- rule sets ---------------------------------------------------------------------------------


def test_001_home_the_bank_passes_to_the_left_after_each_deal() -> None:
    """001, Winning the game: after a full deal the bank passes to the left."""
    table = open_table("home", {"anna": 100, "ben": 100, "carl": 100})
    assert table.state.banker == "anna"
    with pytest.raises(BetRefusedError, match="holds the bank"):
        table.bet("anna", "9", 2)
    table.bet("ben", "9", 4)
    events = deal_rest(table)
    passed = [e for e in events if isinstance(e, BankPassed)]
    assert [(e.from_banker, e.to_banker) for e in passed] == [("anna", "ben")]
    assert table.state.banks_held == {"anna": 1}
    assert table.state.total_chips() == 300
    table.new_deck()
    table.deal(Card.parse("2C"))
    table.bet("anna", "9", 2)


def test_001_home_a_banker_who_leaves_between_deals_passes_the_bank_to_the_left() -> None:
    table = open_table("home", {"anna": 100, "ben": 100, "carl": 100})
    deal_rest(table)
    assert table.state.banker == "ben"
    table.new_deck()
    with pytest.raises(IllegalCommandError, match="the banker stays until the deal is over"):
        table.leave("ben")
    table.void_deal()
    events = table.leave("ben")
    assert [(e.from_banker, e.to_banker) for e in events if isinstance(e, BankPassed)] == [
        ("ben", "carl")
    ]
    assert table.state.banker == "carl" and table.state.seats == ["anna", "carl"]
    table.new_deck()
    table.deal(Card.parse("2C"))
    table.bet("anna", "9", 2)
    deal_rest(table)  # the next pass goes round the seats left
    assert table.state.banker == "anna"


def test_001_after_a_home_deal_casino_rules_leave_nobody_holding_the_bank() -> None:
    """001, Winning the game: the bank passes after each deal under home rules only; under
    DESIGN.md's casino rules the house holds the bank, so the last home banker is a punter
    again: he bets, leaves with no bank to pass, and nobody holds the bank."""
    table = FaroTable("t1", "home")
    events = list(table.opening)
    for punter, bankroll in (("hugo", 50), ("dan", 100), ("eve", 100)):
        events += table.seat(punter, bankroll)
    events += table.new_deck()
    events += deal_rest(table)
    assert table.state.banker == "dan"
    events += table.choose_rules("classic")
    assert table.state.banker is None
    events += table.fund_bank(1000)
    events += table.new_deck()
    events += table.deal(Card.parse("2C"))
    events += table.bet("dan", "9", 2)
    assert table.state.bank_bankroll == 1000
    events += deal(table, "9H 3S")
    events += table.void_deal()
    left = table.leave("dan")
    assert [type(event).__name__ for event in left] == ["PunterLeft"]
    with pytest.raises(IllegalCommandError, match="under classic rules the house is the bank"):
        table.choose_banker("eve")
    replayed = FaroTable.replay(events + left)
    assert replayed.state.banker is None and replayed.state == table.state


def test_001_home_session_ends_when_everyone_has_banked_and_most_chips_wins() -> None:
    """001, Winning the game: play until everyone has been banker equally often; whoever
    has the most chips wins."""
    table = open_table("home", {"anna": 100, "ben": 100}, soda=None, winning_bets_stay="no")
    # Deal 1: anna banks, ben's 5 on the king loses. Deal 2: ben banks, anna's 5 on the 9 wins.
    for deal_number, (bettor, spot) in enumerate((("ben", "K"), ("anna", "9"))):
        table.deal(Card.parse("2C"))
        table.bet(bettor, spot, 5)
        assert not table.state.session_complete
        deal_rest(table, "KH 9S")
        if deal_number == 0:
            table.new_deck()
    assert table.state.banks_held == {"anna": 1, "ben": 1}
    assert table.state.session_complete
    assert table.state.standings() == [("anna", 110), ("ben", 90)]


def test_001_home_a_winning_bet_stays_on_the_layout() -> None:
    """001, A turn: a winning bet stays on the layout too, unless its owner picks it up."""
    table = open_table("home", {"host": 100, "dan": 20})
    table.bet("dan", "9", 4)
    assert settlements(deal(table, "KD 9C")) == [("dan", "9", "win", 4)]
    assert [(b.spot.text, b.stake) for b in table.state.bets.values()] == [("9", 4)]
    assert table.state.bankrolls["dan"] == 24


def test_000_monte_bank_deals_40_cards_without_8_9_10() -> None:
    """000, Variantes, Faro mexicano / Monte Bank: a 40-card deck with no 8s, 9s or 10s."""
    table = open_table("monte-bank")
    with pytest.raises(BetRefusedError, match="has no 9"):
        table.bet("dan", "9", 2)
    events = deal_rest(table)
    dealt = [e for e in events if isinstance(e, CardDealt)]
    assert len(dealt) == 39  # plus the soda
    assert [e.turn for e in events if isinstance(e, TurnClosed)][-1] == 19
    alarms = [
        e for e in open_table("monte-bank").deal(Card.parse("9H")) if isinstance(e, AlarmRaised)
    ]
    assert alarms[0].kind is AlarmKind.UNKNOWN_CARD
    assert "not in a monte-bank-40 deck" in alarms[0].message


def test_000_saratoga_paroli_lets_a_win_ride() -> None:
    """000, Faro de Saratoga: paroli as a standing instruction: a win rides up to N times."""
    table = open_table("saratoga")
    table.bet("dan", "high", 2, instruction="paroli 2")
    assert settlements(deal(table, "3H 8S")) == [("dan", "high", "win", 2)]
    assert [b.stake for b in table.state.bets.values()] == [4]
    assert settlements(deal(table, "3D 8D")) == [("dan", "high", "win", 4)]
    assert table.state.bets == {}  # two wins ridden: the bet comes down
    assert table.state.bankrolls["dan"] == 106


def test_000_003_a_plie_on_a_standing_paroli_does_not_restart_its_count_of_wins() -> None:
    """000, Faro de Saratoga (paroli) with 003's plie on a bet that acts every turn: equal
    ranks pay nothing and the bet stays as it was, so a paroli 2 that has ridden one win
    comes down at its next win, not a third."""
    table = open_table("saratoga")
    table.bet("dan", "high", 2, instruction="paroli 2")
    assert settlements(deal(table, "3H 8S")) == [("dan", "high", "win", 2)]
    assert settlements(deal(table, "5S 5H")) == [("dan", "high", "split", 0)]
    assert [b.stake for b in table.state.bets.values()] == [4]
    assert settlements(deal(table, "3D 8D")) == [("dan", "high", "win", 4)]
    assert table.state.bets == {}  # two wins ridden: the bet comes down
    assert table.state.bankrolls["dan"] == 106


def test_000_saratoga_martingale_doubles_after_a_loss_up_to_the_cap() -> None:
    """000, Faro de Saratoga: martingale: double after a loss up to a cap."""
    table = open_table("saratoga")
    table.bet("dan", "high", 2, instruction="martingale 8")
    deal(table, "8H 3S")
    assert [b.stake for b in table.state.bets.values()] == [4]
    deal(table, "8D 3D")
    assert [b.stake for b in table.state.bets.values()] == [8]
    events = deal(table, "8C 3C")
    assert settlements(events) == [("dan", "high", "lose", -8)]
    assert table.state.bets == {}
    assert table.state.bankrolls["dan"] == 86
    with pytest.raises(BetRefusedError, match="Saratoga"):
        open_table().bet("dan", "high", 2, instruction="paroli 2")


def test_000_saratoga_refuses_a_progression_that_would_stop_at_its_first_result() -> None:
    """000, Faro de Saratoga: a martingale whose stake is already over its cap, or a paroli
    that can let no win ride, would only be a plain bet under another name: it is refused
    when placed, saying why, and the table is as it was."""
    table = open_table("saratoga", max_bet="20")
    table.bet("dan", "high", 6, instruction="martingale 16")
    refused = [
        ("anna", "9", 20, "martingale 16", "the stake 20 is already over the martingale cap 16"),
        # chips stacked on dan's martingale raise its base stake over the cap as well
        ("dan", "high", 11, "martingale 16", "the stake 17 is already over the martingale cap"),
        ("anna", "9", 2, "paroli 1", "paroli 1 lets no win ride"),
        (
            "anna",
            "9",
            11,
            "paroli 3",
            "the paroli could not ride: after its first win the stake 22",
        ),
    ]
    for punter, spot, amount, instruction, reason in refused:
        before = table.state.copy()
        with pytest.raises(BetRefusedError, match=f"^bet on {spot}: {reason}"):
            table.bet(punter, spot, amount, instruction=instruction)
        assert table.state == before
    table.bet("dan", "high", 10, instruction="martingale 16")
    table.bet("anna", "9", 10, instruction="paroli 2")
    assert sorted(bet.label for bet in table.state.bets.values()) == [
        "anna 10 on 9 [paroli 2]",
        "dan 16 on high [martingale 16]",
    ]


def test_000_saratoga_chips_added_to_a_martingale_keep_its_stake_within_its_cap() -> None:
    """000, Faro de Saratoga: a martingale doubles only as long as the doubled stake stays
    within its cap. Chips added to one that has doubled up to its cap would lay more on the
    spot than the cap the punter set: refused, saying so, and the table is as it was; what
    keeps the stake within the cap is taken."""
    table = open_table("saratoga")
    table.bet("dan", "high", 2, instruction="martingale 8")
    deal(table, "8H 3S 8D 3D")  # two losses: 2, then 4, now 8 stands
    assert [b.stake for b in table.state.bets.values()] == [8]
    before = table.state.copy()
    with pytest.raises(
        BetRefusedError,
        match=r"^bet on high: 2 more would put 10 on dan's martingale 8 on high, over its cap 8",
    ):
        table.bet("dan", "high", 2, instruction="martingale 8")
    assert table.state == before
    assert settlements(deal(table, "8C 3C")) == [("dan", "high", "lose", -8)]
    table.bet("dan", "high", 2, instruction="martingale 8")
    deal(table, "9H 4S")  # a loss: 4 stands
    table.bet("dan", "high", 4, instruction="martingale 8")
    assert [b.stake for b in table.state.bets.values()] == [8]


def test_000_saratoga_a_martingale_taken_partly_back_still_returns_to_its_base() -> None:
    """000, Faro de Saratoga: after a win a martingale starts again from its base, the stake
    it started from. Chips taken back from a martingale that has doubled leave that base as
    it was (or what is left, when less is left), so the next win brings the bet down to it,
    not to what happened to be left on the spot; as after a move, and alike in a replay."""
    table = FaroTable("t1", "saratoga")
    events = list(table.opening)
    events += table.fund_bank(1000)
    events += table.seat("dan", 100)
    events += table.new_deck()
    events += deal(table, "2C")
    events += table.bet("dan", "high", 2, instruction="martingale 16")
    events += deal(table, "8H 3S 8D 3D")  # two losses: 2, then 4, now 8 stands
    events += table.withdraw("dan", "high", 1)
    settled = deal(table, "3C 8C")
    events += settled
    assert [(e.net, e.stake) for e in settled if isinstance(e, BetSettled)] == [(7, 2)]
    events += deal(table, "9H 4S")  # a loss from the base: 4 stands
    events += table.withdraw("dan", "high", 3)  # 1 is left, less than the base
    settled = deal(table, "4C 9C")
    events += settled
    assert [(e.net, e.stake) for e in settled if isinstance(e, BetSettled)] == [(1, 1)]
    assert FaroTable.replay(events).state == table.state


def test_000_saratoga_a_moved_bet_keeps_its_progression() -> None:
    """000, Faro de Saratoga: a standing instruction is the punter's for that bet: moved to
    another rank, a martingale still returns to its base after a win, and a paroli counts
    the wins it rode before the move."""
    table = FaroTable("t1", "saratoga")
    events = list(table.opening)
    events += table.fund_bank(1000)
    events += table.seat("bob", 100) + table.seat("ann", 100)
    events += table.new_deck()
    events += deal(table, "2C")
    events += table.bet("bob", "K", 2, instruction="martingale 16")
    events += table.bet("ann", "9", 1, instruction="paroli 2")
    events += deal(table, "KD 9C")  # bob's martingale doubles to 4, ann's paroli rides 2
    events += table.move("bob", "K", "Q")
    events += table.move("ann", "9", "10")
    settled = deal(table, "4D QC 5D 10C")
    events += settled
    assert [
        (e.punter, e.spot, e.net, e.stake, e.note) for e in settled if isinstance(e, BetSettled)
    ] == [
        ("bob", "Q", 4, 2, "martingale: 2 stands on Q"),
        ("ann", "10", 2, 0, "paroli: 2 wins ridden, the bet comes down"),
    ]
    recorded = [event_from_json(event_to_json(event)) for event in events]
    assert FaroTable.replay(recorded).state == table.state
    table.bet("bob", "J", 2, instruction="martingale 16")
    before = table.state.copy()
    with pytest.raises(BetRefusedError, match="one stack cannot follow two progressions"):
        table.move("bob", "Q", "J")
    assert table.state == before


def test_000_dutch_faro_bets_on_the_colour_of_the_turn() -> None:
    """000, Variantes, Faro holandés: bets on red or black instead of ranks."""
    table = open_table("dutch")
    with pytest.raises(BetRefusedError, match="only red or black"):
        table.bet("dan", "9", 2)
    table.bet("dan", "red", 3)
    table.bet("anna", "black", 3)
    assert settlements(deal(table, "3H 8D")) == [
        ("dan", "red", "win", 3),
        ("anna", "black", "lose", -3),
    ]
    assert settlements(deal(table, "3S 8H")) == [
        ("dan", "red", "split", 0),
        ("anna", "black", "split", 0),
    ]


def test_000_dutch_faro_red_and_black_are_reckoned_by_the_turn_that_decides_them() -> None:
    """000, Variantes, Faro holandés: a turn's two cards are both red, both black or one
    of each, so red and black cannot both win it; the bank takes both while it can pay the
    turn that costs it most."""
    table = open_table("dutch", bank=30)
    table.bet("dan", "red", 20)
    table.bet("anna", "black", 20)  # one wins what the other loses: the bank pays nothing
    with pytest.raises(BetRefusedError, match=r"the bank \(30\) cannot cover .*worst turn: 31"):
        table.bet("ben", "red", 31)
    assert settlements(deal(table, "3S 8C")) == [
        ("dan", "red", "lose", -20),
        ("anna", "black", "win", 20),
    ]
    assert table.state.bank == 30


@pytest.mark.parametrize(
    ("colour", "left"), [("red", "7H 9S 9C 10S 10C"), ("black", "7S 9H 9D 10H 10D")]
)
def test_000_dutch_faro_the_bank_covers_only_the_turns_the_cards_left_can_make(
    colour: str, left: str
) -> None:
    """000, Variantes, Faro holandés: a colour wins a turn whose two cards are both of it.
    With one card of a colour left in the box no turn can bring two of it: a bet on that
    colour can no longer win, and a bank of 10 takes 15 on it."""
    table = open_table("dutch", bank=10)
    kept = cards(left)
    deal(table, " ".join(str(c) for c in table.state.casekeep.remaining_cards() if c not in kept))
    assert table.state.cards_left == 5 and table.state.bets_open
    table.bet("dan", colour, 15)
    assert [(bet.spot.text, bet.stake) for bet in table.state.bets.values()] == [(colour, 15)]
    assert settlements(deal(table, left[:5])) == [("dan", colour, "split", 0)]
    assert settlements(deal_rest(table)) == [
        ("dan", colour, "lose", -15),
        ("dan", colour, "returned", 0),  # the deal is over
    ]
    assert table.state.bank == 25


# --- integrity: alarms and the dealer's corrections ----------------------------------------


def test_a_card_seen_twice_raises_an_alarm_and_nothing_settles_until_the_dealer_acts() -> None:
    table = open_table()
    table.bet("dan", "9", 4)
    before = table.state.copy()
    events = table.deal(Card.parse("2C"))  # the soda, again
    (alarm,) = events
    assert isinstance(alarm, AlarmRaised)
    assert alarm.kind is AlarmKind.DUPLICATE_CARD
    assert alarm.message == "card 2C was already dealt as the soda"
    with pytest.raises(CardRefusedError, match="alarm 1 waits for the dealer"):
        table.deal(Card.parse("9C"))
    with pytest.raises(IllegalCommandError, match="alarm 1"):
        table.bet("anna", "3", 1)
    table.void_card()
    assert table.state.alarm is None
    assert table.state.casekeep == before.casekeep
    assert table.state.bets == before.bets


def test_a_card_the_reader_could_not_name_waits_for_the_dealer_to_name_it() -> None:
    """A torn sticker or a card the camera cannot read: nothing more is dealt or bet until
    the dealer names the card, which is then dealt where it came, or says none came out."""
    table = open_table()
    table.bet("dan", "9", 4)
    before = table.state.copy()
    (alarm,) = table.unread()
    assert isinstance(alarm, AlarmRaised) and alarm.kind is AlarmKind.UNREAD_CARD
    assert alarm.message == (
        "a card came out of the box that the reader could not read: name the card with "
        "'card CARD', or void this alarm if no card came out"
    )
    with pytest.raises(IllegalCommandError, match=r"alarm 1 waits .*; answer it first"):
        table.bet("anna", "3", 1)
    with pytest.raises(
        IllegalCommandError,
        match="alarm 1 is about a card the reader could not read: name it with 'card CARD'",
    ):
        table.correct(Card.parse("9C"))
    assert table.state.casekeep == before.casekeep and table.state.bets == before.bets
    named = table.deal(Card.parse("9H"))
    kinds = [event.type_name for event in named]
    assert kinds[:3] == ["alarm_cleared", "bets_locked", "card_dealt"]
    assert named[0].resolution == "the card was 9H"  # type: ignore[attr-defined]
    assert settlements(deal(table, "KD")) == [("dan", "9", "lose", -4)]
    table.unread()
    (cleared,) = table.void_card()  # no card came out after all: nothing dealt
    assert isinstance(cleared, AlarmCleared) and table.state.turn == 1
    assert table.state.casekeep.left(Rank.THREE) == 4


def test_the_card_named_for_an_unread_alarm_came_out_when_it_was_raised() -> None:
    """The dealer names the card a minute after the reader lost it: the card, and the bets it
    settles, carry the time it came out; the alarm is cleared at the time of the answer."""
    table = open_table()
    table.bet("dan", "9", 4)
    deal(table, "3H")
    table.unread(at=100.0)
    named = table.deal(Card.parse("9C"), at=160.0)
    times = {event.type_name: event.at for event in named}
    assert times == {"alarm_cleared": 160.0, "card_dealt": 100.0, "bet_settled": 100.0,
                     "turn_closed": 100.0}  # fmt: skip
    assert table.bet("anna", "5", 1, at=170.0)[0].at == 170.0


def test_a_card_named_for_the_reader_that_was_already_dealt_is_an_alarm_of_its_own() -> None:
    table = open_table()
    table.unread()
    events = table.deal(Card.parse("2C"))  # the soda, named again
    assert [event.type_name for event in events] == ["alarm_cleared", "alarm_raised"]
    assert table.state.alarm is not None
    assert table.state.alarm.kind is AlarmKind.DUPLICATE_CARD


def test_a_53rd_card_is_an_alarm() -> None:
    table = open_table()
    deal_rest(table)
    (alarm,) = table.deal(Card.parse("2C"))
    assert isinstance(alarm, AlarmRaised) and alarm.kind is AlarmKind.EXTRA_CARD


def test_a_deal_that_ends_short_is_an_alarm_and_void_deal_returns_every_bet() -> None:
    table = open_table()
    table.bet("dan", "9", 4)
    table.bet("anna", "high", 3)
    deal(table, "3H 4S")
    (alarm,) = table.box_empty()
    assert isinstance(alarm, AlarmRaised) and alarm.kind is AlarmKind.SHORT_DEAL
    assert "49 cards were never dealt" in alarm.message
    events = table.void_deal()
    assert settlements(events) == [("dan", "9", "returned", 0), ("anna", "high", "returned", 0)]
    assert table.state.bets == {}
    assert table.state.phase is Phase.NO_DECK
    assert table.state.total_chips() == 1300


def test_correct_replaces_the_last_card_and_settles_by_the_right_one() -> None:
    table = open_table()
    table.bet("dan", "9", 4)
    table.bet("anna", "8", 4)
    assert settlements(deal(table, "KD 9C")) == [("dan", "9", "win", 4)]
    events = table.correct(Card.parse("8C"))
    assert settlements(events) == [("anna", "8", "win", 4)]
    assert table.state.bankrolls == {"dan": 100, "anna": 104, "ben": 100}
    assert [b.spot.text for b in table.state.bets.values()] == ["9"]
    assert table.state.casekeep.entry_for(Card.parse("9C")) is None


def test_a_winner_misread_is_corrected_after_the_dealer_locked_the_next_turn() -> None:
    """The dealer locked the bets for the next turn, then saw the winner was misread: a lock
    moves no chip, so the card can still be corrected (or voided); the lock goes with it and
    the bets are open again until the dealer locks anew."""
    table = open_table()
    table.bet("dan", "9", 4)
    table.bet("anna", "8", 4)
    deal(table, "KD 9C")
    table.lock()
    assert settlements(table.correct(Card.parse("8C"))) == [("anna", "8", "win", 4)]
    assert table.state.bankrolls == {"dan": 100, "anna": 104, "ben": 100}
    assert table.state.bets_open
    table.lock()
    table.void_card()
    assert table.state.bankrolls == {"dan": 100, "anna": 100, "ben": 100}
    assert not table.state.bets_open  # the turn's winner is still to come


def test_void_is_refused_once_play_has_gone_on() -> None:
    table = open_table()
    deal(table, "KD 9C")
    table.bet("dan", "3", 1)
    with pytest.raises(IllegalCommandError, match="can no longer be voided"):
        table.void_card()


LOST = ReaderNoticeKind.READER_LOST
BACK = ReaderNoticeKind.READER_BACK


def test_a_lost_reader_stops_no_card_and_stays_lost_until_it_is_back() -> None:
    """A reader lost is the table's news until it reads again: the dealer deals on from the
    console meanwhile, and the fold of the events knows it as the live table does."""
    table = FaroTable("t1")
    events = [*table.opening, *table.fund_bank(1000), *table.seat("dan", 100)]
    events += table.new_deck() + deal(table, "2C")
    events += table.reader_notice("camera", LOST, "the camera is gone: deal from the console")
    assert table.state.readers_lost == {"camera": "the camera is gone: deal from the console"}
    events += table.bet("dan", "9", 5) + deal(table, "KD 9C")
    assert table.state.bankrolls["dan"] == 105
    assert FaroTable.replay(events).state == table.state
    news = table.reader_notice("camera", BACK, "the camera reads again")
    assert isinstance(news[0], ReaderNotice) and news[0].notice is BACK
    assert table.state.readers_lost == {}
    assert event_from_json(event_to_json(news[0])) == news[0]


def test_a_reader_notice_that_makes_no_sense_is_refused_and_changes_nothing() -> None:
    table = open_table()
    table.reader_notice("barcode", LOST, "the scanner is unplugged")
    before = table.state.copy()
    with pytest.raises(IllegalCommandError, match="reader camera: reader back, but it is not"):
        table.reader_notice("camera", BACK, "the camera reads again")
    with pytest.raises(IllegalCommandError, match="a reader's name is letters"):
        table.reader_notice("the camera", LOST, "gone")
    with pytest.raises(IllegalCommandError, match="says what the reader saw"):
        table.reader_notice("camera", ReaderNoticeKind.TWO_CARDS, " ")
    assert table.state == before


def test_a_reader_is_heard_while_an_alarm_waits_and_its_news_outlives_a_voided_card() -> None:
    """An alarm waits for the dealer, and the reader is lost meanwhile: the dealer hears it.
    A card voided later takes back what the card did, not what the reader said after it."""
    table = FaroTable("t1")
    events = [*table.opening, *table.fund_bank(1000), *table.seat("dan", 100)]
    events += table.new_deck() + deal(table, "2C") + table.bet("dan", "9", 5)
    events += deal(table, "9C 2C")
    assert table.state.alarm is not None
    events += table.reader_notice("camera", LOST, "the camera is gone")
    events += table.void_card()  # the card seen twice
    events += table.reader_notice("barcode", LOST, "the scanner is gone")
    events += table.void_card()  # the 9C, after both notices: it can still be voided
    assert table.state.bankrolls["dan"] == 100 and table.state.cards_left == 51
    assert table.state.readers_lost == {
        "camera": "the camera is gone",
        "barcode": "the scanner is gone",
    }
    assert FaroTable.replay(events).state == table.state


def test_voiding_a_turns_first_card_reopens_the_bets_it_locked() -> None:
    """The first card of a turn locks the bets when the dealer had not; voided, it takes
    that lock with it, and the card before it can be voided in turn."""
    table = open_table()
    table.bet("dan", "9", 5)
    deal(table, "5S 9S 3H")
    table.void_card()
    assert table.state.bets_open
    table.void_card()  # the winner of turn 1: its settlement is undone too
    assert table.state.bankrolls["dan"] == 100
    assert [bet.spot.text for bet in table.state.bets.values()] == ["9"]
    deal(table, "9S")
    table.lock()  # a lock the dealer gave stays when the card after it is voided
    deal(table, "JH")
    table.void_card()
    with pytest.raises(BetRefusedError, match="bets are locked"):
        table.bet("dan", "4", 2)


def test_refusals_say_what_the_table_is_waiting_for() -> None:
    table = FaroTable("t1")
    table.fund_bank(100)
    alarm = [e for e in table.deal(Card.parse("5S")) if isinstance(e, AlarmRaised)]
    assert alarm[0].message == (
        "card 5S: no deck has been started, so the box should be empty (shuffle starts a deck)"
    )
    table = open_table()
    table.lock()
    with pytest.raises(IllegalCommandError, match=r"^lock: bets are already locked for turn 1$"):
        table.lock()
    table = open_table()
    table.bet("dan", "9", 2)
    with pytest.raises(BetRefusedError, match="dan has no coppered bet on 9"):
        table.withdraw("dan", "9", copper=True)
    with pytest.raises(BetRefusedError, match="dutch rules take only red or black, and have no"):
        open_table("dutch").call("dan", ["red", "black", "red"], 2)


def test_a_correction_to_a_card_already_out_is_refused_and_changes_nothing() -> None:
    table = open_table()
    deal(table, "KD 9C")
    before = table.state.copy()
    with pytest.raises(CardRefusedError, match="already dealt"):
        table.correct(Card.parse("KD"))
    assert table.state == before


# --- refused commands change nothing -----------------------------------------------------------


REFUSED = {
    "zero amount": lambda t: t.bet("dan", "9", 0),
    "over the bankroll": lambda t: t.bet("dan", "9", 101),
    "no such spot": lambda t: t.bet("dan", "banana", 1),
    "unseated punter": lambda t: t.bet("nobody", "9", 1),
    "nothing to withdraw": lambda t: t.withdraw("dan", "9"),
    "call too early": lambda t: t.call("dan", ["A", "2", "3"], 1),
    "seated twice": lambda t: t.seat("dan", 5),
    "rules mid-deal": lambda t: t.choose_rules("classic"),
    "banker at a casino": lambda t: t.choose_banker("dan"),
    "void with no card": lambda t: t.void_card(),
}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_a_refused_command_names_why_and_changes_nothing(name: str) -> None:
    table = open_table(soda=None)
    table.deal(Card.parse("2C"))
    table.bet("anna", "5", 3)
    before = table.state.copy()
    with pytest.raises(TableError) as refused:
        REFUSED[name](table)
    assert str(refused.value)
    assert table.state == before


def test_replaying_the_events_rebuilds_the_same_state() -> None:
    """State is a fold of its events: replaying them gives the same state."""
    table = FaroTable("t1")
    events = list(table.opening)
    events += table.fund_bank(1000)
    events += table.seat("dan", 100)
    events += table.seat("anna", 100)
    events += table.new_deck()
    events += table.deal(Card.parse("2C"))
    events += table.bet("dan", "9", 4)
    events += table.bet("anna", "high", 2)
    events += deal(table, "KD 9C 3H 3S")
    events += table.correct(Card.parse("4S"))
    events += table.deal(Card.parse("2C"))  # an alarm
    events += table.void_card()
    assert [e.seq for e in events] == list(range(1, len(events) + 1))
    assert FaroTable.replay(events).state == table.state


def test_cards_given_as_text_are_parsed() -> None:
    table = open_table()
    assert [e.card for e in table.deal("kd") if isinstance(e, CardDealt)] == cards("KD")


def test_the_lines_every_game_shares_work_alike_at_faro_and_baccarat() -> None:
    faro = FaroTable("t1")
    baccarat = BaccaratTable("t2", "punto-banco")
    for table in (faro, baccarat):
        seated = table.apply(parse_line("punter ana 100"))
        assert [type(e).__name__ for e in seated] == ["PunterSeated"]
        assert table.apply(parse_line("bank 1000"))[0].bankroll == 1000
        assert table.apply(parse_line(f"game {table.game}")) == []
        before = table.state.copy()
        with pytest.raises(IllegalCommandError, match=f"this table deals {table.game}"):
            table.apply(parse_line("game chemin-de-fer"))
        with pytest.raises(IllegalCommandError, match=r"^void: no (deal is running|card)"):
            table.apply(parse_line("void"))
        assert table.state == before
    with pytest.raises(IllegalCommandError, match="Faro has no third card"):
        faro.apply(parse_line("stand"))
    with pytest.raises(IllegalCommandError, match="baccarat has no turn"):
        baccarat.apply(parse_line("call ana 2 3 4 5"))


def test_a_journal_written_before_casino_rules_freed_the_home_banker_folds_as_it_did() -> None:
    """An earlier dealtable kept the home banker through a 'rules classic' between deals,
    and its journals say so in no event: they must fold to the chips they dealt."""
    import json
    from pathlib import Path

    from table.events import event_from_json

    record = Path(__file__).parent / "records" / "home_banker_through_casino_rules.jsonl"
    events = [event_from_json(json.loads(line)) for line in record.read_text().splitlines()]
    state = FaroTable.replay(events).state
    assert state.banker == "ann"
    assert state.bankrolls == {"ann": 105, "bob": 95}  # bob's lost 5 went to the banker
    assert state.total_chips() == 200


def test_a_deal_that_is_over_is_not_voided_for_a_stray_card_after_it() -> None:
    """003: high card stands from deal to deal; a stray card after the hoc is voided alone,
    and the deal stays over, its standing bet with it."""
    table = open_table()
    table.bet("anna", "high", 5)
    deal_rest(table)
    (alarm,) = table.deal(Card.parse("2C"))
    assert isinstance(alarm, AlarmRaised) and alarm.kind is AlarmKind.EXTRA_CARD
    with pytest.raises(IllegalCommandError, match=r"no deal is running .*; void the card alone"):
        table.void_deal()
    table.void_card()
    assert table.state.phase is Phase.FINISHED and table.state.alarm is None
    assert [bet.spot.text for bet in table.state.bets.values()] == ["high"]
