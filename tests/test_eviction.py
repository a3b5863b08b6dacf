"""Eviction caches (window, attention sinks, heavy hitters) under a budget of B tokens per layer:
their kept sets on hand-made inputs (no model), their exactness while nothing is dropped, and
the measurements on the live model."""
import math

import numpy as np
import pytest
import torch

from explainer import runtime as rt
from explainer.cache import (EVICTION_POLICIES, HeavyHitterCache, KVCache, RecentWindowCache,
                             SinkCache, make_eviction_cache)
from explainer.model import Config, Decoder, apply_rope, rope_tables

VOCAB = 97
CFG = Config(vocab_size=VOCAB, n_layers=2, n_kv_heads=2)


def tiny(n_kv_heads=4, seed=0):
    torch.manual_seed(seed)
    return Decoder(Config(vocab_size=VOCAB, n_kv_heads=n_kv_heads)).eval()


def tokens(start, T, cfg=CFG):
    """Synthetic k and v for positions start..start+T-1: every value of token p is p (k) or -p (v),
    so a held row tells which token it is."""
    p = torch.arange(start, start + T, dtype=torch.float32)[None, None, :, None]
    k = p.expand(1, cfg.n_kv_heads, T, cfg.head_dim).clone()
    return k, -k


def feed(cache, T, layer=0):
    start = cache.seen[layer]
    return cache.update(layer, *tokens(start, T))


def probs_on(weights, h=CFG.n_heads):
    """Attention of one new query: [1, h, 1, S], each head the same normalised row."""
    w = torch.tensor(weights, dtype=torch.float32)
    return (w / w.sum()).expand(1, h, 1, len(weights)).clone()


def held(cache, layer=0):
    """Positions the cache holds, read from its K tensor (not from its bookkeeping)."""
    return cache.k[layer][0, 0, :, 0].long().tolist()


def run_cached(m, ids, P, cache):
    outs = [m(ids[:, :P], 0, cache)]
    for t in range(P, ids.shape[1]):
        outs.append(m(ids[:, t:t + 1], t, cache))
    return torch.cat(outs, dim=1)


# -- kept sets on hand-made inputs ---------------------------------------------------------------

def test_window_keeps_the_most_recent_b():
    c = RecentWindowCache(CFG, budget=5)
    k_all, v_all = feed(c, 8)                       # a prefill longer than the budget
    assert k_all[0, 0, :, 0].tolist() == list(range(8))   # the prefill read everything
    assert held(c) == [3, 4, 5, 6, 7] and c.pos[0].tolist() == [3, 4, 5, 6, 7]
    k_all, _ = feed(c, 1)
    assert k_all[0, 0, :, 0].tolist() == [3, 4, 5, 6, 7, 8]   # B held + the new token
    assert held(c) == [4, 5, 6, 7, 8] and c.evicted[0] == 4
    assert c.roles() == tuple((p, "recent") for p in (4, 5, 6, 7, 8))
    assert (c.v[0][0, 0, :, 0] == -c.k[0][0, 0, :, 0]).all()      # values follow their keys


def test_sinks_keep_the_first_s_and_the_recent():
    c = SinkCache(CFG, budget=7, sinks=4)
    feed(c, 5)
    assert held(c) == [0, 1, 2, 3, 4]                               # under budget: all held
    feed(c, 6)
    assert held(c) == [0, 1, 2, 3, 8, 9, 10]
    for _ in range(5):
        feed(c, 1)
        assert held(c)[:4] == [0, 1, 2, 3] and len(held(c)) == 7
    assert held(c) == [0, 1, 2, 3, 13, 14, 15]
    assert c.roles() == ((0, "sink"), (1, "sink"), (2, "sink"), (3, "sink"),
                         (13, "recent"), (14, "recent"), (15, "recent"))


