from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from table.cards import Card
from table.errors import LanguageError, TableError
from table.games import Replay, replay_lines
from table.language import (
    BetCmd,
    CallCmd,
    CardCmd,
    CorrectCmd,
    GameCmd,
    RulesCmd,
    ShuffleCmd,
    VoidCmd,
    WithdrawCmd,
    parse_line,
    parse_script,
    usage,
)


def test_every_line_of_design_md_parses() -> None:
    assert parse_line("# comment") is None
    assert parse_line("   ") is None
    assert parse_line("game faro") == GameCmd("faro")
    assert parse_line("rules classic cat_hop_pays=1") == RulesCmd("classic", {"cat_hop_pays": "1"})
    assert parse_line("bet dan 9 4") == BetCmd("dan", "9", 4)
    assert parse_line("bet anna K 2 copper") == BetCmd("anna", "K", 2, copper=True)
    assert parse_line("bet eve 4+5+9+10 3") == BetCmd("eve", "4+5+9+10", 3)
    assert parse_line("bet joe high 5") == BetCmd("joe", "high", 5)
    assert parse_line("withdraw dan 9") == WithdrawCmd("dan", "9")
    assert parse_line("call ben 7 J 3 2") == CallCmd("ben", ("7", "J", "3"), 2)
    assert parse_line("card 5S  # the soda") == CardCmd(Card.parse("5S"))
    assert parse_line("card 10♥") == CardCmd(Card.parse("10H"))
    assert parse_line("void") == VoidCmd()
    assert parse_line("void deal") == VoidCmd(deal=True)
    assert parse_line("correct QH") == CorrectCmd(Card.parse("QH"))
    assert parse_line("new deck") == ShuffleCmd()
    assert parse_line("New Shoe") == ShuffleCmd()
    assert parse_line("bet ann 5 2 paroli 3") == BetCmd("ann", "5", 2, instruction="paroli 3")


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("card 11H", "not a card"),
        ("bet dan 9", "expected: bet PUNTER SPOT AMOUNT"),
        ("bet dan 9 four", "must be a whole number"),
        ("dance dan", "unknown line 'dance'"),
        ("game poker", "unknown game 'poker'"),
        ("rules classic cat_hop_pays", "expected option=value"),
        ("void everything", "expected: void"),
        ("shuffle 2", "expected: shuffle"),
        ("newdeck now", "expected: shuffle"),
        ("new deck please", "expected: shuffle"),
        ("new punter", "expected: shuffle"),
        ("punter d@n 100", "use letters"),
    ],
)
def test_unreadable_lines_name_the_line_and_what_was_expected(line: str, message: str) -> None:
    with pytest.raises(LanguageError, match=message) as refused:
        parse_line(line, 7)
    assert str(refused.value).startswith("line 7: ")
    assert refused.value.line_number == 7


@pytest.mark.parametrize(
    ("line", "what"),
    [
        ("bet dan 9 1_0", "the bet must be a whole number of chips, not '1_0'"),
        ("bet dan 9 ٣", "the bet must be a whole number of chips, not '٣'"),
        ("bet dan 9 +5", "the bet must be a whole number of chips, not '+5'"),
        ("bank ١٠٠٠", "the bank's bankroll must be a whole number of chips, not '١٠٠٠'"),
        ("punter anna ５０", "the bankroll must be a whole number of chips, not '５０'"),
        ("call ben 7 J 3 2_0", "the call must be a whole number of chips, not '2_0'"),
        ("withdraw dan 9 ٣", "the amount to withdraw must be a whole number of chips, not '٣'"),
        ("bet ann 5 2 paroli ٣", "paroli needs a whole number, not '٣'"),
        ("bet ann 5 2 martingale 1_0", "martingale needs a whole number, not '1_0'"),
        ("bet ann 5 " + "9" * 5000, "the bet: 5000 digits, more than the table counts"),
    ],
)
def test_a_number_is_written_in_plain_digits(line: str, what: str) -> None:
    """A console or a written record takes a number written in ASCII digits only: a digit
    of another script, a digit group's underscore or a plus sign is refused, never read as
    the number Python would make of it."""
    with pytest.raises(LanguageError) as refused:
        parse_line(line, 3)
    assert str(refused.value).startswith(f"line 3: {what}")
    assert parse_line("bet dan 9 -5") == BetCmd("dan", "9", -5)  # the table says why not


@pytest.mark.parametrize(
    ("line", "message"),
    [
        (
            "bet ann 5 2 paroli 2 martingale 8",
            "one standing instruction a bet: 'paroli 2' and 'martingale 8' were both said",
        ),
        (
            "bet ann 5 2 martingale 8 paroli 3",
            "one standing instruction a bet: 'martingale 8' and 'paroli 3' were both said",
        ),
        ("bet ann 5 2 paroli", "paroli needs a whole number: paroli N"),
        ("bet ann 5 2 martingale", "martingale needs a whole number: martingale CAP"),
    ],
)
def test_000_saratoga_a_bet_line_gives_one_progression_and_its_number(
    line: str, message: str
) -> None:
    """000, Faro de Saratoga: paroli and martingale are two progressions, and a stack
    follows one (README: 'bet ann 5 2 paroli 3'). A line that says two is refused, rather
    than carried out with the first silently dropped, and one without its number says
    what it lacks."""
    with pytest.raises(LanguageError) as refused:
        parse_line(line, 4)
    assert str(refused.value).startswith(f"line 4: {message}")


