"""`dealtable snapshot`: a PNG of the table at a chosen moment."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import matplotlib.image
import pytest

from display.snapshot import (
    CARD_HALF_HEIGHT,
    CARD_HALF_WIDTH,
    draw_snapshot,
    group_place,
    spade_positions,
)
from table.cards import Rank
from table.faro.spots import parse_spot
from tests.conftest import deal, open_table
from tests.test_cli import run


def test_the_snapshot_shows_the_felt_the_chips_and_the_last_turn(tmp_path: Path) -> None:
    table = open_table()
    table.bet("dan", "9", 4)
    deal(table, "KD 9C")
    table.bet("anna", "K", 2, copper=True)
    path = draw_snapshot(table.state, tmp_path / "table.png")
    pixels = matplotlib.image.imread(path)
    assert pixels.shape[:2] == (900, 1600)
    felt = pixels[820, 600][:3]  # low on the layout, below the cards: bare felt
    assert felt[1] > 1.5 * felt[0] and felt[1] > 1.5 * felt[2]
    red = (pixels[..., 0] > 0.7) & (pixels[..., 1] < 0.2) & (pixels[..., 2] < 0.3)
    assert red.sum() > 500  # the losing king's red border and the red beads


def test_a_group_bet_is_drawn_where_its_cards_meet(tmp_path: Path) -> None:
    positions = spade_positions()

    def on_a_card(point: tuple[float, float]) -> list[Rank]:
        return [
            rank
            for rank, (x, y) in positions.items()
            if abs(point[0] - x) < CARD_HALF_WIDTH and abs(point[1] - y) < CARD_HALF_HEIGHT
        ]

    four, five = positions[Rank.FOUR], positions[Rank.FIVE]
    pair = group_place(parse_spot("4+5"), positions)
    assert four[0] < pair[0] < five[0] and pair[1] == four[1] and on_a_card(pair) == []
    row = group_place(parse_spot("8+9+10"), positions)
    nine = positions[Rank.NINE]
    assert row[0] == nine[0] and row[1] < nine[1] - CARD_HALF_HEIGHT and on_a_card(row) == []
    across = group_place(parse_spot("J>K"), positions)
    assert on_a_card(across) == []
    square = group_place(parse_spot("2+3+Q+J"), positions)
    assert on_a_card(square) == [] and positions[Rank.TWO][0] < square[0] < positions[Rank.THREE][0]
    table = open_table()
    table.bet("dan", "8+9+10", 4)
    assert draw_snapshot(table.state, tmp_path / "groups.png").exists()


def test_dealtable_snapshot_from_a_journal_and_from_a_seeded_deal(tmp_path: Path) -> None:
    journal = tmp_path / "j.sqlite"
    assert run("run", "--deals", "1", "--speed", "0", "--journal", str(journal)).returncode == 0
    drawn = run(
        "snapshot", "--journal", str(journal), "--seq", "40", "--out", str(tmp_path / "a.png")
    )
    assert drawn.returncode == 0, drawn.stderr
    assert matplotlib.image.imread(tmp_path / "a.png").shape[:2] == (900, 1600)
    seeded = run("snapshot", "--seed", "3", "--cards", "15", "--out", str(tmp_path / "b.png"))
    assert seeded.returncode == 0, seeded.stderr
    assert (tmp_path / "b.png").stat().st_size > 10_000


def drawn_texts(state: object, path: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every text the snapshot draws, read from its figure as it is saved."""
    from display import snapshot

    figures: list[Any] = []
    close = snapshot.plt.close
    monkeypatch.setattr(
        snapshot.plt, "close", lambda figure: (figures.append(figure), close(figure))
    )
    draw_snapshot(state, path)  # type: ignore[arg-type]
    return [text.get_text() for figure in figures for text in figure.axes[0].texts]


