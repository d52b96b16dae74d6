"""Card readers wired to the service: raw readings through the reading filter, accepted cards
into the engine, and the filter's alarms and questions to the dealer.

Only cards the filter accepts reach the engine; a reader that goes away raises an alarm and is
reopened with a growing pause, while the dealer deals on from the console.
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from table.errors import TableError
from table.events import DeckStarted, Event, ShoeStarted
from table.faro.engine import FaroState
from table.language import CardCmd, CorrectCmd, parse_line
from table.service.config import ReaderConfig
from table.service.reading_filter import (
    CardAccepted,
    ConfirmRequest,
    ReaderAlarm,
    ReadingFilter,
    ReadingSource,
)
from table.service.table_service import TableService
from vision.barcode import SerialScanner, read_frame_barcodes
from vision.errors import ScannerError, VisionError
from vision.frames import (
    Frame,
    FrameSource,
    ImageFolderSource,
    PiCameraSource,
    VideoCaptureSource,
)
from vision.profile import find_profile
from vision.recognize import Recognizer

log = logging.getLogger("dealtable.readers")


@dataclass
class ReaderNews:
    """What a round of reading produced besides the cards the engine took."""

    alarms: list[ReaderAlarm] = field(default_factory=list)
    questions: list[ConfirmRequest] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)


class CameraReader:
    """A camera over the open dealing box: frames read on their own thread (a camera will not
    wait), recognised and filtered in the main loop, so only agreed cards reach the engine.

    With a recognizer it reads the cards' corner indices; without one it reads the barcode
    stickers on the cards (a barcode camera)."""

    def __init__(
        self,
        source: FrameSource,
        recognizer: Recognizer | None,
        service: TableService,
        *,
        agree_frames: int = 3,
        backlog: int = 120,
    ) -> None:
        self.source = source
        self.recognizer = recognizer
        self.service = service
        self.agree_frames = agree_frames
        self.kind = ReadingSource.CAMERA if recognizer is not None else ReadingSource.BARCODE
        self.filter = self._new_filter()
        self.frames: queue.Queue[Frame | None] = queue.Queue(maxsize=backlog)
        self.dropped = 0
        self.ended = False
        service.listeners.append(self._changed)
        self._thread = threading.Thread(target=self._capture, name="camera", daemon=True)
        self._thread.start()

    def _new_filter(self) -> ReadingFilter:
        return ReadingFilter(
            agree_frames=self.agree_frames,
            sources=frozenset({self.kind}),
            decks=decks_in_play(self.service),
        )

    def _changed(self, events: Sequence[Event]) -> None:
        if any(isinstance(event, DeckStarted | ShoeStarted) for event in events):
            self.filter = self._new_filter()

    def _capture(self) -> None:
        try:
            for frame in self.source:
                try:
                    self.frames.put_nowait(frame)
                except queue.Full:
                    self.dropped += 1  # the loop fell behind: a camera keeps only the newest
        except VisionError as error:
            log.error("camera: %s", error)
        finally:
            self.frames.put(None)

    def poll(self, limit: int = 30) -> ReaderNews:
        """Recognise the frames that have arrived (at most ``limit``) and act on the filter's
        answers; cards go to the engine."""
        news = ReaderNews()
        for _ in range(limit):
            try:
                frame = self.frames.get_nowait()
            except queue.Empty:
                break
            if frame is None:
                self.ended = True
                lost = self.filter.reader_lost(self.kind, "no more frames from the camera", 0.0)
                _route(self.service, lost, news)
                break
            if self.recognizer is not None:
                reading = self.recognizer.read(frame.image)
                _route(self.service, self.filter.camera(reading, frame.timestamp), news)
            else:
                for code in read_frame_barcodes(frame.image):
                    _route(self.service, self.filter.barcode(code, frame.timestamp), news)
            _route(self.service, self.filter.tick(frame.timestamp), news)
        return news

    def close(self) -> None:
        self.source.close()


def decks_in_play(service: TableService) -> int:
    """How many copies of each card the table's deck or shoe holds."""
    state = service.state
    return 1 if isinstance(state, FaroState) else state.rules.decks


