"""Clocks: the manual one moves only when told, and never backwards."""

from __future__ import annotations

import pytest

from firmware_bridge.clock import (
    DEVICE_TICKS_PERIOD_MS,
    DeviceClock,
    ManualClock,
    SystemClock,
    ticks_diff,
)


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


def test_a_board_reading_heard_late_is_placed_when_the_board_took_it() -> None:
    board = DeviceClock()
    assert board.host_time(1_000, received_at=50.004) == 50.004  # the first: as it arrived
    assert board.host_time(1_500, received_at=50.502) == pytest.approx(50.502)  # more prompt
    # Sat in the port 0.8 s while the service was held up: placed when it was taken.
    assert board.host_time(2_000, received_at=51.8) == pytest.approx(51.002, abs=1e-3)


def test_the_boards_ticks_wrap_and_restart() -> None:
    board = DeviceClock()
    last = DEVICE_TICKS_PERIOD_MS - 100
    board.host_time(last, received_at=10.0)
    assert board.host_time(400, received_at=12.0) == pytest.approx(10.5, abs=1e-3)  # wrapped
    board.forget()  # a new boot counts from zero again
    assert board.host_time(5, received_at=20.0) == 20.0


def test_a_board_clock_slower_than_the_hosts_is_followed() -> None:
    """A crystal 50 ppm slow: an hour on, the board's clock is 0.18 s behind the offset first
    found; within the drift allowed, a prompt reading is placed when it arrived, not 0.18 s
    early."""
    board = DeviceClock()
    board.host_time(0, received_at=0.001)
    hour = 3600.0
    slow_ms = round(hour * (1 - 50e-6) * 1000)
    placed = board.host_time(slow_ms, received_at=hour + 0.001)
    assert placed == pytest.approx(hour + 0.001)


def test_a_reading_after_a_week_of_quiet_is_placed_when_it_came_not_days_before() -> None:
    """The table stood a week with the service and the board left running, and nothing
    moved: the board's ticks went more than half their round (about six days) between two
    readings. The first card slid after it is placed when it slid, not twelve days before."""
    board = DeviceClock()
    board.host_time(1_000, received_at=100.0)
    board.host_time(1_500, received_at=100.5)
    week = 7 * 24 * 3600.0
    later_ms = (1_500 + round(week * 1000)) % DEVICE_TICKS_PERIOD_MS
    assert board.host_time(later_ms, received_at=100.5 + week) == pytest.approx(100.5 + week)


def test_the_time_between_two_readings_of_the_board_is_the_nearest_way_round() -> None:
    """A code and its card's slide are paired by the board's ticks of both, which wrap at
    2**30 (about 12 days): the time between them is the short way round, whichever came
    first."""
    assert ticks_diff(1_250, 1_000) == 250
    assert ticks_diff(1_000, 1_250) == -250
    assert ticks_diff(40, DEVICE_TICKS_PERIOD_MS - 60) == 100  # across the wrap
    assert ticks_diff(DEVICE_TICKS_PERIOD_MS - 60, 40) == -100
