"""A simulated table microcontroller: the real firmware behind a pty, with faults.

The firmware (``hw/firmware/dealfw.py``) runs on stand-ins for the Pico's pins,
pixels and barcode UART. Its USB port is the master end of a pseudo-terminal; the
host opens the slave end through a stable symlink (``url``), the way udev gives a
real board a ``/dev/serial/by-id/...`` name. Unplugging closes the master, so the
host's next read fails exactly as it does when a USB cable is pulled; replugging
makes a new pty and points the symlink at it.

Faults act on whole frames in either direction: drop, corrupt (one bit flipped),
delay, reorder (a frame held back until the next one has passed). ``reset()``
reboots the firmware: its lamps go dark and it forgets the host.

With ``protocol`` other than the firmware's own, the board is one flashed with the firmware
of another release, as the host hears it: every frame it sends carries that version, and it
refuses every frame of the host's, so it never hears the host's HELLO and sends nothing but
its own HELLOs and reports.

With ``transport="tcp"`` the board listens on a loopback TCP port instead and the
host reaches it as ``socket://127.0.0.1:PORT``, as it would a serial-to-network
adapter; unplugging drops the connection and stops listening.

Drive it step by step (``step()``) with a manual clock in tests, or let
``start()`` run it on a thread against the real clock.
"""

from __future__ import annotations

import contextlib
import os
import random
import select
import socket
import threading
import time
import tty
from dataclasses import dataclass, field
from pathlib import Path

from firmware_bridge.clock import Clock, SystemClock
from hw.firmware import dealfw
from hw.simulated.machine import UART, Pin, ResetRequestedError
from hw.simulated.neopixel import RGB, NeoPixel

CARD_SLID_PIN = 10
SHOE_LID_PIN = 11
BOX_EMPTY_PIN = 12


@dataclass(frozen=True)
class Faults:
    """Chance per frame of each fault; every direction is damaged alike."""

    drop: float = 0.0
    corrupt: float = 0.0
    delay: float = 0.0
    reorder: float = 0.0
    delay_seconds: float = 0.03

    def __post_init__(self) -> None:
        for name in ("drop", "corrupt", "delay", "reorder"):
            chance = getattr(self, name)
            if not 0.0 <= chance <= 1.0:
                raise ValueError(f"{name} chance {chance} is not in 0..1")


@dataclass
class FaultCounts:
    frames: int = 0
    dropped: int = 0
    corrupted: int = 0
    delayed: int = 0
    reordered: int = 0


@dataclass
class _FaultyPipe:
    """One direction of the cable: whole frames in, some of them damaged out."""

    faults: Faults
    rng: random.Random
    counts: FaultCounts = field(default_factory=FaultCounts)
    _partial: bytearray = field(default_factory=bytearray)
    _ready: bytearray = field(default_factory=bytearray)
    _delayed: list[tuple[float, bytes]] = field(default_factory=list)
    _held: bytes | None = None
    _held_at: float = 0.0

    def push(self, data: bytes, now: float) -> None:
        self._partial += data
        while True:
            end = self._partial.find(0)
            if end < 0:
                return
            frame = bytes(self._partial[: end + 1])
            del self._partial[: end + 1]
            self._route(frame, now)

    def _route(self, frame: bytes, now: float) -> None:
        faults, rng = self.faults, self.rng
        self.counts.frames += 1
        if rng.random() < faults.drop:
            self.counts.dropped += 1
            return
        if rng.random() < faults.corrupt and len(frame) > 1:
            damaged = bytearray(frame)
            damaged[rng.randrange(len(frame) - 1)] ^= 1 << rng.randrange(8)
            frame = bytes(damaged)
            self.counts.corrupted += 1
        if rng.random() < faults.delay:
            self.counts.delayed += 1
            self._delayed.append((now + faults.delay_seconds, frame))
            return
        if self._held is None and rng.random() < faults.reorder:
            self.counts.reordered += 1
            self._held, self._held_at = frame, now
            return
        self._ready += frame
        if self._held is not None:
            self._ready += self._held
            self._held = None

    def take(self, now: float) -> bytes:
        due = [frame for at, frame in self._delayed if at <= now]
        self._delayed = [(at, frame) for at, frame in self._delayed if at > now]
        for frame in due:
            self._ready += frame
        # A held frame with nothing behind it goes out late rather than never.
        if self._held is not None and now - self._held_at >= self.faults.delay_seconds:
            self._ready += self._held
            self._held = None
        data = bytes(self._ready)
        self._ready.clear()
        return data

    def clear(self) -> None:
        self._partial.clear()
        self._ready.clear()
        self._delayed.clear()
        self._held = None


class _UsbStandIn:
    def __init__(self) -> None:
        self.rx = bytearray()
        self.tx = bytearray()

    def read(self) -> bytes | None:
        if not self.rx:
            return None
        data = bytes(self.rx)
        self.rx.clear()
        return data

    def write(self, data: bytes) -> None:
        self.tx += data


