from __future__ import annotations

import pytest

from table.errors import RulesError
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
