"""The table's configuration: TOML read into typed dataclasses.

Every error names the file, the key and what was expected::

    table.toml: [mqtt] port: expected a whole number from 1 to 65535, got "18x3"

A minimal file::

    [table]
    id = "faro-1"
    game = "faro"
    rules = "classic"
    options = { cat_hop_pays = 1 }
    bank = 1000
    journal = "/var/lib/dealtable/faro-1.sqlite"

    [reader]
    kind = "simulated"        # simulated | console | serial-scanner | board-scanner
    seed = 7
    cards_per_second = 1.0

    [mqtt]
    host = "localhost"
    port = 1883
    username = "table-faro-1"
    password_file = "/etc/dealtable/mqtt-password"
"""

from __future__ import annotations

import ipaddress
import math
import ssl
import time
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from table.baccarat.engine import BaccaratTable
from table.baccarat.rules import find_rules as find_baccarat_rules
from table.errors import RulesError, TableError
from table.faro.engine import FaroTable
from table.faro.rules import find_rules
from table.games import GAME_FACTORIES
from table.service.journal import archive_folder_beside

READER_KINDS = (
    "simulated",
    "console",
    "serial-scanner",
    "board-scanner",
    "camera",
    "barcode-camera",
)


class ConfigError(TableError):
    """A configuration file that cannot be used; the message names file, key and expectation."""


@dataclass(frozen=True)
class PunterConfig:
    name: str
    bankroll: int


@dataclass(frozen=True)
class TableConfig:
    id: str = "table"
    game: str = "faro"
    rules: str = "classic"
    options: dict[str, str] = field(default_factory=dict)
    bank: int = 2000
    journal: str = "table-journal.sqlite"  # beside where it runs, named after the table
    # Once this many records lie before the table's spare checkpoint, they move to a file of
    # their own in archive_dir ("" = a folder beside the journal named after it); 0 = never.
    archive_every: int = 200_000
    archive_dir: str = ""
    # The newest archives kept; older ones are deleted as each new one is written. 0 = all.
    archives_kept: int = 0
    punters: tuple[PunterConfig, ...] = ()
    advisor: bool = False  # publish each live rank's split risk and edge (a museum will)


@dataclass(frozen=True)
class ReaderConfig:
    kind: str = "simulated"
    seed: int = 1
    cards_per_second: float = 1.0
    url: str = ""  # the serial scanner's port
    camera: str = "picamera"  # picamera, usb:N, video:FILE or folder:DIR
    deck: str = ""  # the deck profile taught with `dealtable teach`


@dataclass(frozen=True)
class TlsConfig:
    ca_file: str = ""
    cert_file: str = ""
    key_file: str = ""


@dataclass(frozen=True)
class MqttConfig:
    host: str = "localhost"
    port: int = 1883
    username: str = ""
    password: str = ""
    client_id: str = ""
    session_expiry: int = 86400
    keepalive: int = 30
    tls: TlsConfig | None = None
    prefix: str = "dealtable"


@dataclass(frozen=True)
class HardwareConfig:
    """The table's own devices; the board file says which pins and ports they are on."""

    board: str = ""  # empty: hw/board.toml
    pin_factory: str = ""  # empty: the board's own ("mock" runs without a Pi)
    abacus: bool = True
    buttons: bool = True
    layout: bool = True
    microcontroller_url: str = ""  # empty: the board's own
    # The light barrier across the box's slot on the Pi's own pin (hw/WIRING.md), if one is
    # wired there: with a barcode shoe, a card that slid out with no code read is a question.
    shoe_sensor: bool = False


@dataclass(frozen=True)
class WebTlsConfig:
    """The page server's certificate and its private key (PEM): with them it speaks only HTTPS."""

    cert_file: str
    key_file: str = ""  # empty: the key is in cert_file too


@dataclass(frozen=True)
class WebConfig:
    host: str = "0.0.0.0"
    port: int = 8080
    language: str = "en"
    # The croupier's page takes bets, through the broker, each in the name of the account
    # logged in at the page; its login form offers this one.
    croupier_username: str = ""
    tls: WebTlsConfig | None = None


@dataclass(frozen=True)
class ExhibitConfig:
    """A museum table: every turn explained in plain words; simulated punters bet on the
    cards the real shoe deals."""

    language: str = "en"
    punters: bool = True


@dataclass(frozen=True)
class DisplayConfig:
    terminal: bool = True


