"""Board entry point on the Pico: builds the firmware from the real pins and runs it.

Pins (see hw/WIRING.md): WS2812 data on GP2, card-slide light barrier on GP10,
shoe lid switch on GP11, box-empty switch on GP12, barcode scanner on UART1
(GP4 TX, GP5 RX, 9600 baud), maintenance jumper on GP14. The Pi is on the USB port.
"""

import select
import sys

import machine  # type: ignore[import-not-found]
import neopixel  # type: ignore[import-not-found]

# MicroPython has no typing module; mypy takes any name TYPE_CHECKING for true.
TYPE_CHECKING = False
if TYPE_CHECKING:
    import dealfw  # type: ignore[import-not-found]

PIXEL_PIN = 2
PIXEL_COUNT = 16  # 13 rank lamps, then the status lamps: link, bets locked, alarm
CARD_SLID_PIN = 10
SHOE_LID_PIN = 11
BOX_EMPTY_PIN = 12
SCANNER_UART = 1
SCANNER_TX_PIN = 4
SCANNER_RX_PIN = 5
# A jumper from here to GND (the pin beside it) at reset keeps the board for mpremote.
MAINTENANCE_PIN = 14
# A firmware that stops (an error ends main.py, or a poll never returns) would leave the lamps
# as they last were, the link lamp lit, as if the table ran on; the watchdog restarts the
# board instead, and the host shows the table on it again. The RP2040 allows up to 8388 ms.
WATCHDOG_MS = 2000


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
    # Imported only now, with Ctrl-C off: compiling dealfw.py takes the Pico a moment.
    import dealfw

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


def maintenance_jumper_fitted() -> bool:
    return bool(machine.Pin(MAINTENANCE_PIN, machine.Pin.IN, machine.Pin.PULL_UP).value() == 0)


def run() -> None:
    import micropython  # type: ignore[import-not-found]

    # Every frame the host sends begins with 0x03, which MicroPython takes for Ctrl-C: left
    # on for even a moment, a host already sending when the board resets or is plugged in
    # stops main.py and the layout stays dark. So Ctrl-C goes off first thing; only the
    # maintenance jumper keeps it on, and then the firmware does not start, so the REPL is
    # free for mpremote.
    if maintenance_jumper_fitted():
        return
    micropython.kbd_intr(-1)
    firmware = build()
    # Started only once the firmware is built, and never with the jumper: a running watchdog
    # cannot be stopped, and would restart the board under mpremote.
    watchdog = machine.WDT(timeout=WATCHDOG_MS)
    while True:
        firmware.poll()
        watchdog.feed()


if __name__ == "__main__":
    run()
