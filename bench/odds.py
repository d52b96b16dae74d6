"""Exact odds and simulation speed, on one core.

* exact Faro odds for all 13 ranks from a casekeep in mid deal (target: at most 1 ms);
* an 8-deck Punto Banco enumeration (target: at most 0.5 s), and a 6-deck Chemin de Fer one;
* simulated Faro deals per second with every strategy settled (target: at least 100,000).

Run: ``make bench`` or ``.venv/bin/python bench/odds.py [--deals N]``; pin it to one core
with ``taskset -c 0`` where that matters.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from analysis.faro_simulation import simulate_faro
from table.cards import STANDARD_52
from table.events import CardRole
from table.faro.casekeep import Casekeep
from table.faro.rules import find_rules
from table.odds.baccarat import BaccaratShoe
from table.odds.chemin_de_fer import chemin_de_fer_odds
from table.odds.faro import clear_cache, faro_odds
from table.odds.punto_banco import punto_banco_odds


def mid_deal_casekeep(cards_out: int, seed: int) -> Casekeep:
    """A casekeep with the soda and ``(cards_out - 1) / 2`` turns out of a shuffled deck."""
    rules = find_rules("classic")
    cards = list(STANDARD_52.cards)
    random.Random(seed).shuffle(cards)
    casekeep = Casekeep(rules.deck_spec)
    for index, card in enumerate(cards[:cards_out]):
        role = CardRole.SODA if index == 0 else (CardRole.LOSER, CardRole.WINNER)[(index + 1) % 2]
        casekeep.record(card, role, (index + 1) // 2)
    return casekeep


def bench_faro(repeats: int) -> None:
    rules = find_rules("classic")
    casekeep = mid_deal_casekeep(21, seed=4)
    clear_cache()
    start = time.perf_counter()
    odds = faro_odds(casekeep, rules)
    cold = time.perf_counter() - start
    timings = []
    for _ in range(repeats):
        start = time.perf_counter()
        faro_odds(casekeep, rules)
        timings.append(time.perf_counter() - start)
    print(
        f"faro odds: {len(odds.ranks)} live ranks, {odds.cards_left} cards in the box: "
        f"median {statistics.median(timings) * 1000:.3f} ms, first call {cold * 1000:.3f} ms; "
        "target at most 1 ms"
    )


def bench_baccarat() -> None:
    start = time.perf_counter()
    odds = punto_banco_odds(BaccaratShoe.full(8))
    elapsed = time.perf_counter() - start
    print(
        f"punto banco: 8-deck enumeration in {elapsed:.3f} s "
        f"(banker {float(odds.banker):.6f}, player {float(odds.player):.6f}, "
        f"tie {float(odds.tie):.6f}); target at most 0.5 s"
    )
    start = time.perf_counter()
    chemin_de_fer_odds(BaccaratShoe.full(6))
    print(f"chemin de fer: 6-deck choices in {time.perf_counter() - start:.3f} s")


def bench_simulation(deals: int, rounds: int) -> None:
    rules = find_rules("classic")
    simulate_faro(rules, 10_000)  # warm numpy
    rates = []
    for round_number in range(rounds):
        start = time.perf_counter()
        result = simulate_faro(rules, deals, seed=round_number)
        rates.append(deals / (time.perf_counter() - start))
    print(
        f"faro simulation: {deals:,} deals x {rounds}, every strategy settled, "
        f"{result.splits_per_deal:.4f} splits a deal: median {statistics.median(rates):,.0f} "
        f"deals per second (min {min(rates):,.0f}); target at least 100,000"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--deals", type=int, default=500_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=2000)
    args = parser.parse_args()
    bench_faro(args.repeats)
    bench_baccarat()
    bench_simulation(args.deals, args.rounds)


if __name__ == "__main__":
    main()
