"""The museum exhibit: plain words in three languages, and a thousand deals without a leak."""

from __future__ import annotations

import functools
import gc
import io
import os
import random
import re
import subprocess
import sys
from pathlib import Path

import pytest

from display.narration import LANGUAGES, WORDS, Narrator
from table.cards import STANDARD_52, Card, Rank
from table.events import DealFinished, PunterSeated
from table.faro.punters import DEMO_PUNTERS
from table.faro.rules import RULE_SETS
from table.language import LeaveCmd, PunterCmd
from table.service.config import Config, ReaderConfig, TableConfig
from table.service.exhibit import ExhibitStats, ExhibitVoice, run_exhibit
from table.service.journal import Journal
from table.service.run import SimulatedTable
from table.service.table_service import TableService, state_snapshot
from tests.conftest import deal, open_table


def a_turn_to_explain() -> list:  # type: ignore[type-arg]
    table = open_table(soda=None)
    events = table.deal("5S")
    events += table.bet("anna", "7", 3)
    events += table.bet("ben", "7", 2, copper=True)
    events += deal(table, "7H QD")
    events += table.bet("dan", "K", 4)
    events += deal(table, "KH KD")
    return events


@pytest.mark.parametrize(
    ("language", "expected"),
    [
        (
            "en",
            [
                "Turn 1: the 7 (7♥) loses, the queen (Q♦) wins.",
                "The bank takes Anna's 3 chips on the 7.",
                "Ben's coppered bet on the 7 wins 2 chips.",
                "Turn 2: two kings, a split.",
                "Dan's 4 chips on the king: caught in the split, the bank takes 2 chips.",
            ],
        ),
        (
            "es",
            [
                "Turno 1: pierde el 7 (7♥), gana la reina (Q♦).",
                "La banca se lleva 3 fichas de Anna del 7.",
                "La apuesta con copper de Ben al 7 gana 2 fichas.",
                "Turno 2: dos reyes, un split.",
            ],
        ),
        (
            "ru",
            [
                "Абцуг 1: 7 (7♥) проигрывает, дама (Q♦) выигрывает.",
                "Банк забирает 3 фишки Anna с 7.",
                "Копперированная ставка Ben на 7 выигрывает 2 фишки.",
                "Абцуг 2: два короля, плие.",
                "банк забирает 2 фишки",
            ],
        ),
    ],
)
def test_a_turn_in_plain_words(language: str, expected: list[str]) -> None:
    text = " ".join(Narrator(language).explain(a_turn_to_explain()))
    for sentence in expected:
        assert sentence in text


@pytest.mark.parametrize(
    ("language", "split", "group"),
    [
        ("en", "two queens, a split", "Anna's 3 chips on the 4 and the 5"),
        ("es", "dos reinas, un split", "3 fichas de Anna del 4 y el 5"),
        ("ru", "две дамы, плие", "3 фишки Anna с 4 и 5"),
    ],
)
def test_a_split_and_a_group_are_said_as_the_language_says_them(
    language: str, split: str, group: str
) -> None:
    """Russian counts a pair of queens, and of any number card, in the feminine."""
    table = open_table()
    events = table.bet("anna", "4+5", 3)
    events += deal(table, "4H QD")
    events += deal(table, "QH QS")
    text = " ".join(Narrator(language).explain(events))
    assert split in text and group in text


