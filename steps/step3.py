"""Step 3 — Storing keys and values: the prefill writes the whole prompt, each decode step
appends one k row and one v row, and every earlier row is reused as it is.

Everything on the plot is real: the key and value vectors are the live model's cached
tensors (one layer, one KV head), the bar is the newest query's softmax(q·k) over the cached
keys, and the counts and bytes are read off the cache after each step.
"""
from __future__ import annotations

import numpy as np
import panel as pn
import panel_material_ui as pmui
import param
from bokeh.models import ColumnDataSource, HoverTool, Range1d
from bokeh.plotting import figure

from explainer import costs, presets
from explainer import runtime as rt
from explainer.i18n import N_
from explainer.prompts import PROMPTS
from steps.common import (PALETTE, Player, Question, StepView, badge, esc, html_pane,
                          locale_ticks, metric, metrics_html, on_doc, swatch)

# -- state ------------------------------------------------------------------------------------

VARIANT = "mha"
N_NEW = 12                      # tokens generated: the prefill gives one, then 11 decode steps
LAST_FRAME = N_NEW - 1          # frame 0 = after the prefill, frame f = after decode step f
_FACTS = rt.model_facts(VARIANT)
N_EXAMPLES = min(len(p) for p in PROMPTS.values())

# x layout of the one figure (data units): K strip | gap | V strip | gap | attention bar | text
HEAD_DIM = _FACTS["head_dim"]
GAP = 3
K_X0 = 0
V_X0 = HEAD_DIM + GAP
BAR_X0 = V_X0 + HEAD_DIM + GAP
BAR_W = 32                      # width of a 100 % bar
X_END = BAR_X0 + BAR_W + 14     # room for the percentage text
ROW_PX = 21


def _mix(a: str, b: str, t: float) -> str:
    """Blend hex colour a toward hex colour b by t in [0, 1]."""
    ca = np.array([int(a[i:i + 2], 16) for i in (1, 3, 5)], float)
    cb = np.array([int(b[i:i + 2], 16) for i in (1, 3, 5)], float)
    c = np.clip(np.round(ca + (cb - ca) * float(t)), 0, 255).astype(int)
    return "#%02x%02x%02x" % tuple(c)


def diverging(values: np.ndarray, scale: float, pos_key: str) -> list[str]:
    """A diverging ramp built from the palette: muted grey (negative) - white (0) -
    PALETTE[pos_key] (positive); |value| / scale sets the strength."""
    scale = scale if scale > 0 else 1.0
    out = []
    for v in np.asarray(values, float).ravel():
        t = min(1.0, abs(v) / scale)
        out.append(_mix("#ffffff", PALETTE[pos_key] if v >= 0 else PALETTE["muted"], t))
    return out


def _ramp_css(pos_key: str) -> str:
    return (f"linear-gradient(90deg, {PALETTE['muted']}, #ffffff, {PALETTE[pos_key]})")


