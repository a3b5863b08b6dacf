"""Step 6 — shrinking the cache: the reference figures, every control's extremes, locale
formatting, and that every *measured* number is the live model's own."""
from concurrent.futures import Future

import pytest

from explainer import costs, presets
from explainer import runtime as rt
from steps import step6 as mod
from steps.common import AppState
from steps.step6 import PAGED_FRAMES, Step6


def norm(s: str) -> str:
    """Normalise the locale spaces (NBSP, narrow NBSP) to plain spaces."""
    return s.replace("\u00a0", " ").replace("\u202f", " ")


@pytest.fixture(scope="module")
def step():
    app = AppState()
    return Step6(app)


@pytest.fixture(autouse=True)
def reset(step):
    yield
    step.app.lang = "en"
    step.param.update(kv_heads=32, precision="fp16", window=0, frame=0)


# -- Part A: the reference figures (computed) ----------------------------------------------------

def test_defaults_show_the_seed_figures(step):
    vm = step.view_model()
    assert norm(vm["per_token"]) == "512 KiB"
    assert vm["tokens_kept"] == "16,384"
    assert norm(vm["cache_gb"]) == "68.7 GB"
    assert norm(vm["cache_gib"]) == "64 GiB"
    assert vm["factor"] == "1×"
    assert norm(vm["scales_per_token"]) == "0 B"
    assert vm["heads_line"].startswith("32 query heads, 32 key/value heads")
    # the engine's numbers, not our own
    r = costs.shrink(presets.STEP6["model"], 8, 16384, 32, "fp16", None)
    assert vm["raw_a"]["bytes"] == r.bytes == 68_719_476_736
    assert "68.7" in step._metrics_a.object and "64" in step._metrics_a.object


def test_url_names_and_defaults():
    assert Step6.url_names == {"kv_heads": "heads", "precision": "precision",
                               "window": "window", "frame": "frame"}
    s = Step6.param
    assert s.kv_heads.default == 32 and s.precision.default == "fp16"
    assert s.window.default == 0 and s.frame.default == 0
    assert list(s.kv_heads.objects) == [32, 8, 1]
    assert list(s.precision.objects) == ["fp16", "fp8", "int8", "int4"]
    assert list(s.window.objects) == [0, 4096, 1024]


@pytest.mark.parametrize("kw, factor, per_token, size", [
    (dict(kv_heads=8), "4×", "128 KiB", "17.2 GB"),
    (dict(kv_heads=1), "32×", "16 KiB", "2.1 GB"),
    (dict(precision="fp8"), "2×", "256 KiB", "34.4 GB"),
    (dict(precision="int8"), "1.97×", "260 KiB", "34.9 GB"),
    (dict(precision="int4"), "3.88×", "132 KiB", "17.7 GB"),
    (dict(window=4096), "4×", "512 KiB", "17.2 GB"),
    (dict(window=1024), "16×", "512 KiB", "4.3 GB"),
    (dict(kv_heads=1, precision="int4", window=1024), "1,986×", "4.125 KiB", "34.6 MB"),
])
def test_factor_follows_the_controls(step, kw, factor, per_token, size):
    step.param.update(**kw)                 # several params at once must work too
    vm = step.view_model()
    assert vm["factor"] == factor
    assert norm(vm["per_token"]) == per_token
    assert norm(vm["cache_gb"]) == size
    r = costs.shrink(presets.STEP6["model"], 8, 16384, step.kv_heads, step.precision,
                     step.window or None)
    assert vm["raw_a"]["factor"] == pytest.approx(r.factor)


def test_int8_scales_are_shown(step):
    step.precision = "int8"
    vm = step.view_model()
    assert norm(vm["scales_per_token"]) == "4 KiB"
    assert vm["precision_factor"] == "1.97×"
    text = norm(step._formula.object)
    assert "130 B" in text and "256 B" in text and "not 2×" in text
    step.precision = "int4"
    assert "not 4×" in norm(step._formula.object)


def test_heads_line_and_diagram(step):
    step.kv_heads = 8
    vm = step.view_model()
    assert vm["heads_line"] == "32 query heads share 8 key/value heads: 4 per group (GQA)"
    assert step._heads.object.count("flex-direction:column") == 8
    step.kv_heads = 1
    assert step.view_model()["heads_line"] == "32 query heads share 1 key/value head (MQA)"


