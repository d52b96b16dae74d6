from __future__ import annotations

import argparse
import io
import json
from pathlib import Path

import cv2
import numpy as np
import pytest
from vision_fixtures import frame_of, taught_profile, write_teaching_folder

from table.cards import STANDARD_52, Card
from vision.barcode import read_frame_barcodes
from vision.commands import _walk_through_deck, add_subcommands, run_teach
from vision.errors import VisionError


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="dealtable")
    add_subcommands(parser.add_subparsers(dest="command", required=True))
    return parser


def _run(*argv: str) -> int:
    args = _parser().parse_args(argv)
    return int(args.handler(args))


def test_teach_from_a_folder_then_recognize_prints_json_per_image(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pictures = write_teaching_folder(tmp_path / "bicycle")
    profiles = tmp_path / "profiles"
    assert _run("teach", "--images", str(pictures), "--profiles", str(profiles)) == 0
    assert (profiles / "bicycle.npz").exists()
    assert "bicycle" in capsys.readouterr().out

    queen = tmp_path / "queen.png"
    cv2.imwrite(str(queen), frame_of(Card.parse("QH"), seed=11))
    black = tmp_path / "black.png"
    cv2.imwrite(str(black), np.zeros((480, 640, 3), np.uint8))
    not_an_image = tmp_path / "notes.png"
    not_an_image.write_text("hello")
    code = _run(
        "recognize",
        "--deck",
        "bicycle",
        "--profiles",
        str(profiles),
        "--json",
        str(queen),
        str(black),
        str(not_an_image),
    )
    assert code == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [line["card"] for line in lines] == ["QH", None, None]
    assert lines[0]["confidence"] > 0.7
    assert lines[1]["status"] == "bad-frame"
    assert lines[2]["image"].endswith("notes.png")


def test_recognize_reads_on_past_pictures_too_small_to_hold_a_card(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    taught_profile().save(tmp_path)
    dot, row, queen = tmp_path / "dot.png", tmp_path / "row.png", tmp_path / "queen.png"
    cv2.imwrite(str(dot), np.full((1, 1, 3), 128, np.uint8))
    cv2.imwrite(str(row), np.full((1, 300, 3), 128, np.uint8))
    cv2.imwrite(str(queen), frame_of(Card.parse("QH"), seed=11))
    argv = ["--deck", "classic", "--profiles", str(tmp_path), "--json"]
    assert _run("recognize", *argv, str(dot), str(row), str(queen)) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [line["status"] for line in lines] == ["bad-frame", "bad-frame", "card"]
    assert "300×1 pixels: too small" in lines[1]["detail"]
    assert lines[2]["card"] == "QH"


def test_teach_from_a_folder_names_a_picture_too_small_to_hold_a_card(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pictures = write_teaching_folder(tmp_path / "deck")
    cv2.imwrite(str(pictures / "QH.png"), np.full((1, 1, 3), 128, np.uint8))
    assert _run("teach", "--images", str(pictures), "--profiles", str(tmp_path / "p")) == 2
    assert (
        capsys.readouterr().err
        == "dealtable teach: QH: the picture is too small, no card to learn\n"
    )


def test_recognize_with_an_unknown_profile_fails_clearly(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _run("recognize", "--deck", "nope", "--profiles", str(tmp_path), "x.png") == 2
    assert "no deck profile named 'nope'" in capsys.readouterr().err


def test_recognize_with_a_damaged_profile_fails_clearly(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    whole = taught_profile().save(tmp_path).read_bytes()
    (tmp_path / "classic.npz").write_bytes(whole[: len(whole) // 3])  # a copy cut short
    queen = tmp_path / "queen.png"
    cv2.imwrite(str(queen), frame_of(Card.parse("QH")))
    assert _run("recognize", "--deck", "classic", "--profiles", str(tmp_path), str(queen)) == 2
    assert capsys.readouterr().err == (
        f"dealtable recognize: deck profile '{tmp_path / 'classic.npz'}' is damaged (File is "
        "not a zip file): teach the deck again\n"
    )


def test_teach_from_a_folder_missing_cards_names_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pictures = write_teaching_folder(tmp_path / "deck")
    (pictures / "7C.png").unlink()
    assert _run("teach", "--images", str(pictures), "--profiles", str(tmp_path / "p")) == 2
    assert "missing: 7C" in capsys.readouterr().err


def test_teach_at_the_camera_walks_the_dealer_through_the_deck(tmp_path: Path) -> None:
    # The camera: a folder of frames, each card shown steadily for three frames after an
    # empty box, as a dealer would place them one by one.
    frames = tmp_path / "camera"
    frames.mkdir()
    empty = np.zeros((480, 640, 3), np.uint8)
    empty[:] = (40, 90, 30)
    number = 0
    for card in STANDARD_52:
        for image in (empty, *[frame_of(card)] * 3):
            cv2.imwrite(str(frames / f"{number:05d}.png"), image)
            number += 1
    args = _parser().parse_args(
        ["teach", "--camera", str(frames), "--name", "walked", "--profiles", str(tmp_path)]
    )
    said = io.StringIO()
    assert run_teach(args, stdin=io.StringIO("\n" * 52), out=said) == 0
    assert said.getvalue().count("face up in the box") == 52
    assert "Put A♠ (AS)" in said.getvalue()
    assert (tmp_path / "walked.npz").exists()


def _camera_folder(folder: Path, *shown: tuple[np.ndarray, int]) -> str:
    """A folder of frames: each picture repeated as many times as it is given."""
    folder.mkdir()
    number = 0
    for image, count in shown:
        for _ in range(count):
            cv2.imwrite(str(folder / f"{number:05d}.png"), image)
            number += 1
    return str(folder)


def _cards(*codes: str) -> tuple[Card, ...]:
    return tuple(Card.parse(code) for code in codes)


def test_teach_with_yes_takes_each_card_only_after_the_one_before_has_left(
    tmp_path: Path,
) -> None:
    # Each card lies in the box for a third of a second, after an empty box: the frames
    # after the first steady ones still show it while the dealer reaches for the next.
    empty = np.zeros((480, 640, 3), np.uint8)
    empty[:] = (40, 90, 30)
    cards = _cards("AS", "2S", "3S", "4S")
    camera = _camera_folder(
        tmp_path / "camera",
        *[shown for card in cards for shown in ((empty, 1), (frame_of(card), 10))],
    )
    images = _walk_through_deck(camera, cards, True, io.StringIO(""), io.StringIO())
    for card in cards:
        assert np.array_equal(images[card], frame_of(card)), card


def test_teach_takes_a_card_put_over_the_last_one_when_it_clearly_differs(tmp_path: Path) -> None:
    cards = _cards("9D", "10D", "JD")
    camera = _camera_folder(tmp_path / "camera", *[(frame_of(card), 6) for card in cards])
    images = _walk_through_deck(camera, cards, True, io.StringIO(""), io.StringIO())
    for card in cards:
        assert np.array_equal(images[card], frame_of(card)), card


def _as_the_camera_sees_it_again(image: np.ndarray, seed: int) -> np.ndarray:
    """The same view a moment later: the lamp a little dimmer, the sensor's noise anew."""
    noise = np.random.default_rng(seed).normal(0, 4, image.shape)
    return np.clip(image * 0.92 + noise, 0, 255).astype(np.uint8)


def test_teach_stops_when_the_card_taught_stays_in_the_box(tmp_path: Path) -> None:
    ace = frame_of(Card.parse("AS"))
    later = [_as_the_camera_sees_it_again(ace, seed) for seed in range(8)]
    camera = _camera_folder(tmp_path / "camera", (ace, 5), *[(frame, 1) for frame in later])
    with pytest.raises(VisionError, match="cannot tell 2S from AS: the box was not seen empty"):
        _walk_through_deck(camera, _cards("AS", "2S"), True, io.StringIO(""), io.StringIO())


def test_teach_stops_when_the_next_card_is_too_like_the_last_to_tell(tmp_path: Path) -> None:
    # A spade and a club of one rank differ by a few pixels of each pip: without the box seen
    # empty between them, the club may be the spade still lying there.
    camera = _camera_folder(
        tmp_path / "camera", (frame_of(Card.parse("3S")), 5), (frame_of(Card.parse("3C")), 8)
    )
    with pytest.raises(VisionError, match="cannot tell 3C from 3S"):
        _walk_through_deck(camera, _cards("3S", "3C"), True, io.StringIO(""), io.StringIO())


def test_teach_camera_without_a_source_means_the_default_camera() -> None:
    args = _parser().parse_args(["teach", "--camera"])
    assert args.camera == "auto"
    with pytest.raises(SystemExit):
        _parser().parse_args(["teach"])  # one of --images or --camera is required


def test_teach_at_the_camera_stops_when_the_dealer_stops_answering(tmp_path: Path) -> None:
    frames = tmp_path / "camera"
    frames.mkdir()
    cv2.imwrite(str(frames / "0.png"), frame_of(Card.parse("AS")))
    args = _parser().parse_args(["teach", "--camera", str(frames), "--profiles", str(tmp_path)])
    assert run_teach(args, stdin=io.StringIO(""), out=io.StringIO()) == 2


def test_barcodes_writes_a_sheet_of_readable_stickers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "shoe.png"
    assert _run("barcodes", "--decks", "1", "--out", str(out)) == 0
    sheet = cv2.imread(str(out))
    assert sheet is not None
    codes = {r.code.card for r in read_frame_barcodes(np.asarray(sheet, np.uint8)) if r.code}
    assert codes == set(STANDARD_52)
    assert _run("barcodes", "--decks", "0", "--out", str(out)) == 2
    assert "1 to 99" in capsys.readouterr().err


def test_the_profile_from_the_fixture_matches_what_teach_writes(tmp_path: Path) -> None:
    pictures = write_teaching_folder(tmp_path / "classic")
    assert _run("teach", "--images", str(pictures), "--profiles", str(tmp_path)) == 0
    from vision.profile import DeckProfile

    written = DeckProfile.load(tmp_path / "classic.npz")
    assert written.rank_box == taught_profile().rank_box


def test_recognize_takes_a_deck_by_its_file_with_or_without_npz(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pictures = write_teaching_folder(tmp_path / "bicycle")
    profiles = tmp_path / "profiles"
    assert _run("teach", "--images", str(pictures), "--profiles", str(profiles)) == 0
    queen = tmp_path / "queen.png"
    cv2.imwrite(str(queen), frame_of(Card.parse("QH"), seed=11))
    for deck in (profiles / "bicycle", profiles / "bicycle.npz"):
        capsys.readouterr()
        assert _run("recognize", "--deck", str(deck), "--json", str(queen)) == 0
        assert json.loads(capsys.readouterr().out)["card"] == "QH"
    assert _run("recognize", "--deck", str(profiles / "poker"), str(queen)) == 2
    assert capsys.readouterr().err == (
        f"dealtable recognize: no deck profile file '{profiles / 'poker'}' or "
        f"'{profiles / 'poker.npz'}'\n"
    )
