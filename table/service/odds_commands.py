"""``dealtable odds`` and ``dealtable simulate``: exact odds and simulated deals.

    dealtable odds faro --out "2C KD 9C" --rules classic [--option cat_hop_pays=1] [--json]
    dealtable odds faro --edge-table --rules stuss
    dealtable odds punto-banco [--decks 8] [--out "KH 5S"] [--no-commission] [--tie-pays 9]
    dealtable odds chemin-de-fer --decks 6 [--player-five stand|draw|1/2] [--commission 0]
    dealtable simulate --game faro --rules classic --deals 1000000 --strategy all --plot out.png

``--json`` prints one JSON object with every fraction as ``"p/q"``. Bad input (an impossible
casekeep or shoe, an unknown rule set or strategy, options that contradict each other) prints
the reason and exits with 2.
Run on its own: ``python -m table.service.odds_commands odds faro``.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from fractions import Fraction
from pathlib import Path
from typing import Any, TextIO

from display.text import count
from table.cards import find_deck, parse_cards
from table.errors import TableError
from table.faro.rules import FaroRules, find_rules
from table.odds.baccarat import BaccaratShoe
from table.odds.chemin_de_fer import CheminDeFerOdds, chemin_de_fer_odds
from table.odds.faro import (
    ODD_STAKE_NOTE,
    FaroOdds,
    edges_per,
    faro_odds_from_out,
    heel_edge_table,
    options_in_force,
    rules_title,
)
from table.odds.json_fractions import fraction_text, percent_text
from table.odds.punto_banco import PuntoBancoOdds, PuntoBancoPayouts, punto_banco_odds

GAMES = ("faro",)
STRATEGY_NAMES = ("flat", "coppered", "casekeep", "caller", "all")
# A run this long shows a progress bar on a terminal.
LONG_RUN = 200_000
DEFAULT_COMMISSION = "5"  # percent, as casinos take from a banker win

Handler = Callable[[argparse.Namespace], int]


def add_subcommands(subparsers: Any) -> None:
    """Register ``odds`` (with faro, punto-banco, chemin-de-fer) and ``simulate``."""
    odds = subparsers.add_parser("odds", help="exact odds from the casekeep or the shoe")
    games = odds.add_subparsers(dest="odds_game", required=True)

    faro = games.add_parser("faro", help="Faro odds from the cards out of the box")
    faro.add_argument("--out", default="", help='cards out so far, soda included: "2C KD 9C"')
    faro.add_argument("--rules", default="classic", help="a rule set (default classic)")
    _add_options(faro)
    faro.add_argument(
        "--edge-table",
        action="store_true",
        help="the edge of a bet left on a rank for every count of cards and of the rank",
    )
    faro.add_argument("--json", action="store_true", help="one JSON object, fractions as p/q")
    faro.set_defaults(handler=_guarded("odds faro", _odds_faro))

    punto = games.add_parser("punto-banco", help="Punto Banco odds and house edges")
    _add_shoe(punto, default_decks=6)  # 004: six decks
    punto.add_argument(
        "--commission",
        help=f"percent taken from a banker win (default {DEFAULT_COMMISSION})",
    )
    punto.add_argument(
        "--no-commission",
        action="store_true",
        help="no commission; a banker's winning 6 pays half",
    )
    punto.add_argument("--tie-pays", type=int, default=8, help="a tie pays this to 1 (8 or 9)")
    punto.add_argument("--pair-pays", type=int, default=11, help="a pair pays this to 1")
    punto.add_argument("--json", action="store_true", help="one JSON object, fractions as p/q")
    punto.set_defaults(handler=_guarded("odds punto-banco", _odds_punto_banco))

    chemin = games.add_parser("chemin-de-fer", help="Chemin de Fer: drawing or standing")
    _add_shoe(chemin, default_decks=6)
    chemin.add_argument(
        "--commission",
        default="5",
        help="percent the house takes from a bank win (default 5, as at the casino rule set; "
        "the home table's standard rules take none: --commission 0)",
    )
    chemin.add_argument(
        "--player-five",
        default="draw",
        help="how the player plays a 5, for the banker's choices: draw, stand, "
        "or the chance he draws (1/2)",
    )
    chemin.add_argument("--json", action="store_true", help="one JSON object, fractions as p/q")
    chemin.set_defaults(handler=_guarded("odds chemin-de-fer", _odds_chemin_de_fer))

    simulate = subparsers.add_parser("simulate", help="simulate many deals (numpy)")
    simulate.add_argument("--game", default="faro", help="the game (faro)")
    simulate.add_argument("--rules", default="classic", help="a rule set (default classic)")
    _add_options(simulate)
    simulate.add_argument("--deals", type=int, default=100_000, help="deals to simulate")
    simulate.add_argument(
        "--strategy",
        action="append",
        help=f"a betting strategy, repeatable: {', '.join(STRATEGY_NAMES)} (default all)",
    )
    simulate.add_argument("--seed", type=int, default=1, help="the shuffles' seed")
    simulate.add_argument(
        "--plot", help="write the bankroll curves to this file: .png, .svg or .pdf"
    )
    simulate.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=None,
        help=f"a progress bar (default: on a terminal, from {LONG_RUN:,} deals)",
    )
    simulate.add_argument("--json", action="store_true", help="one JSON object")
    simulate.set_defaults(handler=_guarded("simulate", _simulate))


def _add_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override one house rule, e.g. cat_hop_pays=1 (repeatable)",
    )


def _add_shoe(parser: argparse.ArgumentParser, default_decks: int) -> None:
    parser.add_argument(
        "--decks",
        type=int,
        default=default_decks,
        help=f"decks in the shoe (default {default_decks})",
    )
    parser.add_argument("--out", default="", help='cards already dealt from the shoe: "KH 5S"')


def _guarded(command: str, handler: Handler) -> Handler:
    """Bad input ends the command with its reason and exit status 2, as argparse does."""

    def run(args: argparse.Namespace) -> int:
        try:
            return handler(args)
        except TableError as error:
            print(f"dealtable {command}: {error}", file=sys.stderr)
            return 2

    return run


def _rules(args: argparse.Namespace) -> FaroRules:
    options: dict[str, str] = {}
    for item in args.option:
        key, equals, value = item.partition("=")
        if not equals or not key.strip():
            raise TableError(f"option {item!r}: write KEY=VALUE, e.g. cat_hop_pays=1")
        options[key.strip()] = value.strip()
    return find_rules(args.rules, options)


def _fraction(text: str, what: str, expected: str = "a number such as 5, 2.5 or 1/2") -> Fraction:
    try:
        return Fraction(text.strip())
    except (ValueError, ZeroDivisionError):
        raise TableError(f"{what} {text!r}: expected {expected}") from None


def _commission(text: str) -> Fraction:
    """``--commission`` as a share of a win; refused in the percent the user wrote, so that
    a 100 is not answered as 1, nor a 1e400 with four hundred digits."""
    percent = _fraction(text, "--commission")
    if not 0 <= percent < 100:
        raise TableError(
            f"--commission {text!r}: a commission is 0 to under 100 (percent taken from a win)"
        )
    return percent / 100


def _print_json(payload: object) -> None:
    print(json.dumps(payload, ensure_ascii=False, indent=1))


# --- odds faro ----------------------------------------------------------------------------


def _odds_faro(args: argparse.Namespace) -> int:
    rules = _rules(args)
    if not rules.rank_bets:
        raise TableError(
            f"the {rules.name} rules take only red or black; these odds are for bets on ranks "
            "and calls of the turn"
        )
    if args.edge_table:
        if args.out.strip():
            raise TableError(
                "--edge-table covers every count of cards and takes no --out "
                "(without --edge-table, --out gives one casekeep's odds)"
            )
        rows = heel_edge_table(rules)
        if args.json:
            _print_json(
                {
                    "game": "faro",
                    "rules": rules.name,
                    "options": options_in_force(rules),
                    "edges_per": edges_per(rules),
                    "straight": [straight.to_json() for straight, _ in rows],
                    "coppered": [coppered.to_json() for _, coppered in rows],
                }
            )
        else:
            _print_edge_table(rules, rows)
        return 0
    odds = faro_odds_from_out(parse_cards(args.out), rules)
    if args.json:
        _print_json(odds.to_json())
    else:
        print_faro_odds(odds)
    return 0


def _box_and_turns(cards_left: int, turns_left: int) -> str:
    if cards_left == 1:
        return "1 card in the box (the hoc), no turn to come"
    if turns_left == 1:
        return f"{cards_left} cards in the box, 1 turn to come (the last)"
    return f"{cards_left} cards in the box, {turns_left} turns to come"


def print_faro_odds(odds: FaroOdds, out: TextIO | None = None) -> None:
    out = out or sys.stdout
    print(
        f"Faro, {odds.title}: {_box_and_turns(odds.cards_left, odds.turns_left)}, "
        f"{float(odds.expected_splits):.4f} splits expected "
        f"({fraction_text(odds.expected_splits)})",
        file=out,
    )
    if odds.edges_per != "chip":
        print(f"(edges per {odds.edges_per}; {ODD_STAKE_NOTE})", file=out)
    print(f"\n{'':10}{' the next turn ':-^41}{'':11}{' a bet left till it shows ':-^25}", file=out)
    print(
        f"{'rank':>4} {'left':>4} {'loses':>9} {'wins':>9} {'splits':>9} {'untouched':>10}"
        f" {'hoc':>9} {'split':>12} {'edge':>11}",
        file=out,
    )
    for rank in odds.ranks:
        figures = (rank.lose, rank.win, rank.split, rank.untouched, rank.hoc)
        widths = (9, 9, 9, 10, 9)
        cells = " ".join(percent_text(f, 2).rjust(w) for f, w in zip(figures, widths, strict=True))
        print(
            f"{rank.rank.label:>4} {rank.left:>4} {cells} "
            f"{percent_text(rank.straight.split, 2):>12} {percent_text(rank.straight.edge, 3):>11}",
            file=out,
        )
    live = {rank.rank for rank in odds.ranks}
    dead = [rank.label for rank in find_deck(odds.deck).ranks if rank not in live]
    if dead:
        # A rank missing from the table above is out, not forgotten.
        print(f"  dead (no card left): {' '.join(dead)}", file=out)
    if odds.two_ranks:
        _print_two_ranks(odds, out)
    if odds.turns_left == 0:
        print("\nno turn is left to call: only the hoc is in the box", file=out)
        return
    print(
        "\ncalling the last turn: chance of the kind, one call right, pays, bank's edge", file=out
    )
    for call in odds.calls:
        pays = "no call" if call.pays is None else f"{call.pays} to 1"
        edge = "" if call.edge is None else percent_text(call.edge, 2)
        fair = f"fair {fraction_text(call.fair_pays).removesuffix('/1')} to 1"
        print(
            f"  {call.kind:<8} {percent_text(call.probability, 2):>8}  "
            f"{fraction_text(call.right):>4}  {pays:<8} {fair:<12} {edge}",
            file=out,
        )


# What the house's between_two makes of a turn that loses one of the two ranks and wins the other.
_ONE_EACH = {
    "stands": "leaves it standing",
    "independent": "settles it with no payment",
    "plie": "leaves it a split",
}
_SPOTS_SHOWN = 6


def _print_two_ranks(odds: FaroOdds, out: TextIO) -> None:
    between_two = odds.two_ranks[0].between_two
    print(
        "\na bet between two ranks, left till a turn settles it (a coppered one alike); a turn\n"
        f"that loses one and wins the other {_ONE_EACH[between_two]} (between_two={between_two})",
        file=out,
    )
    pushes = between_two == "independent"
    no_payment = f" {'no payment':>10}" if pushes else ""
    print(
        f"{'left':>11} {'wins':>9} {'loses':>9} {'split':>9}{no_payment} {'back':>9} "
        f"{'edge':>9}  spots",
        file=out,
    )
    for two in odds.two_ranks:
        shown = " ".join(two.spots[:_SPOTS_SHOWN])
        more = " …" if len(two.spots) > _SPOTS_SHOWN else ""
        spots = f"{count(len(two.spots), 'spot')}: {shown}{more}"
        push = f" {percent_text(two.push, 2):>10}" if pushes else ""
        print(
            f"{f'{two.left[0]} and {two.left[1]}':>11} {percent_text(two.win, 2):>9} "
            f"{percent_text(two.lose, 2):>9} {percent_text(two.split, 2):>9}{push} "
            f"{percent_text(two.returned, 2):>9} {percent_text(two.edge, 3):>9}  {spots}",
            file=out,
        )


def _print_edge_table(rules: FaroRules, rows: list[Any]) -> None:
    suits = len(rules.deck_spec.suits)
    take = "half" if rules.split == "half" else "all"
    print(
        f"Faro, {rules_title(rules.name, options_in_force(rules))}: the bank's edge on a bet "
        "left on a rank until it shows\n"
        f"(a split takes {take}; a coppered bet alike)"
    )
    if rules.split == "half":
        print(f"(edges per {edges_per(rules)}; {ODD_STAKE_NOTE})")
    print("cards in box | " + " ".join(f"{k} left".rjust(10) for k in range(1, suits + 1)))
    by_count: dict[int, dict[int, Fraction]] = {}
    for straight, _ in rows:
        by_count.setdefault(straight.cards_left, {})[straight.rank_left] = straight.edge
    for cards_left, edges in by_count.items():
        cells = [
            percent_text(edges[k], 3).rjust(10) if k in edges else "".rjust(10)
            for k in range(1, suits + 1)
        ]
        print(f"{cards_left:>12} | " + " ".join(cells))


# --- odds punto-banco and chemin-de-fer ---------------------------------------------------


def _shoe(args: argparse.Namespace) -> BaccaratShoe:
    return BaccaratShoe.full(args.decks).without(parse_cards(args.out))


def _odds_punto_banco(args: argparse.Namespace) -> int:
    if args.no_commission and args.commission is not None:
        # Dropping one of them silently would give the odds of a table the user did not ask for.
        raise TableError(
            f"--no-commission and --commission {args.commission}: name one of them, not both"
        )
    commission = DEFAULT_COMMISSION if args.commission is None else args.commission
    payouts = PuntoBancoPayouts(
        commission=Fraction(0) if args.no_commission else _commission(commission),
        banker_six_pays_half=args.no_commission,
        tie_pays=args.tie_pays,
        pair_pays=args.pair_pays,
    )
    odds = punto_banco_odds(_shoe(args), payouts)
    if args.json:
        _print_json(odds.to_json())
    else:
        print_punto_banco_odds(odds)
    return 0


def print_punto_banco_odds(odds: PuntoBancoOdds, out: TextIO | None = None) -> None:
    out = out or sys.stdout
    print(f"Punto Banco, {odds.shoe.describe()}: {odds.payouts.describe()}", file=out)
    print(
        f"  banker wins {percent_text(odds.banker, 4)}, player {percent_text(odds.player, 4)}, "
        f"tie {percent_text(odds.tie, 4)}; a pair {percent_text(odds.player_pair, 4)}",
        file=out,
    )
    for edge in odds.edges:
        print(f"  {edge.bet:<12} {edge.pays:<32} house edge {percent_text(edge.edge, 4)}", file=out)


def _player_five(text: str) -> Fraction:
    named = {"draw": Fraction(1), "stand": Fraction(0)}
    chance = named.get(text.strip().lower())
    if chance is not None:
        return chance
    return _fraction(text, "--player-five", "draw, stand or the chance he draws, 0 to 1 (1/2)")


def _odds_chemin_de_fer(args: argparse.Namespace) -> int:
    odds = chemin_de_fer_odds(
        _shoe(args),
        commission=_commission(args.commission),
        player_draws_at_five=_player_five(args.player_five),
    )
    if args.json:
        _print_json(odds.to_json())
    else:
        print_chemin_de_fer_odds(odds)
    return 0


def print_chemin_de_fer_odds(odds: CheminDeFerOdds, out: TextIO | None = None) -> None:
    out = out or sys.stdout
    commission = f"{float(odds.commission) * 100:g}%"
    print(
        f"Chemin de Fer, {odds.shoe.describe()}, {commission} commission on the bank's wins",
        file=out,
    )
    five = odds.player_five
    if five is None:
        print("\nThe player's 5: no coup from this shoe gives the player a 5", file=out)
    else:
        print(
            f"\nThe player's 5 ({percent_text(five.reach, 2)} of coups), the banker keeping to "
            f"002's table:\n  draw {percent_text(five.draw, 3)}, "
            f"stand {percent_text(five.stand, 3)} of the stake: {five.best}",
            file=out,
        )
    chance = odds.player_draws_at_five
    named = {Fraction(1): "always", Fraction(0): "never"}
    at_five = named.get(chance, f"with chance {fraction_text(chance)}")
    print(
        f"\nThe banker's choices, the player drawing at 5 {at_five}: the bank's value a unit"
        "\n(* where the table's action is not the better one)",
        file=out,
    )
    print("  total  player's third       draw     stand  table  better", file=out)
    for choice in odds.banker:
        third = "stood" if choice.player_third is None else str(choice.player_third)
        mark = " *" if choice.best not in (choice.table, "either") else ""
        print(
            f"  {choice.total:>5}  {third:>14}  {percent_text(choice.draw, 2):>9} "
            f"{percent_text(choice.stand, 2):>9}  {choice.table:<5}  {choice.best}{mark}",
            file=out,
        )
    print(
        f"\nThe bank's result a coup: {percent_text(odds.bank_gain_by_table, 4)} keeping to "
        f"the table,\n{percent_text(odds.bank_gain_playing_best, 4)} taking the better action "
        "at every choice",
        file=out,
    )


# --- simulate -----------------------------------------------------------------------------


class ProgressBar:
    """``[#####.....]  50%  500,000 / 1,000,000 deals`` redrawn in place on a terminal."""

    def __init__(self, stream: TextIO, width: int = 30) -> None:
        self.stream = stream
        self.width = width

    def __call__(self, done: int, total: int) -> None:
        filled = self.width * done // total
        bar = "#" * filled + "." * (self.width - filled)
        self.stream.write(f"\r[{bar}] {100 * done // total:3d}%  {done:,} / {total:,} deals")
        if done >= total:
            self.stream.write("\n")
        self.stream.flush()


def _simulate(args: argparse.Namespace) -> int:
    if args.game not in GAMES:
        raise TableError(f"unknown game {args.game!r} (known: {', '.join(GAMES)})")
    rules = _rules(args)
    from analysis.faro_simulation import check_strategies, simulate_faro

    strategies = check_strategies(args.strategy or ["all"], rules)
    if args.plot:
        from analysis.plots import plot_format

        plot_format(args.plot)  # a name that is no picture is refused before the run
    show_progress = args.progress
    if show_progress is None:
        show_progress = args.deals >= LONG_RUN and sys.stderr.isatty()
    progress = ProgressBar(sys.stderr) if show_progress else None
    result = simulate_faro(rules, args.deals, strategies, seed=args.seed, progress=progress)
    plotted = None
    if args.plot:
        from analysis.plots import plot_bankrolls
        from table.service.output_files import written_whole

        with written_whole(args.plot) as part:
            plot_bankrolls(result, part)
        plotted = Path(args.plot)
    if args.json:
        _print_json({**_simulation_json(result, plotted), "edges_per": edges_per(rules)})
    else:
        _print_simulation(result, plotted)
        if rules.split == "half":
            print(f"\n(a unit is an even stake; {ODD_STAKE_NOTE})")
    return 0


def _edge_json(edge: float | None, exact: Fraction | None) -> dict[str, Any]:
    return {
        "edge": edge,
        "exact_edge": None if exact is None else fraction_text(exact),
    }


def _simulation_json(result: Any, plotted: Any) -> dict[str, Any]:
    from analysis.faro_simulation import SUMMARY_POINTS

    strategies = []
    for name, strategy in result.strategies.items():
        deal_numbers, bankroll = strategy.bankroll(SUMMARY_POINTS)
        strategies.append(
            {
                "strategy": name,
                "bets": strategy.bets,
                "net": strategy.net,
                **_edge_json(strategy.edge, strategy.exact_edge),
                "bankroll": [
                    [int(deal), float(units)]
                    for deal, units in zip(deal_numbers, bankroll, strict=True)
                ],
            }
        )
    return {
        "game": "faro",
        "rules": result.rules,
        "options": dict(result.options),
        "deals": result.deals,
        "seed": result.seed,
        "splits_per_deal": result.splits_per_deal,
        "exact_splits_per_deal": fraction_text(result.exact_splits_per_deal),
        "bet_kinds": [
            {
                "kind": kind.kind,
                "bets": kind.bets,
                "net": kind.net,
                **_edge_json(kind.edge, kind.exact_edge),
            }
            for kind in result.bet_kinds.values()
        ],
        "strategies": strategies,
        "plot": None if plotted is None else str(plotted),
    }


def _percent(value: float | None) -> str:
    return "-" if value is None else f"{value * 100:.3f}%"


def _exact(value: Fraction | None) -> str:
    return "-" if value is None else percent_text(value, 3)


def _print_simulation(result: Any, plotted: Any) -> None:
    print(
        f"Faro, {result.title}: {result.deals:,} deals (seed {result.seed}); "
        f"{result.splits_per_deal:.4f} splits a deal "
        f"(exact {float(result.exact_splits_per_deal):.4f})"
    )
    print("\nbet kind        bets        bank's edge   exact")
    for kind in result.bet_kinds.values():
        edges = f"{_percent(kind.edge):>10}  {_exact(kind.exact_edge):>9}"
        print(f"  {kind.kind:<10} {kind.bets:>10,}  {edges}")
    print("\nstrategy        bets        bank's edge   exact     punter's result")
    for name, strategy in result.strategies.items():
        print(
            f"  {name:<10} {strategy.bets:>10,}  {_percent(strategy.edge):>10}  "
            f"{_exact(strategy.exact_edge):>9}  {strategy.net:>+12,.1f}"
        )
    if plotted is not None:
        print(f"\nbankroll curves: {plotted}")


def main(argv: Sequence[str] | None = None) -> int:
    """``dealtable`` itself, which takes these commands: run on its own, a command checks its
    output file before the run and reports any error as the ``dealtable`` command does."""
    from table.service.cli import main as dealtable_main

    return dealtable_main(argv)


if __name__ == "__main__":
    sys.exit(main())
