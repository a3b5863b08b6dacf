"""One-time work per process, before the first visitor: load the models, the tokenizer and
every catalog, compute each step's numbers for every language's default inputs (the engine
caches them per process, so a new session only looks them up), run every live-model
measurement a control can reach (each step's model says which in `warm_jobs()`: step 2's runs
per language and prompt length, step 4's speed grid, step 6's paged pool and live settings;
`registry.live_jobs` finds them), so that no session waits for the live model or
shares the CPU with it, and build the played frames of every step that plays them
(`StepInfo.warm_frames` in steps/registry.py) for every state.

Run at server start: `panel serve app.py --setup warmup.py`. That takes up to minutes on a
small server, so it says what it is doing and how far it is (`Progress`): each phase as
n of N, a bar on a terminal, plain lines in a log; and at the end, that the page is ready and
where (`served_url`, `ready_line`).
"""
from __future__ import annotations

import argparse
import importlib
import os
import shutil
import sys
import time
from concurrent.futures import as_completed

from explainer import memo
from explainer import runtime as rt
from explainer.i18n import LANGS, catalog

from . import registry
from .common import translator
from .registry import END, NUMBERS, STEPS, module_of

PREFIX = "KV Cache Explainer"
VARIANTS = ("mha", "gqa", "mqa")          # the live models


# -- telling the person who started the server how far the warm-up is -----------------------

class Progress:
    """What the warm-up is doing and how far it is, phase by phase ("[2/4] step numbers:
    9/28"). On a terminal each phase is one line redrawn as a bar (with `\\r`); otherwise (a log
    file, a pipe) plain lines: the phase's start, each further tenth of it done, and its end
    with its time, so that a log stays readable. `note` prints a message (a step that failed
    to warm) on stderr without breaking the bar."""

    def __init__(self, phases: int, stream=None, tty: bool | None = None, prefix: str = PREFIX,
                 width: int = 24, clock=time.perf_counter, errors=None):
        self.stream = sys.stdout if stream is None else stream
        self.errors = errors                 # None: sys.stderr at the time of the note
        if tty is None:
            isatty = getattr(self.stream, "isatty", None)
            try:
                tty = bool(isatty and isatty())
            except (ValueError, OSError):    # a closed or odd stream
                tty = False
        self.tty, self.prefix, self.width, self.clock = tty, prefix, width, clock
        self.phases, self.index = phases, 0
        self.name, self.total, self.n, self.failed = "", 0, 0, 0
        self.started = self._phase_t0 = clock()
        self._tenths = 0                     # plain lines: tenths of the phase reported so far
        self._drawn = 0                      # terminal: length of the bar line on screen

    # the phase
    def start(self, name: str, total: int) -> None:
        self.index += 1
        self.name, self.total, self.n, self.failed = name, max(0, int(total)), 0, 0
        self._phase_t0, self._tenths = self.clock(), 0
        if self.tty:
            self._draw()
        else:
            self._line(f"{self._label()}: 0/{self.total}")

    def advance(self, k: int = 1) -> None:
        self.n = min(self.total, self.n + k)
        if self.tty:
            self._draw()
        elif 0 < self.n < self.total:        # the last one is reported by `finish`
            tenths = 10 * self.n // self.total
            if tenths > self._tenths:
                self._tenths = tenths
                self._line(f"{self._label()}: {self.n}/{self.total} "
                           f"({100 * self.n // self.total} %)")

    def finish(self, detail: str = "") -> float:
        """End the phase: its line with n/N and its time. Returns the phase's seconds."""
        seconds = self.clock() - self._phase_t0
        text = f"{self._label()}: {self.n}/{self.total} in {seconds:.1f} s"
        if self.failed:
            text += f", {self.failed} failed"
        if detail:
            text += f" ({detail})"
        if self.tty:
            self._draw(text)
            self.stream.write("\n")
            self.stream.flush()
            self._drawn = 0
        else:
            self._line(text)
        return seconds

    def note(self, text: str) -> None:
        """A message between the progress lines (stderr), e.g. a step that was not warmed."""
        if self.tty and self._drawn:
            self.stream.write("\n")          # keep the bar drawn so far; redraw it below
            self.stream.flush()
            self._drawn = 0
        errors = sys.stderr if self.errors is None else self.errors
        print(f"{self.prefix}: {text}", file=errors, flush=True)
        if self.tty and self.name:
            self._draw()

    def seconds(self) -> float:
        return self.clock() - self.started

    # drawing
    def _label(self) -> str:
        where = f"[{self.index}/{self.phases}] " if self.phases > 1 else ""
        return f"{self.prefix}: {where}{self.name}"

    def _line(self, text: str) -> None:
        print(text, file=self.stream, flush=True)

    def _draw(self, text: str | None = None) -> None:
        if text is None:
            frac = self.n / self.total if self.total else 1.0
            cols = shutil.get_terminal_size((80, 24)).columns
            tail = f" {self.n}/{self.total} {self.clock() - self._phase_t0:.0f} s"
            room = cols - 1 - len(self._label()) - len(tail) - 3
            width = max(0, min(self.width, room))
            done = round(frac * width)
            bar = f" [{'#' * done}{'.' * (width - done)}]" if width >= 5 else ""
            text = (self._label() + bar + tail)[:max(1, cols - 1)]
        pad = " " * max(0, self._drawn - len(text))
        self.stream.write("\r" + text + pad)
        self.stream.flush()
        self._drawn = len(text)


