"""Step 4's controller without Panel: the state the page draws (its blocks, controls, question
and its one still frame), the answer's concealment, the learner's moves as messages, the live
measurement through `steps.live.LiveValue` (asked for when drawn, never waited for in a served
session, redrawing the page when it settles) and the deep links through `steps.shell.App`."""
import json
import threading
import time
from urllib.parse import parse_qs

import pytest

import explainer.runtime as rt
from explainer.i18n import Translator
from steps import live as live_mod
from steps.shell import App
from steps.step4 import text
from steps.step4.view import Step4, links_block
from steps.ui.state import columns, check_step



def norm(s: str) -> str:
    return s.replace("\u00a0", " ").replace("\u202f", " ")


@pytest.fixture
def fresh(step4_stand_in):
    """An empty measurement queue and a cheap stand-in (the prompt lengths asked for)."""
    return step4_stand_in


def frame_of(state: dict) -> dict:
    frames = json.loads(state["frames"])
    assert len(frames) == 1                         # one still frame
    return frames[0]


def card(state: dict, key: str) -> dict:
    return {c["key"]: c for c in frame_of(state)["cards"]}[key]


def blocks(state: dict, side: str) -> list:
    return [b.get("name") or b.get("cls") or b["kind"] for b in columns(state)[side]]


def opened(blocks: list) -> list:
    """The blocks, with those of the collapsed sections (Go deeper) after each one."""
    out = []
    for b in blocks:
        out.append(b)
        if b["kind"] == "details":
            out += opened(b["blocks"])
    return out


def said(state: dict, cls: str) -> str:
    """The words of the left column's blocks of class `cls`, Go deeper opened."""
    return norm(" ".join(" ".join(b.get("items", [])) for b in opened(columns(state)["left"])
                         if b.get("cls") == cls))


def section(state: dict, name: str) -> list:
    """The blocks of a Go deeper section ([] if it is not there)."""
    return next((b["blocks"] for b in columns(state)["left"]
                 if b.get("cls") == f"deeper deeper-{name}"), [])

def test_the_state_names_its_regions(fresh):
    step = Step4("en")
    s = check_step(step.state())
    assert s["number"] == 4 and "step-4" in s["classes"]
    assert blocks(s, "left") == ["step-lead", "narration", "question", "answer", "narration",
                                 "notices", "notices", "deeper deeper-why", "deeper deeper-live",
                                 "exercises"]
    assert blocks(s, "right") == ["controls", "stage", "legend"]     # the figure and its controls
    assert s["lead"][0]["items"] == [text.lead(step.tr)]
    assert s["notices"][0]["items"] == []                    # nothing beyond Llama 2's context
    # slope, roof and ridge before the question; what to press after it
    assert s["idea"][0]["items"] == [text.primer(step.model.roofline, step.tr)]
    assert "150 FLOP/byte" in s["idea"][0]["items"][0]
    assert s["look"][0]["items"] == [text.look(step.tr, False)]
    assert [i[1] for i in s["legend"][0]["items"]] == [text.legend(step.tr)[0][1]]  # no dots
    speed = said(s, "live-facts live-speed")
    assert "Python" in speed and "not the GPU roofline" in speed      # the CPU caveat
    assert [b["cls"] for b in section(s, "live")] == ["live-facts live-speed"]
    assert "lower bounds" in " ".join(section(s, "why")[-1]["items"])
    # lines as lines, points as points (dom.js legendRow): not every mark a square
    assert [k for k, _ in text.legend(step.tr)] == ["line:text", "dot:compute", "dot:cached",
                                                   "muted", "dots:cached", "dotted:text"]
    stage = s["stage"]
    assert stage["figure"] == "roofline" and not stage["player"]      # a still figure
    assert stage["text"]["figure"] == "Roofline" and stage["text"]["table"] == "Show as table"
    f = frame_of(s)
    assert f["fig"]["points"] == []                         # the dots wait for the answer
    assert f["fig"]["batch"]["title"] and f["table"]["rows"] and f["desc"]
    assert s["frame"] == 0
    step.handle({"shown": True})
    assert [p["label"] for p in frame_of(step.state())["fig"]["points"]] == ["prefill", "decode"]


