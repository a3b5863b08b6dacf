"""The glossary: every term the explainer uses, defined in one or two plain sentences for a
second-year student, in the session's language.

Each entry is two msgids. The first names the term as the glossary lists it, then, after
"|", the other forms it takes in running text (plurals, inflections, the long name of an
abbreviation); translators give the forms their language uses. The second is the definition.

The page carries the glossary of the session's language once, as a part of its own
(`glossary_state`, sent when the language changes, never with a move): the browser marks the
first use of each term in a step's paragraphs (`steps/ui/js/terms.js`), and the key-ideas page
lists every entry (`?step=end&glossary=1`). The same part holds the one-line legend of the
cards' three badges that the browser puts next to a step's first card.
"""
from __future__ import annotations

import unicodedata
from functools import lru_cache

from explainer.i18n import N_, Translator

from .common import translator
from .ui.words import BADGES

# (names, definition): names = "term|other form|other form". A definition says what a term
# means, never what a step's question asks (which phase is memory-bound, how much smaller GQA
# makes the cache...): a learner may read it before answering.
TERMS = (
    (N_("token|tokens"),
     N_("A piece of text: a word, part of a word or a punctuation mark. A model reads its "
        "prompt as tokens and writes its answer one token at a time.")),
    (N_("prompt|prompts"),
     N_("The text a model is given before it starts writing its answer.")),
    (N_("attention"),
     N_("How a token gathers information from the tokens so far: its query is compared "
        "with their keys, and the scores decide how much of each value it takes.")),
    (N_("query|queries"),
     N_("A vector computed from a token that says what it is looking for. It is compared with "
        "the keys of the tokens so far by a dot product (q·k).")),
    (N_("key|keys"),
     N_("A vector computed from each token, which queries are compared with. A high q·k score "
        "means the query pays more attention to that token.")),
    (N_("value|values"),
     N_("A vector computed from each token that holds what it passes on. The output of "
        "attention is a mix of the values, weighted by the q·k scores.")),
    (N_("K/V projection|K/V projections|projection|projections"),
     N_("Multiplying a token's vector by the weight matrices W_K and W_V to get its key and "
        "value. With a cache this is done once per token; without one it is redone at every "
        "step.")),
    (N_("head|heads|attention head|attention heads|query head|query heads"),
     N_("One of several attention computations that run side by side in a layer, each on its "
        "own small queries, keys and values. Different heads can look for different things.")),
    (N_("head_dim"),
     N_("The length of one head's query, key and value vectors: 128 in Llama 2 7B.")),
    (N_("key/value head|key/value heads|KV head|KV heads|kv_heads"),
     N_("A head that computes keys and values. With GQA or MQA there are fewer of them than "
        "query heads, and only they are cached.")),
    (N_("layer|layers"),
     N_("One block of a transformer: attention followed by a small feed-forward network. A "
        "model stacks dozens of layers, and each layer caches its own keys and values.")),
    (N_("KV cache|KV caches|cache|caches"),
     N_("The keys and values of every token so far, kept in memory for each layer and head. "
        "Each new token then computes only its own key and value and reads the rest.")),
    (N_("prefill|prefill phase"),
     N_("The first phase: the whole prompt goes through the model at once, and the keys and "
        "values of all its tokens are written to the cache in parallel.")),
    (N_("decode|decode step|decode steps|decoding"),
     N_("The phase after prefill: the model writes one token per step, computing one new key "
        "and value per layer and reading all the cached ones.")),
    (N_("causal mask|causal"),
     N_("The rule that no token attends to the tokens after it. Because of it, old keys and "
        "values never change, so they can be cached.")),
    (N_("softmax"),
     N_("A function that turns a row of scores into positive weights that add up to 1; the "
        "largest scores get most of the weight.")),
    (N_("logits|logit"),
     N_("The raw scores a model gives every token of its vocabulary for the next position. "
        "Softmax turns them into probabilities; the highest is the likeliest next token.")),
    (N_("greedy|greedy decoding"),
     N_("Always choosing the token with the highest logit as the next one, so the same prompt "
        "always gives the same continuation.")),
    (N_("weights|weight matrices|weight matrix"),
     N_("The model's learned numbers, such as the matrices W_K and W_V. They are the same for "
        "every sequence and are read from memory at every step.")),
    (N_("live model"),
     N_("The tiny transformer (4 layers) that this page runs on its own server. The numbers "
        "marked “measured” come from it.")),
    (N_("reference model|7B reference model"),
     N_("Llama 2 7B, a real open model with 32 layers of 32 heads (head_dim 128). Computed "
        "numbers use its sizes unless you choose another model.")),
    (N_("batch|batches|batch size"),
     N_("Several sequences processed together, step by step. They share the reading of the "
        "weights, but each sequence has its own KV cache.")),
    (N_("FLOP/s|FLOP|FLOPs|TFLOP/s"),
     N_("A FLOP is one floating-point operation, such as a multiplication or an addition. "
        "FLOP/s counts them per second: how fast a chip computes (1 TFLOP/s = 10¹² FLOP/s).")),
    (N_("arithmetic intensity|FLOP/byte|FLOP per byte"),
     N_("How many operations a computation does per byte it moves to or from memory. Below the "
        "ridge point the chip waits for memory; above it, memory waits for the chip.")),
    (N_("memory bandwidth|bandwidth"),
     N_("How many bytes per second a chip can read from its memory: a few terabytes per "
        "second on a recent data-centre GPU.")),
    (N_("memory-bound|memory bound"),
     N_("Limited by memory bandwidth: reading the data takes longer than computing with it, "
        "so a faster chip would not help.")),
    (N_("compute-bound|compute bound"),
     N_("Limited by the chip's arithmetic: computing takes longer than reading the data, so "
        "faster memory would not help.")),
    (N_("roofline"),
     N_("A chart of the speed a chip can reach against arithmetic intensity: a slope where "
        "memory bandwidth limits it, then a flat roof at the chip's peak FLOP/s.")),
    (N_("ridge point|ridge"),
     N_("Where the roofline's slope meets its roof: peak FLOP/s divided by memory bandwidth. "
        "A computation with fewer FLOP per byte than this is memory-bound.")),
    (N_("fp16|fp32|bf16|fp8|int8|int4"),
     N_("16-bit floating-point numbers: 2 bytes per value, the usual format of weights and KV "
        "caches. fp32 takes 4 bytes, fp8 and int8 1 byte, int4 half a byte.")),
    (N_("quantization|quantized"),
     N_("Storing numbers with fewer bits, for example 8 or 4 instead of 16. A quantized cache "
        "is smaller but only approximates the exact one.")),
    (N_("MHA|multi-head attention"),
     N_("Multi-head attention: every query head has its own key/value head, so the cache "
        "holds keys and values for all heads.")),
    (N_("GQA|grouped-query attention"),
     N_("Grouped-query attention: each group of query heads shares one key/value head, so "
        "the cache holds fewer heads than the model has query heads.")),
    (N_("MQA|multi-query attention"),
     N_("Multi-query attention: all query heads share a single key/value head, the smallest "
        "cache of the three, at some cost in quality.")),
    (N_("MLA|multi-head latent attention"),
     N_("Multi-head latent attention (DeepSeek): per token and layer the cache keeps one "
        "small compressed vector (512 values in DeepSeek-V3) and a small key for positions "
        "(64). Optimised kernels attend to the compressed vector directly, without rebuilding "
        "full keys and values.")),
    (N_("sliding window|sliding-window"),
     N_("Attention that looks only at the last W tokens. A layer with a sliding window stops "
        "growing its cache at W tokens.")),
    (N_("eviction|evicted|evict"),
     N_("Dropping tokens from a KV cache that may hold only a fixed number of them, the "
        "budget: their keys and values are deleted, and no later query can read them.")),
    (N_("attention sink|attention sinks|sinks|sink"),
     N_("One of the first tokens of a text, to which a trained model sends a large share of "
        "its attention whatever the token says. StreamingLLM keeps them in the cache.")),
    (N_("heavy hitter|heavy hitters"),
     N_("A token that has received much of the attention of the queries so far. H2O keeps "
        "these tokens in the cache, with the most recent ones.")),
    (N_("budget|cache budget"),
     N_("The most tokens a cache that drops tokens may hold, in each layer.")),
    (N_("paged attention|PagedAttention|paged"),
     N_("Storing the KV cache in small blocks of fixed size (pages), as an operating system "
        "does with memory, so that sequences of any length waste little space.")),
    (N_("context length|context window"),
     N_("The most tokens a model can attend to at once, prompt and answer together. The KV "
        "cache grows up to it.")),
    (N_("RoPE|rotary position embedding"),
     N_("Rotary position embedding: a token's position is encoded by rotating its query and "
        "key vectors. Keys go into the cache already rotated.")),
    (N_("time to first token|TTFT"),
     N_("How long a user waits before the first token of the answer appears: mostly the "
        "prefill of the prompt.")),
)

