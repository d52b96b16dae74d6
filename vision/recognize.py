"""Reading the card in the box: find it, flatten it, match its corner index.

Both printed indices are read (the top-left one and the bottom-right one turned upright),
each by matching the profile's thirteen rank templates inside the rank box and its four
suit templates inside the suit box with normalised cross-correlation, which ignores how
bright or how coloured the light is. A corner is believed only when its best rank and best
suit both score high *and* clear their runners-up by a margin; a finger or glare on one
index leaves the other. A spade and a club correlate too closely for that margin alone:
the pip's outline must side with the suit read too. Anything less is not a card: the
reading says why.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from typing import TypeVar

import cv2
import numpy as np
import numpy.typing as npt

from table.cards import Card, Colour, Rank, Suit
from vision.frames import Image
from vision.geometry import (
    DETECT_SCALE,
    MIN_FRAME_SIDE,
    FloatImage,
    Quad,
    detect,
    frame_problem,
    warp_corners,
    whiteness,
    widen,
)
from vision.profile import (
    CORNER_HEIGHT,
    CORNER_WIDTH,
    SEARCH_MARGIN,
    Box,
    DeckProfile,
    corner_patches,
    pad_corner,
    whole_picture_card,
)

K = TypeVar("K", Rank, Suit)
A = TypeVar("A", FloatImage, Image)


class ReadingStatus(Enum):
    CARD = "card"  # a card read with confidence
    UNCERTAIN = "uncertain"  # a card is there and a best guess exists, not good enough
    NO_CARD = "no-card"  # the box is empty, or nothing card-shaped is in view
    OBSTRUCTED = "obstructed"  # a hand, a finger over both indices, a card in motion
    UNREADABLE = "unreadable"  # a card whose index is none this profile knows (joker, other design)
    TWO_CARDS = "two-cards"  # more than one card in view: nothing is read
    BAD_FRAME = "bad-frame"  # black, blank, overexposed or too small


@dataclass(frozen=True)
class CornerRead:
    rank: Rank
    suit: Suit
    rank_score: float
    suit_score: float
    rank_runner_up: Rank
    rank_runner_up_score: float
    suit_runner_up: Suit
    suit_runner_up_score: float
    rank_separation: float
    suit_separation: float
    likeness: float  # the read card's whole taught index against this corner
    # Where the best rank sat against where teaching saw it, in canonical pixels: a card
    # whose long edge the box's lip hides shows its index nearer the found edge.
    rank_shift: tuple[int, int] = (0, 0)
    # How much softer the index is than the taught pictures were (see :func:`blur_width`).
    blur: float = 0.0
    # For a spade or a club: where the pip's outline lies between this deck's spade and its
    # club, on the scale of :attr:`margin` (1 where the taught suit read lies, 0 halfway,
    # below 0 nearer the other). 1 for a heart or a diamond, told apart by correlation alone.
    pip_shape: float = 1.0

    @property
    def card(self) -> Card:
        return Card(self.rank, self.suit)

    @property
    def placed(self) -> bool:
        """The rank was found inside its search window, not pressed against its edge."""
        return max(abs(self.rank_shift[0]), abs(self.rank_shift[1])) < SEARCH_MARGIN

    @property
    def score(self) -> float:
        return min(self.rank_score, self.suit_score, self.likeness)

    @property
    def margin(self) -> float:
        """The winner's lead over its runner-up, as a share of the lead a typical picture
        of the winner has over that runner-up: about 1 for a usual picture, 0 when the two
        cannot be told apart. Scaled per pair, so a spade clearly not a club counts even
        though the two black shapes correlate at 0.96."""
        return min(
            (self.rank_score - self.rank_runner_up_score) / self.rank_separation,
            (self.suit_score - self.suit_runner_up_score) / self.suit_separation,
        )

    @property
    def clear_margin(self) -> float:
        """:attr:`margin`, and for a spade or a club the pip's outline too. The two black
        pips correlate at 0.96, and another design's club (larger, or wider) fits this
        deck's spade better than its own club on both indices alike: their lead then says
        nothing. A spade's point and a club's round top lobe tell them apart whatever the
        pip's size. Only a corner clear on this is believed."""
        return min(self.margin, self.pip_shape)

    @property
    def runner_up(self) -> tuple[Card, float]:
        """The most likely other card: the second rank or the second suit, whichever is
        closer to winning."""
        by_rank = (
            Card(self.rank_runner_up, self.suit),
            min(self.rank_runner_up_score, self.suit_score),
        )
        by_suit = (
            Card(self.rank, self.suit_runner_up),
            min(self.rank_score, self.suit_runner_up_score),
        )
        return max(by_rank, by_suit, key=lambda pair: pair[1])


