""""Your model": read a Hugging Face ``config.json`` into a model preset.

A learner pastes the text of a model's ``config.json``; :func:`parse_config`
returns a :class:`ParsedConfig` whose ``preset`` is an ordinary
:class:`~explainer.presets.ModelPreset`, so every cost function works on it
unchanged. The result also records every field it read (``fields_read``),
every value it had to assume (``defaults_used``) and the inputs of the cache
formula (:meth:`ParsedConfig.cache_inputs`), for the UI to show.

How each cache input is found (the first rule that applies wins):

- layers: ``num_hidden_layers`` (also ``n_layer``, ``num_layers``; without
  them the length of ``layers_block_type``, as NemotronHConfig takes it);
  query heads: ``num_attention_heads`` (``n_head``, ``num_heads``).
- KV heads: ``num_key_value_heads`` (``num_kv_heads``, DBRX's
  ``attn_config.kv_n_heads``, mamba_ssm's ``attn_cfg.num_heads_kv``); ``multi_query: true`` means 1; otherwise, or
  when null, the number of query heads (MHA). Falcon as ``FalconAttention``
  reads it: ``num_kv_heads`` only with ``new_decoder_architecture``, else 1
  with ``multi_query`` (FalconConfig's default: true), else MHA; a fine-tune
  re-saved by transformers carries ``num_kv_heads: 71`` that the model ignores.
  ChatGLM / GLM-4 (remote code): with ``multi_query_attention: true``,
  ``multi_query_group_num`` K/V groups of ``kv_channels`` values each.
- head_dim: an explicit ``head_dim`` (ChatGLM's ``kv_channels``) wins over
  ``hidden_size / num_attention_heads`` (Gemma, Mistral NeMo and Qwen3 can differ from it).
- MLA (DeepSeek-V2/V3): with ``kv_lora_rank`` the cache holds
  ``kv_lora_rank + qk_rope_head_dim`` values per layer per token (512 + 64 =
  576), not 2 x heads x head_dim.

Not a decoder with a KV cache: ``is_encoder_decoder: true`` or an
encoder-decoder ``model_type`` (T5, BART, Whisper...) is refused with
``encoder_decoder``; a model without attention (``model_type`` mamba,
mamba2, falcon_mamba, rwkv..., or SSM fields and no attention heads; also a
layout with no attention layer) with ``no_kv_cache``: it keeps a fixed-size
state instead. Neither gets a number.

Layers: one :class:`~explainer.presets.LayerSpec` per layer (the cache is
their sum, :func:`explainer.costs.layer_map`). The first rule that applies:

- ``layer_types`` (``full_attention``, ``sliding_attention``,
  ``chunked_attention``, ``linear_attention``, ``mamba``...; GLM-5.2's
  ``deepseek_sparse_attention`` is an MLA layer),
  ``layers_block_type`` or ``block_types`` (repeated over the layers);
- ``hybrid_override_pattern`` (Nemotron-H: ``M`` Mamba-2 state, ``*``
  attention, ``-`` / ``E`` no mixer);
- ``attn_type_list`` (MiniMax: 1 softmax attention, 0 lightning attention);
- ``attn_layer_period`` / ``attn_layer_offset`` (Jamba: attention where
  i % period == offset, Mamba elsewhere);
- ``attn_layer_idx`` (mamba_ssm's ``MixerModel``, e.g. mamba2attn-2.7b: the
  attention layers by index, Mamba elsewhere; their heads, ``head_dim`` and
  ``num_heads_kv`` in ``attn_cfg``, read like DBRX's ``attn_config``);
- ``full_attention_interval`` (Qwen3-Next: full where (i + 1) % interval
  == 0, Gated DeltaNet elsewhere);
- ``cross_attention_layers`` (Llama 3.2 Vision): those layers attend to the
  image: their K/V do not grow with the text;
- ``attention_chunk_size`` (Llama 4): chunked where ``no_rope_layers[i]`` is
  1, full on the NoPE layers (default, also for an empty list: every 4th).
  A chunked layer keeps at most C tokens (the current chunk), counted as
  min(context, C);
- otherwise the sliding-window rules: ``use_sliding_window: false`` turns
  the window off (Qwen's default, also over ``layer_types``); Gemma 2
  alternates, layer i local when i is even; Gemma 3 and Cohere2
  (``sliding_window_pattern``, class defaults 6 and 4) have layer i global
  when (i + 1) % pattern == 0; Qwen2/3 with ``use_sliding_window: true``
  window the layers from ``max_window_layers`` on; otherwise
  ``sliding_window`` applies to every layer (Mistral 7B v0.1, Phi-3).
- then ``attention_window_size`` (RecurrentGemma): every attention layer is
  local, keeping the last ``attention_window_size`` tokens.
- then ``num_kv_shared_layers`` (Gemma 3n): the last N layers read earlier
  layers' K/V and cache nothing.

A state layer's size comes from its fields (Mamba ``mamba_*``, Mamba-2
``mamba_num_heads``..., Gated DeltaNet ``linear_*``, lightning attention,
mamba_ssm's ``ssm_cfg`` with its class defaults recorded:
see ``_state_values``); without them the config is refused
(``state_unsized``), never sized by guess.
- weights' precision: ``torch_dtype`` (or ``dtype``; an unknown spelling
  such as ``"auto"`` is left out, it only informs), and the bytes of the
  weights from ``quantization_config`` (fp8, MXFP4, GPTQ/AWQ: see
  ``_weight_nbytes``); maximum context: the larger of
  ``max_position_embeddings`` (``n_positions``, ``max_sequence_length``,
  ``seq_length``) and ``model_max_length`` where the config gives it
  (c4ai-command-r-v01: 8,192 and 131,072, its card's 128k); only the field
  that gives it is recorded as read. A ``model_max_length`` above the
  context limit is transformers' "no limit" (``int(1e30)``) and says nothing.
- multimodal configs (Gemma 3, Llama 4, Mistral 3) keep the language model
  under ``text_config``; its fields are read first, then the top level (and
  ``attn_config``). Others (Qwen2-VL, Qwen2.5-VL) keep the language fields at
  the top level and describe the image encoder in an object beside them
  (``vision_config``; Qwen-VL's ``visual``, ``vision_tower``). Either way the
  preset's ``multimodal`` says the parameter count is the language model's:
  the vision tower is not counted. ``Infinity``/``NaN`` in the JSON are read as floats:
  they matter only in a field that is read, which then refuses them.

Parameter count (:class:`ParamCount`), for decoders with a gated MLP
(Llama, Mistral, Qwen, Gemma, Mixtral, DeepSeek, Cohere, Llama 4, Jamba,
Qwen3-Next), layer by layer: with d = hidden_size,
H/K = query/KV heads, h = head_dim, I = intermediate_size, V = vocab_size,

    embeddings             V * d   (+ V * d for an untied lm_head)
    attention per layer    d*H*h (q) + 2*d*K*h (k, v) + H*h*d (o)
                           (+ q/k/v biases for Qwen2 or attention_bias,
                            + 2*h for Qwen3/Gemma 3 q/k norms)
    MLA attention          d*q_r + q_r + q_r*H*(n + r)   (q, or d*H*(n + r))
                           + d*(c + r) + c + c*H*(n + v) + H*v*d
                           (q_r = q_lora_rank, c = kv_lora_rank,
                            n/r/v = qk_nope/qk_rope/v head dims)
    Mamba / DeltaNet layer its mixer (``_mamba_params``, Mamba-2's
                           ``_mamba2_params``, ``_delta_net_params``)
    Falcon-H1 layer        attention and a Mamba-2 mixer side by side
                           (``_falcon_h1_mamba_params``)
    Idefics cross layers   one gated cross-attention layer every
                           ``cross_layer_interval`` (``_idefics_cross_params``)
    cross-attention layer  attention + q/k norms + 2 gates
    dense MLP per layer    3 * d * I       (gate, up, down; Nemotron, Apertus,
                                            Arcee, Jais 2, nanochat, Persimmon,
                                            Fuyu and BioGPT have no gate: 2 * d * I)
    MoE layer              E * 3 * d * I_e + d * E (router)
                           + shared experts 3 * d * I_s (+ d for Qwen's gate;
                             I_s: ``shared_expert_intermediate_size``, Granite's
                             ``shared_intermediate_size``; 0 means none, as in
                             MiniMax-M2 and Qwen3-Coder-480B)
    norms                  2 * d per layer (4 * d for Gemma 2/3, MuseGlimmer and
                           Nemotron's biased LayerNorms, d for Cohere's one
                           LayerNorm) + d (2 * d for Nemotron)
    embeddings tied        Gemma and Cohere by default (``tie_word_embeddings``,
                           Cohere's ``use_embedding_sharing``; a composite
                           image-text config's top-level flag before its
                           ``text_config``'s: the model class transformers
                           builds ties by its own config, the top level)

Which layers are MoE follows the modeling code (``_moe_layers``): Llama 4
``moe_layers`` / ``interleave_moe_layer_step`` (its dense layers
``intermediate_size_mlp`` wide, a shared expert as wide as a routed one in
each MoE layer), Qwen's ``decoder_sparse_step`` and ``mlp_only_layers``,
Jamba's ``expert_layer_period``/``offset``, DeepSeek's
``first_k_dense_replace`` (AFMoE: ``num_dense_layers``), HY-V3's and
EXAONE-MoE's ``mlp_layer_types``, ERNIE 4.5's ``moe_layer_start_index`` ..
``moe_layer_end_index`` every ``moe_layer_interval``-th. Active parameters replace E by
``num_experts_per_tok`` routed experts (Gemma 4: ``top_k_experts``). ERNIE 4.5
MoE and Aria name E ``moe_num_experts``, the experts per token ``moe_k`` /
``moe_topk`` and the shared experts ``moe_num_shared_experts`` (each as wide as
a routed one; Aria's routed experts are ``intermediate_size`` wide, having no
``moe_intermediate_size``; ERNIE 4.5 VL lists its text and vision experts'
widths, the first is counted and the vision experts left out like a vision
tower); EXAONE-MoE names them ``num_shared_experts``.
Doge's ``is_moe`` false makes the model dense whatever ``num_experts`` says.
MuseSpark's experts work in a ``moe_hidden_size`` latent (3 x m x I_e each, with
pre/post_expert_proj 2 x d x m and two latent norms per MoE layer), its attention
has MuseGlimmer's gate_proj, and each layer five d-wide norms and gates. MiniCPM 5
MoE's q_gate_proj is q_proj and an output gate fused (2 x d x H x h). Cosmos 3
Edge's relu^2 MLP has no gate (``_UP_DOWN_MLP_TYPES``). Layers
of other kinds make the count ``params_needed`` (Nemotron-H's Mamba-2, MLP and
MoE blocks have a rule of their own, below).
Biases of routers and of the MLP are left out (they are a few thousand).
Falcon as ``FalconModel`` builds it (``_falcon_params``): a fused QKV of
(H + 2K) x h outputs (K as for the cache), ``ffn_hidden_size`` (4d) GELU
MLP without a gate, biases where ``bias``, LayerNorms with a bias (two per
layer with ``new_decoder_architecture``, one when ``parallel_attn``), the
lm_head tied. Phi-1/1.5/2 as ``PhiModel`` (``_phi_params``): biased q/k/v
and dense, a biased fc1/fc2 MLP, one LayerNorm per layer, a biased lm_head.
Qwen3-Next and Qwen3.5 (``attn_output_gate``) double q_proj for the output
gate; MuseGlimmer's attention has a gate of its own, a ``gate_proj`` d x H x h
as wide as q_proj whose sigmoid scales the output (its q/k norm has no
weight), and four norms per layer. LFM2: q/k norms, tied embeddings, ShortConv
mixers (in_proj d x 3d, a depthwise conv of ``conv_L_cache``, out_proj) and,
with ``block_auto_adjust_ff_dim``, an MLP 2/3 as wide, times
``block_ffn_dim_multiplier``, rounded up to ``block_multiple_of``.
GPT-2 and GPTBigCode (``_gpt2_params``): a fused, biased ``c_attn`` of
d + 2 x K x h outputs (GPT-2's Conv1D with K = H; K = 1 under BigCode's
``multi_query``), a biased ``c_proj``, a gate-less biased MLP of ``n_inner``
(4d when null), two LayerNorms with a bias per layer, ``ln_f``, learned
positions (``n_positions`` x d, required) and the lm_head tied to ``wte``; a
config without ``model_type`` whose ``architectures`` name GPT2LMHeadModel
(distilgpt2's) takes this rule. Starcoder2 (``_starcoder2_params``): q/k/v/o
and a ``c_fc``/``c_proj`` MLP without a gate, biased under ``use_bias``,
LayerNorms with a bias, tied by default. ChatGLM2/3 and GLM-4
(``_chatglm_params``, remote code): a fused ``query_key_value`` of
H x h + 2 x G x h (G K/V groups of ``kv_channels``), biased with
``add_qkv_bias``, ``dense``, a SwiGLU ``dense_h_to_4h`` of 2 x
``ffn_hidden_size`` and ``dense_4h_to_h``, two RMSNorms, an untied
``output_layer`` of ``padded_vocab_size``. Gemma 4 (``_gemma4_params``): the
full-attention layers' own ``global_head_dim`` and, with
``attention_k_eq_v``, ``num_global_key_value_heads`` K heads and no v_proj;
with ``enable_moe_block`` a gated MLP and ``num_experts`` experts side by
side in every layer, ``top_k_experts`` of them per token (the count only:
a preset holds one K/V geometry, so the cache of its full layers is sized
like the sliding ones'). GPT-NeoX / Pythia (``_gpt_neox_params``): a fused
``query_key_value`` and ``dense``, biased under ``attention_bias``, a
gate-less MLP with biases, LayerNorms with a bias, an untied ``embed_out``.
OPT (``_opt_params``): biased q/k/v/out and ``fc1``/``fc2``, learned
positions offset by 2, ``project_in``/``project_out`` where
``word_embed_proj_dim`` differs from d, tied by default. GPT-J and CodeGen
(``_gptj_params``), GPT-Neo (``_gpt_neo_params``), BLOOM (``_bloom_params``)
and MPT (``_mpt_params``): their gate-less MLPs, biases and norms as each
class builds them (see each rule). Other non-gated families
(``GATED_MLP_EXCLUDED``: CTRL, GPT-1, GPT-NeoX Japanese) need the count entered by hand
(``n_params=``).
Ergo (``_ergo_params``): a fused qkv_proj, gate-less MLPs and experts with
post-expert norms, a normed shared expert, six d-wide norms and gates a layer.
Nemotron-H (``_nemotron_h_params``), block by block from
``hybrid_override_pattern`` or ``layers_block_type``: an RMSNorm and one
mixer each, a Mamba-2 mixer, attention without biases, a gate-less MLP
(up and down) or a mixture of gate-less experts with a router, one shared
MLP of ``moe_shared_expert_intermediate_size`` and, with
``moe_latent_size``, the latent projections around the experts.

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
``bad_dtype``            an unknown ``dtype`` in a link
``kv_heads_divide``      KV heads do not divide the query heads
``hidden_divide``        no ``head_dim`` and hidden_size % heads != 0
``layer_types_length``   ``layer_types`` has not one entry per layer
``experts_range``        more experts per token than experts
``unsupported``          a layer type this tool cannot size
``params_needed``        the parameter count cannot be derived: enter it
``params_too_large``     the sizes add up to more than ``MAX_PARAMS``
                         parameters (``value``, ``limit``)
``not_positive_number``  a parameter count that is not a positive number
``active_exceeds_total`` active parameters above the total
``not_encodable``        a preset that the URL form cannot express
``no_kv_cache``          no attention layer: a fixed-size state, no KV cache
``encoder_decoder``      an encoder-decoder model (T5, BART...)
``state_unsized``        recurrent layers whose state the config does not size
=======================  ====================================================

URL form: :func:`to_query` writes a preset as a few short string keys
(``layers heads kv hd mla win chunk state pat moe dtype ctx params active
wbytes mm emb``; ``pat`` one letter per layer kind) and
:func:`from_query` reads them back with the same validation.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Mapping

from .presets import PRECISIONS, LayerSpec, ModelPreset

ERROR_CODES = (
    "not_text", "too_large", "markup", "not_json", "duplicate_key", "not_object",
    "missing", "not_positive_int", "not_nonnegative_int", "not_bool", "bad_value",
    "bad_dtype", "kv_heads_divide", "hidden_divide", "layer_types_length",
    "experts_range", "unsupported", "params_needed", "params_too_large",
    "not_positive_number",
    "active_exceeds_total", "not_encodable", "no_kv_cache", "encoder_decoder",
    "state_unsized",
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
        state=1_000_000_000,
    )
)
"""Largest value accepted for each kind of count (far above any real model)."""

MAX_PARAMS = 1e15
"""Largest parameter count accepted, entered or counted from a config."""

DTYPES: Mapping[str, str] = MappingProxyType(
    {
        "float32": "fp32", "fp32": "fp32", "float": "fp32",
        "float16": "fp16", "fp16": "fp16", "half": "fp16",
        "bfloat16": "bf16", "bf16": "bf16",
        "float8_e4m3fn": "fp8", "float8_e5m2": "fp8", "fp8": "fp8",
    }
)
"""``torch_dtype`` spellings and the precision key each maps to."""

GATED_MLP_EXCLUDED = frozenset({"ctrl", "openai-gpt", "gpt_neox_japanese"})
"""Model types whose MLP is not gated and that have no rule of their own: their
parameters are not counted (GPT-2, GPTBigCode, Starcoder2, GPT-NeoX, OPT, GPT-J,
CodeGen, GPT-Neo, BLOOM, MPT, Falcon and Phi have one)."""

_ARCHITECTURE_TYPES: Mapping[str, str] = MappingProxyType({
    "GPT2LMHeadModel": "gpt2", "GPT2Model": "gpt2",
})
"""The parameter rule of a config without ``model_type``, from its ``architectures``."""

_QWEN_TYPES = frozenset({"qwen2", "qwen2_moe", "qwen3", "qwen3_moe"})
_GEMMA2_TYPES = frozenset({"gemma2"})
_GEMMA3_TYPES = frozenset({"gemma3", "gemma3_text"})
_MUSE_TYPES = frozenset({"muse_glimmer", "muse_glimmer_text"})
_MUSE_SPARK_TYPES = frozenset({"muse_spark", "muse_spark_text"})
"""MuseSpark: MuseGlimmer's gated attention; experts in a ``moe_hidden_size`` latent
(pre_expert_proj d -> m, an RMSNorm before and after the experts, post_expert_proj
m -> d); input, pre- and post-feedforward norms and two residual gates per layer."""
_GATE_PROJ_TYPES = _MUSE_TYPES | _MUSE_SPARK_TYPES
"""Attention with an output gate of its own, a gate_proj d -> H x h as wide as q_proj."""
_FOUR_NORM_TYPES = _GEMMA2_TYPES | _GEMMA3_TYPES | _MUSE_TYPES
_QK_NORM_TYPES = frozenset({"qwen3", "qwen3_moe", "lfm2", "apertus"}) | _GEMMA3_TYPES
_QKV_BIAS_TYPES = frozenset({"qwen2", "qwen2_moe"})
_PATTERN_TYPES = _GEMMA3_TYPES | {"cohere2"}
_COHERE_TYPES = frozenset({"cohere", "cohere2"})
_TIED_BY_DEFAULT = frozenset({"gemma", "gemma2", "gemma3", "gemma3_text", "lfm2"}) | _COHERE_TYPES
_FALCON_TYPES = frozenset({"falcon", "RefinedWeb", "RefinedWebModel"})
_UP_DOWN_MLP_TYPES = frozenset({"nemotron", "apertus", "apertus1p5", "apertus1p5_text",
                                "arcee", "jais2", "nanochat", "cosmos3_edge",
                                "cosmos3_edge_text",
                                "persimmon", "fuyu", "biogpt"})
"""MLPs with an up and a down projection and no gate (relu^2, xIELU, GELU): 2 x d x I
(the families transformers builds that way, found by ``tests/test_hfconfig_types.py``)."""
_LLAMA4_TYPES = frozenset({"llama4", "llama4_text"})

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
        "cohere2": dict(sliding_window_pattern=4),
        "qwen2": dict(max_window_layers=28),
        "qwen2_moe": dict(max_window_layers=28),
        "qwen3": dict(max_window_layers=28),
        "qwen3_moe": dict(max_window_layers=28),
    }
)

_VISION_FIELDS = ("vision_config", "visual", "vision_tower")
"""Top-level objects that describe an image encoder beside the language fields."""

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
    quantization: str | None = None

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

    def __init__(self, top: dict, text: dict | None, model_type: str | None,
                 attn: dict | None = None, attn_name: str = "attn_config"):
        self.layers = [("text_config.", text)] if text is not None else []
        self.layers.append(("", top))
        if attn is not None:  # DBRX / MPT: attn_config; mamba_ssm hybrids: attn_cfg
            self.layers.append((attn_name + ".", attn))
        self.model_type = model_type
        self.read: dict[str, Any] = {}
        self.defaults: dict[str, Any] = {}

    def find(self, *names: str, top_first: bool = False) -> tuple[str | None, Any]:
        """First present, non-null field among ``names``: (name, value); with
        ``top_first`` the top level is looked at before ``text_config``."""
        layers = sorted(self.layers, key=lambda x: x[0] != "") if top_first else self.layers
        for name in names:
            for prefix, obj in layers:
                if name in obj and obj[name] is not None:
                    self.read[prefix + name] = obj[name]
                    return name, obj[name]
        return None, None

    def peek(self, *names: str) -> str | None:
        """The first of ``names`` present and non-null, without recording it."""
        for name in names:
            for _, obj in self.layers:
                if obj.get(name) is not None:
                    return name
        return None

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

    def flag(self, name: str, default: bool | None, top_first: bool = False) -> bool | None:
        found, value = self.find(name, top_first=top_first)
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

    try:  # Infinity / NaN (Python's json.dump writes them) become floats; a field
        # that is read then fails its own check, one that is not read is no reason
        data = json.loads(body, object_pairs_hook=pairs, parse_constant=float)
    except ConfigError:
        raise
    except json.JSONDecodeError as e:
        raise ConfigError("config", "not_json", line=e.lineno, column=e.colno) from None
    except (ValueError, RecursionError):  # NaN/Infinity, giant ints, deep nesting
        raise ConfigError("config", "not_json", line=None, column=None) from None
    if not isinstance(data, dict):
        raise ConfigError("config", "not_object", type=type(data).__name__)
    return data


def _multimodal(top: dict, text: dict | None) -> bool:
    """Whether the config describes more than the language model it is read for: a
    ``text_config``, or an image encoder's object at the top level (``_VISION_FIELDS``)."""
    return text is not None or any(isinstance(top.get(k), dict) for k in _VISION_FIELDS)


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


