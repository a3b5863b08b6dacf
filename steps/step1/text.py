"""Step 1's words: the only place that translates. Pure functions of (numbers, Translator)."""
from __future__ import annotations

from dataclasses import replace
from typing import TypedDict

from explainer.i18n import N_, Translator
from explainer.tokenizer import UNK

from ..ui import counts
from ..ui.state import Frame, StageText
from ..ui.words import Card, card_dicts, player_text, question_labels
from .model import FACTS, Run

CARDS = (
    Card("seq_len", N_("Sequence length"), "measured"),
    Card("keys_read", N_("Keys read by this query"), "measured", hidden=True),
    Card("next", N_("Next token"), "measured"),
    Card("scores", N_("q·k scores computed so far (newest queries)"), "measured", hidden=True),
)
# from the first decode step on, the sequence's length is the answer (P + 1) and then one more
# a step: it waits for the answer with the keys read
DECODE_CARDS = (replace(CARDS[0], hidden=True), *CARDS[1:])
UNKNOWN = 0                     # the plural form of a count that waits for the answer (“?”)

NOTICES = {
    "empty": N_("The prompt has no words; showing the example prompt."),
    "unknown": N_("Not in the live model's vocabulary, so read as {unk}: {words}"),
}


def notices(run: Run, tr: Translator) -> list[str]:
    out = []
    for code, values in run.notices:
        kw = {k: tr.int(v) if isinstance(v, int) else v for k, v in values}
        if code == "truncated":
            out.append(tr.n_("Only the first {n} token is used, so that every arc can be drawn.",
                             "Only the first {n} tokens are used, so that every arc can be "
                             "drawn.", dict(values)["n"], **kw))
        else:
            out.append(tr._(NOTICES[code], **kw))
    return out


def question(P: int, tr: Translator) -> dict:
    """Built from the prompt on screen: its length is the language's, or the learner's."""
    return dict(
        key=("step1", P),
        prompt=tr.n_("The prompt has {n} token. When the model adds one more token, how many "
                     "keys does the new token's query read?",
                     "The prompt has {n} tokens. When the model adds one more token, how many "
                     "keys does the new token's query read?", P, n=tr.int(P)),
        options=[tr.int(1), tr.int(P), tr.int(P + 1)], correct=2,
        explain=tr.n_("It reads the cached key of the {n} earlier token and its own new key "
                      "(q·k scores: {m}).",
                      "It reads the {n} cached keys of the earlier tokens and its own new key "
                      "(q·k scores: {m}).", P, n=tr.int(P), m=tr.int(P + 1)),
        points=["arcs", "own"],        # the arcs to the cached keys, its own key's ring (js/draw/arcs.js)
        **question_labels(tr))


class ArcsStageText(StageText):
    """The arcs' labels (js/draw/arcs.js)."""
    prompt: str
    generated: str
    new: str                 # under a token written into the cache at this step
    cached: str              # under a token whose key is read from the cache
    own: str                 # the ring above the newest token: its query reads its own key
    prefill: str


def stage_text(tr: Translator) -> ArcsStageText:
    return dict(player_text(tr), figure=tr._("Attention of the newest query"),
                prompt=tr._("prompt"), generated=tr._("generated"), new=tr._("new"),
                cached=tr._("cached"), own=tr._("own key"), prefill=tr._("prefill"))


class ArcsFig(TypedDict):
    """One frame of js/draw/arcs.js: the tokens so far and the newest query's attention."""
    tokens: list[str]
    next: str                # the token the model writes next (drawn dashed)
    weights: list[float]     # the newest query's attention weight on each token's key
    pct: list[str]           # the same, as written on the arcs
    prompt_len: int
    role: list[str]          # each token's “prompt” or “generated”, translated
    prefill: bool            # frame 0: the whole prompt went through in one pass
    unk: list[bool]          # each token: unknown to the vocabulary


class ArcsStageFrame(Frame):
    fig: ArcsFig


