"""A long journal resumes from the state its last deck or shoe began with, kept beside the
events (a checkpoint), and reads only the events since: exactly the table a replay of every
event gives, in a time and memory that do not grow with the journal."""

from __future__ import annotations

import contextlib
import json
import logging
import random
import sqlite3
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

import table.service.journal as journal_module
from table.baccarat import BaccaratTable
from table.baccarat.engine import Phase as BaccaratPhase
from table.baccarat.shoe import BaccaratShoe
from table.cards import Card, Rank, Suit
from table.checkpoints import checkpoint_of, state_from_checkpoint
from table.errors import TableError
from table.events import DeckStarted, Event, ReaderNoticeKind, ShoeStarted
from table.faro import FaroTable
from table.service.config import Config, ConfigError, ReaderConfig, TableConfig
from table.service.journal import CHECKPOINTS_KEPT, Journal
from table.service.run import SimulatedTable
from table.service.table_service import TableService, table_from_journal
from tests.conftest import punto_banco_config


def faro_config(path: Path) -> Config:
    return Config(table=TableConfig(journal=str(path)), reader=ReaderConfig(seed=3))


def open_journal(path: Path, table_id: str = "table") -> Journal:
    journal = Journal(path, table_id)
    # What is checked here is the state, not the durability: fsync is left to the OS.
    journal._db.execute("PRAGMA synchronous=OFF")
    return journal


def deal_faro(path: Path, steps: int) -> TableService:
    """A simulated Faro table dealt ``steps`` steps (a new deck, or bets and a card), its
    journal left closed."""
    journal = open_journal(path)
    service = TableService(faro_config(path), journal)
    simulated = SimulatedTable(service, seed=3)
    for _ in range(steps):
        simulated.step()
    journal.close()
    return service


def last_start(path: Path, kind: type[Event]) -> int:
    with Journal(path, read_only=True) as journal:
        return max(event.seq for event in journal.events() if isinstance(event, kind))


class CountingDecodes:
    """How many records a start decodes into events."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.count = 0
        decode = journal_module.decode_record

        def counted(path: Path, seq: int, body: str) -> Event:
            self.count += 1
            return decode(path, seq, body)

        monkeypatch.setattr(journal_module, "decode_record", counted)


def resume(path: Path, config: Config) -> tuple[TableService, Journal]:
    journal = open_journal(path, config.table.id)
    try:
        return TableService(config, journal), journal
    except BaseException:
        journal.close()
        raise


@pytest.mark.parametrize("steps", [0, 1, 40, 53, 54, 160, 215])
def test_a_faro_table_resumes_from_its_last_deck_as_a_replay_of_every_event_would(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, steps: int
) -> None:
    """Stopped before the first deck, mid-deal, just after a deck went in, between deals, on
    the fourth deal: the resumed table is the live one and the full replay's, and its start
    decoded only the events since the last deck went in."""
    path = tmp_path / "faro.sqlite"
    live = deal_faro(path, steps).state
    decodes = CountingDecodes(monkeypatch)
    service, journal = resume(path, faro_config(path))
    with journal:
        assert service.resumed
        started = decodes.count
        replayed = FaroTable.replay(list(journal.events()), "table").state
        if journal.checkpoints():
            assert started == journal.last_seq - last_start(path, DeckStarted)
            assert started < journal.last_seq
        else:
            assert started == journal.last_seq  # before the first deck: every event
    assert service.state == live == replayed
    assert service.state.bankrolls == live.bankrolls


def test_a_resumed_table_deals_on_and_its_next_start_resumes_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A table resumed from a checkpoint keeps its own when it deals the next deck, and what
    it deals after a restart is what a table never stopped deals."""
    stopped, never_stopped = tmp_path / "stopped.sqlite", tmp_path / "never.sqlite"
    deal_faro(stopped, 80)
    service, journal = resume(stopped, faro_config(stopped))
    simulated = SimulatedTable(service, seed=3)
    for _ in range(100):
        simulated.step()
    journal.close()
    unbroken = deal_faro(never_stopped, 180).state
    decodes = CountingDecodes(monkeypatch)
    again, journal = resume(stopped, faro_config(stopped))
    with journal:
        assert decodes.count == journal.last_seq - last_start(stopped, DeckStarted)
    assert again.state.bankrolls == unbroken.bankrolls
    assert again.state.deal == unbroken.deal == 4
    assert (again.state.phase, again.state.turn) == (unbroken.phase, unbroken.turn)
    assert again.state.casekeep == unbroken.casekeep


