"""Exercises: two or three per step (step 6, in four parts: a pair for part A's arithmetic and a
pair for part D's dropped tokens), at the end of its reading column, and all of them on one
printable sheet (`?step=end&exercises=1`, the answers on a page of their own).

Two kinds:

- **on paper** (`paper`): a question with numbers, and a worked answer behind a click. Every
  number of both comes from the cost model (`explainer.costs`, `explainer.presets`; for the
  live model, its own configuration) through the exercise's `numbers()`; the words only format
  them in the session's language. A task whose answer is measured (6.4) takes it from the live
  model's runs in `numbers()`, one per language.
- **on the page** (`task`): “set the controls so that …”. `check(model)` says whether the
  step's view-model is in a state that solves it; the step shows “done” or “not yet” as the
  learner moves the controls (the presenter recomputes it on every move). `solution` is one
  state that solves it (the tests set it; the sheet's answer page describes it).

No Panel and no browser here: `blocks(number, model, tr)` returns the step's blocks
(`steps.ui.words`) and `sheet(tr, lang)` the printable sheet's context.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Callable

from explainer import costs, presets
from explainer.format import bytes_bin
from explainer.i18n import Translator

from .ui import words as w

PAPER, TASK = "paper", "task"


@dataclass(frozen=True)
class Exercise:
    step: int
    index: int                                   # 1-based within its step
    kind: str                                    # PAPER or TASK
    numbers: Callable[[], dict]                  # every number the words use (the cost model;
                                                 # cached: read, never change)
    prompt: Callable[[Translator, dict], str]
    answer: Callable[[Translator, dict], list]   # paper: the worked answer; task: a solution
    check: Callable[[Any], bool] | None = None   # task: the step's model solves it
    solution: Callable[[Any], dict] | None = None  # task: model -> inputs that solve it

    @property
    def label(self) -> str:
        return f"{self.step}.{self.index}"


# == step 1: every new query reads all the keys =================================================

@lru_cache(maxsize=None)
def _n1() -> dict:
    P, n = 8, 3                                   # prompt tokens, tokens fed back one at a time
    totals = [costs.qk_scores_so_far(P, g) for g in range(n + 1)]
    terms = [totals[0]] + [b - a for a, b in zip(totals, totals[1:])]
    return dict(P=P, n=n, terms=terms, last=terms[-1], total=totals[-1])


def _p1(tr, x):
    return tr._("A prompt of {P} tokens goes in at once (the prefill). Then the model feeds "
                "back {n} generated tokens, one at a time. How many keys does the query of the "
                "last one read? How many q·k scores have the newest queries computed in all, "
                "counting the prompt's last token?", P=tr.int(x["P"]), n=tr.int(x["n"]))


def _a1(tr, x):
    return [tr._("The prompt's last token reads the {P} keys of the prompt; each token fed back "
                 "reads one key more than the one before.", P=tr.int(x["P"])),
            tr._("The last one reads {last} keys. In all: {terms} = {total} q·k scores.",
                 last=tr.int(x["last"]), total=tr.int(x["total"]),
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


# == step 2: the work a cache saves ==============================================================

@lru_cache(maxsize=None)
def _n2() -> dict:
    P, T = 10, 20
    return dict(P=P, T=T, T1=T - 1, without=costs.kv_projections_without_cache(P, T),
                with_=costs.kv_projections_with_cache(P, T),
                saving=costs.projection_savings(P, T))


def _p2(tr, x):
    return tr._("A prompt of P = {P} tokens, then T = {T} generated tokens. How many K/V rows "
                "does one layer compute without a cache, and how many with one? How many "
                "times fewer is that?", P=tr.int(x["P"]), T=tr.int(x["T"]))


def _a2(tr, x):
    P, T = x["P"], x["T"]
    return [tr._("Without a cache, step t runs all P + t − 1 tokens through the layer again: "
                 "T × P + T × (T − 1) ÷ 2 = {T} × {P} + {T} × {T1} ÷ 2 = {without} rows.",
                 T=tr.int(T), P=tr.int(P), T1=tr.int(x["T1"]), without=tr.int(x["without"])),
            tr._("With a cache every token goes through once: P + T − 1 = {with_} rows.",
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


# == step 3: what the cache stores ===============================================================

@lru_cache(maxsize=None)
def _n3() -> dict:
    m = presets.ALL_MODELS["llama3.1-8b"]
    T = 8192
    per = costs.kv_bytes_per_token(m, "fp16")
    return dict(name=m.name, L=m.n_layers, H=m.n_kv_heads, d=m.head_dim,
                b=presets.PRECISIONS["fp16"].bits // 8, per=per, T=T,
                seq=costs.kv_cache_bytes(m, T, 1, "fp16"))


def _p3(tr, x):
    return tr._("{model} has {L} layers and {H} key/value heads of {d} values each, stored in "
                "fp16 ({b} bytes a value). How many bytes does each token add to its cache? "
                "How much does one sequence of {T} tokens take?", model=x["name"],
                L=tr.int(x["L"]), H=tr.int(x["H"]), d=tr.int(x["d"]), b=tr.int(x["b"]),
                T=tr.int(x["T"]))


def _a3(tr, x):
    return [tr._("Per token: 2 (K and V) × {L} × {H} × {d} × {b} B = {bytes} B = {per}.",
                 L=tr.int(x["L"]), H=tr.int(x["H"]), d=tr.int(x["d"]), b=tr.int(x["b"]),
                 bytes=tr.int(x["per"]), per=bytes_bin(x["per"], tr)),
            tr._("One sequence of {T} tokens: {T} × {per} = {seq}.", T=tr.int(x["T"]),
                 per=bytes_bin(x["per"], tr), seq=bytes_bin(x["seq"], tr))]


@lru_cache(maxsize=None)
def _t3_numbers() -> dict:
    from .step3.model import SELF_HEAD, SELF_LAYER
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


# == step 4: prefill and decode on the roofline ==================================================

@lru_cache(maxsize=None)
def _n4() -> dict:
    m, g, ctx = presets.ALL_MODELS[presets.REFERENCE_MODEL], presets.GPUS["h100"], 4096
    c = costs.decode_batch_cost(m, g, ctx, 1)
    return dict(name=m.name, gpu=g.name, ctx=ctx, params=m.params_per_token, flops=c.flops,
                weights=c.weight_bytes, cache=c.cache_bytes, bytes=c.bytes,
                intensity=c.intensity, ridge=g.ridge, bound=c.bound, peak=g.flops,
                bw=g.bandwidth, time=c.time_s, tps=c.tokens_per_s)


def _p4(tr, x):
    return tr._("{model} (fp16) decodes one sequence at a context of {ctx} tokens on an {gpu} "
                "({peak} TFLOP/s, {bw} TB/s). How many FLOPs does the step do per byte it "
                "reads? Is it memory-bound or compute-bound, and how many tokens per second "
                "can it give at most?", model=x["name"], ctx=tr.int(x["ctx"]), gpu=x["gpu"],
                peak=tr.int(x["peak"] / 1e12), bw=tr.num(x["bw"] / 1e12, 2))


def _a4(tr, x):
    gb = lambda v: tr.num(v / 1e9, 1)              # noqa: E731
    lines = [
        tr._("FLOPs: 2 × {N} billion parameters = {flops} GFLOP.",
             N=tr.num(x["params"] / 1e9, 2), flops=gb(x["flops"])),
        tr._("Bytes: the weights ({weights} GB) and the cache of {ctx} tokens ({cache} GB): "
             "{bytes} GB.", weights=gb(x["weights"]), ctx=tr.int(x["ctx"]),
             cache=gb(x["cache"]), bytes=gb(x["bytes"])),
    ]
    if x["bound"] == "memory":
        lines.append(tr._("{flops} ÷ {bytes} = {i} FLOP per byte, far below the ridge at {ridge}: "
                          "memory-bound.", flops=gb(x["flops"]), bytes=gb(x["bytes"]),
                          i=tr.num(x["intensity"], 2), ridge=tr.int(x["ridge"])))
    else:                                          # pragma: no cover - not with these presets
        lines.append(tr._("{flops} ÷ {bytes} = {i} FLOP per byte, past the ridge at {ridge}: "
                          "compute-bound.", flops=gb(x["flops"]), bytes=gb(x["bytes"]),
                          i=tr.num(x["intensity"], 2), ridge=tr.int(x["ridge"])))
    lines.append(tr._("Reading {bytes} GB at {bw} TB/s takes at least {time}: at most {tps} "
                      "tokens per second.", bytes=gb(x["bytes"]), bw=tr.num(x["bw"] / 1e12, 2),
                      time=tr.seconds(x["time"]), tps=tr.int(x["tps"])))
    return lines


@lru_cache(maxsize=None)
def _t4_numbers() -> dict:
    from .step4.model import roofline_of
    s = dict(prompt=16, output=1, batch=256)
    r = roofline_of(s["prompt"], s["output"], presets.STEP4["gpu"], presets.STEP4["model"],
                    s["batch"])
    return dict(**s, intensity=r.decode.intensity, ridge=r.gpu.ridge)


def _t4(tr, x):
    return tr._("Make the decode step compute-bound: its point must reach the flat roof. Hint: "
                "what does the batch share, and what does each sequence bring of its own?")


def _t4_check(m) -> bool:
    return m.roofline.decode.bound == "compute"


def _t4_answer(tr, x):
    return [tr._("A short context and a large batch: for example a prompt of {P} tokens, {o} "
                 "output token and a batch of {B}. Decode then does {i} FLOP per byte, past the "
                 "ridge at {ridge}.", P=tr.int(x["prompt"]), o=tr.int(x["output"]),
                 B=tr.int(x["batch"]), i=tr.int(x["intensity"]), ridge=tr.int(x["ridge"]))]


# == step 5: the memory bill =====================================================================

@lru_cache(maxsize=None)
def _n5() -> dict:
    m, g, T, B = presets.ALL_MODELS["qwen2.5-72b"], presets.GPUS["h200"], 32768, 16
    bill = costs.memory_bill(m, T, B, g, "fp16", binary_capacity=True)
    return dict(name=m.name, gpu=g.name, L=m.n_layers, H=m.n_kv_heads, d=m.head_dim,
                params=m.n_params, T=T, B=B, per=bill.kv_per_token,
                seq=costs.kv_cache_bytes(m, T, 1, "fp16"), kv=bill.kv_bytes,
                weights=bill.weight_bytes, total=bill.total, mem=bill.gpu_mem_bytes,
                fits=bill.fits_selected, room=bill.max_sequences,
                b=presets.PRECISIONS["fp16"].bits // 8, wb=presets.WEIGHT_BYTES_PER_PARAM)


def _p5(tr, x):
    return tr._("{model}: {L} layers, {H} key/value heads of {d} values, {N} billion "
                "parameters, weights and cache in fp16. How big is the cache of a batch of {B} "
                "sequences of {T} tokens? Does it fit on an {gpu} next to the weights?",
                model=x["name"], L=tr.int(x["L"]), H=tr.int(x["H"]), d=tr.int(x["d"]),
                N=tr.num(x["params"] / 1e9, 1), B=tr.int(x["B"]), T=tr.int(x["T"]),
                gpu=x["gpu"])


def _a5(tr, x):
    lines = [
        tr._("Per token: 2 × {L} × {H} × {d} × {b} B = {per}.", b=tr.int(x["b"]),
             L=tr.int(x["L"]),
             H=tr.int(x["H"]), d=tr.int(x["d"]), per=bytes_bin(x["per"], tr)),
        tr._("Per sequence: {T} × {per} = {seq}; the batch: {B} × {seq} = {kv}.",
             T=tr.int(x["T"]), per=bytes_bin(x["per"], tr), seq=bytes_bin(x["seq"], tr),
             B=tr.int(x["B"]), kv=bytes_bin(x["kv"], tr)),
        tr._("Weights: {N} billion × {wb} B = {gb} = {weights}. Weights and cache: {total}.",
             wb=tr.int(x["wb"]),
             N=tr.num(x["params"] / 1e9, 1), gb=tr.bytes(x["weights"], "GB", 1),
             weights=bytes_bin(x["weights"], tr),
             total=bytes_bin(x["total"], tr)),
    ]
    if x["fits"]:                                  # pragma: no cover - not with these presets
        lines.append(tr._("The {gpu} holds {mem}: it fits.", gpu=x["gpu"],
                          mem=bytes_bin(x["mem"], tr)))
    elif x["room"] == 0:
        lines.append(tr._("The {gpu} holds {mem}: it does not fit. Next to the weights there is "
                          "no room for even one sequence of {T} tokens.", gpu=x["gpu"],
                          mem=bytes_bin(x["mem"], tr), T=tr.int(x["T"])))
    else:                                          # pragma: no cover - not with these presets
        lines.append(tr.n_("The {gpu} holds {mem}: it does not fit. Next to the weights there "
                           "is room for {n} sequence of {T} tokens.",
                           "The {gpu} holds {mem}: it does not fit. Next to the weights there "
                           "is room for {n} sequences of {T} tokens.", x["room"], gpu=x["gpu"],
                           mem=bytes_bin(x["mem"], tr), n=tr.int(x["room"]),
                           T=tr.int(x["T"])))
    return lines


@lru_cache(maxsize=None)
def _t5_numbers() -> dict:
    from .step5.model import bill_of
    model, context, gpu = "llama3.1-8b", 8192, "a100-40"
    n = bill_of(model, context, 1, gpu).max_sequences
    return dict(model=model, name=presets.ALL_MODELS[model].name, context=context, gpu=gpu,
                gpu_name=presets.GPUS[gpu].name, batch=n,
                total=bill_of(model, context, n, gpu).total,
                more=bill_of(model, context, n + 1, gpu).total,
                mem=presets.GPUS[gpu].capacity_bytes(binary=True))


def _t5(tr, x):
    return tr._("Find the largest batch of {model} at {T} tokens that fits on an {gpu}.",
                model=x["name"], T=tr.int(x["context"]), gpu=x["gpu_name"])


def _t5_check(m) -> bool:
    x = _t5_numbers()
    return (m.model == x["model"] and m.context == x["context"] and m.gpu == x["gpu"]
            and m.bill.fits_selected and m.batch == m.bill.max_sequences)


def _t5_answer(tr, x):
    return [tr._("A batch of {B}: weights and cache take {total} of the {mem}; one sequence "
                 "more would make it {more}.", B=tr.int(x["batch"]),
                 total=tr.bytes(x["total"], "GiB", 2), mem=bytes_bin(x["mem"], tr),
                 more=tr.bytes(x["more"], "GiB", 2))]


# == step 6: shrinking the cache =================================================================

@lru_cache(maxsize=None)
def _n6() -> dict:
    from .step6.model import BATCH, CONTEXT, REF
    base = costs.shrink(REF, BATCH, CONTEXT, n_kv_heads=REF.n_heads)
    small = costs.shrink(REF, BATCH, CONTEXT, n_kv_heads=REF.n_kv_heads, precision="fp8")
    return dict(name=REF.name, L=REF.n_layers, Hq=REF.n_heads, H=REF.n_kv_heads, d=REF.head_dim, B=BATCH,
                T=CONTEXT, per0=base.baseline_bytes // (BATCH * CONTEXT), base=base.bytes,
                per1=small.kv_per_token, small=small.bytes, factor=small.factor,
                b0=presets.PRECISIONS["fp16"].bits // 8, b1=presets.PRECISIONS["fp8"].bits // 8,
                heads_factor=REF.n_heads / REF.n_kv_heads,
                bytes_factor=presets.PRECISIONS["fp16"].bits / presets.PRECISIONS["fp8"].bits)


def _p6(tr, x):
    return tr._("{model} has {L} layers and {Hq} query heads of {d} values, and serves {B} "
                "sequences of {T} tokens. How big is the cache with one key/value head per "
                "query head (MHA) in fp16? And with its own {H} key/value heads (GQA) in fp8? "
                "How many times smaller is that?", model=x["name"], L=tr.int(x["L"]),
                Hq=tr.int(x["Hq"]),
                d=tr.int(x["d"]), B=tr.int(x["B"]), T=tr.int(x["T"]), H=tr.int(x["H"]))


def _a6(tr, x):
    return [tr._("MHA in fp16: 2 × {L} × {Hq} × {d} × {b0} B = {per0} per token; × {T} tokens "
                 "× {B} sequences = {base}.", L=tr.int(x["L"]), Hq=tr.int(x["Hq"]),
                 b0=tr.int(x["b0"]),
                 d=tr.int(x["d"]), per0=bytes_bin(x["per0"], tr), T=tr.int(x["T"]),
                 B=tr.int(x["B"]), base=bytes_bin(x["base"], tr)),
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
    from .step6.model import BATCH, shrink
    s = dict(kv_heads=8, precision="fp16", window=4096)
    return dict(**s, B=BATCH, limit=4 * presets.GiB, bytes=shrink(**s).bytes,
                int4=shrink(8, "int4", 0).bytes)


def _t6(tr, x):
    return tr._("Keep the {H} key/value heads of GQA and make the cache of the {B} sequences "
                "{limit} or less.", H=tr.int(x["kv_heads"]), B=tr.int(x["B"]),
                limit=bytes_bin(x["limit"], tr))


def _t6_check(m) -> bool:
    x = _t6_numbers()
    return m.kv_heads == x["kv_heads"] and m.shrink.bytes <= x["limit"]


def _t6_answer(tr, x):
    return [tr._("GQA with a sliding window of {W} tokens: {bytes}. int4 alone is not enough "
                 "({int4}): its scales take bytes too.", W=tr.int(x["window"]),
                 bytes=bytes_bin(x["bytes"], tr), int4=bytes_bin(x["int4"], tr))]


# == step 6, part D: dropping tokens on the live model ============================================

@lru_cache(maxsize=None)
def _n6d() -> dict:
    """The live model's cache under part D's budget, from the cost model on the live model's
    own configuration (`rt.live_preset`; fp32, as the live cache stores it). The tests check
    these bytes against what the eviction runs measure."""
    from explainer import runtime as rt
    from .step6.model import EVICTION_VARIANT, QUESTION_BUDGET
    live = rt.live_preset(EVICTION_VARIANT)
    P, g, B = rt.EVICTION_PROMPT_TOKENS, rt.EVICTION_NEW, QUESTION_BUDGET
    T = P + g - 1                                  # the last token written is never fed back
    per = costs.kv_bytes_per_token(live, "fp32")
    full, small = costs.kv_cache_bytes(live, T, 1, "fp32"), costs.kv_cache_bytes(live, B, 1, "fp32")
    return dict(L=live.n_layers, H=live.n_kv_heads, d=live.head_dim,
                b=presets.PRECISIONS["fp32"].bits // 8, P=P, g=g, T=T, B=B, per=per,
                full=full, small=small, share=small / full)


def _p6d(tr, x):
    return tr._("The live model of part D has {L} layers and {H} key/value heads of {d} values, "
                "cached in fp32 ({b} bytes a value). It reads a prompt of {P} tokens and writes "
                "{g} more. How many bytes does its full cache hold at the end? And a cache with "
                "a budget of {B} tokens? What share of the full cache is that?",
                L=tr.int(x["L"]), H=tr.int(x["H"]), d=tr.int(x["d"]), b=tr.int(x["b"]),
                P=tr.int(x["P"]), g=tr.int(x["g"]), B=tr.int(x["B"]))


def _a6d(tr, x):
    return [tr._("Per token: 2 × {L} × {H} × {d} × {b} B = {per}.", L=tr.int(x["L"]),
                 H=tr.int(x["H"]), d=tr.int(x["d"]), b=tr.int(x["b"]),
                 per=bytes_bin(x["per"], tr, precise=True)),
            tr._("The last token written is never fed back, so the full cache ends with "
                 "{P} + {g} − 1 = {T} tokens: {T} × {per} = {full}.", P=tr.int(x["P"]),
                 g=tr.int(x["g"]), T=tr.int(x["T"]), per=bytes_bin(x["per"], tr, precise=True),
                 full=bytes_bin(x["full"], tr, precise=True)),
            tr._("A budget of {B} tokens: {B} × {per} = {small}, {share} of the full cache, "
                 "whichever tokens it keeps (H2O also keeps one attention score per token).",
                 B=tr.int(x["B"]), per=bytes_bin(x["per"], tr, precise=True),
                 small=bytes_bin(x["small"], tr, precise=True), share=tr.pct(x["share"]))]


def _smallest_full_budget(sw, policy: str = "h2o") -> int | None:
    """The smallest budget of a part D sweep at which `policy` agrees with the full cache at
    every generated token (None if none does)."""
    from .step6.model import BUDGET_CHOICES
    return next((b for b in BUDGET_CHOICES if (sw.at(policy, b) or (0.0,))[0] == 1.0), None)


@lru_cache(maxsize=None)
def _t6d_numbers() -> dict:
    """The answer is measured: part D's sweep on each language's passage (the runtime's
    memoised runs; a served process measured them at start)."""
    from explainer import runtime as rt
    from explainer.i18n import LANGS
    from .step6.model import eviction_ids, sweep
    langs = tuple(LANGS)
    return dict(g=rt.EVICTION_NEW, all=1.0, langs=langs,
                budgets=tuple(_smallest_full_budget(sweep(eviction_ids(lang)))
                              for lang in langs))


def _t6d(tr, x):
    return tr._("In part D, pick heavy hitters + recent tokens (H2O) and find the smallest "
                "budget at which its next token is the full cache's at all {g} generated "
                "tokens.", g=tr.int(x["g"]))


def _t6d_check(m) -> bool:
    sw = m.sweep.value if m.sweep is not None else None
    return (m.policy == "h2o" and sw is not None
            and m.budget == _smallest_full_budget(sw))


def _t6d_solution(m) -> dict:
    from .step6.model import eviction_ids, sweep
    return dict(part="d", policy="h2o",
                budget=_smallest_full_budget(sweep(eviction_ids(m.lang))))


def _t6d_answer(tr, x):
    B = x["budgets"][x["langs"].index(tr.lang)] if tr.lang in x["langs"] else None
    return [tr._("Play H2O at growing budgets and read the card “Top-1 agreement with the full "
                 "cache, whole run”, or the chart's H2O line: the first budget where it reads "
                 "{all} is the answer.", all=tr.pct(x["all"])),
            tr._("Measured on this language's passage: {B} tokens. Each language has a "
                 "passage of its own, and the answer can differ from one to another: which "
                 "tokens matter depends on the text.",
                 B=tr.int(B)) if B is not None else
            tr._("On this language's passage no budget below the full cache agrees at every "
                 "token.")]


# == the registry ================================================================================

EXERCISES: dict[int, tuple[Exercise, ...]] = {
    1: (Exercise(1, 1, PAPER, _n1, _p1, _a1),
        Exercise(1, 2, TASK, _t1_numbers, _t1, _t1_answer, _t1_check,
                 lambda m: dict(frame=m.run.prompt_len))),
    2: (Exercise(2, 1, PAPER, _n2, _p2, _a2),
        Exercise(2, 2, TASK, _t2_numbers, _t2, _t2_answer, _t2_check,
                 lambda m: dict(prompt=_t2_numbers()["P"], tokens=_t2_numbers()["T"]))),
    3: (Exercise(3, 1, PAPER, _n3, _p3, _a3),
        Exercise(3, 2, TASK, _t3_numbers, _t3, _t3_answer, _t3_check,
                 lambda m: {k: _t3_numbers()[k] for k in ("layer", "head")})),
    4: (Exercise(4, 1, PAPER, _n4, _p4, _a4),
        Exercise(4, 2, TASK, _t4_numbers, _t4, _t4_answer, _t4_check,
                 lambda m: {k: _t4_numbers()[k] for k in ("prompt", "output", "batch")})),
    5: (Exercise(5, 1, PAPER, _n5, _p5, _a5),
        Exercise(5, 2, TASK, _t5_numbers, _t5, _t5_answer, _t5_check,
                 lambda m: {k: _t5_numbers()[k] for k in ("model", "context", "gpu", "batch")})),
    6: (Exercise(6, 1, PAPER, _n6, _p6, _a6),
        Exercise(6, 2, TASK, _t6_numbers, _t6, _t6_answer, _t6_check,
                 lambda m: {k: _t6_numbers()[k] for k in ("kv_heads", "precision", "window")}),
        Exercise(6, 3, PAPER, _n6d, _p6d, _a6d),             # part D: dropping tokens
        Exercise(6, 4, TASK, _t6d_numbers, _t6d, _t6d_answer, _t6d_check, _t6d_solution)),
}
"""Step number -> its exercises, in order."""


# == words =======================================================================================

def heading(ex: Exercise, tr: Translator) -> str:
    if ex.kind == PAPER:
        return tr._("Exercise {n} · on paper", n=ex.label)
    return tr._("Exercise {n} · on the page", n=ex.label)


def answer_summary(ex: Exercise, tr: Translator) -> str:
    """The worked answer's summary: one per exercise (an opened one stays open by it)."""
    return tr._("Worked answer to exercise {n}", n=ex.label)


