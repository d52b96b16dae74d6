"""The wire format between the Pi and the table's microcontroller.

One frame on the wire is ``COBS(version, type, seq, payload..., crc_hi, crc_lo) + 0x00``:

- ``version``: the protocol version (:data:`PROTOCOL_VERSION`);
- ``type``: a :class:`FrameType`;
- ``seq``: the sender's sequence number (0-255, wrapping) for frames that must be
  acknowledged, 0 for the others;
- ``payload``: at most :data:`MAX_PAYLOAD` bytes, laid out per type below;
- ``crc``: CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF) of everything before it,
  big-endian.

COBS removes every zero byte from the frame, so a zero always ends one: a receiver
that joins mid-stream or reads garbage resynchronises at the next zero.

``encode`` and ``decode`` are pure; :class:`FrameDecoder` splits a byte stream into
frames and counts every chunk it refuses, by reason, without ever raising. The byte
layout is pinned by ``vectors.json`` beside this module, which the firmware's tests
read too.
"""

from __future__ import annotations

import enum
import struct
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from firmware_bridge.errors import FrameError, VersionError

# Version 2: a BARCODE frame carries the board's ticks when its scanner read the code, so
# that the code and its card's slide are paired on the board's one clock (PROTOCOL.md).
PROTOCOL_VERSION = 2
MAX_PAYLOAD = 120
HEADER_SIZE = 3
CRC_SIZE = 2
MAX_FRAME = HEADER_SIZE + MAX_PAYLOAD + CRC_SIZE
# COBS adds one byte per 254 and one at the start.
MAX_ENCODED = MAX_FRAME + MAX_FRAME // 254 + 1
DELIMITER = b"\x00"
MAX_PIXELS = MAX_PAYLOAD // 3
MAX_BARCODE = 64  # the scanned text's bytes
BARCODE_TICKS_SIZE = 4  # the board's ticks before the text


class FrameType(enum.IntEnum):
    HELLO = 0x01
    HEARTBEAT = 0x02
    DISPLAY = 0x10
    LED = 0x11
    SENSOR = 0x20
    BARCODE = 0x21
    BUTTON = 0x22
    ACK = 0x30
    NAK = 0x31
    ERROR = 0x40
    RESET = 0x50

    @property
    def is_reliable(self) -> bool:
        """Whether the receiver acknowledges it and the sender retransmits it."""
        return self in RELIABLE_TYPES


RELIABLE_TYPES = frozenset(
    {
        FrameType.DISPLAY,
        FrameType.LED,
        FrameType.SENSOR,
        FrameType.BARCODE,
        FrameType.BUTTON,
        FrameType.RESET,
    }
)


class BadFrame(enum.Enum):
    """Why a chunk of bytes between two delimiters was not a frame."""

    MALFORMED = "malformed"
    BAD_CHECKSUM = "bad_checksum"
    WRONG_VERSION = "wrong_version"
    UNKNOWN_TYPE = "unknown_type"
    OVERSIZED = "oversized"
    BAD_PAYLOAD = "bad_payload"


class Sensor(enum.IntEnum):
    CARD_SLID = 1
    SHOE_LID = 2
    BOX_EMPTY = 3


class DeviceErrorCode(enum.IntEnum):
    BAD_FRAME = 1
    WRONG_VERSION = 2
    SENSOR_CHATTER = 3
    BARCODE_TOO_LONG = 4
    QUEUE_FULL = 5


HELLO_REPLY_REQUESTED = 0x01
# Above the reply bit, a HELLO's flags count the frames its sender holds unacknowledged.
HELLO_HELD_SHIFT = 1
HELLO_HELD_MAX = 0x7F
HEARTBEAT_REPLY_REQUESTED = 0x01


# -- checksums and stuffing -------------------------------------------------------------


def _crc_table() -> tuple[int, ...]:
    table = []
    for byte in range(256):
        crc = byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else (crc << 1)
        table.append(crc & 0xFFFF)
    return tuple(table)


_CRC_TABLE = _crc_table()


def crc16_ccitt(data: bytes | bytearray | memoryview, crc: int = 0xFFFF) -> int:
    """CRC-16/CCITT-FALSE; ``crc16_ccitt(b"123456789") == 0x29B1``."""
    table = _CRC_TABLE
    for byte in data:
        crc = ((crc << 8) & 0xFFFF) ^ table[(crc >> 8) ^ byte]
    return crc


