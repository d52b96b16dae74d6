"""Accuracy of card recognition on a card design kept aside during development.

Teaches the held-out design from one clean picture per card, as a user would, then reads
perturbed frames of it (every spoiler of the synthetic box, seeded). Prints how many were
read right, how many were refused (no card, uncertain, unreadable) and how many were
confidently wrong. Target: at least 99.9 % right and not one wrong.

    .venv/bin/python bench/vision_accuracy.py [FRAMES] [DESIGN]
"""

from __future__ import annotations

import collections
import sys
import time

from table.cards import STANDARD_52
from vision.profile import teach
from vision.recognize import Recognizer
from vision.synthetic import DESIGNS, HOLDOUT_DESIGN, random_spec, render_card, render_frame

FIRST_SEED = 1_000_000  # far from the seeds the tests and development runs used


def main() -> int:
    frames = int(sys.argv[1]) if len(sys.argv) > 1 else 5200
    design = DESIGNS[sys.argv[2] if len(sys.argv) > 2 else HOLDOUT_DESIGN]
    started = time.perf_counter()
    profile = teach({card: render_card(card, design) for card in STANDARD_52}, design.name)
    recognizer = Recognizer(profile)
    outcomes: collections.Counter[str] = collections.Counter()
    wrong: list[str] = []
    for index in range(frames):
        seed = FIRST_SEED + index
        card = STANDARD_52.cards[index % 52]
        reading = recognizer.read(render_frame(random_spec(card, design, seed)))
        if reading.card is None:
            outcomes[f"refused ({reading.status.value})"] += 1
        elif reading.card == card:
            outcomes["right"] += 1
        else:
            outcomes["WRONG"] += 1
            wrong.append(f"seed {seed}: {card.code} read as {reading.card.code}")
    right = outcomes["right"]
    print(f"design {design.name!r} (held out), taught from 52 clean pictures")
    print(f"frames: {frames}   elapsed: {time.perf_counter() - started:.0f} s")
    for outcome, count in sorted(outcomes.items()):
        print(f"  {outcome:<26} {count:6d}  {100 * count / frames:7.3f} %")
    print(f"right: {100 * right / frames:.3f} %   confidently wrong: {outcomes['WRONG']}")
    for line in wrong:
        print("  " + line)
    met = right / frames >= 0.999 and not wrong
    print("target (>= 99.9 % right, 0 wrong):", "met" if met else "NOT met")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
