"""Frame sources: where the camera's pictures come from.

Everything downstream sees one seam, :class:`FrameSource`: an iterable of
:class:`Frame` (a BGR ``uint8`` image and the time it was taken, in seconds) that can
be closed. A live camera says so (``live = True``: it will not wait for a slow reader,
which then keeps only its newest frames); one that stops giving frames raises
:class:`FrameSourceError` (a file or a folder that runs out simply ends), and offers
``reopen()`` to be started again. Four sources stand behind it:

* :class:`PiCameraSource`: the Raspberry Pi camera through picamera2, which comes from
  the OS packages (``python3-picamera2``) and is imported only when this source opens;
* :class:`VideoCaptureSource`: ``cv2.VideoCapture`` on a USB camera index or a video file;
* :class:`ImageFolderSource`: every image in a folder, in name order;
* :class:`SyntheticSource`: frames from any callable, e.g. the synthetic dealing box.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any, Protocol, Self, runtime_checkable

import cv2
import numpy as np
import numpy.typing as npt

from vision.errors import CameraUnavailableError, FrameSourceError

Image = npt.NDArray[np.uint8]
Clock = Callable[[], float]

IMAGE_SUFFIXES = frozenset({".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp"})


@dataclass(frozen=True)
class Frame:
    """One picture: ``image`` is H×W×3 BGR ``uint8``; ``timestamp`` is in seconds."""

    image: Image
    timestamp: float
    index: int


@runtime_checkable
class FrameSource(Protocol):
    """Anything that yields timestamped BGR frames and can be closed (idempotently)."""

    def __iter__(self) -> Iterator[Frame]: ...

    def close(self) -> None: ...


class _Closing:
    """Context-manager plumbing shared by the sources."""

    def close(self) -> None:  # pragma: no cover - overridden
        raise NotImplementedError

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()


def as_bgr(image: npt.NDArray[Any]) -> Image:
    """Turn a grey, BGR or BGRA ``uint8`` picture into BGR; refuse anything else."""
    if image.dtype != np.uint8:
        raise FrameSourceError(f"frame has dtype {image.dtype}, expected uint8")
    if image.ndim == 2:
        return cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)  # type: ignore[return-value]
    if image.ndim == 3 and image.shape[2] == 3:
        return image
    if image.ndim == 3 and image.shape[2] == 4:
        return cv2.cvtColor(image, cv2.COLOR_BGRA2BGR)  # type: ignore[return-value]
    raise FrameSourceError(f"frame has shape {image.shape}, expected H×W, H×W×3 or H×W×4")


class VideoCaptureSource(_Closing):
    """A USB camera (an ``int`` index) or a video file (a path) through ``cv2.VideoCapture``.

    A file's frames carry the file's own timestamps, so replaying a recording gives the
    same times as when it was dealt; a live camera's frames carry ``clock()``. A file ends
    when its frames run out; a camera that gives no frame (unplugged) is an error.

    A capture is never released while a read is inside it (OpenCV's captures are not to be
    shared by threads: the driver would free what the read still uses): reopened while a
    read is stuck in the driver, the camera is opened afresh, and the stuck capture is
    released by its own read once that comes back out, its frame unused.
    """

    def __init__(
        self,
        device: int | str | Path,
        *,
        width: int | None = None,
        height: int | None = None,
        clock: Clock = time.monotonic,
    ) -> None:
        self.live = isinstance(device, int)
        self._is_file = not self.live
        if not isinstance(device, int) and not Path(device).is_file():
            raise FrameSourceError(f"no such video file: {str(device)!r}")
        self._device = device
        self._size = (width, height)
        self._clock = clock
        self._lock = threading.Lock()
        self._reads_inside: list[cv2.VideoCapture] = []  # the captures a read is inside now
        self._capture = self._open()
        self._closed = False

    def _open(self) -> cv2.VideoCapture:
        device = self._device
        capture = cv2.VideoCapture(device if isinstance(device, int) else str(device))
        if not capture.isOpened():
            capture.release()
            if self.live:
                raise CameraUnavailableError(
                    f"cannot open USB camera {device}: unplugged, or taken by another program?"
                )
            raise FrameSourceError(f"cannot open video source {device!r}")
        width, height = self._size
        if width is not None:
            capture.set(cv2.CAP_PROP_FRAME_WIDTH, width)
        if height is not None:
            capture.set(cv2.CAP_PROP_FRAME_HEIGHT, height)
        return capture

    def reopen(self) -> None:
        """Open the device again, after it gave no frame (a camera plugged back in), or
        after a read stuck in its driver was given up on."""
        with self._lock:
            old = self._capture
            stuck = any(capture is old for capture in self._reads_inside)
        if not stuck:
            old.release()
        capture = self._open()
        with self._lock:
            self._capture = capture
        self._closed = False

    def __iter__(self) -> Iterator[Frame]:
        index = 0
        while not self._closed:
            with self._lock:
                capture = self._capture
                self._reads_inside.append(capture)
            try:
                ok, image = capture.read()
            finally:
                with self._lock:
                    self._reads_inside.remove(capture)
                    replaced = capture is not self._capture
            if replaced:
                capture.release()  # given up on and reopened meanwhile: this read's to release
                return
            if not ok or image is None:
                if self._is_file or self._closed:
                    return
                raise FrameSourceError(
                    f"camera {self._device!r} gave no frame: unplugged, or taken by another "
                    "program?"
                )
            if self._is_file:
                timestamp = self._capture.get(cv2.CAP_PROP_POS_MSEC) / 1000.0
            else:
                timestamp = self._clock()
            yield Frame(as_bgr(image), timestamp, index)
            index += 1

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self._capture.release()


class ImageFolderSource(_Closing):
    """Every picture in a folder, in file-name order, spaced ``1 / fps`` seconds apart.

    Iterated again, it goes on from where it stopped, as a recording does: a picture that
    cannot be read is reported once (:class:`FrameSourceError`) and the pictures after it
    still come, rather than the folder starting over and showing its dealt cards again.
    """

    def __init__(self, folder: str | Path, *, fps: float = 30.0) -> None:
        self._folder = Path(folder)
        if not self._folder.is_dir():
            raise FrameSourceError(f"no such image folder: {str(folder)!r}")
        # A hidden file is never a frame: a folder copied from a Mac holds a "._" file of
        # resource data beside each picture, named like it.
        self._paths = sorted(
            p
            for p in self._folder.iterdir()
            if p.suffix.lower() in IMAGE_SUFFIXES and not p.name.startswith(".")
        )
        if not self._paths:
            raise FrameSourceError(f"no images in {str(folder)!r}")
        self._fps = fps
        self._next = 0

    @property
    def paths(self) -> tuple[Path, ...]:
        return tuple(self._paths)

    def __iter__(self) -> Iterator[Frame]:
        while self._next < len(self._paths):
            index = self._next
            path = self._paths[index]
            self._next += 1
            image = cv2.imread(str(path), cv2.IMREAD_COLOR)
            if image is None:
                raise FrameSourceError(f"not a readable image: {str(path)!r}")
            yield Frame(as_bgr(image), index / self._fps, index)

    def close(self) -> None:
        """Nothing stays open between frames."""


class SyntheticSource(_Closing):
    """``count`` frames made by ``render(index)``, at ``fps`` frames a second."""

    def __init__(self, render: Callable[[int], Image], count: int, *, fps: float = 30.0) -> None:
        if count < 0:
            raise FrameSourceError(f"frame count must not be negative, got {count}")
        self._render = render
        self._count = count
        self._fps = fps

    def __iter__(self) -> Iterator[Frame]:
        for index in range(self._count):
            yield Frame(as_bgr(self._render(index)), index / self._fps, index)

    def close(self) -> None:
        """Nothing to release."""


class CameraOpenedLater(_Closing):
    """A live camera that could not be opened when the table started (unplugged, its driver
    not ready): it fails as a camera that gives no frame does, saying why, until
    ``reopen()``, which the reader calls after a pause as for any camera that failed, opens
    it with ``open_camera``."""

    live = True

    def __init__(self, open_camera: Callable[[], FrameSource], why: str) -> None:
        self._open_camera = open_camera
        self._why = why
        self._camera: FrameSource | None = None

    def __iter__(self) -> Iterator[Frame]:
        if self._camera is None:
            raise FrameSourceError(self._why)
        yield from self._camera

    def reopen(self) -> None:
        if self._camera is None:
            self._camera = self._open_camera()
            return
        reopen: Callable[[], None] | None = getattr(self._camera, "reopen", None)
        if reopen is not None:
            reopen()

    def close(self) -> None:
        if self._camera is not None:
            self._camera.close()


# The size a live camera is asked for: what the recognizer is made and measured for.
CAMERA_WIDTH, CAMERA_HEIGHT = 640, 480


class PiCameraSource(_Closing):
    """The Raspberry Pi camera through picamera2 (from the OS, imported on open).

    ``RGB888`` is libcamera's name for pixels stored B, G, R: exactly OpenCV's order.
    """

    live = True

    def __init__(
        self,
        *,
        width: int = CAMERA_WIDTH,
        height: int = CAMERA_HEIGHT,
        camera_number: int = 0,
        clock: Clock = time.monotonic,
    ) -> None:
        self._size = (width, height)
        self._camera_number = camera_number
        self._camera = self._start()
        self._clock = clock
        self._closed = False

    def _start(self) -> Any:
        try:
            from picamera2 import Picamera2  # type: ignore[import-not-found]
        except ImportError as error:
            raise FrameSourceError(
                "picamera2 is not installed: on Raspberry Pi OS run "
                "'apt-get install python3-picamera2' and make the venv with "
                "--system-site-packages"
            ) from error
        try:
            camera = Picamera2(self._camera_number)
            config = camera.create_video_configuration(
                main={"size": self._size, "format": "RGB888"}
            )
            camera.configure(config)
            camera.start()
        except Exception as error:  # libcamera raises plain RuntimeErrors and IndexErrors
            raise CameraUnavailableError(
                f"cannot start Pi camera {self._camera_number}: {error}"
            ) from error
        return camera

    def reopen(self) -> None:
        """Start the camera again, after its driver failed (libcamera timed out)."""
        with contextlib.suppress(Exception):  # a failed camera may fail to stop too
            self._camera.stop()
            self._camera.close()
        self._camera = self._start()
        self._closed = False

    def __iter__(self) -> Iterator[Frame]:
        index = 0
        while not self._closed:
            image = self._camera.capture_array("main")
            yield Frame(as_bgr(np.ascontiguousarray(image[:, :, :3])), self._clock(), index)
            index += 1

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self._camera.stop()
            self._camera.close()