def served_url(argv: list[str]) -> str | None:
    """The page's address from a `panel serve` command line (`sys.argv` while `--setup`
    runs): http(s)://address:port/prefix/app. None when it cannot be known: not `panel
    serve`, a Unix socket, port 0 (any free port) or a command line this cannot read."""
    argv = list(argv)
    if "serve" not in argv:
        return None
    try:
        from panel.command.serve import Serve
        parser = argparse.ArgumentParser(add_help=False, exit_on_error=False)
        Serve(parser=parser)
        args, _ = parser.parse_known_args(argv[argv.index("serve") + 1:])
    except (Exception, SystemExit):
        return None
    if getattr(args, "unix_socket", None) or not args.port or not args.files:
        return None
    address = args.address or "localhost"
    if address in ("0.0.0.0", "::"):        # every interface: this machine answers as localhost
        address = "localhost"
    if ":" in address:
        address = f"[{address}]"
    prefix = (args.prefix or "").strip("/")
    prefix = f"/{prefix}" if prefix else ""
    app = os.path.splitext(os.path.basename(os.path.normpath(args.files[0])))[0]
    scheme = "https" if getattr(args, "ssl_certfile", None) else "http"
    return f"{scheme}://{address}:{args.port}{prefix}/{app}"


def ready_line(seconds: float, url: str | None = None) -> str:
    """The warm-up's last line: the page is ready, and where when that is known."""
    where = f" at {url}" if url else ""
    return f"{PREFIX}: ready{where} (warmed up in {seconds:.1f} s)"


# -- the work ---------------------------------------------------------------------------------

def step_view(module: str):
    """The view class of a step's package (steps/registry.py `module`): its view module's
    `STEP`, else the class there that binds a model (`model_class`)."""
    importlib.import_module(module)
    view = importlib.import_module(module + ".view")
    found = getattr(view, "STEP", None)
    if found is None:
        found = next((c for c in vars(view).values()
                      if isinstance(c, type) and c.__module__ == view.__name__
                      and getattr(c, "model_class", None) is not None), None)
    return found


def frame_steps() -> tuple[int, ...]:
    """The steps whose played frames the warm-up builds (StepInfo.warm_frames)."""
    return tuple(n for n, s in zip(NUMBERS, STEPS) if s.warm_frames)


