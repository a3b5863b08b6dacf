"""Step 4 — Prefill vs decode: compute-bound versus memory-bound.

A log-log roofline of the chosen GPU with the prefill point and the (last) decode-step point
of the 7B reference model, from `explainer.costs`. Beside it, prefill and decode speed
*measured* on the live model on this server, computed in a background thread (one result per
(prompt, output) bucket, shared by every session) so that no slider move ever waits for it.
"""
from __future__ import annotations

import math
from concurrent.futures import wait as futures_wait

import panel as pn
import panel_material_ui as pmui
import param
from bokeh.models import (BoxAnnotation, ColumnDataSource, HoverTool, Label, LabelSet,
                          Range1d, Span)
from bokeh.plotting import figure

from explainer import costs
from explainer import runtime as rt
from explainer.i18n import N_
from explainer.presets import GPUS, STEP4, TB_PER_S, TFLOPS
from steps.live import JOBS, refresh_when_done, served_doc
from steps.common import (PALETTE, Question, StepView, esc, html_pane, legend_html,
                          locale_ticks, metric, metrics_html, on_doc)

# -- state: the reference model, the live model's limits -----------------------------------------

MODEL = STEP4["model"]                  # Llama 2 7B, the reference model
VARIANT = "mha"                  # the live model measured here
LIVE_PROMPT_MAX = 768            # at most this many prompt tokens are measured ...
PROMPT_BUCKET = 16               # ... rounded down to a multiple of this
OUTPUT_BUCKET = 32               # outputs above this are rounded down to a multiple of it
BATCH_EXAMPLE = 8                # the batch of the narration's batching example

X_TICKS = (0.1, 1, 10, 100, 1000, 10000)   # FLOP per byte
X_RANGE = (0.07, 20000)

PHASES = {"prefill": N_("prefill"), "decode": N_("decode")}
BOUNDS = {"compute": N_("compute-bound"), "memory": N_("memory-bound")}


def live_context() -> int:
    """Positions the live model holds (1,024 for the shipped model)."""
    return int(rt.model_facts(VARIANT)["max_len"])


def measure_plan(prompt: int, output: int, max_len: int | None = None) -> tuple[int, int]:
    """(prompt tokens, output tokens) measured on the live model for the slider values.

    min(prompt, 768) prompt tokens and min(output, context − those) outputs, bucketed
    (prompt down to a multiple of 16, outputs above 32 down to a multiple of 32) so that
    nearby slider values share one measurement; at least 2 outputs, so one decode step runs.
    """
    max_len = max_len or live_context()
    p = min(prompt, LIVE_PROMPT_MAX, max_len - 2)
    p = max(PROMPT_BUCKET, p - p % PROMPT_BUCKET) if p >= PROMPT_BUCKET else max(1, p)
    o = min(output, max_len + 1 - p)        # p + o - 1 positions are needed
    if o > OUTPUT_BUCKET:
        o -= o % OUTPUT_BUCKET
    return p, max(2, o)


# -- measurements: one per bucket per process, on the shared live-model queue ------------------

def submit_measure(key: tuple[int, int], front: bool = False):
    """Queue the measurement of a bucket (shared by every session; it runs once)."""
    return JOBS.submit(("step4", key), lambda: rt.throughput(VARIANT, key[0], key[1]), front)


def _finished(key: tuple[int, int]):
    fut = JOBS.get(("step4", key))
    return fut if fut is not None and fut.done() else None


def measured(key: tuple[int, int]) -> rt.Throughput | None:
    """The measurement of a bucket, or None while it has not run (or failed)."""
    fut = _finished(key)
    return fut.result() if fut is not None and fut.exception() is None else None


def failed(key: tuple[int, int]) -> bool:
    fut = _finished(key)
    return fut is not None and fut.exception() is not None


# -- small formatting helpers ----------------------------------------------------------------------

def _rate(tr, x: float | None) -> str:
    if x is None or not math.isfinite(x):
        return "–"
    return tr.int(x) if x >= 100 else tr.sig(x, 3)


