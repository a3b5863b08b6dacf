"""Exercises in a real browser: a worked answer opens with a click (and stays open while the
page redraws around it), a task on the page turns done as the learner moves the controls
there and back to “not yet”, and the printable sheet lists every exercise and puts the
answers on a printed page of their own (page.pdf's page count)."""
import re

from conftest import ARTIFACTS
from helpers import nudge_slider
from playwright.sync_api import expect

from steps.registry import NUMBERS, exercises

COUNT = sum(len(exercises(n)) for n in NUMBERS)


SCREENS = ARTIFACTS / "screens"


def pdf_pages(page, keep: str = "") -> int:
    pdf = page.pdf(format="A4")
    if keep:
        (ARTIFACTS / keep).write_bytes(pdf)
    return len(re.findall(rb"/Type\s*/Page(?![a-zA-Z])", pdf))


def test_a_worked_answer_opens_with_a_click(app):
    page = app("?step=5")
    page.locator("details.exercises > summary").click()
    d = page.locator("details.exercise-answer.ex-5-1")
    expect(d.locator("p").nth(1)).to_be_hidden()
    d.locator("summary").click()
    expect(d.locator("p").nth(1)).to_be_visible()
    expect(d.locator("p").nth(1)).to_contain_text(re.compile(r"16 × 10\sGiB = 160\sGiB"))
    SCREENS.mkdir(parents=True, exist_ok=True)
    page.locator("details.exercises").screenshot(path=str(SCREENS / "exercises-step5-en.png"))


def test_a_task_turns_done_as_the_controls_solve_it(app):
    page = app("?step=2")
    page.locator("details.exercises > summary").click()
    task = page.locator(".exercise-task.ex-2-2")
    expect(task).to_have_class(re.compile(r"\bnot-done\b"))
    expect(task).to_contain_text("Not yet")
    answer = page.locator("details.exercise-answer.ex-2-1")
    answer.locator("summary").click()                 # an opened answer stays open below
    nudge_slider(page, 0, "End")                      # T = 64 at P = 5: 34.4× fewer rows
    expect(task).to_have_class(re.compile(r"\bis-done\b"))
    expect(task).to_contain_text("✓ Done.")
    SCREENS.mkdir(parents=True, exist_ok=True)
    page.locator("details.exercises").screenshot(path=str(SCREENS / "exercises-step2-done-en.png"))
    expect(answer).to_have_attribute("open", "")     # and the section with it
    expect(page.locator("details.exercises")).to_have_attribute("open", "")
    nudge_slider(page, 0, "Home")                     # T = 1: no saving at all
    expect(task).to_have_class(re.compile(r"\bnot-done\b"))


def test_the_sheet_lists_every_exercise_and_prints_the_answers_on_their_own_page(app):
    page = app("?step=end&exercises=1&lang=pl")
    expect(page.locator(".sheet-exercise")).to_have_count(COUNT)
    expect(page.locator(".sheet-answer")).to_have_count(COUNT)
    expect(page.locator(".sheet-answers h3")).to_have_text("Odpowiedzi")
    SCREENS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENS / "exercises-sheet-pl.png"), full_page=True)
    whole = pdf_pages(page, keep="exercises-sheet-pl.pdf")
    answers = page.locator(".sheet-answers")
    answers.evaluate("e => { e.style.display = 'none'; }")
    questions = pdf_pages(page)                       # the exercises alone
    answers.evaluate("e => { e.style.display = ''; }")
    page.locator(".sheet-answer, .sheet-exam-answer").evaluate_all(
        "es => es.forEach((e) => { e.style.display = 'none'; })")
    heading_only = pdf_pages(page)                    # the answers' heading alone
    assert questions >= 1 and heading_only == questions + 1 and whole >= heading_only


def test_the_projected_page_leaves_the_exercises_out(app):
    page = app("?step=2&present=1")
    expect(page.locator(".step-lead")).to_be_visible()
    expect(page.locator("details.exercises")).to_have_count(0)
