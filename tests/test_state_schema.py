"""The page state's one schema: the TypedDicts of steps/ui/state.py and of the presenters'
figure payloads, made into a JSON Schema (steps/ui/schema.py) that `check_step`,
`check_shell` and `check_page` validate against, frames included, each against its renderer's
payload. It refuses what breaks the contract (a field missing, a wrong type, a key the type does
not have, a block or renderer that does not exist); the registries name the page's renderers
and widgets; the JSDoc typedefs at the head of js/draw/*.js are the ones it makes."""
from __future__ import annotations

import copy
import json
import re
import subprocess
import sys
import typing
from pathlib import Path
from typing import Literal, NotRequired, TypedDict

import pytest

from steps.registry import NUMBERS
from steps.shell import App, step_class
from steps.ui import schema, state
from steps.ui.state import (FIGURES, WIDGETS, Frame, StageText, check_page, check_shell,
                            check_step, json_schema)

ROOT = Path(__file__).resolve().parents[1]


# -- the converter, on types of its own ----------------------------------------------------------

class Leaf(TypedDict):
    """A leaf."""
    n: int                   # how many
    tag: NotRequired[str]    # a name, when it has one
                             # (said in two lines)


class Tree(TypedDict, total=False):
    kind: Literal["tree"]
    leaves: list[Leaf]
    kids: list[Tree]
    pair: tuple[float, str]
    flat: int | str | None
    maybe: Leaf | None
    table: dict[str, bool]


def test_typeddicts_become_closed_definitions_with_their_keys_required_or_not():
    s = schema.Schema()
    assert s.of(list[Tree]) == {"type": "array", "items": {"$ref": "#/definitions/Tree"}}
    leaf, tree = s.definitions["Leaf"], s.definitions["Tree"]
    assert leaf == {"description": "A leaf.", "type": "object", "required": ["n"],
                    "additionalProperties": False, "properties": {
                        "n": {"description": "how many", "type": "integer"},
                        "tag": {"description": "a name, when it has one (said in two lines)",
                                "type": "string"}}}
    assert tree["required"] == [] and tree["additionalProperties"] is False
    p = tree["properties"]
    assert p["kind"] == {"const": "tree"}
    assert p["kids"] == {"type": "array", "items": {"$ref": "#/definitions/Tree"}}   # itself
    assert p["pair"] == {"type": "array", "items": [{"type": "number"}, {"type": "string"}],
                         "minItems": 2, "additionalItems": False}
    assert p["flat"] == {"type": ["integer", "string", "null"]}
    assert p["maybe"] == {"anyOf": [{"$ref": "#/definitions/Leaf"}, {"type": "null"}]}
    assert p["table"] == {"type": "object", "additionalProperties": {"type": "boolean"}}


def test_the_converter_refuses_a_type_it_cannot_say():
    with pytest.raises(TypeError, match="no JSON Schema"):
        schema.Schema().of(set[int])


def test_a_compiled_check_says_where_a_value_breaks_its_type():
    s = schema.Schema()
    root = s.of(Tree)
    check = schema.validator({"definitions": s.definitions, **root})
    good = {"kind": "tree", "leaves": [{"n": 1}, {"n": 2, "tag": "b"}],
            "kids": [{"kids": [{"pair": [1.5, "x"]}]}], "flat": None, "maybe": {"n": 0},
            "table": {"a": True}}
    assert check(good) == good
    for bad, says in [
        ({"leaves": [{"tag": "no n"}]}, r"data\.leaves\[0\] must contain \['n'\]"),
        ({"leaves": [{"n": "1"}]}, r"data\.leaves\[0\]\.n must be integer"),
        ({"leaves": [{"n": True}]}, r"data\.leaves\[0\]\.n must be integer"),
        ({"kids": [{"kids": [{"colour": "red"}]}]}, r"must not contain \{'colour'\}"),
        ({"pair": [1.5]}, r"data\.pair must contain at least 2 items"),
        ({"pair": [1.5, "x", 3]}, r"data\.pair must contain only specified items"),
        ({"kind": "bush"}, r"data\.kind must be same as const definition: tree"),
        ({"table": {"a": 1}}, r"data\.table\.a must be boolean"),
    ]:
        with pytest.raises(Exception, match=says):
            check(bad)
    # a union's member that the value claims to be (its constant fields) gives the message
    with pytest.raises(Exception) as e:
        check({"maybe": {"n": "one"}})
    assert schema.explain(e.value, {"maybe": {"n": "one"}}, s.definitions) == (
        "data.maybe.n must be integer")


