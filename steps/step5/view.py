"""Step 5 on the page: the memory bill of a model preset (or of your model, read from a pasted
config.json) against a GPU; two still charts drawn in the browser (js/draw/bill.js) from one
frame built once per process. The “your model” box is the step's own widget group
(js/draw/config.js): its Read button sends the text and the parameter count together, as one
message (`custom`)."""
from __future__ import annotations

import math

from explainer.hfconfig import MAX_CONFIG_CHARS

from ..ui import words as w
from ..ui.controls import choice, segments, slider
from ..ui.frames import shared_frames
from ..ui.step import Step
from . import text
from .model import CUSTOM, GPU_KEYS, Step5Model, parse


def one_frame(spec, curve, bill, live, lmap, tr, revealed=True) -> list:
    """The stage's one frame (cards, both charts, the layer map, their words and their
    table; the curve ends at this context until the question is answered)."""
    return [text.frame(spec, curve, bill, live, tr, revealed, lmap)]


FRAMES = shared_frames(one_frame)    # built once per process, for every session


def gpu_options(tr) -> dict:
    return text.gpu_options(GPU_KEYS, tr)


class Step5(Step):
    number = 5
    figure_controls = ("context", "batch")  # a figure-only embed's two controls
    model_class = Step5Model
    url_names = ("context", "batch", "model", "weights", "precision", "gpu", "gpus", "share",
                 "custom")
    kept = ("config", "params_b")     # a pasted config is never in the link
    figure = "bill"
    player = False                    # one still frame

    def __init__(self, lang: str = "en", saved: dict | None = None):
        super().__init__(lang, saved)
        m = self.model
        if m.config:                  # a visit again: what the config said, as it was read
            m.parsed = parse(m.config, m.params_b)

    def controls(self):
        return [
            slider("context", step=256),
            slider("batch"),
            choice("model", options=text.model_options),
            choice("weights", options=text.weight_options),
            segments("precision", options=text.precision_options),
            choice("gpu", options=gpu_options),
            segments("gpus", options=text.gpu_count_options),
            slider("share", step=5),
        ]

    def page(self, tr) -> dict:
        m = self.model
        spec, bill, lmap, plan = m.spec, m.bill, m.layers, m.plan
        waiting = m.model == CUSTOM and m.custom_model.preset is None
        words = text.layers(spec, bill, tr)
        return {
            "lead": w.lead(text.lead(tr)),
            "look": w.paragraphs(words["visible"], cls="narration"),   # look, press, idea
            "facts": w.paragraphs([text.model_info(spec, tr)], cls="live-facts"),
            "notices": w.notices(text.notices(spec, bill, tr, waiting=waiting)),
            "deeper": w.deeper(tr, why=[*words["why"], *text.precision_lines(tr),
                                        *text.plan_deeper(plan, bill, tr)],
                               live=[w.paragraphs(text.live_lines(m.live, tr),
                                                  heading=text.headings(tr)["live"],
                                                  cls="live-facts live-cache")]),
            "legend": w.legend(text.legend(spec, tr)),
            "extras": [w.paragraphs(list(text.bill_formula(spec, bill, tr, lmap)),
                                    heading=text.headings(tr)["formula"], cls="formula-headline"),
                       w.html("step5/planner.html.j2", cls="planner",
                              **text.planner(plan, bill, lmap, tr, spec))],
            "question": text.question(spec, tr),
            "frames": FRAMES(spec, m.curve, bill, m.live, lmap, tr, self.revealed),
            "stage": text.stage_text(tr),
            "custom": self.your_model(tr) if m.model == CUSTOM else None,
        }

    def your_model(self, tr) -> text.ConfigCustom:
        """The “your model” box (js/draw/config.js): the config.json to paste, the parameter
        count, the Read button, and what was read or why it could not be (plain text)."""
        m = self.model
        labels = text.control_labels(tr)
        fields, problems = text.custom_lines(m.parsed, m.custom_model, m.spec, m.bill, tr)
        return {"widget": "config", "label": labels["config"],
                "placeholder": labels["config_placeholder"], "value": m.config,
                "max_length": MAX_CONFIG_CHARS + 1, "params_label": labels["params_b"],
                "params_value": m.params_b, "read": labels["read"],
                "problems": problems, "fields": fields}

    def custom(self, msg: dict) -> None:
        """Read: {"config": the pasted text, "params_b": billions, or null}. An empty (or
        zero) count means “count them from the config”; the same text and count read again
        show it again (your model comes back on screen)."""
        config, pb = msg.get("config"), msg.get("params_b")
        if not isinstance(config, str):
            return
        if pb is not None and (isinstance(pb, bool) or not isinstance(pb, (int, float))
                               or not math.isfinite(pb)):
            return
        config = config[: MAX_CONFIG_CHARS + 1]      # longer still says “too long”
        pb = float(pb) if pb else None
        m = self.model
        if (config, pb) != (m.config, m.params_b):
            m.param.update(config=config, params_b=pb)
        else:
            m.param.trigger("config")


STEP = Step5
