"""The command line as a user runs it: a real process, real files, real output."""

from __future__ import annotations

import json
import os
import re
import signal
import stat
import subprocess
import sys
import threading
from pathlib import Path
from typing import IO, Any

from tests.commands import dealtable_each
from tests.mosquitto import wait_until

RECORDS = Path(__file__).parent / "records"


def run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "table.service.cli", *args],
        capture_output=True,
        text=True,
        input=stdin,
        timeout=120,
        check=False,
    )


def replay_json(record: str) -> list[dict[str, Any]]:
    """Every event of a written deal or shoe, from `dealtable replay --json`."""
    result = run("replay", str(RECORDS / record), "--json")
    assert result.returncode == 0, result.stderr
    return [json.loads(line) for line in result.stdout.splitlines()]


def settled_bets(events: list[dict[str, Any]]) -> list[tuple[str, str, str, int]]:
    return [
        (e["punter"], e["spot"], e["outcome"], e["net"])
        for e in events
        if e["type"] == "bet_settled"
    ]


def test_replay_json_prints_every_event_one_object_a_line() -> None:
    events = replay_json("001_example.deal")
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    assert settled_bets(events) == [("dan", "9", "win", 4), ("anna", "K", "win", 2)]
    assert all("type" in e and "seq" in e for e in events)


def test_replay_in_words() -> None:
    result = run("replay", str(RECORDS / "001_example.deal"))
    assert result.returncode == 0
    assert "dan on 9: wins 4" in result.stdout
    assert "turn 1: K♦ loses, 9♣ wins" in result.stdout


def test_replay_reports_a_bad_line_with_its_number_and_exits_non_zero(tmp_path: Path) -> None:
    record = tmp_path / "bad.deal"
    record.write_text("bank 100\npunter dan 10\nshuffle\ncard 2C\ncard 2C\nbet dan 9 4 copper\n")
    result = run("replay", str(record), "--json")
    assert result.returncode == 1
    assert f"{record}:6: refused: " in result.stderr
    assert "alarm 1 waits for the dealer" in result.stderr
    types = [json.loads(line)["type"] for line in result.stdout.splitlines()]
    assert types[-1] == "alarm_raised"
    record.write_text("bank 100\npunter dan 10\nshuffle\ncard QQ\n")
    unreadable = run("replay", str(record)).stderr.strip()
    assert unreadable.startswith(f"{record}:4: refused: not a card: 'QQ'"), unreadable


def test_replay_json_starts_at_seq_1_when_the_first_line_is_refused() -> None:
    """DESIGN.md, the table language: `dealtable replay --json` prints every event in seq
    order; a refused line changes nothing, even the first."""
    result = run("replay", "-", "--json", stdin="bank 0\ngame faro\nbank 100\n")
    assert result.returncode == 1
    assert "-:1: refused: bank 0: the amount must be positive" in result.stderr
    events = [json.loads(line) for line in result.stdout.splitlines()]
    assert [(e["seq"], e["type"]) for e in events] == [(1, "rules_chosen"), (2, "bank_funded")]


def test_replay_reads_standard_input_and_refuses_a_missing_file() -> None:
    result = run("replay", "-", "--json", stdin="bank 10\n")
    assert result.returncode == 0
    assert json.loads(result.stdout.splitlines()[-1])["type"] == "bank_funded"
    missing = run("replay", "/nonexistent/deal.txt")
    assert missing.returncode == 2
    assert "cannot read /nonexistent/deal.txt" in missing.stderr


def test_demo_deals_a_full_deck_in_plain_text_off_a_terminal() -> None:
    result = run("demo", "--seed", "7")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "\x1b[" not in out  # no colour codes when not on a terminal
    assert out.count("casekeep") == 52  # a frame after every card
    assert ": soda" in out and ": hoc of turn 25" in out
    assert "K♠" in out and "7♠" in out
    words = " ".join(out.split())
    assert "chips on the table 2600" in words  # conserved: bank 2000 + 6 punters × 100
    assert " wins " in out and " loses " in out


