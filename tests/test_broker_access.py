"""hw/mosquitto's example setup (ACL, dealtable.conf, certificates) on a real Mosquitto: who may do
what at the table, and what the broker keeps."""

from __future__ import annotations

import contextlib
import json
import logging
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from table.service.config import Config, MqttConfig, TableConfig, TlsConfig, load_config
from table.service.journal import Journal
from table.service.mqtt import MqttLink
from table.service.table_service import TableService
from table.service.web import MqttCommandRelay
from tests.conftest import (
    ACCOUNTS,
    HW,
    ShippedBroker,
    broker_folder,
    make_password_file,
    relayed,
    secured,
)
from tests.mosquitto import Broker, free_port, mosquitto_binary, wait_until
from tests.test_service_mqtt import second_table_with_first_tables_account, with_faro_1_account


class Client:
    def __init__(
        self,
        port: int,
        user: str | None,
        client_id: str = "",
        topic: str = "dealtable/faro-1/reply",
        session_expiry: int = 0,  # seconds the broker keeps its session while it is away
        password: str | None = None,  # the example account's, if not given
        **tls: Any,
    ) -> None:
        self.connack: Any = None
        self.connected = threading.Event()
        self.subscribed = threading.Event()
        self.replies: list[dict[str, Any]] = []
        self.acks: dict[int, Any] = {}
        self.topic = topic
        self.client = mqtt.Client(
            CallbackAPIVersion.VERSION2, client_id=client_id, protocol=mqtt.MQTTv5
        )
        if user is not None:
            self.client.username_pw_set(user, password or ACCOUNTS[user])
        if tls:
            self.client.tls_set(**tls)
        self.client.on_connect = self._on_connect
        self.client.on_subscribe = lambda *args: self.subscribed.set()
        self.client.on_message = lambda c, u, m: self.replies.append(json.loads(m.payload))
        self.client.on_publish = self._on_publish
        session = Properties(PacketTypes.CONNECT)
        session.SessionExpiryInterval = session_expiry
        self.client.connect("127.0.0.1", port, clean_start=not session_expiry, properties=session)
        self.client.loop_start()

    def _on_connect(self, client: Any, userdata: Any, flags: Any, reason: Any, props: Any) -> None:
        self.connack = reason
        if not reason.is_failure:
            client.subscribe(self.topic, qos=1)
        self.connected.set()

    def _on_publish(self, client: Any, userdata: Any, mid: int, reason: Any, props: Any) -> None:
        self.acks[mid] = reason

    def send(self, verb: str, payload: dict[str, Any]) -> Any:
        info = self.client.publish(f"dealtable/faro-1/cmd/{verb}", json.dumps(payload), qos=1)
        assert wait_until(lambda: info.mid in self.acks)
        return self.acks[info.mid]

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def start_table(
    tmp_path: Path, port: int, tls: TlsConfig | None = None
) -> tuple[TableService, MqttLink, Journal]:
    """Table faro-1 logged in with its own account and client id, anna seated, bets open."""
    config = with_faro_1_account(tmp_path, port, tls=tls)
    journal = Journal(config.table.journal, "faro-1")
    service = TableService(config, journal)
    assert config.mqtt is not None
    link = MqttLink(config.mqtt, "faro-1", service, journal)
    link.start()
    assert wait_until(lambda: link.connected, step=link.pump), "the table could not log in"
    for line in ("punter anna 100", "shuffle", "card 2C"):
        service.execute_line(line)
    return service, link, journal


@pytest.fixture
def table(
    tmp_path: Path, secured_broker: Broker
) -> Iterator[tuple[TableService, MqttLink, Journal]]:
    service, link, journal = start_table(tmp_path, secured_broker.port)
    yield service, link, journal
    link.stop()
    journal.close()


