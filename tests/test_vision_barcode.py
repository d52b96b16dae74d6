from __future__ import annotations

import os
import tty
from pathlib import Path

import cv2
import numpy as np
import pytest
import serial  # type: ignore[import-untyped]

from table.cards import STANDARD_52, Card
from vision.barcode import (
    CardCode,
    SerialScanner,
    decode_payload,
    encode_payload,
    read_frame_barcodes,
    sticker,
    sticker_pages,
    write_sticker_sheets,
)
from vision.errors import BarcodeError, ScannerError


def test_every_card_and_deck_number_round_trips_through_its_payload() -> None:
    for deck_number in (1, 8, 99):
        for card in STANDARD_52:
            payload = encode_payload(card, deck_number)
            assert decode_payload(payload) == CardCode(card, deck_number)
    assert encode_payload(Card.parse("10H"), 3) == "DT1-10H-03"


@pytest.mark.parametrize(
    "text",
    ["", "hello", "DT1-QH", "DT1-XH-01", "DT1-QZ-01", "DT1-QH-00", "DT2-QH-01", "4006381333931"],
)
def test_garbage_and_foreign_payloads_are_refused_by_name(text: str) -> None:
    with pytest.raises(BarcodeError):
        decode_payload(text)
    with pytest.raises(ValueError, match=r"card code|not a dealtable"):
        decode_payload(text)


def test_deck_numbers_outside_1_to_99_are_refused() -> None:
    with pytest.raises(BarcodeError, match="1 to 99"):
        encode_payload(Card.parse("AS"), 100)


def test_a_sticker_is_read_back_from_a_tilted_noisy_photo() -> None:
    code = CardCode(Card.parse("QH"), 2)
    label = sticker(code)
    photo = np.full((480, 640, 3), 90, np.uint8)
    photo[160:310, 140:500] = label
    turn = cv2.getRotationMatrix2D((320, 240), 12, 1.0)
    photo = np.asarray(cv2.warpAffine(photo, turn, (640, 480), borderValue=(90, 90, 90)), np.uint8)
    photo = np.asarray(cv2.GaussianBlur(photo, (3, 3), 0), np.uint8)
    noisy = photo.astype(np.int16) + np.random.default_rng(1).normal(0, 5, photo.shape)
    readings = read_frame_barcodes(np.clip(noisy, 0, 255).astype(np.uint8))
    assert [r.code for r in readings] == [code]


def test_half_a_sticker_reads_as_nothing_never_as_another_card() -> None:
    label = sticker(CardCode(Card.parse("7S"), 1))
    photo = np.full((300, 500, 3), 255, np.uint8)
    photo[50:200, 50:230] = label[:, :180]  # the right half is under the dealer's thumb
    assert read_frame_barcodes(photo) == []


def test_a_foreign_barcode_in_view_is_reported_not_read_as_a_card() -> None:
    import zxingcpp

    bars = np.asarray(
        zxingcpp.create_barcode("SHIP-0042", zxingcpp.BarcodeFormat.Code128).to_image(scale=3)
    )
    readings = read_frame_barcodes(np.asarray(cv2.cvtColor(bars, cv2.COLOR_GRAY2BGR), np.uint8))
    assert len(readings) == 1
    assert readings[0].code is None
    assert "not a dealtable card code" in readings[0].problem


def test_sticker_sheets_for_two_decks_hold_every_card_twice(tmp_path: Path) -> None:
    pages = sticker_pages(2)
    assert len(pages) == 4  # 104 stickers, 33 a page
    found = [r.code.payload for page in pages for r in read_frame_barcodes(page) if r.code]
    expected = [CardCode(card, n).payload for n in (1, 2) for card in STANDARD_52]
    assert sorted(found) == sorted(expected)
    png = write_sticker_sheets(1, tmp_path / "stickers.png")
    sheet = cv2.imread(str(png))
    assert sheet is not None
    assert sheet.shape[0] == 2 * 1754  # 52 stickers: two pages
    pdf = write_sticker_sheets(1, tmp_path / "stickers.pdf").read_bytes()
    assert pdf.startswith(b"%PDF-1.4")
    assert pdf.count(b"/Type /Page ") == 2
    assert pdf.rstrip().endswith(b"%%EOF")
    with pytest.raises(BarcodeError, match=r"\.pdf or \.png"):
        write_sticker_sheets(1, tmp_path / "stickers.gif")


def test_a_serial_scanner_types_a_line_per_code_over_loop() -> None:
    scanner = SerialScanner("loop://", timeout=0.01)
    scanner.port.write(b"DT1-QH-01\r\nDT1-10S-02\r\n")
    first, second = scanner.read(), scanner.read()
    assert first is not None
    assert first.code == CardCode(Card.parse("QH"), 1)
    assert second is not None
    assert second.code == CardCode(Card.parse("10S"), 2)
    assert scanner.read() is None  # nothing more has arrived
    scanner.close()


