"""Step 4's words: the only place that translates. Pure functions of (numbers, Translator)."""
from __future__ import annotations

import math

from explainer.i18n import N_, Translator
from explainer.presets import GPUS, TB_PER_S, TFLOPS

from ..ui.components import Card, card_dicts
from ..ui.question import question_labels
from ..ui.stage import player_text
from .model import BATCH_EXAMPLE, X_RANGE, Plan, Roofline

X_TICKS = (0.1, 1, 10, 100, 1000, 10000)      # FLOP per byte

PHASES = {"prefill": N_("prefill"), "decode": N_("decode")}
BOUNDS = {"compute": N_("compute-bound"), "memory": N_("memory-bound")}

# the headline: at most four cards; the rest under “All numbers”. Inputs and categories
# carry no badge; the two phases' bounds answer the question, so they wait for it.
CARDS = (
    Card("prefill_intensity", N_("Prefill FLOP/byte")),
    Card("decode_intensity", N_("Decode FLOP/byte")),
    Card("prefill_time", N_("Prefill time (to first token)")),
    Card("decode_step_time", N_("Time per decode step (last)")),
    Card("prefill_tokens", N_("Prompt tokens in prefill"), None, more=True),
    Card("decode_steps", N_("Decode steps"), None, more=True),
    Card("read_per_step", N_("Read per decode step (up to)"), more=True),
    Card("prefill_bound", N_("Prefill phase"), None, hidden=True, more=True),
    Card("decode_bound", N_("Decode phase"), None, hidden=True, more=True),
    Card("measured_prefill", N_("Prefill speed"), "measured", more=True),
    Card("measured_decode", N_("Decode speed"), "measured", more=True),
    Card("measured_ratio", N_("Prefill ÷ decode tokens per second"), "measured", more=True),
)
TIMES = ("prefill_time", "decode_step_time")      # illustrative on the illustrative GPU


# -- formatting ------------------------------------------------------------------------------

def rate(x: float | None, tr: Translator) -> str:
    if x is None or not math.isfinite(x):
        return "–"
    return tr.int(x) if x >= 100 else tr.sig(x, 3)


def short(x: float, tr: Translator) -> str:
    """As few decimals as the value needs, at most 3: 2, 1.555, 3.35, 0.3."""
    d = next(d for d in range(4) if round(x, d) == round(x, 3))
    return tr.num(x, d)


def tick(v: float, tr: Translator) -> str:
    return tr.sig(v, 1)


def y_ticks(lo: float, hi: float) -> list[float]:
    return [10.0 ** k for k in range(math.ceil(math.log10(lo)), math.floor(math.log10(hi)) + 1)]


def gpu_name(g, tr: Translator) -> str:
    return tr._("Illustrative GPU") if g.illustrative else g.name


def gpu_options(tr: Translator) -> dict:
    return {tr._("{name} ({f} TFLOP/s, {b} TB/s)", name=gpu_name(g, tr),
                 f=tr.int(g.flops / TFLOPS), b=short(g.bandwidth / TB_PER_S, tr)): k
            for k, g in GPUS.items()}


# -- numbers as text -------------------------------------------------------------------------

def values(r: Roofline, tr: Translator) -> dict:
    """The computed cards' values, keyed by their data-metric keys."""
    pre, dec, some = r.prefill, r.decode, r.steps > 0
    return dict(
        prefill_tokens=tr.int(r.prompt), decode_steps=tr.int(r.steps),
        read_per_step=tr.bytes(r.read_max, "GB", 1) if some else "–",
        prefill_intensity=tr.int(pre.intensity),
        decode_intensity=tr.sig(dec.intensity, 2) if some else "–",
        prefill_time=tr.seconds(pre.time_s),
        decode_step_time=tr.seconds(dec.time_s) if some else "–",
        prefill_bound=tr._(BOUNDS[pre.bound]),
        decode_bound=tr._(BOUNDS[dec.bound]) if some else "–")


def measured_values(status: str, res, tr: Translator) -> dict:
    """The live model's measured cards: “measuring…” while pending, “–” if it failed."""
    if status != "ready" or res is None:
        shown = tr._("measuring…") if status in ("pending", "idle") else "–"
        return dict(measured_prefill=shown, measured_decode=shown, measured_ratio=shown)
    ratio = (res.prefill_tokens_per_s / res.decode_tokens_per_s
             if res.decode_tokens_per_s > 0 else None)
    return dict(
        measured_prefill=tr._("{n} tokens/s", n=rate(res.prefill_tokens_per_s, tr)),
        measured_decode=tr._("{n} tokens/s", n=rate(res.decode_tokens_per_s, tr)),
        measured_ratio=tr.times(ratio, 1) if ratio else "–")


