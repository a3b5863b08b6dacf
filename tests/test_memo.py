"""Per-process caches that an idle server hands back (`explainer.memo`), and the server's
policy: what the warm-up computed stays, what a class added goes once the last session has
closed."""
from explainer import memo
from explainer.memo import memo as memoize


def counting(fn):
    calls = []

    def wrapped(*args, **kwargs):
        calls.append(args)
        return fn(*args, **kwargs)
    return wrapped, calls


def test_memo_caches_like_lru_cache():
    fn, calls = counting(lambda x, scale=1: [x * scale])
    f = memoize(maxsize=2)(fn)
    a = f(1)
    assert f(1) is a and len(calls) == 1
    assert f(1, scale=2) == [2] and len(calls) == 2        # keywords are part of the key
    assert f.cache_info() == memo.CacheInfo(hits=1, misses=2, maxsize=2, currsize=2)
    f(3)                                                    # 1 was used less recently: it goes
    assert f.cache_info().currsize == 2
    assert f(1) is not a and len(calls) == 4
    f.cache_clear()
    assert f.cache_info() == memo.CacheInfo(0, 0, 2, 0)


def test_memo_keeps_the_name_and_docstring():
    def traced(x):
        """Doc."""
        return x
    f = memoize(maxsize=4)(traced)
    assert f.__name__ == "traced" and f.__doc__ == "Doc." and f.__wrapped__ is traced


def test_release_drops_what_came_after_keep_current():
    fn, calls = counting(lambda x: [x])
    f = memoize(maxsize=8)(fn)
    warm = f("default")
    assert f.keep_current() == 1
    later = [f(i) for i in range(3)]
    assert f.release() == 3
    assert f("default") is warm and len(calls) == 4         # kept: not built again
    assert f(0) is not later[0] and f(0) == later[0]        # released: built again
    assert f.release() == 1 and f.release() == 0


def test_kept_entries_outlive_eviction():
    fn, calls = counting(lambda x: [x])
    f = memoize(maxsize=2)(fn)
    warm = f("default")
    f.keep_current()
    for i in range(5):
        f(i)
    assert f("default") is warm and f.cache_info().currsize == 2


def test_keep_all_and_release_all_reach_the_shared_frames_too():
    from steps.ui.shared import shared
    fn, calls = counting(lambda x: [x])
    f = memoize(maxsize=8)(fn)
    frames, built = counting(lambda x: ("frames", x))
    g = shared(frames)
    f("warm"), g("warm")
    memo.keep_all()
    f("class"), g("class")
    assert memo.release_all() >= 2
    f("warm"), g("warm")
    assert len(calls) == 2 and len(built) == 2               # the warm entries stayed
    f("class"), g("class")
    assert len(calls) == 3 and len(built) == 3               # the class's went


def test_an_idle_server_releases_what_the_class_computed(monkeypatch):
    """`release_memory` with no session left drops the unkept entries; with sessions still
    open (a collection worth making while others stay) it keeps them."""
    import steps.release as rel
    fn, calls = counting(lambda x: [x])
    f = memoize(maxsize=8)(fn)
    f("warm")
    f.keep_current()
    f("class")
    monkeypatch.setattr(rel.gc, "collect", lambda: 0)
    monkeypatch.setattr(rel, "_open", 40)
    monkeypatch.setattr(rel, "_closed", 10)
    assert rel.release_memory()
    assert f.cache_info().currsize == 2                     # sessions open: nothing dropped
    monkeypatch.setattr(rel, "_open", 0)
    monkeypatch.setattr(rel, "_closed", 1)
    assert rel.release_memory()
    assert f.cache_info().currsize == 1
    f("warm")
    assert len(calls) == 2


def test_the_engine_and_step_caches_are_released_ones():
    """The caches that grow with what visitors try are memos (the constants of a process,
    such as the model and the tokenizer, stay lru_caches)."""
    from explainer import runtime as rt
    from steps.step1 import model as s1
    from steps.step3 import model as s3
    from steps.step4 import model as s4
    from steps.step5 import model as s5
    for f in (rt.generate, rt.variant_effect, rt.paged_demo, s1._run, s3._run, s4.roofline_of,
              s4.batching_of, s5.bill_of, s5.curve_of):
        assert isinstance(f, memo.Memo), f
    assert not isinstance(rt.model, memo.Memo)