def test_piped_passwords_open_the_accounts_and_input_that_runs_short_changes_nothing(
    tmp_path: Path, secured_broker: Broker
) -> None:
    """An automated install pipes the passwords to make-passwords.sh, one a line: the broker
    (its file made so, as for every test here) lets each account in with its own. Input that
    runs short is refused, naming the account it lacks, and the file stays as it was."""
    for user in ACCOUNTS:
        client = Client(secured_broker.port, user)
        assert client.connected.wait(30)
        assert not client.connack.is_failure, user
        client.close()
    passwords = tmp_path / "passwd"
    passwords.write_text("kept\n")
    short = subprocess.run(
        ["/bin/bash", str(HW / "make-passwords.sh"), str(passwords)],
        input="t4ble\nd3aler\n",
        text=True,
        capture_output=True,
    )
    assert short.returncode == 1
    assert short.stderr == (
        "make-passwords.sh: no password for terminal on line 3 of standard input: give one a "
        f"line, for table-faro-1 dealer terminal display; {passwords} is left as it was\n"
    )
    assert passwords.read_text() == "kept\n"


def test_make_passwords_refuses_an_account_no_password_file_can_hold_and_changes_nothing(
    tmp_path: Path,
) -> None:
    """Mosquitto's password file ends an account's name at ':' and skips a line beginning
    with '#': such an account is refused before the file is touched, not after the accounts
    named before it were written."""
    passwords = tmp_path / "passwd"
    passwords.write_text("kept\n")
    for account in ("table:faro-1", "#lobby", ""):
        refused = subprocess.run(
            ["/bin/bash", str(HW / "make-passwords.sh"), str(passwords), "dealer", account],
            input="d3aler\nsecond\n",
            text=True,
            capture_output=True,
        )
        assert refused.returncode == 1
        assert refused.stderr == (
            f"make-passwords.sh: the account {account!r} cannot be in a password file (no "
            f"':', not beginning with '#', not empty); {passwords} is left as it was\n"
        )
        assert passwords.read_text() == "kept\n"


def test_an_anonymous_client_is_refused(table: Any, secured_broker: Broker) -> None:
    anonymous = Client(secured_broker.port, None)
    assert anonymous.connected.wait(30)
    assert anonymous.connack.is_failure
    assert "authori" in str(anonymous.connack).lower()
    anonymous.close()


def test_a_display_can_neither_bet_nor_deal(
    table: tuple[TableService, MqttLink, Journal], secured_broker: Broker
) -> None:
    service, link, journal = table
    display = Client(secured_broker.port, "display")
    assert display.connected.wait(30) and not display.connack.is_failure
    for verb, payload in (
        ("bet", {"request_id": "d1", "punter": "anna", "spot": "9", "amount": 4}),
        ("shuffle", {"request_id": "d2"}),
        ("void", {"request_id": "d3"}),
    ):
        reason = display.send(verb, payload)
        assert reason.is_failure, f"the broker took cmd/{verb} from a display"
    dealer = Client(secured_broker.port, "dealer")
    assert dealer.connected.wait(30)
    dealer.send("lock", {"request_id": "ok-1"})  # sent after: its reply proves the rest arrived
    assert wait_until(
        lambda: any(r["request_id"] == "ok-1" for r in dealer.replies), step=link.pump
    )
    assert [r["request_id"] for r in dealer.replies] == ["ok-1"]
    assert service.state.bets == {}
    assert journal.last_seq == max(e.seq for e in journal.events())
    display.close()
    dealer.close()


def test_a_betting_terminal_bets_but_cannot_give_dealer_commands(
    table: tuple[TableService, MqttLink, Journal], secured_broker: Broker
) -> None:
    service, link, _ = table
    terminal = Client(secured_broker.port, "terminal")
    assert terminal.connected.wait(30) and not terminal.connack.is_failure
    for verb, payload in (
        ("void", {"request_id": "x1"}),
        ("correct", {"request_id": "x2", "card": "3H"}),
        ("shuffle", {"request_id": "x3"}),
        ("lock", {"request_id": "x4"}),
    ):
        assert terminal.send(verb, payload).is_failure, f"a terminal gave cmd/{verb}"
    assert not terminal.send(
        "bet", {"request_id": "b1", "punter": "anna", "spot": "9", "amount": 4}
    ).is_failure
    assert wait_until(
        lambda: any(r["request_id"] == "b1" for r in terminal.replies), step=link.pump
    )
    assert [r["request_id"] for r in terminal.replies] == ["b1"]
    assert terminal.replies[0]["ok"] is True
    assert [bet.stake for bet in service.state.bets.values()] == [4]
    terminal.close()


