"""Sharing what sessions have in common: built once per process, held once."""
from __future__ import annotations

import functools
import threading
from collections import OrderedDict


def shared(fn, maxsize: int = 256):
    """`fn` memoized across sessions: what the text layer builds from immutable engine results
    (the frames of a run in a language) is built once per process, not once per session, and
    every session holds the same object. Arguments are keyed by value when hashable, else by
    identity (the cached entry keeps them alive, so an identity is never reused meanwhile)."""
    cache: OrderedDict = OrderedDict()
    lock = threading.Lock()

    def key_of(a):
        try:
            hash(a)
            return ("=", a)
        except TypeError:
            return ("id", id(a))

    @functools.wraps(fn)
    def wrapper(*args):
        key = tuple(key_of(a) for a in args)
        with lock:
            hit = cache.get(key)
            if hit is not None:
                cache.move_to_end(key)
                return hit[1]
        value = fn(*args)
        with lock:
            cache[key] = (args, value)
            while len(cache) > maxsize:
                cache.popitem(last=False)
        return value
    return wrapper
