"""Step 4 in a real browser: the reference figures, the roofline and decode against the batch
drawn from one still frame, the answer waiting for the question, the model menu and its limits,
the live measurement arriving after a move, a redraw at a new width, and the roofline's labels
clear of one another in every language, at a phone's width and a projector's."""
import re

import pytest
from helpers import expect_concealed, metric, nudge_slider, open_deeper, reveal, wait_url
from playwright.sync_api import expect

from explainer.i18n import LANGS
from steps.step4.view import Step4
from test_js_units import OVERLAPS

NBSP = "\u00a0"


def test_step4_reference_figures_and_slider(app):
    page = app("?step=4")
    expect(metric(page, "decode_steps")).to_have_text("255")
    expect(metric(page, "read_per_step")).to_have_text(f"13.9{NBSP}GB")
    expect(metric(page, "prefill_intensity")).to_have_text("?")     # waits for the answer
    reveal(page)
    expect(metric(page, "prefill_intensity")).to_have_text("502")
    expect(metric(page, "prefill_time")).to_have_text(f"23{NBSP}ms")
    expect(metric(page, "decode_step_time")).to_have_text(f"6.9{NBSP}ms")
    expect(metric(page, "measured_decode")).to_contain_text("tokens/s", timeout=180_000)
    live = open_deeper(page, "live")                  # the measurement and its CPU caveat
    expect(live.locator(".live-speed").first).to_be_visible()
    expect(live.locator(".live-speed").first).to_contain_text("Python")
    # the roofline is drawn in the browser: both points, labelled on the chart
    points = page.locator(".roof-svg .pt")
    expect(points).to_have_count(2)
    assert [t.strip() for t in page.locator(".roof-svg .pt-label").all_text_contents()] == [
        "prefill", "decode"]
    expect(page.locator(".stage .player").first).to_be_hidden()     # a still figure
    decode = page.locator(".roof-svg .pt-decode")
    before = decode.get_attribute("cx")
    nudge_slider(page, 1, "ArrowLeft", 3)                   # output tokens down
    expect(metric(page, "decode_steps")).not_to_have_text("255", timeout=15_000)
    expect(decode).not_to_have_attribute("cx", before)      # the decode point moved too
    wait_url(page, "output=")


def test_step4_answer_is_concealed_until_answered(app):
    page = app("?step=4&prompt=16")
    expect(page.locator(".question").first).to_contain_text("16")
    expect_concealed(page, "decode_bound", "prefill_bound")
    # the primer before the question: slope, roof and ridge, which place no phase
    idea = page.locator(".step-text > .narration").first
    expect(idea).to_contain_text("The slope")
    assert idea.evaluate("(p) => !!(p.compareDocumentPosition("
                         "p.getRootNode().querySelector('.question-box')) & 4)")   # before it
    # no dots where the answer is read: neither phase, nor decode at every batch, nor the
    # ceiling's line; the roofline and its ridge are drawn
    expect(page.locator(".roof-svg .roof")).to_have_count(1)
    expect(page.locator(".roof-svg .ridge-line")).to_have_count(1)
    for none in (".pt", ".trail", ".ceiling-line", ".mem-region", ".region"):
        expect(page.locator(".roof-svg " + none)).to_have_count(0)
    expect(page.locator(".batch-svg .bcurve")).to_have_count(2)     # no FLOP-per-byte panel
    # no FLOP/byte anywhere: the cards, the twin, the description
    expect_concealed(page, "decode_intensity", "prefill_intensity", "intensity_ceiling")
    expect(page.locator(".batch-svg .pt-label", has_text="?")).to_have_count(0)
    twin = page.locator(".twin tbody tr")
    expect(twin.first).to_be_attached()
    cells = [t.strip() for k in (2, 3)                  # FLOP per byte, attainable TFLOP/s
             for t in page.locator(f".twin tbody tr > :nth-child({k})").all_text_contents()]
    assert len(cells) >= 4 and set(cells) == {"?"}, cells      # (the shadow root: locators)
    holder = page.locator("[aria-label^='Roofline']").first
    desc = holder.get_attribute("aria-label")
    assert "once you answer" in desc
    page.locator(".answer-2 button").click()       # both: a 16-token prefill is memory-bound too
    expect(page.locator("p.right")).to_contain_text("Both")
    expect(metric(page, "decode_bound")).to_have_text("memory-bound")
    expect(metric(page, "prefill_bound")).to_have_text("memory-bound")
    expect(page.locator(".roof-svg .mem-region")).to_have_count(1)
    expect(page.locator(".roof-svg .region")).to_have_count(2)
    expect(page.locator(".roof-svg .pt")).to_have_count(2)            # the dots, now
    expect(page.locator(".batch-svg .bcurve")).to_have_count(3)
    expect(metric(page, "decode_intensity")).not_to_have_text("?")
    dai = metric(page, "decode_intensity").text_content().strip()      # 0.99
    flops = page.locator(".batch-svg .pt-label").first          # the decode point's value
    expect(flops).to_have_text(dai)
    expect(holder).to_have_attribute("aria-label", re.compile(
        f"decode step: {re.escape(dai)} FLOP/byte"))
    assert dai not in desc and dai not in " ".join(cells)
    assert "?" not in "".join(page.locator(".twin tbody").all_text_contents())


