"""The key-ideas page and the printed sheet in a real browser: their links look like the app's
buttons (not the browser's blue underlines) and a step's link never starts a line alone; the
sheet is titled “Exercises” and prints each step's two exam-style questions with ruled room
to write, their answers on a page of their own."""
import pytest
from conftest import ARTIFACTS
from playwright.sync_api import expect
from test_exercises_page import pdf_pages

from steps.registry import NUMBERS, exam, exercises

EXAMS = sum(len(exam(n)) for n in NUMBERS)
DEFAULT_BLUE = "rgb(0, 0, 238)"


@pytest.mark.parametrize("width", [390, 1280])
@pytest.mark.parametrize("lang", ["en", "pl"])
def test_the_key_ideas_links_are_buttons_and_never_start_a_line_alone(app, page, lang, width):
    page.set_viewport_size({"width": width, "height": 900})
    app(f"?step=end&lang={lang}")
    expect(page.locator(".takeaways .back-link").first).to_be_visible()
    links = page.evaluate("() => KVT.ending_page.links()")
    steps = [ln for ln in links if "back-link" in ln["cls"]]
    assert len(steps) == len(NUMBERS) and any("sheet-link-a" in ln["cls"] for ln in links)
    for ln in links:
        assert ln["underline"] == "none" and ln["border"] >= 1, ln
        assert ln["color"] != DEFAULT_BLUE, ln
    assert [ln["text"] for ln in steps if ln["alone"]] == []


def test_the_sheet_is_titled_exercises_with_exam_questions_and_room_to_write(app, page):
    page.set_default_navigation_timeout(300_000)      # the sheet measures 6.4 on the live model
    app("?step=end&exercises=1&lang=nl")
    expect(page.locator(".sheet-exam").first).to_be_visible()
    got = page.evaluate("() => KVT.ending_page.sheet()")
    assert got["heading"] == "Opgaven" and "Opgaven" in got["title"]
    assert got["exams"] == got["answers"] == EXAMS == 2 * len(NUMBERS)
    assert len(got["lines"]) >= 8 * EXAMS and min(got["lines"]) >= 20      # lines to write on
    # printed: the questions, then the answers on pages of their own (more pages than before)
    assert pdf_pages(page, keep="exercises-sheet-exam-nl.pdf") >= 3
    page.emulate_media(media="print")
    expect(page.locator(".sheet-write span").first).to_be_visible()
    expect(page.locator(".back-link").first).to_be_hidden()


def test_the_counts_the_other_tests_rely_on():
    assert EXAMS == 12 and sum(len(exercises(n)) for n in NUMBERS) >= 12
