"""The baccarat family on one engine: Punto Banco (004) and Mini-Baccarat, Chemin de Fer,
Baccarat Banque and Macao (002).

>>> from table.baccarat import BaccaratTable
>>> table = BaccaratTable("t1", "punto-banco", options={"burn": "none"})
>>> _ = table.fund_bank(1000); _ = table.seat("ana", 100); _ = table.new_shoe()
>>> _ = table.bet("ana", "banker", 20); _ = table.lock()
>>> events = [e for card in "9S KD 7H AC".split() for e in table.deal(card)]
>>> table.state.next_card()   # player 6 stands; banker 1 must draw
NextCard(hand='banker', draw=<Draw.MUST: 'must'>, advice=None)
>>> settled = table.deal("5D")[-2]   # banker 1 + 5 = 6: a tie, Banca pushes
>>> (settled.outcome.value, settled.net)
('push', 0)
"""

from table.baccarat.engine import GAMES, BaccaratState, BaccaratTable, NextCard, Phase
from table.baccarat.rules import RULE_SETS, BaccaratRules, Family, find_rules
from table.baccarat.tableau import Draw

__all__ = [
    "GAMES",
    "RULE_SETS",
    "BaccaratRules",
    "BaccaratState",
    "BaccaratTable",
    "Draw",
    "Family",
    "NextCard",
    "Phase",
    "find_rules",
]
