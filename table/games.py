"""The games dealtable deals, found by name, and the replay of a written record."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Protocol

from table.errors import IllegalCommandError, TableError
from table.events import Event
from table.language import Command, GameCmd, parse_line


class Game(Protocol):
    """What every game engine offers the service, the console and replay."""

    game: str

    def apply(self, command: Any, *, at: float | None = None) -> list[Event]: ...


def _faro(table_id: str) -> Game:
    from table.faro.engine import FaroTable

    return FaroTable(table_id)


def _baccarat(game: str) -> Callable[[str], Game]:
    def factory(table_id: str) -> Game:
        from table.baccarat.engine import BaccaratTable

        return BaccaratTable(table_id, game)

    return factory


# How each game is written in a heading: its proper name.
GAME_TITLES: dict[str, str] = {
    "faro": "Faro",
    "punto-banco": "Punto Banco",
    "mini-baccarat": "Mini-Baccarat",
    "chemin-de-fer": "Chemin de Fer",
    "banque": "Baccarat Banque",
    "macao": "Macao",
}

GAME_FACTORIES: dict[str, Callable[[str], Game]] = {
    "faro": _faro,
    "punto-banco": _baccarat("punto-banco"),
    "mini-baccarat": _baccarat("mini-baccarat"),
    "chemin-de-fer": _baccarat("chemin-de-fer"),
    "banque": _baccarat("banque"),
    "macao": _baccarat("macao"),
}


def new_game(name: str, table_id: str = "table") -> Game:
    factory = GAME_FACTORIES.get(name)
    if factory is None:
        known = ", ".join(sorted(GAME_FACTORIES))
        raise IllegalCommandError(f"game {name}: not dealt here yet (known: {known})")
    return factory(table_id)


@dataclass
class ReplayError:
    """A refused line: where it stood, what it said, and why it was refused (the reason
    only: ``line_number`` already says where)."""

    line_number: int
    line: str
    message: str


@dataclass
class Replay:
    """A written record carried out line by line: its events and any refused lines."""

    table_id: str = "table"
    game: Game | None = None
    events: list[Event] = field(default_factory=list)
    errors: list[ReplayError] = field(default_factory=list)

    def run_line(self, line: str, line_number: int = 0) -> list[Event]:
        """Parse and carry out one line; a refused line is recorded and changes nothing."""
        try:
            command = parse_line(line, line_number)
            if command is None:
                return []
            new = self._run(command)
        except TableError as error:
            # A parse error names its line itself; the record says where once.
            reason = str(error).removeprefix(f"line {line_number}: ")
            self.errors.append(ReplayError(line_number, line.rstrip("\n"), reason))
            raise
        self.events.extend(new)
        return new

    def _run(self, command: Command) -> list[Event]:
        if isinstance(command, GameCmd):
            if self.game is not None and self.game.game != command.game:
                raise IllegalCommandError(
                    f"game {command.game}: this record already deals {self.game.game}"
                )
            if self.game is None:
                self.game = new_game(command.game, self.table_id)
                opening: list[Event] = list(getattr(self.game, "opening", []))
                return opening
            return []
        if self.game is None:
            # The record's table exists once a line of it is carried out: a refused first
            # line leaves no table behind, whose opening events would then go unprinted.
            game = new_game("faro", self.table_id)
            opening = list(getattr(game, "opening", []))
            events = opening + game.apply(command)
            self.game = game
            return events
        return self.game.apply(command)


def replay_lines(lines: Iterable[str], table_id: str = "table") -> Replay:
    """Carry out a whole record; refused lines are collected, the rest goes on."""
    replay = Replay(table_id)
    for number, line in enumerate(lines, start=1):
        try:
            replay.run_line(line, number)
        except TableError:
            continue
    return replay
