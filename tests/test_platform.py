"""steps/platform: the switch, the version gate, installing once, and what each piece does.
The guards (steps/platform/guards.py): a connection that Bokeh's keep-alive job already
released is closed, and sent to, without errors; a page that leaves mid-message, too."""
import asyncio
import gc
import logging

import pytest
from bokeh.server.connection import ServerConnection
from bokeh.server.views.ws import WSHandler
from tornado.websocket import WebSocketClosedError

import steps.platform as platform
import steps.platform.guards as guards
from steps.platform import piece
from steps.platform.collector import tune_gc


@pytest.fixture
def fresh(monkeypatch):
    """`install()` as if for the first time, with two pieces that note when they are applied."""
    applied = []

    @piece({"bokeh": "3.9.*"}, "https://example.org/a")
    def one():
        applied.append("one")

    @piece({"panel": "1.9.*"}, "https://example.org/b")
    def two():
        applied.append("two")
    monkeypatch.setattr(platform, "_done", {})
    monkeypatch.setattr(platform, "_noticed", False)
    monkeypatch.setattr(platform, "pieces", lambda: [one, two])
    monkeypatch.delenv(platform.SWITCH, raising=False)
    return applied


def test_the_switch_turns_every_piece_off(fresh, monkeypatch, caplog):
    monkeypatch.setenv(platform.SWITCH, "1")
    before = gc.get_threshold()
    with caplog.at_level(logging.INFO, logger="steps.platform"):
        assert platform.install() == {"one": False, "two": False}
        assert platform.install() == {"one": False, "two": False}
        assert not tune_gc(99)
    assert fresh == [] and gc.get_threshold() == before
    assert [r.getMessage() for r in caplog.records] == [
        "KV_EXPLAINER_PLAIN_PANEL=1: no library patches installed"]


def test_a_piece_on_versions_it_was_not_written_for_is_skipped(fresh, monkeypatch):
    real = platform.version
    monkeypatch.setattr(platform, "version", lambda p: "3.10.0" if p == "bokeh" else real(p))
    with pytest.warns(RuntimeWarning, match=r"one skipped: written for \{'bokeh': '3.9.\*'\}, "
                                            r"found \{'bokeh': '3.10.0'\}"):
        assert platform.install() == {"one": False, "two": True}
    assert fresh == ["two"]


def test_install_applies_each_piece_once(fresh):
    assert platform.install("two") == {"two": True}
    assert platform.install() == platform.install() == {"one": True, "two": True}
    assert fresh == ["two", "one"]


def test_every_piece_says_why_and_where_upstream():
    for apply in platform.pieces():
        assert apply.__doc__.count("\n") >= 2 and apply.upstream.startswith("https://github.com/")
        assert platform.fits(apply.__name__, apply.written_for)    # the pinned versions


def test_tune_gc_on_the_versions_it_was_written_for(monkeypatch):
    monkeypatch.delenv(platform.SWITCH, raising=False)
    before = gc.get_threshold()
    try:
        assert tune_gc(50) and gc.get_threshold() == (before[0], before[1], 50)
        monkeypatch.setattr(platform, "version", lambda p: "3.14.0")
        with pytest.warns(RuntimeWarning, match="tune_gc skipped"):
            assert not tune_gc(70)
        assert gc.get_threshold()[2] == 50
    finally:
        gc.set_threshold(*before)


# -- the guards ---------------------------------------------------------------------------------

def in_own_thread(fn, *args):
    """Run `fn` in a thread of its own, with no event loop: the browser tests of the same
    pytest run keep one running in the main thread."""
    from concurrent.futures import ThreadPoolExecutor
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(fn, *args).result()


class FakeSession:
    def __init__(self):
        self.subscribers, self.lost = set(), 0

    def subscribe(self, c):
        self.subscribers.add(c)

    def unsubscribe(self, c):
        self.subscribers.discard(c)

    def notify_connection_lost(self):
        self.lost += 1


class FakeApplication:
    def __init__(self):
        self.lost = []

    def client_lost(self, connection):
        self.lost.append(connection)
        connection.detach_session()


def handler_with_connection():
    session = FakeSession()
    handler = object.__new__(WSHandler)          # no Tornado request: only what is used
    handler.connection = ServerConnection(None, handler, None, session)
    handler.application = FakeApplication()
    handler.close_code = handler.close_reason = None
    return handler, session


def test_the_guards_are_installed_by_the_app():
    import panel.io.document as panel_document

    import app  # noqa: F401
    assert WSHandler.on_close is guards._on_close
    assert WSHandler.on_message is guards._on_message
    assert panel_document.dispatch_tornado is guards._dispatch_tornado
    assert guards._ORIGINAL["dispatch_tornado"].__module__ == "panel.io.document"
    from panel.io.state import state
    assert state._add_busy_event.__wrapped__ is guards._ORIGINAL["_add_busy_event"]