def test_a_line_split_across_reads_is_joined_and_garbage_is_named() -> None:
    scanner = SerialScanner("loop://", timeout=0.01)
    scanner.port.write(b"DT1-K")
    assert scanner.read() is None
    scanner.port.write(b"D-05\n#*garbage\n")
    joined = scanner.read()
    assert joined is not None
    assert joined.code == CardCode(Card.parse("KD"), 5)
    garbage = scanner.read()
    assert garbage is not None
    assert garbage.code is None
    assert "not a dealtable card code" in garbage.problem


def test_a_part_of_a_sticker_waits_for_the_rest_however_late_it_comes() -> None:
    """A code is taken without its line end only once it is one of our stickers whole, or
    after a second of nothing: a part of one, its rest held up a moment, is never a code."""
    now = [0.0]
    scanner = SerialScanner("loop://", clock=lambda: now[0])
    scanner.port.write(b"DT1-10S-0")
    assert scanner.read() is None
    now[0] += 0.5
    assert scanner.read() is None
    scanner.port.write(b"2\r\n")
    joined = scanner.read()
    assert joined is not None and joined.code == CardCode(Card.parse("10S"), 2)
    assert scanner.read() is None
    scanner.close()


def test_a_scanner_ending_its_codes_with_cr_alone_gives_a_reading_per_code() -> None:
    scanner = SerialScanner("loop://", timeout=0.01)
    scanner.port.write(b"DT1-5S-01\rDT1-KD-01\r")
    readings = [scanner.read(), scanner.read()]
    assert [r.code.card.code if r and r.code else r for r in readings] == ["5S", "KD"]
    assert scanner.read() is None
    scanner.close()


def test_a_cr_lf_split_across_reads_ends_one_line_not_two() -> None:
    scanner = SerialScanner("loop://", timeout=0.01)
    scanner.port.write(b"DT1-QH-01\r")
    first = scanner.read()
    assert first is not None
    assert first.code == CardCode(Card.parse("QH"), 1)
    # The LF that completes the CR LF must not stand in the way of the code after it.
    scanner.port.write(b"\nDT1-2C-03\r\n")
    second = scanner.read()
    assert second is not None
    assert second.code == CardCode(Card.parse("2C"), 3)
    assert scanner.read() is None
    scanner.close()


def test_an_unplugged_scanner_raises_a_scanner_error_once() -> None:
    controller, device = os.openpty()
    tty.setraw(device)
    scanner = SerialScanner(os.ttyname(device), timeout=0.05)
    os.write(controller, b"DT1-AS-01\n")
    reading = scanner.read()
    assert reading is not None
    assert reading.code == CardCode(Card.parse("AS"), 1)
    os.close(controller)  # the USB cable is pulled

    def read_until_gone() -> None:
        for _ in range(5):
            scanner.read()

    with pytest.raises(ScannerError, match="disconnected"):
        read_until_gone()
    with pytest.raises(ScannerError, match="closed"):
        scanner.read()
    os.close(device)


def test_a_scanner_read_between_the_tables_other_work_waits_for_nothing() -> None:
    """The table's loop reads the scanner between cards, buttons and commands: the port is
    read without waiting (a read that waited for a code would hold all of them back), a
    code that comes in two halves is read once whole, and a pulled cable is still found."""
    opened: list[dict[str, object]] = []

    def recording(url: str, **settings: object) -> object:
        opened.append(settings)
        return serial.serial_for_url(url, **settings)

    SerialScanner("loop://", opener=recording).close()
    assert opened[0]["timeout"] == 0
    controller, device = os.openpty()
    tty.setraw(device)
    scanner = SerialScanner(os.ttyname(device))
    assert scanner.read() is None
    os.write(controller, b"DT1-")
    assert scanner.read() is None
    os.write(controller, b"KH-02\r\n")
    reading = scanner.read()
    assert reading is not None and reading.code == CardCode(Card.parse("KH"), 2)
    assert scanner.read() is None
    os.close(controller)  # the USB cable is pulled
    with pytest.raises(ScannerError, match="disconnected"):
        scanner.read()
    os.close(device)


def test_a_scanner_that_cannot_be_opened_is_a_scanner_error() -> None:
    with pytest.raises(ScannerError, match="cannot open"):
        SerialScanner("/dev/does-not-exist-scanner")
    with pytest.raises(ScannerError):
        SerialScanner("nonsense://x")
    assert issubclass(ScannerError, ValueError)
    assert serial.SerialException is not None
