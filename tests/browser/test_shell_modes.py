"""The page's modes in a real browser: the key-ideas ending, embedding in a course page on
another origin, presenter mode, and working with no internet at all."""
import re
import time

import pytest
from helpers import metric
from playwright.sync_api import expect


def test_key_ideas_page_links_back_and_prints_on_one_page(app):
    page = app("?step=end&lang=nl")
    expect(page.locator(".takeaways li")).to_have_count(6)
    expect(page.locator(".formula-box")).to_contain_text("512")
    link = page.locator(".back-link").nth(1)
    assert link.get_attribute("href") == "?step=2&lang=nl"
    expect(page.get_by_role("button", name="Volgende")).to_be_disabled()
    pdf = page.pdf(format="A4")
    assert len(re.findall(rb"/Type\s*/Page[^s]", pdf)) == 1


def test_next_after_step_6_leads_to_the_key_ideas(app):
    page = app("?step=6")
    page.get_by_role("button", name="Next").click()
    expect(page.locator("h2").first).to_contain_text("Key ideas")
    page.wait_for_function("() => location.search.includes('step=end')")


def test_embedded_steps_size_themselves_on_a_course_page(page, server, course_site):
    app_url = server.replace("127.0.0.1", "127.0.0.1")
    page.goto(f"{course_site}/embed.html?app={app_url}")
    frames = page.locator("iframe.kv-explainer")
    expect(frames).to_have_count(3)                               # the third: figure-only
    first = page.frame_locator("iframe.kv-explainer").first
    expect(first.locator(".embed-line")).to_contain_text("Step 2")
    expect(first.locator("h1")).to_have_count(0)                  # no title bar, no stepper
    expect(first.locator(".faq")).to_have_count(0)
    link = first.locator(".embed-line a")
    assert "embed" not in link.get_attribute("href") and link.get_attribute("target") == "_blank"
    # the host page received the height message and resized the frame
    page.wait_for_function(
        "() => [...document.querySelectorAll('iframe.kv-explainer')]"
        ".every(f => f.style.height && f.style.height !== '600px')", timeout=30_000)
    # the embedded step reacts
    second = page.frame_locator("iframe.kv-explainer").nth(1)
    expect(second.locator(".embed-line")).to_contain_text("Step 5")


def test_embed_mode_alone(app):
    page = app("?step=1&embed=1&frame=2")
    expect(page.locator(".player-pos")).to_contain_text("Decode step 2 of 11")
    expect(page.locator(".embed-line")).to_contain_text("KV cache explainer · Step 1")
    page.locator(".player-next button").click()
    page.wait_for_function("() => location.search.includes('embed=1') && "
                           "location.search.includes('frame=3')")


def test_presenter_mode_fits_and_keys_drive_player_and_steps(app, page):
    page.set_viewport_size({"width": 1280, "height": 720})
    app("?step=1&present=1")
    expect(metric(page, "seq_len")).to_have_text("5")
    for sel in (".question", ".stage-svg svg", '[data-metric="seq_len"]'):
        box = page.locator(sel).first.bounding_box()
        assert box and box["y"] < 720, sel
    expect(page.locator(".faq")).to_have_count(0)
    expect(page.locator("h1")).to_have_count(0)          # no title bar, language menu, stepper
    page.locator("h2").first.click()
    page.keyboard.press("PageDown")
    expect(metric(page, "next")).to_have_text("“.”")          # decode step 1
    page.keyboard.press("PageUp")
    expect(metric(page, "seq_len")).to_have_text("5")
    page.keyboard.press("PageUp")                       # at the first frame: nowhere to go
    expect(page.locator("h2").first).to_contain_text("Step 1 of 6")
    page.goto(page.url.split("?")[0] + "?step=1&present=1&frame=11")
    expect(page.locator(".player-pos")).to_contain_text("Decode step 11 of 11", timeout=30_000)
    page.locator("h2").first.click()
    page.keyboard.press("PageDown")                     # the last frame: on to step 2
    expect(page.locator("h2").first).to_contain_text("Step 2 of 6")


def test_works_with_no_internet(app, page):
    """Every script, stylesheet and font comes from the app's own server."""
    outside = []

    def block(route):
        outside.append(route.request.url)
        route.abort()
    page.route(re.compile(r"^https?://(?!127\.0\.0\.1[:/]|localhost[:/]).*"), block)
    app("?step=1")
    expect(metric(page, "seq_len")).to_have_text("5")
    expect(page.locator(".stage-svg svg")).to_have_count(1)
    time.sleep(1)
    assert outside == []
    assert page.locator('meta[name="viewport"]').count() == 1


