"""Step 5's view-model: the memory bill of a model on a GPU preset; numbers only.

Every byte comes from `explainer.costs`. The model is a preset (`presets.ALL_MODELS`) or
“your model”: a Hugging Face config.json pasted by the learner (`config`, read by
`explainer.hfconfig.parse_config`), carried in the link as `custom` (its few cache-relevant
numbers, `hfconfig.to_query`, written `layers-32_heads-32_kv-8_hd-128_...`). GPU memory is
counted as the vendors count it: their “80 GB” is 80 GiB (`binary_capacity`).

The step is in two parts (`part`): a, the bill and its growth, with three inputs (the
context, the batch, the model); b, planning a server, with the rest (the GPU and how many, the
two precisions, the engine's share, your model). Every output is computed whichever part is
shown, so the two parts always agree.

The precisions are the learner's: `precision` for the cache (fp16, or fp8 as a serving
engine's `--kv-cache-dtype fp8` keeps it) and `weights` for the weights (as released: 16-bit
unless the config or the preset says fp8 or quantized; or 16-bit, fp8 or int4 by choice). Every
output below counts with both, so the bill, the curve, the layer map and the planner agree.

Outputs, each recomputed only when what it depends on changes (and on the two precisions):

- `parsed` (config, params_b): what the pasted config said, or why it could not be read;
  when it could, `custom` (and `model`) follow;
- `custom_model` (custom): the custom model of the link, or why it is not valid;
- `spec`  (model, custom_model): the model's cache per token, its weights, where one sequence's
  cache would outgrow them (the question's answer);
- `curve` (model, custom_model, batch): the batch's cache bytes over the context slider's range;
- `bill`  (model, custom_model, context, batch, gpu): weights + cache against the chosen GPU;
- `live`  (lang): the live model's cache, measured on its tensors after the language's
  default prompt, beside the same formula;
- `layers` (model, custom_model, context): the layer map: what every layer keeps for one
  sequence at this context (`costs.layer_map`), and its layers grouped by what they keep;
- `plan` (model, custom_model, context, gpu, gpus, share): the planner's answers
  (`explainer.planner`): the longest context one sequence can have and the largest batch at
  this context on `gpus` of the GPU, ideal and as a serving engine would allocate them
  (`share` per cent of the memory the driver gives, blocks of 16 tokens).
"""
from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache

import param

from explainer import costs, hfconfig, planner, presets
from explainer import runtime as rt
from explainer.i18n import LANGS
from explainer.memo import memo
from explainer.prompts import DEFAULT_PROMPTS

D = presets.STEP5
PRECISION = D["precision"]           # the cache by default: fp16
CACHE_PRECISIONS = ("fp16", "fp8")   # what serving engines keep a cache in without scales
RELEASED = "released"                # the weights as released (ModelPreset.weight_format)
# the weights' choices: bytes per parameter (None: as released) and the format they bill as
WEIGHT_CHOICES = {RELEASED: (None, None), "fp16": (2.0, "16-bit"), "fp8": (1.0, "8-bit"),
                  "int4": (0.5, "4-bit")}
LIVE_VARIANT = "mha"
LIVE_NEW_TOKENS = 8                  # prompt + 7 decode steps: the cache holds P + 7 tokens
LIVE_PRECISION = "fp32"              # what the live model stores
CURVE_STEP = 256                     # context resolution of the cache-vs-context curve
FAR = 2**40                          # "never" for a cache capped by a sliding window

CUSTOM = "custom"                    # the `model` value of “your model”
CUSTOM_RE = r"^[A-Za-z0-9_.:+\-]{0,400}$"    # what a `custom` link value may hold
# MLA: the latent (kv_lora_rank) and the rotary key (qk_rope_head_dim) of the presets
MLA_SPLIT = {"deepseek-v3": (512, 64)}
MAX_LAYERS = 1024                    # more layers than any real model: “your model” stops there
LAYER_FIELDS = ("num_hidden_layers", "n_layer", "num_layers")

