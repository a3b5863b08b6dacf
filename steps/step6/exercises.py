"""Step 6's exercises, a pair for part A's arithmetic (MHA in fp16 against GQA in fp8, on
paper; a cache under a limit, on the page) and a pair for part D's dropped tokens (the live
model's cache under a budget, on paper; H2O's smallest faithful budget, measured, on the
page).

What an exercise is, and how the step and the sheet show it: steps/ui/exercises.py."""
from __future__ import annotations

from functools import lru_cache

from explainer import costs, presets
from explainer.format import bytes_bin
from explainer.i18n import LANGS

from ..ui import counts
from ..ui.exercises import PAPER, TASK, Exercise
from .model import (BATCH, BUDGET_CHOICES, CONTEXT, DEFAULT_BUDGET, EVICTION_VARIANT, REF,
                    eviction_ids, shrink, sweep)


# == part A: fewer key/value heads, fewer bytes a value ==========================================

@lru_cache(maxsize=None)
def _n6() -> dict:
    base = costs.shrink(REF, BATCH, CONTEXT, n_kv_heads=REF.n_heads)
    small = costs.shrink(REF, BATCH, CONTEXT, n_kv_heads=REF.n_kv_heads, precision="fp8")
    return dict(name=REF.name, L=REF.n_layers, Hq=REF.n_heads, H=REF.n_kv_heads, d=REF.head_dim, B=BATCH,
                T=CONTEXT, per0=base.baseline_bytes // (BATCH * CONTEXT), base=base.bytes,
                per1=small.kv_per_token, small=small.bytes, factor=small.factor,
                b0=presets.PRECISIONS["fp16"].bits // 8, b1=presets.PRECISIONS["fp8"].bits // 8,
                heads_factor=REF.n_heads / REF.n_kv_heads,
                bytes_factor=presets.PRECISIONS["fp16"].bits / presets.PRECISIONS["fp8"].bits)


def _p6(tr, x):
    return " ".join((
        tr._("{model}: {layers}, {heads}, head_dim {d}; a batch of {seqs}, {tokens} each. How "
             "big is the cache with one key/value head per query head (MHA) in fp16?",
             model=x["name"], layers=counts.layers(x["L"], tr),
             heads=counts.query_heads(x["Hq"], tr), d=tr.int(x["d"]),
             seqs=counts.sequences(x["B"], tr), tokens=counts.tokens(x["T"], tr)),
        tr.n_("And with its own {H} key/value head (GQA) in fp8? How many times smaller is "
              "that?", "And with its own {H} key/value heads (GQA) in fp8? How many times "
              "smaller is that?", x["H"], H=tr.int(x["H"]))))


def _a6(tr, x):
    return [tr._("MHA in fp16: 2 × {L} × {Hq} × {d} × {b0} B = {per0} per token; × {tokens} "
                 "× {seqs} = {base}.", L=tr.int(x["L"]), Hq=tr.int(x["Hq"]),
                 b0=tr.int(x["b0"]), d=tr.int(x["d"]), per0=bytes_bin(x["per0"], tr),
                 tokens=counts.tokens(x["T"], tr), seqs=counts.sequences(x["B"], tr),
                 base=bytes_bin(x["base"], tr)),
            tr._("GQA in fp8: 2 × {L} × {H} × {d} × {b1} B = {per1} per token; in all "
                 "{small}.", L=tr.int(x["L"]), H=tr.int(x["H"]), d=tr.int(x["d"]),
                 b1=tr.int(x["b1"]),
                 per1=bytes_bin(x["per1"], tr), small=bytes_bin(x["small"], tr)),
            tr._("{base} ÷ {small} = {factor} smaller: {h} from the key/value heads ({Hq} → "
                 "{H}) times {p} from the bytes per value ({b0} → {b1}).",
                 base=bytes_bin(x["base"], tr), small=bytes_bin(x["small"], tr),
                 factor=tr.times(x["factor"], 0), h=tr.times(x["heads_factor"], 0),
                 Hq=tr.int(x["Hq"]), H=tr.int(x["H"]), p=tr.times(x["bytes_factor"], 0),
                 b0=tr.int(x["b0"]), b1=tr.int(x["b1"]))]


