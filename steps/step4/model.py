"""Step 4's view-model: prefill and decode of a model preset on a GPU's roofline, decode at a
batch of B sequences, and what the live model measures on this server; numbers only.

Three outputs, each recomputed only when what it depends on changes:

- `roofline` (prompt, output, gpu, model, batch): the prefill point and the last decode step's
  point for `batch` sequences, from `explainer.costs`, shared by every session (`roofline_of`
  is cached);
- `batching` (prompt, output, gpu, model): decode at the last step's context for every batch
  size of the curve (intensity, time per step, tokens/s), the intensity ceiling no batch
  passes, where more batch stops paying, how many sequences fit in the GPU's memory, and how
  a smaller cache per sequence (fewer KV heads, a smaller precision, a window) raises the
  ceiling; it does not depend on the batch slider;
- `plan` (prompt, output): the point of a small grid the live model is measured at (it
  holds at most 1,024 positions). The measurement itself is slow: a served process measures
  the whole grid at start (`live_jobs`, run by `--setup warmup.py`), and otherwise the view
  asks for it through `steps.live.LiveValue` (`job(plan)`), so no slider move waits for it.

A model's own sliding window (Mistral, Gemma) is applied to every decode step's cache read;
mixture-of-experts models read only the experts their batch uses (`costs.decode_batch_cost`).
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from functools import lru_cache

import param

from explainer import costs
from explainer import runtime as rt
from explainer.memo import memo
from explainer.presets import ALL_MODELS, GPUS, STEP4, GPUPreset, ModelPreset

MODEL = STEP4["model"]           # Llama 2 7B, the reference model (the default)
PRECISION = "fp16"               # the cache; weights 16-bit unless released so (fp8)
VARIANT = "mha"                  # the live model measured here
# the live model is measured at these prompt and output lengths (a slider value is rounded
# down to one of them): 7 prompts, each one run whose decode steps give every output length
PROMPT_GRID = (16, 32, 64, 128, 256, 512, 768)
OUTPUT_GRID = (2, 4, 8, 16, 32, 64, 128, 256)
LIVE_PROMPT_MAX = PROMPT_GRID[-1]   # at most this many prompt tokens are measured
BATCH_RANGE = (1, 256)           # the batch slider
X_RANGE = (0.07, 20000)          # FLOP per byte shown on the roofline
# the batch sizes of the batch curve: about eight per doubling, 1 .. 256
CURVE_BATCHES = tuple(sorted({round(2 ** (k / 8)) for k in range(0, 65)}))
# the cache shrinks of step 6, applied here to the chosen model's ceiling
SHRINK_KV_HEADS = (8, 1)
SHRINK_PRECISIONS = ("fp8", "int4")
SHRINK_WINDOWS = (4096, 1024)


def model_of(key: str) -> ModelPreset:
    return costs.get_model(key)


def layer_counts(m: ModelPreset) -> tuple:
    """(((bytes per token, span, fixed bytes), layers), ...): the layers of `costs.layer_map`
    grouped by what they keep, so that a sum over the groups is the layer map's sum (the
    cache `costs.kv_cache_bytes` bills). A layer that keeps nothing per token (shared K/V,
    cross-attention, a state layer) has 0 bytes per token, so it is not counted as a full
    layer; a state layer keeps its fixed state whatever the context."""
    return _groups(m)


@lru_cache(maxsize=256)
def _groups(m: ModelPreset) -> tuple:
    """`layer_counts`, worked out once per model: every decode step of `decode_total_s`
    asks for it."""
    uses = costs.layer_map(m, 1, PRECISION)          # one token: per-token bytes + fixed state
    fixed = costs.layer_map(m, 0, PRECISION)         # no token: the fixed state alone
    counts = Counter((u.nbytes - f.nbytes, u.span, f.nbytes) for u, f in zip(uses, fixed))
    return tuple(sorted(counts.items(), key=lambda kv: (kv[0][1] is not None, kv[0][1] or 0,
                                                        kv[0][0], kv[0][2])))


def _kept(counts: tuple, context: int) -> int:
    """Bytes one sequence's cache holds at `context` tokens: each group's kept tokens at its
    bytes per token, plus its fixed state."""
    return sum(n * (per_token * costs.cached_tokens(context, span) + fixed)
               for (per_token, span, fixed), n in counts)


def cache_per_sequence(m: ModelPreset, context: int) -> int:
    """Bytes of one sequence's cache at `context` tokens with the model's own windows (the
    same number as `costs.kv_cache_bytes(m, context, window=m.cache_window)`, summed by
    group of like layers instead of layer by layer)."""
    return _kept(layer_counts(m), context)


@dataclass(frozen=True)
class Roofline:
    """Prefill and the last decode step of one model on one GPU, the decode for `batch`
    sequences at once."""
    prompt: int
    output: int
    gpu: GPUPreset
    model: ModelPreset
    batch: int
    steps: int                   # decode steps: the prefill already yields the first token
    last_ctx: int                # context of the last (largest) decode step
    prefill: costs.RooflinePoint
    decode: costs.RooflinePoint  # the last decode step of `batch` sequences (at P + 1 if none)
    single: costs.RooflinePoint  # the same step for one sequence
    read_max: float              # bytes read by that step (weights + every sequence's cache)
    decode_total_s: float        # all decode steps together
    weights: float               # weight bytes of the model (16-bit, or as released: fp8)
    kv_per_token: int
    beyond_max_context: bool     # prompt + output is longer than the model can process
    roof: tuple                  # ((FLOP/byte, FLOP/s), ...): the roofline's corners
    y_range: tuple               # (lo, hi) FLOP/s shown

    @property
    def batch_gain(self) -> float:
        """Tokens per second of the batch ÷ those of one sequence."""
        return self.decode.tokens_per_s / self.single.tokens_per_s


@dataclass(frozen=True)
class Shrink:
    """One way to make each sequence's cache smaller, and the ceiling it gives."""
    kind: str                    # "heads", "precision" or "window"
    value: object                # KV heads, a precision key or a window in tokens
    ceiling: float
    factor: float                # ceiling ÷ the model's own ceiling

    @property
    def query(self) -> dict:
        """Step 6's link parameters for the same choice."""
        return {"heads": self.value} if self.kind == "heads" else {self.kind: self.value}


