"""A barcode shoe's serial scanner wired to the service (pyserial loop:// ports)."""

from __future__ import annotations

import dataclasses
import queue
import random
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from functools import lru_cache
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
import serial
import zxingcpp
from vision_fixtures import TEST_DESIGN, taught_profile

from table.cards import STANDARD_52, Card
from table.events import AlarmKind as EngineAlarmKind
from table.events import CardDealt, ReaderNotice
from table.service.config import Config, ReaderConfig, TableConfig
from table.service.journal import Journal, JournalError
from table.service.readers import (
    BarcodeShoeReader,
    CameraReader,
    answer_from_console,
    open_camera,
)
from table.service.table_service import TableService
from tests.mosquitto import wait_until
from vision.barcode import CardCode, SerialScanner, encode_payload, sticker
from vision.errors import ScannerError
from vision.frames import Frame, Image, ImageFolderSource, VideoCaptureSource
from vision.recognize import CardReading, ReadingStatus, Recognizer
from vision.synthetic import DESIGNS, FrameSpec, Scene, deal_video, render_card, render_frame


class Clock:
    """A clock the test moves: called, or asked for ``monotonic()``, it says ``now``."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now

    def monotonic(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


def make(
    tmp_path: Path, opener: Any = None, table: TableConfig | None = None
) -> tuple[TableService, BarcodeShoeReader, Clock]:
    config = Config(
        table=table or TableConfig(id="t", journal=str(tmp_path / "j.sqlite")),
        reader=ReaderConfig(kind="serial-scanner", url="loop://"),
    )
    clock = Clock()
    service = TableService(config, Journal(config.table.journal, "t"), clock)
    reader = BarcodeShoeReader("loop://", service, clock, opener=opener, monotonic=clock)
    return service, reader, clock


def dealing(
    tmp_path: Path, opener: Any = None, table: TableConfig | None = None
) -> tuple[TableService, BarcodeShoeReader, Clock]:
    """A barcode shoe with its port open and a new deck (or shoe) in: where most tests start."""
    service, reader, clock = make(tmp_path, opener, table)
    reader.poll()  # opens the port
    service.execute_line("shuffle")
    return service, reader, clock


def monte_bank(tmp_path: Path) -> TableConfig:
    """A Faro table of Monte Bank's 40 cards: a 9 is a stray card from another deck."""
    return TableConfig(id="t", rules="monte-bank", journal=str(tmp_path / "j.sqlite"))


def scan(reader: BarcodeShoeReader, text: str) -> None:
    assert reader.scanner is not None
    reader.scanner.port.write(text.encode() + b"\r\n")  # loop:// hands it back as the scanner


def test_scanned_stickers_become_cards_in_the_engine(tmp_path: Path) -> None:
    service, reader, clock = dealing(tmp_path)
    for card in ("5S", "KD", "9C"):
        scan(reader, encode_payload(Card.parse(card), 1))
        clock.now += 0.5
        reader.poll()
    assert [str(c) for c in service.state.casekeep.dealt_cards()] == ["5S", "KD", "9C"]
    assert service.state.last_turn == (Card.parse("KD"), Card.parse("9C"))


def a_foreign_code_after_the_soda(tmp_path: Path) -> tuple[TableService, BarcodeShoeReader, Clock]:
    """The soda 5S read, then a code that is no sticker of ours, then KD read."""
    service, reader, clock = dealing(tmp_path)
    scan(reader, encode_payload(Card.parse("5S"), 1))
    reader.poll()
    scan(reader, "9781234567897")  # a torn sticker, or a parcel under the scanner
    clock.now += 0.5
    news = reader.poll()
    assert [alarm.kind.value for alarm in news.alarms] == ["foreign-code"]
    assert [question.asked for question in news.questions] == ["which card"]
    scan(reader, encode_payload(Card.parse("KD"), 1))
    clock.now += 0.5
    reader.poll()
    return service, reader, clock


def test_a_foreign_code_stops_the_table_until_the_dealer_names_the_card_that_came_out(
    tmp_path: Path,
) -> None:
    """A card whose sticker will not read must not be passed over: the next card would take
    its place in the turn. The table raises an alarm (the lamp, MQTT, the journal show it)
    and the cards read meanwhile wait for the dealer's answer."""
    service, reader, clock = a_foreign_code_after_the_soda(tmp_path)
    alarm = service.state.alarm
    assert alarm is not None and alarm.kind is EngineAlarmKind.UNREAD_CARD
    assert alarm.message == (
        "the shoe read a code that is not one of our stickers: not a dealtable card code: "
        "'9781234567897': name it with 'card CARD', or void if no card came out"
    )
    assert dealt(service) == ["5S"]  # KD waits
    assert answer_from_console(reader, "card 9C", clock.now) == []
    assert dealt(service) == ["5S", "9C", "KD"]
    assert service.state.alarm is None
    assert service.faro.last_turn == (Card.parse("9C"), Card.parse("KD"))
    cleared = service.journal.last_event_of("alarm_cleared")
    assert cleared is not None and cleared.resolution == "the card was 9C"  # type: ignore[attr-defined]
    scan(reader, encode_payload(Card.parse("5S"), 1))
    clock.now += 0.5
    news = reader.poll()
    assert [alarm.kind.value for alarm in news.alarms] == ["seen-before"]
    assert dealt(service) == ["5S", "9C", "KD"]


def test_void_says_no_card_came_out_for_a_foreign_code_and_the_held_card_is_dealt(
    tmp_path: Path,
) -> None:
    service, reader, clock = a_foreign_code_after_the_soda(tmp_path)
    said = answer_from_console(reader, "void", clock.now)
    assert said is not None and said[0].startswith("void: the reader's question (which card?)")
    assert dealt(service) == ["5S", "KD"]
    assert service.state.alarm is None and service.faro.pending_loser == Card.parse("KD")


def test_the_alarm_voided_elsewhere_ends_the_readers_question(tmp_path: Path) -> None:
    """The dealer voids the alarm over MQTT (or any way but the reader's): the reader lets
    the cards it held go on."""
    service, reader, _clock = a_foreign_code_after_the_soda(tmp_path)
    service.execute_line("void")
    assert dealt(service) == ["5S"]
    reader.poll()
    assert dealt(service) == ["5S", "KD"]
    assert reader.filter.question is None and service.state.alarm is None


def test_a_question_and_the_cards_held_behind_it_outlive_a_restart(tmp_path: Path) -> None:
    """A shoe never reads again a card that slid out: KD, held behind the question when the
    service stopped, is dealt after the dealer's answer, and the card read after it next."""
    service, reader, clock = a_foreign_code_after_the_soda(tmp_path)  # KD held
    reader.close()
    service.journal.close()
    config = service.config
    again = TableService(config, Journal(config.table.journal, "t"))
    assert again.state.alarm is not None
    reader = BarcodeShoeReader("loop://", again, clock, monotonic=clock)
    reader.poll()
    assert reader.filter.held_cards == [Card.parse("KD")]
    assert answer_from_console(reader, "card 9C", clock.now) == []
    assert dealt(again) == ["5S", "9C", "KD"]
    scan(reader, encode_payload(Card.parse("3H"), 1))
    clock.now += 0.5
    reader.poll()
    assert dealt(again) == ["5S", "9C", "KD", "3H"]
    reader.close()
    again.journal.close()

    # Restarted once more with nothing held: nothing comes back.
    final = TableService(config, Journal(config.table.journal, "t"))
    reader = BarcodeShoeReader("loop://", final, clock, monotonic=clock)
    assert not reader.filter.holds_anything and reader.filter.question is None


def test_cards_held_for_a_voided_deal_do_not_come_back_after_a_restart(tmp_path: Path) -> None:
    service, reader, clock = a_foreign_code_after_the_soda(tmp_path)
    service.execute_line("void deal")
    reader.close()
    service.journal.close()
    config = service.config
    again = TableService(config, Journal(config.table.journal, "t"))
    reader = BarcodeShoeReader("loop://", again, clock, monotonic=clock)
    assert reader.filter.held_cards == [] and reader.filter.question is None


def punto_banco(tmp_path: Path, rules: str = "standard") -> TableConfig:
    """A six-deck Punto Banco shoe with no burn: the first card dealt goes to the player."""
    return TableConfig(
        id="t",
        game="punto-banco",
        rules=rules,
        options={"burn": "none"},
        journal=str(tmp_path / "j.sqlite"),
    )


def test_a_shoe_of_six_decks_deals_the_same_card_of_two_decks_and_forgets_a_finished_shoe(
    tmp_path: Path,
) -> None:
    service, reader, clock = dealing(tmp_path, table=punto_banco(tmp_path))
    service.execute_line("lock")
    alarms: list[str] = []
    for card, deck in (("KS", 1), ("KS", 2), ("2H", 1), ("3C", 1)):
        scan(reader, encode_payload(Card.parse(card), deck))
        clock.now += 0.5
        alarms += [alarm.message for alarm in reader.poll().alarms]
    assert alarms == []
    assert [[str(c) for c in hand] for hand in service.state.hands] == [["KS", "2H"], ["KS", "3C"]]

    scan(reader, encode_payload(Card.parse("KS"), 2))  # the same sticker a second time
    clock.now += 0.5
    news = reader.poll()
    assert [alarm.kind.value for alarm in news.alarms] == ["seen-before"]
    assert "KS (deck 2) was already dealt" in news.alarms[0].message

    service.execute_line("void deal")
    service.execute_line("shuffle")  # a new shoe: the cards of the last one are back in it
    service.execute_line("lock")
    scan(reader, encode_payload(Card.parse("KS"), 2))
    clock.now += 0.5
    assert reader.poll().alarms == []
    assert [[str(c) for c in hand] for hand in service.state.hands] == [["KS"], []]


def test_after_a_restart_a_shoe_of_six_decks_still_knows_the_stickers_dealt(
    tmp_path: Path,
) -> None:
    """The KS of deck 2 read again after a service restart is the seen-before alarm, never a
    card; the KS of deck 3 is a card of its own."""
    service, reader, clock = dealing(tmp_path, table=punto_banco(tmp_path))
    service.execute_line("lock")
    scan_all(reader, clock, sticker_of("KS", 2), sticker_of("2H"))
    reader.close()
    service.journal.close()
    again = TableService(service.config, Journal(service.config.table.journal, "t"))
    reader = BarcodeShoeReader("loop://", again, clock, monotonic=clock)
    reader.poll()
    scan(reader, sticker_of("KS", 2))  # the dealt KS waved at the scanner
    clock.now += 0.5
    assert [alarm.kind.value for alarm in reader.poll().alarms] == ["seen-before"]
    scan_all(reader, clock, sticker_of("KS", 3))
    assert [[str(c) for c in hand] for hand in again.state.hands] == [["KS", "KS"], ["2H"]]
    reader.close()
    again.journal.close()


def test_the_dealer_vouches_for_another_decks_card_asked_about_over_a_restart(
    tmp_path: Path,
) -> None:
    """A two-deck shoe whose first card was a stray of deck 9: the shoe's own deck 2 is
    asked about as another deck's, and the service restarts while the question waits. The
    dealer names the card: deck 2 is one of the shoe's, and its next card is dealt without
    a question."""
    table = punto_banco(tmp_path)
    table = dataclasses.replace(table, options={**table.options, "decks": "2"})
    service, reader, clock = dealing(tmp_path, table=table)
    service.execute_line("lock")
    scan_all(reader, clock, sticker_of("KS", 9), sticker_of("2H", 1), sticker_of("9S", 2))
    question = reader.filter.question
    assert question is not None and question.sticker == (Card.parse("9S"), 2)
    reader.close()
    service.journal.close()
    again = TableService(service.config, Journal(service.config.table.journal, "t"), clock)
    reader = BarcodeShoeReader("loop://", again, clock, monotonic=clock)
    reader.poll()
    assert answer_from_console(reader, "card 9S", clock.now) == []
    scan(reader, sticker_of("3C", 2))
    clock.now += 0.5
    news = reader.poll()
    assert news.alarms == [] and news.questions == [] and again.state.alarm is None
    assert [[str(c) for c in hand] for hand in again.state.hands] == [["KS", "9S"], ["2H", "3C"]]
    reader.close()
    again.journal.close()


