"""Step 5's words: the only place that translates. Pure functions of (numbers, Translator)."""
from __future__ import annotations

import json
import math
from typing import Literal, TypedDict

from explainer import planner as planner_mod
from explainer import presets
from explainer.format import bytes_bin, bytes_dec, decimal_ticks, gib
from explainer.i18n import N_, Translator

from ..ui import words as w
from ..ui import counts
from ..ui.state import Frame, StageText, Tick, WidgetState
from ..ui.words import Card, card_dicts, player_text, question_labels
from .model import (CACHE_PRECISIONS, CUSTOM, GPU_COUNTS, PARTS, RELEASED, Bill, Curve,
                    Custom, LayerMap, Live, Parsed, Problem, Spec, round_sig)

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
    Card("weights", N_("Weights: {format}")),
    Card("total", N_("Total")),
    Card("max_sequences", N_("Sequences that fit in the chosen GPU")),
)
# “All numbers”
MORE = (
    Card("per_token", N_("KV cache per token ({exact})"), more=True),
    Card("fits", N_("Fits on"), more=True),
    Card("gpu_memory", N_("Memory of the chosen GPU"), None, more=True),
    Card("crossover", N_("One sequence's cache equals the weights at"), hidden=True,
         more=True),
    Card("live_measured", N_("Live cache, measured"), "measured", more=True),
    Card("live_formula", N_("Live cache, formula"), more=True),
    Card("live_weights", N_("Live model weights (fp32)"), "measured", more=True),
)

# part B's cards: what the two precisions and the GPU set, beside the planner's table
PLAN_CARDS = (
    Card("per_token", N_("KV cache per token ({exact})")),
    Card("weights", N_("Weights: {format}")),
    Card("gpu_memory", N_("Memory of the chosen GPU"), None),
)

# how the bill counts the weights (Spec.weight_format): in the card, then in the figure
# (as released: "16-bit", "fp8", "quantized"; chosen: "16-bit", "8-bit", "4-bit")
WEIGHT_FORMATS = {"16-bit": N_("16-bit (fp16/bf16)"), "fp8": N_("fp8 as released"),
                  "quantized": N_("quantized as released"), "8-bit": N_("8-bit (fp8)"),
                  "4-bit": N_("4-bit (int4)")}
# {model} stands where no language inflects it (it may be “Your model”)
QUESTION_PROMPTS = {
    "16-bit": N_("{model}: its weights take {weights} at 16 bits (fp16/bf16). At what "
                 "context length does one sequence's KV cache outgrow them?"),
    "fp8": N_("{model}: its weights take {weights} in fp8, as released. At what context "
              "length does one sequence's KV cache outgrow them?"),
    "quantized": N_("{model}: its weights take {weights}, quantized as released. At what "
                    "context length does one sequence's KV cache outgrow them?"),
    "8-bit": N_("{model}: its weights take {weights} at 8 bits (fp8). At what context "
                "length does one sequence's KV cache outgrow them?"),
    "4-bit": N_("{model}: its weights take {weights} at 4 bits (int4). At what context "
                "length does one sequence's KV cache outgrow them?")}
# how the bill counts the weights, in words ({size}; {full}: at 16 bits; {avg}: bytes each)
WEIGHT_INFO = {
    "16-bit": N_("The bill counts its weights at 16 bits (fp16 or bf16, the same 2 bytes per "
                 "parameter): {size}."),
    "fp8": N_("Its weights are released in fp8 and the bill counts them so: {size}, about 1 "
              "byte per parameter (the embeddings and norms at 2), not {full} at 16 bits."),
    "8-bit": N_("The bill counts its weights at 8 bits (fp8, 1 byte per weight), as a serving "
                "engine stores them when it quantizes them on loading, with the embeddings and "
                "the output head kept at 16 bits: {size}, not {full} at 16 bits."),
    "4-bit": N_("The bill counts its weights at 4 bits (int4, half a byte per weight) as AWQ "
                "and GPTQ store them: each group of 128 weights also keeps a 16-bit scale and "
                "a 4-bit zero point, and the embeddings and the output head stay at 16 bits: "
                "{size}, not {full} at 16 bits.")}
# 8 and 4 bits when the config does not size the embedding (no vocab_size): all quantized
WEIGHT_INFO_ALL = {
    "8-bit": N_("The bill counts all its weights at 8 bits (fp8, 1 byte per weight): {size}, "
                "not {full} at 16 bits. Engines keep the embeddings and the output head at 16 "
                "bits, but this config does not give their size (vocab_size), so the real "
                "weights are somewhat larger."),
    "4-bit": N_("The bill counts all its weights at 4 bits (int4, half a byte per weight) with "
                "a 16-bit scale and a 4-bit zero point for each group of 128: {size}, not "
                "{full} at 16 bits. AWQ and GPTQ keep the embeddings and the output head at 16 "
                "bits, but this config does not give their size (vocab_size), so the real "
                "weights are somewhat larger.")}
WEIGHT_SHORT = {"16-bit": N_("weights (16-bit)"), "fp8": N_("weights (fp8)"),
                "quantized": N_("weights (quantized)"), "8-bit": N_("weights (fp8)"),
                "4-bit": N_("weights (int4)")}


# why a pasted config (or a link's model) cannot be used: one message per hfconfig code
PROBLEMS = {
    "not_text": N_("The config must be text."),
    "too_large": N_("“{field}” is {value}, more than {limit}: no real model is that large."),
    "markup": N_("This looks like a web page (HTML), not a config.json. Open the file's raw "
                 "view and copy its text."),
    "not_json": N_("This is not valid JSON: check line {line}, column {column} (a missing "
                   "comma or quote, or a comma too many)."),
    "duplicate_key": N_("The key “{field}” appears twice in one object."),
    "not_object": N_("“{field}” must be a JSON object of names and values in curly "
                     "brackets."),
    "missing": N_("“{field}” is missing: the cache size needs it."),
    "not_positive_int": N_("“{field}” must be a whole number of at least 1, not {value}."),
    "not_nonnegative_int": N_("“{field}” must be a whole number of at least 0, not {value}."),
    "not_bool": N_("“{field}” must be true or false, not {value}."),
    "bad_value": N_("“{field}” has a value this tool cannot use: {value}."),
    "bad_dtype": N_("“{field}” names a number format this tool does not know: {value}."),
    "kv_heads_divide": N_("“{field}” ({kv_heads}) must divide the number of attention heads "
                          "({heads})."),
    "hidden_divide": N_("“{field}” ({hidden}) is not a multiple of the number of attention "
                        "heads ({heads}), and the config has no “head_dim”."),
    "layer_types_length": N_("The length of “{field}” ({value}) is not the number of layers "
                             "({layers})."),
    "experts_range": N_("“{field}” ({per_token} per token) is more than the number of experts "
                        "({experts})."),
    "unsupported": N_("“{field}” names an attention type this tool cannot size: {value}."),
    "params_needed": N_("The size of the weights cannot be worked out from this config: "
                        "enter the parameter count, in billions, and read it again."),
    "params_too_large": N_("The sizes in this config add up to too many parameters (in "
                           "billions: {value}, more than {limit}): no real model is that "
                           "large. Check hidden_size, intermediate_size, vocab_size and the "
                           "numbers of layers and experts."),
    "not_positive_number": N_("“{field}” must be a positive number, not {value}."),
    "active_exceeds_total": N_("“{field}”: the active parameters ({active}) are more than "
                               "all the parameters ({total})."),
    "not_encodable": N_("This model uses sliding windows of different lengths in different "
                        "layers; this tool can show only one window length."),
    "no_kv_cache": N_("This model keeps a fixed-size state instead of a KV cache: “{field}” "
                      "says it has no attention layers, so nothing grows with the context "
                      "and there is no KV cache to size."),
    "encoder_decoder": N_("This is an encoder-decoder model (“{field}”): its decoder also "
                          "keeps keys and values of the encoder's output for "
                          "cross-attention. This tool sizes decoder-only models."),
    "state_unsized": N_("“{field}” names layers that keep a fixed-size state instead of a KV "
                        "cache, and this config does not give the numbers to size that "
                        "state."),
}


# -- units -----------------------------------------------------------------------------------

def exact(n: float, tr: Translator) -> str:
    return tr.bytes(int(n), "B")


def both(n: float, tr: Translator) -> str:
    return tr._("{dec} ({bin})", dec=bytes_dec(n, tr), bin=bytes_bin(n, tr))


def name(spec: Spec, tr: Translator) -> str:
    """The model's name; “your model” for a pasted config or a link's numbers."""
    return tr._("Your model") if spec.custom else spec.name


# -- the formula, the cards ------------------------------------------------------------------

def _layers(n: int, tr: Translator) -> str:
    return tr.n_("{count} layer", "{count} layers", n, count=tr.int(n))


def mla_values(spec: Spec, tr: Translator) -> str:
    """What an MLA layer caches per token: “576 values (latent and rotary key)”."""
    return tr.n_("{count} value (latent and rotary key)", "{count} values (latent and rotary key)",
                 spec.mla_dims, count=tr.int(spec.mla_dims))


