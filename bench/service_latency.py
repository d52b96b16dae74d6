"""The table service's figures, on loopback with a real Mosquitto.

1. Card to subscriber: from a card reading entering the service to a subscriber receiving its
   event (journal append with synchronous=FULL, MQTT QoS 1 through the broker): p50 and p99.
   Targets: 3 ms and 10 ms.
2. Journal appends per second, one durable transaction per event.
3. Peak RSS of ``dealtable run`` on the simulated table (target: at most 120 MB).

Run: ``make bench`` or ``.venv/bin/python bench/service_latency.py``.
"""

from __future__ import annotations

import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from table.faro import FaroTable
from table.service.config import Config, MqttConfig, ReaderConfig, TableConfig
from table.service.journal import Journal
from table.service.mqtt import MqttLink
from table.service.table_service import TableService
from table.shoe import Shoe
from tests.mosquitto import Broker, wait_until


def card_to_subscriber(directory: Path, deals: int = 4) -> list[float]:
    broker = Broker(directory / "broker")
    broker.directory.mkdir()
    broker.start()
    received: dict[int, float] = {}
    lock = threading.Lock()

    def on_message(client: mqtt.Client, userdata: object, message: mqtt.MQTTMessage) -> None:
        seq = json.loads(message.payload)["seq"]
        with lock:
            received.setdefault(seq, time.perf_counter())

    subscriber = mqtt.Client(CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5)
    subscriber.on_message = on_message
    subscriber.on_connect = lambda c, u, f, r, p: c.subscribe("dealtable/bench/events", qos=1)
    subscriber.connect("127.0.0.1", broker.port)
    subscriber.loop_start()
    config = Config(
        table=TableConfig(id="bench", journal=str(directory / "journal.sqlite")),
        reader=ReaderConfig(kind="simulated"),
        mqtt=MqttConfig(host="127.0.0.1", port=broker.port, client_id="bench-table"),
    )
    journal = Journal(config.table.journal, "bench")
    service = TableService(config, journal)
    assert config.mqtt is not None
    link = MqttLink(config.mqtt, "bench", service, journal)
    link.start()
    wait_until(lambda: link.connected, step=link.pump)
    time.sleep(0.5)  # let the subscriber's subscription settle before timing
    latencies = []
    for deal in range(deals):
        service.execute_line("shuffle")
        for card in Shoe(rng=random.Random(deal)):
            start = time.perf_counter()
            events = service.card(card)
            link.pump()
            dealt = next(e.seq for e in events if e.type_name == "card_dealt")
            while True:
                link.pump()
                with lock:
                    arrived = received.get(dealt)
                if arrived is not None:
                    break
                time.sleep(0.0001)
            latencies.append(arrived - start)
    link.stop()
    subscriber.loop_stop()
    journal.close()
    broker.stop()
    return latencies


def journal_appends(directory: Path, count: int = 2000) -> float:
    table = FaroTable("bench")
    events = list(table.opening)
    events += table.fund_bank(1000)
    for number in range(count):
        events += table.seat(f"p{number}", 10)
    journal = Journal(directory / "appends.sqlite", "bench")
    start = time.perf_counter()
    for event in events:
        journal.append([event])
    elapsed = time.perf_counter() - start
    journal.close()
    return len(events) / elapsed


def fsync_baseline(directory: Path, count: int = 300) -> float:
    """The disk's own cost of one durable write here: the floor under any journal append."""
    times = []
    with open(directory / "fsync.probe", "wb") as probe:
        for _ in range(count):
            start = time.perf_counter()
            probe.write(b"x")
            probe.flush()
            os.fsync(probe.fileno())
            times.append(time.perf_counter() - start)
    return statistics.median(times)


def peak_rss_of_run(directory: Path) -> float:
    subprocess.run(
        [
            sys.executable,
            "-m",
            "table.service.cli",
            "run",
            "--deals",
            "3",
            "--speed",
            "0",
            "--journal",
            str(directory / "run.sqlite"),
        ],
        check=True,
        capture_output=True,
        cwd=directory,
    )
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024


def main() -> None:
    with tempfile.TemporaryDirectory() as scratch:
        directory = Path(scratch)
        floor = fsync_baseline(directory)
        latencies = card_to_subscriber(directory)
        quantiles = statistics.quantiles(latencies, n=100)
        print(
            f"service_latency: card to subscriber over {len(latencies)} cards: "
            f"p50 {statistics.median(latencies) * 1000:.2f} ms, p99 {quantiles[98] * 1000:.2f} ms "
            "(targets 3 ms and 10 ms)"
        )
        print(
            f"service_latency: one fsync on this disk (the floor of a durable append): "
            f"median {floor * 1000:.2f} ms"
        )
        print(
            f"service_latency: journal appends per second (one durable transaction each): "
            f"{journal_appends(directory):.0f}"
        )
        print(
            f"service_latency: peak RSS of `dealtable run` on the simulated table: "
            f"{peak_rss_of_run(directory):.1f} MB (target at most 120 MB)"
        )


if __name__ == "__main__":
    main()