def warmed_pages() -> tuple[int, ...]:
    """Every page whose numbers the warm-up computes: the steps and the key-ideas page."""
    return NUMBERS + (END,)


def live_jobs() -> list:
    """(key, fn) of every live measurement a served page can ask for: each step's own (its
    model's `warm_jobs()`, found by `steps.registry.live_jobs`), in the registry's order, so
    that step 2's defaults come first."""
    return [job for n in NUMBERS for job in registry.live_jobs(n)]


class _Quiet:
    """A stream that shows nothing (verbose=False)."""
    def write(self, text: str) -> int:
        return len(text)

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return False


def _progress(progress: Progress | None, verbose: bool, phases: int = 1) -> Progress:
    if progress is not None:
        return progress
    return Progress(phases, stream=None if verbose else _Quiet())


def load_shared(verbose: bool = True, progress: Progress | None = None) -> float:
    """The live models, the tokenizer and every language's catalog and translator."""
    p = _progress(progress, verbose)
    p.start("models and catalogs", len(VARIANTS) + 1 + len(LANGS))
    for variant in VARIANTS:
        rt.model(variant)
        p.advance()
    rt.tokenizer()
    p.advance()
    for lang in LANGS:
        catalog(lang)
        translator(lang)
        p.advance()
    return p.finish()


def warm_numbers(verbose: bool = True, progress: Progress | None = None) -> float:
    """Every page's model (steps/registry.py, and the key-ideas page) in every language, and
    every example prompt's run: computed on init and cached per process."""
    p = _progress(progress, verbose)
    pages = warmed_pages()
    p.start("step numbers", len(pages) * len(LANGS))
    for n in pages:
        try:
            view = step_view(module_of(n))
            model_class = getattr(view, "model_class", None)
            if model_class is None:
                raise LookupError(f"{module_of(n)}.view has no model class")
        except Exception as exc:     # warm-up only saves time: the step reports its own errors
            p.failed += 1
            p.note(f"step {n} not warmed: {exc!r}")
            p.advance(len(LANGS))
            continue
        for lang in LANGS:
            try:
                kw = {"lang": lang} if "lang" in model_class.param else {}
                model_class(**kw)    # its outputs are computed on init and cached per process
                if "example" in model_class.param:      # every example prompt's run, too
                    lo, hi = model_class.param.example.bounds
                    for example in range(lo, hi + 1):
                        model_class(**kw, example=example)
            except Exception as exc:
                p.failed += 1
                p.note(f"step {n} ({lang}) not warmed: {exc!r}")
            p.advance()
    return p.finish()


def submit_live(speed_later: bool = False) -> tuple[list, list, int]:
    """Queue every live measurement on the shared queue (each once per process: a job asked
    for twice shares one future); they run on its thread while the caller goes on. Returns the
    futures to wait for, the keys of this machine's speed left for later (`speed_later`: they
    are queued by `measure_in_background` once the warm-up is done, so that the page answers
    first; a page that shows one before it is done says it is being measured) and how many
    were already done (from the warm-up cache)."""
    from .live import JOBS
    from .warmcache import speed_job
    jobs = live_jobs()
    kept = {key for key, _ in jobs if (f := JOBS.get(key)) is not None and f.done()}
    later = list(dict.fromkeys(key for key, _ in jobs if speed_later and speed_job(key)))
    slow = set(later)
    futures = list(dict.fromkeys(JOBS.submit(key, fn) for key, fn in jobs
                                 if key not in slow))                           # shared
    return futures, later, len(kept)


def measure_in_background(later: list) -> list:
    """Queue the speed measurements `submit_live` left for later (after the warm-up: measured
    while nothing else of the warm-up runs beside them, so they time this machine, not the
    warm-up) and say when they are done (`say_when_done`); their futures."""
    from .live import JOBS
    slow = set(later)
    background = list(dict.fromkeys(JOBS.submit(key, fn) for key, fn in live_jobs()
                                    if key in slow))
    if background:
        say_when_done(background)
    return background