@pytest.mark.parametrize(
    ("language", "stopped", "mended", "passed"),
    [
        (
            "en",
            "That card was already dealt. The table waits for the dealer to set it right.",
            "The dealer has set it right; the deal goes on.",
            "The bank passes to Dan.",
        ),
        (
            "es",
            "Esa carta ya había salido. La mesa espera a que el crupier lo corrija.",
            "El crupier lo ha corregido; la mano sigue.",
            "La banca pasa a Dan.",
        ),
        (
            "ru",
            "Эта карта уже выходила. Стол ждёт, пока банкомёт всё исправит.",
            "Банкомёт всё исправил; талия продолжается.",
            "Банк теперь держит Dan.",
        ),
    ],
)
def test_a_stopped_table_and_the_bank_passing_are_told(
    language: str, stopped: str, mended: str, passed: str
) -> None:
    """A visitor hears why the table stopped, that it goes on, and who banks next (001)."""
    table = open_table("home", {"anna": 100, "dan": 100, "ben": 100})
    narrator = Narrator(language)
    said = narrator.explain(deal(table, "KH KH"))  # the same card twice
    assert said[-1] == stopped
    assert narrator.explain(table.void_card()) == [mended]
    said = narrator.explain(
        [event for card in table.state.casekeep.remaining_cards() for event in table.deal(card)]
    )
    assert said[-1] == passed


@pytest.mark.parametrize(
    ("language", "corrected", "split", "taken_back"),
    [
        (
            "en",
            "The dealer corrects the last card: it was the king (K♠), not the king (K♦); what "
            "the misread card did is undone.",
            "Dan's 4 chips on the king: caught in the split, the bank takes 2 chips.",
            "The dealer takes back the last card, the king (K♠): it was misread, and what it "
            "did is undone.",
        ),
        (
            "es",
            "El crupier corrige la última carta: era el rey (K♠), no el rey (K♦); lo que hizo "
            "la carta mal leída queda anulado.",
            "La apuesta de 4 fichas de Dan al rey cae en el split: la banca se lleva 2 fichas.",
            "El crupier retira la última carta, el rey (K♠): se leyó mal y lo que hizo queda "
            "anulado.",
        ),
        (
            "ru",
            "Банкомёт исправляет последнюю карту: это король (K♠), а не король (K♦); всё, что "
            "решила неверно прочитанная карта, отменено.",
            "Ставка Dan в 4 фишки на короля попала в плие: банк забирает 2 фишки.",
            "Банкомёт снимает последнюю карту, король (K♠): её прочли неверно, и всё, что она "
            "решила, отменено.",
        ),
    ],
)
def test_a_card_the_dealer_corrects_or_takes_back_is_told_and_its_turn_told_again(
    language: str, corrected: str, split: str, taken_back: str
) -> None:
    """What a misread card did was told already: the visitors hear that it is undone, and a
    corrected card's turn is told again as it now stands, each bet with its whole stake."""
    table = open_table()
    narrator = Narrator(language)
    narrator.explain(table.bet("dan", "K", 4) + deal(table, "7H QD"))
    assert split in " ".join(narrator.explain(deal(table, "KH KD")))
    said = narrator.explain(table.correct("KS"))
    assert said[0] == corrected
    assert split in said[1]
    assert narrator.explain(table.void_card()) == [taken_back]
    assert split in " ".join(narrator.explain(deal(table, "KC")))


@pytest.mark.parametrize("language", LANGUAGES)
def test_visitors_hear_that_the_reader_is_lost_and_back_and_nothing_of_the_rest(
    language: str,
) -> None:
    """The dealer deals by hand while the reader is lost: the visitors are told why; a
    reader's other news is for the dealer, not the visitors."""
    from table.events import ReaderNoticeKind

    table = open_table()
    narrator = Narrator(language)
    lost = narrator.explain(table.reader_notice("camera", ReaderNoticeKind.READER_LOST, "gone"))
    other = narrator.explain(table.reader_notice("camera", ReaderNoticeKind.TWO_CARDS, "two"))
    back = narrator.explain(table.reader_notice("camera", ReaderNoticeKind.READER_BACK, "back"))
    assert (lost, other, back) == ([narrator.words.reader_lost], [], [narrator.words.reader_back])


