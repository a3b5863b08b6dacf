"""Step 3's words: the only place that translates. Pure functions of (numbers, Translator)."""
from __future__ import annotations

from typing import TypedDict

from explainer.i18n import N_, Translator

from ..ui import counts
from ..ui.state import Frame as StateFrame, StageText
from ..ui.words import Card, card_dicts, player_text, question_labels
from .model import DEFAULT_HEAD, DEFAULT_LAYER, FACTS, SELF_HEAD, SELF_LAYER, QUESTION_STEPS, Frame, Run

# at most four headline cards; the rest under “All numbers” (more=True)
CARDS = (
    Card("cache_length", N_("Cache length (tokens)"), "measured", hidden=True),
    Card("new_kv", N_("New k and v rows computed this step (per layer)"), "measured",
         hidden=True),
    Card("shape", N_("Live cache tensor shape [batch, kv_heads, tokens, head_dim]"), "measured",
         hidden=True),
    Card("ref_cache", N_("Cache of this sequence, {model} ({precision})"), "computed"),
    Card("qk_this_step", N_("q·k dot products this step (per head, newest query)"), "measured",
         hidden=True, more=True),
    Card("live_cache", N_("Cache of this sequence, live model (fp32 tensors)"), "measured",
         more=True),
)


def shape(fr: Frame, tr: Translator) -> str:
    return "[" + ", ".join(tr.int(s) for s in fr.shape) + "]"


def card_values(run: Run, fr: Frame, tr: Translator) -> dict:
    return dict(cache_length=tr.int(fr.n_cached), new_kv=tr.int(fr.new_rows),
                qk_this_step=tr.int(fr.keys_scored), shape=shape(fr, tr),
                ref_cache=tr.bytes(fr.ref_bytes, "MiB", 1),
                live_cache=tr.bytes(fr.live_bytes, "KiB", 1))


def cards(run: Run, fr: Frame, tr: Translator) -> list[dict]:
    label = tr._("Cache of this sequence, {model} ({precision})", model=run.ref_name,
                 precision=run.ref_precision)
    return card_dicts(CARDS, card_values(run, fr, tr), tr, labels={"ref_cache": label})


def question_options(P: int, d: int = QUESTION_STEPS) -> tuple[list[int], int]:
    """The choices as numbers and the index of the right one: the decode steps alone, the
    prompt alone, and both; when the first two coincide (a 3-token prompt), the k and v rows
    counted together replaces the duplicate."""
    opts = list(dict.fromkeys([d, P, P + d]))
    if len(opts) < 3:
        opts.append(2 * (P + d))
    opts.sort()
    return opts, opts.index(P + d)


def question(P: int, tr: Translator) -> dict:
    """Built from the prompt on screen: its length is the language's (or the example's)."""
    d, m = QUESTION_STEPS, P + QUESTION_STEPS
    opts, correct = question_options(P)
    return dict(
        key=("step3", P),
        prompt=" ".join((
            tr.n_("The prompt has {n} token.", "The prompt has {n} tokens.", P, n=tr.int(P)),
            tr.n_("After its prefill and {d} decode step, how many key rows does each layer's "
                  "cache hold?", "After its prefill and {d} decode steps, how many key rows "
                  "does each layer's cache hold?", d, d=tr.int(d)))),
        options=[tr.int(o) for o in opts], correct=correct,
        explain=tr.n_("The prefill stores one key row for the {n} prompt token, and each decode "
                      "step appends exactly one more. Key rows per layer: {n} + {d} = {m}, with "
                      "as many value rows beside them. The figure now shows the cache after "
                      "decode step {d}.",
                      "The prefill stores one key row for each of the {n} prompt tokens, and "
                      "each decode step appends exactly one more. Key rows per layer: {n} + {d} "
                      "= {m}, with as many value rows beside them. The figure now shows the "
                      "cache after decode step {d}.", P, n=tr.int(P), d=tr.int(d), m=tr.int(m)),
        points=["keys"],                 # the key rows the answer counts (js/draw/cache.js)
        **question_labels(tr))


