"""The key ideas in words: one takeaway per step, the formula with its numbers filled in."""
from __future__ import annotations

from explainer.i18n import Translator

from ..registry import END_TITLE, NUMBERS, STEPS
from .model import WorkedExample

TAKEAWAYS = tuple(s.takeaway for s in STEPS)       # msgids, one per step, in order


def heading(tr: Translator) -> str:
    return tr._(END_TITLE)


def intro(tr: Translator) -> str:
    # The count is in the words ("Six steps in six sentences"): no msgid says it with a
    # number yet. A step added or removed needs a new msgid here (and its translations).
    return tr._("Six steps in six sentences. Each links back to its step; the page prints on "
                "one sheet as a handout.")


def takeaways(tr: Translator, lang: str) -> list[dict]:
    return [dict(title=tr._(s.title), text=tr._(s.takeaway), n=tr.int(n),
                 href=f"?step={n}&lang={lang}", go=tr._("Back to step {n}", n=tr.int(n)))
            for n, s in zip(NUMBERS, STEPS)]


def formula(ex: WorkedExample, tr: Translator) -> dict:
    return dict(
        title=tr._("The size of a KV cache"),
        general=tr._("bytes = 2 (K and V) × layers × KV heads × head_dim × bytes per value × "
                     "tokens × batch"),
        worked=tr.n_("{model} in fp16: 2 × {L} × {H} × {d} × {b} B = {per} per token; a "
                     "sequence of {T} token takes {seq}, and a batch of {B} takes {all}.",
                     "{model} in fp16: 2 × {L} × {H} × {d} × {b} B = {per} per token; a "
                     "sequence of {T} tokens takes {seq}, and a batch of {B} takes {all}.",
                     ex.tokens, model=ex.name, L=tr.int(ex.layers), H=tr.int(ex.kv_heads),
                     d=tr.int(ex.head_dim), b=tr.int(ex.bytes_per_value),
                     per=tr.bytes(ex.per_token_bytes, "KiB", 0), T=tr.int(ex.tokens),
                     seq=tr.bytes(ex.sequence_bytes, "GiB", 0),
                     B=tr.int(ex.batch), all=tr.bytes(ex.batch_bytes, "GiB", 0)),
        note=tr._("Take the numbers from the model's config.json: num_hidden_layers, "
                  "num_key_value_heads and head_dim (else hidden_size ÷ num_attention_heads).")
        + " " + tr._("This holds when every layer keeps every token. A sliding-window layer "
                     "keeps at most its window (Gemma 2 and 3, Mistral 7B v0.1, gpt-oss), a "
                     "chunked layer at most one chunk (Llama 4), and hybrid models (Jamba, "
                     "Qwen3-Next) cache tokens only in their attention layers: then add up "
                     "layer by layer. Latent attention (DeepSeek-V2 and V3) caches "
                     "kv_lora_rank + qk_rope_head_dim values per layer, with no factor 2."),
        print=tr._("Print this page"))


def sheet_link(tr: Translator, lang: str) -> dict:
    """The link from the key ideas to the exercises' printable sheet."""
    return dict(text=tr._("Exercises of every step, with their answers, as a printable sheet"),
                href=f"?step=end&exercises=1&lang={lang}")


def glossary_link(tr: Translator, lang: str) -> dict:
    """The link from the key ideas to the glossary."""
    return dict(text=tr._("Glossary: every term of the explainer, defined"),
                href=f"?step=end&glossary=1&lang={lang}")


def glossary_page(tr: Translator, lang: str) -> dict:
    """The glossary page's context (`ending/glossary.html.j2`): every term, alphabetically,
    and what the badges on the numbers mean."""
    from ..glossary import entries, legend
    return dict(title=tr._("Glossary"),
                intro=tr._("Every term the explainer uses, in one list. In the steps, the first "
                           "use of a term is underlined: point at it, focus it or tap it to "
                           "read its definition."),
                entries=entries(tr), legend=legend(tr),
                back=tr._("Back to the key ideas"), back_href=f"?step=end&lang={lang}",
                print=tr._("Print this page"))
