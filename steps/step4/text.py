"""Step 4's words: the only place that translates. Pure functions of (numbers, Translator)."""
from __future__ import annotations

import math
from typing import TypedDict

from explainer import costs
from explainer.format import gib
from explainer.i18n import N_, Translator
from explainer.presets import ALL_MODELS, GPUS, MODELS, STEP6, TB_PER_S, TFLOPS

from ..ui import counts
from ..ui.state import Frame, StageText, Tick
from ..ui.words import Card, card_dicts, player_text, question_labels
from .model import BATCH_RANGE, X_RANGE, Batching, Plan, Roofline

STEP6_MODEL = MODELS[STEP6["model"]]          # the model step 6 shrinks

X_TICKS = (0.1, 1, 10, 100, 1000, 10000)      # FLOP per byte
B_TICKS = (1, 2, 4, 8, 16, 32, 64, 128, 256)  # batch sizes
TABLE_BATCHES = B_TICKS                       # the batch rows of the table twin

PHASES = {"prefill": N_("prefill"), "decode": N_("decode")}
BOUNDS = {"compute": N_("compute-bound"), "memory": N_("memory-bound")}

# the headline: at most four cards; the rest under “All numbers”. Inputs and categories
# carry no badge; the two phases' bounds answer the question, and so do their FLOP/byte
# beside the ridge: they wait for it.
CARDS = (
    Card("prefill_intensity", N_("Prefill FLOP/byte"), hidden=True),
    Card("decode_intensity", N_("Decode FLOP/byte"), hidden=True),
    Card("prefill_time", N_("Prefill time to first token, at least")),
    Card("decode_step_time", N_("Time per decode step (last), at least")),
    Card("prefill_tokens", N_("Prompt tokens in prefill"), None, more=True),
    Card("decode_steps", N_("Decode steps"), None, more=True),
    Card("batch", N_("Batch size (sequences)"), None, more=True),
    Card("read_per_step", N_("Read per decode step (up to)"), more=True),
    Card("decode_tokens_per_s", N_("Decode tokens per second, whole batch, at most"),
         more=True),
    Card("batch_gain", N_("Tokens per second against one sequence"), more=True),
    Card("intensity_ceiling", N_("Decode ceiling, weight FLOPs per cache byte, any batch"),
         hidden=True, more=True),
    Card("gains_stop", N_("Batch where a larger one stops paying"), more=True),
    Card("memory_limit", N_("Sequences of this context that fit in memory"), more=True),
    Card("prefill_bound", N_("Prefill phase"), None, hidden=True, more=True),
    Card("decode_bound", N_("Decode phase"), None, hidden=True, more=True),
    Card("measured_prefill", N_("Prefill speed"), "measured", more=True),
    Card("measured_decode", N_("Decode speed"), "measured", more=True),
    Card("measured_ratio", N_("Prefill ÷ decode tokens per second"), "measured", more=True),
)
# illustrative on the illustrative GPU
TIMES = ("prefill_time", "decode_step_time", "decode_tokens_per_s")

# the weights as the cost model counts them (ModelPreset.weight_format)
WEIGHT_WORDS = {"16-bit": N_("{w} of 16-bit (fp16/bf16) weights"),
                "fp8": N_("{w} of fp8 weights, as released"),
                "quantized": N_("{w} of quantized weights, as released")}

SHRINK_NAMES = {("heads", 8): N_("8 KV heads (GQA)"), ("heads", 1): N_("1 KV head (MQA)"),
                ("precision", "fp8"): N_("an fp8 cache"),
                ("precision", "int4"): N_("an int4 cache")}


# -- formatting ------------------------------------------------------------------------------

def rate(x: float | None, tr: Translator) -> str:
    if x is None or not math.isfinite(x):
        return "–"
    return tr.int(x) if x >= 100 else tr.sig(x, 3)


def rate_count(x: float, tr: Translator):
    """The count `rate` writes, for a plural form: 144 a whole number, 6.90 a fraction."""
    return round(x) if x >= 100 else tr.sig_count(x, 3)


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


def is_moe(m) -> bool:
    """A mixture of experts whose routing is known (E experts, k per token)."""
    return m.n_experts is not None and m.is_moe


def weights_text(m, w: float, tr: Translator) -> str:
    """The weights' bytes with how they are counted: 16-bit, or fp8 as released."""
    return tr._(WEIGHT_WORDS[m.weight_format], w=tr.bytes(w, "GB", 1))


def model_options(tr: Translator) -> dict:
    return {tr._("{model} ({kind})", model=m.name, kind=m.attention_kind): k
            for k, m in ALL_MODELS.items()}


def control_labels(tr: Translator) -> dict[str, str]:
    """The controls' labels, keyed by the model parameter each one sets."""
    return dict(prompt=tr._("Prompt length (tokens)"), output=tr._("Output tokens"),
                batch=tr._("Batch size (sequences)"), model=tr._("Model"), gpu=tr._("GPU"))


# -- numbers as text -------------------------------------------------------------------------

def values(r: Roofline, tr: Translator, b: Batching | None = None) -> dict:
    """The computed cards' values, keyed by their data-metric keys."""
    pre, dec, some = r.prefill, r.decode, r.steps > 0
    out = dict(
        prefill_tokens=tr.int(r.prompt), decode_steps=tr.int(r.steps),
        batch=tr.int(r.batch),
        read_per_step=tr.bytes(r.read_max, "GB", 1) if some else "–",
        prefill_intensity=tr.int(pre.intensity),
        decode_intensity=tr.sig(dec.intensity, 2) if some else "–",
        prefill_time=tr.seconds(pre.time_s),
        decode_step_time=tr.seconds(dec.time_s) if some else "–",
        decode_tokens_per_s=tr._("{n} tokens/s", n=rate(dec.tokens_per_s, tr))
        if some else "–",
        batch_gain=tr.times(r.batch_gain, 1) if some else "–",
        prefill_bound=tr._(BOUNDS[pre.bound]),
        decode_bound=tr._(BOUNDS[dec.bound]) if some else "–")
    if b is not None:
        out.update(
            intensity_ceiling=tr.sig(b.ceiling, 3),
            gains_stop=tr.n_("{count} sequence", "{count} sequences", b.stop.batch,
                             count=tr.int(b.stop.batch)),
            memory_limit="–" if b.memory_limit is None else tr.int(b.memory_limit))
    return out


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


