"""A synthetic dealing box: what the camera above an open Faro box sees.

Card faces are drawn here with OpenCV (rank text in a Hershey font, suits as filled
shapes), in several :class:`CardDesign`\\ s. A face is laid into the box window through a
homography (rotation, scale, perspective), then the frame is spoiled the way a real table
spoils it: the box's lip over the card's edges, a dealer's finger, a shadow, glare, a
colour cast, uneven and dim light, blur, sensor noise and JPEG artefacts.

Every random choice comes from ``numpy.random.default_rng(seed)``, so a frame that fails
in a test or a benchmark is regenerated exactly from its card, design and seed.

One design, :data:`HOLDOUT_DESIGN`, is kept aside: the recognizer is developed on the
others and measured on that one, taught from one clean picture per card as a user would.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from enum import Enum
from functools import lru_cache

import cv2
import numpy as np
import numpy.typing as npt

from table.cards import STANDARD_52, Card, Rank, Suit
from vision.frames import Image

FACE_WIDTH = 250
FACE_HEIGHT = 350
FRAME_WIDTH = 640
FRAME_HEIGHT = 480

BGR = tuple[int, int, int]
FloatArray = npt.NDArray[np.float32]


@dataclass(frozen=True)
class CardDesign:
    """How one make of cards looks: font, ink, paper, where the corner index sits."""

    name: str
    font: int
    stroke: int
    paper: BGR
    red_ink: BGR
    black_ink: BGR
    index_x: float = 0.11  # centre of the index column, fraction of the face width
    index_top: float = 0.045  # top of the rank, fraction of the face height
    rank_height: float = 0.11  # fraction of the face height
    rank_max_width: float = 0.15  # "10" is squeezed to this, fraction of the face width
    pip_size: float = 0.085  # height of the index pip, fraction of the face height
    pip_gap: float = 0.015
    pip_fatness: float = 1.0  # wider or narrower suit shapes
    border: BGR | None = None
    court_frame: BGR = (170, 120, 40)


DESIGNS: dict[str, CardDesign] = {
    design.name: design
    for design in (
        CardDesign(
            "classic", cv2.FONT_HERSHEY_SIMPLEX, 7, (244, 247, 249), (38, 30, 196), (32, 30, 30)
        ),
        CardDesign(
            "bridge",
            cv2.FONT_HERSHEY_DUPLEX,
            6,
            (240, 244, 246),
            (45, 35, 205),
            (20, 20, 20),
            index_x=0.1,
            rank_height=0.1,
            rank_max_width=0.13,
            pip_size=0.075,
            pip_fatness=0.9,
        ),
        CardDesign(
            "saloon",
            cv2.FONT_HERSHEY_TRIPLEX,
            6,
            (214, 234, 244),
            (50, 40, 168),
            (40, 35, 30),
            index_x=0.12,
            index_top=0.05,
            rank_height=0.12,
            pip_size=0.09,
            pip_fatness=1.1,
            border=(60, 60, 150),
        ),
        CardDesign(
            "telegraph",
            cv2.FONT_HERSHEY_PLAIN,
            8,
            (236, 240, 240),
            (30, 20, 180),
            (10, 10, 10),
            index_x=0.115,
            rank_height=0.105,
            pip_size=0.08,
        ),
        CardDesign(
            "gazette",
            cv2.FONT_HERSHEY_COMPLEX | cv2.FONT_ITALIC,
            6,
            (232, 238, 242),
            (40, 50, 190),
            (50, 40, 30),
            index_x=0.12,
            rank_height=0.115,
            pip_size=0.08,
            pip_fatness=0.95,
            border=(120, 120, 120),
        ),
        # Kept aside: only the accuracy benchmark looks at this one.
        CardDesign(
            "riverboat",
            cv2.FONT_HERSHEY_COMPLEX,
            7,
            (200, 226, 240),
            (60, 24, 176),
            (70, 34, 24),
            index_x=0.125,
            index_top=0.05,
            rank_height=0.115,
            rank_max_width=0.16,
            pip_size=0.088,
            pip_gap=0.02,
            pip_fatness=1.05,
            border=(40, 150, 190),
            court_frame=(30, 90, 150),
        ),
    )
}
HOLDOUT_DESIGN = "riverboat"
DEVELOPMENT_DESIGNS = tuple(name for name in DESIGNS if name != HOLDOUT_DESIGN)


def find_design(name: str) -> CardDesign:
    try:
        return DESIGNS[name]
    except KeyError:
        known = ", ".join(sorted(DESIGNS))
        raise KeyError(f"unknown card design {name!r} (known: {known})") from None


# --- drawing the faces ----------------------------------------------------------------


def _ink(suit: Suit, design: CardDesign) -> BGR:
    return design.red_ink if suit in (Suit.HEARTS, Suit.DIAMONDS) else design.black_ink


def _circle(mask: Image, x: float, y: float, r: float) -> None:
    cv2.circle(mask, (round(x * 8), round(y * 8)), round(r * 8), 255, -1, cv2.LINE_AA, 3)


def _poly(mask: Image, points: Sequence[tuple[float, float]]) -> None:
    pts = np.array([[round(px * 8), round(py * 8)] for px, py in points], np.int32)
    cv2.fillPoly(mask, [pts], 255, cv2.LINE_AA, 3)


def draw_suit_mask(suit: Suit, height: int, fatness: float = 1.0) -> Image:
    """The suit as an anti-aliased coverage mask (0…255), ``height`` pixels tall."""
    h = float(height)
    w = h * 0.95 * fatness
    size = (math.ceil(h) + 2, math.ceil(w) + 2)
    mask = np.zeros(size, np.uint8)
    cx, top = size[1] / 2, 1.0

    def at(u: float, v: float) -> tuple[float, float]:
        return cx + u * w, top + v * h

    if suit is Suit.DIAMONDS:
        _poly(mask, [at(0, 0), at(0.36, 0.5), at(0, 1), at(-0.36, 0.5)])
    elif suit is Suit.HEARTS:
        r = 0.26 * w
        _circle(mask, *at(-0.23, 0.28), r)
        _circle(mask, *at(0.23, 0.28), r)
        _poly(mask, [at(-0.485, 0.36), at(0.485, 0.36), at(0, 1.0)])
    elif suit is Suit.SPADES:
        r = 0.25 * w
        _poly(mask, [at(0, 0), at(-0.48, 0.55), at(0.48, 0.55)])
        _circle(mask, *at(-0.23, 0.56), r)
        _circle(mask, *at(0.23, 0.56), r)
        _poly(mask, [at(0, 0.55), at(-0.17, 1.0), at(0.17, 1.0)])
    else:
        r = 0.21 * w
        _circle(mask, *at(0, 0.24), r)
        _circle(mask, *at(-0.25, 0.56), r)
        _circle(mask, *at(0.25, 0.56), r)
        _poly(mask, [at(0, 0.4), at(-0.15, 1.0), at(0.15, 1.0)])
    return mask


def draw_text_mask(text: str, font: int, stroke: int, height: int, max_width: int) -> Image:
    """Text as a coverage mask exactly ``height`` tall, squeezed if wider than ``max_width``."""
    scale = 3.0
    (tw, th), baseline = cv2.getTextSize(text, font, scale, stroke)
    canvas = np.zeros((th + baseline + 4 * stroke, tw + 4 * stroke), np.uint8)
    cv2.putText(canvas, text, (2 * stroke, th + 2 * stroke), font, scale, 255, stroke, cv2.LINE_AA)
    ys, xs = np.nonzero(canvas > 40)
    glyph = canvas[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1]
    width = max(1, round(glyph.shape[1] * height / glyph.shape[0]))
    width = min(width, max_width)
    return cv2.resize(glyph, (width, height), interpolation=cv2.INTER_AREA)  # type: ignore[return-value]


def _turned(mask: Image) -> Image:
    return np.ascontiguousarray(mask[::-1, ::-1])


def _paint(face: Image, mask: Image, x: int, y: int, colour: BGR) -> None:
    """Lay ink of ``colour`` through ``mask`` with its top-left at (x, y), clipped."""
    h, w = mask.shape
    x0, y0 = max(x, 0), max(y, 0)
    x1, y1 = min(x + w, face.shape[1]), min(y + h, face.shape[0])
    if x0 >= x1 or y0 >= y1:
        return
    alpha = mask[y0 - y : y1 - y, x0 - x : x1 - x, None].astype(np.float32) / 255.0
    region = face[y0:y1, x0:x1].astype(np.float32)
    ink = np.array(colour, np.float32)
    face[y0:y1, x0:x1] = (region * (1 - alpha) + ink * alpha).astype(np.uint8)


def _paint_centred(face: Image, mask: Image, cx: float, cy: float, colour: BGR) -> None:
    _paint(face, mask, round(cx - mask.shape[1] / 2), round(cy - mask.shape[0] / 2), colour)


# Standard pip layouts as (column, row) in a 3 × 7 grid of the face's middle.
_PIP_LAYOUTS: dict[int, tuple[tuple[float, float], ...]] = {
    2: ((1, 0), (1, 6)),
    3: ((1, 0), (1, 3), (1, 6)),
    4: ((0, 0), (2, 0), (0, 6), (2, 6)),
    5: ((0, 0), (2, 0), (1, 3), (0, 6), (2, 6)),
    6: ((0, 0), (2, 0), (0, 3), (2, 3), (0, 6), (2, 6)),
    7: ((0, 0), (2, 0), (1, 1.5), (0, 3), (2, 3), (0, 6), (2, 6)),
    8: ((0, 0), (2, 0), (1, 1.5), (0, 3), (2, 3), (1, 4.5), (0, 6), (2, 6)),
    9: ((0, 0), (2, 0), (0, 2), (2, 2), (1, 3), (0, 4), (2, 4), (0, 6), (2, 6)),
    10: ((0, 0), (2, 0), (1, 1), (0, 2), (2, 2), (0, 4), (2, 4), (1, 5), (0, 6), (2, 6)),
}


def _index_mask(label: str, suit: Suit, design: CardDesign) -> tuple[Image, Image]:
    rank_mask = draw_text_mask(
        label,
        design.font,
        design.stroke,
        round(design.rank_height * FACE_HEIGHT),
        round(design.rank_max_width * FACE_WIDTH),
    )
    pip_mask = draw_suit_mask(suit, round(design.pip_size * FACE_HEIGHT), design.pip_fatness)
    return rank_mask, pip_mask


def _rounded_card_mask(width: int, height: int, radius: int) -> Image:
    mask = np.zeros((height, width), np.uint8)
    cv2.rectangle(mask, (radius, 0), (width - 1 - radius, height - 1), 255, -1)
    cv2.rectangle(mask, (0, radius), (width - 1, height - 1 - radius), 255, -1)
    for cx, cy in ((radius, radius), (width - 1 - radius, radius)):
        cv2.circle(mask, (cx, cy), radius, 255, -1, cv2.LINE_AA)
        cv2.circle(mask, (cx, height - 1 - radius), radius, 255, -1, cv2.LINE_AA)
    return mask


@lru_cache(maxsize=512)
def _face_cached(card_code: str, design_name: str) -> Image:
    card = Card.parse(card_code) if card_code != "JOKER" else None
    design = find_design(design_name)
    face = np.empty((FACE_HEIGHT, FACE_WIDTH, 3), np.uint8)
    face[:] = design.paper
    if design.border is not None:
        cv2.rectangle(face, (9, 9), (FACE_WIDTH - 10, FACE_HEIGHT - 10), design.border, 2)
    index = np.zeros_like(face)
    index[:] = design.paper
    if card is None:
        _draw_joker(face, index, design)
    else:
        _draw_card(face, index, card, design)
    return face


def _draw_card(face: Image, index: Image, card: Card, design: CardDesign) -> None:
    colour = _ink(card.suit, design)
    rank_mask, pip_mask = _index_mask(card.rank.label, card.suit, design)
    cx = design.index_x * FACE_WIDTH
    top = design.index_top * FACE_HEIGHT
    _paint_centred(face, rank_mask, cx, top + rank_mask.shape[0] / 2, colour)
    pip_top = top + rank_mask.shape[0] + design.pip_gap * FACE_HEIGHT
    _paint_centred(face, pip_mask, cx, pip_top + pip_mask.shape[0] / 2, colour)
    # The same index, upside down, in the opposite corner.
    flipped_rank = _turned(rank_mask)
    flipped_pip = _turned(pip_mask)
    _paint_centred(
        face, flipped_rank, FACE_WIDTH - cx, FACE_HEIGHT - top - rank_mask.shape[0] / 2, colour
    )
    _paint_centred(
        face, flipped_pip, FACE_WIDTH - cx, FACE_HEIGHT - pip_top - pip_mask.shape[0] / 2, colour
    )
    if card.rank in (Rank.JACK, Rank.QUEEN, Rank.KING):
        x0, y0 = round(0.24 * FACE_WIDTH), round(0.17 * FACE_HEIGHT)
        cv2.rectangle(face, (x0, y0), (FACE_WIDTH - x0, FACE_HEIGHT - y0), design.court_frame, 3)
        big = draw_text_mask(card.rank.label, design.font, design.stroke, 90, 110)
        _paint_centred(face, big, FACE_WIDTH / 2, FACE_HEIGHT * 0.42, colour)
        pip = draw_suit_mask(card.suit, 50, design.pip_fatness)
        _paint_centred(face, pip, FACE_WIDTH / 2, FACE_HEIGHT * 0.66, colour)
        return
    if card.rank is Rank.ACE:
        pip = draw_suit_mask(card.suit, 110, design.pip_fatness)
        _paint_centred(face, pip, FACE_WIDTH / 2, FACE_HEIGHT / 2, colour)
        return
    pip = draw_suit_mask(card.suit, 40, design.pip_fatness)
    flipped = _turned(pip)
    for column, row in _PIP_LAYOUTS[int(card.rank)]:
        x = FACE_WIDTH * (0.33 + 0.17 * column)
        y = FACE_HEIGHT * (0.2 + 0.1 * row)
        _paint_centred(face, pip if row <= 3 else flipped, x, y, colour)


def _draw_joker(face: Image, index: Image, design: CardDesign) -> None:
    letter_height = round(0.045 * FACE_HEIGHT)
    cx = design.index_x * FACE_WIDTH
    for i, letter in enumerate("JOKER"):
        mask = draw_text_mask(letter, design.font, max(2, design.stroke // 2), letter_height, 30)
        y = design.index_top * FACE_HEIGHT + i * (letter_height + 4) + letter_height / 2
        _paint_centred(face, mask, cx, y, design.black_ink)
        flipped = _turned(mask)
        _paint_centred(face, flipped, FACE_WIDTH - cx, FACE_HEIGHT - y, design.black_ink)
    star = np.array(
        [
            [
                FACE_WIDTH / 2 + (60 if k % 2 == 0 else 25) * math.sin(k * math.pi / 5),
                FACE_HEIGHT / 2 - (60 if k % 2 == 0 else 25) * math.cos(k * math.pi / 5),
            ]
            for k in range(10)
        ],
        np.int32,
    )
    cv2.fillPoly(face, [star], design.red_ink, cv2.LINE_AA)


def card_face(card: Card | None, design: CardDesign) -> Image:
    """The flat face of ``card`` (``None``: the joker), FACE_WIDTH × FACE_HEIGHT, BGR."""
    return _face_cached("JOKER" if card is None else card.code, design.name).copy()


# --- the scene ----------------------------------------------------------------------


@dataclass(frozen=True)
class Pose:
    """Where the box lies in the picture: the face-to-frame homography's ingredients."""

    centre_x: float = FRAME_WIDTH / 2
    centre_y: float = FRAME_HEIGHT / 2
    card_height: float = 300.0  # pixels
    rotation_degrees: float = 0.0
    corner_jitter: tuple[tuple[float, float], ...] = ((0, 0), (0, 0), (0, 0), (0, 0))

    @classmethod
    def sample(cls, rng: np.random.Generator) -> Pose:
        jitter = tuple(
            (float(rng.uniform(-0.04, 0.04)), float(rng.uniform(-0.03, 0.03))) for _ in range(4)
        )
        return cls(
            centre_x=FRAME_WIDTH / 2 + float(rng.uniform(-50, 50)),
            centre_y=FRAME_HEIGHT / 2 + float(rng.uniform(-20, 20)),
            card_height=float(rng.uniform(250, 340)),
            rotation_degrees=float(rng.uniform(-15, 15)),
            corner_jitter=jitter,
        )

    def homography(self, shift: tuple[float, float] = (0.0, 0.0)) -> npt.NDArray[np.float64]:
        """Face pixel → frame pixel, with the card slid by ``shift`` (in face widths/heights)."""
        scale = self.card_height / FACE_HEIGHT
        angle = math.radians(self.rotation_degrees)
        cos, sin = math.cos(angle), math.sin(angle)
        corners = [(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0)]
        source = np.array([[u * FACE_WIDTH, v * FACE_HEIGHT] for u, v in corners], np.float32)
        target = []
        for (u, v), (ju, jv) in zip(corners, self.corner_jitter, strict=True):
            x = (u - 0.5 + shift[0] + ju) * FACE_WIDTH * scale
            y = (v - 0.5 + shift[1] + jv) * FACE_HEIGHT * scale
            target.append([self.centre_x + x * cos - y * sin, self.centre_y + x * sin + y * cos])
        return np.asarray(
            cv2.getPerspectiveTransform(source, np.array(target, np.float32)), np.float64
        )


