"""Carrying out table-language commands on a Faro table."""

from __future__ import annotations

from typing import TYPE_CHECKING

from table.commands import run_table_command
from table.errors import IllegalCommandError
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
    from table.faro.engine import FaroTable


def run_command(table: FaroTable, command: Command, *, at: float | None = None) -> list[Event]:
    """One command on the table; raises a TableError (state unchanged) when refused."""
    match command:
        case BetCmd():
            return table.bet(
                command.punter,
                command.spot,
                command.amount,
                copper=command.copper,
                mark=command.mark,
                instruction=command.instruction,
                at=at,
            )
        case WithdrawCmd():
            return table.withdraw(
                command.punter,
                command.spot,
                command.amount,
                copper=command.copper,
                order=command.order,
                mark=command.mark,
                at=at,
            )
        case MoveCmd():
            return table.move(
                command.punter,
                command.from_spot,
                command.to_spot,
                copper=command.copper,
                mark=command.mark,
                at=at,
            )
        case CallCmd():
            return table.call(command.punter, command.order, command.amount, at=at)
        case ShuffleCmd():
            return table.new_deck(at=at)
        case EmptyCmd():
            return table.box_empty(at=at)
        case VoidCmd(deal=True):
            return table.void_deal(at=at)
        case StandCmd():
            raise IllegalCommandError("stand: Faro has no third card; stand is a baccarat line")
        case CutCmd():
            raise IllegalCommandError("cut: a Faro table has no cut card (it is a baccarat line)")
        case BancoCmd(punter=punter):
            raise IllegalCommandError(
                f"banco {punter}: banco is a baccarat line; at Faro a punter bets on the layout "
                "against the bank"
            )
        case PassBankCmd():
            raise IllegalCommandError(
                "pass: a banker gives up the bank at baccarat; at Faro the house holds the bank, "
                "or under home rules it passes by itself after each deal"
            )
    return run_table_command(table, command, at=at)
