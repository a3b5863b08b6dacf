"""Instrumented generation on the live model: the numbers the steps show as *measured*.

The shipped models and the tokenizer load once per process (functools caches) and are shared,
read-only, by every session. Traces for the same inputs are cached too, so a slider that
returns to a value costs nothing.
"""
from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import numpy as np
import torch

from .cache import EVICTION_POLICIES, BlockPool, make_cache, make_eviction_cache
from .memo import memo
from .model import Decoder, Stats, pick_device
from .tokenizer import Tokenizer
from .train import ASSETS, VARIANTS, load

VARIANT_NAMES = tuple(VARIANTS)            # ("mha", "gqa", "mqa")
# torch on the CPU already uses every core for one forward pass; running two at once only
# slows both. The lock also keeps wall-time measurements honest.
_RUN_LOCK = threading.Lock()


@lru_cache(maxsize=None)
def tokenizer() -> Tokenizer:
    return Tokenizer.load(ASSETS / "vocab.json")


@lru_cache(maxsize=None)
def model(variant: str = "mha") -> Decoder:
    if variant not in VARIANTS:
        raise ValueError(f"unknown model variant {variant!r}; choose one of {VARIANT_NAMES}")
    path: Path = ASSETS / f"model_{variant}.pt"
    if not path.exists():
        raise FileNotFoundError(f"{path} is missing: run `python -m explainer.train`")
    m = load(path, device=pick_device())
    for p in m.parameters():
        p.requires_grad_(False)
    return m


def model_facts(variant: str = "mha") -> dict:
    m = model(variant)
    c = m.cfg
    return {"n_layers": c.n_layers, "n_heads": c.n_heads, "n_kv_heads": c.n_kv_heads,
            "head_dim": c.head_dim, "d_model": c.d_model, "max_len": c.max_len,
            "vocab_size": c.vocab_size, "n_params": m.n_params(), "device": str(m.device),
            "dtype": str(m.embed.weight.dtype).replace("torch.", "")}


@lru_cache(maxsize=None)
def live_preset(variant: str = "mha"):
    """The live model's config as a cost-model preset (its cache bytes come from the same
    formulas as every other model's)."""
    from .presets import live_preset as preset
    m = model(variant)
    return preset(m.cfg, m.n_params())


def encode(text: str) -> tuple[int, ...]:
    """Text -> token ids; empty input is an error (the model needs one token to start)."""
    ids = tokenizer().encode(text or "")
    if not ids:
        raise ValueError("the prompt is empty: type at least one word")
    return tuple(ids)


def _check(ids, n_new: int, m: Decoder):
    if len(ids) == 0:
        raise ValueError("the prompt is empty: type at least one word")
    if n_new < 1:
        raise ValueError("generate at least one token")
    need = len(ids) + n_new - 1
    if need > m.cfg.max_len:
        raise ValueError(f"{len(ids)} prompt tokens + {n_new} new tokens need {need} positions; "
                         f"the model has {m.cfg.max_len}")


def _sync(dev: torch.device):
    if dev.type == "cuda":
        torch.cuda.synchronize(dev)


@dataclass
class Trace:
    """Everything one greedy generation did. Arrays are numpy, read-only by convention."""
    variant: str
    cache_kind: str | None            # None = no cache (recompute the prefix every step)
    prompt_ids: tuple
    ids: tuple                        # prompt + generated
    logits: np.ndarray                # [n_new, vocab]: the logits each new token was chosen from
    attn: list                        # per step: [n_layers, n_heads, keys] of the newest query
    kv_rows: np.ndarray               # [n_new, n_layers]: rows through W_k/W_v, per step
    times: np.ndarray                 # [n_new] seconds: prefill first, then each decode step
    cache_nbytes: list = field(default_factory=list)   # bytes held after each step
    cache_shape: list = field(default_factory=list)    # one layer's K shape after each step
    k: np.ndarray | None = None       # [n_layers, h_kv, tokens, d_h] cached keys at the end
    v: np.ndarray | None = None

    @property
    def P(self) -> int:
        return len(self.prompt_ids)

    @property
    def new_ids(self) -> tuple:
        return self.ids[self.P:]

    @property
    def kv_rows_per_layer(self) -> int:
        return int(self.kv_rows[:, 0].sum())

    @property
    def kv_rows_total(self) -> int:
        return int(self.kv_rows.sum())

    @property
    def prefill_s(self) -> float:
        return float(self.times[0])

    @property
    def decode_s(self) -> np.ndarray:
        return self.times[1:]

    def tokens(self) -> list[str]:
        return [tokenizer().itos[i] for i in self.ids]