@dataclass(frozen=True)
class Spoilers:
    """How badly this frame is taken. All zero: a clean picture."""

    lip: float = 0.0  # fraction of the face width the box's lip covers on each long side
    finger: bool = False
    finger_corner: int = 1  # 0 top-left, 1 top-right, 2 bottom-right, 3 bottom-left
    shadow: float = 0.0  # 0 none … 1 black
    shadow_angle: float = 0.0
    shadow_offset: float = 0.0
    glare: float = 0.0
    glare_at: tuple[float, float] = (0.5, 0.5)  # face fractions
    glare_radius: float = 0.2
    cast: tuple[float, float, float] = (1.0, 1.0, 1.0)
    light: float = 1.0  # overall gain
    gradient: float = 0.0  # how uneven the light is across the frame
    gradient_angle: float = 0.0
    blur: float = 0.0  # Gaussian sigma in pixels
    motion_blur: int = 0  # length of a horizontal smear in pixels
    noise: float = 0.0  # sensor noise sigma in grey levels
    jpeg_quality: int = 0  # 0: no JPEG round trip

    @classmethod
    def sample(cls, rng: np.random.Generator, severity: float = 1.0) -> Spoilers:
        """A random, realistic mess; ``severity`` scales every spoiler."""
        s = severity
        finger_corner = int(rng.integers(0, 4))
        glare_corner = (float(rng.uniform(0.15, 0.85)), float(rng.uniform(0.15, 0.85)))
        return cls(
            lip=float(rng.uniform(0.0, 0.03)),
            finger=bool(rng.random() < 0.35 * s),
            finger_corner=finger_corner,
            shadow=float(rng.uniform(0, 0.35) * s) if rng.random() < 0.4 else 0.0,
            shadow_angle=float(rng.uniform(0, 2 * math.pi)),
            shadow_offset=float(rng.uniform(-0.3, 0.3)),
            glare=float(rng.uniform(0, 0.5) * s) if rng.random() < 0.4 else 0.0,
            glare_at=glare_corner,
            glare_radius=float(rng.uniform(0.08, 0.22)),
            cast=(
                float(1 + rng.uniform(-0.2, 0.2) * s),
                float(1 + rng.uniform(-0.2, 0.2) * s),
                float(1 + rng.uniform(-0.2, 0.2) * s),
            ),
            light=float(1 - rng.uniform(0, 0.5) * s),
            gradient=float(rng.uniform(0, 0.4) * s),
            gradient_angle=float(rng.uniform(0, 2 * math.pi)),
            blur=float(rng.uniform(0, 1.2) * s),
            motion_blur=int(rng.integers(0, 4)) if rng.random() < 0.2 * s else 0,
            noise=float(rng.uniform(0, 6) * s),
            jpeg_quality=int(rng.integers(50, 95)) if rng.random() < 0.7 else 0,
        )


