"""``dealtable web``: the table on a screen, live, in a browser.

A small HTTP server (standard library) serves the page from ``display/web/`` and pushes the
table's view to it with server-sent events: the page gets the current view the moment it
opens and every change after, and its browser reconnects by itself after a lost connection.

The view comes either from the running service (``dealtable run`` with ``[web]`` in its
config) or from following a journal file that another process writes (``dealtable web``).
"""

from __future__ import annotations

import base64
import contextlib
import errno
import functools
import json
import logging
import math
import os
import socket
import ssl
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from html import escape
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import urlsplit

import paho.mqtt.client as mqtt
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from display.baccarat_view import baccarat_view
from display.frames import table_view
from table.baccarat.engine import BaccaratState, BaccaratTable
from table.baccarat.roads import follow_shoe
from table.errors import TableError
from table.events import CoupResult, Event, RulesChosen
from table.faro.engine import FaroState, FaroTable
from table.games import GAME_TITLES
from table.service.config import MqttConfig, WebTlsConfig, certificate_warning, web_tls_context
from table.service.journal import (
    ChainCheck,
    Journal,
    JournalError,
    NoJournalError,
    decode_record,
)
from table.service.mqtt import (
    CommandError,
    broker_client,
    command_json,
    private_reply_topic,
)
from table.service.table_service import (
    TableService,
    engine_for,
    shoe_so_far,
    table_from_journal,
)

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
# The longest command the croupier's page sends is a call, well under a kilobyte.
MAX_COMMAND_BYTES = 10_000
# How long the rest of a refused command is read and dropped before its connection ends.
LINGER_SECONDS = 2.0
KEEPALIVE_SECONDS = 15.0
# A client silent this long in its TLS handshake (or, on the TLS port, in its plain
# request) is let go: until then it holds only its own thread, never another's.
HANDSHAKE_SECONDS = 10.0
# A connection that sends nothing of its request for this long is let go (the event stream
# writes at least every KEEPALIVE_SECONDS, so a page that went is found out within it too).
IDLE_SECONDS = 60.0
# A request, from its first byte to its body's last, comes within this or is let go: a
# client that trickles it a byte at a time would otherwise hold its thread for good, and a
# hundred of them every place the server has.
REQUEST_SECONDS = 10.0
# Connections served at once: a page's event stream holds one all evening, and a table has
# a few screens and tablets; past this, a new one is closed at once rather than given a
# thread (as a flood of idle clients would have it).
MAX_CONNECTIONS = 100
# Event streams served at once, all clients together (those behind a TLS proxy share one
# address): below MAX_CONNECTIONS, so that however many pages one client opens, the pages
# themselves, their views and the croupier's commands always find a place.
MAX_STREAMS = 80
# Broker accounts the croupier's page keeps a connection for: a table's few tablets, with
# room to spare.
MAX_CROUPIER_ACCOUNTS = 10
# A field no command has: the table refuses a command that holds it before reading the rest
# (table.service.mqtt's _check_fields), so one sent to find where the table's answers reach
# the account is never carried out.
REPLY_PROBE = "reply_probe"
# Strict-Transport-Security's max-age on every answer over TLS: a browser that had one goes
# straight to https:// for this long (no plain request for a network's man in the middle to
# answer), renewed at each visit. A week covers a tablet put away for a weekend; longer would
# lock browsers out of a table served plain again (its certificate lapsed, say) for as long.
# Never over plain HTTP, which a browser ignores and a proxy could forge.
HSTS_MAX_AGE_SECONDS = 7 * 24 * 3600
TLS_HANDSHAKE_RECORD = 0x16  # the first byte of every TLS client's first message


class LiveView:
    """The latest view of the table, and a way to wait for the next one."""

    def __init__(self, advisor: bool = False) -> None:
        self.advisor = advisor
        self.results: list[CoupResult] = []  # the shoe's coups, for a baccarat table's roads
        self._changed = threading.Condition()
        self._seq = -1
        # Counts the views published: the journal's trouble changes the view, not the seq.
        self._version = 0
        self._payload = b"{}"
        self.game = "faro"

    def publish(
        self,
        state: FaroState | BaccaratState,
        events: Iterable[Event] = (),
        journal_trouble: str = "",
    ) -> None:
        if isinstance(state, FaroState):
            view = table_view(state, self.advisor)
        else:
            follow_shoe(self.results, events)
            view = baccarat_view(state, self.results)
        view["journal_trouble"] = journal_trouble or None
        self.game = state.game if isinstance(state, BaccaratState) else "faro"
        payload = json.dumps(view, ensure_ascii=False).encode()
        with self._changed:
            if payload == self._payload:
                return  # a command that changed nothing: the pages have this view already
            self._seq = state.last_seq
            self._version += 1
            self._payload = payload
            self._changed.notify_all()

    def current(self) -> tuple[int, bytes]:
        """The last record the view shows, and the view."""
        with self._changed:
            return self._seq, self._payload

    def latest(self) -> tuple[int, bytes]:
        """Which view was published last (see :meth:`wait_past`), and the view."""
        with self._changed:
            return self._version, self._payload

    def wait_past(self, version: int, timeout: float) -> tuple[int, bytes]:
        """The view published after ``version`` (of :meth:`latest`), waited for up to
        ``timeout`` seconds; the same one if none was."""
        with self._changed:
            self._changed.wait_for(lambda: self._version != version, timeout=timeout)
            return self._version, self._payload


