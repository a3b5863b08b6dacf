"""The answer is not sent before it is asked for (`steps.ui.step.Step.state`, “What waits
for the answer”): the first state of every step, of every part of step 6 and in every language,
as `App(query).state()` builds it for the page, holds nothing that answers the open question.

The answer is taken from the same page once revealed (“Show me”, which also moves the figure
to the state the answer talks about), formatted as the page shows it then: the right option's
text where it holds a number (step 1's “6”, step 5's “≈ 26,000 tokens”), and the values of the
cards that answer the question (`words.Card.hidden`) on that page, in its regions and in the
frame on screen, but a card's bare whole number (the right option names the one that answers;
a card's 20 is also the grid's width, a tick, a position). None of them may appear in the
unrevealed state: not in a card, a frame's words or table, a figure's payload, the question's
own fields (only its options may name it), nor a collapsed “Go deeper” section.

A value counts only as a whole: “6” is not in “16”, “0.6”, “6%”, “6×”, “step-6” nor “6 ms” (a
unit follows a number after a no-break space in every language's format). What is not
searched, and why:
- the shell's words and the glossary: the same on every step and in every state (the
  heading's “Step 1 of 6”);
- the step's exercises: homework with worked answers of its own, whatever the page shows;
- the player's position line of each frame and the axes' tick labels: they count frames and
  mark a scale (“Decode step 6 of 11”, a tick at 100%);
- a long string without a space: data, not words (step 3's colour levels, a character a
  number);
- a whole number in a frame whose own number (the first of its position line) is as large:
  that frame names the decode steps up to its own (“Decode step 6: …”, a row “written at
  decode step 6”);
- a one-digit number outside the frames and the question: the prose and the menus are full
  of them (the live model's 4 layers, “Layer 4”, a causal triangle of 6 scores); the frames
  are where the page says what the figure shows, and the question what it asks.
"""
import json
import re

import pytest

from explainer.i18n import LANGS
from steps.registry import NUMBERS
from steps.shell import App

PAGES = [{"step": str(n)} for n in NUMBERS if n != 6] + \
        [{"step": "6", "part": p} for p in "abcd"]
UNSEARCHED = ("shell", "glossary", "exercises")        # see the module doc
NUMBER_CHARS = "\\d.,\u00a0\u202f"


def full(state: dict) -> dict:
    """The state with its frames parsed (they travel as one JSON text)."""
    return {**state, "frames": json.loads(state["frames"] or "[]")}


def answer_cards(x) -> list[str]:
    """The values of the answer-bearing cards anywhere in `x` (blocks, frames)."""
    if isinstance(x, dict):
        if x.get("hidden") is True and "key" in x and isinstance(x.get("value"), str):
            return [x["value"]]
        return [v for y in x.values() for v in answer_cards(y)]
    if isinstance(x, list):
        return [v for y in x for v in answer_cards(y)]
    return []


def answers(revealed: dict) -> set[str]:
    """What answers the question on the revealed page, as it shows it (see the module doc)."""
    q = revealed["question"]
    regions = {k: v for k, v in revealed.items()
               if k not in ("frames", "shell", "glossary", "exercises")}
    cards = answer_cards(regions)
    if revealed["frames"]:
        cards += answer_cards(revealed["frames"][revealed["frame"]])
    out = {v for v in cards if whole(v) is None}
    if q is not None and q.get("correct") is not None:
        out.add(q["options"][q["correct"]])
    return {v for v in out if re.search(r"(?<!\w)\d", v)}       # a number, not H2O's 2


def texts(x, path=""):
    """(path, string) for every string in `x`, but what the module doc leaves out."""
    if isinstance(x, dict):
        if "exercises" in str(x.get("cls", "")).split():
            return
        for k, v in x.items():
            if path == "" and k in UNSEARCHED or k in ("pos", "xticks", "yticks", "xt", "yt") \
                    or path == ".question" and k == "options":
                continue
            yield from texts(v, f"{path}.{k}")
    elif isinstance(x, list):
        for i, v in enumerate(x):
            yield from texts(v, f"{path}[{i}]")
    elif isinstance(x, str) and (" " in x or len(x) <= 24):
        yield path, x


def found(value: str, text: str) -> bool:
    """`value` is in `text` as a whole: not a part of a longer number, nor a number with a
    unit, a % or a × after it."""
    return re.search(f"(?<![{NUMBER_CHARS}\\w-])" + re.escape(value) +
                     f"(?![\\d%×\u00a0\u202f]|[.,]\\d|\\w)", text) is not None


