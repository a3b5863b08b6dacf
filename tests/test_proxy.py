"""Past one process: two `panel serve app.py` processes behind a real nginx with sticky sessions,
started with deploy/run-local.sh (config deploy/nginx.conf). No browser: the test does what a
browser does, with real Panel sessions through the proxy:

1. GET /app (the page request creates the Bokeh session in one process; nginx routes it by the
   `kvsticky` cookie, or sets that cookie when there is none),
2. opens the session's websocket /app/ws with that cookie and the page's session token, and pulls
   the document (PULL-DOC): it must hold the page's roots,
3. checks in nginx's access log that the page and its websocket reached the same process.

Then one app process is killed (SIGKILL, by its PID file) and new sessions, including ones whose
cookie pointed at the dead process, must all still work, on the surviving process.
"""
import asyncio
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import pytest
from bokeh.client.websocket import WebSocketClientConnectionWrapper
from bokeh.protocol import Protocol
from bokeh.protocol.receiver import Receiver
from tornado.httpclient import HTTPRequest
from tornado.websocket import websocket_connect

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "deploy" / "run-local.sh"
NGINX = shutil.which("nginx") or next(
    (p for p in ("/usr/sbin/nginx",) if os.access(p, os.X_OK)), None)

pytestmark = pytest.mark.skipif(
    NGINX is None, reason="nginx is not installed (not on PATH nor /usr/sbin): "
                          "`apt-get install -y nginx` to run the multi-process proxy test")

APPS = 2


def _free(port: int) -> bool:
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def _free_ports() -> tuple[int, int]:
    """A free proxy port and a base port with APPS free consecutive ports from it."""
    def any_port():
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            return s.getsockname()[1]
    proxy = any_port()
    for _ in range(100):
        base = any_port()
        if base + APPS < 65536 and proxy not in range(base, base + APPS) \
                and all(_free(base + i) for i in range(1, APPS)):
            return proxy, base
    raise RuntimeError("no free ports")


@dataclass
class Session:
    key: str          # the kvsticky cookie
    root_ids: set     # roots the page embeds
    doc_root_ids: set  # roots of the document pulled over the websocket


async def _pull_doc_roots(ws_url: str, token: str, cookie: str, origin: str) -> set:
    request = HTTPRequest(ws_url, headers={"Cookie": f"kvsticky={cookie}", "Origin": origin},
                          connect_timeout=10, request_timeout=30)
    ws = await websocket_connect(request, subprotocols=["bokeh", token])
    conn = WebSocketClientConnectionWrapper(ws)
    protocol, receiver = Protocol(), Receiver(Protocol())

    async def next_message(kind: str):
        while True:
            fragment = await asyncio.wait_for(ws.read_message(), 30)
            assert fragment is not None, f"websocket closed while waiting for {kind}"
            message = await receiver.consume(fragment)
            if message is not None and message.msgtype == kind:
                return message

    try:
        await next_message("ACK")
        await protocol.create("PULL-DOC-REQ").send(conn)
        reply = await next_message("PULL-DOC-REPLY")
        return {root["id"] for root in reply.content["doc"]["roots"]}
    finally:
        ws.close()
        await asyncio.sleep(0.05)


def _in_own_loop(coro):
    """Run a coroutine on a fresh event loop in its own thread: the browser tests of the same
    pytest run keep an event loop running in the main thread."""
    from concurrent.futures import ThreadPoolExecutor
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coro).result()


