"""A baccarat table drawn as text: the coup, the bankrolls and the five scoreboards.

Computed purely from a baccarat state and its coup results; ``colour=True`` adds ANSI
colours (banker red, player blue, tie green), plain text goes to a file or a pipe.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from display.terminal import Painter, trouble_lines
from display.terminal import describe as describe_faro
from display.text import wrap
from table.baccarat.engine import BaccaratState, Phase
from table.baccarat.roads import Road, Scoreboard, coups_of
from table.baccarat.rules import hundredths_text
from table.events import (
    BankAnnounced,
    CardDealt,
    CardRole,
    CommissionTaken,
    CoupFinished,
    CoupResult,
    CutCardOut,
    DealVoided,
    Event,
    HandShown,
    ShoeFinished,
    ShoeStarted,
    ThirdCardChoice,
)
from table.games import GAME_TITLES

WIDTH = 78
_RED = "\x1b[31m"
_BLUE = "\x1b[34m"
_GREEN = "\x1b[32m"
_BOLD = "\x1b[1m"
_COLOUR_OF = {"banker": _RED, "player": _BLUE, "tie": _GREEN, "red": _RED, "blue": _BLUE}


def _cell_text(road: Road, column: int, row: int, paint: Painter, marks: bool) -> str:
    cell = road.cells.get((column, row))
    if cell is None:
        return "  " if marks else " "
    letter = paint.paint(cell.letter, _COLOUR_OF[cell.outcome])
    if not marks:
        return letter
    if cell.ties:
        mark = str(min(cell.ties, 9))
    elif cell.player_pair or cell.banker_pair:
        mark = "*"
    else:
        mark = " "
    return letter + mark


def render_road(road: Road, title: str, columns: int, paint: Painter, marks: bool) -> list[str]:
    """The last ``columns`` columns of a road under its title, one line per row."""
    first = max(0, road.columns - columns)
    width = columns * (2 if marks else 1)
    lines = [title[:width].ljust(width)]
    for row in range(road.rows):
        text = "".join(
            _cell_text(road, column, row, paint, marks) for column in range(first, first + columns)
        )
        lines.append(text)
    return lines


def _side_by_side(blocks: Sequence[list[str]], widths: Sequence[int], gap: str = "  ") -> list[str]:
    lines = []
    for index in range(max(len(block) for block in blocks)):
        parts = []
        for block, width in zip(blocks, widths, strict=True):
            text = block[index] if index < len(block) else ""
            # Colour codes take no room on the screen: pad by the visible width.
            visible = len(_strip(text))
            parts.append(text + " " * max(0, width - visible))
        lines.append(gap.join(parts).rstrip())
    return lines


def _strip(text: str) -> str:
    for code in (_RED, _BLUE, _GREEN, _BOLD, "\x1b[0m", "\x1b[2m"):
        text = text.replace(code, "")
    return text


def render_scoreboard(board: Scoreboard, paint: Painter) -> list[str]:
    """Bead plate and big road on top, the three derived roads below, in 78 columns."""
    top = [
        render_road(board.bead_plate, "bead plate", 10, paint, marks=True),
        render_road(board.big_road, "big road (digit: ties, *: pair)", 28, paint, marks=True),
    ]
    bottom = [
        render_road(board.big_eye_boy, "big eye boy", 24, paint, marks=False),
        render_road(board.small_road, "small road", 24, paint, marks=False),
        render_road(board.cockroach_pig, "cockroach pig", 24, paint, marks=False),
    ]
    lines = [*_side_by_side(top, [20, 56]), "", *_side_by_side(bottom, [24, 24, 24])]
    while lines and not lines[-1]:
        lines.pop()
    return lines


def render_coup(result: CoupResult | None, paint: Painter) -> list[str]:
    if result is None:
        return ["  no coup dealt yet"]
    hands, outcome = _coup_words(result, paint)
    return [f"  coup {result.coup}: {hands}", f"  {outcome}"]


def coup_in_words(result: CoupResult) -> str:
    """A coup's hands and outcome on one plain line, as a list of coups shows it."""
    hands, outcome = _coup_words(result, Painter(False))
    return f"{hands} · {outcome}"


def _coup_words(result: CoupResult, paint: Painter) -> tuple[str, str]:
    parts = []
    for hand, cards in result.hands.items():
        shown = " ".join(paint.card(card) for card in cards)
        natural = " natural" if hand in result.naturals else ""
        parts.append(f"{hand} {shown} = {result.totals[hand]}{natural}")
    outcome = ", ".join(
        f"{hand}: {paint.paint(winner, _COLOUR_OF[winner])}"
        for hand, winner in result.winners.items()
    )
    if len(result.winners) == 1:
        outcome = paint.paint(
            "tie" if result.winner == "tie" else f"{result.winner} wins",
            _COLOUR_OF[result.winner],
        )
    pairs = f" · pair: {', '.join(result.pairs)}" if result.pairs else ""
    return " · ".join(parts), f"{outcome}{pairs}"


