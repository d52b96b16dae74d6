"""The casekeep abacus: one LED (or two) per card, on a chain of 74HC595 shift registers.

A Faro casekeep shows, for each of the 13 ranks, which of its four cards have left
the box. Here every card is a bead: in ``one-led`` mode a lit LED is a played card;
in ``two-leds`` mode each bead has a red LED for a losing card, a green one for a
winning card, and both for a card that neither won nor lost (the soda, the hoc).

The chain hangs on hardware SPI (gpiozero's ``SPIDevice``): SCLK clocks the bits in,
MOSI carries them, and CE0 is every register's latch, so the LEDs change at once
when a transfer ends. Output ``n`` is pin ``Q(A + n % 8)`` of register ``n // 8``,
counted from the Pi; bead ``k`` (0-3) of rank ``r`` (ace = 1) is card number
``(r - 1) * 4 + k``, and in ``two-leds`` mode its LEDs are outputs ``2n`` (losing)
and ``2n + 1`` (winning).
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from typing import Any

from gpiozero import SPIDevice  # type: ignore[import-untyped]

from hw.board import CasekeepMode, CasekeepWiring
from hw.errors import CasekeepError, PinRefusedError
from table.cards import Rank

BEADS_PER_RANK = 4
CARDS = 13 * BEADS_PER_RANK
# Shown while the service reads its journal, before it knows the table: every bead of the
# ace, 3, 5, 7, 9, jack and king. In two-leds mode each of them lights both LEDs, which no
# deal shows (only the soda and the hoc do); in one-led mode a deal would have to have dealt
# every card of these seven ranks and not one of the other six.
STARTING_RANKS = frozenset(rank for rank in Rank if rank.value % 2 == 1)
# The latch (RCLK) of every register, by the board's spi_device: CE0 or CE1 of SPI0.
SPI0_LATCH_PINS = (8, 7)


class ShiftRegisterChain(SPIDevice):  # type: ignore[misc]
    """74HC595s in a chain on SPI: one transfer shifts every bit in, CE0 rising latches them."""

    def latch(self, data: Sequence[int]) -> None:
        self._spi.transfer(list(data))


class Bead(enum.Enum):
    IN_BOX = "in_box"
    LOST = "lost"
    WON = "won"
    NEITHER = "neither"  # soda or hoc: out of the box, settled nothing


class CasekeepAbacus:
    """The LEDs of the casekeep, driven through an SPI device built on ``pin_factory``."""

    def __init__(self, wiring: CasekeepWiring, *, pin_factory: Any) -> None:
        needed = CARDS * wiring.mode.outputs_per_card
        if wiring.registers * 8 < needed:
            raise CasekeepError(
                f"{wiring.mode.value} needs {needed} outputs; "
                f"{wiring.registers} registers have {wiring.registers * 8}"
            )
        self.wiring = wiring
        self.mode = wiring.mode
        self._chain: ShiftRegisterChain | None = self._open_chain(wiring, pin_factory)
        self._beads: dict[Rank, list[Bead]] = {rank: [Bead.IN_BOX] * 4 for rank in Rank}
        self._lit: frozenset[int] = frozenset()
        self._write()

    @staticmethod
    def _open_chain(wiring: CasekeepWiring, pin_factory: Any) -> ShiftRegisterChain:
        """The chain on SPI0; a line the driver refuses is named with the bus's pins. lgpio
        refuses a line the kernel or another program holds with an error of its own ("GPIO
        busy"), which names no pin."""
        try:
            return ShiftRegisterChain(
                port=wiring.spi_port, device=wiring.spi_device, pin_factory=pin_factory
            )
        except Exception as error:
            latch = f"CE{wiring.spi_device} GPIO{SPI0_LATCH_PINS[wiring.spi_device]}"
            raise PinRefusedError(
                f"the shift register chain on SPI{wiring.spi_port} (SCLK GPIO11, MOSI GPIO10, "
                f"MISO GPIO9, latch {latch}): {error}"
            ) from error

    @property
    def beads(self) -> dict[Rank, tuple[Bead, ...]]:
        return {rank: tuple(beads) for rank, beads in self._beads.items()}

    @property
    def lit(self) -> frozenset[int]:
        """The outputs the driver last latched on."""
        return self._lit

    def show(self, beads: Mapping[Rank, Sequence[Bead]]) -> None:
        """Set the beads of the ranks given (at most four each); others keep theirs."""
        self._check_open()
        for rank, rank_beads in beads.items():
            if len(rank_beads) > BEADS_PER_RANK:
                raise CasekeepError(
                    f"rank {rank.label} has {BEADS_PER_RANK} beads, not {len(rank_beads)}"
                )
            padded = list(rank_beads) + [Bead.IN_BOX] * (BEADS_PER_RANK - len(rank_beads))
            self._beads[Rank(rank)] = padded
        self._write()

    def play(self, rank: Rank, outcome: Bead) -> None:
        """Move the next bead of ``rank`` out of the box."""
        self._check_open()
        beads = self._beads[rank]
        if outcome is Bead.IN_BOX:
            raise CasekeepError("a played card cannot go back into the box; use show()")
        try:
            index = beads.index(Bead.IN_BOX)
        except ValueError:
            raise CasekeepError(f"all four {rank.label}s are already out") from None
        beads[index] = outcome
        self._write()

    def show_starting(self) -> None:
        """The "starting" pattern (:data:`STARTING_RANKS`): the service is up and reads its
        journal; the beads of the table follow once it is read."""
        self.show(
            {
                rank: [Bead.NEITHER if rank in STARTING_RANKS else Bead.IN_BOX] * BEADS_PER_RANK
                for rank in Rank
            }
        )

    def clear(self) -> None:
        """A new deck: every bead back in the box."""
        self._check_open()
        self._beads = {rank: [Bead.IN_BOX] * 4 for rank in Rank}
        self._write()

    def outputs_for(self, rank: Rank, bead: int, state: Bead) -> frozenset[int]:
        """The outputs that light when bead ``bead`` of ``rank`` is in ``state``."""
        card = (rank.value - 1) * BEADS_PER_RANK + bead
        if state is Bead.IN_BOX:
            return frozenset()
        if self.mode is CasekeepMode.ONE_LED:
            return frozenset({card})
        losing, winning = 2 * card, 2 * card + 1
        return {
            Bead.LOST: frozenset({losing}),
            Bead.WON: frozenset({winning}),
            Bead.NEITHER: frozenset({losing, winning}),
        }[state]

    def close(self) -> None:
        """Turn every LED off and release the SPI pins; idempotent."""
        if self._chain is None:
            return
        try:
            self._beads = {rank: [Bead.IN_BOX] * 4 for rank in Rank}
            self._write()
        finally:
            self._chain.close()
            self._chain = None

    def __enter__(self) -> CasekeepAbacus:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _check_open(self) -> None:
        if self._chain is None:
            raise CasekeepError("the casekeep abacus is closed")

    def _write(self) -> None:
        lit: set[int] = set()
        for rank, beads in self._beads.items():
            for index, state in enumerate(beads):
                lit |= self.outputs_for(rank, index, state)
        registers = self.wiring.registers
        data = [0] * registers
        for output in lit:
            data[output // 8] |= 1 << (output % 8)
        if self._chain is None:
            raise CasekeepError("the casekeep abacus is closed")
        # The first byte out ends in the register farthest from the Pi.
        self._chain.latch(list(reversed(data)))
        self._lit = frozenset(lit)
