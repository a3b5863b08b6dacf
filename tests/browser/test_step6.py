"""Step 6 in a real browser: Part A's reference figures and controls, the answer waiting for the
question, the tabs (native, with the part in the link), Part B's paged block pool played in the
browser with nothing sent while playing, Part C's live measurement."""
import time

import pytest
from helpers import metric, wait_url
from playwright.sync_api import expect

from explainer.i18n import LANGS

NBSP = "\u00a0"


def test_step6_reference_figures_controls_and_paged_player(app):
    page = app("?step=6")
    expect(metric(page, "cache_gb")).to_have_text(f"68.7{NBSP}GB")
    expect(metric(page, "cache_gib")).to_have_text(f"64{NBSP}GiB")     # under All numbers
    page.locator(".show-me button").click()
    expect(metric(page, "factor")).to_have_text("4×")        # the answer switches GQA on
    wait_url(page, "heads=8")
    page = app("?step=6&heads=8&precision=int8")
    page.locator(".show-me button").click()
    expect(metric(page, "factor")).to_have_text("7.88×")
    page = app("?step=6&heads=8&part=c")
    expect(metric(page, "live_top1")).to_contain_text("%", timeout=60_000)
    page.get_by_role("tab", name="B. Paged memory").click()    # the paged block pool
    wait_url(page, "part=b")
    cells = page.locator(".pool-svg .blk")
    expect(cells).to_have_count(24, timeout=60_000)
    used0 = metric(page, "blocks_used").inner_text()
    fills0 = page.locator(".pool-svg .slot.filled").count()
    for _ in range(3):
        page.locator(".player-next button").first.click()
    expect(metric(page, "blocks_used")).not_to_have_text(used0)
    expect(page.locator(".pool-svg .slot.filled")).not_to_have_count(fills0)
    expect(page.locator(".pool-svg .blk-changed").first).to_be_visible()
    page.wait_for_function("() => location.search.includes('frame=3')")
    wait_url(page, "heads=8")


def test_step6_answer_is_concealed_until_answered(app):
    page = app("?step=6&heads=8&precision=int8")
    expect(page.locator(".question").first).to_contain_text("int8")
    expect(metric(page, "factor")).to_have_text("?")
    # the bar says its size, and how much smaller only once answered (no “(? smaller)”)
    expect(page.locator(".bars-svg .bar-label").last).to_have_text("8.7\u00a0GB")
    expect(page.locator(".bars-svg .bar-label").last).not_to_contain_text("smaller")
    page.locator(".answer-1 button").click()                # 32 ÷ 8 = 4 (options 2×, 4×, 32×)
    expect(metric(page, "factor")).to_have_text("7.88×")
    expect(page.locator(".bars-svg .bar-label").last).to_contain_text("7.88× smaller")


def test_step6_part_b_deep_link(app):
    page = app("?step=6&part=b&frame=4")
    expect(page.get_by_role("tab", name="B. Paged memory")).to_have_attribute(
        "aria-selected", "true")
    expect(page.locator(".player-pos")).to_contain_text("Event 5 of", timeout=60_000)
    expect(page.locator(".pool-svg .blk")).to_have_count(24)
    expect(page.locator(".pool-svg .blk.shared").first).to_be_visible()
    expect(page.locator(".stage-caption")).to_contain_text("Request B")
    expect(metric(page, "copies_on_write")).to_have_text("2")          # under All numbers
    expect(page.locator("[data-metric='factor']")).to_have_count(0)    # Part A not rendered
    wait_url(page, "part=b")


