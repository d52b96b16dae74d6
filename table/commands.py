"""Carrying out the table-language commands every game's table answers alike.

Each game's dispatcher (:mod:`table.faro.commands`, :mod:`table.baccarat.commands`) takes the
lines that are its own first and hands the rest here: cards, the lock, voids and
corrections, who sits, the bank, the rules and the game line.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol

from table.cards import Card
from table.errors import IllegalCommandError
from table.events import Event
from table.language import (
    BankCmd,
    BankerCmd,
    CardCmd,
    Command,
    CorrectCmd,
    GameCmd,
    LeaveCmd,
    LockCmd,
    PunterCmd,
    RulesCmd,
    UnreadCmd,
    VoidCmd,
    line_word,
)


class TableDesk(Protocol):
    """What a game's table offers for the commands every game shares."""

    game: str

    def deal(
        self, card: Card | str, *, at: float | None = None, came_out: float | None = None
    ) -> list[Event]: ...
    def lock(self, *, at: float | None = None) -> list[Event]: ...
    def void_card(self, *, at: float | None = None) -> list[Event]: ...
    def unread(self, what: str = "", *, at: float | None = None) -> list[Event]: ...
    def correct(self, card: Card | str, *, at: float | None = None) -> list[Event]: ...
    def seat(self, punter: str, bankroll: int, *, at: float | None = None) -> list[Event]: ...
    def leave(self, punter: str, *, at: float | None = None) -> list[Event]: ...
    def fund_bank(self, amount: int, *, at: float | None = None) -> list[Event]: ...
    def choose_banker(self, banker: str, *, at: float | None = None) -> list[Event]: ...
    def choose_rules(
        self, name: str, options: Mapping[str, str] | None = None, *, at: float | None = None
    ) -> list[Event]: ...


def run_table_command(
    table: TableDesk, command: Command, *, at: float | None = None
) -> list[Event]:
    """One shared command on ``table``; a command no table of this game knows is refused."""
    match command:
        case CardCmd(card=card, came_out=came_out):
            return table.deal(card, at=at, came_out=came_out)
        case LockCmd():
            return table.lock(at=at)
        case VoidCmd(deal=False):
            return table.void_card(at=at)
        case UnreadCmd(what=what):
            return table.unread(what, at=at)
        case CorrectCmd(card=card):
            return table.correct(card, at=at)
        case PunterCmd():
            return table.seat(command.punter, command.bankroll, at=at)
        case LeaveCmd():
            return table.leave(command.punter, at=at)
        case BankCmd():
            return table.fund_bank(command.amount, at=at)
        case BankerCmd():
            return table.choose_banker(command.banker, at=at)
        case RulesCmd():
            return table.choose_rules(command.name, command.options, at=at)
        case GameCmd(game=game) if game == table.game:
            return []
        case GameCmd(game=game):
            raise IllegalCommandError(f"game {game}: this table deals {table.game}")
    raise IllegalCommandError(f"{line_word(command)}: not a line a {table.game} table takes")
