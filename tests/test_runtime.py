"""The shipped weights, the tokenizer and instrumented generation on the live model."""
import json

import numpy as np
import pytest
import torch

from explainer import costs, presets, runtime as rt
from explainer.prompts import DEFAULT_PROMPTS, PROMPTS
from explainer.tokenizer import UNK, Tokenizer, join, spaced, split
from explainer.train import ASSETS, VARIANTS, Batches, model_config, read_corpus, train

EXPECTED = {"en": "Paris", "id": "Paris", "pl": "Paryż", "nl": "Parijs"}


# -- tokenizer ---------------------------------------------------------------------------------

def test_tokenizer_keeps_case_diacritics_and_splits_punctuation():
    assert split("Stolicą Francji jest Paryż.") == ["Stolicą", "Francji", "jest", "Paryż", "."]
    assert split("Wat is de hoofdstad van België?") == ["Wat", "is", "de", "hoofdstad", "van",
                                                        "België", "?"]
    assert split("Noord-Holland, zo'n stad") == ["Noord-Holland", ",", "zo'n", "stad"]


def test_tokenizer_round_trips_corpus_text():
    tok = rt.tokenizer()
    for line in read_corpus()[::7]:
        assert tok.decode(tok.encode(line)) == join(split(line))
    assert join(["Hello", ",", "world", "(", "yes", ")", "."]) == "Hello, world (yes)."


def test_spaced_says_where_join_puts_a_space():
    """A page that marks tokens one by one (step 6's continuations) writes them as text is
    written: “seen, which”, never “seen , which”."""
    toks = ["seen", ",", "which", "„", "x", "”", "(", "a", ")", "."]
    assert spaced(toks) == [False, False, True, True, False, False, True, False, False, False]
    assert "".join((" " if s else "") + t for t, s in zip(toks, spaced(toks))) == join(toks) \
        == "seen, which „x” (a)."
    assert spaced([]) == [] and spaced(["."]) == [False]


def test_unknown_words_become_unk():
    tok = rt.tokenizer()
    assert tok.tokens("The capital of Zyxwvutia is") == ["The", "capital", "of", UNK, "is"]
    assert tok.unknown("The capital of Zyxwvutia is") == ["Zyxwvutia"]
    assert tok.encode("Zyxwvutia") == [tok.unk_id]


def test_tokenizer_build_is_deterministic_and_capped():
    a = Tokenizer.build(["b a a", "c b a"], max_size=3)
    assert a.itos == [UNK, "a", "b"]
    with pytest.raises(ValueError):
        Tokenizer(["a", UNK])


# -- shipped weights ---------------------------------------------------------------------------

def test_assets_are_small():
    files = [ASSETS / "vocab.json"] + [ASSETS / f"model_{v}.pt" for v in VARIANTS]
    assert sum(f.stat().st_size for f in files) <= 5_000_000
    assert json.loads((ASSETS / "vocab.json").read_text(encoding="utf-8"))[0] == UNK


@pytest.mark.parametrize("variant", list(VARIANTS))
@pytest.mark.parametrize("lang", list(EXPECTED))
def test_shipped_models_answer_the_default_prompts(variant, lang):
    ids = rt.encode(DEFAULT_PROMPTS[lang])
    tr = rt.generate(variant, ids, 1)
    assert rt.tokenizer().itos[tr.new_ids[0]] == EXPECTED[lang]


def test_default_prompts_are_all_known_words():
    tok = rt.tokenizer()
    assert len(rt.encode(DEFAULT_PROMPTS["en"])) == 5
    for lang, prompts in PROMPTS.items():
        assert prompts[0] == DEFAULT_PROMPTS[lang]
        for p in prompts:
            assert tok.unknown(p) == [], (lang, p)
        assert len(tok.encode(prompts[3])) >= 16      # step 2 uses up to 16 prompt tokens


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_live_model_shape(variant):
    f = rt.model_facts(variant)
    assert f["n_kv_heads"] == VARIANTS[variant] and f["max_len"] >= 1024
    assert f["n_params"] < 5_000_000


# -- instrumented generation ---------------------------------------------------------------------

@pytest.mark.parametrize("variant", list(VARIANTS))
def test_cached_equals_uncached_on_the_shipped_model(variant):
    ids = rt.encode(DEFAULT_PROMPTS["en"])
    c = rt.compare_cached_uncached(variant, ids, 64)
    assert c.same_tokens
    assert c.max_abs_dlogit < 1e-4          # logits here are O(10): float32 round-off
    assert (c.rows_uncached, c.rows_cached) == (2336, 68)


@pytest.mark.parametrize("P,T", [(1, 1), (1, 5), (5, 16), (3, 9), (16, 64), (12, 2)])
def test_measured_projection_rows_equal_the_formulas(P, T):
    ids = rt.corpus_ids()[:P]
    cached = rt.generate("mha", ids, T, "fp32", record_kv=False)
    uncached = rt.generate("mha", ids, T, None, record_kv=False)
    L = rt.model("mha").cfg.n_layers
    assert cached.kv_rows_per_layer == costs.kv_projections_with_cache(P, T)
    assert uncached.kv_rows_per_layer == costs.kv_projections_without_cache(P, T)
    assert cached.kv_rows_total == L * costs.kv_projections_with_cache(P, T)
    # per step: prefill P rows, then 1; without a cache P + s - 1 rows at step s
    assert cached.kv_rows[:, 0].tolist() == [P] + [1] * (T - 1)
    assert uncached.kv_rows[:, 0].tolist() == [P + s for s in range(T)]


