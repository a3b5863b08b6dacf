"""Step 6 — Shrinking the cache: fewer heads, fewer bits, fewer tokens, no waste.

Part A (computed): the 7B reference model serving 8 sequences of 16,384 tokens; choose KV heads
(MHA / GQA / MQA), cache precision (fp16, fp8, int8, int4, scales counted) and a sliding
window; every byte comes from `costs.shrink`.
Part B (measured): paged memory on a real block pool of the live model (`rt.paged_demo`),
one frame per event, against reserving the maximum context per request (computed).
Part C (measured): the same three choices run for real on the live model
(`rt.variant_effect`): true bytes, top-1 agreement and max |Δ logit| against the exact cache.

The live runs are slow on a busy CPU, so they go to one background worker thread per process
(shared by all sessions, deduplicated by key, the current setting first); a control change is
a lookup, and a setting still being measured shows the previous result with a notice until
its numbers arrive.
"""
from __future__ import annotations

from concurrent.futures import Future
from functools import lru_cache

import panel as pn
import panel_material_ui as pmui
import param
from bokeh.models import ColumnDataSource, HoverTool, LabelSet, Range1d
from bokeh.plotting import figure

from explainer import costs, presets
from explainer import runtime as rt
from explainer.i18n import N_, UNITS, auto_unit
from explainer.prompts import PROMPTS
from steps.live import JOBS, refresh_when_done, served_doc
from steps.common import (PALETTE, Player, Question, StepView, esc, html_pane, legend_html,
                          locale_ticks, metric, metrics_html, on_doc)

# -- state ------------------------------------------------------------------------------------

D = presets.STEP6
REF = presets.MODELS[D["model"]]                  # Llama 2 7B: 32 layers, 32 heads, 128 dims
BATCH, CONTEXT = D["batch"], D["context"]          # 8 sequences × 16,384 tokens
KV_CHOICES = tuple(presets.SHRINK_KV_HEADS)        # (32, 8, 1)
PRECISION_CHOICES = tuple(presets.SHRINK_PRECISIONS)
WINDOW_CHOICES = tuple(0 if w is None else w for w in presets.SHRINK_WINDOWS)   # 0 = full

# the same choices on the live model
LIVE_VARIANT = {32: "mha", 8: "gqa", 1: "mqa"}     # 7B KV heads -> live variant
LIVE_KIND = {"fp16": "fp16", "fp8": "fp16", "int8": "int8", "int4": "int4"}  # fp8: none live
PROMPT_INDEX = 3                                   # PROMPTS[lang][3]: a passage start
PROMPT_TOKENS = 16                                 # at most this many prompt tokens
N_NEW = 32                                         # generated tokens

# paged demo: rt.paged_demo's defaults (prefix prefill, 3 × (fork + own words), prefix freed,
# 6 decode rounds of 3 requests, 3 requests freed)
PAGED_VARIANT = "mha"
PAGED_FRAMES = 1 + 3 * 2 + 1 + 6 * 3 + 3
POOL_COLS = 8
SEQ_COLOR = {"prefix": "cached", "A": "value", "B": "query", "C": "recomputed"}

KWON_LO, KWON_HI = 0.204, 0.382                    # share of reserved KV memory really used
H2O_SHARE, H2O_SPEEDUP = 0.20, 29

QUESTION = dict(
    prompt=N_("Switching the 7B model from 32 KV heads (MHA) to 8 (GQA) at fp16: how much "
              "smaller is the cache?"),
    options=[N_("2×"), N_("4×"), N_("32×")],
    correct=1,
    explain=N_("The cache holds one key and one value vector per KV head, so its size follows "
               "the number of KV heads: 32 ÷ 8 = 4. The 512 KiB per token become 128 KiB, the "
               "same as Llama 3 8B, which was trained with 8 KV heads."),
)




@lru_cache(maxsize=None)
def prompt_ids(lang: str) -> tuple:
    """The live prompt of Part C: the language's passage start, at most 16 tokens."""
    return rt.encode(PROMPTS[lang][PROMPT_INDEX])[:PROMPT_TOKENS]


def live_window(window: int, prompt_len: int) -> int | None:
    """The 7B window scaled to the live run: the same share of its positions that `window`
    is of the 7B context (4,096 of 16,384 → a quarter of 16 + 32 = 48 → 12)."""
    if not window:
        return None
    return max(1, round(window * (prompt_len + N_NEW) / CONTEXT))


def live_setting(kv_heads: int, precision: str, window: int, lang: str) -> tuple:
    """(ids, variant, cache kind, W) of the live run for a Part A setting."""
    ids = prompt_ids(lang)
    W = live_window(window, len(ids))
    kind = "window" if W else LIVE_KIND[precision]
    return ids, LIVE_VARIANT[kv_heads], kind, W


def _measure(ids: tuple, variant: str, kind: str, W: int | None) -> dict:
    """One live measurement (runs on the worker): the runtime caches both runs."""
    eff = rt.variant_effect(variant, ids, N_NEW, kind, W)
    exact = rt.generate(variant, ids, N_NEW, "fp32", record_kv=False)
    tok = rt.tokenizer()
    return dict(effect=eff, text=tok.decode(list(eff.tokens)),
                exact_text=tok.decode(list(exact.new_ids)),
                prompt_text=tok.decode(list(ids)))


def submit_live(key: tuple, front: bool = False) -> Future:
    return JOBS.submit(("step6-live",) + key, lambda: _measure(*key), front)


def submit_paged(front: bool = False) -> Future:
    return JOBS.submit(("step6-paged", PAGED_VARIANT), lambda: rt.paged_demo(PAGED_VARIANT),
                       front)


def precompute(lang: str):
    """Queue every live combination a control can reach in this language (cheap if done)."""
    for kv in KV_CHOICES:
        for prec in ("fp16", "int8", "int4"):
            submit_live(live_setting(kv, prec, 0, lang))
        for w in WINDOW_CHOICES:
            if w:
                submit_live(live_setting(kv, "fp16", w, lang))


