"""The one family of errors the serial bridge raises.

Bad bytes arriving from the wire are never raised: the decoder counts them. These
errors are for callers that ask the bridge for something it cannot do, such as
encoding a frame whose payload does not fit.
"""

from __future__ import annotations


class BridgeError(ValueError):
    """Something the serial bridge refuses: nothing was sent."""


class FrameError(BridgeError):
    """A frame that cannot be encoded or decoded; ``reason`` names why."""

    def __init__(self, message: str, reason: str = "malformed") -> None:
        self.reason = reason
        super().__init__(message)


class VersionError(FrameError):
    """A whole frame, its checksum good, of another version of the protocol than this one:
    its sender's firmware or service is of another release."""

    def __init__(self, version: int, expected: int) -> None:
        self.version = version
        super().__init__(f"protocol version {version}, expected {expected}", "wrong_version")


class LinkClosedError(BridgeError, ConnectionError):
    """An operation that needs an open link was asked of a closed one."""
