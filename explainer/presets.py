"""Presets as data: model configs, GPUs, cache precisions and the default
slider settings of each step.

This module is the single source of truth for every number the cost model
(:mod:`explainer.costs`) works from. It holds data only, no formulas beyond
trivial derived properties, and no UI code.

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


@dataclass(frozen=True)
class ModelPreset:
    """Architecture numbers of a decoder-only model that matter for its cache.

    ``n_kv_heads`` is the number of key/value heads actually cached
    (``num_key_value_heads`` in a Hugging Face ``config.json``); it equals
    ``n_heads`` for multi-head attention (MHA), is smaller for grouped-query
    attention (GQA) and is 1 for multi-query attention (MQA).

    ``hidden`` is the model width (``hidden_size``). It defaults to
    ``n_heads * head_dim``. It is given for reference only: the cache size
    never depends on it (using it instead of ``n_kv_heads * head_dim`` is
    the classic mistake that overstates the cache of every GQA/MQA model).

    ``window``: sliding-window attention span in tokens (Mistral 7B v0.1:
    4,096), or ``None`` for full attention.

    ``mla_dims``: for multi-head latent attention (DeepSeek-V3), the number
    of elements cached per layer per token (a 512-wide compressed latent plus
    a 64-wide RoPE key = 576). Keys and values are both rebuilt from that one
    latent, so there is no factor 2 for K and V.

    ``n_active_params``: parameters used per token for mixture-of-experts
    models (DeepSeek-V3: 37 B of 671 B); ``None`` means all of ``n_params``.
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

    def __post_init__(self) -> None:
        if self.hidden is None:
            object.__setattr__(self, "hidden", self.n_heads * self.head_dim)
        if self.n_kv_heads < 1 or self.n_heads % self.n_kv_heads:
            raise ValueError(
                f"{self.key}: n_kv_heads ({self.n_kv_heads}) must divide "
                f"n_heads ({self.n_heads})"
            )

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


_HF = "config.json of "

MODELS: Mapping[str, ModelPreset] = MappingProxyType(
    {
        m.key: m
        for m in (
            ModelPreset(
                "llama2-7b", "Llama 2 7B", 32, 32, 32, 128, 6.738e9,
                source=_HF + "meta-llama/Llama-2-7b-hf",
            ),
            ModelPreset(
                "llama2-13b", "Llama 2 13B", 40, 40, 40, 128, 13.016e9,
                source=_HF + "meta-llama/Llama-2-13b-hf",
            ),
            ModelPreset(
                "llama2-70b", "Llama 2 70B", 80, 64, 8, 128, 68.977e9,
                source=_HF + "meta-llama/Llama-2-70b-hf",
            ),
            # Llama 3 8B has the same attention config as Llama 3.1 8B
            # (32 layers, 8 KV heads, head_dim 128: 128 KiB/token in fp16),
            # so no separate entry is needed.
            ModelPreset(
                "llama3.1-8b", "Llama 3.1 8B", 32, 32, 8, 128, 8.030e9,
                source=_HF + "meta-llama/Llama-3.1-8B",
            ),
            ModelPreset(
                "llama3.1-70b", "Llama 3.1 70B", 80, 64, 8, 128, 70.554e9,
                source=_HF + "meta-llama/Llama-3.1-70B",
            ),
            ModelPreset(
                "mistral-7b", "Mistral 7B v0.1", 32, 32, 8, 128, 7.242e9,
                window=4096,
                source=_HF + "mistralai/Mistral-7B-v0.1 (sliding_window 4096)",
            ),
            ModelPreset(
                "opt-13b", "OPT-13B", 40, 40, 40, 128, 12.853e9,
                source=_HF + "facebook/opt-13b",
            ),
            ModelPreset(
                "qwen2.5-7b", "Qwen2.5 7B", 28, 28, 4, 128, 7.616e9,
                source=_HF + "Qwen/Qwen2.5-7B",
            ),
            ModelPreset(
                "falcon-7b", "Falcon 7B", 32, 71, 1, 64, 6.922e9,
                source=_HF + "tiiuae/falcon-7b (multi_query: one KV head)",
            ),
            ModelPreset(
                # 128 heads of 128 (value/no-RoPE dims); what is cached is
                # the kv_lora_rank 512 latent + qk_rope_head_dim 64 per layer.
                "deepseek-v3", "DeepSeek-V3", 61, 128, 128, 128, 671e9,
                mla_dims=512 + 64, hidden=7168, n_active_params=37e9,
                source=_HF + "deepseek-ai/DeepSeek-V3 (MLA, MoE: 37 B active)",
            ),
        )
    }
)

REFERENCE_MODEL = "llama2-7b"
"""The seed's "7B" model, used by steps 3 to 6."""

LLAMA2_70B_MHA = ModelPreset(
    "llama2-70b-mha", "Llama 2 70B (assuming MHA)", 80, 64, 64, 128, 68.977e9,
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
    (40 GB = 40e9); vendors' HBM "GB" are often GiB in fact, so this is a
    slight under-estimate and errs on the safe side. ``None`` for the
    illustrative GPU, which has no memory size.
    ``bandwidth``: memory bandwidth in bytes/s. ``flops``: dense fp16/bf16
    tensor throughput in FLOP/s (no sparsity).
    """

    key: str
    name: str
    mem_bytes: float | None
    bandwidth: float
    flops: float
    source: str = ""

    @property
    def ridge(self) -> float:
        """Ridge point of the roofline, FLOP per byte (= flops / bandwidth)."""
        return self.flops / self.bandwidth

    @property
    def illustrative(self) -> bool:
        return self.mem_bytes is None


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
            ),
            GPUPreset(
                "a100-80", "A100 80 GB SXM", 80 * GB,
                2.039 * TB_PER_S, 312 * TFLOPS, source="NVIDIA A100 datasheet",
            ),
            GPUPreset(
                "h100", "H100 SXM", 80 * GB,
                3.35 * TB_PER_S, 989 * TFLOPS, source="NVIDIA H100 datasheet",
            ),
            GPUPreset(
                "h200", "H200", 141 * GB,
                4.8 * TB_PER_S, 989 * TFLOPS, source="NVIDIA H200 datasheet",
            ),
            GPUPreset(
                "l4", "L4", 24 * GB,
                0.30 * TB_PER_S, 121 * TFLOPS, source="NVIDIA L4 datasheet",
            ),
            GPUPreset(
                "rtx4090", "RTX 4090", 24 * GB,
                1.008 * TB_PER_S, 165 * TFLOPS,
                source="NVIDIA Ada whitepaper (fp16 tensor, fp32 accumulate)",
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
        model=REFERENCE_MODEL,
    )
)
"""Shrinking the cache; the baseline is MHA, fp16, full context."""


def live_preset(cfg, n_params: float) -> ModelPreset:
    """The live model's config as a preset, so its cache bytes come from the same formulas.

    ``cfg`` is an ``explainer.model.Config`` (duck-typed: no torch import needed here).
    """
    return ModelPreset(key="live", name="live model", n_layers=cfg.n_layers,
                       n_heads=cfg.n_heads, n_kv_heads=cfg.n_kv_heads,
                       head_dim=cfg.head_dim, n_params=n_params, hidden=cfg.d_model,
                       source="explainer/model.py Config, weights in assets/")
