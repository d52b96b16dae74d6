"""Invariants of the Faro engine for any shuffled deck and any bets (hypothesis)."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from table.cards import MONTE_BANK_40, STANDARD_52, Card
from table.checkpoints import checkpoint_of, state_from_checkpoint
from table.errors import TableError
from table.events import BetSettled, CardDealt, DealerCorrection, Event
from table.faro import FaroTable
from table.faro.engine import FaroState, stack_key
from table.faro.layout import legal_groups
from table.faro.spots import UNTIL_WITHDRAWN_KINDS

PUNTERS = ("anna", "ben", "carla", "dan")
SPOTS = (
    [rank.label for rank in STANDARD_52.ranks]
    + ["+".join(r.label for r in group) for size in (2, 3, 4) for group in legal_groups(size)[:6]]
    + ["J>K", "2>3", "high", "odd", "even", "red", "7+9", "banana"]
)

bet_commands = st.tuples(
    st.sampled_from(("bet", "bet", "bet", "mark", "withdraw", "move", "call", "lock")),
    st.sampled_from((*PUNTERS, "zoe")),
    st.sampled_from(SPOTS),
    st.sampled_from(SPOTS),
    st.integers(min_value=-2, max_value=40),
    st.booleans(),
)


def run_command(table: FaroTable, command: tuple[str, str, str, str, int, bool]) -> list[Event]:
    verb, punter, spot, other, amount, copper = command
    if verb == "bet":
        return table.bet(punter, spot, amount, copper=copper)
    if verb == "mark":
        return table.bet(punter, spot, amount, copper=copper, mark=True)
    if verb == "withdraw":
        return table.withdraw(punter, spot)
    if verb == "move":
        return table.move(punter, spot, other)
    if verb == "lock":
        return table.lock()
    remaining = table.state.casekeep.remaining_cards()
    order = [card.rank.label for card in remaining][:3] if copper else ["A", "2", "3"]
    return table.call(punter, order, amount)


def cards_taken(events: list[Event]) -> list[Card]:
    """The cards the deal took, in order: a card the dealer undid is dropped."""
    dealt: list[Card] = []
    for event in events:
        if isinstance(event, CardDealt):
            dealt.append(event.card)
        elif isinstance(event, DealerCorrection) and event.undone:
            dealt.pop()
    return dealt


def play(rules: str, deck: list[Card], data: st.DataObject) -> tuple[FaroTable, list[Event]]:
    table = FaroTable("prop", rules)
    events = list(table.opening)
    if not table.state.rules.bank_passes:
        events += table.fund_bank(500)
    for name in PUNTERS:
        events += table.seat(name, 60)
    events += table.new_deck()
    events += deal_with_bets(table, deck, data)
    return table, events


def deal_with_bets(table: FaroTable, deck: list[Card], data: st.DataObject) -> list[Event]:
    """Deal ``deck`` with bets drawn at every window, a misread voided now and then; chips
    are conserved at every card, and a refused command changes nothing."""
    events: list[Event] = []
    chips = table.state.total_chips()
    for card in deck:
        if table.state.bets_open:
            for command in data.draw(st.lists(bet_commands, max_size=4)):
                before = table.state.copy()
                try:
                    events += run_command(table, command)
                except TableError as refused:
                    refusal = str(refused)
                else:
                    continue
                assert refusal, f"{command} was refused without a reason"
                assert table.state == before, f"{command} was refused but changed the state"
        events += table.deal(card)
        if data.draw(st.integers(0, 9)) == 0:
            # The dealer voids the card just dealt (a misread) and the reader sees it again,
            # or corrects it to itself: the deal goes on as if nothing had happened.
            settled_before = [e for e in events if isinstance(e, BetSettled)]
            events += table.void_card() if data.draw(st.booleans()) else []
            events += (
                table.correct(card) if table.state.casekeep.entry_for(card) else table.deal(card)
            )
            assert len(settled_before) <= len([e for e in events if isinstance(e, BetSettled)])
        assert table.state.total_chips() == chips
        assert_running_totals_agree(table.state)
        assert all(roll >= 0 for roll in table.state.bankrolls.values())
        assert table.state.bank_bankroll >= 0
    return events


def assert_running_totals_agree(state: FaroState) -> None:
    """What the fold keeps of the layout as bets come and go, so that a bet is checked at
    once (chips and marks each punter has down, the most the bank could pay, the stacks, the
    bets on each rank, the standing bets), is what the bets lying there add up to."""
    chips: dict[str, int] = {}
    marks: dict[str, int] = {}
    bets_by_rank: dict[object, set[int]] = {}
    for bet in state.bets.values():
        tally = marks if bet.mark else chips
        tally[bet.punter] = tally.get(bet.punter, 0) + bet.stake
        for rank in bet.spot.ranks:
            bets_by_rank.setdefault(rank, set()).add(bet.bet_id)
    assert {name: held for name, held in state.chips_committed.items() if held} == chips
    assert {name: held for name, held in state.marks_committed.items() if held} == marks
    assert state.payout_bound == sum(bet.max_payout for bet in state.bets.values())
    assert state.stack_index == {
        stack_key(bet): bet.bet_id for bet in state.bets.values() if bet.order is None
    }
    assert {rank: ids for rank, ids in state.bets_by_rank.items() if ids} == bets_by_rank
    assert state.standing_bets == {bet.bet_id for bet in state.bets.values() if bet.spot.standing}


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    rules=st.sampled_from(["classic", "home", "stuss", "saratoga", "casino-003"]),
    deck=st.permutations(STANDARD_52.cards),
    data=st.data(),
)
def test_chips_conserved_every_card_once_replay_same_refusals_change_nothing(
    rules: str, deck: list[Card], data: st.DataObject
) -> None:
    table, events = play(rules, deck, data)
    assert cards_taken(events) == deck
    assert table.state.phase.value == "finished"
    # 003: only high card and odd/even stay for the next deal, and only where the house
    # keeps the bank; the next deck goes in with them, and a void of that deal returns them.
    carried = [bet.spot.kind for bet in table.state.bets.values()]
    assert set(carried) <= (set() if table.state.rules.bank_passes else UNTIL_WITHDRAWN_KINDS)
    chips = table.state.total_chips()
    events += table.new_deck()
    checkpoint = table.state.checkpoint
    assert checkpoint is not None
    kept = checkpoint_of(checkpoint, events[-1].seq)
    assert kept is not None and state_from_checkpoint(kept) == checkpoint
    assert len(table.state.bets) == len(carried)
    events += deal_with_bets(table, deck[: data.draw(st.integers(1, 20))], data)
    events += table.void_deal()
    assert table.state.bets == {}
    assert table.state.total_chips() == chips
    assert [event.seq for event in events] == list(range(1, len(events) + 1))
    assert FaroTable.replay(events).state == table.state


@settings(max_examples=20, deadline=None)
@given(deck=st.permutations(MONTE_BANK_40.cards), data=st.data())
def test_monte_bank_deals_its_40_cards_once_each(deck: list[Card], data: st.DataObject) -> None:
    table, events = play("monte-bank", deck, data)
    assert sorted(cards_taken(events)) == sorted(MONTE_BANK_40.cards)
    assert FaroTable.replay(events).state == table.state
