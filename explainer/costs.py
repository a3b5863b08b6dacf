"""The cost model: every formula the explainer shows, as small pure functions.

Nothing here formats a number or imports the UI; all results are plain
numbers (bytes, FLOPs, seconds, counts) or frozen dataclasses of them. The
model/GPU/precision data lives in :mod:`explainer.presets`; the functions
accept either a preset object or its key.

The cache is summed layer by layer (:func:`layer_map`: each layer of
``model.layers`` keeps every token, at most its window or chunk, nothing per
token (cross-attention, shared, attention-free) or a fixed state); every
function that sizes it (:func:`kv_cache_bytes`, :func:`memory_bill`,
:func:`max_sequences`, the roofline's cache reads) is that sum.

Units: bytes are counts of bytes (see ``GB``/``GiB`` in presets to convert);
FLOPs are counts of floating-point operations; times are seconds.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Mapping

from .presets import (
    ALL_MODELS,
    DEFAULT_PRECISION,
    GPUS,
    KV_KINDS,
    LayerSpec,
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
WindowLike = int | Sequence[int | None] | None
"""A sliding window: one span for every layer (int), one per layer (a
sequence, ``None`` for a full-attention layer), or ``None`` for none. Pass
``model.cache_window`` for the model's own."""


# --------------------------------------------------------------------------
# Lookup and validation helpers
# --------------------------------------------------------------------------


def get_model(model: ModelLike) -> ModelPreset:
    """Return the preset for ``model`` (a preset or a key of ``ALL_MODELS``)."""
    if isinstance(model, ModelPreset):
        return model
    try:
        return MODELS[model] if model in MODELS else ALL_MODELS[model]
    except (KeyError, TypeError):
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


@dataclass(frozen=True)
class LayerUse:
    """What one layer keeps for one sequence at a given context.

    ``index``: the layer (0-based); ``kind``: its :data:`LAYER_KINDS` kind;
    ``span``: the window W or chunk C it keeps at most (None: no limit);
    ``tokens``: tokens whose K/V (or latent) it holds (0 for layers that cache
    nothing per token); ``nbytes``: its bytes, per-token cache plus any fixed
    state.
    """

    index: int
    kind: str
    span: int | None
    tokens: int
    nbytes: int


_OWN = object()
"""Default ``window`` of :func:`layer_map`: the model's own layout."""


def _token_bytes(m: ModelPreset, spec: LayerSpec, p: Precision,
                 n_kv_heads: int | None, group: int | None) -> int:
    """Bytes one layer caches per token (K and V vectors, or the MLA latent)."""
    if spec.kind == "mla":
        return _vector_bytes(spec.values_per_token, p, group)
    if spec.kind not in KV_KINDS:
        return 0
    heads = m.n_kv_heads if n_kv_heads is None else n_kv_heads
    return 2 * heads * _vector_bytes(m.head_dim, p, group)


