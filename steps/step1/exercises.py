"""Step 1's exercises: how many keys the newest query reads (on paper), and the player
stepped until it reads twice the prompt (on the page).

What an exercise is, and how the step and the sheet show it: steps/ui/exercises.py."""
from __future__ import annotations

from functools import lru_cache

from explainer import costs

from ..ui.exercises import PAPER, TASK, Exercise


@lru_cache(maxsize=None)
def _n1() -> dict:
    P, n = 8, 3                                   # prompt tokens, tokens fed back one at a time
    totals = [costs.qk_scores_so_far(P, g) for g in range(n + 1)]
    terms = [totals[0]] + [b - a for a, b in zip(totals, totals[1:])]
    return dict(P=P, n=n, terms=terms, last=terms[-1], total=totals[-1])


def _p1(tr, x):
    return " ".join((
        tr.n_("A prompt of {P} token goes in at once (the prefill).",
              "A prompt of {P} tokens goes in at once (the prefill).", x["P"], P=tr.int(x["P"])),
        tr.n_("Then the model feeds back {n} generated token, one at a time.",
              "Then the model feeds back {n} generated tokens, one at a time.", x["n"],
              n=tr.int(x["n"])),
        tr._("How many keys does the query of the last one read? How many q·k scores have the "
             "newest queries computed in all, counting the prompt's last token?")))


def _a1(tr, x):
    return [tr.n_("The prompt's last token reads the {P} key of the prompt; each token fed "
                  "back reads one key more than the one before.",
                  "The prompt's last token reads the {P} keys of the prompt; each token fed "
                  "back reads one key more than the one before.", x["P"], P=tr.int(x["P"])),
            tr.n_("The last one reads {last} key.", "The last one reads {last} keys.", x["last"],
                  last=tr.int(x["last"])) + " "
            + tr._("The q·k scores in all: {terms} = {total}.", total=tr.int(x["total"]),
                   terms=" + ".join(tr.int(t) for t in x["terms"]))]


@lru_cache(maxsize=None)
def _t1_numbers() -> dict:
    return dict(times=2)


def _t1(tr, x):
    return tr._("Step the player forward until the newest query reads twice as many keys as "
                "the prompt has tokens.")


def _t1_check(m) -> bool:
    return m.current().keys_read == 2 * m.run.prompt_len


def _t1_answer(tr, x):
    return [tr._("With a prompt of P tokens: after P steps forward the newest query reads "
                 "2 × P keys, the prompt's and the P generated ones.")]


EXERCISES: tuple[Exercise, ...] = (
    Exercise(1, 1, PAPER, _n1, _p1, _a1),
    Exercise(1, 2, TASK, _t1_numbers, _t1, _t1_answer, _t1_check,
             lambda m: dict(frame=m.run.prompt_len)),
)
"""In order; steps.registry.exercises finds them."""
