"""The barcode shoe: card stickers in Code 128, read from frames or from a serial scanner.

Payload, format 1 (plain ASCII, so any scanner types it as a line)::

    DT1-<card>-<deck>        e.g.  DT1-QH-01   DT1-10S-12

* ``DT`` marks a dealtable sticker and ``1`` is the payload format version;
* ``<card>`` is the card's code, rank then suit (``A 2 … 10 J Q K`` and ``S H D C``);
* ``<deck>`` is the deck's number within the shoe, two digits, 01 to 99, so a shoe of
  several decks can tell its two queens of hearts apart.

Code 128 carries its own check character, so a misread bar decodes to nothing rather than
to another card; anything that does decode but is not a payload above is refused by name.
"""

from __future__ import annotations

import contextlib
import os
import re
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import cv2
import numpy as np
import serial  # type: ignore[import-untyped]
import zxingcpp

from table.cards import STANDARD_52, Card, DeckSpec
from table.errors import CardParseError
from vision.errors import BarcodeError, ScannerError
from vision.frames import Image

PAYLOAD_VERSION = 1
MAX_DECKS = 99
_PAYLOAD = re.compile(r"^DT(\d+)-([0-9AJQKT]{1,2}[SHDC])-(\d{2})$")


@dataclass(frozen=True)
class CardCode:
    """What one sticker says."""

    card: Card
    deck_number: int
    version: int = PAYLOAD_VERSION

    @property
    def payload(self) -> str:
        return encode_payload(self.card, self.deck_number)


def encode_payload(card: Card, deck_number: int) -> str:
    if not 1 <= deck_number <= MAX_DECKS:
        raise BarcodeError(f"deck number must be 1 to {MAX_DECKS}, got {deck_number}")
    return f"DT{PAYLOAD_VERSION}-{card.code}-{deck_number:02d}"


def decode_payload(text: str) -> CardCode:
    """Read a payload; refuse anything else with a message naming what was seen."""
    cleaned = text.strip().upper()
    match = _PAYLOAD.match(cleaned)
    if match is None:
        raise BarcodeError(f"not a dealtable card code: {text[:40]!r}")
    version, card_text, deck_text = match.groups()
    if int(version) != PAYLOAD_VERSION:
        raise BarcodeError(
            f"card code {cleaned!r} has payload format {version}; this reader knows "
            f"format {PAYLOAD_VERSION}"
        )
    deck_number = int(deck_text)
    if not 1 <= deck_number <= MAX_DECKS:
        raise BarcodeError(f"card code {cleaned!r} has deck number 00")
    try:
        card = Card.parse(card_text)
    except CardParseError as error:
        raise BarcodeError(f"card code {cleaned!r}: {error}") from None
    return CardCode(card, deck_number, int(version))


# --- stickers ---------------------------------------------------------------------------

STICKER_WIDTH = 360  # pixels at 150 dpi: 61 mm, two pixels a bar module
STICKER_HEIGHT = 150  # 25 mm
PAGE_WIDTH = 1240  # A4 at 150 dpi
PAGE_HEIGHT = 1754
_COLUMNS = 3
_ROWS = 11


