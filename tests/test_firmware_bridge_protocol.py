"""The wire format, byte for byte, and a decoder that survives anything."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import firmware_bridge
from firmware_bridge.errors import BridgeError, FrameError
from firmware_bridge.protocol import (
    MAX_PAYLOAD,
    PROTOCOL_VERSION,
    BadFrame,
    BarcodeEvent,
    Frame,
    FrameDecoder,
    FrameType,
    Hello,
    Sensor,
    SensorEvent,
    cobs_decode,
    cobs_encode,
    crc16_ccitt,
    decode,
    display_payload,
    encode,
    led_payload,
    parse_display,
    parse_leds,
)

VECTORS_PATH = Path(firmware_bridge.__file__).parent / "vectors.json"
VECTORS: dict[str, Any] = json.loads(VECTORS_PATH.read_text())


def vector_frame(vector: dict[str, Any]) -> Frame:
    return Frame(
        FrameType[vector["type"]],
        vector["seq"],
        bytes.fromhex(vector["payload"]),
        vector["version"],
    )


def test_vectors_name_this_protocol_version_and_every_type() -> None:
    assert VECTORS["protocol_version"] == PROTOCOL_VERSION
    assert VECTORS["max_payload"] == MAX_PAYLOAD
    assert VECTORS["types"] == {t.name: int(t) for t in FrameType}
    assert {v["type"] for v in VECTORS["frames"]} == {t.name for t in FrameType}
    assert {v["reason"] for v in VECTORS["bad_frames"]} == {r.value for r in BadFrame}


@pytest.mark.parametrize("vector", VECTORS["crc16_ccitt"], ids=lambda v: v["data"][:12] or "empty")
def test_crc_matches_the_published_check_values(vector: dict[str, Any]) -> None:
    assert crc16_ccitt(bytes.fromhex(vector["data"])) == vector["crc"]


@pytest.mark.parametrize("vector", VECTORS["cobs"], ids=lambda v: v["data"][:12])
def test_cobs_matches_the_reference_examples(vector: dict[str, Any]) -> None:
    data, encoded = bytes.fromhex(vector["data"]), bytes.fromhex(vector["encoded"])
    assert cobs_encode(data) == encoded
    assert cobs_decode(encoded) == data


@pytest.mark.parametrize("vector", VECTORS["frames"], ids=lambda v: v["name"])
def test_encode_is_byte_exact(vector: dict[str, Any]) -> None:
    assert encode(vector_frame(vector)).hex() == vector["wire"]


@pytest.mark.parametrize("vector", VECTORS["frames"], ids=lambda v: v["name"])
def test_decode_reads_the_vector_back(vector: dict[str, Any]) -> None:
    assert decode(bytes.fromhex(vector["wire"])) == vector_frame(vector)


@pytest.mark.parametrize("vector", VECTORS["bad_frames"], ids=lambda v: v["name"])
def test_decode_names_why_a_frame_is_refused(vector: dict[str, Any]) -> None:
    with pytest.raises(FrameError) as caught:
        decode(bytes.fromhex(vector["wire"]))
    assert caught.value.reason == vector["reason"]


def test_wire_bytes_hold_no_zero_before_the_delimiter() -> None:
    wire = encode(Frame(FrameType.DISPLAY, 0, bytes(MAX_PAYLOAD)))
    assert wire.endswith(b"\x00")
    assert 0 not in wire[:-1]


def test_an_oversized_payload_is_refused_at_encoding() -> None:
    with pytest.raises(FrameError) as caught:
        Frame(FrameType.BARCODE, 0, b"x" * (MAX_PAYLOAD + 1))
    assert caught.value.reason == "oversized"
    assert isinstance(caught.value, BridgeError)
    assert isinstance(caught.value, ValueError)


def test_out_of_range_fields_are_refused() -> None:
    with pytest.raises(FrameError):
        Frame(FrameType.ACK, 256, b"\x00")
    with pytest.raises(FrameError):
        display_payload([(256, 0, 0)])
    with pytest.raises(FrameError):
        display_payload([])


def test_payload_codecs_round_trip() -> None:
    pixels = [(1, 2, 3), (0, 0, 0), (255, 128, 7)]
    assert parse_display(display_payload(pixels)) == pixels
    changes = [(3, (255, 0, 0)), (12, (0, 0, 9))]
    assert parse_leds(led_payload(changes)) == changes
    event = SensorEvent(Sensor.SHOE_LID, True, 99)
    assert SensorEvent.from_payload(event.to_payload()) == event
    hello = Hello(0xABCD, 17, True)
    assert Hello.from_payload(hello.to_frame().payload) == hello
    holding = Hello(0xABCD, 17, False, held=8)
    assert Hello.from_payload(holding.to_frame().payload) == holding
    (vector,) = [v for v in VECTORS["frames"] if "holding 3 frames" in v["name"]]
    held = Hello.from_payload(bytes.fromhex(vector["payload"]))
    assert held == Hello(0x1234, 0, reply_requested=False, held=3)
    code = BarcodeEvent(b"DT-QH-0001", 123456)
    assert BarcodeEvent.from_payload(code.to_payload()) == code
    (vector,) = [v for v in VECTORS["frames"] if v["name"] == "barcode: a card's code"]
    assert BarcodeEvent.from_payload(bytes.fromhex(vector["payload"])) == code


def test_a_code_of_no_text_or_too_long_is_refused_at_encoding() -> None:
    with pytest.raises(FrameError):
        BarcodeEvent(b"", 5).to_payload()
    with pytest.raises(FrameError):
        BarcodeEvent(b"A" * 65, 5).to_payload()


def test_a_frame_of_protocol_1_names_its_version() -> None:
    """A firmware of the release before the codes' ticks: the decoder refuses its frames for
    their version, and says which version it speaks."""
    (vector,) = [v for v in VECTORS["bad_frames"] if v["name"].startswith("wrong version: 1")]
    decoder = FrameDecoder()
    assert decoder.feed(bytes.fromhex(vector["wire"])) == []
    assert decoder.stats.bad[BadFrame.WRONG_VERSION] == 1
    assert decoder.other_version == 1


@given(
    st.sampled_from(list(FrameType)),
    st.integers(0, 255),
    st.binary(min_size=1, max_size=MAX_PAYLOAD),
)
def test_every_well_formed_frame_round_trips(frame_type: FrameType, seq: int, raw: bytes) -> None:
    payload = _fit_payload(frame_type, raw)
    frame = Frame(frame_type, seq, payload)
    assert decode(encode(frame)) == frame
    decoder = FrameDecoder()
    assert decoder.feed(encode(frame)) == [frame]


def _fit_payload(frame_type: FrameType, raw: bytes) -> bytes:
    fixed = {
        FrameType.HELLO: 5,
        FrameType.HEARTBEAT: 3,
        FrameType.SENSOR: 6,
        FrameType.BUTTON: 2,
        FrameType.ACK: 1,
        FrameType.NAK: 2,
        FrameType.RESET: 0,
    }
    if frame_type in fixed:
        return (raw * 8)[: fixed[frame_type]]
    if frame_type is FrameType.DISPLAY:
        return (raw * 3)[: max(3, len(raw) - len(raw) % 3)]
    if frame_type is FrameType.LED:
        return (raw * 4)[: max(4, len(raw) - len(raw) % 4)]
    if frame_type is FrameType.BARCODE:
        return (b"\x00\x00\x00\x01" + raw)[:68]  # the ticks, then 1..64 bytes of text
    return raw


# -- the streaming decoder --------------------------------------------------------------


def test_stream_split_anywhere_yields_every_frame_in_order() -> None:
    frames = [vector_frame(v) for v in VECTORS["frames"]]
    stream = b"".join(encode(f) for f in frames)
    rng = random.Random(5)
    decoder = FrameDecoder()
    received: list[Frame] = []
    position = 0
    while position < len(stream):
        step = rng.randint(1, 40)
        received += decoder.feed(stream[position : position + step])
        position += step
    assert received == frames
    assert decoder.stats.bad_total == 0


def test_bad_frames_are_counted_by_reason_and_good_neighbours_survive() -> None:
    good = [vector_frame(v) for v in VECTORS["frames"][:3]]
    stream = encode(good[0])
    for vector in VECTORS["bad_frames"]:
        stream += bytes.fromhex(vector["wire"])
    stream += encode(good[1]) + b"\x00\x00" + encode(good[2])
    decoder = FrameDecoder()
    assert decoder.feed(stream) == good
    for reason in BadFrame:
        expected = sum(1 for v in VECTORS["bad_frames"] if v["reason"] == reason.value)
        assert decoder.stats.bad[reason] == expected, reason
    assert decoder.stats.frames == 3


def test_a_runaway_chunk_is_one_oversized_frame_and_is_not_buffered() -> None:
    decoder = FrameDecoder()
    for _ in range(100):
        assert decoder.feed(b"\x55" * 1000) == []
    frame = Frame(FrameType.ACK, 0, b"\x01")
    assert decoder.feed(b"\x00" + encode(frame)) == [frame]
    assert decoder.stats.bad[BadFrame.OVERSIZED] == 1


def test_a_million_random_bytes_never_raise_and_every_chunk_is_accounted_for() -> None:
    rng = random.Random(20261130)
    garbage = rng.randbytes(1_000_000)
    decoder = FrameDecoder()
    received: list[Frame] = []
    position = 0
    while position < len(garbage):
        step = rng.randint(1, 4096)
        received += decoder.feed(garbage[position : position + step])
        position += step
    chunks = [c for c in garbage.split(b"\x00")[:-1] if c]
    assert decoder.stats.chunks == len(chunks)
    assert decoder.stats.frames == len(received)
    assert decoder.stats.bad_total >= len(chunks) - len(received)
    assert decoder.stats.bytes_seen == len(garbage)
    # Random bytes almost never carry a valid checksum; those that did are counted as frames.
    assert decoder.stats.bad_total > 3000


def test_frames_between_garbage_are_all_recovered() -> None:
    rng = random.Random(77)
    expected: list[Frame] = []
    stream = bytearray()
    for index in range(2000):
        stream += rng.randbytes(rng.randint(0, 300)) + b"\x00"
        frame = Frame(FrameType.DISPLAY, index % 256, display_payload([(index % 256, 1, 2)] * 4))
        expected.append(frame)
        stream += encode(frame)
    decoder = FrameDecoder()
    received = decoder.feed(bytes(stream))
    assert [f for f in received if f.type is FrameType.DISPLAY and f in expected] == expected
    assert decoder.stats.bad_total > 1500