def test_an_account_asking_for_its_own_replies_is_answered_where_no_one_else_reads(
    table: tuple[TableService, MqttLink, Journal], secured_broker: Broker
) -> None:
    """A refusal may say what the room must not hear. A terminal that asks, with MQTT 5's
    Response Topic, for its answers on its own reply topic gets them there; the displays
    and the other terminals, reading the shared replies, never see them."""
    _, link, _ = table
    own = "dealtable/faro-1/reply/terminal"
    terminal = Client(secured_broker.port, "terminal", client_id="t-1", topic=own)
    shared = Client(secured_broker.port, "display", client_id="d-1")
    prying = Client(secured_broker.port, "display", client_id="d-2", topic=own)
    for client in (terminal, shared, prying):
        assert client.subscribed.wait(30)
    asked = Properties(PacketTypes.PUBLISH)
    asked.ResponseTopic = own
    bet = {"request_id": "p1", "punter": "anna", "spot": "9", "amount": 500}
    terminal.client.publish("dealtable/faro-1/cmd/bet", json.dumps(bet), qos=1, properties=asked)
    assert wait_until(lambda: bool(terminal.replies), step=link.pump)
    assert terminal.replies[0]["ok"] is False
    assert "anna has only 100 chips" in terminal.replies[0]["error"]
    # A bet after it, on the shared replies: once it is there, the first had its chance.
    terminal.send("bet", {"request_id": "p2", "punter": "anna", "spot": "9", "amount": 4})
    assert wait_until(lambda: bool(shared.replies), step=link.pump)
    assert [reply["request_id"] for reply in shared.replies] == ["p2"]
    assert prying.replies == []
    for client in (terminal, shared, prying):
        client.close()


def bet_refused_then_taken(relay: MqttCommandRelay, link: MqttLink) -> None:
    """The croupier's page bets for anna over her chips, refused with the reason (a refusal
    that names her chips), then within them, taken: both answers reach the page."""
    refused = relayed(relay, link, "bet", {"punter": "anna", "spot": "9", "amount": 500})
    assert refused["ok"] is False and "anna has only 100 chips" in refused["error"]
    taken = relayed(relay, link, "bet", {"punter": "anna", "spot": "9", "amount": 4})
    assert taken["ok"] is True


def test_the_croupiers_page_is_answered_on_its_accounts_own_replies(
    table: tuple[TableService, MqttLink, Journal], secured_broker: Broker
) -> None:
    _, link, _ = table
    shared = Client(secured_broker.port, "display", client_id="d-1")
    assert shared.subscribed.wait(30)
    relay = MqttCommandRelay(link.config, "faro-1")
    try:
        bet_refused_then_taken(relay, link)
        # A bet after them, on the shared replies: once it is there, they had their chance.
        terminal = Client(secured_broker.port, "terminal", client_id="t-1")
        assert terminal.subscribed.wait(30)
        terminal.send("bet", {"request_id": "p3", "punter": "anna", "spot": "9", "amount": 1})
        assert wait_until(
            lambda: any(reply["request_id"] == "p3" for reply in shared.replies), step=link.pump
        )
        # The page's first command found its account's own replies with two the table
        # refuses unread, one answered there and one here: that one says nothing of anyone.
        found, p3 = shared.replies
        assert p3["request_id"] == "p3"
        assert found["ok"] is False and found["error"].startswith("cmd/bet: unknown field")
        assert "anna" not in found["error"]
        terminal.close()
    finally:
        relay.close()
        shared.close()


