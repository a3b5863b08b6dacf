"""Navigation, language, deep links, and step 1 in a real browser."""
import re
import time

from helpers import choose_language, metric, play_sends_nothing, reveal, svg_texts, wait_url
from playwright.sync_api import expect


def test_step1_deep_link_shows_the_prompt_and_next_token(app):
    page = app("?step=1&lang=en")
    reveal(page)
    expect(metric(page, "seq_len")).to_have_text("6")      # the answer's token: see test_reveal
    page.locator(".player-reset button").click()            # back to the prompt
    expect(page.locator("h1")).to_have_count(1)
    expect(page.locator("main")).to_have_count(1)
    expect(metric(page, "seq_len")).to_have_text("5")
    expect(metric(page, "keys_read")).to_have_text("5")
    expect(metric(page, "scores")).to_have_text("5")
    expect(metric(page, "next")).to_have_text("“Paris”")
    expect(page.locator(".arcs-svg .tok-text")).to_have_count(6)
    assert svg_texts(page, ".arcs-svg .tok-text") == ["The", "capital", "of", "France", "is",
                                                      "→ Paris"]
    # the weights are written on the arcs, not only in a tooltip
    expect(page.locator(".arcs-svg .arc")).to_have_count(4)
    assert len(svg_texts(page, ".arcs-svg .arc-pct")) >= 2


def test_step_forward_adds_the_predicted_token(app):
    page = app("?step=1")
    reveal(page)
    expect(metric(page, "seq_len")).to_have_text("6")      # the answer's token: see test_reveal
    page.locator(".player-reset button").click()
    expect(metric(page, "seq_len")).to_have_text("5")
    page.locator(".player-next button").click()
    expect(metric(page, "seq_len")).to_have_text("6")
    expect(metric(page, "keys_read")).to_have_text("6")
    expect(metric(page, "scores")).to_have_text("11")
    expect(page.locator(".arcs-svg .tok-text").nth(5)).to_have_text("Paris")
    wait_url(page, "frame=1")
    page.locator(".player-next button").click()
    expect(metric(page, "scores")).to_have_text("18")
    page.locator(".player-back button").click()
    expect(metric(page, "scores")).to_have_text("11")
    page.locator(".player-reset button").click()
    expect(metric(page, "seq_len")).to_have_text("5")


def test_play_advances_and_pause_stops(app):
    page = app("?step=1")                     # before the answer: the player line tells where
    pos = page.locator(".player-pos")
    expect(pos).to_contain_text("Decode step 0 of 11")
    page.locator(".player-play button").click()
    expect(pos).not_to_contain_text("Decode step 0 of 11", timeout=10_000)
    page.locator(".player-play button").click()          # now "Pause"
    time.sleep(0.5)
    a = pos.inner_text()
    time.sleep(2.5)
    assert pos.inner_text() == a
    assert not a.startswith("Decode step 0 ")


def test_play_stops_at_the_end(app):
    page = app("?step=1&frame=9")
    page.locator(".player-play button").click()
    expect(page.locator(".player-pos")).to_contain_text("Decode step 11 of 11", timeout=15_000)
    time.sleep(2)
    expect(page.locator(".player-pos")).to_contain_text("Decode step 11 of 11")
    expect(metric(page, "seq_len")).to_have_text("?")      # 16, once the question is answered
    expect(page.locator(".player-play button")).to_contain_text("Play")


def test_language_switch_keeps_the_step_and_controls(app):
    page = app("?step=1&frame=2")
    expect(page.locator(".player-pos")).to_contain_text("Decode step 2 of 11")
    choose_language(page, "Polski")
    expect(page.locator("html")).to_have_attribute("lang", "pl")
    # the example prompt follows the language: "Stolicą Francji jest" (3 tokens), at the
    # same decode step
    expect(page.locator(".player-pos")).to_contain_text("Krok dekodowania 2 z 11")
    expect(page.locator(".question").first).to_contain_text("3")
    expect(metric(page, "next")).not_to_have_text("“Paris”")
    page.wait_for_function("() => location.search.includes('lang=pl')")
    wait_url(page, "frame=2")
    expect(page.locator("h2").first).to_contain_text("Krok 1 z 6")
    expect(page.get_by_role("button", name="Dalej")).to_be_visible()
    choose_language(page, "English")
    expect(page.locator(".player-pos")).to_contain_text("Decode step 2 of 11")


def test_free_text_prompt_is_escaped_and_unknown_words_flagged(app):
    page = app("?step=1&text=%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E%20The%20capital%20of%20Poland%20is")
    expect(page.locator(".arcs-svg .is-unk").first).to_be_attached()
    expect(page.locator("img[src=x]")).to_have_count(0)
    expect(page.locator(".notice").first).to_contain_text("<unk>")
    expect(metric(page, "next")).to_have_text(re.compile("^“.+”$"))
    expect(metric(page, "seq_len")).not_to_have_text("5")


def test_bad_url_values_fall_back_with_a_notice(app):
    page = app("?step=9&lang=xx&frame=abc&zzz=%3Cb%3Ehi%3C/b%3E")
    notices = page.locator(".notice")
    expect(notices.first).to_be_visible()
    text = " ".join(notices.all_inner_texts())
    assert "xx" in text and "<b>hi</b>" not in text and "zzz" in text
    expect(metric(page, "seq_len")).to_have_text("5")