def test_step4_batch_moves_the_decode_point_and_draws_its_curve(app):
    page = app("?step=4&gpu=h100&batch=64")
    expect(metric(page, "decode_intensity")).to_have_text("?")      # waits for the answer
    reveal(page)
    expect(metric(page, "decode_intensity")).to_have_text("22")     # 64 × 2N ÷ (W + 64 C)
    expect(metric(page, "batch")).to_have_text("64")                 # under All numbers
    expect(metric(page, "intensity_ceiling")).to_have_text("33.5")
    expect(metric(page, "gains_stop")).to_have_text("302 sequences")
    assert [t.strip() for t in page.locator(".roof-svg .pt-label").all_text_contents()] == [
        "prefill", "decode, batch 64"]
    expect(page.locator(".roof-svg .pt")).to_have_count(2)
    expect(page.locator(".roof-svg .trail")).to_have_count(47)      # batch 1 .. 256
    expect(page.locator(".roof-svg .ceiling-line")).to_have_count(1)
    expect(page.locator(".batch-svg .bcurve")).to_have_count(3)     # FLOP/byte, tokens/s, time
    expect(page.locator(".batch-svg .bnow")).to_have_count(3)
    expect(page.locator(".batch-svg .mark-fits")).to_have_count(3)  # 180 fit in 80 GiB
    decode = page.locator(".roof-svg .pt-decode")
    dot = page.locator(".batch-svg .bnow").first
    before, bx = decode.get_attribute("cx"), dot.get_attribute("cx")
    # the batch up, one key at a time (a busy server's reply to one key may come after the
    # next one); the slider keeps the keyboard while the words around it are drawn again, so
    # its arrows never reach the page (where they move through the steps)
    page.get_by_role("slider").nth(2).focus()
    for batch in ("65", "66", "67"):
        page.keyboard.press("ArrowRight")
        expect(metric(page, "batch")).to_have_text(batch)
    expect(page.locator('nav.stepnav button[aria-current="step"]')).to_contain_text("4")
    page.get_by_role("slider").nth(2).blur()
    expect(decode).not_to_have_attribute("cx", before)      # the decode point moved ...
    expect(dot).not_to_have_attribute("cx", bx)             # ... and the batch marker
    wait_url(page, "batch=67")
    why = open_deeper(page, "why")                    # the answer's derivation, collapsed
    expect(why).to_contain_text("Batching shares the weight reads, not the cache reads")
    expect(why.locator(".shrink-links a").first).to_be_visible()
    expect(why.locator(".shrink-links a").first).to_have_attribute(
        "href", "?step=6&lang=en&heads=8")
    expect(open_deeper(page, "literature")).to_contain_text("continuous batching")


def test_step4_model_menu_and_limits(app):
    page = app("?step=4&model=falcon-7b&gpu=a100-80&batch=256&prompt=16&output=2")
    expect(page.locator(".question").first).to_contain_text("256 sequences")
    page.locator(".answer-0 button").click()        # the prefill: a 256-batch decode step of
    expect(page.locator("p.right")).to_contain_text("The prefill")     # MQA reaches the roof
    expect(metric(page, "decode_bound")).to_have_text("compute-bound")
    # the live measurement settles before the page is left (a socket closed mid-write is noise)
    expect(metric(page, "measured_decode")).to_contain_text("tokens/s", timeout=180_000)
    page = app("?step=4&prompt=8192&output=2048")           # past Llama 2's 4,096 tokens
    expect(page.locator(".notice").first).to_contain_text("at most 4,096 tokens")
    why = open_deeper(page, "why")                    # the times are lower bounds
    expect(why.locator(".live-facts", has_text="lower bounds")).to_have_count(1)
    expect(why.locator(".live-facts", has_text="lower bounds")).to_be_visible()


