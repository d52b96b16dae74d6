"""Deck profiles: what one design's corner indices look like, learnt from one picture a card.

Teaching flattens each card's picture and looks at its top-left corner. Averaged over the
four suits, a rank's corner differs from the other ranks only where the rank is printed;
averaged over the thirteen ranks, a suit's corner differs only where the suit pip is. Those
two places become the rank box and the suit box, and the averages inside them become the
thirteen rank templates and the four suit templates the recognizer matches.

A profile is one ``.npz`` file (arrays plus a JSON header, no pickles) named after the deck
design, in a profile folder chosen in config.
"""

from __future__ import annotations

import json
import os
import zipfile
import zlib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from table.cards import STANDARD_52, Card, DeckSpec, Rank, Suit, find_deck
from table.errors import CardParseError
from vision.errors import ProfileError
from vision.frames import IMAGE_SUFFIXES, Image
from vision.geometry import (
    CANON_HEIGHT,
    CANON_WIDTH,
    MAX_ASPECT,
    MIN_ASPECT,
    FloatImage,
    Quad,
    detect,
    flatten,
    whiteness,
)
from vision.profile_files import locate_profile, profile_path

PROFILE_FORMAT = 1
CORNER_WIDTH = 46  # canonical pixels: the index column, clear of the face's pips and frames
CORNER_HEIGHT = 110
SEARCH_MARGIN = 8  # how far a glyph may sit from where teaching saw it, in canonical pixels

Box = tuple[int, int, int, int]  # x, y, width, height in the canonical corner


@dataclass(frozen=True)
class DeckProfile:
    """One card design's corner index, ready to match."""

    name: str
    deck: DeckSpec
    rank_box: Box
    suit_box: Box
    rank_templates: Mapping[Rank, FloatImage]
    suit_templates: Mapping[Suit, FloatImage]
    # Each card's whole index as taught: a reading is checked against it, so a card of
    # another design whose rank and suit happen to fit alone is not taken for this deck.
    index_templates: Mapping[Card, FloatImage]

    @property
    def index_box(self) -> Box:
        return _union(self.rank_box, self.suit_box)

    def save(self, folder: str | Path) -> Path:
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        header = {
            "format": PROFILE_FORMAT,
            "name": self.name,
            "deck": self.deck.name,
            "rank_box": list(self.rank_box),
            "suit_box": list(self.suit_box),
            "ranks": [rank.label for rank in self.rank_templates],
            "suits": [suit.value for suit in self.suit_templates],
        }
        arrays = {f"rank_{r.label}": t for r, t in self.rank_templates.items()}
        arrays.update({f"suit_{s.value}": t for s, t in self.suit_templates.items()})
        arrays.update({f"index_{c.code}": t for c, t in self.index_templates.items()})
        arrays["header"] = np.array(json.dumps(header))
        path = profile_path(folder, self.name)
        # Written beside the profile and renamed over it only once whole and on the disk: a
        # save cut short (the power gone, the disk full, Ctrl-C) leaves the profile as it was.
        # The hidden name keeps a part left behind out of the list of taught decks.
        part = path.with_name(f".{path.name}.{os.getpid()}.part")
        try:
            with part.open("wb") as file:
                np.savez_compressed(file, allow_pickle=False, **arrays)
                file.flush()
                os.fsync(file.fileno())
            os.replace(part, path)
        finally:
            part.unlink(missing_ok=True)
        return path

    @classmethod
    def load(cls, path: str | Path) -> DeckProfile:
        path = Path(path)
        try:
            with np.load(path, allow_pickle=False) as data:
                header = json.loads(str(data["header"]))
                if header.get("format") != PROFILE_FORMAT:
                    raise ProfileError(
                        f"deck profile {str(path)!r} has format {header.get('format')!r}, "
                        f"this reader knows format {PROFILE_FORMAT}: teach the deck again"
                    )
                ranks = {Rank.parse(label): data[f"rank_{label}"] for label in header["ranks"]}
                suits = {Suit.parse(code): data[f"suit_{code}"] for code in header["suits"]}
                deck = find_deck(header["deck"])
                indices = {card: data[f"index_{card.code}"] for card in deck}
                return cls(
                    header["name"],
                    deck,
                    _box(header["rank_box"]),
                    _box(header["suit_box"]),
                    {r: t.astype(np.float32) for r, t in ranks.items()},
                    {s: t.astype(np.float32) for s, t in suits.items()},
                    {c: t.astype(np.float32) for c, t in indices.items()},
                )
        except ProfileError:
            raise
        except (zipfile.BadZipFile, EOFError, zlib.error) as error:
            # Cut short or garbled: a copy interrupted, a disk failing, or a save cut short
            # by a dealtable older than the whole-or-nothing save above.
            raise ProfileError(
                f"deck profile {str(path)!r} is damaged ({error}): teach the deck again"
            ) from error
        except (OSError, KeyError, ValueError, json.JSONDecodeError, CardParseError) as error:
            raise ProfileError(f"not a readable deck profile: {str(path)!r} ({error})") from error


