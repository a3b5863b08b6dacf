"""Per-process caches of results computed from inputs, that a server can hand back when idle.

`functools.lru_cache` keeps what a class computed (traces, runs, frames of every slider value
someone tried) until it is evicted, so a server's memory stays where the class left it. The
caches here behave the same (bounded, least recently used out first) and add two things:

- `keep_current()`: every entry there is now is kept for good: the server's warm-up (every
  language's default inputs) runs before the first visitor and stays;
- `release()`: every other entry goes. A server calls it when its last session has closed,
  so the memory a class made it use goes back (`steps.release`), and the next class computes
  again what it asks for.

A cache made with `disk=True` holds results that depend only on their inputs, the code, the
weights and the library versions (never on the machine's speed): the server's warm-up cache
(`steps/warmcache.py`) writes its entries to disk after the warm-up (`saved`) and a later start puts them
back (`restore`) before the warm-up asks for them. `caches()` lists every cache by `name`.

    @memo(maxsize=256)
    def generate(variant, ids, n_new): ...

    generate.cache_info(), generate.cache_clear()   # as lru_cache's
"""
from __future__ import annotations

import functools
import threading
import weakref
from collections import OrderedDict, namedtuple

CacheInfo = namedtuple("CacheInfo", "hits misses maxsize currsize")

_CACHES: "weakref.WeakSet[Memo]" = weakref.WeakSet()
_KWD_MARK = object()


class Memo:
    """A bounded LRU cache of `fn`'s results, with entries that can be kept for good."""

    def __init__(self, fn, maxsize: int, disk: bool = False):
        if maxsize < 1:
            raise ValueError("maxsize must be at least 1")
        self.fn, self.maxsize, self.disk = fn, maxsize, disk
        self.name = f"{fn.__module__}.{fn.__qualname__}"
        self._cache: OrderedDict = OrderedDict()
        self._kept: set = set()
        self._lock = threading.Lock()
        self.hits = self.misses = 0
        functools.update_wrapper(self, fn)
        _CACHES.add(self)      # reached by keep_all / release_all (subclasses too)

    @staticmethod
    def _key(args: tuple, kwargs: dict):
        return args + (_KWD_MARK,) + tuple(kwargs.items()) if kwargs else args

    def __call__(self, *args, **kwargs):
        key = self._key(args, kwargs)
        with self._lock:
            try:
                value = self._cache[key]
            except KeyError:
                self.misses += 1
            else:
                self._cache.move_to_end(key)
                self.hits += 1
                return value
        value = self.fn(*args, **kwargs)
        with self._lock:
            if key in self._cache:             # another thread computed it meanwhile
                return self._cache[key]
            self._cache[key] = value
            if len(self._cache) > self.maxsize:
                self._evict()
        return value

    def _evict(self) -> None:
        """Drop the least recently used entries that are not kept, down to maxsize (kept ones
        may keep the cache above it)."""
        for key in [k for k in self._cache if k not in self._kept]:
            if len(self._cache) <= self.maxsize:
                return
            self._drop(key)

    def _drop(self, key) -> None:
        del self._cache[key]

    def keep_current(self) -> int:
        with self._lock:
            self._kept = set(self._cache)
            return len(self._kept)

    def release(self) -> int:
        """Drop every entry not kept; how many went."""
        with self._lock:
            gone = [k for k in self._cache if k not in self._kept]
            for k in gone:
                self._drop(k)
            return len(gone)

    def saved(self) -> list:
        """Every entry as a ((args, kwargs), value) pair, for the warm-up cache (which takes
        them at the end of the warm-up: all of them are the warm-up's)."""
        with self._lock:
            return [(self._call_of(k), v) for k, v in self._cache.items()]

    def restore(self, pairs) -> int:
        """Put back entries `saved` returned (another process's), kept for good; how many."""
        n = 0
        with self._lock:
            for (args, kwargs), value in pairs:
                key = self._key(tuple(args), dict(kwargs))
                self._cache[key] = value
                self._kept.add(key)
                n += 1
        return n

    @staticmethod
    def _call_of(key) -> tuple:
        i = next((i for i, part in enumerate(key) if part is _KWD_MARK), None)
        return (key, {}) if i is None else (key[:i], dict(key[i + 1:]))

    def cache_info(self) -> CacheInfo:
        return CacheInfo(self.hits, self.misses, self.maxsize, len(self._cache))

    def cache_clear(self) -> None:
        with self._lock:
            self._cache.clear()
            self._kept.clear()
            self.hits = self.misses = 0


def memo(maxsize: int = 128, disk: bool = False):
    """`functools.lru_cache(maxsize)` whose entries `release_all` hands back; with `disk`, the
    warm-up cache keeps them between starts (module doc)."""
    return lambda fn: Memo(fn, maxsize, disk)


def caches() -> list:
    """Every cache of this process (those of modules imported so far)."""
    return list(_CACHES)


def keep_all() -> int:
    """Keep every entry of every cache for good (after the server's warm-up); how many."""
    return sum(c.keep_current() for c in list(_CACHES))


def release_all() -> int:
    """Drop every entry not kept, from every cache; how many went."""
    return sum(c.release() for c in list(_CACHES))
