from __future__ import annotations

from collections.abc import Sequence

import pytest
from vision_fixtures import TEST_DESIGN, taught_profile

from table.cards import STANDARD_52, Card
from table.service.reading_filter import (
    AlarmKind,
    CardAccepted,
    ConfirmRequest,
    ReaderAlarm,
    ReadingFilter,
    ReadingSource,
)
from vision.barcode import BarcodeReading, CardCode, barcode_reading
from vision.recognize import CardReading, ReadingStatus, Recognizer
from vision.synthetic import DESIGNS, deal_video

QH, KS, TWO_D = Card.parse("QH"), Card.parse("KS"), Card.parse("2D")


def sure(card: Card) -> CardReading:
    return CardReading(ReadingStatus.CARD, card, 0.9, None, 0.5, guess=card)


def unsure(card: Card, runner_up: Card) -> CardReading:
    return CardReading(ReadingStatus.UNCERTAIN, None, 0.65, runner_up, 0.6, guess=card)


def status(kind: ReadingStatus) -> CardReading:
    return CardReading(kind, detail=kind.value)


def feed(reading_filter: ReadingFilter, *readings: CardReading) -> list[object]:
    outputs: list[object] = []
    for index, reading in enumerate(readings):
        outputs += reading_filter.camera(reading, index / 30)
    return outputs


def accepted(outputs: Sequence[object]) -> list[Card]:
    return [o.card for o in outputs if isinstance(o, CardAccepted)]


def alarms(outputs: Sequence[object]) -> list[AlarmKind]:
    return [o.kind for o in outputs if isinstance(o, ReaderAlarm)]


def test_a_card_is_accepted_once_n_frames_agree_and_only_once() -> None:
    f = ReadingFilter(agree_frames=3)
    assert accepted(feed(f, sure(QH), sure(QH))) == []
    assert accepted(feed(f, sure(QH))) == [QH]
    assert feed(f, *[sure(QH)] * 20) == []


def test_the_number_of_agreeing_frames_is_configurable() -> None:
    assert accepted(feed(ReadingFilter(agree_frames=5), *[sure(QH)] * 4)) == []
    assert accepted(feed(ReadingFilter(agree_frames=5), *[sure(QH)] * 5)) == [QH]
    with pytest.raises(ValueError, match="at least 1"):
        ReadingFilter(agree_frames=0)


def test_a_flicker_of_another_card_breaks_the_run() -> None:
    f = ReadingFilter(agree_frames=3)
    assert accepted(feed(f, sure(QH), sure(QH), sure(KS), sure(QH), sure(QH))) == []
    assert accepted(feed(f, sure(QH))) == [QH]


def test_covered_and_moving_frames_are_ignored_without_breaking_the_run() -> None:
    f = ReadingFilter(agree_frames=3)
    hand = status(ReadingStatus.OBSTRUCTED)
    outputs = feed(f, sure(QH), hand, hand, sure(QH), status(ReadingStatus.BAD_FRAME), sure(QH))
    assert accepted(outputs) == [QH]


def test_the_same_card_after_a_hand_passes_is_not_a_new_card() -> None:
    f = ReadingFilter(agree_frames=2)
    hand = status(ReadingStatus.OBSTRUCTED)
    empty = status(ReadingStatus.NO_CARD)
    outputs = feed(f, sure(QH), sure(QH), hand, sure(QH), sure(QH), empty, sure(QH), sure(QH))
    assert accepted(outputs) == [QH]
    assert alarms(outputs) == []


def test_a_hand_covering_the_whole_box_does_not_break_the_run_of_the_card_under_it() -> None:
    """A hand over the whole box shows nothing card-like: it reads as no card, as an empty box
    does. Frames of it between two sightings of one card neither count nor break the run, or a
    card dealt briskly, read once before the hand and twice after it, is never taken."""
    f = ReadingFilter(agree_frames=3)
    hand, covered = status(ReadingStatus.NO_CARD), status(ReadingStatus.OBSTRUCTED)
    outputs = feed(f, sure(QH), covered, hand, hand, sure(QH), sure(QH), covered)
    assert accepted(outputs + feed(f, sure(KS), sure(KS), sure(KS))) == [QH, KS]


