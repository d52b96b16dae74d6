"""What a table's start costs on a long journal: the hash chain checked before it deals on,
the full verify (every record decoded, and folded to check the checkpoints), and the whole
start: from the checkpoint the last deck left, and, on a copy with its checkpoints dropped,
replaying every event; ``dealtable backup`` of it; and the archiving a service does at a
new deck once enough records lie before its spare checkpoint (``[table] archive_every``), with
the start of the journal it leaves.

Builds a journal of 100,000 events from the simulated Faro table, dealing as fast as it can
on the journal as ``dealtable run`` opens it (``synchronous=FULL``), and times each commit the
table's loop waits for meanwhile (the events of a card or command, a deck's checkpoint): the
p99 and the longest, with the largest the ``-wal`` file grew. Then times each step three
times and prints the median, with the most memory the two starts held (tracemalloc's peak,
in a run of its own, as tracing slows the step). Run: ``make bench`` or
``.venv/bin/python bench/journal_start.py``.
"""

from __future__ import annotations

import functools
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from table.service.config import Config, ReaderConfig, TableConfig
from table.service.journal import Archived, Journal, back_up
from table.service.run import SimulatedTable, open_table
from table.service.table_service import table_from_journal

EVENTS = 100_000


@dataclass(frozen=True)
class Built:
    events: int
    commits: list[float]  # seconds each commit held the table's loop
    largest_wal: int  # bytes of the -wal file at its largest


def build(path: Path) -> Built:
    """The journal dealt as ``dealtable run`` deals it, as fast as the engine goes, with the
    time each commit of the loop took. As a table that archives keeps it (every deck's
    checkpoint), none due before the end."""
    config = Config(
        table=TableConfig(journal=str(path), archive_every=10 * EVENTS), reader=ReaderConfig(seed=3)
    )
    journal, service = open_table(config)
    commits: list[float] = []

    def timed(write: Callable[..., None]) -> Callable[..., None]:
        def commit(*args: Any, **kwargs: Any) -> None:
            started = time.perf_counter()
            write(*args, **kwargs)
            commits.append(time.perf_counter() - started)

        return commit

    journal.append = timed(journal.append)  # type: ignore[method-assign]
    journal.save_checkpoint = timed(journal.save_checkpoint)  # type: ignore[method-assign]
    wal = Path(f"{path}-wal")
    largest_wal = 0
    try:
        simulated = SimulatedTable(service, seed=3)
        while journal.last_seq < EVENTS:
            simulated.step()
            largest_wal = max(largest_wal, wal.stat().st_size)
        return Built(journal.last_seq, commits, largest_wal)
    finally:
        service.stop_archiving()
        journal.close()


def median_of_three(step: Callable[[], object]) -> float:
    times = []
    for _ in range(3):
        started = time.perf_counter()
        step()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def check_chain(path: Path) -> None:
    with Journal(path, read_only=True) as journal:
        journal.check_chain()


def verify(path: Path) -> None:
    with Journal(path, read_only=True) as journal:
        assert journal.verify() is None


def open_and_replay(path: Path) -> None:
    journal, _ = open_table(Config(table=TableConfig(journal=str(path))))
    journal.close()


def rebuilt(path: Path) -> None:
    """The start's part after the chain check: the table rebuilt from the newest checkpoint
    and the events after it."""
    with Journal(path, read_only=True) as journal:
        table_from_journal(journal, "table")


def backed_up(path: Path) -> None:
    """``dealtable backup``: the online copy, its chain checked, then thrown away."""
    copy = path.with_name("backup.sqlite")
    back_up(path, copy)
    copy.unlink()


@dataclass(frozen=True)
class Archiving:
    aside: float  # seconds the archive took to write, the table dealing on
    steps: int  # transactions the records left the journal in
    dropped: float  # seconds they took in all
    longest: float  # seconds of the longest: the most the table waits at once
    whole: float  # seconds they take in one transaction, as `dealtable archive` drops them
    memory: float  # MB of Python memory the whole archiving held at most
    kept: int  # records the journal keeps
    start: float  # seconds its chain check takes after