PARTS = ("a", "b")                   # a: the bill (what a newcomer meets); b: the planner
# what a link sets only for the planner (`PARTS` b): a value other than its default opens it
PLAN_INPUTS = ("weights", "precision", "gpu", "gpus", "share", "custom")
GPU_COUNTS = (1, 2, 4, 8)            # the planner's GPUs (tensor parallel)
SHARE_RANGE = (50, 95)               # the serving engine's share of GPU memory, per cent
SHARE_DEFAULT = round(planner.ENGINE_SHARE * 100)

# GPU presets that have a memory size, smallest first (the "how many fit" choices).
GPU_KEYS = tuple(g.key for g in sorted((g for g in presets.GPUS.values() if g.mem_bytes),
                                       key=lambda g: g.mem_bytes))
MODEL_KEYS = tuple(presets.ALL_MODELS) + (CUSTOM,)


@dataclass(frozen=True)
class Problem:
    """Why a config (or the link's model) cannot be used: `hfconfig.ConfigError` as data
    (the text layer words it from `code`)."""
    field: str
    code: str
    values: tuple                # ((name, value), ...)
    source: str                  # "config" or "link"

    @property
    def value_map(self) -> dict:
        return dict(self.values)


def problem_of(e: hfconfig.ConfigError, source: str) -> Problem:
    return Problem(field=str(e.field)[:60], code=e.code,
                   values=tuple(sorted((k, v if isinstance(v, (int, float, str, type(None)))
                                        else str(v)[:60]) for k, v in e.values.items())),
                   source=source)


@dataclass(frozen=True)
class Parsed:
    """What a pasted config.json said: the model and the fields read, or the problem."""
    preset: presets.ModelPreset | None
    fields: tuple                # ((config path, value), ...) in reading order
    defaults: tuple              # ((field, value), ...) assumed: the config left them out
    split: tuple | None          # (kv_lora_rank, qk_rope_head_dim) of an MLA model
    encoded: str                 # its `custom` link value ("" if it could not be read)
    problem: Problem | None
    params_source: str           # "config" (counted from it) or "override" (entered)

    @property
    def ok(self) -> bool:
        return self.problem is None


@dataclass(frozen=True)
class Custom:
    """The link's custom model (`custom`), or why it is not valid."""
    preset: presets.ModelPreset | None
    query: tuple                 # ((link key, value), ...)
    split: tuple | None
    problem: Problem | None


