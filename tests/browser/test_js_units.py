"""The page's JavaScript, unit by unit, in headless Chromium (no server): every module loads
(syntax), the player's state machine, the frames as the server writes them,
the blocks, controls and question, and every figure renderer on the frames the steps' presenters
build, in every language, at a phone's width and a projector's, with no two text boxes of a
figure overlapping and no line, outline or point of it running through a text
(tests/browser/js/js_units.js `crossings`)."""
from __future__ import annotations

import functools
import json

import pytest

from explainer.i18n import LANGS
from steps.registry import NUMBERS
from steps.ui import bundle
from steps.ui.frames import frames_json

from conftest import PAGE  # noqa: F401  (other tests import it from here)
from steps.ui.state import check_step, columns





def test_every_module_is_in_the_bundle():
    reached = {p.relative_to(bundle.JS).as_posix() for p in bundle.modules()}
    on_disk = {p.relative_to(bundle.JS).as_posix() for p in bundle.JS.rglob("*.js")
               if "dist" not in p.parts}
    assert reached == on_disk, "modules nothing imports: " + ", ".join(sorted(on_disk - reached))


def test_the_tests_javascript_defines_what_the_tests_run(kv):
    """tests/browser/js/*.js (loaded with the bundle: one that does not parse fails `kv`)
    define every function a test runs by name (`KVT.<module>.<name>`), and none that nothing
    runs."""
    import re
    from pathlib import Path
    here = Path(__file__).parent
    loaded = kv.evaluate("() => Object.fromEntries(Object.entries(KVT).map(([m, o]) => "
                         "[m, Object.keys(o).filter((k) => typeof o[k] === 'function')]))")
    defined = {(m, f) for m, names in loaded.items() for f in names}
    assert set(loaded) == {p.stem for p in (here / "js").glob("*.js")}
    run = set()
    for p in [*here.glob("*.py"), *(here / "js").glob("*.js")]:
        run |= set(re.findall(r"KVT\.(\w+)\.(\w+)", p.read_text(encoding="utf-8")))
    assert run - defined == set(), "run but not defined"
    assert defined - run == set(), "defined but run by nothing"


def test_the_bundle_exports_render(kv):
    text = bundle.source()
    assert text.rstrip().endswith("export const render = $page.render;")


def test_player_plays_steps_and_settles_only_when_it_stops(kv):
    log = kv.evaluate("(a) => KVT.js_units.playerPlaysStepsAndSettlesOnlyWhenItStops(a)")
    assert log["mid"] == 0
    assert log["playingAtEnd"] is False
    assert log["restarted"] == 0
    assert log["settled"] == [3, 0, 0, 3, 0]
    assert log["last"] == 1


def test_the_stage_keeps_steps_the_server_has_not_said_back(kv):
    """Step forward clicked faster than the round trip: the server's `frame` of an earlier
    click (its echo) does not move the player back; a frame the page never told is the
    server's own move and is followed."""
    got = kv.evaluate("(a) => KVT.js_units.stageKeepsStepsTheServerHasNotSaidBack(a)")
    assert got["sent"] == [2, 3, 4]
    assert got["afterEcho"] == 4 and got["afterLast"] == 4
    assert got["moved"] == 0 and got["pos"] == "Token 0"


def test_the_stage_reads_the_frames_the_server_writes(kv):
    frames = [{"pos": f"Token {i}", "cards": [{"key": "a", "label": "Sequence length",
                                               "value": str(i)}], "fig": {"rows": [[j] for j in range(i)]}}
              for i in range(6)]
    assert kv.evaluate("(t) => KV['stage.js'].parseFrames(t)", frames_json(frames)) == frames
    assert kv.evaluate("(t) => KV['stage.js'].parseFrames(t)", "") == []


def test_blocks_escape_text(kv):
    html = kv.evaluate("(a) => KVT.js_units.blocksEscapeText(a)")
    assert "&lt;b&gt;not bold&lt;/b&gt;" in html
    assert 'data-metric="k"' in html and ">?<" in html and "answer-bearing" in html
    assert "notice" not in html            # an empty block leaves nothing
    assert ">More</summary>" in html and "<th scope=\"row\">1</th>" in html