def _short(tr, x: float) -> str:
    """As few decimals as the value needs, at most 3: 2, 1.555, 3.35, 0.3."""
    d = next(d for d in range(4) if round(x, d) == round(x, 3))
    return tr.num(x, d)


def _tick(tr, v: float) -> str:
    return tr.sig(v, 1)


def _y_ticks(lo: float, hi: float) -> list[float]:
    return [10.0 ** k for k in range(math.ceil(math.log10(lo)), math.floor(math.log10(hi)) + 1)]


class Step4(StepView):
    number = 4

    prompt = param.Integer(default=STEP4["prompt"], bounds=STEP4["prompt_range"],
                           doc="prompt length (tokens)")
    output = param.Integer(default=STEP4["output"], bounds=STEP4["output_range"],
                           doc="output tokens")
    gpu = param.Selector(default=STEP4["gpu"], objects=list(GPUS), doc="GPU preset")

    url_names = {"prompt": "prompt", "output": "output", "gpu": "gpu"}

    def __init__(self, app, **params):
        super().__init__(app, **params)
        self._doc = served_doc()
        self._waiting: set = set()          # buckets this session will re-render for
        self._facts = rt.model_facts(VARIANT)

        # widgets
        self._prompt_w = pmui.IntSlider.from_param(self.param.prompt, step=16,
                                                   sizing_mode="stretch_width")
        self._output_w = pmui.IntSlider.from_param(self.param.output, step=1,
                                                   sizing_mode="stretch_width")
        self._gpu_w = pmui.Select(options={GPUS[k].name: k for k in GPUS}, value=self.gpu,
                                  sizing_mode="stretch_width")
        self._gpu_w.param.watch(self._gpu_picked, "value")
        self.param.watch(lambda e: setattr(self._gpu_w, "value", e.new), "gpu")

        # the roofline, built once; later only sources, texts and ranges change
        self._roof = ColumnDataSource(dict(x=[], y=[]))
        self._points = ColumnDataSource(self._empty_points(), name="step4-points")
        fig = figure(x_axis_type="log", y_axis_type="log", height=360,
                     sizing_mode="stretch_width", toolbar_location=None,
                     x_range=Range1d(*X_RANGE), y_range=Range1d(0.01, 1000))
        fig.min_border_left = 50
        self._membox = BoxAnnotation(right=150, fill_color=PALETTE["muted"], fill_alpha=0.12,
                                     line_alpha=0)
        fig.add_layout(self._membox)
        self._ridge = Span(location=150, dimension="height", line_color=PALETTE["muted"],
                           line_dash="dashed", line_width=1.5)
        fig.add_layout(self._ridge)
        fig.line("x", "y", source=self._roof, line_width=3, color=PALETTE["text"])
        pts = fig.scatter("x", "y", source=self._points, size=14, color="color",
                          line_color="white", line_width=1.5)
        fig.add_layout(LabelSet(x="x", y="y", text="label", source=self._points,
                                x_offset="xoff", y_offset=-22, text_align="align",
                                text_font_size="13px", text_font_style="bold",
                                text_color=PALETTE["text"]))
        self._mem_label = Label(x=X_RANGE[0] * 1.3, y=500, text="", text_font_size="11px",
                                text_color=PALETTE["text"], text_font_style="italic")
        self._cmp_label = Label(x=200, y=500, text="", text_font_size="11px",
                                text_color=PALETTE["text"], text_font_style="italic")
        self._ridge_label = Label(x=150, y=0.02, text="", text_font_size="11px", x_offset=-4,
                                  text_align="right", text_color=PALETTE["text"])
        for lab in (self._mem_label, self._cmp_label, self._ridge_label):
            fig.add_layout(lab)
        self._hover = HoverTool(renderers=[pts], tooltips=[])
        fig.add_tools(self._hover)
        fig.xgrid.minor_grid_line_color = None
        fig.ygrid.minor_grid_line_color = None
        self._fig = fig

        # the question and the text panes
        self._question = Question(
            prompt=N_("Which phase is memory-bound on a GPU: prefill of a 512-token prompt, "
                      "or one decode step?"),
            options=[N_("Prefill"), N_("One decode step"), N_("Both equally")],
            correct=1,
            explain=N_("One decode step. It reads all the weights to produce a single token, "
                       "about 1 FLOP per byte, far below the ridge. Prefill uses each byte it "
                       "reads for all 512 prompt tokens, about 500 FLOPs, so it is "
                       "compute-bound."))
        self._subtitle = html_pane(css_classes=["step-subtitle"])
        self._legend = html_pane()
        self._model_note = html_pane(css_classes=["live-facts"])
        self._computed = html_pane()
        self._measured_head = html_pane()
        self._measured = html_pane()
        self._notice = html_pane(css_classes=["notice"], visible=False)
        self._facts_pane = html_pane(css_classes=["live-facts"])
        self._narration = html_pane(css_classes=["narration"])

        self._layout = pn.Column(
            self._subtitle,
            self._question,
            pn.FlexBox(self._prompt_w, self._output_w, self._gpu_w,
                       sizing_mode="stretch_width"),
            pn.pane.Bokeh(fig, sizing_mode="stretch_width"),
            self._legend,
            self._model_note,
            self._computed,
            self._measured_head,
            self._notice,
            self._measured,
            self._facts_pane,
            self._narration,
            sizing_mode="stretch_width",
        )
        # the default bucket is measured right away, in the background
        self._want(measure_plan(STEP4["prompt"], STEP4["output"], self._facts["max_len"]))
        self.refresh()

    # -- controls ---------------------------------------------------------------------------------
    def _gpu_picked(self, event):
        if event.new in GPUS and event.new != self.gpu:
            self.gpu = event.new

    # -- measurements -----------------------------------------------------------------------------
    def _want(self, key: tuple[int, int]):
        """Ask for a bucket (the newest wish goes to the head of the queue) and re-render this
        session when it is done; never waits, so a slider move costs a lookup."""
        fut = submit_measure(key, front=True)
        if fut.done() or key in self._waiting:
            return
        self._waiting.add(key)
        fut.add_done_callback(lambda f: self._waiting.discard(key))
        if self._doc is not None:
            refresh_when_done(fut, self._doc, self.refresh)
        # outside a server (tests, scripts) wait_for_measurement() re-renders

    def wait_for_measurement(self, timeout: float | None = None) -> bool:
        """Block until this session's current bucket is measured (tests, scripts)."""
        fut = JOBS.get(("step4", self._plan()))
        if fut is not None:
            futures_wait([fut], timeout)
        if self._doc is None and fut is not None and fut.done():
            self.refresh()
        return measured(self._plan()) is not None

    def _plan(self) -> tuple[int, int]:
        return measure_plan(self.prompt, self.output, self._facts["max_len"])

    # -- numbers from the engine ------------------------------------------------------------------
    def _numbers(self) -> dict:
        tr, P, O = self.tr, self.prompt, self.output
        g = GPUS[self.gpu]
        steps = costs.decode_steps(O)
        last_ctx = costs.last_decode_context(P, O)
        pre = costs.prefill_cost(MODEL, P, g)
        dec = costs.decode_step_cost(MODEL, last_ctx, g)
        batched = costs.decode_step_cost(MODEL, last_ctx, g, batch=BATCH_EXAMPLE)
        read_max = costs.decode_read_bytes_max(MODEL, P, O)
        total_dec = costs.decode_total_time_s(MODEL, P, O, g) if steps else 0.0
        mp, mo = self._plan()
        res = measured((mp, mo))
        max_len = self._facts["max_len"]
        clamped = P > LIVE_PROMPT_MAX or O > max_len + 1 - min(P, LIVE_PROMPT_MAX)
        gpu_name = tr._("Illustrative GPU") if g.illustrative else g.name
        ratio = (res.prefill_tokens_per_s / res.decode_tokens_per_s
                 if res is not None and res.decode_tokens_per_s > 0 else None)
        return dict(
            g=g, gpu_name=gpu_name, steps=steps, last_ctx=last_ctx, pre=pre, dec=dec,
            batched=batched, read_max=read_max, total_dec=total_dec, mp=mp, mo=mo, res=res,
            pending=res is None and not failed((mp, mo)), clamped=clamped, ratio=ratio,
            batch_gain=batched.tokens_per_s / dec.tokens_per_s,
        )

    def view_model(self, n: dict | None = None) -> dict:
        tr = self.tr
        n = n or self._numbers()
        pre, dec, g, res = n["pre"], n["dec"], n["g"], n["res"]
        measuring = tr._("measuring…") if n["pending"] else "–"
        f = self._facts
        vm = dict(
            prompt=self.prompt, output=self.output, gpu=self.gpu,
            gpu_name=n["gpu_name"],
            gpu_peak=tr._("{f} TFLOP/s", f=tr.int(g.flops / TFLOPS)),
            gpu_bandwidth=tr._("{b} TB/s", b=_short(tr, g.bandwidth / TB_PER_S)),
            ridge=tr.int(g.ridge), ridge_raw=g.ridge,
            prefill_tokens=tr.int(self.prompt),
            decode_steps=tr.int(n["steps"]), decode_steps_raw=n["steps"],
            read_per_step=tr.bytes(n["read_max"], "GB", 1), read_per_step_raw=n["read_max"],
            prefill_intensity=tr.int(pre.intensity), prefill_intensity_raw=pre.intensity,
            decode_intensity=tr.sig(dec.intensity, 2) if n["steps"] else "–",
            decode_intensity_raw=dec.intensity if n["steps"] else None,
            prefill_time=tr.seconds(pre.time_s), prefill_time_raw=pre.time_s,
            decode_step_time=tr.seconds(dec.time_s) if n["steps"] else "–",
            decode_step_time_raw=dec.time_s if n["steps"] else None,
            decode_total_time=tr.seconds(n["total_dec"]),
            decode_total_time_raw=n["total_dec"],
            prefill_bound=tr._(BOUNDS[pre.bound]), prefill_bound_raw=pre.bound,
            decode_bound=tr._(BOUNDS[dec.bound]) if n["steps"] else "–",
            decode_bound_raw=dec.bound if n["steps"] else None,
            batch=BATCH_EXAMPLE, batch_step_time=tr.seconds(n["batched"].time_s),
            batch_gain=tr.times(n["batch_gain"], 1), batch_gain_raw=n["batch_gain"],
            weights=tr.bytes(costs.weight_bytes(MODEL), "GB", 1),
            kv_per_token=tr.bytes(costs.kv_bytes_per_token(MODEL), "KiB", 0),
            times_kind="illustrative" if g.illustrative else "computed",
            # measured on the live model
            measured_pending=n["pending"],
            measured_prompt=n["mp"], measured_output=n["mo"], measured_clamped=n["clamped"],
            measured_prefill=(measuring if res is None else
                              tr._("{n} tokens/s", n=_rate(tr, res.prefill_tokens_per_s))),
            measured_decode=(measuring if res is None else
                             tr._("{n} tokens/s", n=_rate(tr, res.decode_tokens_per_s))),
            measured_ratio=(measuring if res is None else
                            tr.times(n["ratio"], 1) if n["ratio"] else "–"),
            measured_prefill_raw=None if res is None else res.prefill_tokens_per_s,
            measured_decode_raw=None if res is None else res.decode_tokens_per_s,
            measured_ratio_raw=n["ratio"],
            measured_device=None if res is None else res.device,
            live_layers=f["n_layers"], live_heads=f["n_heads"], live_head_dim=f["head_dim"],
            live_device="CPU" if f["device"] == "cpu" else f["device"], live_context=f["max_len"],
        )
        vm.update(self._texts(vm, n))
        return vm

    def _texts(self, vm: dict, n: dict) -> dict:
        """Every sentence of the step, for the current numbers and language."""
        tr = self.tr
        pre = n["pre"]
        if pre.bound == "compute":
            s_pre = tr._("Prefill runs all {p} prompt tokens through the model in one pass. "
                         "Each byte it reads does about {ai} FLOPs of work, above the ridge of "
                         "{ridge} FLOP/byte, so it is compute-bound: about {t} on this GPU, "
                         "and that is the wait before the first token appears.",
                         p=vm["prefill_tokens"], ai=vm["prefill_intensity"],
                         ridge=vm["ridge"], t=vm["prefill_time"])
        else:
            s_pre = tr._("Prefill runs all {p} prompt tokens through the model in one pass. "
                         "Each byte it reads does only about {ai} FLOPs of work, below the "
                         "ridge of {ridge} FLOP/byte, so with a prompt this short even the "
                         "prefill is memory-bound: about {t} on this GPU, the wait before the "
                         "first token appears.",
                         p=vm["prefill_tokens"], ai=vm["prefill_intensity"],
                         ridge=vm["ridge"], t=vm["prefill_time"])
        if n["steps"]:
            s_dec = tr.n_(
                "The single decode step then reads up to {gb} to produce one token: about "
                "{ai} FLOP per byte, far below the ridge, so it is memory-bound and takes "
                "about {t}.",
                "Each of the {steps} decode steps then reads up to {gb} to produce one token: "
                "about {ai} FLOP per byte, far below the ridge, so each is memory-bound and "
                "takes up to about {t} ({total} for all of them).",
                n["steps"], steps=vm["decode_steps"], gb=vm["read_per_step"],
                ai=vm["decode_intensity"], t=vm["decode_step_time"],
                total=vm["decode_total_time"])
        else:
            s_dec = tr._("With one output token there is no decode step: the prefill already "
                         "produced it.")
        if vm["times_kind"] == "illustrative":
            s_dec += " " + tr._("(Times on the illustrative GPU are illustrative.)")
        frame = s_pre + " " + s_dec
        why = tr._("Prefill multiplies every weight matrix by all P prompt tokens at once, so "
                   "each byte of weights fetched from memory is used for roughly P "
                   "floating-point operations: the arithmetic units set the pace. Decode feeds "
                   "one token per step, so each byte is used for about one operation, far "
                   "below the ridge of {ridge} FLOP/byte where this GPU's arithmetic and "
                   "memory keep pace with each other. The arithmetic units wait for memory, "
                   "and the time per output token follows memory bandwidth, not compute.",
                   ridge=vm["ridge"])
        batching = tr._("That is why servers batch the decode steps of many users: one read "
                        "of the weights serves every sequence in the batch. On this GPU a "
                        "decode step for {b} sequences at the same context takes about {t} and "
                        "yields {b} tokens, {x} the tokens per second of a single sequence.",
                        b=tr.int(BATCH_EXAMPLE), t=vm["batch_step_time"],
                        x=vm["batch_gain"])
        ttft = tr._("Time to first token is the prefill wait, so it grows with the prompt. "
                    "Every later token costs one decode step, and their pace depends on "
                    "memory bandwidth and batch size.")
        model_note = tr._("Computed for Llama 2 7B (fp16 weights {w}, {kv} of keys and values "
                          "per token) on {gpu}: {f}, {bw}, ridge ≈ {ridge} FLOP/byte. The "
                          "decode step shown is the last and largest one.",
                          w=vm["weights"], kv=vm["kv_per_token"], gpu=vm["gpu_name"],
                          f=vm["gpu_peak"], bw=vm["gpu_bandwidth"], ridge=vm["ridge"])
        measured_head = tr._("Measured on this server: the live model with {p} prompt tokens "
                             "and {o} output tokens. Measured numbers vary from run to run.",
                             p=tr.int(vm["measured_prompt"]), o=tr.int(vm["measured_output"]))
        notice = (tr._("The live model holds at most {ctx} tokens, so it is measured with {p} "
                       "prompt tokens and {o} output tokens instead of {P} and {O}.",
                       ctx=tr.int(vm["live_context"]), p=tr.int(vm["measured_prompt"]),
                       o=tr.int(vm["measured_output"]), P=tr.int(self.prompt),
                       O=tr.int(self.output))
                  if vm["measured_clamped"] else "")
        facts = tr._("Live model: {layers} layers, {heads} attention heads of {hd} "
                     "dimensions, running on {device}.",
                     layers=tr.int(vm["live_layers"]), heads=tr.int(vm["live_heads"]),
                     hd=tr.int(vm["live_head_dim"]), device=vm["live_device"])
        return dict(subtitle=tr._("Compute-bound versus memory-bound"), narration=frame,
                    narration_why=why, narration_batching=batching, narration_ttft=ttft,
                    model_note=model_note, measured_head=measured_head, notice=notice,
                    live_facts=facts)

    # -- rendering --------------------------------------------------------------------------------
    @staticmethod
    def _empty_points() -> dict:
        return dict(x=[], y=[], color=[], label=[], xoff=[], align=[], phase=[], ai=[],
                    perf=[], time=[], bound=[], read=[])

    def refresh(self):
        self._doc = self._doc or served_doc()
        self._want(self._plan())
        tr = self.tr
        n = self._numbers()
        vm = self.view_model(n)
        g = n["g"]

        # widgets
        self._prompt_w.label = tr._("Prompt length (tokens)")
        self._output_w.label = tr._("Output tokens")
        opts = {}
        for k, p in GPUS.items():
            name = tr._("Illustrative GPU") if p.illustrative else p.name
            opts[tr._("{name} ({f} TFLOP/s, {b} TB/s)", name=name,
                      f=tr.int(p.flops / TFLOPS), b=_short(tr, p.bandwidth / TB_PER_S))] = k
        self._gpu_w.param.update(options=opts, value=self.gpu, label=tr._("GPU"))

        # text
        self._subtitle.object = f"<p>{esc(vm['subtitle'])}</p>"
        self._question.render(tr)
        self._legend.object = legend_html([
            ("text", tr._("roofline: the most FLOP/s this GPU can reach")),
            ("new", tr._("prefill")), ("cached", tr._("decode step")),
            ("muted", tr._("memory-bound region")),
        ])
        self._model_note.object = f"<p>{esc(vm['model_note'])}</p>"
        tk = vm["times_kind"]
        cards = [
            metric(tr._("Prompt tokens in prefill"), vm["prefill_tokens"], "computed", tr,
                   "prefill_tokens"),
            metric(tr._("Decode steps"), vm["decode_steps"], "computed", tr, "decode_steps"),
            metric(tr._("Read per decode step (up to)"),
                   vm["read_per_step"] if n["steps"] else "–", "computed", tr,
                   "read_per_step"),
            metric(tr._("Prefill FLOP/byte"), vm["prefill_intensity"], "computed", tr,
                   "prefill_intensity"),
            metric(tr._("Decode FLOP/byte"), vm["decode_intensity"], "computed", tr,
                   "decode_intensity"),
            metric(tr._("Prefill time (to first token)"), vm["prefill_time"], tk, tr,
                   "prefill_time"),
            metric(tr._("Time per decode step (last)"), vm["decode_step_time"], tk, tr,
                   "decode_step_time"),
            metric(tr._("Prefill phase"), vm["prefill_bound"], tk, tr, "prefill_bound"),
            metric(tr._("Decode phase"), vm["decode_bound"], tk, tr, "decode_bound"),
        ]
        self._computed.object = metrics_html(cards)
        self._measured_head.object = f"<p><strong>{esc(vm['measured_head'])}</strong></p>"
        self._notice.param.update(object=f"<p>{esc(vm['notice'])}</p>" if vm["notice"] else "",
                                  visible=bool(vm["notice"]))
        self._measured.object = metrics_html([
            metric(tr._("Prefill speed"), vm["measured_prefill"], "measured", tr,
                   "measured_prefill"),
            metric(tr._("Decode speed"), vm["measured_decode"], "measured", tr,
                   "measured_decode"),
            metric(tr._("Prefill ÷ decode tokens per second"), vm["measured_ratio"],
                   "measured", tr, "measured_ratio"),
        ])
        self._facts_pane.object = f"<p>{esc(vm['live_facts'])}</p>"
        self._narration.object = "".join(
            f"<p>{esc(vm[k])}</p>" for k in
            ("narration", "narration_why", "narration_batching", "narration_ttft"))

        # the plot (raw Bokeh models: only on the document's loop)
        peak, bw = g.flops / TFLOPS, g.bandwidth / TFLOPS      # TFLOP/s, TFLOP/s per FLOP/byte
        x0, x1 = X_RANGE
        roof = dict(x=[x0, g.ridge, x1], y=[bw * x0, peak, peak])
        y_lo, y_hi = bw * x0 / 1.5, peak * 4
        pts = self._empty_points()
        rows = [("prefill", n["pre"], "new", vm["prefill_time"])]
        if n["steps"]:
            rows.append(("decode", n["dec"], "cached", vm["decode_step_time"]))
        for phase, pt, color, t in rows:
            pts["x"].append(pt.intensity)
            pts["y"].append(pt.attainable_flops / TFLOPS)
            pts["color"].append(PALETTE[color])
            pts["label"].append(tr._(PHASES[phase]))
            right_edge = pt.intensity > 1000          # keep the label inside the plot
            pts["xoff"].append(-8 if right_edge else 8)
            pts["align"].append("right" if right_edge else "left")
            pts["phase"].append(tr._(PHASES[phase]))
            pts["ai"].append(tr.sig(pt.intensity, 3))
            pts["perf"].append(tr.sig(pt.attainable_flops / TFLOPS, 3))
            pts["time"].append(t)
            pts["bound"].append(tr._(BOUNDS[pt.bound]))
            pts["read"].append(tr.bytes(pt.bytes, "GB", 1))
        title = tr._("Roofline of {gpu}", gpu=vm["gpu_name"])
        x_label = tr._("FLOP per byte read from memory (log scale)")
        y_label = tr._("Attainable TFLOP/s (log scale)")
        tooltips = [(tr._("Phase"), "@phase"), (tr._("FLOP per byte"), "@ai"),
                    (tr._("Attainable TFLOP/s"), "@perf"), (tr._("Bytes read"), "@read"),
                    (tr._("Time"), "@time"), (tr._("Limited by"), "@bound")]
        mem_text, cmp_text = tr._(BOUNDS["memory"]), tr._(BOUNDS["compute"])
        ridge_text = tr._("ridge ≈ {r} FLOP/byte", r=vm["ridge"])
        y_ticks = _y_ticks(y_lo, y_hi)

        def update():
            fig = self._fig
            self._roof.data = roof
            self._points.data = pts
            fig.y_range.start, fig.y_range.end = y_lo, y_hi
            fig.title.text = title
            fig.xaxis.axis_label = x_label
            fig.yaxis.axis_label = y_label
            locale_ticks(fig.xaxis[0], X_TICKS, lambda v: _tick(tr, v))
            locale_ticks(fig.yaxis[0], y_ticks, lambda v: _tick(tr, v))
            self._membox.right = g.ridge
            self._ridge.location = g.ridge
            self._mem_label.update(x=x0 * 1.3, y=peak * 1.5, text=mem_text)
            self._cmp_label.update(x=g.ridge * 1.3, y=peak * 1.5, text=cmp_text)
            self._ridge_label.update(x=g.ridge, y=y_lo * 1.6, text=ridge_text)
            self._hover.tooltips = tooltips

        on_doc(update)

    def __panel__(self):
        return self._layout
