"""The decoder and its caches on small random models (no shipped weights needed)."""
import pytest
import torch

from explainer.cache import (BlockPool, KVCache, QuantizedKVCache, SlidingWindowCache,
                             make_cache)
from explainer.model import Config, Decoder, Stats, apply_rope, pick_device, rope_tables

VOCAB = 97


def tiny(n_kv_heads=4, seed=0, **kw):
    torch.manual_seed(seed)
    return Decoder(Config(vocab_size=VOCAB, n_kv_heads=n_kv_heads, **kw)).eval()


def run_cached(m, ids, P, cache):
    """Prefill ids[:P], then one token at a time; returns logits for every position >= 0."""
    outs = [m(ids[:, :P], 0, cache)]
    for t in range(P, ids.shape[1]):
        outs.append(m(ids[:, t:t + 1], t, cache))
    return torch.cat(outs, dim=1)


@pytest.mark.parametrize("n_kv_heads", [4, 2, 1], ids=["MHA", "GQA", "MQA"])
@pytest.mark.parametrize("P", [1, 2, 5, 16])
@torch.no_grad()
def test_cached_equals_uncached_greedy(n_kv_heads, P):
    """64 greedy tokens with the cache == recomputing the whole prefix every step."""
    m = tiny(n_kv_heads)
    g = torch.Generator().manual_seed(P)
    seq = torch.randint(VOCAB, (1, P), generator=g)
    cache = KVCache(m.cfg)
    logits = m(seq, 0, cache)[:, -1]
    for step in range(64):
        full = m(seq)[:, -1]                                 # no cache: whole sequence again
        assert torch.allclose(logits, full, atol=1e-5, rtol=0), (step, (logits - full).abs().max())
        nxt = logits.argmax(-1, keepdim=True)
        seq = torch.cat([seq, nxt], dim=1)
        logits = m(nxt, seq.shape[1] - 1, cache)[:, -1]
    assert cache.length == P + 64
    assert cache.shape == (1, n_kv_heads, P + 64, m.cfg.head_dim)


@torch.no_grad()
def test_cache_tensors_layout_and_batch():
    m = tiny(2)
    ids = torch.randint(VOCAB, (3, 9))
    cache = KVCache(m.cfg, batch=3)
    got = run_cached(m, ids, 4, cache)
    assert torch.allclose(got, m(ids), atol=1e-5)
    assert all(k.shape == (3, 2, 9, m.cfg.head_dim) for k in cache.k)
    # each decode step wrote exactly one new slice: the first rows never change
    k_before = cache.k[0][:, :, :9].clone()
    m(ids[:, :1], 9, cache)
    assert torch.equal(cache.k[0][:, :, :9], k_before)


@torch.no_grad()
def test_mask_is_bottom_right_aligned_for_a_chunk_after_a_cache():
    """Several new queries after a cached prefix: each sees the prefix and its own past."""
    m = tiny()
    ids = torch.randint(VOCAB, (1, 12))
    cache = KVCache(m.cfg)
    a = m(ids[:, :5], 0, cache)
    b, probs = m(ids[:, 5:], 5, cache, want_probs=True)
    assert torch.allclose(torch.cat([a, b], 1), m(ids), atol=1e-5)
    p = probs[0][0, 0]                       # layer 0, head 0: [7 queries, 12 keys]
    assert (p[0, :6] > 0).all() and (p[0, 6:] == 0).all()   # query at position 5 reads 0..5
    assert (p[-1] > 0).all()