@dataclass(frozen=True)
class Config:
    source: str = "(built-in)"
    table: TableConfig = field(default_factory=TableConfig)
    reader: ReaderConfig = field(default_factory=ReaderConfig)
    mqtt: MqttConfig | None = None
    display: DisplayConfig = field(default_factory=DisplayConfig)
    hardware: HardwareConfig | None = None
    web: WebConfig | None = None
    exhibit: ExhibitConfig | None = None


class _Section:
    """Reads one TOML table with errors that name the file and key."""

    def __init__(self, source: str, name: str, data: object) -> None:
        self.source = source
        self.name = name
        if not isinstance(data, dict):
            raise ConfigError(f"{source}: [{name}] must be a table")
        self.data: dict[str, Any] = data
        self.seen: set[str] = set()

    def fail(self, key: str, expected: str, value: object) -> ConfigError:
        return ConfigError(
            f"{self.source}: [{self.name}] {key}: expected {expected}, got {value!r}"
        )

    def get(self, key: str, default: Any) -> Any:
        self.seen.add(key)
        return self.data.get(key, default)

    def text(self, key: str, default: str) -> str:
        value = self.get(key, default)
        if not isinstance(value, str):
            raise self.fail(key, "text", value)
        return value

    def secret(self, key: str) -> str:
        """A password: refused, like any text, when it is not one, but never written back in
        the message, which goes to the log."""
        value = self.get(key, "")
        if not isinstance(value, str):
            raise ConfigError(
                f"{self.source}: [{self.name}] {key}: expected text (in quotes), got a "
                f"{_toml_kind(value)}; its value is not shown"
            )
        return value

    def whole(self, key: str, default: int, low: int, high: int | None = None) -> int:
        value = self.get(key, default)
        if (
            isinstance(value, bool)
            or not isinstance(value, int)
            or value < low
            or (high is not None and value > high)
        ):
            span = f"from {low} to {high}" if high is not None else f"of at least {low}"
            raise self.fail(key, f"a whole number {span}", value)
        return value

    def number(self, key: str, default: float, low: float) -> float:
        value = self.get(key, default)
        if (
            isinstance(value, bool)
            or not isinstance(value, int | float)
            # TOML writes nan and inf too: neither is a pace (nan passes every comparison).
            or not math.isfinite(value)
            or value < low
        ):
            raise self.fail(key, f"a number of at least {low:g}", value)
        return float(value)

    def flag(self, key: str, default: bool) -> bool:
        value = self.get(key, default)
        if not isinstance(value, bool):
            raise self.fail(key, "true or false", value)
        return value

    def choice(self, key: str, default: str, choices: tuple[str, ...] | list[str]) -> str:
        value = self.text(key, default)
        if value not in choices:
            raise self.fail(key, "one of " + ", ".join(choices), value)
        return value

    def finish(self) -> None:
        unknown = sorted(set(self.data) - self.seen)
        if unknown:
            known = ", ".join(sorted(self.seen))
            raise ConfigError(
                f"{self.source}: [{self.name}] unknown key {unknown[0]!r} (known: {known})"
            )


def _toml_kind(value: object) -> str:
    """What TOML made of a value, in its own words."""
    if isinstance(value, bool):
        return "true or false"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, list):
        return "list"
    if isinstance(value, dict):
        return "table"
    return "date or time"


T = TypeVar("T")


class _Problems:
    """What is wrong with a configuration, a line a section, so that one check shows all."""

    def __init__(self) -> None:
        self.found: list[str] = []

    def read(self, section: Callable[[], T]) -> T | None:
        """``section()``, or None with its error written down."""
        try:
            return section()
        except ConfigError as error:
            self.found.append(str(error))
            return None