def blocks(number: int, model, tr: Translator) -> list[dict]:
    """The exercises of step `number`, for the end of its reading column: one collapsed
    section (not prose beside the figure: it opens with a click and stays open while the page
    redraws), with each exercise's question and its worked answer (collapsed too) or the
    task's state (done / not yet, from `check` on the step's view-model)."""
    items = EXERCISES.get(number, ())
    if not items:
        return []
    out = []
    for ex in items:
        x = ex.numbers()
        slug = f"ex-{ex.step}-{ex.index}"
        if ex.kind == PAPER:
            out.append(w.paragraphs([ex.prompt(tr, x)], heading=heading(ex, tr),
                                    cls=f"exercise exercise-paper {slug}"))
            out.append(w.details(answer_summary(ex, tr), [w.paragraphs(ex.answer(tr, x))],
                                 cls=f"exercise-answer {slug}"))
        else:
            done = bool(ex.check(model))
            status = tr._("✓ Done.") if done else tr._("Not yet: move the controls.")
            out.append(w.paragraphs([ex.prompt(tr, x), status], heading=heading(ex, tr),
                                    cls=f"exercise exercise-task {slug} "
                                        f"{'is-done' if done else 'not-done'}"))
    return [w.details(tr._("Exercises"), out, cls="exercises")]


