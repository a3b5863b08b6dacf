"""How long until the first page: the README's serve command, run as written, cold (an empty
warm-up cache) and then restarted (the cache the cold start wrote), timed from the command's
start until the app's page answers.

    python benchmarks/restart.py [--restarts 2] [--json out.json]

The command is the README's first code block's `panel serve …` (its install part left out),
with `--address 127.0.0.1 --port P` added; the warm-up cache is a fresh directory
(`KV_EXPLAINER_CACHE`), removed at the end. The environment is this one's, so the thread
count is what the README's command gets (steps/warm.py `warm_threads`). Each server is
stopped by its PID once its page has answered. Prints one line per start and a table.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TIMEOUT_S = 600


def readme_command() -> list[str]:
    """The README's serve command: the `panel serve` part of its first bash block."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    block = re.search(r"```bash\n(.*?)\n```", text, re.S).group(1)
    serve = next(part for part in block.split("&&") if " panel serve " in part)
    argv = shlex.split(serve.strip())
    if argv[0].endswith("python"):
        argv[0] = sys.executable          # this interpreter (the README's .venv one)
    return argv


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def stop(proc: subprocess.Popen) -> None:
    """Stop the server by its PID: SIGTERM, and SIGKILL if it is still there 15 s later."""
    for end in (proc.terminate, proc.kill):
        end()
        try:
            proc.wait(15)
            return
        except subprocess.TimeoutExpired:
            continue


def start_once(argv: list[str], env: dict, log: Path) -> dict:
    """Start the server, time until GET /app answers 200, read its warm-up lines, stop it."""
    port = free_port()
    cmd = [*argv, "--address", "127.0.0.1", "--port", str(port),
           "--allow-websocket-origin", f"127.0.0.1:{port}"]
    url = f"http://127.0.0.1:{port}/app"
    with open(log, "w") as out:
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
        try:
            page_s = None
            while time.perf_counter() - t0 < TIMEOUT_S and proc.poll() is None:
                try:
                    with urllib.request.urlopen(url, timeout=5) as r:
                        if r.status == 200:
                            page_s = time.perf_counter() - t0
                            break
                except OSError:
                    time.sleep(0.05)
        finally:
            stop(proc)
    text = log.read_text(errors="replace")
    warm = re.search(r"warmed up in ([\d.]+) s", text)
    return {"page_s": page_s, "warm_up_s": float(warm.group(1)) if warm else None,
            "cache": "from the warm-up cache" in text}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--restarts", type=int, default=2, help="starts after the cold one")
    ap.add_argument("--json", help="write the numbers here too")
    args = ap.parse_args()
    argv = readme_command()
    folder = Path(tempfile.mkdtemp(prefix="kv-warm-cache-"))
    env = {**os.environ, "KV_EXPLAINER_CACHE": str(folder), "PYTHONUNBUFFERED": "1"}
    logs = ROOT / "test-artifacts" / "restart"
    logs.mkdir(parents=True, exist_ok=True)
    print("command: " + " ".join(shlex.quote(a) for a in argv), flush=True)
    rows = []
    try:
        for i in range(1 + args.restarts):
            kind = "cold" if i == 0 else f"restart {i}"
            r = start_once(argv, env, logs / f"start-{i}.log")
            r["start"] = kind
            rows.append(r)
            print(f"{kind}: first page after {r['page_s']:.1f} s (warm-up {r['warm_up_s']} s, "
                  f"cache {'read' if r['cache'] else 'written'})", flush=True)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    print("\n| start | first page (s) | warm-up (s) | target |\n|---|---|---|---|")
    for r in rows:
        target = "≤ 45 s" if r["start"] == "cold" else "≤ 5 s"
        limit = 45 if r["start"] == "cold" else 5
        verdict = "PASS" if r["page_s"] is not None and r["page_s"] <= limit else "FAIL"
        print(f"| {r['start']} | {r['page_s']:.1f} | {r['warm_up_s']} | {target}: {verdict} |")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
