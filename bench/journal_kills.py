"""Nothing lost, the hard way: a simulated table, dealing as fast as it can and taking bets
over MQTT from a real Mosquitto, killed with SIGKILL at random moments (mid-card, mid-bet,
mid-archive with a small ``archive_every``, during a ``dealtable backup`` of the live
journal, during the chain check at its start), then started again. After each kill:

- every file, the archives and the journal, verifies, and each takes up the chain where the
  one before ends;
- the records across them run 1, 2, 3 ... with none twice;
- the table a start builds (from its checkpoint) equals the fold of every record, archives
  included;
- every event a subscriber was sent is in the journal as it was sent, and every command the
  table answered ``ok`` has its records there;
- each backup taken is whole and verifies.

Prints one line a round and the totals; exits 1 at the first broken promise, keeping the
files. Needs mosquitto (`tools/need-mosquitto.sh`). Run:
``.venv/bin/python bench/journal_kills.py [ROUNDS] [SEED]``.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from table.events import Event
from table.service.journal import Journal, archives_of
from table.service.table_service import engine_for, table_from_journal
from tests.mosquitto import Broker

TABLE = "kills"
PYTHON = sys.executable


@dataclass
class Outside:
    """What the world outside the table was told: events published, commands answered ok."""

    events: dict[tuple[str, int], str] = field(default_factory=dict)
    answered_ok: dict[str, list[int]] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)


class Punter:
    """A client of the table's broker: listens to its events and replies, and bets."""

    def __init__(self, port: int, outside: Outside) -> None:
        self.outside = outside
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5)
        self.client.on_message = self._heard
        self.client.on_connect = self._connected
        self.client.connect("127.0.0.1", port)
        self.client.loop_start()
        self.sent = 0

    def _connected(self, client: mqtt.Client, *_: object) -> None:
        client.subscribe(f"dealtable/{TABLE}/events", qos=1)
        client.subscribe(f"dealtable/{TABLE}/reply", qos=1)

    def _heard(self, client: mqtt.Client, userdata: object, message: mqtt.MQTTMessage) -> None:
        body = message.payload.decode()
        with self.outside.lock:
            if message.topic.endswith("/events"):
                props = getattr(message.properties, "UserProperty", []) or []
                name = dict(props).get("journal", "")
                seq = json.loads(body)["seq"]
                seen = self.outside.events.setdefault((name, seq), body)
                if seen != body:
                    print(f"BROKEN: event {seq} of {name} sent twice, differently")
                    raise SystemExit(1)
            else:
                reply = json.loads(body)
                if reply.get("ok"):
                    self.outside.answered_ok[reply["request_id"]] = reply["seqs"]

    def bet(self, rng: random.Random) -> None:
        self.sent += 1
        request_id = f"bet-{os.getpid()}-{self.sent}"
        if self.sent % 25 == 1:
            payload = {"request_id": request_id, "punter": "Outsider", "bankroll": 1_000_000}
            self.client.publish(f"dealtable/{TABLE}/cmd/punter", json.dumps(payload), qos=1)
            return
        rank = rng.choice(["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"])
        payload = {"request_id": request_id, "punter": "Outsider", "spot": rank, "amount": 1}
        self.client.publish(f"dealtable/{TABLE}/cmd/bet", json.dumps(payload), qos=1)

    def stop(self) -> None:
        self.client.loop_stop()
        self.client.disconnect()


def write_config(folder: Path, port: int, archive_every: int) -> Path:
    config = folder / "table.toml"
    config.write_text(
        f"""
[table]
id = "{TABLE}"
journal = "{folder / "journal.sqlite"}"
archive_every = {archive_every}
archive_dir = "{folder / "archive"}"

[reader]
kind = "simulated"
seed = 5
cards_per_second = 0

[display]
terminal = false

[mqtt]
host = "127.0.0.1"
port = {port}
client_id = "kills-table"
"""
    )
    return config


def every_record(
    journal_path: Path, folder: Path, cut_short: bool = True
) -> tuple[list[Event], list[str]]:
    """Every event of the table, archives first, and what is wrong with the files. With
    ``cut_short``, an archiving cut short is allowed: its archive in place, the journal not
    yet begun after it (a start finishes it)."""
    wrong: list[str] = []
    events: list[Event] = []
    before: tuple[int, str | None] | None = None
    files = archives_of(journal_path, folder)
    if cut_short and files:
        with Journal(journal_path, read_only=True) as journal:
            first = journal.first_seq
        if files[-1].name.startswith(f"{journal_path.stem}-{first:010d}-"):
            files.pop()
    for path in [*files, journal_path]:
        with Journal(path, read_only=True) as journal:
            broken = journal.verify()
            if broken is not None:
                wrong.append(f"{path.name}: broken at {broken}")
                continue
            opening = journal.opening
            if before is None:
                if opening is not None:
                    wrong.append(f"{path.name}: the first file begins after {opening.after_seq}")
            elif opening is None or (opening.after_seq, opening.after_hash) != before:
                wrong.append(f"{path.name} does not follow the file before it")
            events += journal.events()
            before = (journal.last_seq, journal.hash_of(journal.last_seq))
    seqs = [event.seq for event in events]
    if seqs != list(range(1, len(seqs) + 1)):
        wrong.append("the records do not run 1, 2, 3 ...: a record missing or twice")
    return events, wrong


