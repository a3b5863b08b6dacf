"""`python -m tests.warm_states OUT.json`: the warm-up as `panel serve --setup warmup.py` runs
it (with the warm-up cache that `KV_EXPLAINER_CACHE` names), then the state of every page,
part and language, before and after its question is answered, as a session would get it,
written to OUT.json with the warm-up's seconds and its progress lines.

tests/test_warmcache.py runs it cold and cached and compares the two. What measures this
machine's speed (step 2's wall times, step 4's tokens per second, and the sentences that quote
them) would differ from one start to the next even without a cache, so the live model's clock
is a counter here (`Ticks`: every timed step of a run takes 1/1024 s): both starts then
measure the same speeds, and the states are compared whole.
"""
from __future__ import annotations

import contextlib
import io
import json
import sys
import time

PARTS = {5: ("a", "b"), 6: ("a", "b", "c", "d")}


class Ticks:
    """The `time` module as the runtime sees it, with a clock that moves 1/1024 s per reading
    (a power of two: every difference of two readings is exact, whatever the count)."""

    def __init__(self):
        self.n = 0

    def perf_counter(self) -> float:
        self.n += 1
        return self.n / 1024

    def __getattr__(self, name):
        return getattr(time, name)


def states() -> dict:
    from explainer.i18n import LANGS
    from steps.registry import END, NUMBERS
    from steps.shell import App
    out = {}
    for n in (*NUMBERS, END):
        for part in PARTS.get(n, (None,)):
            for lang in LANGS:
                q = {"step": [str(n)], "lang": [lang], **({"part": [part]} if part else {})}
                app = App(query=q)
                name = f"{n}{part or ''}-{lang}"
                out[name] = app.state()
                app.handle({"shown": True})
                out[name + "-shown"] = app.state()
    return out


def main(path: str) -> None:
    from explainer import runtime as rt
    from steps.live import JOBS
    from steps.warm import freeze_shared, warm_all
    rt.time = Ticks()
    log = io.StringIO()
    t0 = time.perf_counter()
    with contextlib.redirect_stdout(log), contextlib.redirect_stderr(log):
        warm_all(verbose=True)
        freeze_shared()
    seconds = time.perf_counter() - t0
    while JOBS.unfinished():
        time.sleep(0.05)                    # the speed measured in the background
    with open(path, "w", encoding="utf-8") as f:
        json.dump({"seconds": seconds, "log": log.getvalue(), "states": states()}, f,
                  ensure_ascii=False, sort_keys=True)


if __name__ == "__main__":
    main(sys.argv[1])