def test_controls_send_one_message_per_change(kv):
    sent = kv.evaluate("(a) => KVT.js_units.controlsSendOneMessagePerChange(a)")
    assert [m["set"] for m in sent["sent"]] == ["layer", "tokens"]
    assert sent["sent"][0]["value"] == 2 and sent["sent"][1]["value"] == 64
    assert sent["sent"][1]["seq"] > sent["sent"][0]["seq"]
    assert sent["shown"] == "64"
    assert sent["handled"] == "60" and sent["out"] == "60"


def test_controls_send_a_change_again_until_the_server_acknowledges_it(kv):
    """A change with no acknowledgement `resendMs` after it was sent is sent again with a new
    seq (the server handles it whether or not it handled the first), until acknowledged; one
    never acknowledged is sent `resends` more times, then the control shows the server's value
    again; and a change made on other controls (another step) is not sent to these."""
    got = kv.evaluate("(a) => KVT.js_units.controlsSendAChangeAgainUntilTheServerAcknowledgesIt(a)")
    first, copy = got["again"]
    assert first == {"set": "tokens", "value": 64, "seq": first["seq"]}
    assert copy["set"] == "tokens" and copy["value"] == 64 and copy["seq"] > first["seq"]
    assert got["kept"] == "64"                  # the first's late ack does not settle the copy
    assert got["acknowledged"] == 2             # acknowledged: not sent again
    never = got["all"][2:5]
    assert [m["value"] for m in never] == [32, 32, 32]        # sent, then `resends` times
    assert never[0]["seq"] < never[1]["seq"] < never[2]["seq"]
    assert got["waiting"] == "32"
    assert got["gaveUp"] == {"sent": 5, "shown": "64"}        # the server's value again
    assert [m["value"] for m in got["all"][5:]] == [8]        # not sent to the other step
    assert got["other"] == "2"


def test_question_marks_the_pick_and_sends_it(kv):
    got = kv.evaluate("(a) => KVT.js_units.questionMarksThePickAndSendsIt(a)")
    assert got["sent"] == [{"answer": 1}]
    assert got["before"] == "" and got["waiting"] == "" and got["picked"] == "true"
    assert got["after"] == "Not quite. Six."
    assert "q-wrong" in got["wrong"]
    assert got["again"] == ""


def test_question_keeps_the_pick_and_marks_the_right_option_not_by_colour_alone(kv):
    got = kv.evaluate("(a) => KVT.js_units.questionKeepsThePick(a)")
    assert got["sent"] == [{"answer": 0}, {"shown": True}]
    assert all(b["sign"] == "" and b["disabled"] is None for b in got["before"])
    # the pick, at once: pressed, the options closed; right or wrong waits for the server
    assert [b["pressed"] for b in got["picked"]] == ["true", "false", "false"]
    assert all(b["disabled"] == "true" and b["sign"] == "" for b in got["picked"])
    assert not any("q-wrong" in b["cls"] or "q-right" in b["cls"] for b in got["picked"])
    assert got["kept"] == got["early"] == got["picked"]
    wrong, _, right = got["told"]
    assert "q-wrong" in wrong["cls"] and wrong["pressed"] == "true" and wrong["sign"] == "✗"
    assert "q-right" in right["cls"] and right["pressed"] == "false" and right["sign"] == "✓"
    assert right["text"] == "6✓, the right answer"          # said, not only coloured
    assert wrong["signHidden"] == "true" and right["signHidden"] == "true"
    assert all(b["disabled"] == "true" for b in got["told"])
    assert wrong["bg"] != right["bg"] != got["told"][1]["bg"]
    assert got["echoed"] == got["told"]
    assert got["waiting"] is True                             # “Show me” goes at once
    assert ["q-right" in b["cls"] for b in got["shown"]] == [False, False, True]
    assert [b["pressed"] for b in got["shown"]] == ["false"] * 3
    assert got["shown"][2]["text"].endswith("the right answer")
    assert got["feedback"] == "Six."


# one stage's frames drawn at one width (a state as first sent, or answered: the frames hold
# what waited for the answer only then): the text boxes that overlap, and those a line or a
# point runs through (used by
# tests/browser/test_step4.py and test_step6.py as well)
OVERLAPS = "(a) => KVT.js_units.overlaps(a)"


# The figures' text, measured as drawn: no two text boxes overlap, no stroked line, outline or
# point runs through one (js_units.js `crossings`: the SVG's lines and paths sampled along
# their length, its points' boxes), and none is drawn smaller than 12 px on screen (its font
# size times the drawing's scale). `cases`: [label, stage,
# frames, indices of the frames to draw (null: every one)]; each is drawn at every width
# (`_states`: each state as first sent and answered).
READABLE = "(a) => KVT.js_units.readable(a)"

