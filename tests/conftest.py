"""Shared fixtures: Faro tables set up as the seeds' examples set them up."""

from __future__ import annotations

import base64
import hashlib
import os
import shutil
import ssl
import subprocess
import threading
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings
from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service

from table.cards import Card
from table.events import BetSettled, Event
from table.faro import FaroTable
from table.service.config import (
    Config,
    PunterConfig,
    ReaderConfig,
    TableConfig,
    WebTlsConfig,
    web_tls_context,
)
from table.service.mqtt import MqttLink
from table.service.web import Account, MqttCommandRelay
from tests.mosquitto import Broker, free_port, wait_until

# The tests start dealtable as a process some hundreds of times: where the environment says
# not to write bytecode, each start would compile the whole project again (a quarter of a
# second of a core). The compiled files go to __pycache__, which git ignores.
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)

# The property tests draw the same examples on every run, so that `make test` gives one
# answer on every machine; HYPOTHESIS_PROFILE=explore draws new ones each run, to look for
# what the fixed ones miss. Neither times an example or its drawing (hypothesis's deadline
# and too_slow check): those judge the machine's speed, and a busy machine failed them.
TIMED_BY_NONE = {"deadline": None, "suppress_health_check": [HealthCheck.too_slow]}
settings.register_profile("repeatable", derandomize=True, **TIMED_BY_NONE)
settings.register_profile("explore", derandomize=False, **TIMED_BY_NONE)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "repeatable"))


def punto_banco_config(journal: Path) -> Config:
    """A house-banked Punto Banco table "pb" (004) whose cards come from the console."""
    return Config(
        table=TableConfig(
            id="pb",
            game="punto-banco",
            rules="standard",
            options={"burn": "one"},
            bank=5000,
            journal=str(journal),
        ),
        reader=ReaderConfig(kind="console"),
    )


def players_bank_config(
    journal: Path, table_id: str, game: str = "chemin-de-fer", punters: Iterable[str] = ()
) -> Config:
    """A table of the baccarat family where a player holds the bank (002), its cards from the
    console, no burn; ``punters`` seated with 500 chips each."""
    return Config(
        table=TableConfig(
            id=table_id,
            game=game,
            rules="standard",
            options={"burn": "none"},
            journal=str(journal),
            punters=tuple(PunterConfig(name, 500) for name in punters),
        ),
        reader=ReaderConfig(kind="console"),
    )


def cards(text: str) -> list[Card]:
    return [Card.parse(word) for word in text.split()]


def deal(table: FaroTable, text: str) -> list[Event]:
    """Deal these cards, one at a time, in box order."""
    events: list[Event] = []
    for card in cards(text):
        events += table.deal(card)
    return events


def settlements(events: Iterable[Event]) -> list[tuple[str, str, str, int]]:
    """(punter, spot, outcome, net) of every settled bet, in order."""
    return [
        (event.punter, event.spot, event.outcome.value, event.net)
        for event in events
        if isinstance(event, BetSettled)
    ]


def deal_rest(table: FaroTable, order: str = "") -> list[Event]:
    """Deal ``order`` then every card still in the box (deck order) to the hoc."""
    events = deal(table, order)
    for card in table.state.casekeep.remaining_cards():
        events += table.deal(card)
    return events


def open_table(
    rules: str = "classic",
    punters: dict[str, int] | None = None,
    bank: int = 1000,
    soda: str | None = "2C",
    **options: str,
) -> FaroTable:
    """A table with a bank, punters seated, a new deck and (by default) the soda out."""
    table = FaroTable("t1", rules, options or None)
    if not table.state.rules.bank_passes:
        table.fund_bank(bank)
    for name, bankroll in (punters or {"dan": 100, "anna": 100, "ben": 100}).items():
        table.seat(name, bankroll)
    table.new_deck()
    if soda:
        table.deal(Card.parse(soda))
    return table


@pytest.fixture
def table() -> FaroTable:
    return open_table()


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[Broker]:
    """A real Mosquitto on a free port with a temp config (anonymous clients allowed)."""
    running = Broker(tmp_path / "broker")
    running.directory.mkdir()
    running.start()
    yield running
    running.stop()