def test_standing_bets_that_tie_together_are_told_in_one_sentence() -> None:
    table = open_table()
    events = table.bet("dan", "even", 2) + table.bet("anna", "even", 3)
    events += table.bet("ben", "odd", 1)
    events += deal(table, "4H 8D")  # both even: a tie for odd and even alike (003)
    text = " ".join(Narrator("en").explain(events))
    assert text.count("a tie this turn") == 2
    together = "The bets of Dan and Anna on even: a tie this turn, nothing is paid and they stay."
    assert together in text
    assert "Ben's bet on odd: a tie this turn, nothing is paid and it stays." in text


def test_every_rank_has_its_pair_named_in_every_language() -> None:
    for words in WORDS.values():
        assert set(words.pairs) == set(Rank)


def test_the_advisor_offers_its_ranks_as_a_choice() -> None:
    offered = [Rank.SIX, Rank.TEN, Rank.QUEEN]
    assert "on the 6, the 10 or the queen" in Narrator("en").advise(offered, "0.5 %")
    assert "apostar al 6, al 10 o a la reina" in Narrator("es").advise(offered, "0.5 %")
    assert "ставить на 6, 10 или даму" in Narrator("ru").advise(offered, "0.5 %")


@functools.cache
def everything_said(language: str) -> list[str]:
    """What the exhibit says over seeded deals under every rule set: every kind of bet the
    simulated punters make, won, lost, split, tied, returned and called."""
    lines: list[str] = []
    for seed, rules in enumerate(RULE_SETS, start=1):
        out = io.StringIO()
        run_exhibit(language=language, seed=seed, rules=rules, pause=0, deals=8, out=out)
        lines += out.getvalue().splitlines()
    return lines


_RUSSIAN_CONSONANTS = "бвгджзйклмнпрстфхцчшщ"
# «со» stands before a cluster that begins with с, з, ш or ж (со старшей карты); else «с».
_WANTS_SO = rf"[сзшж][{_RUSSIAN_CONSONANTS}]"
FAULTS = {
    "en": {
        "a placeholder left unfilled": r"[{}]",
        "one chip with a plural verb": r"(?<!\d)1 chip on [^.]*\bcome back\b",
    },
    "es": {
        "a placeholder left unfilled": r"[{}]",
        "«a el» for «al»": r"\ba el\b",
        "«de el» for «del»": r"\bde el\b",
        "one chip with a plural article": r"\b(sus|[Ll]as) 1 ficha\b",
    },
    "ru": {
        "a placeholder left unfilled": r"[{}]",
        "a spot in the accusative after «с»": r"\bсо? (старшую|нечет|чет|красное|чёрное)\b",
        "«с» where «со» is said": rf"\bс {_WANTS_SO}",
        "«со» where «с» is said": rf"\bсо (?!{_WANTS_SO})",
        "a call said of a man or of a woman": r"\bугадала?\b",
        "the accusative «фишку» where the count is the subject": (
            r"(в банке |\(|копперированные )\d*1 фишку\b"
        ),
    },
}


@pytest.mark.parametrize("language", LANGUAGES)
def test_no_sentence_of_many_deals_has_a_known_fault(language: str) -> None:
    lines = everything_said(language)
    assert len(lines) > 1500  # some two thousand sentences: enough for every kind of bet
    for fault, pattern in FAULTS[language].items():
        wrong = [line for line in lines if re.search(pattern, line)]
        assert wrong == [], f"{fault} ({len(wrong)} sentences), e.g. {wrong[0]}"


def standing_bets_and_calls() -> list:  # type: ignore[type-arg]
    table = open_table()
    events = table.bet("anna", "high", 2) + table.bet("ben", "odd", 1)
    events += table.bet("dan", "even", 3) + table.bet("dan", "A", 2)
    events += deal(table, "KH 4D")  # high card and even win, odd loses
    events += table.bet("ben", "high", 2)
    events += deal(table, "QH 8S")  # high card loses
    events += table.void_deal()  # what is still on the layout goes back
    table = open_table(punters={"elena": 100, "frank": 100})
    remaining = [str(card) for card in table.state.casekeep.remaining_cards()]
    events += deal(table, " ".join(card for card in remaining if card not in ("7C", "JD", "3S")))
    events += table.call("elena", ["7", "J", "3"], 2) + table.call("frank", ["J", "7", "3"], 2)
    events += deal(table, "7C JD 3S")
    return events