def parse_config(text: str, source: str = "(text)", *, journal: str | None = None) -> Config:
    """Read a table.toml; a :class:`ConfigError` names every section that is wrong, each
    with its file, key and what was expected. ``journal`` (``run --journal``) replaces the
    file's own."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{source}: not valid TOML: {error}") from None
    top = _Section(source, "top level", data)
    problems = _Problems()
    table = problems.read(lambda: _table(source, top.get("table", {}), journal))
    reader = problems.read(lambda: _reader(source, top.get("reader", {})))
    mqtt_data = top.get("mqtt", None)
    table_id = table.id if table else "table"
    mqtt = None if mqtt_data is None else problems.read(lambda: _mqtt(source, mqtt_data, table_id))
    display = problems.read(lambda: _display(source, top.get("display", {})))
    hardware_data = top.get("hardware", None)
    hardware = (
        None if hardware_data is None else problems.read(lambda: _hardware(source, hardware_data))
    )
    web_data = top.get("web", None)
    web = None if web_data is None else problems.read(lambda: _web(source, web_data))
    exhibit_data = top.get("exhibit", None)
    exhibit = (
        None if exhibit_data is None else problems.read(lambda: _exhibit(source, exhibit_data))
    )
    problems.read(top.finish)
    if (
        reader is not None
        and reader.kind == "board-scanner"
        and (hardware is None or not hardware.layout)
    ):
        problems.found.append(
            f'{source}: [reader] kind = "board-scanner": the scanner wired to the layout '
            "board is read over that board's link: add [hardware] with layout = true"
        )
    if table is not None and table.game != "faro":
        # The simulated dealer and punters and the LED casekeep are Faro's.
        faro_only = [
            name
            for name, used in (
                ('[reader] kind = "simulated"', reader is not None and reader.kind == "simulated"),
                ("[hardware]", "hardware" in top.data),
                ("[exhibit]", "exhibit" in top.data),
                # The table's own page shows any game; the croupier's is Faro's layout.
                ("[web] croupier_username", web is not None and bool(web.croupier_username)),
            )
            if used
        ]
        if faro_only:
            problems.found.append(
                f"{source}: {', '.join(faro_only)}: only a Faro table has this; a {table.game} "
                "table reads its cards from the console, a barcode shoe or a camera, and its bets "
                "from the console or MQTT"
            )
    if problems.found or table is None or reader is None or display is None:
        raise ConfigError("\n".join(problems.found))
    return Config(source, table, reader, mqtt, display, hardware, web, exhibit)


def _display(source: str, data: object) -> DisplayConfig:
    section = _Section(source, "display", data)
    config = DisplayConfig(terminal=section.flag("terminal", True))
    section.finish()
    return config


def _web(source: str, data: object) -> WebConfig:
    section = _Section(source, "web", data)
    if section.get("croupier_password_file", None) is not None:
        raise ConfigError(
            f"{source}: [web] croupier_password_file: the croupier's page keeps no password: "
            "whoever uses it logs in with their own account on the table's broker; remove "
            "this line (and the file)"
        )
    tls = None
    tls_data = section.get("tls", None)
    if tls_data is not None:
        tls = WebTlsConfig(**_file_names(source, "web.tls", tls_data, ("cert_file", "key_file")))
        web_tls_context(source, tls)
    config = WebConfig(
        host=section.text("host", "0.0.0.0"),
        port=section.whole("port", 8080, 1, 65535),
        language=section.choice("language", "en", ("en", "es", "ru")),
        croupier_username=section.text("croupier_username", ""),
        tls=tls,
    )
    section.finish()
    return config


def web_tls_context(source: str, tls: WebTlsConfig) -> ssl.SSLContext:
    """The page server's side of TLS (TLS 1.2 at least) with the certificate and key of
    ``tls`` loaded: read by ``config check`` as by ``run``, so that a file that is not what
    its key says is refused, naming the key, before anything starts."""
    if not tls.cert_file:
        raise ConfigError(
            f"{_where(source, 'web.tls', 'cert_file')}: expected the file of the page's "
            "certificate (PEM), got ''"
        )
    _check_files_exist(source, "web.tls", {"cert_file": tls.cert_file, "key_file": tls.key_file})
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    _load_certificate(source, "web.tls", context, tls.cert_file, tls.key_file)
    return context


# How long before a page's certificate lapses the operator is told, at each start.
CERTIFICATE_WARNING_DAYS = 30


def config_warnings(config: Config, now: float | None = None) -> list[str]:
    """What, as configured, works but should not be left so: passwords that cross the
    network readable, to the pages or to the broker; a page's certificate that has lapsed or
    soon will."""
    tls = config.web.tls if config.web is not None else None
    certificate = None if tls is None else certificate_warning(config.source, tls, now)
    found = [_password_warning(config), _broker_password_warning(config), certificate]
    return [warning for warning in found if warning]


def _broker_password_warning(config: Config) -> str | None:
    """Why the table's broker account, or each croupier's through the page, sends its password
    readable: a broker on another machine reached without TLS (the one on the Pi itself is
    reached over loopback, which no one else can read)."""
    mqtt = config.mqtt
    if mqtt is None or mqtt.tls is not None or _loopback(mqtt.host):
        return None
    croupiers = config.web is not None and bool(config.web.croupier_username)
    whose = [
        who for who, sends in (("the table's", bool(mqtt.password)), ("each croupier's", croupiers))
        if sends
    ]  # fmt: skip
    if not whose:
        return None
    return (
        f"{config.source}: [mqtt] host: the broker at {mqtt.host}:{mqtt.port} is reached "
        f"without TLS, so {' and '.join(whose)} password crosses the network in the clear, for "
        "anyone on it to read: set [mqtt] tls (hw/mosquitto/README.md)"
    )


def certificate_warning(source: str, tls: WebTlsConfig, now: float | None = None) -> str | None:
    """A certificate out of its dates is loaded all the same (the table must deal), but
    every browser refuses the page: said at each start and renewal, and a month before it
    lapses."""
    decode = getattr(ssl._ssl, "_test_decode_cert", None)  # type: ignore[attr-defined]
    if decode is None:
        return None
    try:
        dates = decode(tls.cert_file)
        starts = ssl.cert_time_to_seconds(dates["notBefore"])
        ends = ssl.cert_time_to_seconds(dates["notAfter"])
    except (OSError, ValueError, KeyError, ssl.SSLError):
        return None  # the context's own loading names what is wrong with the file
    now = time.time() if now is None else now
    where = f"{_where(source, 'web.tls', 'cert_file')}: the certificate in {tls.cert_file}"
    if now < starts:
        return f"{where} is valid only from {dates['notBefore']}: browsers refuse the page"
    if now >= ends:
        return f"{where} lapsed on {dates['notAfter']}: browsers refuse the page; renew it"
    if ends - now < CERTIFICATE_WARNING_DAYS * 86400:
        return f"{where} lapses on {dates['notAfter']}: renew it before then"
    return None


def _password_warning(config: Config) -> str | None:
    """Why the croupier's page, as configured, lets passwords cross the network readable."""
    web = config.web
    if web is None or not web.croupier_username or web.tls is not None:
        return None
    if _loopback(web.host):
        return None
    return (
        f"{config.source}: [web] croupier_username: the croupier's page is served over plain "
        f"HTTP on {web.host or 'every address'}, so each broker password typed there crosses "
        "the network in the clear: set [web] tls = { cert_file = ..., key_file = ... }, or "
        'host = "127.0.0.1" behind a TLS proxy'
    )


