"""Peak memory of recognition with its deck profile, over a bare OpenCV import.

Two fresh processes report their peak resident size: one that only imports cv2, one that
also loads a saved profile and reads 200 frames from disk.

    .venv/bin/python bench/vision_memory.py
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

import cv2

from table.cards import STANDARD_52
from vision.profile import teach
from vision.synthetic import DESIGNS, render_card

BARE = "import resource, cv2; print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)"
READING = """
import resource, sys, cv2
from pathlib import Path
from vision.profile import DeckProfile
from vision.recognize import Recognizer
folder = Path(sys.argv[1])
recognizer = Recognizer(DeckProfile.load(folder / "classic.npz"))
for path in sorted(folder.glob("*.png")):
    recognizer.read(cv2.imread(str(path)))
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def peak_kib(code: str, *args: str) -> int:
    result = subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, check=True
    )
    return int(result.stdout.strip().splitlines()[-1])


def main() -> int:
    design = DESIGNS["classic"]
    with tempfile.TemporaryDirectory() as folder:
        teach({c: render_card(c, design) for c in STANDARD_52}, "classic").save(folder)
        for i in range(200):
            frame = render_card(STANDARD_52.cards[i % 52], design, 4_000_000 + i)
            cv2.imwrite(str(Path(folder) / f"{i:04d}.png"), frame)
        profile_size = (Path(folder) / "classic.npz").stat().st_size
        bare = peak_kib(BARE)
        reading = peak_kib(READING, folder)
    print(f"profile file: {profile_size / 1024:.0f} KiB")
    print(f"peak RSS, bare 'import cv2': {bare / 1024:.1f} MiB")
    print(f"peak RSS, profile + 200 frames read: {reading / 1024:.1f} MiB")
    print(f"recognition over bare OpenCV: {(reading - bare) / 1024:.1f} MiB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
