"""Step 2's exam-style questions, printed on the sheet with their minutes and room to write:
where the two counts of projections come from, and why the saving grows with the output.

What an exam question is, and how the sheet shows it: steps/ui/exercises.py (`EXAM`)."""
from __future__ import annotations

from functools import lru_cache

from explainer import costs

from explainer.i18n import N_

from ..ui.exercises import EXAM, Exercise, fixed, fixed_lines, no_numbers


@lru_cache(maxsize=None)
def _n2() -> dict:
    P, T = 5, 64
    return dict(P=P, T=T, without=costs.kv_projections_without_cache(P, T),
                with_=costs.kv_projections_with_cache(P, T),
                ratio=costs.projection_savings(P, T))


def _q2(tr, x):
    return tr._("Why does the cache save more the longer the output is? Use the two formulas, "
                "and work out the saving at P = {P}, T = {T}.", P=tr.int(x["P"]), T=tr.int(x["T"]))


def _a2(tr, x):
    return [tr._("The ratio is [T·P + T(T−1)/2] ÷ (P + T − 1). When T is much larger than P, "
                 "the numerator grows like T²/2 and the denominator like T, so the ratio grows "
                 "like T/2: each new token saves recomputing all the tokens before it, and there "
                 "are ever more of them."),
            tr._("At P = {P}, T = {T}: {without} against {with_}, {x} (T/2 = {half}).",
                 P=tr.int(x["P"]), T=tr.int(x["T"]), without=tr.int(x["without"]),
                 with_=tr.int(x["with_"]), x=tr.times(x["ratio"], 1),
                 half=tr.int(x["T"] // 2))]


QUESTIONS: tuple[Exercise, ...] = (
    Exercise(2, 1, EXAM, no_numbers, fixed(N_(
        "Without a cache, generating T tokens after a prompt of P tokens takes T·P + T(T−1)/2 "
        "key/value projections per layer; with a cache, P + T − 1. Explain where each term "
        "comes from.")), fixed_lines(N_(
            "Without a cache, the pass that produces token t (t = 1 … T) runs the whole text so "
            "far, P + t − 1 tokens, through the projections again. Summed over the T passes: "
            "T·P + (0 + 1 + … + (T − 1)) = T·P + T(T−1)/2."), N_(
            "With a cache, every token is projected once: the P prompt tokens in the prefill, "
            "then each generated token when it is fed back in. The last generated token is never "
            "fed back: P + T − 1.")), minutes=5),
    Exercise(2, 2, EXAM, _n2, _q2, _a2, minutes=4),
)
"""In order; steps.registry.exam finds them."""
