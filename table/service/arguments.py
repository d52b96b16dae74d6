"""Argument types for the command line.

A number out of range is refused by argparse before the command starts, with what was
expected, in the words the config file uses for the same settings::

    dealtable exhibit: error: argument --pause: expected a number of at least 0, got '-1'
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable

from table.language import whole_number as plain_whole_number


def whole_number(low: int, high: int | None = None) -> Callable[[str], int]:
    """A whole number from ``low`` (to ``high``, if given)."""
    span = f"from {low} to {high}" if high is not None else f"of at least {low}"

    def parse(text: str) -> int:
        value = plain_whole_number(text)
        if value is None or value < low or (high is not None and value > high):
            raise argparse.ArgumentTypeError(f"expected a whole number {span}, got {text!r}")
        return value

    return parse


def number(low: float) -> Callable[[str], float]:
    """A number of at least ``low`` (fractions allowed; not infinite, not NaN)."""

    def parse(text: str) -> float:
        try:
            # float() would read "1_0" as 10 and another script's digits as ours.
            value = float(text) if text.isascii() and "_" not in text else math.nan
        except ValueError:
            value = math.nan
        if not math.isfinite(value) or value < low:
            raise argparse.ArgumentTypeError(f"expected a number of at least {low:g}, got {text!r}")
        return value

    return parse


port_number = whole_number(1, 65535)
