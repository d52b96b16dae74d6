"""Frames on the real light drivers: the abacus on gpiozero's mock pins with a latching
74HC595 chain, and the layout lamps on the simulated microcontroller over a pty."""

from __future__ import annotations

from pathlib import Path

from wire_fixtures import mock_pins, table_bench

from display.frames import casekeep_frame, layout_frame
from display.hardware import (
    ALARM,
    LIVE,
    LOCKED,
    LOST,
    OFF,
    READER_LOST,
    STRAIGHT,
    WON,
    AbacusDriver,
    LayoutDriver,
    layout_pixels,
)
from hw.board import CasekeepMode, CasekeepWiring
from hw.casekeep import CasekeepAbacus
from hw.simulated.shift_register import ShiftRegisterChain
from table.cards import Rank
from table.events import ReaderNoticeKind
from tests.conftest import deal, open_table


def card_number(rank: Rank, bead: int) -> int:
    return (rank.value - 1) * 4 + bead


def test_the_abacus_lights_a_bead_for_every_card_out_of_the_box() -> None:
    table = open_table(soda="5S")
    deal(table, "5H 9D KC KD")
    with mock_pins() as factory:
        chain = ShiftRegisterChain(13, pin_factory=factory)
        wiring = CasekeepWiring(registers=13, mode=CasekeepMode.TWO_LEDS)
        with CasekeepAbacus(wiring, pin_factory=factory) as abacus:
            AbacusDriver(abacus).show(casekeep_frame(table.state))
            five_soda, five_lost = card_number(Rank.FIVE, 0), card_number(Rank.FIVE, 1)
            nine_won = card_number(Rank.NINE, 0)
            king_lost, king_won = card_number(Rank.KING, 0), card_number(Rank.KING, 1)
            assert chain.lit == {
                2 * five_soda, 2 * five_soda + 1,  # the soda: both LEDs
                2 * five_lost,  # a losing card: red
                2 * nine_won + 1,  # a winning card: green
                2 * king_lost, 2 * king_won + 1,
            }  # fmt: skip
            before = set(chain.lit)
            deal(table, "2H 3H")
            AbacusDriver(abacus).show(casekeep_frame(table.state))
            two, three = card_number(Rank.TWO, 0), card_number(Rank.THREE, 0)
            assert chain.lit == before | {2 * two, 2 * three + 1}


def test_layout_pixels_say_what_the_last_turn_did() -> None:
    table = open_table(soda="7S")
    table.bet("dan", "9", 4)
    pixels = layout_pixels(layout_frame(table.state))
    assert len(pixels) == 16
    assert pixels[Rank.NINE.value - 1] == STRAIGHT
    assert pixels[Rank.ACE.value - 1] == LIVE
    deal(table, "KH 2C")
    pixels = layout_pixels(layout_frame(table.state))
    assert (pixels[12], pixels[1]) == (LOST, WON)
    table.deal("3H")
    assert layout_pixels(layout_frame(table.state))[14] == LOCKED
    table.deal("3H")  # the same card again: alarm
    assert layout_pixels(layout_frame(table.state))[15] == ALARM


def test_the_alarm_lamp_is_amber_while_a_card_reader_is_lost_and_red_for_an_alarm() -> None:
    table = open_table(soda="7S")
    table.reader_notice("camera", ReaderNoticeKind.READER_LOST, "the lamp is out")
    assert layout_pixels(layout_frame(table.state))[15] == READER_LOST
    deal(table, "KH KH")  # the same card again: the alarm outranks the reader
    assert layout_pixels(layout_frame(table.state))[15] == ALARM
    table.void_card()
    table.reader_notice("camera", ReaderNoticeKind.READER_BACK, "it reads again")
    assert layout_pixels(layout_frame(table.state))[15] == OFF


def test_the_layout_lamps_on_the_microcontroller_follow_the_deal(tmp_path: Path) -> None:
    table = open_table(soda="7S")
    table.bet("dan", "9", 4)
    with table_bench(tmp_path) as bench:
        driver = LayoutDriver(bench.link)
        for text in ("KH", "2C", "4D"):
            table.deal(text)
            driver.show(layout_frame(table.state))
            expected = layout_pixels(layout_frame(table.state))
            bench.drive(lambda expected=expected: bench.board.shown == expected)
        assert bench.board.shown[Rank.KING.value - 1] == LOST
        assert bench.board.shown[Rank.NINE.value - 1] == STRAIGHT
        assert bench.board.shown[15] == OFF
