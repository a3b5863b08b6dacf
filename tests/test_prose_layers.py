"""Prose in layers: every step (and every part of steps 5 and 6) shows its lead sentence and at most
about 120 words of prose next to the figure; derivations, the live model's details and the
literature wait in collapsed “Go deeper” sections, always in the same order, each only when it
has something in it. The words counted are the paragraph blocks a learner sees without opening
anything, in English; the lead, the question, the control labels, the cards and the notices
are not prose, and neither is step 5's formula (part of its figure)."""
import pytest

from explainer.i18n import LANGS
from steps.common import translator
from steps.step1.view import Step1
from steps.step2.view import Step2
from steps.step3.view import Step3
from steps.step4.view import Step4
from steps.step5.text import model_options
from steps.step5.view import Step5
from steps.step6.model import KV_CHOICES, PRECISION_CHOICES, WINDOW_CHOICES
from steps.step6.view import Step6
from steps.ui.state import columns, check_step
from steps.ui.words import DEEPER, deeper, paragraphs

MAX_WORDS = 130                          # “at most about 120”
NOT_PROSE = ("step-lead", "formula-headline")
ORDER = [name for name, _ in DEEPER]


@pytest.fixture(autouse=True)
def cheap_measurements(step4_stand_in):
    """Step 4's live measurement: a stand-in (tests/conftest.py)."""


def visible_prose(state: dict) -> list[str]:
    """The paragraphs a learner sees without opening a section."""
    return [p for side in ("left", "right") for b in columns(state)[side]
            if b["kind"] == "paragraphs" and not any(c in b.get("cls", "") for c in NOT_PROSE)
            for p in b["items"]]


def sections(state: dict) -> list[str]:
    """The Go deeper sections of the state, by name, in order."""
    return [b["cls"].split("deeper-")[1] for b in columns(state)["left"]
            if b["kind"] == "details" and "deeper" in b.get("cls", "").split()]


def word_count(paras: list[str]) -> int:
    return sum(len(p.split()) for p in paras)


def states(step, moves):
    """The state after `moves`, before the question is answered and after “Show me”."""
    for m in moves:
        step.handle(m)
    before = check_step(step.state())
    step.handle({"shown": True})
    after = check_step(step.state())
    step.close()
    return before, after


def sets(**values):
    return [{"set": k, "value": v, "seq": i + 1} for i, (k, v) in enumerate(values.items())]


CASES = [
    ("1", Step1, []),
    ("1-typed", Step1, sets(text="the cat sat on the mat and looked at the dog")),
    ("2", Step2, []),
    ("2-long", Step2, sets(tokens=64, prompt=16)),
    ("3", Step3, []),
    ("4", Step4, []),
    ("4-h100-batch", Step4, sets(gpu="h100", batch=64)),
    ("4-short-prompt", Step4, sets(prompt=16, output=2)),
    ("4-moe", Step4, sets(model="mixtral-8x7b", gpu="h100", batch=200)),
    *[(f"5-{key}", Step5, sets(model=key, context=32768, batch=4))
      for key in model_options(translator("en")).values()],
    *[(f"5b-{key}", Step5, sets(part="b", model=key, context=32768))
      for key in model_options(translator("en")).values()],
    *[(f"6a-{kv}-{p}-{win}", Step6, sets(kv_heads=kv, precision=p, window=win))
      for kv in KV_CHOICES for p in PRECISION_CHOICES for win in WINDOW_CHOICES],
    ("6b", Step6, sets(part="b")),
    ("6c", Step6, sets(part="c")),
    ("6c-int4", Step6, sets(part="c", kv_heads=8, precision="int4")),
    ("6d", Step6, sets(part="d")),
    ("6d-h2o-8", Step6, sets(part="d", policy="h2o", budget=8)),
    ("6c-window", Step6, sets(part="c", window=1024)),
]


@pytest.mark.parametrize("name,cls,moves", CASES, ids=[c[0] for c in CASES])
def test_visible_prose_is_short_and_go_deeper_comes_in_order(name, cls, moves):
    for state in states(cls("en"), moves):
        said = visible_prose(state)
        assert said, f"{name}: nothing to read next to the figure"
        assert word_count(said) <= MAX_WORDS, (name, word_count(said), said)
        assert columns(state)["left"][0]["cls"] == "step-lead" and len(columns(state)["left"][0]["items"]) == 1
        found = sections(state)
        assert found, f"{name}: no Go deeper section"
        assert found == sorted(found, key=ORDER.index) and len(set(found)) == len(found)
        assert not [b for b in columns(state)["right"] if "deeper" in b.get("cls", "")]


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("cls,moves", [(Step1, []), (Step2, []), (Step3, []), (Step4, []),
                                       (Step5, []), (Step5, sets(part="b")), (Step6, []),
                                       (Step6, sets(part="b")),
                                       (Step6, sets(part="c"))])
def test_every_language_has_the_same_sections_under_its_own_titles(lang, cls, moves):
    en, here = cls("en"), cls(lang)
    for m in moves:
        en.handle(m)
        here.handle(m)
    a, b = en.state(), here.state()
    en.close()
    here.close()
    assert sections(a) == sections(b)
    titles = {name: translator(lang)._(title) for name, title in DEEPER}
    for block in columns(b)["left"]:
        if "deeper" in block.get("cls", "").split():
            assert block["summary"] == titles[block["cls"].split("deeper-")[1]]
            assert block["blocks"]


def test_deeper_keeps_the_fixed_order_and_leaves_out_empty_sections():
    tr = translator("en")
    out = deeper(tr, literature=["paper"], live=[], why=["derivation", ""])
    assert [b["summary"] for b in out] == ["Go deeper: why it works",
                                           "Go deeper: in the literature"]
    assert out[0]["blocks"] == [paragraphs(["derivation"], cls="narration")]
    assert deeper(tr, why=[None, paragraphs([])]) == []
    with pytest.raises(AssertionError):
        deeper(tr, history=["no such section"])