@dataclass(frozen=True)
class CardReading:
    """What one frame shows. ``card`` is set only for CARD; ``guess`` for CARD and
    UNCERTAIN. ``confidence`` is the weaker of the rank and suit match scores (0…1)."""

    status: ReadingStatus
    card: Card | None = None
    confidence: float = 0.0
    runner_up: Card | None = None
    runner_up_confidence: float = 0.0
    guess: Card | None = None
    detail: str = ""

    def to_json(self) -> dict[str, object]:
        return {
            "status": self.status.value,
            "card": None if self.card is None else self.card.code,
            "confidence": round(self.confidence, 4),
            "runner_up": None if self.runner_up is None else self.runner_up.code,
            "runner_up_confidence": round(self.runner_up_confidence, 4),
            "guess": None if self.guess is None else self.guess.code,
            "detail": self.detail,
        }


@dataclass(frozen=True)
class Thresholds:
    """When an index is believed (scores are correlations, margins are shares of a typical
    lead; see :attr:`CornerRead.margin`). Tuned on the development designs only."""

    sure_score: float = 0.7  # one index alone is enough
    sure_margin: float = 0.5
    veto_score: float = 0.7  # an index this clear for another card forbids any reading
    veto_margin: float = 0.25
    agree_score: float = 0.7  # both indices leaning to the same card are enough
    agree_margin: float = 0.1
    guess_score: float = 0.6  # worth asking the dealer about
    guess_margin: float = 0.1
    # Canonical pixels of blur beyond the taught pictures' own. Softer than this (a camera
    # out of focus, or further from the box than at teaching), a blurred club fits the
    # spade better than its own sharp template, on both indices alike: the lead and the
    # agreement of two indices then mean nothing, and no reading is sure.
    max_blur: float = 1.6
    # The whole index must look like this deck's print of the card, not merely share its
    # rank and suit: that is what keeps a card of another design from being read.
    likeness: float = 0.85


def _window(patch: A, box: Box, shift: tuple[int, int] = (0, 0), slack: int = SEARCH_MARGIN) -> A:
    """The part of a padded corner patch where ``box``'s glyph may lie: the taught place
    (the patch is padded by SEARCH_MARGIN) moved by ``shift``, give or take ``slack``."""
    x, y, w, h = box
    left = x + SEARCH_MARGIN + shift[0] - slack
    top = y + SEARCH_MARGIN + shift[1] - slack
    left = min(max(left, 0), patch.shape[1] - w - 2 * slack)
    top = min(max(top, 0), patch.shape[0] - h - 2 * slack)
    return patch[top : top + h + 2 * slack, left : left + w + 2 * slack]


SUIT_SLACK = 3
MIN_STRIP = 1.5  # canonical pixels: a smaller shift of the index is no sign of a hidden strip
MAX_STRIP = 12.0


def _corner_patches(image: Image, quad: Quad) -> tuple[Image, Image]:
    corners = warp_corners(image, quad, CORNER_WIDTH, CORNER_HEIGHT)
    return pad_corner(corners[0]), pad_corner(corners[1])


def _best_two(scores: Mapping[K, float]) -> tuple[K, float, K, float]:
    ranked = sorted(scores.items(), key=lambda item: item[1], reverse=True)
    return ranked[0][0], ranked[0][1], ranked[1][0], ranked[1][1]


