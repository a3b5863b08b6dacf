"""Step 3 on the page: the example prompt, layer and key/value head; the cached rows are played
in the browser over frames built once per process (before and after the question is
answered: until then the row numbers and the cache length wait)."""
from __future__ import annotations

from explainer.prompts import PROMPTS

from ..common import translator
from ..ui import words as w
from ..ui.controls import choice, layer_and_head
from ..ui.frames import shared_frames
from ..ui.step import Step, every_state
from . import text
from .model import N_EXAMPLES, QUESTION_STEPS, Step3Model

FRAMES = shared_frames(text.frames, maxsize=1024)    # built once per process, for every session


def warm(lang: str) -> int:
    """Server start: the frames of every example, layer and head in `lang`, before and after
    the question is answered, built and packed as a session shows them. Returns how many
    sets."""
    m, n = Step3Model(lang=lang), 0
    for _ in every_state(m, "example", "layer", "head"):
        for revealed in (False, True):
            FRAMES(m.run, translator(lang), revealed)
            n += 1
    return n


def example_options(tr) -> dict:
    return {p: i for i, p in enumerate(PROMPTS[tr.lang][:N_EXAMPLES])}


class Step3(Step):
    number = 3
    figure_controls = ("example", "head")  # a figure-only embed's two controls
    model_class = Step3Model
    url_names = ("example", "frame", "layer", "head")
    figure = "cache"
    interval = 1100

    def controls(self):
        m = self.model
        return [
            choice("example", options=example_options, size="wide",
                   on_change=lambda v: m.param.update(example=v, frame=0)),
            *layer_and_head(text),
        ]

    def on_reveal(self) -> None:
        """The answer talks about the cache after decode step 3: the player goes there."""
        self.model.frame = QUESTION_STEPS

    def page(self, tr) -> dict:
        run = self.model.run
        said, details = text.narration(tr), text.details(run, tr)
        return {
            "lead": w.lead(text.lead(tr)),
            "look": w.paragraphs(said["look"], cls="narration"),     # look, press, idea
            "notices": w.notices(text.notices(run, tr)),
            "deeper": w.deeper(tr, why=details["why"], live=[
                *said["live"],
                w.paragraphs(text.figure_note(run, tr), cls="live-facts figure-note"),
                *details["live"],
                w.paragraphs([text.facts(tr)], cls="live-facts")]),
            "legend": w.legend(text.legend(tr)),
            "question": text.question(run.prompt_len, tr),
            "frames": FRAMES(run, tr, self.revealed),
            "stage": text.stage_text(tr),
        }


STEP = Step3
