"""The baccarat engine: Punto Banco, Mini-Baccarat, Chemin de Fer, Banque and Macao.

A pure state machine fed cards in shoe order and the table's commands, built like the
Faro engine: every public method validates first and raises a
:class:`~table.errors.TableError` naming what was refused and why, with the state
untouched; otherwise it returns the events that record what happened, and the state
changes only by folding them (:meth:`BaccaratState.apply`), so a replay of the events
rebuilds the state exactly.

At every moment :meth:`BaccaratState.next_card` says which hand the next card goes to and
whether the tableau makes the draw mandatory, leaves a choice or forbids it. A choice is
known from what comes next: a card out of the shoe (the hand drew) or a ``stand`` line.
"""

from __future__ import annotations

import contextlib
import enum
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from table.baccarat.rules import BaccaratRules, Family, find_rules, hundredths_text
from table.baccarat.shoe import burn_count
from table.baccarat.tableau import (
    POINTS,
    Draw,
    Verdict,
    banker_draws,
    player_draws,
    representative_rule,
)
from table.cards import Card, Rank
from table.dealer import Alarm, DealerDesk, TableFolds, check_amount, check_name, last_card_index
from table.errors import BetRefusedError, CardParseError, IllegalCommandError, RulesError
from table.events import (
    AlarmCleared,
    AlarmKind,
    AlarmRaised,
    BankAnnounced,
    BankerChosen,
    BankFunded,
    BankPassed,
    BetPlaced,
    BetSettled,
    BetsLocked,
    BetWithdrawn,
    CardDealt,
    CardRole,
    CommissionTaken,
    CoupFinished,
    CoupResult,
    CutCardOut,
    DealerCorrection,
    DealVoided,
    Event,
    HandShown,
    Outcome,
    PunterLeft,
    PunterSeated,
    ReaderNotice,
    RulesChosen,
    ShoeFinished,
    ShoeStarted,
    ThirdCardChoice,
)
from table.text import ascii_lower

GAMES = ("punto-banco", "mini-baccarat", "chemin-de-fer", "banque", "macao")
HOUSE = "house"


class Phase(enum.Enum):
    NO_SHOE = "no-shoe"
    BURNING = "burning"
    BETTING = "betting"
    DEALING = "dealing"


class Geometry(NamedTuple):
    """The hands of a game, the order of the first cards, and who may take a third."""

    hands: tuple[str, ...]
    roles: tuple[CardRole, ...]
    plan: tuple[int, ...]
    actors: tuple[int, ...]


_TWO_HANDS = Geometry(
    ("player", "banker"), (CardRole.PLAYER, CardRole.BANKER), (0, 1, 0, 1), (0, 1)
)
GEOMETRY: dict[Family, Geometry] = {
    # 004: first and third card to the player, second and fourth to the banker.
    Family.PUNTO_BANCO: _TWO_HANDS,
    Family.CHEMIN_DE_FER: _TWO_HANDS,
    # 002, Baccarat Banque: two player hands; dealt right, left, banker, twice.
    Family.BANQUE: Geometry(
        ("right", "left", "banker"),
        (CardRole.RIGHT, CardRole.LEFT, CardRole.BANKER),
        (0, 1, 2, 0, 1, 2),
        (0, 1, 2),
    ),
    # 002, Macao: one card each, no third card.
    Family.MACAO: Geometry(("player", "banker"), (CardRole.PLAYER, CardRole.BANKER), (0, 1), ()),
}

# The spots of each family, with the words a dealer may use for them.
_SPOTS: dict[Family, dict[str, str]] = {
    Family.PUNTO_BANCO: {
        "player": "player",
        "punto": "player",
        "p": "player",
        "banker": "banker",
        "banca": "banker",
        "b": "banker",
        "tie": "tie",
        "empate": "tie",
        "egalite": "tie",
        "t": "tie",
        "player-pair": "player-pair",
        "ppair": "player-pair",
        "pp": "player-pair",
        "banker-pair": "banker-pair",
        "bpair": "banker-pair",
        "bp": "banker-pair",
    },
    Family.CHEMIN_DE_FER: {"player": "player", "punto": "player", "p": "player"},
    Family.BANQUE: {"right": "right", "droite": "right", "left": "left", "gauche": "left"},
    Family.MACAO: {"player": "player", "punto": "player", "p": "player"},
}


def _is_faro_spot(spot: str) -> bool:
    """A rank, a group such as 4+5, a pair such as J>K, or one of Faro's standing bets."""
    cleaned = ascii_lower(spot.strip())
    if cleaned in ("high", "odd", "even", "red", "black", "call"):
        return True
    try:
        for part in cleaned.replace(">", "+").split("+"):
            Rank.parse(part)
    except CardParseError:
        return False
    return True


class Bet(NamedTuple):
    bet_id: int
    punter: str
    spot: str
    stake: int


NO_DRAW = Verdict(Draw.MUST_NOT)
MUST_DRAW = Verdict(Draw.MUST)
MAY_DRAW = Verdict(Draw.MAY, True)
MAY_STAND = Verdict(Draw.MAY, False)


class NextCard(NamedTuple):
    """Where the next card goes: ``hand`` (None: no card is expected) and the tableau's
    word on it; ``advice`` is the table's answer where the hand may choose."""

    hand: str | None
    draw: Draw
    advice: bool | None = None


# Where a punter may call banco (002): Chemin de Fer, and Macao played as it is.
_BANCO = (Family.CHEMIN_DE_FER, Family.MACAO)

# Where the players hold their cards face down and say "non" to a third card (002).
_SAY_NO = (Family.CHEMIN_DE_FER, Family.BANQUE)

# What every card and every event between coups asks, read from module globals: Python
# 3.11 reads an enum class's member through the hook its metaclass's __getattr__ installs,
# some ten times a global's cost, which came to a ninth of a Punto Banco coup's work.
_IN_PLAY = (Phase.DEALING, Phase.BURNING)
_BURNING = Phase.BURNING
_DEALING = Phase.DEALING
_BURN = CardRole.BURN
_MAY = Draw.MAY
_MUST_NOT = Draw.MUST_NOT
_PUNTO_BANCO = Family.PUNTO_BANCO

# Events that follow a card as its consequences: a card may be voided while only these
# came after it. A stand is someone's decision, so it is not one of them.
_CONSEQUENCES = (
    BetSettled,
    CoupResult,
    CoupFinished,
    CommissionTaken,
    CutCardOut,
    ShoeFinished,
    BankPassed,
    AlarmRaised,
    AlarmCleared,
    HandShown,
)


