"""Step 3's numbers from its controls, without Panel: the reference figures at the defaults,
every control's extremes, and that every measured number is the live model's."""
import subprocess
import sys

import numpy as np
import pytest
import torch

from explainer import costs, presets
from explainer import runtime as rt
from explainer.i18n import LANGS
from explainer.prompts import PROMPTS
from steps.step3.model import (DEFAULT_HEAD, DEFAULT_LAYER, FACTS, LAST_FRAME, N_NEW,
                               Step3Model, query_heads)

DEFAULT_LEN = {"en": 5, "id": 4, "pl": 3, "nl": 5}


def trace(lang="en", example=0):
    return rt.generate("mha", rt.encode(PROMPTS[lang][example]), N_NEW, "fp32")


def test_the_model_needs_no_panel():
    code = ("import sys; from steps.step3.model import Step3Model; Step3Model(); "
            "print('panel' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "False"


def test_defaults_show_the_reference_figures():
    m = Step3Model()
    assert (m.example, m.frame, m.layer, m.head) == (0, 0, DEFAULT_LAYER, DEFAULT_HEAD)
    assert (m.layer, m.head) == (3, 1)          # 1-based, like step 1's menus
    assert m.prompt_text() == "The capital of France is"
    run, f0 = m.run, m.current()
    assert run.prompt_len == 5 and len(run.frames) == N_NEW
    assert f0.tokens == ("The", "capital", "of", "France", "is") and f0.next == "Paris"
    assert f0.n_cached == 5
    assert f0.new_rows == 5                      # the prefill computes all P rows
    assert f0.keys_scored == 5
    assert run.prefill_triangle == 15            # 5 * 6 / 2
    assert f0.shape == (1, 4, 5, 32)
    assert f0.ref_bytes == 2.5 * 2 ** 20         # 2.5 MiB
    assert f0.live_bytes == 20 * 2 ** 10         # 20.0 KiB
    assert f0.n_cached - f0.new_rows == 0        # every row is new: rows 0..4 highlighted
    assert f0.weights.shape == (5,)
    assert run.per_token_bytes == 4096           # 2 x 4 layers x 4 heads x 32 x 4 bytes
    assert run.q_heads == (1, 1)                 # MHA: one query head per KV head


def test_the_default_head_spreads_its_attention_in_every_language():
    """Layer 3, head 1 (1-based): no single token takes most of the weight after the prefill,
    unlike layer 1, head 2, which puts (nearly) all of it on the newest token."""
    want = {"en": [56, 18, 2, 9, 14], "id": [53, 0, 40, 6], "pl": [31, 59, 10],
            "nl": [9, 11, 23, 35, 23]}
    for lang in LANGS:
        w = Step3Model(lang=lang).run.frames[0].weights
        assert list(np.round(100 * w).astype(int)) == want[lang]
        assert w.max() < 0.65
        self_head = Step3Model(lang=lang, layer=1, head=2).run.frames[0].weights
        assert self_head[-1] > 0.99


def test_measured_numbers_come_from_the_live_model():
    t = trace()
    live = rt.live_preset("mha")
    m = Step3Model(layer=1, head=1)             # the old default (0-based layer 0, head 0)
    P = t.P
    for f in (0, 1, 5, LAST_FRAME):
        m.frame = f
        fr = m.current()
        assert fr.shape == tuple(t.cache_shape[f])
        assert fr.n_cached == P + f == t.cache_shape[f][2]
        assert fr.new_rows == int(t.kv_rows[f, 0]) == (P if f == 0 else 1)
        assert fr.keys_scored == t.attn[f].shape[-1] == P + f
        assert fr.live_bytes == t.cache_nbytes[f]
        assert fr.live_bytes == fr.live_formula_bytes
        assert fr.live_bytes == costs.kv_cache_bytes(live, P + f, precision="fp32")
        assert fr.ref_bytes == costs.kv_cache_bytes(presets.REFERENCE_MODEL, P + f)
        # the strips are the real cached rows; the weights are the real newest-query attention
        np.testing.assert_array_equal(fr.k, t.k[0, 0, :P + f])
        np.testing.assert_array_equal(fr.v, t.v[0, 0, :P + f])
        np.testing.assert_allclose(fr.weights, t.attn[f][0, 0])
        assert abs(float(np.sum(fr.weights)) - 1) < 1e-5
        assert fr.tokens[-1] == t.tokens()[P + f - 1] and fr.next == t.tokens()[P + f]


def test_the_output_row_is_the_models_attention_output():
    """softmax(q·Kᵀ/√d)·V of the drawn head equals what the live model's layer hands to W_o
    for the newest token (recomputed here without the cache)."""
    m = Step3Model()
    t = trace()
    mod = rt.model("mha")
    seen = {}
    hook = mod.blocks[m.layer - 1].attn.wo.register_forward_pre_hook(
        lambda module, args: seen.__setitem__("y", args[0]))
    d = FACTS["head_dim"]
    try:
        for f in (0, 3, LAST_FRAME):
            fr = m.run.frames[f]
            with torch.no_grad():
                mod(torch.tensor([list(t.ids[:fr.n_cached])]), 0, None)
            y = seen["y"][0, -1, (m.head - 1) * d:m.head * d].cpu().numpy()
            np.testing.assert_allclose(fr.out, y, atol=1e-5)
            np.testing.assert_allclose(fr.out, fr.weights @ fr.v)
    finally:
        hook.remove()


def test_cached_rows_never_change_between_frames():
    run = Step3Model().run
    early, late = run.frames[2], run.frames[9]
    np.testing.assert_array_equal(late.k[:len(early.k)], early.k)
    np.testing.assert_array_equal(late.v[:len(early.v)], early.v)
    assert late.new_rows == 1
    assert run.written[:5] == (0,) * 5 and run.written[5:8] == (1, 2, 3)


def test_frame_extremes_and_growth():
    m = Step3Model(frame=LAST_FRAME)
    fr = m.current()
    assert fr.n_cached == 16 and fr.new_rows == 1 and fr.keys_scored == 16
    assert fr.shape == (1, 4, 16, 32)
    assert fr.ref_bytes == 8 * 2 ** 20          # 16 * 512 KiB
    assert fr.live_bytes == 64 * 2 ** 10
    m.frame = 3                                  # the question's situation: 5 + 3 rows
    assert m.current().n_cached == 8
    m.frame = 1
    assert m.current().n_cached == 6


def test_layer_head_example_extremes():
    lo_hi = dict(layer=(1, FACTS["n_layers"]), head=(1, FACTS["n_kv_heads"]),
                 example=(0, len(PROMPTS["en"]) - 1), frame=(0, LAST_FRAME))
    m = Step3Model()
    for name, (lo, hi) in lo_hi.items():
        assert m.param[name].bounds == (lo, hi)
    for bad in (dict(layer=0), dict(head=0), dict(layer=5), dict(frame=12)):
        with pytest.raises(ValueError):
            Step3Model(**bad)
    before = m.run.frames[0].k.copy()
    m.param.update(layer=lo_hi["layer"][1], head=lo_hi["head"][1])
    fr = m.run.frames[0]
    assert not np.array_equal(fr.k, before)
    t = trace()
    np.testing.assert_array_equal(fr.k, t.k[-1, -1, :5])
    np.testing.assert_allclose(fr.weights, t.attn[0][-1, -1])
    m.param.update(example=lo_hi["example"][1], frame=LAST_FRAME)     # the long passage
    P = len(rt.encode(PROMPTS["en"][-1]))
    assert P >= 16
    assert m.current().n_cached == P + LAST_FRAME
    assert m.run.prefill_triangle == P * (P + 1) // 2
    m.param.update(layer=1, head=1, frame=0, example=0)
    assert m.current().n_cached == 5


@pytest.mark.parametrize("lang", list(LANGS))
def test_each_language_uses_its_own_default_prompt(lang):
    m = Step3Model(lang=lang)
    assert m.prompt_text() == PROMPTS[lang][0]
    assert m.run.prompt_len == DEFAULT_LEN[lang]


def test_frames_are_not_recomputed_when_the_frame_moves():
    m = Step3Model()
    run = m.run
    m.frame = 5
    assert m.run is run
    m.head = 2
    assert m.run is not run
    assert Step3Model().run is run               # shared by every session (immutable)


def test_gqa_query_heads():
    g = FACTS["n_heads"] // FACTS["n_kv_heads"]
    assert query_heads(1) == (1, g)
    assert query_heads(FACTS["n_kv_heads"]) == (FACTS["n_heads"] - g + 1, FACTS["n_heads"])
