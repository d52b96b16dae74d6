"""The link to the microcontroller over any pyserial URL.

The link is a state machine driven by :meth:`SerialLink.poll`: each call reads what
has arrived, answers it, retransmits what was not acknowledged in time, sends
heartbeats and, after an unplug, reopens the port with a growing backoff. It reads
time only from the clock it is given, so tests move time by hand.

Reliability is go-back-N: frames that need an acknowledgement carry a sequence
number, at most ``window`` are in flight, the receiver takes them strictly in order
and acknowledges cumulatively. A frame that arrives twice is acknowledged again and
dropped; one that arrives ahead of a gap is refused with a NAK naming the frame the
receiver still needs. Each side starts by sending HELLO with a boot id and the
sequence number of its oldest unacknowledged frame; a HELLO with a new boot id means
the peer restarted, so the receiver resynchronises to it. A known boot id can only
move the receiver forward, never back, so a late repeat of a HELLO changes nothing.
After every link-up and every firmware restart the host sends its whole display
state again. A service that stops takes no more of the board's frames (``stop_taking``):
the board keeps them for the service's next run. A service that keeps what the board's
frames bring (``acknowledge_when_settled``) has them acknowledged only once it has
(``settled``): the board holds them until then, and sends them again to its next run should
it be killed first.
"""

from __future__ import annotations

import contextlib
import enum
import errno
import random
import select
import termios
import threading
import time
from collections import deque
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Protocol

import serial  # type: ignore[import-untyped]

from firmware_bridge.clock import Clock, DeviceClock
from firmware_bridge.errors import FrameError, LinkClosedError
from firmware_bridge.protocol import (
    MAX_PIXELS,
    PROTOCOL_VERSION,
    RGB,
    BadFrame,
    BarcodeEvent,
    ButtonEvent,
    DeviceError,
    Frame,
    FrameDecoder,
    FrameType,
    Heartbeat,
    Hello,
    Sensor,
    SensorEvent,
    ack_frame,
    display_payload,
    encode,
    led_payload,
    nak_frame,
)


class SerialPort(Protocol):
    """What the link needs of a pyserial port."""

    def read(self, size: int = 1) -> bytes: ...

    def write(self, data: bytes) -> int | None: ...

    def close(self) -> None: ...


PortOpener = Callable[[str], SerialPort]

# pyserial connects these over the network inside open(), and waits up to five seconds for a
# far end that does not answer (an adapter switched off, a cable out): they are opened on a
# helper thread, so that the table's loop never waits for them.
NETWORK_URL_SCHEMES = ("socket://", "rfc2217://")
# Bytes kept for a board that takes none (its firmware hung with its USB port still there)
# before the link is dropped; a few seconds of heartbeats and resent frames.
UNSENT_LIMIT = 16384
# Where to read how the board's firmware is flashed: the firmware of the service's own release
# speaks its protocol, and no other does.
FIRMWARE_README = "hw/firmware/README.md"
# The board's window (PROTOCOL.md; hw/firmware/dealfw.py WINDOW): the most of its frames in
# flight unacknowledged. With that many taken and not yet settled by the service, the board
# sends nothing more, and keeps what comes meanwhile in its queue.
BOARD_WINDOW = 8


def open_serial_url(url: str, baudrate: int = 115200) -> SerialPort:
    """Open any pyserial URL without blocking reads or writes: a device path, hwgrep://,
    loop://... A write takes what the port has room for and says how much that was.

    A device is held exclusively (pyserial's ``exclusive``, a lock on the open port): two
    programs reading one port each get a part of its bytes, and a second one (another
    service, hw.bridge_check run beside the service) would take codes the service never
    sees, and acknowledge them so that the board forgets them. It is refused instead."""
    # loop:// refuses every write under a zero write timeout (it times a write at the baud
    # rate); its writes never wait in any case.
    write_timeout = None if url.lower().startswith("loop://") else 0
    try:
        port: SerialPort = serial.serial_for_url(
            url, baudrate=baudrate, timeout=0, write_timeout=write_timeout, exclusive=True
        )
    except serial.SerialException as error:
        if error.errno not in (errno.EAGAIN, errno.EWOULDBLOCK):
            raise
        raise serial.SerialException(
            f"another program has {url} open (a second dealtable, hw.bridge_check, mpremote?): "
            "stop it"
        ) from None
    return port


