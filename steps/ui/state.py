"""The page's state: what the server sends and the browser draws (`steps/ui/js/page.js`).

One session's page is one browser component (`steps.ui.page.Page`) with one parameter per
part below. The server rebuilds the state when an input changes (a control, an answer, the
language, a live measurement arriving) and sets every part: a part equal to the one the page
has is not sent, so a slider move sends its values, the frames and the words it changed. Play
sends nothing: the browser moves through the frames it holds.

Every value is JSON: strings already translated and numbers already formatted for the locale.
Nothing here imports Panel: presenters (`steps/*/text.py`) build these dicts and tests check
them (`check_step`, `check_shell`, `check_page`).

The shape is written once, as TypedDicts: here the envelope, the regions' blocks (one type per
kind, `Block` their union), the cards, controls, question, stage and shell; beside each
presenter (`steps/stepN/text.py`) the payload of its figure renderer, a subclass of `Frame`
whose `fig` is that renderer's TypedDict, and the renderer's stage labels (`StageText`).
`FIGURES` names them per renderer of js/figures.js, `WIDGETS` the payload of each widget
(`StepState.custom`). A tuple annotation stands for a JSON array of fixed length and item
types (`Tick`: [value, label]); presenters build them as lists.

`json_schema()` turns all of it into one JSON Schema (draft-07; `python -m steps.ui.state
--schema` prints it): the stage of each renderer is a member of its own (`<Name>Stage`: its
`figure` and its labels), and the frames, one JSON text in the state, are described there by
`contentSchema` (each renderer's `<Name>StageFrame`). The check functions validate against it,
frames included (`steps/ui/schema.py`); the renderers' JSDoc typedefs (the header of each
js/draw/*.js) are made from it too (`jsdoc`, `--jsdoc NAME`).
"""
from __future__ import annotations

import importlib
import json
from functools import lru_cache
from pathlib import Path
from typing import Literal, NewType, NotRequired, TypedDict

BLOCK_KINDS = ("paragraphs", "notices", "legend", "metrics", "table", "details", "html")
LIVE = ("tabs", "question", "answer", "controls", "custom", "stage", "talk",
        "screen", "said")  # the page's live elements (`answer`: the question's revealed answer;
#                            `said`: the speaker view's box of it)
CONTROL_KINDS = ("select", "radio", "range", "text")

Scalar = str | int | float | bool | None
Tick = tuple[float, str]              # an axis tick: [value, its label]
Badge = tuple[str, str]               # a provenance badge: [label, tooltip]


class CardState(TypedDict):
    """One number card (`words.card_dicts`)."""
    key: str                 # the data-metric hook
    label: str
    value: str
    kind: Literal["measured", "computed", "illustrative"] | None   # the badge, or None
    hidden: bool             # answers the question: “?” until answered
    more: bool               # under the collapsed “All numbers”


# -- blocks: one type per kind (steps/ui/words.py builds them, js/blocks.js draws them) ----------

class ParagraphsBlock(TypedDict):
    """Paragraphs of plain text under an optional heading."""
    kind: Literal["paragraphs"]
    items: list[str]
    heading: str
    cls: str                 # extra CSS classes


class NoticesBlock(TypedDict):
    """Short notices, announced politely."""
    kind: Literal["notices"]
    items: list[str]
    cls: str


class LegendBlock(TypedDict):
    """Colour chips with their names."""
    kind: Literal["legend"]
    items: list[tuple[str, str]]   # [palette key, label]
    cls: str


class MetricsBlock(TypedDict):
    """A row of number cards."""
    kind: Literal["metrics"]
    cards: list[CardState]
    label: str
    cls: str


class TableBlock(TypedDict):
    """A table: a header row, rows of text and a caption."""
    kind: Literal["table"]
    head: list[str]
    rows: list[list[str]]
    caption: str
    cls: str


class DetailsBlock(TypedDict):
    """A collapsed section: its summary, and blocks inside."""
    kind: Literal["details"]
    summary: str
    blocks: list[Block]
    cls: str


class HtmlBlock(TypedDict):
    """Markup from an autoescaped template (`words.render`)."""
    kind: Literal["html"]
    html: str
    cls: str


