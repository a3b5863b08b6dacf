"""The copy-link button and the figure-only layout, unit by unit in headless Chromium (no
server): the link a view shares (the page's query, the frame on screen while playing, no embed
modes), the button (the clipboard, nothing sent to the server, a polite confirmation; a
selected text field when the clipboard refuses) and the blocks figure-only draws."""
from __future__ import annotations

import json

import pytest

from steps.shell import App
from conftest import bundle_page



@pytest.fixture(scope="module")
def kv(browser):
    with bundle_page(browser, css=False) as page:
        yield page


def test_share_url_is_the_view_without_the_embed_modes(kv):
    out = kv.evaluate("(a) => KVT.share_units.shareUrlIsTheViewWithoutTheEmbedModes(a)")
    assert out == [
        "https://kv.example.edu/app?step=3&lang=nl&example=1&frame=2&layer=3&head=1",
        "https://kv.example.edu/app?step=3&lang=en&frame=5&layer=3",
        "https://kv.example.edu/app?step=2&lang=en&tokens=40&prompt=5",
        "https://kv.example.edu/app?step=1&lang=en&frame=4",
        "https://kv.example.edu/app?step=5&lang=en&model=custom&custom=layers-32_kv-8",
        "https://kv.example.edu/app",
        "https://kv.example.edu/app?step=4&lang=id&batch=8",
    ]


def _shell_state(**query) -> dict:
    app = App(query={k: [str(v).encode()] for k, v in query.items()})
    try:
        return app.shell_state() | {"_query": app.url_query()}
    finally:
        app.step.close()


COPY = "(a) => KVT.share_units.copy(a)"


def test_the_copy_button_uses_the_clipboard_and_sends_nothing(kv):
    s = _shell_state(step=1, lang="en", frame=2, layer=2)
    out = kv.evaluate(COPY, [s, "ok", False])
    assert out["sent"] == []                                   # nothing to the server
    assert len(out["copied"]) == 1
    url = out["copied"][0]
    assert url.endswith("?step=1&lang=en&example=0&frame=6&layer=2&head=1"), url   # playing: 6
    assert out["label"] == "Copy link"
    assert out["said"] == "Link copied" and out["live"] == "polite" and out["role"] == "status"
    assert not out["fieldShown"]


def test_embedded_the_copy_button_is_in_the_bar_and_the_link_is_not_embedded(kv):
    s = _shell_state(step=3, lang="pl", embed=1)
    out = kv.evaluate(COPY, [s, "ok", False])
    assert out["inBar"] and out["sent"] == []
    assert out["label"] == "Kopiuj link" and out["said"] == "Skopiowano link"
    url = out["copied"][0]
    assert "embed" not in url and "figure" not in url and "step=3&lang=pl" in url


@pytest.mark.parametrize("clipboard", ["refused", "none"])
def test_without_the_clipboard_the_link_is_selected_in_a_field(kv, clipboard):
    s = _shell_state(step=2, lang="nl", tokens=20)
    out = kv.evaluate(COPY, [s, clipboard, False])
    assert out["sent"] == [] and out["copied"] == []
    assert out["fieldShown"] and out["selected"]
    assert out["fieldValue"].endswith("?step=2&lang=nl&tokens=24&prompt=5")   # 20 + (6 - 2)
    assert out["fieldLabel"] == "Link naar deze weergave"
    assert out["said"] == "De link is geselecteerd: druk op Ctrl+C om hem te kopiëren."
    # the browser's copy command works: copied, and the field goes away again
    out = kv.evaluate(COPY, [s, clipboard, True])
    assert out["said"] == "Link gekopieerd" and not out["fieldShown"]
