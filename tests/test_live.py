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
