"""The link to the microcontroller: the real firmware on a simulated board over a pty."""

from __future__ import annotations

import contextlib
import errno
import itertools
import os
import random
import socket
import termios
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import serial  # type: ignore[import-untyped]
from wire_fixtures import Bench, lamps, run_board, table_bench

from firmware_bridge.clock import ManualClock
from firmware_bridge.errors import LinkClosedError
from firmware_bridge.link import (
    BarcodeRead,
    DeviceReported,
    FirmwareRestarted,
    FramesRefused,
    LinkConfig,
    LinkDown,
    LinkEvent,
    LinkState,
    LinkUp,
    SensorChanged,
    SerialLink,
)
from firmware_bridge.protocol import (
    BarcodeEvent,
    DeviceErrorCode,
    Frame,
    FrameType,
    Heartbeat,
    Hello,
    Sensor,
    SensorEvent,
    decode,
    encode,
)
from hw.simulated.microcontroller import Faults, SimulatedMicrocontroller


def deal_a_turn(bench: Bench, turn: int) -> list[tuple[int, int, int]]:
    """What a turn of Faro lights: the two ranks it showed and a status lamp."""
    display = lamps(turn % 13, (turn * 5 + 3) % 13, colour=(255, 40, 0))
    display[13 + turn % 3] = (0, 255, 0)
    bench.link.show(display)
    return display


def test_link_comes_up_and_the_board_shows_what_the_host_sends(tmp_path: Path) -> None:
    with table_bench(tmp_path) as bench:
        bench.link.show(lamps(0, 12))
        bench.drive(lambda: bench.board.shown == lamps(0, 12))
        assert bench.of_type(LinkUp) == [LinkUp(bench.board.firmware.boot_id, reconnect=False)]
        bench.link.set_lamps({5: (0, 0, 255), 0: (0, 0, 0)})
        expected = lamps(12)
        expected[5] = (0, 0, 255)
        bench.drive(lambda: bench.board.shown == expected and bench.link.idle)
        assert bench.link.display == expected


def test_display_ends_right_with_a_tenth_corrupted_and_a_twentieth_dropped(
    tmp_path: Path,
) -> None:
    faults = Faults(corrupt=0.10, drop=0.05, delay=0.02, reorder=0.02)
    with table_bench(tmp_path, faults=faults, seed=7) as bench:
        bench.drive(lambda: bench.link.is_up)
        for turn in range(60):
            final = deal_a_turn(bench, turn)
            if turn % 4 == 0:
                bench.link.set_lamps({15: (turn, 0, 0)})
                final[15] = (turn, 0, 0)
            bench.run_for(0.01)
        bench.drive(lambda: bench.link.idle and bench.board.shown == final)
        bench.run_for(0.3)
        assert bench.board.shown == final
        damaged = bench.board.to_device.counts
        assert damaged.corrupted > 0
        assert damaged.dropped > 0
        assert bench.link.stats.retransmits > 0
        assert bench.board.firmware.decoder.bad_total() > 0
        assert bench.link.decoder.stats.bad_total > 0
        assert bench.of_type(FramesRefused)
        assert not bench.of_type(LinkDown)


def test_unplug_and_replug_reconnects_within_two_seconds_and_resends_the_display(
    tmp_path: Path,
) -> None:
    with table_bench(tmp_path) as bench:
        bench.link.show(lamps(1))
        bench.drive(lambda: bench.board.shown == lamps(1) and bench.link.idle)
        bench.board.unplug()
        bench.drive(lambda: bool(bench.of_type(LinkDown)), within=0.1)
        # The table goes on while the cable is out.
        bench.link.show(lamps(2))
        bench.run_for(0.4)
        bench.board.plug_in()
        took = bench.drive(lambda: bench.link.is_up, within=2.0)
        assert took < 2.0
        assert bench.of_type(LinkUp)[-1].reconnect
        bench.drive(lambda: bench.board.shown == lamps(2), within=0.5)


def test_a_long_unplug_still_reconnects_within_two_seconds_of_the_replug(tmp_path: Path) -> None:
    with table_bench(tmp_path) as bench:
        bench.drive(lambda: bench.link.is_up)
        bench.board.unplug()
        bench.run_for(6.0)
        failures = bench.link.stats.open_failures
        # Backoff: a handful of attempts in six seconds, not one every step.
        assert 3 <= failures <= 12
        bench.board.plug_in()
        assert bench.drive(lambda: bench.link.is_up, within=2.0) <= 2.0
        assert [type(e) for e in bench.events] == [LinkUp, LinkDown, LinkUp]


