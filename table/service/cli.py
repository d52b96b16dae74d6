"""The ``dealtable`` command line."""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import logging
import os
import shlex
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING, ClassVar

from table.errors import TableError
from table.events import RulesChosen, event_to_json
from table.faro.rules import RULE_SETS
from table.language import GAMES
from table.service.arguments import number, port_number, whole_number

if TYPE_CHECKING:
    from table.service.broker_access import TableAccount
    from table.service.config import Config, HardwareConfig
    from table.service.journal import Journal


class UnreadableRecordError(TableError):
    """A record that is not text in the table language's encoding."""


def _replay(args: argparse.Namespace) -> int:
    # The baccarat lines fall back to Faro's for the events the games share.
    from display.baccarat_terminal import describe
    from table.games import Replay

    # A line is settled and printed as soon as it is read, so that `replay -` follows a
    # record as it is written; decoding a line at a time names the line that is not UTF-8.
    following = args.file == "-"
    try:
        record = sys.stdin.buffer if following else open(args.file, "rb")  # noqa: SIM115
    except OSError as error:
        print(f"dealtable replay: cannot read {args.file}: {error.strerror}", file=sys.stderr)
        return 2
    replay = Replay()
    with contextlib.ExitStack() as opened:
        if not following:
            opened.callback(record.close)
        for number, raw in enumerate(record, start=1):
            try:
                # A byte order mark, as some editors begin UTF-8 with, is no part of the line.
                line = raw.decode("utf-8-sig" if number == 1 else "utf-8").rstrip("\r\n")
            except UnicodeDecodeError as error:
                raise UnreadableRecordError(
                    f"{args.file}:{number}: not UTF-8 text (byte {raw[error.start]:#04x}); "
                    "the table language is written in UTF-8"
                ) from None
            try:
                events = replay.run_line(line, number)
            except TableError:
                refused = replay.errors[-1]
                print(f"{args.file}:{number}: refused: {refused.message}", file=sys.stderr)
                continue
            for event in events:
                if args.json:
                    print(json.dumps(event_to_json(event), ensure_ascii=False))
                elif text := describe(event):
                    print(text)
            if following:
                sys.stdout.flush()
    return 1 if replay.errors else 0


def _demo(args: argparse.Namespace) -> int:
    if args.game == "faro":
        from table.service.demo import run_demo

        rules = args.rules or "classic"
        if rules not in RULE_SETS:
            known = ", ".join(sorted(RULE_SETS))
            print(f"dealtable demo: unknown Faro rules {rules!r} ({known})", file=sys.stderr)
            return 2
        run_demo(seed=args.seed, rules=rules, punters=args.punters, speed=args.speed)
    else:
        from table.baccarat.rules import RULE_SETS as BACCARAT_RULE_SETS
        from table.service.baccarat_demo import run_baccarat_demo

        rules = args.rules or "standard"
        if rules not in BACCARAT_RULE_SETS[args.game]:
            known = ", ".join(BACCARAT_RULE_SETS[args.game])
            print(
                f"dealtable demo: unknown {args.game} rules {rules!r} ({known})",
                file=sys.stderr,
            )
            return 2
        run_baccarat_demo(
            game=args.game,
            seed=args.seed,
            rules=rules,
            punters=args.punters,
            speed=args.speed,
        )
    return 0


class JournaldFormatter(logging.Formatter):
    """Under systemd, stderr goes to journald: a ``<N>`` prefix gives each line its priority."""

    PRIORITIES: ClassVar[dict[int, int]] = {
        logging.DEBUG: 7,
        logging.INFO: 6,
        logging.WARNING: 4,
        logging.ERROR: 3,
        logging.CRITICAL: 2,
    }

    def format(self, record: logging.LogRecord) -> str:
        priority = self.PRIORITIES.get(record.levelno, 6)
        return f"<{priority}>{record.name}: {record.getMessage()}"


def _load(args: argparse.Namespace) -> Config:
    from table.service.config import builtin_config, load_config

    if args.config:
        return load_config(args.config, journal=args.journal)
    return builtin_config(journal=args.journal)


def _run(args: argparse.Namespace) -> int:
    import threading

    from table.service.run import ConfigReload, install_signal_handlers, run

    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(
        JournaldFormatter()
        if "JOURNAL_STREAM" in os.environ
        else logging.Formatter("%(levelname)s %(name)s: %(message)s")
    )
    logging.basicConfig(level=logging.INFO, handlers=[handler])
    config = _run_config(args)
    stop = threading.Event()
    reload = ConfigReload(lambda: _run_config(args))
    install_signal_handlers(stop, reload)
    status = run(config, deals=args.deals, until_deal=args.until_deal, stop=stop, reload=reload)
    if reload.due:
        # The same command again, in the same process (systemd follows its main process
        # by its id): every part of the table starts afresh, resumed from its journal.
        logging.shutdown()
        sys.stdout.flush()
        os.execv(sys.executable, sys.orig_argv)
    return status


