"""Predict, then see it, without Panel: every step's state before and after its question is
answered (or “Show me” pressed). Before, nothing on the page gives the answer away; after,
the figure is at the state the answer talks about (step 1: the next token, its query reading
P + 1 keys; step 3: decode step 3; step 6, Part A: GQA), and the link follows."""
import json

import pytest

from explainer.i18n import LANGS, Translator
from steps.shell import App
from steps.step1.view import Step1, answer_frame
from steps.ui.state import columns, check_page
from steps.ui.step import Step


def frames_of(state: dict) -> list:
    return json.loads(state["frames"])


def card(frame: dict, key: str) -> dict:
    return next(c for c in frame["cards"] if c["key"] == key)


def words(blocks: list) -> str:
    """Every paragraph of the blocks, collapsed sections included, as one text."""
    out = []
    for b in blocks:
        out += [str(i) for i in b.get("items", [])]
        out += [words(b.get("blocks", []))]
        out.append(b.get("html", ""))
    return "\n".join(out)


def app_at(step: str, **query) -> App:
    return App(query={"step": step, **query})


# -- the hook --------------------------------------------------------------------------------

def test_the_hook_runs_once_when_the_answer_first_arrives_and_not_on_a_later_visit():
    calls = []

    class Counted(Step1):
        def on_reveal(self):
            calls.append(self.revealed)           # already un-concealed when it runs
            super().on_reveal()

    s = Counted("en")
    s.handle({"answer": 7})                       # no such option: nothing happens
    assert calls == []
    s.handle({"answer": 0})
    s.handle({"answer": 2})
    s.handle({"shown": True})
    assert calls == [True]
    again = Counted("en", s.saved())              # a later visit restores, it does not move
    again.model.frame = 5
    again.handle({"shown": True})
    assert calls == [True] and again.model.frame == 5
    assert Step.on_reveal(s) is None              # the base moves nothing


# -- step 1: the next token --------------------------------------------------------------------

@pytest.mark.parametrize("lang", list(LANGS))
@pytest.mark.parametrize("move", [{"answer": 0}, {"answer": 2}, {"shown": True}])
def test_step1_moves_to_the_next_token(lang, move):
    app = app_at("1", lang=lang)
    tr = Translator(lang)
    s = check_page(app.state())
    P = app.step.model.run.prompt_len
    assert s["concealed"] and s["frame"] == 0
    assert card(frames_of(s)[0], "keys_read")["hidden"]
    app.handle(move)
    s = check_page(app.state())
    f = s["frame"]
    assert not s["concealed"] and f == answer_frame(app.step.model.run) == 1
    fr = frames_of(s)[f]
    assert len(fr["fig"]["tokens"]) == P + 1
    assert card(fr, "keys_read")["value"] == tr.int(P + 1)
    right = s["question"]["options"][s["question"]["correct"]]
    assert right == tr.int(P + 1)
    assert f"frame={f}" in s["query"]
    assert s["question"]["mark"]                  # the right option is said to be right


# -- step 2: the formula waits -------------------------------------------------------------------

def test_step2_formula_waits_for_the_answer():
    app = app_at("2", tokens="16", prompt="5")
    s = check_page(app.state())
    before = words(columns(s)["left"]) + words(columns(s)["right"])
    assert s["concealed"] and "T(T−1)/2" not in before
    assert all(card(fr, "uncached")["hidden"] for fr in frames_of(s))
    app.handle({"shown": True})
    s = app.state()
    assert not s["concealed"] and "T(T−1)/2" in words(columns(s)["left"]) + words(columns(s)["right"])


# -- step 3: decode step 3 -----------------------------------------------------------------------

@pytest.mark.parametrize("move", [{"answer": 0}, {"shown": True}])
def test_step3_moves_to_decode_step_3(move):
    app = app_at("3")
    s = check_page(app.state())
    P = app.step.model.run.prompt_len
    first = frames_of(s)[0]
    assert s["concealed"] and s["frame"] == 0
    for key in ("cache_length", "new_kv", "shape"):    # the new rows wait too
        assert card(first, key)["hidden"]
    app.handle(move)
    s = check_page(app.state())
    assert not s["concealed"] and s["frame"] == 3
    fr = frames_of(s)[3]
    assert card(fr, "cache_length")["value"] == str(P + 3) == s["question"]["options"][
        s["question"]["correct"]]
    assert len(fr["fig"]["rows"]) == P + 3
    assert "frame=3" in s["query"]
    assert "decode step 3" in s["question"]["explain"]
    assert "Step the player" not in s["question"]["explain"]


# -- step 4: both FLOP/byte wait --------------------------------------------------------------

def test_step4_flop_per_byte_cards_wait():
    app = app_at("4")
    s = check_page(app.state())
    fr = frames_of(s)[0]
    assert s["concealed"]
    assert card(fr, "prefill_intensity")["hidden"] and card(fr, "decode_intensity")["hidden"]
    app.handle({"shown": True})
    assert not app.state()["concealed"]


# -- step 5: the crossing waits --------------------------------------------------------------

def test_step5_curve_ends_at_this_context_until_answered():
    app = app_at("5")
    s = check_page(app.state())
    m = app.step.model
    fr = frames_of(s)[0]
    curve = fr["fig"]["curve"]
    assert s["concealed"] and card(fr, "crossover")["hidden"]
    assert curve["ctx"][-1] == m.bill.context and max(curve["ctx"]) == m.bill.context
    assert curve["cross"] is None
    assert curve["kv"][-1] == pytest.approx(m.bill.kv / 1e9)
    assert max(curve["kv"]) < curve["weights"]      # the default context is far below it
    assert curve["xmax"] == m.curve.ctx[-1]         # the axes are those of the whole curve
    shown_ctx = [r[0] for r in fr["table"]["rows"]]
    assert all(int(t.replace(",", "")) <= m.bill.context for t in shown_ctx)
    app.handle({"answer": 0})
    fr = frames_of(app.state())[0]
    curve = fr["fig"]["curve"]
    assert list(curve["ctx"]) == list(m.curve.ctx)
    assert "25,700" in curve["cross"]["tokens"]
    assert len(fr["table"]["rows"]) > len(shown_ctx)


# -- step 6, Part A: GQA -------------------------------------------------------------------------

@pytest.mark.parametrize("move", [{"answer": 0}, {"shown": True}])
def test_step6_part_a_switches_to_gqa(move):
    app = app_at("6", precision="int8")
    s = check_page(app.state())
    m = app.step.model
    assert m.kv_heads == 32 and s["concealed"]
    assert "smaller" not in words(columns(s)["right"])     # how much smaller waits (a size only)
    q = s["question"]
    assert "32" in q["prompt"] and "8" in q["prompt"]
    app.handle(move)
    s = check_page(app.state())
    assert m.kv_heads == m.question.heads_to == 8 and m.precision == "int8"
    assert "heads=8" in s["query"] and not s["concealed"]
    assert s["question"]["key"] == q["key"]          # still answered: the same question
    assert (s["question"]["answer"], s["question"]["shown"]) != (None, False)
    assert "smaller" in words(columns(s)["right"]) and "same size" not in words(columns(s)["right"])


def test_step6_reveal_elsewhere_moves_nothing_in_part_a():
    app = app_at("6", part="b")
    app.handle({"shown": True})
    assert app.step.model.kv_heads == 32
