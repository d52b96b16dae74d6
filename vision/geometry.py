"""Finding the card in a frame and flattening it.

The card is the largest bright quadrilateral with a card's proportions; the box's lip may
trim its long sides, a finger may bite into it, and the sliding top card or a hand turns it
into a shape no card has. Each found card is warped square-on to a canonical
:data:`CANON_WIDTH` × :data:`CANON_HEIGHT` picture, portrait. Upside down is left as is:
the corner index is printed in two opposite corners, so reading both makes it irrelevant.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

import cv2
import numpy as np
import numpy.typing as npt

from vision.frames import Image

CANON_WIDTH = 200
CANON_HEIGHT = 280
DETECT_SCALE = 0.5  # contours are found at half resolution: plenty for a card, 4× cheaper

FloatImage = npt.NDArray[np.float32]
Quad = npt.NDArray[np.float32]  # 4 × 2, clockwise from the top-left


class FrameProblem(Enum):
    """Why a frame has no card to read."""

    DARK = "dark"
    OVEREXPOSED = "overexposed"
    FEATURELESS = "featureless"


@dataclass(frozen=True)
class CardOutline:
    quad: Quad  # full-resolution frame pixels
    solidity: float  # bright area / quad area: a covered or sliding card falls well below 1
    aspect: float  # long side / short side


@dataclass(frozen=True)
class Detection:
    problem: FrameProblem | None
    cards: tuple[CardOutline, ...]  # card-like outlines
    obstructed: bool  # a large bright shape that is not a card: a hand, a sliding card


_OPENING = cv2.getStructuringElement(cv2.MORPH_RECT, (17, 17))
MIN_AREA_FRACTION = 0.04
MAX_AREA_FRACTION = 0.6
MIN_ASPECT = 1.15
MAX_ASPECT = 1.75
MIN_SOLIDITY = 0.88


def paperness(image: Image) -> npt.NDArray[np.uint8]:
    """Bright *and* colourless: the darkest channel less the spread between channels.
    Card stock scores high under any tint of light; skin, felt and wood score low even
    when they are bright, so a finger on the card does not join the card's outline."""
    blue, green, red = cv2.split(image)
    darkest = cv2.min(cv2.min(blue, green), red)
    brightest = cv2.max(cv2.max(blue, green), red)
    return cv2.subtract(darkest, cv2.subtract(brightest, darkest))  # type: ignore[return-value]


def frame_problem(small_grey: npt.NDArray[np.uint8]) -> FrameProblem | None:
    mean, std = cv2.meanStdDev(small_grey)
    if float(mean[0, 0]) < 12 and float(std[0, 0]) < 8:
        return FrameProblem.DARK
    if float(mean[0, 0]) > 240 and float(std[0, 0]) < 12:
        return FrameProblem.OVEREXPOSED
    if float(std[0, 0]) < 4:
        return FrameProblem.FEATURELESS
    return None


def whiteness(image: Image) -> npt.NDArray[np.uint8]:
    """The darkest channel: high only where all three are high (paper), low on any ink,
    felt or skin, whatever colour the light has."""
    blue, green, red = cv2.split(image)
    return cv2.min(cv2.min(blue, green), red)  # type: ignore[return-value]


def order_quad(points: npt.NDArray[np.float32]) -> Quad:
    """Clockwise from the corner that makes the first edge a short (top) edge."""
    centre = points.mean(axis=0)
    angles = np.arctan2(points[:, 1] - centre[1], points[:, 0] - centre[0])
    ordered = points[np.argsort(angles)]  # clockwise in image coordinates (y down)
    edge01 = np.linalg.norm(ordered[1] - ordered[0])
    edge12 = np.linalg.norm(ordered[2] - ordered[1])
    if edge01 > edge12:  # the first edge is long: start one corner later
        ordered = np.roll(ordered, -1, axis=0)
    # Of the two orderings with a short first edge, take the one starting nearer the
    # image's top-left, so an upright card reads upright.
    if ordered[2].sum() < ordered[0].sum():
        ordered = np.roll(ordered, 2, axis=0)
    return ordered.astype(np.float32)


