"""dealtable firmware for a Raspberry Pi Pico (RP2040), in MicroPython.

The microcontroller under the layout: it drives the rank and status lamps (WS2812
pixels), reads the card-slide sensor, the shoe lid switch and the box-empty switch,
forwards a UART barcode scanner, and speaks the dealtable serial protocol to the Pi
over USB (see ``firmware_bridge/protocol.py`` and ``firmware_bridge/vectors.json``,
whose vectors this module must match byte for byte).

This file is plain Python that runs unchanged under MicroPython and CPython: it
imports nothing from the board. ``main.py`` hands it the board's pins, pixels and
ports; the tests hand it stand-ins. Hence no dataclasses, enums or typing at run
time, and a clock object with ``ticks_ms()`` instead of ``time``.

On the Pico, copy ``dealfw.py`` and ``main.py`` to the board's file system.
"""

# MicroPython has neither typing nor contextlib; it never evaluates annotations.
try:  # noqa: SIM105
    from typing import Any
except ImportError:
    pass

# Version 2: a BARCODE frame carries the ticks when the scanner read the code, before its
# text. The host of another version refuses every frame: flash the firmware of its release.
PROTOCOL_VERSION = 2
MAX_PAYLOAD = 120
MAX_ENCODED = 3 + MAX_PAYLOAD + 2 + 1
MAX_BARCODE = 64  # the code's text, after the 4 bytes of ticks

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
KNOWN_TYPES = (HELLO, HEARTBEAT, DISPLAY, LED, SENSOR, BARCODE, BUTTON, ACK, NAK, ERROR, RESET)
RELIABLE_TYPES = (DISPLAY, LED, SENSOR, BARCODE, BUTTON, RESET)
FIXED_SIZES = {HELLO: 5, HEARTBEAT: 3, SENSOR: 6, BUTTON: 2, ACK: 1, NAK: 2, RESET: 0}

CARD_SLID = 1
SHOE_LID = 2
BOX_EMPTY = 3

ERROR_BAD_FRAME = 1
ERROR_WRONG_VERSION = 2
ERROR_SENSOR_CHATTER = 3
ERROR_BARCODE_TOO_LONG = 4
ERROR_QUEUE_FULL = 5

REASONS = ("malformed", "bad_checksum", "wrong_version", "unknown_type", "oversized", "bad_payload")

# Ticks wrap like MicroPython's time.ticks_ms(): elapsed time is taken modulo 2**30.
TICKS_PERIOD = 1 << 30


def elapsed_ms(now: int, then: int) -> int:
    return (now - then) % TICKS_PERIOD


def ticks_bytes(ticks: int) -> bytes:
    """The board's ticks as a frame carries them: u32, big-endian, wrapped at 2**30."""
    ticks %= TICKS_PERIOD
    return bytes((ticks >> 24, (ticks >> 16) & 0xFF, (ticks >> 8) & 0xFF, ticks & 0xFF))


def _make_crc_table() -> list[int]:
    table = []
    for byte in range(256):
        crc = byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else (crc << 1)
        table.append(crc & 0xFFFF)
    return table


CRC_TABLE = _make_crc_table()


def crc16(data: bytes) -> int:
    crc = 0xFFFF
    for byte in data:
        crc = ((crc << 8) & 0xFFFF) ^ CRC_TABLE[(crc >> 8) ^ byte]
    return crc


def cobs_encode(data: bytes) -> bytes:
    out = bytearray()
    block = bytearray()
    last = len(data) - 1
    for index in range(len(data)):
        byte = data[index]
        if byte == 0:
            out.append(len(block) + 1)
            out.extend(block)
            block = bytearray()
            continue
        block.append(byte)
        if len(block) == 0xFE:
            out.append(0xFF)
            out.extend(block)
            block = bytearray()
            if index == last:
                return bytes(out)
    out.append(len(block) + 1)
    out.extend(block)
    return bytes(out)


def cobs_decode(data: bytes) -> bytes | None:
    """The decoded bytes, or None when ``data`` is not valid COBS."""
    out = bytearray()
    index = 0
    length = len(data)
    while index < length:
        code = data[index]
        if code == 0:
            return None
        index += 1
        end = index + code - 1
        if end > length:
            return None
        for position in range(index, end):
            if data[position] == 0:
                return None
        out.extend(data[index:end])
        index = end
        if code != 0xFF and index < length:
            out.append(0)
    return bytes(out)


