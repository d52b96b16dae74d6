"""`dealtable run` as a real process: resume after a crash, systemd, the journal tools."""

from __future__ import annotations

import base64
import contextlib
import dataclasses
import functools
import importlib.util
import io
import itertools
import json
import os
import random
import re
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import closing, contextmanager
from pathlib import Path
from typing import Any

import pytest
from vision_fixtures import taught_profile

from table.baccarat.engine import BaccaratTable
from table.baccarat.rules import hundredths_text
from table.events import (
    BankFunded,
    BetPlaced,
    BetSettled,
    PunterLeft,
    PunterSeated,
    RulesChosen,
    event_to_json,
)
from table.games import replay_lines
from table.service.cli import main as cli_main
from table.service.config import Config, ReaderConfig, TableConfig, load_config
from table.service.journal import Journal
from table.service.run import run as run_table
from tests.commands import dealtable_each
from tests.conftest import ACCOUNTS, PageCertificate
from tests.mosquitto import Broker, free_port, wait_until
from tests.test_service_mqtt import Watcher

CLI = [sys.executable, "-m", "table.service.cli"]
RECORDS = Path(__file__).parent / "records"


def dealtable(
    *args: str,
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
    timeout: float = 120,
    typed: str | None = None,
) -> subprocess.CompletedProcess[str]:
    """``dealtable ARGS`` as a process; ``typed`` is what the console reads (else nothing)."""
    return subprocess.run(
        [*CLI, *args],
        input=typed,
        stdin=None if typed is not None else subprocess.DEVNULL,
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=timeout,
        check=False,
        env={**os.environ, **(env or {})},
    )


# Runs each command given (a JSON list of argument lists) as `dealtable` would, one after
# another in this one process, and prints each one's status, standard output and error.
def write_config(path: Path, journal: Path, broker: Broker | None = None, speed: float = 0) -> Path:
    text = f"""
[table]
id = "t1"
rules = "classic"
bank = 2000
journal = "{journal}"

[reader]
kind = "simulated"
seed = 5
cards_per_second = {speed}

[display]
terminal = false
"""
    if broker is not None:
        text += f'\n[mqtt]\nhost = "127.0.0.1"\nport = {broker.port}\nclient_id = "table-t1"\n'
    path.write_text(text)
    return path


def last_seq(journal_path: Path) -> int:
    if not journal_path.exists():
        return 0
    try:
        with closing(sqlite3.connect(f"file:{journal_path}?mode=ro", uri=True)) as db:
            row = db.execute("SELECT MAX(seq) FROM events").fetchone()
    except sqlite3.OperationalError:
        return 0  # created but not yet set up
    return int(row[0] or 0)


def progressed(journal_path: Path, written: int, process: subprocess.Popen[str]) -> bool:
    """The run has journaled something of its own, or has ended."""
    return last_seq(journal_path) > written or process.poll() is not None


def comparable(journal_path: Path) -> list[dict[str, Any]]:
    """The journal's events without their timestamps (a rerun happens at other times)."""
    with Journal(journal_path) as journal:
        events = [json.loads(body) for _, body in journal.bodies(0, 100_000)]
    for event in events:
        event.pop("at")
    return events


def console_config(path: Path, journal: Path, table: str = "", more: str = "") -> Path:
    """A table dealt from the console: ``table`` adds lines to ``[table]``, ``more`` adds
    sections (``[web]``, ``[mqtt]``)."""
    path.write_text(
        f'[table]\n{table}journal = "{journal}"\n\n[reader]\nkind = "console"\n'
        f"\n[display]\nterminal = false\n{more}"
    )
    return path


