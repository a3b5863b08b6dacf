"""The glossary in the browser: a term's first use in a step's paragraphs is a button that
shows its definition on hover, focus and tap (Escape closes it), text stays text; the one-line
legend of the badges sits next to the first cards; the glossary page lists every term.

The first tests are JS units (headless Chromium, no server, as tests/browser/test_js_units.py);
the rest run against the served app."""
from __future__ import annotations

from playwright.sync_api import expect

from steps.glossary import TERMS

GLOSSARY = {"lang": "en", "terms": [
    ["token", ["token", "tokens"], "A piece <i>of</i> text & more."],
    ["KV cache", ["KV cache", "cache"], "The keys and values so far."],
    ["key", ["key", "keys"], "A vector."],
    ["key/value head", ["key/value head", "key/value heads"], "A head for keys."],
    ["prompt", ["prompt", "prompts"], "The text given."],
], "legend": {"label": "What the badges mean", "items": [
    ["measured", "measured", "on this server"], ["computed", "computed", "from a formula"],
    ["illustrative", "illustrative", "a sketch"]]}}




DRAW = "(a) => KVT.terms.draw(a)"


def test_a_term_in_a_paragraph_becomes_a_focusable_button_with_its_definition(kv):
    html = kv.evaluate(DRAW, GLOSSARY)
    assert "&lt;b&gt;A" in html and "<b>" not in html          # text is still text
    marked = kv.evaluate("(a) => KVT.terms.markedTerms(a)")
    # the first use of each term in the step's open text, then in the collapsed section the
    # first use of a term the open text does not use; "key/value head" wins over "key" where
    # both start, and "keys" is the first use of "key"
    assert [m[0] for m in marked] == ["token", "KV cache", "key/value head", "keys", "prompt"]
    assert marked[0][1:5] == ["button", 0, "A piece <i>of</i> text & more.", 0]
    assert [m[5] for m in marked] == [False] * 4 + [True]
    # drawn again: marked again, never twice
    kv.evaluate("(g) => globalThis.terms.mark(g)", GLOSSARY)
    assert kv.locator("#root button.term").count() == 5


def test_focus_hover_and_tap_show_the_definition_and_escape_closes_it(kv):
    kv.evaluate(DRAW, GLOSSARY)
    pop = kv.locator("#root .term-pop")
    first = kv.locator("#root button.term").first
    first.focus()
    expect(pop).to_be_visible()
    expect(pop).to_contain_text("A piece <i>of</i> text & more.")
    assert first.get_attribute("aria-expanded") == "true"
    kv.keyboard.press("Escape")
    expect(pop).to_be_hidden()
    kv.locator("#root button.term").nth(1).hover()
    expect(pop).to_contain_text("The keys and values so far.")
    kv.mouse.move(0, 0)
    expect(pop).to_be_hidden()
    kv.locator("#root button.term").nth(2).click()            # a tap opens it ...
    expect(pop).to_contain_text("A head for keys.")
    kv.mouse.move(0, 0)
    expect(pop).to_be_visible()                                # ... and it stays
    kv.locator("#root button.term").nth(2).click()            # a second tap closes it
    expect(pop).to_be_hidden()


def test_no_glossary_marks_nothing(kv):
    kv.evaluate(DRAW, {"terms": [], "legend": None})
    assert kv.locator("#root button.term").count() == 0
    kv.evaluate(DRAW, None)
    assert kv.locator("#root button.term").count() == 0


def test_the_badge_legend_goes_after_the_first_row_of_cards(kv):
    out = kv.evaluate("(a) => KVT.terms.theBadgeLegendGoesAfterTheFirstRowOfCards(a)", GLOSSARY)
    assert out[0] == 1 and out[1] is True
    assert out[2] == ["badge badge-measured", "badge badge-computed", "badge badge-illustrative"]
    assert "measured on this server" in out[3] and "What the badges mean" in out[3]


# -- the served app ---------------------------------------------------------------------------

def test_terms_in_a_step_show_their_definitions(app):
    page = app("?step=2")
    term = page.locator(".step-text button.term:visible").first
    expect(term).to_be_visible(timeout=20_000)
    assert page.locator(".step button.term").count() >= 5
    pop = page.locator(".term-pop")
    term.hover()
    expect(pop).to_be_visible()
    described = term.get_attribute("aria-describedby")
    definition = page.locator(f"[id='{described}']").text_content()
    assert definition and definition in pop.text_content()
    page.keyboard.press("Escape")
    expect(pop).to_be_hidden()
    term.focus()
    expect(pop).to_be_visible()
    term.blur()
    expect(pop).to_be_hidden()
    term.click()
    expect(pop).to_be_visible()
    page.locator("h1").click()                           # a tap elsewhere closes it
    expect(pop).to_be_hidden()


def test_terms_follow_the_language(app):
    page = app("?step=3&lang=pl")
    expect(page.locator(".step button.term").first).to_be_visible(timeout=20_000)
    marked = {t.strip().lower() for t in page.locator(".step button.term").all_text_contents()}
    assert marked & {"klucz", "klucze", "kluczy", "klucza", "wartości", "wartość", "cache",
                     "cache kv", "token", "tokenów", "tokeny"}, marked


def test_the_badge_legend_is_next_to_the_first_card(app):
    page = app("?step=1")
    legend = page.locator(".badge-legend")
    expect(legend).to_have_count(1, timeout=20_000)
    expect(legend.locator(".badge")).to_have_count(3)
    assert page.evaluate("(a) => KVT.terms.theBadgeLegendIsNextToTheFirstCard(a)")


def test_the_glossary_page_lists_every_term_and_is_linked_from_the_ending(app):
    page = app("?step=end")
    link = page.locator("a[href*='glossary=1']")
    expect(link).to_have_count(1, timeout=20_000)
    link.click()
    page.wait_for_selector("h1", timeout=60_000)
    expect(page.locator(".glossary-list:not(.glossary-badges) dt")).to_have_count(
        len(TERMS), timeout=20_000)
    expect(page.locator(".glossary-badges dt .badge")).to_have_count(3)
    assert "glossary=1" in page.url
