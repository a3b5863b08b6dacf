"""Presenter mode's JavaScript (js/present.js), unit by unit in headless Chromium, no server:
the channel between the two windows, the speaker view's following, and chart text made at
least 18 px on screen. What each mode shows is the layout table's (test_layout_units.py)."""
from __future__ import annotations

import pytest

from conftest import bundle_page


@pytest.fixture(scope="module")
def kv(browser):
    with bundle_page(browser, viewport=(1280, 720), css=False) as page:
        yield page


def test_the_player_shows_icons_only_when_its_labels_do_not_fit(kv):
    out = kv.evaluate("(a) => KVT.present_units.thePlayerShowsIconsOnlyWhenItsLabelsDoNotFit(a)")
    assert out == {"wide": False, "narrow": True, "title": "Reset", "back": False,
                   "titled": False, "learners": False}


def test_card_values_too_wide_for_their_cards_are_set_smaller(kv):
    out = kv.evaluate("(a) => KVT.present_units.cardValuesTooWideForTheirCardsAreSetSmaller(a)")
    assert out["before"] is False and out["n"] == 1 and out["again"] == 1
    assert out["min"] <= out["after"] < 39 and out["short"] == "" and out["learners"] == 0


def test_notices_show_whole_in_their_order_or_not_at_all(kv):
    out = kv.evaluate("(a) => KVT.present_units.noticesShowWholeInTheirOrderOrNotAtAll(a)")
    assert out["last"] == [1, [False, False, True]]
    assert out["first"] == [3, [True, True, True]]
    assert out["all"] == [0, [False, False, False]]
    assert out["speaker"] == 0


def test_speaker_url_and_view_key(kv):
    out = kv.evaluate("(a) => KVT.present_units.speakerUrlAndViewKey(a)")
    assert out[0] == "/app?step=2&present=1&tokens=40&speaker=1"
    assert out[1] == out[2] == "step=2&tokens=40"


def test_the_two_windows_talk_over_a_broadcast_channel(kv):
    """The speaker view says hello, the projected page answers with its view and its state's
    parts (then only the parts that changed); keys and Previous/Next made in the speaker view
    reach the projected page; nothing else does."""
    log = kv.evaluate("(a) => KVT.present_units.theTwoWindowsTalkOverABroadcastChannel(a)")
    assert log["mirror"] == [["lead", "frames"], ["frames"]]
    assert [v["frame"] for v in log["follow"]] == [2, 3]
    assert log["follow"][0]["query"] == "?step=3&present=1&frame=2"
    assert log["key"] == [".", "PageDown"] and log["nav"] == [1]


def test_the_speaker_view_asks_its_server_once_per_new_view(kv):
    sent = kv.evaluate("(a) => KVT.present_units.theSpeakerViewAsksItsServerOncePerNewView(a)")
    assert sent == [{"follow": "?step=2&tokens=40&present=1", "answer": None, "shown": False},
                    {"follow": "?step=2&tokens=40&present=1", "answer": 1, "shown": False}]


def test_chart_text_is_made_at_least_18_px_on_screen(kv):
    out = kv.evaluate("(a) => KVT.present_units.chartTextIsMadeAtLeast18PxOnScreen(a)")
    assert out["first"] is True and out["again"] is False
    assert 18 <= out["shown"] <= 20