Block = (ParagraphsBlock | NoticesBlock | LegendBlock | MetricsBlock | TableBlock |
         DetailsBlock | HtmlBlock)


# -- the step's live parts ------------------------------------------------------------------------

class ControlBase(TypedDict):
    name: str                # the view-model parameter
    label: str
    size: Literal["narrow", "normal", "wide"]
    hidden: NotRequired[bool]   # set by something else on the page (tabs): not drawn


class ChoiceControl(ControlBase):
    """A drop-down list or a row of radio buttons."""
    kind: Literal["select", "radio"]
    options: list[list[str | int | float]]   # [value, label], a radio's [value, label, short]
                                             # (its short label on the projected page)


class RangeControl(ControlBase):
    """A slider."""
    kind: Literal["range"]
    start: float
    end: float
    step: float


class TextControl(ControlBase):
    """A one-line text field."""
    kind: Literal["text"]
    placeholder: str
    max_length: int | None


ControlSpec = ChoiceControl | RangeControl | TextControl


class QuestionState(TypedDict):
    """The step's open question (`conceal.question`): its answer only once it is out."""
    key: tuple[Scalar, ...]  # a new key asks again
    lead: str
    prompt: str
    options: list[str]
    correct: int | None      # the right option, once answered or shown
    explain: str             # why, once answered or shown ("" before)
    points: list[str]        # the figure's parts the answer talks about, once answered or
                             # shown ([] before): the page marks each element of the figure
                             # named so (`data-point`, js/dom.js `markPoints`)
    right: str
    wrong: str
    show: str
    mark: str                # said after the right option once answered or shown
    projected: str           # the prompt in presenter mode, shorter ("": the prompt)
    answer: int | None       # the learner's pick
    shown: bool              # “Show me” pressed


class Tabs(TypedDict):
    """A step in parts: its tabs."""
    name: str                # the control they set
    label: str
    items: list[tuple[str, str]]   # [value, title]
    active: str


class Badges(TypedDict):
    """The cards' provenance badges in the session's language (`words.badges`)."""
    measured: Badge
    computed: Badge
    illustrative: Badge


class PlayerText(TypedDict):
    """The player's labels, the same on every stage (`words.player_text`)."""
    reset: str
    back: str
    next: str
    play: str
    pause: str
    table: str
    more: str
    badges: Badges
    screen: str              # "Chart {i} of {n}": the page puts the figure's screen in
    next_screen: str
    prev_screen: str


class StageText(PlayerText):
    """A stage's fixed labels: the player's and the figure's name; a renderer that needs more
    names a subclass (`FIGURES`)."""
    figure: str


class StageState(TypedDict):
    """The stage: its renderer and fixed labels (in the schema, one member per renderer,
    `<Name>Stage`, whose `text` is that renderer's labels)."""
    figure: str              # the renderer's name in js/figures.js
    text: StageText
    interval: int            # milliseconds between frames while playing
    player: bool             # False: one still frame, no player bar, no keys


class TableTwin(TypedDict):
    """A chart's text twin."""
    head: list[str]
    rows: list[list[str]]


class Frame(TypedDict):
    """One frame of the stage: text and cards; a renderer's frame (`FIGURES`) adds its `fig`,
    whatever that renderer reads, and what its `extra` box reads."""
    pos: str                 # the player's position line
    say: NotRequired[str]    # announced after Step / Pause (else desc)
    desc: str                # one sentence: what the figure shows now
    cards: list[CardState]
    caption: str
    table: TableTwin         # the chart's text twin
    tables: NotRequired[list[TableBlock]]   # more tables in the twin, after it


class WidgetState(TypedDict):
    """A step's own widget group (js/figures.js WIDGETS); each names a subclass (`WIDGETS`)."""
    widget: str