@dataclass(eq=True)
class BaccaratState(TableFolds):
    """Everything a baccarat table knows. Change it only through :meth:`apply`."""

    game_title = "baccarat"
    unit = "coup"

    table: str
    game: str
    rules: BaccaratRules
    rules_options: dict[str, str] = field(default_factory=dict)
    phase: Phase = Phase.NO_SHOE
    coup: int = 0
    shoe: int = 0
    cards_out: int = 0
    cut_out: bool = False
    coups_in_shoe: int = 0
    seen: dict[int, int] = field(default_factory=dict)  # copies out, by card_key()
    burn_left: int = 0  # -1: the card that sets the burn is next
    hands: list[list[Card]] = field(default_factory=list)
    dealt: int = 0  # cards dealt to the hands of the coup in play
    actor: int = 0
    pending: int = -1  # the hand the next card goes to; -1: none
    verdict: Verdict = NO_DRAW
    choices: dict[str, bool] = field(default_factory=dict)
    bets: dict[int, Bet] = field(default_factory=dict)
    stacks: dict[tuple[str, str], int] = field(default_factory=dict)
    committed: dict[str, int] = field(default_factory=dict)
    # Commission noted and not yet taken, in hundredths of a chip, by who owes it: less
    # than a chip each, as whole chips go to the house as they fall due.
    commission_box: dict[str, int] = field(default_factory=dict)
    spot_totals: dict[str, int] = field(default_factory=dict)
    # What a tied coup left standing for the next (002), by bet: a stake added since may
    # still come back.
    tied: dict[int, int] = field(default_factory=dict)
    bank: int = 0
    house: int = 0
    bankrolls: dict[str, int] = field(default_factory=dict)
    seats: list[str] = field(default_factory=list)
    banker: str | None = None
    next_bet_id: int = 1
    next_alarm_id: int = 1
    alarm: Alarm | None = None
    readers_lost: dict[str, str] = field(default_factory=dict)
    coup_over: bool = False
    deviations: int = 0
    last_result: CoupResult | None = None
    last_seq: int = 0
    # The shoe so far, for voiding a card: the state when it was loaded, then every event
    # since. A correction replays the shoe without the card (a few milliseconds); a
    # checkpoint per coup would cost every coup a copy of the state instead. A continuous
    # shuffler's shoe never ends: there the checkpoint is taken as each coup's bets lock.
    checkpoint: BaccaratState | None = field(default=None, repr=False, compare=False)
    since_checkpoint: list[Event] = field(default_factory=list, repr=False, compare=False)
    geometry: Geometry = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self.geometry = GEOMETRY[self.rules.family]

    # --- reading the state ----------------------------------------------------------------

    @property
    def family(self) -> Family:
        return self.rules.family

    @property
    def bets_open(self) -> bool:
        return self.phase is Phase.BETTING and self.alarm is None

    @property
    def coup_in_play(self) -> bool:
        """A coup's bets are locked and it is not over: its cards are being dealt, or it
        waits for the burn of a shoe loaded to finish it."""
        return self.pending >= 0 and self.phase in _IN_PLAY

    @property
    def awaits_a_no(self) -> bool:
        """The hand next in turn is held face down and the tableau makes it stand: its
        stand is told at its holder's "non", which the dealer keys as ``stand``, or as play
        moves past it (:meth:`_find_next`)."""
        return self.pending >= 0 and self.verdict.draw is Draw.MUST_NOT

    @property
    def shown_hands(self) -> list[list[Card | None]]:
        """Each hand's cards as the players at the table see them, None for one face down.
        Where players hold the cards (Chemin de Fer, Banque, Macao) a hand's first two are
        dealt face down and decided on unseen (002), until the coup is over or a natural is
        shown; a third card is dealt face up. Punto Banco's hands decide nothing: all shown."""
        if self.rules.family is Family.PUNTO_BANCO or not self.coup_in_play:
            return [list(hand) for hand in self.hands]
        first_cards_out = all(len(hand) >= 2 for hand in self.hands)
        return [
            [
                card if index >= 2 or (first_cards_out and _two_card_total(hand) >= 8) else None
                for index, card in enumerate(hand)
            ]
            for hand in self.hands
        ]

    @property
    def carried(self) -> bool:
        """Stakes a tied coup left stand for the next coup."""
        return bool(self.tied)

    @property
    def staked(self) -> int:
        """Chips on the layout."""
        return sum(self.spot_totals.values())

    @property
    def banco(self) -> str | None:
        """Who called banco, if anyone: the bank's sole opponent this coup."""
        for bet in self.bets.values():
            if bet.spot == "banco":
                return bet.punter
        return None

    @property
    def bank_at_risk(self) -> int:
        """What the punters may fade: the bank, less the chip that will settle the commission
        noted against its banker. The box is paid from the bank when it passes or the shoe
        ends, so that chip is never lost to a punter and the house always gets its due."""
        if self.bank and self.banker in self.commission_box:
            return self.bank - 1
        return self.bank

    def available(self, punter: str) -> int:
        """Chips a punter may stake: not on the layout, and not the chip that will settle
        the commission noted against them."""
        in_hand = self.bankrolls.get(punter, 0) - self.committed.get(punter, 0)
        return in_hand - 1 if punter in self.commission_box else in_hand

    def hand(self, name: str) -> list[Card]:
        return self.hands[self.geometry.hands.index(name)] if self.hands else []

    def total_chips(self) -> int:
        """Every bankroll, the house bank and the house's commission: constant."""
        total = sum(self.bankrolls.values()) + self.house
        return total + self.bank if self.rules.house_banks else total

    def next_card(self) -> NextCard:
        """Which hand the next card goes to and whether the tableau makes it a must. A hand
        held face down that the tableau makes stand is next with ``MUST_NOT`` until its
        stand is told (:attr:`awaits_a_no`)."""
        if self.alarm is not None or self.phase is Phase.NO_SHOE:
            return NextCard(None, Draw.MUST_NOT)
        if self.phase is Phase.BURNING:
            return NextCard("burn", Draw.MUST)
        if self.phase is Phase.BETTING or self.pending < 0:
            return NextCard(None, Draw.MUST_NOT)
        return NextCard(self.geometry.hands[self.pending], *self.verdict)

    def holder(self, hand: str) -> str:
        """Who holds a side's cards: the banker (the house in Punto Banco), the banco
        caller, or the largest stake on the side (002); among equal stakes the first in
        turn, counter-clockwise from the banker."""
        if hand == "banker":
            return self.banker or HOUSE
        if self.rules.house_banks:
            return HOUSE
        seats = self.seats
        start = seats.index(self.banker) + 1 if self.banker in seats else 0

        def turn(punter: str) -> int:
            return (seats.index(punter) - start) % len(seats) if punter in seats else 0

        stakes = [
            bet
            for bet in self.bets.values()
            if bet.spot == hand or (bet.spot == "banco" and hand == "player")
        ]
        if not stakes:
            return ""
        return min(stakes, key=lambda bet: (-bet.stake, turn(bet.punter))).punter

    def no_shoe(self) -> str:
        """Why no shoe deals, for a refusal: none has gone in yet, or the last is finished."""
        return "no shoe is in play yet" if self.shoe == 0 else f"shoe {self.shoe} is finished"

    def where(self) -> str:
        if self.phase is Phase.NO_SHOE:
            return "with no shoe in play" if self.shoe == 0 else f"after shoe {self.shoe}"
        if self.phase is Phase.BURNING:
            return f"while shoe {self.shoe} is burned"
        if self.phase is Phase.BETTING:
            return f"before coup {self.coup + 1}"
        return f"during coup {self.coup}"

    def copy(self) -> BaccaratState:
        twin: BaccaratState = object.__new__(BaccaratState)
        twin.__dict__.update(self.__dict__)
        twin.rules_options = dict(self.rules_options)
        twin.seen = dict(self.seen)
        twin.hands = [list(hand) for hand in self.hands]
        twin.choices = dict(self.choices)
        twin.bets = dict(self.bets)
        twin.stacks = dict(self.stacks)
        twin.committed = dict(self.committed)
        twin.commission_box = dict(self.commission_box)
        twin.spot_totals = dict(self.spot_totals)
        twin.tied = dict(self.tied)
        twin.bankrolls = dict(self.bankrolls)
        twin.readers_lost = dict(self.readers_lost)
        twin.seats = list(self.seats)
        twin.since_checkpoint = list(self.since_checkpoint)
        return twin

    # --- the tableau ----------------------------------------------------------------------

    def _verdict(self, index: int) -> Verdict:
        hands = self.hands
        cards = hands[index]
        two = (POINTS[cards[0].rank] + POINTS[cards[1].rank]) % 10
        family = self.rules.family
        banker_index = len(hands) - 1
        if index != banker_index:
            if family is _PUNTO_BANCO:
                return MUST_DRAW if player_draws(two) else NO_DRAW
            if two >= 8:  # Banque: a natural hand is shown at once and takes no card
                return NO_DRAW
            return representative_rule(two, strict_five=self.rules.strict_five)
        third = None
        for hand in hands[:banker_index]:
            if len(hand) == 3:
                third = hand[2]
                break
        draws = banker_draws(two, third)
        if family is _PUNTO_BANCO or not self.rules.banker_discretion:
            return MUST_DRAW if draws else NO_DRAW
        return MAY_DRAW if draws else MAY_STAND

    def _coup_ends_on_naturals(self) -> bool:
        hands = self.hands
        if self.rules.family is Family.MACAO:
            return True
        totals = [(POINTS[h[0].rank] + POINTS[h[1].rank]) % 10 for h in hands]
        if totals[-1] >= 8:
            return True
        players = totals[:-1]
        if self.rules.family is Family.BANQUE:
            return all(value >= 8 for value in players)
        return players[0] >= 8

    def _find_next(self) -> None:
        """After a card or a stand: which hand takes the next card, if any."""
        plan = self.geometry.plan
        dealt = self.dealt
        if dealt < len(plan):
            self.pending = plan[dealt]
            self.verdict = MUST_DRAW
            return
        if dealt == len(plan) and self.actor == 0 and self._coup_ends_on_naturals():
            self.actor = len(self.geometry.actors)
        actors = self.geometry.actors
        while self.actor < len(actors):
            index = actors[self.actor]
            cards = self.hands[index]
            if len(cards) < 3:
                verdict = self._verdict(index)
                if verdict.draw is not _MUST_NOT:
                    self.pending = index
                    self.verdict = verdict
                    return
                # 002: a player holding his cards face down says "non" on 6 or 7 as on
                # 5, when his turn comes: the stand is told then, not at the card that
                # made it forced, whose time would tell the room it was no choice.
                if (
                    index != len(self.hands) - 1
                    and self.rules.family in _SAY_NO
                    and _two_card_total(cards) < 8
                ):
                    self.pending = index
                    self.verdict = NO_DRAW
                    return
            self.actor += 1
        self.pending = -1
        self.verdict = NO_DRAW

    def _pass_the_noes(self) -> None:
        """Play moves past the hands waiting to say "non" (:attr:`awaits_a_no`)."""
        while self.awaits_a_no:
            self.actor += 1
            self._find_next()

    def _taker(self) -> int:
        """The hand the next card goes to, past the hands waiting to say "non"; -1: none."""
        if not self.awaits_a_no:
            return self.pending
        actors = self.geometry.actors
        for index in actors[self.actor + 1 :]:
            if len(self.hands[index]) < 3 and self._verdict(index).draw is not Draw.MUST_NOT:
                return index
        return -1

    # --- the fold -------------------------------------------------------------------------

    def _fold_rules(self, event: RulesChosen) -> None:
        self.game = event.game
        self.rules = find_rules(event.game, event.rules, event.options)
        self.rules_options = dict(event.options)
        self.geometry = GEOMETRY[self.rules.family]

    def _fold_banker(self, event: BankerChosen) -> None:
        self.banker = event.banker
        self.bank = 0

    def _fold_bank_passed(self, event: BankPassed) -> None:
        self.banker = event.to_banker
        self.bank = 0

    def _fold_bank_announced(self, event: BankAnnounced) -> None:
        self.bank = event.amount
        self.coup_over = False

    def _fold_shoe(self, event: ShoeStarted) -> None:
        self.shoe = event.shoe
        self.cut_out = False
        self.coups_in_shoe = 0
        self.burn_left = {"value": -1, "one": 1, "none": 0}[event.burn]
        self.seen = {}
        if self.coup_in_play:
            # 002, Puntuación 5: the shoe ran dry mid-coup and this one finishes the coup.
            # The coup's cards lie on the table: they count as out of the new shoe.
            for hand in self.hands:
                for card in hand:
                    key = card_key(card)
                    self.seen[key] = self.seen.get(key, 0) + 1
            self.cards_out = self.dealt
            self.phase = Phase.BURNING if self.burn_left else Phase.DEALING
        else:
            self.cards_out = 0
            self.hands = []
            self.coup_over = False
            self.phase = Phase.BURNING if self.burn_left else Phase.BETTING
        self._take_checkpoint(event.seq)

    def _fold_cut(self, event: CutCardOut) -> None:
        self.cut_out = True

    def _fold_shoe_finished(self, event: ShoeFinished) -> None:
        if self.coup_in_play:  # a new shoe follows at once to finish it
            return
        self.phase = Phase.NO_SHOE
        self.hands = []

    def _fold_locked(self, event: BetsLocked) -> None:
        self.coup = event.turn
        self.phase = Phase.DEALING
        self.hands = [[] for _ in self.geometry.hands]
        self.dealt = 0
        self.tied = {}
        self.actor = 0
        self.choices = {}
        self.coup_over = False
        self.pending = self.geometry.plan[0]
        self.verdict = MUST_DRAW
        if self.rules.shuffler:
            # No card can be voided past a lock: the shoe's log would otherwise grow forever.
            self._take_checkpoint(event.seq)

    def _fold_card(self, event: CardDealt) -> None:
        card = event.card
        self.cards_out += 1
        seen = self.seen
        key = card.rank._value_ * 128 + ord(card.suit._value_)  # card_key(card), inlined
        seen[key] = seen.get(key, 0) + 1
        if event.role is _BURN:
            self.burn_left = burn_count(card) if self.burn_left < 0 else self.burn_left - 1
            if self.burn_left == 0:
                self.phase = Phase.DEALING if self.pending >= 0 else Phase.BETTING
            return
        if self.verdict.draw is _MUST_NOT:
            # A journal written before forced stands were told first: the card passes them.
            self._pass_the_noes()
        self.hands[self.pending].append(card)
        self.dealt += 1
        self._find_next()

    def _fold_choice(self, event: ThirdCardChoice) -> None:
        waits = self.awaits_a_no
        if event.forced:
            # The tableau's rule, which the table follows by itself, but for a stand told
            # at the "non" a hand waited to say.
            if waits and not event.draws and self.geometry.hands[self.pending] == event.hand:
                self.actor += 1
                self._find_next()
            return
        if waits:
            # A journal written before forced stands were told: a later hand's choice
            # passes the hands that waited.
            self._pass_the_noes()
        self.choices[event.hand] = event.draws
        self.deviations += event.deviation
        if not event.draws:
            self.actor += 1
            self._find_next()

    def _fold_hand_shown(self, event: HandShown) -> None:
        """Nothing to keep: :attr:`shown_hands` already shows a natural."""

    def _fold_result(self, event: CoupResult) -> None:
        self.last_result = event

    def _fold_finished(self, event: CoupFinished) -> None:
        self.phase = Phase.BETTING
        self.coups_in_shoe += 1
        self.coup_over = True
        self.pending = -1
        self._shuffle_back()

    def _fold_voided(self, event: DealVoided) -> None:
        if self.phase is not Phase.BURNING:  # a new shoe's burn goes on without the coup
            self.phase = Phase.BETTING
        self.hands = []
        self.pending = -1
        self.tied = {}
        self._shuffle_back()

    def _shuffle_back(self) -> None:
        """A continuous shuffler takes back the cards of each coup, finished or voided."""
        if self.rules.shuffler:
            self.seen = {}
            self.cards_out = 0

    def _fold_bet_placed(self, event: BetPlaced) -> None:
        punter, spot, amount = event.punter, event.spot, event.amount
        self.bets[event.bet] = Bet(event.bet, punter, spot, event.stake)
        self.stacks[(punter, spot)] = event.bet
        self.committed[punter] = self.committed.get(punter, 0) + amount
        self.spot_totals[spot] = self.spot_totals.get(spot, 0) + amount
        if event.bet >= self.next_bet_id:
            self.next_bet_id = event.bet + 1
        self.coup_over = False

    def _fold_withdrawn(self, event: BetWithdrawn) -> None:
        bet = self.bets[event.bet]
        self._take_off(bet, event.amount, event.stake)
        self.coup_over = False

    def _take_off(self, bet: Bet, amount: int, left: int) -> None:
        self.committed[bet.punter] -= amount
        self.spot_totals[bet.spot] -= amount
        if left:
            self.bets[bet.bet_id] = bet._replace(stake=left)
            if self.tied.get(bet.bet_id, 0) > left:
                self.tied[bet.bet_id] = left
        else:
            self.tied.pop(bet.bet_id, None)
            del self.bets[bet.bet_id]
            del self.stacks[(bet.punter, bet.spot)]
            if not self.spot_totals[bet.spot]:
                del self.spot_totals[bet.spot]

    def _fold_settled(self, event: BetSettled) -> None:
        bet = self.bets[event.bet]
        net = event.net
        self.bankrolls[bet.punter] += net
        if self.rules.house_banks:
            self.bank -= net
        elif self.banker is not None:
            self.bankrolls[self.banker] -= net
            self.bank -= net
        if event.outcome is Outcome.PUSH and event.stake:
            self.tied[event.bet] = event.stake
        if not event.stake:
            self._take_off(bet, bet.stake, 0)

    def _fold_commission(self, event: CommissionTaken) -> None:
        punter, amount = event.punter, event.amount
        self.bankrolls[punter] -= amount
        if punter == self.banker:
            # A player's bank pays what its holder owes, as far as it holds.
            self.bank -= min(amount, self.bank)
        self.house = event.house
        if event.box:
            self.commission_box[punter] = event.box
        else:
            self.commission_box.pop(punter, None)

    def _voided_from(self) -> int:
        index = last_card_index(self.since_checkpoint)
        before = self.since_checkpoint[index - 1] if index > 0 else None
        if isinstance(before, ThirdCardChoice) and before.draws:
            index -= 1  # the choice to draw goes with the card that showed it
        return index


