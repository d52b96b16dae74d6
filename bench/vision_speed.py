"""Time to read one 640 × 480 frame on one core: median and 99th percentile.

.venv/bin/python bench/vision_speed.py [FRAMES]
"""

from __future__ import annotations

import statistics
import sys
import time

import cv2
import numpy as np

from table.cards import STANDARD_52
from vision.profile import teach
from vision.recognize import Recognizer
from vision.synthetic import DESIGNS, render_card

DESIGN = "classic"


def main() -> int:
    cv2.setNumThreads(1)
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 520
    design = DESIGNS[DESIGN]
    recognizer = Recognizer(teach({c: render_card(c, design) for c in STANDARD_52}, DESIGN))
    frames = [render_card(STANDARD_52.cards[i % 52], design, 2_000_000 + i) for i in range(count)]
    for frame in frames[:20]:
        recognizer.read(frame)  # warm caches
    timings = []
    for frame in frames:
        started = time.perf_counter()
        recognizer.read(frame)
        timings.append((time.perf_counter() - started) * 1000)
    median = statistics.median(timings)
    p99 = float(np.percentile(timings, 99))
    print(f"frames: {count} of 640x480, OpenCV threads: {cv2.getNumThreads()}")
    print(f"median: {median:.2f} ms   p99: {p99:.2f} ms   max: {max(timings):.2f} ms")
    print("target (median <= 5 ms):", "met" if median <= 5 else "NOT met")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