def _attn_last(probs) -> np.ndarray:
    """Per layer [1, h, T, S] -> the newest query's row: [n_layers, h, S]."""
    return torch.stack([p[0, :, -1, :] for p in probs]).float().cpu().numpy()


@torch.no_grad()
def _generate(variant: str, ids: tuple, n_new: int, cache_kind: str | None,
              window: int | None, record_kv: bool) -> Trace:
    m = model(variant)
    _check(ids, n_new, m)
    dev, L = m.device, m.cfg.n_layers
    seq = list(ids)
    logits_out, attn, rows, times, nbytes, shapes = [], [], [], [], [], []
    cache = make_cache(cache_kind, m.cfg, device=dev, window=window) if cache_kind else None
    with _RUN_LOCK:
        for step in range(n_new):
            stats = Stats(L)
            _sync(dev)
            t0 = time.perf_counter()
            if cache is None:   # recompute K/V for the whole prefix, every step
                x = torch.tensor([seq], device=dev)
                logits, probs = m(x, 0, None, window=window, stats=stats, want_probs=True)
            elif step == 0:     # prefill: the whole prompt in one pass
                x = torch.tensor([seq], device=dev)
                logits, probs = m(x, 0, cache, stats=stats, want_probs=True)
            else:               # decode: only the newest token
                x = torch.tensor([[seq[-1]]], device=dev)
                logits, probs = m(x, len(seq) - 1, cache, stats=stats, want_probs=True)
            nxt = int(logits[0, -1].argmax())
            _sync(dev)
            times.append(time.perf_counter() - t0)
            logits_out.append(logits[0, -1].float().cpu().numpy())
            attn.append(_attn_last(probs))
            rows.append(stats.kv_rows)
            if cache is not None:
                nbytes.append(cache.nbytes)
                shapes.append(tuple(getattr(cache, "shape", (1, m.cfg.n_kv_heads, cache.length, m.cfg.head_dim))))
            seq.append(nxt)
    tr = Trace(variant, cache_kind, tuple(ids), tuple(seq), np.stack(logits_out), attn,
               np.array(rows), np.array(times), nbytes, shapes)
    if record_kv and cache_kind in ("fp32", "fp16"):
        tr.k = torch.stack([k[0] for k in cache.k]).float().cpu().numpy()
        tr.v = torch.stack([v[0] for v in cache.v]).float().cpu().numpy()
    return tr


def run(variant: str, ids: tuple, n_new: int, cache_kind: str | None = "fp32",
        window: int | None = None, record_kv: bool = True) -> Trace:
    """`generate` without the per-process cache: for measurements that keep only what they
    need from the trace (its logits and attention rows are not held for the process's life)."""
    return _generate(variant, tuple(ids), n_new, cache_kind, window, record_kv)


@memo(maxsize=256)
def generate(variant: str, ids: tuple, n_new: int, cache_kind: str | None = "fp32",
             window: int | None = None, record_kv: bool = True) -> Trace:
    """Greedy generation of n_new tokens after the prompt `ids`.

    With a cache: a prefill pass over the prompt (gives token 1), then n_new - 1 decode steps
    of one token each. Without (cache_kind=None): every step runs the whole sequence again.
    Cached per process: the same inputs return the same Trace object (don't mutate it).
    """
    return _generate(variant, tuple(ids), n_new, cache_kind, window, record_kv)