def test_h2o_keeps_the_heaviest_and_the_recent():
    """Budget 6: 3 heavy hitters chosen by accumulated attention, 3 most recent."""
    c = HeavyHitterCache(CFG, budget=6)
    assert (c.heavy, c.recent) == (3, 3)
    # one new token at a time, so every step's attention is a hand-made row
    rows = {0: [1], 1: [1, 1], 2: [1, 1, 1], 3: [1, 1, 1, 1], 4: [1, 1, 1, 1, 1],
            5: [1, 1, 1, 1, 1, 1]}
    for t in range(6):
        feed(c, 1)
        c.observe(0, probs_on(rows[t]))
    assert held(c) == [0, 1, 2, 3, 4, 5]
    # step 6: attention mostly on token 2, then 4; the new token 6 gets little
    feed(c, 1)
    c.observe(0, probs_on([0, 0, 60, 1, 30, 1, 8]))
    # candidates: 0..3 (4, 5, 6 are the 3 recent); scores so far (4 heads, 1 query per step):
    s = c.score[0].tolist()
    assert len(s) == 6
    # accumulated scores before the drop: token j got 4/(t+1) from each step t >= j
    acc = [sum(4 / (t + 1) for t in range(j, 6)) for j in range(7)]
    step6 = [4 * w / 100 for w in (0, 0, 60, 1, 30, 1, 8)]
    total = [a + b for a, b in zip(acc, step6)]
    heavy = sorted(sorted(range(4), key=lambda j: -total[j])[:3])
    assert held(c) == heavy + [4, 5, 6]
    assert heavy == [0, 1, 2]                     # 3 has the lowest score of 0..3
    assert c.roles() == ((0, "heavy"), (1, "heavy"), (2, "heavy"),
                         (4, "recent"), (5, "recent"), (6, "recent"))
    # the scores follow the kept tokens (evicted ones are dropped with them)
    assert s == pytest.approx([total[j] for j in (0, 1, 2, 4, 5, 6)], rel=1e-5)


def test_h2o_a_token_that_stops_being_read_is_evicted():
    """Token 0 was read early; the later queries read token 3 instead: 3 takes 0's place."""
    c = HeavyHitterCache(CFG, budget=4)                    # 2 heavy + 2 recent
    feed(c, 4)
    c.observe(0, torch.tensor([[1, 0, 0, 0], [0, 1, 0, 0], [0, 1, 0, 0], [0, 1, 0, 0]],
                              dtype=torch.float32).expand(1, CFG.n_heads, 4, 4).clone())
    assert held(c) == [0, 1, 2, 3]                         # scores 4, 12, 0, 0 (4 heads)
    feed(c, 1)
    c.observe(0, probs_on([1, 0, 0, 5, 0]))               # 0: 4 + 2/3, 3: 3 + 1/3
    assert held(c) == [0, 1, 3, 4]                         # 2 (score 0) goes; 3 is recent
    feed(c, 1)
    c.observe(0, probs_on([0, 0, 1, 0, 0]))               # slot 2 is token 3: now 7 + 1/3
    assert held(c) == [1, 3, 4, 5]                         # 3 outscores 0, which goes
    assert c.score[0].tolist() == pytest.approx([12, 22 / 3, 0, 0])


def test_h2o_ties_keep_the_earlier_token():
    c = HeavyHitterCache(CFG, budget=2)                    # 1 heavy + 1 recent
    feed(c, 3)
    c.observe(0, torch.full((1, CFG.n_heads, 3, 3), 1 / 3))
    assert held(c) == [0, 2]


def test_layers_keep_their_own_sets():
    c = HeavyHitterCache(CFG, budget=2)
    for layer, hot in ((0, 0), (1, 1)):
        c.update(layer, *tokens(0, 3))
        w = [0.0, 0.0, 0.0]
        w[hot] = 1.0
        c.observe(layer, torch.tensor(w).expand(1, CFG.n_heads, 3, 3).clone())
    assert (held(c, 0), held(c, 1)) == ([0, 2], [1, 2])


@pytest.mark.parametrize("policy", EVICTION_POLICIES)
def test_nbytes_counts_what_is_held(policy):
    c = make_eviction_cache(policy, CFG, budget=6)
    per_token = 2 * CFG.n_layers * CFG.n_kv_heads * CFG.head_dim * 4      # K and V, fp32
    scores = CFG.n_layers * 4 if policy == "h2o" else 0                   # one fp32 per token
    for layer in range(CFG.n_layers):
        c.update(layer, *tokens(0, 4))
        if c.needs_probs:
            c.observe(layer, torch.full((1, CFG.n_heads, 4, 4), 0.25))
    assert c.nbytes == 4 * (per_token + scores) and c.length == 4
    for t in range(4, 20):
        for layer in range(CFG.n_layers):
            c.update(layer, *tokens(t, 1))
            if c.needs_probs:
                c.observe(layer, probs_on([1] * len(c.pos[layer])))
        n = min(6, t + 1)
        assert c.nbytes == n * (per_token + scores) and c.length == n
    assert c.total_seen == 20


