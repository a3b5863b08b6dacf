"""Step 4's view-model: prefill and decode of the 7B reference model on a GPU's roofline, and
what the live model measures on this server; numbers only.

Two outputs, each recomputed only when what it depends on changes:

- `roofline` (prompt, output, gpu): the prefill point and the last decode step's point of
  Llama 2 7B, from `explainer.costs`, shared by every session (`roofline_of` is cached);
- `plan` (prompt, output): the (prompt, output) bucket the live model is measured with (it
  holds at most 1,024 positions). The measurement itself is slow: the view asks for it
  through `steps.live.LiveValue` (`job(plan)`), so no slider move waits for it.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import param

from explainer import costs
from explainer import runtime as rt
from explainer.presets import GPUS, STEP4, GPUPreset

MODEL = STEP4["model"]           # Llama 2 7B, the reference model
VARIANT = "mha"                  # the live model measured here
LIVE_PROMPT_MAX = 768            # at most this many prompt tokens are measured ...
PROMPT_BUCKET = 16               # ... rounded down to a multiple of this
OUTPUT_BUCKET = 32               # outputs above this are rounded down to a multiple of it
BATCH_EXAMPLE = 8                # the batch of the narration's batching example
X_RANGE = (0.07, 20000)          # FLOP per byte shown on the roofline


@dataclass(frozen=True)
class Roofline:
    """Prefill and decode of the reference model on one GPU."""
    prompt: int
    output: int
    gpu: GPUPreset
    steps: int                   # decode steps: the prefill already yields the first token
    last_ctx: int                # context of the last (largest) decode step
    prefill: costs.RooflinePoint
    decode: costs.RooflinePoint  # the last decode step (at P + 1 when there is none)
    read_max: float              # bytes read by the last decode step
    decode_total_s: float        # all decode steps together
    batched: costs.RooflinePoint  # the last decode step for BATCH_EXAMPLE sequences
    weights: float               # fp16 weight bytes of the reference model
    kv_per_token: int
    roof: tuple                  # ((FLOP/byte, FLOP/s), ...): the roofline's corners
    y_range: tuple               # (lo, hi) FLOP/s shown

    @property
    def batch_gain(self) -> float:
        return self.batched.tokens_per_s / self.decode.tokens_per_s


@dataclass(frozen=True)
class Plan:
    """What the live model is measured with, for the sliders' (prompt, output)."""
    prompt: int
    output: int
    clamped: bool                # the sliders ask for more than the live model holds
    max_len: int

    @property
    def key(self) -> tuple:
        return ("step4", (self.prompt, self.output))


@lru_cache(maxsize=None)
def live_facts() -> dict:
    """The live model's size and where it runs (for the words around the measurement)."""
    f = rt.model_facts(VARIANT)
    weights = sum(p.numel() * p.element_size() for p in rt.model(VARIANT).parameters())
    return dict(n_layers=f["n_layers"], n_heads=f["n_heads"], head_dim=f["head_dim"],
                max_len=int(f["max_len"]), device=f["device"], n_params=f["n_params"],
                weights=weights)


def measure_plan(prompt: int, output: int, max_len: int | None = None) -> tuple[int, int]:
    """(prompt tokens, output tokens) measured on the live model for the slider values.

    min(prompt, 768) prompt tokens and min(output, context − those) outputs, bucketed
    (prompt down to a multiple of 16, outputs above 32 down to a multiple of 32) so that
    nearby slider values share one measurement; at least 2 outputs, so one decode step runs.
    """
    max_len = max_len or live_facts()["max_len"]
    p = min(prompt, LIVE_PROMPT_MAX, max_len - 2)
    p = max(PROMPT_BUCKET, p - p % PROMPT_BUCKET) if p >= PROMPT_BUCKET else max(1, p)
    o = min(output, max_len + 1 - p)        # p + o - 1 positions are needed
    if o > OUTPUT_BUCKET:
        o -= o % OUTPUT_BUCKET
    return p, max(2, o)


def plan_of(prompt: int, output: int) -> Plan:
    max_len = live_facts()["max_len"]
    p, o = measure_plan(prompt, output, max_len)
    clamped = prompt > LIVE_PROMPT_MAX or output > max_len + 1 - min(prompt, LIVE_PROMPT_MAX)
    return Plan(prompt=p, output=o, clamped=clamped, max_len=max_len)


def measure(plan: Plan) -> rt.Throughput:
    """Prefill and decode speed of the live model on this server (slow: run it as a job)."""
    return rt.throughput(VARIANT, plan.prompt, plan.output)


def job(plan: Plan) -> tuple:
    """(key, fn) for `LiveValue.request`: one measurement per bucket, shared by every
    session."""
    return plan.key, lambda: measure(plan)


@lru_cache(maxsize=4096)
def roofline_of(prompt: int, output: int, gpu: str) -> Roofline:
    g = GPUS[gpu]
    steps = costs.decode_steps(output)
    last_ctx = max(costs.last_decode_context(prompt, output), prompt + 1)
    peak, bw = g.flops, g.bandwidth
    x0, x1 = X_RANGE
    return Roofline(
        prompt=prompt, output=output, gpu=g, steps=steps, last_ctx=last_ctx,
        prefill=costs.prefill_cost(MODEL, prompt, g),
        decode=costs.decode_step_cost(MODEL, last_ctx, g),
        read_max=costs.decode_read_bytes_max(MODEL, prompt, output),
        decode_total_s=costs.decode_total_time_s(MODEL, prompt, output, g) if steps else 0.0,
        batched=costs.decode_step_cost(MODEL, last_ctx, g, batch=BATCH_EXAMPLE),
        weights=costs.weight_bytes(MODEL), kv_per_token=costs.kv_bytes_per_token(MODEL),
        roof=((x0, bw * x0), (g.ridge, peak), (x1, peak)),
        y_range=(bw * x0 / 1.5, peak * 4))


class Step4Model(param.Parameterized):
    prompt = param.Integer(default=STEP4["prompt"], bounds=STEP4["prompt_range"],
                           doc="prompt length (tokens)")
    output = param.Integer(default=STEP4["output"], bounds=STEP4["output_range"],
                           doc="output tokens")
    gpu = param.Selector(default=STEP4["gpu"], objects=list(GPUS), doc="GPU preset")

    roofline = param.Parameter(default=None, doc="output: prefill and decode (Roofline)")
    plan = param.Parameter(default=None, doc="output: what the live model measures (Plan)")

    @param.depends("prompt", "output", "gpu", watch=True, on_init=True)
    def _roofline(self):
        self.roofline = roofline_of(self.prompt, self.output, self.gpu)

    @param.depends("prompt", "output", watch=True, on_init=True)
    def _plan(self):
        plan = plan_of(self.prompt, self.output)
        if plan != self.plan:            # nearby slider values share one measurement
            self.plan = plan
