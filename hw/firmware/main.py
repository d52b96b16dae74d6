"""Board entry point on the Pico: builds the firmware from the real pins and runs it.

Pins (see hw/WIRING.md): WS2812 data on GP2, card-slide light barrier on GP10,
shoe lid switch on GP11, box-empty switch on GP12, barcode scanner on UART1
(GP4 TX, GP5 RX, 9600 baud). The Pi is on the USB port.
"""

import select
import sys

import dealfw  # type: ignore[import-not-found]
import machine  # type: ignore[import-not-found]
import neopixel  # type: ignore[import-not-found]

PIXEL_PIN = 2
PIXEL_COUNT = 16  # 13 rank lamps, then the status lamps: link, bets locked, alarm
CARD_SLID_PIN = 10
SHOE_LID_PIN = 11
BOX_EMPTY_PIN = 12
SCANNER_UART = 1
SCANNER_TX_PIN = 4
SCANNER_RX_PIN = 5


class UsbSerial:
    """The USB CDC port, read without blocking."""

    def __init__(self) -> None:
        self.poller = select.poll()
        self.poller.register(sys.stdin, select.POLLIN)
        self.stdin = sys.stdin.buffer
        self.stdout = sys.stdout.buffer

    def read(self) -> bytes | None:
        data = bytearray()
        while self.poller.poll(0) and len(data) < 256:
            data.extend(self.stdin.read(1))
        return bytes(data) if data else None

    def write(self, data: bytes) -> None:
        self.stdout.write(data)


class TicksClock:
    def __init__(self) -> None:
        import time

        self.time = time

    def ticks_ms(self) -> int:
        return int(self.time.ticks_ms())  # type: ignore[attr-defined]


def build() -> "dealfw.Firmware":
    pull_up = machine.Pin.PULL_UP

    def switch(pin: int) -> "dealfw.DebouncedInput":
        return dealfw.DebouncedInput(machine.Pin(pin, machine.Pin.IN, pull_up), active_low=True)

    import os

    # Boot takes the same number of ticks every time, so the boot id comes from the
    # ring oscillator behind os.urandom, not from the clock.
    noise = os.urandom(2)
    boot_id = (noise[0] << 8) | noise[1]
    return dealfw.Firmware(
        usb=UsbSerial(),
        pixels=neopixel.NeoPixel(machine.Pin(PIXEL_PIN), PIXEL_COUNT),
        clock=TicksClock(),
        boot_id=boot_id,
        sensors={
            dealfw.CARD_SLID: switch(CARD_SLID_PIN),
            dealfw.SHOE_LID: switch(SHOE_LID_PIN),
            dealfw.BOX_EMPTY: switch(BOX_EMPTY_PIN),
        },
        scanner=machine.UART(
            SCANNER_UART,
            9600,
            tx=machine.Pin(SCANNER_TX_PIN),
            rx=machine.Pin(SCANNER_RX_PIN),
        ),
        restart=machine.reset,
    )


MAINTENANCE_WINDOW_S = 2


def run() -> None:
    import time

    import micropython  # type: ignore[import-not-found]

    # For a moment after reset Ctrl-C still stops main.py, so mpremote can take over;
    # then it is turned off, because a 0x03 byte inside a frame must not interrupt.
    time.sleep(MAINTENANCE_WINDOW_S)
    micropython.kbd_intr(-1)
    firmware = build()
    while True:
        firmware.poll()


if __name__ == "__main__":
    run()
