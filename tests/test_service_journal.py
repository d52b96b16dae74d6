"""The journal on a real SQLite file: append, replay, the hash chain, recall and export."""

from __future__ import annotations

import csv
import io
import json
import os
import sqlite3
from dataclasses import dataclass
from pathlib import Path

import pytest

from table.faro import FaroTable
from table.service.journal import (
    FORMAT_VERSION,
    GENESIS_HASH,
    Broken,
    Journal,
    JournalDamagedError,
    JournalError,
    JournalInUseError,
    record_hash,
)
from tests.conftest import deal_rest
from tests.test_service_readers import FullDisk


@dataclass
class Commits:
    """The transactions a journal committed: each a write and a sync of its disk."""

    count: int = 0


def count_commits(journal: Journal) -> Commits:
    """Count from now on the transactions ``journal`` commits: an explicit COMMIT, or a
    statement that writes outside a transaction (SQLite commits it alone)."""
    commits = Commits()
    db = journal._db

    def traced(sql: str) -> None:
        verb = sql.lstrip().split(maxsplit=1)[0].upper()
        if verb == "COMMIT" or (
            verb in ("INSERT", "UPDATE", "DELETE", "REPLACE") and not db.in_transaction
        ):
            commits.count += 1

    db.set_trace_callback(traced)
    return commits


def journal_with_a_deal(path: Path) -> tuple[Journal, FaroTable]:
    """A journal holding a whole table's life: setup, one full deal with a bet and a split."""
    record = FaroTable("t1")
    events = list(record.opening)
    events += record.fund_bank(1000)
    for name in ("dan", "anna", "ben"):
        events += record.seat(name, 100)
    events += record.new_deck()
    events += record.deal("2C")
    events += record.bet("dan", "9", 4)
    events += deal_rest(record, "KD 9C QH QS")
    journal = Journal(path, "t1")
    journal.append(events[:10])
    journal.append(events[10:])
    return journal, record


def test_events_survive_reopening_and_replay_to_the_same_state(tmp_path: Path) -> None:
    journal, table = journal_with_a_deal(tmp_path / "j.sqlite")
    last = journal.last_seq
    journal.close()
    reopened = Journal(tmp_path / "j.sqlite", "t1")
    assert reopened.last_seq == last
    assert FaroTable.replay(reopened.events()).state == table.state
    mode = sqlite3.connect(tmp_path / "j.sqlite").execute("PRAGMA journal_mode").fetchone()[0]
    assert mode == "wal"


def test_an_append_out_of_sequence_writes_nothing(tmp_path: Path) -> None:
    journal, table = journal_with_a_deal(tmp_path / "j.sqlite")
    last = journal.last_seq
    stray = table.new_deck()
    doubled = [stray[0], stray[0]]
    with pytest.raises(JournalError, match="expected"):
        journal.append(doubled)
    assert journal.last_seq == last
    assert len(list(journal.events())) == last