RED_INK = 2.0  # ink's red-to-green-and-blue ratio over the paper's: red ink measures 4+
BLACK_INK = 1.4


def _ink_colour(grey: FloatImage, colour: Image) -> Colour | None:
    """The colour of the ink in a window, or None when the light leaves it in doubt.
    Compared as a ratio with the paper beside it, so a tinted lamp, which multiplies
    every channel, moves ink and paper alike."""
    paper_level = _quantile(grey, 0.9)
    ink_level = _quantile(grey, 0.03)
    if paper_level - ink_level < 20:
        return None  # no ink to speak of: washed out or blank
    ink = grey < (paper_level + ink_level) / 2
    paper = grey >= paper_level * 0.97
    if not ink.any() or not paper.any():
        return None
    channels = colour.astype(np.float32)
    red = channels[:, :, 2]
    other = (channels[:, :, 0] + channels[:, :, 1]) / 2 + 1.0
    ink_ratio = float(red[ink].sum()) / float(other[ink].sum())
    paper_ratio = float(red[paper].sum()) / float(other[paper].sum())
    ratio = ink_ratio / max(paper_ratio, 1e-3)
    if ratio >= RED_INK:
        return Colour.RED
    if ratio <= BLACK_INK:
        return Colour.BLACK
    return None


def _is_blank(colour_patch: Image) -> bool:
    grey = whiteness(colour_patch)
    return _quantile(grey, 0.97) - _quantile(grey, 0.03) < 40


def _quantile(values: npt.NDArray[np.generic], share: float) -> float:
    flat = values.ravel()
    k = min(len(flat) - 1, int(share * (len(flat) - 1)))
    return float(np.partition(flat, k)[k])


# A spade and a club pip differ by a typical lead of only 0.02 to 0.04 in correlation, and
# blur, noise and JPEG blocks move a lead by about 0.01: a lead of half of 0.02 has been seen
# on the wrong suit. No pair's typical lead is taken as smaller than this.
MIN_SEPARATION = 0.03


def _separations(templates: Mapping[K, FloatImage]) -> dict[tuple[K, K], float]:
    """For each pair (a, b): by how much a typical camera picture of ``a`` outscores ``b``.

    Typical pictures are the template softened and noised as a camera would (seeded, so a
    profile always gives the same table). Measured rather than assumed, because the pairs
    are lopsided: a blurred club still fits the spade template well, while a spade fits the
    club template badly.
    """
    rng = np.random.default_rng(20261130)
    pad = SEARCH_MARGIN
    gaps: dict[tuple[K, K], list[float]] = {}
    for first, image in templates.items():
        padded = cv2.copyMakeBorder(image, pad, pad, pad, pad, cv2.BORDER_REPLICATE)
        for _ in range(6):
            picture = cv2.GaussianBlur(padded, (0, 0), float(rng.uniform(0.7, 1.4)))
            picture = (picture + rng.normal(0, 6, picture.shape)).astype(np.float32)
            scores = {
                key: float(
                    cv2.minMaxLoc(cv2.matchTemplate(picture, other, cv2.TM_CCOEFF_NORMED))[1]
                )
                for key, other in templates.items()
            }
            for second in templates:
                if second is not first:
                    gaps.setdefault((first, second), []).append(scores[first] - scores[second])
    return {pair: max(float(np.mean(values)), MIN_SEPARATION) for pair, values in gaps.items()}


# The pip's width at these heights below its top, as shares of its height: across a club's
# round top lobe the first is nearly the second; down a spade's straight sides, a third.
PIP_TOP = 1.5 / 16
PIP_SHOULDER = 4.5 / 16
PIP_INK = 0.6  # share of the way from paper to ink: a finger's skin (about 0.55) stays out
# A deck whose taught spade and club tops differ by less than this has no outline to tell
# them apart by: its black suits are told by correlation alone, as for the red ones.
MIN_PIP_TOP_GAP = 0.15


