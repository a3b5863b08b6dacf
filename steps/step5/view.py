"""Step 5 on the page, in two parts behind the step's tabs (`?part=a|b`), as step 6's: only
the part shown is in the state, and only its controls are drawn.

- Part A, the bill (what a newcomer meets): the memory bill of a model preset (or of your
  model) against a GPU, two still charts drawn in the browser (js/draw/bill.js) from one frame
  built once per process, four cards, the formula; three controls (context, batch, model) and
  the step's question.
- Part B, planning a server: the planner's table, its cards, and the rest of the controls (the
  GPU and how many, the two precisions, the engine's share; the model and the context again),
  with the “your model” box, the step's own widget group (js/draw/config.js): its Read button
  sends the text and the parameter count together, as one message (`custom`). “Your model” is
  in part B's list of models; part A lists it only while it is the model shown (chosen there,
  it opens part B, where its box is).

A link that names no part but sets an input of part B to other than its default (a link
made before the step had parts: `?step=5&gpu=h100&gpus=2`) opens part B (`linked`), and so
does an embed's `controls=` list that asks for one of its controls: nothing a link says is
hidden."""
from __future__ import annotations

import math

from explainer.hfconfig import MAX_CONFIG_CHARS

from ..ui import words as w
from ..ui.controls import choice, segments, slider
from ..ui.frames import shared_frames
from ..ui.step import Step
from . import text
from .model import CUSTOM, GPU_KEYS, PARTS, PLAN_INPUTS, Step5Model, parse


def one_frame(spec, curve, bill, live, lmap, tr, revealed=True) -> list:
    """The stage's one frame (cards, both charts, the layer map, their words and their
    table; the curve ends at this context until the question is answered)."""
    return [text.frame(spec, curve, bill, live, tr, revealed, lmap)]


FRAMES = shared_frames(one_frame)    # built once per process, for every session
# the controls each part draws (the tabs are drawn by the page); the others are hidden
PART_CONTROLS = {"a": ("context", "batch", "model"),
                 "b": ("context", "model", "weights", "precision", "gpu", "gpus", "share")}


def gpu_options(tr) -> dict:
    return text.gpu_options(GPU_KEYS, tr)