def test_replay_settles_a_written_punto_banco_shoe() -> None:
    """004: a written shoe through `dealtable replay --json`, with commission and pushes."""
    events = replay_json("004_punto_banco.deal")
    assert settled_bets(events) == [
        ("ana", "banker", "push", 0),
        ("ben", "player", "push", 0),
        ("ana", "tie", "lose", -5),
        ("ben", "player", "win", 10),
        ("ana", "banker", "lose", -30),
    ]
    results = [(e["winner"], e["totals"]) for e in events if e["type"] == "coup_result"]
    assert results == [
        ("tie", {"player": 6, "banker": 6}),
        ("player", {"player": 9, "banker": 5}),
        ("player", {"player": 6, "banker": 4}),
    ]
    assert events[-1]["type"] == "coup_finished"
    assert events[-1]["bankrolls"] == {"ana": 165, "ben": 210}


def test_replay_in_words_names_the_hands() -> None:
    result = run("replay", str(RECORDS / "004_punto_banco.deal"))
    assert result.returncode == 0, result.stderr
    assert "coup 1: 9♠ to the player" in result.stdout
    assert "player 10♣ 9♥ = 9 natural" in result.stdout


def test_demo_deals_a_baccarat_shoe_with_its_roads() -> None:
    for game in ("punto-banco", "chemin-de-fer", "banque", "macao"):
        result = run("demo", "--game", game, "--seed", "2")
        assert result.returncode == 0, result.stderr
        out = result.stdout
        assert "\x1b[" not in out
        for board in ("bead plate", "big road", "big eye boy", "small road", "cockroach pig"):
            assert board in out
        words = " ".join(out.split())
        assert "Shoe over:" in words and "coups" in words
        assert max(len(line) for line in out.splitlines()) <= 80
    chips = " ".join(run("demo", "--game", "punto-banco").stdout.split())
    assert "chips on the table 23000" in chips  # bank 20000 + 6 punters × 500, conserved
    summary = chips[chips.index("Shoe over:") :]
    counted = re.findall(r"(?:bank|house|ana|ben|cy|dora|eli|fay) (\d+)", summary)
    assert "commission to the house" in summary and sum(map(int, counted)) == 23000
    shuffler = run("demo", "--game", "punto-banco", "--rules", "shuffler")
    assert shuffler.returncode == 0, shuffler.stderr
    words = " ".join(shuffler.stdout.split())
    assert "Shuffler stopped: 80 coups" in words and "chips on the table 23000" in words
    refused = run("demo", "--game", "macao", "--rules", "classic")
    assert refused.returncode == 2
    assert "unknown macao rules 'classic'" in refused.stderr


def test_replay_settles_a_written_chemin_de_fer_shoe() -> None:
    """002: partial stakes, a tie carrying them, the bank passing, banco, two naturals."""
    events = replay_json("002_chemin_de_fer.deal")
    assert settled_bets(events) == [
        ("ana", "player", "push", 0),
        ("ben", "player", "push", 0),
        ("ana", "player", "win", 30),
        ("ben", "player", "win", 50),
        ("cy", "banco", "lose", -200),
    ]
    passed = [(e["from_banker"], e["to_banker"]) for e in events if e["type"] == "bank_passed"]
    assert passed == [("bea", "ana")]
    holders = [e["holders"] for e in events if e["type"] == "coup_result"]
    assert [h["player"] for h in holders] == ["ben", "ben", "cy"]
    last = events[-1]
    assert last["type"] == "coup_finished"
    assert (last["bank"], last["bankrolls"]) == (
        400,
        {"bea": 420, "ana": 530, "ben": 350, "cy": 100},
    )


def test_the_readers_commands_are_part_of_dealtable(tmp_path: Path) -> None:
    sheet = tmp_path / "stickers.png"
    commands = ("teach", "recognize", "odds", "simulate", "web", "exhibit", "snapshot")
    made, *helped = dealtable_each(
        [
            ["barcodes", "--decks", "1", "--out", str(sheet)],
            *([command, "--help"] for command in commands),
        ]
    )
    assert made.returncode == 0, made.stderr
    assert sheet.stat().st_size > 10_000
    for command, helps in zip(commands, helped, strict=True):
        assert helps.returncode == 0, command
        assert f"usage: dealtable {command}" in helps.stdout, command