def test_a_card_read_surely_often_but_never_in_a_row_is_asked_about_before_the_next() -> None:
    """A card read surely as often as a card needs, but never that often in a row (a hand
    made one frame unsure), is a card that came out: when the next card is read, the dealer
    is asked about it, and the next card waits behind the answer."""
    f = ReadingFilter(agree_frames=3)
    covered = status(ReadingStatus.OBSTRUCTED)
    outputs = feed(f, sure(QH), unsure(QH, KS), sure(QH), sure(QH), covered, *[sure(KS)] * 3)
    assert accepted(outputs) == [] and alarms(outputs) == []
    [question] = [o for o in outputs if isinstance(o, ConfirmRequest)]
    assert question.guess == QH
    assert "QH" in question.message and "before KS" in question.message
    assert accepted(f.confirm_guess(1.0)) == [QH, KS]


def test_a_card_whose_reading_flickers_between_two_is_asked_about_once() -> None:
    """A card read now as one card, now as another, frame after frame, is as unsure as one
    read uncertainly: the dealer is asked which it is, once, while it lies in the box."""
    f = ReadingFilter(agree_frames=3, confirm_after_frames=8)
    flicker = [unsure(QH, TWO_D), unsure(TWO_D, QH)]
    outputs = feed(f, *flicker * 30)
    [question] = [o for o in outputs if isinstance(o, ConfirmRequest)]
    assert set(question.choices) == {QH, TWO_D}
    assert question.guess is None  # read as often as each other: the button takes neither
    assert alarms(outputs) == []
    assert f.confirm_guess(1.0) == []
    assert accepted(f.confirm(TWO_D, 1.0)) == [TWO_D]
    outputs = feed(f, *flicker * 30, *[sure(KS)] * 3)
    assert accepted(outputs) == [KS]
    assert alarms(outputs) == [] and not [o for o in outputs if isinstance(o, ConfirmRequest)]


def test_a_card_seen_once_and_again_after_a_long_empty_box_starts_afresh() -> None:
    f = ReadingFilter(agree_frames=3, empty_frames=15)
    empty = status(ReadingStatus.NO_CARD)
    assert accepted(feed(f, sure(QH), sure(QH), *[empty] * 15, sure(QH), sure(QH))) == []
    assert accepted(feed(f, sure(QH))) == [QH]


def test_a_brisk_deal_with_a_hand_over_the_box_every_other_card_loses_no_card() -> None:
    order = [STANDARD_52.cards[i] for i in (0, 14, 27, 40, 12, 51)]
    recognizer = Recognizer(taught_profile())
    f = ReadingFilter(agree_frames=3)
    outputs: list[object] = []
    frames = deal_video(order, DESIGNS[TEST_DESIGN], seed=1, hand_every=2, seconds_per_card=0.25)
    for frame in frames:
        outputs += f.camera(recognizer.read(frame.image), frame.timestamp)
    assert accepted(outputs) == order
    assert alarms(outputs) == []


def test_a_second_sighting_of_an_earlier_card_is_an_alarm_not_a_card() -> None:
    f = ReadingFilter(agree_frames=2)
    outputs = feed(f, sure(QH), sure(QH), sure(KS), sure(KS), sure(QH), sure(QH), sure(QH))
    assert accepted(outputs) == [QH, KS]
    raised = [o for o in outputs if isinstance(o, ReaderAlarm)]
    assert [a.kind for a in raised] == [AlarmKind.SEEN_BEFORE]
    assert "QH was already dealt as card 1" in raised[0].message
    assert f.dealt == [QH, KS]


def test_an_uncertain_card_asks_the_dealer_instead_of_guessing() -> None:
    f = ReadingFilter(agree_frames=3, confirm_after_frames=6)
    outputs = feed(f, *[unsure(TWO_D, QH)] * 10)
    assert accepted(outputs) == []
    questions = [o for o in outputs if isinstance(o, ConfirmRequest)]
    assert len(questions) == 1
    assert questions[0].choices == (TWO_D, QH)
    assert "2D or QH" in questions[0].message
    assert f.question == questions[0]
    answer = f.confirm(QH, 1.0)
    assert answer == [CardAccepted(QH, ReadingSource.DEALER, 1.0, 1.0)]
    assert f.question is None


