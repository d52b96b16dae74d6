"""The command line as a user runs it: a real process, real files, real output."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

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


def test_replay_json_prints_every_event_one_object_a_line() -> None:
    result = run("replay", str(RECORDS / "001_example.deal"), "--json")
    assert result.returncode == 0, result.stderr
    events = [json.loads(line) for line in result.stdout.splitlines()]
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    settled = [
        (e["punter"], e["spot"], e["outcome"], e["net"])
        for e in events
        if e["type"] == "bet_settled"
    ]
    assert settled == [("dan", "9", "win", 4), ("anna", "K", "win", 2)]
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