@dataclass(frozen=True)
class Comparison:
    same_tokens: bool
    max_abs_dlogit: float
    rows_cached: int          # per layer
    rows_uncached: int        # per layer
    time_cached_s: float
    time_uncached_s: float


def compare_cached_uncached(variant: str, ids: tuple, n_new: int) -> Comparison:
    """Run with and without the cache; the logits must agree to float tolerance."""
    a = generate(variant, tuple(ids), n_new, "fp32", record_kv=False)
    b = generate(variant, tuple(ids), n_new, None, record_kv=False)
    n = min(len(a.logits), len(b.logits))
    return Comparison(a.ids == b.ids, float(np.abs(a.logits[:n] - b.logits[:n]).max()),
                      a.kv_rows_per_layer, b.kv_rows_per_layer,
                      float(a.times.sum()), float(b.times.sum()))


@dataclass(frozen=True)
class VariantEffect:
    cache_kind: str
    window: int | None
    nbytes: int               # bytes the cache holds at the end
    exact_nbytes: int         # the fp32 contiguous cache for the same tokens
    top1_agreement: float     # share of steps whose argmax equals the exact run's
    max_abs_dlogit: float
    tokens: tuple             # the variant's own greedy continuation


@memo(maxsize=128)
def variant_effect(variant: str, ids: tuple, n_new: int, cache_kind: str,
                   window: int | None = None) -> VariantEffect:
    """Teacher-forced comparison against the exact fp32 cache: feed the exact run's tokens to
    the variant and compare the logits it would choose from at every step."""
    exact = generate(variant, tuple(ids), n_new, "fp32", record_kv=False)
    m = model(variant)
    dev = m.device
    cache = make_cache(cache_kind, m.cfg, device=dev, window=window)
    seq = list(exact.ids)
    P = len(ids)
    out = []
    with torch.no_grad(), _RUN_LOCK:
        out.append(m(torch.tensor([seq[:P]], device=dev), 0, cache)[0, -1])
        for pos in range(P, P + n_new - 1):
            out.append(m(torch.tensor([[seq[pos]]], device=dev), pos, cache)[0, -1])
    got = torch.stack(out).float().cpu().numpy()
    own = generate(variant, tuple(ids), n_new, cache_kind, window, record_kv=False)
    return VariantEffect(cache_kind, window, cache.nbytes, exact.cache_nbytes[-1],
                         float((got.argmax(-1) == exact.logits.argmax(-1)).mean()),
                         float(np.abs(got - exact.logits).max()), own.new_ids)


@lru_cache(maxsize=1)
def corpus_ids() -> tuple:
    """The corpus as one token stream: real text to make long prompts from."""
    from .train import read_corpus
    tok = tokenizer()
    return tuple(i for line in read_corpus() for i in tok.encode(line))


@dataclass(frozen=True)
class Throughput:
    prompt_tokens: int
    decode_steps: int
    prefill_s: float
    decode_s_median: float
    prefill_tokens_per_s: float
    decode_tokens_per_s: float
    device: str


def throughput(variant: str, prompt_tokens: int, new_tokens: int, repeats: int = 3) -> Throughput:
    """Measured on this server: prefill of `prompt_tokens` corpus tokens, then decode steps.
    Median over `repeats` fresh runs (not cached: it measures the machine)."""
    return throughputs(variant, prompt_tokens, (new_tokens,), repeats)[new_tokens]


