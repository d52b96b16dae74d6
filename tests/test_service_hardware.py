"""The service with its own devices: the LED casekeep on gpiozero's mock pins, the dealer's
buttons, and the simulated microcontroller (the real firmware code) over a pty."""

from __future__ import annotations

import dataclasses
import io
import json
import logging
import os
import re
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from gpiozero import Button  # type: ignore[import-untyped]
from gpiozero.pins.mock import MockPin  # type: ignore[import-untyped]
from wire_fixtures import STEP, mock_pins, run_board

from display.frames import layout_frame
from display.hardware import ALARM, LINK_UP, OFF, READER_LOST, layout_pixels
from firmware_bridge.clock import ManualClock, SystemClock
from firmware_bridge.protocol import DeviceErrorCode
from hw.board import DEFAULT_BOARD, load_board
from hw.casekeep import STARTING_RANKS
from hw.errors import HardwareError
from hw.firmware import dealfw
from hw.simulated.microcontroller import Faults, SimulatedMicrocontroller
from hw.simulated.shift_register import ShiftRegisterChain
from table.cards import STANDARD_52, Card, Rank
from table.events import AlarmKind, DealFinished, Event
from table.faro.engine import Phase
from table.language import EmptyCmd
from table.service import journal as journal_module
from table.service import table_service as table_service_module
from table.service.config import (
    Config,
    HardwareConfig,
    ReaderConfig,
    TableConfig,
    parse_config,
)
from table.service.hardware import TableHardware
from table.service.journal import Journal, JournalError
from table.service.readers import BarcodeShoeReader
from table.service.run import SimulatedTable, open_table
from table.service.run import run as run_table
from table.service.table_service import JOURNAL_RETRY_SECONDS, TableService
from tests.commands import dealtable_each
from tests.mosquitto import wait_until
from tests.test_service_journal import count_commits
from tests.test_service_readers import (
    EMPTY,
    UNSURE_QH,
    Clock,
    FullDisk,
    camera_unsure_of_qh_before_kd,
    card_times,
    dealt,
    monte_bank,
    scripted_camera,
    sure,
)
from vision.barcode import encode_payload

BOARD_BUTTONS = {"new_deck": 5, "lock_bets": 6, "void": 19, "confirm": 13}  # hw/board.toml
SHIPPED_BOARD = DEFAULT_BOARD.read_text()


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
        hardware = TableHardware(config.hardware, pin_factory=factory, clock=AheadClock())
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
    assert wait_until(lambda: board.shown == expected, step=hardware.poll)


class AheadClock(SystemClock):
    """The real monotonic clock, which a test may move ahead (a button held, with no sleep)."""

    def __init__(self) -> None:
        self.ahead = 0.0

    def monotonic(self) -> float:
        return super().monotonic() + self.ahead

    def advance(self, seconds: float) -> None:
        self.ahead += seconds


def press(factory: Any, pin: int, clock: Any) -> None:
    """The dealer presses a button: it stays pressed a moment longer than the settle time."""
    factory.pin(pin).drive_low()
    clock.advance(load_board().buttons.settle_time * 2)
    factory.pin(pin).drive_high()


def test_the_dealers_buttons_become_commands(rig: Any) -> None:
    service, hardware, factory, _chain, _board = rig
    press(factory, BOARD_BUTTONS["new_deck"], hardware.clock)
    for command in hardware.poll():
        service.execute(command)
    assert service.state.phase is Phase.AWAITING_SODA
    service.execute_line("card 2C")
    service.execute_line("card 2C")  # the same card again: an alarm
    assert service.state.alarm is not None
    press(factory, BOARD_BUTTONS["void"], hardware.clock)
    for command in hardware.poll():
        service.execute(command)
    assert service.state.alarm is None
    press(factory, BOARD_BUTTONS["lock_bets"], hardware.clock)
    for command in hardware.poll():
        service.execute(command)
    assert service.state.phase is Phase.LOCKED


def test_the_box_empty_switch_mid_deal_raises_the_short_deal_alarm(rig: Any) -> None:
    service, hardware, _factory, _chain, board = rig
    service.execute_line("shuffle")
    service.execute_line("card 2C")
    assert wait_until(lambda: hardware.link.is_up, step=hardware.poll)
    board.box_empty_pin.drive(0)
    commands: list[Any] = []
    assert wait_until(lambda: bool(commands), step=lambda: commands.extend(hardware.poll()))
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


def test_a_pin_another_device_holds_refuses_the_hardware_in_one_line(tmp_path: Path) -> None:
    config = HardwareConfig(layout=False)
    with mock_pins() as factory, Button(BOARD_BUTTONS["void"], pin_factory=factory):
        with pytest.raises(HardwareError) as refused:
            TableHardware(config, pin_factory=factory)
        assert str(refused.value).startswith(
            f"the dealer's buttons (board {DEFAULT_BOARD}): "
            "the void button on GPIO19: pin GPIO19 is already in use"
        )
        # Refused, it let go of what it had taken: the casekeep can start again.
        TableHardware(dataclasses.replace(config, buttons=False), pin_factory=factory).close()


class GPIOBusyError(Exception):
    """What the lgpio driver raises for a line another process holds (not a gpiozero error)."""


def test_a_pin_another_program_holds_refuses_the_hardware_in_one_line_naming_it() -> None:
    """lgpio refuses a line the kernel or another program has claimed with its own error:
    the start is refused in one line naming the button and its pin, not a traceback."""
    busy = BOARD_BUTTONS["void"]

    class ClaimedElsewhere(MockPin):  # type: ignore[misc]
        def __init__(self, factory: Any, info: Any) -> None:
            if info.name == f"GPIO{busy}":
                raise GPIOBusyError("GPIO busy")
            super().__init__(factory, info)

    with mock_pins() as factory:
        factory.pin_class = ClaimedElsewhere
        with pytest.raises(HardwareError) as refused:
            TableHardware(HardwareConfig(layout=False), pin_factory=factory)
        assert str(refused.value) == (
            f"the dealer's buttons (board {DEFAULT_BOARD}): "
            f"the void button on GPIO{busy}: GPIO busy"
        )


def test_a_light_barrier_pin_another_program_holds_is_named_in_the_refusal() -> None:
    """The light barrier's line claimed elsewhere (lgpio's "GPIO busy", which names no pin):
    the refusal names the barrier's pin, as it does a button's, so the dealer knows which
    wire or program to look at."""
    busy = load_board().shoe_sensor.pin

    class ClaimedElsewhere(MockPin):  # type: ignore[misc]
        def __init__(self, factory: Any, info: Any) -> None:
            if info.name == f"GPIO{busy}":
                raise GPIOBusyError("GPIO busy")
            super().__init__(factory, info)

    config = HardwareConfig(abacus=False, buttons=False, layout=False, shoe_sensor=True)
    with mock_pins() as factory:
        factory.pin_class = ClaimedElsewhere
        with pytest.raises(HardwareError) as refused:
            TableHardware(config, pin_factory=factory)
        assert str(refused.value) == (
            f"the shoe's light barrier (board {DEFAULT_BOARD}): "
            f"the light barrier on GPIO{busy}: GPIO busy"
        )


# gpiozero tries the hardware SPI driver first, then says it bit-bangs the same pins instead.
@pytest.mark.filterwarnings("ignore:failed to initialize hardware SPI")
def test_a_casekeep_line_another_program_holds_is_named_in_the_refusal() -> None:
    """The casekeep's latch line (CE0) claimed elsewhere (lgpio's "GPIO busy", which names
    no pin): the refusal names the SPI bus and the pins the chain hangs on."""

    class ClaimedElsewhere(MockPin):  # type: ignore[misc]
        def __init__(self, factory: Any, info: Any) -> None:
            if info.name == "GPIO8":
                raise GPIOBusyError("GPIO busy")
            super().__init__(factory, info)

    config = HardwareConfig(buttons=False, layout=False)
    with mock_pins() as factory:
        factory.pin_class = ClaimedElsewhere
        with pytest.raises(HardwareError) as refused:
            TableHardware(config, pin_factory=factory)
        assert str(refused.value) == (
            f"the casekeep abacus (board {DEFAULT_BOARD}): the shift register chain on SPI0 "
            "(SCLK GPIO11, MOSI GPIO10, MISO GPIO9, latch CE0 GPIO8): GPIO busy"
        )


def test_the_hardware_readme_shows_every_key_of_the_hardware_section() -> None:
    """The config's [hardware] section turns the table's devices on: hw/README.md shows each
    key it takes, with its default, so a table is wired up without reading the code."""
    readme = (Path(__file__).parent.parent / "hw" / "README.md").read_text(encoding="utf-8")
    blocks = [block.split("```", 1)[0] for block in readme.split("```toml\n")[1:]]
    (section,) = [block for block in blocks if block.startswith("[hardware]\n")]
    keys = {
        found.group(1)
        for line in section.splitlines()[1:]
        if (found := re.match(r"#?\s*([a-z_]+)\s*=", line))
    }
    assert keys == {field.name for field in dataclasses.fields(HardwareConfig)}
    config = parse_config('[table]\njournal = "j.sqlite"\n' + section, "hw/README.md")
    assert config.hardware == HardwareConfig()


def dealtable(*args: str) -> subprocess.CompletedProcess[str]:
    """``dealtable ARGS`` as a process, left to find gpiozero's default pin factory itself."""
    env = {name: value for name, value in os.environ.items() if name != "GPIOZERO_PIN_FACTORY"}
    return subprocess.run(
        [sys.executable, "-m", "table.service.cli", *args],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )


def board_config(tmp_path: Path, board_text: str) -> tuple[Path, Path]:
    """A simulated table driving its casekeep and buttons on mock pins, as a config and the
    journal it names."""
    board = tmp_path / "board.toml"
    board.write_text(board_text)
    journal = tmp_path / "j.sqlite"
    config = tmp_path / "table.toml"
    config.write_text(
        f'[table]\njournal = "{journal}"\n'
        '[reader]\nkind = "simulated"\ncards_per_second = 0\n'
        "[display]\nterminal = false\n"
        f'[hardware]\nboard = "{board}"\npin_factory = "mock"\nlayout = false\n'
    )
    return config, journal


def test_a_table_on_mock_pins_runs_without_a_pi(tmp_path: Path) -> None:
    config, journal = board_config(tmp_path, SHIPPED_BOARD)
    ran = dealtable("run", "--config", str(config), "--deals", "1")
    assert ran.returncode == 0, ran.stderr
    assert "Traceback" not in ran.stderr
    assert journal.exists()
    checked = dealtable("config", "check", str(config))
    assert checked.returncode == 0, checked.stderr
    assert checked.stdout.endswith(f", board {tmp_path / 'board.toml'}: ok\n")


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            ("spi_port = 0", "spi_port = 1"),
            "casekeep.spi_port must be 0 (SPI0, the only SPI port gpiozero drives), not 1",
        ),
        (
            ("bounce_time = 0.05", 'bounce_time = "50ms"'),
            "buttons.bounce_time must be a number of seconds, 0 or more, not '50ms'",
        ),
    ],
)
def test_a_board_file_run_cannot_use_refuses_the_start_in_one_line(
    tmp_path: Path, change: tuple[str, str], message: str
) -> None:
    config, journal = board_config(tmp_path, SHIPPED_BOARD.replace(*change))
    refused = dealtable("run", "--config", str(config), "--deals", "1")
    assert refused.returncode == 2
    assert refused.stderr == f"dealtable run: {tmp_path / 'board.toml'}: {message}\n"
    assert not journal.exists()
    # config check refuses what run would.
    checked = dealtable("config", "check", str(config))
    assert checked.returncode == 2
    assert checked.stderr == (
        f"dealtable config: {config}: [hardware] board: {tmp_path / 'board.toml'}: {message}\n"
    )


def test_the_layout_goes_dark_when_the_service_stops_after_a_wait(rig: Any) -> None:
    """A stop that waits first (run gives the broker up to 5 s to take the last events)
    polls the board not meanwhile, and the board, asked nothing, says nothing: no dead link.
    The layout still goes dark; before, the link was dropped as "firmware silent" at the
    first poll after the wait, the dark display never went, and the lamps stayed lit."""
    service, hardware, _factory, _chain, board = rig
    service.execute_line("shuffle")
    service.execute_line("card 2C")
    lit = layout_pixels(layout_frame(service.state))
    assert wait_until(lambda: board.shown == lit and hardware.link.idle, step=hardware.poll)
    heard = hardware.link.decoder.stats.frames
    hardware.clock.advance(hardware.link.config.heartbeat_interval)
    # The board answers the heartbeat: all it was asked is answered.
    assert wait_until(lambda: hardware.link.decoder.stats.frames > heard, step=hardware.poll)
    hardware.clock.advance(3.0)
    hardware.close()
    assert board.shown == [OFF] * 16


