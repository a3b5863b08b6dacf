"""Step 2 — Wasted work: recomputing the prefix every step.

Two grids, one row per generation step and one cell per position, show which keys and values
a step computes: without a cache every step recomputes the whole prefix, with a cache each
position is computed once and then read back. The totals come from `explainer.costs`; the same
totals are then *measured* by counting the rows that pass through the live model's K/V
projections, next to the real wall time and a live check that the cache leaves the output
unchanged.

Reads top to bottom: live runs (one background worker per process) → the view's state →
numbers from the engine → grids → layout.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

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
from steps.live import JOBS, refresh_when_done, served_doc
from steps.common import (PALETTE, Player, Question, StepView, esc, html_pane, legend_html,
                          locale_ticks, metric, metrics_html, on_doc)

VARIANT = "mha"                                   # the live model this step runs
P_MIN, P_MAX = presets.STEP2["P_range"]
T_MIN, T_MAX = presets.STEP2["T_range"]
PASSAGE = 3                                       # PROMPTS[lang][3]: the long passage

# Set to False (tests) to skip warming every prompt length of a language at construction.
WARM_IN_BACKGROUND = True


# -- the prompt --------------------------------------------------------------------------------

@lru_cache(maxsize=None)
def passage_ids(lang: str) -> tuple:
    """At least P_MAX token ids of the language's long passage.

    When the passage in `explainer.prompts` is shorter than P_MAX tokens, it continues with the
    words that follow it in the training corpus (the passage is a corpus passage's start), so a
    prompt of any length on the slider is real text.
    """
    ids = rt.encode(PROMPTS[lang][PASSAGE])
    if len(ids) >= P_MAX:
        return ids
    corpus, n = rt.corpus_ids(), len(ids)
    for i in range(len(corpus) - P_MAX + 1):
        if corpus[i:i + n] == ids:
            return tuple(corpus[i:i + P_MAX])
    return tuple((ids * (P_MAX // n + 1))[:P_MAX])       # not found: repeat (never expected)


def prompt_ids(lang: str, P: int) -> tuple:
    return passage_ids(lang)[:P]


# -- live runs: one uncached and one cached generation of T_MAX tokens per (lang, P) -----------

@dataclass(frozen=True)
class LiveRuns:
    """Both runs for one prompt. A greedy run of T_MAX tokens contains every shorter run as its
    first T steps, so every T on the slider is a slice of these two traces."""
    lang: str
    P: int
    uncached: rt.Trace
    cached: rt.Trace
    comparison: rt.Comparison     # rt.compare_cached_uncached over all T_MAX steps
    dlogit_upto: np.ndarray       # [T_MAX]: max |Δ logit| over steps 1..t
    same_upto: np.ndarray         # [T_MAX]: both runs chose the same tokens in steps 1..t

    def at(self, T: int) -> dict:
        u, c, P = self.uncached, self.cached, self.P
        return {
            "rows_uncached": int(u.kv_rows[:T, 0].sum()),
            "rows_cached": int(c.kv_rows[:T, 0].sum()),
            "rows_uncached_all": int(u.kv_rows[:T].sum()),
            "rows_cached_all": int(c.kv_rows[:T].sum()),
            "rows_uncached_layers": u.kv_rows[:T].sum(axis=0).tolist(),
            "rows_cached_layers": c.kv_rows[:T].sum(axis=0).tolist(),
            "time_uncached": float(u.times[:T].sum()),
            "time_cached": float(c.times[:T].sum()),
            "ids_uncached": u.ids[P:P + T],
            "ids_cached": c.ids[P:P + T],
            "dlogit": float(self.dlogit_upto[T - 1]),
            "same": bool(self.same_upto[T - 1]),
        }


def compute_live(lang: str, P: int) -> LiveRuns:
    """Run the live model (blocking): uncached and cached generation of T_MAX tokens.

    Called with the exact arguments `rt.compare_cached_uncached` uses, so its comparison is a
    lookup in the runtime's trace cache."""
    ids = prompt_ids(lang, P)
    u = rt.generate(VARIANT, ids, T_MAX, None, record_kv=False)
    c = rt.generate(VARIANT, ids, T_MAX, "fp32", record_kv=False)
    cmp = rt.compare_cached_uncached(VARIANT, ids, T_MAX)
    dl = np.maximum.accumulate(np.abs(u.logits - c.logits).max(axis=1))
    same = np.logical_and.accumulate(np.array(u.new_ids) == np.array(c.new_ids))
    return LiveRuns(lang, P, u, c, cmp, dl, same)


@lru_cache(maxsize=1)
def _warm_up_model():
    """One short throwaway run of each kind before the first measured one, so the measured
    wall times do not include the process's first-call overheads (lazy initialisation)."""
    try:
        ids = passage_ids("en")[:4]
        rt.generate(VARIANT, ids, 4, None)
        rt.generate(VARIANT, ids, 4, "fp32")
    except Exception:
        pass                            # the real run reports any error


_WARMED: set = set()


def submit_live(lang: str, P: int, front: bool = False):
    return JOBS.submit(("step2", lang, P), lambda: compute_live(lang, P), front)


def warm(lang: str):
    """Queue every prompt length of `lang` (the default first), once per process."""
    if lang in _WARMED:
        return
    _WARMED.add(lang)
    JOBS.submit(("step2-warm-up",), _warm_up_model)
    P0 = presets.STEP2["P"]
    for P in sorted(range(P_MIN, P_MAX + 1), key=lambda p: (abs(p - P0), p)):
        submit_live(lang, P)


# -- grids -------------------------------------------------------------------------------------

def nice_ticks(lo: int, hi: int, max_n: int = 8) -> list[int]:
    """lo plus round multiples up to hi, at most about max_n ticks."""
    for step in (1, 2, 5, 10, 20, 25, 50, 100):
        if (hi - lo) / step <= max_n:
            break
    return [lo] + [v for v in range(step, hi + 1, step) if v - lo >= max(1, step // 2)]


def grid_data(P: int, T: int, cached: bool, labels: dict) -> dict:
    """Cells of one grid: a row per generation step, a cell per position whose K/V the step
    needs; the earlier positions are recomputed (no cache) or read from the cache."""
    old_kind = "cached" if cached else "recomputed"
    xs, ys, colors, kinds, steps, poss = [], [], [], [], [], []
    for w in costs.wasted_work_steps(P, T):
        old = w.cached if cached else w.recomputed
        for pos in range(1, w.context + 1):
            kind = old_kind if pos <= old else "new"
            xs.append(pos)
            ys.append(w.step)
            colors.append(PALETTE[kind])
            kinds.append(labels[kind])
            steps.append(str(w.step))
            poss.append(str(pos))
    return dict(x=xs, y=ys, color=colors, kind=kinds, step=steps, pos=poss)


def h3(text: str) -> str:
    return f"<h3>{esc(text)}</h3>"


def _grid_figure(name: str):
    src = ColumnDataSource(dict(x=[], y=[], color=[], kind=[], step=[], pos=[]), name=name)
    fig = figure(height=340, sizing_mode="stretch_width", toolbar_location=None, tools="",
                 x_range=Range1d(0.5, 5.5), y_range=Range1d(16.5, 0.5), min_border_left=40)
    fig.rect("x", "y", width=0.88, height=0.8, fill_color="color", line_color=None, source=src)
    hover = HoverTool(tooltips=[])
    fig.add_tools(hover)
    fig.xgrid.visible = False
    fig.ygrid.visible = False
    fig.outline_line_color = None
    fig.title.text_font_size = "1rem"
    return fig, src, hover


# -- the step ----------------------------------------------------------------------------------

class Step2(StepView):
    number = 2
    tokens = param.Integer(default=presets.STEP2["T"], bounds=presets.STEP2["T_range"],
                           doc="T: tokens generated")
    prompt = param.Integer(default=presets.STEP2["P"], bounds=presets.STEP2["P_range"],
                           doc="P: prompt tokens")
    url_names = {"tokens": "tokens", "prompt": "prompt"}

    def __init__(self, app, **params):
        super().__init__(app, **params)
        self._facts = rt.model_facts(VARIANT)
        # controls
        self._t_slider = pmui.IntSlider.from_param(self.param.tokens, sizing_mode="stretch_width")
        self._p_slider = pmui.IntSlider.from_param(self.param.prompt, sizing_mode="stretch_width")
        self.player = Player(start=T_MIN, end=T_MAX, value=self.tokens, interval=700)
        self.player.param.watch(self._player_moved, "value")
        self.param.watch(self._tokens_moved, "tokens")
        # grids, built once; refresh() only replaces their data, ranges and labels
        self._fig_u, self._src_u, self._hover_u = _grid_figure("step2-uncached")
        self._fig_c, self._src_c, self._hover_c = _grid_figure("step2-cached")
        # question
        self.question = Question(
            prompt=N_("How many K/V projections per layer does generating 16 tokens after a "
                      "5-token prompt need without a cache?"),
            options=["21", "80", "200"], correct=2,
            explain=N_("Step s recomputes all 5 + s − 1 positions: 16 × 5 + 16 × 15 / 2 = "
                       "80 + 120 = 200. With a cache it is 5 + 16 − 1 = 20."))
        # text panes
        self._subtitle = html_pane(css_classes=["step-subtitle"])
        self._legend_u = html_pane()
        self._legend_c = html_pane()
        self._caption_u = html_pane(css_classes=["narration"])
        self._caption_c = html_pane(css_classes=["narration"])
        self._computed = html_pane()
        self._narration = html_pane(css_classes=["narration"])
        self._measured = html_pane()
        self._notice = html_pane()
        self._output = html_pane()
        self._live_facts = html_pane(css_classes=["live-facts"])
        self._vm: dict = {}
        # layout
        col_u = pn.Column(pn.pane.Bokeh(self._fig_u, sizing_mode="stretch_width"),
                          self._legend_u, self._caption_u, sizing_mode="stretch_width")
        col_c = pn.Column(pn.pane.Bokeh(self._fig_c, sizing_mode="stretch_width"),
                          self._legend_c, self._caption_c, sizing_mode="stretch_width")
        grids = pmui.Grid(pmui.Grid(col_u, size={"xs": 12, "md": 6}),
                          pmui.Grid(col_c, size={"xs": 12, "md": 6}),
                          container=True, spacing=2, sizing_mode="stretch_width")
        controls = pmui.Grid(pmui.Grid(self._t_slider, size={"xs": 12, "sm": 6}),
                             pmui.Grid(self._p_slider, size={"xs": 12, "sm": 6}),
                             container=True, spacing=2, sizing_mode="stretch_width")
        self._layout = pn.Column(
            self._subtitle, self.question, controls, self.player, grids, self._computed,
            self._narration, self._notice, self._measured, self._output, self._live_facts,
            sizing_mode="stretch_width")
        if WARM_IN_BACKGROUND:
            warm(self.app.lang)
        self.refresh()

    # -- the player drives `tokens`, and the slider moves the player ---------------------------
    def _player_moved(self, event):
        if event.new != self.tokens:
            self.tokens = event.new

    def _tokens_moved(self, event):
        if self.player.value != event.new:
            self.player.value = event.new

    # -- live runs without blocking a served session --------------------------------------------
    def _live(self, lang: str, P: int):
        """The live runs for (lang, P): at once when ready; outside a server (tests, scripts)
        wait for them; in a served session queue them first and refresh when they arrive.
        A failed run raises its error here."""
        fut = submit_live(lang, P, front=True)
        doc = served_doc()
        if fut.done() or doc is None:
            return fut.result()
        refresh_when_done(fut, doc, lambda: self._arrived(lang, P))
        return None

    def _arrived(self, lang: str, P: int):
        if (lang, P) == (self.app.lang, self.prompt):   # else the learner has moved on
            self.refresh()

    # -- numbers --------------------------------------------------------------------------------
    def view_model(self) -> dict:
        return dict(self._vm)

    def _numbers(self) -> dict:
        tr, P, T = self.tr, self.prompt, self.tokens
        L = self._facts["n_layers"]
        a = costs.kv_projections_without_cache(P, T)
        b = costs.kv_projections_with_cache(P, T)
        r = costs.projection_savings(P, T)
        work = costs.wasted_work_steps(P, T)
        waste = sum(w.recomputed for w in work)
        vm = dict(T=T, P=P, n_layers=L, uncached_n=a, cached_n=b, ratio_x=r, recomputed_n=waste,
                  uncached=tr.int(a), cached=tr.int(b), ratio=tr.times(r, 1),
                  recomputed=tr.int(waste), rows=len(work))
        try:
            live = self._live(self.app.lang, P)
            vm["error"] = None
        except Exception as e:            # the live model failed: say so, keep the formulas
            live, vm["error"] = None, str(e)
        vm["pending"] = live is None and vm["error"] is None
        ids = prompt_ids(self.app.lang, P)
        tok = rt.tokenizer()
        vm["prompt_ids"] = ids
        vm["prompt_text"] = tok.decode(list(ids))
        if live is not None:
            m = live.at(T)
            vm.update(
                measured_uncached_n=m["rows_uncached"], measured_cached_n=m["rows_cached"],
                measured_uncached_all_n=m["rows_uncached_all"],
                measured_cached_all_n=m["rows_cached_all"],
                measured_uncached_layers=m["rows_uncached_layers"],
                measured_cached_layers=m["rows_cached_layers"],
                measured_uncached=tr.int(m["rows_uncached"]),
                measured_cached=tr.int(m["rows_cached"]),
                measured_uncached_all=tr.int(m["rows_uncached_all"]),
                measured_cached_all=tr.int(m["rows_cached_all"]),
                matches=(m["rows_uncached"] == a and m["rows_cached"] == b),
                time_uncached_s=m["time_uncached"], time_cached_s=m["time_cached"],
                time_uncached=tr.seconds(m["time_uncached"]),
                time_cached=tr.seconds(m["time_cached"]),
                ids_uncached=m["ids_uncached"], ids_cached=m["ids_cached"],
                text_uncached=tok.decode(list(m["ids_uncached"])),
                text_cached=tok.decode(list(m["ids_cached"])),
                dlogit_x=m["dlogit"], dlogit=tr.sig(m["dlogit"], 2),
                same=m["same"], same_tokens=tr._("yes") if m["same"] else tr._("no"))
        return vm

    # -- rendering ------------------------------------------------------------------------------
    def refresh(self):
        tr = self.tr
        vm = self._numbers()
        T, P, L = vm["T"], vm["P"], vm["n_layers"]
        if WARM_IN_BACKGROUND:
            warm(self.app.lang)

        # controls, question, player
        self._t_slider.label = tr._("Tokens generated (T)")
        self._p_slider.label = tr._("Prompt length in tokens (P)")
        self.question.render(tr)
        self.player.render(tr, N_("Generated tokens: {i} of {n}"))
        self._subtitle.object = esc(tr._(
            "Without a cache, every step recomputes the keys and values of the whole text so "
            "far. With a cache, each one is computed once."))

        # grids
        labels = {"new": tr._("computed new"), "recomputed": tr._("recomputed"),
                  "cached": tr._("read from cache")}
        data_u = grid_data(P, T, False, labels)
        data_c = grid_data(P, T, True, labels)
        vm["grid_uncached"] = {k: data_u["color"].count(PALETTE[k]) for k in ("new", "recomputed")}
        vm["grid_cached"] = {k: data_c["color"].count(PALETTE[k]) for k in ("new", "cached")}
        width = P + T - 1
        xt, yt = nice_ticks(1, width), nice_ticks(1, T)
        tips = [(tr._("generation step"), "@step"), (tr._("position"), "@pos"), ("", "@kind")]
        titles = (tr._("Without a cache"), tr._("With a cache"))
        x_label, y_label = tr._("position →"), tr._("generation step")

        def update_plots():
            for fig, src, hover, data, title in (
                    (self._fig_u, self._src_u, self._hover_u, data_u, titles[0]),
                    (self._fig_c, self._src_c, self._hover_c, data_c, titles[1])):
                src.data = data
                fig.x_range.update(start=0.5, end=width + 0.5)
                fig.y_range.update(start=T + 0.5, end=0.5)
                fig.title.text = title
                fig.xaxis.axis_label = x_label
                fig.yaxis.axis_label = y_label
                locale_ticks(fig.xaxis[0], xt, tr.int)
                locale_ticks(fig.yaxis[0], yt, tr.int)
                hover.tooltips = tips
        on_doc(update_plots)

        with pn.io.hold():
            self._legend_u.object = legend_html([("new", labels["new"]),
                                                 ("recomputed", labels["recomputed"])])
            self._legend_c.object = legend_html([("new", labels["new"]),
                                                 ("cached", labels["cached"])])
            self._caption_u.object = '<p style="font-size:.9rem">' + esc(tr._(
                "{a} K/V projections per layer, {w} of them recomputed.",
                a=vm["uncached"], w=vm["recomputed"])) + "</p>"
            self._caption_c.object = '<p style="font-size:.9rem">' + esc(tr._(
                "{b} K/V projections per layer; {w} times a stored key and value is read from "
                "the cache instead.", b=vm["cached"], w=vm["recomputed"])) + "</p>"

            # the formula's numbers
            self._computed.object = h3(tr._("The count")) + metrics_html([
                metric(tr._("K/V projections per layer, without a cache"), vm["uncached"],
                       "computed", tr, "uncached"),
                metric(tr._("K/V projections per layer, with a cache"), vm["cached"],
                       "computed", tr, "cached"),
                metric(tr._("Work without a cache, relative to with one"), vm["ratio"],
                       "computed", tr, "ratio"),
            ])

            # narration
            frame = tr.n_(
                "Over {T} step: {a} projections against {b}, {r} times the work, in each of "
                "the live model's {L} layers.",
                "Over {T} steps: {a} projections against {b}, {r} times the work, in each of "
                "the live model's {L} layers.",
                T, T=tr.int(T), a=vm["uncached"], b=vm["cached"], r=tr.num(vm["ratio_x"], 1),
                L=tr.int(L))
            vm["frame_sentence"] = frame
            paras = [
                tr._("Without a cache, generation step s feeds the whole text through the model "
                     "again and recomputes the keys and values of all P + s − 1 positions, "
                     "although only the newest position is new. Over T steps that adds up to "
                     "T·P + T(T−1)/2 projections per layer."),
                tr._("With a cache, the key and value of each position are computed once and "
                     "kept: P + T − 1 projections per layer. The waste grows with the square of "
                     "the length: for long outputs, twice the tokens means about four times "
                     "the recomputation."),
                frame,
                tr._("What the cache does not save: it removes the recomputed projections, not "
                     "the growing cost of attention. Each new query still reads every cached "
                     "key, so each step still costs a little more than the one before."),
            ]
            vm["narration"] = paras
            self._narration.object = "".join(f"<p>{esc(p)}</p>" for p in paras)

            # the live model
            self._render_live(vm)
            f = self._facts
            self._live_facts.object = "<p>" + esc(tr._(
                "Live model: {layers} layers, {heads} attention heads, {kv} key/value heads of "
                "{d} dimensions each, running on {device}.",
                layers=tr.int(f["n_layers"]), heads=tr.int(f["n_heads"]),
                kv=tr.int(f["n_kv_heads"]), d=tr.int(f["head_dim"]),
                device=f["device"])) + "</p>"
        self._vm = vm

    def _render_live(self, vm: dict):
        tr, L = self.tr, vm["n_layers"]
        head = h3(tr._("Measured on the live model"))
        if vm["error"]:
            self._notice.object = '<p class="notice" role="status">' + esc(tr._(
                "The live model could not run: {error}", error=vm["error"])) + "</p>"
            self._measured.object = self._output.object = ""
            return
        if vm["pending"]:
            self._notice.object = '<p class="notice" role="status">' + esc(tr._(
                "The live model is generating {n} tokens after this prompt, with and without "
                "a cache; the measured numbers appear in a moment.", n=tr.int(T_MAX))) + "</p>"
            self._measured.object = head
            self._output.object = ""
            return
        if vm["matches"]:
            self._notice.object = ""
        else:
            self._notice.object = '<p class="notice" role="status">' + esc(tr._(
                "The counts measured in the live model differ from the formulas ({a} and {b}).",
                a=vm["uncached"], b=vm["cached"])) + "</p>"
        counted = tr._(
            "Counted in the live model: {mu} rows went through each layer's key and value "
            "projections without a cache and {mc} with one, the numbers the formulas give; "
            "over all {L} layers that is {tu} against {tc}.",
            mu=vm["measured_uncached"], mc=vm["measured_cached"], L=tr.int(L),
            tu=vm["measured_uncached_all"], tc=vm["measured_cached_all"])
        timing = tr._(
            "The wall times are real but small and noisy: in a model this tiny, the fixed cost "
            "of every step weighs heavily next to the arithmetic.")
        self._measured.object = head + metrics_html([
            metric(tr._("Rows through K/V per layer, without a cache"), vm["measured_uncached"],
                   "measured", tr, "measured_uncached"),
            metric(tr._("Rows through K/V per layer, with a cache"), vm["measured_cached"],
                   "measured", tr, "measured_cached"),
            metric(tr._("All {L} layers, without a cache", L=tr.int(L)),
                   vm["measured_uncached_all"], "measured", tr, "measured_uncached_all"),
            metric(tr._("All {L} layers, with a cache", L=tr.int(L)),
                   vm["measured_cached_all"], "measured", tr, "measured_cached_all"),
            metric(tr._("Wall time without a cache"), vm["time_uncached"], "measured", tr,
                   "time_uncached"),
            metric(tr._("Wall time with a cache"), vm["time_cached"], "measured", tr,
                   "time_cached"),
        ]) + f'<div class="narration"><p>{esc(counted)}</p><p>{esc(timing)}</p></div>'

        if vm["same"]:
            verdict = tr._("The cache does not change the result: both runs chose the same "
                           "tokens, and their logits differ by at most {d}, float rounding.",
                           d=vm["dlogit"])
        else:
            verdict = tr._("The two runs chose different tokens here; their logits differ by "
                           "up to {d}.", d=vm["dlogit"])
        vm["verdict"] = verdict
        box = ('<div style="flex:1 1 16rem;min-width:0;border:1px solid #d9dee3;'
               'border-radius:6px;padding:.3rem .6rem">')
        prompt_label = tr._("Prompt:")
        titles = (tr._("Without a cache"), tr._("With a cache"))
        self._output.object = (
            h3(tr._("Does the cache change the output?"))
            + metrics_html([
                metric(tr._("Same tokens"), vm["same_tokens"], "measured", tr, "same_tokens"),
                metric(tr._("Largest |Δ logit|"), vm["dlogit"], "measured", tr, "dlogit"),
            ])
            + f'<p><strong>{esc(prompt_label)}</strong> '
              f'<span class="mono">{esc(vm["prompt_text"])}</span></p>'
            + '<div style="display:flex;flex-wrap:wrap;gap:.6rem">'
            + f'{box}<strong>{esc(titles[0])}</strong>'
              f'<p class="mono">{esc(vm["text_uncached"])}</p></div>'
            + f'{box}<strong>{esc(titles[1])}</strong>'
              f'<p class="mono">{esc(vm["text_cached"])}</p></div>'
            + f'</div><div class="narration"><p>{esc(verdict)}</p></div>')

    def __panel__(self):
        return self._layout
