"""Faro rule sets: named bundles of house rules, each overridable option by option.

Defaults follow DESIGN.md where the seeds disagree; every other choice is an option::

    >>> find_rules("classic").with_options({"cat_hop_pays": "1"}).cat_hop_pays
    1
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from table.cards import DECKS, DeckSpec, find_deck
from table.errors import RulesError
from table.options import option_text, option_value
from table.text import ascii_lower

_DECK_SPECS = {name: find_deck(name) for name in DECKS}

SPLIT_TAKES = ("half", "all")
BETWEEN_TWO_RULES = ("stands", "independent", "plie")
THREE_OF_A_KIND_CALLS = ("colour", "none")
HIGH_CARD_RULES = ("standing", "next-turn")


@dataclass(frozen=True)
class FaroRules:
    """One Faro house: which deck, how splits and calls pay, which bets are offered.

    ``split``: what the bank takes from a bet caught by a split (plie): ``half`` (casino,
    000/001/003) or ``all`` (home Faro of 000, Stuss). An odd chip goes to the bank.
    ``between_two``: a bet on two ranks whose one rank loses and the other wins in the same
    turn: ``stands`` (001: nothing happens), ``independent`` (000: each rank acts on its
    own, the win and the loss cancel and the bet is settled) or ``plie`` (003's group rule).
    Bets on three or four ranks always make a plie when two of their ranks come in a turn.
    """

    name: str = "classic"
    deck: str = "standard-52"
    split: str = "half"
    between_two: str = "stands"
    call_pays: int = 4
    cat_hop_pays: int = 2
    three_of_a_kind: str = "colour"
    high_card: str = "standing"
    winning_bets_stay: bool = False
    betting_marks: bool = False
    no_bets_on_cases: bool = False
    bank_passes: bool = False
    progressions: bool = False
    rank_bets: bool = True
    colour_bets: bool = False
    min_bet: int = 1
    max_bet: int = 0  # 0: no table maximum
    max_seats: int = 0  # punters seated at most, a home banker among them; 0: no limit

    def __post_init__(self) -> None:
        self._check_choice("split", SPLIT_TAKES)
        self._check_choice("between_two", BETWEEN_TWO_RULES)
        self._check_choice("three_of_a_kind", THREE_OF_A_KIND_CALLS)
        self._check_choice("high_card", HIGH_CARD_RULES)
        if self.deck not in DECKS:
            raise RulesError(f"option deck={self.deck!r}: unknown deck (known: {', '.join(DECKS)})")
        if self.call_pays < 1 or self.cat_hop_pays < 1:
            raise RulesError("call_pays and cat_hop_pays must be at least 1 (to 1)")
        if self.min_bet < 1:
            raise RulesError(f"min_bet must be at least 1, not {self.min_bet}")
        if self.max_seats < 0:
            raise RulesError(f"max_seats must be 0 (no limit) or more, not {self.max_seats}")
        if self.max_bet and self.max_bet < self.min_bet:
            raise RulesError(f"max_bet {self.max_bet} is below min_bet {self.min_bet}")
        if not self.rank_bets and not self.colour_bets:
            raise RulesError("a table must offer rank bets or colour bets")

    def _check_choice(self, option: str, choices: tuple[str, ...]) -> None:
        value = getattr(self, option)
        if value not in choices:
            raise RulesError(f"option {option}={value!r}: expected one of {', '.join(choices)}")

    @property
    def deck_spec(self) -> DeckSpec:
        return _DECK_SPECS[self.deck]

    def with_options(self, options: Mapping[str, str | int | bool]) -> FaroRules:
        """A copy with options overridden; values may be text as written in the table language."""
        if not options:
            return self
        known = {item.name: item for item in dataclasses.fields(self) if item.name != "name"}
        changes: dict[str, Any] = {}
        for key, raw in options.items():
            item = known.get(key)
            if item is None:
                raise RulesError(f"unknown Faro option {key!r} (known: {', '.join(sorted(known))})")
            changes[key] = option_value(key, item.type, raw)
        return dataclasses.replace(self, **changes)

    def describe(self) -> dict[str, str]:
        """Every option and its value as text, as written in the table language."""
        return {
            item.name: option_text(getattr(self, item.name))
            for item in dataclasses.fields(self)
            if item.name != "name"
        }


RULE_SETS: dict[str, FaroRules] = {
    # 000, 003: the casino game; DESIGN.md's defaults.
    "classic": FaroRules(),
    # 001: a home game; the bank passes to the left after each deal, winning bets stay
    # unless picked up, no call on three of a kind, high card is a one-turn bet.
    "home": FaroRules(
        name="home",
        bank_passes=True,
        winning_bets_stay=True,
        three_of_a_kind="none",
        high_card="next-turn",
        max_bet=10,
        max_seats=10,  # 001: one banker and up to 9 players
    ),
    # 000's home Faro: as home, but a split loses the whole bet, coppered or not.
    "home-full-loss": FaroRules(
        name="home-full-loss",
        bank_passes=True,
        winning_bets_stay=True,
        three_of_a_kind="none",
        high_card="next-turn",
        max_bet=10,
        max_seats=10,
        split="all",
    ),
    # 000: Stuss, dealt by hand, the bank takes the whole of a split.
    "stuss": FaroRules(name="stuss", split="all"),
    # 000: Mexican Faro / Monte Bank on a 40-card Spanish-style deck (no 8, 9, 10).
    "monte-bank": FaroRules(name="monte-bank", deck="monte-bank-40"),
    # 000: Saratoga Faro adds paroli and martingale progressions as standing instructions.
    "saratoga": FaroRules(name="saratoga", progressions=True),
    # 000: Dutch Faro / Rouge et Noir: a bet on the colour of each turn instead of ranks.
    "dutch": FaroRules(name="dutch", rank_bets=False, colour_bets=True),
    # 003's casino procedure with its house options: betting marks, no bets on cases.
    "casino-003": FaroRules(
        name="casino-003",
        between_two="plie",
        betting_marks=True,
        no_bets_on_cases=True,
        max_seats=10,
    ),
}


def find_rules(name: str, options: Mapping[str, str | int | bool] | None = None) -> FaroRules:
    """The named rule set, with ``options`` overriding single rules."""
    rules = RULE_SETS.get(ascii_lower(name.strip()))
    if rules is None:
        raise RulesError(f"unknown Faro rule set {name!r} (known: {', '.join(RULE_SETS)})")
    return rules.with_options(options or {})
