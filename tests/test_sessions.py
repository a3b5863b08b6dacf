"""Sessions: two never share state, and a closed one leaves nothing behind in the process."""
import pytest

from steps.common import translator
from steps.shell import ExplainerApp
from steps.step1 import text as step1_text


def test_two_sessions_never_share_state():
    a, b = ExplainerApp(query={"step": "1"}), ExplainerApp(query={"step": "1"})
    a.__panel__(), b.__panel__()
    assert a.steps[1].stage is not b.steps[1].stage
    assert a.steps[1].model is not b.steps[1].model
    a.state.lang = "pl"
    a.steps[1].model.frame = 4
    a.go(1)
    assert (b.state.lang, b.state.step, b.steps[1].model.frame) == ("en", 1, 0)
    assert b.steps[1].stage.frames[0]["cards"][0]["value"] == "5"


def test_a_step_left_is_dropped_and_comes_back_as_it_was():
    """Leaving a step keeps its numbers (inputs, position, the question's answer), not its
    panes; a language switch elsewhere costs it nothing, and coming back shows it in the
    language of the page."""
    import gc
    import weakref
    app = ExplainerApp(query={"step": "1", "lang": "en"})
    app.__panel__()
    one = app.steps[1]
    one.model.param.update(example=2, layer=3, head=4, frame=7)
    one.question.choose(1)
    left = weakref.ref(one)
    del one
    app.go(1)
    assert list(app.steps) == [2]
    gc.collect()
    assert left() is None                         # the view and everything it built are gone
    app.state.lang = "nl"                         # nothing of step 1 works on this
    app.steps[2].model.prompt = 12
    app.go(-1)
    back = app.steps[1]
    assert (back.model.example, back.model.layer, back.model.head, back.model.frame) == \
        (2, 3, 4, 7)
    assert back.question.answer == 1 and back.question.revealed and not back.stage.concealed
    assert back.lang == back.model.lang == "nl"
    assert back.stage.text == step1_text.stage_text(translator("nl"))
    assert app.url_query().startswith("?step=1&lang=nl&example=2")
    app.go(1)
    assert app.steps[2].model.prompt == 12        # and step 2 kept its own



@pytest.mark.parametrize("start", [1, 2, 3, 4, 5, 6, 7])
def test_a_step_left_is_freed_without_the_collector(monkeypatch, start):
    """A step that left the page is taken apart (`release.dispose`): reference counting frees
    it at once, with no garbage for the collector's pauses; a late change to one of its parts
    does nothing; the page goes on (back to that step, another language) and serializes."""
    import gc
    import weakref

    from bokeh.document import Document
    from panel.io.state import set_curdoc

    import steps.release as rel
    islands = []
    monkeypatch.setattr(rel, "dispose_later", lambda objs, models: islands.append((objs, models)))
    app = ExplainerApp(query={"step": str(start), "lang": "en"})
    doc = Document()
    with set_curdoc(doc):
        doc.add_root(app.__panel__().get_root(doc))
    old = app.steps[start]
    parts = [old.model, *[v for v in vars(old).values() if hasattr(v, "param")]]
    left = weakref.ref(old)
    del old
    gc.collect()
    gc.disable()
    try:
        with set_curdoc(doc):
            app.go(1 if start < 7 else -1)
        assert len(islands) == 1
        objs, models = islands.pop()
        kept = [m for m in models if m.document is not None]     # e.g. a shared style sheet
        assert rel.dispose(objs, models) == len(models) - len(kept) > 0
        assert all(m._property_values for m in kept)
        del objs, models, kept
        for part in parts:                          # late changes: numbers, nothing else
            for name in part.param:
                if name != "name" and not part.param[name].constant:
                    try:
                        setattr(part, name, getattr(part, name))
                    except Exception as exc:        # noqa: BLE001
                        raise AssertionError(f"{type(part).__name__}.{name}: {exc!r}")
        del parts, part
        assert left() is None                       # freed by reference counting alone
    finally:
        gc.enable()
    with set_curdoc(doc):
        app.go(-1 if start < 7 else 1)
        app.state.lang = "pl"
    assert app.state.step == start and app.steps[start].lang == "pl"
    assert doc.to_json(deferred=False)["roots"]      # the page serializes whole


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
for _ in range(3):
    session = pull_session(url=f"http://127.0.0.1:{port}/app",
                           arguments=dict(parse_qsl(query[1:])))
    assert session.document.roots
    session.close()
deadline = time.time() + 20
while time.time() < deadline:
    gc.collect()
    if len(apps) == 3 and all(r() is None for r in apps):
        break
    time.sleep(0.3)
