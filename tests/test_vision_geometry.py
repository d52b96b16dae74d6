from __future__ import annotations

import cv2
import numpy as np
import pytest
from vision_fixtures import TEST_DESIGN, frame_of

from table.cards import Card
from vision.geometry import CANON_HEIGHT, CANON_WIDTH, FrameProblem, detect, flatten, order_quad
from vision.synthetic import (
    DESIGNS,
    FACE_HEIGHT,
    FACE_WIDTH,
    FrameSpec,
    Pose,
    Spoilers,
    render_frame,
)


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


@pytest.mark.parametrize("shape", [(0, 0, 3), (1, 1, 3), (1, 640, 3), (480, 1, 3), (12, 600, 3)])
def test_a_frame_too_small_to_hold_a_card_is_reported_so(shape: tuple[int, int, int]) -> None:
    frame = np.random.default_rng(2).integers(0, 256, shape, dtype=np.uint8)
    detection = detect(frame)
    assert detection.problem is FrameProblem.TOO_SMALL
    assert detection.cards == ()


def _visible_corners(spec: FrameSpec) -> np.ndarray:
    """Where the card's visible outline truly is: the lip hides a strip of each long side."""
    lip = spec.spoilers.lip
    face = [[lip, 0], [1 - lip, 0], [1 - lip, 1], [lip, 1]]
    points = np.array([[[u * FACE_WIDTH, v * FACE_HEIGHT] for u, v in face]], np.float32)
    return np.asarray(cv2.perspectiveTransform(points, spec.pose.homography())[0], np.float32)


def _outline_error(spec: FrameSpec) -> float:
    """How far, in pixels, the one card found lies off the card's true visible corners (the
    outline may start at either short side)."""
    detection = detect(render_frame(spec))
    assert len(detection.cards) == 1
    found, truth = detection.cards[0].quad, _visible_corners(spec)
    return min(float(np.abs(np.roll(found, k, axis=0) - truth).max()) for k in range(4))


@pytest.mark.parametrize("seed", range(6))
def test_the_outline_follows_the_card_edges_beside_a_wide_lip_and_glare(seed: int) -> None:
    rng = np.random.default_rng(seed)
    spoilers = Spoilers(
        lip=0.03,
        glare=0.45,
        glare_at=(float(rng.uniform(0.2, 0.8)), float(rng.uniform(0.2, 0.8))),
        glare_radius=0.2,
        blur=0.8,
        noise=4.0,
    )
    spec = FrameSpec(Card.parse("7C"), DESIGNS[TEST_DESIGN], Pose.sample(rng), spoilers, seed=seed)
    assert _outline_error(spec) < 2.0


@pytest.mark.parametrize("seed", range(8))
def test_glare_spilling_onto_the_box_and_a_finger_leave_the_outline_on_the_card(
    seed: int,
) -> None:
    rng = np.random.default_rng(100 + seed)
    spoilers = Spoilers(
        lip=0.02,
        finger=True,
        finger_corner=seed % 4,
        glare=0.45,
        glare_at=(0.95 if seed % 2 else 0.05, float(rng.uniform(0.3, 0.7))),
        glare_radius=0.2,
        blur=0.8,
        noise=4.0,
        jpeg_quality=70,
    )
    spec = FrameSpec(Card.parse("9S"), DESIGNS[TEST_DESIGN], Pose.sample(rng), spoilers, seed=seed)
    assert _outline_error(spec) < 2.5


@pytest.mark.parametrize("seed", range(4))
def test_a_card_under_a_strong_warm_dim_lamp_stands_out_from_the_felt(seed: int) -> None:
    # A warm cast leaves cream stock barely less coloured than the felt; balanced on the
    # brightest things in view, the card is colourless again.
    spoilers = Spoilers(cast=(0.65, 0.8, 1.2), light=0.6, noise=2.0, gradient=0.3)
    rng = np.random.default_rng(seed)
    spec = FrameSpec(Card.parse("10D"), DESIGNS[TEST_DESIGN], Pose.sample(rng), spoilers, seed=seed)
    detection = detect(render_frame(spec))
    assert len(detection.cards) == 1
    assert not detection.obstructed
