"""Step 3 — Storing keys and values: figures at the defaults, every control's extremes,
locale formatting, and that every measured number comes from the live model."""
from __future__ import annotations

import numpy as np
import pytest

from explainer import costs, presets
from explainer import runtime as rt
from explainer.i18n import LOCALES
from explainer.prompts import PROMPTS
from steps.common import AppState
from steps.step3 import LAST_FRAME, N_NEW, Step3


def nb(s: str) -> str:
    """Normalise the locale's non-breaking spaces for comparisons."""
    return s.replace("\u00a0", " ").replace("\u202f", " ")


@pytest.fixture
def step():
    return Step3(AppState())


def set_params(s, **kw):
    for k, v in kw.items():
        setattr(s, k, v)


def test_defaults_show_the_reference_figures(step):
    vm = step.view_model()
    assert step.url_state() == {"example": 0, "frame": 0, "layer": 0, "head": 0}
    assert vm["prompt"] == "The capital of France is"
    assert vm["tokens"] == ["The", "capital", "of", "France", "is"]
    assert vm["cache_length"] == "5"
    assert vm["new_kv"] == "5"                 # the prefill computes all P rows
    assert vm["qk_this_step"] == "5"
    assert vm["prefill_triangle"] == "15"      # 5 * 6 / 2
    assert vm["shape"] == "[1, 4, 5, 32]"
    assert nb(vm["ref_cache"]) == "2.5 MiB"
    assert nb(vm["live_cache"]) == "20.0 KiB"
    assert vm["new_rows_highlighted"] == [0, 1, 2, 3, 4]
    assert len(vm["attn_pct"]) == 5
    assert "2.5" in step._narration.object and "MiB" in step._metrics.object


def test_measured_numbers_come_from_the_live_model(step):
    ids = rt.encode(PROMPTS["en"][0])
    t = rt.generate("mha", ids, N_NEW, "fp32")
    m = rt.model("mha")
    live = presets.live_preset(m.cfg, m.n_params())
    for f in (0, 1, 5, LAST_FRAME):
        step.frame = f
        n = step.view_model()["raw"]
        P = t.P
        assert n["shape"] == tuple(t.cache_shape[f])
        assert n["n_cached"] == P + f == t.cache_shape[f][2]
        assert n["new_rows"] == int(t.kv_rows[f, 0]) == (P if f == 0 else 1)
        assert n["qk_this_step"] == t.attn[f].shape[-1] == P + f
        assert n["live_bytes"] == t.cache_nbytes[f]
        assert n["live_bytes"] == costs.kv_cache_bytes(live, P + f, precision="fp32")
        assert n["ref_bytes"] == costs.kv_cache_bytes(presets.REFERENCE_MODEL, P + f)
        # the strips are the real cached rows; the bar is the real newest-query attention
        np.testing.assert_array_equal(n["k"], t.k[0, 0, :P + f])
        np.testing.assert_array_equal(n["v"], t.v[0, 0, :P + f])
        np.testing.assert_allclose(n["attn"], t.attn[f][0, 0])
        assert abs(float(np.sum(n["attn"])) - 1) < 1e-5
        assert step._cells.data["tok"][-1] == t.tokens()[P + f - 1]
        assert len(step._cells.data["x"]) == (P + f) * 2 * m.cfg.head_dim


def test_cached_rows_never_change_between_frames(step):
    step.frame = 2
    early = step.view_model()["raw"]
    step.frame = 9
    late = step.view_model()["raw"]
    np.testing.assert_array_equal(late["k"][:len(early["k"])], early["k"])
    np.testing.assert_array_equal(late["v"][:len(early["v"])], early["v"])
    assert late["new_rows"] == 1
    assert step.view_model()["new_rows_highlighted"] == [late["n_cached"] - 1]


def test_frame_extremes_and_growth(step):
    step.frame = LAST_FRAME
    vm = step.view_model()
    assert vm["cache_length"] == "16"
    assert vm["new_kv"] == "1"
    assert vm["qk_this_step"] == "16"
    assert vm["shape"] == "[1, 4, 16, 32]"
    assert nb(vm["ref_cache"]) == "8.0 MiB"      # 16 * 512 KiB
    assert nb(vm["live_cache"]) == "64.0 KiB"
    assert step.player.value == LAST_FRAME
    step.frame = 3                                 # the question's situation: 5 + 3 rows
    assert step.view_model()["cache_length"] == "8"
    step.player.value = 1                          # the player drives the frame
    assert step.frame == 1
    assert step.view_model()["cache_length"] == "6"


def test_layer_head_example_extremes(step):
    facts = rt.model_facts("mha")
    lo_hi = dict(layer=(0, facts["n_layers"] - 1), head=(0, facts["n_kv_heads"] - 1),
                 example=(0, len(PROMPTS["en"]) - 1), frame=(0, LAST_FRAME))
    for name, (lo, hi) in lo_hi.items():
        assert step.param[name].bounds == (lo, hi)
    before = step.view_model()["raw"]["k"].copy()
    set_params(step, layer=lo_hi["layer"][1], head=lo_hi["head"][1])
    n = step.view_model()["raw"]
    assert not np.array_equal(n["k"], before)
    t = rt.generate("mha", rt.encode(PROMPTS["en"][0]), N_NEW, "fp32")
    np.testing.assert_array_equal(n["k"], t.k[-1, -1, :5])
    np.testing.assert_allclose(n["attn"], t.attn[0][-1, -1])
    step.example = lo_hi["example"][1]            # the long passage
    set_params(step, frame=LAST_FRAME)
    vm = step.view_model()
    P = len(rt.encode(PROMPTS["en"][-1]))
    assert P >= 16
    assert vm["cache_length"] == str(P + LAST_FRAME)
    assert vm["prefill_triangle"] == str(P * (P + 1) // 2)
    set_params(step, layer=0, head=0, frame=0, example=0)
    assert step.view_model()["cache_length"] == "5"


def test_question(step):
    q = step.question
    assert q.options[q.correct] == "8"
    assert q.options == ["3", "5", "8"]


def test_figure_data_is_consistent(step):
    step.frame = 4
    bars = step._bars.data
    assert len(bars["y"]) == 9
    assert bars["pct"] == step.view_model()["attn_pct"]
    assert all(r >= l for l, r in zip(bars["left"], bars["right"]))
    assert step._new.data["h"] == [1]
    assert set(step._fig.yaxis.major_label_overrides) == set(range(9))
    assert step._cell_hover.tooltips and step._bar_hover.tooltips


@pytest.mark.skipif(not (LOCALES / "pl" / "LC_MESSAGES" / "messages.po").exists(),
                    reason="the Polish catalog is not written yet")
def test_polish_number_format():
    app = AppState()
    s = Step3(app)
    s.example = 3
    s.frame = LAST_FRAME
    app.lang = "pl"
    vm = s.view_model()
    assert vm["prompt"] == PROMPTS["pl"][3]
    n = vm["raw"]["n_cached"]
    assert nb(vm["ref_cache"]) == nb(s.tr.bytes(costs.kv_cache_bytes("llama2-7b", n), "MiB", 1))
    assert "," in vm["ref_cache"] and "." not in vm["ref_cache"]
    assert "," in vm["live_cache"]
    app.lang = "en"
    assert "." in s.view_model()["live_cache"]
