"""A classroom against one `panel serve`: N students arrive on deep links and move controls
while one real Chromium user measures what a person sees. Prints one table.

    python benchmarks/classroom.py [--students 100] [--arrival 10] [--duration 60]
                                   [--soak SECONDS] [--json out.json] [--apps app minimal]
                                   [--processes N]

For each app in turn (app.py, then benchmarks/minimal_app.py as the yardstick, never at the
same time) it starts `python -m panel serve SCRIPT --address 127.0.0.1 --port P
--allow-websocket-origin 127.0.0.1:P --websocket-compression-level 1` (plus
`--setup warmup.py` for app.py when that file exists), output to
test-artifacts/classroom/<app>-server.log, times its start until /liveness answers (the
--setup warm-up included: with it, a first start with an empty warm-up cache, cold, which is
stopped, then a second that reads the cache, as a restart would: steps/warmcache.py; the
class runs on the second), and then:

1. warm-up: one visit per step (sequential), so that first-visit caches are not counted
   per session; the first visit's time is reported as the first page after server start;
2. the Chromium user alone, on each of SLIDER_STEPS (steps 4 and 5): first slider -> a number
   card's text changes, timed in the page from the key press, SLIDER_MOVES (30) moves; and the page's
   redraws per move, from its own counters (steps/ui/js/page.js `window.kvExplainerStats`:
   flushes = page redraws, one per server message that changed something; regions drawn
   again; figure draws), counted from the move until the server's reply has been drawn and
   the counters stay unchanged for REDRAW_QUIET_MS: per slider move, and on REDRAW_QUERY
   (REDRAW_STEP, a played step) per Step forward and per language switch (en -> pl -> en ...),
   REDRAW_MOVES each; the median of each kind is reported (a page without the counters, the
   minimal app's: n/a). Then, with no session left, the server's CPU at rest and its memory
   before;
3. arrival: N students within `--arrival` s, each on `?step=S&lang=L` (S: any step of
   steps/registry.py, L in en/id/pl/nl). A student is a protocol-level client (no rendering, so
   no client CPU beyond the protocol): GET the page (the server builds the session before it
   answers; the page carries the session token), open the websocket with subprotocols ["bokeh",
   token] offering permessage-deflate (as browsers do), ACK, PULL-DOC-REQ -> PULL-DOC-REPLY
   (its models are counted), then `document_ready` as BokehJS sends it (Panel holds updates
   and runs onload callbacks until then). The page is one component (steps/ui/page.py
   `Page`) whose data model carries the state (steps/ui/state.py): the student reads its
   controls from `controls` and `values`, the language from `shell.language` and the stepper
   from `shell.nav`, and follows the server's changes of those attributes;
4. interaction, `--duration` s (longer if the Chromium user is not done yet): every student
   waits 1-2 s (and for its page to be quiet), then moves: mostly a slider of its step or
   another control (a select or a row of options), sometimes the language or the stepper.
   Each move is the one component message the page's JavaScript sends (`send_msg`: a
   `data_event`): {"set": name, "value": v, "seq": n}, {"lang": code} or {"goto": n}
   (steps/shell.py `App.handle`, steps/ui/step.py `Step.handle`). Round trip = change sent ->
   the first PATCH-DOC of that session that changes what the move must change (`values`;
   the language: `shell`; a step change: `number` or `controls`, the new step on screen);
   settled = change sent -> last PATCH-DOC before its next move. On a page of widgets (the
   minimal app's slider) a move sets the widget's value attribute(s) and its round trip
   ends at the first PATCH-DOC. Meanwhile the Chromium user repeats the slider tests under
   load (their redraws go to the JSON only), then opens PLAY_QUERY, waits until the server
   has answered what the page sent while loading, presses Play and counts the server's
   websocket messages and bytes per frame the player advanced;
5. everyone leaves; memory vs before, AFTER_WAIT_S after the last student left (by then the
   server's unused-session check has discarded their sessions and the app has handed the
   freed memory back).

Server CPU is utime+stime of the server process (/proc/PID/stat) over the interaction phase
divided by the interactions sent (the Chromium user's page loads and Play are included in
that window); memory is VmRSS (a high-water mark: it rarely drops). Errors: server log lines
matching Traceback / ERROR / Exception / "isn't known", protocol ERROR replies, client
exceptions, sockets the server closed, Chromium console errors. Bytes from the server are
counted twice: as the messages hold them and on the wire (compressed; Tornado's count). A
failed student is counted, never fatal. Elements the browser user needs that a page does not
have are reported "n/a".

`--processes N` (N > 1) serves each app as N processes behind nginx with sticky sessions
(`deploy/run-local.sh start N`, the way past one process): students and the Chromium user go
through the proxy (a student keeps the sticky cookie for its websocket, as a browser does), the
warm-up visits every process directly, and CPU and memory are summed over the app processes.

`--soak S` replaces steps 2-4: students keep arriving and leaving (each stays 30-120 s) for
S seconds with `--students` seats; RSS is sampled every 60 s and memory growth is reported.

Targets (the PASS/FAIL column): 100 students arriving within 10 s all get their page, page
p95 <= 3 s and <= 2x the minimal app; interaction p95 <= 250 ms; Chromium slider -> number
p95 on steps 4 and 5 <= 100 ms and <= the minimal app's alone, and <= 1.3x the minimal app's
under load; 1 page redraw and <= 1 figure draw per slider move, Step forward and language
switch (median); 0 server messages per Play frame;
<= 1 MiB of server memory per session; 0 interactions without reply, 0 server tracebacks,
0 errors, 0 failed sessions; after everyone leaves, memory within 10 % of before. Soak (an
assumption of this script): RSS at the end within 10 % of the first sample.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import random
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable

from tornado.httpclient import AsyncHTTPClient, HTTPRequest
from tornado.websocket import websocket_connect

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from steps.registry import NUMBERS  # noqa: E402  (light: the step table, no Panel or torch)

# -- what the browser user looks for (adapt here when the page changes) --------------------------
SLIDER_ROLE = "slider"                                  # page.get_by_role(...).first
METRIC_SELECTOR = "[data-metric] .metric-value"         # number cards (timed: the first change)
PLAY_BUTTON_SELECTOR = ".player-play button"
PLAY_POSITION_SELECTORS = (".player-pos", '[data-metric="seq_len"] .metric-value')
SLIDER_STEPS = (4, 5)        # steps whose first slider changes a number card at once (step 4's
                             # prompt: the prefill cards; step 5's context: the KV cache cards;
                             # step 2 shows "?" until its question is answered)
PLAY_QUERY = "?step=1"
STEP_NEXT_SELECTOR = ".player-next button"    # Step forward (redraws per move)
LANGUAGE_SELECTOR = "#kv-lang"                 # the title bar's language select
REDRAW_STEP = 1                   # a played step: Step forward and the language switch on it
REDRAW_QUERY = f"?step={REDRAW_STEP}&lang=en"
REDRAW_LANGS = ("pl", "en")       # the language moves, in turn (en -> pl -> en -> ...)
CHROMIUM_FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--no-first-run",
                  "--disable-quic"]

# -- what the students do --------------------------------------------------------------------------
STEPS = NUMBERS            # every step (steps/registry.py); not the key-ideas page
LANGS = ("en", "id", "pl", "nl")
STEP_SHARE = 0.10          # of moves: change the step with the stepper
LANGUAGE_SHARE = 0.15      # of moves: switch the language
THINK_S = (1.0, 2.0)       # pause between a reply and the next move
QUIET_S = 0.3              # a page counts as settled after this long without a PATCH-DOC
SOAK_STAY_S = (30.0, 120.0)
SOAK_REJOIN_S = (0.0, 5.0)
SOAK_SAMPLE_S = 60.0

# -- timeouts and server settings ----------------------------------------------------------------
SERVER_START_TIMEOUT_S = 600.0   # --setup measures the live model first
PAGE_TIMEOUT_S = 120.0
CONNECT_TIMEOUT_S = 30.0
PULL_TIMEOUT_S = 60.0
REPLY_TIMEOUT_S = 15.0
QUIET_MAX_WAIT_S = 10.0
CLOSE_TIMEOUT_S = 5.0
SESSION_LIFETIME_MS = 15_000   # Bokeh's default: a session may wait this long for its socket
CHECK_UNUSED_MS = 1_000
DISCARD_WAIT_S = (SESSION_LIFETIME_MS + 2 * CHECK_UNUSED_MS) / 1000 + 2
AFTER_WAIT_S = 60.0            # "after everyone left": RSS this long after the last student left
AFTER_SAMPLE_S = 5.0           # (sampled meanwhile: the notes show how it fell)
REST_WINDOW_S = 5.0            # server CPU with no sessions, measured before the students come
CHROMIUM_EXTRA_S = 120.0       # the load goes on at most this long for an unfinished browser
BROWSER_TIMEOUT_MS = 60_000
SLIDER_MOVES = 30           # a p95 of 10 is their second-highest: too coarse for two apps ms apart
SLIDER_GIVE_UP = 2           # moves in a row that changed no number: report n/a
SLIDER_WAIT_MS = 10_000
REDRAW_MOVES = 5             # Step forward and language moves whose redraws are counted
REDRAW_QUIET_MS = 300        # a move's redraws end when the page's counters stay this long
REDRAW_QUIET_MAX_MS = 10_000 # (a page that never goes quiet: the wait ends after this long)
PLAY_WINDOW_S = 10.0
PLAY_QUIET_WAIT_S = 30.0     # before Play: wait this long at most for answers to what the page sent
PLAY_SAMPLES = 3             # server messages during Play shown in the notes
PLAY_SAMPLE_CHARS = 160
MAX_WS_MESSAGE_BYTES = 256 * 1024 * 1024

TOKEN_RE = re.compile(r'"token":\s*"([^"]+)"')
MSGTYPE_RE = re.compile(r'"msgtype":\s*"([^"]+)"')
LOG_ERROR_RE = re.compile(r"Traceback|ERROR|Exception|isn't known")
MIB = 1024 * 1024


@dataclass(frozen=True)
class AppSpec:
    """One app to load: its script, the queries of its warm-up visits, its --setup script."""
    key: str
    label: str
    script: str
    warm_queries: tuple[str, ...]
    setup_script: str | None = None


APPS = {
    "app": AppSpec("app", "this app", "app.py",
                   tuple(f"?step={s}&lang=en" for s in STEPS), "warmup.py"),
    "minimal": AppSpec("minimal", "minimal", "benchmarks/minimal_app.py", ("?step=1&lang=en",)),
}


# -- the server --------------------------------------------------------------------------------------

def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def process_cpu_s(pid: int) -> float:
    """utime + stime of a process, all threads, in seconds."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def process_rss_bytes(pid: int) -> int:
    """Resident memory of a process (VmRSS)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise RuntimeError("no VmRSS")


def log_error_lines(path: Path) -> list[str]:
    """Lines of a server log that report an error."""
    text = path.read_text(errors="replace") if path.exists() else ""
    return [line for line in text.splitlines() if LOG_ERROR_RE.search(line)]


class PanelServer:
    """`python -m panel serve` on 127.0.0.1 with its output in a log file; a context manager
    that waits until it answers and always stops it (by its PID)."""

    def __init__(self, spec: AppSpec, log_path: Path):
        self.spec = spec
        self.port = free_port()
        self.log_path = log_path
        self.app_path = "/" + Path(spec.script).stem
        self.setup_used = bool(spec.setup_script and (ROOT / spec.setup_script).exists())
        self.ready_s: float | None = None     # start -> it answers (with --setup: warmed)
        self._proc: subprocess.Popen | None = None
        self._log = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def pid(self) -> int:
        return self._proc.pid

    def command(self) -> list[str]:
        cmd = [sys.executable, "-m", "panel", "serve", self.spec.script,
               "--address", "127.0.0.1", "--port", str(self.port),
               "--allow-websocket-origin", f"127.0.0.1:{self.port}",
               "--websocket-compression-level", "1",
               "--liveness", "--unused-session-lifetime", str(SESSION_LIFETIME_MS),
               "--check-unused-sessions", str(CHECK_UNUSED_MS)]
        if self.setup_used:
            cmd += ["--setup", self.spec.setup_script]
        return cmd

    def __enter__(self) -> "PanelServer":
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        self._log = open(self.log_path, "w")
        t0 = time.perf_counter()
        self._proc = subprocess.Popen(self.command(), cwd=ROOT, stdout=self._log,
                                      stderr=subprocess.STDOUT,
                                      env={**os.environ, "PYTHONUNBUFFERED": "1"})
        try:
            self._wait_ready()
        except BaseException:
            self.stop()
            raise
        self.ready_s = time.perf_counter() - t0
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    def _wait_ready(self) -> None:
        """Poll /liveness (answers without building a session) until the server is up."""
        deadline = time.monotonic() + SERVER_START_TIMEOUT_S
        while time.monotonic() < deadline:
            if self._proc.poll() is not None:
                raise RuntimeError(f"panel serve exited ({self._proc.returncode}): see "
                                   f"{self.log_path}")
            try:
                with urllib.request.urlopen(self.base_url + "/liveness", timeout=5) as r:
                    if r.status == 200:
                        return
            except OSError:
                time.sleep(0.5)
        raise RuntimeError(f"panel serve did not answer within {SERVER_START_TIMEOUT_S:.0f} s")

    def stop(self) -> None:
        """Terminate the server (kill it if it does not exit) and close its log."""
        if self._proc is not None and self._proc.poll() is None:
            self._proc.terminate()
            try:
                self._proc.wait(15)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()
        if self._log is not None:
            self._log.close()
            self._log = None

    def cpu_s(self) -> float:
        return process_cpu_s(self.pid)

    def rss_bytes(self) -> int:
        return process_rss_bytes(self.pid)

    def log_errors(self) -> list[str]:
        return log_error_lines(self.log_path)


class ProxiedServers:
    """`deploy/run-local.sh start N`: N `panel serve` processes behind nginx with sticky
    sessions, on 127.0.0.1 (the same interface as PanelServer). CPU and memory are the sums
    over the app processes (nginx's own are left out: a few MiB); the log is every app's."""

    def __init__(self, spec: AppSpec, log_path: Path, processes: int):
        self.spec = spec
        self.processes = processes
        self.port = free_port()
        self.app_port = free_port()
        self.run_dir = log_path.parent / f"{spec.key}-run"
        self.log_path = log_path
        self.app_path = "/" + Path(spec.script).stem
        self.setup_used = bool(spec.setup_script and (ROOT / spec.setup_script).exists())
        self.ready_s: float | None = None     # start -> it answers (with --setup: warmed)
        self._started = False

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def _env(self) -> dict:
        return {**os.environ, "KV_RUN_DIR": str(self.run_dir), "KV_APP_PORT": str(self.app_port),
                "KV_APP_SCRIPT": self.spec.script, "PANEL": f"{sys.executable} -m panel",
                "KV_START_TIMEOUT": str(int(SERVER_START_TIMEOUT_S))}

    def __enter__(self) -> "ProxiedServers":
        # the app ports app_port .. app_port+N-1 must be free too: probe them first
        for i in range(self.processes):
            with socket.socket() as s:
                s.bind(("127.0.0.1", self.app_port + i))
        self.run_dir.mkdir(parents=True, exist_ok=True)
        self._started = True
        t0 = time.perf_counter()
        out = subprocess.run(["bash", str(ROOT / "deploy" / "run-local.sh"), "start",
                              str(self.processes), str(self.port)], cwd=ROOT, env=self._env(),
                             capture_output=True, text=True)
        if out.returncode != 0:
            self.stop()
            raise RuntimeError(f"run-local.sh start failed: {out.stderr[-2000:]}")
        self.ready_s = time.perf_counter() - t0
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    def stop(self) -> None:
        if self._started:
            subprocess.run(["bash", str(ROOT / "deploy" / "run-local.sh"), "stop"], cwd=ROOT,
                           env=self._env(), capture_output=True, text=True)
            self._started = False
            logs = sorted(self.run_dir.glob("app-*.log"))
            self.log_path.write_text("".join(f"=== {p.name}\n{p.read_text(errors='replace')}"
                                             for p in logs))

    def pids(self) -> list[int]:
        return [int(p.read_text()) for p in sorted((self.run_dir / "pids").glob("app-*.pid"))]

    def direct(self) -> list:
        """Each app process as a target of its own (the warm-up visits every one)."""
        from types import SimpleNamespace
        return [SimpleNamespace(base_url=f"http://127.0.0.1:{self.app_port + i}",
                                port=self.app_port + i, app_path=self.app_path,
                                origin=self.base_url, spec=self.spec)
                for i in range(self.processes)]

    def cpu_s(self) -> float:
        return sum(process_cpu_s(pid) for pid in self.pids())

    def rss_bytes(self) -> int:
        return sum(process_rss_bytes(pid) for pid in self.pids())

    def log_errors(self) -> list[str]:
        return [line for p in sorted(self.run_dir.glob("app-*.log")) for line in log_error_lines(p)]


# -- the Bokeh protocol, client side ---------------------------------------------------------------

@dataclass
class BokehMessage:
    """One server message: its type, its content (JSON text), when it had fully arrived and
    its size on the wire (all frames)."""
    msgtype: str
    content: str
    received_at_s: float
    nbytes: int


async def read_message(ws) -> BokehMessage | None:
    """Read one message (header, metadata, content, then buffer pairs); None once closed."""
    header_text = await ws.read_message()
    if header_text is None:
        return None
    header = json.loads(header_text)
    metadata = await ws.read_message()
    content = await ws.read_message()
    if metadata is None or content is None:
        return None
    nbytes = len(header_text) + len(metadata) + len(content)   # Bokeh's JSON is ASCII
    for _ in range(2 * header.get("num_buffers", 0)):
        part = await ws.read_message()
        if part is None:
            return None
        nbytes += len(part)
    return BokehMessage(header["msgtype"], content, time.perf_counter(), nbytes)


def wire_bytes_in(ws) -> int:
    """Bytes a websocket client has received on the wire (compressed, with frame headers):
    Tornado's own count, read only."""
    return getattr(getattr(ws, "protocol", None), "_wire_bytes_in", 0) or 0


_msg_ids = iter(range(1, 1 << 62))


async def send_message(ws, msgtype: str, content: dict) -> None:
    """Send one message as its three text frames: header, metadata, content."""
    header = {"msgid": f"c{next(_msg_ids)}", "msgtype": msgtype}
    for part in (json.dumps(header), "{}", json.dumps(content)):
        await ws.write_message(part)


@dataclass
class Control:
    """Something a student can move: a control of the Page (a slider, a choice or a row of
    options, by its name `key`), the page's language or its stepper, or a widget model of its
    own (the minimal app's slider, whose value attribute(s) a move changes)."""
    kind: str                       # slider, choice, language, stepper
    model_id: str                   # the model whose attributes the server changes
    value: Any
    attrs: tuple[str, ...] = ("value",)   # a widget's attributes a move sets
    start: float = 0
    end: float = 0
    step: float = 1
    options: list = field(default_factory=list)
    owner_id: str | None = None     # the component whose `data` the model is (gets messages)
    disabled: bool = False
    label: str = ""
    key: str | None = None          # a Page control's name (its `set` message names it)

    def update(self, attr: str, new) -> None:
        """Follow a change the server made to a widget model (a Page's controls are made
        again from its state instead: `PageModel.controls`)."""
        if attr in ("value", "active"):
            self.value = new
        elif attr in ("start", "end", "step") and _is_number(new):
            setattr(self, attr, new)
        elif attr == "options" and isinstance(new, list):
            self.options = option_values(new)
        elif attr == "disabled":
            self.disabled = new is True
        elif attr == "label" and isinstance(new, str):
            self.label = new

    def usable(self) -> bool:
        """Whether a student can move it now."""
        if self.disabled:
            return False
        if self.kind == "slider":
            return self.end > self.start
        return any(o != self.value for o in self.options)


def model_defaults(doc: dict) -> dict[str, dict]:
    """Property defaults of the document's data-model types (attributes equal to their
    default are left out of a serialized object)."""
    return {d["name"]: {p["name"]: p.get("default") for p in d.get("properties", [])}
            for d in doc.get("defs", []) if d.get("type") == "model"}


def iter_objects(node):
    """Every serialized model object ({"type": "object", "name", "id", ...}) in a JSON tree."""
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            if item.get("type") == "object" and "id" in item and "name" in item:
                yield item
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)


