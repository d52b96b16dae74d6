"""Card recognition across designs: a deck taught on one design, reading another's cards.

A table taught on one make of cards may be dealt another (a new carton, a deck swapped at
a break). Every such card must be read right or refused, never confidently read as another
card. For each ordered pair of designs (taught, dealt), teaches the first from one clean
picture per card and reads perturbed frames of the second (every spoiler of the synthetic
box, the accuracy benchmark's seeds). Prints, per pair, how many were read right, asked
about (uncertain), refused otherwise, and confidently read wrong, and the median time of
one reading. Target: not one confidently wrong on any pair.

    .venv/bin/python bench/vision_designs.py [FRAMES] [DESIGN ...]

By default the development designs only; name the held-out design to include it.
"""

from __future__ import annotations

import collections
import statistics
import sys
import time

import cv2

from table.cards import STANDARD_52
from vision.profile import teach
from vision.recognize import ReadingStatus, Recognizer
from vision.synthetic import DESIGNS, DEVELOPMENT_DESIGNS, random_spec, render_card, render_frame

FIRST_SEED = 1_000_000  # the accuracy benchmark's seeds


def main() -> int:
    cv2.setNumThreads(1)
    frames = int(sys.argv[1]) if len(sys.argv) > 1 else 156
    names = sys.argv[2:] or list(DEVELOPMENT_DESIGNS)
    started = time.perf_counter()
    totals: collections.Counter[str] = collections.Counter()
    timings: list[float] = []
    wrong: list[str] = []
    print(f"{'taught':<10} {'dealt':<10} {'right':>6} {'asked':>6} {'refused':>8} {'WRONG':>6}")
    for taught in names:
        design = DESIGNS[taught]
        recognizer = Recognizer(teach({c: render_card(c, design) for c in STANDARD_52}, taught))
        for dealt in names:
            if dealt == taught:
                continue
            outcomes: collections.Counter[str] = collections.Counter()
            for index in range(frames):
                seed = FIRST_SEED + index
                card = STANDARD_52.cards[index % 52]
                frame = render_frame(random_spec(card, DESIGNS[dealt], seed))
                begun = time.perf_counter()
                reading = recognizer.read(frame)
                timings.append((time.perf_counter() - begun) * 1000)
                if reading.card == card:
                    outcomes["right"] += 1
                elif reading.card is not None:
                    outcomes["wrong"] += 1
                    wrong.append(
                        f"{taught} reading {dealt}, seed {seed}: {card.code} as {reading.card.code}"
                    )
                elif reading.status is ReadingStatus.UNCERTAIN:
                    outcomes["asked"] += 1
                else:
                    outcomes["refused"] += 1
            totals.update(outcomes)
            print(
                f"{taught:<10} {dealt:<10} {outcomes['right']:6d} {outcomes['asked']:6d} "
                f"{outcomes['refused']:8d} {outcomes['wrong']:6d}"
            )
    count = sum(totals.values())
    print(
        f"all pairs: {count} frames, right {totals['right']}, asked {totals['asked']}, "
        f"refused {totals['refused']}, confidently wrong {totals['wrong']}"
    )
    print(
        f"reading time per frame: median {statistics.median(timings):.2f} ms "
        f"(one core); elapsed {time.perf_counter() - started:.0f} s"
    )
    for line in wrong:
        print("  " + line)
    print("target (0 confidently wrong):", "met" if not wrong else "NOT met")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
