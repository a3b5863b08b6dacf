"""The heading's schematic of an attention layer: legible where it shows (every word, the
subscripts of W_Q, W_K, W_V included, at least 12 px on screen, a visible caption that says
what the bold parts are), and gone where the heading has no room for that (a phone)."""
import pytest
from playwright.sync_api import expect


@pytest.mark.parametrize("width", [1440, 1024, 760, 480])
@pytest.mark.parametrize("lang", ["en", "pl"])
def test_the_schematic_is_legible_where_it_shows(app, page, lang, width):
    page.set_viewport_size({"width": width, "height": 900})
    app(f"?step=3&lang={lang}")
    expect(page.locator(".step-head h2")).to_be_visible()
    got = page.evaluate("() => KVT.heading.schematic()")
    assert got["shown"] and got["inside"], got
    small = [(w, round(px, 1)) for w, px in got["words"] if w.strip() and px < 12]
    assert small == [], small
    assert got["subs"] == 3 and got["captionPx"] >= 12
    assert "3" in got["caption"] and len(got["caption"]) > 20


def test_on_a_phone_the_schematic_is_gone(app, page):
    page.set_viewport_size({"width": 390, "height": 844})
    app("?step=3")
    expect(page.locator(".step-head h2")).to_be_visible()
    assert page.evaluate("() => KVT.heading.schematic()") == {"shown": False}