class Scene(Enum):
    """What the box holds in a frame."""

    CARD = "card"  # the top card lies in the box
    SLIDING = "sliding"  # the top card is half slid off; the next one shows beneath
    EMPTY = "empty"  # no card left
    HAND = "hand"  # the dealer's hand covers the box
    TWO_CARDS = "two-cards"  # a second card lies on the table beside the box


@dataclass(frozen=True)
class FrameSpec:
    """Everything that decides one frame; rendering it twice gives the same pixels."""

    card: Card | None
    design: CardDesign
    pose: Pose = field(default_factory=Pose)
    spoilers: Spoilers = field(default_factory=Spoilers)
    scene: Scene = Scene.CARD
    next_card: Card | None = None
    slide: float = 0.5  # SLIDING: how far the top card is out, in face widths
    joker: bool = False
    seed: int = 0  # texture and noise


def clean_spec(card: Card, design: CardDesign) -> FrameSpec:
    """A square-on, evenly lit picture of the card in the box: a teaching picture."""
    return FrameSpec(card, design)


def random_spec(
    card: Card | None,
    design: CardDesign,
    seed: int,
    *,
    scene: Scene = Scene.CARD,
    severity: float = 1.0,
    next_card: Card | None = None,
) -> FrameSpec:
    """A perturbed frame of ``card``, all of whose randomness comes from ``seed``."""
    rng = np.random.default_rng(seed)
    pose = Pose.sample(rng)
    spoilers = Spoilers.sample(rng, severity)
    slide = float(rng.uniform(0.3, 0.7))
    return FrameSpec(card, design, pose, spoilers, scene, next_card, slide, seed=seed)


