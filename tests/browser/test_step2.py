"""Step 2 in a real browser: the two grids and their cards at the reference figures, the T
slider and the player moving together (Play sends nothing), the Polish deep link, the live
measurement arriving, and the answer-bearing numbers waiting for the learner."""
import re
import time

from helpers import metric, nudge_slider, wait_url
from playwright.sync_api import expect

NBSP = "\u00a0"


def reveal(page):
    """Press “Show me”: the answer-bearing numbers wait for it."""
    page.locator(".show-me button").click()


def pos(page):
    return page.locator(".player-pos")


def test_step2_reference_figures_and_slider(app):
    page = app("?step=2")
    reveal(page)
    expect(metric(page, "uncached")).to_have_text("200")
    expect(metric(page, "cached")).to_have_text("20")
    expect(metric(page, "ratio")).to_have_text("10.0×")
    expect(metric(page, "measured_uncached")).to_have_text("200", timeout=180_000)
    expect(metric(page, "measured_cached")).to_have_text("20")
    expect(metric(page, "same_tokens")).to_have_text(re.compile("yes"))
    expect(page.locator(".grids-svg .grid-u .cell")).to_have_count(200)
    expect(page.locator(".grids-svg .grid-u .cell.recomputed")).to_have_count(180)
    expect(page.locator(".grids-svg .grid-c .cell.cached")).to_have_count(180)
    expect(page.locator(".grids-svg .grid-c .cell.new")).to_have_count(20)
    nudge_slider(page, 0)                                   # T: 16 -> 17
    expect(metric(page, "uncached")).to_have_text("221")   # 17*5 + 17*16/2
    expect(metric(page, "cached")).to_have_text("21")
    expect(page.locator(".grids-svg .grid-u .cell")).to_have_count(221)
    expect(pos(page)).to_have_text("Generated tokens: 17 of 64")
    wait_url(page, "tokens=17")


def test_step2_reading_from_the_cache_looks_cheap_and_is_named(app):
    page = app("?step=2")
    expect(page.locator(".grids-svg .grid-c .cell.cached").first).to_be_attached()
    style = """e => ({ width: +e.getAttribute('width'), fill: +getComputedStyle(e).fillOpacity,
                       stroke: getComputedStyle(e).stroke })"""
    c = page.locator(".grids-svg .grid-c .cell.cached").first.evaluate(style)
    u = page.locator(".grids-svg .grid-u .cell.recomputed").first.evaluate(style)
    looks = {"cw": c["width"], "uw": u["width"], "cfill": c["fill"], "ufill": u["fill"],
             "cstroke": c["stroke"]}
    assert looks["cw"] < looks["uw"] and looks["cfill"] < 0.5 <= looks["ufill"]
    assert looks["cstroke"] not in ("", "none")
    labels = [t.strip() for t in page.locator(".grids-svg .legend-label").all_text_contents()]
    assert {"computed new", "recomputed", "read from cache"} <= set(labels)


def test_step2_polish_deep_link(app):
    page = app("?step=2&lang=pl&tokens=64&prompt=5")
    reveal(page)
    expect(metric(page, "uncached")).to_have_text(f"2{NBSP}336")
    expect(metric(page, "cached")).to_have_text("68")
    expect(metric(page, "ratio")).to_have_text("34,4×")
    expect(page.locator("html")).to_have_attribute("lang", "pl")


def test_step2_player_steps_tokens(app):
    page = app("?step=2&tokens=3")
    reveal(page)
    expect(metric(page, "uncached")).to_have_text("18")      # 3*5 + 3
    page.locator(".player-next button").click()
    expect(metric(page, "uncached")).to_have_text("26")      # 4*5 + 6
    wait_url(page, "tokens=4")
    expect(page.get_by_role("slider").first).to_have_attribute("aria-valuenow", "4")


