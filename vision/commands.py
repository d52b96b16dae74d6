"""The card readers' subcommands of ``dealtable``: ``teach``, ``recognize`` and ``barcodes``.

The main command line calls :func:`add_subcommands` with its subparsers; each subcommand
sets ``handler`` to a function taking the parsed arguments and returning the exit code.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from table.cards import Card, find_deck
from table.errors import CardParseError
from vision.errors import VisionError
from vision.profile_files import default_profile_folder

if TYPE_CHECKING:
    from vision.frames import Frame, FrameSource, Image
    from vision.geometry import Detection

# OpenCV and the readers load only when a command runs: `dealtable run` and the other
# commands start without them.

Handler = Callable[[argparse.Namespace], int]
STEADY_FRAMES = 3  # a card must sit still this many frames before teaching takes it
MAX_FRAMES_PER_CARD = 300


def add_subcommands(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``teach``, ``recognize`` and ``barcodes`` on the main parser's subparsers."""
    teach_parser = subparsers.add_parser(
        "teach",
        help="learn a deck design from one picture of each card",
        description="Learn a deck design: from a folder of pictures named by card code "
        "(QH.png, 10S.jpg), or by walking the dealer through the deck at the camera.",
    )
    source = teach_parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--images", type=Path, metavar="DIR", help="folder of QH.png, 10S.png …")
    source.add_argument(
        "--camera",
        nargs="?",
        const="auto",
        metavar="SOURCE",
        help="'picamera', a USB camera index, a video file or a folder of frames "
        "(default: the Pi camera if there is one, else USB camera 0)",
    )
    teach_parser.add_argument("--name", help="profile name (default: the folder's name)")
    teach_parser.add_argument("--deck", default="standard-52", help="deck: standard-52 …")
    teach_parser.add_argument("--profiles", type=Path, help="profile folder")
    teach_parser.add_argument(
        "--yes", action="store_true", help="camera: do not wait for Enter before each card"
    )
    teach_parser.set_defaults(handler=run_teach)

    recognize_parser = subparsers.add_parser(
        "recognize",
        help="read the card in each picture",
        description="Read the card in each picture with a taught deck profile.",
    )
    recognize_parser.add_argument("images", nargs="+", type=Path, metavar="IMAGE")
    recognize_parser.add_argument(
        "--deck", required=True, help="a taught deck's name, or its file (.npz may be left out)"
    )
    recognize_parser.add_argument("--profiles", type=Path, help="profile folder")
    recognize_parser.add_argument("--json", action="store_true", help="one JSON object a line")
    recognize_parser.set_defaults(handler=run_recognize)

    barcodes_parser = subparsers.add_parser(
        "barcodes",
        help="print barcode sticker sheets to label real cards",
        description="Write A4 sticker sheets (150 dpi) with one Code 128 sticker per card.",
    )
    barcodes_parser.add_argument("--decks", type=int, default=1, help="decks in the shoe")
    barcodes_parser.add_argument("--deck", default="standard-52")
    barcodes_parser.add_argument("--out", type=Path, required=True, metavar="FILE.pdf|png")
    barcodes_parser.set_defaults(handler=run_barcodes)


def _fail(command: str, message: str) -> int:
    print(f"dealtable {command}: {message}", file=sys.stderr)
    return 2


def run_teach(
    args: argparse.Namespace, stdin: TextIO | None = None, out: TextIO | None = None
) -> int:
    from vision.profile import read_teaching_folder, teach

    stdin = stdin or sys.stdin
    out = out or sys.stdout
    folder = args.profiles or default_profile_folder()
    try:
        deck = find_deck(args.deck)
        if args.images is not None:
            name = args.name or args.images.resolve().name
            images = read_teaching_folder(args.images)
        else:
            name = args.name or "camera-deck"
            images = _walk_through_deck(args.camera, deck.cards, args.yes, stdin, out)
        profile = teach(images, name, deck)
        path = profile.save(folder)
    except (VisionError, CardParseError) as error:
        return _fail("teach", str(error))
    print(f"taught deck {name!r} ({deck.name}) -> {path}", file=out)
    return 0


def open_camera(spec: str) -> FrameSource:
    from vision.frames import ImageFolderSource, PiCameraSource, VideoCaptureSource

    if spec == "auto":
        try:
            return PiCameraSource()
        except VisionError:
            return VideoCaptureSource(0)
    if spec == "picamera":
        return PiCameraSource()
    if spec.isdigit():
        return VideoCaptureSource(int(spec))
    if Path(spec).is_dir():
        return ImageFolderSource(spec)
    return VideoCaptureSource(spec)