def _run_config(args: argparse.Namespace) -> Config:
    config = _load(args)
    if args.speed is None:
        return config
    return dataclasses.replace(
        config, reader=dataclasses.replace(config.reader, cards_per_second=args.speed)
    )


def _open_journal(path: str, *, check_chain: bool = True) -> Journal:
    """A journal opened only to be read: the file is never created, changed or converted.
    Its chain is checked first, so that nothing is shown from a damaged journal."""
    from table.service.journal import Journal

    journal = Journal(path, read_only=True)
    if check_chain:
        try:
            journal.check_chain()
        except BaseException:
            journal.close()
            raise
    return journal


def _verify(args: argparse.Namespace) -> int:
    """Each journal checked alone, and, given its archives in order before it, each file
    checked to take up the chain where the one before ends."""
    from table.service.journal import JournalDamagedError

    status = 0
    before: tuple[str, int, str | None] | None = None  # a file, its last record and its hash
    # The file before's hash of the record this one begins after, where that lies inside it.
    held_before: tuple[int, str | None] | None = None
    for index, path in enumerate(args.journals):
        try:
            journal = _open_journal(path, check_chain=False)
        except JournalDamagedError as unreadable:  # where it begins cannot be read
            print(f"{path}: BROKEN at {unreadable.broken}")
            status, before = 1, None
            continue
        with journal:
            status = max(status, _verify_one(path, journal))
            if before is not None:
                said, broken = _gap_between(before, journal, held_before)
                if broken:
                    print(f"{path}: BROKEN: it does not follow {before[0]}: {said}")
                    status = 1
                elif said:
                    print(f"{path}: {said}")
            before = (path, journal.last_seq, journal.hash_of(journal.last_seq))
            held_before = _hash_where_next_may_begin(journal, args.journals[index + 1 :])
    return status


def _hash_where_next_may_begin(
    journal: Journal, following: list[str]
) -> tuple[int, str | None] | None:
    """The record the next file given begins after, and the hash ``journal`` holds of it,
    where that is inside it or is where it begins too: an archive whose records are leaving
    the journal a step at a time, or have not begun to."""
    from table.service.journal import Journal

    if not following or not journal.is_archive:
        return None
    try:
        with Journal(following[0], read_only=True) as after:
            after_seq = 0 if after.opening is None else after.opening.after_seq
    except TableError:
        return None  # said when that file is verified
    if not journal.first_seq - 1 <= after_seq < journal.last_seq:
        return None
    if after_seq == journal.first_seq - 1:
        return after_seq, None if journal.opening is None else journal.opening.after_hash
    return after_seq, journal.hash_of(after_seq)


def _gap_between(
    before: tuple[str, int, str | None],
    journal: Journal,
    held_before: tuple[int, str | None] | None,
) -> tuple[str, bool]:
    """Why ``journal`` does not take up the chain where the file ``before`` ends, and True
    (``("", False)`` if it does); a note and False where it takes it up inside that file,
    the records after held by both (an archiving stopped before or while its records left
    the journal, which the service's next start finishes)."""
    path_before, last_seq, last_hash = before
    opening = journal.opening
    after_seq, after_hash = (
        (0, None) if opening is None else (opening.after_seq, opening.after_hash)
    )
    if held_before is not None and after_seq == held_before[0] < last_seq:
        if held_before[1] != after_hash:
            return (
                f"its first record names another record {after_seq} than that file holds",
                True,
            )
        if journal.hash_of(last_seq) != last_hash:
            return f"it holds another record {last_seq} than that file", True
        return (
            f"records {after_seq + 1} to {last_seq} are in {path_before} too, an archiving "
            "having stopped before or while they left the journal: the service's next start "
            "finishes it",
            False,
        )
    if opening is None:
        return "it begins at record 1", True
    if opening.after_seq != last_seq:
        return (
            f"it begins after record {opening.after_seq}, and that file ends at {last_seq}",
            True,
        )
    if opening.after_hash != last_hash:
        return f"its first record names another record {last_seq} than that file holds", True
    return "", False


def _verify_one(path: str, journal: Journal) -> int:
    from table.service.journal import JournalDamagedError, JournalError

    broken = journal.verify()
    if broken is not None:
        print(f"{path}: BROKEN at {broken}")
        return 1
    try:
        journal.checkpoints()
    except JournalError as unreadable:
        if journal.opening is None:
            # The records, the truth, are intact: a start replays them all.
            print(f"{path}: BROKEN in its checkpoints, which a start does not read; "
                  f"{_records_held(journal)}, chain intact")  # fmt: skip
        else:
            print(f"{path}: BROKEN at record {journal.first_seq}: the checkpoint the table is "
                  "rebuilt from after its first record cannot be read")  # fmt: skip
        print(f"  {unreadable}")
        return 1
    try:
        report, contradicted = _checkpoint_report(journal)
    except JournalDamagedError as unfolded:
        print(f"{path}: BROKEN at {unfolded.broken}")
        return 1
    if contradicted:
        print(f"{path}: BROKEN at the checkpoint after record {contradicted[0]}: "
              "it contradicts the records, which fold to another table")  # fmt: skip
    else:
        print(f"{path}: {_records_held(journal)}, chain intact")
    for line in report:
        print(f"  {line}")
    return 1 if contradicted else 0