def test_rope_uses_absolute_positions():
    cfg = Config(vocab_size=VOCAB)
    cos, sin = rope_tables(cfg)
    x = torch.randn(1, 1, 1, cfg.head_dim)
    # a rotation: norms kept; position 0 is the identity; position 7 differs from 0
    assert torch.allclose(apply_rope(x, cos[:1], sin[:1]), x)
    r7 = apply_rope(x, cos[7:8], sin[7:8])
    assert torch.allclose(r7.norm(), x.norm(), atol=1e-5) and not torch.allclose(r7, x)
    # scores depend on relative position only: <R_m q, R_n k> = <R_{m+3} q, R_{n+3} k>
    q, k = torch.randn(2, 1, 1, 1, cfg.head_dim)
    s1 = (apply_rope(q, cos[9:10], sin[9:10]) * apply_rope(k, cos[4:5], sin[4:5])).sum()
    s2 = (apply_rope(q, cos[12:13], sin[12:13]) * apply_rope(k, cos[7:8], sin[7:8])).sum()
    assert torch.allclose(s1, s2, atol=1e-5)


@torch.no_grad()
def test_wrong_positions_change_the_output():
    """Giving a decode token position 0 (a classic bug) must not match; the right one does."""
    m = tiny()
    ids = torch.randint(VOCAB, (1, 6))
    full = m(ids)[:, -1]
    c1, c2 = KVCache(m.cfg), KVCache(m.cfg)
    m(ids[:, :5], 0, c1)
    m(ids[:, :5], 0, c2)
    assert torch.allclose(m(ids[:, 5:], 5, c1)[:, -1], full, atol=1e-5)
    assert not torch.allclose(m(ids[:, 5:], 0, c2)[:, -1], full, atol=1e-3)


@torch.no_grad()
def test_gqa_groups_consecutive_query_heads():
    """Query head i reads K/V head i // (h / h_kv), i.e. repeat_interleave, not repeat."""
    m = tiny(n_kv_heads=2)
    att = m.blocks[0].attn
    # make kv head 1's keys huge at one position so only heads 2 and 3 (group 1) attend there
    ids = torch.randint(VOCAB, (1, 6))
    with torch.no_grad():
        att.wk.weight[32:] *= 50.0
    _, probs = m(ids, want_probs=True)
    p = probs[0][0]                          # [h=4, T, S]
    ent = -(p.clamp_min(1e-12).log() * p).sum(-1).mean(-1)   # attention entropy per head
    assert torch.allclose(ent[0], ent[1], rtol=0.5) and torch.allclose(ent[2], ent[3], rtol=0.5)
    assert ent[2] < ent[0] and ent[3] < ent[1]