class CacheStageText(StageText):
    """The cache's labels (js/draw/cache.js)."""
    k: str                   # the K cache's title
    v: str                   # the V cache's title
    weights: str             # the query's weights' title
    out: str                 # the output row's title
    dims: str                # how many numbers a row holds


def stage_text(tr: Translator) -> CacheStageText:
    d = FACTS["head_dim"]
    return dict(player_text(tr), figure=tr._("Cached keys and values of one layer and head"),
                k=tr._("K cache"), v=tr._("V cache"), weights=tr._("softmax(q·k/√d)"),
                out=tr._("output = softmax(q·Kᵀ/√d)·V"),
                dims=tr.n_("{d} number per row (head_dim)", "{d} numbers per row (head_dim)",
                           d, d=tr.int(d)))


def written(step: int, tr: Translator) -> str:
    return tr._("prefill") if step == 0 else tr._("decode step {s}", s=tr.int(step))


LEVELS = 20                     # colour steps per sign: |x| / scale in twentieths
ZERO = 68                       # chr(68) = "D" is 0; "0" (48) is -20, "X" (88) is +20


def levels(rows, scale: float) -> list[str]:
    """Each row as a string, one character per number: its colour strength in twentieths of
    the run's scale, clipped to ±20 (chr(68 + level): digits, :;<=>?@ and A-X). Every frame
    repeats the rows it shows, so this keeps the frames the browser gets small."""
    s = scale if scale > 0 else 1.0
    return ["".join(chr(ZERO + max(-LEVELS, min(LEVELS, int(round(LEVELS * float(x) / s)))))
                    for x in row) for row in rows]


class CacheFig(TypedDict):
    """One frame of js/draw/cache.js: a row per cached token, its key, value and weight."""
    rows: list[str]          # each row's name: its number (once the answer is out) and token
    titles: list[str]        # each row's tooltip
    gen: list[bool]          # each row: written by a decode step (not the prefill)
    prompt_len: int
    new_from: int            # the first row written at this step
    weights: list[float]     # the newest query's weight on each row
    pct: list[str]           # the same, as written
    k: list[str]             # each key row, one character per number (a level of the ramp)
    v: list[str]             # each value row, the same
    out: str                 # the attention output row, the same


class CacheStageFrame(StateFrame):
    fig: CacheFig