def open_session(proxy: str, key: str | None = None) -> Session:
    """What a browser does: the page (with the cookie when it has one), then its websocket."""
    headers = {"Cookie": f"kvsticky={key}"} if key else {}
    with urllib.request.urlopen(urllib.request.Request(f"{proxy}/app", headers=headers),
                                timeout=60) as r:
        assert r.status == 200
        html = r.read().decode()
        set_cookie = r.headers.get("Set-Cookie")
    if key is None:
        m = re.match(r"kvsticky=([0-9a-f]{32});", set_cookie or "")
        assert m, f"no sticky cookie set by nginx: {set_cookie!r}"
        key = m.group(1)
    else:
        assert set_cookie is None, "nginx replaced a valid sticky cookie"
    assert "Bokeh" in html and "embed_items" in html, html[:500]
    root_ids = set(re.findall(r'data-root-id="([^"]+)"', html))
    assert root_ids, "the page embeds no Panel roots (the app failed to build? see the app logs)"
    token = re.search(r'"token":\s*"([^"]+)"', html).group(1)
    ws_url = proxy.replace("http://", "ws://") + "/app/ws"
    doc_root_ids = _in_own_loop(_pull_doc_roots(ws_url, token, key, proxy))
    return Session(key, root_ids, doc_root_ids)


def routes(run_dir: Path) -> dict:
    """{key: {"page": [upstream, ...], "ws": [upstream, ...]}} from nginx's access log
    (the upstream that finally answered: the last of a retried list)."""
    out = {}
    for line in (run_dir / "logs" / "access.log").read_text().splitlines():
        m = re.search(r'"GET (/app|/app/ws) HTTP[^"]*" (\d+) \S+ upstream=(.*) key=(\S+)', line)
        if m:
            path, status, upstream, key = m.groups()
            kind = "ws" if path.endswith("/ws") else "page"
            out.setdefault(key, {"page": [], "ws": []})[kind].append(
                (upstream.split(",")[-1].strip(), status))
    return out


def wait_routes(run_dir: Path, keys, ws: bool = True, pages: int = 1) -> dict:
    """routes() once every key has its page line(s) (and its websocket line, logged at close)."""
    deadline = time.monotonic() + 10
    while True:
        table = routes(run_dir)
        if all(k in table and len(table[k]["page"]) >= pages and (table[k]["ws"] or not ws)
               for k in keys) \
                or time.monotonic() > deadline:
            return table
        time.sleep(0.1)


def _run(*args, env, timeout=120):
    return subprocess.run([str(SCRIPT), *args], env=env, capture_output=True, text=True,
                          timeout=timeout)


