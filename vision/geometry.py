"""Finding the card in a frame and flattening it.

The card is the largest bright quadrilateral with a card's proportions; the box's lip may
trim its long sides, a finger may bite into it, and the sliding top card or a hand turns it
into a shape no card has. A rough outline comes from a half-resolution mask of card stock;
each of its sides is then moved onto the edge found across it in the full frame, where
glare spilling onto the box or a finger on the mask no longer pulls it. Each found card
is warped square-on to a canonical :data:`CANON_WIDTH` × :data:`CANON_HEIGHT` picture,
portrait. Upside down is left as is: the corner index is printed in two opposite corners,
so reading both makes it irrelevant.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
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
    TOO_SMALL = "too small"


@dataclass(frozen=True)
class CardOutline:
    quad: Quad  # full-resolution frame pixels
    solidity: float  # bright area / quad area: a covered or sliding card falls well below 1
    aspect: float  # long side / short side
    edge_support: float = 1.0  # share of profiles across the best three sides whose edge is on them


@dataclass(frozen=True)
class Detection:
    problem: FrameProblem | None
    cards: tuple[CardOutline, ...]  # card-like outlines
    obstructed: bool  # a large bright shape that is not a card: a hand, a sliding card


_OPENING = cv2.getStructuringElement(cv2.MORPH_RECT, (25, 25))
# A frame narrower or lower than this is a broken capture or a cut file, not a view of the
# box: no card's index could be read in it, and halving it for the search may leave nothing.
MIN_FRAME_SIDE = 16
MIN_AREA_FRACTION = 0.04
MAX_AREA_FRACTION = 0.6
MIN_ASPECT = 1.15
MAX_ASPECT = 1.75
MIN_SOLIDITY = 0.8
# A card's edges are straight and seen along most of their length (a finger may hide much
# of one side, so the best three count); a hand's outline is straight nowhere.
MIN_EDGE_SUPPORT = 0.75
# A side whose edge is found on fewer profiles than this was probably guessed wrong: glare
# on the box or a finger bent the mask there, and another rough guess is tried.
MIN_SIDE_SEEN = 0.4


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


EDGE_REACH = 24  # full-resolution pixels searched either side of a coarse side
EDGE_PROFILES = 36  # profiles across each side
EDGE_INLIER = 1.5  # pixels: how far an edge point may lie off its side's line
MIN_EDGE_POINTS = 6
MIN_EDGE_FALL = 16.0  # paperness lost across an edge at the least, on a dim card
_BESIDE = np.array([-2.0, 0.0, 2.0])
EDGE_FALL_SHARE = 0.4
EDGE_PAPER_SHARE = 0.7
_FALL_HALF = 2
# Candidate lines through pairs of profiles this many profiles apart: far enough apart to
# fix a direction, and always a pair on either side of a finger that hides a stretch.
_PAIRS = np.array(
    [
        (i, i + gap)
        for gap in (EDGE_PROFILES // 4, EDGE_PROFILES // 3, EDGE_PROFILES // 2)
        for i in range(EDGE_PROFILES - gap)
    ]
)


def _edge_offsets(
    paper_image: npt.NDArray[np.uint8], quad: npt.NDArray[np.float64], reach: int
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.bool_]]:
    """How far outside each rough side the card stock ends, on profiles across the sides
    (4 × EDGE_PROFILES offsets in pixels, and which profiles found an edge at all).

    The edge is the outermost place where paperness falls by at least half the profile's
    steepest fall, so a printed border just inside the edge (as steep a fall as the edge
    itself) does not pass for it."""
    starts, ends = quad, np.roll(quad, -1, axis=0)
    alongs = (ends - starts) / np.maximum(np.linalg.norm(ends - starts, axis=1), 1e-6)[:, None]
    outwards = np.stack([alongs[:, 1], -alongs[:, 0]], axis=1)
    ts = np.linspace(0.1, 0.9, EDGE_PROFILES)
    steps = np.arange(-reach, reach + 1, dtype=np.float64)
    bases = starts[:, None, :] + ts[None, :, None] * (ends - starts)[:, None, :]
    # Three neighbouring lines a profile, averaged: sensor noise and JPEG blocks on a dim
    # card are as strong as its edge on any single line of pixels.
    bases = bases[:, :, None, :] + _BESIDE[None, None, :, None] * alongs[:, None, None, :]
    points = bases[..., None, :] + steps[None, None, None, :, None] * outwards[:, None, None, None]
    points = points.reshape(-1, len(steps), 2).astype(np.float32)
    samples = cv2.remap(
        paper_image,
        points[..., 0],
        points[..., 1],
        cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_REPLICATE,
    ).astype(np.float32)
    paper = samples.reshape(4 * EDGE_PROFILES, len(_BESIDE), len(steps)).mean(axis=1)
    # Paper lost over four pixels going outward: a blurred or smeared edge spreads its
    # fall over as many.
    fall = paper[:, : -2 * _FALL_HALF] - paper[:, 2 * _FALL_HALF :]
    steepest = fall.max(axis=1)
    # A fall counts as the card's edge only if it is a fair share of the card stock's own
    # level: the outer edge of the box, lit by glare beside the card, falls by much less.
    card_level = float(np.median(paper.max(axis=1)))
    strong = np.maximum(0.5 * steepest, EDGE_FALL_SHARE * card_level)
    inner = fall[:, 1:-1]
    # And it must fall from card stock: the box lit by glare beside the card falls to the
    # felt as steeply, but from well below the paper just inside it on the same profile.
    nearest_paper = paper[:, : reach + 1].max(axis=1)
    above = np.maximum(paper[:, : inner.shape[1]], paper[:, 1 : inner.shape[1] + 1])
    peak = (
        (inner >= strong[:, None])
        & (inner >= fall[:, :-2])
        & (inner >= fall[:, 2:])
        & (above >= EDGE_PAPER_SHARE * nearest_paper[:, None])
    )
    last = inner.shape[1] - 1 - np.argmax(peak[:, ::-1], axis=1)  # outermost strong peak
    rows = np.arange(len(fall))
    before, middle, after = fall[rows, last], fall[rows, last + 1], fall[rows, last + 2]
    curvature = before - 2 * middle + after
    safe = np.where(curvature < -1e-6, curvature, -1.0)
    sub = np.where(curvature < -1e-6, 0.5 * (before - after) / safe, 0.0)
    offsets = steps[_FALL_HALF + 1 : -_FALL_HALF - 1][last] + np.clip(sub, -0.5, 0.5)
    found = (steepest >= MIN_EDGE_FALL) & peak.any(axis=1)
    return offsets.reshape(4, EDGE_PROFILES), found.reshape(4, EDGE_PROFILES)


def _refine(
    paper_image: npt.NDArray[np.uint8], quad: Quad, reach: int
) -> tuple[Quad, npt.NDArray[np.float64]]:
    """Move each side onto the card's edge found across it in the full-resolution frame.

    Along each side the edge offsets are fitted by a line through the pair of profiles most
    others agree with, then by least squares over those: a finger across the side or a
    glint is left out rather than averaged in."""
    corners_in = quad.astype(np.float64)
    offsets, found = _edge_offsets(paper_image, corners_in, reach)
    lengths = np.linalg.norm(np.roll(corners_in, -1, axis=0) - corners_in, axis=1)
    along = np.linspace(0.1, 0.9, EDGE_PROFILES)[None, :] * lengths[:, None]  # 4 × P
    i, j = _PAIRS[:, 0], _PAIRS[:, 1]
    usable = found[:, i] & found[:, j]  # 4 × K
    slope = (offsets[:, j] - offsets[:, i]) / (along[:, j] - along[:, i])
    intercept = offsets[:, i] - slope * along[:, i]
    residual = np.abs(
        offsets[:, None, :] - (slope[:, :, None] * along[:, None, :] + intercept[:, :, None])
    )
    inliers = (residual < EDGE_INLIER) & found[:, None, :] & usable[:, :, None]
    best = np.argmax(inliers.sum(axis=2), axis=1)
    chosen = inliers[np.arange(4), best].astype(np.float64)  # 4 × P
    # Least squares of offset against distance along the side, over each side's inliers.
    n = chosen.sum(axis=1)
    sa, so = (chosen * along).sum(axis=1), (chosen * offsets).sum(axis=1)
    saa, sao = (chosen * along * along).sum(axis=1), (chosen * along * offsets).sum(axis=1)
    spread = n * saa - sa * sa
    slope_fit = (n * sao - sa * so) / np.where(spread > 1e-6, spread, 1.0)
    intercept_fit = (so - slope_fit * sa) / np.maximum(n, 1.0)
    lines = []
    for k in range(4):
        start = corners_in[k]
        direction = (corners_in[(k + 1) % 4] - start) / max(float(lengths[k]), 1e-6)
        outward = np.array([direction[1], -direction[0]])
        if n[k] < MIN_EDGE_POINTS or spread[k] <= 1e-6:
            lines.append((start, direction))  # no clear edge: keep the rough side
            continue
        lines.append((start + intercept_fit[k] * outward, direction + slope_fit[k] * outward))
    corners = _line_corners(lines)
    if corners is None:
        return quad, np.zeros(4)
    return corners, n / EDGE_PROFILES


def _line_corners(
    lines: list[tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]],
) -> npt.NDArray[np.float32] | None:
    """The corners where consecutive lines (point, direction) of a closed four-sided
    outline cross."""
    corners = []
    for k in range(4):
        (p, u), (q, v) = lines[k - 1], lines[k]
        denominator = u[0] * v[1] - u[1] * v[0]
        if abs(denominator) < 1e-6:
            return None
        t = ((q[0] - p[0]) * v[1] - (q[1] - p[1]) * v[0]) / denominator
        corners.append(p + t * u)
    return np.array(corners, np.float32)


def _straight_sides(contour: npt.NDArray[np.int32]) -> npt.NDArray[np.float32] | None:
    """The card's corners from the four straight runs of its mask's outline that best make
    a card: glare spilling onto the box or a finger bulges the outline, and its convex hull
    with it, but leaves most of each side straight where it was."""
    points = contour.reshape(-1, 2).astype(np.float64)
    perimeter = cv2.arcLength(contour, True)
    polygon = cv2.approxPolyDP(contour, max(2.0, 0.01 * perimeter), True)
    starts = polygon.reshape(-1, 2).astype(np.float64)
    ends = np.roll(starts, -1, axis=0)
    lengths = np.linalg.norm(ends - starts, axis=1)
    keep = lengths >= 0.06 * perimeter
    if keep.sum() < 4:
        return None
    starts, directions = starts[keep], ((ends - starts)[keep] / lengths[keep, None])
    normals = np.stack([-directions[:, 1], directions[:, 0]], axis=1)
    distances = np.einsum("cnj,cj->cn", points[None, :, :] - starts[:, None, :], normals)
    support = (np.abs(distances) < 2.0).sum(axis=1).astype(np.float64)
    angles = np.arctan2(directions[:, 1], directions[:, 0])
    centre = points.mean(axis=0)
    first = int(np.argmax(support))

    def turn(k: int) -> float:  # the angle between candidate k and the first side, 0…90°
        difference = abs(angles[k] - angles[first]) % np.pi
        return float(np.degrees(min(difference, np.pi - difference)))

    across = (starts - starts[first]) @ normals[first]  # each candidate's place across the first
    middles = (starts - centre) @ directions[first] + 0.5 * lengths[keep] * (
        directions @ directions[first]
    )  # and along it
    candidates = range(len(starts))
    opposite = [k for k in candidates if turn(k) < 20 and abs(across[k]) > 0.15 * perimeter]
    before = [k for k in candidates if turn(k) > 60 and middles[k] < 0]
    after = [k for k in candidates if turn(k) > 60 and middles[k] > 0]
    if not (opposite and before and after):
        return None
    lines = []
    for k in (
        first,
        max(after, key=lambda k: support[k]),
        max(opposite, key=lambda k: support[k]),
        max(before, key=lambda k: support[k]),
    ):
        # The polygon's edge only roughly lies on the run; the run's own points place it.
        on_line = points[np.abs(distances[k]) < 2.0]
        if len(on_line) >= 5:
            centroid = on_line.mean(axis=0)
            _, _, vt = np.linalg.svd(on_line - centroid, full_matrices=False)
            lines.append((centroid, vt[0]))
        else:
            lines.append((starts[k], directions[k]))
    corners = _line_corners(lines)
    if corners is None or not cv2.isContourConvex(corners.reshape(-1, 1, 2)):
        return None
    return corners


def _rough_quads(contour: npt.NDArray[np.int32]) -> Iterator[npt.NDArray[np.float32]]:
    """Rough corners of the card in its mask's outline, the likeliest first."""
    points = _straight_sides(contour)
    if points is not None:
        yield points
    hull = cv2.convexHull(contour)
    perimeter = cv2.arcLength(hull, True)
    approx = cv2.approxPolyDP(hull, 0.02 * perimeter, True).reshape(-1, 2).astype(np.float64)
    points = _four_corners(approx)
    if points is None:
        points = cv2.boxPoints(cv2.minAreaRect(hull)).astype(np.float32)
    yield points