def _four_corners(polygon: npt.NDArray[np.float64]) -> npt.NDArray[np.float32] | None:
    """The card's corners from its outline's polygon. A finger or glare that clips a corner
    adds a short edge; the card's four sides stay the four longest edges, and their
    crossings are the true corners, even the hidden one."""
    count = len(polygon)
    if count < 4:
        return None
    if count == 4:
        return polygon.astype(np.float32)
    lengths = [np.linalg.norm(polygon[(i + 1) % count] - polygon[i]) for i in range(count)]
    sides = sorted(sorted(range(count), key=lambda i: lengths[i], reverse=True)[:4])
    corners = []
    for k in range(4):
        a0, a1 = polygon[sides[k]], polygon[(sides[k] + 1) % count]
        b0, b1 = polygon[sides[(k + 1) % 4]], polygon[(sides[(k + 1) % 4] + 1) % count]
        da, db = a1 - a0, b1 - b0
        denominator = da[0] * db[1] - da[1] * db[0]
        if abs(denominator) < 1e-6:
            return None  # two parallel sides next to each other: not a card
        t = ((b0[0] - a0[0]) * db[1] - (b0[1] - a0[1]) * db[0]) / denominator
        corners.append(a0 + t * da)
    quad = np.array(corners, np.float32)
    if not cv2.isContourConvex(quad.reshape(-1, 1, 2)):
        return None
    return quad


def _line_through(
    points: npt.NDArray[np.float64],
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    vx, vy, x0, y0 = cv2.fitLine(points.astype(np.float32), cv2.DIST_HUBER, 0, 0.01, 0.01).ravel()
    return np.array([x0, y0], np.float64), np.array([vx, vy], np.float64)


def _refine(quad: Quad, edge_points: npt.NDArray[np.float64]) -> Quad:
    """Move each side onto the outline points that lie along it, before the opening
    rounded the corners: a robust line fit, so a finger crossing the side barely pulls."""
    lines = []
    for k in range(4):
        start, end = quad[k].astype(np.float64), quad[(k + 1) % 4].astype(np.float64)
        length = float(np.linalg.norm(end - start))
        along = (end - start) / max(length, 1e-6)
        normal = np.array([-along[1], along[0]])
        offset = edge_points - start
        t = offset @ along / max(length, 1e-6)
        d = offset @ normal
        near = edge_points[(t > 0.12) & (t < 0.88) & (np.abs(d) < 4.0)]
        if len(near) >= 8:
            lines.append(_line_through(near))
        else:
            lines.append((start, along))
    corners = []
    for k in range(4):
        (p, u), (q, v) = lines[k - 1], lines[k]
        denominator = u[0] * v[1] - u[1] * v[0]
        if abs(denominator) < 1e-6:
            return quad
        t = ((q[0] - p[0]) * v[1] - (q[1] - p[1]) * v[0]) / denominator
        corners.append(p + t * u)
    return np.array(corners, np.float32)


def _outline(
    contour: npt.NDArray[np.int32], scale: float, edge_points: npt.NDArray[np.float64]
) -> CardOutline | None:
    hull = cv2.convexHull(contour)
    perimeter = cv2.arcLength(hull, True)
    approx = cv2.approxPolyDP(hull, 0.02 * perimeter, True).reshape(-1, 2).astype(np.float64)
    points = _four_corners(approx)
    if points is None:
        points = cv2.boxPoints(cv2.minAreaRect(hull)).astype(np.float32)
    quad = order_quad(points)
    if len(edge_points):
        quad = _refine(quad, edge_points)
    quad_area = float(cv2.contourArea(quad))
    if quad_area <= 0:
        return None
    solidity = float(cv2.contourArea(contour)) / quad_area
    short = (np.linalg.norm(quad[1] - quad[0]) + np.linalg.norm(quad[3] - quad[2])) / 2
    long = (np.linalg.norm(quad[2] - quad[1]) + np.linalg.norm(quad[0] - quad[3])) / 2
    aspect = float(long) / max(float(short), 1e-6)
    return CardOutline((quad / scale).astype(np.float32), solidity, aspect)


def detect(image: Image) -> Detection:
    """Find the card-like outlines in a BGR frame."""
    small = cv2.resize(image, None, fx=DETECT_SCALE, fy=DETECT_SCALE, interpolation=cv2.INTER_AREA)
    problem = frame_problem(whiteness(small))  # type: ignore[arg-type]
    if problem is not None:
        return Detection(problem, (), False)
    blurred = cv2.GaussianBlur(paperness(small), (5, 5), 0)  # type: ignore[arg-type]
    otsu, _ = cv2.threshold(blurred, 0, 255, cv2.THRESH_BINARY | cv2.THRESH_OTSU)
    # Otsu splits a card with glare on one half and a shadow on the other; everything that
    # is not card stock scores near zero, so half its level still keeps them apart.
    _, mask = cv2.threshold(blurred, max(otsu * 0.5, 8.0), 255, cv2.THRESH_BINARY)
    # Fill the ink holes first, then open wider than a finger: that cuts a pale finger or a
    # glint off the card's outline without biting notches in at the printed index.
    outer, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    mask = np.zeros_like(mask)
    cv2.drawContours(mask, outer, -1, 255, cv2.FILLED)
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, _OPENING)
    edge_points = (
        np.concatenate([c.reshape(-1, 2) for c in outer]).astype(np.float64)
        if outer
        else np.zeros((0, 2))
    )
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    frame_area = float(mask.shape[0] * mask.shape[1])
    cards: list[CardOutline] = []
    obstructed = False
    for contour in contours:
        area = cv2.contourArea(contour)
        if area < MIN_AREA_FRACTION * frame_area:
            continue
        x, y, w, h = cv2.boundingRect(contour)
        touches_edge = x <= 1 or y <= 1 or x + w >= mask.shape[1] - 1 or y + h >= mask.shape[0] - 1
        if area > MAX_AREA_FRACTION * frame_area:
            continue  # the table itself under bright light, not a card
        outline = _outline(np.asarray(contour, np.int32), DETECT_SCALE, edge_points)
        if outline is None:
            continue
        if (
            MIN_ASPECT <= outline.aspect <= MAX_ASPECT
            and outline.solidity >= MIN_SOLIDITY
            and not touches_edge
        ):
            cards.append(outline)
        else:
            obstructed = True
    return Detection(None, tuple(cards), obstructed)