print("opened", len(apps), "alive", sum(r() is not None for r in apps))
server.io_loop.add_callback(server.stop)
server.io_loop.add_callback(server.io_loop.stop)
thread.join(5)
"""


@pytest.mark.parametrize("query", ["?step=1&lang=pl", "?step=end"])
def test_a_closed_session_leaves_nothing_behind(query):
    """A real server in its own process (its event loops stay out of this test run's):
    three sessions open and close; once the server has discarded them, nothing in the
    process still refers to their apps."""
    import subprocess
    import sys
    from pathlib import Path
    root = Path(__file__).resolve().parents[1]
    out = subprocess.run([sys.executable, "-c", CLOSED_SESSIONS, query], cwd=root,
                         capture_output=True, text=True, timeout=180)
    assert out.returncode == 0, out.stderr[-3000:]
    assert "opened 3 alive 0" in out.stdout, out.stdout + out.stderr[-3000:]


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
        # a loop of its own, in its own thread: the browser tests leave one running here
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


def test_panel_collects_by_our_policy():
    """Panel's collection after each closed session is replaced by ours, and CPython's own
    full collections come FULL_EVERY middle-generation collections apart, not 10."""
    import gc

    import panel.io.document as document

    import steps.release as rel
    before = gc.get_threshold()
    try:
        rel.install()
        assert document._garbage_collect is rel._collect_for_panel
        assert gc.get_threshold() == (before[0], before[1], rel.FULL_EVERY)
        assert rel.FULL_EVERY > 10
    finally:
        gc.set_threshold(*before)


def test_release_memory_really_runs(monkeypatch):
    import steps.release as rel
    monkeypatch.setattr(rel, "_open", 0)
    monkeypatch.setattr(rel, "_closed", 1)
    assert rel.release_memory()
    assert not rel.release_memory()             # nothing left since
    assert rel._LIBC is not None                # glibc: the freed pages go back


def test_step5_keeps_a_pasted_config_across_a_visit():
    """A pasted config.json is never in the link, but coming back to step 5 keeps it: the
    model reads it again and the text field shows it."""
    import panel_material_ui as pmui

    from steps.step5.model import CUSTOM
    app = ExplainerApp(query={"step": "5"})
    app.__panel__()
    config = ('{"model_type": "falcon", "num_hidden_layers": 32, "num_attention_heads": 71, '
              '"multi_query": true, "hidden_size": 4544}')
    app.steps[5].model.param.update(model=CUSTOM, config=config, params_b=6.922)
    app.go(1)
    app.go(-1)
    m = app.steps[5].model
    assert (m.model, m.config, m.params_b) == (CUSTOM, config, 6.922)
    assert m.spec.kind == "MQA"
    area, = app.steps[5].__panel__().select(pmui.TextAreaInput)
    number, = app.steps[5].__panel__().select(pmui.FloatInput)
    assert (area.value, number.value) == (config, 6.922)


@pytest.mark.parametrize("step", [2, 6])
def test_a_closed_session_is_taken_apart(step):
    """When a session closes (after Panel's and Bokeh's own clean-up), `dispose` takes the
    page apart: the step on screen is freed by reference counting alone, the page's state
    lets go of the page, and much less is left for the collector than without it."""
    import gc
    import types
    import weakref
    from functools import partial

    from bokeh.document import Document
    from panel.io.document import _destroy_document
    from panel.io.state import set_curdoc

    import steps.release as rel

    def close(take_apart: bool) -> tuple[bool, int]:
        app = ExplainerApp(query={"step": str(step), "lang": "en"})
        doc = Document()
        with set_curdoc(doc):
            app.__panel__().server_doc(doc)
        view = weakref.ref(app.steps[step])
        gc.collect()
        gc.disable()
        try:
            app.__panel__()._server_destroy(types.SimpleNamespace(_document=doc, id="s"))
            doc.destroy = partial(_destroy_document, doc)
            doc.destroy(None)                       # what Panel does when a session closes
            if take_apart:
                state = app.state
                rel.dispose(*rel.session_island(app))
                assert "navigate" not in vars(state)          # it named the page's `go`
                del state
            del app, doc
            return view() is None, gc.collect()
        finally:
            gc.enable()

    freed, left = close(True)
    kept, left_before = close(False)
    assert freed and not kept
    assert left < left_before / 2


def test_dispose_later_runs_on_the_servers_loop(monkeypatch):
    """The removal goes out to the page first: the view is taken apart DISPOSE_DELAY_S later,
    on the loop that serves the session; outside a served session nothing is scheduled
    (a running loop alone, such as the browser tests' Playwright, is not a server)."""
    import asyncio
    import threading

    import steps.release as rel
    done = []
    monkeypatch.setattr(rel, "DISPOSE_DELAY_S", 0.05)
    monkeypatch.setattr(rel, "dispose", lambda objs, models: done.append((objs, models)))

    from bokeh.document import Document
    from panel.io.state import set_curdoc

    async def serve():
        rel.dispose_later(["a"], [])                 # no session: left to the collector
        doc = Document()
        doc._session_context = lambda: object()      # a served session's document
        with set_curdoc(doc):
            rel.dispose_later(["objs"], ["models"])
        assert done == []                            # not inside the move itself
        await asyncio.sleep(0.3)

    t = threading.Thread(target=lambda: asyncio.run(serve()))
    t.start()
    t.join(10)
    assert done == [(["objs"], ["models"])]
