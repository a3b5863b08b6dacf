"""The page's state: what the server sends and the browser draws (`steps/ui/js/page.js`).

One session's page is one browser component (`steps.ui.page.Page`) with one parameter per
part below. The server rebuilds the state when an input changes (a control, an answer, the
language, a live measurement arriving) and sets every part: a part equal to the one the page
has is not sent, so a slider move sends its values, the frames and the words it changed. Play
sends nothing: the browser moves through the frames it holds.

Every value is JSON: strings already translated and numbers already formatted for the locale.
Nothing here imports Panel: presenters (`steps/*/text.py`) build these dicts and tests check
them (`check_step`, `check_shell`).
"""
from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal, TypedDict

BLOCK_KINDS = ("paragraphs", "notices", "legend", "metrics", "table", "details", "html")
LIVE = ("tabs", "question", "controls", "custom", "stage", "talk")   # the page's live elements
CONTROL_KINDS = ("select", "radio", "range", "text")


class Block(TypedDict, total=False):
    """A block of the page (`steps.ui.words` builds them): `kind` is one of BLOCK_KINDS;
    `cls` extra CSS classes. paragraphs: items, heading; notices: items; legend: items
    [[palette key, label]]; metrics: cards, label; table: head, rows, caption; details:
    summary, blocks; html: html (autoescaped template output)."""
    kind: str
    cls: str


class CardState(TypedDict):
    key: str                 # the data-metric hook
    label: str
    value: str
    kind: str | None         # badge: measured / computed / illustrative, or None
    hidden: bool             # answers the question: “?” until answered
    more: bool               # under the collapsed “All numbers”


class ControlSpec(TypedDict, total=False):
    name: str                # the view-model parameter
    kind: Literal["select", "radio", "range", "text"]
    label: str
    size: str                # narrow / normal / wide
    options: list            # [[value, label]] for select and radio ([value, label, short]:
                             # a radio's short label on the projected page)
    start: float
    end: float
    step: float
    placeholder: str
    max_length: int
    hidden: bool             # set by something else on the page (tabs): not drawn as a control


class QuestionState(TypedDict):
    key: Any                 # a new key asks again
    lead: str
    prompt: str
    options: list[str]
    correct: int
    explain: str
    right: str
    wrong: str
    show: str
    mark: str                # said after the right option once answered or shown
    projected: str           # the prompt in presenter mode, shorter ("": the prompt)
    answer: int | None       # the learner's pick
    shown: bool              # “Show me” pressed


class StageState(TypedDict, total=False):
    figure: str              # the renderer's name in js/figures.js
    text: dict               # the player's and figure's fixed labels (words.player_text + more)
    interval: int            # milliseconds between frames while playing
    player: bool             # False: one still frame, no player bar, no keys


class Frame(TypedDict, total=False):
    pos: str                 # the player's position line
    say: str                 # announced after Step / Pause
    desc: str                # one sentence: what the figure shows now
    cards: list[CardState]
    caption: str
    table: dict              # the chart's text twin: {head, rows}
    tables: list[dict]       # more tables in the twin, after it: {head, rows, caption}
    fig: dict                # whatever the stage's renderer reads


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


class StepState(Regions):
    """A step on screen (`steps.ui.step.Step.state`): its regions and its live parts."""
    number: int
    classes: list[str]       # on the step's root: e.g. ["step-5"]
    variant: str             # a row variant of the layout table ("" = the mode's row)
    tabs: dict | None        # {"label", "items": [[value, title]], "active"} (a step in parts)
    question: QuestionState | None
    controls: list[ControlSpec]
    values: dict[str, Any]   # control name -> the value shown
    acks: dict[str, int]     # control name -> the `seq` of the last change handled
    custom: dict | None      # a step's own widget group (step 5's config box)
    stage: StageState | None
    frames: str              # the stage's frames, one JSON text (steps.ui.frames)
    frame: int               # where playback stands
    concealed: bool          # answer-bearing numbers show “?”


