"""The planner's questions: how long a context, how large a batch fit on a GPU.

The memory bill (:func:`explainer.costs.memory_bill`) answers "how much memory do
``batch`` sequences of ``context`` tokens need?". The planner inverts it, for a model,
a GPU preset and a number of them, the weights' bytes per parameter and the cache
precision. Pure functions and frozen dataclasses of numbers: no Panel, no torch, no
words.

The cache of one sequence is summed layer by layer (:func:`explainer.costs.layer_map`):
a full-attention or MLA layer keeps every token, a sliding-window layer the last W, a
chunked layer at most C, a layer that shares another's K/V or has no attention nothing,
a cross-attention layer a fixed block (the image's K/V, not the text's), an SSM or
linear-attention layer a fixed state. So the cache is not linear in the context, and the
longest context is found by search, not by a division.

Two answers, side by side:

**Ideal** (what the bill's own arithmetic gives; the bill's GPU memory is the vendor's
number read as GiB, "80 GB" = 80 GiB = 85.9e9 bytes):

- ``free = gpus x capacity - weights`` (weights = parameters x bytes per parameter);
- largest batch at the context: ``floor(free / cache of one sequence)`` (with one GPU,
  the bill's ``max_sequences``);
- longest context of one sequence: the largest T with ``cache(T) <= free``, found by
  bisection (every kind of layer keeps a number of tokens that never shrinks as the
  sequence grows, so ``cache(T)`` is non-decreasing), capped at the model's maximum
  context. ``context_bound`` says which bound binds: ``"memory"``, ``"model"`` (its
  maximum context), ``"weights"`` (the weights alone do not fit: nothing does) or
  ``"unbounded"`` (the model does not say its maximum and its cache stops growing below
  the free memory: every layer is windowed).

The cache is taken to split evenly over the GPUs.

**Serving-engine estimate** (vLLM-like; an estimate, labelled as one):

- the engine may use ``share`` (vLLM's ``gpu_memory_utilization``, default 0.9) of the
  memory the driver gives programs (``GPUPreset.usable_gib``: an L4 "24 GB" shows
  22.5 GiB with ECC on); per GPU, the pool for the cache is
  ``share x usable - weights / gpus``;
- the cache lives in blocks of ``BLOCK_TOKENS`` = 16 tokens (vLLM's default
  ``block_size``): a sequence takes ``ceil(kept / 16)`` blocks in every layer, where
  ``kept`` is what that layer keeps (a 4,097-token sequence takes 257 blocks of a
  full-attention layer: 4,112 token slots);
- tensor parallelism splits the KV heads over the GPUs; with fewer KV heads than GPUs,
  each GPU keeps one head (vLLM replicates them), and an MLA latent is kept whole on
  every GPU (it has no heads to split). vLLM accepts only whole heads per GPU: its
  ``QKVParallelLinear`` (``vllm/model_executor/layers/linear.py``) splits the KV heads
  when ``kv_heads % gpus == 0`` and replicates them when ``gpus % kv_heads == 0``, and
  otherwise stops at start-up. The planner refuses the same splits (:func:`kv_fraction`
  is None, ``engine_bound`` is ``"split"`` and the engine's answers are 0): phi-4's 10 KV
  heads go on 2 GPUs (5 each) but not on 4 or 8, where a floor would have kept 2 or 1
  of 10 heads per GPU as 0.2 or 0.1 of the cache and dropped the rest;
- pool tokens: the tokens the pool holds with every token stored in every layer that
  grows (``floor(pool / block of all such layers) x 16``: vLLM's "GPU KV cache size: N
  tokens" line for a model whose layers all keep every token);
- largest batch at the context and longest context at batch 1, as above but with whole
  blocks and that pool.

The reserve: the pool above is an **upper bound**. vLLM does not size its cache from the
config; it measures (``vllm/v1/worker/gpu_worker.py``, ``Worker.determine_available_memory``,
read at commit 0012cf6): after loading the weights it runs ``profile_run``, a dummy
forward pass over ``max_num_batched_tokens`` tokens and a dummy sampler over
``max_num_seqs`` requests, and takes ``share x total - peak``, where ``peak`` is PyTorch's
peak allocation during that pass (weights included) plus the memory allocated outside
PyTorch (NCCL, the CUDA context). So what it keeps for the cache is ``share x total -
weights - activations' peak - non-torch memory``, and the two last terms depend on the
engine's batch settings and kernels, not on the config alone. ``plan(reserve=...)``
takes them, per GPU, from the pool; the default 0 gives the upper bound the page shows.
A published start-up log (vllm-project/vllm issue 10517: Llama 3.1 8B Instruct, RTX 3090
of 23.58 GiB, share 0.9, ``max_model_len`` 20,000, so a profile pass of 20,000 tokens)
measured 2.07 GiB of activations and 0.35 GiB outside PyTorch next to 14.99 GiB of
weights: 0.9 x 23.58 - 14.99 - 2.07 - 0.35 = 3.81 GiB, which it logged as 1,952 blocks
of 16 tokens = 31,232 tokens, where the upper bound (reserve 0) on the same card is 6.23
GiB. CUDA graphs, captured after the measurement, take more (vLLM V0 warned of "1~3
GiB"). Engines that pad sliding-window layers' pages to the full layers' size (hybrid
allocators) keep more.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from . import costs
from .presets import DEFAULT_PRECISION, GiB, GPUPreset

BLOCK_TOKENS = 16
"""Tokens per cache block (vLLM's default ``block_size``)."""

ENGINE_SHARE = 0.9
"""vLLM's default ``gpu_memory_utilization``: the share of GPU memory the engine takes."""

SEARCH_CAP = 2**30
"""The longest context searched when the model does not say its maximum (~1 billion)."""

BOUNDS = ("memory", "model", "weights", "unbounded", "split")
"""What limits the longest context: see the module docstring (``"split"``: the engine
refuses to split the KV heads over the GPUs; the engine's answers only)."""


@dataclass(frozen=True)
class Growth:
    """One layer's cache as a function of the tokens it keeps: ``fixed + kept x
    per_token`` bytes per sequence (``kept`` from :func:`costs.layer_map`)."""

    kind: str
    per_token: int
    fixed: int


@dataclass(frozen=True)
class Plan:
    """The planner's answers for one model, GPU preset (x ``gpus``), context and
    precisions. Bytes are floats or ints of bytes; the engine's figures are per GPU
    where they say so."""

    context: int                 # the chosen context (tokens per sequence)
    gpus: int
    precision: str               # of the cache
    bytes_per_param: float       # of the weights (on average, as counted)
    max_context_model: int | None
    # ideal
    memory: float                # gpus x the vendor's capacity (GiB)
    weights: float
    free: float                  # memory - weights (may be < 0)
    per_sequence: int            # cache of one sequence at `context`
    max_batch: int
    max_context: int
    context_bound: str           # one of BOUNDS
    # serving-engine estimate
    share: float
    block_tokens: int
    reserve: float               # per GPU, beside the weights (0: the pool is an upper bound)
    usable: float                # gpus x what the driver gives programs
    pool: float                  # cache pool per GPU: share x usable - weights / gpus - reserve
    kv_fraction: float | None    # share of the cache each GPU keeps (None: vLLM refuses)
    block_bytes: float           # per GPU: one block of every layer that grows
    pool_blocks: int
    pool_tokens: int
    engine_per_sequence: float   # per GPU: one sequence at `context`, in whole blocks
    engine_batch: int
    engine_context: int
    engine_bound: str            # one of BOUNDS

    @property
    def fits_one(self) -> bool:
        """One sequence of `context` tokens fits (ideal)."""
        return self.max_batch >= 1

    @property
    def engine_fits_one(self) -> bool:
        return self.engine_batch >= 1

    @property
    def split_refused(self) -> bool:
        """The engine refuses to split the KV heads over ``gpus`` (:func:`kv_fraction`)."""
        return self.kv_fraction is None


def growth(model: costs.ModelLike, precision: costs.PrecisionLike = DEFAULT_PRECISION
           ) -> tuple[Growth, ...]:
    """Each layer's fixed bytes and bytes per kept token, from :func:`costs.layer_map`
    at 0 and 1 tokens (a layer that grows keeps the one token; one that does not keeps
    what it keeps whatever the context)."""
    at0 = costs.layer_map(model, 0, precision)
    at1 = costs.layer_map(model, 1, precision)
    out = []
    for a, b in zip(at0, at1):
        grown = b.tokens - a.tokens
        out.append(Growth(a.kind, (b.nbytes - a.nbytes) // grown if grown else 0, a.nbytes))
    return tuple(out)


def sequence_bytes(model: costs.ModelLike, context: int,
                   precision: costs.PrecisionLike = DEFAULT_PRECISION) -> int:
    """Ideal cache of one sequence of ``context`` tokens: the sum over the layer map."""
    return sum(u.nbytes for u in costs.layer_map(model, context, precision))


def engine_sequence_bytes(model: costs.ModelLike, context: int,
                          precision: costs.PrecisionLike = DEFAULT_PRECISION,
                          block: int = BLOCK_TOKENS,
                          grow: tuple[Growth, ...] | None = None) -> int:
    """One sequence in whole blocks: per layer ``fixed + ceil(kept / block) x block x
    per_token`` bytes (all the cache, before tensor parallelism splits it)."""
    grow = grow or growth(model, precision)
    uses = costs.layer_map(model, context, precision)
    return sum(g.fixed + math.ceil(u.tokens / block) * block * g.per_token
               for g, u in zip(grow, uses))


def longest(need, budget: float, cap: int | None) -> tuple[int, str]:
    """The largest T in [0, cap] with ``need(T) <= budget`` and which bound binds.

    ``need`` must be non-decreasing (every layer keeps a number of tokens that never
    shrinks as the sequence grows). ``cap`` None: the model does not say its maximum;
    search up to ``SEARCH_CAP``."""
    if budget < 0:
        return 0, "weights"
    top = SEARCH_CAP if cap is None else cap
    if need(top) <= budget:
        return top, "unbounded" if cap is None else "model"
    if need(0) > budget:
        return 0, "memory"
    lo, hi = 0, top                  # need(lo) <= budget < need(hi)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if need(mid) <= budget else (lo, mid)
    return lo, "memory"


def kv_fraction(model: costs.ModelLike, gpus: int) -> float | None:
    """The share of the cache each of ``gpus`` GPUs keeps under tensor parallelism:
    ``(kv_heads / gpus) / kv_heads`` when the heads split evenly, ``1 / kv_heads`` when
    the GPUs are a multiple of the heads (one each, replicated), None when neither holds
    (vLLM refuses the split: module docstring); an MLA latent is kept whole on every
    GPU."""
    m = costs.get_model(model)
    if m.is_mla:
        return 1.0
    heads = m.n_kv_heads
    if heads % gpus == 0:
        return (heads // gpus) / heads
    if gpus % heads == 0:
        return 1 / heads
    return None


def plan(model: costs.ModelLike, gpu: costs.GPULike, context: int, gpus: int = 1,
         precision: costs.PrecisionLike = DEFAULT_PRECISION,
         bytes_per_param: float | None = None, share: float = ENGINE_SHARE,
         block: int = BLOCK_TOKENS, reserve: float = 0.0) -> Plan:
    """The planner's answers (module docstring): ideal and serving-engine estimate.
    The weights are as released (:func:`costs.weight_bytes`: 16-bit, or the fp8 or
    quantized bytes a config gives) unless ``bytes_per_param`` is given. ``reserve``:
    bytes per GPU the engine keeps beside the weights (activations' peak, memory outside
    PyTorch: the module docstring); 0, the default, makes the pool an upper bound."""
    m = costs.get_model(model)
    g: GPUPreset = costs.get_gpu(gpu)
    if g.mem_gib is None:
        raise ValueError(f"GPU preset {g.key!r} has no memory size")
    costs._require_int("context", context, 0)
    costs._require_int("gpus", gpus, 1)
    costs._require_int("block", block, 1)
    if not 0 < share <= 1:
        raise ValueError(f"share must be in (0, 1], got {share}")
    if not (isinstance(reserve, (int, float)) and 0 <= reserve < math.inf):
        raise ValueError(f"reserve must be a finite number of bytes >= 0, got {reserve}")
    p = costs.get_precision(precision)
    cap = m.max_context

    weights = costs.weight_bytes(m, bytes_per_param)
    memory = gpus * g.mem_gib * GiB
    free = memory - weights
    per_sequence = sequence_bytes(m, context, p)
    max_batch = (math.floor(free / per_sequence) if free > 0 and per_sequence
                 else 0)
    max_context, bound = longest(lambda t: sequence_bytes(m, t, p), free, cap)

    grow = growth(m, p)
    frac = kv_fraction(m, gpus)
    usable = gpus * g.usable_gib * GiB
    pool = share * g.usable_gib * GiB - weights / gpus - reserve
    if frac is None:                 # the engine refuses the split: it answers nothing
        block_bytes, pool_blocks, engine_seq, engine_batch = 0.0, 0, 0.0, 0
        engine_context, engine_bound = 0, "split"
    else:
        block_bytes = block * sum(x.per_token for x in grow) * frac
        pool_blocks = math.floor(pool / block_bytes) if pool > 0 and block_bytes else 0
        engine_seq = engine_sequence_bytes(m, context, p, block, grow) * frac
        engine_batch = (math.floor(pool / engine_seq) if pool > 0 and engine_seq else 0)
        engine_context, engine_bound = longest(
            lambda t: engine_sequence_bytes(m, t, p, block, grow) * frac, pool, cap)
    return Plan(
        context=context, gpus=gpus, precision=p.key,
        bytes_per_param=weights / m.n_params,
        max_context_model=cap, memory=memory, weights=weights, free=free,
        per_sequence=per_sequence, max_batch=max_batch, max_context=max_context,
        context_bound=bound, share=share, block_tokens=block, usable=usable, pool=pool,
        reserve=reserve,
        kv_fraction=frac, block_bytes=block_bytes, pool_blocks=pool_blocks,
        pool_tokens=pool_blocks * block, engine_per_sequence=engine_seq,
        engine_batch=engine_batch, engine_context=engine_context, engine_bound=engine_bound)