def test_a_layout_board_with_no_port_named_refuses_the_start_in_one_line(tmp_path: Path) -> None:
    """The layout is on (as unless the config says layout = false) and neither the board
    file nor the config names the layout board's port: run and config check refuse it, naming
    the keys; before, config check said ok and the service tried a port called "" for ever."""
    board = tmp_path / "board.toml"
    board.write_text(SHIPPED_BOARD.replace('url = "hwgrep://VID:PID=2E8A:0005"', ""))
    message = (
        f"{board}: [microcontroller] url: no port named for the layout board (give it here, or "
        "[hardware] microcontroller_url in the table's config; layout = false for a table "
        "without one)"
    )
    with pytest.raises(HardwareError) as refused:
        TableHardware(HardwareConfig(board=str(board), abacus=False, buttons=False))
    assert str(refused.value) == message
    config = tmp_path / "table.toml"
    config.write_text(
        f'[table]\njournal = "{tmp_path / "j.sqlite"}"\n[hardware]\nboard = "{board}"\n'
    )
    with_port = tmp_path / "with-port.toml"
    with_port.write_text(config.read_text() + 'microcontroller_url = "/dev/ttyACM0"\n')
    checked, checked_with_port = dealtable_each(
        [["config", "check", str(config)], ["config", "check", str(with_port)]]
    )
    assert checked.returncode == 2
    assert checked.stderr == f"dealtable config: {config}: [hardware] board: {message}\n"
    assert checked_with_port.returncode == 0, checked_with_port.stderr


def test_the_layout_goes_dark_when_the_service_stops(rig: Any) -> None:
    service, hardware, _factory, _chain, board = rig
    service.execute_line("shuffle")
    service.execute_line("card 2C")
    lit = layout_pixels(layout_frame(service.state))
    assert wait_until(lambda: board.shown == lit and hardware.link.idle, step=hardware.poll)
    assert board.shown[13] == LINK_UP
    hardware.close()
    assert board.shown == [OFF] * 16


def test_the_confirm_button_deals_the_readers_guess_and_void_dismisses_its_question(
    rig: Any,
) -> None:
    """The camera asks which card lies in the box: the confirm button deals its guess; asked
    again, the void button dismisses the question and voids nothing."""
    service, hardware, factory, _chain, board = rig
    service.execute_line("shuffle")
    readings = [*[sure("5S")] * 3, EMPTY, *[UNSURE_QH] * 8]
    camera, questions = scripted_camera(service, readings)
    hardware.answer_questions_of(camera, lambda: 10.0)
    assert [question.guess for question in questions] == [Card.parse("QH")]
    # The layout's alarm lamp tells a dealer with no console that the reader asks.
    assert layout_pixels(layout_frame(service.state))[15] == ALARM
    assert wait_until(lambda: board.shown[15] == ALARM, step=hardware.poll)
    press(factory, BOARD_BUTTONS["confirm"], hardware.clock)
    assert hardware.poll() == []
    assert dealt(service) == ["5S", "QH"] and camera.filter.question is None
    # No alarm waits now; the scripted camera's frames have run out, so it is a reader lost.
    assert layout_pixels(layout_frame(service.state))[15] == READER_LOST
    camera.close()

    readings = [EMPTY, *[sure("KD")] * 3, EMPTY, *[UNSURE_QH] * 8]
    camera, questions = scripted_camera(service, readings)
    hardware.answer_questions_of(camera, lambda: 11.0)
    assert camera.filter.question is not None
    press(factory, BOARD_BUTTONS["void"], hardware.clock)
    assert hardware.poll() == []  # not the engine's void: the question goes, KD stays
    assert camera.filter.question is None
    assert dealt(service) == ["5S", "QH", "KD"]
    camera.close()


def test_a_layout_board_never_reached_is_logged_once_with_why(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A wrong port, or no board plugged in: the table deals on, and the log says so once
    with the reason, not never (the layout would stay dark with no word) nor every retry."""
    clock = Clock()
    url = str(tmp_path / "ttyACM9")
    config = HardwareConfig(microcontroller_url=url, abacus=False, buttons=False)
    hardware = TableHardware(config, clock=clock)
    try:
        for _ in range(200):
            clock.now += 0.5
            hardware.poll()
        assert hardware.link is not None and hardware.link.stats.open_failures > 10
    finally:
        hardware.close()
    said = [record.getMessage() for record in caplog.records if "not reached" in record.message]
    assert len(said) == 1
    assert said[0].startswith(f"layout display at {url} not reached: open failed:")
    assert "No such file or directory" in said[0]


def logged(caplog: pytest.LogCaptureFixture, text: str, hardware: Any) -> logging.LogRecord:
    """The first record of the log that says ``text``, once the hardware has said it."""

    def said() -> list[logging.LogRecord]:
        return [record for record in caplog.records if text in record.message]

    assert wait_until(said, step=hardware.poll)
    return said()[0]


def test_the_boards_report_of_lost_events_is_logged_as_an_error(
    rig: Any, caplog: pytest.LogCaptureFixture
) -> None:
    """The board's queue overflows while the service is not listening (it lost button
    presses or the box-empty switch): the dealer is told to check the box."""
    _service, hardware, _factory, _chain, board = rig
    assert wait_until(lambda: hardware.link.is_up, step=hardware.poll)
    for number in range(300):  # the service busy elsewhere: nothing is taken from the board
        board.scan(f"SHIP-{number}")
    lost = logged(caplog, "lost events", hardware)
    assert lost.levelname == "ERROR"
    assert "check the box" in lost.getMessage()


def test_the_boards_flickering_light_barrier_and_overlong_code_are_said_plainly(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The board's light barrier flickers (dust, a loose wire) and its scanner reads a line
    longer than any code: the log says what flickers and what was not taken, not the
    firmware's bare "sensor 1 (code 3)"."""
    clock = ManualClock(100.0)
    board = SimulatedMicrocontroller(tmp_path, clock)
    config = HardwareConfig(microcontroller_url=board.url, abacus=False, buttons=False)
    hardware = TableHardware(config, clock=clock)
    try:
        run_board(board, clock, 0.3, hardware.poll)
        assert hardware.link is not None and hardware.link.is_up
        for flip in range(40):
            board.block_card_sensor(flip % 2 == 0)
            run_board(board, clock, STEP, hardware.poll)  # shorter than the debounce time
        board.block_card_sensor(False)
        board.scan("X" * 80)
        run_board(board, clock, 0.5, hardware.poll)
    finally:
        board.close()  # first: the manual clock stands still while the layout goes dark
        hardware.close()
    said = [r.getMessage() for r in caplog.records if r.name == "dealtable.hardware"]
    flickers = [line for line in said if "flickers" in line]
    assert flickers == [
        "the light barrier on the layout board flickers (dust, a loose wire, sunlight?): "
        "no card is made from it until it is quiet"
    ]
    overlong = [line for line in said if "longer than" in line]
    assert overlong == [
        "the layout board's scanner read a line longer than any card's code (over 64 "
        "characters): not taken; a card that slid out meanwhile is asked about"
    ]


def test_a_board_that_restarts_mid_deal_is_logged_with_what_it_may_have_lost(
    rig: Any, caplog: pytest.LogCaptureFixture
) -> None:
    """A brown-out restarts the board: the layout is shown again, and the log tells the
    dealer that what the board held when it went may be lost."""
    service, hardware, _factory, _chain, board = rig
    service.execute_line("shuffle")
    service.execute_line("card 2C")
    assert wait_until(lambda: hardware.link.is_up, step=hardware.poll)
    board.reset()
    restarted = logged(caplog, "restarted", hardware)
    assert restarted.levelname == "WARNING"
    assert "check the box" in restarted.getMessage()
    expected = layout_pixels(layout_frame(service.state))
    assert wait_until(lambda: board.shown == expected, step=hardware.poll)


