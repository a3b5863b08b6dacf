"""Step 3's view-model: which prompt, which frame, which layer and key/value head; numbers only.

Frame 0 is the cache right after the prefill (the whole prompt written at once); frame f is
the cache after decode step f (one more k row and one more v row per layer). Everything comes
from one cached greedy run of the live model (`rt.generate`): the key and value rows are its
cached tensors, the weights are its newest query's softmax(q·k/√d), and the output row is
that query's softmax(q·Kᵀ/√d)·V for the chosen key/value head.

URL values (`example`, `frame`, `layer`, `head`): `layer` and `head` are 1-based, as in
step 1 (“Layer 1” is `layer=1`). Before this version they were 0-based, with layer=0&head=0
as the default: such a link now gets the shell's “not valid here” notice and the default
head below, and a link with 1..3 shows the layer/head of that number as the menus name it.
The default is layer 3, head 1 (1-based): a head whose attention spreads over the prompt in
every language's default prompt (en 56/18/2/9/14 %, id 53/0/40/6 %, pl 31/59/10 %,
nl 9/11/23/35/23 % after the prefill), where layer 1, head 2 puts 99 % or more on the newest
token.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import param

from explainer import costs, presets
from explainer import runtime as rt
from explainer.i18n import LANGS
from explainer.memo import memo
from explainer.prompts import PROMPTS

VARIANT = "mha"
N_NEW = 12                      # tokens generated: the prefill gives one, then 11 decode steps
LAST_FRAME = N_NEW - 1          # frame 0 = after the prefill, frame f = after decode step f
FACTS = rt.model_facts(VARIANT)
N_EXAMPLES = min(len(p) for p in PROMPTS.values())
DEFAULT_LAYER, DEFAULT_HEAD = 3, 1      # 1-based: a head with spread attention
SELF_LAYER, SELF_HEAD = 1, 2            # 1-based: a head that reads only the newest token
QUESTION_STEPS = 3              # the question asks about the cache after 3 decode steps


@dataclass(frozen=True)
class Frame:
    step: int                   # 0 = the prefill, f = decode step f
    n_cached: int               # measured: the cache's token axis after this step
    new_rows: int               # measured: rows through W_k / W_v this step (per layer)
    keys_scored: int            # measured: keys the newest query scored
    shape: tuple                # measured: one layer's K tensor [batch, kv_heads, tokens, d]
    live_bytes: int             # measured: bytes of the live cache's tensors
    live_formula_bytes: int     # computed: the cost formula for the live configuration
    ref_bytes: int              # computed: the reference model's cache for n_cached tokens
    tokens: tuple               # the cached tokens, oldest first
    next: str                   # the token this step picks
    k: np.ndarray               # [n_cached, head_dim]: cached keys of the chosen layer/head
    v: np.ndarray               # [n_cached, head_dim]: cached values
    weights: np.ndarray         # [n_cached]: the newest query's softmax(q·k/√d)
    out: np.ndarray             # [head_dim]: softmax(q·Kᵀ/√d)·V, the attention output


@dataclass(frozen=True)
class Run:
    prompt_len: int
    layer: int                  # 1-based
    head: int                   # 1-based key/value head
    q_heads: tuple              # (first, last) 1-based query heads that read this KV head
    written: tuple              # per cached row: 0 = written by the prefill, f = decode step f
    k_scale: float              # 95th percentile of |k| over the run's rows: one colour scale
                                # for every frame (larger values saturate)
    v_scale: float              # the same for |v| (the output row uses it: it mixes v rows)
    prefill_triangle: int       # q·k scores of the prefill per head: P(P+1)/2
    per_token_bytes: int        # computed: live cache bytes per token (fp32)
    ref_name: str
    ref_precision: str
    frames: tuple


class Step3Model(param.Parameterized):
    lang = param.Selector(default="en", objects=list(LANGS), doc="language of the prompts")
    example = param.Integer(default=0, bounds=(0, N_EXAMPLES - 1),
                            doc="index into the language's example prompts; 0 is its default")
    frame = param.Integer(default=0, bounds=(0, LAST_FRAME),
                          doc="0 = after the prefill, then one per decode step")
    layer = param.Integer(default=DEFAULT_LAYER, bounds=(1, FACTS["n_layers"]),
                          doc="1-based layer")
    head = param.Integer(default=DEFAULT_HEAD, bounds=(1, FACTS["n_kv_heads"]),
                         doc="1-based key/value head whose cached rows are drawn")

    run = param.Parameter(default=None, doc="output: every frame of the current inputs (Run)")

    def prompt_text(self) -> str:
        prompts = PROMPTS[self.lang]
        return prompts[min(self.example, len(prompts) - 1)]

    @param.depends("lang", "example", "layer", "head", watch=True, on_init=True)
    def _compute(self):
        """The frames the player moves through (in the browser): recomputed only when an
        input they depend on changes, never when the frame moves."""
        self.run = _run(rt.encode(self.prompt_text()), self.layer, self.head)

    def current(self) -> Frame:
        return self.run.frames[self.frame]


def query_heads(head: int) -> tuple[int, int]:
    """The 1-based query heads (first, last) that read 1-based key/value head `head`."""
    g = FACTS["n_heads"] // FACTS["n_kv_heads"]
    return (head - 1) * g + 1, head * g


@memo(maxsize=512, disk=True)
def _run(ids: tuple, layer: int, head: int) -> Run:
    """Shared by every session: a Run is immutable."""
    t = rt.generate(VARIANT, ids, N_NEW, "fp32")
    P, li, hi = t.P, layer - 1, head - 1
    q0, q1 = query_heads(head)
    live = rt.live_preset(VARIANT)
    ref = presets.MODELS[presets.STEP3["model"]]
    precision = presets.STEP3["precision"]
    tokens = t.tokens()
    k_all = np.asarray(t.k[li, hi], float)             # [P + N_NEW - 1, d]: the final cache
    v_all = np.asarray(t.v[li, hi], float)
    frames = []
    for f in range(N_NEW):
        shape = tuple(int(s) for s in t.cache_shape[f])
        n = shape[2]                                    # measured: the cache's token axis
        # the newest query's weights; with GQA the query heads sharing this KV head averaged
        w = np.asarray(t.attn[f][li, q0 - 1:q1], float).mean(axis=0)
        k, v = k_all[:n], v_all[:n]
        frames.append(Frame(
            step=f, n_cached=n, new_rows=int(t.kv_rows[f, 0]), keys_scored=int(w.shape[-1]),
            shape=shape, live_bytes=int(t.cache_nbytes[f]),
            live_formula_bytes=costs.kv_cache_bytes(live, n, precision="fp32"),
            ref_bytes=costs.kv_cache_bytes(ref, n, precision=precision),
            tokens=tuple(tokens[:n]), next=tokens[n], k=k, v=v, weights=w, out=w @ v))
    written = tuple(0 if i < P else i - P + 1 for i in range(k_all.shape[0]))
    return Run(prompt_len=P, layer=layer, head=head, q_heads=(q0, q1), written=written,
               k_scale=float(np.percentile(np.abs(k_all), 95)),
               v_scale=float(np.percentile(np.abs(v_all), 95)),
               prefill_triangle=P * (P + 1) // 2,
               per_token_bytes=costs.kv_bytes_per_token(live, "fp32"),
               ref_name=ref.name, ref_precision=str(precision), frames=tuple(frames))
