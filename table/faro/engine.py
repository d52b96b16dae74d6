"""The Faro engine: a pure state machine fed cards in box order and the table's commands.

Every public method validates first and raises a :class:`~table.errors.TableError` that
names what was refused and why, leaving the state untouched; otherwise it returns the
events that record what happened. The state changes only by folding events
(:meth:`FaroState.apply`), so replaying a table's events rebuilds its state exactly.
"""

from __future__ import annotations

import dataclasses
import enum
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import permutations
from typing import Any

from table.cards import Card, Rank, Suit
from table.dealer import (
    Alarm,
    DealerDesk,
    TableFolds,
    check_amount,
    check_name,
    last_card_index,
)
from table.errors import BetRefusedError, IllegalCommandError, RulesError
from table.events import (
    AlarmCleared,
    AlarmKind,
    AlarmRaised,
    BankerChosen,
    BankFunded,
    BankPassed,
    BetPlaced,
    BetSettled,
    BetsLocked,
    BetWithdrawn,
    CardDealt,
    CardRole,
    DealerCorrection,
    DealFinished,
    DealVoided,
    DeckStarted,
    Event,
    Outcome,
    PunterLeft,
    PunterSeated,
    ReaderNotice,
    RulesChosen,
    TurnCalled,
    TurnClosed,
)
from table.faro.bets import Bet, Instruction
from table.faro.casekeep import Casekeep
from table.faro.rules import FaroRules, find_rules
from table.faro.settlement import Decision, call_kind, call_matches, decide
from table.faro.spots import (
    CALL_SPOT,
    COLOUR_KINDS,
    UNTIL_WITHDRAWN_KINDS,
    Spot,
    SpotKind,
    parse_spot,
)
from table.text import ascii_lower

GAME = "faro"


class Phase(enum.Enum):
    NO_DECK = "no-deck"
    AWAITING_SODA = "awaiting-soda"
    BETTING = "betting"
    LOCKED = "locked"
    IN_TURN = "in-turn"
    AWAITING_HOC = "awaiting-hoc"
    FINISHED = "finished"


# What every card, bet and settlement asks, read from module globals as at baccarat: Python
# 3.11 reads an enum class's member through the hook its metaclass's __getattr__ installs,
# some ten times a global's cost.
_NO_DECK = Phase.NO_DECK
_AWAITING_SODA = Phase.AWAITING_SODA
_BETTING = Phase.BETTING
_LOCKED = Phase.LOCKED
_IN_TURN = Phase.IN_TURN
_AWAITING_HOC = Phase.AWAITING_HOC
_FINISHED = Phase.FINISHED
_SODA = CardRole.SODA
_LOSER = CardRole.LOSER
_WINNER = CardRole.WINNER
_HOC = CardRole.HOC
_WIN = Outcome.WIN
_LOSE = Outcome.LOSE
_CALL = SpotKind.CALL
_WIN_LOSE = SpotKind.WIN_LOSE


# Events that follow a card as its consequences: a card may be voided while only these
# came after it. Anything a person did since (a bet, a withdrawal) makes it too late; the
# dealer's lock, which moves no chip, does not: it goes with the card, and bets reopen.
_CONSEQUENCES = (
    BetSettled,
    TurnClosed,
    DealFinished,
    BankPassed,
    AlarmRaised,
    AlarmCleared,
    BetsLocked,
)