def _loopback(host: str) -> bool:
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False  # a name: whatever it stands for, it may be on the network


def _exhibit(source: str, data: object) -> ExhibitConfig:
    section = _Section(source, "exhibit", data)
    config = ExhibitConfig(
        language=section.choice("language", "en", ("en", "es", "ru")),
        punters=section.flag("punters", True),
    )
    section.finish()
    return config


def _hardware(source: str, data: object) -> HardwareConfig:
    section = _Section(source, "hardware", data)
    config = HardwareConfig(
        board=section.text("board", ""),
        pin_factory=section.choice("pin_factory", "", ("", "lgpio", "rpigpio", "native", "mock")),
        abacus=section.flag("abacus", True),
        buttons=section.flag("buttons", True),
        layout=section.flag("layout", True),
        microcontroller_url=section.text("microcontroller_url", ""),
        shoe_sensor=section.flag("shoe_sensor", False),
    )
    section.finish()
    if config.board and not Path(config.board).exists():
        raise ConfigError(f"{source}: [hardware] board: no board file at {config.board}")
    return config


def load_config(path: str | Path, *, journal: str | None = None) -> Config:
    return parse_config(_config_text(Path(path)), str(path), journal=journal)


def _config_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except OSError as error:
        raise ConfigError(f"{path}: cannot read: {error.strerror}") from None
    except UnicodeDecodeError as error:
        raise ConfigError(f"{path}: not UTF-8 text ({_bad_byte(error)}); TOML is UTF-8") from None


@dataclass(frozen=True)
class BrokerNames:
    """What the broker's access list needs of a table's config: its id, and (if it uses a
    broker) its topics' prefix and its account, and the account its croupier's page offers."""

    table_id: str
    uses_broker: bool
    prefix: str = "dealtable"
    username: str = ""
    croupier_username: str = ""