class _Ticks:
    def __init__(self, clock: Clock) -> None:
        self._clock = clock

    def ticks_ms(self) -> int:
        return int(self._clock.monotonic() * 1000) % dealfw.TICKS_PERIOD


class SimulatedMicrocontroller:
    """The Pico under the layout, as the host sees it through a serial port."""

    def __init__(
        self,
        directory: Path,
        clock: Clock | None = None,
        *,
        faults: Faults | None = None,
        seed: int = 0,
        pixel_count: int = 16,
        transport: str = "pty",
        protocol: int = dealfw.PROTOCOL_VERSION,
    ) -> None:
        if transport not in ("pty", "tcp"):
            raise ValueError(f"transport {transport!r} is not pty or tcp")
        self.transport = transport
        self.protocol = protocol
        self.clock: Clock = clock or SystemClock()
        self.faults = faults or Faults()
        self._rng = random.Random(seed)
        self.to_device = _FaultyPipe(self.faults, random.Random(self._rng.random()))
        self.to_host = _FaultyPipe(self.faults, random.Random(self._rng.random()))
        self.link_path = Path(directory) / "ttyDEALTABLE"
        self.pixel_count = pixel_count
        self.boots = 0
        self.unplugs = 0
        self.bytes_lost_unread = 0
        self.card_pin = Pin(CARD_SLID_PIN, Pin.IN, Pin.PULL_UP)
        self.lid_pin = Pin(SHOE_LID_PIN, Pin.IN, Pin.PULL_UP)
        self.box_empty_pin = Pin(BOX_EMPTY_PIN, Pin.IN, Pin.PULL_UP)
        self.scanner = UART(1, 9600)
        self._master: int | None = None
        self._slave: int | None = None
        self._listener: socket.socket | None = None
        self._connection: socket.socket | None = None
        self._tcp_port = 0
        self._lock = threading.RLock()
        self._thread: threading.Thread | None = None
        self._running = False
        self.firmware = self._boot()
        self.plug_in()

    @property
    def url(self) -> str:
        if self.transport == "tcp":
            return f"socket://127.0.0.1:{self._tcp_port}"
        return str(self.link_path)

    @property
    def plugged_in(self) -> bool:
        return self._master is not None or self._listener is not None

    @property
    def shown(self) -> list[RGB]:
        """What the lamps show now."""
        pixels: NeoPixel = self.firmware.pixels
        return list(pixels.shown)

    # -- the physical acts --------------------------------------------------------------

    def plug_in(self) -> None:
        with self._lock:
            if self.plugged_in:
                return
            if self.transport == "tcp":
                self._listen()
                return
            master, slave = os.openpty()
            tty.setraw(master)
            # Raw on the device side too, or the line discipline echoes and buffers lines.
            tty.setraw(slave)
            os.set_blocking(master, False)
            self._master, self._slave = master, slave
            temporary = self.link_path.with_name(self.link_path.name + ".new")
            with contextlib.suppress(FileNotFoundError):
                temporary.unlink()
            temporary.symlink_to(os.ttyname(slave))
            os.replace(temporary, self.link_path)

    def unplug(self) -> None:
        with self._lock:
            self.unplugs += 1
            with contextlib.suppress(FileNotFoundError):
                self.link_path.unlink()
            if self.transport == "tcp":
                for sock in (self._connection, self._listener):
                    if sock is not None:
                        sock.close()
                self._connection = self._listener = None
                self._master = None
            else:
                for fd in (self._master, self._slave):
                    if fd is not None:
                        os.close(fd)
                self._master = self._slave = None
            self.to_device.clear()
            self.to_host.clear()

    def reset(self) -> None:
        """Reboot the firmware (a brown-out or the reset button)."""
        with self._lock:
            self.firmware = self._boot()

    def lose_what_the_host_sent(self) -> None:
        """The bytes on their way from the host are lost: a service that stopped with its last
        acknowledgement still in a buffer (a TCP serial adapter's, a pty's)."""
        with self._lock:
            if self._master is not None:
                self._read_master(self._master)
            self.to_device.clear()

    def block_card_sensor(self, blocked: bool = True) -> None:
        self.card_pin.drive(0 if blocked else 1)

    def open_lid(self, is_open: bool = True) -> None:
        self.lid_pin.drive(0 if is_open else 1)

    def scan(self, code: str) -> None:
        self.scanner.receive(code.encode("ascii") + b"\r\n")

    # -- running ------------------------------------------------------------------------

    def step(self) -> None:
        """Move bytes both ways and give the firmware one pass."""
        with self._lock:
            now = self.clock.monotonic()
            if self.transport == "tcp":
                self._accept()
            master = self._master
            if master is not None:
                data = self._read_master(master)
                if data:
                    self.to_device.push(data, now)
            usb: _UsbStandIn = self.firmware.usb
            usb.rx += self._heard(self.to_device.take(now))
            try:
                self.firmware.poll()
            except ResetRequestedError:
                if usb.tx:
                    self.to_host.push(self._spoken(bytes(usb.tx)), now)
                self.firmware = self._boot()
                usb = self.firmware.usb
            if usb.tx:
                self.to_host.push(self._spoken(bytes(usb.tx)), now)
                usb.tx.clear()
            outgoing = self.to_host.take(now)
            if outgoing and self._master is not None:
                self._write_master(self._master, outgoing)

    def wait(self, timeout: float) -> None:
        """Block up to ``timeout`` real seconds for bytes from the host."""
        waitable: int | socket.socket | None = self._master
        if waitable is None:
            waitable = self._listener
        if waitable is None:
            time.sleep(timeout)
            return
        with contextlib.suppress(OSError, ValueError):
            select.select([waitable], [], [], timeout)

    def start(self) -> None:
        """Run on a thread against the real clock until :meth:`stop`."""
        if self._thread is not None:
            return
        self._running = True
        self._thread = threading.Thread(target=self._run, name="simulated-pico", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._running = False
        if self._thread is not None:
            self._thread.join(timeout=2.0)
            self._thread = None

    def close(self) -> None:
        self.stop()
        if self.plugged_in:
            self.unplug()

    def __enter__(self) -> SimulatedMicrocontroller:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _run(self) -> None:
        while self._running:
            self.wait(0.001)
            self.step()

    def _boot(self) -> dealfw.Firmware:
        self.boots += 1
        pixels = NeoPixel(Pin(2), self.pixel_count)

        def debounced(pin: Pin) -> dealfw.DebouncedInput:
            return dealfw.DebouncedInput(pin, True, stable_ms=5, chatter_limit=8)

        return dealfw.Firmware(
            usb=_UsbStandIn(),
            pixels=pixels,
            clock=_Ticks(self.clock),
            boot_id=self._rng.randrange(1, 0x10000),
            sensors={
                dealfw.CARD_SLID: debounced(self.card_pin),
                dealfw.SHOE_LID: debounced(self.lid_pin),
                dealfw.BOX_EMPTY: debounced(self.box_empty_pin),
            },
            scanner=self.scanner,
            restart=_restart,
        )

    def _listen(self) -> None:
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        # A replugged adapter comes back at the same address.
        listener.bind(("127.0.0.1", self._tcp_port))
        listener.listen(1)
        listener.setblocking(False)
        self._tcp_port = listener.getsockname()[1]
        self._listener = listener

    def _accept(self) -> None:
        if self._listener is None or self._connection is not None:
            return
        try:
            connection, _ = self._listener.accept()
        except (BlockingIOError, InterruptedError):
            return
        connection.setblocking(False)
        connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self._connection = connection
        self._master = connection.fileno()

    def _hang_up(self) -> None:
        """The host closed its end of the TCP connection; wait for the next one."""
        if self._connection is not None:
            self._connection.close()
        self._connection = None
        self._master = None

    def _read_master(self, master: int) -> bytes:
        chunks = []
        while True:
            try:
                chunk = os.read(master, 65536)
            except (BlockingIOError, InterruptedError):
                break
            except OSError:
                # EIO: nobody holds the slave end open (the host closed the port).
                break
            if not chunk:
                if self.transport == "tcp":
                    self._hang_up()
                break
            chunks.append(chunk)
        return b"".join(chunks)

    def _write_master(self, master: int, data: bytes) -> None:
        try:
            written = os.write(master, data)
        except BlockingIOError:
            written = 0
        except OSError:
            written = 0
        # A USB port whose host is not reading loses what does not fit.
        self.bytes_lost_unread += len(data) - written

    def _heard(self, data: bytes) -> bytes:
        """What the firmware hears of ``data`` from the host: all of it, unless the board
        speaks another version, whose firmware refuses every frame of the host's."""
        if self.protocol == dealfw.PROTOCOL_VERSION:
            return data
        return b""

    def _spoken(self, data: bytes) -> bytes:
        """The firmware's frames in ``data`` as the board's version of the protocol puts
        them: the version in each (a HELLO's payload names it too)."""
        if self.protocol == dealfw.PROTOCOL_VERSION:
            return data
        out = bytearray()
        for frame_type, seq, payload in dealfw.Decoder().feed(data):
            if frame_type == dealfw.HELLO:
                payload = bytes((self.protocol,)) + payload[1:]
            body = bytes((self.protocol, frame_type, seq)) + payload
            crc = dealfw.crc16(body)
            out += dealfw.cobs_encode(body + bytes((crc >> 8, crc & 0xFF))) + b"\x00"
        return bytes(out)


def _restart() -> None:
    raise ResetRequestedError()
