"""The board definition: the shipped one loads, and mistakes are named, not guessed."""

from __future__ import annotations

from pathlib import Path

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
        (("spi_port = 0", "spi_port = 1"), "casekeep.spi_port must be 0 .*, not 1"),
        (("spi_device = 0", "spi_device = 2"), r"casekeep.spi_device must be 0 \(CE0\) or 1"),
        (("bounce_time = 0.05", 'bounce_time = "50ms"'), "bounce_time must be a number of seconds"),
        (("bounce_time = 0.05", "bounce_time = -0.05"), "bounce_time must be a number of seconds"),
        (("active_low = true", 'active_low = "false"'), "active_low must be true or false"),
        (("active_low = true", "active_lo = false"), r"\[shoe_sensor\]: unknown key active_lo"),
        (("registers = 7", "regsiters = 7"), r"\[casekeep\]: unknown key regsiters"),
        (('name = "', 'nmae = "'), "the top level: unknown key nmae"),
    ],
)
def test_a_bad_board_definition_says_what_is_wrong(change: tuple[str, str], message: str) -> None:
    old, new = change
    assert old in SHIPPED
    with pytest.raises(BoardConfigError, match=message) as caught:
        load_board(SHIPPED.replace(old, new, 1))
    assert isinstance(caught.value, HardwareError)
    assert isinstance(caught.value, ValueError)


def test_a_mistake_in_a_board_file_names_the_file(tmp_path: Path) -> None:
    board_file = tmp_path / "board.toml"
    board_file.write_text(SHIPPED.replace("bounce_time = 0.05", 'bounce_time = "50ms"'))
    with pytest.raises(BoardConfigError) as caught:
        load_board(board_file)
    assert str(caught.value) == (
        f"{board_file}: buttons.bounce_time must be a number of seconds, 0 or more, not '50ms'"
    )


def test_two_leds_on_thirteen_registers_is_fine() -> None:
    text = SHIPPED.replace('mode = "one-led"', 'mode = "two-leds"').replace(
        "registers = 7", "registers = 13"
    )
    assert load_board(text).casekeep.mode is CasekeepMode.TWO_LEDS


def test_pin_factories_are_found_by_name(monkeypatch: pytest.MonkeyPatch) -> None:
    from gpiozero import Device  # type: ignore[import-untyped]
    from gpiozero.pins.mock import MockFactory  # type: ignore[import-untyped]

    monkeypatch.setattr(Device, "pin_factory", None)  # the mock factory becomes the default
    assert isinstance(make_pin_factory("mock"), MockFactory)
    with pytest.raises(BoardConfigError, match="unknown pin factory"):
        make_pin_factory("wishful")