@dataclass(eq=True)
class FaroState(TableFolds):
    """Everything a Faro table knows. Change it only through :meth:`apply`."""

    game_title = "Faro"
    unit = "deal"

    table: str
    rules: FaroRules
    rules_options: dict[str, str] = field(default_factory=dict)
    deal: int = 0
    phase: Phase = Phase.NO_DECK
    turn: int = 0
    casekeep: Casekeep = field(default_factory=lambda: Casekeep(find_rules("classic").deck_spec))
    pending_loser: Card | None = None
    last_turn: tuple[Card, Card] | None = None
    splits: int = 0
    bets: dict[int, Bet] = field(default_factory=dict)
    bets_by_rank: dict[Rank, set[int]] = field(default_factory=dict)
    standing_bets: set[int] = field(default_factory=set)
    # Running totals of the layout, kept by the fold so that checking a bet is O(1).
    chips_committed: dict[str, int] = field(default_factory=dict)
    marks_committed: dict[str, int] = field(default_factory=dict)
    payout_bound: int = 0
    stack_index: dict[StackKey, int] = field(default_factory=dict)
    bank: int = 0
    bankrolls: dict[str, int] = field(default_factory=dict)
    seats: list[str] = field(default_factory=list)
    banker: str | None = None
    banks_held: dict[str, int] = field(default_factory=dict)
    next_bet_id: int = 1
    next_alarm_id: int = 1
    alarm: Alarm | None = None
    readers_lost: dict[str, str] = field(default_factory=dict)
    last_seq: int = 0
    # The deal so far, for voiding a card: the state at its deck start and every event since.
    checkpoint: FaroState | None = field(default=None, repr=False)
    since_checkpoint: list[Event] = field(default_factory=list, repr=False)

    def __post_init__(self) -> None:
        if self.casekeep.deck != self.rules.deck_spec:
            self.casekeep = Casekeep(self.rules.deck_spec)

    # --- reading the state ----------------------------------------------------------------

    @property
    def cards_left(self) -> int:
        return self.casekeep.cards_left

    # Read off the casekeep rather than kept: a state of more than 29 fields no longer shares
    # its attribute names with the other states, and every attribute read of the fold slows.
    @property
    def hoc(self) -> Card | None:
        """The deal's last card, once it is out."""
        last = self.casekeep.last_entry
        return last.card if last is not None and last.role is _HOC else None

    @property
    def bets_open(self) -> bool:
        return self.phase is _BETTING and self.alarm is None

    @property
    def is_last_turn_next(self) -> bool:
        return self.phase is _BETTING and self.casekeep.cards_left == 3

    @property
    def calls_open(self) -> bool:
        """Whether the last turn may be called now: before it, where its cards may be called
        (:attr:`last_three_callable`)."""
        return self.is_last_turn_next and self.last_three_callable

    @property
    def last_three_callable(self) -> bool:
        """Whether the cards left, the last three, may be called at this house: where rank
        bets are taken, and unless they are of one rank at a house that takes no call on
        them (001)."""
        return (
            self.rules.rank_bets
            and call_kind(self.casekeep.remaining_cards(), self.rules) is not None
        )

    @property
    def bank_bankroll(self) -> int:
        if self.rules.bank_passes:
            return self.bankrolls.get(self.banker, 0) if self.banker else 0
        return self.bank

    def bets_of(self, punter: str) -> list[Bet]:
        return [bet for bet in self.bets.values() if bet.punter == punter]

    def chips_on_layout(self, punter: str) -> int:
        return self.chips_committed.get(punter, 0)

    def marks_on_layout(self, punter: str) -> int:
        return self.marks_committed.get(punter, 0)

    def available(self, punter: str) -> int:
        """Chips a punter still has in hand (their bankroll counts what lies on the layout)."""
        return self.bankrolls.get(punter, 0) - self.chips_committed.get(punter, 0)

    @property
    def session_complete(self) -> bool:
        """001: a home session ends when everyone has held the bank equally often."""
        if not self.rules.bank_passes or not self.seats:
            return False
        held = {self.banks_held.get(name, 0) for name in self.seats}
        return len(held) == 1 and held != {0}

    def standings(self) -> list[tuple[str, int]]:
        """001's session score: every player by chips, most first (seating order breaks ties)."""
        order = {name: index for index, name in enumerate(self.seats)}
        return sorted(self.bankrolls.items(), key=lambda item: (-item[1], order[item[0]]))

    def total_chips(self) -> int:
        """The bank and every bankroll: constant while chips only move between them."""
        total = sum(self.bankrolls.values())
        return total if self.rules.bank_passes else total + self.bank

    def where(self) -> str:
        """Where the deal stands, for error messages."""
        if self.phase is Phase.NO_DECK:
            return "before the first deck" if self.deal == 0 else f"after deal {self.deal}"
        if self.phase is Phase.AWAITING_SODA:
            return f"before the soda of deal {self.deal}"
        if self.phase is Phase.FINISHED:
            return f"after the hoc of deal {self.deal}"
        if self.phase is Phase.BETTING:
            return f"before turn {self.turn + 1}"
        if self.phase is Phase.LOCKED:
            return f"with bets locked for turn {self.turn + 1}"
        return f"at turn {self.turn}"

    def copy(self) -> FaroState:
        twin = dataclasses.replace(self)
        twin.rules_options = dict(self.rules_options)
        twin.casekeep = self.casekeep.copy()
        twin.bets = dict(self.bets)
        twin.bets_by_rank = {rank: set(ids) for rank, ids in self.bets_by_rank.items()}
        twin.standing_bets = set(self.standing_bets)
        twin.chips_committed = dict(self.chips_committed)
        twin.marks_committed = dict(self.marks_committed)
        twin.stack_index = dict(self.stack_index)
        twin.bankrolls = dict(self.bankrolls)
        twin.readers_lost = dict(self.readers_lost)
        twin.seats = list(self.seats)
        twin.banks_held = dict(self.banks_held)
        twin.since_checkpoint = list(self.since_checkpoint)
        return twin

    # --- the fold -------------------------------------------------------------------------

    def _fold_rules(self, event: RulesChosen) -> None:
        self.rules = find_rules(event.rules, event.options)
        self.rules_options = dict(event.options)
        self.casekeep = Casekeep(self.rules.deck_spec)

    def _voided_from(self) -> int:
        """A voided card that locked the bets itself takes its lock with it."""
        log = self.since_checkpoint
        index = last_card_index(log)
        if index > 0:
            before = log[index - 1]
            if isinstance(before, BetsLocked) and before.by_card:
                return index - 1
        return index

    def _fold_left(self, event: PunterLeft) -> None:
        TableFolds._fold_left(self, event)
        if self.banker == event.punter:  # the last one at the table: nobody holds the bank
            self.banker = None

    def _fold_banker(self, event: BankerChosen) -> None:
        self.banker = event.banker or None  # "": nobody; the house holds the bank

    def _fold_bank_passed(self, event: BankPassed) -> None:
        self.banker = event.to_banker

    def _fold_deck(self, event: DeckStarted) -> None:
        self.deal = event.deal
        self.phase = _AWAITING_SODA
        self.turn = 0
        self.casekeep = Casekeep(self.rules.deck_spec)
        self.pending_loser = None
        self.last_turn = None
        self.splits = 0
        self._take_checkpoint(event.seq)

    def _fold_card(self, event: CardDealt) -> None:
        card, role = event.card, event.role
        self.casekeep.record(card, role, event.turn)
        if role is _SODA:
            self.phase = _BETTING
        elif role is _LOSER:
            self.phase = _IN_TURN
            self.turn = event.turn
            self.pending_loser = card

    def _fold_locked(self, event: BetsLocked) -> None:
        self.phase = _LOCKED

    def _fold_turn_closed(self, event: TurnClosed) -> None:
        self.last_turn = (event.loser, event.winner)
        self.pending_loser = None
        self.splits += event.split
        self.phase = _AWAITING_HOC if event.cards_left == 1 else _BETTING

    def _fold_finished(self, event: DealFinished) -> None:
        self.phase = _FINISHED
        if self.rules.bank_passes and self.banker is not None:
            self.banks_held[self.banker] = self.banks_held.get(self.banker, 0) + 1

    def _fold_voided(self, event: DealVoided) -> None:
        self.phase = _NO_DECK
        self.pending_loser = None

    def _fold_bet_placed(self, event: BetPlaced) -> None:
        existing = self.bets.get(event.bet)
        if existing is not None:
            self._replace_bet(
                existing,
                _restaked(existing, event.stake, existing.base + event.amount, existing.rides),
            )
            return
        instruction = Instruction.parse(event.instruction) if event.instruction else None
        stake = event.stake
        spot = parse_spot(event.spot)
        # A bet is made for every chip put down: every field in order, by tuple.__new__.
        self._add_bet(
            _new_tuple(
                Bet,
                (
                    event.bet,
                    event.punter,
                    spot,
                    stake,
                    event.coppered,
                    event.mark,
                    instruction,
                    None,
                    1,
                    event.base or stake,
                    event.rides,
                ),
            )
        )

    def _fold_called(self, event: TurnCalled) -> None:
        bet = Bet(
            bet_id=event.bet,
            punter=event.punter,
            spot=CALL_SPOT,
            stake=event.amount,
            order=event.order,
            pays=event.pays,
            base=event.amount,
        )
        self._add_bet(bet)

    def _count(self, bet: Bet, sign: int) -> None:
        committed = self.marks_committed if bet.mark else self.chips_committed
        punter = bet.punter
        stake = bet.stake
        committed[punter] = committed.get(punter, 0) + sign * stake
        self.payout_bound += sign * stake * bet.pays

    def _add_bet(self, bet: Bet) -> None:
        bet_id, punter, spot, stake, coppered, mark, instruction, order, pays = bet[:9]
        self.bets[bet_id] = bet
        committed = self.marks_committed if mark else self.chips_committed
        committed[punter] = committed.get(punter, 0) + stake
        self.payout_bound += stake * pays
        if bet_id >= self.next_bet_id:
            self.next_bet_id = bet_id + 1
        if order is None:
            self.stack_index[(punter, spot.text, coppered, mark, instruction)] = bet_id
        if spot.standing:
            self.standing_bets.add(bet_id)
        by_rank = self.bets_by_rank
        for rank in spot.ranks:
            ids = by_rank.get(rank)
            if ids is None:
                by_rank[rank] = {bet_id}
            else:
                ids.add(bet_id)

    def _remove_bet(self, bet: Bet) -> None:
        bet_id, punter, spot, stake, coppered, mark, instruction, order, pays = bet[:9]
        del self.bets[bet_id]
        committed = self.marks_committed if mark else self.chips_committed
        committed[punter] -= stake
        self.payout_bound -= stake * pays
        if order is None:
            del self.stack_index[(punter, spot.text, coppered, mark, instruction)]
        if spot.standing:
            self.standing_bets.discard(bet_id)
        by_rank = self.bets_by_rank
        for rank in spot.ranks:
            by_rank[rank].discard(bet_id)

    def _replace_bet(self, old: Bet, new: Bet) -> None:
        self._count(old, -1)
        self._count(new, 1)
        self.bets[new.bet_id] = new

    def _fold_withdrawn(self, event: BetWithdrawn) -> None:
        bet = self.bets[event.bet]
        if event.stake == 0:
            self._remove_bet(bet)
        else:
            # A martingale goes back to the stake it started from after a win: chips taken
            # back leave that base as it was, unless less than it is left.
            base = min(bet.base, event.stake)
            self._replace_bet(bet, _restaked(bet, event.stake, base, bet.rides))

    def _fold_settled(self, event: BetSettled) -> None:
        bet = self.bets[event.bet]
        self.bankrolls[bet.punter] += event.net
        if self.rules.bank_passes:
            if self.banker is not None:
                self.bankrolls[self.banker] -= event.net
        else:
            self.bank -= event.net
        if event.stake == 0:
            self._remove_bet(bet)
        elif event.stake != bet.stake or bet.instruction is not None:
            # A win adds a ride and a loss starts over; a plie (003: no payment, the bet
            # stays) or chips taken for marks leave the paroli where it stood.
            outcome = event.outcome
            rides = bet.rides + 1 if outcome is _WIN else 0 if outcome is _LOSE else bet.rides
            self._replace_bet(bet, _restaked(bet, event.stake, bet.base, rides))


StackKey = tuple[str, str, bool, bool, "Instruction | None"]

# complete_event's two steps, for the bets and settlements that come by the hundred.
_new_object = object.__new__
_set_attribute = object.__setattr__

# Bet(...) and bet._replace(...) run the named tuple's Python methods; tuple.__new__ given
# every field in order makes the same tuple at a third of the cost, and a deal folds a bet
# or a new stake some two hundred times.
_new_tuple = tuple.__new__


def _restaked(bet: Bet, stake: int, base: int, rides: int) -> Bet:
    """``bet._replace(stake=stake, base=base, rides=rides)``, made at once."""
    bet_id, punter, spot, _, coppered, mark, instruction, order, pays = bet[:9]
    return _new_tuple(
        Bet, (bet_id, punter, spot, stake, coppered, mark, instruction, order, pays, base, rides)
    )