class ServiceFeed:
    """The view of a service running in this process, updated after every journaled change."""

    def __init__(self, service: TableService, view: LiveView) -> None:
        self.view = view
        self.service = service
        view.publish(
            service.state, shoe_so_far(service.journal, service.state), service.journal_trouble
        )
        service.listeners.append(self._changed)
        service.trouble_listeners.append(self._trouble_changed)

    def _changed(self, events: Sequence[Event]) -> None:
        self.view.publish(self.service.state, events, self.service.journal_trouble)

    def _trouble_changed(self) -> None:
        self.view.publish(self.service.state, (), self.service.journal_trouble)


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
        self._trouble_said = ""  # the journal's trouble the log has told, until it is over
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
            # The file's identity is taken before it is opened: a file put in the journal's
            # place between the two is then seen at the next look, whereas taken after, the
            # new file's identity would be kept with the old file's records, and the page
            # would stay halted at the old damage for good.
            stat = os.stat(self.path)
            journal = Journal(self.path, read_only=True)
        except (FileNotFoundError, NoJournalError):
            return  # not there yet, or being set up: try again next time round
        with journal:
            self._follow_the_file(journal, (stat.st_dev, stat.st_ino))
            if self._halted:
                return
            folded_upto = self._start_at_the_opening(journal)
            records = journal.records(after_seq=self._chain.last_seq)
        events: list[Event] = []
        try:
            for seq, body, prev_hash, stored_hash in records:
                self._chain.add(seq, body, prev_hash, stored_hash)
                if seq > folded_upto:
                    events.append(decode_record(self.path, seq, body))
        finally:
            self._show(events)  # the sound records before any damage

    def _start_at_the_opening(self, journal: Journal) -> int:
        """A journal whose first records were archived is shown from the checkpoint after
        its first record (the records before are not there to fold); the record it follows
        (0 when there is none to start from)."""
        if self.table is not None or journal.opening is None:
            return 0
        first = journal.first_seq
        self.table = table_from_journal(journal, journal.table_id or "table", upto=first)
        self._chain = ChainCheck(self.path, journal.opening)
        self.view.publish(self.table.state, shoe_so_far(journal, self.table.state))
        return first

    def _follow_the_file(self, journal: Journal, file: tuple[int, int]) -> None:
        """Another file in the journal's place (as the advice on a damaged one says: a journal
        carried on from it, or a new one): followed on if it holds the record shown last as
        it was, else from its first record."""
        earlier, self._file = self._file, file
        shown = self._chain.last_seq
        if shown and journal.hash_of(shown) != self._chain.last_hash:
            log.info("journal %s is a new one: following it from its first record", self.path)
            self._chain = ChainCheck(self.path)
            self.table = None
            self.view.results.clear()
            self._halted = False
        elif self._halted and file != earlier:  # (no earlier one: the path held no journal)
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
            self.follow_once()

    def follow_once(self) -> None:
        """One look at the journal (the follower's thread takes one every ``interval``)."""
        try:
            self.catch_up()
        except JournalError as refused:
            # Damage does not mend: say so once and keep showing the last sound state,
            # until a new journal takes the damaged one's place (a file that is no journal
            # is refused at each look, and said only the first time).
            if str(refused) != self._trouble_said:
                log.error("%s; the page stays at record %d", refused, self._chain.last_seq)
                self._trouble_said = str(refused)
            self._halted = True
        except Exception as failed:  # a bad read must not stop the screen; the next may work
            if repr(failed) != self._trouble_said:
                log.exception("reading the journal %s", self.path)
                self._trouble_said = repr(failed)
        else:
            self._trouble_said = ""


def _page(name: str, language: str, account: str = "", refusal: str = "") -> bytes:
    """A page of ``display/web``, told the language, the account its login form offers, and
    why it takes no bets if it does not (it then asks for no password)."""
    html = resources.files("display.web").joinpath(name).read_text(encoding="utf-8")
    told = f'data-lang="{language}" data-account="{escape(account)}"'
    if refusal:
        told += f' data-refusal="{escape(refusal)}"'
    return html.replace('<html lang="en">', f'<html lang="en" {told}>').encode()


@dataclass(frozen=True)
class Account:
    """The broker account the person at the croupier's page logged in with."""

    username: str
    password: str = field(repr=False)


class AccountRefusedError(TableError):
    """The broker would not take the account the person at the page logged in with."""