def test_bar_chart_baseline_vs_setting(step):
    step.kv_heads = 8
    data = step._bar_src.data
    assert data["right"][0] == pytest.approx(68.719476736)
    assert data["right"][1] == pytest.approx(17.179869184)
    assert "4×" in data["label"][1]


def test_question():
    q = Step6(AppState()).question
    assert q.options == ["2×", "4×", "32×"] and q.options[q.correct] == "4×"


def test_polish_numbers(step):
    step.app.lang = "pl"
    step.precision = "int8"
    vm = step.view_model()
    assert norm(vm["tokens_kept"]) == "16 384"
    assert norm(vm["cache_gb"]) == "34,9 GB"
    assert vm["factor"] == "1,97×"
    assert norm(vm["blocks_used"]).startswith("2 ")
    assert "," in vm["live_dlogit"] or vm["live_dlogit"] == "0"


# -- Part B: paged memory (measured) ------------------------------------------------------------

def test_frame_count_matches_the_runtime():
    assert len(rt.paged_demo("mha")) == PAGED_FRAMES
    assert Step6.param.frame.bounds == (0, PAGED_FRAMES - 1)


def test_every_frame_shows_the_pools_numbers(step):
    frames = rt.paged_demo("mha")
    for i, f in enumerate(frames):
        step.frame = i
        vm = step.view_model()
        s = f.stats
        assert vm["frame_caption"]
        assert vm["blocks_used"] == f"{s['blocks_used']} of {s['blocks_total']}"
        assert vm["slots_wasted"] == str(s["slots_wasted"])
        assert vm["sharing_saved"] == str(s["sharing_saved"])
        assert vm["copies_on_write"] == str(s["copies_on_write"])
        assert vm["raw_b"]["nbytes"] == f.nbytes
        assert f.nbytes == s["blocks_used"] * vm["raw_b"]["block_nbytes"]   # formula = pool
        assert vm["tables"] == {k: list(v) for k, v in f.tables.items()}
        assert len(step._pool_src.data["x"]) == s["blocks_total"]


def test_paged_captions(step):
    frames = rt.paged_demo("mha")
    caps = []
    for i in range(len(frames)):
        step.frame = i
        caps.append(step.view_model()["frame_caption"])
    assert any(c.startswith("Request B shares the prefix's 2 blocks") for c in caps)
    assert any("copy on write" in c for c in caps)
    assert any(c.startswith("A new block for request A") for c in caps)
    assert caps[-1].startswith("Request C finished: its") and "freed" in caps[-1]
    step.frame = PAGED_FRAMES - 1
    vm = step.view_model()
    assert vm["blocks_used"] == "0 of 24" and "Every request has finished" in \
        step._tables.object


def test_reservation_comparison(step):
    frames = rt.paged_demo("mha")
    i = max(k for k, f in enumerate(frames) if len(f.tables) == 3 and f.event == "decode")
    step.frame = i
    vm = step.view_model()
    f = frames[i]
    m = rt.model("mha")
    live = presets.live_preset(m.cfg, m.n_params())
    want = costs.kv_cache_bytes(live, m.cfg.max_len, batch=3, precision="fp32")
    assert vm["raw_b"]["reserved"] == want
    assert norm(vm["reserved"]) == "12 MiB"
    share = sum(f.lengths.values()) / (3 * m.cfg.max_len)
    assert vm["raw_b"]["reserved_share"] == pytest.approx(share)
    assert "20.4%" in step._metrics_res.object and "38.2%" in step._metrics_res.object


def test_player_drives_the_frame(step):
    step.player.step(1)
    assert step.frame == 1
    step.frame = 5
    assert step.player.value == 5


# -- Part C: the live model (measured) ----------------------------------------------------------

def _ids(lang="en"):
    return rt.encode(mod.PROMPTS[lang][3])[:16]


