"""`steps.ui.shared`: what sessions have in common is built once per process."""
from dataclasses import dataclass

import numpy as np

from steps.ui.shared import shared


@dataclass(frozen=True)
class Work:
    """A frozen dataclass counts its hashes (a run of a step is a tuple of these)."""
    n: int
    hashes = [0]

    def __hash__(self):
        Work.hashes[0] += 1
        return hash(self.n)


def counting(fn):
    calls = []

    def wrapped(*args):
        calls.append(args)
        return fn(*args)
    return wrapped, calls


def test_the_same_objects_are_found_without_hashing_them_again():
    fn, calls = counting(lambda run, lang: (len(run), lang))
    cached = shared(fn)
    run = tuple(Work(i) for i in range(50))
    before = Work.hashes[0]
    first = cached(run, "en")
    hashed = Work.hashes[0]
    assert hashed - before == 50              # the first call keys the run by value, once
    for _ in range(5):
        assert cached(run, "en") is first
    assert Work.hashes[0] == hashed           # later calls: by identity, no hashing
    assert len(calls) == 1


def test_equal_arguments_share_the_entry_and_others_do_not():
    fn, calls = counting(lambda run, lang: [len(run), lang])
    cached = shared(fn)
    a = cached(tuple(Work(i) for i in range(3)), "en")
    assert cached(tuple(Work(i) for i in range(3)), "en") is a     # equal: one entry
    assert cached(tuple(Work(i) for i in range(4)), "en") is not a
    assert cached(tuple(Work(i) for i in range(3)), "pl") is not a
    assert len(calls) == 3


def test_unhashable_arguments_are_keyed_by_identity_and_kept_alive():
    fn, calls = counting(lambda arr: float(arr.sum()))
    cached = shared(fn)
    arr = np.arange(4)
    assert cached(arr) == cached(arr) == 6.0
    assert cached(np.arange(4)) == 6.0        # an equal array, another object: built again
    assert len(calls) == 2


def test_eviction_forgets_both_keys():
    fn, calls = counting(lambda x: [x])
    cached = shared(fn, maxsize=2)
    one, two, three = (Work(1),), (Work(2),), (Work(3),)
    first = cached(one)
    cached(two)
    cached(one)                               # one is now the newest: two goes next
    cached(three)
    assert cached(one) is first and len(calls) == 3
    cached(two)                               # evicted: built again; three goes
    assert len(calls) == 4
    cached(three)                             # built again; one goes
    assert len(calls) == 5
    again = cached(one)                       # by identity no longer: built again
    assert len(calls) == 6 and again is not first and again == first