def answer_from_console(
    reader: CameraReader | BarcodeShoeReader, line: str, timestamp: float
) -> list[str] | None:
    """A console line while ``reader`` waits for the dealer to say which card is in the box:
    ``card CARD`` answers it, through the reader's filter (which then knows the card was
    placed and will not take the same card again when it reads it). ``correct`` would change
    the card before the one asked about, so it is refused until the question is answered.
    Returns what to tell the dealer, or None when the line is not about the question."""
    if reader.filter.question is None:
        return None
    try:
        command = parse_line(line)
    except TableError:
        return None
    if isinstance(command, CorrectCmd):
        return [
            f"refused: correct {command.card}: the reader is asking which card is in the box "
            "now; answer with 'card CARD' first (correct changes the card before it)"
        ]
    if not isinstance(command, CardCmd):
        return None
    question = reader.filter.question
    if command.card not in question.choices and command.card in reader.filter.dealt:
        asked = " or ".join(card.code for card in question.choices)
        return [
            f"refused: card {command.card}: that card was already taken from the box; the "
            f"reader asks about the card there now ({asked}?): say which with 'card CARD'"
        ]
    news = ReaderNews()
    _route(reader.service, reader.filter.confirm(command.card, timestamp), news)
    return [f"reader alarm: {alarm.message}" for alarm in news.alarms] + [
        f"refused: {refused}" for refused in news.refused
    ]


def _route(service: TableService, outputs: Sequence[object], news: ReaderNews) -> None:
    for output in outputs:
        if isinstance(output, CardAccepted):
            try:
                service.card(output.card)
            except TableError as refused:
                news.refused.append(str(refused))
        elif isinstance(output, ReaderAlarm):
            log.warning("reader alarm: %s", output.message)
            news.alarms.append(output)
        elif isinstance(output, ConfirmRequest):
            news.questions.append(output)


class BarcodeShoeReader:
    """A serial barcode scanner in the shoe: one line per card as it slides out."""

    def __init__(
        self,
        url: str,
        service: TableService,
        clock: Callable[[], float],
        opener: Callable[[str], SerialScanner] | None = None,
    ) -> None:
        self.url = url
        self.service = service
        self.clock = clock
        self._open = opener or SerialScanner
        self.filter = self._new_filter()
        self.scanner: SerialScanner | None = None
        self._retry_at = 0.0
        self._backoff = 0.5
        service.listeners.append(self._changed)

    def _new_filter(self) -> ReadingFilter:
        return ReadingFilter(
            sources=frozenset({ReadingSource.BARCODE}), decks=decks_in_play(self.service)
        )

    def _changed(self, events: Sequence[Event]) -> None:
        if any(isinstance(event, DeckStarted | ShoeStarted) for event in events):
            self.filter = self._new_filter()  # a new deck or shoe: every card unseen

    def poll(self) -> ReaderNews:
        """Read what has arrived; accepted cards go to the engine (and so to the journal)."""
        news = ReaderNews()
        now = self.clock()
        if self.scanner is None:
            if now < self._retry_at:
                return news
            try:
                self.scanner = self._open(self.url)
                self._backoff = 0.5
                log.info("barcode scanner open at %s", self.url)
            except ScannerError as error:
                self._retry_at = now + self._backoff
                self._backoff = min(self._backoff * 2, 10.0)
                _route(
                    self.service,
                    self.filter.reader_lost(ReadingSource.BARCODE, str(error), now),
                    news,
                )
                return news
        outputs: list[object] = []
        try:
            while (reading := self.scanner.read()) is not None:
                outputs += self.filter.barcode(reading, now)
        except ScannerError as error:
            self.scanner = None
            self._retry_at = now + self._backoff
            outputs += self.filter.reader_lost(ReadingSource.BARCODE, str(error), now)
        outputs += self.filter.tick(now)
        _route(self.service, outputs, news)
        return news

    def close(self) -> None:
        if self.scanner is not None:
            self.scanner.close()
            self.scanner = None


def open_camera(config: ReaderConfig) -> tuple[FrameSource, Recognizer | None]:
    """The camera the config names, with a recognizer of the deck profile it names (none for
    a barcode camera). A ProfileError or a FrameSourceError says what cannot be opened."""
    recognizer = None if config.kind == "barcode-camera" else Recognizer(find_profile(config.deck))
    kind, _, where = config.camera.partition(":")
    source: FrameSource
    if kind == "picamera":
        source = PiCameraSource()
    elif kind == "usb":
        source = VideoCaptureSource(int(where or 0))
    elif kind == "video":
        source = VideoCaptureSource(where)
    else:
        source = ImageFolderSource(where)
    return source, recognizer