def throughputs(variant: str, prompt_tokens: int, outputs: tuple, repeats: int = 3) -> dict:
    """{new_tokens: Throughput} for several output lengths after one prompt, measured on this
    server (not cached: it measures the machine).

    One run of max(outputs) tokens gives the decode steps: a run of n tokens is one prefill
    and n − 1 decode steps, and its first o − 1 decode steps are exactly a run of o tokens, so
    for each o decode_s_median = the median of the first o − 1 step times. The prefill is timed
    in `repeats` fresh runs (that one and repeats − 1 prefill-only runs): prefill_s = their
    median. tokens/s = prompt_tokens ÷ prefill_s and 1 ÷ decode_s_median."""
    ids = corpus_ids()[:prompt_tokens]
    run = _generate(variant, ids, max(outputs), "fp32", None, record_kv=False)
    pre = [run.prefill_s] + [_generate(variant, ids, 1, "fp32", None, record_kv=False).prefill_s
                             for _ in range(repeats - 1)]
    p = float(np.median(pre))
    device = str(model(variant).device)
    out = {}
    for o in outputs:
        steps = o - 1
        d = float(np.median(run.decode_s[:steps])) if steps > 0 else float("nan")
        out[o] = Throughput(prompt_tokens, steps, p, d, prompt_tokens / p,
                            (1.0 / d) if steps > 0 else float("nan"), device)
    return out


# -- paged memory, step by step ----------------------------------------------------------------

@dataclass(frozen=True)
class PagedFrame:
    event: str                         # what happened: "prefill", "fork", "decode", "free", ...
    seq: str                           # which sequence
    tables: dict                       # seq id -> tuple of physical block ids
    lengths: dict                      # seq id -> tokens
    ref: tuple                         # per physical block: reference count
    stats: dict
    nbytes: int                        # bytes of the blocks in use (measured from the pool)


@memo(maxsize=8)
def paged_demo(variant: str = "mha", prefix: tuple | None = None, suffixes: tuple | None = None,
               decode_steps: int = 6, block_size: int = 4, num_blocks: int = 24) -> tuple:
    """Several requests on one real block pool: a shared prefix is prefilled once, the other
    requests fork it (sharing its blocks), add their own words, decode in turns, and finish.
    Returns one PagedFrame per event; the model really runs on the paged cache."""
    m = model(variant)
    dev = m.device
    tok = tokenizer()
    prefix = prefix or tuple(tok.encode("The capital of France is Paris ."))
    suffixes = suffixes or tuple(tuple(tok.encode(s)) for s in
                                 ("The capital of Poland is", "The capital of Spain is",
                                  "The capital of Italy is"))
    pool = BlockPool(m.cfg, num_blocks=num_blocks, block_size=block_size, device=dev)
    frames = []

    def snap(event, sid):
        frames.append(PagedFrame(event, sid, {k: tuple(v) for k, v in pool.tables.items()},
                                 dict(pool.lengths), tuple(pool.ref), pool.stats(), pool.nbytes))

    seqs, last = {}, {}
    with torch.no_grad(), _RUN_LOCK:
        base = pool.sequence("prefix")
        m(torch.tensor([prefix], device=dev), 0, base)
        snap("prefill", "prefix")
        for j, suf in enumerate(suffixes):
            sid = "ABCDEFGH"[j]
            seqs[sid] = pool.fork("prefix", sid)
            snap("fork", sid)
            logits = m(torch.tensor([suf], device=dev), len(prefix), seqs[sid])
            last[sid] = int(logits[0, -1].argmax())
            snap("prefill", sid)
        pool.free_sequence("prefix")      # the prefix lives on in the blocks its forks share
        snap("free", "prefix")
        for _ in range(decode_steps):
            for sid, s in seqs.items():
                logits = m(torch.tensor([[last[sid]]], device=dev), s.length, s)
                last[sid] = int(logits[0, -1].argmax())
                snap("decode", sid)
        for sid in list(seqs):
            pool.free_sequence(sid)
            snap("free", sid)
    return tuple(frames)


# -- eviction: which tokens a cache under a budget keeps, and what it costs ---------------------

POLICIES = EVICTION_POLICIES               # ("window", "sinks", "h2o")
# The defaults keep prompt + new tokens (63 positions fed) inside the 64 tokens the live model
# was trained on (train.RECIPE's seq_len), so what the curve shows is eviction, not the full
# cache running past the positions it knows. The last budget holds every token: the exact run.
EVICTION_PROMPT_TOKENS = 24                # the default prompt: this many corpus tokens
EVICTION_NEW = 40                          # tokens generated after it
EVICTION_BUDGETS = (6, 8, 12, 16, 24, 32, 64)   # tokens held per layer, for the sweep
EVICTION_SINKS = 4                         # StreamingLLM's S
EVICTION_POSITIONS = "original"            # keys keep their RoPE position (see cache.py)