@lru_cache(maxsize=None)
def _t6_numbers() -> dict:
    s = dict(kv_heads=8, precision="fp16", window=4096)
    return dict(**s, B=BATCH, limit=4 * presets.GiB, bytes=shrink(**s).bytes,
                int4=shrink(8, "int4", 0).bytes)


def _t6(tr, x):
    return tr.n_("Keep the {H} key/value head of GQA and make the whole batch's cache {limit} "
                 "or less.", "Keep the {H} key/value heads of GQA and make the whole batch's "
                 "cache {limit} or less.", x["kv_heads"], H=tr.int(x["kv_heads"]),
                 limit=bytes_bin(x["limit"], tr))


def _t6_check(m) -> bool:
    x = _t6_numbers()
    return m.kv_heads == x["kv_heads"] and m.shrink.bytes <= x["limit"]


def _t6_answer(tr, x):
    return [tr.n_("GQA with a sliding window of {W} token: {bytes}. int4 alone is not enough "
                  "({int4}): its scales take bytes too.", "GQA with a sliding window of {W} "
                  "tokens: {bytes}. int4 alone is not enough ({int4}): its scales take bytes "
                  "too.", x["window"], W=tr.int(x["window"]), bytes=bytes_bin(x["bytes"], tr),
                  int4=bytes_bin(x["int4"], tr))]


# == part D: dropping tokens on the live model ===================================================

@lru_cache(maxsize=None)
def _n6d() -> dict:
    """The live model's cache under part D's budget, from the cost model on the live model's
    own configuration (`rt.live_preset`; fp32, as the live cache stores it). The tests check
    these bytes against what the eviction runs measure."""
    from explainer import runtime as rt
    live = rt.live_preset(EVICTION_VARIANT)
    P, g, B = rt.EVICTION_PROMPT_TOKENS, rt.EVICTION_NEW, DEFAULT_BUDGET
    T = P + g - 1                                  # the last token written is never fed back
    per = costs.kv_bytes_per_token(live, "fp32")
    full, small = costs.kv_cache_bytes(live, T, 1, "fp32"), costs.kv_cache_bytes(live, B, 1, "fp32")
    return dict(L=live.n_layers, H=live.n_kv_heads, d=live.head_dim,
                b=presets.PRECISIONS["fp32"].bits // 8, P=P, g=g, T=T, B=B, per=per,
                full=full, small=small, share=small / full)


def _p6d(tr, x):
    return " ".join((
        tr._("The live model of part D: {layers}, {heads}, head_dim {d}, cache in fp32 ({b} B "
             "per number).", layers=counts.layers(x["L"], tr),
             heads=counts.kv_heads(x["H"], tr), d=tr.int(x["d"]), b=tr.int(x["b"])),
        tr.n_("It reads a prompt of {P} token", "It reads a prompt of {P} tokens", x["P"],
              P=tr.int(x["P"])) + " " +
        tr.n_("and then generates {g} token.", "and then generates {g} tokens.", x["g"],
              g=tr.int(x["g"])),
        tr.n_("How many bytes does its full cache hold at the end? And a cache with a budget "
              "of {B} token? What share of the full cache is that?", "How many bytes does its "
              "full cache hold at the end? And a cache with a budget of {B} tokens? What share "
              "of the full cache is that?", x["B"], B=tr.int(x["B"]))))


