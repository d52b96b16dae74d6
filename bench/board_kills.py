"""Every card once, the hard way: ``dealtable run`` dealing Faro from the scanner wired to a
simulated layout board (the real firmware on a pty), killed with SIGKILL at random moments
(as it starts, mid-deal, as a card comes out, as a deck's last cards and the box-empty switch
come) and started again, while the board deals on and keeps the frames the service has not
acknowledged, as a real board does.

The dealer deals whole decks as a shoe does: each card's code read by the board's scanner,
then its slide past the board's light barrier; the box-empty switch closes after the hoc, and
opens again as the next deck goes in. A question or an alarm the table raises is noted and
voided from the console, so that the deal goes on. At the end the journal says, of every
deck, whether each card the board dealt was dealt once, in the order it came out, none lost,
and whether the table asked the dealer about a card whose code was read or raised a false
alarm (a short deal, a card seen twice).

Prints a line a kill, the defects found (each described) and the totals; exits 1 if it found
a defect, keeping the files. Run: ``.venv/bin/python bench/board_kills.py [--kills N]
[--seed S]``.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from firmware_bridge.clock import SystemClock
from hw.simulated.microcontroller import SimulatedMicrocontroller
from table.cards import STANDARD_52, Card
from table.events import (
    AlarmCleared,
    AlarmKind,
    AlarmRaised,
    CardDealt,
    DealerCorrection,
    DealFinished,
    DealVoided,
    DeckStarted,
    Event,
    ReaderNotice,
    ReaderNoticeKind,
)
from table.service.journal import Journal, JournalError
from vision.barcode import encode_payload

ROOT = Path(__file__).resolve().parent.parent
TABLE = "board-kills"
PYTHON = sys.executable
# A card every half second or a little more, as a quick dealer deals: its code read, its
# slide past the board's light barrier a moment later (well within the reader's 0.3 s).
CARD_EVERY = 0.5
CARD_EVERY_SPREAD = 0.2
SLIDE_AFTER = (0.06, 0.16)
BEAM_BROKEN_FOR = 0.05
SWITCH_AFTER_HOC = 0.3
# How long a deck's end waits for the table to finish the deal once the service has been
# up a while: a card lost leaves it waiting.
DEAL_FINISHED_WITHIN = 10.0
# A console line the service may not have read before it was killed is given again.
LINE_AGAIN_AFTER = 2.0


def write_config(folder: Path, board: SimulatedMicrocontroller) -> Path:
    config = folder / "table.toml"
    config.write_text(
        f"""
[table]
id = "{TABLE}"
journal = "{folder / "journal.sqlite"}"

[reader]
kind = "board-scanner"

[display]
terminal = false

