"""Baccarat rule sets: one per game of the family, each overridable option by option.

    >>> find_rules("punto-banco", "standard", {"tie_pays": "9"}).tie_pays
    9
    >>> find_rules("chemin-de-fer", "strict").strict_five
    True

Commission on integer chips, as a commission box keeps it (002: "anotada en un registro de
seguimiento"): a winning Banca bet is paid even money, and ``commission`` per cent of it
(of the bank's winnings in Chemin de Fer, Banque and Macao) is noted against its winner in
hundredths of a chip. Whole chips go to the house as they fall due; the fraction left
waits in the box and is taken, rounded up to a chip in the house's favour, when the shoe
ends, its punter leaves or the bank passes from its banker. So two 10-chip Banca wins cost
exactly one chip, and the chip that will settle a fraction is held back from staking (a
banker's, from the bank the punters may fade). The no-commission table's Banca win with 6
pays half the stake rounded down.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from table.errors import RulesError
from table.options import option_text, option_value
from table.text import ascii_lower


class Family(enum.Enum):
    """How a game of the family is played: who banks, which hands, how many cards."""

    PUNTO_BANCO = "punto-banco"
    CHEMIN_DE_FER = "chemin-de-fer"
    BANQUE = "banque"
    MACAO = "macao"


BURNS = ("value", "one", "none")

# The most cards one coup can take: two hands of three cards; Banque's three hands of three
# (002); Macao's one card a hand.
MOST_CARDS_A_COUP: dict[Family, int] = {
    Family.PUNTO_BANCO: 6,
    Family.CHEMIN_DE_FER: 6,
    Family.BANQUE: 9,
    Family.MACAO: 2,
}


@dataclass(frozen=True)
class BaccaratRules:
    """One baccarat house.

    ``decks``: 1 to 8 decks in the shoe. ``cut_card``: how many cards lie behind the cut
    card, at least as many as one coup can take; when it comes out the coup is finished
    and the shoe is changed. ``burn``: at a
    new shoe the first card is shown and as many cards as its value are burned, a ten or
    court card burning ten (``value``); or one card is burned (``one``); or none.
    ``commission``: per cent the house takes of a winning Banca bet (Punto Banco) or of the
    bank's winnings (Chemin de Fer, Banque, Macao); ``no_commission``: Punto Banco's
    variant where a Banca win with 6 pays 1:2 and every other Banca win pays 1:1.
    ``strict_five``: the representative stands at 5 (002's strict tables).
    ``banker_discretion``: the Chemin de Fer banker may deviate from 002's table (each
    deviation is recorded); off, the table is binding. ``shuffler``: the decks are
    shuffled again after every coup (004: "se barajan después de cada mano", a continuous
    shuffling machine): each coup's cards go back in, so no card is counted against the
    next coup and no cut card comes out.
    """

    family: Family = Family.PUNTO_BANCO
    name: str = "standard"
    decks: int = 6
    cut_card: int = 16
    burn: str = "value"
    commission: int = 5
    no_commission: bool = False
    tie_pays: int = 8
    pair_bets: bool = False
    pair_pays: int = 11
    strict_five: bool = False
    banker_discretion: bool = True
    shuffler: bool = False
    min_bet: int = 1
    max_bet: int = 0  # 0: no table maximum
    min_seats: int = 0
    max_seats: int = 14

    def __post_init__(self) -> None:
        if not 1 <= self.decks <= 8:
            raise RulesError(f"option decks={self.decks}: a shoe holds 1 to 8 decks")
        if not 0 <= self.cut_card <= self.shoe_size // 2:
            raise RulesError(
                f"option cut_card={self.cut_card}: between 0 and {self.shoe_size // 2} cards "
                f"behind the cut card in a {self.decks}-deck shoe"
            )
        if self.burn not in BURNS:
            raise RulesError(f"option burn={self.burn!r}: expected one of {', '.join(BURNS)}")
        if not 0 <= self.commission <= 100:
            raise RulesError(f"option commission={self.commission}: a percentage, 0 to 100")
        if self.tie_pays < 1 or self.pair_pays < 1:
            raise RulesError("tie_pays and pair_pays must be at least 1 (to 1)")
        if self.min_bet < 1:
            raise RulesError(f"min_bet must be at least 1, not {self.min_bet}")
        if self.max_bet and self.max_bet < self.min_bet:
            raise RulesError(f"max_bet {self.max_bet} is below min_bet {self.min_bet}")
        if not 0 <= self.min_seats <= self.max_seats:
            raise RulesError(f"seats {self.min_seats}-{self.max_seats}: not a range")

    @cached_property
    def house_banks(self) -> bool:
        """Punto Banco: the house is the bank; in the others a seated player holds it."""
        return self.family is Family.PUNTO_BANCO

    @cached_property
    def shoe_size(self) -> int:
        return self.decks * 52

    @cached_property
    def cut_at(self) -> int:
        """How many cards leave the shoe before the cut card."""
        return self.shoe_size - self.cut_card

    def check_cut_card(self) -> None:
        """Refuse a cut card with fewer cards behind it than one coup can take, so that the
        coup in play when it comes out always finishes from the shoe.

        Checked where a table chooses its rules, not in ``__post_init__``: rules read back
        from a journal or a checkpoint written before the check must still fold."""
        least = MOST_CARDS_A_COUP[self.family]
        # A continuous shuffler never comes to its cut card.
        if self.shuffler or self.cut_card >= least:
            return
        raise RulesError(
            f"option cut_card={self.cut_card}: at least {least} cards behind the cut card at "
            f"{self.family.value}, the most one coup can take, so that the coup the cut card "
            f"interrupts finishes from the shoe (at most {self.shoe_size // 2} in a "
            f"{self.decks}-deck shoe)"
        )

    @cached_property
    def player_hands(self) -> tuple[str, ...]:
        return ("right", "left") if self.family is Family.BANQUE else ("player",)

    def with_options(self, options: Mapping[str, str | int | bool]) -> BaccaratRules:
        if not options:
            return self
        fixed = ("family", "name")
        known = {item.name: item for item in dataclasses.fields(self) if item.name not in fixed}
        changes: dict[str, Any] = {}
        for key, raw in options.items():
            item = known.get(key)
            if item is None:
                raise RulesError(
                    f"unknown {self.family.value} option {key!r} "
                    f"(known: {', '.join(sorted(known))})"
                )
            changes[key] = option_value(key, item.type, raw)
        return dataclasses.replace(self, **changes)

    def describe(self) -> dict[str, str]:
        return {
            item.name: option_text(getattr(self, item.name))
            for item in dataclasses.fields(self)
            if item.name not in ("family", "name")
        }


_PB = BaccaratRules()
_CDF = BaccaratRules(family=Family.CHEMIN_DE_FER, commission=0, min_seats=3, max_seats=12)

RULE_SETS: dict[str, dict[str, BaccaratRules]] = {
    # 004: six decks, fixed tableau, Banca less 5 %, tie 8:1.
    "punto-banco": {
        "standard": _PB,
        "no-commission": dataclasses.replace(_PB, name="no-commission", no_commission=True),
        "eight-deck": dataclasses.replace(_PB, name="eight-deck", decks=8),
        "shuffler": dataclasses.replace(_PB, name="shuffler", shuffler=True, burn="none"),
    },
    # 002's variants: Mini-Baccarat is Punto Banco on a small table, pairs offered.
    "mini-baccarat": {
        "standard": dataclasses.replace(_PB, max_seats=7, pair_bets=True),
    },
    # 002: home and casino Chemin de Fer; the casino takes 5 % of the bank's winnings.
    "chemin-de-fer": {
        "standard": _CDF,
        "strict": dataclasses.replace(_CDF, name="strict", strict_five=True),
        "casino": dataclasses.replace(_CDF, name="casino", commission=5),
        "home": dataclasses.replace(_CDF, name="home", decks=3, cut_card=10, burn="none"),
    },
    "banque": {"standard": dataclasses.replace(_CDF, family=Family.BANQUE)},
    "macao": {"standard": dataclasses.replace(_CDF, family=Family.MACAO)},
}


def find_rules(
    game: str, name: str = "standard", options: Mapping[str, str | int | bool] | None = None
) -> BaccaratRules:
    """The named rule set of ``game``, with ``options`` overriding single rules."""
    sets = RULE_SETS.get(game)
    if sets is None:
        raise RulesError(f"unknown baccarat game {game!r} (known: {', '.join(RULE_SETS)})")
    rules = sets.get(ascii_lower(name.strip()))
    if rules is None:
        raise RulesError(f"unknown {game} rule set {name!r} (known: {', '.join(sets)})")
    return rules.with_options(options or {})


def hundredths_text(hundredths: int) -> str:
    """Hundredths of a chip as a player reads them.

    >>> hundredths_text(50), hundredths_text(150), hundredths_text(5)
    ('0.50', '1.50', '0.05')
    """
    return f"{hundredths // 100}.{hundredths % 100:02d}"
