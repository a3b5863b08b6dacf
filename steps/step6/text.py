"""Step 6's words: the only place that translates. Pure functions of (numbers, Translator)."""
from __future__ import annotations
from typing import TypedDict

from explainer import presets
from explainer.format import bytes_bin, bytes_dec
from explainer.i18n import N_, Translator
from explainer.tokenizer import join, spaced

from ..ui import counts
from ..ui.state import Frame, StageText, Tick
from ..ui.words import Card, card_dicts, metrics, player_text, question_labels
from .model import (BATCH, BUDGET_CHOICES, COMPARE_BUDGET, CONTEXT, H2O_FLEXGEN, H2O_SHARE,
                    H2O_SPEEDUP, KV_CHOICES, KWON_HI, KWON_LO, N_NEW, NEARLY, PARTS,
                    POLICY_CHOICES, PRECISION_CHOICES, QUESTION_BUDGET, REF, WINDOW_CHOICES,
                    HeadsQuestion,
                    LiveRun, LiveSetting, Paged, PoolFrame, Shrink, Sweep)

MISTRAL = presets.MODELS["mistral-7b"]          # v0.1: a sliding window in every layer

# -- formatting -----------------------------------------------------------------------------


def factor(x: float, tr: Translator) -> str:
    """"4×", "32×" for whole factors; three significant figures otherwise: "1.97×"."""
    if abs(x - round(x)) < 1e-9:
        return tr.times(x, 0)
    return tr.sig(x, 3) + "×"


def share(x: float | None, tr: Translator, digits: int = 0) -> str:
    return tr.pct(x, digits) if x is not None else "–"


def span(window: int, tr: Translator) -> str:
    return tr._("full context") if not window else tr._("window {w}", w=tr.int(window))


# -- the step and its parts -----------------------------------------------------------------

def lead(tr: Translator) -> str:
    return tr._("Fewer heads, fewer bits, fewer tokens: three ways to make the cache smaller, "
                "first computed for {model}. A fourth, paged memory, leaves the cache the same "
                "size but stops reserving memory for tokens that never come. Then everything "
                "runs for real on the live model.", model=REF.name)


def part_titles(tr: Translator) -> list[str]:
    return [tr._("A. Fewer heads, bits, tokens"), tr._("B. Paged memory"),
            tr._("C. On the live model"), tr._("D. Dropping tokens")]


def part_options(tr: Translator) -> dict:
    """The parts as the tabs name them: {title: part}."""
    return dict(zip(part_titles(tr), PARTS))


def parts_label(tr: Translator) -> str:
    """The accessible name of the row of tabs (the step's title)."""
    return tr._("Shrinking the cache")


def kv_options(tr: Translator) -> dict:
    return {tr._("{kind} ({n})", kind=presets.SHRINK_KV_HEAD_LABELS[k], n=tr.int(k)): k
            for k in KV_CHOICES}


def live_kv_options(heads: dict, tr: Translator) -> dict:
    """Part C's key/value heads, named by the live model's own: {"MHA (4)": 32, ...}.
    `heads`: {reference KV heads: the live variant's} (model.live_kv_heads)."""
    return {tr._("{kind} ({n})", kind=presets.SHRINK_KV_HEAD_LABELS[k], n=tr.int(heads[k])): k
            for k in KV_CHOICES}


def live_kv_label(tr: Translator) -> str:
    """Part C's key/value heads control: the live model's, not the reference model's."""
    return tr._("Key/value heads (the live model)")


def precision_options() -> dict:
    return {p: p for p in PRECISION_CHOICES}


def window_options(tr: Translator) -> dict:
    return {(tr._("Full context") if not w else
             tr.n_("{count} token", "{count} tokens", w, count=tr.int(w))): w
            for w in WINDOW_CHOICES}


def control_labels(tr: Translator) -> dict[str, str]:
    """The controls' labels, keyed by the model parameter each one sets."""
    return dict(kv_heads=tr._("Key/value heads ({model})", model=REF.name),
                precision=tr._("Cache precision"), window=tr._("Sliding window"),
                policy=tr._("Which tokens the cache keeps"),
                budget=tr._("Cache budget (tokens it may hold)"))


def all_numbers(tr: Translator) -> str:
    return tr._("All numbers")


# == Part A ===================================================================================

CARDS_A = (
    Card("per_token", N_("Cache per token (K and V, all layers)")),
    Card("tokens_kept", N_("Tokens kept in the cache, per sequence")),
    Card("cache_gb", N_("Cache for the batch (GB = 10⁹ bytes)")),
    Card("factor", N_("Shrink factor (baseline ÷ this setting)"), hidden=True),
)
MORE_A = (
    Card("cache_gib", N_("Cache for the batch in binary units (GiB = 2³⁰ bytes)")),
    Card("baseline_gb", N_("Baseline: MHA, fp16, full context")),
    Card("scales_per_token", N_("Quantization scales, per token")),
)


def part_a_values(a: Shrink, tr: Translator) -> dict:
    return dict(per_token=bytes_bin(a.per_token, tr, precise=True),
                tokens_kept=tr.int(a.tokens_kept),
                cache_gb=bytes_dec(a.bytes, tr), cache_gib=bytes_bin(a.bytes, tr, precise=True),
                factor=factor(a.factor, tr), baseline_gb=bytes_dec(a.baseline, tr),
                scales_per_token=bytes_bin(a.scales_per_token, tr, precise=True))


def _labels_a(tr: Translator) -> dict:
    return dict(per_token=tr.n_("Cache per token (K and V, {L} layer)",
                                "Cache per token (K and V, {L} layers)", REF.n_layers,
                                L=tr.int(REF.n_layers)),
                cache_gb=tr.n_("Cache for {b} sequence (GB = 10⁹ bytes)",
                               "Cache for {b} sequences (GB = 10⁹ bytes)", BATCH,
                               b=tr.int(BATCH)),
                cache_gib=tr.n_("Cache for {b} sequence in binary units (GiB = 2³⁰ bytes)",
                                "Cache for {b} sequences in binary units (GiB = 2³⁰ bytes)",
                                BATCH, b=tr.int(BATCH)))


def part_a_cards(a: Shrink, tr: Translator) -> list[dict]:
    """The four headline cards of Part A (the factor answers the question)."""
    return card_dicts(CARDS_A, part_a_values(a, tr), tr, _labels_a(tr))


def part_a_more(a: Shrink, tr: Translator) -> list[dict]:
    """The rest, under “All numbers”."""
    return card_dicts(MORE_A, part_a_values(a, tr), tr, _labels_a(tr))


def part_a_heading(tr: Translator) -> tuple[str, str]:
    return (tr._("A. Fewer heads, fewer bits, fewer tokens: computed for {model}",
                 model=REF.name),
            " ".join((
                tr._("{seqs}, {tokens} each ({model} handles up to {max}).",
                     seqs=counts.sequences(BATCH, tr), tokens=counts.tokens(CONTEXT, tr),
                     model=REF.name, max=tr.int(REF.max_context)),
                tr.n_("Baseline: full multi-head attention with {h} key/value head, one per "
                      "query head as in Llama 2 7B, fp16, the whole context kept.",
                      "Baseline: full multi-head attention with {h} key/value heads, one per "
                      "query head as in Llama 2 7B, fp16, the whole context kept.",
                      REF.n_heads, h=tr.int(REF.n_heads)),
                tr.n_("{model} itself was trained with {own} key/value head: the GQA setting.",
                      "{model} itself was trained with {own} key/value heads: the GQA setting.",
                      REF.n_kv_heads, model=REF.name, own=tr.int(REF.n_kv_heads)))))


def heads_line(a: Shrink, tr: Translator) -> str:
    q, kv = a.n_heads, a.kv_heads
    if kv == q:
        return tr._("{q}, {kv}: each query head has its own (MHA)",
                    q=counts.query_heads(q, tr), kv=counts.kv_heads(kv, tr))
    if kv == 1:
        return tr.n_("{q} query head has 1 key/value head (MQA)",
                     "{q} query heads share 1 key/value head (MQA)", q, q=tr.int(q))
    return tr.n_("{q} query head shares the key/value heads ({kv}): {g} per group (GQA)",
                 "{q} query heads share the key/value heads ({kv}): {g} per group (GQA)", q,
                 q=tr.int(q), kv=tr.int(kv), g=tr.int(a.group))


def heads(a: Shrink, tr: Translator) -> dict:
    """The query-head → key/value-head groups diagram (template heads.html.j2)."""
    return dict(line=heads_line(a, tr), groups=a.kv_heads, per_group=a.group,
                legend=[("query", tr._("Query head")), ("kv", tr._("Key/value head (cached)"))])


