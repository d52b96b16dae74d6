"""The croupier's page in headless Chromium: a bet tapped on the page goes through the broker
with a betting terminal's account, lands in the journal and on the layout frame."""

from __future__ import annotations

import base64
import io
import json
import socket
import ssl
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from selenium import webdriver
from selenium.webdriver.common.by import By

from display.frames import layout_frame
from table.cards import Rank
from table.events import BetPlaced
from table.service.config import (
    Config,
    DisplayConfig,
    MqttConfig,
    ReaderConfig,
    TableConfig,
    WebConfig,
)
from table.service.journal import Journal
from table.service.mqtt import MqttLink
from table.service.run import SimulatedTable, run
from table.service.table_service import TableService
from table.service.web import (
    Account,
    AccountRefusedError,
    LiveView,
    MqttCommandRelay,
    ServiceFeed,
    WebServer,
)
from tests.conftest import ACCOUNTS, TERMINAL, PageCertificate, relayed
from tests.mosquitto import Broker, free_port, wait_until
from tests.test_broker_access import start_table
from tests.test_web import serve, shows


class Croupier:
    """The table, its broker link pumped on a thread as the service loop would, and the page."""

    def __init__(self, tmp_path: Path, port: int, tls: ssl.SSLContext | None = None) -> None:
        self.lock = threading.Lock()
        config = Config(
            table=TableConfig(id="faro-1", journal=str(tmp_path / "j.sqlite")),
            reader=ReaderConfig(kind="simulated", seed=8, cards_per_second=0),
            mqtt=MqttConfig(
                host="127.0.0.1",
                port=port,
                username="table-faro-1",
                password=ACCOUNTS["table-faro-1"],
                client_id="table-faro-1",
            ),
        )
        self.journal = Journal(config.table.journal, "faro-1")
        self.service = TableService(config, self.journal)
        assert config.mqtt is not None
        self.link = MqttLink(config.mqtt, "faro-1", self.service, self.journal)
        self.link.start()
        self.simulated = SimulatedTable(self.service, seed=8, punters=3)
        self.view = LiveView()
        ServiceFeed(self.service, self.view)
        self.relay = MqttCommandRelay(
            MqttConfig(host="127.0.0.1", port=port, username="terminal"), "faro-1"
        )
        self.server = WebServer(self.view, "127.0.0.1", free_port(), relay=self.relay, tls=tls)
        self.server.start()
        self._stop = threading.Event()
        self._pump = threading.Thread(target=self._run, daemon=True)
        self._pump.start()

    def _run(self) -> None:
        while not self._stop.wait(0.005):
            with self.lock:
                self.link.pump()

    def step(self, times: int = 1) -> None:
        with self.lock:
            for _ in range(times):
                self.simulated.step()

    def close(self) -> None:
        self._stop.set()
        self._pump.join(timeout=2)
        self.server.stop()  # and its relay with it
        self.link.stop()
        self.journal.close()


@pytest.fixture
def croupier(tmp_path: Path, secured_broker: Broker) -> Iterator[Croupier]:
    table = Croupier(tmp_path, secured_broker.port)
    assert wait_until(lambda: table.link.connected)
    yield table
    table.close()


@pytest.fixture
def secured_croupier(
    tmp_path: Path, secured_broker: Broker, page_certificate: PageCertificate
) -> Iterator[Croupier]:
    """The croupier's page served over HTTPS only, with the test's certificate."""
    table = Croupier(tmp_path, secured_broker.port, page_certificate.server_context())
    assert wait_until(lambda: table.link.connected)
    yield table
    table.close()


def tap(browser: webdriver.Chrome, selector: str) -> None:
    browser.find_element(By.CSS_SELECTOR, selector).click()


def log_in(
    browser: webdriver.Chrome, password: str = ACCOUNTS["terminal"], username: str | None = None
) -> str:
    """Log in at the page (as the account it offers, unless ``username``): the account the
    page then names, or what it said instead."""
    if username is not None:
        browser.find_element(By.ID, "username").clear()
        browser.find_element(By.ID, "username").send_keys(username)
    browser.find_element(By.ID, "password").clear()
    browser.find_element(By.ID, "password").send_keys(password)
    tap(browser, "#log-in")
    said = browser.find_element(By.ID, "login-answer")
    body = browser.find_element(By.TAG_NAME, "body")
    assert wait_until(
        lambda: bool(body.get_attribute("data-account")) or said.text not in ("", "…")
    )
    return body.get_attribute("data-account") or said.text


