"""Invariants of the baccarat engine for any card order and any commands (hypothesis)."""

from __future__ import annotations

import json

import hypothesis
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from table.baccarat import BaccaratTable, Draw, Family, Phase
from table.baccarat.tableau import POINTS, total
from table.cards import STANDARD_52, Card, Rank, Suit
from table.errors import TableError
from table.events import (
    AlarmCleared,
    AlarmKind,
    AlarmRaised,
    BetSettled,
    BetsLocked,
    CardDealt,
    CoupResult,
    Event,
    Outcome,
    ThirdCardChoice,
    event_from_json,
    event_to_json,
)
from tests.conftest import cards as cards_of

PUNTERS = ("bea", "ana", "ben", "cy")
SIDES = ("player", "banker", "tie", "player-pair", "bp", "right", "left", "punto", "nowhere")
VERBS = ("bet",) * 6 + (
    "banco",
    "withdraw",
    "pass",
    "bank",
    "void",
    "correct",
    "cut",
    "stand",
    "card",
    "void-coup",
)

commands = st.tuples(
    st.sampled_from(VERBS),
    st.sampled_from((*PUNTERS, "zoe")),
    st.sampled_from(SIDES),
    st.integers(min_value=-1, max_value=120),
    st.sampled_from(STANDARD_52.cards),
)


def run(table: BaccaratTable, command: tuple[str, str, str, int, Card]) -> list[Event]:
    verb, punter, side, amount, card = command
    if verb == "bet":
        return table.bet(punter, side, amount)
    if verb == "banco":
        return table.banco(punter)
    if verb == "withdraw":
        return table.withdraw(punter, side)
    if verb == "pass":
        return table.pass_bank()
    if verb == "bank":
        return table.fund_bank(amount)
    if verb == "void":
        return table.void_card()
    if verb == "cut":
        return table.cut()
    if verb == "stand":
        return table.stand()
    if verb == "card":
        return table.deal(card)  # while bets are open: an alarm
    if verb == "void-coup":
        return table.void_coup()
    return table.correct(card)


def lock_or_pass(table: BaccaratTable) -> list[Event]:
    """Close the coup; a player-held bank needs a stake first, or the bank passes on."""
    try:
        return table.lock()
    except TableError:
        pass
    side = "left" if table.state.family is Family.BANQUE else "player"
    for punter in PUNTERS:
        try:
            placed = table.bet(punter, side, 1)
        except TableError:
            continue
        return placed + table.lock()
    return table.pass_bank()


def _dealing(table: BaccaratTable) -> bool:
    return table.state.phase is Phase.DEALING


# The rules that change who stands: a banker bound to the tableau (no discretion), whose
# forced stand leaves no hand to take a card while a player's "non" waits; and the strict
# tables' representative, who stands on 5 (a wait for the "non", not a choice).
house_rules = st.fixed_dictionaries(
    {
        "banker_discretion": st.sampled_from(["true", "false"]),
        "strict_five": st.sampled_from(["false", "true"]),
    }
)


def told_before_card(out: list[Event], hand: str) -> bool:
    """Whether ``hand``'s forced stand is told in ``out`` before its card."""
    for event in out:
        if isinstance(event, CardDealt):
            return False
        if isinstance(event, ThirdCardChoice) and event.hand == hand:
            return event.forced and not event.draws
    return False


def key_the_no(table: BaccaratTable) -> list[Event]:
    """The dealer keys ``stand`` at a player's "non" the tableau forces: told at once, as
    the hand's forced stand, and the coup moves past the hand."""
    state = table.state
    waiting = state.pending
    hand = state.geometry.hands[waiting]
    two = total(state.hands[waiting])
    out = table.stand()
    hypothesis.event(f'stand keyed at a forced "non" ({state.rules.family.value})')
    first = out[0]
    assert isinstance(first, ThirdCardChoice), out
    assert (first.hand, first.draws, first.forced, first.face_down) == (hand, False, True, True)
    assert first.total == two
    assert state.pending != waiting, "the hand still waits for the 'non' keyed"
    return out