def test_step6_play_sends_nothing(app):
    """Part B's Play moves through the pool's events, all sent at once: no websocket frame
    per event."""
    page = app("?step=6&part=b")
    expect(page.locator(".pool-svg .blk")).to_have_count(24, timeout=60_000)
    received = []
    page.on("websocket", lambda ws: ws.on("framereceived", lambda f: received.append(f)))
    expect(page.locator(".player-pos")).to_contain_text("Event 1 of")
    time.sleep(1.0)
    before = len(received)
    page.locator(".player-play button").click()
    expect(page.locator(".player-pos")).to_contain_text("Event 5 of", timeout=15_000)
    during = len(received) - before
    assert during == 0, f"the server sent {during} websocket frames while playing"
    page.locator(".player-play button").click()          # Pause: now the server hears it
    wait_url(page, "frame=")


def test_step6_tabs_controls_and_all_numbers(app):
    errors = []
    page = app("?step=6")
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    tabs = page.get_by_role("tab")
    expect(tabs).to_have_count(4)
    expect(page.get_by_role("tablist", name="Shrinking the cache")).to_be_visible()
    expect(tabs.first).to_have_attribute("aria-selected", "true")
    expect(page.locator(".ctl-part")).to_have_count(0)         # the tabs set the part
    expect(page.get_by_role("radiogroup")).to_have_count(3)
    more = page.locator("details.all-numbers")
    expect(more).to_have_count(1)
    expect(more.locator("summary")).to_have_text("All numbers")
    expect(metric(page, "cache_gib")).not_to_be_visible()
    more.locator("summary").click()
    expect(metric(page, "cache_gib")).to_be_visible()
    page.get_by_role("radio", name="int4", exact=True).check()          # precision
    wait_url(page, "precision=int4")
    expect(metric(page, "cache_gb")).to_have_text(f"17.7{NBSP}GB")
    expect(metric(page, "cache_gib")).to_be_visible()          # still open after the change
    page.get_by_role("tab", name="C. On the live model").click()
    wait_url(page, "part=c")
    expect(page.get_by_role("tab", name="C. On the live model")).to_have_attribute(
        "aria-selected", "true")
    expect(page.get_by_role("radiogroup")).to_have_count(3)
    # int4 is one of Part C's options: how much it changes the output waits for the answer
    expect(metric(page, "live_bytes")).to_contain_text("KiB", timeout=60_000)
    expect(metric(page, "live_top1")).to_have_text("?")
    expect(page.locator("table.continuations")).to_have_count(0)
    expect(page.locator(".show-me button")).to_be_visible(timeout=120_000)
    page.locator(".show-me button").click()                     # the answer: the window
    expect(metric(page, "live_top1")).to_contain_text("%", timeout=60_000)
    expect(page.locator("table.continuations")).to_have_count(1)
    wait_url(page, "window=4096")
    expect(page.locator("[data-metric='factor']")).to_have_count(0)    # Part A not rendered
    page.get_by_role("tab", name="A. Fewer heads, bits, tokens").click()
    expect(metric(page, "cache_gb")).to_have_text(f"17.2{NBSP}GB")     # fp16, window 4,096
    assert not errors, errors


@pytest.mark.parametrize("width", [360, 760])
@pytest.mark.parametrize("lang", list(LANGS))
def test_pool_draws_every_event_without_overlapping_labels(browser, lang, width):
    """The block pool's renderer on every event of Part B, as the presenter builds them (the
    step's default part has no stage, so the common renderer test skips it)."""
    from conftest import bundle_page
    from test_js_units import OVERLAPS

    from steps.step6.view import Step6
    s = Step6(lang, saved={"model": {"part": "b"}}).state()
    assert s["stage"]["figure"] == "pool"
    with bundle_page(browser, css=False) as page:
        bad = page.evaluate(OVERLAPS, [s["stage"], s["frames"], width])
        drawn = page.evaluate("() => document.querySelectorAll('#root .pool-svg .blk').length")
    assert drawn == 24
    assert bad == [], "\n".join(bad[:12])