def smaller(a: Shrink, tr: Translator, concealed: bool = False) -> str:
    """This setting's bar label: its size and how much smaller than the baseline; while the
    question is open, the size alone (the factor is what it asks)."""
    size = bytes_dec(a.bytes, tr)
    if a.same_as_baseline:
        return tr._("{size} (same size as the baseline)", size=size)
    if concealed:
        return size
    return tr._("{size} ({f} smaller)", size=size, f=factor(a.factor, tr))


def bars(a: Shrink, tr: Translator, concealed: bool = False) -> dict:
    """Baseline against this setting, in GB (template bars.html.j2). While the question is
    open, the factor waits (“?”)."""
    kind = presets.SHRINK_KV_HEAD_LABELS[a.kv_heads]
    base, this = bytes_dec(a.baseline, tr), smaller(a, tr, concealed)
    return dict(
        caption=tr._("Cache of {seqs} × {tokens}, {model}, in GB (10⁹ bytes)",
                     seqs=counts.sequences(BATCH, tr), tokens=counts.tokens(CONTEXT, tr),
                     model=REF.name),
        desc=tr._("Bars: the baseline cache, {base}, and this setting's, {this}.", base=base,
                  this=this),
        rows=[dict(cls="baseline", name=tr._("Baseline"), frac=1.0, label=base),
              dict(cls="setting", name=tr._("This setting"), frac=a.bytes / a.baseline,
                   label=this)],
        legend=[("muted", tr._("Baseline: MHA, fp16, full context")),
                ("setting", tr._("This setting: {kind}, {p}, {w}", kind=kind, p=a.precision,
                                 w=span(a.window, tr)))])


def part_a_explain(a: Shrink, tr: Translator, concealed: bool = False) -> list[str]:
    """The arithmetic of this setting, in three sentences. The formula names the bytes, not
    the factor, so it says nothing the question asks until it is answered."""
    v = part_a_values(a, tr)
    out = [tr._("{per} per token × {tokens} × {seqs} = {gb} ({gib}); the baseline is {base} "
                "({base_gib}).", per=v["per_token"], tokens=counts.tokens(a.tokens_kept, tr),
                seqs=counts.sequences(BATCH, tr), gb=v["cache_gb"], gib=v["cache_gib"],
                base=bytes_dec(a.baseline, tr), base_gib=bytes_bin(a.baseline, tr, precise=True))]
    p = a.precision
    if a.quantized:
        out.append(tr.n_("{p}: each cached head vector of {d} value takes {vals} B of values "
                         "plus one fp16 scale of {s} B, {tot} B in all instead of {fp16} B in "
                         "fp16. That is {f} smaller, not {ideal}: the scales cost {scales} per "
                         "token.", "{p}: each cached head vector of {d} values takes {vals} B "
                         "of values plus one fp16 scale of {s} B, {tot} B in all instead of "
                         "{fp16} B in fp16. That is {f} smaller, not {ideal}: the scales cost "
                         "{scales} per token.", REF.head_dim, p=p, d=tr.int(REF.head_dim),
                         vals=tr.int(a.values_vec),
                        s=tr.int(a.scale_vec), tot=tr.int(a.vec), fp16=tr.int(a.fp16_vec),
                        f=factor(a.precision_factor, tr), ideal=factor(a.ideal_factor, tr),
                        scales=bytes_bin(a.scales_per_token, tr, precise=True)))
    elif p == "fp8":
        out.append(tr._("fp8: one byte per value. Its scale is one number per tensor, a few "
                        "bytes per layer whatever the length, so it is left out: exactly {f} "
                        "smaller than fp16.", f=factor(a.precision_factor, tr)))
    else:
        out.append(tr._("fp16: two bytes per value and no scales, as in the baseline."))
    if a.window:
        out.append(tr.n_("Window of {w} token: each sequence keeps only its last {w} token "
                         "of the context ({ctx}).", "Window of {w} tokens: each sequence keeps "
                         "only its last {w} tokens of the context ({ctx}).", a.window,
                         w=tr.int(a.window), ctx=tr.int(CONTEXT)))
    else:
        out.append(tr.n_("Full context: every one of the {ctx} token stays in the cache.",
                         "Full context: every one of the {ctx} tokens stays in the cache.",
                         CONTEXT, ctx=tr.int(CONTEXT)))
    return out


def part_a_look(tr: Translator) -> str:
    """Part A, what to press and watch (visible)."""
    return tr._("Choose the key/value heads, the precision and the window: the diagram shows "
                "which query heads share a key/value head, and the bars compare this "
                "setting's cache with the baseline.")


def part_a_narration(a: Shrink, tr: Translator) -> dict[str, list[str]]:
    """Part A's {"literature": papers and real models (Go deeper: in the literature), "why":
    the baseline against the weights (why it works)}."""
    literature = [
        tr._("Multi-query attention (MQA, Shazeer 2019) lets all query heads read one "
             "shared key/value head. Grouped-query attention (GQA, Ainslie et al. 2023) "
             "sits in between: the query heads form a few groups, and each group shares "
             "one key/value head. Llama 2 70B uses 8 key/value heads for its 64 query "
             "heads; Llama 2 7B keeps full multi-head attention with 32."),
        " ".join((
            tr._("The number of key/value heads, like a sliding window, is an architecture "
                 "choice: the model learns to work with it, so it is made before training or "
                 "followed by more training (Ainslie et al. 2023 turned multi-head checkpoints "
                 "into GQA with about 5 percent of their pre-training compute)."),
            tr.n_("Mistral 7B v0.1 attends to the last {w} token in each layer, so its cache "
                  "is a rolling buffer of {w} token.", "Mistral 7B v0.1 attends to the last "
                  "{w} tokens in each layer, so its cache is a rolling buffer of {w} tokens.",
                  MISTRAL.window, w=tr.int(MISTRAL.window)),
            tr.n_("Information can in theory still travel {w} × {L} = {reach} token back, one "
                  "window per layer; later versions dropped the window.",
                  "Information can in theory still travel {w} × {L} = {reach} tokens back, one "
                  "window per layer; later versions dropped the window.",
                  MISTRAL.window * MISTRAL.n_layers, w=tr.int(MISTRAL.window),
                  reach=tr.int(MISTRAL.window * MISTRAL.n_layers),
                  L=tr.int(MISTRAL.n_layers)))),
        tr._("A lower-precision cache is different: it can be switched on when serving an "
             "existing model. fp8 and int8 usually cost little accuracy; int4 often costs "
             "more, because a few channels of the keys hold outliers. That is why KIVI (Liu "
             "et al. 2024) and KVQuant (Hooper et al. 2024) quantize keys per channel, not per "
             "token as this step and the live model do."),
        tr._("Tokens can also be dropped by importance rather than by age: H2O (Zhang "
             "et al. 2023) keeps the “heavy hitter” tokens that collect most of the "
             "attention, plus the most recent ones. With heavy hitters at {share} of the "
             "cache, it reported up to {x} higher throughput than DeepSpeed Zero-Inference and "
             "Hugging Face Accelerate, and {y} higher than FlexGen, the strongest of the "
             "three, on OPT-6.7B and OPT-30B with part of the model and cache offloaded "
             "from the GPU.", share=tr.pct(H2O_SHARE), x=tr.times(H2O_SPEEDUP, 0),
             y=tr.times(H2O_FLEXGEN, 0)),
    ]
    why = [tr._("For scale: the baseline cache of {gb} is {r} times the {w} of the model's "
                "16-bit (bf16) weights.", gb=bytes_dec(a.baseline, tr),
                r=tr.num(a.baseline / a.weights, 1), w=tr.bytes(a.weights, "GB", 1))]
    return {"literature": literature, "why": why}


def question(q: HeadsQuestion, tr: Translator) -> dict:
    """Built from the learner's precision (and window): the factor does not depend on them,
    the bytes in the explanation do."""
    f = q.factor
    return dict(
        key=("step6", q.heads_from, q.heads_to),
        prompt=tr.n_("Switching {model} from {a} KV head (MHA) to {b} (GQA), at {p}: how "
                     "much smaller does the cache get?", "Switching {model} from {a} KV heads "
                     "(MHA) to {b} (GQA), at {p}: how much smaller does the cache get?",
                     q.heads_from, model=REF.name, a=tr.int(q.heads_from),
                     b=tr.int(q.heads_to), p=q.precision),
        options=[factor(f / 2, tr), factor(f, tr), factor(q.heads_from, tr)], correct=1,
        explain=tr.n_("The cache holds one key and one value vector per KV head, so its "
                      "size follows the number of KV heads: {a} ÷ {b} = {f}. At {p}, the {x} "
                      "per token become {y}. {model} was trained with {b} KV head, so this is "
                      "its real cache; the baseline is what the same model would need with "
                      "full multi-head attention.",
                      "The cache holds one key and one value vector per KV head, so its "
                      "size follows the number of KV heads: {a} ÷ {b} = {f}. At {p}, the {x} "
                      "per token become {y}. {model} was trained with {b} KV heads, so this "
                      "is its real cache; the baseline is what the same model would need with "
                      "full multi-head attention.", q.heads_to, a=tr.int(q.heads_from),
                      b=tr.int(q.heads_to),
                     f=tr.int(f), p=q.precision, x=bytes_bin(q.per_token_from, tr, precise=True),
                     y=bytes_bin(q.per_token_to, tr, precise=True), model=REF.name),
        points=["groups", "bar-setting"],     # the heads' groups, the shrunk bar (templates/)
        **question_labels(tr))


