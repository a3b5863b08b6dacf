"""Step 3's words per language from fixed numbers: the cards, the frames the browser plays, the
question built from the prompt on screen, and the concealment of the answer."""
import re
import string

import pytest

from explainer import costs
from explainer.i18n import LANGS, Translator
from explainer.prompts import PROMPTS
from steps.step3 import text
from steps.step3.model import LAST_FRAME, N_NEW, QUESTION_STEPS, Step3Model

DEFAULT_LEN = {"en": 5, "id": 4, "pl": 3, "nl": 5}
OLD_KEYS = {"cache_length", "new_kv", "qk_this_step", "shape", "ref_cache", "live_cache"}


def nb(s: str) -> str:
    """Normalise the locale's non-breaking spaces for comparisons."""
    return s.replace("\u00a0", " ").replace("\u202f", " ")


def cards(frame: dict) -> dict:
    return {c["key"]: c for c in frame["cards"]}


@pytest.fixture(scope="module")
def en_run():
    return Step3Model().run


def test_reference_figures_in_english(en_run):
    fr = text.frames(en_run, Translator("en"))
    assert len(fr) == N_NEW
    c = {k: v["value"] for k, v in cards(fr[0]).items()}
    assert set(c) == OLD_KEYS                     # every data-metric key of the old step
    assert c["cache_length"] == "5"
    assert c["new_kv"] == "5"                     # the prefill computes all P rows
    assert c["qk_this_step"] == "5"
    assert c["shape"] == "[1, 4, 5, 32]"
    assert nb(c["ref_cache"]) == "2.5 MiB"
    assert nb(c["live_cache"]) == "20.0 KiB"
    assert fr[0]["fig"]["new_from"] == 0          # rows 0..4 highlighted
    assert len(fr[0]["fig"]["pct"]) == 5
    last = {k: v["value"] for k, v in cards(fr[LAST_FRAME]).items()}
    assert last["cache_length"] == "16" and last["new_kv"] == "1"
    assert last["qk_this_step"] == "16" and last["shape"] == "[1, 4, 16, 32]"
    assert nb(last["ref_cache"]) == "8.0 MiB"      # 16 * 512 KiB
    assert nb(last["live_cache"]) == "64.0 KiB"
    assert cards(fr[3])["cache_length"]["value"] == "8"
    assert cards(fr[1])["cache_length"]["value"] == "6"
    assert fr[9]["fig"]["new_from"] == 13         # only the newest row is new
    details = " ".join(sum(text.details(en_run, Translator("en")).values(), []))
    assert "15" in details and "4,096 B" in nb(details)
    assert "MiB" in cards(fr[0])["ref_cache"]["value"]


def test_at_most_four_headline_cards_and_the_answer_is_hidden(en_run):
    c = text.frames(en_run, Translator("en"))[0]["cards"]
    assert len([x for x in c if not x["more"]]) <= 4
    hidden = {x["key"] for x in c if x["hidden"]}
    assert {"cache_length", "shape", "qk_this_step"} <= hidden
    assert all(x["kind"] in ("measured", "computed") for x in c)     # results only


@pytest.mark.parametrize("lang", list(LANGS))
def test_the_question_is_built_from_the_prompt_on_screen(lang):
    tr = Translator(lang)
    P = Step3Model(lang=lang).run.prompt_len
    assert P == DEFAULT_LEN[lang]
    q = text.question(P, tr)
    m = P + QUESTION_STEPS
    assert q["key"] == ("step3", P)
    assert tr.int(P) in q["prompt"] and tr.int(QUESTION_STEPS) in q["prompt"]
    assert len(set(q["options"])) == len(q["options"]) >= 3
    assert q["options"][q["correct"]] == tr.int(m)
    assert tr.int(m) in q["explain"]
    # the explanation points at decode step 3 of the player, which shows those m rows
    frame = text.frames(Step3Model(lang=lang).run, tr)[QUESTION_STEPS]
    assert cards(frame)["cache_length"]["value"] == tr.int(m)
    assert tr.int(QUESTION_STEPS) in frame["pos"]
    if lang == "en":
        assert "decode step 3" in q["explain"] and frame["pos"].startswith("Decode step 3 ")


def test_question_options():
    assert text.question(5, Translator("en"))["options"] == ["3", "5", "8"]
    assert text.question(5, Translator("en"))["correct"] == 2
    assert text.question_options(3) == ([3, 6, 12], 1)      # Polish: 3-token prompt
    assert text.question_options(4) == ([3, 4, 7], 2)


def test_nothing_states_the_cache_length_until_revealed(en_run):
    tr = Translator("en")
    hid, shown = text.frames(en_run, tr, revealed=False), text.frames(en_run, tr)
    f3h, f3 = hid[3], shown[3]
    assert cards(f3h)["cache_length"]["hidden"]          # the stage shows “?”
    assert "8 rows" not in f3h["say"] and "8 rows" in f3["say"]
    assert not re.search(r"\b8\b(?!%)", f3h["say"] + f3h["caption"] + f3h["desc"])
    assert f3h["fig"]["rows"][-1] == "What" and f3["fig"]["rows"][-1] == "8 What"
    assert len(f3h["table"]["head"]) == 3 and len(f3["table"]["head"]) == 4
    assert f3["table"]["rows"][-1][1] == "8"


