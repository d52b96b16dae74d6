"""The table as text: a name never parts from its chips at a line's end, and counts agree
with their nouns, in the terminal demo and the exhibit's sentences."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest

from display.baccarat_terminal import render_baccarat
from display.narration import Narrator
from display.terminal import describe, render_table
from display.text import count, wrap
from table.cards import Card
from table.events import DealFinished, ReaderNoticeKind
from table.service.demo import run_demo


def test_a_line_breaks_between_names_never_between_a_name_and_its_chips() -> None:
    text = "Deal over: 1 split; bank 1985; anna 94, ben 104, carla 106, dmitri 107, elena 96"
    for width in range(20, 80):
        lines = wrap(text, width)
        assert " ".join(lines) == text
        assert all(len(line) <= width for line in lines)
        for line in lines[1:]:
            assert not line[0].isdigit(), (width, lines)


def test_every_demo_line_keeps_each_punter_with_their_chips() -> None:
    for seed in range(12):
        out = io.StringIO()
        result = run_demo(seed=seed, out=out, colour=False)
        names = "|".join(result.table.state.seats)
        parted = re.findall(rf"\b(?:{names}|bank)\n\s*\d", out.getvalue())
        assert parted == [], seed
        assert max(len(line) for line in out.getvalue().splitlines()) <= 80


def deal_over(splits: int) -> DealFinished:
    return DealFinished(
        table="t", seq=9, at=0.0, deal=1, hoc=Card.parse("8H"), splits=splits, bank=1985,
        bankrolls={"anna": 94},
    )  # fmt: skip


@pytest.mark.parametrize(
    ("language", "one", "three"),
    [
        ("en", "The deck is done: 1 split;", "The deck is done: 3 splits;"),
        ("es", "Mazo terminado: 1 split;", "Mazo terminado: 3 splits;"),
        ("ru", "Колода сдана: плие 1;", "Колода сдана: плие 3;"),
    ],
)
def test_the_end_of_a_deal_counts_its_splits_in_words(language: str, one: str, three: str) -> None:
    assert one in " ".join(Narrator(language).explain([deal_over(1)]))
    assert three in " ".join(Narrator(language).explain([deal_over(3)]))


def test_the_terminal_line_for_the_end_of_a_deal_agrees_with_its_count() -> None:
    assert "hoc 8♥, 1 split;" in (describe(deal_over(1)) or "")
    assert "hoc 8♥, 0 splits;" in (describe(deal_over(0)) or "")
    assert [count(n, "coup") for n in (0, 1, 2)] == ["0 coups", "1 coup", "2 coups"]


def test_a_home_deal_ends_saying_who_takes_the_bank_and_counts_each_player_once() -> None:
    """001: the bank passes to the left after each deal; it is its holder's own chips."""
    out = io.StringIO()
    result = run_demo(seed=5, rules="home", out=out, colour=False)
    summary = " ".join(out.getvalue().split("Deal over:")[-1].split())
    state = result.table.state
    assert f"the bank passes to {state.banker};" in summary
    for name in state.seats:
        assert summary.count(f"{name} {state.bankrolls[name]}") == 1
    assert f"chips on the table {state.total_chips()}" in summary


def test_a_bet_line_says_when_it_is_in_marks_or_carries_a_standing_instruction() -> None:
    from tests.conftest import open_table

    table = open_table("saratoga")
    said = [describe(event) for event in table.bet("dan", "9", 2, instruction="paroli 3")]
    assert said == ["dan bets 2 on 9 (paroli 3)"]
    marks = open_table("casino-003")
    marks.bet("dan", "4", 5)
    assert [describe(event) for event in marks.bet("dan", "K", 5, mark=True)] == [
        "dan bets 5 in marks on K"
    ]