def test_a_firmware_reset_mid_deal_shows_the_current_state_again(tmp_path: Path) -> None:
    with table_bench(tmp_path, faults=Faults(corrupt=0.05, drop=0.05), seed=3) as bench:
        bench.drive(lambda: bench.link.is_up)
        for turn in range(10):
            current = deal_a_turn(bench, turn)
            bench.run_for(0.02)
        bench.drive(lambda: bench.board.shown == current and bench.link.idle)
        old_boot = bench.board.firmware.boot_id
        bench.board.reset()
        assert bench.board.shown == lamps()  # a rebooted board starts dark
        bench.drive(lambda: bench.board.shown == current, within=2.0)
        restarted = bench.of_type(FirmwareRestarted)
        assert [e.firmware_boot_id for e in restarted] == [bench.board.firmware.boot_id]
        assert restarted[0].firmware_boot_id != old_boot
        # The deal goes on after the reset.
        current = deal_a_turn(bench, 11)
        bench.drive(lambda: bench.board.shown == current and bench.link.idle)


def test_the_host_can_ask_the_firmware_to_restart(tmp_path: Path) -> None:
    with table_bench(tmp_path) as bench:
        bench.link.show(lamps(4))
        bench.drive(lambda: bench.board.shown == lamps(4) and bench.link.idle)
        bench.link.request_reset()
        bench.drive(lambda: bool(bench.of_type(FirmwareRestarted)))
        assert bench.board.boots == 2
        bench.drive(lambda: bench.board.shown == lamps(4))


def test_a_card_slide_is_reported_once_even_when_acks_are_lost(tmp_path: Path) -> None:
    with table_bench(tmp_path, faults=Faults(drop=0.3), seed=11) as bench:
        bench.drive(lambda: bench.link.is_up)
        for _ in range(5):
            bench.board.block_card_sensor(True)
            bench.run_for(0.05)
            bench.board.block_card_sensor(False)
            bench.run_for(0.05)
        slides = lambda: [  # noqa: E731
            e for e in bench.of_type(SensorChanged) if e.sensor is Sensor.CARD_SLID
        ]
        bench.drive(lambda: len(slides()) == 10 and not bench.board.firmware.unacked)
        bench.run_for(0.5)
        assert [e.active for e in slides()] == [True, False] * 5  # type: ignore[attr-defined]
        assert bench.link.stats.duplicates + bench.board.firmware.counts["retransmits"] > 0


def test_barcodes_and_the_shoe_lid_reach_the_host(tmp_path: Path) -> None:
    with table_bench(tmp_path) as bench:
        bench.drive(lambda: bench.link.is_up)
        scanned_at = bench.board.firmware.clock.ticks_ms()
        bench.board.scan("DT-QH-0001")
        bench.board.open_lid()
        bench.drive(lambda: len(bench.of_type(BarcodeRead)) == 1 and bench.of_type(SensorChanged))
        (code,) = bench.of_type(BarcodeRead)
        assert isinstance(code, BarcodeRead) and code.text == "DT-QH-0001"
        lid = bench.of_type(SensorChanged)[0]
        assert isinstance(lid, SensorChanged)
        assert (lid.sensor, lid.active) == (Sensor.SHOE_LID, True)
        # Each stamped with the board's own clock: the code as its line ended, the lid once
        # it held still through the debounce (three passes of the board later).
        assert (code.device_ms, lid.device_ms) == (scanned_at, scanned_at + 6)


def test_a_chattering_sensor_is_reported_and_makes_no_card(tmp_path: Path) -> None:
    with table_bench(tmp_path) as bench:
        bench.drive(lambda: bench.link.is_up)
        for flip in range(40):
            bench.board.block_card_sensor(flip % 2 == 0)
            bench.step()  # 2 ms: shorter than the debounce time
        bench.board.block_card_sensor(False)
        bench.run_for(0.5)
        reports = bench.of_type(DeviceReported)
        assert any(
            isinstance(r, DeviceReported) and r.code == DeviceErrorCode.SENSOR_CHATTER
            for r in reports
        )
        assert bench.of_type(SensorChanged) == []


