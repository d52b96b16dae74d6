"""What a table's start costs on a long journal: the hash chain checked before it deals on,
the full verify (every record decoded too), and the whole open and replay.

Builds a journal of 100,000 events from the simulated Faro table, then times each step three
times and prints the median. Run: ``make bench`` or ``.venv/bin/python bench/journal_start.py``.
"""

from __future__ import annotations

import functools
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from table.service.config import Config, ReaderConfig, TableConfig
from table.service.journal import Journal
from table.service.run import SimulatedTable, open_table
from table.service.table_service import TableService

EVENTS = 100_000


def build(path: Path) -> int:
    config = Config(table=TableConfig(journal=str(path)), reader=ReaderConfig(seed=3))
    with Journal(path, "table") as journal:
        # Durability is not what is measured here: the build goes as fast as the engine.
        journal._db.execute("PRAGMA synchronous=OFF")
        service = TableService(config, journal)
        simulated = SimulatedTable(service, seed=3)
        while journal.last_seq < EVENTS:
            simulated.step()
        return journal.last_seq


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


def main() -> None:
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "long.sqlite"
        events = build(path)
        print(f"journal of {events} events")
        for name, step in (
            ("hash chain checked (run's start-up check)", check_chain),
            ("verify: chain checked and every record decoded", verify),
            ("run's start: lock, chain check and replay", open_and_replay),
        ):
            print(f"  {name}: {median_of_three(functools.partial(step, path)):.2f} s")


if __name__ == "__main__":
    main()
