"""A picture of the table at one moment: the green layout with its chips, the casekeep
abacus and the last turn, drawn with matplotlib into a PNG (``dealtable snapshot``)."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # no screen on a Pi service, nor in the tests

import matplotlib.pyplot as plt
from matplotlib.axes import Axes
from matplotlib.patches import Circle, FancyBboxPatch, RegularPolygon

from display.frames import BeadState, casekeep_frame, layout_frame, punter_tags
from display.terminal import bankroll_entries, other_bet, status_heading
from table.cards import Rank
from table.faro.engine import FaroState
from table.faro.layout import BOTTOM_ROW, TOP_ROW
from table.faro.spots import Spot, SpotKind

FELT = "#0b5d2a"
CARD = "#fbf8ef"
INK = "#141414"
RED = "#c8102e"
GREEN = "#1fa84f"
GOLD = "#e8c14a"
CHIP_COLOURS = ["#1f5fbf", "#b8262e", "#6b2fa0", "#c77a00", "#0f7f6f", "#444444"]
BEAD_COLOURS = {
    BeadState.IN_BOX: "#2b2b2b",
    BeadState.LOSER: RED,
    BeadState.WINNER: GREEN,
    BeadState.SODA: "#9a9a9a",
    BeadState.HOC: "#9a9a9a",
}


CHIPS_ON_A_CARD = 4


def spade_positions() -> dict[Rank, tuple[float, float]]:
    positions = {rank: (1.0 + 1.6 * column, 5.4) for column, rank in enumerate(TOP_ROW)}
    positions.update({rank: (1.0 + 1.6 * column, 2.9) for column, rank in enumerate(BOTTOM_ROW)})
    positions[Rank.SEVEN] = (1.0 + 1.6 * 6, 4.15)
    return positions


CARD_HALF_WIDTH, CARD_HALF_HEIGHT = 0.6, 0.95


def group_place(spot: Spot, positions: dict[Rank, tuple[float, float]]) -> tuple[float, float]:
    """Where a bet on two to four ranks (or one to win and one to lose) is drawn: the
    layout's place for it in this picture's coordinates (y upward), off the card's edge
    where it says so."""
    place = spot.place
    ace_x, top_y = positions[Rank.ACE]
    column_step = positions[Rank.TWO][0] - ace_x
    row_step = positions[Rank.KING][1] - top_y
    x = ace_x + column_step * place.column
    y = top_y + row_step * place.row - place.outward * (CARD_HALF_HEIGHT + 0.3)
    return round(x, 3), round(y, 3)


def _draw_chip(
    axes: Axes,
    centre: tuple[float, float],
    label: str,
    colour: str,
    coppered: bool,
    scale: float = 1.0,
) -> None:
    shape = (
        RegularPolygon(centre, 6, radius=0.3 * scale, fc=colour, ec="#b8632f", lw=3 * scale)
        if coppered
        else Circle(centre, 0.27 * scale, fc=colour, ec="white", lw=2 * scale, ls="--")
    )
    axes.add_patch(shape)
    axes.text(
        *centre,
        label,
        ha="center",
        va="center",
        fontsize=10 * scale,
        fontweight="bold",
        color="white",
    )


def draw_snapshot(state: FaroState, path: str | Path, title: str = "") -> Path:
    """Draw the table as it is in ``state`` into a PNG at ``path``."""
    figure = plt.figure(figsize=(16, 9), dpi=100, facecolor="#06401c")
    axes = figure.add_axes((0, 0, 1, 1))
    axes.set_xlim(0, 16)
    axes.set_ylim(0, 9)
    axes.axis("off")
    axes.add_patch(
        FancyBboxPatch((0.3, 0.6), 11.0, 7.6, boxstyle="round,pad=0.1", fc=FELT, ec="#5a3a1a", lw=8)
    )
    layout = layout_frame(state)
    positions = spade_positions()
    # Tags as the terminal's (two punters sharing an initial get more letters), colours by
    # seat so that a punter keeps hers from one snapshot to the next.
    tags = {name: tag.capitalize() for name, tag in punter_tags(state.seats).items()}
    colours = {
        name: CHIP_COLOURS[seat % len(CHIP_COLOURS)] for seat, name in enumerate(state.seats)
    }
    chips: dict[Rank, list[tuple[str, str, bool]]] = {}
    groups: list[tuple[Spot, str, str, bool]] = []
    # Bets on no place of the layout drawn here (high card, odd, even, colours, calls): in words.
    others: list[str] = []
    for bet in sorted(state.bets.values(), key=lambda bet: bet.bet_id):
        # 003's betting marks are credit, not chips: labelled "m", as on the terminal.
        tag = tags.get(bet.punter, bet.punter[:1].upper())
        label = f"{tag}{bet.stake}{'m' if bet.mark else ''}"
        if bet.spot.kind is SpotKind.RANK:
            chips.setdefault(bet.spot.ranks[0], []).append((bet.punter, label, bet.coppered))
        elif bet.spot.kind is SpotKind.GROUP:
            groups.append((bet.spot, bet.punter, label, bet.coppered))
        elif bet.spot.kind is SpotKind.WIN_LOSE:
            # 003: a copper lies on the losing card under the chips.
            groups.append((bet.spot, bet.punter, label, True))
        else:
            others.append(other_bet(bet))
    for lamp in layout.lamps:
        if not lamp.in_deck:
            continue
        x, y = positions[lamp.rank]
        edge = {"loser": RED, "winner": GREEN, "split": "#a020a0"}.get(
            lamp.last_turn.value if lamp.last_turn else "", "none"
        )
        axes.add_patch(
            FancyBboxPatch(
                (x - CARD_HALF_WIDTH, y - CARD_HALF_HEIGHT),
                2 * CARD_HALF_WIDTH,
                2 * CARD_HALF_HEIGHT,
                boxstyle="round,pad=0.05",
                fc=CARD,
                ec=edge,
                lw=5,
                alpha=0.4 if lamp.dead else 1.0,
            )
        )
        axes.text(
            x,
            y + 0.45,
            lamp.rank.label,
            ha="center",
            va="center",
            fontsize=26,
            fontweight="bold",
            color=INK,
            alpha=0.4 if lamp.dead else 1.0,
        )
        axes.text(x, y - 0.05, "♠", ha="center", va="center", fontsize=22, color=INK)
        on_card = chips.get(lamp.rank, [])
        # Four chips fit under a card; where more lie there, the fourth place counts the rest.
        shown = on_card if len(on_card) <= CHIPS_ON_A_CARD else on_card[: CHIPS_ON_A_CARD - 1]
        places = [
            (x - 0.3 + 0.6 * (i % 2), y - 0.55 - 0.55 * (i // 2)) for i in range(CHIPS_ON_A_CARD)
        ]
        for centre, (punter, label, coppered) in zip(places, shown, strict=False):
            colour = colours.get(punter, CHIP_COLOURS[-1])
            _draw_chip(axes, centre, label, colour, coppered)
        if len(shown) < len(on_card):
            _draw_chip(axes, places[-1], f"+{len(on_card) - len(shown)}", "#444444", False)
    stacked: dict[tuple[float, float], int] = {}
    for spot, punter, label, coppered in groups:
        colour = colours.get(punter, CHIP_COLOURS[-1])
        place = group_place(spot, positions)
        step = stacked[place] = stacked.get(place, 0) + 1
        outward = 1 if place[1] > positions[Rank.SEVEN][1] else -1
        centre = (place[0], place[1] + outward * 0.6 * (step - 1))
        _draw_chip(axes, centre, label, colour, coppered)
    if others:
        # Under the layout, on the dark cloth, as the terminal lists them.
        axes.text(0.4, 0.2, "other bets: " + "; ".join(others), fontsize=12, color="white")
    # The abacus.
    axes.text(12.0, 8.3, "CASEKEEP", fontsize=16, fontweight="bold", color=GOLD)
    for column, spindle in enumerate(casekeep_frame(state).spindles):
        x = 12.1 + 0.29 * column
        axes.text(x, 7.85, spindle.rank.label, ha="center", fontsize=10, color="white")
        for row, bead in enumerate(spindle.beads):
            axes.add_patch(
                Circle(
                    (x, 7.45 - 0.33 * row),
                    0.12,
                    fc=BEAD_COLOURS[bead],
                    ec=GOLD if spindle.finished else "#777777",
                    lw=1.5,
                )
            )
    # The last turn and the bankrolls.
    axes.text(12.0, 5.7, "LAST TURN", fontsize=16, fontweight="bold", color=GOLD)
    if state.last_turn:
        for offset, card in enumerate(state.last_turn):
            axes.add_patch(
                FancyBboxPatch(
                    (12.1 + 1.4 * offset, 4.3), 1.1, 1.1, boxstyle="round,pad=0.05", fc=CARD
                )
            )
            axes.text(
                12.65 + 1.4 * offset,
                4.85,
                card.pretty,
                ha="center",
                va="center",
                fontsize=22,
                fontweight="bold",
                color=RED if card.colour.value == "red" else INK,
            )
    # Up to eleven lines (the bank and ten seats, 001's and 003's most) in two columns.
    axes.text(12.0, 3.7, "BANKROLLS", fontsize=16, fontweight="bold", color=GOLD)
    # Each punter's line begins with a chip of her colour and tag: the key to the layout's chips.
    holders = [None, *(name for name in state.seats if name != state.banker)]
    for index, (line, holder) in enumerate(zip(bankroll_entries(state), holders, strict=True)):
        x, y = 12.1 + 2.0 * (index % 2), 3.25 - 0.38 * (index // 2)
        if holder is not None:
            _draw_chip(axes, (x + 0.12, y + 0.08), tags[holder], colours[holder], False, 0.6)
            x += 0.38
        axes.text(x, y, line, fontsize=12, color="white")
    heading = title or status_heading(state)
    axes.text(0.4, 8.55, heading, fontsize=16, color="white")
    path = Path(path)
    figure.savefig(path, facecolor=figure.get_facecolor())
    plt.close(figure)
    return path