def cobs_encode(data: bytes | bytearray) -> bytes:
    """Consistent Overhead Byte Stuffing: the result holds no zero byte.

    Canonical form: a block of 254 non-zero bytes that ends the data is not followed
    by an empty block.
    """
    out = bytearray()
    block = bytearray()
    last = len(data) - 1
    for index, byte in enumerate(data):
        if byte == 0:
            out.append(len(block) + 1)
            out += block
            block.clear()
            continue
        block.append(byte)
        if len(block) == 0xFE:
            out.append(0xFF)
            out += block
            block.clear()
            if index == last:
                return bytes(out)
    out.append(len(block) + 1)
    out += block
    return bytes(out)


def cobs_decode(data: bytes | bytearray | memoryview) -> bytes:
    """Undo :func:`cobs_encode`; raises :class:`FrameError` on a zero or a short block."""
    out = bytearray()
    index = 0
    length = len(data)
    while index < length:
        code = data[index]
        if code == 0:
            raise FrameError("zero byte inside a COBS block", BadFrame.MALFORMED.value)
        index += 1
        end = index + code - 1
        if end > length:
            raise FrameError("COBS block runs past the end of the frame", BadFrame.MALFORMED.value)
        block = data[index:end]
        if 0 in block:
            raise FrameError("zero byte inside a COBS block", BadFrame.MALFORMED.value)
        out += block
        index = end
        if code != 0xFF and index < length:
            out.append(0)
    return bytes(out)


# -- frames -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Frame:
    type: FrameType
    seq: int = 0
    payload: bytes = b""
    version: int = PROTOCOL_VERSION

    def __post_init__(self) -> None:
        if not 0 <= self.seq <= 0xFF:
            raise FrameError(f"sequence number {self.seq} is not in 0..255")
        if not 0 <= self.version <= 0xFF:
            raise FrameError(f"version {self.version} is not in 0..255")
        if len(self.payload) > MAX_PAYLOAD:
            raise FrameError(
                f"{self.type.name} payload of {len(self.payload)} bytes exceeds {MAX_PAYLOAD}",
                BadFrame.OVERSIZED.value,
            )


def encode(frame: Frame) -> bytes:
    """The bytes that carry ``frame`` on the wire, delimiter included."""
    body = bytes((frame.version, int(frame.type), frame.seq)) + frame.payload
    crc = crc16_ccitt(body)
    return cobs_encode(body + struct.pack(">H", crc)) + DELIMITER


def decode(wire: bytes | bytearray | memoryview) -> Frame:
    """The frame in ``wire`` (one frame, with or without its delimiter).

    Raises :class:`FrameError` whose ``reason`` is a :class:`BadFrame` value.
    """
    data = bytes(wire)
    if data.endswith(DELIMITER):
        data = data[:-1]
    if len(data) > MAX_ENCODED:
        raise FrameError(f"{len(data)} bytes exceed the longest frame", BadFrame.OVERSIZED.value)
    body = cobs_decode(data)
    if len(body) < HEADER_SIZE + CRC_SIZE:
        raise FrameError(f"{len(body)} bytes is too short for a frame", BadFrame.MALFORMED.value)
    received_crc = (body[-2] << 8) | body[-1]
    if crc16_ccitt(body[:-2]) != received_crc:
        raise FrameError("checksum mismatch", BadFrame.BAD_CHECKSUM.value)
    version, type_code, seq = body[0], body[1], body[2]
    if version != PROTOCOL_VERSION:
        raise VersionError(version, PROTOCOL_VERSION)
    try:
        frame_type = FrameType(type_code)
    except ValueError:
        raise FrameError(
            f"unknown frame type 0x{type_code:02x}", BadFrame.UNKNOWN_TYPE.value
        ) from None
    payload = body[HEADER_SIZE:-CRC_SIZE]
    if len(payload) > MAX_PAYLOAD:
        raise FrameError(f"payload of {len(payload)} bytes", BadFrame.OVERSIZED.value)
    check_payload(frame_type, payload)
    return Frame(frame_type, seq, payload, version)


_FIXED_PAYLOAD_SIZES = {
    FrameType.HELLO: 5,
    FrameType.HEARTBEAT: 3,
    FrameType.SENSOR: 6,
    FrameType.BUTTON: 2,
    FrameType.ACK: 1,
    FrameType.NAK: 2,
    FrameType.RESET: 0,
}


