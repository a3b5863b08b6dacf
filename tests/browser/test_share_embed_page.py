"""Sharing a view and the figure-only embed in a real browser: the copy link, opened in a new
page, shows the same step, controls and frame (also when copied while the player plays); the
figure-only embed shows the figure, its controls and the lead sentence and no prose; the
course page hears both height messages (ours and Canvas's)."""
from urllib.parse import urlsplit

import pytest
from helpers import metric, wait_url
from playwright.sync_api import expect

from conftest import ARTIFACTS


def _copy(page, server):
    """Press “Copy link” and return what it put on the clipboard."""
    origin = "{0.scheme}://{0.netloc}".format(urlsplit(server))
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=origin)
    page.get_by_role("button", name="Copy link").click()
    expect(page.locator(".share-say")).to_have_text("Link copied")
    return page.evaluate("() => navigator.clipboard.readText()")


def _open(page, link):
    other = page.context.new_page()
    other.goto(link)
    other.wait_for_selector("h1, .embed-line", timeout=60_000)
    return other


def test_copy_link_opens_the_same_view(app, page, server):
    app("?step=3")
    page.get_by_label("Layer", exact=True).select_option(label="Layer 1")
    page.get_by_label("Key/value head").select_option(label="Head 2")
    wait_url(page, "head=2")
    page.locator(".player-next button").click()
    page.locator(".player-next button").click()
    wait_url(page, "frame=2")
    link = _copy(page, server)
    (ARTIFACTS / "screens").mkdir(parents=True, exist_ok=True)
    page.locator(".prevnext").screenshot(path=str(ARTIFACTS / "screens" / "copy-link.png"))
    assert link.startswith(server + "?step=3") and "frame=2" in link and "layer=1" in link
    assert "head=2" in link
    other = _open(page, link)
    try:
        expect(other.locator("h2").first).to_contain_text("Step 3 of 6")
        expect(other.locator(".player-pos")).to_have_text(page.locator(".player-pos").inner_text())
        for label in ("Layer", "Key/value head"):
            expect(other.get_by_label(label, exact=True).locator("option:checked")).to_have_text(
                page.get_by_label(label, exact=True).locator("option:checked").inner_text())
        expect(other.get_by_label("Layer", exact=True).locator("option:checked")).to_have_text(
            "Layer 1")
        expect(other.locator(".cache-svg .cache-row")).to_have_count(
            page.locator(".cache-svg .cache-row").count())
        assert other.evaluate("() => location.search") == page.evaluate("() => location.search")
    finally:
        other.close()


def test_copy_link_while_playing_keeps_the_frame_on_screen(app, page, server):
    """The server hears of the playhead only when the player stops: the link still carries
    the frame on screen."""
    app("?step=1")
    origin = "{0.scheme}://{0.netloc}".format(urlsplit(server))
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=origin)
    first = page.locator(".player-pos").inner_text()
    page.locator(".player-play button").click()
    expect(page.locator(".player-pos")).not_to_have_text(first, timeout=10_000)
    # what the page shows when the button's click handler runs (the handler makes the link
    # before anything else can move the player)
    page.locator(".share-btn").evaluate("(a) => KVT.share_embed_page.noteWhatTheClickSees(a)")
    page.locator(".share-btn").click()
    pos, seq = page.evaluate("() => window.__at")
    expect(page.locator(".share-say")).to_have_text("Link copied")
    link = page.evaluate("() => navigator.clipboard.readText()")
    page.locator(".player-play button").click()                   # pause
    other = _open(page, link)
    try:
        expect(other.locator(".player-pos")).to_have_text(pos)
        expect(metric(other, "seq_len")).to_have_text(seq)
    finally:
        other.close()


def test_the_embed_bar_has_the_copy_link_and_it_opens_the_full_page(app, page, server):
    app("?step=2&tokens=40&embed=1")
    expect(page.locator(".embed-line .share-btn")).to_have_text("Copy link")
    link = _copy(page, server)
    assert "embed" not in link and "figure" not in link and "tokens=40" in link
    other = _open(page, link)
    try:
        expect(other.locator("h1")).to_have_count(1)                 # the full page
        expect(other.locator(".question")).to_have_count(1)
    finally:
        other.close()


