"""The explanation first: readable prose, few headline numbers, and presenter mode that fits
a projector's first screen."""
import pytest
from helpers import projected
from playwright.sync_api import expect

STEPS = ["1", "2", "3", "4", "5", "6"]


def _visible_cards(page) -> int:
    """Number cards a learner sees without opening “All numbers”."""
    return page.evaluate("(a) => KVT.reading.visibleCards(a)")


def _narration_px(page) -> float:
    return page.evaluate("(a) => KVT.reading.narrationPx(a)")


@pytest.mark.parametrize("step", STEPS)
def test_prose_is_readable_and_headline_numbers_few(app, step):
    page = app(f"?step={step}")
    expect(page.locator("[data-metric]").first).to_be_attached(timeout=30_000)
    page.wait_for_timeout(2000)
    assert _narration_px(page) >= 16
    assert 1 <= _visible_cards(page) <= 4


@pytest.mark.parametrize("size,lang", [((1280, 720), "en"), ((1920, 1080), "en"),
                                       ((1280, 720), "pl"), ((1280, 720), "nl"),
                                       ((1280, 720), "id")],
                         ids=["720p", "1080p", "720p-pl", "720p-nl", "720p-id"])
@pytest.mark.parametrize("step", STEPS)
def test_presenter_mode_fits_a_projector_and_reads_from_the_back(app, page, step, size, lang):
    """Presenter mode at 16:9 (in every language at 1280×720): the lead, the question, the
    controls and the figure fit the screen without scrolling; body text at least 24 px, chart text at least 18 px on screen;
    shaded regions and cached cells not pale; no language menu, stepper or FAQ."""
    m = projected(app, page, size, f"?step={step}&present=1&lang={lang}")
    assert m["figures"] >= 1 and m["chart"] >= 17.9, m
    assert m["menus"] == 0, m
    assert m["pale"] >= 0.35, m       # “read from cache” cells and shaded regions, projected


@pytest.mark.parametrize("step", STEPS)
def test_go_deeper_sections_wait_collapsed_and_open_on_a_click(app, step):
    """Beside the figure only a few words; the rest waits in “Go deeper” sections, collapsed,
    always in the same order (why it works, the live model, the literature). A click opens
    one and shows its words."""
    page = app(f"?step={step}")
    expect(page.locator("[data-metric]").first).to_be_attached(timeout=30_000)
    sections = page.locator("details.deeper")
    expect(sections.first).to_be_attached()
    names = sections.evaluate_all(
        "els => els.map(e => [...e.classList].find(c => c.startsWith('deeper-')).slice(7))")
    order = ["why", "live", "literature"]
    assert names and names == sorted(names, key=order.index) and len(set(names)) == len(names)
    assert sections.evaluate_all("els => els.filter(e => e.open).length") == 0
    first = sections.first
    expect(first.locator("summary")).to_contain_text("Go deeper")
    words = first.locator("p").first
    expect(words).to_be_hidden()
    first.locator("summary").click()
    expect(words).to_be_visible()
    assert len(words.inner_text().split()) >= 5
