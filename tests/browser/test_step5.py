"""Step 5 in a real browser: a newcomer's page (part A: three controls, four cards, the bill
and its growth) and the planner's (part B, a tab away, opened by a link that sets one of its
inputs), the reference figures of the memory bill, the slider moving the bill and the plot's
point, the answer waiting for the question, Polish numbers, and your model: the native box (a
config.json, a parameter count, Read: one message), bad input as translated sentences drawn as
text, a good config and its link, a bad link and the model's limit."""
import pytest
from helpers import metric, nudge_slider, wait_url
from playwright.sync_api import expect

from steps.ui import bundle

NBSP = "\u00a0"


def test_step5_reference_figures_batch_and_slider(app):
    page = app("?step=5")
    expect(metric(page, "per_token")).to_have_text(f"512{NBSP}KiB")
    expect(metric(page, "kv_cache")).to_contain_text(f"2.1{NBSP}GB")
    expect(metric(page, "weights")).to_have_text(f"13.5{NBSP}GB")
    expect(metric(page, "total")).to_have_text(f"15.6{NBSP}GB")
    expect(metric(page, "fits")).to_contain_text("24")
    expect(metric(page, "live_measured")).to_have_text(
        metric(page, "live_formula").text_content())
    expect(page.locator(".formula-headline p").first).to_contain_text(
        f"512{NBSP}KiB per token")
    page = app("?step=5&batch=8")
    expect(metric(page, "kv_cache")).to_contain_text(f"16{NBSP}GiB")
    expect(page.locator(".bill-svg .seg")).to_have_count(3)      # weights, keys, values
    dot = page.locator(".bill-svg .now-dot")
    expect(dot).to_have_count(1)
    before = dot.get_attribute("cx")
    nudge_slider(page, 0, "ArrowRight", 2)                  # context up
    expect(metric(page, "kv_cache")).not_to_contain_text(f"16{NBSP}GiB")
    expect(dot).not_to_have_attribute("cx", before)         # the plot's point moved too
    wait_url(page, "context=")


VISIBLE = "els => els.filter((e) => e.checkVisibility()).length"


def visible(page, selector):
    """How many elements match `selector` and are shown (inside the component's shadow root
    too: Playwright's locators pierce it); a card under the collapsed “All numbers” is not."""
    return page.locator(selector).evaluate_all(VISIBLE)


def test_step5_a_newcomer_meets_the_bill_three_controls_and_four_cards(app):
    """The default page is part A: the bar and the growth curve, at most four cards (the
    others under the collapsed “All numbers”) and three controls; the planner, the precisions,
    the GPUs and the engine's share are part B's, one click away on its tab, and back."""
    page = app("?step=5")
    expect(page.locator(".bill-svg .now-dot")).to_have_count(1)
    expect(page.locator(".ctl:visible")).to_have_count(3)
    for label in ("Context length (tokens per sequence)", "Batch size (sequences)", "Model"):
        expect(page.get_by_label(label, exact=True)).to_be_visible()
    assert visible(page, "[data-metric]") <= 4
    assert visible(page, ".planner, .ctl-gpu, .ctl-gpus, .ctl-share, .ctl-weights, "
                         ".ctl-precision") == 0
    options = page.get_by_label("Model", exact=True).locator("option").all_text_contents()
    assert "Your model: paste a config.json" not in options       # pasted in part B
    tabs = page.get_by_role("tab")
    expect(tabs).to_have_count(2)
    expect(tabs.first).to_have_text("A. The bill")
    expect(tabs.first).to_have_attribute("aria-selected", "true")
    # one click: the planner, its table and its controls
    page.get_by_role("tab", name="B. Plan a server").click()
    wait_url(page, "part=b")
    expect(page.locator(".planner-table")).to_be_visible()
    expect(metric(page, "plan_batch")).to_contain_text("sequences")
    for label in ("GPU for “how many fit”", "Weight precision", "Cache precision",
                  "GPUs for the planner", "Serving engine's share of GPU memory (%)"):
        expect(page.get_by_text(label, exact=True).first).to_be_visible()
    expect(page.get_by_label("GPU for “how many fit”")).to_be_visible()
    expect(page.locator(".ctl-batch")).to_have_count(0)
    expect(page.locator(".bill-svg")).to_have_count(0)
    page.get_by_role("tab", name="A. The bill").click()
    wait_url(page, "part=a")
    expect(page.locator(".bill-svg .now-dot")).to_have_count(1)
    expect(page.locator(".ctl:visible")).to_have_count(3)


