"""The table's own devices, wired to the service: the LED casekeep, the dealer's buttons and
the microcontroller under the layout (its lamps, its box-empty switch).

Frames go out after every change the journal has taken; buttons and sensors come back as
table-language commands, judged by the engine like any other.
"""

from __future__ import annotations

import contextlib
import dataclasses
import enum
import json
import logging
import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, Protocol

from display.frames import casekeep_frame, layout_frame
from display.hardware import AbacusDriver, LayoutDriver
from firmware_bridge.clock import Clock, SystemClock, ticks_diff
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
from firmware_bridge.protocol import MAX_BARCODE, DeviceErrorCode, Sensor
from hw.board import DEFAULT_BOARD, Board, load_board, make_pin_factory
from hw.buttons import DealerAction, DealerButtons
from hw.casekeep import CasekeepAbacus
from hw.errors import BoardConfigError, HardwareError, PinRefusedError
from hw.shoe_sensor import SensorChattering, ShoeSensor
from table.events import Event
from table.language import Command, EmptyCmd, LockCmd, ShuffleCmd, VoidCmd
from table.service.config import HardwareConfig
from table.service.journal import BOARD_FRAME_REQUEST, JournalError
from table.service.reading_filter import ReadingFilter
from table.service.table_service import TableService
from vision.barcode import BarcodeReading, barcode_reading
from vision.errors import ScannerError

log = logging.getLogger("dealtable.hardware")


# What chatters, by the firmware's detail ("sensor N", N a Sensor), and what may cause it.
_CHATTERING = {
    f"sensor {Sensor.CARD_SLID.value}": ("light barrier", "dust, a loose wire, sunlight?"),
    f"sensor {Sensor.SHOE_LID.value}": ("shoe lid switch", "a loose wire, a worn contact?"),
    f"sensor {Sensor.BOX_EMPTY.value}": ("box-empty switch", "a loose wire, a worn contact?"),
}


class AnswerNews(Protocol):
    """What came of the dealer's answer (readers.ReaderNews): what was refused, and why the
    answer was taken back ("" if it was taken)."""

    refused: list[str]
    taken_back: str


class AskingReader(Protocol):
    """A reader that may ask the dealer which card lies in the box (a camera, a barcode
    shoe): the confirm button takes its guess, the void button dismisses its question."""

    filter: ReadingFilter

    @property
    def asks_the_table(self) -> bool: ...

    def answer_refused(self) -> str | None: ...

    def confirm_guess(self, timestamp: float) -> AnswerNews: ...

    def dismiss_question(self) -> AnswerNews: ...


class CodeWaiting(Protocol):
    """A code read before its card's slide (readers.CodeRead): when, on the reader's clock,
    the request id its scanner named it by (a board's frame, BOARD_FRAME_REQUEST), and the
    board's ticks its frame carries."""

    @property
    def at(self) -> float: ...

    @property
    def request_id(self) -> str | None: ...

    @property
    def ticks(self) -> int | None: ...


class SlidePairingReader(Protocol):
    """A barcode shoe reader that pairs the slides past the board's light barrier with the
    codes the board's scanner read, and so says which of the board's frames it has settled."""

    pair_within: float

    def card_slid(self, at: float | None = None, ticks: int | None = None) -> None: ...

    @property
    def slides_waiting(self) -> int: ...

    def code_of_slide(self, at: float, ticks: int | None = None) -> CodeWaiting | None: ...

    @property
    def codes_waiting(self) -> Sequence[CodeWaiting]: ...

    @property
    def holds_unkept(self) -> bool: ...

    @property
    def holds_cards(self) -> bool: ...


# How long a stopping service waits for the board to take the dark layout (seconds).
LAYOUT_DARK_WITHIN = 0.5
# The journal's note of the last frame of the board the service took of any kind (a code, a
# slide, the box-empty switch), once what it and every frame before it set going is done, and
# of the frames after it done already ("taken"): the board sends them again too if their
# acknowledgement was lost. It rides in the transaction of the command that does the work (a
# card's, the switch's alarm), and is written on its own only for work no command journals (a
# slide paired with its code), at most once a poll.
BOARD_FRAME_NOTE = "board-frame"
# The most frames of the board acknowledged while the journal's note names none of them (edges
# that ask nothing: the lid, a card's slide ending): past them the note is written on its own,
# so the frame it names stays far behind any the board holds, whose numbers come round at 256.
UNNAMED_SETTLED_MOST = 128
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


