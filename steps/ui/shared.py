"""Sharing what sessions have in common: built once per process, held once."""
from __future__ import annotations

import functools
import threading
from collections import OrderedDict


class _ValueKey:
    """The arguments of a call as a dictionary key: hashable ones by value, others by
    identity. The hash is computed once: a frozen dataclass hashes in Python, field by field,
    and a run of a step is a tuple of many of them."""
    __slots__ = ("parts", "_hash")

    def __init__(self, args: tuple):
        parts, hashes = [], []
        for a in args:
            try:
                hashes.append(hash(a))
                parts.append(("=", a))
            except TypeError:
                hashes.append(id(a))
                parts.append(("id", id(a)))
        self.parts = tuple(parts)
        self._hash = hash(tuple(hashes))

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other) -> bool:
        return isinstance(other, _ValueKey) and (
            self._hash == other._hash and self.parts == other.parts)


def shared(fn, maxsize: int = 256):
    """`fn` memoized across sessions: what the text layer builds from immutable engine results
    (the frames of a run in a language) is built once per process, not once per session, and
    every session holds the same object.

    A call with the very objects of a cached call (the usual case: sessions hold the engine's
    cached results) is found by their identities, without hashing them; otherwise arguments
    are keyed by value when hashable, else by identity. A cached entry keeps its arguments
    alive, so an identity is never reused while it is in the cache."""
    cache: OrderedDict = OrderedDict()     # _ValueKey -> (args, value, ids, the key)
    by_ids: dict = {}                      # ids of the arguments -> the same entry
    lock = threading.Lock()

    @functools.wraps(fn)
    def wrapper(*args):
        ids = tuple(map(id, args))
        with lock:
            entry = by_ids.get(ids)
            if entry is not None:
                cache.move_to_end(entry[3])
                return entry[1]
        key = _ValueKey(args)
        with lock:
            entry = cache.get(key)
            if entry is not None:
                cache.move_to_end(key)
                return entry[1]
        value = fn(*args)
        with lock:
            if key not in cache:
                cache[key] = entry = (args, value, ids, key)
                by_ids[ids] = entry
            while len(cache) > maxsize:
                _, old = cache.popitem(last=False)
                if by_ids.get(old[2]) is old:
                    del by_ids[old[2]]
            return cache[key][1] if key in cache else value
    return wrapper