def test_step5_a_deep_link_that_sets_the_gpus_opens_the_planner(app):
    """A link made before the step had parts still shows all it says: its GPUs open part B."""
    page = app("?step=5&gpu=h100&gpus=2")
    expect(page.get_by_role("tab", name="B. Plan a server")).to_have_attribute(
        "aria-selected", "true")
    expect(page.locator(".planner-heading")).to_contain_text("2 × H100")
    expect(page.get_by_role("radio", name="2", exact=True)).to_be_checked()
    wait_url(page, "part=b")
    page = app("?step=5&part=a&gpu=h100")                     # a link that names its part
    expect(page.locator(".ctl:visible")).to_have_count(3)
    expect(page.locator(".bill-svg .gpu-label.chosen")).to_contain_text(f"80{NBSP}GiB")


def test_step5_answer_is_concealed_until_answered(app):
    page = app("?step=5")
    expect(page.locator(".question").first).to_contain_text(f"13.5{NBSP}GB")
    expect(metric(page, "crossover")).to_have_text("?")
    expect(page.locator(".bill-svg .now-dot")).to_have_count(1)
    expect(page.locator(".bill-svg .cross-mark")).to_have_count(0)
    expect(page.locator(".stage-said")).to_have_count(0)
    page.locator(".answer-1 button").click()
    expect(metric(page, "crossover")).to_contain_text("25,700")
    expect(page.locator(".bill-svg .cross-mark")).to_have_count(1)
    expect(page.locator(".stage-said")).to_contain_text("25,700")


def test_step5_polish(app):
    page = app("?step=5&lang=pl")
    expect(metric(page, "weights")).to_have_text(f"13,5{NBSP}GB")
    expect(metric(page, "total")).to_have_text(f"15,6{NBSP}GB")
    expect(page.locator(".bill-svg .tick-label").first).to_have_text("0")
    assert f"8{NBSP}192" in page.locator(".bill-svg .tick-label").all_text_contents()


LLAMA = ('{"model_type": "llama", "num_hidden_layers": 32, "num_attention_heads": 32, '
         '"num_key_value_heads": 8, "hidden_size": 4096, "intermediate_size": 14336, '
         '"vocab_size": 128256, "max_position_embeddings": 131072, "torch_dtype": "bfloat16"}')
FALCON = ('{"model_type": "falcon", "num_hidden_layers": 32, "num_attention_heads": 71, '
          '"multi_query": true, "hidden_size": 4544}')


def read_config(page, value, params=None):
    page.locator("textarea.config-text").fill(value)
    if params is not None:
        page.locator("input.config-params").fill(params)
    page.locator("button.config-read").click()


def test_step5_your_model_box_is_there_when_chosen(app):
    page = app("?step=5")
    expect(page.locator("textarea.config-text")).to_be_hidden()
    page.get_by_role("tab", name="B. Plan a server").click()           # where it is pasted
    page.get_by_label("Model", exact=True).select_option(label="Your model: paste a config.json")
    area = page.get_by_label("config.json of your model")        # labelled native elements
    expect(area).to_be_visible()
    expect(page.get_by_label("Parameters in billions (if the config cannot give them)")) \
        .to_be_visible()
    expect(page.get_by_role("button", name="Read this config")).to_be_visible()
    wait_url(page, "model=custom")
    # the text and the count leave together, at once after typing: no text arrives late
    read_config(page, FALCON, "6.922")
    expect(page.locator(".config-fields")).to_contain_text("1 (multi_query)")
    expect(page.locator(".config-problems")).to_have_text("")
    # an empty count: counted from the config, which cannot give it
    read_config(page, FALCON, "")
    expect(page.locator(".config-problems")).to_contain_text("enter the parameter count")