# the one-line legend of the cards' badges: what each badge means, in a few words
BADGE_MEANINGS = {
    "measured": N_("by the live model, on this server"),
    "computed": N_("from a formula"),
    "illustrative": N_("a sketch, not exact"),
}


def names(tr: Translator, msgid: str) -> list[str]:
    """The term first, then its other forms (no blanks, no repeats)."""
    out: list[str] = []
    for form in tr._(msgid).split("|"):
        form = form.strip()
        if form and form not in out:
            out.append(form)
    return out


def sort_key(term: str) -> str:
    """Alphabetical in every language of the app: case and accents ignored (ł as l)."""
    base = unicodedata.normalize("NFKD", term.casefold().replace("ł", "l"))
    return "".join(c for c in base if not unicodedata.combining(c) and c.isalnum())


def entries(tr: Translator) -> list[tuple[str, str]]:
    """(term, definition), alphabetically: the glossary page."""
    return sorted(((names(tr, n)[0], tr._(d)) for n, d in TERMS),
                  key=lambda e: sort_key(e[0]))


def legend(tr: Translator) -> dict:
    """The badges' legend: {"label", "items": [[kind, badge, meaning]]}."""
    return {"label": tr._("What the badges on the numbers mean"),
            "items": [[k, tr._(BADGES[k][0]), tr._(m)] for k, m in BADGE_MEANINGS.items()]}


@lru_cache(maxsize=None)
def glossary_state(lang: str) -> dict:
    """The page's glossary part: {"lang", "terms": [[term, [forms...], definition]], "legend"}
    (the same object for every session in `lang`)."""
    tr = translator(lang)
    return {"lang": lang,
            "terms": [[names(tr, n)[0], names(tr, n), tr._(d)] for n, d in TERMS],
            "legend": legend(tr)}


def check_glossary(state: dict) -> dict:
    import json
    assert set(state) == {"lang", "terms", "legend"}, sorted(state)
    for term, forms, definition in state["terms"]:
        assert term and forms and forms[0] == term and definition, (term, forms)
    assert [i[0] for i in state["legend"]["items"]] == list(BADGES)
    json.dumps(state)
    return state