def count_models(doc: dict) -> int:
    """The models of a pulled document (each is serialized once in full, then by id)."""
    return len({o["id"] for o in iter_objects(doc)})


def _is_number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def option_values(options: list) -> list:
    """The values a Select-like model accepts: its options, or the first of each pair."""
    return [o[0] if isinstance(o, list) and o else o for o in options]


def decode(value):
    """A Bokeh-serialized value as plain data: maps ({"type": "map", "entries": [[k, v],
    ...]}) as dicts, at every depth."""
    if isinstance(value, dict):
        if value.get("type") == "map":
            return {k: decode(v) for k, v in value.get("entries", [])}
        return {k: decode(v) for k, v in value.items()}
    if isinstance(value, list):
        return [decode(v) for v in value]
    return value


def page_part(value):
    """A part of the Page's state as plain data: the JSON text the page gets
    (steps/ui/page.py), "" for none; a Bokeh-serialized value as it is (`decode`)."""
    if isinstance(value, str):
        return json.loads(value) if value else None
    return decode(value)


PAGE_ATTRS = ("shell", "controls", "values", "number")   # the Page's state a student follows
ANSWERED_BY = {"step": {"number", "controls"},             # a move's answer changes one of these
               "language": {"shell"}, "slider": {"values"}, "choice": {"values"}}


@dataclass
class PageModel:
    """The session's page (steps/ui/page.py `Page`, a JSComponent): the server changes the
    attributes of its data model (`model_id`); the browser sends every move as one message
    of the component (`owner_id`). `state` holds the parts a student follows, decoded."""
    model_id: str
    owner_id: str | None
    state: dict

    def apply(self, attr: str, new) -> bool:
        """Take a change the server made; True if it is one of PAGE_ATTRS."""
        if attr not in PAGE_ATTRS:
            return False
        self.state[attr] = page_part(decode(new))
        return True

    def controls(self) -> list[Control]:
        return classify_controls(self)