def test_a_file_a_command_cannot_write_is_named_in_one_line(tmp_path: Path) -> None:
    journal = tmp_path / "j.sqlite"
    assert run("run", "--deals", "0", "--journal", str(journal)).returncode == 0
    kept = journal.read_bytes()
    missing = tmp_path / "missing"
    dangling = tmp_path / "link.png"
    dangling.symlink_to(missing / "x.png")  # its folder is there; where it leads is not
    commands = {
        "export": ["export", str(journal), "--out", str(missing / "x.csv")],
        "snapshot": ["snapshot", "--out", str(missing / "x.png")],
        "barcodes": ["barcodes", "--out", str(missing / "b.pdf")],
        "simulate": ["simulate", "--deals", "10", "--plot", str(missing / "p.png")],
    }
    *into_missing, onto_a_folder, onto_the_dangling, onto_the_journal, text = dealtable_each(
        [
            *commands.values(),
            ["snapshot", "--out", str(tmp_path)],
            ["snapshot", "--out", str(dangling)],
            ["export", str(journal), "--out", str(journal)],
            ["snapshot", "--out", str(tmp_path / "table.txt")],
        ]
    )
    for (command, args), refused in zip(commands.items(), into_missing, strict=True):
        assert refused.returncode == 2, command
        assert refused.stderr == (
            f"dealtable {command}: cannot write {args[-1]}: there is no folder {missing}\n"
        )
    assert onto_a_folder.stderr == f"dealtable snapshot: cannot write {tmp_path}: it is a folder\n"
    assert onto_the_dangling.returncode == 2
    assert (
        onto_the_dangling.stderr
        == f"dealtable snapshot: cannot write {dangling}: No such file or directory\n"
    )
    assert not missing.exists()
    assert onto_the_journal.returncode == 2
    assert onto_the_journal.stderr == (
        f"dealtable export: cannot write {journal}: it is the journal {journal} itself (or one "
        "of its files); write to a new file\n"
    )
    assert journal.read_bytes() == kept
    assert text.stderr == (
        f"dealtable snapshot: cannot write {tmp_path / 'table.txt'}: a snapshot is a picture: "
        "name it .png, .svg or .pdf\n"
    )


def test_numbers_out_of_range_are_refused_before_the_command_starts(tmp_path: Path) -> None:
    cases = [
        (
            ("exhibit", "--pause", "-1"),
            "argument --pause: expected a number of at least 0, got '-1'",
        ),
        (("run", "--speed", "-1"), "argument --speed: expected a number of at least 0, got '-1'"),
        (("run", "--deals", "-1"), "argument --deals: expected a whole number of at least 0"),
        (
            ("demo", "--speed", "nan"),
            "argument --speed: expected a number of at least 0, got 'nan'",
        ),
        (("snapshot", "--cards", "-5"), "argument --cards: expected a whole number of at least 0"),
        (
            ("web", "--journal", "j", "--port", "99999"),
            "argument --port: expected a whole number from 1 to 65535, got '99999'",
        ),
        (
            ("web", "--journal", "j", "--port", "٨٠٨٠"),
            "argument --port: expected a whole number from 1 to 65535, got '٨٠٨٠'",
        ),
        (("run", "--speed", "1_0"), "argument --speed: expected a number of at least 0, got '1_0'"),
    ]
    said = dealtable_each([list(args) for args, _ in cases], cwd=tmp_path)
    for (args, message), refused in zip(cases, said, strict=True):
        assert refused.returncode == 2, args
        assert f"dealtable {args[0]}: error: {message}" in refused.stderr
        assert "Traceback" not in refused.stderr
    assert list(tmp_path.iterdir()) == []  # `run` refused before it made a journal


def test_a_record_that_is_not_utf8_is_named_with_its_line(tmp_path: Path) -> None:
    record = tmp_path / "latin1.deal"
    record.write_bytes("bank 10\npunter jos\xe9 10\n".encode("latin-1"))
    refused = run("replay", str(record), "--json")
    assert refused.returncode == 2
    assert refused.stderr == (
        f"dealtable replay: {record}:2: not UTF-8 text (byte 0xe9); "
        "the table language is written in UTF-8\n"
    )
    settled = [json.loads(line)["type"] for line in refused.stdout.splitlines()]
    assert settled == ["rules_chosen", "bank_funded"]  # the line before it was settled


