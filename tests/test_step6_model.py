"""Step 6's numbers from its controls, no Panel in this file: Part A is pure arithmetic (no
torch, no Panel even imported); Parts B and C are the live model's own measurements."""
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from explainer import costs, presets
from steps.step6 import model as M
from steps.step6.model import Step6Model

REF = M.MODEL            # Llama 3.1 8B: Llama 2 7B's attention shape, 131,072 tokens of context


# -- Part A: computed, pure ---------------------------------------------------------------------

def test_part_a_needs_neither_torch_nor_panel():
    code = ("import sys; from steps.step6 import model as m; "
            "a = m.Step6Model(kv_heads=8, precision='int4', window=1024).shrink; "
            "assert a.bytes > 0 and m.heads_question('int8', 0).factor == 4; "
            "bad = [k for k in ('torch', 'panel', 'bokeh') if k in sys.modules]; "
            "assert not bad, bad")
    subprocess.run([sys.executable, "-c", code], check=True,
                   cwd=Path(__file__).resolve().parents[1])


def test_the_reference_model_can_process_the_context():
    """8 × 16,384 tokens: Llama 2 7B stops at 4,096, so Part A computes Llama 3.1 8B, whose
    attention has the same shape (512 KiB per token with full MHA) and whose own
    configuration is the GQA setting."""
    ref = M.REF
    assert ref.key == "llama3.1-8b" and ref.name == "Llama 3.1 8B"
    assert M.CONTEXT == 16384 <= ref.max_context == 131072
    assert presets.MODELS["llama2-7b"].max_context < M.CONTEXT
    assert (ref.n_layers, ref.n_heads, ref.head_dim, ref.n_kv_heads) == (32, 32, 128, 8)
    assert (M.QUESTION_FROM, M.QUESTION_TO) == (32, 8)
    assert M.shrink(32, "fp16", 0).weights == pytest.approx(16.06e9)
    assert M.shrink(8, "fp16", 0).per_token == costs.kv_bytes_per_token(ref) == 128 * 1024


def test_defaults_are_the_seed_figures():
    a = Step6Model().shrink
    assert (a.kv_heads, a.precision, a.window) == (32, "fp16", 0)
    assert a.per_token == 512 * 1024
    assert a.tokens_kept == 16384
    assert a.bytes == a.baseline == 68_719_476_736 == 64 * 2 ** 30
    assert a.factor == 1 and a.same_as_baseline
    assert a.scales_per_token == 0
    r = costs.shrink(REF, 8, 16384, 32, "fp16", None)
    assert (a.bytes, a.factor) == (r.bytes, r.factor)          # the engine's numbers


def test_url_controls_and_defaults():
    p = Step6Model.param
    assert p.kv_heads.default == 32 and p.precision.default == "fp16"
    assert p.window.default == 0 and p.frame.default == 0 and p.part.default == "a"
    assert list(p.kv_heads.objects) == [32, 8, 1]
    assert list(p.precision.objects) == ["fp16", "fp8", "int8", "int4"]
    assert list(p.window.objects) == [0, 4096, 1024]
    assert list(p.part.objects) == ["a", "b", "c", "d"]
    assert list(p.policy.objects) == ["window", "sinks", "h2o"] and p.policy.default == "window"
    assert list(p.budget.objects) == list(M.BUDGET_CHOICES) and p.budget.default == 16


@pytest.mark.parametrize("kw, factor, per_token, size", [
    (dict(kv_heads=8), 4, 128 * 1024, 17_179_869_184),
    (dict(kv_heads=1), 32, 16 * 1024, 2_147_483_648),
    (dict(precision="fp8"), 2, 256 * 1024, 34_359_738_368),
    (dict(precision="int8"), 1.9692, 260 * 1024, 34_896_609_280),
    (dict(precision="int4"), 3.8788, 132 * 1024, 17_716_740_096),
    (dict(window=4096), 4, 512 * 1024, 17_179_869_184),
    (dict(window=1024), 16, 512 * 1024, 4_294_967_296),
    (dict(kv_heads=1, precision="int4", window=1024), 1985.94, 4224, 34_603_008),
])
def test_factor_follows_the_controls(kw, factor, per_token, size):
    m = Step6Model()
    m.param.update(**kw)                     # several params at once must work too
    a = m.shrink
    assert a.factor == pytest.approx(factor, rel=1e-4)
    assert a.per_token == per_token and a.bytes == size
    r = costs.shrink(REF, 8, 16384, m.kv_heads, m.precision, m.window or None)
    assert a.factor == pytest.approx(r.factor) and a.bytes == r.bytes