@pytest.mark.parametrize(
    ("language", "expected"),
    [
        (
            "ru",
            [
                "Банк забирает 1 фишку Ben с нечета.",
                "Ставка Dan на чет выигрывает 3 фишки.",
                "Банк забирает 2 фишки Ben со старшей карты.",
                "Dan получает назад 3 фишки с чета.",
                "Dan получает назад 2 фишки с туза.",
                "Ставка Elena на последний абцуг сыграла и выигрывает 8 фишек!",
                "Ставка Frank на последний абцуг не сыграла: банк забирает 2 фишки.",
            ],
        ),
        (
            "es",
            [
                "La banca se lleva 1 ficha de Ben de impar.",
                "La apuesta de Dan a par gana 3 fichas.",
                "La banca se lleva 2 fichas de Ben de la carta alta.",
                "Dan recupera 2 fichas del as.",
                "¡Elena acertó el último turno y gana 8 fichas!",
            ],
        ),
        (
            "en",
            [
                "The bank takes Ben's 1 chip on odd.",
                "Dan's bet on even wins 3 chips.",
                "The bank takes Ben's 2 chips on high card.",
                "Elena called the last turn right and wins 8 chips!",
            ],
        ),
    ],
)
def test_standing_bets_and_calls_are_said_as_the_language_says_them(
    language: str, expected: list[str]
) -> None:
    """Russian takes a standing bet «с нечета», «со старшей карты» (the genitive, and «со»
    before a cluster), and says a call without saying whether a man or a woman made it."""
    text = " ".join(Narrator(language).explain(standing_bets_and_calls()))
    for sentence in expected:
        assert sentence in text


def counts_of_one() -> list:  # type: ignore[type-arg]
    table = open_table()
    events = table.bet("dan", "K", 1, copper=True) + table.bet("ben", "odd", 1)
    events += deal(table, "3H KD")  # the king wins: a coppered bet on it loses
    events += table.bet("anna", "Q", 1)
    events += deal(table, "QH QS")  # a split
    events += table.void_deal()  # Ben's bet goes back
    over = DealFinished(
        table="t1", seq=0, at=0.0, deal=1, hoc=Card.parse("8H"), splits=1, bank=2001,
        bankrolls={},
    )  # fmt: skip
    return [*events, over]


@pytest.mark.parametrize(
    ("language", "expected"),
    [
        (
            "en",
            [
                "The bank takes Dan's 1 chip coppered on the king.",
                "Anna's 1 chip on the queen: caught in the split, the bank takes 1 chip.",
                "Ben gets back 1 chip from odd.",
                "the bank has 2001 chips.",
            ],
        ),
        (
            "es",
            [
                "La banca se lleva 1 ficha con copper de Dan del rey.",
                "La apuesta de 1 ficha de Anna a la reina cae en el split: "
                "la banca se lleva 1 ficha.",
                "Ben recupera 1 ficha de impar.",
                "la banca tiene 2001 fichas.",
            ],
        ),
        (
            "ru",
            [
                "Банк забирает 1 фишку копперированной ставки Dan с короля.",
                "Ставка Anna в 1 фишку на даму попала в плие: банк забирает 1 фишку.",
                "Ben получает назад 1 фишку с нечета.",
                "в банке 2001 фишка.",
            ],
        ),
    ],
)
def test_a_count_of_one_agrees_with_its_words(language: str, expected: list[str]) -> None:
    """One chip (and in Russian 21, 2001…) takes a singular verb and article, and in Russian
    the case of its place in the sentence: «банк забирает 1 фишку», «в банке 2001 фишка»."""
    text = " ".join(Narrator(language).explain(counts_of_one()))
    for sentence in expected:
        assert sentence in text


