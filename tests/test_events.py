from __future__ import annotations

import dataclasses
import enum
import json
import re
import typing
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from table.cards import Card
from table.dealer import last_card_index
from table.events import (
    AlarmKind,
    AlarmRaised,
    BetSettled,
    BetsLocked,
    CardDealt,
    CardRole,
    CoupResult,
    DealerCorrection,
    DealVoided,
    Event,
    EventCodecError,
    Outcome,
    ReaderNoticeKind,
    ThirdCardChoice,
    event_from_json,
    event_to_json,
    event_types,
)
from tests.conftest import deal, deal_rest, open_table


def test_every_event_of_a_deal_round_trips_through_json() -> None:
    table = open_table()
    events = list(table.opening)
    events += table.bet("dan", "9", 4)
    events += table.bet("anna", "high", 2, copper=True)
    events += table.deal(Card.parse("2C"))  # an alarm: the soda again
    events += table.void_card()
    events += deal_rest(table)
    kinds = set()
    for event in events:
        text = json.dumps(event_to_json(event))
        assert event_from_json(json.loads(text)) == event
        kinds.add(event.type_name)
    assert {"bet_settled", "card_dealt", "alarm_raised", "deal_finished", "turn_closed"} <= kinds


def test_a_settled_bet_reads_as_design_md_says() -> None:
    event = BetSettled(
        table="t1",
        seq=9,
        at=1.5,
        deal=2,
        bet=3,
        punter="anna",
        spot="K",
        outcome=Outcome.WIN,
        net=2,
        stake=0,
        turn=1,
    )
    data = event_to_json(event)
    assert data["type"] == "bet_settled"
    assert (data["punter"], data["spot"], data["outcome"], data["net"]) == ("anna", "K", "win", 2)
    assert (data["seq"], data["table"], data["deal"]) == (9, "t1", 2)


def test_event_names_are_unique_snake_case() -> None:
    names = list(event_types())
    assert len(names) == len(set(names))
    assert all(name == name.lower() and " " not in name for name in names)
    assert "card_dealt" in names and "alarm_raised" in names


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"type": "card_flipped"}, "unknown event type"),
        (
            {
                "type": "card_dealt",
                "seq": 1,
                "table": "t",
                "at": 0,
                "deal": 1,
                "role": "loser",
                "turn": 1,
            },
            "lacks field 'card'",
        ),
        (
            {
                "type": "card_dealt",
                "seq": 1,
                "table": "t",
                "at": 0,
                "deal": 1,
                "card": "ZZ",
                "role": "loser",
                "turn": 1,
            },
            "field 'card'",
        ),
        (
            {
                "type": "card_dealt",
                "seq": "1",
                "table": "t",
                "at": 0,
                "deal": 1,
                "card": "QH",
                "role": "loser",
                "turn": 1,
            },
            "field 'seq'",
        ),
        (
            {
                "type": "card_dealt",
                "seq": 1,
                "table": "t",
                "at": 0,
                "deal": 1,
                "card": "QH",
                "role": "dealer",
                "turn": 1,
            },
            "field 'role'",
        ),
        ([1, 2], "JSON object"),
    ],
)
def test_malformed_events_are_refused_with_a_clear_error(data: object, message: str) -> None:
    with pytest.raises(EventCodecError, match=message):
        event_from_json(data)  # type: ignore[arg-type]


def test_optional_fields() -> None:
    alarm = AlarmRaised(
        table="t", seq=1, at=0.0, deal=1, alarm=1, kind=AlarmKind.SHORT_DEAL, message="m"
    )
    assert event_from_json(event_to_json(alarm)) == alarm
    dealt = CardDealt(
        table="t", seq=2, at=0.0, deal=1, card=Card.parse("AS"), role=CardRole.SODA, turn=0
    )
    assert event_to_json(dealt)["card"] == "AS"


def test_every_event_of_a_baccarat_shoe_round_trips_through_json() -> None:
    """The baccarat vocabulary (coup results with hands of cards, choices, shoes, the
    bank) goes through the one codec unchanged, for every game of the family."""
    import io

    from table.baccarat import BaccaratTable
    from table.service.baccarat_demo import run_baccarat_demo

    kinds = set()
    for game in ("punto-banco", "chemin-de-fer", "banque", "macao"):
        demo = run_baccarat_demo(game=game, seed=4, out=io.StringIO())
        for event in demo.events:
            text = json.dumps(event_to_json(event), ensure_ascii=False)
            assert event_from_json(json.loads(text)) == event
            kinds.add(event.type_name)
        assert [event.seq for event in demo.events] == list(range(1, len(demo.events) + 1))
        assert BaccaratTable.replay(demo.events).state == demo.table.state
    assert {
        "shoe_started",
        "coup_result",
        "coup_finished",
        "third_card_choice",
        "bank_announced",
        "cut_card_out",
        "shoe_finished",
        "bank_passed",
    } <= kinds


