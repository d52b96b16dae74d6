"""What the table shows, computed purely from a Faro state: the casekeep and the layout.

The same frames go to every driver: the LED abacus on GPIO, the layout lamps behind the
microcontroller, the terminal and the web page. A frame holds only what is out of the box.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from table.cards import Rank
from table.events import CardRole
from table.faro.engine import FaroState, Phase
from table.faro.spots import SpotKind


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
        if state.cards_left == 3 and state.phase is not Phase.NO_DECK
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
        alarm=state.alarm.message if state.alarm else None,
    )