@dataclass(frozen=True)
class Spec:
    """One model's cache, independent of context, batch and GPU."""
    key: str
    name: str                   # "" for “your model” (the text layer names it)
    kind: str                   # "MHA", "GQA", "MQA", "MLA" (a label key)
    n_layers: int
    n_heads: int
    n_kv_heads: int
    head_dim: int
    mla_dims: int | None        # values cached per layer and token (MLA), else None
    mla_split: tuple | None     # (latent, rotary key) values of those, when known
    window: int | None          # span of the bounded layers (sliding window or chunk), else None
    n_window_layers: int        # layers that keep at most `window` tokens (sliding or chunked)
    n_full_layers: int          # layers that keep every token (full attention or MLA); the
                                # rest (cross, shared, state, none) keep nothing per token
    max_context: int | None     # the longest sequence the model was built for
    bytes_per_value: float      # of the cache precision (fp16: 2)
    per_token: int              # cache bytes per token, all layers
    per_layer: int              # cache bytes per token and layer
    n_params: float
    dtype: str | None           # precision of the released weights (fp8 for DeepSeek-V3)
    weights: float              # weight bytes: 16-bit, or as released (fp8, quantized)
    crossover: float | None     # tokens at which ONE sequence's cache equals the weights
    cap: int | None             # bytes one sequence's cache stops at (all layers windowed)
    weight_format: str = "16-bit"   # as released (ModelPreset.weight_format: "16-bit", "fp8",
                                    # "quantized") or chosen ("16-bit", "8-bit", "4-bit")
    multimodal: bool = False    # the parameters are a multimodal model's language model's
    precision: str = PRECISION  # of the cache
    weight_choice: str = RELEASED   # a WEIGHT_CHOICES key
    embed_known: bool = True    # the embedding and output head are counted (embed_params)
    window_kind: str = "sliding"    # "chunked" when every bounded layer is chunked (Llama 4)

    @property
    def is_mla(self) -> bool:
        return self.mla_dims is not None

    @property
    def custom(self) -> bool:
        return self.key == CUSTOM

    @property
    def layered(self) -> bool:
        """Some layers keep at most a window (or chunk) of tokens and some keep every token
        (Gemma 2 and 3, Llama 4); layers that keep nothing per token do not count."""
        return self.n_window_layers > 0 and self.n_full_layers > 0

    @property
    def n_attention_layers(self) -> int:
        """Layers whose cache grows per token: the ones the formula multiplies."""
        return self.n_full_layers + self.n_window_layers

    @property
    def chunked(self) -> bool:
        """The bounded layers attend within chunks (`attention_chunk_size`), not a window."""
        return self.window_kind == "chunked"


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
    """Weights + cache of `batch` sequences of `context` tokens, against a GPU preset whose
    memory is counted as its vendor does: “80 GB” = 80 GiB."""
    context: int
    batch: int
    gpu: str
    gpu_name: str
    gpu_gib: float              # the vendor's number: GiB
    gpu_mem: float              # its bytes (80 GiB = 85.9e9)
    kept: int                   # tokens per sequence kept by the layers that keep the most
    kept_local: int             # tokens per sequence kept by a windowed layer
    per_sequence: int           # cache bytes of one sequence
    per_token: int
    kv: int                     # cache bytes of the whole batch
    weights: float
    total: float
    fits_gpu: str | None        # the smallest GPU preset that holds `total`, or None
    fits_mem: float | None      # its bytes
    fits_gib: float | None
    fits_names: tuple           # names of the GPU presets of that capacity
    free: float                 # the chosen GPU's memory minus the weights (may be < 0)
    fits_selected: bool
    max_sequences: int          # sequences of `context` tokens that fit next to the weights
    beyond_max_context: bool    # the context is longer than the model can process
    capacities: tuple           # ((bytes, GiB, (names...)), ...) of the GPU presets


@dataclass(frozen=True)
class LayerGroup:
    """Layers that keep the same: `count` layers of one kind (`presets.LAYER_KINDS`) and
    span, each keeping `tokens` tokens (`per_token` bytes each) and `nbytes` in all, per
    sequence (a state layer: its fixed state; a layer that keeps nothing: 0)."""
    kind: str
    span: int | None
    count: int
    tokens: int
    per_token: int
    nbytes: int


@dataclass(frozen=True)
class LayerMap:
    """What every layer keeps for one sequence of `context` tokens (`costs.layer_map`)."""
    context: int
    kinds: tuple                # per layer, its kind
    tokens: tuple               # per layer, the tokens it keeps
    groups: tuple               # LayerGroup, in the order they first appear
    nbytes: int                 # the sequence's cache, all layers

    @property
    def uniform(self) -> bool:
        """Every layer keeps the same tokens at the same bytes (the one-line formula)."""
        return len(self.groups) == 1


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


# -- the model: a preset, or your config.json, or the link's numbers -------------------------

def preset_of(model) -> presets.ModelPreset:
    return costs.get_model(model)


def encode(preset: presets.ModelPreset, split: tuple | None = None) -> str:
    """The link form of a model: `hfconfig.to_query` as `key-value` pairs joined by `_`
    (`rope` adds the rotary key of an MLA split, which `from_query` ignores)."""
    q = dict(hfconfig.to_query(preset))
    if split is not None and preset.mla_dims is not None:
        q["rope"] = str(split[1])
    return "_".join(f"{k}-{v}" for k, v in q.items())