@pytest.mark.parametrize("query", ["?step=1", "?step=end", "?step=1&embed=1"])
def test_no_sideways_scroll_at_320px(app, page, query):
    page.set_viewport_size({"width": 320, "height": 700})
    app(query)
    page.wait_for_timeout(1500)
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 320


def test_stepper_every_step_is_a_button_and_marks_the_current(app):
    page = app("?step=3")
    buttons = page.locator("nav.stepnav button")
    expect(buttons).to_have_count(7)
    expect(page.locator('nav.stepnav button[aria-current="step"]')).to_contain_text("3")
    buttons.nth(4).click()
    expect(page.locator("h2").first).to_contain_text("Step 5 of 6")
    expect(page.locator('nav.stepnav button[aria-current="step"]')).to_contain_text("5")
    page.wait_for_function("() => location.search.includes('step=5')")
    buttons.nth(1).focus()
    page.keyboard.press("Enter")
    expect(page.locator("h2").first).to_contain_text("Step 2 of 6")


def _speaker(page):
    """Press S on the projected page: the speaker view opens in a second window."""
    page.locator("h2").first.click()
    with page.context.expect_page() as opened:
        page.keyboard.press("s")
    speaker = opened.value
    speaker.wait_for_load_state()
    errors = []
    speaker.on("pageerror", lambda e: errors.append(str(e)))
    speaker.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    expect(speaker.locator(".talk-notes")).not_to_be_empty(timeout=60_000)
    return speaker, errors


def test_s_opens_the_speaker_view_with_notes_prose_and_the_next_step(app, page):
    page.set_viewport_size({"width": 1280, "height": 720})
    app("?step=1&present=1&lang=nl")
    expect(metric(page, "seq_len")).to_have_text("5")
    speaker, errors = _speaker(page)
    assert "speaker=1" in speaker.url and "present=1" in speaker.url
    expect(speaker.locator(".talk-notes")).to_contain_text("PageDown")       # in Dutch
    expect(speaker.locator(".talk-head").first).to_have_text("Hardop zeggen")
    expect(speaker.locator(".talk-next")).to_contain_text("Verspild werk")
    expect(speaker.locator(".talk-answer")).to_contain_text("6")             # the answer
    expect(speaker.locator(".talk-clock")).to_contain_text("0:0")            # the clock
    expect(speaker.locator(".talk-clock")).to_contain_text("10 min")         # step 1's MINUTES
    # the projected screen, scaled: the projected page itself (its cards, its figure)
    copy = speaker.frame_locator("iframe.screen-copy")
    expect(copy.locator('[data-metric="seq_len"] .metric-value')).to_have_text("5")
    expect(copy.locator(".kv-root.present.copy .stage-svg svg").first).to_be_visible()
    # the copy takes no input: none of the projected page's own chrome is drawn in it
    expect(copy.locator(".kv-root.copy h2").first).to_be_visible()
    for chrome in (".present-hint", ".share-btn", ".nav-prev", ".nav-next", ".prevnext"):
        expect(copy.locator(chrome)).to_have_count(0)
    expect(page.locator(".present-hint")).not_to_be_empty()     # the projected page keeps them
    expect(page.locator(".nav-next")).to_be_visible()
    # the full prose is one key away in the speaker view (P), not on the projected page
    expect(speaker.locator(".step-text .narration")).to_have_count(0)
    speaker.locator(".talk-notes").click()
    speaker.keyboard.press("p")
    expect(speaker.locator(".step-text .narration").first).to_be_attached()
    expect(page.locator(".step-text .narration")).to_have_count(0)
    expect(page.locator("details.deeper")).to_have_count(0)
    deeper = speaker.locator("details.deeper")                   # “Go deeper”, open
    for k in range(deeper.count()):
        expect(deeper.nth(k)).to_have_attribute("open", "")
        expect(deeper.nth(k).locator("p").first).to_be_visible()
    expect(speaker.locator("#kv-lang")).to_have_count(0)
    expect(speaker.locator(".faq")).to_have_count(0)
    expect(speaker).to_have_title(re.compile("Sprekersweergave"))
    assert errors == []


