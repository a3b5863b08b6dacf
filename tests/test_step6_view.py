"""Step 6's controller without Panel: the state of each part (blocks, cards, tabs, stage and
frames), the question's concealment, the learner's messages, the live values it follows and
the deep link."""
import json
import re
from concurrent.futures import Future

import pytest

from explainer.i18n import LANGS
from steps import live as live_mod
from steps.shell import App
from steps.step6.model import PARTS
from steps.step6.view import Step6
from steps.ui.state import columns, check_step

PART_A = {"per_token", "tokens_kept", "cache_gb", "factor"}
MORE_A = {"cache_gib", "baseline_gb", "scales_per_token"}
PART_B = {"blocks_used", "paged_share", "reserved_share", "sharing_saved", "slots_wasted",
          "copies_on_write", "bytes_in_use", "reserved"}
PART_C = {"live_bytes", "live_factor_base", "live_top1", "live_dlogit"}
MORE_C = {"live_exact_bytes", "live_factor_exact"}


def blocks(state, side=None):
    """Every block of the state (details opened), in order."""
    out = []

    def walk(bs):
        for b in bs:
            out.append(b)
            if b["kind"] == "details":
                walk(b["blocks"])
    for s in ([side] if side else ["left", "right"]):
        walk(columns(state)[s])
    return out


def cards(state, side="right") -> dict:
    return {c["key"]: c for b in blocks(state, side) if b["kind"] == "metrics"
            for c in b["cards"]}


def details_cards(state) -> set:
    return {c["key"] for b in columns(state)["right"] if b["kind"] == "details"
            for m in b["blocks"] for c in m["cards"]}


def html(state) -> str:
    return " ".join(b["html"] for b in blocks(state) if b["kind"] == "html")


def words(state) -> str:
    return " ".join(" ".join(b.get("items", [])) + " " + b.get("heading", "")
                    for b in blocks(state) if b["kind"] in ("paragraphs", "notices"))


def slots(state, side) -> list:
    return [b["name"] for b in columns(state)[side] if b["kind"] == "slot"]


def frames(state) -> list:
    return json.loads(state["frames"] or "[]")


def norm(s: str) -> str:
    return s.replace("\u00a0", " ").replace("\u202f", " ")


@pytest.fixture
def step():
    s = Step6("en")
    yield s
    s.close()


def test_url_names_keep_the_old_ones_and_the_part():
    assert Step6.url_names == {"part": "part", "kv_heads": "heads", "precision": "precision",
                               "window": "window", "policy": "policy", "budget": "budget",
                               "frame": "frame"}


def test_part_a_state(step):
    st = check_step(step.state())
    assert st["number"] == 6 and "step-6" in st["classes"]
    assert st["tabs"] == {"name": "part", "label": "Shrinking the cache", "active": "a",
                          "items": [["a", "A. Fewer heads, bits, tokens"],
                                    ["b", "B. Paged memory"], ["c", "C. On the live model"],
                                    ["d", "D. Dropping tokens"]]}
    assert st["stage"] is None and st["frames"] == ""          # no stage outside Part B
    assert slots(st, "left") == ["question", "answer"] and slots(st, "right") == ["controls"]
    assert columns(st)["left"][0]["cls"] == "step-lead"
    assert set(cards(st)) == PART_A | MORE_A and details_cards(st) == MORE_A
    details = [b for b in columns(st)["right"] if b["kind"] == "details"]
    assert details[0]["summary"] == "All numbers" and details[0]["cls"] == "all-numbers"
    assert norm(cards(st)["cache_gb"]["value"]) == "68.7 GB"
    assert "kv-groups" in html(st) and "bars-svg" in html(st)
    assert "A. Fewer heads, fewer bits, fewer tokens" in words(st)


