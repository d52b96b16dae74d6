"""Random written records of Chemin de Fer and Banque, dealt by the dealtable at hand: their
events as JSON and, after each command, how many events the journal held and the state they
fold to. Run from a checkout of an earlier dealtable, it makes the journals that
tests/test_events.py folds, prefix by prefix, with today's engine:

    PYTHONPATH=EARLIER_CHECKOUT python tests/records/earlier_say_no_journals.py SEED COUNT \\
        | gzip -9

``say_no_journals_written_at_6f4d27c.json.gz`` is ``1 10`` at commit 6f4d27c, the last
before a player hand the tableau makes stand waited for its "non": there a forced stand was
told with the banker's second card, as its consequence (a void or a correction of that card
took it back), and ``stand`` on a 5 was the player's choice.
``say_no_journals_written_at_9ede1fb.json.gz`` is ``1 10`` at commit 9ede1fb, the last before
db658a1 told forced stands at all: there a hand the tableau made stand left no event, and
play went on to the next hand. The records mix the options that change who stands (a banker
bound to the tableau, the strict tables' stand on 5), burns, voids and corrections of the
last card and of a card come out twice, voided coups and dry shoes.
"""

from __future__ import annotations

import json
import random
import sys
from collections.abc import Callable
from typing import Any

from table.baccarat import BaccaratTable, Draw, Phase
from table.cards import STANDARD_52
from table.errors import TableError
from table.events import Event, event_to_json

PUNTERS = ["ana", "ben", "cy", "dee"]


def summary(state: Any) -> dict[str, Any]:
    """What a fold of the journal must give again: the coup in play and its hands, where
    the next card goes, the choices, the bets and the chips."""
    following = state.next_card()
    return {
        "phase": state.phase.value,
        "shoe": state.shoe,
        "coup": state.coup,
        "cards_out": state.cards_out,
        "hands": [[card.code for card in hand] for hand in state.hands],
        "next": [following.hand, following.draw.value],
        "actor": state.actor,
        "choices": dict(state.choices),
        "deviations": state.deviations,
        "bets": sorted([bet.punter, bet.spot, bet.stake] for bet in state.bets.values()),
        "bankrolls": dict(state.bankrolls),
        "bank": state.bank,
        "banker": state.banker,
        "alarm": None if state.alarm is None else state.alarm.kind.value,
        "seq": state.last_seq,
    }


def record(rng: random.Random) -> dict[str, Any]:
    game = rng.choice(["chemin-de-fer", "banque"])
    options = {"decks": "1", "cut_card": "10", "burn": rng.choice(["none", "one"])}
    if rng.random() < 0.5:
        options["banker_discretion"] = "false"
    if rng.random() < 0.4:
        options["strict_five"] = "true"
    table = BaccaratTable("old", game, options=options)
    events: list[Event] = list(table.opening)
    ends: list[tuple[int, dict[str, Any]]] = []

    def do(command: Callable[..., list[Event]], *args: object) -> None:
        try:
            events.extend(command(*args, at=float(len(events))))
        except TableError:
            return
        ends.append((len(events), summary(table.state)))

    for name in PUNTERS:
        do(table.seat, name, 400)
    do(table.new_shoe)
    shoe = list(STANDARD_52.cards)
    rng.shuffle(shoe)
    sides = ["right", "left"] if game == "banque" else ["player"]
    for _ in range(rng.randint(40, 90)):
        state = table.state
        if state.phase is Phase.NO_SHOE:
            do(table.new_shoe)
            shoe = list(STANDARD_52.cards)
            rng.shuffle(shoe)
        elif state.alarm is not None:
            roll = rng.random()
            if roll < 0.2 and shoe:
                do(table.correct, shoe.pop())
            elif roll < 0.3 and state.coup_in_play:
                do(table.void_coup)
            else:
                do(table.void_card)
        elif state.phase is Phase.BETTING:
            if not state.bank:
                do(table.announce_bank, rng.randint(40, 120))
            for side in rng.sample(sides, len(sides)):
                do(table.bet, rng.choice(PUNTERS), side, rng.randint(1, 20))
            do(table.lock)
        else:
            roll = rng.random()
            following = state.next_card()
            if roll < 0.05:
                do(table.void_card)
            elif roll < 0.08 and shoe:
                do(table.correct, shoe.pop())
            elif roll < 0.09:
                do(table.void_coup)
            elif roll < 0.10:
                do(table.shoe_empty)
            elif roll < 0.12 and len(shoe) < 52:
                do(table.deal, rng.choice([c for c in STANDARD_52.cards if c not in shoe]))
            elif following.draw is Draw.MAY and rng.random() < 0.5:
                do(table.stand)
            elif shoe:
                do(table.deal, shoe.pop())
            else:
                do(table.shoe_empty)
    return {
        "events": [event_to_json(event) for event in events],
        "ends": [[count, state] for count, state in ends],
    }


def main(seed: int, count: int) -> None:
    rng = random.Random(seed)
    json.dump([record(rng) for _ in range(count)], sys.stdout, separators=(",", ":"))


if __name__ == "__main__":
    main(int(sys.argv[1]), int(sys.argv[2]))