def sticker(code: CardCode) -> Image:
    """One sticker: the bars with the card and deck printed underneath for people."""
    bars = np.asarray(
        zxingcpp.create_barcode(code.payload, zxingcpp.BarcodeFormat.Code128).to_image(scale=1)
    )
    # Whole pixels per bar module, never squeezed: a resampled bar edge misreads.
    module = max(1, STICKER_WIDTH // bars.shape[1])
    bars = np.repeat(bars[:1], STICKER_HEIGHT - 46, axis=0)
    bars = np.repeat(bars, module, axis=1)[:, :STICKER_WIDTH]
    label = np.full((STICKER_HEIGHT, STICKER_WIDTH), 255, np.uint8)
    left = (STICKER_WIDTH - bars.shape[1]) // 2
    label[8 : 8 + bars.shape[0], left : left + bars.shape[1]] = bars
    text = f"{code.card.code}  deck {code.deck_number}"
    cv2.putText(
        label, text, (16, STICKER_HEIGHT - 12), cv2.FONT_HERSHEY_SIMPLEX, 0.8, 0, 2, cv2.LINE_AA
    )
    return cv2.cvtColor(label, cv2.COLOR_GRAY2BGR)  # type: ignore[return-value]


def sticker_pages(decks: int, deck: DeckSpec = STANDARD_52) -> list[Image]:
    """A4 pages (150 dpi) of stickers for ``decks`` decks, deck by deck in deck order."""
    if not 1 <= decks <= MAX_DECKS:
        raise BarcodeError(f"number of decks must be 1 to {MAX_DECKS}, got {decks}")
    codes = [CardCode(card, number) for number in range(1, decks + 1) for card in deck]
    per_page = _COLUMNS * _ROWS
    margin_x = (PAGE_WIDTH - _COLUMNS * STICKER_WIDTH) // (_COLUMNS + 1)
    margin_y = (PAGE_HEIGHT - _ROWS * STICKER_HEIGHT) // (_ROWS + 1)
    pages = []
    for start in range(0, len(codes), per_page):
        page = np.full((PAGE_HEIGHT, PAGE_WIDTH, 3), 255, np.uint8)
        for slot, code in enumerate(codes[start : start + per_page]):
            row, column = divmod(slot, _COLUMNS)
            x = margin_x + column * (STICKER_WIDTH + margin_x)
            y = margin_y + row * (STICKER_HEIGHT + margin_y)
            page[y : y + STICKER_HEIGHT, x : x + STICKER_WIDTH] = sticker(code)
            cv2.rectangle(page, (x, y), (x + STICKER_WIDTH, y + STICKER_HEIGHT), (200, 200, 200))
        pages.append(page)
    return pages


def write_sticker_sheets(decks: int, out: str | Path, deck: DeckSpec = STANDARD_52) -> Path:
    """Write the sticker pages: one PDF with a page each, or one tall PNG."""
    out = Path(out)
    suffix = out.suffix.lower()
    if suffix not in (".pdf", ".png"):
        raise BarcodeError(f"sticker sheets are written as .pdf or .png, not {out.suffix!r}")
    pages = sticker_pages(decks, deck)
    # Written beside and renamed once whole: a write cut short (the disk full) leaves no
    # half sheet to print, and a sheet that was there as it was.
    part = out.with_name(f".{out.stem}.{os.getpid()}.part{out.suffix}")
    try:
        if suffix == ".pdf":
            part.write_bytes(_pdf(pages))
        elif not cv2.imwrite(str(part), np.vstack(pages)):
            raise BarcodeError(f"cannot write {str(out)!r}")
        os.replace(part, out)
    except OSError as error:
        raise BarcodeError(f"cannot write {str(out)!r}: {error.strerror or error}") from None
    finally:
        part.unlink(missing_ok=True)
    return out


def _pdf(pages: list[Image]) -> bytes:
    """A minimal PDF: one grey image per A4 page, Flate-compressed. No dependency needed."""
    objects: list[bytes] = []
    page_ids = []
    # 1: catalog, 2: pages; then per page: page, content, image.
    for index, page in enumerate(pages):
        grey = cv2.cvtColor(page, cv2.COLOR_BGR2GRAY)
        page_id, content_id, image_id = 3 + 3 * index, 4 + 3 * index, 5 + 3 * index
        page_ids.append(page_id)
        drawing = b"q 595 0 0 842 0 0 cm /Im0 Do Q"
        objects.append(
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources "
            f"<< /XObject << /Im0 {image_id} 0 R >> >> /Contents {content_id} 0 R >>".encode()
        )
        objects.append(b"<< /Length %d >>\nstream\n" % len(drawing) + drawing + b"\nendstream")
        data = zlib.compress(grey.tobytes())
        objects.append(
            (
                f"<< /Type /XObject /Subtype /Image /Width {grey.shape[1]} /Height "
                f"{grey.shape[0]} /ColorSpace /DeviceGray /BitsPerComponent 8 "
                f"/Filter /FlateDecode /Length {len(data)} >>\nstream\n"
            ).encode()
            + data
            + b"\nendstream"
        )
    kids = " ".join(f"{pid} 0 R" for pid in page_ids)
    head = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        f"<< /Type /Pages /Kids [{kids}] /Count {len(pages)} >>".encode(),
    ]
    body = b"%PDF-1.4\n"
    offsets = []
    for number, content in enumerate(head + objects, start=1):
        offsets.append(len(body))
        body += b"%d 0 obj\n" % number + content + b"\nendobj\n"
    xref = len(body)
    body += b"xref\n0 %d\n0000000000 65535 f \n" % (len(offsets) + 1)
    body += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    body += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(offsets) + 1,
        xref,
    )
    return body


# --- reading ----------------------------------------------------------------------------


@dataclass(frozen=True)
class BarcodeReading:
    """One decoded code: the card it names, or why it names none."""

    text: str
    code: CardCode | None
    problem: str = ""


def barcode_reading(text: str) -> BarcodeReading:
    """The reading of one code's text, as a scanner sends it."""
    try:
        return BarcodeReading(text, decode_payload(text))
    except BarcodeError as error:
        return BarcodeReading(text, None, str(error))