def test_bad_budgets_are_clear_errors():
    with pytest.raises(ValueError, match="at least 1"):
        RecentWindowCache(CFG, budget=0)
    with pytest.raises(ValueError, match="4 sinks"):
        SinkCache(CFG, budget=4, sinks=4)
    with pytest.raises(ValueError, match="positions"):
        HeavyHitterCache(CFG, budget=8, positions="somewhere")
    with pytest.raises(ValueError, match="unknown eviction policy"):
        make_eviction_cache("lru", CFG, 8)


# -- positions -------------------------------------------------------------------------------------

def test_original_positions_return_the_stored_keys():
    c = SinkCache(CFG, budget=5, sinks=2)
    feed(c, 9)
    k_all, _ = feed(c, 1)
    assert k_all[0, 0, :, 0].tolist() == [0, 1, 6, 7, 8, 9]


def test_cache_positions_rotate_held_keys_to_their_slot():
    """positions="cache": a held key is returned as if RoPE had rotated it at its slot's
    position (consecutive slots, the newest at its true position) rather than its own."""
    cos, sin = rope_tables(CFG)
    g = torch.Generator().manual_seed(0)
    raw = torch.randn(1, CFG.n_kv_heads, 12, CFG.head_dim, generator=g)   # keys before RoPE

    def rot(x, pos):
        return apply_rope(x, cos[pos], sin[pos])

    def zeros(T):
        return torch.zeros(1, CFG.n_kv_heads, T, CFG.head_dim)

    c = SinkCache(CFG, budget=5, sinks=2, positions="cache")
    c.update(0, rot(raw[:, :, :9], torch.arange(9)), zeros(9))
    assert c.pos[0].tolist() == [0, 1, 6, 7, 8]
    k_all, _ = c.update(0, rot(raw[:, :, 9:10], torch.tensor([9])), zeros(1))
    # slots 0..5 sit at positions 4..9: distances to the new token are the in-cache ones
    want = rot(raw[:, :, [0, 1, 6, 7, 8, 9]], torch.arange(4, 10))
    assert torch.allclose(k_all, want, atol=1e-5)
    assert c.key_positions(0).tolist() == [0, 1, 6, 7, 8, 9]       # the mask keeps the true ones
    # the stored keys stay as they arrived
    assert torch.allclose(c.k[0][:, :, 0], rot(raw[:, :, 0:1], torch.tensor([0]))[:, :, 0])


@torch.no_grad()
def test_a_window_has_no_gaps_so_both_position_modes_agree_exactly():
    m = tiny(2)
    ids = torch.randint(VOCAB, (1, 24))
    a = run_cached(m, ids, 7, RecentWindowCache(m.cfg, 6))
    b = run_cached(m, ids, 7, RecentWindowCache(m.cfg, 6, positions="cache"))
    assert torch.equal(a, b)


# -- on a model ----------------------------------------------------------------------------------

@pytest.mark.parametrize("n_kv_heads", [4, 2, 1], ids=["MHA", "GQA", "MQA"])
@pytest.mark.parametrize("policy", EVICTION_POLICIES)
@pytest.mark.parametrize("positions", ["original", "cache"])
@torch.no_grad()
def test_full_budget_equals_the_full_cache_exactly(n_kv_heads, policy, positions):
    m = tiny(n_kv_heads)
    ids = torch.randint(VOCAB, (1, 30), generator=torch.Generator().manual_seed(n_kv_heads))
    full = run_cached(m, ids, 9, KVCache(m.cfg))
    c = make_eviction_cache(policy, m.cfg, budget=30, positions=positions)
    assert torch.equal(run_cached(m, ids, 9, c), full)            # bit for bit
    assert c.evicted == [0] * m.cfg.n_layers
    small = make_eviction_cache(policy, m.cfg, budget=8, positions=positions)
    assert not torch.allclose(run_cached(m, ids, 9, small)[:, -1], full[:, -1], atol=1e-4)
    assert small.length == 8 and small.evicted[0] == 22


