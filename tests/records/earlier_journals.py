"""Random written records of every game, dealt by the dealtable at hand: their events as
JSON and the state those fold to. Run from a checkout of an earlier dealtable, it makes the
journals that tests/test_events.py folds with today's engines, which must give the same state:

    PYTHONPATH=EARLIER_CHECKOUT python tests/records/earlier_journals.py SEED COUNT | gzip -9

``journals_written_at_6290dc5.json.gz`` is ``7 60`` at commit 6290dc5. The records mix what
the engines must go on folding alike: rules changed between deals (a home banker through
casino rules and back), standing bets, coppers, progressions, moves, voids and corrections at
Faro; banks, banco, passes, ties and third-card choices at baccarat.
"""

from __future__ import annotations

import json
import random
import sys
from typing import Any

from table.cards import STANDARD_52
from table.events import event_to_json
from table.games import replay_lines

FARO_RULES = ["classic", "home", "home-full-loss", "stuss", "saratoga", "casino-003", "monte-bank"]
FARO_SPOTS = [
    *(["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]),
    *("high", "odd", "even", "4+5", "J>K", "6+7+8"),
]
PUNTERS = ["ann", "bob", "cy"]
BACCARAT_GAMES = ["punto-banco", "chemin-de-fer", "banque", "macao"]


def faro_record(rng: random.Random, rules: str) -> list[str]:
    home = rules in ("home", "home-full-loss")
    lines = [f"rules {rules}", "punter ann 300", "punter bob 300", "punter cy 300"]
    lines += ["banker ann"] if home else ["bank 2000"]
    for _ in range(rng.randint(1, 3)):
        if rng.random() < 0.3:
            lines.append(f"rules {rng.choice(['classic', 'home', 'stuss', 'saratoga', rules])}")
        lines.append("shuffle")
        deck = list(STANDARD_52.cards)
        rng.shuffle(deck)
        for card in deck:
            for _ in range(rng.randint(0, 2)):
                extra = rng.choice(["", " copper", " paroli 2", " martingale 8"])
                spot = rng.choice(FARO_SPOTS)
                lines.append(f"bet {rng.choice(PUNTERS)} {spot} {rng.randint(1, 10)}{extra}")
            if rng.random() < 0.05:
                lines.append(f"withdraw {rng.choice(PUNTERS)} {rng.choice(['9', 'high', 'odd'])}")
            if rng.random() < 0.03:
                spots = f"{rng.choice(['9', 'K', '5'])} {rng.choice(['3', '7'])}"
                lines.append(f"move {rng.choice(PUNTERS)} {spots}")
            lines.append(f"card {card.code}")
            if rng.random() < 0.02:
                lines += ["void", f"card {card.code}"]
    return lines


def baccarat_record(rng: random.Random, game: str) -> list[str]:
    punters = ["ana", "ben", "cy", "dee"]
    lines = [f"game {game}", *(f"punter {name} 500" for name in punters)]
    if game == "punto-banco":
        lines.insert(1, "bank 5000")
    lines.append("shuffle")
    shoe = list(STANDARD_52.cards) * 6
    rng.shuffle(shoe)
    for card in shoe[: rng.randint(60, 200)]:
        if rng.random() < 0.2:
            if game == "punto-banco":
                side = rng.choice(["player", "banker", "tie"])
                lines.append(f"bet {rng.choice(punters[:3])} {side} {rng.randint(1, 20)}")
            else:
                lines.append(f"bank {rng.randint(20, 100)}")
                side = rng.choice(["player", "right", "left"])
                lines.append(f"bet {rng.choice(punters)} {side} {rng.randint(1, 20)}")
                if rng.random() < 0.1:
                    lines.append(f"banco {rng.choice(punters)}")
                if rng.random() < 0.05:
                    lines.append("pass")
            lines.append("lock")
        if rng.random() < 0.1:
            lines.append("stand")
        lines.append(f"card {card.code}")
    return lines


def summary(state: Any) -> dict[str, Any]:
    return {
        "bankrolls": dict(state.bankrolls),
        "bank": state.bank,
        "banker": state.banker,
        "bets": len(state.bets),
        "seq": state.last_seq,
    }


def main(seed: int, count: int) -> None:
    rng = random.Random(seed)
    records = []
    for _ in range(count):
        if rng.random() < 0.6:
            lines = faro_record(rng, rng.choice(FARO_RULES))
        else:
            lines = baccarat_record(rng, rng.choice(BACCARAT_GAMES))
        replay = replay_lines(lines)
        if replay.game is None:
            continue
        events = [event_to_json(event) for event in replay.events]
        records.append({"events": events, "summary": summary(replay.game.state)})
    json.dump(records, sys.stdout)


if __name__ == "__main__":
    main(int(sys.argv[1]), int(sys.argv[2]))