def answer(browser: webdriver.Chrome) -> str:
    element = browser.find_element(By.ID, "answer")
    assert wait_until(lambda: element.text not in ("", "…"))
    return element.text


def test_a_bet_tapped_on_the_page_lands_in_the_journal_and_on_the_layout(
    browser: webdriver.Chrome,
    croupier: Croupier,
) -> None:
    croupier.step(2)  # a new deck and the soda: bets are open
    browser.get(croupier.server.url + "croupier?lang=en")
    assert shows(browser, croupier.service)
    assert browser.find_element(By.ID, "username").get_attribute("value") == "terminal"
    assert log_in(browser) == "terminal"
    assert browser.find_element(By.ID, "logged-in-as").text == "Logged in as terminal"
    live = next(
        rank for rank in croupier.service.state.casekeep.live_ranks() if rank is not Rank.SEVEN
    )
    tap(browser, f'.spade[data-rank="{live.label}"]')
    tap(browser, '#punters button[data-punter="anna"]')
    tap(browser, '#amounts button[data-amount="5"]')
    tap(browser, "#bet")
    assert answer(browser) == "Done"
    placed = [
        e
        for e in croupier.journal.events()
        if isinstance(e, BetPlaced) and e.punter == "anna" and e.amount == 5
    ]
    assert [(e.spot, e.coppered) for e in placed] == [(live.label, False)]
    with croupier.lock:
        lamp = layout_frame(croupier.service.state).lamp(live)
    assert lamp.straight >= 5
    assert wait_until(
        lambda: any(
            chip.get_attribute("data-punter") == "anna"
            and chip.get_attribute("data-spot") == live.label
            for chip in browser.find_elements(By.CSS_SELECTOR, ".chip")
        )
    )


def basic(username: str, password: str) -> str:
    return "Basic " + base64.b64encode(f"{username}:{password}".encode()).decode()


def post(
    server: WebServer,
    path: str,
    body: dict[str, Any],
    headers: dict[str, str],
    context: ssl.SSLContext | None = None,
) -> tuple[int, dict[str, Any]]:
    """The page server's status and JSON answer to a POST (over HTTPS, with ``context``)."""
    request = urllib.request.Request(
        server.url + path, data=json.dumps(body).encode(), method="POST", headers=headers
    )
    try:
        with urllib.request.urlopen(request, timeout=15, context=context) as answered:
            return answered.status, json.loads(answered.read())
    except urllib.error.HTTPError as refused:
        return refused.code, json.loads(refused.read())


Refusals = dict[str, tuple[dict[str, str], int, str]]  # who: (headers, status, error)


def bet_only_from_the_tables_own_page(
    croupier: Croupier,
    refused: Refusals,
    own_page: dict[str, str],
    context: ssl.SSLContext | None = None,
) -> None:
    """Anna's bet of 40 on a live rank, sent with each of the ``refused`` headers: refused as
    said, nothing journaled; sent from the table's ``own_page``: made."""
    croupier.step(2)
    with croupier.lock:
        spot = next(r for r in croupier.service.state.casekeep.live_ranks() if r is not Rank.SEVEN)
        journaled = croupier.journal.last_seq
    bet = {"punter": "anna", "spot": spot.label, "amount": 40}
    for who, (headers, status, error) in refused.items():
        assert post(croupier.server, "cmd/bet", bet, headers, context) == (
            status,
            {"ok": False, "error": error},
        ), who
    with croupier.lock:
        assert croupier.journal.last_seq == journaled
    status, reply = post(croupier.server, "cmd/bet", bet, own_page, context)
    assert status == 200 and reply["ok"] is True, reply
    with croupier.lock:
        placed = [
            e for e in croupier.journal.events(after_seq=journaled) if isinstance(e, BetPlaced)
        ]
    assert [(e.punter, e.spot, e.amount) for e in placed] == [("anna", spot.label, 40)]


