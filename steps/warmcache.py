"""The warm-up's work kept on disk, so that a restart is ready in seconds.

What the warm-up computes (`steps.warm`: the live model's runs for every value a control can
reach, part D's sweeps, the played frames of every state) depends only on the weights, the
code, the catalogs and the library versions: the same inputs give the same results. After a
warm-up, `save` writes those results to one file, named by a digest of everything they depend
on (`digest`); a later start with the same digest puts them back (`load`) before the warm-up
asks for them, so the warm-up only looks them up. What depends on the machine's speed is never
kept: step 4's tokens per second and step 2's wall times are measured again on every start
(their caches and jobs are not marked for the disk), so "measured on this server" stays true.

What is kept: the kept entries of every cache made with `disk=True` (`explainer.memo`,
`steps.ui.shared`, the shared frames of `steps.ui.frames`) and the results of the live jobs
(`steps.live.JOBS`) whose step does not name them as speed measurements (a step model's
`speed_job(key)`). They go into one pickle, so an object shared between them (a run, and the
frames keyed by that run) comes back as one object, found by identity as before. A translator
is written as its language and comes back as this process's translator of that language.

Where: `KV_EXPLAINER_CACHE` names the directory (`off` turns the cache off); by default
`$XDG_CACHE_HOME/kv-cache-explainer` (`~/.cache/kv-cache-explainer`). Writing a file removes
the files of other code there (`WarmCache.prune`): one version's file is kept. Processes started
together share it: each writes a temporary file and renames it into place (atomic on one file
system), so a reader sees a whole file or none. A file is read only if its header says it is
this format and this digest and its payload has the checksum the header gives; anything else
(a truncated, corrupt or foreign file) is set aside with one log line and the work is done
again, then written anew. The payload is read by an unpickler that builds only the classes of
this app, numpy and a few of Python's own (`_Reader`), and the directory should be writable
by the server's user only (a file that passes the checksum is trusted to be our own).

The digest covers: this format, the Python source of `explainer/` and `steps/`, the catalogs
(`locales/`), the weights and tokenizer (`assets/`), the versions of Python, torch, numpy,
param and Babel, the device the live model runs on and torch's thread count (a matrix product
split over other threads may round differently).
"""
from __future__ import annotations

import hashlib
import io
import json
import os
import pickle
import platform
import sys
import tempfile
import time
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ENV = "KV_EXPLAINER_CACHE"
FORMAT = 1
MAGIC = b"KV-CACHE-EXPLAINER warm-up cache\n"
PREFIX = "KV Cache Explainer"


def cache_dir() -> Path | None:
    """The directory of the warm-up cache, or None when turned off (`KV_EXPLAINER_CACHE=off`)."""
    given = os.environ.get(ENV, "").strip()
    if given.lower() in ("0", "off", "no", "false", "none"):
        return None
    if given:
        return Path(given).expanduser()
    base = os.environ.get("XDG_CACHE_HOME", "").strip() or Path.home() / ".cache"
    return Path(base) / "kv-cache-explainer"


def _sources() -> list[Path]:
    files = []
    for folder, pattern in (("explainer", "*.py"), ("steps", "*.py"), ("locales", "*"),
                            ("assets", "*")):
        files += [p for p in (ROOT / folder).rglob(pattern)
                  if p.is_file() and "__pycache__" not in p.parts]
    return sorted(files)


def digest() -> str:
    """What the kept results depend on, as one hex digest (module doc)."""
    import babel
    import numpy
    import param
    import torch
    from explainer import runtime as rt
    h = hashlib.sha256()
    facts = {"format": FORMAT, "python": sys.version, "torch": torch.__version__,
             "numpy": numpy.__version__, "param": param.__version__,
             "babel": babel.__version__, "device": str(rt.pick_device()),
             "threads": torch.get_num_threads(), "machine": platform.machine()}
    h.update(json.dumps(facts, sort_keys=True).encode())
    for path in _sources():
        h.update(os.path.relpath(path, ROOT).encode() + b"\0")
        h.update(hashlib.sha256(path.read_bytes()).digest())
    return h.hexdigest()


def path_for(folder: Path, key: str) -> Path:
    return folder / f"warm-{key[:32]}.bin"


# -- what is kept -----------------------------------------------------------------------------

def _disk_caches() -> dict:
    from explainer import memo
    return {c.name: c for c in memo.caches() if c.disk}


