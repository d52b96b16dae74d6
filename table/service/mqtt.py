"""The table on MQTT (paho-mqtt 2.x, MQTT v5).

Topics under ``<prefix>/<table-id>/``: ``events`` (every event, QoS 1, in seq order),
``state`` (retained snapshot), ``status`` (retained ``online``/``offline``, the last will),
``cmd/<verb>`` in and ``reply`` out.

The journal is the outbox: events are published from it, and the last seq the broker
acknowledged is kept in the journal, so after a broker outage or a restart publishing goes
on from there. Nothing is lost, and the events go out in seq order. A subscriber may see an
event twice after a reconnect and drops repeats by ``seq`` within one journal (every
``events`` and ``state`` message names its journal (:meth:`Journal.name`) in the MQTT v5 user
property ``journal``, as a new journal for the table begins again at seq 1), by the seqs it
has seen rather than the highest: after the broker refuses an event (an access list mended
meanwhile), those already in flight behind it arrive before it, and all again after it.

paho runs its network loop on its own thread; its callbacks only put what they were told on
a queue, which the service's main loop drains in :meth:`MqttLink.pump`.
"""

from __future__ import annotations

import contextlib
import json
import logging
import queue
import socket
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties
from paho.mqtt.subscribeoptions import SubscribeOptions

from table.cards import Card
from table.errors import TableError
from table.events import public_record
from table.faro.engine import FaroState
from table.language import (
    BancoCmd,
    BankCmd,
    BankerCmd,
    BetCmd,
    CallCmd,
    Command,
    CorrectCmd,
    CutCmd,
    EmptyCmd,
    LeaveCmd,
    LockCmd,
    MoveCmd,
    PassBankCmd,
    PunterCmd,
    RulesCmd,
    ShuffleCmd,
    StandCmd,
    UnreadCmd,
    VoidCmd,
    WithdrawCmd,
)
from table.options import option_text
from table.service.config import MqttConfig
from table.service.journal import BOARD_FRAME_REQUEST, Journal, JournalError
from table.service.table_service import TableService, baccarat_snapshot, state_snapshot

log = logging.getLogger("dealtable.mqtt")

OUTBOX_CURSOR = "mqtt"
WINDOW = 50  # events in flight before the broker acknowledges them
# The longest command is a bet with a standing instruction, well under a kilobyte; anything
# far larger is not a command, and parsing it would hold up the table's main loop.
MAX_COMMAND_BYTES = 4096
# A CONNACK's reasons for refusing who logs in: a bad user name or password, not authorized.
ACCOUNT_REFUSED_CODES = frozenset({134, 135})
# Commands carried out in one pump at most: a client that sends without pause must not keep
# the table's loop (its cards, buttons and watchdog) waiting; the rest wait for the next pump.
COMMANDS_PER_PUMP = 20
# After the broker refuses an event (its access list), publishing tries again after this
# long, doubled at each refusal up to the longest: an access list mended while the link stays
# connected is found without a reconnect, and a list left wrong is not hammered.
REFUSED_RETRY_SECONDS = 30.0
REFUSED_RETRY_LONGEST = 600.0
# How long a stop waits for paho's network thread to end. paho's own loop_stop waits with no
# limit, and a thread stuck in a name lookup with the network down would hold the stop past
# systemd's TimeoutStopSec (20 s in hw/systemd), when systemd kills the service.
STOP_WAIT_SECONDS = 3.0


class CommandError(TableError):
    """An MQTT command that is malformed: the reply says what is wrong."""


@dataclass(frozen=True)
class _Connected:
    reason: str
    success: bool
    # The broker took the account or its password for wrong (MQTT 5's reason codes 134, 135).
    account_refused: bool = False


@dataclass(frozen=True)
class _Disconnected:
    reason: str


@dataclass(frozen=True)
class _ConnectFailed:
    """The broker could not be reached at all (no answer, refused, no such host)."""

    reason: str


@dataclass(frozen=True)
class _Acked:
    mid: int
    refusal: str = ""  # the broker's reason code, when it refused the message


@dataclass(frozen=True)
class _SubscriptionRefused:
    reason: str


@dataclass(frozen=True)
class _Incoming:
    topic: str
    payload: bytes
    mid: int = 0
    qos: int = 0
    response_topic: str | None = None  # MQTT 5's Response Topic, as the sender asked


def private_reply_topic(prefix: str, account: str) -> str | None:
    """The topic an account's commands are answered on when it asks for its own (MQTT 5's
    Response Topic): ``dealtable/<table>/reply/<account>``, which the example access list
    lets that account alone, and the dealer, read. None for a name the table would not
    answer under (empty, or holding ``/``, ``+`` or ``#``)."""
    topic = f"{prefix}/reply/{account}"
    return topic if _is_private_reply_topic(prefix, topic) else None


