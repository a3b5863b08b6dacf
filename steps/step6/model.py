"""Step 6's view-model: the controls as params and three parts' numbers (no Panel, no words).

Part A (computed): Llama 3.1 8B serving 8 sequences of 16,384 tokens, shrunk by fewer
key/value heads (MHA / GQA / MQA), a smaller cache precision (scales counted) and a sliding
window. Llama 3.1 8B has the shape of the app's Llama 2 7B reference (32 layers, 32 query heads
of 128 dimensions: 512 KiB per token with full MHA), but it was built for 131,072 tokens, where
Llama 2 7B stops at 4,096. Its own configuration is the GQA choice (8 key/value heads); the MHA
baseline is that model with a key/value head per query head, as Llama 2 7B has. Pure arithmetic
on `explainer.costs`: importing this module and computing Part A needs neither torch nor Panel.
Part B (measured): a real paged block pool of the live model (`rt.paged_demo`), one frame per
event, computed once and played in the browser; the reservation it replaces is computed.
Part C (measured): the same three choices run on the live model (`rt.variant_effect`).
Part D (measured): dropping tokens from the live model's cache under a budget of B tokens, by
three eviction policies (`rt.eviction_run`: a plain window, attention sinks + recent tokens,
heavy hitters + recent tokens), each generation compared step by step with the full cache, and
the agreement of every policy at every budget (`rt.eviction_sweep`).

Parts B, C and D run on the live model: a served process runs them all at start (`live_jobs`,
by `--setup warmup.py`); otherwise the background queue (`steps.live`) runs them when their
part is shown (a served page sets `eager`: then always). Their LiveValues are made on first
use, so Part A alone never imports them.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import param

from explainer import costs, presets
from explainer.i18n import LANGS
from explainer.memo import memo

D = presets.STEP6
# Llama 3.1 8B: the attention shape of Llama 2 7B (32 layers × 32 query heads × 128 dims) with
# a context long enough for 16,384 tokens (Llama 2 7B stops at 4,096).
MODEL = D["model"]
REF = presets.MODELS[MODEL]                        # Llama 3.1 8B: 32 layers, 32 heads, 128 dims
BATCH, CONTEXT = D["batch"], D["context"]          # 8 sequences × 16,384 tokens
assert CONTEXT <= REF.max_context, "the step's context must be one the model can process"
KV_CHOICES = tuple(presets.SHRINK_KV_HEADS)        # (32, 8, 1)
PRECISION_CHOICES = tuple(presets.SHRINK_PRECISIONS)
WINDOW_CHOICES = tuple(0 if w is None else w for w in presets.SHRINK_WINDOWS)   # 0 = full
PARTS = ("a", "b", "c", "d")

# the prediction question: from full multi-head attention to GQA with 8 key/value heads
# (the model's own configuration)
QUESTION_FROM, QUESTION_TO = REF.n_heads, REF.n_kv_heads

# the same choices on the live model
LIVE_VARIANT = {32: "mha", 8: "gqa", 1: "mqa"}     # reference KV heads -> live variant
LIVE_KIND = {"fp16": "fp16", "fp8": "fp16", "int8": "int8", "int4": "int4"}  # fp8: none live
PROMPT_INDEX = 3                                   # PROMPTS[lang][3]: a passage start
PROMPT_TOKENS = 16                                 # at most this many prompt tokens
N_NEW = 32                                         # generated tokens

PAGED_VARIANT = "mha"

KWON_LO, KWON_HI = 0.204, 0.382                    # share of reserved KV memory really used
# H2O (Zhang et al. 2023), OPT-6.7B/30B, offloaded throughput: up to 29× over DeepSpeed
# Zero-Inference and Hugging Face Accelerate, 3× over FlexGen
H2O_SHARE, H2O_SPEEDUP, H2O_FLEXGEN = 0.20, 29, 3


# == Part A: cost arithmetic (candidates for explainer/costs.py) =================================

def head_vectors_per_token(model, n_kv_heads: int) -> int:
    """Head vectors one token adds to the cache: a key and a value per KV head per layer."""
    return 2 * model.n_layers * n_kv_heads


def vector_bytes(model, precision: str, n_kv_heads: int) -> int:
    """Bytes of one cached head vector (head_dim values), its quantization scale included."""
    return (costs.kv_bytes_per_token(model, precision, n_kv_heads)
            // head_vectors_per_token(model, n_kv_heads))


def scale_bytes_per_vector(model, precision: str, n_kv_heads: int) -> int:
    """Bytes of the scale stored next to one head vector (0 without quantization scales)."""
    return (costs.scale_bytes_per_token(model, precision, n_kv_heads)
            // head_vectors_per_token(model, n_kv_heads))


def ideal_factor(precision: str) -> float:
    """How much smaller than fp16 a precision would be if its scales cost nothing."""
    return 16 / presets.PRECISIONS[precision].bits


@dataclass(frozen=True)
class Shrink:
    """Part A for one setting, next to the baseline (MHA, fp16, full context)."""
    kv_heads: int
    precision: str
    window: int                 # 0 = full context
    per_token: int              # bytes per token, K and V, all layers (scales included)
    tokens_kept: int            # per sequence
    bytes: int                  # BATCH sequences
    baseline: int               # the baseline's bytes
    factor: float               # baseline / bytes
    baseline_per_token: int
    scales_per_token: int       # of per_token: quantization scales
    vec: int                    # bytes of one cached head vector (scale included)
    scale_vec: int              # of which the scale
    values_vec: int             # of which the values
    fp16_vec: int               # the same vector in fp16
    precision_factor: float     # fp16_vec / vec
    ideal_factor: float         # 16 / bits
    quantized: bool
    group: int                  # query heads per key/value head
    n_heads: int                # query heads
    weights: float              # bytes of the model's fp16 weights

    @property
    def same_as_baseline(self) -> bool:
        return self.bytes == self.baseline


@memo(maxsize=256)
def shrink(kv_heads: int, precision: str, window: int) -> Shrink:
    """Part A: every byte from `costs.shrink` and the per-token formulas (shared by sessions)."""
    r = costs.shrink(REF, BATCH, CONTEXT, n_kv_heads=kv_heads, precision=precision,
                     window=window or None)
    vec = vector_bytes(REF, precision, kv_heads)
    scale_vec = scale_bytes_per_vector(REF, precision, kv_heads)
    fp16_vec = vector_bytes(REF, "fp16", kv_heads)
    return Shrink(
        kv_heads=kv_heads, precision=precision, window=window,
        per_token=r.kv_per_token, tokens_kept=r.tokens_kept, bytes=r.bytes,
        baseline=r.baseline_bytes, factor=r.factor,
        baseline_per_token=costs.kv_bytes_per_token(REF, "fp16", REF.n_heads),
        scales_per_token=costs.scale_bytes_per_token(REF, precision, kv_heads),
        vec=vec, scale_vec=scale_vec, values_vec=vec - scale_vec, fp16_vec=fp16_vec,
        precision_factor=fp16_vec / vec, ideal_factor=ideal_factor(precision),
        quantized=presets.PRECISIONS[precision].quantized,
        group=REF.n_heads // kv_heads, n_heads=REF.n_heads,
        weights=costs.weight_bytes(REF))


@dataclass(frozen=True)
class HeadsQuestion:
    """The prediction: from `heads_from` to `heads_to` KV heads at the learner's precision
    and window; the answer is `factor`."""
    heads_from: int
    heads_to: int
    precision: str
    window: int
    per_token_from: int
    per_token_to: int
    factor: float


@memo(maxsize=256)
def heads_question(precision: str, window: int) -> HeadsQuestion:
    a, b = shrink(QUESTION_FROM, precision, window), shrink(QUESTION_TO, precision, window)
    return HeadsQuestion(QUESTION_FROM, QUESTION_TO, precision, window, a.per_token,
                         b.per_token, a.bytes / b.bytes)


# == Part B: the paged block pool ================================================================

@dataclass(frozen=True)
class Block:
    owners: tuple               # sequence ids whose block table holds it ("prefix", "A", ...)
    fill: int                   # slots holding tokens (the most that any owner fills)
    ref: int                    # reference count (> 1: shared)
    changed: bool               # owners or fill differ from the previous event


@dataclass(frozen=True)
class PoolFrame:
    event: str                  # "prefill", "fork", "decode", "free"
    seq: str                    # the sequence the event is about
    blocks: tuple               # Block per physical block of the pool
    tables: tuple               # ((seq id, block ids, tokens), ...) in the pool's order
    blocks_used: int
    blocks_total: int
    slots_used: int
    slots_wasted: int
    sharing_saved: int
    copies_on_write: int
    nbytes: int                 # bytes of the blocks in use, measured from the pool
    n_requests: int
    tokens: int
    reserved: int               # without paging: max context reserved per request (computed)
    reserved_share: float | None
    paged_share: float | None
    # this event's own numbers (for its caption)
    new_blocks: int             # blocks added to the sequence's table
    words: int                  # tokens the sequence wrote
    copies: int                 # copies on write of this event
    freed: int                  # blocks that went back to the pool
    held: int                   # blocks the freed sequence held

    def table(self, sid: str) -> tuple:
        for s, blocks, _ in self.tables:
            if s == sid:
                return blocks
        return ()

    def length(self, sid: str) -> int:
        for s, _, n in self.tables:
            if s == sid:
                return n
        return 0


@dataclass(frozen=True)
class Paged:
    frames: tuple               # PoolFrame per event
    block_size: int             # token slots per block
    n_blocks: int               # blocks in the pool
    block_nbytes: int           # bytes of one block (K and V, all layers, fp32)
    max_len: int                # the live model's context: what a server would reserve
    variant: str

    @property
    def n_frames(self) -> int:
        return len(self.frames)

    @property
    def n_requests(self) -> int:
        return max(f.n_requests for f in self.frames)


def block_size_of(demo) -> int:
    """Token slots per block, read back from the pool's statistics (a used block has
    slots_used + slots_wasted slots). Belongs in the runtime's frames (see the report)."""
    for fr in demo:
        s = fr.stats
        if s["blocks_used"]:
            return (s["slots_used"] + s["slots_wasted"]) // s["blocks_used"]
    return 1


