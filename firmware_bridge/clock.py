"""Clocks the link reads time from: the real one, and one that tests move by hand."""

from __future__ import annotations

import time
from typing import Protocol


class Clock(Protocol):
    def monotonic(self) -> float:
        """Seconds since an arbitrary start; never goes backwards."""
        ...


class SystemClock:
    def monotonic(self) -> float:
        return time.monotonic()


class ManualClock:
    """A clock that stands still until told to move."""

    def __init__(self, start: float = 0.0) -> None:
        self._now = start

    def monotonic(self) -> float:
        return self._now

    def advance(self, seconds: float) -> None:
        if seconds < 0:
            raise ValueError(f"a clock cannot go back {-seconds} s")
        self._now += seconds

    def ticks_ms(self) -> int:
        return int(self._now * 1000)