def test_scales_per_head_vector():
    a = M.shrink(32, "int8", 0)
    assert (a.vec, a.values_vec, a.scale_vec, a.fp16_vec) == (130, 128, 2, 256)
    assert a.scales_per_token == 4 * 1024 and a.quantized
    assert a.precision_factor == pytest.approx(256 / 130) and a.ideal_factor == 2
    b = M.shrink(8, "int4", 0)
    assert (b.vec, b.values_vec, b.scale_vec) == (66, 64, 2) and b.ideal_factor == 4
    ref = presets.MODELS[REF]
    assert M.head_vectors_per_token(ref, 8) == 2 * 32 * 8
    assert M.vector_bytes(ref, "fp8", 1) == 128
    assert M.scale_bytes_per_vector(ref, "fp16", 32) == 0
    assert not M.shrink(32, "fp8", 0).quantized


def test_head_groups():
    assert M.shrink(8, "fp16", 0).group == 4
    assert M.shrink(1, "fp16", 0).group == 32
    assert M.shrink(32, "fp16", 0).group == 1


def test_part_a_is_not_recomputed_by_frame_part_or_language():
    m = Step6Model()
    seen = []
    m.param.watch(lambda e: seen.append(e.new), "shrink")
    m.param.update(frame=5, lang="pl")
    assert seen == []
    m.kv_heads = 8
    assert len(seen) == 1


def test_question_is_built_from_the_state():
    q = Step6Model().question
    assert (q.heads_from, q.heads_to, q.factor) == (32, 8, 4)
    assert (q.per_token_from, q.per_token_to) == (512 * 1024, 128 * 1024)
    m = Step6Model(precision="int8")
    assert (m.question.per_token_from, m.question.per_token_to) == (260 * 1024, 65 * 1024)
    assert m.question.factor == 4                   # whatever the precision and window
    m.window = 1024
    assert m.question.factor == 4 and m.question.window == 1024


def test_parts_b_and_c_run_nothing_until_shown():
    m = Step6Model(kv_heads=8)
    assert m.paged is None and m.live is None and m.setting is None


def test_eager_keeps_every_part_current():
    m = Step6Model(kv_heads=8, eager=True)          # what a served page does
    assert m.part == "a"
    assert m.paged.status == "ready" and m.live.status == "ready"
    assert m.live.value.variant == "gqa"
    m.kv_heads = 1
    assert m.live.value.variant == "mqa" and m.setting.kv_heads == 1


# -- Part B: the paged pool, from the runtime's frames (pure conversion) ----------------------

def fake_frame(event, seq, tables, lengths, ref, copies=0, bs=4):
    used = {b for t in tables.values() for b in t}
    filled = {}
    for sid, t in tables.items():
        for i, b in enumerate(t):
            filled[b] = max(filled.get(b, 0), min(bs, lengths[sid] - i * bs))
    stats = dict(blocks_total=len(ref), blocks_used=len(used), slots_used=sum(filled.values()),
                 slots_wasted=len(used) * bs - sum(filled.values()),
                 sharing_saved=sum(len(t) for t in tables.values()) - len(used),
                 copies_on_write=copies)
    return SimpleNamespace(event=event, seq=seq, tables=tables, lengths=lengths, ref=ref,
                           stats=stats, nbytes=len(used) * 100)


