"""Presets as data: model configs, GPUs, cache precisions and the default
slider settings of each step.

This module is the single source of truth for every number the cost model
(:mod:`explainer.costs`) works from. It holds data only, no formulas beyond
trivial derived properties, and no UI code.

Models: ``MODELS`` is the original list the steps show; ``RECENT_MODELS``
holds current models (Llama 3.x, Qwen2.5/3, Gemma 2/3, Mistral NeMo,
Mixtral); ``ALL_MODELS`` has both. Every preset carries its maximum context.

Units
-----
Bytes are plain ``int``/``float`` counts of bytes. Decimal and binary
multiples are both exported so that every figure can say which one it uses:
``GB = 10**9`` (what the seed's "13.5 GB" and "68.7 GB" mean) and
``GiB = 2**30`` (what "512 KiB per token" and "2 GiB" mean).
Bandwidth is in bytes per second, compute in FLOP per second.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import Mapping

# --------------------------------------------------------------------------
# Units
# --------------------------------------------------------------------------

KB = 10**3
MB = 10**6
GB = 10**9
TB = 10**12

KiB = 2**10
MiB = 2**20
GiB = 2**30

TFLOPS = 1e12  # FLOP/s
TB_PER_S = 1e12  # bytes/s


# --------------------------------------------------------------------------
# Models
# --------------------------------------------------------------------------

LAYER_KINDS = ("full", "sliding", "chunked", "mla", "cross", "shared", "state", "none")
"""What one decoder layer keeps, as :class:`LayerSpec` ``kind``:

- ``full``: self-attention over every earlier token: K and V of all of them;
- ``sliding``: a sliding window of ``span`` W tokens: at most the last W;
- ``chunked``: attention inside fixed chunks of ``span`` C tokens (Llama 4's
  ``attention_chunk_size``): a token sees only the earlier tokens of its own
  chunk, so the layer keeps at most C tokens; counted as ``min(context, C)``,
  what an engine reserves (the chunk being filled; the exact count, context
  minus the start of the current chunk, is never more);
- ``mla``: multi-head latent attention: a compressed latent + rotary key;
- ``cross``: cross-attention to another input (Llama 3.2 Vision's image
  layers): its K/V come from the image, not the text, and do not grow with it;
- ``shared``: reads another layer's K/V (``num_kv_shared_layers``): no cache;
- ``state``: a recurrent layer (Mamba/SSM, linear attention) keeping a
  fixed-size state, ``fixed_values`` values whatever the context;