def _records_held(journal: Journal) -> str:
    if journal.opening is None:
        return f"{journal.last_seq} records"
    first, last = journal.first_seq, journal.last_seq
    return f"records {first} to {last} (the records before it were archived)"


def _back_up(args: argparse.Namespace) -> int:
    from table.service.journal import back_up

    copied = back_up(args.journal, args.copy)
    if copied.broken is not None:
        print(
            f"{args.copy}: a copy of {args.journal}, records {copied.first_seq} to "
            f"{copied.last_seq}; BROKEN at "
            f"{copied.broken}, as the journal is: kept for inspection"
        )
        return 1
    print(
        f"{args.copy}: a copy of {args.journal}, records {copied.first_seq} to "
        f"{copied.last_seq}, chain intact"
    )
    return 0


def _archive(args: argparse.Namespace) -> int:
    from table.service.config import ConfigError
    from table.service.journal import Journal, archive_folder_beside
    from table.service.mqtt import OUTBOX_CURSOR

    journal_path, folder = _archive_places(args)
    if not Path(journal_path).is_file():
        # Opening it for writing would make an empty journal where the operator mistyped.
        raise ConfigError(f"{journal_path}: no journal there")
    with Journal(journal_path) as journal:
        if args.drop_outbox:
            sent = journal.drop_cursor(OUTBOX_CURSOR)
            if sent is None:
                print(f"{journal_path}: it keeps no MQTT outbox's place: nothing to drop")
            else:
                print(
                    f"{journal_path}: the MQTT outbox's place dropped (it had sent to record "
                    f"{sent} of {journal.last_seq}); an outbox added again sends from the "
                    "journal's first record"
                )
        archived = journal.archive(folder or archive_folder_beside(journal_path))
        if archived is None:
            print(f"{journal_path}: nothing to archive: {_why_nothing_archived(journal)}")
            return 0
        print(
            f"{archived.path}: records {archived.first_seq} to {archived.last_seq} of "
            f"{journal_path}, chain intact; {journal_path} now begins after them"
        )
    return 0


def _archive_places(args: argparse.Namespace) -> tuple[str, Path | None]:
    """The journal to archive and its archive folder (None: beside it), from the command
    line or the table's config: a journal named on both must be the config's."""
    from table.service.config import ConfigError, archive_folder, load_config

    if args.config is None:
        if args.journal is None:
            raise ConfigError("name the journal to archive, or the table's --config")
        return args.journal, Path(args.into) if args.into else None
    if args.into:
        raise ConfigError("--into: the archive folder is the config's [table] archive_dir")
    config = load_config(args.config)
    named = config.table.journal
    if not named:
        raise ConfigError(f"{args.config}: [table] journal: the table keeps no journal")
    if args.drop_outbox and config.mqtt is not None:
        raise ConfigError(
            f"--drop-outbox: {args.config} still publishes to MQTT ([mqtt]): its outbox's "
            "place is what it sends from; remove [mqtt] first, or let the broker catch up"
        )
    if args.journal is not None and Path(args.journal).resolve() != Path(named).resolve():
        raise ConfigError(
            f"{args.journal}: not the journal of {args.config}, which is {named}: archiving "
            "it with that table's archive_dir would mix two tables' archives"
        )
    return named, archive_folder(config.table)


def _why_nothing_archived(journal: Journal) -> str:
    upto = journal.before_spare_checkpoint()
    if upto < journal.first_seq:
        return f"its records from {journal.first_seq} on are the table's last two decks or shoes"
    sent = journal.outbox_holds_back(upto)
    return (
        f"its MQTT outbox has sent only to record {sent} of the {upto} that could go; if the "
        "table no longer publishes to MQTT (no [mqtt] in its config), --drop-outbox forgets "
        "the outbox's place, and its records are archived unsent"
    )


def _carry_on(args: argparse.Namespace) -> int:
    from display.text import count
    from table.service.journal import carry_on

    recovered = carry_on(args.journal, args.new)
    print(
        f"{args.new}: records {recovered.first_seq} to {recovered.sound_upto} of {args.journal}, "
        "which is damaged "
        f"at {recovered.broken}"
    )
    damaged_at = recovered.broken.seq
    if recovered.sound_upto < damaged_at - 1:
        print(
            f"  records {recovered.sound_upto + 1} to {damaged_at - 1} began a command whose "
            "other events the damage took: left out with it"
        )
    if recovered.left_out:
        print(
            f"  left out: {count(recovered.left_out, 'record')} from there on; {args.journal} "
            "keeps them, untouched"
        )
    if not recovered.whole_commands:
        print(
            "  written before dealtable kept where each command ended: if the table shows a "
            "card without its consequences, void it"
        )
    print(
        f"  on MQTT its events after record {recovered.sound_upto} are named {recovered.name}: "
        "no subscriber takes one for a repeat of an event lost with the damage"
    )
    print(f"  deal on from record {recovered.sound_upto}: dealtable run --journal {args.new}")
    return 0