def test_a_silent_firmware_takes_the_link_down_and_back_up(tmp_path: Path) -> None:
    with table_bench(tmp_path) as bench:
        bench.drive(lambda: bench.link.is_up)
        for _ in range(round(1.7 / 0.002)):  # the board hangs: plugged in, saying nothing
            bench.events += bench.link.poll()
            bench.clock.advance(0.002)
        assert bench.of_type(LinkDown) == [LinkDown("firmware silent")]
        bench.drive(lambda: bench.link.is_up, within=2.0)


def test_a_wrong_protocol_version_is_counted_and_said_not_taken_for_damage() -> None:
    clock = ManualClock()
    port = ScriptedPort()
    link = SerialLink("scripted://", clock, opener=lambda url: port)
    link.poll()
    body = bytes((3, int(FrameType.HELLO), 0)) + bytes((3, 1, 0, 9, 0))
    port.incoming += _raw_frame(body)
    events = link.poll()
    assert not link.is_up
    assert link.decoder.stats.as_dict()["wrong_version"] == 1
    assert events == []  # no damaged frame on the line
    assert "firmware speaks protocol 3 and this service 2" in link.last_error


def test_a_board_whose_firmware_speaks_protocol_1_is_named_and_none_of_its_frames_taken(
    tmp_path: Path,
) -> None:
    """The board still runs the firmware of the release before the codes' ticks: its
    frames are refused, a code it read among them, and never acknowledged (the board keeps
    them for the firmware flashed); the link says why it stays down, naming the firmware's
    README, through its silences and reopenings alike."""
    clock = ManualClock(1000.0)
    with SimulatedMicrocontroller(tmp_path, clock, protocol=1) as board:
        link = SerialLink(board.url, clock)
        bench = Bench(clock, board, link)
        try:
            board.scan("DT-QH-0001")
            bench.run_for(5.0)
            assert not link.is_up and link.stats.opens > 1
            assert link.last_error == (
                "the layout board's firmware speaks protocol 1 and this service 2: flash the "
                "board with the firmware of this release (hw/firmware/README.md)"
            )
            assert bench.of_type(BarcodeRead) == bench.of_type(FramesRefused) == []
            assert link.stats.frames_sent and not board.firmware.synced
        finally:
            link.close()


# -- step by step against a scripted port -----------------------------------------------


class ScriptedPort:
    """A port whose far end is the test itself."""

    def __init__(self) -> None:
        self.incoming = bytearray()
        self.written: list[Frame] = []
        self.closed = False

    def read(self, size: int = 1) -> bytes:
        if self.closed:
            raise serial.SerialException("device reports readiness to read but returned no data")
        data = bytes(self.incoming[:size])
        del self.incoming[:size]
        return data

    def write(self, data: bytes) -> int:
        for chunk in data.split(b"\x00")[:-1]:
            self.written.append(decode(chunk))
        return len(data)

    def close(self) -> None:
        self.closed = True

    def sent(self, frame_type: FrameType) -> list[Frame]:
        return [f for f in self.written if f.type is frame_type]


def _raw_frame(body: bytes) -> bytes:
    from firmware_bridge.protocol import cobs_encode, crc16_ccitt

    crc = crc16_ccitt(body)
    return cobs_encode(body + bytes((crc >> 8, crc & 0xFF))) + b"\x00"


def scripted_link(config: LinkConfig | None = None) -> tuple[ManualClock, ScriptedPort, SerialLink]:
    clock = ManualClock()
    port = ScriptedPort()
    link = SerialLink("scripted://", clock, opener=lambda url: port, config=config)
    link.poll()
    port.incoming += encode(Hello(0x4242, 0, reply_requested=False).to_frame())
    assert link.poll() == [LinkUp(0x4242, reconnect=False)]
    # The link-up display goes out at once; acknowledge it so each test starts idle.
    (first_display,) = port.sent(FrameType.DISPLAY)
    port.incoming += encode(Frame(FrameType.ACK, 0, bytes((first_display.seq,))))
    link.poll()
    assert link.idle
    port.written.clear()
    return clock, port, link