def load_broker_names(path: str | Path) -> BrokerNames:
    """The names a broker's access list is written from, read from a table's config on the
    broker's machine, which may be another than the table's: the table's own files (journal,
    password, certificates, devices) are on its machine, and are not looked for here.
    ``config check`` reads the whole config, on the table's machine."""
    source = str(path)
    try:
        data = tomllib.loads(_config_text(Path(path)))
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{source}: not valid TOML: {error}") from None
    top = _Section(source, "top level", data)
    table_id = _table_id(_Section(source, "table", top.get("table", {})))
    web_data = top.get("web", None)
    croupier = (
        "" if web_data is None else _Section(source, "web", web_data).text("croupier_username", "")
    )
    mqtt_data = top.get("mqtt", None)
    if mqtt_data is None:
        return BrokerNames(table_id, uses_broker=False, croupier_username=croupier)
    mqtt = _Section(source, "mqtt", mqtt_data)
    return BrokerNames(
        table_id,
        uses_broker=True,
        prefix=_topic_prefix(mqtt),
        username=mqtt.text("username", ""),
        croupier_username=croupier,
    )


def _password_from(source: str, key: str, path: str) -> str:
    try:
        return Path(path).read_text(encoding="utf-8").strip()
    except OSError as error:
        raise ConfigError(f"{source}: {key}: cannot read {path}: {error.strerror}") from None
    except UnicodeDecodeError as error:
        raise ConfigError(
            f"{source}: {key}: expected the password as UTF-8 text in {path}, got "
            f"{_bad_byte(error)}"
        ) from None


def _bad_byte(error: UnicodeDecodeError) -> str:
    return f"byte {error.object[error.start]:#04x} at offset {error.start}"


def builtin_config(journal: str | None = None) -> Config:
    """The fully simulated Faro table of `dealtable run` with no config file."""
    if journal is None:
        return Config()
    problem = journal_problem(journal)
    if problem:
        raise ConfigError(f"--journal: {problem}")
    return Config(table=TableConfig(journal=journal))


def _archive_dir(section: _Section) -> str:
    folder = section.text("archive_dir", "")
    if folder and Path(folder).exists() and not Path(folder).is_dir():
        raise section.fail("archive_dir", "a folder for the journal's archives", folder)
    return folder


def archive_folder(table: TableConfig) -> Path:
    """Where the journal's archives go: ``archive_dir``, or a folder beside the journal."""
    return Path(table.archive_dir) if table.archive_dir else archive_folder_beside(table.journal)


def journal_problem(path: str) -> str | None:
    """Why no journal can be kept at ``path`` (the first start makes the file, not its folder)."""
    if not path.strip():
        return f"expected a file path for the journal, got {path!r}"
    file = Path(path)
    if file.is_dir():
        return f"{path} is a folder: name the journal's file in it"
    if not file.parent.is_dir():
        return f"there is no folder {file.parent} for the journal"
    return None


def _table(source: str, data: object, journal_override: str | None = None) -> TableConfig:
    section = _Section(source, "table", data)
    table_id = _table_id(section)
    game = section.choice("game", "faro", sorted(GAME_FACTORIES))
    rules = section.text("rules", "classic" if game == "faro" else "standard")
    raw_options = section.get("options", {})
    if not isinstance(raw_options, dict):
        raise section.fail("options", "a table of rule options", raw_options)
    options = {
        str(key): str(value).lower() if isinstance(value, bool) else str(value)
        for key, value in raw_options.items()
    }
    try:
        if game == "faro":
            find_rules(rules, options)
        else:
            find_baccarat_rules(game, rules, options).check_cut_card()
    except RulesError as error:
        raise ConfigError(f"{source}: [table] rules/options: {error}") from None
    punters = []
    raw_punters = section.get("punters", [])
    if not isinstance(raw_punters, list):
        raise section.fail("punters", "a list of { name, bankroll }", raw_punters)
    for index, raw in enumerate(raw_punters):
        entry = _Section(source, f"table.punters[{index}]", raw)
        punters.append(PunterConfig(entry.text("name", ""), entry.whole("bankroll", 100, 1)))
        entry.finish()
    _seat_punters(source, game, rules, options, punters)
    journal = section.text("journal", f"{table_id}-journal.sqlite")
    if journal_override is not None:
        journal = journal_override
    problem = journal_problem(journal)
    if problem:
        where = "--journal" if journal_override is not None else f"{source}: [table] journal"
        raise ConfigError(f"{where}: {problem}")
    config = TableConfig(
        id=table_id,
        game=game,
        rules=rules,
        options=options,
        bank=section.whole("bank", 2000, 0),
        journal=journal,
        archive_every=section.whole("archive_every", 200_000, 0),
        archive_dir=_archive_dir(section),
        archives_kept=section.whole("archives_kept", 0, 0),
        punters=tuple(punters),
        advisor=section.flag("advisor", False),
    )
    section.finish()
    return config