def _state_bytes(spec: LayerSpec, p: Precision) -> int:
    """Bytes of a layer's fixed state: 16-bit values (32-bit at fp32).

    Serving engines keep a recurrent state at the model's precision, apart
    from the KV cache's quantization (vLLM's ``mamba_ssm_cache_dtype``
    defaults to the model dtype), so fp8/int8/int4 do not shrink it.
    """
    return spec.fixed_values * max(2, p.bits // 8)


def _override_spans(m: ModelPreset, window: WindowLike) -> tuple[int | None, ...]:
    """``window`` as one span per layer (validated)."""
    return _layer_spans(m, window)


def _spans(m: ModelPreset, n_kv_heads: int | None, window: object) -> tuple[int | None, ...]:
    """One span per layer: the model's own (``_OWN``) or ``window``'s (validated, as are
    the heads)."""
    if n_kv_heads is not None:
        _kv_heads(m, n_kv_heads)
    if window is _OWN:
        return tuple(s.span for s in m.layers)
    return _override_spans(m, window)


def _uses(m: ModelPreset, tokens: int, p: Precision, n_kv_heads: int | None,
          window: object, group: int | None):
    """(kind, span, tokens, nbytes) per layer: the body of :func:`layer_map`."""
    out = []
    for spec, span in zip(m.layers, _spans(m, n_kv_heads, window)):
        per_token = _token_bytes(m, spec, p, n_kv_heads, group)
        kind = spec.kind
        if per_token:
            if kind in KV_KINDS:
                kind = ("full" if span is None
                        else "chunked" if spec.kind == "chunked" else "sliding")
            kept = tokens if span is None else min(tokens, span)
        else:
            span, kept = None, 0
        out.append((kind, span, kept, kept * per_token + _state_bytes(spec, p)))
    return out


def layer_map(
    model: ModelLike,
    context: int,
    precision: PrecisionLike = DEFAULT_PRECISION,
    n_kv_heads: int | None = None,
    window: WindowLike | object = _OWN,
    group: int | None = None,
) -> tuple[LayerUse, ...]:
    """What every layer of ``model`` keeps for one sequence of ``context`` tokens.

    Layer by layer (``model.layers``): a full-attention or MLA layer keeps
    every token, a sliding (W) or chunked (C) layer at most W or C, each token
    at the layer's bytes per token (``2 x kv_heads x head_dim`` values, or
    the MLA latent, in ``precision`` with its scales); a state layer holds its
    fixed state (16-bit, see :func:`_state_bytes`); cross-attention, shared
    and attention-free layers hold nothing that grows with the text. The
    cache of a sequence is the sum of ``nbytes`` (:func:`kv_cache_bytes`).

    ``window`` replaces the spans of the per-token layers: ``None`` lets
    every one keep every token (no window), an int gives every one that span,
    a per-layer sequence one span per layer; left out, the model's own.
    ``n_kv_heads`` replaces the K/V layers' KV heads (step 6).
    """
    _require_int("context", context, 0)
    m = get_model(model)
    p = get_precision(precision)
    return tuple(
        LayerUse(i, kind, span, kept, nbytes)
        for i, (kind, span, kept, nbytes) in enumerate(
            _uses(m, context, p, n_kv_heads, window, group))
    )


_PROFILES: dict[tuple, tuple] = {}
"""(ids of model and precision, heads, window, group) -> (model, precision, profile): the
layers of a model grouped by what they keep (:func:`_profile`). The model and the precision
are held with their entry, so that the ids in its key stay theirs."""
_PROFILES_MAX = 512


def _profile(m: ModelPreset, p: Precision, n_kv_heads: int | None, window: object,
             group: int | None) -> tuple[tuple[int | None, int, int, int], ...]:
    """The layers grouped by (span, bytes per token, fixed bytes), with their count.

    A sequence's bytes are the same sum as :func:`_uses`' for every length,
    but over a handful of groups instead of every layer (Llama: one group of
    32; Gemma 3: two): step 4's batch curve and step 5's planner size the
    cache at thousands of lengths per move. Made once per model, precision,
    heads, window and group (a window given as a list is keyed as a tuple).
    """
    wkey = tuple(window) if isinstance(window, list) else window
    try:
        key = (id(m), id(p), n_kv_heads, wkey, group)
        hash(key)
    except TypeError:                   # a window that cannot be a key: not kept
        key = None
    entry = _PROFILES.get(key) if key is not None else None
    if entry is not None and entry[0] is m and entry[1] is p:
        return entry[2]
    counts: dict[tuple[int | None, int, int], int] = {}
    for spec, span in zip(m.layers, _spans(m, n_kv_heads, window)):
        per_token = _token_bytes(m, spec, p, n_kv_heads, group)
        g = (span if per_token else 0, per_token, _state_bytes(spec, p))
        counts[g] = counts.get(g, 0) + 1
    profile = tuple((*g, n) for g, n in counts.items())
    if key is not None:
        if len(_PROFILES) >= _PROFILES_MAX:
            _PROFILES.clear()
        _PROFILES[key] = (m, p, profile)
    return profile


def _sequence_bytes(m: ModelPreset, tokens: int, p: Precision,
                    n_kv_heads: int | None, window: object,
                    group: int | None = None) -> int:
    """The sum of :func:`layer_map`'s ``nbytes`` (one sequence), from :func:`_profile`."""
    return sum(n * ((tokens if span is None else min(tokens, span)) * per_token + fixed)
               for span, per_token, fixed, n in _profile(m, p, n_kv_heads, window, group))


def kv_bytes_per_token(
    model: ModelLike,
    precision: PrecisionLike = DEFAULT_PRECISION,
    n_kv_heads: int | None = None,
    group: int | None = None,
) -> int:
    """Bytes the cache holds per token, over all layers, if every layer kept it.

    Summed over the layers that cache per token: ``2 (K and V) x kv_heads x
    head_dim x bytes per value`` each (for a uniform model ``2 x layers x
    kv_heads x head_dim x bytes``), plus the per-group scales of int8/int4
    (``group`` values per fp16 scale, default one per head vector, for K and
    V alike); an MLA layer caches ``mla_dims x bytes`` (no factor 2);
    cross-attention, shared, state and attention-free layers add nothing
    (Jamba: 4 of its 32 layers). The model width (``hidden``) is
    deliberately not used: for GQA/MQA it would overstate the cache by
    ``n_heads / n_kv_heads``.

    ``n_kv_heads`` overrides the model's own (step 6's MHA/GQA/MQA choice).
    """
    m = get_model(model)
    p = get_precision(precision)
    if n_kv_heads is not None:
        _kv_heads(m, n_kv_heads)
    return sum(_token_bytes(m, spec, p, n_kv_heads, group) for spec in m.layers)


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


def kv_bytes_per_token_per_layer(
    model: ModelLike,
    precision: PrecisionLike = DEFAULT_PRECISION,
    n_kv_heads: int | None = None,
    group: int | None = None,
) -> int:
    """Bytes one caching layer holds per token (0 if no layer caches per token).

    ``2 x kv_heads x head_dim x bytes per value`` (+ scales), or
    ``mla_dims x bytes`` for MLA: the first layer that caches per token (in
    every model here they all cache the same); for a uniform model
    :func:`kv_bytes_per_token` / layers.
    """
    m = get_model(model)
    p = get_precision(precision)
    if n_kv_heads is not None:
        _kv_heads(m, n_kv_heads)
    for spec in m.layers:
        b = _token_bytes(m, spec, p, n_kv_heads, group)
        if b:
            return b
    return 0


def _layer_spans(model: ModelPreset, window: WindowLike) -> tuple[int | None, ...]:
    """``window`` as one span per layer (validated)."""
    if window is None or isinstance(window, int):
        if window is not None:
            _require_int("window", window, 1)
        return (window,) * model.n_layers
    if not isinstance(window, Sequence) or isinstance(window, (str, bytes)):
        raise ValueError(f"window must be an int, a per-layer sequence or None, "
                         f"got {window!r}")
    spans = tuple(window)
    if len(spans) != model.n_layers:
        raise ValueError(
            f"{len(spans)} layer windows for the {model.n_layers} layers of "
            f"{model.key}"
        )
    for w in spans:
        if w is not None:
            _require_int("layer window", w, 1)
    return spans


def cached_tokens(tokens: int, window: WindowLike = None) -> int:
    """Tokens actually kept: all of them, or the last ``window`` ones.

    With one window per layer (a sequence), the most any layer keeps: the
    full-attention layers' ``tokens`` if there are any.
    """
    _require_int("tokens", tokens, 0)
    if window is None:
        return tokens
    if not isinstance(window, int):
        if not isinstance(window, Sequence) or isinstance(window, (str, bytes)):
            raise ValueError(f"window must be an int, a sequence or None, got {window!r}")
        return max((cached_tokens(tokens, w) for w in window), default=0)
    _require_int("window", window, 1)
    return min(tokens, window)


def kv_cache_bytes_layered(
    model: ModelLike,
    tokens: int,
    batch: int = 1,
    precision: PrecisionLike = DEFAULT_PRECISION,
    n_kv_heads: int | None = None,
    windows: WindowLike = None,
) -> int:
    """Cache bytes when each layer keeps its own number of tokens.

    ``batch x`` the sum of :func:`layer_map`'s bytes: ``min(tokens, span_l)
    x per-layer bytes`` for each layer that caches per token (no limit for a
    full layer), plus fixed states. ``windows=None`` uses the model's own
    layout (Gemma 2/3's local/global pattern, Mistral's window on every
    layer, Llama 4's chunks, or none); pass an int or a per-layer sequence
    to override the spans. Gemma 3 27B at 32,768 tokens: 10 global layers
    keep 32,768 tokens and 52 local ones 1,024.
    """
    _require_int("batch", batch, 1)
    _require_int("tokens", tokens, 0)
    m = get_model(model)
    return batch * _sequence_bytes(m, tokens, get_precision(precision), n_kv_heads,
                                   _OWN if windows is None else windows)


def kv_cache_bytes(
    model: ModelLike,
    tokens: int,
    batch: int = 1,
    precision: PrecisionLike = DEFAULT_PRECISION,
    n_kv_heads: int | None = None,
    window: WindowLike = None,
) -> int:
    """Bytes of the cache for ``batch`` sequences of ``tokens`` tokens each.

    ``batch x`` the sum over :func:`layer_map` (with this ``window``). The
    window is applied only when passed: ``None`` lets every layer that
    caches per token keep every token (pass ``model.window`` to use the
    model's own, e.g. Mistral's 4,096, or ``model.cache_window`` to include
    per-layer patterns and chunks). Layers that cache nothing per token
    (cross-attention, shared, attention-free) count nothing whatever the
    window, and a state layer its fixed state.
    """
    _require_int("batch", batch, 1)
    _require_int("tokens", tokens, 0)
    m = get_model(model)
    return batch * _sequence_bytes(m, tokens, get_precision(precision), n_kv_heads,
                                   window)


def exceeds_max_context(model: ModelLike, tokens: int) -> bool:
    """True when ``tokens`` is past the model's maximum context.

    False when the preset does not know its maximum (``max_context=None``).
    A cache size for such a sequence is hypothetical: the model cannot
    process it (Llama 2 stops at 4,096 tokens, OPT and Falcon 7B at 2,048).
    """
    _require_int("tokens", tokens, 0)
    m = get_model(model)
    return m.max_context is not None and tokens > m.max_context


def weight_bytes(model: ModelLike, bytes_per_param: float | None = None) -> float:
    """Bytes of all the weights.

    ``n_params x bytes_per_param`` when given; otherwise the weights as
    released where the preset knows them (``weight_nbytes``: fp8 or MXFP4
    from a config's ``quantization_config``), else fp16/bf16, 2 bytes per
    parameter.
    """
    m = get_model(model)
    if bytes_per_param is None:
        if m.weight_nbytes is not None:
            return float(m.weight_nbytes)
        bytes_per_param = WEIGHT_BYTES_PER_PARAM
    return m.n_params * bytes_per_param


QUANT_GROUP = 128
"""Weights per scale of a 4-bit format (AWQ's and GPTQ's usual ``group_size``)."""

QUANT_BYTES = {"8-bit": 1.0, "4-bit": 0.5 + (2 + 0.5) / QUANT_GROUP}
"""Bytes per quantized weight. 8-bit (fp8 as an engine quantizes on loading): 1 byte; its
scales (one per tensor or per output channel) are under 0.1 % and left out. 4-bit (AWQ,
GPTQ): half a byte, plus per group of ``QUANT_GROUP`` weights a 16-bit scale and a packed
4-bit zero point: 0.5 + 2.5 / 128 = 0.51953125 bytes (as :mod:`explainer.hfconfig` reads a
config's ``quantization_config``)."""


def quantized_weight_bytes(model: ModelLike, fmt: str) -> float:
    """Bytes of the weights quantized to ``fmt`` (a ``QUANT_BYTES`` key) the way serving
    engines and AWQ/GPTQ checkpoints do it: the linear layers at ``QUANT_BYTES[fmt]`` each,
    the token embedding and the output head (``ModelPreset.embed_params``) kept at 16 bits.
    Norms (under 0.01 % of a model) count with the linear layers. A model that does not
    say its embedding (a link without it) counts every parameter as quantized.

    Llama 3.1 8B: 1,050,673,152 embedding and head parameters of 8.03 B; 8-bit: 6,979,326,848
    + 2 x 1,050,673,152 = 9.08 GB; 4-bit: 6,979,326,848 x 0.51953125 + 2,101,346,304 =
    5.73 GB (not 8.03 and 4.02 GB with every parameter at 1 and 0.5 bytes)."""
    m = get_model(model)
    if fmt not in QUANT_BYTES:
        raise ValueError(f"unknown weight format {fmt!r}: one of {sorted(QUANT_BYTES)}")
    kept = m.embed_params or 0
    return (m.n_params - kept) * QUANT_BYTES[fmt] + kept * WEIGHT_BYTES_PER_PARAM


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

    ``time_s`` is an ideal *lower bound*: 100 % of peak FLOP/s and of peak
    bandwidth, no kernel launch or other overhead. Real kernels reach a
    fraction of both (see :func:`time_at_efficiency_s`), so a figure shown
    from it is "at best", and ``tokens_per_s`` "at most".
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

    One multiply-add per (active) parameter per token (the standard 2N
    rule; N includes the input embedding, a lookup rather than a matmul, so
    this overstates by about 2 % for Llama 2 7B). The attention-score FLOPs
    (q.k and the weighted sum of v, growing with context) are left out, as
    in the seed: about 1 % of Llama 2 7B's prefill at 512 tokens, but about
    16 % at 8,192 (causal). :func:`attention_flops_per_token` gives them,
    and the batch functions below can include them.
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
    decode throughput; the cache reads are *not* shared (each sequence reads
    its own), so the intensity stays below 2N / (context x KV bytes per
    token) however large the batch (:func:`intensity_ceiling`). The step
    time also grows with the context, not only with the batch.

    All weights count as read, also for mixture-of-experts models; at small
    batch these read only the routed experts (:func:`decode_batch_cost`
    models that). Kept as is for the existing figures.
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


def time_at_efficiency_s(
    flops: float,
    bytes_moved: float,
    gpu: GPULike,
    bandwidth_efficiency: float = 1.0,
    compute_efficiency: float = 1.0,
) -> float:
    """Roofline time when only a fraction of the peaks is reached.

    ``max(flops / (peak x compute_efficiency), bytes / (bandwidth x
    bandwidth_efficiency))``. With both at 1.0 it is the ideal lower bound
    of :func:`roofline_point`. Real kernels reach well below peak (a
    fraction of HBM bandwidth and of the tensor FLOP/s, the MBU and MFU),
    so e.g. ``bandwidth_efficiency=0.7`` gives a more typical decode time.
    """
    for name, eff in (("bandwidth_efficiency", bandwidth_efficiency),
                      ("compute_efficiency", compute_efficiency)):
        if not 0 < eff <= 1:
            raise ValueError(f"{name} must be in (0, 1], got {eff}")
    g = get_gpu(gpu)
    return max(flops / (g.flops * compute_efficiency),
               bytes_moved / (g.bandwidth * bandwidth_efficiency))


# --------------------------------------------------------------------------
# Batch on the roofline: decode at batch B
# --------------------------------------------------------------------------


def attention_flops_per_token(
    model: ModelLike, context_tokens: int, window: WindowLike = None
) -> float:
    """FLOPs of one new token's attention over its cached context.

    Per layer ``2 x n_heads x head_dim x kept`` for the q.k scores plus as
    many for the weighted sum of the values: ``4 x n_heads x head_dim x
    kept``, summed over layers, with ``kept = min(context, window_l)``.
    They depend on the *query* heads, not on the KV heads: grouped-query
    attention shrinks the cache read but not this work, so against the fp16
    cache read (4 x kv_heads x head_dim bytes per layer and token) this
    part alone does n_heads / kv_heads FLOP per byte: 1 for MHA, the group
    size for GQA. For MLA models the
    same count with ``head_dim`` (the per-head value width) is used, an
    approximation of the latent-space kernels.
    """
    _require_int("context_tokens", context_tokens, 1)
    m = get_model(model)
    kept = sum(u[2] for u in _uses(m, context_tokens, PRECISIONS["fp16"], None,
                                   window, None))
    return 4.0 * m.n_heads * m.head_dim * kept


def prefill_attention_flops(model: ModelLike, prompt_tokens: int) -> float:
    """FLOPs of the attention scores and weighted sums of a causal prefill.

    Token t (1-based) attends to ``min(t, span_l)`` tokens in layer l (every
    earlier token and itself; at most its window or chunk, counted as
    :func:`layer_map` counts them), at ``4 x n_heads x head_dim`` FLOPs each
    (:func:`attention_flops_per_token`), so per layer ``4 x n_heads x
    head_dim x sum_t min(t, span)``; layers that cache nothing per token add
    nothing. :func:`forward_flops` (2N per token) leaves these out: Llama 2
    7B at P = 8,192 does 4 x 32 x 128 x 32 x 8,192 x 8,193 / 2 = 1.76e13 of
    them beside 2 x 6.738e9 x 8,192 = 1.10e14, 15.9 % more than the weights'
    FLOPs; at P = 512, 1.0 %. For MLA, the same approximation as
    :func:`attention_flops_per_token`.
    """
    _require_int("prompt_tokens", prompt_tokens, 1)
    m = get_model(model)
    P = prompt_tokens
    seen = 0
    for spec in m.layers:
        if not spec.grows:
            continue
        w = P if spec.span is None else min(P, spec.span)
        # sum over t = 1..P of min(t, w): a triangle up to w, then w per token
        seen += w * (w + 1) // 2 + (P - w) * w
    return 4.0 * m.n_heads * m.head_dim * seen


def decode_weight_bytes(
    model: ModelLike, batch: int = 1, bytes_per_param: float | None = None
) -> float:
    """Weight bytes one decode step of ``batch`` sequences reads.

    Dense models read every weight once per step, whatever the batch.
    A mixture-of-experts model with ``n_experts`` (E) and
    ``experts_per_token`` (k) reads its always-active part S and only the
    experts some sequence was routed to. With N total and A active
    parameters, one expert (all layers together) has e = (N - A) / (E - k)
    parameters and S = N - E x e. If every token picks its k experts
    uniformly at random, an expert is missed by all B tokens with
    probability (1 - k/E)^B, so the expected parameters read are

        S + E x e x (1 - (1 - k/E)^B)

    which is A at B = 1 and tends to N as B grows (Mixtral 8x7B: 12.9 B at
    batch 1, 99 % of its 46.7 B at batch 16). A MoE preset without E and k counts
    every weight (an upper bound).
    """
    _require_int("batch", batch, 1)
    m = get_model(model)
    if not m.is_moe or m.n_experts is None or m.n_experts == m.experts_per_token:
        return weight_bytes(m, bytes_per_param)
    if bytes_per_param is None:  # the released weights' average bytes per parameter
        bytes_per_param = weight_bytes(m) / m.n_params
    E, k = m.n_experts, m.experts_per_token
    per_expert = (m.n_params - m.n_active_params) / (E - k)
    always = m.n_params - E * per_expert
    touched = E * per_expert * (1 - (1 - k / E) ** batch)
    return (always + touched) * bytes_per_param


def tokens_per_expert(model: ModelLike, tokens: int) -> float:
    """Tokens each routed expert of a MoE layer sees in a pass over ``tokens`` tokens.

    Each token goes to k of the E experts, so with even routing an expert
    meets ``tokens x k / E`` of them (DeepSeek-V3, 8 of 256, at a 512-token
    prefill: 16). Its weights are read once and used for that many tokens, so
    a prefill's intensity is about ``2 x P x active / weight bytes`` FLOP per
    byte (``P x active / total`` for 16-bit weights), not P: the sparsity,
    not the prompt, keeps it under the ridge (DeepSeek-V3, fp8 weights, at
    P = 512: about 56). ``tokens`` for a dense model.
    """
    _require_int("tokens", tokens, 1)
    m = get_model(model)
    if m.n_experts is None:
        return float(tokens)
    return tokens * m.experts_per_token / m.n_experts


def _decode_flops_per_sequence(
    m: ModelPreset, context: int, window: WindowLike, include_attention: bool
) -> float:
    flops = forward_flops(m, 1)
    if include_attention:
        flops += attention_flops_per_token(m, context, window)
    return flops


@dataclass(frozen=True)
class BatchDecodeCost:
    """One decode step of ``batch`` sequences at ``context`` tokens each.

    ``flops`` = batch x FLOPs per sequence; ``weight_bytes``: weights read
    (once for the whole batch); ``cache_bytes``: cache read, batch x one
    sequence's cache; ``bytes`` = weight_bytes + cache_bytes;
    ``intensity`` = flops / bytes; ``time_s`` = max(flops / peak, bytes /
    bandwidth), an ideal lower bound; ``tokens_per_s`` = batch / time_s (an
    upper bound); ``bound``: ``"memory"`` or ``"compute"``;
    ``attainable_flops``: the roofline's FLOP/s at that intensity.
    """

    batch: int
    context: int
    flops: float
    weight_bytes: float
    cache_bytes: float
    bytes: float
    intensity: float
    time_s: float
    tokens_per_s: float
    bound: str
    attainable_flops: float


def decode_batch_cost(
    model: ModelLike,
    gpu: GPULike,
    context: int,
    batch: int,
    precision: PrecisionLike = DEFAULT_PRECISION,
    n_kv_heads: int | None = None,
    window: WindowLike = None,
    include_attention: bool = False,
) -> BatchDecodeCost:
    """A decode step at batch B on the roofline.

    With N_a the active parameters, C the bytes of one sequence's cache at
    ``context`` tokens (:func:`kv_cache_bytes`, with ``precision``,
    ``n_kv_heads`` and ``window``) and W(B) the weight bytes read
    (:func:`decode_weight_bytes`: all weights for a dense model):

        flops = B x 2 x N_a   (+ B x attention FLOPs if include_attention)
        bytes = W(B) + B x C
        time  = max(flops / peak, bytes / bandwidth)
        tokens/s = B / time

    The weights are read once for all B sequences; each sequence's cache is
    read separately. For a dense model without attention FLOPs the flops and
    bytes equal :func:`decode_step_cost`'s. Llama 2 7B fp16 on an H100 SXM
    at 4,096 tokens: intensity 0.86 at B = 1, 5.7 at B = 64, 6.1 at B = 256,
    never near the ridge (295).
    """
    _require_int("context", context, 1)
    _require_int("batch", batch, 1)
    m = get_model(model)
    g = get_gpu(gpu)
    per_seq_flops = _decode_flops_per_sequence(m, context, window, include_attention)
    cache = batch * kv_cache_bytes(m, context, 1, precision, n_kv_heads, window)
    weights = decode_weight_bytes(m, batch)
    point = roofline_point(batch * per_seq_flops, weights + cache, g, tokens=batch)
    return BatchDecodeCost(
        batch=batch,
        context=context,
        flops=point.flops,
        weight_bytes=weights,
        cache_bytes=cache,
        bytes=point.bytes,
        intensity=point.intensity,
        time_s=point.time_s,
        tokens_per_s=point.tokens_per_s,
        bound=point.bound,
        attainable_flops=point.attainable_flops,
    )


def intensity_ceiling(
    model: ModelLike,
    context: int,
    precision: PrecisionLike = DEFAULT_PRECISION,
    n_kv_heads: int | None = None,
    window: WindowLike = None,
    include_attention: bool = False,
) -> float:
    """The intensity decode approaches as the batch grows without limit.

    From :func:`decode_batch_cost`, with F the FLOPs and C the cache bytes
    of one sequence and W(B) the weight bytes read:

        I(B) = B x F / (W(B) + B x C) = F / (W(B) / B + C)

    W(B) never exceeds the bytes of all weights, so W(B) / B -> 0 and

        I(B) -> F / C = 2 x N_a / (kept tokens x KV bytes per token)

    (+ attention FLOPs / C when included), where kept tokens x KV bytes
    per token is the cache at ``context`` (summed layer by layer with a
    per-layer window). Batching amortises the weights, never the cache.
    Llama 2 7B fp16 at 4,096 tokens: 2 x 6.738e9 / (4,096 x 524,288) = 6.3
    FLOP/byte, against an H100 ridge of 295. Fewer KV heads, fewer bytes
    per value or a window shrink C and raise the ceiling by the same factor
    (:func:`shrink_ceiling`).
    """
    _require_int("context", context, 1)
    m = get_model(model)
    per_seq = _decode_flops_per_sequence(m, context, window, include_attention)
    cache = kv_cache_bytes(m, context, 1, precision, n_kv_heads, window)
    return per_seq / cache if cache else math.inf


@dataclass(frozen=True)
class GainsStop:
    """Where batching stops paying (see :func:`batch_where_gains_stop`).

    ``batch``: the smallest batch reaching the limit; ``reason``:
    ``"ridge"`` (the step became compute-bound: a larger batch adds time in
    proportion) or ``"ceiling"`` (within ``fraction`` of the intensity
    ceiling: a larger batch adds less than 1 - fraction to tokens/s);
    ``intensity`` and ``tokens_per_s`` at that batch; ``ceiling``, ``ridge``;
    ``max_tokens_per_s``: tokens/s as the batch grows without limit,
    min(bandwidth / C, peak / F); ``memory_limit``: how many sequences of
    this context fit next to the weights on the GPU (decimal capacity;
    None for a GPU without a memory size), and ``fits_memory`` whether
    ``batch`` does.
    """

    batch: int
    reason: str
    intensity: float
    tokens_per_s: float
    ceiling: float
    ridge: float
    fraction: float
    max_tokens_per_s: float
    memory_limit: int | None
    fits_memory: bool | None


def batch_where_gains_stop(
    model: ModelLike,
    gpu: GPULike,
    context: int,
    precision: PrecisionLike = DEFAULT_PRECISION,
    fraction: float = 0.9,
    n_kv_heads: int | None = None,
    window: WindowLike = None,
    include_attention: bool = False,
) -> GainsStop:
    """The batch beyond which a larger batch buys little more throughput.

    Definition: the smallest B with I(B) >= ridge or I(B) >= fraction x
    ceiling, I(B) being :func:`decode_batch_cost`'s intensity. Why: while
    the step is memory-bound, tokens/s = B x bandwidth / bytes = I(B) x
    bandwidth / F, so I(B) / ceiling is exactly the share of the best
    memory-bound throughput reached; at 0.9 the remaining gain from any
    batch size is under 11 %. Past the ridge the step is compute-bound and
    tokens/s is flat (peak / F). For a dense model (W constant)

        I(B) >= f x F / C  <=>  B >= f / (1 - f) x W / C

    so Llama 2 7B fp16 at 4,096 tokens stops gaining at B = ceil(9 x
    13.476e9 / 2^31) = 57, while an H100 (80 GB) holds only 30 such
    sequences next to its weights (``memory_limit``).
    """
    if not 0 < fraction < 1:
        raise ValueError(f"fraction must be in (0, 1), got {fraction}")
    m = get_model(model)
    g = get_gpu(gpu)
    ceiling = intensity_ceiling(m, context, precision, n_kv_heads, window,
                                include_attention)

    def cost(b: int) -> BatchDecodeCost:
        return decode_batch_cost(m, g, context, b, precision, n_kv_heads, window,
                                 include_attention)

    def done(b: int) -> bool:
        i = cost(b).intensity
        return i >= g.ridge or i >= fraction * ceiling

    hi = 1
    while not done(hi):  # I(B) rises towards the ceiling: this ends
        hi *= 2
        if hi > 2**62:  # pragma: no cover - only with a degenerate model
            raise ValueError("no batch reaches the ridge or the ceiling")
    lo = hi // 2 + 1 if hi > 1 else 1
    while lo < hi:
        mid = (lo + hi) // 2
        if done(mid):
            hi = mid
        else:
            lo = mid + 1
    at = cost(hi)
    per_seq = _decode_flops_per_sequence(m, context, window, include_attention)
    cache = kv_cache_bytes(m, context, 1, precision, n_kv_heads, window)
    best = min(g.bandwidth / cache if cache else math.inf, g.flops / per_seq)
    limit = None
    if g.mem_bytes is not None:
        limit = max_sequences(m, g, context, precision, None, n_kv_heads, window)
    return GainsStop(
        batch=hi,
        reason="ridge" if at.intensity >= g.ridge else "ceiling",
        intensity=at.intensity,
        tokens_per_s=at.tokens_per_s,
        ceiling=ceiling,
        ridge=g.ridge,
        fraction=fraction,
        max_tokens_per_s=best,
        memory_limit=limit,
        fits_memory=None if limit is None else hi <= limit,
    )


@dataclass(frozen=True)
class CeilingShrink:
    """The intensity ceiling of one step-6 setting next to the baseline's.

    ``factor`` = ceiling / baseline_ceiling (4.0 for GQA with 8 of 32 KV
    heads: the cache read per sequence is 4x smaller).
    """

    ceiling: float
    baseline_ceiling: float
    factor: float


def shrink_ceiling(
    model: ModelLike,
    context: int,
    n_kv_heads: int | None = None,
    precision: PrecisionLike = DEFAULT_PRECISION,
    window: WindowLike = None,
    baseline_kv_heads: int | None = None,
    include_attention: bool = False,
) -> CeilingShrink:
    """How GQA/MQA, a smaller cache precision or a window raise the ceiling.

    Same choices as :func:`shrink` (baseline: MHA, fp16, no window; MLA
    models: their own latent in fp16). Without attention FLOPs the ceiling
    is 2N / C, so ``factor`` equals :func:`shrink`'s size factor (step 6's
    32-layer, 32-head shape at 16,384 tokens: GQA-8 4x, MQA 32x, fp8 2x,
    window 4,096 4x).
    With attention FLOPs A the ceiling is (2N + A) / C. GQA/MQA and
    precision leave A unchanged and divide C, so they still raise it by the
    cache factor; a window divides A as well as C, so it raises it by less
    (the attention part A / C stays the same).
    """
    m = get_model(model)
    if m.is_mla:
        baseline_heads = None
    else:
        baseline_heads = m.n_heads if baseline_kv_heads is None else baseline_kv_heads
    base = intensity_ceiling(m, context, "fp16", baseline_heads, None,
                             include_attention)
    this = intensity_ceiling(m, context, precision, n_kv_heads, window,
                             include_attention)
    return CeilingShrink(ceiling=this, baseline_ceiling=base, factor=this / base)


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
    total_bytes: float,
    gpus: Mapping[str, GPUPreset] = GPUS,
    binary_capacity: bool = False,
) -> str | None:
    """Key of the smallest GPU whose memory holds ``total_bytes``, or None.

    Capacities are the marketed "GB" read as 10^9 bytes (a safe
    under-estimate), or as GiB (the true size) with ``binary_capacity``.
    """
    for g in _usable_gpus(gpus):
        if g.capacity_bytes(binary_capacity) >= total_bytes:
            return g.key
    return None