@pytest.mark.parametrize("n_kv_heads", [4, 1])
@pytest.mark.parametrize("block_size", [1, 3, 4, 16])
@torch.no_grad()
def test_paged_equals_contiguous(n_kv_heads, block_size):
    m = tiny(n_kv_heads)
    ids = torch.randint(VOCAB, (1, 23))
    pool = BlockPool(m.cfg, num_blocks=32, block_size=block_size)
    paged = run_cached(m, ids, 7, pool.sequence("a"))
    contiguous = run_cached(m, ids, 7, KVCache(m.cfg))
    assert torch.allclose(paged, contiguous, atol=1e-6)
    assert pool.blocks_used == -(-23 // block_size)


@torch.no_grad()
def test_paged_sharing_copy_on_write_and_free():
    m = tiny()
    pool = BlockPool(m.cfg, num_blocks=12, block_size=4)
    prefix = torch.randint(VOCAB, (1, 6))           # 6 tokens: 1 full block + a half-full one
    a = pool.sequence("a")
    m(prefix, 0, a)
    assert pool.blocks_used == 2 and pool.stats()["slots_wasted"] == 2
    b = pool.fork("a", "b")
    assert pool.tables["a"] == pool.tables["b"] and pool.blocks_used == 2
    assert pool.stats()["sharing_saved"] == 2 and pool.stats()["blocks_shared"] == 2
    # b writes into the shared, half-full last block -> it gets its own copy
    tb = torch.randint(VOCAB, (1, 1))
    out_b = m(tb, 6, b)
    assert pool.copies == 1 and pool.tables["a"][0] == pool.tables["b"][0]
    assert pool.tables["a"][1] != pool.tables["b"][1]
    # b's logits equal a contiguous run of prefix + token
    ref = KVCache(m.cfg)
    m(prefix, 0, ref)
    assert torch.allclose(out_b, m(tb, 6, ref), atol=1e-6)
    # a continues in its own (now unshared) block: no further copy
    m(torch.randint(VOCAB, (1, 1)), 6, a)
    assert pool.copies == 1
    used = pool.blocks_used
    pool.free_sequence("a")
    assert pool.blocks_used == used - 1            # the shared first block survives for b
    pool.free_sequence("b")
    assert pool.blocks_used == 0 and len(pool.free) == 12
    assert pool.nbytes == 0 and pool.pool_nbytes == 12 * pool.block_nbytes


def test_paged_pool_exhaustion_is_a_clear_error():
    m = tiny()
    pool = BlockPool(m.cfg, num_blocks=1, block_size=2)
    with pytest.raises(MemoryError, match="pool is full"):
        m(torch.randint(VOCAB, (1, 3)), 0, pool.sequence("a"))


@pytest.mark.parametrize("W", [1, 3, 8])
@torch.no_grad()
def test_sliding_window_equals_full_recompute_with_window_mask(W):
    m = tiny(2)
    ids = torch.randint(VOCAB, (1, 20))
    cache = SlidingWindowCache(m.cfg, W)
    got = run_cached(m, ids, 9, cache)           # prefill longer than the window
    assert torch.allclose(got, m(ids, window=W), atol=1e-5)
    assert cache.k[0].shape[2] == W and cache.total_seen == 20
    assert cache.nbytes == 2 * m.cfg.n_layers * 2 * W * m.cfg.head_dim * 4
    assert cache.pos[0].tolist() == list(range(20 - W, 20))


@pytest.mark.parametrize("kind,per_value,scale,tol", [("fp32", 4, 0, 1e-5), ("fp16", 2, 0, 0.02),
                                                      ("int8", 1, 2, 0.2), ("int4", 0.5, 2, 2.0)])
@torch.no_grad()
def test_a_window_is_kept_in_the_precision_chosen(kind, per_value, scale, tol):
    """make_cache(kind, window=W): the last W tokens, stored in that precision (step 6's
    part C: an fp16 window holds 2 bytes a value, not fp32's 4), read like the full-precision
    window up to that precision's rounding."""
    W = 5
    m = tiny(2)
    ids = torch.randint(VOCAB, (1, 20))
    cache = make_cache(kind, m.cfg, window=W)
    got = run_cached(m, ids, 9, cache)
    assert cache.window == W and cache.length == W and cache.total_seen == 20
    assert cache.nbytes == W * 2 * m.cfg.n_layers * 2 * (m.cfg.head_dim * per_value + scale)
    assert cache.pos[0].tolist() == list(range(20 - W, 20))
    assert (got - m(ids, window=W)).abs().max() < tol
    if kind in ("int8", "int4"):
        assert cache.scale_nbytes == W * 2 * m.cfg.n_layers * 2 * 2
        assert cache._kd[0].shape[2] == W                    # the decoded copies are cut too


@torch.no_grad()
def test_sliding_window_differs_from_full_context():
    m = tiny()
    ids = torch.randint(VOCAB, (1, 20))
    assert not torch.allclose(m(ids, window=3)[:, -1], m(ids)[:, -1], atol=1e-4)


@pytest.mark.parametrize("bits", [8, 4])
def test_quantization_error_bound_per_group(bits):
    cfg = Config(vocab_size=VOCAB)
    c = QuantizedKVCache(cfg, bits=bits, group=16)
    x = torch.randn(2, cfg.n_kv_heads, 7, cfg.head_dim) * 3
    q, s = c.quantize(x)
    xr = c.dequantize(q, s)
    qmax = 127 if bits == 8 else 7
    # per value: |x - x_hat| <= s/2, s = max|group| / qmax (fp16)
    s_full = s.float().repeat_interleave(16, dim=-1)
    assert ((x - xr).abs() <= s_full / 2 + 1e-6).all()
    amax = x.reshape(2, cfg.n_kv_heads, 7, -1, 16).abs().amax(-1)
    assert torch.allclose(s.float(), amax / qmax, rtol=1e-3)
    assert q.dtype == (torch.int8 if bits == 8 else torch.uint8)
    assert q.shape[-1] == (cfg.head_dim if bits == 8 else cfg.head_dim // 2)


@pytest.mark.parametrize("bits,max_dlogit", [(8, 0.05), (4, 0.6)])
@torch.no_grad()
def test_quantized_cache_logits_close(bits, max_dlogit):
    m = tiny()
    ids = torch.randint(VOCAB, (1, 24))
    exact = run_cached(m, ids, 8, KVCache(m.cfg))
    c = QuantizedKVCache(m.cfg, bits=bits)
    got = run_cached(m, ids, 8, c)
    assert (got - exact).abs().max() < max_dlogit
    # bytes: int values + one fp16 scale per head vector, for K and V, every layer
    per_tok = 2 * m.cfg.n_layers * m.cfg.n_kv_heads * (m.cfg.head_dim * bits // 8 + 2)
    assert c.nbytes == 24 * per_tok
    assert c.scale_nbytes == 24 * 2 * m.cfg.n_layers * m.cfg.n_kv_heads * 2


@pytest.mark.parametrize("kind", ["fp32", "fp16", "int8", "int4", "paged"])
@pytest.mark.parametrize("n_kv_heads", [4, 2, 1])
@torch.no_grad()
def test_nbytes_counted_from_tensors(kind, n_kv_heads):
    m = tiny(n_kv_heads)
    c = make_cache(kind, m.cfg)
    run_cached(m, torch.randint(VOCAB, (1, 12)), 5, c)
    per_value = {"fp32": 4, "fp16": 2, "int8": 1, "int4": 0.5, "paged": 4}[kind]
    scale = 2 if kind in ("int8", "int4") else 0
    expect = 12 * 2 * m.cfg.n_layers * n_kv_heads * (m.cfg.head_dim * per_value + scale)
    assert c.nbytes == expect


def test_projection_rows_counted_per_layer():
    m = tiny()
    st = Stats(m.cfg.n_layers)
    with torch.no_grad():
        m(torch.randint(VOCAB, (2, 5)), stats=st)
    assert st.kv_rows == [10] * m.cfg.n_layers and st.kv_rows_total == 40


def test_bad_inputs():
    m = tiny()
    with pytest.raises(ValueError, match="at least one token"):
        m(torch.zeros(1, 0, dtype=torch.long))
    with pytest.raises(ValueError, match="context"):
        m(torch.zeros(1, 2, dtype=torch.long), start=m.cfg.max_len - 1)
    with pytest.raises(ValueError):
        make_cache("nope", m.cfg)
    with pytest.raises(ValueError):
        Config(n_heads=4, n_kv_heads=3)


def test_context_is_at_least_1024():
    assert Config().max_len >= 1024


def test_device_override(monkeypatch):
    monkeypatch.setenv("KV_EXPLAINER_DEVICE", "cpu")
    assert pick_device().type == "cpu"
    if not torch.cuda.is_available():
        monkeypatch.setenv("KV_EXPLAINER_DEVICE", "cuda")
        with pytest.raises(RuntimeError, match="no CUDA"):
            pick_device()


@pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device on this machine")
@torch.no_grad()
def test_cuda_cached_equals_cpu():
    m = tiny()
    ids = torch.randint(VOCAB, (1, 12))
    cpu = run_cached(m, ids, 4, KVCache(m.cfg))
    mc = m.to("cuda")
    gpu = run_cached(mc, ids.cuda(), 4, KVCache(mc.cfg, device="cuda"))
    assert torch.allclose(gpu.cpu(), cpu, atol=1e-4)
    pool = BlockPool(mc.cfg, 16, 4, device="cuda")
    assert torch.allclose(run_cached(mc, ids.cuda(), 4, pool.sequence("a")).cpu(), cpu, atol=1e-4)
