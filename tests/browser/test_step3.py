"""Step 3 in a real browser: the cached rows grow by one per decode step, the answer waits for
the question, the output row and the one-based deep links, the controls, Play sends nothing."""
import time

from helpers import expect_concealed, metric, open_deeper, play_sends_nothing, wait_url
from playwright.sync_api import expect

NBSP = "\u00a0"


def test_step3_step_appends_one_row(app):
    page = app("?step=3")
    page.locator(".show-me button").click()                 # the cards answer the question,
    expect(metric(page, "cache_length")).to_have_text("8")  # at decode step 3 (the answer's)
    page.locator(".player-reset button").click()            # back to the prefill
    expect(metric(page, "cache_length")).to_have_text("5")
    expect(metric(page, "new_kv")).to_have_text("5")
    expect(metric(page, "shape")).to_have_text("[1, 4, 5, 32]")
    expect(metric(page, "ref_cache")).to_have_text(f"2.5{NBSP}MiB")
    cells = page.locator(".cache-svg .cell")
    expect(cells).to_have_count(5 * 2 * 32)                 # 5 rows of k and v, head_dim 32
    page.locator(".player-next button").click()
    expect(metric(page, "cache_length")).to_have_text("6")
    expect(metric(page, "new_kv")).to_have_text("1")
    expect(metric(page, "shape")).to_have_text("[1, 4, 6, 32]")
    expect(metric(page, "ref_cache")).to_have_text(f"3.0{NBSP}MiB")
    expect(cells).to_have_count(6 * 2 * 32)
    expect(page.locator(".cache-svg .cache-row.is-new")).to_have_count(1)
    wait_url(page, "frame=1")


def test_step3_answer_is_concealed_until_answered(app):
    page = app("?step=3&lang=pl&frame=3")
    expect(page.locator(".question").first).to_contain_text("3")
    expect_concealed(page, "cache_length", "shape")
    expect(page.locator(".cache-svg .row-label").last).to_have_text("Jakie")
    page.locator(".answer-1 button").click()                # 3 + 3 = 6 (options 3, 6, 12)
    expect(metric(page, "cache_length")).to_have_text("6")
    expect(metric(page, "shape")).to_have_text("[1, 4, 6, 32]")
    expect(page.locator(".cache-svg .row-label").last).to_have_text("6 Jakie")


def test_step3_output_row_and_one_based_deep_link(app):
    page = app("?step=3&layer=1&head=2")
    expect(page.locator(".cache-svg .out-row")).to_have_count(1)
    expect(page.locator(".cache-svg .out-cell")).to_have_count(32)
    expect(page.locator(".cache-svg .out-label")).to_contain_text("softmax(q·Kᵀ/√d)·V")
    # layer 1, head 2 puts everything on the newest token; the default head spreads it
    expect(page.locator(".cache-svg .attn-pct").last).to_have_text("100%")
    wait_url(page, "head=2")
    page = app("?step=3")
    pcts = [t.strip() for t in page.locator(".cache-svg .attn-pct").all_text_contents()]
    assert pcts == ["56%", "18%", "2%", "9%", "14%"]
    wait_url(page, "layer=3")
    wait_url(page, "head=1")


def test_step3_play_sends_nothing(app):
    """Play moves through frames the server sent at once: no websocket frame per Play frame."""
    page = app("?step=3")
    received = []
    page.on("websocket", lambda ws: ws.on("framereceived", lambda f: received.append(f)))
    page.locator(".show-me button").click()
    expect(metric(page, "cache_length")).to_have_text("8")     # the answer's decode step 3
    page.locator(".player-reset button").click()
    expect(metric(page, "cache_length")).to_have_text("5")
    time.sleep(1.0)
    play_sends_nothing(page, received, "cache_length", "8", lambda: expect(
        page.locator(".cache-svg .cell")).to_have_count(8 * 2 * 32))


def test_step3_controls_change_the_rows_and_the_link(app):
    page = app("?step=3")
    expect(page.locator(".cache-svg .attn-pct").first).to_have_text("56%")
    page.get_by_label("Layer", exact=True).select_option(label="Layer 1")
    page.get_by_label("Key/value head").select_option(label="Head 2")
    expect(page.locator(".cache-svg .attn-pct").last).to_have_text("100%")
    wait_url(page, "layer=1")
    wait_url(page, "head=2")
    page.get_by_label("Example prompt").select_option(index=3)    # a 17-token prompt
    wait_url(page, "example=3")
    expect(page.locator(".question").first).to_contain_text("17 tokens")
    expect(page.locator(".cache-svg .cache-row")).to_have_count(17)


def test_step3_table_twin_and_legend(app):
    page = app("?step=3&frame=2")
    page.locator(".twin summary").click()
    expect(page.locator(".twin table tbody tr")).to_have_count(7)
    expect(page.locator(".twin table thead th")).to_have_count(3)        # no row numbers yet
    page.locator(".show-me button").click()
    expect(page.locator(".twin table thead th")).to_have_count(4)
    expect(page.locator(".legend .chip-ramp-key")).to_have_count(1)
    expect(page.locator(".legend .chip-ramp-value")).to_have_count(1)
    # which query heads the bars belong to: in “Go deeper: the live model”, opened
    live = open_deeper(page, "live")
    expect(live.locator(".figure-note p")).to_be_visible()
    expect(live.locator(".figure-note")).to_contain_text("key/value head 1")
