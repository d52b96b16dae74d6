"""The table's own devices, wired to the service: the LED casekeep, the dealer's buttons and
the microcontroller under the layout (its lamps, its box-empty switch).

Frames go out after every change the journal has taken; buttons and sensors come back as
table-language commands, judged by the engine like any other.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from gpiozero import GPIOZeroError  # type: ignore[import-untyped]

from display.frames import casekeep_frame, layout_frame
from display.hardware import AbacusDriver, LayoutDriver
from firmware_bridge.clock import Clock, SystemClock
from firmware_bridge.link import LinkDown, LinkUp, SensorChanged, SerialLink
from firmware_bridge.protocol import Sensor
from hw.board import DEFAULT_BOARD, Board, load_board, make_pin_factory
from hw.buttons import DealerAction, DealerButtons
from hw.casekeep import CasekeepAbacus
from hw.errors import HardwareError
from table.events import Event
from table.language import Command, EmptyCmd, LockCmd, ShuffleCmd, VoidCmd
from table.service.config import HardwareConfig
from table.service.table_service import TableService

log = logging.getLogger("dealtable.hardware")

# How long a stopping service waits for the board to take the dark layout (seconds).
LAYOUT_DARK_WITHIN = 0.5

_BUTTON_COMMANDS: dict[DealerAction, Command] = {
    DealerAction.NEW_DECK: ShuffleCmd(),
    DealerAction.LOCK_BETS: LockCmd(),
    DealerAction.VOID: VoidCmd(),
}


@contextlib.contextmanager
def _refused_in_one_line(device: str, board_file: Path) -> Iterator[None]:
    """A device that gpiozero or its driver refuses, as a HardwareError naming it: the service
    then refuses to start in one line (exit 2), where a traceback (exit 1) would have systemd
    restart it for ever."""
    try:
        yield
    except HardwareError:
        raise
    except (GPIOZeroError, ValueError) as error:
        raise HardwareError(f"{device} (board {board_file}): {error}") from None


class TableHardware:
    def __init__(
        self, config: HardwareConfig, *, clock: Clock | None = None, pin_factory: Any = None
    ) -> None:
        self.config = config
        board_file = Path(config.board) if config.board else DEFAULT_BOARD
        self.board: Board = load_board(board_file)
        self.clock = clock or SystemClock()
        self.pin_factory = pin_factory
        if pin_factory is None and (config.abacus or config.buttons):
            self.pin_factory = make_pin_factory(config.pin_factory or self.board.pin_factory)
        self.abacus: AbacusDriver | None = None
        self.buttons: DealerButtons | None = None
        self.link: SerialLink | None = None
        self.layout: LayoutDriver | None = None
        try:
            if config.abacus:
                with _refused_in_one_line("the casekeep abacus", board_file):
                    self.abacus = AbacusDriver(
                        CasekeepAbacus(self.board.casekeep, pin_factory=self.pin_factory)
                    )
            if config.buttons:
                with _refused_in_one_line("the dealer's buttons", board_file):
                    self.buttons = DealerButtons(
                        self.board.buttons, pin_factory=self.pin_factory, clock=self.clock
                    )
            if config.layout:
                with _refused_in_one_line("the layout display", board_file):
                    self.link = SerialLink(
                        config.microcontroller_url or self.board.microcontroller_url, self.clock
                    )
                self.layout = LayoutDriver(self.link)
        except Exception:
            self.close()
            raise

    def attach(self, service: TableService) -> None:
        """Show the table as it is now, and after every change from here on."""
        self.service = service
        self.show()
        service.listeners.append(self._changed)

    def _changed(self, events: Sequence[Event]) -> None:
        self.show()

    def show(self) -> None:
        state = self.service.faro
        if self.abacus is not None:
            self.abacus.show(casekeep_frame(state))
        if self.layout is not None:
            self.layout.show(layout_frame(state))

    def poll(self) -> list[Command]:
        """What the dealer and the box asked for since the last call, as commands."""
        commands: list[Command] = []
        if self.buttons is not None:
            for action in self.buttons.take():
                command = _BUTTON_COMMANDS.get(action)
                if command is None:
                    log.info("button %s: give the card at the console", action.value)
                else:
                    commands.append(command)
        if self.link is not None:
            for event in self.link.poll():
                if (
                    isinstance(event, SensorChanged)
                    and event.sensor is Sensor.BOX_EMPTY
                    and event.active
                ):
                    commands.append(EmptyCmd())
                elif isinstance(event, LinkUp):
                    log.info("layout display up (firmware boot %d)", event.firmware_boot_id)
                elif isinstance(event, LinkDown):
                    log.warning("layout display down: %s", event)
        return commands

    def close(self) -> None:
        if self.abacus is not None:
            self.abacus.abacus.close()
        if self.buttons is not None:
            self.buttons.close()
        if self.link is not None:
            if self.layout is not None and self.link.is_up:
                # Left lit, the layout and its green link lamp would tell the table the
                # service still runs.
                self.layout.go_dark()
                self.link.flush(LAYOUT_DARK_WITHIN)
            self.link.close()
