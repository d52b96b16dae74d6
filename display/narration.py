"""Plain words for what a turn did, in the languages of the rules: English, Spanish, Russian.

>>> narrator = Narrator("en")
>>> # fed the events of a turn, it says e.g.
>>> # "Turn 3: the 7 loses, the queen wins. The bank takes Anna's 3 chips on the 7.
>>> #  Ben's coppered bet on the 7 wins 2 chips."
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import NamedTuple

from display.text import count
from table.cards import Card, Rank
from table.events import (
    AlarmCleared,
    AlarmKind,
    AlarmRaised,
    BankPassed,
    BetPlaced,
    BetSettled,
    BetWithdrawn,
    CardDealt,
    CardRole,
    DealerCorrection,
    DealFinished,
    DealVoided,
    DeckStarted,
    Event,
    Outcome,
    ReaderNotice,
    ReaderNoticeKind,
    TurnCalled,
    TurnClosed,
)

LANGUAGES = ("en", "es", "ru")


def russian_plural(count: int, one: str, few: str, many: str) -> str:
    """The form a Russian noun takes after ``count``: 1 фишка, 2 фишки, 5 фишек, 21 фишка."""
    if count % 10 == 1 and count % 100 != 11:
        return one
    if 2 <= count % 10 <= 4 and not 12 <= count % 100 <= 14:
        return few
    return many


@dataclass(frozen=True)
class Words:
    ranks: dict[Rank, str]
    pairs: dict[Rank, str]  # two cards of a rank, as a split is said
    spots: dict[str, str]
    turn: str
    split_turn: str
    wins: str
    coppered_wins: str
    taken: str
    coppered_taken: str
    split: str
    tie: str
    ties: str  # several punters' standing bets on one spot tied in the same turn
    returned: str
    marks_lost: str  # 003: a bet in betting marks (credit, not chips) loses
    marks_paid: str  # 003: chips on the layout pay part of a loss on betting marks
    call_won: str
    call_lost: str
    call_returned: str  # a call handed back (its deal voided): neither won nor lost
    hoc: str
    soda: str
    deal_over: str
    deal_voided: str  # said before the bets it hands back
    bank: str
    and_word: str
    or_word: str
    # What stops the table, by the alarm's kind (alarm_other for the rest), and its end.
    alarms: dict[AlarmKind, str]
    alarm_other: str
    alarm_waits: str
    alarm_cleared: str
    # A card reader lost and back: the visitors see the dealer deal by hand meanwhile.
    reader_lost: str
    reader_back: str
    # The journal cannot write (a disk full or failing): the table waits, nothing is lost.
    journal_waits: str
    journal_back: str
    bank_passed: str  # 001: the bank passes to the left after each deal
    # The dealer takes back a misread card, or says which card it really was: what it did
    # (told already) is undone, and a corrected card's turn is told again.
    taken_back: str
    corrected: str
    advice: str = ""
    # Beside the advisor's edge where a split takes half: an odd stake loses its odd chip too.
    even_stake: str = ""
    ranks_on: dict[Rank, str] | None = None  # after "on" where the language declines it
    ranks_from: dict[Rank, str] | None = None  # after "from"
    spots_from: dict[str, str] | None = None  # the standing bets' spots after "from"
    # Each rank the advisor offers: Spanish repeats the preposition ("al 6 o a la jota").
    offered: str = "{rank}"

    def chips(self, number: int, language: str, *, nominative: bool = False) -> str:
        """``number`` chips; in Russian as what is taken or won (1 фишку), or ``nominative``
        as what there is (в банке 1 фишка)."""
        if language == "ru":
            one = "фишка" if nominative else "фишку"
            return f"{number} " + russian_plural(number, one, "фишки", "фишек")
        return count(number, "ficha" if language == "es" else "chip")

    def splits(self, number: int, language: str) -> str:
        if language == "ru":
            return f"плие {number}"
        return count(number, "split")


class _TiedSpot(NamedTuple):
    """Where a turn's sentence for the ties on ``spot`` goes among its other sentences."""

    spot: str


