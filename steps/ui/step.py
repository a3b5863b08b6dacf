"""A step on screen, without Panel: its view-model, its controls, its question and the state
the page draws (`steps.ui.state.StepState`).

Each step's `view.py` subclasses `Step`: it names the model class, the URL parameters, the
controls and the figure renderer, and `page(tr)` turns the model's outputs into the blocks,
question and frames of the step (the words come from the step's `text.py`). What the base
adds from the step's package: its exercises at the end of the reading column
(`exercise_blocks`: the package's exercises.py, found through `steps.registry`) and the labels
of controls that name none (`labels`: the package's `text.control_labels`). The page sends a
learner's move as one message; `handle` applies it to the model, and the shell asks for the
new `state()`, whose unchanged parts are not sent again.

A step lives only while it is on screen: leaving keeps `saved()` (its inputs and the answer)
and a later visit builds it again from that.
"""
from __future__ import annotations

import importlib
import math
import threading
from typing import Any

import param

from .. import registry
from ..common import translator
from . import conceal, exercises
from .frames import frames_text
from .controls import Control
from .state import REGIONS, StepState

PAGE_KEYS = {*REGIONS, "question", "frames", "stage", "tabs", "custom", "classes", "variant"}


def regions(page: dict) -> dict:
    """A `page()`'s regions, every one of REGIONS, each a list of blocks (a single block is
    a list of one; what says nothing is left out). A key `page()` may not return fails."""
    unknown = set(page) - PAGE_KEYS
    assert not unknown, f"page() returned unknown parts: {sorted(unknown)}"
    out = {}
    for r in REGIONS:
        blocks = page.get(r) or []
        out[r] = [b for b in ([blocks] if isinstance(blocks, dict) else blocks) if b]
    return out

NOT_ASKED = object()          # no question has been shown yet in this visit


def _record(answer: int | None = None, shown: bool = False, key: Any = NOT_ASKED,
            about: Any = None) -> dict:
    """One question's record: the learner's pick, whether “Show me” was pressed, the key of
    the question it answers (a new key asks again) and what it was asked about."""
    return {"answer": answer, "shown": bool(shown), "key": key, "about": about}


def index_in(msg, n: int) -> int | None:
    """A message that names one of `n` items (an int in 0..n-1, not a bool), else None."""
    if isinstance(msg, int) and not isinstance(msg, bool) and 0 <= msg < n:
        return msg
    return None


