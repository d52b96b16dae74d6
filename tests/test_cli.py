"""The command line as a user runs it: a real process, real files, real output."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

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
    made = run("barcodes", "--decks", "1", "--out", str(sheet))
    assert made.returncode == 0, made.stderr
    assert sheet.stat().st_size > 10_000
    for command in ("teach", "recognize", "odds", "simulate", "web", "exhibit", "snapshot"):
        assert run(command, "--help").returncode == 0