def frames(run: Run, tr: Translator, revealed: bool = True) -> list[ArcsStageFrame]:
    """Every frame, in words and numbers, for the browser's player. Frame 0 is the prefill:
    the whole prompt goes through the model in one pass (in step 3's words); each later frame
    is one decode step, one token. Until the question is answered (`revealed` False) no decode
    step counts keys or tokens: its sequence length, keys and scores are answer-bearing cards
    (“?”), its sentences say “?” and the table leaves out the positions; the arcs stay."""
    P, n_frames = run.prompt_len, len(run.frames)
    out = []
    for f, fr in enumerate(run.frames):
        n = len(fr.tokens)
        newest = fr.tokens[-1]
        w = [float(x) for x in fr.weights]
        best = max(range(n), key=lambda k: w[k])
        # a decode step's counts, as said before the answer: “?”, in the plural
        count = (lambda v: tr.int(v)) if revealed or f == 0 else (lambda v: "?")  # noqa: E731
        plural = (lambda v: v) if revealed or f == 0 else (lambda v: UNKNOWN)     # noqa: E731
        if f == 0:
            caption = tr.n_("Prefill: the {n} prompt token went through the model in one pass, "
                            "and its key and value went into the cache. Its query reads that "
                            "key and predicts “{next}”.",
                            "Prefill: the {n} prompt tokens went through the model in one pass, "
                            "and all their keys and values went into the cache at once. The "
                            "query of the last one, “{tok}”, reads all {n} keys and predicts "
                            "“{next}”.", n, n=tr.int(n), tok=newest, next=fr.next)
            say = caption
        else:
            caption = tr.n_("Decode step {s}: only “{tok}” went through the model. Its query "
                            "reads {n} key, {c} of them from the cache, and predicts “{next}”.",
                            "Decode step {s}: only “{tok}” went through the model. Its query "
                            "reads {n} keys, {c} of them from the cache, and predicts “{next}”.",
                            plural(n), s=tr.int(f), tok=newest, n=count(n), c=count(n - 1),
                            next=fr.next)
            say = tr.n_("Token {n}: the query of “{tok}” reads {k} key and predicts “{next}”.",
                        "Token {n}: the query of “{tok}” reads {k} keys and predicts “{next}”.",
                        plural(fr.keys_read), n=count(n), tok=newest, k=count(fr.keys_read),
                        next=fr.next)
        values = dict(seq_len=tr.int(n), keys_read=tr.int(fr.keys_read),
                      next=tr._("“{token}”", token=fr.next), scores=tr.int(fr.scores))
        role = [tr._("prompt") if k < P else tr._("generated") for k in range(n)]
        head = [tr._("Key of token"), tr._("Position"), tr._("Attention weight")]
        rows = [[fr.tokens[k], tr.int(k + 1), tr.pct(w[k], 1)] for k in range(n)]
        if not revealed:                             # the positions count the tokens
            head, rows = [head[0], head[2]], [[r[0], r[2]] for r in rows]
        out.append(dict(
            pos=tr._("Decode step {i} of {n} (0 = prefill)", i=tr.int(f),
                     n=tr.int(n_frames - 1)),
            say=say,
            desc=tr.n_("An arc from the query of “{tok}” to the {n} key it reads: “{best}” "
                       "({pct}).",
                       "Arcs from the query of “{tok}” to the {n} keys it reads; the strongest "
                       "goes to “{best}” ({pct}).", plural(n), tok=newest, n=count(n),
                       best=fr.tokens[best], pct=tr.pct(w[best], 0)),
            caption=caption,
            cards=card_dicts(DECODE_CARDS if f else CARDS, values, tr),
            table=dict(head=head, rows=rows),
            fig=dict(tokens=list(fr.tokens), next=fr.next, weights=w,
                     pct=[tr.pct(x, 0) for x in w], prompt_len=P, role=role,
                     prefill=f == 0, unk=[t == UNK for t in fr.tokens])))
    return out


def legend(tr: Translator) -> list[tuple[str, str]]:
    return [("query", tr._("newest token: its query reads every key")),
            ("cached", tr._("earlier tokens: keys read from the cache")),
            ("line:key", tr._("arc: one q·k score; thicker = more attention")),   # a line
            ("new", tr._("outline: written into the cache at this step (at the prefill, the "
                         "whole prompt)"))]


def lead(tr: Translator) -> str:
    return tr._("Every new query reads all earlier keys")


def orientation(tr: Translator) -> list[str]:
    """Before the first question: what a language model does and what a query, a key and a
    value are."""
    return [
        tr._("A language model writes one token per forward pass: it reads the text so far "
             "and predicts the next token, then runs again with that token added."),
        tr._("In every attention layer each token gets three vectors: a query (what it looks "
             "for), a key (how it can be found) and a value (what it passes on). The newest "
             "token's query is scored against the keys of all tokens so far, and the scores "
             "decide how much of each value goes into its output."),
    ]


def narration(tr: Translator) -> list[str]:
    """After the question: what the KV cache is, and what to press and watch."""
    return [
        tr._("The KV cache keeps the key and the value of every earlier token, so each is "
             "computed only once. Press Play, or Step forward (the “.” key), and watch the "
             "newest token's query read them all."),
    ]


def why(tr: Translator) -> list[str]:
    """Go deeper, why it works: the score, and why a causal model can cache at all."""
    return [
        tr._("Each arc is one query–key score, q·k/√d: the dot product of the two vectors, "
             "divided by √d so that the scores do not grow with the vectors' size d. Here d = {d} "
             "per head; Llama 2 7B uses 128.", d=tr.int(FACTS["head_dim"])),
        tr._("The causal mask is what makes caching safe: a token never looks ahead, so "
             "adding a token never changes the keys and values of earlier positions. In a "
             "bidirectional encoder such as BERT, one new word changes the representations of "
             "every earlier token from the second layer on, so almost nothing could be reused: "
             "only the first layer's keys and values, which depend on nothing but each token "
             "and its position."),
    ]


def live(tr: Translator) -> list[str]:
    """Go deeper, the live model (its facts line follows, as `facts`)."""
    return [tr._("The continuation is the live model's own greedy output, computed on this "
                 "server with its KV cache.")]


def facts(tr: Translator) -> str:
    f = FACTS
    return tr._("Live model: {layers}, {heads}, d = {d} per head, {params}, running on "
                "{device}.", layers=counts.layers(f["n_layers"], tr),
                heads=counts.heads(f["n_heads"], tr), d=tr.int(f["head_dim"]),
                params=counts.parameters(f["n_params"], tr), device=f["device"])


def control_labels(tr: Translator) -> dict[str, str]:
    """The controls' labels, keyed by the model parameter each one sets, and the text
    field's placeholder ("text_placeholder")."""
    return dict(example=tr._("Example prompt"), text=tr._("Or type your own prompt"),
                text_placeholder=tr._("Type a few words, then press Enter"),
                layer=tr._("Layer"), head=tr._("Head"))


def layer_options(tr: Translator) -> dict:
    return {tr._("Average of all layers"): 0,
            **{tr._("Layer {i}", i=tr.int(i)): i for i in range(1, FACTS["n_layers"] + 1)}}


def head_options(tr: Translator) -> dict:
    return {tr._("Average of all heads"): 0,
            **{tr._("Head {i}", i=tr.int(i)): i for i in range(1, FACTS["n_heads"] + 1)}}

