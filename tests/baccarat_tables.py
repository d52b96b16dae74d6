"""Baccarat tables set up as the seeds' examples set them up, and helpers to deal them."""

from __future__ import annotations

from collections.abc import Iterable

from table.baccarat import BaccaratTable
from table.events import BetSettled, CoupResult, Event


def open_punto_banco(
    game: str = "punto-banco",
    rules: str = "standard",
    bank: int = 10_000,
    punters: dict[str, int] | None = None,
    **options: str,
) -> BaccaratTable:
    """A Punto Banco table with a house bank, punters seated, a shoe in, no burn."""
    table = BaccaratTable("t1", game, rules, {"burn": "none", **options})
    table.fund_bank(bank)
    for name, bankroll in (punters or {"ana": 1000, "ben": 1000, "cy": 1000}).items():
        table.seat(name, bankroll)
    table.new_shoe()
    return table


def open_chemin_de_fer(
    game: str = "chemin-de-fer",
    rules: str = "standard",
    bank: int | None = 100,
    seats: dict[str, int] | None = None,
    **options: str,
) -> BaccaratTable:
    """Seats in counter-clockwise order, the first holding the bank; a shoe in, no burn."""
    table = BaccaratTable("t1", game, rules, {"burn": "none", **options})
    for name, bankroll in (seats or {"bea": 500, "ana": 500, "ben": 500, "cy": 500}).items():
        table.seat(name, bankroll)
    table.new_shoe()
    if bank is not None:
        table.announce_bank(bank)
    return table


def deal(table: BaccaratTable, text: str) -> list[Event]:
    """These cards out of the shoe, one at a time; ``stand`` where a hand stands."""
    events: list[Event] = []
    for word in text.split():
        events += table.stand() if word == "stand" else table.deal(word)
    return events


def settlements(events: Iterable[Event]) -> list[tuple[str, str, str, int]]:
    return [
        (event.punter, event.spot, event.outcome.value, event.net)
        for event in events
        if isinstance(event, BetSettled)
    ]


def result(events: Iterable[Event]) -> CoupResult:
    found = [event for event in events if isinstance(event, CoupResult)]
    assert len(found) == 1, found
    return found[0]