def classify_controls(page: PageModel) -> list[Control]:
    """What a student can move on the page, from its state: per entry of `controls` a choice
    (select or radio, hidden ones too: step 6's tabs are its radio "part"), or a slider
    (range), whose value is in `values` (text fields are left alone); the language
    (shell.language) and the stepper (shell.nav)."""
    st = page.state
    values = st.get("values") if isinstance(st.get("values"), dict) else {}
    found = []
    common = dict(model_id=page.model_id, owner_id=page.owner_id)
    for entry in st.get("controls") or []:
        if not isinstance(entry, dict):
            continue
        key, kind = entry.get("name"), entry.get("kind")
        if key not in values:
            continue
        label = str(entry.get("label") or key)
        if kind in ("select", "radio"):
            found.append(Control("choice", value=values[key], key=key, label=label,
                                 options=option_values(entry.get("options") or []), **common))
        elif kind == "range" and all(_is_number(entry.get(k)) for k in ("start", "end")):
            step = entry["step"] if _is_number(entry.get("step")) and entry["step"] > 0 else 1
            found.append(Control("slider", value=values[key], key=key, label=label,
                                 start=entry["start"], end=entry["end"], step=step, **common))
    shell = st.get("shell") if isinstance(st.get("shell"), dict) else {}
    language = shell.get("language")
    if isinstance(language, dict) and language.get("options"):
        found.append(Control("language", value=language.get("value"),
                             options=option_values(language["options"]),
                             label=str(language.get("label") or "language"), **common))
    nav = shell.get("nav")
    if isinstance(nav, dict) and isinstance(nav.get("active"), int) \
            and isinstance(nav.get("items"), list) and len(nav["items"]) > 1:
        found.append(Control("stepper", value=nav["active"],
                             options=list(range(len(nav["items"]))),
                             label=str(nav.get("label") or "steps"), **common))
    return found


def classify(obj: dict, defaults: dict[str, dict]) -> Control | None:
    """The control a widget model is (a slider or a Select), or None."""
    name = obj["name"]
    attrs = {**defaults.get(name, {}), **obj.get("attributes", {})}
    if "value" not in attrs:
        return None
    common = {"disabled": attrs.get("disabled") is True,
              "label": str(attrs.get("label") or attrs.get("title") or name)}
    options = attrs.get("options")
    if isinstance(options, list) and len(options) > 1:
        values = option_values(options)
        if all(isinstance(v, (str, int, float)) for v in values):
            return Control("choice", obj["id"], attrs["value"], options=values, **common)
        return None
    if ("Slider" in name and _is_number(attrs["value"]) and _is_number(attrs.get("start"))
            and _is_number(attrs.get("end"))):
        sent = ("value", "value_throttled") if "value_throttled" in attrs else ("value",)
        step = attrs.get("step") if _is_number(attrs.get("step")) and attrs["step"] > 0 else 1
        return Control("slider", obj["id"], attrs["value"], sent, attrs["start"], attrs["end"],
                       step, **common)
    return None


def find_controls(node, defaults: dict[str, dict]) -> tuple[PageModel | None, list[Control]]:
    """The Page of a pulled document (the object whose attributes include `shell` and
    `controls` or `values`, defaults filled in), with the id of the component whose `data`
    it is; and the controls of the other models (widgets: the minimal app's slider)."""
    objects = list(iter_objects(node))
    owners = {o["attributes"]["data"]["id"]: o["id"] for o in objects
              if isinstance(o.get("attributes", {}).get("data"), dict)
              and "id" in o["attributes"]["data"]}
    page, widgets, seen = None, [], set()
    for obj in objects:
        if obj["id"] in seen:
            continue
        seen.add(obj["id"])
        attrs = {**defaults.get(obj["name"], {}), **obj.get("attributes", {})}
        if page is None and "shell" in attrs and ("controls" in attrs or "values" in attrs):
            page = PageModel(obj["id"], owners.get(obj["id"]),
                             {k: page_part(attrs.get(k)) for k in PAGE_ATTRS})
            continue
        control = classify(obj, defaults)
        if control is not None:
            control.owner_id = owners.get(obj["id"])
            widgets.append(control)
    return page, widgets


def bokeh_event(name: str, entries: list) -> dict:
    """A PATCH-DOC content carrying one BokehJS event (what a browser sends for
    `document_ready` or a component's `data_event`)."""
    return {"events": [{"kind": "MessageSent", "msg_type": "bokeh_event",
                        "msg_data": {"type": "event", "name": name,
                                     "values": {"type": "map", "entries": entries}}}]}


def page_message(kind: str, control: Control, new, seq: int) -> dict:
    """What the page's JavaScript sends for a move (steps/shell.py `App.handle`,
    steps/ui/step.py `Step.handle`): a control's {"set", "value", "seq"}, the language's
    {"lang"}, a stepper button's {"goto": n} (1-based)."""
    if kind == "language":
        return {"lang": new}
    if kind == "step":
        return {"goto": new + 1}
    return {"set": control.key, "value": new, "seq": seq}


def change_messages(kind: str, control: Control, new, seq: int = 0) -> list[dict]:
    """The PATCH-DOC contents a browser sends for a move. On the Page, every move is one
    component message (`model.send_msg(msg)`: a `data_event` of the component); a widget's
    move is a change of its value attribute(s)."""
    if control.owner_id is not None and (control.key is not None
                                         or kind in ("language", "step")):
        msg = page_message(kind, control, new, seq)
        data = {"type": "map", "entries": [[k, v] for k, v in msg.items()]}
        return [bokeh_event("data_event", [["model", {"id": control.owner_id}],
                                           ["data", data]])]
    return [{"events": [{"kind": "ModelChanged", "model": {"id": control.model_id}, "attr": a,
                         "new": new} for a in control.attrs]}]


@dataclass
class Interaction:
    """One move of a student and how long its page took to answer."""
    kind: str
    label: str                       # the control's label (as the page was when moved)
    sent_at_s: float
    first_s: float | None = None     # change sent -> first PATCH-DOC (step: with the new step)
    settled_s: float | None = None   # change sent -> last PATCH-DOC before the next move


async def wait_event(event: asyncio.Event, timeout_s: float) -> bool:
    """Sleep up to `timeout_s`; True at once if `event` is (or becomes) set."""
    if timeout_s <= 0:
        return event.is_set()
    try:
        await asyncio.wait_for(event.wait(), timeout_s)
        return True
    except asyncio.TimeoutError:
        return False