def test_step5_your_model_bad_input_then_a_good_config_and_its_link(app):
    page = app("?step=5&model=custom")
    expect(page.locator(".notice").first).to_contain_text("No model of yours yet")
    problems = page.locator(".config-problems")
    # not JSON: a translated sentence that says where, no traceback, the page still works
    read_config(page, '{"num_hidden_layers": 32,')
    expect(problems).to_contain_text("not valid JSON")
    expect(problems).to_contain_text("line 1")
    expect(page.locator("body")).not_to_contain_text("Traceback")
    # a missing field is named
    read_config(page, '{"num_attention_heads": 32, "hidden_size": 4096}')
    expect(problems).to_contain_text("“num_hidden_layers” is missing")
    # markup: said to be a web page; a value with markup is shown as text, never run
    read_config(page, "<img src=x onerror=alert(1)>")
    expect(problems).to_contain_text("web page (HTML)")
    read_config(page, '{"model_type": "<img src=x onerror=alert(1)>", "num_hidden_layers": 2}')
    expect(problems).to_contain_text("<img src=x onerror=alert(1)>")
    expect(page.locator(".config-problems img")).to_have_count(0)
    expect(page.locator("img[src='x']")).to_have_count(0)     # no element was made of it
    # far too much text
    read_config(page, "x" * 250_000)
    expect(problems).to_contain_text("too long")
    before = metric(page, "plan_batch").inner_text()
    nudge_slider(page, 0, "ArrowRight", 2)                  # the page still works
    expect(metric(page, "plan_batch")).not_to_have_text(before)
    # a good config: your model, its fields, the formula with their values, and the link
    read_config(page, LLAMA)
    expect(metric(page, "per_token")).to_have_text(f"128{NBSP}KiB")
    expect(problems).to_have_text("")
    expect(page.locator(".config-fields")).to_contain_text("num_key_value_heads = 8")
    expect(page.locator(".config-fields")).to_contain_text("2 × 32 × 8 × 128 × 2")
    wait_url(page, "custom=layers-32_heads-32_kv-8_hd-128")
    url = page.evaluate("() => location.search")
    assert "num_hidden_layers" not in url                  # the config itself is not in it
    kv = metric(page, "plan_batch").inner_text()
    page = app(url)                                         # the link alone: the same model
    expect(metric(page, "per_token")).to_have_text(f"128{NBSP}KiB")
    expect(metric(page, "plan_batch")).to_have_text(kv)
    expect(page.locator(".config-fields")).to_contain_text("From the link: layers = 32")
    expect(page.locator(".notice")).to_have_count(0)


def test_step5_bad_link_and_the_model_limit(app):
    page = app("?step=5&model=custom&custom=layers-0_heads-8_hd-8_params-9")
    expect(page.locator(".config-problems")).to_contain_text("The model in the link is not valid")
    expect(page.locator(".config-problems")).to_contain_text("“layers”")
    expect(metric(page, "weights")).to_have_text(f"13.5{NBSP}GB")      # meanwhile: Llama 2 7B
    page = app("?step=5&context=8192")
    expect(page.locator(".notice").first).to_contain_text("at most 4,096 tokens")
    expect(page.locator(".bill-svg .limit-line")).to_have_count(1)
    expect(metric(page, "gpu_memory")).to_have_text(f"80{NBSP}GiB = 85.9{NBSP}GB")
    expect(page.locator(".bill-svg .gpu-label.chosen")).to_contain_text(f"80{NBSP}GiB")
    page = app("?step=5&part=a&model=deepseek-v3&gpu=h200")
    expect(page.locator(".formula-headline p").first).to_contain_text(
        "(latent 512 + rotary key 64)")
    page = app("?step=5&model=gemma3-27b&context=32768")
    expect(page.locator(".formula-headline p").nth(1)).to_contain_text("52 sliding-window layers")