class Regions(TypedDict):
    """A step's words and figures by what they are for, each a list of blocks: the page lays
    them out by its mode's row of `steps/ui/js/layout.js` (`LAYOUT`), and redraws a region only
    when it changed. A step leaves out what it has nothing for (an empty list)."""
    part: list[Block]        # a step in parts: the part's title (projected: stands for the lead)
    lead: list[Block]        # the lead sentence
    idea: list[Block]        # what the question needs first: a definition, the part's idea
    look: list[Block]        # what to look at and what to press, and the one idea
    facts: list[Block]       # the live model or the chosen model, in a line
    notices: list[Block]     # what the inputs brought about (a limit passed, a wait)
    deeper: list[Block]      # the collapsed “Go deeper” sections (words.deeper)
    exercises: list[Block]   # the step's exercises (its package's exercises.py)
    figure: list[Block]      # a figure drawn once by the server (html), beside or without a stage
    legend: list[Block]      # the figure's colours, named
    cards: list[Block]       # number cards outside a stage
    more: list[Block]        # “All numbers”: the cards that are not headline numbers, collapsed
    extras: list[Block]      # more beside the figure: a formula, a planner, a chart's twin
    body: list[Block]        # a page without a figure (the key ideas, the sheet): all of it


REGIONS = tuple(Regions.__annotations__)


# a string that is already JSON (the frames): the page gets it as it is (steps/ui/page.py)
JSONText = NewType("JSONText", str)


class StepState(Regions):
    """A step on screen (`steps.ui.step.Step.state`): its regions and its live parts."""
    number: int
    classes: list[str]       # on the step's root: e.g. ["step-5"]
    variant: str             # a row variant of the layout table ("" = the mode's row)
    tabs: Tabs | None        # a step in parts
    question: QuestionState | None
    controls: list[ControlSpec]
    values: dict[str, Scalar]   # control name -> the value shown
    acks: dict[str, int]     # control name -> the `seq` of the last change handled
    custom: WidgetState | None   # a step's own widget group (step 5's config box)
    stage: StageState | None
    frames: JSONText         # the stage's frames, one JSON text (steps.ui.frames)
    frame: int               # where playback stands
    concealed: bool          # answer-bearing numbers show “?”


class Talk(TypedDict):
    """Presenter mode: the speaker view's words and the projected page's hint."""
    notes_label: str
    notes: str               # the step's speaker notes (its package's NOTES)
    next_label: str
    next_part_label: str     # a step in parts: the next part's title follows it
    clock: str               # "{time} on this step …": the page puts the time spent in {time}
    prose_toggle: str        # the drawer's button (key P)
    next: str                # the next step's title ("" at the end)
    answer_label: str
    prose_label: str
    hint: str
    title: str


class LanguageMenu(TypedDict):
    label: str
    options: list[tuple[str, str]]   # [code, name]
    value: str


class Nav(TypedDict):
    """The stepper."""
    label: str
    items: list[str]         # the steps' titles
    active: int              # the index of the step on screen


class EmbedBar(TypedDict):
    """The embed bar: its link is the page's query without embed."""
    line: str
    open: str


class CopyLink(TypedDict):
    """The copy-link button."""
    label: str
    done: str
    field: str
    manual: str
    frame: str | None        # the query parameter that follows the player
    modes: list[str]         # the page modes the copied link leaves out


class SaveLabels(TypedDict):
    """The row by a figure that saves it for slides (js/save.js)."""
    label: str
    svg: str                 # the SVG button's name
    png: str                 # the PNG button's name


class ShellState(TypedDict):
    """The page around the step (`steps.shell.App.shell_state`)."""
    lang: str
    title: str               # the document's title
    embed: bool
    present: bool
    speaker: bool            # with present: the speaker view (notes, full prose), synced
    copy: bool               # with present: the projected page's copy in the speaker view
    talk: Talk | None        # present only
    figure: bool             # with embed: only the figure, its controls and the lead sentence
    app_title: str
    language: LanguageMenu
    nav: Nav
    prev: str
    next: str
    at_start: bool
    at_end: bool
    notices: list[str]
    heading: str             # html: where we are, the title and the schematic
    embed_bar: EmbedBar | None   # embed only
    faq: str                 # html ("" in presenter and embed modes)
    badges: Badges           # the cards' badges outside a stage
    link: CopyLink | None    # None in a figure-only embed (the course page links)
    save: SaveLabels         # saving a figure as SVG or PNG


class BadgeLegend(TypedDict):
    """What the badges mean (`steps.glossary.legend`)."""
    label: str
    items: list[tuple[str, str, str]]   # [kind, badge, meaning]


class GlossaryState(TypedDict):
    """The page's glossary part (`steps.glossary.glossary_state`), sent once per language."""
    lang: str
    terms: list[tuple[str, list[str], str]]   # [term, its forms (the term first), definition]
    legend: BadgeLegend