@memo(maxsize=256)
def decode(text: str) -> Custom:
    """The link's `custom` value -> the model, with `hfconfig.from_query`'s checks."""
    if not text:
        return Custom(None, (), None, None)
    q: dict[str, str] = {}
    try:
        for part in text.split("_"):
            key, sep, value = part.partition("-")
            if not sep or not key:
                raise hfconfig.ConfigError("custom", "bad_value", value=part[:40])
            if key in q:
                raise hfconfig.ConfigError(key[:40], "duplicate_key")
            q[key] = value
        preset = hfconfig.from_query(q, key=CUSTOM, name="")
        check_layers(preset, "layers")
        split = None
        if "rope" in q and preset.mla_dims is not None:
            rope = q["rope"]
            if not (rope.isdigit() and len(rope) <= 7 and 0 < int(rope) < preset.mla_dims):
                raise hfconfig.ConfigError("rope", "bad_value", value=rope[:40])
            split = (preset.mla_dims - int(rope), int(rope))
    except hfconfig.ConfigError as e:
        return Custom(None, tuple(q.items()), None, problem_of(e, "link"))
    return Custom(preset, tuple(q.items()), split, None)


def check_layers(m: presets.ModelPreset, field: str) -> None:
    """No real model has more than a few hundred layers: refuse more than MAX_LAYERS."""
    if m.n_layers > MAX_LAYERS:
        raise hfconfig.ConfigError(field, "too_large", value=m.n_layers, limit=MAX_LAYERS)


def _mla_split(fields: dict) -> tuple | None:
    latent = next((v for k, v in fields.items() if k.endswith("kv_lora_rank")), None)
    rope = next((v for k, v in fields.items() if k.endswith("qk_rope_head_dim")), None)
    return (latent, rope) if latent is not None and rope is not None else None


@memo(maxsize=32)
def parse(text: str, params_b: float | None = None) -> Parsed:
    """A pasted config.json -> the model (`hfconfig.parse_config`), or why not. Nothing a
    learner pastes gets further than a `Problem`."""
    try:
        r = hfconfig.parse_config(text, n_params=None if params_b is None else params_b * 1e9,
                                  key=CUSTOM, name="")
        read = dict(r.fields_read)
        check_layers(r.preset, next((k for k in read if k.split(".")[-1] in LAYER_FIELDS),
                                    LAYER_FIELDS[0]))
        split = _mla_split(read) if r.preset.is_mla else None
        encoded = encode(r.preset, split)
    except hfconfig.ConfigError as e:
        return Parsed(None, (), (), None, "", problem_of(e, "config"), "")
    except (ValueError, TypeError, OverflowError, RecursionError):    # never a traceback
        return Parsed(None, (), (), None, "",
                      Problem("config", "bad_value", (), "config"), "")
    back = decode(encoded).problem
    if back is not None:        # what the link would refuse is the config's fault: say so
        return Parsed(None, (), (), None, "",
                      Problem(back.field, back.code, back.values, "config"), "")
    return Parsed(r.preset, tuple(r.fields_read), tuple(r.defaults_used), split, encoded,
                  None, r.params_source)


# -- the numbers -----------------------------------------------------------------------------

def layer_counts(m: presets.ModelPreset, precision: str = PRECISION) -> tuple:
    """(((bytes per token, span, fixed bytes), layers), ...): the layers of `costs.layer_map`
    grouped by what they keep, so a sum over them is the bill's sum (a layer that keeps
    nothing per token, such as a shared, cross or state layer, has 0 bytes per token; a state
    layer its fixed state)."""
    uses = costs.layer_map(m, 1, precision)         # one token: per-token bytes + fixed state
    fixed = costs.layer_map(m, 0, precision)        # no token: the fixed state alone
    return tuple(Counter((u.nbytes - f.nbytes, u.span, f.nbytes)
                         for u, f in zip(uses, fixed)).items())


_groups = lru_cache(maxsize=512)(layer_counts)
"""`layer_counts`, remembered per (model, precision): the curve and the crossing's bisection
ask for it at every point."""


def bytes_per_param(m: presets.ModelPreset, weights: str = RELEASED) -> float | None:
    """What the bill and the planner take for the weights, per parameter on average: None
    (as released), 2 (16-bit), or at 8 or 4 bits as engines and AWQ/GPTQ quantize them,
    the embedding and the output head kept at 16 bits and the 4-bit scales counted
    (`costs.quantized_weight_bytes` / parameters)."""
    bpp, fmt = WEIGHT_CHOICES[weights]
    if fmt in costs.QUANT_BYTES:
        return costs.quantized_weight_bytes(m, fmt) / m.n_params
    return bpp