def test_a_bet_is_taken_only_in_the_name_of_an_account_the_broker_lets_bet(
    croupier: Croupier,
) -> None:
    """No credentials, a wrong password, a display's account, a form or a page of another
    site: refused, and nothing journaled. The terminal's account: the bet is made."""
    as_json = {"Content-Type": "application/json"}
    terminal = {**as_json, "Authorization": basic("terminal", ACCOUNTS["terminal"])}
    refused: Refusals = {
        "no credentials": (
            as_json,
            401,
            "cmd/bet: log in with your account on the table's broker",
        ),
        "a wrong password": (
            {**as_json, "Authorization": basic("terminal", "guess")},
            401,
            "the broker refused the account terminal: Not authorized",
        ),
        "a display's account": (
            {**as_json, "Authorization": basic("display", ACCOUNTS["display"])},
            200,
            "the broker does not let the account display send cmd/bet (Not authorized)",
        ),
        "a form of another site": (
            {**terminal, "Content-Type": "text/plain"},
            415,
            "cmd/bet: send the command as application/json",
        ),
        "a page of another site": (
            {**terminal, "Origin": "http://elsewhere.example"},
            403,
            "cmd/bet: only the table's own page may send commands, not one from "
            "http://elsewhere.example",
        ),
        "a page of another site, as its browser says": (
            {**terminal, "Sec-Fetch-Site": "cross-site"},
            403,
            "cmd/bet: only the table's own page may send commands",
        ),
    }
    # Its own page, served through a TLS proxy in front of the Pi: its origin is https://
    # under the name the proxy kept.
    proxied = croupier.server.url.rstrip("/").replace("http://", "https://")
    bet_only_from_the_tables_own_page(croupier, refused, {**terminal, "Origin": proxied})


def raw_post(server: WebServer, head: str, body: bytes) -> tuple[int, dict[str, Any]]:
    """The status and JSON answer to a POST sent as it is (``head`` its headers after the
    request line), read to the connection's end: the server must close it, at once."""
    port = server.server_address[1]
    with socket.create_connection(("127.0.0.1", port), timeout=5) as client:
        client.sendall(f"POST /cmd/bet HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n{head}\r\n".encode())
        client.sendall(body)
        client.shutdown(socket.SHUT_WR)  # all of it sent: a length longer waits for no more
        answered = b""
        while chunk := client.recv(65536):
            answered += chunk
    status_line, _, rest = answered.partition(b"\r\n")
    return int(status_line.split()[1]), json.loads(rest.partition(b"\r\n\r\n")[2])


def test_a_command_is_read_whole_or_refused(croupier: Croupier) -> None:
    """A bet longer than a command may be, its first 10,000 bytes a bet: refused, never made
    cut short. A length that is no length, or longer than what came: refused at once."""
    croupier.step(2)
    with croupier.lock:
        spot = next(r for r in croupier.service.state.casekeep.live_ranks() if r is not Rank.SEVEN)
        journaled = croupier.journal.last_seq
    bet = json.dumps({"punter": "anna", "spot": spot.label, "amount": 40}).encode()
    padded = bet + b" " * (10_000 - len(bet)) + b"and more"
    head = (
        "Content-Type: application/json\r\n"
        f"Authorization: {basic('terminal', ACCOUNTS['terminal'])}\r\n"
    )
    error = "cmd/bet: Content-Length {!r} is not a number of bytes"
    for length, body, answer in [
        (
            len(padded),
            padded,
            (413, f"cmd/bet: a command is at most 10000 bytes, not {len(padded)}"),
        ),
        ("-1", bet, (400, error.format("-1"))),
        ("+40", bet, (400, error.format("+40"))),
        ("4_0", bet, (400, error.format("4_0"))),
        (len(bet) + 1, bet, (400, "cmd/bet: the command ended before its Content-Length")),
        (
            5_000,
            b"[" * 2_500 + b"]" * 2_500,
            (200, "cmd/bet: not a JSON object a command could be: 2500 brackets (at most 16)"),
        ),
    ]:
        said = raw_post(croupier.server, f"{head}Content-Length: {length}\r\n", body)
        assert said == (answer[0], {"ok": False, "error": answer[1]}), length
    twice = f"{head}Content-Length: {len(bet)}\r\nContent-Length: 1\r\n"
    assert raw_post(croupier.server, twice, bet)[0] == 400
    chunked = f"{head}Transfer-Encoding: chunked\r\n"
    assert raw_post(croupier.server, chunked, b"%x\r\n%s\r\n0\r\n\r\n" % (len(bet), bet)) == (
        411,
        {"ok": False, "error": "cmd/bet: send the command with a Content-Length"},
    )
    with croupier.lock:
        assert croupier.journal.last_seq == journaled
    status, reply = raw_post(croupier.server, f"{head}Content-Length: {len(bet)}\r\n", bet)
    assert status == 200 and reply["ok"] is True, reply
    with croupier.lock:
        placed = [
            e for e in croupier.journal.events(after_seq=journaled) if isinstance(e, BetPlaced)
        ]
    assert [(e.punter, e.spot, e.amount) for e in placed] == [("anna", spot.label, 40)]


