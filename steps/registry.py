"""The steps, in order: the one table every per-step list derives from (the stepper, the step
count, the key-ideas page, the schematic's highlight, the exercises' sheet, the speaker notes,
the warm-up, the benchmark).

The table names packages; it does not hold their contents (as transformers'
`CONFIG_MAPPING_NAMES` names the module of each model). A step's package `steps/stepN/` owns
everything about it, and the registry finds each part by a fixed name:

- `__init__.py`: `TITLE`, `TAKEAWAY`, `HIGHLIGHT`, `WARM_FRAMES`, its line of this table
  (`StepInfo`, read into `STEPS` at import: cheap, the packages import their views lazily),
  and `NOTES`, the msgid of what the lecturer says aloud (the speaker view): `notes(n)`, and
  `MINUTES`, about how long a lecture spends on it (the speaker's clock): `minutes(n)`;
- `view.py`: `STEP`, its controller (`steps.ui.step.Step`; `steps.shell.step_class`);
- `exercises.py`: `EXERCISES`, its exercises (`steps.ui.exercises.Exercise`), for the end of
  its reading column and the printable sheet: `exercises(n)`;
- `exam.py`: `QUESTIONS`, its exam-style questions, for the printable sheet: `exam(n)`;
- `model.py`: `warm_jobs()`, the live measurements its page can ask for, which the warm-up runs
  before serving: `live_jobs(n)`.
- `style.css`: its own rules (`.step-N …`, its templates' classes), joined into the page's one
  stylesheet by `steps/ui/bundle.py`: `stylesheet(n)`.

`TITLE`, `TAKEAWAY`, `NOTES` and `view.py` are required; a step without exercises or live
measurements leaves those out. The key-ideas page after the last step is the package
`END_MODULE`, with its own view and notes.

`KV_EXPLAINER_STEPS` (packages separated by commas, in order) replaces `PACKAGES` for the
process: how the tests serve the app with one step more (tests/test_add_a_step.py). Read once,
at import; a package's view still says its own `number`, which must be its place in the list.
"""
from __future__ import annotations

import importlib
import importlib.util
import os
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from explainer.i18n import N_

ENV = "KV_EXPLAINER_STEPS"
PACKAGES = ("steps.step1", "steps.step2", "steps.step3", "steps.step4", "steps.step5",
            "steps.step6")


@dataclass(frozen=True)
class StepInfo:
    module: str          # the step's package (its view defines `STEP`, the step's controller)
    title: str           # msgid
    takeaway: str        # msgid: the step in one or two sentences, on the key-ideas page
    highlight: tuple[str, ...] = ()   # parts of the heading's attention schematic it is about
    warm_frames: bool = False         # the warm-up builds its played frames for every state


def read(module: str) -> StepInfo:
    """A step's line of the table, from its package's `__init__.py`."""
    pkg = importlib.import_module(module)
    return StepInfo(module, pkg.TITLE, pkg.TAKEAWAY, tuple(getattr(pkg, "HIGHLIGHT", ())),
                    bool(getattr(pkg, "WARM_FRAMES", False)))


def packages(environ=os.environ) -> tuple[str, ...]:
    """The steps' packages, in order: `PACKAGES`, or those `KV_EXPLAINER_STEPS` names."""
    named = tuple(p.strip() for p in environ.get(ENV, "").split(",") if p.strip())
    return named or PACKAGES


STEPS: tuple[StepInfo, ...] = tuple(read(m) for m in packages())

COUNT = len(STEPS)
END = COUNT + 1                       # the key-ideas page after the last step (`?step=end`)
END_MODULE = "steps.ending"
END_TITLE = N_("Key ideas")
STEP_TITLES = tuple(s.title for s in STEPS)
NUMBERS = tuple(range(1, COUNT + 1))


def module_of(n: int) -> str:
    """The package of step `n` (1..COUNT), or the key-ideas page's (END)."""
    return END_MODULE if n == END else STEPS[n - 1].module


def part(n: int, name: str) -> ModuleType | None:
    """The module `name` of page `n`'s package (`steps/stepN/<name>.py`), or None when the
    package has no such file (an error inside one that exists is raised)."""
    if n not in NUMBERS and n != END:
        return None
    module = f"{module_of(n)}.{name}"
    return importlib.import_module(module) if importlib.util.find_spec(module) else None


def exercises(n: int) -> tuple:
    """Step `n`'s exercises, in order (its package's `exercises.EXERCISES`): () for a page
    without (the key-ideas page, a number that is no step)."""
    found = part(n, "exercises")
    return tuple(found.EXERCISES) if found is not None else ()


def exam(n: int) -> tuple:
    """Step `n`'s exam-style questions, in order (its package's `exam.QUESTIONS`, printed on
    the sheet): () for a page without."""
    found = part(n, "exam")
    return tuple(found.QUESTIONS) if found is not None else ()


def minutes(n: int) -> int:
    """About how many minutes a lecture spends on page `n` (its package's `MINUTES`): the
    speaker view's clock sets the time spent against it."""
    return importlib.import_module(module_of(n)).MINUTES


def notes(n: int) -> str:
    """The msgid of page `n`'s speaker notes (its package's `NOTES`, in its `__init__.py`):
    every page has them."""
    return importlib.import_module(module_of(n)).NOTES


def live_jobs(n: int) -> list:
    """(key, fn) of every live measurement step `n`'s page can ask for (its model's
    `warm_jobs()`, the defaults first), [] for a step with none."""
    model = part(n, "model")
    warm_jobs = getattr(model, "warm_jobs", None)
    return list(warm_jobs()) if warm_jobs is not None else []


def stylesheet(n: int) -> Path | None:
    """Page `n`'s own stylesheet (its package's `style.css`), or None for a page without."""
    if n not in NUMBERS and n != END:
        return None
    path = Path(importlib.import_module(module_of(n)).__file__).parent / "style.css"
    return path if path.is_file() else None
