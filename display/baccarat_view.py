"""What a screen draws of a baccarat table, as JSON: the hands of the coup with their totals,
the last result, the bets, the bankrolls and the shoe's five scoreboards.

Where players hold the cards (Chemin de Fer, Banque, Macao) a hand's first two cards are
dealt face down and decided on unseen (002): the screens show their backs (``null``) until
the coup is over, or the hand is a natural, which is shown at once. A third card is dealt
face up. Punto Banco's hands are the house's and decide nothing: shown as they come."""

from __future__ import annotations

from collections.abc import Sequence

from table.baccarat.engine import BaccaratState
from table.baccarat.roads import Road, Scoreboard, coups_of
from table.baccarat.rules import hundredths_text
from table.baccarat.tableau import total
from table.events import CoupResult
from table.games import GAME_TITLES


def _road(road: Road) -> dict[str, object]:
    return {
        "rows": road.rows,
        "columns": road.columns,
        "cells": [
            {
                "column": column,
                "row": row,
                "outcome": cell.outcome,
                "ties": cell.ties,
                "player_pair": cell.player_pair,
                "banker_pair": cell.banker_pair,
            }
            for (column, row), cell in sorted(road.cells.items())
        ],
    }


def _shown(state: BaccaratState) -> list[list[str | None]]:
    return [[None if card is None else str(card) for card in hand] for hand in state.shown_hands]


def baccarat_view(state: BaccaratState, results: Sequence[CoupResult]) -> dict[str, object]:
    board = Scoreboard.of(coups_of(results))
    names = state.geometry.hands
    last = state.last_result
    return {
        "game": state.game,
        "title": GAME_TITLES.get(state.game, state.game),
        "seq": state.last_seq,
        "table": state.table,
        "rules": state.rules.name,
        "shoe": state.shoe,
        "coup": state.coup,
        "phase": state.phase.value,
        "bets_open": state.bets_open,
        "hands": [
            {"name": name, "cards": shown, "total": total(cards) if None not in shown else None}
            for name, cards, shown in zip(names, state.hands, _shown(state), strict=False)
        ],
        "last_result": None
        if last is None
        else {
            "coup": last.coup,
            "winner": last.winner,
            # Banque's two hands each have their own: the right hand's is ``winner``.
            "winners": dict(last.winners),
            "totals": dict(last.totals),
            "naturals": list(last.naturals),
            "pairs": list(last.pairs),
        },
        "bets": [
            {"punter": bet.punter, "spot": bet.spot, "stake": bet.stake}
            for bet in sorted(state.bets.values(), key=lambda bet: bet.bet_id)
        ],
        "bank": state.bank,
        "banker": state.banker,
        "house": state.house,
        "bankrolls": [
            {
                "punter": name,
                "chips": state.bankrolls[name],
                "commission_box": hundredths_text(state.commission_box[name])
                if name in state.commission_box
                else None,
            }
            for name in state.seats
        ],
        "alarm": state.alarm.public_message if state.alarm else None,
        "readers_lost": dict(state.readers_lost),
        "roads": {
            "bead_plate": _road(board.bead_plate),
            "big_road": _road(board.big_road),
            "big_eye_boy": _road(board.big_eye_boy),
            "small_road": _road(board.small_road),
            "cockroach_pig": _road(board.cockroach_pig),
        },
    }
