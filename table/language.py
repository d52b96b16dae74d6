"""The table language: one line a fact or an action.

The same lines serve the dealer's keyboard console, a written record of a deal, the
tests and scripted museum deals. :func:`parse_line` turns one line into a command;
:func:`parse_script` reads a whole record. Errors name the line and what was expected.

::

    game faro
    rules classic cat_hop_pays=1
    bank 1000
    punter anna 100
    bet anna K 2 copper
    card 5S
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from table.cards import Card
from table.dealer import MOST_CHIPS
from table.errors import CardParseError, LanguageError
from table.text import ascii_lower

GAMES = ("faro", "punto-banco", "chemin-de-fer", "banque", "macao", "mini-baccarat")


@dataclass(frozen=True)
class Command:
    """A parsed line; ``line_number`` is where it stood in a script (0: typed alone)."""

    line_number: int = field(default=0, kw_only=True, compare=False)


@dataclass(frozen=True)
class GameCmd(Command):
    game: str


@dataclass(frozen=True)
class RulesCmd(Command):
    name: str
    options: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class BankCmd(Command):
    amount: int


@dataclass(frozen=True)
class PunterCmd(Command):
    punter: str
    bankroll: int


@dataclass(frozen=True)
class LeaveCmd(Command):
    punter: str


@dataclass(frozen=True)
class BankerCmd(Command):
    banker: str


@dataclass(frozen=True)
class BetCmd(Command):
    punter: str
    spot: str
    amount: int
    copper: bool = False
    mark: bool = False
    instruction: str = ""


@dataclass(frozen=True)
class WithdrawCmd(Command):
    """``order``: which call of the turn, as it was called (loser, winner, hoc). ``copper``
    and ``mark`` choose among a punter's stacks on one spot (None: any)."""

    punter: str
    spot: str
    amount: int | None = None
    copper: bool | None = None
    order: tuple[str, str, str] | None = None
    mark: bool | None = None


@dataclass(frozen=True)
class MoveCmd(Command):
    punter: str
    from_spot: str
    to_spot: str
    copper: bool | None = None
    mark: bool | None = None


@dataclass(frozen=True)
class CallCmd(Command):
    punter: str
    order: tuple[str, str, str]
    amount: int


@dataclass(frozen=True)
class CardCmd(Command):
    card: Card
    # When the card came out, if before the command (held, or named for a reader's
    # question); never written in the language, a line is given when it is given.
    came_out: float | None = field(default=None, kw_only=True, compare=False)


@dataclass(frozen=True)
class StandCmd(Command):
    pass


@dataclass(frozen=True)
class BancoCmd(Command):
    """Baccarat: the punter covers the whole bank and is its sole opponent (002)."""

    punter: str


@dataclass(frozen=True)
class PassBankCmd(Command):
    """Baccarat: the banker gives up the bank; it passes counter-clockwise (002)."""


@dataclass(frozen=True)
class CutCmd(Command):
    """Baccarat: the cut card came out of the shoe."""


@dataclass(frozen=True)
class ShuffleCmd(Command):
    """A new deck (or shoe) goes in the box."""


@dataclass(frozen=True)
class LockCmd(Command):
    pass


@dataclass(frozen=True)
class EmptyCmd(Command):
    """The box (or shoe) is empty, says its sensor or the dealer."""


@dataclass(frozen=True)
class UnreadCmd(Command):
    """A card came out of the box that the reader could not name; the dealer names it with
    ``card CARD``, or voids the alarm if none came out. ``what`` is the reader's own account."""

    what: str = ""


@dataclass(frozen=True)
class VoidCmd(Command):
    """``void``: the last card; ``void deal``: the whole deal, bets returned."""

    deal: bool = False


@dataclass(frozen=True)
class CorrectCmd(Command):
    card: Card


_USAGE = {
    "game": "game NAME (one of: " + ", ".join(GAMES) + ")",
    "rules": "rules NAME [option=value ...]",
    "bank": "bank AMOUNT",
    "punter": "punter NAME BANKROLL",
    "leave": "leave NAME",
    "banker": "banker NAME",
    "bet": "bet PUNTER SPOT AMOUNT [copper] [mark] [paroli N | martingale CAP]",
    "withdraw": "withdraw PUNTER SPOT [AMOUNT] [copper | plain] [mark | chips]  |  "
    "withdraw PUNTER call [LOSER WINNER HOC] [AMOUNT]",
    "move": "move PUNTER FROM_SPOT TO_SPOT [copper | plain] [mark | chips]",
    "call": "call PUNTER LOSER WINNER HOC AMOUNT",
    "card": "card CARD (e.g. card QH, card 10♠)",
    "stand": "stand",
    "banco": "banco PUNTER",
    "pass": "pass",
    "cut": "cut",
    "shuffle": "shuffle (also: newdeck, new deck, new shoe)",
    "lock": "lock",
    "empty": "empty",
    "unread": "unread",
    "void": "void  |  void deal",
    "correct": "correct CARD",
}


