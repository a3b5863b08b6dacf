"""Step 6, Part D in a real browser: dropping tokens on the live model. The token strip and the
agreement chart (js/draw/strip.js) drawn from the presenter's frames without overlapping or
small labels; the part opened by its link, its question concealing every measured agreement
until it is answered, each policy played (nothing sent while playing) with its measured
agreement read from the page, and a deep link restoring the policy, the budget and the token."""
import re
import time

import pytest
from helpers import metric, wait_url
from playwright.sync_api import expect

from explainer.i18n import LANGS


def _strip_cases(lang: str) -> list:
    """[label, stage, frames, indices]: every policy at the default budget before the answer
    (every frame), and answered at the default, the smallest and the largest budget (first,
    middle and last frame)."""
    from steps.step6.model import BUDGET_CHOICES, POLICY_CHOICES
    from steps.step6.view import Step6
    cases = []
    for policy in POLICY_CHOICES:
        for budget in (None, BUDGET_CHOICES[0], BUDGET_CHOICES[-1]):
            for answered in ((False, True) if budget is None else (True,)):
                s = Step6(lang, saved={"model": {"part": "d", "policy": policy,
                                                 **({"budget": budget} if budget else {})}})
                if answered:
                    s.handle({"answer": 0})
                    s.handle({"set": "policy", "value": policy, "seq": 1})
                    if budget:
                        s.handle({"set": "budget", "value": budget, "seq": 1})
                st = s.state()
                s.close()
                assert st["stage"]["figure"] == "strip"
                only = None if budget is None and not answered else [0, 20, 39]
                cases.append([f"{policy} B={budget} answered={answered}", st["stage"],
                              st["frames"], only])
    return cases


@pytest.mark.parametrize("lang", list(LANGS))
def test_strip_and_chart_draw_every_frame_without_overlapping_or_small_labels(kv, lang):
    """The strip renderer on the frames of every policy, at a phone's, a laptop's and a
    projector's widths (tests/browser/test_js_units.py's check)."""
    from test_js_units import READABLE, WIDTHS
    bad = kv.evaluate(READABLE, [_strip_cases(lang), WIDTHS])
    assert bad == [], "\n".join(bad[:16])


def _measured(policy: str, budget: int) -> str:
    """The whole run's agreement as the page writes it, measured here on the same model."""
    from steps.step6 import model as M
    r = M.eviction(M.eviction_ids("en"), policy, budget)
    return f"{round(100 * r.agreement)}%"


def test_part_d_conceals_the_agreement_until_answered_then_plays_each_policy(app):
    from steps.step6 import model as M
    from steps.step6 import text as T
    page = app("?step=6&part=d")
    expect(page.get_by_role("tab", name="D. Dropping tokens")).to_have_attribute(
        "aria-selected", "true")
    expect(page.locator(".strip-svg .tok")).not_to_have_count(0, timeout=60_000)
    expect(page.locator(".question").first).to_contain_text(
        f"cache budget: {M.QUESTION_BUDGET} tokens", timeout=120_000)
    # before the answer: no measured agreement anywhere on the page
    expect(metric(page, "evict_agreement")).to_have_text("?")
    expect(metric(page, "evict_agree")).to_have_text("?")
    expect(page.locator(".sweep-wait")).to_be_visible()
    expect(page.locator(".sweep-svg")).to_have_count(0)
    expect(metric(page, "evict_bytes")).to_contain_text("KiB")          # the bytes are no answer
    page.locator(".show-me button").click()
    wait_url(page, f"budget={M.QUESTION_BUDGET}")      # the answer moves the budget there
    expect(page.locator(".q-right")).to_have_count(1)
    expect(page.locator(".q-right")).to_contain_text("None of them")
    expect(page.locator(".sweep-svg .sweep-line")).to_have_count(3)
    expect(page.locator(".sweep-svg .sweep-cur")).to_have_count(1)
    expect(metric(page, "evict_agreement")).to_have_text(_measured("window", M.QUESTION_BUDGET))
    for policy in M.POLICY_CHOICES:
        page.get_by_role("radio", name=T.policy_name(policy, T.Translator("en")),
                         exact=True).check()
        wait_url(page, f"policy={policy}")
        expect(metric(page, "evict_agreement")).to_have_text(
            _measured(policy, M.QUESTION_BUDGET), timeout=60_000)
        expect(page.locator(".player-pos")).to_contain_text("Token 1 of")
        received = []
        page.on("websocket", lambda ws: ws.on("framereceived", lambda f: received.append(f)))
        time.sleep(0.5)
        before = len(received)
        page.locator(".player-play button").click()
        expect(page.locator(".player-pos")).to_contain_text("Token 4 of", timeout=15_000)
        assert len(received) == before, "the server sent frames while playing"
        page.locator(".player-play button").click()              # Pause: the link follows
        wait_url(page, "frame=")
        roles = {"sinks": ".tok-sink", "h2o": ".tok-heavy"}
        if policy in roles:
            expect(page.locator(f".strip-svg {roles[policy]}").first).to_be_visible()
        page.locator(".player-reset button").click()
        wait_url(page, "frame=0")


def test_part_d_deep_link_restores_policy_budget_and_token(app):
    page = app("?step=6&part=d&policy=h2o&budget=8&frame=12")
    expect(page.locator(".player-pos")).to_contain_text("Token 13 of", timeout=60_000)
    expect(page.get_by_role("radio", name="Heavy hitters + recent tokens as in H2O, at "
                            "original positions", exact=True)).to_be_checked()
    expect(page.get_by_role("radio", name="8 tokens", exact=True)).to_be_checked()
    expect(page.get_by_role("radio", name="Recent window", exact=True)).not_to_be_checked()
    expect(page.locator(".strip-svg .tok-heavy").first).to_be_visible()
    expect(page.locator(".strip-svg .is-query.query-ring")).to_have_count(1)
    expect(page.get_by_role("radiogroup")).to_have_count(2)       # Part D's controls only
    wait_url(page, "budget=8")
    page = app("?step=6&part=d&policy=lru")
    expect(page.locator(".notice").first).to_contain_text("lru")
    expect(page.get_by_role("radio", name="Recent window", exact=True)).to_be_checked()
