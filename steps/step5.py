"""Step 5 — The memory bill: the KV cache grows with context and batch.

State: context length, batch size, a model preset and a GPU preset (all in the URL).
Numbers: every byte comes from `explainer.costs` (memory_bill, kv_bytes_per_token,
kv_cache_bytes, max_sequences); the live model's cache bytes are *measured* on the real
tensors of `runtime.generate` and set beside the same formula for its own config.
Plots: a horizontal stacked bar (weights + keys + values) against the capacities of the GPU
presets, and the cache bytes over context with the weights level, to show where the cache
overtakes the weights.
"""
from __future__ import annotations

import math

import numpy as np
import panel as pn
import panel_material_ui as pmui
import param
from bokeh.models import ColumnDataSource, HoverTool, LabelSet, Range1d, Span
from bokeh.plotting import figure

from explainer import costs, presets
from explainer import runtime as rt
from explainer.i18n import N_, UNITS, auto_unit
from explainer.prompts import DEFAULT_PROMPTS
from steps.common import (PALETTE, Question, StepView, esc, html_pane, legend_html,
                          locale_ticks, metric, metrics_html, on_doc)

D = presets.STEP5
LIVE_VARIANT = "mha"
LIVE_NEW_TOKENS = 8          # prompt + 7 decode steps: the cache holds P + 7 tokens
LIVE_PRECISION = "fp32"      # what the live model stores
CURVE_STEP = 256             # context resolution of the cache-vs-context curve

# GPU presets that have a memory size, smallest first (the "how many fit" choices).
GPU_KEYS = tuple(g.key for g in sorted((g for g in presets.GPUS.values() if g.mem_bytes),
                                       key=lambda g: g.mem_bytes))

ATTENTION_NAMES = {
    "MHA": N_("multi-head attention"),
    "GQA": N_("grouped-query attention"),
    "MQA": N_("multi-query attention"),
    "MLA": N_("multi-head latent attention"),
}

QUESTION = dict(
    prompt=N_("The 7B model's weights take {weights} in fp16. At what context length does "
              "one sequence's KV cache outgrow them?"),
    options=[N_("≈ {small} tokens"), N_("≈ {mid} tokens"), N_("≈ {large} tokens")],
    correct=1,
    explain=N_("Each token adds {per_token_b} to the cache of the 7B model, so the cache "
               "matches the weights at {weights_b} ÷ {per_token_b} ≈ {crossover} tokens. "
               "At {default_ctx} tokens the cache is only {kv_default}, about a sixth of "
               "the weights; past about {crossover} tokens one long conversation needs more "
               "memory than the whole model."),
)


def _round_sig(x: float, digits: int = 3) -> float:
    if x <= 0:
        return 0.0
    return round(x, digits - 1 - math.floor(math.log10(x)))


def nice_ticks(hi: float, n: int = 5) -> tuple[list[float], int]:
    """Ticks 0..hi at a 1/2/5 step, and the decimals their labels need."""
    raw = hi / max(1, n)
    mag = 10 ** math.floor(math.log10(raw)) if raw > 0 else 1
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
    ticks = [round(i * step, 10) for i in range(int(hi / step) + 1)]
    digits = max(0, -math.floor(math.log10(step))) if step < 1 else (1 if step % 1 else 0)
    return ticks, digits