def _checkpoint_report(journal: Journal) -> tuple[list[str], list[int]]:
    """What a start would make of the journal's checkpoints, and those that contradict the
    records. One a start does not read only costs time (it replays from the one before, or
    the first event). One whose hash was recomputed after an edit is read, and found here
    only: each checkpoint is held against the table the records fold to at its record."""
    from display.text import count
    from table.checkpoints import CheckpointError, table_from_checkpoint
    from table.service.journal import CHECKPOINTS_KEPT, folded_at

    said: dict[int, str] = {}
    readable: dict[int, object] = {}
    for seq, body, sound in journal.checkpoints():
        if not sound:
            said[seq] = "does not match that record; not read"
            continue
        try:
            readable[seq] = table_from_checkpoint(body).state
        except CheckpointError as unreadable:
            said[seq] = f"not for this dealtable ({unreadable})"
            continue
        said[seq] = "sound"
    contradicted = [
        seq for seq, folded in folded_at(journal, sorted(readable)) if folded != readable[seq]
    ]
    for seq in contradicted:
        said[seq] = "contradicts the records; a start would read it"
    # A journal archived a deck at a time keeps every deck's: the newest sound are named,
    # the older sound counted, each that is not sound named.
    counted = [seq for seq, what in said.items() if what == "sound"][CHECKPOINTS_KEPT:]
    lines = [
        f"checkpoint after record {seq}: {what}" for seq, what in said.items() if seq not in counted
    ]
    if counted:
        lines.append(
            f"{count(len(counted), 'older checkpoint')} sound, after records {counted[-1]} to "
            f"{counted[0]} (kept while archived records leave the journal a deck at a time)"
        )
    return lines, contradicted


def _history(args: argparse.Namespace) -> int:
    with _open_journal(args.journal) as journal:
        if journal.game() == "faro":
            return _faro_history(journal, args)
        return _baccarat_history(journal, args)


def _started(at: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(at))


def _faro_history(journal: Journal, args: argparse.Namespace) -> int:
    from display.terminal import describe
    from display.text import count

    if args.deal is None:
        deals = journal.deals()
        for deal in deals[-args.last :]:
            print(
                f"deal {deal.deal:>5}  {_started(deal.started_at)}  {deal.cards:>2} cards  "
                f"{count(deal.splits, 'split'):>9}  {deal.ended}  "
                f"(events {deal.first_seq}-{deal.last_seq})"
            )
        if not deals:
            print("no deals yet")
        return 0
    found = False
    # SQLite numbers nothing past 2**63 - 1, and cannot be asked about such a number.
    asked = journal.events(deal=args.deal) if abs(args.deal) < 2**63 else iter(())
    for event in asked:
        found = True
        text = describe(event)
        if text:
            print(f"{event.seq:>6}  {text}")
    if not found:
        print(f"dealtable history: no deal {args.deal} in {args.journal}", file=sys.stderr)
        return 1
    return 0


def _baccarat_history(journal: Journal, args: argparse.Namespace) -> int:
    from display.baccarat_terminal import coup_in_words, describe_in_a_coup
    from display.text import count

    coups = journal.coups()
    if args.deal is None:
        for coup in coups[-args.last :]:
            if coup.result is not None:
                what = coup_in_words(coup.result)
            elif coup.ended == "in progress":
                what = f"in progress, {count(coup.cards, 'card')} dealt"
            else:
                what = coup.ended  # voided, or continued in the next file
            print(
                f"coup {coup.coup:>5}  {_started(coup.started_at)}  {what}  "
                f"(events {coup.first_seq}-{coup.last_seq})"
            )
        if not coups:
            print("no coups yet")
        return 0
    recalled = next((coup for coup in coups if coup.coup == args.deal), None)
    if recalled is None:
        print(f"dealtable history: no coup {args.deal} in {args.journal}", file=sys.stderr)
        return 1
    for event in journal.events_between(recalled.first_seq, recalled.last_seq):
        text = describe_in_a_coup(event)
        if text:
            print(f"{event.seq:>6}  {text}")
    return 0


def _export(args: argparse.Namespace) -> int:
    from table.service.output_files import written_whole

    with _open_journal(args.journal) as journal, contextlib.ExitStack() as files:
        out: IO[str] = sys.stdout
        if args.out:
            part = files.enter_context(written_whole(args.out))
            out = files.enter_context(open(part, "w", encoding="utf-8", newline=""))
        count = journal.export_csv(out) if args.format == "csv" else journal.export_jsonl(out)
    print(f"exported {count} events", file=sys.stderr)
    return 0