# == Part B ===================================================================================

CARDS_B = (
    Card("blocks_used", N_("Blocks in use"), "measured"),
    Card("paged_share", N_("With paging: share of used slots holding tokens"), "measured"),
    Card("reserved_share", N_("Without paging: share of the reservation holding tokens"),
         hidden=True),                      # answers Part B's question
    Card("sharing_saved", N_("Blocks saved by sharing"), "measured"),
)
MORE_B = (
    Card("slots_wasted", N_("Empty slots in used blocks"), "measured"),
    Card("copies_on_write", N_("Copies on write"), "measured"),
    Card("bytes_in_use", N_("Cache bytes in use (fp32)"), "measured"),
    Card("reserved", N_("Reserved without paging")),
)
OWNERS = ("prefix", "A", "B", "C")          # the demo's sequences that have a colour


def part_b_heading(tr: Translator) -> str:
    return tr._("B. No waste: paged memory on the live model")


def part_b_idea(tr: Translator) -> str:
    """Part B's one idea (visible, before what to look at)."""
    return tr._("Paged memory cuts the cache into fixed-size blocks, taken from a shared pool "
                "only when a sequence needs them, instead of reserving room for the longest "
                "sequence a request might reach.")


def part_b_narration(p: Paged | None, tr: Translator) -> dict[str, list[str]]:
    """{"look": what to press and what a cell is (visible), "literature": the paper's idea and
    its measurements (Go deeper: in the literature)}."""
    literature = [
        tr._("PagedAttention (vLLM, Kwon et al. 2023) removes another waste. Instead of "
             "reserving one buffer per request for the longest sequence it might reach, "
             "the cache is cut into fixed-size blocks taken from a shared pool only when "
             "a sequence needs them. A block table maps each sequence's blocks to "
             "physical blocks, and requests that start with the same prefix share its "
             "blocks."),
    ]
    look = [
        tr._("In the figure, a real block pool of the live model: a shared prefix is "
             "prefilled once, requests A, B and C start from it, add their own words and "
             "then generate in turns; every number is read from the pool. Press Play, or "
             "Step forward (the “.” key), to go through it one event at a time."),
    ]
    if p is not None:
        look.append(tr.n_("Each cell is one physical block of {bs} token slot; filled slots "
                          "hold a token, white slots are reserved but still empty.",
                          "Each cell is one physical block of {bs} token slots; filled slots "
                          "hold a token, white slots are reserved but still empty.",
                          p.block_size, bs=tr.int(p.block_size)))
        literature.append(tr.n_(
            "Without paging, a server reserves room for the longest sequence a request might "
            "reach: here the live model's full context of {max} token each. Kwon et al. (2023) "
            "measured that earlier serving systems used only {lo} to {hi} of their reserved KV "
            "memory for real tokens; vLLM, with paged blocks, reached 2–4× their throughput at "
            "the same latency.",
            "Without paging, a server reserves room for the longest sequence a request might "
            "reach: here the live model's full context of {max} tokens each. Kwon et al. (2023) "
            "measured that earlier serving systems used only {lo} to {hi} of their reserved KV "
            "memory for real tokens; vLLM, with paged blocks, reached 2–4× their throughput at "
            "the same latency.", p.max_len, max=tr.int(p.max_len), lo=tr.pct(KWON_LO, 1),
            hi=tr.pct(KWON_HI, 1)))
    return {"look": look, "literature": literature}


def live_notices(status: str, error: str, tr: Translator, *, kind: str, shown: bool) -> list:
    """What a LiveValue's state means to the learner (`kind`: "paged" or "live")."""
    if status == "failed":
        if kind == "paged":
            return [tr._("The live model could not run the paged demo: {error}", error=error)]
        return [tr._("The live model could not run this setting: {error}", error=error)]
    if status in ("pending", "idle"):
        if kind == "paged":
            return [tr._("Running the requests on the live model's block pool…")]
        return [tr._("Measuring this setting on the live model…") +
                (" " + tr._("Meanwhile the previous result is shown.") if shown else "")]
    return []


def seq_name(sid: str, tr: Translator) -> str:
    if sid == "prefix":
        return tr._("Shared prefix")
    return tr._("Request {name}", name=sid)


def words_text(n: int, tr: Translator) -> str:
    """A request's own words, counted: “3 words”."""
    return tr.n_("{count} word", "{count} words", n, count=tr.int(n))


def caption(f: PoolFrame, tr: Translator) -> str:
    """What this event did to the pool, in one or two sentences."""
    sid, table = f.seq, f.table(f.seq)
    if f.event == "prefill" and sid == "prefix":
        return tr.n_("The shared prefix ({tokens}) is prefilled once, into {count} block.",
                     "The shared prefix ({tokens}) is prefilled once, into {count} blocks.",
                     len(table), tokens=counts.tokens(f.length(sid), tr),
                     count=tr.int(len(table)))
    if f.event == "fork":
        return tr.n_("Request {name} shares the prefix's {count} block: nothing is copied, "
                     "its reference count goes up.",
                     "Request {name} shares the prefix's {count} blocks: nothing is copied, "
                     "their reference counts go up.",
                     len(table), name=sid, count=tr.int(len(table)))
    if f.event == "prefill":
        if f.copies:
            return tr.n_("Request {name} writes its own text ({words}). The prefix's last "
                         "block is only partly filled and shared, so it is copied first (copy "
                         "on write): {count} new block in all.",
                         "Request {name} writes its own text ({words}). The prefix's last "
                         "block is only partly filled and shared, so it is copied first (copy "
                         "on write): {count} new blocks in all.",
                         f.new_blocks, name=sid, words=words_text(f.words, tr),
                         count=tr.int(f.new_blocks))
        return tr.n_("Request {name} writes its own text ({words}) into {count} new block.",
                     "Request {name} writes its own text ({words}) into {count} new blocks.",
                     f.new_blocks, name=sid, words=words_text(f.words, tr),
                     count=tr.int(f.new_blocks))
    if f.event == "decode":
        if f.new_blocks:
            return tr._("A new block for request {name}: its last block was full, so "
                        "token {t} starts block {b}.", name=sid, t=tr.int(f.length(sid)),
                        b=tr.int(table[-1]))
        return tr._("Request {name} writes token {t} into a free slot of its last block "
                    "{b}: no new memory.", name=sid, t=tr.int(f.length(sid)),
                    b=tr.int(table[-1]))
    if f.event == "free":
        if sid == "prefix":
            return tr.n_("The prefix request itself is done: {count} block that only it held "
                         "goes back to the pool; the blocks other requests share stay.",
                         "The prefix request itself is done: {count} blocks that only it held "
                         "go back to the pool; the blocks other requests share stay.",
                         f.freed, count=tr.int(f.freed))
        if f.freed == f.held:
            return tr.n_("Request {name} finished: its {count} block is freed.",
                         "Request {name} finished: its {count} blocks are freed.",
                         f.freed, name=sid, count=tr.int(f.freed))
        return tr.n_("Request {name} finished: {n} of its blocks ({m} in all) is freed; a "
                     "block still shared only loses one owner.",
                     "Request {name} finished: {n} of its blocks ({m} in all) are freed; a "
                     "block still shared only loses one owner.", f.freed, name=sid,
                     n=tr.int(f.freed), m=tr.int(f.held))
    return ""


def pool_values(f: PoolFrame, tr: Translator) -> dict:
    return dict(
        blocks_used=tr._("{used} of {total}", used=tr.int(f.blocks_used),
                         total=tr.int(f.blocks_total)),
        paged_share=share(f.paged_share, tr), reserved_share=share(f.reserved_share, tr, 1),
        sharing_saved=tr.int(f.sharing_saved), slots_wasted=tr.int(f.slots_wasted),
        copies_on_write=tr.int(f.copies_on_write),
        bytes_in_use=bytes_bin(f.nbytes, tr, precise=True),
        reserved=bytes_bin(f.reserved, tr, precise=True))


