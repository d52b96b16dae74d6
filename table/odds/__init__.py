"""Exact odds, as fractions: Faro from the casekeep, Punto Banco and Chemin de Fer from the shoe.

Pure and exact: every figure is a :class:`fractions.Fraction` counted from the cards left,
never sampled. The simulator that samples whole deals lives outside the pure rules, in
``analysis/``.
"""

from table.odds.advisor import Advice, RankAdvice, advice_for, advise
from table.odds.baccarat import BaccaratShoe
from table.odds.chemin_de_fer import CheminDeFerOdds, chemin_de_fer_odds
from table.odds.faro import (
    FaroOdds,
    HeelOdds,
    faro_odds,
    faro_odds_from_out,
    faro_odds_of_cards,
    heel_edge_table,
    heel_odds,
)
from table.odds.json_fractions import fraction_text
from table.odds.punto_banco import PuntoBancoOdds, PuntoBancoPayouts, punto_banco_odds

__all__ = [
    "Advice",
    "BaccaratShoe",
    "CheminDeFerOdds",
    "FaroOdds",
    "HeelOdds",
    "PuntoBancoOdds",
    "PuntoBancoPayouts",
    "RankAdvice",
    "advice_for",
    "advise",
    "chemin_de_fer_odds",
    "faro_odds",
    "faro_odds_from_out",
    "faro_odds_of_cards",
    "fraction_text",
    "heel_edge_table",
    "heel_odds",
    "punto_banco_odds",
]