def frames(run: Run, tr: Translator, revealed: bool = True) -> list[CacheStageFrame]:
    """Every frame, in words and numbers, for the browser's player. Until the question is
    answered (`revealed` False) nothing states the cache length: the length cards show “?”
    (hidden), and the row numbers, the announced count and the table's row column wait."""
    P, last = run.prompt_len, len(run.frames) - 1
    out = []
    for fr in run.frames:
        n, f = fr.n_cached, fr.step
        toks, newest = list(fr.tokens), fr.tokens[-1]
        w = [float(x) for x in fr.weights]
        best = max(range(n), key=lambda i: w[i])
        pct = [tr.pct(x, 0) for x in w]
        when = [written(run.written[i], tr) for i in range(n)]
        if f == 0:
            caption = tr.n_("Prefill: the {n} prompt token went through the model in one pass, "
                            "and each layer wrote its key row and value row (outlined). "
                            "Next token: “{next}”.",
                            "Prefill: the {n} prompt tokens went through the model in one "
                            "pass, and each layer wrote all their key rows and value rows at "
                            "once (outlined). Next token: “{next}”.", P, n=tr.int(P),
                            next=fr.next)
            say = tr.n_("Prefill: {n} key row and {n} value row written at once.",
                        "Prefill: {n} key rows and {n} value rows written at once.", P,
                        n=tr.int(P))
        else:
            caption = tr._("Decode step {s}: only “{tok}” went through the model; each layer "
                           "appended one key row and one value row (outlined) and read the rows "
                           "above from the cache. Next token: “{next}”.", s=tr.int(f),
                           tok=newest, next=fr.next)
            say = tr._("Decode step {s}: one key row and one value row appended for “{tok}”.",
                       s=tr.int(f), tok=newest)
        if revealed:
            say += " " + tr.n_("The cache holds {n} row per layer.",
                               "The cache holds {n} rows per layer.", n, n=tr.int(n))
        head = [tr._("Token"), tr._("Written at"), tr._("Attention weight")]
        rows = [[toks[i], when[i], tr.pct(w[i], 1)] for i in range(n)]
        if revealed:
            head.insert(1, tr._("Row"))
            rows = [[r[0], tr.int(i + 1), *r[1:]] for i, r in enumerate(rows)]
        out.append(dict(
            pos=tr._("Decode step {i} of {n} (0 = prefill)", i=tr.int(f), n=tr.int(last)),
            say=say,
            desc=tr._("Key and value rows of the cached tokens; the newest query puts most "
                      "weight on “{best}” ({pct}), and the output row adds up the value rows "
                      "with these weights.", best=toks[best], pct=pct[best]),
            caption=caption,
            cards=cards(run, fr, tr),
            table=dict(head=head, rows=rows),
            fig=dict(
                rows=[(tr.int(i + 1) + " " if revealed else "") + toks[i] for i in range(n)],
                titles=[tr._("“{tok}”: written at {when}; weight {pct}", tok=toks[i],
                             when=when[i], pct=pct[i]) for i in range(n)],
                gen=[run.written[i] > 0 for i in range(n)], prompt_len=P,
                new_from=n - fr.new_rows, weights=[round(x, 4) for x in w], pct=pct,
                k=levels(fr.k, run.k_scale), v=levels(fr.v, run.v_scale),
                out=levels([fr.out], run.v_scale)[0])))
    return out


def legend(tr: Translator) -> list[tuple[str, str]]:
    return [("ramp-key", tr._("Key k: grey negative, white zero, blue positive")),
            ("ramp-value", tr._("Value v: grey negative, white zero, orange positive")),
            ("query", tr._("The newest query's weights, softmax(q·k/√d)")),
            ("new", tr._("Rows written at this step"))]


def figure_note(run: Run, tr: Translator) -> list[str]:
    """Which query heads the bars belong to, and what a strip is (under the figure)."""
    q0, q1 = run.q_heads
    if q0 == q1:
        who = tr._("The green bar is the softmax(q·k/√d) of the newest token's query in query "
                   "head {q} of layer {layer}, the only query head that reads key/value "
                   "head {h} in this model.", q=tr.int(q0), layer=tr.int(run.layer),
                   h=tr.int(run.head))
    else:
        who = tr._("The green bar is the softmax(q·k/√d) of the newest token's query in "
                   "layer {layer}, averaged over query heads {a} to {b}, which share "
                   "key/value head {h}.", layer=tr.int(run.layer), a=tr.int(q0),
                   b=tr.int(q1), h=tr.int(run.head))
    d = FACTS["head_dim"]
    strips = tr.n_("Each strip shows the {d} number of one cached vector; the rows above the "
                   "highlighted ones are never written again.",
                   "Each strip shows the {d} numbers of one cached vector; the rows above the "
                   "highlighted ones are never written again.", d, d=tr.int(d))
    return [who + " " + strips]


def narration(tr: Translator) -> dict[str, list[str]]:
    """{"look": what to look at and what to press, then what it means (visible); "live": the
    heads to try (Go deeper: the live model)}."""
    look = [
        tr._("Each row of the figure is one cached token: its key k (blue strip) and its value "
             "v (orange strip) in one layer and head. Press Step forward (the “.” key) or Play: "
             "the prefill writes every prompt row at once, then each decode step appends "
             "exactly one outlined row, and the rows above it never change."),
        tr._("The green bars are the newest query's weights, softmax(q·k/√d) over every cached "
             "key. The bottom row is what the values are for: the attention output, the value "
             "rows added up with those weights. Keys are cached so that each new query can "
             "score them, values so that it can mix them."),
    ]
    live = [
        tr._("Layer {l}, head {h} (the default) spreads its weight over several tokens; other "
             "heads put almost all of it on one token (try layer {sl}, head {sh}). The cache "
             "keeps every row either way: no one knows in advance which keys a later query "
             "will need.", l=tr.int(DEFAULT_LAYER), h=tr.int(DEFAULT_HEAD),
             sl=tr.int(SELF_LAYER), sh=tr.int(SELF_HEAD)),
    ]
    return {"look": look, "live": live}


