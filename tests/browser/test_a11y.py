"""axe-core (WCAG 2.1 A/AA) on every step, in English and Polish, on the full page and in
embed mode: no serious or critical violation."""
import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import expect

AXE = Axe()
OPTIONS = {"runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]}}
CASES = [(s, "en", "") for s in ("1", "2", "3", "4", "5", "6", "end")] + \
        [(s, "pl", "&embed=1") for s in ("1", "2", "3", "4", "5", "6")]


@pytest.mark.parametrize("step,lang,mode", CASES)
def test_no_serious_or_critical_violations(app, step, lang, mode):
    page = app(f"?step={step}&lang={lang}{mode}")
    expect(page.locator("h2, .embed-line").first).to_be_visible()
    page.wait_for_timeout(2500)                  # bound panes and stages have rendered
    results = AXE.run(page, options=OPTIONS)
    bad = [(v["id"], v["impact"], [n["target"] for n in v["nodes"]][:3])
           for v in results.response["violations"] if v["impact"] in ("serious", "critical")]
    assert bad == []