@dataclass(frozen=True)
class Batching:
    """Decode at the last step's context for every batch size of the curve, and the limits
    batching runs into; independent of the batch slider."""
    model: ModelPreset
    gpu: GPUPreset
    context: int
    flops_per_seq: float         # FLOPs of one sequence's decode step: 2 × active params
    cache_per_seq: int           # bytes of one sequence's cache at `context`
    weights_b1: float            # weight bytes one decode step of one sequence reads
    ceiling: float               # FLOP/byte as the batch grows without limit (weight FLOPs)
    ceiling_attention: float     # the same ceiling with attention's own FLOPs counted too
    stop: costs.GainsStop        # where a larger batch stops paying
    memory_limit: int | None     # sequences of `context` tokens that fit (GiB capacity)
    curve: tuple                 # (costs.BatchDecodeCost, ...) for CURVE_BATCHES
    shrinks: tuple               # (Shrink, ...)

    @property
    def batches(self) -> tuple:
        return tuple(c.batch for c in self.curve)


@dataclass(frozen=True)
class Plan:
    """What the live model is measured with, for the sliders' (prompt, output)."""
    prompt: int
    output: int
    clamped: bool                # the sliders ask for more than the live model holds
    max_len: int

    @property
    def key(self) -> tuple:
        return ("step4", (self.prompt, self.output))


@lru_cache(maxsize=None)
def live_facts() -> dict:
    """The live model's size and where it runs (for the words around the measurement)."""
    f = rt.model_facts(VARIANT)
    weights = sum(p.numel() * p.element_size() for p in rt.model(VARIANT).parameters())
    return dict(n_layers=f["n_layers"], n_heads=f["n_heads"], head_dim=f["head_dim"],
                max_len=int(f["max_len"]), device=f["device"], n_params=f["n_params"],
                weights=weights)


def _down_to(grid: tuple, n: int) -> int:
    """The largest grid value ≤ n (the smallest if n is below them all)."""
    return max((g for g in grid if g <= n), default=grid[0])


def measure_plan(prompt: int, output: int, max_len: int | None = None) -> tuple[int, int]:
    """(prompt tokens, output tokens) measured on the live model for the slider values.

    Each is rounded down to PROMPT_GRID / OUTPUT_GRID, the output also to what the live
    context leaves after the prompt (p + o − 1 ≤ max_len), so that every slider value shares
    one of a few measurements; at least 2 outputs, so one decode step runs."""
    max_len = max_len or live_facts()["max_len"]
    p = _down_to(PROMPT_GRID, min(prompt, max_len - 2))
    o = _down_to(OUTPUT_GRID, min(output, max_len + 1 - p))
    return p, o


