"""The firmware's own code: the same vectors as the host, its inputs, its limits."""

from __future__ import annotations

import ast
import json
import random
from pathlib import Path
from typing import Any

import pytest

import firmware_bridge
from hw.firmware import dealfw
from hw.simulated.machine import UART, Pin
from hw.simulated.neopixel import NeoPixel

VECTORS: dict[str, Any] = json.loads(
    (Path(firmware_bridge.__file__).parent / "vectors.json").read_text()
)
FIRMWARE_SOURCE = Path(dealfw.__file__)


@pytest.mark.parametrize("vector", VECTORS["frames"], ids=lambda v: v["name"])
def test_firmware_encodes_every_vector_byte_for_byte(vector: dict[str, Any]) -> None:
    frame_type = VECTORS["types"][vector["type"]]
    wire = dealfw.encode_frame(frame_type, vector["seq"], bytes.fromhex(vector["payload"]))
    assert wire.hex() == vector["wire"]


@pytest.mark.parametrize("vector", VECTORS["frames"], ids=lambda v: v["name"])
def test_firmware_decodes_every_vector(vector: dict[str, Any]) -> None:
    decoder = dealfw.Decoder()
    frames = decoder.feed(bytes.fromhex(vector["wire"]))
    expected = (VECTORS["types"][vector["type"]], vector["seq"], bytes.fromhex(vector["payload"]))
    assert frames == [expected]


@pytest.mark.parametrize("vector", VECTORS["bad_frames"], ids=lambda v: v["name"])
def test_firmware_refuses_bad_frames_for_the_same_reason_as_the_host(
    vector: dict[str, Any],
) -> None:
    decoder = dealfw.Decoder()
    assert decoder.feed(bytes.fromhex(vector["wire"])) == []
    assert decoder.bad[vector["reason"]] == 1
    assert decoder.bad_total() == 1


def test_firmware_agrees_on_crc_and_cobs_vectors() -> None:
    for vector in VECTORS["crc16_ccitt"]:
        assert dealfw.crc16(bytes.fromhex(vector["data"])) == vector["crc"]
    for vector in VECTORS["cobs"]:
        assert dealfw.cobs_encode(bytes.fromhex(vector["data"])).hex() == vector["encoded"]
        assert dealfw.cobs_decode(bytes.fromhex(vector["encoded"])) == bytes.fromhex(vector["data"])


def test_firmware_decoder_survives_random_bytes() -> None:
    garbage = random.Random(99).randbytes(200_000)
    decoder = dealfw.Decoder()
    for start in range(0, len(garbage), 1000):
        decoder.feed(garbage[start : start + 1000])
    chunks = [c for c in garbage.split(b"\x00")[:-1] if c]
    assert decoder.frames + decoder.bad_total() == len(chunks)


def test_firmware_uses_nothing_micropython_lacks() -> None:
    tree = ast.parse(FIRMWARE_SOURCE.read_text())
    imported = {
        alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.Import | ast.ImportFrom)
        for alias in node.names
    }
    assert imported <= {"Any"}, imported  # typing.Any, guarded for MicroPython
    names = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}
    assert not names & {"dataclass", "Enum", "IntEnum", "struct"}


# -- the board's inputs ---------------------------------------------------------------


class TicksStandIn:
    def __init__(self) -> None:
        self.now = 0

    def ticks_ms(self) -> int:
        return self.now


class UsbStandIn:
    def __init__(self) -> None:
        self.rx = bytearray()
        self.tx = bytearray()

    def read(self) -> bytes | None:
        data, self.rx = bytes(self.rx), bytearray()
        return data or None

    def write(self, data: bytes) -> None:
        self.tx += data

    def frames(self) -> list[tuple[int, int, bytes]]:
        frames = dealfw.Decoder().feed(bytes(self.tx))
        self.tx.clear()
        return frames


def hello_payload(*rest: int) -> bytes:
    """A HELLO's payload of this protocol version: its flags, boot id and sequence number."""
    return bytes((dealfw.PROTOCOL_VERSION, *rest))


