"""Step 5's words: the only place that translates. Pure functions of (numbers, Translator)."""
from __future__ import annotations

import math

from explainer import presets
from explainer.i18n import N_, UNITS, Translator, auto_unit

from ..ui.components import Card, card_dicts
from ..ui.question import question_labels
from ..ui.stage import player_text
from .model import Bill, Curve, Live, Spec, round_sig

GB = presets.GB
X_TICKS = (0, 8192, 16384, 24576, 32768)        # the curve's context axis

ATTENTION_NAMES = {
    "MHA": N_("multi-head attention"),
    "GQA": N_("grouped-query attention"),
    "MQA": N_("multi-query attention"),
    "MLA": N_("multi-head latent attention"),
}

# the headline: at most four cards under the formula
CARDS = (
    Card("kv_cache", N_("KV cache, whole batch")),
    Card("weights", N_("Weights (fp16)")),
    Card("total", N_("Total")),
    Card("max_sequences", N_("Sequences of {context} tokens that fit in the {gpu}")),
)
# “All numbers”
MORE = (
    Card("per_token", N_("KV cache per token ({exact})"), more=True),
    Card("fits", N_("Fits on"), more=True),
    Card("crossover", N_("One sequence's cache equals the weights at"), hidden=True,
         more=True),
    Card("live_measured", N_("Live cache, measured"), "measured", more=True),
    Card("live_formula", N_("Live cache, formula"), more=True),
    Card("live_weights", N_("Live model weights (fp32)"), "measured", more=True),
)

OPTIONS = (N_("≈ {small} tokens"), N_("≈ {mid} tokens"), N_("≈ {large} tokens"))


# -- units -----------------------------------------------------------------------------------

def bytes_bin(n: float, tr: Translator) -> str:
    """Binary units (KiB/MiB/GiB): whole numbers without decimals ("2 GiB", "512 KiB")."""
    unit = auto_unit(n, binary=True)
    value = n / UNITS[unit]
    return tr.bytes(n, unit, 0 if abs(value - round(value)) < 1e-9 else 1)


def bytes_dec(n: float, tr: Translator) -> str:
    """Decimal units (KB/MB/GB/TB), one decimal: "2.1 GB", "13.5 GB"."""
    return tr.bytes(n, "auto", 1)


def exact(n: float, tr: Translator) -> str:
    return tr.bytes(int(n), "B")


def both(n: float, tr: Translator) -> str:
    return tr._("{dec} ({bin})", dec=bytes_dec(n, tr), bin=bytes_bin(n, tr))


def capacity(n: float, tr: Translator) -> str:
    return tr.bytes(n, "GB", 0)


def nice_ticks(hi: float, n: int = 5) -> tuple[list[float], int]:
    """Ticks 0..hi at a 1/2/2.5/5 step, and the decimals their labels need."""
    raw = hi / max(1, n)
    mag = 10 ** math.floor(math.log10(raw)) if raw > 0 else 1
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
    ticks = [round(i * step, 10) for i in range(int(hi / step + 1e-9) + 1)]
    digits = max(0, -math.floor(math.log10(step))) if step < 1 else (1 if step % 1 else 0)
    return ticks, digits


# -- the formula, the cards ------------------------------------------------------------------

def formula(spec: Spec, tokens: int, batch: int, total: str, tr: Translator,
            ) -> tuple[str, str]:
    """`2 × 32 layers × 32 KV heads × 128 × 2 B = 512 KiB per token` and
    `× 4,096 tokens × 1 sequence = 2.1 GB`, with the model's own numbers."""
    value_b = tr.bytes(spec.bytes_per_value, "B")
    per_token = bytes_bin(spec.per_token, tr)
    layers = tr.n_("{count} layer", "{count} layers", spec.n_layers,
                   count=tr.int(spec.n_layers))
    if spec.is_mla:
        head = tr._("{layers} × {dims} × {bytes} = {per_token} per token", layers=layers,
                    dims=tr._("{count} latent values", count=tr.int(spec.mla_dims)),
                    bytes=value_b, per_token=per_token)
    else:
        head = tr._("2 × {layers} × {kv_heads} × {head_dim} × {bytes} = "
                    "{per_token} per token", layers=layers,
                    kv_heads=tr.n_("{count} KV head", "{count} KV heads", spec.n_kv_heads,
                                   count=tr.int(spec.n_kv_heads)),
                    head_dim=tr.int(spec.head_dim), bytes=value_b, per_token=per_token)
    tail = tr._("× {tokens} × {sequences} = {total}",
                tokens=tr.n_("{count} token", "{count} tokens", tokens, count=tr.int(tokens)),
                sequences=tr.n_("{count} sequence", "{count} sequences", batch,
                                count=tr.int(batch)),
                total=total)
    return head, tail


