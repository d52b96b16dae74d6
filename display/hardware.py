"""Frames onto the table's lights: the LED casekeep abacus on GPIO and the layout lamps
behind the microcontroller."""

from __future__ import annotations

from typing import Protocol

from display.frames import BeadState, CasekeepFrame, LastTurn, LayoutFrame, RankLamp
from hw.casekeep import Bead, CasekeepAbacus
from table.cards import Rank

RGB = tuple[int, int, int]

_ABACUS_BEAD = {
    BeadState.IN_BOX: Bead.IN_BOX,
    BeadState.LOSER: Bead.LOST,
    BeadState.WINNER: Bead.WON,
    BeadState.SODA: Bead.NEITHER,
    BeadState.HOC: Bead.NEITHER,
}


class AbacusDriver:
    """Shows a casekeep frame on the LED abacus: a lit bead is a card out of the box, and in
    two-LED mode red is a losing card, green a winning one, both the soda or the hoc."""

    def __init__(self, abacus: CasekeepAbacus) -> None:
        self.abacus = abacus

    def starting(self) -> None:
        """The table is not known yet (its journal is being read): the "starting" pattern,
        never the registers' power-up state nor a dark casekeep that looks like a new deck."""
        self.abacus.show_starting()

    def show(self, frame: CasekeepFrame) -> None:
        # A deck short of some ranks (monte bank's 40 cards) has no spindle for them; their
        # beads go back in the box, or they would keep what the deck before left lit.
        beads: dict[Rank, list[Bead]] = {rank: [] for rank in Rank}
        for spindle in frame.spindles:
            beads[spindle.rank] = [_ABACUS_BEAD[bead] for bead in spindle.beads]
        self.abacus.show(beads)


# Lamp colours; kept dim for lamps that only say "live", bright for what just happened.
OFF: RGB = (0, 0, 0)
LIVE: RGB = (6, 6, 6)
CASES: RGB = (40, 24, 0)
STRAIGHT: RGB = (0, 70, 0)
COPPERED: RGB = (90, 35, 0)
GROUPED: RGB = (0, 20, 80)
LOST: RGB = (160, 0, 0)
WON: RGB = (0, 160, 0)
SPLIT: RGB = (140, 0, 140)
CALL: RGB = (0, 90, 90)
LINK_UP: RGB = (0, 30, 0)
LOCKED: RGB = (90, 60, 0)
ALARM: RGB = (200, 0, 0)
READER_LOST: RGB = (200, 90, 0)  # no alarm waits, but a card reader is lost
STATUS_LAMPS = 3  # after the 13 rank lamps: link, bets locked, alarm (hw/WIRING.md)


def lamp_colour(lamp: RankLamp) -> RGB:
    if not lamp.in_deck:
        return OFF
    if lamp.last_turn is LastTurn.SPLIT:
        return SPLIT
    if lamp.last_turn is LastTurn.LOSER:
        return LOST
    if lamp.last_turn is LastTurn.WINNER:
        return WON
    if lamp.dead:
        return OFF
    if lamp.call_candidate:
        return CALL
    if lamp.coppered and not lamp.straight:
        return COPPERED
    if lamp.straight:
        return STRAIGHT
    if lamp.in_groups:
        return GROUPED
    return CASES if lamp.cases else LIVE


def layout_pixels(frame: LayoutFrame) -> list[RGB]:
    """The 16 pixels under the layout: ace to king, then the link, lock and alarm lamps (red
    for an alarm or a journal that cannot write, amber for a card reader lost)."""
    pixels = [lamp_colour(lamp) for lamp in frame.lamps]
    pixels.append(LINK_UP)
    pixels.append(LOCKED if frame.bets_locked else OFF)
    if frame.alarm or frame.journal_trouble:
        pixels.append(ALARM)
    else:
        pixels.append(READER_LOST if frame.readers_lost else OFF)
    return pixels


class LayoutDisplay(Protocol):
    def show(self, pixels: list[RGB]) -> None: ...


class LayoutDriver:
    """Shows a layout frame on the lamps; the serial link re-sends it after a reconnect."""

    def __init__(self, display: LayoutDisplay) -> None:
        self.display = display
        self.last: list[RGB] | None = None

    def show(self, frame: LayoutFrame) -> None:
        self._show(layout_pixels(frame))

    def go_dark(self) -> None:
        """Every lamp off, the link lamp too: the service is going."""
        self._show([OFF] * (len(Rank) + STATUS_LAMPS))

    def _show(self, pixels: list[RGB]) -> None:
        if pixels != self.last:
            self.display.show(pixels)
            self.last = pixels