def test_the_controls_and_their_labels(fresh):
    step = Step4("pl")
    s = step.state()
    labels = text.control_labels(step.tr)
    specs = {c["name"]: c for c in s["controls"]}
    assert list(specs) == ["prompt", "output", "batch", "model", "gpu"]
    assert {n: c["label"] for n, c in specs.items()} == labels
    assert [c["kind"] for c in specs.values()] == ["range"] * 3 + ["select"] * 2
    assert (specs["prompt"]["start"], specs["prompt"]["end"], specs["prompt"]["step"]) == (
        16, 8192, 16)
    assert (specs["output"]["start"], specs["output"]["end"]) == (1, 2048)
    assert (specs["batch"]["start"], specs["batch"]["end"]) == (1, 256)
    assert [v for v, _ in specs["gpu"]["options"]] == list(text.gpu_options(step.tr).values())
    assert [v for v, _ in specs["model"]["options"]] == list(
        text.model_options(step.tr).values())
    assert s["values"] == {"prompt": 512, "output": 256, "batch": 1, "model": "llama2-7b",
                           "gpu": "illustrative"}


def test_the_answer_waits_for_the_learner(fresh):
    step = Step4("en")
    s = step.state()
    assert s["concealed"] and s["question"]["answer"] is None
    assert s["question"]["correct"] is None and s["question"]["explain"] == ""
    assert card(s, "decode_bound")["hidden"] and card(s, "prefill_bound")["hidden"]
    primer = text.primer(step.model.roofline, step.tr)       # defines the word, places nothing
    assert "memory-bound" not in said(s, "narration").replace(primer, "")
    assert "narration shrink" not in [b.get("cls") for b in opened(columns(s)["left"])]  # links wait
    for junk in ({"answer": -1}, {"answer": 9}, {"answer": True}, {"answer": "1"},
                 {"shown": 1}, {"nonsense": 1}):
        step.handle(junk)
        assert step.state()["concealed"]
    step.handle({"answer": 1})
    s = check_step(step.state())
    assert not s["concealed"] and s["question"]["answer"] == 1
    assert s["question"]["options"][s["question"]["correct"]] == "One decode step"
    assert "memory-bound" in said(s, "narration")
    assert "continuous batching" in " ".join(section(s, "literature")[0]["items"])
    assert blocks(s, "left") == ["step-lead", "narration", "question", "answer", "narration",
                                 "notices", "notices", "deeper deeper-why", "deeper deeper-live",
                                 "deeper deeper-literature", "exercises"]
    links = next(b for b in section(s, "why") if b.get("cls") == "narration shrink")
    assert links["kind"] == "html" and 'class="shrink-links"' in links["html"]
    assert '<a href="?step=6&amp;lang=en&amp;heads=8">' in links["html"]
    # a prompt whose answer differs asks again
    step.handle({"set": "prompt", "value": 16, "seq": 1})
    s = step.state()
    assert s["concealed"] and s["question"]["answer"] is None and "16" in s["question"]["prompt"]


def test_no_flop_per_byte_is_shown_before_the_answer(fresh):
    """Before answering, the frame names no phase's FLOP/byte and no attainable TFLOP/s: not
    the cards, the batch chart's decode label or ceiling, the roofline's ceiling, the text
    twin's columns, nor the description; after it, all of them do."""
    step = Step4("en")
    step.handle({"set": "batch", "value": 64, "seq": 1})
    step.handle({"set": "gpu", "value": "h100", "seq": 2})
    m = step.model
    dai, pai = text.values(m.roofline, step.tr)["decode_intensity"], str(
        round(m.roofline.prefill.intensity))
    ceiling = step.tr.sig(m.batching.ceiling, 3)

    def parts(s):
        f = frame_of(s)
        flops = f["fig"]["batch"]["panels"][0]
        cols = [row[1:3] for row in f["table"]["rows"]]
        return f, flops, cols

    s = check_step(step.state())
    f, flops, cols = parts(s)
    assert s["concealed"]
    assert all(card(s, k)["hidden"] for k in ("prefill_intensity", "decode_intensity",
                                                 "intensity_ceiling"))   # they read “?”
    # no FLOP-per-byte panel, no ceiling's line, no dots: the batch chart starts at tokens/s
    assert flops["title"] == "Tokens per second, at most" and f["fig"]["ceiling"] is None
    assert f["fig"]["points"] == [] and f["fig"]["trail"] == []
    assert cols and all(c == ["?", "?"] for c in cols)
    assert "FLOP/byte" in f["desc"]                     # the ridge is the GPU's: named
    for number in (dai, pai, ceiling):
        assert number not in norm(f["desc"]), number
    assert [p["now_label"] for p in f["fig"]["batch"]["panels"]] != ["?", "?"]
    step.handle({"shown": True})
    f, flops, cols = parts(step.state())
    assert flops["now_label"] == dai and flops["lines"][0]["label"] == f"ceiling ≈ {ceiling}"
    assert f["fig"]["ceiling"]["label"] == f"decode ceiling ≈ {ceiling}"
    assert all("?" not in c for c in cols)
    assert dai in f["desc"] and ceiling in f["desc"]