class Step6(StepView):
    number = 6

    kv_heads = param.Selector(default=D["kv_heads"], objects=list(KV_CHOICES),
                              doc="key/value heads of the 7B reference: 32 MHA, 8 GQA, 1 MQA")
    precision = param.Selector(default=D["precision"], objects=list(PRECISION_CHOICES),
                               doc="storage of the cached values")
    window = param.Selector(default=0 if D["window"] is None else D["window"],
                            objects=list(WINDOW_CHOICES),
                            doc="sliding window in tokens; 0 = full context")
    frame = param.Integer(default=0, bounds=(0, PAGED_FRAMES - 1),
                          doc="event of the paged-memory animation")

    url_names = {"kv_heads": "heads", "precision": "precision", "window": "window",
                 "frame": "frame"}

    def __init__(self, app, **params):
        super().__init__(app, **params)
        self._doc = served_doc()
        self._last_live = None          # the last live result shown (kept while measuring)
        self._waiting = set()           # futures this view waits for
        self._a_key = None

        # work for the background thread, the current setting first
        submit_paged(front=True)
        submit_live(self._live_key(), front=True)
        precompute(app.lang)

        # -- widgets -----------------------------------------------------------------------
        kw = dict(size="small", sizing_mode="stretch_width")
        self._w_kv = pmui.RadioButtonGroup(options={}, value=self.kv_heads, **kw)
        self._w_prec = pmui.RadioButtonGroup(options={}, value=self.precision, **kw)
        self._w_win = pmui.RadioButtonGroup(options={}, value=self.window, **kw)
        for w, name in ((self._w_kv, "kv_heads"), (self._w_prec, "precision"),
                        (self._w_win, "window")):
            w.param.watch(lambda e, name=name: self._picked(name, e.new), "value")
        controls = pn.FlexBox(
            *(pn.Column(w, min_width=220, sizing_mode="stretch_width",
                        styles={"flex": "1 1 220px"})
              for w in (self._w_kv, self._w_prec, self._w_win)),
            sizing_mode="stretch_width")
        self.player = Player(start=0, end=PAGED_FRAMES - 1, value=self.frame, interval=1100)
        self.player.param.watch(lambda e: setattr(self, "frame", e.new), "value")
        self.question = Question(**QUESTION)

        # -- Part A: baseline vs this setting, GB --------------------------------------------
        self._bar_src = ColumnDataSource(dict(y=[], right=[], color=[], label=[], tx=[],
                                              name=[]))
        bar = figure(height=150, sizing_mode="stretch_width", toolbar_location=None,
                     x_range=Range1d(0, 100), y_range=Range1d(-0.6, 1.6), tools="",
                     min_border_left=4, min_border_right=8, frame_align=False)
        bars = bar.hbar(y="y", left=0, right="right", height=0.6, fill_color="color",
                        line_color=None, source=self._bar_src)
        bar.add_layout(LabelSet(x="tx", y="y", text="label", source=self._bar_src,
                                x_offset=4, text_font_size="12px", text_baseline="middle",
                                text_color=PALETTE["text"]))
        bar.ygrid.visible = False
        bar.yaxis.major_tick_line_color = None
        self._bar_hover = HoverTool(renderers=[bars])
        bar.add_tools(self._bar_hover)
        self._bar = bar

        # -- Part B: the physical block pool ------------------------------------------------
        self._pool_src = ColumnDataSource(dict(x=[], y=[], fill=[], alpha=[], line=[],
                                               hatch=[], id=[], owners=[], fill_text=[],
                                               shared=[], tx_id=[], tx_sh=[], ty=[]),
                                         name="step6-pool")
        self._slot_src = ColumnDataSource(dict(x=[], y=[], fill=[], line=[]))
        self._changed_src = ColumnDataSource(dict(x=[], y=[]))
        rows = -(-24 // POOL_COLS)
        pool = figure(height=60 + 52 * rows, sizing_mode="stretch_width",
                      toolbar_location=None, tools="",
                      x_range=Range1d(-0.55, POOL_COLS - 0.45),
                      y_range=Range1d(-(rows - 1) - 0.6, 0.6),
                      min_border_left=4, min_border_right=4, frame_align=False)
        pool.axis.visible = False
        pool.grid.visible = False
        pool.outline_line_color = None
        cells = pool.rect("x", "y", 0.92, 0.92, source=self._pool_src, fill_color="fill",
                          fill_alpha="alpha", line_color="line", line_width=1.5,
                          hatch_pattern="hatch", hatch_color=PALETTE["text"], hatch_alpha=0.22,
                          hatch_scale=8)
        pool.rect("x", "y", 0.17, 0.3, source=self._slot_src, fill_color="fill",
                  line_color="line", line_width=1)
        pool.rect("x", "y", 0.98, 0.98, source=self._changed_src, fill_alpha=0,
                  line_color=PALETTE["new"], line_width=3)
        pool.text("tx_id", "ty", text="id", source=self._pool_src, text_font_size="10px",
                  text_baseline="middle", text_color=PALETTE["text"])
        pool.text("tx_sh", "ty", text="shared", source=self._pool_src, text_font_size="10px",
                  text_font_style="bold", text_align="right", text_baseline="middle",
                  text_color=PALETTE["text"])
        self._pool_hover = HoverTool(renderers=[cells])
        pool.add_tools(self._pool_hover)
        self._pool = pool

        # -- text panes -----------------------------------------------------------------------
        self._subtitle = html_pane(css_classes=["step-subtitle"])
        self._head_a = html_pane()
        self._heads = html_pane()
        self._metrics_a = html_pane()
        self._formula = html_pane(css_classes=["live-facts"])
        self._bar_caption = html_pane()
        self._bar_legend = html_pane()
        self._narr_a = html_pane(css_classes=["narration"])
        self._head_b = html_pane()
        self._narr_b = html_pane(css_classes=["narration"])
        self._caption = html_pane()
        self._pool_legend = html_pane()
        self._tables = html_pane()
        self._metrics_b = html_pane()
        self._metrics_res = html_pane()
        self._notice_b = html_pane()
        self._head_c = html_pane()
        self._mapping = html_pane(css_classes=["narration"])
        self._notice_c = html_pane()
        self._metrics_c = html_pane()
        self._texts_c = html_pane(css_classes=["narration"])
        self._facts = html_pane(css_classes=["live-facts"])

        self._layout = pn.Column(
            self._subtitle, self.question,
            self._head_a, controls, self._heads, self._metrics_a, self._formula,
            self._bar_caption, pn.pane.Bokeh(bar, sizing_mode="stretch_width"),
            self._bar_legend, self._narr_a,
            self._head_b, self._narr_b, self.player, self._caption,
            pn.pane.Bokeh(pool, sizing_mode="stretch_width"), self._pool_legend,
            self._tables, self._metrics_b, self._metrics_res, self._notice_b,
            self._head_c, self._mapping, self._notice_c, self._metrics_c, self._texts_c,
            self._facts,
            sizing_mode="stretch_width", css_classes=["step", "step-6"])
        self._built = True
        self.refresh()

    def _picked(self, name, value):
        if value is not None and value != getattr(self, name):
            setattr(self, name, value)

    # ==========================================================================================
    # numbers from the engine
    # ==========================================================================================

    def _bin(self, n: float) -> str:
        """Binary units, exact when a few decimals say it all ("512 KiB", "64 GiB",
        "4.125 KiB", "32.5 GiB"), else three significant figures."""
        unit = auto_unit(n, binary=True)
        value = n / UNITS[unit]
        for digits in range(4):
            if abs(round(value, digits) - value) < 1e-9:
                return self.tr.bytes(n, unit, digits)
        return f"{self.tr.sig(value, 3)}\u00a0{unit}"

    def _dec(self, n: float) -> str:
        """Decimal units, one decimal: "68.7 GB", "537.4 MB"."""
        return self.tr.bytes(n, "auto", 1)

    def _factor(self, x: float) -> str:
        """"4×", "32×" for whole factors; three significant figures otherwise: "1.97×"."""
        if abs(x - round(x)) < 1e-9:
            return self.tr.times(x, 0)
        return self.tr.sig(x, 3) + "×"

    def part_a(self) -> dict:
        """The 7B reference: bytes of this setting next to the MHA fp16 full baseline."""
        win = self.window or None
        r = costs.shrink(REF, BATCH, CONTEXT, n_kv_heads=self.kv_heads,
                         precision=self.precision, window=win)
        prec = presets.PRECISIONS[self.precision]
        vectors = 2 * REF.n_layers * self.kv_heads           # K and V head vectors per token
        scales = costs.scale_bytes_per_token(REF, self.precision, self.kv_heads)
        fp16_vec = costs.kv_bytes_per_token(REF, "fp16", self.kv_heads) // vectors
        vec = r.kv_per_token // vectors
        return dict(
            result=r, per_token=r.kv_per_token, tokens_kept=r.tokens_kept, bytes=r.bytes,
            baseline=r.baseline_bytes, factor=r.factor,
            baseline_per_token=costs.kv_bytes_per_token(REF, "fp16", REF.n_heads),
            scales_per_token=scales, scale_vec=scales // vectors, vec=vec,
            values_vec=vec - scales // vectors, fp16_vec=fp16_vec,
            precision_factor=fp16_vec / vec, ideal_factor=16 / prec.bits,
            quantized=prec.quantized, group=REF.n_heads // self.kv_heads,
            weights=costs.weight_bytes(REF),
        )

    def _live_key(self) -> tuple:
        return live_setting(self.kv_heads, self.precision, self.window, self.app.lang)

    def _result(self, fut: Future):
        """A finished future's value (blocking when no server session is running: tests and
        scripts), else None and a later re-render when it is done."""
        if self._doc is None:
            return fut.result()
        if fut.done():
            return fut.result()
        if fut not in self._waiting:
            self._waiting.add(fut)
            fut.add_done_callback(self._waiting.discard)
            refresh_when_done(fut, self._doc, self.refresh)
        return None

    def part_b(self) -> dict | None:
        """The paged pool at the current frame (None while the live run is being made)."""
        try:
            frames = self._result(submit_paged(front=True))
        except Exception as exc:
            return dict(error=str(exc))
        if frames is None:
            return None
        i = min(self.frame, len(frames) - 1)
        f = frames[i]
        prev = frames[i - 1] if i > 0 else None
        facts = rt.model_facts(PAGED_VARIANT)
        live = rt.live_preset(PAGED_VARIANT)
        n_req = len(f.tables)
        tokens = sum(f.lengths.values())
        max_len = facts["max_len"]
        reserved = (costs.kv_cache_bytes(live, max_len, batch=n_req, precision="fp32")
                    if n_req else 0)
        s = f.stats
        block_size = self._block_size(frames)
        return dict(
            frames=frames, index=i, frame=f, prev=prev, stats=s, n_frames=len(frames),
            n_requests=n_req, tokens=tokens, max_len=max_len, reserved=reserved,
            reserved_share=(tokens / (n_req * max_len)) if n_req else None,
            paged_share=(s["slots_used"] / (s["blocks_used"] * block_size))
            if s["blocks_used"] else None,
            block_size=block_size, nbytes=f.nbytes,
            block_nbytes=costs.kv_bytes_per_token(live, "fp32") * block_size,
        )

    @staticmethod
    def _block_size(frames) -> int:
        for fr in frames:
            s = fr.stats
            if s["blocks_used"]:
                return (s["slots_used"] + s["slots_wasted"]) // s["blocks_used"]
        return 1

    def part_c(self) -> dict:
        """The live measurement of this setting (or the last one while it is measured)."""
        key = self._live_key()
        base_key = live_setting(32, "fp16", 0, self.app.lang)     # MHA fp16 full, live
        try:
            res = self._result(submit_live(key, front=True))
            base = self._result(submit_live(base_key, front=res is not None))
        except Exception as exc:
            return dict(error=str(exc), key=key, pending=False)
        pending = res is None or base is None
        if pending:
            if self._last_live is None:
                return dict(key=key, pending=True, shown=None)
            shown_key, res, base = self._last_live
        else:
            shown_key = key
            self._last_live = (key, res, base)
        ids, variant, kind, W = shown_key
        e = res["effect"]
        return dict(
            key=key, pending=pending, shown=shown_key, ids=ids, variant=variant, kind=kind,
            W=W, effect=e, nbytes=e.nbytes, exact_nbytes=e.exact_nbytes,
            factor_exact=e.exact_nbytes / e.nbytes, base_nbytes=base["effect"].nbytes,
            factor_base=base["effect"].nbytes / e.nbytes, top1=e.top1_agreement,
            dlogit=e.max_abs_dlogit, text=res["text"], exact_text=res["exact_text"],
            prompt_text=res["prompt_text"], facts=rt.model_facts(variant),
            cached_tokens=len(ids) + N_NEW - 1,
        )

    def view_model(self) -> dict:
        tr = self.tr
        a = self.part_a()
        vm = dict(
            per_token=self._bin(a["per_token"]),
            tokens_kept=tr.int(a["tokens_kept"]),
            cache_gb=tr.bytes(a["bytes"], "GB", 1) if a["bytes"] >= 1e9 else self._dec(a["bytes"]),
            cache_gib=self._bin(a["bytes"]),
            factor=self._factor(a["factor"]),
            baseline_gb=tr.bytes(a["baseline"], "GB", 1),
            baseline_gib=self._bin(a["baseline"]),
            baseline_per_token=self._bin(a["baseline_per_token"]),
            scales_per_token=(self._bin(a["scales_per_token"]) if a["scales_per_token"]
                              else tr.bytes(0, "B")),
            precision_factor=self._factor(a["precision_factor"]),
            heads_line=self._heads_line(a),
            raw_a=a,
        )
        b = self.part_b()
        vm["raw_b"] = b
        if b and "error" not in b:
            s = b["stats"]
            vm.update(
                frame_caption=self._caption_text(b),
                blocks_used=tr._("{used} of {total}", used=tr.int(s["blocks_used"]),
                                 total=tr.int(s["blocks_total"])),
                slots_wasted=tr.int(s["slots_wasted"]),
                sharing_saved=tr.int(s["sharing_saved"]),
                copies_on_write=tr.int(s["copies_on_write"]),
                bytes_in_use=self._bin(b["nbytes"]) if b["nbytes"] else tr.bytes(0, "B"),
                reserved=self._bin(b["reserved"]) if b["reserved"] else tr.bytes(0, "B"),
                reserved_share=(tr.pct(b["reserved_share"], 1)
                                if b["reserved_share"] is not None else "–"),
                paged_share=(tr.pct(b["paged_share"], 0)
                             if b["paged_share"] is not None else "–"),
                tables={sid: list(t) for sid, t in b["frame"].tables.items()},
            )
        c = self.part_c()
        vm["raw_c"] = c
        vm["live_pending"] = bool(c.get("pending"))
        if c.get("shown"):
            vm.update(
                live_variant=c["variant"], live_kind=c["kind"], live_window=c["W"],
                live_bytes=self._bin(c["nbytes"]), live_exact_bytes=self._bin(c["exact_nbytes"]),
                live_factor_exact=self._factor(c["factor_exact"]),
                live_factor_base=self._factor(c["factor_base"]),
                live_top1=tr.pct(c["top1"], 0), live_dlogit=tr.sig(c["dlogit"], 3),
                live_text=c["text"], live_exact_text=c["exact_text"],
            )
        return vm

    # ==========================================================================================
    # texts built from the numbers
    # ==========================================================================================

    def _heads_line(self, a) -> str:
        tr, q, kv = self.tr, REF.n_heads, self.kv_heads
        if kv == q:
            return tr._("{q} query heads, {kv} key/value heads: each query head has its own "
                        "(MHA)", q=tr.int(q), kv=tr.int(kv))
        if kv == 1:
            return tr._("{q} query heads share 1 key/value head (MQA)", q=tr.int(q))
        return tr._("{q} query heads share {kv} key/value heads: {g} per group (GQA)",
                    q=tr.int(q), kv=tr.int(kv), g=tr.int(a["group"]))

    def _seq_name(self, sid: str) -> str:
        if sid == "prefix":
            return self.tr._("Shared prefix")
        return self.tr._("Request {name}", name=sid)

    def _caption_text(self, b) -> str:
        tr, f, prev = self.tr, b["frame"], b["prev"]
        sid = f.seq
        table = f.tables.get(sid, ())
        if f.event == "prefill" and sid == "prefix":
            return tr.n_("The shared prefix ({t} tokens) is prefilled once, into {count} block.",
                         "The shared prefix ({t} tokens) is prefilled once, into {count} blocks.",
                         len(table), t=tr.int(f.lengths[sid]), count=tr.int(len(table)))
        if f.event == "fork":
            return tr.n_("Request {name} shares the prefix's {count} block: nothing is copied, "
                         "its reference count goes up.",
                         "Request {name} shares the prefix's {count} blocks: nothing is copied, "
                         "their reference counts go up.",
                         len(table), name=sid, count=tr.int(len(table)))
        if f.event == "prefill":
            before = prev.tables.get(sid, ()) if prev else ()
            new = len([x for x in table if x not in before])
            words = f.lengths[sid] - (prev.lengths.get(sid, 0) if prev else 0)
            copies = f.stats["copies_on_write"] - (prev.stats["copies_on_write"] if prev else 0)
            if copies:
                return tr.n_("Request {name} writes its own {t} words. The prefix's last block "
                             "is only partly filled and shared, so it is copied first (copy on "
                             "write): {count} new block in all.",
                             "Request {name} writes its own {t} words. The prefix's last block "
                             "is only partly filled and shared, so it is copied first (copy on "
                             "write): {count} new blocks in all.",
                             new, name=sid, t=tr.int(words), count=tr.int(new))
            return tr.n_("Request {name} writes its own {t} words into {count} new block.",
                         "Request {name} writes its own {t} words into {count} new blocks.",
                         new, name=sid, t=tr.int(words), count=tr.int(new))
        if f.event == "decode":
            grew = prev is not None and len(table) > len(prev.tables.get(sid, ()))
            if grew:
                return tr._("A new block for request {name}: its last block was full, so "
                            "token {t} starts block {b}.", name=sid,
                            t=tr.int(f.lengths[sid]), b=tr.int(table[-1]))
            return tr._("Request {name} writes token {t} into a free slot of its last block "
                        "{b}: no new memory.", name=sid, t=tr.int(f.lengths[sid]),
                        b=tr.int(table[-1]))
        if f.event == "free":
            held = prev.tables.get(sid, ()) if prev else ()
            freed = (prev.stats["blocks_used"] - f.stats["blocks_used"]) if prev else 0
            if sid == "prefix":
                return tr.n_("The prefix request itself is done: {count} block that only it held "
                             "goes back to the pool; the blocks other requests share stay.",
                             "The prefix request itself is done: {count} blocks that only it held "
                             "go back to the pool; the blocks other requests share stay.",
                             freed, count=tr.int(freed))
            if freed == len(held):
                return tr.n_("Request {name} finished: its {count} block is freed.",
                             "Request {name} finished: its {count} blocks are freed.",
                             freed, name=sid, count=tr.int(freed))
            return tr._("Request {name} finished: {n} of its {m} blocks are freed; a block "
                        "still shared only loses one owner.", name=sid, n=tr.int(freed),
                        m=tr.int(len(held)))
        return ""

    # ==========================================================================================
    # rendering
    # ==========================================================================================

    def refresh(self):
        if not getattr(self, "_built", False):
            return
        tr = self.tr
        precompute(self.app.lang)
        vm = self.view_model()
        self._render_controls()
        self.question.render(tr)
        self._subtitle.object = "<p>{}</p>".format(esc(tr._(
            "Fewer heads, fewer bits, fewer tokens, no waste: four ways to make the cache "
            "smaller, first computed for a 7B model, then run for real on the live model.")))
        self._render_a(vm)
        self._render_b(vm)
        self._render_c(vm)

    def _render_controls(self):
        tr = self.tr
        self._w_kv.label = tr._("Key/value heads ({model})", model=REF.name)
        self._w_kv.param.update(
            options={tr._("{kind} ({n})", kind=presets.SHRINK_KV_HEAD_LABELS[k],
                          n=tr.int(k)): k for k in KV_CHOICES},
            value=self.kv_heads)
        self._w_prec.label = tr._("Cache precision")
        self._w_prec.param.update(options={p: p for p in PRECISION_CHOICES},
                                  value=self.precision)
        self._w_win.label = tr._("Sliding window")
        self._w_win.param.update(
            options={(tr._("Full context") if not w else
                      tr.n_("{count} token", "{count} tokens", w, count=tr.int(w))): w
                     for w in WINDOW_CHOICES},
            value=self.window)
        if self.player.value != self.frame:
            self.player.value = self.frame
        self.player.render(tr, N_("Event {i} of {n}"))

    # -- Part A ---------------------------------------------------------------------------------

    def _render_a(self, vm):
        tr, a = self.tr, vm["raw_a"]
        self._head_a.object = "<h3>{}</h3><p>{}</p>".format(
            esc(tr._("A. Four ways to shrink it, computed for {model}", model=REF.name)),
            esc(tr._("{b} sequences of {ctx} tokens each. Baseline: full multi-head attention "
                     "({h} key/value heads), fp16, the whole context kept.",
                     b=tr.int(BATCH), ctx=tr.int(CONTEXT), h=tr.int(REF.n_heads))))

        # query heads -> KV heads, one group per KV head
        g = a["group"]
        chip = ('<span style="display:inline-block;width:7px;height:12px;border-radius:2px;'
                f'background:{PALETTE["query"]}"></span>')
        groups = "".join(
            '<span style="display:inline-flex;flex-direction:column;gap:2px">'
            f'<span style="display:inline-flex;gap:1px">{chip * g}</span>'
            f'<span style="display:block;height:10px;border-radius:2px;'
            f'background:{PALETTE["key"]}"></span></span>'
            for _ in range(self.kv_heads))
        line = vm["heads_line"]
        self._heads.object = (
            f'<p><strong>{esc(line)}</strong></p>'
            f'<div role="img" aria-label="{esc(line)}" style="display:flex;flex-wrap:wrap;'
            f'gap:3px;margin:.2rem 0">{groups}</div>'
            + legend_html([("query", tr._("Query head")),
                           ("key", tr._("Key/value head (cached)"))]))

        cards = [
            metric(tr._("Cache per token (K and V, {L} layers)", L=tr.int(REF.n_layers)),
                   vm["per_token"], "computed", tr, "per_token"),
            metric(tr._("Tokens kept in the cache, per sequence"), vm["tokens_kept"],
                   "computed", tr, "tokens_kept"),
            metric(tr._("Cache for {b} sequences (GB = 10⁹ bytes)", b=tr.int(BATCH)),
                   vm["cache_gb"], "computed", tr, "cache_gb"),
            metric(tr._("The same in binary units"), vm["cache_gib"], "computed", tr,
                   "cache_gib"),
            metric(tr._("Smaller than the baseline"), vm["factor"], "computed", tr, "factor"),
            metric(tr._("Of the bytes per token: quantization scales"), vm["scales_per_token"],
                   "computed", tr, "scales_per_token"),
        ]
        self._metrics_a.object = metrics_html(cards)

        formula = tr._("{per} per token × {tok} tokens × {b} sequences = {gb} ({gib}); the "
                       "baseline is {base} ({base_gib}).", per=vm["per_token"],
                       tok=vm["tokens_kept"], b=tr.int(BATCH), gb=vm["cache_gb"],
                       gib=vm["cache_gib"], base=vm["baseline_gb"], base_gib=vm["baseline_gib"])
        p = self.precision
        if a["quantized"]:
            prec = tr._("{p}: each cached head vector of {d} values takes {vals} B of values "
                        "plus one fp16 scale of {s} B, {tot} B in all instead of {fp16} B in "
                        "fp16. That is {f} smaller, not {ideal}: the scales cost {scales} per "
                        "token.", p=p, d=tr.int(REF.head_dim), vals=tr.int(a["values_vec"]),
                        s=tr.int(a["scale_vec"]), tot=tr.int(a["vec"]),
                        fp16=tr.int(a["fp16_vec"]), f=vm["precision_factor"],
                        ideal=self._factor(a["ideal_factor"]), scales=vm["scales_per_token"])
        elif p == "fp8":
            prec = tr._("fp8: one byte per value. Its scale is one number per tensor, a few "
                        "bytes per layer whatever the length, so it is left out: exactly {f} "
                        "smaller than fp16.", f=vm["precision_factor"])
        else:
            prec = tr._("fp16: two bytes per value and no scales, as in the baseline.")
        if self.window:
            win = tr._("Window of {w} tokens: each sequence keeps only its last {w} of {ctx} "
                       "tokens.", w=tr.int(self.window), ctx=tr.int(CONTEXT))
        else:
            win = tr._("Full context: every one of the {ctx} tokens stays in the cache.",
                       ctx=tr.int(CONTEXT))
        self._formula.object = "".join(f"<p>{esc(t)}</p>" for t in (formula, prec, win))

        # the bar chart
        self._bar_caption.object = "<p><strong>{}</strong></p>".format(esc(tr._(
            "Cache of {b} sequences × {ctx} tokens, {model}, in GB (10⁹ bytes)",
            b=tr.int(BATCH), ctx=tr.int(CONTEXT), model=REF.name)))
        base_gb, this_gb = a["baseline"] / 1e9, a["bytes"] / 1e9
        names = [tr._("Baseline"), tr._("This setting")]
        data = dict(y=[1, 0], right=[base_gb, this_gb],
                    color=[PALETTE["muted"], PALETTE["cached"]],
                    label=[f'{vm["baseline_gb"]} (1×)',
                           tr._("{size} ({f} smaller)", size=vm["cache_gb"], f=vm["factor"])],
                    tx=[base_gb, this_gb], name=names)
        ticks = [0, 20, 40, 60, 80]
        tips = [(tr._("Setting"), "@name"), (tr._("Cache"), "@label")]
        xlabel = tr._("Cache size (GB)")
        labels = {1: names[0], 0: names[1]}

        def apply():
            self._bar_src.data = data
            locale_ticks(self._bar.xaxis, ticks, lambda v: tr.int(v))
            locale_ticks(self._bar.yaxis, [0, 1], lambda i: labels[i])
            self._bar.xaxis.axis_label = xlabel
            self._bar_hover.tooltips = tips
        key = (self.kv_heads, self.precision, self.window, tr.lang)
        if key != self._a_key:          # the player's ticks leave this chart alone
            self._a_key = key
            on_doc(apply)
        span = (tr._("full context") if not self.window
                else tr._("window {w}", w=tr.int(self.window)))
        self._bar_legend.object = legend_html([
            ("muted", tr._("Baseline: MHA, fp16, full context")),
            ("cached", tr._("This setting: {kind}, {p}, {w}",
                            kind=presets.SHRINK_KV_HEAD_LABELS[self.kv_heads], p=p, w=span))])

        paras = [
            tr._("Multi-query attention (MQA, Shazeer 2019) lets all query heads read one "
                 "shared key/value head. Grouped-query attention (GQA, Ainslie et al. 2023) "
                 "sits in between: the query heads form a few groups, and each group shares "
                 "one key/value head. Llama 2 70B uses 8 key/value heads for its 64 query "
                 "heads; Llama 2 7B keeps full multi-head attention with 32."),
            tr._("The number of key/value heads, like a sliding window (Mistral 7B attends "
                 "to the last {w} tokens), is an architecture choice made before or during "
                 "training: the model learns to work with it. A lower-precision cache (int8 "
                 "or less) is different: it can be switched on when serving an existing "
                 "model, at a small cost in accuracy.", w=tr.int(presets.MODELS["mistral-7b"]
                                                                   .window)),
            tr._("Tokens can also be dropped by importance rather than by age: H2O (Zhang "
                 "et al. 2023) keeps the “heavy hitter” tokens that collect most of the "
                 "attention, plus the most recent ones. With {share} heavy hitters it "
                 "reported up to {x} higher throughput.", share=tr.pct(H2O_SHARE),
                 x=tr.times(H2O_SPEEDUP, 0)),
            tr._("For scale: the baseline cache of {gb} is {r} times the {w} of the model's "
                 "fp16 weights.", gb=vm["baseline_gb"],
                 r=tr.num(a["baseline"] / a["weights"], 1), w=tr.bytes(a["weights"], "GB", 1)),
        ]
        self._narr_a.object = "".join(f"<p>{esc(t)}</p>" for t in paras)

    # -- Part B ---------------------------------------------------------------------------------

    def _render_b(self, vm):
        tr, b = self.tr, vm["raw_b"]
        self._head_b.object = "<h3>{}</h3>".format(esc(tr._(
            "B. No waste: paged memory on the live model")))
        self._narr_b.object = "".join(f"<p>{esc(t)}</p>" for t in (
            tr._("PagedAttention (vLLM, Kwon et al. 2023) removes another waste. Instead of "
                 "reserving one buffer per request for the longest sequence it might reach, "
                 "the cache is cut into fixed-size blocks taken from a shared pool only when "
                 "a sequence needs them. A block table maps each sequence's blocks to "
                 "physical blocks, and requests that start with the same prefix share its "
                 "blocks."),
            tr._("Below, a real block pool of the live model: a shared prefix is prefilled "
                 "once, requests A, B and C start from it, add their own words and then "
                 "generate in turns; every number is read from the pool."),
        ))
        if b is None:
            self._notice_b.object = '<p class="notice" role="status">{}</p>'.format(esc(tr._(
                "Running the requests on the live model's block pool…")))
            self._caption.object = ""
            return
        if "error" in b:
            self._notice_b.object = '<p class="notice" role="alert">{}</p>'.format(esc(tr._(
                "The live model could not run the paged demo: {error}", error=b["error"])))
            return
        self._notice_b.object = ""
        f, prev, bs = b["frame"], b["prev"], b["block_size"]
        self._caption.object = '<p role="status" aria-live="polite"><strong>{}</strong></p>'\
            .format(esc(vm["frame_caption"]))

        # the pool: one cell per physical block, slots inside, coloured by owner
        owners = {}
        for sid, table in f.tables.items():
            for i, blk in enumerate(table):
                n = min(bs, f.lengths[sid] - i * bs)
                fill, who = owners.get(blk, (0, []))
                owners[blk] = (max(fill, n), who + [sid])
        prev_owners = {}
        if prev is not None:
            for sid, table in prev.tables.items():
                for blk in table:
                    prev_owners.setdefault(blk, set()).add(sid)
        cols = dict(x=[], y=[], fill=[], alpha=[], line=[], hatch=[], id=[], owners=[],
                    fill_text=[], shared=[], tx_id=[], tx_sh=[], ty=[])
        slots = dict(x=[], y=[], fill=[], line=[])
        changed = dict(x=[], y=[])
        for blk in range(len(f.ref)):
            x, y = blk % POOL_COLS, -(blk // POOL_COLS)
            fill_n, who = owners.get(blk, (0, []))
            ref = f.ref[blk]
            if not who:
                color, alpha, line = PALETTE["muted"], 0.15, PALETTE["muted"]
            elif ref > 1:
                color, alpha, line = PALETTE[SEQ_COLOR["prefix"]], 0.35, PALETTE["text"]
            else:
                color, alpha, line = PALETTE[SEQ_COLOR[who[0]]], 0.3, PALETTE[SEQ_COLOR[who[0]]]
            cols["x"].append(x)
            cols["y"].append(y)
            cols["tx_id"].append(x - 0.4)
            cols["tx_sh"].append(x + 0.4)
            cols["ty"].append(y + 0.24)
            cols["fill"].append(color)
            cols["alpha"].append(alpha)
            cols["line"].append(line)
            cols["hatch"].append("right_diagonal_line" if ref > 1 else "blank")
            cols["id"].append(tr.int(blk))
            cols["owners"].append(", ".join(self._seq_name(s) for s in who) if who
                                  else tr._("free"))
            cols["fill_text"].append(tr._("{n} of {bs} slots hold tokens", n=tr.int(fill_n),
                                          bs=tr.int(bs)) if who else "–")
            cols["shared"].append(f"×{tr.int(ref)}" if ref > 1 else "")
            if who:
                slot_color = color if ref <= 1 else PALETTE[SEQ_COLOR["prefix"]]
                for k in range(bs):
                    slots["x"].append(x - 0.3 + k * 0.2)
                    slots["y"].append(y - 0.12)
                    slots["fill"].append(slot_color if k < fill_n else "#ffffff")
                    slots["line"].append(slot_color if k < fill_n else PALETTE["muted"])
            if prev is not None and set(who) != prev_owners.get(blk, set()):
                changed["x"].append(x)
                changed["y"].append(y)
        tips = [(tr._("Block"), "@id"), (tr._("Owners"), "@owners"),
                (tr._("Slots"), "@fill_text")]

        def apply():
            self._pool_src.data = cols
            self._slot_src.data = slots
            self._changed_src.data = changed
            self._pool_hover.tooltips = tips
        on_doc(apply)
        self._pool_legend.object = legend_html([
            ("muted", tr._("Free block")),
            ("cached", tr._("Prefix block (hatched and ×n: shared by n sequences)")),
            ("value", self._seq_name("A")), ("query", self._seq_name("B")),
            ("recomputed", self._seq_name("C")),
            ("new", tr._("Changed by this event")),
        ]) + "<p class=\"live-facts\">{}</p>".format(esc(tr._(
            "Each cell is one physical block of {bs} token slots; filled slots hold a token, "
            "white slots are reserved but still empty.", bs=tr.int(bs))))

        # block tables, one row per sequence
        rows = []
        for sid, table in f.tables.items():
            chips = []
            for i, blk in enumerate(table):
                n = min(bs, f.lengths[sid] - i * bs)
                ref = f.ref[blk]
                color = PALETTE[SEQ_COLOR["prefix"] if ref > 1 else SEQ_COLOR[sid]]
                tip = tr._("Block {b}: {n} of {bs} slots", b=tr.int(blk), n=tr.int(n),
                           bs=tr.int(bs))
                mark = f"<sub>×{esc(tr.int(ref))}</sub>" if ref > 1 else ""
                chips.append(f'<span class="tok" title="{esc(tip)}" style="border-color:{color};'
                             f'border-width:2px">{esc(tr.int(blk))}{mark}</span>')
            rows.append(
                f"<tr><th scope=\"row\" style=\"text-align:left\">{esc(self._seq_name(sid))}</th>"
                f"<td>{esc(tr.int(f.lengths[sid]))}</td>"
                f'<td style="text-align:left"><span class="tokens">{"".join(chips)}</span>'
                f"</td></tr>")
        if rows:
            names = (tr._("Sequence"), tr._("Tokens"), tr._("Block table (physical block ids)"))
            caption = tr._("Block tables")
            head = "<tr>" + "".join(f'<th scope="col">{esc(c)}</th>' for c in names) + "</tr>"
            self._tables.object = (f'<table class="kv"><caption>{esc(caption)}'
                                   f'</caption>{head}{"".join(rows)}</table>')
        else:
            self._tables.object = "<p>{}</p>".format(esc(tr._(
                "Every request has finished: the block tables are empty and the whole pool is "
                "free again.")))

        cards = [
            metric(tr._("Blocks in use"), vm["blocks_used"], "measured", tr, "blocks_used"),
            metric(tr._("Empty slots in used blocks"), vm["slots_wasted"], "measured", tr,
                   "slots_wasted"),
            metric(tr._("Blocks saved by sharing"), vm["sharing_saved"], "measured", tr,
                   "sharing_saved"),
            metric(tr._("Copies on write"), vm["copies_on_write"], "measured", tr,
                   "copies_on_write"),
            metric(tr._("Cache bytes in use (fp32)"), vm["bytes_in_use"], "measured", tr,
                   "bytes_in_use"),
            metric(tr._("Share of used slots holding tokens"), vm["paged_share"], "measured",
                   tr, "paged_share"),
        ]
        self._metrics_b.object = metrics_html(cards)
        res_cards = [
            metric(tr.n_("Reserving {max} tokens for {count} request",
                         "Reserving {max} tokens for each of {count} requests", b["n_requests"],
                         max=tr.int(b["max_len"]), count=tr.int(b["n_requests"])),
                   vm["reserved"], "computed", tr, "reserved"),
            metric(tr._("Share of that reservation holding tokens"), vm["reserved_share"],
                   "computed", tr, "reserved_share"),
        ]
        kwon = tr._("Without paging, a server reserves room for the longest sequence a "
                    "request might reach: here the live model's full context of {max} "
                    "tokens each. Kwon et al. (2023) measured that earlier serving systems "
                    "used only {lo} to {hi} of their reserved KV memory for real tokens; "
                    "vLLM, with paged blocks, reached 2–4× their throughput at the same "
                    "latency.", max=tr.int(b["max_len"]), lo=tr.pct(KWON_LO, 1),
                    hi=tr.pct(KWON_HI, 1))
        self._metrics_res.object = metrics_html(res_cards) + f"<p>{esc(kwon)}</p>"

    # -- Part C ---------------------------------------------------------------------------------

    def _render_c(self, vm):
        tr, c = self.tr, vm["raw_c"]
        self._head_c.object = "<h3>{}</h3>".format(esc(tr._(
            "C. The same choices, run for real on the live model")))
        ids, variant, kind, W = c["key"]
        facts = rt.model_facts(variant)
        P = len(ids)
        lines = [tr._("Key/value heads {kind} → the live “{variant}” model, which has {kv} "
                      "key/value heads for its {q} query heads.",
                      kind=presets.SHRINK_KV_HEAD_LABELS[self.kv_heads], variant=variant,
                      kv=tr.int(facts["n_kv_heads"]), q=tr.int(facts["n_heads"]))]
        notices = []
        if W:
            lines.append(tr._(
                "Window {w} keeps {share} of each {ctx}-token sequence; the live run keeps "
                "the same share of its {total} positions: a window of W = {W} tokens.",
                w=tr.int(self.window), share=tr.pct(self.window / CONTEXT),
                ctx=tr.int(CONTEXT), total=tr.int(P + N_NEW), W=tr.int(W)))
            if self.precision != "fp16":
                notices.append(tr._(
                    "The live sliding-window cache stores fp32 values, so the {p} choice is "
                    "not applied on top of the window here; pick the full context to measure "
                    "{p}.", p=self.precision))
        elif self.precision == "fp8":
            notices.append(tr._("The live model has no fp8 cache: measured with fp16 "
                                "instead."))
            lines.append(tr._("Precision fp8 → an fp16 cache (fp8 is not available)."))
        else:
            lines.append(tr._("Precision {p} → the live {kind} cache.", p=self.precision,
                              kind=kind))
        lines.append(tr._(
            "Prompt: the first {P} tokens of a passage, then {n} generated tokens; the cache "
            "ends with {t} tokens (the last generated token is never fed back).",
            P=tr.int(P), n=tr.int(N_NEW), t=tr.int(P + N_NEW - 1)))
        lines.append(tr._(
            "The GQA and MQA live models were trained separately: the number of key/value "
            "heads is fixed before training. So compare their bytes, and judge each one's "
            "output only against its own exact (fp32) cache."))
        self._mapping.object = "".join(f"<p>{esc(t)}</p>" for t in lines)

        if c.get("error"):
            notices.append(tr._("The live model could not run this setting: {error}",
                                error=c["error"]))
        elif c.get("pending"):
            notices.append(tr._("Measuring this setting on the live model…") + (
                " " + tr._("Meanwhile the previous result is shown.") if c.get("shown")
                else ""))
        self._notice_c.object = "".join(
            f'<p class="notice" role="status">{esc(t)}</p>' for t in notices)

        if not c.get("shown"):
            self._metrics_c.object = ""
            self._texts_c.object = ""
            return
        shown_variant, shown_kind, shown_W = c["variant"], c["kind"], c["W"]
        what = (tr._("{variant}, window W = {W}", variant=shown_variant, W=tr.int(shown_W))
                if shown_W else tr._("{variant}, {kind}", variant=shown_variant,
                                     kind=shown_kind))
        cards = [
            metric(tr._("Cache bytes at the end ({what})", what=what), vm["live_bytes"],
                   "measured", tr, "live_bytes"),
            metric(tr._("Exact fp32 cache of the same model"), vm["live_exact_bytes"],
                   "measured", tr, "live_exact_bytes"),
            metric(tr._("Smaller than its exact cache"), vm["live_factor_exact"], "measured",
                   tr, "live_factor_exact"),
            metric(tr._("Smaller than the live MHA fp16 full cache (the baseline above)"),
                   vm["live_factor_base"], "measured", tr, "live_factor_base"),
            metric(tr._("Top-1 agreement with the exact cache"), vm["live_top1"], "measured",
                   tr, "live_top1"),
            metric(tr._("Largest |Δ logit| against the exact cache"), vm["live_dlogit"],
                   "measured", tr, "live_dlogit"),
        ]
        self._metrics_c.object = metrics_html(cards)
        texts = [
            (tr._("Prompt"), c["prompt_text"]),
            (tr._("Continuation with this cache"), c["text"]),
            (tr._("Continuation with the exact fp32 cache"), c["exact_text"]),
        ]
        expl = tr._("Top-1 agreement: the exact run's tokens are fed in, and at each of the "
                    "{n} steps we check whether this cache would pick the same next token. "
                    "|Δ logit| is the largest difference of any next-token score.",
                    n=tr.int(N_NEW))
        self._texts_c.object = "".join(
            f'<p><strong>{esc(label)}:</strong> <span class="mono">{esc(text)}</span></p>'
            for label, text in texts) + f'<p class="live-facts">{esc(expl)}</p>'
        n_kv = c["facts"]["n_kv_heads"]
        kv = tr.n_("{count} key/value head", "{count} key/value heads", n_kv, count=tr.int(n_kv))
        self._facts.object = esc(tr._(
            "Live model “{variant}”: {layers} layers, {heads} query heads, {kv}, head_dim {d}, "
            "running on {device}.", variant=shown_variant,
            layers=tr.int(c["facts"]["n_layers"]), heads=tr.int(c["facts"]["n_heads"]),
            kv=kv, d=tr.int(c["facts"]["head_dim"]), device=c["facts"]["device"]))

    def __panel__(self):
        return self._layout