[hardware]
microcontroller_url = "{board.url}"
abacus = false
buttons = false
"""
    )
    return config


class Service:
    """``dealtable run`` of this checkout's code, started and killed again and again; its
    console is a pipe the dealer writes to."""

    def __init__(self, folder: Path, config: Path) -> None:
        self.folder = folder
        self.config = config
        self.process: subprocess.Popen[bytes] | None = None
        self.runs = 0
        self.started_at = 0.0
        self._out: IO[bytes] | None = None
        self._err: IO[bytes] | None = None

    def start(self) -> None:
        self.runs += 1
        self._out = open(self.folder / f"run-{self.runs:03d}.out", "wb")  # noqa: SIM115
        self._err = open(self.folder / f"run-{self.runs:03d}.log", "wb")  # noqa: SIM115
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        self.process = subprocess.Popen(
            [PYTHON, "-m", "table.service.cli", "run", "--config", str(self.config)],
            stdin=subprocess.PIPE,
            stdout=self._out,
            stderr=self._err,
            cwd=ROOT,
            env=env,
        )
        self.started_at = time.monotonic()

    @property
    def up_for(self) -> float:
        """How long the service has run (0 while none runs)."""
        if self.process is None or self.process.poll() is not None:
            return 0.0
        return time.monotonic() - self.started_at

    def say(self, line: str) -> bool:
        """A line at the console; False if no service reads it."""
        process = self.process
        if process is None or process.poll() is not None or process.stdin is None:
            return False
        try:
            process.stdin.write(line.encode() + b"\n")
            process.stdin.flush()
        except (BrokenPipeError, OSError):
            return False
        return True

    def kill(self) -> None:
        self._end(signal.SIGKILL)

    def stop(self) -> None:
        self._end(signal.SIGTERM)

    def _end(self, signum: int) -> None:
        process = self.process
        if process is None:
            return
        if process.poll() is None:
            process.send_signal(signum)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        if process.stdin is not None:
            with contextlib.suppress(BrokenPipeError, OSError):
                process.stdin.close()
        for file in (self._out, self._err):
            if file is not None:
                file.close()
        self.process = None

    def crashed(self) -> int | None:
        """The exit status of a service that ended on its own, else None."""
        process = self.process
        if process is None:
            return None
        return process.poll()


class JournalWatch:
    """The table's events as the journal holds them, read as the service writes them."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.events: list[Event] = []
        self.last_seq = 0

    def refresh(self) -> None:
        if not self.path.exists():
            return
        try:
            with Journal(self.path, read_only=True) as journal:
                new = list(journal.events(after_seq=self.last_seq))
        except JournalError:
            return  # being created: read at the next refresh
        self.events += new
        if new:
            self.last_seq = new[-1].seq

    def standing_alarms(self) -> dict[int, AlarmRaised]:
        raised: dict[int, AlarmRaised] = {}
        for event in self.events:
            if isinstance(event, AlarmRaised):
                raised[event.alarm] = event
            elif isinstance(event, AlarmCleared):
                raised.pop(event.alarm, None)
        return raised

    def finished(self, deal: int) -> bool:
        return any(
            isinstance(event, DealFinished | DealVoided) and event.deal == deal
            for event in self.events
        )

    def started(self, deal: int) -> bool:
        return any(isinstance(event, DeckStarted) and event.deal == deal for event in self.events)


@dataclass
class Deck:
    deal: int
    order: list[Card]
    dealt: list[Card] = field(default_factory=list)  # scanned by the board, in order