def cards(r: Roofline, status: str, res, tr: Translator) -> list[dict]:
    times = "illustrative" if r.gpu.illustrative else "computed"
    out = card_dicts(CARDS, {**values(r, tr), **measured_values(status, res, tr)}, tr)
    return [dict(c, kind=times) if c["key"] in TIMES else c for c in out]


# -- the question ----------------------------------------------------------------------------

def question(r: Roofline, tr: Translator) -> dict:
    """Built from the prompt length and the GPU on screen: with a short prompt, or a GPU
    with a high ridge, the prefill is memory-bound too, and the answer says so."""
    pre, dec = r.prefill.bound, r.decode.bound        # a decode step is always memory-bound
    correct = 1 if pre == "compute" else 2
    g = gpu_name(r.gpu, tr)
    kw = dict(p=tr.int(r.prompt), pai=tr.int(r.prefill.intensity),
              dai=tr.sig(r.decode.intensity, 2), ridge=tr.int(r.gpu.ridge),
              gb=tr.bytes(r.decode.bytes, "GB", 1))
    if correct == 1:
        explain = tr._("One decode step. It reads {gb} (all the weights and the cache) to "
                       "produce a single token: about {dai} FLOP per byte, far below the ridge "
                       "of {ridge} FLOP/byte. The prefill uses each byte it reads for all {p} "
                       "prompt tokens, about {pai} FLOP per byte, so it is compute-bound.", **kw)
    else:
        explain = tr._("Both. A decode step does about {dai} FLOP per byte; with only {p} "
                       "prompt tokens the prefill does about {pai}, still below this GPU's "
                       "ridge of {ridge} FLOP/byte, so both wait for memory.", **kw)
    return dict(
        key=("step4", r.gpu.key, pre, dec),
        prompt=tr._("Which phase is memory-bound on the {gpu}: the prefill of this {p}-token "
                    "prompt, or one decode step after it?", gpu=g, p=tr.int(r.prompt)),
        options=[tr._("Prefill"), tr._("One decode step"), tr._("Both equally")],
        correct=correct, explain=explain, **question_labels(tr))


# -- sentences -------------------------------------------------------------------------------

def lead(tr: Translator) -> str:
    return tr._("Compute-bound versus memory-bound")


def roofline_words(r: Roofline, tr: Translator) -> str:
    return tr._("A roofline shows the most FLOP/s a GPU can reach for a given amount of work "
                "per byte read from memory (FLOP per byte, the arithmetic intensity). On the "
                "slope, memory bandwidth sets the pace; on the flat roof, the arithmetic units "
                "do. The corner is the ridge: {ridge} FLOP/byte on this GPU.",
                ridge=tr.int(r.gpu.ridge))


def tokens_words(r: Roofline, tr: Translator) -> str:
    if not r.steps:
        return tr._("One output token: the prefill produces it, so there is no decode step.")
    return tr.n_("{o} output tokens = 1 from the prefill + {n} decode step: the prefill's last "
                 "position already predicts the first output token, and each decode step "
                 "adds one more.",
                 "{o} output tokens = 1 from the prefill + {n} decode steps: the prefill's "
                 "last position already predicts the first output token, and each decode "
                 "step adds one more.", r.steps, o=tr.int(r.output), n=tr.int(r.steps))