def pool_frames(demo, live, max_len: int, variant: str = PAGED_VARIANT) -> Paged:
    """rt.paged_demo's frames -> numbers per event. `live`: the live model's cost preset
    (reservation bytes come from the same formula as every other cache size)."""
    bs = block_size_of(demo)
    n_blocks = len(demo[0].ref) if demo else 0
    out, prev_blocks, prev = [], None, None
    for f in demo:
        fill, owners = {}, {}
        for sid, table in f.tables.items():
            for i, b in enumerate(table):
                fill[b] = max(fill.get(b, 0), min(bs, f.lengths[sid] - i * bs))
                owners.setdefault(b, []).append(sid)
        blocks = []
        for b in range(len(f.ref)):
            now = (tuple(owners.get(b, ())), fill.get(b, 0))
            before = ((prev_blocks[b].owners, prev_blocks[b].fill) if prev_blocks
                      else ((), 0))
            blocks.append(Block(now[0], now[1], f.ref[b], now != before))
        s = f.stats
        n_req = len(f.tables)
        tokens = sum(f.lengths.values())
        reserved = (costs.kv_cache_bytes(live, max_len, batch=n_req, precision="fp32")
                    if n_req else 0)
        sid = f.seq
        table = tuple(f.tables.get(sid, ()))
        before_table = tuple(prev.tables.get(sid, ())) if prev else ()
        out.append(PoolFrame(
            event=f.event, seq=sid, blocks=tuple(blocks),
            tables=tuple((k, tuple(v), f.lengths[k]) for k, v in f.tables.items()),
            blocks_used=s["blocks_used"], blocks_total=s["blocks_total"],
            slots_used=s["slots_used"], slots_wasted=s["slots_wasted"],
            sharing_saved=s["sharing_saved"], copies_on_write=s["copies_on_write"],
            nbytes=f.nbytes, n_requests=n_req, tokens=tokens, reserved=reserved,
            reserved_share=tokens / (n_req * max_len) if n_req else None,
            paged_share=s["slots_used"] / (s["blocks_used"] * bs) if s["blocks_used"] else None,
            new_blocks=len([b for b in table if b not in before_table]),
            words=f.lengths.get(sid, 0) - (prev.lengths.get(sid, 0) if prev else 0),
            copies=s["copies_on_write"] - (prev.stats["copies_on_write"] if prev else 0),
            freed=(prev.stats["blocks_used"] - s["blocks_used"]) if prev else 0,
            held=len(before_table)))
        prev_blocks, prev = blocks, f
    block_nbytes = costs.kv_bytes_per_token(live, "fp32") * bs
    return Paged(tuple(out), bs, n_blocks, block_nbytes, max_len, variant)