def flatten(image: Image, quad: Quad) -> Image:
    """The card square-on, CANON_WIDTH × CANON_HEIGHT, BGR."""
    target = np.array(
        [[0, 0], [CANON_WIDTH - 1, 0], [CANON_WIDTH - 1, CANON_HEIGHT - 1], [0, CANON_HEIGHT - 1]],
        np.float32,
    )
    transform = cv2.getPerspectiveTransform(quad, target)
    return cv2.warpPerspective(  # type: ignore[return-value]
        image,
        transform,
        (CANON_WIDTH, CANON_HEIGHT),
        flags=cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_REPLICATE,
    )


def redness(image: Image) -> FloatImage:
    """Red minus the mean of green and blue: high on red ink, near zero on paper and black."""
    blue, green, red = cv2.split(image.astype(np.float32))
    return np.asarray(red - (green + blue) / 2, np.float32)


def warp_corners(image: Image, quad: Quad, width: int, height: int) -> tuple[Image, Image]:
    """The card's top-left ``width`` × ``height`` corner and its bottom-right one turned
    upright, exactly as :func:`flatten` would show them, warping only those pixels."""
    target = np.array(
        [[0, 0], [CANON_WIDTH - 1, 0], [CANON_WIDTH - 1, CANON_HEIGHT - 1], [0, CANON_HEIGHT - 1]],
        np.float32,
    )
    to_card = cv2.getPerspectiveTransform(quad, target)
    turn = np.array([[-1, 0, CANON_WIDTH - 1], [0, -1, CANON_HEIGHT - 1], [0, 0, 1]], np.float64)
    views = []
    for transform in (to_card, turn @ to_card):
        views.append(
            cv2.warpPerspective(
                image,
                transform,
                (width, height),
                flags=cv2.INTER_LINEAR,
                borderMode=cv2.BORDER_REPLICATE,
            )
        )
    return views[0], views[1]  # type: ignore[return-value]