def check_payload(frame_type: FrameType, payload: bytes) -> None:
    """Raise :class:`FrameError` (``bad_payload``) when ``payload`` does not fit its type."""
    expected = _FIXED_PAYLOAD_SIZES.get(frame_type)
    size = len(payload)
    bad = False
    if expected is not None:
        bad = size != expected
    elif frame_type is FrameType.DISPLAY:
        bad = size == 0 or size % 3 != 0
    elif frame_type is FrameType.LED:
        bad = size == 0 or size % 4 != 0
    elif frame_type is FrameType.BARCODE:
        bad = not 0 < size - BARCODE_TICKS_SIZE <= MAX_BARCODE
    elif frame_type is FrameType.ERROR:
        bad = size == 0
    if bad:
        raise FrameError(
            f"{frame_type.name} payload of {size} bytes has the wrong length",
            BadFrame.BAD_PAYLOAD.value,
        )


@dataclass
class DecodeStats:
    """What a :class:`FrameDecoder` has seen: good frames and refused chunks by reason."""

    frames: int = 0
    bad: dict[BadFrame, int] = field(default_factory=lambda: dict.fromkeys(BadFrame, 0))
    bytes_seen: int = 0

    @property
    def bad_total(self) -> int:
        return sum(self.bad.values())

    @property
    def chunks(self) -> int:
        return self.frames + self.bad_total

    def as_dict(self) -> dict[str, int]:
        report = {"frames": self.frames, "bad_total": self.bad_total}
        report.update({reason.value: count for reason, count in self.bad.items()})
        return report


class FrameDecoder:
    """Splits a byte stream into frames; never raises on what arrives.

    Each run of bytes ending in a zero is one chunk: a frame, or one bad frame
    counted under its :class:`BadFrame` reason. A run longer than the longest frame
    is counted once as oversized and skipped up to the next zero without buffering
    it. Empty runs (idle zeros) are not frames and are not counted.
    """

    def __init__(self) -> None:
        self.stats = DecodeStats()
        self.last_error: FrameError | None = None
        # The version of the last whole frame refused for its version: a peer that speaks
        # another version of the protocol.
        self.other_version: int | None = None
        self._buffer = bytearray()
        self._skipping = False

    def feed(self, data: bytes | bytearray | memoryview) -> list[Frame]:
        frames: list[Frame] = []
        chunk = bytes(data)
        self.stats.bytes_seen += len(chunk)
        start = 0
        end = len(chunk)
        while start < end:
            zero = chunk.find(0, start)
            if zero < 0:
                self._append(chunk[start:end])
                break
            self._append(chunk[start:zero])
            start = zero + 1
            frame = self._finish_chunk()
            if frame is not None:
                frames.append(frame)
        return frames

    def reset(self) -> None:
        """Forget a half-received chunk (after a reconnect); the counts stay."""
        self._buffer.clear()
        self._skipping = False

    def _append(self, part: bytes) -> None:
        if self._skipping:
            return
        if len(self._buffer) + len(part) > MAX_ENCODED:
            self._buffer.clear()
            self._skipping = True
            return
        self._buffer += part

    def _finish_chunk(self) -> Frame | None:
        if self._skipping:
            self._skipping = False
            self._count(FrameError("chunk longer than any frame", BadFrame.OVERSIZED.value))
            return None
        if not self._buffer:
            return None
        chunk = bytes(self._buffer)
        self._buffer.clear()
        try:
            frame = decode(chunk)
        except FrameError as error:
            self._count(error)
            return None
        self.stats.frames += 1
        return frame

    def _count(self, error: FrameError) -> None:
        self.last_error = error
        if isinstance(error, VersionError):
            self.other_version = error.version
        self.stats.bad[BadFrame(error.reason)] += 1


# -- payloads ---------------------------------------------------------------------------

RGB = tuple[int, int, int]


@dataclass(frozen=True, slots=True)
class Hello:
    """Sent on start and answered once: who is talking and where its sequence stands."""

    boot_id: int
    next_seq: int
    reply_requested: bool
    version: int = PROTOCOL_VERSION
    # How many frames from next_seq on the sender holds unacknowledged (0 from a firmware
    # that does not say): those it sends again, and no others.
    held: int = 0

    def to_frame(self) -> Frame:
        if not 0 <= self.held <= HELLO_HELD_MAX:
            raise FrameError(f"a HELLO counts 0..{HELLO_HELD_MAX} frames held, not {self.held}")
        flags = HELLO_REPLY_REQUESTED if self.reply_requested else 0
        flags |= self.held << HELLO_HELD_SHIFT
        payload = struct.pack(">BBHB", self.version, flags, self.boot_id, self.next_seq)
        return Frame(FrameType.HELLO, 0, payload)

    @classmethod
    def from_payload(cls, payload: bytes) -> Hello:
        version, flags, boot_id, next_seq = struct.unpack(">BBHB", payload)
        reply_requested = bool(flags & HELLO_REPLY_REQUESTED)
        return cls(boot_id, next_seq, reply_requested, version, flags >> HELLO_HELD_SHIFT)