def render_baccarat(
    state: BaccaratState,
    results: Sequence[CoupResult],
    recent: Iterable[str] = (),
    colour: bool = False,
    journal_trouble: str = "",
) -> str:
    """The whole table as one block of text, with why the journal cannot write, if it cannot."""
    paint = Painter(colour)
    rules = state.rules
    left = rules.shoe_size - state.cards_out
    where = {
        Phase.NO_SHOE: "shoe finished" if state.shoe else "no shoe",
        Phase.BURNING: "burning",
        Phase.BETTING: "bets open",
        Phase.DEALING: "dealing",
    }[state.phase]
    if state.cut_out and state.phase is not Phase.NO_SHOE:
        where += ", cut card out"
    head = (
        f"{GAME_TITLES.get(state.game, state.game)} · {rules.name} · shoe {state.shoe} · "
        f"coup {state.coup} · {where} · {left} left"
    )
    lines = [paint.paint(head, _BOLD)]
    lines += render_coup(state.last_result, paint)
    rolls = [_bank_words(state)]
    if state.house:
        rolls.append(f"house {state.house}")
    box = state.commission_box
    rolls += [
        f"{name} {state.bankrolls[name]}"
        + (f" (commission {hundredths_text(box[name])})" if name in box else "")
        for name in state.seats
    ]
    lines += wrap(" · ".join(rolls), WIDTH, indent="  ", subsequent="  ")
    if state.deviations:
        lines.append(f"  banker's deviations from the table: {state.deviations}")
    lines += trouble_lines(state, paint, journal_trouble)
    lines.append("")
    lines += render_scoreboard(Scoreboard.of(coups_of(results)), paint)
    recent = list(recent)
    if recent:
        lines.append("")
        for line in recent:
            lines += wrap(line, WIDTH, indent="  ", subsequent="    ")
    return "\n".join(lines)


def _bank_words(state: BaccaratState) -> str:
    """The house's bank, or who holds a player's bank and what it stands at."""
    if state.rules.house_banks:
        return f"bank {state.bank}"
    if state.banker is None:
        return "no banker yet"
    if not state.bank:
        return f"bank ({state.banker}) not announced"
    return f"bank ({state.banker}) {state.bank}"


_ROLE_WORDS = {
    CardRole.PLAYER: "the player",
    CardRole.BANKER: "the banker",
    CardRole.RIGHT: "the right hand",
    CardRole.LEFT: "the left hand",
}


def describe(event: Event) -> str | None:
    """One plain line for an event of a baccarat table; None for the rest."""
    if isinstance(event, CardDealt) and event.role in _ROLE_WORDS:
        return f"coup {event.turn}: {event.card.pretty} to {_ROLE_WORDS[event.role]}"
    if isinstance(event, CardDealt) and event.role is CardRole.BURN:
        return f"{event.card.pretty}: burned"
    if isinstance(event, HandShown):
        cards = " ".join(card.pretty for card in event.cards)
        return f"coup {event.deal}: the {event.hand} hand shows a natural {event.total}: {cards}"
    if isinstance(event, CoupResult):
        return f"coup {event.coup}: {coup_in_words(event)}"
    if isinstance(event, ThirdCardChoice):
        if event.forced:
            return f"the {event.hand} must {'draw' if event.draws else 'stand'} on {event.total}"
        verb = "draws" if event.draws else "stands"
        deviation = f" (the table says {event.advised}: a deviation)" if event.deviation else ""
        return f"the {event.hand} {verb} on {event.total}{deviation}"
    if isinstance(event, CoupFinished):
        rolls = ", ".join(f"{name} {chips}" for name, chips in event.bankrolls.items())
        return f"coup {event.coup} settled: bank {event.bank}; {rolls}"
    if isinstance(event, ShoeStarted):
        cut = "no cut card" if event.cut_at is None else f"cut card after {event.cut_at}"
        return (
            f"shoe {event.shoe}: {event.decks} decks, {event.cards} cards, {cut}; "
            f"burn: {event.burn}"
        )
    if isinstance(event, CutCardOut):
        return f"the cut card is out after {event.cards_out} cards: this coup is the last"
    if isinstance(event, ShoeFinished):
        return f"shoe {event.shoe} finished after {event.coups} coups"
    if isinstance(event, BankAnnounced):
        return f"{event.banker} holds the bank: {event.amount}"
    if isinstance(event, CommissionTaken):
        if event.noted:
            taken = f", {event.amount} to the house" if event.amount else ""
            return (
                f"commission: {hundredths_text(event.noted)} noted against {event.punter}"
                f"{taken}; in the box {hundredths_text(event.box)}"
            )
        if not event.amount:
            return f"commission: {event.punter} has no chip left to settle the box; waived"
        return f"commission: {event.amount} from {event.punter} to the house"
    return describe_faro(event)


def describe_in_a_coup(event: Event) -> str | None:
    """As :func:`describe`, for an event known to be a baccarat table's: a voided coup is
    called a coup (:func:`describe` also speaks for Faro, whose voided deals share the event)."""
    if isinstance(event, DealVoided):
        return f"coup {event.deal} voided: {event.reason}"
    return describe(event)