def test_the_croupiers_page_is_answered_where_its_account_may_not_read_its_own_replies(
    tmp_path: Path,
) -> None:
    """An access list from before the accounts' own replies (no ``pattern`` line). Mosquitto
    grants the subscription to ``reply/terminal`` all the same, and delivers nothing there:
    the page's commands are answered on the shared replies, not left to time out while the
    table carries them out (a croupier told the bet failed lays it again)."""
    directory, passwords = broker_folder(tmp_path)
    acl = (HW / "acl").read_text()
    (directory / "acl").write_text(
        "".join(line for line in acl.splitlines(keepends=True) if not line.startswith("pattern"))
    )
    broker = secured(directory, passwords)
    broker.start()
    service, link, journal = start_table(tmp_path, broker.port)
    relay = MqttCommandRelay(link.config, "faro-1")
    try:
        bet_refused_then_taken(relay, link)
        assert [bet.stake for bet in service.state.bets.values()] == [4]
    finally:
        relay.close()
        link.stop()
        journal.close()
        broker.stop()


def test_the_table_talks_tls_with_the_example_certificates(tmp_path: Path) -> None:
    certs = tmp_path / "certs"
    subprocess.run(
        [str(HW / "make-certs.sh"), str(certs), "localhost"], check=True, capture_output=True
    )
    directory, passwords = broker_folder(tmp_path)
    tls_port = free_port()
    broker = Broker(
        directory,
        extra_config=(
            "allow_anonymous false\n"
            f"password_file {passwords}\n"
            f"listener {tls_port} 127.0.0.1\n"
            f"certfile {certs / 'server.crt'}\n"
            f"keyfile {certs / 'server.key'}\n"
            f"cafile {certs / 'ca.crt'}\n"
        ),
    )
    broker.start()
    try:
        journal = Journal(tmp_path / "j.sqlite", "faro-1")
        config = Config(
            table=TableConfig(id="faro-1"),
            mqtt=MqttConfig(
                host="localhost",
                port=tls_port,
                username="table-faro-1",
                password=ACCOUNTS["table-faro-1"],
                tls=TlsConfig(ca_file=str(certs / "ca.crt")),
            ),
        )
        service = TableService(config, journal)
        assert config.mqtt is not None
        link = MqttLink(config.mqtt, "faro-1", service, journal)
        link.start()
        assert wait_until(lambda: link.connected, step=link.pump), "no TLS connection"
        assert link.flush(timeout=30)
        link.stop()
        journal.close()
    finally:
        broker.stop()


def handshake(certs: Path, reached_as: str) -> str:
    """A TLS handshake with the broker's certificate in ``certs``, checked by a client that
    trusts the example CA and reaches the broker as ``reached_as``: "" or why it failed."""
    server = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    server.load_cert_chain(certs / "server.crt", certs / "server.key")
    client = ssl.create_default_context(cafile=str(certs / "ca.crt"))
    ours, theirs = socket.socketpair()
    serving = threading.Thread(target=_serve_one_handshake, args=(server, theirs))
    serving.start()
    try:
        with client.wrap_socket(ours, server_hostname=reached_as):
            return ""
    except ssl.SSLCertVerificationError as refused:
        return str(refused.verify_message)
    finally:
        ours.close()
        serving.join()


def _serve_one_handshake(server: ssl.SSLContext, connection: socket.socket) -> None:
    with (
        contextlib.suppress(ssl.SSLError, OSError),
        server.wrap_socket(connection, server_side=True),
    ):
        pass
    connection.close()


def test_the_example_certificate_names_the_pi_as_the_network_reaches_it(tmp_path: Path) -> None:
    """make-certs.sh HOST, as hw/mosquitto's README runs it with "$(hostname)": displays and
    tablets reach a Pi by its name on the network (table-1.local, mDNS) or by its address; a
    certificate that names neither fails every client that checks it, and leaves the operator
    to turn the check off."""
    for host, reached_as in (
        ("table-1", "table-1"),
        ("table-1", "table-1.local"),
        ("table-1.local", "table-1.local"),
        ("192.168.7.20", "192.168.7.20"),
        ("fd00::20", "fd00::20"),
    ):
        certs = tmp_path / host
        subprocess.run(
            [str(HW / "make-certs.sh"), str(certs), host], check=True, capture_output=True
        )
        assert handshake(certs, reached_as) == "", f"made for {host}, reached as {reached_as}"
        assert (
            handshake(certs, "another-pi.local")
            == "Hostname mismatch, certificate is not valid for 'another-pi.local'."
        )


