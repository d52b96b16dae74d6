"""What the table shows, computed purely from a Faro state: the casekeep and the layout.

The same frames go to every driver: the LED abacus on GPIO, the layout lamps behind the
microcontroller, the terminal and the web page. A frame holds only what is out of the box.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import dataclass

from table.cards import Rank
from table.events import CardRole
from table.faro.engine import FaroState, Phase
from table.faro.spots import SpotKind
from table.odds.advisor import advice_for


class BeadState(enum.Enum):
    IN_BOX = "in-box"
    SODA = "soda"
    LOSER = "loser"
    WINNER = "winner"
    HOC = "hoc"


_BEAD_FOR_ROLE = {
    CardRole.SODA: BeadState.SODA,
    CardRole.LOSER: BeadState.LOSER,
    CardRole.WINNER: BeadState.WINNER,
    CardRole.HOC: BeadState.HOC,
}


@dataclass(frozen=True)
class SpindleFrame:
    """One rank of 003's abacus: its beads in the order the cards came, then those in the box."""

    rank: Rank
    beads: tuple[BeadState, ...]
    finished: bool
    cases: bool


@dataclass(frozen=True)
class CasekeepFrame:
    deal: int
    spindles: tuple[SpindleFrame, ...]

    def spindle(self, rank: Rank) -> SpindleFrame:
        return next(spindle for spindle in self.spindles if spindle.rank is rank)


def casekeep_frame(state: FaroState) -> CasekeepFrame:
    spindles = []
    for spindle in state.casekeep.abacus():
        beads = tuple(_BEAD_FOR_ROLE[entry.role] for entry in spindle.entries)
        beads += (BeadState.IN_BOX,) * (len(spindle.beads) - len(beads))
        spindles.append(SpindleFrame(spindle.rank, beads, spindle.finished, spindle.cases))
    return CasekeepFrame(state.deal, tuple(spindles))


class LastTurn(enum.Enum):
    LOSER = "loser"
    WINNER = "winner"
    SPLIT = "split"


@dataclass(frozen=True)
class RankLamp:
    """One of the 13 spades of the layout and what lies on it."""

    rank: Rank
    in_deck: bool
    dead: bool
    cases: bool
    straight: int  # chips backing the rank to win
    coppered: int  # chips backing it to lose
    in_groups: int  # chips on group and win-and-lose bets that include it
    last_turn: LastTurn | None
    call_candidate: bool

    @property
    def has_bets(self) -> bool:
        return bool(self.straight or self.coppered or self.in_groups)


@dataclass(frozen=True)
class LayoutFrame:
    deal: int
    turn: int
    lamps: tuple[RankLamp, ...]
    standing: tuple[tuple[str, str, int], ...]  # (punter, spot, stake) of high, odd, even, colours
    calls: tuple[tuple[str, tuple[str, str, str], int], ...]
    bets_locked: bool
    alarm: str | None
    # The card readers lost, by name, with what they said; the dealer deals from the console.
    readers_lost: tuple[tuple[str, str], ...] = ()
    # The journal cannot write (a disk full or failing): the table waits, as on an alarm.
    journal_trouble: bool = False

    def lamp(self, rank: Rank) -> RankLamp:
        return next(lamp for lamp in self.lamps if lamp.rank is rank)


def layout_frame(state: FaroState) -> LayoutFrame:
    straight = dict.fromkeys(Rank, 0)
    coppered = dict.fromkeys(Rank, 0)
    grouped = dict.fromkeys(Rank, 0)
    standing = []
    calls = []
    for bet in sorted(state.bets.values(), key=lambda bet: bet.bet_id):
        kind = bet.spot.kind
        if bet.order is not None:
            calls.append((bet.punter, bet.order, bet.stake))
        elif kind is SpotKind.RANK:
            (coppered if bet.coppered else straight)[bet.spot.ranks[0]] += bet.stake
        elif bet.spot.ranks:
            for rank in bet.spot.ranks:
                grouped[rank] += bet.stake
        else:
            standing.append((bet.punter, bet.spot.text, bet.stake))
    last: dict[Rank, LastTurn] = {}
    if state.last_turn is not None:
        loser, winner = state.last_turn
        if loser.rank is winner.rank:
            last[loser.rank] = LastTurn.SPLIT
        else:
            last[loser.rank] = LastTurn.LOSER
            last[winner.rank] = LastTurn.WINNER
    candidates = (
        {card.rank for card in state.casekeep.remaining_cards()}
        if state.cards_left == 3 and state.phase is not Phase.NO_DECK and state.last_three_callable
        else set()
    )
    deck_ranks = state.rules.deck_spec.rank_set
    casekeep = state.casekeep
    running = state.phase is not Phase.NO_DECK
    lamps = tuple(
        RankLamp(
            rank=rank,
            in_deck=rank in deck_ranks,
            dead=running and rank in deck_ranks and casekeep.is_dead(rank),
            cases=running and casekeep.is_cases(rank),
            straight=straight[rank],
            coppered=coppered[rank],
            in_groups=grouped[rank],
            last_turn=last.get(rank),
            call_candidate=rank in candidates,
        )
        for rank in Rank
    )
    return LayoutFrame(
        deal=state.deal,
        turn=state.turn,
        lamps=lamps,
        standing=tuple(standing),
        calls=tuple(calls),
        bets_locked=state.phase in (Phase.LOCKED, Phase.IN_TURN, Phase.AWAITING_HOC),
        alarm=state.alarm.public_message if state.alarm else None,
        readers_lost=tuple(state.readers_lost.items()),
    )


