"""The cost model: every formula the explainer shows, as small pure functions.

Nothing here formats a number or imports the UI; all results are plain
numbers (bytes, FLOPs, seconds, counts) or frozen dataclasses of them. The
model/GPU/precision data lives in :mod:`explainer.presets`; the functions
accept either a preset object or its key.

Units: bytes are counts of bytes (see ``GB``/``GiB`` in presets to convert);
FLOPs are counts of floating-point operations; times are seconds.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Mapping

from .presets import (
    DEFAULT_PRECISION,
    GPUS,
    MODELS,
    PRECISIONS,
    WEIGHT_BYTES_PER_PARAM,
    GPUPreset,
    ModelPreset,
    Precision,
)

ModelLike = ModelPreset | str
GPULike = GPUPreset | str
PrecisionLike = Precision | str


# --------------------------------------------------------------------------
# Lookup and validation helpers
# --------------------------------------------------------------------------


def get_model(model: ModelLike) -> ModelPreset:
    """Return the preset for ``model`` (a preset or a key of ``MODELS``)."""
    if isinstance(model, ModelPreset):
        return model
    try:
        return MODELS[model]
    except KeyError:
        raise ValueError(f"unknown model preset {model!r}") from None


def get_gpu(gpu: GPULike) -> GPUPreset:
    """Return the preset for ``gpu`` (a preset or a key of ``GPUS``)."""
    if isinstance(gpu, GPUPreset):
        return gpu
    try:
        return GPUS[gpu]
    except KeyError:
        raise ValueError(f"unknown GPU preset {gpu!r}") from None


def get_precision(precision: PrecisionLike) -> Precision:
    """Return the precision for ``precision`` (an object or a key)."""
    if isinstance(precision, Precision):
        return precision
    try:
        return PRECISIONS[precision]
    except KeyError:
        raise ValueError(f"unknown precision {precision!r}") from None


def _require_int(name: str, value: object, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{name} must be an integer, got {value!r}")
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value}")
    return value


def _kv_heads(model: ModelPreset, n_kv_heads: int | None) -> int:
    if n_kv_heads is None:
        return model.n_kv_heads
    _require_int("n_kv_heads", n_kv_heads, 1)
    if model.is_mla:
        raise ValueError(
            f"{model.key} uses MLA (a shared latent); n_kv_heads does not apply"
        )
    if n_kv_heads > model.n_heads or model.n_heads % n_kv_heads:
        raise ValueError(
            f"n_kv_heads ({n_kv_heads}) must divide the {model.n_heads} "
            f"query heads of {model.key}"
        )
    return n_kv_heads


# --------------------------------------------------------------------------
# Steps 1 and 2: counting work
# --------------------------------------------------------------------------


def kv_projections_without_cache(P: int, T: int) -> int:
    """K/V rows computed per layer when each of T steps recomputes everything.

    Step t (1..T) runs the whole sequence of ``P + t - 1`` tokens through the
    K and V projections, so the total is ``T*P + T*(T-1)/2``.
    """
    _require_int("P (prompt tokens)", P, 1)
    _require_int("T (generated tokens)", T, 1)
    return T * P + T * (T - 1) // 2


def kv_projections_with_cache(P: int, T: int) -> int:
    """K/V rows computed per layer with a cache: each token exactly once.

    The prefill computes the P prompt rows; each of the following ``T - 1``
    steps computes only the row of the token it feeds in: ``P + T - 1``.
    (The T-th generated token is never fed back, so it has no row yet.)
    """
    _require_int("P (prompt tokens)", P, 1)
    _require_int("T (generated tokens)", T, 1)
    return P + T - 1


def projection_savings(P: int, T: int) -> float:
    """How many times fewer K/V projections the cache needs (e.g. 10.0)."""
    return kv_projections_without_cache(P, T) / kv_projections_with_cache(P, T)


@dataclass(frozen=True)
class StepWork:
    """K/V rows of one generation step (one row of step 2's grids).

    ``step`` is 1-based; ``context`` is the number of tokens whose K/V the
    step's attention needs. Without a cache all of them are computed
    (``new + recomputed``); with a cache ``new`` are computed and ``cached``
    are read from the cache.
    """

    step: int
    context: int
    new: int
    recomputed: int
    cached: int


def wasted_work_steps(P: int, T: int) -> tuple[StepWork, ...]:
    """Per-step breakdown whose sums are the two totals above.

    Step 1 is the prefill (P new rows); step t >= 2 feeds one new token and
    needs the ``P + t - 2`` earlier rows, recomputed without a cache or
    read from it with one.
    """
    _require_int("P (prompt tokens)", P, 1)
    _require_int("T (generated tokens)", T, 1)
    rows = [StepWork(1, P, P, 0, 0)]
    for t in range(2, T + 1):
        earlier = P + t - 2
        rows.append(StepWork(t, earlier + 1, 1, earlier, earlier))
    return tuple(rows)


def qk_scores_so_far(prompt_tokens: int, generated: int = 0) -> int:
    """Running total of q.k scores of the highlighted queries (step 1).

    The last prompt token's query reads ``prompt_tokens`` keys; each of the
    ``generated`` tokens fed back after it reads one key more than the one
    before: 5, then 11, 18, ... for a 5-token prompt.
    """
    _require_int("prompt_tokens", prompt_tokens, 1)
    _require_int("generated", generated, 0)
    n = generated
    return (n + 1) * prompt_tokens + n * (n + 1) // 2


def decode_steps(output_tokens: int) -> int:
    """Decode steps needed for ``output_tokens``: the prefill yields the first."""
    _require_int("output_tokens", output_tokens, 1)
    return output_tokens - 1


# --------------------------------------------------------------------------
# Step 3 and 5: bytes of the cache
# --------------------------------------------------------------------------


def _vector_bytes(n_values: int, precision: Precision, group: int | None) -> int:
    """Bytes of one stored vector of ``n_values`` values, scales included.

    Sub-byte values are packed (two int4 per byte), rounded up to whole bytes.
    Quantized precisions add one scale of ``scale_bytes`` per group of
    ``group`` values (default: one per vector).
    """
    value_bytes = math.ceil(n_values * precision.bits / 8)
    if not precision.quantized:
        return value_bytes
    group = group if group is not None else precision.group
    group = n_values if group is None else _require_int("group", group, 1)
    return value_bytes + math.ceil(n_values / group) * precision.scale_bytes


def kv_bytes_per_token(
    model: ModelLike,
    precision: PrecisionLike = DEFAULT_PRECISION,
    n_kv_heads: int | None = None,
    group: int | None = None,
) -> int:
    """Bytes the cache holds per token, over all layers.

    ``2 (K and V) x layers x kv_heads x head_dim x bytes per value``, plus the
    per-group scales of int8/int4 (``group`` values per fp16 scale, default
    one per head vector, for K and V alike). For MLA models it is
    ``layers x mla_dims x bytes`` (no factor 2). The model width
    (``hidden``) is deliberately not used: for GQA/MQA it would overstate
    the cache by ``n_heads / n_kv_heads``.

    ``n_kv_heads`` overrides the model's own (step 6's MHA/GQA/MQA choice).
    """
    m = get_model(model)
    p = get_precision(precision)
    if m.is_mla:
        _kv_heads(m, n_kv_heads)  # rejects an override
        return m.n_layers * _vector_bytes(m.mla_dims, p, group)
    heads = _kv_heads(m, n_kv_heads)
    return 2 * m.n_layers * heads * _vector_bytes(m.head_dim, p, group)


def scale_bytes_per_token(
    model: ModelLike,
    precision: PrecisionLike = DEFAULT_PRECISION,
    n_kv_heads: int | None = None,
    group: int | None = None,
) -> int:
    """The part of :func:`kv_bytes_per_token` spent on quantization scales."""
    p = get_precision(precision)
    unscaled = Precision(p.key, p.bits)
    return kv_bytes_per_token(model, p, n_kv_heads, group) - kv_bytes_per_token(
        model, unscaled, n_kv_heads
    )


def cached_tokens(tokens: int, window: int | None = None) -> int:
    """Tokens actually kept: all of them, or the last ``window`` ones."""
    _require_int("tokens", tokens, 0)
    if window is None:
        return tokens
    _require_int("window", window, 1)
    return min(tokens, window)


def kv_cache_bytes(
    model: ModelLike,
    tokens: int,
    batch: int = 1,
    precision: PrecisionLike = DEFAULT_PRECISION,
    n_kv_heads: int | None = None,
    window: int | None = None,
) -> int:
    """Bytes of the cache for ``batch`` sequences of ``tokens`` tokens each.

    With a sliding ``window`` only the last ``window`` tokens are kept.
    The window is applied only when passed (pass ``model.window`` to use the
    model's own, e.g. Mistral's 4,096).
    """
    _require_int("batch", batch, 1)
    per_token = kv_bytes_per_token(model, precision, n_kv_heads)
    return batch * cached_tokens(tokens, window) * per_token


def weight_bytes(
    model: ModelLike, bytes_per_param: float = WEIGHT_BYTES_PER_PARAM
) -> float:
    """Bytes of all the weights (fp16/bf16 by default: 2 bytes/parameter)."""
    return get_model(model).n_params * bytes_per_param


# --------------------------------------------------------------------------
# Step 4: roofline of prefill and decode
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class RooflinePoint:
    """One point on a roofline plot, with its time on the given GPU.

    ``flops``: floating-point operations; ``bytes``: bytes moved to or from
    memory; ``intensity`` = flops / bytes (FLOP/byte); ``attainable_flops``:
    FLOP/s the roofline allows at that intensity; ``time_s`` =
    max(flops / peak, bytes / bandwidth); ``bound``: ``"compute"`` or
    ``"memory"``; ``tokens``: tokens produced or processed (for tokens/s).
    """

    flops: float
    bytes: float
    intensity: float
    attainable_flops: float
    time_s: float
    bound: str
    tokens: int = 1

    @property
    def tokens_per_s(self) -> float:
        return self.tokens / self.time_s


def roofline_point(
    flops: float, bytes_moved: float, gpu: GPULike, tokens: int = 1
) -> RooflinePoint:
    """Place a workload of ``flops`` and ``bytes_moved`` on ``gpu``'s roofline."""
    g = get_gpu(gpu)
    intensity = flops / bytes_moved
    compute_time = flops / g.flops
    memory_time = bytes_moved / g.bandwidth
    return RooflinePoint(
        flops=flops,
        bytes=bytes_moved,
        intensity=intensity,
        attainable_flops=min(g.flops, intensity * g.bandwidth),
        time_s=max(compute_time, memory_time),
        bound="compute" if compute_time >= memory_time else "memory",
        tokens=tokens,
    )