_LAYER_TYPE_KINDS: Mapping[str, str] = MappingProxyType({
    "full_attention": "full", "attention": "full", "global_attention": "full",
    "sliding_attention": "sliding", "local_attention": "sliding",
    "chunked_attention": "chunked",
    # GLM-5.2's MLA layers with a DSA indexer (their latent as any MLA layer's)
    "deepseek_sparse_attention": "full",
    "linear_attention": "state", "mamba": "state", "mamba2": "state",
    "recurrent": "state", "conv": "state",
    "cross_attention": "cross", "mlp": "none", "moe": "none",
})
"""Entries of ``layer_types`` / ``layers_block_type`` / ``block_types`` and their kind."""

_HYBRID_PATTERN = MappingProxyType({"M": "state", "*": "full", "-": "none", "E": "none"})
"""Nemotron-H ``hybrid_override_pattern`` letters: Mamba-2, attention, MLP, MoE."""
_NEMOTRON_BLOCKS = MappingProxyType({"mamba": "M", "linear_attention": "M", "attention": "*",
                                     "full_attention": "*", "mlp": "-", "moe": "E"})
"""Nemotron-H ``layers_block_type`` names as pattern letters."""

_LAYOUT_FIELDS = ("layer_types", "layers_block_type", "block_types", "hybrid_override_pattern",
                  "attn_type_list", "attn_layer_period", "full_attention_interval",
                  "attn_layer_idx")
"""Fields that can name a layer a state layer (``_period_kinds``), as errors name them."""

_NO_ATTENTION_TYPES = frozenset({"mamba", "mamba2", "falcon_mamba", "rwkv", "rwkv5",
                                  "rwkv6", "xlstm"})
"""Model types with no attention at all: a fixed-size state instead of a KV cache."""

_ENCODER_DECODER_TYPES = frozenset({
    "t5", "mt5", "umt5", "longt5", "switch_transformers", "bart", "mbart", "pegasus",
    "pegasus_x", "marian", "blenderbot", "blenderbot-small", "m2m_100", "nllb_moe",
    "fsmt", "prophetnet", "led", "plbart", "bigbird_pegasus", "whisper", "t5gemma",
    "encoder-decoder", "seamless_m4t", "speecht5",
})
"""Model types that are encoder-decoders (the reader sizes decoder-only models)."""


