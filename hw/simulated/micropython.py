"""A stand-in for MicroPython's ``micropython`` module: the keyboard interrupt.

MicroPython runs ``main.py`` with Ctrl-C (0x03) as the interrupt character: that byte
arriving on the USB port stops whatever runs and leaves the port to the REPL, until
``kbd_intr(-1)`` turns it off. ``arrive`` brings the host's bytes onto the port the same way.
"""

from __future__ import annotations

CTRL_C = 3
interrupt_char = CTRL_C


class StoppedByCtrlCError(Exception):
    """What the interrupt character does on the board: main.py ends, the REPL takes the port."""


def kbd_intr(char: int) -> None:
    global interrupt_char
    interrupt_char = char


def arrive(data: bytes) -> bytes:
    """Bytes from the host reaching the USB port; they stop main.py if they hold Ctrl-C."""
    if interrupt_char >= 0 and interrupt_char in data:
        raise StoppedByCtrlCError(f"byte {interrupt_char:#04x} from the host stopped main.py")
    return data
