"""The journal's commands as a user meets them: on files that are no journal, on journals in
folders no one may write to, on damaged journals, and on a journal another service uses."""

from __future__ import annotations

import functools
import os
import re
import shutil
import sqlite3
import subprocess
import threading
from collections.abc import Iterator
from contextlib import closing, contextmanager
from pathlib import Path

import pytest

import table.service.journal as journal_module
from table.faro import FaroTable
from table.service.config import Config, ReaderConfig, TableConfig
from table.service.journal import Journal, carry_on, record_hash
from table.service.table_service import TableService
from tests.commands import dealtable_here
from tests.conftest import punto_banco_config
from tests.mosquitto import free_port, wait_until
from tests.test_service_journal import journal_with_a_deal
from tests.test_service_run import CLI, RECORDS, dealtable, last_seq, progressed

READ_ONLY_COMMANDS = ("verify", "history", "export", "snapshot")


def read_only_command(command: str, journal: Path, tmp_path: Path) -> list[str]:
    if command == "snapshot":
        return ["snapshot", "--journal", str(journal), "--out", str(tmp_path / "table.png")]
    return [command, str(journal)]


# The commands that serve or deal on, run as a process of their own: a table's service and
# a page's server are processes a user starts, with their logging, signals and threads.
IN_A_PROCESS = ("run", "web")