- ``none``: no attention and no state (an MLP-only block).
"""

KV_KINDS = frozenset({"full", "sliding", "chunked"})
"""Kinds that cache K and V per token (2 x KV heads x head_dim values)."""

BOUNDED_KINDS = frozenset({"sliding", "chunked"})
"""Kinds whose per-token cache is capped at ``span`` tokens."""


@dataclass(frozen=True)
class LayerSpec:
    """What one layer caches (see :data:`LAYER_KINDS`).

    ``span``: W for ``sliding``, C for ``chunked``, None otherwise.
    ``values_per_token``: values cached per token in this layer (``2 x
    kv_heads x head_dim`` for K/V layers, ``kv_lora_rank + qk_rope_head_dim``
    for MLA, 0 for cross/shared/state/none). ``fixed_values``: values held
    whatever the context (a recurrent state), 0 if none or not sized.
    """

    kind: str
    span: int | None = None
    values_per_token: int = 0
    fixed_values: int = 0

    def __post_init__(self) -> None:
        if self.kind not in LAYER_KINDS:
            raise ValueError(f"unknown layer kind {self.kind!r}")
        for name in ("values_per_token", "fixed_values"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or v < 0:
                raise ValueError(f"{name} must be an integer >= 0, got {v!r}")
        if self.kind in BOUNDED_KINDS:
            if isinstance(self.span, bool) or not isinstance(self.span, int) or self.span < 1:
                raise ValueError(f"a {self.kind} layer needs a span >= 1, got {self.span!r}")
        elif self.span is not None:
            raise ValueError(f"a {self.kind} layer has no span")
        caches = self.kind in KV_KINDS or self.kind == "mla"
        if caches and self.values_per_token < 1:
            raise ValueError(f"a {self.kind} layer caches values per token")
        if not caches and self.values_per_token:
            raise ValueError(f"a {self.kind} layer caches nothing per token")
        if self.fixed_values and self.kind != "state":
            raise ValueError("only a state layer holds fixed values")

    @property
    def grows(self) -> bool:
        """True when the layer caches something per token."""
        return self.values_per_token > 0

    def kept(self, tokens: int) -> int:
        """Tokens this layer keeps at a context of ``tokens``."""
        if not self.grows:
            return 0
        return tokens if self.span is None else min(tokens, self.span)



@dataclass(frozen=True)
class ModelPreset:
    """Architecture numbers of a decoder-only model that matter for its cache.

    ``n_kv_heads`` is the number of key/value heads actually cached
    (``num_key_value_heads`` in a Hugging Face ``config.json``); it equals
    ``n_heads`` for multi-head attention (MHA), is smaller for grouped-query
    attention (GQA) and is 1 for multi-query attention (MQA).

    ``head_dim`` is the width of one head. A config's explicit ``head_dim``
    wins over ``hidden_size / num_attention_heads``: the two can differ
    (Gemma 2 9B: 256, not 3,584 / 16 = 224; Mistral NeMo and Qwen3-32B: 128,
    not 160 and 80), though they need not (Qwen3-8B: 4,096 / 32 = 128).

    ``hidden`` is the model width (``hidden_size``). It defaults to
    ``n_heads * head_dim``. It is given for reference only: the cache size
    never depends on it (using it instead of ``n_kv_heads * head_dim`` is
    the classic mistake that overstates the cache of every GQA/MQA model).

    ``window``: sliding-window attention span in tokens that applies to
    *every* layer (Mistral 7B v0.1: 4,096), or ``None`` for full attention.

    ``layer_windows``: per-layer spans for models that mix local and global
    layers (Gemma 2: every other layer has a 4,096-token window; Gemma 3:
    five local 1,024-token layers for each global one). One entry per layer,
    ``None`` for a full-attention layer. ``None`` (the default) means every
    layer uses ``window``. A pattern whose layers all have the same span is
    folded into ``window`` on construction, so each model has one spelling;
    ``window`` and ``layer_windows`` cannot both be given.

    ``mla_dims``: for multi-head latent attention (DeepSeek-V2/V3), the number
    of values cached per layer per token: the compressed KV latent
    (``kv_lora_rank`` = 512) plus the decoupled rotary key shared by all heads
    (``qk_rope_head_dim`` = 64), so 576, with no factor 2 for K and V. The
    rotary key is stored as is; keys and values without position come from
    the latent (optimised kernels never build them: the up-projections are
    folded into the query and output projections and attention runs on the
    latent itself).

    ``n_active_params``: parameters used per token for mixture-of-experts
    models (DeepSeek-V3: 37 B of 671 B); ``None`` means all of ``n_params``.
    ``n_experts`` / ``experts_per_token``: routed experts per MoE layer and
    how many each token uses (Mixtral 8x7B: 8 and 2); ``None`` for dense
    models.

    ``max_context``: the longest sequence the model was built for, or
    ``None`` when unknown: ``max_position_embeddings``, unless the model's
    paper or card gives a shorter trained context (Mistral 7B v0.1: its
    config allows 32,768 positions, but it was trained at 8,192, Jiang et al.
    2023, Table 1). Cache sizes past it describe sequences the model was not
    built for. A pasted config gives what its fields allow
    (``max_position_embeddings``, or a larger ``model_max_length``).

    ``dtype``: precision key (``"bf16"``, ``"fp16"``, ``"fp32"``, ``"fp8"``)
    of the released weights (``torch_dtype``, or fp8 from
    ``quantization_config``), for information; :attr:`weight_format` says
    how the cost model counts them.

    ``weight_nbytes``: bytes of the weights as released, when a config's
    ``quantization_config`` says they are not 16-bit (DeepSeek-V3 in fp8,
    gpt-oss's MXFP4 experts); ``None`` means ``n_params x
    WEIGHT_BYTES_PER_PARAM`` (the cost model's default).

    ``layers``: one :class:`LayerSpec` per layer, the layout the cache is
    summed over (:func:`explainer.costs.layer_map`). Left out, it is derived
    from the fields above: an ``"mla"`` layer of ``mla_dims`` values for an
    MLA model, else a ``"sliding"`` layer of span W where ``window`` /
    ``layer_windows`` give one and a ``"full"`` layer otherwise, each of
    ``2 x n_kv_heads x head_dim`` values. Given (a config with chunked,
    cross-attention, shared or state layers), it must agree with the fields
    above: every K/V layer caches ``2 x n_kv_heads x head_dim`` values, every
    MLA layer ``mla_dims``; ``layer_windows`` is then derived from it (the
    span of each sliding and chunked layer, ``None`` for every other), so
    code that reads ``windows`` sees chunks as windows of their size.

    ``embed_params``: parameters of the token embedding and the output head
    (``vocab_size x hidden_size``, twice when ``tie_word_embeddings`` is false),
    the weights a serving engine keeps at 16 bits when it quantizes the rest
    (:func:`explainer.costs.quantized_weight_bytes`); None when unknown.

    ``multimodal``: the config described a multimodal model whose
    ``n_params`` count only the language model (Gemma 3, Llama 4, Mistral
    Small 3.1): the text can say so.
    """

    key: str
    name: str
    n_layers: int
    n_heads: int
    n_kv_heads: int
    head_dim: int
    n_params: float
    window: int | None = None
    mla_dims: int | None = None
    hidden: int | None = None
    n_active_params: float | None = None
    source: str = ""
    max_context: int | None = None
    layer_windows: tuple[int | None, ...] | None = None
    dtype: str | None = None
    n_experts: int | None = None
    experts_per_token: int | None = None
    layers: tuple[LayerSpec, ...] | None = None
    weight_nbytes: float | None = None
    multimodal: bool = False
    embed_params: float | None = None

    def __post_init__(self) -> None:
        if self.hidden is None:
            object.__setattr__(self, "hidden", self.n_heads * self.head_dim)
        if self.layers is not None:
            self._check_layers()
        if self.n_kv_heads < 1 or self.n_heads % self.n_kv_heads:
            raise ValueError(
                f"{self.key}: n_kv_heads ({self.n_kv_heads}) must divide "
                f"n_heads ({self.n_heads})"
            )
        if self.layer_windows is not None:
            spans = tuple(self.layer_windows)
            if len(spans) != self.n_layers:
                raise ValueError(
                    f"{self.key}: layer_windows has {len(spans)} entries for "
                    f"{self.n_layers} layers"
                )
            for w in spans:
                if w is not None and (
                    isinstance(w, bool) or not isinstance(w, int) or w < 1
                ):
                    raise ValueError(
                        f"{self.key}: layer window {w!r} must be None or an "
                        "integer >= 1"
                    )
            if self.window is not None:
                raise ValueError(
                    f"{self.key}: give either window (all layers) or "
                    "layer_windows (per layer), not both"
                )
            if len(set(spans)) == 1:  # one span for all layers: canonical form
                object.__setattr__(self, "window", spans[0])
                spans = None
            object.__setattr__(self, "layer_windows", spans)
        if (self.n_experts is None) != (self.experts_per_token is None):
            raise ValueError(
                f"{self.key}: n_experts and experts_per_token go together"
            )
        if self.n_experts is not None and not (
            1 <= self.experts_per_token <= self.n_experts
        ):
            raise ValueError(
                f"{self.key}: experts_per_token ({self.experts_per_token}) must "
                f"be between 1 and n_experts ({self.n_experts})"
            )
        if self.weight_nbytes is not None and not (
            isinstance(self.weight_nbytes, (int, float)) and self.weight_nbytes > 0
        ):
            raise ValueError(f"{self.key}: weight_nbytes must be a positive number")
        if self.embed_params is not None and not (
            isinstance(self.embed_params, (int, float))
            and not isinstance(self.embed_params, bool)
            and 0 < self.embed_params < self.n_params
        ):
            raise ValueError(f"{self.key}: embed_params must be a number in (0, n_params)")
        if self.layers is None:
            object.__setattr__(self, "layers", self._derived_layers())

    def _derived_layers(self) -> tuple[LayerSpec, ...]:
        """The layout of a preset given by window / layer_windows / mla_dims."""
        if self.mla_dims is not None:
            return (LayerSpec("mla", values_per_token=self.mla_dims),) * self.n_layers
        kv = 2 * self.n_kv_heads * self.head_dim
        return tuple(
            LayerSpec("full", values_per_token=kv) if w is None
            else LayerSpec("sliding", span=w, values_per_token=kv)
            for w in self.windows
        )

    def _check_layers(self) -> None:
        """Validate given ``layers`` against the geometry; derive the windows from it."""
        layers = tuple(self.layers)
        if len(layers) != self.n_layers:
            raise ValueError(
                f"{self.key}: {len(layers)} layer specs for {self.n_layers} layers"
            )
        kv = 2 * self.n_kv_heads * self.head_dim
        for spec in layers:
            if not isinstance(spec, LayerSpec):
                raise ValueError(f"{self.key}: layers must be LayerSpec, got {spec!r}")
            if spec.kind in KV_KINDS and spec.values_per_token != kv:
                raise ValueError(
                    f"{self.key}: a {spec.kind} layer caches {spec.values_per_token} "
                    f"values per token, not 2 x {self.n_kv_heads} x {self.head_dim}"
                )
            if spec.kind == "mla" and spec.values_per_token != self.mla_dims:
                raise ValueError(
                    f"{self.key}: an mla layer caches {spec.values_per_token} values "
                    f"per token, not mla_dims ({self.mla_dims})"
                )
        spans = tuple(s.span if s.kind in BOUNDED_KINDS else None for s in layers)
        if self.window is not None or self.layer_windows is not None:
            own = (tuple(self.layer_windows) if self.layer_windows is not None
                   else (self.window,) * self.n_layers)
            if own != spans:
                raise ValueError(
                    f"{self.key}: window / layer_windows disagree with layers"
                )
        object.__setattr__(self, "layers", layers)
        object.__setattr__(self, "window", None)
        object.__setattr__(self, "layer_windows",
                           None if all(w is None for w in spans) else spans)

    @property
    def weight_format(self) -> str:
        """How the cost model counts the weights (:func:`explainer.costs.weight_bytes`).

        ``"16-bit"``: 2 bytes per parameter, fp16 or bf16 (no
        ``weight_nbytes``); ``"fp8"``: the fp8 weights as released
        (``weight_nbytes`` with ``dtype`` fp8: DeepSeek-V3); ``"quantized"``:
        ``weight_nbytes`` of another quantization (gpt-oss's MXFP4 experts,
        GPTQ/AWQ, or a link that carries only the bytes).
        """
        if self.weight_nbytes is None:
            return "16-bit"
        return "fp8" if self.dtype == "fp8" else "quantized"

    @property
    def is_mla(self) -> bool:
        """True when the model caches a compressed latent (MLA), not K and V."""
        return self.mla_dims is not None

    @property
    def attention_kind(self) -> str:
        """``"MLA"``, ``"MHA"``, ``"MQA"`` or ``"GQA"`` (a label key, not prose)."""
        if self.is_mla:
            return "MLA"
        if self.n_kv_heads == self.n_heads:
            return "MHA"
        if self.n_kv_heads == 1:
            return "MQA"
        return "GQA"

    @property
    def params_per_token(self) -> float:
        """Parameters that take part in one token's forward pass."""
        return self.n_active_params if self.n_active_params else self.n_params

    @property
    def is_moe(self) -> bool:
        """True for a mixture-of-experts model (fewer active than total params)."""
        return bool(self.n_active_params) and self.n_active_params < self.n_params

    @property
    def windows(self) -> tuple[int | None, ...]:
        """The attention span of every layer (``None`` = full attention)."""
        if self.layer_windows is not None:
            return self.layer_windows
        return (self.window,) * self.n_layers

    @property
    def cache_window(self) -> int | tuple[int | None, ...] | None:
        """What to pass as ``window=`` to the cost functions for this model's own cache.

        ``window`` for a model whose layers all share one span (or ``None``),
        else the per-layer tuple ``layer_windows``.
        """
        return self.layer_windows if self.layer_windows is not None else self.window

    @property
    def local_window(self) -> int | None:
        """The span of the windowed layers (the largest, if they differ), or None."""
        spans = [w for w in self.windows if w is not None]
        return max(spans) if spans else None

    @property
    def n_window_layers(self) -> int:
        """How many layers use a sliding window."""
        return sum(w is not None for w in self.windows)


def alternating_windows(
    n_layers: int, window: int, period: int
) -> tuple[int | None, ...]:
    """Per-layer spans of an interleaved local/global model.

    Layer ``i`` (0-based) is global (``None``) when ``(i + 1) % period == 0``
    and has the sliding ``window`` otherwise: period 2 is Gemma 2 (layers 0,
    2, 4, ... local), period 6 is Gemma 3 (five local layers, then one
    global). This is the rule of transformers' Gemma 2/3 configs when they
    carry no explicit ``layer_types`` list.
    """
    return tuple(
        None if (i + 1) % period == 0 else window for i in range(n_layers)
    )


_HF = "config.json of "

MODELS: Mapping[str, ModelPreset] = MappingProxyType(
    {
        m.key: m
        for m in (
            ModelPreset(
                "llama2-7b", "Llama 2 7B", 32, 32, 32, 128, 6.738e9,
                max_context=4096, source=_HF + "meta-llama/Llama-2-7b-hf",
                embed_params=32_000 * 4_096 * 2,  # vocab x hidden: embedding, lm_head
            ),
            ModelPreset(
                "llama2-13b", "Llama 2 13B", 40, 40, 40, 128, 13.016e9,
                max_context=4096, source=_HF + "meta-llama/Llama-2-13b-hf",
                embed_params=32_000 * 5_120 * 2,  # vocab x hidden: embedding, lm_head
            ),
            ModelPreset(
                "llama2-70b", "Llama 2 70B", 80, 64, 8, 128, 68.977e9,
                max_context=4096, source=_HF + "meta-llama/Llama-2-70b-hf",
                embed_params=32_000 * 8_192 * 2,  # vocab x hidden: embedding, lm_head
            ),
            # Llama 3 8B has the same attention config as Llama 3.1 8B
            # (32 layers, 8 KV heads, head_dim 128: 128 KiB/token in fp16),
            # so no separate entry is needed.
            ModelPreset(
                "llama3.1-8b", "Llama 3.1 8B", 32, 32, 8, 128, 8.030e9,
                max_context=131072, source=_HF + "meta-llama/Llama-3.1-8B",
                embed_params=128_256 * 4_096 * 2,  # vocab x hidden: embedding, lm_head
            ),
            ModelPreset(
                "llama3.1-70b", "Llama 3.1 70B", 80, 64, 8, 128, 70.554e9,
                max_context=131072, source=_HF + "meta-llama/Llama-3.1-70B",
                embed_params=128_256 * 8_192 * 2,  # vocab x hidden: embedding, lm_head
            ),
            ModelPreset(
                # Trained at 8,192 tokens (Jiang et al. 2023, Table 1:
                # context_len 8192); its config's max_position_embeddings is
                # 32,768, positions it was never trained on.
                "mistral-7b", "Mistral 7B v0.1", 32, 32, 8, 128, 7.242e9,
                window=4096, max_context=8192,
                source=_HF + "mistralai/Mistral-7B-v0.1 (sliding_window 4096); "
                "context 8,192: Mistral 7B paper, Table 1",
                embed_params=32_000 * 4_096 * 2,  # vocab x hidden: embedding, lm_head
            ),
            ModelPreset(
                "opt-13b", "OPT-13B", 40, 40, 40, 128, 12.853e9,
                max_context=2048, source=_HF + "facebook/opt-13b",
                embed_params=50_272 * 5_120,  # vocab x hidden, tied
            ),
            ModelPreset(
                "qwen2.5-7b", "Qwen2.5 7B", 28, 28, 4, 128, 7.616e9,
                max_context=131072, source=_HF + "Qwen/Qwen2.5-7B",
                embed_params=152_064 * 3_584 * 2,  # vocab x hidden: embedding, lm_head
            ),
            ModelPreset(
                "falcon-7b", "Falcon 7B", 32, 71, 1, 64, 6.922e9,
                max_context=2048,
                source=_HF + "tiiuae/falcon-7b (multi_query: one KV head)",
                embed_params=65_024 * 4_544,  # vocab x hidden, tied
            ),
            ModelPreset(
                # 128 heads of 128 (value/no-RoPE dims); what is cached is
                # the kv_lora_rank 512 latent + qk_rope_head_dim 64 per layer.
                # MoE: 256 routed experts, 8 per token (+1 shared, counted in
                # the always-active part). Weights released in FP8 (config
                # quantization_config), although torch_dtype says bfloat16:
                # every linear layer 1 byte per parameter, the embedding and
                # lm_head (2 x 129,280 x 7,168 = 1,853,358,080) and the norms
                # (881,664) 2 bytes, so 671e9 + 1,854,239,744 bytes (the
                # config read by explainer.hfconfig: 672.88 GB; the 128 x 128
                # block scales, 0.02 %, and the multi-token-prediction module
                # left out).
                "deepseek-v3", "DeepSeek-V3", 61, 128, 128, 128, 671e9,
                mla_dims=512 + 64, hidden=7168, n_active_params=37e9,
                max_context=163840, dtype="fp8", n_experts=256,
                experts_per_token=8, weight_nbytes=671e9 + 1_854_239_744,
                source=_HF + "deepseek-ai/DeepSeek-V3 (MLA, MoE: 37 B active)",
                embed_params=129_280 * 7_168 * 2,  # vocab x hidden: embedding, lm_head
            ),
        )
    }
)

# Presets of current models (issue 10). Kept apart from MODELS so that the
# steps that list MODELS are unchanged; ALL_MODELS has both, and
# costs.get_model() finds either. Every row was checked against the model's
# config.json (tests/test_presets.py parses those configs with
# explainer.hfconfig and compares); notes say where a value came from a
# model card or from transformers' defaults instead.
RECENT_MODELS: Mapping[str, ModelPreset] = MappingProxyType(
    {
        m.key: m
        for m in (
            ModelPreset(
                # head_dim 64 explicit; tied embeddings.
                "llama3.2-1b", "Llama 3.2 1B", 16, 32, 8, 64, 1.236e9,
                hidden=2048, max_context=131072, dtype="bf16",
                source=_HF + "meta-llama/Llama-3.2-1B",
                embed_params=128_256 * 2_048,  # vocab x hidden, tied
            ),
            ModelPreset(
                "llama3.2-3b", "Llama 3.2 3B", 28, 24, 8, 128, 3.213e9,
                hidden=3072, max_context=131072, dtype="bf16",
                source=_HF + "meta-llama/Llama-3.2-3B",
                embed_params=128_256 * 3_072,  # vocab x hidden, tied
            ),
            ModelPreset(
                # Architecture fields as in copies of the config; 405.85 B
                # counted from them (Meta: "405B").
                "llama3.1-405b", "Llama 3.1 405B", 126, 128, 8, 128, 405.853e9,
                hidden=16384, max_context=131072, dtype="bf16",
                source=_HF + "meta-llama/Llama-3.1-405B",
                embed_params=128_256 * 16_384 * 2,  # vocab x hidden: embedding, lm_head
            ),
            ModelPreset(
                # Base model: 131,072 positions (model card; the -Instruct
                # config says 32,768). use_sliding_window false: no window.
                "qwen2.5-72b", "Qwen2.5 72B", 80, 64, 8, 128, 72.706e9,
                hidden=8192, max_context=131072, dtype="bf16",
                source=_HF + "Qwen/Qwen2.5-72B (use_sliding_window false)",
                embed_params=152_064 * 8_192 * 2,  # vocab x hidden: embedding, lm_head
            ),
            ModelPreset(
                # head_dim 128 explicit; 40,960 positions in the config. Qwen's
                # model card: a native context of 32,768, and the 40,960 reserve
                # 32,768 tokens for the output and 8,192 for the prompt
                # (Qwen3-8B-Base's config says 32,768).
                "qwen3-8b", "Qwen3 8B", 36, 32, 8, 128, 8.191e9,
                hidden=4096, max_context=40960, dtype="bf16",
                source=_HF + "Qwen/Qwen3-8B",
                embed_params=151_936 * 4_096 * 2,  # vocab x hidden: embedding, lm_head
            ),
            ModelPreset(
                # 64 query heads x 128 = 8,192, wider than hidden_size 5,120.
                "qwen3-32b", "Qwen3 32B", 64, 64, 8, 128, 32.762e9,
                hidden=5120, max_context=40960, dtype="bf16",
                source=_HF + "Qwen/Qwen3-32B",
                embed_params=151_936 * 5_120 * 2,  # vocab x hidden: embedding, lm_head
            ),
            ModelPreset(
                # Gemma 2: layers 0, 2, 4, ... local (4,096 window), odd
                # layers global; head_dim 256 explicit (3584 / 16 = 224).
                "gemma2-9b", "Gemma 2 9B", 42, 16, 8, 256, 9.242e9,
                hidden=3584, max_context=8192, dtype="bf16",
                layer_windows=alternating_windows(42, 4096, 2),
                source=_HF + "google/gemma-2-9b (sliding_window 4096, "
                "every other layer)",
                embed_params=256_000 * 3_584,  # vocab x hidden, tied
            ),
            ModelPreset(
                "gemma2-27b", "Gemma 2 27B", 46, 32, 16, 128, 27.227e9,
                hidden=4608, max_context=8192,
                layer_windows=alternating_windows(46, 4096, 2),
                source=_HF + "google/gemma-2-27b (sliding_window 4096, "
                "every other layer)",
                embed_params=256_000 * 4_608,  # vocab x hidden, tied
            ),
            ModelPreset(
                # text_config of the multimodal config; it leaves out
                # vocab_size, max_position_embeddings and the 5:1 pattern,
                # which come from transformers' Gemma3TextConfig defaults
                # (262,208; 131,072; sliding_window_pattern 6): 52 local
                # layers with a 1,024 window, 10 global. Parameters: the
                # language model only (the SigLIP vision tower adds ~0.4 B).
                "gemma3-27b", "Gemma 3 27B", 62, 32, 16, 128, 27.009e9,
                hidden=5376, max_context=131072, dtype="bf16",
                layer_windows=alternating_windows(62, 1024, 6), multimodal=True,
                source=_HF + "google/gemma-3-27b-it (sliding_window 1024, "
                "5 local : 1 global)",
                embed_params=262_208 * 5_376,  # vocab x hidden, tied
            ),
            ModelPreset(
                # head_dim 128 explicit (5120 / 32 = 160): 40 x 8 x 128 x 2
                # x 2 B = 160 KiB per token. sliding_window null.
                "mistral-nemo-12b", "Mistral NeMo 12B", 40, 32, 8, 128, 12.248e9,
                hidden=5120, max_context=128000, dtype="bf16",
                source=_HF + "mistralai/Mistral-Nemo-Base-2407",
                embed_params=131_072 * 5_120 * 2,  # vocab x hidden: embedding, lm_head
            ),
            ModelPreset(
                # MoE: 8 experts, 2 per token. sliding_window null (full
                # attention over 32k; transformers PR #29436).
                "mixtral-8x7b", "Mixtral 8x7B", 32, 32, 8, 128, 46.703e9,
                n_active_params=12.880e9, hidden=4096, max_context=32768,
                dtype="bf16", n_experts=8, experts_per_token=2,
                source=_HF + "mistralai/Mixtral-8x7B-v0.1 (MoE: 12.9 B active)",
                embed_params=32_000 * 4_096 * 2,  # vocab x hidden: embedding, lm_head
            ),
        )
    }
)

ALL_MODELS: Mapping[str, ModelPreset] = MappingProxyType({**MODELS, **RECENT_MODELS})
"""Every model preset: the original ``MODELS`` followed by ``RECENT_MODELS``."""

REFERENCE_MODEL = "llama2-7b"
"""The seed's "7B" model, used by steps 3 to 6."""

LLAMA2_70B_MHA = ModelPreset(
    "llama2-70b-mha", "Llama 2 70B (assuming MHA)", 80, 64, 64, 128, 68.977e9,
    max_context=4096,
    source="hypothetical: Llama 2 70B with full multi-head attention "
    "(its real config has 8 KV heads)",
)
"""Counter-factual preset for the "what if 70B used MHA" example."""


# --------------------------------------------------------------------------
# GPUs
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class GPUPreset:
    """Peak numbers of one accelerator.

    ``mem_bytes`` is the marketed capacity read as *decimal* bytes
    (40 GB = 40e9), kept for the existing callers. Vendors' HBM "GB" are in
    fact binary: an "80 GB" A100/H100 holds 80 GiB = 85.9e9 bytes
    (nvidia-smi shows 81,920 MiB on an A100 80 GB). So ``mem_bytes`` is a
    conservative under-estimate by 7.4 % (GiB/GB = 1.0737), and every figure
    that uses it must say so. ``mem_gib`` is the capacity in GiB (defaults
    to the marketed number, i.e. vendor "80 GB" = 80 GiB) and
    ``mem_bytes_binary`` the true byte count. The usable memory a driver
    reports can be a little lower still (an H200 "141 GB" reports 143,771
    MiB = 140.4 GiB). ``None`` for the illustrative GPU, which has no memory
    size.

    ``usable_gib``: the memory the driver gives programs, in GiB: nvidia-smi's
    total (``memory.total``) with ECC as the card ships. It is what a serving
    engine's ``gpu_memory_utilization`` is a share of. An L4 sold as 24 GB
    shows 23,034 MiB = 22.5 GiB (ECC on by default takes the rest), an H100
    SXM 81,559 MiB = 79.6 GiB, an H200 143,771 MiB = 140.4 GiB; the A100s
    show their whole 40,960 / 81,920 MiB and an RTX 4090 24,564 MiB (public
    nvidia-smi outputs; shared/reviews/truth2.md O-1). ``None``: no memory
    size.

    ``bandwidth``: memory bandwidth in bytes/s. ``flops``: dense fp16/bf16
    tensor throughput in FLOP/s (no sparsity, fp32 accumulate).
    ``flops_fp16_accumulate``: the same with fp16 accumulation where the
    card is faster so (GeForce: the RTX 4090's 330 against 165 TFLOP/s);
    ``None`` where it is the same. Step 4 says which one ``flops`` is.
    """

    key: str
    name: str
    mem_bytes: float | None
    bandwidth: float
    flops: float
    source: str = ""
    mem_gib: float | None = None
    usable_gib: float | None = None
    flops_fp16_accumulate: float | None = None

    def __post_init__(self) -> None:
        if self.mem_gib is None and self.mem_bytes is not None:
            object.__setattr__(self, "mem_gib", self.mem_bytes / GB)
        if self.usable_gib is None and self.mem_gib is not None:
            object.__setattr__(self, "usable_gib", self.mem_gib)

    @property
    def usable_bytes(self) -> float | None:
        """What the driver gives programs, in bytes (``usable_gib`` x GiB)."""
        return None if self.usable_gib is None else self.usable_gib * GiB

    @property
    def ridge(self) -> float:
        """Ridge point of the roofline, FLOP per byte (= flops / bandwidth)."""
        return self.flops / self.bandwidth

    @property
    def illustrative(self) -> bool:
        return self.mem_bytes is None

    @property
    def mem_bytes_binary(self) -> float | None:
        """Capacity in bytes with the vendor's "GB" read as GiB (80 -> 85.9e9)."""
        return None if self.mem_gib is None else self.mem_gib * GiB

    def capacity_bytes(self, binary: bool = False) -> float | None:
        """``mem_bytes_binary`` when ``binary``, else the decimal ``mem_bytes``."""
        return self.mem_bytes_binary if binary else self.mem_bytes


GPUS: Mapping[str, GPUPreset] = MappingProxyType(
    {
        g.key: g
        for g in (
            GPUPreset(
                "illustrative", "Illustrative GPU", None,
                2.0 * TB_PER_S, 300 * TFLOPS,
                source="round numbers of the seed's roofline",
            ),
            GPUPreset(
                "a100-40", "A100 40 GB SXM", 40 * GB,
                1.555 * TB_PER_S, 312 * TFLOPS, source="NVIDIA A100 datasheet",
                usable_gib=40960 / 1024,  # nvidia-smi: 40,960 MiB
            ),
            GPUPreset(
                "a100-80", "A100 80 GB SXM", 80 * GB,
                2.039 * TB_PER_S, 312 * TFLOPS, source="NVIDIA A100 datasheet",
                usable_gib=81920 / 1024,  # nvidia-smi: 81,920 MiB
            ),
            GPUPreset(
                "h100", "H100 SXM", 80 * GB,
                3.35 * TB_PER_S, 989 * TFLOPS, source="NVIDIA H100 datasheet",
                usable_gib=81559 / 1024,  # nvidia-smi: 81,559 MiB
            ),
            GPUPreset(
                "h200", "H200 SXM", 141 * GB,
                4.8 * TB_PER_S, 989 * TFLOPS,
                source="NVIDIA H200 datasheet (SXM; the H200 NVL has 835 TFLOP/s)",
                usable_gib=143771 / 1024,  # nvidia-smi: 143,771 MiB
            ),
            GPUPreset(
                "l4", "L4", 24 * GB,
                0.30 * TB_PER_S, 121 * TFLOPS, source="NVIDIA L4 datasheet",
                usable_gib=23034 / 1024,  # nvidia-smi: 23,034 MiB
            ),
            GPUPreset(
                "rtx4090", "RTX 4090", 24 * GB,
                1.008 * TB_PER_S, 165 * TFLOPS,
                source="NVIDIA Ada whitepaper (fp16 tensor, fp32 accumulate as in "
                "cuBLAS/PyTorch; 330 TFLOP/s with fp16 accumulate)",
                usable_gib=24564 / 1024,  # nvidia-smi: 24,564 MiB
                flops_fp16_accumulate=330 * TFLOPS,
            ),
        )
    }
)

ILLUSTRATIVE_GPU = "illustrative"


# --------------------------------------------------------------------------
# Cache precisions
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class Precision:
    """How one cached value is stored.

    ``bits``: bits per stored value. ``scale_bytes``: bytes of one scale
    factor (an fp16 scale = 2 B), stored once per ``group`` values.
    ``group=None`` means one scale per head vector (``head_dim`` values of
    one head of one token, for K and for V separately).

    fp32/fp16/bf16 need no scale. fp8 (e4m3) is stored with one per-tensor
    scale, a handful of bytes per layer whatever the context length, so it
    is neglected here (``scale_bytes=0``). int8 and int4 keep one fp16 scale
    per group, so they are *less* than 2x / 4x smaller than fp16.
    """

    key: str
    bits: int
    group: int | None = None
    scale_bytes: int = 0

    @property
    def bytes_per_value(self) -> float:
        """Bytes of one stored value, scales not included."""
        return self.bits / 8

    @property
    def quantized(self) -> bool:
        """True when per-group scales are stored next to the values."""
        return self.scale_bytes > 0


PRECISIONS: Mapping[str, Precision] = MappingProxyType(
    {
        p.key: p
        for p in (
            Precision("fp32", 32),
            Precision("fp16", 16),
            Precision("bf16", 16),
            Precision("fp8", 8),
            Precision("int8", 8, group=None, scale_bytes=2),
            Precision("int4", 4, group=None, scale_bytes=2),
        )
    }
)

DEFAULT_PRECISION = "fp16"
WEIGHT_BYTES_PER_PARAM = 2  # fp16/bf16 weights


# --------------------------------------------------------------------------
# Step 6 choices
# --------------------------------------------------------------------------

SHRINK_KV_HEADS: tuple[int, ...] = (32, 8, 1)
SHRINK_KV_HEAD_LABELS: Mapping[int, str] = MappingProxyType(
    {32: "MHA", 8: "GQA", 1: "MQA"}
)
SHRINK_PRECISIONS: tuple[str, ...] = ("fp16", "fp8", "int8", "int4")
SHRINK_WINDOWS: tuple[int | None, ...] = (None, 4096, 1024)  # None = full


# --------------------------------------------------------------------------
# Step defaults (read-only mappings; ranges are inclusive (lo, hi) tuples)
# --------------------------------------------------------------------------

STEP2: Mapping[str, object] = MappingProxyType(
    dict(P=5, T=16, P_range=(1, 16), T_range=(1, 64))
)
"""Wasted work: prompt length P and generated tokens T."""

STEP3: Mapping[str, object] = MappingProxyType(
    dict(model=REFERENCE_MODEL, precision="fp16")
)
"""Storing K/V: the reference model whose cache size is shown."""

STEP4: Mapping[str, object] = MappingProxyType(
    dict(
        prompt=512, output=256, prompt_range=(16, 8192), output_range=(1, 2048),
        model=REFERENCE_MODEL, gpu=ILLUSTRATIVE_GPU, batch=1,
    )
)
"""Prefill vs decode roofline."""

STEP5: Mapping[str, object] = MappingProxyType(
    dict(
        context=4096, batch=1, context_range=(512, 32768), batch_range=(1, 64),
        model=REFERENCE_MODEL, gpu="a100-80", precision="fp16",
    )
)
"""Memory bill."""

STEP6: Mapping[str, object] = MappingProxyType(
    dict(
        batch=8, context=16384, kv_heads=32, precision="fp16", window=None,
        model="llama3.1-8b",
    )
)
"""Shrinking the cache: Llama 3.1 8B's shape (32 layers x 32 query heads x 128 dims, a
131,072-token context, so 16,384 tokens are real for it), with a hypothetical MHA baseline
(32 KV heads, as Llama 2 7B has), fp16, full context; its own 8 KV heads are the GQA choice."""


def live_preset(cfg, n_params: float) -> ModelPreset:
    """The live model's config as a preset, so its cache bytes come from the same formulas.

    ``cfg`` is an ``explainer.model.Config`` (duck-typed: no torch import needed here).
    """
    return ModelPreset(key="live", name="live model", n_layers=cfg.n_layers,
                       n_heads=cfg.n_heads, n_kv_heads=cfg.n_kv_heads,
                       head_dim=cfg.head_dim, n_params=n_params, hidden=cfg.d_model,
                       source="explainer/model.py Config, weights in assets/")
