"""Step 6 on the page: four parts behind the step's tabs (`?part=a|b|c|d`), each in two
columns; only the part shown is in the state, and only its controls are drawn. Part A is
computed for the reference model, Part B plays the live model's paged block pool in the browser
over frames built once per process, Part C runs the same choices on the live model, Part D
plays a generation of the live model whose cache drops tokens under a budget (a token strip per
generated token, over frames built once per process, with the measured agreement of every
policy at every budget). Parts B, C and D wait for the background queue
(`steps.live.LiveValue`). Every part predicts first with a question of its own (A: the GQA
factor; B: what share of a reservation holds tokens; C: which setting changes the live output
most; D: which policy stays closest to the full cache at a small budget), answered, kept and
restored per part."""
from __future__ import annotations

from ..ui import words as w
from ..ui.controls import segments
from ..ui.frames import shared_frames
from ..ui.step import Step
from . import text
from .model import PARTS, Step6Model, live_key, live_kv_heads, live_setting, measure

FRAMES = shared_frames(text.paged_frames)    # built once per process, for every session
STRIP_FRAMES = shared_frames(text.eviction_frames)
# the controls each part draws (the tabs are drawn by the page); the others are hidden
PART_CONTROLS = {"a": ("kv_heads", "precision", "window"), "b": (),
                 "c": ("kv_heads", "precision", "window"), "d": ("policy", "budget")}
LIVE = ["status", "value", "error"]  # what a LiveValue's change redraws


def all_numbers(cards: list[dict], tr) -> list[dict]:
    """“All numbers”: the cards that are not headline numbers, collapsed (nothing when
    there are none yet)."""
    if not cards:
        return []
    return [w.details(text.all_numbers(tr), [w.metrics(cards)], cls="all-numbers")]


