"""Check the link to a table's microcontroller from the command line.

    python -m hw.bridge_check hwgrep://VID:PID=2E8A:0005     # the Pico, by its USB id
    python -m hw.bridge_check /dev/ttyACM0 --seconds 30
    python -m hw.bridge_check --simulate                     # the simulated board

Opens the link, walks a lamp along the 13 rank lamps, and prints every event (link
up and down, cards slid, lid, barcodes, errors) as it happens, then the link's
counts. Exits 0 if the link came up.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from firmware_bridge.clock import SystemClock
from firmware_bridge.link import LinkUp, SerialLink
from firmware_bridge.protocol import RGB

PIXELS = 16
WALK_SECONDS = 0.25


@contextmanager
def simulated_board_url() -> Iterator[str]:
    from hw.simulated.microcontroller import SimulatedMicrocontroller

    with (
        tempfile.TemporaryDirectory() as directory,
        SimulatedMicrocontroller(Path(directory), SystemClock()) as board,
    ):
        board.start()
        yield board.url


def walking_lamp(step: int) -> list[RGB]:
    pixels: list[RGB] = [(0, 0, 0)] * PIXELS
    pixels[step % 13] = (255, 120, 0)
    pixels[13] = (0, 80, 0)
    return pixels


def check(url: str, seconds: float) -> int:
    came_up = False
    with SerialLink(url, SystemClock()) as link:
        started = time.monotonic()
        next_walk = started
        step = 0
        while time.monotonic() - started < seconds:
            now = time.monotonic()
            if now >= next_walk:
                link.show(walking_lamp(step))
                step += 1
                next_walk = now + WALK_SECONDS
            for event in link.poll():
                came_up = came_up or isinstance(event, LinkUp)
                print(f"{now - started:8.3f}  {event}", flush=True)
            link.wait(0.01)
        for key, value in link.report().items():
            print(f"{key}: {value}")
    return 0 if came_up else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m hw.bridge_check", description=__doc__)
    parser.add_argument("url", nargs="?", help="a pyserial URL or device path")
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--simulate", action="store_true", help="talk to the simulated board")
    args = parser.parse_args(argv)
    if args.simulate:
        with simulated_board_url() as url:
            return check(url, args.seconds)
    if not args.url:
        parser.error("give a URL, or --simulate")
    return check(args.url, args.seconds)


if __name__ == "__main__":
    sys.exit(main())
