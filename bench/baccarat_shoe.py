"""Punto Banco coups per second over full 8-deck shoes, on one core.

Each shoe: a seeded 8-deck shoe with its cut card 16 from the end, the burn, then coups
until the cut card: before each coup three punters bet (Punto, Banca, tie in turn)
through the checked entry points, the dealer locks, and the engine takes the coup's
cards one at a time, draws by the tableau and settles. ``--bare`` deals with no bets.

Run: ``make bench`` or ``.venv/bin/python bench/baccarat_shoe.py [--shoes N] [--bare]``.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from table.baccarat import BaccaratTable, Phase
from table.baccarat.shoe import BaccaratShoe

PUNTERS = ("ana", "ben", "cy")
SIDES = ("player", "banker", "tie")


def one_shoe(table: BaccaratTable, seed: int, bets: bool) -> int:
    """Deal one full shoe; the number of coups played."""
    shoe = BaccaratShoe(8, 16, random.Random(seed))
    state = table.state
    table.new_shoe()
    draw = shoe.draw
    deal = table.deal
    while state.phase is Phase.BURNING:
        deal(draw())
    coups = 0
    while state.phase is Phase.BETTING:
        if bets:
            for number, punter in enumerate(PUNTERS):
                table.bet(punter, SIDES[(coups + number) % 3], 5)
        table.lock()
        while state.phase is Phase.DEALING:
            deal(draw())
        coups += 1
    return coups


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--shoes", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--bare", action="store_true", help="no bets: the engine alone")
    args = parser.parse_args()
    table = BaccaratTable("bench", "punto-banco", options={"decks": "8"})
    table.fund_bank(10**12)
    for punter in PUNTERS:
        table.seat(punter, 10**9)
    one_shoe(table, 0, not args.bare)  # warm caches
    per_round = max(1, args.shoes // args.rounds)
    rates = []
    wall_rates = []
    total = 0
    for round_number in range(args.rounds):
        # CPU time of this process: a fair figure for one core even on a shared machine;
        # the wall-clock rate is printed beside it.
        start, wall_start = time.process_time(), time.perf_counter()
        coups = 0
        for seed in range(per_round):
            coups += one_shoe(table, 1 + round_number * per_round + seed, not args.bare)
        rates.append(coups / (time.process_time() - start))
        wall_rates.append(coups / (time.perf_counter() - wall_start))
        total += coups
    shoes = per_round * args.rounds
    bets = "no bets" if args.bare else f"{len(PUNTERS)} bets a coup"
    print(
        f"baccarat_shoe: {shoes} full 8-deck shoes, {total / shoes:.1f} coups a shoe, "
        f"{bets}, one core"
    )
    print(
        f"baccarat_shoe: coups per second of CPU time: median {statistics.median(rates):.0f} "
        f"(min {min(rates):.0f}, max {max(rates):.0f}); target at least 20000"
    )
    wall = statistics.median(wall_rates)
    print(f"baccarat_shoe: coups per second of wall-clock time: median {wall:.0f}")


if __name__ == "__main__":
    main()