def test_over_https_a_bet_is_taken_only_from_the_tables_own_https_page(
    secured_croupier: Croupier, page_certificate: PageCertificate
) -> None:
    """The page's checks hold over HTTPS: its own page's origin is https://, and another
    site's page is refused as it is in plain HTTP."""
    server = secured_croupier.server
    assert server.url.startswith("https://127.0.0.1:")
    own_origin = server.url.rstrip("/")
    terminal = {
        "Content-Type": "application/json",
        "Authorization": basic("terminal", ACCOUNTS["terminal"]),
    }
    refused: Refusals = {
        "no credentials": (
            {"Content-Type": "application/json", "Origin": own_origin},
            401,
            "cmd/bet: log in with your account on the table's broker",
        ),
        "a page of another site": (
            {**terminal, "Origin": "https://elsewhere.example"},
            403,
            "cmd/bet: only the table's own page may send commands, not one from "
            "https://elsewhere.example",
        ),
        "a page of another site, as its browser says": (
            {**terminal, "Sec-Fetch-Site": "cross-site"},
            403,
            "cmd/bet: only the table's own page may send commands",
        ),
    }
    own_page = {**terminal, "Origin": own_origin, "Sec-Fetch-Site": "same-origin"}
    bet_only_from_the_tables_own_page(
        secured_croupier, refused, own_page, page_certificate.client_context()
    )


def test_over_https_the_page_logs_in_bets_and_shows_the_bet_live(
    tls_browser: webdriver.Chrome, secured_croupier: Croupier
) -> None:
    """A browser that trusts the page's certificate: its origin is https://, its event
    stream runs over TLS, and the bet it sends is taken."""
    croupier, browser = secured_croupier, tls_browser
    croupier.step(2)
    browser.get(croupier.server.url + "croupier?lang=en")
    assert shows(browser, croupier.service)
    assert browser.execute_script("return window.isSecureContext") is True
    assert log_in(browser) == "terminal"
    with croupier.lock:
        live = next(r for r in croupier.service.state.casekeep.live_ranks() if r is not Rank.SEVEN)
        journaled = croupier.journal.last_seq
    tap(browser, f'.spade[data-rank="{live.label}"]')
    tap(browser, '#punters button[data-punter="ben"]')
    tap(browser, '#amounts button[data-amount="5"]')
    tap(browser, "#bet")
    assert answer(browser) == "Done"
    with croupier.lock:
        placed = [
            e for e in croupier.journal.events(after_seq=journaled) if isinstance(e, BetPlaced)
        ]
    assert [(e.punter, e.spot, e.amount) for e in placed] == [("ben", live.label, 5)]
    assert wait_until(
        lambda: any(
            chip.get_attribute("data-punter") == "ben"
            and chip.get_attribute("data-spot") == live.label
            for chip in browser.find_elements(By.CSS_SELECTOR, ".chip")
        )
    )


def test_the_page_bets_in_the_name_of_the_account_logged_in_at_it(
    browser: webdriver.Chrome, croupier: Croupier
) -> None:
    croupier.step(2)
    browser.get(croupier.server.url + "croupier")
    assert shows(browser, croupier.service)
    assert browser.find_element(By.ID, "login").is_displayed()
    assert not browser.find_element(By.ID, "bet").is_enabled()
    assert log_in(browser, "guess") == "the broker refused the account terminal: Not authorized"
    assert log_in(browser, ACCOUNTS["display"], username="display") == "display"
    assert not browser.find_element(By.ID, "login").is_displayed()
    live = next(r for r in croupier.service.state.casekeep.live_ranks() if r is not Rank.SEVEN)
    tap(browser, f'.spade[data-rank="{live.label}"]')
    tap(browser, '#punters button[data-punter="anna"]')
    tap(browser, "#bet")
    assert answer(browser) == (
        "the broker does not let the account display send cmd/bet (Not authorized)"
    )
    tap(browser, "#log-out")
    assert not browser.find_element(By.ID, "bet").is_enabled()
    assert log_in(browser, ACCOUNTS["terminal"], username="terminal") == "terminal"
    tap(browser, "#bet")  # the same bet, still chosen
    assert answer(browser) == "Done"
    with croupier.lock:
        placed = [e for e in croupier.journal.events() if isinstance(e, BetPlaced)]
    assert [(e.punter, e.spot) for e in placed if e.punter == "anna"] == [("anna", live.label)]


