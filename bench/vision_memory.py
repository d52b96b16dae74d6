"""Peak memory of recognition with its deck profile, over a bare OpenCV import.

Two fresh processes report their resident and peak resident size: one that only imports
cv2, one that also loads a saved profile and reads 200 frames from disk.

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

STATUS = """
def memory():
    fields = dict(line.split(":", 1) for line in open("/proc/self/status"))
    return int(fields["VmRSS"].split()[0]), int(fields["VmHWM"].split()[0])
"""
BARE = STATUS + "import cv2\nprint(*memory())"
READING = (
    STATUS
    + """
import sys, cv2
from pathlib import Path
from vision.profile import DeckProfile
from vision.recognize import Recognizer
folder = Path(sys.argv[1])
recognizer = Recognizer(DeckProfile.load(folder / "classic.npz"))
for path in sorted(folder.glob("*.png")):
    recognizer.read(cv2.imread(str(path)))
print(*memory())
"""
)


def resident_kib(code: str, *args: str) -> tuple[int, int]:
    """(resident now, peak resident) in KiB of a fresh process running ``code``."""
    result = subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, check=True
    )
    now, peak = result.stdout.strip().splitlines()[-1].split()
    return int(now), int(peak)


def main() -> int:
    design = DESIGNS["classic"]
    with tempfile.TemporaryDirectory() as folder:
        teach({c: render_card(c, design) for c in STANDARD_52}, "classic").save(folder)
        for i in range(200):
            frame = render_card(STANDARD_52.cards[i % 52], design, 4_000_000 + i)
            cv2.imwrite(str(Path(folder) / f"{i:04d}.png"), frame)
        profile_size = (Path(folder) / "classic.npz").stat().st_size
        bare_now, bare_peak = resident_kib(BARE)
        read_now, read_peak = resident_kib(READING, folder)
    print(f"profile file: {profile_size / 1024:.0f} KiB")
    print(f"bare 'import cv2': resident {bare_now / 1024:.1f} MiB, peak {bare_peak / 1024:.1f} MiB")
    print(
        f"profile + 200 frames read: resident {read_now / 1024:.1f} MiB, "
        f"peak {read_peak / 1024:.1f} MiB"
    )
    print(
        f"recognition over bare OpenCV: resident +{(read_now - bare_now) / 1024:.1f} MiB, "
        f"peak +{(read_peak - bare_peak) / 1024:.1f} MiB"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