# --- a real Mosquitto with hw/mosquitto's ACL -----------------------------------------

HW = Path(__file__).resolve().parent.parent / "hw" / "mosquitto"
ACCOUNTS = {
    "table-faro-1": "t4ble",
    "dealer": "d3aler",
    "terminal": "t3rminal",
    "display": "d1splay",
}


def make_password_file(path: Path, accounts: dict[str, str] | None = None) -> None:
    """The accounts' password file as hw/mosquitto/make-passwords.sh makes it in an automated
    install: the passwords piped to it, one a line, in its order of the accounts (the
    example's, or ``accounts`` named on its command line)."""
    named = [] if accounts is None else list(accounts)
    passwords = "".join(f"{password}\n" for password in (accounts or ACCOUNTS).values())
    subprocess.run(
        ["/bin/bash", str(HW / "make-passwords.sh"), str(path), *named],
        input=passwords,
        text=True,
        check=True,
        capture_output=True,
    )


def broker_folder(tmp_path: Path) -> tuple[Path, Path]:
    """A broker's folder with its password file holding every test account."""
    directory = tmp_path / "broker"
    directory.mkdir()
    passwords = directory / "passwd"
    passwords.touch()
    make_password_file(passwords)
    return directory, passwords


def secured(directory: Path, passwords: Path) -> Broker:
    """A broker (not started) that takes only the accounts in ``passwords``, each allowed
    what the access list ``acl`` in ``directory`` says."""
    return Broker(
        directory,
        extra_config=(
            f"allow_anonymous false\npassword_file {passwords}\nacl_file {directory / 'acl'}\n"
        ),
    )


@pytest.fixture
def secured_broker(tmp_path: Path) -> Iterator[Broker]:
    directory, passwords = broker_folder(tmp_path)
    shutil.copy(HW / "acl", directory / "acl")
    broker = secured(directory, passwords)
    broker.start()
    yield broker
    broker.stop()


TERMINAL = Account("terminal", ACCOUNTS["terminal"])


def relayed(
    relay: MqttCommandRelay,
    link: MqttLink,
    verb: str,
    payload: dict[str, Any],
    account: Account = TERMINAL,
) -> dict[str, Any]:
    """The table's answer to a command sent through ``relay`` in ``account``'s name, the
    table's link pumped meanwhile as its service's loop would."""
    answers: list[dict[str, Any]] = []
    croupier = threading.Thread(target=lambda: answers.append(relay.send(account, verb, payload)))
    croupier.start()
    assert wait_until(lambda: bool(answers), step=link.pump)
    croupier.join()
    return answers[0]


@pytest.fixture(scope="session")
def example_certs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """hw/mosquitto's private CA and a broker certificate for localhost."""
    certs = tmp_path_factory.mktemp("certs")
    subprocess.run(
        [str(HW / "make-certs.sh"), str(certs), "localhost"], check=True, capture_output=True
    )
    return certs


@dataclass
class ShippedBroker:
    """Mosquitto with hw/mosquitto's dealtable.conf, its files and ports moved to the test."""

    broker: Broker  # its port is the plain listener on the Pi itself
    network_port: int  # the TLS listener for displays, terminals and tablets
    ca_file: Path


def shipped_config(directory: Path, local_port: int, network_port: int, certs: Path) -> str:
    text = (HW / "dealtable.conf").read_text()
    for installed, here in (
        ("/etc/mosquitto/dealtable.passwd", f"{directory / 'passwd'}"),
        ("/etc/mosquitto/dealtable.acl", f"{directory / 'acl'}"),
        ("/etc/mosquitto/certs/", f"{certs}/"),
        ("listener 1883 127.0.0.1\n", f"listener {local_port} 127.0.0.1\n"),
        ("listener 8883\n", f"listener {network_port} 127.0.0.1\n"),
    ):
        assert installed in text, f"dealtable.conf no longer says {installed!r}"
        text = text.replace(installed, here)
    return text


