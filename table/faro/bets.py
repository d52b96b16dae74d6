"""A bet as it lies on the Faro layout, and the standing instructions of Saratoga Faro."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from table.errors import BetRefusedError
from table.faro.spots import Spot
from table.language import whole_number


@dataclass(frozen=True, slots=True)
class Instruction:
    """A progression the bank carries out for the punter (Saratoga Faro, 000).

    ``paroli N``: after a win the stake and its winnings ride, up to N wins, then the bet
    comes down. ``martingale CAP``: after a loss the stake doubles on the same spot, as
    long as the doubled stake stays within CAP; after a win it starts again from the base.
    """

    kind: str
    limit: int

    @property
    def text(self) -> str:
        return f"{self.kind} {self.limit}"

    @classmethod
    def parse(cls, text: str) -> Instruction | None:
        words = text.split()
        if not words:
            return None
        if len(words) != 2 or words[0] not in ("paroli", "martingale"):
            raise BetRefusedError(
                f"not a standing instruction: {text!r} (expected 'paroli N' or 'martingale CAP')"
            )
        limit = whole_number(words[1])
        if limit is None:
            raise BetRefusedError(f"{words[0]} needs a whole number, not {words[1]!r}")
        if limit < 1:
            raise BetRefusedError(f"{words[0]} {limit}: the number must be at least 1")
        return cls(words[0], limit)

    def check_first_stake(self, what: str, base: int, stake: int, table_maximum: int) -> None:
        """Refuse a progression that would stop at its first result, win or lose.

        A martingale whose base is already over its cap can neither double after a loss
        nor return to its base after a win; a paroli of 1 comes down at its first win like
        a plain bet, and one whose doubled stake is over the table maximum cannot ride.
        """
        if self.kind == "martingale":
            if base > self.limit:
                raise BetRefusedError(
                    f"{what}: the stake {base} is already over the martingale cap "
                    f"{self.limit}; the martingale would stop at its first result"
                )
            return
        if self.limit < 2:
            raise BetRefusedError(
                f"{what}: paroli {self.limit} lets no win ride, the bet would come down at "
                "its first win like a plain bet; ask for paroli 2 or more"
            )
        if table_maximum and stake * 2 > table_maximum:
            raise BetRefusedError(
                f"{what}: the paroli could not ride: after its first win the stake "
                f"{stake * 2} would be over the table maximum {table_maximum}"
            )

    def check_added(self, what: str, stack: str, amount: int, stake: int) -> None:
        """Refuse chips added to a martingale's ``stack`` that would put more on it than its
        cap: it doubles only as long as the doubled stake stays within the cap."""
        if self.kind == "martingale" and stake > self.limit:
            raise BetRefusedError(
                f"{what}: {amount} more would put {stake} on {stack}, over its cap {self.limit}"
            )


class Bet(NamedTuple):
    """Chips (or betting marks) of one punter on one spot.

    An immutable named tuple: one is made for every bet and every change to a stake.

    ``order`` is set for a call of the last turn: loser, winner and hoc, as ranks or colours.
    ``base`` and ``rides`` follow a progression: the stake it started from and the wins it rode.
    """

    bet_id: int
    punter: str
    spot: Spot
    stake: int
    coppered: bool = False
    mark: bool = False
    instruction: Instruction | None = None
    order: tuple[str, str, str] | None = None
    pays: int = 1
    base: int = 0
    rides: int = 0

    @property
    def label(self) -> str:
        """How the bet reads at the table: ``dan 4 on 9 coppered``."""
        words = [self.punter, str(self.stake), "on"]
        words.append(" ".join(self.order) if self.order else self.spot.text)
        if self.coppered:
            words.append("coppered")
        if self.mark:
            words.append("(marks)")
        if self.instruction:
            words.append(f"[{self.instruction.text}]")
        return " ".join(words)

    @property
    def max_payout(self) -> int:
        return self.stake * self.pays