# -- the page's schema ----------------------------------------------------------------------------

def test_the_registries_name_every_renderer_and_widget_the_page_has():
    """state.FIGURES and state.WIDGETS are js/figures.js's FIGURES and WIDGETS; each renderer's
    frame is a Frame with its `fig`, its labels a StageText; each widget names itself."""
    text = (state.JS_DRAW.parent / "figures.js").read_text(encoding="utf-8")
    js = {name: set(re.search(r"export const %s = \{([^}]*)\}" % name, text).group(1)
                    .replace(" ", "").split(",")) for name in ("FIGURES", "WIDGETS")}
    assert set(FIGURES) == js["FIGURES"] and set(WIDGETS) == js["WIDGETS"]
    for frame, labels in FIGURES.values():
        frame, labels = state._named(frame), state._named(labels)
        assert set(Frame.__annotations__) < set(frame.__annotations__) and "fig" in (
            frame.__annotations__)
        assert set(StageText.__annotations__) <= set(labels.__annotations__)
    defs = json_schema()["definitions"]
    for name, ref in WIDGETS.items():
        assert defs[state._named(ref).__name__]["properties"]["widget"] == {"const": name}


def test_every_dict_of_the_state_is_closed():
    """Every object the schema describes says which keys it has: none takes any key."""
    def walk(node):
        if isinstance(node, dict):
            if node.get("type") == "object":
                assert "properties" in node or isinstance(node.get("additionalProperties"),
                                                          dict), node
                assert node.get("additionalProperties") is not True, node
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)
    walk(json_schema())
    assert json.dumps(json_schema()).count('"additionalProperties": false') >= 70


def test_the_schema_is_printed_for_tooling():
    out = subprocess.run([sys.executable, "-m", "steps.ui.state", "--schema"], cwd=ROOT,
                         capture_output=True, text=True, timeout=120, check=True).stdout
    assert json.loads(out) == json.loads(json.dumps(json_schema()))
    assert json.loads(out)["$schema"] == "http://json-schema.org/draft-07/schema#"


@pytest.mark.parametrize("name", [*FIGURES, *WIDGETS])
def test_each_renderers_jsdoc_is_the_schemas(name):
    """The typedefs at the head of js/draw/<name>.js are the ones the TypedDicts make (after
    a change to them: `python -m steps.ui.state --write-jsdoc`)."""
    text = (state.JS_DRAW / f"{name}.js").read_text(encoding="utf-8")
    doc = state.jsdoc(name)
    assert doc in text, f"js/draw/{name}.js: run python -m steps.ui.state --write-jsdoc"
    assert text.index(doc) < text.index("\nimport ")
    frame = state._named(FIGURES[name][0] if name in FIGURES else WIDGETS[name])
    assert f"@typedef {{Object}} {frame.__name__}\n" in doc
    if name in FIGURES:
        fig = typing.get_type_hints(frame)["fig"].__name__
        assert f"@typedef {{Object}} {fig}\n" in doc


def _states():
    """The first state of every step and part, in English and in Dutch (the longest words;
    the other tests check their states in every language), and the same once the question is
    shown (the key-ideas page has none)."""
    for lang in ("en", "nl"):
        for n in NUMBERS:
            parts = {5: ["a", "b"], 6: ["a", "b", "c", "d"]}.get(n, [None])
            for part in parts:
                query = {"step": [str(n)], "lang": [lang], **({"part": [part]} if part else {})}
                app = App(query)
                yield f"{n}{part or ''}-{lang}", app
        yield f"end-{lang}", App({"step": ["end"], "lang": [lang]})


def test_every_step_and_part_has_the_schemas_shape_before_and_after_the_answer():
    seen = set()
    for label, app in _states():
        check_page(app.state())
        if app.step.state()["question"]:
            app.handle({"shown": True})
            check_page(app.state())
        s = app.step.state()
        if s["stage"] and json.loads(s["frames"]):
            seen.add(s["stage"]["figure"])
    assert seen == set(FIGURES)              # every renderer's frames were checked


# -- what it refuses ------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def step1():
    return step_class(1)("en").state()


def with_frames(s: dict, change) -> dict:
    frames = json.loads(s["frames"])
    change(frames)
    return {**s, "frames": json.dumps(frames)}