def _is_private_reply_topic(prefix: str, topic: str) -> bool:
    """A topic one level under the table's ``reply``, with no wildcard: the only place other
    than ``reply`` itself that the table answers on."""
    level = topic.removeprefix(f"{prefix}/reply/")
    return level != topic and bool(level) and not any(c in level for c in "/+#\0")


def _field(payload: dict[str, Any], name: str, kind: type, verb: str, default: Any = ...) -> Any:
    if name not in payload:
        if default is ...:
            raise CommandError(f"cmd/{verb}: field {name!r} is missing")
        return default
    value = payload[name]
    if kind is int and (isinstance(value, bool) or not isinstance(value, int)):
        raise CommandError(f"cmd/{verb}: field {name!r} must be a whole number, not {value!r}")
    if kind is not int and not isinstance(value, kind):
        raise CommandError(f"cmd/{verb}: field {name!r} must be {kind.__name__}, not {value!r}")
    return value


# Each verb's fields besides ``request_id``: a misspelt field is refused, not ignored, so
# that ``amuont`` does not withdraw a whole bet.
COMMAND_FIELDS: dict[str, frozenset[str]] = {
    "bet": frozenset({"punter", "spot", "amount", "copper", "mark", "instruction"}),
    "withdraw": frozenset({"punter", "spot", "amount", "copper", "order", "mark"}),
    "move": frozenset({"punter", "from", "to", "copper", "mark"}),
    "call": frozenset({"punter", "order", "amount"}),
    "banco": frozenset({"punter"}),
    "pass": frozenset(),
    "punter": frozenset({"punter", "bankroll"}),
    "leave": frozenset({"punter"}),
    "lock": frozenset(),
    "shuffle": frozenset(),
    "void": frozenset({"deal"}),
    "correct": frozenset({"card"}),
    "unread": frozenset(),
    "empty": frozenset(),
    "stand": frozenset(),
    "cut": frozenset(),
    "bank": frozenset({"amount"}),
    "banker": frozenset({"banker"}),
    "rules": frozenset({"rules", "options"}),
}
# Verbs that take no field: each is its table-language line alone.
_BARE_VERBS: dict[str, Callable[[], Command]] = {
    "pass": PassBankCmd,
    "lock": LockCmd,
    "shuffle": ShuffleCmd,
    "empty": EmptyCmd,
    "stand": StandCmd,
    "cut": CutCmd,
    "unread": UnreadCmd,
}


def _check_fields(verb: str, payload: dict[str, Any]) -> None:
    known = COMMAND_FIELDS.get(verb)
    if known is None:
        return  # the verb itself is refused below, by name
    unknown = sorted(set(payload) - known - {"request_id"})
    if unknown:
        names = ", ".join(repr(name[:40]) for name in unknown)
        fields = ", ".join(sorted(known)) or "none besides request_id"
        raise CommandError(f"cmd/{verb}: unknown field {names} (fields: {fields})")


def _order(payload: dict[str, Any], verb: str) -> tuple[str, str, str]:
    """A call's ``order``: its loser, winner and hoc."""
    order = _field(payload, "order", list, verb)
    if len(order) != 3 or not all(isinstance(word, str) for word in order):
        raise CommandError(f"cmd/{verb}: field 'order' must be three ranks or colours: {order!r}")
    return (order[0], order[1], order[2])


def _options(payload: dict[str, Any], verb: str) -> dict[str, str]:
    """A ``rules`` command's house options, each a name and its value as the table language
    writes them (``{"split": "full-loss"}``)."""
    options = _field(payload, "options", dict, verb, {})
    for name, value in options.items():
        if not isinstance(value, str | int):
            raise CommandError(
                f"cmd/{verb}: option {name[:40]!r} must be text, a whole number or true or "
                f"false, not {value!r}"[:200]
            )
    return {name: option_text(value) for name, value in options.items()}