@torch.no_grad()
def test_the_model_hands_h2o_the_attention_it_computed():
    """The scores after a prefill are the column sums of the attention probabilities the
    model computed (over queries and heads), layer by layer."""
    m = tiny(2)
    ids = torch.randint(VOCAB, (1, 10))
    _, probs = m(ids, 0, KVCache(m.cfg), want_probs=True)
    c = HeavyHitterCache(m.cfg, budget=16)
    m(ids, 0, c)
    for layer in range(m.cfg.n_layers):
        assert torch.allclose(c.score[layer], probs[layer].sum(dim=(0, 1, 2)), atol=1e-6)
        assert math.isclose(float(c.score[layer].sum()), 10 * m.cfg.n_heads, rel_tol=1e-5)


@pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device on this machine")
@pytest.mark.parametrize("policy", EVICTION_POLICIES)
@torch.no_grad()
def test_cuda_eviction_equals_cpu(policy):
    m = tiny(2)
    ids = torch.randint(VOCAB, (1, 24))
    cc = make_eviction_cache(policy, m.cfg, 8, positions="cache")
    cpu = run_cached(m, ids, 6, cc)
    mc = m.to("cuda")
    gc = make_eviction_cache(policy, mc.cfg, 8, positions="cache", device="cuda")
    gpu = run_cached(mc, ids.cuda(), 6, gc)
    assert torch.allclose(gpu.cpu(), cpu, atol=1e-4)
    assert gc.roles(0) == cc.roles(0) and gc.nbytes == cc.nbytes


# -- measured on the live model --------------------------------------------------------------------

IDS = rt.eviction_ids()


def test_defaults_fit_the_trained_context():
    assert len(IDS) == rt.EVICTION_PROMPT_TOKENS
    assert rt.EVICTION_PROMPT_TOKENS + rt.EVICTION_NEW - 1 <= 64       # train.RECIPE seq_len
    assert max(rt.EVICTION_BUDGETS) >= rt.EVICTION_PROMPT_TOKENS + rt.EVICTION_NEW - 1
    assert min(rt.EVICTION_BUDGETS) > rt.EVICTION_SINKS
    assert rt.POLICIES == ("window", "sinks", "h2o")


@pytest.mark.parametrize("policy", rt.POLICIES)
def test_full_budget_run_agrees_exactly(policy):
    r = rt.eviction_run("mha", IDS, rt.EVICTION_NEW, policy, 64)
    assert r.agreement == 1.0 and r.max_dlogit == 0.0 and r.mean_kl == 0.0
    assert all(f.agree and f.kl == 0.0 and f.max_dlogit == 0.0 for f in r.frames)
    assert r.nbytes >= r.full_nbytes                     # h2o also holds its scores
    assert [p for p, _ in r.frames[-1].kept] == list(range(len(IDS) + rt.EVICTION_NEW - 1))


@pytest.mark.parametrize("policy", rt.POLICIES)
def test_eviction_run_frames(policy):
    B, n = 6, rt.EVICTION_NEW
    r = rt.eviction_run("mha", IDS, n, policy, B)
    exact = rt.generate("mha", IDS, n, "fp32", record_kv=False)
    cfg = rt.model("mha").cfg
    per_token = 2 * cfg.n_layers * cfg.n_kv_heads * cfg.head_dim * 4
    scores = cfg.n_layers * 4 if policy == "h2o" else 0
    assert (r.policy, r.budget, len(r.frames)) == (policy, B, n)
    assert r.prompt == tuple(rt.tokenizer().itos[i] for i in IDS)
    assert [f.token for f in r.frames] == [rt.tokenizer().itos[i] for i in exact.new_ids]
    assert [f.step for f in r.frames] == list(range(n))
    assert r.frames[0].agree and r.frames[0].kl < 1e-9        # the prefill read the whole prompt
    for s, f in enumerate(r.frames):
        seen = len(IDS) + s                                   # tokens fed after this step
        assert len(f.kept) == min(B, seen)
        assert [p for p, _ in f.kept] == sorted(p for p, _ in f.kept)
        assert all(0 <= p < seen for p, _ in f.kept) and f.kept[-1][0] == seen - 1
        assert f.nbytes == min(B, seen) * (per_token + scores)
        assert f.full_nbytes == seen * per_token == exact.cache_nbytes[s]
        assert f.kl >= 0 and f.max_dlogit >= 0
    assert 0 < r.agreement < 1 and r.mean_kl > 0.01           # a budget of 6 really forgets
    # the run's numbers count the steps after the first: step 0 agrees by construction
    assert r.counted == n - 1
    assert r.agreement == np.mean([f.agree for f in r.frames[1:]])
    assert r.mean_kl == np.mean([f.kl for f in r.frames[1:]])
    assert r.max_dlogit == max(f.max_dlogit for f in r.frames[1:])
    roles = {role for f in r.frames for _, role in f.kept}
    assert roles == {"window": {"recent"}, "sinks": {"sink", "recent"},
                     "h2o": {"heavy", "recent"}}[policy]
    if policy == "sinks":
        assert [p for p, _ in r.frames[-1].kept[:4]] == [0, 1, 2, 3]
    assert rt.eviction_run("mha", IDS, n, policy, B) is r                 # memoised,
    assert rt.eviction_run("mha", list(IDS), n, policy, B, "original", 4) is r   # however asked