def max_sequences(
    model: ModelLike,
    gpu: GPULike,
    context: int,
    precision: PrecisionLike = DEFAULT_PRECISION,
    cache_fraction: float | None = None,
    n_kv_heads: int | None = None,
    window: WindowLike = None,
    binary_capacity: bool = False,
    bytes_per_param: float | None = None,
) -> int:
    """How many sequences of ``context`` tokens fit in the GPU's cache space.

    Cache space is the memory left after the weights (:func:`weight_bytes`:
    as released, or ``bytes_per_param`` per parameter), or
    ``cache_fraction x memory`` when given (the PagedAttention paper's
    OPT-13B example gives ~30 % of an A100 40 GB to the cache).
    Memory is the marketed capacity in decimal bytes (an under-estimate),
    or in binary bytes with ``binary_capacity`` (A100 80 GB: 30 sequences
    of Llama 2 7B at 4,096 tokens, 33 with the true 80 GiB).
    Returns 0 when nothing fits.
    """
    g = get_gpu(gpu)
    if g.mem_bytes is None:
        raise ValueError(f"GPU preset {g.key!r} has no memory size")
    mem = g.capacity_bytes(binary_capacity)
    if cache_fraction is None:
        free = mem - weight_bytes(model, bytes_per_param)
    else:
        if not 0 < cache_fraction <= 1:
            raise ValueError(f"cache_fraction must be in (0, 1], got {cache_fraction}")
        free = cache_fraction * mem
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
    window: WindowLike = None,
    binary_capacity: bool = False,
    bytes_per_param: float | None = None,
) -> MemoryBill:
    """Weights + cache for ``batch`` sequences of ``context`` tokens.

    ``window`` may be per layer (``model.cache_window``). GPU capacities
    are decimal unless ``binary_capacity`` (see :func:`max_sequences`).
    The weights are as released unless ``bytes_per_param`` is given
    (:func:`weight_bytes`).
    """
    m = get_model(model)
    per_token = kv_bytes_per_token(m, precision, n_kv_heads)
    kv = kv_cache_bytes(m, context, batch, precision, n_kv_heads, window)
    weights = weight_bytes(m, bytes_per_param)
    total = weights + kv
    bill = dict(
        kv_per_token=per_token,
        kv_bytes=kv,
        weight_bytes=weights,
        total=total,
        fits_gpu=smallest_fitting_gpu(total, gpus, binary_capacity),
    )
    if gpu is not None:
        g = get_gpu(gpu)
        bill["gpu"] = g.key
        if g.mem_bytes is not None:
            mem = g.capacity_bytes(binary_capacity)
            bill.update(
                gpu_mem_bytes=mem,
                free_bytes=mem - weights,
                fits_selected=total <= mem,
                max_sequences=max_sequences(
                    m, g, context, precision, None, n_kv_heads, window,
                    binary_capacity, bytes_per_param,
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
    window: WindowLike = None,
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
