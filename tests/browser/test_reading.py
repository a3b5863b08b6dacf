"""The explanation first: readable prose, few headline numbers, and presenter mode that fits
a projector's first screen."""
import pytest
from playwright.sync_api import expect

STEPS = ["1", "2", "3", "4", "5", "6"]


def _visible_cards(page) -> int:
    """Number cards a learner sees without opening “All numbers”."""
    return page.evaluate("""() => { let n = 0;
      const walk = (root) => { for (const el of root.querySelectorAll('*')) {
        if (el.shadowRoot) walk(el.shadowRoot);
        if (el.classList && el.classList.contains('metric')) {
          const r = el.getBoundingClientRect();
          if (r.width > 0 && r.height > 0 && el.closest('details:not([open])') === null) n++; } } };
      walk(document); return n; }""")


def _narration_px(page) -> float:
    return page.evaluate("""() => { const sizes = [];
      const walk = (root) => { for (const el of root.querySelectorAll('*')) {
        if (el.shadowRoot) walk(el.shadowRoot);
        if (el.tagName === 'P' && el.getBoundingClientRect().width > 0 &&
            (el.closest('.narration') || (el.getRootNode().host &&
             el.getRootNode().host.classList.contains('narration'))))
          sizes.push(parseFloat(getComputedStyle(el).fontSize)); } };
      walk(document); return sizes.length ? Math.min(...sizes) : 0; }""")


@pytest.mark.parametrize("step", STEPS)
def test_prose_is_readable_and_headline_numbers_few(app, step):
    page = app(f"?step={step}")
    expect(page.locator("[data-metric]").first).to_be_attached(timeout=30_000)
    page.wait_for_timeout(2000)
    assert _narration_px(page) >= 16
    assert 1 <= _visible_cards(page) <= 4


@pytest.mark.parametrize("step", STEPS)
def test_presenter_mode_first_screen(app, page, step):
    page.set_viewport_size({"width": 1280, "height": 720})
    app(f"?step={step}&present=1")
    expect(page.locator("[data-metric]").first).to_be_attached(timeout=30_000)
    page.wait_for_timeout(2000)
    for sel in (".question", "[role=\"img\"]:not(.schematic)", "[data-metric]"):
        el = page.locator(f"{sel}:visible").first
        box = el.bounding_box()
        assert box is not None and box["y"] < 720, (sel, box)