def pool_cards(f: PoolFrame, p: Paged, tr: Translator) -> list[dict]:
    """Headline cards, then the rest marked `more` (the stage puts them under “All
    numbers”)."""
    values = pool_values(f, tr)
    labels = dict(reserved=tr.n_("Reserving {tokens} for {count} request",
                                 "Reserving {tokens} for each of {count} requests",
                                 f.n_requests, tokens=counts.tokens(p.max_len, tr),
                                 count=tr.int(f.n_requests)))
    return (card_dicts(CARDS_B, values, tr) +
            [dict(c, more=True) for c in card_dicts(MORE_B, values, tr, labels)])


class PoolBlock(TypedDict):
    """A physical block of the pool."""
    id: str                  # its number, as written
    owners: list[str]        # the sequences that hold it
    fill: int                # its token slots filled
    ref: int                 # its reference count
    changed: bool            # changed by this event (outlined)
    cls: str                 # free, shared, or own-<sequence>
    who: str                 # the owners' letters
    mark: str                # “×n” when shared


class PoolTableBlock(TypedDict):
    id: str
    shared: bool


class PoolTable(TypedDict):
    """A sequence's block table."""
    name: str
    cls: str
    tokens: str
    blocks: list[PoolTableBlock]


class PoolFig(TypedDict):
    """One event of js/draw/pool.js: the block pool and the block tables."""
    bs: int                  # tokens per block
    cols: int                # blocks per row
    blocks: list[PoolBlock]
    tables: list[PoolTable]


class PoolStageFrame(Frame):
    fig: PoolFig


def pool_fig(f: PoolFrame, p: Paged, tr: Translator) -> PoolFig:
    """The numbers the browser draws: one cell per physical block, one row per block table."""
    owned = set(OWNERS)
    return dict(
        bs=p.block_size, cols=8,
        blocks=[dict(id=tr.int(i), owners=list(b.owners), fill=b.fill, ref=b.ref,
                     changed=b.changed,
                     cls=("free" if not b.owners else "shared" if b.ref > 1 else
                          "own-" + (b.owners[0] if b.owners[0] in owned else "other")),
                     who=" ".join("P" if s == "prefix" else s for s in b.owners),
                     mark=f"×{tr.int(b.ref)}" if b.ref > 1 else "")
                for i, b in enumerate(f.blocks)],
        tables=[dict(name=seq_name(sid, tr),
                     cls="own-" + (sid if sid in owned else "other"),
                     tokens=tr.n_("{count} token", "{count} tokens", n, count=tr.int(n)),
                     blocks=[dict(id=tr.int(b), shared=f.blocks[b].ref > 1) for b in ids])
                for sid, ids, n in f.tables])


def pool_table(f: PoolFrame, tr: Translator) -> dict:
    """The block tables as text: the figure's twin."""
    def ids(blocks):
        return ", ".join(tr.int(b) + (f" (×{tr.int(f.blocks[b].ref)})" if f.blocks[b].ref > 1
                                       else "") for b in blocks)
    return dict(head=[tr._("Sequence"), tr._("Tokens"), tr._("Block table (physical block ids)")],
                rows=[[seq_name(sid, tr), tr.int(n), ids(blocks)] for sid, blocks, n in f.tables])


def paged_frames(p: Paged | None, tr: Translator) -> list[PoolStageFrame]:
    """Every event of the block pool, in words and numbers, for the browser's player."""
    if p is None:
        return []
    out, n = [], p.n_frames
    for i, f in enumerate(p.frames):
        cap = caption(f, tr)
        if not f.tables:
            cap += " " + tr._("Every request has finished: the block tables are empty and the "
                              "whole pool is free again.")
        shared = sum(1 for b in f.blocks if b.ref > 1)
        out.append(dict(
            pos=tr._("Event {i} of {n}", i=tr.int(i + 1), n=tr.int(n)),
            say=cap, caption=cap,
            desc=tr.n_("A pool of {total} block: {used} in use, {shared} of them shared.",
                       "A pool of {total} blocks: {used} in use, {shared} of them shared.",
                       f.blocks_total, total=tr.int(f.blocks_total),
                       used=tr.int(f.blocks_used), shared=tr.int(shared)),
            cards=pool_cards(f, p, tr), table=pool_table(f, tr), fig=pool_fig(f, p, tr)))
    return out


class PoolStageText(StageText):
    """The pool's labels (js/draw/pool.js)."""
    block: str
    free: str
    tables: str              # the block tables' heading


def pool_stage_text(tr: Translator) -> PoolStageText:
    return dict(player_text(tr), figure=tr._("The live model's block pool"),
                block=tr._("Block"), free=tr._("free"), tables=tr._("Block tables"))


def pool_legend(tr: Translator) -> list[tuple[str, str]]:
    return [("free", tr._("Free block")),
            ("shared", tr._("Prefix block (hatched and ×n: shared by n sequences)")),
            ("req-a", seq_name("A", tr)), ("req-b", seq_name("B", tr)),
            ("req-c", seq_name("C", tr)), ("changed", tr._("Changed by this event"))]


def pool_question_event(p: Paged) -> int:
    """The event Part B's question is about: the one with the most tokens in the pool (the
    first, if several tie)."""
    return max(range(p.n_frames), key=lambda i: (p.frames[i].tokens, -i))


def pool_question(p: Paged, tr: Translator) -> dict:
    """Part B's prediction, from the pool on screen: without paging, what share of the
    reserved memory holds tokens at its fullest event? The options: the right share, the
    share of one reservation (forgetting that every request has its own), and the share
    paging reaches. `reveal`: the event the answer talks about (the player goes there)."""
    i = pool_question_event(p)
    f = p.frames[i]
    slots = f.n_requests * p.max_len
    right, one, paged = f.tokens / slots, f.tokens / p.max_len, f.paged_share or 0.0
    shares = [right]
    for x in (one, paged):
        if tr.pct(x, 1) not in {tr.pct(y, 1) for y in shares}:
            shares.append(x)
    shares.sort()
    return dict(
        key=("step6", "b", i, f.n_requests, f.tokens, p.max_len),
        prompt=" ".join((
            tr.n_("Without paging, a server reserves room for {max} token for every request, "
                  "the longest it might reach.", "Without paging, a server reserves room for "
                  "{max} tokens for every request, the longest it might reach.", p.max_len,
                  max=tr.int(p.max_len)),
            tr.n_("At event {e} there is {count} request, holding {tokens} in all.",
                  "At event {e} there are {count} requests, holding {tokens} in all.",
                  f.n_requests, e=tr.int(i + 1), count=tr.int(f.n_requests),
                  tokens=counts.tokens(f.tokens, tr)),
            tr._("What share of the reserved memory holds tokens?"))),
        options=[tr.pct(x, 1) for x in shares], correct=shares.index(right),
        explain=" ".join((
            tr._("Reserved token slots: {count} × {max} = {slots}, and {t} of them hold a "
                 "token: {t} ÷ {slots} = {share}. The rest waits for tokens that may never "
                 "come.", count=tr.int(f.n_requests), max=tr.int(p.max_len),
                 slots=tr.int(slots), t=tr.int(f.tokens), share=tr.pct(right, 1)),
            tr.n_("The paged pool holds the same tokens in {b} block (block size: {bs}), its "
                  "slots {paged} filled: it takes memory only as tokens arrive.",
                  "The paged pool holds the same tokens in {b} blocks (block size: {bs}), their "
                  "slots {paged} filled: it takes memory only as tokens arrive.",
                  f.blocks_used, b=tr.int(f.blocks_used), bs=tr.int(p.block_size),
                  paged=share(f.paged_share, tr)))),
        reveal=dict(frame=i),
        points=["used"],               # the blocks that hold tokens (js/draw/pool.js)
        **question_labels(tr))


# == Part C ===================================================================================

CARDS_C = (
    Card("live_bytes", N_("Bytes the cache stores at the end ({what})"), "measured"),
    Card("live_factor_base", N_("Smaller than the live model's MHA fp16 full cache"),
         "measured"),
    Card("live_top1", N_("Top-1 agreement with the exact cache"), "measured"),
    Card("live_dlogit", N_("Largest |Δ logit| against the exact cache"), "measured"),
)
OUTPUT_CARDS = ("live_top1", "live_dlogit")    # how much a setting changes the output
MORE_C = (
    Card("live_exact_bytes", N_("Exact fp32 cache of the same model"), "measured"),
    Card("live_factor_exact", N_("Smaller than its exact cache"), "measured"),
)


def part_c_heading(tr: Translator) -> str:
    return tr._("C. The same choices, run for real on the live model")


def live_values(r: LiveRun, tr: Translator) -> dict:
    return dict(live_bytes=bytes_bin(r.nbytes, tr, precise=True),
                live_exact_bytes=bytes_bin(r.exact_nbytes, tr, precise=True),
                live_factor_exact=factor(r.factor_exact, tr),
                live_factor_base=factor(r.factor_base, tr), live_top1=tr.pct(r.top1, 0),
                live_dlogit=tr.sig(r.dlogit, 3))