def test_the_controls_and_the_tabs_control(step):
    st = step.state()
    specs = {c["name"]: c for c in st["controls"]}
    assert list(specs) == ["part", "kv_heads", "precision", "window", "policy", "budget"]
    assert specs["part"]["hidden"] and specs["part"]["kind"] == "radio"
    assert not any(specs[n].get("hidden") for n in ("kv_heads", "precision", "window"))
    assert specs["policy"]["hidden"] and specs["budget"]["hidden"]      # Part D's own
    assert [v for v, _ in specs["kv_heads"]["options"]] == [32, 8, 1]
    assert [v for v, _ in specs["window"]["options"]] == [0, 4096, 1024]
    assert st["values"] == {"part": "a", "kv_heads": 32, "precision": "fp16", "window": 0,
                            "policy": "window", "budget": 16}
    assert specs["kv_heads"]["label"] == "Key/value heads (Llama 3.1 8B)"


def test_the_answer_waits_for_the_question(step):
    st = step.state()
    assert st["concealed"] and cards(st)["factor"]["hidden"]
    assert st["question"]["answer"] is None and "fp16" in st["question"]["prompt"]
    bars = html(st)
    assert "(same size as the baseline)" in bars and "smaller" not in bars and "?" not in bars
    step.handle({"set": "kv_heads", "value": 8, "seq": 1})       # the size alone, no factor
    assert "17.2\u00a0GB</span>" in html(step.state()) and "smaller" not in html(step.state())
    step.handle({"set": "kv_heads", "value": 32, "seq": 2})
    step.handle({"answer": 1})
    st = check_step(step.state())
    assert not st["concealed"] and st["question"]["answer"] == 1
    # the answer switches GQA on: the figure shows what it says (tests/test_reveal.py)
    assert st["values"]["kv_heads"] == 8 and "4× smaller" in html(st)


def test_a_setting_changes_the_numbers_and_a_bad_value_is_ignored(step):
    step.handle({"set": "kv_heads", "value": 8, "seq": 1})
    step.handle({"set": "precision", "value": "int8", "seq": 1})
    step.handle({"answer": 1})
    st = step.state()
    assert cards(st)["factor"]["value"] == "7.88×" and "7.88× smaller" in html(st)
    for junk in ({"set": "kv_heads", "value": 7, "seq": 2}, {"set": "window", "value": True},
                 {"set": "precision", "value": "fp4"}, {"set": "nope", "value": 1}):
        step.handle(junk)
    assert (step.model.kv_heads, step.model.precision, step.model.window) == (8, "int8", 0)


def test_tabs_switch_the_part_and_keep_the_answer(step):
    step.handle({"answer": 1})
    step.handle({"set": "part", "value": "b", "seq": 1})
    assert step.model.part == "b"
    st = check_step(step.state())
    assert st["tabs"]["active"] == "b" and st["values"]["part"] == "b"
    # Part B asks its own question: A's answer reveals nothing here
    assert st["question"]["key"][:2] == ("step6", "b")
    assert st["question"]["answer"] is None and st["concealed"]
    step.handle({"set": "part", "value": "z", "seq": 2})     # not a part: ignored
    step.handle({"set": "part", "value": "a", "seq": 1})     # older than the last: dropped
    assert step.model.part == "b"
    step.handle({"set": "part", "value": "a", "seq": 3})
    st = step.state()
    assert step.model.part == "a" and st["question"]["answer"] == 1
    assert cards(st)["factor"]["value"] == "4×"              # the answer switched GQA on


def test_part_b_stage_frames_and_player(step):
    step.handle({"set": "part", "value": "b"})
    st = check_step(step.state())
    assert slots(st, "right") == ["stage"] and slots(st, "left") == ["question", "answer"]
    assert st["stage"]["figure"] == "pool" and st["stage"]["interval"] == 1100
    text = st["stage"]["text"]
    assert text["block"] == "Block" and text["tables"] == "Block tables" and text["play"]
    fs = frames(st)
    assert len(fs) == step.model.paged.value.n_frames > 5
    assert {c["key"] for c in fs[0]["cards"]} == PART_B
    assert {c["key"] for c in fs[0]["cards"] if c["more"]} == {
        "slots_wasted", "copies_on_write", "bytes_in_use", "reserved"}
    assert fs[0]["pos"].startswith("Event 1 of") and fs[0]["table"]["rows"]
    assert len(fs[0]["fig"]["blocks"]) == 24
    assert {b["kind"] for b in columns(st)["right"]} == {"slot", "legend"}
    assert "B. No waste: paged memory" in words(st)
    assert not cards(st)                                          # Part A is not in the state
    step.handle({"frame": 4})                                     # playback stopped there
    assert step.model.frame == 4 and step.state()["frame"] == 4
    step.handle({"frame": 10_000})                                # kept within the events
    assert step.model.frame == len(fs) - 1
    for junk in ({"frame": True}, {"frame": "3"}, {"frame": None}):
        step.handle(junk)
    assert step.model.frame == len(fs) - 1
    assert step.url_state()["frame"] == len(fs) - 1