def broker_with_certificate(
    tmp_path: Path, certs: Path, address: str = "127.0.0.1", extra: str = ""
) -> Broker:
    """A broker (not started) taking the roles' passwords over TLS on ``address``, with the
    server certificate in ``certs``; ``extra`` lines added to its config."""
    directory, passwords = broker_folder(tmp_path)
    port = free_port()
    return Broker(
        directory,
        port=port,
        whole_config=(
            f"allow_anonymous false\npassword_file {passwords}\nlistener {port} {address}\n"
            f"certfile {certs / 'server.crt'}\nkeyfile {certs / 'server.key'}\n{extra}"
        ),
    )


def test_the_table_reaches_a_broker_by_its_address_with_the_example_certificate(
    tmp_path: Path,
) -> None:
    """A table whose [mqtt] host is the broker's address, the certificate made for it."""
    address = "127.0.0.5"  # an address of the loopback network other than the one it names
    certs = tmp_path / "certs"
    subprocess.run(
        [str(HW / "make-certs.sh"), str(certs), address], check=True, capture_output=True
    )
    broker = broker_with_certificate(tmp_path, certs, address)
    port = broker.port
    broker.write_config()
    broker.process = subprocess.Popen([mosquitto_binary(), "-c", str(broker.config_path)])
    try:
        assert wait_until(lambda: _accepting(address, port)), "the broker did not start"
        journal = Journal(tmp_path / "j.sqlite", "faro-1")
        mqtt_config = MqttConfig(
            host=address,
            port=port,
            username="table-faro-1",
            password=ACCOUNTS["table-faro-1"],
            tls=TlsConfig(ca_file=str(certs / "ca.crt")),
        )
        config = Config(table=TableConfig(id="faro-1"), mqtt=mqtt_config)
        link = MqttLink(mqtt_config, "faro-1", TableService(config, journal), journal)
        link.start()
        try:
            assert wait_until(lambda: link.connected, step=link.pump), "no TLS connection"
        finally:
            link.stop()
            journal.close()
    finally:
        broker.stop()


def _accepting(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=0.2):
            return True
    except OSError:
        return False


def test_a_display_that_sends_the_tables_client_id_leaves_the_table_in_its_place(
    tmp_path: Path, shipped_broker: ShippedBroker, caplog: pytest.LogCaptureFixture
) -> None:
    """On the shipped broker's network listener a client's id is its account: a display that
    sends the table's id (dealtable-faro-1) neither pushes the table off nor takes its
    commands, and the croupier's page on the Pi still bets through it."""
    caplog.set_level(logging.WARNING, logger="dealtable.mqtt")
    service, link, journal = start_table(tmp_path, shipped_broker.broker.port)
    display = Client(
        shipped_broker.network_port,
        "display",
        client_id="dealtable-faro-1",
        ca_certs=str(shipped_broker.ca_file),
    )
    relay = MqttCommandRelay(
        MqttConfig(host="127.0.0.1", port=shipped_broker.broker.port), "faro-1"
    )
    try:
        assert display.connected.wait(30) and not display.connack.is_failure
        display.client.subscribe("dealtable/faro-1/state", qos=1)
        answer = relayed(relay, link, "bet", {"punter": "anna", "spot": "9", "amount": 4})
        assert answer["ok"] is True, answer
        assert [bet.stake for bet in service.state.bets.values()] == [4]
        assert wait_until(
            lambda: any(r.get("seq") == journal.last_seq for r in display.replies),
            step=link.pump,
        ), "the display does not see the table"
        assert link.connected
        assert "lost the broker" not in caplog.text
    finally:
        relay.close()
        display.close()
        link.stop()
        journal.close()