def dealtable_at_once(commands: list[tuple[str, ...]]) -> list[subprocess.CompletedProcess[str]]:
    """Each command, in order: `run` and `web` each in its own process, all started together
    (they share nothing); the commands that read or copy a journal here meanwhile."""
    processes = {
        index: subprocess.Popen(
            [*CLI, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        for index, args in enumerate(commands)
        if args[0] in IN_A_PROCESS
    }
    done = []
    try:
        for index, args in enumerate(commands):
            process = processes.get(index)
            if process is None:
                done.append(dealtable_here(*args))
                continue
            out, err = process.communicate(timeout=60)
            done.append(subprocess.CompletedProcess(list(args), process.returncode, out, err))
    finally:
        for process in processes.values():
            if process.poll() is None:  # a command that never ended (`web` serving on)
                process.kill()
                process.wait()
    return done


@pytest.fixture(scope="module")
def run_journal(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A journal `dealtable run --deals 1` wrote, made once for the tests that copy it (see
    :func:`dealt_by_run`) to spoil it or deal on from it."""
    path = tmp_path_factory.mktemp("run") / "dealt.sqlite"
    made = dealtable("run", "--deals", "1", "--speed", "0", "--journal", str(path))
    assert made.returncode == 0, made.stderr
    assert not Path(f"{path}-wal").exists()  # closed: the file holds every record
    return path


def dealt_by_run(run_journal: Path, path: Path) -> Path:
    """The journal ``run_journal``, at ``path``."""
    shutil.copy(run_journal, path)
    return path


def files_in(folder: Path) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in sorted(folder.iterdir())}


def as_one_who_cannot_write() -> list[str]:
    """Root writes into any folder whatever its mode: the command runs without that power."""
    if os.geteuid() != 0:
        return []
    return ["setpriv", "--bounding-set=-dac_override", "--"]


@contextmanager
def read_only_folder(folder: Path) -> Iterator[None]:
    for path in folder.iterdir():
        path.chmod(0o444)
    folder.chmod(0o555)
    try:
        yield
    finally:
        folder.chmod(0o755)


def test_the_read_only_commands_refuse_a_file_that_is_no_journal_and_leave_it_as_it_was(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "files"
    folder.mkdir()
    with sqlite3.connect(folder / "foreign.db") as db:
        db.execute("CREATE TABLE pets (name TEXT)")
        db.execute("INSERT INTO pets VALUES ('rex')")
    db.close()
    (folder / "empty.sqlite").touch()
    (folder / "notes.txt").write_text("not a database\n")
    before = files_in(folder)
    # Every command on another program's database; each other kind of file once.
    said = {
        ("foreign.db", READ_ONLY_COMMANDS): "is not a dealtable journal (an SQLite database "
        "with the tables pets); nothing was changed",
        ("empty.sqlite", ("history",)): "is empty: not a dealtable journal",
        ("notes.txt", ("export",)): "is not a dealtable journal (not an SQLite database); "
        "nothing was changed",
    }
    expected = {}
    for (name, commands), reason in said.items():
        for command in commands:
            args = tuple(read_only_command(command, folder / name, tmp_path))
            expected[args] = f"dealtable {command}: {folder / name} {reason}\n"
    run = ("run", "--journal", str(folder / "foreign.db"), "--deals", "1", "--speed", "0")
    expected[run] = (
        f"dealtable run: {folder / 'foreign.db'} {said['foreign.db', READ_ONLY_COMMANDS]}\n"
    )
    missing = folder / "missing.sqlite"
    for command in ("verify", "snapshot"):
        args = tuple(read_only_command(command, missing, tmp_path))
        expected[args] = f"dealtable {command}: no journal at {missing}\n"
    for args, refused in zip(expected, dealtable_at_once(list(expected)), strict=True):
        assert (refused.returncode, refused.stdout, refused.stderr) == (2, "", expected[args])
    assert files_in(folder) == before
    assert not (tmp_path / "table.png").exists()


def test_a_journal_in_a_folder_no_one_may_write_to_is_verified_and_read(tmp_path: Path) -> None:
    folder = tmp_path / "archive"
    folder.mkdir()
    journal, _ = journal_with_a_deal(folder / "j.sqlite")
    records = journal.last_seq
    journal.close()
    before = files_in(folder)
    said = {}
    with read_only_folder(folder):
        for command in ("verify", "history", "export"):
            done = subprocess.run(
                [*as_one_who_cannot_write(), *CLI, command, str(folder / "j.sqlite")],
                capture_output=True,
                text=True,
                timeout=60,
                check=False,
            )
            assert done.returncode == 0, (command, done.stderr)
            said[command] = done.stdout
    assert said["verify"] == f"{folder / 'j.sqlite'}: {records} records, chain intact\n"
    assert " 52 cards " in said["history"] and "finished" in said["history"]
    assert len(said["export"].splitlines()) == records
    assert files_in(folder) == before


def damage(journal: Path, how: str) -> None:
    """Damage record 20 the way a careless or dishonest hand would."""
    sql = {
        "delete": "DELETE FROM events WHERE seq = 20",
        "garble": "UPDATE events SET body = '{bad' WHERE seq = 20",
        "edit": "UPDATE events SET body = replace(body, '\"at\":', '\"at\":1') WHERE seq = 20",
    }[how]
    with closing(sqlite3.connect(journal)) as db, db:
        db.execute(sql)


def test_a_damaged_journal_is_refused_by_run_and_shown_by_no_command(
    tmp_path: Path, run_journal: Path
) -> None:
    """A record deleted, garbled or edited: run will not deal on, the reading commands say
    what is wrong in one line instead of a traceback, and the file stays as it was."""
    sound = tmp_path / "sound.sqlite"
    dealt_by_run(run_journal, sound)
    reasons = {
        "delete": "missing (the next record is 21)",
        "garble": "its content was changed after it was written",
        "edit": "its content was changed after it was written",
    }
    expected: dict[tuple[str, ...], tuple[int, str, str]] = {}
    for how, reason in reasons.items():
        journal = tmp_path / f"{how}.sqlite"
        shutil.copy(sound, journal)
        damage(journal, how)
        damaged = f"journal {journal} is damaged at record 20: {reason}; "
        expected["run", "--journal", str(journal), "--deals", "1", "--speed", "0"] = (
            2,
            "",
            f"dealtable run: {damaged}dealtable deals on no damaged journal: keep the file as "
            "it is for inspection; 'dealtable carry-on JOURNAL NEW.sqlite' copies its sound "
            "records into a new journal to deal on from (run --journal NEW.sqlite, or journal "
            "in the config's [table])\n",
        )
        reading = "dealtable reads nothing from a damaged journal: keep the file as it is"
        for command in (
            ("history", str(journal)),
            ("history", str(journal), "1"),
            ("export", str(journal), "--format", "csv"),
            ("web", "--journal", str(journal), "--port", str(free_port())),
        ):
            expected[command] = (
                2,
                "",
                f"dealtable {command[0]}: {damaged}{reading} for inspection\n",
            )
        expected["verify", str(journal)] = (1, f"{journal}: BROKEN at record 20: {reason}\n", "")
    before = files_in(tmp_path)
    for args, done in zip(expected, dealtable_at_once(list(expected)), strict=True):
        assert (done.returncode, done.stdout, done.stderr) == expected[args], args
    after = files_in(tmp_path)
    assert {name: after[name] for name in before} == before


def test_a_second_service_on_a_journal_in_use_is_refused_and_the_first_deals_on(
    tmp_path: Path,
) -> None:
    """Two services on one journal would both write it: the newcomer is refused at once,
    naming the one at work, which deals on untouched; killed outright, that one leaves no
    lock behind, and the table restarts at once."""
    journal = tmp_path / "two.sqlite"
    first = subprocess.Popen(
        [*CLI, "run", "--journal", str(journal), "--speed", "50"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert wait_until(functools.partial(progressed, journal, 0, first), 30)
        second = dealtable("run", "--journal", str(journal), "--deals", "1", "--speed", "0")
        assert (second.returncode, second.stdout) == (2, "")
        assert second.stderr == (
            f"dealtable run: journal {journal} is in use by another process (pid {first.pid}): "
            "one journal, one table service; stop that one first, or give this one a journal "
            "of its own\n"
        )
        refused_at = last_seq(journal)
        assert wait_until(functools.partial(progressed, journal, refused_at + 10, first), 30)
        assert first.poll() is None, first.communicate()[1]
    finally:
        first.kill()
        first.wait()
    assert first.stderr is not None and "Error" not in first.stderr.read()
    again = dealtable("run", "--journal", str(journal), "--deals", "1", "--speed", "0")
    assert again.returncode == 0, again.stderr
    assert "resumed from" in again.stderr
    with Journal(journal, read_only=True) as dealt:
        assert dealt.verify() is None


def test_history_counts_a_corrected_card_once_and_the_split_it_undid_not_at_all(
    tmp_path: Path,
) -> None:
    """K♦ K♠ would split the turn, but the K♠ was a misread 9♣: five cards, one split (Q♥ Q♠)."""
    table = FaroTable("table")
    events = [*table.opening, *table.fund_bank(1000), *table.seat("dan", 100), *table.new_deck()]
    for card in ("2C", "KD", "KS"):
        events += table.deal(card)
    events += table.correct("9C")
    for card in ("QH", "QS"):
        events += table.deal(card)
    with Journal(tmp_path / "j.sqlite", "table") as journal:
        journal.append(events)
    listed = dealtable_here("history", str(tmp_path / "j.sqlite"))
    assert listed.returncode == 0, listed.stderr
    (line,) = listed.stdout.splitlines()
    assert re.search(r"deal +1  .*   5 cards    1 split  in progress  \(events 4-16\)$", line), line


def test_history_deals_on_a_deal_or_coup_whose_last_card_was_taken_back(tmp_path: Path) -> None:
    """The hoc voided after the deal finished, the last card of a coup voided or corrected
    after its settlement: the deal or coup is dealt on, not over, and no coup is invented
    for the events that follow. A burn card voided after a coup leaves the coup as it was."""
    from table.baccarat import BaccaratTable

    faro = FaroTable("table")
    events = [*faro.opening, *faro.fund_bank(1000), *faro.seat("dan", 100), *faro.new_deck()]
    for card in FaroTable.replay(events).state.rules.deck_spec.cards:
        events += faro.deal(card)
    events += faro.void_card()
    with Journal(tmp_path / "faro.sqlite", "table") as journal:
        journal.append(events)

    def punto_banco(path: Path, taken_back: str) -> Path:
        burn = "value" if taken_back == "burned" else "none"
        table = BaccaratTable("table", "punto-banco", "standard", {"burn": burn})
        events = [*table.opening, *table.fund_bank(10_000), *table.seat("ann", 100)]
        events += table.new_shoe()
        while table.state.phase.value == "burning":
            events += table.deal("5D")
        events += table.bet("ann", "player", 10) + table.lock()
        for card in ("KS", "2H", "9S", "3C"):
            events += table.deal(card)
        if taken_back == "burned":
            events += table.new_shoe() + table.deal("5D") + table.void_card()
        else:
            events += table.correct("6C") if taken_back == "corrected" else table.void_card()
        if taken_back == "corrected":
            events += table.bet("ann", "banker", 10) + table.lock()
            for card in ("AS", "5H", "2S", "4C"):
                events += table.deal(card)
        with Journal(path, "table") as journal:
            journal.append(events)
        return path

    listings = dealtable_at_once(
        [
            ("history", str(tmp_path / "faro.sqlite")),
            ("history", str(punto_banco(tmp_path / "voided.sqlite", "voided"))),
            ("history", str(punto_banco(tmp_path / "corrected.sqlite", "corrected"))),
            ("history", str(tmp_path / "corrected.sqlite"), "1"),
            ("history", str(punto_banco(tmp_path / "burned.sqlite", "burned"))),
        ]
    )
    assert all(done.returncode == 0 for done in listings), [done.stderr for done in listings]
    date = r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d"
    faro_deals, voided, corrected, recalled, burned = (
        [re.sub(date, "DATE", line) for line in done.stdout.splitlines()] for done in listings
    )
    assert faro_deals == ["deal     1  DATE  51 cards   0 splits  in progress  (events 4-108)"]
    assert voided == ["coup     1  DATE  in progress, 3 cards dealt  (events 4-14)"]
    assert corrected == [
        "coup     1  DATE  player K♠ 9♠ = 9 natural · banker 2♥ 6♣ = 8 natural · player wins"
        "  (events 4-18)",
        "coup     2  DATE  player A♠ 2♠ = 3 · banker 5♥ 4♣ = 9 natural · banker wins"
        "  (events 19-28)",
    ]
    assert recalled[-1].split(maxsplit=1)[1].startswith("coup 1 settled")
    assert [re.sub(r"\(events .*", "", line) for line in burned] == [
        "coup     1  DATE  player K♠ 9♠ = 9 natural · banker 2♥ 3♣ = 5 · player wins  ",
        "coup     2  DATE  in progress, 0 cards dealt  ",
    ]


def test_history_opens_no_coup_for_a_readers_news_between_coups(tmp_path: Path) -> None:
    from table.baccarat import BaccaratTable
    from table.events import ReaderNoticeKind

    table = BaccaratTable("table", "punto-banco", "standard", {"burn": "none"})
    events = [*table.opening, *table.fund_bank(10_000), *table.seat("ann", 100)]
    events += table.new_shoe() + table.bet("ann", "player", 10) + table.lock()
    for card in ("KS", "2H", "9S", "3C"):
        events += table.deal(card)
    events += table.reader_notice("camera", ReaderNoticeKind.READER_LOST, "the lamp is out")
    with Journal(tmp_path / "j.sqlite", "table") as journal:
        journal.append(events)
        assert [coup.ended for coup in journal.coups()] == ["settled"]


def test_history_opens_no_coup_for_an_alarm_on_a_card_dealt_after_a_coup(
    tmp_path: Path,
) -> None:
    """A card dealt after the coup ended raises an alarm: it and the dealer voiding the card
    are told with the coup that ended, and the next coup begins with the bets on it."""
    from table.baccarat import BaccaratTable

    table = BaccaratTable("table", "punto-banco", "standard", {"burn": "none"})
    events = [*table.opening, *table.fund_bank(10_000), *table.seat("ann", 100)]
    events += table.new_shoe() + table.bet("ann", "player", 10) + table.lock()
    for card in ("KS", "2H", "9S", "3C"):
        events += table.deal(card)
    events += table.deal("4D")  # no hand takes a card now: an alarm
    alarmed = len(events)
    events += table.void_card()
    events += table.bet("ann", "banker", 10) + table.lock() + table.deal("AS")
    for name, upto in (("alarmed.sqlite", alarmed), ("dealt-on.sqlite", len(events))):
        with Journal(tmp_path / name, "table") as journal:
            journal.append(events[:upto])
    listings = dealtable_at_once(
        [
            ("history", str(tmp_path / "alarmed.sqlite")),
            ("history", str(tmp_path / "dealt-on.sqlite")),
            ("history", str(tmp_path / "dealt-on.sqlite"), "1"),
        ]
    )
    assert all(done.returncode == 0 for done in listings), [done.stderr for done in listings]
    date = r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d"
    alarmed_list, dealt_on, recalled = (
        [re.sub(date, "DATE", line) for line in done.stdout.splitlines()] for done in listings
    )
    first = "coup     1  DATE  player K♠ 9♠ = 9 natural · banker 2♥ 3♣ = 5 · player wins"
    assert alarmed_list == [f"{first}  (events 4-14)"]
    assert dealt_on == [
        f"{first}  (events 4-16)",
        "coup     2  DATE  in progress, 1 card dealt  (events 17-19)",
    ]
    assert [line.split(maxsplit=1)[1] for line in recalled[-3:]] == [
        "ALARM 1: card 4D after coup 1 is over: a natural (player) ends the coup",
        "dealer: void 4♦",
        "alarm 1 cleared: voided by the dealer",
    ]


def test_coups_read_the_same_from_a_journal_an_earlier_dealtable_numbered(tmp_path: Path) -> None:
    """Between coups, events carry the coup to come; an earlier dealtable gave them the
    number of the coup that ended. A journal of either numbering lists the same coups, with
    the same records, results and ends, draws the same roads and folds to the same table."""
    import dataclasses

    from table.baccarat import BaccaratTable
    from table.baccarat.roads import follow_shoe
    from table.events import BetsLocked, CoupResult, Event

    table = BaccaratTable("table", "punto-banco", "standard", {"burn": "one"})
    events = [*table.opening, *table.fund_bank(10_000), *table.seat("ann", 100)]
    events += table.new_shoe() + table.deal("5C") + table.bet("ann", "player", 10) + table.lock()
    events += [e for card in ("KS", "2H", "9S", "3C") for e in table.deal(card)]
    events += table.deal("4D") + table.void_card()  # a card after coup 1: an alarm, voided
    events += table.bet("ann", "banker", 10) + table.lock()
    events += [e for card in ("AS", "AD", "7S", "KC") for e in table.deal(card)]
    events += table.void_card() + table.deal("QC")  # coup 2's last card, taken back after
    events += table.bet("ann", "banker", 10) + table.new_shoe() + table.deal("6C")
    events += table.lock() + table.deal("2S")
    between = [e.deal for e in events if e.type_name in ("shoe_started", "bet_placed")]
    assert between == [1, 1, 2, 3, 3]  # each for the coup to come

    last_locked = 0

    def numbered_as_before(event: Event) -> Event:
        nonlocal last_locked
        if isinstance(event, BetsLocked):
            last_locked = event.turn
        return dataclasses.replace(event, deal=last_locked)

    earlier = [numbered_as_before(event) for event in events]
    assert [e.deal for e in earlier] != [e.deal for e in events]
    listed = []
    for name, records in (("today.sqlite", events), ("earlier.sqlite", earlier)):
        with Journal(tmp_path / name, "table") as journal:
            journal.append(records)
            results: list[CoupResult] = []
            follow_shoe(results, journal.events())
            state = BaccaratTable.replay(journal.events()).state
            listed.append((journal.coups(), [r.coup for r in results], state))
    assert listed[0] == listed[1]
    coups, roads, _ = listed[0]
    assert [(c.coup, c.cards, c.ended) for c in coups] == [
        (1, 4, "settled"),
        (2, 4, "settled"),
        (3, 1, "in progress"),
    ]
    assert roads == []  # a new shoe began the scoreboards afresh


def test_history_names_a_record_whose_deal_column_was_edited_apart_from_it(
    tmp_path: Path,
) -> None:
    """History lists deals by the deal column, a copy of each record's own; one edited to
    text is named in one line, with the command that names every such record."""
    path = tmp_path / "j.sqlite"
    journal, _ = journal_with_a_deal(path)
    journal.close()
    with closing(sqlite3.connect(path)) as db, db:
        db.execute("UPDATE events SET deal = 'x' WHERE seq = 12")
    listed = dealtable_here("history", str(path))
    assert (listed.returncode, listed.stdout) == (2, "")
    assert listed.stderr == (
        f"dealtable history: journal {path}: record 12: edited: its deal column says 'x'; "
        f"dealtable verify {path} names every record so edited\n"
    )


def test_history_refuses_to_list_fewer_than_one_deal(tmp_path: Path) -> None:
    journal, _ = journal_with_a_deal(tmp_path / "j.sqlite")
    journal.close()
    refusals = dealtable_at_once(
        [("history", str(tmp_path / "j.sqlite"), "--last", last) for last in ("0", "-1")]
    )
    for last, refused in zip(("0", "-1"), refusals, strict=True):
        assert (refused.returncode, refused.stdout) == (2, "")
        assert refused.stderr.endswith(
            f"dealtable history: error: argument --last: expected 1 or more, got {last}\n"
        )
    listed = dealtable_here("history", str(tmp_path / "j.sqlite"), "--last", "1")
    assert listed.returncode == 0 and listed.stdout.startswith("deal     1  ")


def test_a_deal_or_event_numbered_past_what_the_journal_can_hold_is_not_found(
    tmp_path: Path,
) -> None:
    journal, _ = journal_with_a_deal(tmp_path / "j.sqlite")
    last = journal.last_seq
    journal.close()
    huge = "99999999999999999999"
    recalled, drawn, past_the_end = dealtable_at_once(
        [
            ("history", str(tmp_path / "j.sqlite"), huge),
            ("snapshot", "--journal", str(tmp_path / "j.sqlite"), "--seq", huge, "--out",
             str(tmp_path / "a.png")),
            ("snapshot", "--journal", str(tmp_path / "j.sqlite"), "--seq", str(last + 1),
             "--out", str(tmp_path / "a.png")),
        ]
    )  # fmt: skip
    assert (recalled.returncode, recalled.stdout, recalled.stderr) == (
        1,
        "",
        f"dealtable history: no deal {huge} in {tmp_path / 'j.sqlite'}\n",
    )
    for number, refused in ((huge, drawn), (last + 1, past_the_end)):
        assert (refused.returncode, refused.stdout, refused.stderr) == (
            2,
            "",
            f"dealtable snapshot: no event {number} in {tmp_path / 'j.sqlite'}: its last is "
            f"{last}\n",
        )
    assert not (tmp_path / "a.png").exists()


def baccarat_journal(path: Path, config: Config, record: str, more: tuple[str, ...] = ()) -> Path:
    """The journal of a table that dealt a written record, and ``more`` lines after it; the
    config says the game, its rules and a house bank."""
    said_by_config = ("game", "rules", "bank") if config.table.bank else ("game", "rules")
    lines = (RECORDS / record).read_text().splitlines()
    with Journal(path, config.table.id) as journal:
        service = TableService(config, journal)
        for line in [*lines, *more]:
            words = line.split("#")[0].split()
            if words and words[0] not in said_by_config:
                service.execute_line(line)
    return path


def test_history_tells_a_baccarat_journal_in_coups_hands_and_results(tmp_path: Path) -> None:
    punto_banco = baccarat_journal(
        tmp_path / "pb.sqlite",
        punto_banco_config(tmp_path / "pb.sqlite"),
        "004_punto_banco.deal",
        more=(
            *("bet ana player 10", "lock", "card 4H", "void deal"),
            *("bet ben banker 10", "lock", "card 9S", "card KD", "card 7H", "correct 8H"),
        ),
    )
    chemin_de_fer = baccarat_journal(
        tmp_path / "cdf.sqlite",
        Config(
            table=TableConfig(
                id="cdf",
                game="chemin-de-fer",
                rules="standard",
                options={"burn": "none"},
                bank=0,
                journal=str(tmp_path / "cdf.sqlite"),
            ),
            reader=ReaderConfig(kind="console"),
        ),
        "002_chemin_de_fer.deal",
    )
    listings = dealtable_at_once(
        [
            ("history", str(punto_banco)),
            ("history", str(punto_banco), "2"),
            ("history", str(punto_banco), "4"),
            ("history", str(chemin_de_fer)),
            ("history", str(punto_banco), "9"),
        ]
    )
    assert all(done.returncode == 0 for done in listings[:4]), [d.stderr for d in listings]
    coups, second, voided, chemin, missing = (done.stdout for done in listings)
    date = r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d"
    assert [re.sub(date, "DATE", line) for line in coups.splitlines()] == [
        "coup     1  DATE  player 9♠ 7♥ = 6 · banker K♦ A♣ 5♦ = 6 · tie  (events 5-18)",
        "coup     2  DATE  player 10♣ 9♥ = 9 natural · banker 2♥ 3♠ = 5 · player wins"
        "  (events 19-29)",
        "coup     3  DATE  player 2♣ 3♦ A♠ = 6 · banker 4♣ K♣ = 4 · player wins  (events 30-39)",
        "coup     4  DATE  voided  (events 40-44)",
        "coup     5  DATE  in progress, 3 cards dealt  (events 45-51)",
    ]
    # Coup 2 from the bets on it to its settlement, in baccarat's words.
    assert [line.split(maxsplit=1)[1] for line in second.splitlines()] == [
        "ana bets 5 on tie",
        "ben bets 10 on player",
        "coup 2: 10♣ to the player",
        "coup 2: 2♥ to the banker",
        "coup 2: 9♥ to the player",
        "coup 2: 3♠ to the banker",
        "coup 2: player 10♣ 9♥ = 9 natural · banker 2♥ 3♠ = 5 · player wins",
        "ana on tie: loses 5",
        "ben on player: wins 10",
        "coup 2 settled: bank 4995; ana 195, ben 210",
    ]
    assert voided.splitlines()[-1].split(maxsplit=1)[1] == "coup 4 voided: voided by the dealer"
    told = [
        re.fullmatch(rf"coup +\d  {date}  (.*)  \(events .*\)", line)
        for line in chemin.splitlines()
    ]
    assert [match[1] if match else None for match in told] == [
        "player 2♥ 5♦ = 7 · banker 2♣ 5♠ = 7 · tie",
        "player 9♥ K♦ = 9 natural · banker 3♣ 4♠ = 7 · player wins",
        "player 3♥ 5♦ = 8 natural · banker 9♣ K♠ = 9 natural · banker wins",
    ]
    assert (listings[4].returncode, missing) == (1, "")
    assert listings[4].stderr == f"dealtable history: no coup 9 in {punto_banco}\n"


def last_commit(journal: Path, upto: int) -> int:
    """The last record at or before ``upto`` that ended a command's events."""
    with closing(sqlite3.connect(journal)) as db:
        return int(db.execute("SELECT MAX(seq) FROM commits WHERE seq <= ?", (upto,)).fetchone()[0])


def test_a_damaged_journal_is_carried_on_from_its_last_sound_command(
    tmp_path: Path, run_journal: Path
) -> None:
    """Whatever the damage to record 20, carry-on copies the records before it into a new
    journal, hashes and all, up to the end of the last whole command (a card dealt without
    its settlements would be a table no dealer ever saw), leaving the damaged one untouched;
    run on the new journal resumes the table as those records left it, and deals on."""
    sound = tmp_path / "sound.sqlite"
    dealt_by_run(run_journal, sound)
    kept = last_commit(sound, 19)
    with Journal(sound, read_only=True) as original:
        records = original.records()
        expected_state = FaroTable.replay(list(original.events(upto=kept)), "table").state
    for how in ("delete", "garble", "edit"):
        damaged, new = tmp_path / f"{how}.sqlite", tmp_path / f"{how}-new.sqlite"
        shutil.copy(sound, damaged)
        damage(damaged, how)
        untouched = damaged.read_bytes()
        done = dealtable_here("carry-on", str(damaged), str(new))
        assert done.returncode == 0, done.stderr
        left = len(records) - kept - (how == "delete")
        with Journal(sound, read_only=True) as original:
            name = original.name()
        said = [
            f"  left out: {left} records from there on; {damaged} keeps them, untouched",
            f"  on MQTT its events after record {kept} are named {name}-after-{kept}: no "
            "subscriber takes one for a repeat of an event lost with the damage",
            f"  deal on from record {kept}: dealtable run --journal {new}",
        ]
        if kept < 19:
            said.insert(
                0,
                f"  records {kept + 1} to 19 began a command whose other events the damage "
                "took: left out with it",
            )
        lines = done.stdout.splitlines()
        assert lines[0].startswith(f"{new}: records 1 to {kept} of {damaged}, which is damaged")
        assert lines[1:] == said
        assert damaged.read_bytes() == untouched
        with Journal(new, read_only=True) as carried:
            assert carried.verify() is None
            assert carried.records() == records[:kept]
        config = Config(table=TableConfig(journal=str(new)), reader=ReaderConfig(seed=3))
        with Journal(new, "table") as journal:
            assert TableService(config, journal).state == expected_state
    dealt_on = dealtable("run", "--deals", "2", "--speed", "0", "--journal", str(new))
    assert dealt_on.returncode == 0, dealt_on.stderr
    with Journal(new, read_only=True) as journal:
        assert journal.verify() is None
        assert journal.last_seq > len(records)


def test_a_carried_on_journals_new_events_go_out_under_a_name_of_their_own(
    tmp_path: Path,
    run_journal: Path,
) -> None:
    """The records carried keep the name they went out under, so subscribers drop them as
    repeats; the events dealt after take seq numbers the lost ones may have gone out with, so
    they get a new name, and a journal carried on again gets yet another."""
    first = tmp_path / "first.sqlite"
    dealt_by_run(run_journal, first)
    with Journal(first, read_only=True) as journal:
        original = journal.name()
    with closing(sqlite3.connect(first)) as db, db:
        db.execute("INSERT INTO cursors (name, seq) VALUES ('mqtt', 150)")
        db.execute("DELETE FROM events WHERE seq > 100")  # cut after the outbox sent them
    second, third = tmp_path / "second.sqlite", tmp_path / "third.sqlite"
    assert dealtable_here("carry-on", str(first), str(second)).returncode == 0
    cut = last_commit(first, 100)
    with Journal(second) as journal:  # opened for writing: its outbox is sound too
        assert journal.cursor("mqtt") == cut
        assert journal.names() == [(1, original), (cut + 1, f"{original}-after-{cut}")]
        assert journal.name_for(cut) == original
        assert journal.name() == f"{original}-after-{cut}"
    dealt_on = dealtable("run", "--deals", "1", "--speed", "0", "--journal", str(second))
    assert dealt_on.returncode == 0, dealt_on.stderr
    damage(second, "garble")
    assert dealtable_here("carry-on", str(second), str(third)).returncode == 0
    with Journal(third, read_only=True) as journal:
        again = last_commit(second, 19)
        assert journal.names() == [(1, original), (again + 1, f"{original}-after-{again}")]
    with Journal(second, read_only=True) as journal:
        assert journal.name_for(cut + 1) == f"{original}-after-{cut}"


def test_records_cut_from_the_end_are_found_by_the_appends_that_wrote_them(
    tmp_path: Path,
    run_journal: Path,
) -> None:
    """No outbox had sent them, but each append marks where it ended: run refuses the cut
    journal, naming the records missing, and carry-on carries it on."""
    journal = tmp_path / "cut.sqlite"
    dealt_by_run(run_journal, journal)
    last = last_seq(journal)
    with closing(sqlite3.connect(journal)) as db, db:
        db.execute("DELETE FROM events WHERE seq > 100")
    refused = dealtable("run", "--deals", "1", "--speed", "0", "--journal", str(journal))
    assert refused.returncode == 2
    assert (
        f"damaged at record 101: missing: the journal ends at record 100, but its appends had "
        f"reached record {last} (records were cut from its end)"
    ) in refused.stderr
    carried = dealtable_here("carry-on", str(journal), str(tmp_path / "new.sqlite"))
    assert carried.returncode == 0, carried.stderr
    assert f"records 1 to {last_commit(journal, 100)} of {journal}" in carried.stdout


def test_a_damaged_journal_from_an_earlier_dealtable_is_refused_untouched(
    tmp_path: Path, run_journal: Path
) -> None:
    """A journal from before commits were marked gets its new tables only once found sound:
    a refused run leaves a damaged one as it was, so carry-on still knows it cannot tell
    where its commands ended."""
    old = tmp_path / "old.sqlite"
    dealt_by_run(run_journal, old)
    with closing(sqlite3.connect(old)) as db, db:
        db.execute("DROP TABLE commits")
        db.execute("DELETE FROM meta WHERE key = 'commits_from'")
    damage(old, "edit")
    refused = dealtable("run", "--deals", "1", "--speed", "0", "--journal", str(old))
    assert refused.returncode == 2
    with closing(sqlite3.connect(old)) as db:
        tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master")}
        assert "commits" not in tables
        assert db.execute("SELECT value FROM meta WHERE key = 'commits_from'").fetchone() is None


def forge_a_settlement(journal: Path) -> int:
    """A record rewritten with its chain recomputed (a settlement of a bet never placed):
    the hashes hold, the fold does not. Its seq."""
    with closing(sqlite3.connect(journal)) as db, db:
        seq, body = db.execute(
            "SELECT seq, body FROM events WHERE type = 'bet_settled' ORDER BY seq LIMIT 1"
        ).fetchone()
        db.execute(
            "UPDATE events SET body = ? WHERE seq = ?",
            (re.sub(r'"bet":\d+', '"bet":999', body), seq),
        )
        rows = db.execute("SELECT seq, body FROM events ORDER BY seq").fetchall()
        chained = "0" * 64
        for number, text in rows:
            digest = record_hash(chained, text)
            db.execute(
                "UPDATE events SET prev_hash = ?, hash = ? WHERE seq = ?", (chained, digest, number)
            )
            chained = digest
        db.execute("DELETE FROM checkpoints")
    return int(seq)


def test_a_record_that_does_not_fold_is_named_by_verify(tmp_path: Path, run_journal: Path) -> None:
    """The hashes of a forged record hold, the fold does not, and verify names the record."""
    journal = tmp_path / "forged.sqlite"
    dealt_by_run(run_journal, journal)
    seq = forge_a_settlement(journal)
    done = dealtable_here("verify", str(journal))
    assert done.returncode == 1
    assert done.stdout == (
        f"{journal}: BROKEN at record {seq}: it does not fold into the table (KeyError(999))\n"
    )


def test_a_record_that_does_not_fold_is_carried_on_from_as_verify_names_it(
    tmp_path: Path,
    run_journal: Path,
) -> None:
    """carry-on judges a forged record as verify does: damage, the records of the commands
    before it copied, and the table deals on from them."""
    journal, new = tmp_path / "forged.sqlite", tmp_path / "new.sqlite"
    dealt_by_run(run_journal, journal)
    seq = forge_a_settlement(journal)
    carried = dealtable_here("carry-on", str(journal), str(new))
    assert carried.returncode == 0, carried.stderr
    kept = last_commit(journal, seq - 1)
    assert carried.stdout.startswith(
        f"{new}: records 1 to {kept} of {journal}, which is damaged at record {seq}: it does "
        "not fold into the table (KeyError(999))\n"
    )
    assert dealtable_here("verify", str(new)).returncode == 0
    dealt_on = dealtable("run", "--deals", "1", "--speed", "0", "--journal", str(new))
    assert dealt_on.returncode == 0, dealt_on.stderr


def test_a_carry_on_that_fails_leaves_no_journal_behind(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Cut short (here, the move into place fails), carry-on leaves nothing at the new path
    nor beside it, so it can be run again; a journal there would start a table afresh."""
    journal, _ = journal_with_a_deal(tmp_path / "j.sqlite")
    journal.close()
    damage(tmp_path / "j.sqlite", "edit")

    def full_disk(source: object, target: object) -> None:
        raise OSError(28, "No space left on device")

    def written() -> set[str]:
        """What carry-on wrote: anything but the damaged journal and its SQLite files."""
        return {path.name for path in tmp_path.iterdir() if not path.name.startswith("j.")}

    monkeypatch.setattr(journal_module.os, "replace", full_disk)
    with pytest.raises(OSError, match="No space left"):
        carry_on(tmp_path / "j.sqlite", tmp_path / "new.sqlite")
    assert written() == set()
    monkeypatch.undo()
    carry_on(tmp_path / "j.sqlite", tmp_path / "new.sqlite")
    assert written() == {"new.sqlite"}


def test_carry_on_refuses_a_sound_journal_and_a_new_file_that_is_there(tmp_path: Path) -> None:
    sound = tmp_path / "sound.sqlite"
    journal_with_a_deal(sound)[0].close()
    there = tmp_path / "there.sqlite"
    there.write_text("notes")
    new = tmp_path / "new.sqlite"
    refused = dealtable_at_once(
        [("carry-on", str(sound), str(new)), ("carry-on", str(sound), str(there))]
    )
    assert [(done.returncode, done.stderr) for done in refused] == [
        (2, f"dealtable carry-on: journal {sound} is sound: deal on with it as it is\n"),
        (2, f"dealtable carry-on: {there} is there already: carry a journal on into a new file\n"),
    ]
    assert not new.exists()
    assert there.read_text() == "notes"


def test_a_journal_from_before_commands_were_marked_is_carried_on_to_its_damage(
    tmp_path: Path,
    run_journal: Path,
) -> None:
    """Written by a dealtable that did not mark where commands ended: every sound record is
    carried on, and the dealer is told that the last card may lack its consequences. Here
    it does (record 19 is a turn's winner, record 20 its first settlement): the simulated
    dealer, whose box cannot give the cards that record wants, voids the deal and deals on."""
    old, new = tmp_path / "old.sqlite", tmp_path / "new.sqlite"
    dealt_by_run(run_journal, old)
    with closing(sqlite3.connect(old)) as db, db:
        db.execute("DROP TABLE commits")
        db.execute("DELETE FROM meta WHERE key = 'commits_from'")
        assert db.execute("SELECT type FROM events WHERE seq = 20").fetchone() == ("bet_settled",)
    damage(old, "edit")
    done = dealtable_here("carry-on", str(old), str(new))
    assert done.returncode == 0, done.stderr
    assert f"records 1 to 19 of {old}" in done.stdout
    assert "written before dealtable kept where each command ended" in done.stdout
    dealt_on = dealtable("run", "--deals", "2", "--speed", "0", "--journal", str(new))
    assert dealt_on.returncode == 0, dealt_on.stderr
    assert "the deal is voided, every bet returned" in dealt_on.stderr
    with Journal(new, read_only=True) as carried:
        assert carried.verify() is None
        assert [e.type_name for e in carried.events()].count("deal_finished") == 1


def test_a_damaged_journal_not_in_wal_mode_is_refused_byte_for_byte_as_it_was(
    tmp_path: Path,
) -> None:
    """A journal copied out of WAL mode (a backup tool's copy, say) is put back in it only
    once its chain is found sound: a damaged one is refused with not a byte changed."""
    journal = tmp_path / "copied.sqlite"
    journal_with_a_deal(journal)[0].close()
    with closing(sqlite3.connect(journal)) as db:
        db.execute("PRAGMA journal_mode=DELETE")
    damage(journal, "edit")
    before = journal.read_bytes()
    refused = dealtable("run", "--deals", "1", "--speed", "0", "--journal", str(journal))
    assert refused.returncode == 2
    assert "is damaged at record 20" in refused.stderr
    assert journal.read_bytes() == before
    sound = tmp_path / "sound.sqlite"
    journal_with_a_deal(sound)[0].close()
    with closing(sqlite3.connect(sound)) as db:
        db.execute("PRAGMA journal_mode=DELETE")
    with Journal(sound, "t1") as reopened:
        mode = reopened._db.execute("PRAGMA journal_mode").fetchone()[0]
    assert mode == "wal"


def test_a_backup_of_a_journal_in_use_holds_every_record_in_one_sound_file(
    tmp_path: Path,
) -> None:
    """The service keeps the journal open and goes on writing while it is backed up: the copy
    holds every record up to a command's end, in one file, and its chain is checked."""
    from table.service.journal import back_up

    journal, table = journal_with_a_deal(tmp_path / "j.sqlite")
    stop = threading.Event()
    written: list[int] = []

    def deal_on() -> None:  # the table keeps dealing while the copy is taken
        while not stop.is_set():
            journal.append(table.seat(f"visitor{len(written)}", 10))
            written.append(journal.last_seq)

    dealing = threading.Thread(target=deal_on)
    dealing.start()
    try:
        assert wait_until(lambda: len(written) >= 3)
        copied = back_up(tmp_path / "j.sqlite", tmp_path / "copy.sqlite")
    finally:
        stop.set()
        dealing.join()
    assert copied.broken is None and copied.last_seq in written
    assert not Path(f"{tmp_path / 'copy.sqlite'}-wal").exists()
    with Journal(tmp_path / "copy.sqlite", read_only=True) as copy:
        assert copy.verify() is None
        assert [e.seq for e in copy.events()] == list(range(1, copied.last_seq + 1))
        assert list(copy.events()) == list(journal.events(upto=copied.last_seq))
        # Dealt on from, the copy's next events are not the journal's: a name of their own.
        name = journal.name()
        assert copy.names()[-1] == (copied.last_seq + 1, f"{name}-after-{copied.last_seq}")
        assert copy.name_for(copied.last_seq) == journal.name_for(copied.last_seq)
    journal.close()
    said = dealtable_here("backup", str(tmp_path / "j.sqlite"), str(tmp_path / "again.sqlite"))
    assert (said.returncode, said.stdout) == (
        0,
        f"{tmp_path / 'again.sqlite'}: a copy of {tmp_path / 'j.sqlite'}, records 1 to "
        f"{written[-1]}, chain intact\n",
    )


def test_a_backup_writes_over_nothing_and_copies_a_damaged_journal_as_it_is(
    tmp_path: Path,
) -> None:
    journal, _ = journal_with_a_deal(tmp_path / "j.sqlite")
    journal.close()
    (tmp_path / "kept.sqlite").write_bytes(b"last week's copy")
    refused = dealtable_here("backup", str(tmp_path / "j.sqlite"), str(tmp_path / "kept.sqlite"))
    assert refused.returncode == 2 and "is there already" in refused.stderr
    assert (tmp_path / "kept.sqlite").read_bytes() == b"last week's copy"
    with sqlite3.connect(tmp_path / "j.sqlite") as db:
        db.execute("UPDATE events SET body = '{bad' WHERE seq = 20")
    db.close()
    damaged = dealtable_here("backup", str(tmp_path / "j.sqlite"), str(tmp_path / "copy.sqlite"))
    assert damaged.returncode == 1
    assert "BROKEN at record 20" in damaged.stdout and "kept for inspection" in damaged.stdout
    assert (tmp_path / "copy.sqlite").exists()
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []


@pytest.mark.parametrize(
    ("verb", "doing"), [("backup", "back a journal up"), ("carry-on", "carry a journal on")]
)
def test_a_second_copy_to_the_same_file_at_once_is_refused_and_the_first_kept(
    verb: str, doing: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two backups to one copy, or two carry-ons to one new journal: the second, started
    while the first was moving its file into place (both found nothing there), is refused,
    and the first's file is not replaced (a table run on a carried-on journal at once would
    have it swapped beneath it)."""
    from table.service.journal import back_up

    journal, target = tmp_path / "j.sqlite", tmp_path / "new.sqlite"
    journal_with_a_deal(journal)[0].close()
    if verb == "carry-on":
        damage(journal, "edit")
    move = os.replace
    second: list[subprocess.CompletedProcess[str]] = []

    def another_one_meanwhile(source: str | Path, target_path: str | Path) -> None:
        second.append(dealtable(verb, str(journal), str(target)))
        move(source, target_path)

    monkeypatch.setattr(journal_module.os, "replace", another_one_meanwhile)
    if verb == "backup":
        last_seq = back_up(journal, target).last_seq
    else:
        last_seq = carry_on(journal, target).sound_upto
    monkeypatch.undo()
    [refused] = second
    assert (refused.returncode, refused.stdout) == (2, "")
    assert refused.stderr == (
        f"dealtable {verb}: {target}: another dealtable is writing it ({doing}); "
        "let it finish, or name another file\n"
    )
    with Journal(target, read_only=True) as written:
        assert written.verify() is None and written.last_seq == last_seq
    assert [path.name for path in tmp_path.iterdir() if path.name.startswith(".")] == []


def dealt_with_a_page_gone_bad(path: Path, table_id: str, config: Config) -> int:
    """A journal of 2,000 records or so, a page in the middle of its file overwritten (an SD
    card's sectors gone bad); the last record it had."""
    from table.service.run import SimulatedTable

    with Journal(path, table_id) as journal:
        simulated = SimulatedTable(TableService(config, journal), seed=3)
        while journal.last_seq < 2000:
            simulated.step()
        last = journal.last_seq
    with closing(sqlite3.connect(path)) as db:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    damaged = bytearray(path.read_bytes())
    middle = len(damaged) // 4096 // 2 * 4096
    damaged[middle : middle + 4096] = b"\xa5" * 4096
    path.write_bytes(bytes(damaged))
    return last


def test_a_journal_whose_file_is_damaged_is_named_broken_and_still_backed_up(
    tmp_path: Path,
) -> None:
    """An SD card's page gone bad in the middle of the journal: `verify` names the first
    record it cannot read, with no traceback, and `backup` still makes the copy, for
    inspection, saying so."""

    path = tmp_path / "j.sqlite"
    config = Config(table=TableConfig(id="t1", journal=str(path)), reader=ReaderConfig(seed=3))
    dealt_with_a_page_gone_bad(path, "t1", config)
    verified = dealtable_here("verify", str(path))
    assert verified.returncode == 1 and "Traceback" not in verified.stderr
    assert (
        "BROKEN at record" in verified.stdout and "the journal's file is damaged" in verified.stdout
    )
    copied = dealtable_here("backup", str(path), str(tmp_path / "copy.sqlite"))
    assert copied.returncode == 1 and "kept for inspection" in copied.stdout
    assert (tmp_path / "copy.sqlite").exists()


def test_a_journal_whose_file_is_damaged_is_carried_on_from_the_records_before_the_damage(
    tmp_path: Path,
) -> None:
    """The table refuses a journal with a page gone bad and sends the operator to carry-on:
    it copies the records read before the page, with no traceback, and the table deals on
    from them."""

    path, new = tmp_path / "j.sqlite", tmp_path / "new.sqlite"
    config = Config(table=TableConfig(journal=str(path)), reader=ReaderConfig(seed=3))
    last = dealt_with_a_page_gone_bad(path, "table", config)
    carried = dealtable_here("carry-on", str(path), str(new))
    assert carried.returncode == 0 and "Traceback" not in carried.stderr, carried.stderr
    assert "the journal's file is damaged" in carried.stdout
    with Journal(new, read_only=True) as journal:
        assert journal.verify() is None
        kept = journal.last_seq
    assert 0 < kept < last
    assert f"left out: {last - kept} records from there on" in carried.stdout
    dealt_on = dealtable("run", "--deals", "1", "--speed", "0", "--journal", str(new))
    assert dealt_on.returncode == 0, dealt_on.stderr


def test_a_page_gone_bad_anywhere_in_the_file_is_damage_named_never_a_traceback(
    tmp_path: Path,
) -> None:
    """Whichever page of the journal's file goes bad (its records, where they end, its
    commands' ends, its outbox's place, its note of the table), reading it names the damage
    and carry-on either copies the sound records or says why it cannot: no SQLite error
    escapes, which the commands would end on with a traceback."""
    from table.service.journal import JournalError
    from table.service.run import SimulatedTable

    path = tmp_path / "j.sqlite"
    config = Config(table=TableConfig(journal=str(path)), reader=ReaderConfig(seed=3))
    with Journal(path, "table") as journal:
        simulated = SimulatedTable(TableService(config, journal), seed=3)
        while journal.last_seq < 300:
            simulated.step()
        journal.set_cursor("mqtt", journal.last_seq)
        journal.remember_request("bet-1", 5)
    with closing(sqlite3.connect(path)) as db:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    whole = path.read_bytes()
    carried = 0
    for page in range(1, len(whole) // 4096):
        damaged, new = tmp_path / f"page-{page}.sqlite", tmp_path / f"new-{page}.sqlite"
        bad = bytearray(whole)
        bad[page * 4096 : (page + 1) * 4096] = b"\xa5" * 4096
        damaged.write_bytes(bytes(bad))
        try:
            with Journal(damaged, read_only=True) as journal:
                journal.verify()
            carry_on(damaged, new)
        except JournalError:
            continue
        carried += 1
        with Journal(new, read_only=True) as journal:
            assert journal.verify() is None
    assert carried > len(whole) // 4096 // 2


def a_journal_alone_in_its_folder(tmp_path: Path) -> Path:
    """A journal with a deal, alone in a folder of its own and in one file (no write-ahead
    log beside it), for a test to spoil and then see that nothing in the folder changed."""
    folder = tmp_path / "files"
    folder.mkdir()
    path = folder / "j.sqlite"
    journal, _ = journal_with_a_deal(path)
    journal.close()
    with closing(sqlite3.connect(path)) as db:
        db.execute("PRAGMA journal_mode=DELETE")
    return path


@pytest.mark.parametrize("kept", ["the first 100 bytes", "half", "all but the last page"])
def test_a_journal_cut_short_is_refused_by_every_command_in_one_line(
    tmp_path: Path, kept: str
) -> None:
    """A copy that stopped part way, or a card that filled up: SQLite cannot even list the
    file's tables. Every command says the journal is damaged, with no traceback, and leaves
    the file as it was."""
    path = a_journal_alone_in_its_folder(tmp_path)
    folder = path.parent
    whole = path.read_bytes()
    cut = {"the first 100 bytes": 100, "half": len(whole) // 2, "all but the last page": -4096}
    path.write_bytes(whole[: cut[kept]])
    before = files_in(folder)
    commands = [tuple(read_only_command(verb, path, tmp_path)) for verb in READ_ONLY_COMMANDS]
    commands += [
        ("backup", str(path), str(tmp_path / "copy.sqlite")),
        ("carry-on", str(path), str(tmp_path / "new.sqlite")),
        ("archive", str(path)),
        ("run", "--journal", str(path), "--deals", "1", "--speed", "0"),
    ]
    for done in dealtable_at_once(commands):
        verb = done.args[0]
        assert "Traceback" not in done.stderr, done.stderr
        assert (done.returncode, done.stdout) == (2, ""), (verb, done.stdout)
        assert done.stderr.startswith(f"dealtable {verb}: journal {path} is damaged: ")
        assert "SQLite cannot read its list of tables" in done.stderr
        assert len(done.stderr.splitlines()) == 1
    assert files_in(folder) == before
    assert sorted(path.name for path in tmp_path.iterdir()) == ["files"]


@pytest.mark.parametrize(
    ("change", "lacks"),
    [
        ("ALTER TABLE events DROP COLUMN at", "its table events lacks the column at"),
        (
            "DROP TABLE meta; CREATE TABLE meta (k, v)",
            "its table meta lacks the columns key, value",
        ),
    ],
)
def test_a_journal_whose_tables_lack_a_column_is_no_journal_to_any_command(
    tmp_path: Path, change: str, lacks: str
) -> None:
    """Another program's tables under a journal's names, or a journal a hand has altered:
    no command reads it as sound, and run deals on none it could not write."""
    path = a_journal_alone_in_its_folder(tmp_path)
    folder = path.parent
    with closing(sqlite3.connect(path)) as db:
        db.executescript(change)
    before = files_in(folder)
    commands = [tuple(read_only_command(verb, path, tmp_path)) for verb in READ_ONLY_COMMANDS]
    commands.append(("run", "--journal", str(path), "--deals", "1", "--speed", "0"))
    for done in dealtable_at_once(commands):
        verb = done.args[0]
        assert (done.returncode, done.stdout) == (2, ""), (verb, done.stdout, done.stderr)
        assert done.stderr == (
            f"dealtable {verb}: {path} is not a dealtable journal ({lacks}); nothing was changed\n"
        )
    assert files_in(folder) == before
