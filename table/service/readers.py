"""Card readers wired to the service: raw readings through the reading filter, accepted cards
into the engine, and the filter's alarms and questions to the dealer.

Only cards the filter accepts reach the engine; a reader that goes away raises an alarm and is
reopened with a growing pause, while the dealer deals on from the console.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from table.errors import TableError
from table.events import DeckStarted, Event
from table.service.reading_filter import (
    CardAccepted,
    ConfirmRequest,
    ReaderAlarm,
    ReadingFilter,
    ReadingSource,
)
from table.service.table_service import TableService
from vision.barcode import SerialScanner
from vision.errors import ScannerError

log = logging.getLogger("dealtable.readers")


@dataclass
class ReaderNews:
    """What a round of reading produced besides the cards the engine took."""

    alarms: list[ReaderAlarm] = field(default_factory=list)
    questions: list[ConfirmRequest] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)


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
        self.filter = ReadingFilter(sources=frozenset({ReadingSource.BARCODE}))
        self.scanner: SerialScanner | None = None
        self._retry_at = 0.0
        self._backoff = 0.5
        service.listeners.append(self._changed)

    def _changed(self, events: Sequence[Event]) -> None:
        if any(isinstance(event, DeckStarted) for event in events):
            self.filter = ReadingFilter(sources=self.filter.sources)  # a new deck: all unseen

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
                self._outputs(self.filter.reader_lost(ReadingSource.BARCODE, str(error), now), news)
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
        self._outputs(outputs, news)
        return news

    def _outputs(self, outputs: Sequence[object], news: ReaderNews) -> None:
        for output in outputs:
            if isinstance(output, CardAccepted):
                try:
                    self.service.card(output.card)
                except TableError as refused:
                    news.refused.append(str(refused))
            elif isinstance(output, ReaderAlarm):
                log.warning("reader alarm: %s", output.message)
                news.alarms.append(output)
            elif isinstance(output, ConfirmRequest):
                news.questions.append(output)

    def close(self) -> None:
        if self.scanner is not None:
            self.scanner.close()
            self.scanner = None