class _OpeningInTheBackground:
    """One open of a port on a helper thread: the port, or why it could not be opened."""

    def __init__(self, opener: PortOpener, url: str) -> None:
        self._lock = threading.Lock()
        self._finished = threading.Event()
        self._port: SerialPort | None = None
        self._error: BaseException | None = None
        self._abandoned = False
        thread = threading.Thread(
            target=self._open, args=(opener, url), name=f"opening {url}", daemon=True
        )
        thread.start()

    @property
    def finished(self) -> bool:
        return self._finished.is_set()

    def result(self) -> SerialPort:
        """The port opened; raises what the opener raised."""
        if self._error is not None:
            raise self._error
        assert self._port is not None
        return self._port

    def abandon(self) -> None:
        """Nobody will take the port: close it now, or as soon as it is open."""
        with self._lock:
            self._abandoned = True
            port, self._port = self._port, None
        if port is not None:
            with contextlib.suppress(OSError, serial.SerialException):
                port.close()

    def _open(self, opener: PortOpener, url: str) -> None:
        try:
            port = opener(url)
        except BaseException as error:  # handed to the loop's thread, which judges it
            self._error = error
            self._finished.set()
            return
        with self._lock:
            abandoned = self._abandoned
            if not abandoned:
                self._port = port
        if abandoned:
            with contextlib.suppress(OSError, serial.SerialException):
                port.close()
        self._finished.set()


class LinkState(enum.Enum):
    CLOSED = "closed"
    HANDSHAKE = "handshake"
    UP = "up"


@dataclass(frozen=True)
class LinkUp:
    firmware_boot_id: int
    reconnect: bool


@dataclass(frozen=True)
class LinkDown:
    reason: str


@dataclass(frozen=True)
class FirmwareRestarted:
    firmware_boot_id: int


@dataclass(frozen=True)
class FrameId:
    """Which frame of which boot of the board: what makes a frame sent again recognisable."""

    boot_id: int
    seq: int

    def __str__(self) -> str:
        return f"{self.boot_id}/{self.seq}"

    @classmethod
    def parse(cls, text: str) -> FrameId | None:
        """The frame ``str()`` wrote, or None for text that is not one."""
        boot, _, seq = text.partition("/")
        if not (boot.isdigit() and seq.isdigit()):
            return None
        frame = cls(int(boot), int(seq))
        return frame if frame.boot_id <= 0xFFFF and frame.seq <= 0xFF else None


@dataclass(frozen=True)
class SensorChanged:
    sensor: Sensor
    active: bool
    device_ms: int
    # When the board saw it, on the link's clock (converted from device_ms by DeviceClock).
    at: float = field(default=0.0, compare=False)
    frame: FrameId | None = field(default=None, compare=False)


@dataclass(frozen=True)
class BarcodeRead:
    text: str
    # The board's ticks when its scanner read the code, on the clock of its sensors'
    # device_ms: a code and its card's slide are paired on it.
    device_ms: int
    frame: FrameId | None = field(default=None, compare=False)


@dataclass(frozen=True)
class ResentFrameDropped:
    """A frame the board sent again that an earlier run of the service had taken (its
    acknowledgement lost as the service stopped): acknowledged, and not acted on again."""

    frame: FrameId
    frame_type: FrameType


@dataclass(frozen=True)
class ButtonChanged:
    button: int
    pressed: bool
    frame: FrameId | None = field(default=None, compare=False)


@dataclass(frozen=True)
class DeviceReported:
    code: int
    detail: str


@dataclass(frozen=True)
class FramesRefused:
    """Frames that arrived damaged or unknown since the last report, by reason."""

    counts: Mapping[str, int]


LinkEvent = (
    LinkUp
    | ResentFrameDropped
    | LinkDown
    | FirmwareRestarted
    | SensorChanged
    | BarcodeRead
    | ButtonChanged
    | DeviceReported
    | FramesRefused
)
# The events a frame of the board brings the service, each named by its frame (FrameId): the
# service settles them, and after a restart tells the frames it took from those it did not.
BoardFrameEvent = SensorChanged | BarcodeRead | ButtonChanged


@dataclass(frozen=True)
class LinkConfig:
    ack_timeout: float = 0.05
    window: int = 8
    # A frame sent this many times without an acknowledgement means the link is dead.
    max_sends: int = 40
    hello_interval: float = 0.1
    heartbeat_interval: float = 0.2
    # Several heartbeats may be lost in a row on a noisy line before the link counts as dead.
    liveness_timeout: float = 1.5
    backoff_initial: float = 0.05
    backoff_max: float = 1.0
    baudrate: int = 115200

    def __post_init__(self) -> None:
        if not 1 <= self.window <= 64:
            raise ValueError(f"window {self.window} is not in 1..64")