def test_damaged_frames_on_the_boards_line_are_logged_at_most_once_a_minute(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    board = SimulatedMicrocontroller(tmp_path, SystemClock(), faults=Faults(corrupt=0.3), seed=4)
    board.start()
    config = HardwareConfig(microcontroller_url=board.url, abacus=False, buttons=False)
    hardware = TableHardware(config)
    try:
        for number in range(40):
            board.scan(f"SHIP-{number}")  # traffic for the line to damage
        assert wait_until(
            lambda: any("damaged frames" in record.message for record in caplog.records),
            step=hardware.poll,
        )
        for _ in range(200):
            hardware.poll()
        said = [record.getMessage() for record in caplog.records if "damaged" in record.message]
        assert len(said) == 1 and said[0].endswith("check the cable")
    finally:
        hardware.close()
        board.close()


def board_scanner_reader(
    service: TableService, hardware: TableHardware
) -> tuple[BarcodeShoeReader, list[float], list[float]]:
    """A barcode shoe reading the scanner wired to the board, as ``run`` wires it, on a
    stepped clock (``now[0]`` is the time), with the slides its light barrier saw."""
    now = [0.0]
    slides: list[float] = []
    scanner = hardware.board_scanner()
    reader = BarcodeShoeReader(
        "the layout board",
        service,
        lambda: now[0],
        opener=lambda _: scanner,
        monotonic=lambda: now[0],
    )

    def slide_heard(at: float | None, ticks: int | None) -> None:
        slides.append(now[0])
        # The board's time comes on the hardware's clock: as long ago on the stepped one.
        ago = 0.0 if at is None else hardware.clock.monotonic() - at
        reader.card_slid(now[0] - ago, ticks)

    hardware.slide_heard = slide_heard
    return reader, now, slides


def test_the_scanner_wired_to_the_board_deals_the_cards_it_reads(rig: Any) -> None:
    """hw/WIRING.md wires the shoe's scanner to the board: the codes it forwards are dealt."""
    service, hardware, _factory, _chain, board = rig
    service.execute_line("shuffle")
    reader, _now, _slides = board_scanner_reader(service, hardware)
    for card in ("5S", "KD"):
        board.scan(encode_payload(Card.parse(card), 1))
    assert wait_until(
        lambda: dealt(service) == ["5S", "KD"],
        step=lambda: (hardware.poll(), reader.poll()),
    )


def test_the_scanner_wired_to_the_board_is_lost_while_the_board_is_and_back_with_it(
    rig: Any,
) -> None:
    """The board unplugged takes the scanner wired to it: the table is told the barcode
    reader is lost, once, and back once the board is and the scanner reads again."""
    service, hardware, _factory, _chain, board = rig
    service.execute_line("shuffle")
    reader, now, _slides = board_scanner_reader(service, hardware)

    def both() -> None:
        now[0] += 1
        hardware.poll()
        reader.poll()

    assert wait_until(lambda: hardware.link.is_up, step=both)
    board.unplug()
    assert wait_until(lambda: reader.lost, step=both)
    assert "layout board" in service.state.readers_lost["barcode"]
    for _ in range(50):
        both()
    board.plug_in()
    assert wait_until(lambda: hardware.link.is_up, step=both)
    board.scan(encode_payload(Card.parse("5S"), 1))
    assert wait_until(lambda: dealt(service) == ["5S"], step=both)
    told = [
        (e.reader, e.notice.value)
        for e in service.journal.events()
        if e.type_name == "reader_notice"
    ]
    assert told == [("barcode", "reader_lost"), ("barcode", "reader_back")]


def test_a_card_that_slid_out_with_no_code_read_stops_the_table_until_the_dealer_names_it(
    rig: Any,
) -> None:
    """A torn sticker: the light barrier saw the card, the scanner read nothing. The next
    card read must not take its place in the turn."""
    service, hardware, _factory, _chain, board = rig
    service.execute_line("shuffle")
    reader, now, slides = board_scanner_reader(service, hardware)

    def both() -> None:
        hardware.poll()
        reader.poll()

    def slide(code: str | None, then: float) -> None:
        """A card slides past the beam (its code read, if given); ``then`` seconds pass."""
        heard = len(slides)
        board.block_card_sensor(True)
        if code is not None:
            board.scan(code)
        assert wait_until(lambda: len(slides) > heard, step=both)
        board.block_card_sensor(False)
        beam = board.firmware.sensors[dealfw.CARD_SLID]
        assert wait_until(lambda: not beam.state, step=both)  # clear again
        now[0] += then
        both()

    slide(encode_payload(Card.parse("5S"), 1), 0.2)
    assert wait_until(lambda: dealt(service) == ["5S"], step=both)
    slide(None, 2.0)  # the sticker torn off
    alarm = service.state.alarm
    assert alarm is not None and alarm.kind is AlarmKind.UNREAD_CARD
    assert alarm.message.startswith("the shoe read no sticker: a card slid past the light barrier")
    slide(encode_payload(Card.parse("KD"), 1), 0.2)
    assert dealt(service) == ["5S"]  # KD waits for the dealer
    assert reader.answer(Card.parse("9C"), now[0]).refused == []
    assert dealt(service) == ["5S", "9C", "KD"]
    assert service.state.alarm is None


@contextmanager
def barrier_beside_scanner(
    tmp_path: Path,
) -> Iterator[tuple[Clock, TableService, TableHardware, BarcodeShoeReader, Any]]:
    """The light barrier wired to the Pi (hw/WIRING.md, GPIO17) beside a USB scanner on
    loop://, a deck in: the clock, the table, its hardware, the reader, and the beam's pin."""
    clock = Clock()
    config = Config(
        table=TableConfig(id="t1", journal=str(tmp_path / "j.sqlite")),
        reader=ReaderConfig(kind="serial-scanner", url="loop://"),
    )
    with mock_pins() as factory:
        hardware = TableHardware(
            HardwareConfig(abacus=False, buttons=False, layout=False, shoe_sensor=True),
            clock=clock,
            pin_factory=factory,
        )
        service = TableService(config, Journal(config.table.journal, "t1"))
        service.execute_line("shuffle")
        reader = BarcodeShoeReader("loop://", service, lambda: clock.now, monotonic=clock.monotonic)
        hardware.slide_heard = reader.card_slid
        reader.poll()
        try:
            yield clock, service, hardware, reader, factory.pin(17)
        finally:
            hardware.close()
            reader.close()
            service.journal.close()


def test_a_card_past_the_pis_own_light_barrier_with_no_code_read_is_a_question(
    tmp_path: Path,
) -> None:
    """The light barrier wired to the Pi (hw/WIRING.md, GPIO17) beside a USB scanner: a card
    that slid out unread stops the table; one whose code came is dealt."""
    with barrier_beside_scanner(tmp_path) as (clock, service, hardware, reader, beam):

        def slide(code: str | None) -> None:
            beam.drive_low()
            clock.now += 0.01
            beam.drive_high()
            if code is not None:
                assert reader.scanner is not None
                reader.scanner.port.write(code.encode() + b"\r\n")  # type: ignore[attr-defined]
            clock.now += 0.05  # the beam settles: one card
            hardware.poll()
            reader.poll()
            clock.now += 1.5
            reader.poll()

        slide(encode_payload(Card.parse("5S"), 1))
        assert dealt(service) == ["5S"] and service.state.alarm is None
        slide(None)
        alarm = service.state.alarm
        assert alarm is not None and alarm.kind is AlarmKind.UNREAD_CARD


def test_cards_dealt_while_the_loop_is_held_up_are_paired_with_their_codes(
    tmp_path: Path,
) -> None:
    """The Pi's light barrier beside a USB scanner that reads each sticker a moment before its
    card breaks the beam: the loop is held up about a second (a slow write to the SD card)
    while two cards come out, each with its code. Both are dealt, and nothing is asked."""
    with barrier_beside_scanner(tmp_path) as (clock, service, hardware, reader, beam):
        for code in ("5S", "KD"):  # no poll meanwhile: the loop is held up
            assert reader.scanner is not None
            sticker = encode_payload(Card.parse(code), 1)
            reader.scanner.port.write(sticker.encode() + b"\r\n")  # type: ignore[attr-defined]
            clock.now += 0.05
            beam.drive_low()
            clock.now += 0.01
            beam.drive_high()
            clock.now += 0.55
        for _ in range(5):
            hardware.poll()
            reader.poll()
            clock.now += 0.2
        assert service.state.alarm is None
        assert dealt(service) == ["5S", "KD"]


def test_while_another_alarm_waits_the_buttons_leave_the_readers_question_alone(
    tmp_path: Path,
) -> None:
    """A stray card's alarm waits, and the camera's question about a later card waits behind
    it: confirm does nothing yet, void voids the stray card, and then the question is put."""
    table = monte_bank(tmp_path)
    config = Config(table=table, reader=ReaderConfig(kind="camera"))
    service = TableService(config, Journal(table.journal, "t"))
    service.execute_line("shuffle")
    readings = [*[sure("5S")] * 3, EMPTY, *[sure("9H")] * 3, EMPTY, *[sure("KD")] * 3, EMPTY]
    camera, _ = scripted_camera(service, [*readings, *[UNSURE_QH] * 8])
    clock = Clock()
    with mock_pins() as factory:
        hardware = TableHardware(
            HardwareConfig(abacus=False, layout=False), clock=clock, pin_factory=factory
        )
        hardware.attach(service)
        hardware.answer_questions_of(camera, lambda: 10.0)
        press(factory, BOARD_BUTTONS["confirm"], hardware.clock)
        assert hardware.poll() == []
        clock.now += 1
        press(factory, BOARD_BUTTONS["void"], hardware.clock)
        for command in hardware.poll():
            service.execute(command)  # the engine's void: the stray 9H
        camera.poll()
        alarm = service.state.alarm
        assert alarm is not None and alarm.kind is AlarmKind.UNREAD_CARD
        assert dealt(service) == ["5S", "KD"]
        clock.now += 1
        press(factory, BOARD_BUTTONS["confirm"], hardware.clock)
        assert hardware.poll() == []
        assert dealt(service) == ["5S", "KD", "QH"]
        hardware.close()
    camera.close()
    service.journal.close()


def test_the_card_the_confirm_button_deals_carries_the_time_the_camera_asked(
    tmp_path: Path,
) -> None:
    """The camera asks about QH; KD comes out after it and waits. The dealer presses confirm
    a minute later: QH's card_dealt says when the camera asked, before KD's, not when the
    button was pressed."""
    clock = Clock()
    table = TableConfig(id="t", journal=str(tmp_path / "j.sqlite"))
    service = TableService(Config(table=table, reader=ReaderConfig(kind="camera")),
                           Journal(table.journal, "t"), clock)  # fmt: skip
    service.execute_line("shuffle")
    camera, read_at = camera_unsure_of_qh_before_kd(service, clock)
    with mock_pins() as factory:
        hardware = TableHardware(
            HardwareConfig(abacus=False, layout=False), clock=clock, pin_factory=factory
        )
        hardware.attach(service)
        hardware.answer_questions_of(camera, clock)
        clock.now += 60
        press(factory, BOARD_BUTTONS["confirm"], hardware.clock)
        assert hardware.poll() == []
        hardware.close()
    assert dealt(service) == ["5S", "QH", "KD"]
    assert card_times(service) == dict(zip(["5S", "QH", "KD"], read_at, strict=True))
    camera.close()
    service.journal.close()


def test_the_buttons_answer_nothing_the_journal_cannot_keep_and_say_so(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The camera asks about QH, KD waiting behind it, and the disk is full: the confirm
    button's answer is taken back, and the log says it is not taken, never that QH is dealt;
    pressed again within the pause, confirm and void are refused as the console refuses
    them, saying why. Once the journal writes, confirm deals QH and KD."""
    caplog.set_level(logging.INFO, "dealtable.hardware")
    clock = Clock()
    table = TableConfig(id="t", journal=str(tmp_path / "j.sqlite"))
    service = TableService(Config(table=table, reader=ReaderConfig(kind="camera")),
                           Journal(table.journal, "t"), clock)  # fmt: skip
    service.execute_line("shuffle")
    camera, _ = camera_unsure_of_qh_before_kd(service, clock)
    disk = FullDisk(service.journal._db)
    service.journal._db = disk

    def said() -> list[str]:
        told = [r.getMessage() for r in caplog.records if r.name == "dealtable.hardware"]
        caplog.clear()
        return told

    with mock_pins() as factory:
        hardware = TableHardware(
            HardwareConfig(abacus=False, layout=False), clock=clock, pin_factory=factory
        )
        hardware.attach(service)
        hardware.answer_questions_of(camera, clock)
        press(factory, BOARD_BUTTONS["confirm"], hardware.clock)
        assert hardware.poll() == []
        assert dealt(service) == ["5S"] and camera.filter.question is not None
        told = said()
        assert not [line for line in told if "is dealt" in line]
        assert told[0].startswith("button confirm: refused: the journal cannot write")
        for button in ("confirm", "void"):
            clock.now += 0.5  # a press of its own, within the journal's pause
            press(factory, BOARD_BUTTONS[button], hardware.clock)
            assert hardware.poll() == []
            assert said() == [
                f"button {button}: refused: the journal cannot write (journal "
                f"{service.journal.path}: cannot append: database or disk is full): the "
                "question waits; answer it again once the journal can"
            ]
        clock.now += camera.journal_retry_seconds
        press(factory, BOARD_BUTTONS["void"], hardware.clock)  # tried: the journal fails again
        assert hardware.poll() == []
        told = said()
        assert told[0].startswith("button void: refused: the journal cannot write")
        assert not [line for line in told if "dismissed" in line]
        assert dealt(service) == ["5S"] and camera.filter.held_cards == [Card.parse("KD")]
        assert camera.filter.question is not None
        disk.full = False
        clock.now += camera.journal_retry_seconds
        press(factory, BOARD_BUTTONS["confirm"], hardware.clock)
        assert hardware.poll() == []
        assert said() == ["button confirm: QH, the reader's guess (QH or QS?), is dealt"]
        hardware.close()
    assert dealt(service) == ["5S", "QH", "KD"] and service.state.alarm is None
    camera.close()
    service.journal.close()


def test_the_alarm_lamp_is_red_while_the_journal_cannot_write(rig: Any) -> None:
    """A disk full or failing: nothing moves, and a dealer with no console sees why."""
    from table.service.journal import JournalError
    from tests.test_service_readers import FullDisk

    service, hardware, _factory, _chain, board = rig
    service.execute_line("shuffle")
    assert wait_until(lambda: board.shown[15] == OFF, step=hardware.poll)
    disk = FullDisk(service.journal._db)
    service.journal._db = disk
    with pytest.raises(JournalError):
        service.execute_line("card 2C")
    assert wait_until(lambda: board.shown[15] == ALARM, step=hardware.poll)
    disk.full = False
    service.execute_line("card 2C")
    assert wait_until(lambda: board.shown[15] == OFF, step=hardware.poll)


def test_the_casekeep_says_starting_while_the_journal_is_read_then_shows_the_table(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A long journal takes a while to read at start: the casekeep, cleared of the registers'
    power-up state as soon as it is opened, shows the starting pattern meanwhile (not a dark
    casekeep, which looks like a fresh deck), then the cards out once the table is known."""
    config = Config(table=TableConfig(id="t1", journal=str(tmp_path / "j.sqlite")))
    with Journal(config.table.journal, "t1") as journal:
        service = TableService(config, journal)
        service.execute_line("shuffle")
        service.execute_line("card 2C")
        service.execute_line("void")
        service.execute_line("card 3D")
    monkeypatch.setattr(journal_module, "CHECKED_EVERY", 2)  # the check heard record by record
    starting = {(rank.value - 1) * 4 + bead for rank in STARTING_RANKS for bead in range(4)}
    with mock_pins() as factory:
        chain = ShiftRegisterChain(7, pin_factory=factory)
        chain.outputs = [bool(index % 3) for index in range(chain.size)]  # the power-up state
        hardware = TableHardware(HardwareConfig(layout=False, buttons=False), pin_factory=factory)
        try:
            seen_while_read: list[set[int]] = []
            journal, service = open_table(
                config, checking=lambda _seq: seen_while_read.append(set(chain.lit))
            )
            assert seen_while_read and all(lit == starting for lit in seen_while_read)
            hardware.attach(service)
            assert chain.lit == {(Rank.THREE.value - 1) * 4}  # 3D, the one card out
            journal.close()
        finally:
            hardware.close()


def test_a_slide_the_boards_barrier_saw_is_paired_by_the_boards_time_though_heard_late(
    tmp_path: Path,
) -> None:
    """The layout board's light barrier beside a USB scanner: the scanner's code is read at
    once, but the board's report of the slide is heard only 0.7 s later (the loop held up, a
    frame sent again). Paired by the time the board saw the card, it is one card dealt; by
    the time it was heard, it would be a code with no slide and a slide with no code, a
    question for the dealer."""
    clock = ManualClock(100.0)
    board = SimulatedMicrocontroller(tmp_path, clock)
    config = Config(
        table=TableConfig(id="t1", journal=str(tmp_path / "j.sqlite")),
        reader=ReaderConfig(kind="serial-scanner", url="loop://"),
    )
    hardware = TableHardware(
        HardwareConfig(microcontroller_url=board.url, abacus=False, buttons=False), clock=clock
    )
    service = TableService(config, Journal(config.table.journal, "t1"))
    service.execute_line("shuffle")
    reader = BarcodeShoeReader("loop://", service, clock.monotonic, monotonic=clock.monotonic)
    hardware.slide_heard = reader.card_slid
    hardware.attach(service)

    def both(seconds: float) -> None:
        run_board(board, clock, seconds, hardware.poll, reader.poll)

    def slide(code: str, heard_after: float) -> None:
        assert reader.scanner is not None
        reader.scanner.port.write(code.encode() + b"\r\n")  # type: ignore[attr-defined]
        reader.poll()
        board.block_card_sensor(True)
        run_board(board, clock, 0.02)
        board.block_card_sensor(False)
        run_board(board, clock, 0.02)
        clock.advance(heard_after)
        both(1.0)

    try:
        both(0.5)
        assert hardware.link is not None and hardware.link.is_up
        slide(encode_payload(Card.parse("5S"), 1), 0.0)  # heard at once: the board's time known
        slide(encode_payload(Card.parse("KD"), 1), 0.7)
        assert service.state.alarm is None
        assert dealt(service) == ["5S", "KD"]
    finally:
        if hardware.link is not None:
            hardware.link.close()  # no dark layout to wait for: the clock stands still
        hardware.close()
        reader.close()
        service.journal.close()
        board.close()


def board_scanner_config(
    tmp_path: Path, board: SimulatedMicrocontroller, table: TableConfig | None = None
) -> Config:
    """A table (a Faro table unless ``table`` says) dealing from the scanner wired to
    ``board``, with no abacus nor buttons."""
    return Config(
        table=table or TableConfig(id="t1", journal=str(tmp_path / "j.sqlite")),
        reader=ReaderConfig(kind="board-scanner"),
        hardware=HardwareConfig(microcontroller_url=board.url, abacus=False, buttons=False),
    )


# A table's start, run for a while, and stop (see scanner_restarts).
Restarts = tuple[
    Callable[[], tuple[TableService, TableHardware, BarcodeShoeReader]],
    Callable[[TableHardware, BarcodeShoeReader, float], None],
    Callable[[TableService, TableHardware, BarcodeShoeReader], None],
]


def scanner_restarts(
    tmp_path: Path,
    board: SimulatedMicrocontroller,
    clock: ManualClock,
    table: TableConfig | None = None,
) -> Restarts:
    """A table dealing from the board's scanner, to start, run a while and stop at once (no
    dark layout sent, nothing more heard: as a service killed), again and again."""
    config = board_scanner_config(tmp_path, board, table)

    def start() -> tuple[TableService, TableHardware, BarcodeShoeReader]:
        assert config.hardware is not None
        hardware = TableHardware(config.hardware, clock=clock)
        journal = Journal(config.table.journal, config.table.id)
        service = TableService(config, journal, clock.monotonic)
        hardware.attach(service)
        scanner = hardware.board_scanner()
        reader = BarcodeShoeReader(
            "the layout board",
            service,
            clock.monotonic,
            opener=lambda _: scanner,
            monotonic=clock.monotonic,
        )
        hardware.pair_slides_with(reader)  # the board's light barrier, as run wires it
        return service, hardware, reader

    def run(hardware: TableHardware, reader: BarcodeShoeReader, seconds: float) -> None:
        run_board(board, clock, seconds, hardware.poll, reader.poll)

    def stop(service: TableService, hardware: TableHardware, reader: BarcodeShoeReader) -> None:
        assert hardware.link is not None
        hardware.link.close()
        hardware.close()
        reader.close()
        service.journal.close()

    return start, run, stop


def deal_5s_then_turn_the_numbers_nearly_round(
    board: SimulatedMicrocontroller,
    start: Callable[[], tuple[TableService, TableHardware, BarcodeShoeReader]],
    run: Callable[[TableHardware, BarcodeShoeReader, float], None],
    stop: Callable[[TableService, TableHardware, BarcodeShoeReader], None],
) -> None:
    """One run of the table: 5S dealt from the board's scanner, then the shoe's lid opened
    and shut 125 times, so the board's frame numbers (0..255) come nearly round to the card's;
    every frame acknowledged before the table stops."""
    service, hardware, reader = start()
    try:
        service.execute_line("shuffle")
        run(hardware, reader, 0.5)
        board.scan(encode_payload(Card.parse("5S"), 1))
        run(hardware, reader, 0.5)
        assert dealt(service) == ["5S"]
        for _ in range(125):
            board.open_lid(True)
            run(hardware, reader, 0.03)
            board.open_lid(False)
            run(hardware, reader, 0.03)
        run(hardware, reader, 0.5)
        assert not board.firmware.unacked
    finally:
        stop(service, hardware, reader)


def deal_5s_and_slide_it(
    board: SimulatedMicrocontroller,
    service: TableService,
    hardware: TableHardware,
    reader: BarcodeShoeReader,
    run: Callable[[TableHardware, BarcodeShoeReader, float], None],
) -> None:
    """A new deck, 5S's code read by the board's scanner and the card dealt, then the card
    blocking the board's light barrier as it slides out (the slide not yet sent)."""
    service.execute_line("shuffle")
    run(hardware, reader, 0.5)
    board.scan(encode_payload(Card.parse("5S"), 1))
    step_until(board, hardware, reader, lambda: dealt(service) == ["5S"])
    board.block_card_sensor(True)


def step_until(
    board: SimulatedMicrocontroller,
    hardware: TableHardware,
    reader: BarcodeShoeReader,
    done: Callable[[], bool],
) -> None:
    """Step the board and the service, the board's clock standing still, until ``done()``."""
    for _ in range(200):
        board.step()
        hardware.poll()
        reader.poll()
        board.wait(0.0002)
        if done():
            return
    raise AssertionError("not done within 200 steps")


def test_a_board_whose_firmware_speaks_protocol_1_is_told_to_be_flashed_and_deals_nothing(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The service of this release meets a board still running the firmware of the release
    before codes carried the board's ticks: the log says so once, and the table is told the
    barcode reader is lost for it, each naming what to flash and where it says how. A code
    the board reads meanwhile is not taken (its frame is not this version's); the board
    keeps it."""
    clock = ManualClock(100.0)
    board = SimulatedMicrocontroller(tmp_path, clock, protocol=1)
    start, run, stop = scanner_restarts(tmp_path, board, clock)
    service, hardware, reader = start()
    try:
        service.execute_line("shuffle")
        board.scan(encode_payload(Card.parse("5S"), 1))
        run(hardware, reader, 5.0)
        assert dealt(service) == []
        why = (
            "the layout board's firmware speaks protocol 1 and this service 2: flash the "
            "board with the firmware of this release (hw/firmware/README.md)"
        )
        said = [
            record.getMessage()
            for record in caplog.records
            if why in record.message and record.name == "dealtable.hardware"
        ]
        assert len(said) == 1 and "not reached" in said[0]
        assert why in service.state.readers_lost["barcode"]
        assert not any("damaged frames" in record.message for record in caplog.records)
        assert board.firmware.queue, "the board keeps the code"
    finally:
        stop(service, hardware, reader)
        board.close()


def test_a_card_the_board_sends_again_after_a_service_restart_is_not_dealt_twice(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The service took a card from the board's scanner and stopped before its acknowledgement
    left. The same boot of the board sends the frame again to the restarted service: it is
    acknowledged and dropped with a line in the log, no card seen twice. The same sticker
    scanned again later is still a card seen twice."""
    caplog.set_level(logging.INFO, "dealtable.hardware")
    clock = ManualClock(100.0)
    board = SimulatedMicrocontroller(tmp_path, clock)
    five_of_spades = encode_payload(Card.parse("5S"), 1)
    start, run, stop = scanner_restarts(tmp_path, board, clock)

    service, hardware, reader = start()
    try:
        service.execute_line("shuffle")
        run(hardware, reader, 0.5)
        board.scan(five_of_spades)
        for _ in range(200):
            board.step()  # the board sends the code's frame
            hardware.poll()  # the service takes it and acknowledges it
            reader.poll()
            board.wait(0.0002)
            if dealt(service) == ["5S"]:
                break
        assert dealt(service) == ["5S"]
        board.lose_what_the_host_sent()
    finally:
        stop(service, hardware, reader)
    assert board.firmware.unacked, "the board still holds the frame"

    service, hardware, reader = start()
    try:
        run(hardware, reader, 0.5)
        assert dealt(service) == ["5S"]
        assert service.state.alarm is None
        notices = [e for e in service.journal.events() if e.type_name == "reader_notice"]
        assert notices == []
        assert not board.firmware.unacked
        said = [r.getMessage() for r in caplog.records if "sent again" in r.getMessage()]
        assert len(said) == 1 and "not dealt again" in said[0]
        board.scan(five_of_spades)  # the same sticker really read again: a card seen twice
        run(hardware, reader, 0.5)
        notices = [e for e in service.journal.events() if e.type_name == "reader_notice"]
        assert [notice.notice.value for notice in notices] == ["seen_before"]
        assert dealt(service) == ["5S"]
    finally:
        stop(service, hardware, reader)
        board.close()


def test_a_card_scanned_after_a_restart_is_dealt_though_the_boards_numbers_came_round(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The last card dealt from the board's scanner was long ago: the shoe's lid has opened
    and shut 125 times since, and the board's frame numbers (0..255) have nearly come round
    to that card's. Every frame was acknowledged before the service restarted, so the board
    holds none to send again: the first cards scanned after the restart are new cards and
    are dealt, not taken for frames sent again."""
    caplog.set_level(logging.INFO, "dealtable.hardware")
    clock = ManualClock(100.0)
    board = SimulatedMicrocontroller(tmp_path, clock)
    start, run, stop = scanner_restarts(tmp_path, board, clock)

    deal_5s_then_turn_the_numbers_nearly_round(board, start, run, stop)

    service, hardware, reader = start()
    try:
        run(hardware, reader, 0.5)
        for card in ("KD", "2C"):
            board.scan(encode_payload(Card.parse(card), 1))
            run(hardware, reader, 0.5)
        assert dealt(service) == ["5S", "KD", "2C"]
        assert not [r for r in caplog.records if "sent again" in r.getMessage()]
    finally:
        stop(service, hardware, reader)
        board.close()


def test_a_card_scanned_while_the_service_was_down_is_dealt_though_the_numbers_came_round(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The last card dealt from the board's scanner was 250 frames ago (the shoe's lid opened
    and shut 125 times since). The service stops; meanwhile the dealer scans a card and opens
    the lid, and the board holds those frames for the service, numbered round past that old
    card's. Restarted, the service deals the card: it never took it."""
    caplog.set_level(logging.INFO, "dealtable.hardware")
    clock = ManualClock(100.0)
    board = SimulatedMicrocontroller(tmp_path, clock)
    start, run, stop = scanner_restarts(tmp_path, board, clock)

    deal_5s_then_turn_the_numbers_nearly_round(board, start, run, stop)

    board.scan(encode_payload(Card.parse("KD"), 1))
    run_board(board, clock, 0.1)
    for _ in range(3):
        board.open_lid(True)
        run_board(board, clock, 0.03)
        board.open_lid(False)
        run_board(board, clock, 0.03)
    assert len(board.firmware.unacked) == 7, "the board holds the card and the lid's frames"

    service, hardware, reader = start()
    try:
        run(hardware, reader, 1.0)
        assert dealt(service) == ["5S", "KD"]
        assert not [r for r in caplog.records if "sent again" in r.getMessage()]
    finally:
        stop(service, hardware, reader)
        board.close()


def test_a_slide_the_board_sends_again_after_a_restart_asks_about_no_card(
    tmp_path: Path,
) -> None:
    """The board's scanner read 5S and its light barrier then saw the card slide out: one
    card, dealt. The service stopped before the slide's acknowledgement left, and the board
    sends the slide again to the restarted service: it is the slide of 5S's code, which the
    journal's note keeps with the board's ticks the code's frame carried, not a card that
    slid out unread, and the dealer is asked about nothing."""
    clock = ManualClock(100.0)
    board = SimulatedMicrocontroller(tmp_path, clock)
    start, run, stop = scanner_restarts(tmp_path, board, clock)

    service, hardware, reader = start()
    try:
        deal_5s_and_slide_it(board, service, hardware, reader, run)
        run_board(board, clock, 0.01)  # the barrier's level holds long enough to count
        step_until(board, hardware, reader, lambda: not reader.codes_waiting)  # paired with 5S
        hardware.poll()
        board.lose_what_the_host_sent()
    finally:
        stop(service, hardware, reader)
    board.block_card_sensor(False)
    run_board(board, clock, 0.02)
    assert board.firmware.unacked, "the board still holds the slide"

    service, hardware, reader = start()
    try:
        run(hardware, reader, 1.0)
        assert service.state.alarm is None
        assert dealt(service) == ["5S"]
        assert not board.firmware.unacked
    finally:
        stop(service, hardware, reader)
        board.close()


def test_a_card_slid_unread_as_the_service_stopped_is_asked_about_after_the_restart(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A card slid past the board's light barrier with no code read, and the service stopped
    before the reader had waited out the code (and before the slide's acknowledgement left).
    The board sends the slide again: the restarted service asks the dealer about that card,
    as the last run would have, rather than let it go unrecorded."""
    caplog.set_level(logging.INFO, "dealtable.hardware")
    clock = ManualClock(100.0)
    board = SimulatedMicrocontroller(tmp_path, clock)
    start, run, stop = scanner_restarts(tmp_path, board, clock)

    service, hardware, reader = start()
    try:
        service.execute_line("shuffle")
        run(hardware, reader, 0.5)
        board.block_card_sensor(True)
        run_board(board, clock, 0.01)  # the barrier's level holds long enough to count
        step_until(board, hardware, reader, lambda: reader.slides_waiting > 0)
        hardware.poll()
        reader.poll()
        board.lose_what_the_host_sent()
        assert service.state.alarm is None, "not yet asked: the code may come still"
    finally:
        stop(service, hardware, reader)
    board.block_card_sensor(False)
    run_board(board, clock, 0.02)
    assert board.firmware.unacked, "the board still holds the slide"

    service, hardware, reader = start()
    try:
        run(hardware, reader, 1.0)
        alarm = service.state.alarm
        assert alarm is not None and alarm.kind is AlarmKind.UNREAD_CARD
        assert not [r for r in caplog.records if "sent again" in r.getMessage()]
    finally:
        stop(service, hardware, reader)
        board.close()


def test_the_box_empty_switch_the_board_sends_again_after_a_restart_raises_no_alarm_again(
    tmp_path: Path,
) -> None:
    """The box-empty switch closed with cards still to deal: an alarm, which the dealer
    voided (the box was not empty). The service stopped before the switch's acknowledgement
    left; the board sends it again to the restarted service, which knows it took it and
    raises no second alarm."""
    clock = ManualClock(100.0)
    board = SimulatedMicrocontroller(tmp_path, clock)
    start, run, stop = scanner_restarts(tmp_path, board, clock)

    def served(service: TableService, hardware: TableHardware) -> Callable[[], None]:
        def poll() -> None:
            for command in hardware.poll():  # as the service's loop carries them out
                service.execute(command)

        return poll

    service, hardware, reader = start()
    try:
        service.execute_line("shuffle")
        run(hardware, reader, 0.5)
        board.box_empty_pin.drive(0)
        run_board(board, clock, 0.01)  # the switch's level holds long enough to count
        for _ in range(200):
            board.step()
            served(service, hardware)()
            board.wait(0.0002)
            if service.state.alarm is not None:
                break
        alarm = service.state.alarm
        assert alarm is not None and alarm.kind is AlarmKind.SHORT_DEAL
        service.execute_line("void")
        served(service, hardware)()
        board.lose_what_the_host_sent()
    finally:
        stop(service, hardware, reader)
    board.box_empty_pin.drive(1)
    run_board(board, clock, 0.02)
    assert board.firmware.unacked, "the board still holds the switch's frame"

    service, hardware, reader = start()
    try:
        run_board(board, clock, 1.0, served(service, hardware), reader.poll)
        assert service.state.alarm is None
        assert not board.firmware.unacked
    finally:
        stop(service, hardware, reader)
        board.close()


class BoardAlongside(ManualClock):
    """A manual clock the board runs on beside the service while the service waits on its
    link (a clean stop waits for the dark layout to be taken): while ``board`` is set, each
    reading of the clock gives the board a step and moves the clock on by one."""

    def __init__(self, start: float) -> None:
        super().__init__(start)
        self.board: SimulatedMicrocontroller | None = None
        self._stepping = False

    def monotonic(self) -> float:
        board = self.board
        if board is not None and not self._stepping:
            self._stepping = True  # the board reads the clock too
            try:
                board.step()
                board.wait(0.0002)
                self.advance(STEP)
            finally:
                self._stepping = False
        return super().monotonic()


def stop_cleanly(
    clock: BoardAlongside,
    board: SimulatedMicrocontroller,
    service: TableService,
    hardware: TableHardware,
    reader: BarcodeShoeReader,
) -> None:
    """Stop as the service does on SIGTERM: the layout dark, its acknowledgement waited for,
    with the board running on meanwhile."""
    clock.board = board
    try:
        hardware.close()
    finally:
        clock.board = None
    reader.close()
    service.journal.close()


def test_a_card_scanned_as_the_service_stops_is_dealt_after_the_restart(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The dealer scans a card as the service stops cleanly: its code reaches the service
    while it waits for the board to take the dark layout. The board keeps the code and
    sends it to the restarted service, which deals it: no card lost at a stop."""
    caplog.set_level(logging.INFO, "dealtable.hardware")
    clock = BoardAlongside(100.0)
    board = SimulatedMicrocontroller(tmp_path, clock)
    start, run, stop = scanner_restarts(tmp_path, board, clock)

    service, hardware, reader = start()
    try:
        service.execute_line("shuffle")
        run(hardware, reader, 0.5)
        board.scan(encode_payload(Card.parse("5S"), 1))
        run(hardware, reader, 0.5)
        assert dealt(service) == ["5S"]
        board.scan(encode_payload(Card.parse("KD"), 1))
        run_board(board, clock, 0.004)  # the board sends the code; the service stops
    finally:
        stop_cleanly(clock, board, service, hardware, reader)
    assert board.shown == [OFF] * 16, "the layout went dark"

    run_board(board, clock, 0.1)
    service, hardware, reader = start()
    try:
        run(hardware, reader, 1.0)
        assert dealt(service) == ["5S", "KD"]
        assert service.state.alarm is None
        assert not board.firmware.unacked
        assert not [r for r in caplog.records if "sent again" in r.getMessage()]
    finally:
        stop(service, hardware, reader)
        board.close()


def test_the_slide_of_a_card_dealt_as_the_service_stops_asks_about_no_card_after_it(
    tmp_path: Path,
) -> None:
    """5S's code was read and the card dealt; its slide past the board's light barrier
    reaches the service as it stops cleanly. The slide is the dealt card's, settled then:
    the restarted service asks the dealer about no card."""
    clock = BoardAlongside(100.0)
    board = SimulatedMicrocontroller(tmp_path, clock)
    start, run, stop = scanner_restarts(tmp_path, board, clock)

    service, hardware, reader = start()
    try:
        deal_5s_and_slide_it(board, service, hardware, reader, run)
        run_board(board, clock, 0.01)  # the board sends the slide; the service stops
    finally:
        stop_cleanly(clock, board, service, hardware, reader)
    board.block_card_sensor(False)
    run_board(board, clock, 0.1)

    service, hardware, reader = start()
    try:
        run(hardware, reader, 1.0)
        assert service.state.alarm is None
        assert dealt(service) == ["5S"]
    finally:
        stop(service, hardware, reader)
        board.close()


def test_a_card_slid_unread_as_the_service_stops_is_asked_about_after_the_restart(
    tmp_path: Path,
) -> None:
    """A card slid past the board's light barrier with no code read as the service stopped
    cleanly: the board keeps the slide, and the restarted service asks the dealer about the
    card."""
    clock = BoardAlongside(100.0)
    board = SimulatedMicrocontroller(tmp_path, clock)
    start, run, stop = scanner_restarts(tmp_path, board, clock)

    service, hardware, reader = start()
    try:
        service.execute_line("shuffle")
        run(hardware, reader, 0.5)
        board.block_card_sensor(True)
        run_board(board, clock, 0.01)  # the board sends the slide; the service stops
    finally:
        stop_cleanly(clock, board, service, hardware, reader)
    board.block_card_sensor(False)
    run_board(board, clock, 0.1)

    service, hardware, reader = start()
    try:
        run(hardware, reader, 1.0)
        alarm = service.state.alarm
        assert alarm is not None and alarm.kind is AlarmKind.UNREAD_CARD
    finally:
        stop(service, hardware, reader)
        board.close()


class ScanAsTheDealEnds(TableHardware):
    """The table's devices, with the dealer scanning the next deck's soda as the deal ends:
    the board sends its code at once, before the service's next poll of the board. ``stop``
    is set then too, if given (a SIGTERM as the deal ends)."""

    def __init__(
        self,
        config: HardwareConfig,
        clock: BoardAlongside,
        board: SimulatedMicrocontroller,
        code: str,
        stop: threading.Event | None,
    ) -> None:
        super().__init__(config, clock=clock)
        self._board = board
        self._code = code
        self._stop = stop

    def attach(self, service: TableService) -> None:
        super().attach(service)
        service.listeners.append(self._deal_ended)

    def _deal_ended(self, events: Sequence[Event]) -> None:
        if not any(isinstance(event, DealFinished) for event in events):
            return
        self._board.scan(self._code)
        self._board.step()  # the code's frame leaves the board ...
        assert self.link is not None
        self.link.wait(1.0)  # ... and reaches the service's end of the line
        if self._stop is not None:
            self._stop.set()


@pytest.mark.parametrize("end", ["deals", "until_deal", "signal"])
def test_a_card_scanned_as_the_last_deal_of_a_run_ends_is_dealt_in_the_next(
    tmp_path: Path, end: str
) -> None:
    """`dealtable run --deals 1` (or --until-deal 1, or a SIGTERM) at a table dealt from
    the board's scanner: the hoc ends the deal and the run, and the dealer scans the next
    deck's soda as it does. Its code is no card lost: the board keeps it, and the next run
    deals it once the dealer has said the new deck is in."""
    clock = BoardAlongside(100.0)
    board = SimulatedMicrocontroller(tmp_path, clock)
    config = board_scanner_config(tmp_path, board)
    with Journal(config.table.journal, config.table.id) as journal:
        deck = deal_all_but_the_hoc(TableService(config, journal))
    board.scan(encode_payload(Card.parse(deck[-1]), 1))  # the hoc

    stop = threading.Event() if end == "signal" else None
    assert config.hardware is not None
    soda = encode_payload(Card.parse("5S"), 2)
    devices = ScanAsTheDealEnds(config.hardware, clock, board, soda, stop)
    ends: dict[str, dict[str, Any]] = {
        "deals": {"deals": 1},
        "until_deal": {"until_deal": 1},
        "signal": {"stop": stop},
    }
    clock.board = board  # the board runs on beside the service, to the dark layout and on
    try:
        status = run_table(
            config,
            out=io.StringIO(),
            console=io.StringIO(),
            clock=clock.monotonic,
            monotonic=clock.monotonic,
            hardware=devices,
            **ends[end],
        )
    finally:
        clock.board = None
    assert status == 0
    assert board.shown == [OFF] * 16, "the layout went dark"

    run_board(board, clock, 0.1)
    start, run, stop_at_once = scanner_restarts(tmp_path, board, clock)
    service, hardware, reader = start()
    try:
        assert len(dealt(service)) == 52 and service.faro.phase is Phase.FINISHED
        service.execute_line("shuffle")
        run(hardware, reader, 1.0)
        assert dealt(service) == ["5S"]
        assert service.state.alarm is None
        assert not board.firmware.unacked
    finally:
        stop_at_once(service, hardware, reader)
        board.close()


def killed(service: TableService, hardware: TableHardware, reader: BarcodeShoeReader) -> None:
    """A service killed (SIGKILL, the Pi's power cut): nothing more written or sent, the
    journal as it stands."""
    assert hardware.link is not None
    hardware.link.close()
    service.journal.close()


def test_a_card_whose_code_the_service_took_as_it_was_killed_is_dealt_after_the_restart(
    tmp_path: Path,
) -> None:
    """The service took the board's frame of 5S's code and was killed before the reader had
    read the code (so before its card reached the journal), the board having heard from the
    service meanwhile. The board still holds the frame and the restarted service deals 5S:
    the board forgets a frame only once the journal keeps what it brought."""
    clock = ManualClock(100.0)
    board = SimulatedMicrocontroller(tmp_path, clock)
    start, run, stop = scanner_restarts(tmp_path, board, clock)

    service, hardware, reader = start()
    try:
        service.execute_line("shuffle")
        run(hardware, reader, 0.5)
        board.scan(encode_payload(Card.parse("5S"), 1))
        assert hardware.scanner is not None
        scanner = hardware.scanner
        for _ in range(200):
            board.step()
            hardware.poll()  # the service takes the code's frame; the reader reads it later
            board.wait(0.0002)
            if scanner.waiting:
                break
        assert scanner.waiting and dealt(service) == []
        run_board(board, clock, 0.01)  # the board hears what the service sent meanwhile
    finally:
        killed(service, hardware, reader)
    assert board.firmware.unacked, "the board still holds the code's frame"

    service, hardware, reader = start()
    try:
        run(hardware, reader, 1.0)
        assert dealt(service) == ["5S"]
        assert service.state.alarm is None
        assert not board.firmware.unacked
    finally:
        stop(service, hardware, reader)
        board.close()


def test_a_card_slid_unread_as_the_service_was_killed_is_asked_about_after_the_restart(
    tmp_path: Path,
) -> None:
    """A card slid past the board's light barrier with no code read; the service took the
    slide and was killed while the reader waited out the code, the board having heard from
    the service meanwhile. The board still holds the slide and the restarted service asks
    the dealer about the card, which would otherwise go unrecorded."""
    clock = ManualClock(100.0)
    board = SimulatedMicrocontroller(tmp_path, clock)
    start, run, stop = scanner_restarts(tmp_path, board, clock)

    service, hardware, reader = start()
    try:
        service.execute_line("shuffle")
        run(hardware, reader, 0.5)
        board.block_card_sensor(True)
        run_board(board, clock, 0.01)  # the barrier's level holds long enough to count
        step_until(board, hardware, reader, lambda: reader.slides_waiting > 0)
        run_board(board, clock, 0.05, hardware.poll, reader.poll)  # less than pair_within
        assert reader.slides_waiting and service.state.alarm is None
    finally:
        killed(service, hardware, reader)
    board.block_card_sensor(False)
    run_board(board, clock, 0.02)
    assert board.firmware.unacked, "the board still holds the slide"

    service, hardware, reader = start()
    try:
        run(hardware, reader, 1.0)
        alarm = service.state.alarm
        assert alarm is not None and alarm.kind is AlarmKind.UNREAD_CARD
    finally:
        stop(service, hardware, reader)
        board.close()


def test_a_card_held_for_a_full_disk_is_kept_by_the_board_and_dealt_after_a_restart(
    tmp_path: Path,
) -> None:
    """The disk fills as the board's scanner reads 5S: the reader holds the card, and the
    board keeps its frame unacknowledged until the journal keeps it. The dealer is told not
    to give the card at the console (the board sends it again to a restarted service, and it
    would be dealt twice); restarted with the disk cleared, the table deals it once."""
    clock = ManualClock(100.0)
    board = SimulatedMicrocontroller(tmp_path, clock)
    start, run, stop = scanner_restarts(tmp_path, board, clock)
    said: list[str] = []

    service, hardware, reader = start()
    try:
        service.execute_line("shuffle")
        run(hardware, reader, 0.5)
        service.journal._db = FullDisk(service.journal._db)
        board.scan(encode_payload(Card.parse("5S"), 1))
        run_board(board, clock, 0.5, hardware.poll, lambda: said.extend(reader.poll().refused))
        assert dealt(service) == []
    finally:
        stop(service, hardware, reader)
    held = [line for line in said if line.startswith("held until the journal can write: 5S")]
    assert held, said
    assert "'card" not in held[0] and "sends it again" in held[0]

    service, hardware, reader = start()
    try:
        run(hardware, reader, 0.5)
        assert dealt(service) == ["5S"]
    finally:
        stop(service, hardware, reader)
        board.close()


class BoxEmptyOnAFlakyDisk(TableHardware):
    """The table's devices, with the disk full for just the turn of the service's loop that
    carries out the box-empty switch's command, and freed before the next poll of the board.
    ``stop`` is set a few turns after an alarm is raised, or after 2000 turns."""

    def __init__(
        self, config: HardwareConfig, clock: BoardAlongside, stop: threading.Event
    ) -> None:
        super().__init__(config, clock=clock)
        self._stop = stop
        self.disk: FullDisk | None = None
        self.refused = False
        self.turns_after = 0
        self.alarm_turns = 0

    def attach(self, service: TableService) -> None:
        super().attach(service)
        self.disk = FullDisk(service.journal._db)
        self.disk.full = False
        service.journal._db = self.disk

    def poll(self) -> list[Any]:
        assert self.disk is not None
        self.disk.full = False  # freed before this poll, if it was full
        commands = super().poll()
        if not self.refused and any(isinstance(command, EmptyCmd) for command in commands):
            self.refused = True
            self.disk.full = True  # the switch's command meets the full disk
        if self.refused:
            self.turns_after += 1
            if self.service.state.alarm is not None:
                self.alarm_turns += 1
            if self.turns_after >= 2000 or self.alarm_turns >= 20:
                self._stop.set()
        return commands


def test_the_box_empty_switch_the_journal_refused_raises_its_alarm_once_it_can_write(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The box-empty switch closes mid-deal as the disk is full: the journal cannot keep the
    short deal's alarm. The disk is freed a moment later: the alarm is raised then, and the
    board forgets the switch only once it has been; the log does not call it refused."""
    caplog.set_level(logging.INFO)
    # The journal is tried again sooner than its two seconds: each turn of the loop waits
    # for the console a fiftieth of a second of real time, and the clock here moves on only
    # a few thousandths a turn, so the two seconds took over three hundred turns.
    monkeypatch.setattr(table_service_module, "JOURNAL_RETRY_SECONDS", 0.2)
    clock = BoardAlongside(100.0)
    board = SimulatedMicrocontroller(tmp_path, clock)
    config = board_scanner_config(tmp_path, board)
    with Journal(config.table.journal, config.table.id) as journal:
        service = TableService(config, journal)
        for line in ["shuffle", "card 2C", "card 3D"]:
            service.execute_line(line)
    board.box_empty_pin.drive(0)
    stop = threading.Event()
    assert config.hardware is not None
    devices = BoxEmptyOnAFlakyDisk(config.hardware, clock, stop)
    clock.board = board
    try:
        status = run_table(
            config,
            out=io.StringIO(),
            console=io.StringIO(),
            clock=clock.monotonic,
            monotonic=clock.monotonic,
            hardware=devices,
            stop=stop,
        )
    finally:
        clock.board = None
    assert status == 0 and devices.refused
    with Journal(config.table.journal, config.table.id) as journal:
        alarm = TableService(config, journal).state.alarm
    assert alarm is not None and alarm.kind is AlarmKind.SHORT_DEAL
    assert not board.firmware.unacked
    assert not [r for r in caplog.records if "refused from the table's devices" in r.message]
    board.close()


def test_a_card_held_for_a_full_disk_is_kept_by_the_board_till_the_journal_has_it(
    tmp_path: Path,
) -> None:
    """The disk fills as the board's scanner reads 5S: the reader holds the card. The disk is
    freed, and the service, killed in the turn of its loop that polled the board before the
    reader offered the card to the journal again, has not journaled it: the board still
    holds its frame, and the restarted service deals it."""
    clock = ManualClock(100.0)
    board = SimulatedMicrocontroller(tmp_path, clock)
    start, run, stop = scanner_restarts(tmp_path, board, clock)

    service, hardware, reader = start()
    try:
        service.execute_line("shuffle")
        run(hardware, reader, 0.5)
        disk = FullDisk(service.journal._db)
        service.journal._db = disk
        board.scan(encode_payload(Card.parse("5S"), 1))
        run(hardware, reader, 0.5)
        assert reader.holding_for_the_journal() == [Card.parse("5S")]
        disk.full = False  # the disk freed
        service.try_the_journal(clock.monotonic() + 10.0)
        assert not service.journal_trouble
        hardware.poll()  # the loop's turn polls the board before the reader
        run_board(board, clock, 0.01)  # the board hears what the service sent
        assert dealt(service) == []
    finally:
        killed(service, hardware, reader)
    assert board.firmware.unacked, "the board still holds the code's frame"

    service, hardware, reader = start()
    try:
        run(hardware, reader, 0.5)
        assert dealt(service) == ["5S"]
        assert not board.firmware.unacked
    finally:
        stop(service, hardware, reader)
        board.close()


def deal_from_the_board(
    board: SimulatedMicrocontroller, clock: ManualClock, card: str, *polls: Callable[[], Any]
) -> None:
    """The board's scanner reads ``card``'s sticker, and the card slides out past its light
    barrier, with the service's ``polls`` polled meanwhile."""
    board.scan(encode_payload(Card.parse(card), 1))
    run_board(board, clock, 0.05, *polls)
    board.block_card_sensor(True)
    run_board(board, clock, 0.05, *polls)
    board.block_card_sensor(False)
    run_board(board, clock, 0.2, *polls)


def test_cards_the_board_kept_through_a_full_disk_are_dealt_once_it_is_freed(
    tmp_path: Path,
) -> None:
    """The disk fills mid-deal, and the dealer deals on from the board's scanner: the first
    cards wait in the reader, the board keeps those after them, codes and slides, in its
    queue. Once the disk is freed the board sends them, their slides with the times the cards
    broke the beam, long before: each is paired with its code, and every card is dealt in
    its order, none asked about as a card that slid out unread."""
    clock = ManualClock(100.0)
    board = SimulatedMicrocontroller(tmp_path, clock)
    start, run, stop = scanner_restarts(tmp_path, board, clock)
    cards = ["5S", "KD", "2C", "9H", "AS", "3D"]

    service, hardware, reader = start()
    try:
        service.execute_line("shuffle")
        run(hardware, reader, 0.5)
        disk = FullDisk(service.journal._db)
        service.journal._db = disk
        for card in cards:
            deal_from_the_board(board, clock, card, hardware.poll, reader.poll)
        assert dealt(service) == []
        assert board.firmware.queue, "the board keeps the cards read once its window is full"
        disk.full = False
        service.try_the_journal(clock.monotonic() + 10.0)
        run(hardware, reader, 2.0)
        assert service.state.alarm is None
        assert dealt(service) == cards
        assert not board.firmware.unacked and not board.firmware.queue
    finally:
        stop(service, hardware, reader)
        board.close()


def test_the_boards_queue_and_window_are_those_the_service_counts_on() -> None:
    """The service tells the dealer how many cards the board keeps for a full disk from the
    board's window and queue: those of the firmware the board runs."""
    from firmware_bridge.link import BOARD_WINDOW
    from table.service.hardware import BOARD_QUEUE_LIMIT

    assert BOARD_WINDOW == dealfw.Firmware.WINDOW
    assert BOARD_QUEUE_LIMIT == dealfw.Firmware.QUEUE_LIMIT


def test_the_dealer_is_told_once_to_stop_dealing_when_the_board_holds_cards_for_a_full_disk(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The disk fills mid-deal, and the dealer deals on from the board's scanner. The first
    cards (their codes and slides, a window of the board's frames) wait on the journal in the
    reader, each named; the board keeps every card after them in its queue, where the reader
    cannot name them. As the board's window fills the dealer is told, once, at the console
    and in the log, to stop dealing until the journal writes, that the board keeps the cards
    read meanwhile and about how many more it can keep."""
    clock = ManualClock(100.0)
    board = SimulatedMicrocontroller(tmp_path, clock)
    start, run, stop = scanner_restarts(tmp_path, board, clock)
    cards = ["5S", "KD", "2C", "9H", "AS", "3D"]
    said: list[str] = []
    queued_when_told: list[int] = []

    service, hardware, reader = start()

    def read() -> None:
        refused = reader.poll().refused
        if any("stop dealing" in line for line in refused):
            queued_when_told.append(len(board.firmware.queue))
        said.extend(refused)

    try:
        service.execute_line("shuffle")
        run(hardware, reader, 0.5)
        disk = FullDisk(service.journal._db)
        service.journal._db = disk
        for card in cards:
            deal_from_the_board(board, clock, card, hardware.poll, read)
        assert dealt(service) == []
        assert board.firmware.queue, "the board keeps the cards read once its window is full"
        told = [line for line in said if "stop dealing" in line]
        assert len(told) == 1, said
        assert "board keeps" in told[0] and "about 85 more cards" in told[0]
        assert "do not give them at the console" in told[0]
        assert queued_when_told == [0], "told as the window filled, before a card waited"
        assert [r.levelname for r in caplog.records if "stop dealing" in r.message] == ["ERROR"]
    finally:
        stop(service, hardware, reader)
        board.close()


def test_events_the_board_lost_for_a_full_disk_are_told_as_cards_it_may_have_lost(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The disk stays full while the dealer deals on from the board's scanner, past what the
    board's queue keeps: the board drops its oldest events, codes among them, and reports its
    queue full. The dealer hears at once, as a reader alarm at the console, that cards
    scanned may be among the events lost; the table's `missed_card` notice says it too once
    the journal writes again."""
    caplog.set_level(logging.INFO)
    clock = ManualClock(100.0)
    board = SimulatedMicrocontroller(tmp_path, clock)
    start, run, stop = scanner_restarts(tmp_path, board, clock)
    alarms: list[str] = []

    service, hardware, reader = start()

    def read() -> None:
        alarms.extend(alarm.message for alarm in reader.poll().alarms)

    try:
        service.execute_line("shuffle")
        run(hardware, reader, 0.5)
        disk = FullDisk(service.journal._db)
        service.journal._db = disk
        deal_from_the_board(board, clock, "5S", hardware.poll, read)
        for _ in range(dealfw.Firmware.QUEUE_LIMIT + 20):  # the same sticker, again and again
            board.scan(encode_payload(Card.parse("KD"), 1))
        run_board(board, clock, 0.5, hardware.poll, read)
        assert board.firmware.counts["dropped"] > 0
        lost = [message for message in alarms if "lost" in message]
        assert len(lost) == 1, alarms
        assert "cards scanned" in lost[0] and "check the dealt cards" in lost[0]
        error = [r for r in caplog.records if r.levelname == "ERROR" and "board lost" in r.message]
        assert error and "cards scanned" in error[0].message
        disk.full = False
        service.try_the_journal(clock.monotonic() + 10.0)
        run(hardware, reader, 0.5)
        notices = [e for e in service.journal.events() if e.type_name == "reader_notice"]
        assert [(n.notice.value, n.message) for n in notices] == [("missed_card", lost[0])]
    finally:
        stop(service, hardware, reader)
        board.close()


def slide_then_scan(
    board: SimulatedMicrocontroller, clock: ManualClock, card: str, *polls: Callable[[], Any]
) -> None:
    """The card breaks the board's light barrier before its sticker is read, then slides on
    out, with the service's ``polls`` polled meanwhile."""
    board.block_card_sensor(True)
    run_board(board, clock, 0.05, *polls)
    board.scan(encode_payload(Card.parse(card), 1))
    run_board(board, clock, 0.05, *polls)
    board.block_card_sensor(False)
    run_board(board, clock, 0.2, *polls)


def test_a_card_dealt_from_the_boards_scanner_costs_the_journal_one_commit(
    tmp_path: Path,
) -> None:
    """Each card dealt from the board's scanner (its code, its slide past the light barrier
    and the beam clear again: three frames of the board) is one commit of the journal, a
    write and a sync of the Pi's SD card, whether its code comes before its slide or after:
    the journal's note of the board's frames rides in the card's own transaction, the first
    card after the start's too: its code's frame carries the board's ticks, which the note
    keeps for its slide. The board is left holding nothing."""
    clock = ManualClock(100.0)
    board = SimulatedMicrocontroller(tmp_path, clock)
    start, run, stop = scanner_restarts(tmp_path, board, clock)
    cards = ["KD", "2C", "9H", "AS", "3D", "7C", "JH", "4D", "QS", "8H"]

    service, hardware, reader = start()
    try:
        service.execute_line("shuffle")
        run(hardware, reader, 0.5)
        commits = count_commits(service.journal)
        deal_from_the_board(board, clock, "5S", hardware.poll, reader.poll)
        assert commits.count == 1
        commits.count = 0
        for index, card in enumerate(cards):
            deal = deal_from_the_board if index % 2 else slide_then_scan
            deal(board, clock, card, hardware.poll, reader.poll)
        assert dealt(service) == ["5S", *cards]
        assert service.state.alarm is None
        assert commits.count == len(cards)
        assert not board.firmware.unacked
    finally:
        stop(service, hardware, reader)
        board.close()


def test_the_shoes_lid_opened_and_shut_costs_the_journal_a_note_every_128_frames(
    tmp_path: Path,
) -> None:
    """The shoe's lid, opened and shut, asks the journal nothing: its frames are
    acknowledged as they come, and the journal's note of the board's frames is written only
    every 128 of them, so that the frame it names stays far behind those the board holds."""
    clock = ManualClock(100.0)
    board = SimulatedMicrocontroller(tmp_path, clock)
    start, run, stop = scanner_restarts(tmp_path, board, clock)

    service, hardware, reader = start()
    try:
        service.execute_line("shuffle")
        run(hardware, reader, 0.5)
        commits = count_commits(service.journal)
        for _ in range(125):
            board.open_lid(True)
            run(hardware, reader, 0.03)
            board.open_lid(False)
            run(hardware, reader, 0.03)
        assert commits.count == 1
        assert not board.firmware.unacked
    finally:
        stop(service, hardware, reader)
        board.close()


def test_a_slide_paired_with_its_code_and_sent_again_after_a_restart_asks_about_no_card(
    tmp_path: Path,
) -> None:
    """2C is dealt, then 5S's code is read, its card dealt, and its slide past the board's
    light barrier paired with it: the slide costs the journal no note of its own. The
    service is killed as the slide's acknowledgement is lost, and the board sends the slide
    again: the restarted service pairs it with 5S's code by the board's clock, from the note
    kept with 5S's card, and asks about nothing."""
    clock = ManualClock(100.0)
    board = SimulatedMicrocontroller(tmp_path, clock)
    start, run, stop = scanner_restarts(tmp_path, board, clock)

    service, hardware, reader = start()
    try:
        service.execute_line("shuffle")
        run(hardware, reader, 0.5)
        deal_from_the_board(board, clock, "2C", hardware.poll, reader.poll)
        board.scan(encode_payload(Card.parse("5S"), 1))
        step_until(board, hardware, reader, lambda: dealt(service) == ["2C", "5S"])
        run_board(board, clock, 0.05)  # the card reaches the beam
        board.block_card_sensor(True)
        run_board(board, clock, 0.01)  # the barrier's level holds long enough to count
        commits = count_commits(service.journal)
        step_until(board, hardware, reader, lambda: not reader.codes_waiting)
        assert commits.count == 0
        board.lose_what_the_host_sent()
    finally:
        killed(service, hardware, reader)
    board.block_card_sensor(False)
    run_board(board, clock, 0.02)
    assert board.firmware.unacked, "the board still holds the slide"

    service, hardware, reader = start()
    try:
        run(hardware, reader, 1.0)
        assert service.state.alarm is None
        assert dealt(service) == ["2C", "5S"]
        assert not board.firmware.unacked
    finally:
        stop(service, hardware, reader)
        board.close()


def slide_while_down_and_restart(
    board: SimulatedMicrocontroller,
    clock: ManualClock,
    restarts: Restarts,
    cards: list[str],
) -> None:
    """The last card dealt slides past the board's light barrier while the service is down;
    the board holds the slide for the restarted service, which pairs it with the card's code
    and asks the dealer about nothing: ``cards`` are dealt, each once."""
    start, run, stop = restarts
    run_board(board, clock, 0.05)
    board.block_card_sensor(True)
    run_board(board, clock, 0.05)
    board.block_card_sensor(False)
    run_board(board, clock, 0.02)
    assert board.firmware.unacked, "the board holds the slide"

    service, hardware, reader = start()
    try:
        run(hardware, reader, 1.0)
        assert service.state.alarm is None
        assert dealt(service) == cards
        assert not board.firmware.unacked
    finally:
        stop(service, hardware, reader)
        board.close()


def test_the_slide_of_a_card_dealt_as_the_service_was_killed_asks_about_no_card(
    tmp_path: Path,
) -> None:
    """5S's code is read and its card dealt, and the service is killed before the card
    reaches the board's light barrier. The board keeps the slide for the restarted service,
    which pairs it with 5S's code by the board's clock, from the note kept with 5S's card:
    the dealer is asked about nothing."""
    clock = ManualClock(100.0)
    board = SimulatedMicrocontroller(tmp_path, clock)
    start, run, stop = scanner_restarts(tmp_path, board, clock)

    service, hardware, reader = start()
    try:
        service.execute_line("shuffle")
        run(hardware, reader, 0.5)
        deal_from_the_board(board, clock, "2C", hardware.poll, reader.poll)
        board.scan(encode_payload(Card.parse("5S"), 1))
        step_until(board, hardware, reader, lambda: dealt(service) == ["2C", "5S"])
    finally:
        killed(service, hardware, reader)
    slide_while_down_and_restart(board, clock, (start, run, stop), ["2C", "5S"])


@pytest.mark.parametrize("board_clock", ["not yet placed", "placed half a second off"])
def test_a_card_dealt_as_the_service_was_killed_is_paired_by_the_boards_stamps(
    tmp_path: Path, board_clock: str
) -> None:
    """5S's code is read and its card dealt, and the service is killed before the card
    reaches the board's light barrier. The service knew the board's clock not at all (5S the
    first card after it started: none of the board's sensors had yet spoken to this run), or
    half a second off (the shoe's lid opened while its loop was held up, so the one reading
    of the board's sensors it had came late). The restarted service gets the slide from the
    board and pairs it with 5S's code by the board's own time of each, the code's as the
    board stamped it: the dealer is asked about nothing, and 5S is dealt once."""
    clock = ManualClock(100.0)
    board = SimulatedMicrocontroller(tmp_path, clock)
    start, run, stop = scanner_restarts(tmp_path, board, clock)

    service, hardware, reader = start()
    try:
        service.execute_line("shuffle")
        run(hardware, reader, 0.5)
        if board_clock == "placed half a second off":
            board.open_lid(True)
            run_board(board, clock, 0.5)  # the service's loop held up meanwhile
            run(hardware, reader, 0.5)
        board.scan(encode_payload(Card.parse("5S"), 1))
        step_until(board, hardware, reader, lambda: dealt(service) == ["5S"])
    finally:
        killed(service, hardware, reader)
    slide_while_down_and_restart(board, clock, (start, run, stop), ["5S"])


def test_a_note_written_before_codes_carried_the_boards_ticks_still_pairs_the_slide(
    tmp_path: Path,
) -> None:
    """A journal's note of the board's frames written by the release before protocol 2 kept
    each code waiting with the board's ticks guessed from when it came, a little after the
    board read it. The restarted service reads it as before: the slide of the card dealt as
    that service was killed is paired with its code, and the dealer asked about nothing."""
    clock = ManualClock(100.0)
    board = SimulatedMicrocontroller(tmp_path, clock)
    start, run, stop = scanner_restarts(tmp_path, board, clock)

    service, hardware, reader = start()
    try:
        service.execute_line("shuffle")
        run(hardware, reader, 0.5)
        deal_from_the_board(board, clock, "2C", hardware.poll, reader.poll)
        board.scan(encode_payload(Card.parse("5S"), 1))
        step_until(board, hardware, reader, lambda: dealt(service) == ["2C", "5S"])
        kept = service.journal.note("board-frame")
        assert kept is not None
        note = json.loads(kept)
        (code,) = note["codes"]
        code[1] += 120  # guessed from its arrival, as that release did
        service.journal.keep_note("board-frame", json.dumps(note, sort_keys=True))
    finally:
        killed(service, hardware, reader)
    slide_while_down_and_restart(board, clock, (start, run, stop), ["2C", "5S"])


def deal_all_but_the_hoc(service: TableService) -> list[str]:
    """A new deck keyed at the console and dealt but for its last card, the hoc: the deck's
    cards in the order dealt, the hoc last."""
    deck = [str(card) for card in STANDARD_52]
    for line in ["shuffle", *(f"card {card}" for card in deck[:-1])]:
        service.execute_line(line)
    return deck


def carry_out(service: TableService, hardware: TableHardware) -> None:
    """Poll the board and carry out what it gives, as the service's loop does: the box-empty
    switch journaled with its frame's name, and given again if the journal cannot keep it."""
    for command in hardware.poll():
        try:
            service.execute(command, hardware.request_of(command))
        except JournalError:
            hardware.not_kept(command)


def test_the_box_empty_switch_alarmed_as_the_service_was_killed_is_not_alarmed_again(
    tmp_path: Path,
) -> None:
    """The box-empty switch closed with cards still to deal: the short deal's alarm is
    journaled, and the dealer voids it (the box was not empty). The service is killed at
    once, the switch's frame not yet acknowledged: the journal named it with its alarm, so
    the restarted service drops the frame the board sends again and raises no second alarm."""
    clock = ManualClock(100.0)
    board = SimulatedMicrocontroller(tmp_path, clock)
    start, run, stop = scanner_restarts(tmp_path, board, clock)

    service, hardware, reader = start()
    try:
        service.execute_line("shuffle")
        run(hardware, reader, 0.5)
        board.box_empty_pin.drive(0)
        run_board(board, clock, 0.01)  # the switch's level holds long enough to count
        for _ in range(200):
            board.step()
            carry_out(service, hardware)
            board.wait(0.0002)
            if service.state.alarm is not None:
                break
        alarm = service.state.alarm
        assert alarm is not None and alarm.kind is AlarmKind.SHORT_DEAL
        service.execute_line("void")
    finally:
        killed(service, hardware, reader)
    board.box_empty_pin.drive(1)
    run_board(board, clock, 0.02)
    assert board.firmware.unacked, "the board still holds the switch's frame"

    service, hardware, reader = start()
    try:
        run_board(board, clock, 1.0, lambda: carry_out(service, hardware), reader.poll)
        assert service.state.alarm is None
        raised = [e for e in service.journal.events() if e.type_name == "alarm_raised"]
        assert len(raised) == 1
        assert not board.firmware.unacked
    finally:
        stop(service, hardware, reader)
        board.close()


def test_the_box_empty_switch_waiting_for_the_journal_is_not_lost_to_a_card_dealt_after_it(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The box-empty switch closes and 5S is scanned after it, both taken in one poll of the
    board; the disk fails just as the switch's alarm is written, and holds again as the
    reader deals 5S. The service is killed before the switch is carried out again. The board
    sends both again: the restarted service raises the switch's alarm, and drops 5S's code,
    whose card the journal has; before, the card's frame, newer than the switch's, had the
    switch dropped with it as a frame taken."""
    caplog.set_level(logging.INFO, "dealtable.hardware")
    clock = ManualClock(100.0)
    board = SimulatedMicrocontroller(tmp_path, clock)
    start, run, stop = scanner_restarts(tmp_path, board, clock)

    service, hardware, reader = start()
    try:
        service.execute_line("shuffle")
        run(hardware, reader, 0.5)
        disk = FullDisk(service.journal._db)
        disk.full = False
        service.journal._db = disk
        board.box_empty_pin.drive(0)
        run_board(board, clock, 0.02)  # the switch's level holds long enough to count
        board.scan(encode_payload(Card.parse("5S"), 1))
        run_board(board, clock, 0.02)  # both sent, not yet taken
        commands = hardware.poll()
        assert len(commands) == 1 and hardware.scanner is not None and hardware.scanner.waiting
        disk.full = True  # the disk fails for the switch's alarm
        with pytest.raises(JournalError):
            service.execute(commands[0], hardware.request_of(commands[0]))
        hardware.not_kept(commands[0])
        disk.full = False
        reader.poll()
        assert dealt(service) == ["5S"] and service.state.alarm is None
    finally:
        killed(service, hardware, reader)
    board.box_empty_pin.drive(1)
    run_board(board, clock, 0.02)
    assert len(board.firmware.unacked) >= 2, "the board holds the switch and the code"

    service, hardware, reader = start()
    try:
        run_board(board, clock, 1.0, lambda: carry_out(service, hardware), reader.poll)
        alarm = service.state.alarm
        assert alarm is not None and alarm.kind is AlarmKind.SHORT_DEAL
        assert dealt(service) == ["5S"]
        notices = [e for e in service.journal.events() if e.type_name == "reader_notice"]
        assert notices == []
        said = [r.getMessage() for r in caplog.records if "sent again" in r.getMessage()]
        assert any("BARCODE" in line for line in said)
        service.execute_line("void")
        run_board(board, clock, 0.2, lambda: carry_out(service, hardware), reader.poll)
        assert not board.firmware.unacked
    finally:
        stop(service, hardware, reader)
        board.close()


def test_a_card_held_for_the_journal_and_dealt_as_the_service_was_killed_is_known_dealt(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The disk is full as 5S is scanned: the reader holds the card. The disk is freed, the
    reader deals 5S, and the service is killed before it polls the board again. The card is
    journaled with its frame's name however long it was held, so the restarted service
    drops the code the board sends again; before, it read it again and told the dealer 5S
    was seen a second time."""
    caplog.set_level(logging.INFO, "dealtable.hardware")
    clock = ManualClock(100.0)
    board = SimulatedMicrocontroller(tmp_path, clock)
    start, run, stop = scanner_restarts(tmp_path, board, clock)

    service, hardware, reader = start()
    try:
        service.execute_line("shuffle")
        run(hardware, reader, 0.5)
        disk = FullDisk(service.journal._db)
        service.journal._db = disk
        board.scan(encode_payload(Card.parse("5S"), 1))
        run(hardware, reader, 0.1)
        assert reader.holding_for_the_journal() == [Card.parse("5S")]
        disk.full = False
        clock.advance(reader.journal_retry_seconds)
        reader.poll()  # the reader offers its card again before the loop polls the board
        assert dealt(service) == ["5S"]
    finally:
        killed(service, hardware, reader)
    assert board.firmware.unacked, "the board still holds the code's frame"

    service, hardware, reader = start()
    try:
        run(hardware, reader, 0.5)
        assert dealt(service) == ["5S"] and service.state.alarm is None
        notices = [e for e in service.journal.events() if e.type_name == "reader_notice"]
        assert notices == []
        said = [r.getMessage() for r in caplog.records if "sent again" in r.getMessage()]
        assert any("BARCODE" in line for line in said)
        assert not board.firmware.unacked
    finally:
        stop(service, hardware, reader)
        board.close()


def test_cards_the_board_sends_after_the_loop_was_held_up_are_paired_with_their_codes(
    tmp_path: Path,
) -> None:
    """The loop is held up (a slow write to the SD card, a service starting) while three cards
    come out past the board's scanner and light barrier, the last breaking the beam before its
    sticker is read. The board sends its window of eight frames, and the last card's code only
    once the first are acknowledged: every card is dealt and nothing is asked. Before, the
    reader heard three slides and read two codes, and took the first card for one that slid
    out unread."""
    clock = ManualClock(100.0)
    board = SimulatedMicrocontroller(tmp_path, clock)
    start, run, stop = scanner_restarts(tmp_path, board, clock)

    service, hardware, reader = start()
    try:
        service.execute_line("shuffle")
        run(hardware, reader, 0.5)
        deal_from_the_board(board, clock, "2C", hardware.poll, reader.poll)
        for card in ("5S", "KD"):
            deal_from_the_board(board, clock, card)  # no poll: the loop is held up
        board.block_card_sensor(True)  # 9H past the beam, then its sticker read
        run_board(board, clock, 0.05)
        board.block_card_sensor(False)
        run_board(board, clock, 0.05)
        board.scan(encode_payload(Card.parse("9H"), 1))
        run_board(board, clock, 0.05)
        assert len(board.firmware.unacked) == 8 and board.firmware.queue, "9H's code waits"
        run(hardware, reader, 1.0)
        assert service.state.alarm is None
        assert dealt(service) == ["2C", "5S", "KD", "9H"]
        assert not board.firmware.unacked
    finally:
        stop(service, hardware, reader)
        board.close()


@pytest.mark.parametrize("taken", ["at the restart", "after the loop was held up"])
def test_the_box_empty_switch_sent_behind_the_hocs_code_is_carried_out_after_the_hoc(
    tmp_path: Path, taken: str
) -> None:
    """The hoc's code is read, the hoc slides out past the board's light barrier and the
    box-empty switch closes, while the service takes none of the board's frames: it was
    killed and starts again (the board kept them), or its loop was held up. The service
    takes them in one poll, and carries the switch out after the hoc, whose code the board
    sent before it: the deal is over, and the table raises no alarm. Before, the switch was
    carried out at once, the hoc's code still unread, and the table, its box empty one card
    short, raised a short deal's alarm."""
    clock = ManualClock(100.0)
    board = SimulatedMicrocontroller(tmp_path, clock)
    start, run, stop = scanner_restarts(tmp_path, board, clock)

    service, hardware, reader = start()
    try:
        deck = deal_all_but_the_hoc(service)
        run(hardware, reader, 0.5)
        if taken == "at the restart":
            killed(service, hardware, reader)
        deal_from_the_board(board, clock, deck[-1])  # no poll: the service takes none
        board.box_empty_pin.drive(0)
        run_board(board, clock, 0.05)  # the switch's level holds long enough to count
        assert board.firmware.unacked, "the board holds the hoc and the switch"
        if taken == "at the restart":
            service, hardware, reader = start()
        run_board(board, clock, 1.0, lambda: carry_out(service, hardware), reader.poll)
        assert service.state.alarm is None
        assert dealt(service) == deck and service.faro.phase is Phase.FINISHED
        assert not board.firmware.unacked
    finally:
        stop(service, hardware, reader)
        board.close()


def test_the_box_empty_switch_the_journal_could_not_keep_waits_for_the_hoc_held_with_it(
    tmp_path: Path,
) -> None:
    """The disk fills as the hoc comes out: the reader holds the hoc for the journal, and the
    box-empty switch closing behind it cannot be kept either. The disk is freed: the hoc is
    dealt, then the switch carried out, and the deal is over with no alarm. Before, the
    switch, given again at the board's next poll, came before the hoc the reader still held,
    and the table, its box empty one card short, raised a short deal's alarm."""
    clock = ManualClock(100.0)
    board = SimulatedMicrocontroller(tmp_path, clock)
    start, run, stop = scanner_restarts(tmp_path, board, clock)

    service, hardware, reader = start()
    try:
        deck = deal_all_but_the_hoc(service)
        run(hardware, reader, 0.5)
        disk = FullDisk(service.journal._db)
        service.journal._db = disk
        poll_and_carry_out = (lambda: carry_out(service, hardware), reader.poll)
        deal_from_the_board(board, clock, deck[-1], *poll_and_carry_out)
        board.box_empty_pin.drive(0)
        run_board(board, clock, 0.5, *poll_and_carry_out)
        assert reader.holding_for_the_journal() == [Card.parse(deck[-1])]
        disk.full = False
        run_board(
            board,
            clock,
            JOURNAL_RETRY_SECONDS + 1.0,
            lambda: service.try_the_journal(clock.monotonic()),
            *poll_and_carry_out,
        )
        assert service.state.alarm is None
        assert dealt(service) == deck and service.faro.phase is Phase.FINISHED
        assert not board.firmware.unacked
    finally:
        stop(service, hardware, reader)
        board.close()


def test_the_boards_report_of_events_lost_as_the_service_stops_is_told(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The board's queue overflows just as the service stops cleanly: its report that events
    were lost comes while the service waits for the board to take the dark layout. The log
    says so, and what to check at the next start; before, the report was dropped unread."""
    caplog.set_level(logging.WARNING, "dealtable.hardware")
    clock = BoardAlongside(100.0)
    board = SimulatedMicrocontroller(tmp_path, clock)
    start, run, _ = scanner_restarts(tmp_path, board, clock)

    service, hardware, reader = start()
    try:
        service.execute_line("shuffle")
        run(hardware, reader, 0.5)
        board.firmware._report(DeviceErrorCode.QUEUE_FULL, "event queue full")
    finally:
        stop_cleanly(clock, board, service, hardware, reader)
    told = [r.getMessage() for r in caplog.records if "event queue full" in r.getMessage()]
    assert told and "as the service stopped" in told[0] and "check the box" in told[0], told
    board.close()
