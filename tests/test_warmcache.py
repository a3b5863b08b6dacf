"""The warm-up cache (steps/warmcache.py): a cached start serves what a cold one does, a
hostile file is never read (and never crashes the start), writers never leave half a file,
and what measures this machine's speed is never kept."""
from __future__ import annotations

import json
import os
import pickle
import subprocess
import sys
import zlib
from pathlib import Path

import pytest

from explainer import memo
from steps import warmcache
from steps.common import translator
from steps.ui.frames import Frames
from steps.ui.shared import shared

ROOT = Path(__file__).resolve().parent.parent
KEY = "0" * 64


def sample():
    frames = Frames([{"pos": "Token 1", "cards": [{"key": "a", "value": "1"}]}])
    tr = translator("pl")
    return {"caches": {"x": [(((1, tr), {}), frames)]}, "jobs": [(("step6", "pl"), (1.5, frames))]}


def test_a_snapshot_comes_back_with_its_shared_objects_and_this_process_translators():
    data = warmcache.decode(warmcache.encode(sample(), KEY), KEY)
    (args, kwargs), frames = data["caches"]["x"][0]
    assert args[1] is translator("pl")                 # the process's own, by language
    assert data["jobs"][0][1][1] is frames             # one object, as when it was written
    assert frames.frames()[0]["pos"] == "Token 1"


@pytest.mark.parametrize("spoil, why", [
    (lambda b: b"not a cache at all", "not a warm-up cache file"),
    (lambda b: b[:-10], "truncated or corrupt"),
    (lambda b: b[:len(warmcache.MAGIC) + 5], "no header"),
    (lambda b: b[:-1] + bytes([b[-1] ^ 1]), "truncated or corrupt"),
    (lambda b: b.replace(b'"format": 1', b'"format": 9'), "another format"),
    (lambda b: warmcache.MAGIC + b"{not json\n" + b"x", "unreadable header"),
])
def test_a_spoilt_file_is_refused_with_its_reason(spoil, why):
    blob = warmcache.encode(sample(), KEY)
    with pytest.raises(ValueError, match=why):
        warmcache.decode(spoil(blob), KEY)


def test_a_file_of_other_code_is_refused():
    blob = warmcache.encode(sample(), KEY)
    with pytest.raises(ValueError, match="other code"):
        warmcache.decode(blob, "1" * 64)


def forged(payload: bytes, key: str = KEY) -> bytes:
    """A file with a valid header and checksum around `payload` (a pickle)."""
    import hashlib
    body = zlib.compress(payload)
    header = json.dumps({"format": warmcache.FORMAT, "digest": key, "bytes": len(body),
                         "sha256": hashlib.sha256(body).hexdigest()}).encode()
    return warmcache.MAGIC + header + b"\n" + body


class Boom:
    def __reduce__(self):
        return (os.system, ("echo owned > /dev/null",))


def test_a_forged_file_cannot_run_code_or_build_what_a_snapshot_does_not_hold():
    for evil in (Boom(), {"caches": {}, "jobs": [], "x": pickle.loads}):
        with pytest.raises(ValueError, match="is not something a snapshot holds"):
            warmcache.decode(forged(pickle.dumps(evil)), KEY)
    with pytest.raises(ValueError, match="not a snapshot"):
        warmcache.decode(forged(pickle.dumps([1, 2])), KEY)


def test_a_hostile_file_is_said_once_set_aside_and_replaced(tmp_path):
    said = []
    cache = warmcache.WarmCache(tmp_path, KEY, say=said.append)
    cache.path.write_bytes(b"\x00garbage" * 100)
    assert cache.load() is None
    assert len(said) == 1 and "not used (not a warm-up cache file)" in said[0]
    assert cache.save(sample()) == cache.path          # written anew
    again = warmcache.WarmCache(tmp_path, KEY, say=said.append)
    assert again.load() is not None and len(said) == 1
    assert again.save(sample()) is None                # read from there: nothing to write


