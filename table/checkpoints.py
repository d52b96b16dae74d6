"""A table's state where a deal or a shoe begins, written as JSON, so that a long journal is
resumed from its last deck or shoe instead of replayed from its first event.

It is the engine's own checkpoint (the state a void goes back to) kept in the journal, made
where a deck or shoe starts (and as a continuous shuffler's coup locks), where most of the
state is empty: the rules, the bank, the punters and their chips, the numbering, and at Faro
the bets that stand from deal to deal (003's high card and odd/even). It names
the state's fields, so a checkpoint written by a dealtable whose state had other fields is
not read. :func:`checkpoint_of` refuses (returns None) a state it would not give back
exactly, so a checkpoint, once written, is always the fold of the events up to its ``seq``.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

from table.baccarat.engine import BaccaratState, BaccaratTable, Bet
from table.baccarat.engine import Phase as BaccaratPhase
from table.baccarat.rules import find_rules as find_baccarat_rules
from table.baccarat.tableau import Draw, Verdict
from table.cards import Card, Rank
from table.events import CoupResult, event_from_json, event_to_json
from table.faro.bets import Bet as FaroBet
from table.faro.bets import Instruction
from table.faro.engine import FaroState, FaroTable, Phase, stack_key
from table.faro.rules import find_rules
from table.faro.spots import parse_spot

# 2: a Faro checkpoint keeps the bets standing from deal to deal. A dealtable that reads
# only format 1 sets such a checkpoint aside rather than resume without them.
# 3: the card readers lost. An earlier format was written before a reader could be, so it
# reads as none lost; and the Faro state's hoc, empty where a deck starts, is no longer a field.
# 4: the baccarat stakes a tie left standing, by bet. An earlier format said only whether a
# tie's stakes stood, and then every stake on the layout stood whole: so it reads.
CHECKPOINT_FORMAT = 4
READABLE_FORMATS = (1, 2, 3, 4)

AnyState = FaroState | BaccaratState

# The fields a deck or shoe start may leave as something else than a new table's; every
# other field must be as a new table has it, or no checkpoint is made.
_FARO_FIELDS = (
    "deal", "bank", "bankrolls", "seats", "banker", "banks_held", "next_bet_id",
    "next_alarm_id", "last_seq", "chips_committed", "marks_committed", "readers_lost",
)  # fmt: skip
_BACCARAT_FIELDS = (
    "coup", "shoe", "cards_out", "cut_out", "coups_in_shoe", "burn_left", "dealt", "actor",
    "pending", "choices", "committed", "commission_box", "spot_totals", "bank",
    "house", "bankrolls", "seats", "banker", "next_bet_id", "next_alarm_id", "coup_over",
    "deviations", "last_seq", "readers_lost",
)  # fmt: skip


class CheckpointError(ValueError):
    """A checkpoint this dealtable cannot read: it is set aside and the journal replayed."""


def _field_names(state: AnyState) -> list[str]:
    return [item.name for item in dataclasses.fields(state)]


def checkpoint_of(state: AnyState, seq: int) -> str | None:
    """The state after event ``seq`` (a deck or shoe start) as JSON, or None when it holds
    what a checkpoint does not keep (an alarm)."""
    state = state.copy()
    state.last_seq = seq
    state.checkpoint = None
    state.since_checkpoint = []
    data = _faro_checkpoint(state) if isinstance(state, FaroState) else _baccarat_checkpoint(state)
    text = json.dumps(data, separators=(",", ":"))
    try:
        same = state_from_checkpoint(text) == state
    except CheckpointError:
        same = False
    return text if same else None


def _faro_checkpoint(state: FaroState) -> dict[str, Any]:
    data = _common(state, "faro", state.rules.name, state.rules_options, _FARO_FIELDS)
    data["phase"] = state.phase.value
    # Ranks once backed keep an empty set: kept, so the state comes back exactly (JSON
    # writes the rank numbers as strings).
    data["bets_by_rank"] = {rank.value: sorted(ids) for rank, ids in state.bets_by_rank.items()}
    data["bets"] = [
        [
            bet.bet_id,
            bet.punter,
            bet.spot.text,
            bet.stake,
            bet.coppered,
            bet.mark,
            bet.instruction.text if bet.instruction else "",
            list(bet.order) if bet.order else None,
            bet.pays,
            bet.base,
            bet.rides,
        ]
        for bet in state.bets.values()
    ]
    return data


def _baccarat_checkpoint(state: BaccaratState) -> dict[str, Any]:
    data = _common(state, state.game, state.rules.name, state.rules_options, _BACCARAT_FIELDS)
    data["phase"] = state.phase.value
    data["seen"] = {str(key): count for key, count in state.seen.items()}
    data["verdict"] = [state.verdict.draw.value, state.verdict.advice]
    data["hands"] = [[str(card) for card in hand] for hand in state.hands]
    data["bets"] = [list(bet) for bet in state.bets.values()]
    data["stacks"] = [[punter, spot, bet_id] for (punter, spot), bet_id in state.stacks.items()]
    data["tied"] = [[bet_id, stake] for bet_id, stake in state.tied.items()]
    data["last_result"] = None if state.last_result is None else event_to_json(state.last_result)
    return data


def _common(
    state: AnyState, game: str, rules: str, options: dict[str, str], names: tuple[str, ...]
) -> dict[str, Any]:
    data: dict[str, Any] = {
        "format": CHECKPOINT_FORMAT,
        "state_fields": _field_names(state),
        "table": state.table,
        "game": game,
        "rules": rules,
        "options": dict(options),
    }
    for name in names:
        value = getattr(state, name)
        data[name] = dict(value) if isinstance(value, dict) else value
    return data


def state_from_checkpoint(text: str) -> AnyState:
    """The state a checkpoint keeps; :class:`CheckpointError` if this dealtable cannot read it."""
    try:
        data = json.loads(text)
        if not isinstance(data, dict):
            raise CheckpointError("a checkpoint is a JSON object")
        if data.get("format") not in READABLE_FORMATS:
            raise CheckpointError(
                f"checkpoint format {data.get('format')!r}, not one of "
                f"{', '.join(map(str, READABLE_FORMATS))}"
            )
        if data["format"] < 3:
            data["readers_lost"] = {}
            data["state_fields"] = _with_later_fields(data["state_fields"])
        if data["format"] < 4 and data["game"] != "faro":
            data["state_fields"] = _with_tied_by_bet(data["state_fields"])
            if data.get("carried"):
                data["tied"] = [[bet_id, stake] for bet_id, _, _, stake in data["bets"]]
        if data["game"] == "faro":
            state: AnyState = _faro_state(data)
        else:
            state = _baccarat_state(data)
        if data["state_fields"] != _field_names(state):
            raise CheckpointError("written for a table state with other fields")
        return state
    except CheckpointError:
        raise
    except (KeyError, TypeError, ValueError, AttributeError, RecursionError) as error:
        raise CheckpointError(f"unreadable checkpoint: {error!r}") from None


def _with_later_fields(names: object) -> object:
    """An earlier format's state fields as format 3 names them: ``readers_lost`` after
    ``alarm``, and no ``hoc``."""
    if not isinstance(names, list) or "alarm" not in names or "readers_lost" in names:
        return names
    at = names.index("alarm") + 1
    return [name for name in [*names[:at], "readers_lost", *names[at:]] if name != "hoc"]


def _with_tied_by_bet(names: object) -> object:
    """An earlier format's baccarat state fields as format 4 names them: ``tied`` where
    ``carried`` was."""
    if not isinstance(names, list):
        return names
    return ["tied" if name == "carried" else name for name in names]


def _faro_state(data: dict[str, Any]) -> FaroState:
    state = FaroState(table=data["table"], rules=find_rules(data["rules"], data["options"]))
    state.rules_options = dict(data["options"])
    _restore(state, data, _FARO_FIELDS)
    state.phase = Phase(data["phase"])
    state.bets_by_rank = {Rank(int(rank)): set(ids) for rank, ids in data["bets_by_rank"].items()}
    # Format 1 kept no bets: none stood from deal to deal then.
    for row in data.get("bets", []):
        bet_id, punter, spot, stake, coppered, mark, instruction, order, pays, base, rides = row
        bet = FaroBet(
            bet_id,
            punter,
            parse_spot(spot),
            stake,
            coppered,
            mark,
            Instruction.parse(instruction),
            None if order is None else (order[0], order[1], order[2]),
            pays,
            base,
            rides,
        )
        # What the fold keeps of each bet besides it; the committed chips and marks, and
        # the ranks once backed, are kept as they were.
        state.bets[bet_id] = bet
        state.payout_bound += stake * pays
        if order is None:
            state.stack_index[stack_key(bet)] = bet_id
        if bet.spot.standing:
            state.standing_bets.add(bet_id)
    return state


def _baccarat_state(data: dict[str, Any]) -> BaccaratState:
    game = data["game"]
    rules = find_baccarat_rules(game, data["rules"], data["options"])
    state = BaccaratState(table=data["table"], game=game, rules=rules)
    state.rules_options = dict(data["options"])
    _restore(state, data, _BACCARAT_FIELDS)
    state.phase = BaccaratPhase(data["phase"])
    state.seen = {int(key): count for key, count in data["seen"].items()}
    draw, advice = data["verdict"]
    state.verdict = Verdict(Draw(draw), advice)
    state.hands = [[Card.parse(card) for card in hand] for hand in data["hands"]]
    state.bets = {bet_id: Bet(bet_id, punter, spot, stake) for bet_id, punter, spot, stake in (
        data["bets"]
    )}  # fmt: skip
    state.stacks = {(punter, spot): bet_id for punter, spot, bet_id in data["stacks"]}
    state.tied = dict(data.get("tied", []))
    if data["last_result"] is not None:
        result = event_from_json(data["last_result"])
        if not isinstance(result, CoupResult):
            raise CheckpointError(f"last_result is a {result.type_name} event")
        state.last_result = result
    return state


def _restore(state: AnyState, data: dict[str, Any], names: tuple[str, ...]) -> None:
    for name in names:
        value = data[name]
        setattr(state, name, dict(value) if isinstance(value, dict) else value)
    state.seats = list(data["seats"])


def table_from_checkpoint(text: str) -> FaroTable | BaccaratTable:
    """A table at a checkpoint's state, ready to fold the journal's events after it."""
    state = state_from_checkpoint(text)
    if isinstance(state, FaroState):
        return FaroTable.resume(state)
    return BaccaratTable.resume(state)