def test_verify_names_the_first_broken_record(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"
    journal, _ = journal_with_a_deal(path)
    assert journal.verify() is None
    journal.close()
    db = sqlite3.connect(path)
    seq, body = db.execute(
        "SELECT seq, body FROM events WHERE type = 'bet_settled' ORDER BY seq"
    ).fetchone()
    assert '"net":4' in body
    db.execute(
        "UPDATE events SET body = ? WHERE seq = ?", (body.replace('"net":4', '"net":40'), seq)
    )
    db.commit()
    with Journal(path, read_only=True) as damaged:
        broken = damaged.verify()
    assert broken is not None
    assert str(broken) == f"record {seq}: its content was changed after it was written"
    db.execute("DELETE FROM events WHERE seq = 12")
    db.commit()
    with Journal(path, read_only=True) as damaged:
        assert str(damaged.verify()) == "record 12: missing (the next record is 13)"


@pytest.mark.parametrize(
    ("column", "value", "said"),
    [
        ("deal", 7, "its deal column says 7, its record 1"),
        ("deal", "x", "its deal column says 'x', its record 1"),
        ("type", "bet_placed", "its type column says 'bet_placed', its record 'bet_settled'"),
        ("at", 99.5, "its time column says 99.5, its record 0.0"),
    ],
)
def test_verify_names_a_record_whose_columns_were_edited_apart_from_it(
    tmp_path: Path, column: str, value: object, said: str
) -> None:
    """The journal's deal, type and time columns, which history and the exports look records
    up by, are copies of what each record holds: edited apart from it, the record is named
    (its hash covers the record, not the copies)."""
    path = tmp_path / "j.sqlite"
    journal, _ = journal_with_a_deal(path)
    journal.close()
    with sqlite3.connect(path) as db:
        (seq,) = db.execute(
            "SELECT seq FROM events WHERE type = 'bet_settled' ORDER BY seq"
        ).fetchone()
        db.execute(f"UPDATE events SET {column} = ? WHERE seq = ?", (value, seq))
    db.close()
    with Journal(path, read_only=True) as damaged:
        assert str(damaged.verify()) == f"record {seq}: edited: {said}"


def test_a_damaged_journal_is_not_opened_for_writing_and_nothing_is_written(
    tmp_path: Path,
) -> None:
    path = tmp_path / "j.sqlite"
    journal, _ = journal_with_a_deal(path)
    journal.close()
    with sqlite3.connect(path) as db:
        db.execute("UPDATE events SET body = '{bad' WHERE seq = 20")
    db.close()
    before = path.read_bytes()
    with pytest.raises(JournalDamagedError) as refused:
        Journal(path, "t1")
    assert refused.value.broken == Broken(20, "its content was changed after it was written")
    assert path.read_bytes() == before


def test_records_cut_from_the_end_are_found_by_the_outbox_that_sent_them(
    tmp_path: Path,
) -> None:
    """A hash chain cannot show its own end cut off; the MQTT outbox remembers how far the
    journal was sent, so a journal that ends before that is refused."""
    path = tmp_path / "j.sqlite"
    journal, _ = journal_with_a_deal(path)
    sent = journal.last_seq
    journal.set_cursor("mqtt", sent)
    journal.close()
    with sqlite3.connect(path) as db:
        db.execute("DELETE FROM events WHERE seq > ?", (sent - 3,))
    db.close()
    before = path.read_bytes()
    with pytest.raises(JournalDamagedError) as refused:
        Journal(path, "t1")
    assert str(refused.value.broken) == (
        f"record {sent - 2}: missing: the journal ends at record {sent - 3}, but its mqtt "
        f"outbox had sent up to record {sent} (records were cut from its end)"
    )
    assert path.read_bytes() == before
    with Journal(path, read_only=True) as cut:
        assert cut.verify() == refused.value.broken


def test_a_record_rewritten_with_its_hashes_is_still_named_when_read(tmp_path: Path) -> None:
    """Whoever recomputes the hashes gets past the chain, but not past reading."""
    path = tmp_path / "j.sqlite"
    journal, _ = journal_with_a_deal(path)
    journal.close()
    with sqlite3.connect(path) as db:
        rows = db.execute("SELECT seq, type, body FROM events ORDER BY seq").fetchall()
        garbled = next(seq for seq, kind, _ in rows if kind == "turn_closed")
        prev_hash = GENESIS_HASH
        for seq, _, body in rows:
            body = "{bad" if seq == garbled else body
            digest = record_hash(prev_hash, body)
            db.execute(
                "UPDATE events SET body = ?, prev_hash = ?, hash = ? WHERE seq = ?",
                (body, prev_hash, digest, seq),
            )
            prev_hash = digest
    db.close()
    named = f"damaged at record {garbled}: unreadable"
    with Journal(path, read_only=True) as forged:
        forged.check_chain()
        assert str(forged.verify()).startswith(f"record {garbled}: unreadable: ")
        with pytest.raises(JournalDamagedError, match=named):
            list(forged.events())
        with pytest.raises(JournalDamagedError, match=named):
            forged.export_csv(io.StringIO())
        with pytest.raises(JournalError, match="a record cannot be read"):
            forged.deals()


def test_a_journal_from_a_newer_version_is_refused_untouched(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"
    Journal(path, "t1").close()
    db = sqlite3.connect(path)
    db.execute("UPDATE meta SET value = ? WHERE key = 'format'", (str(FORMAT_VERSION + 1),))
    db.commit()
    with pytest.raises(JournalError, match="newer dealtable"):
        Journal(path, "t1")
    assert db.execute("SELECT value FROM meta WHERE key='format'").fetchone()[0] == str(
        FORMAT_VERSION + 1
    )


def test_a_journal_belongs_to_one_table(tmp_path: Path) -> None:
    Journal(tmp_path / "j.sqlite", "t1").close()
    with pytest.raises(JournalError, match="belongs to table 't1'"):
        Journal(tmp_path / "j.sqlite", "t2")


def test_deals_are_listed_and_recalled(tmp_path: Path) -> None:
    journal, table = journal_with_a_deal(tmp_path / "j.sqlite")
    (deal,) = journal.deals()
    assert (deal.deal, deal.cards, deal.splits, deal.ended) == (
        1,
        52,
        table.state.splits,
        "finished",
    )
    recalled = list(journal.events(deal=1))
    assert recalled[0].type_name == "deck_started"
    assert recalled[-1].type_name == "deal_finished"


def test_export_json_lines_and_csv(tmp_path: Path) -> None:
    journal, _ = journal_with_a_deal(tmp_path / "j.sqlite")
    lines = io.StringIO()
    assert journal.export_jsonl(lines) == journal.last_seq
    first = json.loads(lines.getvalue().splitlines()[0])
    assert (first["seq"], first["type"]) == (1, "rules_chosen")
    table = io.StringIO()
    journal.export_csv(table)
    rows = list(csv.DictReader(io.StringIO(table.getvalue())))
    assert len(rows) == journal.last_seq
    won = [row for row in rows if row["type"] == "bet_settled" and row["punter"] == "dan"]
    assert (won[0]["spot"], won[0]["outcome"], won[0]["net"]) == ("9", "win", "4")


def test_cursors_only_move_forward_and_requests_are_remembered(tmp_path: Path) -> None:
    journal, _ = journal_with_a_deal(tmp_path / "j.sqlite")
    journal.set_cursor("mqtt", 30)
    journal.set_cursor("mqtt", 20)
    assert journal.cursor("mqtt") == 30
    journal.remember_request("r1", 31)
    journal.close()
    reopened = Journal(tmp_path / "j.sqlite")
    assert reopened.cursor("mqtt") == 30
    assert reopened.request_seq("r1") == 31
    assert reopened.request_seq("r2") is None


def test_a_journal_is_written_by_one_journal_at_a_time(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"
    journal, _ = journal_with_a_deal(path)
    last = journal.last_seq
    with pytest.raises(
        JournalInUseError, match=rf"in use by another process \(pid {os.getpid()}\)"
    ):
        Journal(path, "t1")
    with Journal(path, read_only=True) as reader:
        assert reader.last_seq == last  # reading needs no lock
    journal.close()
    with Journal(path, "t1") as reopened:
        assert reopened.last_seq == last


def test_a_note_rides_in_the_transaction_of_the_events_it_comes_with(tmp_path: Path) -> None:
    """A part of the service that keeps a note beside each command's events (what the layout
    board's frames brought) has it written in the command's own transaction: one commit, and
    the note is kept exactly when the events are. A rider with nothing new writes nothing."""
    journal, table = journal_with_a_deal(tmp_path / "j.sqlite")
    asked: list[tuple[str | None, int]] = []

    def rider(request_id: str | None, last_seq: int) -> dict[str, str]:
        asked.append((request_id, last_seq))
        return {"board-frame": f"up to {last_seq}"} if request_id else {}

    journal.riders.append(rider)
    commits = count_commits(journal)
    journal.append(table.new_deck(), "board-frame:7/3")
    assert commits.count == 1
    assert asked == [("board-frame:7/3", journal.last_seq)]
    assert journal.note("board-frame") == f"up to {journal.last_seq}"
    before = journal.last_seq
    journal.append(table.deal("2C"))  # nothing to say: the note stays
    assert commits.count == 2 and journal.note("board-frame") == f"up to {before}"

    journal._db = FullDisk(journal._db)  # type: ignore[assignment]
    with pytest.raises(JournalError, match="cannot append"):
        journal.append(table.deal("3D"), "board-frame:7/4")
    journal._db = journal._db.db  # type: ignore[attr-defined]
    assert journal.note("board-frame") == f"up to {before}"  # neither the events nor the note
    journal.close()
