"""Steps 2-6 in a real browser: deep links show the reference figures, the player and the
sliders change numbers and plot data, Polish formats numbers with decimal commas."""
import re

from helpers import cds_len, metric, nudge_slider, wait_cds, wait_url
from playwright.sync_api import expect

NBSP = "\u00a0"


def text(page, key):
    return metric(page, key).inner_text().replace(NBSP, " ").replace("\u202f", " ")


def test_step2_reference_figures_and_slider(app):
    page = app("?step=2")
    expect(metric(page, "uncached")).to_have_text("200")
    expect(metric(page, "cached")).to_have_text("20")
    expect(metric(page, "ratio")).to_have_text("10.0×")
    expect(metric(page, "measured_uncached")).to_have_text("200", timeout=30_000)
    expect(metric(page, "measured_cached")).to_have_text("20")
    expect(metric(page, "same_tokens")).to_have_text(re.compile("yes"))
    wait_cds(page, "step2-uncached", "x", "v.length == 200")
    nudge_slider(page, 0)                                   # T: 16 -> 17
    expect(metric(page, "uncached")).to_have_text("221")   # 17*5 + 17*16/2
    expect(metric(page, "cached")).to_have_text("21")
    wait_cds(page, "step2-uncached", "x", "v.length == 221")
    wait_url(page, "tokens=17")


def test_step2_polish_deep_link(app):
    page = app("?step=2&lang=pl&tokens=64&prompt=5")
    expect(metric(page, "uncached")).to_have_text(f"2{NBSP}336")
    expect(metric(page, "cached")).to_have_text("68")
    expect(metric(page, "ratio")).to_have_text("34,4×")
    expect(page.locator("html")).to_have_attribute("lang", "pl")


def test_step2_player_steps_tokens(app):
    page = app("?step=2&tokens=3")
    expect(metric(page, "uncached")).to_have_text("18")      # 3*5 + 3
    page.locator(".player-next button").click()
    expect(metric(page, "uncached")).to_have_text("26")      # 4*5 + 6
    wait_url(page, "tokens=4")


def test_step3_step_appends_one_row(app):
    page = app("?step=3")
    expect(metric(page, "cache_length")).to_have_text("5")
    expect(metric(page, "new_kv")).to_have_text("5")
    expect(metric(page, "shape")).to_have_text("[1, 4, 5, 32]")
    expect(metric(page, "ref_cache")).to_have_text(f"2.5{NBSP}MiB")
    n0 = cds_len(page, "step3-cells")
    page.locator(".player-next button").click()
    expect(metric(page, "cache_length")).to_have_text("6")
    expect(metric(page, "new_kv")).to_have_text("1")
    expect(metric(page, "shape")).to_have_text("[1, 4, 6, 32]")
    expect(metric(page, "ref_cache")).to_have_text(f"3.0{NBSP}MiB")
    wait_cds(page, "step3-cells", "x", f"v.length > {n0}")


def test_step4_reference_figures_and_slider(app):
    page = app("?step=4")
    expect(metric(page, "decode_steps")).to_have_text("255")
    expect(metric(page, "read_per_step")).to_have_text(f"13.9{NBSP}GB")
    expect(metric(page, "prefill_intensity")).to_have_text("502")
    expect(metric(page, "prefill_time")).to_have_text(f"23{NBSP}ms")
    expect(metric(page, "decode_step_time")).to_have_text(f"6.9{NBSP}ms")
    expect(metric(page, "measured_decode")).to_contain_text("tokens/s", timeout=60_000)
    before = page.evaluate("""() => { for (const d of Bokeh.documents) {
        const m = d.get_model_by_name('step4-points'); if (m) return JSON.stringify(m.data); } }""")
    nudge_slider(page, 1, "ArrowLeft", 3)                   # output tokens down
    expect(metric(page, "decode_steps")).not_to_have_text("255")
    page.wait_for_function("""(before) => { for (const d of Bokeh.documents) {
        const m = d.get_model_by_name('step4-points');
        if (m) return JSON.stringify(m.data) != before; } return false; }""", arg=before)


def test_step5_reference_figures_batch_and_slider(app):
    page = app("?step=5")
    expect(metric(page, "per_token")).to_have_text(f"512{NBSP}KiB")
    expect(metric(page, "kv_cache")).to_contain_text(f"2.1{NBSP}GB")
    expect(metric(page, "weights")).to_have_text(f"13.5{NBSP}GB")
    expect(metric(page, "total")).to_have_text(f"15.6{NBSP}GB")
    expect(metric(page, "fits")).to_contain_text("24")
    expect(metric(page, "live_measured")).to_have_text(metric(page, "live_formula").inner_text())
    page = app("?step=5&batch=8")
    expect(metric(page, "kv_cache")).to_contain_text(f"16{NBSP}GiB")
    wait_cds(page, "step5-now", "ctx", "v[0] == 4096")
    nudge_slider(page, 0, "ArrowRight", 2)                  # context up
    expect(metric(page, "kv_cache")).not_to_contain_text(f"16{NBSP}GiB")
    wait_cds(page, "step5-now", "ctx", "v[0] > 4096")       # the plot's point moved too
    page.wait_for_function("() => location.search.includes('context=')")


def test_step5_polish(app):
    page = app("?step=5&lang=pl")
    expect(metric(page, "weights")).to_have_text(f"13,5{NBSP}GB")
    expect(metric(page, "total")).to_have_text(f"15,6{NBSP}GB")


def test_step6_reference_figures_controls_and_paged_player(app):
    page = app("?step=6")
    expect(metric(page, "cache_gb")).to_have_text(f"68.7{NBSP}GB")
    expect(metric(page, "cache_gib")).to_have_text(f"64{NBSP}GiB")
    expect(metric(page, "factor")).to_have_text("1×")
    page = app("?step=6&heads=8&precision=int8")
    expect(metric(page, "factor")).to_have_text("7.88×")
    page = app("?step=6&heads=8")
    expect(metric(page, "factor")).to_have_text("4×")
    expect(metric(page, "live_top1")).to_contain_text("%", timeout=60_000)
    used0 = metric(page, "blocks_used").inner_text()
    fills0 = page.evaluate("""() => { for (const d of Bokeh.documents) {
        const m = d.get_model_by_name('step6-pool'); if (m) return JSON.stringify(m.data.fill); } }""")
    for _ in range(3):
        page.locator(".player-next button").first.click()
    expect(metric(page, "blocks_used")).not_to_have_text(used0)
    page.wait_for_function("""(before) => { for (const d of Bokeh.documents) {
        const m = d.get_model_by_name('step6-pool');
        if (m) return JSON.stringify(m.data.fill) != before; } return false; }""", arg=fills0)
    page.wait_for_function("() => location.search.includes('frame=3')")
    wait_url(page, "heads=8")