def test_part_c_keys_and_escaped_texts(step):
    step.handle({"set": "part", "value": "c"})
    st = check_step(step.state())
    assert slots(st, "left") == ["question", "answer"] and slots(st, "right") == ["controls"]
    assert st["stage"] is None
    assert set(cards(st)) == PART_C | MORE_C and details_cards(st) == MORE_C
    assert "continuations" in html(st) and "<script" not in html(st)
    assert "C. The same choices, run for real" in words(st)
    assert "The live model has" in words(st)                    # how the choices map
    assert not [b for b in columns(st)["left"] if b["kind"] == "notices" and b["items"]]
    step.handle({"set": "precision", "value": "fp8"})
    assert "no fp8 cache" in words(step.state())


def test_a_pending_measurement_shows_the_last_result(step, monkeypatch):
    class Doc:
        session_context = object()

        def add_next_tick_callback(self, fn):
            pass

    step.handle({"set": "part", "value": "c"})
    before = step.model.live.value
    assert before is not None
    pending = Future()
    monkeypatch.setattr(live_mod, "served_doc", lambda: Doc())
    monkeypatch.setattr(live_mod.JOBS, "submit",
                        lambda key, fn, front=False, owner=None: pending)
    step.handle({"set": "kv_heads", "value": 8})
    st = check_step(step.state())
    assert step.model.live.status == "pending" and step.model.live.value is before
    assert "Measuring this setting" in words(st) and "previous result" in words(st)
    assert set(cards(st)) == PART_C | MORE_C                    # the last numbers stay


def test_the_live_values_are_watched():
    """A measurement that arrives later (the LiveValue settles on the session's loop) redraws
    the step: the shell hears it."""
    app = App(query={"step": "6", "part": "c"})
    step = app.step
    watched = {id(obj): names for obj, names in step.watched()}
    for v in (step.model.paged, step.model.live):
        assert set(watched[id(v)]) >= {"status", "value", "error"}
    assert {"part", "kv_heads", "eager", "frame"} <= set(watched[id(step.model)])
    heard = []
    app.on_change(lambda: heard.append(1))
    step.model.live.status = "pending"
    step.model.live.status = "ready"
    assert len(heard) == 2
    app.goto(1)                                                  # left: no longer heard
    step.model.live.status = "pending"
    assert len(heard) == 2


def test_outside_a_server_only_the_part_shown_is_measured():
    step = Step6("en")
    assert not step.model.eager
    assert step.model.live.value is None and step.model.setting is None


def test_deep_link_to_part_b():
    app = App(query={"step": "6", "part": "b", "frame": "4", "heads": "8"})
    st = check_step(app.step.state())
    assert (app.step.model.part, app.step.model.frame, st["frame"]) == ("b", 4, 4)
    assert st["tabs"]["active"] == "b" and st["stage"]["figure"] == "pool"
    assert app.notice_texts(app.state_.tr) == []
    q = app.url_query()
    assert "part=b" in q and "frame=4" in q and "heads=8" in q
    bad = App(query={"step": "6", "part": "e", "window": "7"})
    assert bad.step.model.part == "a" and len(bad.notices) == 2


def test_a_later_visit_restores_the_part_and_the_answer():
    app = App(query={"step": "6", "part": "c", "precision": "int4"})
    app.handle({"answer": 1})
    app.handle({"nav": -1})
    app.handle({"nav": 1})
    m = app.step.model
    # Part C's answer moved the controls to the setting that changed the output most
    assert (m.part, m.precision, m.window) == ("c", "fp16", 4096) and app.step.answer == 1