def _what(r: LiveRun, tr: Translator) -> str:
    """The live run the bytes are of: its variant, its storage and its window."""
    if r.window:
        return tr._("{variant}, {kind}, window W = {W}", variant=r.variant, kind=r.kind,
                    W=tr.int(r.window))
    return tr._("{variant}, {kind}", variant=r.variant, kind=r.kind)


def live_cards(r: LiveRun | None, tr: Translator, conceal: bool = False) -> list[dict]:
    """The headline cards of Part C. `conceal`: this setting is one Part C's question asks
    about, so how much it changes the output (top-1, |Δ logit|) waits for the answer."""
    if r is None:
        return []
    labels = dict(live_bytes=tr._("Bytes the cache stores at the end ({what})",
                                  what=_what(r, tr)))
    cards = card_dicts(CARDS_C, live_values(r, tr), tr, labels)
    return [dict(c, hidden=True) if conceal and c["key"] in OUTPUT_CARDS else c for c in cards]


def live_more(r: LiveRun | None, tr: Translator) -> list[dict]:
    if r is None:
        return []
    return card_dicts(MORE_C, live_values(r, tr), tr)


def live_mapping(s: LiveSetting, tr: Translator) -> dict[str, list[str]]:
    """How the learner's choices for the reference model map onto the live run, in plain
    sentences: {"look": which live model runs, and its window or its cache's precision
    (visible); "live": what the bytes count, the prompt, how the models were trained}."""
    P = len(s.ids)
    lines = [tr.n_("The live model has {q} query head and was trained three times: as MHA, "
                   "GQA and MQA. {kind} runs its “{variant}” version, with {kv}.",
                   "The live model has {q} query heads and was trained three times: as MHA, "
                   "GQA and MQA. {kind} runs its “{variant}” version, with {kv}.", s.n_heads,
                   q=tr.int(s.n_heads), kind=presets.SHRINK_KV_HEAD_LABELS[s.kv_heads],
                   variant=s.variant, kv=counts.kv_heads(s.n_kv_heads, tr))]
    live = []
    if s.W:
        lines.append(tr._(
            "Window {w} keeps {share} of each {ctx}-token sequence; the live run keeps "
            "the same share of its positions ({total}): a window of W = {W}.",
            w=tr.int(s.window), share=tr.pct(s.window / CONTEXT), ctx=tr.int(CONTEXT),
            total=tr.int(P + N_NEW), W=tr.int(s.W)))
    lines.append(tr._("The live cache stores its keys and values in {p}.", p=s.kind))
    if s.kind in ("int8", "int4"):
        live.append(tr._(
            "With {p}, the bytes counted are what the cache has to store: the quantized "
            "values and their fp16 scales. To compute with them, this simple implementation "
            "also keeps every row dequantized to fp32, so the live process holds more "
            "memory than the exact cache; an optimized kernel reads the quantized values "
            "directly.", p=s.kind))
    live.append(" ".join((
        tr.n_("Prompt: the first {P} token of a passage.",
              "Prompt: the first {P} tokens of a passage.", P, P=tr.int(P)),
        tr.n_("Then the model generates {n} token.", "Then the model generates {n} tokens.",
              N_NEW, n=tr.int(N_NEW)),
        tr.n_("The cache ends with {t} token: the last generated token is never fed back.",
              "The cache ends with {t} tokens: the last generated token is never fed back.",
              P + N_NEW - 1, t=tr.int(P + N_NEW - 1)))))
    live.append(tr._(
        "The live MHA, GQA and MQA models were trained separately, each with its number of "
        "key/value heads from the start. So compare their bytes, and judge each one's output "
        "only against its own exact (fp32) cache."))
    return {"look": lines, "live": live}


def part_c_look(tr: Translator) -> str:
    """Part C, what to press and watch (visible)."""
    return tr._("Choose a setting and compare the bytes on the cards and the two "
                "continuations: where this cache's words differ from the exact run's, they "
                "are marked.")


def live_setting_notices(s: LiveSetting, tr: Translator) -> list[str]:
    """Where the live run cannot do exactly what the reference setting says (a window is
    kept in the precision chosen, as the full cache is)."""
    if s.precision == "fp8":
        return [tr._("The live model has no fp8 cache: measured with fp16 instead.")]
    return []


def continuations(r: LiveRun | None, tr: Translator) -> dict | None:
    """The two continuations side by side, token by token (each a box when projected); this
    cache's words that differ from the exact run's at the same position are marked (template
    continuations.html.j2)."""
    if r is None:
        return None
    # the tokens as text is written (“seen, which”): a space only where `join` puts one
    marked = [dict(text=t, sp=sp, diff=(k >= len(r.exact_tokens) or t != r.exact_tokens[k]))
              for k, (t, sp) in enumerate(zip(r.tokens, spaced(list(r.tokens))))]
    exact = [dict(text=t, sp=sp, diff=False)
             for t, sp in zip(r.exact_tokens, spaced(list(r.exact_tokens)))]
    same = not any(m["diff"] for m in marked) and len(r.tokens) == len(r.exact_tokens)
    return dict(
        prompt_label=tr._("Prompt"), prompt=r.prompt_text,
        head=[tr._("Continuation with this cache"), tr._("Continuation with the exact fp32 cache")],
        this=marked, exact=exact,
        note=(tr._("The two continuations are identical.") if same else
              tr._("Words where this cache's continuation differs from the exact one are "
                   "marked.")),
        explain=tr.n_("Top-1 agreement: the exact run's tokens are fed in, and at each of the "
                      "{n} step we check whether this cache would pick the same next token. "
                      "|Δ logit| is the largest difference of any next-token score.",
                      "Top-1 agreement: the exact run's tokens are fed in, and at each of the "
                      "{n} steps we check whether this cache would pick the same next token. "
                      "|Δ logit| is the largest difference of any next-token score.", N_NEW,
                      n=tr.int(N_NEW)))


def continuations_wait(tr: Translator) -> str:
    """In place of the continuations while they would answer Part C's question."""
    return tr._("The two continuations appear once you have answered the question.")


def live_facts(r: LiveRun | None, tr: Translator) -> str:
    if r is None:
        return ""
    return tr._("Live model “{variant}”: {layers}, {heads}, {kv}, head_dim {d}, running on "
                "{device}.", variant=r.variant, layers=counts.layers(r.n_layers, tr),
                heads=counts.query_heads(r.n_heads, tr), kv=counts.kv_heads(r.n_kv_heads, tr),
                d=tr.int(r.head_dim), device=r.device)


# Part C's prediction: which of these settings (precision, window) changes the live model's
# next-token choices most, against its exact cache
QUESTION_C = (("int8", 0), ("int4", 0), ("fp16", 4096))


def output_changed(r: LiveRun) -> tuple:
    """How much a setting changed the output, for ordering: fewer agreeing choices first,
    then the larger |Δ logit|."""
    return (r.top1, -r.dlogit)


def live_question(runs: list[LiveRun], tr: Translator) -> dict:
    """Part C's prediction, from the live runs of QUESTION_C's settings on the variant on
    screen. `reveal`: the setting the answer talks about (the controls go there)."""
    r8, r4, rw = runs
    correct = min(range(len(runs)), key=lambda i: output_changed(runs[i]))
    if correct == 2:
        why = tr._("Rounding each stored number to 8 or 4 bits moves the attention scores only "
                   "a little; the window drops the oldest tokens, and no later query can read "
                   "them again.")
    else:
        why = tr._("Here rounding every stored number to {p} moved the attention scores more "
                   "than dropping the oldest tokens did.", p=runs[correct].kind)
    precision, window = QUESTION_C[correct]
    return dict(
        # what it asks about, never its answer (the key travels in the page's state)
        key=("step6", "c", rw.variant, rw.window),
        prompt=tr.n_("The live “{variant}” model generates {n} token, once with each of these "
                     "caches. Which one changes its choice of the next token most often, "
                     "compared with its exact fp32 cache?", "The live “{variant}” model "
                     "generates {n} tokens, once with each of these caches. Which one changes "
                     "its choice of the next token most often, compared with its exact fp32 "
                     "cache?", N_NEW, variant=rw.variant, n=tr.int(N_NEW)),
        options=[r8.kind, r4.kind,
                 tr.n_("A window of {w} token (here W = {W})", "A window of {w} tokens (here "
                       "W = {W})", QUESTION_C[2][1], w=tr.int(QUESTION_C[2][1]),
                       W=tr.int(rw.window or 0))],
        correct=correct,
        explain=tr.n_("Measured over the {n} choice, the exact cache's next token was kept "
                      "{a} of the time with int8, {b} with int4 and {c} with the window.",
                      "Measured over the {n} choices, the exact cache's next token was kept "
                      "{a} of the time with int8, {b} with int4 and {c} with the window.",
                      N_NEW, n=tr.int(N_NEW), a=tr.pct(r8.top1, 0), b=tr.pct(r4.top1, 0),
                      c=tr.pct(rw.top1, 0)) + " " + why,
        reveal=dict(precision=precision, window=window),
        **question_labels(tr))


