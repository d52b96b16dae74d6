"""The table on a real Mosquitto: events in order, retained state, commands and replies,
and a broker outage in the middle of a deal."""

from __future__ import annotations

import dataclasses
import json
import logging
import socket
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties
from paho.mqtt.reasoncodes import ReasonCode

from table.cards import Card
from table.errors import TableError
from table.events import CardDealt, ReaderNoticeKind, ThirdCardChoice
from table.language import parse_line
from table.service.config import Config, MqttConfig, ReaderConfig, TableConfig, TlsConfig
from table.service.journal import Journal
from table.service.mqtt import (
    COMMANDS_PER_PUMP,
    OUTBOX_CURSOR,
    CommandError,
    MqttLink,
    _Incoming,
    command_from_payload,
)
from table.service.run import SimulatedTable
from table.service.table_service import TableService, state_snapshot
from tests.conftest import ACCOUNTS, players_bank_config
from tests.mosquitto import Broker, free_port, wait_until


class Watcher:
    """A subscriber as a display or a betting terminal would run one."""

    def __init__(self, port: int, topic: str, username: str = "", password: str = "") -> None:
        self.messages: list[tuple[str, bytes, bool]] = []
        self.journals: list[str | None] = []  # the journal each message names
        self.lock = threading.Lock()
        self.connected = threading.Event()
        self.refused: str | None = None
        self.client = mqtt.Client(
            CallbackAPIVersion.VERSION2,
            client_id=f"watcher-{uuid.uuid4().hex[:8]}",
            protocol=mqtt.MQTTv5,
        )
        if username:
            self.client.username_pw_set(username, password)
        self.topic = topic
        self.client.on_connect = self._on_connect
        self.client.on_message = self._on_message
        properties = Properties(PacketTypes.CONNECT)
        properties.SessionExpiryInterval = 300  # a subscriber that keeps its queue across an outage
        self.client.connect("127.0.0.1", port, clean_start=False, properties=properties)
        self.client.reconnect_delay_set(min_delay=1, max_delay=2)
        self.client.loop_start()

    def _on_connect(self, client: Any, userdata: Any, flags: Any, reason: Any, props: Any) -> None:
        if reason.is_failure:
            self.refused = str(reason)
            return
        client.subscribe(self.topic, qos=1)
        self.connected.set()

    def _on_message(self, client: Any, userdata: Any, message: mqtt.MQTTMessage) -> None:
        named = dict(getattr(message.properties, "UserProperty", []))
        with self.lock:
            self.messages.append((message.topic, message.payload, bool(message.retain)))
            self.journals.append(named.get("journal"))

    def journals_on(self, suffix: str) -> list[str | None]:
        """The journal each message on a topic named."""
        with self.lock:
            return [
                journal
                for (topic, _, _), journal in zip(self.messages, self.journals, strict=True)
                if topic.endswith(suffix)
            ]

    def journal_and_seq(self) -> list[tuple[str | None, int]]:
        """Each event as a subscriber tells it from a repeat: its journal, then its seq."""
        with self.lock:
            return [
                (journal, json.loads(payload)["seq"])
                for (topic, payload, _), journal in zip(self.messages, self.journals, strict=True)
                if topic.endswith("/events")
            ]

    def on(self, suffix: str) -> list[bytes]:
        with self.lock:
            return [payload for topic, payload, _ in self.messages if topic.endswith(suffix)]

    def events(self) -> list[dict[str, Any]]:
        return [json.loads(payload) for payload in self.on("/events")]

    def publish(self, topic: str, payload: object) -> None:
        self.client.publish(topic, json.dumps(payload), qos=1).wait_for_publish(5)

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def with_faro_1_account(
    tmp_path: Path, port: int, table_id: str = "faro-1", tls: TlsConfig | None = None
) -> Config:
    """A console table ``table_id`` logging in to the broker on ``port`` with table faro-1's
    account: the shipped access list lets that account publish only under faro-1."""
    return Config(
        table=TableConfig(id=table_id, journal=str(tmp_path / "journal.sqlite")),
        reader=ReaderConfig(kind="console"),
        mqtt=MqttConfig(
            host="127.0.0.1",
            port=port,
            username="table-faro-1",
            password=ACCOUNTS["table-faro-1"],
            tls=tls,
        ),
    )


def second_table_with_first_tables_account(tmp_path: Path, port: int) -> Config:
    """Table faro-2 set up with table faro-1's account."""
    return with_faro_1_account(tmp_path, port, "faro-2")


def simulated_table(tmp_path: Path, table_id: str = "t1") -> Config:
    """A table dealt by the simulated reader, stepped by the test, its journal in tmp_path."""
    return Config(
        table=TableConfig(id=table_id, journal=str(tmp_path / "journal.sqlite")),
        reader=ReaderConfig(kind="simulated", seed=3, cards_per_second=0),
    )


def make_service(
    tmp_path: Path, port: int, table_id: str = "t1", reconnect_delay: tuple[int, int] = (1, 5)
) -> tuple[TableService, MqttLink, Journal]:
    return service_on_broker(simulated_table(tmp_path, table_id), port, reconnect_delay)


def service_on_broker(
    config: Config, port: int, reconnect_delay: tuple[int, int] = (1, 5)
) -> tuple[TableService, MqttLink, Journal]:
    """The table of ``config`` publishing to the broker on ``port``."""
    table_id = config.table.id
    mqtt = MqttConfig(host="127.0.0.1", port=port, client_id=f"table-{table_id}")
    config = dataclasses.replace(config, mqtt=mqtt)
    journal = Journal(config.table.journal, table_id)
    service = TableService(config, journal)
    link = MqttLink(mqtt, table_id, service, journal, reconnect_delay=reconnect_delay)
    return service, link, journal


@pytest.fixture
def watcher(broker: Broker) -> Iterator[Watcher]:
    """A subscriber to everything the table says, there before the table connects."""
    subscriber = Watcher(broker.port, "dealtable/t1/#")
    assert subscriber.connected.wait(30)
    yield subscriber
    subscriber.close()


@pytest.fixture
def table(
    tmp_path: Path, broker: Broker, watcher: Watcher
) -> Iterator[tuple[TableService, MqttLink, Journal]]:
    service, link, journal = make_service(tmp_path, broker.port)
    link.start()
    # The link says online once it has subscribed to the commands.
    assert wait_until(lambda: watcher.on("/status")[-1:] == [b"online"], step=link.pump), (
        "the table did not connect"
    )
    yield service, link, journal
    link.stop()
    journal.close()


def test_a_full_simulated_deal_arrives_in_order_and_the_retained_state_matches(
    table: tuple[TableService, MqttLink, Journal], broker: Broker, watcher: Watcher
) -> None:
    service, link, journal = table
    simulated = SimulatedTable(service, seed=3)
    while service.state.phase.value != "finished":
        simulated.step()
        link.pump()
    assert link.flush(timeout=30)
    assert wait_until(lambda: len(watcher.events()) >= journal.last_seq)
    seqs = [event["seq"] for event in watcher.events()]
    assert sorted(set(seqs)) == list(range(1, journal.last_seq + 1))
    deduplicated = list(dict.fromkeys(seqs))
    assert deduplicated == sorted(deduplicated)  # in seq order
    assert [e["type"] for e in watcher.events()].count("card_dealt") == 52
    assert wait_until(
        lambda: (
            bool(watcher.on("/state"))
            and json.loads(watcher.on("/state")[-1])["seq"] == journal.last_seq
        )
    )
    published = json.loads(watcher.on("/state")[-1])
    assert published == {**state_snapshot(service.state), "journal_trouble": None}
    assert watcher.on("/status")[-1] == b"online"
    # A display that connects later gets the retained state and status at once.
    late = Watcher(broker.port, "dealtable/t1/state")
    assert wait_until(lambda: bool(late.on("/state")))
    assert json.loads(late.on("/state")[0])["casekeep"]["A"]["left"] == 0
    late.close()


def test_a_reader_lost_is_an_event_and_stays_in_the_retained_state_until_it_is_back(
    table: tuple[TableService, MqttLink, Journal], watcher: Watcher
) -> None:
    """A display or a phone watching an exhibit hears that the camera is gone, and one that
    connects later still sees it in the retained state, until the camera reads again."""
    from table.events import ReaderNoticeKind

    service, link, _ = table
    service.reader_notice("camera", ReaderNoticeKind.READER_LOST, "the lamp is out")

    def last_state() -> dict[str, Any]:
        link.pump()
        states = watcher.on("/state")
        return json.loads(states[-1]) if states else {}

    assert wait_until(lambda: last_state().get("readers_lost") == {"camera": "the lamp is out"})
    told = [e for e in watcher.events() if e["type"] == "reader_notice"]
    assert told[0]["reader"] == "camera" and told[0]["notice"] == "reader_lost"
    service.reader_notice("camera", ReaderNoticeKind.READER_BACK, "the camera reads again")
    assert wait_until(lambda: last_state().get("readers_lost") == {})