def read_frame_barcodes(image: Image) -> list[BarcodeReading]:
    """Every Code 128 in a frame. A torn or half-hidden code decodes to nothing at all
    (its check character fails); a foreign code comes back with its problem named."""
    found = zxingcpp.read_barcodes(
        image, formats=zxingcpp.BarcodeFormats(zxingcpp.BarcodeFormat.Code128)
    )
    return [barcode_reading(barcode.text) for barcode in found if barcode.valid]


class SerialPort(Protocol):
    def readline(self) -> bytes: ...

    def close(self) -> None: ...


Opener = Callable[..., Any]


_LINE_END = re.compile(rb"[\r\n]")


class SerialScanner:
    """A scanner that types one line per code over serial (USB-serial, Bluetooth SPP…),
    each ended by CR, LF or CR LF as the scanner is set, or by nothing at all.

    ``url`` is anything ``serial.serial_for_url`` takes: ``/dev/ttyACM0``,
    ``hwgrep://Scanner``, ``socket://host:port``, ``loop://``. A half line left when the
    read times out is kept until its end arrives; a port that vanishes raises
    :class:`ScannerError` once, and the scanner is closed.

    A scanner whose suffix is set to none sends each code in one burst with nothing after
    it: a half line that is one of our stickers whole, with nothing after it for
    :attr:`code_quiet` seconds (on ``clock``), is its code (a part of a sticker is never a
    whole one); any other, after :attr:`line_quiet`, is read as a code sent with no line end.
    """

    code_quiet = 0.05
    line_quiet = 1.0

    def __init__(
        self,
        url: str,
        *,
        baudrate: int = 9600,
        # None waiting: the table's loop reads the scanner between everything else, and a
        # read that waited for a code would hold the cards and the buttons back meanwhile.
        timeout: float = 0,
        opener: Opener = serial.serial_for_url,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        try:
            self.port: Any = opener(url, baudrate=baudrate, timeout=timeout)
        except (serial.SerialException, ValueError, OSError) as error:
            raise ScannerError(f"cannot open barcode scanner {url!r}: {error}") from error
        self.url = url
        self._clock = clock
        self._pending = b""
        self._last_byte_at = clock()  # when the last bytes of the half line came
        self._closed = False

    def read(self) -> BarcodeReading | None:
        """The next complete line as a reading, or None if none has arrived yet (never
        waiting for one, unless the port was opened with a ``timeout``)."""
        if self._closed:
            raise ScannerError(f"barcode scanner {self.url!r} is closed")
        text = self._next_line()
        # Twice at most: a read that brought only the LF of a CR LF whose CR came with the
        # code before brought no line, and the next code may be waiting behind it.
        for _ in range(2):
            if text is not None:
                break
            try:
                chunk = self.port.readline()
            except (serial.SerialException, OSError) as error:
                self.close()
                raise ScannerError(f"barcode scanner {self.url!r} disconnected: {error}") from error
            if chunk:
                self._last_byte_at = self._clock()
            self._pending += chunk
            text = self._next_line()
            if not chunk.endswith(b"\n"):
                break  # the read timed out: nothing more has arrived
        if text is None:
            if len(self._pending) > 256:
                self._pending = b""  # a scanner babbling without line ends: drop it
                return BarcodeReading("", None, "overlong line without an end from the scanner")
            return self._unended()
        return barcode_reading(text)

    def _unended(self) -> BarcodeReading | None:
        """The half line as a code, once nothing has followed it for long enough (see the
        class's docstring); None while it may yet go on."""
        text = self._pending.decode("ascii", errors="replace").strip()
        if not text:
            return None
        quiet = self._clock() - self._last_byte_at
        reading = barcode_reading(text)
        if reading.code is not None and quiet >= self.code_quiet:
            self._pending = b""
            return reading
        if quiet >= self.line_quiet:
            self._pending = b""
            return BarcodeReading(
                text,
                None,
                f"{text[:40]!r} came with no line end after it: set the scanner to end each "
                "code with CR or LF",
            )
        return None

    def _next_line(self) -> str | None:
        """The first line with something on it among those that have arrived whole, taken
        out of what is pending. A scanner may end its codes with CR, LF or both, so either
        ends a line; a CR LF leaves an empty line between the two, skipped like any other."""
        while (end := _LINE_END.search(self._pending)) is not None:
            line = self._pending[: end.start()]
            self._pending = self._pending[end.end() :]
            text = line.decode("ascii", errors="replace").strip()
            if text:
                return text
        return None

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            with contextlib.suppress(serial.SerialException, OSError):
                self.port.close()  # may be gone already


__all__ = [
    "BarcodeReading",
    "CardCode",
    "SerialScanner",
    "barcode_reading",
    "decode_payload",
    "encode_payload",
    "read_frame_barcodes",
    "sticker_pages",
    "write_sticker_sheets",
]