@lru_cache(maxsize=4)
def paged_pool(variant: str = PAGED_VARIANT) -> Paged:
    """Runs the live model on the block pool (slow: in the background queue)."""
    from explainer import runtime as rt
    return pool_frames(rt.paged_demo(variant), rt.live_preset(variant),
                       rt.model_facts(variant)["max_len"], variant)


# == Part C: the same choices on the live model ==================================================

def live_window(window: int, prompt_len: int) -> int | None:
    """The reference window scaled to the live run: the same share of its positions that `window`
    is of the reference context (4,096 of 16,384 → a quarter of 16 + 32 = 48 → 12)."""
    if not window:
        return None
    return max(1, round(window * (prompt_len + N_NEW) / CONTEXT))


@lru_cache(maxsize=None)
def prompt_ids(lang: str) -> tuple:
    """The live prompt of Part C: the language's passage start, at most 16 tokens."""
    from explainer import runtime as rt
    from explainer.prompts import PROMPTS
    return rt.encode(PROMPTS[lang][PROMPT_INDEX])[:PROMPT_TOKENS]


@dataclass(frozen=True)
class LiveSetting:
    """How a Part A setting runs on the live model."""
    kv_heads: int               # the reference model's choices
    precision: str
    window: int
    ids: tuple                  # the live run: prompt, model variant, cache kind, window W
    variant: str
    kind: str                   # the live cache's storage: fp16, int8 or int4
    W: int | None               # and its window (None: the whole text)
    n_heads: int                # the variant's query and key/value heads
    n_kv_heads: int

    @property
    def key(self) -> tuple:
        return (self.ids, self.variant, self.kind, self.W)