def test_the_exhibit_deals_explains_and_starts_a_new_deck_after_the_hoc() -> None:
    out = io.StringIO()
    pauses: list[float] = []
    stats = run_exhibit(language="en", seed=4, pause=2.5, deals=3, out=out, sleep=pauses.append)
    text = out.getvalue()
    assert stats.deals == 3 and stats.turns == 75
    assert text.count("A new deck.") == 3
    assert text.count("The last card, the hoc, is") == 3
    assert sum(line.startswith("Turn ") for line in text.splitlines()) == 75
    assert pauses == [2.5] * 78  # a pause after every turn, and after each deal's last words


def test_with_the_advisor_on_the_exhibit_says_where_a_bet_costs_least() -> None:
    out = io.StringIO()
    run_exhibit(language="es", seed=4, pause=0, deals=1, out=out, advisor=True)
    advice = [line for line in out.getvalue().splitlines() if line.startswith("El casekeep dice")]
    assert len(advice) == 24  # after each of the 24 turns; the last turn leaves only the hoc
    assert "ventaja de la banca" in advice[0] and " a el " not in advice[0]


def test_the_advisor_points_at_no_rank_where_the_table_takes_only_red_or_black() -> None:
    out = io.StringIO()
    run_exhibit(rules="dutch", pause=0, deals=1, out=out, advisor=True)
    said = out.getvalue()
    assert "on red" in said and "on black" in said
    assert "The casekeep says" not in said
    assert state_snapshot(open_table("dutch").state, advisor=True)["advice"] is None


def test_an_unknown_language_falls_back_to_english_with_a_notice() -> None:
    out = io.StringIO()
    run_exhibit(language="klingon", pause=0, deals=1, out=out)
    first, second = out.getvalue().splitlines()[:2]
    assert "not known here: English instead" in first
    assert second.startswith("A new deck.")


class Visitors:
    """Where the exhibit speaks: counts what it said and keeps none of it."""

    def __init__(self) -> None:
        self.lines = 0

    def write(self, text: str) -> int:
        self.lines += text.count("\n")
        return len(text)

    def flush(self) -> None:
        pass


