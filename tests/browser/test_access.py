"""Accessibility in a real browser: text twins of the charts, the announced change after a
Step, reduced motion, reflow at 320 px, and keyboard-only use with a visible focus ring."""
import pytest
from helpers import metric
from playwright.sync_api import expect

TWINS = {   # step: (query, rows the table must hold)
    "1": ("?step=1", 5), "2": ("?step=2", 16), "3": ("?step=3", 5), "4": ("?step=4", None),
    "5": ("?step=5", None), "6": ("?step=6&part=b", None)}


@pytest.mark.parametrize("step", sorted(TWINS))
def test_every_chart_has_a_text_twin(app, step):
    query, rows = TWINS[step]
    page = app(query)
    twin = page.locator("details.twin:visible").first
    expect(twin).to_be_visible(timeout=30_000)
    fig = twin.locator("xpath=../figure/div")            # the chart this table stands for
    name = fig.get_attribute("aria-label")
    assert name and len(name) > 20 and fig.get_attribute("role") == "img"
    twin.locator("summary").click()
    table = twin.locator("table").first                 # the chart's own table (then extras)
    expect(table).to_be_visible()
    body = table.locator("tbody tr")
    n = body.count()
    assert n >= 1
    if rows is not None:
        assert n == rows
    assert table.locator("thead th").count() >= 2


def test_step_1_table_holds_the_drawn_weights(app):
    page = app("?step=1")
    expect(page.locator(".arcs-svg .arc")).to_have_count(4)
    page.locator("details.twin summary").first.click()
    # the weight is the row's last cell (before the answer the table has no position column)
    cells = page.locator("details.twin tbody tr td:last-child").all_inner_texts()
    total = sum(float(c.strip("%").replace(",", ".")) for c in cells)
    assert abs(total - 100) < 0.6          # the weights the arcs draw, as a table


def test_step_announces_the_change(app):
    page = app("?step=1")
    expect(metric(page, "seq_len")).to_have_text("5")
    page.locator(".player-next button").click()
    say = page.locator(".stage-say").first
    expect(say).to_contain_text("Decode step 1 of 11")          # step 3's words
    expect(say).to_contain_text("reads ? keys")                 # the answer: not yet
    assert say.get_attribute("aria-live") == "polite"
    page.locator(".show-me button").click()                     # told now, at this token
    expect(say).to_contain_text("Token 6")
    expect(say).to_contain_text("reads 6 keys")


def test_reduced_motion_still_plays_without_transitions(app, page):
    page.emulate_media(reduced_motion="reduce")
    app("?step=1")
    expect(page.locator(".stage.reduced-motion")).to_have_count(1)
    page.locator(".player-play button").click()
    expect(metric(page, "seq_len")).not_to_have_text("5", timeout=10_000)
    anim = page.evaluate("(a) => KVT.access.reducedMotionStillPlaysWithoutTransitions(a)")
    assert all(a == "none" for a in anim)


@pytest.mark.parametrize("query", ["?step=2", "?step=3", "?step=4", "?step=5", "?step=6",
                                   "?step=6&part=b", "?step=6&part=c"])
def test_no_sideways_scroll_at_320px(app, page, query):
    page.set_viewport_size({"width": 320, "height": 700})
    app(query)
    page.wait_for_timeout(2500)
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 320


FOCUSED = "(a) => KVT.access.focused(a)"


def test_keyboard_only_through_step_2(app, page):
    app("?step=2")
    page.wait_for_timeout(1500)
    page.locator("body").press("Tab")
    seen = []
    for _ in range(45):
        f = page.evaluate(FOCUSED)
        if f and f["tag"] != "BODY":
            seen.append(f)
            visible = (f["outline"] != "none" and f["width"] >= 2) or f["ring"]
            assert visible, f"no visible focus on {f}"
        page.keyboard.press("Tab")
    texts = " | ".join(s["text"] for s in seen)
    kinds = {(s["tag"], s["role"], s["type"]) for s in seen}
    assert any(s["tag"] == "SELECT" for s in seen), texts               # language menu
    assert any(s["type"] == "range" or s["role"] == "slider" for s in seen), kinds
    for label in ("Show me", "Play", "Step forward", "Next"):
        assert label in texts, (label, texts)
    # the player works from the keyboard
    page.locator(".player-next button").focus()
    before = page.locator(".player-pos").first.inner_text()
    page.keyboard.press("Enter")
    expect(page.locator(".player-pos").first).not_to_have_text(before)
