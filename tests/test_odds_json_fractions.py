"""Fractions as JSON text: always "p/q", read back exactly."""

from __future__ import annotations

import doctest
from fractions import Fraction

import table.odds.json_fractions
from table.odds.json_fractions import fraction_text, percent_text


def test_fractions_read_back_exactly() -> None:
    for value in (Fraction(1, 6), Fraction(0), Fraction(3), Fraction(-101, 4998)):
        text = fraction_text(value)
        assert "/" in text
        assert Fraction(text) == value


def test_percentages_round_for_people() -> None:
    assert percent_text(Fraction(1, 6)) == "16.667%"
    assert percent_text(Fraction(0), 2) == "0.00%"


def test_docstring_examples() -> None:
    result = doctest.testmod(table.odds.json_fractions)
    assert result.attempted > 0 and result.failed == 0
