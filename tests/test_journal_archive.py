"""A table that deals for years keeps a journal of the same length: once enough records lie
before its spare checkpoint, they move to an archive file, a journal of its own, and the
journal begins after them. Nothing is lost on the way: the archives and the journal hold
every record once, byte for byte, chained from file to file, and a failure at any step
moves nothing."""

from __future__ import annotations

import dataclasses
import json
import logging
import os
import random
import re
import sqlite3
import threading
from contextlib import closing
from pathlib import Path

import pytest

import table.service.journal as journal_module
from table.baccarat.engine import Phase as BaccaratPhase
from table.cards import Card, Rank, Suit
from table.events import DeckStarted
from table.service.config import Config, ConfigError, MqttConfig, archive_folder, parse_config
from table.service.journal import Archived, Journal, JournalError, carry_on
from table.service.mqtt import OUTBOX_CURSOR, MqttLink
from table.service.run import SimulatedTable, open_table
from table.service.table_service import TableService
from table.service.web import JournalFollower, LiveView
from tests.commands import dealtable_here
from tests.conftest import punto_banco_config
from tests.mosquitto import free_port
from tests.test_journal_checkpoints import deal_punto_banco, faro_config, open_journal

Record = tuple[int, str, str, str]


def archiving(config: Config, every: int, archive_dir: str = "", kept: int = 0) -> Config:
    return dataclasses.replace(
        config,
        table=dataclasses.replace(
            config.table, archive_every=every, archive_dir=archive_dir, archives_kept=kept
        ),
    )


def dealt(path: Path, steps: int, every: int, archive_dir: str = "") -> TableService:
    """A simulated Faro table dealt ``steps`` steps on a still clock (two tables dealt alike
    write the same records), its journal left closed."""
    journal = open_journal(path)
    service = TableService(
        archiving(faro_config(path), every, archive_dir), journal, clock=lambda: 1.8e9
    )
    simulated = SimulatedTable(service, seed=3)
    for _ in range(steps):
        simulated.step()
    journal.close()
    return service


def records_of(*paths: Path) -> list[Record]:
    records: list[Record] = []
    for path in paths:
        with Journal(path, read_only=True) as journal:
            records += journal.records()
    return records


def archives_beside(journal: Path) -> list[Path]:
    return journal_module.archives_of(journal, journal.with_name(f"{journal.stem}-archive"))


def test_a_long_deal_moves_its_old_records_to_archives_and_loses_none(tmp_path: Path) -> None:
    """The archives and the journal hold every record a journal never archived holds, once
    and byte for byte; each file begins at a new deck; the table restarts as it was."""
    path, whole = tmp_path / "faro.sqlite", tmp_path / "whole.sqlite"
    live = dealt(path, 700, every=300).state
    unarchived = dealt(whole, 700, every=0).state
    archives = archives_beside(path)
    assert len(archives) >= 3
    assert archives[0].name == f"faro-{1:010d}-{records_of(archives[0])[-1][0]:010d}.sqlite"
    assert records_of(*archives, path) == records_of(whole)
    with Journal(whole, read_only=True) as journal:
        name = journal.name()
    for later in [*archives[1:], path]:
        with Journal(later, read_only=True) as journal:
            first = next(journal.events())
            assert isinstance(first, DeckStarted)
            assert journal.first_seq == first.seq > 1
            assert journal.name() == name  # on MQTT, the same journal's events
    with open_journal(path) as journal:
        resumed = TableService(archiving(faro_config(path), 300), journal).state
        assert journal.last_seq - journal.first_seq < 300 + 3 * 220  # two decks and a bit
    assert resumed == live == unarchived
    assert resumed.bankrolls == unarchived.bankrolls


def test_the_journals_file_stays_the_same_size_as_the_table_deals_on(tmp_path: Path) -> None:
    """The records archived leave pages free in the journal's file, which the next fill."""
    path = tmp_path / "faro.sqlite"
    journal = open_journal(path)
    service = TableService(archiving(faro_config(path), 300), journal, clock=lambda: 1.8e9)
    simulated = SimulatedTable(service, seed=3)
    sizes = []
    for step in range(1, 2401):
        simulated.step()
        if step % 600 == 0:
            journal._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            sizes.append(os.path.getsize(path))
    journal.close()
    assert len(archives_beside(path)) > 10
    assert sizes[-1] <= sizes[0] * 1.1, sizes


def test_verify_follows_the_chain_from_archive_to_archive_to_the_journal(tmp_path: Path) -> None:
    path = tmp_path / "faro.sqlite"
    dealt(path, 700, every=300)
    archives = [str(archive) for archive in archives_beside(path)]
    checked = dealtable_here("verify", *archives, str(path))
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert checked.stdout.count("chain intact") == len(archives) + 1
    with Journal(path, read_only=True) as journal:
        first, last = journal.first_seq, journal.last_seq
    assert f"records {first} to {last} (the records before it were archived)" in checked.stdout
    missing = dealtable_here("verify", archives[0], str(path))
    assert missing.returncode == 1
    assert f"{path}: BROKEN: it does not follow {archives[0]}: it begins after record" in (
        missing.stdout
    )