def test_a_shuffler_takes_a_coups_cards_back_and_the_shoe_reads_them_again(
    tmp_path: Path,
) -> None:
    service, reader, clock = dealing(tmp_path, table=punto_banco(tmp_path, "shuffler"))
    for coup in (1, 2):
        service.execute_line("lock")
        for card in ("KS", "2H", "9S", "3C"):  # the player's natural 9 ends the coup
            scan(reader, encode_payload(Card.parse(card), 1))
            clock.now += 0.5
            assert reader.poll().alarms == []
        assert service.state.coup == coup and service.state.coup_over


def test_a_scanner_that_ends_its_codes_with_nothing_deals_each_card(tmp_path: Path) -> None:
    """A scanner whose suffix is set to none sends each code alone, with no CR or LF after
    it: each is its card once nothing more has followed it a moment, not a line that waits
    for an end that never comes while the cards go by unread and nothing is said."""
    service, reader, clock = dealing(tmp_path)
    assert reader.scanner is not None
    for card in ("5S", "KD", "9C"):
        reader.scanner.port.write(sticker_of(card).encode())
        assert reader.poll().alarms == []  # it may yet go on
        clock.now += 0.5
        assert reader.poll().alarms == []
    assert dealt(service) == ["5S", "KD", "9C"]
    reader.scanner.port.write(b"\x02DT1-2H-01\x03")  # framed with STX and ETX: no line end
    reader.poll()
    clock.now += 1.0
    news = reader.poll()
    assert [alarm.message for alarm in news.alarms] == [
        "the shoe read a code that is not one of our stickers: '\\x02DT1-2H-01\\x03' came "
        "with no line end after it: set the scanner to end each code with CR or LF"
    ]
    assert dealt(service) == ["5S", "KD", "9C"]
    reader.close()


def test_an_unplugged_scanner_is_an_alarm_and_is_reopened(tmp_path: Path) -> None:
    attempts: list[str] = []

    def opener(url: str) -> SerialScanner:
        attempts.append(url)
        if len(attempts) < 3:
            raise ScannerError(f"cannot open barcode scanner {url!r}: no such device")
        return SerialScanner(url)

    service, reader, clock = make(tmp_path, opener)
    news = reader.poll()
    assert [alarm.kind.value for alarm in news.alarms] == ["reader-lost"]
    assert reader.poll().alarms == []  # not before the pause is over
    clock.now += 0.6
    reader.poll()
    clock.now += 1.1
    reader.poll()
    assert len(attempts) == 3 and reader.scanner is not None
    service.execute_line("shuffle")
    scan(reader, encode_payload(Card.parse("2H"), 1))
    reader.poll()
    assert [str(c) for c in service.state.casekeep.dealt_cards()] == ["2H"]
    reader.close()
    assert reader.scanner is None


class FailingPort:
    """A port that opens but fails every read, as one another program reads too."""

    def readline(self) -> bytes:
        raise serial.SerialException("device reports readiness to read but returned no data")

    def close(self) -> None:
        pass


def test_a_scanner_that_opens_but_fails_every_read_is_retried_after_a_growing_pause(
    tmp_path: Path,
) -> None:
    def opener(url: str) -> SerialScanner:
        return SerialScanner(url, opener=lambda *args, **kwargs: FailingPort())

    _, reader, clock = make(tmp_path, opener)
    said = []
    for _ in range(600):  # a minute, polled every 0.1 s
        clock.now += 0.1
        said += [alarm.message for alarm in reader.poll().alarms]
    pauses = [message.split("reopened in ")[1].split(" s")[0] for message in said]
    assert pauses[:6] == ["0.5", "1", "2", "4", "8", "10"]
    assert len(said) < 12  # not one every half second


class UsbSocket:
    """Where the scanner plugs in: opening it fails while nothing is plugged."""

    def __init__(self, plugged: bool) -> None:
        self.plugged = plugged
        self.opened: list[str] = []

    def open(self, url: str) -> SerialScanner:
        self.opened.append(url)
        if not self.plugged:
            raise ScannerError(f"cannot open barcode scanner {url!r}: no such device")
        return SerialScanner(url)


def test_a_scanner_that_worked_a_while_is_reopened_soon_after_it_fails_again(
    tmp_path: Path,
) -> None:
    socket = UsbSocket(plugged=True)
    _, reader, clock = make(tmp_path, socket.open)
    socket.plugged = False
    for _ in range(4):  # unplugged a while: the pause grew to 8 s
        reader.poll()
        clock.now += 10
    socket.plugged = True
    reader.poll()
    assert reader.scanner is not None
    clock.now += 60  # a quiet hour at the table, then unplugged again
    reader.scanner.port.close()
    lost = reader.poll().alarms
    assert lost and lost[0].message.endswith("it is reopened in 0.5 s; deal from the console")


def notices(service: TableService) -> list[tuple[str, str]]:
    """(reader, notice) of every reader notice the journal holds, in order."""
    return [
        (event.reader, event.notice.value)
        for event in service.journal.events()
        if isinstance(event, ReaderNotice)
    ]


def test_a_scanner_lost_is_the_tables_news_once_an_outage_until_it_reads_again(
    tmp_path: Path,
) -> None:
    """Under systemd no one reads the log: a scanner unplugged is journaled, so MQTT, the
    screens and the layout's alarm lamp show it, once however often it is retried, until
    it reads a code again or stays open a while."""
    socket = UsbSocket(plugged=False)
    service, reader, clock = make(tmp_path, socket.open)
    for _ in range(120):  # an hour unplugged, polled every half minute
        reader.poll()
        clock.now += 30
    assert notices(service) == [("barcode", "reader_lost")]
    assert "no such device" in service.state.readers_lost["barcode"]
    socket.plugged = True
    reader.poll()  # open again, nothing read yet: not yet known to work
    assert service.state.readers_lost != {}
    service.execute_line("shuffle")
    scan(reader, encode_payload(Card.parse("2H"), 1))
    reader.poll()
    assert notices(service) == [("barcode", "reader_lost"), ("barcode", "reader_back")]
    assert service.state.readers_lost == {} and dealt(service) == ["2H"]
    assert reader.scanner is not None
    reader.scanner.port.close()  # unplugged again: a new outage, told again
    reader.poll()
    socket.plugged = False
    clock.now += 1
    reader.poll()
    socket.plugged = True
    clock.now += 1
    reader.poll()
    clock.now += reader.steady_after  # open a while, with no card dealt: it works
    reader.poll()
    assert notices(service)[2:] == [("barcode", "reader_lost"), ("barcode", "reader_back")]


def test_a_reader_lost_when_the_service_stopped_is_back_once_it_reads_after_the_restart(
    tmp_path: Path,
) -> None:
    service, reader, _ = dealing(tmp_path)
    assert reader.scanner is not None
    reader.scanner.port.close()
    reader.poll()
    reader.close()
    service.journal.close()
    again, reader, _ = make(tmp_path)
    assert again.state.readers_lost.keys() == {"barcode"}
    reader.poll()
    scan(reader, encode_payload(Card.parse("2H"), 1))
    reader.poll()
    assert notices(again) == [("barcode", "reader_lost"), ("barcode", "reader_back")]
    assert again.state.readers_lost == {}


def test_a_dealt_card_scanned_again_is_told_once_a_minute_and_stops_no_card(
    tmp_path: Path,
) -> None:
    service, reader, clock = dealing(tmp_path)
    for code in ("2H", "KD", "5C", *["2H", "KD"] * 5):  # a hand waves two dealt cards past
        scan(reader, encode_payload(Card.parse(code), 1))
        reader.poll()
        clock.now += 1
    assert dealt(service) == ["2H", "KD", "5C"]
    assert notices(service) == [("barcode", "seen_before")] * 2  # each card's news, once
    clock.now += reader.notice_repeat_seconds
    scan(reader, encode_payload(Card.parse("KD"), 1))
    reader.poll()
    assert notices(service) == [("barcode", "seen_before")] * 3
    assert service.state.alarm is None


def test_a_wall_clock_set_back_does_not_silence_the_readers_news(tmp_path: Path) -> None:
    """The minute between two tellings of the same news runs on the monotonic clock: NTP
    stepping the wall clock back an hour does not make it an hour."""
    wall, monotonic = Clock(), Clock()
    config = Config(
        table=TableConfig(id="t", journal=str(tmp_path / "j.sqlite")),
        reader=ReaderConfig(kind="serial-scanner", url="loop://"),
    )
    service = TableService(config, Journal(config.table.journal, "t"), clock=wall)
    reader = BarcodeShoeReader("loop://", service, wall, monotonic=monotonic)
    reader.poll()
    service.execute_line("shuffle")
    wall.now -= 3600
    for code in ("2H", "KD", "2H"):
        scan(reader, encode_payload(Card.parse(code), 1))
        reader.poll()
        monotonic.now += reader.notice_repeat_seconds
    assert notices(service) == [("barcode", "seen_before")]
    scan(reader, encode_payload(Card.parse("2H"), 1))
    reader.poll()
    assert notices(service) == [("barcode", "seen_before")] * 2