def bill_formula(spec: Spec, bill: Bill, tr: Translator) -> tuple[str, str]:
    return formula(spec, bill.kept, bill.batch, bytes_dec(bill.kv, tr), tr)


def fits(bill: Bill, tr: Translator) -> str:
    if bill.fits_gpu is None:
        return tr._("no single GPU of the presets")
    return tr._("{capacity} GPU ({names})", capacity=capacity(bill.fits_mem, tr),
                names=", ".join(bill.fits_names))


def crossover_tokens(x: float | None, tr: Translator) -> str:
    return tr._("Never") if x is None else tr._(OPTIONS[1], mid=tr.int(round_sig(x)))


def values(spec: Spec, bill: Bill, live: Live, tr: Translator) -> dict:
    """Every card's value, keyed by its data-metric key."""
    return dict(
        kv_cache=both(bill.kv, tr), weights=bytes_dec(bill.weights, tr),
        total=bytes_dec(bill.total, tr), max_sequences=tr.int(bill.max_sequences),
        per_token=bytes_bin(bill.per_token, tr), fits=fits(bill, tr),
        crossover=crossover_tokens(spec.crossover, tr),
        live_measured=exact(live.measured, tr), live_formula=exact(live.formula, tr),
        live_weights=bytes_dec(live.weights, tr))


def labels(bill: Bill, tr: Translator) -> dict:
    """Card labels that carry numbers."""
    return dict(
        per_token=tr._("KV cache per token ({exact})", exact=exact(bill.per_token, tr)),
        max_sequences=tr._("Sequences of {context} tokens that fit in the {gpu}",
                           context=tr.int(bill.context), gpu=bill.gpu_name))


# -- the question ----------------------------------------------------------------------------

def question(spec: Spec, tr: Translator) -> dict:
    """Built from the chosen model: its weights, its cache per token."""
    weights = bytes_dec(spec.weights, tr)
    free = spec.weights / spec.per_token          # where an unbounded cache would cross
    if spec.crossover is not None:
        c = spec.crossover
        options = [tr._(OPTIONS[0], small=tr.int(round_sig(c / 6, 1))),
                   tr._(OPTIONS[1], mid=tr.int(round_sig(c, 2))),
                   tr._(OPTIONS[2], large=tr.int(round_sig(c * 8, 1)))]
        correct = 1
        explain = tr._("Each token adds {per_token} to the cache of {model}, so one "
                       "sequence's cache matches the weights at {weights} ÷ {per_token} ≈ "
                       "{crossover} tokens. Past that, one long conversation needs more "
                       "memory than the whole model.",
                       per_token=exact(spec.per_token, tr), model=spec.name,
                       weights=exact(spec.weights, tr), crossover=tr.int(round_sig(c)))
        if spec.max_context is not None and c > spec.max_context:
            explain += " " + tr._("{model} itself handles at most {max} tokens, so that length "
                                  "is hypothetical for it; the arithmetic is the same.",
                                  model=spec.name, max=tr.int(spec.max_context))
    else:
        options = [tr._(OPTIONS[1], mid=tr.int(round_sig(free, 2))),
                   tr._(OPTIONS[2], large=tr.int(round_sig(free * 8, 1))),
                   tr._("Never")]
        correct = 2
        explain = tr._("{model} keeps only the last {window} tokens of every sequence (a "
                       "sliding window), so one sequence's cache stops growing at {cap}, "
                       "below the {weights} of its weights: it never outgrows them.",
                       model=spec.name, window=tr.int(spec.window),
                       cap=bytes_dec(spec.cap, tr), weights=weights)
    return dict(
        key=("step5", spec.key),
        prompt=tr._("The weights of {model} take {weights} in fp16. At what context length "
                    "does one sequence's KV cache outgrow them?", model=spec.name,
                    weights=weights),
        options=options, correct=correct, explain=explain, **question_labels(tr))