def stack_key(bet: Bet) -> StackKey:
    """Bets with the same key lie in one stack: a second bet adds to the first."""
    return (bet.punter, bet.spot.text, bet.coppered, bet.mark, bet.instruction)


_FOLDS: dict[type[Event], Callable[[FaroState, Any], None]] = {
    RulesChosen: FaroState._fold_rules,
    BankFunded: FaroState._fold_bank_funded,
    PunterSeated: FaroState._fold_seated,
    PunterLeft: FaroState._fold_left,
    BankerChosen: FaroState._fold_banker,
    BankPassed: FaroState._fold_bank_passed,
    DeckStarted: FaroState._fold_deck,
    CardDealt: FaroState._fold_card,
    BetsLocked: FaroState._fold_locked,
    TurnClosed: FaroState._fold_turn_closed,
    DealFinished: FaroState._fold_finished,
    DealVoided: FaroState._fold_voided,
    BetPlaced: FaroState._fold_bet_placed,
    TurnCalled: FaroState._fold_called,
    BetWithdrawn: FaroState._fold_withdrawn,
    BetSettled: FaroState._fold_settled,
    AlarmRaised: FaroState._fold_alarm,
    AlarmCleared: FaroState._fold_alarm_cleared,
    ReaderNotice: FaroState._fold_reader_notice,
    DealerCorrection: FaroState._fold_correction,
}
FaroState.folds = _FOLDS


