"""Instructions a full Faro deal takes: a count that the machine's load does not move.

Timings on a shared machine wander by tens of per cent from one run to the next; the count
of instructions the interpreter executes for the same deals does not. This runs the deals of
``bench/faro_deal.py`` (10 punters, 20 bets each) under ``valgrind --tool=callgrind`` twice,
for 1 and for 31 deals, and prints the difference per deal, so that two versions of the
engine can be compared by one number. Without valgrind it says so and stops.

Run: ``make bench`` or ``.venv/bin/python bench/faro_instructions.py``.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

FEW, MANY = 1, 31


def deal(count: int) -> None:
    sys.path.insert(0, str(Path(__file__).parent))
    import faro_deal

    table = faro_deal.open_table()
    for seed in range(count):
        faro_deal.one_deal(seed, table)


def instructions(count: int) -> int:
    with tempfile.TemporaryDirectory() as scratch:
        callgrind = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={scratch}/out"]
        run = subprocess.run(
            [*callgrind, sys.executable, __file__, "--deal", str(count)],
            capture_output=True,
            text=True,
            check=True,
            # String hashing is salted per process; fixed, the same deals count the same.
            env={**os.environ, "PYTHONHASHSEED": "0"},
        )
    found = re.search(r"I\s+refs:\s+([\d,]+)", run.stderr)
    if found is None:
        raise SystemExit(f"faro_instructions: no count in valgrind's output:\n{run.stderr}")
    return int(found.group(1).replace(",", ""))


def main() -> None:
    if len(sys.argv) == 3 and sys.argv[1] == "--deal":
        deal(int(sys.argv[2]))
        return
    if shutil.which("valgrind") is None:
        print("faro_instructions: valgrind is not installed here; nothing measured")
        return
    per_deal = (instructions(MANY) - instructions(FEW)) / (MANY - FEW)
    print(
        f"faro_instructions: {per_deal / 1e6:.2f} million instructions a full deal "
        f"({MANY - FEW} deals of bench/faro_deal.py under callgrind)"
    )


if __name__ == "__main__":
    main()
