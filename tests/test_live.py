"""The shared background queue for live-model work."""
import threading

import pytest

from steps.live import LiveJobs


def test_jobs_run_once_per_key_and_front_jumps_the_queue():
    jobs = LiveJobs("test-jobs")
    gate, started, order = threading.Event(), threading.Event(), []

    def job(name, block=False):
        def run():
            if block:
                started.set()
                gate.wait(5)
            order.append(name)
            return name
        return run

    first = jobs.submit("a", job("a", block=True))
    assert started.wait(5)                          # "a" is running, the rest queue up
    b = jobs.submit("b", job("b"))
    c = jobs.submit("c", job("c"), front=True)
    assert jobs.submit("b", job("never")) is b      # same key: one shared future
    gate.set()
    assert (first.result(5), b.result(5), c.result(5)) == ("a", "b", "c")
    assert order == ["a", "c", "b"]
    jobs.stop()


def test_errors_reach_the_caller_and_the_worker_survives():
    jobs = LiveJobs("test-errors")

    def boom():
        raise RuntimeError("no weights")

    with pytest.raises(RuntimeError, match="no weights"):
        jobs.submit("x", boom).result(5)
    assert jobs.submit("y", lambda: 42).result(5) == 42
    jobs.stop()
    assert jobs.submit("z", lambda: 1).cancelled()  # after stop nothing new runs


def test_a_waiting_job_nobody_wants_is_dropped():
    """A view that moved on (release) or whose session is gone (collected) no longer counts;
    a job another view still wants, or one asked for without an owner, runs."""
    import gc

    class Owner:
        pass

    jobs = LiveJobs("test-claims")
    gate, started, ran = threading.Event(), threading.Event(), []

    def blocker():
        started.set()
        gate.wait(5)

    def job(name):
        return lambda: ran.append(name) or name

    jobs.submit("busy", blocker)
    assert started.wait(5)                          # the worker is busy: the rest wait
    a, b, c = Owner(), Owner(), Owner()
    moved = jobs.submit("moved-on", job("moved-on"), owner=a)
    gone = jobs.submit("gone", job("gone"), owner=b)
    shared = jobs.submit("shared", job("shared"), owner=a)
    jobs.submit("shared", job("never"), owner=c)
    kept = jobs.submit("kept", job("kept"))
    jobs.release("moved-on", a)
    jobs.release("shared", a)                       # c still wants it
    del b
    gc.collect()
    assert jobs.waiting() == 4
    gate.set()
    assert shared.result(5) == "shared" and kept.result(5) == "kept"
    assert moved.cancelled() and gone.cancelled()
    assert ran == ["shared", "kept"]
    # asking again later queues it anew
    assert jobs.submit("moved-on", job("moved-on"), owner=a).result(5) == "moved-on"
    assert jobs._owners == {} and jobs._kept == set()      # nothing is held per owner
    jobs.stop()


def test_measuring_at_start_can_be_turned_off(monkeypatch):
    from steps.warm import measure_at_start
    monkeypatch.delenv("KV_EXPLAINER_MEASURE_AT_START", raising=False)
    assert measure_at_start()
    for off in ("0", "no", "false"):
        monkeypatch.setenv("KV_EXPLAINER_MEASURE_AT_START", off)
        assert not measure_at_start()
    monkeypatch.setenv("KV_EXPLAINER_MEASURE_AT_START", "1")
    assert measure_at_start()


def test_every_live_setting_a_page_can_ask_for_is_measured_at_start():
    """The start-up list covers each step's reachable keys (their count pins the grid)."""
    from explainer.i18n import LANGS
    from steps.step2 import model as step2
    from steps.step4 import model as step4
    from steps.step6 import model as step6
    from steps.warm import live_jobs
    keys = {key for key, _ in live_jobs()}
    assert {("step2", lang, P) for lang in LANGS
            for P in range(step2.P_MIN, step2.P_MAX + 1)} <= keys
    assert {key for key, _ in step4.live_jobs()} <= keys
    for lang in LANGS:
        for kv in step6.KV_CHOICES:
            for prec in step6.PRECISION_CHOICES:
                for w in step6.WINDOW_CHOICES:
                    assert step6.live_key(step6.live_setting(kv, prec, w, lang)) in keys
        assert step6.paged_key() in keys
    assert len(keys) == 4 * 16 + 56 + 1 + sum(len(step6.live_jobs(lang)) - 1 for lang in LANGS)


def test_the_warm_up_is_frozen_out_of_the_collectors_sight():
    import gc

    from steps.warm import freeze_shared
    try:
        assert freeze_shared() > 0 and gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()


def test_the_warm_up_builds_every_page_and_keeps_what_it_computed(monkeypatch):
    """Every step and the key ideas page are loaded at start (not by the first visitor on
    the server's loop), and what the warm-up computed stays when an idle server releases
    what its visitors added."""
    import gc
    import importlib

    from explainer import memo
    from explainer.memo import memo as memoize
    from steps import warm
    from steps.registry import END, NUMBERS, module_of
    loaded = []
    real = importlib.import_module
    monkeypatch.setattr(warm.importlib, "import_module",
                        lambda name, *a: loaded.append(name) or real(name, *a))
    warm.warm_all(verbose=False, live=False)
    assert set(loaded) >= {module_of(n) for n in (*NUMBERS, END)} >= {"steps.ending"}
    calls = []
    f = memoize(maxsize=4)(lambda x: calls.append(x) or [x])
    f("warm")
    try:
        warm.freeze_shared()
    finally:
        gc.unfreeze()
    f("visitor")
    memo.release_all()
    f("warm"), f("visitor")
    assert calls == ["warm", "visitor", "visitor"]