def slide_past_the_no(table: BaccaratTable, card: Card, voids: bool) -> list[Event]:
    """A card slid while a player's "non" waits: a later hand takes it, the stand told
    first; or no hand may (the banker bound to stand), and its alarm says the "non" is keyed
    with ``stand``, and voided the coup waits for it as before."""
    state = table.state
    hand = state.geometry.hands[state.pending]
    before = state.copy()
    out = table.deal(card)
    alarm = table.state.alarm
    if alarm is None:
        hypothesis.event('a card slid past a forced "non"')
        assert told_before_card(out, hand), out
        return out
    if "no hand takes a card now" not in alarm.message:
        return out  # the card cannot come at all (a duplicate, a shoe run out): voided as any
    assert "keyed with 'stand'" in alarm.message, alarm.message
    hypothesis.event('a card slid at a forced "non" no hand takes')
    if not voids:
        return out
    out += table.void_card()
    after = table.state
    assert after.alarm is None and after.awaits_a_no
    assert (after.pending, after.hands, after.actor) == (before.pending, before.hands, before.actor)
    return out


def ends_on_naturals(result: CoupResult, family: Family) -> bool:
    players = [hand for hand in result.hands if hand != "banker"]
    if "banker" in result.naturals or family is Family.MACAO:
        return True
    return all(hand in result.naturals for hand in players)


def check_stands_told(events: list[Event], family: Family) -> None:
    """Where the hands lie face down, the room hears every hand of a coup that goes past
    its first cards draw or stand: a player's stand once, forced or chosen, and the
    banker's at least once (a correction of the last card tells it again)."""
    if family not in (Family.CHEMIN_DE_FER, Family.BANQUE):
        return
    stood: dict[str, int] = {}
    for event in events:
        if isinstance(event, BetsLocked):
            stood = {}
        elif isinstance(event, ThirdCardChoice) and not event.draws:
            stood[event.hand] = stood.get(event.hand, 0) + 1
            assert event.hand == "banker" or stood[event.hand] == 1, event
        elif isinstance(event, CoupResult) and not ends_on_naturals(event, family):
            for hand, cards in event.hands.items():
                if len(cards) == 2 and event.totals[hand] < 8:
                    assert stood.get(hand, 0) >= 1, (hand, event)


def check_result(result: CoupResult, family: Family) -> None:
    sizes = {len(cards) for cards in result.hands.values()}
    assert sizes <= ({1} if family is Family.MACAO else {2, 3})
    for hand, cards in result.hands.items():
        assert result.totals[hand] == total(cards)
    banker = result.totals["banker"]
    for hand, winner in result.winners.items():
        if hand in result.naturals or "banker" in result.naturals:
            continue
        mine = result.totals[hand]
        assert winner == ("player" if mine > banker else "banker" if mine < banker else "tie")


