"""The scoreboards against roads drawn by hand for one sequence of coups.

The sequence: B B P P P B T B P, seven bankers in a row, then P. Columns are streaks;
the seventh banker turns right along the bottom row (the dragon tail)."""

from __future__ import annotations

from table.baccarat.roads import (
    COUPS_SHOWN,
    Coup,
    Scoreboard,
    bead_plate,
    big_eye_boy,
    big_road,
    cockroach_pig,
    coups_of,
    derived_colours,
    follow_shoe,
    small_road,
)
from table.events import CoupResult, ShoeStarted
from tests.baccarat_tables import deal, open_chemin_de_fer, open_punto_banco

WINNERS = {"B": "banker", "P": "player", "T": "tie"}
SEQUENCE = [Coup(WINNERS[letter]) for letter in "BBPPPBTBP" + "B" * 7 + "P"]


def test_bead_plate_goes_down_six_then_on_ties_included() -> None:
    assert bead_plate(SEQUENCE).text(".") == [
        "BTB",
        "BBB",
        "PPB",
        "PBB",
        "PBP",
        "BB.",
    ]


def test_big_road_streaks_ties_on_the_last_cell_and_the_dragon_tail() -> None:
    road = big_road(SEQUENCE)
    assert road.text(".") == [
        "BPBPBP",
        "BPB.B.",
        ".P..B.",
        "....B.",
        "....B.",
        "....BB",
    ]
    assert [len(streak) for streak in road.streaks] == [2, 3, 2, 1, 7, 1]
    assert {position: cell.ties for position, cell in road.cells.items() if cell.ties} == {
        (2, 0): 1
    }


def test_big_eye_boy_reads_one_column_back() -> None:
    big = big_road(SEQUENCE)
    assert "".join(c[0] for c in derived_colours(big, 1)) == "rbbrbbbrrrrrb"
    assert big_eye_boy(big).text(".") == [
        "RBRBRB",
        ".B.BR.",
        "...BR.",
        "....R.",
        "....R.",
    ]


def test_small_road_reads_two_columns_back() -> None:
    big = big_road(SEQUENCE)
    assert "".join(c[0] for c in derived_colours(big, 2)) == "rrbrbrrrrb"
    assert small_road(big).text(".") == [
        "RBRBRB",
        "R...R.",
        "....R.",
        "....R.",
    ]


def test_cockroach_pig_reads_three_columns_back() -> None:
    big = big_road(SEQUENCE)
    assert "".join(c[0] for c in derived_colours(big, 3)) == "brrbrrrb"
    assert cockroach_pig(big).text(".") == [
        "BRBRB",
        ".R.R.",
        "...R.",
    ]


def test_ties_before_the_first_win_mark_the_first_cell_and_pairs_their_cell() -> None:
    coups = [
        Coup("tie"),
        Coup("tie", banker_pair=True),
        Coup("player", player_pair=True),
        Coup("tie"),
        Coup("banker", banker_pair=True),
    ]
    road = big_road(coups)
    assert road.text(".") == ["PB"]
    first, second = road.cells[(0, 0)], road.cells[(1, 0)]
    assert (first.ties, first.player_pair, first.banker_pair) == (3, True, False)
    assert (second.ties, second.player_pair, second.banker_pair) == (0, False, True)
    plate = bead_plate(coups)
    assert plate.text(".") == ["T", "T", "P", "T", "B"]
    assert plate.cells[(0, 1)].banker_pair


def test_a_tail_blocked_below_turns_right_early() -> None:
    """A second long streak runs into the first one's tail and turns right above it."""
    coups = [Coup(WINNERS[letter]) for letter in "B" * 8 + "P" * 7]
    assert big_road(coups).text(".") == [
        "BP..",
        "BP..",
        "BP..",
        "BP..",
        "BPPP",
        "BBB.",
    ]


def test_the_scoreboard_reads_coup_results() -> None:
    result = CoupResult(
        table="t",
        seq=1,
        at=0.0,
        deal=1,
        coup=1,
        hands={},
        totals={},
        winner="banker",
        winners={"player": "banker"},
        naturals=(),
        pairs=("player",),
    )
    board = Scoreboard.of(coups_of([result, result]))
    assert board.big_road.text() == ["B", "B"]
    assert board.big_road.cells[(0, 0)].player_pair
    assert board.big_eye_boy.cells == {}


def test_at_banque_the_scoreboard_marks_the_right_hands_pair_beside_its_result() -> None:
    """Banque's result is its right hand's against the banker: a pair in the right hand is
    the pair marked with it, as the player's is at Punto Banco."""
    table = open_chemin_de_fer(game="banque", bank=200)
    table.bet("ana", "right", 20)
    table.lock()
    # Right 4H 4S (a pair, 8: a natural), left 3C 2S stands on 5, banker 2D 5C stands on 7.
    events = deal(table, "4H 3C 2D 4S 2S 5C stand stand")
    results = [event for event in events if isinstance(event, CoupResult)]
    assert results and results[0].pairs == ("right",)
    assert Coup.from_result(results[0]).player_pair


def test_the_scoreboards_follow_the_shoe_in_play_and_start_afresh_with_a_new_one() -> None:
    def result(coup: int) -> CoupResult:
        return CoupResult(
            table="t", seq=coup, at=0.0, deal=coup, coup=coup, hands={}, totals={},
            winner="player", winners={}, naturals=(), pairs=(),
        )  # fmt: skip

    new_shoe = ShoeStarted(
        table="t", seq=9, at=0.0, deal=2, shoe=2, decks=8, cards=416, cut_at=400, burn="one"
    )
    results: list[CoupResult] = []
    follow_shoe(results, [result(1), result(2)])
    follow_shoe(results, [result(3)])
    assert [r.coup for r in results] == [1, 2, 3]
    follow_shoe(results, [result(4), new_shoe, result(5)])
    assert [r.coup for r in results] == [5]
    # A continuous shuffler's shoe never ends: the boards show its newest coups only.
    for coup in range(6, 1001):
        follow_shoe(results, [result(coup)])
    assert [r.coup for r in results] == list(range(1001 - COUPS_SHOWN, 1001))


def test_a_coups_last_card_voided_or_corrected_takes_its_result_off_the_scoreboards() -> None:
    """The boards a running table draws follow its events as they come: the coup a
    corrected card ended shows once, with the corrected result; a voided one not at all."""
    table = open_punto_banco()
    results: list[CoupResult] = []
    # Player 2 + 4 = 6; banker 3 + 5 = 8, a natural.
    follow_shoe(results, table.lock() + deal(table, "2H 3H 4H 5H"))
    assert [(r.coup, r.winner) for r in results] == [(1, "banker")]
    follow_shoe(results, table.correct("3D"))  # banker 6 against 6: a tie
    assert [(r.coup, r.winner, r.totals["banker"]) for r in results] == [(1, "tie", 6)]
    follow_shoe(results, table.void_card())  # the banker's second card is still to come
    assert results == []
    follow_shoe(results, deal(table, "2C KC"))  # banker 5 draws a ten: 5 against 6
    assert [(r.coup, r.winner) for r in results] == [(1, "player")]
    assert Scoreboard.of(coups_of(results)).bead_plate.text() == ["P"]
    # A card voided in the next coup leaves the coup before it on the boards.
    follow_shoe(results, table.lock() + deal(table, "2S") + table.void_card())
    assert [r.coup for r in results] == [1]
