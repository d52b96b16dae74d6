"""The ``dealtable`` command line."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from table.events import event_to_json
from table.faro.rules import RULE_SETS
from table.language import GAMES


def _replay(args: argparse.Namespace) -> int:
    # The baccarat lines fall back to Faro's for the events the games share.
    from display.baccarat_terminal import describe
    from table.games import replay_lines

    if args.file == "-":
        lines = sys.stdin.read().splitlines()
    else:
        try:
            with open(args.file, encoding="utf-8") as handle:
                lines = handle.read().splitlines()
        except OSError as error:
            print(f"dealtable replay: cannot read {args.file}: {error.strerror}", file=sys.stderr)
            return 2
    replay = replay_lines(lines)
    for event in replay.events:
        if args.json:
            print(json.dumps(event_to_json(event), ensure_ascii=False))
        else:
            text = describe(event)
            if text:
                print(text)
    for refused in replay.errors:
        print(f"{args.file}:{refused.line_number}: refused: {refused.message}", file=sys.stderr)
    return 1 if replay.errors else 0


def _demo(args: argparse.Namespace) -> int:
    try:
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
    except KeyboardInterrupt:
        return 130
    return 0


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
        type=float,
        default=None,
        help="cards (Faro) or coups (baccarat) per second "
        "(default 2.5 or 1 on a terminal, no pause otherwise; 0: no pause)",
    )
    demo.set_defaults(handler=_demo)

    replay = commands.add_parser("replay", help="settle a deal written in the table language")
    replay.add_argument("file", help="the record to replay ('-' reads standard input)")
    replay.add_argument("--json", action="store_true", help="one JSON event per line")
    replay.set_defaults(handler=_replay)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    code: int = args.handler(args)
    return code


if __name__ == "__main__":
    sys.exit(main())