_FOLDS: dict[type[Event], Callable[[BaccaratState, Any], None]] = {
    RulesChosen: BaccaratState._fold_rules,
    BankFunded: BaccaratState._fold_bank_funded,
    PunterSeated: BaccaratState._fold_seated,
    PunterLeft: BaccaratState._fold_left,
    BankerChosen: BaccaratState._fold_banker,
    BankPassed: BaccaratState._fold_bank_passed,
    BankAnnounced: BaccaratState._fold_bank_announced,
    ShoeStarted: BaccaratState._fold_shoe,
    CutCardOut: BaccaratState._fold_cut,
    ShoeFinished: BaccaratState._fold_shoe_finished,
    BetsLocked: BaccaratState._fold_locked,
    CardDealt: BaccaratState._fold_card,
    ThirdCardChoice: BaccaratState._fold_choice,
    HandShown: BaccaratState._fold_hand_shown,
    CoupResult: BaccaratState._fold_result,
    CoupFinished: BaccaratState._fold_finished,
    DealVoided: BaccaratState._fold_voided,
    BetPlaced: BaccaratState._fold_bet_placed,
    BetWithdrawn: BaccaratState._fold_withdrawn,
    BetSettled: BaccaratState._fold_settled,
    CommissionTaken: BaccaratState._fold_commission,
    AlarmRaised: BaccaratState._fold_alarm,
    AlarmCleared: BaccaratState._fold_alarm_cleared,
    ReaderNotice: BaccaratState._fold_reader_notice,
    DealerCorrection: BaccaratState._fold_correction,
}
BaccaratState.folds = _FOLDS


