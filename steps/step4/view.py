"""Step 4 on the page: the prompt, output and batch sliders, the model and the GPU; the
roofline and decode against the batch are one still frame drawn in the browser
(js/draw/roofline.js), and the live model's measured speed arrives when it is ready.

The measurement is slow, so no move waits for it: the step asks `steps.live.LiveValue` for
the grid point of the sliders (`model.job`), shows “measuring…” meanwhile, and is redrawn
when the value settles on the session's event loop (`watched`)."""
from __future__ import annotations

from ..live import LiveValue
from ..ui import words as w
from ..ui.controls import choice, slider
from ..ui.frames import shared_frames
from ..ui.step import Step
from . import text
from .model import Step4Model, job, live_facts


def one_frame(r, b, status, value, tr, revealed=True) -> list:
    """The stage's one frame (the roofline, its cards and table); until the answer, its
    FLOP/byte read “?” (`text.frame`)."""
    return [text.frame(r, status, value, tr, b, revealed)]


FRAMES = shared_frames(one_frame)    # built once per process, for every session


def links_block(b, lang: str, tr) -> dict | None:
    """How a smaller cache raises the ceiling, each way linked to step 6 (None if none)."""
    links = text.shrink_links(b, lang, tr)
    if not links["items"]:
        return None
    return w.html("step4/links.html.j2", cls="narration shrink", **links)


class Step4(Step):
    number = 4
    figure_controls = ("batch", "model")  # a figure-only embed's two controls
    model_class = Step4Model
    url_names = ("prompt", "output", "gpu", "model", "batch")
    figure = "roofline"
    player = False           # one still frame

    def __init__(self, lang: str = "en", saved: dict | None = None):
        super().__init__(lang, saved)
        # the live model's speed at the sliders' grid point: measured at server start (or,
        # without it, in the background); asked for when the state is first drawn, after a
        # link has set the sliders, and again whenever the grid point changes
        self.live = LiveValue()
        self._asked = False
        self.model.param.watch(lambda e: self._measure(), "plan")

    def _measure(self) -> None:
        self._asked = True
        self.live.request(*job(self.model.plan))

    def controls(self):
        return [
            slider("prompt", step=16),
            slider("output"),
            slider("batch"),
            choice("model", options=text.model_options),
            choice("gpu", options=text.gpu_options),
        ]

    def watched(self):
        return [*super().watched(), (self.live, ["status", "value"])]

    def state(self):
        if not self._asked:
            self._measure()
        return super().state()

    def page(self, tr) -> dict:
        m, live, shown = self.model, self.live, self.revealed
        r, b = m.roofline, m.batching
        paras, notes = text.measured_words(m.plan, m.prompt, m.output, live.status,
                                           live.value, live_facts(), tr)
        words = text.layers(r, shown, tr, b)
        links = links_block(b, self.lang, tr) if shown else None      # the links wait too
        return {
            "lead": w.lead(text.lead(tr)),
            "idea": w.paragraphs(words["idea"], cls="narration"),      # slope, roof, ridge
            "look": w.paragraphs(words["visible"], cls="narration"),      # look, press
            "notices": [w.notices(text.notices(r, b, tr)), w.notices(notes)],
            "deeper": w.deeper(tr, why=[*words["why"], links,
                                        w.paragraphs(text.model_note(r, tr), cls="live-facts")],
                               live=[w.paragraphs(paras, cls="live-facts live-speed")],
                               literature=words["literature"]),
            "legend": w.legend(text.legend(tr, shown)),
            "question": text.question(r, tr),
            "frames": FRAMES(r, b, live.status, live.value, tr, shown),
            "stage": text.stage_text(tr),
            # (projected, once answered: the answer over the roofline, without the cards whose
            # numbers it says, so that the roofline keeps its height at 1280×720)
            "variant": "answer-over" if shown else "",
        }

    def close(self) -> None:
        self.live.release()


STEP = Step4