def test_a_withdrawal_line_says_whether_marks_or_chips_came_back_and_how_many() -> None:
    """003: a punter's marks and chips may lie on one spot (``withdraw dan 9 mark``, ``...
    chips``); the line for each withdrawal says which it took back, as the line for the bet
    said which it put down, and so does the journal's record of it (``history``)."""
    from table.events import event_from_json, event_to_json
    from table.language import parse_line
    from tests.conftest import open_table

    table = open_table("casino-003", {"dan": 20})
    for line in ("bet dan 9 5", "bet dan 4 5", "bet dan 9 5 mark", "bet dan K 2 copper"):
        table.apply(parse_line(line))

    def said(line: str) -> list[str | None]:
        events = table.apply(parse_line(line))
        return [describe(event_from_json(event_to_json(event))) for event in events]

    assert said("withdraw dan 9 mark 2") == ["dan takes 2 in marks back from 9; 3 stays"]
    assert said("withdraw dan 9 chips 1") == ["dan takes 1 chip back from 9; 4 stays"]
    assert said("withdraw dan K") == ["dan takes 2 coppered chips back from K"]
    assert said("withdraw dan 9") == [
        "dan takes 4 chips back from 9",
        "dan takes 3 in marks back from 9",
    ]


@pytest.mark.parametrize(
    ("rules", "shown"),
    [("saratoga", ("(paroli 3)", "(martingale 16)")), ("casino-003", ("in marks",))],
)
def test_the_demo_shows_what_a_rule_set_adds_and_its_punters_keep_its_rules(
    rules: str, shown: tuple[str, ...]
) -> None:
    """Saratoga's progressions (000) and 003's betting marks appear in the demo, and the
    punters bet within the house's rules (003: no bets on cases alone)."""
    for seed in range(4):
        out = io.StringIO()
        result = run_demo(seed=seed, rules=rules, out=out, colour=False)
        assert result.refusals == [], (seed, result.refusals[:3])
        for words in shown:
            assert words in out.getvalue(), (seed, words)


def test_a_home_session_shows_who_has_banked_and_at_its_end_who_won() -> None:
    """001, Winning the game: play until everyone has been banker equally often; whoever
    has the most chips wins."""
    from display.terminal import render_table
    from tests.conftest import deal_rest, open_table

    table = open_table("home", {"anna": 100, "ben": 100}, soda=None, winning_bets_stay="no")
    for bettor, spot in (("ben", "K"), ("anna", "9")):
        table.deal(Card.parse("2C"))
        table.bet(bettor, spot, 5)
        assert "session: banks held anna " in render_table(table.state)
        deal_rest(table, "KH 9S")
        if bettor == "ben":
            table.new_deck()
    shown = " ".join(render_table(table.state).split())
    assert "session over: everyone has held the bank 1 time; anna wins with 110 (ben 90)" in shown


def test_a_reader_lost_stays_on_the_dealers_screen_until_it_is_back() -> None:
    """The dealer at the console deals by hand while a reader is lost: the screen says so
    with every card, not only with the notice."""
    from table.baccarat import BaccaratTable
    from tests.conftest import deal, open_table

    table = open_table()
    table.reader_notice("camera", ReaderNoticeKind.READER_LOST, "the lamp is out")
    deal(table, "5S")
    assert "READER LOST (camera): the lamp is out" in render_table(table.state)
    table.reader_notice("camera", ReaderNoticeKind.READER_BACK, "it reads again")
    assert "READER LOST" not in render_table(table.state)
    baccarat = BaccaratTable("t1", "punto-banco", "standard")
    baccarat.reader_notice("barcode", ReaderNoticeKind.READER_LOST, "unplugged")
    assert "READER LOST (barcode): unplugged" in render_baccarat(baccarat.state, [])


def test_a_chemin_de_fer_screen_says_plainly_who_holds_the_bank() -> None:
    from table.baccarat import BaccaratTable

    table = BaccaratTable("t1", "chemin-de-fer", options={"burn": "none"})
    for name in ("bea", "ana", "ben"):
        table.seat(name, 100)

    def rolls() -> str:
        return render_baccarat(table.state, []).splitlines()[2]

    assert rolls() == "  no banker yet · bea 100 · ana 100 · ben 100"
    table.new_shoe()
    assert rolls().startswith("  bank (bea) not announced · ")
    table.announce_bank(50)
    assert rolls().startswith("  bank (bea) 50 · ")


