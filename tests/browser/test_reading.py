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


# what the projected page shows, measured inside the component's shadow root: whether the
# page scrolls, where the lead, the question, the controls and everything in the visual column
# end, the smallest body text, the smallest chart text as it shows on screen (its font size
# times the chart's scale), the smallest label of the figure's words, and any language menu or
# FAQ
PRESENTED = """() => {
  const all = (sel) => { const out = []; const walk = (root) => {
      out.push(...root.querySelectorAll(sel));
      for (const el of root.querySelectorAll('*')) if (el.shadowRoot) walk(el.shadowRoot); };
    walk(document); return out; };
  const shown = (e) => { const r = e.getBoundingClientRect();
    return r.width > 0 && r.height > 0 && getComputedStyle(e).visibility !== 'hidden'; };
  const px = (e) => parseFloat(getComputedStyle(e).fontSize);
  const bottom = (sel) => Math.max(0, ...all(sel).filter(shown).map((e) => e.getBoundingClientRect().bottom));
  const body = all('.step-lead p, .question, .q-btn').filter(shown).map(px);
  const chart = all('.step-visual svg text').filter((t) => shown(t) && t.textContent.trim() &&
      t.getAttribute('display') !== 'none').map((t) => px(t) * t.closest('svg').getScreenCTM().a);
  const labels = all('.metric-label, .ctl-label, .legend, .player-pos, .stage-caption, .chart-title, ' +
                     '.bar-name, .bar-label')
      .filter(shown).map(px);
  return { scroll: document.documentElement.scrollHeight - innerHeight, height: innerHeight,
    lead: bottom('.step-lead'), question: bottom('.question-box'), controls: bottom('.ctl-row'),
    visual: Math.max(0, ...all('.step-visual > *').filter(shown).map((e) => e.getBoundingClientRect().bottom)),
    figures: all('.step-visual svg:not(.player-icon), .step-visual .kv-groups').filter(shown).length,
    body: Math.min(...body), chart: Math.min(...chart), labels: Math.min(...labels),
    menus: all('#kv-lang, .faq, nav.stepnav').filter(shown).length,
    pale: Math.min(...all('.grids-svg .cell.cached, .roof-svg .mem-region').filter(shown)
      .map((e) => parseFloat(getComputedStyle(e).fillOpacity))) };
}"""


@pytest.mark.parametrize("size,lang", [((1280, 720), "en"), ((1920, 1080), "en"),
                                       ((1280, 720), "pl"), ((1280, 720), "nl"),
                                       ((1280, 720), "id")],
                         ids=["720p", "1080p", "720p-pl", "720p-nl", "720p-id"])
@pytest.mark.parametrize("step", STEPS)
def test_presenter_mode_fits_a_projector_and_reads_from_the_back(app, page, step, size, lang):
    """Presenter mode at 16:9 (in every language at 1280×720): the lead, the question, the
    controls and the figure fit the screen without scrolling; body text at least 24 px, chart text at least 18 px on screen;
    shaded regions and cached cells not pale; no language menu, stepper or FAQ."""
    w, hgt = size
    page.set_viewport_size({"width": w, "height": hgt})
    app(f"?step={step}&present=1&lang={lang}")
    expect(page.locator("[data-metric]").first).to_be_attached(timeout=30_000)
    page.wait_for_timeout(2000)
    m = page.evaluate(PRESENTED)
    assert m["scroll"] <= 0, m
    for part in ("lead", "question", "controls", "visual"):
        assert 0 < m[part] <= hgt, (part, m)
    assert m["figures"] >= 1, m
    assert m["body"] >= 24 and m["chart"] >= 17.9 and m["labels"] >= 18, m
    assert m["menus"] == 0, m
    assert m["pale"] >= 0.35, m       # “read from cache” cells and shaded regions, projected


@pytest.mark.parametrize("step", STEPS)
def test_go_deeper_sections_wait_collapsed_and_open_on_a_click(app, step):
    """Beside the figure only a few words; the rest waits in “Go deeper” sections, collapsed,
    always in the same order (why it works, the live model, the literature). A click opens
    one and shows its words."""
    page = app(f"?step={step}")
    expect(page.locator("[data-metric]").first).to_be_attached(timeout=30_000)
    sections = page.locator("details.deeper")
    expect(sections.first).to_be_attached()
    names = sections.evaluate_all(
        "els => els.map(e => [...e.classList].find(c => c.startsWith('deeper-')).slice(7))")
    order = ["why", "live", "literature"]
    assert names and names == sorted(names, key=order.index) and len(set(names)) == len(names)
    assert sections.evaluate_all("els => els.filter(e => e.open).length") == 0
    first = sections.first
    expect(first.locator("summary")).to_contain_text("Go deeper")
    words = first.locator("p").first
    expect(words).to_be_hidden()
    first.locator("summary").click()
    expect(words).to_be_visible()
    assert len(words.inner_text().split()) >= 5