_WORDS: dict[type[Command], str] = {
    GameCmd: "game",
    RulesCmd: "rules",
    BankCmd: "bank",
    PunterCmd: "punter",
    LeaveCmd: "leave",
    BankerCmd: "banker",
    BetCmd: "bet",
    WithdrawCmd: "withdraw",
    MoveCmd: "move",
    CallCmd: "call",
    CardCmd: "card",
    StandCmd: "stand",
    BancoCmd: "banco",
    PassBankCmd: "pass",
    CutCmd: "cut",
    ShuffleCmd: "shuffle",
    LockCmd: "lock",
    EmptyCmd: "empty",
    UnreadCmd: "unread",
    VoidCmd: "void",
    CorrectCmd: "correct",
}


def line_word(command: Command) -> str:
    """The word a command's line begins with, to name it to a dealer."""
    return _WORDS.get(type(command), type(command).__name__)


def usage() -> str:
    """Every line the language knows, one per line."""
    return "\n".join(_USAGE.values())


def whole_number(text: str) -> int | None:
    """``text`` as the table language writes a whole number: ASCII digits, a minus sign
    before them if below zero; None if it is not one. (``int`` would read ``1_0`` as 10,
    ``+5`` as 5, and another script's digits, ``٣`` as 3.)"""
    digits = text.removeprefix("-")
    if not (digits.isascii() and digits.isdigit()):
        return None
    try:
        return int(text)
    except ValueError:  # more digits than Python reads
        return None


def _amount(text: str, what: str) -> int:
    digits = text.removeprefix("-")
    if digits.isascii() and digits.isdigit() and len(digits.lstrip("0")) > len(str(MOST_CHIPS)):
        # Told by its length: so many digits are too many to read back in a message.
        raise LanguageError(
            f"{what}: {len(digits)} digits, more than the table counts (at most {MOST_CHIPS} chips)"
        )
    value = whole_number(text)
    if value is None:
        raise LanguageError(f"{what} must be a whole number of chips, not {text!r}")
    return value


def _name(text: str, what: str) -> str:
    if not text.replace("-", "").replace("_", "").replace(".", "").isalnum():
        raise LanguageError(f"{what} {text!r}: use letters, digits, '-', '_' or '.'")
    return text


def _expect(words: list[str], low: int, high: int) -> None:
    if not low <= len(words) - 1 <= high:
        raise LanguageError(f"expected: {_USAGE[words[0]]}")


def _card(text: str) -> Card:
    try:
        return Card.parse(text)
    except CardParseError as error:
        raise LanguageError(str(error)) from None


# The words that choose among a punter's stacks on one spot: by copper, and by chips or marks.
_STACK_FLAGS = {
    "copper": ("copper", True),
    "plain": ("copper", False),
    "mark": ("mark", True),
    "chips": ("mark", False),
}


def _stack_flags(words: list[str]) -> tuple[bool | None, bool | None, list[str]]:
    """The copper and mark flags among ``words`` (None where not said), and the other words."""
    said: dict[str, bool] = {}
    rest: list[str] = []
    for word in words:
        flag = _STACK_FLAGS.get(ascii_lower(word))
        if flag is None:
            rest.append(word)
        else:
            said[flag[0]] = flag[1]
    return said.get("copper"), said.get("mark"), rest


def parse_line(line: str, line_number: int = 0) -> Command | None:
    """One line to a command; None for a blank line or a comment."""
    text = line.split("#", 1)[0].strip()
    if not text:
        return None
    words = text.split()
    verb = ascii_lower(words[0])
    words[0] = verb
    where = {"line_number": line_number}
    try:
        return _parse_words(verb, words, where)
    except LanguageError as error:
        if error.line_number is None and line_number:
            raise LanguageError(str(error), line_number, line) from None
        if error.line is None:
            raise LanguageError(str(error), None, line) from None
        raise