def test_figure_only_shows_the_figure_controls_and_lead_and_no_prose(app, page):
    app("?step=3&frame=3&layer=2&embed=1&figure=1&controls=example,layer")
    expect(page.locator(".stage-svg svg")).to_have_count(1)
    expect(page.locator(".step-lead")).to_be_visible()
    expect(page.get_by_label("Layer", exact=True).locator("option:checked")).to_have_text(
        "Layer 2")
    expect(page.locator(".player-pos")).to_contain_text("3")
    expect(page.locator(".legend").first).to_be_visible()
    for gone in (".question", ".narration", "details.deeper", "h1", ".faq", ".step-tab"):
        expect(page.locator(gone)).to_have_count(0)
    expect(page.locator(".step-head")).to_be_hidden()              # the bar says where
    expect(page.locator(".stage-cards")).to_be_hidden()          # the figure, not its cards
    expect(page.get_by_role("button", name="Copy link")).to_have_count(0)   # the course page's
    # the stage comes right after the lead and the controls: near the top
    box = page.locator(".stage-svg svg").bounding_box()
    assert box and box["y"] < 700, box


def test_figure_only_without_a_stage_shows_the_visual_column(app, page):
    app("?step=6&part=a&heads=8&embed=1&figure=1")
    expect(page.locator(".step6-bars")).to_be_visible()
    expect(page.locator('[data-metric="factor"]')).to_have_count(0)   # the figure, not its cards
    expect(page.get_by_role("radio", name="GQA (8)")).to_be_checked()
    for gone in (".question", ".narration", ".step-tab"):
        expect(page.locator(gone)).to_have_count(0)
    for label in page.locator(".step6-bars .bar-label").all_inner_texts():
        assert "?" not in label, label                       # nothing waits for an answer


@pytest.mark.parametrize("part", ["a", "b", "c", "d"])
def test_a_parts_figure_only_embed_leads_with_the_parts_own_title(app, page, part):
    """A part's figure-only embed leads with its own title (what it shows), not step 6's long
    lead about all four parts."""
    page.set_viewport_size({"width": 760, "height": 900})
    app(f"?step=6&part={part}&embed=1&figure=1")
    title = page.locator(".part-title h3")
    expect(title).to_be_visible(timeout=60_000)
    expect(title).to_contain_text(f"{part.upper()}. ")
    expect(page.locator(".step-lead")).to_have_count(0)


def test_part_cs_figure_only_embed_is_its_continuations_alone(app, page):
    """Part C's figure is the two continuations: its figure-only embed is its title, two
    controls and that figure (no cards, no “All numbers”, no badges' legend), under 800 px."""
    page.set_viewport_size({"width": 760, "height": 900})
    app("?step=6&part=c&embed=1&figure=1")
    expect(page.locator(".step6-continuations")).to_be_visible(timeout=60_000)
    for gone in (".metric", "details.all-numbers", ".badge-legend", ".question", ".narration",
                 ".step-tab"):
        expect(page.locator(f".step {gone}")).to_have_count(0)
    expect(page.locator(".ctl:visible")).to_have_count(2)
    height = page.locator(".kv-root").evaluate("(e) => e.getBoundingClientRect().height")
    assert height <= 800, height


def test_the_course_page_hears_both_height_messages(page, server, course_site):
    page.add_init_script("""window.__kv = []; window.addEventListener("message", (e) => {
        if (window === window.top) window.__kv.push(e.data); });""")
    page.goto(f"{course_site}/embed.html?app={server}")
    page.wait_for_function("(a) => KVT.share_embed_page.theCoursePageHearsBothHeightMessages(a)",
                           timeout=60_000)
    got = page.evaluate("() => window.__kv")
    ours = sorted(m["height"] for m in got if m.get("type") == "kv-explainer:height")
    canvas = sorted(m["height"] for m in got if m.get("subject") == "lti.frameResize")
    assert ours == canvas                                # the same heights, in both forms
    figure = page.frame_locator("iframe.kv-explainer").nth(2)
    expect(figure.locator(".stage-svg svg")).to_have_count(1, timeout=60_000)
    expect(figure.locator(".question")).to_have_count(0)


