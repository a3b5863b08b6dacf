"""Step 6 on the page: three parts behind the step's tabs (`?part=a|b|c`), each in two
columns; only the part shown is in the state. Part A is computed for the reference model,
Part B plays the live model's paged block pool in the browser over frames built once per
process, Part C runs the same choices on the live model (Parts B and C wait for the
background queue: `steps.live.LiveValue`)."""
from __future__ import annotations

from ..ui import words as w
from ..ui.controls import segments
from ..ui.frames import shared_frames
from ..ui.step import Step
from . import text
from .model import PARTS, Step6Model

FRAMES = shared_frames(text.paged_frames)    # built once per process, for every session
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
    labels = staticmethod(text.control_labels)
    url_names = {"part": "part", "kv_heads": "heads", "precision": "precision",
                 "window": "window", "frame": "frame"}
    interval = 1100

    def __init__(self, lang: str = "en", saved: dict | None = None):
        super().__init__(lang, saved)
        from ..live import served_doc
        # a served page runs Parts B and C's live work whichever part is shown, so that
        # switching parts finds their numbers ready (outside a server, only the part shown)
        self.model.eager = served_doc() is not None
        self.model.live_values()

    @property
    def figure(self) -> str:
        """Only Part B has a stage (the block pool)."""
        return "pool" if self.model.part == "b" else ""

    def controls(self):
        return [
            segments("part", text.parts_label, text.part_options, hidden=True),  # the tabs
            segments("kv_heads", options=text.kv_options),
            segments("precision", options=lambda tr: text.precision_options()),
            segments("window", options=text.window_options),
        ]

    def watched(self):
        paged, live = self.model.live_values()
        return [*super().watched(), (paged, LIVE), (live, LIVE)]

    def close(self) -> None:
        for v in (self.model.paged, self.model.live):
            if v is not None:
                v.release()

    def page(self, tr) -> dict:
        m = self.model
        part = {"a": self._part_a, "b": self._part_b, "c": self._part_c}[m.part](tr)
        lead = w.paragraphs([text.lead(tr)], cls="step-lead")
        return {
            **part,
            "left": [lead, *part["left"]],
            "tabs": {"name": "part", "label": text.parts_label(tr), "active": m.part,
                     "items": [[p, t] for p, t in zip(PARTS, text.part_titles(tr))]},
            # asked in Part A; kept in every part, so that the answer outlives a tab switch
            "question": text.question(m.question, tr),
        }

    # -- Part A: computed for the reference model -------------------------------------------
    def _part_a(self, tr) -> dict:
        a = self.model.shrink
        heading, intro = text.part_a_heading(tr)
        return {
            "left": [w.paragraphs([intro], heading=heading),
                     w.slot("question"), w.slot("controls"),
                     w.paragraphs(text.part_a_explain(a, tr) + text.part_a_narration(a, tr),
                                  cls="narration")],
            "right": [w.metrics(text.part_a_cards(a, tr)),
                      *all_numbers(text.part_a_more(a, tr), tr),
                      w.html("step6/heads.html.j2", cls="step6-heads", **text.heads(a, tr)),
                      w.html("step6/bars.html.j2", cls="step6-bars",
                             **text.bars(a, tr, not self.revealed))],
        }

    # -- Part B: the paged block pool, played in the browser -----------------------------------
    def _part_b(self, tr) -> dict:
        paged = self.model.paged
        p = paged.value
        return {
            "left": [w.paragraphs([], heading=text.part_b_heading(tr)),
                     w.paragraphs(text.part_b_narration(p, tr), cls="narration"),
                     w.notices(text.live_notices(paged.status, paged.error, tr, kind="paged",
                                                 shown=False))],
            "right": [w.slot("stage"), w.legend(text.pool_legend(tr))],
            "frames": FRAMES(p, tr) if p is not None else [],
            "stage": text.pool_stage_text(tr),
        }

    # -- Part C: the same choices on the live model ----------------------------------------------
    def _part_c(self, tr) -> dict:
        m, live = self.model, self.model.live
        s, r = m.setting, live.value
        notices = (text.live_setting_notices(s, tr) if s else []) + text.live_notices(
            live.status, live.error, tr, kind="live", shown=r is not None)
        right = [w.metrics(text.live_cards(r, tr)), *all_numbers(text.live_more(r, tr), tr)]
        if r is not None:
            right += [w.html("step6/continuations.html.j2", cls="step6-continuations",
                             **text.continuations(r, tr)),
                      w.paragraphs([text.live_facts(r, tr)], cls="live-facts")]
        return {
            "left": [w.paragraphs([], heading=text.part_c_heading(tr)), w.slot("controls"),
                     w.paragraphs(text.live_mapping(s, tr) if s else [], cls="narration"),
                     w.notices(notices)],
            "right": right,
        }


STEP = Step6
