"""Bankroll curves of a simulation as a PNG, SVG or PDF (as the file's name ends), drawn off
screen (matplotlib's Agg canvas)."""

from __future__ import annotations

from pathlib import Path

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from analysis.faro_simulation import MAX_POINTS, SimulationResult
from table.errors import TableError

PLOT_FORMATS = ("png", "svg", "pdf")


def plot_format(path: str | Path) -> str:
    """The picture format a file's name asks for; refuses any other name, so that a file never
    holds another format than its name says."""
    target = Path(path)
    suffix = target.suffix.lower().removeprefix(".")
    if suffix not in PLOT_FORMATS:
        raise TableError(
            f"cannot write {target}: the bankroll curves are a picture: name it .png, .svg or .pdf"
        )
    return suffix


def plot_bankrolls(result: SimulationResult, path: str | Path) -> Path:
    """Each strategy's running result over the deals, one line each, with its edge."""
    target = Path(path)
    picture = plot_format(target)
    figure = Figure(figsize=(9, 5), dpi=100)
    FigureCanvasAgg(figure)
    axes = figure.add_subplot()
    for name, strategy in result.strategies.items():
        deal_numbers, bankroll = strategy.bankroll(MAX_POINTS)
        if deal_numbers.size == 0:
            continue
        edge = strategy.edge
        label = name if edge is None else f"{name} (bank's edge {edge * 100:.2f}%)"
        axes.plot(deal_numbers, bankroll, label=label, linewidth=1.2)
    axes.axhline(0, color="grey", linewidth=0.8)
    axes.set_xlabel("deals")
    axes.set_ylabel("punter's result (units)")
    axes.set_title(
        f"Faro, {result.title}: {result.deals:,} deals, {result.splits_per_deal:.3f} splits a deal"
    )
    axes.legend(loc="lower left")
    figure.tight_layout()
    figure.savefig(target, format=picture)
    return target