def turn_history(state: FaroState) -> list[dict[str, object]]:
    """Every turn of the deal so far, from the casekeep: loser, winner, and whether it split."""
    turns: dict[int, dict[str, object]] = {}
    for spindle in state.casekeep.abacus():
        for entry in spindle.entries:
            if entry.role in (CardRole.LOSER, CardRole.WINNER):
                turn = turns.setdefault(entry.turn, {"turn": entry.turn})
                turn[entry.role.value] = str(entry.card)
    history = []
    for number in sorted(turns):
        turn = turns[number]
        loser, winner = turn.get("loser"), turn.get("winner")
        turn["split"] = bool(loser and winner and str(loser)[:-1] == str(winner)[:-1])
        history.append(turn)
    return history


def punter_tags(seats: Iterable[str]) -> dict[str, str]:
    """A short tag per punter for her chips: the first letter, or more letters when a punter
    seated before has the same first ones (``d`` for dan, ``do`` for dora)."""
    tags: dict[str, str] = {}
    for name in seats:
        length = 1
        while name[:length] in tags.values() and length < len(name):
            length += 1
        tags[name] = name[:length]
    return tags


def table_view(state: FaroState, advisor: bool = False) -> dict[str, object]:
    """Everything a screen draws, as JSON: the layout, the abacus, the last turn, the history,
    the bankrolls, and with the advisor on each live rank's split risk and edge. Only cards
    that are out of the box."""
    casekeep = casekeep_frame(state)
    layout = layout_frame(state)
    soda = next(
        (
            str(e.card)
            for s in state.casekeep.abacus()
            for e in s.entries
            if e.role is CardRole.SODA
        ),
        None,
    )
    tags = punter_tags(state.seats)
    return {
        "game": "faro",
        "seq": state.last_seq,
        "table": state.table,
        "rules": state.rules.name,
        "deal": state.deal,
        "phase": state.phase.value,
        "turn": state.turn,
        "cards_left": state.cards_left,
        "bets_locked": layout.bets_locked,
        "soda": soda,
        "hoc": str(state.hoc) if state.hoc else None,
        "last_turn": [str(card) for card in state.last_turn] if state.last_turn else None,
        "splits": state.splits,
        "alarm": layout.alarm,
        "readers_lost": dict(layout.readers_lost),
        "abacus": [
            {
                "rank": spindle.rank.label,
                "beads": [bead.value for bead in spindle.beads],
                "finished": spindle.finished,
                "cases": spindle.cases,
            }
            for spindle in casekeep.spindles
        ],
        "lamps": [
            {
                "rank": lamp.rank.label,
                "in_deck": lamp.in_deck,
                "dead": lamp.dead,
                "cases": lamp.cases,
                "last_turn": lamp.last_turn.value if lamp.last_turn else None,
                "call_candidate": lamp.call_candidate,
            }
            for lamp in layout.lamps
        ],
        "bets": [
            {
                "punter": bet.punter,
                "tag": tags.get(bet.punter, bet.punter[:1]),
                "spot": bet.spot.text,
                "ranks": [rank.label for rank in bet.spot.ranks],
                # A group's chips, in the layout's (row, column) units: see chip_place.
                "place": list(bet.spot.place) if len(bet.spot.ranks) > 1 else None,
                "kind": bet.spot.kind.value,
                "stake": bet.stake,
                "coppered": bet.coppered,
                "mark": bet.mark,  # 003's betting marks: credit, not chips
                "order": list(bet.order) if bet.order else None,
            }
            for bet in sorted(state.bets.values(), key=lambda bet: bet.bet_id)
        ],
        "history": turn_history(state),
        "bank": state.bank_bankroll,
        "banker": state.banker,
        "bankrolls": [
            {"punter": name, "tag": tags[name], "chips": state.bankrolls[name]}
            for name in state.seats
            if name != state.banker
        ],
        "advice": _advice(state) if advisor else None,
        "session": _session(state),
    }


def _session(state: FaroState) -> dict[str, object] | None:
    """001's home session: who has held the bank how often, and once all are even, who won."""
    if not state.rules.bank_passes or not state.seats:
        return None
    over = state.session_complete
    return {
        "banks_held": {name: state.banks_held.get(name, 0) for name in state.seats},
        "over": over,
        "winner": state.standings()[0][0] if over else None,
    }


def _advice(state: FaroState) -> dict[str, object] | None:
    advice = advice_for(state, enabled=True)
    return None if advice is None else dict(advice.to_json())