def test_cards_accepted_while_a_question_waits_follow_the_answer_in_order() -> None:
    f = ReadingFilter(agree_frames=2, confirm_after_frames=4)
    empty = status(ReadingStatus.NO_CARD)
    asked = feed(f, *[unsure(TWO_D, QH)] * 4, empty, sure(KS), sure(KS), empty)
    assert [type(o) for o in asked] == [ConfirmRequest]  # KS is held
    assert feed(f, sure(KS), sure(KS)) == []  # still lying in the box
    assert alarms(feed(f, sure(QH), sure(QH), empty, sure(KS), sure(KS))) == [AlarmKind.SEEN_BEFORE]
    assert accepted(f.confirm(TWO_D, 1.0)) == [TWO_D, KS, QH]
    assert f.dealt == [TWO_D, KS, QH]


def test_a_dismissed_question_lets_the_cards_held_meanwhile_go_on() -> None:
    f = ReadingFilter(agree_frames=2, confirm_after_frames=4)
    feed(f, *[unsure(TWO_D, QH)] * 4, status(ReadingStatus.NO_CARD), sure(KS), sure(KS))
    assert accepted(f.dismiss()) == [KS]
    assert f.question is None
    assert f.dealt == [KS]


def test_uncertain_frames_between_sure_ones_do_not_make_a_run() -> None:
    f = ReadingFilter(agree_frames=3, confirm_after_frames=50)
    assert accepted(feed(f, sure(QH), sure(QH), unsure(QH, KS), sure(QH), sure(QH))) == []
    assert accepted(feed(f, sure(QH))) == [QH]


def test_an_unreadable_card_and_two_cards_raise_one_alarm_each() -> None:
    f = ReadingFilter(agree_frames=3, unreadable_frames=5)
    outputs = feed(f, *[status(ReadingStatus.UNREADABLE)] * 30)
    assert alarms(outputs) == [AlarmKind.UNREADABLE]
    assert "another deck" in next(o.message for o in outputs if isinstance(o, ReaderAlarm))
    outputs = feed(f, *[status(ReadingStatus.TWO_CARDS)] * 30)
    assert alarms(outputs) == [AlarmKind.TWO_CARDS]
    assert accepted(outputs) == []


def test_trouble_of_a_later_card_is_told_again() -> None:
    """Once a card was taken (or the box was seen empty, or a new deck went in), a card the
    camera cannot match, or two cards in view, is another card's trouble: told again."""
    f = ReadingFilter(agree_frames=2, unreadable_frames=5)
    unreadable, two = status(ReadingStatus.UNREADABLE), status(ReadingStatus.TWO_CARDS)
    empty = status(ReadingStatus.NO_CARD)
    assert alarms(feed(f, *[two] * 3)) == [AlarmKind.TWO_CARDS]
    assert accepted(feed(f, sure(QH), sure(QH))) == [QH]
    assert alarms(feed(f, *[two] * 3)) == [AlarmKind.TWO_CARDS]
    assert alarms(feed(f, *[empty] * f.empty_frames, *[two] * 3)) == [AlarmKind.TWO_CARDS]
    f.new_deck()
    assert alarms(feed(f, *[two] * 3)) == [AlarmKind.TWO_CARDS]
    assert alarms(feed(f, *[empty] * 2, *[two] * 3)) == []  # a hand passing: the same cards
    asked = feed(f, sure(KS), sure(KS), *[unreadable] * 5)
    assert accepted(asked) == [KS] and alarms(asked) == [AlarmKind.UNREADABLE]
    assert accepted(f.confirm(TWO_D, 1.0)) == [TWO_D]
    assert alarms(feed(f, *[unreadable] * 10)) == []  # still the card the dealer named
    assert alarms(feed(f, *[empty] * f.empty_frames, *[unreadable] * 5)) == [AlarmKind.UNREADABLE]


def test_a_card_left_unread_before_the_next_one_is_reported_as_possibly_missed() -> None:
    f = ReadingFilter(agree_frames=2, unreadable_frames=50, confirm_after_frames=50)
    unreadable = status(ReadingStatus.UNREADABLE)
    outputs = feed(
        f,
        sure(QH),
        sure(QH),
        unreadable,
        unsure(TWO_D, KS),
        unreadable,
        *[unreadable] * 5,
        sure(KS),
        sure(KS),
    )
    assert accepted(outputs) == [QH, KS]
    raised = [o for o in outputs if isinstance(o, ReaderAlarm)]
    assert [a.kind for a in raised] == [AlarmKind.MISSED_CARD]
    assert "between QH and KS" in raised[0].message
    assert raised[0].cards == (QH, KS)