def test_trace_contents():
    ids = rt.encode(DEFAULT_PROMPTS["en"])
    tr = rt.generate("mha", ids, 3)
    cfg = rt.model("mha").cfg
    assert [a.shape for a in tr.attn] == [(cfg.n_layers, cfg.n_heads, 5 + s) for s in range(3)]
    for a in tr.attn:
        assert np.allclose(a.sum(-1), 1, atol=1e-5)
    assert tr.k.shape == (cfg.n_layers, cfg.n_kv_heads, 7, cfg.head_dim)
    assert tr.cache_shape[0] == (1, cfg.n_kv_heads, 5, cfg.head_dim)
    assert tr.cache_shape[-1] == (1, cfg.n_kv_heads, 7, cfg.head_dim)
    assert len(tr.times) == 3 and (tr.times > 0).all()
    assert rt.generate("mha", ids, 3) is tr              # cached per process


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_live_cache_bytes_equal_the_formula(variant):
    m = rt.model(variant)
    preset = presets.live_preset(m.cfg, m.n_params())
    ids = rt.encode(DEFAULT_PROMPTS["en"])
    for kind in ("fp32", "fp16", "int8", "int4"):
        tr = rt.generate(variant, ids, 8, kind, record_kv=False)
        for step, nb in enumerate(tr.cache_nbytes):
            assert nb == costs.kv_cache_bytes(preset, 5 + step, precision=kind)


@pytest.mark.parametrize("kind,min_top1,max_dlogit", [("fp16", 1.0, 0.05), ("int8", 0.95, 0.5),
                                                      ("int4", 0.75, 5.0)])
def test_quantized_cache_effect_on_the_live_model(kind, min_top1, max_dlogit):
    ids = rt.corpus_ids()[:16]
    e = rt.variant_effect("mha", ids, 64, kind)
    assert e.top1_agreement >= min_top1
    assert 0 < e.max_abs_dlogit < max_dlogit
    assert e.nbytes < e.exact_nbytes


def test_window_and_paged_effects():
    ids = rt.corpus_ids()[:16]
    paged = rt.variant_effect("mha", ids, 32, "paged")
    assert paged.top1_agreement == 1.0 and paged.max_abs_dlogit < 1e-4
    w = rt.variant_effect("mha", ids, 32, "window", window=8)
    cfg = rt.model("mha").cfg
    assert w.nbytes == 2 * cfg.n_layers * cfg.n_kv_heads * cfg.head_dim * 4 * 8
    assert w.top1_agreement < 1.0            # a window of 8 really forgets


def test_paged_demo_frames():
    frames = rt.paged_demo("mha")
    events = [f.event for f in frames]
    assert events[0] == "prefill" and "fork" in events and events[-1] == "free"
    shared = max(f.stats["sharing_saved"] for f in frames)
    assert shared >= 2
    assert frames[-1].stats["blocks_used"] == 0 and frames[-1].nbytes == 0
    assert all(f.stats["slots_wasted"] < f.stats["blocks_used"] * 4 or f.stats["blocks_used"] == 0
               for f in frames)


def test_throughput_is_measured():
    t = rt.throughput("mha", 64, 8, repeats=1)
    assert t.prefill_tokens_per_s > 0 and t.decode_tokens_per_s > 0 and t.decode_steps == 7


def test_bad_input_is_a_clear_error():
    with pytest.raises(ValueError, match="empty"):
        rt.encode("")
    with pytest.raises(ValueError, match="empty"):
        rt.encode("   ")
    with pytest.raises(ValueError, match="positions"):
        rt.generate("mha", (1,) * 1000, 100)
    with pytest.raises(ValueError, match="at least one"):
        rt.generate("mha", (1, 2), 0)
    with pytest.raises(ValueError, match="unknown model variant"):
        rt.model("xl")
    # unknown words run as <unk> instead of crashing
    tr = rt.generate("mha", rt.encode("Zyxw qqq !"), 2)
    assert len(tr.new_ids) == 2


def test_a_short_training_run_lowers_the_loss():
    lines = read_corpus()[:60]
    tok = Tokenizer.build(lines)
    cfg = model_config(len(tok), "mqa")
    torch.set_num_threads(2)
    _, losses = train(cfg, lines, tok, steps=40, batch=8, seq_len=32, lr=3e-3, warmup=5,
                      weight_decay=0.0, unk_rate=0.0, log=None)
    assert np.mean(losses[-5:]) < 0.7 * np.mean(losses[:5])
    # deterministic: the same seed gives the same first batches
    b1, b2 = Batches(lines, tok, 16, 0.1, 7), Batches(lines, tok, 16, 0.1, 7)
    assert torch.equal(b1.next(4)[0], b2.next(4)[0])
