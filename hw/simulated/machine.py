"""A stand-in for MicroPython's ``machine`` module: just what the firmware uses.

Pins are driven by the test (``pin.drive(0)``) the way a sensor drives the real
input, or wired to ground before the board starts (``grounded``) the way a jumper
holds one; the UART is fed by the simulated barcode scanner (``uart.receive(b"...")``).
"""

from __future__ import annotations

# The pins a jumper holds at ground: they read low from the start, pull-up or not.
grounded: set[int] = set()


class Pin:
    IN = 0
    OUT = 1
    PULL_UP = 1
    PULL_DOWN = 2

    def __init__(self, pin_id: int, mode: int = IN, pull: int | None = None) -> None:
        self.id = pin_id
        self.mode = mode
        self.pull = pull
        # An input with a pull-up reads high until something pulls it down.
        self._level = 1 if pull == Pin.PULL_UP and pin_id not in grounded else 0

    def value(self, level: int | None = None) -> int:
        if level is not None:
            self._level = 1 if level else 0
        return self._level

    def drive(self, level: int) -> None:
        self._level = 1 if level else 0


class UART:
    def __init__(self, uart_id: int, baudrate: int = 9600, **pins: object) -> None:
        self.id = uart_id
        self.baudrate = baudrate
        self._rx = bytearray()
        self.sent = bytearray()

    def any(self) -> int:
        return len(self._rx)

    def read(self, size: int = -1) -> bytes | None:
        if not self._rx:
            return None
        size = len(self._rx) if size < 0 else size
        data = bytes(self._rx[:size])
        del self._rx[:size]
        return data

    def write(self, data: bytes) -> int:
        self.sent += data
        return len(data)

    def receive(self, data: bytes) -> None:
        self._rx += data


class WDT:
    """The watchdog: once started it restarts the board unless fed within ``timeout`` ms.
    Every one started is kept in ``watchdogs`` for the test to read."""

    def __init__(self, id: int = 0, timeout: int = 5000) -> None:
        if not 1 <= timeout <= 8388:
            raise ValueError(f"the RP2040's watchdog allows 1..8388 ms, not {timeout}")
        self.timeout = timeout
        self.feeds = 0
        watchdogs.append(self)

    def feed(self) -> None:
        self.feeds += 1


watchdogs: list[WDT] = []


class ResetRequestedError(Exception):
    """Raised by :func:`reset`: the simulated board catches it and reboots the firmware."""


def reset() -> None:
    raise ResetRequestedError()


def unique_id() -> bytes:
    return b"\xde\xa1\x7a\xb1\xe0\x00\x00\x01"
