"""The Pico's entry point, imported with the machine, neopixel and micropython stand-ins."""

from __future__ import annotations

import importlib
import sys
import time
import types
from typing import Any

import pytest

from firmware_bridge.protocol import Hello, encode
from hw.firmware import dealfw
from hw.simulated import machine as machine_standin
from hw.simulated import micropython as micropython_standin
from hw.simulated import neopixel as neopixel_standin


class PoweredOffError(Exception):
    """The test ends the firmware's endless loop."""


class HostOnTheUsbPort:
    """The Pi's end of the cable while its link is down: it sends HELLO, and again every
    100 ms the board spends waiting."""

    def __init__(self, polls: int = 50) -> None:
        self.polls = polls
        self.reads = 0
        self.waiting = bytearray()
        self.received = bytearray()

    def send_hello(self) -> None:
        hello = encode(Hello(0x4242, 0, reply_requested=True).to_frame())
        self.waiting += micropython_standin.arrive(hello)

    def wait(self, seconds: float) -> None:
        for _ in range(max(1, round(seconds / 0.1))):
            self.send_hello()

    # -- main.py's UsbSerial --------------------------------------------------------------

    def read(self) -> bytes | None:
        self.reads += 1
        if self.reads > self.polls:
            raise PoweredOffError()
        if self.reads == 1:
            self.send_hello()
        data, self.waiting = bytes(self.waiting), bytearray()
        return data or None

    def write(self, data: bytes) -> None:
        self.received += data


@pytest.fixture
def main(monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.setitem(sys.modules, "machine", machine_standin)
    monkeypatch.setitem(sys.modules, "neopixel", neopixel_standin)
    monkeypatch.setitem(sys.modules, "micropython", micropython_standin)
    monkeypatch.setitem(sys.modules, "dealfw", dealfw)
    # As MicroPython starts main.py: Ctrl-C on, no jumper.
    monkeypatch.setattr(micropython_standin, "interrupt_char", micropython_standin.CTRL_C)
    monkeypatch.setattr(machine_standin, "grounded", set())
    monkeypatch.setattr(machine_standin, "watchdogs", [])
    main = importlib.import_module("hw.firmware.main")
    monkeypatch.setattr(main, "TicksClock", lambda: types.SimpleNamespace(ticks_ms=lambda: 0))
    return main


@pytest.fixture
def host(main: Any, monkeypatch: pytest.MonkeyPatch) -> HostOnTheUsbPort:
    host = HostOnTheUsbPort()
    monkeypatch.setattr(main, "UsbSerial", lambda: host)
    monkeypatch.setattr(time, "sleep", host.wait)
    return host


def test_main_builds_the_firmware_from_the_board_pins(
    main: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(main, "UsbSerial", lambda: types.SimpleNamespace(read=lambda: None))
    firmware = main.build()
    assert len(firmware.pixels) == 16
    assert sorted(firmware.sensors) == [dealfw.CARD_SLID, dealfw.SHOE_LID, dealfw.BOX_EMPTY]
    assert firmware.sensors[dealfw.CARD_SLID].pin.id == main.CARD_SLID_PIN
    assert firmware.scanner.id == main.SCANNER_UART


def test_a_host_already_sending_when_the_board_starts_gets_an_answer(
    main: Any, host: HostOnTheUsbPort
) -> None:
    """A host frame numbered 0 (its HELLO, its heartbeat) begins with 0x03, Ctrl-C: it must
    not stop main.py, or the layout stays dark after a reset or a replug."""
    with pytest.raises(PoweredOffError):
        main.run()
    answers = dealfw.Decoder().feed(bytes(host.received))
    assert [frame_type for frame_type, _seq, _payload in answers] == [dealfw.HELLO]


def test_the_maintenance_jumper_leaves_the_board_to_mpremote(
    main: Any, host: HostOnTheUsbPort, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(machine_standin, "grounded", {main.MAINTENANCE_PIN})
    main.run()  # returns at once: the REPL has the port
    assert (host.reads, host.received) == (0, bytearray())
    with pytest.raises(micropython_standin.StoppedByCtrlCError):
        micropython_standin.arrive(b"\x03")  # mpremote's Ctrl-C still reaches the REPL


def test_a_firmware_that_stops_is_restarted_by_the_watchdog(
    main: Any, host: HostOnTheUsbPort
) -> None:
    """An error that ends main.py, or a poll that never returns, must not leave the layout
    lit as if the table ran on: a watchdog fed by every pass restarts the board."""
    with pytest.raises(PoweredOffError):
        main.run()
    (watchdog,) = machine_standin.watchdogs
    assert watchdog.timeout == main.WATCHDOG_MS
    assert watchdog.feeds == host.polls  # one a pass: a pass that does not end starves it


def test_the_maintenance_jumper_starts_no_watchdog(
    main: Any, host: HostOnTheUsbPort, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A watchdog cannot be stopped: it would restart the board under mpremote."""
    monkeypatch.setattr(machine_standin, "grounded", {main.MAINTENANCE_PIN})
    main.run()
    assert machine_standin.watchdogs == []
