"""The table's own devices, wired to the service: the LED casekeep, the dealer's buttons and
the microcontroller under the layout (its lamps, its box-empty switch).

Frames go out after every change the journal has taken; buttons and sensors come back as
table-language commands, judged by the engine like any other.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import logging
import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, Protocol

from gpiozero import GPIOZeroError  # type: ignore[import-untyped]

from display.frames import casekeep_frame, layout_frame
from display.hardware import AbacusDriver, LayoutDriver
from firmware_bridge.clock import Clock, SystemClock
from firmware_bridge.link import (
    BarcodeRead,
    BoardFrameEvent,
    DeviceReported,
    FirmwareRestarted,
    FrameId,
    FramesRefused,
    LinkDown,
    LinkEvent,
    LinkUp,
    ResentFrameDropped,
    SensorChanged,
    SerialLink,
)
from firmware_bridge.protocol import DeviceErrorCode, Sensor
from hw.board import DEFAULT_BOARD, Board, load_board, make_pin_factory
from hw.buttons import DealerAction, DealerButtons
from hw.casekeep import CasekeepAbacus
from hw.errors import HardwareError
from hw.shoe_sensor import SensorChattering, ShoeSensor
from table.events import Event
from table.language import Command, EmptyCmd, LockCmd, ShuffleCmd, VoidCmd
from table.service.config import HardwareConfig
from table.service.journal import JournalError
from table.service.reading_filter import ReadingFilter
from table.service.table_service import TableService
from vision.barcode import BarcodeReading, barcode_reading
from vision.errors import ScannerError

log = logging.getLogger("dealtable.hardware")


class AskingReader(Protocol):
    """A reader that may ask the dealer which card lies in the box (a camera, a barcode
    shoe): the confirm button takes its guess, the void button dismisses its question."""

    filter: ReadingFilter

    @property
    def asks_the_table(self) -> bool: ...

    def confirm_guess(self, timestamp: float) -> Any: ...

    def dismiss_question(self) -> Any: ...


class SlidePairingReader(Protocol):
    """A barcode shoe reader that pairs the slides past the board's light barrier with the
    codes the board's scanner read, and so says which of the board's frames it has settled."""

    def card_slid(self, at: float | None = None) -> None: ...

    @property
    def slides_waiting(self) -> int: ...

    def slide_of_a_code_read(self, at: float) -> bool: ...

    @property
    def holds_unkept(self) -> bool: ...


# How long a stopping service waits for the board to take the dark layout (seconds).
LAYOUT_DARK_WITHIN = 0.5
# A card dealt from a code the board forwarded is journaled with this request id and the
# frame's name (FrameId): after a restart the board's frame sent again is known by it.
BOARD_FRAME_REQUEST = "board-frame:"
# The journal's note of the last frame of the board the service took of any kind (a slide,
# the lid, the box-empty switch), once what it set going is done, with the journal's last
# record then: the board sends it again too if its acknowledgement was lost.
BOARD_FRAME_NOTE = "board-frame"
# The events the board keeps while the service takes none (hw/firmware/dealfw.py
# QUEUE_LIMIT): past them it loses the oldest. A card dealt from its scanner is three: its
# code, and its slide past the light barrier, the beam broken and clear again.
BOARD_QUEUE_LIMIT = 256
BOARD_EVENTS_PER_CARD = 3
# Damaged frames on the line are logged at most this often (seconds): a noisy cable would
# otherwise fill the log with a line per read.
NOISE_LOGGED_EVERY = 60.0

_BUTTON_COMMANDS: dict[DealerAction, Command] = {
    DealerAction.NEW_DECK: ShuffleCmd(),
    DealerAction.LOCK_BETS: LockCmd(),
    DealerAction.VOID: VoidCmd(),
}


@contextlib.contextmanager
def _refused_in_one_line(device: str, board_file: Path) -> Iterator[None]:
    """A device that gpiozero or its driver refuses, as a HardwareError naming it: the service
    then refuses to start in one line (exit 2), where a traceback (exit 1) would have systemd
    restart it for ever."""
    try:
        yield
    except HardwareError:
        raise
    except (GPIOZeroError, ValueError) as error:
        raise HardwareError(f"{device} (board {board_file}): {error}") from None


class BoardScanner:
    """The barcode scanner wired to the layout board (hw/WIRING.md): the codes the board
    forwards, read by a barcode shoe reader as if from a serial scanner of its own.

    ``trouble`` says why the board cannot be reached ("" while it can): the scanner behind
    it is then gone, as an unplugged serial scanner is, and its reader is lost.
    ``window_full`` says whether the board's window of frames waits on the service (the
    journal cannot keep what they brought): what the board reads meanwhile waits in its
    queue."""

    def __init__(
        self,
        trouble: Callable[[], str] = lambda: "",
        window_full: Callable[[], bool] = lambda: False,
    ) -> None:
        self._codes: deque[tuple[str, FrameId | None]] = deque()
        self._trouble = trouble
        self._window_full = window_full
        self._last_frame: FrameId | None = None
        self._losses: list[str] = []  # the board's reports of events lost, not yet read

    @property
    def holds_back(self) -> bool:
        """Whether the board sends nothing more until the service settles what it sent: the
        cards read meanwhile wait in its queue, where no reader can name them."""
        return self._window_full()

    @property
    def cards_it_keeps(self) -> int:
        """About how many cards the board's queue keeps, from empty, before it loses the
        oldest of its events."""
        return BOARD_QUEUE_LIMIT // BOARD_EVENTS_PER_CARD

    def events_lost(self, detail: str) -> None:
        """The board reported events lost (its queue full): codes read may be among them."""
        self._losses.append(detail)

    def take_losses(self) -> list[str]:
        """The board's reports of events lost since the last call."""
        losses, self._losses = self._losses, []
        return losses

    @property
    def waiting(self) -> frozenset[FrameId]:
        """The frames of the codes forwarded and not yet read."""
        return frozenset(frame for _, frame in self._codes if frame is not None)

    def forwarded(self, text: str, frame: FrameId | None = None) -> None:
        self._codes.append((text, frame))

    def read(self) -> BarcodeReading | None:
        self._last_frame = None
        if self._codes:
            text, self._last_frame = self._codes.popleft()
            return barcode_reading(text)
        if trouble := self._trouble():
            raise ScannerError(f"the layout board that reads the scanner is not reached: {trouble}")
        return None

    def request_of_last_read(self) -> str | None:
        """The frame that brought the code read last, as the request id its card is
        journaled with."""
        frame = self._last_frame
        return None if frame is None else f"{BOARD_FRAME_REQUEST}{frame}"

    def close(self) -> None:
        self._codes.clear()