class Step5(StepView):
    number = 5

    context = param.Integer(default=D["context"], bounds=D["context_range"],
                            doc="tokens per sequence")
    batch = param.Integer(default=D["batch"], bounds=D["batch_range"],
                          doc="sequences served at once")
    model = param.Selector(default=D["model"], objects=list(presets.MODELS))
    gpu = param.Selector(default=D["gpu"], objects=list(GPU_KEYS))

    url_names = {"context": "context", "batch": "batch", "model": "model", "gpu": "gpu"}

    def __init__(self, app, **params):
        super().__init__(app, **params)
        # -- widgets ---------------------------------------------------------------------
        self._w_context = pmui.IntSlider.from_param(self.param.context, step=256,
                                                    sizing_mode="stretch_width")
        self._w_batch = pmui.IntSlider.from_param(self.param.batch, step=1,
                                                  sizing_mode="stretch_width")
        self._w_model = pmui.Select.from_param(self.param.model, sizing_mode="stretch_width")
        self._w_gpu = pmui.Select.from_param(self.param.gpu, sizing_mode="stretch_width")
        controls = pn.FlexBox(
            *(pn.Column(w, min_width=240, sizing_mode="stretch_width", styles={"flex": "1 1 240px"})
              for w in (self._w_context, self._w_batch, self._w_model, self._w_gpu)),
            sizing_mode="stretch_width")

        # -- the bill: one stacked horizontal bar against the GPU capacities ------------
        self._bar_src = ColumnDataSource(dict(y=[], left=[], right=[], color=[], label=[],
                                              size=[]))
        # "weights 13.5 GB" below the bar, "KV cache 2.1 GB (2 GiB)" above it
        self._bar_text_src = ColumnDataSource(dict(x=[], y=[], text=[], align=[]))
        self._gpu_src = ColumnDataSource(dict(x=[], y0=[], y1=[], ly=[], text=[], color=[],
                                              width=[], dash=[], names=[]))
        self._bar = figure(height=220, sizing_mode="stretch_width", toolbar_location=None,
                           y_range=Range1d(-0.7, 1.75), x_range=Range1d(0, 150))
        bars = self._bar.hbar(y="y", left="left", right="right", height=0.6, color="color",
                              line_color="white", source=self._bar_src)
        self._bar.segment(x0="x", x1="x", y0="y0", y1="y1", line_color="color",
                          line_width="width", line_dash="dash", source=self._gpu_src)
        self._bar.add_layout(LabelSet(x="x", y="ly", text="text", source=self._gpu_src,
                                      text_font_size="11px", text_align="center",
                                      text_color=PALETTE["text"]))
        self._bar.add_layout(LabelSet(x="x", y="y", text="text", source=self._bar_text_src,
                                      text_font_size="11px", text_align="align",
                                      text_baseline="middle", text_color=PALETTE["text"],
                                      background_fill_color="white",
                                      background_fill_alpha=0.85))
        self._bar_hover = HoverTool(renderers=[bars])
        self._bar.add_tools(self._bar_hover)
        self._bar.yaxis.visible = False
        self._bar.ygrid.visible = False

        # -- cache bytes over context, with the weights level ---------------------------
        # keys fill zero..k_top, values k_top..v_top; an MLA latent fills zero..lat_top
        self._curve_src = ColumnDataSource(dict(ctx=[], zero=[], k_top=[], v_top=[], lat_top=[],
                                                kv=[], w=[], kv_text=[], ctx_text=[]),
                                        name="step5-curve")
        self._now_src = ColumnDataSource(dict(ctx=[], kv=[], text=[]), name="step5-now")
        self._cross_src = ColumnDataSource(dict(ctx=[], kv=[], text=[]))
        self._curve = figure(height=260, sizing_mode="stretch_width", toolbar_location=None,
                             x_range=Range1d(0, D["context_range"][1] * 1.02),
                             y_range=Range1d(0, 1))
        self._curve.varea(x="ctx", y1="zero", y2="k_top", fill_color=PALETTE["key"],
                          fill_alpha=0.75, source=self._curve_src)
        self._curve.varea(x="ctx", y1="k_top", y2="v_top", fill_color=PALETTE["value"],
                          fill_alpha=0.75, source=self._curve_src)
        self._curve.varea(x="ctx", y1="zero", y2="lat_top", fill_color=PALETTE["cached"],
                          fill_alpha=0.75, source=self._curve_src)
        kv_line = self._curve.line(x="ctx", y="kv", line_color=PALETTE["text"], line_width=1.5,
                                   source=self._curve_src)
        self._curve.line(x="ctx", y="w", line_color=PALETTE["weights"], line_width=2.5,
                         line_dash="dashed", source=self._curve_src)
        self._now_span = Span(dimension="height", line_color=PALETTE["text"], line_width=1,
                              line_dash="dotted", location=D["context"])
        self._curve.add_layout(self._now_span)
        self._curve.scatter(x="ctx", y="kv", size=9, color=PALETTE["text"], source=self._now_src)
        self._curve.scatter(x="ctx", y="kv", size=11, marker="diamond", color=PALETTE["weights"],
                            line_color=PALETTE["text"], source=self._cross_src)
        self._curve.add_layout(LabelSet(x="ctx", y="kv", text="text", source=self._cross_src,
                                        text_font_size="11px", x_offset=-6, y_offset=8,
                                        text_align="right", text_color=PALETTE["text"]))
        self._curve_hover = HoverTool(renderers=[kv_line], mode="vline")
        self._curve.add_tools(self._curve_hover)

        # -- text panes and the question -------------------------------------------------
        self._subtitle = html_pane(css_classes=["step-subtitle"])
        self._model_info = html_pane(css_classes=["live-facts"])
        self._formula = html_pane(css_classes=["mono"])
        self._metrics = html_pane()
        self._notice = html_pane()
        self._bar_caption = html_pane()
        self._bar_legend = html_pane()
        self._gpu_legend = html_pane(css_classes=["live-facts"])
        self._curve_caption = html_pane()
        self._curve_legend = html_pane()
        self._live_head = html_pane()
        self._live_formula = html_pane(css_classes=["mono"])
        self._live_metrics = html_pane()
        self._narration = html_pane(css_classes=["narration"])
        self._question = Question(**QUESTION)

        self._layout = pn.Column(
            self._subtitle, self._question, controls, self._model_info, self._formula,
            self._metrics, self._notice,
            self._bar_caption, pn.pane.Bokeh(self._bar, sizing_mode="stretch_width"),
            self._bar_legend, self._gpu_legend,
            self._curve_caption, pn.pane.Bokeh(self._curve, sizing_mode="stretch_width"),
            self._curve_legend,
            self._live_head, self._live_formula, self._live_metrics,
            self._narration,
            sizing_mode="stretch_width", css_classes=["step", "step-5"])
        self.refresh()

    # ==================================================================================
    # numbers from the engine
    # ==================================================================================

    def _bytes_bin(self, n: float) -> str:
        """Binary units (KiB/MiB/GiB): whole numbers without decimals ("2 GiB", "512 KiB")."""
        unit = auto_unit(n, binary=True)
        value = n / UNITS[unit]
        whole = abs(value - round(value)) < 1e-9
        return self.tr.bytes(n, unit, 0 if whole else 1)

    def _bytes_dec(self, n: float) -> str:
        """Decimal units (KB/MB/GB/TB), one decimal: "2.1 GB", "13.5 GB"."""
        return self.tr.bytes(n, "auto", 1)

    def _exact(self, n: int) -> str:
        return self.tr.bytes(int(n), "B")

    def _formula_parts(self, m: presets.ModelPreset, precision: str, tokens: int, batch: int,
                       total_text: str) -> tuple[str, str]:
        """`2 × 32 layers × 32 KV heads × 128 × 2 B = 512 KiB per token` and
        `× 4,096 tokens × 1 sequence = 2.1 GB`, with the model's own numbers."""
        tr = self.tr
        p = presets.PRECISIONS[precision]
        per_token = costs.kv_bytes_per_token(m, p)
        value_b = tr.bytes(p.bytes_per_value, "B")
        if m.is_mla:
            head = tr._("{layers} × {dims} × {bytes} = {per_token} per token",
                        layers=tr.n_("{count} layer", "{count} layers", m.n_layers,
                                     count=tr.int(m.n_layers)),
                        dims=tr._("{count} latent values", count=tr.int(m.mla_dims)),
                        bytes=value_b, per_token=self._bytes_bin(per_token))
        else:
            head = tr._("2 × {layers} × {kv_heads} × {head_dim} × {bytes} = "
                        "{per_token} per token",
                        layers=tr.n_("{count} layer", "{count} layers", m.n_layers,
                                     count=tr.int(m.n_layers)),
                        kv_heads=tr.n_("{count} KV head", "{count} KV heads", m.n_kv_heads,
                                       count=tr.int(m.n_kv_heads)),
                        head_dim=tr.int(m.head_dim), bytes=value_b,
                        per_token=self._bytes_bin(per_token))
        tail = tr._("× {tokens} × {sequences} = {total}",
                    tokens=tr.n_("{count} token", "{count} tokens", tokens, count=tr.int(tokens)),
                    sequences=tr.n_("{count} sequence", "{count} sequences", batch,
                                    count=tr.int(batch)),
                    total=total_text)
        return head, tail

    def _capacity_groups(self):
        """[(mem_bytes, [GPU names])] smallest first."""
        groups: dict[float, list[str]] = {}
        for k in GPU_KEYS:
            g = presets.GPUS[k]
            groups.setdefault(g.mem_bytes, []).append(g.name)
        return sorted(groups.items())

    def _live(self) -> dict:
        """The live model's cache, measured on its tensors, beside the formula."""
        facts = rt.model_facts(LIVE_VARIANT)
        ids = rt.encode(DEFAULT_PROMPTS.get(self.app.lang, DEFAULT_PROMPTS["en"]))
        trace = rt.generate(LIVE_VARIANT, ids, LIVE_NEW_TOKENS, LIVE_PRECISION)
        live = rt.live_preset(LIVE_VARIANT)
        tokens = int(trace.cache_shape[-1][2])
        measured = int(trace.cache_nbytes[-1])
        formula = costs.kv_cache_bytes(live, tokens, precision=LIVE_PRECISION)
        every_step = all(
            nb == costs.kv_cache_bytes(live, int(sh[2]), precision=LIVE_PRECISION)
            for nb, sh in zip(trace.cache_nbytes, trace.cache_shape))
        weights = sum(p.numel() * p.element_size() for p in rt.model(LIVE_VARIANT).parameters())
        per_token = costs.kv_bytes_per_token(live, LIVE_PRECISION)
        return dict(facts=facts, preset=live, prompt_tokens=len(ids), tokens=tokens,
                    steps=LIVE_NEW_TOKENS - 1, measured=measured, formula=formula,
                    every_step=every_step, weights=weights, per_token=per_token,
                    crossover=weights / per_token)

    def _compute(self) -> dict:
        tr = self.tr
        m = costs.get_model(self.model)
        g = presets.GPUS[self.gpu]
        window = m.window
        bill = costs.memory_bill(m, self.context, self.batch, g, D["precision"], window=window)
        kept = costs.cached_tokens(self.context, window)
        per_seq = costs.kv_cache_bytes(m, self.context, 1, D["precision"], window=window)

        fits_text = tr._("no single GPU of the presets")
        if bill.fits_gpu is not None:
            mem = presets.GPUS[bill.fits_gpu].mem_bytes
            names = [n for c, ns in self._capacity_groups() if c == mem for n in ns]
            fits_text = tr._("{capacity} GPU ({names})", capacity=tr.bytes(mem, "GB", 0),
                             names=", ".join(names))

        # where one batch's cache reaches the weights (None: never within the slider range)
        crossover = bill.weight_bytes / (self.batch * bill.kv_per_token)
        reach = (window or D["context_range"][1])
        cross_ok = crossover <= min(reach, D["context_range"][1])

        head, tail = self._formula_parts(m, D["precision"], kept, self.batch,
                                         self._bytes_dec(bill.kv_bytes))
        kind = m.attention_kind
        return dict(m=m, g=g, bill=bill, kept=kept, per_seq=per_seq, window=window,
                    fits_text=fits_text, crossover=crossover if cross_ok else None,
                    crossover_any=crossover, head=head, tail=tail, kind=kind)

    def view_model(self) -> dict:
        tr = self.tr
        c = self._compute()
        m, g, bill = c["m"], c["g"], c["bill"]
        live = self._live()
        lhead, ltail = self._formula_parts(live["preset"], LIVE_PRECISION, live["tokens"], 1,
                                           self._exact(live["formula"]))
        kv_dec, kv_bin = self._bytes_dec(bill.kv_bytes), self._bytes_bin(bill.kv_bytes)
        ref = costs.memory_bill(presets.REFERENCE_MODEL, D["context"], 1)
        ref_cross = ref.weight_bytes / ref.kv_per_token
        return dict(
            # controls
            context=self.context, batch=self.batch, model=self.model, gpu=self.gpu,
            # the model
            model_name=m.name, attention_kind=c["kind"], q_heads=m.n_heads,
            kv_heads=None if m.is_mla else m.n_kv_heads, head_dim=m.head_dim,
            n_layers=m.n_layers, window=c["window"], tokens_kept=c["kept"],
            # the bill (computed)
            per_token_bytes=bill.kv_per_token,
            per_token=self._bytes_bin(bill.kv_per_token),
            per_token_exact=self._exact(bill.kv_per_token),
            kv_bytes=bill.kv_bytes, kv_cache=kv_dec, kv_cache_binary=kv_bin,
            kv_cache_both=tr._("{dec} ({bin})", dec=kv_dec, bin=kv_bin),
            per_sequence_bytes=c["per_seq"], per_sequence=self._bytes_dec(c["per_seq"]),
            weights_bytes=bill.weight_bytes, weights=self._bytes_dec(bill.weight_bytes),
            total_bytes=bill.total, total=self._bytes_dec(bill.total),
            fits_gpu=bill.fits_gpu, fits=c["fits_text"],
            formula_head=c["head"], formula_tail=c["tail"],
            formula=f'{c["head"]} {c["tail"]}',
            crossover_tokens=c["crossover"],
            crossover=tr.int(_round_sig(c["crossover_any"])),
            # the chosen GPU
            gpu_name=g.name, gpu_memory=tr.bytes(g.mem_bytes, "GB", 0),
            free_bytes=bill.free_bytes, free=self._bytes_dec(max(0.0, bill.free_bytes)),
            fits_selected=bill.fits_selected, max_sequences=bill.max_sequences,
            max_sequences_text=tr.int(bill.max_sequences),
            weights_fit=bill.free_bytes > 0,
            # the live model: measured vs formula
            live_layers=live["facts"]["n_layers"], live_kv_heads=live["facts"]["n_kv_heads"],
            live_head_dim=live["facts"]["head_dim"], live_device=live["facts"]["device"],
            live_tokens=live["tokens"], live_prompt_tokens=live["prompt_tokens"],
            live_measured_bytes=live["measured"], live_formula_bytes=live["formula"],
            live_measured=self._exact(live["measured"]), live_formula=self._exact(live["formula"]),
            live_match=live["measured"] == live["formula"] and live["every_step"],
            live_formula_line=f"{lhead} {ltail}",
            live_per_token=self._bytes_bin(live["per_token"]),
            live_weights_bytes=live["weights"], live_weights=self._bytes_dec(live["weights"]),
            live_crossover=tr.int(live["crossover"]),
            # the question (7B reference)
            question_weights=self._bytes_dec(ref.weight_bytes),
            question_crossover=tr.int(_round_sig(ref_cross)),
            question_crossover_tokens=ref_cross,
            question_options=[tr._(o, small=tr.int(4000), mid=tr.int(26000),
                                   large=tr.int(200000)) for o in QUESTION["options"]],
            question_correct=QUESTION["correct"],
            _live=live, _c=c,
        )

    # ==================================================================================
    # rendering
    # ==================================================================================

    def _narration_paras(self, vm: dict) -> list[str]:
        tr = self.tr
        c, m, bill = vm["_c"], vm["_c"]["m"], vm["_c"]["bill"]
        live = vm["_live"]
        paras = []
        paras.append(tr._(
            "Every token leaves one key vector and one value vector in every layer, for every "
            "key/value head. So one token costs 2 × layers × KV heads × head_dim × bytes per "
            "value, and a sequence costs that times its tokens."))
        q, kvh = tr.int(m.n_heads), tr.int(m.n_kv_heads)
        if c["kind"] == "MHA":
            paras.append(tr._(
                "{model} uses multi-head attention (MHA): each of its {q_heads} query heads has "
                "its own key/value head, so it caches {kv_heads} per layer.",
                model=m.name, q_heads=q, kv_heads=kvh))
        elif c["kind"] == "GQA":
            paras.append(tr._(
                "{model} uses grouped-query attention (GQA): its {q_heads} query heads share "
                "{kv_heads} key/value heads, so its cache is {ratio} smaller than if every "
                "query head had its own. The formula counts KV heads, never the model width.",
                model=m.name, q_heads=q, kv_heads=kvh,
                ratio=tr.times(m.n_heads / m.n_kv_heads, 0)))
        elif c["kind"] == "MQA":
            paras.append(tr._(
                "{model} uses multi-query attention (MQA): all {q_heads} query heads share one "
                "key/value head, so its cache is {ratio} smaller than with one per query head.",
                model=m.name, q_heads=q, ratio=tr.times(m.n_heads, 0)))
        else:
            paras.append(tr._(
                "{model} uses multi-head latent attention (MLA): instead of separate keys and "
                "values it caches one compressed vector of {dims} values per layer and token, "
                "and rebuilds keys and values from it.",
                model=m.name, dims=tr.int(m.mla_dims)))
        if c["window"] is not None and self.context > c["window"]:
            paras.append(tr._(
                "{model} attends only to the last {window} tokens (a sliding window), so its "
                "cache stops growing there: {kept} of the {context} tokens are kept.",
                model=m.name, window=tr.int(c["window"]), kept=tr.int(c["kept"]),
                context=tr.int(self.context)))
        if vm["weights_fit"]:
            paras.append(tr.n_(
                "The weights are paid once, however many sequences the server runs; the cache "
                "is paid again for every sequence and grows with every token. So the batch a "
                "server can run is roughly its free memory divided by the cache of one "
                "sequence: on the {gpu}, {free} ÷ {per_seq} ≈ {count} sequence of {context} "
                "tokens.",
                "The weights are paid once, however many sequences the server runs; the cache "
                "is paid again for every sequence and grows with every token. So the batch a "
                "server can run is roughly its free memory divided by the cache of one "
                "sequence: on the {gpu}, {free} ÷ {per_seq} ≈ {count} sequences of {context} "
                "tokens.",
                bill.max_sequences, gpu=vm["gpu_name"], free=vm["free"],
                per_seq=vm["per_sequence"], count=vm["max_sequences_text"],
                context=tr.int(self.context)))
        else:
            paras.append(tr._(
                "The weights are paid once, the cache once per sequence. On the {gpu} even the "
                "weights ({weights}) do not fit in its {memory}, so no sequence does.",
                gpu=vm["gpu_name"], weights=vm["weights"], memory=vm["gpu_memory"]))
        paras.append(tr._(
            "Not included: activations, the runtime's own buffers and memory fragmentation, so "
            "a real server fits somewhat fewer sequences than this estimate."))
        paras.append(tr._(
            "Units: GB means 10⁹ bytes and GiB means 2³⁰ bytes, {more} more. This cache is "
            "{exact} bytes, which is {dec} or {bin}: always check which unit a figure uses.",
            more=tr.pct(presets.GiB / presets.GB - 1, 1), exact=tr.int(bill.kv_bytes),
            dec=vm["kv_cache"], bin=vm["kv_cache_binary"]))
        paras.append(tr.n_(
            "The live model on this server ({layers} layers, {kv_heads} KV heads of {head_dim} "
            "values, fp32 = 4 bytes per value) stores {per_token} per token. After the prompt "
            "and its next tokens its cache holds {count} token: {measured} measured on the real "
            "tensors, {formula} from the formula. Its weights take {weights}, so its cache would "
            "outgrow them after about {crossover} tokens.",
            "The live model on this server ({layers} layers, {kv_heads} KV heads of {head_dim} "
            "values, fp32 = 4 bytes per value) stores {per_token} per token. After the prompt "
            "and its next tokens its cache holds {count} tokens: {measured} measured on the "
            "real tensors, {formula} from the formula. Its weights take {weights}, so its cache "
            "would outgrow them after about {crossover} tokens.",
            live["tokens"], layers=tr.int(vm["live_layers"]), kv_heads=tr.int(vm["live_kv_heads"]),
            head_dim=tr.int(vm["live_head_dim"]), per_token=vm["live_per_token"],
            count=tr.int(live["tokens"]), measured=vm["live_measured"],
            formula=vm["live_formula"], weights=vm["live_weights"],
            crossover=vm["live_crossover"]))
        return paras

    def refresh(self):
        tr = self.tr
        vm = self.view_model()
        c, m, g, bill = vm["_c"], vm["_c"]["m"], vm["_c"]["g"], vm["_c"]["bill"]
        live = vm["_live"]

        # -- widgets -------------------------------------------------------------------------
        self._w_context.label = tr._("Context length (tokens per sequence)")
        self._w_batch.label = tr._("Batch size (sequences)")
        self._w_model.label = tr._("Model")
        self._w_gpu.label = tr._("GPU for “how many fit”")
        self._w_model.options = {
            tr._("{model} ({kind})", model=p.name, kind=p.attention_kind): k
            for k, p in presets.MODELS.items()}
        self._w_gpu.options = {
            tr._("{gpu} ({memory})", gpu=presets.GPUS[k].name,
                 memory=tr.bytes(presets.GPUS[k].mem_bytes, "GB", 0)): k for k in GPU_KEYS}

        # -- question ------------------------------------------------------------------------
        ref_pt = costs.kv_bytes_per_token(presets.REFERENCE_MODEL)
        ref_w = costs.weight_bytes(presets.REFERENCE_MODEL)
        self._question.render(
            tr, weights=vm["question_weights"], small=tr.int(4000), mid=tr.int(26000),
            large=tr.int(200000), per_token_b=self._exact(ref_pt),
            weights_b=self._exact(int(ref_w)), crossover=vm["question_crossover"],
            default_ctx=tr.int(D["context"]),
            kv_default=self._bytes_dec(costs.kv_cache_bytes(presets.REFERENCE_MODEL,
                                                            D["context"])))

        # -- text ----------------------------------------------------------------------------
        self._subtitle.object = "<p>{}</p>".format(esc(tr._(
            "Weights are paid once; the cache is paid for every token of every sequence.")))
        if m.is_mla:
            info = tr._("{model}: {kind} ({kind_name}), {layers} layers, caches {dims} latent "
                        "values per layer and token.",
                        model=m.name, kind=c["kind"], kind_name=tr._(ATTENTION_NAMES[c["kind"]]),
                        layers=tr.int(m.n_layers), dims=tr.int(m.mla_dims))
        else:
            kv_heads = tr.n_("{count} KV head", "{count} KV heads", m.n_kv_heads,
                             count=tr.int(m.n_kv_heads))
            info = tr._("{model}: {kind} ({kind_name}), {layers} layers, {q_heads} query heads, "
                        "{kv_heads} of {head_dim} values each, weights in fp16.",
                        model=m.name, kind=c["kind"], kind_name=tr._(ATTENTION_NAMES[c["kind"]]),
                        layers=tr.int(m.n_layers), q_heads=tr.int(m.n_heads),
                        kv_heads=kv_heads, head_dim=tr.int(m.head_dim))
        self._model_info.object = f"<p>{esc(info)}</p>"
        formula_label = tr._("Cache formula")
        self._formula.object = (f'<p aria-label="{esc(formula_label)}">'
                                f'{esc(vm["formula_head"])}<br>{esc(vm["formula_tail"])}</p>')

        cards = [
            metric(tr._("KV cache per token ({exact})", exact=vm["per_token_exact"]),
                   vm["per_token"], "computed", tr, "per_token"),
            metric(tr._("KV cache, whole batch"), vm["kv_cache_both"], "computed", tr, "kv_cache"),
            metric(tr._("Weights (fp16)"), vm["weights"], "computed", tr, "weights"),
            metric(tr._("Total"), vm["total"], "computed", tr, "total"),
            metric(tr._("Fits on"), vm["fits"], "computed", tr, "fits"),
            metric(tr._("Sequences of {context} tokens that fit in the {gpu}",
                        context=tr.int(self.context), gpu=g.name),
                   vm["max_sequences_text"], "computed", tr, "max_sequences"),
        ]
        self._metrics.object = metrics_html(cards)

        notes = []
        if not vm["weights_fit"]:
            notes.append(tr._("The weights alone ({weights}) are larger than the {gpu}'s "
                              "{memory}: the model would have to be split over several GPUs.",
                              weights=vm["weights"], gpu=g.name, memory=vm["gpu_memory"]))
        elif not bill.fits_selected and bill.max_sequences == 0:
            notes.append(tr._("This batch needs {total}, more than the {gpu}'s {memory}: not "
                              "even one sequence of {context} tokens fits next to the weights.",
                              total=vm["total"], gpu=g.name, memory=vm["gpu_memory"],
                              context=tr.int(self.context)))
        elif not bill.fits_selected:
            notes.append(tr.n_("This batch needs {total}, more than the {gpu}'s {memory}: at "
                               "most {count} such sequence fits at once.",
                               "This batch needs {total}, more than the {gpu}'s {memory}: at "
                               "most {count} such sequences fit at once.",
                               bill.max_sequences, total=vm["total"], gpu=g.name,
                               memory=vm["gpu_memory"], count=vm["max_sequences_text"]))
        if bill.fits_gpu is None:
            notes.append(tr._("No single GPU of the presets holds {total}.", total=vm["total"]))
        self._notice.object = "".join(f'<p class="notice" role="status">{esc(n)}</p>'
                                      for n in notes)

        self._bar_caption.object = "<p><strong>{}</strong></p>".format(esc(tr._(
            "The memory bill against the memory of the preset GPUs")))
        cache_items = ([("cached", tr._("compressed latent (MLA)"))] if m.is_mla else
                       [("key", tr._("keys (half of the cache)")),
                        ("value", tr._("values (half of the cache)"))])
        self._bar_legend.object = legend_html([
            ("weights", tr._("weights (fp16)")), *cache_items,
            ("text", tr._("solid line: the chosen GPU")),
            ("muted", tr._("dashed lines: other GPUs"))])
        groups = "; ".join(tr._("{capacity}: {names}", capacity=tr.bytes(cap, "GB", 0),
                                names=", ".join(names))
                           for cap, names in self._capacity_groups())
        self._gpu_legend.object = "<p>{}</p>".format(esc(tr._("GPU lines: {groups}.",
                                                               groups=groups)))
        self._curve_caption.object = "<p><strong>{}</strong></p>".format(esc(tr.n_(
            "KV cache of {count} sequence as the context grows, against the weights",
            "KV cache of {count} sequences as the context grows, against the weights",
            self.batch, count=tr.int(self.batch))))
        cross_txt = (tr._("The cache overtakes the weights at about {crossover} tokens.",
                          crossover=vm["crossover"]) if c["crossover"] is not None else
                     tr._("Up to {max} tokens the cache stays below the weights.",
                          max=tr.int(D["context_range"][1]))
                     if bill.kv_per_token * self.batch * (c["window"] or 32768)
                     < bill.weight_bytes else "")
        curve_items = ([("cached", tr._("compressed latent (MLA)"))] if m.is_mla else
                       [("key", tr._("keys")), ("value", tr._("values"))])
        self._curve_legend.object = legend_html([
            *curve_items,
            ("weights", tr._("dashed line: weights")),
            ("text", tr._("dot: this context"))]) + (f"<p>{esc(cross_txt)}</p>" if cross_txt
                                                      else "")

        self._live_head.object = "<p><strong>{}</strong> {}</p>".format(
            esc(tr._("The live model on this server")),
            esc(tr._("{layers} layers, {kv_heads} KV heads, head_dim {head_dim}, fp32 cache, "
                     "on {device}; prompt of {prompt} tokens plus {steps} decode steps.",
                     layers=tr.int(vm["live_layers"]), kv_heads=tr.int(vm["live_kv_heads"]),
                     head_dim=tr.int(vm["live_head_dim"]), device=vm["live_device"],
                     prompt=tr.int(vm["live_prompt_tokens"]), steps=tr.int(live["steps"]))))
        self._live_formula.object = f'<p>{esc(vm["live_formula_line"])}</p>'
        live_cards = [
            metric(tr._("Live cache, measured"), vm["live_measured"], "measured", tr,
                   "live_measured"),
            metric(tr._("Live cache, formula"), vm["live_formula"], "computed", tr,
                   "live_formula"),
            metric(tr._("Live model weights (fp32)"), vm["live_weights"], "measured", tr,
                   "live_weights"),
        ]
        match = (tr._("Measured and formula agree, byte for byte, at every step.")
                 if vm["live_match"] else
                 tr._("Measured and formula differ: the cache holds something the formula "
                      "does not count."))
        self._live_metrics.object = metrics_html(live_cards) + f'<p role="status">{esc(match)}</p>'

        self._narration.object = "".join(f"<p>{esc(p)}</p>" for p in self._narration_paras(vm))

        # -- plots (raw Bokeh: on the document loop) ------------------------------------------
        on_doc(lambda: self._update_plots(vm))

    def _update_plots(self, vm: dict):
        tr = self.tr
        c, m, g, bill = vm["_c"], vm["_c"]["m"], vm["_c"]["g"], vm["_c"]["bill"]
        gb = presets.GB
        W, KV = bill.weight_bytes / gb, bill.kv_bytes / gb
        caps = self._capacity_groups()
        xmax = max(bill.total, caps[-1][0]) / gb * 1.08
        ticks, digits = nice_ticks(xmax, 5)

        # the bar
        def both(n):
            return tr._("{dec} ({bin})", dec=self._bytes_dec(n), bin=self._bytes_bin(n))
        if m.is_mla:      # one compressed latent, not separate keys and values
            self._bar_src.data = dict(
                y=[0, 0], left=[0, W], right=[W, W + KV],
                color=[PALETTE["weights"], PALETTE["cached"]],
                label=[tr._("weights (fp16)"), tr._("compressed latent (MLA)")],
                size=[vm["weights"], both(bill.kv_bytes)])
        else:
            half = KV / 2
            self._bar_src.data = dict(
                y=[0, 0, 0], left=[0, W, W + half], right=[W, W + half, W + KV],
                color=[PALETTE["weights"], PALETTE["key"], PALETTE["value"]],
                label=[tr._("weights (fp16)"), tr._("keys"), tr._("values")],
                size=[vm["weights"], both(bill.kv_bytes / 2), both(bill.kv_bytes / 2)])
        right = W + KV > 0.5 * xmax       # near the right edge: align the label leftwards
        self._bar_text_src.data = dict(
            x=[0, W + KV if right else W], y=[-0.5, 0.45],
            text=[tr._("weights {size}", size=vm["weights"]),
                  tr._("KV cache {size}", size=vm["kv_cache_both"])],
            align=["left", "right" if right else "left"])
        xs, y0, y1, ly, text, color, width, dash, names = [], [], [], [], [], [], [], [], []
        for i, (cap, ns) in enumerate(caps):
            chosen = cap == g.mem_bytes
            xs.append(cap / gb)
            y0.append(-0.7)
            y1.append(0.95 + 0.35 * (i % 2))
            ly.append(1.0 + 0.35 * (i % 2))
            text.append(tr.bytes(cap, "GB", 0))
            color.append(PALETTE["text"] if chosen else PALETTE["muted"])
            width.append(2.5 if chosen else 1.5)
            dash.append("solid" if chosen else "dashed")
            names.append(", ".join(ns))
        self._gpu_src.data = dict(x=xs, y0=y0, y1=y1, ly=ly, text=text, color=color,
                                  width=width, dash=dash, names=names)
        self._bar.x_range.start, self._bar.x_range.end = 0, xmax
        locale_ticks(self._bar.xaxis[0], ticks, lambda v: tr.num(v, digits))
        self._bar.xaxis[0].axis_label = tr._("Memory (GB, 10⁹ bytes)")
        self._bar.title.text = tr._("{model}, {context} tokens × {batch}",
                                    model=m.name, context=tr.int(self.context),
                                    batch=tr.n_("{count} sequence", "{count} sequences",
                                                self.batch, count=tr.int(self.batch)))
        self._bar_hover.tooltips = [(tr._("Part"), "@label"), (tr._("Size"), "@size")]

        # the curve
        lo, hi = D["context_range"]
        ctx = np.arange(lo, hi + 1, CURVE_STEP)
        kv = np.array([costs.kv_cache_bytes(m, int(t), self.batch, D["precision"],
                                            window=c["window"]) for t in ctx], dtype=float) / gb
        zero = np.zeros_like(kv)
        self._curve_src.data = dict(
            ctx=ctx, zero=zero, kv=kv, w=np.full_like(kv, W),
            k_top=zero if m.is_mla else kv / 2, v_top=zero if m.is_mla else kv,
            lat_top=kv if m.is_mla else zero,
            kv_text=[self._bytes_dec(v * gb) for v in kv], ctx_text=[tr.int(t) for t in ctx])
        self._now_src.data = dict(ctx=[self.context], kv=[KV], text=[vm["kv_cache"]])
        self._now_span.location = self.context
        if c["crossover"] is not None:
            self._cross_src.data = dict(ctx=[c["crossover"]], kv=[W],
                                        text=[tr._("cache = weights")])
        else:
            self._cross_src.data = dict(ctx=[], kv=[], text=[])
        ymax = max(float(kv.max()), W) * 1.12
        self._curve.y_range.start, self._curve.y_range.end = 0, ymax
        yt, yd = nice_ticks(ymax, 4)
        locale_ticks(self._curve.yaxis[0], yt, lambda v: tr.num(v, yd))
        xt = [0, 8192, 16384, 24576, 32768]
        locale_ticks(self._curve.xaxis[0], xt, tr.int)
        self._curve.xaxis[0].axis_label = tr._("Context length (tokens)")
        self._curve.yaxis[0].axis_label = tr._("Memory (GB, 10⁹ bytes)")
        self._curve.title.text = tr.n_("KV cache for {count} sequence ({model}, fp16)",
                                       "KV cache for {count} sequences ({model}, fp16)",
                                       self.batch, count=tr.int(self.batch), model=m.name)
        self._curve_hover.tooltips = [(tr._("Context"), "@ctx_text"),
                                      (tr._("KV cache"), "@kv_text")]

    def __panel__(self):
        return self._layout
