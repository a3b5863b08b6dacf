"""The live model: a tiny Llama-style decoder that really uses a KV cache.

One readable file in the spirit of nanoGPT's model.py. Symbols follow the papers:
d = d_model, h = n_heads, h_kv = n_kv_heads, d_h = head_dim, T = tokens in this call.

    x -> [RMSNorm -> attention(RoPE on q, k; causal) -> + x -> RMSNorm -> SwiGLU -> + x] x L
      -> RMSNorm -> logits

The forward pass takes only the *new* tokens, the absolute position of the first one and an
optional cache. With a cache, only the new rows pass through the Q/K/V projections; the cache
hands back every key and value the new queries may read.
"""
from __future__ import annotations

import math
import os
from dataclasses import asdict, dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F

DEVICE_ENV = "KV_EXPLAINER_DEVICE"


def pick_device() -> torch.device:
    """CUDA when present, else CPU. `KV_EXPLAINER_DEVICE=cpu|cuda|cuda:1` overrides."""
    want = os.environ.get(DEVICE_ENV, "").strip()
    if want:
        dev = torch.device(want)
        if dev.type == "cuda" and not torch.cuda.is_available():
            raise RuntimeError(f"{DEVICE_ENV}={want} but no CUDA device is available")
        return dev
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")


@dataclass(frozen=True)
class Config:
    vocab_size: int = 2048
    n_layers: int = 4
    d_model: int = 128
    n_heads: int = 4
    n_kv_heads: int = 4          # 4 = MHA, 2 = GQA, 1 = MQA
    d_ff: int = 192              # SwiGLU hidden width
    max_len: int = 1024          # longest sequence the app runs (RoPE tables are this long)
    rope_theta: float = 10000.0
    norm_eps: float = 1e-5

    @property
    def head_dim(self) -> int:
        return self.d_model // self.n_heads

    def __post_init__(self):
        if self.d_model % self.n_heads:
            raise ValueError("d_model must be a multiple of n_heads")
        if self.n_heads % self.n_kv_heads:
            raise ValueError("n_heads must be a multiple of n_kv_heads")

    def to_dict(self) -> dict:
        return asdict(self)


class RMSNorm(nn.Module):
    def __init__(self, d: int, eps: float):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(d))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


def rope_tables(cfg: Config, device=None):
    """cos/sin for every absolute position, shaped [max_len, head_dim] (rotate-half layout)."""
    d_h = cfg.head_dim
    inv_freq = 1.0 / cfg.rope_theta ** (torch.arange(0, d_h, 2, dtype=torch.float32) / d_h)
    pos = torch.arange(cfg.max_len, dtype=torch.float32)
    ang = torch.outer(pos, inv_freq)               # [max_len, d_h/2]
    ang = torch.cat([ang, ang], dim=-1)            # [max_len, d_h]: the two halves share angles
    return ang.cos().to(device), ang.sin().to(device)


def rotate_half(x):
    x1, x2 = x.chunk(2, dim=-1)
    return torch.cat([-x2, x1], dim=-1)


def apply_rope(x, cos, sin):
    """x: [B, heads, T, d_h]; cos/sin: [T, d_h] for the tokens' *absolute* positions."""
    return x * cos + rotate_half(x) * sin


class Stats:
    """Per-call counters (never stored on the shared model, so sessions don't mix)."""

    def __init__(self, n_layers: int):
        self.kv_rows = [0] * n_layers  # rows that really went through W_k and W_v, per layer

    @property
    def kv_rows_total(self) -> int:
        return sum(self.kv_rows)


class Attention(nn.Module):
    def __init__(self, cfg: Config, layer: int):
        super().__init__()
        self.layer = layer
        self.h, self.h_kv, self.d_h = cfg.n_heads, cfg.n_kv_heads, cfg.head_dim
        self.wq = nn.Linear(cfg.d_model, self.h * self.d_h, bias=False)
        self.wk = nn.Linear(cfg.d_model, self.h_kv * self.d_h, bias=False)
        self.wv = nn.Linear(cfg.d_model, self.h_kv * self.d_h, bias=False)
        self.wo = nn.Linear(self.h * self.d_h, cfg.d_model, bias=False)

    def forward(self, x, cos, sin, q_pos, cache=None, window=None, stats=None, want_probs=False):
        B, T, _ = x.shape
        q = self.wq(x).view(B, T, self.h, self.d_h).transpose(1, 2)      # [B, h, T, d_h]
        k = self.wk(x).view(B, T, self.h_kv, self.d_h).transpose(1, 2)   # [B, h_kv, T, d_h]
        v = self.wv(x).view(B, T, self.h_kv, self.d_h).transpose(1, 2)   # [B, h_kv, T, d_h]
        if stats is not None:
            stats.kv_rows[self.layer] += B * T
        # RoPE once, at the token's absolute position, *before* k is stored: a cached key
        # never needs rotating again.
        q, k = apply_rope(q, cos, sin), apply_rope(k, cos, sin)
        if cache is not None:
            k, v = cache.update(self.layer, k, v)       # [B, h_kv, S, d_h], S = keys to read
            k_pos = cache.key_positions(self.layer).to(x.device)
        else:
            k_pos = q_pos
        # GQA/MQA: each group of h/h_kv consecutive query heads shares one K/V head.
        # repeat_interleave maps query head i to kv head i // (h/h_kv); .repeat would not.
        g = self.h // self.h_kv
        if g > 1:
            k = k.repeat_interleave(g, dim=1)
            v = v.repeat_interleave(g, dim=1)
        # Causal mask on absolute positions: query at position p reads keys at positions <= p
        # (bottom-right aligned when T new queries meet S >= T cached keys), and within the
        # window when one is set.
        allowed = k_pos[None, :] <= q_pos[:, None]                        # [T, S]
        if window is not None:
            allowed &= k_pos[None, :] > q_pos[:, None] - window
        att = (q @ k.transpose(-2, -1)) / math.sqrt(self.d_h)            # [B, h, T, S]: q·k/√d_h
        att = att.masked_fill(~allowed, float("-inf"))
        p = F.softmax(att, dim=-1)
        if cache is not None and getattr(cache, "needs_probs", False):
            cache.observe(self.layer, p)                # e.g. H2O scores keys by attention
        y = (p @ v).transpose(1, 2).reshape(B, T, self.h * self.d_h)
        return self.wo(y), (p if want_probs else None)