def _game_of(game: str) -> str:
    if game not in GAMES:
        raise RulesError(f"unknown baccarat game {game!r} (known: {', '.join(GAMES)})")
    return game


class BaccaratTable(DealerDesk):
    """One baccarat table of any game of the family.

    >>> table = BaccaratTable("t1", "punto-banco")
    >>> _ = table.fund_bank(1000); _ = table.seat("ana", 100); _ = table.new_shoe()
    >>> table.state.next_card()
    NextCard(hand='burn', draw=<Draw.MUST: 'must'>, advice=None)
    """

    consequences = _CONSEQUENCES
    stake_place = "side"
    state: BaccaratState
    # While a card or a command of one coup emits its events: the coup they all carry.
    _batch_coup: int | None = None

    def __init__(
        self,
        table_id: str = "table",
        game: str = "punto-banco",
        rules: str = "standard",
        options: Mapping[str, str] | None = None,
        *,
        at: float = 0.0,
    ) -> None:
        self.game = _game_of(game)
        self.state = BaccaratState(
            table=table_id, game=game, rules=find_rules(game, rules, options)
        )
        self._at = at
        self.opening: list[Event] = self.choose_rules(rules, options)

    def _undo_log(self, what: str) -> list[Event]:
        if self.state.checkpoint is None:
            raise IllegalCommandError(f"{what}: no card has been dealt")
        return self.state.since_checkpoint

    def _follow_state(self) -> None:
        self.game = self.state.game

    def _start_state(self, events: Sequence[Event], table_id: str) -> BaccaratState:
        first = next((e for e in events if isinstance(e, RulesChosen)), None)
        self.game = first.game if first else "punto-banco"
        return BaccaratState(table=table_id, game=self.game, rules=find_rules(self.game))

    # --- emitting -------------------------------------------------------------------------

    def _number(self) -> int:
        """The coup an event is for: the coup in play, or between coups the coup to come (a
        bet placed after coup 7 is a bet on coup 8). What a card or command of the coup in
        play causes is that coup's, though the coup ends on the way (:meth:`_coup_in_play`)."""
        if self._batch_coup is not None:
            return self._batch_coup
        state = self.state
        return state.coup if state.coup_in_play else state.coup + 1

    @contextlib.contextmanager
    def _one_coup(self) -> Iterator[None]:
        """Every event emitted within carries the number the first would: a coup's result,
        settlement and end are the coup's, not the next one's."""
        self._batch_coup = self._number()
        try:
            yield
        finally:
            self._batch_coup = None

    def _alarm_advice(self, alarm: Alarm) -> str:
        state = self.state
        if alarm.kind is AlarmKind.SHORT_DEAL:
            if state.coup_in_play:
                return (
                    f"shuffle a new shoe to finish coup {state.coup}, void the coup, or void "
                    "the alarm first"
                )
            return "shuffle a new shoe, or void the alarm first"
        if alarm.card is not None and state.phase in (Phase.BETTING, Phase.NO_SHOE):
            # No coup to void, and any card named instead would be as stray as this one.
            return "void the card first"
        if alarm.card is not None and not state.coup_in_play:
            return "void the card or correct it first"  # a card of the burn
        return super()._alarm_advice(alarm)

    def _between_coups(self, what: str) -> None:
        state = self.state
        self._refuse_during_alarm(what)
        if state.coup_in_play or state.phase is Phase.DEALING:
            # Also while a shoe loaded to finish the coup is burned (002, Puntuación 5).
            raise IllegalCommandError(
                f"{what}: not during coup {state.coup}; wait for the coup's end"
            )
        if state.phase is Phase.BURNING:
            raise IllegalCommandError(f"{what}: not {state.where()}; wait until the burn is done")

    # --- the table and its people ---------------------------------------------------------

    def choose_rules(
        self, name: str, options: Mapping[str, str] | None = None, *, at: float | None = None
    ) -> list[Event]:
        """Play by a named rule set of this game with options, between shoes."""
        rules = find_rules(self.game, name, options)
        rules.check_cut_card()
        state = self.state
        if state.phase is not Phase.NO_SHOE:
            raise RulesError(f"rules {name}: the rules change only between shoes ({state.where()})")
        if state.bets:
            # Between shoes all the same: what holds the rules is the stakes left lying.
            stakes = ", ".join(
                f"{bet.punter} {bet.stake} on {bet.spot}" for bet in state.bets.values()
            )
            # Short of players they may come back (:meth:`withdraw`).
            if state.carried and len(state.seats) >= state.rules.min_seats:
                raise RulesError(
                    f"rules {name}: the stakes of the tied coup stand for the next coup (002): "
                    f"{stakes}; the rules change once it is played"
                )
            raise RulesError(
                f"rules {name}: stakes lie on the layout: {stakes}; the rules change once they "
                "are withdrawn"
            )
        if len(state.seats) > rules.max_seats:
            raise RulesError(
                f"rules {name}: {len(state.seats)} seated, more than {rules.max_seats}"
            )
        out = self._begin(at)
        texts = {key: str(value) for key, value in (options or {}).items()}
        self._emit(out, RulesChosen, game=self.game, rules=rules.name, options=texts)
        return out

    def fund_bank(self, amount: int, *, at: float | None = None) -> list[Event]:
        """Punto Banco: chips into the house's bank. Elsewhere: the banker announces the bank."""
        check_amount(f"bank {amount}", amount, held=self.state.bank)
        state = self.state
        if not state.rules.house_banks:
            return self.announce_bank(amount, at=at)
        self._between_coups(f"bank {amount}")
        out = self._begin(at)
        self._emit(out, BankFunded, amount=amount, bankroll=state.bank + amount)
        return out

    def announce_bank(self, amount: int, *, at: float | None = None) -> list[Event]:
        """002: the banker announces the bank, what it will pay if it loses."""
        state = self.state
        what = f"bank {amount}"
        check_amount(what, amount)
        if state.rules.house_banks:
            raise IllegalCommandError(f"{what}: in {self.game} the house is the bank; fund it")
        self._between_coups(what)
        banker = state.banker
        if banker is None:
            if not state.seats:
                raise IllegalCommandError(f"{what}: nobody is seated to hold the bank")
            banker = state.seats[0]
        if state.bank:
            raise IllegalCommandError(
                f"{what}: {banker}'s bank stands at {state.bank} and grows by its winnings (002); "
                "it is announced again only when it passes"
            )
        if amount > state.bankrolls[banker]:
            raise IllegalCommandError(f"{what}: {banker} has only {state.bankrolls[banker]} chips")
        if amount < state.rules.min_bet:
            raise IllegalCommandError(
                f"{what}: under the table minimum {state.rules.min_bet}, so no stake could fade it"
            )
        out = self._begin(at)
        if state.banker is None:
            self._emit(out, BankerChosen, banker=banker)
        self._emit(out, BankAnnounced, banker=banker, amount=amount)
        return out

    def seat(self, punter: str, bankroll: int, *, at: float | None = None) -> list[Event]:
        check_name(punter)
        check_amount(f"punter {punter} {bankroll}", bankroll)
        state = self.state
        if punter in state.bankrolls:
            raise IllegalCommandError(f"punter {punter}: already seated")
        if punter in (HOUSE, "bank", "banco"):
            raise IllegalCommandError(f"punter {punter}: {punter!r} is a word of the table")
        if len(state.seats) >= state.rules.max_seats:
            raise IllegalCommandError(
                f"punter {punter}: all {state.rules.max_seats} seats of this {self.game} table "
                "are taken"
            )
        out = self._begin(at)
        self._emit(out, PunterSeated, punter=punter, bankroll=bankroll)
        return out

    def _check_enough_seated(self, what: str, refusal: type[IllegalCommandError]) -> None:
        """002, Jugadores: at least a banker and two punters. Nobody is held at a table, so
        a punter may leave below that; play then waits (no shoe, bet or lock) until another
        sits down."""
        state = self.state
        least = state.rules.min_seats
        seated = len(state.seats)
        if seated >= least:
            return
        who = "" if state.rules.house_banks else " (a banker and two punters, 002)"
        raise refusal(
            f"{what}: {self.game} needs at least {least} seated{who}; {seated} seated, so "
            "play waits until another punter sits down"
        )

    def leave(self, punter: str, *, at: float | None = None) -> list[Event]:
        state = self.state
        what = f"leave {punter}"
        self._check_seated(punter, what)
        if state.committed.get(punter):
            raise IllegalCommandError(f"{what}: {punter} still has stakes on the layout")
        if punter == state.banker:
            raise IllegalCommandError(f"{what}: {punter} holds the bank; pass it first")
        out = self._begin(at)
        self._settle_box(out, punter)
        self._emit(out, PunterLeft, punter=punter, bankroll=state.bankrolls[punter])
        return out

    def choose_banker(self, banker: str, *, at: float | None = None) -> list[Event]:
        state = self.state
        what = f"banker {banker}"
        if state.rules.house_banks:
            raise IllegalCommandError(f"{what}: in {self.game} the house is the bank")
        self._check_seated(banker, what)
        self._between_coups(what)
        if state.bets:
            raise IllegalCommandError(f"{what}: stakes are still on the layout")
        if banker == state.banker:
            raise IllegalCommandError(f"{what}: {banker} is the banker already")
        out = self._begin(at)
        if state.bank:
            # A bank held is given up only as 002 passes it, whoever takes it next: its
            # holder's commission box is settled and the pass is journaled.
            self._pass_bank(out, to_banker=banker)
        else:
            self._emit(out, BankerChosen, banker=banker)
        return out

    def pass_bank(self, *, at: float | None = None) -> list[Event]:
        """002: the banker gives up the bank between coups; it passes counter-clockwise."""
        state = self.state
        if state.rules.house_banks or state.banker is None:
            raise IllegalCommandError(
                f"pass: nobody holds a bank to pass at this {self.game} table"
            )
        self._between_coups("pass")
        if state.bets:
            raise IllegalCommandError("pass: stakes are on the layout; the coup must be played")
        if state.seats == [state.banker]:
            raise IllegalCommandError(f"pass: nobody else is seated to take {state.banker}'s bank")
        out = self._begin(at)
        self._pass_bank(out)
        return out

    def _pass_bank(self, out: list[Event], to_banker: str | None = None) -> None:
        """The bank passes to ``to_banker``, or counter-clockwise to the next seat (002)."""
        state = self.state
        banker = state.banker
        assert banker is not None
        following = to_banker or state.seats[(state.seats.index(banker) + 1) % len(state.seats)]
        for bet_id in sorted(state.bets):
            self._return(out, state.bets[bet_id], "the bank passed")
        self._settle_box(out, banker)
        self._emit(out, BankPassed, from_banker=banker, to_banker=following)

    # --- the shoe -------------------------------------------------------------------------

    def new_shoe(self, *, at: float | None = None) -> list[Event]:
        """A freshly shuffled shoe goes in; the burn comes first. The banker stays (002)."""
        state = self.state
        alarm = state.alarm
        # The box ran dry (002, Puntuación 5): the new shoe goes in, and finishes the coup
        # in play if there is one.
        dry = alarm is not None and alarm.kind is AlarmKind.SHORT_DEAL
        if not dry:
            self._refuse_during_alarm("shuffle")
            if state.phase is Phase.DEALING:
                raise IllegalCommandError(
                    f"shuffle: coup {state.coup} is being dealt; finish it or void it first "
                    "(a shoe that runs dry is said with 'empty')"
                )
        if not state.coup_in_play:
            self._check_enough_seated("shuffle", IllegalCommandError)
        out = self._begin(at)
        if alarm is not None and dry:
            resolution = (
                f"a new shoe finishes coup {state.coup}" if state.coup_in_play else "a new shoe"
            )
            self._emit(out, AlarmCleared, alarm=alarm.alarm_id, resolution=resolution)
        if state.phase is not Phase.NO_SHOE:
            self._finish_shoe(out)
        if not state.rules.house_banks and state.banker is None:
            self._emit(out, BankerChosen, banker=state.seats[0])
        rules = state.rules
        self._emit(
            out,
            ShoeStarted,
            shoe=state.shoe + 1,
            decks=rules.decks,
            cards=rules.shoe_size,
            cut_at=None if rules.shuffler else rules.cut_at,
            burn=rules.burn,
        )
        return out

    def cut(self, *, at: float | None = None) -> list[Event]:
        """The reader (or dealer) saw the cut card: this coup is the shoe's last."""
        state = self.state
        if state.cut_out:
            # Said again, or seen coming out after the table counted it and ended the shoe.
            return []
        if state.phase is Phase.NO_SHOE:
            raise IllegalCommandError(f"cut: {state.no_shoe()}; no cut card can come out")
        out = self._begin(at)
        self._emit(out, CutCardOut, shoe=state.shoe, cards_out=state.cards_out)
        if state.phase is Phase.BETTING and state.alarm is None:
            self._finish_shoe(out)
        return out

    def void_card(self, *, at: float | None = None) -> list[Event]:
        out = super().void_card(at=at)
        state = self.state
        if state.cut_out and state.phase is Phase.BETTING and state.alarm is None:
            # The cut card came out between coups while the alarm waited: the shoe ends now
            # that the alarm is cleared, not after one more coup.
            self._finish_shoe(out)
        return out

    def _finish_shoe(self, out: list[Event]) -> None:
        state = self.state
        for punter in [name for name in state.seats if name in state.commission_box]:
            self._settle_box(out, punter)
        self._emit(
            out, ShoeFinished, shoe=state.shoe, coups=state.coups_in_shoe, cards_out=state.cards_out
        )

    def shoe_empty(self, *, at: float | None = None) -> list[Event]:
        """The shoe's sensor says it is empty: mid-coup that is an alarm, else the shoe ends."""
        state = self.state
        out = self._begin(at)
        if state.phase is Phase.NO_SHOE:
            return out
        if state.alarm is not None:
            if state.phase is Phase.BETTING and not state.cut_out:
                # Kept as the cut card: the shoe ends once the alarm is cleared.
                self._emit(out, CutCardOut, shoe=state.shoe, cards_out=state.cards_out)
            return out
        if state.phase is Phase.BETTING:
            if not state.cut_out:
                self._emit(out, CutCardOut, shoe=state.shoe, cards_out=state.cards_out)
            self._finish_shoe(out)
            return out
        remedy = (
            f"shuffle a new shoe to finish coup {state.coup} (002), or void the coup (every "
            "stake returned)"
            if state.coup_in_play
            else "shuffle a new shoe"
        )
        self._raise_alarm(
            out,
            AlarmKind.SHORT_DEAL,
            f"the shoe is empty {state.where()}: {remedy}; void this alarm if cards are left",
            None,
        )
        return out

    # --- bets -----------------------------------------------------------------------------

    def _spot(self, what: str, spot: str) -> str:
        family = self.state.rules.family
        spots = _SPOTS[family]
        name = spots.get(spot) or spots.get(ascii_lower(spot.strip()))
        if name is None:
            if family is not Family.PUNTO_BANCO and ascii_lower(spot) in (
                "banker",
                "banca",
                "bank",
            ):
                raise BetRefusedError(
                    f"{what}: in {self.game} the punters stake against the bank; "
                    "the banker's side is the banker's own"
                )
            if family in _BANCO and ascii_lower(spot.strip()) == "banco":
                raise BetRefusedError(f"{what}: call banco with 'banco PUNTER'")
            known = ", ".join(sorted(set(_SPOTS[family].values())))
            if _is_faro_spot(spot):
                raise BetRefusedError(
                    f"{what}: {spot} is a spot on a Faro layout; at {self.game} a bet is on a "
                    f"side ({known})"
                )
            raise BetRefusedError(f"{what}: unknown side {spot!r} at {self.game} (sides: {known})")
        if name.endswith("-pair") and not self.state.rules.pair_bets:
            raise BetRefusedError(
                f"{what}: pair bets are not offered at this table (pair_bets=false)"
            )
        return name

    def bet(self, punter: str, spot: str, amount: int, *, at: float | None = None) -> list[Event]:
        """A punter stakes ``amount`` on a side: player, banker, tie, pairs (Punto Banco),
        player (Chemin de Fer, Macao: against the bank), right or left (Banque)."""
        state = self.state
        rules = state.rules
        side = _SPOTS[rules.family].get(spot)
        # The common case at a house-banked table, checked in one pass; anything unusual
        # goes through the checks below, which name what is wrong.
        if (
            side is not None
            and type(amount) is int
            and amount > 0
            and state.phase is Phase.BETTING
            and state.alarm is None
            and rules.house_banks
            and punter in state.bankrolls
            and len(state.seats) >= rules.min_seats
            and (rules.pair_bets or not side.endswith("-pair"))
        ):
            existing_id = state.stacks.get((punter, side))
            stake = amount if existing_id is None else amount + state.bets[existing_id].stake
            if (
                rules.min_bet <= stake
                and (not rules.max_bet or stake <= rules.max_bet)
                and amount
                <= state.bankrolls[punter]
                - state.committed.get(punter, 0)
                - (punter in state.commission_box)
                and self._house_exposure(side, amount) <= state.bank
            ):
                return self._place(punter, side, amount, stake, existing_id, at)
        what = f"bet {punter} {spot} {amount}"
        check_amount(what, amount)
        side = self._spot(what, spot)
        self._check_open(what)
        if punter not in state.bankrolls:
            self._check_seated(punter, what)
        self._check_enough_seated(what, BetRefusedError)
        key = (punter, side)
        existing_id = state.stacks.get(key)
        stake = amount + (state.bets[existing_id].stake if existing_id is not None else 0)
        self._check_limits(what, stake)
        in_hand = state.available(punter)
        if amount > in_hand:
            raise BetRefusedError(f"{what}: {punter} has only {in_hand} chips in hand")
        if state.rules.house_banks:
            self._check_house_covers(what, side, amount)
        else:
            self._check_bank_covers(what, punter, amount)
        return self._place(punter, side, amount, stake, existing_id, at)

    def _place(
        self,
        punter: str,
        side: str,
        amount: int,
        stake: int,
        existing_id: int | None,
        at: float | None,
    ) -> list[Event]:
        out = self._begin(at)
        self._emit(
            out,
            BetPlaced,
            bet=self.state.next_bet_id if existing_id is None else existing_id,
            punter=punter,
            spot=side,
            amount=amount,
            stake=stake,
            # Every field given: the trusted constructor then skips filling in defaults.
            coppered=False,
            mark=False,
            instruction="",
        )
        return out

    def banco(self, punter: str, *, at: float | None = None) -> list[Event]:
        """002: ``banco``: one punter covers the whole bank and is its sole opponent; the
        partial stakes already placed this coup come back to their punters."""
        state = self.state
        what = f"banco {punter}"
        if state.rules.family not in _BANCO:
            raise BetRefusedError(
                f"{what}: banco is called at Chemin de Fer and Macao, not at {self.game}"
            )
        self._check_open(what)
        self._check_seated(punter, what)
        self._check_enough_seated(what, BetRefusedError)
        self._check_against_bank(what, punter)
        if state.carried:
            raise BetRefusedError(f"{what}: the stakes of the tied coup stand for this one (002)")
        if state.banco is not None:
            raise BetRefusedError(f"{what}: {state.banco} has already called banco")
        covers = state.bankrolls[punter]
        bank = state.bank_at_risk
        if covers < bank:
            raise BetRefusedError(
                f"{what}: {punter} has {covers} chips and cannot cover the bank of {bank}"
            )
        self._check_limits(what, bank)
        out = self._begin(at)
        for bet_id in sorted(state.bets):
            bet = state.bets[bet_id]
            self._emit(
                out,
                BetWithdrawn,
                bet=bet_id,
                punter=bet.punter,
                spot=bet.spot,
                amount=bet.stake,
                stake=0,
            )
        self._emit(
            out,
            BetPlaced,
            bet=state.next_bet_id,
            punter=punter,
            spot="banco",
            amount=bank,
            stake=bank,
        )
        return out

    def withdraw(
        self, punter: str, spot: str, amount: int | None = None, *, at: float | None = None
    ) -> list[Event]:
        state = self.state
        what = f"withdraw {punter} {spot}"
        side = "banco" if ascii_lower(spot) == "banco" else self._spot(what, spot)
        # Between shoes stakes may still lie on the layout (a tie as the shoe's last coup,
        # bets placed before a cut): they come back as while bets are open, or a short-handed
        # table, which cannot shuffle, would hold them and their punters for good.
        if not (state.phase is Phase.NO_SHOE and state.bets and state.alarm is None):
            self._check_open(what)
        self._check_seated(punter, what)
        bet_id = state.stacks.get((punter, side))
        if bet_id is None:
            raise BetRefusedError(f"{what}: {punter} has no stake on {side} ({state.where()})")
        bet = state.bets[bet_id]
        # Short of players the next coup cannot be dealt, and a tied stake must not hold its
        # punter at the table.
        standing = state.tied.get(bet_id, 0) if len(state.seats) >= state.rules.min_seats else 0
        if standing == bet.stake:
            raise BetRefusedError(f"{what}: the stakes of the tied coup stand for this one (002)")
        taken = bet.stake - standing if amount is None else amount
        check_amount(what, taken)
        if taken > bet.stake - standing:
            if standing:
                raise BetRefusedError(
                    f"{what} {taken}: {standing} of it stands from the tied coup (002); "
                    f"at most {bet.stake - standing} may come back"
                )
            raise BetRefusedError(f"{what}: only {bet.stake} lies there")
        if side == "banco" and taken != bet.stake:
            # A banco smaller than the bank would still keep every other punter out (002).
            raise BetRefusedError(
                f"{what} {taken}: a banco covers the whole bank ({bet.stake}); it is withdrawn "
                f"whole ('withdraw {punter} banco'), then a partial stake may be placed"
            )
        if 0 < bet.stake - taken < state.rules.min_bet:
            raise BetRefusedError(f"{what}: {bet.stake - taken} would be under the minimum")
        out = self._begin(at)
        self._emit(
            out,
            BetWithdrawn,
            bet=bet_id,
            punter=punter,
            spot=side,
            amount=taken,
            stake=bet.stake - taken,
        )
        return out

    def _check_open(self, what: str) -> None:
        state = self.state
        if state.phase is Phase.BETTING and state.alarm is None:
            return
        self._refuse_during_alarm(what)
        if state.phase is Phase.DEALING:
            raise BetRefusedError(f"{what}: coup {state.coup} is closed; bets are locked")
        if state.phase is Phase.BURNING:
            raise BetRefusedError(f"{what}: bets open once the burn is done ({state.where()})")
        raise BetRefusedError(f"{what}: {state.no_shoe()}; shuffle first")

    def _check_house_covers(self, what: str, side: str, amount: int) -> None:
        state = self.state
        worst = self._house_exposure(side, amount)
        if worst > state.bank:
            raise BetRefusedError(
                f"{what}: the house bank ({state.bank}) cannot cover the layout "
                f"(worst coup: {worst})"
            )

    def _house_exposure(self, side: str = "", amount: int = 0) -> int:
        state = self.state
        get = state.spot_totals.get
        rules = state.rules
        player, banker, tie = get("player", 0), get("banker", 0), get("tie", 0)
        pairs = get("player-pair", 0) + get("banker-pair", 0)
        if side == "player":
            player += amount
        elif side == "banker":
            banker += amount
        elif side == "tie":
            tie += amount
        elif side:
            pairs += amount
        return max(player, banker, tie * rules.tie_pays) + pairs * rules.pair_pays

    def _check_against_bank(self, what: str, punter: str) -> None:
        state = self.state
        if punter == state.banker:
            raise BetRefusedError(f"{what}: {punter} holds the bank and does not stake against it")
        self._check_bank_announced(what, BetRefusedError)

    def _check_bank_announced(self, what: str, refusal: type[IllegalCommandError]) -> None:
        """002, Preparación 1: a player's bank is announced before anyone fades it."""
        state = self.state
        if not state.bank:
            holder = state.banker or "the banker"
            raise refusal(f"{what}: {holder} has not announced a bank yet")

    def _check_bank_covers(self, what: str, punter: str, amount: int) -> None:
        state = self.state
        self._check_against_bank(what, punter)
        if state.banco is not None:
            raise BetRefusedError(f"{what}: {state.banco} called banco and is the sole opponent")
        staked = state.staked
        bank = state.bank_at_risk
        if staked + amount > bank:
            held = (
                f", 1 of it held back for {state.banker}'s commission box,"
                if bank < state.bank
                else ""
            )
            raise BetRefusedError(
                f"{what}: the bank holds {state.bank}{held} and {staked} is already staked; "
                f"at most {max(0, bank - staked)} more (the bank can lose only what is in it)"
            )

    def lock(self, *, at: float | None = None) -> list[Event]:
        """No more bets: the coup is closed and its cards may come."""
        state = self.state
        self._refuse_during_alarm("lock")
        if state.phase is not Phase.BETTING:
            raise IllegalCommandError(f"lock: bets are not open ({state.where()})")
        self._check_enough_seated("lock", IllegalCommandError)
        if not state.rules.house_banks and not state.bets:
            self._check_bank_announced("lock", IllegalCommandError)
            raise IllegalCommandError("lock: nobody has faded the bank; a coup needs a stake")
        out = self._begin(at)
        self._emit(out, BetsLocked, deal=state.coup + 1, turn=state.coup + 1)
        return out

    # --- the cards ------------------------------------------------------------------------

    def stand(self, *, at: float | None = None) -> list[Event]:
        """The hand whose turn it is takes no third card (a choice the tableau leaves)."""
        state = self.state
        self._refuse_during_alarm("stand")
        if state.phase is not Phase.DEALING or state.pending < 0:
            raise IllegalCommandError(f"stand: no hand is to choose a third card ({state.where()})")
        hand = state.geometry.hands[state.pending]
        if state.dealt < len(state.geometry.plan):
            raise IllegalCommandError(
                f"stand: the first cards are still being dealt ({hand} is next)"
            )
        if state.verdict.draw is Draw.MUST:
            # A refusal may be heard by the room (MQTT's shared reply topic): a hand held
            # face down keeps its total, as the room hears only that it must draw.
            two = _two_card_total(state.hands[state.pending])
            on = "" if self._tells_every_draw() else f" on {two}"
            raise IllegalCommandError(
                f"stand: the tableau makes the {hand} draw{on} ({self.game}); "
                "the next card is the third card"
            )
        out = self._begin(at)
        with self._one_coup():
            actor = state.actor
            # On 6 or 7 the player's "non" is keyed as on 5 (:attr:`~BaccaratState.awaits_a_no`).
            self._choose(out, draws=False, forced=state.awaits_a_no)
            self._tell_forced_stands(out, actor + 1)
            self._after_card(out)
        return out

    def _choose(
        self, out: list[Event], *, draws: bool, forced: bool = False, index: int | None = None
    ) -> None:
        """The hand whose turn it is (or the hand ``index``) draws or stands: by its choice,
        or ``forced`` by the tableau."""
        state = self.state
        index = state.pending if index is None else index
        if forced:
            advised, deviation = ("draw" if draws else "stand"), False
        else:
            advice = state.verdict.advice
            advised = "free" if advice is None else ("draw" if advice else "stand")
            deviation = advice is not None and advice != draws
        self._emit(
            out,
            ThirdCardChoice,
            hand=state.geometry.hands[index],
            total=_two_card_total(state.hands[index]),
            draws=draws,
            advised=advised,
            deviation=deviation,
            forced=forced,
            face_down=self._tells_every_draw(),
        )

    def _tells_every_draw(self) -> bool:
        """002: where the players hold their hands face down, the room hears of each hand
        only that it drew or stood; a choice told alone, at Chemin de Fer a representative's
        at 5, would tell the hand's total. (Macao's coup ends on its first cards.)"""
        return self.state.rules.family in _SAY_NO

    def _follows_the_card(self, event: Event) -> bool:
        # A stand the tableau forced on the banker follows from the card; one a hand chose
        # does not, nor a player's forced one, told at his "non" as a chosen one is.
        forced = (
            isinstance(event, ThirdCardChoice)
            and event.forced
            and event.hand == self.state.geometry.hands[-1]
        )
        return forced or super()._follows_the_card(event)

    def _tell_the_noes(self, out: list[Event]) -> None:
        """Play moves past the hands waiting to say "non": their stands are told now, with
        this moment's time, as they would be at the dealer's ``stand``."""
        state = self.state
        while state.awaits_a_no:
            self._choose(out, draws=False, forced=True)

    def _tell_forced_stands(self, out: list[Event], actor: int) -> None:
        """The hands from the ``actor``-th on that the table passed over, the tableau barring
        them a third card, stand: told where every draw is (:meth:`_tells_every_draw`). A
        natural is shown instead, and a coup that ends on naturals asks no hand. (A player's
        hand is not passed over there: it waits for its "non".)"""
        state = self.state
        if not self._tells_every_draw() or state.dealt < len(state.geometry.plan):
            return
        if state._coup_ends_on_naturals():
            return
        for index in state.geometry.actors[actor : state.actor]:
            cards = state.hands[index]
            if len(cards) == 2 and _two_card_total(cards) < 8:
                self._choose(out, draws=False, forced=True, index=index)

    def _card_problem(self, card: Card) -> tuple[AlarmKind, str] | None:
        state = self.state
        rules = state.rules
        phase = state.phase
        if (
            phase is _DEALING
            and state.pending >= 0
            and state.verdict.draw is not _MUST_NOT
            and state.seen.get(card.rank._value_ * 128 + ord(card.suit._value_), 0) < rules.decks
            and state.cards_out < rules.shoe_size
            and type(card) is Card
        ):
            return None
        if type(card) is not Card:
            return AlarmKind.UNKNOWN_CARD, f"card {card!r} is not a card of a standard deck"
        if phase is Phase.NO_SHOE:
            return (
                AlarmKind.EXTRA_CARD,
                f"card {card}: {state.no_shoe()}; void it and shuffle a new shoe",
            )
        if state.seen.get(card_key(card), 0) >= rules.decks:
            times = "once" if rules.decks == 1 else f"{rules.decks} times"
            return AlarmKind.DUPLICATE_CARD, (
                f"card {card} has come out {times} already in a {rules.decks}-deck shoe"
            )
        if state.cards_out >= rules.shoe_size:
            return AlarmKind.EXTRA_CARD, f"card {card}: all {rules.shoe_size} cards are out"
        if phase is Phase.DEALING and state._taker() < 0:
            message = f"card {card} {state.where()}: no hand takes a card now"
            if state.awaits_a_no:
                # Voided, the card leaves the coup waiting for the word a card cannot pass.
                hand = state.geometry.hands[state.pending]
                holder = "the player" if hand == "player" else f"the {hand} hand"
                message += f"; {holder}'s \"non\" is keyed with 'stand'"
            return AlarmKind.EXTRA_CARD, message
        if phase is Phase.BETTING:
            if state.coup_over and state.last_result is not None:
                return self._late_card_problem(card, state.last_result)
            return AlarmKind.EARLY_CARD, (
                f"card {card} {state.where()} while bets are open: a card seen before the bets "
                "close cannot count; void it, lock, then deal"
            )
        return None

    def _late_card_problem(self, card: Card, result: CoupResult) -> tuple[AlarmKind, str]:
        short = [hand for hand, cards in result.hands.items() if len(cards) == 2]
        over = f"card {card} after coup {result.coup} is over"
        if self.state.rules.family is Family.MACAO or not short:
            return AlarmKind.EXTRA_CARD, f"{over}: no hand takes another card"
        players = [hand for hand in result.hands if hand != "banker"]
        # At Banque one player hand's natural leaves the others to play on (002): the coup
        # ended on naturals only if the banker's or every player hand's was one.
        if "banker" in result.naturals or all(hand in result.naturals for hand in players):
            naturals = ", ".join(result.naturals)
            return AlarmKind.FORBIDDEN_DRAW, f"{over}: a natural ({naturals}) ends the coup"
        # A hand the tableau let choose, and that chose to stand, could have drawn: the
        # dealer is told it stood, not that the tableau barred the card.
        draws_chosen = self.state.choices
        stood = [hand for hand in short if draws_chosen.get(hand) is False]
        barred = [hand for hand in short if hand not in stood]
        reasons = []
        if stood:
            reasons.append(
                " and ".join(f"the {hand} stood on {result.totals[hand]}" for hand in stood)
            )
        if barred:
            reasons.append(
                "the tableau gives no third card to "
                + " or ".join(f"{hand} on {result.totals[hand]}" for hand in barred)
            )
        return AlarmKind.FORBIDDEN_DRAW, f"{over}: {'; '.join(reasons)}"

    def _take_card(self, out: list[Event], card: Card) -> None:
        # _one_coup, written out: every card of every coup comes this way.
        self._batch_coup = self._number()
        try:
            self._take_one_card(out, card)
        finally:
            self._batch_coup = None

    def _take_one_card(self, out: list[Event], card: Card) -> None:
        state = self.state
        if state.phase is _BURNING:
            self._emit(out, CardDealt, card=card, role=CardRole.BURN, turn=0)
        else:
            if state.verdict.draw is _MUST_NOT:
                self._tell_the_noes(out)
            pending = state.pending
            face_down = self._deals_face_down()
            tells_every_draw = self._tells_every_draw()
            if state.verdict.draw is _MAY:
                self._choose(out, draws=True)
            elif tells_every_draw and len(state.hands[pending]) == 2:
                self._choose(out, draws=True, forced=True)
            actor = state.actor
            self._emit(
                out,
                CardDealt,
                card=card,
                role=state.geometry.roles[pending],
                turn=state.coup,
                face_down=face_down,
            )
            if face_down and state.coup_in_play and state.dealt == len(state.geometry.plan):
                self._show_naturals(out)
            if tells_every_draw:
                self._tell_forced_stands(out, actor)
        if state.pending < 0 or state.cut_out or state.cards_out >= state.rules.cut_at:
            self._after_card(out)

    def _deals_face_down(self) -> bool:
        # 002: where the players hold the cards, a hand's first two come face down.
        state = self.state
        return (
            state.rules.family is not _PUNTO_BANCO
            and state.phase is Phase.DEALING
            and state.pending >= 0
            and len(state.hands[state.pending]) < 2
        )

    def _hides_a_card(self) -> bool:
        return self._deals_face_down() or any(
            card is None for hand in self.state.shown_hands for card in hand
        )

    def _show_naturals(self, out: list[Event]) -> None:
        """The first cards are out and the coup goes on: a natural is turned over now (at
        Banque, a player hand's; the coup would have ended on any other)."""
        state = self.state
        for name, cards in zip(state.geometry.hands, state.hands, strict=True):
            total = _two_card_total(cards)
            if total >= 8:
                self._emit(out, HandShown, hand=name, cards=tuple(cards), total=total)

    def _after_card(self, out: list[Event]) -> None:
        state = self.state
        if state.phase is Phase.DEALING and state.pending < 0:
            self._resolve(out)
        if not state.cut_out and state.cards_out >= state.rules.cut_at:
            self._emit(out, CutCardOut, shoe=state.shoe, cards_out=state.cards_out)
        if state.cut_out and state.phase is Phase.BETTING:
            # The cut card is out and the coup is over: the shoe is changed (the stakes of
            # a tied Chemin de Fer coup stay for the next, with the same banker, 002).
            self._finish_shoe(out)

    # --- the end of a coup ----------------------------------------------------------------

    def _resolve(self, out: list[Event]) -> None:
        state = self.state
        names = state.geometry.hands
        points = POINTS
        two_card: dict[str, int] = {}
        totals: dict[str, int] = {}
        naturals: list[str] = []
        pairs: list[str] = []
        macao = state.rules.family is Family.MACAO
        for name, cards in zip(names, state.hands, strict=True):
            totals[name] = sum(points[card.rank] for card in cards) % 10
            if macao:
                continue
            first, second = cards[0], cards[1]
            two = two_card[name] = (points[first.rank] + points[second.rank]) % 10
            if two >= 8:
                naturals.append(name)
            if first.rank is second.rank:
                pairs.append(name)
        banker_final = totals["banker"]
        banker_natural = "banker" in naturals
        winners: dict[str, str] = {}
        for name in names[:-1]:
            mine = totals[name]
            # A natural is shown at once (002): it meets the banker's first two cards.
            theirs = two_card["banker"] if name in naturals and not banker_natural else banker_final
            winners[name] = "player" if mine > theirs else "banker" if mine < theirs else "tie"
        holders = {name: state.holder(name) for name in names}
        self._emit(
            out,
            CoupResult,
            coup=state.coup,
            hands={name: tuple(cards) for name, cards in zip(names, state.hands, strict=True)},
            totals=totals,
            winner=winners[names[0]],
            winners=winners,
            naturals=tuple(naturals),
            pairs=tuple(pairs),
            holders=holders,
        )
        if state.rules.house_banks:
            self._settle_house(out, winners["player"], banker_final, pairs)
        else:
            self._settle_bank(out, winners)
        self._emit(
            out,
            CoupFinished,
            coup=state.coup,
            bank=state.bank,
            house=state.house,
            bankrolls=dict(state.bankrolls),
        )
        if not state.rules.house_banks:
            self._rotate_bank(out, winners)

    def _settle_house(
        self, out: list[Event], winner: str, banker_total: int, pairs: Sequence[str]
    ) -> None:
        state = self.state
        rules = state.rules
        coup = state.coup
        noted: list[tuple[str, int]] = []
        for bet_id in sorted(state.bets):
            bet = state.bets[bet_id]
            stake = bet.stake
            spot = bet.spot
            note = ""
            if spot == "tie":
                won = winner == "tie"
                net = stake * rules.tie_pays
            elif spot.endswith("-pair"):
                won = spot[: -len("-pair")] in pairs
                net = stake * rules.pair_pays
            elif winner == "tie":
                # 004: Punto and Banca push on a tie.
                won, net, note = False, 0, "a tie: Punto and Banca push"
            elif spot != winner:
                won, net = False, -stake
            elif spot == "player":
                won, net = True, stake
            elif rules.no_commission:
                won = True
                net, note = (
                    (stake // 2, "a banker win with 6 pays 1:2")
                    if banker_total == 6
                    else (stake, "")
                )
            else:
                won, net = True, stake
                if rules.commission:
                    noted.append((bet.punter, stake * rules.commission))
                    note = (
                        f"{rules.commission} % commission to the box: "
                        f"{hundredths_text(stake * rules.commission)}"
                    )
            if won:
                outcome = Outcome.WIN
            elif net == 0:
                outcome = Outcome.PUSH
            else:
                outcome, net = Outcome.LOSE, -stake
            self._emit(
                out,
                BetSettled,
                bet=bet_id,
                punter=bet.punter,
                spot=spot,
                outcome=outcome,
                net=net,
                stake=0,
                turn=coup,
                note=note,
            )
        for punter, hundredths in noted:
            self._note_commission(out, punter, hundredths)

    def _settle_bank(self, out: list[Event], winners: dict[str, str]) -> None:
        state = self.state
        coup = state.coup
        won = 0
        for bet_id in sorted(state.bets):
            bet = state.bets[bet_id]
            hand = "player" if bet.spot == "banco" else bet.spot
            result = winners[hand]
            if result == "tie":
                outcome, net, left, note = (
                    Outcome.PUSH,
                    0,
                    bet.stake,
                    "a tie: the stake stays (002)",
                )
            elif result == "player":
                outcome, net, left, note = Outcome.WIN, bet.stake, 0, ""
            else:
                outcome, net, left, note = Outcome.LOSE, -bet.stake, 0, ""
                won += bet.stake
            self._emit(
                out,
                BetSettled,
                bet=bet_id,
                punter=bet.punter,
                spot=bet.spot,
                outcome=outcome,
                net=net,
                stake=left,
                turn=coup,
                note=note,
            )
        rate = state.rules.commission
        if won and rate and state.banker is not None:
            self._note_commission(out, state.banker, won * rate)

    def _note_commission(self, out: list[Event], punter: str, hundredths: int) -> None:
        """002: the commission is noted in a register. Whole chips go to the house as
        they fall due; a fraction of a chip waits in the box (see table.baccarat.rules)."""
        state = self.state
        due = state.commission_box.get(punter, 0) + hundredths
        self._emit(
            out,
            CommissionTaken,
            punter=punter,
            amount=due // 100,
            house=state.house + due // 100,
            noted=hundredths,
            box=due % 100,
        )

    def _settle_box(self, out: list[Event], punter: str) -> None:
        """The fraction of a chip noted against ``punter`` is taken, rounded up to a whole
        chip in the house's favour; waived only if they have no chip left to pay it."""
        state = self.state
        owed = state.commission_box.get(punter)
        if not owed:
            return
        in_hand = state.bankrolls[punter] - state.committed.get(punter, 0)
        amount = max(0, min(-(-owed // 100), in_hand))
        self._emit(
            out,
            CommissionTaken,
            punter=punter,
            amount=amount,
            house=state.house + amount,
            noted=0,
            box=0,
        )

    def _rotate_bank(self, out: list[Event], winners: dict[str, str]) -> None:
        state = self.state
        if state.rules.family is Family.BANQUE:
            # 002: the Banque bank is kept until it is exhausted.
            passes = state.bank_at_risk < state.rules.min_bet
        else:
            passes = winners["player"] == "player"
        if passes:
            self._pass_bank(out)

    def _return(self, out: list[Event], bet: Bet, note: str) -> None:
        self._emit(
            out,
            BetSettled,
            bet=bet.bet_id,
            punter=bet.punter,
            spot=bet.spot,
            outcome=Outcome.RETURNED,
            net=0,
            stake=0,
            turn=self.state.coup,
            note=note,
        )

    # --- the dealer's corrections ---------------------------------------------------------

    def void_coup(
        self, reason: str = "voided by the dealer", *, at: float | None = None
    ) -> list[Event]:
        """Abandon the coup in play: every stake goes back to its punter, nothing is settled."""
        state = self.state
        if not state.coup_in_play:
            # A coup that is over stays as it ended: a stray card after it is voided alone,
            # as at Faro, and the alarm it raised says what became of it.
            advice = "; 'void' alone clears the alarm" if state.alarm is not None else ""
            raise IllegalCommandError(
                f"void deal: no coup is being dealt ({state.where()}){advice}"
            )
        out = self._begin(at)
        with self._one_coup():
            if state.alarm is not None:
                resolution = "coup voided"
                self._emit(out, AlarmCleared, alarm=state.alarm.alarm_id, resolution=resolution)
            for bet_id in sorted(state.bets):
                self._return(out, state.bets[bet_id], "the coup was voided")
            bank = state.bank
            self._emit(out, DealVoided, reason=reason, bank=bank, bankrolls=dict(state.bankrolls))
            if state.cut_out:
                self._finish_shoe(out)
        return out

    # --- the table language ---------------------------------------------------------------

    def apply(self, command: Any, *, at: float | None = None) -> list[Event]:
        """Carry out one parsed line of the table language (see :mod:`table.language`)."""
        from table.baccarat.commands import run_command

        return run_command(self, command, at=at)


def card_key(card: Card) -> int:
    """A card as a small int, a cheaper dictionary key than the card (whose hash goes
    through two enum hashes)."""
    return card.rank._value_ * 128 + ord(card.suit._value_)


def _two_card_total(cards: Sequence[Card]) -> int:
    return (
        (POINTS[cards[0].rank] + POINTS[cards[1].rank]) % 10 if len(cards) >= 2 else _total(cards)
    )


def _total(cards: Sequence[Card]) -> int:
    value = POINTS
    return sum(value[card.rank] for card in cards) % 10