def formula(spec: Spec, tokens: int, batch: int, total: str, tr: Translator,
            kept_local: int | None = None) -> tuple[str, str]:
    """`2 × 32 layers × 32 KV heads × 128 × 2 B = 512 KiB per token` and
    `× 4,096 tokens × 1 sequence = 2.1 GB`, with the model's own numbers. MLA: layers ×
    (latent + rotary key) values × bytes, no factor 2. Some layers windowed (Gemma): per
    layer and token, times the tokens each kind of layer keeps."""
    value_b = tr.bytes(spec.bytes_per_value, "B")
    per_token = bytes_bin(spec.per_token, tr)
    seqs = tr.n_("{count} sequence", "{count} sequences", batch, count=tr.int(batch))
    toks = tr.n_("{count} token", "{count} tokens", tokens, count=tr.int(tokens))
    if spec.is_mla and spec.mla_split:
        head = tr._("{layers} × (latent {latent} + rotary key {rope}) × {bytes} = "
                    "{per_token} per token", layers=_layers(spec.n_attention_layers, tr),
                    latent=tr.int(spec.mla_split[0]), rope=tr.int(spec.mla_split[1]),
                    bytes=value_b, per_token=per_token)
    elif spec.is_mla:
        head = tr._("{layers} × {dims} × {bytes} = {per_token} per token",
                    layers=_layers(spec.n_attention_layers, tr), dims=mla_values(spec, tr),
                    bytes=value_b, per_token=per_token)
    elif spec.layered:
        head = tr._("2 × {kv_heads} × {head_dim} × {bytes} = {per_layer} per layer and token",
                    kv_heads=tr.n_("{count} KV head", "{count} KV heads", spec.n_kv_heads,
                                   count=tr.int(spec.n_kv_heads)),
                    head_dim=tr.int(spec.head_dim), bytes=value_b,
                    per_layer=bytes_bin(spec.per_layer, tr))
    else:
        head = tr._("2 × {layers} × {kv_heads} × {head_dim} × {bytes} = "
                    "{per_token} per token", layers=_layers(spec.n_attention_layers, tr),
                    kv_heads=tr.n_("{count} KV head", "{count} KV heads", spec.n_kv_heads,
                                   count=tr.int(spec.n_kv_heads)),
                    head_dim=tr.int(spec.head_dim), bytes=value_b, per_token=per_token)
    if spec.layered:
        local = tokens if kept_local is None else kept_local
        tail = tr._("× ({full} × {tokens} + {local} × {kept}) × {sequences} = {total}",
                    full=tr.n_("{count} full-attention layer", "{count} full-attention layers",
                               spec.n_full_layers, count=tr.int(spec.n_full_layers)),
                    tokens=toks,
                    local=kind_layers(spec.window_kind, spec.n_window_layers, tr),
                    kept=tr.n_("{count} token", "{count} tokens", local, count=tr.int(local)),
                    sequences=seqs, total=total)
    else:
        tail = tr._("× {tokens} × {sequences} = {total}", tokens=toks, sequences=seqs,
                    total=total)
    return head, tail


def together(line: str) -> str:
    """A formula line whose result (“= 512 KiB per token”) never breaks inside: no word of it
    alone on the next line (the stylesheet's `text-wrap: pretty` keeps the rest even)."""
    before, eq, result = line.rpartition(" = ")
    return before + " =\u00a0" + result.replace(" ", "\u00a0") if eq else line


def bill_formula(spec: Spec, bill: Bill, tr: Translator,
                 lmap: LayerMap | None = None) -> tuple[str, str]:
    """The bill's formula. When the layers keep different things (`lmap`: the layer map
    at this context), its second line follows the layer kinds: one term per group. Each
    line's result stays on one line (`together`)."""
    head, tail = _bill_formula(spec, bill, tr, lmap)
    return together(head), together(tail)


def _bill_formula(spec: Spec, bill: Bill, tr: Translator,
                  lmap: LayerMap | None = None) -> tuple[str, str]:
    head, tail = formula(spec, bill.kept, bill.batch, bytes_dec(bill.kv, tr), tr,
                         bill.kept_local)
    if lmap is None or lmap.uniform:
        return head, tail
    growing = [g for g in lmap.groups if g.per_token]
    value_b = tr.bytes(spec.bytes_per_value, "B")
    if len({g.per_token for g in growing}) > 1 or not growing:
        head = tr._("Each kind of layer keeps its own tokens, at its own bytes per token:")
    elif spec.is_mla:
        head = tr._("{dims} × {bytes} = {per_layer} per layer and token",
                    dims=mla_values(spec, tr), bytes=value_b,
                    per_layer=bytes_bin(growing[0].per_token, tr))
    else:
        head = tr._("2 × {kv_heads} × {head_dim} × {bytes} = {per_layer} per layer and token",
                    kv_heads=tr.n_("{count} KV head", "{count} KV heads", spec.n_kv_heads,
                                   count=tr.int(spec.n_kv_heads)),
                    head_dim=tr.int(spec.head_dim), bytes=value_b,
                    per_layer=bytes_bin(growing[0].per_token, tr))
    return head, layers_tail(lmap, bill.batch, bytes_dec(bill.kv, tr), tr)


def fits(bill: Bill, tr: Translator) -> str:
    if bill.fits_gpu is None:
        return tr._("no single GPU of the presets")
    return tr._("{capacity} GPU ({names})", capacity=gib(bill.fits_gib, tr),
                names=", ".join(bill.fits_names))


def crossover_tokens(x: float | None, tr: Translator) -> str:
    return tr._("Never") if x is None else about_tokens(round_sig(x), tr)


def gpu_memory(bill: Bill, tr: Translator) -> str:
    return tr._("{gib} = {gb}", gib=gib(bill.gpu_gib, tr), gb=bytes_dec(bill.gpu_mem, tr))


def values(spec: Spec, bill: Bill, live: Live, tr: Translator) -> dict:
    """Every card's value, keyed by its data-metric key."""
    return dict(
        kv_cache=both(bill.kv, tr), weights=bytes_dec(bill.weights, tr),
        total=bytes_dec(bill.total, tr), max_sequences=tr.int(bill.max_sequences),
        per_token=bytes_bin(bill.per_token, tr), fits=fits(bill, tr),
        gpu_memory=gpu_memory(bill, tr),
        crossover=crossover_tokens(spec.crossover, tr),
        live_measured=exact(live.measured, tr), live_formula=exact(live.formula, tr),
        live_weights=bytes_dec(live.weights, tr))


def weights_short(spec: Spec, tr: Translator) -> str:
    return tr._(WEIGHT_SHORT[spec.weight_format])


def labels(bill: Bill, tr: Translator, spec: Spec | None = None) -> dict:
    """Card labels that carry numbers (and the weights' format, when `spec` is given)."""
    fmt = spec.weight_format if spec is not None else "16-bit"
    return dict(
        weights=tr._("Weights: {format}", format=tr._(WEIGHT_FORMATS[fmt])),
        per_token=tr._("KV cache per token ({exact})", exact=exact(bill.per_token, tr)),
        max_sequences=tr.n_("Sequences of {context} token that fit in the {gpu}",
                            "Sequences of {context} tokens that fit in the {gpu}",
                            bill.context, context=tr.int(bill.context), gpu=bill.gpu_name))


# -- the question ----------------------------------------------------------------------------

def about_tokens(n: float, tr: Translator) -> str:
    """An option of the question: “≈ 4,000 tokens”."""
    return tr.n_("≈ {count} token", "≈ {count} tokens", round(n), count=tr.int(n))


def question(spec: Spec, tr: Translator) -> dict:
    """Built from the chosen model: its weights, its cache per token."""
    weights = bytes_dec(spec.weights, tr)
    model = name(spec, tr)
    free = spec.weights / spec.per_token          # where an unbounded cache would cross
    if spec.crossover is not None:
        c = spec.crossover
        options = [about_tokens(round_sig(c / 6, 1), tr), about_tokens(round_sig(c, 2), tr),
                   about_tokens(round_sig(c * 8, 1), tr)]
        correct = 1
        if spec.layered and c > spec.window:
            explain = " ".join((
                tr.n_("{model}: each token adds {per_token} to the cache until the sequence "
                      "is {window} token long.", "{model}: each token adds {per_token} to the "
                      "cache until the sequence is {window} tokens long.", spec.window,
                      per_token=exact(spec.per_token, tr), model=model,
                      window=tr.int(spec.window)),
                tr.n_("After that only its {full} full-attention layer keeps growing, by "
                      "{growth} per token.", "After that only its {full} full-attention "
                      "layers keep growing, by {growth} per token.", spec.n_full_layers,
                      full=tr.int(spec.n_full_layers),
                      growth=exact(spec.per_layer * spec.n_full_layers, tr)),
                tr.n_("So one sequence's cache matches the weights ({weights}) at about "
                      "{crossover} token.", "So one sequence's cache matches the weights "
                      "({weights}) at about {crossover} tokens.", round_sig(c),
                      weights=exact(spec.weights, tr), crossover=tr.int(round_sig(c)))))
        else:
            explain = tr.n_("{model}: each token adds {per_token} to the cache, so one "
                            "sequence's cache matches the weights at {weights} ÷ {per_token} ≈ "
                            "{crossover} token. Past that, one long conversation needs more "
                            "memory than the whole model.",
                            "{model}: each token adds {per_token} to the cache, so one "
                            "sequence's cache matches the weights at {weights} ÷ {per_token} ≈ "
                            "{crossover} tokens. Past that, one long conversation needs more "
                            "memory than the whole model.", round_sig(c),
                            per_token=exact(spec.per_token, tr), model=model,
                            weights=exact(spec.weights, tr), crossover=tr.int(round_sig(c)))
        if spec.max_context is not None and c > spec.max_context:
            explain += " " + tr.n_("{model} itself handles at most {max} token, so that "
                                   "length is hypothetical for it; the arithmetic is the same.",
                                   "{model} itself handles at most {max} tokens, so that "
                                   "length is hypothetical for it; the arithmetic is the same.",
                                   spec.max_context, model=model, max=tr.int(spec.max_context))
    else:
        options = [about_tokens(round_sig(free, 2), tr), about_tokens(round_sig(free * 8, 1), tr),
                   tr._("Never")]
        correct = 2
        explain = tr.n_("{model} keeps only the last {window} token of every sequence (a "
                        "sliding window), so one sequence's cache stops growing at {cap}, "
                        "below the {weights} of its weights: it never outgrows them.",
                        "{model} keeps only the last {window} tokens of every sequence (a "
                        "sliding window), so one sequence's cache stops growing at {cap}, "
                        "below the {weights} of its weights: it never outgrows them.",
                        spec.window, model=model, window=tr.int(spec.window),
                        cap=bytes_dec(spec.cap, tr), weights=weights)
    return dict(
        key=("step5", spec.key, spec.per_token, spec.weights, spec.window),
        prompt=tr._(QUESTION_PROMPTS[spec.weight_format], model=model, weights=weights),
        options=options, correct=correct, explain=explain,
        # the crossing on the curve, or (a sliding window: never) the weights' line it stays under
        points=["crossover"] if spec.crossover is not None else ["weights"],   # js/draw/bill.js
        **question_labels(tr))