def _box(values: list[int]) -> Box:
    x, y, w, h = (int(v) for v in values)
    return (x, y, w, h)


def find_profile(name_or_path: str | Path, folder: str | Path | None = None) -> DeckProfile:
    """Load a profile given its file (``.npz`` may be left out), or its name in ``folder``
    (by default the profile folder)."""
    return DeckProfile.load(locate_profile(name_or_path, folder))


def corner_patches(flat: Image) -> tuple[Image, Image]:
    """The top-left index and the bottom-right one turned upright, padded for the search."""
    upright = flat[:CORNER_HEIGHT, :CORNER_WIDTH]
    turned = np.ascontiguousarray(flat[::-1, ::-1][:CORNER_HEIGHT, :CORNER_WIDTH])
    return pad_corner(upright), pad_corner(turned)


def pad_corner(corner: Image) -> Image:
    pad = SEARCH_MARGIN
    return cv2.copyMakeBorder(corner, pad, pad, pad, pad, cv2.BORDER_REPLICATE)  # type: ignore[return-value]


def flat_card_of(image: Image, source: str) -> Image:
    detection = detect(image)
    if detection.problem is not None:
        raise ProfileError(f"{source}: the picture is {detection.problem.value}, no card to learn")
    if not detection.cards:
        whole = whole_picture_card(image)
        if whole is not None:
            return flatten(image, whole)
    if len(detection.cards) != 1:
        found = "no card" if not detection.cards else f"{len(detection.cards)} cards"
        raise ProfileError(
            f"{source}: expected exactly one card in the picture, found {found} (a picture "
            "of the card on a darker table, or a scan cropped to the card's edges)"
        )
    return flatten(image, detection.cards[0].quad)