def speed_job(key) -> bool:
    """Whether a live job measures the machine's speed (never kept): its step model says so."""
    from . import registry
    for n in registry.NUMBERS:
        says = getattr(registry.part(n, "model"), "speed_job", None)
        if says is not None and says(key):
            return True
    return False


def snapshot() -> dict:
    """What this process's warm-up made that another start may reuse (module doc)."""
    from .live import JOBS
    caches = {name: c.saved() for name, c in sorted(_disk_caches().items())}
    jobs = []
    for key, value in JOBS.finished():
        if not speed_job(key):
            jobs.append((key, value))
    return {"caches": caches, "jobs": jobs}


def restore(data: dict) -> tuple[int, int]:
    """Put a snapshot back; (cache entries, jobs) restored. A cache this code no longer has
    is skipped (the digest makes that rare: the code is part of it)."""
    from .live import JOBS
    caches = _disk_caches()
    entries = sum(caches[name].restore(pairs) for name, pairs in data["caches"].items()
                  if name in caches)
    for key, value in data["jobs"]:
        JOBS.put(key, value)
    return entries, len(data["jobs"])


# -- the file ---------------------------------------------------------------------------------

class _Writer(pickle.Pickler):
    """A translator is written as its language (it comes back as this process's own)."""

    def persistent_id(self, obj):
        from explainer.i18n import Translator
        if isinstance(obj, Translator):
            return ("translator", obj.lang)
        return None


_BUILTINS = frozenset({"tuple", "list", "dict", "set", "frozenset", "int", "float", "complex",
                       "str", "bytes", "bytearray", "bool", "slice", "range", "object",
                       "type", "NoneType"})
_ALLOWED = {
    "builtins": _BUILTINS,
    "copyreg": frozenset({"_reconstructor", "__newobj__", "__newobj_ex__"}),
    "collections": frozenset({"OrderedDict", "defaultdict", "deque", "namedtuple"}),
    "decimal": frozenset({"Decimal"}),
    "numpy": frozenset({"dtype", "ndarray", "float64", "float32", "int64", "int32", "bool_"}),
    "numpy.core.multiarray": frozenset({"_reconstruct", "scalar"}),
    "numpy._core.multiarray": frozenset({"_reconstruct", "scalar"}),
    "numpy.core.numeric": frozenset({"_frombuffer"}),
    "numpy._core.numeric": frozenset({"_frombuffer"}),
}
_APP = ("explainer.", "steps.")


class _Reader(pickle.Unpickler):
    """Builds only what a snapshot holds: this app's classes, numpy arrays and scalars and a
    few of Python's own types; a translator from its language."""

    def find_class(self, module, name):
        if module.startswith(_APP) and not name.startswith("_") or \
                name in _ALLOWED.get(module, ()):
            return super().find_class(module, name)
        raise pickle.UnpicklingError(f"{module}.{name} is not something a snapshot holds")

    def persistent_load(self, pid):
        from explainer.i18n import LANGS
        from .common import translator
        if isinstance(pid, tuple) and len(pid) == 2 and pid[0] == "translator" \
                and pid[1] in LANGS:
            return translator(pid[1])
        raise pickle.UnpicklingError(f"unknown reference {pid!r}")


def encode(data: dict, key: str) -> bytes:
    buf = io.BytesIO()
    _Writer(buf, protocol=pickle.HIGHEST_PROTOCOL).dump(data)
    payload = zlib.compress(buf.getvalue(), 6)
    header = json.dumps({"format": FORMAT, "digest": key, "bytes": len(payload),
                         "sha256": hashlib.sha256(payload).hexdigest(),
                         "made": time.strftime("%Y-%m-%d %H:%M:%S %z")}).encode()
    return MAGIC + header + b"\n" + payload


def decode(blob: bytes, key: str) -> dict:
    """The snapshot in `blob`, or ValueError saying why it is not one to use."""
    if not blob.startswith(MAGIC):
        raise ValueError("not a warm-up cache file")
    end = blob.find(b"\n", len(MAGIC))
    if end < 0:
        raise ValueError("no header")
    try:
        header = json.loads(blob[len(MAGIC):end])
    except ValueError:
        raise ValueError("unreadable header") from None
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        raise ValueError("another format")
    if header.get("digest") != key:
        raise ValueError("made for other code, weights or versions")
    payload = blob[end + 1:]
    if len(payload) != header.get("bytes") or \
            hashlib.sha256(payload).hexdigest() != header.get("sha256"):
        raise ValueError("truncated or corrupt")
    try:
        data = _Reader(io.BytesIO(zlib.decompress(payload))).load()
    except Exception as exc:
        raise ValueError(f"unreadable ({exc})") from None
    if not (isinstance(data, dict) and isinstance(data.get("caches"), dict)
            and isinstance(data.get("jobs"), list)):
        raise ValueError("not a snapshot")
    return data


