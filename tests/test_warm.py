"""The warm-up at server start: its progress report (what it prints to a log and to a
terminal), the page's address it ends with, and its lists, derived from steps/registry.py."""
import io
import types

import pytest

from explainer.i18n import LANGS
from steps import registry, warm
from steps.warm import Progress, ready_line, served_url


class Clock:
    """A fake clock, moved by hand."""
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


def plain(phases=2, clock=None):
    out, err = io.StringIO(), io.StringIO()
    return Progress(phases, stream=out, errors=err, clock=clock or Clock()), out, err


# -- the progress report -----------------------------------------------------------------------

def test_a_log_gets_plain_lines_each_tenth_and_the_end_of_each_phase():
    p, out, err = plain(phases=2)
    assert not p.tty                             # a StringIO is no terminal
    p.start("step numbers", 100)
    for _ in range(100):
        p.advance()
    p.finish()
    lines = out.getvalue().splitlines()
    assert "\r" not in out.getvalue() and err.getvalue() == ""
    assert lines[0] == "KV Cache Explainer: [1/2] step numbers: 0/100"
    assert lines[1:-1] == [f"KV Cache Explainer: [1/2] step numbers: {n}/100 ({n} %)"
                           for n in range(10, 100, 10)]            # every 10 %, nothing more
    assert lines[-1].startswith("KV Cache Explainer: [1/2] step numbers: 100/100 in ")
    assert lines[-1].endswith(" s")


def test_a_short_phase_reports_each_item_and_its_time():
    t = Clock()
    p, out, _ = plain(phases=4, clock=t)
    p.start("models and catalogs", 4)
    for _ in range(4):
        t.now += 0.5
        p.advance()
    p.finish()
    p.start("live measurements", 3)
    t.now += 0.5
    p.advance(3)
    p.failed = 1
    p.finish("detail")
    assert out.getvalue().splitlines() == [
        "KV Cache Explainer: [1/4] models and catalogs: 0/4",
        "KV Cache Explainer: [1/4] models and catalogs: 1/4 (25 %)",
        "KV Cache Explainer: [1/4] models and catalogs: 2/4 (50 %)",
        "KV Cache Explainer: [1/4] models and catalogs: 3/4 (75 %)",
        "KV Cache Explainer: [1/4] models and catalogs: 4/4 in 2.0 s",
        "KV Cache Explainer: [2/4] live measurements: 0/3",
        "KV Cache Explainer: [2/4] live measurements: 3/3 in 0.5 s, 1 failed (detail)",
    ]


def test_an_empty_phase_and_a_single_phase_and_too_many_advances():
    t = Clock()
    p, out, _ = plain(phases=1, clock=t)
    p.start("frames", 0)
    t.now = 0.25
    assert p.finish() == 0.25
    p.start("frames", 2)
    p.advance(5)                                  # never past N
    t.now = 61.5
    p.finish()
    assert p.seconds() == 61.5
    assert out.getvalue().splitlines() == [
        "KV Cache Explainer: frames: 0/0",        # one phase: no [1/1]
        "KV Cache Explainer: frames: 0/0 in 0.2 s",
        "KV Cache Explainer: frames: 0/2",
        "KV Cache Explainer: frames: 2/2 in 61.2 s",
    ]


def test_a_note_goes_to_stderr_and_a_terminal_gets_one_redrawn_bar(monkeypatch):
    monkeypatch.setattr(warm.shutil, "get_terminal_size", lambda *a: types.SimpleNamespace(
        columns=100, lines=24))
    p, out, err = plain(phases=2)
    p.note("step 3 not warmed: boom")
    assert err.getvalue() == "KV Cache Explainer: step 3 not warmed: boom\n"
    assert out.getvalue() == ""

    out, err = io.StringIO(), io.StringIO()
    p = Progress(2, stream=out, errors=err, tty=True, clock=Clock())
    p.start("frames", 4)
    p.advance(2)
    p.note("oops")
    p.advance(2)
    p.finish()
    text = out.getvalue()
    assert text.startswith("\rKV Cache Explainer: [1/2] frames [") and text.endswith("\n")
    assert text.rstrip().endswith(" s")      # (padded with spaces over the longer bar)
    draws = text.split("\r")[1:]
    assert "2/4" in draws[1] and "[############............]" in draws[1]   # half of 24
    assert draws[1].endswith("\n")                # a note ends the bar's line first ...
    assert "4/4" in draws[-2] and "[########################]" in draws[-2]
    assert draws[-1].startswith("KV Cache Explainer: [1/2] frames: 4/4 in ")
    assert all(len(d.rstrip("\n")) < 100 for d in draws)     # fits the terminal
    assert err.getvalue() == "KV Cache Explainer: oops\n"