def whole_picture_card(image: Image) -> Quad | None:
    """The picture's own corners, when the picture is the card: a scan or a photo cropped to
    the card's edges, shaped like a card and paper all round its rim. None otherwise."""
    height, width = image.shape[:2]
    if not MIN_ASPECT <= max(height, width) / min(height, width) <= MAX_ASPECT:
        return None
    paper = whiteness(image)
    bright = float(np.percentile(paper, 95))
    ring = max(2, min(height, width) // 40)
    rim = np.concatenate(
        [
            paper[:ring].ravel(),
            paper[-ring:].ravel(),
            paper[:, :ring].ravel(),
            paper[:, -ring:].ravel(),
        ]
    )
    # Rounded corners may show the scanner's lid: the rim's median is the paper all the same.
    if bright < 100 or float(np.median(rim)) < 0.8 * bright:
        return None
    right, bottom = width - 1, height - 1
    if height >= width:
        corners = [[0, 0], [right, 0], [right, bottom], [0, bottom]]
    else:  # the card lies on its side: its top edge is the picture's right side
        corners = [[right, 0], [right, bottom], [0, bottom], [0, 0]]
    return np.array(corners, np.float32)


def _bounding_box(weight: FloatImage, share: float) -> Box:
    mask = (weight >= share * float(weight.max())).astype(np.uint8)
    x, y, w, h = cv2.boundingRect(mask)
    pad = 3
    x0, y0 = max(0, x - pad), max(0, y - pad)
    x1 = min(CORNER_WIDTH, x + w + pad)
    y1 = min(CORNER_HEIGHT, y + h + pad)
    return (x0, y0, x1 - x0, y1 - y0)


def teach(images: Mapping[Card, Image], name: str, deck: DeckSpec = STANDARD_52) -> DeckProfile:
    """Learn a deck design from one picture of each of its cards (any orientation upright
    or upside down, the card the only bright thing in view)."""
    profile_path(".", name)  # refuse a bad name before the work
    missing = [card.code for card in deck if card not in images]
    if missing:
        raise ProfileError(
            f"teaching {name!r} needs a picture of every card of {deck.name}; missing: "
            + " ".join(missing)
        )
    corners: dict[Card, FloatImage] = {}
    for card in deck:
        flat = flat_card_of(images[card], card.code)
        corners[card] = whiteness(flat[:CORNER_HEIGHT, :CORNER_WIDTH]).astype(np.float32)
    # A picture taken upside down shows the other corner's index: it is the same index.
    rank_means = {
        rank: np.mean([corners[Card(rank, suit)] for suit in deck.suits], axis=0)
        for rank in deck.ranks
    }
    suit_means = {
        suit: np.mean([corners[Card(rank, suit)] for rank in deck.ranks], axis=0)
        for suit in deck.suits
    }
    rank_spread = np.var(np.stack(list(rank_means.values())), axis=0).astype(np.float32)
    suit_spread = np.var(np.stack(list(suit_means.values())), axis=0).astype(np.float32)
    if float(rank_spread.max()) < 50 or float(suit_spread.max()) < 50:
        raise ProfileError(
            f"teaching {name!r}: the corners of these pictures do not differ from card to "
            "card; are they all the same picture, or not card faces?"
        )
    # Rows where the rank varies more than the suit belong to the rank, the rest to the pip.
    rank_rows = rank_spread.sum(axis=1) >= suit_spread.sum(axis=1)
    rank_box = _bounding_box(np.where(rank_rows[:, None], rank_spread, 0), 0.15)
    suit_box = _bounding_box(np.where(rank_rows[:, None], 0, suit_spread), 0.15)

    def crop(image: FloatImage, box: Box) -> FloatImage:
        x, y, w, h = box
        return np.ascontiguousarray(image[y : y + h, x : x + w], dtype=np.float32)

    index_box = _union(rank_box, suit_box)
    return DeckProfile(
        name,
        deck,
        rank_box,
        suit_box,
        {rank: crop(mean, rank_box) for rank, mean in rank_means.items()},
        {suit: crop(mean, suit_box) for suit, mean in suit_means.items()},
        {card: crop(corner, index_box) for card, corner in corners.items()},
    )


def _union(first: Box, second: Box) -> Box:
    x0, y0 = min(first[0], second[0]), min(first[1], second[1])
    x1 = max(first[0] + first[2], second[0] + second[2])
    y1 = max(first[1] + first[3], second[1] + second[3])
    return (x0, y0, x1 - x0, y1 - y0)


def read_teaching_folder(folder: str | Path) -> dict[Card, Image]:
    """The pictures in ``folder`` named by card code (``QH.png``, ``10s.jpg``, ``TD.png``)."""
    folder = Path(folder)
    if not folder.is_dir():
        raise ProfileError(f"no such folder: {str(folder)!r}")
    images: dict[Card, Image] = {}
    for path in sorted(folder.iterdir()):
        if path.suffix.lower() not in IMAGE_SUFFIXES:
            continue
        try:
            card = Card.parse(path.stem)
        except CardParseError:
            continue  # a joker, a box photo or notes: not a teaching picture
        if card in images:
            raise ProfileError(f"two pictures of {card.code} in {str(folder)!r}")
        image = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if image is None:
            raise ProfileError(f"not a readable image: {str(path)!r}")
        images[card] = image  # type: ignore[assignment]
    return images


# Two pictures of one card lying still differ by a few pixels of noise, where the next card
# of a deck differs by a pip or a rank's strokes: hundreds of canonical pixels. A spade and a
# club of one rank differ by too little to be told apart this way.
DIFFERENT_AREA = 200  # canonical pixels where one picture shows ink and the other paper
_FIT_SLACK = 3  # canonical pixels an outline found twice may move by
_FITS_COUNTED = 3


def _paper_levels(flat: Image) -> FloatImage:
    """A flattened card from 0 (its ink) to 1 (its paper), as measured on the card itself so
    that a lamp turned up or down moves nothing, softened by a pixel so that a stroke whose
    edge moved by less than one leaves no difference."""
    grey = whiteness(flat).astype(np.float32)
    paper = float(np.quantile(grey, 0.9))
    ink = float(np.quantile(grey, 0.03))
    levels = np.clip((grey - ink) / max(paper - ink, 1.0), 0.0, 1.0)
    return np.asarray(cv2.GaussianBlur(levels, (0, 0), 1.0), np.float32)


def ink_difference(first: Image, second: Image) -> int:
    """How much two flattened cards differ, in canonical pixels: where one shows ink and the
    other paper, laid on each other at their best fit, either way up (a card may be put in
    the box upside down) and shifted by up to a few pixels. Thin slivers along the strokes
    do not count: they are an outline found a pixel off, not another card."""
    levels = _paper_levels(first)
    inner = levels[_FIT_SLACK:-_FIT_SLACK, _FIT_SLACK:-_FIT_SLACK]
    height, width = inner.shape
    sliver = np.ones((3, 3), np.uint8)
    best = inner.size
    for other in (_paper_levels(second), _paper_levels(np.ascontiguousarray(second[::-1, ::-1]))):
        # The closest fits overall are where the fewest pixels can differ: only they are counted.
        fits = cv2.matchTemplate(other, inner, cv2.TM_SQDIFF)
        for place in np.argsort(fits, axis=None)[:_FITS_COUNTED]:
            dy, dx = divmod(int(place), fits.shape[1])
            unlike = np.abs(inner - other[dy : dy + height, dx : dx + width]) > 0.5
            best = min(best, int(cv2.erode(unlike.astype(np.uint8), sliver).sum()))
    return best


__all__ = [
    "CANON_HEIGHT",
    "CANON_WIDTH",
    "DeckProfile",
    "corner_patches",
    "find_profile",
    "ink_difference",
    "read_teaching_folder",
    "teach",
]
