"""The board definition: the shipped one loads, and mistakes are named, not guessed."""

from __future__ import annotations

import pytest

from hw.board import DEFAULT_BOARD, CasekeepMode, load_board, make_pin_factory
from hw.errors import BoardConfigError, HardwareError

SHIPPED = DEFAULT_BOARD.read_text()


def test_the_shipped_board_loads() -> None:
    board = load_board()
    assert board.casekeep.registers == 7
    assert board.casekeep.mode is CasekeepMode.ONE_LED
    assert set(board.buttons.pins) == {"new_deck", "lock_bets", "confirm", "void", "correct"}
    assert board.pin_factory == "lgpio"
    assert board.microcontroller_url.startswith("hwgrep://")
    assert len(set(board.gpio_pins().values())) == 6


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (("void = 19", "void = 5"), "both use GPIO5"),
        (("pin = 17", "pin = 10"), "belongs to SPI0"),
        (("pin = 17", "pin = 40"), "not a usable pin"),
        (('mode = "one-led"', 'mode = "two-leds"'), "needs 13 shift registers"),
        (('mode = "one-led"', 'mode = "rainbow"'), "is not one of"),
        (("correct = 26\n", ""), "no pin for correct"),
        (("pin = 17", 'pin = "17"'), "must be a whole number"),
        (("[shoe_sensor]", "[shoe_sensor"), "not valid TOML"),
    ],
)
def test_a_bad_board_definition_says_what_is_wrong(change: tuple[str, str], message: str) -> None:
    old, new = change
    assert old in SHIPPED
    with pytest.raises(BoardConfigError, match=message) as caught:
        load_board(SHIPPED.replace(old, new, 1))
    assert isinstance(caught.value, HardwareError)
    assert isinstance(caught.value, ValueError)


def test_two_leds_on_thirteen_registers_is_fine() -> None:
    text = SHIPPED.replace('mode = "one-led"', 'mode = "two-leds"').replace(
        "registers = 7", "registers = 13"
    )
    assert load_board(text).casekeep.mode is CasekeepMode.TWO_LEDS


def test_pin_factories_are_found_by_name() -> None:
    from gpiozero.pins.mock import MockFactory  # type: ignore[import-untyped]

    assert isinstance(make_pin_factory("mock"), MockFactory)
    with pytest.raises(BoardConfigError, match="unknown pin factory"):
        make_pin_factory("wishful")