def test_the_accounts_logged_in_leave_the_broker_with_the_page(secured_broker: Broker) -> None:
    before = set(threading.enumerate())
    relay = MqttCommandRelay(MqttConfig(host="127.0.0.1", port=secured_broker.port), "faro-1")
    for name in ("terminal", "display"):
        assert relay.log_in(Account(name, ACCOUNTS[name])) == {"ok": True, "account": name}
    with pytest.raises(AccountRefusedError):
        relay.log_in(Account("dealer", "guess"))
    relay.close()
    left = [t.name for t in threading.enumerate() if t not in before and t.name.startswith("paho")]
    assert left == [], "MQTT clients still running after the page's relay closed"


def test_a_broker_that_takes_any_password_is_kept_no_more_connections_than_the_page_takes(
    tmp_path: Path, broker: Broker
) -> None:
    """On a broker that takes any password, every password tried at the page is an account
    it accepts: the page keeps a connection for ten at most, the one used longest ago let
    go, and the croupier bets on as before."""
    service, link, journal = start_table(tmp_path, broker.port)
    before = set(threading.enumerate())
    relay = MqttCommandRelay(MqttConfig(host="127.0.0.1", port=broker.port), "faro-1")
    try:
        assert relayed(relay, link, "bet", {"punter": "anna", "spot": "9", "amount": 4})["ok"]
        for attempt in range(30):
            tried = Account("terminal", f"guess {attempt}")
            assert relay.log_in(tried) == {"ok": True, "account": "terminal"}
        connections = [t for t in threading.enumerate() if t not in before]
        assert sum(t.name.startswith("paho") for t in connections) == 10
        answer = relayed(relay, link, "bet", {"punter": "anna", "spot": "K", "amount": 4})
        assert answer["ok"] is True, answer
        assert sorted(bet.stake for bet in service.state.bets.values()) == [4, 4]
    finally:
        relay.close()
        link.stop()
        journal.close()


@pytest.mark.parametrize("name", ["bar+1", "bar#1", "bar/1"])
def test_an_account_whose_name_no_reply_topic_can_hold_is_answered_on_the_shared_replies(
    tmp_path: Path, broker: Broker, name: str
) -> None:
    """A broker may take any name; ``dealtable/faro-1/reply/<name>`` is no topic the table
    answers on where the name holds ``+``, ``#`` or ``/``. The page bets on all the same."""
    service, link, journal = start_table(tmp_path, broker.port)
    relay = MqttCommandRelay(MqttConfig(host="127.0.0.1", port=broker.port), "faro-1")
    try:
        answer = relayed(
            relay, link, "bet", {"punter": "anna", "spot": "9", "amount": 4}, Account(name, "x")
        )
        assert answer["ok"] is True, answer
        assert [bet.stake for bet in service.state.bets.values()] == [4]
    finally:
        relay.close()
        link.stop()
        journal.close()


def test_an_accounts_connection_in_use_is_never_let_go_for_another(
    tmp_path: Path, broker: Broker
) -> None:
    """Past the accounts the page takes, all of them waiting for the table's answer, a new
    one is told to try again: the command waiting is not cut off."""
    _, link, journal = start_table(tmp_path, broker.port)
    relay = MqttCommandRelay(
        MqttConfig(host="127.0.0.1", port=broker.port), "faro-1", timeout=2.0, max_accounts=1
    )
    try:
        waiting: list[dict[str, Any]] = []
        unanswered = threading.Thread(  # the table's link is not pumped: it waits its 2 s
            target=lambda: waiting.append(relay.send(TERMINAL, "bet", {}))
        )
        unanswered.start()
        assert wait_until(lambda: any(held.users for held in relay._links.values()))
        assert relay.log_in(Account("display", "any")) == {
            "ok": False,
            "error": "as many accounts as the page takes (1) are sending commands to the "
            "table at once: try again in a moment",
        }
        unanswered.join()
        assert waiting == [{"ok": False, "error": "the table did not answer within 2 s"}]
        assert relay.log_in(Account("display", "any")) == {"ok": True, "account": "display"}
    finally:
        relay.close()
        link.stop()
        journal.close()