BOX = {"widget": "config", "label": "config.json of your model", "placeholder": "{...}",
       "value": "", "max_length": 200_001, "params_label": "Parameters", "params_value": None,
       "read": "Read this config", "problems": [], "fields": []}


def test_the_config_box_on_its_own(page):
    """js/draw/config.js without a server: one message per Read, with the text and the count;
    a field the learner is editing is not overwritten by the server's older value; what the
    server says is drawn as text; no box when the state has none."""
    page.set_content("<!doctype html><html><body><div id='root'></div></body></html>")
    page.add_script_tag(content=bundle.source(exposing=True), type="module")
    page.wait_for_function("() => globalThis.KV !== undefined")
    got = page.evaluate("(a) => KVT.step5.theConfigBoxOnItsOwn(a)", BOX)
    assert got["sent"] == [{"custom": {"config": '{"a": 1}', "params_b": 6.5}},
                           {"custom": {"config": '{"a": 1}', "params_b": None}}]
    assert got["label"] == "config.json of your model" and got["button"] == "Read this config"
    assert got["kept"] == "typed, not read yet"
    assert got["img"] == 0 and got["problem"] == "<img src=x> is not valid"
    assert got["role"] == "status" and got["hidden"] is True
    assert got["maxLength"] == 200_001


def test_step5_your_model_box_has_no_serious_accessibility_violation(app):
    """axe-core (WCAG 2.1 A/AA) on the box with a problem shown, in Polish."""
    from axe_playwright_python.sync_playwright import Axe
    page = app("?step=5&lang=pl&model=custom")
    read_config(page, '{"num_hidden_layers": 32,')
    expect(page.locator(".config-problems .notice")).to_have_count(1)
    results = Axe().run(page, options={"runOnly": {"type": "tag", "values": [
        "wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]}})
    bad = [(v["id"], v["impact"], [n["target"] for n in v["nodes"]][:3])
           for v in results.response["violations"] if v["impact"] in ("serious", "critical")]
    assert bad == []


def test_step5_read_is_one_message_each_way(app, page):
    """Read sends the text and the count as one message, and the server answers with one
    PATCH-DOC (the box's words, the model, the cards, the charts and the link together)."""
    from test_messages import patch_docs, settle
    sent, received = [], []
    page.on("websocket", lambda ws: (ws.on("framesent", lambda f: sent.append(f)),
                                     ws.on("framereceived", lambda f: received.append(f))))
    app("?step=5&model=custom")
    expect(page.locator("textarea.config-text")).to_be_visible()
    settle(page, received)
    s0, r0 = len(sent), len(received)
    read_config(page, FALCON, "6.922")
    expect(page.locator(".config-fields")).to_contain_text("1 (multi_query)")
    settle(page, received)
    reads = [f for f in sent[s0:] if isinstance(f, str) and "multi_query" in f]
    assert len(reads) == 1 and "6.922" in reads[0]
    assert len(patch_docs(received[r0:])) == 1


# -- the planner's questions and the layer map (issue 28) ------------------------------------

def test_step5_layer_map_and_planner_cards_follow_the_controls(app):
    page = app("?step=5&part=a&model=gemma3-27b&context=32768&gpu=h200")
    strip = page.locator(".layers-svg")
    expect(strip).to_have_count(1)
    expect(strip.locator("rect.layer-sliding")).to_have_count(52)     # keep 1,024 tokens
    expect(strip.locator("rect.layer-full")).to_have_count(10)        # keep 32,768
    legend = page.locator(".layer-legend")
    expect(legend).to_contain_text("10 layers, full attention: 32,768 tokens each")
    expect(legend).to_contain_text("52 layers, sliding window of 1,024: 1,024 tokens each")
    # the strip's text twin waits in the collapsed “Show as table”; the planner is one table
    twin = page.locator("details.twin")
    rows = twin.locator("table").filter(has_text="sliding window of 1,024").locator("tbody tr")
    expect(rows).to_have_count(2)
    expect(rows.first).not_to_be_visible()
    expect(page.locator(".step-visual > table, .step-visual > div > table.layer-table")).to_have_count(0)
    expect(page.locator(".formula-headline p").nth(1)).to_contain_text(
        "10 full-attention layers × 32,768 tokens + 52 sliding-window layers × 1,024 tokens")
    page.get_by_role("tab", name="B. Plan a server").click()          # the planner's part
    expect(metric(page, "plan_context")).to_have_text("131,072 tokens")
    expect(page.locator('[data-metric="plan_context"] .metric-note')).to_have_text("the model's limit")
    expect(metric(page, "plan_batch")).to_contain_text("sequences")
    page.get_by_label("GPU for “how many fit”").select_option(label=f"L4 (24{NBSP}GiB)")
    wait_url(page, "gpu=l4")
    expect(metric(page, "plan_context")).to_have_text("none")
    expect(page.locator('[data-metric="plan_context"] .metric-note')).to_have_text(
        "the weights do not fit")
    expect(metric(page, "engine_batch")).to_have_text("0 sequences")
    page.get_by_role("radio", name="4", exact=True).check()          # 4 × L4
    wait_url(page, "gpus=4")
    expect(metric(page, "plan_context")).to_have_text("131,072 tokens")
    expect(page.locator(".planner-heading")).to_contain_text("The planner's questions on 4 × L4 (")
    # a model whose layers all keep every token: one sentence, not 32 bars as tall as each other
    page.get_by_label("Model", exact=True).select_option(label="Llama 3.1 8B (GQA)")
    wait_url(page, "model=llama3.1-8b")
    page.get_by_role("tab", name="A. The bill").click()
    wait_url(page, "part=a")
    expect(page.locator(".bill-svg .now-dot")).to_have_count(1)
    expect(strip).to_have_count(0)
    expect(page.locator(".step-visual")).to_contain_text(
        "Every layer keeps the same (32 layers in all): 32,768 tokens each (full attention).")


def test_step5_engine_estimate_deep_link_and_share(app):
    page = app("?step=5&model=llama3.1-8b&gpu=l4&context=32768")
    # by hand (tests/test_planner.py): 74,079 tokens ideal; 2,707 blocks of 16 for the engine
    expect(metric(page, "plan_context")).to_have_text("74,079 tokens")
    expect(metric(page, "engine_context")).to_have_text("43,312 tokens")
    expect(page.locator('[data-metric="engine_context"] .metric-note')).to_have_text("memory binds")
    # each row of the planner's table carries its badge: ideal computed, the engine illustrative
    expect(page.locator(".planner-table tr.plan-illustrative .badge")).to_have_text("illustrative")
    expect(page.locator(".planner-table tr.plan-computed .badge")).to_have_text("computed")
    expect(page.locator(".planner-table tr.plan-illustrative [data-metric=engine_context]")).to_have_count(1)
    share = page.locator(".ctl-share input[type=range]")
    share.focus()
    share.press("ArrowLeft")                                          # 90 % -> 85 %
    wait_url(page, "share=85")
    expect(metric(page, "engine_context")).not_to_have_text("43,312 tokens")
    page = app("?step=5&model=llama3.1-8b&gpu=l4&context=32768&share=85&gpus=2")
    expect(page.get_by_role("radio", name="2", exact=True)).to_be_checked()
    expect(page.locator(".planner-heading")).to_contain_text("2 × L4")
    page = app("?step=5&part=b&share=200&gpus=3")                    # invalid: defaults
    notices = page.locator(".notice")
    expect(notices.filter(has_text="“200” of “share”")).to_have_count(1)
    expect(notices.filter(has_text="“3” of “gpus”")).to_have_count(1)
    expect(page.locator(".planner-heading")).to_contain_text("1 × A100 80 GB SXM")


def test_step5_layer_map_of_a_pasted_llama4_config(app):
    from pathlib import Path
    scout = Path("/work/shared/reference/configs/Llama-4-Scout-17B-16E-Instruct.json")
    page = app("?step=5&part=b&context=32768")
    page.get_by_label("Model", exact=True).select_option(label="Your model: paste a config.json")
    read_config(page, scout.read_text())
    wait_url(page, "model=custom")
    page.get_by_role("tab", name="A. The bill").click()          # your model's bill, in A
    strip = page.locator(".layers-svg")
    expect(strip.locator("rect.layer-chunked")).to_have_count(36)     # chunks of 8,192
    expect(strip.locator("rect.layer-full")).to_have_count(12)
    expect(page.locator(".layer-legend")).to_contain_text(
        "36 layers, chunked attention, chunks of 8,192: 8,192 tokens each")
    expect(page.locator(".formula-headline p").nth(1)).to_contain_text(
        "12 full-attention layers × 32,768 tokens + 36 chunked-attention layers × 8,192 tokens")


def test_step5_precisions_move_the_bill_and_the_planner_together(app):
    page = app("?step=5&model=deepseek-v3&gpu=h200&gpus=8&context=8192")
    expect(metric(page, "weights")).to_have_text("672.9 GB")          # fp8, as released
    expect(page.get_by_role("radio", name="fp16", exact=True)).to_be_checked()
    expect(page.locator(".planner-heading")).to_contain_text(
        "(weights: fp8 as released; cache: fp16)")
    ideal = metric(page, "plan_batch").inner_text()
    page.get_by_label("Weight precision").select_option(label="int4")
    wait_url(page, "weights=int4")
    expect(metric(page, "weights")).to_have_text("351.3 GB")   # 4 bits + scales; embeddings 16-bit
    page.get_by_role("radio", name="fp8", exact=True).check()
    wait_url(page, "precision=fp8")
    expect(metric(page, "per_token")).to_have_text(f"34.3{NBSP}KiB")
    expect(page.locator(".planner-heading")).to_contain_text("(weights: 4-bit (int4); cache: fp8)")
    expect(metric(page, "plan_batch")).not_to_have_text(ideal)
    page.get_by_role("tab", name="A. The bill").click()          # the bill counts with both
    expect(page.locator(".formula-headline p").first).to_contain_text("× 1 B = 34.3 KiB per token")
    expect(metric(page, "weights")).to_have_text("351.3 GB")
    # the link brings both back; a bad value falls back with a notice
    page = app("?step=5&model=deepseek-v3&gpu=h200&gpus=8&context=8192&weights=int4&precision=fp8")
    expect(metric(page, "weights")).to_have_text("351.3 GB")
    expect(page.get_by_role("radio", name="fp8", exact=True)).to_be_checked()
    page = app("?step=5&part=b&precision=fp4")
    expect(page.locator(".notice").filter(has_text="“fp4” of “precision”")).to_have_count(1)
    expect(page.get_by_role("radio", name="fp16", exact=True)).to_be_checked()


FORMULA_LINES = """(p) => {
  const t = p.firstChild, r = document.createRange(), tops = [];
  let at = 0;
  for (const w of t.textContent.split(/( )/)) {          // no-break spaces stay inside a word
    if (w.trim()) {
      r.setStart(t, at); r.setEnd(t, at + w.length);
      tops.push([w, Math.round(r.getBoundingClientRect().top)]);
    }
    at += w.length;
  }
  const last = tops[tops.length - 1][1];
  return tops.filter((w) => w[1] === last).map((w) => w[0]);
}"""


@pytest.mark.parametrize("width", [1440, 1024, 760, 390])
@pytest.mark.parametrize("query", ["?step=5", "?step=5&lang=pl", "?step=5&model=llama3.1-8b"])
def test_step5_formula_keeps_its_result_on_one_line(app, width, query):
    """The formula's result (“= 512 KiB per token”) never breaks, so no word of it (the
    review's orphaned “token”) stands alone on a line; at every width and in Polish."""
    page = app(query)
    page.set_viewport_size({"width": width, "height": 900})
    page.wait_for_timeout(300)
    lines = page.locator(".formula-headline p")
    expect(lines.first).to_contain_text("=")
    for i in range(lines.count()):
        last = lines.nth(i).evaluate(FORMULA_LINES)
        assert last[-1].startswith("="), (i, last)          # the result, whole, at the end
