"""Bankroll curves of a simulation as a PNG, drawn off screen (matplotlib's Agg canvas)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from analysis.faro_simulation import SimulationResult

MAX_POINTS = 2000


def sample_points(length: int, points: int = MAX_POINTS) -> np.ndarray:
    """Indices of at most ``points`` evenly spread deals, always the last one."""
    if length <= points:
        return np.arange(length)
    return np.unique(np.linspace(0, length - 1, points).round().astype(np.int64))


def plot_bankrolls(result: SimulationResult, path: str | Path) -> Path:
    """Each strategy's running result over the deals, one line each, with its edge."""
    figure = Figure(figsize=(9, 5), dpi=100)
    FigureCanvasAgg(figure)
    axes = figure.add_subplot()
    for name, strategy in result.strategies.items():
        curve = strategy.bankroll
        if curve.size == 0:
            continue
        index = sample_points(curve.size)
        edge = strategy.edge
        label = name if edge is None else f"{name} (bank's edge {edge * 100:.2f}%)"
        axes.plot(index + 1, curve[index], label=label, linewidth=1.2)
    axes.axhline(0, color="grey", linewidth=0.8)
    axes.set_xlabel("deals")
    axes.set_ylabel("punter's result (units)")
    axes.set_title(
        f"Faro, {result.rules} rules: {result.deals:,} deals, "
        f"{result.splits_per_deal:.3f} splits a deal"
    )
    axes.legend(loc="lower left")
    figure.tight_layout()
    target = Path(path)
    figure.savefig(target, format="png")
    return target
