"""Step 5's exam-style questions, printed on the sheet with their minutes and room to write:
why the cache, not the weights, runs a server out of memory, and what fewer KV heads change.

What an exam question is, and how the sheet shows it: steps/ui/exercises.py (`EXAM`)."""
from __future__ import annotations

from functools import lru_cache

from explainer import costs, presets
from explainer.format import bytes_bin, bytes_dec

from ..ui.exercises import EXAM, Exercise


@lru_cache(maxsize=None)
def _n1() -> dict:
    m, B, T = presets.ALL_MODELS[presets.REFERENCE_MODEL], 8, 4096
    return dict(name=m.name, weights=costs.weight_bytes(m), B=B, T=T,
                per=costs.kv_bytes_per_token(m, "fp16"),
                cache=costs.kv_cache_bytes(m, T, B, "fp16"))


def _q1(tr, x):
    return tr._("A GPU holds the weights of {model} ({weights}) with room to spare, yet the "
                "server runs out of memory when more users arrive or their conversations grow "
                "longer. Explain with the formula of the cache.", model=x["name"],
                weights=bytes_dec(x["weights"], tr))


def _a1(tr, x):
    return [tr._("The weights are read, never written, and their size is fixed. The cache grows "
                 "with the tokens each sequence holds and with the number of sequences: cache = "
                 "bytes per token × context × batch, for a model whose every layer keeps every "
                 "token."),
            tr._("{model} in fp16 keeps {per} per token: batch {B} at a context of {T} needs "
                 "{cache} of cache, beside {weights} of weights.", model=x["name"],
                 per=bytes_bin(x["per"], tr), B=tr.int(x["B"]), T=tr.int(x["T"]),
                 cache=bytes_bin(x["cache"], tr), weights=bytes_dec(x["weights"], tr))]


@lru_cache(maxsize=None)
def _n2() -> dict:
    new, old = presets.ALL_MODELS["llama3.1-8b"], presets.ALL_MODELS[presets.REFERENCE_MODEL]
    pn, po = costs.kv_bytes_per_token(new, "fp16"), costs.kv_bytes_per_token(old, "fp16")
    return dict(new=new.name, old=old.name, qn=new.n_heads, kvn=new.n_kv_heads, qo=old.n_heads,
                kvo=old.n_kv_heads, L=new.n_layers, d=new.head_dim,
                b=presets.PRECISIONS["fp16"].bits // 8, pn=pn, po=po, ratio=po / pn)


def _q2(tr, x):
    return tr._("Two models with the same layers and head dimension: {new} (query heads: {qn}, "
                "KV heads: {kvn}; GQA) and {old} (query heads: {qo}, KV heads: {kvo}). Compare "
                "their caches per token, and say what this changes for a server.", new=x["new"],
                old=x["old"], qn=tr.int(x["qn"]), kvn=tr.int(x["kvn"]), qo=tr.int(x["qo"]),
                kvo=tr.int(x["kvo"]))


def _a2(tr, x):
    kw = dict(new=x["new"], old=x["old"], L=tr.int(x["L"]), d=tr.int(x["d"]),
              b=tr.int(x["b"]), kvn=tr.int(x["kvn"]), kvo=tr.int(x["kvo"]),
              pn=bytes_bin(x["pn"], tr), po=bytes_bin(x["po"], tr), x=tr.times(x["ratio"], 0))
    return [tr._("The cache stores the KV heads only. Per token, {new}: 2 × {L} × {kvn} × {d} × "
                 "{b} B = {pn}; {old}: 2 × {L} × {kvo} × {d} × {b} B = {po}, {x} as much.",
                 **kw),
            tr._("The same memory for the cache holds {x} as many tokens of {new}: {x} as many "
                 "sequences of the same length, or sequences {x} as long.", **kw)]


QUESTIONS: tuple[Exercise, ...] = (
    Exercise(5, 1, EXAM, _n1, _q1, _a1, minutes=5),
    Exercise(5, 2, EXAM, _n2, _q2, _a2, minutes=4),
)
"""In order; steps.registry.exam finds them."""