class Student:
    """One simulated student: a page request and a Bokeh websocket, no rendering."""

    def __init__(self, server: PanelServer, query: str, rng: random.Random):
        self.query = query
        self.page_url = server.base_url + server.app_path + query
        self.ws_url = f"ws://127.0.0.1:{server.port}{server.app_path}/ws"
        self.origin = getattr(server, "origin", server.base_url)
        self.rng = rng
        self.page_s: float | None = None
        self.pull_s: float | None = None
        self.failure: str | None = None
        self.errors: list[str] = []
        self.interactions: list[Interaction] = []
        self.page: PageModel | None = None      # the app's Page (None: a page of widgets)
        self.widgets: list[Control] = []        # controls of widget models (the minimal app)
        self.doc_bytes: int | None = None
        self.doc_wire_bytes: int | None = None  # the same on the wire (permessage-deflate)
        self.models: int | None = None          # models in the pulled document
        self.cookie = ""
        self.received_bytes = 0
        self.received_wire_bytes = 0
        self._ws = None
        self._reader: asyncio.Task | None = None
        self._pending: asyncio.Future | None = None
        self._last_patch_at_s = 0.0
        self._wait_for: set[str] | None = None  # a move's answer changes one of these Page attrs
        self._seq = 0                           # the page's `seq`: one more per control change
        self._closing = False
        self.closed = False
        self.gave_up = False

    # -- arriving --------------------------------------------------------------------------------
    async def open(self) -> bool:
        """GET the page, then open the websocket and pull the document. Sets `failure`."""
        t0 = time.perf_counter()
        try:
            response = await AsyncHTTPClient().fetch(
                self.page_url, request_timeout=PAGE_TIMEOUT_S, connect_timeout=CONNECT_TIMEOUT_S,
                raise_error=False)
        except Exception as e:  # noqa: BLE001  (a failed student is counted, not fatal)
            self.failure = f"no page: {type(e).__name__}: {e}"
            return False
        if response.code != 200:
            self.failure = f"no page: HTTP {response.code}"
            return False
        match = TOKEN_RE.search(response.body.decode("utf-8", "replace"))
        if match is None:
            self.failure = "no page: no session token in the HTML"
            return False
        self.page_s = time.perf_counter() - t0
        # behind nginx (--processes): the sticky cookie takes the websocket to the process
        # that built the session, as a browser's cookie jar would
        self.cookie = "; ".join(c.split(";", 1)[0]
                                for c in response.headers.get_list("Set-Cookie"))
        t1 = time.perf_counter()
        try:
            doc = await asyncio.wait_for(self._pull(match.group(1)),
                                         CONNECT_TIMEOUT_S + PULL_TIMEOUT_S)
        except Exception as e:  # noqa: BLE001
            self.failure = f"no doc: {type(e).__name__}: {e}"
            self._close_socket()
            return False
        self.pull_s = time.perf_counter() - t1
        self.models = count_models(doc)
        self.page, self.widgets = find_controls(doc, model_defaults(doc))
        self._reader = asyncio.create_task(self._read_loop())
        return True

    async def _pull(self, token: str) -> dict:
        """Websocket with the token as subprotocol, ACK, PULL-DOC-REQ -> the document."""
        headers = {"Origin": self.origin, **({"Cookie": self.cookie} if self.cookie else {})}
        request = HTTPRequest(self.ws_url, headers=headers,
                              connect_timeout=CONNECT_TIMEOUT_S)
        self._ws = await websocket_connect(request, subprotocols=["bokeh", token],
                                           max_message_size=MAX_WS_MESSAGE_BYTES,
                                           compression_options={})   # as browsers offer
        self._ws.protocol.set_nodelay(True)     # as browsers do: no Nagle delay on our frames
        ack = await read_message(self._ws)
        if ack is None or ack.msgtype != "ACK":
            raise RuntimeError(f"expected ACK, got {ack.msgtype if ack else 'a closed socket'}")
        wire0_b = wire_bytes_in(self._ws)
        await send_message(self._ws, "PULL-DOC-REQ", {})
        while True:
            reply = await read_message(self._ws)
            if reply is None:
                raise RuntimeError("socket closed before PULL-DOC-REPLY")
            if reply.msgtype == "PULL-DOC-REPLY":
                self.doc_bytes = reply.nbytes
                self.received_wire_bytes = wire_bytes_in(self._ws)
                self.doc_wire_bytes = self.received_wire_bytes - wire0_b
                # BokehJS reports the rendered document; Panel holds updates (and runs its
                # onload callbacks) until then
                await send_message(self._ws, "PATCH-DOC", bokeh_event("document_ready", []))
                return json.loads(reply.content)["doc"]
            if reply.msgtype == "ERROR":
                raise RuntimeError(json.loads(reply.content).get("text", "ERROR"))

    @property
    def controls(self) -> list[Control]:
        """What the student can move now (the Page's, made from its latest state)."""
        return (self.page.controls() if self.page is not None else []) + self.widgets

    async def _read_loop(self) -> None:
        """Receive everything the server sends: time PATCH-DOCs, follow the page's state
        (a step change brings the new step's controls), record ERROR replies and a socket
        the server closed."""
        try:
            while True:
                msg = await read_message(self._ws)
                if msg is None:
                    break
                self.received_bytes += msg.nbytes
                self.received_wire_bytes = wire_bytes_in(self._ws) or self.received_wire_bytes
                if msg.msgtype == "PATCH-DOC":
                    self._last_patch_at_s = msg.received_at_s
                    changed = self._follow(msg.content)
                    if (self._pending is not None and not self._pending.done()
                            and (self._wait_for is None or changed & self._wait_for)):
                        self._pending.set_result(msg.received_at_s)
                elif msg.msgtype == "ERROR":
                    text = json.loads(msg.content).get("text", "")
                    self.errors.append(f"protocol ERROR: {text}")
                    if self._pending is not None and not self._pending.done():
                        self._pending.set_result(None)
            if not self._closing:
                self.errors.append("the server closed the websocket")
        except Exception as e:  # noqa: BLE001
            if not self._closing:
                self.errors.append(f"client: {type(e).__name__}: {e}")
        finally:
            self.closed = True
            if self._pending is not None and not self._pending.done():
                self._pending.set_result(None)

    def _follow(self, content: str) -> set[str]:
        """Apply the server's changes to the page's state and the widgets; returns the
        attributes changed. Parses the patch only when it concerns them."""
        widgets: dict[str, list[Control]] = {}
        for c in self.widgets:
            widgets.setdefault(c.model_id, []).append(c)
        ids = [*widgets, *([self.page.model_id] if self.page is not None else [])]
        if not any(f'"{model_id}"' in content for model_id in ids):
            return set()
        changed = set()
        for event in json.loads(content).get("events", []):
            if event.get("kind") != "ModelChanged":
                continue
            model_id, attr = (event.get("model") or {}).get("id"), event.get("attr")
            if self.page is not None and model_id == self.page.model_id:
                if self.page.apply(attr, event.get("new")):
                    changed.add(attr)
            for control in widgets.get(model_id, []):
                control.update(attr, event.get("new"))
                changed.add(attr)
        return changed

    # -- interacting -----------------------------------------------------------------------------
    async def run_interactions(self, stop: asyncio.Event, until_s: float = math.inf) -> None:
        """Move a control every 1-2 s (after the page went quiet) until `stop` or `until_s`."""
        while not self.closed and not self.gave_up:
            pause_s = min(self.rng.uniform(*THINK_S), until_s - time.perf_counter())
            if await wait_event(stop, pause_s) or time.perf_counter() >= until_s:
                break
            await self._wait_quiet(stop)
            if stop.is_set() or self.closed:
                break
            self._settle_last()
            await self._move()
        await self._wait_quiet(stop)
        self._settle_last()

    async def _wait_quiet(self, stop: asyncio.Event) -> None:
        """Wait until no PATCH-DOC came for QUIET_S (at most QUIET_MAX_WAIT_S)."""
        deadline = time.perf_counter() + QUIET_MAX_WAIT_S
        while not stop.is_set() and time.perf_counter() < deadline:
            quiet_for_s = time.perf_counter() - self._last_patch_at_s
            if quiet_for_s >= QUIET_S:
                return
            await asyncio.sleep(QUIET_S - quiet_for_s)

    def _settle_last(self) -> None:
        """The last move is settled: its last PATCH-DOC is the newest one."""
        if self.interactions and self.interactions[-1].first_s is not None:
            last = self.interactions[-1]
            last.settled_s = self._last_patch_at_s - last.sent_at_s

    def _choose(self) -> tuple[str, Control, Any] | None:
        """(kind of move, control, new value): mostly a slider of the step, sometimes the
        language or the step."""
        by_kind: dict[str, list[Control]] = {}
        for c in self.controls:
            if c.usable():
                by_kind.setdefault(c.kind, []).append(c)
        r = self.rng.random()
        wanted = ("stepper" if r < STEP_SHARE else
                  "language" if r < STEP_SHARE + LANGUAGE_SHARE else "slider")
        for kind in (wanted, "slider", "choice", "language"):
            if by_kind.get(kind):
                c = self.rng.choice(by_kind[kind])
                new = (self._slider_target(c) if kind == "slider" else
                       self.rng.choice([o for o in c.options if o != c.value]))
                return ("step" if kind == "stepper" else kind), c, new
        return None

    def _slider_target(self, c: Control) -> float:
        """A nudge of 1-3 steps from the current value, inside start..end."""
        def clamp(v):
            return min(c.end, max(c.start, v))
        delta = self.rng.choice((-3, -2, -1, 1, 2, 3)) * c.step
        target = clamp(c.value + delta)
        if target == c.value:
            target = clamp(c.value - delta)
        integral = all(isinstance(v, int) for v in (c.value, c.start, c.step))
        return int(round(target)) if integral else round(target, 10)

    async def _move(self) -> None:
        """Send one change and wait (up to REPLY_TIMEOUT_S) for its answer: on the Page, the
        first PATCH-DOC that changes what the move must change (ANSWERED_BY: a step change's
        is the new step on screen), so that a late live update is not taken for it; on a
        page of widgets, the first PATCH-DOC."""
        choice = self._choose()
        if choice is None:
            self.errors.append(f"client: no control to move on the page {self.query}")
            self.gave_up = True
            return
        kind, control, new = choice
        if kind not in ("language", "step"):
            self._seq += 1
        messages = change_messages(kind, control, new, self._seq)
        control.value = new           # a widget's value; a Page's follows its `values`
        self._wait_for = ANSWERED_BY.get(kind) if control.key is not None or kind in (
            "language", "step") else None
        self._pending = asyncio.get_running_loop().create_future()
        move = Interaction(kind, control.label, time.perf_counter())
        self.interactions.append(move)
        try:
            for content in messages:
                await send_message(self._ws, "PATCH-DOC", content)
            first_at_s = await asyncio.wait_for(asyncio.shield(self._pending), REPLY_TIMEOUT_S)
        except asyncio.TimeoutError:
            return
        except Exception as e:  # noqa: BLE001
            self.errors.append(f"client: {type(e).__name__}: {e}")
            return
        finally:
            self._wait_for = None
        if first_at_s is not None:
            move.first_s = first_at_s - move.sent_at_s

    # -- leaving ---------------------------------------------------------------------------------
    def _close_socket(self) -> None:
        self._closing = True
        if self._ws is not None:
            self._ws.close()

    async def close(self) -> None:
        """Close the websocket and stop reading."""
        self._close_socket()
        if self._reader is not None:
            try:
                await asyncio.wait_for(self._reader, CLOSE_TIMEOUT_S)
            except (asyncio.TimeoutError, asyncio.CancelledError):
                self._reader.cancel()


def deep_link(rng: random.Random) -> str:
    return f"?step={rng.choice(STEPS)}&lang={rng.choice(LANGS)}"


# -- the Chromium user (runs in its own thread: Playwright's sync API) ----------------------------

# Arms a timer in the page: t0 at the next key press, t1 when the text of any number card
# changes. MutationObservers on every (shadow) root that holds cards time the change exactly;
# the wait below also compares all cards every 20 ms, for a root replaced as a whole.
ARM_JS = r"""(sel) => {
  const roots = [];
  const visit = (root) => {
    if (root.querySelector(sel)) roots.push(root);
    for (const el of root.querySelectorAll("*")) if (el.shadowRoot) visit(el.shadowRoot);
  };
  const allText = () => {
    roots.length = 0;
    visit(document);
    return roots.map(r => Array.from(r.querySelectorAll(sel), e => e.textContent).join("\u0001"))
                .join("\u0002");
  };
  const state = {t0: null, t1: null, obs: [], allText};
  state.before = allText();
  const changed = () => {
    if (state.t0 === null || state.t1 !== null) return;
    const now = roots.map(r => Array.from(r.querySelectorAll(sel), e => e.textContent)
                                    .join("\u0001")).join("\u0002");
    if (now !== state.before) {
      state.t1 = performance.now();
      state.obs.forEach(o => o.disconnect());
    }
  };
  for (const r of roots) {
    const o = new MutationObserver(changed);
    o.observe(r, {subtree: true, childList: true, characterData: true});
    state.obs.push(o);
  }
  window.addEventListener("keydown", () => { if (state.t0 === null) state.t0 = performance.now(); },
                          {capture: true, once: true});
  window.__classroom = state;
  return roots.length;
}"""

WAIT_JS = """async (timeoutMs) => {
  const s = window.__classroom;
  const end = performance.now() + timeoutMs;
  while (s.t1 === null && performance.now() < end) {
    await new Promise(r => setTimeout(r, 20));
    if (s.t1 === null && s.t0 !== null && s.allText() !== s.before) s.t1 = performance.now();
  }
  s.obs.forEach(o => o.disconnect());
  return s.t1 === null ? null : s.t1 - s.t0;
}"""

SLIDER_STATE_JS = """el => [Number(el.getAttribute('aria-valuenow') ?? el.value),
                           Number(el.getAttribute('aria-valuemax') ?? el.max)]"""

# the page's own counters (steps/ui/js/page.js `kvExplainerStats`): flushes (page redraws, one
# per server message that changed something), regions drawn again, figure draws; null on a
# page without them (the minimal app)
STATS_JS = """() => { const s = window.kvExplainerStats;
  return s ? {flushes: s.flushes, regions: s.regions, figures: s.figures} : null; }"""

# After a move: wait for the page's first redraw since `before` (the server's reply; at most
# replyMs), then until the counters stay unchanged for quietMs (at most maxMs more). With
# `before` null, only the quiet wait. Gives the counters then, whether a redraw came and
# whether the page went quiet.
SETTLE_JS = """async ([before, quietMs, replyMs, maxMs]) => {
  const read = () => { const s = window.kvExplainerStats;
    return s ? {flushes: s.flushes, regions: s.regions, figures: s.figures} : null; };
  const same = (a, b) => a.flushes === b.flushes && a.regions === b.regions &&
                         a.figures === b.figures;
  const tick = () => new Promise(r => setTimeout(r, 10));
  let now = read();
  if (!now) return null;
  const t0 = performance.now();
  while (before && now.flushes === before.flushes && performance.now() - t0 < replyMs) {
    await tick();
    now = read();
  }
  const replied = !before || now.flushes !== before.flushes;
  let last = now, since = performance.now();
  const end = since + maxMs;
  while (performance.now() - since < quietMs && performance.now() < end) {
    await tick();
    now = read();
    if (!same(now, last)) { last = now; since = performance.now(); }
  }
  return {now, replied, quiet: performance.now() - since >= quietMs};
}"""