@dataclass
class LinkStats:
    opens: int = 0
    open_failures: int = 0
    link_ups: int = 0
    link_downs: int = 0
    frames_sent: int = 0
    retransmits: int = 0
    acknowledged: int = 0
    duplicates: int = 0
    out_of_order: int = 0
    unsynced: int = 0
    firmware_restarts: int = 0
    heartbeats: int = 0
    # Frames of the board not taken because the service was stopping: the board keeps them.
    left_for_next_run: int = 0


@dataclass
class _InFlight:
    seq: int
    frame_type: FrameType
    payload: bytes
    sent_at: float
    sends: int = 1


@dataclass
class _Outgoing:
    frame_type: FrameType
    payload: bytes


def seq_before(earlier: int, later: int) -> bool:
    """Whether ``earlier`` precedes ``later`` in the wrapping 0..255 sequence."""
    return 0 < (later - earlier) % 256 < 128


class SerialLink:
    """The host end of the serial link; see the module text for the protocol.

    Not thread-safe: show, set lamps and poll from the one thread that runs the table.
    """

    def __init__(
        self,
        url: str,
        clock: Clock,
        *,
        pixel_count: int = 16,
        config: LinkConfig | None = None,
        opener: PortOpener | None = None,
        rng: random.Random | None = None,
    ) -> None:
        if not 0 < pixel_count <= MAX_PIXELS:
            raise ValueError(f"pixel_count {pixel_count} is not in 1..{MAX_PIXELS}")
        self.url = url
        self.config = config or LinkConfig()
        self._clock = clock
        self._opener: PortOpener = opener or (
            lambda u: open_serial_url(u, baudrate=self.config.baudrate)
        )
        self._opens_in_background = opener is None and url.lower().startswith(NETWORK_URL_SCHEMES)
        self._opening: _OpeningInTheBackground | None = None
        self.boot_id = (rng or random.Random()).randrange(1, 0x10000)
        self.stats = LinkStats()
        self.decoder = FrameDecoder()
        self.state = LinkState.CLOSED
        self.display: list[RGB] = [(0, 0, 0)] * pixel_count
        self.last_error: str = ""
        self._port: SerialPort | None = None
        # Encoded frames the port has had no room for yet, oldest first.
        self._unsent = bytearray()
        self._reopen_at = clock.monotonic()
        self._backoff = self.config.backoff_initial
        self._next_seq = 0
        self._in_flight: deque[_InFlight] = deque()
        self._queue: deque[_Outgoing] = deque()
        self._peer_boot_id: int | None = None
        self.device_clock = DeviceClock()  # the board's clock, for the times of its readings
        self._expected_rx: int | None = None
        # The last frame of the board that an earlier run took (resume_after), and the frames
        # of it the board holds still, to be acknowledged and dropped when they come again.
        self._taken_before: FrameId | None = None
        self._resent: tuple[int, int] | None = None  # first and last seq, of _peer_boot_id
        # Frames after it that run took too (resume_after's ``also``); once the board's HELLO
        # is heard, those of them it holds still (their seqs, of _peer_boot_id).
        self._also_taken_before: frozenset[FrameId] = frozenset()
        self._also_resent: set[int] = set()
        # The last of the board's frames acknowledged, of _peer_boot_id; and, once the service
        # acknowledges them only when settled, those taken since, each with whether it is the
        # service's to settle (a frame that brings it nothing follows those before it).
        self._acked_rx: int | None = None
        self._settled_by_service = False
        self._unsettled: deque[tuple[int, bool]] = deque()
        self._nak_sent_for: int | None = None
        self._last_rx_at = 0.0
        self._polled_at: float | None = None
        self._last_hello_at = 0.0
        self._last_heartbeat_at = 0.0
        self._ever_up = False
        self._events: list[LinkEvent] = []
        self._reported_bad = 0
        # Why the board is not taken, while its firmware speaks another version of the
        # protocol: said in place of its silence until a HELLO of this version is heard.
        self._version_trouble = ""
        self._closed = False
        # Set while the service stops: says which of the board's frames it settles then.
        self._settles_at_stop: Callable[[LinkEvent], bool] | None = None

    # -- what the table asks of it -----------------------------------------------------

    @property
    def is_up(self) -> bool:
        return self.state is LinkState.UP

    @property
    def idle(self) -> bool:
        """Nothing waits to be sent or acknowledged."""
        return not self._in_flight and not self._queue

    @property
    def queued(self) -> int:
        """Frames waiting for room in the window."""
        return len(self._queue)

    @property
    def in_flight(self) -> int:
        """Frames sent and not yet acknowledged."""
        return len(self._in_flight)

    @property
    def unsettled(self) -> int:
        """The board's frames taken and waiting for the service to settle them
        (:meth:`acknowledge_when_settled`): the board holds them, unacknowledged."""
        return len(self._unsettled)

    @property
    def board_window_full(self) -> bool:
        """Whether the board's whole window waits on the service: it sends nothing more
        until one is settled, and keeps what comes meanwhile in its queue."""
        return len(self._unsettled) >= BOARD_WINDOW

    @property
    def firmware_boot_id(self) -> int | None:
        return self._peer_boot_id

    def show(self, pixels: Sequence[RGB]) -> None:
        """Make ``pixels`` the whole display; sent now or as soon as the link is up."""
        if len(pixels) != len(self.display):
            raise FrameError(f"the display has {len(self.display)} pixels, not {len(pixels)}")
        payload = display_payload(pixels)
        self.display = list(pixels)
        self._enqueue_display(payload)

    def set_lamps(self, changes: Mapping[int, RGB]) -> None:
        """Change a few lamps; the rest of the display stays as it is."""
        for index in changes:
            if not 0 <= index < len(self.display):
                raise FrameError(f"lamp {index} is not on a {len(self.display)}-pixel display")
        payload = led_payload(sorted(changes.items()))
        for index, colour in changes.items():
            self.display[index] = colour
        if self.state is LinkState.UP:
            self._queue.append(_Outgoing(FrameType.LED, payload))
        else:
            # While the board is away, lamp changes fold into the display sent at link-up.
            self._enqueue_display(display_payload(self.display))

    def flush(self, timeout: float) -> bool:
        """Poll until everything sent is acknowledged, the link is down, or ``timeout`` seconds
        pass on the link's clock; whether everything was. What happens meanwhile is kept for
        the next :meth:`poll`."""
        deadline = self._clock.monotonic() + timeout
        happened: list[LinkEvent] = []
        while self.is_up and not self.idle and self._clock.monotonic() < deadline:
            self.wait(0.01)
            happened += self.poll()
        self._events = happened + self._events
        return self.idle

    def take_events(self) -> list[LinkEvent]:
        """What happened since the last :meth:`poll` (a :meth:`flush` keeps it for the next),
        without reading or sending anything more: a stopping service reads what the board
        said while it waited for it."""
        events, self._events = self._events, []
        return events

    def resume_after(self, taken: FrameId | None, also: Collection[FrameId] = frozenset()) -> None:
        """``taken`` is the last frame of the board an earlier run of the service acted on:
        if the same boot of the board sends it again (the acknowledgement was lost as that
        run stopped), it and the frames before it are acknowledged and dropped, never acted
        on twice. ``also`` are frames after it that run acted on too, while a frame between
        waited (the box-empty switch whose alarm the journal could not keep yet): sent
        again, they are dropped alike, and the frames between are taken. Call it before the
        link is up."""
        self._taken_before = taken
        self._also_taken_before = frozenset(also)

    @property
    def resent_to_come(self) -> frozenset[FrameId]:
        """The frames of ``resume_after``'s ``also`` the board may still send again: all of
        them until its HELLO says which it holds, then those it holds and has not sent."""
        if self._peer_boot_id is None:
            return self._also_taken_before
        return frozenset(FrameId(self._peer_boot_id, seq) for seq in self._also_resent)

    def acknowledge_when_settled(self) -> None:
        """From now on a frame of the board that brings the service something (a sensor, a
        code, a button) is acknowledged only once :meth:`settled` says the service keeps what
        it brought, and the frames after it wait behind it. Acknowledged at once, a frame the
        service was killed before keeping would be lost: the board forgets what is
        acknowledged."""
        self._settled_by_service = True

    def settled(self, frame: FrameId) -> None:
        """The service keeps what ``frame`` and every frame of the board before it brought:
        they are acknowledged. A frame of a boot gone by, or not waiting, is let be."""
        if frame.boot_id != self._peer_boot_id:
            return
        if all(seq != frame.seq for seq, _ in self._unsettled):
            return
        last = frame.seq
        while self._unsettled.popleft()[0] != frame.seq:
            pass
        while self._unsettled and not self._unsettled[0][1]:
            last = self._unsettled.popleft()[0]
        self._acked_rx = last
        self._write(self._clock.monotonic(), ack_frame(last))

    def stop_taking(self, settles: Callable[[LinkEvent], bool] = lambda _: False) -> None:
        """The service is stopping: from now on the board's frames are not acknowledged but
        left with it, and it sends them again to the next run of the service, which takes
        them as new; a frame the service acknowledged and then dropped unhandled would be
        lost (a card scanned as the service stopped). Only frames in order that ``settles``
        handles at once, and says so, are still taken; none after a frame left. Frames
        already acknowledged are acknowledged again."""
        self._settles_at_stop = settles

    def request_reset(self) -> None:
        """Ask the firmware to restart; the display is sent again when it is back."""
        self._queue.append(_Outgoing(FrameType.RESET, b""))

    def close(self) -> None:
        """Close the port for good; idempotent."""
        self._closed = True
        opening, self._opening = self._opening, None
        if opening is not None:
            opening.abandon()
        self._close_port()
        self.state = LinkState.CLOSED

    def __enter__(self) -> SerialLink:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def report(self) -> dict[str, object]:
        """Counts for a status page: the link's and the decoder's."""
        return {
            "state": self.state.value,
            "url": self.url,
            "last_error": self.last_error,
            **self.stats.__dict__,
            "decoder": self.decoder.stats.as_dict(),
        }

    # -- the state machine --------------------------------------------------------------

    def poll(self) -> list[LinkEvent]:
        """Do everything that is due now; return what happened."""
        if self._closed:
            raise LinkClosedError(f"the link to {self.url} is closed")
        now = self._clock.monotonic()
        self._away_not_counted(now)
        if self._port is None and now >= self._reopen_at:
            self._open(now)
        if self._port is not None:
            self._read(now)
        if self._port is not None:
            self._send_unsent(now)
        if self._port is not None:
            self._run_timers(now)
        if self._port is not None and self.state is LinkState.UP:
            self._fill_window(now)
        events, self._events = self._events, []
        return events

    def _away_not_counted(self, now: float) -> None:
        """The time the host did not poll (its loop held up, a stop that first gives the
        broker a few seconds) is no silence of the board's: the board speaks when asked,
        and was asked nothing meanwhile. Counted, the first poll after the wait dropped a
        link that was well, and a stopping service's dark layout never went out."""
        polled_at, self._polled_at = self._polled_at, now
        if polled_at is None:
            return
        away = now - polled_at - self.config.heartbeat_interval
        if away > 0:
            self._last_rx_at = min(now, self._last_rx_at + away)

    def wait(self, timeout: float) -> None:
        """Block for at most ``timeout`` real seconds until bytes may have arrived."""
        port = self._port
        fileno = getattr(port, "fileno", None)
        if port is not None and fileno is not None:
            try:
                select.select([fileno()], [], [], timeout)
                return
            except (OSError, ValueError, serial.SerialException):
                pass
        time.sleep(min(timeout, 0.001))

    def _open(self, now: float) -> None:
        try:
            port = self._opened_port()
        # pyserial lets termios.error (no OSError) out of tcsetattr on a device that went
        # between two of its calls while opening: the board unplugged as its port opens.
        except (OSError, ValueError, serial.SerialException, termios.error) as error:
            self.stats.open_failures += 1
            self.last_error = f"open failed: {error}"
            self._schedule_reopen(now)
            return
        if port is None:
            return
        self._port = port
        self.stats.opens += 1
        self.decoder.reset()
        self.state = LinkState.HANDSHAKE
        self._last_rx_at = now
        self._send_hello(now, reply_requested=True)

    def _opened_port(self) -> SerialPort | None:
        """The port, opened now; a network URL's on a helper thread, None until it is done."""
        if not self._opens_in_background:
            return self._opener(self.url)
        if self._opening is None:
            self._opening = _OpeningInTheBackground(self._opener, self.url)
        if not self._opening.finished:
            return None
        opening, self._opening = self._opening, None
        return opening.result()

    def _schedule_reopen(self, now: float) -> None:
        self._reopen_at = now + self._backoff
        self._backoff = min(self._backoff * 2, self.config.backoff_max)

    def _close_port(self) -> None:
        port, self._port = self._port, None
        self._unsent.clear()
        if port is not None:
            with contextlib.suppress(OSError, serial.SerialException):
                port.close()

    def _drop(self, now: float, reason: str) -> None:
        self.last_error = reason
        was_up = self.state is LinkState.UP
        self._close_port()
        self.state = LinkState.CLOSED
        self._schedule_reopen(now)
        if was_up:
            self.stats.link_downs += 1
            self._events.append(LinkDown(reason))

    def _write(self, now: float, frame: Frame) -> None:
        if self._port is None:
            return
        self._unsent += encode(frame)
        self.stats.frames_sent += 1
        self._send_unsent(now)

    def _send_unsent(self, now: float) -> None:
        """Hand the port what it has room for now; the rest waits for the next poll. A port
        that takes nothing never holds up the table: pyserial would wait (and spin) for room."""
        port = self._port
        if port is None or not self._unsent:
            return
        if not _has_room(port):
            if len(self._unsent) > UNSENT_LIMIT:
                self._drop(now, "the board takes no bytes")
            return
        try:
            written = port.write(bytes(self._unsent))
        except (OSError, serial.SerialException) as error:
            self._drop(now, f"write failed: {error}")
            return
        del self._unsent[: len(self._unsent) if written is None else written]

    def _read(self, now: float) -> None:
        assert self._port is not None
        try:
            data = self._port.read(4096)
        except (OSError, serial.SerialException) as error:
            self._drop(now, f"read failed: {error}")
            return
        if not data:
            return
        for frame in self.decoder.feed(data):
            self._last_rx_at = now
            self._handle(now, frame)
            if self._port is None:
                return
        if self.decoder.other_version is not None:
            self._speaks_another_version(self.decoder.other_version)
            self.decoder.other_version = None
        # Whole frames of another version are no damage on the line: the board's firmware is
        # of another release, which last_error says.
        stats = self.decoder.stats
        damaged = stats.bad_total - stats.bad[BadFrame.WRONG_VERSION]
        if damaged != self._reported_bad:
            self._reported_bad = damaged
            self._events.append(FramesRefused(stats.as_dict()))

    def _speaks_another_version(self, version: int) -> None:
        """The board's firmware speaks another version of the protocol: none of its frames is
        taken (their layout is not this version's), and why is said until it is flashed."""
        self._version_trouble = (
            f"the layout board's firmware speaks protocol {version} and this service "
            f"{PROTOCOL_VERSION}: flash the board with the firmware of this release "
            f"({FIRMWARE_README})"
        )
        self.last_error = self._version_trouble

    def _run_timers(self, now: float) -> None:
        if now - self._last_rx_at > self.config.liveness_timeout:
            # A firmware that speaks another version is heard, but says nothing this link takes.
            self._drop(now, self._version_trouble or "firmware silent")
            return
        if self.state is LinkState.HANDSHAKE:
            if now - self._last_hello_at >= self.config.hello_interval:
                self._send_hello(now, reply_requested=True)
            return
        if now - self._last_heartbeat_at >= self.config.heartbeat_interval:
            self._last_heartbeat_at = now
            self.stats.heartbeats += 1
            self._write(now, Heartbeat(self.boot_id, reply_requested=True).to_frame())
        if self._in_flight and now - self._in_flight[0].sent_at >= self.config.ack_timeout:
            if self._in_flight[0].sends >= self.config.max_sends:
                self._drop(now, "no acknowledgement")
                return
            self._resend_all(now)

    def _fill_window(self, now: float) -> None:
        while self._queue and len(self._in_flight) < self.config.window and self._port:
            outgoing = self._queue.popleft()
            in_flight = _InFlight(self._next_seq, outgoing.frame_type, outgoing.payload, now)
            self._next_seq = (self._next_seq + 1) % 256
            self._in_flight.append(in_flight)
            self._write(now, Frame(in_flight.frame_type, in_flight.seq, in_flight.payload))

    def _resend_all(self, now: float) -> None:
        for in_flight in list(self._in_flight):
            in_flight.sent_at = now
            in_flight.sends += 1
            self.stats.retransmits += 1
            self._write(now, Frame(in_flight.frame_type, in_flight.seq, in_flight.payload))
            if self._port is None:
                return

    def _send_in_flight_afresh(self, now: float) -> None:
        # Frames still in flight went out on a connection that is gone; on this one they
        # have not been sent at all. Counted on, the sends before the drop would end this
        # link too before a single resend.
        for in_flight in self._in_flight:
            in_flight.sends = 0
        self._resend_all(now)

    def _enqueue_display(self, payload: bytes) -> None:
        # A whole-display frame makes every display and lamp frame not yet sent pointless.
        kept = [o for o in self._queue if o.frame_type not in (FrameType.DISPLAY, FrameType.LED)]
        self._queue = deque(kept)
        self._queue.append(_Outgoing(FrameType.DISPLAY, payload))

    def _window_base(self) -> int:
        return self._in_flight[0].seq if self._in_flight else self._next_seq

    def _send_hello(self, now: float, reply_requested: bool) -> None:
        self._last_hello_at = now
        hello = Hello(self.boot_id, self._window_base(), reply_requested, held=len(self._in_flight))
        self._write(now, hello.to_frame())

    # -- what arrives -------------------------------------------------------------------

    def _handle(self, now: float, frame: Frame) -> None:
        if frame.type is FrameType.HELLO:
            self._on_hello(now, Hello.from_payload(frame.payload))
        elif frame.type is FrameType.HEARTBEAT:
            heartbeat = Heartbeat.from_payload(frame.payload)
            if heartbeat.reply_requested:
                self._write(now, Heartbeat(self.boot_id, reply_requested=False).to_frame())
        elif frame.type is FrameType.ACK:
            self._on_ack(frame.payload[0])
        elif frame.type is FrameType.NAK:
            self._on_nak(now, frame.payload[0])
        elif frame.type is FrameType.ERROR:
            error = DeviceError.from_payload(frame.payload)
            self._events.append(DeviceReported(error.code, error.detail))
        elif frame.type.is_reliable:
            self._on_reliable(now, frame)

    def _on_hello(self, now: float, hello: Hello) -> None:
        if hello.version != PROTOCOL_VERSION:
            self._speaks_another_version(hello.version)
            return
        self._version_trouble = ""
        restarted = False
        if hello.boot_id != self._peer_boot_id:
            restarted = self._peer_boot_id is not None
            self._peer_boot_id = hello.boot_id
            self.device_clock.forget()
            self._expected_rx = hello.next_seq
            self._nak_sent_for = None
            self._resent = None
            taken = self._taken_before
            self._taken_before = None
            also, self._also_taken_before = self._also_taken_before, frozenset()
            self._also_resent = {
                frame.seq
                for frame in also
                if not restarted
                and frame.boot_id == hello.boot_id
                and (frame.seq - hello.next_seq) % 256 < hello.held
            }
            # The board sends again the frames it holds, and only those: the frame taken
            # before is among them if it lies within the count its HELLO gives. Its number
            # alone, near the board's, may be one the board's count came round to since.
            if (
                not restarted
                and taken is not None
                and taken.boot_id == hello.boot_id
                and (taken.seq - hello.next_seq) % 256 < hello.held
            ):
                self._resent = (hello.next_seq, taken.seq)
                self._expected_rx = (taken.seq + 1) % 256
            self._acked_rx = (self._expected_rx - 1) % 256
            self._unsettled.clear()
            if restarted:
                self.stats.firmware_restarts += 1
                self._events.append(FirmwareRestarted(hello.boot_id))
                self._defuse_resets()
        elif self._expected_rx is not None and seq_before(self._expected_rx, hello.next_seq):
            # The firmware counts as delivered frames we never saw; they cannot come back.
            self._expected_rx = hello.next_seq
            self._acked_rx = (hello.next_seq - 1) % 256
            self._unsettled.clear()
            self._also_resent = {
                seq for seq in self._also_resent if (seq - hello.next_seq) % 256 < hello.held
            }
            self._nak_sent_for = None
        if hello.reply_requested:
            self._send_hello(now, reply_requested=False)
        if self.state is LinkState.HANDSHAKE:
            self.state = LinkState.UP
            self.stats.link_ups += 1
            self._backoff = self.config.backoff_initial
            self._last_heartbeat_at = now
            self._events.append(LinkUp(hello.boot_id, reconnect=self._ever_up))
            self._ever_up = True
            self._send_in_flight_afresh(now)
            self._enqueue_display(display_payload(self.display))
        elif restarted:
            self._enqueue_display(display_payload(self.display))

    def _defuse_resets(self) -> None:
        # A reset request still in flight has done its work once the firmware restarted;
        # sent again it would restart the new boot. Its sequence number must stay, so it
        # becomes a harmless copy of the display.
        for in_flight in self._in_flight:
            if in_flight.frame_type is FrameType.RESET:
                in_flight.frame_type = FrameType.DISPLAY
                in_flight.payload = display_payload(self.display)
        for outgoing in self._queue:
            if outgoing.frame_type is FrameType.RESET:
                outgoing.frame_type = FrameType.DISPLAY
                outgoing.payload = display_payload(self.display)

    def _on_nak(self, now: float, expected: int) -> None:
        if any(in_flight.seq == expected for in_flight in self._in_flight):
            self._on_ack((expected - 1) % 256)
            self._resend_all(now)
        elif self._in_flight and seq_before(expected, self._in_flight[0].seq):
            # The firmware waits for a frame an earlier boot of it acknowledged (its
            # acknowledgements crossed its restart): tell it where the window stands.
            self._send_hello(now, reply_requested=False)

    def _on_ack(self, seq: int) -> None:
        if all(in_flight.seq != seq for in_flight in self._in_flight):
            return
        while self._in_flight:
            acked = self._in_flight.popleft()
            self.stats.acknowledged += 1
            if acked.seq == seq:
                return

    def _drop_resent(self, frame: Frame) -> None:
        """Tell of a frame sent again that an earlier run of the service took, once."""
        resent = self._resent
        if resent is None or self._peer_boot_id is None:
            return
        first, last = resent
        if (frame.seq - first) % 256 > (last - first) % 256:
            return
        # The board sends its frames again in order: those before this one will not come.
        self._resent = None if frame.seq == last else ((frame.seq + 1) % 256, last)
        frame_id = FrameId(self._peer_boot_id, frame.seq)
        self._events.append(ResentFrameDropped(frame_id, frame.type))

    def _on_reliable(self, now: float, frame: Frame) -> None:
        expected = self._expected_rx
        if expected is None or self.state is not LinkState.UP:
            # Until the board's HELLO is heard on this connection its boot is not known: it may
            # have restarted while the port was away, and its new frames, numbered afresh,
            # would be taken for repeats of the last boot's and acknowledged away. Left
            # unacknowledged, they come again once the HELLO has been heard.
            self.stats.unsynced += 1
            return
        if frame.seq != expected:
            if seq_before(frame.seq, expected):
                self.stats.duplicates += 1
                # Those taken and not yet settled stay with the board.
                acked = (expected - 1) % 256 if self._acked_rx is None else self._acked_rx
                self._write(now, ack_frame(acked))
                self._drop_resent(frame)
            elif self._settles_at_stop is not None:
                # Behind a frame left with the board: left too, and no NAK to hurry them.
                self.stats.left_for_next_run += 1
            else:
                self.stats.out_of_order += 1
                if self._nak_sent_for != expected:
                    self._nak_sent_for = expected
                    self._write(now, nak_frame(expected))
            return
        boot = self._peer_boot_id
        if frame.seq in self._also_resent and boot is not None:
            self._take_resent_again(now, frame, boot)
            return
        event = _event_for(frame)
        if isinstance(event, BoardFrameEvent) and boot is not None:
            event = replace(event, frame=FrameId(boot, frame.seq))
        if isinstance(event, SensorChanged):
            event = replace(event, at=self.device_clock.host_time(event.device_ms, now))
        settles = self._settles_at_stop
        if settles is not None and (event is None or not settles(event)):
            self.stats.left_for_next_run += 1
            return
        self._expected_rx = (expected + 1) % 256
        self._nak_sent_for = None
        brings = isinstance(event, BoardFrameEvent)
        if self._settled_by_service and (brings or self._unsettled):
            self._unsettled.append((frame.seq, brings))
        else:
            self._acked_rx = frame.seq
            self._write(now, ack_frame(frame.seq))
        if event is not None and settles is None:
            self._events.append(event)

    def _take_resent_again(self, now: float, frame: Frame, boot: int) -> None:
        """A frame an earlier run of the service took, sent again after one it did not: taken
        in its turn, as one that brings nothing, and dropped."""
        self._also_resent.discard(frame.seq)
        self._expected_rx = (frame.seq + 1) % 256
        self._nak_sent_for = None
        if self._settled_by_service and self._unsettled:
            self._unsettled.append((frame.seq, False))  # acknowledged with those before it
        else:
            self._acked_rx = frame.seq
            self._write(now, ack_frame(frame.seq))
        self._events.append(ResentFrameDropped(FrameId(boot, frame.seq), frame.type))