@dataclass(frozen=True, slots=True)
class Heartbeat:
    boot_id: int
    reply_requested: bool

    def to_frame(self) -> Frame:
        flags = HEARTBEAT_REPLY_REQUESTED if self.reply_requested else 0
        return Frame(FrameType.HEARTBEAT, 0, struct.pack(">BH", flags, self.boot_id))

    @classmethod
    def from_payload(cls, payload: bytes) -> Heartbeat:
        flags, boot_id = struct.unpack(">BH", payload)
        return cls(boot_id, bool(flags & HEARTBEAT_REPLY_REQUESTED))


def display_payload(pixels: Sequence[RGB]) -> bytes:
    """A whole-display frame: every pixel's red, green and blue, in order."""
    if not 0 < len(pixels) <= MAX_PIXELS:
        raise FrameError(f"a display frame holds 1..{MAX_PIXELS} pixels, not {len(pixels)}")
    return bytes(_channel(value) for pixel in pixels for value in pixel)


def parse_display(payload: bytes) -> list[RGB]:
    return [(payload[i], payload[i + 1], payload[i + 2]) for i in range(0, len(payload), 3)]


def led_payload(changes: Iterable[tuple[int, RGB]]) -> bytes:
    """A partial update: ``(index, colour)`` for each lamp that changes."""
    out = bytearray()
    for index, (red, green, blue) in changes:
        out += bytes((_channel(index), _channel(red), _channel(green), _channel(blue)))
    if not out or len(out) > MAX_PAYLOAD:
        raise FrameError(f"an LED frame holds 1..{MAX_PAYLOAD // 4} changes")
    return bytes(out)


def parse_leds(payload: bytes) -> list[tuple[int, RGB]]:
    return [
        (payload[i], (payload[i + 1], payload[i + 2], payload[i + 3]))
        for i in range(0, len(payload), 4)
    ]


@dataclass(frozen=True, slots=True)
class SensorEvent:
    sensor: Sensor
    active: bool
    device_ms: int

    def to_payload(self) -> bytes:
        return struct.pack(">BBI", int(self.sensor), int(self.active), self.device_ms & 0xFFFFFFFF)

    @classmethod
    def from_payload(cls, payload: bytes) -> SensorEvent:
        sensor, active, device_ms = struct.unpack(">BBI", payload)
        try:
            return cls(Sensor(sensor), bool(active), device_ms)
        except ValueError:
            raise FrameError(f"unknown sensor {sensor}", BadFrame.BAD_PAYLOAD.value) from None


@dataclass(frozen=True, slots=True)
class BarcodeEvent:
    """A code the board's scanner read: its text, and the board's ticks (``ticks_ms()``,
    wrapping at 2^30) when the scanner's line ended, on the clock its sensors read too."""

    text: bytes
    device_ms: int

    def to_payload(self) -> bytes:
        if not 0 < len(self.text) <= MAX_BARCODE:
            raise FrameError(f"a code is 1..{MAX_BARCODE} bytes, not {len(self.text)}")
        return struct.pack(">I", self.device_ms & 0xFFFFFFFF) + self.text

    @classmethod
    def from_payload(cls, payload: bytes) -> BarcodeEvent:
        (device_ms,) = struct.unpack(">I", payload[:BARCODE_TICKS_SIZE])
        return cls(payload[BARCODE_TICKS_SIZE:], device_ms)


@dataclass(frozen=True, slots=True)
class ButtonEvent:
    button: int
    pressed: bool

    def to_payload(self) -> bytes:
        return bytes((_channel(self.button), int(self.pressed)))

    @classmethod
    def from_payload(cls, payload: bytes) -> ButtonEvent:
        return cls(payload[0], bool(payload[1]))


@dataclass(frozen=True, slots=True)
class DeviceError:
    code: int
    detail: str

    def to_payload(self) -> bytes:
        return bytes((_channel(self.code),)) + self.detail.encode("ascii", "replace")[:100]

    @classmethod
    def from_payload(cls, payload: bytes) -> DeviceError:
        return cls(payload[0], payload[1:].decode("ascii", "replace"))


def ack_frame(seq: int) -> Frame:
    return Frame(FrameType.ACK, 0, bytes((seq,)))


def nak_frame(expected_seq: int, reason: int = 0) -> Frame:
    return Frame(FrameType.NAK, 0, bytes((expected_seq, reason)))


def _channel(value: int) -> int:
    if not 0 <= value <= 0xFF:
        raise FrameError(f"{value} does not fit in one byte")
    return value
