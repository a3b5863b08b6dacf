"""Steps 2-6 in a real browser: deep links show the reference figures, the player and the
sliders change numbers and plot data, Polish formats numbers with decimal commas."""
import re
import time

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


def test_step2_reference_figures_and_slider(app):
    page = app("?step=2")
    reveal(page)
    expect(metric(page, "uncached")).to_have_text("200")
    expect(metric(page, "cached")).to_have_text("20")
    expect(metric(page, "ratio")).to_have_text("10.0×")
    expect(metric(page, "measured_uncached")).to_have_text("200", timeout=180_000)
    expect(metric(page, "measured_cached")).to_have_text("20")
    expect(metric(page, "same_tokens")).to_have_text(re.compile("yes"))
    expect(page.locator(".grids-svg .grid-u .cell")).to_have_count(200)
    expect(page.locator(".grids-svg .grid-u .cell.recomputed")).to_have_count(180)
    expect(page.locator(".grids-svg .grid-c .cell.cached")).to_have_count(180)
    expect(page.locator(".grids-svg .grid-c .cell.new")).to_have_count(20)
    nudge_slider(page, 0)                                   # T: 16 -> 17
    expect(metric(page, "uncached")).to_have_text("221")   # 17*5 + 17*16/2
    expect(metric(page, "cached")).to_have_text("21")
    expect(page.locator(".grids-svg .grid-u .cell")).to_have_count(221)
    expect(pos(page)).to_have_text("Generated tokens: 17 of 64")
    wait_url(page, "tokens=17")


def test_step2_reading_from_the_cache_looks_cheap_and_is_named(app):
    page = app("?step=2")
    expect(page.locator(".grids-svg .grid-c .cell.cached").first).to_be_attached()
    style = """e => ({ width: +e.getAttribute('width'), fill: +getComputedStyle(e).fillOpacity,
                       stroke: getComputedStyle(e).stroke })"""
    c = page.locator(".grids-svg .grid-c .cell.cached").first.evaluate(style)
    u = page.locator(".grids-svg .grid-u .cell.recomputed").first.evaluate(style)
    looks = {"cw": c["width"], "uw": u["width"], "cfill": c["fill"], "ufill": u["fill"],
             "cstroke": c["stroke"]}
    assert looks["cw"] < looks["uw"] and looks["cfill"] < 0.5 <= looks["ufill"]
    assert looks["cstroke"] not in ("", "none")
    labels = [t.strip() for t in page.locator(".grids-svg .legend-label").all_text_contents()]
    assert {"computed new", "recomputed", "read from cache"} <= set(labels)


def test_step2_polish_deep_link(app):
    page = app("?step=2&lang=pl&tokens=64&prompt=5")
    reveal(page)
    expect(metric(page, "uncached")).to_have_text(f"2{NBSP}336")
    expect(metric(page, "cached")).to_have_text("68")
    expect(metric(page, "ratio")).to_have_text("34,4×")
    expect(page.locator("html")).to_have_attribute("lang", "pl")


def test_step2_player_steps_tokens(app):
    page = app("?step=2&tokens=3")
    reveal(page)
    expect(metric(page, "uncached")).to_have_text("18")      # 3*5 + 3
    page.locator(".player-next button").click()
    expect(metric(page, "uncached")).to_have_text("26")      # 4*5 + 6
    wait_url(page, "tokens=4")
    expect(page.get_by_role("slider").first).to_have_attribute("aria-valuenow", "4")


def test_step2_one_click_is_one_token(app):
    """Step forward clicked N times quickly advances exactly N tokens (a server-side player
    once advanced two on one click)."""
    page = app("?step=2&tokens=3")
    reveal(page)
    expect(metric(page, "uncached")).to_have_text("18")
    nxt = page.locator(".player-next button")
    for _ in range(5):
        nxt.click()
    expect(pos(page)).to_have_text("Generated tokens: 8 of 64")
    expect(metric(page, "uncached")).to_have_text("68")      # 8*5 + 28
    wait_url(page, "tokens=8")
    # a burst inside one task: the server hears every stop, and echoes none back
    nxt.evaluate("b => { for (let k = 0; k < 4; k++) b.click(); }")
    expect(pos(page)).to_have_text("Generated tokens: 12 of 64")
    wait_url(page, "tokens=12")
    time.sleep(1.5)
    expect(pos(page)).to_have_text("Generated tokens: 12 of 64")
    expect(metric(page, "uncached")).to_have_text("126")     # 12*5 + 66
    expect(page.get_by_role("slider").first).to_have_attribute("aria-valuenow", "12")