class Step3(StepView):
    number = 3

    example = param.Integer(default=0, bounds=(0, N_EXAMPLES - 1),
                            doc="index into PROMPTS[lang]; 0 is the language's default prompt")
    frame = param.Integer(default=0, bounds=(0, LAST_FRAME),
                          doc="0 = after the prefill, then one per decode step")
    layer = param.Integer(default=0, bounds=(0, _FACTS["n_layers"] - 1))
    head = param.Integer(default=0, bounds=(0, _FACTS["n_kv_heads"] - 1),
                         doc="KV head whose cached keys and values are drawn")

    url_names = {"example": "example", "frame": "frame", "layer": "layer", "head": "head"}

    def __init__(self, app, **params):
        super().__init__(app, **params)
        # widgets
        self._example_w = pmui.Select(options={}, value=None, width=300)
        self._example_w.param.watch(self._example_picked, "value")
        self._layer_w = pmui.IntSlider.from_param(self.param.layer, width=150)
        self._head_w = pmui.IntSlider.from_param(self.param.head, width=150)
        self.player = Player(start=0, end=LAST_FRAME, value=self.frame, interval=1100)
        self.player.param.watch(lambda e: setattr(self, "frame", e.new), "value")

        # the question, asked before the picture answers it
        self.question = Question(
            prompt=N_("After the prefill of a 5-token prompt and 3 decode steps, how many key "
                      "rows does each layer's cache hold?"),
            options=["3", "5", "8"], correct=2,
            explain=N_("The prefill stores one key row for each of the 5 prompt tokens, and "
                       "each decode step appends exactly one more: 5 + 3 = 8 rows per layer "
                       "(with 8 value rows beside them). Step the player to frame 3 to see "
                       "them."))

        # the figure, built once: rows are cached tokens (top = first), columns are the
        # head_dim values of k, then of v, then the newest query's attention bar
        self._cells = ColumnDataSource(dict(x=[], y=[], color=[], tok=[], kind=[], dim=[],
                                            val=[]), name="step3-cells")
        self._bars = ColumnDataSource(dict(left=[], right=[], y=[], tok=[], pct=[],
                                           tx=[], weight=[]))
        self._new = ColumnDataSource(dict(x=[], y=[], w=[], h=[]))
        self._heads = ColumnDataSource(dict(x=[], y=[], text=[], align=[]))
        fig = figure(sizing_mode="stretch_width", height=300, toolbar_location=None,
                     x_range=Range1d(-0.8, X_END), y_range=Range1d(10, -1.6),
                     min_border_left=4, min_border_right=4, tools="")
        fig.xaxis.visible = False
        fig.grid.visible = False
        fig.outline_line_color = None
        fig.yaxis.major_tick_line_color = None
        fig.yaxis.axis_line_color = None
        fig.yaxis.major_label_text_font = "monospace"
        fig.yaxis.major_label_text_font_size = "11px"
        fig.rect("x", "y", "w", "h", source=self._new, fill_color=PALETTE["new"],
                 fill_alpha=0.12, line_color=PALETTE["new"], line_width=2)
        cells = fig.rect("x", "y", 1, 0.82, source=self._cells, fill_color="color",
                         line_color="color", line_width=0.5)
        bars = fig.hbar(y="y", left="left", right="right", height=0.62, source=self._bars,
                        fill_color=PALETTE["query"], line_color=None)
        fig.text("tx", "y", text="pct", source=self._bars, text_font_size="10px",
                 text_baseline="middle", text_color=PALETTE["text"])
        fig.text("x", "y", text="text", text_align="align", source=self._heads,
                 text_font_size="11px", text_font_style="bold", text_baseline="middle",
                 text_color=PALETTE["text"])
        self._cell_hover = HoverTool(renderers=[cells])
        self._bar_hover = HoverTool(renderers=[bars])
        fig.add_tools(self._cell_hover, self._bar_hover)
        self._fig = fig

        # text panes
        self._subtitle = html_pane(css_classes=["step-subtitle"])
        self._legend = html_pane()
        self._caption = html_pane(css_classes=["live-facts"])
        self._metrics = html_pane()
        self._narration = html_pane(css_classes=["narration"])
        self._facts = html_pane(css_classes=["live-facts"])
        self._notice = html_pane()

        self._layout = pn.Column(
            self._subtitle,
            self.question,
            pn.FlexBox(self._example_w, self._layer_w, self._head_w,
                       sizing_mode="stretch_width"),
            self.player,
            self._legend,
            pn.pane.Bokeh(fig, sizing_mode="stretch_width"),
            self._caption,
            self._metrics,
            self._notice,
            self._narration,
            self._facts,
            sizing_mode="stretch_width",
        )
        self._built = True
        self.refresh()

    def _example_picked(self, event):
        if event.new is not None and event.new != self.example:
            self.example = int(event.new)

    # -- numbers from the engine --------------------------------------------------------------

    def prompt_text(self) -> str:
        prompts = PROMPTS[self.app.lang]
        return prompts[min(self.example, len(prompts) - 1)]

    def trace(self) -> rt.Trace:
        """The live run behind this step (lru-cached in the runtime)."""
        return rt.generate(VARIANT, rt.encode(self.prompt_text()), N_NEW, "fp32")

    def _query_heads(self) -> tuple[int, int]:
        """The query heads that read this KV head: [first, last + 1)."""
        group = _FACTS["n_heads"] // _FACTS["n_kv_heads"]
        return self.head * group, (self.head + 1) * group

    def numbers(self) -> dict:
        """Raw numbers of the current frame, all from the live run or the cost model."""
        t = self.trace()
        f, P = self.frame, t.P
        shape = tuple(int(s) for s in t.cache_shape[f])
        n_cached = shape[2]                              # measured: the cache's token axis
        q0, q1 = self._query_heads()
        attn = np.asarray(t.attn[f][self.layer, q0:q1]).mean(axis=0)   # newest query's row
        live = rt.live_preset(VARIANT)
        ref = presets.MODELS[presets.STEP3["model"]]
        tokens = t.tokens()
        return dict(
            P=P, frame=f, n_cached=n_cached, shape=shape,
            new_rows=int(t.kv_rows[f, 0]),               # measured: rows through W_k / W_v
            qk_this_step=int(attn.shape[-1]),            # measured: keys the newest query scored
            # every prompt query scores itself and the earlier ones (causal triangle)
            prefill_triangle=P * (P + 1) // 2,
            ref_name=ref.name, ref_precision=presets.STEP3["precision"],
            ref_bytes=costs.kv_cache_bytes(ref, n_cached, precision=presets.STEP3["precision"]),
            live_bytes=int(t.cache_nbytes[f]),           # measured: the real tensors' bytes
            live_formula_bytes=costs.kv_cache_bytes(live, n_cached, precision="fp32"),
            tokens=tokens[:n_cached], newest=tokens[n_cached - 1],
            next_token=tokens[n_cached],
            k=t.k[self.layer, self.head, :n_cached], v=t.v[self.layer, self.head, :n_cached],
            k_scale=float(np.abs(t.k[self.layer, self.head]).max()),
            v_scale=float(np.abs(t.v[self.layer, self.head]).max()),
            attn=attn, q_heads=(q0, q1), max_rows=t.k.shape[2],
        )

    def view_model(self) -> dict:
        tr, n = self.tr, self.numbers()
        return dict(
            prompt=self.prompt_text(),
            cache_length=tr.int(n["n_cached"]),
            new_kv=tr.int(n["new_rows"]),
            qk_this_step=tr.int(n["qk_this_step"]),
            prefill_triangle=tr.int(n["prefill_triangle"]),
            shape="[" + ", ".join(tr.int(s) for s in n["shape"]) + "]",
            ref_cache=tr.bytes(n["ref_bytes"], "MiB", 1),
            live_cache=tr.bytes(n["live_bytes"], "KiB", 1),
            live_formula=tr.bytes(n["live_formula_bytes"], "KiB", 1),
            attn_pct=[tr.pct(float(w)) for w in n["attn"]],
            tokens=list(n["tokens"]),
            new_rows_highlighted=list(range(n["n_cached"] - n["new_rows"], n["n_cached"])),
            raw=n,
        )

    # -- rendering ----------------------------------------------------------------------------

    def refresh(self):
        if not getattr(self, "_built", False):
            return
        tr = self.tr
        vm = self.view_model()
        n = vm["raw"]
        f, P, L = n["frame"], n["P"], n["n_cached"]
        nl, nh, nkv, dh = (_FACTS["n_layers"], _FACTS["n_heads"], _FACTS["n_kv_heads"],
                           _FACTS["head_dim"])

        # widgets
        self._example_w.label = tr._("Prompt")
        opts = {p: i for i, p in enumerate(PROMPTS[self.app.lang][:N_EXAMPLES])}
        self._example_w.param.update(options=opts, value=self.example)
        self._layer_w.label = tr._("Layer")
        self._head_w.label = tr._("Key/value head")
        if self.player.value != f:
            self.player.value = f
        self.player.render(tr, N_("Decode step {i} of {n} (0 = prefill)"))
        if getattr(self, "_question_lang", None) != self.app.lang:
            # re-sending the options makes the browser pick one (steps/common.Question): only
            # re-render the question when its language changes
            self._question_lang = self.app.lang
            self.question.render(tr)

        self._subtitle.object = esc(tr._(
            "The prefill writes the whole prompt into the cache in one pass; after that, "
            "each decode step appends one key row and one value row and reuses all the rest."))

        # legend (every colour named)
        def ramp(pos_key, label):
            return (f'<span class="swatch"><span class="chip" style="width:2.6rem;'
                    f'background:{_ramp_css(pos_key)}"></span>{esc(label)}</span>')
        self._legend.object = (
            '<div class="legend">'
            + ramp("key", tr._("Key k: grey negative, white zero, blue positive"))
            + ramp("value", tr._("Value v: grey negative, white zero, orange positive"))
            + swatch("query", tr._("Attention of the newest query, softmax(q·k)"))
            + swatch("new", tr._("Rows written at this step"))
            + "</div>")

        # figure data
        toks = n["tokens"]
        k, v = n["k"], n["v"]
        kind_k, kind_v = tr._("key"), tr._("value")
        xs, ys, colors, ctok, ckind, cdim, cval = [], [], [], [], [], [], []
        kcol = diverging(k, n["k_scale"], "key")
        vcol = diverging(v, n["v_scale"], "value")
        for i in range(L):
            for d in range(dh):
                for x0, kind, arr, cols in ((K_X0, kind_k, k, kcol), (V_X0, kind_v, v, vcol)):
                    xs.append(x0 + d)
                    ys.append(i)
                    colors.append(cols[i * dh + d])
                    ctok.append(toks[i])
                    ckind.append(kind)
                    cdim.append(tr.int(d))
                    cval.append(tr.num(float(arr[i, d]), 3))
        cells = dict(x=xs, y=ys, color=colors, tok=ctok, kind=ckind, dim=cdim, val=cval)
        w = np.asarray(n["attn"], float)
        bars = dict(left=[BAR_X0] * L, right=list(BAR_X0 + BAR_W * w), y=list(range(L)),
                    tok=list(toks), pct=vm["attn_pct"], tx=list(BAR_X0 + BAR_W * w + 0.8),
                    weight=list(w))
        first_new = L - n["new_rows"]
        new = dict(x=[(X_END - 0.8) / 2 - 0.4], y=[(first_new + L - 1) / 2],
                   w=[X_END + 0.2], h=[n["new_rows"]])
        heads = dict(x=[K_X0 + dh / 2 - 0.5, V_X0 + dh / 2 - 0.5, BAR_X0],
                     y=[-1.0] * 3,
                     text=[tr._("K cache"), tr._("V cache"), tr._("softmax(q·k)")],
                     align=["center", "center", "left"])
        max_rows = n["max_rows"]
        labels = {i: f"{tr.int(i + 1)} {toks[i]}" for i in range(L)}
        cell_tips = [(tr._("Token"), "@tok"), (tr._("Vector"), "@kind"),
                     (tr._("Dimension"), "@dim"), (tr._("Value"), "@val")]
        bar_tips = [(tr._("Token"), "@tok"), (tr._("Attention weight"), "@pct")]
        height = 60 + ROW_PX * (max_rows + 1)

        def apply():
            self._cells.data = cells
            self._bars.data = bars
            self._new.data = new
            self._heads.data = heads
            self._fig.y_range.start = max_rows - 0.4
            self._fig.y_range.end = -1.6
            self._fig.height = height
            locale_ticks(self._fig.yaxis, range(L), lambda i: labels[i])
            self._cell_hover.tooltips = cell_tips
            self._bar_hover.tooltips = bar_tips
        on_doc(apply)

        q0, q1 = n["q_heads"]
        if q1 - q0 == 1:
            who = tr._("The green bar is the softmax(q·k) of the newest token's query in query "
                       "head {q} of layer {layer}, the only query head that reads key/value "
                       "head {h} in this model.", q=tr.int(q0), layer=tr.int(self.layer),
                       h=tr.int(self.head))
        else:
            who = tr._("The green bar is the softmax(q·k) of the newest token's query in "
                       "layer {layer}, averaged over query heads {a} to {b}, which share "
                       "key/value head {h}.", layer=tr.int(self.layer), a=tr.int(q0),
                       b=tr.int(q1 - 1), h=tr.int(self.head))
        strips = tr._("Each strip shows the {d} numbers of one cached vector; the rows above "
                      "the highlighted ones are never written again.", d=tr.int(dh))
        self._caption.object = f"<p>{esc(who)} {esc(strips)}</p>"

        # number cards
        cards = [
            metric(tr._("Cache length (tokens)"), vm["cache_length"], "measured", tr,
                   "cache_length"),
            metric(tr._("New k and v rows computed this step (per layer)"), vm["new_kv"],
                   "measured", tr, "new_kv"),
            metric(tr._("q·k dot products this step (per head, newest query)"),
                   vm["qk_this_step"], "measured", tr, "qk_this_step"),
            metric(tr._("Live cache tensor shape [batch, kv_heads, tokens, head_dim]"),
                   vm["shape"], "measured", tr, "shape"),
            metric(tr._("Cache of this sequence, {model} ({precision})",
                        model=n["ref_name"], precision=n["ref_precision"]),
                   vm["ref_cache"], "computed", tr, "ref_cache"),
            metric(tr._("Cache of this sequence, live model (fp32 tensors)"),
                   vm["live_cache"], "measured", tr, "live_cache"),
        ]
        self._metrics.object = metrics_html(cards)
        if n["live_bytes"] != n["live_formula_bytes"]:
            self._notice.object = (
                '<p class="notice">' + esc(tr._(
                    "The live cache holds {got}, but the formula for its configuration gives "
                    "{want}.", got=vm["live_cache"], want=vm["live_formula"])) + "</p>")
        else:
            same = tr._("The live bytes equal the formula 2 × layers × kv_heads × head_dim × "
                        "4 bytes × tokens = {b}.", b=vm["live_formula"])
            self._notice.object = f'<p class="live-facts">{esc(same)} {badge("computed", tr)}</p>'


        # narration
        paras = []
        if f == 0:
            paras.append(tr._(
                "Prefill: the {P} prompt tokens go through the model together. In one pass "
                "each layer computes a key and a value for every prompt token and stores them "
                "all, so the cache starts with {P} rows.", P=tr.int(P)))
            paras.append(tr._(
                "The newest prompt token's query scores {P} keys, but the prefill scores the "
                "whole causal triangle at once: every prompt token's query against itself and "
                "the tokens before it, {tri} dot products per head.",
                P=tr.int(P), tri=vm["prefill_triangle"]))
        else:
            paras.append(tr._(
                "Decode step {f}: only the newest token, “{tok}”, goes through the query, key "
                "and value projections and the feed-forward layers. Each layer appends its one "
                "key row and one value row; the {old} rows already stored are read, not "
                "recomputed.", f=tr.int(f), tok=n["newest"], old=tr.int(L - 1)))
            paras.append(tr._(
                "Its query is scored against all {L} cached keys: {L} dot products per head.",
                L=tr.int(L)))
        paras.append(tr._(
            "Each layer's cache is a pair of tensors shaped [batch, kv_heads, tokens, "
            "head_dim]; here that is {shape}. A step writes one slice along the token axis, "
            "so the cache grows by one row per layer per token.", shape=vm["shape"]))
        paras.append(tr._(
            "Rotary position embedding (RoPE) turns each key by its position once, before "
            "it is stored: the cache holds rotated keys, and a stored key never needs "
            "turning again."))
        paras.append(tr._(
            "For {model} in {precision} these {L} tokens would take {size} of cache; our "
            "small live model stores them in {live}.", model=n["ref_name"],
            precision=n["ref_precision"], L=tr.int(L), size=vm["ref_cache"],
            live=vm["live_cache"]))
        self._narration.object = "".join(f"<p>{esc(p)}</p>" for p in paras)

        self._facts.object = esc(tr._(
            "Live model: {layers} layers, {heads} query heads, {kv} key/value heads, head_dim "
            "{d}, running on {device}. Next token it picks: “{next}”.",
            layers=tr.int(nl), heads=tr.int(nh), kv=tr.int(nkv), d=tr.int(dh),
            device=_FACTS["device"], next=n["next_token"]))

    def __panel__(self):
        return self._layout