def test_the_shrink_links_render_through_the_one_template_environment():
    from steps.step4.model import batching_of
    block = links_block(batching_of(16383, "h100"), "pl", Translator("en"))
    assert block["cls"] == "narration shrink"
    assert '<a href="?step=6&amp;lang=pl&amp;heads=8">' in block["html"]
    assert block["html"].startswith("<p>A smaller cache per sequence")


def test_moves_as_messages(fresh):
    step = Step4("en")
    step.state()
    step.handle({"set": "prompt", "value": 37, "seq": 1})             # snapped to the step
    assert step.model.prompt == 32
    step.handle({"set": "prompt", "value": 1e9, "seq": 2})            # inside the bounds
    assert step.model.prompt == 8192
    step.handle({"set": "prompt", "value": 64, "seq": 2})             # older than applied
    assert step.model.prompt == 8192
    for bad in ("64", None, True, float("nan")):
        step.handle({"set": "prompt", "value": bad})
        assert step.model.prompt == 8192
    step.handle({"set": "model", "value": "gpt-5"})
    step.handle({"set": "gpu", "value": "tpu"})
    assert (step.model.model, step.model.gpu) == ("llama2-7b", "illustrative")
    step.handle({"set": "model", "value": "qwen3-8b"})
    step.handle({"set": "gpu", "value": "h100"})
    step.handle({"set": "batch", "value": 64})
    s = step.state()
    assert s["values"]["batch"] == 64 and s["values"]["model"] == "qwen3-8b"
    assert card(s, "batch")["value"] == "64"
    assert frame_of(s)["fig"]["points"] == []                       # until the answer
    step.handle({"shown": True})
    assert [p["label"] for p in frame_of(step.state())["fig"]["points"]] == [
        "prefill", "decode, batch 64"]
    step.handle({"frame": 3})                                         # a still frame: no-op
    assert step.state()["frame"] == 0


def test_the_live_measurement_follows_the_grid_point(fresh):
    step = Step4("en")
    assert fresh == []                        # nothing asked before the state is drawn
    s = step.state()
    assert step.live.status == "ready" and fresh == [512]
    assert card(s, "measured_decode")["value"] == "500 tokens/s"
    assert card(s, "measured_decode")["kind"] == "measured"
    step.handle({"set": "prompt", "value": 32, "seq": 1})
    step.handle({"set": "output", "value": 3, "seq": 1})
    assert fresh[-1] == 32                    # a new grid point is measured
    s = step.state()
    assert norm(card(s, "measured_prefill")["value"]) == "3,200 tokens/s"
    assert "prompt tokens: 32" in said(s, "live-facts live-speed")
    step.handle({"set": "gpu", "value": "h100"})
    step.handle({"set": "prompt", "value": 48, "seq": 2})             # the same grid point
    step.state()
    assert fresh == [512, 32]                  # neither the GPU nor a nearby prompt re-measures


