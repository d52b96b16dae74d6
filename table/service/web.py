"""``dealtable web``: the table on a screen, live, in a browser.

A small HTTP server (standard library) serves the page from ``display/web/`` and pushes the
table's view to it with server-sent events: the page gets the current view the moment it
opens and every change after, and its browser reconnects by itself after a lost connection.

The view comes either from the running service (``dealtable run`` with ``[web]`` in its
config) or from following a journal file that another process writes (``dealtable web``).
"""

from __future__ import annotations

import errno
import json
import logging
import math
import os
import socket
import threading
import time
import uuid
from collections.abc import Iterable, Sequence
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from pathlib import Path
from typing import Any, Protocol

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from display.baccarat_view import baccarat_view
from display.frames import table_view
from table.baccarat.engine import BaccaratState, BaccaratTable
from table.baccarat.roads import COUPS_SHOWN, follow_shoe
from table.errors import TableError
from table.events import CoupResult, Event, RulesChosen
from table.faro.engine import FaroState, FaroTable
from table.games import GAME_TITLES
from table.service.config import MqttConfig
from table.service.journal import (
    ChainCheck,
    Journal,
    JournalError,
    NoJournalError,
    decode_record,
)
from table.service.table_service import TableService, engine_for

log = logging.getLogger("dealtable.web")

STATIC_FILES = {
    "style.css": "text/css",
    "app.js": "text/javascript",
    "common.js": "text/javascript",
    "croupier.css": "text/css",
    "croupier.js": "text/javascript",
}
PAGES = {"/": "index.html", "/index.html": "index.html", "/croupier": "croupier.html"}
CROUPIER_VERBS = ("bet", "withdraw", "move", "call")
KEEPALIVE_SECONDS = 15.0


class LiveView:
    """The latest view of the table, and a way to wait for the next one."""

    def __init__(self, advisor: bool = False) -> None:
        self.advisor = advisor
        self.results: list[CoupResult] = []  # the shoe's coups, for a baccarat table's roads
        self._changed = threading.Condition()
        self._seq = -1
        self._payload = b"{}"
        self.game = "faro"

    def publish(self, state: FaroState | BaccaratState, events: Iterable[Event] = ()) -> None:
        if isinstance(state, FaroState):
            view = table_view(state, self.advisor)
        else:
            follow_shoe(self.results, events)
            view = baccarat_view(state, self.results)
        self.game = state.game if isinstance(state, BaccaratState) else "faro"
        payload = json.dumps(view, ensure_ascii=False).encode()
        with self._changed:
            self._seq = state.last_seq
            self._payload = payload
            self._changed.notify_all()

    def current(self) -> tuple[int, bytes]:
        with self._changed:
            return self._seq, self._payload

    def wait_past(self, seq: int, timeout: float) -> tuple[int, bytes]:
        with self._changed:
            self._changed.wait_for(lambda: self._seq != seq, timeout=timeout)
            return self._seq, self._payload


class ServiceFeed:
    """The view of a service running in this process, updated after every journaled change."""

    def __init__(self, service: TableService, view: LiveView) -> None:
        self.view = view
        self.service = service
        view.publish(service.state, self._shoe_so_far())
        service.listeners.append(self._changed)

    def _changed(self, events: Sequence[Event]) -> None:
        self.view.publish(self.service.state, events)

    def _shoe_so_far(self) -> list[Event]:
        """What a baccarat table's roads show of the past: the shoe's newest coup results.
        Those since the engine's checkpoint come from its log, where a void or a correction
        has taken back what it undid; those before (a continuous shuffler's earlier coups,
        past any void) from the journal."""
        state = self.service.state
        if isinstance(state, FaroState) or state.checkpoint is None:
            return []
        journal = self.service.journal
        shoe = journal.last_event_of("shoe_started")
        settled = journal.last_events_of(
            "coup_result",
            COUPS_SHOWN,
            after_seq=0 if shoe is None else shoe.seq,
            upto=state.checkpoint.last_seq,
        )
        return [*settled, *state.since_checkpoint]