def deal_punto_banco(service: TableService, seed: int, stop_after: int) -> Iterator[None]:
    """Shoes of a six-deck Punto Banco with bets on every coup, a step at a time."""
    for shoe_number in range(stop_after):
        shoe = BaccaratShoe(6, 16, random.Random(seed + shoe_number))
        service.execute_line("shuffle")
        yield
        state = service.state
        while state.phase is BaccaratPhase.BURNING:
            service.card(shoe.draw())
        coup = 0
        while state.phase is BaccaratPhase.BETTING:
            for number, punter in enumerate(("ana", "ben")):
                side = ("player", "banker", "tie")[(coup + number) % 3]
                with contextlib.suppress(TableError):  # a punter gone broke
                    service.execute_line(f"bet {punter} {side} {5 + number}")
            service.execute_line("lock")
            while state.phase is BaccaratPhase.DEALING:
                service.card(shoe.draw())
                yield
            coup += 1


@pytest.mark.parametrize("cards", [0, 7, 90, 200])
def test_a_punto_banco_table_resumes_from_its_last_shoe(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cards: int
) -> None:
    """Baccarat keeps a checkpoint where each shoe goes in, its commission boxes and the
    last coup's result included."""
    path = tmp_path / "pb.sqlite"
    config = punto_banco_config(path)
    journal = open_journal(path, "pb")
    service = TableService(config, journal)
    service.execute_line("punter ana 300")
    service.execute_line("punter ben 300")
    steps = deal_punto_banco(service, seed=11, stop_after=4)
    for _ in range(cards + 1):
        next(steps)
    live = service.state
    journal.close()
    decodes = CountingDecodes(monkeypatch)
    resumed, journal = resume(path, config)
    with journal:
        assert decodes.count == journal.last_seq - last_start(path, ShoeStarted)
        replayed = BaccaratTable.replay(list(journal.events()), "pb").state
    assert resumed.state == live == replayed
    assert resumed.state.commission_box == live.commission_box
    assert resumed.state.since_checkpoint == live.since_checkpoint


