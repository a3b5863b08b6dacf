"""Step 2 on the page: the T and P sliders, the live measurement of the prompt on screen and
the two grids, played in the browser over frames built once per process.

The live model's runs with and without a cache are measured per (language, P) in the
background (`steps.live`): the stage shows the formulas at once, a notice while the
measurement is pending or failed, and the measured numbers once it is ready."""
from __future__ import annotations

from ..common import translator
from ..live import JOBS, LiveValue
from ..ui import words as w
from ..ui.controls import slider
from ..ui.frames import shared_frames
from ..ui.step import Step, every_state
from . import model as mdl
from . import text
from .model import Step2Model

# built once per process, for every session; never kept on disk (they show wall times)
FRAMES = shared_frames(text.frames, disk=False)


def warm(lang: str) -> int:
    """Server start: the frames of every prompt length in `lang` with its measurement (run
    just before by `steps.warm.precompute`), before and after the question is answered, built
    and packed as a session shows them. Returns how many sets."""
    m, n = Step2Model(lang=lang), 0
    for _ in every_state(m, "prompt"):
        fut = JOBS.get(mdl.live_job(lang, m.prompt)[0])
        if fut is None or not fut.done() or fut.cancelled() or fut.exception() is not None:
            continue
        for revealed in (False, True):
            FRAMES(m.run, fut.result(), "ready", "", translator(lang), revealed)
            n += 1
    return n


class Step2(Step):
    """The question is about the state on screen until it is answered (or shown), then kept
    as answered while the learner explores: `_q_state` is the (P, T) it asks about."""

    number = 2
    model_class = Step2Model
    url_names = ("tokens", "prompt")
    frame_url = "tokens"      # the link's parameter that follows the player (frame = T - T_MIN)
    figure = "grids"
    interval = 700

    def __init__(self, lang: str = "en", saved: dict | None = None):
        super().__init__(lang, saved)
        m = self.model
        # the live measurement of (lang, P): queued, never waited for in a served session
        self.live = LiveValue()
        self._asked = None
        m.param.watch(self._ask, ["live_args"])
        self._ask()

    def controls(self):
        return [slider("tokens"), slider("prompt")]

    def watched(self):
        return [*super().watched(), (self.live, ["status", "value", "error"])]

    def _ask(self, *events) -> None:
        """Ask for the live measurement of the state on screen (once per (lang, P))."""
        args = tuple(self.model.live_args)
        if args != self._asked:
            self._asked = args
            self.live.request(*mdl.live_job(*args))

    def measured(self):
        """The measurement of the state on screen, or None while it is pending or failed."""
        value, m = self.live.value, self.model
        ready = (self.live.status == "ready" and value is not None
                 and (value.lang, value.P) == tuple(m.live_args))
        return value if ready else None

    def question_about(self) -> tuple[int, int]:
        """The question asks about the prompt and the length on screen; once answered, it
        stays the one answered while the sliders move on."""
        return (self.model.prompt, self.model.tokens)

    def page(self, tr) -> dict:
        m = self.model
        return {
            "lead": w.lead(text.lead(tr)),
            "idea": w.paragraphs([text.definition(tr)], cls="narration"),
            "look": w.paragraphs(text.narration(tr)["look"], cls="narration"),     # what to look at
            "deeper": w.deeper(tr, why=text.why(tr, self.revealed),
                               live=[w.paragraphs(text.facts(tr), cls="live-facts")]),
            "question": text.question(*self.asked_about, tr),
            "frames": FRAMES(m.run, self.measured(), self.live.status, self.live.error, tr,
                             self.revealed),
            "stage": text.stage_text(tr),
        }

    def close(self) -> None:
        """Leaving the step: a measurement still waiting in the queue is no longer wanted."""
        self.live.release()


STEP = Step2