def write(path: Path, blob: bytes) -> None:
    """Atomically: a temporary file in the same directory, renamed into place."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(blob)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _say(text: str) -> None:
    print(f"{PREFIX}: {text}", file=sys.stderr, flush=True)


class WarmCache:
    """The warm-up cache of this code (`digest`) in `folder` (default `cache_dir()`)."""

    def __init__(self, folder: Path | None = None, key: str | None = None, say=_say):
        self.folder = cache_dir() if folder is None else Path(folder)
        self.key = key
        self.say = say
        self.loaded = False

    @property
    def on(self) -> bool:
        return self.folder is not None

    @property
    def path(self) -> Path | None:
        if not self.on:
            return None
        if self.key is None:
            self.key = digest()
        return path_for(self.folder, self.key)

    def load(self) -> dict | None:
        """The snapshot kept for this digest, or None (no file, or one not to use: said once,
        and the file is set aside so that the next save replaces it)."""
        path = self.path
        if path is None or not path.is_file():
            return None
        try:
            data = decode(path.read_bytes(), self.key)
        except (OSError, ValueError) as exc:
            self.say(f"warm-up cache {path} not used ({exc}); the warm-up computes it again")
            return None
        self.loaded = True
        return data

    def save(self, data: dict) -> Path | None:
        """Write the snapshot (not when it came from this very file); the path, or None when
        the cache is off or the directory cannot be written (said once)."""
        path = self.path
        if path is None or self.loaded:
            return None
        try:
            write(path, encode(data, self.key))
        except OSError as exc:
            self.say(f"warm-up cache not written to {path} ({exc})")
            return None
        self.prune()
        return path

    def prune(self, stale_s: float = 3600.0) -> int:
        """Remove the files of other code (an earlier version's: each is some MiB, and no
        start of this code reads them) and temporary files older than `stale_s` (a writer that
        died); how many went. A process of another version sharing the directory computes its
        own again."""
        gone = 0
        now = time.time()
        for other in self.folder.glob("warm-*.bin"):
            if other != self.path:
                gone += _unlink(other)
        for tmp in self.folder.glob(".warm-*.tmp"):
            try:
                old = now - tmp.stat().st_mtime > stale_s
            except OSError:
                continue
            if old:
                gone += _unlink(tmp)
        return gone


def _unlink(path: Path) -> int:
    try:
        path.unlink()
        return 1
    except OSError:
        return 0


def main(argv: list[str] | None = None) -> int:
    """`python -m steps.warmcache`: run the warm-up as `panel serve --setup warmup.py` does,
    so that the cache for this code is there before a class (one command on the server, with
    the environment the server will have: `KV_EXPLAINER_CACHE`, `KV_EXPLAINER_THREADS`,
    `KV_EXPLAINER_DEVICE`). `--where` says where the file for this code is and whether it is
    there; `--again` removes it first (measure a cold start)."""
    import argparse
    ap = argparse.ArgumentParser(prog="python -m steps.warmcache", description=main.__doc__)
    ap.add_argument("--where", action="store_true", help="print the cache file of this code")
    ap.add_argument("--again", action="store_true", help="remove it first, then warm up")
    args = ap.parse_args(argv)
    from .warm import warm_all, warm_threads
    import torch
    torch.set_num_threads(warm_threads())          # as the server's warm-up: part of the digest
    cache = WarmCache()
    if not cache.on:
        print(f"{PREFIX}: the warm-up cache is off ({ENV}=off)")
        return 1
    if args.where:
        print(f"{cache.path} ({'there' if cache.path.is_file() else 'not there yet'})")
        return 0
    if args.again and cache.path.is_file():
        cache.path.unlink()
    seconds = warm_all(verbose=True, live=True, cache=cache)
    print(f"{PREFIX}: warm-up done in {seconds:.1f} s; cache {cache.path}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
