from __future__ import annotations

import itertools
from pathlib import Path

import cv2
import numpy as np
import pytest

from table.cards import Card
from vision.errors import FrameSourceError, VisionError
from vision.frames import (
    FrameSource,
    ImageFolderSource,
    PiCameraSource,
    SyntheticSource,
    VideoCaptureSource,
    as_bgr,
)
from vision.synthetic import DESIGNS, render_card


def _picture(value: int) -> np.ndarray:
    return np.full((48, 64, 3), value, np.uint8)


def test_image_folder_gives_every_picture_in_name_order_with_spaced_timestamps(
    tmp_path: Path,
) -> None:
    for name, value in (("b.png", 20), ("a.png", 10), ("c.jpg", 30)):
        cv2.imwrite(str(tmp_path / name), _picture(value))
    (tmp_path / "notes.txt").write_text("not a picture")
    with ImageFolderSource(tmp_path, fps=10) as source:
        assert isinstance(source, FrameSource)
        frames = list(source)
    assert [int(f.image[0, 0, 0]) for f in frames] == [10, 20, 30]
    assert [f.timestamp for f in frames] == pytest.approx([0.0, 0.1, 0.2])
    assert all(f.image.shape == (48, 64, 3) for f in frames)


def test_a_folder_copied_from_a_mac_gives_its_pictures_not_their_resource_files(
    tmp_path: Path,
) -> None:
    for name, value in (("0001.png", 10), ("0002.png", 20)):
        cv2.imwrite(str(tmp_path / name), _picture(value))
        (tmp_path / f"._{name}").write_bytes(b"\x00\x05\x16\x07 AppleDouble resource data")
    frames = list(ImageFolderSource(tmp_path))
    assert [int(frame.image[0, 0, 0]) for frame in frames] == [10, 20]


def test_image_folder_refuses_a_missing_or_empty_folder(tmp_path: Path) -> None:
    with pytest.raises(FrameSourceError, match="no such image folder"):
        ImageFolderSource(tmp_path / "absent")
    with pytest.raises(FrameSourceError, match="no images"):
        ImageFolderSource(tmp_path)


def test_a_corrupt_image_in_the_folder_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "a.png").write_bytes(b"not really a png")
    with pytest.raises(FrameSourceError, match="not a readable image"):
        list(ImageFolderSource(tmp_path))


def test_a_folder_goes_on_past_a_corrupt_image_rather_than_starting_over(
    tmp_path: Path,
) -> None:
    for name, value in (("a.png", 10), ("c.png", 30)):
        cv2.imwrite(str(tmp_path / name), _picture(value))
    (tmp_path / "b.png").write_bytes(b"cut short by the copy")
    source = ImageFolderSource(tmp_path, fps=10)
    shown: list[int] = []
    with pytest.raises(FrameSourceError, match=r"b\.png"):
        shown.extend(int(frame.image[0, 0, 0]) for frame in source)
    # Taken up again (the service reopens a source that failed), it shows what came after.
    later = list(source)
    assert shown == [10]
    assert [int(frame.image[0, 0, 0]) for frame in later] == [30]
    assert [frame.index for frame in later] == [2]
    assert later[0].timestamp == pytest.approx(0.2)


def test_video_file_replays_its_frames_with_the_files_own_times(tmp_path: Path) -> None:
    path = tmp_path / "deal.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*"MJPG"), 10.0, (640, 480))
    card = render_card(Card.parse("QH"), DESIGNS["classic"])
    for _ in range(5):
        writer.write(card)
    writer.release()
    with VideoCaptureSource(path) as source:
        frames = list(source)
    assert len(frames) == 5
    assert frames[0].image.shape == (480, 640, 3)
    assert [f.index for f in frames] == [0, 1, 2, 3, 4]
    assert frames[-1].timestamp > frames[0].timestamp


class LiveReplay(VideoCaptureSource):
    """A recording played as a live camera: running out of frames is losing the camera."""

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self._is_file = False


def test_a_live_camera_that_gives_no_frame_is_an_error_and_reopens(tmp_path: Path) -> None:
    path = tmp_path / "deal.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*"MJPG"), 10.0, (640, 480))
    for _ in range(3):
        writer.write(render_card(Card.parse("QH"), DESIGNS["classic"]))
    writer.release()
    camera = LiveReplay(path)
    frames = []
    with pytest.raises(FrameSourceError, match="gave no frame: unplugged"):
        frames.extend(camera)
    assert len(frames) == 3
    camera.reopen()  # plugged back in
    assert len(list(itertools.islice(camera, 2))) == 2
    camera.close()
    assert list(camera) == []  # a closed camera ends, with no error


def test_a_missing_video_file_is_refused_as_a_vision_error(tmp_path: Path) -> None:
    with pytest.raises(VisionError, match="no such video file"):
        VideoCaptureSource(tmp_path / "nothing.mp4")
    with pytest.raises(ValueError, match="no such video file"):
        VideoCaptureSource(str(tmp_path / "nothing.mp4"))


def test_synthetic_source_times_frames_by_its_rate() -> None:
    source = SyntheticSource(lambda i: _picture(i), 3, fps=30)
    frames = list(source)
    assert [int(f.image[0, 0, 0]) for f in frames] == [0, 1, 2]
    assert frames[2].timestamp == pytest.approx(2 / 30)
    source.close()
    source.close()  # closing twice is harmless


def test_grey_and_bgra_pictures_become_bgr_and_others_are_refused() -> None:
    assert as_bgr(np.zeros((4, 5), np.uint8)).shape == (4, 5, 3)
    assert as_bgr(np.zeros((4, 5, 4), np.uint8)).shape == (4, 5, 3)
    with pytest.raises(FrameSourceError, match="dtype"):
        as_bgr(np.zeros((4, 5, 3), np.float32))
    with pytest.raises(FrameSourceError, match="shape"):
        as_bgr(np.zeros((4, 5, 2), np.uint8))


def test_pi_camera_without_picamera2_says_how_to_install_it() -> None:
    try:
        import picamera2  # type: ignore[import-not-found]  # noqa: F401
    except ImportError:
        pass
    else:
        pytest.skip("picamera2 is installed here: this checks the message where it is not")
    with pytest.raises(FrameSourceError, match="python3-picamera2"):
        PiCameraSource()