def test_frame_figure_numbers(en_run):
    f = text.frames(en_run, Translator("en"))[4]
    fig = f["fig"]
    n = 9
    assert len(fig["rows"]) == len(fig["k"]) == len(fig["v"]) == len(fig["weights"]) == n
    assert all(len(r) == 32 for r in fig["k"] + fig["v"]) and len(fig["out"]) == 32
    assert all("0" <= c <= "X" for r in fig["k"] + fig["v"] + [fig["out"]] for c in r)
    assert {c for r in fig["k"] for c in r} >= {"0", "D", "X"}     # saturates both ways
    assert text.levels([[0.0, 1.0, -1.0, 0.26, 5.0]], 1.0) == ["DX0I" + "X"]
    assert fig["gen"] == [False] * 5 + [True] * 4 and fig["prompt_len"] == 5
    assert len(f["table"]["rows"]) == n and f["table"]["rows"][0][-1].endswith("%")
    assert f["pos"] == "Decode step 4 of 11 (0 = prefill)"


@pytest.mark.parametrize("lang", ["id", "pl", "nl"])
def test_every_language_formats_and_fills_its_placeholders(lang):
    tr = Translator(lang)
    run = Step3Model(lang=lang).run
    strings = []
    for f in text.frames(run, tr) + text.frames(run, tr, revealed=False):
        strings += [f["pos"], f["say"], f["desc"], f["caption"]]
        strings += [c["label"] for c in f["cards"]] + f["table"]["head"]
    strings += [*sum(text.narration(tr).values(), []), *sum(text.details(run, tr).values(), []),
                *text.figure_note(run, tr)]
    strings += [text.facts(tr)] + [v for _, v in text.legend(tr)]
    q = text.question(run.prompt_len, tr)
    strings += [q["prompt"], q["explain"]]
    st = text.stage_text(tr)
    strings += [st[k] for k in ("figure", "k", "v", "weights", "out", "dims", "more")]
    for s in strings:
        assert s and not [f for _, f, _, _ in string.Formatter().parse(s) if f], s


def test_softmax_is_written_the_same_everywhere(en_run):
    """softmax(q·k/√d) for one query's weights, softmax(q·Kᵀ/√d)·V for the output: never a
    softmax without the 1/√d the model computes, in this step or any other."""
    from dataclasses import replace
    tr = Translator("en")
    notes = (text.figure_note(replace(en_run, q_heads=(2, 2)), tr) +
             text.figure_note(replace(en_run, q_heads=(1, 2)), tr))
    st = text.stage_text(tr)
    strings = notes + sum(text.narration(tr).values(), []) + [v for _, v in text.legend(tr)] + [st["weights"],
                                                                             st["out"]]
    found = {m for s in strings for m in re.findall(r"softmax\([^)]*\)", s)}
    assert found == {"softmax(q·k/√d)", "softmax(q·Kᵀ/√d)"}
    assert all("softmax(q·k/√d) of the newest token's query" in n for n in notes)
    from pathlib import Path
    from babel.messages.extract import extract_from_dir
    steps = Path(__file__).resolve().parents[1] / "steps"
    msgids = [m if isinstance(m, str) else m[0] for *_, m, _, _ in extract_from_dir(
        str(steps), method_map=[("**.py", "python")],
        keywords={"_": None, "n_": (1, 2), "N_": None})]
    every = {m for s in msgids for m in re.findall(r"softmax\([^)]*\)", s)}
    assert every <= {"softmax(q·k/√d)", "softmax(q·Kᵀ/√d)"}, every


def test_polish_number_format():
    tr = Translator("pl")
    m = Step3Model(lang="pl", example=3, frame=LAST_FRAME)
    assert m.prompt_text() == PROMPTS["pl"][3]
    c = {k: v["value"] for k, v in cards(text.frames(m.run, tr)[LAST_FRAME]).items()}
    n = m.current().n_cached
    assert nb(c["ref_cache"]) == nb(tr.bytes(costs.kv_cache_bytes("llama2-7b", n), "MiB", 1))
    assert "," in c["ref_cache"] and "." not in c["ref_cache"]
    assert "," in c["live_cache"]
    en = text.frames(Step3Model(example=3).run, Translator("en"))[LAST_FRAME]
    assert "." in cards(en)["live_cache"]["value"]


def test_menus_are_one_based():
    tr = Translator("pl")
    assert list(text.layer_options(tr).values()) == [1, 2, 3, 4]
    assert list(text.head_options(tr).values()) == [1, 2, 3, 4]
    assert list(text.layer_options(Translator("en")))[0] == "Layer 1"


def test_the_takeaway_says_the_logits_agree_up_to_rounding():
    """truth3 O-3: step 2 shows the cached and uncached runs' logits differing by float
    rounding, so step 3's takeaway and speaker notes say the same tokens and logits equal up
    to rounding, not "exactly the same" output."""
    import steps.step3 as step3
    for words in (step3.TAKEAWAY, step3.NOTES):
        said = " ".join(words.split())
        assert "exactly the same" not in said
        assert "the same tokens" in said and "float rounding" in said
        for lang in ("id", "pl", "nl"):
            assert Translator(lang)._(words) != words
