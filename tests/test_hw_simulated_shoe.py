"""The simulated dealing shoe: seeded order, dealing pace, misfeeds, jams and short decks."""

from __future__ import annotations

from pathlib import Path

from wire_fixtures import table_bench

from firmware_bridge.clock import ManualClock
from firmware_bridge.link import BarcodeRead, SensorChanged
from firmware_bridge.protocol import Sensor
from hw.simulated.shoe import CardOut, ShoeEmpty, ShoeStuck, SimulatedShoe
from table.cards import STANDARD_52


def cards_of(events: list[object]) -> list[CardOut]:
    return [e for e in events if isinstance(e, CardOut)]


def test_the_same_seed_deals_the_same_shuffled_deck() -> None:
    first = SimulatedShoe(ManualClock(), seed=42).order
    assert first == SimulatedShoe(ManualClock(), seed=42).order
    assert first != SimulatedShoe(ManualClock(), seed=43).order
    assert len(first) == 52
    assert set(first) == set(STANDARD_52.cards)
    assert first != STANDARD_52.cards


def test_cards_come_one_at_a_time_at_the_dealing_pace() -> None:
    clock = ManualClock()
    shoe = SimulatedShoe(clock, seed=1, seconds_per_card=2.0)
    clock.advance(1.9)
    assert shoe.poll() == []
    clock.advance(0.1)
    (first,) = cards_of(shoe.poll())
    assert first.card == shoe.order[0]
    clock.advance(5.0)  # the dealer paused; the box does not catch up in a burst
    events = cards_of(shoe.poll())
    assert [e.card for e in events] == list(shoe.order[1:3])
    assert [e.at for e in events] == [4.0, 6.0]


def test_a_misfeed_brings_two_cards_out_together() -> None:
    clock = ManualClock()
    shoe = SimulatedShoe(clock, seed=2, seconds_per_card=1.0)
    shoe.misfeed_next()
    clock.advance(1.0)
    events = cards_of(shoe.poll())
    assert [e.card for e in events] == list(shoe.order[:2])
    assert all(e.misfed and e.at == 1.0 for e in events)


def test_a_jam_holds_the_next_card_back() -> None:
    clock = ManualClock()
    shoe = SimulatedShoe(clock, seed=3, seconds_per_card=1.0)
    shoe.stick_next(4.0)
    clock.advance(1.0)
    assert shoe.poll() == [ShoeStuck(1.0, 5.0)]
    clock.advance(3.9)
    assert shoe.poll() == []
    clock.advance(0.1)
    assert [e.at for e in cards_of(shoe.poll())] == [5.0]


def test_a_short_deck_runs_out_and_says_so_once() -> None:
    clock = ManualClock()
    shoe = SimulatedShoe(clock, seed=4, seconds_per_card=1.0)
    shoe.run_out_after(3)
    clock.advance(10.0)
    events = shoe.poll()
    assert len(cards_of(events)) == 3
    assert events[-1] == ShoeEmpty(10.0, 3)
    clock.advance(10.0)
    assert shoe.poll() == []
    assert shoe.remaining == 0


def test_cards_from_the_shoe_reach_the_host_through_the_board(tmp_path: Path) -> None:
    with table_bench(tmp_path) as bench:
        shoe = SimulatedShoe(bench.clock, seed=5, seconds_per_card=0.2)
        shoe.on_card.append(lambda card: bench.board.scan(card.code))
        bench.drive(lambda: bench.link.is_up)
        dealt: list[str] = []
        while len(dealt) < 5:
            for event in cards_of(list(shoe.poll())):
                dealt.append(event.card.code)
                bench.board.block_card_sensor(True)
                bench.run_for(0.02)
                bench.board.block_card_sensor(False)
            bench.step()
        bench.drive(lambda: len(bench.of_type(BarcodeRead)) == 5)
        assert [e.text for e in bench.of_type(BarcodeRead)] == dealt  # type: ignore[attr-defined]
        slides = [
            e for e in bench.of_type(SensorChanged) if e.sensor is Sensor.CARD_SLID and e.active
        ]  # type: ignore[attr-defined]
        assert len(slides) == 5