def weight_bytes(m: presets.ModelPreset, weights: str = RELEASED) -> float:
    """The weights' bytes for a WEIGHT_CHOICES key (`costs.weight_bytes` with
    `bytes_per_param`, as the bill and the planner count them)."""
    return costs.weight_bytes(m, bytes_per_param(m, weights))


def cache_bytes(m: presets.ModelPreset, tokens: int, batch: int = 1,
                counts: tuple | None = None, precision: str = PRECISION) -> int:
    """`costs.kv_cache_bytes(m, tokens, batch, precision, window=m.cache_window)`: the sum of
    the layer map (every layer's kept tokens at its bytes, plus fixed states), taken group by
    group rather than layer by layer (a pasted config may have very many layers);
    `counts`: `layer_counts(m, precision)`, when the caller has it already."""
    groups = counts if counts is not None else _groups(m, precision)
    return batch * sum(n * (per_token * costs.cached_tokens(tokens, span) + fixed)
                       for (per_token, span, fixed), n in groups)


def _crossing(m: presets.ModelPreset, batch: int, precision: str = PRECISION,
              weights: str = RELEASED) -> float | None:
    """Context at which `batch` sequences' cache (the layer map's sum) equals the weights;
    None if it never does (windows or chunks on every layer that grows cap it below them).
    Without bounded layers the cache is fixed states + context x per-token bytes, a line."""
    wbytes = weight_bytes(m, weights)
    counts = _groups(m, precision)
    if all(span is None for (_, span, _), _ in counts):
        fixed = batch * sum(n * f for (_, _, f), n in counts)
        grow = batch * sum(n * t for (t, _, _), n in counts)
        if grow == 0:
            return None
        return max(0.0, (wbytes - fixed) / grow)
    size = lambda t: cache_bytes(m, t, batch, counts, precision)  # noqa: E731
    if size(FAR) < wbytes:
        return None
    lo, hi = 0, FAR                     # smallest whole context whose cache holds the weights
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if size(mid) >= wbytes else (mid, hi)
    return float(hi)


@memo(maxsize=256)
def spec_of(model, split: tuple | None = None, precision: str = PRECISION,
            weights: str = RELEASED) -> Spec:
    """A preset key (or a preset: “your model”) and the two precisions -> its Spec."""
    m = preset_of(model)
    split = split or MLA_SPLIT.get(m.key)
    kinds = [s.kind for s in m.layers]
    bounded = sum(k in presets.BOUNDED_KINDS for k in kinds)
    full = sum(k in ("full", "mla") for k in kinds)
    capped = bounded > 0 and full == 0
    return Spec(
        key=m.key, name=m.name if m.key != CUSTOM else "", kind=m.attention_kind,
        n_layers=m.n_layers, n_heads=m.n_heads, n_kv_heads=m.n_kv_heads,
        head_dim=m.head_dim, mla_dims=m.mla_dims, mla_split=split if m.is_mla else None,
        window=m.local_window, n_window_layers=bounded, n_full_layers=full,
        max_context=m.max_context,
        bytes_per_value=presets.PRECISIONS[precision].bytes_per_value,
        per_token=costs.kv_bytes_per_token(m, precision),
        per_layer=costs.kv_bytes_per_token_per_layer(m, precision), n_params=m.n_params,
        dtype=m.dtype, weights=weight_bytes(m, weights),
        crossover=_crossing(m, 1, precision, weights),
        cap=cache_bytes(m, FAR, precision=precision) if capped else None,
        weight_format=WEIGHT_CHOICES[weights][1] or m.weight_format,
        multimodal=m.multimodal, precision=precision, weight_choice=weights,
        embed_known=m.embed_params is not None,
        window_kind="chunked" if bounded and all(k != "sliding" for k in kinds) else "sliding")


@memo(maxsize=1024)
def curve_of(model, batch: int, precision: str = PRECISION, weights: str = RELEASED) -> Curve:
    m = preset_of(model)
    hi = D["context_range"][1]
    ctx = tuple(range(0, hi + 1, CURVE_STEP))
    counts = _groups(m, precision)
    kv = tuple(cache_bytes(m, t, batch, counts, precision) for t in ctx)
    wbytes = weight_bytes(m, weights)
    cross = _crossing(m, batch, precision, weights)
    return Curve(batch=batch, ctx=ctx, kv=kv, weights=wbytes,
                 crossover=cross if cross is not None and cross <= hi else None,
                 top=max(max(kv), wbytes))


