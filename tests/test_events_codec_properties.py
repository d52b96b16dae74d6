"""The event codec for any event and any garbage in place of one (hypothesis): every event
reads back as it was written, and what is not an event is refused with an EventCodecError
naming the type and field, never a traceback nor an event that writes back as something else."""

from __future__ import annotations

import dataclasses
import enum
import math
import types
import typing
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from table.cards import STANDARD_52, Card
from table.events import Event, EventCodecError, event_from_json, event_to_json, event_types

FAST = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

texts = st.text(max_size=8)
whole_numbers = st.integers(min_value=-(2**63), max_value=2**63)
cards = st.sampled_from(STANDARD_52.cards)


def _values_of(hint: Any) -> st.SearchStrategy[Any]:
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        return st.one_of([_values_of(option) for option in typing.get_args(hint)])
    if hint is type(None):
        return st.none()
    if hint is Card:
        return cards
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        return st.sampled_from(list(hint))
    if origin is tuple:
        args = typing.get_args(hint)
        if len(args) == 2 and args[1] is Ellipsis:
            return st.lists(_values_of(args[0]), max_size=3).map(tuple)
        return st.tuples(*(_values_of(arg) for arg in args))
    if origin is dict:
        _, value_hint = typing.get_args(hint)
        return st.dictionaries(texts, _values_of(value_hint), max_size=3)
    if hint is float:
        return st.floats(allow_nan=False, allow_infinity=False)
    if hint is bool:
        return st.booleans()
    if hint is int:
        return whole_numbers
    if hint is str:
        return texts
    raise AssertionError(f"no strategy for {hint!r}")


def _events_of(cls: type[Event]) -> st.SearchStrategy[Event]:
    hints = typing.get_type_hints(cls)
    fields = {item.name: _values_of(hints[item.name]) for item in dataclasses.fields(cls)}
    return st.fixed_dictionaries(fields).map(lambda values: cls(**values))


events = st.sampled_from(sorted(event_types().items())).flatmap(lambda item: _events_of(item[1]))

json_garbage = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats()
    | st.text(max_size=6)
    | st.sampled_from(["QH", "10H", "Q\u017f", "soda", "win", "unknown_card", "K"]),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner),
    max_leaves=8,
)


def _same(written: object, read: object) -> bool:
    """JSON equality that tells NaN from every number, and a list of one length from another."""
    if isinstance(written, float) and math.isnan(written):
        return False
    if isinstance(written, dict) and isinstance(read, dict):
        return written.keys() == read.keys() and all(_same(written[k], read[k]) for k in written)
    if isinstance(written, list) and isinstance(read, list):
        return len(written) == len(read) and all(map(_same, written, read))
    return type(written) is type(read) or {type(written), type(read)} <= {int, float}


@FAST
@given(events)
def test_every_event_of_every_type_reads_back_as_it_was_written(event: Event) -> None:
    assert event_from_json(event_to_json(event)) == event


@FAST
@given(events, st.data())
def test_an_event_with_garbage_in_a_field_is_refused_or_writes_back_the_same(
    event: Event, data: st.DataObject
) -> None:
    written = event_to_json(event)
    name = data.draw(st.sampled_from(sorted(written.keys() - {"type"})))
    spoilt = {**written, name: data.draw(json_garbage)}
    read = _read_or_refusal(spoilt)
    if isinstance(read, EventCodecError):
        assert repr(name[:40]) in str(read)
        return
    again = event_to_json(read)
    assert _same(spoilt, again) and spoilt == again, f"{spoilt} read as {again}"


def _read_or_refusal(data: dict[str, Any]) -> Event | EventCodecError:
    try:
        return event_from_json(data)
    except EventCodecError as refused:
        return refused


@FAST
@given(events, st.text(min_size=1, max_size=8), json_garbage)
def test_an_event_with_a_field_its_type_has_not_is_refused_naming_it(
    event: Event, name: str, value: object
) -> None:
    written = event_to_json(event)
    if name in written:
        return
    with pytest.raises(EventCodecError, match=f"{event.type_name} event: unknown field"):
        event_from_json({**written, name: value})


@pytest.mark.parametrize(
    ("field", "value", "why"),
    [
        ("order", ["K", "Q"], "3 items"),
        ("order", ["K", "Q", "J", "A"], "3 items"),
        ("at", math.nan, "finite"),
        ("at", math.inf, "finite"),
    ],
)
def test_a_call_that_is_no_call_is_refused_saying_why(field: str, value: object, why: str) -> None:
    call = {
        "type": "turn_called",
        "seq": 4,
        "table": "t",
        "at": 0.0,
        "deal": 1,
        "bet": 2,
        "punter": "anna",
        "order": ["K", "Q", "J"],
        "amount": 5,
        "pays": 20,
    }
    with pytest.raises(EventCodecError, match=f"turn_called event: field '{field}': .*{why}"):
        event_from_json({**call, field: value})