class PageState(StepState):
    """A whole page's state (`steps.shell.App.state`): the step's parts and these."""
    shell: ShellState
    query: str               # the deep link's query, "?…"
    glossary: GlossaryState


STEP_KEYS = (*REGIONS, *(k for k in StepState.__annotations__ if k not in REGIONS))
SHELL_KEYS = tuple(ShellState.__annotations__)

# The figure renderers of js/figures.js FIGURES: name -> (its frames' TypedDict, a `Frame` whose
# `fig` is what the renderer draws; its stage labels', a `StageText`), as "module:Name" of the
# presenter that builds them (imported when the schema is made: the presenters import this
# module). WIDGETS: js/figures.js WIDGETS -> the `WidgetState` each one draws.
FIGURES: dict[str, tuple[str, str]] = {
    "arcs": ("steps.step1.text:ArcsStageFrame", "steps.step1.text:ArcsStageText"),
    "grids": ("steps.step2.text:GridsStageFrame", "steps.step2.text:GridsStageText"),
    "cache": ("steps.step3.text:CacheStageFrame", "steps.step3.text:CacheStageText"),
    "roofline": ("steps.step4.text:RooflineStageFrame", "steps.ui.state:StageText"),
    "bill": ("steps.step5.text:BillStageFrame", "steps.ui.state:StageText"),
    "pool": ("steps.step6.text:PoolStageFrame", "steps.step6.text:PoolStageText"),
    "strip": ("steps.step6.text:StripStageFrame", "steps.step6.text:StripStageText"),
}
WIDGETS: dict[str, str] = {"config": "steps.step5.text:ConfigCustom"}


LAYOUT_JS = Path(__file__).resolve().parent / "js" / "layout.js"


@lru_cache(maxsize=1)
def layout_table() -> dict:
    """The page's layout table (`LAYOUT` in js/layout.js, the strict JSON between its markers):
    {mode: {columns, tabs, left, right, variants?}}."""
    text = LAYOUT_JS.read_text(encoding="utf-8")
    body = text.split("// LAYOUT-JSON-START", 1)[1].split("// LAYOUT-JSON-END", 1)[0]
    body = body.strip().removeprefix("export const LAYOUT =").strip().removesuffix(";")
    return json.loads(body)


def layout_variants() -> set[str]:
    return {v for row in layout_table().values() for v in row.get("variants", {})}


def placed(state: dict, mode: str = "normal") -> dict[str, list[str]]:
    """The names of the regions and live elements that `state`'s step shows in `mode`, per
    column, as the page places them (js/layout.js `rowOf` and `placeRegions`): an entry that
    is a list takes its first filled name; what is empty is left out (the page hides it).
    The speaker view's `talk`, `screen` and `said` are the browser's own (left out here); its
    `drawer` (the prose, one key away) is given as a third list."""
    row = layout_table()[mode]
    v = row.get("variants", {}).get(state.get("variant") or "", {})
    live = {"tabs": None, "question": state.get("question"), "answer": state.get("question"),
            "controls": [c for c in state.get("controls", []) if not c.get("hidden")],
            "custom": state.get("custom"), "stage": state.get("stage"), "talk": None,
            "screen": None, "said": None}

    def filled(name):
        return bool(live[name]) if name in live else bool(state.get(name))

    def side(names):
        picked = (next((n for n in e if filled(n)), None) if isinstance(e, list) else e
                  for e in names)
        return [n for n in picked if n is not None and filled(n)]
    out = {"left": side(v.get("left", row["left"])), "right": side(v.get("right", row["right"]))}
    if row.get("drawer"):
        out["drawer"] = side(row["drawer"])
    return out


def columns(state: dict, mode: str = "normal") -> dict[str, list[dict]]:
    """The blocks of `state`'s step as the page lays them out in `mode` (`placed`):
    {"left": [...], "right": [...]}, a live element as {"kind": "slot", "name": ...} where it
    goes. For tests and tools: the browser does this itself."""
    return {side: [b for n in names for b in ([{"kind": "slot", "name": n}] if n in LIVE
                                               else state[n])]
            for side, names in placed(state, mode).items()}