def archived(path: Path) -> Archiving:
    """The archiving of every record before the spare checkpoint, on a copy: how long its
    archive takes to write (aside, on a thread of its own, as ``dealtable run`` writes it),
    how long the table waits for the records to leave the journal, a deck at a time, at
    the longest and in all (and for all at once), and the most Python memory the whole
    held (a run of its own), the records the journal keeps, and its start-up check
    after."""
    copy = path.with_name("to-archive.sqlite")
    folder = path.with_name("archive")
    asides, steps, longest, wholes, peaks = [], [], [], [], []
    for traced in (False, False, False, True):
        shutil.copy(path, copy)
        with Journal(copy, "table") as journal:
            if traced:
                peaks.append(peak_memory(functools.partial(journal.archive, folder)))
            else:
                started = time.perf_counter()
                written = journal.archive_aside(folder, journal.archivable_upto()).run()
                asides.append(time.perf_counter() - started)
                assert written is not None
                steps.append(drop_steps(journal, written))
                longest.append(max(steps[-1]))
            kept = journal.last_seq - journal.first_seq + 1
        if not traced:
            shutil.copy(path, copy)  # the archive in place, every record still in the journal
            with Journal(copy, "table") as journal:
                started = time.perf_counter()
                journal.finish_archiving(folder)
                wholes.append(time.perf_counter() - started)
        shutil.rmtree(folder)
    start = median_of_three(functools.partial(check_chain, copy))
    copy.unlink()
    middle = steps[longest.index(statistics.median(longest))]
    return Archiving(
        aside=statistics.median(asides),
        steps=len(middle),
        dropped=sum(middle),
        longest=statistics.median(longest),
        whole=statistics.median(wholes),
        memory=peaks[0],
        kept=kept,
        start=start,
    )


def drop_steps(journal: Journal, written: Archived) -> list[float]:
    """The records leaving the journal a deck at a time, as ``dealtable run``'s loop drops
    them between cards: how long each transaction took."""
    times = []
    done = False
    while not done:
        started = time.perf_counter()
        done = journal.drop_archived_step(written)
        times.append(time.perf_counter() - started)
    return times


def without_checkpoints(path: Path) -> Path:
    """A copy of the journal as a dealtable that kept no checkpoints wrote it."""
    copy = path.with_name("no-checkpoints.sqlite")
    shutil.copy(path, copy)
    with sqlite3.connect(copy) as db:
        db.execute("DELETE FROM checkpoints")
    db.close()
    return copy


def peak_memory(step: Callable[[], object]) -> float:
    tracemalloc.start()
    step()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak / 2**20


def main() -> None:
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "long.sqlite"
        built = build(path)
        waits = sorted(built.commits)
        p99 = statistics.quantiles(waits, n=100)[98]
        print(
            f"journal of {built.events} events, {path.stat().st_size / 2**20:.1f} MB, dealt "
            f"as fast as the engine goes: {len(waits)} commits held the table's loop for "
            f"p99 {p99 * 1000:.2f} ms, the longest {waits[-1] * 1000:.1f} ms; the -wal file "
            f"at its largest {built.largest_wal / 2**20:.1f} MB"
        )
        with Journal(path, read_only=True) as journal:
            kept = journal._db.execute("SELECT COUNT(*), SUM(LENGTH(body)) FROM checkpoints")
            count, size = kept.fetchone()
        print(f"  checkpoints kept (every deck's, as archive_every has it): {count}, {size} bytes")
        whole = without_checkpoints(path)
        for name, step in (
            ("hash chain checked (run's start-up check)", functools.partial(check_chain, path)),
            (
                "verify: chain checked, every record decoded, checkpoints held against the fold",
                functools.partial(verify, path),
            ),
            (
                "run's start from the last deck's checkpoint: lock, chain check, the deal's events",
                functools.partial(open_and_replay, path),
            ),
            (
                "the table rebuilt from the newest of the checkpoints kept and the events after",
                functools.partial(rebuilt, path),
            ),
            (
                "run's start with no checkpoint: lock, chain check, every event replayed",
                functools.partial(open_and_replay, whole),
            ),
            (
                "dealtable backup: the online copy, its chain verified",
                functools.partial(backed_up, path),
            ),
        ):
            took = median_of_three(step)
            print(f"  {name}: " + (f"{took:.2f} s" if took >= 0.1 else f"{took * 1000:.1f} ms"))
        done = archived(path)
        print(
            f"  archiving every record before the spare checkpoint, at a new deck: its archive "
            f"written aside in {done.aside:.2f} s (the table deals on), its records dropped "
            f"from the journal a deck at a time, in {done.steps} transactions taking "
            f"{done.dropped:.2f} s in all, the longest (the most the table waits at once) "
            f"{done.longest * 1000:.1f} ms (all at once, as `dealtable archive` drops them: "
            f"{done.whole:.2f} s), {done.memory:.2f} MB of Python memory; the journal keeps "
            f"{done.kept} records, its hash chain checked in {done.start:.3f} s"
        )
        from_checkpoint = peak_memory(functools.partial(open_and_replay, path))
        replaying = peak_memory(functools.partial(open_and_replay, whole))
        print(
            f"  most Python memory held by a start: {from_checkpoint:.1f} MB from the "
            f"checkpoint, {replaying:.1f} MB replaying every event"
        )


if __name__ == "__main__":
    main()
