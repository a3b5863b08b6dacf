"""CPython's collector, tuned for a class: one full collection every `full_every` middle ones."""
from __future__ import annotations

import gc

from . import fits, plain

WRITTEN_FOR = {"python": "3.1[0-3].*"}      # 3.10 to 3.13


def tune_gc(full_every: int = 50) -> bool:
    """Make CPython's full collections `full_every / 10` times rarer (each holds the event loop
    a few hundred ms with a class on the server). Up to 3.13 the third value of
    `gc.set_threshold` counts middle-generation collections per full one (default 10); 3.14's
    incremental collector (https://github.com/python/cpython/issues/108362) ignores it, so
    there this is skipped with a warning. Whether it was applied."""
    if plain() or not fits("tune_gc", WRITTEN_FOR):
        return False
    young, middle, _ = gc.get_threshold()
    gc.set_threshold(young, middle, full_every)
    return True