class Step5(Step):
    number = 5
    figure_controls = ("context", "batch")  # a figure-only embed's two controls
    model_class = Step5Model
    url_names = ("part", "context", "batch", "model", "weights", "precision", "gpu", "gpus",
                 "share", "custom")
    kept = ("config", "params_b")     # a pasted config is never in the link
    player = False                    # one still frame

    def __init__(self, lang: str = "en", saved: dict | None = None):
        super().__init__(lang, saved)
        m = self.model
        if m.config:                  # a visit again: what the config said, as it was read
            m.parsed = parse(m.config, m.params_b)

    @property
    def figure(self) -> str:
        """Part A has the stage (the bill's charts); part B's planner is drawn once."""
        return "bill" if self.model.part == "a" else ""

    def controls(self):
        return [
            segments("part", text.parts_label, text.part_options, hidden=True),  # the tabs
            slider("context", step=256),
            slider("batch"),
            choice("model", options=text.model_options, on_change=self._choose_model),
            choice("weights", options=text.weight_options),
            segments("precision", options=text.precision_options),
            choice("gpu", options=gpu_options),
            segments("gpus", options=text.gpu_count_options),
            slider("share", step=5),
        ]

    def _choose_model(self, value) -> None:
        """“Your model” chosen in part A opens part B, where its box is."""
        self.model.param.update(model=value, **({"part": "b"} if value == CUSTOM else {}))

    def control_spec(self, c, tr) -> dict:
        """A control that belongs to another part than the one shown is not drawn; part A's
        models are the presets (and “your model” while it is the one shown: it is pasted in
        part B)."""
        spec = super().control_spec(c, tr)
        m = self.model
        if c.name != "part" and c.name not in PART_CONTROLS[m.part]:
            spec["hidden"] = True
        if c.name == "model" and m.part == "a" and m.model != CUSTOM:
            spec["options"] = [[v, label] for label, v in
                               text.model_options(tr, custom=False).items()]
        return spec

    def linked(self, names) -> None:
        """A link that names no part opens part B when it sets one of part B's inputs to
        other than its default, or your model: what it says is then on screen."""
        m = self.model
        if "part" in names:
            return
        if m.model == CUSTOM or any(getattr(m, n) != m.param[n].default
                                    for n in PLAN_INPUTS if n in names):
            m.part = "b"

    def choose_controls(self, asked, figure):
        """An embed's `controls=` list that asks for a control of part B only (the GPU, a
        precision…) opens part B, where it is drawn."""
        unknown = super().choose_controls(asked, figure)
        if asked is not None and set(self.only_controls or ()) - set(PART_CONTROLS["a"]):
            self.model.part = "b"
        return unknown

    def page(self, tr) -> dict:
        part = self._part_a(tr) if self.model.part == "a" else self._part_b(tr)
        return {
            **part,
            "lead": w.lead(text.lead(tr)),
            "tabs": {"name": "part", "label": text.parts_label(tr), "active": self.model.part,
                     "items": [[p, t] for p, t in zip(PARTS, text.part_titles(tr))]},
        }

    def _notices(self, tr) -> dict:
        m = self.model
        waiting = m.model == CUSTOM and m.custom_model.preset is None
        return w.notices(text.notices(m.spec, m.bill, tr, waiting=waiting, box=m.part == "b"))

    # -- Part A: the bill and its growth -------------------------------------------------------
    def _part_a(self, tr) -> dict:
        m = self.model
        spec, bill, lmap = m.spec, m.bill, m.layers
        words = text.layers(spec, bill, tr)
        return {
            "look": w.paragraphs(words["visible"], cls="narration"),   # look, press, idea
            "facts": w.paragraphs([text.model_info(spec, tr)], cls="live-facts"),
            "notices": self._notices(tr),
            "deeper": w.deeper(tr, why=words["why"],
                               live=[w.paragraphs(text.live_lines(m.live, tr),
                                                  heading=text.headings(tr)["live"],
                                                  cls="live-facts live-cache")]),
            "legend": [w.legend(items, cls=f"of-{chart}" if chart else "")
                       for chart, items in legend_by_chart(text.legend(spec, tr))],
            "extras": [w.paragraphs(list(text.bill_formula(spec, bill, tr, lmap)),
                                    heading=text.headings(tr)["formula"], cls="formula-headline")],
            "question": text.question(spec, tr),
            "frames": FRAMES(spec, m.curve, bill, m.live, lmap, tr, self.revealed),
            "stage": text.stage_text(tr),
            # projected, once it is out, the answer (several lines: the arithmetic and the
            # model's own limit) under the question and the controls over the cards and the
            # charts, which keep the visual column's height; before, the controls under the
            # question and the curve as tall as the column allows
            "variant": "answer-left" if self.revealed else "",
        }

    # -- Part B: planning a server ---------------------------------------------------------------
    def _part_b(self, tr) -> dict:
        m = self.model
        spec, bill, lmap, plan = m.spec, m.bill, m.layers, m.plan
        words = text.part_b_words(tr)
        return {
            "part": w.part_title(text.part_b_heading(tr)),
            "idea": w.paragraphs(words["idea"], cls="narration"),
            "look": w.paragraphs(words["look"], cls="narration"),
            "facts": w.paragraphs([text.model_info(spec, tr)], cls="live-facts"),
            "notices": self._notices(tr),
            "deeper": w.deeper(tr, why=[*text.precision_lines(tr),
                                        *text.plan_deeper(plan, bill, tr)]),
            "figure": w.html("step5/planner.html.j2", cls="planner",
                             **text.planner(plan, bill, lmap, tr, spec)),
            "cards": w.metrics(text.part_b_cards(spec, bill, m.live, tr)),
            "custom": self.your_model(tr) if m.model == CUSTOM else None,
            "classes": ["part-b"],
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


# the chart each of the legend's keys belongs to: the bar's weights, its chosen GPU's line and
# the other GPUs' lines; the curve's weights line and its dot at this context; the cache's
# parts (keys and values, or MLA's latent) are drawn in both
LEGEND_CHART = {"weights": "bar", "line:text": "bar", "dashed:muted": "bar",
                "dashed:weights": "curve", "dot:text": "curve"}


def legend_by_chart(items: list[tuple[str, str]]) -> list[tuple[str, list[tuple[str, str]]]]:
    """The legend in rows, one per chart it names ("" for what both draw, then "bar" and
    "curve"), each row a block the page hides where its chart is not drawn (a figure-only
    embed draws the curve alone: page.js, the legend's `of-<chart>` class)."""
    rows: dict[str, list[tuple[str, str]]] = {"": [], "bar": [], "curve": []}
    for key, label in items:
        rows[LEGEND_CHART.get(key, "")].append((key, label))
    return [(chart, got) for chart, got in rows.items() if got]

