"""Carrying out table-language commands on a baccarat table."""

from __future__ import annotations

from typing import TYPE_CHECKING

from table.commands import run_table_command
from table.errors import BetRefusedError, IllegalCommandError
from table.events import Event
from table.language import (
    BancoCmd,
    BetCmd,
    CallCmd,
    Command,
    CutCmd,
    EmptyCmd,
    MoveCmd,
    PassBankCmd,
    ShuffleCmd,
    StandCmd,
    VoidCmd,
    WithdrawCmd,
)

if TYPE_CHECKING:
    from table.baccarat.engine import BaccaratTable


def run_command(table: BaccaratTable, command: Command, *, at: float | None = None) -> list[Event]:
    """One command on the table; raises a TableError (state unchanged) when refused."""
    match command:
        case BetCmd(copper=False, mark=False, instruction=""):
            return table.bet(command.punter, command.spot, command.amount, at=at)
        case BetCmd():
            raise BetRefusedError(
                f"bet {command.punter} {command.spot}: coppers, marks and progressions are "
                "Faro's; a baccarat bet is PUNTER SIDE AMOUNT"
            )
        case BancoCmd(punter=punter):
            return table.banco(punter, at=at)
        case WithdrawCmd(order=order) if order is not None:
            raise IllegalCommandError(
                f"withdraw {command.punter} {command.spot} {' '.join(order)}: calling the turn "
                "is Faro's; baccarat has no turn"
            )
        case WithdrawCmd(copper=None, mark=None):
            return table.withdraw(command.punter, command.spot, command.amount, at=at)
        case StandCmd():
            return table.stand(at=at)
        case ShuffleCmd():
            return table.new_shoe(at=at)
        case CutCmd():
            return table.cut(at=at)
        case EmptyCmd():
            return table.shoe_empty(at=at)
        case VoidCmd(deal=True):
            return table.void_coup(at=at)
        case PassBankCmd():
            return table.pass_bank(at=at)
        case CallCmd():
            raise IllegalCommandError("call: calling the turn is Faro's; baccarat has no turn")
        case MoveCmd():
            raise IllegalCommandError(
                f"move {command.punter}: a baccarat stake is withdrawn and placed again, not moved"
            )
        case WithdrawCmd():
            raise BetRefusedError(
                f"withdraw {command.punter} {command.spot}: coppers and marks are Faro's; "
                "a baccarat withdrawal is PUNTER SIDE [AMOUNT]"
            )
    return run_table_command(table, command, at=at)
