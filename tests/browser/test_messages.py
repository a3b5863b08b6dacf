"""What the server sends for one move of a learner: one message, whatever the move changes
(`steps.ui.page.Page._handle_msg`: the move is handled under one hold of the document, and
only the parts of the state that changed are sent)."""
import json
import time

from helpers import choose_language, nudge_slider
from playwright.sync_api import expect


def patch_docs(frames):
    """The PATCH-DOC messages among websocket frames (a message's first frame is its header)."""
    out = []
    for f in frames:
        if isinstance(f, str) and f.startswith("{") and '"msgtype"' in f:
            try:
                if json.loads(f).get("msgtype") == "PATCH-DOC":
                    out.append(f)
            except ValueError:
                pass
    return out


def settle(page, received, quiet_s=1.5):
    """Wait until the server has sent nothing for `quiet_s`."""
    quiet_since, seen = time.monotonic(), len(received)
    while time.monotonic() - quiet_since < quiet_s:
        page.wait_for_timeout(200)
        if len(received) != seen:
            quiet_since, seen = time.monotonic(), len(received)


def test_one_message_per_move(app, page):
    received = []
    page.on("websocket", lambda ws: ws.on("framereceived", lambda f: received.append(f)))
    app("?step=4")
    expect(page.get_by_role("slider").first).to_be_visible()
    settle(page, received)
    assert received, "the websocket was not watched"

    def one_move(move, check):
        before = len(received)
        move()
        check()
        settle(page, received)
        sent = patch_docs(received[before:])
        assert len(sent) == 1, f"{len(sent)} PATCH-DOC messages for one move"

    lang = page.locator("html")
    one_move(lambda: choose_language(page, "Polski"),           # every word of the page changes
             lambda: expect(lang).to_have_attribute("lang", "pl"))
    url = page.url
    one_move(lambda: nudge_slider(page, 0),                     # the step's first slider
             lambda: page.wait_for_function("(u) => location.href !== u", arg=url))
    one_move(lambda: choose_language(page, "English"),
             lambda: expect(lang).to_have_attribute("lang", "en"))
    # a step change, back to a step whose live measurements this server has made (a first
    # visit may bring a second message: a live measurement done)
    current = page.locator('nav.stepnav button[aria-current="step"]')
    page.locator("nav.stepnav button").nth(2).click()
    expect(current).to_contain_text("3")
    settle(page, received)
    one_move(lambda: page.locator("nav.stepnav button").nth(3).click(),   # step 4's whole state
             lambda: expect(current).to_contain_text("4"))