def _refuse_non_decoders(r: _Reader) -> None:
    """ConfigError for a model without a self-attention cache or with an encoder."""
    mt = r.model_type or ""
    enc = r.find("is_encoder_decoder")[1] if r.peek("is_encoder_decoder") else None
    if enc is True or mt in _ENCODER_DECODER_TYPES:
        raise ConfigError("is_encoder_decoder" if enc is True else "model_type",
                          "encoder_decoder", model_type=mt or None)
    ssm_fields = ("state_size", "ssm_cfg", "d_state", "time_step_rank")
    heads = r.peek("num_attention_heads", "n_head", "n_heads")
    if heads is None and r.peek("attn_layer_idx"):  # mamba_ssm hybrid: attn_cfg.num_heads
        heads = r.peek("num_heads")
    if mt in _NO_ATTENTION_TYPES or (heads is None and r.peek(*ssm_fields)):
        raise ConfigError("model_type" if mt else "num_attention_heads",
                          "no_kv_cache", model_type=mt or None)


def _kinds_from_list(r: _Reader, name: str, values: Any, n_layers: int) -> list[str]:
    if not isinstance(values, list):
        raise ConfigError(name, "bad_value", value=_short(values))
    if len(values) != n_layers:
        raise ConfigError(name, "layer_types_length", value=len(values), layers=n_layers)
    kinds = []
    for t in values:
        if not isinstance(t, str):
            raise ConfigError(name, "bad_value", value=_short(t))
        kind = _LAYER_TYPE_KINDS.get(t.lower())
        if kind is None:
            raise ConfigError(name, "unsupported", value=t[:40])
        kinds.append(kind)
    return kinds


def _index_list(r: _Reader, name: str, values: Any, n_layers: int) -> set[int]:
    """A list of layer indices (``cross_attention_layers``, ``moe_layers``)."""
    if not isinstance(values, list):
        raise ConfigError(name, "bad_value", value=_short(values))
    out = set()
    for v in values:
        if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v < n_layers:
            raise ConfigError(name, "bad_value", value=_short(v))
        out.add(v)
    return out


def _period_kinds(r: _Reader, n_layers: int) -> list[str] | None:
    """Kinds of a hybrid model that names its attention layers by a rule."""
    mt = r.model_type or ""
    name, values = r.find("layer_types")
    if name is not None:
        return _kinds_from_list(r, name, values, n_layers)
    for name in ("layers_block_type", "block_types"):
        found, values = r.find(name)
        if found is not None:
            if name == "block_types" and isinstance(values, list) and values and len(values) != n_layers:
                values = [values[i % len(values)] for i in range(n_layers)]
            return _kinds_from_list(r, name, values, n_layers)
    name, pattern = r.find("hybrid_override_pattern")
    if name is not None:
        if not isinstance(pattern, str) or len(pattern) != n_layers:
            raise ConfigError(name, "layer_types_length" if isinstance(pattern, str)
                              else "bad_value", value=_short(pattern), layers=n_layers)
        if any(c not in _HYBRID_PATTERN for c in pattern):
            raise ConfigError(name, "unsupported", value=pattern[:40])
        return [_HYBRID_PATTERN[c] for c in pattern]
    name, values = r.find("attn_type_list")
    if name is not None:  # MiniMax-01: 0 = lightning (linear) attention, 1 = softmax
        if not isinstance(values, list) or len(values) != n_layers:
            raise ConfigError(name, "layer_types_length", value=_short(values),
                              layers=n_layers)
        if any(v not in (0, 1) or isinstance(v, bool) for v in values):
            raise ConfigError(name, "bad_value", value=_short(values))
        return ["full" if v == 1 else "state" for v in values]
    if r.find("attn_layer_period")[0] is not None:  # Jamba: i % period == offset
        period = r.int("attn_layer_period", kind="layers")
        offset = r.int("attn_layer_offset", kind="layers", minimum=0, required=True)
        if offset >= period:
            raise ConfigError("attn_layer_offset", "bad_value", value=offset)
        return ["full" if i % period == offset else "state" for i in range(n_layers)]
    if r.find("full_attention_interval")[0] is not None and mt.startswith("qwen3_next"):
        every = r.int("full_attention_interval", kind="layers")
        return ["full" if (i + 1) % every == 0 else "state" for i in range(n_layers)]
    name, idx = r.find("attn_layer_idx")
    if name is not None:  # mamba_ssm MixerModel: attention at these indices, Mamba elsewhere
        at = _index_list(r, name, idx, n_layers)
        return ["full" if i in at else "state" for i in range(n_layers)]
    name, cross = r.find("cross_attention_layers")
    if name is not None:  # Llama 3.2 Vision: image layers between text layers
        idx = _index_list(r, name, cross, n_layers)
        return ["cross" if i in idx else "full" for i in range(n_layers)]
    return None


def _chunked_kinds(r: _Reader, n_layers: int) -> list[str] | None:
    """Llama 4: chunked attention on the RoPE layers, full on the NoPE ones.

    transformers' ``Llama4TextConfig`` builds ``layer_types`` as
    ``chunked_attention`` where ``no_rope_layers[i]`` is 1 (the layer uses
    RoPE) and ``full_attention`` where it is 0; without ``no_rope_layers``
    every 4th layer (``no_rope_layer_interval``) is a NoPE layer; an empty
    ``no_rope_layers`` (RedHat's FP8 Scout) counts as none, as transformers reads it.
    """
    if r.find("attention_chunk_size")[0] is None:
        return None
    name, values = r.find("no_rope_layers")
    if name is None or values == []:  # transformers: an empty list means the default
        every = r.int("no_rope_layer_interval", kind="layers", use_default=False)
        if every is None:
            every = 4
            r.defaults["no_rope_layer_interval"] = 4
        return ["chunked" if (i + 1) % every else "full" for i in range(n_layers)]
    if not isinstance(values, list) or len(values) != n_layers:
        raise ConfigError(name, "layer_types_length", value=_short(values), layers=n_layers)
    if any(v not in (0, 1) or isinstance(v, bool) for v in values):
        raise ConfigError(name, "bad_value", value=_short(values))
    return ["chunked" if v else "full" for v in values]


def _sliding_kinds(r: _Reader, n_layers: int) -> list[str]:
    """full / sliding per layer from the window fields (no window: all full)."""
    mt = r.model_type or ""
    full = ["full"] * n_layers
    if r.int("sliding_window", kind="window") is None:
        return full
    period = None
    if mt in _PATTERN_TYPES or r.find("sliding_window_pattern")[0]:
        period = r.int("sliding_window_pattern", kind="layers", required=True)
    elif mt in _GEMMA2_TYPES:
        period = 2
    elif r.find("query_pre_attn_scalar")[0]:
        period = 2  # Gemma-2-like config without a model_type we know
        r.defaults["sliding_window_pattern"] = 2
    if period is not None:
        return ["full" if (i + 1) % period == 0 else "sliding" for i in range(n_layers)]
    use = r.flag("use_sliding_window", None)
    if use is True and (mt in _QWEN_TYPES or r.find("max_window_layers")[0]):
        first = r.int("max_window_layers", kind="layers", minimum=0, required=True)
        return ["sliding" if i >= first else "full" for i in range(n_layers)]
    return ["sliding"] * n_layers


def _layout(r: _Reader, g: "_Geometry") -> tuple[tuple[LayerSpec, ...], dict]:
    """One :class:`LayerSpec` per layer (module docstring, "Layers"), and notes.

    The notes (``state_field``...) say where a state's size came from.
    """
    mt = r.model_type or ""
    n = g.n_layers
    use = r.flag("use_sliding_window", False if mt in _QWEN_TYPES else None)
    kinds = _period_kinds(r, n) or _chunked_kinds(r, n)
    if kinds is None:
        kinds = ["full"] * n if use is False else _sliding_kinds(r, n)
    if use is False:  # Qwen: the window is off whatever layer_types says
        kinds = ["full" if k == "sliding" else k for k in kinds]
    shared_name, shared = r.find("num_kv_shared_layers")
    if shared_name is not None:  # Gemma 3n: the last layers reuse earlier K/V
        count = _check_int(shared_name, shared, 0, n)
        if count >= n:
            raise ConfigError(shared_name, "bad_value", value=count)
        kinds = kinds[: n - count] + ["shared"] * count
    local = r.int("attention_window_size", kind="window")
    if local is not None:  # RecurrentGemma: its attention layers keep a local window
        kinds = ["sliding" if k == "full" else k for k in kinds]
    if not any(k in ("full", "sliding", "chunked") for k in kinds):
        raise ConfigError("layer_types" if r.find("layer_types")[0] else "config",
                          "no_kv_cache", model_type=mt or None)
    window = chunk = None
    if "sliding" in kinds:
        window = local or r.int("sliding_window", kind="window")
        if window is None:
            raise ConfigError("sliding_window", "missing")
    if "chunked" in kinds:
        chunk = r.int("attention_chunk_size", kind="window", required=True)
    state = _state_values(r, g) if "state" in kinds else 0
    if g.mla_dims is not None:
        per_token, kv_kind = g.mla_dims, "mla"
    else:
        per_token, kv_kind = 2 * g.n_kv_heads * g.head_dim, None
    specs = []
    for k in kinds:
        if k == "full":
            specs.append(LayerSpec(kv_kind or "full", values_per_token=per_token))
        elif k in ("sliding", "chunked"):
            if kv_kind:
                raise ConfigError("sliding_window", "unsupported", value="mla+" + k)
            specs.append(LayerSpec(k, span=window if k == "sliding" else chunk,
                                   values_per_token=per_token))
        elif k == "state":
            specs.append(LayerSpec("state", fixed_values=state))
        else:
            specs.append(LayerSpec(k))
    return tuple(specs)


def _state_values(r: _Reader, g: "_Geometry") -> int:
    """Values one recurrent layer keeps whatever the context (its state).

    - Mamba (Jamba ``mamba_*``): ``d_inner x (d_state + d_conv)``: the SSM state
      and the convolution's last ``d_conv`` inputs, d_inner = expand x hidden
      (transformers' ``HybridMambaAttentionDynamicCache``).
    - Mamba-2 (Nemotron-H ``mamba_num_heads``/``ssm_state_size``, Granite
      4.0-H ``mamba_n_heads``/``mamba_d_head``/``mamba_d_state``; checked
      before Mamba-1): ``heads x head_dim x d_state`` + ``(heads x head_dim +
      2 x n_groups x d_state) x conv_kernel``.
    - Gated DeltaNet (Qwen3-Next ``linear_*``): ``value heads x key_dim x
      value_dim`` + ``(2 x key heads x key_dim + value heads x value_dim) x
      conv_kernel``.
    - Lightning attention (MiniMax): one ``head_dim x head_dim`` state per head.
    - LFM2 short convolution (``layer_types`` ``conv``): ``hidden x
      conv_L_cache``, the last L inputs of each channel (``Lfm2HybridConvCache``).
    - mamba_ssm (``ssm_cfg`` beside ``attn_layer_idx``): ``_mamba_ssm_state``.
    - RG-LRU (RecurrentGemma ``recurrent`` blocks): ``lru_width x
      conv1d_width``: the recurrent state (``lru_width``, hidden_size when
      null, as ``RecurrentGemmaConfig`` takes it) and the convolution's last
      ``conv1d_width - 1`` inputs of each of its ``lru_width`` channels.

    Anything else: ConfigError ``state_unsized`` naming the layout field that
    calls for the state (``layer_types``, ``block_types``...).
    """
    d = g.hidden
    if r.peek("attn_layer_idx") and r.peek("ssm_cfg"):  # its fields are recorded one by one
        ssm = next(obj["ssm_cfg"] for _, obj in r.layers if obj.get("ssm_cfg") is not None)
        if isinstance(ssm, dict):
            return _mamba_ssm_state(r, ssm, d)
    if r.find(*_MAMBA2_HEADS)[0] is not None:  # Nemotron-H, Granite 4.0-H (Mamba-2)
        heads, hd, d_state, groups, conv = _mamba2_shape(r)
        return heads * hd * d_state + (heads * hd + 2 * groups * d_state) * conv
    if r.find("mamba_d_state")[0] is not None:  # Jamba (Mamba-1 layers)
        if d is None:
            raise ConfigError("hidden_size", "missing")
        d_state = r.int("mamba_d_state", kind="rank")
        d_conv = r.int("mamba_d_conv", kind="rank", required=True)
        expand = r.int("mamba_expand", kind="rank", required=True)
        return expand * d * (d_state + d_conv)
    if r.find("linear_num_value_heads")[0] is not None:  # Qwen3-Next Gated DeltaNet
        vh = r.int("linear_num_value_heads", kind="heads")
        kh = r.int("linear_num_key_heads", kind="heads", required=True)
        kd = r.int("linear_key_head_dim", kind="head_dim", required=True)
        vd = r.int("linear_value_head_dim", kind="head_dim", required=True)
        conv = r.int("linear_conv_kernel_dim", kind="rank", required=True)
        return vh * kd * vd + (2 * kh * kd + vh * vd) * conv
    if r.find("attn_type_list")[0] is not None:  # MiniMax lightning attention
        return g.n_heads * g.head_dim * g.head_dim
    if r.find("conv_L_cache")[0] is not None:  # LFM2 short convolution
        if d is None:
            raise ConfigError("hidden_size", "missing")
        return d * r.int("conv_L_cache", kind="rank")
    if r.find("conv1d_width")[0] is not None:  # RecurrentGemma's RG-LRU blocks
        width = r.int("lru_width", kind="hidden", use_default=False)
        if width is None:
            if d is None:
                raise ConfigError("hidden_size", "missing")
            width = r.defaults["lru_width"] = d
        return width * r.int("conv1d_width", kind="rank")
    layout = next((k for k in _LAYOUT_FIELDS if k in r.read or "text_config." + k in r.read),
                  "layer_types")
    raise ConfigError(layout, "state_unsized", model_type=r.model_type)