def test_a_brief_unread_glimpse_while_the_card_slides_is_no_alarm() -> None:
    f = ReadingFilter(agree_frames=2)
    unreadable = status(ReadingStatus.UNREADABLE)
    outputs = feed(f, sure(QH), sure(QH), unreadable, unsure(KS, QH), sure(KS), sure(KS))
    assert accepted(outputs) == [QH, KS]
    assert alarms(outputs) == []


def test_a_camera_that_sees_nothing_for_long_raises_reader_lost_once() -> None:
    f = ReadingFilter(blind_frames=10)
    outputs = feed(f, *[status(ReadingStatus.BAD_FRAME)] * 40)
    assert alarms(outputs) == [AlarmKind.READER_LOST]


def code(card: Card, deck: int = 1) -> BarcodeReading:
    return BarcodeReading(f"DT1-{card.code}-{deck:02d}", CardCode(card, deck))


def test_barcode_shoe_alone_accepts_each_code_and_alarms_on_repeats_and_garbage() -> None:
    f = ReadingFilter(sources=frozenset({ReadingSource.BARCODE}))
    assert accepted(f.barcode(code(QH), 0.0)) == [QH]
    assert f.barcode(code(QH), 0.1) == []  # the same sticker read twice in one slide
    assert accepted(f.barcode(code(KS), 0.5)) == [KS]
    assert alarms(f.barcode(code(QH), 1.0)) == [AlarmKind.SEEN_BEFORE]
    garbage = BarcodeReading("SHIP-1", None, "not a dealtable card code: 'SHIP-1'")
    raised = f.barcode(garbage, 1.5)
    assert alarms(raised) == [AlarmKind.FOREIGN_CODE]
    assert "SHIP-1" in raised[0].message  # type: ignore[union-attr]
    lost = f.reader_lost(ReadingSource.BARCODE, "port closed", 2.0)
    assert alarms(lost) == [AlarmKind.READER_LOST]


def test_a_shoe_of_several_decks_takes_each_card_as_often_as_it_has_copies() -> None:
    f = ReadingFilter(agree_frames=2, decks=2)
    empty = status(ReadingStatus.NO_CARD)
    outputs = feed(f, sure(QH), sure(QH), sure(KS), sure(KS), sure(QH), sure(QH), empty)
    assert accepted(outputs) == [QH, KS, QH]
    assert alarms(outputs) == []
    raised = feed(f, sure(KS), sure(KS), sure(QH), sure(QH))
    assert accepted(raised) == [KS]
    assert alarms(raised) == [AlarmKind.SEEN_BEFORE]
    assert "QH was already dealt 2 times, every copy in this 2-deck shoe" in str(raised)
    with pytest.raises(ValueError, match="decks must be at least 1"):
        ReadingFilter(decks=0)


def test_a_copy_of_the_card_before_after_the_box_was_seen_empty_is_a_card_of_its_own() -> None:
    f = ReadingFilter(agree_frames=2, confirm_after_frames=4, decks=2)
    empty = [status(ReadingStatus.NO_CARD)] * f.empty_frames
    assert accepted(feed(f, sure(QH), sure(QH), *empty, sure(QH), sure(QH))) == [QH, QH]
    feed(f, *empty, *[unsure(TWO_D, QH)] * 4, *empty[:1], sure(KS), sure(KS))  # KS held
    assert accepted(feed(f, *empty, sure(KS), sure(KS))) == []  # held too, behind it
    assert accepted(f.confirm(TWO_D, 1.0)) == [TWO_D, KS, KS]


def test_a_barcode_shoe_of_several_decks_tells_copies_apart_by_their_deck_number() -> None:
    f = ReadingFilter(sources=frozenset({ReadingSource.BARCODE}), decks=6)
    assert accepted(f.barcode(code(KS, 1), 0.0)) == [KS]
    assert f.barcode(code(KS, 1), 0.1) == []  # the same sticker read twice in one slide
    assert accepted(f.barcode(code(KS, 2), 0.5)) == [KS]  # another deck's KS, straight after
    assert accepted(f.barcode(code(QH, 2), 1.0)) == [QH]
    raised = f.barcode(code(KS, 1), 1.5)
    assert alarms(raised) == [AlarmKind.SEEN_BEFORE]
    assert "KS (deck 1) was already dealt in this shoe" in str(raised)
    assert f.dealt == [KS, KS, QH]


