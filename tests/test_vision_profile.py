from __future__ import annotations

import errno
from pathlib import Path
from typing import BinaryIO

import cv2
import numpy as np
import pytest
from vision_fixtures import frame_of, taught_profile, write_teaching_folder

from table.cards import STANDARD_52, Card
from vision.errors import ProfileError
from vision.profile import (
    DeckProfile,
    find_profile,
    read_teaching_folder,
    teach,
    whole_picture_card,
)
from vision.recognize import Recognizer
from vision.synthetic import DESIGNS, card_face, render_card


def test_a_deck_taught_from_a_folder_of_named_pictures_reads_its_cards(tmp_path: Path) -> None:
    folder = write_teaching_folder(tmp_path / "pictures")
    (folder / "joker.png").write_bytes(b"ignored: not named by a card")
    images = read_teaching_folder(folder)
    assert set(images) == set(STANDARD_52)
    profile = teach(images, "bicycle-red")
    reader = Recognizer(profile)
    for code in ("AS", "10H", "QC", "7D"):
        assert reader.read(frame_of(Card.parse(code), seed=77)).card in (None, Card.parse(code))
    assert reader.read(frame_of(Card.parse("KH"))).card == Card.parse("KH")


def test_a_saved_profile_loads_and_reads_the_same(tmp_path: Path) -> None:
    profile = taught_profile()
    path = profile.save(tmp_path)
    assert path.name == "classic.npz"
    loaded = find_profile("classic", tmp_path)
    assert loaded.rank_box == profile.rank_box
    assert loaded.suit_box == profile.suit_box
    frame = frame_of(Card.parse("9S"), seed=5)
    first, second = Recognizer(profile).read(frame), Recognizer(loaded).read(frame)
    assert first.card == second.card
    assert first.confidence == pytest.approx(second.confidence, abs=1e-5)
    assert isinstance(DeckProfile.load(path), DeckProfile)


def test_teaching_without_every_card_names_the_missing_ones() -> None:
    design = DESIGNS["classic"]
    images = {card: render_card(card, design) for card in STANDARD_52.cards[:50]}
    with pytest.raises(ProfileError, match="missing: QC KC"):
        teach(images, "short-deck")


def test_teaching_from_the_same_picture_every_time_is_refused() -> None:
    picture = render_card(Card.parse("QH"), DESIGNS["classic"])
    with pytest.raises(ProfileError, match="do not differ"):
        teach(dict.fromkeys(STANDARD_52, picture), "all-queens")


def test_a_teaching_picture_without_a_card_is_refused_by_name() -> None:
    design = DESIGNS["classic"]
    images = {card: render_card(card, design) for card in STANDARD_52}
    images[Card.parse("4D")] = np.zeros((480, 640, 3), np.uint8)
    with pytest.raises(ProfileError, match="4D: the picture is dark"):
        teach(images, "classic")


def test_a_deck_taught_from_scans_cropped_to_the_card_reads_camera_frames() -> None:
    """A flatbed scan or a photo cropped to the card's edges is the card itself, whichever
    way up or on its side it was scanned."""
    design = DESIGNS["classic"]
    scans = {
        card: np.ascontiguousarray(np.rot90(card_face(card, design), index % 4))
        for index, card in enumerate(STANDARD_52)
    }
    reader = Recognizer(teach(scans, "scanned"))
    for code in ("KH", "AS", "10D", "7C"):
        assert reader.read(frame_of(Card.parse(code))).card == Card.parse(code)
    for code in ("AS", "10H", "QC", "2D"):
        scan = scans[Card.parse(code)]
        assert reader.read_picture(scan).card == Card.parse(code)
        assert reader.read(scan).card is None  # the live reader never takes a frame for a card


def test_only_a_card_shaped_picture_with_a_paper_rim_counts_as_the_card_itself() -> None:
    felt = np.full((350, 250, 3), (30, 90, 20), np.uint8)
    assert whole_picture_card(felt) is None
    assert whole_picture_card(np.full((100, 600, 3), 235, np.uint8)) is None  # not card-shaped
    framed = np.full((350, 250, 3), 235, np.uint8)
    framed[:12], framed[-12:], framed[:, :12], framed[:, -12:] = 20, 20, 20, 20
    assert whole_picture_card(framed) is None  # a card on a dark table is found by its outline
    blank = np.full((350, 250, 3), 235, np.uint8)
    assert whole_picture_card(blank) is not None
    assert Recognizer(taught_profile()).read_picture(blank).card is None  # no index on it


def test_garbage_profile_files_and_bad_names_are_profile_errors(tmp_path: Path) -> None:
    garbage = tmp_path / "garbage.npz"
    garbage.write_bytes(b"\x00not a zip")
    with pytest.raises(ProfileError, match="not a readable deck profile"):
        DeckProfile.load(garbage)
    with pytest.raises(ProfileError, match="no deck profile named"):
        find_profile("absent", tmp_path)
    with pytest.raises(ProfileError, match="must be letters"):
        teach({}, "../escape")
    cv2.imwrite(str(tmp_path / "QH.png"), render_card(Card.parse("QH"), DESIGNS["classic"]))
    cv2.imwrite(str(tmp_path / "qh.jpg"), render_card(Card.parse("QH"), DESIGNS["classic"]))
    with pytest.raises(ValueError, match="two pictures of QH"):
        read_teaching_folder(tmp_path)


def _damaged_copies(profile: Path) -> dict[str, bytes]:
    whole = profile.read_bytes()
    middle = len(whole) // 2
    garbled = whole[:middle] + bytes(b ^ 0xFF for b in whole[middle : middle + 64])
    return {
        "cut short": whole[:middle],
        "empty": b"",
        "garbled": garbled + whole[middle + 64 :],
    }


def test_a_damaged_profile_is_a_profile_error_naming_its_file(tmp_path: Path) -> None:
    saved = taught_profile().save(tmp_path / "taught")
    for damage, content in _damaged_copies(saved).items():
        damaged = tmp_path / f"{damage.replace(' ', '-')}.npz"
        damaged.write_bytes(content)
        with pytest.raises(ProfileError, match="is damaged") as refused:
            DeckProfile.load(damaged)
        assert str(refused.value).startswith(f"deck profile '{damaged}' is damaged ("), damage
        assert str(refused.value).endswith("): teach the deck again"), damage


def test_a_save_cut_short_leaves_the_profile_as_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    profile = taught_profile()
    path = profile.save(tmp_path)
    before = path.read_bytes()

    def disk_full(file: BinaryIO, *args: object, **kwargs: object) -> None:
        file.write(b"PK\x03\x04 the first bytes of a zip")
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(np, "savez_compressed", disk_full)
    with pytest.raises(OSError, match="No space left"):
        profile.save(tmp_path)
    monkeypatch.undo()
    assert path.read_bytes() == before
    assert DeckProfile.load(path).rank_box == profile.rank_box
    assert [found.name for found in tmp_path.iterdir()] == ["classic.npz"]  # no part left