class CommandRelay(Protocol):
    """Sends a croupier's command to the table, in the name of the account logged in at the
    page, and returns the table's reply."""

    # The account the login form offers (a tablet's own), or "".
    offered_username: str

    def log_in(self, account: Account) -> dict[str, Any]:
        """``{"ok": True}`` once the account may send commands; :class:`AccountRefusedError`
        if the broker will not take it."""
        ...

    def send(self, account: Account, verb: str, payload: dict[str, Any]) -> dict[str, Any]: ...

    def close(self) -> None: ...


class RefusingRelay:
    """Where the croupier's page has no way to the table: every command is refused with why."""

    offered_username = ""

    def __init__(self, reason: str) -> None:
        self.reason = reason

    def log_in(self, account: Account) -> dict[str, Any]:
        return {"ok": False, "error": self.reason}

    def send(self, account: Account, verb: str, payload: dict[str, Any]) -> dict[str, Any]:
        return {"ok": False, "error": self.reason}

    def close(self) -> None:
        pass


# `dealtable web` follows a journal and has no way to the table's broker.
ONLY_SHOWN = (
    "this page only shows the table: the croupier's bets go through the table's broker, from "
    "`dealtable run` with [mqtt] and [web] croupier_username"
)


UNREACHABLE = "the table's broker cannot be reached"


