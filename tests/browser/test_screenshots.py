"""A screenshot of every step in every language (test artifacts for people to look at),
taken with the console watched: each page must render without errors."""
import pytest
from conftest import ARTIFACTS
from helpers import metric
from playwright.sync_api import expect

FIRST_METRIC = {1: "seq_len", 2: "uncached", 3: "cache_length", 4: "prefill_time",
                5: "kv_cache", 6: "cache_gb"}


@pytest.mark.parametrize("lang", ["en", "id", "pl", "nl"])
@pytest.mark.parametrize("step", [1, 2, 3, 4, 5, 6])
def test_screenshot(app, step, lang):
    page = app(f"?step={step}&lang={lang}")
    expect(metric(page, FIRST_METRIC[step])).to_be_visible()
    expect(page.locator("html")).to_have_attribute("lang", lang)
    page.wait_for_timeout(1500)                      # let Bokeh finish drawing
    out = ARTIFACTS / "screens"
    out.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(out / f"step{step}-{lang}.png"), full_page=True)


def test_screenshot_narrow(app, page):
    page.set_viewport_size({"width": 360, "height": 800})
    for step in (1, 4, 6):
        app(f"?step={step}&lang=pl")
        expect(metric(page, FIRST_METRIC[step])).to_be_visible()
        page.wait_for_timeout(1500)
        page.screenshot(path=str(ARTIFACTS / "screens" / f"step{step}-pl-360.png"),
                        full_page=True)


@pytest.mark.parametrize("lang", ["en", "id", "pl", "nl"])
def test_screenshot_key_ideas(app, lang):
    page = app(f"?step=end&lang={lang}")
    expect(page.locator(".takeaways li")).to_have_count(6)
    page.screenshot(path=str(ARTIFACTS / "screens" / f"end-{lang}.png"), full_page=True)


def test_screenshot_presenter(app, page):
    """Presenter mode as a projector shows it: 1280×720, the first screen only."""
    page.set_viewport_size({"width": 1280, "height": 720})
    for step in (1, 2, 3, 4, 5, 6):
        app(f"?step={step}&present=1")
        expect(metric(page, FIRST_METRIC[step])).to_be_visible()
        page.wait_for_timeout(1500)
        page.screenshot(path=str(ARTIFACTS / "screens" / f"step{step}-present.png"))