def test_an_unacknowledged_frame_is_sent_again_after_the_ack_timeout() -> None:
    clock, port, link = scripted_link(LinkConfig(ack_timeout=0.05))
    link.show(lamps(3))
    link.poll()
    displays = port.sent(FrameType.DISPLAY)
    assert len(displays) == 1
    clock.advance(0.049)
    link.poll()
    assert len(port.sent(FrameType.DISPLAY)) == 1
    clock.advance(0.001)
    link.poll()
    assert port.sent(FrameType.DISPLAY) == displays * 2
    port.incoming += encode(Frame(FrameType.ACK, 0, bytes((displays[0].seq,))))
    link.poll()
    clock.advance(0.2)
    link.poll()
    assert len(port.sent(FrameType.DISPLAY)) == 2
    assert link.idle
    assert link.stats.retransmits == 1


def test_a_nak_resends_from_the_frame_the_firmware_still_needs() -> None:
    _, port, link = scripted_link(LinkConfig(window=4))
    for lamp in range(3):
        link.set_lamps({lamp: (1, 1, 1)})
        link.poll()
    link.show(lamps(9))
    link.poll()
    first = [f.seq for f in port.written if f.type.is_reliable]
    assert len(first) == 4
    port.incoming += encode(Frame(FrameType.NAK, 0, bytes((first[2], 0))))
    link.poll()
    resent = [f.seq for f in port.written if f.type.is_reliable][4:]
    assert resent == first[2:]


def test_a_repeated_sensor_frame_is_acknowledged_twice_and_delivered_once() -> None:
    _, port, link = scripted_link()
    slid = Frame(FrameType.SENSOR, 0, SensorEvent(Sensor.CARD_SLID, True, 5).to_payload())
    port.incoming += encode(slid) + encode(slid)
    events = link.poll()
    assert events == [SensorChanged(Sensor.CARD_SLID, True, 5)]
    assert [f.payload for f in port.sent(FrameType.ACK)] == [b"\x00", b"\x00"]
    assert link.stats.duplicates == 1


def test_a_frame_ahead_of_a_gap_is_refused_with_a_nak() -> None:
    _, port, link = scripted_link()
    ahead = Frame(FrameType.BUTTON, 1, b"\x02\x01")
    port.incoming += encode(ahead)
    assert link.poll() == []
    assert [f.payload for f in port.sent(FrameType.NAK)] == [b"\x00\x00"]
    assert link.stats.out_of_order == 1


def test_a_stopping_link_leaves_the_boards_frames_with_it_but_those_the_service_settles() -> None:
    """As the service stops, the board's frames are not acknowledged, so that the board keeps
    them for the next run; a frame the service settles at once is still taken, in order,
    and a frame taken before is acknowledged again. No NAK hurries the frames left."""
    _, port, link = scripted_link()
    slid = Frame(FrameType.SENSOR, 0, SensorEvent(Sensor.CARD_SLID, True, 5).to_payload())
    port.incoming += encode(slid)
    link.poll()
    port.written.clear()
    settled: list[object] = []

    def settles(event: object) -> bool:
        settled.append(event)
        return isinstance(event, SensorChanged)

    link.stop_taking(settles)
    lid = Frame(FrameType.SENSOR, 1, SensorEvent(Sensor.SHOE_LID, True, 9).to_payload())
    code = Frame(FrameType.BARCODE, 2, BarcodeEvent(b"DT-AS-0007", 10).to_payload())
    after = Frame(FrameType.SENSOR, 3, SensorEvent(Sensor.SHOE_LID, False, 12).to_payload())
    port.incoming += encode(slid) + encode(lid) + encode(code) + encode(after)
    assert link.poll() == []
    assert [f.payload for f in port.sent(FrameType.ACK)] == [b"\x00", b"\x01"]
    assert port.sent(FrameType.NAK) == []
    assert settled == [SensorChanged(Sensor.SHOE_LID, True, 9), BarcodeRead("DT-AS-0007", 10)]
    assert link.stats.left_for_next_run == 2


