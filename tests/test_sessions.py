"""Sessions: two never share state, a step left comes back as it was, and a closed session
leaves nothing behind in the process."""
import pytest

from steps.common import translator
from steps.registry import NUMBERS
from steps.shell import App
from steps.step1 import text as step1_text


def test_two_sessions_never_share_state():
    a, b = App(query={"step": "1"}), App(query={"step": "1"})
    assert a.step.model is not b.step.model
    a.handle({"lang": "pl"})
    a.handle({"frame": 4})
    a.handle({"nav": 1})
    assert (b.app_state.lang, b.app_state.step, b.step.model.frame) == ("en", 1, 0)
    assert b.state()["values"]["layer"] == b.step.model.param["layer"].default


def test_a_step_left_is_dropped_and_comes_back_as_it_was():
    """Leaving a step keeps its numbers (inputs, position, the question's answer); a language
    switch elsewhere costs it nothing, and coming back shows it in the page's language."""
    import gc
    import weakref
    app = App(query={"step": "1", "lang": "en"})
    app.handle({"answer": 1})                     # (answering moves the player to frame 1)
    app.step.model.param.update(example=2, layer=3, head=4, frame=7)
    left = weakref.ref(app.step)
    app.handle({"nav": 1})
    gc.collect()
    assert left() is None                         # the step and everything it held are gone
    app.handle({"lang": "nl"})
    app.handle({"set": "prompt", "value": 12, "seq": 1})
    app.handle({"nav": -1})
    m = app.step.model
    assert (m.example, m.layer, m.head, m.frame) == (2, 3, 4, 7)
    state = app.state()
    assert state["question"]["answer"] == 1 and not state["concealed"]
    assert app.step.lang == m.lang == "nl"
    assert state["stage"]["text"]["figure"] == step1_text.stage_text(translator("nl"))["figure"]
    assert app.url_query().startswith("?step=1&lang=nl&example=2")
    app.handle({"nav": 1})
    assert app.step.model.prompt == 12            # and step 2 kept its own


CLOSED_SESSIONS = r"""
import gc, socket, sys, threading, time, weakref
from urllib.parse import parse_qsl
import panel as pn
from bokeh.client import pull_session
sys.path.insert(0, ".")
query = sys.argv[1]
apps = []

def page():
    from app import build
    tmpl = build()
    apps.append(weakref.ref(tmpl._render_items["app"][0]))
    return tmpl

with socket.socket() as s:
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
server = pn.serve({"app": page}, port=port, address="127.0.0.1", show=False, start=False,
                  threaded=False, websocket_origin=[f"127.0.0.1:{port}"],
                  unused_session_lifetime_milliseconds=200,
                  check_unused_sessions_milliseconds=100)
thread = threading.Thread(target=server.io_loop.start, daemon=True)
server.start()
thread.start()
models = []
for _ in range(3):
    session = pull_session(url=f"http://127.0.0.1:{port}/app",
                           arguments=dict(parse_qsl(query[1:])))
    assert session.document.roots
    models.append(len(list(session.document.models)))
    session.close()
deadline = time.time() + 20
while time.time() < deadline:
    gc.collect()
    if len(apps) == 3 and all(r() is None for r in apps):
        break
    time.sleep(0.3)
print("opened", len(apps), "alive", sum(r() is not None for r in apps), "models", max(models))
server.io_loop.add_callback(server.stop)
server.io_loop.add_callback(server.io_loop.stop)
thread.join(5)
"""


@pytest.mark.parametrize("query", ["?step=1&lang=pl", "?step=6&part=b", "?step=end"])
def test_a_closed_session_leaves_nothing_behind_and_held_a_handful_of_models(query):
    """A real server in its own process: three sessions open and close; once the server has
    discarded them, nothing in the process still refers to their pages. Each session's
    document held a handful of Bokeh models (the page component and Panel's few around it)."""
    import re
    import subprocess
    import sys
    from pathlib import Path
    root = Path(__file__).resolve().parents[1]
    out = subprocess.run([sys.executable, "-c", CLOSED_SESSIONS, query], cwd=root,
                         capture_output=True, text=True, timeout=180)
    assert out.returncode == 0, out.stderr[-3000:]
    assert "opened 3 alive 0" in out.stdout, out.stdout + out.stderr[-3000:]
    assert int(re.search(r"models (\d+)", out.stdout).group(1)) <= 8, out.stdout


def test_closing_sessions_releases_memory_once(monkeypatch):
    """A class leaving schedules one collection + malloc_trim, not one per session; a few
    leavers while a class stays do not stall it with one."""
    import asyncio

    import steps.release as rel
    runs = []
    monkeypatch.setattr(rel, "DELAY_S", 0.05)
    monkeypatch.setattr(rel, "_open", 0)
    monkeypatch.setattr(rel, "_closed", 0)
    monkeypatch.setattr(rel.gc, "collect", lambda: runs.append(1))

    async def leave(n):
        for _ in range(n):
            rel.session_closed(None)
        await asyncio.sleep(0.3)

    def on_own_loop(n):
        import threading
        t = threading.Thread(target=lambda: asyncio.run(leave(n)))
        t.start()
        t.join(10)

    for _ in range(30):
        rel.session_opened()
    on_own_loop(30)                             # the whole class leaves: once
    assert runs == [1]
    for _ in range(100):
        rel.session_opened()
    on_own_loop(2)                              # two leave, 98 stay: not now
    assert runs == [1]
    on_own_loop(30)                             # 32 left since, 68 stay: now
    assert runs == [1, 1]
    on_own_loop(68)                             # the rest
    assert runs == [1, 1, 1]


def test_worth_collecting():
    from steps.release import worth_collecting
    assert not worth_collecting(0, 0)           # nobody left
    assert worth_collecting(0, 1)               # the last one left
    assert not worth_collecting(100, 7)
    assert not worth_collecting(100, 24)
    assert worth_collecting(100, 25)
    assert not worth_collecting(10, 7)          # fewer than MIN_CLOSED
    assert worth_collecting(10, 8)


def test_release_memory_really_runs(monkeypatch):
    import steps.release as rel
    monkeypatch.setattr(rel, "_open", 0)
    monkeypatch.setattr(rel, "_closed", 1)
    assert rel.release_memory()
    assert not rel.release_memory()             # nothing left since
    assert rel._LIBC is not None                # glibc: the freed pages go back


@pytest.mark.parametrize("n", NUMBERS)
def test_every_step_state_is_json_in_every_language(n):
    from explainer.i18n import LANGS
    from steps.ui.state import check_page
    for lang in LANGS:
        app = App(query={"step": str(n), "lang": lang})
        check_page(app.state())
