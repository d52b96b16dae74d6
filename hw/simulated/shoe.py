"""A simulated dealing shoe: a seeded shuffle dealt one card at a time at dealing speed.

Like a real dealing box it gives the next card only when the dealer's pace allows,
and on request it misfeeds (two cards out at once), sticks (no card for a while),
or runs out early. Each card out can also act on other simulated hardware through
``on_card`` callbacks: break the board's light barrier, scan the card's barcode.

Time comes from the injected clock: call :meth:`poll` and it deals what is due.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

from firmware_bridge.clock import Clock
from table.cards import STANDARD_52, Card, DeckSpec


@dataclass(frozen=True)
class CardOut:
    card: Card
    at: float
    misfed: bool = False


@dataclass(frozen=True)
class ShoeStuck:
    at: float
    until: float


@dataclass(frozen=True)
class ShoeEmpty:
    at: float
    cards_dealt: int


ShoeEvent = CardOut | ShoeStuck | ShoeEmpty


class SimulatedShoe:
    def __init__(
        self,
        clock: Clock,
        *,
        seed: int,
        deck: DeckSpec = STANDARD_52,
        seconds_per_card: float = 1.5,
    ) -> None:
        if seconds_per_card <= 0:
            raise ValueError(f"seconds_per_card must be positive, not {seconds_per_card}")
        self._clock = clock
        self.seconds_per_card = seconds_per_card
        cards = list(deck.cards)
        random.Random(seed).shuffle(cards)
        self.order: tuple[Card, ...] = tuple(cards)
        self._next = 0
        self._last_out = clock.monotonic()
        self._misfeed_pending = False
        self._stuck_until: float | None = None
        self._stick_pending: float | None = None
        self._runs_out_at: int = len(cards)
        self._empty_reported = False
        self.on_card: list[Callable[[Card], None]] = []

    @property
    def remaining(self) -> int:
        return max(0, self._runs_out_at - self._next)

    @property
    def dealt(self) -> tuple[Card, ...]:
        return self.order[: self._next]

    def misfeed_next(self) -> None:
        """The next slide brings two cards out together."""
        self._misfeed_pending = True

    def stick_next(self, seconds: float) -> None:
        """The next card jams for ``seconds`` before it comes."""
        self._stick_pending = seconds

    def run_out_after(self, cards: int) -> None:
        """The box is empty after ``cards`` more cards (a short deck)."""
        self._runs_out_at = min(len(self.order), self._next + cards)

    def poll(self) -> list[ShoeEvent]:
        """Deal whatever the dealer's pace has made due since the last call."""
        now = self._clock.monotonic()
        events: list[ShoeEvent] = []
        while True:
            if self.remaining == 0:
                if not self._empty_reported:
                    self._empty_reported = True
                    events.append(ShoeEmpty(now, self._next))
                return events
            due = self._last_out + self.seconds_per_card
            if self._stick_pending is not None and now >= due:
                self._stuck_until = due + self._stick_pending
                self._stick_pending = None
                events.append(ShoeStuck(due, self._stuck_until))
            if self._stuck_until is not None:
                if now < self._stuck_until:
                    return events
                due = self._stuck_until
                self._stuck_until = None
            if now < due:
                return events
            self._last_out = due
            count = 2 if self._misfeed_pending and self.remaining >= 2 else 1
            misfed = count == 2
            self._misfeed_pending = False
            for _ in range(count):
                card = self.order[self._next]
                self._next += 1
                events.append(CardOut(card, due, misfed))
                for callback in self.on_card:
                    callback(card)