def test_the_app_skips_bokehs_close_match_diagnostics():
    """Each changed part of the page is looked up on a Bokeh model that lacks it (Panel's
    `freeze_doc`): with Bokeh's diagnostics on, every lookup runs difflib."""
    from bokeh.settings import settings

    import app  # noqa: F401
    assert settings.perform_error_diagnostics() is False


def test_close_after_the_keep_alive_released_the_connection():
    platform.install()
    handler, session = handler_with_connection()
    handler.application.client_lost(handler.connection)      # the keep-alive job, first
    handler.on_close()                                       # Bokeh alone: AssertionError
    assert session.lost == 0 and len(handler.application.lost) == 1


def test_a_normal_close_still_releases_the_connection():
    platform.install()
    handler, session = handler_with_connection()
    handler.on_close()
    assert session.lost == 1 and handler.application.lost == [handler.connection]
    assert handler.connection._session is None


def test_a_message_queued_before_the_page_left_is_dropped():
    platform.install()
    handler, _ = handler_with_connection()
    handler.connection.detach_session()

    class Receiver:
        async def consume(self, fragment):
            raise AssertionError("a detached connection's message was handled")
    handler.receiver = Receiver()
    assert in_own_thread(asyncio.run, handler.on_message('{"msgtype": "PATCH-DOC"}')) is None


def test_a_message_on_a_live_connection_is_handled():
    platform.install()
    handler, _ = handler_with_connection()
    seen = []

    class Receiver:
        async def consume(self, fragment):
            seen.append(fragment)
            return None                          # a fragment of a longer message
    handler.receiver = Receiver()
    in_own_thread(asyncio.run, handler.on_message("part"))
    assert seen == ["part"]


class FakeWs:
    """Tornado's connection of a socket: `write` stands in for the write of one frame."""
    def __init__(self, write, closing=False):
        self.write, self.closing = write, closing

    def is_closing(self):
        return self.closing

    def write_message(self, frame, binary=False):
        return self.write(self, frame, binary)


class FakeConnection:
    def __init__(self, write, closing=False):
        from bokeh.protocol import Protocol
        self._socket = type("Socket", (), {})()
        self._socket.ws_connection = FakeWs(write, closing)
        self.protocol = Protocol()


def message():
    from bokeh.protocol import Protocol
    from bokeh.core.serialization import Buffer
    msg = Protocol().create("OK", "1")
    msg.add_buffer(Buffer("b1", b"\x00\x01"))
    return msg


def test_a_page_that_leaves_between_two_frames():
    """The first frame's write fails later and the page is gone, so Tornado refuses the
    second: the message ends quietly and no write is left unretrieved (asyncio would log it
    as an error)."""
    def scenario():
        loop = asyncio.new_event_loop()
        unretrieved = []
        loop.set_exception_handler(lambda loop, context: unretrieved.append(context))
        writes = []

        def write(ws, frame, binary):
            future = loop.create_future()
            future.set_exception(WebSocketClosedError())
            ws.closing = True
            writes.append(future)
            return future
        dropped = guards._dispatch_tornado(FakeConnection(write), msg=message())
        loop.run_until_complete(asyncio.sleep(0))      # the done callbacks run
        count = len(writes)
        writes.clear()
        gc.collect()
        loop.close()
        return dropped, count, unretrieved
    assert in_own_thread(scenario) == ([], 1, [])


def test_messages_to_an_open_socket_are_written_whole_by_panel():
    """Through the guard, Panel's own writer writes what it writes alone."""
    def frames_by(writer, **kw):
        frames = []
        conn = FakeConnection(lambda ws, frame, binary: frames.append((frame, binary)) or frame)
        return writer(conn, **kw), frames
    msg = message()
    futures, frames = frames_by(guards._dispatch_tornado, msg=msg)
    assert (futures, frames) == frames_by(guards._ORIGINAL["dispatch_tornado"], msg=msg)
    assert len(futures) == len(frames) == 5 and frames[-1] == (b"\x00\x01", True)
    assert '"msgtype":"OK"' in frames[0][0].replace(" ", "")
    closing = FakeConnection(lambda *a: pytest.fail("written to a closing socket"), closing=True)
    assert guards._dispatch_tornado(closing, msg=message()) == []
    assert frames_by(guards._dispatch_tornado, events=[]) == ([], [])


# -- Panel's busy counter under --num-threads ---------------------------------------------------

