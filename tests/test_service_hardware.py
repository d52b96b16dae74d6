"""The service with its own devices: the LED casekeep on gpiozero's mock pins, the dealer's
buttons, and the simulated microcontroller (the real firmware code) over a pty."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from wire_fixtures import mock_pins

from display.frames import layout_frame
from display.hardware import layout_pixels
from firmware_bridge.clock import SystemClock
from hw.simulated.microcontroller import SimulatedMicrocontroller
from hw.simulated.shift_register import ShiftRegisterChain
from table.cards import Rank
from table.events import AlarmKind
from table.faro.engine import Phase
from table.service.config import Config, HardwareConfig, ReaderConfig, TableConfig
from table.service.hardware import TableHardware
from table.service.journal import Journal
from table.service.run import SimulatedTable
from table.service.table_service import TableService
from tests.mosquitto import wait_until

BOARD_BUTTONS = {"new_deck": 5, "lock_bets": 6, "void": 19}  # hw/board.toml


@pytest.fixture
def rig(
    tmp_path: Path,
) -> Iterator[
    tuple[TableService, TableHardware, Any, ShiftRegisterChain, SimulatedMicrocontroller]
]:
    board = SimulatedMicrocontroller(tmp_path, SystemClock())
    board.start()
    config = Config(
        table=TableConfig(id="t1", journal=str(tmp_path / "j.sqlite")),
        reader=ReaderConfig(kind="simulated", seed=2, cards_per_second=0),
        hardware=HardwareConfig(microcontroller_url=board.url),
    )
    with mock_pins() as factory:
        chain = ShiftRegisterChain(7, pin_factory=factory)
        assert config.hardware is not None
        hardware = TableHardware(config.hardware, pin_factory=factory)
        journal = Journal(config.table.journal, "t1")
        service = TableService(config, journal)
        hardware.attach(service)
        yield service, hardware, factory, chain, board
        hardware.close()
        journal.close()
    board.close()


def test_the_abacus_and_the_layout_lamps_follow_a_whole_deal(rig: Any) -> None:
    service, hardware, _factory, chain, board = rig
    simulated = SimulatedTable(service, seed=2)
    seen_lit = []
    while service.state.phase is not Phase.FINISHED:
        simulated.step()
        hardware.poll()
        seen_lit.append(len(chain.lit))
    assert seen_lit == sorted(seen_lit)  # beads only ever leave the box
    assert chain.lit == set(range(52))
    expected = layout_pixels(layout_frame(service.state))
    assert wait_until(lambda: board.shown == expected, timeout=10, step=hardware.poll)


def press(factory: Any, pin: int) -> None:
    factory.pin(pin).drive_low()
    factory.pin(pin).drive_high()


def test_the_dealers_buttons_become_commands(rig: Any) -> None:
    service, hardware, factory, _chain, _board = rig
    press(factory, BOARD_BUTTONS["new_deck"])
    for command in hardware.poll():
        service.execute(command)
    assert service.state.phase is Phase.AWAITING_SODA
    service.execute_line("card 2C")
    service.execute_line("card 2C")  # the same card again: an alarm
    assert service.state.alarm is not None
    press(factory, BOARD_BUTTONS["void"])
    for command in hardware.poll():
        service.execute(command)
    assert service.state.alarm is None
    press(factory, BOARD_BUTTONS["lock_bets"])
    for command in hardware.poll():
        service.execute(command)
    assert service.state.phase is Phase.LOCKED


def test_the_box_empty_switch_mid_deal_raises_the_short_deal_alarm(rig: Any) -> None:
    service, hardware, _factory, _chain, board = rig
    service.execute_line("shuffle")
    service.execute_line("card 2C")
    assert wait_until(lambda: hardware.link.is_up, timeout=10, step=hardware.poll)
    board.box_empty_pin.drive(0)
    commands: list[Any] = []
    assert wait_until(
        lambda: bool(commands), timeout=10, step=lambda: commands.extend(hardware.poll())
    )
    for command in commands:
        service.execute(command)
    assert service.state.alarm is not None
    assert service.state.alarm.kind is AlarmKind.SHORT_DEAL


def test_a_deck_without_tens_leaves_no_bead_lit_from_the_deal_before(rig: Any) -> None:
    service, _hardware, _factory, chain, _board = rig
    service.execute_line("shuffle")
    for card in ("10H", "9D", "2C"):
        service.execute_line(f"card {card}")
    assert len(chain.lit) == 3
    service.execute_line("void deal")
    service.execute_line("rules monte-bank")  # 40 cards: no eights, nines or tens
    assert chain.lit == set()
    service.execute_line("shuffle")
    service.execute_line("card 2C")
    assert chain.lit == {(Rank.TWO.value - 1) * 4}