# -- sentences -------------------------------------------------------------------------------

def lead(tr: Translator) -> str:
    return tr._("Weights are paid once; the cache is paid for every token of every sequence.")


def model_info(spec: Spec, tr: Translator) -> str:
    kind_name = tr._(ATTENTION_NAMES[spec.kind])
    if spec.is_mla:
        return tr._("{model}: {kind} ({kind_name}), {layers} layers, caches {dims} latent "
                    "values per layer and token.", model=spec.name, kind=spec.kind,
                    kind_name=kind_name, layers=tr.int(spec.n_layers),
                    dims=tr.int(spec.mla_dims))
    return tr._("{model}: {kind} ({kind_name}), {layers} layers, {q_heads} query heads, "
                "{kv_heads} of {head_dim} values each, weights in fp16.",
                model=spec.name, kind=spec.kind, kind_name=kind_name,
                layers=tr.int(spec.n_layers), q_heads=tr.int(spec.n_heads),
                kv_heads=tr.n_("{count} KV head", "{count} KV heads", spec.n_kv_heads,
                               count=tr.int(spec.n_kv_heads)),
                head_dim=tr.int(spec.head_dim))


def notices(spec: Spec, bill: Bill, tr: Translator) -> list[str]:
    out = []
    total, memory = bytes_dec(bill.total, tr), capacity(bill.gpu_mem, tr)
    if bill.free <= 0:
        out.append(tr._("The weights alone ({weights}) are larger than the {gpu}'s "
                        "{memory}: the model would have to be split over several GPUs.",
                        weights=bytes_dec(bill.weights, tr), gpu=bill.gpu_name,
                        memory=memory))
    elif not bill.fits_selected and bill.max_sequences == 0:
        out.append(tr._("This batch needs {total}, more than the {gpu}'s {memory}: not "
                        "even one sequence of {context} tokens fits next to the weights.",
                        total=total, gpu=bill.gpu_name, memory=memory,
                        context=tr.int(bill.context)))
    elif not bill.fits_selected:
        out.append(tr.n_("This batch needs {total}, more than the {gpu}'s {memory}: at "
                         "most {count} such sequence fits at once.",
                         "This batch needs {total}, more than the {gpu}'s {memory}: at "
                         "most {count} such sequences fit at once.",
                         bill.max_sequences, total=total, gpu=bill.gpu_name, memory=memory,
                         count=tr.int(bill.max_sequences)))
    if bill.fits_gpu is None:
        out.append(tr._("No single GPU of the presets holds {total}.", total=total))
    if bill.beyond_max_context:
        out.append(tr._("{model} was built for at most {max} tokens: a context of {context} "
                        "tokens is hypothetical for it, although the arithmetic is the same.",
                        model=spec.name, max=tr.int(spec.max_context),
                        context=tr.int(bill.context)))
    return out