# the stage's width as the served page gives it (measured): a phone 390 px wide (374), a
# laptop at 1440×900 (646), presenting at 1280×720 (358) and 1920×1080 (541), embedded in an
# 800 px course page (784)
WIDTHS = [358, 374, 541, 646, 784]


def _states(n: int, lang: str):
    """(label, state, which frames) for step `n` in `lang`: its defaults (every frame), then
    every extreme of its controls (first, middle and last frame): each slider at its ends,
    every option of a drop-down list or a row of buttons (step 1's and 3's layers and heads,
    step 4's and 5's models and GPUs, step 6's parts and settings), step 1's longest prompt.
    Each as first sent and answered: a figure's payload holds what waited for the answer only
    then (step 4's regions, step 5's crossing)."""
    from steps.shell import step_class
    cls = step_class(n)

    def asked_and_answered(label, step, which):
        yield label, step.state(), which
        step.shown = True             # answered, at the same inputs (nothing moved there)
        yield f"{label}, answered", step.state(), which

    yield from asked_and_answered("default", cls(lang), None)
    base = cls(lang)
    for c in base.state()["controls"]:
        if c["kind"] == "range":
            values = [c["start"], c["end"]]
        elif c["kind"] in ("select", "radio"):
            values = [o[0] for o in c["options"]]
        elif c["name"] == "text":
            values = [("Frankrijk hoofdstad " * 20)[:c.get("max_length") or 120].strip()]
        else:
            continue
        for v in values:
            step = cls(lang)
            if n == 6 and c["name"] != "part":      # the part whose figure the control sets
                step.handle({"set": "part", "seq": 1,
                             "value": "d" if c["name"] in ("policy", "budget") else "b"})
            step.handle({"set": c["name"], "value": v, "seq": 2})
            yield from asked_and_answered(f"{c['name']}={v}", step, "ends")