def cards(r: Roofline, status: str, res, tr: Translator, b: Batching | None = None
          ) -> list[dict]:
    times = "illustrative" if r.gpu.illustrative else "computed"
    out = card_dicts(CARDS, {**values(r, tr, b), **measured_values(status, res, tr)}, tr)
    return [dict(c, kind=times) if c["key"] in TIMES else c for c in out]


# -- the question ----------------------------------------------------------------------------

def question(r: Roofline, tr: Translator) -> dict:
    """Built from the state on screen: the prompt length, the GPU and the batch. With a short
    prompt, or a GPU with a high ridge, the prefill is memory-bound too; with a large batch and
    a small cache per sequence, decode can reach the compute roof. The answer says which."""
    pre, dec, b = r.prefill.bound, r.decode.bound, r.batch
    correct = {("compute", "memory"): 1, ("memory", "memory"): 2,
               ("memory", "compute"): 0, ("compute", "compute"): 3}[pre, dec]
    g = gpu_name(r.gpu, tr)
    kw = dict(tokens=counts.tokens(r.prompt, tr), pai=tr.int(r.prefill.intensity),
              dai=tr.sig(r.decode.intensity, 2), ridge=tr.int(r.gpu.ridge),
              gb=tr.bytes(r.decode.bytes, "GB", 1))
    if is_moe(r.model):
        explain = moe_explain(r, correct, tr, **kw)
    elif b == 1 and correct == 1:
        explain = tr._("One decode step. It reads {gb} (all the weights and the cache) to "
                       "produce a single token: about {dai} FLOP per byte, far below the ridge "
                       "of {ridge} FLOP/byte. The prefill uses each byte it reads for every "
                       "token of the prompt ({tokens}), about {pai} FLOP per byte, so it is "
                       "compute-bound.", **kw)
    elif b == 1 and correct == 2:
        explain = tr._("Both. A decode step does about {dai} FLOP per byte; with a prompt this "
                       "short ({tokens}) the prefill does about {pai}, still below this GPU's "
                       "ridge of {ridge} FLOP/byte, so both wait for memory.", **kw)
    elif correct == 1:
        explain = tr.n_(
            "One decode step. For {count} sequence it reads {gb} (the weights once, and "
            "each sequence's own cache) to produce {count} token: about {dai} FLOP per byte, "
            "below the ridge of {ridge} FLOP/byte. The prefill uses each byte it reads for "
            "every token of the prompt ({tokens}), about {pai} FLOP per byte, so it is "
            "compute-bound.",
            "One decode step. For {count} sequences it reads {gb} (the weights once, and "
            "each sequence's own cache) to produce {count} tokens: about {dai} FLOP per "
            "byte, below the ridge of {ridge} FLOP/byte. The prefill uses each byte it reads "
            "for every token of the prompt ({tokens}), about {pai} FLOP per byte, so it is "
            "compute-bound.",
            b, count=tr.int(b), **kw)
    elif correct == 2:
        explain = tr.n_(
            "Both. A decode step of {count} sequence does about {dai} FLOP per byte; with "
            "a prompt this short ({tokens}) the prefill does about {pai}, still below this "
            "GPU's ridge of {ridge} FLOP/byte, so both wait for memory.",
            "Both. A decode step of {count} sequences does about {dai} FLOP per byte; with "
            "a prompt this short ({tokens}) the prefill does about {pai}, still below this "
            "GPU's ridge of {ridge} FLOP/byte, so both wait for memory.", b, count=tr.int(b),
            **kw)
    elif correct == 0:
        explain = tr.n_(
            "The prefill. With a prompt this short ({tokens}) it does about {pai} FLOP per "
            "byte, below this GPU's ridge of {ridge} FLOP/byte. A decode step of {count} "
            "sequence shares each read of the weights and reaches about {dai} FLOP per byte, "
            "above the ridge: it is compute-bound.",
            "The prefill. With a prompt this short ({tokens}) it does about {pai} FLOP per "
            "byte, below this GPU's ridge of {ridge} FLOP/byte. A decode step of {count} "
            "sequences "
            "shares each read of the weights among them and reaches about {dai} FLOP per "
            "byte, above the ridge: it is compute-bound.", b, count=tr.int(b), **kw)
    else:
        explain = tr.n_(
            "Neither. The prefill does about {pai} FLOP per byte and a decode step of "
            "{count} sequence about {dai}, both above this GPU's ridge of {ridge} FLOP/byte: "
            "both are compute-bound.",
            "Neither. The prefill does about {pai} FLOP per byte and a decode step of "
            "{count} sequences about {dai}, both above this GPU's ridge of {ridge} "
            "FLOP/byte: both are compute-bound.", b, count=tr.int(b), **kw)
    if b == 1:
        prompt = tr._("Which phase is memory-bound on the {gpu}: the prefill of this "
                      "{p}-token prompt, or one decode step after it?", gpu=g,
                      p=tr.int(r.prompt))
    else:
        prompt = tr.n_("Which phase is memory-bound on the {gpu}: the prefill of this "
                       "{p}-token prompt, or one decode step of {count} sequence after it?",
                       "Which phase is memory-bound on the {gpu}: the prefill of this "
                       "{p}-token prompt, or one decode step of {count} sequences after it?",
                       b, gpu=g, p=tr.int(r.prompt), count=tr.int(b))
    return dict(
        key=("step4", r.gpu.key, pre, dec), prompt=prompt,
        options=[tr._("Prefill"), tr._("One decode step"), tr._("Both equally"),
                 tr._("Neither")],
        correct=correct, explain=explain,
        # the memory-bound phase's dot (both where both are; both where neither is, above the
        # ridge) and the ridge the answer measures them against (js/draw/roofline.js)
        points=[phase for phase, bound in (("prefill", pre), ("decode", dec))
                if bound == "memory" or correct == 3] + ["ridge"],
        **question_labels(tr))


MOE_VERDICTS = {0: N_("Only the prefill is memory-bound."),
                1: N_("Only the decode step is memory-bound."),
                2: N_("Both are memory-bound."),
                3: N_("Neither: both are compute-bound.")}


