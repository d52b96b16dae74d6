"""The bankroll plot: a PNG, SVG or PDF with a line per strategy."""

from __future__ import annotations

from pathlib import Path

import pytest

from analysis.faro_simulation import sample_points, simulate_faro
from analysis.plots import plot_bankrolls, plot_format
from table.errors import TableError
from table.faro.rules import find_rules

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def test_the_plot_is_a_png_file(tmp_path: Path) -> None:
    result = simulate_faro(find_rules("classic"), 3000, seed=2)
    written = plot_bankrolls(result, tmp_path / "curves.png")
    data = written.read_bytes()
    assert data.startswith(PNG_SIGNATURE)
    assert len(data) > 10_000  # axes, four lines and a legend, not an empty canvas


@pytest.mark.parametrize(
    ("name", "start"),
    [("curves.svg", b"<?xml"), ("curves.pdf", b"%PDF"), ("CURVES.PNG", PNG_SIGNATURE)],
)
def test_the_file_name_says_the_format(tmp_path: Path, name: str, start: bytes) -> None:
    result = simulate_faro(find_rules("classic"), 500, seed=2)
    data = plot_bankrolls(result, tmp_path / name).read_bytes()
    assert data.startswith(start)
    if name.endswith(".svg"):
        assert b"<svg" in data


@pytest.mark.parametrize("name", ["curves.jpg", "curves", "curves.svg.txt"])
def test_a_name_that_is_no_picture_is_refused(tmp_path: Path, name: str) -> None:
    with pytest.raises(TableError, match=r"name it \.png, \.svg or \.pdf"):
        plot_format(tmp_path / name)
    result = simulate_faro(find_rules("classic"), 500, seed=2)
    with pytest.raises(TableError, match="cannot write"):
        plot_bankrolls(result, tmp_path / name)
    assert not (tmp_path / name).exists()


def test_long_curves_are_sampled_down_keeping_both_ends() -> None:
    index = sample_points(1_000_000, 500)
    assert len(index) == 500
    assert index[0] == 0 and index[-1] == 999_999
    assert list(sample_points(5, 500)) == [0, 1, 2, 3, 4]