def _config_check(args: argparse.Namespace) -> int:
    from table.service.config import ConfigError, config_warnings, load_config

    config = load_config(args.file)
    problems = []
    journal_problem = _journal_problem(config)
    if journal_problem:
        problems.append(f"{args.file}: [table] journal: {journal_problem}")
    deck_problem = _deck_problem(config)
    if deck_problem:
        problems.append(f"{args.file}: [reader] deck: {deck_problem}")
    board_problem = _board_problem(config)
    if board_problem:
        problems.append(f"{args.file}: [hardware] board: {board_problem}")
    if problems:
        raise ConfigError("\n".join(problems))
    for warning in config_warnings(config):
        print(f"dealtable config: warning: {warning}", file=sys.stderr)
    broker = f"{config.mqtt.host}:{config.mqtt.port}" if config.mqtt else "none"
    board = f", board {_board_file(config.hardware)}" if config.hardware else ""
    print(
        f"{args.file}: table {config.table.id}, {config.table.game} ({config.table.rules}), "
        f"reader {config.reader.kind}, journal {config.table.journal}, broker {broker}{board}: ok"
    )
    return 0


def _config_acl(args: argparse.Namespace) -> int:
    from table.service.broker_access import (
        DEFAULT_DEALERS,
        DEFAULT_DISPLAYS,
        DEFAULT_TERMINALS,
        RoleAccounts,
        access_list,
    )
    from table.service.output_files import written_whole

    tables, croupiers = _tables_on_the_broker(args.files)
    roles = RoleAccounts(
        tuple(args.dealer or DEFAULT_DEALERS),
        tuple(args.terminal or DEFAULT_TERMINALS),
        tuple(args.display or DEFAULT_DISPLAYS),
    )
    text = access_list(tables, roles)
    if args.out:
        with written_whole(args.out) as part:
            part.write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    given = [*roles.dealers, *roles.terminals, *roles.displays]
    for file, croupier in croupiers:
        if croupier not in (*roles.dealers, *roles.terminals):
            print(
                f"dealtable config: warning: {file}: [web] croupier_username {croupier}: the "
                "access list gives this account no commands: name it with --terminal or --dealer",
                file=sys.stderr,
            )
    # Quoted as a shell takes them: the command below is pasted as it stands.
    accounts = " ".join(
        shlex.quote(account)
        for account in dict.fromkeys([*(table.username for table in tables), *given])
    )
    print(
        f"dealtable config: {args.out or 'the access list'} names the accounts {accounts}: "
        f"each needs a password on the broker (hw/mosquitto/make-passwords.sh FILE {accounts})",
        file=sys.stderr,
    )
    return 0


def _tables_on_the_broker(files: list[str]) -> tuple[list[TableAccount], list[tuple[str, str]]]:
    """Each config's table as the broker knows it (its topics' prefix, its id, its account),
    and the account each one's croupier's page offers; ConfigError naming every file and key
    that no access list can be written from. A config may be of a table on another machine:
    only the names are read from it."""
    from table.service.broker_access import TableAccount, account_problem, prefix_problem
    from table.service.config import ConfigError, load_broker_names

    tables, croupiers, problems = [], [], []
    for file in files:
        try:
            names = load_broker_names(file)
        except ConfigError as error:
            problems.append(str(error))
            continue
        if not names.uses_broker:
            problems.append(f"{file}: no [mqtt]: the table uses no broker")
            continue
        if not names.username:
            problems.append(
                f"{file}: [mqtt] username: none: the access list gives the table's account its "
                "topics; name the account the table logs in with"
            )
            continue
        problems += [
            f"{file}: [mqtt] {key}: {problem}"
            for key, problem in (
                ("prefix", prefix_problem(names.prefix)),
                ("username", account_problem(names.username)),
            )
            if problem
        ]
        tables.append(TableAccount(names.prefix, names.table_id, names.username))
        if names.croupier_username:
            croupiers.append((file, names.croupier_username))
    if problems:
        raise ConfigError("\n".join(problems))
    return tables, croupiers


def _board_file(hardware: HardwareConfig) -> Path:
    from hw.board import DEFAULT_BOARD

    return Path(hardware.board) if hardware.board else DEFAULT_BOARD


def _board_problem(config: Config) -> str | None:
    """What ``run`` would refuse in the board file of a table with its own devices: the file
    is read, no device is touched."""
    from hw.board import load_board
    from hw.errors import BoardConfigError

    if config.hardware is None:
        return None
    board_file = _board_file(config.hardware)
    try:
        board = load_board(board_file)
    except BoardConfigError as refused:
        return str(refused)
    if config.hardware.layout:
        try:
            board.layout_port(config.hardware.microcontroller_url)
        except BoardConfigError as refused:
            return f"{board_file}: {refused}"
    return None


def _journal_problem(config: Config) -> str | None:
    """What ``run`` would refuse in the journal a config names, if it is there already: read
    only, nothing written."""
    from table.service.journal import Journal, JournalError

    path = Path(config.table.journal)
    if not path.exists():
        return None
    try:
        with Journal(path, config.table.id, read_only=True) as journal:
            journal.check_chain()
            chosen = journal.last_event_of("rules_chosen")
    except JournalError as refused:
        return str(refused)
    if isinstance(chosen, RulesChosen) and chosen.game != config.table.game:
        return (
            f"the journal {path} deals {chosen.game} but the config asks for "
            f"{config.table.game}; a {config.table.game} table needs a journal of its own"
        )
    return None