def narration(spec: Spec, bill: Bill, tr: Translator) -> list[str]:
    paras = []
    if not spec.is_mla:
        paras.append(tr._(
            "Every token leaves one key vector and one value vector in every layer, for every "
            "key/value head. So one token costs 2 × layers × KV heads × head_dim × bytes per "
            "value, and a sequence costs that times its tokens."))
    q, kvh = tr.int(spec.n_heads), tr.int(spec.n_kv_heads)
    if spec.kind == "MHA":
        paras.append(tr._(
            "{model} uses multi-head attention (MHA): each of its {q_heads} query heads has "
            "its own key/value head, so it caches {kv_heads} per layer.",
            model=spec.name, q_heads=q, kv_heads=kvh))
    elif spec.kind == "GQA":
        paras.append(tr._(
            "{model} uses grouped-query attention (GQA): its {q_heads} query heads share "
            "{kv_heads} key/value heads, so its cache is {ratio} smaller than if every "
            "query head had its own. The formula counts KV heads, never the model width.",
            model=spec.name, q_heads=q, kv_heads=kvh,
            ratio=tr.times(spec.n_heads / spec.n_kv_heads, 0)))
    elif spec.kind == "MQA":
        paras.append(tr._(
            "{model} uses multi-query attention (MQA): all {q_heads} query heads share one "
            "key/value head, so its cache is {ratio} smaller than with one per query head.",
            model=spec.name, q_heads=q, ratio=tr.times(spec.n_heads, 0)))
    else:
        paras.append(tr._(
            "{model} uses multi-head latent attention (MLA): instead of separate keys and "
            "values it caches one compressed vector of {dims} values per layer and token, "
            "and rebuilds keys and values from it.", model=spec.name,
            dims=tr.int(spec.mla_dims)))
    if spec.window is not None and bill.context > spec.window:
        paras.append(tr._(
            "{model} attends only to the last {window} tokens (a sliding window), so its "
            "cache stops growing there: {kept} of the {context} tokens are kept.",
            model=spec.name, window=tr.int(spec.window), kept=tr.int(bill.kept),
            context=tr.int(bill.context)))
    if bill.free > 0:
        paras.append(tr.n_(
            "The weights are paid once, however many sequences the server runs; the cache "
            "is paid again for every sequence and grows with every token. So the batch a "
            "server can run is roughly its free memory divided by the cache of one "
            "sequence: on the {gpu}, {free} ÷ {per_seq} ≈ {count} sequence of {context} "
            "tokens.",
            "The weights are paid once, however many sequences the server runs; the cache "
            "is paid again for every sequence and grows with every token. So the batch a "
            "server can run is roughly its free memory divided by the cache of one "
            "sequence: on the {gpu}, {free} ÷ {per_seq} ≈ {count} sequences of {context} "
            "tokens.",
            bill.max_sequences, gpu=bill.gpu_name, free=bytes_dec(bill.free, tr),
            per_seq=bytes_dec(bill.per_sequence, tr), count=tr.int(bill.max_sequences),
            context=tr.int(bill.context)))
    else:
        paras.append(tr._(
            "The weights are paid once, the cache once per sequence. On the {gpu} even the "
            "weights ({weights}) do not fit in its {memory}, so no sequence does.",
            gpu=bill.gpu_name, weights=bytes_dec(bill.weights, tr),
            memory=capacity(bill.gpu_mem, tr)))
    paras.append(tr._(
        "Not included: activations, the runtime's own buffers and memory fragmentation, so "
        "a real server fits somewhat fewer sequences than this estimate."))
    return paras


def units(bill: Bill, tr: Translator) -> str:
    return tr._(
        "Units: GB means 10⁹ bytes and GiB means 2³⁰ bytes, {more} more. This cache is "
        "{exact} bytes, which is {dec} or {bin}: always check which unit a figure uses.",
        more=tr.pct(presets.GiB / presets.GB - 1, 1), exact=tr.int(bill.kv),
        dec=bytes_dec(bill.kv, tr), bin=bytes_bin(bill.kv, tr))


def live_lines(live: Live, tr: Translator) -> list[str]:
    """The live model's cache: its formula with its own numbers, measured against it."""
    head, tail = formula(live_spec(live), live.tokens, 1, exact(live.formula, tr), tr)
    para = tr.n_(
        "The live model on this server ({layers} layers, {kv_heads} KV heads of {head_dim} "
        "values, fp32 = 4 bytes per value) stores {per_token} per token. After the prompt "
        "and its next tokens its cache holds {count} token: {measured} measured on the real "
        "tensors, {formula} from the formula. Its weights take {weights}, so its cache would "
        "outgrow them after about {crossover} tokens.",
        "The live model on this server ({layers} layers, {kv_heads} KV heads of {head_dim} "
        "values, fp32 = 4 bytes per value) stores {per_token} per token. After the prompt "
        "and its next tokens its cache holds {count} tokens: {measured} measured on the "
        "real tensors, {formula} from the formula. Its weights take {weights}, so its cache "
        "would outgrow them after about {crossover} tokens.",
        live.tokens, layers=tr.int(live.n_layers), kv_heads=tr.int(live.n_kv_heads),
        head_dim=tr.int(live.head_dim), per_token=bytes_bin(live.per_token, tr),
        count=tr.int(live.tokens), measured=exact(live.measured, tr),
        formula=exact(live.formula, tr), weights=bytes_dec(live.weights, tr),
        crossover=tr.int(live.crossover))
    match = (tr._("Measured and formula agree, byte for byte, at every step.")
             if live.measured == live.formula and live.every_step else
             tr._("Measured and formula differ: the cache holds something the formula "
                  "does not count."))
    return [f"{head} {tail}", para, match]