def test_a_frame_the_service_keeps_is_acknowledged_only_once_it_says_it_settled_it() -> None:
    """Acknowledged once the service settles it: until then the board holds the frame (and
    those after it), and a frame sent again is answered with the last settled, not with it.
    A frame that brings the service nothing waits behind those before it."""
    _, port, link = scripted_link()
    link.acknowledge_when_settled()
    slid = Frame(FrameType.SENSOR, 0, SensorEvent(Sensor.CARD_SLID, True, 5).to_payload())
    code = Frame(FrameType.BARCODE, 1, BarcodeEvent(b"DT-AS-0007", 6).to_payload())
    echo = Frame(FrameType.DISPLAY, 2, b"\x00\x00\x00")
    port.incoming += encode(slid) + encode(code) + encode(echo)
    events = link.poll()
    assert [type(event) for event in events] == [SensorChanged, BarcodeRead]
    assert port.sent(FrameType.ACK) == []
    port.incoming += encode(slid)  # the board's timer ran out: it sends its frames again
    link.poll()
    assert [f.payload for f in port.sent(FrameType.ACK)] == [b"\xff"]  # none settled yet
    port.written.clear()
    first, second = (
        event.frame for event in events if isinstance(event, SensorChanged | BarcodeRead)
    )
    assert first is not None and second is not None
    link.settled(first)
    assert [f.payload for f in port.sent(FrameType.ACK)] == [b"\x00"]
    port.written.clear()
    link.settled(second)  # the display's echo behind it goes with it
    assert [f.payload for f in port.sent(FrameType.ACK)] == [b"\x02"]
    port.written.clear()
    link.settled(second)  # settled already: nothing more to say
    assert port.sent(FrameType.ACK) == []


def test_an_unplug_is_link_down_and_reopening_backs_off() -> None:
    clock, port, link = scripted_link(LinkConfig(backoff_initial=0.1, backoff_max=0.4))
    port.closed = True
    events = link.poll()
    assert [type(e) for e in events] == [LinkDown]
    attempts: list[float] = []
    link._opener = lambda url: _refuse(attempts, clock)  # the port is gone
    for _ in range(200):
        clock.advance(0.01)
        link.poll()
    gaps = [round(b - a, 2) for a, b in itertools.pairwise(attempts)]
    assert gaps[:3] == [0.2, 0.4, 0.4]


def _refuse(attempts: list[float], clock: ManualClock) -> ScriptedPort:
    attempts.append(clock.monotonic())
    raise serial.SerialException("could not open port: No such file or directory")


def test_a_closed_link_refuses_to_poll() -> None:
    _, port, link = scripted_link()
    link.close()
    link.close()
    with pytest.raises(LinkClosedError):
        link.poll()
    assert port.closed


def test_loop_url_talks_to_its_own_echo() -> None:
    clock = ManualClock()
    with SerialLink("loop://", clock) as link:
        events = link.poll()
        events += link.poll()
        assert [type(e) for e in events] == [LinkUp]
        link.show(lamps(7))
        for _ in range(5):
            link.poll()
        assert link.idle


def test_a_missing_port_is_counted_not_raised(tmp_path: Path) -> None:
    clock = ManualClock()
    link = SerialLink(str(tmp_path / "no-such-tty"), clock)
    for _ in range(30):
        link.poll()
        clock.advance(0.1)
    assert not link.is_up
    assert link.stats.open_failures >= 3
    assert "open failed" in link.last_error


def test_a_port_that_vanishes_while_pyserial_sets_it_up_is_tried_again() -> None:
    """pyserial lets termios.error out of an open whose device goes between two of its calls
    (the board unplugged as the port opens): that is a failed open, tried again, not a crash
    of the service's loop."""
    clock = ManualClock()
    port = ScriptedPort()
    opens: list[str] = []

    def gone_then_back(url: str) -> ScriptedPort:
        opens.append(url)
        if len(opens) == 1:
            raise termios.error(errno.EIO, "Input/output error")
        return port

    link = SerialLink("scripted://", clock, opener=gone_then_back)
    while len(opens) < 2:
        link.poll()
        clock.advance(0.1)
    assert link.stats.open_failures == 1
    port.incoming += encode(Hello(0x4242, 0, reply_requested=False).to_frame())
    assert link.poll() == [LinkUp(0x4242, reconnect=False)]


