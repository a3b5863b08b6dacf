"""Sessions: two never share state, and a closed one leaves nothing behind in the process."""
import gc
import socket
import time
import weakref
from urllib.parse import parse_qsl

import panel as pn
import pytest
from bokeh.client import pull_session

from steps.shell import ExplainerApp


def test_two_sessions_never_share_state():
    a, b = ExplainerApp(query={"step": "1"}), ExplainerApp(query={"step": "1"})
    a.__panel__(), b.__panel__()
    a.state.lang = "pl"
    a.steps[1].model.frame = 4
    a.go(1)
    assert (b.state.lang, b.state.step, b.steps[1].model.frame) == ("en", 1, 0)
    assert b.steps[1].stage.frames[0]["cards"][0]["value"] == "5"
    assert a.steps[1].stage is not b.steps[1].stage
    assert a.steps[1].model is not b.steps[1].model


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.parametrize("query", ["?step=1&lang=pl", "?step=end"])
def test_a_closed_session_leaves_nothing_behind(query):
    apps = []

    def page():
        from app import build
        tmpl = build()
        apps.append(weakref.ref(tmpl._render_items["app"][0]))
        return tmpl

    port = _free_port()
    server = pn.serve({"app": page}, port=port, address="127.0.0.1", show=False, start=False,
                      threaded=False, websocket_origin=[f"127.0.0.1:{port}"],
                      unused_session_lifetime_milliseconds=200,
                      check_unused_sessions_milliseconds=100)
    import threading
    thread = threading.Thread(target=server.io_loop.start, daemon=True)
    server.start()
    thread.start()
    try:
        for _ in range(3):
            session = pull_session(url=f"http://127.0.0.1:{port}/app",
                                   arguments=dict(parse_qsl(query[1:])))
            assert session.document.roots
            session.close()
        assert len(apps) == 3
        deadline = time.time() + 20
        while time.time() < deadline:
            gc.collect()
            if all(r() is None for r in apps):
                break
            time.sleep(0.3)
        assert [r() for r in apps] == [None] * 3, "a closed session's app is still referenced"
    finally:
        server.io_loop.add_callback(server.stop)
        server.io_loop.add_callback(server.io_loop.stop)
        thread.join(5)