def test_step2_both_ends(app):
    page = app("?step=2&tokens=64")
    expect(pos(page)).to_have_text("Generated tokens: 64 of 64")
    expect(page.locator(".player-next button")).to_be_disabled()
    page.locator(".player-reset button").click()
    expect(pos(page)).to_have_text("Generated tokens: 1 of 64")
    expect(page.locator(".player-back button")).to_be_disabled()
    wait_url(page, "tokens=1")
    nudge_slider(page, 0, "End")                            # the slider sets the frame
    expect(pos(page)).to_have_text("Generated tokens: 64 of 64")
    page.locator(".player-play button").click()            # Play at the end starts over
    expect(pos(page)).to_have_text(re.compile(r"Generated tokens: [1-3] of 64"))
    page.locator(".player-play button").click()            # Pause
    shown = re.search(r"(\d+) of", pos(page).inner_text()).group(1)
    wait_url(page, f"tokens={shown}&")


def test_step2_play_sends_nothing(app, page):
    """Play moves through frames the server sent at once: no websocket frame per Play frame."""
    received = []
    page.on("websocket", lambda ws: ws.on("framereceived", lambda f: received.append(f)))
    app("?step=2&tokens=10")
    expect(metric(page, "same_tokens")).to_have_text("yes", timeout=120_000)  # live run in
    assert received, "the websocket was not watched"
    quiet_since, seen = time.monotonic(), len(received)     # let the page finish loading
    while time.monotonic() - quiet_since < 2.0:
        page.wait_for_timeout(250)                           # (events arrive while waiting)
        if len(received) != seen:
            quiet_since, seen = time.monotonic(), len(received)
    before = len(received)
    page.locator(".player-play button").click()
    expect(pos(page)).to_have_text("Generated tokens: 14 of 64", timeout=10_000)
    during = received[before:]
    assert during == [], f"the server sent {len(during)} websocket frames while playing: " + \
        " | ".join(str(f)[:160] for f in during[:3])
    page.locator(".player-play button").click()          # Pause: now the server hears it
    page.wait_for_function("() => +new URLSearchParams(location.search).get('tokens') >= 14")


def test_step2_answer_waits_for_the_learner(app):
    page = app("?step=2&tokens=64&prompt=5&lang=pl")
    q = page.locator(".question").first
    expect(q).to_contain_text("64")
    expect(q).to_contain_text("5")
    expect(metric(page, "uncached")).to_have_text("?")
    expect(metric(page, "ratio")).to_have_text("?")
    expect(page.locator(".grid-summary")).to_contain_text("?")
    expect(metric(page, "same_tokens")).not_to_have_text("…", timeout=120_000)
    expect(metric(page, "measured_uncached")).to_have_text("?")
    page.locator(".answer-2 button").click()                # 2 336, the right answer
    expect(metric(page, "uncached")).to_have_text(f"2{NBSP}336")
    expect(metric(page, "measured_uncached")).to_have_text(f"2{NBSP}336")
    expect(page.locator(".grid-summary")).to_contain_text(f"2{NBSP}336")


def test_step3_step_appends_one_row(app):
    page = app("?step=3")
    page.locator(".show-me button").click()                 # the cards answer the question
    expect(metric(page, "cache_length")).to_have_text("5")
    expect(metric(page, "new_kv")).to_have_text("5")
    expect(metric(page, "shape")).to_have_text("[1, 4, 5, 32]")
    expect(metric(page, "ref_cache")).to_have_text(f"2.5{NBSP}MiB")
    cells = page.locator(".cache-svg .cell")
    expect(cells).to_have_count(5 * 2 * 32)                 # 5 rows of k and v, head_dim 32
    page.locator(".player-next button").click()
    expect(metric(page, "cache_length")).to_have_text("6")
    expect(metric(page, "new_kv")).to_have_text("1")
    expect(metric(page, "shape")).to_have_text("[1, 4, 6, 32]")
    expect(metric(page, "ref_cache")).to_have_text(f"3.0{NBSP}MiB")
    expect(cells).to_have_count(6 * 2 * 32)
    expect(page.locator(".cache-svg .cache-row.is-new")).to_have_count(1)
    wait_url(page, "frame=1")


def test_step3_answer_is_concealed_until_answered(app):
    page = app("?step=3&lang=pl&frame=3")
    expect(page.locator(".question").first).to_contain_text("3")
    expect(metric(page, "cache_length")).to_have_text("?")
    expect(metric(page, "shape")).to_have_text("?")
    expect(page.locator(".cache-svg .row-label").last).to_have_text("Jakie")
    page.locator(".answer-1 button").click()                # 3 + 3 = 6 (options 3, 6, 12)
    expect(metric(page, "cache_length")).to_have_text("6")
    expect(metric(page, "shape")).to_have_text("[1, 4, 6, 32]")
    expect(page.locator(".cache-svg .row-label").last).to_have_text("6 Jakie")


def test_step3_output_row_and_one_based_deep_link(app):
    page = app("?step=3&layer=1&head=2")
    expect(page.locator(".cache-svg .out-row")).to_have_count(1)
    expect(page.locator(".cache-svg .out-cell")).to_have_count(32)
    expect(page.locator(".cache-svg .out-label")).to_contain_text("softmax(q·Kᵀ/√d)·V")
    # layer 1, head 2 puts everything on the newest token; the default head spreads it
    expect(page.locator(".cache-svg .attn-pct").last).to_have_text("100%")
    wait_url(page, "head=2")
    page = app("?step=3")
    pcts = [t.strip() for t in page.locator(".cache-svg .attn-pct").all_text_contents()]
    assert pcts == ["56%", "18%", "2%", "9%", "14%"]
    wait_url(page, "layer=3")
    wait_url(page, "head=1")