class Output:
    """A running command's output, read line by line on a thread as it comes."""

    def __init__(self, stream: IO[str]) -> None:
        self.lines: list[str] = []
        self._thread = threading.Thread(target=self._read, args=(stream,), daemon=True)
        self._thread.start()

    def _read(self, stream: IO[str]) -> None:
        for line in stream:
            self.lines.append(line)

    def text(self) -> str:
        self._thread.join(timeout=10)
        return "".join(self.lines)


def as_at_a_terminal() -> None:
    """Ctrl-C reaches a command as it does at a terminal: a test suite started in the
    background by a shell ignores SIGINT, and its children would inherit that."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_ctrl_c_stops_a_command_quietly_with_status_130() -> None:
    following = subprocess.Popen(
        [sys.executable, "-m", "table.service.cli", "replay", "-", "--json"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=as_at_a_terminal,
    )
    assert following.stdin and following.stdout and following.stderr
    out = Output(following.stdout)
    following.stdin.write("bank 10\n")
    following.stdin.flush()
    assert wait_until(lambda: bool(out.lines))  # the line was settled as soon as it was written
    assert json.loads(out.lines[0])["type"] == "rules_chosen"
    following.send_signal(signal.SIGINT)
    assert following.wait(timeout=30) == 130
    assert following.stderr.read() == ""
    following.stdin.close()

    simulating = subprocess.Popen(
        [sys.executable, "-m", "table.service.cli", "simulate", "--deals", "100000000",
         "--progress"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=as_at_a_terminal,
    )  # fmt: skip
    assert simulating.stderr
    progress = Output(simulating.stderr)  # the bar's '\r' ends a line in text mode
    assert wait_until(lambda: any("%" in line for line in progress.lines), timeout=60)
    simulating.send_signal(signal.SIGINT)
    assert simulating.wait(timeout=30) == 130
    assert "Traceback" not in progress.text()


def test_the_exhibit_and_the_snapshot_seat_a_simulated_banker_under_home_rules(
    tmp_path: Path,
) -> None:
    """Under home rules the bank is a player's own chips: a simulated player holds it first."""
    for rules in ("home", "home-full-loss"):
        exhibit = run("exhibit", "--rules", rules, "--deals", "2", "--pause", "0")
        assert exhibit.returncode == 0, exhibit.stderr
        assert exhibit.stdout.count("The deck is done") == 2
        assert "Hugo's bet" in exhibit.stdout  # the first banker bets once the bank has passed
        picture = tmp_path / f"{rules}.png"
        drawn = run("snapshot", "--rules", rules, "--out", str(picture))
        assert drawn.returncode == 0, drawn.stderr
        assert drawn.stdout == f"dealtable snapshot: {picture}\n"
        assert picture.stat().st_size > 10_000


HW_MOSQUITTO = Path(__file__).resolve().parent.parent / "hw" / "mosquitto"


def table_toml(path: Path, mqtt: str | None, more: str = "") -> Path:
    """A console Faro table's config, faro-1 unless ``more`` says otherwise, with ``mqtt`` as
    its [mqtt] section (None: no broker)."""
    broker = "" if mqtt is None else f"\n[mqtt]\n{mqtt}\n"
    path.write_text(
        f'[table]\nid = "faro-1"\njournal = "{path.parent / "j.sqlite"}"\n'
        f'\n[reader]\nkind = "console"\n{broker}{more}'
    )
    return path


def test_config_acl_writes_the_shipped_access_list_for_the_example_table(tmp_path: Path) -> None:
    """hw/mosquitto/acl is the access list `dealtable config acl` writes for table faro-1
    logging in as table-faro-1 under the default prefix: the example and the command agree."""
    config = table_toml(tmp_path / "table.toml", 'username = "table-faro-1"')
    written = run("config", "acl", str(config))
    assert written.returncode == 0, written.stderr
    assert written.stdout == (HW_MOSQUITTO / "acl").read_text()
    accounts = "table-faro-1 dealer terminal display"
    assert written.stderr == (
        f"dealtable config: the access list names the accounts {accounts}: each needs a "
        f"password on the broker (hw/mosquitto/make-passwords.sh FILE {accounts})\n"
    )


