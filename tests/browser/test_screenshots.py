"""Screenshots of every step (and every part of step 6) in every view a learner or a lecturer
sees: the normal page (every language), presenter mode at 1280×720 and 1920×1080, the speaker
view, embedded in a course page, and on a phone; and the key-ideas page. They are test
artifacts for people to look at (`test-artifacts/screens/`), taken with the console and the
server's log watched: each page must render without errors."""
import pytest
from conftest import ARTIFACTS
from helpers import metric
from playwright.sync_api import expect

from steps.step6.model import PARTS

FIRST_METRIC = {1: "seq_len", 2: "uncached", 3: "cache_length", 4: "prefill_time",
                5: "kv_cache", 6: "cache_gb"}
# every view of a step: (file name, query); step 6 once per part
VIEWS = [(f"step{n}", f"step={n}") for n in range(1, 6)] + [
    (f"step6{p}", f"step=6&part={p}") for p in PARTS]
SCREENS = ARTIFACTS / "screens"


def shoot(page, name: str, full_page: bool = True) -> None:
    SCREENS.mkdir(parents=True, exist_ok=True)
    page.wait_for_timeout(1500)                      # let Bokeh finish drawing
    page.screenshot(path=str(SCREENS / f"{name}.png"), full_page=full_page)


def drawn(page, query: str, figure_only: bool = False) -> None:
    """The step's figure is on screen (step 6's parts: its stage or its figures; figure-only,
    which has no cards: the figure)."""
    if figure_only:
        expect(page.locator(".stage-svg svg:visible, .step-visual figure:visible, "
                            ".step6-continuations:visible, .metrics:visible").first).to_be_visible()
    elif query.startswith("step=6&part=") and not query.split("&")[1] == "part=a":
        # in one column (a phone, an embed) the figure is in the words' box
        expect(page.locator(".step-grid .stage-figure:visible, "
                            ".step-grid .step6-continuations:visible, "
                            ".step-grid .metrics:visible").first).to_be_visible()
    else:
        n = int(query.split("=")[1].split("&")[0])
        expect(metric(page, FIRST_METRIC[n]).first).to_be_attached()


@pytest.mark.parametrize("lang", ["en", "id", "pl", "nl"])
@pytest.mark.parametrize("name,query", VIEWS, ids=[n for n, _ in VIEWS])
def test_screenshot(app, page, name, query, lang):
    """The normal page on a laptop (1440×900), in every language."""
    page.set_viewport_size({"width": 1440, "height": 900})
    page = app(f"?{query}&lang={lang}")
    drawn(page, query)
    expect(page.locator("html")).to_have_attribute("lang", lang)
    shoot(page, f"{name}-{lang}")


@pytest.mark.parametrize("size", [(1280, 720), (1920, 1080)], ids=["720p", "1080p"])
def test_screenshot_presenter(app, page, size):
    """Presenter mode as a projector shows it, at 1280×720 and 1920×1080: the one screen."""
    w, hgt = size
    page.set_viewport_size({"width": w, "height": hgt})
    for name, query in [*VIEWS, ("end", "step=end")]:
        app(f"?{query}&present=1")
        if name != "end":
            drawn(page, query)
        shoot(page, f"{name}-present-{hgt}", full_page=False)


def test_screenshot_speaker(app, page):
    """The speaker view (presenter mode's second window) of every step, on a laptop's screen."""
    page.set_viewport_size({"width": 1280, "height": 800})
    for name, query in [*VIEWS, ("end", "step=end")]:
        app(f"?{query}&present=1&speaker=1")
        expect(page.locator(".talk-notes")).not_to_be_empty()
        shoot(page, f"{name}-speaker")


def test_screenshot_embed_and_phone(app, page):
    """Embedded in an 800 px course page (and figure-only), and on a 390 px phone."""
    for width, hgt, mode, suffix in [(800, 900, "&embed=1", "embed"),
                                     (800, 700, "&embed=1&figure=1", "embed-figure"),
                                     (390, 844, "", "phone")]:
        page.set_viewport_size({"width": width, "height": hgt})
        for name, query in VIEWS:
            app(f"?{query}{mode}")
            drawn(page, query, figure_only="figure=1" in mode)
            shoot(page, f"{name}-{suffix}")


@pytest.mark.parametrize("lang", ["en", "id", "pl", "nl"])
def test_screenshot_key_ideas(app, lang):
    page = app(f"?step=end&lang={lang}")
    expect(page.locator(".takeaways li")).to_have_count(6)
    shoot(page, f"end-{lang}")
