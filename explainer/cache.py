"""KV cache variants, all with one small interface (in the spirit of gpt-fast's KVCache).

Every cache holds, per layer, the keys and values of the tokens seen so far:

    update(layer, k, v) -> (k_all, v_all)
        k, v:          [B, h_kv, T_new, d_h]   the new tokens' keys (already RoPE-rotated)
        k_all, v_all:  [B, h_kv, S, d_h]       every key/value the new queries may read
    key_positions(layer) -> [S]               absolute positions of k_all (for the mask)
    length                                     tokens stored (after a full forward pass)
    nbytes                                     bytes of the tensors it holds, scales included
    window                                     None, or W for a sliding window
    needs_probs                                True if the cache wants observe() calls
    observe(layer, probs)                      probs: [B, h, T_new, S] attention of the new
                                               queries over k_all (only when needs_probs)

The model calls update() once per layer per forward pass (and, for a cache with needs_probs,
observe() right after that layer's softmax); a cache never sees the model.
"""
from __future__ import annotations

from numbers import Integral

import torch

from .model import Config, apply_rope, rope_tables


def _tensor_bytes(*ts) -> int:
    return sum(t.numel() * t.element_size() for t in ts if t is not None)


class KVCache:
    """Contiguous cache: one K and one V tensor per layer, [B, h_kv, tokens, d_h].

    Each decode step writes one new slice along the token axis. `dtype` is the storage
    precision (fp32 or fp16); values are returned in the compute dtype of the new keys.
    """

    window = None
    needs_probs = False

    def __init__(self, cfg: Config, batch: int = 1, dtype=torch.float32, device=None):
        self.cfg, self.batch, self.dtype = cfg, batch, dtype
        shape = (batch, cfg.n_kv_heads, 0, cfg.head_dim)
        self.k = [torch.zeros(shape, dtype=dtype, device=device) for _ in range(cfg.n_layers)]
        self.v = [torch.zeros(shape, dtype=dtype, device=device) for _ in range(cfg.n_layers)]

    def update(self, layer, k, v):
        self.k[layer] = torch.cat([self.k[layer], k.to(self.dtype)], dim=2)
        self.v[layer] = torch.cat([self.v[layer], v.to(self.dtype)], dim=2)
        return self.k[layer].to(k.dtype), self.v[layer].to(v.dtype)

    def key_positions(self, layer):
        return torch.arange(self.k[layer].shape[2])

    @property
    def length(self) -> int:
        return self.k[-1].shape[2]

    @property
    def shape(self) -> tuple:
        """Shape of one layer's K (or V) tensor: (batch, kv_heads, tokens, head_dim)."""
        return tuple(self.k[-1].shape)

    @property
    def nbytes(self) -> int:
        return _tensor_bytes(*self.k, *self.v)


class SlidingWindowCache(KVCache):
    """Keeps only the last W tokens. The new queries still read the retained keys plus the
    new ones (a long prefill needs them), then everything older than W is dropped."""

    def __init__(self, cfg: Config, window: int, batch: int = 1, dtype=torch.float32, device=None):
        if window < 1:
            raise ValueError("window must be at least 1 token")
        super().__init__(cfg, batch, dtype, device)
        self.window = window
        self.seen = [0] * cfg.n_layers                         # tokens written, per layer
        self.pos = [torch.arange(0)] * cfg.n_layers            # positions of the stored keys
        self._read_pos = [torch.arange(0)] * cfg.n_layers      # positions of the last k_all

    def update(self, layer, k, v):
        T = k.shape[2]
        new_pos = torch.arange(self.seen[layer], self.seen[layer] + T)
        k_all = torch.cat([self.k[layer], k.to(self.dtype)], dim=2)
        v_all = torch.cat([self.v[layer], v.to(self.dtype)], dim=2)
        pos_all = torch.cat([self.pos[layer], new_pos])
        self._read_pos[layer] = pos_all
        self.seen[layer] += T
        # evict: keep the last W tokens (clone so the dropped prefix can be freed)
        self.k[layer] = k_all[:, :, -self.window:].clone()
        self.v[layer] = v_all[:, :, -self.window:].clone()
        self.pos[layer] = pos_all[-self.window:]
        return k_all.to(k.dtype), v_all.to(v.dtype)

    def key_positions(self, layer):
        return self._read_pos[layer]

    @property
    def total_seen(self) -> int:
        return self.seen[-1]


