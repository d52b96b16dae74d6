"""The dealer's buttons on gpiozero's mock pins, with the clock moved by hand."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from wire_fixtures import mock_pins

from firmware_bridge.clock import ManualClock
from hw.board import DEFAULT_BOARD, load_board
from hw.buttons import DealerAction, DealerButtons
from hw.errors import BoardConfigError

WIRING = load_board().buttons


@pytest.fixture
def panel() -> Iterator[tuple[DealerButtons, Any, ManualClock]]:
    clock = ManualClock()
    with mock_pins() as factory, DealerButtons(WIRING, pin_factory=factory, clock=clock) as buttons:
        yield buttons, factory, clock


def press(factory: Any, clock: ManualClock, action: DealerAction, hold: float = 0.1) -> None:
    pin = factory.pin(WIRING.pins[action.value])
    pin.drive_low()
    clock.advance(hold)
    pin.drive_high()
    clock.advance(0.2)


def test_each_button_is_its_own_action(panel: tuple[DealerButtons, Any, ManualClock]) -> None:
    buttons, factory, clock = panel
    for action in DealerAction:
        press(factory, clock, action)
    assert buttons.take() == list(DealerAction)
    assert buttons.take() == []


def test_a_bouncing_contact_is_one_press(panel: tuple[DealerButtons, Any, ManualClock]) -> None:
    buttons, factory, clock = panel
    pin = factory.pin(WIRING.pins["confirm"])
    for _ in range(5):  # 1 ms bounces as the contact closes, then again as it opens
        pin.drive_low()
        clock.advance(0.001)
        pin.drive_high()
        clock.advance(0.001)
    pin.drive_low()
    clock.advance(0.2)
    pin.drive_high()
    for _ in range(3):
        clock.advance(0.001)
        pin.drive_low()
        clock.advance(0.001)
        pin.drive_high()
    assert buttons.take() == [DealerAction.CONFIRM]
    assert buttons.bounces > 0


def test_two_deliberate_presses_are_two(panel: tuple[DealerButtons, Any, ManualClock]) -> None:
    buttons, factory, clock = panel
    press(factory, clock, DealerAction.VOID)
    press(factory, clock, DealerAction.VOID)
    assert buttons.take() == [DealerAction.VOID, DealerAction.VOID]


def test_held_button_reads_as_held(panel: tuple[DealerButtons, Any, ManualClock]) -> None:
    buttons, factory, _clock = panel
    pin = factory.pin(WIRING.pins["lock_bets"])
    pin.drive_low()
    assert buttons.is_held(DealerAction.LOCK_BETS)
    assert not buttons.is_held(DealerAction.NEW_DECK)
    pin.drive_high()
    assert not buttons.is_held(DealerAction.LOCK_BETS)


def test_closing_frees_the_pins_for_the_next_owner() -> None:
    clock = ManualClock()
    with mock_pins() as factory:
        DealerButtons(WIRING, pin_factory=factory, clock=clock).close()
        DealerButtons(WIRING, pin_factory=factory, clock=clock).close()


def test_a_glitch_of_a_few_microseconds_is_no_press(
    panel: tuple[DealerButtons, Any, ManualClock],
) -> None:
    """The rpigpio and native drivers report a spike on the line as an edge (lgpio filters it
    in the chip): a line pressed for less than the settle time is a glitch, counted, and no
    press, however long the line was quiet before it."""
    buttons, factory, clock = panel
    pin = factory.pin(WIRING.pins["new_deck"])
    clock.advance(5.0)
    pin.drive_low()
    clock.advance(0.000004)
    pin.drive_high()
    clock.advance(1.0)
    assert buttons.take() == []
    assert buttons.report() == {"bounces": 0, "glitches": 1}


def test_a_press_counts_once_held_for_the_settle_time_and_once_only(
    panel: tuple[DealerButtons, Any, ManualClock],
) -> None:
    buttons, factory, clock = panel
    pin = factory.pin(WIRING.pins["lock_bets"])
    pin.drive_low()
    clock.advance(WIRING.settle_time / 2)
    assert buttons.take() == []  # not yet known to be a press
    clock.advance(WIRING.settle_time / 2)
    assert buttons.take() == [DealerAction.LOCK_BETS]
    clock.advance(1.0)  # held on: still the one press
    pin.drive_high()
    assert buttons.take() == []


def test_the_settle_time_comes_from_the_board_file() -> None:
    board_text = DEFAULT_BOARD.read_text().replace("settle_time = 0.02", "settle_time = 0.2")
    wiring = load_board(board_text).buttons
    assert wiring.settle_time == 0.2
    clock = ManualClock()
    with mock_pins() as factory, DealerButtons(wiring, pin_factory=factory, clock=clock) as panel:
        pin = factory.pin(wiring.pins["void"])
        pin.drive_low()
        clock.advance(0.1)
        pin.drive_high()
        assert panel.take() == []
    with pytest.raises(BoardConfigError, match=r"buttons\.settle_time must be a number of seconds"):
        load_board(board_text.replace("settle_time = 0.2", "settle_time = -1"))
