"""Sharing what sessions have in common: built once per process, held once."""
from __future__ import annotations

from explainer import memo


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


class _Shared(memo.Memo):
    """The cache behind `shared`: entries by value key and by the arguments' identities (an
    `explainer.memo.Memo`, so an idle server drops what its visitors added)."""

    frames = True                       # what it holds are sets of frames (`steps.warm`)

    def __init__(self, fn, maxsize: int, disk: bool = False):
        super().__init__(fn, maxsize, disk)
        self.by_ids: dict = {}          # ids of the arguments -> (args, value, ids, the key)

    def __call__(self, *args):
        ids = tuple(map(id, args))
        with self._lock:
            entry = self.by_ids.get(ids)
            if entry is not None:
                self._cache.move_to_end(entry[3])
                return entry[1]
        key = _ValueKey(args)
        with self._lock:
            entry = self._cache.get(key)
            if entry is not None:
                self._cache.move_to_end(key)
                return entry[1]
        value = self.fn(*args)
        with self._lock:
            if key not in self._cache:
                self._cache[key] = entry = (args, value, ids, key)
                self.by_ids[ids] = entry
            if len(self._cache) > self.maxsize:
                self._evict()
            return self._cache[key][1] if key in self._cache else value

    def saved(self) -> list:
        """Every entry, as ((args, {}), value) pairs. An argument keyed by identity (a run,
        which holds arrays) keeps its meaning in another process only if it comes back as the
        very object that process's other caches hand out: `steps.warmcache` writes every
        cache in one pickle, so a run saved both as a memo's result and as these frames'
        argument comes back as one object."""
        with self._lock:
            return [((e[0], {}), e[1]) for e in self._cache.values()]

    def restore(self, pairs) -> int:
        """Put back entries `saved` returned, kept for good. The arguments come back with the
        objects they were saved with (one pickle: `steps.warmcache`), so a session that holds
        those very objects finds the entry by identity, and by value otherwise."""
        n = 0
        with self._lock:
            for (args, _), value in pairs:
                args = tuple(args)
                key, ids = _ValueKey(args), tuple(map(id, args))
                self._cache[key] = entry = (args, value, ids, key)
                self.by_ids[ids] = entry
                self._kept.add(key)
                n += 1
        return n

    def _drop(self, key) -> None:
        old = self._cache.pop(key)
        if self.by_ids.get(old[2]) is old:
            del self.by_ids[old[2]]

    def cache_clear(self) -> None:
        super().cache_clear()
        with self._lock:
            self.by_ids.clear()


def shared(fn, maxsize: int = 256, disk: bool = False):
    """`fn` memoized across sessions: what the text layer builds from immutable engine results
    (the frames of a run in a language) is built once per process, not once per session, and
    every session holds the same object.

    A call with the very objects of a cached call (the usual case: sessions hold the engine's
    cached results) is found by their identities, without hashing them; otherwise arguments
    are keyed by value when hashable, else by identity. A cached entry keeps its arguments
    alive, so an identity is never reused while it is in the cache. Entries made after the
    warm-up go when the server is idle again (`explainer.memo`); with `disk`, the warm-up
    cache keeps the warm-up's entries between starts."""
    return _Shared(fn, maxsize, disk)
