"""Shared helpers for the card reader tests: taught profiles and rendered frames.

Teaching renders 52 pictures, so profiles are made once per test run and shared.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import cv2

from table.cards import STANDARD_52, Card
from vision.frames import Image
from vision.profile import DeckProfile, teach
from vision.synthetic import DESIGNS, render_card

TEST_DESIGN = "classic"


@lru_cache(maxsize=8)
def taught_profile(design_name: str = TEST_DESIGN) -> DeckProfile:
    design = DESIGNS[design_name]
    return teach({card: render_card(card, design) for card in STANDARD_52}, design_name)


def write_teaching_folder(folder: Path, design_name: str = TEST_DESIGN) -> Path:
    """One clean picture per card, named by its code, as a dealer would photograph them."""
    folder.mkdir(parents=True, exist_ok=True)
    design = DESIGNS[design_name]
    for card in STANDARD_52:
        cv2.imwrite(str(folder / f"{card.code}.png"), render_card(card, design))
    return folder


def frame_of(card: Card, seed: int | None = None, design_name: str = TEST_DESIGN) -> Image:
    return render_card(card, DESIGNS[design_name], seed)
