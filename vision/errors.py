"""The one family of errors the card readers raise.

Every error is also a ``ValueError`` so the service can catch a refused frame source, a
broken deck profile or a garbage barcode with one ``except`` and turn it into an alarm.
"""

from __future__ import annotations


class VisionError(ValueError):
    """Something a card reader refuses; nothing was read."""


class FrameSourceError(VisionError):
    """A camera, video file or image folder that cannot give frames."""


class CameraUnavailableError(FrameSourceError):
    """A live camera that cannot be opened now (unplugged, its driver not ready), and may be
    once it is plugged in: not a mistake in the config."""


class ProfileError(VisionError):
    """A deck profile that cannot be taught, saved or loaded."""


class BarcodeError(VisionError):
    """A barcode payload that is not one of ours, or a sticker sheet that cannot be made."""


class ScannerError(VisionError):
    """A serial barcode scanner that cannot be opened or went away."""