class JournalFollower:
    """The view of a table whose journal another process writes: read-only, polled, each
    record checked against the hash chain before it is shown."""

    def __init__(self, path: str | Path, view: LiveView, interval: float = 0.05) -> None:
        self.path = Path(path)
        self.view = view
        self.interval = interval
        self.table: FaroTable | BaccaratTable | None = None
        self._chain = ChainCheck(self.path)
        self._file: tuple[int, int] | None = None  # the followed file's device and inode
        self._halted = False  # at a damaged record, until a new file takes the journal's place
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="journal-follower", daemon=True)

    def start(self) -> None:
        """Show the journal as it is, or raise :class:`JournalError` if it cannot be shown."""
        self.catch_up()
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=2)

    @property
    def following(self) -> bool:
        """Still reading what is added to the journal (it stops at a damaged record)."""
        return self._thread.is_alive() and not self._halted

    def catch_up(self) -> None:
        try:
            journal = Journal(self.path, read_only=True)
        except NoJournalError:
            return  # not there yet, or being set up: try again next time round
        with journal:
            self._follow_the_file(journal)
            if self._halted:
                return
            records = journal.records(after_seq=self._chain.last_seq)
        events: list[Event] = []
        try:
            for seq, body, prev_hash, stored_hash in records:
                self._chain.add(seq, body, prev_hash, stored_hash)
                events.append(decode_record(self.path, seq, body))
        finally:
            self._show(events)  # the sound records before any damage

    def _follow_the_file(self, journal: Journal) -> None:
        """Another file in the journal's place (as the advice on a damaged one says: a journal
        carried on from it, or a new one): followed on if it holds the record shown last as
        it was, else from its first record."""
        stat = os.stat(self.path)
        file, earlier = (stat.st_dev, stat.st_ino), self._file
        self._file = file
        shown = self._chain.last_seq
        if shown and journal.hash_of(shown) != self._chain.last_hash:
            log.info("journal %s is a new one: following it from its first record", self.path)
            self._chain = ChainCheck(self.path)
            self.table = None
            self.view.results.clear()
            self._halted = False
        elif earlier is not None and file != earlier and self._halted:
            log.info("journal %s is a new file: following it on from record %d", self.path, shown)
            self._halted = False

    def _show(self, events: list[Event]) -> None:
        if not events:
            return
        if self.table is None:
            game = next((e.game for e in events if isinstance(e, RulesChosen)), "faro")
            self.table = engine_for(game).replay(events)
        else:
            for event in events:
                self.table.state.apply(event)
        self.view.publish(self.table.state, events)

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            try:
                self.catch_up()
            except JournalError as refused:
                # Damage does not mend: say so once and keep showing the last sound state,
                # until a new journal takes the damaged one's place.
                log.error("%s; the page stays at record %d", refused, self._chain.last_seq)
                self._halted = True
            except Exception:  # a bad read must not stop the screen; the next one may work
                log.exception("reading the journal %s", self.path)


def _page(name: str, language: str) -> bytes:
    html = resources.files("display.web").joinpath(name).read_text(encoding="utf-8")
    return html.replace('<html lang="en">', f'<html lang="en" data-lang="{language}">').encode()


class CommandRelay(Protocol):
    """Sends a croupier's command to the table and returns the table's reply."""

    def send(self, verb: str, payload: dict[str, Any]) -> dict[str, Any]: ...

    def close(self) -> None: ...


class RefusingRelay:
    """Where the croupier's page has no way to the table: every command is refused with why."""

    def __init__(self, reason: str) -> None:
        self.reason = reason

    def send(self, verb: str, payload: dict[str, Any]) -> dict[str, Any]:
        return {"ok": False, "error": self.reason}

    def close(self) -> None:
        pass


# `dealtable web` follows a journal and holds no betting account.
ONLY_SHOWN = (
    "this page only shows the table: the croupier's bets go through the table's broker, from "
    "`dealtable run` with [mqtt] and a croupier account in [web]"
)