# -- the schema -----------------------------------------------------------------------------------

def _named(ref: str):
    """The TypedDict "module:Name" names."""
    module, name = ref.split(":")
    return getattr(importlib.import_module(module), name)


def stage_name(figure: str) -> str:
    """The schema's name of a renderer's stage: "arcs" -> "ArcsStage"."""
    return figure[:1].upper() + figure[1:] + "Stage"


@lru_cache(maxsize=1)
def json_schema() -> dict:
    """The page's state (`PageState`) as one JSON Schema, draft-07, every TypedDict a
    definition under its class name (`$comment`: the file that defines it). `StageState`
    becomes the union of one member per renderer of `FIGURES` (its `figure` the renderer's
    name, its `text` the renderer's labels), `WidgetState` the union of `WIDGETS`, and the
    `frames` text says by `contentSchema` that it is a JSON array of the renderers' frames
    ("" without a stage; draft 2019-09's keyword, an annotation to draft-07: `check_step`
    parses the text and checks the frames against their renderer's)."""
    from .schema import DRAFT, Schema
    figures = {f: (_named(frame), _named(text)) for f, (frame, text) in FIGURES.items()}
    widgets = {w: _named(ref) for w, ref in WIDGETS.items()}
    s = Schema(overrides={
        StageState: {"anyOf": [{"$ref": f"#/definitions/{stage_name(f)}"} for f in figures]},
        WidgetState: {"anyOf": [{"$ref": f"#/definitions/{td.__name__}"}
                                for td in widgets.values()]}})
    base = s.definitions[s.define(StageState)]
    for f, (frame, text) in figures.items():
        s.definitions[stage_name(f)] = {
            "description": f"The stage of the renderer “{f}” (js/draw/{f}.js).",
            "$comment": "steps/ui/state.py",
            "type": "object", "required": base["required"], "additionalProperties": False,
            "properties": {**base["properties"], "figure": {"const": f},
                           "text": {"$ref": f"#/definitions/{s.define(text)}"}}}
        s.define(frame)
    for w, td in widgets.items():
        s.define(td)
        assert s.definitions[td.__name__]["properties"]["widget"] == {"const": w}, td
    for td in (StepState, ShellState, PageState):
        s.define(td)
    for td in (StepState, PageState):
        s.definitions[td.__name__]["properties"]["frames"].update(     # (an annotation)
            contentSchema={"type": "array", "items": {"anyOf": [
                {"$ref": f"#/definitions/{frame.__name__}"} for frame, _ in figures.values()]}})
    for name, td in s.types.items():
        s.definitions[name]["$comment"] = td.__module__.replace(".", "/") + ".py"
    return {"$schema": DRAFT, "title": "The KV Cache Explainer's page state",
            "description": "What the server sends and the browser draws: steps/ui/state.py",
            "allOf": [{"$ref": "#/definitions/PageState"}],
            "definitions": dict(sorted(s.definitions.items()))}


@lru_cache(maxsize=None)
def _validator(what: str):
    """The compiled check of a definition, or of a renderer's frames ("frames:arcs")."""
    from .schema import validator
    defs = json_schema()["definitions"]
    if what.startswith("frames:"):
        frame = _named(FIGURES[what.removeprefix("frames:")][0]).__name__
        return validator({"definitions": defs, "type": "array",
                          "items": {"$ref": f"#/definitions/{frame}"}})
    return validator({"definitions": defs, "$ref": f"#/definitions/{what}"})


def validate(what: str, value, where: str = "") -> None:
    """`value` matches the schema's definition `what` (or "frames:<renderer>"); an
    AssertionError says where it does not."""
    from fastjsonschema import JsonSchemaValueException

    from .schema import explain
    try:
        _validator(what)(value)
    except JsonSchemaValueException as e:
        raise AssertionError(f"{where or what}: "
                             f"{explain(e, value, json_schema()['definitions'])}") from None


def jsdoc(name: str) -> str:
    """The JSDoc typedefs at the head of js/draw/<name>.js: a renderer's frame (its `fig`
    with it) and stage labels, or a widget's payload, with the types they use that are not
    defined in this module."""
    from .schema import jsdoc as write
    defs = json_schema()["definitions"]
    roots = ([_named(r).__name__ for r in FIGURES[name]] if name in FIGURES else
             [_named(WIDGETS[name]).__name__])
    shared = {n for n, d in defs.items() if d["$comment"] == "steps/ui/state.py"}
    return write(defs, roots, skip=shared - set(roots),
                 source=f"python -m steps.ui.state --jsdoc {name}")