def plan_of(prompt: int, output: int) -> Plan:
    max_len = live_facts()["max_len"]
    p, o = measure_plan(prompt, output, max_len)
    clamped = prompt > LIVE_PROMPT_MAX or output > max_len + 1 - min(prompt, LIVE_PROMPT_MAX)
    return Plan(prompt=p, output=o, clamped=clamped, max_len=max_len)


@lru_cache(maxsize=len(PROMPT_GRID))
def speeds(prompt: int) -> dict:
    """{output: rt.Throughput} of the live model after `prompt` tokens, for every output of
    the grid the context allows (slow: measured once per process, on the job thread)."""
    max_len = live_facts()["max_len"]
    outputs = tuple(o for o in OUTPUT_GRID if prompt + o - 1 <= max_len)
    return rt.throughputs(VARIANT, prompt, outputs)


def measure(plan: Plan) -> rt.Throughput:
    """Prefill and decode speed of the live model on this server (slow: run it as a job)."""
    return speeds(plan.prompt)[plan.output]


def job(plan: Plan) -> tuple:
    """(key, fn) for `LiveValue.request`: one measurement per grid point, shared by every
    session."""
    return plan.key, lambda: measure(plan)


def live_jobs() -> list:
    """(key, fn) of every measurement a slider can reach: the whole grid."""
    max_len = live_facts()["max_len"]
    return [job(Plan(p, o, False, max_len)) for p in PROMPT_GRID for o in OUTPUT_GRID
            if p + o - 1 <= max_len]


def warm_jobs() -> list:
    """What the warm-up measures for this step before serving (`steps.registry.live_jobs`):
    the whole grid (`live_jobs`)."""
    return live_jobs()


def speed_job(key) -> bool:
    """Whether a live job's result is this server's speed (`steps.warmcache` never keeps one:
    it is measured again at every start): every job of this step is."""
    return isinstance(key, tuple) and key[:1] == ("step4",)


def _point(c: costs.BatchDecodeCost, g: GPUPreset) -> costs.RooflinePoint:
    return costs.roofline_point(c.flops, c.bytes, g, tokens=c.batch)


def decode_cost(m: ModelPreset, g: GPUPreset, context: int, batch: int
                ) -> costs.BatchDecodeCost:
    """One decode step of `batch` sequences at `context` tokens (the model's own windows)."""
    return costs.decode_batch_cost(m, g, context, batch, PRECISION, window=m.cache_window)


def decode_total_s(m: ModelPreset, g: GPUPreset, prompt: int, output: int, batch: int
                   ) -> float:
    """Sum of the times of all decode steps (contexts P + 1 .. P + output − 1) for `batch`
    sequences: each is max(FLOPs ÷ peak, (weights read + batch × cache) ÷ bandwidth), as
    `costs.decode_batch_cost` says; summed with the cache worked out per group of like
    layers (`layer_counts`), not per layer, so that 2,047 steps cost no more than a few
    thousand multiplications."""
    steps = costs.decode_steps(output)
    if not steps:
        return 0.0
    flops_t = batch * costs.forward_flops(m, 1) / g.flops
    weights = costs.decode_weight_bytes(m, batch)
    counts = layer_counts(m)
    total = 0.0
    for ctx in range(prompt + 1, costs.last_decode_context(prompt, output) + 1):
        total += max(flops_t, (weights + batch * _kept(counts, ctx)) / g.bandwidth)
    return total


@memo(maxsize=4096)
def roofline_of(prompt: int, output: int, gpu: str, model: str = MODEL,
                batch: int = 1) -> Roofline:
    g, m = GPUS[gpu], model_of(model)
    steps = costs.decode_steps(output)
    last_ctx = max(costs.last_decode_context(prompt, output), prompt + 1)
    peak, bw = g.flops, g.bandwidth
    x0, x1 = X_RANGE
    dec = decode_cost(m, g, last_ctx, batch)
    single = dec if batch == 1 else decode_cost(m, g, last_ctx, 1)
    return Roofline(
        prompt=prompt, output=output, gpu=g, model=m, batch=batch, steps=steps,
        last_ctx=last_ctx, prefill=costs.prefill_cost(m, prompt, g),
        decode=_point(dec, g), single=_point(single, g), read_max=dec.bytes,
        decode_total_s=decode_total_s(m, g, prompt, output, batch),
        weights=costs.weight_bytes(m), kv_per_token=costs.kv_bytes_per_token(m, PRECISION),
        beyond_max_context=costs.exceeds_max_context(m, prompt + output - 1),
        roof=((x0, bw * x0), (g.ridge, peak), (x1, peak)),
        y_range=(bw * x0 / 1.5, peak * 4))