@pytest.fixture
def busy_interleaved(monkeypatch):
    """Panel's busy counter from two threads, interleaved as a class's moves can be on a
    `--num-threads` server. Thread A counts an event of another session
    (`state._add_busy_event`) and pauses inside `edit_readonly(state)`, which it entered while
    `busy` was read-only; thread B, a learner's move, runs Panel's `_process_bokeh_event` and
    pauses inside the `edit_readonly` just before its write of `busy`; A finishes (putting back
    the flag it saw: read-only); then B writes. The pauses come from `edit_readonly` wrapped
    where panel/io/state.py looks it up. Gives `run(component, event)`, which returns what B
    raised (None) and whether A waited in vain for B (B could not enter while A was inside)."""
    import importlib
    import sys
    import threading
    from contextlib import contextmanager

    from panel.io.state import _state, state
    panel_state = importlib.import_module("panel.io.state")     # the module, not `pn.state`
    real = panel_state.edit_readonly
    a_inside, b_at_write, a_done = threading.Event(), threading.Event(), threading.Event()
    roles: dict[int, str] = {}
    seen: dict = {}

    @contextmanager
    def paused(obj):
        caller = sys._getframe(2).f_code.co_name     # the method that entered the `with`
        with real(obj):
            role = roles.get(threading.get_ident())
            if role == "A" and caller == "_add_busy_event" and not a_inside.is_set():
                a_inside.set()
                seen["a_waited_in_vain"] = not b_at_write.wait(0.5)
            elif role == "B" and caller == "_update_busy_counter" and not b_at_write.is_set():
                b_at_write.set()
                a_done.wait(5)
            yield

    flags = {n: (p.readonly, p.constant) for n, p in state.param.objects("existing").items()}
    monkeypatch.setattr(panel_state, "edit_readonly", paused)
    monkeypatch.setattr(_state, "_busy_cleanup_scheduled", "no periodic cleanup in a test")

    def thread(role, fn, *args):
        def run():
            roles[threading.get_ident()] = role
            try:
                fn(*args)
            except Exception as e:       # noqa: BLE001 (what the thread raised is the result)
                seen[role] = e
        return threading.Thread(target=run, daemon=True)

    def run(component, event):
        from bokeh.document import Document
        a = thread("A", state._add_busy_event, "another-session")
        b = thread("B", component._process_bokeh_event, Document(), event)
        a.start()
        assert a_inside.wait(5)
        b.start()
        a.join(5)
        a_done.set()
        b.join(5)
        assert not a.is_alive() and not b.is_alive() and "A" not in seen
        return seen.get("B"), seen.get("a_waited_in_vain")

    yield run
    for name, p in state.param.objects("existing").items():
        p.readonly, p.constant = flags[name]
    with real(state):
        state._busy_counter = []
    assert state.busy is False


def learner_page():
    """A one-message component (as steps/ui/page.py `Page`) and a learner's move to it."""
    import panel as pn
    from panel.models.esm import DataEvent

    class Moves(pn.custom.JSComponent):
        _esm = "export function render() {}"

        def __init__(self, **params):
            super().__init__(**params)
            self.handled = []

        def _handle_msg(self, msg):
            self.handled.append(msg)
    return Moves(), DataEvent(None, {"set": "batch", "value": 8, "seq": 3})


def test_panel_alone_loses_the_move_when_two_threads_count_busy(busy_interleaved, monkeypatch):
    """The race as Panel ships it (the guard's methods put back): B's write of `busy` meets
    the flag A put back, `_process_bokeh_event` raises before the move reaches the component.
    When this fails, Panel no longer races: delete the `busy_counter` piece."""
    from panel.io.state import _state
    for name in guards._BUSY_METHODS:
        monkeypatch.setattr(_state, name, guards._ORIGINAL[name])
    page, move = learner_page()
    raised, waited_in_vain = busy_interleaved(page, move)
    assert isinstance(raised, TypeError)
    assert str(raised) == "Read-only parameter 'busy' cannot be modified"
    assert page.handled == [] and waited_in_vain is False


def test_with_the_guard_the_busy_counter_takes_one_thread_at_a_time(busy_interleaved):
    """Installed, B cannot enter the counter while A is inside it (A waits for it in vain),
    nothing is raised and the move reaches the component."""
    from panel.io.state import _state
    assert platform.install("busy_counter")["busy_counter"]
    assert _state._add_busy_event.__wrapped__ is guards._ORIGINAL["_add_busy_event"]
    page, move = learner_page()
    assert busy_interleaved(page, move) == (None, True)
    assert page.handled == [{"set": "batch", "value": 8, "seq": 3}]