def test_journals_an_earlier_dealtable_wrote_fold_to_the_state_they_dealt() -> None:
    """A journal is folded again at every start: 60 random records of every game, written by
    an earlier dealtable (tests/records/earlier_journals.py), must give today the chips, the
    banker and the bets they gave then."""
    import gzip
    import json
    from pathlib import Path

    from table.baccarat.engine import BaccaratTable
    from table.faro.engine import FaroTable

    path = Path(__file__).parent / "records" / "journals_written_at_6290dc5.json.gz"
    records = json.loads(gzip.decompress(path.read_bytes()))
    assert len(records) == 60
    games = set()
    for number, record in enumerate(records):
        events = [event_from_json(fields) for fields in record["events"]]
        game = events[0].game  # type: ignore[attr-defined]
        games.add(game)
        state = (FaroTable if game == "faro" else BaccaratTable).replay(events).state
        folded = {
            "bankrolls": dict(state.bankrolls),
            "bank": state.bank,
            "banker": state.banker,
            "bets": len(state.bets),
            "seq": state.last_seq,
        }
        assert folded == record["summary"], (number, game)
    assert games == {"faro", "punto-banco", "chemin-de-fer", "banque", "macao"}


def say_no_records(name: str) -> list[tuple[list[Event], list[tuple[int, dict[str, Any]]]]]:
    """The records of tests/records/earlier_say_no_journals.py in ``name``: each one's events
    and, after each command, how many of them the journal held and the state they folded to."""
    import gzip

    path = Path(__file__).parent / "records" / name
    return [
        (
            [event_from_json(fields) for fields in record["events"]],
            [(count, dealt) for count, dealt in record["ends"]],
        )
        for record in json.loads(gzip.decompress(path.read_bytes()))
    ]


def folded_say_no_records(
    name: str,
    games: set[str],
    cases: set[str],
    before_each: Callable[[Any, Event], None] = lambda state, event: None,
) -> Iterator[tuple[int, int, Any, dict[str, Any]]]:
    """Each record of ``name`` folded by today's engine a command at a time: after each, the
    record's number, how many events the journal then held, the state folded and the state
    the record dealt (``before_each`` sees the state and each event before it is folded).
    The record's games go into ``games`` and its cases (:func:`say_no_cases`) into ``cases``;
    a record folded whole must replay to the same state."""
    from table.baccarat.engine import BaccaratTable

    for number, (events, ends) in enumerate(say_no_records(name)):
        games.add(events[0].game)  # type: ignore[attr-defined]
        cases |= say_no_cases(events)
        table = BaccaratTable.replay(events[:1])
        folded = 1
        for count, dealt in ends:
            for event in events[folded:count]:
                before_each(table.state, event)
                table.state.apply(event)
            folded = count
            yield number, count, table.state, dealt
        assert BaccaratTable.replay(events).state == table.state


def say_no_cases(events: list[Event]) -> set[str]:
    """What of the players' stands, voids and corrections a record of Chemin de Fer or
    Banque holds, read from its events alone."""
    cases: set[str] = set()
    stood: set[str] = set()
    for index, event in enumerate(events):
        if isinstance(event, BetsLocked):
            stood = set()
        elif isinstance(event, ThirdCardChoice) and not event.draws and event.hand != "banker":
            stood.add(event.hand)
            if not event.forced:
                cases.add(f"chosen stand on {event.total}")
            elif event.total in (6, 7):
                cases.add("forced stand on 6 or 7")
            else:
                cases.add("forced stand on 5")  # the strict tables
        elif isinstance(event, CoupResult) and {"right", "left"} <= stood:
            cases.add("both Banque hands stood")
        elif isinstance(event, DealVoided):
            cases.add("coup voided")
        elif isinstance(event, DealerCorrection):
            cases.add(f"{event.action} of {'the last card' if event.undone else 'an alarm'}")
            last = last_card_index(events[:index])
            taken_back = events[last + 1 : index] if event.undone else []
            if any(
                isinstance(told, ThirdCardChoice) and told.forced and told.hand != "banker"
                for told in taken_back
            ):
                cases.add("a player's forced stand taken back with its card")
    return cases


