"""The table drawn as text: layout with chips, casekeep abacus, last turn, bankrolls.

Computed purely from a Faro state; ``colour=True`` adds ANSI colours for a terminal, and
plain text is what goes to a file or a pipe.
"""

from __future__ import annotations

from collections.abc import Iterable

from display.frames import punter_tags
from display.text import count, wrap
from table.cards import Card, Rank
from table.dealer import TableFolds
from table.events import (
    AlarmCleared,
    AlarmRaised,
    BankPassed,
    BetPlaced,
    BetSettled,
    BetWithdrawn,
    CardDealt,
    DealerCorrection,
    DealFinished,
    DealVoided,
    DeckStarted,
    Event,
    ReaderNotice,
    TurnCalled,
    TurnClosed,
)
from table.faro.bets import Bet
from table.faro.casekeep import Bead
from table.faro.engine import FaroState, Phase
from table.faro.layout import BOTTOM_ROW, TOP_ROW

CELL = 11  # six cells and the seven fit an 80-column terminal
_BEAD_MARK = {Bead.IN_BOX: "·", Bead.OUTER_EDGE: "L", Bead.HALF_WAY: "W", Bead.FINISHED: "#"}
_ROLE_MARK = {"soda": "S", "loser": "L", "winner": "W", "hoc": "H"}
_RED = "\x1b[31m"
_DIM = "\x1b[2m"
_BOLD = "\x1b[1m"
_RESET = "\x1b[0m"


class Painter:
    """Adds terminal colours when asked to, and nothing otherwise."""

    def __init__(self, colour: bool) -> None:
        self.colour = colour

    def paint(self, text: str, code: str) -> str:
        return f"{code}{text}{_RESET}" if self.colour and text.strip() else text

    def card(self, card: Card) -> str:
        text = card.pretty
        return self.paint(text, _RED) if card.colour.value == "red" else text


def _bet_tag(bet: Bet, tags: dict[str, str]) -> str:
    """``d5``: dan's 5 chips; ``c`` after them coppered, ``m`` betting marks, not chips (003)."""
    marks = "m" if bet.mark else ""
    return f"{tags.get(bet.punter, bet.punter[:1])}{bet.stake}{'c' if bet.coppered else ''}{marks}"


def other_bet(bet: Bet) -> str:
    """A bet on no single rank, in words: a call, a group, high card, odd or even, a colour."""
    if bet.order:
        return f"{bet.punter} {bet.stake} calling {' '.join(bet.order)}"
    copper = " coppered" if bet.coppered else ""
    marks = " in marks" if bet.mark else ""
    return f"{bet.punter} {bet.stake}{marks}{copper} on {bet.spot.text}"


def render_layout(state: FaroState, paint: Painter) -> list[str]:
    tags = punter_tags(state.seats)
    on_rank: dict[Rank, list[str]] = {}
    others: list[str] = []
    for bet in sorted(state.bets.values(), key=lambda b: b.bet_id):
        if bet.spot.kind.value == "rank":
            on_rank.setdefault(bet.spot.ranks[0], []).append(_bet_tag(bet, tags))
        else:
            others.append(other_bet(bet))
    deck_ranks = state.rules.deck_spec.rank_set
    casekeep = state.casekeep
    # With no deck in the box (none yet, or a deal voided) no rank is dead or cases.
    running = state.phase is not Phase.NO_DECK

    def cell(rank: Rank) -> tuple[str, str]:
        if rank not in deck_ranks:
            return (" " * CELL, " " * CELL)
        label = f"{rank.label}♠"
        if running and casekeep.is_dead(rank):
            label += " dead"
        elif running and casekeep.is_cases(rank):
            label += " case"
        chips = " ".join(on_rank.get(rank, []))
        if len(chips) > CELL - 1:
            chips = chips[: CELL - 2] + "…"
        head = paint.paint(label.ljust(CELL), _DIM) if "dead" in label else label.ljust(CELL)
        return (head, chips.ljust(CELL))

    lines = []
    for row in (TOP_ROW, BOTTOM_ROW):
        cells = [cell(rank) for rank in row]
        lines.append("  " + "".join(head for head, _ in cells))
        lines.append("  " + "".join(chips for _, chips in cells))
        if row is TOP_ROW:
            # The seven stands apart at the end of the rows (003); its chips go under it
            # rather than beside it, which would pass the 80th column.
            seven_head, seven_chips = cell(Rank.SEVEN)
            lines.append("  " + " " * (CELL * 6) + seven_head)
            lines.append("  " + " " * (CELL * 6) + seven_chips)
    if others:
        lines += wrap("other bets: " + "; ".join(others), indent="  ", subsequent="    ")
    return [line.rstrip() for line in lines]