def test_config_acl_gives_each_table_its_prefix_and_each_device_its_account(
    tmp_path: Path,
) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    faro = table_toml(
        tmp_path / "a" / "faro.toml",
        'username = "table-faro-1"\nprefix = "casino/floor-2"',
        '\n[web]\ncroupier_username = "tablet"\n',
    )
    baccarat = table_toml(tmp_path / "b" / "pb.toml", 'username = "table-pb-1"', "")
    baccarat.write_text(
        baccarat.read_text().replace('id = "faro-1"', 'id = "pb-1"\ngame = "punto-banco"')
    )
    out = tmp_path / "dealtable.acl"
    written = run(
        "config", "acl", str(faro), str(baccarat), "--terminal", "tablet",
        "--display", "display-bar", "--display", "display-lobby", "--out", str(out),
    )  # fmt: skip
    assert written.returncode == 0, written.stderr
    assert written.stdout == ""
    text = out.read_text()
    lines = [line for line in text.splitlines() if line and not line.startswith("#")]
    assert lines[:4] == [
        "pattern read casino/floor-2/+/reply/%u",
        "pattern read dealtable/+/reply/%u",
        "user table-faro-1",
        "topic readwrite casino/floor-2/faro-1/#",
    ]
    assert lines[4:6] == ["user table-pb-1", "topic readwrite dealtable/pb-1/#"]
    display = lines.index("user display-lobby")
    assert lines[display - 9 : display + 9] == [
        "user display-bar",
        *(f"topic read casino/floor-2/+/{leaf}" for leaf in ("events", "state", "status", "reply")),
        *(f"topic read dealtable/+/{leaf}" for leaf in ("events", "state", "status", "reply")),
        "user display-lobby",
        *(f"topic read casino/floor-2/+/{leaf}" for leaf in ("events", "state", "status", "reply")),
        *(f"topic read dealtable/+/{leaf}" for leaf in ("events", "state", "status", "reply")),
    ]
    assert "user terminal" not in lines and "topic write casino/floor-2/+/cmd/bet" in lines
    accounts = "table-faro-1 table-pb-1 dealer tablet display-bar display-lobby"
    assert written.stderr == (
        f"dealtable config: {out} names the accounts {accounts}: each needs a password on the "
        f"broker (hw/mosquitto/make-passwords.sh FILE {accounts})\n"
    )
    unnamed = run("config", "acl", str(faro))
    assert unnamed.returncode == 0
    assert unnamed.stderr.splitlines()[0] == (
        f"dealtable config: warning: {faro}: [web] croupier_username tablet: the access list "
        "gives this account no commands: name it with --terminal or --dealer"
    )