def test_the_snapshot_names_every_seat_and_who_holds_a_home_bank(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ten seats, the banker among them (001): the bank is named with its holder, as on the
    terminal, and each of the other nine punters is listed once."""
    names = ["anna", "ben", "carla", "dan", "eve", "finn", "gus", "hana", "ivo", "jo"]
    table = open_table("home", punters=dict.fromkeys(names, 100))
    banker = table.state.banker
    texts = drawn_texts(table.state, tmp_path / "home.png", monkeypatch)
    assert f"bank ({banker}) 100" in texts
    for name in names:
        assert sum(text == f"{name} 100" for text in texts) == (name != banker), name


def test_the_snapshot_shows_marks_as_marks_and_the_bets_off_the_ranks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """003's betting marks are labelled as the terminal labels them (``D2m``), and high card,
    odd and even and the calls, which lie on no rank, are listed as the terminal lists them."""
    table = open_table("casino-003")
    table.bet("dan", "5", 4)
    table.bet("dan", "9", 2, mark=True)
    table.bet("anna", "high", 3)
    texts = drawn_texts(table.state, tmp_path / "marks.png", monkeypatch)
    assert "D4" in texts and "D2m" in texts and "D2" not in texts
    assert "other bets: anna 3 on high" in texts


def test_more_bets_on_a_rank_than_its_card_holds_are_counted_not_dropped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Four chips fit under a card: a fifth and sixth bet there are shown as "+3" beside the
    first three, as the terminal ends a full cell with "…"; not left off unsaid."""
    names = ["anna", "ben", "carla", "dan", "eve", "finn"]
    table = open_table(punters=dict.fromkeys(names, 100))
    for name in names:
        table.bet(name, "9", 2)
    texts = drawn_texts(table.state, tmp_path / "full.png", monkeypatch)
    assert [text for text in texts if text in ("A2", "B2", "C2", "D2", "E2", "F2")] == [
        "A2",
        "B2",
        "C2",
    ]
    assert "+3" in texts


def test_the_snapshots_heading_says_where_the_deal_stands_as_the_terminal_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With the soda out and no turn dealt, the heading says so ("soda out, bets open"), not
    "turn 0"; mid-deal it says the turn and whether it is closed, in the terminal's words."""
    table = open_table()
    texts = drawn_texts(table.state, tmp_path / "soda.png", monkeypatch)
    assert any(
        text.startswith("Faro · classic · deal 1 · soda out, bets open · ") for text in texts
    )
    deal(table, "KD 9C")
    texts = drawn_texts(table.state, tmp_path / "turn.png", monkeypatch)
    assert any(
        text.startswith("Faro · classic · deal 1 · turn 1 closed · 49 in the box") for text in texts
    )


def test_punters_who_share_an_initial_are_told_apart_and_each_chip_colour_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Dan, seated first, and Dora both bet: their chips are labelled as the terminal tags
    them (``D4``, ``Do2``), not both ``D``; and beside each seat's bankroll a chip of that
    punter's colour with the same tag says whose chips are whose."""
    from display import snapshot

    table = open_table(punters={"dan": 100, "dora": 100, "anna": 100})
    table.bet("dora", "5", 2)
    table.bet("dan", "5", 4)
    chips: list[tuple[str, str]] = []
    draw_chip = snapshot._draw_chip
    monkeypatch.setattr(
        snapshot,
        "_draw_chip",
        lambda axes, centre, label, colour, coppered, *scale: (
            chips.append((label, colour)),
            draw_chip(axes, centre, label, colour, coppered, *scale),
        ),
    )
    texts = drawn_texts(table.state, tmp_path / "initials.png", monkeypatch)
    assert "D4" in texts and "Do2" in texts and "D2" not in texts
    colour_of = dict(chips)
    assert colour_of["D4"] == colour_of["D"] and colour_of["Do2"] == colour_of["Do"]
    assert len({colour_of["D"], colour_of["Do"], colour_of["A"]}) == 3
