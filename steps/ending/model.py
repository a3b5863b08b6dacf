"""The worked example of the key-ideas page: numbers only, from the cost model."""
from __future__ import annotations

from dataclasses import dataclass

import param

from explainer import costs, presets

EXAMPLE_MODEL = presets.REFERENCE_MODEL       # Llama 2 7B
EXAMPLE_TOKENS = 4096
EXAMPLE_BATCH = 8


@dataclass(frozen=True)
class WorkedExample:
    name: str
    layers: int
    kv_heads: int
    head_dim: int
    bytes_per_value: int
    per_token_bytes: int
    tokens: int
    sequence_bytes: int
    batch: int
    batch_bytes: int


def worked_example() -> WorkedExample:
    m = presets.MODELS[EXAMPLE_MODEL]
    per_token = costs.kv_bytes_per_token(m, "fp16")
    seq = costs.kv_cache_bytes(m, EXAMPLE_TOKENS, precision="fp16")
    return WorkedExample(name=m.name, layers=m.n_layers, kv_heads=m.n_kv_heads,
                         head_dim=m.head_dim, bytes_per_value=2, per_token_bytes=per_token,
                         tokens=EXAMPLE_TOKENS, sequence_bytes=seq, batch=EXAMPLE_BATCH,
                         batch_bytes=EXAMPLE_BATCH * seq)


class KeyIdeasModel(param.Parameterized):
    """No controls: the page is the same for everyone (only the language changes), or, with
    `exercises=1` in the link, the exercises of every step as a printable sheet."""
    exercises = param.Integer(default=0, bounds=(0, 1),
                              doc="1: the exercises' printable sheet instead of the key ideas")
    glossary = param.Integer(default=0, bounds=(0, 1),
                             doc="1: the glossary (every term, defined) instead of the key ideas")
