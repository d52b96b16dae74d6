"""A chain of 74HC595 shift registers on gpiozero's mock SPI, latching like the real chips.

Bits shift in on each rising clock edge while the select line (wired to every
chip's RCLK) is low; when it rises the chain's contents appear on the outputs.
Output 0 is QA of the register nearest the Pi.
"""

from __future__ import annotations

from typing import Any

from gpiozero.pins.mock import MockSPIDevice  # type: ignore[import-untyped]


class ShiftRegisterChain(MockSPIDevice):  # type: ignore[misc]
    def __init__(self, registers: int, *, pin_factory: Any, select_pin: int = 8) -> None:
        super().__init__(clock_pin=11, mosi_pin=10, select_pin=select_pin, pin_factory=pin_factory)
        self.size = registers * 8
        self.outputs: list[bool] = [False] * self.size
        self.latches = 0

    def on_select(self) -> None:
        if self.select_pin.state == self.select_high:
            self.on_start()
            return
        # Whatever was shifted last now sits in the chain; the first bit in is the farthest.
        shifted = self.rx_buf[-self.size :]
        chain = [False] * (self.size - len(shifted)) + [bool(bit) for bit in shifted]
        self.outputs = chain[::-1]
        self.latches += 1

    @property
    def lit(self) -> set[int]:
        return {index for index, on in enumerate(self.outputs) if on}