def forward_flops(model: ModelLike, tokens: int) -> float:
    """FLOPs of a forward pass over ``tokens`` tokens: ``2 x params x tokens``.

    One multiply-add per (active) parameter per token. The attention-score
    FLOPs (q.k and the weighted sum of v, growing with context) are left out,
    as in the seed; they are small next to the matmuls at these lengths.
    """
    return 2 * get_model(model).params_per_token * tokens


def prefill_cost(
    model: ModelLike,
    prompt_tokens: int,
    gpu: GPULike,
    batch: int = 1,
    precision: PrecisionLike = DEFAULT_PRECISION,
) -> RooflinePoint:
    """The prefill: all prompt tokens in one pass.

    Bytes moved = fp16 weights read once + the KV of the prompt written
    (per sequence). Its time is the time to first token.
    """
    _require_int("prompt_tokens", prompt_tokens, 1)
    _require_int("batch", batch, 1)
    flops = batch * forward_flops(model, prompt_tokens)
    moved = weight_bytes(model) + kv_cache_bytes(
        model, prompt_tokens, batch, precision
    )
    return roofline_point(flops, moved, gpu, tokens=batch * prompt_tokens)


def decode_step_cost(
    model: ModelLike,
    context_tokens: int,
    gpu: GPULike,
    batch: int = 1,
    precision: PrecisionLike = DEFAULT_PRECISION,
) -> RooflinePoint:
    """One decode step: one new token for each of ``batch`` sequences.

    ``context_tokens`` counts every token the new token attends to,
    itself included. Bytes moved = the weights, read once for the whole
    batch, + the KV of ``context_tokens`` for each sequence. Batching
    multiplies the FLOPs but not the weight reads, which is why it raises
    decode throughput.
    """
    _require_int("context_tokens", context_tokens, 1)
    _require_int("batch", batch, 1)
    flops = batch * forward_flops(model, 1)
    moved = weight_bytes(model) + kv_cache_bytes(
        model, context_tokens, batch, precision
    )
    return roofline_point(flops, moved, gpu, tokens=batch)