def _deck_problem(config: Config) -> str | None:
    """What ``run`` would refuse in the deck profile a camera's config names: reading the
    config finds its file; here it is loaded, as ``run`` loads it."""
    if config.reader.kind != "camera":
        return None
    from vision.errors import ProfileError
    from vision.profile import find_profile

    try:
        find_profile(config.reader.deck)
    except ProfileError as refused:
        return str(refused)
    return None


def _exhibit(args: argparse.Namespace) -> int:
    from table.service.exhibit import run_exhibit

    run_exhibit(
        language=args.lang,
        seed=args.seed,
        rules=args.rules,
        pause=args.pause,
        deals=args.deals,
        advisor=args.advisor,
    )
    return 0


def _web(args: argparse.Namespace) -> int:
    import threading

    from table.service.config import (
        COMMAND_LINE,
        ConfigError,
        WebTlsConfig,
        certificate_warning,
    )
    from table.service.web import JournalFollower, LiveView, RenewedCertificate, WebServer

    logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="%(name)s: %(message)s")
    tls = None
    if args.key and not args.cert:
        raise ConfigError("--key goes with --cert, the page's certificate")
    if args.cert:
        files = WebTlsConfig(args.cert, args.key or "")
        tls = RenewedCertificate.of(COMMAND_LINE, files)
        if warning := certificate_warning(COMMAND_LINE, files):
            logging.getLogger("dealtable").warning("%s", warning)
    view = LiveView(advisor=args.advisor)
    server = WebServer(view, args.host, args.port, args.lang, tls=tls)
    follower = JournalFollower(args.journal, view)
    follower.start()
    print(f"dealtable web: {server.url}?lang={args.lang} (following {args.journal})", flush=True)
    if not Path(args.journal).exists():
        # The page may well be started before the table: it shows the table once it deals.
        print(
            f"dealtable web: {args.journal} is not there yet; the page waits for the table "
            "to write it (is the path the one in the table's config?)",
            file=sys.stderr,
            flush=True,
        )
    stop = threading.Event()
    from table.service.run import install_signal_handlers

    install_signal_handlers(stop)
    server.start()
    stop.wait()
    server.stop()
    follower.stop()
    return 0


def _snapshot(args: argparse.Namespace) -> int:
    import random

    from table.faro.engine import FaroTable
    from table.faro.punters import DEMO_PUNTERS, round_of_bets, simulated_seats
    from table.service.table_service import table_from_journal
    from table.shoe import Shoe

    if args.journal:
        with _open_journal(args.journal) as journal:
            if args.seq is not None and args.seq > journal.last_seq:
                raise TableError(
                    f"no event {args.seq} in {args.journal}: its last is {journal.last_seq}"
                )
            held = table_from_journal(journal, journal.table_id or "table", upto=args.seq)
        if not isinstance(held, FaroTable):
            raise TableError(
                f"the journal {args.journal} deals {held.game} ({held.state.rules.name} "
                "rules); a snapshot draws a Faro layout"
            )
        table = held
    else:
        # A seeded simulated deal stopped after --cards cards, as the demo deals it.
        table = FaroTable("snapshot", args.rules)
        seats = simulated_seats(table.state.rules, DEMO_PUNTERS)
        if not table.state.rules.bank_passes:
            table.fund_bank(2000)
        for punter in seats:
            table.seat(punter.name, punter.bankroll)
        table.new_deck()
        rng = random.Random(args.seed)
        for card in list(Shoe(table.state.rules.deck_spec, rng=random.Random(args.seed)))[
            : args.cards
        ]:
            if table.state.bets_open:
                for command in round_of_bets(table.state, seats, rng):
                    with contextlib.suppress(TableError):
                        table.apply(command)
            table.deal(card)
    # Imported once the journal is read: matplotlib takes a second to load.
    from display.snapshot import draw_snapshot
    from table.service.output_files import written_whole

    with written_whole(args.out) as part:
        draw_snapshot(table.state, part)
    print(f"dealtable snapshot: {args.out}")
    return 0


