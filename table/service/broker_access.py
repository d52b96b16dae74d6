"""The broker's access list (a Mosquitto ``acl_file``) for the tables a broker serves.

Every topic a table uses lies under ``<prefix>/<table-id>/`` (:mod:`table.service.mqtt`),
``prefix`` being the table's ``[mqtt] prefix``: a list written for one prefix lets nothing
through under another, and Mosquitto says so to no one but the client refused (a publish's
acknowledgement) or to no one at all (a subscription it grants and delivers nothing on). So
the list is written from the tables' own configs (``dealtable config acl``), and the one
hw/mosquitto ships is this module's for table faro-1 under ``dealtable``.

Each table's account reads and writes its own table's topics; the role accounts, the same at
every table under a prefix:

- a dealer sends every command and reads everything;
- a betting terminal sends only the bet commands, and reads the replies, state, status and
  events;
- a display reads only: events, state, status and the shared replies;
- every account reads its own replies, ``<prefix>/<table-id>/reply/<account>``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from table.errors import TableError

DEFAULT_DEALERS = ("dealer",)
DEFAULT_TERMINALS = ("terminal",)
DEFAULT_DISPLAYS = ("display",)
# The longest text MQTT carries (an account's name, a topic), in bytes of UTF-8.
MQTT_TEXT_BYTES = 65535
# The commands a betting terminal may send: a punter's own, never the dealer's.
TERMINAL_VERBS = ("bet", "withdraw", "move", "call", "banco")
# What a terminal and a display read at every table, besides their own replies.
SHOWN_TOPICS = ("events", "state", "status", "reply")
ROLE_COMMENTS = {
    "dealer": "# The dealer's console or croupier's tablet: every command, and everything to read.",
    "terminal": "# A betting terminal: bet commands only, and what it needs to show the punter.",
    "display": "# A display, a web page, a museum screen: read only, and not the accounts' own "
    "replies.",
}


class AccessListError(TableError):
    """Tables or accounts no access list can be written for; the message says which."""


@dataclass(frozen=True)
class TableAccount:
    """A table as its config sets it on the broker: its topics' prefix, its id, its account."""

    prefix: str
    table_id: str
    username: str


@dataclass(frozen=True)
class RoleAccounts:
    """The accounts of each role, the same at every table: one a device on the network."""

    dealers: tuple[str, ...] = DEFAULT_DEALERS
    terminals: tuple[str, ...] = DEFAULT_TERMINALS
    displays: tuple[str, ...] = DEFAULT_DISPLAYS

    def by_role(self) -> dict[str, tuple[str, ...]]:
        return {"dealer": self.dealers, "terminal": self.terminals, "display": self.displays}


def prefix_problem(prefix: str) -> str | None:
    """Why ``prefix`` cannot be written in an access list, or None. A line of the file ends
    at a line break, and Mosquitto drops the blanks before a line's topic; in a ``pattern``
    line it puts the client's id for ``%c`` and the account for ``%u``."""
    if prefix != prefix.lstrip():
        return f"{prefix!r} begins with a blank, which Mosquitto drops from the access list's line"
    if not prefix.isprintable():
        return f"{prefix!r} holds a control character (a line break), which no line can hold"
    if "%c" in prefix or "%u" in prefix:
        return f"{prefix!r} holds %c or %u, which a pattern line reads as a client's id or account"
    return None


def account_problem(username: str) -> str | None:
    """Why ``username`` cannot be named in an access list's ``user`` line, or None."""
    if not username:
        return "an empty account name"
    if username != username.strip() or not username.isprintable():
        return (
            f"{username!r}: an account in an access list has no blank at either end and no "
            "control character"
        )
    if "+" in username or "#" in username:
        # Its reply topic <prefix>/<table-id>/reply/<account> would be a wildcard, which no
        # message is published on, and Mosquitto refuses such an account every pattern line.
        return (
            f"{username!r} holds + or #, MQTT's wildcards: no topic can name the account's "
            "own replies"
        )
    if ":" in username:
        return f"{username!r} holds ':', which ends an account's name in the password file"
    if len(username.encode()) > MQTT_TEXT_BYTES:
        return f"an account of {len(username.encode())} bytes: MQTT carries {MQTT_TEXT_BYTES}"
    return None


