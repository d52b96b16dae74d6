"""Shared test fixtures for the serial-bridge and hardware tests: a simulated board and a link.

Tests drive both ends step by step against one manual clock. Bytes still cross a
real pty, which the kernel moves on its own schedule, so each step also waits a
fraction of a millisecond of real time for them; ``drive`` gives up after a real
deadline instead of hanging.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gpiozero.pins.mock import MockFactory  # type: ignore[import-untyped]

from firmware_bridge.clock import ManualClock
from firmware_bridge.link import LinkConfig, LinkEvent, SerialLink
from hw.simulated.microcontroller import Faults, SimulatedMicrocontroller

STEP = 0.002
# Reached only when a test fails: a busy machine steps slowly, and a drive of many clock
# seconds takes many real ones then.
REAL_DEADLINE = 60.0


def run_board(
    board: SimulatedMicrocontroller, clock: ManualClock, seconds: float, *polls: Callable[[], Any]
) -> None:
    """The board for ``seconds`` of the manual clock, step by step, with ``polls`` (the
    service's side of the wire) polled at each step."""
    for _ in range(round(seconds / STEP)):
        board.step()
        for poll in polls:
            poll()
        board.wait(0.0002)
        clock.advance(STEP)


@dataclass
class Bench:
    clock: ManualClock
    board: SimulatedMicrocontroller
    link: SerialLink
    events: list[LinkEvent] = field(default_factory=list)

    def _poll(self) -> None:
        self.events += self.link.poll()

    def step(self) -> None:
        run_board(self.board, self.clock, STEP, self._poll)

    def run_for(self, seconds: float) -> None:
        run_board(self.board, self.clock, seconds, self._poll)

    def drive(self, until: Callable[[], bool], within: float = 10.0) -> float:
        """Step until ``until()`` holds; return the clock time it took."""
        started = self.clock.monotonic()
        real_deadline = time.monotonic() + REAL_DEADLINE
        while not until():
            if self.clock.monotonic() - started > within:
                raise AssertionError(f"not done within {within} s of clock time")
            if time.monotonic() > real_deadline:
                raise AssertionError(f"not done within {REAL_DEADLINE} s of real time")
            self.step()
        return self.clock.monotonic() - started

    def of_type(self, kind: type) -> list[LinkEvent]:
        return [event for event in self.events if isinstance(event, kind)]


@contextmanager
def table_bench(
    directory: Path,
    *,
    faults: Faults | None = None,
    seed: int = 1,
    config: LinkConfig | None = None,
) -> Iterator[Bench]:
    clock = ManualClock(1000.0)
    board = SimulatedMicrocontroller(directory, clock, faults=faults, seed=seed)
    link = SerialLink(board.url, clock, config=config)
    try:
        yield Bench(clock, board, link)
    finally:
        link.close()
        board.close()


def lamps(*lit: int, colour: tuple[int, int, int] = (255, 0, 0)) -> list[tuple[int, int, int]]:
    """A 16-pixel display with the given lamps lit."""
    return [colour if index in lit else (0, 0, 0) for index in range(16)]


@contextmanager
def mock_pins() -> Iterator[Any]:
    """A fresh gpiozero MockFactory, reset afterwards so no pin stays reserved."""
    # gpiozero 2.0.1's software SPI bus (which the mock factory always uses) builds its
    # base Device without the factory it was handed, so gpiozero looks up a default
    # factory; naming the mock one keeps that lookup off real hardware drivers.
    os.environ.setdefault("GPIOZERO_PIN_FACTORY", "mock")
    factory = MockFactory()
    try:
        yield factory
    finally:
        factory.reset()