class Dealer:
    """The dealer at the shoe: whole decks dealt through the board's scanner and light
    barrier at a quick dealer's pace, a new deck once the table has finished the last."""

    def __init__(
        self,
        board: SimulatedMicrocontroller,
        service: Service,
        watch: JournalWatch,
        rng: random.Random,
    ) -> None:
        self.board = board
        self.service = service
        self.watch = watch
        self.rng = rng
        self.decks: list[Deck] = []
        self.deck: Deck | None = None
        self.phase = "shuffle"  # shuffle, starting, dealing, empty
        self.said_at = -1e9
        self.acts: list[tuple[float, str, Card | None]] = []  # (when, what, card)
        self.empty_at = 0.0
        self.never_finished: list[str] = []
        self.never_finished_deal = 0
        self.want_more = True
        self.ends_hit = 0  # the last deal killed at its end

    def _new_deck(self) -> None:
        cards = list(STANDARD_52.cards)
        self.rng.shuffle(cards)
        self.deck = Deck(len(self.decks) + 1, cards)
        self.decks.append(self.deck)

    def _schedule(self, now: float) -> None:
        assert self.deck is not None
        at = last = now + 0.3
        for card in self.deck.order:
            self.acts.append((at, "scan", card))
            slide = at + self.rng.uniform(*SLIDE_AFTER)
            self.acts.append((slide, "block", card))
            self.acts.append((slide + BEAM_BROKEN_FOR, "clear", card))
            last = slide + BEAM_BROKEN_FOR
            at += CARD_EVERY + self.rng.uniform(0.0, CARD_EVERY_SPREAD)
        self.acts.append((last + SWITCH_AFTER_HOC, "empty", None))

    def step(self, now: float, alarm_stands: bool) -> bool:
        """One look at the shoe; False once the dealer deals no more (asked to stop, and
        the deck in hand finished)."""
        if self.phase == "shuffle":
            if not self.want_more:
                return False
            if self.deck is None or self.watch.finished(self.deck.deal):
                self._new_deck()
            self.phase = "starting"
            self.said_at = -1e9
        if self.phase == "starting":
            assert self.deck is not None
            if self.watch.started(self.deck.deal):
                self.phase = "dealing"
                self._schedule(now)
            elif (
                now - self.said_at > LINE_AGAIN_AFTER
                and self.service.up_for > 1.0
                and self.service.say("shuffle")
            ):
                self.said_at = now
            return True
        if self.phase == "dealing":
            # A dealer stops at an alarm, and deals on once it is answered: the acts due
            # meanwhile move on by the time lost.
            if alarm_stands and self.acts and self.acts[0][1] == "scan":
                self.acts = [(at + 0.01, what, card) for at, what, card in self.acts]
                return True
            while self.acts and self.acts[0][0] <= now:
                _, what, card = self.acts.pop(0)
                self._act(what, card, now)
            return True
        if self.phase == "empty":
            assert self.deck is not None
            if self.watch.finished(self.deck.deal):
                self.board.box_empty_pin.drive(1)  # the next deck goes in
                self.phase = "shuffle"
            elif self.service.up_for > DEAL_FINISHED_WITHIN and now - self.empty_at > 3.0:
                # A card lost: the deal is voided, so that the next deck can go in.
                if self.never_finished_deal != self.deck.deal:
                    self.never_finished_deal = self.deck.deal
                    dealt = sum(
                        isinstance(event, CardDealt) and event.deal == self.deck.deal
                        for event in self.watch.events
                    )
                    self.never_finished.append(
                        f"deal {self.deck.deal} never finished: {dealt} of 52 cards dealt"
                    )
                if now - self.said_at > LINE_AGAIN_AFTER and self.service.say("void deal"):
                    self.said_at = now
            return True
        return True

    def _act(self, what: str, card: Card | None, now: float) -> None:
        assert self.deck is not None
        if what == "scan":
            assert card is not None
            self.board.scan(encode_payload(card, 1))
            self.deck.dealt.append(card)
        elif what == "block":
            self.board.block_card_sensor(True)
        elif what == "clear":
            self.board.block_card_sensor(False)
        elif what == "empty":
            self.board.box_empty_pin.drive(0)
            self.phase = "empty"
            self.empty_at = now


@dataclass
class Findings:
    defects: list[str] = field(default_factory=list)
    cards: int = 0


def run_of(seq: int, run_ends: list[int]) -> int:
    """The run of the service (1, 2, ...) that wrote record ``seq``."""
    for index, end in enumerate(run_ends):
        if seq <= end:
            return index + 1
    return len(run_ends) + 1