class TableHardware:
    def __init__(
        self, config: HardwareConfig, *, clock: Clock | None = None, pin_factory: Any = None
    ) -> None:
        self.config = config
        board_file = Path(config.board) if config.board else DEFAULT_BOARD
        self.board: Board = load_board(board_file)
        self.clock = clock or SystemClock()
        self.pin_factory = pin_factory
        self.reader: AskingReader | None = None
        self.reader_clock: Callable[[], float] = time.time
        if pin_factory is None and (config.abacus or config.buttons or config.shoe_sensor):
            self.pin_factory = make_pin_factory(config.pin_factory or self.board.pin_factory)
        self.abacus: AbacusDriver | None = None
        self.buttons: DealerButtons | None = None
        self.shoe_sensor: ShoeSensor | None = None
        self.link: SerialLink | None = None
        self.layout: LayoutDriver | None = None
        self._link_trouble = ""  # why the board cannot be reached, as last logged
        self._noise_logged_at: float | None = None
        # The board's scanner and light barrier, once a barcode shoe reader reads them.
        self.scanner: BoardScanner | None = None
        # Told of each card past a light barrier, with the time it passed (on the monotonic
        # clock: the Pi's own barrier's edge, or the board's reading converted to it).
        self.slide_heard: Callable[[float | None], None] | None = None
        # How many of the slides told to slide_heard wait still for a code or a question.
        self.slides_waiting: Callable[[], int] = lambda: 0
        # Whether a card that slid out at a time (as for slide_heard) is one whose code was
        # read already; if so it is paired with it.
        self.slide_of_a_code_read: Callable[[float], bool] = lambda at: False
        # Whether the reader holds cards or a question the journal keeps nowhere yet (it
        # could not write): no frame of the board is noted done meanwhile, for the reader
        # holds no frame's name.
        self.reader_holds_unkept: Callable[[], bool] = lambda: False
        # The board's frames taken and not yet noted (BOARD_FRAME_NOTE), in order, and the
        # last of its slides told to slide_heard.
        self._frames_taken: list[FrameId] = []
        self._slides_told: deque[FrameId] = deque(maxlen=64)
        # The commands the board's frames gave in the last poll, each with its frame; and
        # those the journal could not keep, given again once it can. Their frames wait
        # meanwhile: noted as done, the board would forget the box-empty switch.
        self._given: list[tuple[Command, FrameId]] = []
        self._unkept: list[tuple[Command, FrameId]] = []
        try:
            if config.abacus:
                with _refused_in_one_line("the casekeep abacus", board_file):
                    self.abacus = AbacusDriver(
                        CasekeepAbacus(self.board.casekeep, pin_factory=self.pin_factory)
                    )
                    # Opened before the journal is read (run opens the devices first), and a
                    # long journal takes a while: until attach() shows the table, the beads
                    # say the service is starting.
                    self.abacus.starting()
            if config.buttons:
                with _refused_in_one_line("the dealer's buttons", board_file):
                    self.buttons = DealerButtons(
                        self.board.buttons, pin_factory=self.pin_factory, clock=self.clock
                    )
            if config.shoe_sensor:
                with _refused_in_one_line("the shoe's light barrier", board_file):
                    self.shoe_sensor = ShoeSensor(
                        self.board.shoe_sensor, pin_factory=self.pin_factory, clock=self.clock
                    )
            if config.layout:
                with _refused_in_one_line("the layout display", board_file):
                    self.link = SerialLink(
                        config.microcontroller_url or self.board.microcontroller_url, self.clock
                    )
                self.layout = LayoutDriver(self.link)
        except Exception:
            self.close()
            raise

    def board_scanner(self) -> BoardScanner:
        """The scanner on the layout board, for a barcode shoe reader; its light barrier's
        slides go to ``slide_heard``."""
        if self.link is None:
            raise HardwareError("the board's scanner is read over the layout board's link")
        if self.scanner is None:
            link = self.link
            self.scanner = BoardScanner(
                lambda: "" if link.is_up else link.last_error, lambda: link.board_window_full
            )
        return self.scanner

    def pair_slides_with(self, reader: SlidePairingReader) -> None:
        """The board's light barrier tells ``reader`` of each card that slid out, and a frame
        of the board is noted done only once ``reader`` has settled what it brought."""
        self.slide_heard = reader.card_slid
        self.slides_waiting = lambda: reader.slides_waiting
        self.slide_of_a_code_read = reader.slide_of_a_code_read
        self.reader_holds_unkept = lambda: reader.holds_unkept

    def answer_questions_of(self, reader: AskingReader, clock: Callable[[], float]) -> None:
        """The buttons answer ``reader``'s questions; ``clock`` is the one its filter keeps."""
        self.reader = reader
        self.reader_clock = clock

    def attach(self, service: TableService) -> None:
        """Show the table as it is now, and after every change from here on."""
        self.service = service
        if self.link is not None:
            self.link.resume_after(self._last_frame_taken(service))
            # The board forgets a frame once it is acknowledged: not before the journal
            # keeps what it brought (_note_frames_taken), or a service killed meanwhile (the
            # Pi's power cut) would lose a card scanned or slid out unread.
            self.link.acknowledge_when_settled()
        self.show()
        service.listeners.append(self._changed)
        service.trouble_listeners.append(self.show)

    def _changed(self, events: Sequence[Event]) -> None:
        self.show()

    @staticmethod
    def _last_frame_taken(service: TableService) -> FrameId | None:
        """The last frame of the board the journal says the service took: the board sends it
        again if its acknowledgement was lost as the service stopped. The newer of the frame
        noted last (BOARD_FRAME_NOTE) and the frame the last card from a board's code was
        dealt from: a card journaled after the note was written is the newer."""
        journal = service.journal
        newest = journal.last_request_starting(BOARD_FRAME_REQUEST)
        kept = journal.note(BOARD_FRAME_NOTE)
        if kept:
            noted = json.loads(kept)
            if newest is None or newest[1] <= noted["seq"]:
                return FrameId.parse(noted["frame"])
            return FrameId.parse(newest[0].removeprefix(BOARD_FRAME_REQUEST))
        if newest is None:
            return None
        # A journal from before the note was kept: the last card's frame alone, and only if
        # no card came from elsewhere (the console, a camera) since, for the board's numbers
        # may have come round to it since.
        request_id, seq = newest
        last_card = journal.last_events_of("card_dealt", 1)
        if last_card and last_card[-1].seq > seq:
            return None
        return FrameId.parse(request_id.removeprefix(BOARD_FRAME_REQUEST))

    def _note_frames_taken(self) -> None:
        """Note the last frame of the board taken whose work is done: not a code the reader
        has yet to read (its card is journaled with its frame), nor a slide it has yet to
        pair with a code or ask about, nor any frame after those. A command a frame gave
        (the box empty) was carried out after the last poll."""
        service: TableService | None = getattr(self, "service", None)
        if not self._frames_taken or service is None:
            return  # nothing taken, or no table to take it (not attached)
        if self.reader_holds_unkept():
            # A code read and held for the journal, in memory only: acknowledged, the board
            # would forget it, and a service killed before the journal took it lose the card.
            return
        waiting = self.scanner.waiting if self.scanner is not None else frozenset()
        waiting |= frozenset(frame for _, frame in self._unkept)
        # The reader settles its slides oldest first: those waiting are the last told.
        slides = self.slides_waiting()
        if slides:
            waiting |= frozenset(list(self._slides_told)[-slides:])
        done = 0
        while done < len(self._frames_taken) and self._frames_taken[done] not in waiting:
            done += 1
        if done == 0:
            return
        frame = self._frames_taken[done - 1]
        journal = service.journal
        record = {"frame": str(frame), "seq": journal.last_seq}
        try:
            journal.keep_note(BOARD_FRAME_NOTE, json.dumps(record, sort_keys=True))
        except JournalError:
            # Tried again at the next poll; the journal's trouble is told where it writes.
            # Meanwhile the board holds the frames, unacknowledged.
            return
        del self._frames_taken[:done]
        if self.link is not None:
            self.link.settled(frame)

    def not_kept(self, command: Command) -> None:
        """The journal could not keep ``command`` (a disk full or failing), which the last
        poll gave: one a frame of the board gave is given again once the journal writes
        again, and the board holds its frame until then. A button of the dealer's is pressed
        again."""
        for given in self._given:
            if given[0] is command:
                self._unkept.append(given)
                return
        log.warning(
            "the dealer's button (%s) is not carried out: the journal cannot write; press it "
            "again once it can",
            command.__class__.__name__,
        )

    def _question_waits(self) -> bool:
        """The reader's question is what the table waits on: the buttons answer it. While
        another alarm waits, void is the engine's, and confirm waits for the dealer."""
        return (
            self.reader is not None
            and self.reader.filter.question is not None
            and self.reader.asks_the_table
        )

    def _answer(self, action: DealerAction) -> None:
        """The confirm button takes the reader's guess; void, while a question waits,
        dismisses it and deals no card (it would void the card before the one asked about)."""
        if not self._question_waits():
            log.info("button confirm: no card is in question the table waits on")
            return
        assert self.reader is not None and self.reader.filter.question is not None
        question = self.reader.filter.question
        asked = question.asked
        if action is DealerAction.CONFIRM and question.guess is None:
            log.info(
                "button confirm: the readers disagree (%s?): give the card at the console", asked
            )
            return
        if action is DealerAction.CONFIRM:
            news = self.reader.confirm_guess(self.reader_clock())
            log.info(
                "button confirm: %s, the reader's guess (%s?), is dealt", question.guess, asked
            )
        else:
            news = self.reader.dismiss_question()
            log.info("button void: the reader's question (%s?) is dismissed, no card dealt", asked)
        for refused in news.refused:
            log.warning("refused from the table's devices: %s", refused)

    def show(self) -> None:
        state = self.service.faro
        if self.abacus is not None:
            self.abacus.show(casekeep_frame(state))
        if self.layout is not None:
            frame = layout_frame(state)
            if self.service.journal_trouble:
                frame = dataclasses.replace(frame, journal_trouble=True)
            self.layout.show(frame)

    def poll(self) -> list[Command]:
        """What the dealer and the box asked for since the last call, as commands."""
        commands: list[Command] = []
        self._given = []
        if self.buttons is not None:
            for action in self.buttons.take():
                if action is DealerAction.CONFIRM or (
                    action is DealerAction.VOID and self._question_waits()
                ):
                    self._answer(action)
                    continue
                command = _BUTTON_COMMANDS.get(action)
                if command is None:
                    log.info("button %s: give the card at the console", action.value)
                else:
                    commands.append(command)
        if self.shoe_sensor is not None:
            for sensed in self.shoe_sensor.take():
                if isinstance(sensed, SensorChattering):
                    log.warning(
                        "the shoe's light barrier flickers (%d edges in a moment: dust, a loose "
                        "wire, sunlight?): no card is made from it until it is quiet",
                        sensed.edges,
                    )
                elif self.slide_heard is not None:
                    self.slide_heard(sensed.at)  # heard late if the loop was held up
        if self.link is not None:
            self._note_frames_taken()
            if self._unkept and not self.service.journal_trouble:
                # Before what the board sends now: the switch closed before it.
                self._given, self._unkept = self._unkept, []
                commands += [command for command, _ in self._given]
            for event in self.link.poll():
                if isinstance(event, BoardFrameEvent) and event.frame:
                    self._frames_taken.append(event.frame)
                if isinstance(event, SensorChanged) and event.active:
                    if event.sensor is Sensor.BOX_EMPTY:
                        command = EmptyCmd()
                        commands.append(command)
                        if event.frame is not None:
                            self._given.append((command, event.frame))
                    elif event.sensor is Sensor.CARD_SLID and self.slide_heard is not None:
                        # When the beam broke on the board: heard late if the frame waited (a
                        # loop held up, a frame sent again), it still pairs with its code.
                        self.slide_heard(event.at)
                        if event.frame is not None:
                            self._slides_told.append(event.frame)
                elif isinstance(event, BarcodeRead):
                    if self.scanner is not None:
                        self.scanner.forwarded(event.text, event.frame)
                    else:
                        log.info(
                            "the board's scanner read %r; no reader takes its codes "
                            '([reader] kind = "board-scanner")',
                            event.text,
                        )
                elif isinstance(event, LinkUp):
                    self._link_trouble = ""
                    log.info("layout display up (firmware boot %d)", event.firmware_boot_id)
                elif isinstance(event, LinkDown):
                    self._link_trouble = event.reason
                    log.warning("layout display down: %s", event.reason)
                elif isinstance(event, FirmwareRestarted):
                    # What the board had not yet handed over died with its last boot.
                    log.warning(
                        "the layout board restarted (firmware boot %d: a brown-out, its reset "
                        "button, a crash): a card slid, a code scanned or the box-empty switch "
                        "in its last moments may have gone unheard; check the box",
                        event.firmware_boot_id,
                    )
                elif isinstance(event, ResentFrameDropped):
                    log.info(
                        "the layout board sent again its frame %s (%s), which the table took "
                        "before the service restarted: acknowledged, not dealt again",
                        event.frame,
                        event.frame_type.name,
                    )
                elif isinstance(event, DeviceReported):
                    self._device_reported(event)
                elif isinstance(event, FramesRefused):
                    self._noise(event)
            self._unreached(self.link)
        return commands

    def _unreached(self, link: SerialLink) -> None:
        """A board never reached (a wrong port, no board plugged in, a port the service may
        not open, firmware that does not answer) is logged once with why, and again only
        when the reason changes: it retries quietly meanwhile."""
        if link.is_up or not link.last_error or link.last_error == self._link_trouble:
            return
        self._link_trouble = link.last_error
        log.warning(
            "layout display at %s not reached: %s; the table deals on and the board is "
            "tried again and again",
            link.url,
            link.last_error,
        )

    def _device_reported(self, report: DeviceReported) -> None:
        if report.code == DeviceErrorCode.QUEUE_FULL and self.scanner is not None:
            # Codes the board's scanner read may be among them: its reader tells the dealer
            # so, where it tells of the cards it holds, and the table.
            self.scanner.events_lost(report.detail)
        elif report.code == DeviceErrorCode.QUEUE_FULL:
            log.error(
                "the layout board lost events (%s): a button press or the box-empty switch "
                "may have gone unheard; check the box",
                report.detail,
            )
        else:
            log.warning("the layout board reports: %s (code %d)", report.detail, report.code)

    def _noise(self, refused: FramesRefused) -> None:
        now = self.clock.monotonic()
        if self._noise_logged_at is not None and now - self._noise_logged_at < NOISE_LOGGED_EVERY:
            return
        self._noise_logged_at = now
        totals = ("frames", "bad_total")
        reasons = ", ".join(
            f"{reason} {count}" for reason, count in refused.counts.items() if reason not in totals
        )
        log.warning(
            "%d damaged frames on the line to the layout board so far (%s), of %d good: "
            "check the cable",
            refused.counts.get("bad_total", 0),
            reasons,
            refused.counts.get("frames", 0),
        )

    def close(self) -> None:
        if self.shoe_sensor is not None:
            self.shoe_sensor.close()
        if self.abacus is not None:
            self.abacus.abacus.close()
        if self.buttons is not None:
            self.buttons.close()
        if self.link is not None:
            # What the board sends from here on stays with it for the next run: taken now,
            # it would be acknowledged (the board forgets it) and then dropped unhandled.
            self.link.stop_taking(self._settled_at_stop)
            if self.layout is not None and self.link.is_up:
                # Left lit, the layout and its green link lamp would tell the table the
                # service still runs.
                self.layout.go_dark()
                self.link.flush(LAYOUT_DARK_WITHIN)
            # The frames whose work is done are noted and acknowledged; should an
            # acknowledgement be lost, the next run knows them when the board sends them
            # again. Those whose work is not (a code unread, a slide the reader still waits
            # on) stay with the board for the next run.
            self._note_frames_taken()
            self.link.close()

    def _settled_at_stop(self, event: LinkEvent) -> bool:
        """Whether a frame of the board that comes as the service stops is settled by then:
        the slide of a card whose code was read (its card is dealt), an edge that asks
        nothing (the lid, a sensor going inactive). A code, a slide no code answered and
        the box-empty switch are work for the next run, which the board sends them to."""
        if not isinstance(event, SensorChanged):
            return False
        if event.sensor is Sensor.CARD_SLID and event.active:
            settled = self.slide_of_a_code_read(event.at)
        else:
            settled = not (event.sensor is Sensor.BOX_EMPTY and event.active)
        if settled and event.frame is not None:
            self._frames_taken.append(event.frame)
        return settled