@lru_cache(maxsize=None)
def capacities() -> tuple:
    """((bytes, GiB, (GPU names...)), ...), smallest first: GPUs of one size share a line.
    Bytes as the vendors mean them: their “80 GB” is 80 GiB."""
    groups: dict[float, list[str]] = {}
    for k in GPU_KEYS:
        g = presets.GPUS[k]
        groups.setdefault(g.mem_gib, []).append(g.name)
    return tuple((gib * presets.GiB, gib, tuple(names))
                 for gib, names in sorted(groups.items()))


@memo(maxsize=4096)
def bill_of(model, context: int, batch: int, gpu: str, precision: str = PRECISION,
            weights: str = RELEASED) -> Bill:
    m = preset_of(model)
    g = presets.GPUS[gpu]
    b = costs.memory_bill(m, context, batch, g, precision, window=m.cache_window,
                          binary_capacity=True, bytes_per_param=bytes_per_param(m, weights))
    fits = presets.GPUS[b.fits_gpu] if b.fits_gpu is not None else None
    caps = capacities()
    return Bill(
        context=context, batch=batch, gpu=g.key, gpu_name=g.name, gpu_gib=g.mem_gib,
        gpu_mem=g.capacity_bytes(binary=True),
        kept=costs.cached_tokens(context, m.cache_window),
        kept_local=costs.cached_tokens(context, m.local_window),
        per_sequence=cache_bytes(m, context, precision=precision), per_token=b.kv_per_token,
        kv=b.kv_bytes,
        weights=b.weight_bytes, total=b.total, fits_gpu=b.fits_gpu,
        fits_mem=fits.capacity_bytes(binary=True) if fits else None,
        fits_gib=fits.mem_gib if fits else None,
        fits_names=next((names for _, gib, names in caps if fits and gib == fits.mem_gib),
                        ()),
        free=b.free_bytes, fits_selected=bool(b.fits_selected),
        max_sequences=b.max_sequences, beyond_max_context=costs.exceeds_max_context(m, context),
        capacities=caps)


@memo(maxsize=1024)
def layers_of(model, context: int, precision: str = PRECISION) -> LayerMap:
    """The layer map of one sequence at `context`, its layers grouped by (kind, span,
    tokens kept, bytes per token): those that keep the most tokens first, then those whose
    cache does not grow with the text."""
    uses = costs.layer_map(model, context, precision)
    grow = planner.growth(model, precision)
    groups: dict[tuple, list] = {}
    for u, g in zip(uses, grow):
        k = (u.kind, u.span, u.tokens, g.per_token, u.nbytes)
        groups.setdefault(k, []).append(u)
    return LayerMap(
        context=context, kinds=tuple(u.kind for u in uses),
        tokens=tuple(u.tokens for u in uses),
        groups=tuple(sorted((LayerGroup(kind, span, len(us), tokens, per_token, nbytes)
                             for (kind, span, tokens, per_token, nbytes), us in groups.items()),
                            key=lambda g: (not g.per_token, -g.tokens, -g.nbytes,
                                           presets.LAYER_KINDS.index(g.kind)))),
        nbytes=sum(u.nbytes for u in uses))