def test_events_the_broker_acknowledged_survive_its_power_cut(
    tmp_path: Path, shipped_broker: ShippedBroker
) -> None:
    """The table's outbox never sends again what the broker acknowledged: the shipped broker
    has the events it keeps for a display that is away on disk at once, and a power cut loses
    none of them."""
    network = {"ca_certs": str(shipped_broker.ca_file), "session_expiry": 3600}
    events = "dealtable/faro-1/events"
    display = Client(shipped_broker.network_port, "display", topic=events, **network)
    assert display.subscribed.wait(30)
    display.close()
    service, link, journal = start_table(tmp_path, shipped_broker.broker.port)
    for line in ("card KD", "card 9C"):
        service.execute_line(line)
    assert link.flush(timeout=30)
    last = journal.bodies(journal.last_seq - 1)[0][1]
    saved = shipped_broker.broker.directory / "mosquitto.db"
    assert wait_until(lambda: saved.exists() and last.encode() in saved.read_bytes()), (
        "the broker has the acknowledged events only in its memory"
    )
    link.stop()
    shipped_broker.broker.cut_power()
    shipped_broker.broker.start()
    display = Client(shipped_broker.network_port, "display", topic=events, **network)
    everything = list(range(1, journal.last_seq + 1))
    assert wait_until(lambda: [event["seq"] for event in display.replies] == everything)
    display.close()
    journal.close()


def client_certificate(certs: Path, directory: Path) -> TlsConfig:
    """A client certificate signed by the example CA in ``certs``, as a table's [mqtt.tls]."""
    for command in (
        "openssl req -newkey rsa:2048 -nodes -subj /CN=faro-1 -keyout client.key -out client.csr",
        f"openssl x509 -req -in client.csr -days 2 -out client.crt -CA {certs / 'ca.crt'} "
        f"-CAkey {certs / 'ca.key'} -CAcreateserial",
    ):
        subprocess.run(command.split(), check=True, capture_output=True, cwd=directory)
    return TlsConfig(
        ca_file=str(certs / "ca.crt"),
        cert_file=str(directory / "client.crt"),
        key_file=str(directory / "client.key"),
    )


@pytest.fixture
def certificate_broker(tmp_path: Path, example_certs: Path) -> Iterator[Broker]:
    """A broker that asks every client for a certificate signed by the example CA."""
    broker = broker_with_certificate(
        tmp_path,
        example_certs,
        extra=f"cafile {example_certs / 'ca.crt'}\nrequire_certificate true\n",
    )
    broker.start()
    yield broker
    broker.stop()


def test_the_croupiers_page_bets_through_a_broker_that_asks_for_certificates(
    tmp_path: Path, certificate_broker: Broker, example_certs: Path
) -> None:
    """The croupier's page takes the table's [mqtt.tls] whole, its client certificate too."""
    tls = client_certificate(example_certs, tmp_path)
    service, link, journal = start_table(tmp_path, certificate_broker.port, tls)
    relay = MqttCommandRelay(link.config, "faro-1")
    try:
        answer = relayed(relay, link, "bet", {"punter": "anna", "spot": "9", "amount": 4})
        assert answer["ok"] is True, answer
        assert [bet.stake for bet in service.state.bets.values()] == [4]
    finally:
        relay.close()
        link.stop()
        journal.close()


def test_events_the_access_list_refused_go_out_once_it_is_mended(
    tmp_path: Path, secured_broker: Broker, caplog: pytest.LogCaptureFixture
) -> None:
    """A table whose account may not publish under its id: the refusal is logged, and once
    the operator mends the access list and the broker reloads it, the events go out at the
    next retry, with the connection never dropped."""
    config = second_table_with_first_tables_account(tmp_path, secured_broker.port)
    now = [0.0]
    journal = Journal(config.table.journal, "faro-2")
    service = TableService(config, journal)
    assert config.mqtt is not None
    link = MqttLink(config.mqtt, "faro-2", service, journal, clock=lambda: now[0])
    try:
        link.start()
        assert wait_until(lambda: link.connected, step=link.pump)
        service.execute_line("punter anna 100")
        with caplog.at_level(logging.ERROR, "dealtable"):
            assert wait_until(lambda: "refused event 1" in caplog.text, step=link.pump)
        assert "offered again in 30 s" in caplog.text
        # Nor may it say it is online, or its state: said, not left to be guessed.
        assert "refused the table's status on dealtable/faro-2/status as it connected" in (
            caplog.text
        )
        acl = secured_broker.directory / "acl"
        acl.write_text(
            acl.read_text().replace(
                "topic readwrite dealtable/faro-1/#",
                "topic readwrite dealtable/faro-1/#\ntopic readwrite dealtable/faro-2/#",
            )
        )
        assert secured_broker.process is not None
        secured_broker.process.send_signal(signal.SIGHUP)
        assert wait_until(lambda: _may_publish(secured_broker.port, "dealtable/faro-2/probe"))
        link.pump()
        assert link.acked_seq == 0  # not before the wait is over
        now[0] += 30.0
        assert wait_until(lambda: link.acked_seq == journal.last_seq, step=link.pump)
        assert link.connected
    finally:
        link.stop()
        journal.close()