def decode_read_bytes_max(
    model: ModelLike,
    prompt_tokens: int,
    output_tokens: int,
    precision: PrecisionLike = DEFAULT_PRECISION,
) -> float:
    """Bytes read by the last (largest) decode step of one sequence.

    Weights + the KV of ``prompt + output - 1`` tokens: the last step feeds
    output token ``output - 1`` and attends to everything before it.
    """
    _require_int("prompt_tokens", prompt_tokens, 1)
    _require_int("output_tokens", output_tokens, 1)
    return weight_bytes(model) + kv_cache_bytes(
        model, prompt_tokens + output_tokens - 1, 1, precision
    )


def last_decode_context(prompt_tokens: int, output_tokens: int) -> int:
    """Context (new token included) of the last decode step: P + output - 1."""
    _require_int("prompt_tokens", prompt_tokens, 1)
    _require_int("output_tokens", output_tokens, 1)
    return prompt_tokens + output_tokens - 1


def decode_total_time_s(
    model: ModelLike,
    prompt_tokens: int,
    output_tokens: int,
    gpu: GPULike,
    batch: int = 1,
    precision: PrecisionLike = DEFAULT_PRECISION,
) -> float:
    """Sum of the times of all decode steps (contexts P+1 .. P+output-1)."""
    return sum(
        decode_step_cost(model, ctx, gpu, batch, precision).time_s
        for ctx in range(
            prompt_tokens + 1, last_decode_context(prompt_tokens, output_tokens) + 1
        )
    )