class FaroTable(DealerDesk):
    """One Faro table: its rules, bank, punters and the deal in progress.

    >>> table = FaroTable(rules="classic")
    >>> table.state.rules.name
    'classic'
    """

    game = GAME
    consequences = _CONSEQUENCES
    stake_place = "spot"
    state: FaroState

    def __init__(
        self,
        table_id: str = "table",
        rules: str | FaroRules = "classic",
        options: Mapping[str, str] | None = None,
        *,
        at: float = 0.0,
    ) -> None:
        if isinstance(rules, FaroRules):
            # A rule set given whole keeps every option it was made with: told in the
            # opening event as the options it differs by, so that a replay folds the same.
            named = find_rules(rules.name).describe()
            given = {key: text for key, text in rules.describe().items() if named[key] != text}
            options = {**given, **(options or {})}
        name = rules if isinstance(rules, str) else rules.name
        self.state = FaroState(table=table_id, rules=find_rules(name, options))
        self._at = at
        self.opening: list[Event] = self.choose_rules(name, options)

    def _start_state(self, events: Sequence[Event], table_id: str) -> FaroState:
        return FaroState(table=table_id, rules=find_rules("classic"))

    def _undo_log(self, what: str) -> list[Event]:
        state = self.state
        if state.checkpoint is None or state.phase is Phase.NO_DECK:
            raise IllegalCommandError(f"{what}: no deal is running")
        return state.since_checkpoint

    # --- emitting -------------------------------------------------------------------------

    def _number(self) -> int:
        return self.state.deal

    # --- the table and its people ---------------------------------------------------------

    def choose_rules(
        self, name: str, options: Mapping[str, str] | None = None, *, at: float | None = None
    ) -> list[Event]:
        """Play by a named rule set with options overriding single rules, between deals."""
        rules = find_rules(name, options)
        state = self.state
        if state.phase not in (Phase.NO_DECK, Phase.FINISHED):
            raise RulesError(f"rules {name}: the rules change only between deals ({state.where()})")
        if rules.max_seats and len(state.seats) > rules.max_seats:
            raise RulesError(
                f"rules {name}: {len(state.seats)} seated, more than {rules.max_seats} "
                "(option max_seats); some must leave first"
            )
        out = self._begin(at)
        # Between deals only bets that stand until withdrawn lie on the layout; they were
        # taken under the old rules, and come back rather than play under new ones.
        for bet_id in sorted(state.bets):
            self._return(out, state.bets[bet_id], "the rules changed")
        texts = {key: str(value) for key, value in (options or {}).items()}
        self._emit(out, RulesChosen, game=GAME, rules=rules.name, options=texts)
        if not rules.bank_passes and state.banker is not None:
            # The house holds the bank from the next deck on: the last home banker is a
            # punter again, free to bet, to leave, and to bank if home rules come back. Said
            # in an event of its own, so that a journal written before folds as it did.
            self._emit(out, BankerChosen, banker="")
        return out

    def fund_bank(self, amount: int, *, at: float | None = None) -> list[Event]:
        """Put ``amount`` more chips in the bank (a casino bank; a home bank is the banker's)."""
        check_amount(f"bank {amount}", amount, held=self.state.bank)
        if self.state.rules.bank_passes:
            raise IllegalCommandError(
                f"bank {amount}: under {self.state.rules.name} rules the bank is the banker's "
                "own chips; seat the banker with their chips instead"
            )
        out = self._begin(at)
        self._emit(out, BankFunded, amount=amount, bankroll=self.state.bank + amount)
        return out

    def seat(self, punter: str, bankroll: int, *, at: float | None = None) -> list[Event]:
        check_name(punter)
        check_amount(f"punter {punter} {bankroll}", bankroll)
        if punter in self.state.bankrolls:
            raise IllegalCommandError(f"punter {punter}: already seated")
        if punter == "bank":
            raise IllegalCommandError("punter bank: 'bank' names the bank, not a punter")
        seats = self.state.rules.max_seats
        if seats and len(self.state.seats) >= seats:
            raise IllegalCommandError(
                f"punter {punter}: {self.state.rules.name} rules seat {seats} at most, and "
                f"{len(self.state.seats)} sit at the table (option max_seats)"
            )
        out = self._begin(at)
        self._emit(out, PunterSeated, punter=punter, bankroll=bankroll)
        return out

    def leave(self, punter: str, *, at: float | None = None) -> list[Event]:
        state = self.state
        self._check_seated(punter, f"leave {punter}")
        bets = state.bets_of(punter)
        if bets:
            spots = ", ".join(bet.spot.text for bet in bets)
            raise IllegalCommandError(
                f"leave {punter}: {punter} still has bets on the layout ({spots}); "
                "withdraw them first"
            )
        if punter == state.banker and state.phase not in (Phase.NO_DECK, Phase.FINISHED):
            raise IllegalCommandError(f"leave {punter}: the banker stays until the deal is over")
        out = self._begin(at)
        if punter == state.banker and len(state.seats) > 1:
            # 001: the bank goes to the player on the banker's left, as after a deal.
            seat = state.seats.index(punter)
            following = state.seats[(seat + 1) % len(state.seats)]
            self._emit(out, BankPassed, from_banker=punter, to_banker=following)
        self._emit(out, PunterLeft, punter=punter, bankroll=state.bankrolls[punter])
        return out

    def choose_banker(self, banker: str, *, at: float | None = None) -> list[Event]:
        state = self.state
        if not state.rules.bank_passes:
            raise IllegalCommandError(
                f"banker {banker}: under {state.rules.name} rules the house is the bank"
            )
        self._check_seated(banker, f"banker {banker}")
        if state.phase not in (Phase.NO_DECK, Phase.FINISHED):
            raise IllegalCommandError(f"banker {banker}: the bank changes hands between deals")
        if state.bets:
            raise IllegalCommandError(f"banker {banker}: bets are still on the layout")
        out = self._begin(at)
        self._emit(out, BankerChosen, banker=banker)
        return out

    # --- the deal -------------------------------------------------------------------------

    def new_deck(self, *, at: float | None = None) -> list[Event]:
        """The dealer shuffles and puts a new deck in the box."""
        state = self.state
        self._refuse_during_alarm("new deck")
        out = self._begin(at)
        if state.phase not in (Phase.NO_DECK, Phase.FINISHED, Phase.AWAITING_SODA):
            left = state.cards_left
            self._raise_alarm(
                out,
                AlarmKind.SHORT_DEAL,
                f"new deck {state.where()} with {left} cards still in the box: "
                "void the deal to start again, or void this alarm to go on dealing",
                None,
            )
            return out
        if state.rules.bank_passes:
            if len(state.seats) < 2:
                raise IllegalCommandError("new deck: a home game needs a banker and a punter")
            if state.banker is None:
                self._emit(out, BankerChosen, banker=state.seats[0])
        deal = state.deal if state.phase is Phase.AWAITING_SODA else state.deal + 1
        self._emit(
            out, DeckStarted, deal=deal, deck=state.rules.deck, cards=state.rules.deck_spec.size
        )
        return out

    def lock(self, *, at: float | None = None) -> list[Event]:
        """The dealer reaches for the box: no more bets until the turn is dealt."""
        state = self.state
        self._refuse_during_alarm("lock")
        if state.phase is Phase.LOCKED:
            raise IllegalCommandError(f"lock: bets are already locked for turn {state.turn + 1}")
        if state.phase is not Phase.BETTING:
            raise IllegalCommandError(f"lock: bets are not open ({state.where()})")
        out = self._begin(at)
        self._emit(out, BetsLocked, turn=state.turn + 1)
        return out

    def box_empty(self, *, at: float | None = None) -> list[Event]:
        """The shoe sensor says the box is empty: an alarm if cards should still be in it."""
        state = self.state
        out = self._begin(at)
        if state.phase in (Phase.NO_DECK, Phase.FINISHED) or state.alarm is not None:
            return out
        self._raise_alarm(
            out,
            AlarmKind.SHORT_DEAL,
            f"the box is empty {state.where()} but {state.cards_left} cards were never dealt: "
            "void the deal, or void this alarm if the box is not empty",
            None,
        )
        return out

    def _card_problem(self, card: Card) -> tuple[AlarmKind, str] | None:
        state = self.state
        deck = state.casekeep.deck  # the rules' deck, without their property's call
        if state.phase in (_NO_DECK, _FINISHED):
            if state.deal == 0:
                return AlarmKind.EXTRA_CARD, (
                    f"card {card}: no deck has been started, so the box should be empty "
                    "(shuffle starts a deck)"
                )
            return AlarmKind.EXTRA_CARD, f"card {card} {state.where()}: the box should be empty"
        if card not in deck.card_set:
            return AlarmKind.UNKNOWN_CARD, f"card {card} is not in a {deck.name} deck"
        entry = state.casekeep.entry_for(card)
        if entry is not None:
            seen = (
                "as the soda"
                if entry.role is CardRole.SODA
                else (f"as the {entry.role.value} of turn {entry.turn}")
            )
            return AlarmKind.DUPLICATE_CARD, f"card {card} was already dealt {seen}"
        return None

    def _take_card(self, out: list[Event], card: Card) -> None:
        state = self.state
        phase = state.phase
        if phase is _AWAITING_SODA:
            self._card_dealt(out, card, _SODA, 0)
        elif phase is _BETTING or phase is _LOCKED:
            turn = state.turn + 1
            if phase is _BETTING:
                self._record(out, BetsLocked, {
                    "table": state.table, "seq": state.last_seq + 1, "at": self._at,
                    "deal": state.deal, "turn": turn, "by_card": True,
                }, FaroState._fold_locked)  # fmt: skip
            self._card_dealt(out, card, _LOSER, turn)
        elif phase is _IN_TURN:
            self._card_dealt(out, card, _WINNER, state.turn)
            self._close_turn(out, card)
        else:  # AWAITING_HOC
            self._card_dealt(out, card, _HOC, state.turn)
            self._finish_deal(out, card)

    def _card_dealt(self, out: list[Event], card: Card, role: CardRole, turn: int) -> None:
        state = self.state
        self._record(out, CardDealt, {
            "table": state.table, "seq": state.last_seq + 1, "at": self._at, "deal": state.deal,
            "card": card, "role": role, "turn": turn, "face_down": False,
        }, FaroState._fold_card)  # fmt: skip

    def _close_turn(self, out: list[Event], winner: Card) -> None:
        state = self.state
        loser = state.pending_loser
        assert loser is not None
        rules = state.rules
        turn = state.turn
        touched: set[int] = set(state.standing_bets)
        by_rank = state.bets_by_rank
        touched.update(by_rank.get(loser.rank, ()))
        touched.update(by_rank.get(winner.rank, ()))
        bets = state.bets
        table, deal, at = state.table, state.deal, self._at
        may_stay = rules.winning_bets_stay
        # DealerDesk._record, written out for the settlements a turn makes by the dozen.
        log = state.since_checkpoint if state.checkpoint is not None else None
        fold_settled = FaroState._fold_settled
        for bet_id in sorted(touched):
            bet = bets[bet_id]
            # Unpacked once: a named tuple's fields, read by name, each take a slow lookup.
            _, punter, spot, stake, coppered, _, instruction = bet[:7]
            decision = decide(spot, stake, coppered, loser, winner, rules)
            if decision is None:
                if spot.ranks:
                    self._return_if_dead(out, bet)
                continue
            outcome, net, stays, note = decision
            if stays or instruction is not None or may_stay:
                stake, stays_note = self._stake_after(bet, decision)
                note = stays_note or note
            else:
                stake = 0
            seq = state.last_seq + 1
            event = _new_object(BetSettled)
            _set_attribute(event, "__dict__", {
                "table": table, "seq": seq, "at": at, "deal": deal,
                "bet": bet_id, "punter": punter, "spot": spot.text, "outcome": outcome,
                "net": net, "stake": stake, "turn": turn, "note": note,
            })  # fmt: skip
            if log is not None:
                log.append(event)
            fold_settled(state, event)
            state.last_seq = seq
            out.append(event)
        self._record(out, TurnClosed, {
            "table": table, "seq": state.last_seq + 1, "at": at, "deal": deal, "turn": turn,
            "loser": loser, "winner": winner, "split": loser.rank == winner.rank,
            "cards_left": state.casekeep.cards_left,
        }, FaroState._fold_turn_closed)  # fmt: skip
        self._return_uncovered(out)

    def _return_if_dead(self, out: list[Event], bet: Bet) -> None:
        """A bet between two ranks that stood (001) on the last card of each can never be
        settled: the dealer hands it back now rather than keep the chips from the punter's
        hand until the deal is over."""
        casekeep = self.state.casekeep
        ranks = bet.spot.ranks
        if casekeep.all_dead(ranks):
            labels = " and ".join(rank.label for rank in ranks)
            self._return(out, bet, f"{labels} are dead: nothing is left to settle it")

    def _stake_after(self, bet: Bet, decision: Decision) -> tuple[int, str]:
        """What stays on the spot after a decision: standing bets, 001's winners, progressions."""
        state = self.state
        instruction = bet.instruction
        won = decision.outcome is _WIN
        if instruction is not None and decision.outcome in (_WIN, _LOSE):
            if instruction.kind == "paroli":
                if not won:
                    return 0, "paroli ends with the loss"
                if bet.rides + 1 >= instruction.limit:
                    return 0, f"paroli: {instruction.limit} wins ridden, the bet comes down"
                next_stake = bet.stake * 2
            else:
                next_stake = bet.base if won else bet.stake * 2
                if next_stake > instruction.limit:
                    return (
                        0,
                        f"martingale stops: {next_stake} would pass the cap {instruction.limit}",
                    )
            refusal = self._ride_refusal(bet, next_stake, decision.net)
            if refusal:
                return 0, f"{instruction.kind} stops: {refusal}"
            return next_stake, f"{instruction.kind}: {next_stake} stands on {bet.spot.text}"
        if decision.stays:
            # 003: a standing bet stays on the table and a loss is paid from the chips in
            # hand; with none left to pay it, the stake itself is taken and the bet is gone.
            refusal = None if won else self._ride_refusal(bet, bet.stake, decision.net)
            if refusal is None:
                return bet.stake, decision.note
            return 0, f"the stake pays the loss: {refusal}"
        if won and state.rules.winning_bets_stay and not bet.spot.standing and bet.order is None:
            refusal = self._ride_refusal(bet, bet.stake, decision.net)
            if refusal is None:
                return bet.stake, "the winning bet stays on the layout"
        return 0, ""

    def _ride_refusal(self, bet: Bet, next_stake: int, net: int) -> str | None:
        state = self.state
        if bet.spot.ranks and state.casekeep.all_dead(bet.spot.ranks):
            return f"{bet.spot.text} is dead"
        if state.rules.max_bet and next_stake > state.rules.max_bet:
            return f"{next_stake} is over the table maximum {state.rules.max_bet}"
        if not bet.mark:
            in_hand = state.available(bet.punter) + bet.stake + net
            if next_stake > in_hand:
                return f"{bet.punter} has only {in_hand} chips in hand"
        return None

    def _return_uncovered(self, out: list[Event]) -> None:
        """After a turn, the layout must still be covered: by the punter's chips (a loss on
        marks is paid from the chips on the layout, 003), marks by chips, and the worst
        turn by the bank. What is not covered comes down, newest first."""
        state = self.state
        if state.marks_committed:
            for punter in list(state.seats):
                self._pay_marks_from_layout(out, punter)
                while True:
                    bets = state.bets_of(punter)
                    if self._marks_uncovered(punter, bets) is None:
                        break
                    newest = max((bet for bet in bets if bet.mark), key=lambda bet: bet.bet_id)
                    self._return(out, newest, "the marks are no longer matched by chips elsewhere")
        while state.bets and self._bank_exposure() > state.bank_bankroll:
            newest = max(state.bets.values(), key=lambda bet: bet.bet_id)
            self._return(out, newest, "the bank cannot cover it")

    def _pay_marks_from_layout(self, out: list[Event], punter: str) -> None:
        state = self.state
        while state.chips_on_layout(punter) > state.bankrolls[punter]:
            shortfall = state.chips_on_layout(punter) - state.bankrolls[punter]
            chips = [bet for bet in state.bets_of(punter) if not bet.mark]
            if not chips:
                break
            newest = max(chips, key=lambda bet: bet.bet_id)
            taken = min(newest.stake, shortfall)
            left = newest.stake - taken
            # The loss was paid by the bankroll already: these chips only leave the layout.
            self._return(
                out, newest, f"{taken} chips taken to pay a loss on marks", left, Outcome.TAKEN
            )
            if 0 < left < state.rules.min_bet:
                self._return(out, state.bets[newest.bet_id], "under the table minimum")

    def _return(
        self,
        out: list[Event],
        bet: Bet,
        note: str,
        stake_left: int = 0,
        outcome: Outcome = Outcome.RETURNED,
    ) -> None:
        self._emit(
            out,
            BetSettled,
            bet=bet.bet_id,
            punter=bet.punter,
            spot=bet.spot.text,
            outcome=outcome,
            net=0,
            stake=stake_left,
            turn=self.state.turn,
            note=note,
        )

    def _finish_deal(self, out: list[Event], hoc: Card) -> None:
        state = self.state
        loser, winner = state.last_turn or (hoc, hoc)
        # 003's high card and odd/even stay for the next deal, against a bank that stays the
        # house's; where the bank passes, the banker who took them is no longer the bank.
        carried = () if state.rules.bank_passes else UNTIL_WITHDRAWN_KINDS
        for bet_id in sorted(state.bets):
            bet = state.bets[bet_id]
            if bet.spot.kind in carried:
                continue
            if bet.order is not None:
                won = call_matches(bet.order, loser, winner, hoc)
                net = bet.stake * bet.pays if won else -bet.stake
                self._emit(
                    out,
                    BetSettled,
                    bet=bet.bet_id,
                    punter=bet.punter,
                    spot=CALL_SPOT.text,
                    outcome=_WIN if won else _LOSE,
                    net=net,
                    stake=0,
                    turn=state.turn,
                    note=f"called {' '.join(bet.order)}; came "
                    f"{_call_words(bet.order, loser, winner, hoc)}",
                )
            else:
                on_hoc = hoc.rank in bet.spot.ranks
                self._return(out, bet, "on the hoc's rank" if on_hoc else "the deal is over")
        # What stays must still be covered: by chips for its marks, by the bank after the calls.
        self._return_uncovered(out)
        self._emit(
            out,
            DealFinished,
            hoc=hoc,
            splits=state.splits,
            bank=state.bank_bankroll,
            bankrolls=dict(state.bankrolls),
        )
        if state.rules.bank_passes and state.banker is not None and len(state.seats) > 1:
            seat = state.seats.index(state.banker)
            following = state.seats[(seat + 1) % len(state.seats)]
            self._emit(out, BankPassed, from_banker=state.banker, to_banker=following)

    # --- bets -----------------------------------------------------------------------------

    def bet(
        self,
        punter: str,
        spot: str | Spot,
        amount: int,
        *,
        copper: bool = False,
        mark: bool = False,
        instruction: str = "",
        at: float | None = None,
    ) -> list[Event]:
        """A punter puts ``amount`` on a spot (``9``, ``4+5``, ``J>K``, ``high``, ``red`` …)."""
        parsed = spot if isinstance(spot, Spot) else parse_spot(spot)
        what = f"bet on {parsed.text}"
        self._check_bet(punter, parsed, amount, copper=copper, mark=mark, what=what)
        progression = Instruction.parse(instruction) if instruction else None
        state = self.state
        if progression is not None and not state.rules.progressions:
            raise BetRefusedError(
                f"{what}: standing instructions ({progression.text}) are a Saratoga Faro rule, "
                f"not offered under {state.rules.name} rules"
            )
        # _stack and _begin, written out: every bet of a deal comes this way.
        existing_id = state.stack_index.get((punter, parsed.text, copper, mark, progression))
        existing = None if existing_id is None else state.bets[existing_id]
        stake = amount if existing is None else amount + existing.stake
        rules = state.rules
        if stake < rules.min_bet or (rules.max_bet and stake > rules.max_bet):
            self._check_limits(what, stake)  # refused: it says which limit
        if progression is not None:
            base = amount if existing is None else amount + existing.base
            progression.check_first_stake(what, base, stake, state.rules.max_bet)
            if existing is not None:
                stack = f"{punter}'s {progression.text} on {parsed.text}"
                progression.check_added(what, stack, amount, stake)
        self._check_funds(what, punter, parsed, amount, copper, mark)
        if at is not None:
            self._at = at
        # DealerDesk._record, written out: every bet of a deal comes this way.
        seq = state.last_seq + 1
        event = _new_object(BetPlaced)
        _set_attribute(event, "__dict__", {
            "table": state.table, "seq": seq, "at": self._at, "deal": state.deal,
            "bet": state.next_bet_id if existing_id is None else existing_id, "punter": punter,
            "spot": parsed.text, "amount": amount, "stake": stake, "coppered": copper,
            "mark": mark, "instruction": progression.text if progression else "", "base": 0,
            "rides": 0,
        })  # fmt: skip
        if state.checkpoint is not None:
            state.since_checkpoint.append(event)
        state._fold_bet_placed(event)
        state.last_seq = seq
        return [event]

    def _stack(
        self, punter: str, spot: Spot, copper: bool, mark: bool, instruction: Instruction | None
    ) -> Bet | None:
        bet_id = self.state.stack_index.get((punter, spot.text, copper, mark, instruction))
        return None if bet_id is None else self.state.bets[bet_id]

    def _check_open(self, what: str) -> None:
        state = self.state
        phase = state.phase
        if phase is _BETTING and state.alarm is None:
            return
        self._refuse_during_alarm(what)
        if phase in (_LOCKED, _IN_TURN, _AWAITING_HOC):
            turn = state.turn + 1 if phase is _LOCKED else state.turn
            raise BetRefusedError(f"{what}: bets are locked while turn {turn} is dealt")
        if phase is _AWAITING_SODA:
            raise BetRefusedError(f"{what}: bets open once the soda is out (deal {state.deal})")
        raise BetRefusedError(f"{what}: no deal is running ({state.where()}); start a new deck")

    def _check_bet(
        self,
        punter: str,
        spot: Spot,
        amount: int,
        *,
        copper: bool,
        mark: bool,
        what: str,
        moving: Bet | None = None,
    ) -> None:
        state = self.state
        rules = state.rules
        if type(amount) is not int or amount <= 0:
            check_amount(what, amount)
        if state.phase is not _BETTING or state.alarm is not None:
            self._check_open(what)
        if punter not in state.bankrolls:
            self._check_seated(punter, what)
        if punter == state.banker:
            raise BetRefusedError(f"{what}: {punter} holds the bank and does not bet against it")
        kind = spot.kind
        if kind is _CALL:
            raise BetRefusedError(
                f"{what}: call the turn with 'call PUNTER LOSER WINNER HOC AMOUNT'"
            )
        colour = kind in COLOUR_KINDS
        if colour and not rules.colour_bets:
            raise BetRefusedError(
                f"{what}: colour bets are Dutch Faro's, not offered under {rules.name} rules"
            )
        if not colour and not rules.rank_bets:
            raise BetRefusedError(f"{what}: {rules.name} rules take only red or black")
        if copper and (colour or kind is _WIN_LOSE):
            raise BetRefusedError(
                f"{what}: this bet already names which way it goes; it takes no copper"
            )
        if mark and not rules.betting_marks:
            raise BetRefusedError(f"{what}: betting marks are not used under {rules.name} rules")
        casekeep = state.casekeep
        for rank in spot.ranks:
            if casekeep.left(rank):  # a rank the deck has not has none left either
                continue
            if rank not in rules.deck_spec.rank_set:
                raise BetRefusedError(f"{what}: a {rules.deck_spec.name} deck has no {rank.label}")
            out = casekeep.out_count(rank)
            raise BetRefusedError(
                f"{what}: rank {rank.label} is dead ({out} of {out} out) {state.where()}"
            )
        if rules.no_bets_on_cases and spot.ranks:
            others = [bet for bet in state.bets_of(punter) if bet is not moving]
            self._check_cases(what, [*others, Bet(0, punter, spot, 1)])

    def _check_cases(self, what: str, bets: Sequence[Bet]) -> None:
        """003: most houses take a bet on cases only from a punter who also backs a rank that
        can still split; on the last turn the three cards are backed as usual."""
        state = self.state
        if state.is_last_turn_next:
            return
        casekeep = state.casekeep
        on_cases = [
            bet
            for bet in bets
            if bet.spot.ranks and all(casekeep.is_cases(rank) for rank in bet.spot.ranks)
        ]
        if not on_cases:
            return
        if any(casekeep.left(rank) >= 2 for bet in bets for rank in bet.spot.ranks):
            return
        cases = ", ".join(dict.fromkeys(_on_cases(bet.spot) for bet in on_cases))
        raise BetRefusedError(
            f"{what}: {cases}; the house takes a bet on cases only "
            "from a punter who also backs a rank that can still split"
        )

    def _check_funds(
        self,
        what: str,
        punter: str,
        spot: Spot,
        amount: int,
        copper: bool,
        mark: bool,
        *,
        pays: int = 1,
        order: tuple[str, str, str] | None = None,
        freed: int = 0,
        moving: Bet | None = None,
    ) -> None:
        state = self.state
        if not mark:
            in_hand = state.bankrolls[punter] - state.chips_committed.get(punter, 0) + freed
            if amount > in_hand:
                raise BetRefusedError(f"{what}: {punter} has only {in_hand} chips in hand")
        if mark or state.marks_committed.get(punter):
            after = [bet for bet in state.bets_of(punter) if bet is not moving]
            self._check_marks_covered(
                what, punter, [*after, Bet(0, punter, spot, amount, copper, mark)]
            )
        leaving = moving.max_payout if moving is not None else 0
        # A house bank is read as it lies, without the property's call: every bet asks.
        bank = state.bank_bankroll if state.rules.bank_passes else state.bank
        if state.payout_bound - leaving + amount * pays <= bank:
            return
        exposure = self._bank_exposure(spot, amount, copper, pays, moving, order)
        if exposure > state.bank_bankroll:
            raise BetRefusedError(
                f"{what}: the bank ({state.bank_bankroll}) cannot cover the layout if it loses "
                f"(worst turn: {exposure})"
            )

    def _bank_exposure(
        self,
        spot: Spot | None = None,
        amount: int = 0,
        copper: bool = False,
        pays: int = 1,
        moving: Bet | None = None,
        order: tuple[str, str, str] | None = None,
    ) -> int:
        """The most the bank can pay in one turn, with a new bet if one is given (the bet
        ``moving`` taken from where it lies; ``order`` a call's): a quick bound first,
        computed exactly over every pair of live ranks when the bound is short, and from
        the last turn to the hoc over the orders its cards may still come in."""
        state = self.state
        bound = state.payout_bound + amount * pays
        if moving is not None:
            bound -= moving.max_payout
        if bound <= state.bank_bankroll:
            return bound
        bets = [bet for bet in state.bets.values() if bet is not moving]
        if spot is not None:
            bets.append(Bet(0, "", spot, amount, copper, order=order, pays=pays))
        if state.is_last_turn_next or (state.phase is _AWAITING_HOC and state.cards_left):
            return self._last_turn_exposure(bets)
        rank_bets = [bet for bet in bets if _decided_by_ranks(bet)]
        colour_bets = [bet for bet in bets if bet.spot.kind in COLOUR_KINDS]
        others = sum(
            bet.max_payout
            for bet in bets
            if not _decided_by_ranks(bet) and bet.spot.kind not in COLOUR_KINDS
        )
        worst = 0
        for loser_rank, winner_rank in self._next_turn_ranks():
            worst = max(worst, _bank_pays(rank_bets, loser_rank, winner_rank, state.rules))
        if colour_bets:
            worst += _colour_pays(colour_bets, self._next_turn_colours(), state.rules)
        return worst + others

    def _next_turn_ranks(self) -> list[tuple[Rank, Rank]]:
        """The loser's and winner's ranks the next turn may bring: of the live ranks, a rank
        twice only while two of it are left; once the deal is over, those of the next deal's
        first turn, where any two may come (the standing bets stay for it)."""
        casekeep = self.state.casekeep
        live = casekeep.live_ranks()
        if not live:
            ranks = self.state.rules.deck_spec.ranks
            return [(loser, winner) for loser in ranks for winner in ranks]
        return [
            (loser, winner)
            for loser in live
            for winner in live
            if loser != winner or casekeep.left(loser) >= 2
        ]

    def _next_turn_colours(self) -> list[tuple[Card, Card]]:
        """A card of the loser's colour and one of the winner's for each pair of colours the
        next turn may bring: a colour twice only while two of it are left; once the deal is
        over, any two (a new deck's first turn)."""
        casekeep = self.state.casekeep
        pairs = [(loser, winner) for loser in _COLOUR_CARDS for winner in _COLOUR_CARDS]
        if not casekeep.cards_left:
            return pairs
        left = Counter(card.colour for card in casekeep.remaining_cards())
        return [
            (loser, winner)
            for loser, winner in pairs
            if Counter((loser.colour, winner.colour)) <= left
        ]

    def _last_turn_exposure(self, bets: Sequence[Bet]) -> int:
        """The most the bank can pay from the last turn to the hoc, over every order the
        three cards left may come in; once the last turn is out, over the one order left,
        when only the calls are still to settle (the other bets come back with the hoc or
        stand for the next deal). A call is paid only if the cards come in its order, so of
        calls on different orders one at most is paid."""
        state = self.state
        left = state.casekeep.remaining_cards()
        calls = [(bet.order, bet.max_payout) for bet in bets if bet.order is not None]
        if state.phase is _AWAITING_HOC:
            assert state.last_turn is not None
            orders = [(*state.last_turn, left[0])]
            turn_bets: list[Bet] = []
        else:
            orders = [(first, second, third) for first, second, third in permutations(left)]
            turn_bets = [bet for bet in bets if bet.order is None]
        worst = 0
        for loser, winner, hoc in orders:
            paid = sum(payout for order, payout in calls if call_matches(order, loser, winner, hoc))
            paid += _turn_pays(turn_bets, loser, winner, state.rules)
            worst = max(worst, paid)
        return worst

    def _worst_turn_loss(self, bets: Sequence[Bet]) -> int:
        """The most these bets of one punter can lose in the next turn."""
        state = self.state
        rank_bets = [bet for bet in bets if _decided_by_ranks(bet)]
        other = sum(bet.stake for bet in bets if not _decided_by_ranks(bet))
        worst = 0
        for loser_rank, winner_rank in self._next_turn_ranks():
            worst = max(worst, -_bank_pays(rank_bets, loser_rank, winner_rank, state.rules))
        return worst + other

    def _check_marks_covered(self, what: str, punter: str, bets: Sequence[Bet]) -> None:
        reason = self._marks_uncovered(punter, bets)
        if reason is not None:
            raise BetRefusedError(f"{what}: {reason}")

    def _marks_uncovered(self, punter: str, bets: Sequence[Bet]) -> str | None:
        """Why a punter's ``bets`` leave their marks uncovered, or None: 003, each mark is
        matched by an equal amount in chips somewhere else on the layout, and what one turn
        can cost the punter must not pass their chips, since a loss on marks is paid in chips."""
        marks_on: dict[Spot, int] = {}
        chips_on: dict[Spot, int] = {}
        for bet in bets:
            tally = marks_on if bet.mark else chips_on
            tally[bet.spot] = tally.get(bet.spot, 0) + bet.stake
        marks = sum(marks_on.values())
        if not marks:
            return None
        chips = sum(chips_on.values())
        if marks > chips:
            return (
                f"{marks} in marks would pass the {chips} in chips {punter} would have on "
                "the layout (003: each mark must be matched by chips)"
            )
        # Chips may match marks on any spot but their own, so with the total covered only
        # a spot whose marks pass the chips lying elsewhere can be left unmatched.
        for spot, marked in marks_on.items():
            elsewhere = chips - chips_on.get(spot, 0)
            if marked > elsewhere:
                return (
                    f"{marked} in marks on {spot.text} would pass the {elsewhere} in chips "
                    f"{punter} would have elsewhere on the layout (003: chips on the mark's "
                    "own spot do not match it; they must lie somewhere else)"
                )
        worst = self._worst_turn_loss(bets)
        bankroll = self.state.bankrolls[punter]
        if worst > bankroll:
            return (
                f"one turn could cost {punter} {worst} with their marks, "
                f"more than their {bankroll} chips"
            )
        return None

    def withdraw(
        self,
        punter: str,
        spot: str | Spot,
        amount: int | None = None,
        *,
        copper: bool | None = None,
        order: Sequence[str] | None = None,
        mark: bool | None = None,
        at: float | None = None,
    ) -> list[Event]:
        """Take a bet (or ``amount`` of it) back between turns; ``order`` names one call of
        the turn by its loser, winner and hoc, as it was called; ``copper`` and ``mark``
        choose among the punter's stacks on the spot."""
        parsed = spot if isinstance(spot, Spot) else parse_spot(spot)
        what = f"withdraw {punter} {parsed.text}"
        if order is not None:
            what += " " + " ".join(order)
        state = self.state
        # Between deals only bets that stand until withdrawn lie on the layout: they may go.
        between_deals = state.phase in (Phase.NO_DECK, Phase.FINISHED, Phase.AWAITING_SODA)
        if state.alarm is not None or not between_deals:
            self._check_open(what)
        self._check_seated(punter, what)
        stacks = self._stacks_on(punter, parsed, copper, mark)
        if parsed.kind is SpotKind.CALL:
            stacks = self._calls_named(what, punter, stacks, order, amount)
        elif order is not None:
            raise BetRefusedError(f"{what}: only a call of the turn is named by its cards")
        if amount is not None:
            check_amount(what, amount)
            if len(stacks) > 1:
                raise _several_stacks(what, punter, stacks)
            stake = stacks[0].stake
            if amount > stake:
                raise BetRefusedError(f"{what}: only {stake} lies there")
            if 0 < stake - amount < self.state.rules.min_bet:
                raise BetRefusedError(
                    f"{what}: {stake - amount} would be left, "
                    f"under the table minimum {self.state.rules.min_bet}"
                )
        self._check_what_stays(what, punter, stacks, amount)
        out = self._begin(at)
        for bet in stacks:
            taken = bet.stake if amount is None else amount
            self._emit(
                out,
                BetWithdrawn,
                bet=bet.bet_id,
                punter=punter,
                spot=bet.spot.text,
                amount=taken,
                stake=bet.stake - taken,
                coppered=bet.coppered,
                mark=bet.mark,
            )
        # A withdrawn bet may have hedged another (a coppered bet against a plain one on the
        # same rank): what the bank can no longer cover comes down, as after a turn.
        self._return_uncovered(out)
        return out

    def _check_what_stays(
        self, what: str, punter: str, taken: Sequence[Bet], amount: int | None
    ) -> None:
        """A withdrawal must leave the punter's marks covered and no bet on cases alone."""
        state = self.state
        rules = state.rules
        if not (state.marks_committed.get(punter) or rules.no_bets_on_cases):
            return
        staying = [bet for bet in state.bets_of(punter) if bet not in taken]
        if amount is not None:
            staying += [bet._replace(stake=bet.stake - amount) for bet in taken]
            staying = [bet for bet in staying if bet.stake]
        self._check_marks_covered(what, punter, staying)
        if rules.no_bets_on_cases:
            self._check_cases(what, staying)

    def _calls_named(
        self,
        what: str,
        punter: str,
        calls: list[Bet],
        order: Sequence[str] | None,
        amount: int | None,
    ) -> list[Bet]:
        """The call ``order`` names among a punter's ``calls``; all of them when none is
        named, unless a part of one is taken (``amount``): then one must be named."""
        called = ", ".join(f"{' '.join(bet.order or ())} for {bet.stake}" for bet in calls)
        if order is None:
            if amount is not None and len(calls) > 1:
                example = f"withdraw {punter} call {' '.join(calls[0].order or ())} {amount}"
                raise BetRefusedError(
                    f"{what}: {punter} has {len(calls)} calls ({called}); "
                    f"name one by its cards, e.g. {example}"
                )
            return calls
        named = _named_order(order)
        chosen = [bet for bet in calls if bet.order == named]
        if not chosen:
            raise BetRefusedError(
                f"{what}: {punter} made no such call ({punter}'s calls: {called})"
            )
        return chosen

    def _stacks_on(
        self, punter: str, spot: Spot, copper: bool | None, mark: bool | None = None
    ) -> list[Bet]:
        stacks = [
            bet
            for bet in self.state.bets_of(punter)
            if bet.spot == spot
            and (copper is None or bet.coppered == copper)
            and (mark is None or bet.mark == mark)
        ]
        if not stacks:
            kind = {None: "", True: "coppered ", False: "uncoppered "}[copper]
            made = {None: "", True: " in marks", False: " in chips"}[mark]
            raise BetRefusedError(
                f"{punter} has no {kind}bet{made} on {spot.text} ({self.state.where()})"
            )
        return sorted(stacks, key=lambda bet: bet.bet_id)

    def move(
        self,
        punter: str,
        from_spot: str | Spot,
        to_spot: str | Spot,
        *,
        copper: bool | None = None,
        mark: bool | None = None,
        at: float | None = None,
    ) -> list[Event]:
        """Move a bet to another spot between turns (a withdrawal and a new bet in one)."""
        source = from_spot if isinstance(from_spot, Spot) else parse_spot(from_spot)
        target = to_spot if isinstance(to_spot, Spot) else parse_spot(to_spot)
        what = f"move {punter} {source.text} to {target.text}"
        self._check_open(what)
        self._check_seated(punter, what)
        stacks = self._stacks_on(punter, source, copper, mark)
        if source.kind is SpotKind.CALL:
            raise BetRefusedError(f"{what}: a call cannot be moved; withdraw it and call again")
        if len(stacks) > 1:
            raise _several_stacks(what, punter, stacks)
        bet = stacks[0]
        if target == source:
            raise BetRefusedError(f"{what}: the bet already lies on {source.text}")
        self._check_bet(
            punter, target, bet.stake, copper=bet.coppered, mark=bet.mark, what=what, moving=bet
        )
        existing = self._stack(punter, target, bet.coppered, bet.mark, bet.instruction)
        if existing is not None and bet.instruction is not None:
            raise BetRefusedError(
                f"{what}: {punter}'s {bet.instruction.text} bet on {target.text} would take "
                "this one in, and one stack cannot follow two progressions; withdraw one first"
            )
        stake = bet.stake + (existing.stake if existing else 0)
        self._check_limits(what, stake)
        freed = 0 if bet.mark else bet.stake
        self._check_funds(
            what, punter, target, bet.stake, bet.coppered, bet.mark, freed=freed, moving=bet
        )
        out = self._begin(at)
        self._emit(
            out,
            BetWithdrawn,
            bet=bet.bet_id,
            punter=punter,
            spot=source.text,
            amount=bet.stake,
            stake=0,
            coppered=bet.coppered,
            mark=bet.mark,
        )
        self._emit(
            out,
            BetPlaced,
            bet=existing.bet_id if existing else self.state.next_bet_id,
            punter=punter,
            spot=target.text,
            amount=bet.stake,
            stake=stake,
            coppered=bet.coppered,
            mark=bet.mark,
            instruction=bet.instruction.text if bet.instruction else "",
            # A progression goes on from where it stood on the spot it left.
            base=bet.base if bet.instruction else 0,
            rides=bet.rides if bet.instruction else 0,
        )
        return out

    def call(
        self, punter: str, order: Sequence[str], amount: int, *, at: float | None = None
    ) -> list[Event]:
        """Call the turn: the order of loser, winner and hoc of the last three cards."""
        state = self.state
        words = tuple(word.strip() for word in order)
        what = f"call {punter} {' '.join(words)}"
        check_amount(what, amount)
        self._refuse_during_alarm(what)
        if not state.rules.rank_bets:
            raise BetRefusedError(
                f"{what}: {state.rules.name} rules take only red or black, and have no call"
            )
        if not state.is_last_turn_next:
            raise BetRefusedError(
                f"{what}: the turn is called only before the last turn, with three cards in the "
                f"box ({state.where()}, {state.cards_left} cards left)"
            )
        self._check_seated(punter, what)
        if punter == state.banker:
            raise BetRefusedError(f"{what}: {punter} holds the bank")
        if len(words) != 3:
            raise BetRefusedError(f"{what}: name three cards: loser, winner, hoc")
        last_three = state.casekeep.remaining_cards()
        kind = call_kind(last_three, state.rules)
        if kind is None:
            raise BetRefusedError(
                f"{what}: the last three are all {last_three[0].rank.label}s and "
                f"{state.rules.name} rules allow no call on three of a kind"
            )
        canonical = self._call_order(what, words, last_three, kind.name)
        existing = next((b for b in state.bets_of(punter) if b.order == canonical), None)
        stake = amount + (existing.stake if existing else 0)
        self._check_limits(what, stake)
        self._check_funds(
            what, punter, CALL_SPOT, amount, False, False, pays=kind.pays, order=canonical
        )
        out = self._begin(at)
        if existing is not None:
            self._emit(
                out,
                BetPlaced,
                bet=existing.bet_id,
                punter=punter,
                spot=CALL_SPOT.text,
                amount=amount,
                stake=stake,
            )
        else:
            self._emit(
                out,
                TurnCalled,
                bet=state.next_bet_id,
                punter=punter,
                order=canonical,
                amount=amount,
                pays=kind.pays,
            )
        return out

    def _call_order(
        self, what: str, words: tuple[str, ...], last_three: list[Card], kind: str
    ) -> tuple[str, str, str]:
        named = _named_order(words)
        by_colour = named is not None and named[0] in _COLOURS
        if kind == "colour":
            if not by_colour:
                raise BetRefusedError(
                    f"{what}: the last three are of one rank; "
                    "call their colours, e.g. red black red"
                )
            actual = sorted(card.colour.value for card in last_three)
        else:
            if named is None or by_colour:
                raise BetRefusedError(
                    f"{what}: name three ranks, loser first, then winner, then hoc"
                )
            actual = sorted(card.rank.label for card in last_three)
        assert named is not None
        if sorted(named) != actual:
            left = " ".join(card.pretty for card in last_three)
            raise BetRefusedError(f"{what}: only the cards left can be called ({left})")
        return (named[0], named[1], named[2])

    # --- the dealer's corrections ---------------------------------------------------------

    def void_deal(
        self, reason: str = "voided by the dealer", *, at: float | None = None
    ) -> list[Event]:
        """Abandon the deal: every open bet goes back to its punter."""
        state = self.state
        if state.phase in (Phase.NO_DECK, Phase.FINISHED):
            # A deal that is over stays as it ended, its standing bets with it: a stray card
            # after it is voided alone.
            advice = "; void the card alone" if state.alarm is not None else ""
            raise IllegalCommandError(f"void deal: no deal is running ({state.where()}){advice}")
        out = self._begin(at)
        if state.alarm is not None:
            self._emit(out, AlarmCleared, alarm=state.alarm.alarm_id, resolution="deal voided")
        for bet_id in sorted(state.bets):
            self._return(out, state.bets[bet_id], "the deal was voided")
        self._emit(
            out,
            DealVoided,
            reason=reason,
            bank=state.bank_bankroll,
            bankrolls=dict(state.bankrolls),
        )
        return out

    # --- the table language ---------------------------------------------------------------

    def apply(self, command: Any, *, at: float | None = None) -> list[Event]:
        """Carry out one parsed line of the table language (see :mod:`table.language`)."""
        from table.faro.commands import run_command

        return run_command(self, command, at=at)