def eviction_ids(n: int = EVICTION_PROMPT_TOKENS) -> tuple:
    """The default prompt of the eviction measurements: the first n tokens of the corpus."""
    return corpus_ids()[:n]


@dataclass(frozen=True)
class EvictionFrame:
    step: int                      # decode step, 0 = the first token after the prefill
    token: str                     # the token the exact run generates at this step
    kept: tuple                    # ((position, role), ...), role "sink" | "heavy" | "recent":
                                   # layer 0's held tokens after this step (absent = evicted)
    agree: bool                    # same top-1 as the full cache at this step
    max_dlogit: float              # max |Δ logit| at this step
    kl: float                      # KL(full || policy) of the next-token distribution, nats
    nbytes: int                    # bytes the policy's cache holds after this step
    full_nbytes: int               # bytes the full fp32 cache holds after this step


@dataclass(frozen=True)
class EvictionRun:
    policy: str
    budget: int
    prompt: tuple                  # the prompt's tokens as text
    frames: tuple                  # one EvictionFrame per step
    agreement: float               # share of the steps after the first (see below) with the
                                   # same top-1 as the full cache
    max_dlogit: float              # over the steps after the first
    mean_kl: float                 # over the steps after the first, nats
    nbytes: int                    # at the end
    full_nbytes: int               # at the end
    positions: str = EVICTION_POSITIONS
    sinks: int = EVICTION_SINKS

    @property
    def counted(self) -> int:
        """The steps the agreement counts: every step after the first. Step 0's logits come
        from the prefill, which reads the whole prompt before anything is dropped, so it
        agrees with the full cache by construction."""
        return len(self.frames) - 1


def _kl(full: torch.Tensor, got: torch.Tensor) -> torch.Tensor:
    """KL(full || got) per row, in nats, from logits (float64: a KL of 0 stays 0)."""
    lp, lq = torch.log_softmax(full.double(), -1), torch.log_softmax(got.double(), -1)
    return (lp.exp() * (lp - lq)).sum(-1).clamp_min(0.0)


def eviction_run(variant: str, ids: tuple, n_new: int, policy: str, budget: int,
                 positions: str = EVICTION_POSITIONS, sinks: int = EVICTION_SINKS) -> EvictionRun:
    """One policy at one budget, measured against the exact run (see _eviction_run).
    Memoised: the same arguments, however passed, give the same EvictionRun object."""
    return _eviction_run(variant, tuple(int(i) for i in ids), int(n_new), policy, int(budget),
                         positions, int(sinks))


