from __future__ import annotations

import numpy as np
from vision_fixtures import frame_of

from table.cards import Card
from vision.geometry import CANON_HEIGHT, CANON_WIDTH, FrameProblem, detect, flatten, order_quad


def test_a_clean_frame_holds_one_card_shaped_outline() -> None:
    detection = detect(frame_of(Card.parse("3D")))
    assert detection.problem is None
    assert len(detection.cards) == 1
    outline = detection.cards[0]
    assert 1.3 < outline.aspect < 1.5
    assert outline.solidity > 0.95


def test_flattening_gives_an_upright_canonical_card_with_ink_in_the_index_corner() -> None:
    frame = frame_of(Card.parse("3D"))
    flat = flatten(frame, detect(frame).cards[0].quad)
    assert flat.shape == (CANON_HEIGHT, CANON_WIDTH, 3)
    corner = flat[:60, :45].min(axis=2)
    middle_edge = flat[120:160, 4:20].min(axis=2)
    assert corner.min() < 100 < middle_edge.min()


def test_corners_are_ordered_clockwise_with_a_short_first_edge() -> None:
    tall = np.array([[10, 10], [110, 10], [110, 150], [10, 150]], np.float32)
    shuffled = tall[[2, 0, 3, 1]]
    quad = order_quad(shuffled)
    assert np.allclose(quad, tall)


def test_a_black_frame_is_reported_dark() -> None:
    assert detect(np.zeros((480, 640, 3), np.uint8)).problem is FrameProblem.DARK
