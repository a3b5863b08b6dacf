"""Step 4's exercises: one decode step on the roofline (on paper), and a decode step made
compute-bound (on the page).

What an exercise is, and how the step and the sheet show it: steps/ui/exercises.py."""
from __future__ import annotations

from functools import lru_cache

from explainer import costs, presets

from ..ui import counts
from ..ui.exercises import PAPER, TASK, Exercise
from .model import roofline_of


@lru_cache(maxsize=None)
def _n4() -> dict:
    m, g, ctx = presets.ALL_MODELS[presets.REFERENCE_MODEL], presets.GPUS["h100"], 4096
    c = costs.decode_batch_cost(m, g, ctx, 1)
    return dict(name=m.name, gpu=g.name, ctx=ctx, params=m.params_per_token, flops=c.flops,
                weights=c.weight_bytes, cache=c.cache_bytes, bytes=c.bytes,
                intensity=c.intensity, ridge=g.ridge, bound=c.bound, peak=g.flops,
                bw=g.bandwidth, time=c.time_s, tps=c.tokens_per_s)


def _p4(tr, x):
    return tr.n_("{model} (fp16) decodes one sequence at a context of {ctx} token on an {gpu} "
                 "({peak} TFLOP/s, {bw} TB/s). How many FLOPs does the step do per byte it "
                 "reads? Is it memory-bound or compute-bound, and how many tokens per second "
                 "can it give at most?",
                 "{model} (fp16) decodes one sequence at a context of {ctx} tokens on an {gpu} "
                 "({peak} TFLOP/s, {bw} TB/s). How many FLOPs does the step do per byte it "
                 "reads? Is it memory-bound or compute-bound, and how many tokens per second "
                 "can it give at most?", x["ctx"], model=x["name"], ctx=tr.int(x["ctx"]),
                 gpu=x["gpu"], peak=tr.int(x["peak"] / 1e12), bw=tr.num(x["bw"] / 1e12, 2))


def _a4(tr, x):
    gb = lambda v: tr.num(v / 1e9, 1)              # noqa: E731
    lines = [
        tr._("FLOPs: 2 × {params} = {flops} GFLOP.",
             params=counts.billions(x["params"], 2, tr), flops=gb(x["flops"])),
        tr.n_("Bytes: the weights ({weights} GB) and the cache of {ctx} token ({cache} GB): "
              "{bytes} GB.", "Bytes: the weights ({weights} GB) and the cache of {ctx} tokens "
              "({cache} GB): {bytes} GB.", x["ctx"], weights=gb(x["weights"]),
              ctx=tr.int(x["ctx"]), cache=gb(x["cache"]), bytes=gb(x["bytes"])),
    ]
    if x["bound"] == "memory":
        lines.append(tr._("{flops} ÷ {bytes} = {i} FLOP per byte, far below the ridge at {ridge}: "
                          "memory-bound.", flops=gb(x["flops"]), bytes=gb(x["bytes"]),
                          i=tr.num(x["intensity"], 2), ridge=tr.int(x["ridge"])))
    else:                                          # pragma: no cover - not with these presets
        lines.append(tr._("{flops} ÷ {bytes} = {i} FLOP per byte, past the ridge at {ridge}: "
                          "compute-bound.", flops=gb(x["flops"]), bytes=gb(x["bytes"]),
                          i=tr.num(x["intensity"], 2), ridge=tr.int(x["ridge"])))
    lines.append(tr.n_("Reading {bytes} GB at {bw} TB/s takes at least {time}: at most {tps} "
                       "token per second.", "Reading {bytes} GB at {bw} TB/s takes at least "
                       "{time}: at most {tps} tokens per second.", round(x["tps"]),
                       bytes=gb(x["bytes"]), bw=tr.num(x["bw"] / 1e12, 2),
                       time=tr.seconds(x["time"]), tps=tr.int(x["tps"])))
    return lines


@lru_cache(maxsize=None)
def _t4_numbers() -> dict:
    # two output tokens: one from the prefill, one decode step (with one there is none)
    s = dict(prompt=16, output=2, batch=256)
    r = roofline_of(s["prompt"], s["output"], presets.STEP4["gpu"], presets.STEP4["model"],
                    s["batch"])
    return dict(**s, intensity=r.decode.intensity, ridge=r.gpu.ridge)


def _t4(tr, x):
    return tr._("On the illustrative GPU the page starts with (ridge at {ridge} FLOP/byte), make "
                "a decode step compute-bound: its point must reach the flat roof. It needs at "
                "least two output tokens: the first comes from the prefill. Hint: what does the "
                "batch share, and what does each sequence bring of its own?",
                ridge=tr.int(x["ridge"]))


def _t4_check(m) -> bool:
    """A decode step there is (two output tokens or more), and it is compute-bound."""
    return m.roofline.steps > 0 and m.roofline.decode.bound == "compute"


def _t4_answer(tr, x):
    return [tr._("A short context and a large batch: for example prompt length {P}, output "
                 "tokens {o} and batch size {B}. Decode then does {i} FLOP per byte, past the "
                 "ridge at {ridge}.", P=tr.int(x["prompt"]), o=tr.int(x["output"]),
                 B=tr.int(x["batch"]), i=tr.int(x["intensity"]), ridge=tr.int(x["ridge"]))]


EXERCISES: tuple[Exercise, ...] = (
    Exercise(4, 1, PAPER, _n4, _p4, _a4),
    Exercise(4, 2, TASK, _t4_numbers, _t4, _t4_answer, _t4_check,
             lambda m: {k: _t4_numbers()[k] for k in ("prompt", "output", "batch")}),
)
"""In order; steps.registry.exercises finds them."""
