"""The light barrier across the dealing box's slot, read as a gpiozero ``DigitalInputDevice``.

A card sliding out breaks the beam for a few milliseconds. A break that lasts at
least ``min_block`` and is followed by ``settle`` seconds of clear beam is one card;
a break that comes back sooner is the same card's ragged edge. A sensor that flickers (more than
``chatter_limit`` edges within ``chatter_window``: dust, a loose wire, sunlight) is
chattering: reported once per burst, and no card is made from it until it has been
quiet for a whole window. Times come from the injected clock.
"""

from __future__ import annotations

import queue
import threading
from collections import deque
from dataclasses import dataclass
from typing import Any

from gpiozero import DigitalInputDevice  # type: ignore[import-untyped]

from firmware_bridge.clock import Clock
from hw.board import ShoeSensorWiring
from hw.errors import PinRefusedError


@dataclass(frozen=True)
class CardPassed:
    at: float
    blocked_for: float


@dataclass(frozen=True)
class SensorChattering:
    at: float
    edges: int


ShoeEvent = CardPassed | SensorChattering


class ShoeSensor:
    def __init__(
        self,
        wiring: ShoeSensorWiring,
        *,
        pin_factory: Any,
        clock: Clock,
        min_block: float = 0.003,
        chatter_limit: int = 8,
        chatter_window: float = 0.1,
        settle: float = 0.03,
    ) -> None:
        self._clock = clock
        self.min_block = min_block
        self.chatter_limit = chatter_limit
        self.chatter_window = chatter_window
        self.settle = settle
        self.cards = 0
        self.chatter_bursts = 0
        self.short_blocks = 0
        self._events: queue.SimpleQueue[ShoeEvent] = queue.SimpleQueue()
        self._edges: deque[float] = deque()
        self._blocked_since: float | None = None
        self._restored_at: float | None = None
        self._chattering = False
        self._lock = threading.Lock()
        try:
            self._device = DigitalInputDevice(
                wiring.pin, pull_up=wiring.active_low, pin_factory=pin_factory
            )
        except Exception as error:
            # lgpio refuses a line the kernel or another program holds with an error of its
            # own ("GPIO busy"), which names no pin.
            raise PinRefusedError(f"the light barrier on GPIO{wiring.pin}: {error}") from error
        self._device.when_activated = self._beam_broken
        self._device.when_deactivated = self._beam_restored

    @property
    def chattering(self) -> bool:
        return self._chattering

    def take(self) -> list[ShoeEvent]:
        """Cards and chatter reports so far, oldest first."""
        with self._lock:
            self._settle(self._clock.monotonic())
        taken = []
        while True:
            try:
                taken.append(self._events.get_nowait())
            except queue.Empty:
                return taken

    def report(self) -> dict[str, int]:
        return {
            "cards": self.cards,
            "chatter_bursts": self.chatter_bursts,
            "short_blocks": self.short_blocks,
        }

    def close(self) -> None:
        self._device.close()

    def __enter__(self) -> ShoeSensor:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _settle(self, now: float) -> None:
        """Confirm a card once the beam has stayed clear for ``settle`` seconds."""
        if self._chattering and self._edges and now - self._edges[-1] >= self.chatter_window:
            self._chattering = False
            self._edges.clear()
        restored_at, blocked_since = self._restored_at, self._blocked_since
        if restored_at is None or blocked_since is None or now - restored_at < self.settle:
            return
        self._restored_at = self._blocked_since = None
        blocked_for = restored_at - blocked_since
        if blocked_for < self.min_block:
            self.short_blocks += 1
            return
        self.cards += 1
        self._events.put(CardPassed(restored_at, blocked_for))

    def _edge(self, now: float) -> bool:
        """Record an edge; whether the sensor is calm enough to believe."""
        edges = self._edges
        edges.append(now)
        while edges and now - edges[0] > self.chatter_window:
            edges.popleft()
        if len(edges) > self.chatter_limit and not self._chattering:
            self._chattering = True
            self.chatter_bursts += 1
            self._events.put(SensorChattering(now, len(edges)))
        if self._chattering:
            self._restored_at = self._blocked_since = None
        return not self._chattering

    def _beam_broken(self, *_device: object) -> None:
        now = self._clock.monotonic()
        with self._lock:
            self._settle(now)
            if not self._edge(now):
                return
            if self._restored_at is not None:
                # Broken again before it settled: the same card's edge, not a new card.
                self._restored_at = None
                return
            self._blocked_since = now

    def _beam_restored(self, *_device: object) -> None:
        now = self._clock.monotonic()
        with self._lock:
            self._settle(now)
            if self._edge(now) and self._blocked_since is not None:
                self._restored_at = now