@pytest.fixture
def shipped_broker(tmp_path: Path, example_certs: Path) -> Iterator[ShippedBroker]:
    directory = tmp_path / "broker"
    directory.mkdir()
    (directory / "passwd").touch()
    make_password_file(directory / "passwd")
    shutil.copy(HW / "acl", directory / "acl")
    local_port, network_port = free_port(), free_port()
    # Installed as hw/mosquitto/README.md says: into conf.d, read by Debian's own
    # mosquitto.conf, whose persistence lines it must not repeat.
    (directory / "conf.d").mkdir()
    (directory / "conf.d" / "dealtable.conf").write_text(
        shipped_config(directory, local_port, network_port, example_certs)
    )
    debian_main_config = (
        f"persistence true\npersistence_location {directory}/\ninclude_dir {directory / 'conf.d'}\n"
    )
    broker = Broker(directory, port=local_port, whole_config=debian_main_config)
    broker.start()
    yield ShippedBroker(broker, network_port, example_certs / "ca.crt")
    broker.stop()


# --- a certificate for the table's page over HTTPS -------------------------------------


@dataclass(frozen=True)
class PageCertificate:
    """A self-signed certificate for localhost and 127.0.0.1, with its key."""

    cert_file: Path
    key_file: Path
    spki_sha256: str  # its public key's hash, as Chromium is told to trust one certificate

    def server_context(self) -> ssl.SSLContext:
        """The page server's TLS, set up as `dealtable run` sets up its [web] tls."""
        return web_tls_context("test", WebTlsConfig(str(self.cert_file), str(self.key_file)))

    def client_context(self) -> ssl.SSLContext:
        """A client's TLS that trusts this certificate and checks it as a browser would."""
        return ssl.create_default_context(cafile=str(self.cert_file))


def make_certificate(cert_file: Path, key_file: Path, days: int = 365) -> tuple[Path, Path]:
    """A new self-signed certificate for localhost and 127.0.0.1, and its key (openssl's)."""
    subprocess.run(
        [
            "openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
            "-nodes", "-days", str(days), "-subj", "/CN=localhost",
            "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
            "-keyout", str(key_file), "-out", str(cert_file),
        ],
        check=True,
        capture_output=True,
    )  # fmt: skip
    return cert_file, key_file


@pytest.fixture(scope="session")
def page_certificate(tmp_path_factory: pytest.TempPathFactory) -> PageCertificate:
    openssl = shutil.which("openssl")
    if openssl is None:
        pytest.skip(
            "openssl is not installed (apt-get install openssl): it makes the test's certificate"
        )
    folder = tmp_path_factory.mktemp("page-certificate")
    cert_file, key_file = make_certificate(folder / "page.crt", folder / "page.key")
    public_key = subprocess.run(
        [openssl, "x509", "-in", str(cert_file), "-pubkey", "-noout"],
        check=True,
        capture_output=True,
    ).stdout
    spki = subprocess.run(
        [openssl, "pkey", "-pubin", "-outform", "der"],
        input=public_key,
        check=True,
        capture_output=True,
    ).stdout
    return PageCertificate(
        cert_file, key_file, base64.b64encode(hashlib.sha256(spki).digest()).decode()
    )


# --- a real headless Chromium ---------------------------------------------------------

CHROMIUM_FLAGS = [
    "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--no-first-run", "--window-size=1920,1080",
]  # fmt: skip


def chromium(*more_flags: str) -> webdriver.Chrome:
    options = Options()
    options.binary_location = "/usr/bin/chromium"
    for flag in (*CHROMIUM_FLAGS, *more_flags):
        options.add_argument(flag)
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


@pytest.fixture(scope="module")
def browser() -> Iterator[webdriver.Chrome]:
    driver = chromium()
    yield driver
    driver.quit()


@pytest.fixture(scope="module")
def tls_browser(page_certificate: PageCertificate) -> Iterator[webdriver.Chrome]:
    """Chromium trusting the page's self-signed certificate, and no other one."""
    driver = chromium(f"--ignore-certificate-errors-spki-list={page_certificate.spki_sha256}")
    yield driver
    driver.quit()
