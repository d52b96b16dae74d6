"""The simulated 74HC595 chain: outputs change only when the latch rises."""

from __future__ import annotations

from gpiozero import SPIDevice  # type: ignore[import-untyped]
from wire_fixtures import mock_pins

from hw.simulated.shift_register import ShiftRegisterChain


def test_bits_show_only_after_the_latch_and_land_in_chain_order() -> None:
    with mock_pins() as factory:
        chain = ShiftRegisterChain(2, pin_factory=factory)
        device = SPIDevice(port=0, device=0, pin_factory=factory)  # makes the pins outputs
        clock, mosi, latch = factory.pin(11), factory.pin(10), factory.pin(8)
        try:
            latch.state = 0
            far_register, near_register = [1, 0, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 1, 1]
            for bit in (*far_register, *near_register):
                mosi.state = bit
                clock.state = 1
                clock.state = 0
            assert chain.lit == set()  # shifted in, not latched
            latch.state = 1
            # The first bit in travelled furthest: output 15, the far register's QH.
            assert chain.lit == {15, 1, 0}
        finally:
            device.close()
