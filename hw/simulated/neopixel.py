"""A stand-in for MicroPython's ``neopixel`` module: remembers what was last shown."""

from __future__ import annotations

from hw.simulated.machine import Pin

RGB = tuple[int, int, int]


class NeoPixel:
    def __init__(self, pin: Pin, n: int, bpp: int = 3, timing: int = 1) -> None:
        self.pin = pin
        self.n = n
        self._buffer: list[RGB] = [(0, 0, 0)] * n
        self.shown: list[RGB] = [(0, 0, 0)] * n
        self.writes = 0

    def __len__(self) -> int:
        return self.n

    def __setitem__(self, index: int, colour: RGB) -> None:
        red, green, blue = colour
        self._buffer[index] = (int(red), int(green), int(blue))

    def __getitem__(self, index: int) -> RGB:
        return self._buffer[index]

    def fill(self, colour: RGB) -> None:
        for index in range(self.n):
            self[index] = colour

    def write(self) -> None:
        """Latch the buffer onto the strip: only now do the lamps change."""
        self.shown = list(self._buffer)
        self.writes += 1