def _count_of_one_or_more(text: str) -> int:
    try:
        number = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if number < 1:
        raise argparse.ArgumentTypeError(f"expected 1 or more, got {number}")
    return number


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="dealtable", description="Run a Faro or baccarat table from a Raspberry Pi."
    )
    commands = parser.add_subparsers(dest="command", required=True)

    demo = commands.add_parser(
        "demo", help="deal a full simulated Faro deck or baccarat shoe in the terminal"
    )
    demo.add_argument("--game", default="faro", choices=GAMES, help="the game (default faro)")
    demo.add_argument("--seed", type=int, default=1, help="the shuffle and the punters' choices")
    demo.add_argument(
        "--rules",
        default=None,
        help=f"rule set (Faro: {', '.join(sorted(RULE_SETS))}; baccarat: standard and others)",
    )
    demo.add_argument("--punters", type=int, default=6, choices=range(3, 7), help="3 to 6")
    demo.add_argument(
        "--speed",
        type=number(0),
        default=None,
        help="cards (Faro) or coups (baccarat) per second "
        "(default 2.5 or 1 on a terminal, no pause otherwise; 0: no pause)",
    )
    demo.set_defaults(handler=_demo)

    replay = commands.add_parser("replay", help="settle a deal written in the table language")
    replay.add_argument("file", help="the record to replay ('-' reads standard input)")
    replay.add_argument("--json", action="store_true", help="one JSON event per line")
    replay.set_defaults(handler=_replay)

    run = commands.add_parser("run", help="run the table service")
    run.add_argument("--config", help="table.toml (none: a fully simulated Faro table)")
    run.add_argument("--journal", help="journal file (overrides the config)")
    run.add_argument(
        "--deals", type=whole_number(0), help="stop after this many more deals (baccarat: coups)"
    )
    run.add_argument(
        "--until-deal",
        type=whole_number(1),
        help="stop once this deal (baccarat: coup; counted from 1) is over",
    )
    run.add_argument("--speed", type=number(0), help="simulated cards per second (0: no pause)")
    run.set_defaults(handler=_run)

    exhibit = commands.add_parser("exhibit", help="deal unattended and explain every turn")
    exhibit.add_argument("--lang", default="en", help="en, es or ru")
    exhibit.add_argument("--seed", type=int, default=1)
    exhibit.add_argument("--rules", default="classic", choices=sorted(RULE_SETS))
    exhibit.add_argument("--pause", type=number(0), default=4.0, help="seconds after each turn")
    exhibit.add_argument(
        "--deals", type=whole_number(1), help="stop after this many deals (default: never)"
    )
    exhibit.add_argument("--advisor", action="store_true", help="say where a bet costs least")
    exhibit.set_defaults(handler=_exhibit)

    web = commands.add_parser("web", help="show a table live in a browser")
    web.add_argument("--journal", required=True, help="the journal of the table to show")
    web.add_argument("--host", default="0.0.0.0")
    web.add_argument("--port", type=port_number, default=8080)
    web.add_argument("--lang", default="en", choices=("en", "es", "ru"))
    web.add_argument("--advisor", action="store_true", help="show each rank's split risk and edge")
    web.add_argument("--cert", help="serve the page over HTTPS only, with this certificate (PEM)")
    web.add_argument("--key", help="the certificate's private key (PEM), if not in --cert")
    web.set_defaults(handler=_web)

    snapshot = commands.add_parser("snapshot", help="a PNG of the layout and the abacus")
    snapshot.add_argument("--out", default="table.png")
    snapshot.add_argument("--journal", help="draw this journal's table (default: a seeded deal)")
    snapshot.add_argument(
        "--seq", type=whole_number(1), help="as it was at this event of the journal"
    )
    snapshot.add_argument("--seed", type=int, default=1)
    snapshot.add_argument("--cards", type=whole_number(0), default=23, help="cards out of the box")
    snapshot.add_argument("--rules", default="classic", choices=sorted(RULE_SETS))
    snapshot.set_defaults(handler=_snapshot)

    verify = commands.add_parser(
        "verify", help="check the journal's hash chain, that its records fold, and its checkpoints"
    )
    verify.add_argument(
        "journals",
        nargs="+",
        metavar="journal",
        help="a journal; or its archives, oldest first, then the journal (each must follow the "
        "one before)",
    )
    verify.set_defaults(handler=_verify)

    backup = commands.add_parser(
        "backup", help="copy a journal, even one a running service writes, and check the copy"
    )
    backup.add_argument("journal", help="the journal (only read)")
    backup.add_argument("copy", help="the copy to write (must not exist)")
    backup.set_defaults(handler=_back_up)
    archive = commands.add_parser(
        "archive",
        help="move a journal's records before its last two decks or shoes to an archive file "
        "(the service does it by itself every [table] archive_every records)",
    )
    archive.add_argument("journal", nargs="?", help="the journal (no service may be dealing on it)")
    archive.add_argument(
        "--into", help="the archive's folder (default: beside the journal, named after it)"
    )
    archive.add_argument(
        "--config",
        help="the table's table.toml: its journal, archived into its [table] archive_dir",
    )
    archive.add_argument(
        "--drop-outbox",
        action="store_true",
        help="forget the MQTT outbox's place first, for a table that no longer publishes: "
        "records it has not sent are archived unsent",
    )
    archive.set_defaults(handler=_archive)
    carry = commands.add_parser(
        "carry-on",
        help="copy a damaged journal's sound records into a new journal, to deal on from them",
    )
    carry.add_argument("journal", help="the damaged journal (only read)")
    carry.add_argument("new", help="the new journal to write (must not exist)")
    carry.set_defaults(handler=_carry_on)
    history = commands.add_parser(
        "history", help="list the deals (baccarat: coups), or recall one event by event"
    )
    history.add_argument("journal")
    history.add_argument("deal", type=int, nargs="?", help="the deal (baccarat: coup) to recall")
    history.add_argument(
        "--last", type=_count_of_one_or_more, default=50, help="how many deals (coups) to list"
    )
    history.set_defaults(handler=_history)

    export = commands.add_parser("export", help="write the journal as JSON lines or CSV")
    export.add_argument("journal")
    export.add_argument("--format", choices=("jsonl", "csv"), default="jsonl")
    export.add_argument("--out", help="file to write (default: standard output)")
    export.set_defaults(handler=_export)

    from table.service.odds_commands import add_subcommands as add_odds_commands

    add_odds_commands(commands)

    from vision.commands import add_subcommands as add_reader_commands

    add_reader_commands(commands)

    config = commands.add_parser("config", help="configuration tools")
    config_commands = config.add_subparsers(dest="config_command", required=True)
    check = config_commands.add_parser("check", help="read a config file and report problems")
    check.add_argument("file")
    check.set_defaults(handler=_config_check)
    acl = config_commands.add_parser(
        "acl",
        help="write the broker's access list (Mosquitto's acl_file) for tables, from their "
        "configs: each table's [mqtt] prefix, id and username",
    )
    acl.add_argument("files", nargs="+", metavar="file", help="a table's config file")
    acl.add_argument("--out", help="file to write (default: standard output)")
    for role in ("dealer", "terminal", "display"):
        acl.add_argument(
            f"--{role}",
            action="append",
            metavar="ACCOUNT",
            help=f"a {role}'s account at every table, given once for each (default: {role})",
        )
    acl.set_defaults(handler=_config_acl)
    return parser