def moe_explain(r: Roofline, correct: int, tr: Translator, **kw) -> str:
    """The answer for a mixture of experts: the prefill's intensity is set by how many of the
    prompt's tokens each expert meets (P × k / E), not by the prompt's length alone."""
    m = r.model
    kw.update(k=tr.int(m.experts_per_token), experts=tr.int(m.n_experts),
              share=tr.sig(costs.tokens_per_expert(m, r.prompt), 2))
    if r.prefill.bound == "memory":
        pre = tr.n_("In the prefill each token uses only {k} of the {experts} expert, so each "
                    "expert's weights meet only about {share} of the prompt's tokens "
                    "({tokens}): about {pai} FLOP per byte, below this GPU's ridge of {ridge} "
                    "FLOP/byte.",
                    "In the prefill each token uses only {k} of the {experts} experts, so each "
                    "expert's weights meet only about {share} of the prompt's tokens "
                    "({tokens}): about {pai} FLOP per byte, below this GPU's ridge of {ridge} "
                    "FLOP/byte.", m.n_experts, **kw)
    else:
        pre = tr.n_("In the prefill each token uses only {k} of the {experts} expert, yet each "
                    "expert's weights still meet about {share} of the prompt's tokens "
                    "({tokens}): about {pai} FLOP per byte, above this GPU's ridge of {ridge} "
                    "FLOP/byte.",
                    "In the prefill each token uses only {k} of the {experts} experts, yet each "
                    "expert's weights still meet about {share} of the prompt's tokens "
                    "({tokens}): about {pai} FLOP per byte, above this GPU's ridge of {ridge} "
                    "FLOP/byte.", m.n_experts, **kw)
    if r.decode.bound == "memory":
        dec = tr.n_("A decode step of {count} sequence does about {dai} FLOP per byte, below "
                    "the ridge.",
                    "A decode step of {count} sequences does about {dai} FLOP per byte, below "
                    "the ridge.", r.batch, count=tr.int(r.batch), **kw)
    else:
        dec = tr.n_("A decode step of {count} sequence does about {dai} FLOP per byte, above "
                    "the ridge.",
                    "A decode step of {count} sequences does about {dai} FLOP per byte, above "
                    "the ridge.", r.batch, count=tr.int(r.batch), **kw)
    return " ".join((tr._(MOE_VERDICTS[correct]), pre, dec))


# -- sentences -------------------------------------------------------------------------------

def lead(tr: Translator) -> str:
    return tr._("Compute-bound versus memory-bound")


def primer(r: Roofline, tr: Translator) -> str:
    """Slope, roof and ridge in three sentences: what the question needs first (the `idea`
    region, before it). It defines memory-bound and compute-bound and places neither phase."""
    return " ".join((
        tr._("The slope: a task that does few FLOPs per byte it moves to or from memory sits "
             "on the rising line at the left, where memory bandwidth sets its pace: it is "
             "memory-bound."),
        tr._("The roof: a task that does many FLOPs per byte reaches the flat line at the top, "
             "where the arithmetic units set its pace: it is compute-bound."),
        tr._("The ridge, the vertical line where slope and roof meet, divides the two: {ridge} "
             "FLOP/byte on this GPU.", ridge=tr.int(r.gpu.ridge))))


def tokens_words(r: Roofline, tr: Translator) -> str:
    if not r.steps:
        return tr._("One output token: the prefill produces it, so there is no decode step.")
    return tr.n_("Output tokens: {o} = 1 from the prefill + {n} decode step: the prefill's "
                 "last position already predicts the first output token, and each decode step "
                 "adds one more.",
                 "Output tokens: {o} = 1 from the prefill + {n} decode steps: the prefill's "
                 "last position already predicts the first output token, and each decode "
                 "step adds one more.", r.steps, o=tr.int(r.output), n=tr.int(r.steps))


def batch_words(r: Roofline, tr: Translator) -> str:
    """This batch's decode step: time, tokens per second, FLOP per byte (no bound named)."""
    if not r.steps:
        return ""
    d = r.decode
    if r.batch == 1:
        return tr.n_("At batch 1 a decode step yields one token: at most {tps} token per "
                     "second, at {ai} FLOP per byte. A larger batch decodes several sequences "
                     "in the same step and shares each read of the weights among them.",
                     "At batch 1 a decode step yields one token: at most {tps} tokens per "
                     "second, at {ai} FLOP per byte. A larger batch decodes several sequences "
                     "in the same step and shares each read of the weights among them.",
                     rate_count(d.tokens_per_s, tr), tps=rate(d.tokens_per_s, tr),
                     ai=tr.sig(d.intensity, 2))
    return " ".join((
        tr.n_("At batch {count} a decode step takes at least {t} and yields {count} token, "
              "one per sequence.", "At batch {count} a decode step takes at least {t} and "
              "yields {count} tokens, one per sequence.", r.batch, count=tr.int(r.batch),
              t=tr.seconds(d.time_s)),
        tr.n_("That is at most {tps} token per second, {x} the rate of a single sequence, at "
              "{ai} FLOP per byte.", "That is at most {tps} tokens per second, {x} the rate of "
              "a single sequence, at {ai} FLOP per byte.", rate_count(d.tokens_per_s, tr),
              tps=rate(d.tokens_per_s, tr), x=tr.times(r.batch_gain, 1),
              ai=tr.sig(d.intensity, 2))))


