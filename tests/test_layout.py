"""The page's layout table (steps/ui/js/layout.js) on every step's real state: what each mode
shows and where, read through `steps.ui.state.placed` (the same table and rules as the
browser's `placeRegions`; tests/browser/test_layout_units.py checks they agree). And the
views name their regions: none cuts a presenter's list of sentences by index."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

from steps.shell import App
from steps.ui.state import LIVE, REGIONS, columns, layout_table, placed

ROOT = Path(__file__).resolve().parents[1]
PAGES = [{"step": "1"}, {"step": "2"}, {"step": "3"}, {"step": "4"}, {"step": "5"},
         {"step": "5", "part": "b"}, {"step": "6", "part": "a"}, {"step": "6", "part": "b"},
         {"step": "6", "part": "c"}, {"step": "6", "part": "d"}, {"step": "end"}]
PROSE = {"idea", "look", "facts", "deeper", "exercises", "legend", "more", "extras"}


@pytest.fixture(scope="module")
def states():
    return {tuple(q.items()): App(query={**q, "lang": "en"}).state() for q in PAGES}


def test_every_row_names_known_regions_once():
    for mode, row in layout_table().items():
        for r in [row, *row.get("variants", {}).values()]:
            for side in ("left", "right"):
                names = [n for e in r.get(side, []) for n in (e if isinstance(e, list) else [e])]
                assert set(names) <= set(REGIONS) | set(LIVE), (mode, side, names)
        both = [n for side in ("left", "right") for e in row[side]
                for n in (e if isinstance(e, list) else [e])]
        assert len(both) == len(set(both)), (mode, both)
    # every region is shown somewhere on the learners' page
    normal = layout_table()["normal"]
    assert set(REGIONS) <= set(normal["left"]) | set(normal["right"])


def test_the_learners_page_has_the_words_then_the_figure(states):
    for q, st in states.items():
        where = placed(st, "normal")
        if dict(q)["step"] == "end":
            assert where == {"left": ["body"], "right": []}
            continue
        assert where["left"][0] == "lead"
        assert ("question" in where["left"] or not st["question"]) and "deeper" in where["left"]
        assert "exercises" in where["left"]
        assert not {"stage", "figure", "cards", "controls"} & set(where["left"])


def test_the_projected_page_keeps_the_figure_and_drops_the_prose(states):
    for q, st in states.items():
        where = placed(st, "present")
        shown = set(where["left"]) | set(where["right"])
        assert not PROSE & shown, (q, shown)
        if dict(q)["step"] == "end":
            assert where["left"] == ["body"]                  # the key ideas, as they are
            continue
        # a step in parts: the part's title stands for the step's lead (step 5's part A,
        # which has none, keeps the lead); a part without a question (step 5's planner)
        # goes on to its controls
        assert where["left"][0] == ("part" if st["part"] else "lead")
        assert where["left"][1] == ("question" if st["question"] else "controls")
        assert where["left"][-1] == "notices" or "notices" not in where["left"]  # notices last
        assert {"stage", "figure", "cards"} & set(where["right"]), q
    # part C: the controls above the cards, in the figure's column (its question is long)
    c = placed(states[(("step", "6"), ("part", "c"))], "present")
    assert c["right"][:2] == ["controls", "cards"] and "controls" not in c["left"]


def test_the_answer_follows_its_question_and_projected_stands_over_the_figure(states):
    """The revealed answer (the page's live element `answer`) comes right after its question on
    the learners' page and in one column; projected, it stands over the figure it talks about
    (so that an answer never pushes the controls off the screen), or under the question where
    the part has no controls there (step 6's parts B and C)."""
    for q, st in states.items():
        if not st.get("question"):
            continue
        for mode in ("normal", "narrow"):
            left = placed(st, mode)["left"]
            assert left[left.index("question") + 1] == "answer", (q, mode, left)
        where = placed(st, "present")
        if "controls" in where["left"] or st.get("custom"):
            assert where["right"][0] == "answer", (q, where)
        else:
            assert where["left"][where["left"].index("question") + 1] == "answer", (q, where)


def test_the_speaker_view_is_its_panel_and_the_projected_screen_with_every_word_a_key_away(states):
    """The speaker view: its panel (talk) beside the projected screen (screen: the projected
    page itself, scaled) and the answer under it (said), all the browser's own; every word of
    the step in the drawer."""
    row = layout_table()["speaker"]
    assert row["left"] == ["talk"] and row["right"] == ["screen", "said"]
    for q, st in states.items():
        where = placed(st, "speaker")
        assert where["left"] == [] and where["right"] == []
        assert not {"question", "controls", "custom", "stage"} & set(where["drawer"])
        if dict(q)["step"] != "end":
            assert {"look", "deeper"} <= set(where["drawer"]), q


def test_figure_only_has_the_lead_controls_and_figure_and_no_prose(states):
    for q, st in states.items():
        where = placed(st, "figure")
        shown = set(where["left"]) | set(where["right"])
        assert not (PROSE - {"legend", "more"}) & shown and "question" not in shown, (q, shown)
        if dict(q)["step"] == "end":
            assert where == {"left": [], "right": ["body"]}
        else:
            # a step in parts leads with the part's own title, not the whole step's lead
            assert where["left"][0] == ("part" if st.get("part") else "lead"), q
            assert {"stage", "figure", "cards"} & set(where["right"]), q
            if st.get("variant") == "cards-first":         # step 6's part C: its figure alone
                assert where["right"] == ["figure"], (q, where)


def test_one_column_puts_the_question_then_the_figure_after_the_lead(states):
    st = states[(("step", "3"),)]
    where = placed(st, "narrow")
    assert where["right"] == []
    assert where["left"][:6] == ["lead", "question", "answer", "controls", "stage", "legend"]


def test_one_column_asks_the_question_before_the_cards_it_conceals(states):
    """Below 700 px and in whole embeds, the question comes before the cards (“?” until it
    is answered), on every step and part that has both."""
    for q, st in states.items():
        where = placed(st, "narrow")["left"]
        for shown in ("cards", "stage"):
            if "question" in where and shown in where:
                assert where.index("question") < where.index(shown), q


def test_columns_hold_the_regions_blocks(states):
    st = states[(("step", "5"),)]
    cols = columns(st)
    assert cols["left"][0] == st["lead"][0]
    assert [b["cls"] for b in cols["right"] if b.get("kind") == "html"] == []   # part A
    assert {"kind": "slot", "name": "stage"} in cols["right"]
    st = states[(("step", "5"), ("part", "b"))]
    cols = columns(st)
    assert [b["cls"] for b in cols["right"] if b.get("kind") == "html"] == ["planner"]
    assert {"kind": "slot", "name": "stage"} not in cols["right"]



def test_no_view_cuts_a_presenters_list_by_index():
    """A view names the regions its sentences go to; the presenter (text.py) says which
    sentence is which. A slice in a view would move a sentence to another region the day a
    sentence is added before it."""
    for view in sorted(ROOT.glob("steps/*/view.py")):
        tree = ast.parse(view.read_text(encoding="utf-8"))
        pages = [f for f in ast.walk(tree) if isinstance(f, ast.FunctionDef)
                 and (f.name == "page" or f.name.startswith("_part"))]
        assert pages, view
        # in what builds the page: a slice of what a call returned, or of a name bound to it
        slices = [f"{view.relative_to(ROOT)}:{n.lineno}" for f in pages for n in ast.walk(f)
                  if isinstance(n, ast.Subscript) and isinstance(n.slice, ast.Slice)
                  and isinstance(n.value, (ast.Call, ast.Name))]
        assert not slices, slices


def test_a_figures_needs_per_mode_are_rows_of_the_table():
    """`figures`: per renderer, the parts each screen draws (projected: the roofline, then
    the batch charts; the growth curve first on step 5); `stage`: the stage's pieces a mode
    shows (a figure-only embed: the figure, not its cards or captions)."""
    from steps.ui.state import FIGURES
    table = layout_table()
    pieces = {"player", "cards", "figure", "caption", "extra", "more", "twin"}
    for mode, row in table.items():
        for name, screens in row.get("figures", {}).items():
            assert name in FIGURES, (mode, name)
            assert screens and all(isinstance(s, list) and s for s in screens), (mode, name)
        assert set(row.get("stage", pieces)) <= pieces, mode
    assert table["present"]["figures"]["roofline"] == [["roof"], ["batch"]]
    assert table["present"]["figures"]["bill"][0] == ["curve"]
    assert table["figure"]["figures"] == {"roofline": [["roof"]], "bill": [["curve"]]}
    assert "cards" not in table["figure"]["stage"] and "cards" not in table["figure"]["right"]