def test_config_acl_refuses_what_no_access_list_can_hold_and_writes_nothing(
    tmp_path: Path,
) -> None:
    out = tmp_path / "dealtable.acl"
    out.write_text("kept\n")
    anonymous = table_toml(tmp_path / "anonymous.toml", 'host = "localhost"')
    no_broker = table_toml(tmp_path / "no-broker.toml", None)
    blank = table_toml(tmp_path / "blank.toml", 'username = "table-faro-1"\nprefix = " casino"')
    good = table_toml(tmp_path / "good.toml", 'username = "table-faro-1"')
    # Table floor-2 under casino/ owns casino/floor-2/#, where the tables under the prefix
    # casino/floor-2 publish: its account would deal their cards and read their replies.
    floor = table_toml(tmp_path / "floor.toml", 'username = "table-floor"\nprefix = "casino"')
    floor.write_text(floor.read_text().replace('id = "faro-1"', 'id = "floor-2"'))
    on_floor = table_toml(tmp_path / "on-floor.toml", 'username = "t-1"\nprefix = "casino/floor-2"')
    # A second table logging in with the first's account: either could send the other's
    # events and commands.
    second = table_toml(tmp_path / "second.toml", 'username = "table-faro-1"')
    second.write_text(second.read_text().replace('id = "faro-1"', 'id = "faro-2"'))
    refusals: list[tuple[list[Path | str], str]] = [
        (
            [good, second],
            "tables faro-1 and faro-2 both log in as table-faro-1: either could send the "
            "other's events and commands and read its replies; give each table an account "
            "of its own",
        ),
        (
            [on_floor, floor],
            "table faro-1's topics casino/floor-2/faro-1/... lie among table floor-2's "
            "casino/floor-2/...: its account could send that table's events and commands and "
            "read its replies; give one of them another [mqtt] prefix or [table] id",
        ),
        (
            [anonymous, no_broker],
            f"{anonymous}: [mqtt] username: none: the access list gives the table's account "
            "its topics; name the account the table logs in with\n"
            f"dealtable config: {no_broker}: no [mqtt]: the table uses no broker",
        ),
        (
            [blank],
            f"{blank}: [mqtt] prefix: ' casino' begins with a blank, which Mosquitto drops from "
            "the access list's line",
        ),
        (
            [good, good],
            "table faro-1 is named twice under dealtable/: two tables with one id would "
            "publish on each other's topics",
        ),
        (
            [good, "--display", "dealer"],
            "the account dealer is given as a dealer's and as a display's: give each part an "
            "account of its own",
        ),
        (
            [good, "--terminal", "t-1", "--terminal", "t-1"],
            "the account t-1 is given twice as a terminal's",
        ),
    ]
    said = dealtable_each(
        [["config", "acl", *map(str, args), "--out", str(out)] for args, _ in refusals]
    )
    for (_, refusal), refused in zip(refusals, said, strict=True):
        assert (refused.returncode, refused.stderr) == (2, f"dealtable config: {refusal}\n")
    assert out.read_text() == "kept\n"
    assert sorted(path.name for path in tmp_path.iterdir() if path.name.startswith(".")) == []


def test_config_acl_refuses_an_account_mosquitto_cannot_serve_and_writes_nothing(
    tmp_path: Path,
) -> None:
    """Mosquitto takes an account with + or # (MQTT's wildcards) in a `user` line, but its
    own reply topic would be a wildcard, on which nothing is published, and Mosquitto refuses
    it every pattern line; a ':' ends the account's name in the password file, and MQTT
    carries no name longer than 65535 bytes. None of them is written into a list, nor named
    as an account to make."""
    out = tmp_path / "dealtable.acl"
    out.write_text("kept\n")
    good = table_toml(tmp_path / "good.toml", 'username = "table-faro-1"')
    colon = table_toml(tmp_path / "colon.toml", 'username = "table:faro-1"')
    long = "t" * 65536
    refusals: list[tuple[list[Path | str], str]] = [
        (
            [good, "--terminal", "t+1"],
            "a terminal's account: 't+1' holds + or #, MQTT's wildcards: no topic can "
            "name the account's own replies",
        ),
        (
            [good, "--display", "#lobby"],
            "a display's account: '#lobby' holds + or #, MQTT's wildcards: no topic can "
            "name the account's own replies",
        ),
        (
            [colon],
            f"{colon}: [mqtt] username: 'table:faro-1' holds ':', which ends an account's name "
            "in the password file",
        ),
        (
            [good, "--dealer", long],
            "a dealer's account: an account of 65536 bytes: MQTT carries 65535",
        ),
    ]
    said = dealtable_each(
        [["config", "acl", *map(str, args), "--out", str(out)] for args, _ in refusals]
    )
    for (_, refusal), refused in zip(refusals, said, strict=True):
        assert (refused.returncode, refused.stderr) == (2, f"dealtable config: {refusal}\n")
    assert out.read_text() == "kept\n"


