"""Fixtures every test directory shares."""
import pytest


@pytest.fixture
def step4_stand_in(monkeypatch):
    """Step 4's live measurement replaced by a cheap stand-in, in an empty queue of the test's
    own; the value is the list of prompt lengths it was asked for."""
    import explainer.runtime as rt
    from steps import live as live_mod
    from steps.step4.model import speeds
    jobs = live_mod.LiveJobs("test-step4-stand-in")
    monkeypatch.setattr(live_mod, "JOBS", jobs)
    calls = []

    def fake(variant, p, outputs, repeats=3):
        calls.append(p)
        return {o: rt.Throughput(p, o - 1, 0.01, 0.002, p / 0.01, 500.0, "cpu")
                for o in outputs}
    monkeypatch.setattr(rt, "throughputs", fake)
    speeds.cache_clear()
    yield calls
    speeds.cache_clear()
    jobs.stop()
