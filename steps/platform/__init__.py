"""Every place where the app reaches into a library's private state, installed once by
`install()` from app.py. Each piece says what and why, links the upstream issue it works
around, and names the versions it was written for: on others it is skipped with a warning.
`KV_EXPLAINER_PLAIN_PANEL=1` installs none of them (the libraries as shipped).
"""
from __future__ import annotations

import logging
import os
import sys
import warnings
from fnmatch import fnmatch
from importlib import metadata

log = logging.getLogger(__name__)
SWITCH = "KV_EXPLAINER_PLAIN_PANEL"
_done: dict[str, bool] = {}                 # piece -> installed (False: skipped)
_noticed = False


def plain() -> bool:
    """The switch is on: leave every library as shipped."""
    return os.environ.get(SWITCH, "") not in ("", "0")


def version(package: str) -> str | None:
    if package == "python":
        return "%d.%d.%d" % sys.version_info[:3]
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return None


def fits(name: str, written_for: dict[str, str]) -> bool:
    """Whether the installed versions match `written_for` ({"bokeh": "3.9.*"}, fnmatch
    patterns); if not, warn, naming the piece and the versions."""
    found = {p: version(p) for p in written_for}
    if all(v and fnmatch(v, written_for[p]) for p, v in found.items()):
        return True
    warnings.warn(f"steps.platform: {name} skipped: written for {written_for}, found {found}",
                  RuntimeWarning, stacklevel=3)
    return False


def piece(written_for: dict[str, str], upstream: str):
    """Mark a function as a piece that `install()` applies, on `written_for` versions only."""
    def mark(apply):
        apply.written_for, apply.upstream = written_for, upstream
        return apply
    return mark


def pieces() -> list:
    from . import guards
    return [guards.ws_teardown, guards.panel_writer, guards.busy_counter]


def install(*names: str) -> dict[str, bool]:
    """Apply each piece (or only those named) once; which were installed (True) or skipped."""
    global _noticed
    if plain():
        if not _noticed:
            _noticed = True
            log.info("%s=1: no library patches installed", SWITCH)
        return {apply.__name__: False for apply in pieces()}
    for apply in pieces():
        name = apply.__name__
        if name not in _done and (not names or name in names):
            _done[name] = fits(name, apply.written_for)
            if _done[name]:
                apply()
    return dict(_done)