# Chemin de Fer and Banque twice: their players' "non" and their bankers' choices.
GAMES = (
    "punto-banco",
    "mini-baccarat",
    "chemin-de-fer",
    "banque",
    "macao",
    "chemin-de-fer",
    "banque",
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    game=st.sampled_from(GAMES),
    burn=st.sampled_from(["value", "one", "none"]),
    rules=house_rules,
    deck=st.permutations(STANDARD_52.cards),
    data=st.data(),
)
def test_chips_conserved_coups_valid_replay_same_refusals_change_nothing(
    game: str, burn: str, rules: dict[str, str], deck: list[Card], data: st.DataObject
) -> None:
    options = {"decks": "1", "cut_card": "9", "burn": burn, **rules}
    table = BaccaratTable("prop", game, options=options)
    events = list(table.opening)
    family = table.state.family
    if family is Family.PUNTO_BANCO:
        events += table.fund_bank(800)
    for name in PUNTERS:
        events += table.seat(name, 150)
    events += table.new_shoe()
    chips = table.state.total_chips()
    cards = iter(deck)
    shoes = 1
    for _ in range(2 * len(deck) + 80):
        state = table.state
        if state.alarm is not None:
            # Between coups, a stray card is voided alone: no coup is there to void.
            void_alone = data.draw(st.booleans()) or not state.coup_in_play
            events += table.void_card() if void_alone else table.void_coup()
            continue
        if state.phase is Phase.NO_SHOE:
            if shoes == 2:
                break
            # 002: a new shoe, and the same banker goes on.
            banker = state.banker
            events += table.new_shoe()
            assert table.state.banker == banker
            shoes += 1
            cards = iter(deck)
            continue
        if state.bets_open:
            if family is not Family.PUNTO_BANCO and not state.bank:
                try:
                    events += table.announce_bank(data.draw(st.integers(1, 120)))
                except TableError:
                    events += table.pass_bank()
                continue
            for command in data.draw(st.lists(commands, max_size=4)):
                before = table.state.copy()
                try:
                    events += run(table, command)
                except TableError as refused:
                    refusal = str(refused)
                else:
                    if command[0] == "bank" and family is Family.PUNTO_BANCO:
                        chips = table.state.total_chips()  # the house brought more chips
                    continue
                assert refusal, f"{command} was refused without a reason"
                assert table.state == before, f"{command} was refused but changed the state"
            if table.state.bets_open:
                events += lock_or_pass(table)
            continue
        following = state.next_card()
        # Every coup in play knows where its next card goes until it is over.
        assert following.hand is not None, f"coup {state.coup} is stuck"
        if following.draw is Draw.MAY and data.draw(st.booleans()):
            events += table.stand()
            continue
        # A player's "non" the tableau forces is mostly keyed; sometimes a card is slid. (A
        # shoe loaded to finish the coup is burned first: the hand waits, the card is a burn.)
        waits = state.awaits_a_no and _dealing(table)
        if waits and data.draw(st.integers(0, 3)) > 0:
            events += key_the_no(table)
            continue
        card = next(cards, None)
        if card is None or data.draw(st.integers(0, 40)) == 0:
            # The box runs dry (a miscounted shoe): a new shoe finishes the coup in play, less
            # the cards on the table, or the coup is voided.
            events += table.shoe_empty()
            if table.state.alarm is None:
                continue
            if data.draw(st.booleans()):
                events += table.new_shoe()
                on_table = [card for hand in table.state.hands for card in hand]
                cards = iter([card for card in deck if card not in on_table])
            elif table.state.coup_in_play:
                events += table.void_coup()
            else:
                events += table.void_card()  # dry while burning: no coup to void
            continue
        if waits:
            events += slide_past_the_no(table, card, voids=data.draw(st.booleans()))
        else:
            events += table.deal(card)
        assert table.state.total_chips() == chips
        assert all(roll >= 0 for roll in table.state.bankrolls.values())
        assert table.state.bank >= 0
        if not table.state.rules.house_banks and table.state.banker:
            assert table.state.bank <= table.state.bankrolls[table.state.banker]
    assert table.state.total_chips() == chips
    check_stands_told(events, family)
    for event in events:
        if isinstance(event, CoupResult):
            check_result(event, family)
    assert [event.seq for event in events] == list(range(1, len(events) + 1))
    assert BaccaratTable.replay(events).state == table.state
    through_json = [event_from_json(json.loads(json.dumps(event_to_json(e)))) for e in events]
    assert BaccaratTable.replay(through_json).state == table.state
    alarmed = False
    for event in events:
        if isinstance(event, AlarmRaised):
            alarmed = True
        elif isinstance(event, AlarmCleared):
            alarmed = False
        elif alarmed and isinstance(event, BetSettled):
            assert event.outcome is Outcome.RETURNED, "settled from a misdeal"


@settings(max_examples=40, deadline=None)
@given(
    game=st.sampled_from(["punto-banco", "chemin-de-fer", "banque", "macao"]),
    cards=st.lists(st.sampled_from(STANDARD_52.cards), min_size=30, max_size=80),
    stands=st.lists(st.booleans(), min_size=80, max_size=80),
    rules=house_rules,
)
@example(  # Banque: stakes a tie carried fill the punter's bank of 50
    game="banque",
    cards=cards_of(
        "AS 2S 3S 6S 8S QS KS 7H KS 6S 4S 7S 2S 4S 7S 8S 9S QS AH 10S JS JS 3S 9S "
        "8H 5S 10S 9D AS 5S 9D 7C AS"
    ),
    stands=[False] * 80,
    rules={"banker_discretion": "true", "strict_five": "false"},
)
def test_any_card_sequence_from_a_two_deck_shoe_leaves_every_coup_valid(
    game: str, cards: list[Card], stands: list[bool], rules: dict[str, str]
) -> None:
    """Cards drawn with repeats: a third copy in a two-deck shoe is an alarm, voided, as is a
    card slid while a player's "non" waits that no hand may take; every coup that ends is
    valid and the chips are all still there."""
    table = BaccaratTable("prop", game, options={"decks": "2", "burn": "none", **rules})
    events = list(table.opening)
    family = table.state.family
    if family is Family.PUNTO_BANCO:
        events += table.fund_bank(1000)
    for name in PUNTERS:
        events += table.seat(name, 200)
    events += table.new_shoe()
    chips = table.state.total_chips()
    side = "left" if family is Family.BANQUE else "player"
    for card, stand in zip(cards, stands, strict=False):
        state = table.state
        if state.bets_open:
            if not state.rules.house_banks and not state.bank:
                banker = state.banker or PUNTERS[0]
                if state.bankrolls[banker] < 50:
                    events += table.pass_bank()
                    continue
                events += table.announce_bank(50)
            punter = next(
                (p for p in PUNTERS if p != state.banker and state.available(p) >= 10), None
            )
            # A punter's bank can lose only what is in it: stakes a tie carried count (002).
            covered = state.rules.house_banks or state.staked + 10 <= state.bank
            if punter is not None and covered:
                events += table.bet(punter, side, 10)
            events += lock_or_pass(table)
            if not _dealing(table):
                continue
        if state.awaits_a_no and stand:
            events += key_the_no(table)
            continue
        if state.next_card().draw is Draw.MAY and stand:
            events += table.stand()
            continue
        if state.awaits_a_no:
            events += slide_past_the_no(table, card, voids=True)
        else:
            events += table.deal(card)
        if table.state.alarm is not None:
            assert table.state.alarm.kind is AlarmKind.DUPLICATE_CARD
            events += table.void_card()
        assert table.state.total_chips() == chips
    check_stands_told(events, family)
    for event in events:
        if isinstance(event, CoupResult):
            check_result(event, family)
    assert BaccaratTable.replay(events).state == table.state


