"""A figure saved for a lecturer's slides (steps/ui/js/save.js): every figure has a small row
by it, “SVG” and “PNG”, named in the page's language; the SVG is the figure as the page draws
it, standing alone (its styles written on each element, no class left for a stylesheet to
fill), its words all there; the PNG is that drawing at twice its size."""
import pytest
from playwright.sync_api import expect

from steps.shell import App


def state(query: dict) -> dict:
    app = App(query={k: [str(v)] for k, v in query.items()})
    app.handle({"shown": True})
    return app.state()


@pytest.mark.parametrize("query", [{"step": 1}, {"step": 2}, {"step": 3}, {"step": 4},
                                   {"step": 5}, {"step": 6, "part": "b"}],
                         ids=lambda q: "-".join(map(str, q.values())))
def test_a_stage_figure_is_saved_as_it_is_drawn(kv, query):
    s = state(query)
    got = kv.evaluate("(a) => KVT.save_figure.saved(a)", [s["stage"], s["frames"], None])
    assert got["root"] == "svg" and not got["error"] and got["nested"] >= 1
    assert [got["width"], got["height"]] == got["box"]
    assert got["classes"] == 0                             # stands alone: styles inline
    missing = [w for w in got["shown"] if w not in got["text"]]
    assert missing == [], missing
    assert got["saved"] == got["strokes"]                  # the lines as drawn
    assert got["png"]["type"] == "image/png" and got["png"]["magic"] == "PNG"
    assert [got["png"]["width"], got["png"]["height"]] == [2 * w for w in got["box"]]


def test_an_html_figure_is_saved_whole(kv):
    """Step 6 part A's head groups and bars are HTML the server draws once: the SVG holds
    them in a <foreignObject>, and the PNG draws it."""
    s = state({"step": 6, "part": "a"})
    html = "".join(f'<div class="{b.get("cls", "")}">{b["html"]}</div>' for b in s["figure"])
    got = kv.evaluate("(a) => KVT.save_figure.saved(a)", [None, None, html])
    assert got["foreign"] == 1 and not got["error"]
    missing = [w for w in got["shown"] if w not in got["text"]]
    assert missing == [], missing
    assert got["png"]["magic"] == "PNG" and got["png"]["width"] == 2 * got["box"][0]


def test_the_buttons_save_the_files_in_the_pages_language(app, page, tmp_path):
    page.set_viewport_size({"width": 1280, "height": 900})
    app("?step=4&lang=pl")
    row = page.locator(".stage .figure-save")
    expect(row).to_be_visible(timeout=30_000)
    expect(row.locator(".figure-save-label")).to_have_text("Zapisz rysunek:")
    svg_btn, png_btn = row.locator("button").nth(0), row.locator("button").nth(1)
    assert svg_btn.get_attribute("aria-label") == "Zapisz rysunek jako SVG"
    with page.expect_download() as d:
        svg_btn.click()
    svg = d.value
    assert svg.suggested_filename == "kv-cache-step-4-roofline.svg"
    svg.save_as(tmp_path / "f.svg")
    text = (tmp_path / "f.svg").read_text(encoding="utf-8")
    assert text.startswith("<svg") and "roofline" in text.lower() and "FLOP/bajt" in text
    with page.expect_download() as d:
        png_btn.click()
    png = d.value
    png.save_as(tmp_path / "f.png")
    assert png.suggested_filename.endswith(".png")
    assert (tmp_path / "f.png").read_bytes()[:4] == b"\x89PNG"
    # part A's HTML figures have their own rows; presenting, none shows
    app("?step=6&part=a&lang=en")
    expect(page.locator(".step6-heads .figure-save button")).to_have_count(2)
    app("?step=4&present=1")
    expect(page.locator(".roof-svg").first).to_be_visible(timeout=30_000)
    assert page.locator(".figure-save:visible").count() == 0