def _several_stacks(what: str, punter: str, stacks: Sequence[Bet]) -> BetRefusedError:
    """The refusal of a line that must take one of a punter's stacks on a spot and names
    none: it says what tells them apart and the words that choose one."""
    labels = ", ".join(bet.label.removeprefix(f"{punter} ") for bet in stacks)
    kinds, words = [], []
    if len({bet.coppered for bet in stacks}) > 1:
        kinds.append("plain and coppered bets")
        words.append("copper or plain")
    if len({bet.mark for bet in stacks}) > 1:
        kinds.append("chips and marks")
        words.append("mark or chips")
    if not words:  # Saratoga: stacks that differ only by their progressions
        return BetRefusedError(
            f"{what}: {punter} has bets with different progressions there ({labels}); "
            "take them back whole"
        )
    return BetRefusedError(
        f"{what}: {punter} has {' and '.join(kinds)} there ({labels}); say {' and '.join(words)}"
    )


def _on_cases(spot: Spot) -> str:
    """What a spot whose every rank is cases has left: one card of its rank, or of each of
    a group's ranks, not one card in all."""
    if len(spot.ranks) == 1:
        return f"{spot.text} is cases (one card left)"
    ones = [f"one {rank.label}" for rank in spot.ranks]
    return f"{spot.text} is on cases ({', '.join(ones[:-1])} and {ones[-1]} left)"