@pytest.mark.parametrize(
    "how", ["opening gone", "opening moved", "opening not an object", "first record gone"]
)
def test_a_journal_cut_from_its_start_is_damaged(tmp_path: Path, how: str) -> None:
    """Records taken from the start of an archived journal, or its note of where it begins
    removed or edited, break the chain at its first record: it is not dealt on."""
    path = tmp_path / "faro.sqlite"
    dealt(path, 700, every=300)
    with Journal(path, read_only=True) as journal:
        first = journal.first_seq
    with closing(sqlite3.connect(path)) as db, db:
        if how == "opening gone":
            db.execute("DELETE FROM meta WHERE key = 'opening'")
        elif how == "opening moved":
            opening = json.loads(db.execute("SELECT value FROM meta WHERE key = 'opening'")
                                 .fetchone()[0])  # fmt: skip
            opening["after_seq"] += 1
            db.execute("UPDATE meta SET value = ? WHERE key = 'opening'", (json.dumps(opening),))
        elif how == "opening not an object":
            db.execute("UPDATE meta SET value = '[1]' WHERE key = 'opening'")
        else:
            db.execute("DELETE FROM events WHERE seq = ?", (first,))
    checked = dealtable_here("verify", str(path))
    assert checked.returncode == 1
    assert "BROKEN at record" in checked.stdout
    with pytest.raises(journal_module.JournalDamagedError):
        Journal(path)


def dealt_with_outbox_behind(path: Path) -> None:
    """A table whose MQTT outbox sent its first 40 records only, dealt on for long enough
    that archiving would be due every 30 records."""
    dealt(path, 60, every=0)
    with open_journal(path) as journal:
        journal.set_cursor(OUTBOX_CURSOR, 40)
    dealt(path, 700, every=30)


