"""Step 2's view-model: the prompt length P and the token count T; numbers only.

The player's frames are the token counts T = T_MIN..T_MAX; frame f shows T = f + T_MIN. For
one prompt length every frame is computed at once (`counts`, shared by all sessions): the
per-step breakdown of `explainer.costs` that the two grids draw, and its totals.

The live model measures the same counts (`measure`): one greedy run of T_MAX tokens without a
cache and one with it, per (language, P). A run of T_MAX tokens contains every shorter run as
its first T steps, so every frame is a slice of the same two traces. `measure` blocks: a
served process runs every (language, P) at start (`live_jobs`, by `--setup warmup.py`), and
otherwise the view queues it (steps/live.py), so that a served session never waits for it.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import param

from explainer import costs, presets
from explainer import runtime as rt
from explainer.i18n import LANGS
from explainer.memo import memo
from explainer.prompts import PROMPTS

VARIANT = "mha"                                   # the live model this step runs
P_MIN, P_MAX = presets.STEP2["P_range"]
T_MIN, T_MAX = presets.STEP2["T_range"]
PASSAGE = 3                                       # PROMPTS[lang][3]: the long passage
FACTS = rt.model_facts(VARIANT)


# -- the formula: every frame of one prompt length ---------------------------------------------

@dataclass(frozen=True)
class Counts:
    """K/V projections per layer for T tokens generated after a P-token prompt."""
    P: int
    T: int
    uncached: int          # without a cache: every step recomputes the whole prefix
    cached: int            # with a cache: each position once
    ratio: float           # uncached / cached
    recomputed: int        # projections without a cache that redo earlier work
    rows: tuple            # costs.StepWork per generation step 1..T: the grids' rows

    @property
    def width(self) -> int:
        """Positions the last step needs: the grids' columns."""
        return self.P + self.T - 1


@dataclass(frozen=True)
class Run:
    P: int
    frames: tuple          # Counts for T = T_MIN..T_MAX (frame f is T = f + T_MIN)

    def at(self, T: int) -> Counts:
        return self.frames[T - T_MIN]


@memo(maxsize=P_MAX - P_MIN + 1)
def counts(P: int) -> Run:
    """Shared by every session: a Run is immutable."""
    rows = costs.wasted_work_steps(P, T_MAX)
    frames = []
    for T in range(T_MIN, T_MAX + 1):
        frames.append(Counts(
            P=P, T=T, uncached=costs.kv_projections_without_cache(P, T),
            cached=costs.kv_projections_with_cache(P, T), ratio=costs.projection_savings(P, T),
            recomputed=sum(w.recomputed for w in rows[:T]), rows=rows[:T]))
    return Run(P=P, frames=tuple(frames))


def grid_cells(c: Counts, cached: bool) -> dict:
    """How many cells of each kind one grid draws: {"new": .., "recomputed" | "cached": ..}."""
    old = "cached" if cached else "recomputed"
    return {"new": sum(w.new for w in c.rows),
            old: sum(w.cached if cached else w.recomputed for w in c.rows)}


# -- the prompt --------------------------------------------------------------------------------