class MqttCommandRelay:
    """The croupier page's commands, sent as MQTT commands with a betting terminal's account:
    the broker's ACL lets it bet and never deal, and the engine judges every command.

    A command the table has not answered within ``timeout`` seconds is reported as failed; if
    it still waits at the broker then (the table is away), it has expired: the table does not
    carry it out when it comes back to its session."""

    def __init__(self, config: MqttConfig, table_id: str, timeout: float = 5.0) -> None:
        if timeout < 2:
            raise ValueError(f"the croupier waits at least 2 s for the table, not {timeout:g} s")
        self.prefix = f"{config.prefix}/{table_id}"
        self.timeout = timeout
        # MQTT counts a message's expiry in whole seconds, and Mosquitto drops an expired one
        # only once its clock has passed that whole second, up to a second late: a command
        # expires a second before the croupier is told it failed.
        self.expiry = math.floor(timeout) - 1
        self._waiting: dict[str, tuple[threading.Event, list[dict[str, Any]]]] = {}
        self._lock = threading.Lock()
        self._subscribed = threading.Event()
        client = mqtt.Client(
            CallbackAPIVersion.VERSION2,
            client_id=f"croupier-{table_id}-{uuid.uuid4().hex[:8]}",
            protocol=mqtt.MQTTv5,
        )
        if config.username:
            client.username_pw_set(config.username, config.password or None)
        if config.tls is not None:
            client.tls_set(
                ca_certs=config.tls.ca_file or None,
                certfile=config.tls.cert_file or None,
                keyfile=config.tls.key_file or None,
            )
        client.on_connect = self._on_connect
        client.on_subscribe = lambda *args: self._subscribed.set()
        client.on_message = self._on_message
        client.connect_async(config.host, config.port)
        client.loop_start()
        self.client = client

    def _on_connect(
        self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, props: Any
    ) -> None:
        if not reason.is_failure:
            client.subscribe(f"{self.prefix}/reply", qos=1)

    def _on_message(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        try:
            reply = json.loads(message.payload)
        except ValueError:
            return
        with self._lock:
            waiting = self._waiting.get(str(reply.get("request_id")))
        if waiting is not None:
            waiting[1].append(reply)
            waiting[0].set()

    def send(self, verb: str, payload: dict[str, Any]) -> dict[str, Any]:
        if not self._subscribed.wait(self.timeout):
            return {"ok": False, "error": "the table's broker cannot be reached"}
        request_id = uuid.uuid4().hex
        done = threading.Event()
        answers: list[dict[str, Any]] = []
        with self._lock:
            self._waiting[request_id] = (done, answers)
        try:
            body = json.dumps({**payload, "request_id": request_id})
            expiring = Properties(PacketTypes.PUBLISH)  # type: ignore[no-untyped-call]
            expiring.MessageExpiryInterval = self.expiry
            self.client.publish(f"{self.prefix}/cmd/{verb}", body, qos=1, properties=expiring)
            if not done.wait(self.timeout):
                return {"ok": False, "error": f"the table did not answer within {self.timeout:g} s"}
            return answers[0]
        finally:
            with self._lock:
                del self._waiting[request_id]

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


class _Handler(BaseHTTPRequestHandler):
    server: WebServer

    def log_message(self, format: str, *args: Any) -> None:
        log.debug("%s " + format, self.address_string(), *args)

    def _send(self, status: int, content_type: str, body: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-cache")
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self) -> None:
        path = self.path.split("?", 1)[0]
        verb = path[len("/cmd/") :] if path.startswith("/cmd/") else ""
        if verb not in CROUPIER_VERBS:
            self._send(HTTPStatus.NOT_FOUND, "text/plain", b"not found\n")
            return
        reply: dict[str, Any]
        try:
            length = min(int(self.headers.get("Content-Length", "0")), 10_000)
            payload = json.loads(self.rfile.read(length) or b"{}")
            if not isinstance(payload, dict):
                raise ValueError("a command is a JSON object")
        except ValueError as error:
            reply = {"ok": False, "error": f"cmd/{verb}: {error}"}
        else:
            reply = self.server.relay.send(verb, payload)
        self._send(
            HTTPStatus.OK, "application/json", json.dumps(reply, ensure_ascii=False).encode()
        )

    def do_GET(self) -> None:
        path = self.path.split("?", 1)[0]
        if path == "/croupier" and self.server.view.game != "faro":
            title = GAME_TITLES.get(self.server.view.game, self.server.view.game)
            message = f"the croupier's page lays bets on a Faro layout; this table deals {title}\n"
            self._send(HTTPStatus.NOT_FOUND, "text/plain; charset=utf-8", message.encode())
        elif path in PAGES:
            self._send(
                HTTPStatus.OK, "text/html; charset=utf-8", _page(PAGES[path], self.server.language)
            )
        elif path.startswith("/static/") and path[len("/static/") :] in STATIC_FILES:
            name = path[len("/static/") :]
            body = resources.files("display.web").joinpath(name).read_bytes()
            self._send(HTTPStatus.OK, f"{STATIC_FILES[name]}; charset=utf-8", body)
        elif path == "/view":
            self._send(HTTPStatus.OK, "application/json", self.server.view.current()[1])
        elif path == "/stream":
            self._stream()
        else:
            self._send(HTTPStatus.NOT_FOUND, "text/plain", b"not found\n")

    def _stream(self) -> None:
        self.send_response(HTTPStatus.OK)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.end_headers()
        # The stream ends with the connection: never wait for another request on it.
        self.close_connection = True
        view = self.server.view
        seq, payload = view.current()
        try:
            self.wfile.write(b"retry: 1000\ndata: " + payload + b"\n\n")
            self.wfile.flush()
            last_sent = time.monotonic()
            while not self.server.stopping.is_set():
                new_seq, payload = view.wait_past(seq, timeout=0.5)
                if new_seq != seq:
                    seq = new_seq
                    self.wfile.write(b"data: " + payload + b"\n\n")
                    self.wfile.flush()
                    last_sent = time.monotonic()
                elif time.monotonic() - last_sent > KEEPALIVE_SECONDS:
                    self.wfile.write(b": still here\n\n")
                    self.wfile.flush()
                    last_sent = time.monotonic()
        except (BrokenPipeError, ConnectionResetError):
            return


class WebServerError(TableError):
    """The page cannot be served; ``key`` is the setting to change (``host`` or ``port``)."""

    def __init__(self, message: str, key: str) -> None:
        super().__init__(message)
        self.key = key


def _cannot_serve(host: str, port: int, error: OSError) -> WebServerError:
    if isinstance(error, socket.gaierror):
        key, why = "host", f"no machine is known by the name {host!r} ({error.strerror})"
    elif error.errno == errno.EADDRINUSE:
        key, why = "port", "the port is already in use (another server listens on it)"
    elif error.errno == errno.EADDRNOTAVAIL:
        key, why = "host", f"{host} is not an address of this machine"
    elif error.errno == errno.EACCES:
        key, why = "port", "permission denied (a port below 1024 needs root)"
    else:
        key, why = "host", error.strerror or str(error)
    return WebServerError(f"cannot serve the table's page on {host}:{port}: {why}", key)


class WebServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(
        self,
        view: LiveView,
        host: str = "0.0.0.0",
        port: int = 8080,
        language: str = "en",
        relay: CommandRelay | None = None,
    ):
        self.view = view
        self.language = language
        self.relay: CommandRelay = relay or RefusingRelay(ONLY_SHOWN)
        self.stopping = threading.Event()
        try:
            super().__init__((host, port), _Handler)
        except OSError as error:
            raise _cannot_serve(host, port, error) from None
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        name = host.decode() if isinstance(host, bytes) else str(host)
        return f"http://{'127.0.0.1' if name in ('0.0.0.0', '') else name}:{port}/"

    def start(self) -> None:
        self._thread = threading.Thread(target=self.serve_forever, name="web", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self.stopping.set()
        if self._thread is not None:  # shutdown() waits for a serve_forever that never ran
            self.shutdown()
        self.server_close()
        # The relay serves only this page: its connection to the broker ends with it.
        self.relay.close()