def test_a_second_program_on_the_boards_port_is_refused_and_takes_no_card(
    tmp_path: Path,
) -> None:
    """Two programs reading one serial port each get a part of its bytes: a second service,
    or hw.bridge_check run beside the service, would read codes the service never sees (and
    acknowledge them, so that the board forgets them). The first holds the port: the second
    is refused, and every code reaches the first."""
    with table_bench(tmp_path) as bench:
        bench.drive(lambda: bench.link.is_up)
        second = SerialLink(bench.board.url, bench.clock)
        try:
            heard_by_second: list[LinkEvent] = []
            codes = [f"DT-{turn:04d}" for turn in range(10)]
            for code in codes:
                bench.board.scan(code)
                run_board(
                    bench.board,
                    bench.clock,
                    0.1,
                    # Which program reads the port first is the kernel's choice.
                    lambda: heard_by_second.extend(second.poll()),
                    lambda: bench.events.extend(bench.link.poll()),
                )
            assert [e.text for e in bench.of_type(BarcodeRead) if isinstance(e, BarcodeRead)] == (
                codes
            )
            assert heard_by_second == []
            assert second.stats.opens == 0
            assert second.last_error == (
                f"open failed: another program has {bench.board.url} open (a second dealtable, "
                "hw.bridge_check, mpremote?): stop it"
            )
        finally:
            second.close()


def test_socket_url_reaches_the_board_and_reconnects(tmp_path: Path) -> None:
    clock = ManualClock(50.0)
    board = SimulatedMicrocontroller(tmp_path, clock, transport="tcp")
    link = SerialLink(board.url, clock)
    bench = Bench(clock, board, link)
    try:
        assert board.url.startswith("socket://127.0.0.1:")
        link.show(lamps(3, 4))
        bench.drive(lambda: board.shown == lamps(3, 4) and link.idle)
        board.unplug()
        bench.drive(lambda: bool(bench.of_type(LinkDown)), within=2.0)
        link.show(lamps(8))
        board.plug_in()
        assert bench.drive(lambda: link.is_up, within=2.0) <= 2.0
        bench.drive(lambda: board.shown == lamps(8))
    finally:
        link.close()
        board.close()


@contextlib.contextmanager
def a_network_adapter_that_answers_no_one() -> Iterator[str]:
    """A TCP port whose queue of connections is full: a new connection's first packet goes
    unanswered, as it does for an adapter that is switched off."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(0)
        address = listener.getsockname()
        with contextlib.ExitStack() as waiting:
            for _ in range(2):
                queued = waiting.enter_context(socket.socket())
                queued.setblocking(False)
                queued.connect_ex(address)
            yield f"socket://{address[0]}:{address[1]}"


def test_a_network_board_that_does_not_answer_never_holds_up_the_table() -> None:
    clock = ManualClock()
    with a_network_adapter_that_answers_no_one() as url, SerialLink(url, clock) as link:
        slowest = 0.0
        for _ in range(30):
            started = time.monotonic()
            assert link.poll() == []
            slowest = max(slowest, time.monotonic() - started)
            clock.advance(0.1)
        # pyserial alone waits 5 s in a poll; a busy machine is slow, never as slow as that.
        assert slowest < 2.5
        assert not link.is_up


def fill_the_line(path: Path) -> None:
    """Bytes the board has not taken, up to all the port holds: a board whose firmware hangs
    while its USB port stays."""
    line = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
    try:
        with contextlib.suppress(BlockingIOError):
            while True:
                os.write(line, b"\x55" * 1024)
    finally:
        os.close(line)


def test_a_board_that_takes_no_bytes_never_holds_up_the_table(tmp_path: Path) -> None:
    with table_bench(tmp_path) as bench:
        bench.link.show(lamps(1))
        bench.drive(lambda: bench.board.shown == lamps(1) and bench.link.idle)
        fill_the_line(bench.board.link_path)  # and the board reads nothing from here on
        bench.link.show(lamps(5))
        slowest = 0.0
        for _ in range(25):
            started = time.monotonic()
            bench.link.poll()
            slowest = max(slowest, time.monotonic() - started)
            bench.clock.advance(0.02)
        # pyserial alone waits 1 s in each poll; a busy machine is slow, never as slow as that.
        assert slowest < 0.5
        assert bench.link.is_up
        bench.drive(lambda: bench.board.shown == lamps(5))  # the board reads again


def test_acks_that_cross_a_firmware_restart_do_not_wedge_the_link() -> None:
    _, port, link = scripted_link()
    for lamp in range(3):
        link.set_lamps({lamp: (9, 9, 9)})
    link.poll()
    seqs = [f.seq for f in port.sent(FrameType.LED)]
    # The board restarts; its new HELLO overtakes acknowledgements its old boot sent.
    port.incoming += encode(Hello(0x5555, 0, reply_requested=True).to_frame())
    port.incoming += encode(Frame(FrameType.ACK, 0, bytes((seqs[1],))))
    link.poll()
    # The new boot expects the first frame, which the host now counts as delivered.
    port.incoming += encode(Frame(FrameType.NAK, 0, bytes((seqs[0], 0))))
    link.poll()
    hellos = [Hello.from_payload(f.payload) for f in port.sent(FrameType.HELLO)]
    assert hellos[-1] == Hello(link.boot_id, seqs[2], reply_requested=False, held=link.in_flight)


def test_a_board_restarted_while_unplugged_loses_no_card_to_a_damaged_hello() -> None:
    """The board restarts while its cable is out; after the replug its HELLO is damaged on
    the line and its first new frame (numbered afresh) arrives first. Taken for a repeat of
    the last boot's frames, it would be acknowledged away and the card never heard."""
    clock, port, link = scripted_link()
    slid = SensorEvent(Sensor.CARD_SLID, True, 1).to_payload()
    for seq in range(3):  # the last boot's frames, all delivered
        port.incoming += encode(Frame(FrameType.SENSOR, seq, slid))
    link.poll()
    port.closed = True  # unplugged
    assert [type(event) for event in link.poll()] == [LinkDown]
    replugged = ScriptedPort()
    link._opener = lambda url: replugged
    while link.state is LinkState.CLOSED:
        clock.advance(0.01)
        link.poll()
    card = Frame(FrameType.BARCODE, 0, BarcodeEvent(b"DT-0007", 2).to_payload())
    replugged.incoming += encode(card)  # its HELLO before it was damaged: not a frame
    events = link.poll()
    assert [f for f in replugged.written if f.type is FrameType.ACK] == []
    replugged.incoming += encode(Hello(0x5151, 0, reply_requested=False).to_frame())
    replugged.incoming += encode(card)  # resent: never acknowledged
    events += link.poll()
    assert [e for e in events if isinstance(e, BarcodeRead)] == [BarcodeRead("DT-0007", 2)]