def new_page(browser, errors: list[str]):
    """A new page whose console errors go to `errors`."""
    page = browser.new_page(viewport={"width": 1280, "height": 900}, locale="en-US")
    page.on("console", lambda m: errors.append(f"browser console: {m.text}")
            if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(f"browser page error: {e}"))
    return page


def goto_ready(page, url: str) -> None:
    """Open `url` and wait until the first number card is there."""
    page.goto(url, timeout=BROWSER_TIMEOUT_MS * 2)
    page.locator(METRIC_SELECTOR).first.wait_for(timeout=BROWSER_TIMEOUT_MS)


def page_stats(page) -> dict | None:
    """The page's redraw counters now (None: the page keeps none)."""
    return page.evaluate(STATS_JS)


def wait_quiet(page) -> None:
    """Wait until the page's redraw counters stay unchanged for REDRAW_QUIET_MS (a page
    without them: at once)."""
    page.evaluate(SETTLE_JS, [None, REDRAW_QUIET_MS, 0, REDRAW_QUIET_MAX_MS])


def redraws_since(page, before: dict | None) -> dict | None:
    """A move's redraws: wait for the page's first redraw after the counters `before` (read
    just before the move) and until it is quiet again; the counters' growth meanwhile, with
    whether a redraw came at all (`replied`) and whether the page went quiet. None on a page
    without counters."""
    if before is None:
        return None
    r = page.evaluate(SETTLE_JS, [before, REDRAW_QUIET_MS, SLIDER_WAIT_MS, REDRAW_QUIET_MAX_MS])
    if r is None:
        return None
    return {**{k: r["now"][k] - before[k] for k in ("flushes", "figures", "regions")},
            "replied": r["replied"], "quiet": r["quiet"]}


def slider_moves(page, stop: threading.Event) -> tuple[list[float | None], list[dict | None]]:
    """Move the first slider one step (focus, arrow key, blur) SLIDER_MOVES times; per move,
    the time from the key press to the first changed number-card text, measured in the page
    (None: no number changed within SLIDER_WAIT_MS), and then the move's redraws
    (`redraws_since`; None on a page without counters). Gives up after SLIDER_GIVE_UP misses
    in a row."""
    slider = page.get_by_role(SLIDER_ROLE).first
    slider.wait_for(timeout=BROWSER_TIMEOUT_MS)
    wait_quiet(page)
    times_ms: list[float | None] = []
    redraws: list[dict | None] = []
    for _ in range(SLIDER_MOVES):
        if stop.is_set() or times_ms[-SLIDER_GIVE_UP:] == [None] * SLIDER_GIVE_UP:
            break
        page.evaluate(ARM_JS, METRIC_SELECTOR)
        now, top = slider.evaluate(SLIDER_STATE_JS)
        before = page_stats(page)
        slider.focus()
        page.keyboard.press("ArrowLeft" if now >= top else "ArrowRight")
        slider.blur()
        times_ms.append(page.evaluate(WAIT_JS, SLIDER_WAIT_MS))
        redraws.append(redraws_since(page, before))
        page.wait_for_timeout(500)
    return times_ms, redraws


def measure_slider(browser, url: str, query: str, errors: list[str],
                   stop: threading.Event) -> dict:
    """The slider test on one page: {"ms": times, "redraws": per move, "note": why n/a}."""
    out: dict = {"ms": None, "redraws": None, "note": None}
    page = new_page(browser, errors)
    try:
        goto_ready(page, url)
        out["ms"], out["redraws"] = slider_moves(page, stop)
        if all(v is None for v in out["ms"]):
            out["note"] = (f"n/a: no {METRIC_SELECTOR} changed after the first slider moved "
                           f"on {query}")
    except Exception as e:  # noqa: BLE001
        out["note"] = _why(e)
    finally:
        page.close()
    return out


def _redraw_moves(page, move: Callable[[int], None], stop: threading.Event) -> list[dict]:
    """REDRAW_MOVES moves (`move(i)`), each from a quiet page: the redraws of each."""
    moves = []
    for i in range(REDRAW_MOVES):
        if stop.is_set():
            break
        wait_quiet(page)
        before = page_stats(page)
        move(i)
        moves.append(redraws_since(page, before))
    return moves


def measure_redraws(browser, url: str, errors: list[str], stop: threading.Event) -> dict:
    """Redraws per move on a played step (REDRAW_QUERY): Step forward (STEP_NEXT_SELECTOR)
    and the language switch (LANGUAGE_SELECTOR, REDRAW_LANGS in turn), REDRAW_MOVES each:
    {"step": {"moves": [...], "note": ...}, "language": {...}}."""
    out = {kind: {"moves": None, "note": None} for kind in ("step", "language")}
    page = new_page(browser, errors)
    try:
        goto_ready(page, url)
        if page_stats(page) is None:
            for kind in out:
                out[kind]["note"] = "n/a: the page keeps no redraw counters"
            return out
        step_next = page.locator(STEP_NEXT_SELECTOR).first
        language = page.locator(LANGUAGE_SELECTOR).first
        moves = {"step": lambda i: step_next.click(),
                 "language": lambda i: language.select_option(REDRAW_LANGS[i % len(REDRAW_LANGS)])}
        for kind, move in moves.items():
            try:
                out[kind]["moves"] = _redraw_moves(page, move, stop)
            except Exception as e:  # noqa: BLE001
                out[kind]["note"] = _why(e)
    except Exception as e:  # noqa: BLE001
        for kind in out:
            out[kind]["note"] = out[kind]["note"] or _why(e)
    finally:
        page.close()
    return out


def _frame_info(payload) -> tuple[int, bool, str]:
    """(bytes, whether it is a Bokeh message header, its first characters) of one websocket
    frame."""
    if isinstance(payload, bytes):
        return len(payload), False, ""
    is_header = False
    if len(payload) < 400 and '"msgtype"' in payload:
        try:
            is_header = "msgid" in json.loads(payload)
        except ValueError:
            pass
    return len(payload.encode("utf-8")), is_header, payload[:PLAY_SAMPLE_CHARS]


def _position(page) -> int | None:
    """The player's frame number: the first integer of the first position element found."""
    for sel in PLAY_POSITION_SELECTORS:
        loc = page.locator(sel).first
        if loc.count():
            match = re.search(r"\d+", loc.inner_text(timeout=5_000))
            if match:
                return int(match.group())
    return None


def _traffic(frames: list[tuple]) -> tuple[int, int, list[str]]:
    """(Bokeh messages, bytes, a few "MSGTYPE content" samples) of logged websocket frames."""
    messages = sum(1 for e in frames if e[2])
    samples = [f"{MSGTYPE_RE.search(e[3]).group(1)} {frames[i + 2][3]}"  # header, metadata, content
               for i, e in enumerate(frames[:-2]) if e[2]][:PLAY_SAMPLES]
    return messages, sum(e[1] for e in frames), samples


def play_traffic(log: list[tuple]) -> dict:
    """Messages and bytes the server sent per frame the player advanced, from a log of
    ("frame", bytes, is_header, text) and ("pos", n) entries in arrival order.

    Per frame: what came after the poll that saw the first advance up to the last poll
    before the final advance, over the frames advanced in between; so neither the answer to
    the Play click nor what follows the end of playback is counted. With fewer than three
    advances, from the click to the last advance. Totals cover the whole window."""
    positions = [(i, e[1]) for i, e in enumerate(log) if e[0] == "pos" and e[1] is not None]
    if not positions:
        return {"note": "n/a: no player position on the page"}
    changes = [(k, abs(v - positions[k - 1][1])) for k, (_, v) in enumerate(positions)
               if k and v != positions[k - 1][1]]
    if not changes:
        return {"note": "n/a: the player did not advance"}
    if len(changes) >= 3:
        first_k, last_k = changes[0][0], changes[-1][0] - 1
        frames = sum(d for k, d in changes if first_k < k <= last_k)
    else:
        first_k, last_k = 0, changes[-1][0]
        frames = sum(d for _, d in changes)
    lo, hi = positions[first_k][0], positions[last_k][0]
    messages, sent_bytes, samples = _traffic([e for e in log[lo + 1:hi + 1] if e[0] == "frame"])
    total_messages, total_bytes, _ = _traffic(
        [e for e in log[positions[0][0] + 1:] if e[0] == "frame"])
    return {"frames_advanced": sum(d for _, d in changes), "frames_counted": frames,
            "messages": messages, "bytes": sent_bytes,
            "messages_per_frame": messages / frames, "bytes_per_frame": sent_bytes / frames,
            "samples": samples, "total_messages": total_messages, "total_bytes": total_bytes}


def _header_ids(payload, key: str) -> str | None:
    """The `key` ("msgid" or "reqid") of a Bokeh message header frame, else None."""
    if isinstance(payload, bytes) or len(payload) >= 400 or '"msgtype"' not in payload:
        return None
    try:
        return json.loads(payload).get(key)
    except ValueError:
        return None


def measure_play(browser, url: str, errors: list[str], stop: threading.Event) -> dict:
    """Open `url`, wait until the server has answered every message the page sent while it
    loaded (so that a late answer is not taken for Play's traffic), press Play and log the
    server's websocket frames and the player position for PLAY_WINDOW_S."""
    log: list[tuple] = []
    sent: set[str] = set()
    answered: set[str] = set()

    def on_socket(ws) -> None:
        ws.on("framesent", lambda p: sent.add(_header_ids(p, "msgid")))
        ws.on("framereceived", lambda p: (answered.add(_header_ids(p, "reqid")),
                                          log.append(("frame", *_frame_info(p)))))
    page = new_page(browser, errors)
    page.on("websocket", on_socket)
    try:
        goto_ready(page, url)
        play = page.locator(PLAY_BUTTON_SELECTOR).first
        try:
            play.wait_for(timeout=5_000)
        except Exception:  # noqa: BLE001  (a page without a player)
            return {"note": f"n/a: no {PLAY_BUTTON_SELECTOR}"}
        quiet_by = time.monotonic() + PLAY_QUIET_WAIT_S
        while (sent - {None}) - answered and time.monotonic() < quiet_by and not stop.is_set():
            page.wait_for_timeout(100)
        unanswered = len((sent - {None}) - answered)
        log.append(("pos", _position(page)))
        play.click()
        end_s = time.monotonic() + PLAY_WINDOW_S
        while time.monotonic() < end_s and not stop.is_set():
            page.wait_for_timeout(100)
            log.append(("pos", _position(page)))
        result = play_traffic(log)
        result["unanswered_before_play"] = unanswered
        return result
    finally:
        page.close()


def _why(e: Exception) -> str:
    """One line about an exception (Playwright's messages carry a call log)."""
    return f"n/a: {type(e).__name__}: {str(e).splitlines()[0][:200] if str(e) else ''}"