def test_a_refused_bet_shows_the_engines_reason_and_the_page_locks_during_a_turn(
    browser: webdriver.Chrome,
    croupier: Croupier,
) -> None:
    croupier.step(2)
    browser.get(croupier.server.url + "croupier")
    assert shows(browser, croupier.service)
    assert log_in(browser) == "terminal"
    tap(browser, '.spade[data-rank="A"]')
    tap(browser, '.spade[data-rank="9"]')
    tap(browser, '#punters button[data-punter="ben"]')
    tap(browser, "#bet")
    assert "do not lie together on the layout" in answer(browser)
    assert browser.find_element(By.ID, "bet").is_enabled()
    croupier.step()  # the loser of turn 1: bets are locked until its winner
    assert shows(browser, croupier.service)
    assert browser.find_element(By.TAG_NAME, "body").get_attribute("data-locked") == "yes"
    assert not browser.find_element(By.ID, "bet").is_enabled()
    assert browser.find_element(By.ID, "locked").is_displayed()
    croupier.step()
    assert shows(browser, croupier.service)
    assert browser.find_element(By.ID, "bet").is_enabled()


def test_without_a_betting_account_the_page_asks_for_no_password_and_shows_a_reader_lost(
    browser: webdriver.Chrome, tmp_path: Path
) -> None:
    from table.events import ReaderNoticeKind

    journal = Journal(tmp_path / "j.sqlite", "t")
    service = TableService(Config(table=TableConfig(id="t")), journal)
    server, _ = serve(service)
    try:
        browser.get(server.url + "croupier")
        assert shows(browser, service)
        # No form to type a password into: one typed would cross the network for nothing.
        assert not browser.find_element(By.ID, "login").is_displayed()
        said = browser.find_element(By.ID, "only-shown")
        assert said.is_displayed() and said.text.startswith("this page only shows the table")
        assert not browser.find_element(By.ID, "bet").is_enabled()
        browser.get(server.url + "croupier?lang=ru")
        assert shows(browser, service)
        assert browser.find_element(By.ID, "title").text == "Фаро"
        assert browser.find_element(By.ID, "punter-title").text.lower() == "понтёр"
        lost = browser.find_element(By.ID, "readers-lost")
        assert not lost.is_displayed()
        service.reader_notice("barcode", ReaderNoticeKind.READER_LOST, "сканер отключён")
        assert shows(browser, service)
        assert lost.text == "СЧИТЫВАТЕЛЬ ПОТЕРЯН (barcode): сканер отключён"
    finally:
        server.stop()
        journal.close()


def test_the_turn_is_called_from_the_page_before_the_last_turn(
    browser: webdriver.Chrome, croupier: Croupier
) -> None:
    with croupier.lock:
        while croupier.service.faro.cards_left > 3 or not croupier.service.faro.bets_open:
            croupier.simulated.step()
        last = croupier.service.faro.casekeep.remaining_cards()
    browser.get(croupier.server.url + "croupier")
    assert shows(browser, croupier.service)
    assert log_in(browser) == "terminal"
    assert browser.find_element(By.ID, "call-box").is_displayed()
    if len({card.rank for card in last}) == 1:
        words = [card.colour.value for card in last]
    else:
        words = [card.rank.label for card in last]
    for word in words:
        tap(browser, f'#call-order button[data-word="{word}"]')
    tap(browser, '#punters button[data-punter="carla"]')
    tap(browser, '#amounts button[data-amount="2"]')
    tap(browser, "#call")
    assert answer(browser) == "Done"
    with croupier.lock:
        calls = [bet for bet in croupier.service.faro.bets.values() if bet.order]
    assert [
        (bet.punter, list(bet.order or ()), bet.stake) for bet in calls if bet.punter == "carla"
    ] == [("carla", words, 2)]