def _may_publish(port: int, topic: str) -> bool:
    """Whether the table's account may publish on ``topic`` now (the broker's answer)."""
    probe = Client(port, "table-faro-1", client_id="probe")
    try:
        assert probe.connected.wait(30)
        info = probe.client.publish(topic, "x", qos=1)
        assert wait_until(lambda: info.mid in probe.acks)
        return not probe.acks[info.mid].is_failure
    finally:
        probe.close()


# A prefix other than the example's, of two levels, as a casino might set for a floor.
FLOOR_PREFIX = "casino/floor-2"


def table_config_file(tmp_path: Path, port: int, prefix: str) -> Path:
    """Table faro-1's table.toml: console cards, its own account on the broker at ``port``,
    its topics under ``prefix``."""
    password = tmp_path / "table-password"
    password.write_text(f"{ACCOUNTS['table-faro-1']}\n")
    config = tmp_path / "table.toml"
    config.write_text(
        f'[table]\nid = "faro-1"\njournal = "{tmp_path / "journal.sqlite"}"\n'
        '\n[reader]\nkind = "console"\n'
        f'\n[mqtt]\nhost = "127.0.0.1"\nport = {port}\nusername = "table-faro-1"\n'
        f'password_file = "{password}"\nprefix = "{prefix}"\n'
    )
    return config


