"""axe-core (WCAG 2.1 A/AA) on every step, in English and Polish, on the full page and in
embed mode: no serious or critical violation."""
import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import expect

AXE = Axe()
OPTIONS = {"runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]}}
CASES = [(s, "en", "") for s in ("1", "2", "3", "4", "5", "6", "end")] + \
        [(s, "pl", "&embed=1") for s in ("1", "2", "3", "4", "5", "6")] + \
        [("2", "en", "&present=1"), ("4", "nl", "&present=1&speaker=1")]


@pytest.mark.parametrize("step,lang,mode", CASES)
def test_no_serious_or_critical_violations(app, step, lang, mode):
    page = app(f"?step={step}&lang={lang}{mode}")
    expect(page.locator("h2, .embed-line").first).to_be_visible()
    page.wait_for_timeout(2500)                  # bound panes and stages have rendered
    results = AXE.run(page, options=OPTIONS)
    bad = [(v["id"], v["impact"], [n["target"] for n in v["nodes"]][:3])
           for v in results.response["violations"] if v["impact"] in ("serious", "critical")]
    assert bad == []


def test_a_slider_move_on_a_still_figure_is_announced(app):
    """Step 4 has one still frame (no player): a slider move brings a new frame, and the live
    region says what the figure shows now, as Step does on steps 1–3."""
    from helpers import nudge_slider
    page = app("?step=4")
    say = page.locator(".stage-say").first
    expect(page.locator(".roof-svg .ridge-line")).to_have_count(1)
    before = say.text_content()
    nudge_slider(page, 2, "ArrowRight", 3)                 # the batch up
    expect(say).not_to_have_text(before or "", timeout=15_000)
    expect(say).to_contain_text("batch")
    assert say.get_attribute("aria-live") == "polite" and say.get_attribute("role") == "status"


def _order(page) -> dict:
    """Where the lead, the figure, its controls, the question and the first prose paragraph
    start on the page (px from the top)."""
    return page.evaluate("(a) => KVT.a11y.order(a)")


@pytest.mark.parametrize("query,viewport", [("?step=3", {"width": 390, "height": 844}),
                                            ("?step=4", {"width": 390, "height": 844}),
                                            ("?step=3&embed=1", {"width": 1000, "height": 800})])
def test_the_figure_and_its_controls_come_before_the_prose(app, page, query, viewport):
    """On a phone and embedded in a course page: the lead sentence, the question (before the
    cards whose “?” it explains), then the controls and the figure, then the prose."""
    page.set_viewport_size(viewport)
    app(query)
    expect(page.locator(".stage-figure svg").first).to_be_visible()
    o = _order(page)
    assert o["lead"] < o["question"] < o["controls"] < o["stage"], o
    if o["prose"] is not None:
        assert o["stage"] < o["prose"], o


def test_on_a_laptop_the_controls_sit_on_the_figure_in_the_visual_column(app, page):
    page.set_viewport_size({"width": 1440, "height": 900})
    app("?step=4")
    expect(page.locator(".roof-svg").first).to_be_visible()
    o = _order(page)
    assert o["controls"] < o["stage"] < 900, o            # both on the first screen
    inside = page.evaluate("(a) => KVT.a11y.onALaptopTheControlsSitOnTheFigureInTheVisualColumn(a)")
    assert inside