def synced_firmware(**inputs: Any) -> tuple[dealfw.Firmware, UsbStandIn, TicksStandIn]:
    usb, ticks = UsbStandIn(), TicksStandIn()
    firmware = dealfw.Firmware(usb, NeoPixel(Pin(2), 16), ticks, boot_id=0x1234, **inputs)
    usb.rx += dealfw.encode_frame(dealfw.HELLO, 0, hello_payload(0, 0x42, 0x42, 0))
    firmware.poll()
    usb.frames()
    return firmware, usb, ticks


def run(firmware: dealfw.Firmware, ticks: TicksStandIn, ms: int) -> None:
    for _ in range(ms):
        ticks.now += 1
        firmware.poll()


def test_a_bouncing_switch_makes_one_event() -> None:
    lid = Pin(11, Pin.IN, Pin.PULL_UP)
    firmware, usb, ticks = synced_firmware(sensors={dealfw.SHOE_LID: dealfw.DebouncedInput(lid)})
    for level in (0, 1, 0, 1, 0):  # contact bounce, then held open
        lid.drive(level)
        run(firmware, ticks, 1)
    run(firmware, ticks, 20)
    sensor_frames = [f for f in usb.frames() if f[0] == dealfw.SENSOR]
    assert [(f[2][0], f[2][1]) for f in sensor_frames] == [(dealfw.SHOE_LID, 1)]


def test_a_chattering_sensor_is_reported_and_makes_no_event() -> None:
    barrier = Pin(10, Pin.IN, Pin.PULL_UP)
    card = dealfw.DebouncedInput(barrier)
    firmware, usb, ticks = synced_firmware(sensors={dealfw.CARD_SLID: card})
    for flip in range(60):
        barrier.drive(flip % 2)
        run(firmware, ticks, 2)
    barrier.drive(1)
    run(firmware, ticks, 300)
    frames = usb.frames()
    errors = [f[2] for f in frames if f[0] == dealfw.ERROR]
    assert errors[0][0] == dealfw.ERROR_SENSOR_CHATTER
    assert [f for f in frames if f[0] == dealfw.SENSOR] == []
    assert card.chatter_bursts >= 1


def test_a_barcode_too_long_is_reported_not_forwarded() -> None:
    scanner = UART(1, 9600)
    firmware, usb, ticks = synced_firmware(scanner=scanner)
    scanner.receive(b"X" * 100 + b"\r\n" + b"DT-AS-0007\r\n")
    run(firmware, ticks, 5)
    frames = usb.frames()
    assert [f[2][4:] for f in frames if f[0] == dealfw.BARCODE] == [b"DT-AS-0007"]
    assert [f[2][0] for f in frames if f[0] == dealfw.ERROR] == [dealfw.ERROR_BARCODE_TOO_LONG]


def test_events_are_resent_until_acknowledged() -> None:
    scanner = UART(1, 9600)
    firmware, usb, ticks = synced_firmware(scanner=scanner)
    scanner.receive(b"A\rB\r")
    run(firmware, ticks, 1)
    first = [f for f in usb.frames() if f[0] == dealfw.BARCODE]
    assert [f[2][4:] for f in first] == [b"A", b"B"]
    run(firmware, ticks, 10)
    assert usb.frames() == []
    run(firmware, ticks, 50)
    assert [f for f in usb.frames() if f[0] == dealfw.BARCODE] == first  # no ack: both again
    usb.rx += dealfw.encode_frame(dealfw.ACK, 0, bytes((first[1][1],)))  # acks both
    run(firmware, ticks, 200)
    assert [f for f in usb.frames() if f[0] == dealfw.BARCODE] == []
    assert firmware.unacked == []


def test_a_full_event_queue_drops_the_oldest_and_says_so() -> None:
    scanner = UART(1, 9600)
    firmware, usb, ticks = synced_firmware(scanner=scanner)
    scanner.receive(b"".join(b"C%d\r" % n for n in range(300)))
    run(firmware, ticks, 1)
    assert firmware.counts["dropped"] == 300 - dealfw.Firmware.QUEUE_LIMIT
    errors = [f[2][0] for f in usb.frames() if f[0] == dealfw.ERROR]
    assert errors == [dealfw.ERROR_QUEUE_FULL]