JS_DRAW = Path(__file__).resolve().parent / "js" / "draw"


def write_jsdoc(name: str) -> bool:
    """Put `jsdoc(name)` at the head of js/draw/<name>.js, in place of the one there (from its
    first line to the last comment before the first import) or before the first import.
    Returns whether the file changed."""
    from .schema import JSDOC_FIRST
    path = JS_DRAW / f"{name}.js"
    text = path.read_text(encoding="utf-8")
    head, sep, rest = text.partition("\nimport ")
    if JSDOC_FIRST in head:
        head = head[:head.index(JSDOC_FIRST)].rstrip("\n") + "\n"
    new = f"{head.rstrip()}\n\n{jsdoc(name)}\n{sep}{rest}"
    if new != text:
        path.write_text(new, encoding="utf-8")
    return new != text


def check_step(state: dict) -> dict:
    """`state` is a StepState: it matches the schema (`json_schema`), its frames the frames
    of its stage's renderer, its variant is a row of the layout table and every control has a
    value; it is JSON (an AssertionError says what is wrong). Returns it."""
    assert set(state) == set(STEP_KEYS), f"keys: {sorted(set(state) ^ set(STEP_KEYS))}"
    validate("StepState", state, "step")
    assert not state["variant"] or state["variant"] in layout_variants(), state["variant"]
    for c in state["controls"]:
        assert c["name"] in state["values"], c
    frames = json.loads(state["frames"] or "[]")
    if state["stage"]:
        figure = state["stage"]["figure"]
        validate(f"frames:{figure}", frames, f"frames of “{figure}”")
    else:
        assert frames == [], "frames without a stage"
    json.dumps(state)
    return state


def check_shell(state: dict) -> dict:
    """`state` is a ShellState (the schema's) and JSON. Returns it."""
    assert set(state) == set(SHELL_KEYS), f"keys: {sorted(set(state) ^ set(SHELL_KEYS))}"
    validate("ShellState", state, "shell")
    json.dumps(state)
    return state


def check_page(state: dict) -> dict:
    """A whole page's state (`steps.shell.App.state`, a PageState): the shell, the query, the
    glossary (`steps.glossary.glossary_state`, checked by its own rules too) and the step."""
    from steps.glossary import check_glossary
    assert isinstance(state.get("query"), str) and state["query"].startswith("?")
    check_shell(state["shell"])
    check_glossary(state["glossary"])
    validate("GlossaryState", state["glossary"], "glossary")
    check_step({k: v for k, v in state.items() if k not in ("shell", "query", "glossary")})
    return state


def main(argv: list[str] | None = None) -> None:
    """`python -m steps.ui.state --schema | --jsdoc NAME | --write-jsdoc`."""
    import argparse
    import sys
    ap = argparse.ArgumentParser(prog="python -m steps.ui.state",
                                 description="The page state's JSON Schema and JSDoc typedefs.")
    ap.add_argument("--schema", action="store_true", help="print the JSON Schema")
    ap.add_argument("--jsdoc", metavar="NAME", choices=[*FIGURES, *WIDGETS],
                    help="print the typedefs of js/draw/NAME.js (a renderer or a widget)")
    ap.add_argument("--write-jsdoc", action="store_true",
                    help="put the typedefs at the head of every renderer's and widget's file")
    args = ap.parse_args(argv)
    if args.schema:
        json.dump(json_schema(), sys.stdout, ensure_ascii=False, indent=1)
        print()
    if args.jsdoc:
        print(jsdoc(args.jsdoc))
    if args.write_jsdoc:
        for name in (*FIGURES, *WIDGETS):
            print(name, "written" if write_jsdoc(name) else "unchanged")
    if not (args.schema or args.jsdoc or args.write_jsdoc):
        ap.print_help()


if __name__ == "__main__":
    # run as the module the presenters import (not a second copy, `__main__`), whose
    # TypedDicts theirs extend
    from steps.ui.state import main as _main
    _main()