@lru_cache(maxsize=None)
def passage_ids(lang: str) -> tuple:
    """At least P_MAX token ids of the language's long passage.

    When the passage in `explainer.prompts` is shorter than P_MAX tokens, it continues with the
    words that follow it in the training corpus (the passage is a corpus passage's start), so a
    prompt of any length on the slider is real text.
    """
    ids = rt.encode(PROMPTS[lang][PASSAGE])
    if len(ids) >= P_MAX:
        return ids
    corpus, n = rt.corpus_ids(), len(ids)
    for i in range(len(corpus) - P_MAX + 1):
        if corpus[i:i + n] == ids:
            return tuple(corpus[i:i + P_MAX])
    return tuple((ids * (P_MAX // n + 1))[:P_MAX])       # not found: repeat (never expected)


def prompt_ids(lang: str, P: int) -> tuple:
    return passage_ids(lang)[:P]


# -- the live model: the same counts, measured -------------------------------------------------

@dataclass(frozen=True)
class Measured:
    """What the live model did in the first T steps of both runs."""
    T: int
    rows_uncached: int             # rows through one layer's K/V projections, no cache
    rows_cached: int
    rows_uncached_all: int         # over all layers
    rows_cached_all: int
    rows_uncached_layers: tuple    # per layer
    rows_cached_layers: tuple
    time_uncached: float           # seconds (wall time)
    time_cached: float
    ids_uncached: tuple            # the T generated token ids
    ids_cached: tuple
    text_uncached: str             # ... as text (the model's own words, not translated)
    text_cached: str
    dlogit: float                  # max |Δ logit| over steps 1..T
    same: bool                     # both runs chose the same tokens in steps 1..T


@dataclass(frozen=True)
class Measurement:
    lang: str
    P: int
    prompt_ids: tuple
    prompt_text: str
    frames: tuple                  # Measured for T = T_MIN..T_MAX

    def at(self, T: int) -> Measured:
        return self.frames[T - T_MIN]


@lru_cache(maxsize=1)
def warm_up_model() -> None:
    """One short throwaway run of each kind before the first measured one, so the measured
    wall times do not include the process's first-call overheads (lazy initialisation)."""
    try:
        ids = passage_ids("en")[:4]
        rt.generate(VARIANT, ids, 4, None)
        rt.generate(VARIANT, ids, 4, "fp32")
    except Exception:
        pass                            # the real run reports any error


@lru_cache(maxsize=len(LANGS) * (P_MAX - P_MIN + 1))
def measure(lang: str, P: int) -> Measurement:
    """Run the live model (blocking): uncached and cached generation of T_MAX tokens (the
    runs `rt.compare_cached_uncached` compares). The traces are not kept: the Measurement
    holds every number a frame shows."""
    warm_up_model()
    ids = prompt_ids(lang, P)
    u = rt.run(VARIANT, ids, T_MAX, None, record_kv=False)
    c = rt.run(VARIANT, ids, T_MAX, "fp32", record_kv=False)
    dl = np.maximum.accumulate(np.abs(u.logits - c.logits).max(axis=1))
    same = np.logical_and.accumulate(np.array(u.new_ids) == np.array(c.new_ids))
    decode = rt.tokenizer().decode
    frames = []
    for T in range(T_MIN, T_MAX + 1):
        frames.append(Measured(
            T=T, rows_uncached=int(u.kv_rows[:T, 0].sum()),
            rows_cached=int(c.kv_rows[:T, 0].sum()),
            rows_uncached_all=int(u.kv_rows[:T].sum()), rows_cached_all=int(c.kv_rows[:T].sum()),
            rows_uncached_layers=tuple(int(x) for x in u.kv_rows[:T].sum(axis=0)),
            rows_cached_layers=tuple(int(x) for x in c.kv_rows[:T].sum(axis=0)),
            time_uncached=float(u.times[:T].sum()), time_cached=float(c.times[:T].sum()),
            ids_uncached=tuple(u.ids[P:P + T]), ids_cached=tuple(c.ids[P:P + T]),
            text_uncached=decode(list(u.ids[P:P + T])),
            text_cached=decode(list(c.ids[P:P + T])),
            dlogit=float(dl[T - 1]), same=bool(same[T - 1])))
    return Measurement(lang=lang, P=P, prompt_ids=ids, prompt_text=decode(list(ids)),
                       frames=tuple(frames))


def live_job(lang: str, P: int) -> tuple:
    """(key, fn) of the live measurement of (lang, P), shared by every session."""
    return ("step2", lang, P), lambda: measure(lang, P)


def live_jobs(lang: str) -> list:
    """(key, fn) of every measurement the P slider can reach in `lang`."""
    return [live_job(lang, P) for P in range(P_MIN, P_MAX + 1)]


def speed_job(key) -> bool:
    """Whether a live job's result holds this server's speed (`steps.warmcache` never keeps
    one: it is measured again at every start): every measurement of this step does (its wall
    times)."""
    return isinstance(key, tuple) and key[:1] == ("step2",)


def warm_jobs() -> list:
    """What the warm-up measures for this step before serving (`steps.registry.live_jobs`):
    every (language, P) the P slider can reach, the defaults of every language first (the
    first page a class opens)."""
    jobs = [live_job(lang, Step2Model.prompt) for lang in LANGS]
    for lang in LANGS:
        jobs += live_jobs(lang)
    return jobs


# -- the controls ------------------------------------------------------------------------------

class Step2Model(param.Parameterized):
    lang = param.Selector(default="en", objects=list(LANGS), doc="language of the prompt")
    tokens = param.Integer(default=presets.STEP2["T"], bounds=presets.STEP2["T_range"],
                           doc="T: tokens generated")
    prompt = param.Integer(default=presets.STEP2["P"], bounds=presets.STEP2["P_range"],
                           doc="P: prompt tokens")
    frame = param.Integer(default=presets.STEP2["T"] - T_MIN, bounds=(0, T_MAX - T_MIN),
                          doc="the player's position: always tokens - T_MIN")

    run = param.Parameter(default=None, doc="output: every frame of the current P (Run)")
    live_args = param.Tuple(default=("en", presets.STEP2["P"]), length=2,
                            doc="output: (lang, P), the live measurement this state shows")

    @param.depends("prompt", watch=True, on_init=True)
    def _count(self):
        """The frames depend on P only: moving T (the slider or the player) changes none."""
        self.run = counts(self.prompt)

    @param.depends("lang", "prompt", watch=True, on_init=True)
    def _live_args(self):
        self.live_args = (self.lang, self.prompt)

    @param.depends("tokens", watch=True, on_init=True)
    def _tokens_to_frame(self):
        if self.frame != self.tokens - T_MIN:
            self.frame = self.tokens - T_MIN

    @param.depends("frame", watch=True)
    def _frame_to_tokens(self):
        if self.tokens != self.frame + T_MIN:
            self.tokens = self.frame + T_MIN

    def current(self) -> Counts:
        return self.run.at(self.tokens)

    def measurement(self) -> Measurement:
        """The live measurement of the current state (blocking; views queue it instead)."""
        return measure(*self.live_args)
