"""The board definition: ``board.toml`` read into typed dataclasses, checked for clashes."""

from __future__ import annotations

import enum
import importlib
import math
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hw.errors import BoardConfigError

DEFAULT_BOARD = Path(__file__).with_name("board.toml")
BUTTON_NAMES = ("new_deck", "lock_bets", "confirm", "void", "correct")
# SPI0 on every Pi with a 40-pin header: MISO, MOSI, SCLK, CE0, CE1.
SPI0_PINS = frozenset({9, 10, 11, 8, 7})
# GPIO0/1 hold the HAT EEPROM; 2..27 are free for the table.
USABLE_PINS = range(2, 28)


class CasekeepMode(enum.Enum):
    ONE_LED = "one-led"
    TWO_LEDS = "two-leds"

    @property
    def outputs_per_card(self) -> int:
        return 1 if self is CasekeepMode.ONE_LED else 2


@dataclass(frozen=True)
class CasekeepWiring:
    spi_port: int = 0
    spi_device: int = 0
    registers: int = 7
    mode: CasekeepMode = CasekeepMode.ONE_LED


@dataclass(frozen=True)
class ButtonWiring:
    pins: dict[str, int]
    bounce_time: float = 0.05
    # How long a line must stay pressed to be a press: shorter is a glitch (hw/buttons.py).
    settle_time: float = 0.02


@dataclass(frozen=True)
class ShoeSensorWiring:
    pin: int
    active_low: bool = True


@dataclass(frozen=True)
class Board:
    name: str
    pin_factory: str
    casekeep: CasekeepWiring
    buttons: ButtonWiring
    shoe_sensor: ShoeSensorWiring
    microcontroller_url: str

    def layout_port(self, given: str = "") -> str:
        """The layout board's port: ``given`` (the table config's), else the board file's.
        None named is refused: a port called "" would be tried for ever, and never open."""
        port = given or self.microcontroller_url
        if not port:
            raise BoardConfigError(
                "[microcontroller] url: no port named for the layout board (give it here, or "
                "[hardware] microcontroller_url in the table's config; layout = false for a "
                "table without one)"
            )
        return port

    def gpio_pins(self) -> dict[str, int]:
        """Every single GPIO the board uses, by what it drives."""
        pins = {f"button {name}": pin for name, pin in self.buttons.pins.items()}
        pins["shoe sensor"] = self.shoe_sensor.pin
        return pins


def load_board(source: Path | str = DEFAULT_BOARD) -> Board:
    """Read a board definition from a TOML file path, or from TOML text; a mistake in a file
    is told with the file's name."""
    if not isinstance(source, Path):
        return _board_from_text(source)
    try:
        text = source.read_text(encoding="utf-8")
    except OSError as error:
        raise BoardConfigError(f"cannot read board definition {source}: {error}") from None
    except UnicodeDecodeError as error:
        raise BoardConfigError(
            f"{source}: not UTF-8 text (byte {error.object[error.start]:#04x} at offset "
            f"{error.start}); TOML is UTF-8"
        ) from None
    try:
        return _board_from_text(text)
    except BoardConfigError as error:
        raise BoardConfigError(f"{source}: {error}") from None


def _board_from_text(text: str) -> Board:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise BoardConfigError(f"board definition is not valid TOML: {error}") from None
    return _board_from(data)


# Every key a board file may hold, by table ("" the top level): a misspelt one would
# otherwise be passed over for its default without a word.
_KNOWN_KEYS = {
    "": {"name", "pin_factory", "casekeep", "buttons", "shoe_sensor", "microcontroller"},
    "casekeep": {"spi_port", "spi_device", "registers", "mode"},
    "buttons": {"bounce_time", "settle_time", *BUTTON_NAMES},
    "shoe_sensor": {"pin", "active_low"},
    "microcontroller": {"url"},
}


