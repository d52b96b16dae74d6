"""How the table reads the case of a word: ASCII letters only.

Python's ``str.upper`` and ``str.lower`` map some letters of other alphabets onto ASCII
ones (the long s 'ſ' uppers to 'S', the Kelvin sign lowers to 'k'), which would read a
garbled card code or a stray keystroke as a card, a spot or a word of the table language.
"""

from __future__ import annotations

import string

_TO_UPPER = str.maketrans(string.ascii_lowercase, string.ascii_uppercase)
_TO_LOWER = str.maketrans(string.ascii_uppercase, string.ascii_lowercase)


def ascii_upper(text: str) -> str:
    """``text`` with its ASCII letters in upper case; every other character as it is."""
    return text.translate(_TO_UPPER)


def ascii_lower(text: str) -> str:
    """``text`` with its ASCII letters in lower case; every other character as it is."""
    return text.translate(_TO_LOWER)
