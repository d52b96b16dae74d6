"""The simulated board: a pty that unplugs like USB, faults at the rates asked for."""

from __future__ import annotations

import random
import time
from pathlib import Path

import pytest
import serial  # type: ignore[import-untyped]
from wire_fixtures import lamps

from firmware_bridge.clock import ManualClock, SystemClock
from firmware_bridge.link import SerialLink
from firmware_bridge.protocol import Frame, FrameDecoder, FrameType, encode
from hw.simulated.microcontroller import Faults, SimulatedMicrocontroller, _FaultyPipe


def test_the_board_appears_at_a_stable_path_and_unplugging_breaks_reads(tmp_path: Path) -> None:
    with SimulatedMicrocontroller(tmp_path, ManualClock()) as board:
        port = serial.serial_for_url(board.url, timeout=0)
        board.step()
        deadline = time.monotonic() + 30.0  # reached only if the board never says hello
        received = b""
        while b"\x00" not in received and time.monotonic() < deadline:
            board.wait(0.01)
            received += port.read(256)
        (hello,) = FrameDecoder().feed(received.split(b"\x00")[0] + b"\x00")
        assert hello.type is FrameType.HELLO
        board.unplug()
        assert not Path(board.url).exists()
        with pytest.raises(serial.SerialException):
            port.read(1)
        port.close()
        board.plug_in()
        assert Path(board.url).exists()


def test_faults_hit_about_the_share_of_frames_asked_for() -> None:
    pipe = _FaultyPipe(Faults(corrupt=0.10, drop=0.05), random.Random(4))
    frame = encode(Frame(FrameType.DISPLAY, 1, bytes(48)))
    for _ in range(4000):
        pipe.push(frame, 0.0)
    delivered = FrameDecoder()
    delivered.feed(pipe.take(0.0))
    counts = pipe.counts
    assert counts.frames == 4000
    assert 0.04 < counts.dropped / 4000 < 0.06
    assert 0.085 < counts.corrupted / 4000 < 0.115
    assert delivered.stats.frames + delivered.stats.bad_total >= 4000 - counts.dropped
    assert delivered.stats.frames <= 4000 - counts.dropped - counts.corrupted


def test_delayed_and_reordered_frames_still_arrive() -> None:
    pipe = _FaultyPipe(Faults(delay=0.3, reorder=0.3, delay_seconds=0.05), random.Random(8))
    frames = [Frame(FrameType.ACK, 0, bytes((n,))) for n in range(50)]
    for frame in frames:
        pipe.push(encode(frame), 0.0)
    arrived = FrameDecoder().feed(pipe.take(0.0) + pipe.take(1.0))
    assert sorted(f.payload for f in arrived) == [f.payload for f in frames]
    assert arrived != frames


def test_the_board_runs_on_its_own_thread_against_the_real_clock(tmp_path: Path) -> None:
    clock = SystemClock()
    with SimulatedMicrocontroller(tmp_path, clock) as board:
        board.start()
        with SerialLink(board.url, clock) as link:
            link.show(lamps(6, 7))
            deadline = time.monotonic() + 30.0  # reached only if the lamps never show
            while board.shown != lamps(6, 7) and time.monotonic() < deadline:
                link.poll()
                link.wait(0.002)
            assert board.shown == lamps(6, 7)
