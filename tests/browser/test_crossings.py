"""No label touches a line, in the served page: every figure of every step (and part of step
6), after “Show me”, in English and Polish, on a laptop (1440×900), a phone (390×844), the
figure-only embed in an 800 px course page, and presenter mode at 1280×720 and 1920×1080: no
text that a stroked line, an outline or a point runs through, no two texts on each other
(tests/browser/js/crossings.js, with the check of the figure tests: js_units.js `crossings`).
The renderers' every frame and control extreme in every language is checked without a server
(test_js_units.py); this is the page as a learner and a lecturer see it."""
import pytest
from playwright.sync_api import expect

from steps.step6.model import PARTS

VIEWS = [f"step={n}" for n in range(1, 6)] + [f"step=6&part={p}" for p in PARTS]
MODES = {"laptop": ((1440, 900), ""), "phone": ((390, 844), ""),
         "figure": ((800, 700), "&embed=1&figure=1"),
         "720p": ((1280, 720), "&present=1"), "1080p": ((1920, 1080), "&present=1")}
CROSSINGS = "(a) => KVT.crossings.inPage(a)"


def look(app, page, query: str, mode: str) -> dict:
    """Open `query` in `mode`, press “Show me” where the view has it, and return what the
    figures show (CROSSINGS) once they are drawn."""
    size, extra = MODES[mode]
    page.set_viewport_size({"width": size[0], "height": size[1]})
    app(f"?{query}{extra}")
    expect(page.locator(".step").first).to_be_attached(timeout=30_000)
    page.wait_for_timeout(1500)
    show = page.locator(".show-me button:visible")
    if show.count():
        show.first.click()
        page.locator(".feedback .shown, .feedback .right, .feedback .wrong").first.wait_for(
            state="attached", timeout=10_000)
    page.wait_for_timeout(1500)                          # the figure drawn again, answered
    return page.evaluate(CROSSINGS, f"{query} {mode}")


@pytest.mark.parametrize("mode", list(MODES))
@pytest.mark.parametrize("query", VIEWS)
def test_no_label_touches_a_line(app, page, query, mode):
    bad = []
    for lang in ("en", "pl"):
        got = look(app, page, f"{query}&lang={lang}", mode)
        bad += got["bad"]
    assert bad == [], f"{len(bad)}:\n" + "\n".join(bad[:20])


BAR_WEIGHTS = "(a) => KVT.crossings.barWeights(a)"


@pytest.mark.parametrize("width", [390, 360, 430])
@pytest.mark.parametrize("lang", ["en", "pl", "id", "nl"])
def test_step_5_bar_keeps_its_weights_label_clear_of_the_gpu_lines_on_a_phone(app, page, lang,
                                                                               width):
    """On a phone the bar's GPU lines stand close to the weights' end (24 GiB at about 30 % of
    the width): the weights' label goes on two lines rather than have a line cut behind it,
    which the check of every figure does not see (the cut line no longer touches the text)."""
    page.set_viewport_size({"width": width, "height": 844})
    app(f"?step=5&lang={lang}")
    expect(page.locator(".bill-svg .gpu-line").first).to_be_attached(timeout=30_000)
    page.wait_for_timeout(1500)
    got = page.evaluate(BAR_WEIGHTS)
    assert got is not None and got["bad"] == [], got


RIDGE_OVER_AXIS = "(a) => KVT.crossings.ridgeOverAxis(a)"


@pytest.mark.parametrize("width", [390, 1440])
@pytest.mark.parametrize("lang", ["en", "pl"])
def test_step_4_ridge_label_stands_clear_of_the_x_axis(app, page, lang, width):
    """The ridge's label, placed beside its line from the bottom up, keeps at least half an
    em of white above the x axis (on a phone it rested on the axis: touching no line, but read
    as the axis's own label)."""
    page.set_viewport_size({"width": width, "height": 844})
    app(f"?step=4&lang={lang}")
    expect(page.locator(".roof-svg .ridge-label").first).to_be_attached(timeout=30_000)
    page.wait_for_timeout(1500)
    got = page.evaluate(RIDGE_OVER_AXIS)
    assert got is not None and got["over"] and got["gap"] >= 0.5 * got["em"], got


LEGEND_DRAWN = "(a) => KVT.crossings.legendDrawn(a)"


@pytest.mark.parametrize("mode", ["figure", "laptop"])
def test_step_5_legend_names_only_what_is_drawn(app, page, mode):
    """Step 5's legend names the bar's marks (the weights' part, the chosen GPU's solid line,
    the other GPUs' dashed lines) only where the bar is drawn: the figure-only embed draws the
    curve alone, and its legend names the cache's parts, the weights' dashed line and the dot."""
    size, extra = MODES[mode]
    page.set_viewport_size({"width": size[0], "height": size[1]})
    app(f"?step=5{extra}")
    expect(page.locator(".bill-svg .now-dot").first).to_be_attached(timeout=30_000)
    page.wait_for_timeout(1500)
    got = page.evaluate(LEGEND_DRAWN)
    d, words = got["drawn"], " | ".join(got["legend"])
    assert d["weightsLine"] and d["dot"], got
    assert "dashed line: weights" in words and "dot: this context" in words, got
    assert ("GPU" in words) == bool(d["gpuLines"]), got
    assert ("weights (16-bit)" in words) == bool(d["weightsPart"]), got
    if mode == "figure":
        assert not d["gpuLines"] and len(got["legend"]) == 4, got