class QuantizedKVCache(KVCache):
    """int8 or int4 cache with symmetric group-wise scales.

    Axis: both K and V are quantized *per token*, in groups of `group` consecutive values
    along head_dim (default: one group = one head vector), each group with its own fp16 scale
    s = max|x| / qmax. Why per token for both: a decode step appends one token and must be
    able to quantize it on its own, once, without re-quantizing older entries; per-channel
    scales for K (which handle K's outlier channels better, as in KIVI) would need a buffer of
    full-precision tokens until a group of tokens is complete. Error bound per value:
    |x - x_hat| <= s/2.

    int4 values are stored two per byte (uint8), offset by 8. The scales are real tensors of
    this cache and count in nbytes.
    """

    def __init__(self, cfg: Config, bits: int = 8, group: int | None = None, batch: int = 1,
                 device=None):
        if bits not in (8, 4):
            raise ValueError("bits must be 8 or 4")
        self.cfg, self.batch, self.bits = cfg, batch, bits
        self.group = group or cfg.head_dim
        if cfg.head_dim % self.group or (bits == 4 and self.group % 2):
            raise ValueError("group must divide head_dim (and be even for int4)")
        self.qmax = 127 if bits == 8 else 7
        n_g, h, d = cfg.head_dim // self.group, cfg.n_kv_heads, cfg.head_dim
        packed_d = d if bits == 8 else d // 2
        qdt = torch.int8 if bits == 8 else torch.uint8
        L = cfg.n_layers
        self.kq = [torch.zeros(batch, h, 0, packed_d, dtype=qdt, device=device) for _ in range(L)]
        self.vq = [torch.zeros(batch, h, 0, packed_d, dtype=qdt, device=device) for _ in range(L)]
        self.ks = [torch.zeros(batch, h, 0, n_g, dtype=torch.float16, device=device) for _ in range(L)]
        self.vs = [torch.zeros(batch, h, 0, n_g, dtype=torch.float16, device=device) for _ in range(L)]
        # decoded copies so a step dequantizes only its new rows (not part of the stored cache)
        self._kd = [None] * L
        self._vd = [None] * L

    def quantize(self, x):
        """x: [B, h, T, d] float -> (q [B, h, T, d or d/2], scales fp16 [B, h, T, d/group])."""
        B, h, T, d = x.shape
        g = x.float().reshape(B, h, T, d // self.group, self.group)
        s = (g.abs().amax(-1) / self.qmax).clamp_min(1e-6).half()         # fp16 scales
        q = torch.round(g / s.float()[..., None]).clamp(-self.qmax, self.qmax).to(torch.int8)
        q = q.reshape(B, h, T, d)
        if self.bits == 4:
            u = (q + 8).to(torch.uint8)                                      # 1..15
            q = u[..., 0::2] | (u[..., 1::2] << 4)                           # two per byte
        return q, s

    def dequantize(self, q, s):
        if self.bits == 4:
            lo, hi = (q & 0x0F).to(torch.int8) - 8, (q >> 4).to(torch.int8) - 8
            q = torch.stack([lo, hi], dim=-1).flatten(-2)
        B, h, T, d = q.shape
        g = q.float().reshape(B, h, T, d // self.group, self.group)
        return (g * s.float()[..., None]).reshape(B, h, T, d)

    def update(self, layer, k, v):
        kq, ks = self.quantize(k)
        vq, vs = self.quantize(v)
        self.kq[layer] = torch.cat([self.kq[layer], kq], dim=2)
        self.ks[layer] = torch.cat([self.ks[layer], ks], dim=2)
        self.vq[layer] = torch.cat([self.vq[layer], vq], dim=2)
        self.vs[layer] = torch.cat([self.vs[layer], vs], dim=2)
        kd, vd = self.dequantize(kq, ks).to(k.dtype), self.dequantize(vq, vs).to(v.dtype)
        if self._kd[layer] is not None:
            kd = torch.cat([self._kd[layer], kd], dim=2)
            vd = torch.cat([self._vd[layer], vd], dim=2)
        self._kd[layer], self._vd[layer] = kd, vd
        return kd, vd

    def key_positions(self, layer):
        return torch.arange(self.kq[layer].shape[2])

    @property
    def length(self) -> int:
        return self.kq[-1].shape[2]

    @property
    def shape(self) -> tuple:
        B, h, S, _ = self.kq[-1].shape
        return (B, h, S, self.cfg.head_dim)

    @property
    def nbytes(self) -> int:
        return _tensor_bytes(*self.kq, *self.vq, *self.ks, *self.vs)

    @property
    def scale_nbytes(self) -> int:
        return _tensor_bytes(*self.ks, *self.vs)


class QuantizedSlidingWindowCache(QuantizedKVCache):
    """A sliding window of W tokens stored as int8 or int4 (QuantizedKVCache's values and
    scales): the new queries read the kept tokens plus the new ones, then everything older
    than W is dropped, values, scales and decoded copies alike. What a server does when it
    both windows and quantizes the cache."""

    def __init__(self, cfg: Config, window: int, bits: int = 8, group: int | None = None,
                 batch: int = 1, device=None):
        if window < 1:
            raise ValueError("window must be at least 1 token")
        super().__init__(cfg, bits, group, batch, device)
        self.window = window
        self.seen = [0] * cfg.n_layers
        self.pos = [torch.arange(0)] * cfg.n_layers
        self._read_pos = [torch.arange(0)] * cfg.n_layers

    def update(self, layer, k, v):
        T = k.shape[2]
        pos_all = torch.cat([self.pos[layer], torch.arange(self.seen[layer],
                                                           self.seen[layer] + T)])
        k_all, v_all = super().update(layer, k, v)
        self._read_pos[layer] = pos_all
        self.seen[layer] += T
        W = self.window
        for store in (self.kq, self.vq, self.ks, self.vs, self._kd, self._vd):
            store[layer] = store[layer][:, :, -W:].clone()
        self.pos[layer] = pos_all[-W:]
        return k_all, v_all

    def key_positions(self, layer):
        return self._read_pos[layer]

    @property
    def total_seen(self) -> int:
        return self.seen[-1]


class BlockPool:
    """Paged KV memory (PagedAttention-style): a pool of fixed-size blocks shared by sequences.

    Storage per layer: K and V pools shaped [num_blocks, h_kv, block_size, d_h].
    Each sequence has a block table (logical block i -> physical block id). Blocks are taken
    from the free list when a sequence needs a new one and returned when it is freed. A forked
    sequence shares its parent's blocks (reference counts); writing into a shared block first
    copies it (copy on write).
    """

    def __init__(self, cfg: Config, num_blocks: int, block_size: int = 4,
                 dtype=torch.float32, device=None):
        if num_blocks < 1 or block_size < 1:
            raise ValueError("num_blocks and block_size must be positive")
        self.cfg, self.num_blocks, self.block_size, self.dtype = cfg, num_blocks, block_size, dtype
        shape = (num_blocks, cfg.n_kv_heads, block_size, cfg.head_dim)
        self.k = [torch.zeros(shape, dtype=dtype, device=device) for _ in range(cfg.n_layers)]
        self.v = [torch.zeros(shape, dtype=dtype, device=device) for _ in range(cfg.n_layers)]
        self.ref = [0] * num_blocks
        self.free = list(range(num_blocks))
        self.tables: dict[str, list[int]] = {}
        self.lengths: dict[str, int] = {}
        self.copies = 0  # copy-on-write events

    # -- block bookkeeping -------------------------------------------------------------
    def _alloc(self) -> int:
        if not self.free:
            raise MemoryError("the block pool is full: free a sequence or use more blocks")
        b = self.free.pop(0)
        self.ref[b] = 1
        return b

    def _release(self, b: int):
        self.ref[b] -= 1
        if self.ref[b] == 0:
            self.free.append(b)

    def sequence(self, seq_id: str) -> "PagedSequence":
        if seq_id in self.tables:
            raise ValueError(f"sequence {seq_id!r} exists already")
        self.tables[seq_id], self.lengths[seq_id] = [], 0
        return PagedSequence(self, seq_id)

    def fork(self, parent: str, child: str) -> "PagedSequence":
        """A new sequence that shares all of the parent's blocks (e.g. a common prompt)."""
        if child in self.tables:
            raise ValueError(f"sequence {child!r} exists already")
        self.tables[child] = list(self.tables[parent])
        self.lengths[child] = self.lengths[parent]
        for b in self.tables[child]:
            self.ref[b] += 1
        return PagedSequence(self, child)

    def free_sequence(self, seq_id: str):
        for b in self.tables.pop(seq_id):
            self._release(b)
        del self.lengths[seq_id]

    def _prepare_write(self, seq_id: str, start: int, T: int):
        """Make positions start..start+T-1 writable: allocate missing blocks, copy shared ones."""
        table, bs = self.tables[seq_id], self.block_size
        for i in range(start // bs, (start + T - 1) // bs + 1):
            if i == len(table):
                table.append(self._alloc())
            elif self.ref[table[i]] > 1:              # shared: copy on write, all layers
                old, new = table[i], self._alloc()
                for L in range(self.cfg.n_layers):
                    self.k[L][new] = self.k[L][old]
                    self.v[L][new] = self.v[L][old]
                self._release(old)
                table[i] = new
                self.copies += 1

    # -- statistics ----------------------------------------------------------------------
    @property
    def block_nbytes(self) -> int:
        """Bytes of one block, K and V, all layers."""
        return 2 * self.cfg.n_layers * _tensor_bytes(self.k[0][0])

    @property
    def blocks_used(self) -> int:
        return self.num_blocks - len(self.free)

    @property
    def nbytes(self) -> int:
        """Bytes of the blocks in use (the pool itself is preallocated: pool_nbytes)."""
        return self.blocks_used * self.block_nbytes

    @property
    def pool_nbytes(self) -> int:
        return _tensor_bytes(*self.k, *self.v)

    def stats(self) -> dict:
        bs = self.block_size
        used = {b for t in self.tables.values() for b in t}
        # tokens physically held: for each used block, the most slots any owner fills
        filled = {}
        for sid, table in self.tables.items():
            n = self.lengths[sid]
            for i, b in enumerate(table):
                filled[b] = max(filled.get(b, 0), min(bs, n - i * bs))
        logical = sum(len(t) for t in self.tables.values())
        return {
            "blocks_total": self.num_blocks,
            "blocks_used": len(used),
            "blocks_free": len(self.free),
            "tokens": sum(self.lengths.values()),
            "slots_used": sum(filled.values()),
            "slots_wasted": len(used) * bs - sum(filled.values()),
            "blocks_shared": sum(1 for b in used if self.ref[b] > 1),
            "sharing_saved": logical - len(used),   # blocks that sharing did not need
            "copies_on_write": self.copies,
        }


class PagedSequence:
    """One sequence's view of a BlockPool, with the cache interface the model uses (B = 1)."""

    window = None
    needs_probs = False

    def __init__(self, pool: BlockPool, seq_id: str):
        self.pool, self.id = pool, seq_id
        self.seen = [pool.lengths[seq_id]] * pool.cfg.n_layers

    @property
    def table(self) -> list[int]:
        return self.pool.tables[self.id]

    def update(self, layer, k, v):
        if k.shape[0] != 1:
            raise ValueError("a paged sequence holds one sequence (batch 1)")
        pool, bs, T = self.pool, self.pool.block_size, k.shape[2]
        start = self.seen[layer]
        if layer == 0:
            pool._prepare_write(self.id, start, T)
        table = pool.tables[self.id]
        for t in range(T):  # scatter each new token into its (block, slot)
            p = start + t
            pool.k[layer][table[p // bs], :, p % bs] = k[0, :, t].to(pool.dtype)
            pool.v[layer][table[p // bs], :, p % bs] = v[0, :, t].to(pool.dtype)
        self.seen[layer] = start + T
        if layer == pool.cfg.n_layers - 1:
            pool.lengths[self.id] = start + T
        # gather the blocks in table order: [n_blocks, h, bs, d] -> [1, h, n_blocks*bs, d]
        S = start + T
        blocks = torch.tensor(table[: (S + bs - 1) // bs], device=pool.k[layer].device)
        kg = pool.k[layer][blocks].permute(1, 0, 2, 3).reshape(1, pool.cfg.n_kv_heads, -1, pool.cfg.head_dim)
        vg = pool.v[layer][blocks].permute(1, 0, 2, 3).reshape(1, pool.cfg.n_kv_heads, -1, pool.cfg.head_dim)
        return kg[:, :, :S].to(k.dtype), vg[:, :, :S].to(v.dtype)

    def key_positions(self, layer):
        return torch.arange(self.seen[layer])

    @property
    def length(self) -> int:
        return self.pool.lengths[self.id]

    @property
    def nbytes(self) -> int:
        return len(self.table) * self.pool.block_nbytes


# -- eviction: a budget of B tokens per layer ---------------------------------------------------

EVICTION_POLICIES = ("window", "sinks", "h2o")
POSITION_MODES = ("original", "cache")
ROLES = ("sink", "heavy", "recent")


class EvictingCache(KVCache):
    """A cache that holds at most `budget` tokens per layer and drops the rest (base class).

    Timing, the same for every policy: update() appends the new tokens' keys and values and
    returns everything held plus the new ones, so each new query reads the B held tokens plus
    the new ones (a prefill reads the whole prompt, as the full cache does); then the cache
    drops tokens until B remain. The budget B is what the cache holds *between* steps, which is
    what nbytes measures. A policy that needs no attention (window, sinks) drops in update();
    one that ranks tokens by attention (h2o) sets `needs_probs` and drops in observe(), which
    the model calls right after the layer's softmax, with the probabilities the new queries
    gave to the keys update() returned.

    Positions. The model rotates a key by RoPE at its absolute position *before* storing it
    (model.py), so a kept key keeps that position after its neighbours are dropped:

    - positions="original" (default): the query sees the true distance to each kept key,
      gaps included (a sink 90 tokens back is 90 positions away). This is what H2O and a
      sliding window over post-RoPE keys do.
    - positions="cache": StreamingLLM's re-assignment. The held keys get consecutive
      positions inside the cache (slot i of n held keys sits n - i places before the first
      new token), so the query sees in-cache distances and never a distance larger than the
      budget. Done by rotating each held key by its gap δ = assigned - original position on
      read: RoPE rotations compose, R(a + δ) = R(δ) R(a), and a query-key score under RoPE
      depends only on the difference of their positions, so this gives StreamingLLM's scores
      while the stored keys stay as they arrived (it costs one rotation of the held keys per
      step). The paper stores keys before RoPE and rotates by slot; same scores, up to
      float32 round-off.

    Kept sets are per layer, shared by the layer's heads and by every sequence of a batch.
    While no token has been dropped the cache is the plain fp32/fp16 cache: the same tensors,
    the same logits bit for bit.
    """

    policy = ""

    def __init__(self, cfg: Config, budget: int, positions: str = "original", batch: int = 1,
                 dtype=torch.float32, device=None):
        if isinstance(budget, bool) or not isinstance(budget, Integral) or budget < 1:
            raise ValueError("the budget must be at least 1 token")
        budget = int(budget)
        if positions not in POSITION_MODES:
            raise ValueError(f"positions must be one of {POSITION_MODES}")
        super().__init__(cfg, batch, dtype, device)
        self.budget, self.positions = budget, positions
        L = cfg.n_layers
        self.seen = [0] * L                                       # tokens written, per layer
        self.pos = [torch.zeros(0, dtype=torch.long)] * L         # positions of the held keys
        self._read_pos = [torch.zeros(0, dtype=torch.long)] * L   # positions of the last k_all
        self.evicted = [0] * L                                    # tokens dropped, per layer
        if positions == "cache":
            self._cos, self._sin = rope_tables(cfg, device)

    def update(self, layer, k, v):
        T, n_old, start = k.shape[2], self.k[layer].shape[2], self.seen[layer]
        self.k[layer] = torch.cat([self.k[layer], k.to(self.dtype)], dim=2)
        self.v[layer] = torch.cat([self.v[layer], v.to(self.dtype)], dim=2)
        self.pos[layer] = torch.cat([self.pos[layer], torch.arange(start, start + T)])
        self._read_pos[layer] = self.pos[layer]
        self.seen[layer] = start + T
        k_all, v_all = self.k[layer].to(k.dtype), self.v[layer].to(v.dtype)
        if self.positions == "cache" and n_old:
            # held slot i is assigned position start - n_old + i; rotate it by the gap
            gap = start - n_old + torch.arange(n_old) - self.pos[layer][:n_old]
            if bool(gap.any()):
                g = gap.to(self._cos.device)
                old = apply_rope(k_all[:, :, :n_old], self._cos[g].to(k.dtype),
                                 self._sin[g].to(k.dtype))
                k_all = torch.cat([old, k_all[:, :, n_old:]], dim=2)
        if not self.needs_probs:
            self._evict(layer)
        return k_all, v_all

    def key_positions(self, layer):
        """Original absolute positions of the keys the last update() returned (for the
        causal mask; with positions="cache" the scores use the assigned ones)."""
        return self._read_pos[layer]

    def _keep(self, layer: int, n: int) -> torch.Tensor:
        """Sorted slot indices (of the n held) to keep; len == budget < n."""
        raise NotImplementedError

    def _evict(self, layer: int):
        n = self.k[layer].shape[2]
        if n <= self.budget:
            return
        keep = self._keep(layer, n)
        idx = keep.to(self.k[layer].device)
        self.k[layer] = self.k[layer].index_select(2, idx)
        self.v[layer] = self.v[layer].index_select(2, idx)
        self.pos[layer] = self.pos[layer][keep]
        self.evicted[layer] += n - len(keep)
        self._kept_slots(layer, idx)

    def _kept_slots(self, layer: int, idx: torch.Tensor):
        """Hook for per-token state that must follow the kept slots."""

    def roles(self, layer: int = 0) -> tuple:
        """The held tokens as (absolute position, role), role in ROLES."""
        return tuple((int(p), "recent") for p in self.pos[layer])

    @property
    def total_seen(self) -> int:
        return self.seen[-1]


class RecentWindowCache(EvictingCache):
    """policy "window": keep the most recent B tokens, the baseline.

    Unlike SlidingWindowCache (Mistral-style: the model also masks the prefill with the
    window, so it equals a full recompute with a window mask), this one lets the prefill read
    the whole prompt and drops afterwards, like the other eviction policies, so the three
    differ only in *which* tokens they keep."""

    policy = "window"

    def _keep(self, layer, n):
        return torch.arange(n - self.budget, n)


class SinkCache(EvictingCache):
    """policy "sinks" (StreamingLLM, Xiao et al. 2023): the first S tokens, the attention
    sinks that softmax parks its spare attention on, plus the most recent B - S.
    S = 4 as in the paper; the paper also re-assigns positions (positions="cache")."""

    policy = "sinks"

    def __init__(self, cfg: Config, budget: int, sinks: int = 4, **kw):
        if isinstance(sinks, bool) or not isinstance(sinks, Integral) or sinks < 0:
            raise ValueError("the number of sinks must be 0 or more")
        sinks = int(sinks)
        if isinstance(budget, Integral) and budget <= sinks:
            raise ValueError(f"a budget of {budget} tokens cannot hold {sinks} sinks "
                             f"and a recent token")
        super().__init__(cfg, budget, **kw)
        self.sinks = sinks

    def _keep(self, layer, n):
        S = self.sinks
        return torch.cat([torch.arange(S), torch.arange(n - (self.budget - S), n)])

    def roles(self, layer=0):
        return tuple((int(p), "sink" if p < self.sinks else "recent") for p in self.pos[layer])


class HeavyHitterCache(EvictingCache):
    """policy "h2o" (H2O, Zhang et al. 2023): the B - B//2 most recent tokens plus the B//2
    older tokens with the highest accumulated attention: half and half, the paper's default.

    A token's score is the attention it has received while held: the sum of the
    probabilities every query so far (the prompt's queries in the prefill, then one per
    step) gave it, summed over the layer's heads (and a batch's sequences). The paper keeps a
    score and a kept set per head; here one set per layer, so a layer's heads read the same
    tokens and the kept set can be drawn as one strip. The scores are a tensor the cache
    holds (one float per held token per layer) and count in nbytes.

    Tokens still held before the first drop are labelled by the part of the budget they
    occupy: the last B - B//2 "recent", the others "heavy"."""

    policy = "h2o"
    needs_probs = True

    def __init__(self, cfg: Config, budget: int, **kw):
        super().__init__(cfg, budget, **kw)
        self.heavy = self.budget // 2
        self.recent = self.budget - self.heavy
        dev = self.k[0].device
        self.score = [torch.zeros(0, device=dev) for _ in range(cfg.n_layers)]

    def observe(self, layer, probs):
        """probs: [B, h, T_new, S] over the keys the last update() returned."""
        got = probs.detach().float().sum(dim=(0, 1, 2))                      # [S]
        old = self.score[layer]
        self.score[layer] = torch.cat([old, old.new_zeros(got.shape[0] - old.shape[0])]) + got
        self._evict(layer)

    def _keep(self, layer, n):
        cand = n - self.recent                     # older slots compete on their scores
        order = torch.sort(self.score[layer][:cand].cpu(), descending=True, stable=True).indices
        heavy = torch.sort(order[:self.heavy]).values
        return torch.cat([heavy, torch.arange(cand, n)])

    def _kept_slots(self, layer, idx):
        self.score[layer] = self.score[layer].index_select(0, idx)

    def roles(self, layer=0):
        n = len(self.pos[layer])
        return tuple((int(p), "recent" if i >= n - self.recent else "heavy")
                     for i, p in enumerate(self.pos[layer]))

    @property
    def score_nbytes(self) -> int:
        return _tensor_bytes(*self.score)

    @property
    def nbytes(self) -> int:
        return super().nbytes + self.score_nbytes


def make_eviction_cache(policy: str, cfg: Config, budget: int, sinks: int = 4,
                        positions: str = "original", device=None) -> EvictingCache:
    """Build an eviction cache by policy name: window, sinks (with `sinks` S) or h2o."""
    if policy == "window":
        return RecentWindowCache(cfg, budget, positions=positions, device=device)
    if policy == "sinks":
        return SinkCache(cfg, budget, sinks=sinks, positions=positions, device=device)
    if policy == "h2o":
        return HeavyHitterCache(cfg, budget, positions=positions, device=device)
    raise ValueError(f"unknown eviction policy {policy!r}; choose one of {EVICTION_POLICIES}")


def make_cache(kind: str, cfg: Config, device=None, window: int | None = None):
    """Build a cache by name: fp32, fp16, int8, int4, window (needs window=W), paged.
    fp32, fp16, int8 and int4 with a `window` W keep only the last W tokens, stored in that
    precision ("window" alone: an fp32 window)."""
    if window and kind in ("fp32", "fp16"):
        return SlidingWindowCache(cfg, window, dtype=getattr(torch, {"fp32": "float32",
                                                                      "fp16": "float16"}[kind]),
                                  device=device)
    if window and kind in ("int8", "int4"):
        return QuantizedSlidingWindowCache(cfg, window, bits=int(kind[3:]), device=device)
    if kind == "fp32":
        return KVCache(cfg, dtype=torch.float32, device=device)
    if kind == "fp16":
        return KVCache(cfg, dtype=torch.float16, device=device)
    if kind in ("int8", "int4"):
        return QuantizedKVCache(cfg, bits=int(kind[3:]), device=device)
    if kind == "window":
        if not window:
            raise ValueError("a sliding-window cache needs window=W")
        return SlidingWindowCache(cfg, window, device=device)
    if kind == "paged":
        pool = BlockPool(cfg, num_blocks=cfg.max_len // 4 + 1, block_size=4, device=device)
        return pool.sequence("0")
    raise ValueError(f"unknown cache kind {kind!r}")


CACHE_KINDS = ("fp32", "fp16", "int8", "int4", "window", "paged")