@functools.lru_cache(maxsize=None)
def _cases(n: int, lang: str):
    """[label, stage, frames, which frames] of each state of `_states` with a figure; each
    state is first checked against the page's schema (`check_step`: its frames against their
    renderer's payload, steps/ui/state.py), so the fixtures drawn are the contract's. Made
    once per step and language for both figure tests (step 6's take ~9 s); a state whose
    stage and frames an earlier case already drew, every frame of them, is not drawn again
    (step 2's token slider moves the player, not the frames)."""
    cases, whole = [], set()
    for label, s, which in _states(n, lang):
        check_step(s)
        if not s["stage"] or not s["stage"].get("figure"):
            continue
        count = len(json.loads(s["frames"]) if isinstance(s["frames"], str) else s["frames"])
        only = None if which is None else sorted({0, max(0, count // 2), max(0, count - 1)})
        drawn = json.dumps([s["stage"], s["frames"]], sort_keys=True)
        if drawn in whole:
            continue
        if only is None:
            whole.add(drawn)
        cases.append([label, s["stage"], s["frames"], only])
    return cases


@pytest.fixture(scope="module")
def readable(kv):
    """The page (the check: tests/browser/js/js_units.js `issues`); the states are drawn, not
    measured: step 4's CPU measurement is a stand-in, on a queue of the test's own."""
    import explainer.runtime as rt
    from steps import live as live_mod
    from steps.step4.model import speeds
    mp = pytest.MonkeyPatch()
    jobs = live_mod.LiveJobs("test-js-figures")
    mp.setattr(live_mod, "JOBS", jobs)
    mp.setattr(rt, "throughputs", lambda variant, p, outputs, repeats=3: {
        o: rt.Throughput(p, o - 1, 0.01, 0.002, p / 0.01, 500.0, "cpu") for o in outputs})
    speeds.cache_clear()
    yield kv
    speeds.cache_clear()
    mp.undo()
    jobs.stop()


@pytest.mark.parametrize("lang", list(LANGS))
@pytest.mark.parametrize("n", NUMBERS)
def test_figures_draw_every_frame_without_overlapping_or_small_labels(readable, n, lang):
    """Each step's stage, as the presenter builds it, at its defaults (every frame) and at
    every extreme of its controls, at a phone's, a laptop's and a projector's widths,
    concealed and not: no two text boxes overlap, no line or point runs through a text, no
    text under 12 px."""
    cases = _cases(n, lang)
    if not cases:
        pytest.skip("no stage")
    bad = readable.evaluate(READABLE, [cases, WIDTHS])
    assert bad == [], f"{len(bad)}:\n" + "\n".join(bad[:16])


# a phone's stage: 390 px (374), 360 px (344) and a presenter's narrowest (358)
PHONE_WIDTHS = [344, 358, 374]


@pytest.mark.parametrize("lang", list(LANGS))
def test_step_5_bar_labels_run_across_no_gpu_line_on_a_phone(readable, lang):
    """On a phone step 5's bar is short and the 24 GiB line stands just past its end: the
    cache's label (“KV cache 2.1 GB (2 GiB)”) was set over the bar on one line with that
    line interrupted behind it, which the check above does not see (the cut line touches no
    text) and a reader sees as crossed. Here a line's gap behind a text it runs across counts
    as crossing it (js_units.js `crossings`, `cuts`): neither of the bar's labels, at any
    state of step 5 at a phone's widths, has a GPU line through it, whole or cut. The cache's
    label goes on two or three lines (the bar moved down for them); the weights' label
    (“gewichten 13,5 GB” under the bar) on two lines where that clears the lines, and where
    the 24 and 48 GiB lines both stand within it (a large batch's axis, Dutch's longer word)
    the lines it would cross end at the bar (bill.js `drawBar`)."""
    cases = _cases(5, lang)
    bad = readable.evaluate(READABLE, [cases, PHONE_WIDTHS, True])
    bar = [b for b in bad if "gpu-line" in b]                  # the cache's and the weights' label
    assert bar == [], f"{len(bar)}:\n" + "\n".join(bar[:16])


@pytest.mark.parametrize("lang", list(LANGS))
def test_step_4_roofline_names_the_last_x_tick_on_a_phone(readable, lang):
    """On a phone the roofline's x axis ended without its last label (“10,000”): the space
    between tick labels was judged from an estimated 0.62 em a character, wider than the digits
    drawn. The labels are measured (roofline.js `xLabels`), and the last tick keeps its label:
    at every state of step 4 and a phone's widths it is drawn (the tests above check that no
    two labels overlap)."""
    cases = [c for c in _cases(4, lang) if c[1].get("figure") == "roofline"]
    assert cases
    missing = readable.evaluate("(a) => KVT.js_units.lastTick(a)", [cases, PHONE_WIDTHS])
    assert missing == [], f"{len(missing)}:\n" + "\n".join(missing[:16])


# Presenter mode: the stage as the projected page holds it (presenter CSS, the figure's box
# of that step at that screen, chart text made at least 18 px on screen by
# present.js fitChartText and the figure drawn again at that size, as stage.js does); no two
# text boxes overlap and none is drawn under 18 px. `boxes`: [width, height] of the figure's
# box (.stage-svg), the viewport's height (fitChartText's minimum follows it); `n`: the step,
# whose class the page carries (step 4's two charts side by side). A renderer that lays out for
# its projected box (ctx.box, measured by stage.js drawFigure) is drawn at scale 1 in it.
PRESENTED = "(a) => KVT.js_units.presented(a)"

# the figure's box in presenter mode (.stage-svg: width, height), measured on the served page
# at 1280×720 and at 1920×1080 (the viewport's height last), per step and part; steps 1–4
# also in a box a little lower (another language's longer lead or cards); step 5 and step 6's
# parts (keyed by their figure: B the pool, D the strip) in the lowest and the highest box
# of the four languages, before and after the question is answered
BOXES_POOL = [(804, 397, 720), (804, 436, 720), (1208, 624, 1080), (1208, 684, 1080)]
BOXES_STRIP = [(572, 500, 720), (572, 542, 720), (860, 775, 1080), (860, 839, 1080)]
PRESENT_BOXES = {
    1: [(805, 467, 720), (805, 420, 720), (1208, 758, 1080), (1208, 660, 1080)],
    2: [(805, 483, 720), (805, 440, 720), (1208, 743, 1080)],
    3: [(805, 447, 720), (805, 400, 720), (1208, 728, 1080)],
    4: [(683, 544, 720), (683, 500, 720), (1025, 834, 1080), (1025, 780, 1080)],
    5: [(683, 494, 720), (1025, 789, 1080)],
    6: {"pool": BOXES_POOL, "strip": BOXES_STRIP},
}


@pytest.mark.parametrize("lang", list(LANGS))
@pytest.mark.parametrize("n", NUMBERS)
def test_figures_projected_have_no_overlapping_labels_at_18_px(readable, n, lang):
    """Presenter mode at 1280×720 and 1920×1080: the stage's every frame at its defaults and
    the extremes of its controls, concealed and not, in its projected box with chart text at
    least 18 px on screen: no two text boxes overlap, no line or point runs through a text,
    none under 18 px."""
    cases = _cases(n, lang)
    if not cases:
        pytest.skip("no stage")
    boxes = PRESENT_BOXES[n]
    by_figure = boxes if isinstance(boxes, dict) else {c[1]["figure"]: boxes for c in cases}
    for figure, at in by_figure.items():
        mine = [c for c in cases if c[1]["figure"] == figure]
        assert mine, figure
        bad = readable.evaluate(PRESENTED, [mine, at, n])
        assert bad == [], f"{len(bad)}:\n" + "\n".join(bad[:16])


PATH_RUNS = "(a) => KVT.js_units.pathRuns(a)"


def test_the_points_of_a_path_are_read_from_its_data_as_the_browser_draws_it(kv):
    """draw/path.js reads a path's points from its data (labels.js keeps labels clear of
    them, the crossings check samples them): straight pieces exactly, curves (Q, T, C, S,
    relative or not) within a quarter pixel of Chromium's own points, one run per piece (a
    move or a close starts one), and an arc (`A`) left to the browser."""
    paths = ["M 10 10 L 100 10 L 100 80 Z",
             "M 10 300 v 4 H 200 v -4",
             "M 20 200 Q 150 20 280 200",
             "M 20 200 q 130 -180 260 0 t 100 0",
             "M 10 390 C 60 300 140 300 190 390 S 320 480 390 390",
             "M 50 50 l 10 10 m 40 0 l 10 -10 m -4 -5 l 4 5 l 4 -5",
             "M 5 5 A 20 20 0 0 1 45 5"]
    got = dict(map(tuple, kv.evaluate(PATH_RUNS, [paths, 0.25])))
    assert got["M 5 5 A 20 20 0 0 1 45 5"] is None
    for d in paths[:-1]:
        assert got[d]["off"], d
    assert got[paths[0]]["runs"] == 1 and got[paths[0]]["points"] == 4     # closed: back to the start
    assert got[paths[0]]["last"] == [10, 10]
    assert got[paths[1]] == {"runs": 1, "points": 4, "off": True, "first": [10, 300],
                             "last": [200, 300]}
    assert got[paths[5]]["runs"] == 3                                    # two moves: three pieces
    assert got[paths[2]]["points"] > 100                                  # a curve, every ~2 px
    assert got[paths[3]]["last"] == [380, 200]                            # t: the reflected control


HTML_FIGURE = "(a) => KVT.js_units.htmlFigure(a)"


@pytest.mark.parametrize("lang", list(LANGS))
def test_step6_head_groups_and_bars_are_readable(readable, lang):
    """Part A's figures (server templates) at every setting: the bars' names and sizes never
    overlap and are at least 12 px; the head grid's cells are large enough to see."""
    from steps.shell import step_class
    step = step_class(6)(lang)
    specs = {c["name"]: c for c in step.state()["controls"]}
    html = []
    for kv_heads, _ in specs["kv_heads"]["options"]:
        for precision, _ in specs["precision"]["options"]:
            for window, _ in specs["window"]["options"]:
                s = step_class(6)(lang)
                for k, (name, v) in enumerate((("kv_heads", kv_heads), ("precision", precision),
                                               ("window", window)), 1):
                    s.handle({"set": name, "value": v, "seq": k})
                blocks = [b for b in columns(s.state())["right"] if b["kind"] == "html"]
                html.append("".join(f'<div class="{b.get("cls", "")}">{b["html"]}</div>'
                                    for b in blocks))
    for h in dict.fromkeys(html):
        bad = readable.evaluate(HTML_FIGURE, [h, WIDTHS, ".bar-name, .bar-label, figcaption, "
                                              ".heads-line, .swatch"])
        assert bad == [], "\n".join(bad[:12])
    sizes = readable.evaluate("(a) => KVT.js_units.step6HeadGroupsAndBarsAreReadable(a)")
    assert sizes[0] >= 10 and sizes[1] >= 20 and sizes[2] >= 14


@pytest.mark.parametrize("lang", list(LANGS))
def test_the_schematic_is_readable_at_its_size(readable, lang):
    """The heading's schematic as a phone shows it (358 px) and as the heading gives it room
    (400 px): every label at least 12 px, none on another."""
    from steps.shell import heading_html
    html = heading_html(lang, 1)
    bad = readable.evaluate(HTML_FIGURE, [html, [358, 400], ".schematic text"])
    assert bad == [], "\n".join(bad[:12])


# One meaning per colour (assets/app.css, the table at its top): the computed colour of every
# shape and text in every figure; key blue, value orange and query green only on the marks
# that mean them, and no colour outside the table and the neutrals.
COLOURS = "(a) => KVT.js_units.colours(a)"

KEY, VALUE, QUERY = "rgb(0, 114, 178)", "rgb(230, 159, 0)", "rgb(0, 158, 115)"
# the marks allowed each meaning's colour (a class of the element or its group)
MEANS = {KEY: r"\barc\b|cell k\b|seg-key|area-key",
         VALUE: r"cell v\b|out-cell|seg-value|area-value",
         QUERY: r"self-key|is-query|attn-bar"}
PALETTE = {KEY, VALUE, QUERY, "rgb(86, 180, 233)", "rgb(55, 66, 77)", "rgb(204, 121, 167)",
           "rgb(140, 140, 140)", "rgb(127, 127, 127)", "rgb(163, 50, 11)", "rgb(31, 41, 51)",
           # step 6's requests (their own palette), the tints of its blocks and their outlines
           "rgb(153, 221, 255)", "rgb(238, 221, 136)", "rgb(255, 170, 187)", "rgb(187, 204, 51)",
           "rgb(221, 240, 251)", "rgb(250, 245, 223)", "rgb(255, 238, 241)", "rgb(241, 245, 214)",
           "rgb(43, 127, 176)", "rgb(168, 155, 0)", "rgb(192, 96, 122)", "rgb(122, 138, 16)",
           # step 6's Part D: attention sinks indigo, heavy hitters wine
           "rgb(51, 34, 136)", "rgb(136, 34, 85)",
           # step 5's layer map: one colour per kind of layer (its own palette)
           "rgb(34, 85, 85)", "rgb(221, 204, 119)", "rgb(153, 153, 51)", "rgb(204, 102, 119)",
           "rgb(170, 68, 153)", "rgb(102, 51, 51)",
           # neutrals: white, greys and ink for text, tracks, frames and grid lines
           "rgb(255, 255, 255)", "rgb(0, 0, 0)", "rgb(74, 85, 96)", "rgb(107, 118, 130)",
           "rgb(184, 194, 204)", "rgb(200, 208, 216)", "rgb(217, 222, 227)", "rgb(227, 231, 235)",
           "rgb(238, 241, 244)", "rgb(243, 245, 247)"}


def test_one_meaning_per_colour_in_every_figure(readable):
    import re
    cases = []
    for n in NUMBERS:
        for label, s, _ in list(_states(n, "en"))[:1] + ([] if n != 6 else [
                x for x in _states(6, "en") if x[0] in ("part=b", "part=d")]):
            if s["stage"] and s["stage"].get("figure"):
                cases.append([f"{n} {label}", s["stage"], s["frames"]])
    used = readable.evaluate(COLOURS, [cases])
    stray = {c: uses[:3] for c, uses in used.items() if c not in PALETTE}
    assert stray == {}, stray
    for colour, allowed in MEANS.items():
        wrong = [u for u in used.get(colour, []) if not re.search(allowed, u)]
        assert wrong == [], (colour, wrong[:6])
    for colour in MEANS:                    # and each is used (the figures do draw them)
        assert used.get(colour), colour


def test_no_renderer_or_template_names_a_colour_of_its_own():
    """The colours live in assets/app.css (its table): the renderers and templates use classes."""
    import re
    root = bundle.JS.parents[2]
    files = [*bundle.JS.glob("draw/*.js"), *root.glob("steps/*/templates/*.j2"),
             *root.glob("steps/ui/templates/*.j2")]
    found = {f.name: re.findall(r"#[0-9a-fA-F]{6}\b|#[0-9a-fA-F]{3}\b|rgb\(", f.read_text())
             for f in files}
    assert {k: v for k, v in found.items() if v} == {}