def test_the_speaker_view_follows_the_projected_page_and_moves_it(app, page):
    """Keys on either window move the projected page; the speaker view follows its step,
    controls, playhead and answer (BroadcastChannel between the two windows)."""
    page.set_viewport_size({"width": 1280, "height": 720})
    app("?step=1&present=1")
    expect(metric(page, "seq_len")).to_have_text("5")
    speaker, errors = _speaker(page)
    copy = speaker.frame_locator("iframe.screen-copy")          # the projected screen, scaled
    expect(metric(copy, "seq_len")).to_have_text("5")
    # the projected page's keys: the speaker view follows
    page.bring_to_front()
    page.locator("h2").first.click()
    page.keyboard.press("PageDown")                # decode step 1 (its counts wait: “?”)
    expect(metric(page, "next")).to_have_text("“.”")
    expect(metric(copy, "next")).to_have_text("“.”")
    # the speaker view's keys move the projected page
    speaker.bring_to_front()
    speaker.locator(".talk-notes").click()
    speaker.keyboard.press(".")
    expect(metric(page, "next")).to_have_text("“What”")
    expect(metric(copy, "next")).to_have_text("“What”")
    speaker.keyboard.press(",")
    expect(metric(page, "next")).to_have_text("“.”")
    expect(metric(copy, "next")).to_have_text("“.”")
    speaker.keyboard.press(" ")                                # Space: Play on the projected page
    expect(page.locator(".player-play button")).to_have_attribute("aria-pressed", "true")
    speaker.keyboard.press(" ")
    expect(page.locator(".player-play button")).to_have_attribute("aria-pressed", "false")
    # an answer on the projected page shows in the speaker view
    page.locator(".answers .q-btn").last.click()
    expect(copy.locator('[data-metric="keys_read"] .metric-value')).not_to_have_text("?")
    # PageDown at the end of the player, or Next in the speaker view: the next step, both
    speaker.locator(".nav-next").click()
    expect(page.locator("h2").first).to_contain_text("Step 2 of 6")
    expect(speaker.locator("h2").first).to_contain_text("Step 2 of 6")
    expect(speaker.locator(".talk-next")).to_contain_text("Storing keys and values")
    speaker.locator(".nav-prev").click()
    expect(page.locator("h2").first).to_contain_text("Step 1 of 6")
    expect(speaker.locator("h2").first).to_contain_text("Step 1 of 6")
    # a control moved on the projected page: the speaker view's link follows
    page.bring_to_front()
    page.get_by_role("combobox").first.select_option(index=1)
    page.wait_for_function("() => location.search.includes('example=1')")
    speaker.wait_for_function("() => location.search.includes('example=1')", timeout=20_000)
    assert "speaker=1" in speaker.url
    assert errors == []


@pytest.mark.parametrize("size", [(1440, 900), (1920, 1080)])
def test_the_speaker_view_is_one_screen_on_every_step(app, page, size):
    """The speaker's cockpit fits its window on every step and part (no scrolling): the notes,
    the answer, the next step or part, the clock and the projected screen, scaled (the same
    rendering as the projected page's: its figure as wide, in the copy's own pixels)."""
    page.set_viewport_size({"width": size[0], "height": size[1]})
    for q in ["?step=1", "?step=2", "?step=3", "?step=4", "?step=5", "?step=6&part=a",
              "?step=6&part=d", "?step=end"]:
        app(q + "&present=1&speaker=1")
        expect(page.locator(".talk-notes")).not_to_be_empty(timeout=60_000)
        copy = page.frame_locator("iframe.screen-copy")
        expect(copy.locator(".kv-root.present.copy .step-heading").first).to_be_visible(timeout=60_000)
        page.wait_for_timeout(500)
        fits = page.evaluate("""() => { const el = document.scrollingElement;
          return { scroll: el.scrollHeight - window.innerHeight,
                   wide: el.scrollWidth - window.innerWidth }; }""")
        assert fits["scroll"] <= 0 and fits["wide"] <= 0, (q, fits)
        for part in (".talk", ".screen-copy", ".talk-clock", ".talk-next"):
            if part == ".talk-next" and q == "?step=end":
                continue                                   # the last page: nothing next
            box = page.locator(part).bounding_box()
            assert box and box["y"] >= 0 and box["y"] + box["height"] <= size[1] + 1, (q, part, box)
            assert box["x"] + box["width"] <= size[0] + 1, (q, part, box)
        # scaled, not reflowed: the copy is laid out at the projected window's 1280 × 720
        inner = page.frame_locator("iframe.screen-copy").locator("body")
        assert inner.evaluate("() => [window.innerWidth, window.innerHeight]") == [1280, 720]