def test_chemin_de_fer_and_banque_journals_written_before_the_wait_for_the_non_fold_alike() -> None:
    """Journals of Chemin de Fer and Banque written at 6f4d27c, the commit before 777a2fc
    (tests/records/earlier_say_no_journals.py made them), fold with today's engine to the
    state they dealt, after each command. There a player hand the tableau made stand (6 or
    7; 5 at strict rules) was told to stand with the banker's second card, as its
    consequence, where today it waits for its "non": the old stands must still pass the
    hand, and a void or correction of that card take them back."""
    from tests.records.earlier_say_no_journals import summary

    games: set[str] = set()
    cases: set[str] = set()
    for number, count, state, dealt in folded_say_no_records(
        "say_no_journals_written_at_6f4d27c.json.gz", games, cases
    ):
        assert summary(state) == dealt, (number, count)
    assert games == {"chemin-de-fer", "banque"}
    assert cases >= {
        "chosen stand on 5",
        "forced stand on 5",
        "forced stand on 6 or 7",
        "both Banque hands stood",
        "coup voided",
        "void of the last card",
        "correct of the last card",
        "void of an alarm",
        "correct of an alarm",
        "a player's forced stand taken back with its card",
    }, cases


def test_chemin_de_fer_and_banque_journals_written_before_forced_stands_were_told_fold_alike() -> (
    None
):
    """Journals of Chemin de Fer and Banque written at 9ede1fb, the commit before db658a1
    (tests/records/earlier_say_no_journals.py made them), fold with today's engine to the
    state they dealt, after each command, but for the wait for the "non". There a hand the
    tableau made stand was never told: a player's forced stand on 6 or 7 (5 at strict rules)
    left no event, and play went on to the next hand. Today that player waits for his "non"
    after the banker's second card, so the next card, a later hand's choice or the coup's
    result must pass him as the journal did.

    After each command the summary of tests/records/earlier_say_no_journals.py is compared:

    - mid-coup, where today's fold waits for a "non" the old engine did not, only where the
      next card goes (``next``) and whose turn it is (``actor``) may differ, and only by the
      wait: the fold with the waiting hands passed must be the old summary whole. Elsewhere
      mid-coup the summary is the same whole: phase, shoe, coup, cards out, hands, choices,
      deviations, bets, chips, bank, banker, alarm, last seq;
    - at a coup's end (none in play) the summary is the same whole but for ``actor``: a coup
      that ended without the waiting player's stand told leaves the turn at him, which no
      command reads before the next lock starts it again."""
    import copy

    from tests.records.earlier_say_no_journals import summary

    games: set[str] = set()
    cases: set[str] = set()

    def passing(state: Any, event: Event) -> None:
        if not state.awaits_a_no:
            return
        if isinstance(event, CardDealt) and event.role is not CardRole.BURN:
            cases.add("a card passed a waiting player")
        elif isinstance(event, ThirdCardChoice):
            cases.add(f"the {event.hand} hand's choice passed a waiting player")
        elif isinstance(event, CoupResult):
            cases.add("a coup ended with a player waiting")

    for number, count, state, dealt in folded_say_no_records(
        "say_no_journals_written_at_9ede1fb.json.gz", games, cases, passing
    ):
        if state.coup_in_play:
            if state.awaits_a_no:
                cases.add("a player waiting at a command's end")
                state = copy.deepcopy(state)
                state._pass_the_noes()
            assert summary(state) == dealt, (number, count)
        else:
            assert {**summary(state), "actor": None} == {**dealt, "actor": None}, (
                number,
                count,
            )
    assert games == {"chemin-de-fer", "banque"}
    assert cases >= {
        "a card passed a waiting player",
        "the banker hand's choice passed a waiting player",
        "the left hand's choice passed a waiting player",
        "a coup ended with a player waiting",
        "a player waiting at a command's end",
        "chosen stand on 5",
        "coup voided",
        "void of the last card",
        "correct of the last card",
        "void of an alarm",
        "correct of an alarm",
    }, cases


# --- docs/events.md keeps up with the vocabulary --------------------------------------------

EVENTS_MD = Path(__file__).parent.parent / "docs" / "events.md"
ENVELOPE = ("type", "seq", "table", "at", "deal")


