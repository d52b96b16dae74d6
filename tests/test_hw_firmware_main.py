"""The Pico's entry point, imported with the machine and neopixel stand-ins."""

from __future__ import annotations

import importlib
import sys
import types

import pytest

from hw.firmware import dealfw
from hw.simulated import machine as machine_standin
from hw.simulated import neopixel as neopixel_standin


def test_main_builds_the_firmware_from_the_board_pins(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "machine", machine_standin)
    monkeypatch.setitem(sys.modules, "neopixel", neopixel_standin)
    monkeypatch.setitem(sys.modules, "dealfw", dealfw)
    main = importlib.import_module("hw.firmware.main")
    monkeypatch.setattr(main, "UsbSerial", lambda: types.SimpleNamespace(read=lambda: None))
    firmware = main.build()
    assert len(firmware.pixels) == 16
    assert sorted(firmware.sensors) == [dealfw.CARD_SLID, dealfw.SHOE_LID, dealfw.BOX_EMPTY]
    assert firmware.sensors[dealfw.CARD_SLID].pin.id == main.CARD_SLID_PIN
    assert firmware.scanner.id == main.SCANNER_UART