def phases_words(r: Roofline, tr: Translator) -> str:
    """Where prefill and decode sit on the roof (says the answer: shown when revealed)."""
    v = values(r, tr)
    ridge = tr.int(r.gpu.ridge)
    if r.prefill.bound == "compute":
        s_pre = tr.n_("Prefill runs the {p} prompt token through the model in one pass. "
                      "Each byte it reads does about {ai} FLOPs of work, above the ridge of "
                      "{ridge} FLOP/byte, so it is compute-bound: at least {t} on this GPU, "
                      "the wait before the first token appears.",
                      "Prefill runs all {p} prompt tokens through the model in one pass. "
                      "Each byte it reads does about {ai} FLOPs of work, above the ridge of "
                      "{ridge} FLOP/byte, so it is compute-bound: at least {t} on this GPU, "
                      "the wait before the first token appears.", r.prompt,
                      p=v["prefill_tokens"], ai=v["prefill_intensity"], ridge=ridge,
                      t=v["prefill_time"])
    elif is_moe(r.model):
        # MoE: the sparsity, not the prompt's length, keeps prefill under the ridge
        s_pre = tr.n_("Prefill runs the {p} prompt token through the model in one pass, but "
                      "it uses only {k} of the experts ({experts} in all), so each expert's "
                      "weights meet only about {share} of those tokens. Each byte read does "
                      "only about {ai} FLOPs of work, below the ridge of {ridge} FLOP/byte: "
                      "even the prefill is memory-bound, at least {t} on this GPU, the wait "
                      "before the first token appears.",
                      "Prefill runs all {p} prompt tokens through the model in one pass, but "
                      "each token uses only {k} of the experts ({experts} in all), so each "
                      "expert's weights meet only about {share} of those tokens. Each byte "
                      "read does only about {ai} FLOPs of work, below the ridge of {ridge} "
                      "FLOP/byte: even the prefill is memory-bound, at least {t} on this GPU, "
                      "the wait before the first token appears.", r.prompt,
                      p=v["prefill_tokens"], k=tr.int(r.model.experts_per_token),
                     experts=tr.int(r.model.n_experts),
                     share=tr.sig(costs.tokens_per_expert(r.model, r.prompt), 2),
                     ai=v["prefill_intensity"], ridge=ridge, t=v["prefill_time"])
    else:
        s_pre = tr.n_("Prefill runs the {p} prompt token through the model in one pass. "
                      "Each byte it reads does only about {ai} FLOPs of work, below the "
                      "ridge of {ridge} FLOP/byte, so with a prompt this short even the "
                      "prefill is memory-bound: at least {t} on this GPU, the wait before the "
                      "first token appears.",
                      "Prefill runs all {p} prompt tokens through the model in one pass. "
                      "Each byte it reads does only about {ai} FLOPs of work, below the "
                      "ridge of {ridge} FLOP/byte, so with a prompt this short even the "
                      "prefill is memory-bound: at least {t} on this GPU, the wait before the "
                      "first token appears.", r.prompt,
                      p=v["prefill_tokens"], ai=v["prefill_intensity"], ridge=ridge,
                      t=v["prefill_time"])
    if r.steps:
        made = (counts.tokens(1, tr) if r.batch == 1
                else tr.n_("{count} token, one per sequence", "{count} tokens, one per sequence",
                           r.batch, count=tr.int(r.batch)))
        if r.steps == 1:
            s_dec = tr._("The single decode step then reads {gb} and produces {made}: about "
                         "{ai} FLOP per byte.", gb=v["read_per_step"], made=made,
                         ai=v["decode_intensity"])
        else:
            s_dec = tr.n_("Each of the {steps} decode step then reads up to {gb} and "
                          "produces {made}: about {ai} FLOP per byte.",
                          "Each of the {steps} decode steps then reads up to {gb} and produces "
                          "{made}: about {ai} FLOP per byte.", r.steps, steps=v["decode_steps"],
                          gb=v["read_per_step"], made=made, ai=v["decode_intensity"])
        kw = dict(t=v["decode_step_time"], total=tr.seconds(r.decode_total_s))
        if r.decode.bound == "memory":
            s_dec += " " + tr._("That is below the ridge, so decode is memory-bound: the last "
                                "step takes at least {t}, and all decode steps together at "
                                "least {total}.", **kw)
        else:
            s_dec += " " + tr._("That is above the ridge: at this batch decode is "
                                "compute-bound. The last step takes at least {t}, and all "
                                "decode steps together at least {total}.", **kw)
    else:
        s_dec = tr._("With one output token there is no decode step: the prefill already "
                     "produced it.")
    return s_pre + " " + s_dec


def why_words(r: Roofline, tr: Translator) -> str:
    out = tr._("Prefill multiplies every weight matrix by all P prompt tokens at once, so each "
                "byte of weights fetched from memory is used for roughly P floating-point "
                "operations. When P is above the ridge of {ridge} FLOP/byte, where this GPU's "
                "arithmetic and memory keep pace with each other, the arithmetic units set "
                "the pace; below it even the prefill waits for memory. A decode step of one "
                "sequence feeds a single token, so each byte is used for about one operation: "
                "at batch 1 the arithmetic units wait for memory, and the time per output "
                "token follows memory bandwidth, not compute.", ridge=tr.int(r.gpu.ridge))
    m = r.model
    if is_moe(m):
        # intensity ≈ 2 × active × P ÷ weight bytes: it reaches the ridge at this P
        p_ridge = r.gpu.ridge * r.weights / costs.forward_flops(m, 1)
        p = round(p_ridge, -1)
        out += " " + tr.n_("In a mixture-of-experts model such as {model}, each token uses "
                           "{k} of the experts ({experts} in all), so each expert's weights "
                           "meet only about P × {k} / {experts} of the tokens: prefill reaches "
                           "the ridge only when the prompt has about {p} token.",
                           "In a mixture-of-experts model such as {model}, each token uses "
                           "{k} of the experts ({experts} in all), so each expert's weights "
                           "meet only about P × {k} / {experts} of the tokens: prefill reaches "
                           "the ridge only when the prompt has about {p} tokens.", p,
                           model=m.name, k=tr.int(m.experts_per_token),
                           experts=tr.int(m.n_experts), p=tr.int(p))
    extra = costs.prefill_attention_flops(m, r.prompt) / costs.forward_flops(m, r.prompt)
    out += " " + tr._("These FLOPs are the weights' (2 per parameter and token). Attention's "
                      "own, the scores and weighted sums over the earlier prompt tokens, add "
                      "about {pct} more at this prompt, and their share grows with it.",
                      pct=tr.pct(extra))
    return out


