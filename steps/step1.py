"""Step 1 — One token at a time: every new query reads all earlier keys.

State: which prompt (an example of the session's language, or free text), the frame (0 = the
prompt only, then one generated token per frame), and which layer/head's attention to draw.
Numbers come from one cached greedy run of the live model; the arcs are its real attention.
"""
from __future__ import annotations

import numpy as np
import panel as pn
import panel_material_ui as pmui
import param
from bokeh.models import ColumnDataSource, HoverTool, Range1d
from bokeh.plotting import figure

from explainer import runtime as rt
from explainer.i18n import N_
from explainer.prompts import PROMPTS
from explainer.tokenizer import UNK

from .common import (PALETTE, Player, Question, StepView, esc, html_pane, legend_html, metric,
                     metrics_html, on_doc)

VARIANT = "mha"
N_NEW = 12            # tokens the player generates: frames 0..N_NEW-1
MAX_PROMPT = 16       # what the arcs can draw legibly
MAX_CHARS = 200


class Step1(StepView):
    number = 1
    example = param.Integer(default=0, bounds=(0, len(PROMPTS["en"]) - 1),
                            doc="index into the language's example prompts")
    text = param.String(default="", doc="free-text prompt; overrides the example")
    frame = param.Integer(default=0, bounds=(0, N_NEW - 1))
    layer = param.Integer(default=0, bounds=(0, 4), doc="0 = average of all layers")
    head = param.Integer(default=0, bounds=(0, 4), doc="0 = average of all heads")
    url_names = {"example": "example", "text": "text", "frame": "frame", "layer": "layer",
                 "head": "head"}

    def __init__(self, app, **params):
        super().__init__(app, **params)
        self.facts = rt.model_facts(VARIANT)
        self._notice_keys: list[tuple] = []
        # -- controls
        self._example = pmui.Select(options={}, width=320)
        self._text = pmui.TextInput(value=self.text, max_length=MAX_CHARS, width=320)
        self._layer = pmui.Select(options={}, width=200)
        self._head = pmui.Select(options={}, width=200)
        self._example.param.watch(self._pick_example, "value")
        self._text.param.watch(self._typed, "value")
        self._layer.param.watch(lambda e: setattr(self, "layer", e.new), "value")
        self._head.param.watch(lambda e: setattr(self, "head", e.new), "value")
        self.player = Player(start=0, end=N_NEW - 1, value=self.frame)
        self.player.param.watch(lambda e: setattr(self, "frame", e.new), "value")
        self.param.watch(lambda e: setattr(self.player, "value", e.new), "frame")
        # -- plot: tokens in a row, arcs from the newest token to every key it reads
        self._tokens = ColumnDataSource(dict(x=[], y=[], text=[], color=[], role=[]),
                                        name="step1-tokens")
        self._arcs = ColumnDataSource(dict(x0=[], y0=[], x1=[], y1=[], cx=[], cy=[], w=[],
                                           alpha=[]), name="step1-arcs")
        self._tops = ColumnDataSource(dict(x=[], y=[], key=[], pct=[], size=[]))
        f = figure(height=260, sizing_mode="stretch_width", toolbar_location=None,
                   x_range=Range1d(-0.7, 6), y_range=Range1d(-0.9, 3.2))
        f.axis.visible = False
        f.grid.visible = False
        f.outline_line_color = None
        f.bezier("x0", "y0", "x1", "y1", "cx", "cy", "cx", "cy", source=self._arcs,
                 line_color=PALETTE["key"], line_width="w", line_alpha="alpha")
        tops = f.scatter("x", "y", size="size", source=self._tops, color=PALETTE["key"],
                         alpha=0.85)
        f.text("x", "y", text="text", source=self._tokens, text_align="center",
               text_baseline="middle", text_font_size="13px", text_color="color", angle=0)
        self._hover = HoverTool(renderers=[tops], tooltips=[])
        f.add_tools(self._hover)
        self._fig = f
        # -- text panes
        self._subtitle = html_pane(css_classes=["step-subtitle"])
        self._notice = html_pane()
        self._chips = html_pane()
        self._legend = html_pane()
        self._metrics = html_pane()
        self._facts = html_pane(css_classes=["live-facts"])
        self._narration = html_pane(css_classes=["narration"])
        self.question = Question(
            N_("The prompt has 5 tokens. When the model adds a 6th token, how many keys does "
               "the new token's query read?"),
            [N_("1"), N_("5"), N_("6")], 2,
            N_("It reads the 5 cached keys of the earlier tokens and its own new key: "
               "6 q·k scores."))
        self._layout = pn.Column(
            self._subtitle, self.question,
            pn.FlexBox(self._example, self._text, gap="8px", sizing_mode="stretch_width"),
            self._notice, self.player, pn.pane.Bokeh(self._fig, sizing_mode="stretch_width"),
            self._legend, pn.FlexBox(self._layer, self._head, gap="8px",
                                     sizing_mode="stretch_width"), self._chips, self._metrics,
            self._facts, self._narration, sizing_mode="stretch_width")
        self.refresh()

    # -- state ---------------------------------------------------------------------------------
    def _pick_example(self, event):
        if event.new is not None and event.new != self.example:
            self.param.update(example=event.new, text="", frame=0)

    def _typed(self, event):
        if event.new != self.text:
            self.param.update(text=event.new, frame=0)

    def prompt_text(self) -> str:
        return self.text.strip() if self.text.strip() else PROMPTS[self.app.lang][self.example]

    def prompt(self):
        """(tokens as the model sees them, ids, notices as (msgid, kwargs)); falls back to the
        language's default prompt when the text cannot run."""
        notices = []
        text = self.prompt_text()
        if len(text) > MAX_CHARS:
            text = text[:MAX_CHARS]
        tok = rt.tokenizer()
        try:
            ids = rt.encode(text)
        except ValueError:
            notices.append((N_("The prompt has no words; showing the example prompt."), {}))
            text = PROMPTS[self.app.lang][0]
            ids = rt.encode(text)
        unknown = tok.unknown(text)
        if unknown:
            notices.append((N_("Not in the live model's vocabulary, so read as {unk}: {words}"),
                            {"unk": UNK, "words": ", ".join(dict.fromkeys(unknown))}))
        if len(ids) > MAX_PROMPT:
            notices.append((N_("Only the first {n} tokens are used, so that every arc can be "
                               "drawn."), {"n": MAX_PROMPT}))
            ids = ids[:MAX_PROMPT]
        return [tok.itos[i] for i in ids], tuple(ids), notices

    def trace(self):
        _, ids, _ = self.prompt()
        return rt.generate(VARIANT, ids, N_NEW)

    # -- numbers from the engine -------------------------------------------------------------
    def weights(self, tr, f: int) -> np.ndarray:
        a = tr.attn[f]                                         # [layers, heads, keys]
        a = a.mean(0) if self.layer == 0 else a[self.layer - 1]
        return a.mean(0) if self.head == 0 else a[self.head - 1]

    def view_model(self) -> dict:
        t = self.tr
        toks, ids, notices = self.prompt()
        tr = rt.generate(VARIANT, ids, N_NEW)
        f = self.frame
        P = len(ids)
        seq = [rt.tokenizer().itos[i] for i in tr.ids[:P + f]]
        nxt = rt.tokenizer().itos[tr.ids[P + f]]
        keys = int(tr.attn[f].shape[-1])                       # keys this query really read
        scores = int(sum(a.shape[-1] for a in tr.attn[:f + 1]))
        return {
            "tokens": seq, "prompt_tokens": P, "next": nxt, "weights": self.weights(tr, f),
            "notices": [t._(m, **{k: (t.int(v) if isinstance(v, int) else v)
                                  for k, v in kw.items()}) for m, kw in notices],
            "seq_len": t.int(len(seq)), "keys_read": t.int(keys), "scores": t.int(scores),
            "seq_len_raw": len(seq), "keys_read_raw": keys, "scores_raw": scores,
        }

    # -- rendering -----------------------------------------------------------------------------
    def refresh(self):
        t = self.tr
        vm = self.view_model()
        lang = self.app.lang
        L, H = self.facts["n_layers"], self.facts["n_heads"]
        # controls
        opts = {ex: i for i, ex in enumerate(PROMPTS[lang])}
        self._example.param.update(label=t._("Example prompt"), options=opts,
                                   value=None if self.text.strip() else self.example)
        self._text.param.update(label=t._("Or type your own prompt"),
                                placeholder=t._("Type a few words, then press Enter"))
        self._layer.param.update(label=t._("Layer"), value=self.layer, options={
            t._("Average of all layers"): 0,
            **{t._("Layer {i}", i=t.int(i)): i for i in range(1, L + 1)}})
        self._head.param.update(label=t._("Head"), value=self.head, options={
            t._("Average of all heads"): 0,
            **{t._("Head {i}", i=t.int(i)): i for i in range(1, H + 1)}})
        self.player.render(t, N_("Generated tokens: {i} of {n}"))
        self.question.render(t)
        subtitle = t._("Every new query reads all earlier keys")
        self._subtitle.object = f"<p>{esc(subtitle)}</p>"
        self._notice.object = "".join(f'<p class="notice" role="status">{esc(n)}</p>'
                                      for n in vm["notices"])
        self._legend.object = legend_html([
            ("query", t._("newest token: its query")),
            ("key", t._("arc: one q·k score; thicker = more attention")),
            ("value", t._("next token the model predicts"))])
        self._render_plot(vm)
        self._render_chips(vm)
        nxt = vm["next"]
        self._metrics.object = metrics_html([
            metric(t._("Sequence length"), vm["seq_len"], "measured", t, "seq_len"),
            metric(t._("Keys read by this query"), vm["keys_read"], "measured", t, "keys_read"),
            metric(t._("Next token"), t._("“{token}”", token=nxt), "measured", t, "next"),
            metric(t._("q·k scores so far"), vm["scores"], "measured", t, "scores"),
        ])
        fct = self.facts
        self._facts.object = "<p>" + esc(t._(
            "Live model: {layers} layers, {heads} heads, d = {d} per head, {params} parameters, "
            "running on {device}.", layers=t.int(fct["n_layers"]), heads=t.int(fct["n_heads"]),
            d=t.int(fct["head_dim"]), params=t.int(fct["n_params"]), device=fct["device"])) + "</p>"
        n, newest = vm["seq_len_raw"], vm["tokens"][-1]
        if self.frame == 0:
            first = t._("The prompt has {n} tokens. The query of “{tok}” reads all {n} keys and "
                        "values and predicts “{next}”.", n=t.int(n), tok=newest, next=nxt)
        else:
            first = t._("Step {s}: “{tok}” was just added. Its query reads {n} keys, {c} of them "
                        "from the cache, and predicts “{next}”.", s=t.int(self.frame),
                        tok=newest, n=t.int(n), c=t.int(n - 1), next=nxt)
        paras = [
            first,
            t._("Press Play, or Step forward to add one token at a time, and watch the arcs "
                "from the newest token. Each arc is one query–key score, q·k/√d, here with "
                "d = {d} per head (the 7B reference model uses 128).", d=t.int(fct["head_dim"])),
            t._("The causal mask is what makes caching safe: a token never looks ahead, so "
                "adding a token never changes the keys and values of earlier positions. In a "
                "bidirectional encoder such as BERT, one new word changes every earlier "
                "representation, so nothing could be reused."),
            t._("The continuation is the live model's own greedy output, computed on this "
                "server with its KV cache."),
        ]
        self._narration.object = "".join(f"<p>{esc(p)}</p>" for p in paras)

    def _render_chips(self, vm):
        t = self.tr
        P = vm["prompt_tokens"]
        chips = []
        for i, tok in enumerate(vm["tokens"]):
            cls = "tok tok-unk" if tok == UNK else "tok"
            role = t._("prompt") if i < P else t._("generated")
            chips.append(f'<span class="{cls}" title="{esc(role)}">{esc(tok)}</span>')
        nxt_label, label = t._("next token"), t._("Tokens")
        chips.append(f'<span class="tok" style="border-style:dashed" '
                     f'title="{esc(nxt_label)}">→ {esc(vm["next"])}</span>')
        self._chips.object = (f'<div class="tokens" aria-label="{esc(label)}">'
                              + "".join(chips) + "</div>")

    def _render_plot(self, vm):
        t = self.tr
        toks, w = vm["tokens"], vm["weights"]
        n = len(toks)
        q = n - 1
        wmax = float(w.max()) if len(w) else 1.0
        xs = list(range(n)) + [n]
        colors = [PALETTE["text"]] * (n - 1) + [PALETTE["query"], PALETTE["value"]]
        token_data = dict(x=xs, y=[0.0] * (n + 1), text=toks + [vm["next"]], color=colors,
                          role=["k"] * (n - 1) + ["q", "next"])
        x0, y0, x1, y1, cx, cy, lw, al = [], [], [], [], [], [], [], []
        tx, ty, tkey, tpct, tsize = [], [], [], [], []
        for k in range(n - 1):
            h = 0.35 + 2.2 * (q - k) / max(1, q)
            x0.append(q); y0.append(0.3); x1.append(k); y1.append(0.3)
            cx.append((q + k) / 2); cy.append(0.3 + h * 1.33)
            lw.append(1 + 9 * float(w[k]) / wmax)
            al.append(0.25 + 0.75 * float(w[k]) / wmax)
            tx.append((q + k) / 2); ty.append(0.3 + h)
            tkey.append(toks[k]); tpct.append(t.pct(float(w[k]), 1))
            tsize.append(5 + 10 * float(w[k]) / wmax)
        # the newest token's score with its own key: a dot above it
        tx.append(q); ty.append(0.45); tkey.append(toks[q]); tpct.append(t.pct(float(w[q]), 1))
        tsize.append(5 + 10 * float(w[q]) / wmax)
        arcs = dict(x0=x0, y0=y0, x1=x1, y1=y1, cx=cx, cy=cy, w=lw, alpha=al)
        tops = dict(x=tx, y=ty, key=tkey, pct=tpct, size=tsize)
        tips = [(t._("key"), "@key"), (t._("attention weight"), "@pct")]
        angle = 0.6 if n > 10 else 0.0

        def apply():
            self._tokens.data = token_data
            self._arcs.data = arcs
            self._tops.data = tops
            self._hover.tooltips = tips
            self._fig.x_range.end = n + 0.7
            for r in self._fig.renderers:
                if hasattr(r.glyph, "angle") and r.data_source is self._tokens:
                    r.glyph.angle = angle

        on_doc(apply)

    def __panel__(self):
        return self._layout
