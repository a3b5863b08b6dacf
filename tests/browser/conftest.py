"""Real-browser tests: Debian's headless Chromium, driven by pytest-playwright, against
`panel serve app.py` on 127.0.0.1 with threads enabled (as a classroom server runs)."""
import functools
import http.server
import os
import re
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts"
CHROMIUM = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")
CHROMIUM_FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--no-first-run",
                  "--disable-quic"]


def pytest_collection_modifyitems(config, items):
    if not Path(CHROMIUM).exists():
        raise pytest.UsageError(f"Chromium not found at {CHROMIUM}: `apt-get install -y chromium` "
                                "(or set CHROMIUM_PATH)")


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    return {**browser_type_launch_args, "executable_path": CHROMIUM, "args": CHROMIUM_FLAGS}


@pytest.fixture(scope="session")
def browser_context_args(browser_context_args):
    return {**browser_context_args, "viewport": {"width": 1280, "height": 900},
            "locale": "en-US"}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def served(env: dict | None = None, log_name: str = "server.log"):
    """`panel serve app.py` on a free port of 127.0.0.1, with threads (as a classroom server
    runs) and `env` added to the environment; yields the app's URL. On the way out it stops
    the server and fails if its log (test-artifacts/`log_name`) has an error."""
    ARTIFACTS.mkdir(exist_ok=True)
    port = _free_port()
    log_path = ARTIFACTS / log_name
    log = open(log_path, "w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "panel", "serve", "app.py", "--address", "127.0.0.1",
         "--port", str(port), "--allow-websocket-origin", f"127.0.0.1:{port}",
         "--websocket-compression-level", "1"],
        cwd=ROOT, stdout=log, stderr=subprocess.STDOUT,
        env={**os.environ, "KV_EXPLAINER_DEVICE": "cpu", "PYTHONUNBUFFERED": "1", **(env or {})})
    url = f"http://127.0.0.1:{port}/app"
    try:
        for _ in range(120):
            try:
                if urllib.request.urlopen(url, timeout=5).status == 200:
                    break
            except OSError:
                time.sleep(0.5)
        else:
            raise RuntimeError(f"panel serve did not answer: see test-artifacts/{log_name}")
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()
    text = without_closed_sockets(log_path.read_text(errors="replace"))
    bad = [l for l in text.splitlines()
           if re.search(r"Traceback|ERROR|Exception|W-\d{4}", l)]
    assert bad == [], "server log has errors:\n" + "\n".join(bad[:20])


@pytest.fixture(scope="session")
def server():
    with served() as url:
        yield url


CLOSED = {"tornado.websocket.WebSocketClosedError", "tornado.iostream.StreamClosedError"}


def without_closed_sockets(log: str) -> str:
    """The log minus tracebacks whose only exceptions are a websocket the browser had already
    closed (a test moves on while the server still writes to the old page): Tornado's noise,
    not the app's error. Any other exception in the chain keeps the whole block."""
    out, block = [], []
    stamp = re.compile(r"^\d{4}-\d\d-\d\d ")
    for line in log.splitlines():
        if block and stamp.match(line):
            raised = {l.split(":")[0].strip() for l in block
                      if re.match(r"^[A-Za-z_][\w.]*(Error|Exception)\b", l)}
            if not raised or not raised <= CLOSED:
                out += block
            block = []
        if block or line.startswith("Traceback"):
            block.append(line)
        else:
            out.append(line)
    if block:
        out += block
    return "\n".join(out)


@pytest.fixture
def app(page, server):
    """A page with its console watched: any error fails the test."""
    errors = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))

    def open_(query: str = ""):
        page.goto(server + query)
        page.wait_for_selector("h1, .embed-line, .present-bar", timeout=60_000)   # presenting: no h1
        page.wait_for_function("() => window.Bokeh && Bokeh.documents.length > 0")
        return page

    yield open_
    assert errors == [], errors


# -- the tests' own JavaScript ------------------------------------------------------------------

TEST_JS = Path(__file__).resolve().parent / "js"


def kvt_scripts() -> list[str]:
    """The tests' own JavaScript (tests/browser/js/*.js): each file defines `KVT.<its Python
    module>`, the functions a test there runs by name. Each script makes `KVT` if it is not
    there yet (so that they run in any order) and names its file in an error."""
    return [f"globalThis.KVT = globalThis.KVT || {{}};\n{p.read_text(encoding='utf-8')}\n"
            f"//# sourceURL=tests/browser/js/{p.name}\n" for p in sorted(TEST_JS.glob("*.js"))]


def path_script() -> str:
    """steps/ui/js/draw/path.js as `KV["draw/path.js"]` in a page that has not loaded the
    modules one by one (the served app joins them into one bundle that names none): the
    tests' check of a drawing (js_units.js `crossings`) reads a line's points with it. The
    module imports nothing; its `export`s become the object's functions."""
    import re
    src = (ROOT / "steps" / "ui" / "js" / "draw" / "path.js").read_text(encoding="utf-8")
    names = re.findall(r"^export function (\w+)", src, flags=re.M)
    assert names and "import " not in src, "path.js: expected functions that import nothing"
    body = re.sub(r"^export ", "", src, flags=re.M)
    return ("globalThis.KV = globalThis.KV || {};\n"
            f"globalThis.KV['draw/path.js'] = globalThis.KV['draw/path.js'] || (() => {{\n{body}\n"
            f"return {{ {', '.join(names)} }};\n}})();\n//# sourceURL=steps/ui/js/draw/path.js\n")


@pytest.fixture
def context(context):
    """pytest-playwright's browser context, with the tests' JavaScript in every page it opens
    (the served app, a course page that embeds it, a speaker view's second window) and the
    module it borrows from the page's (path_script)."""
    context.add_init_script(script=path_script())
    for script in kvt_scripts():
        context.add_init_script(script=script)
    yield context


# -- the page's JavaScript without a server (the JS unit tests) ---------------------------------

PAGE = ("<!doctype html><html><head><meta charset='utf-8'></head><body>"
        "<div id='root' style='width:760px'></div></body></html>")


@contextmanager
def bundle_page(browser, viewport=(1280, 900), css=True):
    """A page with every module of steps/ui/js loaded (`globalThis.KV[path]`), the tests'
    JavaScript (`KVT`: kvt_scripts) and, with `css`, the page's stylesheet as the app joins it
    (labels at the sizes learners see); no error while loading (a script that does not parse
    fails here)."""
    from steps.ui import bundle
    ctx = browser.new_context(viewport={"width": viewport[0], "height": viewport[1]})
    page = ctx.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.set_content(PAGE)
    if css:
        page.add_style_tag(content=bundle.css_source())
    page.add_script_tag(content=bundle.source(exposing=True), type="module")
    page.wait_for_function("() => globalThis.KV !== undefined")
    for script in kvt_scripts():
        page.add_script_tag(content=script)
    assert errors == []
    try:
        yield page
    finally:
        ctx.close()


@pytest.fixture(scope="module")
def kv(browser):
    with bundle_page(browser) as page:
        yield page


@pytest.fixture(scope="module")
def course_site():
    """assets/ served from a second local origin: the course page that embeds the app."""
    handler = functools.partial(http.server.SimpleHTTPRequestHandler,
                                directory=str(ROOT / "assets"))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://localhost:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()