def card_for(data: st.DataObject, value: int) -> Card:
    """A card worth ``value`` points, of any suit (a ten or a court card for 0)."""
    ranks = [rank for rank in Rank if POINTS[rank] == value]
    return Card(data.draw(st.sampled_from(ranks)), data.draw(st.sampled_from(list(Suit))))


@pytest.mark.parametrize("game", ["chemin-de-fer", "banque"])
@settings(max_examples=25, deadline=None)
@given(rules=house_rules, data=st.data())
def test_a_players_forced_non_keyed_slid_past_voided_or_corrected_keeps_every_invariant(
    game: str, rules: dict[str, str], data: st.DataObject
) -> None:
    """Coups whose player hands mostly stand on 5, 6 or 7: at the wait for the "non" the
    dealer keys ``stand``, slides a card (past it, or into an alarm no hand takes, voided),
    or voids or corrects the last card; every stand is told once, the chips stay, every
    coup is valid, refusals change nothing and the journal folds to the live table."""
    table = BaccaratTable("prop", game, options={"decks": "8", "burn": "none", **rules})
    events = list(table.opening)
    family = table.state.family
    for name in PUNTERS:
        events += table.seat(name, 300)
    events += table.new_shoe()
    chips = table.state.total_chips()
    side = "left" if family is Family.BANQUE else "player"
    for _ in range(6):
        state = table.state
        if not state.bank:
            events += table.announce_bank(min(100, state.bankrolls[state.banker or PUNTERS[0]]))
        punter = next(p for p in PUNTERS if p != state.banker and state.available(p) >= 10)
        if state.staked + 10 <= state.bank:
            events += table.bet(punter, side, 10)
        events += lock_or_pass(table)
        for _ in range(40):
            state = table.state
            if state.alarm is not None:
                events += table.void_card()
                continue
            if not _dealing(table):
                break
            hand = state.pending
            move = data.draw(st.sampled_from(["card"] * 3 + ["stand"] * 2 + ["void", "correct"]))
            if move in ("void", "correct"):
                before = state.copy()
                try:
                    if move == "void":
                        events += table.void_card()
                    else:
                        events += table.correct(data.draw(st.sampled_from(STANDARD_52.cards)))
                except TableError:
                    assert table.state == before, f"a refused {move} changed the state"
                continue
            if state.awaits_a_no and move == "stand":
                events += key_the_no(table)
                continue
            if state.next_card().draw is Draw.MAY and move == "stand":
                events += table.stand()
                continue
            cards = state.hands[hand]
            if len(cards) == 1 and hand != len(state.hands) - 1:
                # The players' second cards make 5, 6 or 7 as often as anything else.
                aim = data.draw(st.sampled_from([5, 6, 7, *range(10)]))
                card = card_for(data, (aim - POINTS[cards[0].rank]) % 10)
            else:
                card = card_for(data, data.draw(st.integers(0, 9)))
            if state.awaits_a_no:
                events += slide_past_the_no(table, card, voids=data.draw(st.booleans()))
            else:
                events += table.deal(card)
            assert table.state.total_chips() == chips
        if _dealing(table):
            events += table.void_coup()  # a coup the loop left unfinished
    assert table.state.total_chips() == chips
    check_stands_told(events, family)
    for event in events:
        if isinstance(event, CoupResult):
            check_result(event, family)
    assert BaccaratTable.replay(events).state == table.state
    through_json = [event_from_json(json.loads(json.dumps(event_to_json(e)))) for e in events]
    assert BaccaratTable.replay(through_json).state == table.state