def encode_frame(frame_type: int, seq: int, payload: bytes) -> bytes:
    body = bytes((PROTOCOL_VERSION, frame_type, seq)) + bytes(payload)
    crc = crc16(body)
    return cobs_encode(body + bytes((crc >> 8, crc & 0xFF))) + b"\x00"


def payload_fits(frame_type: int, payload: bytes) -> bool:
    size = len(payload)
    if frame_type in FIXED_SIZES:
        return size == FIXED_SIZES[frame_type]
    if frame_type == DISPLAY:
        return size > 0 and size % 3 == 0
    if frame_type == LED:
        return size > 0 and size % 4 == 0
    if frame_type == BARCODE:
        return 4 < size <= 4 + MAX_BARCODE
    return size > 0  # ERROR


def decode_frame(chunk: bytes) -> tuple[Any, Any, Any, Any]:
    """``(frame_type, seq, payload, None)`` or ``(None, None, None, reason)``."""
    if len(chunk) > MAX_ENCODED:
        return None, None, None, "oversized"
    body = cobs_decode(chunk)
    if body is None or len(body) < 5:
        return None, None, None, "malformed"
    if crc16(body[:-2]) != (body[-2] << 8) | body[-1]:
        return None, None, None, "bad_checksum"
    if body[0] != PROTOCOL_VERSION:
        return None, None, None, "wrong_version"
    frame_type = body[1]
    if frame_type not in KNOWN_TYPES:
        return None, None, None, "unknown_type"
    payload = body[3:-2]
    if len(payload) > MAX_PAYLOAD:
        return None, None, None, "oversized"
    if not payload_fits(frame_type, payload):
        return None, None, None, "bad_payload"
    return frame_type, body[2], payload, None


class Decoder:
    """Splits the byte stream at zeros; counts what it refuses, never raises."""

    def __init__(self) -> None:
        self.buffer = bytearray()
        self.skipping = False
        self.frames = 0
        self.bad = {}
        for reason in REASONS:
            self.bad[reason] = 0
        self.last_reason = ""

    def feed(self, data: bytes) -> list[tuple[int, int, bytes]]:
        frames = []
        for byte in data:
            if byte != 0:
                if self.skipping:
                    continue
                if len(self.buffer) >= MAX_ENCODED:
                    self.buffer = bytearray()
                    self.skipping = True
                    continue
                self.buffer.append(byte)
                continue
            if self.skipping:
                self.skipping = False
                self._count("oversized")
                continue
            if not self.buffer:
                continue
            frame_type, seq, payload, reason = decode_frame(bytes(self.buffer))
            self.buffer = bytearray()
            if reason is not None:
                self._count(reason)
            else:
                self.frames += 1
                frames.append((frame_type, seq, payload))
        return frames

    def _count(self, reason: str) -> None:
        self.bad[reason] += 1
        self.last_reason = reason

    def bad_total(self) -> int:
        total = 0
        for reason in REASONS:
            total += self.bad[reason]
        return total


def seq_before(earlier: int, later: int) -> bool:
    return 0 < (later - earlier) % 256 < 128


