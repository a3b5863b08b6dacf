"""Step 2 — wasted work: reference figures, extremes, locale, and live-model provenance."""

import numpy as np
import pytest

import steps.step2 as step2
from explainer import costs, presets
from explainer import runtime as rt
from explainer.prompts import PROMPTS
from steps.common import PALETTE, AppState
from steps.step2 import T_MAX, VARIANT, Step2, nice_ticks, passage_ids, prompt_ids

step2.WARM_IN_BACKGROUND = False      # tests compute only what they look at


def sp(s: str) -> str:
    """Normalise the NBSP / narrow NBSP of locale grouping to plain spaces."""
    return s.replace("\u00a0", " ").replace("\u202f", " ")


@pytest.fixture
def step():
    return Step2(AppState())


def test_url_names_and_defaults_come_from_presets(step):
    assert step.url_names == {"tokens": "tokens", "prompt": "prompt"}
    assert (step.tokens, step.prompt) == (presets.STEP2["T"], presets.STEP2["P"]) == (16, 5)
    assert step.param.tokens.bounds == (1, 64) and step.param.prompt.bounds == (1, 16)
    assert step.url_state() == {"tokens": 16, "prompt": 5}


def test_reference_figures_at_defaults(step):
    vm = step.view_model()
    assert (vm["uncached"], vm["cached"], vm["ratio"]) == ("200", "20", "10.0×")
    assert vm["recomputed"] == "180"
    # measured in the live model: the same counts, per layer and over all layers
    L = rt.model_facts(VARIANT)["n_layers"]
    assert (vm["measured_uncached"], vm["measured_cached"]) == ("200", "20")
    assert vm["measured_uncached_all_n"] == 200 * L and vm["measured_cached_all_n"] == 20 * L
    assert vm["measured_uncached_layers"] == [200] * L
    assert vm["measured_cached_layers"] == [20] * L
    assert vm["matches"] and not vm["pending"] and vm["error"] is None
    assert vm["same_tokens"] == "yes" and vm["same"]
    assert vm["dlogit_x"] < 1e-3
    assert vm["text_uncached"] == vm["text_cached"]
    assert vm["frame_sentence"] == (
        "Over 16 steps: 200 projections against 20, 10.0 times the work, in each of the live "
        f"model's {L} layers.")
    assert any("not the growing cost of attention" in p for p in vm["narration"])


def test_reference_figures_long_output(step):
    step.tokens = 64
    vm = step.view_model()
    assert (vm["uncached"], vm["cached"], vm["ratio"]) == ("2,336", "68", "34.4×")
    assert (vm["measured_uncached"], vm["measured_cached"]) == ("2,336", "68")
    assert vm["matches"]


def test_grids_follow_the_per_step_breakdown(step):
    vm = step.view_model()
    assert vm["grid_uncached"] == {"new": 20, "recomputed": 180}
    assert vm["grid_cached"] == {"new": 20, "cached": 180}
    d = step._src_u.data
    assert max(d["y"]) == 16 and max(d["x"]) == 5 + 16 - 1
    assert set(step._src_c.data["color"]) == {PALETTE["new"], PALETTE["cached"]}
    assert set(d["color"]) == {PALETTE["new"], PALETTE["recomputed"]}
    assert step._fig_u.x_range.end == 20.5 and step._fig_u.y_range.start == 16.5
    assert step._fig_u.xaxis[0].axis_label == "position →"
    assert step._fig_u.yaxis[0].axis_label == "generation step"