def command_from_payload(verb: str, payload: dict[str, Any]) -> Command:
    """An MQTT command as a table-language command. No verb can add a card."""
    _check_fields(verb, payload)
    if verb == "bet":
        return BetCmd(
            _field(payload, "punter", str, verb),
            _field(payload, "spot", str, verb),
            _field(payload, "amount", int, verb),
            copper=_field(payload, "copper", bool, verb, False),
            mark=_field(payload, "mark", bool, verb, False),
            instruction=_field(payload, "instruction", str, verb, ""),
        )
    if verb == "withdraw":
        amount = _field(payload, "amount", int, verb, None) if "amount" in payload else None
        copper = _field(payload, "copper", bool, verb, None) if "copper" in payload else None
        return WithdrawCmd(
            _field(payload, "punter", str, verb),
            _field(payload, "spot", str, verb),
            amount,
            copper,
            _order(payload, verb) if "order" in payload else None,
            _field(payload, "mark", bool, verb, None),
        )
    if verb == "move":
        return MoveCmd(
            _field(payload, "punter", str, verb),
            _field(payload, "from", str, verb),
            _field(payload, "to", str, verb),
            _field(payload, "copper", bool, verb, None),
            _field(payload, "mark", bool, verb, None),
        )
    if verb == "call":
        return CallCmd(
            _field(payload, "punter", str, verb),
            _order(payload, verb),
            _field(payload, "amount", int, verb),
        )
    if verb == "banco":
        return BancoCmd(_field(payload, "punter", str, verb))
    bare = _BARE_VERBS.get(verb)
    if bare is not None:
        return bare()
    if verb == "punter":
        return PunterCmd(
            _field(payload, "punter", str, verb), _field(payload, "bankroll", int, verb)
        )
    if verb == "leave":
        return LeaveCmd(_field(payload, "punter", str, verb))
    if verb == "bank":
        return BankCmd(_field(payload, "amount", int, verb))
    if verb == "banker":
        return BankerCmd(_field(payload, "banker", str, verb))
    if verb == "rules":
        return RulesCmd(_field(payload, "rules", str, verb), _options(payload, verb))
    if verb == "void":
        return VoidCmd(deal=_field(payload, "deal", bool, verb, False))
    if verb == "correct":
        text = _field(payload, "card", str, verb)
        try:
            return CorrectCmd(Card.parse(text))
        except ValueError as error:
            raise CommandError(f"cmd/correct: {error}") from None
    if verb == "card":
        raise CommandError("cmd/card: commands cannot add a card; cards come from the readers")
    raise CommandError(f"unknown verb {verb!r} (known: {', '.join(COMMAND_FIELDS)})")


_Report = _Connected | _Disconnected | _ConnectFailed | _Acked | _SubscriptionRefused | _Incoming


def _public_body(body: str) -> str:
    """A journaled event as the events topic publishes it: a card dealt face down unnamed
    (:func:`public_record`). Only those records are decoded; the rest go as written."""
    if '"face_down":true' not in body:
        return body
    public = public_record(json.loads(body))
    return json.dumps(public, ensure_ascii=False, separators=(",", ":"))


def _why_unreachable(error: BaseException | None) -> str:
    if isinstance(error, socket.gaierror):
        return f"no such host ({error.strerror})"
    if isinstance(error, ConnectionRefusedError):
        return "connection refused (is the broker running and listening on this port?)"
    if isinstance(error, TimeoutError):
        return "no answer (timed out)"
    if isinstance(error, OSError):
        return error.strerror or str(error)
    return "the connection failed"


def broker_client(
    config: MqttConfig, client_id: str, account: tuple[str, str] | None = None
) -> mqtt.Client:
    """A client of the table's broker with the config's TLS, in the config's account, or in
    ``account`` (user name, password) if given."""
    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=client_id, protocol=mqtt.MQTTv5)
    if account is not None:
        client.username_pw_set(*account)
    elif config.username:
        client.username_pw_set(config.username, config.password or None)
    if config.tls is not None:
        client.tls_set(
            ca_certs=config.tls.ca_file or None,
            certfile=config.tls.cert_file or None,
            keyfile=config.tls.key_file or None,
        )
    return client


def say_offline(config: MqttConfig, table_id: str, timeout: float = 3.0) -> bool:
    """Set the table's retained ``status`` to ``offline``, for a service that will not start.
    A service that died with the broker left ``online`` retained and no will was published:
    a monitor would go on seeing the table up. Its own client id, so the service's
    session, and the commands it keeps, are left alone. True once the broker has it."""
    client = broker_client(config, f"{config.client_id or f'dealtable-{table_id}'}-not-started")
    client.connect_timeout = timeout
    # A broker that names clients by their account (use_username_as_clientid, as
    # hw/mosquitto's TLS listener does) makes this the service's own session: resumed, not
    # started clean, and the commands queued in it left unacknowledged, so they wait for
    # the service as they did.
    client.manual_ack_set(True)
    properties = Properties(PacketTypes.CONNECT)  # type: ignore[no-untyped-call]
    properties.SessionExpiryInterval = config.session_expiry
    try:
        client.connect(
            config.host,
            config.port,
            keepalive=max(5, int(timeout) * 2),
            clean_start=False,
            properties=properties,
        )
        client.loop_start()
        sent = client.publish(f"{config.prefix}/{table_id}/status", "offline", qos=1, retain=True)
        sent.wait_for_publish(timeout)
        return sent.is_published()
    except (OSError, ValueError, RuntimeError) as error:
        why = _why_unreachable(error) if isinstance(error, OSError) else str(error)
        log.info("could not tell the broker the table is offline: %s", why)
        return False
    finally:
        client.disconnect()
        client.loop_stop()