# --------------------------------------------------------------------------
# Step 5: the memory bill
# --------------------------------------------------------------------------


def _usable_gpus(gpus: Mapping[str, GPUPreset]) -> list[GPUPreset]:
    """GPUs with a memory size, smallest first (stable: table order on ties)."""
    return sorted(
        (g for g in gpus.values() if g.mem_bytes is not None),
        key=lambda g: g.mem_bytes,
    )


def smallest_fitting_gpu(
    total_bytes: float, gpus: Mapping[str, GPUPreset] = GPUS
) -> str | None:
    """Key of the smallest GPU whose memory holds ``total_bytes``, or None."""
    for g in _usable_gpus(gpus):
        if g.mem_bytes >= total_bytes:
            return g.key
    return None


def max_sequences(
    model: ModelLike,
    gpu: GPULike,
    context: int,
    precision: PrecisionLike = DEFAULT_PRECISION,
    cache_fraction: float | None = None,
    n_kv_heads: int | None = None,
    window: int | None = None,
) -> int:
    """How many sequences of ``context`` tokens fit in the GPU's cache space.

    Cache space is the memory left after the fp16 weights, or
    ``cache_fraction x memory`` when given (the PagedAttention paper's
    OPT-13B example gives ~30 % of an A100 40 GB to the cache).
    Returns 0 when nothing fits.
    """
    g = get_gpu(gpu)
    if g.mem_bytes is None:
        raise ValueError(f"GPU preset {g.key!r} has no memory size")
    if cache_fraction is None:
        free = g.mem_bytes - weight_bytes(model)
    else:
        if not 0 < cache_fraction <= 1:
            raise ValueError(f"cache_fraction must be in (0, 1], got {cache_fraction}")
        free = cache_fraction * g.mem_bytes
    per_sequence = kv_cache_bytes(model, context, 1, precision, n_kv_heads, window)
    if free <= 0 or per_sequence == 0:
        return 0
    return math.floor(free / per_sequence)