def dealtable(*args: str) -> subprocess.CompletedProcess[str]:
    """The `dealtable` command line, run as the operator runs it."""
    return subprocess.run(
        [sys.executable, "-m", "table.service.cli", *args],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def start_configured_table(config_file: Path) -> tuple[TableService, MqttLink, Journal]:
    """The table of ``config_file`` on its broker, anna seated, bets open."""
    config = load_config(config_file)
    assert config.mqtt is not None
    journal = Journal(config.table.journal, config.table.id)
    service = TableService(config, journal)
    link = MqttLink(config.mqtt, config.table.id, service, journal)
    link.start()
    assert wait_until(lambda: link.connected, step=link.pump), "the table could not log in"
    for line in ("punter anna 100", "shuffle", "card 2C"):
        service.execute_line(line)
    return service, link, journal


def test_a_table_under_another_prefix_is_heard_through_the_access_list_written_from_its_config(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The operator sets [mqtt] prefix and writes the broker's access list from the table's
    config, with a display of its own on the network: the display reads every event the
    table publishes there, and the croupier's page sends bets in the betting terminal's
    name and is answered on that account's own replies."""
    caplog.set_level(logging.WARNING, logger="dealtable")
    directory = tmp_path / "broker"
    directory.mkdir()
    passwords = directory / "passwd"
    broker = secured(directory, passwords)
    config_file = table_config_file(tmp_path, broker.port, FLOOR_PREFIX)
    acl = directory / "acl"
    written = dealtable(
        "config", "acl", str(config_file), "--display", "display-bar", "--out", str(acl)
    )
    assert written.returncode == 0, written.stderr
    accounts = "table-faro-1 dealer terminal display-bar"
    assert f"names the accounts {accounts}: each needs a password" in written.stderr
    display_password = "b4r-d1splay"
    make_password_file(
        passwords,
        {name: ACCOUNTS.get(name, display_password) for name in accounts.split()},
    )
    broker.start()
    display = Client(
        broker.port, "display-bar", topic=f"{FLOOR_PREFIX}/faro-1/events", password=display_password
    )
    assert display.subscribed.wait(30)
    service, link, journal = start_configured_table(config_file)
    relay = MqttCommandRelay(link.config, "faro-1")
    try:
        bet_refused_then_taken(relay, link)
        assert [bet.stake for bet in service.state.bets.values()] == [4]
        everything = list(range(1, journal.last_seq + 1))
        assert wait_until(
            lambda: [event["seq"] for event in display.replies] == everything, step=link.pump
        ), "the display does not hear the table"
        assert display.replies[-1]["type"] == "bet_placed"
        assert caplog.text == ""  # nothing refused, and the page's account reads its own replies
    finally:
        relay.close()
        display.close()
        link.stop()
        journal.close()
        broker.stop()


def test_a_table_under_another_prefix_on_the_shipped_access_list_says_so_as_it_connects(
    tmp_path: Path, secured_broker: Broker, caplog: pytest.LogCaptureFixture
) -> None:
    """The shipped list is written for `dealtable/`: a table set to another prefix on it is
    refused its own topics. The service says so as it connects, before any event, naming
    the account, what it needs and the command that writes it; the croupier's page is told
    why its bet does not go, rather than left waiting for an answer."""
    caplog.set_level(logging.ERROR, logger="dealtable")
    config_file = table_config_file(tmp_path, secured_broker.port, FLOOR_PREFIX)
    config = load_config(config_file)
    assert config.mqtt is not None
    journal = Journal(config.table.journal, "faro-1")
    link = MqttLink(config.mqtt, "faro-1", TableService(config, journal), journal)
    relay = MqttCommandRelay(config.mqtt, "faro-1")
    try:
        link.start()
        assert wait_until(lambda: "refused the table's status" in caplog.text, step=link.pump)
        assert caplog.messages[0] == (
            f"the broker at 127.0.0.1:{secured_broker.port} refused the table's status on "
            f"{FLOOR_PREFIX}/faro-1/status as it connected (Not authorized): the broker's access "
            f"list must let the account table-faro-1 read and write {FLOOR_PREFIX}/faro-1/# "
            "(`dealtable config acl` writes one for this table's [mqtt] prefix and username)"
        )
        answer = relayed(relay, link, "bet", {"punter": "anna", "spot": "9", "amount": 4})
        assert answer == {
            "ok": False,
            "error": "the broker does not let the account terminal send cmd/bet (Not authorized)",
        }
    finally:
        relay.close()
        link.stop()
        journal.close()


def test_a_table_with_no_account_refused_its_topics_is_told_to_give_it_one(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A broker that lets anonymous clients in, with the shipped list: the table logging in
    with no account is refused its own topics. `dealtable config acl` writes no list for a
    table without an account, so the log asks for the account first."""
    caplog.set_level(logging.ERROR, logger="dealtable")
    directory = tmp_path / "broker"
    directory.mkdir()
    shutil.copy(HW / "acl", directory / "acl")
    broker = Broker(directory, extra_config=f"allow_anonymous true\nacl_file {directory / 'acl'}\n")
    broker.start()
    journal = Journal(tmp_path / "j.sqlite", "faro-1")
    config = Config(
        table=TableConfig(id="faro-1"), mqtt=MqttConfig(host="127.0.0.1", port=broker.port)
    )
    assert config.mqtt is not None
    link = MqttLink(config.mqtt, "faro-1", TableService(config, journal), journal)
    try:
        link.start()
        assert wait_until(lambda: "refused the table's status" in caplog.text, step=link.pump)
        assert caplog.messages[0] == (
            f"the broker at 127.0.0.1:{broker.port} refused the table's status on "
            "dealtable/faro-1/status as it connected (Not authorized): the table logs in with "
            "no account, and the broker's access list gives topics to accounts: name one in "
            "[mqtt] username, and `dealtable config acl` writes the list that lets it read and "
            "write dealtable/faro-1/#"
        )
    finally:
        link.stop()
        journal.close()
        broker.stop()
