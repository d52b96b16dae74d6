"""Plain-text helpers the terminal views share: wrapping that keeps a name with its chips,
and counts with their nouns."""

from __future__ import annotations

import re
import textwrap

# A word and the number after it ("anna 94", "bank 1985", "hoc 8♥") stay on one line.
_NUMBER_AFTER_WORD = re.compile(r"(\S) (?=[-+]?\d)")
_GLUE = "\xa0"


def wrap(text: str, width: int = 78, indent: str = "", subsequent: str = "") -> list[str]:
    """``text`` in lines of at most ``width``, broken between words but never between a
    word and the number that follows it."""
    glued = _NUMBER_AFTER_WORD.sub(r"\1" + _GLUE, text)
    lines = textwrap.wrap(glued, width=width, initial_indent=indent, subsequent_indent=subsequent)
    return [line.replace(_GLUE, " ") for line in lines]


def count(number: int, noun: str) -> str:
    """``1 split``, ``2 splits``: a count with its noun (nouns that take an s)."""
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"