@dataclasses.dataclass(frozen=True)
class _BoardNote:
    """What the journal's note of the board's frames says (BOARD_FRAME_NOTE)."""

    # The last frame taken whose work, and every frame's before it, is done.
    last: FrameId | None = None
    # The frames after it whose work is done (a card dealt while the box-empty switch's alarm
    # waits for the journal).
    taken: tuple[FrameId, ...] = ()
    # The codes taken that wait for their card's slide, each with the board's ticks (ms) its
    # frame carries (in a note written before protocol 2, guessed from when it came): a slide
    # sent again after a restart is paired with it by the board's clock.
    codes: tuple[tuple[FrameId, int], ...] = ()

    def text(self, seq: int) -> str:
        """The note, written with the journal's last record ``seq``."""
        record = {
            "frame": None if self.last is None else str(self.last),
            "seq": seq,
            "taken": [str(frame) for frame in self.taken],
            "codes": [[str(frame), ticks] for frame, ticks in self.codes],
        }
        return json.dumps(record, sort_keys=True)

    @classmethod
    def parse(cls, record: dict[str, Any]) -> _BoardNote:
        frames = (FrameId.parse(frame) for frame in record["taken"])
        codes = ((FrameId.parse(frame), ticks) for frame, ticks in record.get("codes", []))
        return cls(
            None if record["frame"] is None else FrameId.parse(record["frame"]),
            tuple(frame for frame in frames if frame is not None),
            tuple((frame, int(ticks)) for frame, ticks in codes if frame is not None),
        )


def _board_frame(request_id: str | None) -> FrameId | None:
    """The frame of the board a request id names (BOARD_FRAME_REQUEST), if it names one."""
    if request_id is None or not request_id.startswith(BOARD_FRAME_REQUEST):
        return None
    return FrameId.parse(request_id.removeprefix(BOARD_FRAME_REQUEST))


class _Work(enum.Enum):
    """What a frame of the board taken sets going, and so when it is done."""

    NOTHING = "nothing"  # an edge that asks nothing: taken again, it does nothing again
    CODE = "code"  # a code for the reader: its card journaled, or the code dropped or held
    SLIDE = "slide"  # a card past the light barrier: paired with its code, or asked about
    SWITCH = "switch"  # the box-empty switch: its command carried out


@dataclasses.dataclass
class _Taken:
    """A frame of the board taken and not yet acknowledged."""

    frame: FrameId
    work: _Work
    named: bool = False  # the journal's note names it: a restarted service knows it taken