def _outline(
    paper_image: npt.NDArray[np.uint8], contour: npt.NDArray[np.int32], scale: float
) -> CardOutline | None:
    best: tuple[Quad, npt.NDArray[np.float64]] | None = None
    for rough in _rough_quads(contour):
        # The mask only roughly follows the card; its true edges are found across each
        # rough side, then once more across the corrected sides, nearer.
        quad, _ = _refine(paper_image, order_quad(rough) / scale, EDGE_REACH)
        quad, seen = _refine(paper_image, quad, EDGE_REACH // 3)
        if best is None or seen.min() > best[1].min():
            best = quad, seen
        if seen.min() >= MIN_SIDE_SEEN:
            break  # every side found: no need to try the next guess
    assert best is not None
    quad, seen = best
    support = float(np.sort(seen)[1:].mean())
    quad_area = float(cv2.contourArea(quad)) * scale * scale
    if quad_area <= 0:
        return None
    solidity = float(cv2.contourArea(contour)) / quad_area
    short = (np.linalg.norm(quad[1] - quad[0]) + np.linalg.norm(quad[3] - quad[2])) / 2
    long = (np.linalg.norm(quad[2] - quad[1]) + np.linalg.norm(quad[0] - quad[3])) / 2
    aspect = float(long) / max(float(short), 1e-6)
    return CardOutline(quad.astype(np.float32), solidity, aspect, support)


BALANCE_SHARE = 99.0  # percentile: the brightest things in view, the card stock when there is one


def _balance(small: Image) -> tuple[float, float, float]:
    """Per-channel gains that make the brightest part of the frame colourless: a warm lamp
    on cream stock leaves the card barely paler than a cool felt, and paperness, which
    punishes colour, then hardly tells the two apart."""
    levels = []
    for k in range(3):
        counts = cv2.calcHist([small], [k], None, [256], [0, 256]).ravel().cumsum()
        level = int(np.searchsorted(counts, counts[-1] * BALANCE_SHARE / 100))
        levels.append(float(max(level, 1)))
    top = max(levels)
    return (top / levels[0], top / levels[1], top / levels[2])


def _scaled(image: Image, gains: tuple[float, float, float]) -> Image:
    if max(gains) < 1.02:
        return image
    scale = np.array([*gains, 0.0], np.float64).reshape(4, 1)
    return np.asarray(cv2.multiply(image, scale, dtype=cv2.CV_8U), np.uint8)


# Beyond a rough side the edge is looked for up to EDGE_REACH pixels out, on three lines
# two pixels apart, and a rough corner may stand a little off the outline's own box.
_PAPER_MARGIN = EDGE_REACH + 16


def _paper_around(
    image: Image, gains: tuple[float, float, float], contours: Sequence[npt.NDArray[np.generic]]
) -> npt.NDArray[np.uint8]:
    """The full-size frame's paperness where a card's edge may be looked for: around the
    outlines found in the small frame; zero elsewhere, where nothing reads it. The colour
    balance and paperness of the whole frame cost more than the rest of the detection."""
    height, width = image.shape[:2]
    paper = np.zeros((height, width), np.uint8)
    if not len(contours):
        return paper
    points = np.concatenate([np.asarray(c).reshape(-1, 2) for c in contours]) / DETECT_SCALE
    x0 = max(0, int(points[:, 0].min()) - _PAPER_MARGIN)
    y0 = max(0, int(points[:, 1].min()) - _PAPER_MARGIN)
    x1 = min(width, int(points[:, 0].max()) + _PAPER_MARGIN + 1)
    y1 = min(height, int(points[:, 1].max()) + _PAPER_MARGIN + 1)
    paper[y0:y1, x0:x1] = paperness(_scaled(image[y0:y1, x0:x1], gains))
    return paper


def detect(image: Image) -> Detection:
    """Find the card-like outlines in a BGR frame."""
    if min(image.shape[:2]) < MIN_FRAME_SIDE:
        return Detection(FrameProblem.TOO_SMALL, (), False)
    small = cv2.resize(image, None, fx=DETECT_SCALE, fy=DETECT_SCALE, interpolation=cv2.INTER_AREA)
    problem = frame_problem(whiteness(small))  # type: ignore[arg-type]
    if problem is not None:
        return Detection(problem, (), False)
    gains = _balance(np.asarray(small, np.uint8))
    balanced = _scaled(np.asarray(small, np.uint8), gains)
    blurred = cv2.GaussianBlur(paperness(balanced), (5, 5), 0)
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
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    frame_area = float(mask.shape[0] * mask.shape[1])
    cards: list[CardOutline] = []
    obstructed = False
    # Too small for a card, or the table itself under bright light.
    smallest, largest = MIN_AREA_FRACTION * frame_area, MAX_AREA_FRACTION * frame_area
    sized = [contour for contour in contours if smallest <= cv2.contourArea(contour) <= largest]
    paper_image = _paper_around(image, gains, sized)
    for contour in sized:
        x, y, w, h = cv2.boundingRect(contour)
        touches_edge = x <= 1 or y <= 1 or x + w >= mask.shape[1] - 1 or y + h >= mask.shape[0] - 1
        outline = _outline(paper_image, np.asarray(contour, np.int32), DETECT_SCALE)
        if outline is None:
            continue
        if (
            MIN_ASPECT <= outline.aspect <= MAX_ASPECT
            and outline.solidity >= MIN_SOLIDITY
            and outline.edge_support >= MIN_EDGE_SUPPORT
            and not touches_edge
        ):
            cards.append(outline)
        else:
            obstructed = True
    return Detection(None, tuple(cards), obstructed)


_CANON_CORNERS = np.array(
    [[0, 0], [CANON_WIDTH - 1, 0], [CANON_WIDTH - 1, CANON_HEIGHT - 1], [0, CANON_HEIGHT - 1]],
    np.float32,
)


def flatten(image: Image, quad: Quad) -> Image:
    """The card square-on, CANON_WIDTH × CANON_HEIGHT, BGR."""
    transform = cv2.getPerspectiveTransform(quad, _CANON_CORNERS)
    return cv2.warpPerspective(  # type: ignore[return-value]
        image,
        transform,
        (CANON_WIDTH, CANON_HEIGHT),
        flags=cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_REPLICATE,
    )


def widen(quad: Quad, left: float, right: float) -> Quad:
    """The outline of a card whose long sides lie ``left`` and ``right`` canonical pixels
    beyond those of ``quad`` (the box's lip hides a strip of each)."""
    to_card = cv2.getPerspectiveTransform(quad, _CANON_CORNERS)
    far = CANON_WIDTH - 1 + right
    wide = np.array([[[-left, 0], [far, 0], [far, CANON_HEIGHT - 1], [-left, CANON_HEIGHT - 1]]])
    mapped = cv2.perspectiveTransform(wide.astype(np.float32), np.linalg.inv(to_card))
    return np.asarray(mapped[0], np.float32)


def redness(image: Image) -> FloatImage:
    """Red minus the mean of green and blue: high on red ink, near zero on paper and black."""
    blue, green, red = cv2.split(image.astype(np.float32))
    return np.asarray(red - (green + blue) / 2, np.float32)


def warp_corners(image: Image, quad: Quad, width: int, height: int) -> tuple[Image, Image]:
    """The card's top-left ``width`` × ``height`` corner and its bottom-right one turned
    upright, exactly as :func:`flatten` would show them, warping only those pixels."""
    to_card = cv2.getPerspectiveTransform(quad, _CANON_CORNERS)
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