def test_a_host_speaking_another_version_is_told_so() -> None:
    usb, ticks = UsbStandIn(), TicksStandIn()
    firmware = dealfw.Firmware(usb, NeoPixel(Pin(2), 16), ticks, boot_id=1)
    other = dealfw.PROTOCOL_VERSION + 1
    usb.rx += dealfw.encode_frame(dealfw.HELLO, 0, bytes((other, 1, 0, 1, 0)))
    firmware.poll()
    errors = [f[2] for f in usb.frames() if f[0] == dealfw.ERROR]
    assert errors
    assert errors[0][0] == dealfw.ERROR_WRONG_VERSION
    assert not firmware.synced


def test_the_frames_of_a_host_of_protocol_1_are_refused_and_none_is_taken() -> None:
    """A service of the release before the codes' ticks: its frames, HELLO and all, are
    refused for their version, and the firmware waits on, unsynced, sending nothing else."""
    usb, ticks = UsbStandIn(), TicksStandIn()
    scanner = UART(1, 9600)
    firmware = dealfw.Firmware(usb, NeoPixel(Pin(2), 16), ticks, boot_id=1, scanner=scanner)
    (vector,) = [v for v in VECTORS["bad_frames"] if v["name"].startswith("wrong version: 1")]
    usb.rx += bytes.fromhex(vector["wire"])
    scanner.receive(b"DT-AS-0007\r\n")
    run(firmware, ticks, 300)
    assert firmware.decoder.bad["wrong_version"] == 1
    assert not firmware.synced
    assert {f[0] for f in usb.frames()} == {dealfw.HELLO}


def test_a_code_carries_the_ticks_its_line_ended_at_on_the_clock_of_the_slide() -> None:
    """The code's line ends at one tick, the card breaks the beam 40 ms later: both frames
    carry the board's own ticks, so the host pairs them whatever it knows of the board's
    clock. The ticks wrap at 2**30, as MicroPython's do."""
    scanner = UART(1, 9600)
    barrier = Pin(10, Pin.IN, Pin.PULL_UP)
    card = dealfw.DebouncedInput(barrier)
    firmware, usb, ticks = synced_firmware(scanner=scanner, sensors={dealfw.CARD_SLID: card})
    ticks.now = dealfw.TICKS_PERIOD - 20
    run(firmware, ticks, 1)
    scanner.receive(b"DT-AS-")
    run(firmware, ticks, 3)  # the scanner still sending
    scanner.receive(b"0007\r\n")
    run(firmware, ticks, 1)  # its line ended: at TICKS_PERIOD - 15
    run(firmware, ticks, 39)
    barrier.drive(0)
    run(firmware, ticks, 20)  # the beam broken at 2**30 + 25, 5 ms of debounce
    sent = {(f[0], f[1]): f[2] for f in usb.frames()}  # each once, though resent unacked
    (code,) = [payload for (kind, _), payload in sent.items() if kind == dealfw.BARCODE]
    (slide,) = [payload for (kind, _), payload in sent.items() if kind == dealfw.SENSOR]
    assert code == (dealfw.TICKS_PERIOD - 15).to_bytes(4, "big") + b"DT-AS-0007"
    assert slide == bytes((dealfw.CARD_SLID, 1)) + (30).to_bytes(4, "big")


def test_ticks_wrap_like_micropython() -> None:
    assert dealfw.elapsed_ms(5, dealfw.TICKS_PERIOD - 5) == 10


def display(seq: int) -> bytes:
    return dealfw.encode_frame(dealfw.DISPLAY, seq, bytes((seq, 0, 0)))


def test_one_nak_per_gap() -> None:
    firmware, usb, _ticks = synced_firmware()
    usb.rx += display(1) + display(2) + display(3)
    firmware.poll()
    assert [f[2] for f in usb.frames() if f[0] == dealfw.NAK] == [b"\x00\x00"]
    assert firmware.counts["out_of_order"] == 3