def test_a_late_hello_never_moves_the_host_back() -> None:
    _, port, link = scripted_link()
    slid = SensorEvent(Sensor.CARD_SLID, True, 1).to_payload()
    port.incoming += encode(Frame(FrameType.SENSOR, 0, slid))
    port.incoming += encode(Hello(0x4242, 0, reply_requested=True).to_frame())  # a late repeat
    port.incoming += encode(Frame(FrameType.SENSOR, 0, slid))
    events = link.poll()
    assert events == [SensorChanged(Sensor.CARD_SLID, True, 1)]
    assert link.stats.duplicates == 1


@pytest.mark.parametrize("seed", [29, 35])
def test_every_card_and_barcode_arrives_once_through_noise_and_unplugs(
    tmp_path: Path, seed: int
) -> None:
    rng = random.Random(seed)
    faults = Faults(corrupt=0.2, drop=0.05, delay=0.05, reorder=0.1)
    with table_bench(tmp_path, faults=faults, seed=seed) as bench:
        bench.drive(lambda: bench.link.is_up)
        codes = []
        for turn in range(30):
            deal_a_turn(bench, turn)
            if turn % 10 == 5:
                bench.board.unplug()
                bench.run_for(0.5 + rng.random() / 2)
                bench.board.plug_in()
            bench.board.block_card_sensor(True)
            bench.run_for(0.02)
            bench.board.block_card_sensor(False)
            codes.append(f"DT-{turn:04d}")
            bench.board.scan(codes[-1])
            bench.run_for(0.02 + rng.random() * 0.05)

        def slides() -> list[bool]:
            return [
                e.active
                for e in bench.of_type(SensorChanged)
                if isinstance(e, SensorChanged) and e.sensor is Sensor.CARD_SLID
            ]

        def barcodes() -> list[str]:
            return [e.text for e in bench.of_type(BarcodeRead) if isinstance(e, BarcodeRead)]

        bench.drive(lambda: len(barcodes()) >= 30 and len(slides()) >= 60, within=30.0)
        bench.run_for(0.5)
        assert barcodes() == codes
        assert slides() == [True, False] * 30
        assert bench.board.firmware.counts["dropped"] == 0