def say_when_done(futures: list, stream=None) -> None:
    """Print one line when the background measurements are all done (on the queue's thread),
    after handing the memory they used back to the system (`steps.release.trim`): the log then
    says when the server's every number is there and its size is what it keeps (the classroom
    benchmark waits for it before it measures the server's memory)."""
    import threading
    from .release import trim
    t0, left, lock = time.perf_counter(), [len(futures)], threading.Lock()

    def one(_):
        with lock:
            left[0] -= 1
            if left[0]:
                return
        trim()
        print(f"{PREFIX}: this machine's speed measured in the background ({len(futures)} "
              f"in {time.perf_counter() - t0:.1f} s)", file=stream or sys.stdout, flush=True)
    for fut in futures:
        fut.add_done_callback(one)


def wait_live(futures: list, later: list, kept: int, verbose: bool = True,
              progress: Progress | None = None) -> float:
    """Wait for the measurements `submit_live` queued (not those left for later); seconds."""
    p = _progress(progress, verbose)
    p.start("live measurements", len(futures))
    for fut in as_completed(futures):
        try:
            fut.result()
        except Exception:            # the view shows a failed measurement as such
            p.failed += 1
        p.advance()
    said = [f"{kept} from the warm-up cache"] if kept else []
    if later:
        said.append(f"{len(later)} of this machine's speed measured in the background")
    return p.finish(", ".join(said))


def precompute(verbose: bool = True, progress: Progress | None = None,
               speed_later: bool = False) -> list:
    """Run every live measurement on the shared queue and wait for them, but for this
    machine's speed with `speed_later`; the keys of those left for `measure_in_background`."""
    futures, later, kept = submit_live(speed_later)
    wait_live(futures, later, kept, verbose, progress)
    return later


def warm_frames(verbose: bool = True, progress: Progress | None = None) -> float:
    """Build the played frames of every state a control reaches, in every language
    (each view's `warm`), as sessions would on first sight, for the steps whose
    StepInfo.warm_frames is set (today step 1's example, layer and head, step 2's prompt
    length with its measurement, step 3's example, layer and head). A class moving these
    controls then only looks them up, and the process holds
    them from the start, compressed (`steps.ui.frames.Frames`), instead of growing while the
    class works (their size: docs/performance.md). Seconds."""
    p = _progress(progress, verbose)
    steps = frame_steps()
    p.start("frames", len(steps) * len(LANGS))
    sets, built = 0, _frames_held()
    for n in steps:
        view = importlib.import_module(module_of(n) + ".view")
        for lang in LANGS:
            sets += view.warm(lang)
            p.advance()
    built = _frames_held() - built
    kept = f", {sets - built} from the warm-up cache" if built < sets else ""
    return p.finish(f"{sets} sets{kept}")


def _frames_held() -> int:
    """Sets of frames the shared caches hold now."""
    return sum(c.cache_info().currsize for c in memo.caches() if getattr(c, "frames", False))


def restore_cache(cache, verbose: bool = True, progress: Progress | None = None) -> bool:
    """Put back what an earlier start with the same code kept on disk (`steps.warmcache`),
    after importing every page's modules (their caches must exist first). Whether it did."""
    from . import warmcache
    p = _progress(progress, verbose)
    p.start("warm-up cache", 1)
    for n in warmed_pages():
        try:
            step_view(module_of(n))
        except Exception:            # the step reports its own error when warmed
            pass
    data = cache.load()
    p.advance()
    if data is None:
        p.finish(f"none yet in {cache.folder}: made by this start")
        return False
    entries, jobs = warmcache.restore(data)
    p.finish(f"{entries} results and {jobs} measurements from {cache.path}")
    return True


