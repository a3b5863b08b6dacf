"""Step 5 — the memory bill: reference figures, extremes of every control, locale, and the
live model's measured cache bytes against the formula."""
from __future__ import annotations

import pytest

from explainer import costs, presets
from explainer import i18n
from explainer import runtime as rt
from explainer.prompts import DEFAULT_PROMPTS
from steps import common
from steps.common import AppState
from steps.step5 import GPU_KEYS, LIVE_NEW_TOKENS, Step5


def norm(s: str) -> str:
    """Normalise the no-break spaces of units and Polish grouping to plain spaces."""
    return s.replace("\u00a0", " ").replace("\u202f", " ")


@pytest.fixture(scope="module")
def step():
    return Step5(AppState())


@pytest.fixture
def s(step):
    """The module's view, reset to the SPEC defaults (one param at a time) and English."""
    step.app.lang = "en"
    for name, value in (("model", "llama2-7b"), ("gpu", "a100-80"), ("context", 4096),
                        ("batch", 1)):
        setattr(step, name, value)
    return step


def test_defaults_match_presets():
    s = Step5(AppState())
    d = presets.STEP5
    assert (s.context, s.batch, s.model, s.gpu) == (d["context"], d["batch"], d["model"],
                                                    d["gpu"])
    assert s.url_names == {"context": "context", "batch": "batch", "model": "model",
                           "gpu": "gpu"}
    assert s.param.context.bounds == (512, 32768)
    assert s.param.batch.bounds == (1, 64)
    assert "illustrative" not in s.param.gpu.objects


def test_reference_figures_at_defaults(s):
    vm = s.view_model()
    assert norm(vm["per_token"]) == "512 KiB"
    assert norm(vm["per_token_exact"]) == "524,288 B"
    assert vm["per_token_bytes"] == 524_288
    assert norm(vm["kv_cache"]) == "2.1 GB"
    assert norm(vm["kv_cache_binary"]) == "2 GiB"
    assert norm(vm["kv_cache_both"]) == "2.1 GB (2 GiB)"
    assert norm(vm["weights"]) == "13.5 GB"
    assert norm(vm["total"]) == "15.6 GB"
    assert vm["fits_gpu"] == "l4"
    assert norm(vm["fits"]) == "24 GB GPU (L4, RTX 4090)"
    assert norm(vm["formula_head"]) == "2 × 32 layers × 32 KV heads × 128 × 2 B = 512 KiB per token"
    assert norm(vm["formula_tail"]) == "× 4,096 tokens × 1 sequence = 2.1 GB"
    assert vm["attention_kind"] == "MHA"
    # how many fit in the A100 80 GB: (80 - 13.476) GB / 2 GiB
    assert vm["max_sequences"] == costs.max_sequences("llama2-7b", "a100-80", 4096) == 30
    assert norm(vm["free"]) == "66.5 GB"
    # the numbers are on screen
    shown = norm(s._metrics.object)
    for text in ("512 KiB", "2.1 GB (2 GiB)", "13.5 GB", "15.6 GB", "24 GB GPU (L4, RTX 4090)"):
        assert text in shown
    assert "512 KiB per token" in norm(s._formula.object)


def test_batch_8_is_16_gib(s):
    s.batch = 8
    vm = s.view_model()
    assert norm(vm["kv_cache_binary"]) == "16 GiB"
    assert vm["kv_bytes"] == 16 * 2**30
    assert norm(vm["formula_tail"]) == "× 4,096 tokens × 8 sequences = 17.2 GB"


def test_llama3_gqa_uses_kv_heads(s):
    s.model = "llama3.1-8b"
    vm = s.view_model()
    assert norm(vm["per_token"]) == "128 KiB"
    assert vm["attention_kind"] == "GQA"
    assert vm["kv_heads"] == 8
    assert "8 KV heads" in norm(vm["formula_head"])
    assert "GQA" in s._model_info.object


def test_opt13b_kib_not_kb(s):
    s.model = "opt-13b"
    s.context = 2048
    vm = s.view_model()
    assert norm(vm["per_token"]) == "800 KiB"
    assert norm(vm["per_token_exact"]) == "819,200 B"
    assert norm(vm["kv_cache_binary"]) == "1.6 GiB"
    assert norm(vm["kv_cache"]) == "1.7 GB"        # honest decimal value of the same bytes


def test_question(s):
    vm = s.view_model()
    assert vm["question_options"] == ["≈ 4,000 tokens", "≈ 26,000 tokens", "≈ 200,000 tokens"]
    assert vm["question_correct"] == 1
    assert vm["question_crossover"] == "25,700"
    assert 25_000 < vm["question_crossover_tokens"] < 26_000
    assert vm["crossover_tokens"] == pytest.approx(13.476e9 / 524_288)
    s._question.answer = 1
    s.refresh()
    assert "Right." in s._question._feedback.object
    s._question.answer = None
    s.refresh()