# == Part D ===================================================================================

# each policy named with the positions it runs: the kept keys stay at their positions in the
# text (StreamingLLM itself renumbers them inside the cache; the Go deeper measures both). A
# window keeps no gaps, so both numberings are the same run there.
POLICY_NAMES = {"window": N_("Recent window"),
                "sinks": N_("Sinks + recent tokens as in StreamingLLM, at original positions"),
                "h2o": N_("Heavy hitters + recent tokens as in H2O, at original positions")}
POLICY_SHORT = {"window": N_("Recent window"), "sinks": N_("Sinks + recent"),
                "h2o": N_("Heavy hitters + recent")}
# Part D's question: how many policies stay near the full cache at the question's budget
COUNT_OPTIONS = (N_("All three"), N_("One or two of them"), N_("None of them"))
# the Go deeper's verdicts on where the attention goes: the first tokens are sinks when they
# draw at least SINK_RATIO times an even share (big trained models: many times), and the
# reading leans to the latest tokens when they draw at least LEAN_RATIO times theirs
SINK_RATIO, LEAN_RATIO = 2.0, 1.5
ROLE_CODES = {"sink": "s", "heavy": "h", "recent": "r"}     # fig.roles; "x": dropped
# StreamingLLM (Xiao et al. 2023): 4 initial tokens kept as attention sinks, streaming
# language modelling up to 4 million tokens with Llama 2, MPT, Falcon and Pythia
SINKS_PAPER, STREAM_TOKENS = 4, 4_000_000

CARDS_D = (
    Card("evict_agree", N_("This step: same next token as the full cache"), "measured",
         hidden=True),
    Card("evict_kl", N_("This step: KL divergence from the full cache"), "measured",
         hidden=True),
    Card("evict_bytes", N_("Cache bytes: this policy / the full cache"), "measured"),
    Card("evict_dlogit", N_("This step: largest |Δ logit|"), "measured", hidden=True,
         more=True),
    Card("evict_kept", N_("Tokens in the cache / tokens so far"), "measured", more=True),
)
# the whole run's numbers count the steps after the first: the first reads the whole prompt
# before anything is dropped, so it is the full cache's by construction (rt.EvictionRun)
RUN_D = (
    Card("evict_agreement", N_("Top-1 agreement with the full cache, steps after the first"),
         "measured", hidden=True),
    Card("evict_mean_kl", N_("Mean KL divergence, steps after the first"), "measured",
         hidden=True),
    Card("evict_max_dlogit", N_("Largest |Δ logit|, steps after the first"), "measured",
         hidden=True),
    Card("evict_end_bytes", N_("Cache at the end: this policy / the full cache"), "measured"),
)


def policy_name(policy: str, tr: Translator) -> str:
    return tr._(POLICY_NAMES[policy])


def policy_options(tr: Translator) -> dict:
    return {policy_name(p, tr): p for p in POLICY_CHOICES}


def policy_short(tr: Translator) -> dict:
    """The policies' short names: on the projected control (the labels stay for screen
    readers) and where a sentence names the policy played. Which tokens each keeps, not a
    paper's name: the paper's positions are not the ones played (POLICY_NAMES)."""
    return {p: tr._(POLICY_SHORT[p]) for p in POLICY_CHOICES}


def budget_short(tr: Translator) -> dict:
    """The budgets on the projected control: the numbers alone (its label says tokens)."""
    return {b: tr.int(b) for b in BUDGET_CHOICES}


def budget_options(tr: Translator) -> dict:
    return {tr.n_("{count} token", "{count} tokens", b, count=tr.int(b)): b
            for b in BUDGET_CHOICES}


def part_d_heading(tr: Translator) -> str:
    return tr._("D. Dropping tokens: eviction on the live model")


def part_d_idea(tr: Translator) -> str:
    """Part D's one idea (visible)."""
    return tr._("A cache with a budget of B tokens must drop one token for each new one: "
                "that is eviction. A recent window drops the oldest. StreamingLLM also keeps "
                "the first few tokens, the attention sinks. H2O keeps the heavy hitters, the "
                "tokens that have received the most attention so far.")


def part_d_look(tr: Translator) -> str:
    """What to press and watch (visible)."""
    return tr._("Pick a policy and a budget, then press Play: each box is a token, filled "
                "boxes are in the cache and struck ones are gone for good. The cards compare "
                "each next token with the full cache's.")


def kl(x: float, tr: Translator) -> str:
    return tr._("{x} nats", x=tr.sig(x, 2))


def of_full(nbytes: int, full: int, tr: Translator) -> str:
    return tr._("{used} of {total}", used=bytes_bin(nbytes, tr, precise=True),
                total=bytes_bin(full, tr, precise=True))


def run_cards(run, tr: Translator) -> list[dict]:
    """The whole run's cards (right column); those that answer the question are marked
    (`hidden`): the page's state sends them as “?” until it is answered (steps/ui/conceal.py)."""
    if run is None:
        return []
    values = dict(evict_agreement=tr.pct(run.agreement, 0), evict_mean_kl=kl(run.mean_kl, tr),
                  evict_max_dlogit=tr.sig(run.max_dlogit, 3),
                  evict_end_bytes=of_full(run.nbytes, run.full_nbytes, tr))
    return card_dicts(RUN_D, values, tr)


def frame_cards(f, seen: int, tr: Translator) -> list[dict]:
    values = dict(evict_agree=tr._("yes") if f.agree else tr._("no"), evict_kl=kl(f.kl, tr),
                  evict_bytes=of_full(f.nbytes, f.full_nbytes, tr),
                  evict_dlogit=tr.sig(f.max_dlogit, 3),
                  evict_kept=tr._("{used} of {total}", used=tr.int(len(f.kept)),
                                  total=tr.int(seen)))
    return card_dicts(CARDS_D, values, tr)


def role_name(role: str, tr: Translator) -> str:
    return {"sink": tr._("Attention sink"), "heavy": tr._("Heavy hitter"),
            "recent": tr._("Recent token"), "gone": tr._("Dropped (evicted)")}[role]


def strip_roles(f, seen: int) -> str:
    """One letter per position so far: s sink, h heavy hitter, r recent, x dropped."""
    codes = ["x"] * seen
    for pos, role in f.kept:
        if 0 <= pos < seen:
            codes[pos] = ROLE_CODES.get(role, "r")
    return "".join(codes)


class SweepLine(TypedDict):
    """A policy's measured top-1 agreement at every budget, in %."""
    key: str
    name: str
    points: list[float] | None   # null while the question is open


class SweepFig(TypedDict):
    """The agreement-against-budget chart under the strip."""
    budgets: list[str]       # the budgets, as written
    values: list[int]        # the budgets
    yticks: list[Tick]
    lines: list[SweepLine]
    current: tuple[str, int] | None   # [policy, budget] of the run on screen


class StripFig(TypedDict):
    """One generated token of js/draw/strip.js: the text so far as a strip of tokens."""
    words: list[str]         # the tokens so far
    roles: str               # one letter a position: s sink, h heavy hitter, r recent, x dropped
    query: int               # the newest query's position
    next: str                # the token the full cache's run writes next
    agree: bool | None       # this cache's top choice agrees (null until the answer)
    sweep: SweepFig | None   # null until measured


class StripStageFrame(Frame):
    fig: StripFig


def sweep_fig(sw: Sweep | None, run, tr: Translator, concealed: bool) -> SweepFig | None:
    """The agreement-against-budget chart's data (None until measured; no points while the
    question is open)."""
    if sw is None:
        return None
    return dict(
        budgets=[tr.int(b) for b in BUDGET_CHOICES], values=list(BUDGET_CHOICES),
        yticks=[[v, tr.pct(v / 100, 0)] for v in (0, 25, 50, 75, 100)],
        lines=[dict(key=p, name=policy_name(p, tr),
                    points=None if concealed else [round(100 * a, 2) for _, a, _ in pts])
               for p, pts in sw.rows],
        current=[run.policy, run.budget] if run is not None else None)


def sweep_table(sw: Sweep | None, tr: Translator, concealed: bool) -> dict | None:
    """The chart as text: one row per policy, one column per budget."""
    if sw is None:
        return None
    return dict(head=[tr._("Policy"), *(tr.n_("{count} token", "{count} tokens", b,
                                              count=tr.int(b)) for b in BUDGET_CHOICES)],
                rows=[[policy_name(p, tr), *("?" if concealed else tr.pct(a, 0)
                                             for _, a, _ in pts)] for p, pts in sw.rows])