def test_step3_play_sends_nothing(app):
    """Play moves through frames the server sent at once: no websocket frame per Play frame."""
    page = app("?step=3")
    received = []
    page.on("websocket", lambda ws: ws.on("framereceived", lambda f: received.append(f)))
    page.locator(".show-me button").click()
    expect(metric(page, "cache_length")).to_have_text("5")
    time.sleep(1.0)
    before = len(received)
    page.locator(".player-play button").click()
    expect(metric(page, "cache_length")).to_have_text("8", timeout=10_000)
    expect(page.locator(".cache-svg .cell")).to_have_count(8 * 2 * 32)
    during = len(received) - before
    assert during == 0, f"the server sent {during} websocket frames while playing"
    page.locator(".player-play button").click()          # Pause: now the server hears it
    wait_url(page, "frame=")


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


def test_step6_reference_figures_controls_and_paged_player(app):
    page = app("?step=6")
    expect(metric(page, "cache_gb")).to_have_text(f"68.7{NBSP}GB")
    expect(metric(page, "cache_gib")).to_have_text(f"64{NBSP}GiB")     # under All numbers
    page.locator(".show-me button").click()
    expect(metric(page, "factor")).to_have_text("1×")
    page = app("?step=6&heads=8&precision=int8")
    page.locator(".show-me button").click()
    expect(metric(page, "factor")).to_have_text("7.88×")
    page = app("?step=6&heads=8&part=c")
    expect(metric(page, "live_top1")).to_contain_text("%", timeout=60_000)
    page.get_by_role("tab", name="B. Paged memory").click()    # the paged block pool
    wait_url(page, "part=b")
    cells = page.locator(".pool-svg .blk")
    expect(cells).to_have_count(24, timeout=60_000)
    used0 = metric(page, "blocks_used").inner_text()
    fills0 = page.locator(".pool-svg .slot.filled").count()
    for _ in range(3):
        page.locator(".player-next button").first.click()
    expect(metric(page, "blocks_used")).not_to_have_text(used0)
    expect(page.locator(".pool-svg .slot.filled")).not_to_have_count(fills0)
    expect(page.locator(".pool-svg .blk-changed").first).to_be_visible()
    page.wait_for_function("() => location.search.includes('frame=3')")
    wait_url(page, "heads=8")


def test_step6_answer_is_concealed_until_answered(app):
    page = app("?step=6&heads=8&precision=int8")
    expect(page.locator(".question").first).to_contain_text("int8")
    expect(metric(page, "factor")).to_have_text("?")
    expect(page.locator(".bars-svg .bar-label").last).to_contain_text("?")
    expect(page.locator(".bars-svg .bar-label").last).not_to_contain_text("7.88")
    page.locator(".answer-1 button").click()                # 32 ÷ 8 = 4 (options 2×, 4×, 32×)
    expect(metric(page, "factor")).to_have_text("7.88×")
    expect(page.locator(".bars-svg .bar-label").last).to_contain_text("7.88× smaller")


def test_step6_part_b_deep_link(app):
    page = app("?step=6&part=b&frame=4")
    expect(page.get_by_role("tab", name="B. Paged memory")).to_have_attribute(
        "aria-selected", "true")
    expect(page.locator(".player-pos")).to_contain_text("Event 5 of", timeout=60_000)
    expect(page.locator(".pool-svg .blk")).to_have_count(24)
    expect(page.locator(".pool-svg .blk.shared").first).to_be_visible()
    expect(page.locator(".stage-caption")).to_contain_text("Request B")
    expect(metric(page, "copies_on_write")).to_have_text("2")          # under All numbers
    expect(page.locator("[data-metric='factor']")).to_have_count(0)    # Part A not rendered
    wait_url(page, "part=b")


def test_step6_play_sends_nothing(app):
    """Part B's Play moves through the pool's events, all sent at once: no websocket frame
    per event."""
    page = app("?step=6&part=b")
    expect(page.locator(".pool-svg .blk")).to_have_count(24, timeout=60_000)
    received = []
    page.on("websocket", lambda ws: ws.on("framereceived", lambda f: received.append(f)))
    expect(page.locator(".player-pos")).to_contain_text("Event 1 of")
    time.sleep(1.0)
    before = len(received)
    page.locator(".player-play button").click()
    expect(page.locator(".player-pos")).to_contain_text("Event 5 of", timeout=15_000)
    during = len(received) - before
    assert during == 0, f"the server sent {during} websocket frames while playing"
    page.locator(".player-play button").click()          # Pause: now the server hears it
    wait_url(page, "frame=")


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