@memo(maxsize=4096)
def plan_of(model, context: int, gpu: str, gpus: int, share: int, precision: str = PRECISION,
            weights: str = RELEASED) -> planner.Plan:
    """The planner's answers, with the bill's precisions; `share` in per cent."""
    return planner.plan(model, gpu, context, gpus=gpus, precision=precision,
                        bytes_per_param=bytes_per_param(preset_of(model), weights),
                        share=share / 100)


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
    part = param.Selector(default=PARTS[0], objects=list(PARTS),
                          doc="a: the bill and its growth (context, batch, model); b: plan a "
                              "server (the GPUs, the precisions, the engine's share, your "
                              "model)")
    context = param.Integer(default=D["context"], bounds=D["context_range"],
                            doc="tokens per sequence")
    batch = param.Integer(default=D["batch"], bounds=D["batch_range"],
                          doc="sequences served at once")
    model = param.Selector(default=D["model"], objects=list(MODEL_KEYS),
                           doc="a model preset, or “custom”: your model")
    gpu = param.Selector(default=D["gpu"], objects=list(GPU_KEYS))
    precision = param.Selector(default=PRECISION, objects=list(CACHE_PRECISIONS),
                               doc="what the cache keeps each value in")
    weights = param.Selector(default=RELEASED, objects=list(WEIGHT_CHOICES),
                             doc="the weights' precision: as released, or 16-bit, fp8, int4")
    gpus = param.Selector(default=GPU_COUNTS[0], objects=list(GPU_COUNTS),
                          doc="GPUs of the chosen kind the planner splits the model over")
    share = param.Integer(default=SHARE_DEFAULT, bounds=SHARE_RANGE,
                          doc="per cent of the memory the driver gives that the serving "
                              "engine takes (vLLM's gpu_memory_utilization x 100)")
    custom = param.String(default="", regex=CUSTOM_RE,
                          doc="your model in the link: `encode`'s key-value pairs")
    config = param.String(default="", doc="a pasted config.json (never in the link)")
    params_b = param.Number(default=None, allow_None=True,
                            doc="parameters in billions, when the config cannot give them "
                                "(checked by `parse`, like the config)")

    parsed = param.Parameter(default=None, doc="output: what the config said (Parsed)")
    custom_model = param.Parameter(default=None,
                                   doc="output: the link's custom model (Custom)")
    spec = param.Parameter(default=None, doc="output: the model's cache (Spec)")
    curve = param.Parameter(default=None, doc="output: cache over context (Curve)")
    bill = param.Parameter(default=None, doc="output: the memory bill (Bill)")
    live = param.Parameter(default=None, doc="output: the live model's cache (Live)")
    layers = param.Parameter(default=None, doc="output: the layer map (LayerMap)")
    plan = param.Parameter(default=None, doc="output: the planner's answers (planner.Plan)")

    @param.depends("config", "params_b", watch=True)
    def _parse(self):
        p = parse(self.config, self.params_b)
        self.parsed = p
        if p.ok:                              # your model: shown, and carried by the link
            self.param.update(custom=p.encoded, model=CUSTOM)

    @param.depends("custom", watch=True, on_init=True)
    def _custom_model(self):
        self.custom_model = decode(self.custom)

    def _model(self):
        """The preset shown, and its MLA split: your model falls back to the default preset
        while there is none (the text says so)."""
        if self.model == CUSTOM:
            if self.custom_model.preset is not None:
                return self.custom_model.preset, self.custom_model.split
            return D["model"], None
        return self.model, None

    @param.depends("model", "custom_model", "precision", "weights", watch=True, on_init=True)
    def _spec(self):
        self.spec = spec_of(*self._model(), self.precision, self.weights)

    @param.depends("model", "custom_model", "context", "batch", "gpu", "precision", "weights",
                   watch=True, on_init=True)
    def _bill(self):
        """The curve and the bill change together (one event: a view bound to both renders
        once); each is cached per process, so one that did not change is the same object
        and triggers nothing."""
        preset = self._model()[0]
        p, w = self.precision, self.weights
        self.param.update(curve=curve_of(preset, self.batch, p, w),
                          bill=bill_of(preset, self.context, self.batch, self.gpu, p, w))

    @param.depends("model", "custom_model", "context", "gpu", "gpus", "share", "precision",
                   "weights", watch=True, on_init=True)
    def _plan(self):
        """The layer map and the planner's answers change together (one event)."""
        preset = self._model()[0]
        p, w = self.precision, self.weights
        self.param.update(layers=layers_of(preset, self.context, p),
                          plan=plan_of(preset, self.context, self.gpu, self.gpus, self.share,
                                       p, w))

    @param.depends("lang", watch=True, on_init=True)
    def _live(self):
        self.live = live_of(self.lang)