def verify(path: Path) -> subprocess.CompletedProcess[str]:
    """``dealtable verify`` on a journal, as its keeper runs it."""
    return subprocess.run(
        [sys.executable, "-m", "table.service.cli", "verify", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def edit_checkpoint(path: Path, change: Callable[[dict[str, object]], None]) -> None:
    with sqlite3.connect(path) as db:
        seq, body = db.execute("SELECT seq, body FROM checkpoints ORDER BY seq DESC").fetchone()
        data = json.loads(body)
        change(data)
        db.execute("UPDATE checkpoints SET body = ? WHERE seq = ?", (json.dumps(data), seq))
    db.close()


def test_the_spare_checkpoint_is_the_older_of_the_two_newest_sound_however_many_are_not(
    tmp_path: Path,
) -> None:
    """Archiving moves the records before the older of the two newest sound checkpoints: with
    the newest three spoiled (a page gone bad), those two are the fourth and fifth newest,
    found however far back they lie among every deck's checkpoints."""
    path = tmp_path / "faro.sqlite"
    deal_faro(path, 300)
    with contextlib.closing(sqlite3.connect(path)) as db, db:
        kept = [seq for (seq,) in db.execute("SELECT seq FROM checkpoints ORDER BY seq DESC")]
        assert len(kept) >= 5
        db.executemany(
            "UPDATE checkpoints SET body = body || ' ' WHERE seq = ?", [(seq,) for seq in kept[:3]]
        )
    with Journal(path, read_only=True) as journal:
        assert [sound for _, _, sound in journal.checkpoints()][:5] == [False] * 3 + [True] * 2
        assert journal.before_spare_checkpoint() == kept[4] - 1


class CountingCheckpointsRead:
    """The stored checkpoints whose bodies are read and held against their records."""

    def __init__(self, path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        with contextlib.closing(sqlite3.connect(path)) as db:
            self.stored = dict(db.execute("SELECT body, seq FROM checkpoints").fetchall())
        self.read: list[int] = []
        hashed = journal_module.record_hash

        def counted(prev_hash: str, body: str) -> str:
            if body in self.stored:
                self.read.append(self.stored[body])
            return hashed(prev_hash, body)

        monkeypatch.setattr(journal_module, "record_hash", counted)


def test_a_start_reads_the_newest_checkpoint_and_none_of_every_decks_before_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A table that archives keeps every deck's checkpoint since its last archiving (a few
    MB in a long day): a start reads the newest, and none of the others; with the newest
    spoiled, the one before it, and no further."""
    path = tmp_path / "faro.sqlite"
    live = deal_faro(path, 600).state
    read = CountingCheckpointsRead(path, monkeypatch)
    newest, before, *older = sorted(read.stored.values(), reverse=True)
    assert len(older) >= 8
    service, journal = resume(path, faro_config(path))
    journal.close()
    assert service.state == live
    assert read.read == [newest]
    edit_checkpoint(path, lambda data: data.update(edited=True))
    read = CountingCheckpointsRead(path, monkeypatch)
    service, journal = resume(path, faro_config(path))
    journal.close()
    assert service.state == live
    assert read.read == [newest, before]


def test_an_edited_checkpoint_is_not_read_and_the_journal_is_replayed_instead(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A checkpoint is chained to its record: one edited (a bankroll raised) is named in the
    log and set aside; the chips come from the events, which the chain vouches for."""
    path = tmp_path / "faro.sqlite"
    live = deal_faro(path, 300).state
    with Journal(path, read_only=True) as journal:
        # Every deck's, the records to be archived (by default) leaving a deck at a time.
        assert len(journal.checkpoints()) > CHECKPOINTS_KEPT

    def raise_a_bankroll(data: dict[str, object]) -> None:
        bankrolls = data["bankrolls"]
        assert isinstance(bankrolls, dict)
        bankrolls[next(iter(bankrolls))] += 1_000

    edit_checkpoint(path, raise_a_bankroll)
    with caplog.at_level(logging.INFO, logger="dealtable"):
        service, journal = resume(path, faro_config(path))
    kept = sorted(seq for seq, _, _ in journal.checkpoints())
    journal.close()
    assert service.state == live
    assert service.state.total_chips() == live.total_chips()
    assert "does not match that record; it is not read" in caplog.text
    verified = verify(path)
    *older, next_older, newer, newest = kept
    assert verified.returncode == 0, verified.stderr  # the records, the truth, are intact
    assert verified.stdout.splitlines()[1:] == [
        f"  checkpoint after record {newest}: does not match that record; not read",
        f"  checkpoint after record {newer}: sound",
        f"  checkpoint after record {next_older}: sound",
        f"  {len(older)} older checkpoints sound, after records {older[0]} to {older[-1]} "
        "(kept while archived records leave the journal a deck at a time)",
    ]


def spoil_the_checkpoints_page(path: Path) -> None:
    """The SD card's page that holds the journal's checkpoints gone bad."""
    with contextlib.closing(sqlite3.connect(path)) as db:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        pages = db.execute("SELECT pageno FROM dbstat WHERE name = 'checkpoints'").fetchall()
    spoiled = bytearray(path.read_bytes())
    for (page,) in pages:
        spoiled[(page - 1) * 4096 : page * 4096] = b"\xa5" * 4096
    path.write_bytes(bytes(spoiled))


def test_a_bad_page_of_checkpoints_is_named_by_verify_and_the_table_replays_its_records(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Checkpoints only save time: their page gone bad, verify names the damage with no
    traceback, and a start rebuilds the table from the records, which are intact."""
    path = tmp_path / "faro.sqlite"
    live = deal_faro(path, 130).state
    spoil_the_checkpoints_page(path)
    verified = verify(path)
    assert (verified.returncode, verified.stderr) == (1, "")
    assert verified.stdout.splitlines() == [
        f"{path}: BROKEN in its checkpoints, which a start does not read; "
        f"{live.last_seq} records, chain intact",
        f"  journal {path}: cannot read its checkpoints: database disk image is malformed",
    ]
    with caplog.at_level(logging.WARNING, logger="dealtable"):
        service, journal = resume(path, faro_config(path))
    journal.close()
    assert service.state == live
    assert "cannot read its checkpoints" in caplog.text
    assert "the table is rebuilt from the records" in caplog.text


def test_a_checkpoint_of_another_state_is_not_read(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A checkpoint written by a dealtable whose table state had other fields is read by
    none other: the journal is replayed from its last readable checkpoint or its start."""
    path = tmp_path / "faro.sqlite"
    live = deal_faro(path, 130).state
    with sqlite3.connect(path) as db:
        for seq, body in db.execute("SELECT seq, body FROM checkpoints").fetchall():
            data = json.loads(body)
            data["state_fields"].append("shuffle_tracking")
            stored = db.execute("SELECT hash FROM events WHERE seq = ?", (seq,)).fetchone()[0]
            text = json.dumps(data)
            db.execute(
                "UPDATE checkpoints SET body = ?, hash = ? WHERE seq = ?",
                (text, journal_module.record_hash(stored, text), seq),
            )
    db.close()
    with caplog.at_level(logging.INFO, logger="dealtable"):
        service, journal = resume(path, faro_config(path))
    journal.close()
    assert service.state == live
    assert "written for a table state with other fields" in caplog.text


def test_a_checkpoint_forged_with_its_hash_recomputed_is_found_by_verify(tmp_path: Path) -> None:
    """Like the chain, a checkpoint's hash finds damage and a careless edit, not a forger who
    recomputes it; verify folds the records and holds each checkpoint against them."""
    path = tmp_path / "faro.sqlite"
    deal_faro(path, 130)
    with sqlite3.connect(path) as db:
        seq, body = db.execute("SELECT seq, body FROM checkpoints ORDER BY seq DESC").fetchone()
        data = json.loads(body)
        data["bankrolls"][next(iter(data["bankrolls"]))] += 1_000
        text = json.dumps(data)
        stored = db.execute("SELECT hash FROM events WHERE seq = ?", (seq,)).fetchone()[0]
        db.execute(
            "UPDATE checkpoints SET body = ?, hash = ? WHERE seq = ?",
            (text, journal_module.record_hash(stored, text), seq),
        )
    db.close()
    verified = verify(path)
    assert verified.returncode == 1
    lines = verified.stdout.splitlines()
    assert lines[0] == (
        f"{path}: BROKEN at the checkpoint after record {seq}: it contradicts the records, "
        "which fold to another table"
    )
    assert f"  checkpoint after record {seq}: contradicts the records; a start would read it" in (
        lines
    )


def test_a_continuous_shufflers_table_keeps_a_checkpoint_as_each_coup_locks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A shuffler's shoe never ends: the checkpoint a void goes back to, and the one the
    journal keeps, come with each coup instead, so neither the log a void replays nor a
    start grows with the day."""
    path = tmp_path / "pb.sqlite"
    config = Config(
        table=TableConfig(id="pb", game="punto-banco", rules="shuffler", bank=100_000,
                          journal=str(path)),
        reader=ReaderConfig(kind="console"),
    )  # fmt: skip
    journal = open_journal(path, "pb")
    service = TableService(config, journal)
    service.execute_line("punter ana 5000")
    service.execute_line("shuffle")
    chance = random.Random(5)
    cards = [Card(rank, suit) for rank in Rank for suit in Suit]
    longest_log = 0
    for coup in range(120):
        with contextlib.suppress(TableError):
            service.execute_line(f"bet ana {('player', 'banker')[coup % 2]} 5")
        service.execute_line("lock")
        while service.state.phase is BaccaratPhase.DEALING:
            service.card(chance.choice(cards))  # the shuffler takes every coup's cards back
        longest_log = max(longest_log, len(service.state.since_checkpoint))
    assert longest_log < 20  # one coup's events, not the shoe's
    live = service.state
    journal.close()
    decodes = CountingDecodes(monkeypatch)
    resumed, journal = resume(path, config)
    with journal:
        assert decodes.count < 20
        replayed = BaccaratTable.replay(list(journal.events()), "pb").state
        assert resumed.state == live == replayed
        assert resumed.state.since_checkpoint == live.since_checkpoint
        resumed.execute_line("lock")
        resumed.card(chance.choice(cards))
        assert resumed.execute_line("void")  # the coup's first card, voided after the restart


def test_a_journal_written_before_checkpoints_resumes_and_gets_them(tmp_path: Path) -> None:
    """A journal with no checkpoints table (written by an earlier dealtable) is read by the
    tools as it is, replayed whole at start, and keeps checkpoints from the next deck on."""
    path = tmp_path / "faro.sqlite"
    live = deal_faro(path, 70).state
    with sqlite3.connect(path) as db:
        db.execute("DROP TABLE checkpoints")
    db.close()
    with Journal(path, read_only=True) as journal:
        assert journal.checkpoints() == []
    service, journal = resume(path, faro_config(path))
    assert service.state == live
    simulated = SimulatedTable(service, seed=3)
    while service.state.deal == live.deal:
        simulated.step()
    assert [seq for seq, _, sound in journal.checkpoints() if sound] == [
        last_start(path, DeckStarted)
    ]
    journal.close()


def test_a_config_for_another_game_is_refused_from_a_checkpoint_too(tmp_path: Path) -> None:
    path = tmp_path / "faro.sqlite"
    deal_faro(path, 70)
    with pytest.raises(ConfigError, match=r"deals faro \(classic rules\) but .* deals punto-banco"):
        resume(path, Config(table=TableConfig(journal=str(path), game="punto-banco")))


def test_no_checkpoint_is_kept_of_a_state_it_would_not_give_back() -> None:
    """An alarm waiting when the deck goes in is not kept: the start replays from the
    checkpoint before, which holds none."""
    table = FaroTable("t")
    table.fund_bank(1000)
    table.seat("anna", 100)
    events = table.new_deck()
    state = table.state
    assert state.checkpoint is not None
    assert checkpoint_of(state.checkpoint, events[-1].seq) is not None
    table.deal("2H")
    table.deal("2H")  # seen twice: an alarm waits
    assert state.alarm is not None
    assert checkpoint_of(state, state.last_seq) is None


def test_a_deck_that_goes_in_under_standing_bets_is_kept_with_them() -> None:
    """003: high card and odd/even stand from deal to deal, so the state a deck starts
    with holds them; its checkpoint keeps them, and one written before (format 1, when no
    bet stood from deal to deal) is still read."""
    table = FaroTable("t")
    table.fund_bank(1000)
    table.seat("anna", 100)
    table.new_deck()
    table.deal("2C")
    table.bet("anna", "odd", 3)
    for card in table.state.casekeep.remaining_cards():
        table.deal(card)
    events = table.new_deck()
    checkpoint = table.state.checkpoint
    assert checkpoint is not None and [b.spot.text for b in checkpoint.bets.values()] == ["odd"]
    kept = checkpoint_of(checkpoint, events[-1].seq)
    assert kept is not None and state_from_checkpoint(kept) == checkpoint
    table.withdraw("anna", "odd")
    table.void_deal()
    events = table.new_deck()
    empty = table.state.checkpoint
    assert empty is not None and empty.bets == {}
    older = json.loads(checkpoint_of(empty, events[-1].seq) or "")
    older["format"] = 1
    del older["bets"]
    assert state_from_checkpoint(json.dumps(older)) == empty


def test_a_deck_that_goes_in_while_a_reader_is_lost_is_kept_with_it() -> None:
    """The readers lost are the table's state like its bets: a deck's checkpoint keeps
    them. One written before a reader could be lost (format 2) reads as none lost."""
    table = FaroTable("t")
    table.fund_bank(1000)
    table.reader_notice("camera", ReaderNoticeKind.READER_LOST, "the camera is gone")
    events = table.new_deck()
    checkpoint = table.state.checkpoint
    assert checkpoint is not None
    kept = checkpoint_of(checkpoint, events[-1].seq)
    assert kept is not None and state_from_checkpoint(kept) == checkpoint
    assert state_from_checkpoint(kept).readers_lost == {"camera": "the camera is gone"}
    table.reader_notice("camera", ReaderNoticeKind.READER_BACK, "it reads again")
    events = table.new_deck()
    found = table.state.checkpoint
    assert found is not None
    older = json.loads(checkpoint_of(found, events[-1].seq) or "")
    older["format"] = 2  # as format 2 was written: no readers lost, and the hoc a field
    del older["readers_lost"]
    fields = older["state_fields"]
    fields.remove("readers_lost")
    fields.insert(fields.index("last_turn") + 1, "hoc")
    assert state_from_checkpoint(json.dumps(older)) == found


def test_a_shoe_that_goes_in_under_a_ties_stakes_is_kept_with_them() -> None:
    """002: a tie as the shoe's last coup leaves its stakes for the next shoe's first coup;
    the shoe's checkpoint keeps what stands from the tie, bet by bet. One written before
    (format 3 said only that a tie's stakes stood: every stake then stood whole) still reads."""
    table = BaccaratTable("t", "chemin-de-fer", options={"burn": "none"})
    for name in ("bea", "ana", "ben"):
        table.seat(name, 500)
    table.new_shoe()
    table.announce_bank(100)
    table.bet("ana", "player", 40)
    table.lock()
    table.cut()
    for card in ("2H", "2C", "5D", "5S"):
        table.deal(card)
    table.stand()  # the player's "non" on 7
    table.stand()  # the banker's: 7 against 7, a tie, and the shoe is over
    events = table.new_shoe()
    checkpoint = table.state.checkpoint
    assert checkpoint is not None and checkpoint.tied == {1: 40}
    kept = checkpoint_of(checkpoint, events[-1].seq)
    assert kept is not None and state_from_checkpoint(kept) == checkpoint
    older = json.loads(kept)
    older["format"] = 3
    older["carried"] = True
    del older["tied"]
    fields = older["state_fields"]
    fields[fields.index("tied")] = "carried"
    assert state_from_checkpoint(json.dumps(older)) == checkpoint


def test_the_table_at_any_record_is_read_from_the_checkpoint_before_it(tmp_path: Path) -> None:
    """``dealtable snapshot --journal --seq N`` draws the table after record N: from the
    newest checkpoint at or before N, or from the first event when N comes before them."""
    path = tmp_path / "faro.sqlite"
    deal_faro(path, 170)
    with Journal(path, read_only=True) as journal:
        events = list(journal.events())
        kept = sorted(seq for seq, _, _ in journal.checkpoints())
        for upto in (5, kept[0] - 1, kept[0], kept[0] + 9, kept[-1] + 1, journal.last_seq):
            held = table_from_journal(journal, "table", upto=upto)
            replayed = FaroTable.replay(events[:upto], "table")
            assert held.state == replayed.state, upto
            assert held.state.last_seq == upto


def test_a_checkpoint_that_cannot_be_made_keeps_no_event_unheard(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """A checkpoint only saves time: if making one fails, the deck's events, journaled
    already, still reach every listener, and the log says what failed."""
    import table.service.table_service as service_module

    def broken(state: object, seq: int) -> str:
        raise TypeError("not JSON serializable")

    monkeypatch.setattr(service_module, "checkpoint_of", broken)
    path = tmp_path / "faro.sqlite"
    with open_journal(path) as journal:
        service = TableService(faro_config(path), journal)
        heard: list[Event] = []
        service.listeners.append(heard.extend)
        events = service.execute_line("shuffle")
        assert (
            [event.type_name for event in heard]
            == ["deck_started"]
            == [event.type_name for event in events]
        )
        assert journal.checkpoints() == []
    assert "no checkpoint of the table after record" in caplog.text