def resident_memory() -> int:
    """The process's resident memory now (not its peak), in bytes."""
    pages = int(Path("/proc/self/statm").read_text().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE")


def test_three_hundred_deals_in_accelerated_time_with_flat_memory() -> None:
    """Soak: 300 deals in one run, no error; resident memory after the last deal no more
    than 2 MB above what it was after the 100th (a table that kept each deal's events, some
    75 kB, would be 15 MB above; a flat one is not a page above). Measured in bytes, not as
    a share of the process, whose size is that of every test module loaded beside it."""
    visitors = Visitors()
    memory: dict[int, int] = {}

    def measure(stats: ExhibitStats) -> None:
        if stats.deals in (100, 300):
            gc.collect()
            memory[stats.deals] = resident_memory()

    stats = run_exhibit(
        language="ru",
        seed=9,
        pause=0,
        deals=300,
        out=visitors,  # type: ignore[arg-type]
        after_deal=measure,
    )
    assert stats.deals == 300 and stats.turns == 7_500
    assert visitors.lines > 7_500
    assert memory[300] - memory[100] <= 2_000_000, (
        f"memory grew from {memory[100]} to {memory[300]} bytes"
    )


def test_the_exhibit_explains_a_real_shoe_read_by_the_service(tmp_path: Path) -> None:
    """`dealtable run` with [exhibit]: the cards come from a reader (here the dealer's
    keyboard), simulated punters bet between turns, and every turn is explained."""
    config = tmp_path / "museum.toml"
    config.write_text(
        f'[table]\nid = "museum"\njournal = "{tmp_path / "j.sqlite"}"\n'
        '\n[reader]\nkind = "console"\n\n[exhibit]\nlanguage = "es"\n'
    )
    order = list(STANDARD_52.cards)
    random.Random(4).shuffle(order)
    lines = ["shuffle", *(f"card {card}" for card in order)]
    result = subprocess.run(
        [sys.executable, "-m", "table.service.cli", "run", "--config", str(config)],
        input="\n".join(lines) + "\n",
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "Mazo nuevo. La primera carta, la soda," in out
    assert sum(line.startswith("Turno ") for line in out.splitlines()) == 25
    assert "La última carta, el hoc," in out
    assert "La banca se lleva" in out or " gana " in out  # the simulated punters' bets settle


def test_an_exhibit_started_again_mid_deal_still_knows_the_bets_on_the_layout(
    tmp_path: Path,
) -> None:
    """The table stops after bets are down and starts again from its journal: the exhibit
    still says the coppered bet as coppered and the split bet with its whole stake, and says
    nothing of what was dealt before it started."""
    config = Config(
        table=TableConfig(id="museum", journal=str(tmp_path / "j.sqlite")),
        reader=ReaderConfig(kind="console"),
    )
    before = ["punter anna 100", "punter ben 100", "punter dan 100", "shuffle", "card 5S"]
    before += ["bet anna 7 3", "bet ben 7 2 copper", "bet dan K 4"]
    with Journal(config.table.journal, config.table.id) as journal:
        service = TableService(config, journal)
        ExhibitVoice(service, "en", io.StringIO(), punters=False)
        for line in before:
            service.execute_line(line)
    out = io.StringIO()
    with Journal(config.table.journal, config.table.id) as journal:
        service = TableService(config, journal)
        ExhibitVoice(service, "en", out, punters=False)
        assert out.getvalue() == ""
        for line in ("card 7H", "card QD", "card KH", "card KD"):
            service.execute_line(line)
    said = out.getvalue()
    assert "The bank takes Anna's 3 chips on the 7." in said
    assert "Ben's coppered bet on the 7 wins 2 chips." in said
    assert "Dan's 4 chips on the king: caught in the split, the bank takes 2 chips." in said


def test_broke_visitors_make_way_between_deals_at_a_table_run_all_day(tmp_path: Path) -> None:
    """`dealtable run` deals all day: a punter who has gone broke leaves at the end of the
    deal and a new visitor takes the seat with a fresh bankroll, at a simulated table and at
    an exhibit around a real shoe, so that the afternoon's deals still have bets."""
    broke = DEMO_PUNTERS[0]
    for kind in ("simulated", "console"):
        config = Config(
            table=TableConfig(id=kind, journal=str(tmp_path / f"{kind}.sqlite")),
            reader=ReaderConfig(kind=kind, seed=2, cards_per_second=0),
        )
        with Journal(config.table.journal, config.table.id) as journal:
            service = TableService(config, journal)
            simulated = SimulatedTable(service, seed=2)
            service.execute_many([LeaveCmd(broke.name), PunterCmd(broke.name, 1)])
            if kind == "simulated":
                simulated.step()  # the dealer's new deck
            else:
                voice = ExhibitVoice(service, "en", io.StringIO(), punters=True)
                service.execute_line("shuffle")
                service.execute_line("card 5S")
                voice.place_bets()
            assert service.faro.bankrolls[broke.name] == broke.bankroll, kind
            seated = [e for e in journal.events() if isinstance(e, PunterSeated)]
            assert [(e.punter, e.bankroll) for e in seated][-1] == (broke.name, broke.bankroll)


@pytest.mark.parametrize(
    ("language", "pauses", "goes_on"),
    [
        ("en", "The table pauses: it cannot write down what happens.", "The table writes again"),
        ("es", "La mesa se detiene: no puede anotar lo que pasa.", "La mesa vuelve a anotar"),
        ("ru", "Стол остановился: он не может записать", "Стол снова записывает"),
    ],
)
def test_visitors_hear_why_the_table_pauses_when_its_journal_cannot_write(
    tmp_path: Path, language: str, pauses: str, goes_on: str
) -> None:
    """A disk full: nothing moves, and the visitors are told why (the technical reason
    is the staff's, in the log), once, and once more when it deals on."""
    from table.service.journal import JournalError
    from tests.test_service_readers import FullDisk

    config = Config(
        table=TableConfig(id="museum", journal=str(tmp_path / "j.sqlite")),
        reader=ReaderConfig(kind="console"),
    )
    out = io.StringIO()
    with Journal(config.table.journal, config.table.id) as journal:
        service = TableService(config, journal)
        ExhibitVoice(service, language, out, punters=False)
        disk = FullDisk(journal._db)
        journal._db = disk
        for _ in range(2):
            with pytest.raises(JournalError):
                service.execute_line("shuffle")
        assert out.getvalue().count(pauses) == 1
        assert "disk is full" not in out.getvalue()
        disk.full = False
        service.execute_line("shuffle")
    assert out.getvalue().count(goes_on) == 1


@pytest.mark.parametrize(
    ("language", "expected"),
    [
        (
            "en",
            [
                "The dealer calls off the deal: every bet still on the layout goes back.",
                "Anna gets back 2 chips from high card.",
                "Elena gets back 2 chips called on the last turn.",
            ],
        ),
        (
            "es",
            [
                "El crupier anula la mano: cada apuesta que sigue en la mesa vuelve a su dueño.",
                "Anna recupera 2 fichas de la carta alta.",
                "Elena recupera 2 fichas de su apuesta al último turno.",
            ],
        ),
        (
            "ru",
            [
                "Банкомёт отменяет талию: все ставки, что ещё на столе, возвращаются.",
                "Anna получает назад 2 фишки со старшей карты.",
                "Elena получает назад 2 фишки со ставки на последний абцуг.",
            ],
        ),
    ],
)
def test_a_voided_deal_is_told_and_a_call_it_hands_back_is_not_said_to_miss(
    language: str, expected: list[str]
) -> None:
    """Visitors hear why every bet goes back, before the bets go back; a call handed back
    was neither won nor lost, so the bank takes nothing of it."""
    table = open_table(punters={"anna": 100, "elena": 100})
    remaining = [str(card) for card in table.state.casekeep.remaining_cards()]
    events = table.bet("anna", "high", 2)
    events += deal(table, " ".join(card for card in remaining if card not in ("7C", "JD", "3S")))
    events += table.call("elena", ["7", "J", "3"], 2)
    said = Narrator(language).explain(events + table.void_deal())
    assert said[-3:] == expected


@pytest.mark.parametrize(
    ("language", "expected"),
    [
        (
            "en",
            [
                "Turn 1: the 9 (9♦) loses, the 3 (3♣) wins. Anna loses 4 chips in marks on the 9.",
                "Of Anna's loss on marks, the bank takes 2 chips from the bet on the 5.",
            ],
        ),
        (
            "es",
            [
                "Turno 1: pierde el 9 (9♦), gana el 3 (3♣). Anna pierde 4 fichas en marcas "
                "sobre el 9.",
                "De lo perdido por Anna con marcas, la banca se lleva 2 fichas de la apuesta al 5.",
            ],
        ),
        (
            "ru",
            [
                "Абцуг 1: 9 (9♦) проигрывает, 3 (3♣) выигрывает. Anna проигрывает 4 фишки по "
                "маркам на 9.",
                "В счёт проигрыша Anna по маркам банк забирает 2 фишки со ставки на 5.",
            ],
        ),
    ],
)
def test_a_loss_on_marks_is_told_once_and_the_chips_that_pay_it_as_part_of_it(
    language: str, expected: list[str]
) -> None:
    """003: marks are credit, not chips lying on the 9; the chips taken from the 5 pay that
    same loss, so the visitors must not hear that the bank took 4 chips and then 2 more."""
    table = open_table("casino-003", punters={"anna": 10})
    events = table.bet("anna", "5", 8) + table.bet("anna", "9", 4, mark=True)
    events += deal(table, "9D 3C")
    assert Narrator(language).explain(events) == expected