# Standing bets a turn's two ranks decide, suits aside (Dutch Faro's colours need the suits).
_STANDING_BY_RANKS = frozenset({SpotKind.HIGH, SpotKind.ODD, SpotKind.EVEN})


def _decided_by_ranks(bet: Bet) -> bool:
    """Whether a turn's two ranks alone decide this bet (a call waits for the hoc)."""
    return bool(bet.spot.ranks) or bet.spot.kind in _STANDING_BY_RANKS


def _bank_pays(bets: Sequence[Bet], loser_rank: Rank, winner_rank: Rank, rules: FaroRules) -> int:
    """What the bank pays on these bets for a turn of these two ranks (suits aside): rank
    bets and the standing bets ranks decide, so that odd and even, or a plain and a
    coppered high card, are reckoned by the one turn that decides both."""
    return _turn_pays(bets, Card(loser_rank, _ANY_SUIT), Card(winner_rank, _ANY_SUIT), rules)


def _turn_pays(bets: Sequence[Bet], loser: Card, winner: Card, rules: FaroRules) -> int:
    """What the bank pays on these bets for a turn of these two cards (less what it takes)."""
    paid = 0
    for bet in bets:
        decision = decide(bet.spot, bet.stake, bet.coppered, loser, winner, rules)
        if decision is not None:
            paid += decision.net
    return paid


