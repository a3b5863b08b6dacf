"""One-time work per process, before the first visitor: load the models, the tokenizer and
every catalog, compute each step's numbers for every language's default inputs (the engine
caches them per process, so a new session only looks them up), run every live-model
measurement a control can reach (step 2's runs per language and prompt length, step 4's speed
grid, step 6's paged pool and live settings), so that no session waits for the live model or
shares the CPU with it, and build the played frames of steps 1, 2 and 3 for every state.

Run at server start: `panel serve app.py --setup warmup.py`.
"""
from __future__ import annotations

import importlib
import os
import sys
import time

from explainer import memo
from explainer import runtime as rt
from explainer.i18n import LANGS, catalog

from .common import translator


def live_jobs() -> list:
    """(key, fn) of every live measurement a served page can ask for, the defaults first."""
    from .step2 import model as step2
    from .step4 import model as step4
    from .step6 import model as step6
    P0 = step2.Step2Model.prompt
    jobs = [step2.live_job(lang, P0) for lang in LANGS]        # the defaults first
    for lang in LANGS:
        jobs += step2.live_jobs(lang)
    jobs += step4.live_jobs()
    for lang in LANGS:
        jobs += step6.live_jobs(lang)
    return jobs


def precompute(verbose: bool = True) -> float:
    """Run every live measurement on the shared queue (each once per process); seconds."""
    from .live import JOBS
    t0 = time.perf_counter()
    futures = [JOBS.submit(key, fn) for key, fn in live_jobs()]
    failed = 0
    for fut in futures:
        try:
            fut.result()
        except Exception:            # the view shows a failed measurement as such
            failed += 1
    seconds = time.perf_counter() - t0
    if verbose:
        print(f"KV Cache Explainer: measured {len(futures)} live settings in {seconds:.1f} s"
              + (f" ({failed} failed)" if failed else ""), flush=True)
    return seconds


def warm_frames(verbose: bool = True) -> float:
    """Build and pack the played frames of every state a control reaches, in every language
    (each view's `warm`), as sessions would on first sight: step 1's example, layer and head,
    step 2's prompt length (with its measurement), step 3's example, layer and head. A class
    moving these controls then only looks them up, and the process holds them from the start
    (packed: about 35 MiB in all) instead of growing while the class works. Seconds."""
    t0 = time.perf_counter()
    n = 0
    for step in (1, 2, 3):
        view = importlib.import_module(f"steps.step{step}.view")
        for lang in LANGS:
            n += view.warm(lang)
    seconds = time.perf_counter() - t0
    if verbose:
        print(f"KV Cache Explainer: built {n} sets of frames in {seconds:.1f} s", flush=True)
    return seconds


def freeze_shared() -> int:
    """After the warm-up: keep every cached result computed so far for good (`memo.keep_all`:
    an idle server drops only what its visitors added), and move everything alive now
    (modules, models, measurements, frames) out of the garbage collector's sight
    (`gc.freeze`). They live as long as the process, and each full collection would otherwise
    walk all of them again, on the thread that serves every session. Returns how many objects
    were frozen."""
    import gc
    memo.keep_all()
    gc.collect()
    gc.freeze()
    return gc.get_freeze_count()


def measure_at_start() -> bool:
    """KV_EXPLAINER_MEASURE_AT_START=0 skips the live measurements at start (each is then
    made the first time a page shows it): for quick tries and tests that start servers."""
    return os.environ.get("KV_EXPLAINER_MEASURE_AT_START", "1").strip() not in ("0", "no",
                                                                               "false")


def warm_all(verbose: bool = True, live: bool | None = None) -> float:
    t0 = time.perf_counter()
    live = measure_at_start() if live is None else live
    for variant in ("mha", "gqa", "mqa"):
        rt.model(variant)
    rt.tokenizer()
    for lang in LANGS:
        catalog(lang)
        translator(lang)
    from .shell import STEP_MODULES
    for n, (module, name) in STEP_MODULES.items():    # steps 1-6 and the key ideas page
        try:
            view = getattr(importlib.import_module(module), name)
            model_class = getattr(view, "model_class", None)
            for lang in LANGS if model_class is not None else ():
                kw = {"lang": lang} if "lang" in model_class.param else {}
                model_class(**kw)    # its outputs are computed on init and cached per process
                if "example" in model_class.param:      # every example prompt's run, too
                    lo, hi = model_class.param.example.bounds
                    for example in range(lo, hi + 1):
                        model_class(**kw, example=example)
        except Exception as exc:     # warm-up only saves time: the step reports its own errors
            print(f"KV Cache Explainer: step {n} not warmed: {exc!r}", file=sys.stderr)
    if live:
        precompute(verbose)
        warm_frames(verbose)
    seconds = time.perf_counter() - t0
    if verbose:
        print(f"KV Cache Explainer: warmed up in {seconds:.1f} s", flush=True)
    return seconds
