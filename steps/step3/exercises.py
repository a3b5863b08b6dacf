"""Step 3's exercises: the bytes a token adds to Llama 3.1 8B's cache (on paper), and a head
whose newest query looks mostly at itself (on the page).

What an exercise is, and how the step and the sheet show it: steps/ui/exercises.py."""
from __future__ import annotations

from functools import lru_cache

from explainer import costs, presets
from explainer.format import bytes_bin

from ..ui import counts
from ..ui.exercises import PAPER, TASK, Exercise
from .model import SELF_HEAD, SELF_LAYER


@lru_cache(maxsize=None)
def _n3() -> dict:
    m = presets.ALL_MODELS["llama3.1-8b"]
    T = 8192
    per = costs.kv_bytes_per_token(m, "fp16")
    return dict(name=m.name, L=m.n_layers, H=m.n_kv_heads, d=m.head_dim,
                b=presets.PRECISIONS["fp16"].bits // 8, per=per, T=T,
                seq=costs.kv_cache_bytes(m, T, 1, "fp16"))


def _p3(tr, x):
    return " ".join((
        tr._("{model}: {layers}, {heads}, head_dim {d}, cache in fp16 ({b} B per number). How "
             "many bytes does each token add to its cache?", model=x["name"],
             layers=counts.layers(x["L"], tr), heads=counts.kv_heads(x["H"], tr),
             d=tr.int(x["d"]), b=tr.int(x["b"])),
        tr.n_("How much does one sequence of {T} token take?",
              "How much does one sequence of {T} tokens take?", x["T"], T=tr.int(x["T"]))))


def _a3(tr, x):
    return [tr._("Per token: 2 (K and V) × {L} × {H} × {d} × {b} B = {bytes} B = {per}.",
                 L=tr.int(x["L"]), H=tr.int(x["H"]), d=tr.int(x["d"]), b=tr.int(x["b"]),
                 bytes=tr.int(x["per"]), per=bytes_bin(x["per"], tr)),
            tr.n_("One sequence of {T} token: {T} × {per} = {seq}.",
                  "One sequence of {T} tokens: {T} × {per} = {seq}.", x["T"], T=tr.int(x["T"]),
                  per=bytes_bin(x["per"], tr), seq=bytes_bin(x["seq"], tr))]


@lru_cache(maxsize=None)
def _t3_numbers() -> dict:
    return dict(share=0.9, layer=SELF_LAYER, head=SELF_HEAD)


def _t3(tr, x):
    return tr._("Find a layer and a head whose newest query puts at least {share} of its "
                "attention on its own, newest row.", share=tr.pct(x["share"]))


def _t3_check(m) -> bool:
    return float(m.current().weights[-1]) >= _t3_numbers()["share"]


def _t3_answer(tr, x):
    return [tr._("For example layer {layer}, head {head}, right after the prefill. The cache "
                 "still keeps every row: other heads and later queries read them.",
                 layer=tr.int(x["layer"]), head=tr.int(x["head"]))]


EXERCISES: tuple[Exercise, ...] = (
    Exercise(3, 1, PAPER, _n3, _p3, _a3),
    Exercise(3, 2, TASK, _t3_numbers, _t3, _t3_answer, _t3_check,
             lambda m: {k: _t3_numbers()[k] for k in ("layer", "head")}),
)
"""In order; steps.registry.exercises finds them."""