@dataclass(frozen=True)
class MemoryBill:
    """Memory needed to serve ``batch`` sequences of ``context`` tokens.

    ``fits_gpu``: key of the smallest GPU preset holding ``total``, or None.
    When a ``gpu`` was given: ``gpu_mem_bytes``, ``free_bytes`` (memory
    minus weights, may be negative), ``fits_selected`` and
    ``max_sequences`` (at this context on that GPU); otherwise None.
    """

    kv_per_token: int
    kv_bytes: int
    weight_bytes: float
    total: float
    fits_gpu: str | None
    gpu: str | None = None
    gpu_mem_bytes: float | None = None
    free_bytes: float | None = None
    fits_selected: bool | None = None
    max_sequences: int | None = None

    @property
    def weight_fraction(self) -> float | None:
        """Share of the selected GPU's memory taken by the weights."""
        return self.weight_bytes / self.gpu_mem_bytes if self.gpu_mem_bytes else None

    @property
    def kv_fraction(self) -> float | None:
        """Share of the selected GPU's memory taken by the cache."""
        return self.kv_bytes / self.gpu_mem_bytes if self.gpu_mem_bytes else None


def memory_bill(
    model: ModelLike,
    context: int,
    batch: int = 1,
    gpu: GPULike | None = None,
    precision: PrecisionLike = DEFAULT_PRECISION,
    gpus: Mapping[str, GPUPreset] = GPUS,
    n_kv_heads: int | None = None,
    window: int | None = None,
) -> MemoryBill:
    """Weights + cache for ``batch`` sequences of ``context`` tokens."""
    m = get_model(model)
    per_token = kv_bytes_per_token(m, precision, n_kv_heads)
    kv = kv_cache_bytes(m, context, batch, precision, n_kv_heads, window)
    weights = weight_bytes(m)
    total = weights + kv
    bill = dict(
        kv_per_token=per_token,
        kv_bytes=kv,
        weight_bytes=weights,
        total=total,
        fits_gpu=smallest_fitting_gpu(total, gpus),
    )
    if gpu is not None:
        g = get_gpu(gpu)
        bill["gpu"] = g.key
        if g.mem_bytes is not None:
            bill.update(
                gpu_mem_bytes=g.mem_bytes,
                free_bytes=g.mem_bytes - weights,
                fits_selected=total <= g.mem_bytes,
                max_sequences=max_sequences(
                    m, g, context, precision, None, n_kv_heads, window
                ),
            )
    return MemoryBill(**bill)


# --------------------------------------------------------------------------
# Step 6: shrinking the cache
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class ShrinkResult:
    """Cache bytes of one step-6 setting next to the baseline.

    ``factor`` = baseline_bytes / bytes (1.0 for the baseline, 4.0 for GQA
    with 8 of 32 KV heads, ...). ``tokens_kept``: tokens per sequence left
    in the cache after the window.
    """

    bytes: int
    baseline_bytes: int
    factor: float
    kv_per_token: int
    tokens_kept: int


def shrink(
    model: ModelLike,
    batch: int,
    context: int,
    n_kv_heads: int | None = None,
    precision: PrecisionLike = DEFAULT_PRECISION,
    window: int | None = None,
    baseline_kv_heads: int | None = None,
) -> ShrinkResult:
    """Cache size for a choice of KV heads, precision and window.

    The baseline is full multi-head attention (``baseline_kv_heads``
    defaults to ``model.n_heads``; for Llama 2 7B that is its own 32), fp16,
    no window. ``n_kv_heads=None`` keeps the model's own KV heads. For MLA
    models the baseline is their own latent in fp16.
    """
    m = get_model(model)
    if m.is_mla:
        baseline_heads = None
    else:
        baseline_heads = m.n_heads if baseline_kv_heads is None else baseline_kv_heads
    baseline = kv_cache_bytes(m, context, batch, "fp16", baseline_heads)
    this = kv_cache_bytes(m, context, batch, precision, n_kv_heads, window)
    return ShrinkResult(
        bytes=this,
        baseline_bytes=baseline,
        factor=baseline / this if this else math.inf,
        kv_per_token=kv_bytes_per_token(m, precision, n_kv_heads),
        tokens_kept=cached_tokens(context, window),
    )
