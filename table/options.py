"""Rule options as the table language writes them (``tie_pays=9``, ``pair_bets=yes``):
read into the option's type and written back as text. Shared by every game's rules."""

from __future__ import annotations

from table.errors import RulesError
from table.language import whole_number
from table.text import ascii_lower


def option_text(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


TRUE_WORDS = {"true", "yes", "on", "1"}
FALSE_WORDS = {"false", "no", "off", "0"}


def option_value(key: str, type_name: object, raw: str | int | bool) -> object:
    text = ascii_lower(str(raw).strip()) if not isinstance(raw, bool) else raw
    if type_name in ("bool", bool):
        if isinstance(text, bool):
            return text
        if text in TRUE_WORDS:
            return True
        if text in FALSE_WORDS:
            return False
        raise RulesError(f"option {key}={raw!r}: expected true or false")
    if type_name in ("int", int):
        if isinstance(raw, bool):
            raise RulesError(f"option {key}={raw!r}: expected a whole number")
        number = whole_number(str(raw).strip())
        if number is None:
            raise RulesError(f"option {key}={raw!r}: expected a whole number")
        return number
    return ascii_lower(str(raw).strip())
