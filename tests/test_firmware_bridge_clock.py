"""Clocks: the manual one moves only when told, and never backwards."""

from __future__ import annotations

import pytest

from firmware_bridge.clock import ManualClock, SystemClock


def test_a_manual_clock_stands_still_until_advanced() -> None:
    clock = ManualClock(10.0)
    assert clock.monotonic() == 10.0
    clock.advance(0.25)
    assert clock.monotonic() == 10.25
    assert clock.ticks_ms() == 10250
    with pytest.raises(ValueError, match="cannot go back"):
        clock.advance(-1.0)


def test_the_system_clock_never_goes_backwards() -> None:
    clock = SystemClock()
    readings = [clock.monotonic() for _ in range(1000)]
    assert readings == sorted(readings)