def _table_id(section: _Section) -> str:
    table_id = section.text("id", "table")
    if not table_id or not all(c.isalnum() or c in "-_" for c in table_id):
        raise section.fail("id", "letters, digits, '-' or '_' (it names MQTT topics)", table_id)
    return table_id


def _seat_punters(
    source: str, game: str, rules: str, options: dict[str, str], punters: list[PunterConfig]
) -> None:
    """Seat the punters at a table of this game as the service will on its first start, so
    that a name the table refuses (twice, empty, with a space) is found by the check."""
    table = (
        FaroTable("check", rules, options or None)
        if game == "faro"
        else BaccaratTable("check", game, rules, options or None)
    )
    for punter in punters:
        try:
            table.seat(punter.name, punter.bankroll)
        except TableError as refused:
            raise ConfigError(f"{source}: [table] punters: {refused}") from None


def _reader(source: str, data: object) -> ReaderConfig:
    section = _Section(source, "reader", data)
    config = ReaderConfig(
        kind=section.choice("kind", "simulated", READER_KINDS),
        seed=section.whole("seed", 1, 0),
        cards_per_second=section.number("cards_per_second", 1.0, 0.0),
        url=section.text("url", ""),
        camera=section.text("camera", "picamera"),
        deck=section.text("deck", ""),
    )
    section.finish()
    if config.kind == "serial-scanner" and not config.url:
        raise ConfigError(f"{source}: [reader] url: a serial scanner needs a port URL")
    if config.kind in ("camera", "barcode-camera"):
        _check_camera(source, config.camera)
        if config.kind == "camera":
            _check_deck(source, config.deck)
    return config


def _check_camera(source: str, camera: str) -> None:
    kind, _, where = camera.partition(":")
    if (
        kind not in ("picamera", "usb", "video", "folder")
        or (kind == "picamera" and where)
        or (kind == "usb" and where and not where.isdigit())
        or (kind in ("video", "folder") and not where)
    ):
        raise ConfigError(
            f"{source}: [reader] camera: expected picamera, usb:N (N a camera number), "
            f"video:FILE or folder:DIR, got {camera!r}"
        )
    if kind == "video" and not Path(where).is_file():
        raise ConfigError(f"{source}: [reader] camera: there is no video file {where}")
    if kind == "folder" and not Path(where).is_dir():
        raise ConfigError(f"{source}: [reader] camera: there is no folder {where}")


def _check_deck(source: str, deck: str) -> None:
    from vision.errors import ProfileError
    from vision.profile_files import locate_profile

    if not deck:
        raise ConfigError(
            f"{source}: [reader] deck: a camera needs a deck profile (dealtable teach)"
        )
    try:
        locate_profile(deck)
    except ProfileError as error:
        raise ConfigError(f"{source}: [reader] deck: {error}") from None


def _file_names(source: str, name: str, data: object, keys: tuple[str, ...]) -> dict[str, str]:
    """A table of file names (a ``tls`` section): each key's text, "" if absent; any other
    key refused."""
    section = _Section(source, name, data)
    files = {key: section.text(key, "") for key in keys}
    section.finish()
    return files


def _mqtt(source: str, data: object, table_id: str) -> MqttConfig:
    section = _Section(source, "mqtt", data)
    password = section.secret("password")
    password_file = section.text("password_file", "")
    if password_file:
        password = _password_from(source, "[mqtt] password_file", password_file)
    tls = None
    tls_data = section.get("tls", None)
    if tls_data is not None:
        names = ("ca_file", "cert_file", "key_file")
        tls = TlsConfig(**_file_names(source, "mqtt.tls", tls_data, names))
        _check_tls(source, tls)
    host = section.text("host", "localhost")
    if not host.strip():
        raise section.fail("host", "the broker's host name or address", host)
    prefix = _topic_prefix(section)
    config = MqttConfig(
        host=host,
        port=section.whole("port", 1883, 1, 65535),
        username=section.text("username", ""),
        password=password,
        client_id=section.text("client_id", f"dealtable-{table_id}"),
        # MQTT carries the session expiry in four bytes.
        session_expiry=section.whole("session_expiry", 86400, 0, 0xFFFF_FFFF),
        keepalive=section.whole("keepalive", 30, 5, 3600),
        tls=tls,
        prefix=prefix,
    )
    section.finish()
    return config