def test_a_sticker_of_a_deck_the_shoe_does_not_hold_is_asked_about_not_dealt() -> None:
    """A one-deck table dealing deck 2's stickers: a card of deck 7 slipped into the box is
    no card of this deal. The shoe says so and asks the dealer; the cards read meanwhile
    wait for the answer (here: the stray card is taken away, no card of the deal came out).
    A six-deck shoe takes six deck numbers."""
    f = ReadingFilter(sources=frozenset({ReadingSource.BARCODE}))
    assert accepted(f.barcode(code(QH, 2), 0.0)) == [QH]
    raised = f.barcode(code(KS, 7), 0.5)
    assert alarms(raised) == [AlarmKind.ANOTHER_DECK]
    assert "KS of deck 7, but the cards dealt are of deck 2" in str(raised)
    assert [type(o) for o in raised][1:] == [ConfirmRequest]
    assert accepted(f.barcode(code(TWO_D, 2), 1.0)) == []  # held behind the question
    assert accepted(f.dismiss()) == [TWO_D]
    assert f.dealt == [QH, TWO_D]
    shoe = ReadingFilter(sources=frozenset({ReadingSource.BARCODE}), decks=6)
    for deck in range(1, 7):
        assert accepted(shoe.barcode(code(KS, deck), deck)) == [KS]
    assert alarms(shoe.barcode(code(QH, 8), 7.0)) == [AlarmKind.ANOTHER_DECK]


def test_a_deck_whose_first_card_was_a_stray_deals_on_once_the_dealer_vouches_for_its_own() -> None:
    """A one-deck table whose first sticker read was a stray of deck 7: the deck's own first
    card, of deck 2, is asked about as another deck's. The dealer names it: deck 2 is then a
    deck of this deal, and its cards after are dealt without a question each."""
    f = ReadingFilter(sources=frozenset({ReadingSource.BARCODE}))
    assert accepted(f.barcode(code(QH, 7), 0.0)) == [QH]
    assert alarms(f.barcode(code(KS, 2), 0.5)) == [AlarmKind.ANOTHER_DECK]
    assert accepted(f.confirm(KS, 0.7)) == [KS]
    assert accepted(f.barcode(code(TWO_D, 2), 1.0)) == [TWO_D]
    assert f.dealt == [QH, KS, TWO_D]
    assert alarms(f.barcode(code(QH, 2), 1.5)) == [AlarmKind.SEEN_BEFORE]


def test_a_barcode_camera_asks_once_about_another_decks_card_in_view() -> None:
    camera = ReadingFilter(sources=frozenset({ReadingSource.BARCODE}), follows_table=True)
    frames = [["DT1-KS-01"]] * 10 + [["DT1-3H-05"]] * 30
    outputs = []
    for index, texts in enumerate(frames):
        for said in camera.barcode_view([barcode_reading(text) for text in texts], index / 30):
            if isinstance(said, CardAccepted):
                camera.placed(said.card, said.deck)
            outputs.append(said)
    assert accepted(outputs) == [KS]
    assert alarms(outputs) == [AlarmKind.ANOTHER_DECK]


def test_camera_and_barcode_agreeing_accept_the_card_once() -> None:
    f = ReadingFilter(agree_frames=2, sources=frozenset(ReadingSource) - {ReadingSource.DEALER})
    assert accepted(feed(f, sure(QH), sure(QH))) == []  # waiting for the shoe
    assert accepted(f.barcode(code(QH), 0.5)) == [QH]
    assert accepted(f.barcode(code(KS), 1.0)) == []  # waiting for the camera
    assert accepted(feed(f, sure(KS), sure(KS))) == [KS]


def test_camera_and_barcode_disagreeing_raise_a_conflict_that_asks_the_dealer() -> None:
    f = ReadingFilter(
        agree_frames=2, sources=frozenset({ReadingSource.CAMERA, ReadingSource.BARCODE})
    )
    feed(f, sure(QH), sure(QH))
    outputs = f.barcode(code(KS), 0.5)
    assert accepted(outputs) == []
    assert alarms(outputs) == [AlarmKind.CONFLICT]
    question = next(o for o in outputs if isinstance(o, ConfirmRequest))
    assert question.choices == (QH, KS)
    assert "camera saw QH but the shoe read KS" in question.message
    assert accepted(f.confirm(KS, 1.0)) == [KS]