_ANY_SUIT = Suit.SPADES
# A red card and a black one: a colour bet reads no rank.
_COLOUR_CARDS = (Card(Rank.ACE, Suit.HEARTS), Card(Rank.ACE, Suit.SPADES))


def _colour_pays(bets: Sequence[Bet], turns: Sequence[tuple[Card, Card]], rules: FaroRules) -> int:
    """The most the bank pays on Dutch Faro's colour bets in one turn, over the colours its
    two cards may have (``turns``, as :meth:`FaroTable._next_turn_colours` gives them): red
    and black cannot both win one turn, and neither wins once one card of it is left."""
    return max([0, *(_turn_pays(bets, loser, winner, rules) for loser, winner in turns)])


_COLOURS = ("red", "black")


def _named_order(words: Sequence[str]) -> tuple[str, ...] | None:
    """A call's cards as the dealer names them, written as the call keeps them (rank labels,
    or colours); None when the words name no call."""
    colours = tuple(ascii_lower(word.strip()) for word in words)
    if all(colour in _COLOURS for colour in colours):
        return colours
    try:
        return tuple(Rank.parse(word).label for word in words)
    except ValueError:
        return None


def _call_words(order: tuple[str, str, str], loser: Card, winner: Card, hoc: Card) -> str:
    if order[0] in ("red", "black"):
        return " ".join(card.colour.value for card in (loser, winner, hoc))
    return " ".join(card.rank.label for card in (loser, winner, hoc))