def test_pool_frames_from_fake_events():
    demo = (
        fake_frame("prefill", "prefix", {"prefix": (0, 1)}, {"prefix": 7}, (1, 1, 0, 0)),
        fake_frame("fork", "A", {"prefix": (0, 1), "A": (0, 1)}, {"prefix": 7, "A": 7},
                   (2, 2, 0, 0)),
        fake_frame("prefill", "A", {"prefix": (0, 1), "A": (0, 2, 3)},
                   {"prefix": 7, "A": 12}, (2, 1, 1, 1), copies=1),
        fake_frame("free", "prefix", {"A": (0, 2, 3)}, {"A": 12}, (1, 0, 1, 1), copies=1),
    )
    live = presets.MODELS[REF]
    p = M.pool_frames(demo, live, max_len=100)
    assert M.block_size_of(demo) == 4 == p.block_size
    assert p.n_blocks == 4 and p.n_frames == 4 and p.n_requests == 2
    f0, f1, f2, f3 = p.frames
    assert [b.changed for b in f0.blocks] == [True, True, False, False]
    assert [b.changed for b in f1.blocks] == [True, True, False, False]   # A joins 0 and 1
    assert f1.blocks[0].owners == ("prefix", "A") and f1.blocks[0].ref == 2
    assert (f2.new_blocks, f2.words, f2.copies) == (2, 5, 1)
    assert [b.fill for b in f2.blocks] == [4, 3, 4, 4]
    assert (f3.freed, f3.held) == (1, 2) and f3.blocks[1].owners == ()
    assert f1.reserved == costs.kv_cache_bytes(live, 100, batch=2, precision="fp32")
    assert f1.reserved_share == pytest.approx(14 / 200)
    assert f0.paged_share == pytest.approx(7 / 8)
    assert p.block_nbytes == costs.kv_bytes_per_token(live, "fp32") * 4


# -- Part B: the live block pool -------------------------------------------------------------

@pytest.fixture(scope="module")
def paged():
    m = Step6Model(part="b")                 # no server: the request waits for the result
    assert m.paged.status == "ready", m.paged.error
    return m


def test_frame_count_and_pool_size_come_from_the_runtime(paged):
    from explainer import runtime as rt
    demo = rt.paged_demo("mha")
    p = paged.paged.value
    assert p.n_frames == len(demo) and p.n_blocks == len(demo[0].ref)
    assert p.n_blocks == demo[0].stats["blocks_total"]
    assert p.max_len == rt.model_facts("mha")["max_len"]


def test_every_frame_is_the_pools_own(paged):
    from explainer import runtime as rt
    demo = rt.paged_demo("mha")
    p = paged.paged.value
    for f, d in zip(p.frames, demo):
        s = d.stats
        assert (f.blocks_used, f.blocks_total) == (s["blocks_used"], s["blocks_total"])
        assert (f.slots_wasted, f.sharing_saved, f.copies_on_write) == (
            s["slots_wasted"], s["sharing_saved"], s["copies_on_write"])
        assert f.nbytes == d.nbytes == s["blocks_used"] * p.block_nbytes   # formula = pool
        assert {sid: blocks for sid, blocks, _ in f.tables} == {k: tuple(v) for k, v in
                                                                d.tables.items()}
        assert tuple(b.ref for b in f.blocks) == tuple(d.ref)


def test_reservation_against_paging(paged):
    from explainer import runtime as rt
    p = paged.paged.value
    i = max(k for k, f in enumerate(p.frames) if f.n_requests == 3 and f.event == "decode")
    f = p.frames[i]
    live = rt.live_preset("mha")
    assert f.reserved == costs.kv_cache_bytes(live, p.max_len, batch=3, precision="fp32")
    assert f.reserved == 12 * 2 ** 20
    assert f.reserved_share == pytest.approx(f.tokens / (3 * p.max_len))
    assert f.paged_share > 0.85


def test_frame_is_kept_within_the_events(paged):
    n = paged.paged.value.n_frames
    paged.frame = 999
    assert paged.frame == n - 1
    paged.frame = 3
    assert paged.pool_frame() is paged.paged.value.frames[3]
    paged.frame = 0


# -- Part C: the live model ------------------------------------------------------------------

def _ids(lang="en"):
    from explainer import runtime as rt
    from explainer.prompts import PROMPTS
    return rt.encode(PROMPTS[lang][3])[:16]