class FeedForward(nn.Module):
    """SwiGLU: W2(silu(W1 x) * W3 x)."""

    def __init__(self, cfg: Config):
        super().__init__()
        self.w1 = nn.Linear(cfg.d_model, cfg.d_ff, bias=False)
        self.w3 = nn.Linear(cfg.d_model, cfg.d_ff, bias=False)
        self.w2 = nn.Linear(cfg.d_ff, cfg.d_model, bias=False)

    def forward(self, x):
        return self.w2(F.silu(self.w1(x)) * self.w3(x))


class Block(nn.Module):
    def __init__(self, cfg: Config, layer: int):
        super().__init__()
        self.attn_norm = RMSNorm(cfg.d_model, cfg.norm_eps)
        self.attn = Attention(cfg, layer)
        self.ff_norm = RMSNorm(cfg.d_model, cfg.norm_eps)
        self.ff = FeedForward(cfg)

    def forward(self, x, cos, sin, q_pos, cache, window, stats, want_probs):
        a, p = self.attn(self.attn_norm(x), cos, sin, q_pos, cache, window, stats, want_probs)
        x = x + a
        return x + self.ff(self.ff_norm(x)), p


class Decoder(nn.Module):
    def __init__(self, cfg: Config):
        super().__init__()
        self.cfg = cfg
        self.embed = nn.Embedding(cfg.vocab_size, cfg.d_model)
        self.blocks = nn.ModuleList(Block(cfg, i) for i in range(cfg.n_layers))
        self.norm = RMSNorm(cfg.d_model, cfg.norm_eps)
        self.head = nn.Linear(cfg.d_model, cfg.vocab_size, bias=False)
        self.head.weight = self.embed.weight  # tied: saves vocab x d parameters
        cos, sin = rope_tables(cfg)
        self.register_buffer("cos", cos, persistent=False)
        self.register_buffer("sin", sin, persistent=False)
        self.apply(self._init)

    @staticmethod
    def _init(m):
        if isinstance(m, (nn.Linear, nn.Embedding)):
            nn.init.normal_(m.weight, std=0.02)

    @property
    def device(self) -> torch.device:
        return self.embed.weight.device

    def n_params(self) -> int:
        return sum(p.numel() for p in self.parameters())

    def forward(self, idx, start: int = 0, cache=None, window: int | None = None,
                stats: Stats | None = None, want_probs: bool = False):
        """idx: [B, T] new tokens at absolute positions start .. start+T-1.

        Returns logits [B, T, vocab] and, with want_probs, a list (per layer) of attention
        probabilities [B, h, T, S] of the new queries over the keys they read.
        A cache that keeps only a window passes it through its `window` attribute; one that
        sets `needs_probs` (H2O's heavy hitters) is handed each layer's attention
        probabilities through its `observe(layer, probs)` right after the softmax.
        """
        B, T = idx.shape
        if T == 0:
            raise ValueError("forward() needs at least one token")
        if start < 0 or start + T > self.cfg.max_len:
            raise ValueError(f"positions {start}..{start + T - 1} are outside the model's "
                             f"context of {self.cfg.max_len} tokens")
        if window is None and cache is not None:
            window = getattr(cache, "window", None)
        q_pos = torch.arange(start, start + T, device=idx.device)
        cos, sin = self.cos[start:start + T], self.sin[start:start + T]
        x = self.embed(idx)
        probs = []
        for blk in self.blocks:
            x, p = blk(x, cos, sin, q_pos, cache, window, stats, want_probs)
            probs.append(p)
        logits = self.head(self.norm(x))
        return (logits, probs) if want_probs else logits