def test_arrow_keys_and_buttons_move_between_steps(app):
    page = app("?step=1")
    page.locator("body").click(position={"x": 5, "y": 5})
    page.keyboard.press("ArrowRight")
    expect(page.locator("h2").first).to_contain_text("Step 2 of 6")
    page.wait_for_function("() => location.search.includes('step=2')")
    page.keyboard.press("ArrowLeft")
    expect(page.locator("h2").first).to_contain_text("Step 1 of 6")
    page.get_by_role("button", name="Next").click()
    expect(page.locator("h2").first).to_contain_text("Step 2 of 6")
    page.wait_for_function("() => location.search.includes('step=2')")


def test_reload_keeps_the_deep_link_state(app):
    page = app("?step=1&frame=3&layer=2&head=1")
    expect(page.locator(".player-pos")).to_contain_text("Decode step 3 of 11")
    page.reload()
    page.wait_for_selector("h1")
    expect(page.locator(".player-pos")).to_contain_text("Decode step 3 of 11")
    wait_url(page, "layer=2")
    wait_url(page, "head=1")


def test_narrow_screen_has_no_horizontal_scroll(app, page):
    page.set_viewport_size({"width": 360, "height": 800})
    app("?step=1")
    expect(metric(page, "seq_len")).to_have_text("5")
    wide = page.evaluate("() => document.documentElement.scrollWidth")
    assert wide <= 380


def test_play_sends_nothing(app, page):
    """Play moves through frames the server sent at once: no websocket frame per Play frame."""
    received, sockets = [], []

    def watch(ws):
        sockets.append(ws)
        ws.on("framereceived", lambda f: received.append(f))
    page.on("websocket", watch)                 # before the page opens its websocket
    app("?step=1")
    expect(metric(page, "seq_len")).to_have_text("5")
    reveal(page)                                # the counts (“?” until then), at frame 1
    expect(metric(page, "seq_len")).to_have_text("6")
    page.wait_for_timeout(1500)
    assert sockets and received, "the page's websocket was not observed"
    play_sends_nothing(page, received, "seq_len", "9")


def test_step_at_both_ends_and_keys(app):
    page = app("?step=1&frame=11")
    expect(page.locator(".player-pos")).to_contain_text("Decode step 11 of 11")
    expect(page.locator(".player-next button")).to_be_disabled()
    page.locator(".player-reset button").click()
    expect(metric(page, "seq_len")).to_have_text("5")
    expect(page.locator(".player-back button")).to_be_disabled()
    page.locator("h1").click()
    page.keyboard.press(".")
    expect(page.locator(".player-pos")).to_contain_text("Decode step 1 of 11")
    expect(metric(page, "seq_len")).to_have_text("?")      # the answer's count: it waits
    page.keyboard.press(",")
    expect(metric(page, "seq_len")).to_have_text("5")
    page.keyboard.press(" ")
    expect(metric(page, "seq_len")).not_to_have_text("5", timeout=10_000)
    page.keyboard.press(" ")


def test_language_switch_during_play_keeps_playing(app):
    page = app("?step=1")
    page.locator(".player-play button").click()
    choose_language(page, "Nederlands")
    expect(page.locator("html")).to_have_attribute("lang", "nl")
    expect(page.locator(".player-pos")).to_contain_text("11 van 11", timeout=20_000)
    expect(page.locator(".player-play button")).to_contain_text("Afspelen")


def test_question_conceals_the_answer_until_answered(app):
    page = app("?step=1&lang=pl")
    expect(metric(page, "keys_read")).to_have_text("?")
    expect(page.locator(".question").first).to_contain_text("3")
    page.locator(".answer-2 button").click()
    expect(metric(page, "keys_read")).to_have_text("4")    # the next token's query: 3 + its own


def test_frame_0_shows_the_prefill_then_one_token_a_step(app):
    """The whole prompt goes through the model at once (prefill), in step 3's words; then each
    decode step feeds one token. The reference figures stay: 5 keys and 5 scores, then 6, 11."""
    page = app("?step=1")
    expect(page.locator(".stage-caption")).to_contain_text(
        "Prefill: the 5 prompt tokens went through the model in one pass")
    expect(page.locator(".player-pos")).to_contain_text("Decode step 0 of 11 (0 = prefill)")
    expect(page.locator(".arcs-svg .tok-role")).to_have_count(5)
    assert svg_texts(page, ".arcs-svg .tok-role") == ["prefill"] * 5
    expect(page.locator(".arcs-svg .tok-svg.is-written")).to_have_count(5)   # written at once
    expect(metric(page, "seq_len")).to_have_text("5")
    page.locator(".player-next button").click()
    expect(page.locator(".stage-caption")).to_contain_text(
        "Decode step 1: only “Paris” went through the model")
    expect(page.locator(".player-pos")).to_contain_text("Decode step 1 of 11")
    expect(page.locator(".arcs-svg .tok-svg.is-written")).to_have_count(1)   # the new token
    assert svg_texts(page, ".arcs-svg .tok-role") == ["cached"] * 5 + ["new"]
    expect(metric(page, "seq_len")).to_have_text("?")      # the answer's count waits for it
    expect(page.locator(".stage-caption")).to_contain_text("Its query reads ? keys")
    reveal(page)                                           # and is told then
    expect(metric(page, "seq_len")).to_have_text("6")
    expect(page.locator(".stage-caption")).to_contain_text("Its query reads 6 keys")