def judge(events: list[Event], decks: list[Deck], run_ends: list[int]) -> Findings:
    """What the journal says of the decks the board dealt."""
    found = Findings()
    by_deal: dict[int, list[Card]] = {}
    for event in events:
        if isinstance(event, CardDealt):
            by_deal.setdefault(event.deal, []).append(event.card)
        elif isinstance(event, DealerCorrection):
            found.defects.append(f"deal {event.deal}: a card voided or corrected: {event}")
    voided = {event.deal for event in events if isinstance(event, DealVoided)}
    for deck in decks:
        dealt = by_deal.get(deck.deal, [])
        found.cards += len(deck.dealt)
        twice = sorted({str(card) for card in dealt if dealt.count(card) > 1})
        if twice:
            found.defects.append(f"deal {deck.deal}: dealt twice: {', '.join(twice)}")
        lost = [str(card) for card in deck.dealt if card not in dealt]
        if lost:
            found.defects.append(
                f"deal {deck.deal}: lost (scanned, never dealt): {', '.join(lost)}"
            )
        foreign = [str(card) for card in dealt if card not in deck.dealt]
        if foreign:
            found.defects.append(f"deal {deck.deal}: dealt, never scanned: {', '.join(foreign)}")
        kept = [card for card in dealt if card in deck.dealt]
        order = [card for card in deck.dealt if card in kept]
        if not twice and kept != order:
            at = next(i for i, (a, b) in enumerate(zip(kept, order, strict=True)) if a != b)
            found.defects.append(
                f"deal {deck.deal}: out of order from card {at + 1}: dealt "
                f"{' '.join(map(str, kept[at : at + 4]))}, scanned "
                f"{' '.join(map(str, order[at : at + 4]))}"
            )
        if deck.deal in voided:
            found.defects.append(f"deal {deck.deal} was voided")
    cards_of_run: dict[int, list[int]] = {}  # the records of the cards each run dealt
    for event in events:
        if isinstance(event, CardDealt):
            cards_of_run.setdefault(run_of(event.seq, run_ends), []).append(event.seq)
    before_run: CardDealt | None = None  # the last card dealt before this run
    last_card: CardDealt | None = None
    run = 1
    for event in events:
        if run_of(event.seq, run_ends) != run:
            run = run_of(event.seq, run_ends)
            before_run = last_card
        if isinstance(event, CardDealt):
            last_card = event
        elif isinstance(event, AlarmRaised) and event.kind is AlarmKind.UNREAD_CARD:
            asked = f"deal {event.deal}, run {run}: dealer asked about a card"
            if before_run is not None:
                # Which card's slide it may be: the last dealt before this run, and where.
                ran = run_of(before_run.seq, run_ends)
                place = cards_of_run[ran].index(before_run.seq) + 1
                since = sum(seq < event.seq for seq in cards_of_run.get(run, []))
                asked += (
                    f" ({before_run.card}, the last card dealt before this run, was card "
                    f"{place} of run {ran}; {since} dealt in this run before the question)"
                )
            asked += f": {event.message}"
            found.defects.append(asked)
        elif isinstance(event, AlarmRaised):
            found.defects.append(
                f"deal {event.deal}, run {run}: {event.kind.value} alarm: {event.message}"
            )
        elif isinstance(event, ReaderNotice) and event.notice in (
            ReaderNoticeKind.SEEN_BEFORE,
            ReaderNoticeKind.MISSED_CARD,
            ReaderNoticeKind.TWO_CARDS,
        ):
            found.defects.append(
                f"deal {event.deal}, run {run}: {event.notice.value} notice: {event.message}"
            )
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kills", type=int, default=20, help="SIGKILLs (default 20)")
    parser.add_argument("--seed", type=int, default=1, help="the random seed (default 1)")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    began = time.monotonic()
    folder = Path(tempfile.mkdtemp(prefix="board-kills-"))
    board = SimulatedMicrocontroller(folder, SystemClock(), seed=args.seed)
    board.start()
    config = write_config(folder, board)
    service = Service(folder, config)
    watch = JournalWatch(folder / "journal.sqlite")
    dealer = Dealer(board, service, watch, random.Random(rng.random()))
    run_ends: list[int] = []
    kinds: dict[str, int] = {}
    crashes: list[str] = []
    voided_at: dict[int, float] = {}
    kills = 0
    service.start()
    kill = next_kill(rng, dealer, time.monotonic())
    refreshed = 0.0
    try:
        while True:
            now = time.monotonic()
            if now - refreshed > 0.1:
                watch.refresh()
                refreshed = now
            status = service.crashed()
            if status is not None:
                crashes.append(f"run {service.runs} ended on its own with status {status}")
                service.kill()
                watch.refresh()
                run_ends.append(watch.last_seq)
                service.start()
            standing = watch.standing_alarms()
            for alarm in standing:
                # The dealer answers: a question dismissed (its card was dealt), an alarm
                # voided; said again if a kill took the line.
                again = now - voided_at.get(alarm, -1e9) > LINE_AGAIN_AFTER
                if service.up_for > 1.0 and again and service.say("void"):
                    voided_at[alarm] = now
            if not dealer.step(now, bool(standing)):
                break
            if kills < args.kills and now >= kill.at:
                service.kill()
                kills += 1
                kinds[kill.kind] = kinds.get(kill.kind, 0) + 1
                watch.refresh()
                run_ends.append(watch.last_seq)
                deck = dealer.deck
                where = f"deal {deck.deal}, {len(deck.dealt)} cards out" if deck else "no deck"
                what = f"{kill.kind} ({kill.detail})" if kill.detail else kill.kind
                print(f"kill {kills:3d} {what:33s} {where}, journal at {watch.last_seq}")
                time.sleep(rng.uniform(0.0, 0.5))
                service.start()
                kill = next_kill(rng, dealer, time.monotonic())
            if kills >= args.kills:
                dealer.want_more = False
            time.sleep(0.002)
        # The board settles what it holds with the table, then the service stops as a
        # service does.
        time.sleep(1.0)
        service.stop()
    finally:
        service.kill()
        board.close()
    watch.refresh()
    found = judge(watch.events, dealer.decks, run_ends)
    found.defects += dealer.never_finished + crashes
    for log in sorted(folder.glob("run-*.log")):
        text = log.read_text(errors="replace")
        if "Traceback" in text:
            trace = text[text.index("Traceback") :][:300]
            found.defects.append(f"{log.name}: a traceback: {trace}")
    took = time.monotonic() - began
    print(
        f"{kills} kills ({', '.join(f'{k} {n}' for k, n in sorted(kinds.items()))}), "
        f"{len(dealer.decks)} decks, {found.cards} cards, {took:.0f} s"
    )
    print(f"defects: {len(found.defects)}")
    for line in found.defects:
        print(f"  DEFECT: {line}")
    if found.defects:
        print(f"  the files are kept in {folder}")
        return 1
    shutil.rmtree(folder, ignore_errors=True)
    return 0