def chromium_user(chromium: str, base_url: str, under_load: bool, stop: threading.Event) -> dict:
    """The real browser user: the slider test on each of SLIDER_STEPS; alone also the redraws
    per Step forward and language switch, under load the Play test. Each part that cannot run
    reports a note ("n/a: ...") instead of numbers."""
    from playwright.sync_api import sync_playwright

    result: dict = {"sliders": {}, "redraws": None, "play": None, "note": None, "errors": []}
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=chromium, args=CHROMIUM_FLAGS)
            try:
                for n in SLIDER_STEPS:
                    if stop.is_set():
                        break
                    query = f"?step={n}"
                    result["sliders"][str(n)] = measure_slider(browser, base_url + query, query,
                                                               result["errors"], stop)
                if not under_load and not stop.is_set():
                    result["redraws"] = measure_redraws(browser, base_url + REDRAW_QUERY,
                                                        result["errors"], stop)
                if under_load and not stop.is_set():
                    try:
                        result["play"] = measure_play(browser, base_url + PLAY_QUERY,
                                                      result["errors"], stop)
                    except Exception as e:  # noqa: BLE001
                        result["play"] = {"note": _why(e)}
            finally:
                browser.close()
    except Exception as e:  # noqa: BLE001
        result["note"] = _why(e)
    return result


class ChromiumThread:
    """`chromium_user` in a thread, with a stop flag; always joined."""

    def __init__(self, chromium: str, base_url: str, under_load: bool):
        self.stop = threading.Event()
        self.result: dict | None = None
        self._thread = threading.Thread(
            target=self._run, args=(chromium, base_url, under_load), daemon=True,
            name="chromium-user")

    def _run(self, *args) -> None:
        self.result = chromium_user(*args, stop=self.stop)

    def start(self) -> None:
        self._thread.start()

    def is_alive(self) -> bool:
        return self._thread.is_alive()

    def finish(self, timeout_s: float = 30.0) -> None:
        """Ask it to stop and wait for it."""
        self.stop.set()
        self._thread.join(timeout_s)


# -- the phases -------------------------------------------------------------------------------------

async def warm_up(server: PanelServer, rng: random.Random) -> dict:
    """One visit per warm-up query, one after the other; the first is the cold page."""
    page_s = []
    failures = []
    targets = server.direct() if hasattr(server, "direct") else [server]
    for target in targets:                      # behind nginx: every process, directly
        for query in server.spec.warm_queries:
            student = Student(target, query, rng)
            if await student.open():
                page_s.append(student.page_s)
            else:
                failures.append(f"{query}: {student.failure}")
            await student.close()
    return {"cold_page_s": page_s[0] if page_s else None, "page_s": page_s,
            "failures": failures}


async def arrive(student: Student, at_s: float) -> None:
    await asyncio.sleep(max(0.0, at_s - time.perf_counter()))
    await student.open()


async def close_all(students: list[Student]) -> None:
    await asyncio.gather(*(s.close() for s in students), return_exceptions=True)


def student_report(students: list[Student]) -> dict:
    """What the students saw, as plain data."""
    return {
        "page_s": [s.page_s for s in students if s.page_s is not None],
        "pull_s": [s.pull_s for s in students if s.pull_s is not None],
        "doc_bytes": [s.doc_bytes for s in students if s.doc_bytes is not None],
        "doc_wire_bytes": [s.doc_wire_bytes for s in students if s.doc_wire_bytes is not None],
        "models": [s.models for s in students if s.models is not None],
        "failures": [s.failure for s in students if s.failure],
        "interactions": [asdict(m) for s in students for m in s.interactions],
        "client_errors": [e for s in students for e in s.errors],
    }


async def run_classroom(server: PanelServer, args, rng: random.Random) -> dict:
    """Warm-up, the browser alone, arrival, interaction under load, everyone leaves."""
    result: dict = {"warm_up": await warm_up(server, rng), "students": args.students}
    if args.chromium:
        alone = ChromiumThread(args.chromium, server.base_url + server.app_path, False)
        alone.start()
        try:
            while alone.is_alive():
                await asyncio.sleep(0.5)
        finally:
            alone.finish()
        result["chromium_alone"] = alone.result
    await asyncio.sleep(DISCARD_WAIT_S)
    cpu0_s = server.cpu_s()
    await asyncio.sleep(REST_WINDOW_S)
    result["rest_cpu_pct"] = (server.cpu_s() - cpu0_s) / REST_WINDOW_S * 100
    result["rss_before_b"] = server.rss_bytes()

    students = [Student(server, deep_link(rng), rng) for _ in range(args.students)]
    loaded: ChromiumThread | None = None
    try:
        t0, cpu0_s = time.perf_counter(), server.cpu_s()
        arrivals_s = [t0 + rng.uniform(0, args.arrival) for _ in students]
        await asyncio.gather(*(arrive(s, at) for s, at in zip(students, arrivals_s)))
        result["arrival_phase_s"] = time.perf_counter() - t0
        await asyncio.sleep(1.0)
        result["arrival_cpu_s"] = server.cpu_s() - cpu0_s
        result["rss_open_b"] = server.rss_bytes()
        result["sessions_open"] = sum(1 for s in students if s.failure is None)

        stop = asyncio.Event()
        received0_b = sum(s.received_bytes for s in students)
        wire0_b = sum(s.received_wire_bytes for s in students)
        cpu0_s, client0_s, t1 = server.cpu_s(), time.process_time(), time.perf_counter()
        tasks = [asyncio.create_task(s.run_interactions(stop))
                 for s in students if s.failure is None]
        if args.chromium:
            loaded = ChromiumThread(args.chromium, server.base_url + server.app_path, True)
            loaded.start()
        await asyncio.sleep(args.duration)
        give_up_s = time.perf_counter() + CHROMIUM_EXTRA_S
        while loaded is not None and loaded.is_alive() and time.perf_counter() < give_up_s:
            await asyncio.sleep(0.5)
        stop.set()
        await asyncio.gather(*tasks, return_exceptions=True)
        result["interaction_phase_s"] = time.perf_counter() - t1
        result["server_cpu_s"] = server.cpu_s() - cpu0_s
        result["client_cpu_s"] = time.process_time() - client0_s
        result["interaction_bytes"] = sum(s.received_bytes for s in students) - received0_b
        result["interaction_wire_bytes"] = sum(s.received_wire_bytes for s in students) - wire0_b
    finally:
        if loaded is not None:
            loaded.finish()
            result["chromium_load"] = loaded.result
        await close_all(students)
    t_left = time.perf_counter()
    await asyncio.sleep(DISCARD_WAIT_S)
    trail = []
    while True:           # the server may still be closing sessions and handing memory back
        trail.append((time.perf_counter() - t_left, server.rss_bytes()))
        if trail[-1][0] >= AFTER_WAIT_S:
            break
        await asyncio.sleep(AFTER_SAMPLE_S)
    result["rss_after_b"] = trail[-1][1]
    result["rss_after_trail"] = trail
    result.update(student_report(students))
    return result


async def run_soak(server: PanelServer, args, rng: random.Random) -> dict:
    """`--students` seats; each seat's student stays 30-120 s, leaves, and a new one comes,
    for `--soak` seconds. RSS every SOAK_SAMPLE_S."""
    result: dict = {"warm_up": await warm_up(server, rng), "students": args.students}
    await asyncio.sleep(DISCARD_WAIT_S)
    result["rss_before_b"] = server.rss_bytes()
    stop = asyncio.Event()
    everyone: list[Student] = []
    samples: list[dict] = []
    t0 = time.perf_counter()

    async def seat() -> None:
        if await wait_event(stop, rng.uniform(0, args.arrival)):
            return
        while not stop.is_set():
            student = Student(server, deep_link(rng), rng)
            everyone.append(student)
            try:
                if await student.open():
                    await student.run_interactions(
                        stop, time.perf_counter() + rng.uniform(*SOAK_STAY_S))
            finally:
                await student.close()
            if await wait_event(stop, rng.uniform(*SOAK_REJOIN_S)):
                return

    async def sampler() -> None:
        while not await wait_event(stop, SOAK_SAMPLE_S):
            samples.append({"t_s": time.perf_counter() - t0, "rss_b": server.rss_bytes(),
                            "sessions": sum(1 for s in everyone if s.failure is None
                                            and s.page_s is not None and not s.closed)})

    seats = [asyncio.create_task(seat()) for _ in range(args.students)]
    sampling = asyncio.create_task(sampler())
    try:
        await asyncio.sleep(args.soak)
    finally:
        stop.set()
        await asyncio.gather(*seats, sampling, return_exceptions=True)
        await close_all(everyone)
    await asyncio.sleep(DISCARD_WAIT_S)
    result["rss_after_b"] = server.rss_bytes()
    result["rss_samples"] = samples
    result["sessions_opened"] = sum(1 for s in everyone if s.failure is None)
    result.update(student_report(everyone))
    return result


BACKGROUND_QUEUED = "of this machine's speed measured in the background"
BACKGROUND_DONE = "this machine's speed measured in the background ("


def background_done(server, timeout_s: float = 120.0) -> None:
    """Every start measures this machine's speed in the background after it answers (steps/warm.py `say_when_done`): wait for each process's line saying it
    is done, so that the memory before the class is not taken in the middle of it."""
    paths = ([server.log_path] if isinstance(server, PanelServer)
             else sorted(server.run_dir.glob("app-*.log")))
    end = time.monotonic() + timeout_s
    while time.monotonic() < end:
        texts = [p.read_text(errors="replace") for p in paths if p.exists()]
        if all(BACKGROUND_QUEUED not in t or BACKGROUND_DONE in t for t in texts):
            return
        time.sleep(0.5)
    print("background measurements not done within the timeout", file=sys.stderr)


def measure(spec: AppSpec, args) -> dict:
    """Serve one app, run the classroom (or the soak) against it, stop it."""
    log_path = Path(args.log_dir) / f"{spec.key}-server.log"
    rng = random.Random(args.seed)          # the same arrivals and pauses for every app
    print(f"[{spec.label}] serving {spec.script} (log: {log_path})", file=sys.stderr, flush=True)
    make = lambda: (ProxiedServers(spec, log_path, args.processes) if args.processes > 1 else
                    PanelServer(spec, log_path))
    # with a warm-up: its cache (steps/warmcache.py) in a fresh directory, so that the first
    # start is cold (it computes everything and writes the cache); that server is stopped and
    # a second start, which reads the cache, serves the class (a restart as a lecturer's)
    ready_cold = None
    if spec.setup_script and (ROOT / spec.setup_script).exists():
        folder = Path(args.log_dir) / f"{spec.key}-warm-cache"
        shutil.rmtree(folder, ignore_errors=True)
        os.environ["KV_EXPLAINER_CACHE"] = str(folder.resolve())
        with make() as cold:
            ready_cold = cold.ready_s
        print(f"[{spec.label}] cold start {ready_cold:.1f} s; starting again from the warm-up "
              "cache", file=sys.stderr, flush=True)
    server = make()
    with server:
        background_done(server)
        run = run_soak if args.soak else run_classroom
        result = asyncio.run(run(server, args, rng))
        result["setup_used"] = server.setup_used
        result["ready_s"] = server.ready_s
        result["ready_cold_s"] = ready_cold
        result["processes"] = args.processes
        result["server_log_errors"] = server.log_errors()
    result["app"] = spec.key
    result["script"] = spec.script
    return result


# -- the report -------------------------------------------------------------------------------------

