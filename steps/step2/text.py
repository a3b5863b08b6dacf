"""Step 2's words: the only place that translates. Pure functions of (numbers, Translator)."""
from __future__ import annotations

from typing import TypedDict

from explainer.format import int_ticks
from explainer.i18n import N_, Translator

from ..ui import counts
from ..ui.state import Frame, StageText
from ..ui.words import Card, card_dicts, player_text, question_labels
from .model import FACTS, T_MAX, Counts, Measured, Measurement, Run

# at most four headline cards above the grids; the rest under “All numbers” (more=True)
CARDS = (
    Card("uncached", N_("K/V projections per layer, without a cache"), "computed", hidden=True),
    Card("cached", N_("K/V projections per layer, with a cache"), "computed", hidden=True),
    Card("ratio", N_("Work without a cache, relative to with one"), "computed", hidden=True),
    Card("same_tokens", N_("Same tokens"), "measured"),
    Card("recomputed", N_("K/V projections recomputed per layer, without a cache"), "computed",
         hidden=True, more=True),
    Card("measured_uncached", N_("Rows through K/V per layer, without a cache"), "measured",
         hidden=True, more=True),
    Card("measured_cached", N_("Rows through K/V per layer, with a cache"), "measured",
         hidden=True, more=True),
    Card("measured_uncached_all", N_("All layers, without a cache"), "measured", hidden=True,
         more=True),
    Card("measured_cached_all", N_("All layers, with a cache"), "measured", hidden=True,
         more=True),
    Card("time_uncached", N_("Wall time without a cache"), "measured", more=True),
    Card("time_cached", N_("Wall time with a cache"), "measured", more=True),
    Card("dlogit", N_("Largest |Δ logit|"), "measured", more=True),
)

PENDING, FAILED = "…", "–"          # a measured value not there yet / not available