def _has_room(port: SerialPort) -> bool:
    """Whether a write to ``port`` would take some bytes at once (a port that cannot say, such
    as loop://, is taken at its word)."""
    fileno = getattr(port, "fileno", None)
    if fileno is None:
        return True
    try:
        _, writable, _ = select.select([], [fileno()], [], 0)
    except (OSError, ValueError, serial.SerialException):
        return True
    return bool(writable)


def _event_for(frame: Frame) -> LinkEvent | None:
    try:
        if frame.type is FrameType.SENSOR:
            sensor = SensorEvent.from_payload(frame.payload)
            return SensorChanged(sensor.sensor, sensor.active, sensor.device_ms)
        if frame.type is FrameType.BARCODE:
            code = BarcodeEvent.from_payload(frame.payload)
            return BarcodeRead(code.text.decode("ascii", "replace"), code.device_ms)
        if frame.type is FrameType.BUTTON:
            button = ButtonEvent.from_payload(frame.payload)
            return ButtonChanged(button.button, button.pressed)
    except FrameError as error:
        return DeviceReported(0, f"unreadable {frame.type.name}: {error}")
    # Display, LED and reset frames only come back over an echoing port such as loop://.
    return None


__all__ = [
    "BOARD_WINDOW",
    "FIRMWARE_README",
    "BarcodeRead",
    "BoardFrameEvent",
    "ButtonChanged",
    "DeviceReported",
    "FirmwareRestarted",
    "FrameId",
    "FramesRefused",
    "LinkConfig",
    "LinkDown",
    "LinkEvent",
    "LinkState",
    "LinkStats",
    "LinkUp",
    "ResentFrameDropped",
    "SensorChanged",
    "SerialLink",
    "SerialPort",
    "open_serial_url",
    "seq_before",
]
