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