class Step6(Step):
    number = 6
    model_class = Step6Model
    url_names = {"part": "part", "kv_heads": "heads", "precision": "precision",
                 "window": "window", "policy": "policy", "budget": "budget", "frame": "frame"}
    interval = 1100

    def __init__(self, lang: str = "en", saved: dict | None = None):
        self._question_runs = None          # Part C's question: LiveValues, made on first use
        super().__init__(lang, saved)
        from ..live import served_doc
        # a served page runs Parts B and C's live work whichever part is shown, so that
        # switching parts finds their numbers ready (outside a server, only the part shown)
        self.model.eager = served_doc() is not None
        self.model.live_values()
        self.model.eviction_values()
        self.model.param.watch(lambda *_: self._want_question_runs(),
                               ["part", "eager", "kv_heads", "lang"])
        self._want_question_runs()

    def question_scope(self) -> str:
        """Every part has its own question: its own answer, “Show me” and key (answering A
        reveals nothing of B), kept across tab switches and a later visit."""
        return self.model.part

    def _want_question_runs(self) -> None:
        """Part C's question compares three live runs on the variant shown (text.QUESTION_C):
        asked for while Part C is shown (on a served page, always), after the setting on
        screen."""
        m = self.model
        if m.part != "c" and not m.eager:
            return
        if self._question_runs is None:
            from ..live import LiveValue
            self._question_runs = [LiveValue() for _ in text.QUESTION_C]
        for v, (precision, window) in zip(self._question_runs, text.QUESTION_C):
            s = live_setting(m.kv_heads, precision, window, m.lang)
            v.request(live_key(s), lambda s=s: measure(*s.key), front=False)

    @property
    def figure(self) -> str:
        """Parts B (the block pool) and D (the token strip) have a stage."""
        return {"b": "pool", "d": "strip"}.get(self.model.part, "")

    def controls(self):
        return [
            segments("part", text.parts_label, text.part_options, hidden=True),  # the tabs
            segments("kv_heads", options=text.kv_options),
            segments("precision", options=lambda tr: text.precision_options()),
            segments("window", options=text.window_options),
            segments("policy", options=text.policy_options, short=text.policy_short),
            segments("budget", options=text.budget_options, short=text.budget_short),
        ]

    def control_spec(self, c, tr) -> dict:
        """A control that belongs to another part than the one shown is not drawn."""
        spec = super().control_spec(c, tr)
        if c.name != "part" and c.name not in PART_CONTROLS[self.model.part]:
            spec["hidden"] = True
        if c.name == "kv_heads" and self.model.part == "c":
            # Part C runs the live model: its own heads (4, 2, 1), not the reference model's
            spec["label"] = text.live_kv_label(tr)
            spec["options"] = [[v, label] for label, v in
                               text.live_kv_options(live_kv_heads(), tr).items()]
        return spec

    def on_reveal(self) -> None:
        """Part A's answer talks about switching to GQA: the heads go there (the precision
        and the window stay the learner's, as in the question)."""
        m = self.model
        if m.part == "a" and m.question is not None:
            m.kv_heads = m.question.heads_to
        elif m.part in ("b", "c", "d"):
            # B: the event the answer counts; C: the setting that changed the output most;
            # D: the policy that stayed closest to the full cache, at the question's budget
            q = self.page(self.tr).get("question") or {}
            m.param.update(**q.get("reveal", {}))

    def watched(self):
        paged, live = self.model.live_values()
        evict, swept = self.model.eviction_values()
        m = self.model
        return [*super().watched(), (paged, LIVE), (live, LIVE), (evict, LIVE), (swept, LIVE),
                (m.evict_cache, LIVE), (m.shares, LIVE),
                *((v, LIVE) for v in self._question_runs or ())]

    def close(self) -> None:
        m = self.model
        for v in (m.paged, m.live, m.evict, m.sweep, m.evict_cache, m.shares,
                  *(self._question_runs or ())):
            if v is not None:
                v.release()

    def page(self, tr) -> dict:
        m = self.model
        part = {"a": self._part_a, "b": self._part_b, "c": self._part_c,
                "d": self._part_d}[m.part](tr)
        return {
            **part,
            "lead": w.lead(text.lead(tr)),
            "tabs": {"name": "part", "label": text.parts_label(tr), "active": m.part,
                     "items": [[p, t] for p, t in zip(PARTS, text.part_titles(tr))]},
            "question": part.get("question"),     # the part's own (None while it waits)
        }

    # -- Part A: computed for the reference model -------------------------------------------
    def _part_a(self, tr) -> dict:
        a = self.model.shrink
        heading, intro = text.part_a_heading(tr)
        said = text.part_a_narration(a, tr)
        return {
            "part": w.part_title(heading),
            "idea": w.paragraphs([intro]),
            "look": w.paragraphs([text.part_a_look(tr)], cls="narration"),   # look, press
            "deeper": w.deeper(tr, why=text.part_a_explain(a, tr) + said["why"],
                               literature=said["literature"]),
            "figure": [w.html("step6/heads.html.j2", cls="step6-heads", **text.heads(a, tr)),
                       w.html("step6/bars.html.j2", cls="step6-bars",
                              **text.bars(a, tr, not self.revealed))],
            "cards": w.metrics(text.part_a_cards(a, tr)),
            "more": all_numbers(text.part_a_more(a, tr), tr),
            "question": text.question(self.model.question, tr),
        }

    # -- Part B: the paged block pool, played in the browser -----------------------------------
    def _part_b(self, tr) -> dict:
        paged = self.model.paged
        p = paged.value
        said = text.part_b_narration(p, tr)
        return {
            "part": w.part_title(text.part_b_heading(tr)),
            "idea": w.paragraphs([text.part_b_idea(tr)], cls="narration"),
            "look": w.paragraphs(said["look"], cls="narration"),
            "notices": w.notices(text.live_notices(paged.status, paged.error, tr, kind="paged",
                                                   shown=False)),
            "deeper": w.deeper(tr, literature=said["literature"]),
            "legend": w.legend(text.pool_legend(tr)),
            "frames": FRAMES(p, tr) if p is not None else [],
            "stage": text.pool_stage_text(tr),
            "question": text.pool_question(p, tr) if p is not None else None,
            # projected, the answer under the question, the pool beside it
            "variant": "answer-left",
        }

    # -- Part C: the same choices on the live model ----------------------------------------------
    def _part_c(self, tr) -> dict:
        m, live = self.model, self.model.live
        s, r = m.setting, live.value
        notices = (text.live_setting_notices(s, tr) if s else []) + text.live_notices(
            live.status, live.error, tr, kind="live", shown=r is not None)
        # a setting the question asks about shows how much it changes the output only
        # once the question is answered
        conceal = not self.revealed and s is not None and (s.kind != "fp16" or bool(s.W))
        figure = []
        if r is not None and conceal:
            figure = [w.paragraphs([text.continuations_wait(tr)], cls="narration")]
        elif r is not None:
            figure = [w.html("step6/continuations.html.j2", cls="step6-continuations",
                             **text.continuations(r, tr))]
        runs = [v.value for v in self._question_runs or ()]
        mapping = text.live_mapping(s, tr) if s else {"look": [], "live": []}
        return {
            "part": w.part_title(text.part_c_heading(tr)),
            "look": w.paragraphs([text.part_c_look(tr), *mapping["look"]], cls="narration"),
            "notices": w.notices(notices),
            "deeper": w.deeper(tr, live=[*mapping["live"], w.paragraphs(
                [text.live_facts(r, tr)] if r is not None else [], cls="live-facts")]),
            "cards": w.metrics(text.live_cards(r, tr, conceal)),
            "more": all_numbers(text.live_more(r, tr), tr),
            "figure": figure,
            # the cards first, then the continuations; projected, the three controls stay
            # above the cards (the question is long)
            "variant": "cards-first",
            "question": (text.live_question(runs, tr)
                         if runs and None not in runs else None),
            "classes": ["part-c"],          # presenter mode lays this part out (app.css)
        }


    # -- Part D: dropping tokens, played in the browser -------------------------------------------
    def _part_d(self, tr) -> dict:
        m = self.model
        evict, swept = m.eviction_values()
        run, sw = evict.value, swept.value
        concealed = not self.revealed
        facts = None
        if run is not None:
            from explainer import runtime as rt
            from .model import EVICTION_VARIANT
            facts = rt.model_facts(EVICTION_VARIANT)
        deeper = text.part_d_deeper(sw, facts, tr, run=run, cache_run=m.evict_cache.value,
                                    shares=m.shares.value, concealed=concealed)
        chart = text.sweep_table(sw, tr, concealed)
        return {
            "part": w.part_title(text.part_d_heading(tr)),
            "idea": w.paragraphs([text.part_d_idea(tr)], cls="narration"),
            "look": w.paragraphs([text.part_d_look(tr)], cls="narration"),
            "notices": w.notices(text.eviction_notices(evict.status, evict.error, swept.status,
                                                       swept.error, tr, shown=run is not None)),
            "deeper": w.deeper(tr, **deeper),
            "legend": w.legend(text.strip_legend(tr)),
            "cards": w.metrics(text.run_cards(run, tr)),
            "extras": [] if chart is None else w.details(
                text.sweep_table_title(tr), [w.table(chart["head"], chart["rows"])],
                cls="sweep-twin"),
            "frames": STRIP_FRAMES(run, sw, concealed, tr) if run is not None else [],
            "stage": text.strip_stage_text(tr),
            "question": text.evict_question(sw, tr) if sw is not None else None,
            "classes": ["part-d"],          # presenter mode lays this part out (app.css)
            # projected, the answer (long: three measurements and why) under the question, the
            # controls over the strip and the chart
            "variant": "answer-left",
        }


STEP = Step6