@pytest.mark.parametrize("lang", list(LANGS))
@pytest.mark.parametrize("part", PARTS)
def test_every_part_in_every_language(lang, part):
    step = Step6(lang, saved={"model": {"part": part}})
    st = check_step(step.state())
    assert st["tabs"]["active"] == part and len(st["tabs"]["items"]) == 4
    assert all(t for _, t in st["tabs"]["items"])
    if part in ("b", "d"):
        assert frames(st)
    else:
        assert cards(st)
    if lang == "pl" and part == "a":
        assert "16 384" in norm(st["idea"][0]["items"][0])
        assert st["tabs"]["items"][1][1] != "B. Paged memory"


def test_no_panel_in_the_controller():
    src = open(Step6.__module__.replace(".", "/") + ".py").read()
    assert not re.search(r"^\s*(import|from)\s+(panel|bokeh|panel_material_ui)\b", src, re.M)


# -- every part has its own question ---------------------------------------------------------

def frame_card(frame: dict, key: str) -> dict:
    return next(c for c in frame["cards"] if c["key"] == key)


def test_part_b_asks_what_a_reservation_holds_and_the_answer_goes_to_its_event(step):
    from steps.step6 import text
    step.handle({"set": "part", "value": "b"})
    st = check_step(step.state())
    q, fs, p = st["question"], frames(st), step.model.paged.value
    i = text.pool_question_event(p)
    assert st["concealed"] and q["answer"] is None and step.model.frame == 0
    assert "1,024 tokens for every request" in q["prompt"] and f"event {i + 1} there" in q["prompt"]
    # the card that answers it waits on every event; its value is the right option
    assert all(frame_card(f, "reserved_share")["hidden"] for f in fs)
    assert all(frame_card(f, "reserved_share")["value"] == "?" for f in fs)
    assert q["correct"] is None                               # sent once answered
    right = step.page(step.tr)["question"]["correct"]
    assert len(set(q["options"])) == 3
    step.handle({"answer": (right + 1) % 3})                  # a wrong pick
    st = check_step(step.state())
    assert not st["concealed"] and st["question"]["answer"] == (right + 1) % 3
    assert st["question"]["correct"] == right
    assert q["options"][right] == frame_card(frames(st)[i], "reserved_share")["value"]
    assert step.model.frame == st["frame"] == i               # the figure at that event
    assert step.url_state()["frame"] == i


def test_part_c_asks_which_setting_changes_the_output_most(step):
    from steps.step6 import text
    step.handle({"set": "part", "value": "c"})
    st = check_step(step.state())
    q = st["question"]
    assert q["answer"] is None and st["concealed"]
    assert q["options"][:2] == ["int8", "int4"] and "(here W = 12)" in q["options"][2]
    runs = [v.value for v in step._question_runs]
    # the window is kept in fp16, as the full cache it is compared with
    assert [(r.kind, bool(r.window)) for r in runs] == [("int8", False), ("int4", False),
                                                         ("fp16", True)]
    assert len({r.variant for r in runs}) == 1 and runs[0].variant in q["prompt"]
    worst = min(range(3), key=lambda i: (runs[i].top1, -runs[i].dlogit))
    assert q["correct"] is None and step.page(step.tr)["question"]["correct"] == worst
    # the default setting (fp16, full context) gives nothing away: its numbers show
    assert not cards(st)["live_top1"]["hidden"] and "continuations" in html(st)
    step.handle({"set": "precision", "value": "int4"})        # a setting it asks about
    st = check_step(step.state())
    assert cards(st)["live_top1"]["hidden"] and cards(st)["live_dlogit"]["hidden"]
    assert not cards(st)["live_bytes"]["hidden"]
    assert "continuations" not in html(st) and "appear once you have answered" in words(st)
    step.handle({"answer": worst})
    st = check_step(step.state())
    assert not st["concealed"] and "continuations" in html(st)
    assert (step.model.precision, step.model.window) == text.QUESTION_C[worst]
    assert st["question"]["key"] == q["key"] and st["question"]["answer"] == worst