def _topic_prefix(section: _Section) -> str:
    prefix = section.text("prefix", "dealtable")
    # The prefix begins every topic the table publishes, its last will's too: a wildcard
    # there is refused by the broker at every connection.
    if not prefix or any(c in prefix for c in "+#\0") or prefix.startswith("$"):
        raise section.fail(
            "prefix", "a topic prefix without the wildcards + and #, not starting with $", prefix
        )
    return prefix


def _no_passphrase() -> bytes:
    # Without this, OpenSSL would ask for a locked key's passphrase at the terminal.
    return b""


def _check_tls(source: str, tls: TlsConfig) -> None:
    """Load the certificates and key as the MQTT client will, so that a file that is not one
    is refused here, naming its key, rather than when the service connects."""
    _check_files_exist(
        source,
        "mqtt.tls",
        {"ca_file": tls.ca_file, "cert_file": tls.cert_file, "key_file": tls.key_file},
    )
    if tls.key_file and not tls.cert_file:
        raise ConfigError(
            f"{source}: [mqtt.tls] key_file: a client key goes with its certificate: set "
            "cert_file too"
        )
    context = ssl.create_default_context()
    if tls.ca_file:
        _check_certificate_file(source, "mqtt.tls", context, "ca_file", tls.ca_file)
    if tls.cert_file:
        _load_certificate(source, "mqtt.tls", context, tls.cert_file, tls.key_file)


# The source of a page's certificate and key given as `dealtable web --cert/--key`: its
# messages name those options, not a config file's keys.
COMMAND_LINE = "the command line"
_OPTIONS = {"cert_file": "--cert", "key_file": "--key"}


def _key_name(source: str, key: str) -> str:
    return _OPTIONS.get(key, key) if source == COMMAND_LINE else key


def _where(source: str, section: str, key: str) -> str:
    """A setting as a message names it: its config file, section and key, or its option."""
    if source == COMMAND_LINE:
        return _key_name(source, key)
    return f"{source}: [{section}] {key}"


def _check_files_exist(source: str, section: str, files: dict[str, str]) -> None:
    for key, named in files.items():
        if named and not Path(named).is_file():
            raise ConfigError(f"{_where(source, section, key)}: no file {named}")


def _check_certificate_file(
    source: str, section: str, context: ssl.SSLContext, key: str, named: str
) -> None:
    try:
        context.load_verify_locations(cafile=named)
    except ssl.SSLError:
        raise ConfigError(
            f"{_where(source, section, key)}: expected a certificate file (PEM), got {named}"
        ) from None
    except OSError as error:
        raise ConfigError(
            f"{_where(source, section, key)}: cannot read {named}: {error.strerror}"
        ) from None


def _load_certificate(
    source: str, section: str, context: ssl.SSLContext, cert_file: str, key_file: str
) -> None:
    """Load the certificate in ``cert_file`` with its private key, from ``key_file`` or, if
    that is empty, from ``cert_file`` too."""
    # Loaded as trusted certificates first: OpenSSL's error for a chain that will not load
    # does not say whether the certificate or the key is at fault.
    _check_certificate_file(source, section, ssl.create_default_context(), "cert_file", cert_file)
    if key_file:
        try:
            Path(key_file).read_bytes()
        except OSError as error:
            raise ConfigError(
                f"{_where(source, section, 'key_file')}: cannot read {key_file}: {error.strerror}"
            ) from None
    try:
        context.load_cert_chain(cert_file, key_file or None, password=_no_passphrase)
    except (ssl.SSLError, OSError):
        where, cert_key = _where(source, section, "key_file"), _key_name(source, "cert_file")
        if not key_file:
            raise ConfigError(
                f"{where}: expected the file of the private key of the certificate in "
                f"{cert_key}, as {cert_file} holds none that is its key and not locked by a "
                "passphrase"
            ) from None
        raise ConfigError(
            f"{where}: expected the private key of the certificate in {cert_key}, not locked "
            f"by a passphrase, got {key_file}"
        ) from None