@lru_cache(maxsize=None)
def live_setting(kv_heads: int, precision: str, window: int, lang: str) -> LiveSetting:
    from explainer import runtime as rt
    ids = prompt_ids(lang)
    W = live_window(window, len(ids))
    variant = LIVE_VARIANT[kv_heads]
    facts = rt.model_facts(variant)
    return LiveSetting(kv_heads, precision, window, ids, variant, LIVE_KIND[precision], W,
                       facts["n_heads"], facts["n_kv_heads"])


@lru_cache(maxsize=None)
def live_kv_heads() -> dict:
    """{reference KV heads: the live variant's KV heads}, read from the live models
    ({32: 4, 8: 2, 1: 1}: MHA, GQA and MQA of a model with 4 query heads)."""
    from explainer import runtime as rt
    return {k: rt.model_facts(v)["n_kv_heads"] for k, v in LIVE_VARIANT.items()}


@dataclass(frozen=True)
class LiveRun:
    """One live measurement, next to the live baseline (MHA, fp16, full) of the same prompt."""
    ids: tuple
    variant: str
    kind: str                   # the live cache's storage: fp16, int8 or int4
    window: int | None          # W of the live run (None: full), kept in `kind`
    nbytes: int                 # bytes this cache holds at the end
    exact_nbytes: int           # the exact fp32 cache of the same model and tokens
    base_nbytes: int            # the live baseline: MHA, fp16, full context
    top1: float                 # share of steps whose top token equals the exact run's
    dlogit: float               # largest |Δ logit| against the exact run
    prompt_text: str
    text: str                   # the continuation with this cache
    exact_text: str             # ... with the exact fp32 cache
    tokens: tuple               # its tokens (strings)
    exact_tokens: tuple
    n_layers: int
    n_heads: int
    n_kv_heads: int
    head_dim: int
    device: str

    @property
    def factor_exact(self) -> float:
        return self.exact_nbytes / self.nbytes

    @property
    def factor_base(self) -> float:
        return self.base_nbytes / self.nbytes

    @property
    def prompt_len(self) -> int:
        return len(self.ids)

    @property
    def cached_tokens(self) -> int:
        """The cache at the end: the last generated token is never fed back."""
        return len(self.ids) + N_NEW - 1