def ceiling_words(b: Batching, tr: Translator) -> str:
    """The batch caveat: the weights' reads are shared, the cache's are not, hence a ceiling."""
    kw = dict(cache=tr.bytes(b.cache_per_seq, "auto", 1), ctx=tr.int(b.context),
              flops=tr.int(b.flops_per_seq), cache_b=tr.int(b.cache_per_seq),
              c=tr.sig(b.ceiling, 3), ridge=tr.int(b.gpu.ridge))
    head = tr.n_("Decode is memory-bound at small batch. Batching shares the weight reads, "
                 "not the cache reads: one read of the weights serves every sequence in the "
                 "batch, but each sequence still reads its own cache, {cache} at {ctx} token. "
                 "So the FLOP per byte of a decode step rises with the batch only up to a "
                 "ceiling, the weight FLOPs of one sequence (2 per active parameter) ÷ the "
                 "bytes of its cache: {flops} ÷ {cache_b} ≈ {c} FLOP/byte.",
                 "Decode is memory-bound at small batch. Batching shares the weight reads, "
                 "not the cache reads: one read of the weights serves every sequence in the "
                 "batch, but each sequence still reads its own cache, {cache} at {ctx} tokens. "
                 "So the FLOP per byte of a decode step rises with the batch only up to a "
                 "ceiling, the weight FLOPs of one sequence (2 per active parameter) ÷ the "
                 "bytes of its cache: {flops} ÷ {cache_b} ≈ {c} FLOP/byte.", b.context, **kw)
    if b.ceiling < b.gpu.ridge:
        tail = tr._("That is below this GPU's ridge of {ridge}: however large the batch, "
                    "decode at this context stays memory-bound.", **kw)
    else:
        tail = tr._("That is above this GPU's ridge of {ridge}: with a batch large enough, "
                    "decode at this context becomes compute-bound.", **kw)
    m = b.model
    if m.is_mla:
        tail += " " + tr._("Attention's own FLOPs, the scores and weighted sums over the "
                           "cache, are left out: in {model}'s latent attention every query "
                           "head works on the shared latent, so they add many FLOPs per byte "
                           "and the true ceiling is higher.", model=m.name)
    else:
        tail += " " + tr._("Attention's own FLOPs, the scores and weighted sums over the "
                           "cache, are left out: they add query heads ÷ KV heads = {heads} ÷ "
                           "{kv} = {x} FLOP per byte of cache, {all} FLOP/byte with them.",
                           heads=tr.int(m.n_heads), kv=tr.int(m.n_kv_heads),
                           x=tr.int(m.n_heads // m.n_kv_heads),
                           all=tr.sig(b.ceiling_attention, 3))
    return head + " " + tail


def stop_words(b: Batching, tr: Translator) -> str:
    """Where a larger batch stops paying, and whether that many sequences fit in memory."""
    st = b.stop
    n = st.batch
    if st.reason == "ceiling":
        s = " ".join((
            tr.n_("A larger batch stops paying at about {count} sequence: there the step "
                  "reaches {pct} of its ceiling, so no larger batch adds more than {gain} to "
                  "the tokens per second.", "A larger batch stops paying at about {count} "
                  "sequences: there the step reaches {pct} of its ceiling, so no larger batch "
                  "adds more than {gain} to the tokens per second.", n, count=tr.int(n),
                  pct=tr.pct(st.fraction), gain=tr.pct(1 / st.fraction - 1)),
            tr.n_("However large the batch, this GPU decodes at most {max} token per second at "
                  "this context.", "However large the batch, this GPU decodes at most {max} "
                  "tokens per second at this context.", rate_count(st.max_tokens_per_s, tr),
                  max=rate(st.max_tokens_per_s, tr))))
    else:
        s = tr.n_("From about {count} sequence the decode step reaches the ridge and is "
                  "compute-bound: a larger batch takes longer in proportion, and the tokens "
                  "per second stay at about {max}.",
                  "From about {count} sequences the decode step reaches the ridge and is "
                  "compute-bound: a larger batch takes longer in proportion, and the tokens "
                  "per second stay at about {max}.", n, count=tr.int(n),
                  max=rate(st.max_tokens_per_s, tr))
        # the step is one roofline point (all FLOPs against all bytes); the kernels are not
        s += " " + tr._("That treats the step as one point, all its FLOPs against all its "
                        "bytes. A real step runs kernel after kernel, each taking the longer "
                        "of its own compute and memory times: attention, which reads each "
                        "sequence's own cache, can stay memory-bound while the weight "
                        "products are compute-bound. So a real step takes longer, and {max} "
                        "is an upper bound.", max=rate(st.max_tokens_per_s, tr))
    if n > BATCH_RANGE[1]:
        s += " " + tr._("That is beyond this slider's {max}.", max=tr.int(BATCH_RANGE[1]))
    g = b.gpu
    if b.memory_limit is None:
        pass
    elif b.memory_limit == 0:
        s += " " + tr._("On the {gpu} the weights alone leave no room for a cache.",
                        gpu=g.name)
    else:
        s += " " + tr.n_("The {gpu} ({mem}) holds {count} sequence at context length {ctx} "
                         "next to the weights (step 5).",
                         "The {gpu} ({mem}) holds {count} sequences at context length {ctx} "
                         "next to the weights (step 5).", b.memory_limit, gpu=g.name,
                         mem=gib(g.mem_gib, tr), count=tr.int(b.memory_limit),
                         ctx=tr.int(b.context))
    return s


def shrink_name(kind: str, value, tr: Translator) -> str:
    if kind == "window":
        return tr.n_("a window of {w} token", "a window of {w} tokens", value, w=tr.int(value))
    return tr._(SHRINK_NAMES[kind, value])


def shrink_links(b: Batching, lang: str, tr: Translator) -> dict:
    """How a smaller cache per sequence raises the ceiling, each with a link to step 6."""
    items = [dict(text=tr._("{name}: {c} FLOP/byte ({x})", name=shrink_name(s.kind, s.value, tr),
                            c=tr.sig(s.ceiling, 3), x=tr.times(s.factor, 1)),
                  href="?" + "&".join(f"{k}={v}" for k, v in
                                      {"step": 6, "lang": lang, **s.query}.items()),
                  go=tr._("Step 6"))
             for s in b.shrinks]
    # the ceilings are this step's model's; step 6 computes the same ways for its own model
    return dict(intro=tr._("A smaller cache per sequence raises the ceiling by the same "
                           "factor: it is the weight FLOPs of one sequence ÷ the bytes of its "
                           "cache, {c} FLOP/byte for {model} as it is. Step 6's ways to shrink "
                           "the cache, applied to {model} (step 6 itself computes them for "
                           "{ref}):", c=tr.sig(b.ceiling, 3), model=b.model.name,
                           ref=STEP6_MODEL.name),
                items=items)


def continuous_words(tr: Translator) -> str:
    return tr._("Real servers do not wait for a whole batch to finish. With continuous "
                "batching (Orca, vLLM) a sequence that ends leaves the batch after any decode "
                "step, and a waiting request joins at the next one. Orca runs the newcomer's "
                "prefill in the same step as the others' decode steps, and so does vLLM with "
                "chunked prefill (the default of its V1 engine, which also splits a long prompt "
                "over several steps); vLLM's original scheduler gave a prefill a step of its "
                "own, the decodes waiting meanwhile. The batch stays full, so every read of the "
                "weights keeps serving many sequences; how many can join is set by the memory "
                "for their caches (step 5).")


def look(tr: Translator, revealed: bool = True) -> str:
    """What to press and watch (visible, after the question). Until the answer the roofline
    has no dots: the learner predicts where they go."""
    if not revealed:
        return tr._("Predict first: the prefill and decode dots appear on the roofline once you "
                    "answer the question. Then move the sliders and menus to move them, and "
                    "watch the charts below it: what a larger batch does to a decode step.")
    return tr._("Move the sliders and menus: the prefill and decode dots move along the "
                "roofline, and the charts below it show what a larger batch does to a decode "
                "step.")


def layers(r: Roofline, revealed: bool, tr: Translator, b: Batching | None = None
           ) -> dict[str, list[str]]:
    """The words in layers: `idea` (slope, roof and ridge: before the question), `visible`
    (what to press), and the Go deeper sections' paragraphs, `why` and `literature`. What
    names the bound phase, or a FLOP per byte to set beside the ridge, waits for the answer."""
    why = [tokens_words(r, tr)]
    out = dict(idea=[primer(r, tr)], visible=[look(tr, revealed)], why=why, literature=[])
    if not revealed:
        return out
    if r.steps:
        why.append(batch_words(r, tr))
    why += [phases_words(r, tr), why_words(r, tr)]
    if b is not None and r.steps:
        why += [ceiling_words(b, tr), stop_words(b, tr)]
    why.append(tr._("Time to first token is the prefill wait, so it grows with the prompt. "
                    "Every later token costs one decode step, and their pace depends on "
                    "memory bandwidth, the batch size and the context length: every decode "
                    "step reads the whole cache of every sequence."))
    out["literature"] = [continuous_words(tr)]
    return out


def narration(r: Roofline, revealed: bool, tr: Translator, b: Batching | None = None
              ) -> list[str]:
    """The whole explanation in one list (slope, roof and ridge, then the deeper words),
    without the line on what to press."""
    ws = layers(r, revealed, tr, b)
    return ws["idea"] + ws["why"] + ws["literature"]


def notices(r: Roofline, b: Batching, tr: Translator) -> list[str]:
    out = []
    if r.beyond_max_context:
        out.append(counts.context_notice(r.model.name, r.model.max_context,
                                         r.prompt + r.output - 1, tr))
    g = r.gpu
    if b.memory_limit == 0:
        out.append(tr._("The weights of {model} ({weights}) do not fit in the {gpu}'s {mem}: "
                        "it would have to be split over several GPUs, which this roofline of "
                        "one GPU leaves out.", model=r.model.name,
                        weights=tr.bytes(r.weights, "GB", 1), gpu=g.name,
                        mem=gib(g.mem_gib, tr)))
    elif b.memory_limit is not None and r.batch > b.memory_limit and r.steps:
        out.append(tr.n_("A batch of {seqs}, {tokens} each, does not fit next to the weights "
                         "in the {gpu}'s {mem}: at most {count} does.",
                         "A batch of {seqs}, {tokens} each, does not fit next to the weights "
                         "in the {gpu}'s {mem}: at most {count} do.",
                         b.memory_limit, seqs=counts.sequences(r.batch, tr),
                         tokens=counts.tokens(b.context, tr), gpu=g.name,
                         mem=gib(g.mem_gib, tr), count=tr.int(b.memory_limit)))
    return out


def model_note(r: Roofline, tr: Translator) -> list[str]:
    g, m = r.gpu, r.model
    out = [tr._("Computed for {model} ({weights}, {kv} cached per token) on {gpu}: "
                "{f}, {bw}, ridge ≈ {ridge} FLOP/byte. The decode step shown is the last and "
                "largest one.",
                model=m.name, weights=weights_text(m, r.weights, tr),
                kv=tr.bytes(r.kv_per_token, "KiB", 0), gpu=gpu_name(g, tr),
                f=tr._("{f} TFLOP/s", f=tr.int(g.flops / TFLOPS)),
                bw=tr._("{b} TB/s", b=short(g.bandwidth / TB_PER_S, tr)),
                ridge=tr.int(g.ridge))]
    if m.is_moe:
        out.append(tr._("{model} is a mixture of experts: one token uses {active} of its "
                        "parameters ({total} in all), and a decode step reads only the experts "
                        "its batch was routed to, so a larger batch reads more of the weights.",
                        model=m.name, active=tr.int(m.params_per_token),
                        total=tr.int(m.n_params)))
    if m.local_window is not None:
        out.append(tr.n_("{model}'s sliding-window layers keep and read at most {w} token "
                         "per sequence.", "{model}'s sliding-window layers keep and read at "
                         "most {w} tokens per sequence.", m.local_window, model=m.name,
                         w=tr.int(m.local_window)))
    if g.flops_fp16_accumulate is not None:
        out.append(tr._("The {gpu}'s {f} is its fp16 tensor rate with fp32 accumulation, as "
                        "PyTorch and cuBLAS use it; with fp16 accumulation it reaches {f16}.",
                        gpu=g.name, f=tr._("{f} TFLOP/s", f=tr.int(g.flops / TFLOPS)),
                        f16=tr._("{f} TFLOP/s",
                                 f=tr.int(g.flops_fp16_accumulate / TFLOPS))))
    out.append(tr._("The times assume the GPU's peak FLOP/s and bandwidth; real kernels reach "
                    "less, so read them as lower bounds."))
    return out


def measured_words(plan: Plan, prompt: int, output: int, status: str, res, facts: dict,
                   tr: Translator) -> tuple[list[str], list[str]]:
    """(paragraphs, notices) about the live model's measurement on this server."""
    head = tr._("Measured on this server, on the live model (prompt tokens: {p}, output "
                "tokens: {o}). Measured numbers vary from run to run.", p=tr.int(plan.prompt),
                o=tr.int(plan.output))
    notes = []
    if plan.clamped:
        notes.append(tr.n_("The live model holds at most {ctx} token, so it is measured at {p} "
                           "and {o} (prompt and output tokens) instead of {P} and {O}.",
                           "The live model holds at most {ctx} tokens, so it is measured at {p} "
                           "and {o} (prompt and output tokens) instead of {P} and {O}.",
                           plan.max_len, ctx=tr.int(plan.max_len), p=tr.int(plan.prompt),
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
    paras.append(tr._("Live model: {layers}, {heads}, head_dim {d}, running on {device}.",
                      layers=counts.layers(facts["n_layers"], tr),
                      heads=counts.heads(facts["n_heads"], tr), d=tr.int(facts["head_dim"]),
                      device=device))
    return paras, notes


def device_name(device: str) -> str:
    return "CPU" if device == "cpu" else device


# -- the roofline and the batch curve: one still frame, drawn in the browser -----------------

def stage_text(tr: Translator) -> StageText:
    return dict(player_text(tr), figure=tr._("Roofline"))


def legend(tr: Translator, revealed: bool = True) -> list[tuple[str, str]]:
    """The figure's marks, named; until the answer only the roofline is drawn."""
    items = legend_items(tr)
    return items if revealed else items[:1]


def legend_items(tr: Translator) -> list[tuple[str, str]]:
    """Each mark drawn as the chart draws it (`<style>:<colour>`: dom.js legendRow) and named
    so: the roof a line, the phases points, the ceiling a dotted line."""
    return [("line:text", tr._("roofline: the most FLOP/s this GPU can reach")),
            ("dot:compute", tr._("prefill")), ("dot:cached", tr._("decode step")),
            ("muted", tr._("memory-bound region")),
            ("dots:cached", tr._("small dots: decode at batch 1 to 256")),
            ("dotted:text", tr._("dotted line: the decode ceiling (weight FLOPs), any batch"))]


def log_ticks(lo: float, hi: float, most: int = 4) -> list[float]:
    """Ticks of a log axis between lo and hi: decades, or 1-2-5 steps in a narrow range."""
    if lo <= 0 or hi <= lo:
        return [hi] if hi > 0 else []
    k0, k1 = math.floor(math.log10(lo)), math.ceil(math.log10(hi))
    for mults in ((1,), (1, 3), (1, 2, 5), (1, 1.5, 2, 3, 5, 7)):
        ticks = [m * 10.0 ** k for k in range(k0, k1 + 1) for m in mults
                 if lo <= m * 10.0 ** k <= hi]
        if len(ticks) >= 2:
            step = max(1, math.ceil(len(ticks) / most))
            return ticks[::step]
    return [lo, hi]


class PanelLine(TypedDict):
    """A level across a batch panel."""
    y: float
    cls: str                 # "ceiling" or "ridge"
    label: str


class BatchPanel(TypedDict):
    """One panel of decode against the batch: a value at every batch size, on a log axis."""
    title: str
    ys: list[float]          # one per batch size (BatchFig.xs)
    lines: list[PanelLine]
    now: float               # at the chosen batch
    now_label: str
    y0: float
    y1: float
    yticks: list[Tick]


class BatchMark(TypedDict):
    """A batch size marked on the batch axis."""
    x: int
    cls: str                 # "stop": a larger batch stops paying; "fits": the memory's limit
    label: str


class BatchFig(TypedDict):
    """Decode against the batch, under the roofline (js/draw/roofline.js)."""
    title: str
    xs: list[int]            # the batch sizes
    x0: int
    x1: int
    now: int                 # the chosen batch
    xticks: list[Tick]
    xaxis: str
    panels: list[BatchPanel]
    marks: list[BatchMark]


def _panel(title: str, ys: list, lines: list, now: float, fmt, tr: Translator,
           now_label: str | None = None) -> BatchPanel:
    every = [v for v in ys + [ln["y"] for ln in lines] + [now] if v > 0]
    lo, hi = min(every) / 1.4, max(every) * 1.4
    return dict(title=title, ys=ys, lines=lines, now=now,
                now_label=fmt(now) if now_label is None else now_label, y0=lo, y1=hi,
                yticks=[[t, fmt(t)] for t in log_ticks(lo, hi)])


def batch_fig(r: Roofline, b: Batching, tr: Translator, revealed: bool = True) -> BatchFig:
    """Decode against the batch: FLOP per byte (with its ceiling and the ridge), tokens per
    second (with the most any batch reaches) and time per step, on one log batch axis.
    Until the answer (`revealed` false) the FLOP-per-byte panel is left out: its curve
    under the ridge would say that decode is memory-bound."""
    xs = list(b.batches)
    tps = lambda v: rate(v, tr)  # noqa: E731
    ceiling = tr.sig(b.ceiling, 3) if revealed else "?"
    intensity = tr.sig(r.decode.intensity, 2) if revealed else "?"
    panels = [
        _panel(tr._("FLOP per byte"), [c.intensity for c in b.curve],
               [dict(y=b.ceiling, cls="ceiling", label=tr._("ceiling ≈ {c}", c=ceiling)),
                dict(y=b.gpu.ridge, cls="ridge", label=tr._("ridge ≈ {r}",
                                                           r=tr.int(b.gpu.ridge)))],
               r.decode.intensity, lambda v: tr.sig(v, 2), tr, now_label=intensity),
        _panel(tr._("Tokens per second, at most"), [c.tokens_per_s for c in b.curve],
               [dict(y=b.stop.max_tokens_per_s, cls="ceiling",
                     label=tr._("any batch: at most {n}", n=tps(b.stop.max_tokens_per_s)))],
               r.decode.tokens_per_s, tps, tr),
        _panel(tr._("Time per decode step, at least"), [c.time_s for c in b.curve], [],
               r.decode.time_s, tr.seconds, tr),
    ][0 if revealed else 1:]
    marks = []
    if b.stop.batch <= BATCH_RANGE[1]:
        marks.append(dict(x=b.stop.batch, cls="stop",
                          label=tr._("a larger batch stops paying: {n}",
                                     n=tr.int(b.stop.batch))))
    if b.memory_limit is not None and 1 <= b.memory_limit <= BATCH_RANGE[1]:
        marks.append(dict(x=b.memory_limit, cls="fits",
                          label=tr._("fits in memory: {n}", n=tr.int(b.memory_limit))))
    return dict(
        title=tr._("Decode at context length {ctx}, batch 1 to 256", ctx=tr.int(b.context)),
        xs=xs, x0=BATCH_RANGE[0], x1=BATCH_RANGE[1], now=r.batch,
        xticks=[[t, tr.int(t)] for t in B_TICKS],
        xaxis=tr._("Batch size (sequences, log scale)"), panels=panels, marks=marks)


class RooflinePoint(TypedDict):
    """A phase on the roofline."""
    x: float                 # FLOP per byte
    y: float                 # attainable TFLOP/s
    cls: str                 # "prefill" or "decode"
    label: str


class RooflineCeiling(TypedDict):
    """The decode ceiling: the most FLOP per byte any batch reaches."""
    x: float
    label: str


class RooflineFig(TypedDict):
    """The one frame of js/draw/roofline.js: a log-log roofline, and decode against the
    batch under it."""
    title: str
    x0: float
    x1: float
    y0: float
    y1: float
    xticks: list[Tick]
    yticks: list[Tick]
    roof: list[tuple[float, float]]   # the roof's corners: [FLOP per byte, TFLOP/s]
    ridge: float
    peak: float              # the GPU's TFLOP/s
    xaxis: str
    yaxis: str
    ridge_label: str
    memory: str | None       # the memory-bound region's name, once the answer is out
    compute: str | None      # the compute-bound region's name, the same
    points: list[RooflinePoint]
    trail: list[tuple[float, float]]  # decode at every batch size
    ceiling: RooflineCeiling | None
    batch: BatchFig | None


class RooflineStageFrame(Frame):
    fig: RooflineFig


def frame(r: Roofline, status: str, res, tr: Translator, b: Batching | None = None,
          revealed: bool = True) -> dict:
    """The one still frame. Until the question is answered (`revealed` false) the roofline has
    no dots (neither phase, nor decode at every batch, nor the ceiling's line: where they sit
    is the answer) and names neither region, the batch chart has no FLOP-per-byte panel, and
    every FLOP/byte and attainable TFLOP/s of the text twin and the description reads “?”."""
    g = r.gpu
    lo, hi = r.y_range
    pts = [("prefill", r.prefill, "prefill")]
    if r.steps:
        pts.append(("decode", r.decode, "decode"))
    v = values(r, tr, b)
    times = {"prefill": v["prefill_time"], "decode": v["decode_step_time"]}
    labels = {"prefill": tr._(PHASES["prefill"]),
              "decode": tr._(PHASES["decode"]) if r.batch == 1
              else tr._("decode, batch {b}", b=tr.int(r.batch))}
    hide = (lambda text: text) if revealed else (lambda text: "?")   # noqa: E731
    rows = [[labels[phase], hide(tr.sig(p.intensity, 3)),
             hide(tr.sig(p.attainable_flops / TFLOPS, 3)),
             tr.bytes(p.bytes, "GB", 1), times[phase], rate(p.tokens_per_s, tr)]
            for phase, p, _ in pts]
    peak = tr._("{f} TFLOP/s", f=tr.int(g.flops / TFLOPS))
    desc = tr._("Log-log roofline of {gpu}: the roof rises with memory bandwidth up to "
                "{peak} at the ridge, {ridge} FLOP/byte. Prefill: {pai} FLOP/byte; "
                "decode step: {dai} FLOP/byte.", gpu=gpu_name(g, tr), peak=peak,
                ridge=tr.int(g.ridge), pai=v["prefill_intensity"],
                dai=v["decode_intensity"]) if revealed else tr._(
        "Log-log roofline of {gpu}: the roof rises with memory bandwidth up to {peak} at "
        "the ridge, {ridge} FLOP/byte. Where prefill and decode sit is told once you answer "
        "the question.", gpu=gpu_name(g, tr), peak=peak, ridge=tr.int(g.ridge))
    fig = dict(
        title=tr._("Roofline of {gpu}", gpu=gpu_name(g, tr)),
        x0=X_RANGE[0], x1=X_RANGE[1], y0=lo / TFLOPS, y1=hi / TFLOPS,
        xticks=[[t, tick(t, tr)] for t in X_TICKS],
        yticks=[[t, tick(t, tr)] for t in y_ticks(lo / TFLOPS, hi / TFLOPS)],
        roof=[[x, y / TFLOPS] for x, y in r.roof], ridge=g.ridge, peak=g.flops / TFLOPS,
        xaxis=tr._("FLOP per byte moved to or from memory (log scale)"),
        yaxis=tr._("Attainable TFLOP/s (log scale)"),
        ridge_label=tr._("ridge ≈ {r} FLOP/byte", r=tr.int(g.ridge)),
        # the regions' names (and the shaded memory-bound one) say which phase is bound by
        # what: the answer
        memory=tr._(BOUNDS["memory"]) if revealed else None,
        compute=tr._(BOUNDS["compute"]) if revealed else None,
        # the dots, and the ceiling's line, once the answer is out: they would answer it
        points=[dict(x=p.intensity, y=p.attainable_flops / TFLOPS, cls=cls,
                     label=labels[phase]) for phase, p, cls in pts] if revealed else [],
        trail=[], ceiling=None, batch=None)
    if b is not None and r.steps:
        fig.update(
            trail=[[c.intensity, c.attainable_flops / TFLOPS] for c in b.curve]
            if revealed else [],
            ceiling=dict(x=b.ceiling, label=tr._("decode ceiling ≈ {c}",
                                                 c=tr.sig(b.ceiling, 3)))
            if revealed and X_RANGE[0] < b.ceiling < X_RANGE[1] else None,
            batch=batch_fig(r, b, tr, revealed))
        first, last = b.curve[0], b.curve[-1]
        desc += " " + (tr._("Decode against the batch at context length {ctx}: from {a1} "
                           "FLOP/byte and "
                           "{t1} tokens/s at batch 1 to {a2} FLOP/byte and {t2} tokens/s at "
                           "batch {b2}, against a ceiling of {c} FLOP/byte for any batch.",
                           ctx=tr.int(b.context), a1=tr.sig(first.intensity, 2),
                           t1=rate(first.tokens_per_s, tr), a2=tr.sig(last.intensity, 2),
                           t2=rate(last.tokens_per_s, tr), b2=tr.int(last.batch),
                           c=tr.sig(b.ceiling, 3)) if revealed else tr._(
            "Decode against the batch at context length {ctx}: from {t1} tokens/s at batch "
            "{b1} to {t2} tokens/s at batch {b2}.", ctx=tr.int(b.context),
            t1=rate(first.tokens_per_s, tr), b1=tr.int(first.batch),
            t2=rate(last.tokens_per_s, tr), b2=tr.int(last.batch)))
        now = next(p for phase, p, _ in pts if phase == "decode")
        desc += " " + tr._("At the chosen batch of {b}: {t} tokens/s.", b=tr.int(r.batch),
                           t=rate(now.tokens_per_s, tr))
        rows += [[tr._("decode, batch {b}", b=tr.int(c.batch)), hide(tr.sig(c.intensity, 3)),
                  hide(tr.sig(c.attainable_flops / TFLOPS, 3)), tr.bytes(c.bytes, "GB", 1),
                  tr.seconds(c.time_s), rate(c.tokens_per_s, tr)]
                 for c in b.curve if c.batch in TABLE_BATCHES]
    return dict(
        pos="", cards=cards(r, status, res, tr, b), caption="", desc=desc,
        table=dict(head=[tr._("Phase"), tr._("FLOP per byte"), tr._("Attainable TFLOP/s"),
                         tr._("Bytes moved"), tr._("Time"), tr._("Tokens per second")],
                   rows=rows),
        fig=fig)
