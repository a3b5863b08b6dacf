"""What one move costs the server, by page and by kind of move: the server process's CPU time
(all threads) and the bytes it sends, per move, for one student at a time.

    OMP_NUM_THREADS=1 python benchmarks/move_cost.py [--moves 30] [--apps app minimal] [--json F]

The class benchmark (`benchmarks/classroom.py`) gives the CPU per interaction of a whole class,
a mix of pages and kinds; this one splits it, to find what a class's moves wait behind. One
process is served as the class benchmark serves it (`PanelServer`: the README's flags, the
warm-up cache of `KV_EXPLAINER_CACHE` or the user cache, so a start takes seconds once the cache
exists), warmed by the same visits; then, for each page (`?step=N&lang=en`) and each kind of
move (a control of the step as the class moves it: a slider nudged by 1-3 steps, or another
option of a choice where the page has no slider; the language; the step), one simulated student
makes `--moves` moves, each after the page went quiet, and the server's CPU time and the bytes
received are read before and after. The minimal Panel app (`--apps minimal`) has one page and
sliders only. The machine must be idle (the figures are CPU time of one process, but another
process's work still slows it through the shared caches). Prints one line per row and a table.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import classroom as C  # noqa: E402

KINDS = {"slider": (0.0, 0.0), "language": (0.0, 1.0), "step": (1.0, 0.0)}   # (step, language) shares
PAGES = {"app": [*map(str, range(1, 7)), "end"], "minimal": ["1"]}


async def _quiet(student: C.Student) -> None:
    await student._wait_quiet(asyncio.Event())


async def one_row(server, page: str, kind: str, moves: int, rng: random.Random) -> dict | None:
    """`moves` moves of one kind by one student on one page: CPU ms and KiB per move."""
    C.STEP_SHARE, C.LANGUAGE_SHARE = KINDS[kind]
    student = C.Student(server, f"?step={page}&lang=en", rng)
    if not await student.open():
        return {"page": page, "kind": kind, "failure": student.failure}
    try:
        await asyncio.sleep(1.0)
        await _quiet(student)
        received0, cpu0 = student.received_bytes, server.cpu_s()
        for _ in range(moves):
            await _quiet(student)
            await student._move()
        await _quiet(student)
        cpu = server.cpu_s() - cpu0
        made: dict[str, int] = {}
        for m in student.interactions:
            made[m.kind] = made.get(m.kind, 0) + 1
        unanswered = sum(1 for m in student.interactions if m.first_s is None)
        return {"page": page, "kind": kind, "cpu_ms": cpu / moves * 1e3,
                "kib": (student.received_bytes - received0) / moves / 1024,
                "made": made, "unanswered": unanswered, "errors": student.errors}
    finally:
        await student.close()


async def run(server, spec: C.AppSpec, args) -> list[dict]:
    rng = random.Random(args.seed)
    await C.warm_up(server, rng)
    rows = []
    kinds = ["slider"] if spec.key == "minimal" else list(KINDS)
    for page in PAGES[spec.key]:
        for kind in kinds:
            row = await one_row(server, page, kind, args.moves, rng)
            rows.append({"app": spec.key, **row})
            print(json.dumps(rows[-1]), flush=True)
    return rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--moves", type=int, default=30)
    ap.add_argument("--apps", nargs="+", default=["app", "minimal"], choices=list(C.APPS))
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--log-dir", default="/tmp")
    ap.add_argument("--json")
    args = ap.parse_args(argv)
    rows: list[dict] = []
    for key in args.apps:
        spec = C.APPS[key]
        server = C.PanelServer(spec, Path(args.log_dir) / f"move-cost-{key}.log")
        with server:
            C.background_done(server)
            rows += asyncio.run(run(server, spec, args))
            errors = server.log_errors()
        if errors:
            print(f"[{key}] server log errors: {errors[:3]}", file=sys.stderr)
    print(f"\n{time.strftime('%Y-%m-%d %H:%M')}, {args.moves} moves per row, one student at a time\n")
    print("| app | page | kind of move | server CPU per move (ms) | sent per move (KiB) | unanswered |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        if "failure" in r:
            print(f"| {r['app']} | {r['page']} | {r['kind']} | failed: {r['failure']} | | |")
            continue
        kind = r["kind"] if list(r["made"]) == [r["kind"]] else \
            f"{r['kind']} ({', '.join(r['made'])})"
        print(f"| {r['app']} | {r['page']} | {kind} | {r['cpu_ms']:.1f} | {r['kib']:.1f} | "
              f"{r['unanswered']} |")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    return 0 if all("failure" not in r and not r["unanswered"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
