""""Your model": read a Hugging Face ``config.json`` into a model preset.

A learner pastes the text of a model's ``config.json``; :func:`parse_config`
returns a :class:`ParsedConfig` whose ``preset`` is an ordinary
:class:`~explainer.presets.ModelPreset`, so every cost function works on it
unchanged. The result also records every field it read (``fields_read``),
every value it had to assume (``defaults_used``) and the inputs of the cache
formula (:meth:`ParsedConfig.cache_inputs`), for the UI to show.

How each cache input is found (the first rule that applies wins):

- layers: ``num_hidden_layers`` (also ``n_layer``, ``num_layers``);
  query heads: ``num_attention_heads`` (``n_head``, ``num_heads``).
- KV heads: ``num_key_value_heads`` (``num_kv_heads``); ``multi_query: true``
  (Falcon) means 1; otherwise, or when null, the number of query heads (MHA).
- head_dim: an explicit ``head_dim`` wins over ``hidden_size /
  num_attention_heads`` (Gemma, Mistral NeMo and Qwen3 differ from it).
- MLA (DeepSeek-V2/V3): with ``kv_lora_rank`` the cache holds
  ``kv_lora_rank + qk_rope_head_dim`` values per layer per token (512 + 64 =
  576), not 2 x heads x head_dim.
- sliding window: ``use_sliding_window: false`` turns it off (Qwen's
  default is off); a ``layer_types`` list names each layer
  (``sliding_attention`` / ``full_attention``); Gemma 2 alternates, layer i
  local when i is even; Gemma 3 (``sliding_window_pattern``, default 6) has
  layer i global when (i + 1) % pattern == 0, local otherwise; Qwen2/3 with
  ``use_sliding_window: true`` window the layers with index >=
  ``max_window_layers``; otherwise ``sliding_window`` applies to every layer
  (Mistral 7B v0.1).
- weights' precision: ``torch_dtype`` (or ``dtype``); maximum context:
  ``max_position_embeddings`` (``n_positions``, ``max_sequence_length``,
  ``seq_length``).
- multimodal configs (Gemma 3) keep the language model under
  ``text_config``; its fields are read first, then the top level.

Parameter count (:class:`ParamCount`), for decoders with a gated MLP
(Llama, Mistral, Qwen, Gemma, Mixtral, DeepSeek): with d = hidden_size,
H/K = query/KV heads, h = head_dim, I = intermediate_size, V = vocab_size,

    embeddings             V * d   (+ V * d for an untied lm_head)
    attention per layer    d*H*h (q) + 2*d*K*h (k, v) + H*h*d (o)
                           (+ q/k/v biases for Qwen2 or attention_bias,
                            + 2*h for Qwen3/Gemma 3 q/k norms)
    MLA attention          d*q_r + q_r + q_r*H*(n + r)   (q, or d*H*(n + r))
                           + d*(c + r) + c + c*H*(n + v) + H*v*d
                           (q_r = q_lora_rank, c = kv_lora_rank,
                            n/r/v = qk_nope/qk_rope/v head dims)
    dense MLP per layer    3 * d * I       (gate, up, down)
    MoE layer              E * 3 * d * I_e + d * E (router)
                           + shared experts 3 * d * I_s (+ d for Qwen's gate)
    norms                  2 * d per layer (4 * d for Gemma 2/3) + d

Active parameters replace E by ``num_experts_per_tok`` routed experts.
Biases of routers and of the MLP are left out (they are a few thousand).
Other architectures (GPT-2, OPT, Falcon, ...) need the count entered by
hand (``n_params=``).

Bad input never escapes as a bare exception: it raises :class:`ConfigError`
with the ``field`` it concerns and a stable machine ``code`` the UI can
translate. Codes:

=======================  ====================================================
``not_text``             the input is not a string
``too_large``            text over ``MAX_CONFIG_CHARS``, or a number over
                         its field's limit (``limit``, ``value``)
``markup``               the text looks like HTML/XML (a web page was pasted)
``not_json``             not valid JSON (``line``, ``column``)
``duplicate_key``        a key appears twice in one object
``not_object``           the JSON (or ``text_config``) is not an object
``missing``              a required field is absent
``not_positive_int``     not an integer >= 1 (also zero, negative, 2.5, "8")
``not_nonnegative_int``  not an integer >= 0
``not_bool``             a flag that is not true/false
``bad_value``            a string or list entry that makes no sense here
``bad_dtype``            an unknown ``torch_dtype``
``kv_heads_divide``      KV heads do not divide the query heads
``hidden_divide``        no ``head_dim`` and hidden_size % heads != 0
``layer_types_length``   ``layer_types`` has not one entry per layer
``experts_range``        more experts per token than experts
``unsupported``          an attention type this tool cannot size
``params_needed``        the parameter count cannot be derived: enter it
``not_positive_number``  a parameter count that is not a positive number
``active_exceeds_total`` active parameters above the total
``not_encodable``        a preset that the URL form cannot express
=======================  ====================================================

URL form: :func:`to_query` writes a preset as a few short string keys
(``layers heads kv hd mla win pat moe dtype ctx params active``) and
:func:`from_query` reads them back with the same validation.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Mapping

from .presets import PRECISIONS, ModelPreset

ERROR_CODES = (
    "not_text", "too_large", "markup", "not_json", "duplicate_key", "not_object",
    "missing", "not_positive_int", "not_nonnegative_int", "not_bool", "bad_value",
    "bad_dtype", "kv_heads_divide", "hidden_divide", "layer_types_length",
    "experts_range", "unsupported", "params_needed", "not_positive_number",
    "active_exceeds_total", "not_encodable",
)
"""Every ``ConfigError.code`` (the UI needs one message per code)."""

MAX_CONFIG_CHARS = 200_000
"""Longest config text accepted (a real config.json is 1-10 kB)."""

LIMITS: Mapping[str, int] = MappingProxyType(
    dict(
        layers=100_000,
        heads=100_000,
        kv_heads=100_000,
        head_dim=65_536,
        hidden=1_000_000,
        intermediate=10_000_000,
        vocab=10_000_000,
        context=1_000_000_000,
        window=1_000_000_000,
        experts=100_000,
        rank=1_000_000,
    )
)
"""Largest value accepted for each kind of count (far above any real model)."""

MAX_PARAMS = 1e15
"""Largest parameter count accepted as an override."""

DTYPES: Mapping[str, str] = MappingProxyType(
    {
        "float32": "fp32", "fp32": "fp32", "float": "fp32",
        "float16": "fp16", "fp16": "fp16", "half": "fp16",
        "bfloat16": "bf16", "bf16": "bf16",
        "float8_e4m3fn": "fp8", "float8_e5m2": "fp8", "fp8": "fp8",
    }
)
"""``torch_dtype`` spellings and the precision key each maps to."""

GATED_MLP_EXCLUDED = frozenset(
    {
        "gpt2", "gpt_neo", "gpt_neox", "gptj", "opt", "bloom", "falcon",
        "phi", "gpt_bigcode", "starcoder2", "mpt", "codegen",
    }
)
"""Model types whose MLP is not gated: their parameters are not counted."""

_QWEN_TYPES = frozenset({"qwen2", "qwen2_moe", "qwen3", "qwen3_moe"})
_GEMMA2_TYPES = frozenset({"gemma2"})
_GEMMA3_TYPES = frozenset({"gemma3", "gemma3_text"})
_FOUR_NORM_TYPES = _GEMMA2_TYPES | _GEMMA3_TYPES
_QK_NORM_TYPES = frozenset({"qwen3", "qwen3_moe"}) | _GEMMA3_TYPES
_QKV_BIAS_TYPES = frozenset({"qwen2", "qwen2_moe"})
_TIED_BY_DEFAULT = frozenset({"gemma", "gemma2", "gemma3", "gemma3_text"})

# Class defaults of transformers' Gemma 2/3 configs for fields that the
# published config.json files leave out (google/gemma-3-27b-it has no
# vocab_size, max_position_embeddings or sliding_window_pattern).
_TYPE_DEFAULTS: Mapping[str, Mapping[str, Any]] = MappingProxyType(
    {
        "gemma2": dict(vocab_size=256_000, max_position_embeddings=8192,
                       sliding_window=4096),
        "gemma3_text": dict(vocab_size=262_208, max_position_embeddings=131_072,
                            sliding_window=4096, sliding_window_pattern=6),
        "gemma3": dict(vocab_size=262_208, max_position_embeddings=131_072,
                       sliding_window=4096, sliding_window_pattern=6),
        "qwen2": dict(max_window_layers=28),
        "qwen2_moe": dict(max_window_layers=28),
        "qwen3": dict(max_window_layers=28),
        "qwen3_moe": dict(max_window_layers=28),
    }
)

_MODEL_TYPE_RE = re.compile(r"^[A-Za-z0-9_.\-]{1,64}$")
_LAYER_TYPES = {"full_attention": False, "sliding_attention": True}


class ConfigError(ValueError):
    """A config (or URL form) that cannot describe a model.

    ``field``: the config key (or query key) at fault, e.g.
    ``"num_key_value_heads"``; ``code``: a stable machine key (see the
    module docstring); ``values``: what the message needs (``limit``,
    ``value``, ``line``...). ``str(err)`` is an English message for logs;
    the UI builds its own from ``code`` and ``values``.
    """

    def __init__(self, field: str, code: str, **values: Any) -> None:
        self.field = field
        self.code = code
        self.values = dict(values)
        detail = ", ".join(f"{k}={v!r}" for k, v in self.values.items())
        super().__init__(f"{field}: {code}" + (f" ({detail})" if detail else ""))


# --------------------------------------------------------------------------
# Result types
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class ParamCount:
    """Parameters counted from a config, by part (all layers together).

    ``experts``: every routed expert; ``active_experts``: the routed experts
    one token passes through; ``shared``: shared experts and routers (used
    by every token). ``total`` and ``active`` are the sums.
    """

    embedding: int
    lm_head: int
    attention: int
    dense_mlp: int
    experts: int
    active_experts: int
    shared: int
    norms: int

    @property
    def total(self) -> int:
        return (self.embedding + self.lm_head + self.attention + self.dense_mlp
                + self.experts + self.shared + self.norms)

    @property
    def active(self) -> int:
        return self.total - self.experts + self.active_experts


@dataclass(frozen=True)
class ParsedConfig:
    """What :func:`parse_config` found.

    ``preset``: the model as a :class:`ModelPreset` (key ``"custom"`` unless
    given). ``fields_read``: ``(path, value)`` of every config field used,
    in reading order (``text_config.num_hidden_layers`` for nested ones).
    ``defaults_used``: ``(field, value)`` of every value assumed because the
    config left it out. ``params``: the count derived from the config, or
    ``None`` when it could not be (then the preset's count is the override).
    ``params_source``: ``"config"`` or ``"override"``.
    """

    preset: ModelPreset
    fields_read: tuple[tuple[str, Any], ...]
    defaults_used: tuple[tuple[str, Any], ...]
    params: ParamCount | None
    params_source: str
    model_type: str | None = None

    def cache_inputs(self) -> Mapping[str, Any]:
        """Every input of the cache formula, for the UI's "computed from" list.

        ``values_per_layer`` is what one layer caches per token:
        ``2 x kv_heads x head_dim`` (K and V), or ``mla_dims`` for MLA.
        ``bytes_per_value`` follows the weights' dtype (None if unknown).
        """
        m = self.preset
        per_layer = m.mla_dims if m.is_mla else 2 * m.n_kv_heads * m.head_dim
        p = PRECISIONS.get(m.dtype) if m.dtype else None
        return MappingProxyType(
            dict(
                layers=m.n_layers,
                kv_heads=None if m.is_mla else m.n_kv_heads,
                head_dim=None if m.is_mla else m.head_dim,
                mla_dims=m.mla_dims,
                values_per_layer=per_layer,
                window=m.local_window,
                window_layers=m.n_window_layers,
                layer_windows=m.layer_windows,
                dtype=m.dtype,
                bytes_per_value=p.bytes_per_value if p else None,
                max_context=m.max_context,
            )
        )


# --------------------------------------------------------------------------
# Reading values
# --------------------------------------------------------------------------


def _short(value: Any) -> Any:
    """A value fit to put in an error (long strings and containers cut)."""
    if isinstance(value, str):
        return value[:40]
    if isinstance(value, (list, dict)):
        return type(value).__name__
    return value


def _check_int(name: str, value: Any, minimum: int, limit: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        code = "not_positive_int" if minimum >= 1 else "not_nonnegative_int"
        raise ConfigError(name, code, value=_short(value))
    if value < minimum:
        code = "not_positive_int" if minimum >= 1 else "not_nonnegative_int"
        raise ConfigError(name, code, value=value)
    if value > limit:
        raise ConfigError(name, "too_large", value=value, limit=limit)
    return value


class _Reader:
    """Looks fields up in ``text_config`` then the top level, recording each."""

    def __init__(self, top: dict, text: dict | None, model_type: str | None):
        self.layers = [("text_config.", text)] if text is not None else []
        self.layers.append(("", top))
        self.model_type = model_type
        self.read: dict[str, Any] = {}
        self.defaults: dict[str, Any] = {}

    def find(self, *names: str) -> tuple[str | None, Any]:
        """First present, non-null field among ``names``: (name, value)."""
        for name in names:
            for prefix, obj in self.layers:
                if name in obj and obj[name] is not None:
                    self.read[prefix + name] = obj[name]
                    return name, obj[name]
        return None, None

    def default(self, name: str) -> Any:
        """The model type's class default for ``name``, recorded, or None."""
        table = _TYPE_DEFAULTS.get(self.model_type or "", {})
        if name in table:
            self.defaults[name] = table[name]
            return table[name]
        return None

    def int(self, *names: str, kind: str, minimum: int = 1,
            required: bool = False, use_default: bool = True) -> int | None:
        name, value = self.find(*names)
        if name is None:
            value = self.default(names[0]) if use_default else None
            if value is None:
                if required:
                    raise ConfigError(names[0], "missing")
                return None
            name = names[0]
        return _check_int(name, value, minimum, LIMITS[kind])

    def flag(self, name: str, default: bool | None) -> bool | None:
        found, value = self.find(name)
        if found is None:
            if default is not None:
                self.defaults[name] = default
            return default
        if not isinstance(value, bool):
            raise ConfigError(name, "not_bool", value=_short(value))
        return value


def _load(text: Any) -> dict:
    """JSON text -> dict, or a ConfigError saying why not."""
    if not isinstance(text, str):
        raise ConfigError("config", "not_text", type=type(text).__name__)
    if len(text) > MAX_CONFIG_CHARS:
        raise ConfigError("config", "too_large", value=len(text),
                          limit=MAX_CONFIG_CHARS)
    body = text.lstrip("\ufeff \t\r\n")
    if not body:
        raise ConfigError("config", "missing")
    if body.startswith("<"):
        raise ConfigError("config", "markup")

    def pairs(items: list[tuple[str, Any]]) -> dict:
        out: dict = {}
        for k, v in items:
            if k in out:
                raise ConfigError(k[:40], "duplicate_key")
            out[k] = v
        return out

    def no_constant(name: str) -> Any:
        raise ValueError(f"{name} is not JSON")

    try:
        data = json.loads(body, object_pairs_hook=pairs, parse_constant=no_constant)
    except ConfigError:
        raise
    except json.JSONDecodeError as e:
        raise ConfigError("config", "not_json", line=e.lineno, column=e.colno) from None
    except (ValueError, RecursionError):  # NaN/Infinity, giant ints, deep nesting
        raise ConfigError("config", "not_json", line=None, column=None) from None
    if not isinstance(data, dict):
        raise ConfigError("config", "not_object", type=type(data).__name__)
    return data


def _model_type(top: dict, text: dict | None) -> str | None:
    for obj in (text, top):
        if obj is not None and obj.get("model_type") is not None:
            value = obj["model_type"]
            if not isinstance(value, str) or not _MODEL_TYPE_RE.match(value):
                raise ConfigError("model_type", "bad_value", value=_short(value))
            return value
    return None


# --------------------------------------------------------------------------
# Attention geometry and windows
# --------------------------------------------------------------------------


def _windows(r: _Reader, n_layers: int) -> tuple[int | None, ...] | None:
    """Per-layer windows (None = full attention), or None for no window at all."""
    mt = r.model_type or ""
    use = r.flag("use_sliding_window", False if mt in _QWEN_TYPES else None)
    if use is False:
        return None
    name, types = r.find("layer_types")
    flags: list[bool] | None = None
    if name is not None:
        if not isinstance(types, list):
            raise ConfigError("layer_types", "bad_value", value=_short(types))
        if len(types) != n_layers:
            raise ConfigError("layer_types", "layer_types_length",
                              value=len(types), layers=n_layers)
        flags = []
        for t in types:
            if not isinstance(t, str):
                raise ConfigError("layer_types", "bad_value", value=_short(t))
            if t not in _LAYER_TYPES:
                raise ConfigError("layer_types", "unsupported", value=t[:40])
            flags.append(_LAYER_TYPES[t])
        if not any(flags):
            return None
    window = r.int("sliding_window", kind="window")
    if window is None:
        if flags is not None:
            raise ConfigError("sliding_window", "missing")
        return None
    if flags is None:
        period = None
        if mt in _GEMMA3_TYPES or r.find("sliding_window_pattern")[0]:
            period = r.int("sliding_window_pattern", kind="layers")
        elif mt in _GEMMA2_TYPES:
            period = 2
        elif r.find("query_pre_attn_scalar")[0]:
            period = 2  # Gemma-2-like config without a model_type we know
            r.defaults["sliding_window_pattern"] = 2
        if period is not None:
            flags = [(i + 1) % period != 0 for i in range(n_layers)]
        elif use is True and (mt in _QWEN_TYPES or r.find("max_window_layers")[0]):
            first = r.int("max_window_layers", kind="layers", minimum=0,
                          required=True)
            flags = [i >= first for i in range(n_layers)]
        else:
            flags = [True] * n_layers
    if not any(flags):
        return None
    return tuple(window if f else None for f in flags)


@dataclass
class _Geometry:
    n_layers: int
    n_heads: int
    n_kv_heads: int
    head_dim: int
    hidden: int | None
    mla_dims: int | None = None
    mla: dict[str, int | None] = field(default_factory=dict)


def _geometry(r: _Reader) -> _Geometry:
    n_layers = r.int("num_hidden_layers", "n_layer", "num_layers",
                     kind="layers", required=True)
    n_heads = r.int("num_attention_heads", "n_head", "num_heads",
                    kind="heads", required=True)
    hidden = r.int("hidden_size", "n_embd", "d_model", kind="hidden")
    kv_lora = r.int("kv_lora_rank", kind="rank")
    if kv_lora is not None:  # MLA: a latent, not per-head K and V
        rope = r.int("qk_rope_head_dim", kind="head_dim", required=True)
        nope = r.int("qk_nope_head_dim", kind="head_dim")
        v_dim = r.int("v_head_dim", kind="head_dim")
        q_lora = r.int("q_lora_rank", kind="rank")
        head_dim = v_dim or nope
        if head_dim is None:
            head_dim = _head_dim_from_hidden(r, hidden, n_heads)
        return _Geometry(n_layers, n_heads, n_heads, head_dim, hidden,
                         mla_dims=kv_lora + rope,
                         mla=dict(kv_lora=kv_lora, rope=rope, nope=nope or head_dim,
                                  v=v_dim or head_dim, q_lora=q_lora))
    kv_name, _ = r.find("num_key_value_heads", "num_kv_heads")
    if kv_name is not None:
        n_kv = r.int(kv_name, kind="kv_heads")
    elif r.flag("multi_query", None):
        n_kv = 1
    else:
        n_kv = n_heads
        r.defaults["num_key_value_heads"] = n_heads
    if n_kv > n_heads or n_heads % n_kv:
        raise ConfigError(kv_name or "num_key_value_heads", "kv_heads_divide",
                          heads=n_heads, kv_heads=n_kv)
    head_dim = r.int("head_dim", kind="head_dim")
    if head_dim is None:
        head_dim = _head_dim_from_hidden(r, hidden, n_heads)
    return _Geometry(n_layers, n_heads, n_kv, head_dim, hidden)


def _head_dim_from_hidden(r: _Reader, hidden: int | None, n_heads: int) -> int:
    if hidden is None:
        raise ConfigError("hidden_size", "missing")
    if hidden % n_heads:
        raise ConfigError("hidden_size", "hidden_divide", hidden=hidden, heads=n_heads)
    return hidden // n_heads


# --------------------------------------------------------------------------
# Parameter count
# --------------------------------------------------------------------------


def _params(r: _Reader, g: _Geometry) -> ParamCount:
    """Count the parameters (see the module docstring), or ConfigError params_needed."""
    mt = r.model_type or ""
    if mt in GATED_MLP_EXCLUDED:
        raise ConfigError("n_params", "params_needed", model_type=mt,
                          reason="mlp_not_gated")
    d = g.hidden
    if d is None:
        raise ConfigError("n_params", "params_needed", missing="hidden_size")
    vocab = r.int("vocab_size", "padded_vocab_size", kind="vocab")
    if vocab is None:
        raise ConfigError("n_params", "params_needed", missing="vocab_size")
    tied = r.flag("tie_word_embeddings", mt in _TIED_BY_DEFAULT)
    L, H, K, h = g.n_layers, g.n_heads, g.n_kv_heads, g.head_dim

    if g.mla_dims is not None:
        m = g.mla
        qk = m["nope"] + m["rope"]
        if m["q_lora"]:
            q = d * m["q_lora"] + m["q_lora"] + m["q_lora"] * H * qk
        else:
            q = d * H * qk
        kv = (d * (m["kv_lora"] + m["rope"]) + m["kv_lora"]
              + m["kv_lora"] * H * (m["nope"] + m["v"]))
        attn = q + kv + H * m["v"] * d
    else:
        attn = d * H * h + 2 * d * K * h + H * h * d
        bias = r.flag("attention_bias", None)
        if bias or mt in _QKV_BIAS_TYPES:
            attn += (H + 2 * K) * h  # q, k, v biases (Qwen2 always has them)
        if bias:
            attn += d  # and the o_proj bias
        if mt in _QK_NORM_TYPES:
            attn += 2 * h

    n_experts = r.int("num_local_experts", "num_experts", "n_routed_experts",
                      kind="experts")
    inter = r.int("intermediate_size", kind="intermediate")
    mlp_bias = bool(r.flag("mlp_bias", None))

    def dense(width: int) -> int:
        return 3 * d * width + ((2 * width + d) if mlp_bias else 0)

    experts = active_experts = shared = 0
    if n_experts is None:
        if inter is None:
            raise ConfigError("n_params", "params_needed", missing="intermediate_size")
        dense_mlp = L * dense(inter)
    else:
        k = r.int("num_experts_per_tok", "num_experts_per_token",
                  "experts_per_token", kind="experts", required=True)
        if k > n_experts:
            raise ConfigError("num_experts_per_tok", "experts_range",
                              experts=n_experts, per_token=k)
        step_name, step = r.find("decoder_sparse_step")
        only_name, only = r.find("mlp_only_layers")
        if (step_name and step != 1) or (only_name and only):
            raise ConfigError("n_params", "params_needed",
                              reason="irregular_moe_layers")
        width = r.int("moe_intermediate_size", kind="intermediate") or inter
        if width is None:
            raise ConfigError("n_params", "params_needed",
                              missing="moe_intermediate_size")
        n_dense = r.int("first_k_dense_replace", kind="layers", minimum=0) or 0
        n_dense = min(n_dense, L)
        if n_dense and inter is None:
            raise ConfigError("n_params", "params_needed", missing="intermediate_size")
        moe_layers = L - n_dense
        dense_mlp = n_dense * dense(inter) if n_dense else 0
        per_expert = 3 * d * width
        experts = moe_layers * n_experts * per_expert
        active_experts = moe_layers * k * per_expert
        n_shared = r.int("n_shared_experts", kind="experts", minimum=0) or 0
        shared_width = r.int("shared_expert_intermediate_size", kind="intermediate")
        per_layer_shared = d * n_experts  # router
        per_layer_shared += n_shared * per_expert
        if shared_width:
            per_layer_shared += 3 * d * shared_width + d  # Qwen-MoE: + its gate
        shared = moe_layers * per_layer_shared

    norms_per_layer = (4 if mt in _FOUR_NORM_TYPES else 2) * d
    return ParamCount(
        embedding=vocab * d,
        lm_head=0 if tied else vocab * d,
        attention=L * attn,
        dense_mlp=dense_mlp,
        experts=experts,
        active_experts=active_experts,
        shared=shared,
        norms=L * norms_per_layer + d,
    )


def _check_count(name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ConfigError(name, "not_positive_number", value=_short(value))
    if not math.isfinite(value) or value <= 0:
        raise ConfigError(name, "not_positive_number", value=value)
    if value > MAX_PARAMS:
        raise ConfigError(name, "too_large", value=value, limit=MAX_PARAMS)
    return float(value)


# --------------------------------------------------------------------------
# Public API
# --------------------------------------------------------------------------


def parse_config(
    text: str,
    n_params: float | None = None,
    n_active_params: float | None = None,
    *,
    key: str = "custom",
    name: str = "Your model",
) -> ParsedConfig:
    """Read the text of a Hugging Face ``config.json`` into a :class:`ParsedConfig`.

    ``n_params`` / ``n_active_params`` override the parameter count (needed
    when the config does not allow one, e.g. OPT or Falcon); without them
    the count comes from the config (:class:`ParamCount`). Raises
    :class:`ConfigError` for anything that does not describe a decoder.
    """
    top = _load(text)
    text_cfg = top.get("text_config")
    if text_cfg is not None and not isinstance(text_cfg, dict):
        raise ConfigError("text_config", "not_object", type=type(text_cfg).__name__)
    mt = _model_type(top, text_cfg)
    r = _Reader(top, text_cfg, mt)
    if mt is not None:
        nested = text_cfg is not None and text_cfg.get("model_type") is not None
        r.read[("text_config." if nested else "") + "model_type"] = mt

    g = _geometry(r)
    windows = _windows(r, g.n_layers)
    max_ctx = r.int("max_position_embeddings", "n_positions",
                    "max_sequence_length", "seq_length", kind="context")
    dtype_name, dtype_raw = r.find("torch_dtype", "dtype")
    dtype = None
    if dtype_name is not None:
        if not isinstance(dtype_raw, str) or dtype_raw.lower() not in DTYPES:
            raise ConfigError(dtype_name, "bad_dtype", value=_short(dtype_raw))
        dtype = DTYPES[dtype_raw.lower()]

    total_override = None if n_params is None else _check_count("n_params", n_params)
    active_override = (None if n_active_params is None
                       else _check_count("n_active_params", n_active_params))
    try:
        count = _params(r, g)
    except ConfigError as e:
        if total_override is None or e.code != "params_needed":
            raise
        count = None
    total = total_override if total_override is not None else float(count.total)
    if active_override is not None:
        active: float | None = active_override
    elif count is not None and total_override is None and count.active < count.total:
        active = float(count.active)
    else:
        active = None
    if active is not None and active > total:
        raise ConfigError("n_active_params", "active_exceeds_total",
                          active=active, total=total)

    n_experts = k = None
    if r.find("num_local_experts", "num_experts", "n_routed_experts")[0]:
        n_experts = r.int("num_local_experts", "num_experts", "n_routed_experts",
                          kind="experts")
        k = r.int("num_experts_per_tok", "num_experts_per_token",
                  "experts_per_token", kind="experts", required=True)
        if k > n_experts:
            raise ConfigError("num_experts_per_tok", "experts_range",
                              experts=n_experts, per_token=k)

    src = "config.json" + (f" (model_type {mt})" if mt else "")
    try:
        preset = ModelPreset(
            key=key, name=name, n_layers=g.n_layers, n_heads=g.n_heads,
            n_kv_heads=g.n_kv_heads, head_dim=g.head_dim, n_params=total,
            mla_dims=g.mla_dims, hidden=g.hidden, n_active_params=active,
            source=src, max_context=max_ctx, layer_windows=windows,
            dtype=dtype, n_experts=n_experts, experts_per_token=k,
        )
    except ValueError as e:  # should not happen: everything was checked above
        raise ConfigError("config", "bad_value", detail=str(e)[:200]) from None
    return ParsedConfig(
        preset=preset,
        fields_read=tuple(r.read.items()),
        defaults_used=tuple(r.defaults.items()),
        params=count,
        params_source="config" if total_override is None else "override",
        model_type=mt,
    )


# --------------------------------------------------------------------------
# URL form
# --------------------------------------------------------------------------

QUERY_KEYS = ("layers", "heads", "kv", "hd", "mla", "win", "pat", "moe",
              "dtype", "ctx", "params", "active")
"""Keys :func:`to_query` writes and :func:`from_query` reads (others are ignored)."""

_MAX_PERIOD = 16
_INT_RE = re.compile(r"^[0-9]{1,12}$")
_NUM_RE = re.compile(r"^[0-9]{1,16}(\.[0-9]{1,16})?([eE]\+?[0-9]{1,2})?$")
_PERIODIC_RE = re.compile(r"^[LG]{1,%d}$" % _MAX_PERIOD)
_RUNS_RE = re.compile(r"^(?:[LG][0-9]{1,6}){1,64}$")
_RUN_RE = re.compile(r"([LG])([0-9]{1,6})")
_MOE_RE = re.compile(r"^([0-9]{1,6}):([0-9]{1,6})$")
_MAX_QUERY_VALUE = 200


def _number_text(x: float) -> str:
    """A parameter count as short exact text: 6738000000, or 1.5e+20 style."""
    if float(x).is_integer() and abs(x) < 1e16:
        return str(int(x))
    return repr(float(x))


def _pattern_text(flags: list[bool]) -> str:
    """'L'/'G' per layer: the shortest period (<= 16) if periodic, else runs."""
    letters = "".join("L" if f else "G" for f in flags)
    for p in range(1, _MAX_PERIOD + 1):
        if all(letters[i] == letters[i % p] for i in range(len(letters))):
            return letters[:p]
    runs = []
    for m in re.finditer(r"L+|G+", letters):
        runs.append(f"{m.group()[0]}{len(m.group())}")
    return "".join(runs)


def to_query(preset: ModelPreset) -> dict[str, str]:
    """The preset's cache-relevant numbers as short URL keys (all strings).

    ``layers heads kv hd``: geometry; ``mla``: values per layer for MLA;
    ``win``: the sliding window; ``pat``: which layers use it, as one
    period of ``L`` (local) / ``G`` (global) letters repeated over the
    layers (Gemma 3: ``LLLLLG``), or as runs (Qwen's max_window_layers 28 of
    36: ``G28L8``); no ``pat`` means every layer. ``moe``: ``experts:per
    token``; ``dtype``; ``ctx``: maximum context; ``params`` / ``active``:
    parameter counts.
    """
    m = preset
    q = dict(layers=str(m.n_layers), heads=str(m.n_heads),
             kv=str(m.n_kv_heads), hd=str(m.head_dim))
    if m.mla_dims is not None:
        q["mla"] = str(m.mla_dims)
    spans = {w for w in m.windows if w is not None}
    if len(spans) > 1:
        raise ConfigError("win", "not_encodable", windows=len(spans))
    if spans:
        q["win"] = str(spans.pop())
        if m.layer_windows is not None:
            q["pat"] = _pattern_text([w is not None for w in m.windows])
    if m.n_experts is not None:
        q["moe"] = f"{m.n_experts}:{m.experts_per_token}"
    if m.dtype is not None:
        q["dtype"] = m.dtype
    if m.max_context is not None:
        q["ctx"] = str(m.max_context)
    q["params"] = _number_text(m.n_params)
    if m.n_active_params:
        q["active"] = _number_text(m.n_active_params)
    return q


def _query_text(q: Mapping[str, Any], name: str) -> str | None:
    value = q.get(name)
    if value is None:
        return None
    if not isinstance(value, str):
        raise ConfigError(name, "not_text", type=type(value).__name__)
    if len(value) > _MAX_QUERY_VALUE:
        raise ConfigError(name, "too_large", value=len(value), limit=_MAX_QUERY_VALUE)
    return value


def _query_int(q: Mapping[str, Any], name: str, kind: str,
               required: bool = False) -> int | None:
    value = _query_text(q, name)
    if value is None:
        if required:
            raise ConfigError(name, "missing")
        return None
    if not _INT_RE.match(value):
        raise ConfigError(name, "not_positive_int", value=value[:40])
    return _check_int(name, int(value), 1, LIMITS[kind])


def _query_number(q: Mapping[str, Any], name: str) -> float | None:
    value = _query_text(q, name)
    if value is None:
        return None
    if not _NUM_RE.match(value):
        raise ConfigError(name, "not_positive_number", value=value[:40])
    return _check_count(name, float(value))


def _query_pattern(text: str, n_layers: int) -> list[bool]:
    if _PERIODIC_RE.match(text):
        return [text[i % len(text)] == "L" for i in range(n_layers)]
    if _RUNS_RE.match(text):
        flags: list[bool] = []
        for letter, count in _RUN_RE.findall(text):
            flags.extend([letter == "L"] * int(count))
        if len(flags) != n_layers:
            raise ConfigError("pat", "layer_types_length", value=len(flags),
                              layers=n_layers)
        return flags
    raise ConfigError("pat", "bad_value", value=text[:40])


def from_query(
    q: Mapping[str, Any], *, key: str = "custom", name: str = "Your model"
) -> ModelPreset:
    """Read back what :func:`to_query` wrote, with the same checks as a config.

    Keys outside :data:`QUERY_KEYS` are ignored (the URL carries others).
    Raises :class:`ConfigError` whose ``field`` is the query key at fault.
    """
    if not isinstance(q, Mapping):
        raise ConfigError("query", "not_object", type=type(q).__name__)
    layers = _query_int(q, "layers", "layers", required=True)
    heads = _query_int(q, "heads", "heads", required=True)
    head_dim = _query_int(q, "hd", "head_dim", required=True)
    mla = _query_int(q, "mla", "rank")
    kv = _query_int(q, "kv", "kv_heads")
    if kv is None:
        kv = heads
    if kv > heads or heads % kv:
        raise ConfigError("kv", "kv_heads_divide", heads=heads, kv_heads=kv)
    window = _query_int(q, "win", "window")
    pat = _query_text(q, "pat")
    layer_windows = None
    if pat is not None:
        if window is None:
            raise ConfigError("win", "missing")
        flags = _query_pattern(pat, layers)
        layer_windows = tuple(window if f else None for f in flags)
        window = None
    n_experts = per_token = None
    moe = _query_text(q, "moe")
    if moe is not None:
        match = _MOE_RE.match(moe)
        if not match:
            raise ConfigError("moe", "bad_value", value=moe[:40])
        n_experts = _check_int("moe", int(match.group(1)), 1, LIMITS["experts"])
        per_token = _check_int("moe", int(match.group(2)), 1, LIMITS["experts"])
        if per_token > n_experts:
            raise ConfigError("moe", "experts_range", experts=n_experts,
                              per_token=per_token)
    dtype = _query_text(q, "dtype")
    if dtype is not None and dtype not in PRECISIONS:
        raise ConfigError("dtype", "bad_dtype", value=dtype[:40])
    ctx = _query_int(q, "ctx", "context")
    params = _query_number(q, "params")
    if params is None:
        raise ConfigError("params", "missing")
    active = _query_number(q, "active")
    if active is not None and active > params:
        raise ConfigError("active", "active_exceeds_total", active=active,
                          total=params)
    try:
        return ModelPreset(
            key=key, name=name, n_layers=layers, n_heads=heads, n_kv_heads=kv,
            head_dim=head_dim, n_params=params, window=window, mla_dims=mla,
            n_active_params=active, source="link", max_context=ctx,
            layer_windows=layer_windows, dtype=dtype, n_experts=n_experts,
            experts_per_token=per_token,
        )
    except ValueError as e:
        raise ConfigError("query", "bad_value", detail=str(e)[:200]) from None
