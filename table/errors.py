"""The one family of errors the rules raise.

Every error is a ``ValueError`` so that callers reading untrusted input (a card
reader, a console line, an MQTT command) can catch one class, and every message
names what was refused and the state that refused it.
"""

from __future__ import annotations


class TableError(ValueError):
    """Something the table refuses: the state is unchanged."""


class CardParseError(TableError):
    """A card, rank or suit that cannot be read."""


class RulesError(TableError):
    """An unknown rule set, an unknown option or an option value out of range."""


class LanguageError(TableError):
    """A line of the table language that cannot be parsed."""

    def __init__(self, message: str, line_number: int | None = None, line: str | None = None):
        self.line_number = line_number
        self.line = line
        where = f"line {line_number}: " if line_number is not None else ""
        quoted = f" in {_shortened(line.strip())!r}" if line is not None else ""
        super().__init__(f"{where}{message}{quoted}")


def _shortened(text: str, most: int = 80) -> str:
    """A line as an error quotes it: a line of thousands of characters would bury the why."""
    return text if len(text) <= most else f"{text[: most - 1]}…"


class IllegalCommandError(TableError):
    """A command that is well formed but not allowed in the current state."""


class BetRefusedError(IllegalCommandError):
    """A bet, move, withdrawal or call the table will not take."""


class CardRefusedError(IllegalCommandError):
    """A card the engine cannot take now (an alarm is waiting for the dealer)."""