def test_a_hello_from_the_same_host_moves_the_firmware_forward_only() -> None:
    firmware, usb, _ticks = synced_firmware()
    usb.rx += dealfw.encode_frame(dealfw.HELLO, 0, hello_payload(0, 0x42, 0x42, 5))
    usb.rx += display(5)
    firmware.poll()
    assert firmware.pixels.shown[0] == (5, 0, 0)
    usb.rx += dealfw.encode_frame(dealfw.HELLO, 0, hello_payload(0, 0x42, 0x42, 2))
    usb.rx += display(6)
    firmware.poll()
    assert firmware.pixels.shown[0] == (6, 0, 0)
    assert [f[2] for f in usb.frames() if f[0] == dealfw.ACK] == [b"\x05", b"\x06"]


def test_the_link_lamp_goes_off_while_the_host_is_silent() -> None:
    firmware, usb, ticks = synced_firmware()
    lit = [(90, 0, 0)] * 13 + [(0, 30, 0), (0, 0, 0), (0, 0, 0)]
    usb.rx += dealfw.encode_frame(dealfw.DISPLAY, 0, bytes(v for pixel in lit for v in pixel))
    run(firmware, ticks, 1400)
    assert firmware.pixels.shown == lit  # heartbeats may be late: not yet
    run(firmware, ticks, 200)
    # The host is gone: the link lamp says so; the rest shows what the host left.
    assert firmware.pixels.shown == [*lit[:13], (0, 0, 0), *lit[14:]]
    usb.rx += dealfw.encode_frame(dealfw.HEARTBEAT, 0, bytes((1, 0x42, 0x42)))
    run(firmware, ticks, 1)
    assert firmware.pixels.shown == lit


def test_a_hello_counts_the_frames_the_firmware_holds_as_the_vector_does() -> None:
    """A host that restarted asks the firmware's HELLO how many frames it holds: three codes
    sent and not acknowledged are counted above the reply bit, as vectors.json writes it."""
    scanner = UART(1, 9600)
    firmware, usb, ticks = synced_firmware(scanner=scanner)
    for code in (b"A1", b"B2", b"C3"):
        scanner.receive(code + b"\r\n")
        run(firmware, ticks, 1)
    assert len(firmware.unacked) == 3
    usb.frames()
    usb.rx += dealfw.encode_frame(dealfw.HELLO, 0, hello_payload(1, 0x43, 0x43, 0))  # a new host
    firmware.poll()
    (vector,) = [v for v in VECTORS["frames"] if "holding 3 frames" in v["name"]]
    hellos = [f[2] for f in usb.frames() if f[0] == dealfw.HELLO]
    assert hellos == [bytes.fromhex(vector["payload"])]


def test_frames_a_stopping_host_left_unacknowledged_go_to_its_next_run() -> None:
    """A host that stops acknowledges nothing more: the firmware keeps the code through the
    host's silence, counts it in its HELLO to the host's next run and sends it again."""
    scanner = UART(1, 9600)
    firmware, usb, ticks = synced_firmware(scanner=scanner)
    scanner.receive(b"DT-AS-0007\r\n")
    run(firmware, ticks, 1)
    (code,) = [f for f in usb.frames() if f[0] == dealfw.BARCODE]
    run(firmware, ticks, 5000)  # the host is gone: resent, and never given up
    assert firmware.host_silent
    assert [frame[0] for frame in firmware.unacked] == [code[1]]
    usb.frames()
    usb.rx += dealfw.encode_frame(dealfw.HELLO, 0, hello_payload(1, 0x43, 0x43, 0))  # its next run
    firmware.poll()
    hellos = [f[2] for f in usb.frames() if f[0] == dealfw.HELLO]
    assert hellos == [hello_payload(1 << 1, 0x12, 0x34, code[1])]
    run(firmware, ticks, dealfw.Firmware.ACK_TIMEOUT_MS)
    assert [f for f in usb.frames() if f[0] == dealfw.BARCODE] == [code]