def test_step4_a_move_to_another_grid_point_measures_it_without_waiting(app):
    page = app("?step=4")
    expect(metric(page, "measured_decode")).to_contain_text("tokens/s", timeout=180_000)
    speed = open_deeper(page, "live").locator(".live-speed").first
    # 496 prompt tokens: measured at the grid's 256 (no other test here asks for it)
    nudge_slider(page, 0, "ArrowLeft")
    expect(metric(page, "prefill_tokens")).to_have_text("496")
    expect(metric(page, "measured_decode")).to_have_text("measuring…", timeout=5_000)
    expect(metric(page, "measured_decode")).to_contain_text("tokens/s", timeout=180_000)
    expect(speed).to_contain_text("prompt tokens: 256")
    wait_url(page, "prompt=496")


def test_step4_the_figure_is_drawn_again_at_a_new_width(app):
    page = app("?step=4&gpu=h100&batch=64")
    reveal(page)
    expect(page.locator(".roof-svg .pt")).to_have_count(2)
    for batch in ("65", "66", "67"):                        # the latest frame: batch 67
        nudge_slider(page, 2, "ArrowRight")
        expect(metric(page, "batch")).to_have_text(batch)
    roof = page.locator(".roof-svg")
    wide = roof.get_attribute("viewBox")
    page.set_viewport_size({"width": 420, "height": 900})
    expect(roof).not_to_have_attribute("viewBox", wide)    # laid out for the phone's width
    assert [t.strip() for t in page.locator(".roof-svg .pt-label").all_text_contents()] == [
        "prefill", "decode, batch 67"]                      # ... from the latest frame
    page.set_viewport_size({"width": 1280, "height": 900})
    expect(roof).to_have_attribute("viewBox", wide)


@pytest.fixture
def quick(step4_stand_in):
    """A stand-in measurement: the states below are drawn, not measured."""


STATES = [dict(gpu="h100", batch=64),
          dict(model="falcon-7b", gpu="a100-80", batch=256, prompt=16, output=2),
          dict(model="llama2-70b", gpu="l4", prompt=512, output=2048),
          dict(model="gemma3-27b", prompt=8192, output=2048, batch=200),
          dict(model="mixtral-8x7b", gpu="h200", batch=8, prompt=16, output=1),
          dict(model="qwen3-8b", gpu="h100", batch=256, prompt=4096, output=2048)]


@pytest.mark.parametrize("width", [360, 760])
@pytest.mark.parametrize("lang", list(LANGS))
@pytest.mark.parametrize("inputs", STATES, ids=lambda d: "-".join(map(str, d.values())))
def test_step4_labels_never_cover_each_other(kv, quick, inputs, lang, width):  # noqa: F811
    """Beyond the defaults (test_js_units): other models, GPUs, batches and lengths, before
    the answer and after it (the regions named)."""
    for shown in (False, True):
        s = Step4(lang, saved={"model": inputs, "questions": {"": {"shown": shown}}}).state()
        bad = kv.evaluate(OVERLAPS, [s["stage"], s["frames"], width])
        assert bad == [], "\n".join(bad[:12])


def test_step4_projects_the_roofline_then_the_batch_charts(app, page):
    """Projected, the roofline takes the whole visual column; PageDown shows the batch charts
    on a screen of their own, then the next step (the layout table's `figures`)."""
    page.set_viewport_size({"width": 1280, "height": 720})
    app("?step=4&present=1")
    expect(page.locator(".roof-svg")).to_be_visible()
    expect(page.locator(".batch-svg")).to_have_count(0)
    expect(page.locator(".screen-pos")).to_have_text("Chart 1 of 2")
    box = page.locator(".roof-svg").bounding_box()
    assert box["width"] >= 600 and box["height"] >= 380, box
    page.locator("h2").first.click()
    page.keyboard.press("PageDown")
    expect(page.locator(".batch-svg")).to_be_visible()
    expect(page.locator(".roof-svg")).to_have_count(0)
    expect(page.locator(".screen-pos")).to_have_text("Chart 2 of 2")
    page.keyboard.press("PageUp")
    expect(page.locator(".roof-svg")).to_be_visible()
    page.keyboard.press("PageDown")
    page.keyboard.press("PageDown")
    expect(page.locator("h2").first).to_contain_text("Step 5 of 6")
    expect(page.locator(".screen-pos")).to_have_text("Chart 1 of 3")     # the growth curve first