def test_the_dealers_screen_says_the_journal_cannot_write_until_it_can(tmp_path: Path) -> None:
    """The table waits on a full disk without a word in the table's own events (none can be
    written): the screen is drawn again to say why, and again once the journal writes."""
    from table.service.config import Config, TableConfig
    from table.service.journal import Journal, JournalError
    from table.service.run import TerminalDisplay
    from table.service.table_service import TableService
    from tests.test_service_readers import FullDisk

    screen = io.StringIO()
    with Journal(tmp_path / "j.sqlite", "t") as journal:
        service = TableService(Config(table=TableConfig(id="t")), journal)
        TerminalDisplay(screen, service).attach()
        disk = FullDisk(journal._db)
        journal._db = disk
        with pytest.raises(JournalError):
            service.execute_line("shuffle")
        last_frame = screen.getvalue().split("-" * 78)[-2]
        assert "JOURNAL CANNOT WRITE: journal" in last_frame
        assert "database or disk is full" in last_frame
        disk.full = False
        service.execute_line("shuffle")
        frames = screen.getvalue().split("-" * 78)
        assert "JOURNAL CANNOT WRITE" not in frames[-2]
        # One frame says the trouble is gone, with the line of what cleared it.
        assert "a new standard-52 deck" in frames[-2]
        assert "JOURNAL CANNOT WRITE" in frames[-3]
        # Freed while nothing waits to be written: the service tries the journal itself.
        journal._db = disk
        disk.full = True
        with pytest.raises(JournalError):
            service.execute_line("punter anna 100")
        disk.full = False
        service.try_the_journal(1000.0)
        assert "JOURNAL CANNOT WRITE" not in screen.getvalue().split("-" * 78)[-2]
        assert service.journal_trouble == ""


def test_the_status_line_says_bets_are_locked_once_the_dealer_locks_them() -> None:
    """000, El turno 5: bets are locked once the dealer reaches for the box; the screen
    no longer says they are open, at the first turn or any later one."""
    from tests.conftest import deal, open_table

    table = open_table()
    table.lock()
    head = render_table(table.state).splitlines()[0]
    assert "bets locked for turn 1" in head and "bets open" not in head
    deal(table, "5H 6H")
    table.lock()
    assert "bets locked for turn 2" in render_table(table.state).splitlines()[0]


@pytest.mark.parametrize(
    ("rules", "last_three", "calls_open"),
    [
        ("classic", "3H 7D JS", True),
        ("classic", "6H 6D 6S", True),  # 003: a colour-order cat-hop
        ("home", "6H 6D 6S", False),  # 001: three of a kind: no calling
        ("dutch", "3H 7D JS", False),  # 000: red or black only, no call
    ],
)
def test_the_status_line_says_calls_are_open_only_where_the_turn_can_be_called(
    rules: str, last_three: str, calls_open: bool
) -> None:
    from tests.conftest import cards, open_table

    punters = {"host": 300, "dan": 100} if rules == "home" else None
    table = open_table(rules, punters)
    keep = set(cards(last_three))
    for card in table.state.casekeep.remaining_cards():
        if card not in keep:
            table.deal(card)
    head = render_table(table.state).splitlines()[0]
    assert "last turn next" in head
    assert ("calls open" in head) is calls_open


def test_the_demo_caller_makes_no_call_the_house_refuses() -> None:
    """001: no calling on three of a kind; the demo's caller then plays on as usual
    rather than show a refused call."""
    import random

    from table.faro.punters import SimulatedPunter
    from tests.conftest import cards, open_table

    table = open_table("home", {"host": 300, "elena": 100})
    keep = set(cards("6H 6D 6S"))
    for card in table.state.casekeep.remaining_cards():
        if card not in keep:
            table.deal(card)
    caller = SimulatedPunter("elena", "caller", 100, 2)
    for command in caller.propose(table.state, random.Random(1)):
        table.apply(command)


