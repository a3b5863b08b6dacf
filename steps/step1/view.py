"""Step 1 on the page: the example or typed prompt, layer and head; the arcs are played in
the browser over frames built once per process."""
from __future__ import annotations

from explainer.prompts import PROMPTS

from ..ui import words as w
from ..ui.controls import choice, layer_and_head, text_field
from ..ui.frames import shared_frames
from ..common import translator
from ..ui.step import Step, every_state
from . import text
from .model import MAX_CHARS, Step1Model

FRAMES = shared_frames(text.frames, maxsize=1024)   # built once per process, for every session


def warm(lang: str) -> int:
    """Server start: the frames of every example, layer and head in `lang`, before and after
    the question is answered, built as a session shows them. Returns how many sets."""
    m, n = Step1Model(lang=lang), 0
    for _ in every_state(m, "example", "layer", "head"):
        for revealed in (False, True):
            FRAMES(m.run, translator(lang), revealed)
            n += 1
    return n


def example_options(tr) -> dict:
    return {p: i for i, p in enumerate(PROMPTS[tr.lang])}


def answer_frame(run) -> int:
    """The player's frame of the first generated token: its query reads P + 1 keys (the
    question's answer)."""
    want = run.prompt_len + 1
    return next((f for f, fr in enumerate(run.frames) if fr.keys_read == want), 1)


class Step1(Step):
    number = 1
    figure_controls = ("example", "head")  # a figure-only embed's two controls
    model_class = Step1Model
    url_names = ("example", "text", "frame", "layer", "head")
    figure = "arcs"
    interval = 900

    def controls(self):
        m = self.model
        return [
            choice("example", options=example_options, size="wide",
                   on_change=lambda v: m.param.update(example=v, text="", frame=0),
                   shown=lambda m: None if m.text.strip() else m.example),
            text_field("text",
                       placeholder=lambda t: text.control_labels(t)["text_placeholder"],
                       max_length=MAX_CHARS, size="wide",
                       on_change=lambda v: m.param.update(text=v, frame=0)),
            *layer_and_head(text),
        ]

    def on_reveal(self) -> None:
        """The answer talks about the next token: the player goes to its frame, where its
        query reads the P cached keys and its own."""
        self.model.frame = answer_frame(self.model.run)

    def page(self, tr) -> dict:
        run = self.model.run
        return {
            "lead": w.lead(text.lead(tr)),
            "idea": w.paragraphs(text.orientation(tr), cls="narration orientation"),
            "look": w.paragraphs(text.narration(tr), cls="narration"),
            "notices": w.notices(text.notices(run, tr)),
            "deeper": w.deeper(tr, why=text.why(tr), live=[
                *text.live(tr), w.paragraphs([text.facts(tr)], cls="live-facts")]),
            "legend": w.legend(text.legend(tr)),
            "question": text.question(run.prompt_len, tr),
            "frames": FRAMES(run, tr, self.revealed),
            "stage": text.stage_text(tr),
        }


STEP = Step1