_BOX_COLOURS: tuple[BGR, ...] = ((30, 45, 70), (25, 25, 28), (40, 70, 110), (20, 30, 45))
_FELT_COLOURS: tuple[BGR, ...] = ((40, 90, 30), (35, 70, 25), (60, 40, 110), (70, 50, 30))
_SKIN_COLOURS: tuple[BGR, ...] = ((120, 150, 200), (90, 120, 175), (60, 85, 130), (150, 175, 215))


def _warp_into(frame: Image, face: Image, homography: npt.NDArray[np.float64]) -> None:
    size = (frame.shape[1], frame.shape[0])
    warped = cv2.warpPerspective(face, homography, size, flags=cv2.INTER_LINEAR)
    card_mask = _rounded_card_mask(FACE_WIDTH, FACE_HEIGHT, 12)
    mask = cv2.warpPerspective(card_mask, homography, size, flags=cv2.INTER_LINEAR)
    alpha = mask[:, :, None].astype(np.float32) / 255.0
    frame[:] = (frame * (1 - alpha) + warped * alpha).astype(np.uint8)


def _face_polygon(
    homography: npt.NDArray[np.float64], corners: Sequence[tuple[float, float]]
) -> npt.NDArray[np.int32]:
    points = np.array([[[u * FACE_WIDTH, v * FACE_HEIGHT] for u, v in corners]], np.float32)
    mapped = cv2.perspectiveTransform(points, homography)[0]
    return np.asarray(np.round(mapped), np.int32)