class Step:
    """The base of every step's controller (see the module doc)."""

    number: int = 0
    model_class: type[param.Parameterized] | None = None
    url_names: dict[str, str] = {}     # model parameter -> URL query parameter (a tuple of
                                       # names: each parameter under its own name)
    kept: tuple[str, ...] = ()         # more model parameters a later visit restores
    figure: str = ""                   # the stage's renderer in js/figures.js ("" = no stage)
    interval: int = 900                # milliseconds between frames while playing
    player: bool = True                # False: the stage is one still frame
    unasked: bool = False              # True: no question on the page (a figure-only embed):
                                       # nothing waits for an answer
    tells_answer: bool = False         # True: the speaker's own view, whose panel says the
                                       # answer before the class has answered (only the
                                       # question's answer: the rest waits as projected)
    figure_controls: tuple[str, ...] = ()   # a figure-only embed's controls (URL names; empty:
                                            # the first two shown)
    only_controls: tuple[str, ...] | None = None   # the controls drawn (names; None: all):
                                                   # `choose_controls`

    def __init_subclass__(cls, **kw):
        super().__init_subclass__(**kw)
        if isinstance(cls.__dict__.get("url_names"), tuple):
            cls.url_names = {n: n for n in cls.url_names}

    def __init__(self, lang: str = "en", saved: dict | None = None):
        self.lang = lang
        saved = saved or {}
        inputs = dict(saved.get("model", {}))
        if "lang" in self.model_class.param:
            inputs["lang"] = lang
        self.model = self.model_class(**inputs)
        # the record of each question asked in this step (`question_scope`): the learner's
        # pick, “Show me”, the key it was asked under and what it was asked about
        self._questions: dict[str, dict] = {s: _record(**r) for s, r in
                                        (saved.get("questions") or {}).items()}
        self._lock = threading.Lock()
        self._seq: dict[str, int] = {}
        self._controls = {c.name: c for c in self.controls()}

    # -- what a step defines -----------------------------------------------------------------
    def controls(self) -> list[Control]:
        """The step's controls, in the order they are shown."""
        return []

    def page(self, tr) -> dict:
        """The step in words and figures: a dict with its regions (`state.REGIONS`: "lead",
        "look", "figure", …, each a list of blocks, or one block), "question" (the text
        layer's content, or None), "frames" (a list, or `Frames` shared by the sessions),
        "stage" (extra fixed labels for the renderer), "tabs", "custom", "classes" and
        "variant" (a row variant of the layout table). Reads `self.revealed` for whatever
        waits for the answer."""
        raise NotImplementedError

    def title(self, tr) -> str | None:
        """The page's title where it is not the step's own (the key-ideas page showing its
        sheet: “Exercises”): the heading, the document's title and the embed bar say it. None:
        the step's title."""
        return None

    def labels(self, tr) -> dict[str, str]:
        """{control name: label} for the controls that name no label: the step's text layer's
        `control_labels(tr)`, from the `text` module of the view's own package
        (steps/stepN/text.py)."""
        package = type(self).__module__.rpartition(".")[0]
        return importlib.import_module(f"{package}.text").control_labels(tr)

    def exercise_blocks(self, tr) -> list[dict]:
        """The step's exercises, the end of its reading column: its package's exercises.py
        (`registry.exercises` by the step's number) as `steps.ui.exercises.blocks` draws
        them, each task marked done or not yet from the model as it is now."""
        return exercises.blocks(registry.exercises(self.number), self.model, tr)

    def watched(self) -> list[tuple[param.Parameterized, list[str]]]:
        """The objects and parameters whose change redraws the step."""
        return [(self.model, [p for p in self.model.param if p != "name"])]

    def custom(self, msg: dict) -> None:
        """A message of the step's own widget group (step 5's config box)."""

    def on_reveal(self) -> None:
        """The question was just answered, or “Show me” pressed, for the first time in this
        visit: move the view-model to the state the answer talks about (step 1: the next
        token; step 3: decode step 3; step 6: GQA), so that the figure, the link and the
        page show it. Called once, under the step's lock, before the new state is drawn;
        what waits for the answer (`self.revealed`) is already un-concealed."""

    def linked(self, names: list[str]) -> None:
        """A link was just applied: `names` are the model parameters it set (each to a valid
        value). A step in parts may open the part that shows what the link set (step 5: a
        link made before it had parts, which sets the GPU, opens its planner)."""

    def question_scope(self) -> str:
        """Which question the page shows: one per step (""), or one per part of a step in
        parts (step 6: the part), each answered, kept and restored on its own."""
        return ""

    def question_about(self) -> Any:
        """What the open question is about, read from the model (step 2: the prompt and the
        length), or None. Kept with the answer: once answered, `asked_about` stays what was
        answered while the controls move on."""
        return None

    # -- the question's record: `page()` reads it, `state()` and `handle()` write it ----------
    def _asked_now(self) -> dict:
        return self._questions.setdefault(self.question_scope(), _record())

    @property
    def answer(self) -> int | None:
        return self._asked_now()["answer"]

    @answer.setter
    def answer(self, i: int | None) -> None:
        self._asked_now()["answer"] = i

    @property
    def shown(self) -> bool:
        return self._asked_now()["shown"]

    @shown.setter
    def shown(self, shown: bool) -> None:
        self._asked_now()["shown"] = bool(shown)

    @property
    def asked_about(self) -> Any:
        """What the question on the page is about: what was answered, once it is."""
        about = self._asked_now()["about"]
        return about if self.revealed and about is not None else self.question_about()

    def _reveal(self, answer: int | None = None, shown: bool = False) -> None:
        """The learner picked `answer` or pressed “Show me”: noted in the record, and the
        first time in this visit the view-model moves to what the answer says (`on_reveal`)."""
        record, first = self._asked_now(), not self.revealed
        if first:
            record["about"] = self.question_about()
        if answer is not None:
            record["answer"] = answer
        record["shown"] = record["shown"] or shown
        if first:
            self.on_reveal()

    # -- state ---------------------------------------------------------------------------------
    @property
    def revealed(self) -> bool:
        return self.answer is not None or self.shown or self.unasked

    @property
    def tr(self):
        return translator(self.lang)

    def state(self) -> StepState:
        tr = self.tr
        page = self.page(tr)
        q = page.get("question")
        key = q.get("key") if q else None
        record = self._asked_now()
        if q is None:
            pass        # no question now (one that waits for the live model): its record stays
        elif record["key"] is NOT_ASKED:
            record["key"] = key
        elif key != record["key"]:                   # the state the question is about changed
            revealed = self.revealed
            record.update(_record(key=key))
            if revealed:
                page = self.page(tr)
                q = page.get("question")
        # what waits for the answer (steps/ui/conceal.py): the question's answer, the
        # answer-bearing cards; the presenter has built the rest from `self.revealed`
        concealed = not self.revealed
        question = conceal.question(q, self.answer, self.shown,
                                    told=not concealed or self.tells_answer)
        frames = frames_text(page.get("frames"), concealed)
        page = {**page, "exercises": self.exercise_blocks(tr)}     # the package's, not page()'s
        stage = None
        if self.figure:
            from .words import player_text
            stage = {"figure": self.figure, "interval": self.interval, "player": self.player,
                     "text": {**player_text(tr), **page.get("stage", {})}}
        return StepState(
            **(conceal.conceal(regions(page)) if concealed else regions(page)),
            number=self.number, classes=[f"step-{self.number}", *page.get("classes", [])],
            variant=page.get("variant", ""), tabs=page.get("tabs"),
            question=question, controls=[self.control_spec(c, tr) for c in self._controls.values()],
            values={n: self.shown_value(c) for n, c in self._controls.items()},
            acks=dict(self._seq),
            custom=page.get("custom"), stage=stage, frames=frames,
            frame=int(getattr(self.model, "frame", 0) or 0), concealed=concealed)

    def choose_controls(self, asked: str | None, figure: bool) -> list[str]:
        """Which controls an embed draws: those `asked` names (a course page's `controls=`,
        URL names separated by commas, in the step's order), else in a figure-only embed the
        step's `figure_controls`, or its first two; else all. Returns the asked names this step
        does not have (each gets a notice)."""
        by_url = {self.url_names.get(n, n): n for n in self._controls}
        shown = [n for n, c in self._controls.items() if not c.hidden]
        if asked is not None:
            names = [a.strip() for a in asked.split(",") if a.strip()]
            unknown = [a for a in names if a not in by_url]
            chosen = {by_url[a] for a in names if a in by_url}
            self.only_controls = tuple(n for n in shown if n in chosen)
            return unknown
        if figure:
            main = [by_url[n] for n in self.figure_controls if n in by_url] or shown[:2]
            self.only_controls = tuple(n for n in shown if n in main)
        return []

    def control_spec(self, c: Control, tr) -> dict:
        label = c.label(tr) if callable(c.label) else tr._(c.label) if c.label else \
            self.labels(tr)[c.name]
        spec = {"name": c.name, "kind": c.kind, "label": label, "size": c.size}
        if c.hidden or (self.only_controls is not None and c.name not in self.only_controls):
            spec["hidden"] = True
        if c.options is not None:
            short = c.short(tr) if c.short else {}
            spec["options"] = [[v, str(text), *([str(short[v])] if v in short else [])]
                               for text, v in c.options(tr).items()]
        if c.kind == "range":
            spec.update(start=self._bound(c, 0), end=self._bound(c, 1), step=c.step)
        if c.kind == "text":
            placeholder = c.placeholder(tr) if callable(c.placeholder) else \
                (tr._(c.placeholder) if c.placeholder else "")
            spec.update(placeholder=placeholder, max_length=c.max_length)
        return spec

    def _bound(self, c: Control, i: int):
        given = (c.start, c.end)[i]
        return given if given is not None else self.model.param[c.name].bounds[i]

    def shown_value(self, c: Control):
        v = c.shown(self.model) if c.shown else getattr(self.model, c.name)
        return "" if c.kind == "text" and v is None else v

    # -- a learner's move ----------------------------------------------------------------------
    def accept(self, name, value) -> tuple[bool, Any]:
        """(whether `value` is one the control `name` can take, the value to set)."""
        c = self._controls.get(name) if isinstance(name, str) else None
        if c is None:
            return False, None
        if c.kind in ("select", "radio"):
            allowed = list(c.options(self.tr).values())
            return (value in allowed and not isinstance(value, bool)), value
        if c.kind == "range":
            if isinstance(value, bool) or not isinstance(value, (int, float)) \
                    or not math.isfinite(value):
                return False, None
            lo, hi = self._bound(c, 0), self._bound(c, 1)
            snapped = min(hi, max(lo, lo + round((value - lo) / c.step) * c.step))
            if isinstance(self.model.param[name], param.Integer):
                snapped = int(round(snapped))
            return True, snapped
        if not isinstance(value, str):
            return False, None
        return True, value[: c.max_length] if c.max_length else value

    def move(self, name, value) -> None:
        """Apply a control's new value, if it is one the control can take."""
        ok, value = self.accept(name, value)
        if ok and value != self.shown_value(self._controls[name]):
            c = self._controls[name]
            if c.on_change is not None:
                c.on_change(value)
            else:
                setattr(self.model, name, value)

    def handle(self, msg: dict) -> None:
        """A message from the page: {"set": control, "value": v, "seq": n} (a change older
        than one already applied to the same control is dropped), {"answer": i},
        {"shown": true}, {"frame": i} (where playback stopped) or {"custom": {...}}."""
        with self._lock:
            if "set" in msg:
                name, seq = msg.get("set"), msg.get("seq")
                if isinstance(seq, int) and not isinstance(seq, bool) and isinstance(name, str):
                    if seq <= self._seq.get(name, 0):
                        return
                    self._seq[name] = seq
                self.move(name, msg.get("value"))
            elif "answer" in msg:
                q = self.page(self.tr).get("question") or {}
                i = index_in(msg["answer"], len(q.get("options", ())))
                if i is not None:
                    self._reveal(answer=i)
            elif msg.get("shown") is True:
                self._reveal(shown=True)
            elif "frame" in msg and "frame" in self.model.param:
                p = self.model.param["frame"]
                i = msg["frame"]
                if isinstance(i, int) and not isinstance(i, bool):
                    lo, hi = p.bounds if p.bounds else (0, None)
                    i = max(lo or 0, i if hi is None else min(hi, i))
                    self.model.frame = i
            elif isinstance(msg.get("custom"), dict):
                self.custom(msg["custom"])

    # -- visits ----------------------------------------------------------------------------------
    def saved(self) -> dict:
        """What a later visit restores: the view-model's inputs and each question's record."""
        m = self.model
        return {"model": {n: getattr(m, n) for n in (*self.url_names, *self.kept)},
                "questions": {s: dict(r) for s, r in self._questions.items()}}

    def url_state(self) -> dict:
        return {q: getattr(self.model, p) for p, q in self.url_names.items()}

    def close(self) -> None:
        """The step leaves the page (a step with background work stops asking for it)."""


def every_state(model: param.Parameterized, *names: str):
    """Set `model` to every combination of the named Integer params' values (their bounds),
    yielding after each: what a server warms at start, one state at a time."""
    import itertools
    ranges = [range(model.param[n].bounds[0], model.param[n].bounds[1] + 1) for n in names]
    for values in itertools.product(*ranges):
        model.param.update(**dict(zip(names, values)))
        yield values
