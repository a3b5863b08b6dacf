"""Step 4's exam-style questions, printed on the sheet with their minutes and room to write:
time to the first token against time per token, and why batching cannot lift the cache's
ceiling.

What an exam question is, and how the sheet shows it: steps/ui/exercises.py (`EXAM`)."""
from __future__ import annotations

from functools import lru_cache

from explainer import presets
from explainer.format import bytes_dec

from explainer.i18n import N_

from ..ui.exercises import EXAM, Exercise, fixed, fixed_lines, no_numbers
from .model import batching_of


@lru_cache(maxsize=None)
def _n4() -> dict:
    ctx = 4096
    b = batching_of(ctx, presets.STEP4["gpu"], presets.STEP4["model"])
    return dict(name=b.model.name, ctx=ctx, flops=b.flops_per_seq, cache=b.cache_per_seq,
                ceiling=b.ceiling, ridge=b.gpu.ridge)


def _q2(tr, x):
    return tr._("Batching raises decode throughput. Why can even a very large batch not make "
                "decode compute-bound at a long context? Use the FLOPs and bytes of one "
                "sequence: {model} at a context length of {ctx}, on the illustrative GPU (ridge "
                "at {ridge} FLOP/byte).", model=x["name"], ctx=tr.int(x["ctx"]),
                ridge=tr.int(x["ridge"]))


def _a2(tr, x):
    return [tr._("A batch shares one read of the weights among all its sequences, but each "
                 "sequence reads its own cache. The larger the batch, the less of the weights "
                 "falls on each sequence, and a step's FLOP per byte approaches one sequence's "
                 "weight FLOPs divided by the bytes of its cache."),
            tr._("{model} at a context length of {ctx}: {flops} FLOP ÷ {cache} ≈ {c} FLOP/byte, "
                 "below the ridge at {ridge}: however large the batch, decode stays "
                 "memory-bound there.", model=x["name"], ctx=tr.int(x["ctx"]),
                 flops=tr.int(x["flops"]), cache=bytes_dec(x["cache"], tr),
                 c=tr.sig(x["ceiling"], 3), ridge=tr.int(x["ridge"]))]


QUESTIONS: tuple[Exercise, ...] = (
    Exercise(4, 1, EXAM, no_numbers, fixed(N_(
        "Explain why the time to the first token grows with the length of the prompt, while the "
        "time per later token is set mostly by the GPU's memory bandwidth.")), fixed_lines(N_(
            "The first token waits for the prefill, which runs every prompt token through the "
            "model in one pass: its FLOPs grow with the prompt, and with each weight used for "
            "many tokens it is compute-bound, so a longer prompt takes longer."), N_(
            "Every later token is one decode step: it reads all the weights and the whole cache "
            "to produce one token per sequence, about one FLOP per byte, far below the ridge. "
            "Its time is the bytes it reads divided by the memory bandwidth.")), minutes=5),
    Exercise(4, 2, EXAM, _n4, _q2, _a2, minutes=5),
)
"""In order; steps.registry.exam finds them."""
