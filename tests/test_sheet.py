"""The printed sheet as a lecturer hands it out (`?step=end&exercises=1`), and the premises of
its exercises: every worked answer holds by the step's own rules."""
from steps.step4 import exercises as ex4
from steps.step4.model import Step4Model


def test_exercise_4_2_has_a_decode_step_to_make_compute_bound():
    """Truth review N16: with one output token there is no decode step (step 4 says so), so
    the solution has at least two, and a state without a decode step solves nothing."""
    x = ex4._t4_numbers()
    assert x["output"] >= 2 and x["intensity"] > x["ridge"]
    task = next(e for e in ex4.EXERCISES if e.index == 2)
    solved = Step4Model(**task.solution(Step4Model()))
    assert solved.roofline.steps >= 1 and task.check(solved)
    none = Step4Model(prompt=16, output=1, batch=256)       # compute-bound, but no decode step
    assert none.roofline.steps == 0 and not task.check(none)
    from explainer.i18n import Translator
    assert "illustrative GPU" in task.prompt(Translator("en"), x)      # the GPU it assumes


# -- the sheet: its title, its exam-style questions, room to write ---------------------------

import re  # noqa: E402

import pytest  # noqa: E402

from explainer.i18n import LANGS, Translator  # noqa: E402
from steps import registry  # noqa: E402
from steps.shell import App  # noqa: E402
from steps.ui.exercises import EXAM, LINES_PER_MINUTE, PAPER, WRITE_LINES  # noqa: E402


def page(lang: str, **query) -> dict:
    return App(query={"step": ["end"], "lang": [lang], **{k: [v] for k, v in query.items()}}
               ).state()


@pytest.mark.parametrize("lang", list(LANGS))
def test_the_sheet_and_the_glossary_are_titled_as_what_they_are(lang):
    """The review: the sheet's title read “Key ideas”, with “Exercises” as a second heading.
    The page's heading and the document's title now say what the page is, once."""
    tr = Translator(lang)
    for query, title in (({"exercises": "1"}, tr._("Exercises")),
                         ({"glossary": "1"}, tr._("Glossary")), ({}, tr._("Key ideas"))):
        s = page(lang, **query)
        heading = re.sub("<[^>]+>", "", s["shell"]["heading"])
        assert heading == title and s["shell"]["title"].endswith(" · " + title), (query, heading)
        if query:                                           # not said again under it
            assert f">{title}</h" not in s["body"][0]["html"]


def test_every_step_has_two_exam_questions_with_their_minutes():
    for n in registry.NUMBERS:
        qs = registry.exam(n)
        assert len(qs) == 2 and all(q.kind == EXAM and 3 <= q.minutes <= 10 for q in qs), n
        assert [q.label for q in qs] == [f"{n}a", f"{n}b"]
        assert registry.exam(n) and not set(qs) & set(registry.exercises(n))


@pytest.mark.parametrize("lang", list(LANGS))
def test_the_sheet_prints_them_with_room_to_write_and_their_answers_apart(lang):
    """Per step, its exercises and then its two exam questions, each headed with its minutes
    and followed by ruled lines (on paper: a few; an exam question: by its minutes; a task on
    the page: none); every answer after the answers' heading, on a page of its own."""
    tr = Translator(lang)
    html = page(lang, exercises="1")["body"][0]["html"]
    answers_at = html.index('class="sheet-answers"')
    for n in registry.NUMBERS:
        for q in registry.exam(n):
            slug = f"exam-{n}-{q.index}"
            ask = re.search(f'<div class="sheet-exam {slug}">(.*?)</div></div>', html, re.S)
            assert ask and ask.start() < answers_at, slug
            assert tr._("Exam question {n} · about {minutes} min", n=q.label,
                        minutes=tr.int(q.minutes)) in ask.group(1)
            assert ask.group(1).count("<span></span>") == LINES_PER_MINUTE * q.minutes
            told = html.index(f'class="sheet-exam-answer {slug}"')
            assert told > answers_at
            x = q.numbers()
            for line in q.answer(tr, x):
                assert line.replace("'", "&#39;") in html[told:], (slug, line)
        for ex in registry.exercises(n):
            item = re.search(f'<div class="sheet-exercise ex-{n}-{ex.index}">(.*?)</div>\n',
                             html, re.S).group(1)
            assert item.count("<span></span>") == (WRITE_LINES if ex.kind == PAPER else 0)
