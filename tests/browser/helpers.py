"""Small helpers shared by the browser tests."""
from playwright.sync_api import expect


def metric(page, key):
    return page.locator(f'[data-metric="{key}"] .metric-value').first


def cds_len(page, name, column="x"):
    """Length of a column of a named Bokeh data source in the page (None if absent)."""
    return page.evaluate(
        """([name, col]) => { for (const d of Bokeh.documents) {
              const m = d.get_model_by_name(name); if (m) return m.data[col].length; }
            return null; }""", [name, column])


def cds(page, name, column):
    return page.evaluate(
        """([name, col]) => { for (const d of Bokeh.documents) {
              const m = d.get_model_by_name(name); if (m) return Array.from(m.data[col]); }
            return null; }""", [name, column])


def wait_cds(page, name, column, predicate_js):
    """Wait until `predicate_js` (a JS expression of `v`, the column) holds."""
    page.wait_for_function(
        "(a) => KVT.helpers.waitCds(a)", arg=[name, column, predicate_js], timeout=20_000)


def choose_language(page, name):
    """The language menu is the page's first drop-down list."""
    page.get_by_role("combobox").first.select_option(label=name)


def nudge_slider(page, index, key="ArrowRight", times=1):
    s = page.get_by_role("slider").nth(index)
    s.focus()
    for _ in range(times):
        page.keyboard.press(key)
    s.blur()


def wait_url(page, fragment):
    """The address bar is rewritten a moment after the state changes: wait for it."""
    page.wait_for_function("(f) => location.search.includes(f)", arg=fragment,
                           timeout=10_000)


def svg_texts(page, selector):
    """The text of every SVG element matching `selector` (inside the stages' shadow roots)."""
    return [t.strip() for t in page.locator(selector).all_text_contents()]


def reveal(page):
    """Press the question's “Show me”: the answer-bearing numbers appear."""
    page.locator(".show-me button").first.click()
    page.locator(".feedback .shown, .feedback .right, .feedback .wrong").first.wait_for(
        state="attached", timeout=10_000)


def open_deeper(page, name):
    """Open the step's collapsed “Go deeper” section `name` (why, live or literature) and
    return it; it must show its words once open."""
    from playwright.sync_api import expect
    section = page.locator(f"details.deeper-{name}").first
    section.locator("summary").click()
    expect(section).to_have_attribute("open", "")
    return section


def play_sends_nothing(page, received, key, last, extra=None):
    """Press Play, wait until metric `key` reads `last` (and `extra()`, an expectation, holds),
    and check that the server sent no websocket frame meanwhile (`received`: the frames seen so
    far); then Pause, after which the server hears the frame (it lands in the link)."""
    before = len(received)
    page.locator(".player-play button").click()
    expect(metric(page, key)).to_have_text(last, timeout=10_000)
    if extra is not None:
        extra()
    page.wait_for_timeout(200)                  # events are delivered between waits
    during = len(received) - before
    assert during == 0, f"the server sent {during} websocket frames while playing"
    page.locator(".player-play button").click()          # Pause: now the server hears it
    wait_url(page, "frame=")


def expect_concealed(page, *keys):
    """Before the question is answered, the cards that would give its answer away read “?”."""
    for key in keys:
        expect(metric(page, key)).to_have_text("?")


# what the projected page shows, measured inside the component's shadow root: whether the
# page scrolls, where the lead, the question, the controls and everything in the visual column
# end, the smallest body text, the smallest chart text as it shows on screen (its font size
# times the chart's scale), the smallest label of the figure's words, and any language menu or
# FAQ
PRESENTED = "(a) => KVT.helpers.presented(a)"


def projected(app, page, size, query, wanted=("lead", "question", "controls", "visual"),
              ready="[data-metric]"):
    """Open `query` (a presenter-mode page) at `size` (width, height) and return what it shows
    (PRESENTED), checked: the page does not scroll, each of `wanted` ends on the screen, body
    text at least 24 px, labels at least 18 px and chart text, where there is any, at least
    18 px on screen (17.9: rounding)."""
    w, hgt = size
    page.set_viewport_size({"width": w, "height": hgt})
    app(query)
    expect(page.locator(ready).first).to_be_attached(timeout=30_000)
    page.wait_for_timeout(2000)
    return fits(page.evaluate(PRESENTED), hgt, wanted)


def fits(m, hgt, wanted):
    """`m` (PRESENTED) fits a screen `hgt` high: see `projected`."""
    assert m["scroll"] <= 0, m
    for where in wanted:
        assert 0 < m[where] <= hgt, (where, m)
    assert m["body"] >= 24 and m["labels"] >= 18, m
    assert m["chart"] is None or m["chart"] >= 17.9, m
    return m