def render_casekeep(state: FaroState) -> list[str]:
    """003's abacus as text: per rank, how each card went (S soda, L lost, W won, H hoc)."""
    ranks = state.rules.deck_spec.ranks
    header = "  " + "".join(rank.label.ljust(6) for rank in ranks)
    marks = []
    for rank in ranks:
        spindle = state.casekeep.spindle(rank)
        text = "".join(_ROLE_MARK[entry.role.value] for entry in spindle.entries)
        text = text.ljust(4, "·")
        if spindle.finished:
            text += "#"
        elif spindle.cases:
            text += "*"
        marks.append(text.ljust(6))
    key = "  casekeep: S soda, L lost, W won, H hoc, · in the box; * cases, # finished"
    return [key, header.rstrip(), "  " + "".join(marks).rstrip()]


def where_the_deal_stands(state: FaroState) -> str:
    """The deal's moment in a few words: "soda out, bets open", "turn 3 dealing"."""
    if state.phase is Phase.NO_DECK:
        return "no deck in the box"
    if state.phase is Phase.AWAITING_SODA:
        return "waiting for the soda"
    if state.phase is Phase.FINISHED:
        return f"deal over, hoc {state.hoc.pretty if state.hoc else '?'}"
    if state.phase is Phase.LOCKED:
        return f"bets locked for turn {state.turn + 1}"
    if state.is_last_turn_next:
        return "last turn next: calls open" if state.calls_open else "last turn next"
    if state.turn == 0:
        return "soda out, bets open"
    return f"turn {state.turn} {'dealing' if state.phase is Phase.IN_TURN else 'closed'}"


def status_heading(state: FaroState) -> str:
    """The table's one-line heading, on the terminal and the snapshot alike."""
    splits = count(state.splits, "split")
    in_box = "" if state.phase is Phase.NO_DECK else f"{state.cards_left} in the box · "
    return (
        f"Faro · {state.rules.name} · deal {state.deal} · {where_the_deal_stands(state)} · "
        f"{in_box}{splits}"
    )


def render_status(state: FaroState, paint: Painter, journal_trouble: str = "") -> list[str]:
    rules = state.rules
    lines = [paint.paint(status_heading(state), _BOLD)]
    if state.last_turn:
        loser, winner = state.last_turn
        split = "  SPLIT" if loser.rank == winner.rank else ""
        lines.append(f"  last turn: {paint.card(loser)} loses, {paint.card(winner)} wins{split}")
    lines += wrap(" · ".join(bankroll_entries(state)), indent="  ", subsequent="  ")
    if rules.bank_passes and state.seats:
        lines += wrap(session_line(state), indent="  ", subsequent="    ")
    return lines + trouble_lines(state, paint, journal_trouble)


def bankroll_entries(state: FaroState) -> list[str]:
    """The bank's chips, named with its holder where the bank passes (001), then every other
    seat's."""
    bank = "bank" if not state.rules.bank_passes else f"bank ({state.banker})"
    return [f"{bank} {state.bank_bankroll}"] + [
        f"{name} {state.bankrolls[name]}" for name in state.seats if name != state.banker
    ]


def trouble_lines(state: TableFolds, paint: Painter, journal_trouble: str = "") -> list[str]:
    """What the dealer must see to, any game: the journal that cannot write (the table waits
    on it), the alarm waiting, the card readers lost."""
    lines: list[str] = []
    if journal_trouble:
        lines.append(paint.paint(f"  JOURNAL CANNOT WRITE: {journal_trouble}", _RED))
        lines.append(paint.paint("  the table waits; cards read meanwhile are held", _RED))
    if state.alarm:
        lines.append(paint.paint(f"  ALARM {state.alarm.alarm_id}: {state.alarm.message}", _RED))
    for reader, message in state.readers_lost.items():
        lines.append(paint.paint(f"  READER LOST ({reader}): {message}", _RED))
    return lines