def _listing(items: list[str], last_word: str) -> str:
    """``a``, ``a and b``, ``a, b and c``: items joined as a sentence joins them."""
    if len(items) < 2:
        return "".join(items)
    return f"{', '.join(items[:-1])} {last_word} {items[-1]}"


_NUMBERS = {rank: rank.label for rank in Rank}
WORDS: dict[str, Words] = {
    "en": Words(
        ranks={
            **{r: f"the {r.label}" for r in Rank},
            Rank.ACE: "the ace",
            Rank.JACK: "the jack",
            Rank.QUEEN: "the queen",
            Rank.KING: "the king",
        },
        pairs={
            Rank.ACE: "two aces",
            Rank.TWO: "two twos",
            Rank.THREE: "two threes",
            Rank.FOUR: "two fours",
            Rank.FIVE: "two fives",
            Rank.SIX: "two sixes",
            Rank.SEVEN: "two sevens",
            Rank.EIGHT: "two eights",
            Rank.NINE: "two nines",
            Rank.TEN: "two tens",
            Rank.JACK: "two jacks",
            Rank.QUEEN: "two queens",
            Rank.KING: "two kings",
        },
        spots={"high": "high card", "odd": "odd", "even": "even", "red": "red", "black": "black"},
        turn="Turn {turn}: {loser} loses, {winner} wins.",
        split_turn="Turn {turn}: {pair}, a split.",
        and_word="and",
        or_word="or",
        wins="{name}'s bet on {spot} wins {chips}.",
        coppered_wins="{name}'s coppered bet on {spot} wins {chips}.",
        taken="The bank takes {name}'s {chips} on {spot}.",
        coppered_taken="The bank takes {name}'s {chips} coppered on {spot}.",
        split="{name}'s {stake} on {spot}: caught in the split, the bank takes {chips}.",
        tie="{name}'s bet on {spot}: a tie this turn, nothing is paid and it stays.",
        ties="The bets of {names} on {spot}: a tie this turn, nothing is paid and they stay.",
        returned="{name} gets back {chips} from {spot}.",
        marks_lost="{name} loses {chips} in marks on {spot}.",
        marks_paid="Of {name}'s loss on marks, the bank takes {chips} from the bet on {spot}.",
        call_won="{name} called the last turn right and wins {chips}!",
        call_lost="{name}'s call of the last turn misses: the bank takes {chips}.",
        call_returned="{name} gets back {chips} called on the last turn.",
        hoc="The last card, the hoc, is {card}: it does not count.",
        soda="A new deck. The first card, the soda, is {card}: it does not count.",
        deal_over="The deck is done: {splits}; the bank has {bank}.",
        deal_voided="The dealer calls off the deal: every bet still on the layout goes back.",
        alarms={
            AlarmKind.DUPLICATE_CARD: "That card was already dealt.",
            AlarmKind.UNKNOWN_CARD: "That card is not in this deck.",
            AlarmKind.EXTRA_CARD: "A card came out when the box should be empty.",
            AlarmKind.SHORT_DEAL: "The box is empty before the deck is done.",
            AlarmKind.UNREAD_CARD: "A card came out that the reader could not read.",
        },
        alarm_other="Something is wrong at the table.",
        alarm_waits="The table waits for the dealer to set it right.",
        alarm_cleared="The dealer has set it right; the deal goes on.",
        reader_lost="The card reader cannot see the cards; the dealer deals by hand meanwhile.",
        reader_back="The card reader sees the cards again.",
        journal_waits="The table pauses: it cannot write down what happens. Nothing is lost; "
        "it deals on once it can.",
        journal_back="The table writes again and deals on.",
        bank_passed="The bank passes to {name}.",
        taken_back="The dealer takes back the last card, {card}: it was misread, and what it "
        "did is undone.",
        corrected="The dealer corrects the last card: it was {replacement}, not {card}; what "
        "the misread card did is undone.",
        bank="the bank",
        advice="The casekeep says: a bet costs least now on {ranks} (the bank's edge {edge}).",
        even_stake="{edge} on an even number of chips",
    ),
    "es": Words(
        ranks={
            **{r: f"el {r.label}" for r in Rank},
            Rank.ACE: "el as",
            Rank.JACK: "la jota",
            Rank.QUEEN: "la reina",
            Rank.KING: "el rey",
        },
        pairs={
            Rank.ACE: "dos ases",
            Rank.TWO: "dos doses",
            Rank.THREE: "dos treses",
            Rank.FOUR: "dos cuatros",
            Rank.FIVE: "dos cincos",
            Rank.SIX: "dos seises",
            Rank.SEVEN: "dos sietes",
            Rank.EIGHT: "dos ochos",
            Rank.NINE: "dos nueves",
            Rank.TEN: "dos dieces",
            Rank.JACK: "dos jotas",
            Rank.QUEEN: "dos reinas",
            Rank.KING: "dos reyes",
        },
        spots={
            "high": "la carta alta",
            "odd": "impar",
            "even": "par",
            "red": "rojo",
            "black": "negro",
        },
        turn="Turno {turn}: pierde {loser}, gana {winner}.",
        split_turn="Turno {turn}: {pair}, un split.",
        and_word="y",
        or_word="o",
        wins="La apuesta de {name} a {spot} gana {chips}.",
        coppered_wins="La apuesta con copper de {name} a {spot} gana {chips}.",
        taken="La banca se lleva {chips} de {name} de {spot}.",
        coppered_taken="La banca se lleva {chips} con copper de {name} de {spot}.",
        split="La apuesta de {stake} de {name} a {spot} cae en el split: "
        "la banca se lleva {chips}.",
        tie="La apuesta de {name} a {spot}: empate en este turno, no se paga y sigue.",
        ties="Las apuestas de {names} a {spot}: empate en este turno, no se pagan y siguen.",
        returned="{name} recupera {chips} de {spot}.",
        marks_lost="{name} pierde {chips} en marcas sobre {spot}.",
        marks_paid="De lo perdido por {name} con marcas, la banca se lleva {chips} de la apuesta "
        "a {spot}.",
        call_won="¡{name} acertó el último turno y gana {chips}!",
        call_lost="{name} no acertó el último turno: la banca se lleva {chips}.",
        call_returned="{name} recupera {chips} de su apuesta al último turno.",
        hoc="La última carta, el hoc, es {card}: no cuenta.",
        soda="Mazo nuevo. La primera carta, la soda, es {card}: no cuenta.",
        deal_over="Mazo terminado: {splits}; la banca tiene {bank}.",
        deal_voided="El crupier anula la mano: cada apuesta que sigue en la mesa vuelve a su "
        "dueño.",
        alarms={
            AlarmKind.DUPLICATE_CARD: "Esa carta ya había salido.",
            AlarmKind.UNKNOWN_CARD: "Esa carta no es de esta baraja.",
            AlarmKind.EXTRA_CARD: "Ha salido una carta cuando la caja debía estar vacía.",
            AlarmKind.SHORT_DEAL: "La caja se ha vaciado antes de terminar el mazo.",
            AlarmKind.UNREAD_CARD: "Ha salido una carta que el lector no ha podido leer.",
        },
        alarm_other="Algo no va bien en la mesa.",
        alarm_waits="La mesa espera a que el crupier lo corrija.",
        alarm_cleared="El crupier lo ha corregido; la mano sigue.",
        reader_lost="El lector no ve las cartas; mientras tanto, el crupier reparte a mano.",
        reader_back="El lector vuelve a ver las cartas.",
        journal_waits="La mesa se detiene: no puede anotar lo que pasa. No se pierde nada; "
        "sigue en cuanto pueda.",
        journal_back="La mesa vuelve a anotar y sigue.",
        bank_passed="La banca pasa a {name}.",
        taken_back="El crupier retira la última carta, {card}: se leyó mal y lo que hizo "
        "queda anulado.",
        corrected="El crupier corrige la última carta: era {replacement}, no {card}; lo que "
        "hizo la carta mal leída queda anulado.",
        bank="la banca",
        offered="a {rank}",
        advice="El casekeep dice: ahora lo más barato es apostar {ranks} "
        "(ventaja de la banca {edge}).",
        even_stake="{edge} con un número par de fichas",
    ),
    "ru": Words(
        ranks={
            **_NUMBERS,
            Rank.ACE: "туз",
            Rank.JACK: "валет",
            Rank.QUEEN: "дама",
            Rank.KING: "король",
        },
        # A card of a number is a двойка … десятка: feminine, as is the queen.
        pairs={
            Rank.ACE: "два туза",
            Rank.TWO: "две двойки",
            Rank.THREE: "две тройки",
            Rank.FOUR: "две четвёрки",
            Rank.FIVE: "две пятёрки",
            Rank.SIX: "две шестёрки",
            Rank.SEVEN: "две семёрки",
            Rank.EIGHT: "две восьмёрки",
            Rank.NINE: "две девятки",
            Rank.TEN: "две десятки",
            Rank.JACK: "два валета",
            Rank.QUEEN: "две дамы",
            Rank.KING: "два короля",
        },
        spots={
            "high": "старшую карту",
            "odd": "нечет",
            "even": "чет",
            "red": "красное",
            "black": "чёрное",
        },
        turn="Абцуг {turn}: {loser} проигрывает, {winner} выигрывает.",
        split_turn="Абцуг {turn}: {pair}, плие.",
        and_word="и",
        or_word="или",
        wins="Ставка {name} на {spot} выигрывает {chips}.",
        coppered_wins="Копперированная ставка {name} на {spot} выигрывает {chips}.",
        # «с» becomes «со» where the word after it asks for it (_RUSSIAN_WITH).
        taken="Банк забирает {chips} {name} с {spot}.",
        coppered_taken="Банк забирает {chips} копперированной ставки {name} с {spot}.",
        split="Ставка {name} в {stake} на {spot} попала в плие: банк забирает {chips}.",
        tie="Ставка {name} на {spot}: в этом абцуге ничья, платежа нет, ставка остаётся.",
        ties="Ставки {names} на {spot}: в этом абцуге ничья, платежа нет, ставки остаются.",
        returned="{name} получает назад {chips} с {spot}.",
        marks_lost="{name} проигрывает {chips} по маркам на {spot}.",
        marks_paid="В счёт проигрыша {name} по маркам банк забирает {chips} со ставки на {spot}.",
        # A punter's name says nothing of whether a man or a woman called: the bet is the
        # subject, so no past tense has to choose a gender.
        call_won="Ставка {name} на последний абцуг сыграла и выигрывает {chips}!",
        call_lost="Ставка {name} на последний абцуг не сыграла: банк забирает {chips}.",
        call_returned="{name} получает назад {chips} со ставки на последний абцуг.",
        hoc="Последняя карта, гок, — {card}: она не в счёт.",
        soda="Новая колода. Первая карта, сода, — {card}: она не в счёт.",
        deal_over="Колода сдана: {splits}; в банке {bank}.",
        deal_voided="Банкомёт отменяет талию: все ставки, что ещё на столе, возвращаются.",
        alarms={
            AlarmKind.DUPLICATE_CARD: "Эта карта уже выходила.",
            AlarmKind.UNKNOWN_CARD: "Такой карты нет в этой колоде.",
            AlarmKind.EXTRA_CARD: "Вышла карта, когда ящик должен быть пуст.",
            AlarmKind.SHORT_DEAL: "Ящик опустел, а колода ещё не сдана.",
            AlarmKind.UNREAD_CARD: "Вышла карта, которую считыватель не смог прочитать.",
        },
        alarm_other="За столом что-то не так.",
        alarm_waits="Стол ждёт, пока банкомёт всё исправит.",
        alarm_cleared="Банкомёт всё исправил; талия продолжается.",
        reader_lost="Считыватель не видит карт; пока банкомёт мечет вручную.",
        reader_back="Считыватель снова видит карты.",
        journal_waits="Стол остановился: он не может записать, что происходит. Ничего не "
        "потеряно; игра продолжится, как только запись станет возможной.",
        journal_back="Стол снова записывает и продолжает игру.",
        bank_passed="Банк теперь держит {name}.",
        taken_back="Банкомёт снимает последнюю карту, {card}: её прочли неверно, и всё, что "
        "она решила, отменено.",
        corrected="Банкомёт исправляет последнюю карту: это {replacement}, а не {card}; всё, "
        "что решила неверно прочитанная карта, отменено.",
        bank="банк",
        advice="Кейскипер подсказывает: дешевле всего сейчас ставить на {ranks} "
        "(преимущество банка {edge}).",
        even_stake="{edge} при чётном числе фишек",
        ranks_on={
            **_NUMBERS,
            Rank.ACE: "туза",
            Rank.JACK: "валета",
            Rank.QUEEN: "даму",
            Rank.KING: "короля",
        },
        ranks_from={
            **_NUMBERS,
            Rank.ACE: "туза",
            Rank.JACK: "валета",
            Rank.QUEEN: "дамы",
            Rank.KING: "короля",
        },
        spots_from={
            "high": "старшей карты",
            "odd": "нечета",
            "even": "чета",
            "red": "красного",
            "black": "чёрного",
        },
    ),
}