def shrinks_of(m: ModelPreset, context: int, own: float) -> tuple:
    """Step 6's choices applied to this model at this context, each with the ceiling it
    gives (`costs.shrink_ceiling`); only those that make the cache smaller."""
    out = []
    if not m.is_mla:
        for h in SHRINK_KV_HEADS:
            if h < m.n_kv_heads and m.n_heads % h == 0:
                c = costs.shrink_ceiling(m, context, n_kv_heads=h, window=m.cache_window)
                out.append(Shrink("heads", h, c.ceiling, c.ceiling / own))
    for p in SHRINK_PRECISIONS:
        c = costs.shrink_ceiling(m, context, precision=p, window=m.cache_window)
        out.append(Shrink("precision", p, c.ceiling, c.ceiling / own))
    for w in SHRINK_WINDOWS:
        # the window on every layer, where the model's own is not already smaller
        spans = tuple(w if s is None else min(s, w) for s in m.windows)
        c = costs.shrink_ceiling(m, context, window=spans)
        if c.ceiling > own * 1.005:
            out.append(Shrink("window", w, c.ceiling, c.ceiling / own))
    return tuple(out)


@memo(maxsize=1024)
def batching_of(context: int, gpu: str, model: str = MODEL) -> Batching:
    g, m = GPUS[gpu], model_of(model)
    ceiling = costs.intensity_ceiling(m, context, PRECISION, window=m.cache_window)
    limit = None
    if g.mem_bytes is not None:          # the vendor's "GB" are GiB (step 5's lesson)
        limit = costs.max_sequences(m, g, context, PRECISION, window=m.cache_window,
                                    binary_capacity=True)
    return Batching(
        model=m, gpu=g, context=context, flops_per_seq=costs.forward_flops(m, 1),
        cache_per_seq=cache_per_sequence(m, context),
        weights_b1=costs.decode_weight_bytes(m, 1), ceiling=ceiling,
        ceiling_attention=costs.intensity_ceiling(m, context, PRECISION, window=m.cache_window,
                                                  include_attention=True),
        stop=costs.batch_where_gains_stop(m, g, context, PRECISION, window=m.cache_window),
        memory_limit=limit,
        curve=tuple(decode_cost(m, g, context, b) for b in CURVE_BATCHES),
        shrinks=shrinks_of(m, context, ceiling))


class Step4Model(param.Parameterized):
    prompt = param.Integer(default=STEP4["prompt"], bounds=STEP4["prompt_range"],
                           doc="prompt length (tokens)")
    output = param.Integer(default=STEP4["output"], bounds=STEP4["output_range"],
                           doc="output tokens")
    gpu = param.Selector(default=STEP4["gpu"], objects=list(GPUS), doc="GPU preset")
    model = param.Selector(default=MODEL, objects=list(ALL_MODELS), doc="model preset")
    batch = param.Integer(default=STEP4["batch"], bounds=BATCH_RANGE,
                          doc="sequences decoded together")

    roofline = param.Parameter(default=None, doc="output: prefill and decode (Roofline)")
    batching = param.Parameter(default=None, doc="output: decode against the batch (Batching)")
    plan = param.Parameter(default=None, doc="output: what the live model measures (Plan)")

    @param.depends("prompt", "output", "gpu", "model", "batch", watch=True, on_init=True)
    def _outputs(self):
        """The three outputs in one update: what reads several of them (the stage's frame)
        is rebuilt once per move, not once per output."""
        new = {"roofline": roofline_of(self.prompt, self.output, self.gpu, self.model,
                                       self.batch)}
        ctx = max(costs.last_decode_context(self.prompt, self.output), self.prompt + 1)
        b = batching_of(ctx, self.gpu, self.model)
        if b is not self.batching:           # the same context: nothing changed
            new["batching"] = b
        plan = plan_of(self.prompt, self.output)
        if plan != self.plan:                # nearby slider values share one measurement
            new["plan"] = plan
        self.param.update(new)