def eviction_frames(run, sw: Sweep | None, concealed: bool,
                    tr: Translator) -> list[StripStageFrame]:
    """One frame per generated token of the run: the text so far as a strip of tokens (kept
    by role, or dropped), the newest query, the next token and the numbers of this step."""
    if run is None:
        return []
    words = [*run.prompt, *(f.token for f in run.frames)]
    P, n = len(run.prompt), len(run.frames)
    chart = sweep_fig(sw, run, tr, concealed)
    out = []
    for i, f in enumerate(run.frames):
        seen = max(P + i, 1 + max((pos for pos, _ in f.kept), default=-1))
        roles = strip_roles(f, seen)
        count = {r: roles.count(c) for r, c in (*ROLE_CODES.items(), ("gone", "x"))}
        kept = len(f.kept)
        cap = tr.n_("The cache holds {count} of the {seen} token so far ({policy}).",
                    "The cache holds {count} of the {seen} tokens so far ({policy}).",
                    seen, count=tr.int(kept), seen=tr.int(seen),
                    policy=policy_short(tr)[run.policy])
        if count["gone"]:
            cap += " " + tr.n_("{count} token is gone for good.",
                               "{count} tokens are gone for good.", count["gone"],
                               count=tr.int(count["gone"]))
        if not concealed:
            cap += " " + (tr._("Next token “{t}”: the same choice as with the full cache.",
                               t=f.token) if f.agree else
                          tr._("Next token “{t}” with the full cache: this cache's top choice "
                               "is a different one.", t=f.token))
        rows = []
        for role in ("sink", "heavy", "recent", "gone"):
            code = ROLE_CODES.get(role, "x")
            at = [k for k in range(seen) if roles[k] == code]
            if at:
                rows.append([role_name(role, tr),
                             ", ".join(tr._("{t} ({pos})", t=words[k], pos=tr.int(k))
                                       for k in at)])
        out.append(dict(
            pos=tr._("Token {i} of {n}", i=tr.int(i + 1), n=tr.int(n)),
            say=cap, caption=cap,
            desc=tr._("The text so far as boxes ({seen}). In the cache: attention sinks "
                      "{sinks}, heavy hitters {heavy}, recent tokens {recent}; dropped: {gone}.",
                      seen=tr.int(seen), sinks=tr.int(count["sink"]),
                      heavy=tr.int(count["heavy"]), recent=tr.int(count["recent"]),
                      gone=tr.int(count["gone"])),
            cards=frame_cards(f, seen, tr),
            table=dict(head=[tr._("In the cache as"), tr._("Tokens (position)")], rows=rows),
            fig=dict(words=words[:seen], roles=roles, query=seen - 1, next=f.token,
                     agree=None if concealed else bool(f.agree), sweep=chart)))
    return out


class RoleNames(TypedDict):
    sink: str
    heavy: str
    recent: str
    gone: str


class StripStageText(StageText):
    """The strip's labels (js/draw/strip.js)."""
    next_token: str          # before the next token
    chart: str               # the agreement chart's title
    x_axis: str
    wait: str                # instead of the chart while the question is open
    roles: RoleNames


def strip_stage_text(tr: Translator) -> StripStageText:
    return dict(player_text(tr), figure=tr._("The tokens the live model's cache keeps"),
                next_token=tr._("next"), chart=tr._("Top-1 agreement with the full cache (measured)"),
                x_axis=tr._("Budget (tokens)"),
                wait=tr._("The measured agreement of each policy appears once you have "
                          "answered the question."),
                roles={r: role_name(r, tr) for r in ("sink", "heavy", "recent", "gone")})


def strip_legend(tr: Translator) -> list[tuple[str, str]]:
    return [("sink", role_name("sink", tr)), ("heavy", role_name("heavy", tr)),
            ("recent", role_name("recent", tr)), ("gone", role_name("gone", tr)),
            ("query", tr._("Newest query"))]


def eviction_notices(evict_status: str, evict_error: str, sweep_status: str,
                     sweep_error: str, tr: Translator, shown: bool) -> list[str]:
    """What Part D's two live values mean to the learner."""
    out = []
    for status, error in ((evict_status, evict_error), (sweep_status, sweep_error)):
        if status == "failed":
            out.append(tr._("The live model could not run this setting: {error}", error=error))
    if evict_status in ("pending", "idle"):
        out.append(tr._("Measuring this setting on the live model…") +
                   (" " + tr._("Meanwhile the previous result is shown.") if shown else ""))
    elif sweep_status in ("pending", "idle"):
        out.append(tr._("Measuring every policy at every budget on the live model…"))
    return list(dict.fromkeys(out))


def evict_question(sw: Sweep, tr: Translator) -> dict:
    """Part D's prediction, from the measured sweep: with QUESTION_BUDGET tokens, how many of
    the three policies still pick the full cache's next token at least NEARLY of the time
    over the steps after the first? The options cover every outcome (all three, one or two,
    none), so the right one is whatever was measured; on this model and in every language it
    is none, by a wide margin (tests/test_step6_evict.py). `reveal`: that budget (the
    controls go there; the chart then shows all three lines)."""
    B, B2 = QUESTION_BUDGET, COMPARE_BUDGET
    close = sw.close(B, NEARLY)
    correct = 0 if len(close) == len(POLICY_CHOICES) else 2 if not close else 1
    a = {p: sw.at(p, B)[0] for p in POLICY_CHOICES}
    # a count before its noun is a phrase of its own, after a colon or in brackets
    toks = lambda n: tr.n_("{count} token", "{count} tokens", n, count=tr.int(n))  # noqa: E731
    steps = tr.n_("{count} step", "{count} steps", sw.n_new - 1, count=tr.int(sw.n_new - 1))
    if correct == 2:
        least = sw.least(B2)
        why = " ".join((
            tr._("Whichever tokens a policy keeps, most of the text is gone, and the model's "
                 "choice changes at many steps."),
            tr._("At a budget of {B2}, every policy keeps every choice.", B2=tr.int(B2))
            if least >= 1 else
            tr._("At a budget of {B2}, every policy keeps at least {least} of the choices.",
                 B2=tr.int(B2), least=tr.pct(least, 0))))
    elif correct == 0:
        why = tr._("Even a budget of {B} kept enough of this text for every policy.",
                   B=tr.int(B))
    else:
        why = tr._("Here the choice of tokens made the difference at this budget: compare the "
                   "three lines of the chart at {B}.", B=tr.int(B))
    ask = tr._("How many of the three policies still pick the full cache's next token at "
               "least {x} of the time, counted over the steps after the first?",
               x=tr.pct(NEARLY))
    return dict(
        # what it asks about, never its answer (the key travels in the page's state)
        key=("step6", "d", B, sw.n_prompt, sw.n_new),
        prompt=tr._("The live model reads a prompt and writes a continuation (prompt: "
                    "{prompt}; continuation: {new}; cache budget: {budget}).",
                    prompt=toks(sw.n_prompt), new=toks(sw.n_new), budget=toks(B)) + " " + ask,
        # projected: the same question in fewer words (the controls and the strip say the rest)
        projected=tr._("Cache budget: {budget} (the text: {total}). How many policies still "
                       "pick the full cache's next token at least {x} of the time?",
                       budget=toks(B), total=toks(sw.n_prompt + sw.n_new), x=tr.pct(NEARLY)),
        options=[tr._(o) for o in COUNT_OPTIONS], correct=correct,
        explain=tr._("Counted over the steps after the first ({steps}): the first reads the "
                     "whole prompt, so it always agrees. At a budget of {B}, the full cache's "
                     "next token was kept {a} of the time with the recent window, {b} with "
                     "sinks + recent and {c} with heavy hitters + recent.",
                     steps=steps, B=tr.int(B), a=tr.pct(a["window"], 0),
                     b=tr.pct(a["sinks"], 0), c=tr.pct(a["h2o"], 0)) + " " + why,
        reveal=dict(budget=B),
        points=["budget"],             # each policy's point at that budget (js/draw/strip.js)
        **question_labels(tr))


CARDS_POSITIONS = (
    Card("first_share", N_("Attention on the first tokens"), "measured"),
    Card("recent_share", N_("Attention on the last tokens"), "measured"),
    Card("agree_original", N_("Agreement, keys at their original positions"), "measured"),
    Card("agree_cache", N_("Agreement, keys numbered inside the cache"), "measured"),
)


def same_setting(run, cache_run) -> bool:
    """The run with StreamingLLM's positions is of the setting played (its LiveValue keeps
    the previous setting's value while the new one is measured)."""
    return (run is not None and cache_run is not None and cache_run.positions == "cache"
            and (cache_run.policy, cache_run.budget, cache_run.prompt)
            == (run.policy, run.budget, run.prompt))