def measure(ids: tuple, variant: str, kind: str, W: int | None) -> LiveRun:
    """One live measurement (runs on the worker; the runtime caches every run)."""
    from explainer import runtime as rt
    eff = rt.variant_effect(variant, ids, N_NEW, kind, W)
    base = rt.variant_effect("mha", ids, N_NEW, "fp16", None)
    exact = rt.generate(variant, ids, N_NEW, "fp32", record_kv=False)
    tok = rt.tokenizer()
    facts = rt.model_facts(variant)
    return LiveRun(
        ids=tuple(ids), variant=variant, kind=kind, window=W, nbytes=eff.nbytes,
        exact_nbytes=eff.exact_nbytes, base_nbytes=base.nbytes, top1=eff.top1_agreement,
        dlogit=eff.max_abs_dlogit, prompt_text=tok.decode(list(ids)),
        text=tok.decode(list(eff.tokens)), exact_text=tok.decode(list(exact.new_ids)),
        tokens=tuple(tok.itos[i] for i in eff.tokens),
        exact_tokens=tuple(tok.itos[i] for i in exact.new_ids),
        n_layers=facts["n_layers"], n_heads=facts["n_heads"],
        n_kv_heads=facts["n_kv_heads"], head_dim=facts["head_dim"], device=facts["device"])


def paged_key(variant: str = PAGED_VARIANT) -> tuple:
    return ("step6-paged", variant)


def live_key(s: LiveSetting) -> tuple:
    return ("step6-live",) + s.key


def live_jobs(lang: str) -> list:
    """(key, fn) of every live run Parts B, C and D can show in `lang`: the paged pool, each
    distinct live setting (settings that run the same way share one run), Part D's sweep and
    every policy at every budget."""
    out = {paged_key(): lambda: paged_pool(PAGED_VARIANT)}
    for kv in KV_CHOICES:
        for prec in PRECISION_CHOICES:
            for w in WINDOW_CHOICES:
                s = live_setting(kv, prec, w, lang)
                out.setdefault(live_key(s), lambda s=s: measure(*s.key))
    ids = eviction_ids(lang)
    out[sweep_key(ids)] = lambda: sweep(ids)
    out[shares_key(ids)] = lambda: shares(ids)
    for policy in POLICY_CHOICES:
        for budget in BUDGET_CHOICES:
            out[evict_key(ids, policy, budget)] = lambda p=policy, b=budget: eviction(ids, p, b)
            out[evict_key(ids, policy, budget, "cache")] = (
                lambda p=policy, b=budget: eviction(ids, p, b, "cache"))
    return list(out.items())


def warm_jobs() -> list:
    """What the warm-up measures for this step before serving (`steps.registry.live_jobs`):
    every live run parts B, C and D can show, in every language."""
    return [job for lang in LANGS for job in live_jobs(lang)]


# == Part D: dropping tokens =====================================================================

# The runtime's policies and budgets (explainer.runtime POLICIES, EVICTION_BUDGETS), written
# here too so that this module's params import without torch; tests/test_step6_model.py checks
# that they are the runtime's.
POLICY_CHOICES = ("window", "sinks", "h2o")
BUDGET_CHOICES = (6, 8, 12, 16, 24, 32, 64)
EVICTION_VARIANT = "mha"
DEFAULT_BUDGET = 16                                # Part D opens at B = 16 (a quarter)
# Part D's question: at B = 6 (under a tenth of the 63 tokens), how many of the three policies
# still pick the full cache's next token at least NEARLY of the time (after the first step)?
# Measured in every language, none comes near: 29 of 39 steps at best (tests/test_step6_evict)
QUESTION_BUDGET = 6
NEARLY = 0.9
COMPARE_BUDGET = 32                                # the explanation's contrast: half the text
SINKS = 4                                          # StreamingLLM's S (rt.EVICTION_SINKS)
RECENT_SHARE = 8                                   # attention on the last 8 tokens (shares)


