"""Serial bridge benchmark: ack round trip and display frames per second over a pty pair.

The far end is the real firmware on the simulated board, in its own process (as a
Pico is its own processor). Prints the median and 99th percentile of the time from
handing a display frame to the link until its acknowledgement is read back, then
how many whole-display frames per second the firmware applies and acknowledges.

Targets: median round trip at most 5 ms, at least 500 display frames per second.

    .venv/bin/python bench/bridge.py [--round-trips N] [--seconds S]
"""

from __future__ import annotations

import argparse
import multiprocessing
import statistics
import sys
import tempfile
import time
from multiprocessing.synchronize import Event
from pathlib import Path

from firmware_bridge.clock import SystemClock
from firmware_bridge.link import SerialLink

MEDIAN_TARGET_MS = 5.0
FRAMES_PER_SECOND_TARGET = 500


def run_board(directory: str, ready: Event, stop: Event) -> None:
    from hw.simulated.microcontroller import SimulatedMicrocontroller

    with SimulatedMicrocontroller(Path(directory), SystemClock()) as board:
        ready.set()
        while not stop.is_set():
            board.wait(0.001)
            board.step()


def frame_for(index: int) -> list[tuple[int, int, int]]:
    return [((index + lamp) % 256, lamp * 8, 255 - lamp) for lamp in range(16)]


def wait_until_idle(link: SerialLink, deadline: float) -> None:
    while not link.idle:
        if time.monotonic() > deadline:
            raise SystemExit(f"no acknowledgement before the deadline: {link.report()}")
        link.poll()
        if not link.idle:
            link.wait(0.001)


def measure_round_trips(link: SerialLink, count: int) -> list[float]:
    round_trips = []
    for index in range(count):
        started = time.perf_counter()
        link.show(frame_for(index))
        link.poll()
        wait_until_idle(link, time.monotonic() + 2.0)
        round_trips.append((time.perf_counter() - started) * 1000)
    return round_trips


def measure_throughput(link: SerialLink, seconds: float) -> float:
    acknowledged_before = link.stats.acknowledged
    started = time.perf_counter()
    index = 0
    while time.perf_counter() - started < seconds:
        # Keep the window full with distinct frames; never let two merge in the queue.
        if link.queued == 0:
            link.show(frame_for(index))
            index += 1
        link.poll()
        if link.queued:
            link.wait(0.0005)
    wait_until_idle(link, time.monotonic() + 2.0)
    elapsed = time.perf_counter() - started
    return (link.stats.acknowledged - acknowledged_before) / elapsed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--round-trips", type=int, default=1000)
    parser.add_argument("--seconds", type=float, default=3.0)
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory() as directory:
        context = multiprocessing.get_context("fork")
        ready, stop = context.Event(), context.Event()
        board = context.Process(target=run_board, args=(directory, ready, stop), daemon=True)
        board.start()
        try:
            if not ready.wait(5.0):
                raise SystemExit("the simulated board did not start")
            url = str(Path(directory) / "ttyDEALTABLE")
            with SerialLink(url, SystemClock()) as link:
                deadline = time.monotonic() + 5.0
                while not link.is_up:
                    if time.monotonic() > deadline:
                        raise SystemExit(f"link did not come up: {link.report()}")
                    link.poll()
                    link.wait(0.005)
                wait_until_idle(link, time.monotonic() + 2.0)
                round_trips = measure_round_trips(link, args.round_trips)
                frames_per_second = measure_throughput(link, args.seconds)
                retransmits = link.stats.retransmits
        finally:
            stop.set()
            board.join(timeout=5.0)

    median = statistics.median(round_trips)
    p99 = statistics.quantiles(round_trips, n=100)[98]
    print(f"pty pair, real firmware on the simulated board, {args.round_trips} round trips")
    print(f"ack round trip: median {median:.2f} ms, p99 {p99:.2f} ms (target median <= 5 ms)")
    print(f"display frames: {frames_per_second:.0f} frames/s (target >= 500)")
    print(f"retransmits: {retransmits}")
    met = median <= MEDIAN_TARGET_MS and frames_per_second >= FRAMES_PER_SECOND_TARGET
    print("targets met" if met else "TARGETS MISSED")
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