def shares_line(shares, tr: Translator) -> str:
    """Where the full cache's newest query looks on this prompt (rt.AttentionShares), and
    what that says, from the measurement: whether the first tokens are attention sinks here
    (at least SINK_RATIO times an even share) and whether the reading leans to the latest
    tokens (at least LEAN_RATIO times theirs)."""
    toks = lambda n: tr.n_("{count} token", "{count} tokens", n, count=tr.int(n))  # noqa: E731
    out = [tr._("Measured with the full cache on this prompt, the newest query puts {first} of "
                "its attention on the first tokens ({s}) and {recent} on the last ones ({r}), "
                "mean over layers, heads and generated tokens; spread evenly over the tokens it "
                "reads, they would get {even_first} and {even_recent}.",
                first=tr.pct(shares.first_share, 0), s=toks(shares.first),
                recent=tr.pct(shares.recent_share, 0), r=toks(shares.recent),
                even_first=tr.pct(shares.even_first, 0),
                even_recent=tr.pct(shares.even_recent, 0))]
    sink = shares.first_share / shares.even_first
    lean = shares.recent_share / shares.even_recent
    if sink >= SINK_RATIO:
        out.append(tr._("So the first tokens draw {x} their even share: this model has "
                        "attention sinks, as big trained models do.", x=tr.times(sink, 1)))
    else:
        out.append(tr._("So the first tokens draw {x} their even share, less than {k}: this "
                        "small model has no strong attention sinks, unlike big trained models.",
                        x=tr.times(sink, 1), k=tr.times(SINK_RATIO, 0)))
    if lean >= LEAN_RATIO:
        out.append(tr._("The last tokens draw {x} theirs: its attention leans to the latest "
                        "tokens, which every policy keeps.", x=tr.times(lean, 1)))
    else:
        out.append(tr._("The last tokens draw {x} theirs: its attention does not lean to the "
                        "latest tokens.", x=tr.times(lean, 1)))
    return " ".join(out)


def positions_line(run, cache_run, tr: Translator) -> str:
    """The two ways of numbering the kept keys, measured at the setting played."""
    if run.policy == "window":
        return tr.n_("Measured with the recent window at a budget of {B} token: a window "
                     "keeps no gaps, so both ways of numbering give the same run, {a} agreement "
                     "with the full cache and a mean KL divergence of {k}.",
                     "Measured with the recent window at a budget of {B} tokens: a window "
                     "keeps no gaps, so both ways of numbering give the same run, {a} agreement "
                     "with the full cache and a mean KL divergence of {k}.", run.budget,
                     B=tr.int(run.budget), a=tr.pct(run.agreement, 0), k=kl(run.mean_kl, tr))
    return tr.n_("Measured with {policy} at a budget of {B} token: with the kept keys at their "
                 "original positions, as played here, the next token agrees with the full "
                 "cache's {a} of the time (mean KL divergence {k}); with the keys numbered "
                 "inside the cache, as StreamingLLM does, {a2} of the time (mean KL divergence "
                 "{k2}).",
                 "Measured with {policy} at a budget of {B} tokens: with the kept keys at "
                 "their original positions, as played here, the next token agrees with the full "
                 "cache's {a} of the time (mean KL divergence {k}); with the keys numbered "
                 "inside the cache, as StreamingLLM does, {a2} of the time (mean KL divergence "
                 "{k2}).", run.budget, policy=policy_short(tr)[run.policy], B=tr.int(run.budget),
                a=tr.pct(run.agreement, 0), k=kl(run.mean_kl, tr),
                a2=tr.pct(cache_run.agreement, 0), k2=kl(cache_run.mean_kl, tr))


def positions_cards(run, cache_run, shares, tr: Translator) -> list[dict]:
    """The Go deeper's measured numbers as cards (their badge says measured)."""
    values, labels = {}, {}
    if shares is not None:
        values.update(first_share=tr.pct(shares.first_share, 0),
                      recent_share=tr.pct(shares.recent_share, 0))
        labels.update(first_share=tr.n_("Attention on the first {s} token",
                                        "Attention on the first {s} tokens", shares.first,
                                        s=tr.int(shares.first)),
                      recent_share=tr.n_("Attention on the last {r} token",
                                         "Attention on the last {r} tokens", shares.recent,
                                         r=tr.int(shares.recent)))
    if same_setting(run, cache_run):
        values.update(agree_original=tr.pct(run.agreement, 0),
                      agree_cache=tr.pct(cache_run.agreement, 0))
    return card_dicts(CARDS_POSITIONS, values, tr, labels)


def part_d_deeper(sw: Sweep | None, facts: dict | None, tr: Translator, *, run=None,
                  cache_run=None, shares=None, concealed: bool = True) -> dict:
    """Part D's Go deeper sections: why (how each policy chooses, what the positions of the
    kept keys mean), the live model (what is measured: the two ways of numbering the kept keys
    at the setting played, where the full cache's attention goes on this prompt, and what it
    does not show) and the literature (the two papers, with their settings). While the
    question is open, no agreement is shown (the two numberings' numbers wait for it)."""
    why = [
        tr.n_("H2O adds up, for every cached token, the attention it has received from every "
              "query so far (here one sum per layer over its heads; the paper keeps one per "
              "head). Half of the budget holds the tokens with the largest sums, the other half "
              "the most recent tokens. Sinks + recent keeps the first {s} token whatever it "
              "says: big trained models send a large share of the attention of many heads to "
              "it, and dropping it moves that share onto the others.",
              "H2O adds up, for every cached token, the attention it has received from every "
              "query so far (here one sum per layer over its heads; the paper keeps one per "
              "head). Half of the budget holds the tokens with the largest sums, the other half "
              "the most recent tokens. Sinks + recent keeps the first {s} tokens whatever they "
              "say: big trained models send a large share of the attention of many heads to "
              "them, and dropping them moves that share onto the others.", SINKS_PAPER,
              s=tr.int(SINKS_PAPER)),
        tr._("The live cache stores each key already rotated by its position (RoPE). After "
             "a token is dropped, the keys that stay keep their original positions, so the "
             "distance from the newest query to a sink grows with the text. StreamingLLM "
             "instead numbers the tokens by their place inside the cache, which keeps every "
             "distance within what the model saw in training. The part plays the first way; "
             "the live model's section measures both."),
    ]
    live = [
        tr._("Measured on the live model, teacher-forced: at each step the full cache's next "
             "token is fed to both caches, so they read the same text. Top-1 agreement counts "
             "the steps where this cache's highest logit picks the same token; the KL "
             "divergence (in nats) compares the two next-token distributions; the bytes are "
             "the keys and values the cache holds in every layer. The strip shows layer 0's "
             "kept tokens; each layer keeps its own."),
    ]
    if same_setting(run, cache_run):
        live.append(tr._("The agreement with each way of numbering the kept keys appears here "
                         "once you have answered the question.") if concealed
                    else positions_line(run, cache_run, tr))
    if shares is not None:
        live.append(shares_line(shares, tr))
    cards = positions_cards(run, cache_run if not concealed else None, shares, tr)
    if cards:
        live.append(metrics(cards, cls="evict-measured"))
    if facts is not None:
        live.append(tr._(
            "What this shows and what it does not: a {layers}-layer model ({params}), on a "
            "passage of its own small training corpus, is not a 7B model reading a long "
            "document. Which policy wins here, and by how much, can differ there; the papers "
            "below measured real models.", layers=tr.int(facts["n_layers"]),
            params=counts.parameters(facts["n_params"], tr)))
    literature = [
        " ".join((
            tr._("StreamingLLM (Xiao et al. 2023) found that models put a large share of "
                 "attention on the first tokens, the attention sinks."),
            tr.n_("Keeping {s} initial token plus a window of recent ones let Llama 2, MPT, "
                  "Falcon and Pythia model long texts with stable perplexity, where a plain "
                  "window failed as soon as the first tokens were dropped.",
                  "Keeping {s} initial tokens plus a window of recent ones let Llama 2, MPT, "
                  "Falcon and Pythia model long texts with stable perplexity, where a plain "
                  "window failed as soon as the first tokens were dropped.", SINKS_PAPER,
                  s=tr.int(SINKS_PAPER)),
            tr.n_("The longest text they modelled had {n} token.",
                  "The longest text they modelled had {n} tokens.", STREAM_TOKENS,
                  n=tr.int(STREAM_TOKENS)))),
        tr._("H2O (Zhang et al. 2023) keeps the heavy hitters and the most recent tokens. Its "
             "authors tested it on OPT, LLaMA and GPT-NeoX models across a wide range of "
             "tasks, with the cache cut to a fraction of the tokens."),
    ]
    return dict(why=why, live=live, literature=literature)


def sweep_table_title(tr: Translator) -> str:
    return tr._("Agreement against budget, as a table")