def test_sessions_stick_to_one_process_and_survive_a_dead_backend(tmp_path):
    proxy_port, app_port = _free_ports()
    run_dir = tmp_path / "run"
    panel = Path(sys.executable).with_name("panel")
    env = {**os.environ, "KV_RUN_DIR": str(run_dir), "KV_APP_PORT": str(app_port),
           "KV_EXPLAINER_DEVICE": "cpu", "NGINX_BIN": NGINX, "KV_START_TIMEOUT": "90",
           "KV_EXPLAINER_MEASURE_AT_START": "0",
           "PANEL": str(panel) if panel.exists() else f"{sys.executable} -m panel"}
    proxy = f"http://127.0.0.1:{proxy_port}"
    backends = {f"127.0.0.1:{app_port + i}" for i in range(APPS)}
    try:
        started = _run("start", str(APPS), str(proxy_port), env=env)
        assert started.returncode == 0, started.stdout + started.stderr
        status = _run("status", env=env)
        assert status.returncode == 0 and status.stdout.count("running") == APPS + 1, status.stdout

        # The large static bundles pass through in full (nginx never spools them to disk).
        with urllib.request.urlopen(f"{proxy}/static/js/bokeh.min.js", timeout=30) as r:
            assert r.status == 200 and len(r.read()) > 500_000

        # Fresh browsers (no cookie) until both processes hold sessions (random keys: a few).
        sessions = []
        while len(sessions) < 12:
            sessions.append(open_session(proxy))
            table = wait_routes(run_dir, [s.key for s in sessions], ws=False)
            served = {table[s.key]["page"][-1][0] for s in sessions}
            if len(sessions) >= 3 and served == backends:
                break
        table = wait_routes(run_dir, [s.key for s in sessions])
        for s in sessions:
            assert s.root_ids <= s.doc_root_ids, (s, "websocket pulled another document")
            (page, page_status), = table[s.key]["page"]
            (ws, ws_status), = table[s.key]["ws"]
            assert (page_status, ws_status) == ("200", "101")
            assert page == ws, f"page on {page} but its websocket on {ws}"
        assert {table[s.key]["page"][0][0] for s in sessions} == backends, \
            "the cookie should spread fresh browsers over both processes"
        # A returning browser (same cookie) goes back to the same process.
        again = open_session(proxy, sessions[0].key)
        assert {u for u, _ in wait_routes(run_dir, [again.key], pages=2)[again.key]["page"]} == \
            {table[again.key]["page"][0][0]}

        # Kill the process that served the first session, by its PID file.
        victim = table[sessions[0].key]["page"][0][0]
        victim_port = victim.rsplit(":", 1)[1]
        pid = int((run_dir / "pids" / f"app-{victim_port}.pid").read_text())
        os.kill(pid, signal.SIGKILL)
        for _ in range(100):
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                break
            if Path(f"/proc/{pid}/status").exists() and "zombie" in \
                    Path(f"/proc/{pid}/status").read_text():
                break
            time.sleep(0.05)
        status = _run("status", env=env)
        assert status.returncode != 0 and re.search(rf"app-{victim_port}\s.*dead", status.stdout)
        survivor, = backends - {victim}

        # Browsers that were on the dead process (their cookie hashes to it) and new ones:
        # every page and its websocket now land, together, on the survivor.
        orphans = [s.key for s in sessions if table[s.key]["page"][0][0] == victim]
        after = [open_session(proxy, key) for key in orphans[:2]]
        after += [open_session(proxy) for _ in range(3)]
        table = wait_routes(run_dir, [s.key for s in after])
        for s in after:
            assert s.root_ids <= s.doc_root_ids
            assert table[s.key]["page"][-1] == (survivor, "200"), table[s.key]
            assert table[s.key]["ws"][-1] == (survivor, "101"), table[s.key]
    finally:
        stopped = _run("stop", env=env)
        for f in (run_dir / "logs" / "error.log", *run_dir.glob("app-*.log")):
            if f.exists() and ("Traceback" in f.read_text() or "[emerg]" in f.read_text()):
                print(f"--- {f.name}\n{f.read_text()[-3000:]}")
    assert stopped.returncode == 0, stopped.stderr
    nginx_log = (run_dir / "logs" / "error.log").read_text()
    assert not re.search(r"\[(emerg|alert|crit)\]", nginx_log), nginx_log[-3000:]
    assert not list((run_dir / "pids").glob("*.pid"))
    for f in run_dir.glob("app-*.log"):
        text = f.read_text()
        assert not re.search(r"Traceback|ERROR", text), f"{f.name}:\n{text[-3000:]}"


def test_another_script_behind_the_proxy(tmp_path):
    """KV_APP_SCRIPT serves another Panel script the same way (the classroom benchmark's
    minimal app with --processes): its page answers through nginx, without warmup.py."""
    proxy_port, app_port = _free_ports()
    run_dir = tmp_path / "run"
    env = {**os.environ, "KV_RUN_DIR": str(run_dir), "KV_APP_PORT": str(app_port),
           "NGINX_BIN": NGINX, "KV_START_TIMEOUT": "60",
           "KV_APP_SCRIPT": "benchmarks/minimal_app.py",
           "PANEL": f"{sys.executable} -m panel"}
    try:
        started = _run("start", "1", str(proxy_port), env=env)
        assert started.returncode == 0, started.stdout + started.stderr
        assert f"127.0.0.1:{proxy_port}/minimal_app" in started.stdout
        log = (run_dir / f"app-{app_port}.log").read_text()
        assert "warmup" not in log
        with urllib.request.urlopen(f"http://127.0.0.1:{proxy_port}/minimal_app",
                                    timeout=30) as r:
            assert r.status == 200 and "embed_items" in r.read().decode()
    finally:
        stopped = _run("stop", env=env)
        assert stopped.returncode == 0, stopped.stderr
    bad = _run("start", "1", str(proxy_port), env={**env, "KV_APP_SCRIPT": "nope.py"})
    assert bad.returncode != 0 and "no nope.py" in bad.stderr
    assert not list((run_dir / "pids").glob("*.pid"))