def test_config_acl_names_the_accounts_to_make_as_the_shell_takes_them(tmp_path: Path) -> None:
    """The command it gives for make-passwords.sh, pasted into a shell, makes every account
    the list names, each whole: one with a blank or a quote is not split into others."""
    config = table_toml(tmp_path / "table.toml", 'username = "table faro 1"')
    written = run(
        "config", "acl", str(config), "--display", "display bar", "--display", "o'brien's",
        "--out", str(tmp_path / "dealtable.acl"),
    )  # fmt: skip
    assert written.returncode == 0, written.stderr
    command = re.search(r"\((hw/mosquitto/make-passwords\.sh FILE .*)\)$", written.stderr)
    assert command is not None, written.stderr
    passwords = tmp_path / "passwd"
    made = subprocess.run(
        ["/bin/bash", "-c", command[1].replace("FILE", str(passwords), 1)],
        cwd=HW_MOSQUITTO.parent.parent,
        input="".join(f"secret-{n}\n" for n in range(5)),
        capture_output=True,
        text=True,
        check=False,
    )
    assert made.returncode == 0, made.stderr
    accounts = [line.rsplit(":", 1)[0] for line in passwords.read_text().splitlines()]
    assert accounts == [
        "table faro 1", "dealer", "terminal", "display bar", "o'brien's",
    ]  # fmt: skip


def test_config_acl_reads_a_table_of_another_machine_whose_files_are_not_here(
    tmp_path: Path,
) -> None:
    """Several tables on one broker: the list is written on the broker's machine from every
    table's config, and a table on another Pi keeps its journal, password, certificates and
    devices there. The list needs only its id, prefix and account; what is not here is not
    looked for. A config missing, and one naming no account, are each named."""
    elsewhere = tmp_path / "pi-2"  # never made: the other Pi's folders
    remote = table_toml(
        tmp_path / "pi-2.toml",
        f'host = "table-1.local"\nport = 8883\nusername = "table-faro-2"\nprefix = "casino"\n'
        f'password_file = "{elsewhere}/mqtt-password"\n'
        f'tls = {{ ca_file = "{elsewhere}/ca.crt" }}',
        f'\n[web]\ncroupier_username = "terminal"\ntls = {{ cert_file = "{elsewhere}/page.crt" }}\n'
        f'\n[hardware]\nboard = "{elsewhere}/board.toml"\n',
    )
    remote.write_text(
        remote.read_text()
        .replace('id = "faro-1"', 'id = "faro-2"')
        .replace(str(tmp_path / "j.sqlite"), f"{elsewhere}/faro-2.sqlite")
        .replace(
            'kind = "console"', f'kind = "barcode-camera"\ncamera = "video:{elsewhere}/shoe.mp4"'
        )
    )
    here = table_toml(tmp_path / "table.toml", 'username = "table-faro-1"')
    written = run("config", "acl", str(here), str(remote))
    assert written.returncode == 0, written.stderr
    lines = written.stdout.splitlines()
    assert "user table-faro-2" in lines and "topic readwrite casino/faro-2/#" in lines
    assert "topic readwrite dealtable/faro-1/#" in lines
    missing = tmp_path / "pi-3.toml"
    anonymous = table_toml(tmp_path / "anonymous.toml", 'host = "localhost"')
    refused = run("config", "acl", str(missing), str(anonymous))
    assert (refused.returncode, refused.stdout) == (2, "")
    assert refused.stderr == (
        f"dealtable config: {missing}: cannot read: No such file or directory\n"
        f"dealtable config: {anonymous}: [mqtt] username: none: the access list gives the "
        "table's account its topics; name the account the table logs in with\n"
    )