# What each command writes: its folder is checked before the command starts, so that a
# mistyped path costs nothing (not a whole simulation) and is told in one line.
OUTPUT_ARGUMENTS = {
    "export": "out",
    "snapshot": "out",
    "barcodes": "out",
    "simulate": "plot",
    "config": "out",
}


class OutputFileError(TableError):
    """A command's output file that cannot be written."""


def _output(args: argparse.Namespace) -> Path | None:
    name = OUTPUT_ARGUMENTS.get(args.command)
    value = getattr(args, name, None) if name else None
    return Path(value) if value else None


def _check_output(args: argparse.Namespace) -> None:
    path = _output(args)
    if path is None:
        return
    folder = path.parent
    if folder.exists() and not folder.is_dir():
        raise OutputFileError(f"cannot write {path}: {folder} is a file, not a folder")
    if not folder.is_dir():
        raise OutputFileError(f"cannot write {path}: there is no folder {folder}")
    if path.is_dir():
        raise OutputFileError(f"cannot write {path}: it is a folder")
    pictures = (".png", ".svg", ".pdf")
    if args.command == "snapshot" and path.suffix.lower() not in pictures:
        raise OutputFileError(
            f"cannot write {path}: a snapshot is a picture: name it .png, .svg or .pdf"
        )
    if args.command == "config" and path.exists():
        for config in args.files:
            if Path(config).exists() and path.samefile(config):
                raise OutputFileError(
                    f"cannot write {path}: it is the config {config}, which the list is "
                    "written from; write the list to its own file"
                )
    journal = getattr(args, "journal", None)
    if journal and path.exists():
        # Writing over a journal (or its write-ahead log or lock) would destroy the record.
        kept = [Path(journal), *(Path(f"{journal}{end}") for end in ("-wal", "-shm", ".lock"))]
        if any(part.exists() and path.samefile(part) for part in kept):
            raise OutputFileError(
                f"cannot write {path}: it is the journal {journal} itself (or one of its files); "
                "write to a new file"
            )


def _os_error_message(error: OSError, args: argparse.Namespace) -> str:
    why = error.strerror or str(error)
    if error.filename is None:
        if args.command == "export" and not args.out:
            return f"cannot write the standard output: {why}"
        return why
    output = _output(args)
    doing = (
        "cannot write" if output is not None and Path(error.filename) == output else "cannot use"
    )
    return f"{doing} {error.filename}: {why}"


def main(argv: Sequence[str] | None = None) -> int:
    try:
        args = build_parser().parse_args(argv)
        return _carry_out(args)
    except KeyboardInterrupt:
        # Ctrl-C is how a user stops a command: no traceback, the shell's status for SIGINT.
        return 130


def _carry_out(args: argparse.Namespace) -> int:
    from hw.errors import HardwareError

    try:
        _check_output(args)
        code: int = args.handler(args)
    except (TableError, HardwareError) as error:
        for line in str(error).splitlines():  # a configuration's every problem, a line each
            print(f"dealtable {args.command}: {line}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # The reader went away (`dealtable history J | head`): stop quietly, as Unix tools do.
        sys.stderr.close()
        return 0
    except OSError as error:
        print(f"dealtable {args.command}: {_os_error_message(error, args)}", file=sys.stderr)
        return 2
    return code


if __name__ == "__main__":
    sys.exit(main())
