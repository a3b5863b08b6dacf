"""Every question states the numbers of the screen it sits on, in every language (the
language's own default prompt, or the deep link's values), and its right answer is the step's
own number."""
import pytest

from explainer.i18n import LANGS, Translator
from steps.shell import App


def question(step: str, lang: str, **query):
    """The step's model, its question as first sent and the right option's text, which the
    page learns only once the question is answered or shown (steps/ui/conceal.py)."""
    app = App(query={"step": step, "lang": lang, **query})
    q = app.state()["question"]
    assert q["correct"] is None and q["explain"] == ""
    app.handle({"shown": True})
    told = app.state()["question"]
    assert (told["key"], told["prompt"], told["options"]) == (q["key"], q["prompt"], q["options"])
    return app.step.model, q, told["options"][told["correct"]], Translator(lang)


@pytest.mark.parametrize("lang", list(LANGS))
def test_step1(lang):
    m, q, right, tr = question("1", lang)
    P = m.run.prompt_len
    assert tr.int(P) in q["prompt"] and right == tr.int(P + 1)


@pytest.mark.parametrize("lang", list(LANGS))
@pytest.mark.parametrize("tokens,prompt", [(16, 5), (64, 5), (3, 12)])
def test_step2(lang, tokens, prompt):
    m, q, right, tr = question("2", lang, tokens=str(tokens), prompt=str(prompt))
    assert (m.tokens, m.prompt) == (tokens, prompt)
    assert tr.int(tokens) in q["prompt"] and tr.int(prompt) in q["prompt"]
    assert right == tr.int(tokens * prompt + tokens * (tokens - 1) // 2)


@pytest.mark.parametrize("lang", list(LANGS))
def test_step3(lang):
    m, q, right, tr = question("3", lang)
    P = m.run.prompt_len
    assert tr.int(P) in q["prompt"] and right == tr.int(P + 3)


@pytest.mark.parametrize("lang", list(LANGS))
def test_step4(lang):
    m, q, right, tr = question("4", lang, prompt="1024")
    assert tr.int(1024) in q["prompt"]


@pytest.mark.parametrize("lang", list(LANGS))
def test_step6(lang):
    m, q, right, tr = question("6", lang, heads="8")
    assert tr.int(32) in q["prompt"] and tr.int(8) in q["prompt"]
    assert right == tr.times(4, 0) or right.startswith(tr.int(4))
