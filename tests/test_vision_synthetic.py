from __future__ import annotations

import numpy as np

from table.cards import STANDARD_52, Card
from vision.synthetic import (
    DESIGNS,
    DEVELOPMENT_DESIGNS,
    HOLDOUT_DESIGN,
    Scene,
    card_face,
    deal_video,
    random_spec,
    render_card,
    render_frame,
)


def test_the_same_seed_regenerates_the_same_frame_and_another_seed_does_not() -> None:
    card = Card.parse("7C")
    design = DESIGNS["saloon"]
    first = render_frame(random_spec(card, design, 1234))
    again = render_frame(random_spec(card, design, 1234))
    other = render_frame(random_spec(card, design, 1235))
    assert np.array_equal(first, again)
    assert not np.array_equal(first, other)


def test_frames_are_640_by_480_bgr() -> None:
    frame = render_card(Card.parse("AS"), DESIGNS["classic"])
    assert frame.shape == (480, 640, 3)
    assert frame.dtype == np.uint8


def test_every_card_of_every_design_has_its_own_face() -> None:
    for name, design in DESIGNS.items():
        faces = {card_face(card, design).tobytes() for card in STANDARD_52}
        assert len(faces) == 52, name


def test_the_held_out_design_is_not_among_the_development_designs() -> None:
    assert HOLDOUT_DESIGN in DESIGNS
    assert HOLDOUT_DESIGN not in DEVELOPMENT_DESIGNS
    assert len(DEVELOPMENT_DESIGNS) >= 4


def test_a_face_is_drawn_with_ink_of_its_suits_colour() -> None:
    design = DESIGNS["classic"]
    heart = card_face(Card.parse("9H"), design).astype(int)
    spade = card_face(Card.parse("9S"), design).astype(int)

    def reddest(face: np.ndarray) -> int:
        return int((face[:, :, 2] - face[:, :, 1]).max())

    assert reddest(heart) > 100
    assert reddest(spade) < 40


def test_every_scene_renders_and_differs_from_a_card_in_the_box() -> None:
    design = DESIGNS["classic"]
    card, next_card = Card.parse("5H"), Card.parse("6S")
    frames = {
        scene: render_frame(random_spec(card, design, 9, scene=scene, next_card=next_card))
        for scene in Scene
    }
    for scene, frame in frames.items():
        assert frame.shape == (480, 640, 3)
        if scene is not Scene.CARD:
            assert not np.array_equal(frame, frames[Scene.CARD]), scene


def test_a_dealt_deck_video_shows_each_card_in_order_for_half_a_second() -> None:
    order = list(STANDARD_52.cards[:3])
    frames = list(deal_video(order, DESIGNS["classic"], seed=5, hand_every=2))
    assert len(frames) == 3 * 15 + 7
    shown = [f.top_card for f in frames]
    assert [shown[0], shown[15], shown[30]] == order
    assert shown[-1] is None
    assert any(f.scene is Scene.HAND for f in frames)
    assert any(f.scene is Scene.SLIDING for f in frames)
    assert frames[1].timestamp - frames[0].timestamp == 1 / 30
