"""A whole shuffled deck dealt at dealer speed in front of the camera.

A card every 0.5 s at 30 frames a second, the top card sliding off over the last frames
of each card, the dealer's hand passing over the box every few cards. The recognizer and
the reading filter must yield exactly the 52 cards in order, no more, no fewer.

    .venv/bin/python bench/vision_deal.py [DECKS] [DESIGN]
"""

from __future__ import annotations

import random
import sys
import time

from table.cards import STANDARD_52
from table.service.reading_filter import CardAccepted, ReaderAlarm, ReadingFilter
from vision.profile import teach
from vision.recognize import Recognizer
from vision.synthetic import DESIGNS, HOLDOUT_DESIGN, deal_video, render_card


def main() -> int:
    decks = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    design = DESIGNS[sys.argv[2] if len(sys.argv) > 2 else HOLDOUT_DESIGN]
    recognizer = Recognizer(teach({c: render_card(c, design) for c in STANDARD_52}, design.name))
    exact = 0
    for deal in range(decks):
        order = list(STANDARD_52.cards)
        random.Random(deal).shuffle(order)
        reading_filter = ReadingFilter(agree_frames=3)
        accepted, alarms, frames = [], [], 0
        started = time.perf_counter()
        for frame in deal_video(order, design, seed=3_000_000 + deal, hand_every=4):
            frames += 1
            for output in reading_filter.camera(recognizer.read(frame.image), frame.timestamp):
                if isinstance(output, CardAccepted):
                    accepted.append(output.card)
                elif isinstance(output, ReaderAlarm):
                    alarms.append(output.message)
                else:
                    alarms.append("asked the dealer: " + output.message)
        ok = accepted == order
        exact += ok
        missing = [c.code for c in order if c not in accepted]
        print(
            f"deal {deal}: {frames} frames ({frames / 30:.1f} s of video) in "
            f"{time.perf_counter() - started:.1f} s; accepted {len(accepted)} cards, "
            f"{'exactly the 52 in order' if ok else 'NOT the deck in order'}; "
            f"alarms/questions: {len(alarms)}; missing: {' '.join(missing) or 'none'}"
        )
        for message in alarms[:5]:
            print("   ", message)
    print(f"exact deals: {exact} of {decks}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
