"""Steps 2-6 in a real browser: deep links show the reference figures, the player and the
sliders change numbers and plot data, Polish formats numbers with decimal commas."""
import re

from helpers import metric, nudge_slider, wait_cds, wait_url
from playwright.sync_api import expect

NBSP = "\u00a0"


def text(page, key):
    return metric(page, key).inner_text().replace(NBSP, " ").replace("\u202f", " ")


def reveal(page):
    """Press “Show me”: the answer-bearing numbers wait for it."""
    page.locator(".show-me button").click()


def pos(page):
    return page.locator(".player-pos")


def test_step4_reference_figures_and_slider(app):
    page = app("?step=4")
    expect(metric(page, "decode_steps")).to_have_text("255")
    expect(metric(page, "read_per_step")).to_have_text(f"13.9{NBSP}GB")
    expect(metric(page, "prefill_intensity")).to_have_text("502")
    expect(metric(page, "prefill_time")).to_have_text(f"23{NBSP}ms")
    expect(metric(page, "decode_step_time")).to_have_text(f"6.9{NBSP}ms")
    expect(metric(page, "measured_decode")).to_contain_text("tokens/s", timeout=180_000)
    expect(page.locator(".live-speed").first).to_contain_text("Python")   # the CPU caveat
    # the roofline is drawn in the browser: both points, labelled on the chart
    points = page.locator(".roof-svg .pt")
    expect(points).to_have_count(2)
    assert [t.strip() for t in page.locator(".roof-svg .pt-label").all_text_contents()] == [
        "prefill", "decode"]
    expect(page.locator(".stage .player").first).to_be_hidden()     # a still figure
    decode = page.locator(".roof-svg .pt-decode")
    before = decode.get_attribute("cx")
    nudge_slider(page, 1, "ArrowLeft", 3)                   # output tokens down
    expect(metric(page, "decode_steps")).not_to_have_text("255")
    expect(decode).not_to_have_attribute("cx", before)      # the decode point moved too
    wait_url(page, "output=")


def test_step4_answer_is_concealed_until_answered(app):
    page = app("?step=4&prompt=16")
    expect(page.locator(".question").first).to_contain_text("16")
    expect(metric(page, "decode_bound")).to_have_text("?")
    expect(metric(page, "prefill_bound")).to_have_text("?")
    expect(page.locator(".roof-svg .pt")).to_have_count(2)
    expect(page.locator(".roof-svg .mem-region")).to_have_count(0)
    expect(page.locator(".roof-svg .region")).to_have_count(0)
    page.locator(".answer-2 button").click()       # both: a 16-token prefill is memory-bound too
    expect(page.locator("p.right")).to_contain_text("Both")
    expect(metric(page, "decode_bound")).to_have_text("memory-bound")
    expect(metric(page, "prefill_bound")).to_have_text("memory-bound")
    expect(page.locator(".roof-svg .mem-region")).to_have_count(1)
    expect(page.locator(".roof-svg .region")).to_have_count(2)


def test_step4_batch_moves_the_decode_point_and_draws_its_curve(app):
    page = app("?step=4&gpu=h100&batch=64")
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
    nudge_slider(page, 2, "ArrowRight", 3)                  # the batch up
    expect(metric(page, "batch")).to_have_text("67")
    expect(decode).not_to_have_attribute("cx", before)      # the decode point moved ...
    expect(dot).not_to_have_attribute("cx", bx)             # ... and the batch marker
    wait_url(page, "batch=67")
    reveal(page)
    expect(page.locator(".narration").first).to_contain_text(
        "Batching shares the weight reads, not the cache reads")
    expect(page.locator(".narration").first).to_contain_text("continuous batching")
    expect(page.locator(".shrink-links a").first).to_have_attribute(
        "href", "?step=6&lang=en&heads=8")


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
    expect(page.locator(".live-facts", has_text="lower bounds")).to_have_count(1)


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


def read_config(page, value):
    area = page.locator(".config-text textarea").first
    area.fill(value)
    page.locator(".config-read button").click()


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
    before = metric(page, "kv_cache").inner_text()
    nudge_slider(page, 0, "ArrowRight", 2)                  # the page still works
    expect(metric(page, "kv_cache")).not_to_have_text(before)
    # a good config: your model, its fields, the formula with their values, and the link
    read_config(page, LLAMA)
    expect(metric(page, "per_token")).to_have_text(f"128{NBSP}KiB")
    expect(problems).to_have_text("")
    expect(page.locator(".config-fields")).to_contain_text("num_key_value_heads = 8")
    expect(page.locator(".config-fields")).to_contain_text("2 × 32 × 8 × 128 × 2")
    wait_url(page, "custom=layers-32_heads-32_kv-8_hd-128")
    url = page.evaluate("() => location.search")
    kv = metric(page, "kv_cache").inner_text()
    page = app(url)                                         # the link alone: the same model
    expect(metric(page, "per_token")).to_have_text(f"128{NBSP}KiB")
    expect(metric(page, "kv_cache")).to_have_text(kv)
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
    page = app("?step=5&model=deepseek-v3&gpu=h200")
    expect(page.locator(".formula-headline p").first).to_contain_text(
        "(512 latent + 64 rotary-key values)")
    page = app("?step=5&model=gemma3-27b&context=32768")
    expect(page.locator(".formula-headline p").nth(1)).to_contain_text("52 sliding-window layers")
