"""The casekeep abacus, on gpiozero's mock pins with a shift-register chain that latches."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from wire_fixtures import mock_pins

from hw.board import CasekeepMode, CasekeepWiring
from hw.casekeep import Bead, CasekeepAbacus
from hw.errors import CasekeepError, HardwareError
from hw.simulated.shift_register import ShiftRegisterChain
from table.cards import Rank


@pytest.fixture
def one_led() -> Iterator[tuple[CasekeepAbacus, ShiftRegisterChain]]:
    with mock_pins() as factory:
        chain = ShiftRegisterChain(7, pin_factory=factory)
        with CasekeepAbacus(CasekeepWiring(), pin_factory=factory) as abacus:
            yield abacus, chain


@pytest.fixture
def two_leds() -> Iterator[tuple[CasekeepAbacus, ShiftRegisterChain]]:
    with mock_pins() as factory:
        chain = ShiftRegisterChain(13, pin_factory=factory)
        wiring = CasekeepWiring(registers=13, mode=CasekeepMode.TWO_LEDS)
        with CasekeepAbacus(wiring, pin_factory=factory) as abacus:
            yield abacus, chain


def test_a_new_abacus_is_dark(one_led: tuple[CasekeepAbacus, ShiftRegisterChain]) -> None:
    _abacus, chain = one_led
    assert chain.lit == set()
    assert chain.latches >= 1


def test_each_card_played_lights_its_own_bead(
    one_led: tuple[CasekeepAbacus, ShiftRegisterChain],
) -> None:
    abacus, chain = one_led
    abacus.play(Rank.ACE, Bead.WON)
    abacus.play(Rank.KING, Bead.LOST)
    abacus.play(Rank.KING, Bead.LOST)
    abacus.play(Rank.SEVEN, Bead.NEITHER)
    # ace: card 0; kings: cards 48, 49; seven: card 24.
    assert chain.lit == {0, 48, 49, 24}
    assert abacus.lit == chain.lit


def test_all_fifty_two_fit_on_seven_registers(
    one_led: tuple[CasekeepAbacus, ShiftRegisterChain],
) -> None:
    abacus, chain = one_led
    for rank in Rank:
        for _ in range(4):
            abacus.play(rank, Bead.WON)
    assert chain.lit == set(range(52))
    with pytest.raises(CasekeepError, match="all four Ks"):
        abacus.play(Rank.KING, Bead.WON)
    abacus.clear()
    assert chain.lit == set()


def test_two_leds_tell_a_losing_card_from_a_winning_one(
    two_leds: tuple[CasekeepAbacus, ShiftRegisterChain],
) -> None:
    abacus, chain = two_leds
    abacus.play(Rank.ACE, Bead.WON)  # card 0: winning LED is output 1
    abacus.play(Rank.KING, Bead.LOST)  # card 48: losing LED is output 96
    abacus.play(Rank.TWO, Bead.NEITHER)  # card 4: both, 8 and 9
    assert chain.lit == {1, 96, 8, 9}


def test_show_sets_whole_ranks(two_leds: tuple[CasekeepAbacus, ShiftRegisterChain]) -> None:
    abacus, chain = two_leds
    abacus.show({Rank.QUEEN: [Bead.LOST, Bead.WON]})
    queen = (Rank.QUEEN - 1) * 4
    assert chain.lit == {2 * queen, 2 * (queen + 1) + 1}
    assert abacus.beads[Rank.QUEEN] == (Bead.LOST, Bead.WON, Bead.IN_BOX, Bead.IN_BOX)
    with pytest.raises(CasekeepError):
        abacus.show({Rank.QUEEN: [Bead.WON] * 5})


def test_two_led_mode_on_seven_registers_is_refused() -> None:
    with mock_pins() as factory, pytest.raises(HardwareError, match="104 outputs"):
        CasekeepAbacus(CasekeepWiring(mode=CasekeepMode.TWO_LEDS), pin_factory=factory)


def test_closing_turns_the_leds_off_and_frees_the_pins() -> None:
    with mock_pins() as factory:
        chain = ShiftRegisterChain(7, pin_factory=factory)
        abacus = CasekeepAbacus(CasekeepWiring(), pin_factory=factory)
        abacus.play(Rank.FIVE, Bead.WON)
        abacus.close()
        abacus.close()
        assert chain.lit == set()
        with pytest.raises(CasekeepError, match="closed"):
            abacus.play(Rank.FIVE, Bead.WON)
        again = CasekeepAbacus(CasekeepWiring(), pin_factory=factory)
        again.close()


def test_the_starting_pattern_lights_both_leds_of_every_other_rank(
    two_leds: tuple[CasekeepAbacus, ShiftRegisterChain],
) -> None:
    """Both LEDs of a bead are only ever the soda or the hoc: a casekeep with 28 such beads
    is no table's, it is the service reading its journal."""
    abacus, chain = two_leds
    abacus.show_starting()
    odd_ranks = (Rank.ACE, Rank.THREE, Rank.FIVE, Rank.SEVEN, Rank.NINE, Rank.JACK, Rank.KING)
    cards = {(rank.value - 1) * 4 + bead for rank in odd_ranks for bead in range(4)}
    assert chain.lit == {2 * card for card in cards} | {2 * card + 1 for card in cards}
    abacus.clear()
    assert chain.lit == set()