def live_spec(live: Live) -> Spec:
    """The live model as a Spec, so its formula line is written like every other model's."""
    return Spec(key="live", name="live", kind="MHA", n_layers=live.n_layers,
                n_heads=live.n_kv_heads, n_kv_heads=live.n_kv_heads, head_dim=live.head_dim,
                mla_dims=None, window=None, max_context=None,
                bytes_per_value=presets.PRECISIONS["fp32"].bytes_per_value,
                per_token=live.per_token, weights=live.weights, crossover=live.crossover,
                cap=None)


# -- controls --------------------------------------------------------------------------------

def model_options(tr: Translator) -> dict:
    return {tr._("{model} ({kind})", model=p.name, kind=p.attention_kind): k
            for k, p in presets.MODELS.items()}


def gpu_options(keys, tr: Translator) -> dict:
    return {tr._("{gpu} ({memory})", gpu=presets.GPUS[k].name,
                 memory=capacity(presets.GPUS[k].mem_bytes, tr)): k for k in keys}


# -- the two charts: one still frame, drawn in the browser ------------------------------------

def stage_text(tr: Translator) -> dict:
    return dict(player_text(tr), figure=tr._("The memory bill"))


def legend(spec: Spec, tr: Translator) -> list[tuple[str, str]]:
    cache = ([("cached", tr._("compressed latent (MLA)"))] if spec.is_mla else
             [("key", tr._("keys (half of the cache)")),
              ("value", tr._("values (half of the cache)"))])
    return [("weights", tr._("weights (fp16)")), *cache,
            ("text", tr._("solid line: the chosen GPU")),
            ("muted", tr._("dashed lines: other GPUs")),
            ("weights", tr._("dashed line: weights")), ("text", tr._("dot: this context"))]


def gpu_lines(bill: Bill, tr: Translator) -> str:
    groups = "; ".join(tr._("{capacity}: {names}", capacity=capacity(cap, tr),
                            names=", ".join(names)) for cap, names in bill.capacities)
    return tr._("GPU lines: {groups}.", groups=groups)


def sequences(n: int, tr: Translator) -> str:
    return tr.n_("{count} sequence", "{count} sequences", n, count=tr.int(n))


def bar_fig(spec: Spec, bill: Bill, tr: Translator) -> dict:
    """The bill as one stacked bar (weights, keys, values) against the GPUs' memory; the
    axis ends a little past the chosen GPU (or the bill, if larger)."""
    W, KV = bill.weights / GB, bill.kv / GB
    xmax = max(bill.total, bill.gpu_mem) / GB * 1.08
    ticks, digits = nice_ticks(xmax, 5)
    weights = dict(cls="weights", x0=0, x1=W, name=tr._("weights (fp16)"),
                   size=bytes_dec(bill.weights, tr))
    if spec.is_mla:
        parts = [weights, dict(cls="latent", x0=W, x1=W + KV,
                               name=tr._("compressed latent (MLA)"), size=both(bill.kv, tr))]
    else:
        parts = [weights,
                 dict(cls="key", x0=W, x1=W + KV / 2, name=tr._("keys"),
                      size=both(bill.kv / 2, tr)),
                 dict(cls="value", x0=W + KV / 2, x1=W + KV, name=tr._("values"),
                      size=both(bill.kv / 2, tr))]
    return dict(
        xmax=xmax, parts=parts, ticks=[[t, tr.num(t, digits)] for t in ticks],
        gpus=[dict(x=cap / GB, label=capacity(cap, tr), names=", ".join(names),
                   chosen=cap == bill.gpu_mem)
              for cap, names in bill.capacities if cap / GB <= xmax],
        axis=tr._("Memory (GB, 10⁹ bytes)"),
        title=tr._("The memory bill against the memory of the preset GPUs"),
        weights_label=tr._("weights {size}", size=bytes_dec(bill.weights, tr)),
        cache_label=tr._("KV cache {size}", size=both(bill.kv, tr)))