def test_a_reader_back_the_journal_could_not_take_is_told_when_it_next_can(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The journal busy for a moment just as the scanner is back: the table still has it
    lost, and is told it is back as soon as the journal takes it."""
    socket = UsbSocket(plugged=False)
    service, reader, clock = make(tmp_path, socket.open)
    reader.poll()
    socket.plugged = True
    clock.now += 1
    reader.poll()

    def busy(*_: Any, **__: Any) -> None:
        raise JournalError("journal: cannot append: database is locked")

    with monkeypatch.context() as moment:
        moment.setattr(service.journal, "append", busy)
        clock.now += reader.steady_after
        reader.poll()
    assert service.state.readers_lost.keys() == {"barcode"}
    service.execute_line("shuffle")
    scan(reader, encode_payload(Card.parse("2H"), 1))
    reader.poll()
    assert dealt(service) == ["2H"] and service.state.readers_lost == {}
    assert notices(service) == [("barcode", "reader_lost"), ("barcode", "reader_back")]


class FullDisk:
    """The journal's SQLite connection on a disk that has filled: every write fails as SQLite
    fails then, reads go on; ``full`` set to False is the disk cleared."""

    WRITES = ("INSERT", "UPDATE", "DELETE", "BEGIN", "REPLACE")

    def __init__(self, db: Any) -> None:
        self.db = db
        self.full = True

    def _check(self, sql: str) -> None:
        if self.full and sql.lstrip().split()[0].upper() in self.WRITES:
            raise sqlite3.OperationalError("database or disk is full")

    def execute(self, sql: str, *parameters: Any) -> Any:
        self._check(sql)
        return self.db.execute(sql, *parameters)

    def executemany(self, sql: str, *parameters: Any) -> Any:
        self._check(sql)
        return self.db.executemany(sql, *parameters)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.db, name)


def test_cards_read_while_the_journal_cannot_write_are_held_and_dealt_once_it_can(
    tmp_path: Path,
) -> None:
    """The disk is full: the cards slid out all the same. Each is held in the order it came,
    the dealer is told once, and they are dealt once the journal takes them again; none is
    lost and none dealt out of turn."""
    service, reader, clock = dealing(tmp_path)
    for code in ("2H", "KD"):
        scan(reader, encode_payload(Card.parse(code), 1))
        reader.poll()
    disk = FullDisk(service.journal._db)
    service.journal._db = disk
    said: list[str] = []
    for code in ("5C", "7S", "9D"):
        clock.now += 1
        scan(reader, encode_payload(Card.parse(code), 1))
        said += reader.poll().refused
    assert dealt(service) == ["2H", "KD"]
    assert "the journal cannot keep the cards" in said[0]  # once
    assert "database or disk is full" in said[0]
    # Each card held is named, in its order: a restart meanwhile would forget it.
    assert [line.split(": ")[1].split()[0] for line in said[1:]] == ["5C", "7S", "9D"]
    assert all(line.startswith("held until the journal can write") for line in said[1:])
    assert reader.filter.held_cards == [Card.parse(code) for code in ("5C", "7S", "9D")]
    disk.full = False
    clock.now += reader.journal_retry_seconds
    scan(reader, encode_payload(Card.parse("QH"), 1))
    reader.poll()
    assert dealt(service) == ["2H", "KD", "5C", "7S", "9D", "QH"]
    assert service.journal.verify() is None


def card_times(service: TableService) -> dict[str, float]:
    """When each card dealt came out, as its ``card_dealt`` says."""
    return {
        str(event.card): event.at
        for event in service.journal.events()
        if isinstance(event, CardDealt)
    }


def test_cards_held_for_the_journal_are_dealt_at_the_time_they_came_out(tmp_path: Path) -> None:
    """The journal's record of a card is of when it slid out, not of when the disk let the
    card be written: the record of a disputed turn is read beside the room's video."""
    service, reader, clock = dealing(tmp_path)
    disk = FullDisk(service.journal._db)
    service.journal._db = disk
    came_out = {}
    for code in ("5C", "7S"):
        clock.now += 3
        came_out[code] = clock.now
        scan(reader, encode_payload(Card.parse(code), 1))
        reader.poll()
    disk.full = False
    clock.now += 60
    service.execute_line("punter zed 10")
    scan(reader, encode_payload(Card.parse("QH"), 1))
    reader.poll()
    assert dealt(service) == ["5C", "7S", "QH"]
    assert card_times(service) == {**came_out, "QH": clock.now}


def test_a_card_held_behind_a_question_over_a_restart_is_dealt_at_the_time_it_came_out(
    tmp_path: Path,
) -> None:
    service, reader, clock = a_foreign_code_after_the_soda(tmp_path)  # KD held
    kd_came_out = clock.now
    reader.close()
    service.journal.close()
    config = service.config
    clock.now += 120
    again = TableService(config, Journal(config.table.journal, "t"), clock)
    reader = BarcodeShoeReader("loop://", again, clock, monotonic=clock)
    assert answer_from_console(reader, "card 9C", clock.now) == []
    assert dealt(again) == ["5S", "9C", "KD"]
    times = card_times(again)
    assert times["9C"] == asked_at(again)  # it came out when the reader asked, before KD
    assert times["KD"] == kd_came_out
    again.journal.close()


def asked_at(service: TableService) -> float:
    """When the reader last asked which card came out: its ``unread_card`` alarm's time."""
    raised = service.journal.last_event_of("alarm_raised")
    assert raised is not None and raised.kind is EngineAlarmKind.UNREAD_CARD  # type: ignore[attr-defined]
    return raised.at


def times_in_seq(service: TableService) -> list[float]:
    """The ``at`` of every ``card_dealt``, in the journal's order."""
    return [event.at for event in service.journal.events() if isinstance(event, CardDealt)]


def test_the_card_the_dealer_names_is_dealt_at_the_time_it_came_out_before_those_held_behind_it(
    tmp_path: Path,
) -> None:
    """A torn sticker: the reader asks which card slid out, and the cards read after it wait.
    The dealer answers a minute later. The card named came out when the reader asked, before
    the cards held behind it: the journal's times run on as the cards came out of the shoe,
    not back from the answer to the cards read before it."""
    service, reader, clock = dealing(tmp_path)
    came_out = {}
    for code in ("5S", "TORN", "KD", "3H"):
        clock.now += 2
        came_out[code] = clock.now
        scan(reader, "TORN-1" if code == "TORN" else sticker_of(code))
        reader.poll()
    assert dealt(service) == ["5S"] and asked_at(service) == came_out["TORN"]
    clock.now += 60
    assert answer_from_console(reader, "card 9C", clock.now) == []
    assert dealt(service) == ["5S", "9C", "KD", "3H"]
    assert card_times(service) == {
        "5S": came_out["5S"],
        "9C": came_out["TORN"],
        "KD": came_out["KD"],
        "3H": came_out["3H"],
    }
    assert times_in_seq(service) == sorted(times_in_seq(service))
    cleared = service.journal.last_event_of("alarm_cleared")
    assert cleared is not None and cleared.at == clock.now  # the dealer answered a minute on


def test_a_question_dismissed_deals_the_cards_held_behind_it_at_their_own_times(
    tmp_path: Path,
) -> None:
    service, reader, clock = dealing(tmp_path)
    came_out = {}
    for code in ("5S", "TORN", "KD"):
        clock.now += 2
        came_out[code] = clock.now
        scan(reader, "TORN-1" if code == "TORN" else sticker_of(code))
        reader.poll()
    clock.now += 60
    said = answer_from_console(reader, "void", clock.now)
    assert said is not None and said[0].startswith("void: the reader's question")
    assert card_times(service) == {"5S": came_out["5S"], "KD": came_out["KD"]}


def test_a_card_named_for_an_unread_alarm_raised_before_the_reader_started_is_dealt_at_its_time(
    tmp_path: Path,
) -> None:
    """The table's ``unread_card`` alarm waits when the reader starts (raised at the console,
    or its note of the question lost): the card named for it came out when it was raised."""
    service, reader, clock = dealing(tmp_path)
    scan(reader, sticker_of("5S"))
    reader.poll()
    reader.close()
    clock.now += 2
    service.execute_line("unread")
    raised_at = clock.now
    clock.now += 60
    reader = BarcodeShoeReader("loop://", service, clock, monotonic=clock)
    reader.poll()
    scan(reader, sticker_of("KD"))
    clock.now += 2
    reader.poll()
    kd_came_out = clock.now
    clock.now += 60
    assert answer_from_console(reader, "card 9C", clock.now) == []
    assert dealt(service) == ["5S", "9C", "KD"]
    assert card_times(service) == {"5S": 1000.0, "9C": raised_at, "KD": kd_came_out}


def test_a_long_disk_outage_holds_a_deck_at_most_and_names_each_card_refused_past_it(
    tmp_path: Path,
) -> None:
    """The disk stays full while the dealer deals on: the reader holds no more than a deck's
    cards for the journal (memory stays bounded, and the table is not run far ahead of its
    record), then tells the dealer once to stop and refuses each card after, naming it. Once
    the journal writes, those held are dealt, and those refused are given at the console."""
    assert BarcodeShoeReader.held_at_most == 52  # a Faro deck, ten baccarat coups or so
    service, reader, clock = dealing(tmp_path)
    reader.held_at_most = 3
    disk = FullDisk(service.journal._db)
    service.journal._db = disk
    said: list[str] = []
    for code in ("5C", "7S", "9D", "QH", "2S"):
        clock.now += 1
        scan(reader, encode_payload(Card.parse(code), 1))
        said += reader.poll().refused
    assert reader.filter.held_cards == [Card.parse(code) for code in ("5C", "7S", "9D")]
    past = [line for line in said if line.startswith(("refused,", "the journal cannot write and"))]
    assert past == [
        "the journal cannot write and 3 cards are held for it, the most the reader holds: stop "
        "dealing; each card read from now on is refused and named",
        "refused, not held: QH, read past the 3 cards held for the journal; once it writes and "
        "those are dealt, give it with 'card QH', in this order",
        "refused, not held: 2S, read past the 3 cards held for the journal; once it writes and "
        "those are dealt, give it with 'card 2S', in this order",
    ]
    disk.full = False
    clock.now += reader.journal_retry_seconds
    reader.poll()
    assert dealt(service) == ["5C", "7S", "9D"]
    for code in ("QH", "2S"):
        service.execute_line(f"card {code}")
    assert dealt(service) == ["5C", "7S", "9D", "QH", "2S"]
    assert service.journal.verify() is None


def test_cards_held_for_the_journal_go_in_as_soon_as_it_writes_again(tmp_path: Path) -> None:
    """The disk clears and a line at the console is journaled: the journal works, and the
    cards held for it go in at the next reading, before any card the dealer gives (the
    console refuses a card while they wait)."""
    service, reader, _ = dealing(tmp_path)
    disk = FullDisk(service.journal._db)
    service.journal._db = disk
    for code in ("5C", "7S"):
        scan(reader, encode_payload(Card.parse(code), 1))
        reader.poll()
    assert reader.holding_for_the_journal() == [Card.parse("5C"), Card.parse("7S")]
    disk.full = False
    service.execute_line("punter zed 10")  # journaled: the disk has room again
    reader.poll()  # no pause waited out
    assert dealt(service) == ["5C", "7S"] and reader.holding_for_the_journal() == []


def test_the_dealers_answer_while_the_journal_cannot_write_is_as_if_not_given(
    tmp_path: Path,
) -> None:
    """The reader asks which card came out; the disk is full as the dealer answers: the
    question waits, nothing is lost, and answered again once the journal can write the
    card goes in where it came, the cards held after it behind it."""
    service, reader, clock = dealing(tmp_path)
    scan(reader, encode_payload(Card.parse("5S"), 1))
    reader.poll()
    scan(reader, "SHIP-1")  # a torn sticker: which card is it?
    reader.poll()
    torn_came_out = clock.now
    clock.now += 1
    scan(reader, encode_payload(Card.parse("KD"), 1))
    reader.poll()
    king = Card.parse("KD")
    assert reader.filter.question is not None and reader.filter.held_cards == [king]
    disk = FullDisk(service.journal._db)
    service.journal._db = disk
    told = answer_from_console(reader, "void", clock.now)  # tried: the journal fails
    assert told is not None and told[0].startswith("refused: the journal cannot write")
    assert not any("dismissed" in line for line in told)
    assert reader.filter.question is not None and reader.filter.held_cards == [king]
    told = answer_from_console(reader, "card 9C", clock.now)  # within the pause: not tried
    assert told is not None and told[0].startswith("refused: the journal cannot write")
    assert reader.filter.question is not None and reader.filter.held_cards == [king]
    clock.now += reader.journal_retry_seconds
    told = answer_from_console(reader, "card 9C", clock.now)  # tried again: fails again
    assert told is not None and told[0].startswith("refused: the journal cannot write")
    assert reader.filter.question is not None and reader.filter.held_cards == [king]
    assert dealt(service) == ["5S"]
    disk.full = False
    clock.now += reader.journal_retry_seconds
    assert answer_from_console(reader, "card 9C", clock.now) == []
    assert dealt(service) == ["5S", "9C", "KD"] and service.state.alarm is None
    # Answered at last, the card named still came out when the reader asked, before KD.
    assert card_times(service) == {"5S": 1000.0, "9C": torn_came_out, "KD": torn_came_out + 1}


def test_a_scanner_is_reopened_on_time_when_the_wall_clock_is_set_back(tmp_path: Path) -> None:
    socket = UsbSocket(plugged=False)
    service, _, monotonic = make(tmp_path)
    wall = Clock()
    reader = BarcodeShoeReader("loop://", service, wall, opener=socket.open, monotonic=monotonic)
    reader.poll()
    wall.now -= 3600  # NTP steps the wall clock back an hour
    socket.plugged = True
    monotonic.now += 0.6
    wall.now += 0.6
    reader.poll()
    assert len(socket.opened) == 2 and reader.scanner is not None


def test_a_scanner_sending_line_after_line_is_read_a_few_lines_a_round(tmp_path: Path) -> None:
    _, reader, clock = make(tmp_path)
    reader.poll()
    for number in range(12):
        scan(reader, f"SHIP-{number}")  # a scanner left reading the parcel under it
    rounds = []
    for _ in range(4):
        clock.now += 0.02
        rounds.append(len(reader.poll().alarms))
    assert rounds == [5, 5, 2, 0]


class DealtVideo:
    """The synthetic dealing box as a camera: frames of cards dealt at a brisk dealer's
    speed, four a second (each card still lies in view for more frames than the filter needs
    to agree on it; every frame rendered is a frame read, so fewer keep the test quick)."""

    def __init__(self, order: list[Card], seed: int) -> None:
        self.order = order
        self.seed = seed
        self.closed = False

    def __iter__(self) -> Iterator[Frame]:
        design = DESIGNS[TEST_DESIGN]
        video = deal_video(self.order, design, seed=self.seed, hand_every=3, seconds_per_card=0.25)
        for index, shot in enumerate(video):
            if self.closed:
                return
            yield Frame(shot.image, shot.timestamp, index)

    def close(self) -> None:
        self.closed = True


def test_a_camera_over_the_box_deals_the_cards_it_sees_into_the_engine(tmp_path: Path) -> None:
    service, _, _ = make(tmp_path)
    service.execute_line("shuffle")
    order = [Card.parse(text) for text in ["7S", "2H", "2D", "QS", "JC"]]
    camera = CameraReader(DealtVideo(order, seed=11), Recognizer(taught_profile()), service)
    alarms: list[Any] = []
    assert wait_until(
        lambda: camera.ended, timeout=120, step=lambda: alarms.extend(camera.poll().alarms)
    )
    assert list(service.state.casekeep.dealt_cards()) == order
    assert service.state.splits == 1  # the two deuces of turn 1
    assert service.state.last_turn == (Card.parse("QS"), Card.parse("JC"))
    assert [alarm.kind.value for alarm in alarms] == ["reader-lost"]  # the video ended
    camera.close()


def test_a_corrupt_picture_in_a_folder_of_frames_is_told_and_the_cards_after_it_dealt(
    tmp_path: Path,
) -> None:
    """A folder of frames copied with one picture cut short: the camera is lost a moment,
    naming it, then goes on with the frames after it; starting the folder over showed the
    dealt cards again as cards seen twice, and never reached the cards after it."""
    service, _, clock = make(tmp_path)
    service.execute_line("shuffle")
    frames = tmp_path / "frames"
    frames.mkdir()
    design = DESIGNS[TEST_DESIGN]
    shown = [*["5S"] * 4, "cut", *["KD"] * 4, *[None] * 2]
    for number, code in enumerate(shown):
        path = frames / f"{number:03d}.png"
        if code == "cut":
            path.write_bytes(b"\x89PNG cut short")
            continue
        card = None if code is None else Card.parse(code)
        scene = Scene.CARD if card is not None else Scene.EMPTY
        cv2.imwrite(str(path), render_frame(FrameSpec(card, design, scene=scene)))
    camera = CameraReader(
        ImageFolderSource(frames), Recognizer(taught_profile()), service, clock=clock
    )
    alarms: list[str] = []

    def step() -> None:
        clock.now += 0.25  # past the pause before the folder is taken up again
        alarms.extend(alarm.message for alarm in camera.poll().alarms)

    assert wait_until(lambda: camera.ended, step=step, timeout=60)
    assert dealt(service) == ["5S", "KD"]
    assert len(alarms) == 2, alarms
    assert "not a readable image" in alarms[0] and "004.png" in alarms[0]
    assert "no more frames" in alarms[1]
    camera.close()


class StickerFrames:
    """A camera looking at each card's barcode sticker for a few frames as it slides out."""

    def __init__(self, cards: list[Card], frames_each: int = 4) -> None:
        self.cards = cards
        self.frames_each = frames_each

    def __iter__(self) -> Iterator[Frame]:
        index = 0
        for card in self.cards:
            image = sticker(CardCode(card, 1))
            for _ in range(self.frames_each):
                yield Frame(image, index / 30, index)
                index += 1

    def close(self) -> None:
        pass


def test_a_barcode_camera_deals_the_stickers_it_reads(tmp_path: Path) -> None:
    service, _, _ = make(tmp_path)
    service.execute_line("shuffle")
    order = [Card.parse(text) for text in ["3H", "8S", "8D"]]
    camera = CameraReader(StickerFrames(order), None, service)
    assert wait_until(lambda: camera.ended, timeout=60, step=camera.poll)
    assert list(service.state.casekeep.dealt_cards()) == order
    assert service.state.splits == 1  # the two eights split turn 1


def test_a_recording_waits_for_a_loop_that_falls_behind_and_loses_no_card(
    tmp_path: Path,
) -> None:
    """A video file or a folder of frames is no live camera: it is read faster than the
    recognizer reads its frames, and waits for the loop. Its oldest frames dropped, a replayed
    deal lost most of its cards, with nothing said."""
    service, _, _ = make(tmp_path)
    service.execute_line("shuffle")
    order = [Card.parse(code) for code in ("3H", "8S", "KD", "2C", "9H", "AS", "5D", "JC")]
    camera = CameraReader(StickerFrames(order, frames_each=1), None, service, backlog=3)
    assert wait_until(camera.frames.full)  # three frames in, while nothing is read
    assert wait_until(lambda: camera.ended, step=camera.poll)
    assert list(service.state.casekeep.dealt_cards()) == order
    assert camera.dropped == 0


class LiveStickers(StickerFrames):
    live = True  # a camera: it will not wait for the loop


def test_a_live_camera_keeps_only_its_newest_frames_for_a_slow_loop(tmp_path: Path) -> None:
    service, _, _ = make(tmp_path)
    service.execute_line("shuffle")
    order = [*STANDARD_52][:12]
    camera = CameraReader(LiveStickers(order, frames_each=1), None, service)  # backlog 120
    assert wait_until(lambda: camera.dropped == 4)
    assert wait_until(lambda: camera.ended, step=camera.poll)
    assert list(service.state.casekeep.dealt_cards()) == order[-8:]


class ScriptedRecognizer:
    """Stands in for the recognizer's answers, frame by frame, to put a question to the
    dealer at a chosen moment (the recognizer itself is tested on real pixels elsewhere)."""

    def __init__(self, readings: list[CardReading]) -> None:
        self.readings = readings

    def read(self, image: Any) -> CardReading:
        return self.readings.pop(0)


class BlankFrames:
    def __init__(self, count: int) -> None:
        self.count = count

    def __iter__(self) -> Iterator[Frame]:
        for index in range(self.count):
            yield Frame(np.zeros((4, 4, 3), np.uint8), index / 30, index)

    def close(self) -> None:
        pass


def test_the_dealer_answers_the_cameras_question_with_the_card_and_nothing_else_changes(
    tmp_path: Path,
) -> None:
    service, _, _ = make(tmp_path)
    service.execute_line("shuffle")
    readings = [*[sure("2C")] * 3, EMPTY, *[sure("KD")] * 3, EMPTY, *[UNSURE_QH] * 10]
    camera = CameraReader(
        BlankFrames(len(readings)),
        ScriptedRecognizer(readings),
        service,  # type: ignore[arg-type]
    )
    questions: list[Any] = []
    assert wait_until(lambda: camera.ended, step=lambda: questions.extend(camera.poll().questions))
    assert [question.choices for question in questions] == [(Card.parse("QH"), Card.parse("QS"))]
    dealt_before = list(service.state.casekeep.dealt_cards())
    assert dealt_before == [Card.parse("2C"), Card.parse("KD")]

    refused = answer_from_console(camera, "correct QS", 10.0)
    assert refused is not None and "answer with 'card CARD' first" in refused[0]
    assert list(service.state.casekeep.dealt_cards()) == dealt_before
    refused = answer_from_console(camera, "card KD", 10.0)  # the card before it
    assert refused is not None and "that card was already taken" in refused[0]
    assert "(QH or QS?)" in refused[0]
    assert camera.filter.question is not None  # still asked
    assert list(service.state.casekeep.dealt_cards()) == dealt_before

    assert answer_from_console(camera, "card QS", 10.0) == []
    assert list(service.state.casekeep.dealt_cards()) == [*dealt_before, Card.parse("QS")]
    assert camera.filter.question is None
    assert answer_from_console(camera, "card 9H", 11.0) is None  # no question: not the reader's
    camera.close()


class FedCamera:
    """A camera whose frames the test shows a few at a time: ``settle`` returns once the
    reader has read all of them, so nothing waits on the clock."""

    def __init__(self) -> None:
        self.shown: queue.Queue[Image | None] = queue.Queue()

    def show(self, *images: Image) -> None:
        for image in images:
            self.shown.put(image)

    def end(self) -> None:
        self.shown.put(None)

    def __iter__(self) -> Iterator[Frame]:
        index = 0
        while True:
            image = self.shown.get()
            try:
                if image is None:
                    return
                yield Frame(image, index / 30, index)
                index += 1
            finally:
                self.shown.task_done()  # once the reader has the frame in its backlog

    def close(self) -> None:
        pass


def settle(camera: CameraReader, fed: FedCamera) -> list[str]:
    """Read every frame shown so far; what the reader said, alarms and refusals."""
    fed.shown.join()
    news = camera.poll(limit=10_000)
    return [alarm.message for alarm in news.alarms] + [f"refused: {r}" for r in news.refused]


@lru_cache(maxsize=64)
def in_box(code: str | None) -> Image:
    """The camera's picture of the box with ``code`` lying in it (None: the box empty)."""
    design = DESIGNS[TEST_DESIGN]
    if code is None:
        return render_frame(FrameSpec(None, design, scene=Scene.EMPTY))
    return render_card(Card.parse(code), design)


def lying(code: str | None, frames: int = 4) -> list[Image]:
    return [in_box(code)] * frames


def watching(
    tmp_path: Path, rules: str = "classic"
) -> tuple[TableService, CameraReader, FedCamera]:
    config = Config(
        table=TableConfig(id="t", rules=rules, journal=str(tmp_path / "j.sqlite")),
        reader=ReaderConfig(kind="camera"),
    )
    service = TableService(config, Journal(config.table.journal, "t"))
    fed = FedCamera()
    return service, CameraReader(fed, Recognizer(taught_profile()), service), fed


def dealt(service: TableService) -> list[str]:
    return [str(card) for card in service.faro.casekeep.dealt_cards()]


def test_a_card_the_dealer_corrected_is_dealt_as_corrected_and_its_twin_later_too(
    tmp_path: Path,
) -> None:
    service, camera, fed = watching(tmp_path)
    service.execute_line("shuffle")
    fed.show(*lying("5S"), *lying(None), *lying("9H"), *lying(None))
    assert settle(camera, fed) == []
    assert dealt(service) == ["5S", "9H"]
    service.execute_line("correct 9D")  # the camera misread the 9D as the 9H
    assert camera.filter.dealt == [Card.parse("5S"), Card.parse("9D")]
    fed.show(*lying("KC"), *lying(None), *lying("9H"), *lying(None))  # the real 9H, later on
    assert settle(camera, fed) == []
    assert dealt(service) == ["5S", "9D", "KC", "9H"]
    assert [str(card) for card in camera.filter.dealt] == dealt(service)
    fed.end()
    camera.close()


def test_a_card_read_while_an_alarm_waits_is_dealt_once_the_dealer_resolves_it(
    tmp_path: Path,
) -> None:
    """The engine takes no card while an alarm waits: a card read meanwhile is held, not
    refused and lost, and goes in once the dealer has set the table right."""
    service, camera, fed = watching(tmp_path, rules="monte-bank")  # 40 cards: no 8, 9 or 10
    service.execute_line("shuffle")
    fed.show(*lying("5S"), *lying(None), *lying("9H"))  # a stray card from another deck
    assert settle(camera, fed) == []
    assert service.state.alarm is not None and "9H" in service.state.alarm.message
    fed.show(*lying("KC"))
    assert settle(camera, fed) == []  # held, not refused
    assert dealt(service) == ["5S"]
    service.execute_line("void")  # the stray 9H
    fed.show(*lying("KC"))
    assert settle(camera, fed) == []
    assert dealt(service) == ["5S", "KC"]
    fed.show(*lying("KC"), *lying(None), *lying("KC"))  # still lying in the box: not new
    assert settle(camera, fed) == []
    assert dealt(service) == ["5S", "KC"]
    fed.end()
    camera.close()


def stickered(code: str, frames: int = 4) -> list[Image]:
    """A barcode camera's view of ``code``'s sticker lying in the box."""
    return [sticker(CardCode(Card.parse(code), 1))] * frames


def foreign_label(text: str) -> Image:
    """A barcode camera's view of a code that is none of our stickers (a parcel's label)."""
    bars = np.asarray(zxingcpp.create_barcode(text, zxingcpp.BarcodeFormat.Code128).to_image())
    label = np.full((150, 60 + bars.shape[1] * 2), 255, np.uint8)
    label[8:108, 30 : 30 + bars.shape[1] * 2] = np.repeat(bars[:1], 2, axis=1)
    return cv2.cvtColor(label, cv2.COLOR_GRAY2BGR)  # type: ignore[return-value]


def test_a_code_a_barcode_camera_asked_about_is_asked_about_once_over_a_restart(
    tmp_path: Path,
) -> None:
    """A parcel's label under the barcode camera is asked about, and the service restarts
    with it still in view: the question taken up is the only one, and once the dealer voids
    it nothing more is asked."""
    service, _, clock = dealing(tmp_path)
    fed = FedCamera()
    camera = CameraReader(fed, None, service)
    parcel = foreign_label("SHIP-12345")
    fed.show(*stickered("5S"), *[parcel] * 6)
    settle(camera, fed)
    assert camera.filter.question is not None
    fed.end()
    camera.close()
    service.journal.close()
    again = TableService(service.config, Journal(service.config.table.journal, "t"), clock)
    fed = FedCamera()
    camera = CameraReader(fed, None, again)
    fed.show(*[parcel] * 10)
    assert settle(camera, fed) == []
    assert camera.filter.held_record()["held"] == []
    told = answer_from_console(camera, "void", clock.now)
    assert told is not None and told[0].startswith("void: the reader's question")
    assert camera.filter.question is None and again.state.alarm is None
    assert dealt(again) == ["5S"]
    fed.end()
    camera.close()
    again.journal.close()


def test_a_barcode_camera_does_not_deal_again_the_card_the_dealer_voided(
    tmp_path: Path,
) -> None:
    """KD came out too soon, and a stray 9H from another deck: the dealer voids each while
    its sticker is still in view. Neither is dealt again until it has left the box."""
    service, _, _ = dealing(tmp_path, table=monte_bank(tmp_path))
    fed = FedCamera()
    camera = CameraReader(fed, None, service)
    fed.show(*stickered("5S"), *stickered("KD"))
    settle(camera, fed)
    service.execute_line("void")
    fed.show(*stickered("KD"))
    assert settle(camera, fed) == []
    assert dealt(service) == ["5S"] and service.state.alarm is None
    fed.show(*stickered("9H"))
    settle(camera, fed)
    alarm = service.state.alarm
    assert alarm is not None and alarm.kind is EngineAlarmKind.UNKNOWN_CARD
    service.execute_line("void")
    fed.show(*stickered("9H"))
    assert settle(camera, fed) == []
    assert dealt(service) == ["5S"] and service.state.alarm is None
    fed.show(*[in_box(None)] * camera.filter.empty_frames, *stickered("KD"))
    settle(camera, fed)
    assert dealt(service) == ["5S", "KD"]  # dealt again, once it had left the box
    fed.end()
    camera.close()


def test_cards_held_while_an_alarm_waits_are_dropped_with_a_voided_deal(tmp_path: Path) -> None:
    service, camera, fed = watching(tmp_path, rules="monte-bank")
    service.execute_line("shuffle")
    fed.show(*lying("5S"), *lying(None), *lying("9H"), *lying(None), *lying("KC"))
    assert settle(camera, fed) == []
    assert dealt(service) == ["5S"]
    service.execute_line("void deal")
    service.execute_line("shuffle")
    fed.show(*lying(None), *lying("2D"))
    assert settle(camera, fed) == []
    assert dealt(service) == ["2D"]  # the voided deal's KC never comes in
    fed.end()
    camera.close()


def test_after_a_restart_the_card_lying_in_the_box_is_known_as_dealt(tmp_path: Path) -> None:
    service, camera, fed = watching(tmp_path)
    for line in ("shuffle", "card 5S", "card KD", "card 9C"):
        service.execute_line(line)
    fed.end()
    camera.close()
    service.journal.close()

    service, camera, fed = watching(tmp_path)  # the same journal: it resumes mid-deal
    assert service.resumed
    fed.show(*lying("9C"), *lying(None), *lying("9C"))
    assert settle(camera, fed) == []
    assert service.state.alarm is None
    assert dealt(service) == ["5S", "KD", "9C"]
    fed.show(*lying("KD", 4))  # taken before the restart: a second sighting
    assert [message.split(":")[0] for message in settle(camera, fed)] == [
        "KD was already dealt as card 2 of this deal"
    ]
    fed.end()
    camera.close()


def test_the_last_decks_card_in_the_box_is_not_the_new_decks_until_the_box_is_emptied(
    tmp_path: Path,
) -> None:
    service, camera, fed = watching(tmp_path)
    order = [*STANDARD_52]
    random.Random(3).shuffle(order)
    hoc = order[-1].code
    service.execute_line("shuffle")
    for card in order:  # dealt by hand; the hoc stays lying in the box
        service.execute_line(f"card {card.code}")
    fed.show(*lying(hoc))
    assert settle(camera, fed) == []
    service.execute_line("shuffle")  # before the old deck is out of the box
    fed.show(*lying(hoc, 10), *lying(None, 2), *lying(hoc, 10))  # a hand passes over it
    assert settle(camera, fed) == []
    assert dealt(service) == []
    fed.show(*lying(None, 20), *lying(hoc))  # the new deck's soda is the old hoc's twin
    assert settle(camera, fed) == []
    assert dealt(service) == [hoc]

    for card in order:
        if card.code != hoc:
            service.execute_line(f"card {card.code}")
    fed.show(*lying(None, 20), *lying("5S"))  # the next deck goes in before the dealer says so
    said = settle(camera, fed)
    assert len(said) == 1 and said[0].startswith("5S was already dealt as card")
    service.execute_line("shuffle")
    fed.show(*lying("5S"))
    assert settle(camera, fed) == []
    assert dealt(service) == ["5S"]
    fed.end()
    camera.close()


def scripted_camera(
    service: TableService, readings: list[CardReading]
) -> tuple[CameraReader, list[Any]]:
    """A camera whose recognizer answers ``readings``, read to their end: the reader and the
    questions it put."""
    camera = CameraReader(
        BlankFrames(len(readings)),
        ScriptedRecognizer(readings),
        service,  # type: ignore[arg-type]
    )
    questions: list[Any] = []
    assert wait_until(lambda: camera.ended, step=lambda: questions.extend(camera.poll().questions))
    return camera, questions


def sure(code: str) -> CardReading:
    card = Card.parse(code)
    return CardReading(ReadingStatus.CARD, card, 0.99, guess=card)


def unsure(guess: str, runner_up: str) -> CardReading:
    """A frame the camera takes for ``guess``, not sure it is not ``runner_up``."""
    return CardReading(
        ReadingStatus.UNCERTAIN, None, 0.5, runner_up=Card.parse(runner_up), guess=Card.parse(guess)
    )


UNSURE_QH = unsure("QH", "QS")
UNSURE_7D = unsure("7D", "7H")
EMPTY = CardReading(ReadingStatus.NO_CARD)


def test_a_card_read_while_the_dealer_is_asked_goes_to_the_engine_after_the_answer(
    tmp_path: Path,
) -> None:
    service, _, _ = make(tmp_path)
    service.execute_line("shuffle")
    readings = [*[sure("5S")] * 3, EMPTY, *[UNSURE_QH] * 8, EMPTY, *[sure("KD")] * 3, EMPTY]
    camera, questions = scripted_camera(service, readings)
    assert len(questions) == 1
    assert dealt(service) == ["5S"]  # KD waits: the card asked about came out before it
    assert answer_from_console(camera, "card QH", 10.0) == []
    assert dealt(service) == ["5S", "QH", "KD"]
    assert service.faro.last_turn == (Card.parse("QH"), Card.parse("KD"))
    camera.close()


def test_void_while_the_dealer_is_asked_dismisses_the_question_not_the_card_before(
    tmp_path: Path,
) -> None:
    service, _, _ = make(tmp_path)
    service.execute_line("shuffle")
    readings = [*[sure("5S")] * 3, EMPTY, *[sure("KD")] * 3, EMPTY, *[UNSURE_QH] * 8]
    camera, _ = scripted_camera(service, readings)
    said = answer_from_console(camera, "void", 10.0)
    assert said is not None and said[0].startswith("void: the reader's question (QH or QS?)")
    assert camera.filter.question is None
    assert dealt(service) == ["5S", "KD"]
    assert answer_from_console(camera, "void", 11.0) is None  # no question: the engine's void
    camera.close()


def test_the_confirm_button_takes_the_readers_guess(tmp_path: Path) -> None:
    service, _, _ = make(tmp_path)
    service.execute_line("shuffle")
    readings = [*[sure("5S")] * 3, EMPTY, *[UNSURE_QH] * 8, EMPTY, *[sure("KD")] * 3]
    camera, questions = scripted_camera(service, readings)
    assert [question.guess for question in questions] == [Card.parse("QH")]
    assert camera.confirm_guess(10.0).refused == []
    assert dealt(service) == ["5S", "QH", "KD"]
    assert camera.confirm_guess(11.0).refused == []  # nothing asked: nothing happens
    assert dealt(service) == ["5S", "QH", "KD"]
    camera.close()


@pytest.mark.parametrize("answer", ["card QH", "confirm button"])
def test_the_card_the_camera_asked_about_is_dealt_at_the_time_it_asked_not_the_answers(
    tmp_path: Path, answer: str
) -> None:
    """The camera is not sure of the card in the box and asks; KD comes out after it and
    waits. Named at the console or confirmed with the button a minute later, the card asked
    about carries the time the camera asked, before KD's."""
    service, _, clock = make(tmp_path)
    service.execute_line("shuffle")
    camera, read_at = camera_unsure_of_qh_before_kd(service, clock)
    assert camera.filter.question is not None and dealt(service) == ["5S"]
    clock.now += 60
    if answer == "confirm button":
        assert camera.confirm_guess(clock.now).refused == []
    else:
        assert answer_from_console(camera, answer, clock.now) == []
    assert dealt(service) == ["5S", "QH", "KD"]
    assert card_times(service) == dict(zip(["5S", "QH", "KD"], read_at, strict=True))
    camera.close()


class WatchedVideo(VideoCaptureSource):
    """A video file that notes whether it was closed while a thread was reading it, and then
    leaves it open: releasing it under the reading thread crashes or hangs OpenCV."""

    reader: threading.Thread | None = None
    closed_while_read = False

    def __iter__(self) -> Iterator[Frame]:
        self.reader = threading.current_thread()
        return super().__iter__()

    def close(self) -> None:
        reading = self.reader is not None and self.reader.is_alive()
        self.closed_while_read = reading and self.reader is not threading.current_thread()
        if not self.closed_while_read:
            super().close()


def test_closing_a_camera_stops_its_capture_thread_before_the_camera_is_released(
    tmp_path: Path,
) -> None:
    path = tmp_path / "deal.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*"MJPG"), 30.0, (640, 480))
    for _ in range(300):  # a tenth of a second of reading: long enough to close mid-video
        writer.write(in_box("QH"))
    writer.release()
    service, _, _ = make(tmp_path)
    listeners = len(service.listeners)
    video = WatchedVideo(path)
    camera = CameraReader(video, None, service, backlog=5)
    assert wait_until(lambda: not camera.frames.empty())
    camera.close()
    assert not video.closed_while_read
    assert video.reader is not None and not video.reader.is_alive()
    assert len(service.listeners) == listeners  # the camera no longer hears the table


class StallingCamera:
    """A Pi camera whose driver fails twice while dealing, with the plain RuntimeError
    libcamera raises, before it deals on once reopened."""

    def __init__(self) -> None:
        self.shows = [lying("5S"), [], [*lying(None), *lying("KD")]]
        self.opened = 1

    def __iter__(self) -> Iterator[Frame]:
        for index, image in enumerate(self.shows.pop(0)):
            yield Frame(image, index / 30, index)
        if self.shows:
            raise RuntimeError("Camera frontend has timed out!")

    def reopen(self) -> None:
        self.opened += 1

    def close(self) -> None:
        pass


def test_a_failing_camera_is_an_alarm_with_its_reason_and_is_reopened_after_a_growing_pause(
    tmp_path: Path,
) -> None:
    service, _, clock = make(tmp_path)
    service.execute_line("shuffle")
    source = StallingCamera()
    camera = CameraReader(source, Recognizer(taught_profile()), service, clock=clock)
    said: list[str] = []

    def poll() -> None:
        said.extend(alarm.message for alarm in camera.poll().alarms)

    assert wait_until(lambda: bool(said), step=poll)
    assert said == [
        "the camera reader is lost: RuntimeError: Camera frontend has timed out!; it is "
        "reopened in 0.5 s; deal from the console"
    ]
    assert dealt(service) == ["5S"]
    clock.now += 0.4
    poll()
    assert source.opened == 1  # not before the pause is over
    clock.now += 0.1
    assert wait_until(lambda: len(said) == 2, step=poll)
    assert source.opened == 2
    assert said[1].endswith("it is reopened in 1 s; deal from the console")  # failed again
    clock.now += 1.0
    assert wait_until(lambda: camera.ended, step=poll)
    assert source.opened == 3
    assert dealt(service) == ["5S", "KD"]
    assert said[2:] == [
        "the camera reader is lost: no more frames from the camera; deal from the console"
    ]
    camera.close()


class HangingCamera:
    """A Pi camera whose driver stops giving frames after a few (a loose ribbon cable): the
    capture never returns until the test ends."""

    live = True

    def __init__(self) -> None:
        self.released = threading.Event()
        self.opened = 0

    def __iter__(self) -> Iterator[Frame]:
        self.opened += 1
        for index, image in enumerate(lying("5S")):
            yield Frame(image, index / 30, index)
        self.released.wait()

    def close(self) -> None:
        pass


def test_a_live_camera_that_stops_giving_frames_is_lost_and_reopened(tmp_path: Path) -> None:
    service, _, clock = make(tmp_path)
    service.execute_line("shuffle")
    source = HangingCamera()
    camera = CameraReader(source, Recognizer(taught_profile()), service, clock=clock)
    assert wait_until(lambda: camera.frames.qsize() == 4)
    said = [alarm.message for alarm in camera.poll().alarms]  # the last frame it gave
    clock.now += 4.9
    said += [alarm.message for alarm in camera.poll().alarms]
    assert dealt(service) == ["5S"] and said == []
    clock.now += 0.1
    said += [alarm.message for alarm in camera.poll().alarms]
    assert said == [
        "the camera reader is lost: no frame from the camera for 5 s (its driver gives none); "
        "it is reopened in 0.5 s; deal from the console"
    ]
    assert notices(service) == [("camera", "reader_lost")]
    clock.now += 0.5
    camera.poll()
    assert wait_until(lambda: source.opened == 2)
    source.released.set()
    camera.close()


class StuckDriverCapture:
    """A USB camera's ``cv2.VideoCapture`` whose driver has stopped giving frames: a read
    stays inside it until ``comes_back`` is set. Releasing a capture while a read is inside
    it frees what that read still uses: OpenCV's captures are not to be shared by threads."""

    def __init__(self) -> None:
        self.comes_back = threading.Event()
        self.reads_inside = 0
        self.released = False
        self.released_under_a_read = False

    def isOpened(self) -> bool:  # noqa: N802 - OpenCV's name
        return True

    def set(self, prop: int, value: float) -> bool:
        return True

    def read(self) -> tuple[bool, None]:
        self.reads_inside += 1
        self.comes_back.wait()
        self.reads_inside -= 1
        return False, None

    def release(self) -> None:
        self.released_under_a_read = self.released_under_a_read or self.reads_inside > 0
        self.released = True


class StuckUsbCamera(VideoCaptureSource):
    """USB camera 0, each capture of it stuck in its driver."""

    def __init__(self) -> None:
        self.captures: list[StuckDriverCapture] = []
        super().__init__(0)

    def _open(self) -> Any:
        self.captures.append(StuckDriverCapture())
        return self.captures[-1]


def test_a_usb_camera_stuck_in_its_driver_is_reopened_without_pulling_the_capture_from_under_it(
    tmp_path: Path,
) -> None:
    """Given up on after five seconds with no frame, the stuck capture is left to its driver,
    and released once its read comes back out: released meanwhile, under the read still
    inside it, the driver crashes the service or hangs it."""
    service, _, clock = make(tmp_path)
    source = StuckUsbCamera()
    camera = CameraReader(source, Recognizer(taught_profile()), service, clock=clock)
    stuck = source.captures[0]
    try:
        assert wait_until(lambda: stuck.reads_inside == 1)
        clock.now += 5.0
        assert "no frame from the camera for 5 s" in camera.poll().alarms[0].message
        clock.now += 0.5
        camera.poll()  # reopened
        assert len(source.captures) == 2
        assert not stuck.released_under_a_read
    finally:
        for capture in source.captures:
            capture.comes_back.set()
    assert wait_until(lambda: stuck.released)  # by its own thread, once out of the driver
    assert not stuck.released_under_a_read
    camera.close()


class FrozenCamera(FedCamera):
    """A live camera whose driver hands out one picture over and over, bit for bit."""

    live = True

    def reopen(self) -> None:
        pass


def test_a_live_camera_that_gives_the_same_picture_over_and_over_is_lost_and_reopened(
    tmp_path: Path,
) -> None:
    """A sensor's noise makes no two pictures of a live camera alike: the very same one for
    as long as a stall is its driver stuck on one frame, while the cards dealt meanwhile go
    unseen."""
    service, _, clock = make(tmp_path)
    service.execute_line("shuffle")
    fed = FrozenCamera()
    camera = CameraReader(fed, Recognizer(taught_profile()), service, clock=clock)
    noise = np.random.default_rng(5)
    picture = in_box("5S")
    said: list[str] = []
    for _ in range(12):  # a camera that works: its pictures differ, if only by noise
        noisy = np.clip(picture + noise.integers(0, 3, picture.shape), 0, 255).astype(np.uint8)
        fed.show(noisy, noisy.copy() if _ % 2 else noisy + 1)
        fed.shown.join()
        said += [alarm.message for alarm in camera.poll().alarms]
        clock.now += 1.0
    assert dealt(service) == ["5S"] and said == []
    for step in (0.0, 4.9):
        clock.now += step
        fed.show(picture)
        fed.shown.join()
        said += [alarm.message for alarm in camera.poll().alarms]
    assert said == []
    clock.now += 0.1
    fed.show(picture)
    fed.shown.join()
    said += [alarm.message for alarm in camera.poll().alarms]
    assert said == [
        "the camera reader is lost: the camera gave the very same picture for 5 s (its driver "
        "hands out one frame over and over); it is reopened in 0.5 s; deal from the console"
    ]
    assert notices(service) == [("camera", "reader_lost")]
    fed.end()
    camera.close()


class StuckCamera:
    """A live camera whose driver never gives a frame and keeps every capture (a loose ribbon
    cable); reopening it goes through, and the next capture hangs again."""

    live = True

    def __init__(self) -> None:
        self.released = threading.Event()
        self.inside = 0  # captures inside the driver now
        self.reopened = 0

    def reopen(self) -> None:
        self.reopened += 1

    def __iter__(self) -> Iterator[Frame]:
        self.inside += 1
        self.released.wait()
        self.inside -= 1
        return
        yield

    def close(self) -> None:
        pass


def test_a_camera_stuck_for_good_leaves_two_captures_in_its_driver_at_most(
    tmp_path: Path,
) -> None:
    """Reopened at each stall, a driver that keeps every capture would gather one stuck
    thread more each time, without end: after two the camera waits, still lost, for one
    to come back, and is reopened once one does."""
    service, _, clock = make(tmp_path)
    source = StuckCamera()
    camera = CameraReader(source, Recognizer(taught_profile()), service, clock=clock)
    try:
        said: list[str] = []
        for _ in range(20):  # five minutes of a camera that stays stuck
            clock.now += 5.0
            said += [alarm.message for alarm in camera.poll().alarms]
            clock.now += 10.0
            said += [alarm.message for alarm in camera.poll().alarms]
        assert wait_until(lambda: source.inside == 2)
        assert source.reopened == 1
        assert "its driver still holds 2 captures given up on" in said[-1]
        assert notices(service) == [("camera", "reader_lost")]
    finally:
        source.released.set()
    assert wait_until(lambda: source.inside == 0)
    clock.now += 10.0
    camera.poll()
    assert source.reopened == 2
    camera.close()


def test_a_camera_blind_a_while_is_lost_until_it_sees_the_box_again(tmp_path: Path) -> None:
    """A lamp gone out or a cloth over the lens: the camera is lost, on the table's screens
    and MQTT, until it shows the box again for a second; blind once more is news again."""
    service, _, _ = make(tmp_path)
    service.execute_line("shuffle")
    dark = CardReading(ReadingStatus.BAD_FRAME)
    # Fewer frames than the camera's backlog holds, so that none is dropped: blind after
    # 10 black frames here, seeing again after 5 that show the box.
    readings = [*[dark] * 12, *[EMPTY] * 4, EMPTY, *[dark] * 12, *[sure("5S")] * 5, EMPTY]
    camera = CameraReader(BlankFrames(len(readings)), ScriptedRecognizer(readings), service)  # type: ignore[arg-type]
    camera.filter.blind_frames = 10
    camera.working_frames = 5
    assert wait_until(lambda: camera.ended, step=camera.poll)
    assert dealt(service) == ["5S"]
    assert notices(service) == [
        ("camera", "reader_lost"),
        ("camera", "reader_back"),
        ("camera", "reader_lost"),
        ("camera", "reader_back"),
        ("camera", "reader_lost"),  # the frames ran out
    ]
    camera.close()


def test_a_blind_barcode_camera_is_lost_until_it_sees_again(tmp_path: Path) -> None:
    """A barcode camera whose lamp went out sees black frames: like the card camera, it tells
    the table it is blind, and that it sees again once it does."""
    service, _, _ = dealing(tmp_path)
    fed = FedCamera()
    camera = CameraReader(fed, None, service)
    camera.filter.blind_frames = 10
    camera.working_frames = 5
    fed.show(*[np.zeros((480, 640, 3), np.uint8)] * 12)
    said = settle(camera, fed)
    assert len(said) == 1 and said[0].startswith("the camera has seen nothing usable")
    assert notices(service) == [("barcode", "reader_lost")]
    fed.show(*stickered("5S", 6))
    settle(camera, fed)
    assert notices(service)[1:] == [("barcode", "reader_back")]
    assert dealt(service) == ["5S"]
    fed.end()
    camera.close()


def test_a_hand_resting_over_the_box_is_no_camera_lost(tmp_path: Path) -> None:
    """The dealer's hand over the box while bets go down: the camera works, and says so by
    telling nothing, however long the hand rests and however often."""
    service, _, _ = make(tmp_path)
    service.execute_line("shuffle")
    hand = CardReading(ReadingStatus.OBSTRUCTED)
    readings = ([hand] * 100 + [EMPTY] * 40) * 5
    camera = CameraReader(
        BlankFrames(len(readings)),
        ScriptedRecognizer(readings),  # type: ignore[arg-type]
        service,
        backlog=len(readings) + 1,
    )
    assert wait_until(lambda: camera.ended, step=camera.poll, timeout=30)
    assert notices(service) == [("camera", "reader_lost")]  # only the frames running out
    camera.close()


def test_the_camera_reads_with_a_deck_given_by_name_or_by_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    decks = tmp_path / "decks"
    taught = taught_profile()
    taught.save(decks)
    monkeypatch.setenv("DEALTABLE_DECKS", str(decks))  # where `dealtable teach` saved it
    frames = tmp_path / "frames"
    frames.mkdir()
    cv2.imwrite(str(frames / "0.png"), np.zeros((48, 64, 3), np.uint8))
    for deck in (taught.name, str(decks / taught.name), str(decks / f"{taught.name}.npz")):
        source, recognizer = open_camera(
            ReaderConfig(kind="camera", camera=f"folder:{frames}", deck=deck)
        )
        assert recognizer is not None and recognizer.profile.name == taught.name
        source.close()


def test_a_usb_camera_is_asked_for_the_frames_the_pi_camera_gives(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A USB camera left at its own size may give 1920 × 1080: five times the pixels to read
    a card that 640 × 480 shows well, and a finger smaller against the frame than the
    recognizer cuts off a card's outline. It is asked for 640 × 480, as the Pi camera is."""
    asked: dict[int, float] = {}

    class Capture:
        def __init__(self, device: object) -> None:
            self.device = device

        def isOpened(self) -> bool:  # noqa: N802 (OpenCV's name)
            return True

        def set(self, prop: int, value: float) -> bool:
            asked[prop] = value
            return True

        def release(self) -> None:
            pass

    monkeypatch.setattr(cv2, "VideoCapture", Capture)
    source, _ = open_camera(ReaderConfig(kind="barcode-camera", camera="usb:0"))
    assert asked == {cv2.CAP_PROP_FRAME_WIDTH: 640, cv2.CAP_PROP_FRAME_HEIGHT: 480}
    source.close()


def test_a_usb_camera_unplugged_when_the_table_starts_is_lost_until_it_is_plugged_in(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A camera not there at the start (its cable loose, the Pi booted before it was
    found) is a camera lost, as one unplugged a moment later is: the dealer deals from the
    console, and it is opened once plugged in. Before, the table refused to start, as for a
    config in error, and systemd left it stopped."""
    plugged = threading.Event()
    over = threading.Event()
    frames = [sticker(CardCode(Card.parse("5S"), 1))] * 4

    class Capture:
        def __init__(self, device: object) -> None:
            self.opened = plugged.is_set()

        def isOpened(self) -> bool:  # noqa: N802 (OpenCV's name)
            return self.opened

        def set(self, prop: int, value: float) -> bool:
            return True

        def read(self) -> tuple[bool, Image | None]:
            if frames:
                return True, frames.pop()
            over.wait()  # the frames the test shows, then none until it is over
            return False, None

        def release(self) -> None:
            pass

    monkeypatch.setattr(cv2, "VideoCapture", Capture)
    service, _, clock = make(tmp_path)
    service.execute_line("shuffle")
    source, _ = open_camera(ReaderConfig(kind="barcode-camera", camera="usb:0"))
    camera = CameraReader(source, None, service, clock=clock)
    said: list[str] = []
    assert wait_until(
        lambda: bool(said),
        step=lambda: said.extend(alarm.message for alarm in camera.poll().alarms),
    )
    assert said == [
        "the barcode reader is lost: cannot open USB camera 0: unplugged, or taken by another "
        "program?; it is reopened in 0.5 s; deal from the console"
    ]
    assert notices(service) == [("barcode", "reader_lost")]
    service.execute_line("card KD")  # dealt from the console meanwhile
    plugged.set()
    clock.now += 0.5
    assert wait_until(lambda: dealt(service) == ["KD", "5S"], step=camera.poll)
    over.set()
    camera.close()


def test_voiding_the_deal_drops_the_readers_question_and_the_cards_held_with_it(
    tmp_path: Path,
) -> None:
    """The dealer voids the deal while the camera asks which card lies in the box: nothing is
    asked any more, and the card read meanwhile, of the voided deal, is not dealt later."""
    service, _, _ = make(tmp_path)
    service.execute_line("shuffle")
    readings = [*[sure("5S")] * 3, EMPTY, *[UNSURE_QH] * 8, EMPTY, *[sure("KD")] * 3]
    camera, questions = scripted_camera(service, readings)
    assert len(questions) == 1 and dealt(service) == ["5S"]
    service.execute_line("void deal")
    assert camera.filter.question is None
    assert answer_from_console(camera, "card QH", 10.0) is None  # no question left to answer
    service.execute_line("shuffle")
    assert dealt(service) == []
    camera.close()


def sticker_of(code: str, deck: int = 1) -> str:
    return encode_payload(Card.parse(code), deck)


def scan_all(reader: BarcodeShoeReader, clock: Clock, *codes: str) -> None:
    for code in codes:
        scan(reader, code)
        clock.now += 0.5
        reader.poll()


def test_a_second_unread_card_while_a_question_waits_is_asked_about_in_its_turn(
    tmp_path: Path,
) -> None:
    service, reader, clock = dealing(tmp_path)
    scan_all(reader, clock, sticker_of("5S"), "TORN-1", sticker_of("KD"), "TORN-2")
    scan_all(reader, clock, sticker_of("9C"))
    clock.now += 60
    assert answer_from_console(reader, "card 2H", clock.now) == []
    assert dealt(service) == ["5S", "2H", "KD"]  # 9C waits behind the second torn card
    alarm = service.state.alarm
    assert alarm is not None and "TORN-2" in alarm.message
    assert asked_at(service) == 1002.0  # raised now, for a card that came out then
    clock.now += 60
    assert answer_from_console(reader, "card 3D", clock.now) == []
    assert dealt(service) == ["5S", "2H", "KD", "3D", "9C"]
    # Each card as it came out, the two named at their questions' times, half a second apart.
    assert times_in_seq(service) == [1000.5, 1001.0, 1001.5, 1002.0, 1002.5]


def test_naming_a_card_read_after_the_one_asked_about_is_refused(tmp_path: Path) -> None:
    service, reader, clock = a_foreign_code_after_the_soda(tmp_path)  # KD waits behind it
    said = answer_from_console(reader, "card KD", clock.now)
    assert said is not None and said[0].startswith(
        "refused: card KD: that card came out after the one asked about and waits behind it"
    )
    assert dealt(service) == ["5S"] and service.state.alarm is not None
    assert answer_from_console(reader, "card 9C", clock.now) == []
    assert dealt(service) == ["5S", "9C", "KD"]


def test_while_another_alarm_waits_void_is_the_engines_and_the_read_cards_keep_waiting(
    tmp_path: Path,
) -> None:
    """A stray card's alarm waits when a sticker reads torn: the dealer's void is for the
    stray card; the torn card is asked about next, and the card after it waits behind it."""
    service, reader, clock = dealing(tmp_path, table=monte_bank(tmp_path))
    scan_all(reader, clock, sticker_of("5S"), sticker_of("9H"), "TORN", sticker_of("KD"))
    alarm = service.state.alarm
    assert alarm is not None and alarm.kind is EngineAlarmKind.UNKNOWN_CARD
    assert answer_from_console(reader, "void", clock.now) is None  # not the reader's: the engine's
    service.execute_line("void")
    clock.now += 0.5
    reader.poll()
    alarm = service.state.alarm
    assert alarm is not None and alarm.kind is EngineAlarmKind.UNREAD_CARD
    assert asked_at(service) == 1001.5  # when the torn card came out, behind the stray 9H
    clock.now += 60
    assert answer_from_console(reader, "card 2C", clock.now) == []
    assert dealt(service) == ["5S", "2C", "KD"]
    assert card_times(service) == {"5S": 1000.5, "2C": 1001.5, "KD": 1002.0}  # 9H never dealt


def test_an_answer_that_raises_an_alarm_of_its_own_keeps_the_cards_behind_it(
    tmp_path: Path,
) -> None:
    service, reader, clock = dealing(tmp_path, table=monte_bank(tmp_path))
    scan_all(reader, clock, sticker_of("5S"), "TORN", sticker_of("KD"))
    assert answer_from_console(reader, "card 9H", clock.now) == []  # no 9 in this deck
    alarm = service.state.alarm
    assert alarm is not None and alarm.kind is EngineAlarmKind.UNKNOWN_CARD
    service.execute_line("correct 7H")  # what the torn card really was
    clock.now += 0.5
    reader.poll()
    assert dealt(service) == ["5S", "7H", "KD"]


def board_shoe(tmp_path: Path) -> tuple[TableService, BarcodeShoeReader, Clock, Any]:
    """A barcode shoe whose codes come as from the layout board, with its light barrier."""
    from table.service.hardware import BoardScanner

    scanner = BoardScanner()
    service, reader, clock = dealing(tmp_path, opener=lambda _: scanner)
    return service, reader, clock, scanner


def test_a_torn_cards_slide_never_takes_the_next_cards_code(tmp_path: Path) -> None:
    service, reader, clock, scanner = board_shoe(tmp_path)

    def card_out(code: str | None, codes: int = 1) -> None:
        reader.card_slid()
        for _ in range(codes if code else 0):
            scanner.forwarded(sticker_of(code or ""))  # a sticker read twice in one slide
        reader.poll()
        clock.now += 0.4

    card_out("5S", codes=2)
    card_out(None)  # the sticker torn off
    card_out("KD")
    for _ in range(4):
        clock.now += 0.4
        reader.poll()
    assert dealt(service) == ["5S"]
    alarm = service.state.alarm
    assert alarm is not None and alarm.message.startswith("the shoe read no sticker")
    assert answer_from_console(reader, "card 9C", clock.now) == []
    assert dealt(service) == ["5S", "9C", "KD"]
    assert service.faro.last_turn == (Card.parse("9C"), Card.parse("KD"))


def test_cards_given_at_the_console_while_the_scanner_is_gone_are_no_unread_cards(
    tmp_path: Path,
) -> None:
    from table.service.hardware import BoardScanner

    scanner = BoardScanner()
    plugged = [False]

    def opener(url: str) -> BoardScanner:
        if not plugged[0]:
            raise ScannerError("cannot open barcode scanner: no such device")
        return scanner

    service, reader, clock = dealing(tmp_path, opener=opener)
    for card in ("5S", "KD", "9C"):  # each slides past the beam, given at the console
        reader.card_slid()
        service.execute_line(f"card {card}")
        clock.now += 0.3
        reader.poll()
    plugged[0] = True
    clock.now += 1.0
    assert reader.poll().questions == [] and service.state.alarm is None
    reader.card_slid()  # the scanner back, and a card given at the console all the same
    service.execute_line("card 3D")
    clock.now += 1.0
    assert reader.poll().alarms == []
    assert service.state.alarm is None
    assert dealt(service) == ["5S", "KD", "9C", "3D"]


def test_a_card_the_camera_could_not_match_named_by_the_dealer_is_no_missed_card(
    tmp_path: Path,
) -> None:
    service, _, _ = make(tmp_path)
    service.execute_line("shuffle")
    joker = CardReading(ReadingStatus.UNREADABLE, detail="no rank matched")
    camera, questions = scripted_camera(service, [*[sure("5S")] * 3, EMPTY, *[joker] * 10])
    assert len(questions) == 1
    assert answer_from_console(camera, "card 7H", 10.0) == []  # no "missed card" alarm
    assert dealt(service) == ["5S", "7H"]
    cleared = service.journal.last_event_of("alarm_cleared")
    assert cleared is not None and cleared.resolution == "the card was 7H"  # type: ignore[attr-defined]
    camera.close()


def test_a_card_the_camera_could_not_match_is_asked_about_once_over_a_restart(
    tmp_path: Path,
) -> None:
    """The camera asks about a card it cannot match, and the service restarts: the card
    still lies in the box, and the question taken up is the only one. Answered, the table
    deals on with nothing more to ask."""
    service, _, clock = make(tmp_path)
    service.execute_line("shuffle")
    joker = CardReading(ReadingStatus.UNREADABLE, detail="no rank matched")
    camera, questions = scripted_camera(service, [*[sure("5S")] * 3, EMPTY, *[joker] * 10])
    assert len(questions) == 1
    camera.close()
    service.journal.close()
    config = service.config
    again = TableService(config, Journal(config.table.journal, "t"), clock)
    camera, questions = scripted_camera(again, [joker] * 30)  # still lying in the box
    assert questions == []
    assert camera.filter.question is not None and camera.filter.held_record()["held"] == []
    assert answer_from_console(camera, "card 7H", 10.0) == []
    assert dealt(again) == ["5S", "7H"]
    assert camera.filter.question is None and again.state.alarm is None
    camera.close()
    again.journal.close()


@pytest.mark.parametrize("answer", ["card 7H", "void"])
def test_a_card_the_camera_could_not_match_still_lying_after_the_answer_is_no_missed_card(
    tmp_path: Path, answer: str
) -> None:
    """The dealer has said what the card the camera could not match was (or that no card of
    the deal came out): it lies in the box a while yet, until the dealer slides it off for
    the next card. Those frames are of the card answered for, not of a card missed."""
    service, camera, fed = watching(tmp_path)
    service.execute_line("shuffle")
    joker = render_frame(FrameSpec(None, DESIGNS[TEST_DESIGN], joker=True))
    fed.show(*lying("5S"), *[joker] * 12)
    settle(camera, fed)
    assert camera.filter.question is not None
    answer_from_console(camera, answer, 10.0)
    fed.show(*[joker] * 20, *lying("KD"))  # still lying there as the dealer reaches for it
    assert settle(camera, fed) == []
    assert notices(service) == []
    assert dealt(service) == (["5S", "7H", "KD"] if answer == "card 7H" else ["5S", "KD"])
    fed.end()
    camera.close()


def test_a_second_card_the_camera_cannot_match_in_a_deal_is_asked_about_too(
    tmp_path: Path,
) -> None:
    """Two cards the camera cannot match in one deal (a smudged index, a stray card): each is
    a question, or the card after the second would take its place in the turn."""
    joker = CardReading(ReadingStatus.UNREADABLE, detail="no rank matched")
    first = [*[sure("5S")] * 3, EMPTY, *[joker] * 10]
    after = [*[sure("KD")] * 3, EMPTY, *[joker] * 12, EMPTY, *[sure("9C")] * 3, EMPTY]
    service, _, _ = make(tmp_path)
    service.execute_line("shuffle")
    camera = camera_read_in_steps(service, first + after)
    assert len(camera.poll(limit=len(first)).questions) == 1
    assert answer_from_console(camera, "card 7H", 10.0) == []
    assert len(camera.poll(limit=len(after)).questions) == 1
    assert dealt(service) == ["5S", "7H", "KD"]  # 9C waits behind the second question
    assert answer_from_console(camera, "card 2D", 11.0) == []
    assert dealt(service) == ["5S", "7H", "KD", "2D", "9C"]
    camera.close()


def test_a_code_that_comes_a_moment_after_its_slide_is_its_cards(tmp_path: Path) -> None:
    service, reader, clock, scanner = board_shoe(tmp_path)
    reader.card_slid()
    assert reader.poll().questions == []  # the loop polls before the scanner has read it
    clock.now += 0.1
    scanner.forwarded(sticker_of("5S"))
    reader.poll()
    assert dealt(service) == ["5S"] and service.state.alarm is None


def test_a_sticker_read_again_later_does_not_hide_a_torn_card_after_it(tmp_path: Path) -> None:
    service, reader, clock, scanner = board_shoe(tmp_path)
    reader.card_slid()
    scanner.forwarded(sticker_of("5S"))
    reader.poll()
    clock.now += 0.7
    scanner.forwarded(sticker_of("5S"))  # the scanner reads the soda's sticker again
    reader.poll()
    clock.now += 0.3
    reader.card_slid()  # a torn card
    for _ in range(5):
        clock.now += 0.2
        reader.poll()
    alarm = service.state.alarm
    assert alarm is not None and alarm.kind is EngineAlarmKind.UNREAD_CARD


def test_a_torn_sticker_read_twice_in_its_slide_is_one_question(tmp_path: Path) -> None:
    service, reader, clock, scanner = board_shoe(tmp_path)
    for codes in ([sticker_of("5S")], ["9781234567897"] * 2, [sticker_of("KD")]):
        reader.card_slid()
        for code in codes:
            scanner.forwarded(code)
        reader.poll()
        clock.now += 0.6
    reader.poll()
    assert answer_from_console(reader, "card 9C", clock.now) == []
    assert service.state.alarm is None
    assert dealt(service) == ["5S", "9C", "KD"]


def test_a_foreign_code_in_a_barcode_cameras_view_is_asked_about_once(tmp_path: Path) -> None:
    """3H, then a card carrying a Code 128 that is none of ours, in view for 20 frames, then
    8S: one card came out that the camera could not read."""
    foreign = np.asarray(
        zxingcpp.create_barcode("INV-000123", zxingcpp.BarcodeFormat.Code128).to_image(scale=2)
    )
    foreign = cv2.cvtColor(np.pad(foreign, 20, constant_values=255), cv2.COLOR_GRAY2BGR)
    service, _, _ = dealing(tmp_path)
    fed = FedCamera()
    camera = CameraReader(fed, None, service)
    fed.show(*stickered("3H"), *[foreign] * 20, *stickered("8S"))
    settle(camera, fed)
    assert answer_from_console(camera, "card 9C", 10.0) == []
    assert service.state.alarm is None
    assert dealt(service) == ["3H", "9C", "8S"]
    fed.end()
    camera.close()


def test_three_unread_cards_are_asked_about_each_in_its_turn(tmp_path: Path) -> None:
    service, reader, clock = dealing(tmp_path)
    codes = ["5S", "TORN-1", "KD", "TORN-2", "9C", "TORN-3", "3H"]
    scan_all(reader, clock, *(code if "TORN" in code else sticker_of(code) for code in codes))
    for named in ("2H", "4S", "6D"):
        alarm = service.state.alarm
        assert alarm is not None and alarm.kind is EngineAlarmKind.UNREAD_CARD, named
        assert answer_from_console(reader, f"card {named}", clock.now) == []
        clock.now += 0.5
        reader.poll()
    assert dealt(service) == ["5S", "2H", "KD", "4S", "9C", "6D", "3H"]
    assert service.state.alarm is None


def test_in_a_shoe_of_six_decks_the_unread_card_may_be_a_copy_of_one_dealt(
    tmp_path: Path,
) -> None:
    service, reader, clock = dealing(tmp_path, table=punto_banco(tmp_path))
    service.execute_line("lock")
    scan_all(reader, clock, sticker_of("KS"), sticker_of("2H"), "TORN", sticker_of("3C"))
    assert answer_from_console(reader, "card KS", clock.now) == []
    assert [[card.code for card in hand] for hand in service.state.hands] == [
        ["KS", "KS"],
        ["2H", "3C"],
    ]


def test_a_second_card_the_camera_is_unsure_of_is_asked_about_after_the_first(
    tmp_path: Path,
) -> None:
    service, _, _ = make(tmp_path)
    service.execute_line("shuffle")
    readings = [*[sure("5S")] * 3, EMPTY, *[UNSURE_QH] * 8, EMPTY, *[sure("KD")] * 3, EMPTY]
    readings += [*[UNSURE_7D] * 8, EMPTY, *[sure("2C")] * 3]
    camera, _ = scripted_camera(service, readings)
    assert answer_from_console(camera, "card QH", 10.0) == []
    assert dealt(service) == ["5S", "QH", "KD"]
    question = camera.filter.question
    assert question is not None and question.asked == "7D or 7H"
    assert answer_from_console(camera, "card 7D", 11.0) == []
    assert dealt(service) == ["5S", "QH", "KD", "7D", "2C"]
    camera.close()


def camera_unsure_of_qh_before_kd(
    service: TableService, clock: Clock
) -> tuple[CameraReader, list[float]]:
    """5S read, then a card the camera takes for QH but asks about, then KD, which waits
    behind the question: one every 2 s on ``clock``, whose times are returned."""
    steps = [[*[sure("5S")] * 3, EMPTY], [*[UNSURE_QH] * 8], [EMPTY, *[sure("KD")] * 3, EMPTY]]
    readings = [reading for step in steps for reading in step]
    camera = camera_read_in_steps(service, readings, clock)
    read_at = []
    for step in steps:
        clock.now += 2
        read_at.append(clock.now)
        camera.poll(limit=len(step))
    return camera, read_at


def camera_read_in_steps(
    service: TableService,
    readings: list[CardReading],
    clock: Callable[[], float] = time.monotonic,
) -> CameraReader:
    """A camera whose frames have all arrived, to be read a few at a time, keeping its pauses
    on ``clock``."""
    frames = BlankFrames(len(readings))
    camera = CameraReader(frames, ScriptedRecognizer(readings), service, clock=clock)  # type: ignore[arg-type]
    assert wait_until(lambda: camera.frames.qsize() == len(readings))
    return camera


@pytest.mark.parametrize("read_after", ["unsure", "sure"])
def test_the_card_the_dealer_named_is_not_taken_again_for_the_camera_misreading_it(
    tmp_path: Path, read_after: str
) -> None:
    """The camera took the card for QH (or QS?), the dealer said QS: lying in the box, it is
    still read as QH, and is neither asked about again nor dealt a second time."""
    service, _, _ = make(tmp_path)
    service.execute_line("shuffle")
    first = [*[sure("5S")] * 3, EMPTY, *[UNSURE_QH] * 8]
    after = [EMPTY] * 2 + ([*[UNSURE_QH] * 8] if read_after == "unsure" else [sure("QH")] * 3)
    camera = camera_read_in_steps(service, first + after)
    camera.poll(limit=len(first))
    assert answer_from_console(camera, "card QS", 10.0) == []
    camera.poll(limit=len(after))
    assert dealt(service) == ["5S", "QS"]
    assert service.state.alarm is None and camera.filter.question is None
    camera.close()


def test_a_flicker_while_the_camera_asks_about_a_card_asks_nothing_more(tmp_path: Path) -> None:
    """The camera asks "QH or QS?" about the card lying in the box; while the dealer looks,
    a hand passing reads as no card for a frame, and the card is read unsurely again."""
    service, _, _ = make(tmp_path)
    service.execute_line("shuffle")
    readings = [*[sure("5S")] * 3, EMPTY, *[UNSURE_QH] * 8, EMPTY, *[UNSURE_QH] * 8]
    camera = camera_read_in_steps(service, readings)
    assert len(camera.poll(limit=len(readings)).questions) == 1
    assert answer_from_console(camera, "card QH", 10.0) == []
    assert camera.filter.question is None and service.state.alarm is None
    assert dealt(service) == ["5S", "QH"]
    camera.close()


def test_the_card_that_ends_a_coup_is_not_taken_again_as_the_next_coups_first(
    tmp_path: Path,
) -> None:
    service, _, _ = make(tmp_path, table=punto_banco(tmp_path))
    service.execute_line("shuffle")
    service.execute_line("lock")
    coup = [frame for code in ("2C", "3D", "4H", "5S") for frame in [*[sure(code)] * 3, EMPTY]]
    after = [*[EMPTY] * 3, *[sure("5S")] * 3]  # a hand passes over the 5S still lying there
    camera = camera_read_in_steps(service, coup + after)
    camera.poll(limit=len(coup))
    service.execute_line("lock")
    camera.poll(limit=len(after))
    assert service.state.hands == [[], []] and service.state.alarm is None
    camera.close()


def test_a_shoe_of_six_decks_deals_a_card_after_a_copy_of_itself_under_the_camera(
    tmp_path: Path,
) -> None:
    """2C, the box seen empty well past a passing hand, then another 2C: in a shoe of six
    decks a card follows a copy of itself now and then, and is dealt."""
    service, _, _ = make(tmp_path, table=punto_banco(tmp_path))
    service.execute_line("shuffle")
    service.execute_line("lock")
    readings = [*[sure("2C")] * 3, *[EMPTY] * 30, *[sure("2C")] * 3, *[EMPTY] * 30]
    readings += [*[sure("4H")] * 3, *[EMPTY] * 2, *[sure("4H")] * 3]  # a hand passes over 4H
    camera = camera_read_in_steps(service, readings)
    assert camera.poll(limit=len(readings)).alarms == []
    assert [[str(c) for c in hand] for hand in service.state.hands] == [["2C", "4H"], ["2C"]]
    camera.close()


def asking_on_a_full_disk(
    tmp_path: Path,
) -> tuple[TableService, BarcodeShoeReader, Clock, FullDisk, list[str]]:
    """A torn sticker read after the 5S: the reader asks which card it was, and the cards
    read after it are held; then the disk fills. What the service tells its displays of the
    journal's trouble is listed as it is told."""
    service, reader, clock = dealing(tmp_path)
    told: list[str] = []
    service.trouble_listeners.append(lambda: told.append(service.journal_trouble))
    scan(reader, encode_payload(Card.parse("5S"), 1))
    reader.poll()
    scan(reader, "TORN-1")
    reader.poll()
    assert service.state.alarm is not None  # the reader asks which card that was
    disk = FullDisk(service.journal._db)
    service.journal._db = disk
    return service, reader, clock, disk, told


def test_the_readers_note_that_cannot_be_written_is_the_tables_trouble_too(
    tmp_path: Path,
) -> None:
    """A question waits and the cards after it are held: the note that keeps them for a
    restart cannot be written either, and the table says so where the dealer looks, until
    the note is written."""
    service, reader, clock, disk, told = asking_on_a_full_disk(tmp_path)
    clock.now += 1
    scan(reader, encode_payload(Card.parse("KD"), 1))
    reader.poll()
    assert "database or disk is full" in service.journal_trouble
    disk.full = False
    clock.now += 1
    scan(reader, encode_payload(Card.parse("9C"), 1))
    reader.poll()
    assert service.journal_trouble == ""
    assert told[0].endswith("database or disk is full") and told[-1] == ""


def test_one_outage_is_told_once_whichever_part_meets_it(tmp_path: Path) -> None:
    """The reader's note and the table's own events both fail on a full disk, turn by
    turn: the displays hear of the outage once, and once of its end."""
    service, reader, clock, disk, told = asking_on_a_full_disk(tmp_path)
    for code in ("KD", "9C", "2H"):
        clock.now += 1
        scan(reader, encode_payload(Card.parse(code), 1))
        reader.poll()
        with pytest.raises(JournalError):
            service.execute_line("punter zed 10")
    assert len(told) == 1
    disk.full = False
    service.try_the_journal(clock.now)
    assert told[1:] == [""]


def test_cards_held_for_the_journal_go_in_as_soon_as_the_service_finds_it_writes(
    tmp_path: Path,
) -> None:
    """The disk freed with nothing else to write: the service's own try of the journal ends
    the wait, and the held cards are dealt at the next reading, not after the reader's
    pause, so the table never says it deals on while they wait."""
    service, reader, clock = dealing(tmp_path)
    disk = FullDisk(service.journal._db)
    service.journal._db = disk
    scan(reader, encode_payload(Card.parse("5C"), 1))
    reader.poll()
    assert [str(card) for card in reader.holding_for_the_journal()] == ["5C"]
    disk.full = False
    service.try_the_journal(clock.now)
    assert service.journal_trouble == ""
    reader.poll()
    assert reader.holding_for_the_journal() == []
    assert dealt(service) == ["5C"]