def _board_from(data: dict[str, Any]) -> Board:
    _check_keys(data, "")
    casekeep_data = _table(data, "casekeep")
    try:
        mode = CasekeepMode(casekeep_data.get("mode", "one-led"))
    except ValueError:
        known = ", ".join(m.value for m in CasekeepMode)
        raise BoardConfigError(
            f"casekeep.mode {casekeep_data.get('mode')!r} is not one of {known}"
        ) from None
    casekeep = CasekeepWiring(
        spi_port=_int(casekeep_data, "casekeep", "spi_port", 0),
        spi_device=_int(casekeep_data, "casekeep", "spi_device", 0),
        registers=_int(casekeep_data, "casekeep", "registers", 7),
        mode=mode,
    )
    # gpiozero drives SPI0 only, through CE0 or CE1; asked for another, it refuses once the
    # service is starting, so the board file is refused when it is read.
    if casekeep.spi_port != 0:
        raise BoardConfigError(
            f"casekeep.spi_port must be 0 (SPI0, the only SPI port gpiozero drives), "
            f"not {casekeep.spi_port}"
        )
    if casekeep.spi_device not in (0, 1):
        raise BoardConfigError(
            f"casekeep.spi_device must be 0 (CE0) or 1 (CE1), not {casekeep.spi_device}"
        )
    needed = -(-52 * mode.outputs_per_card // 8)
    if casekeep.registers < needed:
        raise BoardConfigError(
            f"casekeep mode {mode.value} needs {needed} shift registers, "
            f"the board has {casekeep.registers}"
        )
    buttons_data = _table(data, "buttons")
    missing = [name for name in BUTTON_NAMES if name not in buttons_data]
    if missing:
        raise BoardConfigError(f"buttons: no pin for {', '.join(missing)}")
    buttons = ButtonWiring(
        pins={name: _int(buttons_data, "buttons", name) for name in BUTTON_NAMES},
        bounce_time=_seconds(buttons_data, "buttons", "bounce_time", 0.05),
        settle_time=_seconds(buttons_data, "buttons", "settle_time", 0.02),
    )
    sensor_data = _table(data, "shoe_sensor")
    shoe_sensor = ShoeSensorWiring(
        pin=_int(sensor_data, "shoe_sensor", "pin"),
        active_low=_flag(sensor_data, "shoe_sensor", "active_low", True),
    )
    board = Board(
        name=str(data.get("name", "unnamed")),
        pin_factory=str(data.get("pin_factory", "lgpio")),
        casekeep=casekeep,
        buttons=buttons,
        shoe_sensor=shoe_sensor,
        microcontroller_url=str(_table(data, "microcontroller").get("url", "")),
    )
    _check_pins(board)
    return board


def _check_pins(board: Board) -> None:
    seen: dict[int, str] = {}
    for user, pin in board.gpio_pins().items():
        if pin not in USABLE_PINS:
            raise BoardConfigError(f"{user}: GPIO{pin} is not a usable pin (2..27)")
        if pin in SPI0_PINS:
            raise BoardConfigError(f"{user}: GPIO{pin} belongs to SPI0, which drives the casekeep")
        if pin in seen:
            raise BoardConfigError(f"{user} and {seen[pin]} both use GPIO{pin}")
        seen[pin] = user


def _table(data: dict[str, Any], key: str) -> dict[str, Any]:
    table = data.get(key)
    if not isinstance(table, dict):
        raise BoardConfigError(f"board definition has no [{key}] table")
    _check_keys(table, key)
    return table


def _check_keys(table: dict[str, Any], section: str) -> None:
    known = _KNOWN_KEYS[section]
    unknown = sorted(key for key in table if key not in known)
    if unknown:
        where = f"[{section}]" if section else "the top level"
        raise BoardConfigError(
            f"{where}: unknown key {', '.join(unknown)} (known: {', '.join(sorted(known))})"
        )


def _flag(table: dict[str, Any], section: str, key: str, default: bool) -> bool:
    value = table.get(key, default)
    if not isinstance(value, bool):
        raise BoardConfigError(f"{section}.{key} must be true or false, not {value!r}")
    return value


def _int(table: dict[str, Any], section: str, key: str, default: int | None = None) -> int:
    value = table.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int):
        raise BoardConfigError(f"{section}.{key} must be a whole number, not {value!r}")
    return value


def _seconds(table: dict[str, Any], section: str, key: str, default: float) -> float:
    value = table.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value < math.inf:
        raise BoardConfigError(
            f"{section}.{key} must be a number of seconds, 0 or more, not {value!r}"
        )
    return float(value)


def make_pin_factory(name: str) -> Any:
    """The gpiozero pin factory called ``name``: "lgpio", "rpigpio", "native" or "mock".

    On a Pi 5 only "lgpio" drives the pins; it comes from the OS package
    ``python3-lgpio`` (the PyPI wheel does not work on the Pi's aarch64).
    """
    factories = {
        "lgpio": ("gpiozero.pins.lgpio", "LGPIOFactory"),
        "rpigpio": ("gpiozero.pins.rpigpio", "RPiGPIOFactory"),
        "native": ("gpiozero.pins.native", "NativeFactory"),
        "mock": ("gpiozero.pins.mock", "MockFactory"),
    }
    try:
        module_name, class_name = factories[name]
    except KeyError:
        raise BoardConfigError(
            f"unknown pin factory {name!r} (known: {', '.join(factories)})"
        ) from None
    try:
        module = importlib.import_module(module_name)
        factory = getattr(module, class_name)()
    except Exception as error:  # a missing module, or a driver that finds no GPIO chip
        hint = " (on a Pi: apt install python3-lgpio)" if name == "lgpio" else ""
        raise BoardConfigError(f"pin factory {name!r} is not available: {error}{hint}") from None
    if name == "mock":
        from gpiozero import Device  # type: ignore[import-untyped]

        # gpiozero 2.0.1's software SPI bus, which mock pins always use, builds its base
        # Device without the factory it was handed and looks up gpiozero's default one
        # instead; off a Pi there is none, so the casekeep could not start without this.
        if Device.pin_factory is None:
            Device.pin_factory = factory
    return factory