def save_cache(cache, verbose: bool = True, progress: Progress | None = None) -> float:
    """Write what this start computed for the next one (`steps.warmcache`); seconds."""
    from . import warmcache
    p = _progress(progress, verbose)
    p.start("warm-up cache written", 1)
    path = cache.save(warmcache.snapshot())
    p.advance()
    size = f"{path.stat().st_size / 2**20:.1f} MiB" if path is not None else ""
    return p.finish(f"{path}, {size}" if path is not None else "not written")


def freeze_shared() -> int:
    """After the warm-up: keep every cached result computed so far for good (`memo.keep_all`:
    an idle server drops only what its visitors added), and move everything alive now
    (modules, models, measurements, frames) out of the garbage collector's sight
    (`gc.freeze`). They live as long as the process, and each full collection would otherwise
    walk all of them again, on the thread that serves every session. Returns how many objects
    were frozen."""
    import gc
    from .release import trim
    memo.keep_all()
    gc.collect()
    gc.freeze()
    trim()                           # what the warm-up used and freed goes back to the system
    return gc.get_freeze_count()


def measure_at_start() -> bool:
    """KV_EXPLAINER_MEASURE_AT_START=0 skips the live measurements at start (each is then
    made the first time a page shows it): for quick tries and tests that start servers."""
    return os.environ.get("KV_EXPLAINER_MEASURE_AT_START", "1").strip() not in ("0", "no",
                                                                               "false")


def warm_threads() -> int:
    """The threads torch uses in a served process: `KV_EXPLAINER_THREADS`, else 1. The live
    model is small: one forward pass gains nothing from a second thread, and with two its
    threads wait on each other while the server's other work holds a core (the warm-up on
    this 2-core machine: docs/performance.md, "A restart in seconds")."""
    raw = os.environ.get("KV_EXPLAINER_THREADS", "").strip()
    return int(raw) if raw.isdigit() and int(raw) > 0 else 1


def warm_all(verbose: bool = True, live: bool | None = None,
             progress: Progress | None = None, cache=None) -> float:
    """Every phase in turn, each reported as n of N (`Progress`): models and catalogs, the
    warm-up cache (`steps.warmcache`, unless off), step numbers, and unless turned off
    (`measure_at_start`) the live measurements and the frames; then, when the cache had
    nothing for this code, it is written. Returns the seconds it took; the caller says when
    the page is ready (`ready_line`)."""
    import gc
    import torch
    from .warmcache import WarmCache
    torch.set_num_threads(warm_threads())
    # the warm-up makes objects that live as long as the process (runs, measurements, frames):
    # the garbage collector would walk all of them again and again as they pile up (a third
    # of the warm-up's time). It waits until the end, when `freeze_shared` moves them out of
    # its sight.
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _warm_all(verbose, live, progress, cache)
    finally:
        if collecting:
            gc.enable()


def _warm_all(verbose, live, progress, cache) -> float:
    from .warmcache import WarmCache
    live = measure_at_start() if live is None else live
    cache = WarmCache() if cache is None and live else cache
    on = cache is not None and cache.on
    p = _progress(progress, verbose, phases=(4 if live else 2) + (2 if on else 0))
    load_shared(verbose, p)
    restored = restore_cache(cache, verbose, p) if on else False
    warm_numbers(verbose, p)
    later: list = []
    if live:
        # one after the other: frames built while the queue's thread runs the live model
        # hold the interpreter's lock in turns with it, and both go slower than in a row.
        # This machine's speed is measured after the warm-up, in the background (cold or
        # cached: it is never kept), so that the first page does not wait for it and nothing
        # of the warm-up runs beside what it times.
        later = precompute(verbose, p, speed_later=True)
        warm_frames(verbose, p)
    elif verbose:
        print(f"{PREFIX}: live measurements and frames not made at start: each is made when "
              "a page first shows it (KV_EXPLAINER_MEASURE_AT_START=0)", flush=True)
    if on and not restored:
        save_cache(cache, verbose, p)
    elif on:
        p.start("warm-up cache written", 1)
        p.advance()
        p.finish("not needed: read from there")
    measure_in_background(later)
    return p.seconds()