@lru_cache(maxsize=None)
def eviction_ids(lang: str) -> tuple:
    """Part D's prompt: the language's passage (`PROMPTS[lang][3]`) as the corpus goes on,
    `rt.EVICTION_PROMPT_TOKENS` tokens of real text in the learner's language, long enough
    that a small budget has to drop some of it."""
    from explainer import runtime as rt
    from explainer.prompts import PROMPTS
    from explainer.train import CORPUS
    start = PROMPTS[lang][PROMPT_INDEX]
    lines = [ln.strip() for ln in (CORPUS / f"{lang}.txt").read_text(encoding="utf-8")
             .splitlines() if ln.strip()]
    at = next((k for k, ln in enumerate(lines) if ln.startswith(start)), 0)
    ids: list = []
    for ln in lines[at:] + lines[:at]:
        ids += rt.encode(ln)
        if len(ids) >= rt.EVICTION_PROMPT_TOKENS:
            break
    return tuple(ids[:rt.EVICTION_PROMPT_TOKENS])


@dataclass(frozen=True)
class Sweep:
    """Agreement with the full cache against the budget, per policy (`rt.eviction_sweep`):
    rows = ((policy, ((budget, agreement, mean KL), ...)), ...) in POLICY_CHOICES' order."""
    rows: tuple
    n_prompt: int               # prompt tokens
    n_new: int                  # generated tokens

    @property
    def n_tokens(self) -> int:
        """Prompt + generated: the budget that keeps every token."""
        return self.n_prompt + self.n_new

    def at(self, policy: str, budget: int) -> tuple | None:
        """(agreement, mean KL) of `policy` at `budget`, or None if it was not measured."""
        for p, points in self.rows:
            if p == policy:
                for b, agree, kl in points:
                    if b == budget:
                        return agree, kl
        return None

    def close(self, budget: int, share: float) -> tuple:
        """The policies whose agreement at `budget` is at least `share`."""
        return tuple(p for p, _ in self.rows
                     if (self.at(p, budget) or (0.0,))[0] >= share - 1e-12)

    def least(self, budget: int) -> float:
        """The lowest agreement of any policy at `budget`."""
        return min(self.at(p, budget)[0] for p, _ in self.rows)

    def best(self, budget: int) -> str:
        """The policy that agrees most with the full cache at `budget` (then the smaller
        mean KL; then the first in POLICY_CHOICES)."""
        scored = [(p, self.at(p, budget)) for p, _ in self.rows]
        scored = [(p, v) for p, v in scored if v is not None]
        return min(scored, key=lambda pv: (-pv[1][0], pv[1][1]))[0]


def evict_key(ids: tuple, policy: str, budget: int, positions: str = "original") -> tuple:
    from explainer import runtime as rt
    key = ("step6-evict", EVICTION_VARIANT, ids, rt.EVICTION_NEW, policy, budget)
    return key if positions == "original" else key + (positions,)


def shares_key(ids: tuple) -> tuple:
    from explainer import runtime as rt
    return ("step6-shares", EVICTION_VARIANT, ids, rt.EVICTION_NEW)


def sweep_key(ids: tuple) -> tuple:
    from explainer import runtime as rt
    return ("step6-sweep", EVICTION_VARIANT, ids, rt.EVICTION_NEW, BUDGET_CHOICES)


def eviction(ids: tuple, policy: str, budget: int, positions: str = "original"):
    """One policy at one budget on the live model (runs on the worker; the runtime caches
    every run): an `rt.EvictionRun`, one frame per generated token.

    `positions`: "original" (what the part plays: the cache stores keys already rotated by
    their position in the text, and a kept key keeps it) or "cache" (StreamingLLM's choice:
    the held keys are numbered by their place inside the cache). Part D plays the first and
    measures the second at the same policy and budget, to state the difference."""
    from explainer import runtime as rt
    return rt.eviction_run(EVICTION_VARIANT, ids, rt.EVICTION_NEW, policy, budget,
                           positions=positions)


