"""The journal: every event of a table, appended to SQLite before it is shown or published.

The journal is the table's source of truth. Recovery after a crash is a replay of it, game
recall is a query, and the MQTT outbox is a cursor into it. Each record carries the hash of
the one before, so an edited or missing record is found by :meth:`Journal.verify`; a journal
is opened for writing only when its chain is sound, so that nothing is ever chained onto a
forgery, and is read by the tools through a read-only connection.

The file is opened in WAL mode with ``synchronous=FULL``: once :meth:`Journal.append` returns,
the events survive a power cut.
"""

from __future__ import annotations

import contextlib
import copy
import csv
import dataclasses
import fcntl
import functools
import hashlib
import itertools
import json
import os
import re
import sqlite3
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, NoReturn, TypeVar

from table.baccarat.roads import COUPS_SHOWN
from table.checkpoints import CheckpointError, table_from_checkpoint
from table.errors import TableError
from table.events import CoupResult, Event, event_from_json, event_to_json

# The newest format this dealtable reads. A new journal is written in format 1; one whose
# first records moved to an archive begins after record 1, which a dealtable that reads only
# format 1 would take for damage, so it says format 2.
FORMAT_VERSION = 2
NEW_FORMAT = 1
BEGINS_LATER_FORMAT = 2
GENESIS_HASH = "0" * 64

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS events (
    seq INTEGER PRIMARY KEY,
    deal INTEGER NOT NULL,
    type TEXT NOT NULL,
    at REAL NOT NULL,
    body TEXT NOT NULL,
    prev_hash TEXT NOT NULL,
    hash TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS events_by_deal ON events (deal, seq);
CREATE TABLE IF NOT EXISTS cursors (
    name TEXT PRIMARY KEY,
    seq INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS requests (
    request_id TEXT PRIMARY KEY,
    seq INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS checkpoints (
    seq INTEGER PRIMARY KEY,
    body TEXT NOT NULL,
    hash TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS commits (
    seq INTEGER PRIMARY KEY
);
"""
# Where the commits table begins to know which record ends each append: 1 in a new journal,
# after the last record in a journal written before it was kept.
_COMMITS_FROM = (
    "INSERT OR IGNORE INTO meta (key, value) "
    "SELECT 'commits_from', COALESCE(MAX(seq), 0) + 1 FROM events;"
)


# A part of the service that keeps a note beside a command's events, in their transaction, so
# that the note costs the disk no write of its own and says what the journal holds at once:
# given the command's request id and the seq of its last record, the notes to keep with it
# (key, text: as keep_note), none if nothing changed.
NoteRider = Callable[[str | None, int], Mapping[str, str]]


# A card dealt from a code the layout board forwarded is journaled with this request id and
# the frame's name: after a restart the board's frame sent again is known by it. No command
# from outside may take one (the MQTT link refuses it).
BOARD_FRAME_REQUEST = "board-frame:"


class JournalError(TableError):
    """A journal that cannot be opened, written or trusted."""


JOURNAL_TABLES = frozenset({"meta", "events"})
_ALL_TABLES = frozenset({"meta", "events", "cursors", "requests", "checkpoints", "commits"})
# Hex digits of the first record's hash that name a journal: 64 bits, enough to tell one
# table's journals apart.
NAME_DIGITS = 16
# Checkpoints kept: the newest resumes the table, one more in case it is found damaged.
CHECKPOINTS_KEPT = 2
# Where records are to be archived, the older checkpoints stay too, at least this many
# records apart (every deck's or shoe's; a continuous shuffler's coups are thinned): the
# archived records leave the journal one step at a time, from one checkpoint to the next.
DROP_STEP_RECORDS = 100
# The record after the last of an archive whose records are leaving the journal a step at a
# time: the checkpoint there is kept until they have all left.
_DROPPING_TO = "dropping_to"
# The same of the archive being written aside: the journal is to begin there once it is in
# place, and a continuous shuffler's checkpoint would else be thinned out at the next coup.
_ARCHIVING_TO = "archiving_to"
_KEPT_FOR = (_DROPPING_TO, _ARCHIVING_TO)
_ENVELOPE = frozenset({"type", "seq", "table", "at", "deal"})


class NoJournalError(JournalError):
    """No journal there yet: no file, or an empty one."""


def _tables(db: sqlite3.Connection, path: Path) -> set[str]:
    try:
        rows = db.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()
    except sqlite3.DatabaseError as error:
        if "not a database" in str(error):
            raise JournalError(
                f"{path} is not a dealtable journal (not an SQLite database); nothing was changed"
            ) from None
        if _is_damage(error):
            # No record can be read, so none can be carried on: the copy cut short is kept.
            raise JournalError(
                f"journal {path} is damaged: SQLite cannot read its list of tables ({error}), "
                "as in a file cut short; dealtable reads nothing from a damaged journal: keep "
                "the file as it is for inspection, and deal on from a backup"
            ) from None
        raise
    return {str(name) for (name,) in rows}


@functools.cache
def _columns_of_each_table() -> dict[str, tuple[str, ...]]:
    """Each table of a journal and its columns, as the schema makes them."""
    with contextlib.closing(sqlite3.connect(":memory:")) as db:
        db.executescript(_SCHEMA)
        return {table: _columns(db, table) for table in _ALL_TABLES}


def _columns(db: sqlite3.Connection, table: str) -> tuple[str, ...]:
    return tuple(str(row[1]) for row in db.execute(f"PRAGMA table_info({table})"))


def _refuse_missing_columns(db: sqlite3.Connection, path: Path, tables: set[str]) -> None:
    """Raise unless every journal table there has the columns a journal's has: another
    program's table under a journal's name, or one a hand altered, would else be read as
    sound records and written to in vain."""
    for table, columns in sorted(_columns_of_each_table().items()):
        if table not in tables:
            continue
        present = _columns(db, table)
        missing = [name for name in columns if name not in present]
        if missing:
            plural = "s" if len(missing) > 1 else ""
            raise JournalError(
                f"{path} is not a dealtable journal (its table {table} lacks the column{plural} "
                f"{', '.join(missing)}); nothing was changed"
            )


def _not_a_journal(path: Path, tables: set[str]) -> JournalError:
    names = ", ".join(sorted(tables))
    return JournalError(
        f"{path} is not a dealtable journal (an SQLite database with the tables {names}); "
        "nothing was changed"
    )


class JournalInUseError(JournalError):
    """Another process writes the journal."""


def lock_path(path: Path) -> Path:
    """The lock file beside a journal, named after the file itself, not a link to it."""
    return Path(f"{path.resolve()}.lock")


def _lock_for_writing(path: Path) -> int:
    """Hold the journal's lock for as long as this process writes it.

    A flock belongs to the open file, so the OS drops it when the process ends however it
    ends (a SIGKILL, a power cut): a lock is never left behind. The file only says whose it
    was, for the message; it is left in place, as removing it could let two holders in.
    """
    locked = lock_path(path)
    try:
        descriptor = os.open(locked, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as error:
        raise JournalError(
            f"journal {path}: cannot open its lock file {locked}: {error.strerror}"
        ) from None
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        holder = os.read(descriptor, 32).decode(errors="replace").strip()
        os.close(descriptor)
        who = f"another process (pid {holder})" if holder.isdigit() else "another process"
        raise JournalInUseError(
            f"journal {path} is in use by {who}: one journal, one table service; stop that "
            "one first, or give this one a journal of its own"
        ) from None
    os.ftruncate(descriptor, 0)
    os.write(descriptor, f"{os.getpid()}\n".encode())
    return descriptor


class JournalLock:
    """The lock a writing service holds on its journal, taken on its own: ``dealtable run``
    takes it before it drives the table's devices, so that a second service refused the
    journal never touches the lights of the one dealing. A :class:`Journal` adopts it."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        _refuse_what_is_no_journal(self.path)  # before a lock file is made beside it
        self._descriptor: int | None = _lock_for_writing(self.path)

    def release(self) -> None:
        """Let the journal go (again and again: only the first call does anything)."""
        if self._descriptor is not None:
            os.close(self._descriptor)
            self._descriptor = None


def _connect_read_only(path: Path) -> sqlite3.Connection:
    """A read-only connection to a journal that must already be there."""
    if not path.exists():
        raise NoJournalError(f"no journal at {path}")
    if path.is_dir():
        raise JournalError(f"{path} is a folder, not a dealtable journal")
    uri = path.absolute().as_uri() + "?mode=ro"
    try:
        db, tables = _open_and_list_tables(uri, path)
    except sqlite3.OperationalError as error:
        if Path(f"{path}-wal").exists():
            raise JournalError(f"journal {path}: cannot read: {error}") from None
        # In a folder it may not write to, SQLite cannot make the -shm file that a WAL
        # reader needs; with no -wal file beside it the database file holds every record,
        # and reading it as immutable needs none.
        try:
            db, tables = _open_and_list_tables(uri + "&immutable=1", path)
        except sqlite3.OperationalError as again:
            raise JournalError(f"journal {path}: cannot read: {again}") from None
    if not tables:
        db.close()
        raise NoJournalError(f"{path} is empty: not a dealtable journal")
    if not tables.issuperset(JOURNAL_TABLES):
        db.close()
        raise _not_a_journal(path, tables)
    try:
        _refuse_missing_columns(db, path, tables)
    except BaseException:
        db.close()
        raise
    return db


def _refuse_what_is_no_journal(path: Path) -> None:
    """Raise unless the file is a journal, or nothing yet (missing or empty): only reads."""
    with contextlib.suppress(NoJournalError):
        _connect_read_only(path).close()


def _open_and_list_tables(uri: str, path: Path) -> tuple[sqlite3.Connection, set[str]]:
    db = sqlite3.connect(uri, uri=True, check_same_thread=False)
    try:
        return db, _tables(db, path)
    except BaseException:
        db.close()
        raise


# A command's request id, kept with the last event it made; the first time counts.
_REMEMBER_REQUEST = "INSERT OR IGNORE INTO requests (request_id, seq) VALUES (?, ?)"


def _create_tables(db: sqlite3.Connection) -> None:
    """The tables a journal lacks (all of them in a new file), in one transaction, so that a
    reader sees either no journal or a whole one."""
    try:
        db.executescript(
            f"BEGIN IMMEDIATE; {_SCHEMA} INSERT OR IGNORE INTO meta (key, value) "
            f"VALUES ('format', '{NEW_FORMAT}'); {_COMMITS_FROM} COMMIT;"
        )
    except sqlite3.DatabaseError:
        if db.in_transaction:
            db.execute("ROLLBACK")
        raise


def record_hash(prev_hash: str, body: str) -> str:
    return hashlib.sha256(f"{prev_hash}\n{body}".encode()).hexdigest()


def canonical_body(event: Event) -> str:
    """The event's JSON as stored and hashed: keys in the codec's order, no spaces."""
    return json.dumps(event_to_json(event), ensure_ascii=False, separators=(",", ":"))


@dataclass(frozen=True)
class Broken:
    """The first record that breaks the chain, and why."""

    seq: int
    reason: str

    def __str__(self) -> str:
        return f"record {self.seq}: {self.reason}"


READING_ADVICE = (
    "dealtable reads nothing from a damaged journal: keep the file as it is for inspection"
)


class JournalDamagedError(JournalError):
    """A journal whose hash chain is broken: a record missing, edited or unreadable."""

    def __init__(self, path: Path, broken: Broken, advice: str = READING_ADVICE) -> None:
        self.path = path
        self.broken = broken
        self.advice = advice
        super().__init__(f"journal {path} is damaged at {broken}; {advice}")

    def advised(self, advice: str) -> JournalDamagedError:
        """The same damage, with what to do about it where it was met."""
        return JournalDamagedError(self.path, self.broken, advice)


@dataclass(frozen=True)
class Opening:
    """Where a journal begins whose earlier records were moved to an archive file (see
    :meth:`Journal.archive`): its first record follows record ``after_seq``, whose hash it
    names. What the records moved took with them is kept here: the first record's hash,
    which names the table's events on MQTT, the game, and the rules last chosen."""

    after_seq: int
    after_hash: str
    first_hash: str
    game: str
    rules: str  # the stored body of the last rules_chosen moved, "" if none was
    # The newest coup results moved of the shoe in play (a continuous shuffler's never
    # ends), for the roads the pages draw.
    results: tuple[str, ...] = ()

    def to_json(self) -> str:
        return json.dumps(dataclasses.asdict(self), sort_keys=True)

    @classmethod
    def from_json(cls, path: Path, text: str) -> Opening:
        try:
            data = json.loads(text)
            if not isinstance(data, dict):
                raise ValueError(f"a JSON {type(data).__name__}, not an object")
            data["results"] = tuple(data.get("results", ()))
            opening = cls(**data)
            if not (isinstance(opening.after_seq, int) and opening.after_seq > 0):
                raise ValueError(f"after record {opening.after_seq!r}")
        except (ValueError, TypeError) as error:
            raise JournalDamagedError(
                path, Broken(1, f"where the journal begins is unreadable ({error})")
            ) from None
        return opening


class ChainCheck:
    """The hash chain followed record by record: each record must come next, name the hash
    of the one before, and still hash to what was written. A journal that begins after an
    archive's last record is followed from that record's hash."""

    def __init__(self, path: Path, opening: Opening | None = None) -> None:
        self.path = path
        self.last_seq = 0 if opening is None else opening.after_seq
        self.last_hash = GENESIS_HASH if opening is None else opening.after_hash

    def add(self, seq: int, body: str, prev_hash: str, stored_hash: str) -> None:
        expected = self.last_seq + 1
        if seq != expected:
            self._damaged(expected, f"missing (the next record is {seq})")
        if prev_hash != self.last_hash:
            self._damaged(seq, "does not follow the record before it (hash chain broken)")
        if record_hash(self.last_hash, body) != stored_hash:
            self._damaged(seq, "its content was changed after it was written")
        self.last_seq = seq
        self.last_hash = stored_hash

    def _damaged(self, seq: int, reason: str) -> NoReturn:
        raise JournalDamagedError(self.path, Broken(seq, reason))


# A checkpoint with the hash of the record it follows, to be held against it.
_CHECKPOINTS_HELD = (
    "SELECT checkpoints.seq, checkpoints.body, checkpoints.hash, events.hash "
    "FROM checkpoints LEFT JOIN events ON events.seq = checkpoints.seq"
)


def _held_against_its_record(row: Sequence[Any]) -> tuple[int, str, bool]:
    """A row of :data:`_CHECKPOINTS_HELD` as ``(seq, body, sound)``: sound when the body is
    as it was written after that record."""
    seq, body, stored, event_hash = row
    return int(seq), str(body), record_hash(str(event_hash), str(body)) == stored


def decode_record(path: Path, seq: int, body: str) -> Event:
    """The event a record holds; a record that holds none is damage, named by its seq."""
    try:
        data = json.loads(body)
        if not isinstance(data, dict):
            raise ValueError(f"a JSON {type(data).__name__}, not an event")
        event = event_from_json(data)
    except (ValueError, TypeError, KeyError) as error:  # TableError is a ValueError
        raise JournalDamagedError(path, Broken(seq, f"unreadable: {error}")) from None
    if event.seq != seq:
        raise JournalDamagedError(path, Broken(seq, f"holds event seq {event.seq}"))
    return event


def _check_columns(path: Path, event: Event, deal: object, type_name: object, at: object) -> None:
    """A record's deal, type and time columns, which history and the exports look it up by,
    are copies of what it holds; its hash covers the record alone, so a copy edited apart
    from it is found here."""
    for column, copied, held in (
        ("deal", deal, event.deal),
        ("type", type_name, event.type_name),
        ("time", at, event.at),
    ):
        if copied != held or type(copied) is not type(held):
            raise JournalDamagedError(
                path,
                Broken(
                    event.seq, f"edited: its {column} column says {copied!r}, its record {held!r}"
                ),
            )


def _is_damage(error: sqlite3.DatabaseError) -> bool:
    """SQLite found the file's pages malformed (an SD card's pages gone bad)."""
    return getattr(error, "sqlite_errorname", "") in ("SQLITE_CORRUPT", "SQLITE_NOTADB")


def _file_damaged(path: Path, seq: int, error: sqlite3.DatabaseError) -> JournalDamagedError:
    return JournalDamagedError(
        path, Broken(seq, f"unreadable: the journal's file is damaged ({error})")
    )


@dataclass(frozen=True)
class DealSummary:
    deal: int
    first_seq: int
    last_seq: int
    started_at: float
    cards: int
    splits: int
    ended: str  # "finished", "voided", "in progress" or CONTINUED


# How an archive's last deal or coup ends when its file ends first: the records that follow
# it, its cards or its lock, are the first of the next file.
CONTINUED = "continued in the next file"


class CardsTaken:
    """The cards a deal or coup has taken, each marked if it made its turn a split: a dealer's
    void or correction takes the last card back, and the split it made with it."""

    def __init__(self) -> None:
        self._split: list[bool] = []

    def take(self) -> None:
        self._split.append(False)

    def split(self) -> None:
        """The last card closed its turn as a split."""
        if self._split:
            self._split[-1] = True

    def take_back(self) -> None:
        if self._split:
            self._split.pop()

    @property
    def count(self) -> int:
        return len(self._split)

    @property
    def splits(self) -> int:
        return sum(self._split)


@dataclass(frozen=True)
class CoupSummary:
    """A baccarat coup: its events from the first bet on it to its settlement."""

    coup: int
    first_seq: int
    last_seq: int
    started_at: float
    cards: int
    result: CoupResult | None
    ended: str  # "settled", "voided", "in progress" or CONTINUED


@dataclass
class _DealTally:
    first_seq: int
    started_at: float
    last_seq: int = 0
    cards: CardsTaken = field(default_factory=CardsTaken)
    ended: str = "in progress"


@dataclass
class _CoupTally(_DealTally):
    result: CoupResult | None = None


_Tally = TypeVar("_Tally", bound=_DealTally)


_ALARM_TYPES = ("alarm_raised", "alarm_cleared")


def _continued(tallies: dict[int, _Tally], archive: bool) -> dict[int, _Tally]:
    """An archive's last deal or coup, if it was not over when the next file began, is not
    in progress: it is dealt on in that file."""
    if archive and tallies:
        last = tallies[max(tallies)]
        if last.ended == "in progress":
            last.ended = CONTINUED
    return tallies


# How long a write waits for a reader in its way (sqlite3's own default, five seconds).
BUSY_TIMEOUT_MS = 5000
# The bytes the journal's -wal file is cut back to when it is reset.
WAL_SIZE_LIMIT = 8 * 2**20
# How often the chain check at opening says how far it has got, in records.
CHECKED_EVERY = 10_000


class Journal:
    """An append-only SQLite journal of one table's events.

    Opened ``read_only``, it is read through a read-only SQLite connection: nothing is
    created, changed or checkpointed, and a file that is not a journal is refused untouched.
    """

    def __init__(
        self,
        path: str | Path,
        table_id: str | None = None,
        *,
        read_only: bool = False,
        lock: JournalLock | None = None,
        checking: Callable[[int], None] | None = None,
    ) -> None:
        """``checking`` hears how far the chain check at opening has got (a record number,
        every :data:`CHECKED_EVERY`): a long journal's start can say it is not hung."""
        self.path = Path(path)
        self._checking = checking
        self.read_only = read_only
        self._lock: JournalLock | None = None
        self._tables_missing = False
        self._names: list[tuple[int, str]] | None = None
        # Places a consumer reached that the disk would not take: archiving still waits for
        # them, until one is written or the journal closes.
        self._places_unwritten: dict[str, int] = {}
        self.opening: Opening | None = None
        # Told of each append before it is written; what they return rides in its transaction.
        self.riders: list[NoteRider] = []
        if not read_only:
            # Taken before the journal is written: a second service on it never writes a byte.
            self._lock = lock or JournalLock(self.path)
        try:
            self._db = _connect_read_only(self.path) if read_only else self._connect_for_writing()
        except BaseException:
            self._release_lock()
            raise
        try:
            if read_only:
                # One snapshot for every read: a service archiving meanwhile changes where the
                # journal begins and which records it holds together, never between two reads.
                self._db.execute("BEGIN")
            self._check_version()
            opening = self._meta("opening")
            self.opening = None if opening is None else Opening.from_json(self.path, opening)
            if not read_only:
                # Before anything is written: a table never deals on from a damaged journal.
                self.check_chain()
                self._db.execute("PRAGMA journal_mode=WAL")
                if self._tables_missing:
                    _create_tables(self._db)
            stored_table = self._meta("table")
            if stored_table is None and table_id is not None and not read_only:
                self._set_meta("table", table_id)
                stored_table = table_id
            elif table_id is not None and stored_table != table_id:
                raise JournalError(
                    f"journal {self.path} belongs to table {stored_table!r}, not {table_id!r}"
                )
            self.table_id = stored_table
            row = self._db.execute(
                "SELECT seq, hash FROM events ORDER BY seq DESC LIMIT 1"
            ).fetchone()
        except sqlite3.DatabaseError as error:
            self.close()
            if not _is_damage(error):
                raise JournalError(f"journal {self.path}: cannot open: {error}") from None
            raise _file_damaged(self.path, self.first_seq, error) from None
        except BaseException:
            self.close()
            raise
        self.last_seq: int = row[0] if row else 0
        self._last_hash: str = row[1] if row else GENESIS_HASH

    def _connect_for_writing(self) -> sqlite3.Connection:
        try:
            db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        except sqlite3.DatabaseError as error:
            raise JournalError(f"journal {self.path}: cannot open: {error}") from None
        try:
            # Looked at before anything is written: another program's database stays as it was.
            tables = _tables(db, self.path)
            if tables and not tables.issuperset(JOURNAL_TABLES):
                raise _not_a_journal(self.path, tables)
            _refuse_missing_columns(db, self.path, tables)
            db.execute("PRAGMA synchronous=FULL")
            # The -wal file that an archiving's deletions fill is cut back when it is reset.
            db.execute(f"PRAGMA journal_size_limit={WAL_SIZE_LIMIT}")
            # A journal there already is put in WAL mode, and given the tables a newer
            # dealtable keeps, once its chain is found sound: a damaged one is left byte for
            # byte as it was.
            self._tables_missing = bool(tables) and not tables.issuperset(_ALL_TABLES)
            if not tables:
                db.execute("PRAGMA journal_mode=WAL")
                _create_tables(db)
        except sqlite3.DatabaseError as error:
            db.close()
            raise JournalError(f"journal {self.path}: cannot open: {error}") from None
        except BaseException:
            db.close()
            raise
        return db

    def _check_version(self) -> None:
        stored = self._meta("format")
        if stored is None:
            if not self.read_only:
                self._set_meta("format", str(NEW_FORMAT))
            return
        try:
            version = int(stored)
        except ValueError:
            raise JournalError(f"journal {self.path}: unreadable format {stored!r}") from None
        if version > FORMAT_VERSION:
            raise JournalError(
                f"journal {self.path} was written in format {version} by a newer dealtable; "
                f"this one reads format {FORMAT_VERSION}: upgrade dealtable, the file is untouched"
            )

    def _meta(self, key: str) -> str | None:
        row = self._db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def _set_meta(self, key: str, value: str) -> None:
        self._write("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, value))

    def _write(self, sql: str, parameters: tuple[Any, ...]) -> None:
        """One statement that writes: a disk full or failing is a JournalError, as it is for
        an append, never a bare SQLite error out of the service's loop."""
        try:
            self._db.execute(sql, parameters)
        except sqlite3.DatabaseError as error:
            raise JournalError(f"journal {self.path}: cannot write: {error}") from None

    @contextlib.contextmanager
    def _reading(self, what: str) -> Iterator[None]:
        """A read that fails (a disk read error, a page gone bad) is a JournalError, as a
        failed write is: never a bare SQLite error out of the service's loop."""
        try:
            yield
        except sqlite3.DatabaseError as error:
            raise JournalError(f"journal {self.path}: cannot read {what}: {error}") from None

    def close(self) -> None:
        self._db.close()
        self._release_lock()

    def _release_lock(self) -> None:
        if self._lock is not None:
            self._lock.release()
            self._lock = None

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- writing --------------------------------------------------------------------------

    def append(self, events: Sequence[Event], request_id: str | None = None) -> None:
        """Append the events of one command in one transaction: all of them or none. A
        command sent with a request id keeps it in the same transaction, so a service that
        dies just after cannot carry the command out again when it comes back; so do the
        notes the :attr:`riders` give for it."""
        if not events:
            if request_id is not None:
                self.remember_request(request_id, self.last_seq)
            return
        rows = []
        prev_hash = self._last_hash
        expected = self.last_seq + 1
        for event in events:
            if event.seq != expected:
                raise JournalError(
                    f"journal {self.path}: event {event.type_name} has seq {event.seq}, "
                    f"expected {expected}; nothing written"
                )
            body = canonical_body(event)
            digest = record_hash(prev_hash, body)
            rows.append((event.seq, event.deal, event.type_name, event.at, body, prev_hash, digest))
            prev_hash = digest
            expected += 1
        notes = [
            (f"note:{key}", text)
            for rider in self.riders
            for key, text in rider(request_id, expected - 1).items()
        ]
        try:
            self._db.execute("BEGIN IMMEDIATE")
            self._db.executemany(
                "INSERT INTO events (seq, deal, type, at, body, prev_hash, hash) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                rows,
            )
            if request_id is not None:
                self._db.execute(_REMEMBER_REQUEST, (request_id, expected - 1))
            self._db.executemany("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", notes)
            # A command's events end here: a journal carried on from a damaged one ends where
            # a command ended, never amid its consequences.
            self._db.execute("INSERT INTO commits (seq) VALUES (?)", (expected - 1,))
            self._db.execute("COMMIT")
        except sqlite3.DatabaseError as error:
            if self._db.in_transaction:
                self._db.execute("ROLLBACK")
            raise JournalError(f"journal {self.path}: cannot append: {error}") from None
        self.last_seq = expected - 1
        self._last_hash = prev_hash

    # --- reading --------------------------------------------------------------------------

    def events(
        self, after_seq: int = 0, deal: int | None = None, upto: int | None = None
    ) -> Iterator[Event]:
        """Events in seq order, after ``after_seq`` and up to ``upto`` (and of one deal if
        given)."""
        where, parameters = "seq > ?", [after_seq]
        if upto is not None:
            where, parameters = f"{where} AND seq <= ?", [*parameters, upto]
        if deal is not None:
            where, parameters = f"{where} AND deal = ?", [*parameters, deal]
        cursor = self._db.execute(
            f"SELECT seq, body FROM events WHERE {where} ORDER BY seq",
            parameters,
        )
        for seq, body in cursor:
            yield decode_record(self.path, seq, body)

    def bodies(self, after_seq: int = 0, limit: int = 1000) -> list[tuple[int, str]]:
        """Stored JSON of events after ``after_seq``, at most ``limit``: what the outbox sends."""
        cursor = self._db.execute(
            "SELECT seq, body FROM events WHERE seq > ? ORDER BY seq LIMIT ?", (after_seq, limit)
        )
        return [(int(seq), str(body)) for seq, body in cursor]

    def cursor(self, name: str) -> int:
        row = self._db.execute("SELECT seq FROM cursors WHERE name = ?", (name,)).fetchone()
        return 0 if row is None else int(row[0])

    def set_cursor(self, name: str, seq: int) -> None:
        """Remember how far a consumer (the MQTT outbox) has got; it only moves forward. A
        place the disk will not take is held here meanwhile, and archiving waits for it."""
        try:
            self._write(
                "INSERT INTO cursors (name, seq) VALUES (?, ?) "
                "ON CONFLICT (name) DO UPDATE SET seq = MAX(seq, excluded.seq)",
                (name, seq),
            )
        except JournalError:
            self._places_unwritten[name] = max(seq, self._places_unwritten.get(name, seq))
            raise
        self._places_unwritten.pop(name, None)

    def drop_cursor(self, name: str) -> int | None:
        """Forget a consumer's place (an outbox whose broker is no longer used), so that it
        holds no record back from archiving; where it had got to, or None if it had none."""
        had = self._optional_rows("SELECT seq FROM cursors WHERE name = ?", (name,))
        self._places_unwritten.pop(name, None)
        if not had:
            return None
        self._write("DELETE FROM cursors WHERE name = ?", (name,))
        return int(had[0][0])

    def keep_note(self, key: str, text: str) -> None:
        """Keep what a part of the service must find again after a restart and that is no
        fact of the table's (the cards a reader holds until the dealer answers it)."""
        self._set_meta(f"note:{key}", text)

    def note(self, key: str) -> str | None:
        return self._meta(f"note:{key}")

    def remember_request(self, request_id: str, seq: int) -> None:
        """A command's request id, kept so that a replayed request is refused even after a
        restart."""
        self._write(_REMEMBER_REQUEST, (request_id, seq))

    def request_seq(self, request_id: str) -> int | None:
        row = self._db.execute(
            "SELECT seq FROM requests WHERE request_id = ?", (request_id,)
        ).fetchone()
        return None if row is None else int(row[0])

    def last_request_starting(self, prefix: str) -> tuple[str, int] | None:
        """The newest request id that begins with ``prefix``, and the last record of its
        command; None if there is none (a journal written before requests were kept)."""
        rows = self._optional_rows(
            "SELECT request_id, seq FROM requests WHERE substr(request_id, 1, ?) = ? "
            "ORDER BY seq DESC LIMIT 1",
            (len(prefix), prefix),
        )
        return (str(rows[0][0]), int(rows[0][1])) if rows else None

    def seqs_of_request(self, last: int) -> list[int]:
        """The records a command's append wrote, given the last (its request's seq): from the
        append before it on; ``[last]`` alone where the journal no longer tells (archived, or
        written before it kept where appends end)."""
        if last < self.first_seq or not self._optional_rows(
            "SELECT 1 FROM commits WHERE seq = ?", (last,)
        ):
            return [last]
        before, _ = self._last_commit(last - 1)
        return list(range(max(before, self.first_seq - 1) + 1, last + 1))

    def verify(self) -> Broken | None:
        """Check every record against its body and the record before, and that it holds an
        event; None if all is sound."""
        try:
            self._follow_chain(decode=True)
        except JournalDamagedError as damaged:
            return damaged.broken
        return None

    def check_chain(self) -> None:
        """Raise :class:`JournalDamagedError` at the first record missing, edited or out of
        the chain. Only hashes: a fraction of the time :meth:`verify` takes to decode too."""
        self._follow_chain(decode=False)

    def _follow_chain(self, decode: bool) -> None:
        chain = ChainCheck(self.path, self.opening)
        checking = self._checking
        try:
            # The first records are read as the query starts: inside, so that their page
            # gone bad is damage named like any other.
            cursor = self._db.execute(
                "SELECT seq, body, prev_hash, hash, deal, type, at FROM events ORDER BY seq"
            )
            for seq, body, prev_hash, stored_hash, deal, type_name, at in cursor:
                chain.add(seq, body, prev_hash, stored_hash)
                if decode:
                    event = decode_record(self.path, seq, body)
                    _check_columns(self.path, event, deal, type_name, at)
                if checking is not None and seq % CHECKED_EVERY == 0:
                    checking(seq)
        except sqlite3.DatabaseError as error:
            # The file itself is damaged (an SD card's pages gone bad): the records from the
            # first one not read are lost to the chain.
            raise _file_damaged(self.path, chain.last_seq + 1, error) from None
        # A chain cannot show records cut from its end; the outbox's cursors can, as they
        # remember how far the journal was sent, and so can the appends that wrote them.
        # (A journal from before either table was kept has neither.)
        try:
            beyond = [
                (f"its {name} outbox had sent up to", int(seq))
                for name, seq in self._optional_rows(
                    "SELECT name, seq FROM cursors WHERE seq > ? ORDER BY seq DESC LIMIT 1",
                    (chain.last_seq,),
                )
            ] + [
                ("its appends had reached", int(seq))
                for (seq,) in self._optional_rows(
                    "SELECT seq FROM commits WHERE seq > ? ORDER BY seq DESC LIMIT 1",
                    (chain.last_seq,),
                )
            ]
        except sqlite3.DatabaseError as error:
            # The pages that tell how far the journal went are bad: records after its last
            # may be lost with them.
            raise _file_damaged(self.path, chain.last_seq + 1, error) from None
        if beyond:
            reached, seq = beyond[0]
            raise JournalDamagedError(
                self.path,
                Broken(
                    chain.last_seq + 1,
                    f"missing: the journal ends at record {chain.last_seq}, but {reached} "
                    f"record {seq} (records were cut from its end)",
                ),
            )

    # --- checkpoints -----------------------------------------------------------------------

    def save_checkpoint(self, seq: int, body: str, *, archiving: bool = False) -> None:
        """Keep the table's state after record ``seq`` (see :mod:`table.checkpoints`). It is
        chained to that record's hash, so a checkpoint edited or set beside another record is
        not read; older checkpoints than the last :data:`CHECKPOINTS_KEPT` are dropped, but
        for the one after a journal's first record where its earlier records were archived:
        the table is rebuilt from there, its records before being gone; and for the one an
        archived range's records leave the journal up to, or an archive written aside ends
        before. Where its records are
        ``archiving`` (``[table] archive_every``), the older stay too, at least
        :data:`DROP_STEP_RECORDS` apart, for the records to leave a step at a time."""
        try:
            record = self.hash_of(seq)
            if record is None:
                raise JournalError(f"journal {self.path}: no record {seq} to keep a checkpoint of")
            kept = (self.first_seq, *(int(self._meta(key) or 0) for key in _KEPT_FOR))
            self._db.execute("BEGIN IMMEDIATE")
            self._db.execute(
                "INSERT OR REPLACE INTO checkpoints (seq, body, hash) VALUES (?, ?, ?)",
                (seq, body, record_hash(record, body)),
            )
            if archiving:
                # The one the newest pushed out of the kept goes if it follows the one
                # before too closely.
                self._db.execute(
                    "DELETE FROM checkpoints WHERE seq = (SELECT seq FROM checkpoints "
                    "ORDER BY seq DESC LIMIT 1 OFFSET ?) AND seq - (SELECT seq FROM checkpoints "
                    "ORDER BY seq DESC LIMIT 1 OFFSET ?) < ? AND seq NOT IN (?, ?, ?)",
                    (CHECKPOINTS_KEPT, CHECKPOINTS_KEPT + 1, DROP_STEP_RECORDS, *kept),
                )
            else:
                self._db.execute(
                    "DELETE FROM checkpoints WHERE seq NOT IN "
                    "(SELECT seq FROM checkpoints ORDER BY seq DESC LIMIT ?) "
                    "AND seq NOT IN (?, ?, ?)",
                    (CHECKPOINTS_KEPT, *kept),
                )
            self._db.execute("COMMIT")
        except sqlite3.DatabaseError as error:
            if self._db.in_transaction:
                self._db.execute("ROLLBACK")
            raise JournalError(f"journal {self.path}: cannot keep a checkpoint: {error}") from None

    def checkpoints(self, *, skip: int = 0, most: int = -1) -> list[tuple[int, str, bool]]:
        """The checkpoints kept, newest first: ``(seq, body, sound)``, sound when the body is
        as it was written after the record ``seq`` the chain holds now; past the newest
        ``skip``, ``most`` of them (all by default)."""
        with self._reading("its checkpoints"):
            rows = self._optional_rows(
                f"{_CHECKPOINTS_HELD} WHERE checkpoints.seq <= ? "
                "ORDER BY checkpoints.seq DESC LIMIT ? OFFSET ?",
                (self.last_seq, most, skip),
            )
        return [_held_against_its_record(row) for row in rows]

    def newest_checkpoints(self, upto: int) -> Iterator[tuple[int, str, bool]]:
        """The checkpoints kept at or before record ``upto``, newest first, as
        :meth:`checkpoints` gives them, read one at a time as they are asked for: a start
        reads the newest it can resume from and no older, where a journal archived a deck at
        a time keeps every deck's."""
        below = min(upto, self.last_seq) + 1
        while True:
            with self._reading("its checkpoints"):
                rows = self._optional_rows(
                    f"{_CHECKPOINTS_HELD} WHERE checkpoints.seq < ? "
                    "ORDER BY checkpoints.seq DESC LIMIT 1",
                    (below,),
                )
            if not rows:
                return
            checkpoint = _held_against_its_record(rows[0])
            yield checkpoint
            below = checkpoint[0]

    # --- archiving ---------------------------------------------------------------------

    def archivable_upto(self) -> int:
        """The last record that may move to an archive: every record before the older of
        the two newest sound checkpoints (a start reads the newer, or the older if the newer
        is found damaged), the journal beginning where a checkpoint is, once the MQTT outbox
        has sent them all. The journal's first record less one when nothing may move."""
        begins = self.first_seq - 1
        upto = self.before_spare_checkpoint()
        if upto <= begins or self.outbox_holds_back(upto) is not None:
            return begins
        return upto

    def _sound_checkpoints(self, most: int) -> list[int]:
        """The records the newest ``most`` sound checkpoints follow, newest first, read no
        further back than they lie (a journal archived a deck at a time keeps every deck's)."""
        sound = (seq for seq, _, is_sound in self.newest_checkpoints(self.last_seq) if is_sound)
        return list(itertools.islice(sound, most))

    def _keeps_sound_checkpoint(self, seq: int) -> bool:
        """A sound checkpoint is kept after record ``seq``: read alone, not among every
        deck's."""
        with self._reading("its checkpoints"):
            rows = self._optional_rows(
                f"{_CHECKPOINTS_HELD} WHERE checkpoints.seq = ? AND checkpoints.seq <= ?",
                (seq, self.last_seq),
            )
        return bool(rows) and _held_against_its_record(rows[0])[2]

    def before_spare_checkpoint(self) -> int:
        """The last record before the older of the two newest sound checkpoints (0 if the
        journal has not two)."""
        sound = self._sound_checkpoints(CHECKPOINTS_KEPT)
        return sound[CHECKPOINTS_KEPT - 1] - 1 if len(sound) >= CHECKPOINTS_KEPT else 0

    def outbox_holds_back(self, upto: int | None = None) -> int | None:
        """How far the MQTT outbox has sent, when it has not yet sent every record to
        ``upto`` (by default, before the spare checkpoint): a broker away; an outbox no
        longer used keeps its place too."""
        upto = self.before_spare_checkpoint() if upto is None else upto
        places = [*self._places_unwritten.values()]
        with self._reading("how far its MQTT outbox has sent"):
            sent_places = self._optional_rows("SELECT MIN(seq) FROM cursors", ())
        for (sent,) in sent_places:
            if sent is not None:
                places.append(int(sent))
        sent_upto = min(places, default=upto)
        return sent_upto if sent_upto < upto else None

    def archive(self, folder: str | Path) -> Archived | None:
        """Move the records that may go (:meth:`archivable_upto`) to a new journal file in
        ``folder``, and begin this one after them; None if none may go.

        The archive is a journal of its own, its records byte for byte with their hashes,
        read by every tool that reads a journal: it is written beside, its chain checked, and
        moved into place, synced, before a record leaves this journal, so that a failure or a
        power cut at any step loses none. An archive of the same records found in place
        (the journal was not trimmed after it, or only partly) is taken as written. This
        journal keeps what
        the records took with them (:class:`Opening`), and its file stays the size it was,
        its free pages filled again by the records that follow."""
        if self.read_only:
            raise JournalError(f"journal {self.path} is open read-only: nothing is archived")
        with self._reading("the records to archive"):
            archived = self._write_archive_of(Path(folder), self.archivable_upto())
        if archived is not None:
            self.drop_archived(archived)
        return archived

    def archive_aside(self, folder: str | Path, upto: int) -> ArchiveAside:
        """The slow half of :meth:`archive` (the archive written, its chain checked, moved
        into place), to run on a thread of its own while the table deals on: the records to
        ``upto`` (at most :meth:`archivable_upto`, asked on the table's thread) are read
        through a connection of its own, under one read of the journal, which never holds up
        a write to it. The records leave the journal after, on the table's thread
        (:meth:`drop_archived`)."""
        if self.read_only:
            raise JournalError(f"journal {self.path} is open read-only: nothing is archived")
        self._set_meta(_ARCHIVING_TO, str(upto + 1))
        return ArchiveAside(self, Path(folder), upto)

    def _write_archive_of(self, folder: Path, upto: int) -> Archived | None:
        """The archive of the records from the first to ``upto`` in ``folder``, written or
        found in place; None if there are none. One whose records have partly left the
        journal already is always the one taken: the rest of them leave after."""
        first = self.first_seq
        with self._reading_archives(folder):
            partly = self._archive_partly_dropped(folder)
        if partly is not None:
            return partly
        if upto < first:
            return None
        try:
            if not folder.is_dir():
                if self.opening is not None:
                    # It was there for the archives before: made again, it would be made on
                    # the disk beneath an unmounted one, filling it with archives the disk
                    # hides once it is back.
                    raise JournalError(
                        f"journal {self.path}: cannot archive to {folder}: the folder is not "
                        f"there, and the journal's records before record {first} were "
                        "archived: if the disk it is on is unmounted, mount it; if it is to be "
                        "a new folder, make it"
                    )
                folder.mkdir(parents=True)
                _sync_folder(folder.parent)
            found, last = self._archive_in_place(folder)
            if found is not None and self._keeps_sound_checkpoint(last + 1):
                target, upto = found, last
            else:
                if found is not None:
                    # A copy of records this journal still holds, cut where it keeps no
                    # checkpoint any more (cut short a deck or more ago): written anew.
                    found.unlink()
                target = folder / f"{self.path.stem}-{first:010d}-{upto:010d}.sqlite"
                self._write_archive(target, first, upto)
        except OSError as error:
            raise JournalError(
                f"journal {self.path}: cannot archive to {folder}: {error}"
            ) from None
        return Archived(target, first, upto)

    def drop_archived(self, archived: Archived) -> None:
        """The records an archive written and in place holds leave the journal (those still
        here), in one transaction (half a second for 100,000 records on a laptop): stopped
        before, the start finishes it (:meth:`finish_archiving`). A table dealing on drops
        them a step at a time instead (:meth:`drop_archived_step`)."""
        self._check_drop(archived)
        if self.first_seq <= archived.last_seq:
            with self._reading("the records to archive"):
                self._begin_after(archived.last_seq, archived)

    def drop_archived_step(self, archived: Archived) -> bool:
        """One step of the records an archive written and in place holds leave the journal,
        in one transaction: from its first record up to, not including, the next that
        carries a sound checkpoint (a deck's or shoe's, see :meth:`save_checkpoint`), so
        that after each the journal begins at a checkpoint, as a start, ``verify`` and
        :func:`carry_on` want it. True once the last has left. Stopped between two, the
        journal begins inside the archive: the next archiving, or the start, finishes."""
        self._check_drop(archived)
        end = archived.last_seq + 1
        if self.first_seq >= end:
            return True
        with self._reading("the records to archive"):
            step_to, after = None, self.first_seq
            while step_to is None:
                # One at a time, each query done with: a statement left open would hold the
                # -wal file from being reset, and it would grow by each step's deletions.
                row = self._db.execute(
                    "SELECT checkpoints.seq, checkpoints.body, checkpoints.hash, events.hash "
                    "FROM checkpoints JOIN events ON events.seq = checkpoints.seq "
                    "WHERE checkpoints.seq > ? AND checkpoints.seq <= ? "
                    "ORDER BY checkpoints.seq LIMIT 1",
                    (after, end),
                ).fetchone()
                if row is None:
                    break
                after = int(row[0])
                if record_hash(str(row[3]), str(row[1])) == row[2]:
                    step_to = after  # else not sound: not one to begin at
            if step_to is None:
                raise JournalError(
                    f"journal {self.path}: no sound checkpoint after record {archived.last_seq}, "
                    f"where the archive {archived.path} ends: its records stay in the journal"
                )
            self._begin_after(step_to - 1, archived)
        return step_to == end

    def _check_drop(self, archived: Archived) -> None:
        if not archived.first_seq <= self.first_seq <= archived.last_seq + 1:
            raise JournalError(
                f"journal {self.path}: the archive {archived.path} holds records "
                f"{archived.first_seq} to {archived.last_seq}, and the journal begins at "
                f"{self.first_seq}: nothing dropped"
            )

    def finish_archiving(self, folder: str | Path) -> Archived | None:
        """Begin after the records an archive in ``folder`` holds, when an archiving was cut
        short (a power cut) once the archive was in place and before all its records left: the
        archives and the journal then chain from file to file again, with no record in two
        files, from the start on rather than from the next deck. None if there is no such
        archive, or it does not end where the journal keeps a sound checkpoint (the next
        archiving writes it again)."""
        archived = self.archiving_to_finish(folder)
        if archived is not None:
            self.drop_archived(archived)
        return archived

    def archiving_to_finish(self, folder: str | Path) -> Archived | None:
        """The archive in ``folder`` whose records are still in this journal, all or some,
        when an archiving was cut short once the archive was in place (see
        :meth:`finish_archiving`); nothing leaves the journal here."""
        if self.read_only:
            raise JournalError(f"journal {self.path} is open read-only: nothing is archived")
        folder = Path(folder)
        with self._reading_archives(folder):
            partly = self._archive_partly_dropped(folder)
            found, last = (None, 0) if partly is not None else self._archive_in_place(folder)
        if partly is not None:
            return partly
        first = self.first_seq
        with self._reading("the records to archive"):
            if found is None or not self._keeps_sound_checkpoint(last + 1):
                return None
            if last > self.archivable_upto():
                return None
        return Archived(found, first, last)

    @contextlib.contextmanager
    def _reading_archives(self, folder: Path) -> Iterator[None]:
        """The folder of the archives read, a failure named as a JournalError."""
        try:
            yield
        except OSError as error:
            raise JournalError(
                f"journal {self.path}: cannot read the archives in {folder}: {error}"
            ) from None

    def _archive_in_place(self, folder: Path) -> tuple[Path | None, int]:
        """The archive in ``folder`` of this journal's records from its first on, and its
        last record; ``(None, 0)`` if there is none."""
        first = self.first_seq
        found = sorted(folder.glob(f"{self.path.stem}-{first:010d}-*.sqlite"))
        if not found:
            return None, 0
        return found[0], self._archived_already(found[0], first)

    def _archive_partly_dropped(self, folder: Path) -> Archived | None:
        """The archive in ``folder`` whose first records have left this journal and its
        last not yet (stopped between two steps of :meth:`drop_archived_step`), if any."""
        first = self.first_seq
        if self.opening is None or not folder.is_dir():
            return None
        name = re.compile(rf"{re.escape(self.path.stem)}-(\d{{10}})-(\d{{10}})\.sqlite")
        for candidate in sorted(folder.iterdir()):
            matched = name.fullmatch(candidate.name)
            if matched and int(matched[1]) < first <= int(matched[2]):
                last = self._archived_already(candidate, first)
                return Archived(candidate, int(matched[1]), last)
        return None

    def _archived_already(self, found: Path, first: int) -> int:
        """The last record of an archive in place that holds this journal's records from
        ``first`` (or from before, those having left the journal), as this journal holds
        them; refused if it is another's."""
        try:
            with Journal(found, read_only=True) as archived:
                archived.check_chain()
                last = archived.last_seq
                same = archived.hash_of(last) == self.hash_of(last) and (
                    archived.first_seq == first
                    or (
                        archived.first_seq < first
                        and self.opening is not None
                        and archived.hash_of(first - 1) == self.opening.after_hash
                    )
                )
        except JournalError as error:
            raise JournalError(
                f"{found} is in the way of the archive of journal {self.path}: {error}"
            ) from None
        if not same:
            raise JournalError(
                f"{found} is in the way of the archive of journal {self.path}: it holds other "
                "records; move it away"
            )
        return last

    def _write_archive(self, target: Path, first: int, upto: int) -> None:
        stem = re.escape(self.path.stem)
        copying = re.compile(rf"\.{stem}-\d{{10}}-\d{{10}}\.sqlite\.\d+\.archiving")
        for stale in target.parent.iterdir():
            if copying.match(stale.name):
                # A copy cut short (its -journal too): the lock says no one else archives
                # this journal.
                stale.unlink(missing_ok=True)
        beside = target.with_name(f".{target.name}.{os.getpid()}.archiving")
        try:
            # One file with no -wal beside it, as a copy to carry away: on a network folder
            # too, and needing no more room than the records take.
            with closing(sqlite3.connect(beside, isolation_level=None)) as fresh:
                fresh.execute("PRAGMA journal_mode=DELETE")
                _create_tables(fresh)
                kept = {key: self._meta(key) for key in ("table", "commits_from", "names")}
                if self.opening is not None:
                    kept.update(_begins_later(self.opening))
                kept["archived_from"] = str(self.path.resolve())
                fresh.executemany(
                    "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
                    [(key, value) for key, value in kept.items() if value is not None],
                )
            self._copy_records_to(beside, first, upto)
            with Journal(beside, read_only=True) as copied:
                copied.check_chain()
                if copied.last_seq != upto or copied.hash_of(upto) != self.hash_of(upto):
                    raise JournalError(f"{beside}: the copy does not end at record {upto}")
            _nothing_at(target, "archive a journal")
            os.replace(beside, target)
            _sync_folder(target.parent)
        except sqlite3.DatabaseError as error:
            raise JournalError(f"journal archive {target}: cannot write: {error}") from None
        finally:
            for leftover in (beside, *_sqlite_files(beside), Path(f"{beside}-journal")):
                leftover.unlink(missing_ok=True)

    def _copy_records_to(self, archive: Path, first: int, upto: int) -> None:
        """Records ``first`` to ``upto``, with where their commands ended, their request ids
        and the checkpoint a journal that begins later is rebuilt from, copied in one
        transaction inside SQLite: a year's records are never all held in memory at once."""
        db = self._db
        db.execute("ATTACH DATABASE ? AS archive", (str(archive),))
        try:
            db.execute("PRAGMA archive.synchronous=FULL")
            # Deferred: only the archive is written, and the journal's own writers go on.
            db.execute("BEGIN")
            db.execute(
                "INSERT INTO archive.events SELECT seq, deal, type, at, body, prev_hash, hash "
                "FROM main.events WHERE seq BETWEEN ? AND ? ORDER BY seq",
                (first, upto),
            )
            db.execute(
                "INSERT INTO archive.commits SELECT seq FROM main.commits WHERE seq <= ?", (upto,)
            )
            db.execute(
                "INSERT INTO archive.requests SELECT request_id, seq FROM main.requests "
                "WHERE seq BETWEEN ? AND ?",
                (first, upto),
            )
            if self.opening is not None:
                db.execute(
                    "INSERT INTO archive.checkpoints SELECT seq, body, hash "
                    "FROM main.checkpoints WHERE seq = ?",
                    (first,),
                )
            db.execute("COMMIT")
        except BaseException:
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise
        finally:
            db.execute("DETACH DATABASE archive")

    def _shoe_results_upto(self, upto: int) -> tuple[str, ...]:
        """The newest coup results, to record ``upto``, of the shoe in play then: since its
        last ``shoe_started``, or with those moved before if none is there."""
        (shoe,) = self._db.execute(
            "SELECT MAX(seq) FROM events WHERE type = 'shoe_started' AND seq <= ?", (upto,)
        ).fetchone()
        newest = self._db.execute(
            "SELECT body FROM events WHERE type = 'coup_result' AND seq > ? AND seq <= ? "
            "ORDER BY seq DESC LIMIT ?",
            (shoe or 0, upto, COUPS_SHOWN),
        ).fetchall()
        results = tuple(str(body) for (body,) in reversed(newest))
        if shoe is None and self.opening is not None:
            results = (*self.opening.results, *results)
        return results[-COUPS_SHOWN:]

    def archived_results(self) -> list[Event]:
        """The newest coup results moved to an archive of the shoe in play when they moved
        (see :class:`Opening`)."""
        results = () if self.opening is None else self.opening.results
        return [event_from_json(json.loads(body)) for body in results]

    def _begin_after(self, upto: int, archived: Archived) -> None:
        """Drop the records to ``upto``, of those ``archived`` holds, in one transaction with
        the note of what they took with them."""
        rules = self._db.execute(
            "SELECT body FROM events WHERE type = 'rules_chosen' AND seq <= ? "
            "ORDER BY seq DESC LIMIT 1",
            (upto,),
        ).fetchall()
        opening = Opening(
            after_seq=upto,
            after_hash=str(self.hash_of(upto)),
            first_hash=str(self.first_hash()),
            # Said by the journal's first rules, a search of every record once archived.
            game=self.game() if self.opening is None else self.opening.game,
            rules=str(rules[0][0]) if rules else (self.opening.rules if self.opening else ""),
            results=self._shoe_results_upto(upto),
        )
        db = self._db
        try:
            db.execute("BEGIN IMMEDIATE")
            db.executemany(
                "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
                _begins_later(opening).items(),
            )
            if upto < archived.last_seq:
                db.execute(
                    "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
                    (_DROPPING_TO, str(archived.last_seq + 1)),
                )
            else:
                db.executemany("DELETE FROM meta WHERE key = ?", [(key,) for key in _KEPT_FOR])
            for table in ("events", "commits", "checkpoints"):
                db.execute(f"DELETE FROM {table} WHERE seq <= ?", (upto,))
            # A request id stays an archiving longer than its records (the archive has it
            # too): a command sent again, days later, is still refused, and the ids kept are
            # two archivings' worth at most.
            db.execute("DELETE FROM requests WHERE seq < ?", (archived.first_seq,))
            db.execute("COMMIT")
        except sqlite3.DatabaseError as error:
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise JournalError(
                f"journal {self.path}: archived to record {upto} but cannot drop them: {error}; "
                "the next archiving takes the archive as written"
            ) from None
        self.opening = opening
        self._names = None
        if upto < archived.last_seq:
            return
        # The deletions filled the -wal file: emptied now if no reader holds it (waiting for
        # one would hold the table up), else cut back at its next reset.
        db.execute("PRAGMA busy_timeout=0")
        try:
            with contextlib.suppress(sqlite3.DatabaseError):
                db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        finally:
            db.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")

    def last_event_of(self, type_name: str) -> Event | None:
        """The newest event of one type (``rules_chosen``), read without the others. The
        rules last chosen are found even when their record was archived."""
        newest = self.last_events_of(type_name, 1)
        if newest:
            return newest[0]
        if type_name == "rules_chosen" and self.opening is not None and self.opening.rules:
            return event_from_json(json.loads(self.opening.rules))
        return None

    def last_events_of(
        self, type_name: str, limit: int, after_seq: int = 0, upto: int | None = None
    ) -> list[Event]:
        """The newest ``limit`` events of one type after ``after_seq`` (and up to ``upto``),
        in seq order."""
        rows = self._db.execute(
            "SELECT seq, body FROM events WHERE type = ? AND seq > ? AND seq <= ? "
            "ORDER BY seq DESC LIMIT ?",
            (type_name, after_seq, self.last_seq if upto is None else upto, limit),
        ).fetchall()
        return [decode_record(self.path, int(seq), str(body)) for seq, body in reversed(rows)]

    def names(self) -> list[tuple[int, str]]:
        """What subscribers tell this journal's events by, as its seq numbers begin at 1 like
        any other journal's: ``(first seq, name)``, the start of its first record's hash from
        record 1, then a new name after each point it was carried on from (see
        :func:`carry_on`), as the records after it take seq numbers of events lost there."""
        if self._names is None:
            first = self.first_hash()
            given = json.loads(self._meta("names") or "[]")
            if first is None:
                return [(1, "")]  # nothing written, nothing published yet
            self._names = [(1, first[:NAME_DIGITS])] + [(int(at), str(name)) for at, name in given]
        return self._names

    def name_for(self, seq: int) -> str:
        """The name the event ``seq`` goes out under (see :meth:`names`)."""
        return next(name for first, name in reversed(self.names()) if first <= seq)

    def name(self) -> str:
        """The name the journal's next events go out under."""
        return self.name_for(self.last_seq + 1)

    def _sound_part(self) -> tuple[int, Broken | None]:
        """The last record before the first damage (a record missing, edited or holding no
        event, or records cut from the end), and that damage; None if all is sound."""
        try:
            self._follow_chain(decode=True)
        except JournalDamagedError as damaged:
            return damaged.broken.seq - 1, damaged.broken
        return self.last_seq, None

    def _last_commit(self, upto: int) -> tuple[int, bool]:
        """The last record at or before ``upto`` that ends an append (a command's events),
        and whether the journal knows: records written before it kept its commits do not
        tell where their commands ended."""
        commits_from = self._meta("commits_from")
        if commits_from is None or upto < int(commits_from) - 1:
            return upto, False
        row = self._db.execute("SELECT MAX(seq) FROM commits WHERE seq <= ?", (upto,)).fetchone()
        return max(int(commits_from) - 1, int(row[0] or 0)), True

    def _optional_rows(self, sql: str, parameters: tuple[Any, ...]) -> list[Any]:
        """Rows of a table an older journal may not have (its outbox, requests, checkpoints):
        none if the table is not there. Any other failure (a disk read error) is raised, for
        the caller's :meth:`_reading` to name: taken for "no rows", a cursor unread would let
        archiving pass records the outbox has not sent."""
        try:
            return self._db.execute(sql, parameters).fetchall()
        except sqlite3.OperationalError as error:
            if str(error).startswith(("no such table", "no such column")):
                return []
            raise

    def hash_of(self, seq: int) -> str | None:
        """The hash record ``seq`` carries, if there is one."""
        row = self._db.execute("SELECT hash FROM events WHERE seq = ?", (seq,)).fetchone()
        return None if row is None else str(row[0])

    def first_hash(self) -> str | None:
        """The hash of record 1: which journal this is, whatever its file is called, and
        even when record 1 was archived."""
        return self.hash_of(1) if self.opening is None else self.opening.first_hash

    @property
    def is_archive(self) -> bool:
        """An archive of a journal's records (see :meth:`archive`): a file that ends where
        the next one, an archive or the journal, begins."""
        return self._meta("archived_from") is not None

    @property
    def first_seq(self) -> int:
        """The journal's first record: 1, or the one after the last archived."""
        return 1 if self.opening is None else self.opening.after_seq + 1

    def records(self, after_seq: int = 0) -> list[tuple[int, str, str, str]]:
        """The stored records after ``after_seq``: seq, body, the hash before, its hash."""
        cursor = self._db.execute(
            "SELECT seq, body, prev_hash, hash FROM events WHERE seq > ? ORDER BY seq",
            (after_seq,),
        )
        return [(int(seq), str(body), str(prev), str(digest)) for seq, body, prev, digest in cursor]

    def deals(self) -> list[DealSummary]:
        """Every deal in the journal, oldest first."""
        rows = self._by_deal(
            "SELECT deal, seq, at, type, CASE type "
            "WHEN 'turn_closed' THEN json_extract(body, '$.split') "
            "WHEN 'dealer_correction' THEN json_extract(body, '$.undone') END "
            "FROM events WHERE deal > 0 ORDER BY seq"
        )
        deals: dict[int, _DealTally] = {}
        for deal, seq, at, kind, flag in rows:
            tally = deals.setdefault(deal, _DealTally(first_seq=seq, started_at=at))
            tally.last_seq = seq
            if kind == "card_dealt":
                tally.cards.take()
            elif kind == "turn_closed" and flag:
                tally.cards.split()
            elif kind == "dealer_correction" and flag:
                tally.cards.take_back()
                tally.ended = "in progress"  # the hoc taken back: the deal is not over
            elif kind in ("deal_finished", "deal_voided"):
                tally.ended = "finished" if kind == "deal_finished" else "voided"
        return [
            DealSummary(
                deal,
                tally.first_seq,
                tally.last_seq,
                tally.started_at,
                tally.cards.count,
                tally.cards.splits,
                tally.ended,
            )
            for deal, tally in sorted(_continued(deals, self.is_archive).items())
        ]

    def game(self) -> str:
        """The game the journal's table plays (``faro``, ``punto-banco``, ...)."""
        rows = self._query(
            "SELECT json_extract(body, '$.game') FROM events "
            "WHERE type = 'rules_chosen' ORDER BY seq LIMIT 1"
        )
        if rows and rows[0][0]:
            return str(rows[0][0])
        return "faro" if self.opening is None else self.opening.game

    def coups(self) -> list[CoupSummary]:
        """Every coup of a baccarat journal, oldest first.

        A record's ``deal`` is the coup in play, and between coups the coup to come: the bets
        on the next coup, and the burn or new shoe before it, are counted with it. An earlier
        dealtable gave those the number of the coup that ended: read so, they lead to the
        next coup all the same. The table's opening (rules, bank, seats) is no coup's.
        """
        rows = self._by_deal(
            "SELECT deal, seq, at, type, CASE type "
            "WHEN 'card_dealt' THEN json_extract(body, '$.role') "
            "WHEN 'dealer_correction' THEN json_extract(body, '$.undone') "
            "WHEN 'coup_result' THEN body END "
            "FROM events ORDER BY seq"
        )
        opened = self.opening is not None  # its records begin at a checkpoint, in a shoe
        over: set[int] = self._coup_over_before(rows) if opened else set()
        coups: dict[int, _CoupTally] = {}
        locked: set[int] = set()
        burns: list[bool] = []  # whether each card taken from the shoe so far was burned
        for deal, seq, at, kind, detail in rows:
            opened = opened or kind == "shoe_started"
            if not opened or kind == "reader_notice":
                continue  # a reader's news between coups opens no coup
            if kind == "bets_locked":
                locked.add(deal)
            # The coup that ended, for a record between it and the next lock: numbered with
            # the coup that ended (what ends it, or an earlier dealtable), or the coup to come.
            ended = (
                deal if deal in over else deal - 1 if deal - 1 in over and deal not in locked else 0
            )
            alarmed = kind in _ALARM_TYPES or (kind == "dealer_correction" and not detail)
            if alarmed and ended and ended + 1 not in coups:
                # An alarm between coups (a card dealt after the coup ended), and the dealer
                # voiding or correcting its card, open no coup: they are told with the coup
                # that ended, when this file holds it.
                if ended in coups:
                    coups[ended].last_seq = seq
                continue
            if kind == "shoe_started":
                burns.clear()
            taken_back = ""
            if kind == "dealer_correction" and detail:
                taken_back = "burn" if burns and burns.pop() else "card"
            if taken_back == "card" and deal in over and deal in coups:
                # The last card taken back after its coup ended: the coup is dealt on, and
                # the events since its end, its consequences, were undone with the card.
                over.discard(deal)
                coups.pop(deal + 1, None)
            if kind == "shoe_finished" and ended:
                coup = ended  # the shoe ends with the coup it follows
            elif deal == 0 or deal in over:
                coup = deal + 1
            else:
                coup = deal
            tally = coups.setdefault(coup, _CoupTally(first_seq=seq, started_at=at))
            tally.last_seq = seq
            if kind == "card_dealt":
                burns.append(detail == "burn")
                if detail != "burn":
                    tally.cards.take()
            elif taken_back == "card":
                tally.cards.take_back()
                tally.result, tally.ended = None, "in progress"
            elif kind == "coup_result":
                result = decode_record(self.path, seq, detail)
                tally.result = result if isinstance(result, CoupResult) else None
            elif kind in ("coup_finished", "deal_voided"):
                over.add(deal)
                tally.ended = "settled" if kind == "coup_finished" else "voided"
        return [
            CoupSummary(
                coup,
                tally.first_seq,
                tally.last_seq,
                tally.started_at,
                tally.cards.count,
                tally.result,
                tally.ended,
            )
            for coup, tally in sorted(_continued(coups, self.is_archive).items())
        ]

    @staticmethod
    def _coup_over_before(rows: list[Any]) -> set[int]:
        """The coup that had ended before an archived journal's first record, when it is a
        new shoe put in between coups and an earlier dealtable gave it the number of that
        coup: the next lock carries the following one. (A shoe put in to finish a coup is
        followed by that coup's cards before any lock; one numbered with the coup to come
        is followed by that coup's lock.)"""
        if not rows or rows[0][3] != "shoe_started":
            return set()
        coup = rows[0][0]
        for deal, _, _, kind, detail in rows[1:]:
            if kind == "bets_locked":
                if deal == coup:
                    return set()
                break
            if kind == "card_dealt" and detail != "burn" and deal == coup:
                return set()
        return {coup}

    def events_between(self, first_seq: int, last_seq: int) -> Iterator[Event]:
        """The events from ``first_seq`` to ``last_seq``, both included."""
        cursor = self._db.execute(
            "SELECT seq, body FROM events WHERE seq BETWEEN ? AND ? ORDER BY seq",
            (first_seq, last_seq),
        )
        for seq, body in cursor:
            yield decode_record(self.path, seq, body)

    def _by_deal(self, sql: str) -> list[Any]:
        """The rows of ``sql``, each beginning with a record's deal column, its seq and its
        time column: copies of what the record holds, which history reads without decoding
        it. One edited to another kind of value is named, not tripped over."""
        rows = self._query(sql)
        for row in rows:
            deal, seq, at = row[:3]
            for column, copied, kinds in (("deal", deal, (int,)), ("time", at, (int, float))):
                if type(copied) not in kinds:
                    raise JournalError(
                        f"journal {self.path}: record {seq}: edited: its {column} column says "
                        f"{copied!r}; dealtable verify {self.path} names every record so edited"
                    )
        return rows

    def _query(self, sql: str) -> list[Any]:
        try:
            return self._db.execute(sql).fetchall()
        except sqlite3.DatabaseError as error:
            # Only a record rewritten with its hashes can get past the chain and fail here.
            raise JournalError(
                f"journal {self.path}: a record cannot be read ({error}); "
                f"dealtable verify {self.path} names it"
            ) from None

    # --- export ---------------------------------------------------------------------------

    def export_jsonl(self, out: IO[str]) -> int:
        count = 0
        for _, body in self._all_bodies():
            out.write(body + "\n")
            count += 1
        return count

    def export_csv(self, out: IO[str]) -> int:
        writer = csv.writer(out)
        writer.writerow(
            [
                "seq",
                "deal",
                "type",
                "at",
                "punter",
                "spot",
                "outcome",
                "net",
                "card",
                "role",
                "turn",
                "json",
            ]
        )
        count = 0
        for seq, body in self._all_bodies():
            data = self._record_json(seq, body)
            writer.writerow(
                [
                    data["seq"],
                    data["deal"],
                    data["type"],
                    data["at"],
                    data.get("punter", ""),
                    data.get("spot", ""),
                    data.get("outcome", ""),
                    data.get("net", ""),
                    data.get("card", ""),
                    data.get("role", ""),
                    data.get("turn", ""),
                    body,
                ]
            )
            count += 1
        return count

    def _record_json(self, seq: int, body: str) -> dict[str, Any]:
        """A record's JSON, read without decoding the event: what a listing needs."""
        try:
            data = json.loads(body)
        except ValueError as error:
            raise JournalDamagedError(self.path, Broken(seq, f"unreadable: {error}")) from None
        if not isinstance(data, dict) or data.get("seq") != seq or not data.keys() >= _ENVELOPE:
            raise JournalDamagedError(self.path, Broken(seq, "unreadable: it holds no event"))
        return data

    def _all_bodies(self) -> Iterable[tuple[int, str]]:
        return self._db.execute("SELECT seq, body FROM events ORDER BY seq")


def folded_at(
    journal: Journal, seqs: Sequence[int], upto: int | None = None
) -> Iterator[tuple[int, Any]]:
    """The state the journal's records (to ``upto``) fold to after each of ``seqs``, in one
    pass over every record: one that does not fold is damage, named by its seq."""
    wanted = iter(seqs)
    next_seq = next(wanted, -1)
    state, after = _opening_state(journal)
    if after == next_seq:
        yield next_seq, state
        next_seq = next(wanted, -1)
    for event in journal.events(after_seq=after, upto=upto):
        try:
            state.apply(event)
        except Exception as error:  # a record no table could have written: named, not raised
            raise JournalDamagedError(
                journal.path, Broken(event.seq, f"it does not fold into the table ({error!r})")
            ) from None
        if event.seq == next_seq:
            yield next_seq, state
            next_seq = next(wanted, -1)


def _opening_state(journal: Journal) -> tuple[Any, int]:
    """The state the journal's records fold onto, and the record it follows: the empty
    table before record 1, or, in a journal that begins after an archive, the checkpoint
    after its first record (the records before it are not there to fold)."""
    from table.service.table_service import engine_for  # it reads the journal

    if journal.opening is None:
        return engine_for(journal.game()).replay([], journal.table_id).state, 0
    first = journal.first_seq
    for seq, body, sound in journal.checkpoints():
        if seq == first and sound:
            try:
                return table_from_checkpoint(body).state, first
            except CheckpointError as unreadable:
                reason = f"cannot be read ({unreadable})"
                break
    else:
        reason = "is missing or does not match that record"
    raise JournalDamagedError(
        journal.path,
        Broken(first, f"the checkpoint the table is rebuilt from after its first record {reason}"),
    )


def _unfolded(journal: Journal, upto: int) -> Broken | None:
    """The first record to ``upto`` that does not fold into the table (one rewritten with
    its hashes recomputed gets past the chain), as verify finds it; None if all fold."""
    try:
        for _ in folded_at(journal, (), upto):
            pass
    except JournalDamagedError as damaged:
        return damaged.broken
    return None


@dataclass(frozen=True)
class Recovered:
    """What :func:`carry_on` kept of a damaged journal."""

    first_seq: int  # the journal's first record: 1 unless those before were archived
    sound_upto: int  # records from the first to it, which end a command, are in the new journal
    broken: Broken  # the first damage
    left_out: int  # records after, which nothing can vouch for or which began a command
    whole_commands: bool  # the journal knew where its commands ended (Journal._last_commit)
    name: str  # what the new journal's events after ``sound_upto`` are named on MQTT


def carry_on(damaged: str | Path, new: str | Path) -> Recovered:
    """Copy the sound records of a damaged journal, the first to the last before the first
    damage that ends a command, into a new journal, byte for byte with their hashes, so a
    table run on it deals on from there. The damaged file is only read, and the new one
    appears whole or not at all.

    The new journal's next events take the seq numbers of events lost with the damage, which
    its outbox may have sent: they go out under a name of their own (:meth:`Journal.names`),
    so subscribers take none of them for a repeat. Checkpoints are not carried: a damaged
    file's are not trusted, and the first start folds every record, once. Only a journal
    whose first records were archived carries the checkpoint after its first record, sound
    against that record: the table is rebuilt from it, the records before being gone."""
    new = Path(new)
    _nothing_at(new, "carry a journal on")
    with Journal(damaged, read_only=True) as old:
        sound, broken = old._sound_part()
        unfolded = _unfolded(old, sound)
        if unfolded is not None:
            sound, broken = unfolded.seq - 1, unfolded
        if broken is None:
            raise JournalError(f"journal {old.path} is sound: deal on with it as it is")

        def readable(sql: str, parameters: tuple[Any, ...]) -> list[Any]:
            """Rows of a table beside the records, none where its pages have gone bad."""
            try:
                return old._optional_rows(sql, parameters)
            except sqlite3.DatabaseError:
                return []

        commits_from = old._meta("commits_from")
        try:
            sound_upto, whole_commands = old._last_commit(sound)
            commits = old._optional_rows("SELECT seq FROM commits WHERE seq <= ?", (sound_upto,))
        except sqlite3.DatabaseError:
            # Where the commands ended went with pages gone bad: told as for a journal
            # written before it was kept.
            sound_upto, whole_commands, commits, commits_from = sound, False, [], None
        opening, first = old.opening, old.first_seq
        if sound_upto < first:
            raise JournalError(
                f"journal {old.path} is damaged at {broken}: no sound record before it to "
                "carry on; start a new journal"
            )
        opening_checkpoint = []
        if opening is not None and old._keeps_sound_checkpoint(first):
            opening_checkpoint = old._optional_rows(
                "SELECT seq, body, hash FROM checkpoints WHERE seq = ?", (first,)
            )
        if opening is not None and not opening_checkpoint:
            raise JournalError(
                f"journal {old.path} is damaged at {broken}, and begins after archived records "
                f"with no sound checkpoint after its first record {first} to deal on from"
            )
        rows = old._db.execute(
            "SELECT seq, deal, type, at, body, prev_hash, hash FROM events WHERE seq <= ? "
            "ORDER BY seq",
            (sound_upto,),
        ).fetchall()
        try:
            after = old._db.execute("SELECT COUNT(*) FROM events WHERE seq > ?", (sound_upto,))
            left_out = int(after.fetchone()[0])
        except sqlite3.DatabaseError:
            # Pages of the file gone bad hold some of them: they are told by their numbers.
            left_out = old.last_seq - sound_upto
        cursors = readable("SELECT name, MIN(seq, ?) FROM cursors", (sound_upto,))
        requests = readable("SELECT request_id, seq FROM requests WHERE seq <= ?", (sound_upto,))
        table_id = old.table_id
        names = [(first, name) for first, name in old.names() if first <= sound_upto]
    given = _named_apart_after(names, sound_upto)
    name = str(given[-1][1])
    # Written beside, then moved into place: a copy cut short leaves no journal at ``new``,
    # and a second carry-on to it meanwhile is refused rather than replace this one's.
    beside = new.with_name(f".{new.name}.carrying")
    claim = _claim_beside(beside, new, "carry a journal on")
    try:
        with Journal(beside, table_id) as fresh:
            db = fresh._db
            db.execute("BEGIN IMMEDIATE")
            db.executemany(
                "INSERT INTO events (seq, deal, type, at, body, prev_hash, hash) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                rows,
            )
            db.executemany("INSERT INTO cursors (name, seq) VALUES (?, ?)", cursors)
            db.executemany("INSERT INTO requests (request_id, seq) VALUES (?, ?)", requests)
            db.executemany("INSERT INTO commits (seq) VALUES (?)", commits)
            if opening is not None:
                db.executemany(
                    "INSERT INTO checkpoints (seq, body, hash) VALUES (?, ?, ?)",
                    opening_checkpoint,
                )
                for key, value in _begins_later(opening).items():
                    fresh._set_meta(key, value)
            # The new journal knows where commands ended from where the old one did.
            fresh._set_meta("commits_from", commits_from or str(sound_upto + 1))
            fresh._set_meta("names", json.dumps(given))
            fresh._set_meta("carried_on_from", str(Path(damaged).resolve()))
            db.execute("COMMIT")
        _nothing_at(new, "carry a journal on")
        os.replace(beside, new)
    except sqlite3.DatabaseError as error:
        raise JournalError(f"journal {new}: cannot write: {error}") from None
    finally:
        lock_path(beside).unlink(missing_ok=True)
        _remove_beside(beside)
        os.close(claim)
    return Recovered(first, sound_upto, broken, left_out, whole_commands, name)


def archives_of(journal: str | Path, folder: str | Path) -> list[Path]:
    """The archives of ``journal`` in ``folder``, oldest first (as :meth:`Journal.archive`
    names them: the journal's name, then the first and last record, ten digits each)."""
    named = re.compile(rf"{re.escape(Path(journal).stem)}-\d{{10}}-\d{{10}}\.sqlite")
    return sorted(path for path in Path(folder).glob("*.sqlite") if named.fullmatch(path.name))


def archive_folder_beside(journal: str | Path) -> Path:
    """The archives' folder where none is named: beside the journal, named after it
    (``faro-1-archive`` for ``faro-1.sqlite``)."""
    path = Path(journal)
    return path.with_name(f"{path.stem}-archive")


@dataclass(frozen=True)
class Archived:
    """What :meth:`Journal.archive` moved: records ``first_seq`` to ``last_seq``, to ``path``."""

    path: Path
    first_seq: int
    last_seq: int


class ArchiveAside:
    """An archive written on a thread of its own (:meth:`Journal.archive_aside`): the
    journal seen through a connection that only this thread uses, never the table's."""

    def __init__(self, journal: Journal, folder: Path, upto: int) -> None:
        self.journal = journal
        self.folder = folder
        self.upto = upto
        self._db: sqlite3.Connection | None = None
        self._cancelled = False

    def run(self) -> Archived | None:
        """Write the archive; None if there is nothing to move. A JournalError says why one
        could not be written (nothing has left the journal then)."""
        journal = self.journal
        try:
            db = sqlite3.connect(journal.path, isolation_level=None)
        except sqlite3.DatabaseError as error:
            raise JournalError(f"journal {journal.path}: cannot open: {error}") from None
        self._db = db
        try:
            if self._cancelled:
                return None
            db.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
            aside = copy.copy(journal)  # its opening, path and names; its own connection
            aside._db = db
            with aside._reading("the records to archive"):
                return aside._write_archive_of(self.folder, self.upto)
        finally:
            self._db = None
            db.close()

    def cancel(self) -> None:
        """Stop the writing where it is (the service stops): what was written beside is
        cleared then, or by the next archiving."""
        self._cancelled = True
        if self._db is not None:
            with contextlib.suppress(sqlite3.Error):
                self._db.interrupt()


@dataclass(frozen=True)
class BackedUp:
    """What :func:`back_up` copied: records ``first_seq`` (1 unless the journal's earlier
    records were archived) to ``last_seq``, damaged at ``broken`` if the journal was."""

    first_seq: int
    last_seq: int
    broken: Broken | None


def back_up(journal: str | Path, copy: str | Path) -> BackedUp:
    """A copy of a journal, whole and consistent even while a service writes it: SQLite's
    online backup, taken in one step under one read. (A plain file copy of a journal in
    use can miss its newest records, which wait in its -wal file, or catch them half
    written.) The journal is only read; the copy is one file that appears whole or not at
    all, and its chain is checked."""
    copy = Path(copy)
    doing = "back a journal up"
    _nothing_at(copy, doing)
    beside = copy.with_name(f".{copy.name}.copying")
    claim = _claim_beside(beside, copy, doing)
    try:
        with Journal(journal, read_only=True) as source:
            target = sqlite3.connect(beside)
            try:
                source._db.backup(target)
                # One file, with nothing waiting beside it: a copy to carry away.
                target.execute("PRAGMA journal_mode=DELETE")
            finally:
                target.close()
        with Journal(beside, read_only=True) as copied:
            backed_up = BackedUp(copied.first_seq, copied.last_seq, copied.verify())
            names = copied.names()
        _name_what_follows(beside, names, backed_up.last_seq)
        _nothing_at(copy, doing)
        os.replace(beside, copy)
    except sqlite3.DatabaseError as error:
        raise JournalError(f"journal {copy}: cannot write: {error}") from None
    finally:
        _remove_beside(beside)
        os.close(claim)
    return backed_up


def _claim_beside(beside: Path, target: Path, doing: str) -> int:
    """Hold ``beside``, where the file for ``target`` is written before it is moved there,
    until it is: a second command writing the same file at once is refused (both would find
    nothing at ``target``, and the later move would replace the first's file without a
    word). The flock goes with the process however it ends; what one cut short left beside
    is cleared."""
    try:
        descriptor = os.open(beside, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as error:
        raise JournalError(f"{target}: cannot write: {error.strerror}") from None
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        # Between the open and the lock, the one before may have moved its file to
        # ``target``: the file held must still be the one named ``beside``.
        held, named = os.fstat(descriptor), os.stat(beside)
        if (held.st_dev, held.st_ino) != (named.st_dev, named.st_ino):
            raise BlockingIOError
    except (BlockingIOError, FileNotFoundError):
        os.close(descriptor)
        raise JournalError(
            f"{target}: another dealtable is writing it ({doing}); let it finish, or name "
            "another file"
        ) from None
    _remove_beside(beside, keep=True)
    os.ftruncate(descriptor, 0)
    return descriptor


def _remove_beside(beside: Path, keep: bool = False) -> None:
    """The file written beside (unless ``keep``) and the files SQLite kept beside it."""
    for leftover in (*_sqlite_files(beside), Path(f"{beside}-journal")):
        leftover.unlink(missing_ok=True)
    if not keep:
        beside.unlink(missing_ok=True)


def _named_apart_after(names: list[tuple[int, str]], upto: int) -> list[list[int | str]]:
    """The journal's ``names`` meta for a journal whose events after record ``upto`` go out
    under a name of their own (see :meth:`Journal.names`): the names given before, then
    ``<the last name>-after-<upto>``."""
    given: list[list[int | str]] = [[at, name] for at, name in names[1:]]
    given.append([upto + 1, f"{names[-1][1]}-after-{upto}"])
    return given


def _name_what_follows(copy: Path, names: list[tuple[int, str]], last_seq: int) -> None:
    """A copy dealt on from (a journal lost, the copy put in its place) gives its next events
    seq numbers the lost journal may have published already: they go out under a name of
    their own, as after a carry-on, so no subscriber takes one for a repeat."""
    given = json.dumps(_named_apart_after(names, last_seq))
    with closing(sqlite3.connect(copy)) as db, db:
        db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('names', ?)", (given,))


def _nothing_at(target: Path, doing: str) -> None:
    """A new journal's file is written beside and moved into place: never over a file there
    (checked before, and again just before the move)."""
    if target.exists():
        raise JournalError(f"{target} is there already: {doing} into a new file")


def _begins_later(opening: Opening) -> dict[str, str]:
    """The meta of a journal that begins after archived records: where, and the format that
    says so to a dealtable too old to read it."""
    return {"opening": opening.to_json(), "format": str(BEGINS_LATER_FORMAT)}


def _sync_folder(folder: Path) -> None:
    """A file moved into ``folder`` is there after a power cut."""
    descriptor = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def _sqlite_files(path: Path) -> tuple[Path, Path]:
    return Path(f"{path}-wal"), Path(f"{path}-shm")