def percentile(values, q: float) -> float | None:
    """Linear-interpolated percentile of the non-None values; None when there are none."""
    xs = sorted(v for v in values if v is not None)
    if not xs:
        return None
    k = (len(xs) - 1) * q / 100
    lo = math.floor(k)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (k - lo)


def _ms(values) -> list[float]:
    return [v * 1000 for v in values if v is not None]


def error_lines(r: dict) -> list[str]:
    """Every error of one app's run, server log first."""
    browser = [e for key in ("chromium_alone", "chromium_load")
               for e in ((r.get(key) or {}).get("errors") or [])]
    return ([f"server log: {line}" for line in r.get("server_log_errors", [])]
            + r.get("client_errors", []) + browser)


def redraw_moves(chromium: dict) -> dict[str, list]:
    """The moves whose redraws a Chromium user counted, by kind: "slider4", "slider5" (one
    per SLIDER_STEPS), "step", "language" (each a list of `redraws_since` results)."""
    sliders = chromium.get("sliders") or {}
    redraws = chromium.get("redraws") or {}
    out = {f"slider{n}": (sliders.get(str(n)) or {}).get("redraws") or [] for n in SLIDER_STEPS}
    out.update({kind: (redraws.get(kind) or {}).get("moves") or []
                for kind in ("step", "language")})
    return out


def summarize(r: dict) -> dict:
    """The numbers of the table from one app's raw results (None where not measured)."""
    moves = r.get("interactions", [])
    first_ms = _ms(m["first_s"] for m in moves)
    nav_ms = _ms(m["first_s"] for m in moves if m["kind"] in ("language", "step"))
    s: dict[str, Any] = {
        "pages_ok": len(r.get("page_s", [])), "students": r["students"],
        "page_p50_s": percentile(r.get("page_s", []), 50),
        "page_p95_s": percentile(r.get("page_s", []), 95),
        "page_max_s": max(r.get("page_s") or [None]),
        "pull_p50_s": percentile(r.get("pull_s", []), 50),
        "pull_p95_s": percentile(r.get("pull_s", []), 95),
        "pull_max_s": max(r.get("pull_s") or [None]),
        "cold_page_s": r["warm_up"]["cold_page_s"],
        "ready_s": r.get("ready_s"),
        "ready_cold_s": r.get("ready_cold_s"),
        "processes": r.get("processes", 1),
        "interactions": len(moves),
        "no_reply": sum(1 for m in moves if m["first_s"] is None),
        "rtt_p50_ms": percentile(first_ms, 50), "rtt_p95_ms": percentile(first_ms, 95),
        "rtt_slider_p95_ms": percentile(
            _ms(m["first_s"] for m in moves if m["kind"] == "slider"), 95),
        "rtt_nav_p95_ms": percentile(nav_ms, 95),
        "settled_p95_ms": percentile(_ms(m["settled_s"] for m in moves), 95),
        "failed_sessions": len(r.get("failures", [])) + len(r["warm_up"]["failures"]),
        "errors": len(error_lines(r)),
        "tracebacks": sum(1 for line in r.get("server_log_errors", []) if "Traceback" in line),
    }
    mib = {k: r[k] / MIB for k in ("rss_before_b", "rss_open_b", "rss_after_b") if k in r}
    s.update(rss_before_mib=mib.get("rss_before_b"), rss_open_mib=mib.get("rss_open_b"),
             rss_after_mib=mib.get("rss_after_b"))
    opened = r.get("sessions_open") or 0
    s["mem_per_session_mib"] = ((mib["rss_open_b"] - mib["rss_before_b"]) / opened
                                if opened and "rss_open_b" in mib else None)
    s["mem_after_pct"] = ((mib["rss_after_b"] / mib["rss_before_b"] - 1) * 100
                          if "rss_after_b" in mib and "rss_before_b" in mib else None)
    s["cpu_ms_per_interaction"] = (r["server_cpu_s"] * 1000 / len(moves)
                                   if moves and "server_cpu_s" in r else None)
    s["cpu_s_per_session"] = (r["arrival_cpu_s"] / opened
                              if opened and "arrival_cpu_s" in r else None)
    s["client_cpu_s"] = r.get("client_cpu_s")
    s["models_p50"] = percentile(r["models"], 50) if r.get("models") else None
    s["doc_kib_p50"] = (percentile(r["doc_bytes"], 50) or 0) / 1024 if r.get("doc_bytes") else None
    s["doc_wire_kib_p50"] = ((percentile(r["doc_wire_bytes"], 50) or 0) / 1024
                             if r.get("doc_wire_bytes") else None)
    s["kib_per_interaction"] = (r["interaction_bytes"] / 1024 / len(moves)
                                if moves and "interaction_bytes" in r else None)
    s["wire_kib_per_interaction"] = (r["interaction_wire_bytes"] / 1024 / len(moves)
                                     if moves and "interaction_wire_bytes" in r else None)
    s["rest_cpu_pct"] = r.get("rest_cpu_pct")
    for key, prefix in (("chromium_alone", "alone"), ("chromium_load", "load")):
        sliders = (r.get(key) or {}).get("sliders") or {}
        s[f"{prefix}_missed"] = 0
        for n in SLIDER_STEPS:
            slider = (sliders.get(str(n)) or {}).get("ms") or []
            s[f"{prefix}_step{n}_p50_ms"] = percentile(slider, 50)
            s[f"{prefix}_step{n}_p95_ms"] = percentile(slider, 95)
            s[f"{prefix}_step{n}_missed"] = sum(1 for v in slider if v is None)
            s[f"{prefix}_missed"] += s[f"{prefix}_step{n}_missed"]
        # the keys of earlier runs, which measured step 5 only
        for stat in ("p50_ms", "p95_ms"):
            s[f"{prefix}_{stat}"] = s.get(f"{prefix}_step5_{stat}")
    # redraws per move, in Chromium alone: the median over the moves of each kind
    alone = r.get("chromium_alone") or {}
    for kind, moves in redraw_moves(alone).items():
        for counter in ("flushes", "figures", "regions"):
            s[f"redraw_{kind}_{counter}"] = percentile(
                [m[counter] for m in moves if m is not None], 50)
    play = (r.get("chromium_load") or {}).get("play") or {}
    s["play_msgs_per_frame"] = play.get("messages_per_frame")
    s["play_bytes_per_frame"] = play.get("bytes_per_frame")
    samples = r.get("rss_samples") or []
    if samples:
        first, last = samples[0]["rss_b"] / MIB, samples[-1]["rss_b"] / MIB
        s.update(rss_first_mib=first, rss_last_mib=last,
                 rss_max_mib=max(x["rss_b"] for x in samples) / MIB,
                 growth_mib=last - first, growth_pct=(last / first - 1) * 100,
                 sessions_opened=r.get("sessions_opened"))
    return s


def _le(key: str, limit: float) -> Callable[[dict, dict], bool | None]:
    def check(a, m):
        return None if a.get(key) is None else a[key] <= limit
    return check


def _eq(key: str, value: float) -> Callable[[dict, dict], bool | None]:
    def check(a, m):
        return None if a.get(key) is None else a[key] == value
    return check


def _vs_minimal(key: str, limit: float, factor: float) -> Callable[[dict, dict], bool | None]:
    """<= limit (if any), and <= factor x the minimal app (when it was measured)."""
    def check(a, m):
        if a.get(key) is None:
            return None
        ok = limit is None or a[key] <= limit
        if m.get(key) is not None:
            ok = ok and a[key] <= factor * m[key]
        elif limit is None:
            return None
        return ok
    return check


def _ready(a, m) -> bool | None:
    """The start that read the warm-up cache (the class's server): within 5 s for one
    process, 8 s for several started together (issue 37)."""
    if a.get("ready_s") is None or a.get("ready_cold_s") is None:
        return None
    return a["ready_s"] <= (5.0 if a.get("processes", 1) == 1 else 8.0)


def _all_pages(a, m) -> bool:
    return a["pages_ok"] == a["students"]


def _within(key: str, pct: float) -> Callable[[dict, dict], bool | None]:
    def check(a, m):
        return None if a.get(key) is None else abs(a[key]) <= pct
    return check


# (label, summary key, decimals, target text, check)
CLASSROOM_ROWS = [
    ("students who got their page", "pages_ok", 0, "all", _all_pages),
    ("session: page p50 (s)", "page_p50_s", 2, "", None),
    ("session: page p95 (s)", "page_p95_s", 2, "<= 3 s, <= 2x minimal",
     _vs_minimal("page_p95_s", 3.0, 2.0)),
    ("session: page max (s)", "page_max_s", 2, "", None),
    ("session: websocket pull p50 (s)", "pull_p50_s", 2, "", None),
    ("session: websocket pull p95 (s)", "pull_p95_s", 2, "", None),
    ("session: websocket pull max (s)", "pull_max_s", 2, "", None),
    ("server start until it answers, cold (s)", "ready_cold_s", 1, "", None),
    ("server start until it answers (cached warm-up) (s)", "ready_s", 1,
     "<= 5 s (1 process), <= 8 s (2)", _ready),
    ("first page after server start, cold (s)", "cold_page_s", 2, "", None),
    ("models per session (pulled document) p50", "models_p50", 0, "", None),
    ("document pulled per session p50 (KiB)", "doc_kib_p50", 0, "", None),
    ("  on the wire, compressed (KiB)", "doc_wire_kib_p50", 0, "", None),
    ("server CPU per session opened (s)", "cpu_s_per_session", 2, "", None),
    ("interactions sent", "interactions", 0, "", None),
    ("interactions without reply (timeout)", "no_reply", 0, "0", _le("no_reply", 0)),
    ("interaction round trip p50 (ms)", "rtt_p50_ms", 0, "", None),
    ("interaction round trip p95 (ms)", "rtt_p95_ms", 0, "<= 250 ms", _le("rtt_p95_ms", 250)),
    ("  slider moves p95 (ms)", "rtt_slider_p95_ms", 0, "", None),
    ("  language/step changes p95 (ms)", "rtt_nav_p95_ms", 0, "", None),
    ("interaction settled p95 (ms)", "settled_p95_ms", 0, "", None),
    ("server CPU per interaction (ms)", "cpu_ms_per_interaction", 1, "", None),
    ("server -> student per interaction (KiB)", "kib_per_interaction", 1, "", None),
    ("  on the wire, compressed (KiB)", "wire_kib_per_interaction", 1, "", None),
    ("server CPU at rest, no sessions (% of a core)", "rest_cpu_pct", 1, "", None),
    ("load client CPU, whole phase (s)", "client_cpu_s", 1, "", None),
    *[row for n in SLIDER_STEPS for row in (
        (f"Chromium slider->number step {n} alone p50 (ms)", f"alone_step{n}_p50_ms", 0, "",
         None),
        (f"Chromium slider->number step {n} alone p95 (ms)", f"alone_step{n}_p95_ms", 0,
         "<= 100 ms, <= minimal", _vs_minimal(f"alone_step{n}_p95_ms", 100, 1.0)))],
    *[row for n in SLIDER_STEPS for row in (
        (f"Chromium slider->number step {n} under load p50 (ms)", f"load_step{n}_p50_ms", 0, "",
         None),
        (f"Chromium slider->number step {n} under load p95 (ms)", f"load_step{n}_p95_ms", 0,
         "<= 1.3x minimal", _vs_minimal(f"load_step{n}_p95_ms", None, 1.3)))],
    ("Chromium slider moves with no change", "load_missed", 0, "", None),
    *[row for kind, what in [*((f"slider{n}", f"slider move, step {n}") for n in SLIDER_STEPS),
                             ("step", f"Step forward, step {REDRAW_STEP}"),
                             ("language", "language switch")]
      for row in (
        (f"Chromium page redraws per {what} (median)", f"redraw_{kind}_flushes", 1, "1",
         _eq(f"redraw_{kind}_flushes", 1)),
        ("  figure draws", f"redraw_{kind}_figures", 1, "<= 1", _le(f"redraw_{kind}_figures", 1)),
        ("  regions drawn again", f"redraw_{kind}_regions", 1, "", None))],
    ("server messages per Play frame", "play_msgs_per_frame", 1, "0",
     _le("play_msgs_per_frame", 0)),
    ("server bytes per Play frame", "play_bytes_per_frame", 0, "", None),
    ("server RSS before (MiB)", "rss_before_mib", 0, "", None),
    ("server RSS, all sessions open (MiB)", "rss_open_mib", 0, "", None),
    ("server memory per session (MiB)", "mem_per_session_mib", 2, "<= 1 MiB",
     _le("mem_per_session_mib", 1.0)),
    ("errors", "errors", 0, "0", _le("errors", 0)),
    ("  of them, server tracebacks", "tracebacks", 0, "0", _le("tracebacks", 0)),
    ("failed sessions", "failed_sessions", 0, "0", _le("failed_sessions", 0)),
    ("server RSS after everyone left (MiB)", "rss_after_mib", 0, "", None),
    ("  vs before (%)", "mem_after_pct", 1, "within 10 %", _within("mem_after_pct", 10)),
]

