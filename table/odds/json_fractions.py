"""Exact figures as JSON: every fraction is written ``"p/q"``, whole numbers too.

>>> from fractions import Fraction
>>> fraction_text(Fraction(1, 6)), fraction_text(Fraction(0)), fraction_text(Fraction(-2))
('1/6', '0/1', '-2/1')
"""

from __future__ import annotations

from fractions import Fraction

JsonValue = str | int | bool | None | list["JsonValue"] | dict[str, "JsonValue"]


def fraction_text(value: Fraction) -> str:
    """``"p/q"`` always, so a reader can parse every figure the same way."""
    return f"{value.numerator}/{value.denominator}"


def percent_text(value: Fraction, places: int = 3) -> str:
    """A fraction as a rounded percentage for people: ``1.235%``."""
    return f"{float(value) * 100:.{places}f}%"
