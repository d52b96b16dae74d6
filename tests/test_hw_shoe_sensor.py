"""The dealing box's light barrier on gpiozero's mock pins: cards, and chatter that is not."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from wire_fixtures import mock_pins

from firmware_bridge.clock import ManualClock
from hw.board import load_board
from hw.shoe_sensor import CardPassed, SensorChattering, ShoeSensor

WIRING = load_board().shoe_sensor


@pytest.fixture
def shoe() -> Iterator[tuple[ShoeSensor, Any, ManualClock]]:
    clock = ManualClock()
    with mock_pins() as factory, ShoeSensor(WIRING, pin_factory=factory, clock=clock) as sensor:
        yield sensor, factory.pin(WIRING.pin), clock


def slide_card(beam: Any, clock: ManualClock, blocked: float = 0.015) -> None:
    beam.drive_low()
    clock.advance(blocked)
    beam.drive_high()
    clock.advance(0.3)


def test_each_card_slid_is_one_card(shoe: tuple[ShoeSensor, Any, ManualClock]) -> None:
    sensor, beam, clock = shoe
    for _ in range(3):
        slide_card(beam, clock)
    events = sensor.take()
    assert [type(e) for e in events] == [CardPassed] * 3
    assert all(isinstance(e, CardPassed) and e.blocked_for == pytest.approx(0.015) for e in events)
    assert sensor.cards == 3


def test_a_flicker_shorter_than_a_card_is_no_card(
    shoe: tuple[ShoeSensor, Any, ManualClock],
) -> None:
    sensor, beam, clock = shoe
    slide_card(beam, clock, blocked=0.0005)
    assert sensor.take() == []
    assert sensor.report()["short_blocks"] == 1


def test_a_chattering_sensor_is_reported_once_and_makes_no_card(
    shoe: tuple[ShoeSensor, Any, ManualClock],
) -> None:
    sensor, beam, clock = shoe
    for _ in range(30):
        beam.drive_low()
        clock.advance(0.004)
        beam.drive_high()
        clock.advance(0.002)
    events = sensor.take()
    assert [type(e) for e in events] == [SensorChattering]
    assert sensor.chattering
    assert sensor.cards == 0
    clock.advance(0.5)
    slide_card(beam, clock)  # quiet again: the next real card counts
    assert [type(e) for e in sensor.take()] == [CardPassed]
    assert sensor.report() == {"cards": 1, "chatter_bursts": 1, "short_blocks": 0}


def test_a_card_with_a_ragged_edge_is_still_one_card(
    shoe: tuple[ShoeSensor, Any, ManualClock],
) -> None:
    sensor, beam, clock = shoe
    beam.drive_low()
    clock.advance(0.012)
    beam.drive_high()
    clock.advance(0.001)
    beam.drive_low()  # the card's corner crosses the beam again
    clock.advance(0.002)
    beam.drive_high()
    assert sensor.take() == []  # not settled yet
    clock.advance(0.05)
    (card,) = sensor.take()
    assert isinstance(card, CardPassed)
    assert card.blocked_for == pytest.approx(0.015)