# The most brackets a command has: an object, its options or a call's order. Far more is no
# command, and parsed it would recurse a thousand deep, where Python's own finalizers fail.
MAX_COMMAND_BRACKETS = 16


def command_json(payload: bytes, what: str) -> Any:
    """A command's payload read as JSON; CommandError, its message begun with ``what`` (the
    command's topic), if it is no JSON a command could be."""
    brackets = payload.count(b"[") + payload.count(b"{")
    if brackets > MAX_COMMAND_BRACKETS:
        raise CommandError(
            f"{what}: not a JSON object a command could be: {brackets} brackets "
            f"(at most {MAX_COMMAND_BRACKETS})"
        )
    try:
        return json.loads(payload.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as error:
        # ValueError also covers a number of thousands of digits.
        raise CommandError(f"{what}: not a JSON object: {error}") from None


def _is_text(value: str) -> bool:
    """Whether ``value`` can be written as UTF-8: a string from JSON may hold half a pair."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _request_id_of(payload: object) -> str | None:
    """A command's request id, if it has one that can be written and told back."""
    found = payload.get("request_id") if isinstance(payload, dict) else None
    return found if isinstance(found, str) and found and _is_text(found) else None


class MqttLink:
    def __init__(
        self,
        config: MqttConfig,
        table_id: str,
        service: TableService,
        journal: Journal,
        clock: Callable[[], float] = time.monotonic,
        reconnect_delay: tuple[int, int] = (1, 5),
    ) -> None:
        self.config = config
        self.prefix = f"{config.prefix}/{table_id}"
        self.stop_wait_seconds = STOP_WAIT_SECONDS
        self.service = service
        self.journal = journal
        self.clock = clock
        self.connected = False
        self.connect_failures = 0  # attempts that did not connect, since the link started
        # Since it was last connected, the broker failed to answer and the operator was told;
        # told once an outage, not on every retry.
        self.unreachable = False
        self.last_refusal: str | None = None
        # paho reports a refused connection twice, refused and then ended: counted once.
        self._refused_this_attempt = False
        self._queue: queue.Queue[_Report] = queue.Queue()
        # Records archived before the outbox was there are not in the journal to send.
        self._acked_upto = max(journal.cursor(OUTBOX_CURSOR), journal.first_seq - 1)
        self._sent_upto = self._acked_upto
        self._in_flight: dict[int, int] = {}
        self._publish_refused = ""  # why the broker refused an event, until it reconnects
        self._acked_beyond: set[int] = set()
        self._cursor_unwritten = False  # the journal could not keep the outbox's place
        self._place_moved = False  # acknowledged further than the journal keeps
        self._refused_at = 0.0
        self._refused_wait = REFUSED_RETRY_SECONDS
        self._other_refused = False  # a reply or state refused, told once a connection
        self._status_mid = -1  # the "online" said at connecting, whose refusal says the most
        # Kept from the start: no record is archived before the outbox has sent it.
        self._keep_place()
        self._state_seq = -1
        self._state_trouble = ""
        self._named: dict[str, Properties] = {}
        client = broker_client(config, config.client_id or f"dealtable-{table_id}")
        client.will_set(f"{self.prefix}/status", "offline", qos=1, retain=True)
        client.reconnect_delay_set(min_delay=reconnect_delay[0], max_delay=reconnect_delay[1])
        client.on_connect = self._on_connect
        client.on_connect_fail = self._on_connect_fail
        client.on_disconnect = self._on_disconnect
        client.on_publish = self._on_publish
        client.on_message = self._on_message
        client.on_subscribe = self._on_subscribe
        client.on_socket_open = self._on_socket_open
        # Set as the link stops: a connection paho's thread opens after (its name lookup
        # stuck until then) is closed before it says a word to the broker.
        self._stopping = threading.Event()
        # A command is acknowledged to the broker once it has been journaled or refused, so
        # one the service had not yet carried out when it stopped is delivered again.
        client.manual_ack_set(True)
        self.client = client

    # --- paho's thread: only hand things over ---------------------------------------------

    def _on_connect(
        self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, properties: Any
    ) -> None:
        refused = reason.value in ACCOUNT_REFUSED_CODES
        self._queue.put(_Connected(str(reason), not reason.is_failure, refused))

    def _on_connect_fail(self, client: mqtt.Client, userdata: Any) -> None:
        # paho calls this from inside its `except OSError`, without the error: the error
        # being handled is the one that says why.
        error = sys.exc_info()[1]
        self._queue.put(_ConnectFailed(_why_unreachable(error)))

    def _on_disconnect(
        self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, properties: Any
    ) -> None:
        if flags.is_disconnect_packet_from_server:
            why = f"the broker ended it ({reason})"
        elif str(reason) == "Unspecified error":  # what paho says for a dropped connection
            why = "the connection dropped"
        else:
            why = str(reason)
        self._queue.put(_Disconnected(why))

    def _on_publish(
        self, client: mqtt.Client, userdata: Any, mid: int, reason: Any, properties: Any
    ) -> None:
        self._queue.put(_Acked(mid, str(reason) if reason.is_failure else ""))

    def _on_subscribe(
        self, client: mqtt.Client, userdata: Any, mid: int, reasons: Any, properties: Any
    ) -> None:
        refused = [str(reason) for reason in reasons if reason.is_failure]
        if refused:
            self._queue.put(_SubscriptionRefused(", ".join(refused)))

    def _on_socket_open(self, client: mqtt.Client, userdata: Any, sock: Any) -> None:
        """A connection to the broker is open, before paho sends its CONNECT: one opened once
        the link is stopping (a lookup left hanging that came back after a reload, the new
        link already connected under the same client id) is closed unused, so that it
        neither takes the new link's session from it nor publishes the old one's events.
        The OSError ends the attempt; paho's thread, told to end, retries no more."""
        if self._stopping.is_set():
            sock.close()
            raise ConnectionAbortedError("the link to the broker was stopped")

    def _on_message(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        response_topic = getattr(message.properties, "ResponseTopic", None)
        self._queue.put(
            _Incoming(
                message.topic, bytes(message.payload), message.mid, message.qos, response_topic
            )
        )

    # --- the main loop's side ---------------------------------------------------------------

    def start(self) -> None:
        properties = Properties(PacketTypes.CONNECT)  # type: ignore[no-untyped-call]
        properties.SessionExpiryInterval = self.config.session_expiry
        self.client.connect_async(
            self.config.host,
            self.config.port,
            keepalive=self.config.keepalive,
            clean_start=False,
            properties=properties,
        )
        self.client.loop_start()

    def stop(self) -> None:
        self._stopping.set()
        try:
            if self.connected:
                self.client.publish(
                    f"{self.prefix}/status", "offline", qos=1, retain=True
                ).wait_for_publish(2.0)
        except (RuntimeError, ValueError) as error:
            # The connection went since the last pump: the broker publishes the will.
            log.info("could not say offline to the broker: %s", error)
        finally:
            self.client.disconnect()
            self._end_network_thread()
        self._take_late_acknowledgements()
        if self._place_moved or self._cursor_unwritten:
            self._keep_place()  # else what the broker took goes out again at the next start
        waiting = self.unacknowledged
        if waiting:
            # The outbox cursor moves only on the broker's acknowledgement, and publishing
            # starts from it: these events go out when the link next starts.
            log.warning(
                "%d %s not yet acknowledged by the broker (up to event %d): %s in the "
                "journal's outbox and %s out at the next start",
                waiting,
                "event" if waiting == 1 else "events",
                self.journal.last_seq,
                "it stays" if waiting == 1 else "they stay",
                "goes" if waiting == 1 else "go",
            )

    def _end_network_thread(self) -> None:
        """paho's network thread ended, waited for at most :attr:`stop_wait_seconds`: one
        stuck (a name lookup with the network down) is left behind, a daemon thread that
        dies with the process. Nothing waits in it: the journal holds every event, and the
        outbox's place moves only on the broker's acknowledgement."""
        stopping = threading.Thread(target=self.client.loop_stop, name="mqtt-stop", daemon=True)
        stopping.start()
        stopping.join(self.stop_wait_seconds)
        if stopping.is_alive():
            log.error(
                "the link to the broker at %s did not end within %g s (its network thread "
                "is stuck, in a name lookup or a connection with the network down): it is "
                "abandoned; the journal holds every event, and those the broker has not "
                "acknowledged go out from its outbox at the next start",
                self._address,
                self.stop_wait_seconds,
            )

    def _take_late_acknowledgements(self) -> None:
        """What the broker acknowledged since the last pump; nothing else is done any more."""
        while True:
            try:
                item = self._queue.get_nowait()
            except queue.Empty:
                return
            if isinstance(item, _Acked):
                self._acked(item)

    @property
    def unacknowledged(self) -> int:
        """Journaled events the broker has not acknowledged yet."""
        return self.journal.last_seq - self._acked_upto

    @property
    def acked_seq(self) -> int:
        return self._acked_upto

    def pump(self) -> None:
        """Handle what paho reported, run incoming commands (at most ``COMMANDS_PER_PUMP``),
        publish what the journal holds."""
        commands = 0
        while commands < COMMANDS_PER_PUMP:
            try:
                item = self._queue.get_nowait()
            except queue.Empty:
                break
            if isinstance(item, _Connected):
                self._connected(item)
            elif isinstance(item, _ConnectFailed):
                self._not_reached(f"cannot reach the broker at {self._address}: {item.reason}")
            elif isinstance(item, _Disconnected):
                self._disconnected(item)
            elif isinstance(item, _Acked):
                self._acked(item)
            elif isinstance(item, _SubscriptionRefused):
                log.error(
                    "the broker at %s refused the table's subscription to %s/cmd/+ (%s): no "
                    "command sent to this table reaches it; %s",
                    self._address,
                    self.prefix,
                    item.reason,
                    self._access_needed,
                )
            else:
                commands += 1
                self._command(item)
        # Written once a pump, not once an acknowledgement: each write waits for the disk,
        # and catching up after an outage acknowledges fifty events a pump.
        if self._cursor_unwritten or self._place_moved:
            self._keep_place()
        self._retry_refused()
        if self.connected:
            self._publish_outbox()
            self._publish_state()

    def flush(self, timeout: float) -> bool:
        """Publish until the broker has acknowledged every journaled event, time runs out, or
        the broker is known to be out of reach (waiting would only delay the stop)."""
        deadline = self.clock() + timeout
        self.pump()
        if self.unacknowledged and not self.connected and not self.unreachable:
            log.info(
                "waiting up to %g s for the broker at %s to take %d events",
                timeout,
                self._address,
                self.unacknowledged,
            )
        while self.clock() < deadline:
            self.pump()
            if self.connected and self._acked_upto >= self.journal.last_seq:
                return True
            if self.unreachable:
                return False
            time.sleep(0.01)
        return False

    @property
    def _address(self) -> str:
        return f"{self.config.host}:{self.config.port}"

    def _not_reached(self, message: str) -> None:
        self.connect_failures += 1
        if not self.unreachable:
            log.warning("%s; retrying, the events wait in the journal", message)
            self.unreachable = True

    def _disconnected(self, item: _Disconnected) -> None:
        if self.connected:
            log.warning(
                "lost the broker at %s: %s; retrying, the events wait in the journal",
                self._address,
                item.reason,
            )
            self.unreachable = True  # the loss was told: the first retries need not be
        elif self._refused_this_attempt:
            pass  # the end of a connection the broker refused, told as that refusal
        else:
            # The broker took the connection and dropped it unanswered: a TLS listener does
            # that to a plain client, and nothing else would ever say so.
            hint = (
                ""
                if self.config.tls
                else "; a TLS listener does that to a client without [mqtt.tls]"
            )
            self._not_reached(
                f"the broker at {self._address} closed the connection before accepting it "
                f"({item.reason}{hint})"
            )
        self._refused_this_attempt = False
        self.connected = False

    def _connected(self, item: _Connected) -> None:
        if not item.success:
            self._refused_this_attempt = True
            account = self.config.username
            if not item.account_refused:
                refused = f"refused the connection: {item.reason}"
            elif account:
                refused = (
                    f"refused the account {account}: {item.reason} (the password in [mqtt] "
                    "password_file, or [mqtt] password, must be the one the broker's password "
                    "file holds for that account: hw/mosquitto/make-passwords.sh)"
                )
            else:
                refused = (
                    f"refused the table, which logs in with no account: {item.reason} (set "
                    "[mqtt] username and password_file)"
                )
            self._not_reached(f"the broker at {self._address} {refused}")
            return
        if self.unacknowledged:
            log.info(
                "connected to the broker at %s; publishing %d events from the journal",
                self._address,
                self.unacknowledged,
            )
        else:
            log.info("connected to the broker at %s", self._address)
        self.unreachable = False
        self.connected = True
        self._publish_refused = ""
        self._refused_wait = REFUSED_RETRY_SECONDS
        self._other_refused = False
        # Start again from what the broker acknowledged; repeats are dropped by seq downstream.
        self._in_flight.clear()
        self._acked_beyond.clear()
        self._sent_upto = self._acked_upto
        self._state_seq = -1
        # A command left retained on the broker is not sent at subscribing: it would be
        # carried out again at every reconnect, long after its sender stopped waiting.
        self.client.subscribe(
            f"{self.prefix}/cmd/+",
            options=SubscribeOptions(qos=1, retainHandling=SubscribeOptions.RETAIN_DO_NOT_SEND),
        )
        online = self.client.publish(f"{self.prefix}/status", "online", qos=1, retain=True)
        self._status_mid = online.mid

    @property
    def _access_needed(self) -> str:
        """What the broker's access list must give the table, and how to write one."""
        if not self.config.username:
            # `dealtable config acl` writes no list for a table without an account.
            return (
                "the table logs in with no account, and the broker's access list gives topics "
                "to accounts: name one in [mqtt] username, and `dealtable config acl` writes "
                f"the list that lets it read and write {self.prefix}/#"
            )
        return (
            f"the broker's access list must let the account {self.config.username} read and "
            f"write {self.prefix}/# (`dealtable config acl` writes one for this table's [mqtt] "
            "prefix and username)"
        )

    def _acked(self, acked: _Acked) -> None:
        seq = self._in_flight.pop(acked.mid, None)
        if seq is None:
            said_online = acked.mid == self._status_mid
            if said_online:
                self._status_mid = -1  # its mid may come round again, on another message
            if acked.refusal and said_online and not self._other_refused:
                # Said as the link connects, before any event: a list written for another
                # prefix or another table refuses the table every topic of its own.
                log.error(
                    "the broker at %s refused the table's status on %s/status as it "
                    "connected (%s): %s",
                    self._address,
                    self.prefix,
                    acked.refusal,
                    self._access_needed,
                )
                self._other_refused = True
            elif acked.refusal and not self._other_refused:
                # A reply or the state: the clients waiting for it are not told otherwise.
                log.error(
                    "the broker at %s refused a reply or state the table sent under %s (%s); %s",
                    self._address,
                    self.prefix,
                    acked.refusal,
                    self._access_needed,
                )
                self._other_refused = True
            return
        if acked.refusal:
            # Not delivered: the cursor stays before it, and publishing waits for the next
            # connection rather than sending the rest past a hole.
            if not self._publish_refused:
                log.error(
                    "the broker at %s refused event %d on %s/events (%s): the events wait "
                    "in the journal and are offered again in %.0f s; %s",
                    self._address,
                    seq,
                    self.prefix,
                    acked.refusal,
                    self._refused_wait,
                    self._access_needed,
                )
                self._refused_at = self.clock()
            self._publish_refused = acked.refusal
            return
        self._acked_beyond.add(seq)
        advanced = self._acked_upto
        while advanced + 1 in self._acked_beyond:
            advanced += 1
            self._acked_beyond.discard(advanced)
        if advanced != self._acked_upto:
            self._acked_upto = advanced
            self._place_moved = True

    def _retry_refused(self) -> None:
        """Offer the refused events again once the wait is over, from the last one the
        broker took (a subscriber drops repeats by seq)."""
        if not self._publish_refused or self.clock() - self._refused_at < self._refused_wait:
            return
        log.info(
            "offering the broker at %s the events it refused again, from event %d",
            self._address,
            self._acked_upto + 1,
        )
        self._publish_refused = ""
        self._sent_upto = self._acked_upto
        self._refused_wait = min(self._refused_wait * 2, REFUSED_RETRY_LONGEST)

    def _keep_place(self) -> None:
        """The outbox's place kept in the journal; one not kept is tried again at each pump."""
        self._place_moved = False
        try:
            self.journal.set_cursor(OUTBOX_CURSOR, self._acked_upto)
        except JournalError as unwritten:
            # Kept in memory meanwhile; after a restart the events since the cursor the
            # journal holds go out again, and subscribers drop them by seq.
            if not self._cursor_unwritten:
                log.warning("the outbox's place is not kept: %s", unwritten)
            self._cursor_unwritten = True
        else:
            self._cursor_unwritten = False

    def _journal_named(self, name: str) -> Properties:
        """The user property that tells this journal's events from another's with the same
        seq (a new journal for the table begins again at 1; see :meth:`Journal.names`)."""
        properties = self._named.get(name)
        if properties is None:
            properties = Properties(PacketTypes.PUBLISH)  # type: ignore[no-untyped-call]
            properties.UserProperty = ("journal", name)
            self._named[name] = properties
        return properties

    def _publish_outbox(self) -> None:
        room = WINDOW - len(self._in_flight)
        if room <= 0 or self._publish_refused:
            return
        name_for, named = self.journal.name_for, self._journal_named
        for seq, body in self.journal.bodies(self._sent_upto, room):
            info = self.client.publish(
                f"{self.prefix}/events",
                _public_body(body),
                qos=1,
                properties=named(name_for(seq)),
            )
            if info.rc != mqtt.MQTT_ERR_SUCCESS:
                log.warning("publish of event %d failed (%s); will retry", seq, info.rc)
                return
            self._in_flight[info.mid] = seq
            self._sent_upto = seq

    def _publish_state(self) -> None:
        state = self.service.state
        trouble = self.service.journal_trouble
        if (state.last_seq, trouble) == (self._state_seq, self._state_trouble):
            return
        snapshot = (
            state_snapshot(state, advisor=self.service.config.table.advisor)
            if isinstance(state, FaroState)
            else baccarat_snapshot(state)
        )
        # Said beside the table's state, which cannot change while the journal cannot write:
        # a screen or a monitor watching an unattended table sees why nothing moves.
        snapshot["journal_trouble"] = trouble or None
        payload = json.dumps(snapshot, ensure_ascii=False, separators=(",", ":"))
        info = self.client.publish(
            f"{self.prefix}/state",
            payload,
            qos=1,
            retain=True,
            properties=self._journal_named(self.journal.name()),
        )
        if info.rc == mqtt.MQTT_ERR_SUCCESS:
            self._state_seq = state.last_seq
            self._state_trouble = trouble

    def _reply(self, item: _Incoming, request_id: str | None, body: dict[str, Any]) -> None:
        """Answer a command on the Response Topic it asked for, if that is a private reply
        topic of this table (:func:`private_reply_topic`), else on the shared ``reply``: a
        refusal may say what the room need not hear (a bet refused names the chips its punter
        has in hand), and every betting terminal and display reads ``reply``."""
        topic = item.response_topic
        if topic is None or not _is_private_reply_topic(self.prefix, topic):
            topic = f"{self.prefix}/reply"
        body = {"request_id": request_id, **body}
        self.client.publish(topic, json.dumps(body, ensure_ascii=False), qos=1)

    def _command(self, item: _Incoming) -> None:
        try:
            self._carry_out(item)
        except Exception as failed:
            # A fault the service did not foresee must not end the table: logged whole for
            # the project to mend, and its sender told what the journal says happened.
            log.exception("a command on %s failed", item.topic)
            request_id = None
            with contextlib.suppress(CommandError):
                request_id = _request_id_of(command_json(item.payload, item.topic))
            used = None if request_id is None else self.journal.request_seq(request_id)
            if used is not None:  # journaled, and a part that shows it failed after
                seqs = self.journal.seqs_of_request(used)
                self._reply(item, request_id, {"ok": True, "seqs": seqs})
                return
            if self.service.state.last_seq != self.journal.last_seq:
                self.service.back_to_journal()  # what was not written did not happen
            self._reply(item, request_id, {"ok": False, "error": f"not carried out: {failed!r}"})
        finally:
            # Journaled or refused: the broker may now forget it.
            self.client.ack(item.mid, item.qos)

    def _carry_out(self, item: _Incoming) -> None:
        verb = item.topic.rsplit("/", 1)[-1][:40]
        request_id: str | None = None
        try:
            if len(item.payload) > MAX_COMMAND_BYTES:
                raise CommandError(
                    f"cmd/{verb}: {len(item.payload)} bytes is too long for a command "
                    f"(at most {MAX_COMMAND_BYTES})"
                )
            payload = command_json(item.payload, f"cmd/{verb}")
            if not isinstance(payload, dict):
                raise CommandError(f"cmd/{verb}: the payload must be a JSON object")
            if "request_id" not in payload:
                raise CommandError(f"cmd/{verb}: field 'request_id' (text) is missing")
            raw_id = payload["request_id"]
            if not isinstance(raw_id, str) or not raw_id:
                raise CommandError(
                    f"cmd/{verb}: field 'request_id' must be a non-empty text, not {raw_id!r}"
                )
            request_id = _request_id_of(payload)
            if request_id is None or not _is_text(json.dumps(payload, ensure_ascii=False)):
                # JSON may escape half of a UTF-16 pair ("\\ud800"): no text that can be
                # journaled, published or shown.
                raise CommandError(
                    f"cmd/{verb}: the payload holds half of a UTF-16 pair (an escape from "
                    "\\ud800 to \\udfff alone), which is no character"
                )
            if request_id.startswith(BOARD_FRAME_REQUEST):
                raise CommandError(
                    f"cmd/{verb}: request ids beginning '{BOARD_FRAME_REQUEST}' are the layout "
                    "board's own; send another"
                )
            used = self.journal.request_seq(request_id)
            if used is not None:
                # Carried out already (a request id is kept only with the events it caused):
                # the broker's redelivery after a reconnect, or a sender that missed the
                # reply. It gets the same answer, and nothing is done again.
                self._reply(
                    item,
                    request_id,
                    {"ok": True, "seqs": self.journal.seqs_of_request(used), "repeat": True},
                )
                return
            command = command_from_payload(verb, payload)
            events = self.service.execute(command, request_id)
        except TableError as refused:
            self.last_refusal = str(refused)
            self._reply(item, request_id, {"ok": False, "error": str(refused)})
            return
        self._reply(item, request_id, {"ok": True, "seqs": [event.seq for event in events]})