def _draw_hand(frame: Image, homography: npt.NDArray[np.float64], rng: np.random.Generator) -> None:
    skin = _SKIN_COLOURS[int(rng.integers(len(_SKIN_COLOURS)))]
    palm = _face_polygon(homography, [(0.5 + rng.uniform(-0.15, 0.15), 0.55)])[0]
    axes = (int(rng.uniform(140, 190)), int(rng.uniform(110, 150)))
    cv2.ellipse(
        frame,
        (int(palm[0]), int(palm[1])),
        axes,
        float(rng.uniform(0, 180)),
        0,
        360,
        skin,
        -1,
        cv2.LINE_AA,
    )
    for k in range(4):
        start = palm + np.array([int(rng.uniform(-60, 60)), 0])
        end = start + np.array(
            [int(rng.uniform(-60, 60)) + k * 25 - 40, -int(rng.uniform(170, 230))]
        )
        cv2.line(
            frame, (int(start[0]), int(start[1])), (int(end[0]), int(end[1])), skin, 34, cv2.LINE_AA
        )


def _draw_finger(
    frame: Image, homography: npt.NDArray[np.float64], corner: int, rng: np.random.Generator
) -> None:
    # The finger rests on a corner that carries no index, or on one index only: a dealer
    # holding the box never hides both indices at once, and the hand scene covers the rest.
    skin = _SKIN_COLOURS[int(rng.integers(len(_SKIN_COLOURS)))]
    targets = {
        0: (0.05, 0.28),
        1: (0.8, 0.08),
        2: (0.95, 0.72),
        3: (0.2, 0.92),
    }
    tip_u, tip_v = targets[corner]
    outward = {0: (-0.6, 0.1), 1: (0.6, -0.1), 2: (0.6, 0.1), 3: (-0.6, 0.1)}[corner]
    tip = _face_polygon(homography, [(tip_u, tip_v)])[0]
    base = _face_polygon(homography, [(tip_u + outward[0], tip_v + outward[1])])[0]
    width = int(rng.uniform(24, 34))
    cv2.line(
        frame, (int(base[0]), int(base[1])), (int(tip[0]), int(tip[1])), skin, width, cv2.LINE_AA
    )
    cv2.circle(frame, (int(tip[0]), int(tip[1])), width // 3, (170, 185, 215), -1, cv2.LINE_AA)


def render_frame(spec: FrameSpec) -> Image:
    """The camera's 640 × 480 BGR picture of ``spec``."""
    rng = np.random.default_rng(spec.seed + 7919)
    s = spec.spoilers
    frame = np.empty((FRAME_HEIGHT, FRAME_WIDTH, 3), np.uint8)
    frame[:] = _FELT_COLOURS[spec.seed % len(_FELT_COLOURS)]
    texture = rng.normal(0, 6, (FRAME_HEIGHT // 8, FRAME_WIDTH // 8, 1)).astype(np.float32)
    texture = np.asarray(cv2.resize(texture, (FRAME_WIDTH, FRAME_HEIGHT)), np.float32)[:, :, None]
    frame = np.clip(frame + texture, 0, 255).astype(np.uint8)

    homography = spec.pose.homography()
    box_colour = _BOX_COLOURS[spec.seed % len(_BOX_COLOURS)]
    box = _face_polygon(homography, [(-0.09, -0.07), (1.09, -0.07), (1.09, 1.12), (-0.09, 1.12)])
    cv2.fillPoly(frame, [box], box_colour, cv2.LINE_AA)
    floor = tuple(min(255, c + 25) for c in box_colour)
    window = _face_polygon(homography, [(0, 0), (1, 0), (1, 1), (0, 1)])
    cv2.fillPoly(frame, [window], floor, cv2.LINE_AA)

    if spec.scene is Scene.TWO_CARDS and spec.next_card is not None:
        # A card left lying on the table beside the box, wholly in view.
        height = spec.pose.card_height * 0.7
        side = 1 if spec.pose.centre_x < FRAME_WIDTH / 2 else -1
        beside = Pose(
            centre_x=FRAME_WIDTH / 2 + side * (FRAME_WIDTH / 2 - height * 0.45),
            centre_y=FRAME_HEIGHT / 2,
            card_height=height,
            rotation_degrees=spec.pose.rotation_degrees + 10,
        )
        _warp_into(frame, card_face(spec.next_card, spec.design), beside.homography())

    top_face = (
        None
        if spec.scene is Scene.EMPTY
        else card_face(None if spec.joker else spec.card, spec.design)
    )
    if spec.scene is Scene.SLIDING:
        if spec.next_card is not None:
            _warp_into(frame, card_face(spec.next_card, spec.design), homography)
        _paint_lip(frame, homography, s.lip, box_colour)
        if top_face is not None:
            _warp_into(frame, top_face, spec.pose.homography((spec.slide, 0.0)))
    else:
        if top_face is not None:
            _warp_into(frame, top_face, homography)
        _paint_lip(frame, homography, s.lip, box_colour)

    if s.finger and spec.scene in (Scene.CARD, Scene.SLIDING):
        _draw_finger(frame, homography, s.finger_corner, rng)
    if spec.scene is Scene.HAND:
        _draw_hand(frame, homography, rng)
    return _spoil(frame, spec, rng)


def _paint_lip(frame: Image, homography: npt.NDArray[np.float64], lip: float, colour: BGR) -> None:
    if lip <= 0:
        return
    for band in (
        [(-0.02, -0.02), (lip, -0.02), (lip, 1.02), (-0.02, 1.02)],
        [(1 - lip, -0.02), (1.02, -0.02), (1.02, 1.02), (1 - lip, 1.02)],
    ):
        cv2.fillPoly(frame, [_face_polygon(homography, band)], colour, cv2.LINE_AA)


def _spoil(frame: Image, spec: FrameSpec, rng: np.random.Generator) -> Image:
    s = spec.spoilers
    image = frame.astype(np.float32)
    ys, xs = np.mgrid[0:FRAME_HEIGHT, 0:FRAME_WIDTH].astype(np.float32)
    if s.shadow > 0:
        homography = spec.pose.homography()
        centre = _face_polygon(homography, [(0.5, 0.5)])[0].astype(np.float32)
        nx, ny = math.cos(s.shadow_angle), math.sin(s.shadow_angle)
        distance = (xs - centre[0]) * nx + (ys - centre[1]) * ny - s.shadow_offset * 200
        inside = np.clip(distance / 12.0 + 0.5, 0, 1)  # a soft-edged half plane
        image *= (1 - s.shadow * inside)[:, :, None]
    if s.glare > 0:
        homography = spec.pose.homography()
        gx, gy = _face_polygon(homography, [s.glare_at])[0]
        radius = s.glare_radius * spec.pose.card_height
        spot = np.exp(-((xs - gx) ** 2 + (ys - gy) ** 2) / (2 * radius**2))
        image += (s.glare * 255 * spot)[:, :, None]
    if s.gradient > 0:
        ramp = (xs - FRAME_WIDTH / 2) * math.cos(s.gradient_angle) + (
            ys - FRAME_HEIGHT / 2
        ) * math.sin(s.gradient_angle)
        image *= (1 + s.gradient * ramp / FRAME_WIDTH)[:, :, None]
    image *= np.array(s.cast, np.float32) * s.light
    if s.blur > 0.2:
        image = np.asarray(cv2.GaussianBlur(image, (0, 0), s.blur), np.float32)
    if s.motion_blur > 1:
        kernel = np.full((1, s.motion_blur), 1.0 / s.motion_blur, np.float32)
        image = np.asarray(cv2.filter2D(image, -1, kernel), np.float32)
    if s.noise > 0:
        image += rng.normal(0, s.noise, image.shape).astype(np.float32)
    result = np.clip(image, 0, 255).astype(np.uint8)
    if s.jpeg_quality:
        ok, encoded = cv2.imencode(".jpg", result, [cv2.IMWRITE_JPEG_QUALITY, s.jpeg_quality])
        if ok:
            result = np.asarray(cv2.imdecode(encoded, cv2.IMREAD_COLOR), np.uint8)
    return result


def render_card(card: Card, design: CardDesign, seed: int | None = None) -> Image:
    """A frame of ``card`` in the box: clean when ``seed`` is None, else perturbed."""
    spec = clean_spec(card, design) if seed is None else random_spec(card, design, seed)
    return render_frame(spec)


# --- a dealt deck as video --------------------------------------------------------------


@dataclass(frozen=True)
class DealFrame:
    """One frame of a dealt deck and what it truly shows."""

    image: Image
    timestamp: float
    top_card: Card | None  # the card lying face up in the box, None when empty or hidden
    scene: Scene


def deal_video(
    order: Sequence[Card],
    design: CardDesign,
    seed: int,
    *,
    fps: float = 30.0,
    seconds_per_card: float = 0.5,
    hand_every: int = 7,
    severity: float = 0.5,
) -> Iterator[DealFrame]:
    """A fixed camera watching a whole deck dealt from the box, one card each
    ``seconds_per_card``; the dealer's hand passes over the box every ``hand_every`` cards.
    """
    rng = np.random.default_rng(seed)
    pose = Pose.sample(rng)
    frames_per_card = round(fps * seconds_per_card)
    slide_frames = max(2, frames_per_card // 4)
    index = 0
    cards: list[Card | None] = [*order, None]
    for position, card in enumerate(cards):
        next_card = cards[position + 1] if position + 1 < len(cards) else None
        hand_frames: set[int] = set()
        if card is not None and hand_every and position % hand_every == hand_every - 1:
            start = int(rng.integers(1, frames_per_card - slide_frames - 4))
            hand_frames = set(range(start, start + 3))
        total = frames_per_card if card is not None else frames_per_card // 2
        for step in range(total):
            frame_seed = int(rng.integers(0, 2**31))
            spoilers = Spoilers.sample(np.random.default_rng(frame_seed), severity)
            sliding = card is not None and step >= total - slide_frames
            if step in hand_frames:
                scene = Scene.HAND
            elif sliding:
                scene = Scene.SLIDING
            elif card is None:
                scene = Scene.EMPTY
            else:
                scene = Scene.CARD
            slide = (step - (total - slide_frames) + 1) / (slide_frames + 1) * 1.1
            spec = FrameSpec(card, design, pose, spoilers, scene, next_card, slide, seed=frame_seed)
            yield DealFrame(render_frame(spec), index / fps, card, scene)
            index += 1


STANDARD_DECK: tuple[Card, ...] = STANDARD_52.cards