class DebouncedInput:
    """A switch or light barrier read through a pin, with debounce and chatter guard.

    A level counts once it has held for ``stable_ms``. More than ``chatter_limit``
    raw changes inside ``chatter_window_ms`` is chatter: reported, and no event is
    made from it until the input has been quiet for a whole window.
    """

    def __init__(
        self,
        pin: "Any",
        active_low: bool = True,
        stable_ms: int = 5,
        chatter_limit: int = 8,
        chatter_window_ms: int = 100,
    ) -> None:
        self.pin = pin
        self.active_low = active_low
        self.stable_ms = stable_ms
        self.chatter_limit = chatter_limit
        self.chatter_window_ms = chatter_window_ms
        self.state = self._raw()
        self.candidate = self.state
        self.candidate_since = 0
        self.window_start = 0
        self.changes_in_window = 0
        self.chattering = False
        self.chatter_bursts = 0
        self.started = False

    def _raw(self) -> bool:
        level = bool(self.pin.value())
        return not level if self.active_low else level

    def update(self, now: int) -> tuple[bool, bool]:
        """``(changed, chatter_started)`` for this reading."""
        raw = self._raw()
        if not self.started:
            self.started = True
            self.candidate_since = now
            self.window_start = now
        chatter_started = False
        if elapsed_ms(now, self.window_start) >= self.chatter_window_ms:
            if self.chattering and self.changes_in_window == 0:
                self.chattering = False
            self.window_start = now
            self.changes_in_window = 0
        if raw != self.candidate:
            self.candidate = raw
            self.candidate_since = now
            self.changes_in_window += 1
            if self.changes_in_window > self.chatter_limit and not self.chattering:
                self.chattering = True
                self.chatter_bursts += 1
                chatter_started = True
        if self.chattering:
            return False, chatter_started
        if self.candidate != self.state and elapsed_ms(now, self.candidate_since) >= self.stable_ms:
            self.state = self.candidate
            return True, chatter_started
        return False, chatter_started


