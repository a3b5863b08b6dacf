"""The steps, in order: the one table every per-step list derives from (the stepper, the step
count, the key-ideas page, the schematic's highlight, the warm-up, the benchmark).

Adding a step is a package under `steps/`, one line here and its words in the catalogs.
"""
from __future__ import annotations

from dataclasses import dataclass

from explainer.i18n import N_


@dataclass(frozen=True)
class StepInfo:
    module: str          # the step's package (its view defines `STEP`, the step's controller)
    title: str           # msgid
    takeaway: str        # msgid: the step in one or two sentences, on the key-ideas page
    highlight: tuple[str, ...] = ()   # parts of the heading's attention schematic it is about
    warm_frames: bool = False         # the warm-up builds its played frames for every state


STEPS: tuple[StepInfo, ...] = (
    StepInfo("steps.step1", N_("One token at a time"), N_(
        "A decoder writes one token per forward pass. The newest token's query is scored "
        "against the key of every earlier token and its own, and the values are mixed by those "
        "scores."), highlight=("q", "cache", "attn"), warm_frames=True),
    StepInfo("steps.step2", N_("Wasted work"), N_(
        "Without a cache, every step computes the keys and values of the whole text again: "
        "T·P + T(T−1)/2 projections per layer instead of P + T − 1. The waste grows with the "
        "square of the length."), highlight=("x", "w", "kv"), warm_frames=True),
    StepInfo("steps.step3", N_("Storing keys and values"), N_(
        "The KV cache keeps one key row and one value row per token, per layer and KV head. A "
        "decode step appends one row; the earlier rows are read, never rewritten, and the "
        "output is still exactly the same."), highlight=("kv", "cache", "attn"), warm_frames=True),
    StepInfo("steps.step4", N_("Prefill vs decode"), N_(
        "Prefill pushes the whole prompt through at once and keeps the GPU busy computing. "
        "Each decode step produces one token per sequence but must read all the weights and "
        "the whole cache: at small batch it waits on memory."), highlight=("w", "cache")),
    StepInfo("steps.step5", N_("The memory bill"), N_(
        "The cache grows with layers, KV heads, head dimension, bytes per value, context and "
        "batch. At long contexts and large batches it outgrows the model's weights."),
        highlight=("cache",)),
    StepInfo("steps.step6", N_("Shrinking the cache"), N_(
        "Fewer KV heads (GQA, MQA), fewer bits (fp8, int8, int4), fewer tokens (a sliding "
        "window) and no reserved waste (paged memory) shrink it, each at a different price."),
        highlight=("cache",)),
)

COUNT = len(STEPS)
END = COUNT + 1                       # the key-ideas page after the last step (`?step=end`)
END_MODULE = "steps.ending"
END_TITLE = N_("Key ideas")
STEP_TITLES = tuple(s.title for s in STEPS)
NUMBERS = tuple(range(1, COUNT + 1))


def module_of(n: int) -> str:
    """The package of step `n` (1..COUNT), or the key-ideas page's (END)."""
    return END_MODULE if n == END else STEPS[n - 1].module
