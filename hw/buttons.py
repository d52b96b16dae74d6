"""The dealer's buttons: new deck, lock bets, confirm, void, correct.

Each is a gpiozero ``Button`` (a switch to ground with the internal pull-up). The
pin driver's ``bounce_time`` filters most contact bounce on a Pi; on top of it a
press only counts when the line has been quiet for ``bounce_time`` by the injected
clock, so a bouncing contact is one press on any pin driver, and bounces are
counted for the status page. Presses arrive on gpiozero's thread and wait in a
queue until the table takes them.
"""

from __future__ import annotations

import enum
import queue
import threading
from functools import partial
from typing import Any

from gpiozero import Button  # type: ignore[import-untyped]

from firmware_bridge.clock import Clock
from hw.board import ButtonWiring


class DealerAction(enum.Enum):
    NEW_DECK = "new_deck"
    LOCK_BETS = "lock_bets"
    CONFIRM = "confirm"
    VOID = "void"
    CORRECT = "correct"


class DealerButtons:
    def __init__(self, wiring: ButtonWiring, *, pin_factory: Any, clock: Clock) -> None:
        self.bounce_time = wiring.bounce_time
        self.bounces = 0
        self._clock = clock
        self._presses: queue.SimpleQueue[DealerAction] = queue.SimpleQueue()
        self._last_edge: dict[DealerAction, float] = {}
        self._lock = threading.Lock()
        self._buttons: dict[DealerAction, Any] = {}
        try:
            for action in DealerAction:
                button = Button(
                    wiring.pins[action.value],
                    pull_up=True,
                    bounce_time=wiring.bounce_time,
                    pin_factory=pin_factory,
                )
                self._buttons[action] = button
                button.when_pressed = partial(self._edge, action, True)
                button.when_released = partial(self._edge, action, False)
        except Exception:
            self.close()
            raise

    def take(self) -> list[DealerAction]:
        """The presses since the last call, oldest first."""
        taken = []
        while True:
            try:
                taken.append(self._presses.get_nowait())
            except queue.Empty:
                return taken

    def is_held(self, action: DealerAction) -> bool:
        return bool(self._buttons[action].is_pressed)

    def close(self) -> None:
        """Release every pin; idempotent."""
        buttons, self._buttons = self._buttons, {}
        for button in buttons.values():
            button.close()

    def __enter__(self) -> DealerButtons:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _edge(self, action: DealerAction, pressed: bool, *_device: object) -> None:
        now = self._clock.monotonic()
        with self._lock:
            last = self._last_edge.get(action)
            self._last_edge[action] = now
            quiet = last is None or now - last >= self.bounce_time
            if not pressed:
                return
            if quiet:
                self._presses.put(action)
            else:
                self.bounces += 1