@dataclass(frozen=True)
class Shares:
    """Where the full cache's newest query puts its attention on Part D's prompt, next to
    what an even spread over the keys it reads would give the same tokens."""
    first: int                  # the first `first` tokens (the would-be sinks)
    recent: int                 # the last `recent` tokens
    first_share: float          # measured (rt.attention_shares)
    recent_share: float
    even_first: float           # an even spread: first / keys read, averaged like the measure
    even_recent: float


def shares(ids: tuple) -> Shares:
    """`rt.attention_shares` on Part D's prompt (the share on the first SINKS tokens and on
    the last RECENT_SHARE ones, averaged over heads, layers and the steps whose query reads
    more than SINKS + RECENT_SHARE keys): whether this model has attention sinks for
    StreamingLLM to keep, and how local its reading is. The even spread is averaged over the
    same steps (the exact run's trace, memoised by the runtime), so the two compare."""
    from explainer import runtime as rt
    a = rt.attention_shares(EVICTION_VARIANT, ids, rt.EVICTION_NEW, SINKS, RECENT_SHARE)
    tr = rt.generate(EVICTION_VARIANT, tuple(ids), rt.EVICTION_NEW, "fp32", record_kv=False)
    keys = [x.shape[-1] for x in tr.attn if x.shape[-1] > SINKS + RECENT_SHARE]
    return Shares(a.first, a.recent, a.first_share, a.recent_share,
                  sum(SINKS / k for k in keys) / len(keys),
                  sum(RECENT_SHARE / k for k in keys) / len(keys))


def sweep(ids: tuple) -> Sweep:
    """Every policy at every budget (`rt.eviction_sweep`), as a `Sweep`."""
    from explainer import runtime as rt
    got = rt.eviction_sweep(EVICTION_VARIANT, ids, rt.EVICTION_NEW, BUDGET_CHOICES)
    rows = tuple((p, tuple((int(b), float(a), float(k)) for b, a, k in got[p]))
                 for p in POLICY_CHOICES if p in got)
    return Sweep(rows, len(ids), rt.EVICTION_NEW)


# == the model ====================================================================================

