"""``dealtable run``: the table service's main loop.

With no config it runs a fully simulated Faro table: a seeded simulated dealing box, simulated
punters, the terminal display and a journal in the current folder; no broker needed. On start
it replays its journal and resumes exactly where it stopped.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import math
import os
import queue
import random
import signal
import socket
import sys
import threading
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, TextIO

from display.baccarat_terminal import describe as describe_baccarat
from display.baccarat_terminal import render_baccarat
from display.terminal import describe, render_table
from table.baccarat.roads import follow_shoe
from table.cards import Card
from table.errors import TableError
from table.events import (
    CoupFinished,
    CoupResult,
    DealFinished,
    DealVoided,
    Event,
    ReaderNoticeKind,
)
from table.faro.engine import FaroState, Phase
from table.faro.punters import DEMO_PUNTERS, fresh_visitors, round_of_bets
from table.language import CardCmd, Command, ShuffleCmd, parse_line, usage
from table.service.config import Config, ConfigError, config_warnings
from table.service.journal import Journal, JournalDamagedError, JournalError, JournalLock
from table.service.table_service import JOURNAL_RETRY_SECONDS, TableService, shoe_so_far
from table.shoe import Shoe

if TYPE_CHECKING:
    from table.service.hardware import TableHardware
    from table.service.readers import BarcodeShoeReader, CameraReader
    from table.service.web import CommandRelay, WebServer
    from vision.frames import FrameSource
    from vision.recognize import Recognizer

log = logging.getLogger("dealtable")

# The longest the loop leaves the broker, the table's devices and the watchdog unserved while
# a simulated shoe waits for its next card (seconds).
SERVED_EVERY = 0.05


# While the journal is checked at the start, systemd is asked for this much more time, at
# most this often.
START_EXTENSION_USEC = 60_000_000
EXTEND_EVERY_SECONDS = 5.0


class SystemdNotifier:
    """``sd_notify`` in a few lines: READY=1 and WATCHDOG=1 as datagrams to $NOTIFY_SOCKET."""

    def __init__(
        self, address: str | None, monotonic: Callable[[], float] = time.monotonic
    ) -> None:
        self.address = address
        # The watchdog is timed apart from the table's clock: a wall clock that NTP steps
        # back after boot (a Pi keeps no time while off) must not stop the pings.
        self.monotonic = monotonic
        self._socket: socket.socket | None = None
        if address:
            self._socket = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
            # A reader that falls behind fills its queue (ten datagrams by default): the table
            # must not then stop dealing until systemd reads; a ping it drops is sent again.
            self._socket.setblocking(False)
        interval = os.environ.get("WATCHDOG_USEC")
        self.watchdog_interval = int(interval) / 2e6 if interval and interval.isdigit() else 0.0
        self._last_ping = -math.inf
        self._last_extended = -math.inf

    @classmethod
    def from_environment(cls) -> SystemdNotifier:
        return cls(os.environ.get("NOTIFY_SOCKET"))

    def notify(self, message: str) -> None:
        if self._socket is None or not self.address:
            return
        # A leading '@' names an abstract socket: a NUL byte on the wire.
        address = "\0" + self.address[1:] if self.address.startswith("@") else self.address
        try:
            self._socket.sendto(message.encode(), address)
        except BlockingIOError:
            log.debug("systemd has not read its notifications yet: %s not sent", message)
        except OSError as error:
            log.warning("systemd notify failed: %s", error)

    def ready(self) -> None:
        self.notify("READY=1\nSTATUS=dealing")

    def starting(self, checked: int) -> None:
        """The start goes on (the journal's chain checked up to record ``checked``): systemd
        gives it a minute more, so a journal kept for years is not killed halfway through
        its check for taking longer than the unit's start timeout."""
        now = self.monotonic()
        if now - self._last_extended >= EXTEND_EVERY_SECONDS:
            # The watchdog is fed too: after a reload it is armed while the journal is
            # checked, and a check that goes on is a start that is not hung.
            self.notify(
                f"EXTEND_TIMEOUT_USEC={START_EXTENSION_USEC}\n"
                f"STATUS=checking the journal: record {checked}\n"
                "WATCHDOG=1"
            )
            self._last_extended = now

    def healthy(self) -> None:
        """Called from the main loop each time round: pings the watchdog when it is due."""
        now = self.monotonic()
        if self.watchdog_interval and now - self._last_ping >= self.watchdog_interval:
            self.notify("WATCHDOG=1")
            self._last_ping = now

    def stopping(self) -> None:
        self.notify("STOPPING=1")

    def reloading(self) -> None:
        """The service starts again in the same process: systemd waits for READY=1 again."""
        self.notify("RELOADING=1\nSTATUS=starting again under the config read again")


class ConfigReload:
    """SIGHUP asks for the config to be read again. Once the main loop finds it sound, the
    table stops as on SIGTERM (its step finished, its events sent, its devices dark) and
    :attr:`due` says the service starts again from its journal under it; a config that is
    not sound is logged, and the table deals on under the one it has."""

    def __init__(self, read: Callable[[], Config]) -> None:
        self.read = read
        self.asked = threading.Event()
        self.due = False

    def wanted(self) -> bool:
        """Asked for, and the config read again is sound: the loop stops to start again."""
        if not self.asked.is_set():
            return False
        self.asked.clear()
        try:
            config = self.read()
        except ConfigError as refused:
            log.error(
                "%s; the config is not taken: the table deals on under the one it started with",
                refused,
            )
            return False
        log.info("the config %s is read again: the table starts again under it", config.source)
        self.due = True
        return True


class SimulatedTable:
    """A simulated dealer, dealing box and punters around a real service.

    The box order of deal N is fixed by the seed, so a restarted service deals on from the
    card where it stopped; the punters' choices for a betting window depend only on the
    seed, the deal and the turn, and are journaled together, so a crash never repeats them.
    """

    def __init__(self, service: TableService, seed: int, punters: int = 6) -> None:
        self.service = service
        self.seed = seed
        self.punters = list(DEMO_PUNTERS[:punters])
        self._seat_missing()

    def _seat_missing(self) -> None:
        state = self.service.faro
        commands: list[Command] = []
        for punter in self.punters:
            if punter.name not in state.bankrolls:
                parsed = parse_line(f"punter {punter.name} {punter.bankroll}")
                assert parsed is not None
                commands.append(parsed)
        if commands:
            self.service.execute_many(commands)

    def box_order(self, deal: int) -> list[Card]:
        shoe = Shoe(self.service.faro.rules.deck_spec, rng=random.Random(f"{self.seed}:{deal}"))
        return shoe.peek_remaining()

    def step(self) -> list[Event]:
        """One thing a dealer does: a new deck, a round of bets and the next card."""
        service = self.service
        state = service.faro
        if state.alarm is not None:
            return service.execute_line("void")
        if state.phase in (Phase.NO_DECK, Phase.FINISHED):
            visitors = fresh_visitors(state, self.punters, service.config.table.bank)
            return service.execute_many(visitors) + service.execute(ShuffleCmd())
        events: list[Event] = []
        if state.bets_open:
            rng = random.Random(f"{self.seed}:{state.deal}:{state.turn}")
            events += service.execute_many(round_of_bets(state, self.punters, rng))
        dealt = set(state.casekeep.dealt_cards())
        next_card = next((card for card in self.box_order(state.deal) if card not in dealt), None)
        if next_card is None:
            # The deal wants a card the box no longer holds: its record is not this box's (a
            # journal carried on from a damaged one, cut after a card and before its
            # settlements). A dealer would void such a deal, and so does this one.
            log.warning(
                "deal %d wants a card %s, and the simulated box is empty: the deal is voided, "
                "every bet returned",
                state.deal,
                state.where(),
            )
            return events + service.execute_line("void deal")
        events += service.card(next_card)
        return events


class ConsoleReader:
    """The dealer's keyboard: table-language lines from standard input, read on a thread."""

    def __init__(self, stream: TextIO | None) -> None:
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.lines_read = 0
        self._thread = threading.Thread(target=self._read, args=(stream,), daemon=True)
        self._thread.start()

    def _read(self, stream: TextIO | None) -> None:
        # With standard input closed (``0<&-``) Python has no sys.stdin at all: no keyboard.
        for line in stream or ():
            self.lines_read += 1
            self.lines.put(line)
        self.lines.put(None)


class TerminalDisplay:
    def __init__(self, out: TextIO, service: TableService) -> None:
        self.out = out
        self.service = service
        self.on_terminal = out.isatty()
        self.results: list[CoupResult] = []  # this shoe's coups, for the scoreboards
        self._trouble_drawn = ""

    def attach(self) -> None:
        """Drawn at once, as the table stands (a restart's dealer sees where it resumed, and
        the scoreboards keep the shoe's coups so far), then after every change of the
        table, and of the journal's trouble."""
        follow_shoe(self.results, shoe_so_far(self.service.journal, self.service.state))
        self.service.listeners.append(self.show)
        self.service.trouble_listeners.append(self.redraw)
        self.show(())

    def redraw(self) -> None:
        """The table as it stands, with nothing new to tell: the journal's trouble changed,
        unless the last frame drawn says so already (the events that cleared it)."""
        if self.service.journal_trouble != self._trouble_drawn:
            self.show(())

    def show(self, events: Sequence[Event]) -> None:
        state = self.service.state
        trouble = self.service.journal_trouble
        if isinstance(state, FaroState):
            lines = [text for event in events if (text := describe(event))]
            frame = render_table(state, lines, colour=self.on_terminal, journal_trouble=trouble)
        else:
            follow_shoe(self.results, events)
            lines = [text for event in events if (text := describe_baccarat(event))]
            frame = render_baccarat(
                state, self.results, lines, colour=self.on_terminal, journal_trouble=trouble
            )
        self._trouble_drawn = trouble
        if self.on_terminal:
            self.out.write("\x1b[H\x1b[2J" + frame + "\n")
        else:
            self.out.write(frame + "\n" + "-" * 78 + "\n")
        self.out.flush()


def run(
    config: Config,
    *,
    deals: int | None = None,
    until_deal: int | None = None,
    out: TextIO = sys.stdout,
    console: TextIO | None = None,
    clock: Callable[[], float] = time.time,
    sleep: Callable[[float], None] = time.sleep,
    stop: threading.Event | None = None,
    hardware: TableHardware | None = None,
    monotonic: Callable[[], float] = time.monotonic,
    reload: ConfigReload | None = None,
) -> int:
    """Run the table until ``deals`` more deals are finished (or deal ``until_deal`` is over),
    the console closes, a signal asks it to stop, or ``reload`` finds the config read again
    sound (it is then ``due``: the caller starts the table again). A simulated shoe's pace is
    kept on ``monotonic``, with ``sleep`` between."""
    stop = stop or threading.Event()
    notifier = SystemdNotifier.from_environment()
    for warning in config_warnings(config):
        log.warning("%s", warning)
    with contextlib.ExitStack() as undo_if_refused:
        # The journal's lock first: a second service on a journal in use is refused, naming
        # the one dealing, before it can take the camera or blank the lights of that one, or
        # be refused the page's port that one holds as though another server held it.
        lock = JournalLock(config.table.journal)
        undo_if_refused.callback(lock.release)
        # The page's port is taken before the journal is touched: a port in use refuses the
        # start and changes nothing.
        web = _bind_web(config)
        if web is not None:
            undo_if_refused.callback(web.stop)
        camera = _open_camera(config)
        if camera is not None:
            undo_if_refused.callback(camera[0].close)
        if hardware is None and config.hardware is not None:
            # Before the journal: a board that cannot be driven refuses the start.
            from table.service.hardware import TableHardware

            hardware = TableHardware(config.hardware)
            undo_if_refused.callback(hardware.close)
        try:
            journal, service = open_table(config, clock, lock, _checking(notifier, stop))
        except _StoppedWhileCheckingError as stopped:
            log.info("%s: the table did not start", stopped)
            return 0
        except JournalDamagedError:
            if config.mqtt is not None:
                from table.service.mqtt import say_offline

                say_offline(config.mqtt, config.table.id)
            raise
        undo_if_refused.pop_all()
    if service.resumed:
        log.info(
            "resumed from %s at event %d (%s)",
            journal.path,
            journal.last_seq,
            service.state.where(),
        )
    link = None
    if config.mqtt is not None:
        from table.service.mqtt import MqttLink

        link = MqttLink(config.mqtt, config.table.id, service, journal)
        link.start()
    voice = None
    if config.exhibit is not None:
        from table.service.exhibit import ExhibitVoice

        voice = ExhibitVoice(service, config.exhibit.language, out, config.exhibit.punters)
    elif config.display.terminal:
        TerminalDisplay(out, service).attach()
    if hardware is not None:
        hardware.attach(service)
    if web is not None:
        from table.service.web import ServiceFeed

        ServiceFeed(service, web.view)
        web.relay = _croupier_relay(config)
        web.start()
        log.info("the table on the web: %s", web.url)
    simulated = (
        SimulatedTable(service, config.reader.seed) if config.reader.kind == "simulated" else None
    )
    console_kinds = ("console", "serial-scanner", "board-scanner", "camera", "barcode-camera")
    reader = ConsoleReader(console or sys.stdin) if config.reader.kind in console_kinds else None
    shoe_reader: BarcodeShoeReader | CameraReader | None = None
    if config.reader.kind in ("serial-scanner", "board-scanner"):
        from table.service.readers import BarcodeShoeReader

        if config.reader.kind == "board-scanner":
            assert hardware is not None  # the config asks for the board
            # Taken now: the board forwards codes from the first poll on.
            scanner = hardware.board_scanner()
            shoe_reader = BarcodeShoeReader(
                "the layout board", service, clock, opener=lambda _: scanner
            )
        else:
            shoe_reader = BarcodeShoeReader(config.reader.url, service, clock)
        if hardware is not None:
            # A light barrier on the board tells the cards that slid out with no code read.
            hardware.pair_slides_with(shoe_reader)
    if camera is not None:
        from table.service.readers import CameraReader

        shoe_reader = CameraReader(*camera, service)
    if hardware is not None and shoe_reader is not None:
        hardware.answer_questions_of(shoe_reader, clock)
    _forget_readers_removed(service, shoe_reader)
    status = 0
    pause = 1.0 / config.reader.cards_per_second if config.reader.cards_per_second > 0 else 0.0
    next_card_at = monotonic()
    ended = _DealCounter()
    service.listeners.append(ended.count)
    notifier.ready()
    try:
        while not stop.is_set():
            if reload is not None and reload.wanted():
                break
            # Before the devices are polled, as a signal's stop is: what the board sends from
            # here on stays with it for the next run. Taken (and acknowledged) by a last poll,
            # a code would be left unread, its card lost. A deal a device ended in its poll
            # ends the run at the next turn, once the reader has read what that poll took.
            if deals is not None and ended.deals >= deals:
                break
            if until_deal is not None and _deal_over(service, until_deal):
                break
            notifier.healthy()
            service.try_the_journal(monotonic())
            service.archive_some()
            if link is not None:
                link.pump()
            if hardware is not None:
                try:
                    commands = hardware.poll()  # the dealer's buttons answer the reader here
                except JournalError:
                    commands = []  # the service has said why, once; nothing was lost
                for command in commands:
                    try:
                        # The box-empty switch is journaled with its frame's name: the journal
                        # keeps, with its alarm, that the board's frame is taken.
                        service.execute(command, hardware.request_of(command))
                    except JournalError:
                        # Not refused: the service has said why, once; the devices give it
                        # again once the journal writes (the box-empty switch is not lost).
                        hardware.not_kept(command)
                    except TableError as refused:
                        log.warning("refused from the table's devices: %s", refused)
            if simulated is not None:
                # The pause between cards is waited out in slices, with the broker, the
                # devices and the watchdog served between them: a link left unheard would
                # say the service is gone, and a bet would be answered only after the pause.
                wait = next_card_at - monotonic()
                if wait > 0:
                    sleep(min(wait, SERVED_EVERY))
                    continue
                try:
                    simulated.step()
                except JournalError:
                    # A disk full or failing: the simulated box keeps its card, and the deal
                    # goes on from it once the journal can write again.
                    next_card_at = monotonic() + JOURNAL_RETRY_SECONDS
                    continue
                next_card_at = monotonic() + pause
            elif reader is not None:
                if voice is not None:
                    # A journal that cannot write refuses the punters' bets: said once by
                    # the service, and they bet again at the next round.
                    with contextlib.suppress(JournalError):
                        voice.place_bets(config.reader.seed)
                if shoe_reader is not None:
                    news = shoe_reader.poll()
                    for alarm in news.alarms:
                        out.write(f"reader alarm: {alarm.message}\n")
                    for reason in news.refused:
                        out.write(f"refused: {reason}\n")
                    for question in news.questions:
                        out.write(f"{question.message}\n")
                try:
                    line = reader.lines.get(timeout=0.02 if shoe_reader else 0.2)
                except queue.Empty:
                    continue
                if line is None:
                    if shoe_reader is not None:
                        continue  # no keyboard (a service): the shoe deals on
                    if not reader.lines_read:
                        log.error(
                            "the console ended before its first line: a console table takes its "
                            "cards from the keyboard, and standard input is empty (as under "
                            "systemd); run it in a terminal, or read the cards with a barcode "
                            "shoe or a camera ([reader] kind)"
                        )
                        status = 2
                    break
                if line.strip().lower() in ("help", "?"):
                    out.write(usage() + "\n")
                    out.flush()
                    continue
                if shoe_reader is not None:
                    from table.service.readers import answer_from_console

                    answered = answer_from_console(shoe_reader, line, clock())
                    if answered is not None:
                        out.write("".join(f"{said}\n" for said in answered))
                        out.flush()
                        continue
                    held = shoe_reader.holding_for_the_journal()
                    if held and _is_a_card(line):
                        cards = " ".join(str(card) for card in held)
                        out.write(
                            f"refused: {line.strip()}: the cards read before it ({cards}) wait "
                            "for the journal and go in first; give it again once they have\n"
                        )
                        out.flush()
                        continue
                try:
                    service.execute_line(line)
                except TableError as refused:
                    out.write(f"refused: {refused}\n")
                    out.flush()
            else:
                sleep(0.2)
        if link is not None:
            link.flush(timeout=5.0)
    finally:
        if reload is not None and reload.due:
            notifier.reloading()
        else:
            notifier.stopping()
        if link is not None:
            link.stop()
        if hardware is not None:
            hardware.close()
        if shoe_reader is not None:
            shoe_reader.close()
        if web is not None:
            web.stop()
        service.stop_archiving()
        journal.close()
    return status


class _StoppedWhileCheckingError(Exception):
    """A stop asked for while the journal's chain was checked at the start."""


def _checking(notifier: SystemdNotifier, stop: threading.Event) -> Callable[[int], None]:
    """Told how far the journal's check at the start has got: systemd hears the start goes
    on, and a stop asked for meanwhile ends it there. A journal kept for years takes minutes
    to check, far past the unit's TimeoutStopSec: left to finish, the service would be
    killed. Nothing has been written yet, so nothing is lost."""

    def checked(seq: int) -> None:
        if stop.is_set():
            raise _StoppedWhileCheckingError(
                f"stopped while the journal was checked, at record {seq}"
            )
        notifier.starting(seq)

    return checked


DAMAGED_JOURNAL_ADVICE = (
    "dealtable deals on no damaged journal: keep the file as it is for inspection; "
    "'dealtable carry-on JOURNAL NEW.sqlite' copies its sound records into a new journal to "
    "deal on from (run --journal NEW.sqlite, or journal in the config's [table])"
)


def open_table(
    config: Config,
    clock: Callable[[], float] = time.time,
    lock: JournalLock | None = None,
    checking: Callable[[int], None] | None = None,
) -> tuple[Journal, TableService]:
    """The table's journal, its chain checked, and the service resumed from it; ``checking``
    hears how far the check has got."""
    try:
        journal = Journal(config.table.journal, config.table.id, lock=lock, checking=checking)
    except JournalDamagedError as damaged:
        raise damaged.advised(DAMAGED_JOURNAL_ADVICE) from None
    try:
        return journal, TableService(config, journal, clock, archive_aside=True)
    except JournalDamagedError as damaged:  # a record that holds no event
        journal.close()
        raise damaged.advised(DAMAGED_JOURNAL_ADVICE) from None
    except BaseException:
        journal.close()
        raise


def _bind_web(config: Config) -> WebServer | None:
    if config.web is None:
        return None
    from table.service.web import LiveView, RenewedCertificate, WebServer, WebServerError

    files = config.web.tls
    tls = None if files is None else RenewedCertificate.of(config.source, files)
    try:
        return WebServer(
            LiveView(advisor=config.table.advisor),
            config.web.host,
            config.web.port,
            config.web.language,
            tls=tls,
        )
    except WebServerError as error:
        raise ConfigError(f"{config.source}: [web] {error.key}: {error}") from None


def _open_camera(config: Config) -> tuple[FrameSource, Recognizer | None] | None:
    if config.reader.kind not in ("camera", "barcode-camera"):
        return None
    from table.service.readers import open_camera
    from vision.errors import ProfileError, VisionError

    try:
        return open_camera(config.reader)
    except ProfileError as error:
        raise ConfigError(f"{config.source}: [reader] deck: {error}") from None
    except VisionError as error:
        raise ConfigError(f"{config.source}: [reader] camera: {error}") from None


def _croupier_relay(config: Config) -> CommandRelay:
    """The croupier page's way to the table: its betting account on the table's broker."""
    from table.service.web import MqttCommandRelay, RefusingRelay

    if config.mqtt is None:
        return RefusingRelay(
            "the croupier's page sends its bets through the table's broker, and "
            f"{config.source} has no [mqtt]"
        )
    if config.web is None or not config.web.croupier_username:
        return RefusingRelay(
            "the croupier's page takes bets only once the table offers it: set [web] "
            f"croupier_username (the broker account its login form offers) in {config.source}"
        )
    # Each bet goes in the name of the account logged in at the page, with the password typed
    # there: the broker checks it, and its ACL decides. The config's account is only offered.
    offered = dataclasses.replace(config.mqtt, username=config.web.croupier_username, password="")
    return MqttCommandRelay(offered, config.table.id)


def _is_a_card(line: str) -> bool:
    try:
        return isinstance(parse_line(line), CardCmd)
    except TableError:
        return False  # the service refuses it in its own words


def _forget_readers_removed(
    service: TableService, reader: BarcodeShoeReader | CameraReader | None
) -> None:
    """A reader lost before the service stopped, and not read from since it started again
    (the config names another, or none), is no longer the table's: it is removed."""
    for name in list(service.state.readers_lost):
        if reader is None or reader.name != name:
            service.reader_notice(
                name,
                ReaderNoticeKind.READER_REMOVED,
                f"the service started without the {name} reader",
            )


def _deal_over(service: TableService, deal: int) -> bool:
    """Faro: deal ``deal`` is over. Baccarat: coup ``deal`` is over."""
    state = service.state
    if not isinstance(state, FaroState):
        return state.coup > deal or (state.coup == deal and state.coup_over)
    return state.deal > deal or (
        state.deal == deal and state.phase in (Phase.FINISHED, Phase.NO_DECK)
    )


class _DealCounter:
    """Deals finished (or voided) since the service started; at baccarat, coups, as
    ``--until-deal`` counts them (a shoe's end is no coup)."""

    def __init__(self) -> None:
        self.deals = 0

    def count(self, events: Sequence[Event]) -> None:
        self.deals += sum(
            isinstance(event, DealFinished | DealVoided | CoupFinished) for event in events
        )


def install_signal_handlers(stop: threading.Event, reload: ConfigReload | None = None) -> None:
    """SIGTERM and SIGINT stop after the current step; SIGHUP (``systemctl reload``) reads
    the config again with ``reload``. Left to its default, SIGHUP would end the service at
    once, its devices left lit, and systemd counts that a clean exit: no restart."""

    def request_stop(signum: int, _frame: object) -> None:
        log.info("signal %d: finishing the current step and stopping", signum)
        stop.set()

    def request_reload(signum: int, _frame: object) -> None:
        assert reload is not None
        log.info("signal %d: reading the config again", signum)
        reload.asked.set()

    signal.signal(signal.SIGTERM, request_stop)
    signal.signal(signal.SIGINT, request_stop)
    if reload is not None:
        signal.signal(signal.SIGHUP, request_reload)