def phases_words(r: Roofline, tr: Translator) -> str:
    """Where prefill and decode sit on the roof (says the answer: shown when revealed)."""
    v = values(r, tr)
    ridge = tr.int(r.gpu.ridge)
    if r.prefill.bound == "compute":
        s_pre = tr._("Prefill runs all {p} prompt tokens through the model in one pass. "
                     "Each byte it reads does about {ai} FLOPs of work, above the ridge of "
                     "{ridge} FLOP/byte, so it is compute-bound: about {t} on this GPU, "
                     "and that is the wait before the first token appears.",
                     p=v["prefill_tokens"], ai=v["prefill_intensity"], ridge=ridge,
                     t=v["prefill_time"])
    else:
        s_pre = tr._("Prefill runs all {p} prompt tokens through the model in one pass. "
                     "Each byte it reads does only about {ai} FLOPs of work, below the "
                     "ridge of {ridge} FLOP/byte, so with a prompt this short even the "
                     "prefill is memory-bound: about {t} on this GPU, the wait before the "
                     "first token appears.",
                     p=v["prefill_tokens"], ai=v["prefill_intensity"], ridge=ridge,
                     t=v["prefill_time"])
    if r.steps:
        s_dec = tr.n_(
            "The single decode step then reads up to {gb} to produce one token: about "
            "{ai} FLOP per byte, far below the ridge, so it is memory-bound and takes "
            "about {t}.",
            "Each of the {steps} decode steps then reads up to {gb} to produce one token: "
            "about {ai} FLOP per byte, far below the ridge, so each is memory-bound and "
            "takes up to about {t} ({total} for all of them).",
            r.steps, steps=v["decode_steps"], gb=v["read_per_step"],
            ai=v["decode_intensity"], t=v["decode_step_time"],
            total=tr.seconds(r.decode_total_s))
    else:
        s_dec = tr._("With one output token there is no decode step: the prefill already "
                     "produced it.")
    if r.gpu.illustrative:
        s_dec += " " + tr._("(Times on the illustrative GPU are illustrative.)")
    return s_pre + " " + s_dec


def narration(r: Roofline, revealed: bool, tr: Translator) -> list[str]:
    """What to look at; the paragraphs that name the bound phase wait for the answer."""
    paras = [roofline_words(r, tr), tokens_words(r, tr)]
    if not revealed:
        return paras
    ridge = tr.int(r.gpu.ridge)
    return paras + [
        phases_words(r, tr),
        tr._("Prefill multiplies every weight matrix by all P prompt tokens at once, so "
             "each byte of weights fetched from memory is used for roughly P "
             "floating-point operations: the arithmetic units set the pace. Decode feeds "
             "one token per step, so each byte is used for about one operation, far "
             "below the ridge of {ridge} FLOP/byte where this GPU's arithmetic and "
             "memory keep pace with each other. The arithmetic units wait for memory, "
             "and the time per output token follows memory bandwidth, not compute.",
             ridge=ridge),
        tr._("That is why servers batch the decode steps of many users: one read "
             "of the weights serves every sequence in the batch. On this GPU a "
             "decode step for {b} sequences at the same context takes about {t} and "
             "yields {b} tokens, {x} the tokens per second of a single sequence.",
             b=tr.int(BATCH_EXAMPLE), t=tr.seconds(r.batched.time_s),
             x=tr.times(r.batch_gain, 1)),
        tr._("Time to first token is the prefill wait, so it grows with the prompt. "
             "Every later token costs one decode step, and their pace depends on "
             "memory bandwidth and batch size."),
    ]


def model_note(r: Roofline, tr: Translator) -> list[str]:
    g = r.gpu
    return [tr._("Computed for Llama 2 7B (fp16 weights {w}, {kv} of keys and values "
                 "per token) on {gpu}: {f}, {bw}, ridge ≈ {ridge} FLOP/byte. The "
                 "decode step shown is the last and largest one.",
                 w=tr.bytes(r.weights, "GB", 1), kv=tr.bytes(r.kv_per_token, "KiB", 0),
                 gpu=gpu_name(g, tr), f=tr._("{f} TFLOP/s", f=tr.int(g.flops / TFLOPS)),
                 bw=tr._("{b} TB/s", b=short(g.bandwidth / TB_PER_S, tr)),
                 ridge=tr.int(g.ridge)),
            tr._("The times assume the GPU's peak FLOP/s and bandwidth; real kernels reach "
                 "less, so read them as lower bounds.")]