def crossing(curve: Curve, tr: Translator) -> str:
    """Where the batch's cache overtakes the weights: it answers the question, so the stage
    shows it only once the learner has answered."""
    if curve.crossover is not None:
        return tr._("The cache overtakes the weights at about {crossover} tokens.",
                    crossover=tr.int(round_sig(curve.crossover)))
    if curve.kv[-1] < curve.weights:
        return tr._("Up to {max} tokens the cache stays below the weights.",
                    max=tr.int(curve.ctx[-1]))
    return ""


def curve_fig(spec: Spec, curve: Curve, bill: Bill, tr: Translator) -> dict:
    """The batch's cache over the context, the weights' level, and this context."""
    ymax = curve.top / GB * 1.12
    yticks, yd = nice_ticks(ymax, 4)
    cross = None
    if curve.crossover is not None:
        n = int(round_sig(curve.crossover))
        cross = dict(x=curve.crossover, label=tr._("cache = weights"),
                     tokens=tr.n_("{count} token", "{count} tokens", n, count=tr.int(n)))
    return dict(
        mla=spec.is_mla, ctx=list(curve.ctx), kv=[v / GB for v in curve.kv],
        xmax=curve.ctx[-1], ymax=ymax, weights=curve.weights / GB,
        xticks=[[t, tr.int(t)] for t in X_TICKS], yticks=[[t, tr.num(t, yd)] for t in yticks],
        xaxis=tr._("Context length (tokens)"), yaxis=tr._("Memory (GB, 10⁹ bytes)"),
        title=tr.n_("KV cache of {count} sequence as the context grows, against the weights",
                    "KV cache of {count} sequences as the context grows, against the weights",
                    curve.batch, count=tr.int(curve.batch)),
        weights_label=tr._("weights {size}", size=bytes_dec(curve.weights, tr)),
        now=dict(x=bill.context, y=bill.kv / GB, label=bytes_dec(bill.kv, tr)),
        cross=cross)


def frame(spec: Spec, curve: Curve, bill: Bill, live: Live, tr: Translator) -> dict:
    """The stage's one frame: cards, both charts, their words and their table twin."""
    step = max(1, len(curve.ctx) // 8)
    return dict(
        pos="", cards=card_dicts(CARDS + MORE, values(spec, bill, live, tr), tr,
                                 labels(bill, tr)),
        caption="", lines=[gpu_lines(bill, tr)], said=crossing(curve, tr),
        desc=" ".join((
            tr._("{model}, {context} tokens × {batch}", model=spec.name,
                 context=tr.int(bill.context), batch=sequences(bill.batch, tr)) + ".",
            tr._("Weights {weights} and KV cache {cache}: {total} in all, against the "
                 "{memory} of the {gpu}.", weights=bytes_dec(bill.weights, tr),
                 cache=both(bill.kv, tr), total=bytes_dec(bill.total, tr),
                 memory=capacity(bill.gpu_mem, tr), gpu=bill.gpu_name),
            tr.n_("KV cache for {count} sequence ({model}, fp16)",
                  "KV cache for {count} sequences ({model}, fp16)", curve.batch,
                  count=tr.int(curve.batch), model=spec.name) + ".",
            tr._("At {context} tokens the cache takes {cache}; the weights take {weights}.",
                 context=tr.int(bill.context), cache=bytes_dec(bill.kv, tr),
                 weights=bytes_dec(curve.weights, tr)))),
        table=dict(head=[tr._("Context"), tr._("KV cache")],
                   rows=[[tr.int(t), bytes_dec(v, tr)]
                         for t, v in list(zip(curve.ctx, curve.kv))[::step]]),
        fig=dict(bar=bar_fig(spec, bill, tr), curve=curve_fig(spec, curve, bill, tr)))