class _AccountLink:
    """One account's connection to the broker: its commands out, the table's replies in."""

    def __init__(self, config: MqttConfig, account: Account, prefix: str, client_id: str) -> None:
        self.account = account
        self.prefix = prefix
        self.users = 0  # the requests using it now: it is never closed under them
        self.ready = threading.Event()  # connected and reading replies, or refused
        self.refusal = ""
        self._arrived = threading.Condition()
        self._waiting: set[str] = set()
        self._replies: dict[str, tuple[str, dict[str, Any]]] = {}  # its topic and the reply
        self._refused_publishes: dict[int, str] = {}
        # Where the table answers this account: its own reply topic where the broker lets it
        # read that, else (an access list from before private replies, a name no topic
        # level can hold) the shared one. Mosquitto grants a subscription its access list
        # forbids and delivers nothing on it: which is found by asking the table
        # (:meth:`_find_own_replies`).
        self._own_replies = private_reply_topic(prefix, account.username)
        self._own_subscribed = False
        self._answered_on: str | None = None  # the own topic, or "" for the shared one
        self._finding = threading.Lock()
        # The broker was away as a command was sent: the connection is let go with what it
        # holds unsent, never to send it late.
        self.lost = False
        client = broker_client(config, client_id, (account.username, account.password))
        client.on_connect = self._on_connect
        client.on_subscribe = self._on_subscribe
        client.on_message = self._on_message
        client.on_publish = self._on_publish
        client.connect_async(config.host, config.port)
        client.loop_start()
        self.client = client

    def _on_connect(
        self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, props: Any
    ) -> None:
        if reason.is_failure:
            self.refusal = f"the broker refused the account {self.account.username}: {reason}"
            self.ready.set()
        else:
            shared = (f"{self.prefix}/reply", 1)
            own = [] if self._own_replies is None else [(self._own_replies, 1)]
            client.subscribe([*own, shared])

    def _on_subscribe(
        self, client: mqtt.Client, userdata: Any, mid: int, reasons: list[Any], props: Any
    ) -> None:
        # A reason for each topic asked, in order: the account's own replies (if asked for),
        # then the shared ones.
        asked = list(reasons)
        shared = asked.pop() if asked else None
        own = asked.pop() if asked else None
        if own is not None and not own.is_failure:
            self._own_subscribed = True
        elif shared is None or shared.is_failure:
            self.refusal = (
                f"the broker does not let the account {self.account.username} read the "
                f"table's replies ({own or shared})"
            )
        self.ready.set()

    def _on_message(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        try:
            reply = json.loads(message.payload)
        except ValueError:
            return
        if not isinstance(reply, dict):
            return
        with self._arrived:
            request_id = str(reply.get("request_id"))
            if request_id in self._waiting:
                self._replies[request_id] = (message.topic, reply)
                self._arrived.notify_all()

    def _on_publish(
        self, client: mqtt.Client, userdata: Any, mid: int, reason: Any, props: Any
    ) -> None:
        if reason.is_failure:  # the broker's access list forbids this account the command
            with self._arrived:
                self._refused_publishes[mid] = str(reason)
                self._arrived.notify_all()

    def _publish(
        self, verb: str, payload: dict[str, Any], expiry: int, answered_on: str
    ) -> mqtt.MQTTMessageInfo:
        expiring = Properties(PacketTypes.PUBLISH)  # type: ignore[no-untyped-call]
        expiring.MessageExpiryInterval = expiry
        if answered_on:
            expiring.ResponseTopic = answered_on
        return self.client.publish(
            f"{self.prefix}/cmd/{verb}", json.dumps(payload), qos=1, properties=expiring
        )

    def _refused(self, verb: str, refused: str) -> dict[str, Any]:
        return {
            "ok": False,
            "error": f"the broker does not let the account {self.account.username} send "
            f"cmd/{verb} ({refused})",
        }

    def _find_own_replies(self, verb: str, timeout: float, expiry: int) -> dict[str, Any] | None:
        """Find, before the account's first command, whether the broker delivers the table's
        answers on the account's own reply topic; None once known, else why no command can
        be sent now. Two commands the table refuses unread, for a field it does not know,
        go out on the command's own topic (the broker refuses them as it would the command):
        the first asks for its answer on the account's own reply topic, the second on the
        shared one. The table answers in turn, and the broker delivers in turn: the second's
        answer coming without the first's says the broker does not let the account read its
        own. A table that answers neither is away, and the command is not sent."""
        with self._finding:
            if self._answered_on is not None:
                return None
            if self._own_replies is None or not self._own_subscribed:
                self._answered_on = ""
                return None
            own, shared = uuid.uuid4().hex, uuid.uuid4().hex
            with self._arrived:
                self._waiting |= {own, shared}
            try:
                sent = [
                    self._publish(verb, {"request_id": ask, REPLY_PROBE: True}, expiry, topic)
                    for ask, topic in ((own, self._own_replies), (shared, ""))
                ]
                with self._arrived:
                    self._arrived.wait_for(
                        lambda: (
                            bool({own, shared} & set(self._replies))
                            or all(info.mid in self._refused_publishes for info in sent)
                        ),
                        timeout,
                    )
                    refused = [self._refused_publishes.pop(info.mid, None) for info in sent]
                    answered = {ask: self._replies.pop(ask, None) for ask in (own, shared)}
            finally:
                with self._arrived:
                    self._waiting -= {own, shared}
            if refused[0] is not None:
                return self._refused(verb, refused[0])
            first = answered[own]
            if first is not None and first[0] == self._own_replies:
                self._answered_on = self._own_replies
            elif first is not None or answered[shared] is not None:
                log.warning(
                    "the broker does not let the account %s read its own replies on %s: the "
                    "table answers it on %s/reply, which every terminal and display reads "
                    "(hw/mosquitto/acl's pattern line lets each account read its own)",
                    self.account.username,
                    self._own_replies,
                    self.prefix,
                )
                self._answered_on = ""
            else:
                return {"ok": False, "error": f"the table did not answer within {timeout:g} s"}
            return None

    def send(
        self, verb: str, payload: dict[str, Any], timeout: float, expiry: int
    ) -> dict[str, Any]:
        unsent = self._find_own_replies(verb, timeout, expiry)
        if unsent is not None:
            return unsent
        request_id = uuid.uuid4().hex
        with self._arrived:
            self._waiting.add(request_id)
        try:
            sent = self._publish(
                verb, {**payload, "request_id": request_id}, expiry, self._answered_on or ""
            )
            with self._arrived:
                self._arrived.wait_for(
                    lambda: request_id in self._replies or sent.mid in self._refused_publishes,
                    timeout,
                )
                refused = self._refused_publishes.pop(sent.mid, None)
                reply = self._replies.pop(request_id, None)
        finally:
            with self._arrived:
                self._waiting.discard(request_id)
        if refused is not None:
            return self._refused(verb, refused)
        if reply is None and not sent.is_published():
            # Held in this client (the broker away): it would go out at the reconnect, and
            # the table carry out a command the croupier was told had failed.
            self.lost = True
            return {"ok": False, "error": f"{UNREACHABLE}: the command was not sent"}
        if reply is None:
            return {"ok": False, "error": f"the table did not answer within {timeout:g} s"}
        return reply[1]

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


class MqttCommandRelay:
    """The croupier page's commands, sent as MQTT commands in the name of whoever logged in
    at the page: the broker checks the account's password, its ACL decides which commands
    it may send (a betting terminal's bets, never a deal), and the engine judges every
    command. ``config`` says where the broker is and how to reach it; its ``username``, if
    any, is only the account the login form offers.

    Each account logged in keeps one connection to the broker, up to ``max_accounts``: past
    them, the one used longest ago is closed (it connects again at its next command); one
    the broker refuses is closed at once. A broker that took any password would otherwise
    be given a connection, and a thread here, for every password tried at the page.

    A command the table has not answered within ``timeout`` seconds is reported as failed; if
    it still waits at the broker then (the table is away), it has expired: the table does not
    carry it out when it comes back to its session."""

    def __init__(
        self,
        config: MqttConfig,
        table_id: str,
        timeout: float = 5.0,
        max_accounts: int = MAX_CROUPIER_ACCOUNTS,
    ) -> None:
        if timeout < 2:
            raise ValueError(f"the croupier waits at least 2 s for the table, not {timeout:g} s")
        self.config = config
        self.table_id = table_id
        self.prefix = f"{config.prefix}/{table_id}"
        self.offered_username = config.username
        self.timeout = timeout
        # MQTT counts a message's expiry in whole seconds, and Mosquitto drops an expired one
        # only once its clock has passed that whole second, up to a second late: a command
        # expires a second before the croupier is told it failed.
        self.expiry = math.floor(timeout) - 1
        self.max_accounts = max_accounts
        self._links: dict[Account, _AccountLink] = {}  # the one used longest ago first
        self._lock = threading.Lock()

    def log_in(self, account: Account) -> dict[str, Any]:
        with self._link_for(account) as link:
            if isinstance(link, str):
                return {"ok": False, "error": link}
            return {"ok": True, "account": account.username}

    def send(self, account: Account, verb: str, payload: dict[str, Any]) -> dict[str, Any]:
        with self._link_for(account) as link:
            if isinstance(link, str):
                return {"ok": False, "error": link}
            return link.send(verb, payload, self.timeout, self.expiry)

    @contextlib.contextmanager
    def _link_for(self, account: Account) -> Iterator[_AccountLink | str]:
        """The account's connection, reading the table's replies, never closed while in use;
        or why there is none to be had. Raises :class:`AccountRefusedError` if the broker
        will not take the account."""
        evicted: _AccountLink | None = None
        with self._lock:
            link = self._links.pop(account, None)
            if link is None and len(self._links) >= self.max_accounts:
                # The one used longest ago, and not in use now, makes room.
                evicted = next((held for held in self._links.values() if not held.users), None)
                if evicted is not None:
                    del self._links[evicted.account]
            if link is None and len(self._links) < self.max_accounts:
                client_id = f"croupier-{self.table_id}-{uuid.uuid4().hex[:8]}"
                link = _AccountLink(self.config, account, self.prefix, client_id)
            if link is not None:
                self._links[account] = link  # now the one used last
                link.users += 1
        if evicted is not None:
            evicted.close()
        if link is None:
            yield (
                f"as many accounts as the page takes ({self.max_accounts}) are sending "
                "commands to the table at once: try again in a moment"
            )
            return
        try:
            ready = link.ready.wait(self.timeout)
            if ready and link.refusal:
                self._drop(link)
                raise AccountRefusedError(link.refusal)
            if not ready or link.lost or not link.client.is_connected():
                self._drop(link)  # tried afresh at the next command
                yield UNREACHABLE
            else:
                yield link
                if link.lost:
                    self._drop(link)
        finally:
            with self._lock:
                link.users -= 1

    def _drop(self, link: _AccountLink) -> None:
        with self._lock:
            if self._links.get(link.account) is link:
                del self._links[link.account]
        link.close()

    def close(self) -> None:
        with self._lock:
            links, self._links = list(self._links.values()), {}
        for link in links:
            link.close()


# The croupier's page lays bets with a click: another site that showed it in a frame could
# lead a logged-in croupier to click there unawares. The table's own page may be framed (an
# exhibit's site showing the table): it only shows.
_NEVER_FRAMED = {"X-Frame-Options": "DENY", "Content-Security-Policy": "frame-ancestors 'none'"}


class _Handler(BaseHTTPRequestHandler):
    server: WebServer
    timeout = IDLE_SECONDS

    def log_message(self, format: str, *args: Any) -> None:
        log.debug("%s " + format, self.address_string(), *args)

    def handle_one_request(self) -> None:
        self._deadline = threading.Timer(self.server.request_seconds, _hang_up, [self.connection])
        self._deadline.start()
        try:
            super().handle_one_request()
        finally:
            self._deadline.cancel()

    def end_headers(self) -> None:
        if self.server.tls is not None:
            self.send_header("Strict-Transport-Security", f"max-age={HSTS_MAX_AGE_SECONDS}")
        super().end_headers()

    def _request_in(self) -> None:
        """The request has come whole: answering it (a page's stream all evening) is not
        bound by the time it had to come."""
        self._deadline.cancel()

    def _send(
        self, status: int, content_type: str, body: bytes, headers: dict[str, str] | None = None
    ) -> None:
        self.send_response(status)
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-cache")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.end_headers()
        self.wfile.write(body)

    def _send_json(
        self, status: int, reply: dict[str, Any], headers: dict[str, str] | None = None
    ) -> None:
        body = json.dumps(reply, ensure_ascii=False).encode()
        self.send_response(status)
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-cache")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self) -> None:
        path = self.path.split("?", 1)[0]
        verb = path[len("/cmd/") :] if path.startswith("/cmd/") else ""
        if path != "/login" and verb not in CROUPIER_VERBS:
            self._send(HTTPStatus.NOT_FOUND, "text/plain", b"not found\n")
            return
        what = f"cmd/{verb}" if verb else "login"
        # Another site's page in a browser on the table's network could post here too: only
        # the table's own page, sending JSON, is heard.
        cross_site = self._cross_site()
        if cross_site:
            self._send_json(HTTPStatus.FORBIDDEN, {"ok": False, "error": f"{what}: {cross_site}"})
            return
        if self.headers.get_content_type() != "application/json":
            self._send_json(
                HTTPStatus.UNSUPPORTED_MEDIA_TYPE,
                {"ok": False, "error": f"{what}: send the command as application/json"},
            )
            return
        account = self._account()
        if account is None:
            self._send_json(
                HTTPStatus.UNAUTHORIZED,
                {"ok": False, "error": f"{what}: log in with your account on the table's broker"},
                {"WWW-Authenticate": 'Basic realm="dealtable croupier", charset="UTF-8"'},
            )
            return
        body = self._body(what)
        self._request_in()
        if body is None:
            return
        reply: dict[str, Any]
        try:
            payload = command_json(body or b"{}", what)
            if not isinstance(payload, dict):
                raise CommandError(f"{what}: a command is a JSON object")
        except CommandError as error:
            reply = {"ok": False, "error": str(error)}
        else:
            relay = self.server.relay
            try:
                reply = relay.send(account, verb, payload) if verb else relay.log_in(account)
            except AccountRefusedError as refused:
                self._send_json(HTTPStatus.UNAUTHORIZED, {"ok": False, "error": str(refused)})
                return
        self._send_json(HTTPStatus.OK, reply)

    def _body(self, what: str) -> bytes | None:
        """The command's body, read whole; None if it was refused (and told why): a body
        read in part would carry out a command cut short, or wait for bytes never sent."""
        lengths = self.headers.get_all("Content-Length") or ["0"]
        length = lengths[0]
        refusal: tuple[HTTPStatus, str]
        if "Transfer-Encoding" in self.headers:
            refusal = HTTPStatus.LENGTH_REQUIRED, "send the command with a Content-Length"
        elif len(set(lengths)) != 1 or not (length.isascii() and length.isdigit()):
            refusal = (
                HTTPStatus.BAD_REQUEST,
                f"Content-Length {', '.join(lengths)!r} is not a number of bytes",
            )
        elif len(length) > 9 or int(length) > MAX_COMMAND_BYTES:
            refusal = (
                HTTPStatus.REQUEST_ENTITY_TOO_LARGE,
                f"a command is at most {MAX_COMMAND_BYTES} bytes, not {length}",
            )
        else:
            body = self.rfile.read(int(length))
            if len(body) == int(length):
                return body
            refusal = HTTPStatus.BAD_REQUEST, "the command ended before its Content-Length"
        # What is left of the body is never read as another request: the connection ends.
        self.close_connection = True
        status, why = refusal
        self._send_json(status, {"ok": False, "error": f"{what}: {why}"}, {"Connection": "close"})
        self._let_the_rest_go()
        return None

    def _let_the_rest_go(self) -> None:
        """Read what the client still sends, for a moment, and drop it: a connection closed
        with bytes unread is reset, and the client may lose the answer with it."""
        deadline = time.monotonic() + LINGER_SECONDS
        with contextlib.suppress(OSError, ValueError):
            while (left := deadline - time.monotonic()) > 0:
                self.connection.settimeout(left)
                if not self.rfile.read1(65536):
                    return

    def _cross_site(self) -> str:
        """Why the request comes from another site's page, or "" if it does not."""
        if self.headers.get("Sec-Fetch-Site", "same-origin") not in ("same-origin", "none"):
            return "only the table's own page may send commands"
        origin = self.headers.get("Origin")
        if origin is None:
            return ""
        # The host, not the scheme: behind a TLS proxy a plain server's own page comes from
        # https://, and a server that speaks only HTTPS serves no http:// page to be one.
        if urlsplit(origin).netloc != self.headers.get("Host"):
            return f"only the table's own page may send commands, not one from {origin}"
        return ""

    def _account(self) -> Account | None:
        """The account in the request's HTTP Basic credentials, if it has any."""
        scheme, _, encoded = self.headers.get("Authorization", "").partition(" ")
        if scheme.lower() != "basic":
            return None
        try:
            text = base64.b64decode(encoded.strip(), validate=True).decode("utf-8")
        except (ValueError, UnicodeDecodeError):
            return None
        username, colon, password = text.partition(":")
        if not username or not colon:
            return None
        return Account(username, password)

    def do_GET(self) -> None:
        self._request_in()
        path = self.path.split("?", 1)[0]
        if path == "/croupier" and self.server.view.game != "faro":
            title = GAME_TITLES.get(self.server.view.game, self.server.view.game)
            message = f"the croupier's page lays bets on a Faro layout; this table deals {title}\n"
            self._send(HTTPStatus.NOT_FOUND, "text/plain; charset=utf-8", message.encode())
        elif path in PAGES:
            name = PAGES[path]
            relay = self.server.relay
            croupier = name == "croupier.html"
            offered = relay.offered_username if croupier else ""
            refusal = relay.reason if croupier and isinstance(relay, RefusingRelay) else ""
            page = _page(name, self.server.language, offered, refusal)
            framing = _NEVER_FRAMED if croupier else None
            self._send(HTTPStatus.OK, "text/html; charset=utf-8", page, framing)
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
        streams = self.server.max_streams
        if not self.server._streaming.acquire(blocking=False):
            log.debug("%s: %d event streams served already; refused", self.address_string(),
                      streams)  # fmt: skip
            message = (
                f"the table's page serves at most {streams} live streams at once, and all "
                "are taken: close a page of the table left open elsewhere, then reload\n"
            )
            self.close_connection = True
            self._send(
                HTTPStatus.SERVICE_UNAVAILABLE,
                "text/plain; charset=utf-8",
                message.encode(),
                {"Retry-After": "30"},
            )
            return
        try:
            self._stream_views()
        finally:
            self.server._streaming.release()

    def _stream_views(self) -> None:
        self.send_response(HTTPStatus.OK)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.end_headers()
        # The stream ends with the connection: never wait for another request on it.
        self.close_connection = True
        view = self.server.view
        version, payload = view.latest()
        try:
            self.wfile.write(b"retry: 1000\ndata: " + payload + b"\n\n")
            self.wfile.flush()
            last_sent = time.monotonic()
            while not self.server.stopping.is_set():
                newer, payload = view.wait_past(version, timeout=0.5)
                if newer != version:
                    version = newer
                    self.wfile.write(b"data: " + payload + b"\n\n")
                    self.wfile.flush()
                    last_sent = time.monotonic()
                elif time.monotonic() - last_sent > KEEPALIVE_SECONDS:
                    self.wfile.write(b": still here\n\n")
                    self.wfile.flush()
                    last_sent = time.monotonic()
        except OSError:
            # The page went (closed, reloaded, the tablet asleep): over TLS that is an
            # SSLError, plain a broken pipe or a reset; either way nothing to tell.
            return


class _PlainRequestToTlsPort(BaseHTTPRequestHandler):
    """A plain HTTP request to a server that speaks only HTTPS: a page asked for is sent on
    to its https:// address, and a command is refused, never carried out."""

    server: WebServer

    def log_message(self, format: str, *args: Any) -> None:
        log.debug("%s plain HTTP to the TLS port: " + format, self.address_string(), *args)

    def do_GET(self) -> None:
        self.close_connection = True
        host = self.headers.get("Host", "")
        bad_host = not host or any(c in host for c in "/\\@?# ")
        if bad_host or not self.path.startswith("/") or self.path.startswith("//"):
            self._refuse()
            return
        # Temporary and not kept: a browser that kept a permanent one would find no page
        # once the table is served plain again (its certificate lapsed, say).
        self.send_response(HTTPStatus.TEMPORARY_REDIRECT)
        self.send_header("Location", f"https://{host}{self.path}")
        self.send_header("Cache-Control", "no-store")
        self.send_header("Content-Length", "0")
        self.send_header("Connection", "close")
        self.end_headers()

    def do_HEAD(self) -> None:
        self.do_GET()

    def do_POST(self) -> None:
        # Its password has crossed the network already; passing the command on over HTTPS
        # would let such a client go on sending it in the clear.
        self.close_connection = True
        self._refuse()

    def _refuse(self) -> None:
        body = b"this server speaks only HTTPS: use its https:// address\n"
        self.send_response(HTTPStatus.BAD_REQUEST)
        self.send_header("Content-Type", "text/plain; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Connection", "close")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)


