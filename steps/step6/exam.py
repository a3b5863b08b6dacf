"""Step 6's exam-style questions, printed on the sheet with their minutes and room to write:
the four ways to shrink the cache and their costs, and what paged memory saves.

What an exam question is, and how the sheet shows it: steps/ui/exercises.py (`EXAM`)."""
from __future__ import annotations

from explainer.i18n import N_

from ..ui.exercises import EXAM, Exercise, fixed, fixed_lines, no_numbers
from .model import KWON_HI, KWON_LO


def _n2() -> dict:
    return dict(lo=KWON_LO, hi=KWON_HI)


def _a2(tr, x):
    return [tr._("Most requests stop well before their longest length, and memory reserved for "
                 "one cannot hold another's tokens: earlier serving systems used only {lo} to "
                 "{hi} of their reserved KV memory for real tokens (Kwon et al. 2023).",
                 lo=tr.pct(x["lo"], 1), hi=tr.pct(x["hi"], 1)),
            tr._("Paged memory gives each sequence fixed-size blocks as it grows, listed in a "
                 "block table, so at most one partly filled block per sequence is unused. "
                 "Requests that begin with the same prompt can point to the same blocks for it: "
                 "that prefix is stored once.")]


QUESTIONS: tuple[Exercise, ...] = (
    Exercise(6, 1, EXAM, no_numbers, fixed(N_(
        "Name four ways to shrink the KV cache, and say for each what it costs.")), fixed_lines(N_(
            "Fewer KV heads (GQA, MQA): several query heads share one key and value head. The "
            "model must be trained, or trained further, that way, and its quality can drop a "
            "little."), N_(
            "Fewer bits per value (fp8, int8, int4): each value, with its scale, takes fewer "
            "bytes. Precision is lost, and int4 can change some outputs."), N_(
            "Fewer tokens (a sliding window, or dropping tokens as StreamingLLM and H2O do): the "
            "cache holds only some of the tokens, and the model can no longer attend to the "
            "others."), N_(
            "No waste (paged memory): blocks are allocated as a sequence grows, instead of "
            "reserving its longest possible length. The cache of the tokens held keeps its size; "
            "the cost is a block table and one more indirection in the attention kernel, not a "
            "change of the output.")), minutes=6),
    Exercise(6, 2, EXAM, _n2, fixed(N_(
        "A server that reserves memory for each request's longest possible length wastes much "
        "of it. Why, and how does paged memory (PagedAttention, Kwon et al. 2023) avoid this? "
        "What does a prompt shared by several requests add?")), _a2, minutes=5),
)
"""In order; steps.registry.exam finds them."""