def test_the_confirm_button_takes_the_cameras_guess_but_settles_no_conflict() -> None:
    f = ReadingFilter(agree_frames=3, confirm_after_frames=4)
    feed(f, *[unsure(TWO_D, QH)] * 4)
    assert accepted(f.confirm_guess(1.0)) == [TWO_D]
    assert f.question is None
    assert f.confirm_guess(2.0) == []  # nothing asked
    both = ReadingFilter(
        agree_frames=2, sources=frozenset({ReadingSource.CAMERA, ReadingSource.BARCODE})
    )
    feed(both, sure(QH), sure(QH))
    both.barcode(code(KS), 0.5)
    assert both.question is not None and both.question.guess is None
    assert both.confirm_guess(1.0) == []  # the dealer names the card
    assert both.question is not None


def test_a_reader_that_stays_silent_is_reported_after_the_timeout() -> None:
    f = ReadingFilter(
        agree_frames=2,
        pair_timeout=2.0,
        sources=frozenset({ReadingSource.CAMERA, ReadingSource.BARCODE}),
    )
    feed(f, sure(QH), sure(QH))
    assert f.tick(1.0) == []
    raised = f.tick(3.0)
    assert alarms(raised) == [AlarmKind.READER_SILENT]
    assert "camera read QH but the shoe read nothing" in raised[0].message  # type: ignore[union-attr]
    assert f.tick(4.0) == []


def test_a_dealt_video_of_six_cards_with_hands_passing_yields_them_in_order() -> None:
    order = [STANDARD_52.cards[i] for i in (0, 14, 27, 40, 12, 51)]
    recognizer = Recognizer(taught_profile())
    f = ReadingFilter(agree_frames=3)
    outputs: list[object] = []
    for frame in deal_video(order, DESIGNS[TEST_DESIGN], seed=3, hand_every=2):
        outputs += f.camera(recognizer.read(frame.image), frame.timestamp)
    assert accepted(outputs) == order
    assert alarms(outputs) == []


def test_a_barcode_camera_takes_another_decks_copy_right_after_its_twin() -> None:
    """Two decks: the KS of deck 1 is dealt, and the KS of deck 2 slides into view as the
    first leaves, the box never seen without a KS: its sticker names another deck, so it is
    a card of its own, and the 3H after it too."""
    camera = ReadingFilter(sources=frozenset({ReadingSource.BARCODE}), decks=2, follows_table=True)
    frames = (
        [["DT1-KS-01"]] * 10
        + [["DT1-KS-01", "DT1-KS-02"]] * 2
        + [["DT1-KS-02"]] * 10
        + [["DT1-3H-01"]] * 10
    )
    taken = []
    for index, texts in enumerate(frames):
        for said in camera.barcode_view([barcode_reading(text) for text in texts], index / 30):
            if isinstance(said, CardAccepted):
                camera.placed(said.card, said.deck)  # as the table takes it
                taken.append((said.card.code, said.deck))
    assert taken == [("KS", 1), ("KS", 2), ("3H", 1)]


def test_a_card_the_camera_cannot_match_slid_in_after_one_answered_for_may_be_missed() -> None:
    """The frames of a card answered for, still lying in the box, are no card missed; but once
    the camera has seen something else (the card sliding off), such frames are another card
    the camera could not match, and the card after it says one may have been missed."""
    f = ReadingFilter(agree_frames=3)
    unmatched = status(ReadingStatus.UNREADABLE)
    sliding = status(ReadingStatus.OBSTRUCTED)
    feed(f, *[sure(QH)] * 3, *[unmatched] * 10)
    assert accepted(f.confirm(Card.parse("7H"), 1.0)) == [Card.parse("7H")]
    outputs = feed(f, *[unmatched] * 20, *[sliding] * 3, *[unmatched] * 10, *[sure(KS)] * 3)
    assert accepted(outputs) == [KS]
    assert alarms(outputs) == [AlarmKind.MISSED_CARD]
    assert "for 10 frames" in outputs[0].message  # type: ignore[attr-defined]