@pytest.mark.parametrize("P,T", [(1, 1), (16, 64), (1, 64), (16, 1)])
def test_extremes_render_and_measure_the_formula(step, P, T):
    step.param.update(prompt=P, tokens=T)
    step.refresh()
    vm = step.view_model()
    a, b = costs.kv_projections_without_cache(P, T), costs.kv_projections_with_cache(P, T)
    assert (vm["uncached_n"], vm["cached_n"]) == (a, b)
    assert (vm["measured_uncached_n"], vm["measured_cached_n"]) == (a, b)
    assert vm["grid_uncached"]["new"] + vm["grid_uncached"]["recomputed"] == a
    assert vm["grid_cached"]["new"] == b
    assert len(vm["ids_uncached"]) == T and len(vm["prompt_ids"]) == P
    assert vm["same_tokens"] == "yes"
    if T == 1:
        assert vm["ratio"] == "1.0×"


def test_numbers_change_with_the_sliders(step):
    before = step.view_model()["uncached_n"]
    step.prompt = 16
    assert step.view_model()["uncached_n"] == costs.kv_projections_without_cache(16, 16) > before


def test_polish_locale_formats_numbers():
    app = AppState()
    s = Step2(app, tokens=64)
    app.lang = "pl"
    vm = s.view_model()
    assert sp(vm["uncached"]) == "2 336" and vm["cached"] == "68" and vm["ratio"] == "34,4×"
    assert sp(vm["measured_uncached"]) == "2 336"
    assert "34,4" in vm["frame_sentence"] and "34.4" not in vm["frame_sentence"]
    assert vm["prompt_ids"] == passage_ids("pl")[:5]


def test_measured_numbers_come_from_the_live_model(step):
    step.param.update(prompt=7, tokens=23)
    vm = step.view_model()
    ids = prompt_ids("en", 7)
    u = rt.generate(VARIANT, ids, T_MAX, None, record_kv=False)
    c = rt.generate(VARIANT, ids, T_MAX, "fp32", record_kv=False)
    assert vm["measured_uncached_n"] == int(u.kv_rows[:23, 0].sum())
    assert vm["measured_cached_all_n"] == int(c.kv_rows[:23].sum())
    assert vm["time_uncached_s"] == pytest.approx(float(u.times[:23].sum()))
    assert vm["time_cached_s"] == pytest.approx(float(c.times[:23].sum()))
    assert vm["ids_cached"] == c.new_ids[:23]
    assert vm["dlogit_x"] == pytest.approx(float(np.abs(u.logits[:23] - c.logits[:23]).max()))
    # a slice of the 64-token run is exactly the shorter run
    short = rt.generate(VARIANT, ids, 23, None, record_kv=False)
    assert short.new_ids == vm["ids_uncached"]
    np.testing.assert_allclose(short.logits, u.logits[:23], atol=1e-4)
    step.tokens = T_MAX
    cmp = rt.compare_cached_uncached(VARIANT, ids, T_MAX)
    vm = step.view_model()
    assert vm["dlogit_x"] == pytest.approx(cmp.max_abs_dlogit)
    assert vm["same"] == cmp.same_tokens
    assert vm["measured_uncached_n"] == cmp.rows_uncached


def test_player_drives_tokens(step):
    assert (step.player.start, step.player.end, step.player.value) == (1, 64, 16)
    step.player.step(1)
    assert step.tokens == 17 and step.view_model()["T"] == 17
    step.tokens = 3
    assert step.player.value == 3
    step.player.reset()
    assert step.tokens == 1


def test_question_answer_is_the_formula(step):
    q = step.question
    assert int(q.options[q.correct]) == costs.kv_projections_without_cache(5, 16) == 200


@pytest.mark.parametrize("lang", list(PROMPTS))
def test_prompt_is_the_long_passage(lang):
    ids = passage_ids(lang)
    own = rt.encode(PROMPTS[lang][3])
    assert len(ids) >= 16
    assert ids[:min(len(own), 16)] == own[:16]
    assert rt.tokenizer().unk_id not in ids


def test_nice_ticks():
    assert nice_ticks(1, 5) == [1, 2, 3, 4, 5]
    assert nice_ticks(1, 79) == [1, 10, 20, 30, 40, 50, 60, 70]
    assert nice_ticks(1, 1) == [1]