@pytest.mark.parametrize("change, says", [
    (lambda f: f[0]["fig"].pop("tokens"), r"data\[0\]\.fig must contain \['tokens'\]"),
    (lambda f: f[1]["fig"].update(weights="heavy"), r"data\[1\]\.fig\.weights must be array"),
    (lambda f: f[1]["fig"]["weights"].append("0.5"), r"fig\.weights\[\d+\] must be number"),
    (lambda f: f[0]["fig"].update(prefill=1), r"data\[0\]\.fig\.prefill must be boolean"),
    (lambda f: f[0]["fig"].update(colour="red"), r"fig must not contain \{'colour'\}"),
    (lambda f: f[0].pop("desc"), r"data\[0\] must contain \['desc'\]"),
    (lambda f: f[0]["cards"][0].update(kind="guessed"),
     r"cards\[0\]\.kind must be one of \['measured', 'computed', 'illustrative', None\]"),
    (lambda f: f[0]["table"].update(rows=[[1, 2]]), r"table\.rows\[0\]\[0\] must be string"),
])
def test_a_frame_that_breaks_its_renderers_payload_is_refused(step1, change, says):
    check_step(step1)
    with pytest.raises(AssertionError, match=r"frames of “arcs”: .*" + says):
        check_step(with_frames(step1, change))


def test_frames_are_checked_against_their_own_renderer(step1):
    cache = step_class(3)("en").state()
    with pytest.raises(AssertionError, match=r"frames of “cache”: data\[0\]\.fig must contain"):
        check_step({**step1, "stage": {**step1["stage"], "figure": "cache",
                                       "text": cache["stage"]["text"]}})


def _break(s: dict, change) -> dict:
    s = copy.deepcopy(s)
    change(s)
    return s


@pytest.mark.parametrize("change, says", [
    (lambda s: s["lead"][0].pop("heading"), r"data\.lead\[0\] must contain \['heading'\]"),
    (lambda s: s["lead"][0].update(items=[1]), r"data\.lead\[0\]\.items\[0\] must be string"),
    (lambda s: s["lead"].append({"kind": "poem", "cls": ""}), r"data\.lead\[1\] cannot be"),
    (lambda s: s["deeper"][0]["blocks"][0].update(items="one"),
     r"data\.deeper\[0\]\.blocks\[0\]\.items must be array"),
    (lambda s: s["stage"]["text"].pop("own"), r"data\.stage\.text must contain \['own'\]"),
    (lambda s: s["stage"].update(figure="pie"), r"data\.stage cannot be validated"),
    (lambda s: s["stage"].update(interval="fast"), r"data\.stage\.interval must be integer"),
    (lambda s: s["question"].update(correct="2"), r"data\.question\.correct must be"),
    (lambda s: s["question"].pop("projected"), r"data\.question must contain \['projected'\]"),
    (lambda s: next(c for c in s["controls"] if c["kind"] == "select").pop("options"),
     r"data\.controls\[\d\] must contain \['options'\]"),
    (lambda s: s["controls"][0].update(size="huge"), r"data\.controls\[0\]\.size must be one of"),
    (lambda s: s["values"].update(layer=[1]), r"data\.values\.layer must be"),
    (lambda s: s.update(tabs={"label": "Parts"}),
     r"data\.tabs must contain \['active', 'items', 'name'\]"),
    (lambda s: s.update(custom={"widget": "config"}), r"data\.custom must contain"),
])
def test_a_state_that_breaks_its_types_is_refused(step1, change, says):
    with pytest.raises(AssertionError, match=r"step: " + says):
        check_step(_break(step1, change))


def test_a_widgets_payload_is_checked():
    step = step_class(5)("en")
    step.handle({"set": "model", "value": "custom", "seq": 1})
    s = check_step(step.state())
    assert s["custom"]["widget"] == "config"
    with pytest.raises(AssertionError, match=r"data\.custom\.params_value must be number or null"):
        check_step(_break(s, lambda s: s["custom"].update(params_value="7")))


def test_a_shell_or_glossary_that_breaks_its_types_is_refused():
    page = App({"step": ["2"], "present": ["1"]}).state()
    check_shell(page["shell"])
    for change, says in [
        (lambda p: p["shell"]["link"].pop("frame"), r"shell: data\.link must contain \['frame'\]"),
        (lambda p: p["shell"]["nav"].update(active="2"), r"shell: data\.nav\.active must be"),
        (lambda p: p["shell"]["talk"].update(notes=None), r"shell: data\.talk\.notes must be"),
        (lambda p: p["shell"]["badges"].update(guessed=["a", "b"]),
         r"shell: data\.badges must not contain \{'guessed'\}"),
        (lambda p: p["glossary"]["legend"].update(label=1), r"glossary: data\.legend\.label"),
    ]:
        with pytest.raises(AssertionError, match=says):
            check_page(_break(page, change))