def test_the_outbox_keeps_every_record_it_has_not_sent(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A broker away for days: nothing is archived until the MQTT outbox has sent every
    record before the spare checkpoint (the journal must begin at a checkpoint), said once;
    then the records go, and every file is sound."""
    path = tmp_path / "faro.sqlite"
    with caplog.at_level(logging.WARNING, "dealtable"):
        dealt_with_outbox_behind(path)
    assert caplog.text.count("not archived until the MQTT outbox has sent them (it has sent "
                             "up to record 40)") == 1  # fmt: skip
    assert archives_beside(path) == []
    with open_journal(path) as journal:
        journal.set_cursor(OUTBOX_CURSOR, journal.last_seq)
    dealt(path, 700, every=30)
    archives = archives_beside(path)
    assert archives
    checked = dealtable_here("verify", *map(str, archives), str(path))
    assert checked.returncode == 0, checked.stdout


def test_an_outbox_whose_place_the_disk_would_not_take_at_its_start_still_holds_records(
    tmp_path: Path,
) -> None:
    """The disk is full as the service starts with its broker away: the outbox cannot write
    where it begins. Once the disk takes writes again the table deals on, and nothing the
    outbox has not sent goes to an archive, as if its place had been written."""
    from tests.test_service_readers import FullDisk

    path = tmp_path / "faro.sqlite"
    journal = open_journal(path)
    service = TableService(archiving(faro_config(path), 30), journal, clock=lambda: 1.8e9)
    disk = FullDisk(journal._db)
    journal._db = disk  # type: ignore[assignment]
    MqttLink(MqttConfig(host="127.0.0.1", port=free_port()), "faro-1", service, journal)
    journal._db = disk.db
    simulated = SimulatedTable(service, seed=3)
    for _ in range(700):
        simulated.step()
    assert journal.before_spare_checkpoint() > 30
    assert archives_beside(path) == []
    assert journal.first_seq == 1
    journal.close()


def test_an_archive_that_cannot_be_written_moves_nothing_and_the_table_deals_on(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    blocked = tmp_path / "not-a-folder"
    blocked.write_text("a file where the archives' folder should go")
    path, whole = tmp_path / "faro.sqlite", tmp_path / "whole.sqlite"
    unarchived = dealt(whole, 400, every=0).state
    with caplog.at_level(logging.WARNING, "dealtable"):
        live = dealt(path, 400, every=300, archive_dir=str(blocked / "archive")).state
    assert "cannot archive to" in caplog.text
    assert "the records stay in the journal until the next deck" in caplog.text
    assert records_of(path) == records_of(whole)
    assert live == unarchived
    blocked.unlink()
    journal = open_journal(path)
    service = TableService(
        archiving(faro_config(path), 300, str(blocked / "archive")), journal, clock=lambda: 1.8e9
    )
    simulated = SimulatedTable(service, seed=3)
    while journal.first_seq == 1:
        simulated.step()
    journal.close()
    archived = sorted((blocked / "archive").glob("*.sqlite"))
    assert archived
    assert records_of(*archived, path)[: len(records_of(whole))] == records_of(whole)


def test_an_archive_folder_whose_disk_is_unmounted_is_not_made_again_beneath_it(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The archives go to a disk of their own, which comes unmounted: its mount point is
    left empty. The folder is not made again there, on the disk beneath (the SD card), where
    archives would fill it and hide once the disk is back: the records stay in the journal,
    said in the log, and go to the disk's folder once it is mounted again. None is lost, and
    the files chain from the first to the journal."""
    mount, away = tmp_path / "usb", tmp_path / "usb-unplugged"
    mount.mkdir()
    folder = mount / "archive"
    path, whole = tmp_path / "faro.sqlite", tmp_path / "whole.sqlite"
    dealt(whole, 1200, every=0)
    journal = open_journal(path)
    service = TableService(
        archiving(faro_config(path), 300, str(folder)), journal, clock=lambda: 1.8e9
    )
    simulated = SimulatedTable(service, seed=3)
    for _ in range(400):
        simulated.step()
    assert journal.first_seq > 1
    mount.rename(away)
    mount.mkdir()
    begins = journal.first_seq
    with caplog.at_level(logging.WARNING, "dealtable"):
        for _ in range(400):
            simulated.step()
    assert not folder.exists()
    assert journal.first_seq == begins
    assert "if the disk it is on is unmounted, mount it" in caplog.text
    mount.rmdir()
    away.rename(mount)
    for _ in range(400):
        simulated.step()
    journal.close()
    assert journal.first_seq > begins
    archives = journal_module.archives_of(path, folder)
    assert records_of(*archives, path) == records_of(whole)


def test_an_archiving_cut_short_before_the_records_leave_is_taken_up_by_the_next(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """The archive was written and moved into place, then the journal could not drop the
    records (a power cut, a disk full): the next archiving takes the archive as written and
    drops the records it holds; no record is in two files."""
    path, whole = tmp_path / "faro.sqlite", tmp_path / "whole.sqlite"
    dealt(whole, 330, every=0)
    drop = Journal._begin_after

    def cut_short(self: Journal, upto: int, archived: Archived) -> None:
        raise JournalError(f"journal {self.path}: cannot drop the archived records: disk full")

    monkeypatch.setattr(Journal, "_begin_after", cut_short)
    with caplog.at_level(logging.WARNING, "dealtable"):
        dealt(path, 330, every=300)
    assert "disk full" in caplog.text
    [written] = archives_beside(path)
    with Journal(path, read_only=True) as journal:
        assert journal.first_seq == 1
    monkeypatch.setattr(Journal, "_begin_after", drop)
    with Journal(path) as journal:
        archived = journal.archive(path.with_name("faro-archive"))
    assert archived is not None
    assert archived.path == written
    assert records_of(written, path) == records_of(whole)


def test_an_archiving_cut_short_by_a_power_cut_is_finished_as_the_table_starts_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The power was cut once the archive was in place and before the records left the
    journal: the archive and the journal both hold them. The table starting again finishes
    the archiving, so that verify, given the archives and the journal, finds the chain whole
    from the start on, not only from the next deck."""
    path, whole = tmp_path / "faro.sqlite", tmp_path / "whole.sqlite"
    dealt(whole, 330, every=0)

    def power_cut(self: Journal, upto: int, archived: Archived) -> None:
        raise JournalError(f"journal {self.path}: the power went")

    with monkeypatch.context() as cut:
        cut.setattr(Journal, "_begin_after", power_cut)
        dealt(path, 330, every=300)
    [written] = archives_beside(path)
    with Journal(path, read_only=True) as journal:
        assert journal.first_seq == 1
    journal = open_journal(path)
    TableService(archiving(faro_config(path), 300), journal, clock=lambda: 1.8e9)
    journal.close()
    assert records_of(written, path) == records_of(whole)
    checked = dealtable_here("verify", str(written), str(path))
    assert checked.returncode == 0, checked.stdout


def test_an_archiving_cut_short_a_deck_ago_is_taken_up_where_its_checkpoint_is_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """By the next deck the checkpoint the archive was cut at is still kept (where records
    are archived, every deck's is), so the next archiving takes the archive as written and
    the journal begins there; no record is in two files."""
    path, whole = tmp_path / "faro.sqlite", tmp_path / "whole.sqlite"
    dealt(whole, 700, every=0)
    drop = Journal._begin_after
    tries: list[int] = []

    def cut_short_once(self: Journal, upto: int, archived: Archived) -> None:
        tries.append(upto)
        if len(tries) == 1:
            raise JournalError(f"journal {self.path}: cannot drop the archived records")
        drop(self, upto, archived)

    monkeypatch.setattr(Journal, "_begin_after", cut_short_once)
    dealt(path, 700, every=300)
    assert len(tries) > 2 and tries[1] == tries[0] < tries[2]
    archives = archives_beside(path)
    assert records_of(*archives, path) == records_of(whole)
    checked = dealtable_here("verify", *map(str, archives), str(path))
    assert checked.returncode == 0, checked.stdout
    view = LiveView()
    JournalFollower(path, view).catch_up()
    assert view.current()[0] == records_of(path)[-1][0]


def test_a_reader_of_the_journal_is_not_misled_by_an_archiving_meanwhile(
    tmp_path: Path,
) -> None:
    """A page or a tool reads the journal while the service archives: it reads one
    snapshot, where the journal begins and its records together."""
    path = tmp_path / "faro.sqlite"
    dealt(path, 700, every=0)
    before = records_of(path)
    with Journal(path, read_only=True) as reader:
        with open_journal(path) as writer:
            assert writer.archive(tmp_path / "archive") is not None
        assert reader.verify() is None
        assert reader.records() == before


def test_a_reader_of_the_journal_does_not_hold_an_archiving_up(tmp_path: Path) -> None:
    """A tool left reading the journal (an export piped into a pager) while the table
    archives: the archiving does not wait for it to finish (the table would stand still,
    its watchdog unheard); the -wal file is cut back later instead."""
    path = tmp_path / "faro.sqlite"
    dealt(path, 700, every=0)
    done = threading.Event()
    with Journal(path, read_only=True) as reader:
        assert reader.records()  # reading, its snapshot held

        def archive() -> None:
            with open_journal(path) as writer:
                # A writer that would wait for the reader as long as it reads.
                writer._db.execute("PRAGMA busy_timeout=600000")
                writer.archive(tmp_path / "archive")
            done.set()

        archiving_thread = threading.Thread(target=archive, daemon=True)
        archiving_thread.start()
        # A guard against a hang, not a measure of speed: the archiving never waits.
        assert done.wait(timeout=60)
        assert reader.verify() is None


def test_the_journals_wal_file_is_emptied_after_an_archiving(tmp_path: Path) -> None:
    """The deletions of an archiving go through the -wal file beside the journal: it is
    emptied once they are made, not left the size of the records moved."""
    path = tmp_path / "faro.sqlite"
    journal = Journal(path, "table")  # as the service opens it
    service = TableService(archiving(faro_config(path), 1500), journal, clock=lambda: 1.8e9)
    simulated = SimulatedTable(service, seed=3)
    while journal.first_seq == 1:
        simulated.step()
    wal = Path(f"{path}-wal")
    assert wal.stat().st_size < 64 * 1024
    journal.close()


def shuffler_dealt(path: Path, every: int, coups: int = 120) -> None:
    """A continuous shuffler's Punto Banco: a checkpoint as each coup locks, one shoe."""
    config = archiving(punto_banco_config(path), every)
    config = dataclasses.replace(
        config, table=dataclasses.replace(config.table, rules="shuffler", options={})
    )
    chance = random.Random(5)
    cards = [Card(rank, suit) for rank in Rank for suit in Suit]
    with open_journal(path, "pb") as journal:
        service = TableService(config, journal, clock=lambda: 1.8e9)
        service.execute_line("punter ana 5000")
        service.execute_line("shuffle")
        for coup in range(coups):
            service.execute_line(f"bet ana {('player', 'banker')[coup % 2]} 5")
            service.execute_line("lock")
            while service.state.phase is BaccaratPhase.DEALING:
                service.card(chance.choice(cards))


def test_a_continuous_shufflers_roads_keep_the_coups_archived(tmp_path: Path) -> None:
    """Its shoe never ends, and its journal keeps only the last coups: the roads the pages
    draw still show the shoe's newest coups, as a journal never archived would."""
    path, whole = tmp_path / "pb.sqlite", tmp_path / "whole.sqlite"
    shuffler_dealt(path, 500)
    shuffler_dealt(whole, 0)
    assert archives_beside(path)
    assert records_of(*archives_beside(path), path) == records_of(whole)
    shown = []
    for journal_path in (path, whole):
        view = LiveView()
        JournalFollower(journal_path, view).catch_up()
        shown.append([result.coup for result in view.results])
    assert shown[0] == shown[1] and len(shown[1]) == 120


def test_a_file_in_the_archives_place_is_never_taken_for_one(tmp_path: Path) -> None:
    path = tmp_path / "faro.sqlite"
    dealt(path, 330, every=0)
    folder = tmp_path / "faro-archive"
    folder.mkdir()
    stray = folder / f"faro-{1:010d}-{5:010d}.sqlite"
    stray.write_bytes(b"")
    before = records_of(path)
    with Journal(path) as journal, pytest.raises(JournalError, match="is in the way"):
        journal.archive(folder)
    assert stray.read_bytes() == b""
    assert records_of(path) == before


def test_the_reading_commands_read_an_archived_journal_and_its_archives(tmp_path: Path) -> None:
    path, whole = tmp_path / "faro.sqlite", tmp_path / "whole.sqlite"
    dealt(path, 700, every=300)
    dealt(whole, 700, every=0)
    archives = archives_beside(path)
    exported = [dealtable_here("export", str(file)).stdout for file in (*archives, path)]
    assert "".join(exported) == dealtable_here("export", str(whole)).stdout
    listed = dealtable_here("history", str(path)).stdout.splitlines()
    with Journal(path, read_only=True) as journal:
        first_deal = next(journal.events()).deal
    assert listed[0].startswith(f"deal {first_deal:5d}")
    assert listed == dealtable_here("history", str(whole)).stdout.splitlines()[-len(listed) :]
    recalled = dealtable_here("history", str(archives[0]), "1")
    assert recalled.returncode == 0
    assert recalled.stdout == dealtable_here("history", str(whole), "1").stdout
    copy = tmp_path / "copy.sqlite"
    copied = dealtable_here("backup", str(path), str(copy))
    with Journal(path, read_only=True) as journal:
        span = f"records {journal.first_seq} to {journal.last_seq}, chain intact"
    assert span in copied.stdout
    assert records_of(copy) == records_of(path)
    drawn = dealtable_here("snapshot", "--journal", str(path), "--out", str(tmp_path / "t.png"))
    assert drawn.returncode == 0, drawn.stderr


def test_history_shows_a_coup_begun_in_an_archive_as_continued_in_the_next_file(
    tmp_path: Path,
) -> None:
    """A continuous shuffler's archive ends at a lock: the bets on that coup are its last
    records, the coup is dealt in the next file. Each coup is told with its result once."""
    path = tmp_path / "pb.sqlite"
    shuffler_dealt(path, 200, coups=60)
    archives = archives_beside(path)
    assert len(archives) == 2
    told: dict[int, list[str]] = {}
    for file in (*archives, path):
        listed = dealtable_here("history", str(file), "--last", "100")
        assert listed.returncode == 0, listed.stderr
        for line in listed.stdout.splitlines():
            match = re.fullmatch(r"coup +(\d+)  [\d:\- ]{19}  (.*)  \(events .*\)", line)
            assert match, line
            number, what = match.groups()
            told.setdefault(int(number), []).append(what)
    assert sorted(told) == list(range(1, 61))
    for number, said in told.items():
        results = [what for what in said if " wins" in what or what.endswith("tie")]
        assert len(results) == 1, (number, said)
        assert [what for what in said if what not in results] in (
            [],
            ["continued in the next file"],
        ), (number, said)


def test_dealtable_archive_moves_what_may_go_from_a_journal_no_service_deals_on(
    tmp_path: Path,
) -> None:
    path = tmp_path / "faro.sqlite"
    dealt(path, 700, every=0)
    before = records_of(path)
    moved = dealtable_here("archive", str(path), "--into", str(tmp_path / "old"))
    assert moved.returncode == 0, moved.stderr
    [archive] = sorted((tmp_path / "old").glob("*.sqlite"))
    assert f"{archive}: records 1 to " in moved.stdout
    assert records_of(archive, path) == before
    again = dealtable_here("archive", str(path), "--into", str(tmp_path / "old"))
    assert "nothing to archive" in again.stdout


def test_dealtable_archive_puts_archives_where_the_tables_config_says(tmp_path: Path) -> None:
    """Given the table's config, the command archives its journal into its archive_dir, as
    the service would; a journal the config does not name is refused, nothing moved."""
    path, other = tmp_path / "faro.sqlite", tmp_path / "other.sqlite"
    dealt(path, 700, every=0)
    dealt(other, 700, every=0)
    config = tmp_path / "table.toml"
    config.write_text(
        f'[table]\nid = "t1"\njournal = "{path}"\narchive_dir = "{tmp_path / "kept"}"\n'
        '[reader]\nkind = "simulated"\n'
    )
    before = records_of(other)
    refused = dealtable_here("archive", str(other), "--config", str(config))
    assert refused.returncode == 2
    assert f"not the journal of {config}, which is {path}" in refused.stderr
    assert records_of(other) == before
    mixed = dealtable_here("archive", "--config", str(config), "--into", str(tmp_path / "x"))
    assert mixed.returncode == 2 and "archive_dir" in mixed.stderr
    publishing = tmp_path / "publishing.toml"
    publishing.write_text(config.read_text() + '[mqtt]\nhost = "127.0.0.1"\n')
    kept = dealtable_here("archive", "--config", str(publishing), "--drop-outbox")
    assert kept.returncode == 2 and "still publishes to MQTT" in kept.stderr
    mistyped = dealtable_here("archive", str(tmp_path / "faro.sqlit"))
    assert mistyped.returncode == 2 and "no journal there" in mistyped.stderr
    assert not (tmp_path / "faro.sqlit").exists()  # no empty journal made
    moved = dealtable_here("archive", "--config", str(config))
    assert moved.returncode == 0, moved.stderr
    [archive] = sorted((tmp_path / "kept").glob("*.sqlite"))
    assert f"{archive}: records 1 to " in moved.stdout
    assert not (tmp_path / "faro-archive").exists()


def test_dealtable_archive_drops_the_place_of_an_outbox_no_longer_used(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A table whose [mqtt] is gone: its outbox's place holds archiving back, which the
    service says with the command that releases it; the command says why nothing goes, and
    with --drop-outbox archives the records unsent, the chain whole."""
    path = tmp_path / "faro.sqlite"
    with caplog.at_level(logging.WARNING, "dealtable"):
        dealt_with_outbox_behind(path)
    assert f"run `dealtable archive --drop-outbox {path}`" in caplog.text
    before = records_of(path)
    held = dealtable_here("archive", str(path))
    assert held.returncode == 0, held.stderr
    assert "its MQTT outbox has sent only to record 40 of the" in held.stdout
    assert "--drop-outbox" in held.stdout
    assert archives_beside(path) == []
    moved = dealtable_here("archive", str(path), "--drop-outbox")
    assert moved.returncode == 0, moved.stderr
    assert f"the MQTT outbox's place dropped (it had sent to record 40 of {len(before)})" in (
        moved.stdout
    )
    [archive] = archives_beside(path)
    assert records_of(archive, path) == before
    with Journal(path, read_only=True) as journal:
        assert journal.cursor(OUTBOX_CURSOR) == 0
    again = dealtable_here("archive", str(path), "--drop-outbox")
    assert "keeps no MQTT outbox's place: nothing to drop" in again.stdout
    assert "last two decks or shoes" in again.stdout


def test_a_request_id_is_remembered_an_archiving_longer_than_its_records(
    tmp_path: Path,
) -> None:
    """An MQTT command sent again after its records were archived is still refused; the
    journal forgets its id at the archiving after, and every id is in one archive only."""
    path, folder = tmp_path / "faro.sqlite", tmp_path / "old"
    dealt(path, 700, every=0)
    with open_journal(path) as journal:
        journal.remember_request("r-early", 10)
        first = journal.archive(folder)
        assert first is not None
        assert journal.request_seq("r-early") == 10
        journal.remember_request("r-later", journal.last_seq)
        later = journal.last_seq
    dealt(path, 700, every=0)
    with open_journal(path) as journal:
        second = journal.archive(folder)
        assert second is not None
        assert journal.request_seq("r-early") is None
        assert journal.request_seq("r-later") == later
    with Journal(first.path, read_only=True) as archive:
        assert archive.request_seq("r-early") == 10
    with Journal(second.path, read_only=True) as archive:
        assert archive.request_seq("r-early") is None
        assert archive.request_seq("r-later") == later


def test_an_archived_journal_is_refused_by_a_dealtable_that_reads_only_whole_ones(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A dealtable from before archives would take the missing start for damage: the
    journal says it needs a newer one, and a journal never archived does not."""
    path, whole = tmp_path / "faro.sqlite", tmp_path / "whole.sqlite"
    dealt(path, 400, every=300)
    dealt(whole, 400, every=0)
    monkeypatch.setattr(journal_module, "FORMAT_VERSION", 1)
    with pytest.raises(JournalError, match="written in format 2 by a newer dealtable"):
        Journal(path, read_only=True)
    Journal(whole, read_only=True).close()


def test_a_damaged_archived_journal_is_carried_on_from_its_first_checkpoint(
    tmp_path: Path,
) -> None:
    path, new = tmp_path / "faro.sqlite", tmp_path / "new.sqlite"
    dealt(path, 700, every=300)
    with Journal(path, read_only=True) as journal:
        first, last = journal.first_seq, journal.last_seq
    with closing(sqlite3.connect(path)) as db, db:
        db.execute("UPDATE events SET body = '{bad' WHERE seq = ?", (last - 3,))
    recovered = carry_on(path, new)
    assert recovered.first_seq == first
    assert recovered.sound_upto < last - 3
    checked = dealtable_here("verify", *map(str, archives_beside(path)), str(new))
    assert checked.returncode == 0, checked.stdout
    with open_journal(new) as journal:
        service = TableService(archiving(faro_config(new), 300), journal)
        SimulatedTable(service, seed=3).step()
        assert journal.last_seq > recovered.sound_upto


def punto_banco_dealt(path: Path, every: int) -> tuple[Config, TableService]:
    """Four shoes of Punto Banco on a still clock, the journal left closed."""
    config = archiving(punto_banco_config(path), every)
    with open_journal(path, "pb") as journal:
        service = TableService(config, journal, clock=lambda: 1.8e9)
        service.execute_line("punter ana 3000")
        service.execute_line("punter ben 3000")
        for _ in deal_punto_banco(service, seed=11, stop_after=4):
            pass
    return config, service


def test_a_punto_banco_table_archives_by_the_shoe(tmp_path: Path) -> None:
    """Its journal begins where a shoe went in, and lists the coups since as a journal never
    archived lists them."""
    path, whole = tmp_path / "pb.sqlite", tmp_path / "whole.sqlite"
    config, service = punto_banco_dealt(path, 200)
    punto_banco_dealt(whole, 0)
    live = service.state
    with Journal(path, read_only=True) as journal, Journal(whole, read_only=True) as unarchived:
        first = journal.first_seq
        assert first > 1
        coups, all_coups = journal.coups(), unarchived.coups()
        # The first began before the shoe went in, with records now archived.
        assert coups[0] == dataclasses.replace(all_coups[-len(coups)], first_seq=first)
        assert coups[1:] == all_coups[-len(coups) + 1 :]
    assert records_of(*archives_beside(path), path) == records_of(whole)
    with open_journal(path, "pb") as journal:
        assert TableService(config, journal).state == live
    view = LiveView()
    JournalFollower(path, view).catch_up()
    assert view.current()[0] == live.last_seq
    assert chips_shown(view.current()[1]) == live.bankrolls


def chips_shown(payload: bytes) -> dict[str, int]:
    return {row["punter"]: row["chips"] for row in json.loads(payload)["bankrolls"]}


def test_the_page_of_an_archived_journal_shows_the_table_as_it_stands(tmp_path: Path) -> None:
    path = tmp_path / "faro.sqlite"
    live = dealt(path, 500, every=300).state
    view = LiveView()
    JournalFollower(path, view).catch_up()
    seq, payload = view.current()
    assert seq == live.last_seq
    assert chips_shown(payload) == {
        name: chips for name, chips in live.bankrolls.items() if name != live.banker
    }


def test_the_config_names_when_and_where_records_are_archived(tmp_path: Path) -> None:
    config = parse_config(f'[table]\njournal = "{tmp_path}/faro-1.sqlite"\n')
    assert config.table.archive_every == 200_000
    assert archive_folder(config.table) == tmp_path / "faro-1-archive"
    chosen = parse_config('[table]\narchive_every = 0\narchive_dir = "/srv/old"\n')
    assert (chosen.table.archive_every, archive_folder(chosen.table)) == (0, Path("/srv/old"))
    with pytest.raises(ConfigError, match="archive_every"):
        parse_config("[table]\narchive_every = -1\n")
    a_file = tmp_path / "file"
    a_file.write_text("")
    with pytest.raises(ConfigError, match="archive_dir: expected a folder"):
        parse_config(f'[table]\narchive_dir = "{a_file}"\n')


def test_past_archives_kept_the_oldest_archives_are_deleted(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """An exhibit's SD card would fill with archives in a year or two: with archives_kept,
    the newest are kept and the oldest deleted as each new one is written, each said."""
    path, every_one = tmp_path / "faro.sqlite", tmp_path / "all" / "faro.sqlite"
    every_one.parent.mkdir()
    journal = open_journal(path)
    service = TableService(archiving(faro_config(path), 300, kept=2), journal, clock=lambda: 1.8e9)
    stranger = tmp_path / "faro-archive" / "notes.sqlite"
    stranger.parent.mkdir()
    stranger.write_text("not an archive of this journal")
    simulated = SimulatedTable(service, seed=3)
    with caplog.at_level(logging.INFO, "dealtable"):
        for _ in range(1200):
            simulated.step()
    journal.close()
    dealt(every_one, 1200, every=300)
    kept, written = archives_beside(path), archives_beside(every_one)
    assert len(written) > 4
    assert [archive.name for archive in kept] == [archive.name for archive in written[-2:]]
    assert records_of(*kept, path) == records_of(*written[-2:], every_one)
    assert caplog.text.count("is deleted: 2 are kept") == len(written) - 2
    assert stranger.read_text() == "not an archive of this journal"


class ReadsFailing:
    """A journal's connection whose reads matching ``failing`` meet a disk read error once
    ``failing`` is set: the SD card's sectors gone unreadable under it."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self._db = db
        self.failing = ""

    def execute(self, sql: str, parameters: object = ()) -> sqlite3.Cursor:
        if self.failing and sql.startswith("SELECT") and self.failing in sql:
            raise sqlite3.OperationalError("disk I/O error")  # as SQLite's SQLITE_IOERR comes
        return self._db.execute(sql, parameters)  # type: ignore[arg-type]

    def __getattr__(self, name: str) -> object:
        return getattr(self._db, name)


@pytest.mark.parametrize("failing", ["FROM checkpoints", "type = 'rules_chosen'", "FROM cursors"])
def test_a_read_that_fails_as_records_are_archived_moves_nothing_and_the_table_deals_on(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, failing: str
) -> None:
    """A disk read error as a new deck goes in and records would move (where the spare
    checkpoint is, what the records moved take with them, how far the outbox has sent: a
    place unread is no leave to archive what it may not have sent): said in the log, nothing moves
    this time, the table deals on and archives at a later deck once the disk reads again."""
    path, whole = tmp_path / "faro.sqlite", tmp_path / "whole.sqlite"
    unarchived = dealt(whole, 400, every=0).state
    journal = open_journal(path)
    reads = ReadsFailing(journal._db)
    journal._db = reads  # type: ignore[assignment]
    service = TableService(archiving(faro_config(path), 300), journal, clock=lambda: 1.8e9)
    simulated = SimulatedTable(service, seed=3)
    reads.failing = failing
    with caplog.at_level(logging.WARNING, "dealtable"):
        for _ in range(400):
            simulated.step()
    assert "disk I/O error" in caplog.text
    assert "the records stay in the journal until the next deck" in caplog.text
    assert journal.first_seq == 1
    assert service.state == unarchived
    reads.failing = ""
    while journal.first_seq == 1:
        simulated.step()
    journal.close()
    archived = archives_beside(path)
    assert records_of(*archived, path)[: len(records_of(whole))] == records_of(whole)


def test_the_table_deals_on_while_its_archive_is_written_aside(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """At a new deck the archive is written on a thread of its own (held up here, as a slow
    SD card would hold it): the table deals cards and takes commands meanwhile, each
    journaled at once; once written, the records leave the journal, and the archive and the
    journal hold every record once."""
    path, whole = tmp_path / "faro.sqlite", tmp_path / "whole.sqlite"
    dealt(whole, 500, every=0)
    write = Journal._write_archive
    writing, disk_slow = threading.Event(), threading.Event()
    writers: list[threading.Thread] = []

    def slow_disk(self: Journal, target: Path, first: int, upto: int) -> None:
        writers.append(threading.current_thread())
        writing.set()
        disk_slow.wait(60)  # set by the test once it has dealt meanwhile
        write(self, target, first, upto)

    monkeypatch.setattr(Journal, "_write_archive", slow_disk)
    journal = open_journal(path)
    config = archiving(faro_config(path), 300)
    service = TableService(config, journal, clock=lambda: 1.8e9, archive_aside=True)
    simulated = SimulatedTable(service, seed=3)
    while not writing.is_set():
        simulated.step()
    assert writers == [writers[0]] and writers[0] is not threading.current_thread()
    assert service.archiving
    during = journal.last_seq
    for _ in range(30):
        simulated.step()  # cards and the simulated punters' bets, served at once
        service.archive_some()  # the service's loop: nothing to do until the archive is in
    dealt_alike = journal.last_seq
    service.execute_line("punter zed 10")
    assert journal.last_seq > dealt_alike > during + 30
    assert journal.first_seq == 1 and archives_beside(path) == []
    disk_slow.set()
    while service.archiving:
        service.archive_some()
    journal.close()
    [archive] = archives_beside(path)
    with Journal(path, read_only=True) as kept:
        assert kept.first_seq == records_of(archive)[-1][0] + 1
    every_record = records_of(archive, path)
    assert [record[0] for record in every_record] == list(range(1, len(every_record) + 1))
    assert every_record[:dealt_alike] == records_of(whole)[:dealt_alike]
    checked = dealtable_here("verify", str(archive), str(path))
    assert checked.returncode == 0, checked.stdout


def test_dealtable_run_writes_its_archives_aside(tmp_path: Path) -> None:
    """The service `dealtable run` opens writes an archive on a thread of its own, for its
    loop to drop the records once it is in place."""
    journal, service = open_table(archiving(faro_config(tmp_path / "faro.sqlite"), 300))
    assert service.archive_aside
    journal.close()


def sound_checkpoints(path: Path) -> list[int]:
    with Journal(path, read_only=True) as journal:
        return [seq for seq, _, sound in journal.checkpoints() if sound]


def test_the_archived_records_leave_the_journal_a_deck_at_a_time_and_a_stop_between_loses_none(
    tmp_path: Path,
) -> None:
    """`dealtable run`'s loop drops the records of an archive in place a deck at a time, one
    transaction at each turn, so that the table waits for no more than a deck's between two
    cards; the journal begins at a checkpoint after each. Stopped between two, the archive
    and the journal both hold the records not yet dropped: verify says so and passes,
    history, export and backup read the journal as it stands, and the start finishes."""
    path, whole = tmp_path / "faro.sqlite", tmp_path / "whole.sqlite"
    dealt(whole, 1200, every=0)
    config = archiving(faro_config(path), 900)
    journal = open_journal(path)
    service = TableService(config, journal, clock=lambda: 1.8e9, archive_aside=True)
    simulated = SimulatedTable(service, seed=3)
    while not service.archiving:
        simulated.step()
    while journal.first_seq == 1:
        service.archive_some()  # the archive written aside, then the first deck dropped
    [archive] = archives_beside(path)
    with Journal(archive, read_only=True) as archived:
        archived_upto = archived.last_seq
    begins = [journal.first_seq]
    assert journal.first_seq in sound_checkpoints(path)
    service.archive_some()
    begins.append(journal.first_seq)
    assert journal.first_seq in sound_checkpoints(path)
    assert 1 < begins[0] < begins[1] <= archived_upto, begins
    assert begins[1] - begins[0] < 250  # a deck: Faro's are under 200 records here
    journal.close()
    service.stop_archiving()  # the service stops between two decks

    checked = dealtable_here("verify", str(archive), str(path))
    assert checked.returncode == 0, checked.stdout
    assert f"records {begins[1]} to {archived_upto} are in {archive} too" in checked.stdout
    alone = dealtable_here("verify", str(path))
    assert alone.returncode == 0, alone.stdout
    exported = dealtable_here("export", str(path)).stdout.splitlines()
    assert len(exported) == len(records_of(path)) and f'"seq":{begins[1]},' in exported[0]
    listed = dealtable_here("history", str(path))
    assert listed.returncode == 0 and listed.stdout, listed.stderr
    copy = tmp_path / "copy.sqlite"
    copied = dealtable_here("backup", str(path), str(copy))
    assert copied.returncode == 0, copied.stderr
    assert records_of(copy) == records_of(path)
    with_copy = dealtable_here("verify", str(archive), str(copy))
    assert with_copy.returncode == 0, with_copy.stdout

    journal, service = open_table(config)  # dealtable run starts again
    assert service.archiving and journal.first_seq == begins[1]
    while service.archiving:
        service.archive_some()
        assert journal.first_seq in sound_checkpoints(path)
    assert journal.first_seq == archived_upto + 1
    journal.close()
    assert records_of(archive, path) == records_of(whole)[: len(records_of(archive, path))]
    checked = dealtable_here("verify", str(archive), str(path))
    assert checked.returncode == 0 and "too" not in checked.stdout, checked.stdout


def test_the_next_archiving_finishes_dropping_an_archive_stopped_between_two_decks(
    tmp_path: Path,
) -> None:
    """`dealtable archive` (and a table's next archiving) takes an archive whose records
    partly left the journal as written: it drops the rest, never writing them to a second
    archive."""
    path = tmp_path / "faro.sqlite"
    journal = open_journal(path)
    service = TableService(
        archiving(faro_config(path), 900), journal, clock=lambda: 1.8e9, archive_aside=True
    )
    simulated = SimulatedTable(service, seed=3)
    while not service.archiving:
        simulated.step()
    while journal.first_seq == 1:
        service.archive_some()
    service.stop_archiving()
    for _ in range(700):  # decks on, with no archiving due yet
        simulated.step()
    before = records_of(path)
    journal.close()
    [archive] = archives_beside(path)
    archived = records_of(archive)
    moved = dealtable_here("archive", str(path))
    assert moved.returncode == 0, moved.stderr
    assert archives_beside(path)[0] == archive
    assert records_of(*archives_beside(path), path) == archived + [
        record for record in before if record[0] > archived[-1][0]
    ]
    checked = dealtable_here("verify", *map(str, archives_beside(path)), str(path))
    assert checked.returncode == 0 and "too" not in checked.stdout, checked.stdout


def test_a_continuous_shufflers_archive_written_aside_through_a_coup_leaves_the_journal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A continuous shuffler keeps a checkpoint at each coup's lock, and thins them to one
    every hundred records or so. An archive that takes longer to write than a coup (a slow
    SD card, a long journal) still ends where the journal then begins: its records all
    leave the journal, and the table archives again as it deals on."""
    path = tmp_path / "pb.sqlite"
    config = archiving(punto_banco_config(path), 200)
    config = dataclasses.replace(
        config, table=dataclasses.replace(config.table, rules="shuffler", options={})
    )
    write = Journal._write_archive
    writing, disk_slow = threading.Event(), threading.Event()

    def slow_disk(self: Journal, target: Path, first: int, upto: int) -> None:
        writing.set()
        disk_slow.wait(60)  # set by the test once it has dealt meanwhile
        write(self, target, first, upto)

    monkeypatch.setattr(Journal, "_write_archive", slow_disk)
    chance = random.Random(5)
    cards = [Card(rank, suit) for rank in Rank for suit in Suit]
    journal = open_journal(path, "pb")
    service = TableService(config, journal, clock=lambda: 1.8e9, archive_aside=True)
    service.execute_line("punter ana 5000")
    service.execute_line("shuffle")

    def coup(number: int) -> None:
        service.execute_line(f"bet ana {('player', 'banker')[number % 2]} 5")
        service.execute_line("lock")
        while service.state.phase is BaccaratPhase.DEALING:
            service.card(chance.choice(cards))
        service.archive_some()  # the service's loop, between two commands

    number = 0
    while not writing.is_set():
        coup(number)
        number += 1
    for _ in range(2):  # coups dealt while the archive is written
        coup(number)
        number += 1
    disk_slow.set()
    while service.archiving:
        service.archive_some()
    [archive] = archives_beside(path)
    assert journal.first_seq == records_of(archive)[-1][0] + 1
    for _ in range(60):
        coup(number)
        number += 1
    while service.archiving:
        service.archive_some()
    journal.close()
    archives = archives_beside(path)
    assert len(archives) > 1
    every_record = records_of(*archives, path)
    assert [record[0] for record in every_record] == list(range(1, len(every_record) + 1))
    checked = dealtable_here("verify", *map(str, archives), str(path))
    assert checked.returncode == 0 and "too" not in checked.stdout, checked.stdout


@pytest.mark.parametrize("archived_before", [0, 1])
def test_verify_passes_an_archive_in_place_whose_records_have_not_begun_to_leave(
    tmp_path: Path, archived_before: int
) -> None:
    """Stopped (or the power cut) once the archive written aside is in place, before the
    loop dropped the first of its records: the archive and the journal hold the same records
    from where the archive begins, as the next start finishes. Verify says so and passes,
    as it does once some have left; the start then drops them."""
    path = tmp_path / "faro.sqlite"
    config = archiving(faro_config(path), 300)
    journal = open_journal(path)
    service = TableService(config, journal, clock=lambda: 1.8e9, archive_aside=True)
    simulated = SimulatedTable(service, seed=3)
    for _ in range(archived_before):
        while not service.archiving:
            simulated.step()
        while service.archiving:
            service.archive_some()
    while not service.archiving:
        simulated.step()
    while len(archives_beside(path)) == archived_before:
        service.archive_some()
    begins = journal.first_seq
    service.stop_archiving()
    journal.close()
    archives = archives_beside(path)
    with Journal(archives[-1], read_only=True) as archive:
        assert archive.first_seq == begins
        archived_upto = archive.last_seq

    checked = dealtable_here("verify", *map(str, archives), str(path))
    assert checked.returncode == 0, checked.stdout
    assert f"records {begins} to {archived_upto} are in {archives[-1]} too" in checked.stdout

    journal, service = open_table(config)  # dealtable run starts again
    while service.archiving:
        service.archive_some()
    assert journal.first_seq == archived_upto + 1
    journal.close()
    checked = dealtable_here("verify", *map(str, archives), str(path))
    assert checked.returncode == 0 and "too" not in checked.stdout, checked.stdout
