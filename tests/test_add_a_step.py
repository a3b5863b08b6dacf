"""docs/design.md's "Adding a step" is true: a step package that is not part of the explainer
(tests/fixtures/step_extra: its registry line and notes, model, text, view, exercises and a
warm-up job), named
after the six in `KV_EXPLAINER_STEPS`, becomes step 7 everywhere the registry reaches: the
stepper, `?step=7` and Next from step 6, the key-ideas page, the exercises in its reading column
and on the printable sheet, the speaker view's notes, the warm-up's lists. Nothing else is
edited.

The registry is read once per process, at import (every module takes its constants), so the
checks run in a fresh interpreter started with the variable set: `check_app` in this file,
imported there. tests/browser/test_add_a_step_page.py serves the same app with `panel serve`
and walks to the step through the stepper in Chromium."""
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = Path(__file__).resolve().parent / "fixtures"
EXTRA = "step_extra"


def extra_env() -> dict:
    """The environment of a process whose registry has the extra step after the six."""
    from steps.registry import ENV, PACKAGES
    path = os.pathsep.join(p for p in (str(FIXTURES), str(ROOT), os.environ.get("PYTHONPATH"))
                           if p)
    return {**os.environ, ENV: ",".join((*PACKAGES, EXTRA)), "PYTHONPATH": path,
            "KV_EXPLAINER_DEVICE": "cpu"}


def test_the_registry_reads_its_packages_from_the_environment():
    from steps import registry
    assert registry.packages({}) == registry.PACKAGES
    assert registry.packages({registry.ENV: " steps.step2 ,steps.step1,"}) == (
        "steps.step2", "steps.step1")
    assert [registry.read(m) for m in registry.PACKAGES] == list(registry.STEPS)
    assert registry.exercises(0) == () and registry.exercises(registry.END) == ()
    assert registry.notes(registry.END)


def test_an_extra_step_package_is_step_7_everywhere():
    out = subprocess.run([sys.executable, "-c", "import test_add_a_step as t; t.check_app()"],
                         cwd=Path(__file__).parent, env=extra_env(), capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-4000:]
    assert json.loads(out.stdout.splitlines()[-1]) == {"checked": ["en", "id", "pl", "nl"]}


def check_app() -> None:
    """Run in a process started with `extra_env()`: every place the registry reaches shows
    the extra step. Prints what it checked; an assertion fails the process."""
    import importlib

    from explainer.i18n import LANGS
    from steps import registry, warm
    from steps.shell import App
    from steps.ui.state import check_page, columns
    extra = importlib.import_module(EXTRA)
    view = importlib.import_module(f"{EXTRA}.view")

    assert (registry.COUNT, registry.END) == (7, 8) and registry.module_of(7) == EXTRA
    assert registry.STEPS[-1] == registry.StepInfo(EXTRA, extra.TITLE, extra.TAKEAWAY,
                                                   ("cache",))
    for lang in LANGS:
        app = App(query={"step": "6", "lang": lang})
        app.handle({"nav": 1})                                  # Next from step 6
        st = check_page(app.state())
        assert st["number"] == 7 and app.url_query() == f"?step=7&lang={lang}&tokens=4"
        assert st["shell"]["nav"]["items"][6] == extra.TITLE   # the stepper; no catalog has it
        assert [c["label"] for c in st["controls"]] == ["Tokens in the cache"]
        assert st["lead"][0]["items"] == [
            "Every token the cache keeps brings a key row and a value row."]
        [section] = st["exercises"]
        assert section is columns(st)["left"][-1]               # the reading column's end
        headings = [b.get("heading") for b in section["blocks"]]
        tr = app.app_state.tr
        assert headings == [tr._("Exercise {n} · on paper", n="7.1"), None,
                            tr._("Exercise {n} · on the page", n="7.2")]
        assert "not-done" in section["blocks"][2]["cls"]
        app.handle({"set": "tokens", "value": 6, "seq": 1})    # the task's solution
        [section] = app.state()["exercises"]
        assert "is-done" in section["blocks"][2]["cls"].split()
        app.handle({"nav": 1})
        assert app.app_state.step == registry.END               # and Next again: key ideas

        ideas = App(query={"step": "end", "lang": lang}).state()
        html = " ".join(b.get("html", "") for b in ideas["body"])
        assert extra.TAKEAWAY in html
        assert f"?step=7&amp;lang={lang}" in html
        sheet = App(query={"step": "end", "exercises": "1", "lang": lang}).state()
        [block] = sheet["body"]
        answers_at = block["html"].index('class="sheet-answers"')
        for slug in ("ex-7-1", "ex-7-2"):
            assert block["html"].index(f"sheet-exercise {slug}") < answers_at < \
                block["html"].index(f"sheet-answer {slug}")
        assert "2 × 5 = 10 rows." in block["html"]

        talk = App(query={"step": "7", "lang": lang, "speaker": "1"}).shell_state()["talk"]
        assert talk["notes"] == extra.NOTES and talk["next"] == tr._(registry.END_TITLE)
        before = App(query={"step": "6", "lang": lang, "present": "1"}).shell_state()["talk"]
        assert before["next"] == extra.TITLE

    assert warm.warmed_pages() == (1, 2, 3, 4, 5, 6, 7, 8)
    keys = [key for key, _ in warm.live_jobs()]
    assert keys[-16:] == [(EXTRA, t) for t in range(1, 17)]              # after the six's
    assert warm.step_view(EXTRA) is view.STEP
    print(json.dumps({"checked": list(LANGS)}))