class ShellState(TypedDict):
    """The page around the step (`steps.shell.App.shell_state`)."""
    lang: str
    title: str               # the document's title
    embed: bool
    present: bool
    speaker: bool            # with present: the speaker view (notes, full prose), synced
    talk: dict | None        # present: {"notes_label", "notes", "next_label", "next",
                             # "answer_label", "prose_label", "hint", "title"}
    figure: bool             # with embed: only the figure, its controls and the lead sentence
    app_title: str
    language: dict           # {"label", "options": [[code, name]], "value"}
    nav: dict                # {"label", "items": [titles], "active": index}
    prev: str
    next: str
    at_start: bool
    at_end: bool
    notices: list[str]
    heading: str             # html: where we are, the title and the schematic
    embed_bar: dict | None   # {"line", "open"}: its link is the page's query without embed
    faq: str                 # html ("" in presenter and embed modes)
    badges: dict             # {kind: [label, tooltip]}: the cards' badges outside a stage
    link: dict               # the copy-link button: {"label", "done", "field", "manual",
                             # "frame": the query parameter that follows the player, or None,
                             # "modes": the page modes the copied link leaves out}


STEP_KEYS = (*REGIONS, *(k for k in StepState.__annotations__ if k not in REGIONS))
SHELL_KEYS = tuple(ShellState.__annotations__)


def _check_blocks(blocks: list, where: str) -> None:
    for b in blocks:
        assert isinstance(b, dict) and b.get("kind") in BLOCK_KINDS, f"{where}: bad block {b!r}"
        if b["kind"] == "details":
            _check_blocks(b["blocks"], where)


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
    is a list takes its first filled name; what is empty is left out (the page hides it)."""
    row = layout_table()[mode]
    v = row.get("variants", {}).get(state.get("variant") or "", {})
    live = {"tabs": None, "question": state.get("question"),
            "controls": [c for c in state.get("controls", []) if not c.get("hidden")],
            "custom": state.get("custom"), "stage": state.get("stage"), "talk": None}

    def filled(name):
        return bool(live[name]) if name in live else bool(state.get(name))

    def side(names):
        picked = (next((n for n in e if filled(n)), None) if isinstance(e, list) else e
                  for e in names)
        return [n for n in picked if n is not None and filled(n)]
    return {"left": side(v.get("left", row["left"])), "right": side(v.get("right", row["right"]))}


def columns(state: dict, mode: str = "normal") -> dict[str, list[dict]]:
    """The blocks of `state`'s step as the page lays them out in `mode` (`placed`):
    {"left": [...], "right": [...]}, a live element as {"kind": "slot", "name": ...} where it
    goes. For tests and tools: the browser does this itself."""
    return {side: [b for n in names for b in ([{"kind": "slot", "name": n}] if n in LIVE
                                               else state[n])]
            for side, names in placed(state, mode).items()}


def check_step(state: dict) -> dict:
    """`state` has exactly the StepState keys, its blocks and controls are well formed and
    it is JSON (an AssertionError says what is wrong). Returns it."""
    import json
    assert set(state) == set(STEP_KEYS), f"keys: {sorted(set(state) ^ set(STEP_KEYS))}"
    for r in REGIONS:
        _check_blocks(state[r], r)
    assert not state["variant"] or state["variant"] in layout_variants(), state["variant"]
    for c in state["controls"]:
        assert c["kind"] in CONTROL_KINDS and c["name"] in state["values"], c
    json.dumps(state)
    json.loads(state["frames"] or "[]")
    return state


def check_shell(state: dict) -> dict:
    import json
    assert set(state) == set(SHELL_KEYS), f"keys: {sorted(set(state) ^ set(SHELL_KEYS))}"
    json.dumps(state)
    return state


def check_page(state: dict) -> dict:
    """A whole page's state (`steps.shell.App.state`): the shell, the query, the glossary
    (`steps.glossary.glossary_state`) and the step."""
    from steps.glossary import check_glossary
    assert isinstance(state.get("query"), str) and state["query"].startswith("?")
    check_shell(state["shell"])
    check_glossary(state["glossary"])
    check_step({k: v for k, v in state.items() if k not in ("shell", "query", "glossary")})
    return state