@memo(maxsize=128)
def _eviction_run(variant: str, ids: tuple, n_new: int, policy: str, budget: int,
                  positions: str, sinks: int) -> EvictionRun:
    """Teacher-forced, like variant_effect: the exact fp32 run generates n_new tokens; the
    eviction cache is fed the same tokens (the prompt in one prefill, then one token a step)
    and every step's logits are compared with the exact run's. Step 0's logits come from the
    prefill, which reads the whole prompt, so the first drop shows from step 1 on.

    A budget at least the tokens seen (len(ids) + n_new - 1) never drops a token and gives the
    exact logits bit for bit: agreement 1, max |Δ logit| 0, KL 0.

    The run's agreement, largest |Δ logit| and mean KL count the steps after the first
    (`EvictionRun.counted`): step 0 is the same as the full cache's by construction (with
    one token generated, there is nothing to count: agreement 1)."""
    if policy not in POLICIES:
        raise ValueError(f"unknown eviction policy {policy!r}; choose one of {POLICIES}")
    exact = generate(variant, ids, n_new, "fp32", record_kv=False)
    m = model(variant)
    dev, itos = m.device, tokenizer().itos
    cache = make_eviction_cache(policy, m.cfg, budget, sinks=sinks, positions=positions,
                                device=dev)
    seq, P = exact.ids, len(ids)
    shared: dict = {}                       # one (position, role) tuple per pair, for memory
    logits, kept, nbytes = [], [], []
    with torch.no_grad(), _RUN_LOCK:
        for step in range(n_new):
            if step == 0:
                x = m(torch.tensor([seq[:P]], device=dev), 0, cache)
            else:
                x = m(torch.tensor([[seq[P + step - 1]]], device=dev), P + step - 1, cache)
            logits.append(x[0, -1])
            kept.append(tuple(shared.setdefault(r, r) for r in cache.roles(0)))
            nbytes.append(cache.nbytes)
    got = torch.stack(logits).float().cpu()
    full = torch.from_numpy(exact.logits)
    agree = (got.argmax(-1) == full.argmax(-1)).tolist()
    dlogit = (got - full).abs().amax(-1).tolist()
    kl = _kl(full, got).tolist()
    frames = tuple(EvictionFrame(s, itos[seq[P + s]], kept[s], bool(agree[s]), float(dlogit[s]),
                                 float(kl[s]), int(nbytes[s]), int(exact.cache_nbytes[s]))
                   for s in range(n_new))
    after = slice(1, None) if n_new > 1 else slice(None)       # the steps after the first
    return EvictionRun(policy, budget, tuple(itos[i] for i in ids), frames,
                       float(np.mean(agree[after])), float(max(dlogit[after])),
                       float(np.mean(kl[after])), frames[-1].nbytes, frames[-1].full_nbytes,
                       positions, sinks)


def eviction_sweep(variant: str, ids: tuple, n_new: int, budgets: tuple,
                   positions: str = EVICTION_POSITIONS) -> dict:
    """See _eviction_sweep; memoised whichever way the arguments are passed."""
    return _eviction_sweep(variant, tuple(int(i) for i in ids), int(n_new),
                           tuple(int(b) for b in budgets), positions)


@memo(maxsize=16)
def _eviction_sweep(variant: str, ids: tuple, n_new: int, budgets: tuple,
                    positions: str) -> dict:
    """policy -> ((budget, agreement, mean KL), ...) for every policy and budget: the curve of
    agreement against budget. Each point is one eviction_run (memoised too, so a page that
    then plays a policy at a budget of the sweep finds it measured)."""
    out = {}
    for policy in POLICIES:
        runs = [eviction_run(variant, ids, n_new, policy, b, positions) for b in budgets]
        out[policy] = tuple((r.budget, r.agreement, r.mean_kl) for r in runs)
    return out


@dataclass(frozen=True)
class AttentionShares:
    first: int                     # how many of the first tokens (the would-be sinks)
    recent: int                    # how many of the most recent tokens (the query's own included)
    first_share: float             # mean share of the newest query's attention on the first ones
    recent_share: float            # ... on the most recent ones
    first_by_layer: tuple          # the same, per layer
    recent_by_layer: tuple


@memo(maxsize=16)
def attention_shares(variant: str, ids: tuple, n_new: int, first: int = EVICTION_SINKS,
                     recent: int = 8) -> AttentionShares:
    """Where the exact run's newest query puts its attention: the share on the first `first`
    tokens and on the last `recent`, averaged over heads and over the steps whose sequence is
    longer than first + recent (so the two never overlap). What says whether a model has
    attention sinks for StreamingLLM to keep, and how local its reading is."""
    tr = generate(variant, tuple(ids), n_new, "fp32", record_kv=False)
    rows = [a for a in tr.attn if a.shape[-1] > first + recent]       # [L, h, S] each
    if not rows:
        raise ValueError(f"the run never holds more than {first + recent} tokens")
    f = np.stack([a[:, :, :first].sum(-1).mean(-1) for a in rows]).mean(0)    # [L]
    r = np.stack([a[:, :, -recent:].sum(-1).mean(-1) for a in rows]).mean(0)
    return AttentionShares(first, recent, float(f.mean()), float(r.mean()),
                           tuple(float(x) for x in f), tuple(float(x) for x in r))