def test_part_c_names_the_live_models_heads_and_keeps_the_window_in_fp16(step):
    """Part C runs the live model (4 query heads): its control names the live variants' key/
    value heads (4, 2, 1), not the reference model's (32, 8, 1); Part A keeps those. With
    fp16 and the 4,096 window, the window cache is kept in fp16: 12 tokens × 2 KiB."""
    from explainer import runtime as rt
    spec = {c["name"]: c for c in step.state()["controls"]}["kv_heads"]
    assert [o[1] for o in spec["options"]] == ["MHA (32)", "GQA (8)", "MQA (1)"]
    step.handle({"set": "part", "value": "c"})
    spec = {c["name"]: c for c in check_step(step.state())["controls"]}["kv_heads"]
    assert spec["label"] == "Key/value heads (the live model)"
    assert [o[:2] for o in spec["options"]] == [[32, "MHA (4)"], [8, "GQA (2)"], [1, "MQA (1)"]]
    assert [rt.model_facts(v)["n_kv_heads"] for v in ("mha", "gqa", "mqa")] == [4, 2, 1]
    assert rt.model_facts("mha")["n_heads"] == 4
    step.handle({"shown": True})
    step.handle({"set": "precision", "value": "fp16", "seq": 1})
    step.handle({"set": "window", "value": 4096, "seq": 2})
    st = check_step(step.state())
    c = cards(st)
    assert c["live_bytes"]["label"] == "Bytes the cache stores at the end (mha, fp16, window W = 12)"
    assert norm(c["live_bytes"]["value"]) == "24 KiB" and norm(c["live_factor_base"]["value"]) \
        == "3.92×"
    assert "The live cache stores its keys and values in fp16." in words(st)
    assert not any("fp32 values" in n for n in words(st).split("\n"))


def test_each_part_keeps_its_own_answer_across_tabs_and_a_later_visit():
    app = App(query={"step": "6"})
    app.handle({"answer": 0})                                 # A: a pick
    app.handle({"set": "part", "value": "b", "seq": 1})
    assert app.step.answer is None and app.state()["concealed"]
    app.handle({"shown": True})                               # B: “Show me”
    app.handle({"set": "part", "value": "c", "seq": 2})
    assert app.step.answer is None and not app.step.shown     # C: still to predict
    app.handle({"nav": -1})
    app.handle({"nav": 1})
    step = app.step
    assert step.model.part == "c" and step.answer is None and step.state()["concealed"]
    step.handle({"set": "part", "value": "a", "seq": 1})
    assert step.answer == 0 and not step.state()["concealed"]
    step.handle({"set": "part", "value": "b", "seq": 2})
    st = step.state()
    assert step.shown and step.answer is None and st["question"]["shown"]
    assert not st["concealed"]


def test_a_question_waiting_for_the_live_model_keeps_its_answer(step):
    step.handle({"set": "part", "value": "c"})
    q = step.state()["question"]
    step.handle({"answer": 2})
    v = step._question_runs[0]
    kept = v.value
    v.value = None                          # as while the queue measures it again
    st = check_step(step.state())
    assert st["question"] is None and step.answer == 2 and not st["concealed"]
    v.value = kept
    st = check_step(step.state())
    assert st["question"]["key"] == q["key"] and st["question"]["answer"] == 2


@pytest.mark.parametrize("lang", list(LANGS))
def test_parts_b_and_c_ask_in_every_language(lang):
    for part in ("b", "c"):
        step = Step6(lang, saved={"model": {"part": part}})
        assert check_step(step.state())["question"]["correct"] is None    # not sent yet
        step.handle({"shown": True})
        q = check_step(step.state())["question"]
        step.close()
        assert len(q["options"]) == 3 and 0 <= q["correct"] < 3
        assert q["prompt"] and q["explain"] and "{" not in q["prompt"] + q["explain"]
        if lang != "en":
            en = Step6("en", saved={"model": {"part": part}})
            assert q["prompt"] != en.state()["question"]["prompt"]
            en.close()
