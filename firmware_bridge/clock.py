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


# The board counts milliseconds since its boot as MicroPython's time.ticks_ms() does: modulo
# 2**30 (about 12 days), so its readings wrap.
DEVICE_TICKS_PERIOD_MS = 1 << 30
# How far two crystals may drift apart, in seconds per second: a ceramic resonator's 0.5 %
# is beyond it, a Pico's crystal (30 ppm) and a Pi's well within.
DEVICE_DRIFT = 1e-4


def ticks_diff(later: int, earlier: int, period_ms: int = DEVICE_TICKS_PERIOD_MS) -> int:
    """The milliseconds from ``earlier`` to ``later``, two readings of the board's wrapping
    ticks, the nearest way round (negative if ``later`` is the earlier), as MicroPython's
    ``time.ticks_diff``: a code and its card's slide are paired by it."""
    return (later - earlier + period_ms // 2) % period_ms - period_ms // 2


class DeviceClock:
    """One boot of the board's clock, read on the host's monotonic clock.

    A reading taken on the board at ``device_ms`` can only have arrived after it was taken:
    each reading's arrival time less its board time bounds the offset between the two
    clocks from above, and the least of those bounds (allowed to age by
    :data:`DEVICE_DRIFT`) is the offset. A reading that sat in the board's queue or in the
    port while the service was held up is then placed when it was taken, not when it was
    heard, as soon as one reading of this boot came through promptly; the first reading of
    a boot is placed when it arrived.
    """

    def __init__(self, period_ms: int = DEVICE_TICKS_PERIOD_MS, drift: float = DEVICE_DRIFT):
        self.period_ms = period_ms
        self.drift = drift
        self._last_ms: int | None = None
        self._last_received_at = 0.0
        self._device_s = 0.0  # the board's time since its first reading, unwrapped
        self._offset: float | None = None  # host time less board time, the least bound
        self._offset_at = 0.0  # when that bound was found

    def forget(self) -> None:
        """The board restarted: its clock starts again from zero."""
        self._last_ms = None
        self._device_s = 0.0
        self._offset = None

    def host_time(self, device_ms: int, received_at: float) -> float:
        """When a reading taken at ``device_ms`` on the board happened, on the host's clock,
        given that it arrived at ``received_at``; never later than that."""
        if self._last_ms is not None:
            step = (device_ms - self._last_ms) % self.period_ms
            # The ticks say the time between two readings only to within whole rounds: the
            # host's time between their arrivals says how many, be it none (an earlier
            # reading than the last) or more than one (a table that stood still for days).
            elapsed_ms = (received_at - self._last_received_at) * 1000
            step += round((elapsed_ms - step) / self.period_ms) * self.period_ms
            self._device_s += step / 1000
        self._last_ms = device_ms
        self._last_received_at = received_at
        bound = received_at - self._device_s
        if self._offset is None:
            self._offset, self._offset_at = bound, received_at
            return received_at
        aged = self._offset + self.drift * (received_at - self._offset_at)
        if bound <= aged:
            self._offset, self._offset_at = bound, received_at
            return received_at
        return self._device_s + aged