SOAK_ROWS = [
    ("sessions opened", "sessions_opened", 0, "", None),
    ("failed sessions", "failed_sessions", 0, "0", _le("failed_sessions", 0)),
    ("errors", "errors", 0, "0", _le("errors", 0)),
    ("  of them, server tracebacks", "tracebacks", 0, "0", _le("tracebacks", 0)),
    ("session: page p95 (s)", "page_p95_s", 2, "", None),
    ("interaction round trip p95 (ms)", "rtt_p95_ms", 0, "", None),
    ("interactions without reply (timeout)", "no_reply", 0, "0", _le("no_reply", 0)),
    ("server RSS before (MiB)", "rss_before_mib", 0, "", None),
    ("server RSS, first sample (MiB)", "rss_first_mib", 0, "", None),
    ("server RSS, last sample (MiB)", "rss_last_mib", 0, "", None),
    ("server RSS, max sample (MiB)", "rss_max_mib", 0, "", None),
    ("memory growth, last vs first (MiB)", "growth_mib", 1, "", None),
    ("memory growth, last vs first (%)", "growth_pct", 1, "<= 10 %", _le("growth_pct", 10)),
    ("server RSS after everyone left (MiB)", "rss_after_mib", 0, "", None),
    ("  vs before (%)", "mem_after_pct", 1, "", None),
]


def _fmt(value, decimals: int) -> str:
    if value is None:
        return "n/a"
    return f"{value:,.{decimals}f}"


def table_lines(rows, a: dict, m: dict | None) -> list[str]:
    """The table: measure | this app | minimal | ratio | target | result."""
    head = ["measure", APPS["app"].label, APPS["minimal"].label, "ratio", "target", "result"]
    body = []
    for label, key, decimals, target, check in rows:
        av = a.get(key) if a else None
        mv = m.get(key) if m else None
        ratio = (f"{av / mv:.2f}" if isinstance(av, (int, float)) and isinstance(mv, (int, float))
                 and mv else "")
        verdict = ""
        if check is not None and a:
            ok = check(a, m or {})
            verdict = "n/a" if ok is None else ("PASS" if ok else "FAIL")
        if key == "pages_ok":
            cells = [f"{a['pages_ok']}/{a['students']}" if a else "",
                     f"{m['pages_ok']}/{m['students']}" if m else ""]
        else:
            cells = [_fmt(av, decimals) if a else "", _fmt(mv, decimals) if m else ""]
        body.append([label, *cells, ratio, target, verdict])
    widths = [max(len(r[i]) for r in [head, *body]) for i in range(len(head))]
    def line(r):
        return " | ".join(c.ljust(w) if i in (0, 4, 5) else c.rjust(w)
                          for i, (c, w) in enumerate(zip(r, widths)))
    return [line(head), "-+-".join("-" * w for w in widths), *map(line, body)]


def _redraw_cell(m: dict | None) -> str:
    """One move's redraws as flushes/figures/regions, marked * without reply, ~ never quiet."""
    if m is None:
        return "n/a"
    return (f"{m['flushes']}/{m['figures']}/{m['regions']}" + ("" if m["replied"] else "*")
            + ("" if m["quiet"] else "~"))


def notes(results: dict[str, dict]) -> list[str]:
    """What the table cannot show: failures, error lines, browser notes."""
    out = []
    for key, r in results.items():
        label = APPS[key].label
        if r.get("fatal"):
            out.append(f"{label}: the run failed: {r['fatal']}")
        if key == "app":
            out.append(f"{label}: --setup {APPS[key].setup_script} "
                       f"{'used' if r.get('setup_used') else 'not present, not used'}")
        silent = Counter(f"{m['kind']} '{m['label']}'" for m in r.get("interactions", [])
                         if m["first_s"] is None)
        if silent:
            out.append(f"{label}: moves without a reply: " + ", ".join(
                f"{what} x{n}" for what, n in silent.most_common(5)))
        failures = r.get("failures", []) + r["warm_up"]["failures"]
        if failures:
            out.append(f"{label}: {len(failures)} failed sessions, e.g. {failures[0]}")
        errors = error_lines(r)
        if errors:
            out.append(f"{label}: {len(errors)} errors, first ones:")
            out += [f"    {e[:220]}" for e in errors[:5]]
        for phase in ("chromium_alone", "chromium_load"):
            c = r.get(phase) or {}
            if c.get("note"):
                out.append(f"{label}: {phase} {c['note']}")
            for n, slider in (c.get("sliders") or {}).items():
                if slider.get("note"):
                    out.append(f"{label}: {phase} slider on step {n} {slider['note']}")
            for kind, what in (c.get("redraws") or {}).items():
                if what.get("note"):
                    move = {"step": "Step forward"}.get(kind, f"{kind} switch")
                    out.append(f"{label}: {phase} redraws per {move} {what['note']}")
            if (c.get("play") or {}).get("note"):
                out.append(f"{label}: {phase} Play {c['play']['note']}")
            elif c.get("play"):
                p = c["play"]
                out.append(f"{label}: Play advanced {p['frames_advanced']} frames; over "
                           f"{p['frames_counted']} of them the server sent {p['messages']} "
                           f"messages ({p['bytes']:,} bytes); from the click on, "
                           f"{p['total_messages']} messages ({p['total_bytes']:,} bytes)"
                           + (f"; {p['unanswered_before_play']} of the page's own messages "
                              f"were still unanswered at the click"
                              if p.get("unanswered_before_play") else ""))
                out += [f"    {sample}" for sample in p["samples"]]
        moves = redraw_moves(r.get("chromium_alone") or {})
        if any(m for ms in moves.values() for m in ms):
            out.append(f"{label}: Chromium alone, each move's page redraws/figure draws/regions "
                       f"(*: no redraw came; ~: not quiet within {REDRAW_QUIET_MAX_MS} ms): "
                       + "; ".join(f"{kind} " + " ".join(map(_redraw_cell, ms))
                                   for kind, ms in moves.items() if any(ms)))
        if r.get("rss_after_trail"):
            out.append(f"{label}: RSS MiB after everyone left, at " + ", ".join(
                f"{t:.0f} s {b / MIB:.0f}" for t, b in r["rss_after_trail"]))
        if r.get("rss_samples"):
            out.append(f"{label}: RSS MiB every {SOAK_SAMPLE_S:.0f} s: " + ", ".join(
                f"{x['rss_b'] / MIB:.0f}" for x in r["rss_samples"]))
    return out


def _interrupt(signum, frame) -> None:
    """SIGTERM stops the run like Ctrl-C: servers and browsers are stopped on the way out."""
    raise KeyboardInterrupt


def main(argv=None) -> int:
    """Parse the options, load each app in turn, print the table (and write the JSON)."""
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--students", type=int, default=100)
    ap.add_argument("--arrival", type=float, default=10.0, help="seconds over which they arrive")
    ap.add_argument("--duration", type=float, default=60.0, help="seconds of interaction")
    ap.add_argument("--soak", type=float, default=0.0,
                    help="seconds of students arriving and leaving (replaces the classroom)")
    ap.add_argument("--apps", nargs="+", choices=list(APPS), default=list(APPS))
    ap.add_argument("--processes", type=int, default=1,
                    help="N > 1: N app processes behind nginx (deploy/run-local.sh), per app")
    ap.add_argument("--json", type=Path, help="write the raw numbers here")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--log-dir", default=str(ROOT / "test-artifacts" / "classroom"))
    ap.add_argument("--chromium", default=os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium"),
                    help="Chromium executable ('' to run without the browser user)")
    args = ap.parse_args(argv)
    if args.chromium and not Path(args.chromium).exists():
        print(f"no Chromium at {args.chromium}: the browser rows will be n/a", file=sys.stderr)
        args.chromium = ""
    if args.soak:
        args.chromium = ""
    AsyncHTTPClient.configure(None, max_clients=args.students + 16)
    signal.signal(signal.SIGTERM, _interrupt)

    results = {}
    for key in args.apps:
        try:
            results[key] = measure(APPS[key], args)
        except Exception as e:  # noqa: BLE001  (report it and go on with the other app)
            print(f"[{APPS[key].label}] failed: {type(e).__name__}: {e}", file=sys.stderr)
            results[key] = {"app": key, "students": args.students,
                            "fatal": f"{type(e).__name__}: {e}",
                            "warm_up": {"cold_page_s": None, "page_s": [], "failures": []}}
    summaries = {key: summarize(r) for key, r in results.items()}
    mode = (f"soak {args.soak:.0f} s, {args.students} seats" if args.soak else
            f"{args.students} students arriving within {args.arrival:.0f} s, "
            f"{args.duration:.0f} s of interaction")
    serving = ("Panel serve --websocket-compression-level 1"
               if args.processes == 1 else
               f"{args.processes} x Panel serve behind nginx (deploy/run-local.sh)")
    print(f"\nClassroom benchmark: {mode}; {os.cpu_count()} CPUs; {serving}")
    rows = SOAK_ROWS if args.soak else CLASSROOM_ROWS
    for line in table_lines(rows, summaries.get("app"), summaries.get("minimal")):
        print(line)
    for line in notes(results):
        print(line)
    if args.json:
        args.json.write_text(json.dumps({"args": {k: str(v) for k, v in vars(args).items()},
                                         "results": results, "summary": summaries}, indent=1))
        print(f"raw numbers: {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