def test_step6_parts_b_and_c_ask_their_own_questions_and_keep_them_apart(app):
    """Every part predicts first: B asks what share of a reservation holds tokens, C which
    setting changes the live model's output most. Each answer is its own: answering B reveals
    nothing of C or A, and B's stays answered after a tab switch."""
    from steps.step6 import text
    from steps.step6.view import Step6
    local = Step6("en", saved={"model": {"part": "b"}})
    event = text.pool_question_event(local.model.paged.value) + 1
    local.close()
    page = app("?step=6&part=b")
    expect(page.locator(".pool-svg .blk")).to_have_count(24, timeout=60_000)
    expect(page.locator(".question").first).to_contain_text(
        "reserves room for 1,024 tokens for every request", timeout=60_000)
    expect(metric(page, "reserved_share")).to_have_text("?")
    page.locator(".show-me button").click()
    expect(page.locator(".q-right")).to_have_count(1)
    expect(metric(page, "reserved_share")).not_to_have_text("?")
    expect(metric(page, "reserved_share")).to_contain_text("%")
    expect(page.locator(".player-pos")).to_contain_text(f"Event {event} of")   # its event
    wait_url(page, f"frame={event - 1}")
    page.get_by_role("tab", name="C. On the live model").click()
    wait_url(page, "part=c")
    expect(page.locator(".question").first).to_contain_text(
        "changes its choice of the next token most often", timeout=120_000)
    expect(page.locator(".q-right")).to_have_count(0)          # C is still to predict
    expect(page.locator(".show-me button")).to_be_visible()
    page.get_by_role("radio", name="int4", exact=True).check()
    wait_url(page, "precision=int4")
    expect(metric(page, "live_top1")).to_have_text("?", timeout=60_000)   # it would tell
    expect(page.locator("table.continuations")).to_have_count(0)
    page.locator(".answer-1 button").click()                   # int4
    expect(page.locator(".answer-1 button")).to_have_attribute("aria-pressed", "true")
    expect(metric(page, "live_top1")).to_contain_text("%", timeout=60_000)
    expect(page.locator("table.continuations")).to_have_count(1)
    page.get_by_role("tab", name="A. Fewer heads, bits, tokens").click()
    wait_url(page, "part=a")
    expect(metric(page, "factor")).to_have_text("?")           # A is still to predict
    expect(page.locator(".show-me button")).to_be_visible()
    page.get_by_role("tab", name="B. Paged memory").click()
    wait_url(page, "part=b")
    expect(metric(page, "reserved_share")).to_contain_text("%", timeout=60_000)
    expect(page.locator(".q-right")).to_have_count(1)          # B's answer is kept


TOPS = "(els) => els.map((e) => Math.round(e.getBoundingClientRect().top))"
RIGHTS = "(els) => els.map((e) => e.getBoundingClientRect().right)"


@pytest.mark.parametrize("width,heads,rows", [
    (1440, 32, [32]), (1440, 8, [32]), (1440, 1, [32]),        # one row where it fits
    (1280, 32, [32]),
    (390, 32, [16, 16]), (390, 8, [16, 16]), (390, 1, [16, 16])])   # else two even rows
def test_part_a_heads_fill_one_row_or_two_even_ones(app, width, heads, rows):
    """Part A's 32 query heads: on one row where the visual column holds them (1440 and
    1280 px, every head kind), else in two rows of 16, never a row and a few orphans (the
    review saw 29 + 3 at 1440 px); no head pokes out of the diagram's box."""
    page = app(f"?step=6&heads={heads}")
    page.set_viewport_size({"width": width, "height": 900})
    expect(page.locator(".kv-groups .q")).to_have_count(32)
    page.wait_for_timeout(300)
    tops = page.locator(".kv-groups .q").evaluate_all(TOPS)
    assert [tops.count(t) for t in sorted(set(tops))] == rows
    box = page.locator(".kv-groups").evaluate("(e) => e.getBoundingClientRect().right")
    assert max(page.locator(".kv-groups .q, .kv-groups .kv").evaluate_all(RIGHTS)) <= box + 0.5
