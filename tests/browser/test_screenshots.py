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


@pytest.mark.parametrize("size", [(1280, 720), (1920, 1080)], ids=["720p", "1080p"])
def test_screenshot_presenter(app, page, size):
    """Presenter mode as a projector shows it, at 1280×720 and 1920×1080: the one screen."""
    w, hgt = size
    page.set_viewport_size({"width": w, "height": hgt})
    suffix = "" if hgt == 720 else f"-{hgt}"
    for step in (1, 2, 3, 4, 5, 6, "end"):
        app(f"?step={step}&present=1")
        if step != "end":
            expect(metric(page, FIRST_METRIC[step])).to_be_visible()
        page.wait_for_timeout(1500)
        page.screenshot(path=str(ARTIFACTS / "screens" / f"step{step}-present{suffix}.png"))


def test_screenshot_speaker(app, page):
    """The speaker view (presenter mode's second window) of every step, on a laptop's screen."""
    page.set_viewport_size({"width": 1280, "height": 800})
    for step in (1, 2, 3, 4, 5, 6, "end"):
        app(f"?step={step}&present=1&speaker=1")
        expect(page.locator(".talk-notes")).not_to_be_empty()
        page.wait_for_timeout(1500)
        page.screenshot(path=str(ARTIFACTS / "screens" / f"step{step}-speaker.png"),
                        full_page=True)
