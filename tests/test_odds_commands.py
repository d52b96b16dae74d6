"""``dealtable odds`` and ``dealtable simulate`` as a user runs them: the figures printed
are the library's, JSON fractions read back exactly, and bad input says why."""

from __future__ import annotations

import argparse
import json
from fractions import Fraction
from pathlib import Path

import pytest

import analysis.faro_simulation
from table.cards import parse_cards
from table.faro.rules import find_rules
from table.odds.baccarat import BaccaratShoe
from table.odds.chemin_de_fer import chemin_de_fer_odds
from table.odds.faro import faro_odds_from_out, heel_odds
from table.odds.json_fractions import percent_text
from table.odds.punto_banco import PuntoBancoPayouts, punto_banco_odds
from table.service.odds_commands import ProgressBar, add_subcommands, main

OUT = "2C KD 9C KH KS 9D 5S 5H 7C"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    parser = argparse.ArgumentParser(prog="dealtable")
    add_subcommands(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    code = args.handler(args)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_faro_odds_as_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "odds", "faro", "--out", OUT, "--json")
    assert code == 0
    payload = json.loads(out)
    exact = faro_odds_from_out(parse_cards(OUT), find_rules("classic"))
    assert payload["cards_left"] == 43
    assert Fraction(payload["expected_splits"]) == exact.expected_splits
    king = next(rank for rank in payload["ranks"] if rank["rank"] == "K")
    assert king["left"] == 1
    assert Fraction(king["straight"]["edge"]) == 0
    nine = next(rank for rank in payload["ranks"] if rank["rank"] == "9")
    assert Fraction(nine["straight"]["edge"]) == heel_odds(43, 2, find_rules("classic")).edge
    cat_hop = next(call for call in payload["calls"] if call["kind"] == "cat-hop")
    assert (cat_hop["fair_pays"], cat_hop["edge"]) == ("2/1", "0/1")


