"""Faro: the rules of the three Faro seeds as one pure, deterministic engine.

>>> from table.faro import FaroTable
>>> from table.cards import Card
>>> table = FaroTable()
>>> _ = table.fund_bank(1000); _ = table.seat("dan", 100)
>>> _ = table.new_deck(); _ = table.deal(Card.parse("2C"))   # the soda
>>> _ = table.bet("dan", "9", 4)
>>> events = table.deal(Card.parse("KD")) + table.deal(Card.parse("9C"))
>>> [(e.punter, e.outcome.value, e.net) for e in events if e.type_name == "bet_settled"]
[('dan', 'win', 4)]
"""

from table.faro.engine import FaroState, FaroTable, Phase
from table.faro.rules import RULE_SETS, FaroRules, find_rules

__all__ = ["RULE_SETS", "FaroRules", "FaroState", "FaroTable", "Phase", "find_rules"]