def _a6d(tr, x):
    return [tr._("Per token: 2 × {L} × {H} × {d} × {b} B = {per}.", L=tr.int(x["L"]),
                 H=tr.int(x["H"]), d=tr.int(x["d"]), b=tr.int(x["b"]),
                 per=bytes_bin(x["per"], tr, precise=True)),
            tr.n_("The last token written is never fed back, so at the end the full cache "
                  "holds {T} token: {P} + {g} − 1 = {T}, and {T} × {per} = {full}.",
                  "The last token written is never fed back, so at the end the full cache "
                  "holds {T} tokens: {P} + {g} − 1 = {T}, and {T} × {per} = {full}.", x["T"],
                  P=tr.int(x["P"]),
                 g=tr.int(x["g"]), T=tr.int(x["T"]), per=bytes_bin(x["per"], tr, precise=True),
                 full=bytes_bin(x["full"], tr, precise=True)),
            tr.n_("A budget of {B} token: {B} × {per} = {small}, {share} of the full cache, "
                  "whichever tokens it keeps (H2O also keeps one attention score per token).",
                  "A budget of {B} tokens: {B} × {per} = {small}, {share} of the full cache, "
                  "whichever tokens it keeps (H2O also keeps one attention score per token).",
                  x["B"], B=tr.int(x["B"]), per=bytes_bin(x["per"], tr, precise=True),
                 small=bytes_bin(x["small"], tr, precise=True), share=tr.pct(x["share"]))]


def _smallest_full_budget(sw, policy: str = "h2o") -> int | None:
    """The smallest budget of a part D sweep at which `policy` agrees with the full cache at
    every generated token (None if none does)."""
    return next((b for b in BUDGET_CHOICES if (sw.at(policy, b) or (0.0,))[0] == 1.0), None)


@lru_cache(maxsize=None)
def _t6d_numbers() -> dict:
    """The answer is measured: part D's sweep on each language's passage (the runtime's
    memoised runs; a served process measured them at start)."""
    from explainer import runtime as rt
    langs = tuple(LANGS)
    return dict(g=rt.EVICTION_NEW, all=1.0, langs=langs,
                budgets=tuple(_smallest_full_budget(sweep(eviction_ids(lang)))
                              for lang in langs))


def _t6d(tr, x):
    return tr.n_("In part D, pick heavy hitters + recent tokens (H2O) and find the smallest "
                 "budget at which its next token is the full cache's at each of the {g} "
                 "generated token.", "In part D, pick heavy hitters + recent tokens (H2O) and "
                 "find the smallest budget at which its next token is the full cache's at each "
                 "of the {g} generated tokens.", x["g"], g=tr.int(x["g"]))


def _t6d_check(m) -> bool:
    sw = m.sweep.value if m.sweep is not None else None
    return (m.policy == "h2o" and sw is not None
            and m.budget == _smallest_full_budget(sw))


def _t6d_solution(m) -> dict:
    return dict(part="d", policy="h2o",
                budget=_smallest_full_budget(sweep(eviction_ids(m.lang))))


def _t6d_answer(tr, x):
    B = x["budgets"][x["langs"].index(tr.lang)] if tr.lang in x["langs"] else None
    from .text import RUN_D                         # the card's own words
    return [tr._("Play H2O at growing budgets and read the card “{card}”, or the chart's H2O "
                 "line: the first budget where it reads {all} is the answer.",
                 card=tr._(RUN_D[0].label), all=tr.pct(x["all"])),
            tr.n_("Measured on this language's passage: {B} token. Each language has a "
                  "passage of its own, and the answer can differ from one to another: which "
                  "tokens matter depends on the text.", "Measured on this language's passage: "
                  "{B} tokens. Each language has a passage of its own, and the answer can "
                  "differ from one to another: which tokens matter depends on the text.", B,
                  B=tr.int(B)) if B is not None else
            tr._("On this language's passage no budget below the full cache agrees at every "
                 "token.")]


EXERCISES: tuple[Exercise, ...] = (
    Exercise(6, 1, PAPER, _n6, _p6, _a6),
    Exercise(6, 2, TASK, _t6_numbers, _t6, _t6_answer, _t6_check,
             lambda m: {k: _t6_numbers()[k] for k in ("kv_heads", "precision", "window")}),
    Exercise(6, 3, PAPER, _n6d, _p6d, _a6d),             # part D: dropping tokens
    Exercise(6, 4, TASK, _t6d_numbers, _t6d, _t6d_answer, _t6d_check, _t6d_solution),
)
"""In order; steps.registry.exercises finds them."""