def pip_top_width(grey: FloatImage) -> float | None:
    """The pip's width near its top as a share of its width lower down, or None for a
    window with no pip to measure. The pip is the largest patch of ink in the window; its
    width in a row is the ink in that row, so blur, which spreads ink without adding any,
    and the pip's size and fatness (which vary from design to design) move it little."""
    paper = _quantile(grey, 0.9)
    ink = _quantile(grey, 0.03)
    if paper - ink < 20:
        return None
    levels = np.clip((paper - grey) / (paper - ink), 0.0, 1.0)
    count, labels, stats, _ = cv2.connectedComponentsWithStats(
        (levels > PIP_INK).astype(np.uint8), connectivity=4
    )
    if count < 2:
        return None
    pip = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    top, height = int(stats[pip, cv2.CC_STAT_TOP]), int(stats[pip, cv2.CC_STAT_HEIGHT])
    # The pip's blurred rim, below PIP_INK, is part of its width all the same.
    rim = cv2.dilate((labels == pip).astype(np.uint8), np.ones((3, 3), np.uint8))
    widths = (levels * rim).sum(axis=1)
    heights = top - 0.5 + np.array([PIP_TOP, PIP_SHOULDER]) * height
    near_top, lower = np.interp(heights, np.arange(len(widths)), widths)
    if lower <= 0:
        return None
    return float(near_top / lower)


def _taught_pip_tops(templates: Mapping[Suit, FloatImage]) -> dict[Suit, float] | None:
    """The taught spade's and club's :func:`pip_top_width`, or None when they do not tell
    the two apart (see :data:`MIN_PIP_TOP_GAP`)."""
    if Suit.SPADES not in templates or Suit.CLUBS not in templates:
        return None
    spade = pip_top_width(templates[Suit.SPADES])
    club = pip_top_width(templates[Suit.CLUBS])
    if spade is None or club is None or club - spade < MIN_PIP_TOP_GAP:
        return None
    return {Suit.SPADES: spade, Suit.CLUBS: club}


def blur_width(grey: FloatImage) -> float:
    """How soft the ink's edges are in a window, as the sigma (in pixels) of the Gaussian
    blur that makes a sharp edge of the window's contrast as steep as its steepest ones.
    Light and tint scale the contrast and the slopes alike, so only focus and scale move it;
    0 for a window with no ink to judge by."""
    contrast = _quantile(grey, 0.97) - _quantile(grey, 0.03)
    across = cv2.Sobel(grey, cv2.CV_32F, 1, 0, ksize=3) / 8
    down = cv2.Sobel(grey, cv2.CV_32F, 0, 1, ksize=3) / 8
    steepest = _quantile(cv2.magnitude(across, down), 0.99)
    if contrast < 20 or steepest <= 0:
        return 0.0
    return contrast / (steepest * float(np.sqrt(2 * np.pi)))


def _unfit_frame(image: Image) -> CardReading | None:
    if image.ndim != 3 or image.shape[2] != 3 or image.dtype != np.uint8:
        return CardReading(
            ReadingStatus.BAD_FRAME, detail=f"not a BGR uint8 frame: shape {image.shape}"
        )
    height, width = image.shape[:2]
    if min(height, width) < MIN_FRAME_SIDE:
        return CardReading(
            ReadingStatus.BAD_FRAME,
            detail=f"the frame is {width}×{height} pixels: too small to hold a card",
        )
    return None


def bad_frame(image: Image) -> CardReading | None:
    """The BAD_FRAME reading :meth:`Recognizer.read` gives a frame that shows nothing
    usable (black, blank, overexposed, too small), or None: for a barcode camera, which reads
    no card's index but goes blind all the same."""
    unfit = _unfit_frame(image)
    if unfit is not None:
        return unfit
    small = cv2.resize(image, None, fx=DETECT_SCALE, fy=DETECT_SCALE, interpolation=cv2.INTER_AREA)
    problem = frame_problem(whiteness(small))  # type: ignore[arg-type]
    if problem is None:
        return None
    return CardReading(ReadingStatus.BAD_FRAME, detail=f"the frame is {problem.value}")