def _parse_words(verb: str, words: list[str], where: dict[str, int]) -> Command:
    if verb == "game":
        _expect(words, 1, 1)
        game = ascii_lower(words[1])
        if game not in GAMES:
            raise LanguageError(f"unknown game {words[1]!r} (known: {', '.join(GAMES)})")
        return GameCmd(game, **where)
    if verb == "rules":
        if len(words) < 2:
            raise LanguageError(f"expected: {_USAGE['rules']}")
        options: dict[str, str] = {}
        for word in words[2:]:
            key, equals, value = word.partition("=")
            if not equals or not key or not value:
                raise LanguageError(f"rule option {word!r}: expected option=value")
            options[ascii_lower(key)] = value
        return RulesCmd(ascii_lower(words[1]), options, **where)
    if verb == "bank":
        _expect(words, 1, 1)
        return BankCmd(_amount(words[1], "the bank's bankroll"), **where)
    if verb == "punter":
        _expect(words, 2, 2)
        return PunterCmd(_name(words[1], "punter"), _amount(words[2], "the bankroll"), **where)
    if verb == "leave":
        _expect(words, 1, 1)
        return LeaveCmd(_name(words[1], "punter"), **where)
    if verb == "banker":
        _expect(words, 1, 1)
        return BankerCmd(_name(words[1], "banker"), **where)
    if verb == "bet":
        return _parse_bet(words, where)
    if verb == "withdraw":
        return _parse_withdraw(words, where)
    if verb == "move":
        _expect(words, 3, 5)
        copper, mark, rest = _stack_flags(words[4:])
        if rest:
            raise LanguageError(f"expected: {_USAGE['move']}")
        return MoveCmd(_name(words[1], "punter"), words[2], words[3], copper, mark, **where)
    if verb == "call":
        _expect(words, 5, 5)
        order = (words[2], words[3], words[4])
        return CallCmd(_name(words[1], "punter"), order, _amount(words[5], "the call"), **where)
    if verb == "card":
        _expect(words, 1, 1)
        return CardCmd(_card(words[1]), **where)
    if verb == "stand":
        _expect(words, 0, 0)
        return StandCmd(**where)
    if verb == "banco":
        _expect(words, 1, 1)
        return BancoCmd(_name(words[1], "punter"), **where)
    if verb == "pass":
        _expect(words, 0, 0)
        return PassBankCmd(**where)
    if verb == "cut":
        _expect(words, 0, 0)
        return CutCmd(**where)
    if verb in ("shuffle", "newdeck", "new"):
        # "new deck" and "new shoe" are one word said in two; nothing else follows any.
        said = [ascii_lower(word) for word in words[1:]]
        if said not in ([], ["deck"], ["shoe"]) or (verb == "new") != bool(said):
            raise LanguageError(f"expected: {_USAGE['shuffle']}")
        return ShuffleCmd(**where)
    if verb == "lock":
        _expect(words, 0, 0)
        return LockCmd(**where)
    if verb == "empty":
        _expect(words, 0, 0)
        return EmptyCmd(**where)
    if verb == "unread":
        _expect(words, 0, 0)
        return UnreadCmd(line_number=where["line_number"])
    if verb == "void":
        _expect(words, 0, 1)
        if len(words) == 2 and ascii_lower(words[1]) != "deal":
            raise LanguageError(f"expected: {_USAGE['void']}")
        return VoidCmd(len(words) == 2, **where)
    if verb == "correct":
        _expect(words, 1, 1)
        return CorrectCmd(_card(words[1]), **where)
    raise LanguageError(
        f"unknown line {verb!r}; the table language's lines begin "
        + ", ".join(sorted(_USAGE))
        + " (at the console, 'help' shows each in full)"
    )


def _parse_withdraw(words: list[str], where: dict[str, int]) -> WithdrawCmd:
    is_call = len(words) > 2 and ascii_lower(words[2]) == "call"
    # A call is named by its three cards, as it was called: one of several can be taken back.
    _expect(words, 2, 7 if is_call else 5)
    copper, mark, rest = _stack_flags(words[3:])
    order: tuple[str, str, str] | None = None
    if is_call and len(rest) >= 3:
        order = (rest[0], rest[1], rest[2])
        rest = rest[3:]
    if len(rest) > 1:
        raise LanguageError(f"expected: {_USAGE['withdraw']}")
    amount = _amount(rest[0], "the amount to withdraw") if rest else None
    return WithdrawCmd(_name(words[1], "punter"), words[2], amount, copper, order, mark, **where)


def _parse_bet(words: list[str], where: dict[str, int]) -> BetCmd:
    if len(words) < 4:
        raise LanguageError(f"expected: {_USAGE['bet']}")
    punter = _name(words[1], "punter")
    amount = _amount(words[3], "the bet")
    copper = mark = False
    instruction = ""
    rest = [ascii_lower(word) for word in words[4:]]
    while rest:
        word = rest.pop(0)
        if word == "copper":
            copper = True
        elif word == "mark":
            mark = True
        elif word in ("paroli", "martingale"):
            if not rest:
                number = "N" if word == "paroli" else "CAP"
                raise LanguageError(f"{word} needs a whole number: {word} {number}")
            limit = rest.pop(0)
            if whole_number(limit) is None:
                raise LanguageError(f"{word} needs a whole number, not {limit!r}")
            if instruction:
                # A stack follows one progression: neither is dropped for the other unsaid.
                raise LanguageError(
                    f"one standing instruction a bet: {instruction!r} and "
                    f"'{word} {limit}' were both said"
                )
            instruction = f"{word} {limit}"
        else:
            raise LanguageError(f"unexpected {word!r}; expected: {_USAGE['bet']}")
    return BetCmd(punter, words[2], amount, copper, mark, instruction, **where)


def parse_script(lines: Iterable[str]) -> Iterator[Command]:
    """Every command of a written record, in order; stops at the first unreadable line."""
    for number, line in enumerate(lines, start=1):
        command = parse_line(line, number)
        if command is not None:
            yield command