def test_step2_one_click_is_one_token(app):
    """Step forward clicked N times quickly advances exactly N tokens (a server-side player
    once advanced two on one click)."""
    page = app("?step=2&tokens=3")
    reveal(page)
    expect(metric(page, "uncached")).to_have_text("18")
    nxt = page.locator(".player-next button")
    for _ in range(5):
        nxt.click()
    expect(pos(page)).to_have_text("Generated tokens: 8 of 64")
    expect(metric(page, "uncached")).to_have_text("68")      # 8*5 + 28
    wait_url(page, "tokens=8")
    # a burst inside one task: the server hears every stop, and echoes none back
    nxt.evaluate("b => { for (let k = 0; k < 4; k++) b.click(); }")
    expect(pos(page)).to_have_text("Generated tokens: 12 of 64")
    wait_url(page, "tokens=12")
    time.sleep(1.5)
    expect(pos(page)).to_have_text("Generated tokens: 12 of 64")
    expect(metric(page, "uncached")).to_have_text("126")     # 12*5 + 66
    expect(page.get_by_role("slider").first).to_have_attribute("aria-valuenow", "12")


def test_step2_both_ends(app):
    page = app("?step=2&tokens=64")
    expect(pos(page)).to_have_text("Generated tokens: 64 of 64")
    expect(page.locator(".player-next button")).to_be_disabled()
    page.locator(".player-reset button").click()
    expect(pos(page)).to_have_text("Generated tokens: 1 of 64")
    expect(page.locator(".player-back button")).to_be_disabled()
    wait_url(page, "tokens=1")
    nudge_slider(page, 0, "End")                            # the slider sets the frame
    expect(pos(page)).to_have_text("Generated tokens: 64 of 64")
    page.locator(".player-play button").click()            # Play at the end starts over
    expect(pos(page)).to_have_text(re.compile(r"Generated tokens: [1-3] of 64"))
    page.locator(".player-play button").click()            # Pause
    shown = re.search(r"(\d+) of", pos(page).inner_text()).group(1)
    wait_url(page, f"tokens={shown}&")


def test_step2_play_sends_nothing(app, page):
    """Play moves through frames the server sent at once: no websocket frame per Play frame."""
    received = []
    page.on("websocket", lambda ws: ws.on("framereceived", lambda f: received.append(f)))
    app("?step=2&tokens=10")
    expect(metric(page, "same_tokens")).to_have_text("yes", timeout=120_000)  # live run in
    assert received, "the websocket was not watched"
    quiet_since, seen = time.monotonic(), len(received)     # let the page finish loading
    while time.monotonic() - quiet_since < 2.0:
        page.wait_for_timeout(250)                           # (events arrive while waiting)
        if len(received) != seen:
            quiet_since, seen = time.monotonic(), len(received)
    before = len(received)
    page.locator(".player-play button").click()
    expect(pos(page)).to_have_text("Generated tokens: 14 of 64", timeout=10_000)
    during = received[before:]
    assert during == [], f"the server sent {len(during)} websocket frames while playing: " + \
        " | ".join(str(f)[:160] for f in during[:3])
    page.locator(".player-play button").click()          # Pause: now the server hears it
    page.wait_for_function("() => +new URLSearchParams(location.search).get('tokens') >= 14")


def test_step2_answer_waits_for_the_learner(app):
    page = app("?step=2&tokens=64&prompt=5&lang=pl")
    q = page.locator(".question").first
    expect(q).to_contain_text("64")
    expect(q).to_contain_text("5")
    expect(metric(page, "uncached")).to_have_text("?")
    expect(metric(page, "ratio")).to_have_text("?")
    expect(page.locator(".grid-summary")).to_contain_text("?")
    expect(metric(page, "same_tokens")).not_to_have_text("…", timeout=120_000)
    expect(metric(page, "measured_uncached")).to_have_text("?")
    page.locator(".answer-2 button").click()                # 2 336, the right answer
    expect(metric(page, "uncached")).to_have_text(f"2{NBSP}336")
    expect(metric(page, "measured_uncached")).to_have_text(f"2{NBSP}336")
    expect(page.locator(".grid-summary")).to_contain_text(f"2{NBSP}336")