def test_live_default_is_the_runtimes_measurement(step):
    vm = step.view_model()
    e = rt.variant_effect("mha", _ids(), 32, "fp16", None)
    c = vm["raw_c"]
    assert (vm["live_variant"], vm["live_kind"], vm["live_window"]) == ("mha", "fp16", None)
    assert c["nbytes"] == e.nbytes and c["exact_nbytes"] == e.exact_nbytes
    assert c["top1"] == e.top1_agreement and c["dlogit"] == e.max_abs_dlogit
    assert vm["live_factor_exact"] == "2×"          # fp16 vs fp32: exactly half
    assert vm["live_factor_base"] == "1×"
    assert vm["live_text"] == rt.tokenizer().decode(list(e.tokens))
    # the live bytes equal the formula for the live config (47 tokens in the cache)
    m = rt.model("mha")
    live = presets.live_preset(m.cfg, m.n_params())
    assert e.nbytes == costs.kv_cache_bytes(live, len(_ids()) + 31, precision="fp16")


@pytest.mark.parametrize("kv, variant, base_factor", [(8, "gqa", "2×"), (1, "mqa", "4×")])
def test_live_variants(step, kv, variant, base_factor):
    step.kv_heads = kv
    vm = step.view_model()
    e = rt.variant_effect(variant, _ids(), 32, "fp16", None)
    assert vm["live_variant"] == variant and vm["raw_c"]["nbytes"] == e.nbytes
    assert vm["live_factor_base"] == base_factor
    assert rt.model_facts(variant)["n_kv_heads"] == {"gqa": 2, "mqa": 1}[variant]


def test_live_precisions(step):
    step.precision = "int8"
    vm = step.view_model()
    assert vm["live_kind"] == "int8"
    assert vm["raw_c"]["nbytes"] == rt.variant_effect("mha", _ids(), 32, "int8").nbytes
    step.precision = "fp8"
    vm = step.view_model()
    assert vm["live_kind"] == "fp16"
    assert "no fp8 cache" in step._notice_c.object


def test_live_window_is_scaled(step):
    step.window = 4096
    vm = step.view_model()
    P = len(_ids())
    W = round(4096 * (P + 32) / 16384)
    assert (vm["live_kind"], vm["live_window"]) == ("window", W)
    e = rt.variant_effect("mha", _ids(), 32, "window", W)
    assert vm["raw_c"]["top1"] == e.top1_agreement and vm["raw_c"]["nbytes"] == e.nbytes
    assert f"W = {W}" in step._mapping.object
    step.param.update(window=1024, kv_heads=1, precision="int4")    # all extremes at once
    vm = step.view_model()
    assert vm["live_variant"] == "mqa" and vm["live_window"] == max(1, round(1024 * (P + 32)
                                                                          / 16384))


def test_live_texts_are_escaped(step):
    step.refresh()
    assert mod.esc(step.view_model()["live_text"]) in step._texts_c.object


def test_language_switch_changes_the_live_prompt(step):
    step.app.lang = "pl"
    vm = step.view_model()
    assert vm["raw_c"]["ids"] == _ids("pl")
    e = rt.variant_effect("mha", _ids("pl"), 32, "fp16", None)
    assert vm["raw_c"]["nbytes"] == e.nbytes


def test_a_pending_measurement_shows_the_last_result(step, monkeypatch):
    class Doc:
        session_context = None

        def __init__(self):
            self.callbacks = []

        def add_next_tick_callback(self, fn):
            self.callbacks.append(fn)

    step.refresh()
    before = step.view_model()["live_bytes"]
    pending = Future()
    monkeypatch.setattr(mod, "submit_live", lambda key, front=False: pending)
    doc = Doc()
    monkeypatch.setattr(step, "_doc", doc)
    step.kv_heads = 8
    vm = step.view_model()
    assert vm["live_pending"] and vm["live_bytes"] == before
    assert "Measuring" in step._notice_c.object
    pending.set_result(None)                 # the worker finishing re-renders on the doc
    assert doc.callbacks
    monkeypatch.undo()


def test_every_control_extreme_renders(step):
    for kv in (32, 1):
        for prec in ("fp16", "int4", "fp8"):
            for w in (0, 1024):
                for frame in (0, PAGED_FRAMES - 1):
                    step.param.update(kv_heads=kv, precision=prec, window=w, frame=frame)
                    step.refresh()
                    assert step.view_model()["factor"].endswith("×")
