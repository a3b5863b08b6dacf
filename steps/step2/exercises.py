"""Step 2's exercises: the K/V rows one layer computes with and without a cache (on paper),
and sliders set for a given saving (on the page).

What an exercise is, and how the step and the sheet show it: steps/ui/exercises.py."""
from __future__ import annotations

from functools import lru_cache

from explainer import costs

from ..ui.exercises import PAPER, TASK, Exercise


@lru_cache(maxsize=None)
def _n2() -> dict:
    P, T = 10, 20
    return dict(P=P, T=T, T1=T - 1, without=costs.kv_projections_without_cache(P, T),
                with_=costs.kv_projections_with_cache(P, T),
                saving=costs.projection_savings(P, T))


def _p2(tr, x):
    return tr._("Take P = {P} (the prompt's tokens) and T = {T} (the tokens generated after "
                "it). How many K/V rows does one layer compute without a cache, and how many "
                "with one? How many times fewer is that?", P=tr.int(x["P"]), T=tr.int(x["T"]))


def _a2(tr, x):
    P, T = x["P"], x["T"]
    return [tr._("Without a cache, step t runs all P + t − 1 tokens through the layer again. "
                 "Rows: T × P + T × (T − 1) ÷ 2 = {T} × {P} + {T} × {T1} ÷ 2 = {without}.",
                 T=tr.int(T), P=tr.int(P), T1=tr.int(x["T1"]), without=tr.int(x["without"])),
            tr._("With a cache every token goes through once. Rows: P + T − 1 = {with_}.",
                 with_=tr.int(x["with_"])),
            tr._("{without} ÷ {with_} = {saving}: with the cache the layer computes {saving} "
                 "fewer rows.",
                 without=tr.int(x["without"]), with_=tr.int(x["with_"]),
                 saving=tr.times(x["saving"]))]


@lru_cache(maxsize=None)
def _t2_numbers() -> dict:
    P, T = 5, 64                                   # the solution below
    return dict(goal=30, P=P, T=T, saving=costs.projection_savings(P, T))


def _t2(tr, x):
    return tr._("Set the sliders so that with the cache the layer computes at least {goal} "
                "fewer K/V rows than without.",
                goal=tr.times(x["goal"], 0))


def _t2_check(m) -> bool:
    return costs.projection_savings(m.prompt, m.tokens) >= _t2_numbers()["goal"]


def _t2_answer(tr, x):
    return [tr._("For example P = {P} and T = {T}: {saving} fewer rows. The saving grows with "
                 "T, the tokens generated.", P=tr.int(x["P"]), T=tr.int(x["T"]),
                 saving=tr.times(x["saving"]))]


EXERCISES: tuple[Exercise, ...] = (
    Exercise(2, 1, PAPER, _n2, _p2, _a2),
    Exercise(2, 2, TASK, _t2_numbers, _t2, _t2_answer, _t2_check,
             lambda m: dict(prompt=_t2_numbers()["P"], tokens=_t2_numbers()["T"])),
)
"""In order; steps.registry.exercises finds them."""