def event_sections() -> dict[str, str]:
    """docs/events.md's sections by their ``### name`` heading, each up to the next heading."""
    sections = {}
    for part in re.split(r"(?m)^(?=#{1,3} )", EVENTS_MD.read_text(encoding="utf-8")):
        heading = re.match(r"### (\w+)\n", part)
        if heading:
            sections[heading.group(1)] = part
    return sections


def table_fields(section: str) -> list[str]:
    """The names in the first column of a section's field table, in order."""
    return re.findall(r"(?m)^\| `(\w+)` \|", section)


def test_every_event_type_has_a_section_naming_its_fields_in_order() -> None:
    """The JSON keys come in the order of the class's fields, so the doc's table lists them
    so: an event type or a field the doc does not name fails here."""
    sections = event_sections()
    for name, cls in event_types().items():
        assert name in sections, f"docs/events.md has no section '### {name}'"
        fields = [item.name for item in dataclasses.fields(cls) if item.name not in ENVELOPE]
        assert table_fields(sections[name]) == fields, name


def test_every_value_of_an_event_enum_is_named_in_the_section_of_its_event() -> None:
    sections = event_sections()
    enums = set()
    for name, cls in event_types().items():
        for field_name, hint in typing.get_type_hints(cls).items():
            kinds = [hint, *typing.get_args(hint)]
            for kind in kinds:
                if isinstance(kind, type) and issubclass(kind, enum.Enum):
                    enums.add(kind)
                    missing = [m.value for m in kind if f"`{m.value}`" not in sections[name]]
                    assert not missing, (name, field_name, missing)
    assert {CardRole, Outcome, AlarmKind, ReaderNoticeKind} <= enums


# Why a bet comes back in a Faro turn (words of its note), and the words docs/events.md's
# account of a turn uses for it.
RETURNS_IN_A_TURN = {"are dead": "dead", "the bank cannot cover it": "can no longer cover"}


def test_docs_events_md_orders_a_faro_turn_as_the_engine_does() -> None:
    """A bet between two ranks that stood (001) on the last card of each is handed back with
    the turn's settlements, by bet number, before `turn_closed`; a bet the bank can no
    longer cover comes back after it. The doc's account of a turn's second card names
    each return on the side of `turn_closed` where the engine puts it."""
    table = open_table(bank=20)
    deal(table, "9H 3S 9D 4S 9C 5S 10H 6S 10D 7S 10C 8S")  # one 9 and one 10 left
    table.bet("dan", "9+10", 5)
    table.bet("anna", "10", 10)
    table.bet("ben", "Q", 12)
    events = deal(table, "9S 10S")  # 9+10 stands on both last cards; anna's win leaves 10
    assert [
        (event.type_name, getattr(event, "punter", ""), getattr(event, "outcome", None))
        for event in events
    ] == [
        ("bets_locked", "", None),
        ("card_dealt", "", None),
        ("card_dealt", "", None),
        ("bet_settled", "dan", Outcome.RETURNED),
        ("bet_settled", "anna", Outcome.WIN),
        ("turn_closed", "", None),
        ("bet_settled", "ben", Outcome.RETURNED),
    ]
    text = " ".join(EVENTS_MD.read_text(encoding="utf-8").split())
    item = re.search(r"2\. the second card: (.*?)\. Faro, the hoc", text)
    assert item, "docs/events.md: no account of a Faro turn's second card"
    before, closed, after = item.group(1).partition("`turn_closed`")
    assert closed, "docs/events.md: a Faro turn's second card without turn_closed"
    closed_at = next(i for i, event in enumerate(events) if event.type_name == "turn_closed")
    reasons = []
    for index, event in enumerate(events):
        if isinstance(event, BetSettled) and event.outcome is Outcome.RETURNED:
            reason = next(key for key in RETURNS_IN_A_TURN if key in event.note)
            side, words = (before, "before") if index < closed_at else (after, "after")
            assert RETURNS_IN_A_TURN[reason] in side, (
                f"docs/events.md: a bet returned as {event.note!r} comes {words} turn_closed"
            )
            reasons.append(reason)
    assert reasons == ["are dead", "the bank cannot cover it"]


def test_the_examples_in_docs_events_md_are_whole_events_of_their_section() -> None:
    """Each section's JSON examples decode, are of its type, and carry every field the codec
    writes today: an example that falls behind the code fails here."""
    for name, section in event_sections().items():
        examples = re.findall(r"```json\n(.*?)\n```", section, flags=re.S)
        assert examples, f"docs/events.md: no example of {name}"
        for text in examples:
            data = json.loads(text)
            event = event_from_json(data)
            assert event.type_name == name
            assert event_to_json(event) == data