def question(P: int, T: int, tr: Translator) -> dict:
    """Built from the state on screen (the deep link's P and T, or the sliders')."""
    a = T * P + T * (T - 1) // 2
    b = P + T - 1
    options = [a]
    for x in (b, T * P, T * (P + T), 2 * a, a + P + T, 3 * a + 1):
        if x not in options and len(options) < 3:
            options.append(x)
    options.sort()
    return dict(
        key=("step2", P, T),
        prompt=" ".join((
            tr.n_("The prompt has {n} token.", "The prompt has {n} tokens.", P, n=tr.int(P)),
            tr.n_("How many K/V projections per layer does generating {n} token need without "
                  "a cache?",
                  "How many K/V projections per layer does generating {n} tokens need without "
                  "a cache?", T, n=tr.int(T)))),
        options=[tr.int(x) for x in options], correct=options.index(a),
        explain=tr._("Without a cache, generation step s computes all {P} + s − 1 positions: "
                     "{T} × {P} + {T} × {T1} / 2 = {tp} + {tri} = {a}. With a cache it is "
                     "{P} + {T} − 1 = {b}.", P=tr.int(P), T=tr.int(T), T1=tr.int(T - 1),
                     tp=tr.int(T * P), tri=tr.int(T * (T - 1) // 2), a=tr.int(a), b=tr.int(b)),
        points=["cells-u"],           # the grid without a cache: its cells (js/draw/grids.js)
        **question_labels(tr))


class GridLabels(TypedDict):
    """The grids' legend: what a cell of each colour is."""
    new: str
    recomputed: str
    cached: str


class GridsStageText(StageText):
    """The grids' labels (js/draw/grids.js)."""
    uncached: str            # the title of the grid without a cache
    cached: str              # the title of the grid with a cache
    x: str                   # the position axis
    y: str                   # the generation step axis
    legend: GridLabels
    outputs: str             # the heading over the live model's two outputs
    prompt: str


def grid_labels(tr: Translator) -> GridLabels:
    return {"new": tr._("computed new"), "recomputed": tr._("recomputed"),
            "cached": tr._("read from cache")}


def stage_text(tr: Translator) -> GridsStageText:
    """The stage's fixed words: titles, axes, legend, and the labels under the grids."""
    return dict(player_text(tr), figure=tr._("Keys and values computed at each generation step"),
                uncached=tr._("Without a cache"), cached=tr._("With a cache"),
                x=tr._("position →"), y=tr._("generation step"), legend=grid_labels(tr),
                outputs=tr._("Does the cache change the output?"), prompt=tr._("Prompt:"))


def caption(c: Counts, tr: Translator) -> str:
    """What the newest row shows (numbers of one row, not the totals the question asks for)."""
    if c.T == 1:
        return tr.n_("Generation step 1 is the prefill: the key and value of the {n} prompt "
                     "position are computed for the first time, with or without a cache.",
                     "Generation step 1 is the prefill: the keys and values of the {n} prompt "
                     "positions are computed for the first time, with or without a cache.",
                     c.P, n=tr.int(c.P))
    n = c.P + c.T - 2
    return tr.n_("Generation step {s} feeds in one new token. Without a cache it also computes "
                 "the key and value of the {n} earlier position again; with a cache it reads "
                 "them back.",
                 "Generation step {s} feeds in one new token. Without a cache it also computes "
                 "the keys and values of the {n} earlier positions again; with a cache it reads "
                 "them back.", n, s=tr.int(c.T), n=tr.int(n))


def summary(c: Counts, tr: Translator, concealed: bool = False) -> str:
    """The frame's totals in one sentence; `concealed`: the numbers as “?”."""
    q = "?" if concealed else None
    return tr.n_(
        "Over {T} step, the K/V projections in each layer of the live model: {a} without a "
        "cache, {b} with one, {r} times the work.",
        "Over {T} steps, the K/V projections in each layer of the live model: {a} without a "
        "cache, {b} with one, {r} times the work.",
        c.T, T=tr.int(c.T), a=q or tr.int(c.uncached), b=q or tr.int(c.cached),
        r=q or tr.num(c.ratio, 1))


def grid_captions(c: Counts, tr: Translator, concealed: bool = False) -> list[str]:
    q = "?" if concealed else None
    return [tr.n_("{a} K/V projection per layer, {w} recomputed.",
                  "{a} K/V projections per layer, {w} of them recomputed.",
                  0 if q else c.uncached, a=q or tr.int(c.uncached), w=q or tr.int(c.recomputed)),
            tr.n_("{b} K/V projection per layer; what the other grid recomputes ({w}) is read "
                  "from the cache instead.",
                  "{b} K/V projections per layer; what the other grid recomputes ({w}) is read "
                  "from the cache instead.",
                  0 if q else c.cached, b=q or tr.int(c.cached), w=q or tr.int(c.recomputed))]


def same_tokens(m: Measured, tr: Translator) -> str:
    return tr._("yes") if m.same else tr._("no")


def verdict(m: Measured, tr: Translator) -> str:
    d = tr.sig(m.dlogit, 2)
    if m.same:
        return tr._("The cache does not change the result: both runs chose the same tokens, and "
                    "their logits differ by at most {d}, float rounding.", d=d)
    return tr._("The two runs chose different tokens here; their logits differ by up to {d}.",
                d=d)


def matches(c: Counts, m: Measured) -> bool:
    return m.rows_uncached == c.uncached and m.rows_cached == c.cached


def live_notices(c: Counts, m: Measured | None, status: str, error: str,
                 tr: Translator) -> list[str]:
    if status == "failed":
        return [tr._("The live model could not run: {error}", error=error)]
    if m is None:
        return [tr.n_("The live model is generating {n} token after this prompt, with and "
                      "without a cache; the measured numbers appear in a moment.",
                      "The live model is generating {n} tokens after this prompt, with and "
                      "without a cache; the measured numbers appear in a moment.",
                      T_MAX, n=tr.int(T_MAX))]
    if not matches(c, m):
        return [tr._("The counts measured in the live model differ from the formulas ({a} and "
                     "{b}).", a=tr.int(c.uncached), b=tr.int(c.cached))]
    return []


def values(c: Counts, m: Measured | None, status: str, tr: Translator) -> dict:
    """{card key: formatted value} of one frame, headline and “All numbers” alike."""
    wait = FAILED if status == "failed" else PENDING
    v = dict(uncached=tr.int(c.uncached), cached=tr.int(c.cached), ratio=tr.times(c.ratio, 1),
             recomputed=tr.int(c.recomputed))
    if m is None:
        v.update({k: wait for k in ("same_tokens", "measured_uncached", "measured_cached",
                                    "measured_uncached_all", "measured_cached_all",
                                    "time_uncached", "time_cached", "dlogit")})
    else:
        v.update(same_tokens=same_tokens(m, tr), measured_uncached=tr.int(m.rows_uncached),
                 measured_cached=tr.int(m.rows_cached),
                 measured_uncached_all=tr.int(m.rows_uncached_all),
                 measured_cached_all=tr.int(m.rows_cached_all),
                 time_uncached=tr.seconds(m.time_uncached), time_cached=tr.seconds(m.time_cached),
                 dlogit=tr.sig(m.dlogit, 2))
    return v


def card_labels(tr: Translator) -> dict:
    """The labels with a number in them."""
    L = FACTS["n_layers"]
    return {"measured_uncached_all": tr.n_("All {L} layer, without a cache",
                                           "All {L} layers, without a cache", L, L=tr.int(L)),
            "measured_cached_all": tr.n_("All {L} layer, with a cache",
                                         "All {L} layers, with a cache", L, L=tr.int(L))}


class GridsFig(TypedDict):
    """One frame of js/draw/grids.js: both grids after T generated tokens."""
    P: int                   # the prompt's length
    T: int                   # tokens generated so far
    rows: list[tuple[int, int, int]]   # per generation step: [context, new, recomputed]
    xt: list[tuple[int, str]]          # position ticks
    yt: list[tuple[int, str]]          # generation step ticks


class GridsOutputs(TypedDict):
    """The live model's continuation without and with a cache."""
    prompt: str
    texts: list[str]         # [without a cache, with a cache]
    verdict: str             # whether they are the same


class GridsMore(TypedDict):
    """What js/draw/grids.js `extra` draws under the grids."""
    summary: str             # the totals (“?” until the question is answered)
    captions: list[str]      # one per grid
    notices: list[str]       # the live model's
    outputs: GridsOutputs | None   # null until measured


class GridsStageFrame(Frame):
    fig: GridsFig
    more: GridsMore


def frame(c: Counts, meas: Measurement | None, status: str, error: str,
          tr: Translator, revealed: bool = True) -> GridsStageFrame:
    """One frame (T tokens): words and numbers for the browser's player. Until the question is
    answered (`revealed` False) the totals under the grids read “?” (`summary`,
    `grid_captions`), as the cards that hold them (`hidden`) do."""
    m = meas.at(c.T) if meas is not None else None
    v = values(c, m, status, tr)
    cap = caption(c, tr)
    outputs = None
    if m is not None:
        outputs = dict(prompt=meas.prompt_text, texts=[m.text_uncached, m.text_cached],
                       verdict=verdict(m, tr))
    return dict(
        pos=tr._("Generated tokens: {i} of {n}", i=tr.int(c.T), n=tr.int(T_MAX)),
        say=cap, caption=cap,
        desc=tr._("Two grids: one row per generation step ({n}), one column per position "
                  "({w}). Without a cache every row is filled: the earlier positions are "
                  "recomputed. With a cache each row computes only its new cells; the earlier "
                  "positions are read from the cache, drawn faint.",
                  n=tr.int(c.T), w=tr.int(c.width)),
        cards=card_dicts(CARDS, v, tr, labels=card_labels(tr)),
        table=dict(head=[tr._("generation step"), tr._("computed new"), tr._("recomputed"),
                         tr._("read from cache")],
                   rows=[[tr.int(w.step), tr.int(w.new), tr.int(w.recomputed), tr.int(w.cached)]
                         for w in c.rows]),
        fig=dict(P=c.P, T=c.T, rows=[[w.context, w.new, w.recomputed] for w in c.rows],
                 xt=[[x, tr.int(x)] for x in int_ticks(1, c.width)],
                 yt=[[y, tr.int(y)] for y in int_ticks(1, c.T)]),
        more=dict(
            summary=summary(c, tr, concealed=not revealed),
            captions=grid_captions(c, tr, concealed=not revealed),
            notices=live_notices(c, m, status, error, tr),
            outputs=outputs))


def frames(run: Run, meas: Measurement | None, status: str, error: str,
           tr: Translator, revealed: bool = True) -> list[GridsStageFrame]:
    """Every frame of the current P (`revealed`: whether the question is answered). `meas` is
    used only when it is the measurement of this prompt (the view passes None while a new one
    is pending)."""
    if meas is not None and meas.P != run.P:
        meas = None
    return [frame(c, meas, status, error, tr, revealed) for c in run.frames]


def lead(tr: Translator) -> str:
    return tr._("Without a cache, every step recomputes the keys and values of the whole text so "
                "far. With a cache, each one is computed once.")


def definition(tr: Translator) -> str:
    """Before the question: the unit it counts."""
    return tr._("A K/V projection is one position passing through one layer's key and value "
                "weights: it computes that position's key and value.")


def narration(tr: Translator) -> dict:
    """{"look": [what to look at and press] (visible); for Go deeper (`why`): "projection"
    (what one is), "without" and "with" (the two sums: "without" is the answer's formula),
    "not_saved" (what the cache does not save)}."""
    look = [
        tr._("Look at the two grids: each row is one generation step, each cell one position "
             "whose key and value that step needs. Press Play, or Step forward (the “.” key), "
             "to generate one more token; the T slider jumps to any length, and the P slider "
             "sets the prompt length."),
    ]
    projection, without, with_cache, not_saved = [
        tr._("A K/V projection is one position passing through one layer's key and value "
             "weights (x·W_K and x·W_V, all heads at once). Without a cache, the earlier "
             "positions also pass through every other weight matrix of the layer again, so the "
             "same ratio holds for the whole network."),
        tr._("Without a cache, generation step s feeds the whole text through the model again "
             "and recomputes the keys and values of all P + s − 1 positions, although only the "
             "newest position is new. Over T steps that adds up to T·P + T(T−1)/2 projections "
             "per layer."),
        tr._("With a cache, the key and value of each position are computed once and kept: "
             "P + T − 1 projections per layer. The waste grows with the square of the length: "
             "for long outputs, twice the tokens means about four times the recomputation."),
        tr._("What the cache does not save: it removes the recomputation of the earlier "
             "positions through the whole network, not the growing cost of attention. Each new "
             "query still reads every cached key, so each step still costs a little more than "
             "the one before."),
    ]
    return {"look": look, "projection": projection, "without": without, "with": with_cache,
            "not_saved": not_saved}


def why(tr: Translator, revealed: bool) -> list[str]:
    """Go deeper, why it works: the projections' arithmetic (its sum only once the question is
    answered: it is the answer's formula), and what the cache does not save."""
    said = narration(tr)
    return [said["projection"], *([said["without"]] if revealed else []), said["with"],
            said["not_saved"]]


def facts(tr: Translator) -> list[str]:
    f = FACTS
    return [tr._("Live model: {layers}, {heads}, {kv}, head_dim {d}, running on {device}.",
                 layers=counts.layers(f["n_layers"], tr),
                 heads=counts.query_heads(f["n_heads"], tr),
                 kv=counts.kv_heads(f["n_kv_heads"], tr), d=tr.int(f["head_dim"]),
                 device=f["device"]),
            tr._("The wall times are real but small and noisy: in a model this tiny, the fixed "
                 "cost of every step weighs heavily next to the arithmetic.")]


def control_labels(tr: Translator) -> dict[str, str]:
    """The sliders' labels, keyed by the model parameter each one sets."""
    return {"tokens": tr._("Tokens generated (T)"), "prompt": tr._("Prompt length in tokens (P)")}