def check(folder: Path, outside: Outside) -> list[str]:
    journal_path = folder / "journal.sqlite"
    if not journal_path.exists():
        return []
    events, wrong = every_record(journal_path, folder / "archive")
    if wrong:
        return wrong
    by_seq = {event.seq: event for event in events}
    with Journal(journal_path, read_only=True) as journal:
        if journal.last_seq == 0:
            return []
        started = table_from_journal(journal, TABLE).state
        folded = engine_for("faro").replay(events, TABLE).state
        if started != folded:
            wrong.append(f"the table a start builds differs from the fold at {journal.last_seq}")
        stored = dict(journal.bodies(0, 10**9))
        name_for = journal.name_for
        with outside.lock:
            published = dict(outside.events)
            answered = dict(outside.answered_ok)
        for (name, seq), body in published.items():
            if name_for(seq) != name:
                continue  # a journal carried on: not this one's name for it
            if seq not in by_seq:
                wrong.append(f"event {seq} was published but is not in the journal")
            elif seq in stored and stored[seq] != body:
                wrong.append(f"event {seq} was published otherwise than the journal holds it")
        for request_id, seqs in answered.items():
            missing = [seq for seq in seqs if seq not in by_seq]
            if missing:
                wrong.append(f"{request_id} was answered ok with {missing} not in the journal")
    return wrong


def back_up_in_a_process(journal: Path, copy: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [PYTHON, "-m", "table.service.cli", "backup", str(journal), str(copy)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )


def main() -> int:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 30
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory() as temp:
        folder = Path(temp)
        broker = Broker(folder)
        broker.start()
        port = broker.port
        outside = Outside()
        punter = Punter(port, outside)
        config = write_config(folder, port, archive_every=120)
        log = open(folder / "service.log", "ab")  # noqa: SIM115 - lives with the loop
        kinds: dict[str, int] = {}
        try:
            for round_ in range(rounds):
                kind = rng.choice(["dealing", "dealing", "at start", "backup", "backup killed"])
                kinds[kind] = kinds.get(kind, 0) + 1
                service = subprocess.Popen(
                    [PYTHON, "-m", "table.service.cli", "run", "--config", str(config)],
                    stdout=subprocess.DEVNULL,
                    stderr=log,
                    cwd=Path(__file__).resolve().parent.parent,
                )
                wait = rng.uniform(0.0, 0.6) if kind == "at start" else rng.uniform(0.8, 3.0)
                copy = folder / f"backup-{round_}.sqlite"
                backup = None
                if kind.startswith("backup"):
                    time.sleep(wait / 2)
                    backup = back_up_in_a_process(folder / "journal.sqlite", copy)
                    wait /= 2
                end = time.monotonic() + wait
                while time.monotonic() < end:
                    punter.bet(rng)
                    time.sleep(0.01)
                if backup is not None and kind == "backup killed":
                    backup.send_signal(signal.SIGKILL)
                service.send_signal(signal.SIGKILL)
                service.wait()
                wrong: list[str] = []
                if backup is not None:
                    _, said = backup.communicate()
                    if backup.returncode == 0:
                        with Journal(copy, read_only=True) as copied:
                            if copied.verify() is not None:
                                wrong.append(f"the backup {copy.name} is broken")
                    elif backup.returncode != -signal.SIGKILL and b"no journal" not in said:
                        wrong.append(f"backup failed: {said.decode()[-400:]}")
                    # This round's own: a backup killed in an earlier round leaves its file
                    # beside its copy, cleared by the next backup to that copy.
                    beside = f".{copy.name}.copying"
                    leftovers = [p.name for p in folder.iterdir() if p.name.startswith(beside)]
                    if leftovers and kind != "backup killed":
                        wrong.append(f"backup left {leftovers}")
                time.sleep(0.2)  # the replies and events on their way
                wrong += check(folder, outside)
                with Journal(folder / "journal.sqlite", read_only=True) as journal:
                    where = f"records {journal.first_seq} to {journal.last_seq}"
                archives = len(archives_of(folder / "journal.sqlite", folder / "archive"))
                print(
                    f"round {round_:3d} {kind:14s} {where}, {archives} archives, "
                    f"{len(outside.answered_ok)} commands ok"
                )
                if wrong:
                    for line in wrong:
                        print(f"  BROKEN: {line}")
                    print(f"  the files are kept in {folder}.kept")
                    os.system(f"cp -a {folder} {folder}.kept")
                    return 1
        finally:
            punter.stop()
            broker.cut_power()
            log.close()
        print(f"{rounds} kills ({kinds}), nothing lost")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
