"""Step 1's view-model: which prompt, which frame, which layer/head; numbers only.

Frame 0 is the prompt alone; each later frame adds one generated token. Everything comes from
one cached greedy run of the live model (`rt.generate`), whose attention is drawn as arcs.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import param

from explainer import runtime as rt
from explainer.i18n import LANGS
from explainer.memo import memo
from explainer.prompts import PROMPTS
from explainer.tokenizer import UNK

VARIANT = "mha"
N_NEW = 12            # tokens the player generates: frames 0..N_NEW-1
MAX_PROMPT = 16       # what the arcs can draw legibly
MAX_CHARS = 200
FACTS = rt.model_facts(VARIANT)
DEFAULT_LAYER, DEFAULT_HEAD = FACTS["n_layers"], 1     # one real head, not an average


@dataclass(frozen=True)
class Frame:
    tokens: tuple          # the sequence so far (prompt + generated), as the model sees it
    next: str              # the token this step predicts
    weights: np.ndarray    # [keys]: the newest query's attention over every key it reads
    keys_read: int         # keys this query really scored (its own included)
    scores: int            # q·k scores of all newest queries so far


@dataclass(frozen=True)
class Run:
    prompt_len: int
    frames: tuple          # Frame per player position
    notices: tuple         # (code, ((name, value), ...)) of what happened to the prompt text
    unknown: tuple         # words read as <unk>


class Step1Model(param.Parameterized):
    lang = param.Selector(default="en", objects=list(LANGS), doc="language of the prompts")
    example = param.Integer(default=0, bounds=(0, len(PROMPTS["en"]) - 1),
                            doc="index into the language's example prompts")
    text = param.String(default="", doc="free-text prompt; overrides the example")
    frame = param.Integer(default=0, bounds=(0, N_NEW - 1))
    # a learner starts on one real head (the last layer's first: its attention spreads over
    # several earlier tokens in every language's default prompt); the averages are options
    layer = param.Integer(default=DEFAULT_LAYER, bounds=(0, FACTS["n_layers"]),
                          doc="0 = average of all layers")
    head = param.Integer(default=DEFAULT_HEAD, bounds=(0, FACTS["n_heads"]),
                         doc="0 = average of all heads")

    def prompt_text(self) -> str:
        return self.text.strip() or PROMPTS[self.lang][self.example]

    def prompt(self) -> tuple[tuple, tuple, tuple]:
        """(ids, notices, unknown words); falls back to the language's default prompt when
        the text cannot run."""
        notices = []
        text = self.prompt_text()[:MAX_CHARS]
        try:
            ids = rt.encode(text)
        except ValueError:
            notices.append(("empty", ()))
            text = PROMPTS[self.lang][0]
            ids = rt.encode(text)
        unknown = tuple(dict.fromkeys(rt.tokenizer().unknown(text)))
        if unknown:
            notices.append(("unknown", (("unk", UNK), ("words", ", ".join(unknown)))))
        if len(ids) > MAX_PROMPT:
            notices.append(("truncated", (("n", MAX_PROMPT),)))
            ids = ids[:MAX_PROMPT]
        return tuple(ids), tuple(notices), unknown

    run = param.Parameter(default=None, doc="output: every frame of the current inputs (Run)")

    @param.depends("lang", "example", "text", "layer", "head", watch=True, on_init=True)
    def _compute(self):
        """The frames the player moves through (in the browser): recomputed only when an
        input they depend on changes, never when the frame moves."""
        ids, notices, unknown = self.prompt()
        self.run = _run(ids, notices, unknown, self.layer, self.head)

    def current(self) -> Frame:
        return self.run.frames[self.frame]


@memo(maxsize=512, disk=True)
def _run(ids: tuple, notices: tuple, unknown: tuple, layer: int, head: int) -> Run:
    """Shared by every session: a Run is immutable."""
    tr = rt.generate(VARIANT, ids, N_NEW)
    itos = rt.tokenizer().itos
    P = len(ids)
    frames, scores = [], 0
    for f in range(N_NEW):
        a = tr.attn[f]                                   # [layers, heads, keys]
        a = a.mean(0) if layer == 0 else a[layer - 1]
        w = a.mean(0) if head == 0 else a[head - 1]
        keys = int(tr.attn[f].shape[-1])
        scores += keys
        frames.append(Frame(tokens=tuple(itos[i] for i in tr.ids[:P + f]),
                            next=itos[tr.ids[P + f]], weights=np.asarray(w, float),
                            keys_read=keys, scores=scores))
    return Run(prompt_len=P, frames=tuple(frames), notices=notices, unknown=unknown)