def test_a_call_is_withdrawn_by_naming_its_cards_as_it_was_called() -> None:
    assert parse_line("withdraw ann call") == WithdrawCmd("ann", "call")
    assert parse_line("withdraw ann call 2") == WithdrawCmd("ann", "call", 2)
    assert parse_line("withdraw ann call 7 J 3") == WithdrawCmd(
        "ann", "call", order=("7", "J", "3")
    )
    assert parse_line("withdraw ann call red black red 2") == WithdrawCmd(
        "ann", "call", 2, order=("red", "black", "red")
    )
    assert parse_line("withdraw dan 9 2 copper") == WithdrawCmd("dan", "9", 2, True)
    for line in ("withdraw ann call 7 J", "withdraw dan 9 7 J 3"):
        with pytest.raises(LanguageError, match="withdraw PUNTER call"):
            parse_line(line)


def test_parse_script_numbers_lines_from_one() -> None:
    commands = list(parse_script(["# header", "game faro", "", "card QH"]))
    assert [c.line_number for c in commands] == [2, 4]


def test_a_replay_collects_refused_lines_and_goes_on() -> None:
    replay = replay_lines(
        [
            "bank 100",
            "punter dan 10",
            "shuffle",
            "card 2C",
            "bet dan 9 50",  # over the bankroll
            "bet dan 9 5",
            "card 9H",
            "card KH",
        ]
    )
    assert [(e.line_number, "only 10 chips" in e.message) for e in replay.errors] == [(5, True)]
    assert replay.game is not None
    assert replay.game.state.bankrolls == {"dan": 5}  # type: ignore[attr-defined]


def test_the_baccarat_lines_parse() -> None:
    from table.language import BancoCmd, CutCmd, PassBankCmd, StandCmd

    assert parse_line("game chemin-de-fer") == GameCmd("chemin-de-fer")
    assert parse_line("game punto-banco") == GameCmd("punto-banco")
    assert parse_line("bet ana banker 20") == BetCmd("ana", "banker", 20)
    assert parse_line("banco ben") == BancoCmd("ben")
    assert parse_line("pass") == PassBankCmd()
    assert parse_line("cut") == CutCmd()
    assert parse_line("stand") == StandCmd()
    with pytest.raises(LanguageError, match="expected: banco PUNTER"):
        parse_line("banco")


@pytest.mark.parametrize(
    "line",
    ["ban\u212a 100", "bet anna \u212a 5", "bank 100", "bet anna K 5"],
)
def test_a_word_whose_case_maps_to_a_word_of_the_language_is_not_that_word(line: str) -> None:
    """The Kelvin sign (U+212A) lowers to an ASCII 'k' in Python: 'ban' and the sign is no
    'bank', nor the sign alone the king's spot. Only ASCII letters are read in either case."""
    record = ["game faro", "bank 100", "punter anna 50", "shuffle", "card 5S", line]
    replay = replay_lines(record)
    if line.isascii():
        assert replay.errors == []
        return
    [refused] = replay.errors
    assert refused.line_number == 6
    assert [event.type_name for event in replay.events][-1] == "card_dealt"


_WORDS_AND_NEAR_MISSES = [
    *usage().replace("|", " ").replace("[", " ").replace("]", " ").split(),
    *["new", "deck", "shoe", "newdeck", "copper", "plain", "mark", "call", "deal", "J>K"],
    *["QH", "10h", "Q\u2665", "TH", "1OH", "QHH", "0H", "11H", "1e9", "-0", "00", "+5", "1_0"],
    *["\u0663", "\uff15", "9" * 5000, "#", "=", "a=b", "\ufeff", "\u00a0", "\r", "\t"],
    *["\u2028", "\x85", "\x00", "\u212a", "\u017f", "anna", "K", "9", "high"],
]
_LINES = st.one_of(
    st.text(max_size=30),
    st.lists(st.sampled_from(_WORDS_AND_NEAR_MISSES) | st.text(max_size=4), max_size=7).map(
        " ".join
    ),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_LINES, min_size=1, max_size=6))
def test_any_line_is_a_command_or_a_refusal_that_changes_nothing(lines: list[str]) -> None:
    record = ["game faro", "bank 100", "punter anna 50", "shuffle", "card 5S", *lines]
    replay = Replay()
    for number, line in enumerate(record, start=1):
        events = list(replay.events)
        try:
            replay.run_line(line, number)
        except TableError:
            assert replay.events == events
            assert replay.errors[-1].line_number == number