def access_list(tables: Sequence[TableAccount], roles: RoleAccounts | None = None) -> str:
    """The Mosquitto access list for ``tables`` and the role accounts ``roles`` (one account
    each by default: dealer, terminal, display). AccessListError if a prefix or an account
    cannot be written, a table is named twice, or an account is given two parts."""
    roles = roles or RoleAccounts()
    _check(tables, roles)
    prefixes = list(dict.fromkeys(table.prefix for table in tables))
    table_topics: dict[str, list[str]] = {}
    for table in tables:
        table_topics.setdefault(table.username, []).append(f"{table.prefix}/{table.table_id}/#")
    names = ("table " if len(tables) == 1 else "tables ") + ", ".join(t.table_id for t in tables)
    lines = [
        "# Mosquitto ACL for dealtable tables. Topics: "
        + ", ".join(f"{prefix}/<table-id>/..." for prefix in prefixes),
        f"# Written by `dealtable config acl` for {names} (README.md here):",
        "# write yours the same way, from your tables' configs, which give each table its [mqtt]",
        "# prefix and account. A device on the network needs an account of its own: name each",
        "# under its role (--display display-bar --display display-lobby).",
        "",
        "# Every account reads the answers to its own commands, when it asks for them on its own",
        "# reply topic (MQTT 5's Response Topic): a refusal may say what the room must not hear.",
        *(f"pattern read {prefix}/+/reply/%u" for prefix in prefixes),
        "",
        "# A table service: publishes everything of its own table, reads its commands.",
    ]
    for username, topics in table_topics.items():
        lines += [f"user {username}", *(f"topic readwrite {topic}" for topic in topics)]
    for role, accounts in roles.by_role().items():
        lines += ["", ROLE_COMMENTS[role]]
        for username in accounts:
            lines.append(f"user {username}")
            for prefix in prefixes:
                lines += _role_lines(role, prefix)
    return "\n".join(lines) + "\n"


def _role_lines(role: str, prefix: str) -> list[str]:
    """What an account of ``role`` may do at every table under ``prefix``."""
    if role == "dealer":
        return [f"topic write {prefix}/+/cmd/#", f"topic read {prefix}/#"]
    reads = [f"topic read {prefix}/+/{leaf}" for leaf in SHOWN_TOPICS]
    if role == "display":
        return reads
    writes = [f"topic write {prefix}/+/cmd/{verb}" for verb in TERMINAL_VERBS]
    return writes + reads


def _topics(table: TableAccount) -> str:
    return f"{table.prefix}/{table.table_id}/"


def _check(tables: Sequence[TableAccount], roles: RoleAccounts) -> None:
    if not tables:
        raise AccessListError("no table to write an access list for")
    seen: set[tuple[str, str]] = set()
    for table in tables:
        problem = prefix_problem(table.prefix)
        if problem:
            raise AccessListError(f"table {table.table_id}: [mqtt] prefix {problem}")
        problem = account_problem(table.username)
        if problem:
            raise AccessListError(f"table {table.table_id}: [mqtt] username: {problem}")
        if (table.prefix, table.table_id) in seen:
            raise AccessListError(
                f"table {table.table_id} is named twice under {table.prefix}/: two tables "
                "with one id would publish on each other's topics"
            )
        seen.add((table.prefix, table.table_id))
    # A table's account reads and writes all under <prefix>/<table-id>/: another table's
    # topics there would be its to forge and read.
    for outer in tables:
        for inner in tables:
            inner_topics, outer_topics = _topics(inner), _topics(outer)
            if inner_topics != outer_topics and inner_topics.startswith(outer_topics):
                raise AccessListError(
                    f"table {inner.table_id}'s topics {inner_topics}... lie among table "
                    f"{outer.table_id}'s {outer_topics}...: its account could send that "
                    "table's events and commands and read its replies; give one of them "
                    "another [mqtt] prefix or [table] id"
                )
    # An account has one part at the tables, so that its lines say all it may do: a table's
    # account shared with another table would hold that table's topics too.
    table_of: dict[str, TableAccount] = {}
    for table in tables:
        earlier = table_of.setdefault(table.username, table)
        if earlier is not table:
            raise AccessListError(
                f"tables {earlier.table_id} and {table.table_id} both log in as "
                f"{table.username}: either could send the other's events and commands and "
                "read its replies; give each table an account of its own"
            )
    parts = {username: f"table {table.table_id}'s" for username, table in table_of.items()}
    for role, accounts in roles.by_role().items():
        for username in accounts:
            problem = account_problem(username)
            if problem:
                raise AccessListError(f"a {role}'s account: {problem}")
            part = parts.get(username)
            if part == f"a {role}'s":
                raise AccessListError(f"the account {username} is given twice as a {role}'s")
            if part is not None:
                raise AccessListError(
                    f"the account {username} is given as {part} and as a {role}'s: give "
                    "each part an account of its own"
                )
            parts[username] = f"a {role}'s"
