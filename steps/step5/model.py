"""Step 5's view-model: the memory bill of a model preset on a GPU preset; numbers only.

Every byte comes from `explainer.costs`. Four outputs, each recomputed only when what it
depends on changes:

- `spec`  (model): the model's cache per token, its weights, where one sequence's cache
  would outgrow them (the question's answer);
- `curve` (model, batch): the batch's cache bytes over the context slider's range;
- `bill`  (model, context, batch, gpu): weights + cache against the chosen GPU;
- `live`  (lang): the live model's cache, measured on its tensors after the language's
  default prompt, beside the same formula.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import param

from explainer import costs, presets
from explainer import runtime as rt
from explainer.i18n import LANGS
from explainer.prompts import DEFAULT_PROMPTS

D = presets.STEP5
PRECISION = D["precision"]           # the cache and the weights: fp16
LIVE_VARIANT = "mha"
LIVE_NEW_TOKENS = 8                  # prompt + 7 decode steps: the cache holds P + 7 tokens
LIVE_PRECISION = "fp32"              # what the live model stores
CURVE_STEP = 256                     # context resolution of the cache-vs-context curve
FAR = 2**40                          # "never" for a cache capped by a sliding window

# GPU presets that have a memory size, smallest first (the "how many fit" choices).
GPU_KEYS = tuple(g.key for g in sorted((g for g in presets.GPUS.values() if g.mem_bytes),
                                       key=lambda g: g.mem_bytes))
MODEL_KEYS = tuple(presets.MODELS)


@dataclass(frozen=True)
class Spec:
    """One model preset's cache, independent of context, batch and GPU."""
    key: str
    name: str
    kind: str                   # "MHA", "GQA", "MQA", "MLA" (a label key)
    n_layers: int
    n_heads: int
    n_kv_heads: int
    head_dim: int
    mla_dims: int | None        # values cached per layer and token (MLA), else None
    window: int | None          # sliding window of the windowed layers, else None
    max_context: int | None     # the longest sequence the model was built for
    bytes_per_value: float      # of the cache precision (fp16: 2)
    per_token: int              # cache bytes per token, all layers
    weights: float              # fp16 weight bytes
    crossover: float | None     # tokens at which ONE sequence's cache equals the weights
    cap: int | None             # bytes one sequence's cache stops at (all layers windowed)

    @property
    def is_mla(self) -> bool:
        return self.mla_dims is not None


@dataclass(frozen=True)
class Curve:
    """The batch's cache over the context slider's range."""
    batch: int
    ctx: tuple                  # context lengths, 0 .. the slider's maximum
    kv: tuple                   # cache bytes of the whole batch at each
    weights: float
    crossover: float | None     # context where this batch's cache equals the weights (≤ max)
    top: float                  # largest value on the curve or the weights


@dataclass(frozen=True)
class Bill:
    """Weights + cache of `batch` sequences of `context` tokens, against a GPU preset."""
    context: int
    batch: int
    gpu: str
    gpu_name: str
    gpu_mem: float              # decimal bytes, as the presets give them
    kept: int                   # tokens per sequence kept in the cache (window)
    per_sequence: int           # cache bytes of one sequence
    per_token: int
    kv: int                     # cache bytes of the whole batch
    weights: float
    total: float
    fits_gpu: str | None        # the smallest GPU preset that holds `total`, or None
    fits_mem: float | None
    fits_names: tuple           # names of the GPU presets of that capacity
    free: float                 # the chosen GPU's memory minus the weights (may be < 0)
    fits_selected: bool
    max_sequences: int          # sequences of `context` tokens that fit next to the weights
    beyond_max_context: bool    # the context is longer than the model can process
    capacities: tuple           # ((bytes, (names...)), ...) of the GPU presets, smallest first


@dataclass(frozen=True)
class Live:
    """The live model's cache: measured on its tensors and from the formula."""
    n_layers: int
    n_kv_heads: int
    head_dim: int
    device: str
    prompt_tokens: int
    steps: int                  # decode steps after the prompt
    tokens: int                 # tokens in the cache at the end
    measured: int               # bytes of the real cache tensors
    formula: int                # bytes from costs.kv_cache_bytes for its config
    every_step: bool            # measured == formula after every step
    weights: int                # bytes of its parameters (fp32)
    per_token: int
    crossover: float            # tokens at which its cache would equal its weights


def round_sig(x: float, digits: int = 3) -> float:
    """25,703.2 -> 25,700 (3 significant figures)."""
    if x <= 0:
        return 0.0
    return round(x, digits - 1 - math.floor(math.log10(x)))


def _crossing(m: presets.ModelPreset, batch: int) -> float | None:
    """Context at which `batch` sequences' cache equals the weights; None if it never does
    (a sliding window on every layer caps the cache below them)."""
    weights = costs.weight_bytes(m)
    if m.local_window is None:
        return weights / (batch * costs.kv_bytes_per_token(m, PRECISION))
    size = lambda t: costs.kv_cache_bytes(m, t, batch, PRECISION,  # noqa: E731
                                          window=m.cache_window)
    if size(FAR) < weights:
        return None
    lo, hi = 0, FAR                     # smallest whole context whose cache holds the weights
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if size(mid) >= weights else (mid, hi)
    return float(hi)


