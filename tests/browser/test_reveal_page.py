"""Predict, then see it, in a real browser: a pick stays marked right or wrong and the right
option is marked too (a sign and words, not colour alone); the answer moves the figure to the
state it talks about (step 1: the next token; step 3: decode step 3; step 6, Part A: GQA), and
the link follows; before the answer nothing on the page gives it away (steps 2 to 5)."""
import re

import pytest
from conftest import ARTIFACTS
from helpers import metric, wait_url
from playwright.sync_api import expect


def option(page, i):
    return page.locator(f".answer-{i} button")


def marked(page, picked, right):
    """The pick (wrong or right) and the right option, marked."""
    expect(option(page, picked)).to_have_attribute("aria-pressed", "true")
    expect(option(page, right)).to_have_class(re.compile(r"\bq-right\b"))
    expect(option(page, right).locator(".q-sign")).to_have_text("✓")
    expect(option(page, right)).to_contain_text("the right answer")    # said, for a reader
    if picked != right:
        expect(option(page, picked)).to_have_class(re.compile(r"\bq-wrong\b"))
        expect(option(page, picked).locator(".q-sign")).to_have_text("✗")
    expect(option(page, right)).to_have_attribute("aria-disabled", "true")   # the pick stays
    expect(page.locator(".show-me")).to_be_hidden()


def test_step1_a_wrong_pick_is_marked_and_the_figure_goes_to_the_next_token(app):
    page = app("?step=1")
    expect(metric(page, "keys_read")).to_have_text("?")
    expect(metric(page, "seq_len")).to_have_text("5")
    expect(page.locator(".arcs-svg .tok-text")).to_have_count(6)       # 5 tokens and → next
    option(page, 1).click()                                            # 5: not its own key
    marked(page, picked=1, right=2)
    expect(page.locator("p.wrong")).to_contain_text("q·k scores: 6")
    # the figure: the next token, its query reading the 5 cached keys and its own
    expect(metric(page, "keys_read")).to_have_text("6")
    expect(metric(page, "seq_len")).to_have_text("6")
    expect(page.locator(".arcs-svg .tok-text")).to_have_count(7)
    expect(page.locator(".arcs-svg .tok-text").nth(5)).to_have_text("Paris")
    expect(page.locator(".player-pos")).to_contain_text("1 of 11")
    wait_url(page, "frame=1")
    (ARTIFACTS / "screens").mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "screens" / "reveal-s1-wrong-pick.png"))
    page.reload()                                                      # the link keeps it
    page.wait_for_selector("h1", timeout=60_000)
    expect(page.locator(".player-pos")).to_contain_text("1 of 11")


def test_step1_show_me_marks_the_right_option_and_moves_the_figure(app):
    page = app("?step=1&lang=pl")
    page.locator(".show-me button").click()
    expect(option(page, 2)).to_have_class(re.compile(r"\bq-right\b"))
    expect(option(page, 2)).to_have_attribute("aria-pressed", "false")   # nothing was picked
    expect(option(page, 2).locator(".q-sign")).to_have_text("✓")
    expect(metric(page, "keys_read")).to_have_text("4")                # 3 prompt tokens + 1
    wait_url(page, "frame=1")


def test_step3_right_pick_moves_to_decode_step_3(app):
    page = app("?step=3")
    expect(metric(page, "cache_length")).to_have_text("?")
    expect(metric(page, "new_kv")).to_have_text("?")                   # the new rows wait too
    expect(page.locator(".cache-svg .cache-row")).to_have_count(5)
    option(page, 2).click()                                            # 5 + 3 = 8
    marked(page, picked=2, right=2)
    expect(option(page, 2)).to_have_class(re.compile(r"\bchosen\b"))
    expect(page.locator("p.right")).to_contain_text("decode step 3")
    expect(metric(page, "cache_length")).to_have_text("8")
    expect(page.locator(".cache-svg .cache-row")).to_have_count(8)
    expect(page.locator(".player-pos")).to_contain_text("3 of 11")
    wait_url(page, "frame=3")


def test_step6_part_a_answer_switches_gqa_on(app):
    page = app("?step=6")
    expect(metric(page, "factor")).to_have_text("?")
    expect(page.locator(".heads-line")).to_contain_text("32 key/value heads")
    # MHA is the baseline: the same size, and no factor while the question is open
    expect(page.locator(".bars-svg .bar-label").last).to_contain_text("same size as the baseline")
    option(page, 2).click()                                            # 32×: that is MQA
    marked(page, picked=2, right=1)
    expect(metric(page, "factor")).to_have_text("4×")
    expect(page.locator(".heads-line")).to_contain_text("share the key/value heads (8)")
    expect(page.locator(".kv-groups .kv")).to_have_count(8)
    expect(page.locator(".bars-svg .bar-label").last).to_contain_text("4× smaller")
    expect(page.locator(".bars-svg .bar-label").last).not_to_contain_text("same size")
    wait_url(page, "heads=8")
    (ARTIFACTS / "screens").mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "screens" / "reveal-s6a-wrong-pick.png"))


# -- nothing answer-bearing before the answer ------------------------------------------------