def test_config_acl_written_again_keeps_the_lists_owner_and_permissions(tmp_path: Path) -> None:
    """The broker reads its access list as its own user, after it has left root: the operator
    gives the list to it, and writes it again as tables and devices change. The list written
    again keeps that owner and those permissions; left to the writer's (root, and a umask of
    077), the broker could not read it, and Mosquitto reloads an access list it cannot read
    as none at all, every account allowed every topic."""
    config = table_toml(tmp_path / "table.toml", 'username = "table-faro-1"')
    out = tmp_path / "dealtable.acl"
    out.write_text("# the list before\n")
    out.chmod(0o640)
    owner = (1, 1) if os.geteuid() == 0 else (os.geteuid(), os.getegid())  # 1: daemon, not root
    os.chown(out, *owner)
    written = subprocess.run(
        ["/bin/sh", "-c", 'umask 077 && exec "$@"', "sh", sys.executable, "-m",
         "table.service.cli", "config", "acl", str(config), "--out", str(out)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert written.returncode == 0, written.stderr
    assert out.read_text() == (HW_MOSQUITTO / "acl").read_text()
    kept = out.stat()
    assert (oct(stat.S_IMODE(kept.st_mode)), kept.st_uid, kept.st_gid) == (oct(0o640), *owner)


def test_config_acl_warns_of_a_croupiers_page_offering_a_displays_account(
    tmp_path: Path,
) -> None:
    """A display's account reads only: the croupier's page logged in with it is refused every
    bet, so the list that names it a display is warned of as one naming it nowhere."""
    config = table_toml(
        tmp_path / "table.toml",
        'username = "table-faro-1"',
        '\n[web]\ncroupier_username = "display"\n',
    )
    written = run("config", "acl", str(config))
    assert written.returncode == 0, written.stderr
    assert written.stderr.splitlines()[0] == (
        f"dealtable config: warning: {config}: [web] croupier_username display: the access "
        "list gives this account no commands: name it with --terminal or --dealer"
    )


def test_config_acl_will_not_write_the_list_over_a_config_it_reads(tmp_path: Path) -> None:
    """`--out` naming one of the configs (a slip of the shell's history) would replace the
    table's config with the list: refused, the config as it was."""
    config = table_toml(tmp_path / "table.toml", 'username = "table-faro-1"')
    before = config.read_text()
    (tmp_path / "current.toml").symlink_to(config)
    for out in (config, tmp_path / "current.toml"):
        refused = run("config", "acl", str(config), "--out", str(out))
        assert (refused.returncode, refused.stdout) == (2, "")
        assert refused.stderr == (
            f"dealtable config: cannot write {out}: it is the config {config}, which the list "
            "is written from; write the list to its own file\n"
        )
        assert config.read_text() == before


def test_a_record_saved_with_a_byte_order_mark_and_crlf_lines_replays_as_written(
    tmp_path: Path,
) -> None:
    """A Windows editor begins a UTF-8 file with a byte order mark and ends lines CR LF."""
    record = tmp_path / "notepad.deal"
    record.write_bytes("\ufeffgame faro\r\nbank 100\r\npunter anna 10\r\n".encode())
    result = run("replay", str(record), "--json")
    assert result.returncode == 0, result.stderr
    types = [json.loads(line)["type"] for line in result.stdout.splitlines()]
    assert types == ["rules_chosen", "bank_funded", "punter_seated"]


def test_more_chips_than_the_table_counts_are_refused_without_a_traceback() -> None:
    most = "9007199254740991"  # 2**53 - 1: the most a browser's JSON reads exactly
    lines = [f"bank {most}", "bank 1", f"punter anna {int(most) + 1}"]
    lines += [f"bank {'9' * 4300}", f"bank {'9' * 5000}"]
    result = run("replay", "-", "--json", stdin="\n".join(lines) + "\n")
    assert "Traceback" not in result.stderr
    assert result.returncode == 1
    refusals = result.stderr.splitlines()
    assert len(refusals) == 4, refusals
    assert refusals[0].startswith("-:2: refused: bank 1: the bank would hold 9007199254740992")
    assert all("at most 9007199254740991 chips" in refusal for refusal in refusals)
    assert all(len(refusal) < 300 for refusal in refusals)
    bank = [json.loads(line) for line in result.stdout.splitlines()][-1]
    assert (bank["type"], bank["bankroll"]) == ("bank_funded", int(most))


def test_a_bank_game_demo_stops_when_no_one_is_left_to_play_against_the_bank() -> None:
    """Macao, three seats: once one player has every chip, no bank can be faded and none
    held against it; the demo says so and stops, rather than pass the bank round forever."""
    result = run("demo", "--game", "macao", "--seed", "6", "--punters", "3")
    assert result.returncode == 0, result.stderr
    words = " ".join(result.stdout.split())
    assert "Stopped: only cy has chips left to play" in words
    assert "chips on the table 1500" in words