class Recognizer:
    """Reads frames against one deck profile."""

    def __init__(self, profile: DeckProfile, thresholds: Thresholds | None = None) -> None:
        self.profile = profile
        self.thresholds = thresholds or Thresholds()
        self._rank_templates = dict(profile.rank_templates)
        self._suit_templates = dict(profile.suit_templates)
        self._rank_separation = _separations(self._rank_templates)
        self._suit_separation = _separations(self._suit_templates)
        self._taught_blur = float(
            np.median([blur_width(template) for template in profile.index_templates.values()])
        )
        self._pip_tops = _taught_pip_tops(self._suit_templates)

    def read_corner(self, colour_patch: Image) -> CornerRead:
        patch = whiteness(colour_patch).astype(np.float32)
        rank_window = _window(patch, self.profile.rank_box)
        rank_scores: dict[Rank, float] = {}
        rank_places: dict[Rank, tuple[int, int]] = {}
        for rank, template in self._rank_templates.items():
            _, score, _, place = cv2.minMaxLoc(
                cv2.matchTemplate(rank_window, template, cv2.TM_CCOEFF_NORMED)
            )
            rank_scores[rank], rank_places[rank] = float(score), (int(place[0]), int(place[1]))
        # The pip is printed a fixed step below the rank: look for it only where the best
        # rank says it must be, so a wrong suit cannot shift itself into a better fit.
        best_rank = max(rank_scores, key=rank_scores.__getitem__)
        dx = rank_places[best_rank][0] - SEARCH_MARGIN
        dy = rank_places[best_rank][1] - SEARCH_MARGIN
        suit_window = _window(patch, self.profile.suit_box, (dx, dy), SUIT_SLACK)
        colour_window = _window(colour_patch, self.profile.suit_box, (dx, dy), SUIT_SLACK)
        suit_scores: dict[Suit, float] = {}
        suit_places: dict[Suit, tuple[int, int]] = {}
        for suit, template in self._suit_templates.items():
            _, score, _, place = cv2.minMaxLoc(
                cv2.matchTemplate(suit_window, template, cv2.TM_CCOEFF_NORMED)
            )
            suit_scores[suit], suit_places[suit] = float(score), (int(place[0]), int(place[1]))
        # The ink's colour, measured on the middle of the best-fitting pip (clear of any
        # printed border), rules out the suits of the other colour.
        best_suit = max(suit_scores, key=suit_scores.__getitem__)
        x, y = suit_places[best_suit]
        _, _, w, h = self.profile.suit_box
        inner = (slice(y + h // 5, y + h - h // 5), slice(x + w // 5, x + w - w // 5))
        ink = _ink_colour(suit_window[inner], colour_window[inner])
        if ink is not None:
            for suit in suit_scores:
                if suit.colour is not ink:
                    suit_scores[suit] = -1.0
        rank, rank_score, rank2, rank2_score = _best_two(rank_scores)
        suit, suit_score, suit2, suit2_score = _best_two(suit_scores)
        pip_x, pip_y = suit_places[suit]
        pip_window = suit_window[pip_y : pip_y + h, pip_x : pip_x + w]
        index_window = _window(patch, self.profile.index_box, (dx, dy), SUIT_SLACK)
        return CornerRead(
            rank,
            suit,
            rank_score,
            suit_score,
            rank2,
            rank2_score,
            suit2,
            suit2_score,
            self._rank_separation[rank, rank2],
            self._suit_separation[suit, suit2],
            self._likeness(index_window, Card(rank, suit)),
            (dx, dy),
            self._extra_blur(index_window),
            self._pip_shape(pip_window, suit),
        )

    def _pip_shape(self, pip_window: FloatImage, suit: Suit) -> float:
        """See :attr:`CornerRead.pip_shape`."""
        if self._pip_tops is None or suit not in self._pip_tops:
            return 1.0
        seen = pip_top_width(pip_window)
        if seen is None:
            return 0.0  # no outline to side with either
        spade, club = self._pip_tops[Suit.SPADES], self._pip_tops[Suit.CLUBS]
        halfway = (spade + club) / 2
        return (seen - halfway) / (self._pip_tops[suit] - halfway)

    def _likeness(self, index_window: FloatImage, card: Card) -> float:
        template = self.profile.index_templates.get(card)
        if template is None:
            return 0.0  # a card outside this deck (a Monte Bank 40 has no tens)
        return float(
            cv2.minMaxLoc(cv2.matchTemplate(index_window, template, cv2.TM_CCOEFF_NORMED))[1]
        )

    def _extra_blur(self, index_window: FloatImage) -> float:
        """The blur on this index beyond the taught pictures' own: blurs add as squares."""
        seen = blur_width(index_window)
        return float(np.sqrt(max(seen * seen - self._taught_blur * self._taught_blur, 0.0)))

    def read_flat(self, flat: Image) -> CardReading:
        """Read a flattened card (see :func:`vision.geometry.flatten`)."""
        return self.read_corners(corner_patches(flat))

    def read_corners(self, patches: tuple[Image, Image]) -> CardReading:
        """Read a card from its two padded corner patches (upright, BGR).

        One index read surely is enough when the other does not lean elsewhere (a finger
        or glare hides it); two indices that both lean the same way are enough too, as
        their noise is independent; indices that lean different ways are never a card.
        """
        if all(_is_blank(patch) for patch in patches):
            return CardReading(
                ReadingStatus.NO_CARD, detail="a bright empty window: no card in the box"
            )
        return self._judge([self.read_corner(patch) for patch in patches])

    def _judge(self, corners: list[CornerRead]) -> CardReading:
        t = self.thresholds

        def passing(
            score: float, margin: float, likeness: float = 0.0, *, clear: bool = False
        ) -> list[CornerRead]:
            return [
                c
                for c in corners
                if c.score >= score
                and (c.clear_margin if clear else c.margin) >= margin
                and c.likeness >= likeness
            ]

        def sharp(candidates: list[CornerRead]) -> list[CornerRead]:
            return [c for c in candidates if c.placed and c.blur <= t.max_blur]

        # An index found at the very edge of where it may be was probably cut off or
        # stretched by an outline that missed the card's edge; both indices then lean the
        # same wrong way together, so such a corner does not count towards a reading.
        sure = sharp(passing(t.sure_score, t.sure_margin, t.likeness, clear=True))
        vetoing = passing(t.veto_score, t.veto_margin)
        claimed = {c.card for c in sure + vetoing}
        if len(claimed) > 1:
            return CardReading(
                ReadingStatus.UNREADABLE,
                detail="the two corner indices disagree: "
                + " and ".join(sorted(card.code for card in claimed)),
            )
        # Two indices leaning the same way are independent evidence; one of them looking
        # like this deck's print is enough to tell the deck apart, as it is for a sure
        # index, while glare or a finger beside the other may dull its likeness.
        agreeing = sharp(passing(t.agree_score, t.agree_margin, clear=True))
        if not any(c.likeness >= t.likeness for c in agreeing):
            agreeing = []
        if sure or (len(agreeing) == 2 and agreeing[0].card == agreeing[1].card):
            best = max(sure or agreeing, key=lambda c: (c.score, c.margin))
            runner_up, runner_up_score = best.runner_up
            return CardReading(
                ReadingStatus.CARD,
                best.card,
                best.score,
                runner_up,
                runner_up_score,
                guess=best.card,
            )
        leaning = passing(t.guess_score, t.guess_margin)
        if len({c.card for c in leaning}) > 1:
            leaning = []  # the two indices lean different ways: nothing worth asking about
        best = max(corners, key=lambda c: c.score)
        runner_up, runner_up_score = best.runner_up
        if leaning:
            guess = max(leaning, key=lambda c: c.score)
            runner_up, runner_up_score = guess.runner_up
            if guess.blur > t.max_blur:
                why = "the picture is too blurred to be sure (focus the camera)"
            elif guess.pip_shape < t.agree_margin:
                why = "its pip's outline does not clearly tell a spade from a club"
            else:
                why = "not surely"
            return CardReading(
                ReadingStatus.UNCERTAIN,
                None,
                guess.score,
                runner_up,
                runner_up_score,
                guess=guess.card,
                detail=f"looks like {guess.card.code} but {why} (score {guess.score:.2f}, "
                f"margin {guess.margin:.2f} over {runner_up.code})",
            )
        return CardReading(
            ReadingStatus.UNREADABLE,
            None,
            best.score,
            runner_up,
            runner_up_score,
            detail=f"a card whose index matches nothing in deck {self.profile.name!r} "
            "(a joker, another design, or hidden)",
        )

    def read(self, image: Image) -> CardReading:
        """Read one BGR frame."""
        unfit = _unfit_frame(image)
        if unfit is not None:
            return unfit
        detection = detect(image)
        if detection.problem is not None:
            return CardReading(
                ReadingStatus.BAD_FRAME, detail=f"the frame is {detection.problem.value}"
            )
        if len(detection.cards) > 1:
            return CardReading(
                ReadingStatus.TWO_CARDS, detail=f"{len(detection.cards)} cards in view"
            )
        if not detection.cards:
            if detection.obstructed:
                return CardReading(
                    ReadingStatus.OBSTRUCTED, detail="something covers the box or a card is moving"
                )
            return CardReading(ReadingStatus.NO_CARD, detail="no card in view")
        return self._read_outline(image, detection.cards[0].quad)

    def read_picture(self, image: Image) -> CardReading:
        """Read one still picture: a frame like the camera's, or a scan or photo cropped to
        the card's edges (the picture is then the card). The live reader uses :meth:`read`,
        which never takes a whole frame for a card."""
        reading = self.read(image)
        if reading.status is not ReadingStatus.NO_CARD:
            return reading
        whole = whole_picture_card(image)
        return reading if whole is None else self._read_outline(image, whole)

    def _read_outline(self, image: Image, quad: Quad) -> CardReading:
        patches = _corner_patches(image, quad)
        if all(_is_blank(patch) for patch in patches):
            return CardReading(
                ReadingStatus.NO_CARD, detail="a bright empty window: no card in the box"
            )
        corners = [self.read_corner(patch) for patch in patches]
        reading = self._judge(corners)
        if reading.status is ReadingStatus.CARD:
            return reading
        hidden = self._hidden_strips(corners)
        if hidden is None:
            return reading
        # A second look at the whole card: the box's lip hid a strip of each long side, so
        # the found outline was narrower than the card and its index came out stretched.
        widened = widen(quad, *hidden)
        return self._judge([self.read_corner(patch) for patch in _corner_patches(image, widened)])

    def _hidden_strips(self, corners: list[CornerRead]) -> tuple[float, float] | None:
        """How much of the card's left and right long sides lies beyond the found outline,
        in canonical pixels, judged from where each index sat; None when the indices say
        nothing of it (too faint to trust, or where teaching saw them)."""
        # A rank cut off by the edge of the patch scores low while its pip, further in,
        # still fits: either one found well places the index.
        trusted = [max(c.rank_score, c.suit_score) >= self.thresholds.guess_score for c in corners]
        if not any(trusted):
            return None
        strips = [float(-c.rank_shift[0]) for c in corners]
        if not all(trusted):  # the lip hides as much on either side
            strips = [strips[trusted.index(True)]] * 2
        strips = [min(max(strip, -MAX_STRIP / 2), MAX_STRIP) for strip in strips]
        if max(abs(strip) for strip in strips) < MIN_STRIP:
            return None
        return strips[0], strips[1]