def test_writing_removes_the_files_of_other_code_and_dead_writers(tmp_path):
    import time
    (tmp_path / "warm-old.bin").write_bytes(b"x")
    dead, fresh = tmp_path / ".warm-a.bin.1.tmp", tmp_path / ".warm-b.bin.2.tmp"
    dead.write_bytes(b"x")
    fresh.write_bytes(b"x")
    os.utime(dead, (time.time() - 7200, time.time() - 7200))
    (tmp_path / "notes.txt").write_text("kept")
    cache = warmcache.WarmCache(tmp_path, KEY, say=lambda _: None)
    assert cache.save(sample()) == cache.path
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        [cache.path.name, fresh.name, "notes.txt"])      # a writer at work keeps its file


def test_the_background_measurements_say_when_they_are_done(monkeypatch):
    import io
    from concurrent.futures import Future
    from steps import release
    from steps.warm import say_when_done
    trims = []
    monkeypatch.setattr(release, "trim", lambda: trims.append(1) or True)
    out, futures = io.StringIO(), [Future() for _ in range(3)]
    say_when_done(futures, stream=out)
    for f in futures[:2]:
        f.set_result(1)
    assert out.getvalue() == "" and trims == []
    futures[2].set_exception(RuntimeError("a failed one counts as done"))
    assert out.getvalue().startswith("KV Cache Explainer: this machine's speed measured in "
                                      "the background (3 in ")
    assert trims == [1]               # the memory they used goes back before the line is said


def test_the_warm_up_hands_back_what_it_freed(monkeypatch):
    """After the warm-up the freed heap goes back to the system at once, not at the first
    class's leaving (a size read before a class would otherwise depend on when it is read)."""
    import gc
    from steps import release
    from steps.warm import freeze_shared
    assert release.trim() is (release._LIBC is not None)
    trims = []
    monkeypatch.setattr(release, "trim", lambda: trims.append(gc.get_freeze_count()) or True)
    try:
        freeze_shared()
    finally:
        gc.unfreeze()
    assert len(trims) == 1 and trims[0] > 0          # once, after the objects are frozen


def test_an_unwritable_directory_is_said_and_the_start_goes_on(tmp_path):
    said = []
    blocker = tmp_path / "file"
    blocker.write_text("x")
    cache = warmcache.WarmCache(blocker / "sub", KEY, say=said.append)
    assert cache.load() is None and said == []
    assert cache.save(sample()) is None
    assert len(said) == 1 and "not written" in said[0]


def test_the_cache_directory_follows_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv(warmcache.ENV, str(tmp_path / "c"))
    assert warmcache.cache_dir() == tmp_path / "c"
    monkeypatch.setenv(warmcache.ENV, "off")
    assert warmcache.cache_dir() is None and not warmcache.WarmCache().on
    monkeypatch.delenv(warmcache.ENV)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "x"))
    assert warmcache.cache_dir() == tmp_path / "x" / "kv-cache-explainer"


def test_the_digest_changes_with_the_code_and_the_thread_count(monkeypatch, tmp_path):
    import torch
    base = warmcache.digest()
    assert base == warmcache.digest() and len(base) == 64
    threads = torch.get_num_threads()
    try:
        torch.set_num_threads(threads + 1)
        assert warmcache.digest() != base
    finally:
        torch.set_num_threads(threads)
    extra, sources = tmp_path / "extra.py", warmcache._sources
    extra.write_text("x = 1\n")
    monkeypatch.setattr(warmcache, "_sources", lambda: [*sources(), extra])
    with_extra = warmcache.digest()
    extra.write_text("x = 2\n")
    assert len({base, with_extra, warmcache.digest()}) == 3