@pytest.mark.parametrize("query", ["step=1", "step=2", "step=3&frame=3", "step=4", "step=5",
                                   "step=6&part=a", "step=6&part=b", "step=6&part=c",
                                   "step=6&part=d", "step=end"])
def test_screenshot_figure_only(app, page, query):
    """Figure-only as a course page's frame shows it (760 px wide): for people to look at."""
    page.set_viewport_size({"width": 760, "height": 900})
    app(f"?{query}&embed=1&figure=1")
    expect(page.locator(".question")).to_have_count(0)
    expect(page.locator(".step-visual svg:visible, .step-visual .metric:visible, .step-visual table:visible, .step6-bars:visible, .key-ideas:visible").first).to_be_visible(
        timeout=60_000)
    page.wait_for_timeout(1000)
    out = ARTIFACTS / "screens"
    out.mkdir(parents=True, exist_ok=True)
    name = query.replace("step=", "step").replace("&part=", "").replace("&frame=", "-f")
    page.screenshot(path=str(out / f"{name}-embed-figure.png"), full_page=True)


TALLEST_FRAME = "(a) => KVT.share_embed_page.tallestFrame(a)"


@pytest.mark.parametrize("query", ["step=1", "step=2", "step=3", "step=3&lang=pl", "step=4",
                                   "step=5", "step=6&part=a", "step=6&part=b", "step=6&part=c",
                                   "step=6&part=d", "step=end", "step=end&lang=nl"])
def test_a_figure_only_embed_fits_beside_a_lecturers_text(app, page, query):
    """At 760 px wide, a figure-only embed is at most 800 px tall at every frame of its
    figure, as first drawn and after each Step forward (step 3's cache grows a row a step:
    its rows share a fixed height, thinner as they come; step 6B's and 6D's figures grow
    too): the lead, at most two controls and the figure (step 4's roofline alone, step 5's
    growth curve alone). The key ideas' figure is the six ideas, compact: the intro, the
    formula box, the links back to the steps, to the sheet and the glossary and the print
    button stay on the full page."""
    page.set_viewport_size({"width": 760, "height": 900})
    app(f"?{query}&embed=1&figure=1")
    expect(page.locator(".step").first).to_be_attached(timeout=60_000)
    page.wait_for_timeout(1500)
    if query == "step=1":           # the arcs start near the figure's top (at most a row of text
        # over the highest arc, kept at every frame): no empty band over them
        assert page.evaluate("() => KVT.share_embed_page.emptyAbove()") <= 24
    first, tallest, frames = page.evaluate(TALLEST_FRAME)
    if query == "step=1":           # nor at the last frame (the same room over the highest arc)
        assert page.evaluate("() => KVT.share_embed_page.emptyAbove()") <= 24
    assert tallest <= 800, (query, first, tallest, frames)
    if query.startswith(("step=2", "step=3", "step=6&part=b", "step=6&part=d")):
        assert frames > 5, (query, frames)                   # the player went through them
    assert page.locator(".ctl:visible").count() <= 2
    if query.startswith("step=end"):
        expect(page.locator(".takeaways li:visible")).to_have_count(6)
        for gone in (".formula-box", ".ending-intro", ".back-link", ".sheet-link", ".print-btn"):
            expect(page.locator(f"{gone}:visible")).to_have_count(0)
    expect(page.get_by_role("button", name="Copy link")).to_have_count(0)
    if query == "step=4":
        expect(page.locator(".roof-svg")).to_have_count(1)
        expect(page.locator(".batch-svg")).to_have_count(0)
    if query == "step=5":
        expect(page.locator(".stage-svg .bill-svg")).to_have_count(1)


def test_a_course_page_chooses_the_embeds_controls(app, page):
    app("?step=5&embed=1&figure=1&controls=model,batch")
    expect(page.get_by_label("Model", exact=True)).to_be_visible()
    expect(page.locator(".ctl:visible")).to_have_count(2)
    expect(page.get_by_label("Context length (tokens per sequence)")).to_have_count(0)