def test_step2_nothing_before(app):
    page = app("?step=2")
    for key in ("uncached", "cached", "ratio"):
        expect(metric(page, key)).to_have_text("?")
    expect(page.locator(".grid-summary")).to_contain_text("?")
    expect(page.locator(".step-text").first).not_to_contain_text("T(T−1)/2")   # the formula
    page.locator(".show-me button").click()
    expect(metric(page, "uncached")).to_have_text("200")
    expect(page.locator(".step-text").first).to_contain_text("T(T−1)/2")


def test_step3_nothing_before(app):
    page = app("?step=3&frame=2")
    for key in ("cache_length", "new_kv", "shape"):
        expect(metric(page, key)).to_have_text("?")


def test_step4_nothing_before(app):
    page = app("?step=4")
    for key in ("prefill_intensity", "decode_intensity", "prefill_bound", "decode_bound"):
        expect(metric(page, key)).to_have_text("?")
    expect(page.locator(".roof-svg .region")).to_have_count(0)
    page.locator(".show-me button").click()
    expect(metric(page, "prefill_intensity")).to_have_text("502")
    expect(metric(page, "decode_intensity")).to_have_text("0.97")


def last_x(page):
    d = page.locator(".bill-svg .kv-line").get_attribute("d")
    return float(d.split(" L ")[-1].split()[0])


def test_step5_the_curve_stops_at_this_context_until_answered(app):
    page = app("?step=5")
    expect(metric(page, "crossover")).to_have_text("?")
    expect(page.locator(".bill-svg .cross-mark")).to_have_count(0)
    expect(page.locator(".stage-said")).to_have_count(0)
    dot = float(page.locator(".bill-svg .now-dot").get_attribute("cx"))
    assert abs(last_x(page) - dot) < 0.5            # no curve past this context: no crossing
    (ARTIFACTS / "screens").mkdir(parents=True, exist_ok=True)
    page.locator(".bill-svg .kv-line").scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / "screens" / "reveal-s5-before.png"))
    option(page, 1).click()
    expect(page.locator(".bill-svg .cross-mark")).to_have_count(1)
    assert last_x(page) > dot + 100                 # the whole curve, past the crossing
    expect(metric(page, "crossover")).to_contain_text("25,700")


def test_the_marked_options_pass_axe(app):
    """A wrong pick and the right option marked: colours, contrast and aria still pass."""
    from axe_playwright_python.sync_playwright import Axe
    page = app("?step=3")
    option(page, 0).click()
    marked(page, picked=0, right=2)
    page.wait_for_timeout(1500)
    results = Axe().run(page, options={"runOnly": {"type": "tag", "values": [
        "wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]}})
    bad = [(v["id"], v["impact"], [n["target"] for n in v["nodes"]][:3])
           for v in results.response["violations"] if v["impact"] in ("serious", "critical")]
    assert bad == []


# the figure's parts the answer talks about, and the answer's size against the words around it
POINTS = "(a) => KVT.reveal_page.points(a)"


@pytest.mark.parametrize("query,named", [
    ("?step=2", "cells-u"), ("?step=3", "keys"), ("?step=6&part=a", "groups"),
    ("?step=6&part=b", "used"), ("?step=6&part=d", "budget"),
    ("?step=3&present=1", "keys"), ("?step=6&part=a&present=1", "groups"),
    ("?step=1", "arcs"), ("?step=1", "own"), ("?step=1&present=1", "arcs"),
    ("?step=4", "ridge"), ("?step=4&present=1", "ridge"),
    ("?step=4", "decode"), ("?step=5", "crossover"), ("?step=5&present=1", "crossover")],
    ids=["s2", "s3", "s6a", "s6b", "s6d", "s3-present", "s6a-present", "s1-arcs", "s1-own",
         "s1-present", "s4", "s4-present", "s4-decode", "s5", "s5-present"])
def test_the_answer_is_set_large_and_marks_the_part_of_the_figure_it_talks_about(app, query,
                                                                                  named):
    """Before the answer nothing in the figure is marked; once it is out (“Show me”), the part
    the answer talks about (QuestionState.points) is marked, an SVG part with a highlighter's
    band behind it that pulses, and the answer is set at the question's size or larger, and at
    least the size of the step's words, in the learners' page and projected."""
    page = app(query)
    expect(page.locator(".show-me button")).to_be_visible(timeout=30_000)
    page.wait_for_timeout(1000)
    assert page.evaluate(POINTS)["marked"] == []
    page.locator(".show-me button").click()
    expect(page.locator(".feedback p.shown")).to_be_visible(timeout=15_000)
    page.wait_for_timeout(1500)                     # the figure moves to the answer's state
    m = page.evaluate(POINTS)
    assert any(named in (p["point"] or "").split() for p in m["marked"]), m
    for p in m["marked"]:
        assert p["glow"] or not p["svg"], m
        assert p["animation"] in ("kv-point", "kv-point-ring"), m
    assert m["answer"] and min(m["answer"]) >= m["question"] - 0.01, m
    assert min(m["answer"]) >= m["body"] - 0.01, m


def test_the_mark_does_not_pulse_under_reduced_motion(app, page):
    page.emulate_media(reduced_motion="reduce")
    app("?step=3")
    page.locator(".show-me button").click()
    expect(page.locator(".feedback p.shown")).to_be_visible(timeout=15_000)
    page.wait_for_timeout(1500)
    m = page.evaluate(POINTS)
    assert m["marked"] and all(p["animation"] == "none" for p in m["marked"]), m
