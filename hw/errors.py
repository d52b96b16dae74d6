"""The one family of errors the hardware room raises."""

from __future__ import annotations


class HardwareError(ValueError):
    """Something the table's hardware layer refuses: nothing was driven."""


class BoardConfigError(HardwareError):
    """A board definition that names a missing key, a bad pin or a clash."""


class CasekeepError(HardwareError):
    """A bead or a mode the casekeep abacus cannot show."""


class PinRefusedError(HardwareError):
    """A line the pin driver would not give: another device or program holds it."""