def measured_words(plan: Plan, prompt: int, output: int, status: str, res, facts: dict,
                   tr: Translator) -> tuple[list[str], list[str]]:
    """(paragraphs, notices) about the live model's measurement on this server."""
    head = tr._("Measured on this server: the live model with {p} prompt tokens "
                "and {o} output tokens. Measured numbers vary from run to run.",
                p=tr.int(plan.prompt), o=tr.int(plan.output))
    notes = []
    if plan.clamped:
        notes.append(tr._("The live model holds at most {ctx} tokens, so it is measured with "
                          "{p} prompt tokens and {o} output tokens instead of {P} and {O}.",
                          ctx=tr.int(plan.max_len), p=tr.int(plan.prompt),
                          o=tr.int(plan.output), P=tr.int(prompt), O=tr.int(output)))
    device = device_name(facts["device"])
    paras = [head]
    if status == "failed":
        notes.append(tr._("The live model could not be measured just now; the computed "
                          "numbers do not depend on it."))
    elif status != "ready" or res is None:
        paras.append(tr._("measuring…"))
    else:
        m = measured_values(status, res, tr)
        paras.append(tr._("Prefill ran at {pre} and decode at {dec}: the prefill handles {x} "
                          "as many tokens per second.", pre=m["measured_prefill"],
                          dec=m["measured_decode"], x=m["measured_ratio"]))
    paras.append(tr._("The live model is tiny ({weights} of weights) and runs on {device}: "
                      "most of this gap is the fixed cost of each decode step (one pass "
                      "through Python and PyTorch per token), not the GPU roofline of the "
                      "reference model.", weights=tr.bytes(facts["weights"], "MB", 1),
                      device=device))
    paras.append(tr._("Live model: {layers} layers, {heads} attention heads of {hd} "
                      "dimensions, running on {device}.", layers=tr.int(facts["n_layers"]),
                      heads=tr.int(facts["n_heads"]), hd=tr.int(facts["head_dim"]),
                      device=device))
    return paras, notes


def device_name(device: str) -> str:
    return "CPU" if device == "cpu" else device


# -- the roofline: one still frame, drawn in the browser -------------------------------------

def stage_text(tr: Translator) -> dict:
    return dict(player_text(tr), figure=tr._("Roofline"))


def legend(tr: Translator) -> list[tuple[str, str]]:
    return [("text", tr._("roofline: the most FLOP/s this GPU can reach")),
            ("new", tr._("prefill")), ("cached", tr._("decode step")),
            ("muted", tr._("memory-bound region"))]


def frame(r: Roofline, status: str, res, tr: Translator) -> dict:
    g = r.gpu
    lo, hi = r.y_range
    pts = [("prefill", r.prefill, "prefill")]
    if r.steps:
        pts.append(("decode", r.decode, "decode"))
    v = values(r, tr)
    times = {"prefill": v["prefill_time"], "decode": v["decode_step_time"]}
    return dict(
        pos="", cards=cards(r, status, res, tr), caption="",
        desc=tr._("Log-log roofline of {gpu}: the roof rises with memory bandwidth up to "
                  "{peak} at the ridge, {ridge} FLOP/byte. Prefill: {pai} FLOP/byte; "
                  "decode step: {dai} FLOP/byte.", gpu=gpu_name(g, tr),
                  peak=tr._("{f} TFLOP/s", f=tr.int(g.flops / TFLOPS)),
                  ridge=tr.int(g.ridge), pai=v["prefill_intensity"],
                  dai=v["decode_intensity"]),
        table=dict(head=[tr._("Phase"), tr._("FLOP per byte"), tr._("Attainable TFLOP/s"),
                         tr._("Bytes moved"), tr._("Time")],
                   rows=[[tr._(PHASES[phase]), tr.sig(p.intensity, 3),
                          tr.sig(p.attainable_flops / TFLOPS, 3),
                          tr.bytes(p.bytes, "GB", 1), times[phase]]
                         for phase, p, _ in pts]),
        fig=dict(
            title=tr._("Roofline of {gpu}", gpu=gpu_name(g, tr)),
            x0=X_RANGE[0], x1=X_RANGE[1], y0=lo / TFLOPS, y1=hi / TFLOPS,
            xticks=[[t, tick(t, tr)] for t in X_TICKS],
            yticks=[[t, tick(t, tr)] for t in y_ticks(lo / TFLOPS, hi / TFLOPS)],
            roof=[[x, y / TFLOPS] for x, y in r.roof], ridge=g.ridge, peak=g.flops / TFLOPS,
            xaxis=tr._("FLOP per byte read from memory (log scale)"),
            yaxis=tr._("Attainable TFLOP/s (log scale)"),
            ridge_label=tr._("ridge ≈ {r} FLOP/byte", r=tr.int(g.ridge)),
            memory=tr._(BOUNDS["memory"]), compute=tr._(BOUNDS["compute"]),
            points=[dict(x=p.intensity, y=p.attainable_flops / TFLOPS, cls=cls,
                         label=tr._(PHASES[phase])) for phase, p, cls in pts]))