def test_an_outbox_whose_place_the_journal_cannot_keep_publishes_on(
    table: tuple[TableService, MqttLink, Journal],
    watcher: Watcher,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The disk fills: the broker's acknowledgements cannot be kept. The link says so once
    and goes on; the service's loop does not fall over."""
    from tests.test_service_readers import FullDisk

    service, link, journal = table
    service.execute_line("shuffle")
    disk = FullDisk(journal._db)
    journal._db = disk  # type: ignore[assignment]
    for card in ("2C", "KD", "9C"):
        disk.full = False
        service.execute_line(f"card {card}")
        disk.full = True
        assert wait_until(lambda: link.flush(timeout=0.1), step=link.pump)
    # Acknowledged by the broker, then delivered to the subscriber in its own time.
    every_event = list(range(1, journal.last_seq + 1))
    assert wait_until(lambda: [e["seq"] for e in watcher.events()] == every_event)
    kept = [r for r in caplog.records if "the outbox's place is not kept" in r.getMessage()]
    assert len(kept) == 1


def test_a_journal_that_cannot_write_is_said_in_the_retained_state_until_it_can(
    table: tuple[TableService, MqttLink, Journal], watcher: Watcher
) -> None:
    """The disk of an unattended table fills: nothing moves on the table, and the retained
    state says why, until the journal writes again."""
    from tests.test_service_readers import FullDisk

    service, link, journal = table
    service.execute_line("shuffle")
    disk = FullDisk(journal._db)
    journal._db = disk  # type: ignore[assignment]
    with pytest.raises(TableError, match="database or disk is full"):
        service.execute_line("card 2C")

    def last_state() -> dict[str, Any]:
        link.pump()
        states = watcher.on("/state")
        return json.loads(states[-1]) if states else {}

    assert wait_until(lambda: "disk is full" in (last_state().get("journal_trouble") or ""))
    disk.full = False
    service.execute_line("card 2C")
    assert wait_until(lambda: last_state().get("journal_trouble", "") is None)
    assert last_state()["cards_left"] == 51


def test_the_state_never_shows_a_card_still_in_the_box(
    table: tuple[TableService, MqttLink, Journal],
) -> None:
    service = table[0]
    simulated = SimulatedTable(service, seed=3)
    for _ in range(10):
        simulated.step()
    snapshot = json.dumps(state_snapshot(service.state))
    dealt = {str(card) for card in service.state.casekeep.dealt_cards()}
    remaining = {str(card) for card in service.state.casekeep.remaining_cards()}
    assert dealt and remaining
    for card in remaining:
        assert f'"{card}"' not in snapshot
    for card in dealt:
        assert f'"{card}"' in snapshot


def test_the_advisor_puts_split_risk_and_edge_in_the_state_when_the_table_wants_it(
    table: tuple[TableService, MqttLink, Journal],
) -> None:
    service = table[0]
    SimulatedTable(service, seed=3).step()
    SimulatedTable(service, seed=3).step()
    assert state_snapshot(service.state)["advice"] is None  # off unless the table turns it on
    advice = state_snapshot(service.state, advisor=True)["advice"]
    assert advice is not None
    assert advice["cards_left"] == service.state.cards_left
    ranks = {entry["rank"]: entry for entry in advice["ranks"]}
    for rank in service.state.casekeep.live_ranks():
        entry = ranks[rank.label]
        assert entry["left"] == service.state.casekeep.left(rank)
        assert "/" in entry["edge"] or entry["edge"] == "0"


def open_deal(service: TableService) -> None:
    """Anna seated with 100 chips, a deck in and its soda out: bets are open."""
    for line in ("punter anna 100", "shuffle", "card 2C"):
        service.execute_line(line)


def _ask(watcher: Watcher, link: MqttLink, verb: str, payload: dict[str, Any]) -> dict[str, Any]:
    request = payload.get("request_id")
    before = len(watcher.on("/reply"))
    watcher.publish(f"dealtable/t1/cmd/{verb}", payload)
    assert wait_until(lambda: len(watcher.on("/reply")) > before, step=link.pump)
    reply: dict[str, Any] = json.loads(watcher.on("/reply")[-1])
    assert reply["request_id"] == request
    return reply


def test_commands_are_judged_by_the_engine_and_bad_ones_change_nothing(
    table: tuple[TableService, MqttLink, Journal], watcher: Watcher
) -> None:
    service, link, journal = table
    open_deal(service)

    reply = _ask(
        watcher, link, "bet", {"request_id": "r1", "punter": "anna", "spot": "9", "amount": 4}
    )
    assert reply["ok"] is True
    assert [bet.stake for bet in service.state.bets.values()] == [4]

    last = journal.last_seq
    # Sent again (its sender missed the reply): the same answer, and no second bet.
    again = _ask(
        watcher, link, "bet", {"request_id": "r1", "punter": "anna", "spot": "9", "amount": 4}
    )
    assert again == {**reply, "repeat": True}
    bad = {
        "half a UTF-16 pair": (
            "bet",
            {"request_id": "r1b", "punter": "\ud800", "spot": "9", "amount": 4},
            "half of a UTF-16 pair",
        ),
        "wrong type": (
            "bet",
            {"request_id": "r2", "punter": "anna", "spot": "9", "amount": "4"},
            "whole number",
        ),
        "no request id": ("bet", {"punter": "anna", "spot": "9", "amount": 4}, "request_id"),
        "unknown verb": ("dance", {"request_id": "r3"}, "unknown verb 'dance'"),
        "a card": ("card", {"request_id": "r4", "card": "KH"}, "cannot add a card"),
        "digits of another script": (
            "bet",
            {
                "request_id": "r4b",
                "punter": "anna",
                "spot": "9",
                "amount": 2,
                "instruction": "paroli ٣",
            },
            "paroli needs a whole number, not '٣'",
        ),
        "engine refuses": (
            "bet",
            {"request_id": "r5", "punter": "anna", "spot": "2", "amount": 500},
            "only 96 chips",
        ),
        # The layout board's frames are journaled under such ids: one sent from outside
        # could pass, after a restart, for a frame the table took, and its card be dropped.
        "the board's request id": (
            "bet",
            {"request_id": "board-frame:1.42", "punter": "anna", "spot": "9", "amount": 1},
            "request ids beginning 'board-frame:' are the layout board's",
        ),
    }
    for name, (verb, payload, message) in bad.items():
        reply = _ask(watcher, link, verb, payload)
        assert reply["ok"] is False, name
        assert message in reply["error"], (name, reply)
    # Escaped in the JSON itself, half a pair in the request id: refused, no id to name.
    before = len(watcher.on("/reply"))
    watcher.client.publish(
        "dealtable/t1/cmd/bet",
        b'{"request_id": "\\ud800", "punter": "anna", "spot": "9", "amount": 4}',
        qos=1,
    ).wait_for_publish(5)
    assert wait_until(lambda: len(watcher.on("/reply")) > before, step=link.pump)
    assert "half of a UTF-16 pair" in json.loads(watcher.on("/reply")[-1])["error"]
    before = len(watcher.on("/reply"))
    watcher.client.publish("dealtable/t1/cmd/bet", b"{not json", qos=1).wait_for_publish(5)
    assert wait_until(lambda: len(watcher.on("/reply")) > before, step=link.pump)
    assert "not a JSON object" in json.loads(watcher.on("/reply")[-1])["error"]
    watcher.publish("dealtable/t1/cmd/bet", ["a", "list"])
    assert wait_until(lambda: len(watcher.on("/reply")) > before + 1, step=link.pump)
    assert "must be a JSON object" in json.loads(watcher.on("/reply")[-1])["error"]
    assert journal.last_seq == last
    assert [bet.stake for bet in service.state.bets.values()] == [4]


def test_a_request_id_that_is_no_text_is_refused_naming_what_was_sent(
    table: tuple[TableService, MqttLink, Journal], watcher: Watcher
) -> None:
    """A request id sent as a number or left empty is there, not missing: the refusal says
    what it must be and what came."""
    service, link, journal = table
    open_deal(service)
    last = journal.last_seq
    for sent, said in ((42, "not 42"), ("", "not ''"), (None, "not None")):
        before = len(watcher.on("/reply"))
        watcher.publish(
            "dealtable/t1/cmd/bet",
            {"request_id": sent, "punter": "anna", "spot": "9", "amount": 1},
        )
        assert wait_until(lambda at=before: len(watcher.on("/reply")) > at, step=link.pump)
        error = json.loads(watcher.on("/reply")[-1])["error"]
        assert "missing" not in error
        assert f"field 'request_id' must be a non-empty text, {said}" in error
    assert journal.last_seq == last


def test_a_command_is_answered_on_its_own_reply_topic_of_the_table_and_nowhere_else(
    table: tuple[TableService, MqttLink, Journal], watcher: Watcher
) -> None:
    """MQTT 5's Response Topic is honoured one level under the table's ``reply`` only: a
    sender cannot make the table publish on another table's topics or anywhere else."""
    service, link, _ = table
    open_deal(service)
    for number, asked in enumerate(
        ("elsewhere/inbox", "dealtable/t1/reply/a/b", "dealtable/t1/reply/+",
         "dealtable/t2/reply/ana", "dealtable/t1/reply/", "dealtable/t1/replying/ana",
         "dealtable/t1/reply/ana"),
    ):  # fmt: skip
        properties = Properties(PacketTypes.PUBLISH)  # type: ignore[no-untyped-call]
        properties.ResponseTopic = asked
        bet = {"request_id": f"r{number}", "punter": "anna", "spot": "9", "amount": 1}
        watcher.client.publish(
            "dealtable/t1/cmd/bet", json.dumps(bet), qos=1, properties=properties
        ).wait_for_publish(5)
    assert wait_until(lambda: len(watcher.on("/reply/ana")) == 1, step=link.pump)
    assert wait_until(lambda: len(watcher.on("/reply")) == 6, step=link.pump)
    answered = {
        json.loads(payload)["request_id"]: topic
        for topic, payload, _ in list(watcher.messages)
        if "/reply" in topic
    }
    assert answered == {f"r{n}": "dealtable/t1/reply" for n in range(6)} | {
        "r6": "dealtable/t1/reply/ana"
    }


def test_a_broker_outage_mid_deal_loses_nothing(
    tmp_path: Path, broker: Broker, watcher: Watcher
) -> None:
    """The broker stopped mid-deal, long enough for the table to try it again and again in
    vain, and started again: every event delivered afterwards."""
    service, link, journal = make_service(tmp_path, broker.port)
    link.start()
    assert wait_until(lambda: link.connected, step=link.pump)
    simulated = SimulatedTable(service, seed=3)
    for _ in range(15):
        simulated.step()
        link.pump()
    broker.stop()
    for _ in range(20):  # the table deals on while the broker is away
        simulated.step()
        link.pump()
    assert wait_until(lambda: not link.connected, step=link.pump)
    outage_started = journal.last_seq
    tried = link.connect_failures
    # Away for as long as two tries to reach it again take (their waits grow: 1 s, 2 s, ...).
    assert wait_until(lambda: link.connect_failures >= tried + 2, timeout=20, step=link.pump)
    broker.start()
    while service.state.phase.value != "finished":
        simulated.step()
        link.pump()
    assert wait_until(lambda: link.connected, step=link.pump)
    assert link.flush(timeout=30)
    assert wait_until(
        lambda: {e["seq"] for e in watcher.events()} >= set(range(1, journal.last_seq + 1)),
        step=link.pump,
    ), f"missing after the outage from {outage_started}"
    link.stop()
    journal.close()


def test_a_new_journal_for_the_table_is_told_apart_from_the_old_by_its_events(
    tmp_path: Path, broker: Broker, watcher: Watcher
) -> None:
    """After damage the table starts a new journal, at seq 1 again: every event names its
    journal, so a subscriber dropping repeats by journal and seq drops none of the new."""
    named = []
    for folder in ("first", "second"):
        (tmp_path / folder).mkdir()
        service, link, journal = make_service(tmp_path / folder, broker.port)
        link.start()
        assert wait_until(lambda: link.connected, step=link.pump)  # noqa: B023
        simulated = SimulatedTable(service, seed=3)
        for _ in range(5):
            simulated.step()
            link.pump()
        assert link.flush(timeout=30)
        named.append(((journal.first_hash() or "")[:16], journal.last_seq))
        link.stop()
        journal.close()
    (first, first_count), (second, second_count) = named
    assert first != second
    wanted = {(first, seq) for seq in range(1, first_count + 1)}
    wanted |= {(second, seq) for seq in range(1, second_count + 1)}
    assert wait_until(lambda: set(watcher.journal_and_seq()) >= wanted)
    assert set(watcher.journal_and_seq()) == wanted
    assert wait_until(lambda: watcher.journals_on("/state")[-1:] == [second])


def test_a_broker_out_of_reach_is_told_once_an_outage_and_the_outbox_waits(
    tmp_path: Path, broker: Broker, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="dealtable.mqtt")

    def said(level: int) -> list[str]:
        return [r.getMessage() for r in caplog.records if r.levelno == level]

    address = f"127.0.0.1:{broker.port}"
    broker.stop()  # nobody listens on its port
    service, link, journal = make_service(tmp_path, broker.port, reconnect_delay=(1, 1))
    link.start()
    assert wait_until(lambda: link.connect_failures >= 2, step=link.pump)
    assert said(logging.WARNING) == [
        f"cannot reach the broker at {address}: connection refused (is the broker running and "
        "listening on this port?); retrying, the events wait in the journal"
    ]
    opening = journal.last_seq
    broker.start()
    assert wait_until(lambda: link.connected, step=link.pump)
    assert said(logging.INFO)[-1] == (
        f"connected to the broker at {address}; publishing {opening} events from the journal"
    )
    assert link.flush(timeout=30)

    broker.stop()
    assert wait_until(lambda: not link.connected, step=link.pump)
    failures = link.connect_failures
    assert wait_until(lambda: link.connect_failures > failures, step=link.pump)
    told = said(logging.WARNING)[1:]
    assert len(told) == 1 and told[0].startswith(f"lost the broker at {address}: "), told
    simulated = SimulatedTable(service, seed=3)
    for _ in range(5):
        simulated.step()
    assert not link.flush(timeout=10)  # out of reach: it does not wait
    waiting = journal.last_seq - opening
    link.stop()
    assert said(logging.WARNING)[-1] == (
        f"{waiting} events not yet acknowledged by the broker (up to event {journal.last_seq}): "
        "they stay in the journal's outbox and go out at the next start"
    )
    journal.close()

    broker.start()
    watcher = Watcher(broker.port, "dealtable/t1/events")
    assert watcher.connected.wait(30)
    service, link, journal = make_service(tmp_path, broker.port)
    link.start()
    assert link.flush(timeout=30)
    left_over = set(range(opening + 1, journal.last_seq + 1))
    assert wait_until(lambda: {event["seq"] for event in watcher.events()} >= left_over)
    link.stop()
    journal.close()
    watcher.close()


def _raw_ask(watcher: Watcher, link: MqttLink, verb: str, payload: bytes) -> dict[str, Any]:
    before = len(watcher.on("/reply"))
    watcher.client.publish(f"dealtable/t1/cmd/{verb}", payload, qos=1).wait_for_publish(5)
    assert wait_until(lambda: len(watcher.on("/reply")) > before, step=link.pump)
    reply: dict[str, Any] = json.loads(watcher.on("/reply")[-1])
    return reply


def test_a_malformed_or_outsized_command_is_answered_and_the_table_deals_on(
    table: tuple[TableService, MqttLink, Journal], watcher: Watcher
) -> None:
    """Payloads that break a JSON parser (arrays nested thousands deep, a number of
    thousands of digits) or that are far too long for a command: an error each, short,
    and the table goes on taking commands with nothing changed."""
    service, link, journal = table
    open_deal(service)
    last = journal.last_seq
    malformed = {
        b"[" * 100_000 + b"]" * 100_000: "too long for a command",
        # Refused before it is parsed: a thousand deep, the parser's own recursion fails,
        # and objects finalized that deep fail in their turn.
        b"[" * 2_000 + b"]" * 2_000: "not a JSON object a command could be: 2000 brackets",
        b'{"request_id": "d", "amount": ' + b"9" * 5_000 + b"}": "too long for a command",
        json.dumps({"request_id": "big", "punter": "x" * 50_000}).encode(): "too long",
    }
    for payload, message in malformed.items():
        reply = _raw_ask(watcher, link, "bet", payload)
        assert reply["ok"] is False and message in reply["error"], reply
        assert len(json.dumps(reply)) < 1_000
    assert journal.last_seq == last
    reply = _ask(
        watcher, link, "bet", {"request_id": "ok", "punter": "anna", "spot": "9", "amount": 4}
    )
    assert reply["ok"] is True
    assert [bet.stake for bet in service.state.bets.values()] == [4]


def test_a_misspelt_field_is_refused_not_ignored(
    table: tuple[TableService, MqttLink, Journal], watcher: Watcher
) -> None:
    service, link, journal = table
    open_deal(service)
    service.execute_line("bet anna 9 4")
    last = journal.last_seq
    for verb, payload, named in (
        ("bet", {"punter": "anna", "spot": "9", "amount": 2, "coppered": True}, "'coppered'"),
        ("withdraw", {"punter": "anna", "spot": "9", "amuont": 2}, "'amuont'"),
    ):
        reply = _ask(watcher, link, verb, {"request_id": f"r-{verb}", **payload})
        assert reply["ok"] is False and f"unknown field {named}" in reply["error"], reply
    assert journal.last_seq == last
    assert [bet.stake for bet in service.state.bets.values()] == [4]


def test_a_password_sent_to_a_broker_across_the_network_without_tls_is_warned_of() -> None:
    """The table's and the croupiers' passwords go to the broker as the config says; to one
    on another machine without TLS they cross the network readable: `config check` and the
    start of `run` say so."""
    from table.service.config import TlsConfig, WebConfig, config_warnings

    page = WebConfig(host="127.0.0.1", croupier_username="dealer")
    for host, tls, web, warned in (
        ("192.0.2.10", None, page, "the table's and each croupier's password"),
        ("broker.example", None, None, "the table's password"),
        ("127.0.0.1", None, page, ""),
        ("localhost", None, page, ""),
        ("192.0.2.10", TlsConfig(), page, ""),  # the system's certificate authorities
    ):
        mqtt_config = MqttConfig(host=host, username="table-t1", password="s3cret", tls=tls)
        config = Config(table=TableConfig(id="t1"), mqtt=mqtt_config, web=web)
        said = [line for line in config_warnings(config) if "in the clear" in line]
        assert len(said) == (1 if warned else 0), (host, said)
        assert all(warned in line and "s3cret" not in line for line in said), said


def test_a_withdrawal_names_one_call_by_its_order_as_the_table_language_does() -> None:
    payload = {"punter": "ann", "spot": "call", "order": ["J", "7", "3"], "amount": 1}
    assert command_from_payload("withdraw", payload) == parse_line("withdraw ann call J 7 3 1")
    with pytest.raises(CommandError, match="cmd/withdraw: field 'order' must be three ranks"):
        command_from_payload("withdraw", {"punter": "ann", "spot": "call", "order": ["J"]})


def test_every_dealer_action_of_the_table_language_has_its_verb() -> None:
    """A croupier's tablet runs a baccarat table over MQTT as the console does: the bank
    announced, the banker chosen, a hand standing at 5, the cut card and an empty shoe, an
    unread card, a rules change; and a coppered bet moved, as `move` says."""
    for verb, payload, line in (
        ("stand", {}, "stand"),
        ("cut", {}, "cut"),
        ("empty", {}, "empty"),
        ("unread", {}, "unread"),
        ("bank", {"amount": 100}, "bank 100"),
        ("banker", {"banker": "bea"}, "banker bea"),
        ("rules", {"rules": "casino", "options": {"decks": 8}}, "rules casino decks=8"),
        ("rules", {"rules": "standard", "options": {"pair_bets": True}},
         "rules standard pair_bets=true"),
        ("move", {"punter": "ann", "from": "9", "to": "10", "copper": True},
         "move ann 9 10 copper"),
        # 003: a punter's marks and chips on one spot are taken back or moved apart
        ("move", {"punter": "ann", "from": "9", "to": "10", "mark": True},
         "move ann 9 10 mark"),
        ("withdraw", {"punter": "ann", "spot": "9", "amount": 2, "mark": False},
         "withdraw ann 9 2 chips"),
    ):  # fmt: skip
        assert command_from_payload(verb, payload) == parse_line(line), verb
    with pytest.raises(CommandError, match="cmd/rules: option 'decks' must be text"):
        command_from_payload("rules", {"rules": "casino", "options": {"decks": [8]}})
    with pytest.raises(CommandError, match="cmd/bank: field 'amount' is missing"):
        command_from_payload("bank", {})


def test_a_chemin_de_fer_coup_is_dealt_with_its_choices_given_over_mqtt(
    tmp_path: Path, broker: Broker, watcher: Watcher
) -> None:
    """The representative punter's choice at 5 comes from the tablet: the coup goes on. The
    first two cards of each hand lie face down (002): the events topic names none of them
    while they do, as a punter's device could read the banker's hand before the choice; the
    journal keeps them, and the coup's result shows them."""
    config = players_bank_config(tmp_path / "journal.sqlite", "t1")
    service, link, journal = service_on_broker(config, broker.port)
    link.start()
    try:
        # The link says online once it has subscribed to the commands.
        assert wait_until(lambda: watcher.on("/status")[-1:] == [b"online"], step=link.pump)
        commands = [
            ("punter", {"punter": "bea", "bankroll": 500}),
            ("punter", {"punter": "ana", "bankroll": 500}),
            ("punter", {"punter": "ben", "bankroll": 500}),
            ("shuffle", {}),
            ("bank", {"amount": 100}),
            ("bet", {"punter": "ana", "spot": "player", "amount": 40}),
            ("lock", {}),
        ]
        for number, (verb, payload) in enumerate(commands):
            reply = _ask(watcher, link, verb, {"request_id": f"c{number}", **payload})
            assert reply["ok"] is True, (verb, reply)
        for card in ("2H", "3C", "3D", "JC"):  # player 5: the choice is the punter's
            service.execute_line(f"card {card}")
        service.execute_line("correct JD")  # a misread: neither names the banker's card

        def hands() -> list[list[str | None]]:
            states = watcher.on("/state")
            return json.loads(states[-1])["hands"] if states else []

        # Face down at the table, face down in the retained state a screen may show.
        assert wait_until(lambda: hands() == [[None, None], [None, None]], step=link.pump)
        reply = _ask(watcher, link, "stand", {"request_id": "choice"})
        assert reply["ok"] is True, reply
        service.execute_line("card 5S")  # banker 3 draws a 5 against a player who stood

        def results() -> list[dict[str, Any]]:
            return [e for e in watcher.events() if e["type"] == "coup_result"]

        assert wait_until(results, step=link.pump)
        assert results()[0]["winner"] == "banker"
        assert results()[0]["hands"] == {"player": ["2H", "3D"], "banker": ["3C", "JD", "5S"]}
        assert wait_until(lambda: hands() == [["2H", "3D"], ["3C", "JD", "5S"]], step=link.pump)
        corrections = [e for e in watcher.events() if e["type"] == "dealer_correction"]
        assert [(e["card"], e["replacement"], e["face_down"]) for e in corrections] == [
            (None, None, True)
        ]
        published = [
            (e["role"], e["card"], e.get("face_down", False))
            for e in watcher.events()
            if e["type"] == "card_dealt"
        ]
        assert published == [
            ("player", None, True),
            ("banker", None, True),
            ("player", None, True),
            ("banker", None, True),
            ("banker", None, True),
            ("banker", "5S", False),
        ]
        journaled = [
            (e.card.code, e.face_down) for e in journal.events() if isinstance(e, CardDealt)
        ]
        assert journaled == [
            ("2H", True), ("3C", True), ("3D", True), ("JC", True), ("JD", True), ("5S", False)
        ]  # fmt: skip
    finally:
        link.stop()
        journal.close()


def _one_deck_chemin_de_fer_coup(
    tmp_path: Path, broker: Broker, watcher: Watcher, table_id: str = "t1"
) -> tuple[TableService, MqttLink, Journal]:
    """A Chemin de Fer table with a one-deck shoe on the broker, bea's bank of 100 faded by
    ana's 40 on the player, the coup's bets locked."""
    config = players_bank_config(
        tmp_path / "journal.sqlite", table_id, punters=("bea", "ana", "ben")
    )
    table = dataclasses.replace(config.table, options={"burn": "none", "decks": "1"})
    service, link, journal = service_on_broker(
        dataclasses.replace(config, table=table), broker.port
    )
    link.start()
    assert wait_until(lambda: watcher.on(f"/{table_id}/status")[-1:] == [b"online"], step=link.pump)
    for line in ("shuffle", "bank 100", "bet ana player 40", "lock"):
        service.execute_line(line)
    return service, link, journal


def _said_before_the_result(watcher: Watcher, link: MqttLink) -> str:
    """Everything the table published on its events and reply topics until the coup's
    result, as one text."""
    assert wait_until(
        lambda: any(e["type"] == "coup_result" for e in watcher.events()), step=link.pump
    )
    said = []
    for topic, payload, _ in list(watcher.messages):
        if topic.endswith("/events") and json.loads(payload)["type"] == "coup_result":
            break
        if topic.endswith(("/events", "/reply")):
            said.append(payload.decode())
    return "\n".join(said)


def test_a_face_down_card_the_dealer_names_or_corrects_at_an_alarm_is_not_published(
    tmp_path: Path, broker: Broker, watcher: Watcher
) -> None:
    """002: the dealer names a card the reader could not read, and corrects one an alarm
    stopped, both for a hand dealt face down: the alarm's clearing goes on the events topic
    without the card, which the coup's result shows."""
    service, link, journal = _one_deck_chemin_de_fer_coup(tmp_path, broker, watcher)
    try:
        service.execute_line("card 2H")
        service.execute_line("card 3C")
        service.execute_line("unread")  # the reader saw the player's second card, unread
        service.execute_line("card 4H")  # the dealer names it
        service.execute_line("card 2H")  # a one-deck shoe holds one 2♥: an alarm
        service.execute_line("correct KD")  # the banker's second card, read wrong
        service.execute_line("stand")  # the player's "non" on 6
        service.execute_line("stand")  # banker 3 stands against it
        said = _said_before_the_result(watcher, link)
        assert "4H" not in said and "KD" not in said, said
        (shown,) = [e for e in watcher.events() if e["type"] == "coup_result"]
        assert shown["hands"] == {"player": ["2H", "4H"], "banker": ["3C", "KD"]}
        kept = [e.card.code for e in journal.events() if isinstance(e, CardDealt)]
        assert kept == ["2H", "3C", "4H", "KD"]  # the journal keeps what the topic did not
    finally:
        link.stop()
        journal.close()


def test_a_punters_command_refused_at_an_alarm_on_a_face_down_card_does_not_name_it(
    tmp_path: Path, broker: Broker, watcher: Watcher
) -> None:
    """002: a betting terminal's bet, refused while an alarm on a card dealt face down waits,
    is told why on the reply topic every terminal reads, without the alarm's words, which
    name a card the player holds face down."""
    service, link, journal = _one_deck_chemin_de_fer_coup(tmp_path, broker, watcher)
    try:
        service.execute_line("card 2H")
        service.execute_line("card 3C")
        service.execute_line("card 2H")  # a one-deck shoe holds one 2♥: the player's first
        payload = {"request_id": "b1", "punter": "ben", "spot": "player", "amount": 10}
        reply = _ask(watcher, link, "bet", payload)
        assert reply["ok"] is False
        assert "alarm 1 waits for the dealer" in reply["error"]
        assert "2H" not in reply["error"], reply
        withdrawal = _ask(
            watcher, link, "withdraw", {"request_id": "w1", "punter": "ana", "spot": "player"}
        )
        assert withdrawal["ok"] is False and "2H" not in withdrawal["error"], withdrawal
    finally:
        link.stop()
        journal.close()


def test_a_readers_word_on_the_last_card_dealt_face_down_is_not_published(
    tmp_path: Path, broker: Broker, watcher: Watcher
) -> None:
    """002: the camera, seeing the banker's second card again once the first four are out,
    says so naming it; the next card is a third card, dealt face up, but the banker's lies
    face down: the events topic carries the notice without the reader's words."""
    service, link, journal = _one_deck_chemin_de_fer_coup(tmp_path, broker, watcher)
    try:
        for card in ("2H", "3C", "3D", "KD"):  # player 5 chooses; banker 3 face down
            service.execute_line(f"card {card}")
        service.reader_notice(
            "camera",
            ReaderNoticeKind.SEEN_BEFORE,
            "KD was already dealt as card 4 of this deal: a second sighting is not a new "
            "card; check the box",
        )
        service.execute_line("stand")  # the player stands on 5
        service.execute_line("card 5S")  # banker 3 draws
        said = _said_before_the_result(watcher, link)
        assert "KD" not in said, said
        notices = [e for e in watcher.events() if e["type"] == "reader_notice"]
        assert [e["face_down"] for e in notices] == [True]
    finally:
        link.stop()
        journal.close()


def test_the_events_topic_tells_a_stand_on_5_as_it_tells_a_stand_on_6(
    tmp_path: Path, broker: Broker, watcher: Watcher
) -> None:
    """002: the representative stands on 5 by choice, or on 6 as the tableau makes it, and
    the room hears "no" either way. On the events topic the two stands are alike: a banker
    reading it cannot tell the 5 from the 6 before deciding."""
    service, link, journal = _one_deck_chemin_de_fer_coup(tmp_path, broker, watcher)
    try:
        for line in ("card 2H", "card 3C", "card 3D", "card JC", "stand", "card 4S"):
            service.execute_line(line)  # player 5 stands by choice; banker 3 draws
        for line in ("bet ana player 40", "lock", "card 2S", "card 3S", "card 4H", "card JD"):
            service.execute_line(line)  # player 6 stands, as the tableau makes it
        service.execute_line("card 5H")  # banker 3 draws
        assert wait_until(
            lambda: sum(e["type"] == "coup_result" for e in watcher.events()) == 2,
            step=link.pump,
        )
        told = [
            {key: value for key, value in event.items() if key not in ("seq", "at", "deal")}
            for event in watcher.events()
            if event["type"] == "third_card_choice"
        ]
        stands = [event for event in told if event["hand"] == "player"]
        assert len(stands) == 2 and stands[0] == stands[1], told
        assert stands[0]["draws"] is False and stands[0]["total"] is None
        kept = [
            (e.total, e.forced)
            for e in journal.events()
            if isinstance(e, ThirdCardChoice) and e.hand == "player"
        ]
        assert kept == [(5, False), (6, True)]  # the journal keeps what the topic did not
    finally:
        link.stop()
        journal.close()


def test_the_room_cannot_tell_a_stand_on_5_from_one_on_6_by_when_it_is_told(
    tmp_path: Path, broker: Broker
) -> None:
    """002: the player says "non" on 5 by choice and on 6 as the tableau makes him, and the
    dealer keys it either way. A forced stand told at the banker's second card, with that
    card's time, would let a banker reading the events topic tell the 6 from the 5 before
    deciding: both stands are told at the dealer's ``stand``, with its time, in the same
    place among the coup's events; and while the table waits for the word the retained
    state is the same."""
    room = Watcher(broker.port, "dealtable/+/#")
    assert room.connected.wait(30)

    def published(table_id: str, topic: str) -> list[dict[str, Any]]:
        return [json.loads(body) for body in room.on(f"/{table_id}/{topic}")]

    def stand_on(table_id: str, second: str) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        """The coup's public events up to its result, and the retained state while the
        table waits for the player's word."""
        folder = tmp_path / table_id
        folder.mkdir()
        service, link, journal = _one_deck_chemin_de_fer_coup(folder, broker, room, table_id)
        try:
            for at, card in zip((10.0, 11.0, 12.0, 13.0), ("2H", "3C", second, "JC"), strict=True):
                service.card(Card.parse(card), at=at)  # banker 3
            last = journal.last_seq
            assert wait_until(
                lambda: [state["seq"] for state in published(table_id, "state")][-1:] == [last],
                step=link.pump,
            )
            waiting = published(table_id, "state")[-1]
            service.clock = lambda: 20.0
            service.execute_line("stand")  # the player's "non"
            service.card(Card.parse("5S"), at=30.0)  # banker 3 draws
            assert wait_until(
                lambda: any(e["type"] == "coup_result" for e in published(table_id, "events")),
                step=link.pump,
            )
        finally:
            link.stop()
            journal.close()
        events = published(table_id, "events")
        first = next(index for index, e in enumerate(events) if e["type"] == "card_dealt")
        end = next(index for index, e in enumerate(events) if e["type"] == "coup_result")
        told = [{k: v for k, v in e.items() if k != "table"} for e in events[first:end]]
        return told, {k: v for k, v in waiting.items() if k != "table"}

    try:
        told, waiting = {}, {}
        for table_id, second in (("five", "3D"), ("six", "4D")):  # 2H + 3D: 5; 2H + 4D: 6
            told[table_id], waiting[table_id] = stand_on(table_id, second)
    finally:
        room.close()
    assert told["five"] == told["six"], told
    assert [
        (e["hand"], e["draws"], e["total"], e["at"])
        for e in told["six"]
        if e["type"] == "third_card_choice"
    ] == [("player", False, None, 20.0), ("banker", True, None, 30.0)]
    assert waiting["five"] == waiting["six"], waiting


def test_a_retained_command_is_not_carried_out_again_at_a_reconnect(
    tmp_path: Path, broker: Broker, watcher: Watcher
) -> None:
    """A command left retained on the broker is judged once, when it is sent; a restart
    does not bring it back to be carried out long after its sender stopped waiting."""
    service, link, journal = make_service(tmp_path, broker.port)
    link.start()
    assert wait_until(lambda: link.connected, step=link.pump)
    service.execute_line("punter anna 100")
    bet = {"request_id": "kept", "punter": "anna", "spot": "9", "amount": 4}
    watcher.client.publish(
        "dealtable/t1/cmd/bet", json.dumps(bet), qos=1, retain=True
    ).wait_for_publish(5)
    assert wait_until(lambda: watcher.on("/reply"), step=link.pump)
    assert "start a new deck" in json.loads(watcher.on("/reply")[-1])["error"]
    for line in ("shuffle", "card 2C"):  # bets are open now
        service.execute_line(line)
    link.stop()
    journal.close()

    service, link, journal = make_service(tmp_path, broker.port)
    link.start()
    assert wait_until(lambda: link.connected, step=link.pump)
    reply = _ask(
        watcher, link, "bet", {"request_id": "now", "punter": "anna", "spot": "5", "amount": 2}
    )
    assert reply["ok"] is True
    assert [json.loads(body)["request_id"] for body in watcher.on("/reply")] == ["kept", "now"]
    assert [(bet.spot.text, bet.stake) for bet in service.state.bets.values()] == [("5", 2)]
    link.stop()
    journal.close()


def test_a_command_the_service_had_not_carried_out_when_it_died_comes_again(
    tmp_path: Path, broker: Broker, watcher: Watcher
) -> None:
    """The broker hears the command acknowledged only once it is journaled: a service
    killed between delivery and carrying it out gets it again when it is back."""
    service, link, journal = make_service(tmp_path, broker.port)
    link.start()
    assert wait_until(lambda: link.connected, step=link.pump)
    open_deal(service)
    link.pump()
    watcher.publish(
        "dealtable/t1/cmd/bet",
        {"request_id": "late", "punter": "anna", "spot": "9", "amount": 4},
    )
    assert wait_until(lambda: any(isinstance(item, _Incoming) for item in link._queue.queue))
    # Killed: the network loop stops and the socket closes with no DISCONNECT.
    link.client.loop_stop()
    socket = link.client.socket()
    assert socket is not None
    socket.close()
    journal.close()

    service, link, journal = make_service(tmp_path, broker.port)
    link.start()
    assert wait_until(lambda: service.state.bets != {}, step=link.pump)
    assert [bet.stake for bet in service.state.bets.values()] == [4]
    assert wait_until(lambda: any(b'"late"' in reply for reply in watcher.on("/reply")))
    link.stop()
    journal.close()


def test_saying_offline_leaves_the_services_session_and_its_commands_alone(
    tmp_path: Path,
) -> None:
    """A broker that names each client by its account (hw/mosquitto's TLS listener does) makes
    the refused start's 'offline' the service's own session: a command queued in it while
    the service was down still reaches the service once it starts."""
    from table.service.mqtt import say_offline
    from tests.conftest import ACCOUNTS, broker_folder

    directory, passwords = broker_folder(tmp_path)
    broker = Broker(
        directory,
        extra_config=(
            f"allow_anonymous false\npassword_file {passwords}\nuse_username_as_clientid true\n"
        ),
    )
    broker.start()
    mqtt_config = MqttConfig(
        host="127.0.0.1",
        port=broker.port,
        username="table-faro-1",
        password=ACCOUNTS["table-faro-1"],
    )
    config = Config(
        table=TableConfig(id="t1", journal=str(tmp_path / "journal.sqlite")),
        reader=ReaderConfig(kind="simulated", seed=3, cards_per_second=0),
        mqtt=mqtt_config,
    )
    dealer = Watcher(broker.port, "dealtable/t1/reply", "dealer", ACCOUNTS["dealer"])
    try:
        journal = Journal(config.table.journal, "t1")
        service = TableService(config, journal)
        link = MqttLink(mqtt_config, "t1", service, journal)
        link.start()
        assert wait_until(lambda: link.connected, step=link.pump)
        open_deal(service)
        link.stop()  # the service is down; its session stays on the broker
        journal.close()
        assert dealer.connected.wait(30)
        dealer.publish(
            "dealtable/t1/cmd/bet",
            {"request_id": "queued", "punter": "anna", "spot": "9", "amount": 4},
        )
        assert say_offline(mqtt_config, "t1")
        journal = Journal(config.table.journal, "t1")
        service = TableService(config, journal)
        link = MqttLink(mqtt_config, "t1", service, journal)
        link.start()
        assert wait_until(lambda: service.state.bets != {}, step=link.pump)
        assert [bet.stake for bet in service.state.bets.values()] == [4]
        link.stop()
        journal.close()
    finally:
        dealer.close()
        broker.stop()


def test_stopping_after_the_broker_went_leaves_no_thread_behind(
    tmp_path: Path, broker: Broker
) -> None:
    _, link, journal = make_service(tmp_path, broker.port)
    link.start()
    assert wait_until(lambda: link.connected, step=link.pump)
    broker.stop()
    assert wait_until(lambda: link.client.socket() is None)
    link.stop()  # the loss not yet pumped: link.connected still says True
    assert not any(
        thread.name.startswith("paho-mqtt-client-table-t1") for thread in threading.enumerate()
    )
    journal.close()


def test_events_the_broker_refuses_stay_in_the_outbox_and_the_refusal_is_logged(
    tmp_path: Path, secured_broker: Broker, caplog: pytest.LogCaptureFixture
) -> None:
    """A second table set up with the first one's account: the access list refuses its
    topics. Its events are not counted as delivered, and the operator is told why."""
    config = second_table_with_first_tables_account(tmp_path, secured_broker.port)
    journal = Journal(config.table.journal, "faro-2")
    service = TableService(config, journal)
    assert config.mqtt is not None
    link = MqttLink(config.mqtt, "faro-2", service, journal)
    caplog.set_level(logging.INFO, logger="dealtable.mqtt")
    link.start()
    assert wait_until(lambda: link.connected, step=link.pump)
    service.execute_line("punter anna 100")
    assert not link.flush(3.0)
    assert link.unacknowledged == journal.last_seq and journal.cursor("mqtt") == 0
    assert "refused event 1 on dealtable/faro-2/events (Not authorized)" in caplog.text
    link.stop()
    journal.close()


def test_a_command_journaled_just_before_the_service_died_is_not_carried_out_again(
    tmp_path: Path, broker: Broker, watcher: Watcher
) -> None:
    """The service journals the bet and dies before the broker hears it acknowledged: the
    broker delivers it again to the restarted service, which knows its request id from the
    same transaction as the bet's events, and places nothing twice."""
    service, link, journal = make_service(tmp_path, broker.port)
    link.start()
    assert wait_until(lambda: link.connected, step=link.pump)
    open_deal(service)
    # The process dies right after the bet's events are written: nothing it would do next
    # reaches the journal or the broker.
    journal.remember_request = lambda request_id, seq: None  # type: ignore[method-assign]
    link.client.ack = lambda mid, qos: mqtt.MQTT_ERR_SUCCESS
    _ask(watcher, link, "bet", {"request_id": "once", "punter": "anna", "spot": "9", "amount": 4})
    link.client.loop_stop()
    socket = link.client.socket()
    assert socket is not None
    socket.close()
    journal.close()

    with Journal(str(tmp_path / "journal.sqlite"), "t1") as reopened:
        assert reopened.request_seq("once") == reopened.last_seq
        reopened_last = reopened.last_seq
    service, link, journal = make_service(tmp_path, broker.port)
    link.start()
    assert wait_until(lambda: len(watcher.on("/reply")) >= 2, step=link.pump)
    again = json.loads(watcher.on("/reply")[-1])
    # Carried out before the process died: told so, and not carried out again.
    assert again == {
        "request_id": "once",
        "ok": True,
        "seqs": [reopened_last],
        "repeat": True,
    }
    assert [bet.stake for bet in service.state.bets.values()] == [4]
    link.stop()
    journal.close()


def test_a_broker_that_drops_the_connection_before_accepting_it_is_told_once(
    tmp_path: Path, example_certs: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """[mqtt] port names a TLS listener and [mqtt.tls] is missing: the broker drops the
    plain connection at once, every retry; the operator is told once why, not never."""
    caplog.set_level(logging.INFO, logger="dealtable.mqtt")
    port = free_port()
    tls_only = Broker(
        tmp_path / "broker",
        port=port,
        whole_config=(
            f"listener {port} 127.0.0.1\n"
            f"certfile {example_certs / 'server.crt'}\n"
            f"keyfile {example_certs / 'server.key'}\n"
            "allow_anonymous true\n"
        ),
    )
    tls_only.directory.mkdir()
    tls_only.start()
    try:
        _, link, journal = make_service(tmp_path, port, reconnect_delay=(1, 1))
        link.start()
        assert wait_until(lambda: link.connect_failures >= 2, step=link.pump)
        link.stop()
        journal.close()
    finally:
        tls_only.stop()
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert warnings[0] == (
        f"the broker at 127.0.0.1:{port} closed the connection before accepting it (the "
        "connection dropped; a TLS listener does that to a client without [mqtt.tls]); "
        "retrying, the events wait in the journal"
    )
    assert not any("closed the connection" in warning for warning in warnings[1:])


def refusals_told(
    tmp_path: Path, config: MqttConfig, caplog: pytest.LogCaptureFixture, tries: int
) -> list[str]:
    """What table faro-1's link logs of the broker refusing it, once it has tried ``tries``
    times to connect with ``config``."""
    caplog.set_level(logging.INFO, logger="dealtable.mqtt")
    journal = Journal(tmp_path / "j.sqlite", "faro-1")
    service = TableService(Config(table=TableConfig(id="faro-1"), mqtt=config), journal)
    link = MqttLink(config, "faro-1", service, journal, reconnect_delay=(1, 1))
    link.start()
    assert wait_until(lambda: link.connect_failures >= tries, step=link.pump)
    link.stop()
    journal.close()
    return [r.getMessage() for r in caplog.records if "refused" in r.getMessage()]


def test_a_broker_that_refuses_the_account_is_told_once(
    tmp_path: Path, secured_broker: Broker, caplog: pytest.LogCaptureFixture
) -> None:
    config = MqttConfig(
        host="127.0.0.1", port=secured_broker.port, username="table-faro-1", password="wrong"
    )
    assert refusals_told(tmp_path, config, caplog, tries=2) == [
        f"the broker at 127.0.0.1:{secured_broker.port} refused the account table-faro-1: Not "
        "authorized (the password in [mqtt] password_file, or [mqtt] password, must be the "
        "one the broker's password file holds for that account: "
        "hw/mosquitto/make-passwords.sh); retrying, the events wait in the journal"
    ]


def test_a_broker_that_refuses_a_table_with_no_account_says_the_table_logs_in_with_none(
    tmp_path: Path, secured_broker: Broker, caplog: pytest.LogCaptureFixture
) -> None:
    config = MqttConfig(host="127.0.0.1", port=secured_broker.port)
    assert refusals_told(tmp_path, config, caplog, tries=1) == [
        f"the broker at 127.0.0.1:{secured_broker.port} refused the table, which logs in "
        "with no account: Not authorized (set [mqtt] username and password_file); "
        "retrying, the events wait in the journal"
    ]


def test_records_are_archived_only_once_the_outbox_has_sent_them(
    tmp_path: Path, broker: Broker
) -> None:
    """The broker is away from the table's first start: nothing is archived while the
    outbox has sent nothing, and once the broker is there every record goes out from the
    first, the outbox catches up and records move to archives again."""
    import dataclasses

    broker.stop()
    service, link, journal = make_service(tmp_path, broker.port, reconnect_delay=(1, 1))
    service.config = dataclasses.replace(
        service.config, table=dataclasses.replace(service.config.table, archive_every=300)
    )
    link.start()
    simulated = SimulatedTable(service, seed=3)
    try:
        for _ in range(300):  # some 1,100 records, archiving due from the fourth deck
            simulated.step()
            link.pump()
        assert journal.first_seq == 1
        broker.start()
        watcher = Watcher(broker.port, "dealtable/t1/events")
        assert watcher.connected.wait(30)
        assert wait_until(lambda: link.connected, step=link.pump)
        assert link.flush(timeout=30)
        assert wait_until(lambda: len(watcher.events()) >= journal.last_seq, step=link.pump)
        assert sorted({event["seq"] for event in watcher.events()}) == list(
            range(1, journal.last_seq + 1)
        )
        while journal.first_seq == 1:
            simulated.step()
            link.pump()
        assert link.flush(timeout=30)
        assert link.unacknowledged == 0
        watcher.close()
    finally:
        link.stop()
        journal.close()


def test_an_outbox_added_to_an_archived_journal_sends_from_its_first_record(
    tmp_path: Path, broker: Broker, watcher: Watcher
) -> None:
    import dataclasses

    path = tmp_path / "journal.sqlite"
    config = Config(
        table=TableConfig(id="t1", journal=str(path), archive_every=300),
        reader=ReaderConfig(kind="simulated", seed=3, cards_per_second=0),
    )
    with Journal(path, "t1") as journal:
        simulated = SimulatedTable(TableService(config, journal), seed=3)
        for _ in range(500):
            simulated.step()
        first = journal.first_seq
    assert first > 1
    config = dataclasses.replace(
        config, mqtt=MqttConfig(host="127.0.0.1", port=broker.port, client_id="table-t1")
    )
    assert config.mqtt is not None
    journal = Journal(path, "t1")
    link = MqttLink(config.mqtt, "t1", TableService(config, journal), journal)
    link.start()
    try:
        assert wait_until(lambda: link.connected, step=link.pump)
        assert link.flush(timeout=30)
        assert link.unacknowledged == 0
        sent = list(range(first, journal.last_seq + 1))

        def seqs() -> list[int]:
            return sorted({event["seq"] for event in watcher.events() if "deal" in event})

        # Taken by the broker is not yet passed on to its subscriber: waited for.
        assert wait_until(lambda: seqs() == sent, step=link.pump), seqs()
    finally:
        link.stop()
        journal.close()


def test_an_outbox_place_not_kept_at_its_start_is_kept_once_the_journal_writes(
    tmp_path: Path,
) -> None:
    """A disk full as the service starts: the outbox's place is tried again at each pump,
    so that nothing it has not sent is ever archived for want of it."""
    from tests.test_service_readers import FullDisk

    config = Config(
        table=TableConfig(id="t1", journal=str(tmp_path / "journal.sqlite")),
        reader=ReaderConfig(kind="simulated", seed=3, cards_per_second=0),
        mqtt=MqttConfig(host="127.0.0.1", port=free_port(), client_id="table-t1"),
    )
    assert config.mqtt is not None
    with Journal(config.table.journal, "t1") as journal:
        service = TableService(config, journal)
        disk = FullDisk(journal._db)
        journal._db = disk
        link = MqttLink(config.mqtt, "t1", service, journal)
        link.pump()
        assert journal._db.execute("SELECT * FROM cursors").fetchall() == []
        disk.full = False
        link.pump()
        assert journal._db.execute("SELECT name, seq FROM cursors").fetchall() == [("mqtt", 0)]


def test_a_flood_of_commands_is_taken_a_few_at_a_time_in_order(
    table: tuple[TableService, MqttLink, Journal], watcher: Watcher
) -> None:
    """A client that sends without pause: each turn of the table's loop carries out at most
    COMMANDS_PER_PUMP of its commands, so cards and buttons are served between them; every
    command is answered, in the order sent."""
    service, link, _ = table
    open_deal(service)
    sent = 3 * COMMANDS_PER_PUMP + 5
    for number in range(sent):
        body = {"request_id": f"f{number}", "punter": "anna", "spot": "9", "amount": 1}
        watcher.client.publish("dealtable/t1/cmd/bet", json.dumps(body), qos=1)
    # The broker hands the link as many as it may hold unanswered; each one answered, it
    # sends the next at once, so the flood never ends while commands are being taken.
    assert wait_until(lambda: link._queue.qsize() >= COMMANDS_PER_PUMP)
    replies_before = len(watcher.on("/reply"))
    link.pump()
    assert len(service.state.bets) == 1  # one stack on 9
    assert next(iter(service.state.bets.values())).stake == COMMANDS_PER_PUMP
    assert wait_until(lambda: len(watcher.on("/reply")) >= replies_before + sent, step=link.pump)
    answered = [json.loads(reply)["request_id"] for reply in watcher.on("/reply")]
    assert answered[replies_before:] == [f"f{number}" for number in range(sent)]
    assert next(iter(service.state.bets.values())).stake == sent


def test_catching_up_after_an_outage_keeps_the_outbox_place_once_a_pump(
    tmp_path: Path, broker: Broker, watcher: Watcher, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each keeping of the outbox's place waits for the disk: catching up on an hour's
    events writes it once a turn of the table's loop, not once an event, and the place
    kept is the broker's last acknowledgement."""
    service, link, journal = make_service(tmp_path, broker.port)
    simulated = SimulatedTable(service, 3)
    while journal.last_seq < 600:
        simulated.step()
    writes: list[int] = []
    keep = journal.set_cursor
    monkeypatch.setattr(
        journal, "set_cursor", lambda name, seq: (writes.append(seq), keep(name, seq))
    )
    pumps = 0

    def pump() -> None:
        nonlocal pumps
        pumps += 1
        link.pump()

    link.start()
    try:
        assert wait_until(lambda: link.acked_seq == journal.last_seq, timeout=60, step=pump)
        pump()
        assert len(writes) <= pumps
        assert writes[-1] == journal.last_seq == journal.cursor(OUTBOX_CURSOR)
    finally:
        link.stop()
        journal.close()


def test_a_command_that_fails_unforeseen_is_answered_as_the_journal_says(
    table: tuple[TableService, MqttLink, Journal],
    watcher: Watcher,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A fault of the service's own: logged whole, and the sender told what the journal
    holds. A bet whose writing failed did not happen (the table goes back to its journal);
    one written before a display failed did. The next command is carried out as usual."""
    service, link, journal = table
    open_deal(service)
    append = journal.append

    def failing_append(events: Any, request_id: str | None = None) -> None:
        if request_id == "unwritten":
            raise RuntimeError("a fault no one foresaw")
        append(events, request_id)

    monkeypatch.setattr(journal, "append", failing_append)

    def failing_display(events: Any) -> None:
        raise RuntimeError("the screen went")

    bet = {"punter": "anna", "spot": "9", "amount": 4}
    with caplog.at_level(logging.ERROR, "dealtable"):
        refused = _ask(watcher, link, "bet", {"request_id": "unwritten", **bet})
    assert refused["ok"] is False and "a fault no one foresaw" in refused["error"]
    assert "Traceback" in caplog.text
    assert service.state.bets == {} and service.state.last_seq == journal.last_seq
    service.listeners.append(failing_display)
    with caplog.at_level(logging.ERROR, "dealtable"):
        shown = _ask(watcher, link, "bet", {"request_id": "shown", **bet, "amount": 3})
    service.listeners.remove(failing_display)
    assert "the screen went" in caplog.text
    assert shown == {"request_id": "shown", "ok": True, "seqs": [journal.last_seq]}
    assert [bet.stake for bet in service.state.bets.values()] == [3]
    reply = _ask(watcher, link, "bet", {"request_id": "fine", **bet})
    assert reply["ok"] is True
    assert [bet.stake for bet in service.state.bets.values()] == [7]


def test_a_refused_subscription_to_the_commands_is_logged(
    tmp_path: Path, broker: Broker, caplog: pytest.LogCaptureFixture
) -> None:
    """A broker that refuses the table's subscription (as an access list of some brokers
    does, where Mosquitto's grants it and drops the commands): no command would ever reach
    the table, and the operator is told why."""
    _, link, journal = make_service(tmp_path, broker.port)
    try:
        refused = ReasonCode(PacketTypes.SUBACK, "Not authorized")
        link.client.on_subscribe(link.client, None, 1, [refused], None)  # paho's call
        with caplog.at_level(logging.ERROR, "dealtable"):
            link.pump()
        assert "refused the table's subscription to dealtable/t1/cmd/+ (Not authorized)" in (
            caplog.text
        )
    finally:
        journal.close()


def test_what_the_broker_acknowledged_as_the_link_stops_is_kept(
    tmp_path: Path, broker: Broker
) -> None:
    """The acknowledgements that come between the last turn of the loop and the stop move
    the outbox's place in the journal too: a restart does not send those events again."""
    service, link, journal = make_service(tmp_path, broker.port)
    link.start()
    try:
        assert wait_until(lambda: link.acked_seq == journal.last_seq, step=link.pump)
        open_deal(service)
        link.pump()  # published, not yet acknowledged
        # The broker answers each of the three events and the state published after them.
        assert wait_until(lambda: link._queue.qsize() >= 4)
    finally:
        link.stop()
    assert journal.cursor(OUTBOX_CURSOR) == link.acked_seq == journal.last_seq
    journal.close()


def hang_the_brokers_lookup(
    monkeypatch: pytest.MonkeyPatch, *, answers_when_back: bool
) -> tuple[threading.Event, threading.Event]:
    """The lookup of broker.lookup-hangs.test hangs, the network down, until the second event
    is set (the network back): then it fails, or answers with this machine's address. The
    first event says a lookup has begun."""
    looking_up, network_back = threading.Event(), threading.Event()
    lookup = socket.getaddrinfo

    def hanging_lookup(host: Any, *args: Any, **kwargs: Any) -> Any:
        if host == "broker.lookup-hangs.test":
            looking_up.set()
            network_back.wait(30)
            if answers_when_back:
                return lookup("127.0.0.1", *args, **kwargs)
            raise socket.gaierror(socket.EAI_AGAIN, "Temporary failure in name resolution")
        return lookup(host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", hanging_lookup)
    return looking_up, network_back


def test_a_stop_while_the_brokers_name_lookup_hangs_ends_in_time_and_loses_nothing(
    tmp_path: Path,
    broker: Broker,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The network is down and the lookup of the broker's name hangs in paho's thread: the
    stop waits for it no longer than the link allows (systemd would kill a stop that hangs),
    says the link was abandoned, and the events the broker never had go out from the journal
    at the next start."""
    caplog.set_level(logging.INFO, logger="dealtable.mqtt")
    looking_up, network_back = hang_the_brokers_lookup(monkeypatch, answers_when_back=False)
    config = simulated_table(tmp_path)
    journal = Journal(config.table.journal, "t1")
    service = TableService(config, journal)
    mqtt_config = MqttConfig(host="broker.lookup-hangs.test", port=broker.port, client_id="t1")
    link = MqttLink(mqtt_config, "t1", service, journal)
    link.stop_wait_seconds = 0.2
    link.start()
    simulated = SimulatedTable(service, seed=3)
    for _ in range(5):
        simulated.step()
    assert looking_up.wait(30)
    stopping = threading.Thread(target=link.stop)
    stopping.start()
    stopping.join(5)  # the stop may take 0.2 s; the hung lookup, 30 s
    try:
        assert not stopping.is_alive(), "the stop waits for the hung lookup"
    finally:
        network_back.set()
    errors = [r.getMessage() for r in caplog.records if r.levelno == logging.ERROR]
    assert errors == [
        f"the link to the broker at broker.lookup-hangs.test:{broker.port} did not end within "
        "0.2 s (its network thread is stuck, in a name lookup or a connection with the network "
        "down): it is abandoned; the journal holds every event, and those the broker has not "
        "acknowledged go out from its outbox at the next start"
    ]
    last = journal.last_seq
    journal.close()

    watcher = Watcher(broker.port, "dealtable/t1/events")
    assert watcher.connected.wait(30)
    service, link, journal = service_on_broker(config, broker.port)
    link.start()
    assert link.flush(timeout=30)
    assert wait_until(lambda: {e["seq"] for e in watcher.events()} >= set(range(1, last + 1)))
    link.stop()
    journal.close()
    watcher.close()


def test_a_link_abandoned_in_a_hung_lookup_never_connects_when_the_lookup_comes_back(
    tmp_path: Path,
    broker: Broker,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A reload (SIGHUP) stops the link while paho's thread hangs in the broker's name
    lookup: the link is abandoned, and the new one connects under the same client id. When
    the old lookup comes back with the broker's address, the abandoned client does not
    connect: the new link keeps its session, and the table's status stays online."""
    caplog.set_level(logging.INFO, logger="dealtable.mqtt")
    looking_up, network_back = hang_the_brokers_lookup(monkeypatch, answers_when_back=True)
    config = simulated_table(tmp_path)
    journal = Journal(config.table.journal, "t1")
    service = TableService(config, journal)
    hung = MqttLink(
        MqttConfig(host="broker.lookup-hangs.test", port=broker.port, client_id="t1"),
        "t1",
        service,
        journal,
    )
    hung.stop_wait_seconds = 0.2
    hung.start()
    SimulatedTable(service, seed=3).step()
    assert looking_up.wait(30)
    abandoned = hung.client._thread
    assert abandoned is not None
    try:
        hung.stop()
        assert abandoned.is_alive() and "it is abandoned" in caplog.text
        status = Watcher(broker.port, "dealtable/t1/status")
        assert status.connected.wait(30)
        link = MqttLink(
            MqttConfig(host="127.0.0.1", port=broker.port, client_id="t1"), "t1", service, journal
        )
        link.start()
        assert wait_until(lambda: link.connected, step=link.pump)
        assert wait_until(lambda: status.on("/status")[-1:] == [b"online"])
    finally:
        network_back.set()
    abandoned.join(30)
    assert not abandoned.is_alive()
    # A round trip through the broker, after anything the abandoned client could have sent.
    probe = Watcher(broker.port, "probe/#")
    assert probe.connected.wait(30)
    probe.publish("probe/after", "after")
    assert wait_until(lambda: probe.on("probe/after") != [], step=link.pump)
    link.pump()
    assert link.connected and "lost the broker" not in caplog.text
    assert status.on("/status")[-1:] == [b"online"]
    link.stop()
    journal.close()
    for watching in (status, probe):
        watching.close()
