"""The dealer's buttons: new deck, lock bets, confirm, void, correct.

Each is a gpiozero ``Button`` (a switch to ground with the internal pull-up). Two filters
stand between the line and a press, both timed on the injected clock:

- the glitch filter: a press counts only once the line has stayed pressed for
  ``settle_time`` (from the board file, 20 ms unless it says otherwise). lgpio filters
  glitches in the chip; the ``rpigpio`` and ``native`` drivers report a spike of a few
  microseconds (a relay or a motor nearby, a long cable) as an edge like any other, and
  their ``bounce_time`` only mutes the edges that follow one. A pressed line is confirmed
  when the table takes the presses (:meth:`DealerButtons.take`), or at its release if that
  comes first; a glitch is counted for the status page, never a press;
- the bounce filter: a contact that bounces as it opens (a pressed edge within
  ``bounce_time`` of the release of a press) is that press still, not a new one.

Edges arrive on gpiozero's thread; presses wait in a queue until the table takes them.
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
from hw.errors import PinRefusedError


class DealerAction(enum.Enum):
    NEW_DECK = "new_deck"
    LOCK_BETS = "lock_bets"
    CONFIRM = "confirm"
    VOID = "void"
    CORRECT = "correct"


class DealerButtons:
    def __init__(self, wiring: ButtonWiring, *, pin_factory: Any, clock: Clock) -> None:
        self.bounce_time = wiring.bounce_time
        self.settle_time = wiring.settle_time
        self.bounces = 0
        self.glitches = 0
        self._clock = clock
        self._presses: queue.SimpleQueue[DealerAction] = queue.SimpleQueue()
        self._last_edge: dict[DealerAction, float] = {}
        # Since when each button's line is pressed (absent while it is released), and whether
        # that press has counted already.
        self._pressed_since: dict[DealerAction, float] = {}
        self._counted: set[DealerAction] = set()
        self._released_at: dict[DealerAction, float] = {}  # the release of a press counted
        self._lock = threading.Lock()
        self._buttons: dict[DealerAction, Any] = {}
        try:
            for action in DealerAction:
                button = self._open(action, wiring, pin_factory)
                self._buttons[action] = button
                button.when_pressed = partial(self._edge, action, True)
                button.when_released = partial(self._edge, action, False)
        except Exception:
            self.close()
            raise

    @staticmethod
    def _open(action: DealerAction, wiring: ButtonWiring, pin_factory: Any) -> Any:
        """The button of ``action``; a line the driver refuses is named with its button.
        lgpio refuses a line the kernel or another program holds with an error of its own
        ("GPIO busy"), which names no pin."""
        pin = wiring.pins[action.value]
        try:
            return Button(
                pin, pull_up=True, bounce_time=wiring.bounce_time, pin_factory=pin_factory
            )
        except Exception as error:
            label = action.value.replace("_", " ")
            raise PinRefusedError(f"the {label} button on GPIO{pin}: {error}") from error

    def take(self) -> list[DealerAction]:
        """The presses since the last call, oldest first: those whose line has now stayed
        pressed for ``settle_time`` among them."""
        self._confirm_held(self._clock.monotonic())
        taken = []
        while True:
            try:
                taken.append(self._presses.get_nowait())
            except queue.Empty:
                return taken

    def is_held(self, action: DealerAction) -> bool:
        return bool(self._buttons[action].is_pressed)

    def report(self) -> dict[str, int]:
        return {"bounces": self.bounces, "glitches": self.glitches}

    def close(self) -> None:
        """Release every pin; idempotent."""
        buttons, self._buttons = self._buttons, {}
        for button in buttons.values():
            button.close()

    def __enter__(self) -> DealerButtons:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _confirm_held(self, now: float) -> None:
        with self._lock:
            settled = sorted(
                (since, action.value, action)
                for action, since in self._pressed_since.items()
                if action not in self._counted and now - since >= self.settle_time
            )
            for _since, _name, action in settled:
                button = self._buttons.get(action)
                if button is not None and button.is_pressed:
                    self._count(action)

    def _count(self, action: DealerAction) -> None:
        self._counted.add(action)
        self._presses.put(action)

    def _edge(self, action: DealerAction, pressed: bool, *_device: object) -> None:
        now = self._clock.monotonic()
        with self._lock:
            last = self._last_edge.get(action)
            self._last_edge[action] = now
            if pressed:
                if last is not None and now - last < self.bounce_time:
                    self.bounces += 1
                self._pressed_since[action] = now
                released_at = self._released_at.get(action)
                if released_at is not None and now - released_at < self.bounce_time:
                    self._counted.add(action)  # the contact of the press just made, opening
                else:
                    self._counted.discard(action)
                return
            since = self._pressed_since.pop(action, None)
            if since is None:
                return
            if action not in self._counted:
                if now - since < self.settle_time:
                    self.glitches += 1
                    return
                self._count(action)  # held long enough, released before the table looked
            self._released_at[action] = now