class Step6Model(param.Parameterized):
    lang = param.Selector(default="en", objects=list(LANGS),
                          doc="language of Parts C and D's prompts")
    part = param.Selector(default="a", objects=list(PARTS),
                          doc="a: computed for the reference model, b: paged memory, "
                              "c: the live model, d: dropping tokens on the live model")
    kv_heads = param.Selector(default=D["kv_heads"], objects=list(KV_CHOICES),
                              doc="key/value heads of the reference model: 32 MHA, 8 GQA, 1 MQA")
    precision = param.Selector(default=D["precision"], objects=list(PRECISION_CHOICES),
                               doc="storage of the cached values")
    window = param.Selector(default=0 if D["window"] is None else D["window"],
                            objects=list(WINDOW_CHOICES),
                            doc="sliding window in tokens; 0 = full context")
    policy = param.Selector(default="window", objects=list(POLICY_CHOICES),
                            doc="Part D: which tokens a full cache drops (window: the oldest; "
                                "sinks: keep the first few too; h2o: keep the most attended)")
    budget = param.Selector(default=DEFAULT_BUDGET, objects=list(BUDGET_CHOICES),
                            doc="Part D: tokens the cache may hold")
    frame = param.Integer(default=0, bounds=(0, None),
                          doc="event of Part B's paged-memory animation or generated token of "
                              "Part D's (kept within the part's frames once they have run)")

    eager = param.Boolean(default=False, doc="run Parts B and C's live work even while "
                          "another part is shown (a served page: switching parts is then "
                          "instant, and a part's numbers are there before it is drawn)")

    shrink = param.Parameter(default=None, doc="output: Part A (Shrink)")
    question = param.Parameter(default=None, doc="output: the prediction's numbers")
    paged = param.Parameter(default=None, doc="LiveValue of Part B (Paged), made on first use")
    live = param.Parameter(default=None, doc="LiveValue of Part C (LiveRun), made on first use")
    setting = param.Parameter(default=None, doc="output: Part C's LiveSetting (when shown)")
    evict = param.Parameter(default=None, doc="LiveValue of Part D's run (rt.EvictionRun), "
                            "made on first use")
    sweep = param.Parameter(default=None, doc="LiveValue of Part D's sweep (Sweep), made on "
                            "first use")
    evict_cache = param.Parameter(default=None, doc="LiveValue of Part D's run with the keys "
                                  "numbered inside the cache (StreamingLLM's positions), made "
                                  "on first use")
    shares = param.Parameter(default=None, doc="LiveValue of where the full cache's attention "
                             "goes on Part D's prompt (rt.AttentionShares), made on first use")

    @param.depends("kv_heads", "precision", "window", watch=True, on_init=True)
    def _part_a(self):
        """Never recomputed by a frame, a part or a language change."""
        self.shrink = shrink(self.kv_heads, self.precision, self.window)

    @param.depends("precision", "window", watch=True, on_init=True)
    def _question(self):
        self.question = heads_question(self.precision, self.window)

    def live_values(self) -> tuple:
        """(paged, live): the LiveValues of Parts B and C, made on first use."""
        if self.paged is None:
            from steps.live import LiveValue
            paged, live = LiveValue(), LiveValue()
            paged.param.watch(lambda e: self._keep_frame(), "value")
            self.param.update(paged=paged, live=live)
        return self.paged, self.live

    def eviction_values(self) -> tuple:
        """(evict, sweep): the LiveValues of Part D, made on first use (with `evict_cache`
        and `shares`, the Go deeper's measurements)."""
        if self.evict is None:
            from steps.live import LiveValue
            evict, swept = LiveValue(), LiveValue()
            evict.param.watch(lambda e: self._keep_frame(), "value")
            self.param.update(evict=evict, sweep=swept, evict_cache=LiveValue(),
                              shares=LiveValue())
        return self.evict, self.sweep

    @param.depends("part", "eager", watch=True, on_init=True)
    def _want_paged(self):
        if self.part == "b" or self.eager:
            paged, _ = self.live_values()
            paged.request(paged_key(), lambda: paged_pool(PAGED_VARIANT))

    @param.depends("part", "eager", "kv_heads", "precision", "window", "lang", watch=True,
                   on_init=True)
    def _want_live(self):
        if self.part == "c" or self.eager:
            _, live = self.live_values()
            s = self.setting = live_setting(self.kv_heads, self.precision, self.window,
                                            self.lang)
            live.request(live_key(s), lambda: measure(*s.key))

    @param.depends("part", "eager", "policy", "budget", "lang", watch=True, on_init=True)
    def _want_eviction(self):
        if self.part == "d" or self.eager:
            evict, swept = self.eviction_values()
            ids = eviction_ids(self.lang)
            policy, budget = self.policy, self.budget
            evict.request(evict_key(ids, policy, budget), lambda: eviction(ids, policy, budget))
            swept.request(sweep_key(ids), lambda: sweep(ids), front=False)
            self.evict_cache.request(evict_key(ids, policy, budget, "cache"),
                                     lambda: eviction(ids, policy, budget, "cache"), front=False)
            self.shares.request(shares_key(ids), lambda: shares(ids), front=False)

    def n_frames(self) -> int | None:
        """Frames of the part shown (B: the pool's events, D: the generated tokens), None
        while they have not run (or the part has none)."""
        v = (self.paged if self.part == "b" else self.evict if self.part == "d" else None)
        v = v.value if v is not None else None
        if v is None:
            return None
        return v.n_frames if self.part == "b" else len(v.frames)

    @param.depends("frame", "part", watch=True)
    def _keep_frame(self):
        n = self.n_frames()
        if n and self.frame > n - 1:
            self.frame = n - 1

    def pool_frame(self) -> PoolFrame | None:
        """The paged pool at the current frame (None until it has run)."""
        p = self.paged.value if self.paged is not None else None
        return p.frames[min(self.frame, p.n_frames - 1)] if p is not None else None