@dataclass(frozen=True)
class Kill:
    at: float
    kind: str
    detail: str = ""


def next_kill(rng: random.Random, dealer: Dealer, now: float) -> Kill:
    """When to kill the service next, and what the moment is: as it starts, mid-deal, as a
    card comes out, or once a deck (if the deck in hand has not had it) as its last cards
    and the box-empty switch come."""
    draw = rng.random()
    scans = [when for when, what, _ in dealer.acts if what == "scan"]
    if draw < 0.2:
        kill = Kill(now + rng.uniform(0.1, 2.0), "at start")
    else:
        kill = Kill(now + rng.uniform(1.0, 5.0), "mid-deal")
    later = [when for when in scans if when > kill.at - 1.0]
    if draw > 0.6 and later:
        # Between a card's code and its slide, or just after: its card dealt or not yet,
        # its slide not yet taken.
        after = rng.uniform(0.0, 0.25)
        kill = Kill(later[0] + after, "mid-card", f"code +{after:.2f} s")
    deck = dealer.deck
    if dealer.phase == "dealing" and scans and deck is not None and deck.deal > dealer.ends_hit:
        # Before the hoc's code is read (the hoc, its slide and the switch kept by the board
        # for the next run), or after it, up to the switch and a little past.
        after = rng.uniform(-0.6, 0.4)
        if now < scans[-1] + after < now + 6.0:
            dealer.ends_hit = deck.deal
            return Kill(scans[-1] + after, "deck's end", f"hoc's code {after:+.2f} s")
    return kill


if __name__ == "__main__":
    raise SystemExit(main())
