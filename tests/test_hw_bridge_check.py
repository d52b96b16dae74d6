"""The command-line link check, run against the simulated board in real time."""

from __future__ import annotations

import pytest

from hw.bridge_check import main, walking_lamp


def test_the_check_sees_the_simulated_board_come_up(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--simulate", "--seconds", "0.6"]) == 0
    out = capsys.readouterr().out
    assert "LinkUp(" in out
    assert "state: up" in out


def test_the_check_fails_without_a_board(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["hwgrep://VID:PID=FFFF:FFFE", "--seconds", "0.2"]) == 1
    assert "no ports found" in capsys.readouterr().out


def test_the_walking_lamp_lights_one_rank_at_a_time() -> None:
    lit = [index for index, pixel in enumerate(walking_lamp(14)) if pixel != (0, 0, 0)]
    assert lit == [1, 13]