_RUSSIAN_CONSONANTS = "бвгджзйклмнпрстфхцчшщ"
# «с» before a word that begins with с, з, ш or ж and another consonant: said «со» (со старшей
# карты), as «с» alone would run into the cluster; before anything else it stays «с» (с туза).
_RUSSIAN_WITH = re.compile(rf"(?<!\w)с (?=[сзшж][{_RUSSIAN_CONSONANTS}])")


def language_or_english(language: str | None) -> tuple[str, bool]:
    """The language to speak, and whether the one asked for was unknown (English instead)."""
    if language in WORDS:
        return language, False
    return "en", language is not None


class Narrator:
    """Turns a table's events into sentences; remembers what each bet was to say it well."""

    def __init__(self, language: str = "en") -> None:
        self.language, _ = language_or_english(language)
        self.words = WORDS[self.language]
        self._coppered: dict[int, bool] = {}
        self._marks: set[int] = set()  # the bets in betting marks (003)
        self._stakes: dict[int, int] = {}
        # What was known of the bets before each card of the deal: a card taken back takes
        # back what its settlements taught.
        self._before_cards: list[tuple[dict[int, bool], dict[int, int]]] = []

    def _spot(
        self,
        spot: str,
        case: dict[Rank, str] | None = None,
        spots_case: dict[str, str] | None = None,
    ) -> str:
        """``spot`` in words: its ranks, or its standing spot, in the case the sentence takes."""
        standing = spots_case or self.words.spots
        if spot in standing:
            return standing[spot]
        names = case or self.words.ranks
        if ">" in spot:
            win, lose = spot.split(">")
            return f"{names[Rank.parse(win)]} > {names[Rank.parse(lose)]}"
        ranks = [names[Rank.parse(part)] for part in spot.split("+")]
        return _listing(ranks, self.words.and_word)

    def _card(self, card: Card) -> str:
        return f"{self.words.ranks[card.rank]} ({card.pretty})"

    def explain(self, events: Iterable[Event]) -> list[str]:
        """Sentences for these events (a turn, a new deck, the end of the deal)."""
        return [self._finish(line) for line in self._explain(events)]

    def _finish(self, line: str) -> str:
        if self.language == "es":
            # Spanish contracts "a el" and "de el".
            line = line.replace(" a el ", " al ").replace(" de el ", " del ")
        elif self.language == "ru":
            line = _RUSSIAN_WITH.sub("со ", line)
        return line[0].upper() + line[1:] if line else line

    def _explain(self, events: Iterable[Event]) -> list[str]:
        words = self.words
        chips = words.chips
        lines: list[str] = []
        # A turn's sentences in order; a tie on a spot stands where its first punter's
        # would, and says every punter whose bet on that spot tied with it.
        settled: list[str | _TiedSpot] = []
        tied: dict[str, list[str]] = {}

        def said() -> list[str]:
            sentences = [
                self._ties(item.spot, tied[item.spot]) if isinstance(item, _TiedSpot) else item
                for item in settled
            ]
            settled.clear()
            tied.clear()
            return sentences

        for event in events:
            if isinstance(event, CardDealt) and event.role is CardRole.SODA:
                lines.append(words.soda.format(card=self._card(event.card)))
            elif isinstance(event, CardDealt) and event.role is CardRole.HOC:
                lines.append(words.hoc.format(card=self._card(event.card)))
            elif isinstance(event, BetSettled):
                if event.outcome is Outcome.SPLIT and event.net == 0 and event.spot != "call":
                    if event.spot not in tied:
                        tied[event.spot] = []
                        settled.append(_TiedSpot(event.spot))
                    tied[event.spot].append(event.punter.capitalize())
                else:
                    settled.append(self._settlement(event))
            elif isinstance(event, TurnClosed):
                if event.split:
                    head = words.split_turn.format(
                        turn=event.turn, pair=words.pairs[event.loser.rank]
                    )
                else:
                    head = words.turn.format(
                        turn=event.turn,
                        loser=self._card(event.loser),
                        winner=self._card(event.winner),
                    )
                lines.append(" ".join([head, *said()]))
            elif isinstance(event, DealFinished):
                lines.extend(said())
                lines.append(
                    words.deal_over.format(
                        splits=words.splits(event.splits, self.language),
                        bank=chips(event.bank, self.language, nominative=True),
                    )
                )
            elif isinstance(event, DealVoided):
                # The bets it hands back came just before it: the reason goes first.
                lines.append(words.deal_voided)
                lines.extend(said())
            elif isinstance(event, AlarmRaised):
                lines.extend(said())
                what = words.alarms.get(event.kind, words.alarm_other)
                lines.append(f"{what} {words.alarm_waits}")
            elif isinstance(event, AlarmCleared):
                lines.append(words.alarm_cleared)
            elif isinstance(event, ReaderNotice):
                if event.notice is ReaderNoticeKind.READER_LOST:
                    lines.append(words.reader_lost)
                elif event.notice is ReaderNoticeKind.READER_BACK:
                    lines.append(words.reader_back)
            elif isinstance(event, BankPassed):
                lines.append(words.bank_passed.format(name=event.to_banker.capitalize()))
            elif isinstance(event, DealerCorrection) and event.undone:
                lines.extend(said())
                if event.replacement is None:
                    lines.append(words.taken_back.format(card=self._card(event.card)))
                else:
                    lines.append(
                        words.corrected.format(
                            card=self._card(event.card), replacement=self._card(event.replacement)
                        )
                    )
            # After its sentence: a settlement is said with the stake the bet had before it.
            self._remember(event)
        lines.extend(said())
        return lines

    def remember(self, events: Iterable[Event]) -> None:
        """Learn the bets these events put down, saying nothing: a narrator that starts in
        the middle of a deal (the table resumed from its journal) is given the deal so far,
        or it would say a coppered bet as a plain one and a split with half its stake."""
        for event in events:
            self._remember(event)

    def _remember(self, event: Event) -> None:
        if isinstance(event, CardDealt):
            self._before_cards.append((dict(self._coppered), dict(self._stakes)))
        elif isinstance(event, DealerCorrection) and event.undone and self._before_cards:
            self._coppered, self._stakes = self._before_cards.pop()
        elif isinstance(event, BetPlaced):
            self._coppered[event.bet] = event.coppered
            self._stakes[event.bet] = event.stake
            if event.mark:
                self._marks.add(event.bet)
        elif isinstance(event, BetWithdrawn | BetSettled):
            self._stakes[event.bet] = event.stake
        elif isinstance(event, TurnCalled):
            self._coppered[event.bet] = False
            self._stakes[event.bet] = event.amount
        elif isinstance(event, DeckStarted):
            self._coppered.clear()
            self._stakes.clear()
            self._marks.clear()
            self._before_cards.clear()

    def _ties(self, spot: str, names: list[str]) -> str:
        words = self.words
        where = self._spot(spot, words.ranks_on)
        if len(names) == 1:
            return words.tie.format(name=names[0], spot=where)
        return words.ties.format(names=_listing(names, words.and_word), spot=where)

    def journal(self, trouble: str) -> str:
        """Why the table pauses, or that it deals on: ``trouble`` is the journal's, "" once
        it writes again (the technical reason is the staff's, in the log)."""
        return self.words.journal_waits if trouble else self.words.journal_back

    def advise(self, ranks: Iterable[Rank], edge_percent: str, *, even_stake: bool = False) -> str:
        """The advisor's sentence: where a bet costs the punter least right now; its edge
        holds for an ``even_stake`` only where a split takes half (the bank takes an odd
        stake's odd chip too)."""
        names = self.words.ranks_on or self.words.ranks
        # Each rank named is a bet of its own: the listing offers a choice.
        offered = [self.words.offered.format(rank=names[rank]) for rank in ranks]
        listed = _listing(offered, self.words.or_word)
        edge = self.words.even_stake.format(edge=edge_percent) if even_stake else edge_percent
        return self._finish(self.words.advice.format(ranks=listed, edge=edge))

    def _settlement(self, event: BetSettled) -> str:
        words = self.words
        name = event.punter.capitalize()
        coppered = self._coppered.get(event.bet, False)
        amount = abs(event.net)
        chips = words.chips(amount, self.language)
        if event.spot == "call":
            if event.outcome is Outcome.RETURNED:
                returned = self._stakes.get(event.bet, amount)
                return words.call_returned.format(
                    name=name, chips=words.chips(returned, self.language)
                )
            template = words.call_won if event.net > 0 else words.call_lost
            return template.format(name=name, chips=chips)
        spot = self._spot(event.spot, words.ranks_on)
        spot_from = self._spot(event.spot, words.ranks_from, words.spots_from)
        outcome = event.outcome.value
        if outcome == "win":
            template = words.coppered_wins if coppered else words.wins
            return template.format(name=name, spot=spot, chips=chips)
        if outcome == "lose" and event.bet in self._marks:
            return words.marks_lost.format(name=name, spot=spot, chips=chips)
        if outcome == "lose":
            template = words.coppered_taken if coppered else words.taken
            return template.format(name=name, spot=spot_from, chips=chips)
        if outcome == "split" and event.net == 0:
            return words.tie.format(name=name, spot=spot)
        stake = self._stakes.get(event.bet, amount)
        if outcome == "taken":
            return words.marks_paid.format(
                name=name, spot=spot, chips=words.chips(stake - event.stake, self.language)
            )
        if outcome == "split":
            return words.split.format(
                name=name, spot=spot, stake=words.chips(stake, self.language), chips=chips
            )
        return words.returned.format(
            name=name, spot=spot_from, chips=words.chips(stake, self.language)
        )