@contextlib.contextmanager
def _refused_in_one_line(device: str, board_file: Path) -> Iterator[None]:
    """A device that gpiozero or its driver refuses, as a HardwareError naming it: the service
    then refuses to start in one line (exit 2), where a traceback (exit 1) would have systemd
    restart it for ever."""
    try:
        yield
    except PinRefusedError as error:
        raise HardwareError(f"{device} (board {board_file}): {error}") from None
    except HardwareError:
        raise
    except Exception as error:  # gpiozero's, or a driver's own: lgpio's "GPIO busy"
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
        self._codes: deque[tuple[str, FrameId | None, int | None]] = deque()
        self._trouble = trouble
        self._window_full = window_full
        self._last_frame: FrameId | None = None
        self._last_ticks: int | None = None
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
        return frozenset(frame for _, frame, _ in self._codes if frame is not None)

    def forwarded(self, text: str, frame: FrameId | None = None, ticks: int | None = None) -> None:
        """The board forwarded a code, its frame ``frame``, read at the board's ``ticks``."""
        self._codes.append((text, frame, ticks))

    def read(self) -> BarcodeReading | None:
        self._last_frame = self._last_ticks = None
        if self._codes:
            text, self._last_frame, self._last_ticks = self._codes.popleft()
            return barcode_reading(text)
        if trouble := self._trouble():
            raise ScannerError(f"the layout board that reads the scanner is not reached: {trouble}")
        return None

    def request_of_last_read(self) -> str | None:
        """The frame that brought the code read last, as the request id its card is
        journaled with."""
        frame = self._last_frame
        return None if frame is None else f"{BOARD_FRAME_REQUEST}{frame}"

    def ticks_of_last_read(self) -> int | None:
        """The board's ticks when its scanner read the code read last: its card's slide past
        the board's light barrier is paired with it on the board's clock."""
        return self._last_ticks

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
        # clock: the Pi's own barrier's edge, or the board's reading converted to it) and,
        # from the board's barrier, the board's ticks then.
        self.slide_heard: Callable[[float | None, int | None], None] | None = None
        # How many of the slides told to slide_heard wait still for a code or a question.
        self.slides_waiting: Callable[[], int] = lambda: 0
        # The code read already of a card that slid out at a time and board ticks (as for
        # slide_heard), which the slide is paired with; None if there is none. The codes read
        # that wait for their slides, and how far apart a code and its slide may come (s).
        self.code_of_slide: Callable[[float, int | None], CodeWaiting | None] = lambda *_: None
        self.codes_waiting: Callable[[], Sequence[CodeWaiting]] = lambda: ()
        self.pair_within = 0.3
        # Whether the reader holds cards or a question the journal keeps nowhere yet (it
        # could not write): no frame of the board is noted done meanwhile, for the reader
        # holds no frame's name.
        self.reader_holds_unkept: Callable[[], bool] = lambda: False
        self.reader_holds_cards: Callable[[], bool] = lambda: False
        # The board's frames taken and not yet acknowledged, in order, and the last of its
        # slides told to slide_heard.
        self._frames_taken: list[_Taken] = []
        self._slides_told: deque[FrameId] = deque(maxlen=64)
        # Slides the board sent behind codes the reader has not read yet, each with those
        # codes' frames: told to the reader once it has read them, as the board had them.
        self._slides_behind: deque[tuple[SensorChanged, frozenset[FrameId]]] = deque()
        # The box-empty switch closed behind codes the reader has not read yet (the hoc's),
        # with its frame and those codes' frames: carried out once the reader has read them.
        self._switches_behind: deque[tuple[FrameId | None, frozenset[FrameId]]] = deque()
        # The last frame acknowledged (at the start, the last the journal names); what the
        # journal's note says; the note riding a commit not yet known kept, with the seq of
        # the commit's last record; and how many frames were acknowledged since the note was
        # last kept.
        self._last_settled: FrameId | None = None
        self._note_kept = _BoardNote()
        self._riding: tuple[int, _BoardNote] | None = None
        self._settled_since_note = 0
        # The codes an earlier run left waiting for their slides, with the board's ticks of
        # each (the note's).
        self._codes_left: list[tuple[FrameId, int]] = []
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
                try:
                    port = self.board.layout_port(config.microcontroller_url)
                except BoardConfigError as error:
                    raise BoardConfigError(f"{board_file}: {error}") from None
                with _refused_in_one_line("the layout display", board_file):
                    self.link = SerialLink(port, self.clock)
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
        self.code_of_slide = reader.code_of_slide
        self.codes_waiting = lambda: reader.codes_waiting
        self.pair_within = reader.pair_within
        self.reader_holds_unkept = lambda: reader.holds_unkept
        self.reader_holds_cards = lambda: reader.holds_cards

    def answer_questions_of(self, reader: AskingReader, clock: Callable[[], float]) -> None:
        """The buttons answer ``reader``'s questions; ``clock`` is the one its filter keeps."""
        self.reader = reader
        self.reader_clock = clock

    def attach(self, service: TableService) -> None:
        """Show the table as it is now, and after every change from here on."""
        self.service = service
        if self.link is not None:
            self._note_kept = self._last_frames_taken(service)
            self._last_settled = self._note_kept.last
            self._codes_left = list(self._note_kept.codes)
            self.link.resume_after(self._note_kept.last, self._note_kept.taken)
            # The board forgets a frame once it is acknowledged: not before the journal
            # keeps what it brought (_settle), or a service killed meanwhile (the Pi's power
            # cut) would lose a card scanned or slid out unread.
            self.link.acknowledge_when_settled()
            service.journal.riders.append(self._note_riding)
        self.show()
        service.listeners.append(self._changed)
        service.trouble_listeners.append(self.show)

    def _changed(self, events: Sequence[Event]) -> None:
        self.show()

    @staticmethod
    def _last_frames_taken(service: TableService) -> _BoardNote:
        """The last frame of the board the journal says the service took, those after it it
        took while a frame between waited, and the codes that waited for their slides: the
        board sends them again if their acknowledgement was lost as the service stopped. A
        note written beside each command (what it took) says them; an older note names one
        frame, and the frame the last card from a board's code was dealt from is the newer
        if that card was journaled after the note was written."""
        journal = service.journal
        kept = journal.note(BOARD_FRAME_NOTE)
        noted = json.loads(kept) if kept else None
        if noted is not None and "taken" in noted:
            return _BoardNote.parse(noted)
        newest = journal.last_request_starting(BOARD_FRAME_REQUEST)
        if noted is not None:
            if newest is None or newest[1] <= noted["seq"]:
                return _BoardNote(FrameId.parse(noted["frame"]))
            return _BoardNote(_board_frame(newest[0]))
        if newest is None:
            return _BoardNote()
        # A journal from before the note was kept: the last card's frame alone, and only if
        # no card came from elsewhere (the console, a camera) since, for the board's numbers
        # may have come round to it since.
        request_id, seq = newest
        last_card = journal.last_events_of("card_dealt", 1)
        if last_card and last_card[-1].seq > seq:
            return _BoardNote()
        return _BoardNote(_board_frame(request_id))

    def request_of(self, command: Command) -> str | None:
        """The request id to journal ``command`` with, one the last poll gave: the frame of
        the board that gave it (the box-empty switch), so that the journal names the frame
        in the transaction that carries it out. None for the dealer's buttons."""
        for given, frame in self._given:
            if given is command:
                return f"{BOARD_FRAME_REQUEST}{frame}"
        return None

    @property
    def _codes_unread(self) -> frozenset[FrameId]:
        """The frames of the codes the board forwarded that the reader has not yet read."""
        return self.scanner.waiting if self.scanner is not None else frozenset()

    def _done(self, taken: _Taken, journaled: FrameId | None, reader_idle: bool) -> bool:
        """Whether the work ``taken`` set going is done, and kept where a restarted service
        finds it: the frame ``journaled`` is the one the commit being written carries out;
        ``reader_idle``, the reader has read nothing since the last poll, so a code it read
        is dealt, dropped or held in its note."""
        if taken.named or taken.work is _Work.NOTHING:
            return True
        waiting = self._codes_unread
        if taken.frame == journaled and taken.work in (_Work.CODE, _Work.SWITCH):
            # Its card, or the switch's alarm, is in the commit; a code is read first.
            return taken.work is _Work.SWITCH or taken.frame not in waiting
        if taken.work is _Work.SWITCH:
            # Given, its command waits to be carried out; not kept, to be carried out again;
            # behind codes unread, not yet given.
            waits: list[FrameId | None] = [frame for _, frame in [*self._given, *self._unkept]]
            waits += [frame for frame, _ in self._switches_behind]
            return taken.frame not in waits
        if self.reader_holds_unkept():
            # A code read and held for the journal, in memory only, or a question about a
            # slide: noted done, the board would forget it, and a service killed before the
            # journal took it lose the card. The reader holds no frame's name.
            return False
        if taken.work is _Work.SLIDE:
            if any(taken.frame == slide.frame for slide, _ in self._slides_behind):
                return False  # not yet told to the reader
            # The reader settles its slides oldest first: those waiting are the last told.
            slides = self.slides_waiting()
            return not slides or taken.frame not in list(self._slides_told)[-slides:]
        return reader_idle and taken.frame not in waiting

    def _frames_done(self, journaled: FrameId | None, reader_idle: bool) -> tuple[int, _BoardNote]:
        """How many of the frames taken, from the oldest, are done; and the note that says
        so: the last frame done with every frame before it (acknowledged or done), the
        frames after it done, and the codes among those waiting for their slides."""
        count, last = 0, self._last_settled
        for taken in self._frames_taken:
            if not self._done(taken, journaled, reader_idle):
                break
            count, last = count + 1, taken.frame
        after = [
            taken.frame
            for taken in self._frames_taken[count + 1 :]
            if self._done(taken, journaled, reader_idle)
        ]
        resent = self.link.resent_to_come if self.link is not None else frozenset()
        after += sorted(resent - set(after), key=str)
        # A code whose work is not done is taken again after a restart, and waits again.
        undone = {taken.frame for taken in self._frames_taken[count:]} - set(after)
        codes = list(self._codes_left)
        for code in self.codes_waiting():
            frame = _board_frame(code.request_id)
            if frame is not None and frame not in undone and code.ticks is not None:
                codes.append((frame, code.ticks))
        return count, _BoardNote(last, tuple(after), tuple(codes))

    def _note_riding(self, request_id: str | None, last_seq: int) -> dict[str, str]:
        """The journal's note of the frames taken, to ride in the transaction of a command
        about to be journaled (with ``request_id``, its last record ``last_seq``): a card
        from a board's code, the box-empty switch's alarm, a question about a slide. None if
        the note already says it."""
        self._riding_kept()
        _, note = self._frames_done(_board_frame(request_id), reader_idle=False)
        if note == self._note_kept:
            self._riding = None
            return {}
        self._riding = (last_seq, note)
        return {BOARD_FRAME_NOTE: note.text(last_seq)}

    def _riding_kept(self) -> None:
        """The note that rode a commit is kept once the journal holds that commit's records:
        a commit that failed left the journal where it was."""
        riding = self._riding
        if riding is not None and self.service.journal.last_seq >= riding[0]:
            self._riding = None
            self._named(riding[1])

    def _named(self, note: _BoardNote) -> None:
        """The journal's note now says ``note``."""
        self._note_kept = note
        self._settled_since_note = 0
        frames = [taken.frame for taken in self._frames_taken]
        upto = frames.index(note.last) + 1 if note.last in frames else 0
        for index, taken in enumerate(self._frames_taken):
            if index < upto or taken.frame in note.taken:
                taken.named = True

    def _settle(self) -> None:
        """Acknowledge the frames taken whose work is done and that a restarted service would
        not act on twice: those the journal names, and the edges that ask nothing. Where
        work no command journaled is done (a slide paired with its code, a code the reader
        dropped), the note is written on its own first, once; so it is when many frames went
        unnamed (UNNAMED_SETTLED_MOST). The frames after one not done, or one the journal
        cannot name (it cannot write), wait, unacknowledged: the board holds them."""
        service: TableService | None = getattr(self, "service", None)
        if not self._frames_taken or service is None or self.link is None:
            return  # nothing taken, or no table to take it (not attached)
        self._riding_kept()
        done, note = self._frames_done(None, reader_idle=True)
        unnamed = any(
            not taken.named and taken.work is not _Work.NOTHING
            for taken in self._frames_taken[:done]
        )
        wanted = unnamed or self._settled_since_note >= UNNAMED_SETTLED_MOST
        if wanted and note != self._note_kept:
            journal = service.journal
            try:
                journal.keep_note(BOARD_FRAME_NOTE, note.text(journal.last_seq))
            except JournalError:
                # Tried again at the next poll; the journal's trouble is told where it writes.
                # Meanwhile the board holds the frames, unacknowledged.
                pass
            else:
                self._named(note)
        settled = 0
        for taken in self._frames_taken:
            if not (taken.named or taken.work is _Work.NOTHING):
                break
            settled += 1
        if settled == 0:
            return
        frame = self._frames_taken[settled - 1].frame
        del self._frames_taken[:settled]
        self._last_settled = frame
        self._settled_since_note += settled
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
        # As at the console: while the journal cannot write, the question waits.
        refusal = self.reader.answer_refused()
        if refusal is not None:
            log.warning("button %s: refused: %s", action.value, refusal)
            return
        if action is DealerAction.CONFIRM:
            news = self.reader.confirm_guess(self.reader_clock())
            done = f"button confirm: {question.guess}, the reader's guess ({asked}?), is dealt"
        else:
            news = self.reader.dismiss_question()
            done = f"button void: the reader's question ({asked}?) is dismissed, no card dealt"
        if news.taken_back:
            log.warning("button %s: refused: %s", action.value, news.taken_back)
        else:
            log.info("%s", done)
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
                    self.slide_heard(sensed.at, None)  # heard late if the loop was held up
        if self.link is not None:
            # The note that rode the last commit says which codes' slides need no note.
            self._riding_kept()
            if self._unkept and not (self.service.journal_trouble or self.reader_holds_cards()):
                # Before what the board sends now: the switch closed before it; after the
                # cards the reader held for the journal with it, which came out before it.
                self._given, self._unkept = self._unkept, []
                commands += [command for command, _ in self._given]
            self._tell_slides_behind()
            commands += self._switches_in_turn()
            resent_to_come = self.link.resent_to_come
            for event in self.link.poll():
                work = _Work.NOTHING
                if isinstance(event, SensorChanged) and event.active:
                    if event.sensor is Sensor.BOX_EMPTY:
                        commands += self._switch_in_turn(event.frame)
                        work = _Work.SWITCH
                    elif event.sensor is Sensor.CARD_SLID and self.slide_heard is not None:
                        work = self._slid_in_turn(event, self.slide_heard)
                elif isinstance(event, BarcodeRead):
                    if self.scanner is not None:
                        self.scanner.forwarded(event.text, event.frame, event.device_ms)
                        work = _Work.CODE
                    else:
                        log.info(
                            "the board's scanner read %r; no reader takes its codes "
                            '([reader] kind = "board-scanner")',
                            event.text,
                        )
                elif isinstance(event, LinkUp):
                    self._link_trouble = ""
                    self._codes_left = [
                        code
                        for code in self._codes_left
                        if code[0].boot_id == event.firmware_boot_id
                    ]
                    log.info("layout display up (firmware boot %d)", event.firmware_boot_id)
                elif isinstance(event, LinkDown):
                    self._link_trouble = event.reason
                    log.warning("layout display down: %s", event.reason)
                elif isinstance(event, FirmwareRestarted):
                    self._codes_left = []  # the slides of the boot gone by never come
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
                    if event.frame in resent_to_come:
                        # Taken after a frame the last run left waiting: it waits behind
                        # that one still, and the journal's note names it meanwhile.
                        self._frames_taken.append(_Taken(event.frame, _Work.NOTHING, named=True))
                elif isinstance(event, DeviceReported):
                    self._device_reported(event)
                elif isinstance(event, FramesRefused):
                    self._noise(event)
                if isinstance(event, BoardFrameEvent) and event.frame:
                    self._frames_taken.append(_Taken(event.frame, work))
            self._settle()
            self._unreached(self.link)
        return commands

    def _switch_in_turn(self, frame: FrameId | None) -> list[Command]:
        """The box-empty switch closed, sent behind the codes the board's scanner read
        before it, or while the reader holds cards: carried out once the reader has read and
        dealt them (_switches_in_turn), so that the table hears the box empty after the cards
        that came out before. Carried out at once, a switch sent with the hoc's code still
        unread (the loop held up, a service starting) found the box empty one card short, and
        raised a short deal's alarm."""
        waiting = self._codes_unread
        if waiting or self._switches_behind or self.reader_holds_cards():
            self._switches_behind.append((frame, waiting))
            return []
        return [self._give_empty(frame)]

    def _switches_in_turn(self) -> list[Command]:
        """The switches whose codes before them the reader has read since, and dealt: a
        card it holds (for the journal, or behind a question to the dealer) came out before."""
        commands: list[Command] = []
        if self._unkept or self.reader_holds_cards():
            return commands
        waiting = self._codes_unread
        while self._switches_behind:
            frame, before = self._switches_behind[0]
            if before & waiting:
                break
            self._switches_behind.popleft()
            commands.append(self._give_empty(frame))
        return commands

    def _give_empty(self, frame: FrameId | None) -> Command:
        """The box-empty switch's command, given with its frame: journaled with its name."""
        command = EmptyCmd()
        if frame is not None:
            self._given.append((command, frame))
        return command

    def _slid_in_turn(
        self, event: SensorChanged, slide_heard: Callable[[float | None, int | None], None]
    ) -> _Work:
        """A card slid past the board's light barrier, sent behind the codes the board's
        scanner read before it: told to the reader once it has read them (_slid), so that it
        hears codes and slides in the order the board had them. Told at once, a slide sent
        with codes the reader had yet to read (the loop held up, a service starting) made
        more slides than codes, and the first card was taken for one that slid out unread
        while the last card's code still waited on the board."""
        waiting = self._codes_unread
        if waiting or self._slides_behind:
            self._slides_behind.append((event, waiting))
            return _Work.SLIDE
        return self._slid(event, slide_heard)

    def _tell_slides_behind(self) -> None:
        """Tell the reader the slides whose codes before them it has read since."""
        slide_heard = self.slide_heard
        waiting = self._codes_unread
        while self._slides_behind and slide_heard is not None:
            event, before = self._slides_behind[0]
            if before & waiting:
                return
            self._slides_behind.popleft()
            work = self._slid(event, slide_heard)
            for taken in self._frames_taken:
                if taken.frame == event.frame:
                    taken.work = work

    def _slid(
        self, event: SensorChanged, slide_heard: Callable[[float | None, int | None], None]
    ) -> _Work:
        """A card slid past the board's light barrier: paired with its code if it was read,
        else told to ``slide_heard``, to wait for its code. What its frame asks of the
        journal: nothing if the journal's note keeps the code it is paired with (sent again
        after a restart, it is paired with it again), a note of its own if not."""
        if self._code_left_pairs(event):
            return _Work.NOTHING
        code = self.code_of_slide(event.at, event.device_ms)
        if code is None:
            # When the beam broke on the board: heard late if the frame waited (a loop held
            # up, a frame sent again), it still pairs with its code.
            slide_heard(event.at, event.device_ms)
            if event.frame is not None:
                self._slides_told.append(event.frame)
            return _Work.SLIDE
        return self._paired_work(code)

    def _paired_work(self, code: CodeWaiting) -> _Work:
        """What the slide paired with ``code`` asks of the journal: nothing if its note keeps
        that code (the slide, sent again after a restart, is paired with it again), a note of
        its own if not."""
        frame = _board_frame(code.request_id)
        kept = any(frame == code_frame for code_frame, _ in self._note_kept.codes)
        return _Work.NOTHING if kept else _Work.SLIDE

    def _code_left_pairs(self, event: SensorChanged) -> bool:
        """Whether a slide is that of a code an earlier run left waiting for it, by the
        board's clock; if so the slide is paired with it. As the reader does, a code whose
        slide did not come within ``pair_within`` of it is one whose card the beam missed."""
        if event.frame is None:
            return False
        boot = event.frame.boot_id
        codes = [code for code in self._codes_left if code[0].boot_id == boot]
        while codes and ticks_diff(event.device_ms, codes[0][1]) > self.pair_within * 1000:
            codes.pop(0)
        self._codes_left = codes[1:]
        return bool(codes)

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
        elif report.code == DeviceErrorCode.SENSOR_CHATTER:
            log.warning(
                "the %s on the layout board flickers (%s): no card is made from it until it "
                "is quiet",
                *_CHATTERING.get(report.detail, (report.detail, "a loose wire?")),
            )
        elif report.code == DeviceErrorCode.BARCODE_TOO_LONG:
            log.warning(
                "the layout board's scanner read a line longer than any card's code (over %d "
                "characters): not taken; a card that slid out meanwhile is asked about",
                MAX_BARCODE,
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
            for event in self.link.take_events():
                # Reports the board sent meanwhile; the rest of what came is settled at the
                # stop, or left with the board for the next run.
                if isinstance(event, DeviceReported):
                    self._reported_at_stop(event)
            # The frames whose work is done are noted and acknowledged; should an
            # acknowledgement be lost, the next run knows them when the board sends them
            # again. Those whose work is not (a code unread, a slide the reader still waits
            # on) stay with the board for the next run.
            self._settle()
            self.link.close()
        service: TableService | None = getattr(self, "service", None)
        if service is not None and self._note_riding in service.journal.riders:
            service.journal.riders.remove(self._note_riding)

    def _reported_at_stop(self, report: DeviceReported) -> None:
        """The board reported trouble as the service stopped: no reader reads it any more to
        tell the dealer, so the log says what to check."""
        if report.code == DeviceErrorCode.QUEUE_FULL:
            log.error(
                "the layout board lost events as the service stopped (%s): a card scanned, a "
                "card that slid out, a button press or the box-empty switch may have gone "
                "unheard; check the box, and the cards dealt against the casekeep, at the "
                "next start",
                report.detail,
            )
        else:
            self._device_reported(report)

    def _settled_at_stop(self, event: LinkEvent) -> bool:
        """Whether a frame of the board that comes as the service stops is settled by then:
        the slide of a card whose code was read (its card is dealt), an edge that asks
        nothing (the lid, a sensor going inactive). A code, a slide no code answered and
        the box-empty switch are work for the next run, which the board sends them to."""
        if not isinstance(event, SensorChanged):
            return False
        work = _Work.NOTHING
        if event.sensor is Sensor.CARD_SLID and event.active:
            if self._slides_behind or self._codes_unread:
                settled = False  # behind a code unread: both go to the next run
            elif self._code_left_pairs(event):
                settled = True
            else:
                code = self.code_of_slide(event.at, event.device_ms)
                settled = code is not None
                work = _Work.SLIDE if code is None else self._paired_work(code)
        else:
            settled = not (event.sensor is Sensor.BOX_EMPTY and event.active)
        if settled and event.frame is not None:
            self._frames_taken.append(_Taken(event.frame, work))
        return settled