def test_a_board_looked_up_by_usb_id_that_is_not_there_is_retried_quietly() -> None:
    clock = ManualClock()
    link = SerialLink("hwgrep://VID:PID=FFFF:FFFE", clock)
    for _ in range(20):
        assert link.poll() == []
        clock.advance(0.1)
    assert link.stats.open_failures >= 3
    assert "no ports found" in link.last_error


def test_a_reset_request_whose_ack_was_lost_does_not_restart_the_new_boot() -> None:
    clock, port, link = scripted_link()
    link.request_reset()
    link.poll()
    (reset,) = port.sent(FrameType.RESET)
    port.incoming += encode(Hello(0x7777, 0, reply_requested=True).to_frame())  # ack lost
    link.poll()
    port.written.clear()
    clock.advance(link.config.ack_timeout)
    link.poll()
    resent = [f for f in port.written if f.seq == reset.seq]
    assert [f.type for f in resent] == [FrameType.DISPLAY]


def test_a_new_display_supersedes_lamp_changes_still_waiting() -> None:
    _clock, port, link = scripted_link(LinkConfig(window=1))
    link.show(lamps(1))  # goes out at once and fills the window
    link.poll()
    link.show(lamps(2))
    link.set_lamps({2: (0, 0, 9)})
    link.show(lamps(3))
    for _ in range(3):
        (last,) = port.written[-1:]
        port.incoming += encode(Frame(FrameType.ACK, 0, bytes((last.seq,))))
        link.poll()
    reliable = [f for f in port.written if f.type.is_reliable]
    assert [f.type for f in reliable] == [FrameType.DISPLAY, FrameType.DISPLAY]
    assert reliable[-1].payload == bytes(b for pixel in lamps(3) for b in pixel)
    assert link.idle


def test_lamp_changes_while_unplugged_wait_as_one_display() -> None:
    clock = ManualClock()
    link = SerialLink("scripted://", clock, opener=lambda url: _refuse([], clock))
    for step in range(500):
        link.set_lamps({step % 16: (step % 256, 0, 0)})
        link.poll()
    assert link.queued == 1


def test_a_link_dropped_for_want_of_acknowledgements_comes_back_and_stays_up() -> None:
    clock, _port, link = scripted_link(LinkConfig(max_sends=3))
    link.show(lamps(3))
    events = link.poll()
    while not events:  # the firmware never acknowledges the display
        clock.advance(link.config.ack_timeout)
        events = link.poll()
    assert events == [LinkDown("no acknowledgement")]
    ports: list[ScriptedPort] = []

    def reopen_a_clean_line(url: str) -> ScriptedPort:
        ports.append(ScriptedPort())
        return ports[-1]

    link._opener = reopen_a_clean_line
    while not ports:
        clock.advance(0.01)
        link.poll()
    (line,) = ports
    line.incoming += encode(Hello(0x4242, 0, reply_requested=False).to_frame())
    events = link.poll()
    displays: list[Frame] = []
    for _ in range(40):  # two seconds of a firmware that acknowledges and answers
        for frame in line.written:
            if frame.type.is_reliable:
                line.incoming += encode(Frame(FrameType.ACK, 0, bytes((frame.seq,))))
            elif frame.type is FrameType.HEARTBEAT:
                line.incoming += encode(Heartbeat(0x4242, reply_requested=False).to_frame())
        displays += line.sent(FrameType.DISPLAY)
        line.written.clear()
        clock.advance(link.config.ack_timeout)
        events += link.poll()
    assert events == [LinkUp(0x4242, reconnect=True)]
    assert link.is_up and link.idle
    assert displays[-1].payload == bytes(b for pixel in lamps(3) for b in pixel)


def test_the_link_lamp_goes_off_when_the_host_is_gone(tmp_path: Path) -> None:
    with table_bench(tmp_path) as bench:
        shown = lamps(0, 12)
        shown[13] = (0, 30, 0)  # the link lamp
        bench.link.show(shown)
        bench.drive(lambda: bench.board.shown == shown and bench.link.idle)
        bench.link.close()  # the service dies: nothing more from the host
        for _ in range(round(2.0 / 0.002)):
            bench.board.step()
            bench.clock.advance(0.002)
        assert bench.board.shown == lamps(0, 12)