# -- sentences -------------------------------------------------------------------------------

def headings(tr: Translator) -> dict[str, str]:
    """The headings over the live model's lines and over the cache formula."""
    return dict(live=tr._("The live model on this server"), formula=tr._("Cache formula"))


def lead(tr: Translator) -> str:
    return tr._("Weights are paid once; the cache is paid for every token of every sequence.")


def model_info(spec: Spec, tr: Translator) -> str:
    kind_name = tr._(ATTENTION_NAMES[spec.kind])
    model = name(spec, tr)
    if spec.is_mla and spec.mla_split:
        info = tr.n_("{model}: {kind} ({kind_name}), {layers}; per layer and token it caches "
                     "{dims} value: a {latent}-value compressed latent and a {rope}-value "
                     "rotary key.", "{model}: {kind} ({kind_name}), {layers}; per layer and "
                     "token it caches {dims} values: a {latent}-value compressed latent and a "
                     "{rope}-value rotary key.", spec.mla_dims, model=model, kind=spec.kind,
                     kind_name=kind_name, layers=_layers(spec.n_layers, tr),
                     dims=tr.int(spec.mla_dims), latent=tr.int(spec.mla_split[0]),
                     rope=tr.int(spec.mla_split[1]))
    elif spec.is_mla:
        info = tr.n_("{model}: {kind} ({kind_name}), {layers}; per layer and token it caches "
                     "{dims} value: a compressed latent and a rotary key.",
                     "{model}: {kind} ({kind_name}), {layers}; per layer and token it caches "
                     "{dims} values: a compressed latent and a rotary key.", spec.mla_dims,
                     model=model, kind=spec.kind, kind_name=kind_name,
                     layers=_layers(spec.n_layers, tr), dims=tr.int(spec.mla_dims))
    else:
        info = tr._("{model}: {kind} ({kind_name}), {layers}, {q_heads}, {kv_heads}, "
                    "head_dim {head_dim}.", model=model, kind=spec.kind, kind_name=kind_name,
                    layers=_layers(spec.n_layers, tr),
                    q_heads=counts.query_heads(spec.n_heads, tr),
                    kv_heads=counts.kv_heads(spec.n_kv_heads, tr),
                    head_dim=tr.int(spec.head_dim))
    return " ".join([info, weights_info(spec, tr)])


def weights_info(spec: Spec, tr: Translator) -> str:
    """How the bill counts the weights (WEIGHT_INFO): as released (16-bit, fp8, or another
    quantization named by the config) or at the precision chosen; and, for a multimodal
    model, that the parameters are its language model's."""
    full = bytes_dec(2 * spec.n_params, tr)
    if spec.weight_format == "quantized":
        avg = spec.weights / spec.n_params
        out = tr.n_("Its weights are released quantized and the bill counts them so: {size}, "
                    "{avg} byte per parameter on average, not {full} at 16 bits.",
                    "Its weights are released quantized and the bill counts them so: {size}, "
                    "{avg} bytes per parameter on average, not {full} at 16 bits.",
                    tr.sig_count(avg, 2), size=bytes_dec(spec.weights, tr), full=full,
                    avg=tr.sig(avg, 2))
    else:
        info = (WEIGHT_INFO_ALL if not spec.embed_known and spec.weight_format in
                WEIGHT_INFO_ALL else WEIGHT_INFO)
        out = tr._(info[spec.weight_format], size=bytes_dec(spec.weights, tr), full=full)
    if spec.multimodal:
        out += " " + tr._("It is a multimodal model: the parameters counted are its language "
                          "model's, without its image encoder's.")
    return out


