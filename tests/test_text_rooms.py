"""Every step's text layer (`steps/stepN/text.py`, the key-ideas page's, the FAQ) imports
without Panel, and owns its controls' labels: `control_labels(tr)` names every control the
step's URL sets, in every language."""
import importlib
import subprocess
import sys
from pathlib import Path

import pytest

from explainer.i18n import LANGS, Translator
from steps.registry import NUMBERS as STEPS

ROOT = Path(__file__).resolve().parents[1]
TEXTS = [f"steps.step{n}.text" for n in STEPS] + ["steps.ending.text", "steps.faq"]
NOT_CONTROLS = {"frame", "part", "custom"}     # set by the player, the tabs, a link's model


def test_text_rooms_import_no_panel():
    code = ("import sys; " + "; ".join(f"import {m}" for m in TEXTS) + "; "
            "assert 'panel' not in sys.modules and 'bokeh' not in sys.modules, "
            "[m for m in ('panel', 'bokeh') if m in sys.modules]")
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True)


def test_controllers_and_the_shell_import_no_panel():
    """The steps' controllers (view.py), the shell and the page's state import without Panel
    or Bokeh: only steps/ui/page.py (the one component) does."""
    modules = [f"steps.step{n}.view" for n in STEPS] + ["steps.ending.view", "steps.shell",
                                                         "steps.ui.state", "steps.ui.step"]
    code = ("import sys; " + "; ".join(f"import {m}" for m in modules) + "; "
            "assert 'panel' not in sys.modules and 'bokeh' not in sys.modules, "
            "[m for m in ('panel', 'bokeh') if m in sys.modules]")
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True)


def url_params(n: int) -> set:
    """The model parameters step n's view puts in the URL (its class's `url_names`)."""
    view = importlib.import_module(f"steps.step{n}.view")
    names = set()
    for v in vars(view).values():
        if isinstance(v, type) and v.__module__ == view.__name__:
            names |= set(getattr(v, "url_names", None) or ())
    assert names, f"step {n}: no view class with url_names"
    return names


@pytest.mark.parametrize("n", STEPS)
def test_control_labels_name_every_control_of_the_url(n):
    text = importlib.import_module(f"steps.step{n}.text")
    wanted = url_params(n) - NOT_CONTROLS
    for lang in LANGS:
        labels = text.control_labels(Translator(lang))
        assert wanted <= set(labels), (n, lang, wanted - set(labels))
        assert all(isinstance(v, str) and v.strip() for v in labels.values()), (n, lang)


def test_control_labels_keep_their_words():
    en = Translator("en")
    assert importlib.import_module("steps.step1.text").control_labels(en) == dict(
        example="Example prompt", text="Or type your own prompt",
        text_placeholder="Type a few words, then press Enter", layer="Layer", head="Head")
    step5 = importlib.import_module("steps.step5.text").control_labels(en)
    assert step5["gpu"] == "GPU for “how many fit”"
    assert step5["config"] == "config.json of your model" and step5["read"] == "Read this config"
    assert step5["params_b"] == "Parameters in billions (if the config cannot give them)"
    assert importlib.import_module("steps.step4.text").control_labels(en)["prompt"] == (
        "Prompt length (tokens)")
    pl = Translator("pl")
    for n in STEPS:
        text = importlib.import_module(f"steps.step{n}.text")
        assert text.control_labels(pl) != text.control_labels(en), n    # translated