@pytest.mark.parametrize("name,lo,hi", [("context", 512, 32768), ("batch", 1, 64)])
def test_slider_extremes(s, name, lo, hi):
    s.param.update(**{name: lo})
    low = s.view_model()
    s.param.update(**{name: hi})
    high = s.view_model()
    assert high["kv_bytes"] == low["kv_bytes"] * (hi // lo)
    assert high["per_token_bytes"] == low["per_token_bytes"]
    assert high["weights_bytes"] == low["weights_bytes"]


def test_extremes_together(s):
    s.context, s.batch = 32768, 64
    vm = s.view_model()
    assert norm(vm["kv_cache_both"]) == "1.1 TB (1 TiB)"
    assert vm["fits_gpu"] is None
    assert "No single GPU" in s._notice.object
    s.context, s.batch = 512, 1
    vm = s.view_model()
    assert norm(vm["kv_cache_both"]) == "268.4 MB (256 MiB)"


@pytest.mark.parametrize("model", list(presets.MODELS))
def test_every_model_renders(s, model):
    s.model = model
    for ctx, batch in ((512, 1), (32768, 64)):
        s.context, s.batch = ctx, batch
        vm = s.view_model()
        m = presets.MODELS[model]
        assert vm["attention_kind"] == m.attention_kind
        assert vm["per_token_bytes"] == costs.kv_bytes_per_token(m)
        assert vm["kv_bytes"] == costs.kv_cache_bytes(m, ctx, batch, window=m.window)
        assert vm["attention_kind"] in s._model_info.object


def test_mistral_window_caps_the_cache(s):
    s.model = "mistral-7b"
    s.context = 32768
    vm = s.view_model()
    assert vm["tokens_kept"] == 4096
    assert "× 4,096 tokens" in norm(vm["formula_tail"])
    assert "sliding window" in s._narration.object


@pytest.mark.parametrize("gpu", GPU_KEYS)
def test_every_gpu(s, gpu):
    s.gpu = gpu
    vm = s.view_model()
    assert vm["max_sequences"] == costs.max_sequences("llama2-7b", gpu, 4096)
    assert presets.GPUS[gpu].name in s._metrics.object


def test_weights_do_not_fit(s):
    s.model = "llama3.1-70b"
    s.gpu = "l4"
    vm = s.view_model()
    assert vm["max_sequences"] == 0 and not vm["weights_fit"]
    assert "notice" in s._notice.object


def test_live_cache_is_measured_and_equals_formula(s):
    vm = s.view_model()
    ids = rt.encode(DEFAULT_PROMPTS["en"])
    trace = rt.generate("mha", ids, LIVE_NEW_TOKENS, "fp32")
    assert vm["live_measured_bytes"] == trace.cache_nbytes[-1]
    tokens = trace.cache_shape[-1][2]
    assert vm["live_tokens"] == tokens == len(ids) + LIVE_NEW_TOKENS - 1
    facts = rt.model_facts("mha")
    live = presets.live_preset(rt.model("mha").cfg, facts["n_params"])
    formula = costs.kv_cache_bytes(live, tokens, precision="fp32")
    assert vm["live_formula_bytes"] == formula == vm["live_measured_bytes"]
    assert vm["live_match"] is True
    assert (vm["live_layers"], vm["live_kv_heads"], vm["live_head_dim"]) == (
        facts["n_layers"], facts["n_kv_heads"], facts["head_dim"])
    line = norm(vm["live_formula_line"])
    assert line.startswith(f"2 × {facts['n_layers']} layers × {facts['n_kv_heads']} KV heads × "
                           f"{facts['head_dim']} × 4 B")
    assert norm(vm["live_measured"]) in norm(s._live_metrics.object)
    assert "badge-measured" in s._live_metrics.object
    assert vm["live_weights_bytes"] == sum(p.numel() * p.element_size()
                                           for p in rt.model("mha").parameters())


@pytest.fixture
def polish(monkeypatch):
    """Polish formatting; until translators ship the catalog, English text with Polish
    numbers (the catalog loader is told there is none)."""
    path = i18n.LOCALES / "pl" / "LC_MESSAGES" / f"{i18n.DOMAIN}.po"
    patched = not path.exists()
    if patched:
        monkeypatch.setattr(i18n, "catalog", lambda lang: None)
        common.translator.cache_clear()
    yield
    if patched:
        common.translator.cache_clear()


def test_polish_numbers(s, polish):
    s.app.lang = "pl"
    try:
        s.batch = 8
        vm = s.view_model()
        assert norm(vm["kv_cache"]) == "17,2 GB"
        assert norm(vm["per_token_exact"]) == "524 288 B"
        assert norm(vm["weights"]) == "13,5 GB"
        assert "4 096" in norm(vm["formula_tail"])
        assert norm(vm["live_measured"]) == norm(s.tr.int(vm["live_measured_bytes"])) + " B"
        assert norm(s._curve.xaxis[0].major_label_overrides[8192]) == "8 192"
    finally:
        s.app.lang = "en"


def test_language_switch_rerenders(s):
    before = s._metrics.object
    s.app.lang = "en"
    s.refresh()
    assert s._metrics.object == before
    assert s._w_context.label and s._w_model.options