def test_faro_options_and_rule_sets_change_the_figures(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run(capsys, "odds", "faro", "--out", "2C", "--option", "cat_hop_pays=1", "--json")
    cat_hop = next(call for call in json.loads(out)["calls"] if call["kind"] == "cat-hop")
    assert Fraction(cat_hop["edge"]) == Fraction(1, 3)
    _, out, _ = run(capsys, "odds", "faro", "--rules", "monte-bank", "--json")
    payload = json.loads(out)
    assert payload["cards_left"] == 40 and len(payload["ranks"]) == 10


def test_the_options_in_force_are_named_wherever_the_rules_are(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``split=all`` doubles every edge: a figure told as the classic rules' would mislead."""
    changed = ("--option", "split=all", "--option", "cat_hop_pays=1")
    _, out, _ = run(capsys, "odds", "faro", *changed)
    assert out.startswith("Faro, classic rules with split=all, cat_hop_pays=1: 52 cards")
    _, out, _ = run(capsys, "odds", "faro", *changed, "--json")
    payload = json.loads(out)
    assert (payload["rules"], payload["options"]) == (
        "classic",
        {"split": "all", "cat_hop_pays": "1"},
    )
    _, out, _ = run(capsys, "odds", "faro", "--edge-table", "--option", "split=all")
    assert out.startswith("Faro, classic rules with split=all: the bank's edge")
    _, out, _ = run(capsys, "odds", "faro", "--edge-table", "--option", "split=all", "--json")
    assert json.loads(out)["options"] == {"split": "all"}
    _, out, _ = run(capsys, "simulate", "--deals", "100", "--option", "split=all")
    assert out.startswith("Faro, classic rules with split=all: 100 deals")
    _, out, _ = run(capsys, "simulate", "--deals", "100", "--option", "split=all", "--json")
    assert json.loads(out)["options"] == {"split": "all"}
    # An option that only repeats the rule set's own rule changes nothing, and is not named.
    _, out, _ = run(capsys, "odds", "faro", "--rules", "stuss", "--option", "split=all")
    assert out.startswith("Faro, stuss rules: 52 cards")


def test_the_edges_are_said_to_be_per_chip_of_an_even_stake_as_the_engine_settles_a_split(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A split takes half, and the engine gives the bank an odd stake's odd chip: the figures
    hold for an even stake, and the output says so where a split takes half."""
    from table.faro.settlement import plie_take

    classic = find_rules("classic")
    assert [plie_take(stake, classic) for stake in (2, 4, 1, 3)] == [1, 2, 1, 2]
    said = (
        "(edges per chip of an even stake; on an odd stake a split also takes the odd chip: "
        "a 1-chip bet caught in a split is lost whole)"
    )
    _, out, _ = run(capsys, "odds", "faro", "--out", OUT)
    assert out.splitlines()[1] == said
    _, out, _ = run(capsys, "odds", "faro", "--out", OUT, "--json")
    assert json.loads(out)["edges_per"] == "chip of an even stake"
    _, out, _ = run(capsys, "odds", "faro", "--edge-table")
    assert out.splitlines()[2] == said
    _, out, _ = run(capsys, "simulate", "--deals", "100")
    assert out.splitlines()[-1] == "(a unit is an even stake; " + said.removeprefix(
        "(edges per chip of an even stake; "
    )
    _, out, _ = run(capsys, "simulate", "--deals", "100", "--json")
    assert json.loads(out)["edges_per"] == "chip of an even stake"
    # Where a split takes all, the stake makes no difference, and nothing is said.
    assert [plie_take(stake, find_rules("stuss")) for stake in (1, 2, 3)] == [1, 2, 3]
    _, out, _ = run(capsys, "odds", "faro", "--rules", "stuss")
    assert "even stake" not in out
    _, out, _ = run(capsys, "odds", "faro", "--rules", "stuss", "--json")
    assert json.loads(out)["edges_per"] == "chip"


def test_faro_text_and_edge_table(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "odds", "faro", "--out", OUT)
    assert code == 0
    assert "43 cards in the box, 21 turns to come" in out
    deck = " ".join(str(card) for card in find_rules("classic").deck_spec.cards)
    _, out, _ = run(capsys, "odds", "faro", "--out", " ".join(deck.split()[:49]))
    assert out.startswith("Faro, classic rules: 3 cards in the box, 1 turn to come (the last),")
    _, out, _ = run(capsys, "odds", "faro", "--out", " ".join(deck.split()[:51]))
    assert out.startswith("Faro, classic rules: 1 card in the box (the hoc), no turn to come,")
    assert "no turn is left to call: only the hoc is in the box" in out
    assert "cat-hop" not in out
    assert "dead (no card left): A 2 3 4 5 6 7 8 9 10 J Q\n" in out


def test_faro_odds_give_a_bet_between_two_ranks_by_the_houses_rule(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Each two-rank spot the table takes now, by how many cards of its ranks are left, with
    the rule that decides a turn losing one and winning the other, as the engine settles it."""
    from table.odds.faro import two_rank_odds

    _, out, _ = run(capsys, "odds", "faro", "--out", "2C")
    lines = out.splitlines()
    at = next(n for n, line in enumerate(lines) if line.startswith("a bet between two ranks"))
    assert " ".join(" ".join(lines[at : at + 2]).split()) == (
        "a bet between two ranks, left till a turn settles it (a coppered one alike); a turn "
        "that loses one and wins the other leaves it standing (between_two=stands)"
    )
    edge = two_rank_odds(51, 4, 4, find_rules("classic")).edge
    row = lines[at + 3]
    assert row.split()[:3] == ["4", "and", "4"]
    assert percent_text(edge, 3) == "1.879%" and percent_text(edge, 3) in row
    # The soda was a 2: the spots with a 2 have 4 and 3 cards left.
    assert row.endswith("30 spots: A+3 A+Q A+K 3+4 3+5 3+10 …")
    _, out, _ = run(capsys, "odds", "faro", "--out", "2C", "--rules", "casino-003")
    assert "wins the other leaves it a split (between_two=plie)" in " ".join(out.split())
    assert "4.214%" in out
    _, out, _ = run(capsys, "odds", "faro", "--out", OUT, "--option", "between_two=independent")
    assert "settles it with no payment (between_two=independent)" in " ".join(out.split())
    _, out, _ = run(capsys, "odds", "faro", "--out", OUT, "--json")
    exact = faro_odds_from_out(parse_cards(OUT), find_rules("classic"))
    rows = json.loads(out)["two_ranks"]
    assert [(row["left"], row["spots"]) for row in rows] == [
        (list(two.left), list(two.spots)) for two in exact.two_ranks
    ]
    nine_ten = next(row for row in rows if "9+10" in row["spots"])
    assert nine_ten["left"] == [4, 2] and nine_ten["between_two"] == "stands"
    assert Fraction(nine_ten["edge"]) == two_rank_odds(43, 4, 2, find_rules("classic")).edge
    # The king is cases, not dead: the spots beside it are there.
    assert any("J+K" in row["spots"] for row in rows if row["left"] == [4, 1])


def test_faro_text_names_the_dead_ranks(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "odds", "faro", "--out", "2C KD KC KH KS 9D 2S 2H 2D")
    assert code == 0
    assert "dead (no card left): 2 K\n" in out
    rows = [line.split()[0] for line in out.splitlines() if line[:4].strip() in ("2", "K", "9")]
    assert rows == ["9"]
    _, out, _ = run(capsys, "odds", "faro", "--out", OUT)
    assert "dead" not in out
    assert "fair 2 to 1" in out
    code, out, _ = run(capsys, "odds", "faro", "--edge-table", "--rules", "stuss")
    lines = out.splitlines()
    assert "a split takes all" in lines[1]
    row_51 = next(line for line in lines if line.strip().startswith("51 |"))
    stuss_edge = heel_odds(51, 4, find_rules("stuss")).edge
    assert stuss_edge == 2 * heel_odds(51, 4, find_rules("classic")).edge
    assert percent_text(stuss_edge, 3) in row_51
    _, out, _ = run(capsys, "odds", "faro", "--edge-table", "--json")
    rows = json.loads(out)["straight"]
    assert len(rows) == sum(min(4, n) for n in range(51, 0, -2))


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (("odds", "faro", "--out", "KS KH KD KC KS"), "5 Ks out of a deck that holds 4"),
        (("odds", "faro", "--rules", "vegas"), "unknown Faro rule set 'vegas'"),
        (("odds", "faro", "--option", "split"), "write KEY=VALUE"),
        (("odds", "faro", "--rules", "dutch"), "the dutch rules take only red or black"),
        (("odds", "faro", "--rules", "dutch", "--edge-table", "--json"), "only red or black"),
        (("odds", "faro", "--option", "rank_bets=no", "--option", "colour_bets=yes"), "red or"),
        (("odds", "faro", "--out", "2C XX"), "not a card"),
        (("odds", "faro", "--edge-table", "--out", "KS KH KD KC KS"), "takes no --out"),
        (("odds", "faro", "--edge-table", "--out", "2C"), "takes no --out"),
        (("odds", "punto-banco", "--decks", "1", "--out", "KH KH"), "KH out 2 times"),
        (("odds", "punto-banco", "--no-commission", "--commission", "10"), "not both"),
        (("odds", "punto-banco", "--commission", "0", "--no-commission"), "not both"),
        (
            ("odds", "chemin-de-fer", "--player-five", "often"),
            "--player-five 'often': expected draw, stand or the chance he draws, 0 to 1",
        ),
        (
            ("odds", "punto-banco", "--commission", "100"),
            "--commission '100': a commission is 0 to under 100 (percent taken from a win)",
        ),
        (("odds", "punto-banco", "--commission", "-5"), "--commission '-5': a commission is 0"),
        (("odds", "chemin-de-fer", "--commission", "100"), "--commission '100': a commission"),
        (("odds", "chemin-de-fer", "--commission", "1e400"), "--commission '1e400': a commission"),
        (("odds", "chemin-de-fer", "--commission", "much"), "--commission 'much': expected a"),
        (("simulate", "--strategy", "martingale"), "unknown strategy 'martingale'"),
        (("simulate", "--rules", "vegas"), "unknown Faro rule set"),
        (("simulate", "--game", "punto-banco"), "unknown game 'punto-banco'"),
        (("simulate", "--deals", "10", "--seed", "-1"), "seed -1: the seed is 0 or more"),
        (("simulate", "--plot", "curves.jpg"), "name it .png, .svg or .pdf"),
    ],
)
def test_bad_input_says_why_and_exits_2(
    capsys: pytest.CaptureFixture[str], argv: tuple[str, ...], message: str
) -> None:
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert out == ""
    assert err.startswith("dealtable ") and message in err
    assert err.count("\n") == 1


def test_punto_banco_odds(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "odds", "punto-banco", "--decks", "2", "--out", "KH 5S", "--json")
    assert code == 0
    payload = json.loads(out)
    shoe = BaccaratShoe.full(2).without(parse_cards("KH 5S"))
    exact = punto_banco_odds(shoe)
    assert payload["cards_left"] == 102
    assert Fraction(payload["banker"]) == exact.banker
    edges = {edge["bet"]: Fraction(edge["edge"]) for edge in payload["edges"]}
    assert edges["banker"] == exact.edge("banker").edge
    _, out, _ = run(capsys, "odds", "punto-banco", "--no-commission", "--tie-pays", "9", "--json")
    edges = {edge["bet"]: Fraction(edge["edge"]) for edge in json.loads(out)["edges"]}
    house = PuntoBancoPayouts(banker_six_pays_half=True, tie_pays=9)
    exact = punto_banco_odds(BaccaratShoe.full(6), house)
    assert edges["banker"] == exact.edge("banker").edge
    assert edges["tie"] == exact.edge("tie").edge
    _, by_default, _ = run(capsys, "odds", "punto-banco")
    _, six_decks, _ = run(capsys, "odds", "punto-banco", "--decks", "6")
    _, eight_decks, _ = run(capsys, "odds", "punto-banco", "--decks", "8")
    assert by_default == six_decks != eight_decks  # 004: six decks
    assert "banker wins 45.8653%" in by_default


def test_chemin_de_fer_odds(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys, "odds", "chemin-de-fer", "--decks", "1", "--player-five", "1/2", "--json"
    )
    assert code == 0
    payload = json.loads(out)
    exact = chemin_de_fer_odds(BaccaratShoe.full(1), player_draws_at_five=Fraction(1, 2))
    assert payload["player_draws_at_five"] == "1/2"
    assert Fraction(payload["player_five"]["draw"]) == exact.player_five.draw
    assert len(payload["banker"]) == len(exact.banker)
    _, out, _ = run(capsys, "odds", "chemin-de-fer", "--commission", "0", "--player-five", "stand")
    assert "6-deck shoe, 0% commission" in out
    assert "The player's 5" in out and "drawing at 5 never" in out


def test_chemin_de_fer_odds_of_a_late_shoe_that_gives_no_player_five(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Only tens, faces, 2s and 4s left: no two cards make a 5, and the banker still chooses."""
    dealt = " ".join(f"{rank}{suit}" for rank in "A356789" for suit in "SHDC")
    code, out, err = run(capsys, "odds", "chemin-de-fer", "--decks", "1", "--out", dealt)
    assert (code, err) == (0, "")
    assert "The player's 5: no coup from this shoe gives the player a 5" in out
    exact = chemin_de_fer_odds(BaccaratShoe.full(1).without(parse_cards(dealt)))
    assert exact.player_five is None and exact.banker
    assert f"{percent_text(exact.bank_gain_by_table, 4)} keeping to the table" in out
    code, out, _ = run(capsys, "odds", "chemin-de-fer", "--decks", "1", "--out", dealt, "--json")
    payload = json.loads(out)
    assert code == 0 and payload["player_five"] is None
    assert len(payload["banker"]) == len(exact.banker)


def test_simulate_reports_plots_and_writes_json(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    plot = tmp_path / "curves.png"
    code, out, err = run(
        capsys, "simulate", "--deals", "20000", "--strategy", "flat", "--strategy", "casekeep",
        "--plot", str(plot), "--json", "--no-progress",
    )  # fmt: skip
    assert code == 0 and err == ""
    payload = json.loads(out)
    assert [s["strategy"] for s in payload["strategies"]] == ["flat", "casekeep"]
    assert payload["exact_splits_per_deal"] == "25/17"
    assert abs(payload["splits_per_deal"] - 25 / 17) < 0.05
    flat = payload["strategies"][0]
    assert flat["bankroll"][-1][0] == 20000
    assert flat["bankroll"][-1][1] == pytest.approx(flat["net"])
    assert plot.read_bytes().startswith(b"\x89PNG")
    assert payload["plot"] == str(plot)


def test_simulate_plots_in_the_format_its_file_names(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    plot = tmp_path / "curves.svg"
    code, out, _ = run(capsys, "simulate", "--deals", "1000", "--plot", str(plot))
    assert code == 0 and f"bankroll curves: {plot}" in out
    assert plot.read_bytes().startswith(b"<?xml")

    def no_run(*args: object, **kwargs: object) -> None:
        raise AssertionError("a name that is no picture is refused before the run")

    monkeypatch.setattr(analysis.faro_simulation, "simulate_faro", no_run)
    code, out, err = run(capsys, "simulate", "--plot", str(tmp_path / "curves"))
    assert code == 2 and out == "" and "name it .png, .svg or .pdf" in err


def test_simulate_text_with_a_progress_bar(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "simulate", "--deals", "60000", "--progress")
    assert code == 0
    assert "60,000 deals" in out and "splits a deal" in out
    assert "caller" in out and "cat-hop" in out
    assert err.endswith("100%  60,000 / 60,000 deals\n")


def test_simulate_leaves_out_the_bets_the_rules_forbid(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "simulate", "--deals", "2000", "--rules", "casino-003", "--json")
    assert code == 0
    payload = json.loads(out)
    assert "cases" not in [kind["kind"] for kind in payload["bet_kinds"]]
    assert "casekeep" not in [strategy["strategy"] for strategy in payload["strategies"]]
    code, out, _ = run(capsys, "simulate", "--deals", "2000", "--rules", "casino-003")
    assert code == 0 and "cases" not in out


def test_the_progress_bar_fills() -> None:
    class Sink:
        def __init__(self) -> None:
            self.text = ""

        def write(self, text: str) -> None:
            self.text += text

        def flush(self) -> None:
            pass

    sink = Sink()
    bar = ProgressBar(sink, width=10)  # type: ignore[arg-type]
    bar(5, 10)
    assert sink.text == "\r[#####.....]  50%  5 / 10 deals"


def test_the_module_runs_on_its_own(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["odds", "faro", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["turns_left"] == 25


def test_the_module_on_its_own_refuses_a_plot_it_cannot_write_before_the_run(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    missing = tmp_path / "no such folder" / "curves.png"
    assert main(["simulate", "--deals", "10", "--plot", str(missing)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == (
        f"dealtable simulate: cannot write {missing}: there is no folder {missing.parent}\n"
    )


def test_a_plot_under_a_file_is_refused_naming_the_file_that_is_no_folder(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("kept\n")
    assert main(["simulate", "--deals", "10", "--plot", str(notes / "curves.png")]) == 2
    plot = notes / "curves.png"
    assert capsys.readouterr().err == (
        f"dealtable simulate: cannot write {plot}: {notes} is a file, not a folder\n"
    )
    assert notes.read_text() == "kept\n"