def test_a_slider_move_never_waits_for_the_measurement(fresh, monkeypatch):
    """In a served session the new grid point shows “measuring…” at once; when it settles
    (on the session's event loop) the app hears one change and the page is redrawn."""
    gate, pending = threading.Event(), []
    fake = rt.throughputs            # the fixture's stand-in

    def slow(variant, p, outputs, repeats=3):
        if p != 512:
            gate.wait(30)
        return fake(variant, p, outputs, repeats)

    monkeypatch.setattr(rt, "throughputs", slow)
    app = App(query={"step": [b"4"]})
    app.state()
    heard = []
    app.on_change(lambda: heard.append(app.state()))
    monkeypatch.setattr(live_mod, "served_doc", lambda: object())
    monkeypatch.setattr(live_mod, "refresh_when_done",
                        lambda fut, doc, fn: pending.append((fut, fn)))
    t0 = time.perf_counter()
    app.handle({"set": "prompt", "value": 64, "seq": 1})
    assert time.perf_counter() - t0 < 1.0
    assert app.step.live.status == "pending" and len(heard) == 1
    assert card(heard[-1], "measured_decode")["value"] == "measuring…"
    assert "measuring…" in said(heard[-1], "live-facts live-speed")
    gate.set()
    fut, settle = pending[-1]
    fut.result(30)
    settle()                                        # on the session's loop, when served
    assert app.step.live.status == "ready" and len(heard) == 2
    assert norm(card(heard[-1], "measured_prefill")["value"]) == "6,400 tokens/s"


def test_a_failed_measurement_shows_a_dash_and_says_so(fresh, monkeypatch):
    def broken(*a, **k):
        raise RuntimeError("no model")

    monkeypatch.setattr(rt, "throughputs", broken)
    step = Step4("en")
    step.handle({"shown": True})                    # the formulas' numbers, not “?”
    s = step.state()
    assert step.live.status == "failed"
    assert card(s, "measured_decode")["value"] == "–"
    assert card(s, "prefill_intensity")["value"] == "502"     # the formulas stay
    notes = s["notices"][1]["items"]
    assert any("could not be measured" in n for n in notes)


def test_leaving_the_step_gives_its_claim_back(fresh, monkeypatch):
    released = []
    monkeypatch.setattr(live_mod.JOBS, "release", lambda key, owner: released.append(key))
    app = App(query={"step": [b"4"], "prompt": [b"64"]})
    app.state()
    app.handle({"goto": 3})
    assert released == [("step4", (64, 256))]
    app.handle({"goto": 4})                      # back: the inputs and the measurement again
    assert card(app.state(), "measured_decode")["value"] == "500 tokens/s"
    assert app.step.model.prompt == 64 and fresh == [64]


def test_a_language_change_rewrites_every_word(fresh):
    app = App(query={"step": [b"4"], "prompt": [b"32"]})
    app.state()
    app.handle({"lang": "pl"})
    s = app.state()
    pl = Translator("pl")
    assert s["question"]["options"][0] == pl._("Prefill")
    assert s["controls"][0]["label"] == text.control_labels(pl)["prompt"]
    assert card(s, "prefill_tokens")["value"] == "32"
    assert s["stage"]["text"]["figure"] == pl._("Roofline")


def test_deep_link_round_trip(fresh):
    app = App(query={"step": [b"4"], "prompt": [b"64"], "output": [b"9"], "gpu": [b"h100"]})
    m = app.step.model
    assert (m.prompt, m.output, m.gpu) == (64, 9, "h100")
    assert app.view_model()["notices"] == []
    assert parse_qs(app.url_query()[1:]) == {"step": ["4"], "lang": ["en"], "prompt": ["64"],
                                             "output": ["9"], "gpu": ["h100"],
                                             "model": ["llama2-7b"], "batch": ["1"]}
    s = app.state()
    assert s["query"] == app.url_query() and s["values"]["prompt"] == 64
    assert fresh == [64]                     # the link's grid point, not the default's first
    # the model and the batch
    app = App(query={"step": [b"4"], "model": [b"qwen3-8b"], "batch": [b"64"]})
    m = app.step.model
    assert (m.model, m.batch) == ("qwen3-8b", 64) and app.view_model()["notices"] == []
    assert parse_qs(app.url_query()[1:])["batch"] == ["64"]
    assert m.roofline.decode.tokens == 64 and m.roofline.model.name == "Qwen3 8B"
    for bad in ({"batch": [b"0"]}, {"batch": [b"257"]}, {"model": [b"gpt-5"]}):
        app = App(query={"step": [b"4"], **bad})
        m = app.step.model
        assert (m.model, m.batch) == ("llama2-7b", 1) and len(app.view_model()["notices"]) == 1
        assert app.state()["shell"]["notices"]