def details(run: Run, tr: Translator) -> dict[str, list[str]]:
    """The rest of the explanation (Go deeper): {"why": the prefill's triangle, the tensor and
    RoPE; "live": the bytes, with the live model's numbers filled in}."""
    P = run.prompt_len
    why = [
        tr.n_("The prompt token's query scores {P} key, its own, and that is the prefill's "
              "whole causal triangle (dot products per head: {tri}).",
              "The newest prompt token's query scores {P} keys, but the prefill scores the "
              "whole causal triangle at once: every prompt token's query against itself and "
              "the tokens before it (dot products per head: {tri}).", P, P=tr.int(P),
              tri=tr.int(run.prefill_triangle)),
        tr._("Each layer's cache is a pair of tensors shaped [batch, kv_heads, tokens, "
             "head_dim]. A step writes one slice along the token axis, so the cache grows by "
             "one row per layer per token: watch the tensor shape card."),
        tr._("Rotary position embedding (RoPE) turns each key by its position once, before "
             "it is stored: the cache holds rotated keys, and a stored key never needs "
             "turning again."),
    ]
    formula = tr._("In the live model each cached token takes 2 (k and v) × layers × "
                   "key/value heads × head_dim × bytes per number = 2 × {layers} × {kv} × {d} × "
                   "4 B (fp32) = {b}.",
                   layers=tr.int(FACTS["n_layers"]), kv=tr.int(FACTS["n_kv_heads"]),
                   d=tr.int(FACTS["head_dim"]), b=tr.bytes(run.per_token_bytes, "B", 0))
    if not mismatches(run):
        formula += " " + tr._("The measured cache tensors hold exactly that much per token "
                              "at every step.")
    return {"why": why, "live": [formula]}


def mismatches(run: Run) -> list[Frame]:
    return [fr for fr in run.frames if fr.live_bytes != fr.live_formula_bytes]


def notices(run: Run, tr: Translator) -> list[str]:
    """Only if the measured bytes ever disagree with the formula (they should not)."""
    return [tr._("The live cache holds {got}, but the formula for its configuration gives "
                 "{want}.", got=tr.bytes(fr.live_bytes, "KiB", 1),
                 want=tr.bytes(fr.live_formula_bytes, "KiB", 1)) for fr in mismatches(run)[:1]]


def facts(tr: Translator) -> str:
    f = FACTS
    return tr._("Live model: {layers}, {heads}, {kv}, head_dim {d}, running on {device}.",
                layers=counts.layers(f["n_layers"], tr), heads=counts.query_heads(f["n_heads"], tr),
                kv=counts.kv_heads(f["n_kv_heads"], tr), d=tr.int(f["head_dim"]),
                device=f["device"])


def lead(tr: Translator) -> str:
    return tr._("The prefill writes the whole prompt into the cache in one pass; after that, "
                "each decode step appends one key row and one value row and reuses all the rest.")


def control_labels(tr: Translator) -> dict[str, str]:
    """The controls' labels, keyed by the model parameter each one sets."""
    return dict(example=tr._("Example prompt"), layer=tr._("Layer"), head=tr._("Key/value head"))


def layer_options(tr: Translator) -> dict:
    return {tr._("Layer {i}", i=tr.int(i)): i for i in range(1, FACTS["n_layers"] + 1)}


def head_options(tr: Translator) -> dict:
    return {tr._("Head {i}", i=tr.int(i)): i for i in range(1, FACTS["n_kv_heads"] + 1)}