class Firmware:
    """Everything the microcontroller does, one ``poll()`` at a time.

    ``usb`` has ``read() -> bytes | None`` and ``write(bytes)``; ``pixels`` is a
    NeoPixel (``pixels[i] = (r, g, b)``, ``pixels.write()``); ``sensors`` maps a
    sensor number (CARD_SLID, SHOE_LID, BOX_EMPTY) to a :class:`DebouncedInput`;
    ``buttons`` maps a button number to one; ``scanner`` is a UART with ``any()``
    and ``read(n)``, or None; ``clock`` has ``ticks_ms()``; ``restart`` reboots the
    board; ``boot_id`` should differ from one boot to the next.
    """

    ACK_TIMEOUT_MS = 50
    HELLO_INTERVAL_MS = 100
    WINDOW = 8
    # The host sends a heartbeat every 200 ms: this long without any frame from it, it is
    # gone. The host gives the board as long (PROTOCOL.md).
    HOST_SILENT_MS = 1500
    # The status lamp after the 13 rank lamps that says the link is up (hw/WIRING.md).
    LINK_LAMP = 13
    # Events wait here while the host is away (an unplugged cable): about 20 bytes each.
    QUEUE_LIMIT = 256

    def __init__(
        self,
        usb: "Any",
        pixels: "Any",
        clock: "Any",
        boot_id: int,
        sensors: "Any" = None,
        buttons: "Any" = None,
        scanner: "Any" = None,
        restart: "Any" = None,
    ) -> None:
        self.usb = usb
        self.pixels = pixels
        self.clock = clock
        self.boot_id = boot_id & 0xFFFF
        self.sensors = sensors or {}
        self.buttons = buttons or {}
        self.scanner = scanner
        self.restart = restart
        self.decoder = Decoder()
        self.host_boot_id = -1
        self.expected_rx = -1
        self.next_seq = 0
        # Sent and not yet acknowledged, oldest first: [seq, frame_type, payload, sent_at].
        self.unacked: list[list[Any]] = []
        self.queue: list[tuple[int, bytes]] = []
        self.last_hello = -self.HELLO_INTERVAL_MS
        self.restart_at = -1
        self.nak_sent_for = -1
        self.overflowing = False
        self.barcode = bytearray()
        self.barcode_overflow = False
        self.counts = {"duplicates": 0, "out_of_order": 0, "retransmits": 0, "dropped": 0}
        self.last_heard = 0
        self.host_silent = False
        self.link_lamp_colour = (0, 0, 0)
        self.pixel_count = len(pixels)
        for index in range(self.pixel_count):
            pixels[index] = (0, 0, 0)
        pixels.write()

    @property
    def synced(self) -> bool:
        return self.host_boot_id >= 0

    RESTART_DELAY_MS = 20

    def poll(self) -> None:
        now = self.clock.ticks_ms()
        if self.restart_at >= 0 and elapsed_ms(now, self.restart_at) >= self.RESTART_DELAY_MS:
            self.restart_at = -1
            if self.restart is not None:
                self.restart()
        data = self.usb.read()
        if data:
            frames = self.decoder.feed(data)
            if frames:
                self._heard(now)
            for frame_type, seq, payload in frames:
                self._handle(now, frame_type, seq, payload)
        self._read_inputs(now)
        self._read_scanner()
        if not self.synced:
            if elapsed_ms(now, self.last_hello) >= self.HELLO_INTERVAL_MS:
                self._send_hello(now, True)
            return
        if not self.host_silent and elapsed_ms(now, self.last_heard) >= self.HOST_SILENT_MS:
            self._host_gone()
        if self.unacked and elapsed_ms(now, self.unacked[0][3]) >= self.ACK_TIMEOUT_MS:
            self._resend_all(now)
        while self.queue and len(self.unacked) < self.WINDOW:
            frame_type, payload = self.queue.pop(0)
            seq = self.next_seq
            self.unacked.append([seq, frame_type, payload, now])
            self.next_seq = (seq + 1) % 256
            self._send(frame_type, seq, payload)

    def _resend_all(self, now: int) -> None:
        for frame in self.unacked:
            self.counts["retransmits"] += 1
            frame[3] = now
            self._send(frame[1], frame[0], frame[2])

    # -- the host's presence ----------------------------------------------------------

    def _host_gone(self) -> None:
        # A service that died cannot put its link lamp out; left lit, it would say the
        # service still runs the table. The other lamps keep what the host left on them.
        self.host_silent = True
        if self.pixel_count > self.LINK_LAMP:
            self.link_lamp_colour = self.pixels[self.LINK_LAMP]
            self.pixels[self.LINK_LAMP] = (0, 0, 0)
            self.pixels.write()

    def _heard(self, now: int) -> None:
        self.last_heard = now
        if self.host_silent:
            self.host_silent = False
            if self.pixel_count > self.LINK_LAMP:
                self.pixels[self.LINK_LAMP] = self.link_lamp_colour
                self.pixels.write()

    # -- sending ----------------------------------------------------------------------

    def _send(self, frame_type: int, seq: int, payload: bytes) -> None:
        self.usb.write(encode_frame(frame_type, seq, payload))

    def _send_hello(self, now: int, reply_requested: bool) -> None:
        self.last_hello = now
        base = self.unacked[0][0] if self.unacked else self.next_seq
        # Above the reply bit, how many frames from base on are held: a host that restarted
        # knows from it which of the frames it took before can come again.
        flags = (1 if reply_requested else 0) | (len(self.unacked) << 1)
        payload = bytes((PROTOCOL_VERSION, flags, self.boot_id >> 8, self.boot_id & 0xFF, base))
        self._send(HELLO, 0, payload)

    def _report(self, code: int, detail: str) -> None:
        self._send(ERROR, 0, bytes((code,)) + detail.encode()[:100])

    def _enqueue(self, frame_type: int, payload: bytes) -> None:
        if len(self.queue) >= self.QUEUE_LIMIT:
            # The oldest waiting event goes; the host hears once per overflow that events
            # were lost, not once per event.
            self.queue.pop(0)
            self.counts["dropped"] += 1
            if not self.overflowing:
                self.overflowing = True
                self._report(ERROR_QUEUE_FULL, "event queue full")
        elif len(self.queue) < self.QUEUE_LIMIT // 2:
            self.overflowing = False
        self.queue.append((frame_type, payload))

    # -- receiving --------------------------------------------------------------------

    def _handle(self, now: int, frame_type: int, seq: int, payload: bytes) -> None:
        if frame_type == HELLO:
            self._on_hello(now, payload)
        elif frame_type == HEARTBEAT:
            if payload[0] & 1:
                self._send(HEARTBEAT, 0, bytes((0, self.boot_id >> 8, self.boot_id & 0xFF)))
        elif frame_type == ACK:
            self._on_ack(payload[0])
        elif frame_type == NAK:
            self._on_nak(now, payload[0])
        elif frame_type in RELIABLE_TYPES:
            self._on_reliable(frame_type, seq, payload)

    def _on_hello(self, now: int, payload: bytes) -> None:
        if payload[0] != PROTOCOL_VERSION:
            self._report(ERROR_WRONG_VERSION, "host protocol " + str(payload[0]))
            return
        host_boot_id = (payload[2] << 8) | payload[3]
        if host_boot_id != self.host_boot_id:
            self.host_boot_id = host_boot_id
            self.expected_rx = payload[4]
            self.nak_sent_for = -1
        elif seq_before(self.expected_rx, payload[4]):
            # The host counts as delivered frames this boot never saw (acknowledged by the
            # board before a restart); they cannot come back, so catch up.
            self.expected_rx = payload[4]
            self.nak_sent_for = -1
        if payload[1] & 1:
            self._send_hello(now, False)

    def _on_nak(self, now: int, expected: int) -> None:
        if not self.unacked:
            return
        if self._holds(expected):
            self._on_ack((expected - 1) % 256)
            self._resend_all(now)
        elif seq_before(expected, self.unacked[0][0]):
            # The host waits for a frame already acknowledged: tell it where we are.
            self._send_hello(now, False)

    def _holds(self, seq: int) -> bool:
        return any(frame[0] == seq for frame in self.unacked)

    def _on_ack(self, seq: int) -> None:
        """Acknowledgements are cumulative: everything up to ``seq`` arrived."""
        if not self._holds(seq):
            return
        while self.unacked:
            if self.unacked.pop(0)[0] == seq:
                return

    def _on_reliable(self, frame_type: int, seq: int, payload: bytes) -> None:
        if not self.synced:
            return
        if seq != self.expected_rx:
            if seq_before(seq, self.expected_rx):
                self.counts["duplicates"] += 1
                self._send(ACK, 0, bytes(((self.expected_rx - 1) % 256,)))
            else:
                self.counts["out_of_order"] += 1
                # One NAK per gap: the frames behind it would only repeat the request.
                if self.nak_sent_for != self.expected_rx:
                    self.nak_sent_for = self.expected_rx
                    self._send(NAK, 0, bytes((self.expected_rx, 0)))
            return
        self.expected_rx = (self.expected_rx + 1) % 256
        self.nak_sent_for = -1
        self._send(ACK, 0, bytes((seq,)))
        if frame_type == DISPLAY:
            for index in range(min(len(payload) // 3, self.pixel_count)):
                at = index * 3
                self.pixels[index] = (payload[at], payload[at + 1], payload[at + 2])
            self.pixels.write()
        elif frame_type == LED:
            for at in range(0, len(payload), 4):
                if payload[at] < self.pixel_count:
                    self.pixels[payload[at]] = (payload[at + 1], payload[at + 2], payload[at + 3])
            self.pixels.write()
        elif frame_type == RESET and self.restart is not None:
            # Restart a little later, so the acknowledgement leaves first.
            self.restart_at = self.clock.ticks_ms()

    # -- the table's inputs -----------------------------------------------------------

    def _read_inputs(self, now: int) -> None:
        for sensor in self.sensors:
            debounced = self.sensors[sensor]
            changed, chatter = debounced.update(now)
            if chatter:
                self._report(ERROR_SENSOR_CHATTER, "sensor " + str(sensor))
            if changed:
                state = 1 if debounced.state else 0
                self._enqueue(SENSOR, bytes((sensor, state)) + ticks_bytes(now))
        for button in self.buttons:
            debounced = self.buttons[button]
            changed, chatter = debounced.update(now)
            if chatter:
                self._report(ERROR_SENSOR_CHATTER, "button " + str(button))
            if changed:
                self._enqueue(BUTTON, bytes((button, 1 if debounced.state else 0)))

    def _read_scanner(self) -> None:
        if self.scanner is None or not self.scanner.any():
            return
        data = self.scanner.read(self.scanner.any())
        if not data:
            return
        # Read after the bytes, not at the top of the poll: the line ended at the latest now,
        # and a poll that drew the lamps may have taken a while. The host pairs the code with
        # its card's slide by these ticks, on the one clock the light barrier is read on too.
        now = self.clock.ticks_ms()
        for byte in data:
            if byte in (10, 13):
                if self.barcode and not self.barcode_overflow:
                    self._enqueue(BARCODE, ticks_bytes(now) + bytes(self.barcode))
                elif self.barcode_overflow:
                    self._report(ERROR_BARCODE_TOO_LONG, "barcode longer than 64")
                self.barcode = bytearray()
                self.barcode_overflow = False
            elif len(self.barcode) >= MAX_BARCODE:
                self.barcode_overflow = True
            else:
                self.barcode.append(byte)