def notices(spec: Spec, bill: Bill, tr: Translator, waiting: bool = False,
            box: bool = True) -> list[str]:
    """The bill's notices; `waiting`: “your model” is chosen and there is none yet (`box`:
    its box is on this part's page, else it is part B's)."""
    out = []
    if waiting and box:
        out.append(tr._("No model of yours yet: paste its config.json below and read it. "
                        "Until then the numbers are those of {model}.", model=spec.name))
    elif waiting:
        out.append(tr._("No model of yours yet: paste its config.json in part B, “Plan a "
                        "server”, and read it. Until then the numbers are those of {model}.",
                        model=spec.name))
    total, memory = bytes_dec(bill.total, tr), gib(bill.gpu_gib, tr)
    model = name(spec, tr)
    if bill.free <= 0:
        out.append(tr._("The weights alone ({weights}) are larger than the {gpu}'s "
                        "{memory}: the model would have to be split over several GPUs.",
                        weights=bytes_dec(bill.weights, tr), gpu=bill.gpu_name,
                        memory=memory))
    elif not bill.fits_selected and bill.max_sequences == 0:
        out.append(tr.n_("This batch needs {total}, more than the {gpu}'s {memory}: not "
                         "even one sequence of {context} token fits next to the weights.",
                         "This batch needs {total}, more than the {gpu}'s {memory}: not "
                         "even one sequence of {context} tokens fits next to the weights.",
                         bill.context, total=total, gpu=bill.gpu_name, memory=memory,
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
    if bill.beyond_max_context and spec.custom:
        out.append(" ".join((
            tr.n_("Your model's config allows at most {max} position.",
                  "Your model's config allows at most {max} positions.", spec.max_context,
                  max=tr.int(spec.max_context)),
            counts.hypothetical(bill.context, tr))))
    elif bill.beyond_max_context:
        out.append(counts.context_notice(model, spec.max_context, bill.context, tr))
    return out


def narration(spec: Spec, bill: Bill, tr: Translator) -> list[str]:
    paras = []
    model = name(spec, tr)
    if not spec.is_mla:
        paras.append(tr._(
            "Every token leaves one key vector and one value vector in every layer, for every "
            "key/value head. So one token costs 2 × layers × KV heads × head_dim × bytes per "
            "value, and a sequence costs that times its tokens."))
    q, kvh = tr.int(spec.n_heads), tr.int(spec.n_kv_heads)
    if spec.kind == "MHA":
        paras.append(tr.n_(
            "{model} uses multi-head attention (MHA): its {q_heads} query head has its own "
            "key/value head, so it caches {kv_heads} per layer.",
            "{model} uses multi-head attention (MHA): each of its {q_heads} query heads has "
            "its own key/value head, so it caches {kv_heads} per layer.", spec.n_heads,
            model=model, q_heads=q, kv_heads=kvh))
    elif spec.kind == "GQA":
        paras.append(tr._(
            "{model} uses grouped-query attention (GQA): its query heads ({q_heads}) share "
            "fewer key/value heads ({kv_heads}), so its cache is {ratio} smaller than if "
            "every query head had its own. The formula counts KV heads, never the model "
            "width.", model=model, q_heads=q, kv_heads=kvh,
            ratio=tr.times(spec.n_heads / spec.n_kv_heads, 0)))
    elif spec.kind == "MQA":
        paras.append(tr.n_(
            "{model} uses multi-query attention (MQA): its {q_heads} query head has one "
            "key/value head, so its cache is {ratio} smaller than with one per query head.",
            "{model} uses multi-query attention (MQA): all {q_heads} query heads share one "
            "key/value head, so its cache is {ratio} smaller than with one per query head.",
            spec.n_heads, model=model, q_heads=q, ratio=tr.times(spec.n_heads, 0)))
    elif spec.mla_split:
        paras.append(tr.n_(
            "{model} uses multi-head latent attention (MLA): instead of a key and a value per "
            "head it caches, per layer and token, a {latent}-value compressed latent plus a "
            "{rope}-value rotary key shared by all heads: {dims} value, with no factor 2. "
            "Keys and values without position come from the latent; optimised kernels "
            "attend to the latent directly instead of rebuilding them.",
            "{model} uses multi-head latent attention (MLA): instead of a key and a value per "
            "head it caches, per layer and token, a {latent}-value compressed latent plus a "
            "{rope}-value rotary key shared by all heads: {dims} values, with no factor 2. "
            "Keys and values without position come from the latent; optimised kernels "
            "attend to the latent directly instead of rebuilding them.", spec.mla_dims,
            model=model, latent=tr.int(spec.mla_split[0]), rope=tr.int(spec.mla_split[1]),
            dims=tr.int(spec.mla_dims)))
    else:
        paras.append(tr.n_(
            "{model} uses multi-head latent attention (MLA): instead of a key and a value per "
            "head it caches, per layer and token, {dims} value, a compressed latent plus a "
            "small rotary key shared by all heads, with no factor 2.",
            "{model} uses multi-head latent attention (MLA): instead of a key and a value per "
            "head it caches, per layer and token, {dims} values, a compressed latent plus a "
            "small rotary key shared by all heads, with no factor 2.", spec.mla_dims,
            model=model, dims=tr.int(spec.mla_dims)))
    if spec.layered and spec.chunked:
        # truth3 N13: a chunked layer (Llama 4's attention_chunk_size) attends within its
        # current chunk, not to the last W tokens; the cache keeps at most one chunk
        paras.append(" ".join((
            tr._("{model} mixes two kinds of layer: {local} and {full}.", model=model,
                 local=kind_layers("chunked", spec.n_window_layers, tr),
                 full=kind_layers("full", spec.n_full_layers, tr)),
            tr.n_("Each chunked-attention layer attends only to the tokens of its current "
                  "chunk of {window} token, starting again at each chunk's boundary, and "
                  "keeps no more than one chunk; each full one attends to the whole context.",
                  "Each chunked-attention layer attends only to the tokens of its current "
                  "chunk of {window} tokens, starting again at each chunk's boundary, and "
                  "keeps no more than one chunk; each full one attends to the whole context.",
                  spec.window, window=tr.int(spec.window)),
            tr.n_("So its cache still grows with every token, only more slowly: each chunked "
                  "layer keeps at most {kept} token, each full one {context}.",
                  "So its cache still grows with every token, only more slowly: each chunked "
                  "layer keeps at most {kept} tokens, each full one {context}.",
                  bill.kept_local, kept=tr.int(bill.kept_local),
                  context=tr.int(bill.context)))))
    elif spec.layered:
        paras.append(" ".join((
            tr._("{model} mixes two kinds of layer: {local} and {full}.", model=model,
                 local=kind_layers("sliding", spec.n_window_layers, tr),
                 full=kind_layers("full", spec.n_full_layers, tr)),
            tr.n_("Each sliding-window layer attends only to the last {window} token and keeps "
                  "no more than that; each full one attends to the whole context.",
                  "Each sliding-window layer attends only to the last {window} tokens and "
                  "keeps no more than that; each full one attends to the whole context.",
                  spec.window, window=tr.int(spec.window)),
            tr.n_("So its cache still grows with every token, only more slowly: each windowed "
                  "layer keeps {kept} token, each full one {context}.",
                  "So its cache still grows with every token, only more slowly: each windowed "
                  "layer keeps {kept} tokens, each full one {context}.", bill.kept_local,
                  kept=tr.int(bill.kept_local), context=tr.int(bill.context)))))
    elif spec.window is not None and bill.context > spec.window:
        paras.append(" ".join((
            tr.n_("{model} attends only to the last {window} token (a sliding window), so its "
                  "cache stops growing there.", "{model} attends only to the last {window} "
                  "tokens (a sliding window), so its cache stops growing there.", spec.window,
                  model=model, window=tr.int(spec.window)),
            tr.n_("It keeps {kept} of the {context} token.",
                  "It keeps {kept} of the {context} tokens.", bill.context,
                  kept=tr.int(bill.kept), context=tr.int(bill.context)),
            tr.n_("Each layer looks {window} token back into the layer below.",
                  "Each layer looks {window} tokens back into the layer below.", spec.window,
                  window=tr.int(spec.window)),
            tr.n_("So information still travels about {window} × {layers} ≈ {reach} token "
                  "back; only the cache is capped.", "So information still travels about "
                  "{window} × {layers} ≈ {reach} tokens back; only the cache is capped.",
                  spec.window * spec.n_layers, window=tr.int(spec.window),
                  layers=tr.int(spec.n_layers), reach=tr.int(spec.window * spec.n_layers)))))
    if bill.free > 0:
        paras.append(tr.n_(
            "The weights are paid once, however many sequences the server runs; the cache "
            "is paid again for every sequence and grows with every token. So the batch a "
            "server can run is roughly its free memory divided by the cache of one "
            "sequence: on the {gpu}, {free} ÷ {per_seq} ≈ {count} sequence at context length "
            "{context}.",
            "The weights are paid once, however many sequences the server runs; the cache "
            "is paid again for every sequence and grows with every token. So the batch a "
            "server can run is roughly its free memory divided by the cache of one "
            "sequence: on the {gpu}, {free} ÷ {per_seq} ≈ {count} sequences at context length "
            "{context}.",
            bill.max_sequences, gpu=bill.gpu_name, free=bytes_dec(bill.free, tr),
            per_seq=bytes_dec(bill.per_sequence, tr), count=tr.int(bill.max_sequences),
            context=tr.int(bill.context)))
    else:
        paras.append(tr._(
            "The weights are paid once, the cache once per sequence. On the {gpu} even the "
            "weights ({weights}) do not fit in its {memory}, so no sequence does.",
            gpu=bill.gpu_name, weights=bytes_dec(bill.weights, tr),
            memory=gib(bill.gpu_gib, tr)))
    paras.append(tr._(
        "Not included: activations, the runtime's own buffers and memory fragmentation, so "
        "a real server fits somewhat fewer sequences than this estimate."))
    return paras


def look(tr: Translator) -> str:
    """What to press and watch (visible)."""
    return tr._("Move the context and batch sliders: the bar adds the cache to the weights "
                "against the memory of the GPUs, and the curve shows the cache growing with "
                "the context.")


def layers(spec: Spec, bill: Bill, tr: Translator) -> dict[str, list[str]]:
    """The words in layers: `visible` (the formula in words, what to press) and `why` (the
    model's kind of attention, its window, the batch that fits, what is left out)."""
    paras = narration(spec, bill, tr)
    first = 0 if spec.is_mla else 1            # MLA has no per-head formula in words
    return dict(visible=paras[:first] + [look(tr)], why=paras[first:])


def units(bill: Bill, tr: Translator) -> str:
    return tr.n_(
        "Units: GB means 10⁹ bytes and GiB means 2³⁰ bytes, {more} more. This cache is "
        "{exact} byte, which is {dec} or {bin}: always check which unit a figure uses.",
        "Units: GB means 10⁹ bytes and GiB means 2³⁰ bytes, {more} more. This cache is "
        "{exact} bytes, which is {dec} or {bin}: always check which unit a figure uses.",
        round(bill.kv), more=tr.pct(presets.GiB / presets.GB - 1, 1), exact=tr.int(bill.kv),
        dec=bytes_dec(bill.kv, tr), bin=bytes_bin(bill.kv, tr))


def binary_note(bill: Bill, tr: Translator) -> str:
    """Truth #6: the vendors' “GB” of GPU memory are GiB; the lines are drawn there."""
    out = tr._("GPU makers count memory in binary units: the {gpu}, sold with {n} “GB”, "
               "holds {gib} = {gb}, and its line is drawn there.", gpu=bill.gpu_name,
               n=tr.int(bill.gpu_gib), gib=gib(bill.gpu_gib, tr),
               gb=bytes_dec(bill.gpu_mem, tr))
    usable = presets.GPUS[bill.gpu].usable_bytes
    if usable is not None and usable < bill.gpu_mem:
        # truth3 O-1: the driver keeps some (ECC, its own reserve); programs get nvidia-smi's
        # total, and the planner's engine share (part B) is a share of that
        out += " " + tr._("Programs get a little less: the driver reports {usable} ({mib}), "
                          "and part B's planner starts from that.",
                          usable=tr.bytes(usable, "GiB", 1),
                          mib=tr.bytes(usable, "MiB", 0))
    return out


def live_lines(live: Live, tr: Translator) -> list[str]:
    """The live model's cache: its formula with its own numbers, measured against it."""
    head, tail = formula(live_spec(live), live.tokens, 1, exact(live.formula, tr), tr)
    para = " ".join((
        tr.n_("The live model on this server ({layers}, {kv_heads}, head_dim {head_dim}, fp32 "
              "= 4 bytes per value) stores {per_token} per token. After the prompt and its "
              "next tokens its cache holds {count} token: {measured} measured on the real "
              "tensors, {formula} from the formula.",
              "The live model on this server ({layers}, {kv_heads}, head_dim {head_dim}, fp32 "
              "= 4 bytes per value) stores {per_token} per token. After the prompt and its "
              "next tokens its cache holds {count} tokens: {measured} measured on the real "
              "tensors, {formula} from the formula.",
              live.tokens, layers=_layers(live.n_layers, tr),
              kv_heads=counts.kv_heads(live.n_kv_heads, tr), head_dim=tr.int(live.head_dim),
              per_token=bytes_bin(live.per_token, tr), count=tr.int(live.tokens),
              measured=exact(live.measured, tr), formula=exact(live.formula, tr)),
        tr.n_("Its weights take {weights}, so its cache would outgrow them after about "
              "{crossover} token.", "Its weights take {weights}, so its cache would outgrow "
              "them after about {crossover} tokens.", live.crossover,
              weights=bytes_dec(live.weights, tr), crossover=tr.int(live.crossover))))
    match = (tr._("Measured and formula agree, byte for byte, at every step.")
             if live.measured == live.formula and live.every_step else
             tr._("Measured and formula differ: the cache holds something the formula "
                  "does not count."))
    return [f"{head} {tail}", para, match]


def live_spec(live: Live) -> Spec:
    """The live model as a Spec, so its formula line is written like every other model's."""
    return Spec(key="live", name="live", kind="MHA", n_layers=live.n_layers,
                n_heads=live.n_kv_heads, n_kv_heads=live.n_kv_heads, head_dim=live.head_dim,
                mla_dims=None, mla_split=None, window=None, n_window_layers=0,
                n_full_layers=live.n_layers,
                max_context=None,
                bytes_per_value=presets.PRECISIONS["fp32"].bytes_per_value,
                per_token=live.per_token, per_layer=live.per_token // live.n_layers,
                n_params=live.weights / 4, dtype="fp32", weights=live.weights,
                crossover=live.crossover, cap=None, precision="fp32")


# -- your model: what was read, and why it could not be --------------------------------------

def _value(v) -> str:
    """A config value as it is written in JSON (a long list is only counted)."""
    if isinstance(v, list):
        return f"[… {len(v)}]"
    if isinstance(v, dict):
        return "{…}"
    if isinstance(v, str):
        return json.dumps(v[:40], ensure_ascii=False)
    return json.dumps(v)


def _arg(v, tr: Translator) -> str:
    """A number in a message in the locale's format; anything else as the learner wrote it."""
    if isinstance(v, bool) or v is None:
        return json.dumps(v)
    if isinstance(v, int):
        return tr.int(v)
    if isinstance(v, float):
        if not math.isfinite(v):
            return str(v)
        return tr.int(v) if v.is_integer() and abs(v) < 1e18 else tr.sig(v, 3)
    return str(v)


# codes that ask for a number: their value is shown as the number or text it was
NUMBER_CODES = frozenset({"not_positive_int", "not_nonnegative_int", "not_positive_number"})


def problem_text(p: Problem, tr: Translator) -> str:
    """One translated sentence naming the field at fault (never a traceback)."""
    vals = dict(p.values)
    field = p.field
    if field == "n_params":             # the parameter count typed in, in billions
        field = params_label(tr)
        vals = {k: v / 1e9 if isinstance(v, (int, float)) and not isinstance(v, bool) and
                k in ("value", "limit") else v for k, v in vals.items()}
    kw = {k: _arg(v, tr) for k, v in vals.items()}
    v = vals.get("value")
    if p.code in NUMBER_CODES and isinstance(v, str):
        # "32" in quotes is text, not the number 32 (truth2 C-12)
        kw["value"] = tr._("the text “{text}”", text=v[:40])
    elif (p.code in NUMBER_CODES and p.field != "n_params" and isinstance(v, float)
          and math.isfinite(v) and v.is_integer() and abs(v) < 1e18):
        kw["value"] = tr.num(v, 1)        # a config's 32.0, not 32: JSON's 32.0 is no int
    kw.setdefault("value", "")
    if p.code == "too_large" and field == "config":
        msg = tr.n_("The text is too long ({value} character; a config.json has a few "
                    "thousand, at most {limit} are read).", "The text is too long ({value} "
                    "characters; a config.json has a few thousand, at most {limit} are read).",
                    v if isinstance(v, int) else 0, value=kw["value"],
                    limit=kw.get("limit", ""))
    elif p.code == "not_object" and field == "config":
        msg = tr._("The text must be one JSON object of names and values in curly brackets, "
                   "as a config.json is.")
    elif p.code == "missing" and field == "config":
        msg = tr._("The text is empty: paste the contents of a config.json.")
    elif p.code == "not_json" and p.value_map.get("line") is None:
        msg = tr._("This is not valid JSON (a number with too many digits, or nesting too "
                   "deep).")
    elif p.code == "bad_value" and not p.values:
        msg = tr._("This config cannot be read.")
    elif p.code == "no_kv_cache" and field.split(".")[-1] in ("num_attention_heads", "n_head",
                                                              "n_heads"):
        # truth3 N23: the field is absent (a mamba_ssm config: ssm_cfg, no model_type), so it
        # says nothing; what says it is a state-space model is the absence and the state fields
        msg = tr._("This model keeps a fixed-size state instead of a KV cache: the config has "
                   "no attention heads (no “{field}”) and describes a state-space model "
                   "instead, so nothing grows with the context and there is no KV cache to "
                   "size.", field=field)
    elif p.code in PROBLEMS:
        needed = dict(field=field, value="", limit="", line="", column="", kv_heads="",
                      heads="", hidden="", layers="", per_token="", experts="", active="",
                      total="")
        msg = tr._(PROBLEMS[p.code], **{**needed, **kw, "field": field})
    else:
        msg = tr._("“{field}” cannot be used here.", field=field)
    if p.source == "link":
        return tr._("The model in the link is not valid: {problem}", problem=msg)
    return msg


def params_label(tr: Translator) -> str:
    return tr._("Parameters in billions (if the config cannot give them)")


class ConfigCustom(WidgetState):
    """Step 5's “your model” box (js/draw/config.js; `view.Step5.your_model` fills it)."""
    widget: Literal["config"]
    label: str
    placeholder: str
    value: str               # the config.json as pasted
    max_length: int
    params_label: str
    params_value: float | None   # the parameters in billions (null: counted from the config)
    read: str                # the Read button
    problems: list[str]      # why the config could not be used (notices)
    fields: list[str]        # what was read, the formula with their values (paragraphs)


def custom_lines(parsed: Parsed | None, link: Custom, spec: Spec, bill: Bill,
                 tr: Translator) -> tuple[list[str], list[str]]:
    """(paragraphs, notices) of the “your model” panel: the fields read, the formula with
    their values, or why the config (or the link's model) could not be used."""
    notes = []
    if parsed is not None and parsed.problem is not None:
        notes.append(problem_text(parsed.problem, tr))
    if link.problem is not None:
        notes.append(problem_text(link.problem, tr))
    if not spec.custom:
        return [], notes
    paras = []
    from_config = parsed is not None and parsed.ok and parsed.encoded == encoded_of(link)
    if from_config:
        paras.append(tr._("Read from your config.json: {fields}.",
                          fields="; ".join(f"{k} = {_value(v)}" for k, v in parsed.fields)))
        if parsed.defaults:
            paras.append(tr._("Not in the config, so assumed: {fields}.",
                              fields="; ".join(f"{k} = {_value(v)}"
                                               for k, v in parsed.defaults)))
        names = dict(parsed.fields)
    else:
        paras.append(tr._("From the link: {fields}.",
                          fields="; ".join(f"{k} = {v}" for k, v in link.query)))
        names = None
    paras.append(symbolic(spec, names, bill, tr))
    if from_config:
        paras += quantization_lines(dict(parsed.fields), spec, tr)
    if spec.max_context is None:
        paras.append(tr._("The config does not say how long a context the model handles."))
    elif from_config:
        paras.append(tr._("{field} = {max} is the most positions the config allows; the model "
                          "may have been trained on fewer (its model card says).",
                          field=_field(names, "ctx", "model_max_length",
                                       "max_position_embeddings", "n_positions",
                                       "max_sequence_length", "seq_length"),
                          max=tr.int(spec.max_context)))
    return paras, notes


def quantization_lines(fields: dict, spec: Spec, tr: Translator) -> list[str]:
    """What the config's quantization_config means for the weights' bytes."""
    q = next((v for k, v in fields.items() if k.split(".")[-1] == "quantization_config"),
             None)
    if not isinstance(q, dict) or not isinstance(q.get("quant_method"), str):
        return []
    method = q["quant_method"][:20]
    if spec.weight_choice != RELEASED:
        return [tr._("quantization_config: “{method}”. The bill counts the weights at the "
                     "precision you chose: {size}.", method=method,
                     size=bytes_dec(spec.weights, tr))]
    if spec.weight_format == "16-bit":
        return [tr._("quantization_config names “{method}”, which this tool cannot size: the "
                     "bill counts the weights at 16 bits.", method=method)]
    return [tr._("quantization_config: “{method}”. The bill counts the weights as released, "
                 "{size}.", method=method, size=bytes_dec(spec.weights, tr))]


def encoded_of(link: Custom) -> str:
    return "_".join(f"{k}-{v}" for k, v in link.query)


def _field(names: dict | None, link_key: str, *candidates: str) -> str:
    """The config key a number came from (as it was read, e.g. text_config.head_dim), or
    the link's key."""
    if names is None:
        return link_key
    for c in candidates:
        for k in names:
            if k == c or k.endswith("." + c):
                return k
    return candidates[0]


def symbolic(spec: Spec, names: dict | None, bill: Bill, tr: Translator) -> str:
    """The cache formula in the config's own field names, then with their values."""
    b = tr.bytes(spec.bytes_per_value, "B")
    layers = _field(names, "layers", "num_hidden_layers", "n_layer", "num_layers")
    if spec.is_mla:
        if spec.mla_split:
            lat = _field(names, "mla", "kv_lora_rank")
            rope = _field(names, "rope", "qk_rope_head_dim")
            words = f"{layers} × ({lat} + {rope}) × {b}"
            nums = (f"{tr.int(spec.n_layers)} × ({tr.int(spec.mla_split[0])} + "
                    f"{tr.int(spec.mla_split[1])}) × {b}")
        else:
            words = f"{layers} × mla × {b}"
            nums = f"{tr.int(spec.n_layers)} × {tr.int(spec.mla_dims)} × {b}"
        return tr._("Cache per token, no factor 2 for MLA: {words} = {numbers} = {per_token}.",
                    words=words, numbers=nums, per_token=exact(spec.per_token, tr))
    kv = _field(names, "kv", "num_key_value_heads", "num_kv_heads")
    if names is not None and not any(k.endswith(("num_key_value_heads", "num_kv_heads"))
                                     for k in names):
        if spec.n_kv_heads == 1 and spec.n_heads > 1:
            kv = "1 (multi_query)"
        else:
            kv = _field(names, "heads", "num_attention_heads", "n_head", "num_heads")
    if names is None or any(k.endswith("head_dim") and "rope" not in k for k in names):
        hd = _field(names, "hd", "head_dim")
    else:
        hd = "({} ÷ {})".format(_field(names, "", "hidden_size", "n_embd", "d_model"),
                                _field(names, "", "num_attention_heads", "n_head", "num_heads"))
    if spec.layered:
        words = f"2 × {kv} × {hd} × {b}"
        nums = f"2 × {tr.int(spec.n_kv_heads)} × {tr.int(spec.head_dim)} × {b}"
        if spec.chunked:                # truth3 N13: chunks, from attention_chunk_size
            return tr._("Cache per layer and token: {words} = {numbers} = {per_layer}. Tokens "
                        "kept: full-attention layers ({full}) every one, chunked-attention "
                        "layers ({local}) at most one chunk of {window} ({field}).",
                        words=words, numbers=nums, per_layer=exact(spec.per_layer, tr),
                        full=tr.int(spec.n_full_layers), local=tr.int(spec.n_window_layers),
                        window=tr.int(spec.window),
                        field=_field(names, "chunk", "attention_chunk_size"))
        return tr._("Cache per layer and token: {words} = {numbers} = {per_layer}. Tokens "
                    "kept: full-attention layers ({full}) every one, sliding-window layers "
                    "({local}) at most {window} ({field}).", words=words,
                    numbers=nums, per_layer=exact(spec.per_layer, tr),
                    full=tr.int(spec.n_full_layers), local=tr.int(spec.n_window_layers),
                    window=tr.int(spec.window),
                    field=_field(names, "win", "sliding_window"))
    if spec.n_attention_layers < spec.n_layers:
        # a hybrid, or cross-attention / shared layers: the product runs over the layers
        # that cache K and V per token, and the line says which those are (truth3 N5)
        attention = tr._("attention layers")
        words = f"2 × {attention} × {kv} × {hd} × {b}"
        nums = (f"2 × {tr.int(spec.n_attention_layers)} × {tr.int(spec.n_kv_heads)} × "
                f"{tr.int(spec.head_dim)} × {b}")
        return tr.n_("Cache per token: {words} = {numbers} = {per_token}. Keys and values are "
                     "kept per token in only {count} of the {total} layer ({layers}); the "
                     "others keep nothing that grows with the context.",
                     "Cache per token: {words} = {numbers} = {per_token}. Keys and values are "
                     "kept per token in only {count} of the {total} layers ({layers}); the "
                     "others keep nothing that grows with the context.", spec.n_layers,
                     words=words, numbers=nums, per_token=exact(spec.per_token, tr),
                     count=tr.int(spec.n_attention_layers), total=tr.int(spec.n_layers),
                     layers=layers)
    words = f"2 × {layers} × {kv} × {hd} × {b}"
    nums = (f"2 × {tr.int(spec.n_layers)} × {tr.int(spec.n_kv_heads)} × "
            f"{tr.int(spec.head_dim)} × {b}")
    return tr._("Cache per token: {words} = {numbers} = {per_token}.", words=words,
                numbers=nums, per_token=exact(spec.per_token, tr))


# -- the layer map ---------------------------------------------------------------------------

# what one kind of layer is, by LayerGroup.kind ({span}: its window or chunk, in tokens)
KIND_NAMES = {
    "full": N_("full attention"),
    "sliding": N_("sliding window of {span}"),
    "chunked": N_("chunked attention, chunks of {span}"),
    "mla": N_("latent attention (MLA)"),
    "cross": N_("cross-attention to the image (fixed, not per text token)"),
    "shared": N_("reuses another layer's keys and values"),
    "state": N_("fixed-size state (SSM or linear attention)"),
    "none": N_("no attention"),
}
def kind_name(g, tr: Translator) -> str:
    """A layer group's kind in words (its window or chunk with it)."""
    return tr._(KIND_NAMES[g.kind], span=tr.int(g.span) if g.span is not None else "")


def kind_layers(kind: str, count: int, tr: Translator) -> str:
    """`count` layers of a kind, in the formula line (plural forms: one call per kind)."""
    c = tr.int(count)
    if kind == "sliding":
        return tr.n_("{count} sliding-window layer", "{count} sliding-window layers", count,
                     count=c)
    if kind == "chunked":
        return tr.n_("{count} chunked-attention layer", "{count} chunked-attention layers",
                     count, count=c)
    if kind == "mla":
        return tr.n_("{count} MLA layer", "{count} MLA layers", count, count=c)
    if kind == "state":
        return tr.n_("{count} state layer", "{count} state layers", count, count=c)
    return tr.n_("{count} full-attention layer", "{count} full-attention layers", count,
                 count=c)


def tokens_text(n: int, tr: Translator) -> str:
    return tr.n_("{count} token", "{count} tokens", n, count=tr.int(n))


def kept_text(g, tr: Translator) -> str:
    """What each layer of a group keeps for one sequence, in words."""
    if g.per_token:
        return tokens_text(g.tokens, tr)
    if g.nbytes:
        return tr._("a state of {size}", size=bytes_bin(g.nbytes, tr))
    return tr._("nothing that grows with the text")


class LayerLegend(TypedDict):
    """A kind of layer: its colour class and what its layers keep."""
    cls: str
    text: str


class LayerMapFig(TypedDict):
    """The layer map (js/draw/layers.js, under the bill): one bar per layer."""
    kinds: list[str]         # each layer's kind (its colour class)
    kept: list[int]          # each layer's tokens kept of this context
    top: int                 # the context: the bars' full height
    legend: list[LayerLegend]
    title: str
    top_label: str
    first: str               # the first layer's name
    last: str                # the last layer's name


def layer_legend(lmap: LayerMap, tr: Translator) -> list[LayerLegend]:
    """One entry per group: its colour class and what its layers keep."""
    return [dict(cls=g.kind, text=tr.n_("{count} layer, {kind}: {kept} each",
                                        "{count} layers, {kind}: {kept} each", g.count,
                                        count=tr.int(g.count), kind=kind_name(g, tr),
                                        kept=kept_text(g, tr)))
            for g in lmap.groups]


def layer_fig(lmap: LayerMap, tr: Translator) -> LayerMapFig:
    """The layer strip (js/draw/layers.js): one bar per layer, coloured by its kind, as
    tall as the share of this context it keeps; its legend and its axis words."""
    return dict(
        kinds=list(lmap.kinds), kept=list(lmap.tokens), top=max(lmap.context, 1),
        legend=layer_legend(lmap, tr),
        title=tr._("What each layer keeps of one sequence of {tokens}",
                   tokens=tokens_text(lmap.context, tr)),
        top_label=tokens_text(lmap.context, tr),
        first=tr._("layer {n}", n=tr.int(1)),
        last=tr._("layer {n}", n=tr.int(len(lmap.kinds))))


def layers_alike(lmap: LayerMap, tr: Translator) -> str:
    """In place of the layer map when every layer keeps the same (`lmap.uniform`): one
    sentence, not a row of identical bars."""
    g = lmap.groups[0]
    return tr._("Every layer keeps the same ({layers} in all): {kept} each ({kind}).",
                layers=_layers(g.count, tr), kept=kept_text(g, tr), kind=kind_name(g, tr))


def layer_table(lmap: LayerMap, tr: Translator) -> dict:
    """The layer map's text twin: one row per group."""
    return w.table([tr._("Layers"), tr._("Kind"), tr._("Keeps, each"), tr._("Cache, each")],
                   [[tr.int(g.count), kind_name(g, tr), kept_text(g, tr),
                     bytes_bin(g.nbytes, tr)] for g in lmap.groups],
                   caption=tr._("The layer map at {tokens}",
                                tokens=tokens_text(lmap.context, tr)),
                   cls="layer-table")


def layers_tail(lmap: LayerMap, batch: int, total: str, tr: Translator) -> str:
    """The formula's second line when the layers keep different things: one term per group
    (`10 full-attention layers × 32,768 tokens + 52 sliding-window layers × 1,024 tokens`),
    per layer and token when every such layer caches the same per token."""
    seqs = tr.n_("{count} sequence", "{count} sequences", batch, count=tr.int(batch))
    growing = [g for g in lmap.groups if g.per_token]
    same = len({g.per_token for g in growing}) <= 1
    terms = [tr._("{layers} × {tokens}", layers=kind_layers(g.kind, g.count, tr),
                  tokens=tokens_text(g.tokens, tr)) if same else
             tr._("{layers} × {tokens} × {bytes}", layers=kind_layers(g.kind, g.count, tr),
                  tokens=tokens_text(g.tokens, tr), bytes=bytes_bin(g.per_token, tr))
             for g in growing]
    terms += [tr._("{layers} × {size}", layers=kind_layers(g.kind, g.count, tr),
                   size=bytes_bin(g.nbytes, tr))
              for g in lmap.groups if not g.per_token and g.nbytes]
    return tr._("× ({groups}) × {sequences} = {total}", groups=" + ".join(terms),
                sequences=seqs, total=total)


# -- the parts: A, the bill; B, planning a server --------------------------------------------

def part_titles(tr: Translator) -> list[str]:
    """The tabs' titles, in the order of `PARTS`."""
    return [tr._("A. The bill"), tr._("B. Plan a server")]


def part_options(tr: Translator) -> dict:
    """The parts as the tabs name them: {title: part}."""
    return dict(zip(part_titles(tr), PARTS))


def parts_label(tr: Translator) -> str:
    """The accessible name of the row of tabs (the step's title)."""
    return tr._("The memory bill")


def part_b_heading(tr: Translator) -> str:
    """Part B's title (projected, it stands for the step's lead)."""
    return tr._("B. Plan a server: the longest context and the largest batch that fit")


def part_b_words(tr: Translator) -> dict[str, list[str]]:
    """Part B's visible words: its one idea, and what to press and read."""
    return dict(
        idea=[tr._("The planner turns the bill around: instead of adding up what a batch "
                   "costs, it asks what fits next to the weights. How long can one sequence "
                   "be, and how many sequences of this context fit at once?")],
        look=[tr._("Choose the GPU, how many of them, and the precisions of the weights and "
                   "of the cache. The table answers twice: ideally, and as a serving engine "
                   "such as vLLM would share out the memory.")])


def part_b_cards(spec: Spec, bill: Bill, live: Live, tr: Translator) -> list:
    """Part B's cards (`PLAN_CARDS`): the cache per token and the weights, as the two
    precisions make them, and the chosen GPU's memory."""
    return card_dicts(PLAN_CARDS, values(spec, bill, live, tr), tr, labels(bill, tr, spec))


# -- the planner's questions -----------------------------------------------------------------

# a longest context that is not a number of tokens: what the cell says, and why (its note)
BOUND_NOTES = {
    "memory": N_("memory binds"),
    "model": N_("the model's limit"),
    "weights": N_("the weights do not fit"),
    "unbounded": N_("the cache stops growing"),
    "split": N_("the KV heads do not split"),
}


def bound_cell(key: str, tokens: int, bound: str, tr: Translator) -> dict:
    """The longest context as a number with its unit, and its reason in the note line (none
    when the weights do not fit, no limit when the cache stops growing)."""
    value = (tr._("none") if bound == "weights" else
             tr._("no limit") if bound == "unbounded" else
             tr._("not possible") if bound == "split" else tokens_text(tokens, tr))
    return dict(key=key, value=value, note=tr._(BOUND_NOTES[bound]))


def gpus_name(plan, bill: Bill, tr: Translator) -> str:
    return tr._("{count} × {gpu}", count=tr.int(plan.gpus), gpu=bill.gpu_name)


def planner(plan, bill: Bill, lmap: LayerMap, tr: Translator, spec: Spec) -> dict:
    """The planner's answers as one small table (template step5/planner.html.j2): a column
    per question (the cache's memory, the longest context, the largest batch), a row for the
    ideal answer (computed) and one for the engine estimate (illustrative). Each cell is a
    number with its unit (`value`, the `data-metric` hook is `key`) and, when it needs one, a
    short qualifier under it (`note`); one line under the table says what the estimate
    assumes (the details: Go deeper)."""
    badge = w.badges(tr)
    ideal_free = bytes_dec(max(plan.free, 0), tr)
    pool = bytes_dec(max(plan.pool, 0) * plan.gpus, tr)
    blocks = blocks_text(plan.block_tokens, tr)
    return dict(
        heading=plan_heading(plan, bill, tr, spec),
        corner=tr._("Answer"),
        columns=[tr._("Memory for the cache"), tr._("Longest context, one sequence"),
                 tr._("Largest batch at context length {context}",
                      context=tr.int(plan.context))],
        rows=[
            dict(name=tr._("Ideal answer"), kind="computed", badge=badge["computed"], cells=[
                dict(key="plan_free", value=ideal_free, note=tr._("memory less weights")),
                bound_cell("plan_context", plan.max_context, plan.context_bound, tr),
                dict(key="plan_batch", value=sequences(plan.max_batch, tr), note="")]),
            dict(name=tr._("Engine estimate"), kind="illustrative",
                 badge=badge["illustrative"], cells=[
                dict(key="engine_pool", value=pool,
                     note=tr._("but no split of the KV heads") if plan.split_refused else (tr._("{tokens}, cut into {blocks}", tokens=tokens_text(plan.pool_tokens, tr),
                                blocks=blocks)
                           if lmap.uniform and plan.pool_tokens else tr._("cut into {blocks}",
                                                                         blocks=blocks))),
                bound_cell("engine_context", plan.engine_context, plan.engine_bound, tr),
                dict(key="engine_batch", value=(tr._("not possible") if plan.split_refused
                                                else sequences(plan.engine_batch, tr)),
                     note="")]),
        ],
        note=split_refusal(plan, spec, tr) if plan.split_refused else
        tr._("Engine estimate, an upper bound: like vLLM, {share} of the memory the driver "
             "reports, less the weights, cut into {blocks}; a real engine also keeps room "
             "for its activations (more in “Go deeper”).",
             share=tr.pct(plan.share), blocks=blocks))


def split_refusal(plan, spec: Spec, tr: Translator) -> str:
    """Why the engine row answers “not possible” (`planner.kv_fraction`): vLLM gives each
    GPU whole KV heads, so the GPU count must divide the heads or be a multiple of them."""
    heads = spec.n_kv_heads
    return tr.n_("Engine estimate: not possible. vLLM gives each GPU whole KV heads: with "
                 "{count} KV head, the number of GPUs must divide {count} or be a multiple "
                 "of it, and {gpus} is neither.",
                 "Engine estimate: not possible. vLLM gives each GPU whole KV heads: with "
                 "{count} KV heads, the number of GPUs must divide {count} or be a multiple "
                 "of it, and {gpus} is neither.",
                 heads, count=tr.int(heads), gpus=tr.int(plan.gpus))


def blocks_text(n: int, tr: Translator) -> str:
    """The engine's blocks: “blocks of 16 tokens”."""
    return tr.n_("blocks of {count} token", "blocks of {count} tokens", n, count=tr.int(n))


def plan_heading(plan, bill: Bill, tr: Translator, spec: Spec) -> str:
    """The planner's heading: the GPUs, and the weights' and the cache's precisions it
    counts with."""
    gpus = gpus_name(plan, bill, tr)
    return tr._("The planner's questions on {gpus} (weights: {weights}; cache: {cache})",
                gpus=gpus, weights=tr._(WEIGHT_FORMATS[spec.weight_format]),
                cache=spec.precision)


def plan_deeper(plan, bill: Bill, tr: Translator) -> list[str]:
    """How the planner answers, and the engine estimate's assumptions (Go deeper: why)."""
    return [
        tr._("The planner inverts the bill. Largest batch: the free memory ({free}) divided "
             "by one sequence's cache. Longest context: the cache of one sequence is summed "
             "layer by layer, so with windows it is not proportional to the context; the "
             "planner searches for the longest context whose cache fits, and stops at the "
             "model's own limit.", free=bytes_dec(max(plan.free, 0), tr)),
        tr._("The engine estimate imitates vLLM. The engine takes {share} of the memory "
             "the driver reports ({usable} for {gpus}; an L4 sold as 24 GB shows 22.5 GiB "
             "with ECC on), loads the weights, and keeps the rest in {blocks}: a sequence "
             "takes whole blocks in every layer, so 4,097 tokens take "
             "257 blocks. With several GPUs each keeps its share of the KV heads (one head "
             "each when there are fewer heads than GPUs; an MLA latent whole).",
             share=tr.pct(plan.share), usable=bytes_dec(plan.usable, tr),
             gpus=gpus_name(plan, bill, tr), blocks=blocks_text(plan.block_tokens, tr)),
        reserve_words(tr),
    ]


# vLLM's start-up log for Llama 3.1 8B on an RTX 3090 (vllm-project/vllm issue 10517): the
# memory it reported, GiB, and the cache it kept (planner module docstring: the reserve)
RESERVE_LOG = dict(total=23.58, weights=14.99, activations=2.07, outside=0.35, tokens=31_232)


def reserve_words(tr: Translator) -> str:
    """Why the engine's pool is an upper bound: what vLLM measures and takes from it, with
    the published log's numbers and their sum (`RESERVE_LOG`, the planner's docstring)."""
    g = RESERVE_LOG
    upper = planner_mod.ENGINE_SHARE * g["total"] - g["weights"]
    return tr._("So the pool is an upper bound: a real engine fits less. At start-up vLLM "
                "runs a trial forward pass over a full batch of tokens and takes from the "
                "pool the activations' peak and the memory used outside PyTorch; the CUDA "
                "graphs it captures afterwards take more. A published log of Llama 3.1 8B on "
                "a 24 GB card: {share} × {total} GiB − {weights} GiB of weights − {act} GiB "
                "of activations − {outside} GiB outside PyTorch = {kept} GiB, {tokens} of "
                "cache, where the upper bound is {upper} GiB. Its log line “GPU KV cache "
                "size” is the number to compare.",
                share=tr.num(planner_mod.ENGINE_SHARE), total=tr.num(g["total"], 2),
                weights=tr.num(g["weights"], 2), act=tr.num(g["activations"], 2),
                outside=tr.num(g["outside"], 2),
                kept=tr.num(upper - g["activations"] - g["outside"], 2),
                tokens=tokens_text(g["tokens"], tr), upper=tr.num(upper, 2))


# -- controls --------------------------------------------------------------------------------

def model_options(tr: Translator, custom: bool = True) -> dict:
    """The presets, and “your model” (`custom`: part A lists it only while it is chosen;
    it is pasted in part B)."""
    opts = {tr._("{model} ({kind})", model=p.name, kind=p.attention_kind): k
            for k, p in presets.ALL_MODELS.items()}
    if custom:
        opts[tr._("Your model: paste a config.json")] = CUSTOM
    return opts


def gpu_options(keys, tr: Translator) -> dict:
    return {tr._("{gpu} ({memory})", gpu=presets.GPUS[k].name,
                 memory=gib(presets.GPUS[k].mem_gib, tr)): k for k in keys}


def gpu_count_options(tr: Translator) -> dict:
    return {tr.int(n): n for n in GPU_COUNTS}


def precision_options(tr: Translator) -> dict:
    """The cache's precisions, by their names (as in step 6)."""
    return {p: p for p in CACHE_PRECISIONS}


def weight_options(tr: Translator) -> dict:
    """The weights' precisions: as released (16-bit unless the model says otherwise), or
    a choice, by its name."""
    return {tr._("as released"): RELEASED, "fp16/bf16": "fp16", "fp8": "fp8", "int4": "int4"}


def precision_lines(tr: Translator) -> list[str]:
    """What the precisions change (Go deeper: why)."""
    return [tr._("Precision sets the bytes: a 16-bit cache keeps each key and value in 2 "
                "bytes, an fp8 cache in 1, as vLLM does with --kv-cache-dtype fp8, so the "
                "same memory holds twice the tokens. The weights' precision moves the other "
                "side of the bill: the memory left for the cache.")]


CONFIG_PLACEHOLDER = ('{"num_hidden_layers": 32, "num_attention_heads": 32, '
                      '"num_key_value_heads": 8, "head_dim": 128, ...}')   # JSON: not translated


def control_labels(tr: Translator) -> dict[str, str]:
    """The controls' labels, keyed by the model parameter each one sets. The “your model”
    box sets `config` (the pasted config.json) and `params_b` (the parameter count);
    "config_placeholder" is the sample its empty text box shows and "read" its button."""
    return dict(context=tr._("Context length (tokens per sequence)"),
                batch=tr._("Batch size (sequences)"), model=tr._("Model"),
                gpu=tr._("GPU for “how many fit”"), config=tr._("config.json of your model"),
                gpus=tr._("GPUs for the planner"), precision=tr._("Cache precision"),
                weights=tr._("Weight precision"),
                share=tr._("Serving engine's share of GPU memory (%)"),
                config_placeholder=CONFIG_PLACEHOLDER, params_b=params_label(tr),
                read=tr._("Read this config"))


# -- the two charts: one still frame, drawn in the browser ------------------------------------

def stage_text(tr: Translator) -> StageText:
    return dict(player_text(tr), figure=tr._("The memory bill"))


def legend(spec: Spec, tr: Translator) -> list[tuple[str, str]]:
    cache = ([("cached", tr._("compressed latent and rotary key (MLA)"))] if spec.is_mla else
             [("key", tr._("keys (half of the cache)")),
              ("value", tr._("values (half of the cache)"))])
    # (a line or a point drawn as the charts draw it: `<style>:<colour>`, dom.js legendRow)
    return [("weights", weights_short(spec, tr)), *cache,
            ("line:text", tr._("solid line: the chosen GPU")),
            ("dashed:muted", tr._("dashed lines: other GPUs")),
            ("dashed:weights", tr._("dashed line: weights")),
            ("dot:text", tr._("dot: this context"))]


def gpu_lines(bill: Bill, tr: Translator) -> str:
    """The GPU lines the bar chart draws (those its axis reaches: `drawn`), named."""
    groups = "; ".join(tr._("{capacity}: {names}", capacity=gib(g, tr),
                            names=", ".join(names)) for _, g, names in drawn(bill))
    return tr._("GPU lines: {groups}.", groups=groups)


def bar_xmax(bill: Bill) -> float:
    """The bar's axis, in GB: a little past the chosen GPU (or the bill, if larger)."""
    return max(bill.total, bill.gpu_mem) / GB * 1.08


def drawn(bill: Bill) -> list:
    """The GPU memory sizes ((bytes, GiB, names)) whose lines the bar's axis reaches."""
    return [c for c in bill.capacities if c[0] / GB <= bar_xmax(bill)]


def sequences(n: int, tr: Translator) -> str:
    return tr.n_("{count} sequence", "{count} sequences", n, count=tr.int(n))


class BarPart(TypedDict):
    """A part of the bill's bar, in GB."""
    cls: str                 # weights, key, value or latent
    x0: float
    x1: float
    name: str
    size: str


class BarGpu(TypedDict):
    """A GPU memory size on the bar's axis, in GB."""
    x: float
    label: str
    names: str               # the GPUs of that size
    chosen: bool


class BarFig(TypedDict):
    """The bill as one stacked bar against the GPUs' memory."""
    xmax: float
    parts: list[BarPart]
    ticks: list[Tick]
    gpus: list[BarGpu]
    axis: str
    title: str
    weights_label: str
    cache_label: str


def bar_fig(spec: Spec, bill: Bill, tr: Translator) -> BarFig:
    """The bill as one stacked bar (weights, keys, values) against the GPUs' memory (drawn
    where the vendors' GiB put it); the axis ends a little past the chosen GPU (or the bill,
    if larger)."""
    W, KV = bill.weights / GB, bill.kv / GB
    xmax = bar_xmax(bill)
    ticks, digits = decimal_ticks(xmax, 5)
    weights = dict(cls="weights", x0=0, x1=W, name=weights_short(spec, tr),
                   size=bytes_dec(bill.weights, tr))
    if spec.is_mla:
        parts = [weights, dict(cls="latent", x0=W, x1=W + KV,
                               name=tr._("compressed latent and rotary key (MLA)"),
                               size=both(bill.kv, tr))]
    else:
        parts = [weights,
                 dict(cls="key", x0=W, x1=W + KV / 2, name=tr._("keys"),
                      size=both(bill.kv / 2, tr)),
                 dict(cls="value", x0=W + KV / 2, x1=W + KV, name=tr._("values"),
                      size=both(bill.kv / 2, tr))]
    return dict(
        xmax=xmax, parts=parts, ticks=[[t, tr.num(t, digits)] for t in ticks],
        gpus=[dict(x=cap / GB, label=gib(g, tr), names=", ".join(names),
                   chosen=g == bill.gpu_gib)
              for cap, g, names in drawn(bill)],
        axis=tr._("Memory (GB, 10⁹ bytes)"),
        title=tr._("The memory bill against the memory of the preset GPUs"),
        weights_label=tr._("weights {size}", size=bytes_dec(bill.weights, tr)),
        cache_label=tr._("KV cache {size}", size=both(bill.kv, tr)))


def crossing(spec: Spec, curve: Curve, tr: Translator) -> str:
    """Where the batch's cache overtakes the weights: it answers the question, so the stage
    shows it only once the learner has answered. Past the model's maximum context, it says
    so."""
    if curve.crossover is not None:
        n = round_sig(curve.crossover)
        over = tr.n_("The cache overtakes the weights at about {crossover} token.",
                     "The cache overtakes the weights at about {crossover} tokens.", n,
                     crossover=tr.int(n))
        if spec.max_context is not None and curve.crossover > spec.max_context:
            return " ".join((over, tr._("{model} handles at most {limit}: no real sequence "
                                        "of it gets there.", model=name(spec, tr),
                                        limit=tokens_text(spec.max_context, tr))))
        return over
    if curve.kv[-1] < curve.weights:
        return tr.n_("Up to {max} token the cache stays below the weights.",
                     "Up to {max} tokens the cache stays below the weights.", curve.ctx[-1],
                     max=tr.int(curve.ctx[-1]))
    return ""


def shown_curve(curve: Curve, bill: Bill, revealed: bool) -> tuple[list, list]:
    """(contexts, cache bytes) of the curve as drawn. Until the question is answered it ends
    at this context, so that where the cache reaches the weights (the answer) is not drawn
    before the learner has predicted it; the axes stay those of the whole curve."""
    ctx, kv = list(curve.ctx), list(curve.kv)
    if revealed:
        return ctx, kv
    keep = [k for k, t in enumerate(ctx) if t < bill.context]
    return [ctx[k] for k in keep] + [bill.context], [kv[k] for k in keep] + [bill.kv]


class CurveNow(TypedDict):
    """This context on the curve."""
    x: int
    y: float                 # the cache, GB
    label: str


class CurveCross(TypedDict):
    """Where the cache reaches the weights (the answer: only once it is out)."""
    x: float
    label: str
    tokens: str


class CurveLimit(TypedDict):
    """The model's maximum context, when the axis goes past it."""
    x: int
    label: str


class CurveFig(TypedDict):
    """The batch's cache as the context grows, against the weights."""
    mla: bool
    ctx: list[int]           # contexts drawn (until the answer: up to this one)
    kv: list[float]          # the cache at each, GB
    xmax: int
    ymax: float
    weights: float           # GB
    xticks: list[Tick]
    yticks: list[Tick]
    xaxis: str
    yaxis: str
    title: str
    weights_label: str
    now: CurveNow
    cross: CurveCross | None
    limit: CurveLimit | None


def curve_fig(spec: Spec, curve: Curve, bill: Bill, tr: Translator,
              revealed: bool = True) -> CurveFig:
    """The batch's cache over the context, the weights' level, this context, and the
    model's maximum context when the axis goes past it. Until the question is answered
    (`revealed` False) the curve ends at this context and the crossing is left out."""
    ymax = curve.top / GB * 1.12
    yticks, yd = decimal_ticks(ymax, 4)
    ctx, kv = shown_curve(curve, bill, revealed)
    cross = None
    if curve.crossover is not None and revealed:
        n = int(round_sig(curve.crossover))
        cross = dict(x=curve.crossover, label=tr._("cache = weights"),
                     tokens=tr.n_("{count} token", "{count} tokens", n, count=tr.int(n)))
    limit = None
    if spec.max_context is not None and spec.max_context < curve.ctx[-1]:
        limit = dict(x=spec.max_context,
                     label=tr._("{model}: at most {tokens}", model=name(spec, tr),
                                tokens=tokens_text(spec.max_context, tr)))
    return dict(
        mla=spec.is_mla, ctx=ctx, kv=[v / GB for v in kv],
        xmax=curve.ctx[-1], ymax=ymax, weights=curve.weights / GB,
        xticks=[[t, tr.int(t)] for t in X_TICKS], yticks=[[t, tr.num(t, yd)] for t in yticks],
        xaxis=tr._("Context length (tokens)"), yaxis=tr._("Memory (GB, 10⁹ bytes)"),
        title=tr.n_("KV cache of {count} sequence as the context grows, against the weights",
                    "KV cache of {count} sequences as the context grows, against the weights",
                    curve.batch, count=tr.int(curve.batch)),
        weights_label=tr._("weights {size}", size=bytes_dec(curve.weights, tr)),
        now=dict(x=bill.context, y=bill.kv / GB, label=bytes_dec(bill.kv, tr)),
        cross=cross, limit=limit)


class BillFig(TypedDict):
    """The one frame of js/draw/bill.js: the bar, the curve and the layer map."""
    bar: BarFig
    curve: CurveFig
    layers: LayerMapFig | None   # null when the view has no layer map


class BillStageFrame(Frame):
    fig: BillFig
    lines: list[str]         # under the charts (bill.js `extra`): the GPU lines, a note
    said: str                # where the cache overtakes the weights ("" until the answer)


def frame(spec: Spec, curve: Curve, bill: Bill, live: Live, tr: Translator,
          revealed: bool = True, lmap: LayerMap | None = None) -> BillStageFrame:
    """The stage's one frame: cards, both charts, their words and their table twin. Until
    the question is answered (`revealed` False), the curve and its table end at this
    context, and neither the chart nor the sentence under it says where it crosses."""
    step = max(1, len(curve.ctx) // 8)
    rows = [[tr.int(t), bytes_dec(v, tr)] for t, v in list(zip(curve.ctx, curve.kv))[::step]
            if revealed or t <= bill.context]
    model = name(spec, tr)
    alike = lmap is not None and lmap.uniform
    mapped = lmap is not None and not lmap.uniform
    return dict(
        pos="", cards=card_dicts(CARDS + MORE, values(spec, bill, live, tr), tr,
                                 labels(bill, tr, spec)),
        caption="", lines=[gpu_lines(bill, tr), binary_note(bill, tr),
                           *([layers_alike(lmap, tr)] if alike else [])],
        said=crossing(spec, curve, tr) if revealed else "",     # where it crosses: the answer
        desc=" ".join((
            tr._("{model}, {tokens} × {batch}", model=model,
                 tokens=tokens_text(bill.context, tr), batch=sequences(bill.batch, tr)) + ".",
            tr._("Weights {weights} and KV cache {cache}: {total} in all, against the "
                 "{memory} of the {gpu}.", weights=bytes_dec(bill.weights, tr),
                 cache=both(bill.kv, tr), total=bytes_dec(bill.total, tr),
                 memory=gpu_memory(bill, tr), gpu=bill.gpu_name),
            tr.n_("KV cache for {count} sequence ({model}, {precision})",
                  "KV cache for {count} sequences ({model}, {precision})", curve.batch,
                  count=tr.int(curve.batch), model=model, precision=spec.precision) + ".",
            tr.n_("At {context} token the cache takes {cache}; the weights take {weights}.",
                  "At {context} tokens the cache takes {cache}; the weights take {weights}.",
                  bill.context, context=tr.int(bill.context), cache=bytes_dec(bill.kv, tr),
                  weights=bytes_dec(curve.weights, tr)))),
        table=dict(head=[tr._("Context"), tr._("KV cache")],
                   rows=rows),
        tables=[layer_table(lmap, tr)] if mapped else [],   # the strip's twin
        # a model whose layers all keep the same gets a sentence (`lines`), not a map
        fig=dict(bar=bar_fig(spec, bill, tr), curve=curve_fig(spec, curve, bill, tr, revealed),
                 layers=layer_fig(lmap, tr) if mapped else None))