def _walk_through_deck(
    camera: str, cards: tuple[Card, ...], no_wait: bool, stdin: TextIO, out: TextIO
) -> dict[Card, Image]:
    """Ask for each card in turn and take it once it has lain still in the box."""
    source = open_camera(camera)
    frames = iter(source)
    images: dict[Card, Image] = {}
    taken: tuple[Card, Image] | None = None
    try:
        for card in cards:
            print(f"Put {card.pretty} ({card.code}) face up in the box", file=out, flush=True)
            if not no_wait and not stdin.readline():
                raise VisionError(f"teaching stopped before {card.code}: no more input")
            images[card], face = _take_card(frames, card, taken)
            taken = (card, face)
    finally:
        source.close()
    return images


def _take_card(
    frames: Iterator[Frame], card: Card, taken: tuple[Card, Image] | None
) -> tuple[Image, Image]:
    """The first frame in which one card has lain still, and that card flattened.

    The card taken before may still lie in the box: the frames go on while the dealer
    reaches for the next one. So the box must first be seen empty, or else each of the steady
    frames must show a card clearly unlike the one taken. A card that stays too like it to
    tell apart stops the teaching, rather than teach one card's picture as another's.
    """
    from vision.geometry import detect, flatten
    from vision.profile import DIFFERENT_AREA, ink_difference

    emptied = taken is None
    steady = 0
    stopped = f"the camera ran out of frames before {card.code}"
    for count, frame in enumerate(frames):
        detection = detect(frame.image)
        emptied = emptied or _shows_an_empty_box(detection)
        face = None
        if len(detection.cards) == 1:
            face = flatten(frame.image, detection.cards[0].quad)
            if (
                taken is not None
                and not emptied
                and ink_difference(taken[1], face) < DIFFERENT_AREA
            ):
                face = None  # the card taken before, or one too like it to tell apart
        steady = steady + 1 if face is not None else 0
        if face is not None and steady >= STEADY_FRAMES:
            return frame.image, face
        if count >= MAX_FRAMES_PER_CARD:
            stopped = f"no card held still in view for {card.code}"
            break
    if taken is not None and not emptied:
        stopped = (
            f"cannot tell {card.code} from {taken[0].code}: the box was not seen empty after "
            f"{taken[0].code} and the card in it is not clearly another; take each card out "
            "of the box before putting in the next"
        )
    raise VisionError(stopped)


def _shows_an_empty_box(detection: Detection) -> bool:
    """Nothing card-shaped and nothing in the way. A dark or overexposed frame, or a hand
    over the box, shows nothing of what lies beneath."""
    from vision.geometry import FrameProblem

    return (
        detection.problem in (None, FrameProblem.FEATURELESS)
        and not detection.cards
        and not detection.obstructed
    )


def run_recognize(args: argparse.Namespace, out: TextIO | None = None) -> int:
    import cv2

    from vision.profile import find_profile
    from vision.recognize import CardReading, ReadingStatus, Recognizer

    out = out or sys.stdout
    try:
        profile = find_profile(args.deck, args.profiles or default_profile_folder())
    except VisionError as error:
        return _fail("recognize", str(error))
    recognizer = Recognizer(profile)
    for path in args.images:
        image = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if image is None:
            reading = CardReading(ReadingStatus.BAD_FRAME, detail="not a readable image file")
        else:
            reading = recognizer.read_picture(image)  # type: ignore[arg-type]
        if args.json:
            print(json.dumps({"image": str(path), **reading.to_json()}), file=out)
        else:
            shown = reading.card.code if reading.card else f"no card ({reading.status.value})"
            print(f"{path}: {shown} {reading.confidence:.2f} {reading.detail}".rstrip(), file=out)
    return 0


def run_barcodes(args: argparse.Namespace, out: TextIO | None = None) -> int:
    from vision.barcode import write_sticker_sheets

    out = out or sys.stdout
    try:
        path = write_sticker_sheets(args.decks, args.out, find_deck(args.deck))
    except (VisionError, CardParseError) as error:
        return _fail("barcodes", str(error))
    print(f"stickers for {args.decks} deck(s) -> {path}", file=out)
    return 0