def test_eviction_sweep():
    sweep = rt.eviction_sweep("mha", IDS, rt.EVICTION_NEW, rt.EVICTION_BUDGETS)
    assert tuple(sweep) == rt.POLICIES
    for policy, rows in sweep.items():
        assert [b for b, _, _ in rows] == list(rt.EVICTION_BUDGETS)
        for b, agreement, kl in rows:
            assert 0 <= agreement <= 1 and kl >= 0
            r = rt.eviction_run("mha", IDS, rt.EVICTION_NEW, policy, b)
            assert (agreement, kl) == (r.agreement, r.mean_kl)
        assert rows[-1][1:] == (1.0, 0.0)                       # the last budget holds all
        assert rows[0][1] < 1.0                                 # the smallest one forgets


def test_position_reassignment_is_measured():
    a = rt.eviction_run("mha", IDS, rt.EVICTION_NEW, "sinks", 8, "original")
    b = rt.eviction_run("mha", IDS, rt.EVICTION_NEW, "sinks", 8, "cache")
    assert (a.positions, b.positions) == ("original", "cache")
    assert [f.kept for f in a.frames] == [f.kept for f in b.frames]   # same tokens held ...
    assert a.mean_kl != b.mean_kl                                     # ... read differently


def test_eviction_bad_input():
    with pytest.raises(ValueError, match="unknown eviction policy"):
        rt.eviction_run("mha", IDS, 4, "lru", 8)
    with pytest.raises(ValueError, match="sinks"):
        rt.eviction_run("mha", IDS, 4, "sinks", 4)
    with pytest.raises(ValueError, match="at least 1"):
        rt.eviction_run("mha", IDS, 4, "window", 0)
    with pytest.raises(ValueError, match="empty"):
        rt.eviction_run("mha", (), 4, "window", 8)


def test_attention_shares_are_measured_from_the_exact_run():
    a = rt.attention_shares("mha", IDS, rt.EVICTION_NEW)
    tr = rt.generate("mha", IDS, rt.EVICTION_NEW, "fp32", record_kv=False)
    assert (a.first, a.recent) == (rt.EVICTION_SINKS, 8)
    assert 0 <= a.first_share <= 1 and 0 <= a.recent_share <= 1
    assert a.first_share + a.recent_share <= 1 + 1e-6
    assert len(a.first_by_layer) == rt.model("mha").cfg.n_layers
    assert a.first_share == pytest.approx(np.mean(a.first_by_layer))
    # by hand, layer 0: every step (all hold > 12 tokens), mean over heads, then over steps
    by_hand = np.mean([[row[h, :4].sum() for h in range(row.shape[0])] for row in
                       (step[0] for step in tr.attn)])
    assert a.first_by_layer[0] == pytest.approx(by_hand, rel=1e-5)
    # this model reads locally: far more on the last 8 tokens than on the first 4
    assert a.recent_share > 5 * a.first_share
    with pytest.raises(ValueError, match="never holds"):
        rt.attention_shares("mha", IDS[:3], 2)