def test_the_bar_fits_a_narrow_terminal(monkeypatch):
    monkeypatch.setattr(warm.shutil, "get_terminal_size", lambda *a: types.SimpleNamespace(
        columns=40, lines=24))
    out = io.StringIO()
    p = Progress(4, stream=out, tty=True, clock=Clock())
    p.start("live measurements", 1000)
    p.advance(500)
    assert all(len(d) <= 39 for d in out.getvalue().split("\r")[1:])


# -- the address it ends with ------------------------------------------------------------------

@pytest.mark.parametrize("argv, url", [
    (["/x/.venv/bin/panel", "serve", "app.py", "--setup", "warmup.py", "--num-threads", "4"],
     "http://localhost:5006/app"),
    (["/x/panel/__main__.py", "serve", "app.py", "--setup", "warmup.py", "--address",
      "0.0.0.0", "--port", "8080", "--use-xheaders", "--prefix", "kv/"],
     "http://localhost:8080/kv/app"),
    (["panel", "serve", "/srv/kv/app.py", "--address", "127.0.0.1", "--port=5010",
      "--liveness", "--setup", "/srv/kv/warmup.py"], "http://127.0.0.1:5010/app"),
    (["panel", "serve", "app.py", "--port", "0"], None),                  # any free port
    (["panel", "serve", "app.py", "--unix-socket", "/tmp/kv.sock"], None),
    (["pytest", "tests"], None),                                          # not a server
])
def test_the_page_address_comes_from_the_panel_serve_command_line(argv, url):
    assert served_url(argv) == url


def test_the_last_line_says_ready_and_where_when_known():
    assert ready_line(95.34, "http://localhost:5006/app") == \
        "KV Cache Explainer: ready at http://localhost:5006/app (warmed up in 95.3 s)"
    assert ready_line(2.0) == "KV Cache Explainer: ready (warmed up in 2.0 s)"


# -- its lists come from the registry ----------------------------------------------------------

def test_the_warm_up_lists_come_from_the_registry():
    assert warm.frame_steps() == tuple(n for n, s in zip(registry.NUMBERS, registry.STEPS)
                                       if s.warm_frames)
    assert warm.warmed_pages() == registry.NUMBERS + (registry.END,)
    source = open(warm.__file__, encoding="utf-8").read()
    assert "STEP_MODULES" not in source and "range(1, 7)" not in source
    assert "(1, 2, 3)" not in source


def test_frames_are_built_for_the_registry_steps_that_ask_for_them(monkeypatch):
    fake = (registry.StepInfo("fake.a", "A", "a."),
            registry.StepInfo("fake.b", "B", "b.", warm_frames=True),
            registry.StepInfo("fake.c", "C", "c.", warm_frames=True))
    monkeypatch.setattr(warm, "STEPS", fake)
    monkeypatch.setattr(warm, "NUMBERS", (1, 2, 3))
    monkeypatch.setattr(warm, "module_of", lambda n: fake[n - 1].module)
    warmed = []

    def view(name):
        assert name.endswith(".view")
        return types.SimpleNamespace(warm=lambda lang: warmed.append((name, lang)) or 2)
    monkeypatch.setattr(warm.importlib, "import_module", view)
    warm.warm_frames(verbose=False)
    assert warmed == [(f"fake.{x}.view", lang) for x in "bc" for lang in LANGS]


def test_every_page_of_the_registry_gets_its_numbers_warmed(monkeypatch):
    seen = []

    class Model:
        param = {}

        def __init__(self, **kw):
            pass

    def step_view(module):
        seen.append(module)
        return types.SimpleNamespace(model_class=Model)
    monkeypatch.setattr(warm, "step_view", step_view)
    out = io.StringIO()
    warm.warm_numbers(progress=Progress(1, stream=out, clock=Clock()))
    assert seen == [s.module for s in registry.STEPS] + [registry.END_MODULE]
    assert out.getvalue().splitlines()[-1].startswith(
        f"KV Cache Explainer: step numbers: {len(seen) * len(LANGS)}/{len(seen) * len(LANGS)}")


def test_each_registry_step_has_a_view_the_warm_up_can_use():
    for n in warm.warmed_pages():
        view = warm.step_view(registry.module_of(n))
        assert view is not None and view.model_class is not None, n
    for n in warm.frame_steps():
        assert callable(__import__(registry.module_of(n) + ".view", fromlist=["warm"]).warm)