@pytest.fixture(scope="module")
def live():
    m = Step6Model(part="c")
    assert m.live.status == "ready", m.live.error
    return m


@pytest.fixture(autouse=True)
def _reset(request):
    yield
    if "live" in request.fixturenames:
        request.getfixturevalue("live").param.update(kv_heads=32, precision="fp16", window=0,
                                                     lang="en")


def test_live_default_is_the_runtimes_measurement(live):
    from explainer import runtime as rt
    r = live.live.value
    e = rt.variant_effect("mha", _ids(), 32, "fp16", None)
    assert (r.variant, r.kind, r.window) == ("mha", "fp16", None)
    assert (r.nbytes, r.exact_nbytes) == (e.nbytes, e.exact_nbytes)
    assert (r.top1, r.dlogit) == (e.top1_agreement, e.max_abs_dlogit)
    assert r.factor_exact == 2 and r.factor_base == 1     # fp16 vs fp32: exactly half
    assert r.text == rt.tokenizer().decode(list(e.tokens))
    live_preset = rt.live_preset("mha")                   # 47 tokens in the cache
    assert r.cached_tokens == 47
    assert e.nbytes == costs.kv_cache_bytes(live_preset, r.cached_tokens, precision="fp16")


@pytest.mark.parametrize("kv, variant, base_factor", [(8, "gqa", 2), (1, "mqa", 4)])
def test_live_variants(live, kv, variant, base_factor):
    from explainer import runtime as rt
    live.kv_heads = kv
    r = live.live.value
    assert r.variant == variant == live.setting.variant
    assert r.nbytes == rt.variant_effect(variant, _ids(), 32, "fp16", None).nbytes
    assert r.factor_base == base_factor
    assert r.n_kv_heads == live.setting.n_kv_heads == {"gqa": 2, "mqa": 1}[variant]


def test_live_precisions(live):
    from explainer import runtime as rt
    live.precision = "int8"
    assert live.live.value.kind == "int8"
    assert live.live.value.nbytes == rt.variant_effect("mha", _ids(), 32, "int8").nbytes
    live.precision = "fp8"
    assert live.live.value.kind == "fp16" and live.setting.precision == "fp8"


def test_live_window_is_scaled(live):
    from explainer import runtime as rt
    live.window = 4096
    P = len(_ids())
    W = round(4096 * (P + 32) / 16384)
    r = live.live.value
    assert (r.kind, r.window) == ("fp16", W) == (live.setting.kind, live.setting.W)
    e = rt.variant_effect("mha", _ids(), 32, "fp16", W)
    assert (r.top1, r.nbytes) == (e.top1_agreement, e.nbytes)
    # the window is kept in the precision chosen: fp16, W tokens, two bytes a value (what the
    # page's formula gives: 12 tokens × 2 KiB = 24 KiB, not fp32's 48 KiB)
    live_preset = rt.live_preset("mha")
    assert r.nbytes == costs.kv_cache_bytes(live_preset, W, precision="fp16") == 12 * 2048
    assert r.factor_base == pytest.approx(47 / 12)
    live.precision = "int8"                                          # ... and in int8
    r8 = live.live.value
    assert (r8.kind, r8.window) == ("int8", W)
    assert r8.nbytes == rt.variant_effect("mha", _ids(), 32, "int8", W).nbytes == \
        W * 2 * 4 * 4 * (32 + 2)                 # int8 values + an fp16 scale per head vector
    live.param.update(window=1024, kv_heads=1, precision="int4")    # all extremes at once
    assert live.live.value.variant == "mqa" and live.live.value.kind == "int4"
    assert live.live.value.window == max(1, round(1024 * (P + 32) / 16384))
    assert M.live_window(0, P) is None


def test_language_switch_changes_the_live_prompt(live):
    from explainer import runtime as rt
    live.lang = "pl"
    r = live.live.value
    assert r.ids == _ids("pl") == live.setting.ids
    assert r.nbytes == rt.variant_effect("mha", _ids("pl"), 32, "fp16", None).nbytes
