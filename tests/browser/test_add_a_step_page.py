"""An extra step package served for real: `panel serve app.py` started with
`KV_EXPLAINER_STEPS` naming tests/fixtures/step_extra after the six (tests/test_add_a_step.py
checks the same app without a browser). In Chromium the stepper has its button, a click there
draws it (its lead, its slider labelled by its text layer, its exercises, done once the slider
solves the task), and Next leads to the key ideas, which list seven takeaways."""
import re

import pytest
from conftest import served
from helpers import nudge_slider
from playwright.sync_api import expect

from test_add_a_step import extra_env


@pytest.fixture(scope="module")
def extra_server():
    env = extra_env()
    with served({k: env[k] for k in ("KV_EXPLAINER_STEPS", "PYTHONPATH")},
                log_name="server-extra-step.log") as url:
        yield url


def test_the_stepper_reaches_the_extra_step(page, extra_server):
    errors = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(extra_server + "?step=6")
    page.wait_for_selector("h1", timeout=60_000)
    buttons = page.locator("nav.stepnav button")
    expect(buttons).to_have_count(8)                       # seven steps and the key ideas
    buttons.nth(6).click()
    expect(page.locator('nav.stepnav button[aria-current="step"]')).to_contain_text(
        "Counting rows")
    expect(page.locator(".step-lead")).to_have_text(
        "Every token the cache keeps brings a key row and a value row.")
    expect(page).to_have_url(re.compile(r"[?&]step=7&"))
    slider = page.get_by_label("Tokens in the cache")
    expect(slider).to_have_value("4")
    page.locator("details.exercises > summary").click()
    task = page.locator(".exercise.ex-7-2")
    expect(task).to_contain_text("Not yet")
    nudge_slider(page, 0, times=2)                         # 4 -> 6: the task's solution
    expect(page.locator(".narration")).to_contain_text("6 tokens: 12 rows.")
    expect(task).to_contain_text("✓ Done.")
    page.locator(".nav-next").click()
    expect(page.locator(".takeaways li")).to_have_count(7)
    assert errors == [], errors
