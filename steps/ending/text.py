"""The key ideas in words: one takeaway per step, the formula with its numbers filled in."""
from __future__ import annotations

from explainer.i18n import N_, Translator

from ..common import STEP_TITLES
from .model import WorkedExample

TAKEAWAYS = (
    N_("A decoder writes one token per forward pass. The newest token's query is scored "
       "against the key of every earlier token and its own, and the values are mixed by those "
       "scores."),
    N_("Without a cache, every step computes the keys and values of the whole text again: "
       "T·P + T(T−1)/2 projections per layer instead of P + T − 1. The waste grows with the "
       "square of the length."),
    N_("The KV cache keeps one key row and one value row per token, per layer and KV head. A "
       "decode step appends one row; the earlier rows are read, never rewritten, and the "
       "output is still exactly the same."),
    N_("Prefill pushes the whole prompt through at once and keeps the GPU busy computing. "
       "Each decode step produces one token per sequence but must read all the weights and "
       "the whole cache: at small batch it waits on memory."),
    N_("The cache grows with layers, KV heads, head dimension, bytes per value, context and "
       "batch. At long contexts and large batches it outgrows the model's weights."),
    N_("Fewer KV heads (GQA, MQA), fewer bits (fp8, int8, int4), fewer tokens (a sliding "
       "window) and no reserved waste (paged memory) shrink it, each at a different price."),
)


def heading(tr: Translator) -> str:
    return tr._("Key ideas")


def intro(tr: Translator) -> str:
    return tr._("Six steps in six sentences. Each links back to its step; the page prints on "
                "one sheet as a handout.")


def takeaways(tr: Translator, lang: str) -> list[dict]:
    return [dict(title=tr._(STEP_TITLES[i]), text=tr._(t), n=tr.int(i + 1),
                 href=f"?step={i + 1}&lang={lang}", go=tr._("Back to step {n}", n=tr.int(i + 1)))
            for i, t in enumerate(TAKEAWAYS)]


def formula(ex: WorkedExample, tr: Translator) -> dict:
    return dict(
        title=tr._("The size of a KV cache"),
        general=tr._("bytes = 2 (K and V) × layers × KV heads × head_dim × bytes per value × "
                     "tokens × batch"),
        worked=tr._("{model} in fp16: 2 × {L} × {H} × {d} × {b} B = {per} per token; {T} "
                    "tokens take {seq} per sequence, and a batch of {B} takes {all}.",
                    model=ex.name, L=tr.int(ex.layers), H=tr.int(ex.kv_heads),
                    d=tr.int(ex.head_dim), b=tr.int(ex.bytes_per_value),
                    per=tr.bytes(ex.per_token_bytes, "KiB", 0), T=tr.int(ex.tokens),
                    seq=tr.bytes(ex.sequence_bytes, "GiB", 0),
                    B=tr.int(ex.batch), all=tr.bytes(ex.batch_bytes, "GiB", 0)),
        note=tr._("Take the numbers from the model's config.json: num_hidden_layers, "
                  "num_key_value_heads and head_dim (else hidden_size ÷ num_attention_heads)."),
        print=tr._("Print this page"))