@lru_cache(maxsize=None)
def spec_of(model: str) -> Spec:
    m = costs.get_model(model)
    capped = m.local_window is not None and m.n_window_layers == m.n_layers
    return Spec(
        key=m.key, name=m.name, kind=m.attention_kind, n_layers=m.n_layers,
        n_heads=m.n_heads, n_kv_heads=m.n_kv_heads, head_dim=m.head_dim,
        mla_dims=m.mla_dims, window=m.local_window, max_context=m.max_context,
        bytes_per_value=presets.PRECISIONS[PRECISION].bytes_per_value,
        per_token=costs.kv_bytes_per_token(m, PRECISION), weights=costs.weight_bytes(m),
        crossover=_crossing(m, 1),
        cap=costs.kv_cache_bytes(m, FAR, 1, PRECISION, window=m.cache_window) if capped
        else None)


@lru_cache(maxsize=1024)
def curve_of(model: str, batch: int) -> Curve:
    m = costs.get_model(model)
    hi = D["context_range"][1]
    ctx = tuple(range(0, hi + 1, CURVE_STEP))
    kv = tuple(costs.kv_cache_bytes(m, t, batch, PRECISION, window=m.cache_window)
               for t in ctx)
    weights = costs.weight_bytes(m)
    cross = _crossing(m, batch)
    return Curve(batch=batch, ctx=ctx, kv=kv, weights=weights,
                 crossover=cross if cross is not None and cross <= hi else None,
                 top=max(max(kv), weights))


@lru_cache(maxsize=None)
def capacities() -> tuple:
    """((bytes, (GPU names...)), ...), smallest first: GPUs of one size share a line."""
    groups: dict[float, list[str]] = {}
    for k in GPU_KEYS:
        g = presets.GPUS[k]
        groups.setdefault(g.mem_bytes, []).append(g.name)
    return tuple((mem, tuple(names)) for mem, names in sorted(groups.items()))


@lru_cache(maxsize=4096)
def bill_of(model: str, context: int, batch: int, gpu: str) -> Bill:
    m = costs.get_model(model)
    g = presets.GPUS[gpu]
    b = costs.memory_bill(m, context, batch, g, PRECISION, window=m.cache_window)
    fits_mem = presets.GPUS[b.fits_gpu].mem_bytes if b.fits_gpu is not None else None
    caps = capacities()
    return Bill(
        context=context, batch=batch, gpu=g.key, gpu_name=g.name, gpu_mem=g.mem_bytes,
        kept=costs.cached_tokens(context, m.cache_window),
        per_sequence=costs.kv_cache_bytes(m, context, 1, PRECISION, window=m.cache_window),
        per_token=b.kv_per_token, kv=b.kv_bytes, weights=b.weight_bytes, total=b.total,
        fits_gpu=b.fits_gpu, fits_mem=fits_mem,
        fits_names=next((names for mem, names in caps if mem == fits_mem), ()),
        free=b.free_bytes, fits_selected=bool(b.fits_selected),
        max_sequences=b.max_sequences, beyond_max_context=costs.exceeds_max_context(m, context),
        capacities=caps)


@lru_cache(maxsize=None)
def live_of(lang: str) -> Live:
    """The live model's cache after the language's default prompt and a few decode steps."""
    facts = rt.model_facts(LIVE_VARIANT)
    ids = rt.encode(DEFAULT_PROMPTS.get(lang, DEFAULT_PROMPTS["en"]))
    trace = rt.generate(LIVE_VARIANT, ids, LIVE_NEW_TOKENS, LIVE_PRECISION)
    preset = rt.live_preset(LIVE_VARIANT)
    tokens = int(trace.cache_shape[-1][2])
    formula = costs.kv_cache_bytes(preset, tokens, precision=LIVE_PRECISION)
    every_step = all(
        nb == costs.kv_cache_bytes(preset, int(sh[2]), precision=LIVE_PRECISION)
        for nb, sh in zip(trace.cache_nbytes, trace.cache_shape))
    weights = sum(p.numel() * p.element_size() for p in rt.model(LIVE_VARIANT).parameters())
    per_token = costs.kv_bytes_per_token(preset, LIVE_PRECISION)
    return Live(n_layers=facts["n_layers"], n_kv_heads=facts["n_kv_heads"],
                head_dim=facts["head_dim"], device=facts["device"], prompt_tokens=len(ids),
                steps=LIVE_NEW_TOKENS - 1, tokens=tokens, measured=int(trace.cache_nbytes[-1]),
                formula=formula, every_step=every_step, weights=weights,
                per_token=per_token, crossover=weights / per_token)


class Step5Model(param.Parameterized):
    lang = param.Selector(default="en", objects=list(LANGS),
                          doc="language of the live model's prompt")
    context = param.Integer(default=D["context"], bounds=D["context_range"],
                            doc="tokens per sequence")
    batch = param.Integer(default=D["batch"], bounds=D["batch_range"],
                          doc="sequences served at once")
    model = param.Selector(default=D["model"], objects=list(MODEL_KEYS))
    gpu = param.Selector(default=D["gpu"], objects=list(GPU_KEYS))

    spec = param.Parameter(default=None, doc="output: the model's cache (Spec)")
    curve = param.Parameter(default=None, doc="output: cache over context (Curve)")
    bill = param.Parameter(default=None, doc="output: the memory bill (Bill)")
    live = param.Parameter(default=None, doc="output: the live model's cache (Live)")

    @param.depends("model", watch=True, on_init=True)
    def _spec(self):
        self.spec = spec_of(self.model)

    @param.depends("model", "batch", watch=True, on_init=True)
    def _curve(self):
        self.curve = curve_of(self.model, self.batch)

    @param.depends("model", "context", "batch", "gpu", watch=True, on_init=True)
    def _bill(self):
        self.bill = bill_of(self.model, self.context, self.batch, self.gpu)

    @param.depends("lang", watch=True, on_init=True)
    def _live(self):
        self.live = live_of(self.lang)
