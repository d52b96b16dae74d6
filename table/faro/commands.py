"""Carrying out table-language commands on a Faro table."""

from __future__ import annotations

from typing import TYPE_CHECKING

from table.errors import IllegalCommandError
from table.events import Event
from table.language import (
    BankCmd,
    BankerCmd,
    BetCmd,
    CallCmd,
    CardCmd,
    Command,
    CorrectCmd,
    EmptyCmd,
    GameCmd,
    LeaveCmd,
    LockCmd,
    MoveCmd,
    PunterCmd,
    RulesCmd,
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
        case CardCmd(card=card):
            return table.deal(card, at=at)
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
                command.punter, command.spot, command.amount, copper=command.copper, at=at
            )
        case MoveCmd():
            return table.move(
                command.punter, command.from_spot, command.to_spot, copper=command.copper, at=at
            )
        case CallCmd():
            return table.call(command.punter, command.order, command.amount, at=at)
        case LockCmd():
            return table.lock(at=at)
        case ShuffleCmd():
            return table.new_deck(at=at)
        case EmptyCmd():
            return table.box_empty(at=at)
        case VoidCmd(deal=True):
            return table.void_deal(at=at)
        case VoidCmd():
            return table.void_card(at=at)
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
        case GameCmd(game="faro"):
            return []
        case GameCmd(game=game):
            raise IllegalCommandError(f"game {game}: this table deals Faro")
        case StandCmd():
            raise IllegalCommandError("stand: Faro has no third card; stand is a baccarat line")
    raise IllegalCommandError(f"a Faro table cannot carry out {type(command).__name__}")
