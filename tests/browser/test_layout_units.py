"""The page's layout in the browser (js/layout.js, js/page.js), unit by unit in headless
Chromium, no server: the table's regions are the state's, the browser places every real step's
regions in every mode exactly as `steps.ui.state.placed` says, and placing moves only what is
out of place (a control being moved keeps the keyboard's focus)."""
from __future__ import annotations

import pytest

from steps.shell import App
from steps.ui.state import REGIONS, layout_table, placed

PAGES = [{"step": "1"}, {"step": "4"}, {"step": "5"}, {"step": "5", "part": "b"},
         {"step": "6", "part": "a"},
         {"step": "6", "part": "c"}, {"step": "6", "part": "d"}, {"step": "end"}]


def test_the_pages_regions_are_the_states(kv):
    assert sorted(kv.evaluate("() => KV['page.js'].REGIONS")) == sorted(REGIONS)
    assert kv.evaluate("() => KV['layout.js'].LAYOUT") == layout_table()


def test_the_browser_places_every_mode_as_the_table_says(kv):
    cases = []
    for q in PAGES:
        st = App(query={**q, "lang": "pl"}).state()
        for mode in layout_table():
            cases.append([f"{q} {mode}", mode, st.get("variant", ""), placed(st, mode), {
                "regions": {r: bool(st[r]) for r in REGIONS},
                "live": {"question": bool(st["question"]), "answer": bool(st["question"]),
                         "custom": bool(st["custom"]),
                         "stage": bool(st["stage"]), "tabs": False, "talk": False,
                         "screen": False,
                         "controls": any(not c.get("hidden") for c in st["controls"])}}])
    out = kv.evaluate("(a) => KVT.layout_units.theBrowserPlacesEveryModeAsTheTableSays(a)", cases)
    for label, got, want in out:
        assert got == want, label


@pytest.mark.parametrize("shell, narrow, mode", [
    ({}, False, "normal"), ({}, True, "narrow"), ({"embed": True}, False, "narrow"),
    ({"embed": True, "figure": True}, True, "figure"), ({"present": True}, True, "present"),
    ({"present": True, "speaker": True}, False, "speaker"),
    ({"present": True, "embed": True}, False, "narrow")])
def test_the_mode_from_the_shell_and_the_width(kv, shell, narrow, mode):
    assert kv.evaluate("([s, n]) => KV['layout.js'].modeOf(s, n)", [shell, narrow]) == mode


def test_placing_moves_only_what_is_out_of_place(kv):
    out = kv.evaluate("(a) => KVT.layout_units.placingMovesOnlyWhatIsOutOfPlace(a)")
    assert out == [["n-d", "n-input", "n-c"], True, ["n-d", "n-input", "n-c", "n-a"], True]


def test_the_page_parses_each_part_once_per_change(kv):
    """A part arrives as its JSON text (steps/ui/page.py): the page parses a text once and
    hands back the same value until it changes; "" (nothing yet) is null."""
    first, same, second, is_first, frames, lang, missing = \
        kv.evaluate("() => KVT.layout_units.readerParsesEachTextOnce()")
    assert first == {"a": 1} and same and second == {"a": 2} and not is_first
    assert frames is None and lang == "pl" and missing is None