def session_line(state: FaroState) -> str:
    """001's session: it ends when everyone has held the bank equally often, and whoever
    has the most chips then wins."""
    if state.session_complete:
        times = state.banks_held[state.seats[0]]
        (leader, chips), *others = state.standings()
        rest = ", ".join(f"{name} {theirs}" for name, theirs in others)
        return (
            f"session over: everyone has held the bank {count(times, 'time')}; "
            f"{leader} wins with {chips}" + (f" ({rest})" if rest else "")
        )
    held = ", ".join(f"{name} {state.banks_held.get(name, 0)}" for name in state.seats)
    return f"session: banks held {held}; it ends when all are even"


def render_table(
    state: FaroState, recent: Iterable[str] = (), colour: bool = False, journal_trouble: str = ""
) -> str:
    """The whole table as one block of text, with why the journal cannot write, if it cannot."""
    paint = Painter(colour)
    lines = render_status(state, paint, journal_trouble)
    lines.append("")
    lines += render_layout(state, paint)
    lines.append("")
    lines += render_casekeep(state)
    recent = list(recent)
    if recent:
        lines.append("")
        for line in recent:
            lines += wrap(line, indent="  ", subsequent="    ")
    return "\n".join(lines)


def describe(event: Event) -> str | None:
    """One plain line for an event a person at the table cares about; None for the rest."""
    if isinstance(event, BetSettled):
        verb = {
            "win": f"wins {event.net}",
            "lose": f"loses {-event.net}",
            "split": f"split: the bank takes {-event.net}" if event.net else "plie: no payment",
            "push": "push",
            "returned": "returned",
            "taken": "to the bank",
        }[event.outcome.value]
        stays = f"; {event.stake} stays" if event.stake else ""
        note = f" ({event.note})" if event.note else ""
        return f"{event.punter} on {event.spot}: {verb}{stays}{note}"
    if isinstance(event, CardDealt):
        turn = f" of turn {event.turn}" if event.turn else ""
        return f"{event.card.pretty}: {event.role.value}{turn}"
    if isinstance(event, BetPlaced):
        copper = " coppered" if event.coppered else ""
        marks = " in marks" if event.mark else ""
        standing = f" ({event.instruction})" if event.instruction else ""
        return f"{event.punter} bets {event.amount}{marks}{copper} on {event.spot}{standing}"
    if isinstance(event, BetWithdrawn):
        copper = "coppered " if event.coppered else ""
        # 003: marks and chips may lie together on a spot; the line says which came back.
        if event.mark:
            taken = f"{event.amount} in {copper}marks"
        else:
            taken = count(event.amount, f"{copper}chip")
        stays = f"; {event.stake} stays" if event.stake else ""
        return f"{event.punter} takes {taken} back from {event.spot}{stays}"
    if isinstance(event, TurnCalled):
        called = " ".join(event.order)
        return f"{event.punter} calls the turn {called} for {event.amount} (pays {event.pays} to 1)"
    if isinstance(event, TurnClosed):
        split = " (split)" if event.split else ""
        return f"turn {event.turn}: {event.loser.pretty} loses, {event.winner.pretty} wins{split}"
    if isinstance(event, DeckStarted):
        return f"deal {event.deal}: a new {event.deck} deck in the box"
    if isinstance(event, DealFinished):
        rolls = ", ".join(f"{name} {chips}" for name, chips in event.bankrolls.items())
        hoc = event.hoc.pretty
        return (
            f"deal {event.deal} over: hoc {hoc}, {count(event.splits, 'split')}; "
            f"bank {event.bank}; {rolls}"
        )
    if isinstance(event, DealVoided):
        return f"deal {event.deal} voided: {event.reason}"
    if isinstance(event, AlarmRaised):
        return f"ALARM {event.alarm}: {event.message}"
    if isinstance(event, AlarmCleared):
        return f"alarm {event.alarm} cleared: {event.resolution}"
    if isinstance(event, ReaderNotice):
        return f"{event.reader} reader: {event.message}"
    if isinstance(event, DealerCorrection):
        to = f" to {event.replacement.pretty}" if event.replacement else ""
        return f"dealer: {event.action} {event.card.pretty}{to}"
    if isinstance(event, BankPassed):
        return f"the bank passes from {event.from_banker} to {event.to_banker}"
    return None
