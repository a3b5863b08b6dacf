"""One-time work per process, before the first visitor: load the models, the tokenizer and
every catalog, and compute each step's numbers for every language's default inputs (the
engine caches them per process, so a new session only looks them up).

Run at server start: `panel serve app.py --setup warmup.py`.
"""
from __future__ import annotations

import importlib
import sys
import time

from explainer import runtime as rt
from explainer.i18n import LANGS, catalog

from .common import translator


def warm_all(verbose: bool = True) -> float:
    t0 = time.perf_counter()
    for variant in ("mha", "gqa", "mqa"):
        rt.model(variant)
    rt.tokenizer()
    for lang in LANGS:
        catalog(lang)
        translator(lang)
    for n in range(1, 7):
        try:
            view = getattr(importlib.import_module(f"steps.step{n}"), f"Step{n}")
            model_class = getattr(view, "model_class", None)
            for lang in LANGS if model_class is not None else ():
                kw = {"lang": lang} if "lang" in model_class.param else {}
                model_class(**kw)    # its outputs are computed on init and cached per process
        except Exception as exc:     # warm-up only saves time: the step reports its own errors
            print(f"KV Cache Explainer: step {n} not warmed: {exc!r}", file=sys.stderr)
    seconds = time.perf_counter() - t0
    if verbose:
        print(f"KV Cache Explainer: warmed up in {seconds:.1f} s", flush=True)
    return seconds