@contextmanager
def console_service(config: Path, typed: str = "") -> Iterator[subprocess.Popen[str]]:
    """``dealtable run --config CONFIG`` at work, its keyboard given ``typed`` at once; on
    leaving, the dealer types one more line and closes the keyboard, and it must end well."""
    service = subprocess.Popen(
        [*CLI, "run", "--config", str(config)],
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert service.stdin is not None and service.stderr is not None
    try:
        service.stdin.write(typed)
        service.stdin.flush()
        yield service
    finally:
        service.stdin.write("help\n")  # a console table that never heard a line fails
        service.stdin.close()
        assert service.wait(timeout=30) == 0, service.stderr.read()


def test_with_no_config_it_deals_a_simulated_table_and_resumes_its_journal(tmp_path: Path) -> None:
    first = dealtable("run", "--deals", "1", "--speed", "0", cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    assert "casekeep" in first.stdout and ": hoc of turn 25" in first.stdout
    journal = tmp_path / "table-journal.sqlite"
    assert journal.exists()
    second = dealtable("run", "--deals", "1", "--speed", "0", cwd=tmp_path)
    assert second.returncode == 0, second.stderr
    assert "resumed from" in second.stderr
    with Journal(journal) as opened:
        assert [deal.ended for deal in opened.deals()] == ["finished", "finished"]
        assert opened.verify() is None


def test_sigkill_at_20_random_points_loses_nothing(tmp_path: Path, broker: Broker) -> None:
    """The service killed with SIGKILL at 20 random points of a deal and restarted each time:
    the final journal and the events received equal those of an uninterrupted run."""
    reference = tmp_path / "reference.sqlite"
    uninterrupted = load_config(write_config(tmp_path / "ref.toml", reference))
    assert run_table(uninterrupted, until_deal=1, out=io.StringIO()) == 0

    watcher = Watcher(broker.port, "dealtable/t1/events")
    assert watcher.connected.wait(30)
    crashed = tmp_path / "crashed.sqlite"
    config = write_config(tmp_path / "crash.toml", crashed, broker, speed=15)
    rng = random.Random(20)
    kills = 0
    while True:
        written = last_seq(crashed)
        # Once killed for the last time, the table deals the rest of the deal at once.
        pace = [] if kills < 20 else ["--speed", "0"]
        process = subprocess.Popen(
            [*CLI, "run", "--config", str(config), "--until-deal", "1", *pace],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        if kills < 20:
            # Kill at a random moment once this run has journaled something of its own.
            assert wait_until(functools.partial(progressed, crashed, written, process), 30)
            try:
                process.wait(timeout=rng.uniform(0.0, 0.1))
            except subprocess.TimeoutExpired:
                process.send_signal(signal.SIGKILL)
                process.wait()
                kills += 1
                continue
        out = process.communicate(timeout=120)[1]
        assert process.returncode == 0, out
        break
    assert kills == 20
    assert comparable(crashed) == comparable(reference)

    last = len(comparable(crashed))
    assert wait_until(lambda: {e["seq"] for e in watcher.events()} >= set(range(1, last + 1)))
    received = watcher.events()
    first_seen = list(dict.fromkeys(event["seq"] for event in received))
    assert first_seen == sorted(first_seen)  # in seq order
    by_seq = {event["seq"]: {k: v for k, v in event.items() if k != "at"} for event in received}
    assert [by_seq[seq] for seq in range(1, last + 1)] == comparable(crashed)
    settled = [
        e["bet"] for e in comparable(crashed) if e["type"] == "bet_settled" and e["stake"] == 0
    ]
    assert len(settled) == len(set(settled))  # no bet settled twice
    watcher.close()


def test_systemd_hears_ready_and_the_watchdog(tmp_path: Path) -> None:
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    address = str(tmp_path / "notify")
    listener.bind(address)
    service = subprocess.Popen(
        [*CLI, "run", "--deals", "1", "--speed", "0", "--journal", str(tmp_path / "j.sqlite")],
        cwd=tmp_path,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "NOTIFY_SOCKET": address, "WATCHDOG_USEC": "100000"},
    )
    # Read as they come, as systemd reads them: a datagram socket's queue holds ten, and a
    # notification past them is dropped by the service rather than wait for systemd.
    messages = notifications(listener, "STOPPING=1")
    _, said = service.communicate(timeout=120)
    assert service.returncode == 0, said
    assert messages[0].startswith("READY=1")
    assert "WATCHDOG=1" in messages


def systemd_listening(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> socket.socket:
    """Where the service's notifications to systemd arrive, named to it in NOTIFY_SOCKET."""
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    listener.bind(str(tmp_path / "notify"))
    monkeypatch.setenv("NOTIFY_SOCKET", str(tmp_path / "notify"))
    return listener


def everything_said(listener: socket.socket) -> list[str]:
    """Every notification the service sent, once it has stopped; the listener closed."""
    listener.settimeout(0.5)
    messages = []
    with contextlib.suppress(TimeoutError):
        while True:
            messages.append(listener.recv(1024).decode())
    listener.close()
    return messages


def test_a_long_journal_asks_systemd_for_more_time_while_it_is_checked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A journal kept for years takes minutes to check at the start, longer than the unit's
    start timeout: the service asks for more time as the check goes on, then says ready."""
    import table.service.journal as journal_module

    config = Config(
        table=TableConfig(id="t1", journal=str(tmp_path / "j.sqlite")),
        reader=ReaderConfig(kind="simulated", seed=3, cards_per_second=0),
    )
    assert run_table(config, deals=1, out=io.StringIO()) == 0
    listener = systemd_listening(tmp_path, monkeypatch)
    monkeypatch.setattr(journal_module, "CHECKED_EVERY", 10)  # as if ten times ten thousand
    assert run_table(config, deals=0, out=io.StringIO()) == 0
    messages = everything_said(listener)
    ready = next(i for i, message in enumerate(messages) if message.startswith("READY=1"))
    assert messages[0].startswith("EXTEND_TIMEOUT_USEC=60000000\nSTATUS=checking the journal")
    # After a reload the watchdog is armed while the journal is checked: it is fed too.
    assert messages[0].endswith("\nWATCHDOG=1")
    assert ready > 0  # the extensions come before ready


def test_a_stop_asked_for_while_the_journal_is_checked_ends_the_check_there(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """systemd stops a service that is still checking a long journal (a stop, a reboot): it
    waits TimeoutStopSec, 20 s, then kills it. The check ends at once, nothing is written,
    and systemd never hears the table is ready."""
    import table.service.journal as journal_module

    journal = tmp_path / "j.sqlite"
    config = Config(
        table=TableConfig(id="t1", journal=str(journal)),
        reader=ReaderConfig(kind="simulated", seed=3, cards_per_second=0),
    )
    assert run_table(config, deals=1, out=io.StringIO()) == 0
    records = last_seq(journal)
    listener = systemd_listening(tmp_path, monkeypatch)
    monkeypatch.setattr(journal_module, "CHECKED_EVERY", 10)  # as if ten times ten thousand
    stop = threading.Event()
    checked: list[int] = []
    add = journal_module.ChainCheck.add

    def add_and_count(chain: Any, seq: int, *record: Any) -> None:
        add(chain, seq, *record)
        checked.append(seq)
        if seq == 20:
            stop.set()  # SIGTERM, a moment into the check

    monkeypatch.setattr(journal_module.ChainCheck, "add", add_and_count)
    assert run_table(config, out=io.StringIO(), stop=stop) == 0
    assert records > 40 and checked == list(range(1, 21))  # not a record further
    messages = everything_said(listener)
    assert messages and not any(message.startswith("READY=1") for message in messages)
    assert last_seq(journal) == records
    with Journal(journal) as opened:  # its lock let go, the file as it was
        assert opened.verify() is None


def notifications(listener: socket.socket, until: str, timeout: float = 30) -> list[str]:
    """What the service told systemd, up to the first message that begins with ``until``."""
    listener.settimeout(timeout)
    heard = []
    while not (heard and heard[-1].startswith(until)):
        heard.append(listener.recv(1024).decode())
    return heard


def rules_chosen(journal: Path) -> list[str]:
    with Journal(journal, read_only=True) as opened:
        return [event.rules for event in opened.events() if isinstance(event, RulesChosen)]


def test_sighup_reads_the_config_again_and_the_table_starts_again_under_it(
    tmp_path: Path,
) -> None:
    """`systemctl reload` (SIGHUP): a sound config is taken, the table stopping cleanly and
    starting again in the same process; a config with a mistake is logged and the table deals
    on. Left to its default, SIGHUP ended the service at once, and systemd does not restart a
    service a SIGHUP ended."""
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    address = str(tmp_path / "notify")
    listener.bind(address)
    journal = tmp_path / "j.sqlite"
    config = write_config(tmp_path / "table.toml", journal, speed=20)
    service = subprocess.Popen(
        [*CLI, "run", "--config", str(config)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "NOTIFY_SOCKET": address},
    )
    assert service.stderr is not None
    try:
        assert notifications(listener, "READY=1")
        config.write_text(config.read_text().replace('"classic"', '"stuss"'))
        service.send_signal(signal.SIGHUP)
        heard = notifications(listener, "READY=1")
        assert heard[0].startswith("RELOADING=1") and "STOPPING=1" not in heard
        assert service.poll() is None
        assert wait_until(lambda: "stuss" in rules_chosen(journal), timeout=30), (
            "the config read again was not taken"
        )
        config.write_text(config.read_text().replace("seed = 5", "seed = -5"))
        service.send_signal(signal.SIGHUP)
        dealt = last_seq(journal)
        assert wait_until(lambda: last_seq(journal) > dealt + 5, timeout=30)
        assert service.poll() is None
        service.send_signal(signal.SIGTERM)
        assert service.wait(timeout=30) == 0
        assert notifications(listener, "STOPPING=1")[-1] == "STOPPING=1"
        log = service.stderr.read()
        assert "[reader] seed: expected a whole number of at least 0, got -5" in log
        assert "the config is not taken: the table deals on under the one it started with" in log
    finally:
        if service.poll() is None:
            service.kill()
            service.wait()
        listener.close()
    with Journal(journal) as opened:
        assert opened.verify() is None


def test_the_watchdog_goes_on_when_the_wall_clock_is_stepped_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A Pi keeps no time while off: NTP may set its clock back an hour after the service
    started. The watchdog pings go on, or systemd would kill a healthy table."""
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    address = str(tmp_path / "notify")
    listener.bind(address)
    listener.settimeout(0.5)
    messages: list[str] = []
    ran = threading.Event()

    def read_as_systemd_does() -> None:
        # Until the run has ended and all it said is read: a slow start says nothing for a
        # while, and is no end.
        while True:
            try:
                messages.append(listener.recv(1024).decode())
            except TimeoutError:
                if ran.is_set():
                    return

    reading = threading.Thread(target=read_as_systemd_does)
    reading.start()
    monkeypatch.setenv("NOTIFY_SOCKET", address)
    monkeypatch.setenv("WATCHDOG_USEC", "100000")  # a ping every 0.05 s
    started = time.monotonic()

    def stepped_back() -> float:
        """The wall clock, set back an hour a quarter of a second into the deal."""
        return time.time() - (3600 if time.monotonic() - started > 0.25 else 0)

    config = Config(
        table=TableConfig(id="t1", journal=str(tmp_path / "j.sqlite")),
        reader=ReaderConfig(kind="simulated", seed=3, cards_per_second=40),
    )
    try:
        assert run_table(config, deals=1, out=io.StringIO(), clock=stepped_back) == 0
    finally:
        ran.set()
        reading.join()
    # 52 cards at 40 a second: over a second of dealing, a ping due every 0.05 s.
    assert messages.count("WATCHDOG=1") >= 10, messages


def test_verify_history_and_export_from_the_command_line(tmp_path: Path) -> None:
    journal = tmp_path / "j.sqlite"
    assert (
        dealtable("run", "--deals", "2", "--speed", "0", "--journal", str(journal)).returncode == 0
    )
    verified, listed, recalled, no_such_deal, exported, printed = dealtable_each(
        [
            ["verify", str(journal)],
            ["history", str(journal)],
            ["history", str(journal), "2"],
            ["history", str(journal), "9"],
            ["export", str(journal), "--format", "csv", "--out", str(tmp_path / "x.csv")],
            ["export", str(journal)],
        ]
    )
    assert verified.returncode == 0 and "chain intact" in verified.stdout
    listing = listed.stdout.splitlines()
    assert len(listing) == 2 and all("52 cards" in line and "finished" in line for line in listing)
    for line in listing:
        splits = re.search(r"\b(\d+) (splits?)\b", line)
        assert splits and (splits[2] == "split") == (splits[1] == "1"), line
    recall = recalled.stdout
    assert "deal 2: a new standard-52 deck" in recall and "turn 25:" in recall
    assert no_such_deal.returncode == 1
    assert exported.returncode == 0
    assert (tmp_path / "x.csv").read_text().startswith("seq,deal,type,at,")
    lines = printed.stdout.splitlines()
    assert json.loads(lines[0])["type"] == "rules_chosen"

    with Journal(journal) as opened:
        opened._db.execute(
            "UPDATE events SET body = replace(body, '\"at\":', '\"at\":1') WHERE seq = 60"
        )
    broken, missing = dealtable_each(
        [["verify", str(journal)], ["verify", str(tmp_path / "missing.sqlite")]]
    )
    assert broken.returncode == 1
    assert "BROKEN at record 60" in broken.stdout
    assert missing.returncode != 0


def test_the_readmes_example_configuration_is_a_valid_one(tmp_path: Path) -> None:
    readme = (Path(__file__).parent.parent / "README.md").read_text(encoding="utf-8")
    example = readme.split("```toml\n", 1)[1].split("```", 1)[0]
    password = tmp_path / "mqtt-password"
    password.write_text("secret\n")
    example = example.replace("/etc/dealtable/mqtt-password", str(password))
    example = example.replace("/var/lib/dealtable/faro-1.sqlite", str(tmp_path / "f.sqlite"))
    config = tmp_path / "table.toml"
    config.write_text(example)
    checked = dealtable("config", "check", str(config))
    assert checked.returncode == 0, checked.stderr
    assert "table faro-1, faro (classic)" in checked.stdout


def test_config_check_names_the_file_the_key_and_what_was_expected(tmp_path: Path) -> None:
    good = write_config(tmp_path / "good.toml", tmp_path / "j.sqlite")
    bad = tmp_path / "bad.toml"
    bad.write_text('[table]\nid = "t1"\nrules = "classic"\n\n[mqtt]\nport = "18x3"\n')
    typo = tmp_path / "typo.toml"
    typo.write_text('[table]\nid = "t1"\nrulez = "classic"\n')
    options = tmp_path / "options.toml"
    options.write_text("[table]\noptions = { cat_hop = 1 }\n")
    several = tmp_path / "several.toml"
    several.write_text(
        '[table]\nrules = "clasic"\n[reader]\nkind = "camera"\n[mqtt]\nport = 0\n'
        '[display]\nterminal = "yes"\n[tabel]\n'
    )
    checked, refused, typoed, optioned, severally = dealtable_each(
        [["config", "check", str(path)] for path in (good, bad, typo, options, several)]
    )
    assert checked.returncode == 0 and ": ok" in checked.stdout
    assert refused.returncode == 2
    assert (
        f"{bad}: [mqtt] port: expected a whole number from 1 to 65535, got '18x3'" in refused.stderr
    )
    assert "[table] unknown key 'rulez'" in typoed.stderr
    assert "unknown Faro option 'cat_hop'" in optioned.stderr
    lines = severally.stderr.splitlines()
    assert [line.split(": ")[2].split()[0] for line in lines] == [
        "[table]", "[reader]", "[mqtt]", "[display]", "[top"
    ]  # fmt: skip
    assert all(line.startswith(f"dealtable config: {several}: ") for line in lines)


def test_a_password_that_is_no_text_is_refused_without_showing_it(tmp_path: Path) -> None:
    """A password written without quotes (all digits, a list) is refused as any bad value,
    but the message, which systemd keeps in its log, never holds it."""
    journal = tmp_path / "j.sqlite"
    config = tmp_path / "table.toml"
    for password, kind in (("20261105", "number"), ('["s3cret"]', "list")):
        console_config(config, journal, more=f"\n[mqtt]\npassword = {password}\n")
        message = (
            f"{config}: [mqtt] password: expected text (in quotes), got a {kind}; its value is "
            "not shown"
        )
        checked = dealtable("config", "check", str(config))
        assert (checked.returncode, checked.stderr) == (2, f"dealtable config: {message}\n")
        ran = dealtable("run", "--config", str(config))
        assert (ran.returncode, ran.stderr) == (2, f"dealtable run: {message}\n")
        assert not journal.exists()


def test_a_pace_that_is_no_number_is_refused_as_on_the_command_line() -> None:
    from table.service.config import ConfigError, parse_config

    for pace in ("nan", "inf", "-1.5"):
        text = f"[reader]\ncards_per_second = {pace}\n"
        with pytest.raises(ConfigError) as refused:
            parse_config(text, "t.toml")
        assert str(refused.value) == (
            f"t.toml: [reader] cards_per_second: expected a number of at least 0, got {float(pace)}"
        )


def refused_by_check_and_run(refusals: list[tuple[Path, Path, str]]) -> None:
    """For each (config, journal, message): ``config check`` and ``run`` both refuse
    ``config`` with ``message``, and ``run`` makes no journal."""
    commands = []
    for config, _, _ in refusals:
        commands += [["config", "check", str(config)], ["run", "--config", str(config)]]
    said = dealtable_each(commands)
    for (config, journal, message), checked, ran in zip(
        refusals, said[::2], said[1::2], strict=True
    ):
        assert (checked.returncode, checked.stderr) == (
            2,
            f"dealtable config: {config}: {message}\n",
        )
        assert (ran.returncode, ran.stderr) == (2, f"dealtable run: {config}: {message}\n")
        assert not journal.exists(), config


def test_mqtt_settings_the_broker_would_refuse_are_refused_before_the_journal_is_made(
    tmp_path: Path, example_certs: Path
) -> None:
    """What paho or the broker would choke on only at connecting (its thread dying, a
    traceback, the last will refused at every retry) is refused by `config check` and by
    `run`, naming the key, and `run` makes no journal."""
    notes = tmp_path / "notes.txt"
    notes.write_text("not a certificate\n")
    server_crt, ca_key = example_certs / "server.crt", example_certs / "ca.key"
    refused = {
        "session_expiry = 4294967296": (
            "[mqtt] session_expiry: expected a whole number from 0 to 4294967295, got 4294967296"
        ),
        'host = ""': "[mqtt] host: expected the broker's host name or address, got ''",
        'prefix = "a/#"': (
            "[mqtt] prefix: expected a topic prefix without the wildcards + and #, not "
            "starting with $, got 'a/#'"
        ),
        'prefix = "a/+"': (
            "[mqtt] prefix: expected a topic prefix without the wildcards + and #, not "
            "starting with $, got 'a/+'"
        ),
        f'tls = {{ ca_file = "{notes}" }}': (
            f"[mqtt.tls] ca_file: expected a certificate file (PEM), got {notes}"
        ),
        f'tls = {{ cert_file = "{notes}" }}': (
            f"[mqtt.tls] cert_file: expected a certificate file (PEM), got {notes}"
        ),
        f'tls = {{ key_file = "{ca_key}" }}': (
            "[mqtt.tls] key_file: a client key goes with its certificate: set cert_file too"
        ),
        f'tls = {{ cert_file = "{server_crt}", key_file = "{ca_key}" }}': (
            "[mqtt.tls] key_file: expected the private key of the certificate in cert_file, "
            f"not locked by a passphrase, got {ca_key}"
        ),
        f'tls = {{ cert_file = "{server_crt}" }}': (
            "[mqtt.tls] key_file: expected the file of the private key of the certificate in "
            f"cert_file, as {server_crt} holds none that is its key and not locked by a "
            "passphrase"
        ),
    }
    refusals = []
    for number, (line, message) in enumerate(refused.items()):
        host = "" if line.startswith("host") else 'host = "127.0.0.1"\n'
        journal = tmp_path / f"j{number}.sqlite"
        config = console_config(
            tmp_path / f"table{number}.toml", journal, more=f"\n[mqtt]\n{host}{line}\n"
        )
        refusals.append((config, journal, message))
    refused_by_check_and_run(refusals)
    journal = tmp_path / "j.sqlite"
    config = tmp_path / "table.toml"
    server_key = example_certs / "server.key"
    console_config(
        config,
        journal,
        more=f'\n[mqtt]\ntls = {{ ca_file = "{example_certs / "ca.crt"}", '
        f'cert_file = "{server_crt}", key_file = "{server_key}" }}\n',
    )
    checked = dealtable("config", "check", str(config))
    assert checked.returncode == 0, checked.stderr


def test_web_tls_files_that_cannot_serve_the_page_are_refused_before_anything_starts(
    tmp_path: Path, page_certificate: PageCertificate, example_certs: Path
) -> None:
    """A certificate or key missing, not one, not each other's or locked by a passphrase:
    refused by `config check` and by `run`, naming the key, and `run` makes no journal."""
    notes = tmp_path / "notes.txt"
    notes.write_text("not a certificate\n")
    cert, key = page_certificate.cert_file, page_certificate.key_file
    other_key = example_certs / "server.key"
    locked = tmp_path / "locked.key"
    locked.write_bytes(
        subprocess.run(
            ["openssl", "pkey", "-in", str(key), "-aes256", "-passout", "pass:s3cret"],
            check=True,
            capture_output=True,
        ).stdout
    )
    missing = tmp_path / "missing.pem"
    not_its_key = (
        "[web.tls] key_file: expected the private key of the certificate in cert_file, not "
        "locked by a passphrase, got {}"
    )
    refused = {
        f'tls = {{ cert_file = "{missing}", key_file = "{key}" }}': (
            f"[web.tls] cert_file: no file {missing}"
        ),
        f'tls = {{ cert_file = "{cert}", key_file = "{missing}" }}': (
            f"[web.tls] key_file: no file {missing}"
        ),
        f'tls = {{ key_file = "{key}" }}': (
            "[web.tls] cert_file: expected the file of the page's certificate (PEM), got ''"
        ),
        f'tls = {{ cert_file = "{notes}", key_file = "{key}" }}': (
            f"[web.tls] cert_file: expected a certificate file (PEM), got {notes}"
        ),
        f'tls = {{ cert_file = "{key}", key_file = "{key}" }}': (
            f"[web.tls] cert_file: expected a certificate file (PEM), got {key}"
        ),
        f'tls = {{ cert_file = "{cert}", key_file = "{notes}" }}': not_its_key.format(notes),
        f'tls = {{ cert_file = "{cert}", key_file = "{cert}" }}': not_its_key.format(cert),
        f'tls = {{ cert_file = "{cert}", key_file = "{other_key}" }}': not_its_key.format(
            other_key
        ),
        f'tls = {{ cert_file = "{cert}", key_file = "{locked}" }}': not_its_key.format(locked),
        f'tls = {{ cert_file = "{cert}" }}': (
            "[web.tls] key_file: expected the file of the private key of the certificate in "
            f"cert_file, as {cert} holds none that is its key and not locked by a "
            "passphrase"
        ),
        f'tls = {{ cert_file = "{cert}", key_file = "{key}", ca_file = "{cert}" }}': (
            "[web.tls] unknown key 'ca_file' (known: cert_file, key_file)"
        ),
        'tls = "on"': "[web.tls] must be a table",
    }
    refusals = []
    for number, (line, message) in enumerate(refused.items()):
        journal = tmp_path / f"j{number}.sqlite"
        config = console_config(
            tmp_path / f"table{number}.toml", journal, more=f'\n[web]\nhost = "127.0.0.1"\n{line}\n'
        )
        refusals.append((config, journal, message))
    refused_by_check_and_run(refusals)
    journal = tmp_path / "j.sqlite"
    config = tmp_path / "table.toml"
    # A certificate made by hw/mosquitto/make-certs.sh, as the README makes the page's.
    broker_certificate = (
        f'tls = {{ cert_file = "{example_certs / "server.crt"}", key_file = "{other_key}" }}'
    )
    console_config(config, journal, more=f'\n[web]\nhost = "127.0.0.1"\n{broker_certificate}\n')
    checked = dealtable("config", "check", str(config))
    assert (checked.returncode, checked.stderr) == (0, ""), checked.stderr


def test_with_web_tls_the_running_table_serves_its_page_over_https_only(
    tmp_path: Path, page_certificate: PageCertificate
) -> None:
    port = free_port()
    config = console_config(
        tmp_path / "t.toml",
        tmp_path / "j.sqlite",
        more=f'\n[web]\nhost = "127.0.0.1"\nport = {port}\n'
        f'tls = {{ cert_file = "{page_certificate.cert_file}", '
        f'key_file = "{page_certificate.key_file}" }}\n',
    )
    trusting = page_certificate.client_context()

    def shown_seq() -> int:
        try:
            with urllib.request.urlopen(
                f"https://127.0.0.1:{port}/view", timeout=10, context=trusting
            ) as page:
                return int(json.loads(page.read()).get("seq", 0))
        except OSError:
            return 0  # not serving yet

    with console_service(config, typed="punter anna 100\n") as service:
        assert wait_until(lambda: shown_seq() > 0, timeout=30)
        with pytest.raises(urllib.error.HTTPError) as plain:
            urllib.request.urlopen(
                urllib.request.Request(f"http://127.0.0.1:{port}/view", method="POST"), timeout=5
            )
        assert plain.value.code == 400
    assert service.stderr is not None
    said = service.stderr.read()
    assert f"INFO dealtable: the table on the web: https://127.0.0.1:{port}/\n" in said


def test_a_croupiers_page_in_plain_http_on_the_network_is_warned_of_and_still_runs(
    tmp_path: Path, page_certificate: PageCertificate
) -> None:
    """Passwords typed at the croupier's page cross the network in the clear unless the
    page speaks TLS or is served on the Pi alone: `config check` and `run` say so, and the
    table runs as it did."""
    config = tmp_path / "t.toml"
    tls = (
        f'tls = {{ cert_file = "{page_certificate.cert_file}", '
        f'key_file = "{page_certificate.key_file}" }}\n'
    )
    croupier = 'croupier_username = "terminal"\n'
    warning = (
        f"{config}: [web] croupier_username: the croupier's page is served over plain HTTP on "
        "{}, so each broker password typed there crosses the network in the clear: set [web] "
        'tls = {{ cert_file = ..., key_file = ... }}, or host = "127.0.0.1" behind a TLS proxy'
    )
    warned = {
        'host = "0.0.0.0"\n' + croupier: warning.format("0.0.0.0"),
        croupier: warning.format("0.0.0.0"),  # the default host
        'host = "table-7.local"\n' + croupier: warning.format("table-7.local"),
        'host = ""\n' + croupier: warning.format("every address"),
        'host = "127.0.0.1"\n' + croupier: "",
        'host = "127.0.0.53"\n' + croupier: "",
        'host = "::1"\n' + croupier: "",
        'host = "localhost"\n' + croupier: "",
        'host = "0.0.0.0"\n' + croupier + tls: "",
        'host = "0.0.0.0"\n': "",  # the table's page alone asks for no password
    }
    configs = [
        console_config(tmp_path / f"t{number}.toml", tmp_path / "j.sqlite", more=f"\n[web]\n{web}")
        for number, web in enumerate(warned)
    ]
    checked_each = dealtable_each([["config", "check", str(path)] for path in configs])
    for path, (web, said), checked in zip(configs, warned.items(), checked_each, strict=True):
        assert checked.returncode == 0, web
        expected = f"dealtable config: warning: {said.replace(str(config), str(path))}\n"
        assert checked.stderr == (expected if said else ""), web
    port = free_port()
    console_config(
        config,
        tmp_path / "j.sqlite",
        more=f'\n[web]\nhost = "0.0.0.0"\nport = {port}\n{croupier}',
    )
    ran = dealtable("run", "--config", str(config), typed="punter anna 100\n")
    assert ran.returncode == 0, ran.stderr
    assert f"WARNING dealtable: {warning.format('0.0.0.0')}" in ran.stderr.splitlines()
    assert f"INFO dealtable: the table on the web: http://127.0.0.1:{port}/" in ran.stderr


def test_a_page_certificate_out_of_its_dates_is_warned_of_at_each_start(
    tmp_path: Path, page_certificate: PageCertificate
) -> None:
    """Browsers refuse a page whose certificate has lapsed: the table deals all the same, and
    the operator is told at each start, and a month ahead."""
    import ssl

    from table.service.config import WebConfig, WebTlsConfig, config_warnings

    tls = WebTlsConfig(str(page_certificate.cert_file), str(page_certificate.key_file))
    config = Config(source="t.toml", web=WebConfig(host="127.0.0.1", tls=tls))
    dates = ssl._ssl._test_decode_cert(str(page_certificate.cert_file))  # type: ignore[attr-defined]
    starts = ssl.cert_time_to_seconds(dates["notBefore"])
    ends = ssl.cert_time_to_seconds(dates["notAfter"])
    where = f"t.toml: [web.tls] cert_file: the certificate in {page_certificate.cert_file}"
    assert config_warnings(config, now=starts + 3600) == []
    assert config_warnings(config, now=ends - 10 * 86400) == [
        f"{where} lapses on {dates['notAfter']}: renew it before then"
    ]
    assert config_warnings(config, now=ends + 1) == [
        f"{where} lapsed on {dates['notAfter']}: browsers refuse the page; renew it"
    ]
    assert config_warnings(config, now=starts - 1) == [
        f"{where} is valid only from {dates['notBefore']}: browsers refuse the page"
    ]


def test_a_config_or_a_file_it_names_that_is_not_utf8_is_refused_naming_it(
    tmp_path: Path,
) -> None:
    latin1 = tmp_path / "latin1.txt"
    latin1.write_bytes("contraseña\n".encode("latin-1"))
    journal = tmp_path / "j.sqlite"
    config = tmp_path / "table.toml"
    refused = {
        f'\n[mqtt]\npassword_file = "{latin1}"\n': (
            f"[mqtt] password_file: expected the password as UTF-8 text in {latin1}, got byte "
            "0xf1 at offset 8"
        ),
        f'\n[hardware]\nboard = "{latin1}"\npin_factory = "mock"\n': (
            f"[hardware] board: {latin1}: not UTF-8 text (byte 0xf1 at offset 8); TOML is UTF-8"
        ),
    }
    configs = [
        console_config(tmp_path / f"table{number}.toml", journal, more=more)
        for number, more in enumerate(refused)
    ]
    config.write_bytes(b'[table]\nid = "mesa-espa\xf1ola"\n')
    said = dealtable_each(
        [
            [*command, str(path)]
            for path in [*configs, config]
            for command in (["config", "check"], ["run", "--config"])
        ]
    )
    for path, (more, message), checked, ran in zip(
        configs, refused.items(), said[:-2:2], said[1:-2:2], strict=True
    ):
        assert (checked.returncode, checked.stderr) == (
            2,
            f"dealtable config: {path}: {message}\n",
        ), more
        assert ran.returncode == 2, more
        assert ran.stderr.startswith("dealtable run: ") and ran.stderr.count("\n") == 1, more
        assert f"{latin1}" in ran.stderr and "UTF-8" in ran.stderr, more
    assert not journal.exists()
    for command, ran in zip(("config", "run"), said[-2:], strict=True):
        assert (ran.returncode, ran.stderr) == (
            2,
            f"dealtable {command}: {config}: not UTF-8 text (byte 0xf1 at offset 23); "
            "TOML is UTF-8\n",
        )


def test_at_the_console_help_shows_the_table_language_and_a_typo_names_the_lines(
    tmp_path: Path,
) -> None:
    config = console_config(tmp_path / "console.toml", tmp_path / "j.sqlite")
    ran = dealtable("run", "--config", str(config), typed="help\npunter ana 100\nbett ana 9 4\n")
    assert ran.returncode == 0, ran.stderr
    assert "bet PUNTER SPOT AMOUNT" in ran.stdout and "refused" not in ran.stdout.split("\n")[0]
    refusal = [line for line in ran.stdout.splitlines() if line.startswith("refused:")]
    assert len(refusal) == 1 and "unknown line 'bett'" in refusal[0] and "bet," in refusal[0]
    with Journal(tmp_path / "j.sqlite") as journal:
        assert [event.type_name for event in journal.events()][-1] == "punter_seated"


def punto_banco_at_the_console(tmp_path: Path) -> tuple[Path, Path, list[str]]:
    """A Punto Banco table dealt from the dealer's keyboard: its config, its journal, and the
    coups of 004's record as the dealer keys them (the table's opening is the config's)."""
    config = tmp_path / "pb.toml"
    journal = tmp_path / "pb.sqlite"
    config.write_text(
        '[table]\nid = "pb"\ngame = "punto-banco"\nrules = "standard"\n'
        'options = { burn = "one" }\nbank = 5000\n'
        f'journal = "{journal}"\n'
        'punters = [ { name = "ana", bankroll = 200 }, { name = "ben", bankroll = 200 } ]\n'
        '\n[reader]\nkind = "console"\n\n[display]\nterminal = true\n'
    )
    record = (RECORDS / "004_punto_banco.deal").read_text().splitlines()
    lines = [line.split("#")[0].strip() for line in record if line.split("#")[0].strip()]
    opening = ("game", "rules", "bank", "punter")
    return config, journal, [line for line in lines if line.split()[0] not in opening]


def test_a_punto_banco_table_runs_from_the_console_and_resumes(tmp_path: Path) -> None:
    """The service deals the baccarat family too: cards from the dealer's keyboard, the coups
    journaled, and a restart resumes the shoe where it stopped."""
    config, journal, coups = punto_banco_at_the_console(tmp_path)
    half = coups.index("bet ana tie 5")
    first = subprocess.run(
        [*CLI, "run", "--config", str(config)],
        input="\n".join(coups[:half]) + "\n",
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert first.returncode == 0, first.stderr
    assert "refused" not in first.stdout
    second = subprocess.run(
        [*CLI, "run", "--config", str(config)],
        input="\n".join(coups[half:]) + "\n",
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert second.returncode == 0, second.stderr
    assert "resumed from" in second.stderr
    with Journal(journal) as opened:
        types = [event.type_name for event in opened.events()]
        assert opened.verify() is None
    assert types.count("coup_result") == 3
    replayed = dealtable("replay", str(RECORDS / "004_punto_banco.deal"), "--json")
    expected = [json.loads(line) for line in replayed.stdout.splitlines()]
    settled = [
        (e["punter"], e["outcome"], e["net"]) for e in expected if e["type"] == "bet_settled"
    ]
    with Journal(journal) as opened:
        ours = [event_to_json(e) for e in opened.events() if e.type_name == "bet_settled"]
    assert [(e["punter"], e["outcome"], e["net"]) for e in ours] == settled


def bead_plate_of_last_frame(drawn: str) -> list[str]:
    """The first column of the bead plate in the last table drawn on a plain terminal."""
    frame = drawn.rsplit("-" * 78, 2)[-2].splitlines()
    start = next(i for i, line in enumerate(frame) if line.startswith("bead plate"))
    return [line[:1] for line in frame[start + 1 : start + 7] if line[:1].strip()]


def test_a_restarted_console_table_is_drawn_at_once_with_the_shoes_scoreboards(
    tmp_path: Path,
) -> None:
    """After a restart the dealer at the keyboard sees the table as it stands before typing
    a line, and the scoreboards keep the coups the shoe dealt before the restart."""
    config, _, coups = punto_banco_at_the_console(tmp_path)
    second_coup = coups.index("bet ana tie 5")
    third_coup = coups.index("bet ana banker 30")
    tie = dealtable("run", "--config", str(config), typed="\n".join(coups[:second_coup]) + "\n")
    assert tie.returncode == 0, tie.stderr
    assert bead_plate_of_last_frame(tie.stdout) == ["T"]
    restarted = dealtable("run", "--config", str(config), typed="help\n")
    assert restarted.returncode == 0, restarted.stderr
    assert "coup 1: player 9♠ 7♥ = 6 · banker K♦ A♣ 5♦ = 6" in restarted.stdout
    assert bead_plate_of_last_frame(restarted.stdout) == ["T"]
    natural = dealtable(
        "run", "--config", str(config), typed="\n".join(coups[second_coup:third_coup]) + "\n"
    )
    assert natural.returncode == 0, natural.stderr
    assert bead_plate_of_last_frame(natural.stdout) == ["T", "P"]


def test_deals_counts_the_coups_of_a_baccarat_table(tmp_path: Path) -> None:
    """`run --deals 1` at Punto Banco stops once a coup is over, as --until-deal counts
    coups: it had dealt on to the end of the shoe."""
    config = console_config(
        tmp_path / "pb.toml",
        tmp_path / "pb.sqlite",
        table='id = "pb"\ngame = "punto-banco"\noptions = { burn = "one" }\n'
        'punters = [ { name = "ana", bankroll = 200 }, { name = "ben", bankroll = 200 } ]\n',
    )
    record = (RECORDS / "004_punto_banco.deal").read_text().splitlines()
    lines = [line for line in record if line.split("#")[0].strip()]
    lines = [line for line in lines if line.split()[0] not in ("game", "rules", "bank", "punter")]
    for deals, coups in ((1, 1), (2, 3)):
        ran = dealtable(
            "run", "--config", str(config), "--deals", str(deals), typed="\n".join(lines)
        )
        assert ran.returncode == 0, ran.stderr
        with Journal(tmp_path / "pb.sqlite", read_only=True) as journal:
            assert [e.type_name for e in journal.events()].count("coup_result") == coups
        lines = lines[next(i for i, line in enumerate(lines) if line == "bet ana tie 5") :]


def test_faro_only_parts_are_refused_for_a_baccarat_table(tmp_path: Path) -> None:
    config = tmp_path / "pb.toml"
    config.write_text('[table]\ngame = "punto-banco"\n\n[hardware]\nabacus = true\n')
    refused = dealtable("config", "check", str(config))
    assert refused.returncode == 2
    assert "only a Faro table has this" in refused.stderr and "[hardware]" in refused.stderr


def test_a_baccarat_tables_retained_state_shows_the_coup(tmp_path: Path) -> None:
    from table.service.table_service import TableService, baccarat_snapshot
    from tests.conftest import punto_banco_config

    config = punto_banco_config(tmp_path / "j.sqlite")
    with Journal(config.table.journal, "pb") as journal:
        service = TableService(config, journal)
        for line in (
            "punter ana 200",
            "shuffle",
            "card 7D",
            "bet ana banker 20",
            "lock",
            "card 9S",
            "card KD",
            "card 7H",
            "card AC",
            "card 5D",
        ):
            service.execute_line(line)
        snapshot = baccarat_snapshot(service.state)  # type: ignore[arg-type]
    assert snapshot["game"] == "punto-banco"
    assert snapshot["last_result"]["type"] == "coup_result"
    assert snapshot["bankrolls"] == {"ana": 200}  # a tie: Banca pushes
    assert "7D" not in json.dumps(snapshot["hands"])  # the burn card is no hand's


def test_a_baccarat_table_serves_its_web_page_but_no_croupiers_page(tmp_path: Path) -> None:
    """`[web]` serves any game's table; the croupier's page lays bets on a Faro layout, so a
    baccarat table answers it with why, and a config that asks for its account is refused."""
    port = free_port()
    config = console_config(
        tmp_path / "pb.toml",
        tmp_path / "pb.sqlite",
        table='id = "pb"\ngame = "punto-banco"\noptions = { burn = "one" }\nbank = 5000\n',
        more=f'\n[web]\nhost = "127.0.0.1"\nport = {port}\n',
    )
    assert dealtable("config", "check", str(config)).returncode == 0
    record = (RECORDS / "004_punto_banco.deal").read_text().splitlines()
    lines = [line for line in record if line.split("#")[0].strip()]
    lines = [line for line in lines if line.split()[0] not in ("game", "rules", "bank")]
    with console_service(config, "\n".join(lines) + "\n"):

        def shown() -> dict[str, Any]:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/view", timeout=10) as page:
                    return dict(json.loads(page.read()))
            except OSError:
                return {}

        assert wait_until(lambda: (shown().get("last_result") or {}).get("coup") == 3, timeout=60)
        assert shown()["title"] == "Punto Banco"
        written = replay_lines(record).game
        assert isinstance(written, BaccaratTable)
        box = written.state.commission_box
        assert shown()["bankrolls"] == [
            {
                "punter": name,
                "chips": written.state.bankrolls[name],
                "commission_box": hundredths_text(box[name]) if name in box else None,
            }
            for name in ("ana", "ben")
        ]
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/croupier", timeout=10)
        assert refused.value.code == 404
        assert "this table deals Punto Banco" in refused.value.read().decode()

    with_croupier = tmp_path / "croupier.toml"
    with_croupier.write_text(
        config.read_text() + 'croupier_username = "croupier"\n\n[mqtt]\nhost = "127.0.0.1"\n'
    )
    refused_config = dealtable("config", "check", str(with_croupier))
    assert refused_config.returncode == 2
    assert "[web] croupier_username: only a Faro table has this" in refused_config.stderr


def test_a_console_table_with_no_keyboard_stops_with_why(tmp_path: Path) -> None:
    """Under systemd standard input is empty: a console table could never be dealt a card,
    so it says so and fails (systemd shows it) rather than stop as if its work were done."""
    config = console_config(tmp_path / "console.toml", tmp_path / "c.sqlite")
    silent = dealtable("run", "--config", str(config))
    assert silent.returncode == 2
    assert "the console ended before its first line" in silent.stderr
    closed = subprocess.run(  # standard input closed altogether (`0<&-`): the same
        [*CLI, "run", "--config", str(config)],
        stderr=subprocess.PIPE,
        text=True,
        timeout=60,
        check=False,
        preexec_fn=lambda: os.close(0),
    )
    assert closed.returncode == 2
    assert "the console ended before its first line" in closed.stderr
    typed = dealtable("run", "--config", str(config), typed="punter ana 50\n")
    assert typed.returncode == 0, typed.stderr


def test_a_page_that_cannot_be_served_is_refused_in_one_line_and_changes_nothing(
    tmp_path: Path,
) -> None:
    in_use = "the port is already in use (another server listens on it)"
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        config = tmp_path / "web.toml"
        journal = tmp_path / "t.sqlite"
        config.write_text(
            f'[table]\njournal = "{journal}"\n\n[web]\nhost = "127.0.0.1"\nport = {port}\n'
        )
        page = ["web", "--journal", str(tmp_path / "j.sqlite"), "--host"]
        on_the_web, run, unknown = dealtable_each(
            [
                [*page, "127.0.0.1", "--port", str(port)],
                ["run", "--config", str(config), "--deals", "1", "--speed", "0"],
                [*page, "nosuchhost.invalid"],
            ]
        )
        assert on_the_web.returncode == 2
        assert on_the_web.stderr == (
            f"dealtable web: cannot serve the table's page on 127.0.0.1:{port}: {in_use}\n"
        )
        assert run.returncode == 2
        assert run.stderr.splitlines()[-1] == (
            f"dealtable run: {config}: [web] port: cannot serve the table's page on "
            f"127.0.0.1:{port}: {in_use}"
        )
        assert not journal.exists()
    assert unknown.returncode == 2
    assert unknown.stderr.startswith(
        "dealtable web: cannot serve the table's page on nosuchhost.invalid:8080: "
        "no machine is known by the name 'nosuchhost.invalid'"
    )


def test_a_second_run_of_a_table_with_a_page_is_refused_naming_the_service_at_work(
    tmp_path: Path,
) -> None:
    """The table's own page holds the port: a second run of its config (the service was
    running under systemd already) is told the journal is in use by that service's pid,
    not that another server listens on the port."""
    journal = tmp_path / "t.sqlite"
    config = tmp_path / "web.toml"
    config.write_text(
        f'[table]\njournal = "{journal}"\n\n[reader]\nkind = "simulated"\n'
        "cards_per_second = 50\n\n[display]\nterminal = false\n\n"
        f'[web]\nhost = "127.0.0.1"\nport = {free_port()}\n'
    )
    first = subprocess.Popen(
        [*CLI, "run", "--config", str(config)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert wait_until(functools.partial(progressed, journal, 0, first), 30)
        second = dealtable("run", "--config", str(config), "--deals", "1")
        assert second.returncode == 2
        assert second.stderr.splitlines()[-1] == (
            f"dealtable run: journal {journal} is in use by another process (pid {first.pid}): "
            "one journal, one table service; stop that one first, or give this one a journal "
            "of its own"
        )
        assert first.poll() is None
    finally:
        first.terminate()
        first.wait(timeout=30)


def test_at_the_console_a_line_of_the_other_game_is_refused_in_a_dealers_words(
    tmp_path: Path,
) -> None:
    def console(game: str, lines: list[str]) -> list[str]:
        config = console_config(
            tmp_path / f"{game}.toml", tmp_path / f"{game}.sqlite", table=f'game = "{game}"\n'
        )
        ran = dealtable("run", "--config", str(config), typed="\n".join(lines) + "\n")
        assert ran.returncode == 0, ran.stderr
        return [line for line in ran.stdout.splitlines() if line.startswith("refused:")]

    faro = console(
        "faro", ["punter ana 100", "shuffle", "cut", "banco ana", "pass", "bet ana tie 5"]
    )
    assert faro == [
        "refused: cut: a Faro table has no cut card (it is a baccarat line)",
        "refused: banco ana: banco is a baccarat line; at Faro a punter bets on the layout "
        "against the bank",
        "refused: pass: a banker gives up the bank at baccarat; at Faro the house holds the "
        "bank, or under home rules it passes by itself after each deal",
        "refused: not a spot: 'tie' is a baccarat side (expected a rank such as 9, a group such "
        "as 4+5+9+10, a win-and-lose pair such as J>K, or high, odd, even, red, black)",
    ]
    baccarat = console(
        "punto-banco",
        ["punter ana 100", "shuffle", "call ana 7 J 3 2", "bet ana 9 4 copper", "bet ana 4+5 4"],
    )
    sides = "banker, banker-pair, player, player-pair, tie"
    assert baccarat == [
        "refused: call: calling the turn is Faro's; baccarat has no turn",
        "refused: bet ana 9: coppers, marks and progressions are Faro's; a baccarat bet is "
        "PUNTER SIDE AMOUNT",
        f"refused: bet ana 4+5 4: 4+5 is a spot on a Faro layout; at punto-banco a bet is on a "
        f"side ({sides})",
    ]


def test_run_says_once_that_the_broker_is_out_of_reach_and_what_waits_in_the_outbox(
    tmp_path: Path,
) -> None:
    port = free_port()  # nobody listens on it yet
    journal = tmp_path / "j.sqlite"
    config = write_config(tmp_path / "t.toml", journal)
    config.write_text(config.read_text() + f'\n[mqtt]\nhost = "127.0.0.1"\nport = {port}\n')
    alone = dealtable("run", "--config", str(config), "--deals", "1")
    assert alone.returncode == 0, alone.stderr
    written = last_seq(journal)
    assert [line for line in alone.stderr.splitlines() if line.startswith("WARNING")] == [
        f"WARNING dealtable.mqtt: cannot reach the broker at 127.0.0.1:{port}: connection "
        "refused (is the broker running and listening on this port?); retrying, the events "
        "wait in the journal",
        f"WARNING dealtable.mqtt: {written} events not yet acknowledged by the broker (up to "
        f"event {written}): they stay in the journal's outbox and go out at the next start",
    ]

    (tmp_path / "broker").mkdir()
    broker = Broker(tmp_path / "broker", port=port)
    broker.start()
    watcher = Watcher(port, "dealtable/t1/events")
    try:
        assert watcher.connected.wait(30)
        again = dealtable("run", "--config", str(config), "--deals", "0")
        assert again.returncode == 0, again.stderr
        assert "WARNING" not in again.stderr
        assert wait_until(
            lambda: {e["seq"] for e in watcher.events()} >= set(range(1, written + 1))
        )
    finally:
        watcher.close()
        broker.stop()


def test_a_service_that_will_not_start_on_a_damaged_journal_says_offline(
    tmp_path: Path, broker: Broker
) -> None:
    """The broker and the service died together (a power cut): the will was never published
    and ``online`` stays retained. The service then refuses its damaged journal: a monitor
    must not go on seeing the table up."""
    from table.service.config import MqttConfig
    from table.service.journal import JournalDamagedError
    from tests.test_service_journal import journal_with_a_deal

    journal, _ = journal_with_a_deal(tmp_path / "j.sqlite")
    journal.close()
    with sqlite3.connect(tmp_path / "j.sqlite") as db:
        db.execute("UPDATE events SET body = '{bad' WHERE seq = 20")
    db.close()
    before = Watcher(broker.port, "dealtable/t1/status")
    assert before.connected.wait(30)
    before.client.publish("dealtable/t1/status", "online", qos=1, retain=True).wait_for_publish(5)
    before.close()
    config = Config(
        table=TableConfig(id="t1", journal=str(tmp_path / "j.sqlite")),
        reader=ReaderConfig(kind="simulated", seed=3),
        mqtt=MqttConfig(host="127.0.0.1", port=broker.port, client_id="table-t1"),
    )
    with pytest.raises(JournalDamagedError):
        run_table(config, deals=1, out=io.StringIO())
    after = Watcher(broker.port, "dealtable/t1/status")
    try:
        assert wait_until(lambda: after.on("/status") == [b"offline"])
    finally:
        after.close()


def test_the_croupiers_page_without_an_account_names_the_missing_setting(tmp_path: Path) -> None:
    port = free_port()
    config = console_config(
        tmp_path / "t.toml",
        tmp_path / "j.sqlite",
        more=f'\n[web]\nhost = "127.0.0.1"\nport = {port}\n'
        f'\n[mqtt]\nhost = "127.0.0.1"\nport = {free_port()}\n',
    )
    with console_service(config):
        assert wait_until(lambda: croupier_bet(port, "someone", "secret")[0] != 0, timeout=30)
        status, reply = croupier_bet(port, "someone", "secret")
        assert status == 200 and reply["ok"] is False
        assert reply["error"].startswith(
            "the croupier's page takes bets only once the table offers it: set [web] "
            "croupier_username (the broker account its login form offers)"
        )


def croupier_bet(port: int, username: str, password: str) -> tuple[int, dict[str, Any]]:
    """What the croupier's page served on ``port`` answers to a bet in the account's name
    (no credentials if ``username`` is empty); nothing if it is not serving yet."""
    headers = {"Content-Type": "application/json"}
    if username:
        credentials = base64.b64encode(f"{username}:{password}".encode()).decode()
        headers["Authorization"] = f"Basic {credentials}"
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/cmd/bet",
        data=json.dumps({"punter": "anna", "spot": "9", "amount": 2}).encode(),
        method="POST",
        headers=headers,
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status, dict(json.loads(answer.read()))
    except urllib.error.HTTPError as refused:
        return refused.code, dict(json.loads(refused.read()))
    except OSError:
        return 0, {}  # not serving yet


def test_the_croupiers_page_of_a_running_table_bets_only_for_whoever_logs_in(
    tmp_path: Path, secured_broker: Broker
) -> None:
    """hw/mosquitto's accounts and access list: the page of `dealtable run` takes no bet
    from someone who has not logged in, and one from the betting terminal's account."""
    (tmp_path / "table-password").write_text(f"{ACCOUNTS['table-faro-1']}\n")
    port = free_port()
    journal = tmp_path / "j.sqlite"
    config = console_config(
        tmp_path / "t.toml",
        journal,
        table='id = "faro-1"\npunters = [{ name = "anna", bankroll = 100 }]\n',
        more=f'\n[web]\nhost = "127.0.0.1"\nport = {port}\ncroupier_username = "terminal"\n'
        f'\n[mqtt]\nhost = "127.0.0.1"\nport = {secured_broker.port}\n'
        f'username = "table-faro-1"\npassword_file = "{tmp_path / "table-password"}"\n',
    )
    display = Watcher(
        secured_broker.port, "dealtable/faro-1/status", "display", ACCOUNTS["display"]
    )
    with console_service(config, typed="shuffle\ncard 2C\n"):
        # The table says online once it has asked for its commands: a bet sent before that
        # would find no one to hear it.
        assert wait_until(lambda: display.on("/status")[-1:] == [b"online"], timeout=30)
        display.close()
        assert wait_until(lambda: croupier_bet(port, "", "")[0] != 0, timeout=30)
        assert croupier_bet(port, "", "") == (
            401,
            {"ok": False, "error": "cmd/bet: log in with your account on the table's broker"},
        )
        status, reply = croupier_bet(port, "terminal", ACCOUNTS["terminal"])
        assert (status, reply["ok"]) == (200, True), reply
    with Journal(journal) as kept:
        placed = [e for e in kept.events() if isinstance(e, BetPlaced)]
    assert [(e.punter, e.spot, e.amount) for e in placed] == [("anna", "9", 2)]


def test_config_check_finds_what_run_would_refuse(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    decks = tmp_path / "decks"  # where `dealtable teach` keeps the decks it learns
    decks.mkdir()
    taught = taught_profile().save(tmp_path / "taught").read_bytes()
    (decks / "bicycle.npz").write_bytes(taught)
    (tmp_path / "profiles").mkdir()
    (tmp_path / "profiles" / "house.npz").write_bytes(taught)
    (tmp_path / "profiles" / "cut.npz").write_bytes(taught[:20000])  # a copy cut short
    (tmp_path / "profiles" / "empty.npz").write_bytes(b"")
    frames = tmp_path / "frames"
    frames.mkdir()
    camera = '[reader]\nkind = "camera"\ncamera = "{camera}"\ndeck = "{deck}"\n'

    def check(text: str) -> subprocess.CompletedProcess[str]:
        """``dealtable config check`` on ``text``, called in this process: a process of its
        own for each of the twenty configs took most of the test's time. One of them goes
        through the command line, below, as the user meets it."""
        config = tmp_path / "table.toml"
        if "[table]" not in text:
            text = f'[table]\njournal = "{tmp_path / "j.sqlite"}"\n' + text
        config.write_text(text)
        capsys.readouterr()
        code = cli_main(["config", "check", str(config)])
        out, err = capsys.readouterr()
        return subprocess.CompletedProcess(["config", "check"], code, out, err)

    monkeypatch.setenv("DEALTABLE_DECKS", str(decks))

    names = "a name is letters, digits, '-', '_' or '.' with no spaces"
    refused = {
        '[table]\njournal = ""\n': "[table] journal: expected a file path for the journal, got ''",
        f'[table]\njournal = "{tmp_path / "nowhere" / "j.sqlite"}"\n': (
            f"[table] journal: there is no folder {tmp_path / 'nowhere'} for the journal"
        ),
        "[table]\npunters = [{ name = 'ana', bankroll = 10 }, { name = 'ana', bankroll = 10 }]\n": (
            "[table] punters: punter ana: already seated"
        ),
        "[table]\npunters = [{ name = '', bankroll = 10 }]\n": (
            f"[table] punters: punter '': {names}"
        ),
        "[table]\npunters = [{ name = 'ana b', bankroll = 10 }]\n": (
            f"[table] punters: punter 'ana b': {names}"
        ),
        camera.format(camera="usb:abc", deck="bicycle"): (
            "[reader] camera: expected picamera, usb:N (N a camera number), video:FILE or "
            "folder:DIR, got 'usb:abc'"
        ),
        camera.format(camera=f"folder:{tmp_path / 'nothing'}", deck="bicycle"): (
            f"[reader] camera: there is no folder {tmp_path / 'nothing'}"
        ),
        camera.format(camera=f"folder:{frames}", deck="poker"): (
            f"[reader] deck: no deck profile named 'poker' in '{decks}' (taught there: bicycle)"
        ),
        camera.format(camera=f"folder:{frames}", deck=f"{tmp_path / 'profiles' / 'poker'}"): (
            f"[reader] deck: no deck profile file '{tmp_path / 'profiles' / 'poker'}' or "
            f"'{tmp_path / 'profiles' / 'poker.npz'}'"
        ),
        camera.format(camera=f"folder:{frames}", deck=f"{tmp_path / 'profiles' / 'cut'}"): (
            f"[reader] deck: deck profile '{tmp_path / 'profiles' / 'cut.npz'}' is damaged "
            "(File is not a zip file): teach the deck again"
        ),
        camera.format(camera=f"folder:{frames}", deck=f"{tmp_path / 'profiles' / 'empty'}"): (
            f"[reader] deck: deck profile '{tmp_path / 'profiles' / 'empty.npz'}' is damaged "
            "(No data left in file): teach the deck again"
        ),
        '[web]\ncroupier_password_file = "croupier-password"\n': (
            "[web] croupier_password_file: the croupier's page keeps no password: whoever uses "
            "it logs in with their own account on the table's broker; remove this line (and "
            "the file)"
        ),
        f'[mqtt]\ntls = {{ ca_file = "{tmp_path / "ca.crt"}" }}\n': (
            f"[mqtt.tls] ca_file: no file {tmp_path / 'ca.crt'}"
        ),
        f'[table]\njournal = "{frames / "notes.txt"}"\n': (
            f"[table] journal: {frames / 'notes.txt'} is not a dealtable journal (not an SQLite "
            "database); nothing was changed"
        ),
        f'[table]\nid = "t2"\njournal = "{tmp_path / "faro.sqlite"}"\n': (
            f"[table] journal: journal {tmp_path / 'faro.sqlite'} belongs to table 'table', not "
            "'t2'"
        ),
        f'[table]\ngame = "punto-banco"\njournal = "{tmp_path / "faro.sqlite"}"\n'
        '[reader]\nkind = "console"\n': (
            f"[table] journal: the journal {tmp_path / 'faro.sqlite'} deals faro but the config "
            "asks for punto-banco; a punto-banco table needs a journal of its own"
        ),
    }
    (frames / "notes.txt").write_text("not a journal\n")
    assert (
        dealtable("run", "--deals", "0", "--journal", str(tmp_path / "faro.sqlite")).returncode == 0
    )
    for text, message in refused.items():
        checked = check(text)
        assert checked.returncode == 2, text
        assert checked.stderr == f"dealtable config: {tmp_path / 'table.toml'}: {message}\n"
    as_a_process = dealtable("config", "check", str(tmp_path / "table.toml"))
    assert (as_a_process.returncode, as_a_process.stderr) == (2, checked.stderr)
    # A deck by its taught name, or by its file with or without .npz.
    for deck in ("bicycle", tmp_path / "profiles" / "house", tmp_path / "profiles" / "house.npz"):
        checked = check(camera.format(camera=f"folder:{frames}", deck=deck))
        assert checked.returncode == 0, checked.stderr
    overridden = dealtable(
        "run", "--config", str(tmp_path / "table.toml"), "--journal", str(tmp_path / "no" / "j")
    )
    assert overridden.returncode == 2
    assert overridden.stderr == (
        f"dealtable run: --journal: there is no folder {tmp_path / 'no'} for the journal\n"
    )


def test_a_deck_profile_run_cannot_read_is_refused_before_the_journal_is_made(
    tmp_path: Path,
) -> None:
    broken = tmp_path / "broken.npz"
    broken.write_bytes(b"not a profile")
    (tmp_path / "frames").mkdir()
    config = tmp_path / "table.toml"
    journal = tmp_path / "j.sqlite"
    config.write_text(
        f'[table]\njournal = "{journal}"\n\n[reader]\nkind = "camera"\n'
        f'camera = "folder:{tmp_path / "frames"}"\ndeck = "{broken}"\n'
    )
    refused = dealtable("run", "--config", str(config))
    assert refused.returncode == 2
    assert refused.stderr.startswith(
        f"dealtable run: {config}: [reader] deck: not a readable deck profile: '{broken}'"
    )
    assert not journal.exists()


def test_a_config_for_another_game_than_its_journal_is_refused_naming_both(
    tmp_path: Path,
) -> None:
    faro = tmp_path / "faro.sqlite"
    assert dealtable("run", "--deals", "0", "--journal", str(faro)).returncode == 0
    baccarat = tmp_path / "pb.sqlite"
    pb_config = console_config(tmp_path / "pb.toml", baccarat, table='game = "punto-banco"\n')
    assert dealtable("run", "--config", str(pb_config), typed="punter ana 50\n").returncode == 0
    written = {journal: last_seq(journal) for journal in (faro, baccarat)}

    faro_config = tmp_path / "faro.toml"
    faro_config.write_text(f'[table]\ngame = "faro"\njournal = "{baccarat}"\n')
    on_faro, on_baccarat, with_no_config, drawn = dealtable_each(
        [
            ["run", "--config", str(pb_config), "--journal", str(faro)],
            ["run", "--config", str(faro_config)],
            ["run", "--journal", str(baccarat), "--deals", "1"],
            ["snapshot", "--journal", str(baccarat), "--out", str(tmp_path / "s.png")],
        ]
    )
    assert on_faro.returncode == 2
    assert on_faro.stderr == (
        f"dealtable run: {pb_config}: [table] game: the journal {faro} deals faro (classic "
        "rules) but the config asks for punto-banco; a punto-banco table needs a journal of its "
        "own\n"
    )
    assert on_baccarat.returncode == 2
    assert on_baccarat.stderr == (
        f"dealtable run: {faro_config}: [table] game: the journal {baccarat} deals punto-banco "
        "(standard rules) but the config asks for faro; a faro table needs a journal of its own\n"
    )
    assert with_no_config.returncode == 2
    assert with_no_config.stderr == (
        f"dealtable run: the journal {baccarat} deals punto-banco (standard rules) but a run "
        "with no config deals faro: give it its table's --config\n"
    )
    assert drawn.returncode == 2
    assert drawn.stderr == (
        f"dealtable snapshot: the journal {baccarat} deals punto-banco (standard rules); "
        "a snapshot draws a Faro layout\n"
    )
    assert {journal: last_seq(journal) for journal in (faro, baccarat)} == written


def test_rules_changed_in_the_config_begin_with_the_next_deal(tmp_path: Path) -> None:
    """The journal is the truth for a deal in progress: it ends under the rules it began
    with, and the config's new rules are journaled as the next deck goes in."""
    journal = tmp_path / "j.sqlite"
    console = console_config(tmp_path / "console.toml", journal, table='id = "t1"\n')
    started = dealtable("run", "--config", str(console), typed="punter ana 100\nshuffle\ncard 2C\n")
    assert started.returncode == 0, started.stderr
    changed = write_config(tmp_path / "stuss.toml", journal)
    changed.write_text(
        changed.read_text().replace(
            'rules = "classic"', 'rules = "stuss"\noptions = { max_bet = 50 }'
        )
    )
    finished = dealtable("run", "--config", str(changed), "--until-deal", "2")
    assert finished.returncode == 0, finished.stderr
    assert (
        "INFO dealtable: the deal in progress (before turn 1) goes on under the journal's rules "
        "(classic); the config's (stuss max_bet=50) begin with the next deal"
    ) in finished.stderr.splitlines()
    with Journal(journal) as opened:
        events = list(opened.events())
        assert opened.verify() is None
    types = [event.type_name for event in events]
    rules = [(e.rules, e.options, e.deal) for e in events if isinstance(e, RulesChosen)]
    assert rules == [("classic", {}, 0), ("stuss", {"max_bet": "50"}, 1)]
    second = types.index("rules_chosen", 1)
    assert types[second + 1] == "deck_started"
    # Between the deal's end and the new rules, only the bets that stood from deal to deal
    # (003's high card and odd/even) come back: they were taken under the old rules. The
    # house tops its bank up and seats new visitors there too, as between any two deals.
    between = events[types.index("deal_finished") + 1 : second]
    returned = [e for e in between if isinstance(e, BetSettled)]
    assert all(e.note == "the rules changed" for e in returned), returned
    house = (BankFunded, PunterSeated, PunterLeft)
    assert all(isinstance(e, house) for e in between if e not in returned), between
    again = dealtable("run", "--config", str(changed), "--deals", "0")
    assert again.returncode == 0, again.stderr
    assert "the config's" not in again.stderr  # the journal's rules are the config's now
    assert last_seq(journal) == len(events)

    # Between deals a change is journaled at once.
    reverted = dealtable("run", "--config", str(write_config(changed, journal)), "--deals", "0")
    assert reverted.returncode == 0, reverted.stderr
    assert (
        "INFO dealtable: the config's rules (classic) replace the journal's (stuss max_bet=50) "
        "from the next deal"
    ) in reverted.stderr.splitlines()
    with Journal(journal) as opened:
        assert [e.rules for e in opened.events() if isinstance(e, RulesChosen)][-1] == "classic"


def test_a_rules_line_from_the_dealer_outranks_the_rules_the_config_waits_to_begin(
    tmp_path: Path,
) -> None:
    from table.service.config import Config, ReaderConfig, TableConfig
    from table.service.table_service import TableService

    table = TableConfig(id="t1", journal=str(tmp_path / "j.sqlite"))
    console = ReaderConfig(kind="console")
    with Journal(table.journal, "t1") as journal:
        started = TableService(Config(table=table, reader=console), journal)
        for line in ("punter ana 100", "shuffle", "card 2C"):
            started.execute_line(line)
    stuss = Config(table=dataclasses.replace(table, rules="stuss"), reader=console)
    with Journal(table.journal, "t1") as journal:
        resumed = TableService(stuss, journal)
        assert resumed.rules_waiting
        resumed.execute_line("void deal")
        resumed.execute_line("rules classic cat_hop_pays=1")
        resumed.execute_line("shuffle")
        chosen = [(e.rules, e.options) for e in journal.events() if isinstance(e, RulesChosen)]
    assert chosen == [("classic", {}), ("classic", {"cat_hop_pays": "1"})]


def test_a_board_that_cannot_be_driven_refuses_the_start_in_one_line(tmp_path: Path) -> None:
    """On a machine with no GPIO library for the chosen pin factory the start is refused
    before anything is written, with the fix named."""
    pytest.importorskip("gpiozero")
    if importlib.util.find_spec("lgpio") is not None:
        pytest.skip("lgpio is installed here: the board can be driven")
    journal = tmp_path / "hw.sqlite"
    config = tmp_path / "hw.toml"
    config.write_text(f'[table]\njournal = "{journal}"\n\n[hardware]\npin_factory = "lgpio"\n')
    refused = dealtable("run", "--config", str(config), "--deals", "1", "--speed", "0")
    assert refused.returncode == 2
    assert refused.stderr == (
        "dealtable run: pin factory 'lgpio' is not available: No module named 'lgpio' "
        "(on a Pi: apt install python3-lgpio)\n"
    )
    assert not journal.exists()


def test_a_second_service_refused_the_journal_never_touches_the_tables_devices(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Opening the casekeep latches it dark: a second ``run`` on a journal in use must be
    refused before it opens a device, or the dealing table's lights would go out."""
    from table.service import hardware
    from table.service.config import HardwareConfig
    from table.service.journal import JournalInUseError

    opened: list[object] = []
    monkeypatch.setattr(hardware.TableHardware, "__init__", lambda *args, **_: opened.append(args))
    journal = tmp_path / "j.sqlite"
    config = Config(
        table=TableConfig(id="t1", journal=str(journal)),
        reader=ReaderConfig(kind="simulated", cards_per_second=0),
        hardware=HardwareConfig(pin_factory="mock", layout=False, buttons=False),
    )
    with Journal(journal, "t1"), pytest.raises(JournalInUseError, match="is in use by"):
        run_table(config, deals=1, out=io.StringIO())
    assert opened == []


def one_deal_on_a_stepped_clock(config: Config, devices: Any, now: list[float]) -> int:
    """``run`` for one deal with ``devices``, its time ``now[0]``, moved on by its sleeps."""

    def sleep(seconds: float) -> None:
        now[0] += seconds

    clock = {"sleep": sleep, "monotonic": lambda: now[0]}
    return run_table(config, deals=1, out=io.StringIO(), hardware=devices, **clock)


def test_a_slow_simulated_shoe_serves_the_tables_devices_while_it_waits_for_a_card(
    tmp_path: Path,
) -> None:
    """A card every two seconds: the devices (the layout's link, the dealer's buttons) are
    polled all through the pause, never left a tenth of a second unheard, or the layout's
    firmware would report the service gone and a button press would wait for the card."""
    now = [0.0]
    polled: list[float] = []

    class Devices:
        def attach(self, service: object) -> None:
            pass

        def poll(self) -> list[object]:
            polled.append(now[0])
            return []

        def close(self) -> None:
            pass

    config = Config(
        table=TableConfig(id="t1", journal=str(tmp_path / "j.sqlite")),
        reader=ReaderConfig(kind="simulated", seed=3, cards_per_second=0.5),
    )
    assert one_deal_on_a_stepped_clock(config, Devices(), now) == 0
    assert now[0] >= 2.0 * 52  # the pace was kept: 53 cards, two seconds apart
    gaps = [later - earlier for earlier, later in itertools.pairwise(polled)]
    assert max(gaps) <= 0.1


def test_a_simulated_table_waits_out_a_full_disk_and_deals_the_whole_deck(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The disk fills mid-deal at an exhibit dealing from its simulated shoe: the service
    says so once and waits, and deals the deck on, every card once, when the disk clears."""
    from tests.test_service_readers import FullDisk

    now = [0.0]
    disks: list[FullDisk] = []

    class Devices:
        def attach(self, service: Any) -> None:
            self.service = service

        def poll(self) -> list[object]:
            journal = self.service.journal
            if 10.0 <= now[0] < 30.0 and not disks:
                disks.append(FullDisk(journal._db))
                journal._db = disks[0]
            if now[0] >= 30.0 and disks:
                disks[0].full = False
            return []

        def close(self) -> None:
            pass

    config = Config(
        table=TableConfig(id="t1", journal=str(tmp_path / "j.sqlite")),
        reader=ReaderConfig(kind="simulated", seed=3, cards_per_second=1),
    )
    assert one_deal_on_a_stepped_clock(config, Devices(), now) == 0
    assert disks and not disks[0].full
    with Journal(tmp_path / "j.sqlite") as journal:
        assert journal.verify() is None
        dealt = [e.card for e in journal.events() if e.type_name == "card_dealt"]
    assert len(dealt) == len(set(dealt)) == 52
    full = [r for r in caplog.records if "database or disk is full" in r.getMessage()]
    assert len(full) == 1


def test_a_table_whose_journal_cannot_write_says_so_once_and_runs_on(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The exhibit's punters bet at a table dealt from the console, and the disk fills: the
    bets and the card are refused, the operator told once, and the service runs on (before,
    the punters' refused bets ended it with a status that systemd does not restart)."""
    from table.service.config import ExhibitConfig
    from tests.test_service_readers import FullDisk

    class Devices:
        def attach(self, service: Any) -> None:
            self.service = service

        def poll(self) -> list[object]:
            journal = self.service.journal
            soda_out = any(True for _ in self.service.faro.casekeep.dealt_cards())
            if soda_out and not isinstance(journal._db, FullDisk):
                journal._db = FullDisk(journal._db)
            return []

        def close(self) -> None:
            pass

    config = Config(
        table=TableConfig(id="t1", journal=str(tmp_path / "j.sqlite")),
        reader=ReaderConfig(kind="console"),
        exhibit=ExhibitConfig(language="en", punters=True),
    )
    out = io.StringIO()
    console = io.StringIO("shuffle\ncard 5S\ncard 9C\n")
    devices: Any = Devices()
    assert run_table(config, out=out, console=console, hardware=devices) == 0
    assert "refused: journal" in out.getvalue()  # the card, told at the console
    waits = [r for r in caplog.records if "the table waits until the journal" in r.getMessage()]
    assert len(waits) == 1


def test_a_card_at_the_console_waits_behind_the_cards_held_for_the_journal(
    tmp_path: Path,
) -> None:
    """The disk cleared a moment ago and the shoe's cards read meanwhile are still held: a
    card the dealer types then is refused, and the held cards go in first, in their order."""
    from table.cards import Card
    from tests.test_service_readers import FullDisk
    from vision.barcode import encode_payload

    typed = threading.Event()
    stop = threading.Event()

    class Console:
        def __iter__(self) -> Iterator[str]:
            typed.wait(30)
            yield "card 9D\n"

    class Devices:
        step = 0

        def pair_slides_with(self, reader: Any) -> None:
            pass  # no light barrier

        def attach(self, service: Any) -> None:
            self.service = service

        def answer_questions_of(self, reader: Any, clock: Any) -> None:
            self.reader = reader

        def poll(self) -> list[object]:
            self.step += 1
            scanner = self.reader.scanner
            if self.step == 2:
                self.service.execute_line("shuffle")
                self.disk = FullDisk(self.service.journal._db)
                self.service.journal._db = self.disk
                scanner.port.write(encode_payload(Card.parse("5C"), 1).encode() + b"\r\n")
            if self.step == 4:
                self.disk.full = False  # cleared; 5C still waits out its pause
                typed.set()
            if self.step > 4 and self.reader.holding_for_the_journal() == []:
                stop.set()
            return []

        def close(self) -> None:
            pass

    config = Config(
        table=TableConfig(id="t1", journal=str(tmp_path / "j.sqlite")),
        reader=ReaderConfig(kind="serial-scanner", url="loop://"),
    )
    out = io.StringIO()
    devices: Any = Devices()
    assert run_table(config, out=out, console=Console(), hardware=devices, stop=stop) == 0  # type: ignore[arg-type]
    assert "refused: card 9D: the cards read before it (5C) wait for the journal" in out.getvalue()
    with Journal(tmp_path / "j.sqlite") as journal:
        dealt = [str(e.card) for e in journal.events() if e.type_name == "card_dealt"]
    assert dealt == ["5C"]


def test_a_reader_lost_before_a_restart_without_it_is_removed_from_the_table(
    tmp_path: Path,
) -> None:
    """The scanner was lost when the service stopped, and the dealer starts it again with
    the console alone: the table no longer waits for that scanner, on its screens or MQTT."""
    from table.events import ReaderNotice, ReaderNoticeKind
    from table.service.table_service import TableService

    config = Config(
        table=TableConfig(id="t1", journal=str(tmp_path / "j.sqlite")),
        reader=ReaderConfig(kind="console"),
    )
    with Journal(config.table.journal, "t1") as journal:
        service = TableService(config, journal)
        service.reader_notice("barcode", ReaderNoticeKind.READER_LOST, "the scanner is gone")
    out = io.StringIO()
    assert run_table(config, out=out, console=io.StringIO("shuffle\ncard 5S\n")) == 0
    with Journal(config.table.journal, "t1") as journal:
        told = [e for e in journal.events() if isinstance(e, ReaderNotice)]
        resumed = TableService(config, journal)
    assert [(e.reader, e.notice) for e in told] == [
        ("barcode", ReaderNoticeKind.READER_LOST),
        ("barcode", ReaderNoticeKind.READER_REMOVED),
    ]
    assert resumed.state.readers_lost == {}
    assert "barcode reader: the service started without the barcode reader" in out.getvalue()


def test_a_board_scanner_without_the_layout_board_is_refused_by_the_config(
    tmp_path: Path,
) -> None:
    from table.service.config import ConfigError, parse_config

    text = f'[table]\njournal = "{tmp_path / "j.sqlite"}"\n[reader]\nkind = "board-scanner"\n'
    with pytest.raises(ConfigError, match=r'kind = "board-scanner": the scanner wired to the'):
        parse_config(text, "t.toml")
    with pytest.raises(ConfigError, match="add \\[hardware\\] with layout = true"):
        parse_config(text + "[hardware]\nlayout = false\n", "t.toml")
    config = parse_config(text + '[hardware]\npin_factory = "mock"\n', "t.toml")
    assert config.reader.kind == "board-scanner"