def test_the_croupiers_relay_leaves_the_broker_when_the_service_stops(
    tmp_path: Path, secured_broker: Broker
) -> None:
    config = Config(
        table=TableConfig(id="faro-1", journal=str(tmp_path / "j.sqlite")),
        reader=ReaderConfig(kind="simulated", seed=8, cards_per_second=0),
        mqtt=MqttConfig(
            host="127.0.0.1",
            port=secured_broker.port,
            username="table-faro-1",
            password=ACCOUNTS["table-faro-1"],
        ),
        display=DisplayConfig(terminal=False),
        web=WebConfig(
            host="127.0.0.1",
            port=free_port(),
            croupier_username="terminal",
        ),
    )
    before = set(threading.enumerate())
    assert run(config, deals=1, out=io.StringIO()) == 0
    left = [
        thread.name
        for thread in threading.enumerate()
        if thread not in before and thread.name.startswith("paho-mqtt-client-")
    ]
    assert left == [], "MQTT clients still running after the service stopped"


def test_a_bet_the_croupier_was_told_had_failed_is_not_made_when_the_table_comes_back(
    tmp_path: Path, secured_broker: Broker
) -> None:
    config = MqttConfig(
        host="127.0.0.1",
        port=secured_broker.port,
        username="table-faro-1",
        password=ACCOUNTS["table-faro-1"],
    )
    journal = Journal(tmp_path / "j.sqlite", "faro-1")
    service = TableService(Config(table=TableConfig(id="faro-1"), mqtt=config), journal)
    for line in ("punter anna 100", "shuffle", "card 2C"):
        service.execute_line(line)
    link = MqttLink(config, "faro-1", service, journal)
    link.start()
    assert wait_until(lambda: link.connected, step=link.pump)
    link.stop()  # the service stops; the broker keeps its session, and queues its commands
    relay = MqttCommandRelay(
        MqttConfig(host="127.0.0.1", port=secured_broker.port), "faro-1", timeout=2.0
    )
    try:
        assert relay.send(TERMINAL, "bet", {"punter": "anna", "spot": "9", "amount": 10}) == {
            "ok": False,
            "error": "the table did not answer within 2 s",
        }
        link = MqttLink(config, "faro-1", service, journal)  # the service is back
        link.start()
        assert wait_until(lambda: link.connected, step=link.pump)
        # The croupier bets again: this bet reaches the table after any older one.
        answer = relayed(relay, link, "bet", {"punter": "anna", "spot": "K", "amount": 4})
        assert answer["ok"] is True, answer
        placed = [e for e in journal.events() if isinstance(e, BetPlaced)]
        assert [(e.spot, e.amount) for e in placed] == [("K", 4)]
    finally:
        relay.close()
        link.stop()
        journal.close()


def test_a_bet_sent_while_the_broker_was_away_is_not_made_once_it_is_back(
    tmp_path: Path, secured_broker: Broker
) -> None:
    """The croupier bets while the table's broker is down: the page says the bet failed, and
    so it stays. Held in the page's own connection, it went out once the broker was back,
    and the table made the bet the croupier had been told had failed."""
    _, link, journal = start_table(tmp_path, secured_broker.port)
    relay = MqttCommandRelay(
        MqttConfig(host="127.0.0.1", port=secured_broker.port), "faro-1", timeout=2.0
    )
    try:
        assert relayed(relay, link, "bet", {"punter": "anna", "spot": "9", "amount": 4})["ok"]
        secured_broker.stop()
        failed = relay.send(TERMINAL, "bet", {"punter": "anna", "spot": "Q", "amount": 10})
        assert failed["ok"] is False
        assert "broker" in failed["error"], failed
        secured_broker.start()
        assert wait_until(lambda: link.connected, step=link.pump, timeout=30)
        # The croupier bets again: this bet reaches the table after any older one.
        answer = relayed(relay, link, "bet", {"punter": "anna", "spot": "K", "amount": 4})
        assert answer["ok"] is True, answer
        placed = [e for e in journal.events() if isinstance(e, BetPlaced)]
        assert [(e.spot, e.amount) for e in placed] == [("9", 4), ("K", 4)]
    finally:
        relay.close()
        link.stop()
        journal.close()