def _hang_up(connection: socket.socket) -> None:
    """End a connection from another thread: the read it waits in returns at once."""
    with contextlib.suppress(OSError):
        # The socket's own shutdown, under TLS too: an SSLSocket's would drop its TLS state
        # beneath the read, which would then fail as a bug rather than a connection ended.
        socket.socket.shutdown(connection, socket.SHUT_RDWR)


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


class RenewedCertificate:
    """The pages' TLS context, loaded again when its certificate or key file changes: a
    certificate is renewed every few months (certbot, an ACME client, the house's own CA)
    while the table deals on, and each new connection then gets the new one, with no
    restart. A renewal caught half written (the certificate new, its key not yet) is not
    loaded: the pages keep the certificate they had until the files match again."""

    def __init__(
        self,
        files: Sequence[str | Path],
        load: Callable[[], ssl.SSLContext],
        warnings: Callable[[], list[str]] = list,
    ) -> None:
        """``warnings`` says what is wrong with a certificate that loads (out of its dates):
        said at each renewal as at the start."""
        self._files = [Path(file) for file in files]
        self._load = load
        self._warnings = warnings
        self._lock = threading.Lock()
        self._seen = self._stamps()
        self._context = load()

    @classmethod
    def of(cls, source: str, files: WebTlsConfig) -> RenewedCertificate:
        """The certificate and key of ``files`` (``[web] tls``), checked as ``config check``
        checks them, their dates warned of at each renewal; ``source`` names the setting."""
        dates = functools.partial(certificate_warning, source, files)
        return cls(
            [files.cert_file, files.key_file or files.cert_file],
            functools.partial(web_tls_context, source, files),
            lambda: [warning] if (warning := dates()) else [],
        )

    def _stamps(self) -> list[tuple[int, int, int, int] | None]:
        stamps: list[tuple[int, int, int, int] | None] = []
        for file in self._files:
            try:
                stat = file.stat()
            except OSError:
                stamps.append(None)
            else:
                # The change time too: a key made readable by chmod or chown is new to us.
                stamps.append((stat.st_mtime_ns, stat.st_ctime_ns, stat.st_size, stat.st_ino))
        return stamps

    def context(self) -> ssl.SSLContext:
        """The context for a new connection: the files' as they are now, if they load."""
        with self._lock:
            stamps = self._stamps()
            if stamps != self._seen:
                self._seen = stamps
                try:
                    self._context = self._load()
                except (TableError, ssl.SSLError, OSError) as refused:
                    log.warning("the page's certificate changed but is not loaded: %s; the pages "
                                "keep the one they had", refused)  # fmt: skip
                else:
                    log.info("the page's certificate was renewed: new connections get it")
                    for warning in self._warnings():
                        log.warning("%s", warning)
            return self._context


class WebServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(
        self,
        view: LiveView,
        host: str = "0.0.0.0",
        port: int = 8080,
        language: str = "en",
        relay: CommandRelay | None = None,
        tls: ssl.SSLContext | RenewedCertificate | None = None,
        max_connections: int = MAX_CONNECTIONS,
        max_streams: int = MAX_STREAMS,
    ):
        self.view = view
        self.language = language
        self.relay: CommandRelay = relay or RefusingRelay(ONLY_SHOWN)
        # With a server context (its certificate loaded) every connection speaks TLS.
        self.tls = tls
        self.handshake_seconds = HANDSHAKE_SECONDS
        self.request_seconds = REQUEST_SECONDS
        self.max_connections = max_connections
        self._serving = threading.BoundedSemaphore(max_connections)
        self.max_streams = min(max_streams, max_connections - 1)
        self._streaming = threading.BoundedSemaphore(self.max_streams)
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
        scheme = "https" if self.tls is not None else "http"
        return f"{scheme}://{'127.0.0.1' if name in ('0.0.0.0', '') else name}:{port}/"

    def finish_request(self, request: Any, client_address: Any) -> None:
        if self.tls is None:
            super().finish_request(request, client_address)
            return
        # Each connection's handshake runs on that connection's own thread: done in the
        # accept loop, one silent or slow client would keep every other one waiting.
        secured = self._secure(request, client_address)
        if secured is None:
            return
        try:
            super().finish_request(secured, client_address)
        finally:
            # The handshake took the accepted socket over: closed here, not by the caller.
            self.shutdown_request(secured)

    def _secure(self, connection: socket.socket, client_address: Any) -> ssl.SSLSocket | None:
        """The connection with its TLS handshake done; None if it did not speak TLS (a plain
        request is answered in plain HTTP) or its handshake failed."""
        assert self.tls is not None
        connection.settimeout(self.handshake_seconds)
        try:
            first = connection.recv(1, socket.MSG_PEEK)
            if not first:
                return None  # gone before saying anything
            if first[0] != TLS_HANDSHAKE_RECORD:
                # Within the handshake's time in all: a plain client that trickles its
                # request a byte at a time is let go as soon as a silent one.
                deadline = threading.Timer(self.handshake_seconds, _hang_up, [connection])
                deadline.start()
                try:
                    _PlainRequestToTlsPort(connection, client_address, self)
                finally:
                    deadline.cancel()
                return None
            context = self.tls.context() if isinstance(self.tls, RenewedCertificate) else self.tls
            secured = context.wrap_socket(connection, server_side=True)
        except (ssl.SSLError, OSError) as failed:
            log.debug("TLS handshake with %s failed: %s", client_address[0], failed)
            return None
        secured.settimeout(None)  # the handler sets its own: a page's stream stays open
        return secured

    def process_request(self, request: Any, client_address: Any) -> None:
        if not self._serving.acquire(blocking=False):
            log.debug("%s: %d connections served already; closed", client_address[0],
                      self.max_connections)  # fmt: skip
            self.shutdown_request(request)
            return
        try:
            super().process_request(request, client_address)
        except BaseException:
            self._serving.release()
            raise

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._serving.release()

    def handle_error(self, request: Any, client_address: Any) -> None:
        if isinstance(sys.exc_info()[1], OSError):
            # A client gone mid-answer (over TLS an SSLError): nothing to tell the operator.
            log.debug("%s went: %s", client_address[0], sys.exc_info()[1])
            return
        super().handle_error(request, client_address)

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