_MAMBA_SSM_DEFAULTS: Mapping[str, Mapping[str, int]] = MappingProxyType({
    "Mamba1": MappingProxyType(dict(d_state=16, d_conv=4, expand=2)),
    "Mamba2": MappingProxyType(dict(d_state=128, d_conv=4, expand=2, ngroups=1)),
})
"""mamba_ssm's ``Mamba`` and ``Mamba2`` defaults for what ``ssm_cfg`` leaves out
(mamba2attn-2.7b's names only ``"layer": "Mamba2"``)."""


def _mamba_ssm_state(r: _Reader, ssm: dict, d: int | None) -> int:
    """Values one mamba_ssm Mamba layer keeps (``allocate_inference_cache``).

    ``ssm_cfg.layer`` picks the class (``MixerModel``'s default: Mamba1); each
    size is ``ssm_cfg``'s, else the class default, recorded as assumed. With
    d_inner = expand x d_model: Mamba1 keeps ``d_inner x (d_state + d_conv)``
    (the SSM state and the convolution's last inputs); Mamba2 ``d_ssm x
    d_state + (d_ssm + 2 x ngroups x d_state) x d_conv`` (d_ssm: d_inner
    unless given). The attention layers' own short convolution over q/k/v
    (``attn_cfg.d_conv``) is a few thousand values and left out.
    """
    if d is None:
        raise ConfigError("d_model", "missing")
    layer = ssm.get("layer")
    if layer is None:
        layer = r.defaults["ssm_cfg.layer"] = "Mamba1"
    elif isinstance(layer, str) and layer in _MAMBA_SSM_DEFAULTS:
        r.read["ssm_cfg.layer"] = layer
    else:
        raise ConfigError("ssm_cfg.layer", "unsupported", value=_short(layer))
    size = {}
    for key, default in _MAMBA_SSM_DEFAULTS[layer].items():
        if ssm.get(key) is None:
            size[key] = r.defaults["ssm_cfg." + key] = default
        else:
            size[key] = r.read["ssm_cfg." + key] = _check_int(
                "ssm_cfg." + key, ssm[key], 1, LIMITS["rank"])
    inner = size["expand"] * d
    if layer == "Mamba1":
        return inner * (size["d_state"] + size["d_conv"])
    if ssm.get("d_ssm") is not None:
        inner = r.read["ssm_cfg.d_ssm"] = _check_int("ssm_cfg.d_ssm", ssm["d_ssm"], 1,
                                                     LIMITS["hidden"])
    bc = 2 * size["ngroups"] * size["d_state"]
    return inner * size["d_state"] + (inner + bc) * size["d_conv"]


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
    n_layers = r.int("num_hidden_layers", "n_layer", "num_layers", "n_layers",
                     kind="layers")
    if n_layers is None:
        # Nemotron-H's newer files (Nemotron 3 Ultra) list their blocks in
        # layers_block_type only; NemotronHConfig takes the list's length
        _, blocks = r.find("layers_block_type")
        if not isinstance(blocks, list) or not blocks:
            raise ConfigError("num_hidden_layers", "missing")
        n_layers = _check_int("layers_block_type", len(blocks), 1, LIMITS["layers"])
    n_heads = r.int("num_attention_heads", "n_head", "num_heads", "n_heads",
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
    mt = r.model_type or ""
    falcon = mt in _FALCON_TYPES or r.find("new_decoder_architecture")[0] is not None
    if falcon:
        # FalconAttention: num_kv_heads only with new_decoder_architecture, else
        # 1 with multi_query (FalconConfig's default: true), else MHA. A config
        # re-saved by transformers writes num_kv_heads = num_attention_heads
        # even for a multi-query model, so it is read only in the new layout.
        if r.flag("new_decoder_architecture", False):
            kv_name = "num_kv_heads" if r.find("num_kv_heads", "n_head_kv")[0] else None
            n_kv = (r.int("num_kv_heads", "n_head_kv", kind="kv_heads")
                    if kv_name else n_heads)
            if kv_name is None:
                r.defaults["num_kv_heads"] = n_heads
        elif r.flag("multi_query", True):
            kv_name, n_kv = "multi_query", 1
        else:
            kv_name, n_kv = "multi_query", n_heads
    elif r.flag("multi_query_attention", None):
        # ChatGLM / GLM-4 (remote code, SelfAttention): multi_query_group_num K/V
        # groups of kv_channels values (vLLM: total_num_kv_heads = multi_query_group_num)
        kv_name = "multi_query_group_num"
        n_kv = r.int(kv_name, kind="kv_heads", required=True)
    else:
        kv_name, _ = r.find("num_key_value_heads", "num_kv_heads", "kv_n_heads",
                            "num_heads_kv")
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
    head_dim = r.int("head_dim", "kv_channels", kind="head_dim")
    if head_dim is None:
        head_dim = _head_dim_from_hidden(r, hidden, n_heads)
    return _Geometry(n_layers, n_heads, n_kv, head_dim, hidden)


def _max_context(r: _Reader) -> int | None:
    """The longest context the config allows (module docstring): the larger of the
    positions field and ``model_max_length``, only the winner's field left recorded."""
    names = ("max_position_embeddings", "n_positions", "max_sequence_length", "seq_length")
    positions = r.int(*names, kind="context")
    _, extra = r.find("model_max_length")
    if extra is None:
        return positions
    if isinstance(extra, int) and not isinstance(extra, bool) and extra > LIMITS["context"]:
        extra = None  # transformers' VERY_LARGE_INTEGER: no limit stated
    else:
        extra = _check_int("model_max_length", extra, 1, LIMITS["context"])
    if extra is None or (positions is not None and positions >= extra):
        r.read.pop("text_config.model_max_length", None)
        r.read.pop("model_max_length", None)
        return positions
    for name in names:  # model_max_length is the longer: the positions field is not the answer
        r.read.pop(name, None)
        r.read.pop("text_config." + name, None)
        r.defaults.pop(name, None)
    return extra


def _head_dim_from_hidden(r: _Reader, hidden: int | None, n_heads: int) -> int:
    if hidden is None:
        raise ConfigError("hidden_size", "missing")
    if hidden % n_heads:
        raise ConfigError("hidden_size", "hidden_divide", hidden=hidden, heads=n_heads)
    return hidden // n_heads


# --------------------------------------------------------------------------
# Parameter count
# --------------------------------------------------------------------------


_MAMBA2_HEADS = ("mamba_num_heads", "mamba_n_heads")


def _mamba2_shape(r: _Reader) -> tuple[int, int, int, int, int]:
    """(heads, head_dim, d_state, groups, conv kernel) of a Mamba-2 mixer."""
    heads = r.int(*_MAMBA2_HEADS, kind="heads")
    hd = r.int("mamba_head_dim", "mamba_d_head", kind="head_dim", required=True)
    d_state = r.int("ssm_state_size", "state_size", "mamba_d_state", kind="rank",
                    required=True)
    groups = r.int("n_groups", "mamba_n_groups", kind="heads", required=True)
    conv = r.int("conv_kernel", "mamba_d_conv", kind="rank", required=True)
    return heads, hd, d_state, groups, conv


def _mamba2_params(r: _Reader, d: int) -> int:
    """One Mamba-2 mixer (transformers' ``GraniteMoeHybridMambaLayer``,
    ``NemotronHMamba2Mixer``): in_proj to z, x, B, C and dt, a depthwise conv
    over x, B, C, per-head dt_bias / A_log / D, a gated norm, out_proj."""
    heads, hd, d_state, groups, conv = _mamba2_shape(r)
    inner, bc = heads * hd, 2 * groups * d_state
    conv_bias = r.flag("mamba_conv_bias", None)
    conv_bias = r.flag("use_conv_bias", True) if conv_bias is None else conv_bias
    proj_bias = r.flag("mamba_proj_bias", None)
    proj_bias = r.flag("use_bias", False) if proj_bias is None else proj_bias
    in_out = 2 * inner + bc + heads
    return (d * in_out + (in_out if proj_bias else 0)             # in_proj
            + (inner + bc) * conv + ((inner + bc) if conv_bias else 0)  # conv1d
            + 3 * heads + inner                                   # dt_bias, A_log, D, norm
            + inner * d + (d if proj_bias else 0))                # out_proj


def _idefics_cross_params(r: _Reader, d: int, L: int, H: int, h: int) -> int:
    """Idefics' gated cross-attention layers (``IdeficsGatedCrossAttentionLayer``),
    num_hidden_layers // ``cross_layer_interval`` of them beside the decoder: q/o
    d x H x h, k/v from the image features (``vision_config.embed_dim`` wide), q/k
    norms under ``qk_layer_norms``, a gated MLP of ``intermediate_size``, two
    RMSNorms and the two tanh gates (one value each, d each when ``alpha_type``
    is "vector")."""
    n = L // (r.int("cross_layer_interval", kind="layers") or 1)
    _, vision = r.find("vision_config")
    kv_in = vision.get("embed_dim") if isinstance(vision, dict) else None
    kv_in = d if kv_in is None else _check_int("vision_config.embed_dim", kv_in, 1,
                                               LIMITS["hidden"])
    inter = r.int("intermediate_size", kind="intermediate", required=True)
    _, alpha = r.find("alpha_type")
    per = (2 * d * H * h + 2 * kv_in * H * h + (2 * h if r.flag("qk_layer_norms", False) else 0)
           + 3 * d * inter + 2 * d + (2 * d if alpha == "vector" else 2))
    return n * per


def _falcon_h1_mamba_params(r: _Reader, d: int) -> int:
    """The Mamba-2 mixer beside the attention in every Falcon-H1 layer
    (``FalconH1Mixer``): ``mamba_d_ssm`` channels (``mamba_expand`` x d when
    null), in_proj to z, x, B, C and dt (biased under ``mamba_proj_bias``), a
    depthwise conv over x, B, C, per-head dt_bias / A_log / D, a gated norm only
    under ``mamba_rms_norm``, out_proj (biased under ``projectors_bias``)."""
    heads = r.int("mamba_n_heads", kind="heads", required=True)
    d_state = r.int("mamba_d_state", kind="rank", required=True)
    conv = r.int("mamba_d_conv", kind="rank", required=True)
    groups = r.int("mamba_n_groups", kind="heads") or 1
    inner = r.int("mamba_d_ssm", kind="intermediate")
    if inner is None:
        _, expand = r.find("mamba_expand")
        if not isinstance(expand, (int, float)) or isinstance(expand, bool) or expand <= 0:
            raise ConfigError("mamba_expand", "missing" if expand is None else "bad_value",
                              value=_short(expand))
        inner = int(expand * d)
    conv_dim = inner + 2 * groups * d_state
    in_out = inner + conv_dim + heads
    return (d * in_out + (in_out if r.flag("mamba_proj_bias", False) else 0)
            + conv_dim * conv + (conv_dim if r.flag("mamba_conv_bias", True) else 0)
            + 3 * heads + (inner if r.flag("mamba_rms_norm", False) else 0)
            + inner * d + (d if r.flag("projectors_bias", False) else 0))


def _mamba_params(r: _Reader, d: int) -> int:
    """One Jamba Mamba mixer (transformers' ``JambaMambaMixer``)."""
    d_state = r.int("mamba_d_state", kind="rank", required=True)
    d_conv = r.int("mamba_d_conv", kind="rank", required=True)
    expand = r.int("mamba_expand", kind="rank", required=True)
    name, rank = r.find("mamba_dt_rank")
    if name is None or rank == "auto":
        rank = math.ceil(d / 16)
    rank = _check_int("mamba_dt_rank", rank, 1, LIMITS["rank"])
    inner = expand * d
    conv_bias = r.flag("mamba_conv_bias", True)
    proj_bias = r.flag("mamba_proj_bias", False)
    return (d * 2 * inner + (2 * inner if proj_bias else 0)      # in_proj
            + inner * d_conv + (inner if conv_bias else 0)        # conv1d
            + inner * (rank + 2 * d_state)                        # x_proj
            + rank * inner + inner                                # dt_proj
            + inner * d_state + inner                             # A_log, D
            + inner * d + (d if proj_bias else 0)                 # out_proj
            + rank + 2 * d_state)                                 # dt/B/C norms


def _delta_net_params(r: _Reader, d: int) -> int:
    """One Qwen3-Next Gated DeltaNet mixer (``Qwen3NextGatedDeltaNet``)."""
    vh = r.int("linear_num_value_heads", kind="heads", required=True)
    kh = r.int("linear_num_key_heads", kind="heads", required=True)
    kd = r.int("linear_key_head_dim", kind="head_dim", required=True)
    vd = r.int("linear_value_head_dim", kind="head_dim", required=True)
    conv = r.int("linear_conv_kernel_dim", kind="rank", required=True)
    key, value = kh * kd, vh * vd
    return (d * (2 * key + 2 * value) + d * 2 * vh      # in_proj_qkvz, in_proj_ba
            + (2 * key + value) * conv + 2 * vh + vd    # conv1d, dt_bias + A_log, norm
            + value * d)                                # out_proj


# the fields that name the experts: ERNIE 4.5 MoE's moe_num_experts / moe_k and
# Aria's moe_num_experts / moe_topk are the same numbers under other names
_EXPERT_COUNT = ("num_local_experts", "num_experts", "n_routed_experts", "moe_num_experts")
_EXPERTS_PER_TOKEN = ("num_experts_per_tok", "num_experts_per_token", "experts_per_token",
                      "top_k_experts", "moe_k", "moe_topk")


def _expert_count(r: _Reader) -> int | None:
    """The routed experts per MoE layer, or None for a dense model: Doge's
    ``is_moe`` false switches its default ``num_experts`` (16384) off."""
    if r.flag("is_moe", None) is False:
        return None
    return r.int(*_EXPERT_COUNT, kind="experts")


def _moe_width(r: _Reader) -> int | None:
    """The routed experts' ``moe_intermediate_size``. ERNIE 4.5 VL lists two, its
    text experts' and its vision experts' (``text_moe`` and ``vision_moe`` side by
    side in each MoE layer): the language model's are the first, and the vision
    experts are left out of the count as the vision tower is."""
    name, value = r.find("moe_intermediate_size")
    if (isinstance(value, list) and value and (r.model_type or "").startswith("ernie4_5_vl")):
        return _check_int(name, value[0], 1, LIMITS["intermediate"])
    return r.int("moe_intermediate_size", kind="intermediate")


def _moe_layers(r: _Reader, L: int) -> set[int]:
    """Which layers have a mixture of experts, as the modeling code decides.

    Llama 4: ``moe_layers``, else every ``interleave_moe_layer_step``-th layer
    (from layer step - 1); Qwen-MoE: layer i when (i + 1) %
    ``decoder_sparse_step`` == 0 and i is not in ``mlp_only_layers``; Jamba:
    i % ``expert_layer_period`` == ``expert_layer_offset``; DeepSeek: from
    ``first_k_dense_replace`` on, every ``moe_layer_freq``-th (MiniMax-M3's
    ``moe_layer_freq`` is a list, one 0/1 flag per layer); ERNIE 4.5: i from
    ``moe_layer_start_index`` to ``moe_layer_end_index`` (the last layer when
    absent) with (i + 1) % ``moe_layer_interval`` == 0; HY-V3 and EXAONE-MoE:
    the layers ``mlp_layer_types`` calls "sparse"; AFMoE's ``num_dense_layers``
    is DeepSeek's ``first_k_dense_replace``; else all.
    """
    mt = r.model_type or ""
    name, listed = r.find("moe_layers")
    if name is not None and mt in _LLAMA4_TYPES:
        return _index_list(r, name, listed, L)
    if mt in _LLAMA4_TYPES:
        step = r.int("interleave_moe_layer_step", kind="layers", use_default=False) or 1
        return set(range(step - 1, L, step))
    if r.find("expert_layer_period")[0] is not None:
        period = r.int("expert_layer_period", kind="layers")
        offset = r.int("expert_layer_offset", kind="layers", minimum=0, required=True)
        return {i for i in range(L) if i % period == offset}
    name, kinds = r.find("mlp_layer_types")
    if name is not None:  # HY-V3, EXAONE-MoE: "dense" or "sparse" per layer
        if (not isinstance(kinds, list) or len(kinds) != L
                or any(k not in ("dense", "sparse") for k in kinds)):
            raise ConfigError(name, "bad_value", value=_short(kinds))
        return {i for i, k in enumerate(kinds) if k == "sparse"}
    if r.find("moe_layer_start_index")[0] is not None:  # ERNIE 4.5
        start = r.int("moe_layer_start_index", kind="layers", minimum=0)
        end = r.int("moe_layer_end_index", kind="layers", minimum=0)
        step = r.int("moe_layer_interval", kind="layers") or 1
        end = L - 1 if end is None else end
        return {i for i in range(L) if start <= i <= end and (i + 1) % step == 0}
    layers = set(range(L))
    if r.find("decoder_sparse_step")[0] is not None:
        step = r.int("decoder_sparse_step", kind="layers")
        layers = {i for i in layers if (i + 1) % step == 0}
    name, only = r.find("mlp_only_layers")
    if name is not None:
        layers -= _index_list(r, name, only, L)
    first = r.int("first_k_dense_replace", "num_dense_layers", kind="layers", minimum=0) or 0
    name, flags = r.find("moe_layer_freq")
    if isinstance(flags, list):  # MiniMax-M3: one 0/1 flag per layer
        if len(flags) != L or any(f not in (0, 1) or isinstance(f, bool) for f in flags):
            raise ConfigError(name, "bad_value", value=_short(flags))
        return {i for i in layers if flags[i] == 1}
    freq = r.int("moe_layer_freq", kind="layers") or 1
    return {i for i in layers if i >= first and (i - first) % freq == 0}


def _params(r: _Reader, g: _Geometry, layers: tuple[LayerSpec, ...]) -> ParamCount:
    """Count the parameters (see the module docstring), or ConfigError params_needed."""
    mt = r.model_type or ""
    if not mt:  # no model_type (distilgpt2's 2019 file): the class architectures names
        _, archs = r.find("architectures")
        arch = archs[0] if isinstance(archs, list) and archs else None
        mt = _ARCHITECTURE_TYPES.get(arch, "") if isinstance(arch, str) else ""
    family = _FAMILY_PARAMS.get(mt)
    if family is not None:
        return family(r, g)
    if mt in GATED_MLP_EXCLUDED:
        raise ConfigError("n_params", "params_needed", model_type=mt,
                          reason="mlp_not_gated")
    d = g.hidden
    if d is None:
        raise ConfigError("n_params", "params_needed", missing="hidden_size")
    vocab = r.int("vocab_size", "padded_vocab_size", kind="vocab")
    if vocab is None:
        raise ConfigError("n_params", "params_needed", missing="vocab_size")
    sharing = r.find("use_embedding_sharing")[0]
    tie_default = (r.flag("use_embedding_sharing", None) if sharing
                   else mt in _TIED_BY_DEFAULT)
    # a composite (image-text) model ties its lm_head by its own, top-level flag
    tied = r.flag("tie_word_embeddings", tie_default, top_first=True)
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
        # Qwen3-Next / Qwen3.5: q_proj also writes an output gate (attn_output_gate)
        gate = bool(r.flag("attn_output_gate", mt.startswith(("qwen3_next", "qwen3_5"))))
        # MiniCPM 5 MoE: a fused q_gate_proj, twice q_proj's width, no q/k norms
        fused_gate = mt == "minicpm5_moe"
        attn = d * H * h * (2 if gate or fused_gate else 1) + 2 * d * K * h + H * h * d
        bias = r.flag("attention_bias", None)
        if bias or mt in _QKV_BIAS_TYPES:
            attn += (H + 2 * K) * h  # q, k, v biases (Qwen2 always has them)
        if bias:
            attn += d  # and the o_proj bias
        if mt in _QK_NORM_TYPES or gate:
            attn += 2 * h
        if mt in _GATE_PROJ_TYPES:  # MuseGlimmer: sigmoid(gate_proj(x)) scales the output
            attn += d * H * h

    mixers = 0
    for spec in layers:
        if spec.kind in ("full", "sliding", "chunked", "mla", "shared"):
            mixers += attn  # a shared-K/V layer keeps its own projections
        elif spec.kind == "cross":  # mllama: q/k norms and two tanh gates more
            mixers += attn + 2 * h + 2
        elif spec.kind == "state" and r.find(*_MAMBA2_HEADS)[0] is not None:
            mixers += _mamba2_params(r, d)
        elif spec.kind == "state" and r.find("mamba_d_state")[0] is not None:
            mixers += _mamba_params(r, d)
        elif spec.kind == "state" and r.find("linear_num_value_heads")[0] is not None:
            mixers += _delta_net_params(r, d)
        elif spec.kind == "state" and r.find("conv_L_cache")[0] is not None:
            # LFM2 ShortConv: in_proj d -> 3d, depthwise conv of L, out_proj
            bias = bool(r.flag("conv_bias", False))
            mixers += 4 * d * d + d * r.int("conv_L_cache", kind="rank") + (5 * d if bias else 0)
        else:
            raise ConfigError("n_params", "params_needed", model_type=mt,
                              reason="hybrid_layers")

    if mt == "falcon_h1":  # a Mamba-2 mixer beside the attention in every layer
        mixers += L * _falcon_h1_mamba_params(r, d)
    if mt == "idefics":  # gated cross-attention layers beside the decoder layers
        mixers += _idefics_cross_params(r, d, L, H, h)

    n_experts = _expert_count(r)
    inter = r.int("intermediate_size", kind="intermediate")
    if inter is not None and r.flag("block_auto_adjust_ff_dim", False):
        inter = _lfm2_width(r, inter)
    mlp_bias = bool(r.flag("mlp_bias", None))

    def dense(width: int) -> int:
        if mt in _UP_DOWN_MLP_TYPES:  # no gate_proj; Apertus' xIELU has 2 parameters
            return 2 * d * width + ((width + d) if mlp_bias else 0) + (2 if mt.startswith("apertus") else 0)
        return 3 * d * width + ((2 * width + d) if mlp_bias else 0)

    experts = active_experts = shared = 0
    if n_experts is None:
        if inter is None:
            raise ConfigError("n_params", "params_needed", missing="intermediate_size")
        dense_mlp = L * dense(inter)
    else:
        k = r.int(*_EXPERTS_PER_TOKEN, kind="experts", required=True)
        if k > n_experts:
            raise ConfigError("num_experts_per_tok", "experts_range",
                              experts=n_experts, per_token=k)
        moe = _moe_layers(r, L)
        llama4 = mt in _LLAMA4_TYPES
        width = (inter if llama4 else
                 _moe_width(r) or inter)
        if width is None:
            raise ConfigError("n_params", "params_needed",
                              missing="moe_intermediate_size")
        dense_width = (r.int("intermediate_size_mlp", kind="intermediate") or inter
                       if llama4 else inter)
        n_dense = L - len(moe)
        if n_dense and dense_width is None:
            raise ConfigError("n_params", "params_needed", missing="intermediate_size")
        dense_mlp = n_dense * dense(dense_width) if n_dense else 0
        latent = r.int("moe_hidden_size", kind="hidden") if mt in _MUSE_SPARK_TYPES else None
        per_expert = 3 * (latent or d) * width
        experts = len(moe) * n_experts * per_expert
        active_experts = len(moe) * k * per_expert
        n_shared = r.int("n_shared_experts", "moe_num_shared_experts", "num_shared_experts",
                         kind="experts", minimum=0) or 0
        if llama4:  # Llama4TextMoe: one shared expert as wide as the routed ones
            n_shared = 1
        shared_name, _ = r.find("shared_expert_intermediate_size", "shared_intermediate_size")
        shared_width = shared_name and r.int(shared_name, kind="intermediate", minimum=0)
        per_layer_shared = d * n_experts  # router
        per_layer_shared += n_shared * per_expert
        if latent:  # MuseSpark: pre/post_expert_proj and the two latent norms
            per_layer_shared += 2 * d * latent + 2 * latent
        if shared_width:  # Qwen-MoE: + its gate; Granite's shared_mlp has none
            per_layer_shared += 3 * d * shared_width
            per_layer_shared += d if shared_name == "shared_expert_intermediate_size" else 0
        shared = len(moe) * per_layer_shared

    per_layer_norms = 4 if mt in _FOUR_NORM_TYPES else 1 if mt in _COHERE_TYPES else 2
    if mt in _MUSE_SPARK_TYPES:  # three norms and two residual gates, d each
        per_layer_norms = 5
    final_norm = d
    if mt == "nemotron":  # LayerNorm1P: a weight and a bias, also the final one
        per_layer_norms, final_norm = 4, 2 * d
    return ParamCount(
        embedding=vocab * d,
        lm_head=0 if tied else vocab * d,
        attention=mixers,
        dense_mlp=dense_mlp,
        experts=experts,
        active_experts=active_experts,
        shared=shared,
        norms=L * per_layer_norms * d + final_norm,
    )


def _lfm2_width(r: _Reader, inter: int) -> int:
    """LFM2's MLP width (``Lfm2MLP``): 2/3 of intermediate_size, times
    ``block_ffn_dim_multiplier`` rounded up to ``block_multiple_of``."""
    width = int(2 * inter / 3)
    _, mult = r.find("block_ffn_dim_multiplier")
    if isinstance(mult, (int, float)) and not isinstance(mult, bool):
        width = int(mult * width)
        step = r.int("block_multiple_of", kind="intermediate") or 256
        width = step * ((width + step - 1) // step)
    return width


def _hidden_and_vocab(r: _Reader, g: _Geometry) -> tuple[int, int]:
    """hidden_size and vocab_size, which every parameter rule needs, or
    ConfigError params_needed naming the one that is missing."""
    d = g.hidden
    vocab = r.int("vocab_size", kind="vocab")
    if d is None or vocab is None:
        raise ConfigError("n_params", "params_needed",
                          missing="hidden_size" if d is None else "vocab_size")
    return d, vocab


def _falcon_params(r: _Reader, g: _Geometry) -> ParamCount:
    """Falcon as ``FalconModel`` builds it: fused QKV, a 4d GELU MLP, LayerNorms."""
    d, vocab = _hidden_and_vocab(r, g)
    L, H, K, h = g.n_layers, g.n_heads, g.n_kv_heads, g.head_dim
    bias = bool(r.flag("bias", False))
    attn = d * (H + 2 * K) * h + H * h * d + (((H + 2 * K) * h + d) if bias else 0)
    ffn = r.int("ffn_hidden_size", kind="intermediate") or 4 * d
    mlp = 2 * d * ffn + ((ffn + d) if bias else 0)
    new_arch = bool(r.flag("new_decoder_architecture", False))
    if new_arch:  # ln_attn and ln_mlp (num_ln_in_parallel_attn 2), or one
        n_ln = r.int("num_ln_in_parallel_attn", kind="layers") or 2
    else:  # input_layernorm, and post_attention_layernorm unless parallel
        n_ln = 1 if r.flag("parallel_attn", True) else 2
    tied = r.flag("tie_word_embeddings", True)
    return ParamCount(
        embedding=vocab * d, lm_head=0 if tied else vocab * d, attention=L * attn,
        dense_mlp=L * mlp, experts=0, active_experts=0, shared=0,
        norms=L * n_ln * 2 * d + 2 * d,
    )


def _need(r: _Reader, *names: str, kind: str) -> int:
    """A size a family's count needs: its value, or ConfigError ``params_needed``
    naming it (so a count typed in still stands in for it)."""
    value = r.int(*names, kind=kind)
    if value is None:
        raise ConfigError("n_params", "params_needed", missing=names[0])
    return value


def _family_sizes(r: _Reader, g: _Geometry, vocab_names: tuple[str, ...] = ("vocab_size",),
                  width_names: tuple[str, ...] = ("intermediate_size",)) -> tuple[int, int, int]:
    """(hidden, vocab, MLP width) that a family's rule needs, or ConfigError
    ``params_needed`` naming the first one the config lacks."""
    d = g.hidden
    vocab = r.int(*vocab_names, kind="vocab")
    width = r.int(*width_names, kind="intermediate")
    for name, value in (("hidden_size", d), (vocab_names[0], vocab), (width_names[0], width)):
        if value is None:
            raise ConfigError("n_params", "params_needed", missing=name)
    return d, vocab, width


def _phi_params(r: _Reader, g: _Geometry) -> ParamCount:
    """Phi-1/1.5/2 as ``PhiModel`` builds it: biased q/k/v/dense, fc1/fc2 GELU MLP,
    one LayerNorm per layer (attention and MLP in parallel), a biased lm_head."""
    d, vocab, inter = _family_sizes(r, g)
    L, H, K, h = g.n_layers, g.n_heads, g.n_kv_heads, g.head_dim
    attn = d * (H + 2 * K) * h + (H + 2 * K) * h + H * h * d + d
    if r.flag("qk_layernorm", False):
        attn += 4 * h  # q and k LayerNorms over head_dim, with biases
    tied = r.flag("tie_word_embeddings", False)
    return ParamCount(
        embedding=vocab * d, lm_head=0 if tied else vocab * d + vocab,
        attention=L * attn, dense_mlp=L * (2 * d * inter + inter + d),
        experts=0, active_experts=0, shared=0, norms=L * 2 * d + 2 * d,
    )


def _gpt2_params(r: _Reader, g: _Geometry) -> ParamCount:
    """GPT-2 (``GPT2Model``) and GPTBigCode / StarCoder (``GPTBigCodeModel``).

    Both build, per layer, a fused ``c_attn`` (GPT-2's Conv1D, BigCode's
    Linear) of d + 2 x K x h outputs with a bias (K = H for GPT-2; 1 under
    BigCode's ``multi_query``), a biased ``c_proj`` d x d, a gate-less GELU MLP
    (``c_fc`` d -> inner, ``c_proj`` inner -> d, both biased; inner is
    ``n_inner``, 4d when null) and two LayerNorms with a bias (ln_1, ln_2);
    then ``ln_f``, learned positions ``wpe`` (``n_positions`` x d: required,
    the class default is not assumed) and ``wte``, which the lm_head shares.
    """
    d, vocab = g.hidden, r.int("vocab_size", kind="vocab")
    positions = r.int("n_positions", "max_position_embeddings", kind="context")
    if d is None or vocab is None or positions is None:
        raise ConfigError("n_params", "params_needed", missing="n_embd" if d is None
                          else "vocab_size" if vocab is None else "n_positions")
    L, K, h = g.n_layers, g.n_kv_heads, g.head_dim
    inner = r.int("n_inner", "intermediate_size", kind="intermediate") or 4 * d
    attn = d * (d + 2 * K * h) + (d + 2 * K * h) + d * d + d
    mlp = 2 * d * inner + inner + d
    tied = r.flag("tie_word_embeddings", True)
    return ParamCount(
        embedding=vocab * d + positions * d, lm_head=0 if tied else vocab * d,
        attention=L * attn, dense_mlp=L * mlp, experts=0, active_experts=0, shared=0,
        norms=L * 4 * d + 2 * d,
    )


def _starcoder2_params(r: _Reader, g: _Geometry) -> ParamCount:
    """Starcoder2 (``Starcoder2Model``): q/k/v/o and a gate-less ``c_fc``/``c_proj``
    MLP, all with a bias when ``use_bias`` (the class default), two LayerNorms
    with a bias per layer and a final one, the lm_head tied by default."""
    d, vocab, inter = _family_sizes(r, g)
    L, H, K, h = g.n_layers, g.n_heads, g.n_kv_heads, g.head_dim
    bias = bool(r.flag("use_bias", True))
    attn = 2 * d * H * h + 2 * d * K * h + (((H + 2 * K) * h + d) if bias else 0)
    mlp = 2 * d * inter + ((inter + d) if bias else 0)
    tied = r.flag("tie_word_embeddings", True)
    return ParamCount(
        embedding=vocab * d, lm_head=0 if tied else vocab * d, attention=L * attn,
        dense_mlp=L * mlp, experts=0, active_experts=0, shared=0,
        norms=L * 4 * d + 2 * d,
    )


def _gpt_neox_params(r: _Reader, g: _Geometry) -> ParamCount:
    """GPT-NeoX / Pythia (``GPTNeoXModel``): a fused ``query_key_value`` (3 x d
    outputs) and a ``dense`` d x d, both biased when ``attention_bias`` (the
    class default); a gate-less GELU MLP (``dense_h_to_4h``, ``dense_4h_to_h``,
    both biased); two LayerNorms with a bias per layer and ``final_layer_norm``;
    ``embed_in`` and an ``embed_out`` lm_head that is not tied by default."""
    d, vocab, inter = _family_sizes(r, g)
    L = g.n_layers
    bias = bool(r.flag("attention_bias", True))
    attn = 3 * d * d + d * d + (4 * d if bias else 0)
    tied = r.flag("tie_word_embeddings", False)
    return ParamCount(
        embedding=vocab * d, lm_head=0 if tied else vocab * d, attention=L * attn,
        dense_mlp=L * (2 * d * inter + inter + d), experts=0, active_experts=0, shared=0,
        norms=L * 4 * d + 2 * d,
    )


def _opt_params(r: _Reader, g: _Geometry) -> ParamCount:
    """OPT (``OPTDecoder``): q/k/v/out projections and a gate-less ``fc1``/``fc2``
    MLP (``ffn_dim``), all biased under ``enable_bias`` (the class default); two
    LayerNorms per layer and a final one (with ``do_layer_norm_before``), with a
    bias; learned positions of ``max_position_embeddings`` + 2 (OPT's offset);
    embeddings of ``word_embed_proj_dim`` with ``project_in``/``project_out``
    where that differs from d (OPT-350m); the lm_head tied by default."""
    d, vocab, inter = _family_sizes(r, g, width_names=("ffn_dim",))
    positions = r.int("max_position_embeddings", kind="context")
    if positions is None:
        raise ConfigError("n_params", "params_needed", missing="max_position_embeddings")
    L = g.n_layers
    e = r.int("word_embed_proj_dim", kind="hidden") or d
    bias = bool(r.flag("enable_bias", True))
    attn = 4 * d * d + (4 * d if bias else 0)
    mlp = 2 * d * inter + ((inter + d) if bias else 0)
    final = 2 * d if r.flag("do_layer_norm_before", True) else 0
    tied = r.flag("tie_word_embeddings", True)
    return ParamCount(
        embedding=vocab * e + (positions + 2) * d + (2 * e * d if e != d else 0),
        lm_head=0 if tied else vocab * e, attention=L * attn, dense_mlp=L * mlp,
        experts=0, active_experts=0, shared=0, norms=L * 4 * d + final,
    )


def _gptj_params(r: _Reader, g: _Geometry) -> ParamCount:
    """GPT-J and CodeGen (``GPTJModel``, ``CodeGenModel``): q/k/v/out without a
    bias (CodeGen fuses q/k/v in one ``qkv_proj``: the same count), attention
    and a gate-less ``fc_in``/``fc_out`` MLP side by side after one LayerNorm
    with a bias; inner is ``n_inner``, 4d when null; ``ln_f``; an untied
    lm_head with a bias."""
    d, vocab = g.hidden, r.int("vocab_size", kind="vocab")
    if d is None or vocab is None:
        raise ConfigError("n_params", "params_needed",
                          missing="n_embd" if d is None else "vocab_size")
    inner = r.int("n_inner", kind="intermediate") or 4 * d
    tied = r.flag("tie_word_embeddings", False)
    return ParamCount(
        embedding=vocab * d, lm_head=0 if tied else vocab * d + vocab,
        attention=g.n_layers * 4 * d * d, dense_mlp=g.n_layers * (2 * d * inner + inner + d),
        experts=0, active_experts=0, shared=0, norms=g.n_layers * 2 * d + 2 * d,
    )


def _gpt_neo_params(r: _Reader, g: _Geometry) -> ParamCount:
    """GPT-Neo (``GPTNeoModel``): q/k/v without a bias and a biased ``out_proj``,
    a gate-less ``c_fc``/``c_proj`` MLP with biases (``intermediate_size``, 4d
    when null), two LayerNorms with a bias per layer and ``ln_f``, learned
    positions ``wpe`` (``max_position_embeddings`` x d) and ``wte``, which the
    lm_head shares by default."""
    d, vocab = g.hidden, r.int("vocab_size", kind="vocab")
    positions = r.int("max_position_embeddings", kind="context")
    if d is None or vocab is None or positions is None:
        raise ConfigError("n_params", "params_needed", missing="hidden_size" if d is None
                          else "vocab_size" if vocab is None else "max_position_embeddings")
    inner = r.int("intermediate_size", kind="intermediate") or 4 * d
    tied = r.flag("tie_word_embeddings", True)
    return ParamCount(
        embedding=vocab * d + positions * d, lm_head=0 if tied else vocab * d,
        attention=g.n_layers * (4 * d * d + d),
        dense_mlp=g.n_layers * (2 * d * inner + inner + d),
        experts=0, active_experts=0, shared=0, norms=g.n_layers * 4 * d + 2 * d,
    )


def _bloom_params(r: _Reader, g: _Geometry) -> ParamCount:
    """BLOOM (``BloomModel``): a biased fused ``query_key_value`` (3d) and
    ``dense``, a gate-less MLP of 4d with biases, two LayerNorms with a bias
    per layer, a LayerNorm after the embeddings and ``ln_f``; ALiBi, so no
    position table; the lm_head tied by default."""
    d, vocab = _hidden_and_vocab(r, g)
    tied = r.flag("tie_word_embeddings", True)
    return ParamCount(
        embedding=vocab * d, lm_head=0 if tied else vocab * d,
        attention=g.n_layers * (4 * d * d + 4 * d),
        dense_mlp=g.n_layers * (8 * d * d + 5 * d),
        experts=0, active_experts=0, shared=0, norms=g.n_layers * 4 * d + 4 * d,
    )


def _mpt_params(r: _Reader, g: _Geometry) -> ParamCount:
    """MPT (``MptModel``): a fused ``Wqkv`` and ``out_proj``, an ``up_proj`` /
    ``down_proj`` MLP of ``expansion_ratio`` x d, without biases under
    ``no_bias`` (the class default: LayerNorms then hold a weight only), two
    LayerNorms per layer and a final one; ALiBi; the lm_head tied."""
    d, vocab = g.hidden, r.int("vocab_size", kind="vocab")
    if d is None or vocab is None:
        raise ConfigError("n_params", "params_needed",
                          missing="d_model" if d is None else "vocab_size")
    ratio = r.int("expansion_ratio", kind="intermediate") or 4
    inner = ratio * d
    bias = not r.flag("no_bias", True)
    norm = 2 * d if bias else d
    tied = r.flag("tie_word_embeddings", True)
    return ParamCount(
        embedding=vocab * d, lm_head=0 if tied else vocab * d,
        attention=g.n_layers * (4 * d * d + (4 * d if bias else 0)),
        dense_mlp=g.n_layers * (2 * d * inner + ((inner + d) if bias else 0)),
        experts=0, active_experts=0, shared=0, norms=g.n_layers * 2 * norm + norm,
    )


def _chatglm_params(r: _Reader, g: _Geometry) -> ParamCount:
    """ChatGLM2/3 and GLM-4 (remote code ``modeling_chatglm.py``, ``ChatGLMModel``).

    Per layer (``GLMBlock``): a fused ``query_key_value`` d -> H x h + 2 x G x h
    (G = ``multi_query_group_num`` K/V groups under ``multi_query_attention``,
    else H; h = ``kv_channels``) with a bias when ``add_qkv_bias``, ``dense``
    H x h -> d, a SwiGLU ``dense_h_to_4h`` d -> 2 x ``ffn_hidden_size`` and
    ``dense_4h_to_h`` back (these three biased when ``add_bias_linear``), two
    norms (RMSNorm: d; LayerNorm: 2d); the final norm with
    ``post_layer_norm``; ``word_embeddings`` and ``output_layer`` of
    ``padded_vocab_size`` x d, untied unless ``tie_word_embeddings``.
    """
    d, vocab, ffn = _family_sizes(r, g, ("padded_vocab_size", "vocab_size"),
                                  ("ffn_hidden_size",))
    L, H, K, h = g.n_layers, g.n_heads, g.n_kv_heads, g.head_dim
    qkv = (H + 2 * K) * h
    linear_bias = bool(r.flag("add_bias_linear", False))
    attn = d * qkv + (qkv if r.flag("add_qkv_bias", False) else 0) + H * h * d
    attn += d if linear_bias else 0
    mlp = 3 * d * ffn + ((2 * ffn + d) if linear_bias else 0)
    norm = d if r.flag("rmsnorm", True) else 2 * d
    final = norm if r.flag("post_layer_norm", True) else 0
    tied = r.flag("tie_word_embeddings", False)
    return ParamCount(
        embedding=vocab * d, lm_head=0 if tied else vocab * d, attention=L * attn,
        dense_mlp=L * mlp, experts=0, active_experts=0, shared=0,
        norms=L * 2 * norm + final,
    )


def _nemotron_h_params(r: _Reader, g: _Geometry) -> ParamCount:
    """Nemotron-H (``NemotronHModel``), block by block from
    ``hybrid_override_pattern``: each block is an RMSNorm and one mixer,
    ``M`` a Mamba-2 mixer (``_mamba2_params``), ``*`` attention (q/k/v/o
    without biases), ``-`` a gate-less MLP (up d -> I, down I -> d, relu^2)
    and ``E`` a mixture of ``n_routed_experts`` gate-less experts of
    ``moe_intermediate_size`` (``num_experts_per_tok`` per token) with a router
    E x d, one shared MLP of ``moe_shared_expert_intermediate_size`` and, with
    ``moe_latent_size`` L, the experts working in L: projections d -> L and
    L -> d around them (``mlp_bias`` adds the biases). Then ``norm_f`` and an
    untied lm_head by default."""
    d, vocab, inter = _family_sizes(r, g)
    _, pattern = r.find("hybrid_override_pattern")
    if pattern is None:  # the newer files list the blocks by name
        _, blocks = r.find("layers_block_type")
        if isinstance(blocks, list):
            pattern = "".join(_NEMOTRON_BLOCKS.get(b, "?") if isinstance(b, str) else "?"
                              for b in blocks)
    if (not isinstance(pattern, str) or len(pattern) != g.n_layers
            or any(c not in _HYBRID_PATTERN for c in pattern)):
        raise ConfigError("n_params", "params_needed", missing="hybrid_override_pattern")
    H, K, h = g.n_heads, g.n_kv_heads, g.head_dim
    bias = bool(r.flag("mlp_bias", False))
    mixers = mlp = experts = active = shared = 0
    for letter in pattern:
        if letter == "M":
            mixers += _mamba2_params(r, d)
        elif letter == "*":
            mixers += 2 * d * H * h + 2 * d * K * h
        elif letter == "-":
            mlp += 2 * d * inter + ((inter + d) if bias else 0)
        else:  # "E"
            n_exp = _need(r, "n_routed_experts", "num_local_experts", kind="experts")
            k = _need(r, "num_experts_per_tok", kind="experts")
            width = _need(r, "moe_intermediate_size", kind="intermediate")
            side = _need(r, "moe_shared_expert_intermediate_size", kind="intermediate")
            latent = r.int("moe_latent_size", kind="hidden")
            per_expert = 2 * width * (latent or d)
            experts, active = experts + n_exp * per_expert, active + k * per_expert
            shared += n_exp * d + 2 * d * side + ((side + d) if bias else 0)
            if latent:
                shared += 2 * d * latent + ((latent + d) if bias else 0)
    tied = r.flag("tie_word_embeddings", False)
    return ParamCount(
        embedding=vocab * d, lm_head=0 if tied else vocab * d, attention=mixers,
        dense_mlp=mlp, experts=experts, active_experts=active, shared=shared,
        norms=g.n_layers * d + d,
    )


def _gemma4_params(r: _Reader, g: _Geometry) -> ParamCount:
    """Gemma 4 (``Gemma4TextModel``), layer by layer from ``layer_types``.

    A full-attention layer has its own geometry (``per_layer_config``):
    ``global_head_dim`` (class default 512) and, with ``attention_k_eq_v``,
    ``num_global_key_value_heads`` K heads and no v_proj (V is the normed K).
    Every layer has q_proj, o_proj and a q_norm over head_dim; a layer that
    does not reuse another's K/V (the last ``num_kv_shared_layers`` do) adds
    k_proj, v_proj and a k_norm (the v_norm has no weight). The MLP is gated,
    twice as wide on a shared layer under ``use_double_wide_mlp``; four
    RMSNorms per layer. With ``enable_moe_block`` each layer also has
    ``num_experts`` gated experts ``moe_intermediate_size`` wide beside the
    MLP, ``top_k_experts`` of them per token, a router (proj d x E, a scale
    of d, a per-expert scale of E) and three more norms. Per-layer inputs
    (``hidden_size_per_layer_input`` p, class default 256): an embedding of
    ``vocab_size_per_layer_input`` x L x p, a projection d x L x p and its
    norm, and per layer a gate d x p, a projection p x d and a norm. The
    lm_head is tied by default.
    """
    d, vocab, inter = _family_sizes(r, g)
    L, H, K, h = g.n_layers, g.n_heads, g.n_kv_heads, g.head_dim
    name, types = r.find("layer_types")
    if name is not None:
        types = [_LAYER_TYPE_KINDS.get(t) if isinstance(t, str) else None for t in types]
    else:  # Gemma4TextConfig: 5 sliding, 1 full; the last layer full
        types = ["sliding" if (i + 1) % 6 else "full" for i in range(L)]
        types[-1] = "full"
    hg = r.int("global_head_dim", kind="head_dim")
    if hg is None:
        hg = r.defaults["global_head_dim"] = 512
    k_eq_v = bool(r.flag("attention_k_eq_v", False))
    kg = (r.int("num_global_key_value_heads", kind="kv_heads") if k_eq_v else None) or K
    bias = bool(r.flag("attention_bias", False))
    double = bool(r.flag("use_double_wide_mlp", False))
    n_shared = r.int("num_kv_shared_layers", kind="layers", minimum=0) or 0
    p = r.int("hidden_size_per_layer_input", kind="hidden", minimum=0)
    if p is None:
        p = r.defaults["hidden_size_per_layer_input"] = 256
    attn = mlp = 0
    for i in range(L):
        full = i < len(types) and types[i] == "full"
        hd, kv = (hg, kg) if full else (h, K)
        attn += 2 * d * H * hd + hd + ((H * hd + d) if bias else 0)  # q, o, q_norm
        if i < L - n_shared:  # k (and v unless K doubles as V), k_norm
            n_proj = 1 if (full and k_eq_v) else 2
            attn += n_proj * (d * kv * hd + (kv * hd if bias else 0)) + hd
        width = 2 * inter if (double and i >= L - n_shared) else inter
        mlp += 3 * d * width + (2 * d * p + d if p else 0)
    norms = L * 4 * d + d
    embedding = vocab * d
    if p:
        vp = r.int("vocab_size_per_layer_input", kind="vocab") or vocab
        embedding += vp * L * p
        mlp += d * L * p
        norms += p
    experts = active = shared = 0
    if r.flag("enable_moe_block", False):
        n_exp = _need(r, "num_experts", kind="experts")
        k = _need(r, "top_k_experts", kind="experts")
        if k > n_exp:
            raise ConfigError("top_k_experts", "experts_range", experts=n_exp, per_token=k)
        width = _need(r, "moe_intermediate_size", kind="intermediate")
        experts, active = L * n_exp * 3 * d * width, L * k * 3 * d * width
        shared = L * (d * n_exp + d + n_exp)
        norms += L * 3 * d
    tied = r.flag("tie_word_embeddings", True)
    return ParamCount(
        embedding=embedding, lm_head=0 if tied else vocab * d, attention=attn,
        dense_mlp=mlp, experts=experts, active_experts=active, shared=shared, norms=norms,
    )


_QUANT_BITS = MappingProxyType({"fp8": 8, "fbgemm_fp8": 8, "mxfp4": 4.25})
"""Bits per weight of the linear layers a ``quant_method`` stores (MXFP4: 4-bit
values and one 8-bit scale per 32)."""


# the families whose parameters follow their own rule, by model_type (`_params` looks here first)
def _ergo_params(r: _Reader, g: _Geometry) -> ParamCount:
    """Ergo as ``ErgoForCausalLM`` builds it: a fused qkv_proj (H + 2K) x h, o_proj,
    q/k norms; gate-less MLPs (up, down): the dense layers (``mlp_layer_types``)
    ``first_dense_intermediate_size`` wide, the sparse ones ``num_experts`` experts
    of ``moe_intermediate_size`` each with a d-wide post_expert_norm, a router E x
    d and a shared expert of ``shared_intermediate_size`` with its norm; four
    norms and two residual gates (d each) per layer, a final norm, an untied
    lm_head."""
    d, vocab = _hidden_and_vocab(r, g)
    L, H, K, h = g.n_layers, g.n_heads, g.n_kv_heads, g.head_dim
    n_exp = r.int(*_EXPERT_COUNT, kind="experts", required=True)
    k = r.int(*_EXPERTS_PER_TOKEN, kind="experts", required=True)
    if k > n_exp:
        raise ConfigError("num_experts_per_tok", "experts_range", experts=n_exp, per_token=k)
    moe = _moe_layers(r, L)
    width = r.int("moe_intermediate_size", kind="intermediate", required=True)
    dense_width = r.int("first_dense_intermediate_size", "intermediate_size",
                        kind="intermediate", required=bool(L - len(moe)))
    side = r.int("shared_intermediate_size", kind="intermediate", minimum=0) or 0
    per_expert = 2 * d * width + d
    tied = r.flag("tie_word_embeddings", False)
    return ParamCount(
        embedding=vocab * d,
        lm_head=0 if tied else vocab * d,
        attention=L * (d * (H + 2 * K) * h + H * h * d + 2 * h),
        dense_mlp=(L - len(moe)) * 2 * d * (dense_width or 0),
        experts=len(moe) * n_exp * per_expert,
        active_experts=len(moe) * k * per_expert,
        shared=len(moe) * (d * n_exp + (2 * d * side + d if side else 0)),
        norms=L * 6 * d + d,
    )


_FAMILY_PARAMS = {
    "ergo": _ergo_params,
    **dict.fromkeys(_FALCON_TYPES, _falcon_params), "phi": _phi_params,
    "gpt2": _gpt2_params, "gpt_bigcode": _gpt2_params, "starcoder2": _starcoder2_params,
    "gpt_neox": _gpt_neox_params, "opt": _opt_params, "gptj": _gptj_params,
    "codegen": _gptj_params, "gpt_neo": _gpt_neo_params, "bloom": _bloom_params,
    "mpt": _mpt_params, "chatglm": _chatglm_params,
    "gemma4": _gemma4_params, "gemma4_text": _gemma4_params,
    "nemotron_h": _nemotron_h_params,
}


def _weight_nbytes(r: _Reader, count: ParamCount | None) -> tuple[float | None, str | None]:
    """Bytes of the released weights from ``quantization_config``, and its method.

    ``fp8`` (DeepSeek-V3: 128 x 128 blocks, their fp32 scales left out, under
    0.01 %): every linear layer 1 byte, embeddings, lm_head and norms 16-bit.
    ``mxfp4`` (gpt-oss): the routed experts 4.25 bits, the rest 16-bit.
    ``gptq`` / ``awq``: ``bits`` per linear weight plus an fp16 scale and a
    packed zero per ``group_size``. Any other method: unknown (None), and the
    cost model keeps 2 bytes per parameter.
    """
    name, q = r.find("quantization_config")
    if name is None or not isinstance(q, dict):
        return None, None
    method = q.get("quant_method")
    if not isinstance(method, str):
        return None, None
    method = method.lower()[:20]
    if count is None:
        return None, method
    linear = count.attention + count.dense_mlp + count.experts + count.shared
    rest = count.embedding + count.lm_head + count.norms
    if method in ("fp8", "fbgemm_fp8"):
        return linear * 1 + rest * 2, method
    if method == "mxfp4":
        other = count.total - count.experts
        return count.experts * _QUANT_BITS["mxfp4"] / 8 + other * 2, method
    if method in ("gptq", "awq"):
        bits, group = q.get("bits", 4), q.get("group_size", 128)
        if (isinstance(bits, int) and not isinstance(bits, bool) and 2 <= bits <= 8
                and isinstance(group, int) and not isinstance(group, bool) and group >= 1):
            per = bits / 8 + (2 + bits / 8) / group
            return linear * per + rest * 2, method
    return None, method


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
    attn_name = "attn_cfg" if isinstance(top.get("attn_cfg"), dict) else "attn_config"
    attn_cfg = top.get(attn_name)
    r = _Reader(top, text_cfg, mt, attn_cfg if isinstance(attn_cfg, dict) else None,
                attn_name)
    if mt is not None:
        nested = text_cfg is not None and text_cfg.get("model_type") is not None
        r.read[("text_config." if nested else "") + "model_type"] = mt

    _refuse_non_decoders(r)
    g = _geometry(r)
    layers = _layout(r, g)
    max_ctx = _max_context(r)
    dtype_name, dtype_raw = r.find("torch_dtype", "dtype")
    dtype = None  # informational: an unknown spelling ("auto") is left out
    if isinstance(dtype_raw, str) and dtype_raw.lower() in DTYPES:
        dtype = DTYPES[dtype_raw.lower()]

    total_override = None if n_params is None else _check_count("n_params", n_params)
    active_override = (None if n_active_params is None
                       else _check_count("n_active_params", n_active_params))
    try:
        count = _params(r, g, layers)
    except ConfigError as e:
        if total_override is None or e.code != "params_needed":
            raise
        count = None
    if total_override is None and count.total > MAX_PARAMS:
        # each size is within its limit, but not together: no link could carry the count
        raise ConfigError("n_params", "params_too_large", value=float(count.total),
                          limit=MAX_PARAMS)
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
    weight_nbytes, quant = _weight_nbytes(r, count if total_override is None else None)
    if quant in ("fp8", "fbgemm_fp8"):
        dtype = "fp8"

    n_experts = k = None
    if _expert_count(r) is not None:
        n_experts = _expert_count(r)
        k = r.int(*_EXPERTS_PER_TOKEN, kind="experts", required=True)
        if k > n_experts:
            raise ConfigError("num_experts_per_tok", "experts_range",
                              experts=n_experts, per_token=k)

    # the embedding and the output head: what engines keep at 16 bits when they quantize
    embed = None if count is None else float(count.embedding + count.lm_head)
    if embed is not None and not 0 < embed < total:
        embed = None
    src = "config.json" + (f" (model_type {mt})" if mt else "")
    try:
        preset = ModelPreset(
            key=key, name=name, n_layers=g.n_layers, n_heads=g.n_heads,
            n_kv_heads=g.n_kv_heads, head_dim=g.head_dim, n_params=total,
            mla_dims=g.mla_dims, hidden=g.hidden, n_active_params=active,
            source=src, max_context=max_ctx, layers=layers,
            dtype=dtype, n_experts=n_experts, experts_per_token=k,
            weight_nbytes=weight_nbytes, multimodal=_multimodal(top, text_cfg),
            embed_params=embed,
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
        quantization=quant,
    )


# --------------------------------------------------------------------------
# URL form
# --------------------------------------------------------------------------

QUERY_KEYS = ("layers", "heads", "kv", "hd", "mla", "win", "chunk", "state", "pat",
              "moe", "dtype", "ctx", "params", "active", "wbytes", "mm", "emb")
"""Keys :func:`to_query` writes and :func:`from_query` reads (others are ignored)."""

_MAX_PERIOD = 16
_INT_RE = re.compile(r"^[0-9]{1,12}$")
_NUM_RE = re.compile(r"^[0-9]{1,16}(\.[0-9]{1,16})?([eE]\+?[0-9]{1,2})?$")
_LETTERS = MappingProxyType({"full": "G", "mla": "G", "sliding": "L", "chunked": "C",
                             "cross": "X", "shared": "S", "state": "M", "none": "N"})
"""One letter per layer kind in ``pat`` (``G``: the model's caching kind, K/V or MLA)."""
_PERIODIC_RE = re.compile(r"^[LGCXSMN]{1,%d}$" % _MAX_PERIOD)
_RUNS_RE = re.compile(r"^(?:[LGCXSMN][0-9]{1,6}){1,64}$")
_RUN_RE = re.compile(r"([LGCXSMN])([0-9]{1,6})")
_MOE_RE = re.compile(r"^([0-9]{1,6}):([0-9]{1,6})$")
_MAX_QUERY_VALUE = 200


def _number_text(x: float) -> str:
    """A parameter count as short exact text: 6738000000, or 1.5e+20 style."""
    if float(x).is_integer() and abs(x) < 1e16:
        return str(int(x))
    return repr(float(x))


def _pattern_text(letters: str) -> str:
    """One letter per layer: the shortest period (<= 16) if periodic, else runs."""
    for p in range(1, _MAX_PERIOD + 1):
        if all(letters[i] == letters[i % p] for i in range(len(letters))):
            return letters[:p]
    runs = []
    for m in re.finditer(r"L+|G+|C+|X+|S+|M+|N+", letters):
        runs.append(f"{m.group()[0]}{len(m.group())}")
    return "".join(runs)


def to_query(preset: ModelPreset) -> dict[str, str]:
    """The preset's cache-relevant numbers as short URL keys (all strings).

    ``layers heads kv hd``: geometry; ``mla``: values per layer for MLA;
    ``win``: the sliding window; ``chunk``: the attention chunk; ``state``:
    values of one recurrent layer's state; ``pat``: the kind of each layer,
    one letter per layer (``G`` full attention or MLA, ``L`` sliding, ``C``
    chunked, ``X`` cross-attention, ``S`` shared K/V, ``M`` state, ``N``
    none), written as one period repeated over the layers (Gemma 3:
    ``LLLLLG``; Llama 4: ``CCCG``; Jamba: ``MMMMGMMM``) or as runs (Qwen's
    max_window_layers 28 of 36: ``G28L8``); no ``pat`` means every layer
    ``G``, or every layer ``L`` when ``win`` is given (the links written
    before issue 28 read the same). ``moe``: ``experts:per token``;
    ``dtype``; ``ctx``: maximum context; ``params`` / ``active``: parameter
    counts; ``wbytes``: bytes of quantized weights; ``mm``: ``1`` when the
    parameters are a multimodal model's language model; ``emb``: parameters of the
    embedding and the output head (``ModelPreset.embed_params``).
    """
    m = preset
    q = dict(layers=str(m.n_layers), heads=str(m.n_heads),
             kv=str(m.n_kv_heads), hd=str(m.head_dim))
    if m.mla_dims is not None:
        q["mla"] = str(m.mla_dims)
    for kind, key in (("sliding", "win"), ("chunked", "chunk")):
        spans = {s.span for s in m.layers if s.kind == kind}
        if len(spans) > 1:
            raise ConfigError(key, "not_encodable", windows=len(spans))
        if spans:
            q[key] = str(spans.pop())
    states = {s.fixed_values for s in m.layers if s.kind == "state"}
    if len(states) > 1:
        raise ConfigError("state", "not_encodable", states=len(states))
    if states:
        q["state"] = str(states.pop())
    letters = "".join(_LETTERS[s.kind] for s in m.layers)
    if set(letters) - {"G"} and set(letters) != {"L"}:
        q["pat"] = _pattern_text(letters)
    if m.n_experts is not None:
        q["moe"] = f"{m.n_experts}:{m.experts_per_token}"
    if m.dtype is not None:
        q["dtype"] = m.dtype
    if m.max_context is not None:
        q["ctx"] = str(m.max_context)
    q["params"] = _number_text(m.n_params)
    if m.n_active_params:
        q["active"] = _number_text(m.n_active_params)
    if m.weight_nbytes is not None:
        q["wbytes"] = _number_text(round(m.weight_nbytes))
    if m.multimodal:
        q["mm"] = "1"
    if m.embed_params is not None:
        q["emb"] = _number_text(round(m.embed_params))
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


def _query_pattern(text: str, n_layers: int) -> str:
    """``pat`` as one letter per layer."""
    if _PERIODIC_RE.match(text):
        return "".join(text[i % len(text)] for i in range(n_layers))
    if _RUNS_RE.match(text):
        letters = "".join(letter * int(count) for letter, count in _RUN_RE.findall(text))
        if len(letters) != n_layers:
            raise ConfigError("pat", "layer_types_length", value=len(letters),
                              layers=n_layers)
        return letters
    raise ConfigError("pat", "bad_value", value=text[:40])


def _query_layers(q: Mapping[str, Any], layers: int, kv_values: int,
                  mla: int | None) -> tuple[LayerSpec, ...]:
    """The layer layout of a link (``pat`` with ``win`` / ``chunk`` / ``state``)."""
    window = _query_int(q, "win", "window")
    chunk = _query_int(q, "chunk", "window")
    state = _query_int(q, "state", "state")  # real states pass 1.4 M values (N3)
    pat = _query_text(q, "pat")
    if pat is None:
        letters = ("L" if window is not None else "G") * layers
    else:
        letters = _query_pattern(pat, layers)
    needs = (("L", "win", window), ("C", "chunk", chunk), ("M", "state", state))
    for letter, key, value in needs:
        if letter in letters and value is None:
            raise ConfigError(key, "missing")
    if not set(letters) & {"G", "L", "C"}:
        raise ConfigError("pat", "no_kv_cache")
    if mla is not None and set(letters) & {"L", "C"}:
        raise ConfigError("pat", "bad_value", value=pat[:40])
    per_token = mla if mla is not None else kv_values
    main = LayerSpec("mla" if mla is not None else "full", values_per_token=per_token)
    made = {
        "G": main,
        "L": window and LayerSpec("sliding", span=window, values_per_token=per_token),
        "C": chunk and LayerSpec("chunked", span=chunk, values_per_token=per_token),
        "X": LayerSpec("cross"), "S": LayerSpec("shared"), "N": LayerSpec("none"),
        "M": state and LayerSpec("state", fixed_values=state),
    }
    return tuple(made[c] for c in letters)


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
    layout = _query_layers(q, layers, 2 * kv * head_dim, mla)
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
    wbytes = _query_number(q, "wbytes")
    emb = _query_number(q, "emb")
    if emb is not None and emb >= params:
        raise ConfigError("emb", "bad_value", value=_number_text(emb))
    mm = _query_text(q, "mm")
    if mm not in (None, "1"):
        raise ConfigError("mm", "bad_value", value=mm[:40])
    if active is not None and active > params:
        raise ConfigError("active", "active_exceeds_total", active=active,
                          total=params)
    try:
        return ModelPreset(
            key=key, name=name, n_layers=layers, n_heads=heads, n_kv_heads=kv,
            head_dim=head_dim, n_params=params, mla_dims=mla,
            n_active_params=active, source="link", max_context=ctx,
            layers=layout, dtype=dtype, n_experts=n_experts,
            experts_per_token=per_token, weight_nbytes=wbytes, multimodal=mm == "1",
            embed_params=emb,
        )
    except ValueError as e:
        raise ConfigError("query", "bad_value", detail=str(e)[:200]) from None