def test_the_layout_tells_betting_marks_from_chips() -> None:
    """003, ставочные марки: a mark is credit, matched by chips elsewhere; the layout drawn
    for the dealer must not show it as chips."""
    from tests.conftest import open_table

    table = open_table("casino-003")
    table.bet("dan", "4", 5)
    table.bet("dan", "2+3", 2)
    table.bet("dan", "K", 5, mark=True)
    table.bet("dan", "9+10", 2, mark=True)
    layout = render_table(table.state)
    lines = layout.splitlines()
    under_top_row = lines[lines.index(next(line for line in lines if "A♠" in line)) + 1]
    under_bottom_row = lines[lines.index(next(line for line in lines if "K♠" in line)) + 1]
    assert under_top_row.split() == ["d5"]  # chips on the 4
    assert under_bottom_row.split() == ["d5m"]  # marks on the king
    shown = " ".join(layout.split())
    assert "dan 2 on 2+3; dan 2 in marks on 9+10" in shown


def test_with_no_deck_in_the_box_the_screen_counts_no_cards_in_it_and_no_cases() -> None:
    """Before the first deck, and after a deal is voided, the box is empty: the screen said
    '52 in the box' (or the voided deal's count) and marked its ranks as cases."""
    from table.faro import FaroTable
    from tests.conftest import deal, open_table

    before_any_deck = render_table(FaroTable("t1").state).splitlines()[0]
    assert "no deck in the box" in before_any_deck
    assert not re.search(r"\d in the box", before_any_deck)
    table = open_table()
    deal(table, "5H 5D 5S 9C")
    assert "5♠ case" in render_table(table.state)
    table.void_deal()
    screen = render_table(table.state)
    assert "no deck in the box" in screen.splitlines()[0]
    assert not re.search(r"\d in the box", screen.splitlines()[0])
    assert "♠ case" not in screen and "♠ dead" not in screen


@pytest.mark.parametrize("game", ["punto-banco", "chemin-de-fer", "banque", "macao"])
def test_each_baccarat_demo_frame_tells_every_bet_its_coup_settled_and_who_banked(
    game: str,
) -> None:
    """A frame keeps to a few lines under the roads, yet never leaves out a settled bet, who
    holds the bank or to whom it passed: what it leaves out is a bet placed, which its
    settlement repeats."""
    from display.baccarat_terminal import describe as describe_baccarat
    from table.events import BankAnnounced, BankPassed, BetSettled, CoupFinished
    from table.service.baccarat_demo import run_baccarat_demo

    out = io.StringIO()
    demo = run_baccarat_demo(game=game, seed=3, out=out, colour=False)
    frames = [" ".join(frame.split()) for frame in out.getvalue().split("-" * 78)]
    # What must be told, in either words, and in which frames: a bank that passes just as a
    # coup ends is told with that coup or as the next bank is announced.
    told: list[tuple[tuple[int, ...], tuple[str, ...]]] = []
    coup = 0
    for before, event in zip([None, *demo.events], demo.events, strict=False):
        if isinstance(event, BetSettled):
            told.append(((coup,), (str(describe_baccarat(event)),)))
        elif isinstance(event, BankAnnounced):
            told.append(((coup,), (f"{event.banker} holds the bank: {event.amount}",)))
        elif isinstance(event, BankPassed):
            passed = f"the bank passes from {event.from_banker} to {event.to_banker}"
            cannot = f"{event.from_banker} cannot hold the bank; it passes to {event.to_banker}"
            frames_told = (coup - 1, coup) if isinstance(before, CoupFinished) else (coup,)
            told.append((frames_told, (passed, cannot)))
        elif isinstance(event, CoupFinished):
            coup += 1
    assert len(frames) == coup + 1 > 20  # a frame after each coup, and the summary
    untold = [
        (where, words)
        for where, words in told
        if not any(said in frames[frame] for frame in where for said in words)
    ]
    assert untold == []