WRITER = """
import sys
from steps import warmcache
from tests.test_warmcache import sample
data = sample()
data["jobs"] = [(("n", i), bytes(2000)) for i in range(2000)] + data["jobs"]
for _ in range(int(sys.argv[2])):
    warmcache.write(warmcache.Path(sys.argv[1]), warmcache.encode(data, "0" * 64))
"""


def test_processes_writing_together_never_leave_half_a_file(tmp_path):
    path = tmp_path / "warm.bin"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    writers = [subprocess.Popen([sys.executable, "-c", WRITER, str(path), "15"], cwd=ROOT,
                                env=env) for _ in range(2)]
    reads = 0
    while any(w.poll() is None for w in writers):
        if path.exists():
            warmcache.decode(path.read_bytes(), KEY)     # whole, or it raises
            reads += 1
    assert [w.wait() for w in writers] == [0, 0]
    assert reads > 0
    warmcache.decode(path.read_bytes(), KEY)
    assert [p.name for p in tmp_path.iterdir()] == ["warm.bin"]      # no temporary left


def test_memo_and_shared_caches_give_back_what_they_kept():
    calls = []

    @memo.memo(maxsize=4, disk=True)
    def f(a, b=0):
        calls.append((a, b))
        return a + b

    f(1), f(2, b=3)
    saved = f.saved()
    g = memo.Memo(f.fn, 4, disk=True)
    assert g.restore(saved) == 2
    assert g(1) == 1 and g(2, b=3) == 5 and calls == [(1, 0), (2, 3)]     # not computed again

    built = []
    s = shared(lambda run, tr: built.append(run) or (run, tr.lang), disk=True)
    run = ("a run", 1)
    s(run, translator("nl"))
    data = warmcache.decode(warmcache.encode(
        {"caches": {"s": s.saved()}, "jobs": []}, KEY), KEY)
    t = shared(s.fn, disk=True)
    t.restore(data["caches"]["s"])
    (args, _), _ = data["caches"]["s"][0]
    assert t(args[0], translator("nl")) == (run, "nl") and len(built) == 1


def test_speed_measurements_are_never_kept():
    from steps.step2 import model as step2
    from steps.step4 import model as step4
    assert warmcache.speed_job(step2.live_job("en", 3)[0])
    assert all(warmcache.speed_job(k) for k, _ in step4.live_jobs())
    from steps.step6 import model as step6
    assert not any(warmcache.speed_job(k) for k, _ in step6.live_jobs("en"))
    from steps.step2.view import FRAMES
    assert FRAMES.disk is False                        # step 2's frames show wall times


def run_states(tmp_path, name, cache_dir):
    out = tmp_path / f"{name}.json"
    env = {**os.environ, "PYTHONPATH": str(ROOT), warmcache.ENV: str(cache_dir)}
    subprocess.run([sys.executable, "-m", "tests.warm_states", str(out)], cwd=ROOT, env=env,
                   check=True, timeout=900)
    return json.loads(out.read_text(encoding="utf-8"))


def test_a_cached_start_serves_what_a_cold_start_serves(tmp_path):
    """A cold start (an empty cache directory) computes everything and writes the cache; a
    second start reads it: every page, part and language, before and after its answer, is the
    same state (this machine's speed left out: tests/warm_states.py), and the cached start's
    log says what came from the cache."""
    cache = tmp_path / "cache"
    cold = run_states(tmp_path, "cold", cache)
    files = list(cache.iterdir())
    assert len(files) == 1 and files[0].name.startswith("warm-")
    warm = run_states(tmp_path, "warm", cache)
    assert "none yet in" in cold["log"] and "warm-up cache written: 1/1" in cold["log"]
    assert f"measurements from {files[0]}" in warm["log"]
    assert "from the warm-up cache" in warm["log"]
    assert "measured in the background" in warm["log"]
    differ = sorted(k for k in cold["states"] if cold["states"][k] != warm["states"].get(k))
    assert set(cold["states"]) == set(warm["states"]) and differ == []
    assert warm["seconds"] < cold["seconds"] / 3