def whole(text: str) -> int | None:
    """`text` as a whole number (“25,700”, “25.700”, “25 700”: any language's thousands
    separator, before groups of three digits), else None (“0.97”, “4×”)."""
    if re.fullmatch("\\d{1,3}([.,\u00a0\u202f]\\d{3})+|\\d+", text):
        return int(re.sub("\\D", "", text))
    return None


def leaks(state: dict, values: set[str]) -> list[str]:
    """Where `values` appear in `state`; a whole number is not looked for in a frame whose own
    number (the first of its position line) is as large: that frame counts decode steps up to
    its own (“Decode step 6: …”, a row “written at decode step 6”)."""
    out = []
    own = {}
    for i, fr in enumerate(state["frames"]):
        m = re.search(f"\\d[{NUMBER_CHARS}]*\\d|\\d", fr.get("pos") or "")
        own[i] = whole(m.group(0)) if m else None
    for path, text in texts(state):
        frame = re.match(r"\.frames\[(\d+)\]", path)
        counts = own[int(frame.group(1))] if frame else None
        for v in values:
            n = whole(v)
            if n is not None and counts is not None and n <= counts:
                continue
            if n is not None and n < 10 and not (frame or path.startswith(".question.")):
                continue
            if found(v, text):
                out.append(f"{v!r} at {path}: {text[:160]!r}")
    return out


@pytest.mark.parametrize("lang", list(LANGS))
@pytest.mark.parametrize("query", PAGES, ids=lambda q: "-".join(q.values()))
def test_the_first_state_does_not_answer_its_question(query, lang):
    query = {**query, "lang": lang}
    before = App(query=query)
    state = full(before.state())
    assert state["concealed"] and state["question"] is not None
    after = App(query=query)
    after.handle({"shown": True})
    revealed = full(after.state())
    assert not revealed["concealed"]
    values = answers(revealed)
    assert leaks(state, values) == []
    q = state["question"]
    assert q["correct"] is None and q["explain"] == ""           # told once answered
    assert revealed["question"]["correct"] is not None and revealed["question"]["explain"]


@pytest.mark.parametrize("lang", list(LANGS))
def test_step_5s_planner_does_not_answer_the_bills_question(lang):
    """Step 5's part B (the planner) asks nothing of its own; before part A's question is
    answered, nothing in part B's state answers it either."""
    a = App(query={"step": "5", "lang": lang})
    a.handle({"shown": True})
    values = answers(full(a.state()))
    assert values
    b = full(App(query={"step": "5", "part": "b", "lang": lang}).state())
    assert b["question"] is None and b["concealed"]
    assert leaks(b, values) == []


@pytest.mark.parametrize("query", [{"step": "1"}, {"step": "2"}, {"step": "5"}],
                         ids=lambda q: q["step"])
def test_the_search_finds_an_answer_left_in_the_state(query):
    """The search can fail: the revealed page's own state holds its answer."""
    app = App(query={**query, "lang": "en"})
    app.handle({"shown": True})
    revealed = full(app.state())
    values = answers(revealed)
    assert values and leaks(revealed, values)


def test_a_whole_number_only():
    assert found("6", "reads 6 keys") and found("≈ 25,700 tokens", "at ≈ 25,700 tokens.")
    assert not any(found("6", t) for t in ("16", "0.6", "6%", "6×", "6\u00a0ms", "6,5",
                                            "1\u00a0006", "step-6"))
    assert [whole(t) for t in ("6", "25,700", "25.700", "25\u00a0700", "0.97", "4×", "1,8%")] == \
        [6, 25700, 25700, 25700, None, None, None]


@pytest.mark.parametrize("lang", list(LANGS))
def test_step_4s_dots_wait_for_the_answer(lang):
    """Where step 4's dots sit, the prefill's on the roof and decode's on the slope, is the
    answer: until it is given the roofline has no dots (neither phase, nor decode at every
    batch size, nor the ceiling's line) and the batch chart no FLOP-per-byte panel, also after
    a slider's move; the answer brings them all."""
    def fig(app):
        return full(app.state())["frames"][0]["fig"]

    app = App(query={"step": "4", "lang": lang})
    first = fig(app)
    app.handle({"set": "batch", "value": 8, "seq": 1})
    moved = fig(app)
    app.handle({"shown": True})
    told = fig(app)
    for f in (first, moved):
        assert f["points"] == [] and f["trail"] == [] and f["ceiling"] is None, f["points"]
        assert [p["title"] for p in f["batch"]["panels"]] == \
            [p["title"] for p in told["batch"]["panels"]][1:]
    assert [p["cls"] for p in told["points"]] == ["prefill", "decode"]
    assert len(told["trail"]) > 10 and told["ceiling"] is not None
    assert told["batch"]["panels"][0]["lines"][-1]["cls"] == "ridge"   # FLOP per byte, the ridge