def sheet(tr: Translator, lang: str) -> dict:
    """The printable sheet's context (`ending/sheet.html.j2`): every step's exercises, then
    their answers."""
    from .registry import NUMBERS, STEPS
    steps = []
    for n, s in zip(NUMBERS, STEPS):
        items = []
        for ex in EXERCISES.get(n, ()):
            x = ex.numbers()
            items.append(dict(label=ex.label, heading=heading(ex, tr), prompt=ex.prompt(tr, x),
                              answer=ex.answer(tr, x), slug=f"ex-{ex.step}-{ex.index}",
                              task=ex.kind == TASK))
        steps.append(dict(n=tr.int(n), title=tr._(s.title), exercises=items,
                          href=f"?step={n}&lang={lang}",
                          go=tr._("Back to step {n}", n=tr.int(n)),
                          heading=tr._("Step {n}: {title}", n=tr.int(n), title=tr._(s.title))))
    return dict(
        title=tr._("Exercises"),
        intro=tr._("Solve the exercises “on paper” with pen and paper, and those “on the "
                   "page” in the explainer, at each step's link. The answers are on a separate "
                   "page."),
        answers=tr._("Answers"), steps=steps, print=tr._("Print the exercises"),
        back=tr._("Back to the key ideas"), back_href=f"?step=end&lang={lang}")


def with_exercises(cls):
    """A step's controller whose reading column ends with the step's exercises (`blocks`):
    `STEP = with_exercises(StepN)` in the step's view.py."""
    page = cls.page

    def page_with_exercises(self, tr) -> dict:
        out = page(self, tr)
        return {**out, "left": [*out.get("left", []), *blocks(self.number, self.model, tr)]}

    page_with_exercises.__doc__ = page.__doc__
    cls.page = page_with_exercises
    return cls
