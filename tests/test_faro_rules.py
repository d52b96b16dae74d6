from __future__ import annotations

import pytest

from table.errors import IllegalCommandError, RulesError
from table.faro import FaroTable
from table.faro.rules import RULE_SETS, find_rules


def test_the_named_rule_sets_of_the_issue_exist() -> None:
    for name in ("classic", "home", "home-full-loss", "stuss", "monte-bank", "saratoga", "dutch"):
        assert find_rules(name).name == name
    assert set(RULE_SETS) >= {
        "classic",
        "home",
        "home-full-loss",
        "stuss",
        "monte-bank",
        "saratoga",
        "dutch",
    }


def test_design_md_defaults_for_the_classic_game() -> None:
    rules = find_rules("classic")
    assert rules.split == "half"
    assert rules.between_two == "stands"
    assert (rules.call_pays, rules.cat_hop_pays) == (4, 2)
    assert rules.three_of_a_kind == "colour"
    assert rules.high_card == "standing"


def test_options_override_single_rules_and_are_read_from_text() -> None:
    rules = find_rules(
        "classic", {"cat_hop_pays": "1", "betting_marks": "yes", "between_two": "independent"}
    )
    assert rules.cat_hop_pays == 1 and rules.betting_marks and rules.between_two == "independent"
    assert find_rules("stuss").split == "all"
    assert find_rules("home-full-loss").split == "all" and find_rules("home").split == "half"


@pytest.mark.parametrize(
    ("name", "options", "message"),
    [
        ("baccarat", {}, "unknown Faro rule set 'baccarat'"),
        ("classic", {"cat_hop": "1"}, "unknown Faro option 'cat_hop'"),
        ("classic", {"split": "quarter"}, "split='quarter': expected one of half, all"),
        ("classic", {"min_bet": "x"}, "min_bet='x': expected a whole number"),
        ("classic", {"min_bet": "1_0"}, "min_bet='1_0': expected a whole number"),
        ("classic", {"cat_hop_pays": "٣"}, "cat_hop_pays='٣': expected a whole number"),
        ("classic", {"max_bet": "+20"}, r"max_bet='\+20': expected a whole number"),
        ("classic", {"betting_marks": "perhaps"}, "expected true or false"),
        ("classic", {"min_bet": "5", "max_bet": "2"}, "below min_bet"),
        ("classic", {"deck": "tarot"}, "unknown deck"),
    ],
)
def test_bad_rules_are_refused_with_the_option_and_what_was_expected(
    name: str, options: dict[str, str], message: str
) -> None:
    with pytest.raises(RulesError, match=message):
        find_rules(name, options)


def test_a_rule_set_given_whole_keeps_its_options_and_replays_alike() -> None:
    """A table opened with a rule set made with options (000's Stuss split, a cat-hop
    paying 1 to 1) plays by them, and its opening event folds back to the same rules."""
    rules = find_rules("classic", {"split": "all", "cat_hop_pays": "1"})
    table = FaroTable("t", rules)
    assert table.state.rules == rules
    assert FaroTable.replay(table.opening, "t").state.rules == rules


def test_001_a_home_table_seats_one_banker_and_up_to_nine_players() -> None:
    """001, Overview: "Players: 2-10 - one banker and up to 9 players"; 003 too seats up
    to 10. The eleventh is refused, naming the option; a casino table (000: "any number")
    seats more."""
    for name in ("home", "home-full-loss", "casino-003"):
        table = FaroTable("t", name)
        for number in range(10):
            table.seat(f"p{number}", 50)
        with pytest.raises(IllegalCommandError, match=r"seat 10 at most.*max_seats"):
            table.seat("p10", 50)
        assert len(table.state.seats) == 10, name
    classic = FaroTable("t", "classic")
    for number in range(12):
        classic.seat(f"p{number}", 50)
    assert len(classic.state.seats) == 12
    # Nor do home rules come to a table where more sit: nothing changes.
    with pytest.raises(RulesError, match="12 seated, more than 10"):
        classic.choose_rules("home")
    assert classic.state.rules.name == "classic"
