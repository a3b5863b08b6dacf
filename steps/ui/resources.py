"""Panel works out, for every page it serves, the bundle and the stylesheet of every
browser-drawn component class (about 600 Material classes and every `JSComponent`: path joins
and file checks each), and again for every component it draws: a sixth of what a page cost the
server here. The answers depend only on the class and the resource mode, and cannot change
while a server runs without `--autoreload`; so each is worked out once per class and mode.
With autoreload on (a developer editing components), Panel's own answer is used every time.
"""
from __future__ import annotations

from typing import NamedTuple

from panel.config import config
from panel.custom import ReactiveESM
from panel.util import classproperty
from panel_material_ui.base import MaterialComponent

# (class that defines it, attribute): Panel's own classproperty
LOOKUPS = {(MaterialComponent, "_bundle_css"): MaterialComponent.__dict__["_bundle_css"],
           (ReactiveESM, "_bundle_css"): ReactiveESM.__dict__["_bundle_css"],
           (MaterialComponent, "_bundle_path"): MaterialComponent.__dict__["_bundle_path"],
           (ReactiveESM, "_bundle_path"): ReactiveESM.__dict__["_bundle_path"]}
_ORIGINAL = LOOKUPS[(MaterialComponent, "_bundle_css")]
_memo: dict = {}


class _Raised(NamedTuple):
    kind: type
    message: str


def _memoized(owner: type, attr: str):
    original = LOOKUPS[(owner, attr)]

    def lookup(cls):
        from panel.io.resources import RESOURCE_MODE
        if config.autoreload:
            return original.f(cls)
        key = (cls, attr, RESOURCE_MODE)
        if key not in _memo:
            try:
                value = original.f(cls)
            except (AttributeError, ValueError) as error:
                # a component with inline code has no bundle: Panel's lookup raises, and
                # Panel's callers read that as "none" (`getattr(cls, attr, None)`)
                value = _Raised(type(error), str(error))
            _memo[key] = tuple(value) if isinstance(value, list) else value
        value = _memo[key]
        if isinstance(value, _Raised):
            raise value.kind(value.message)
        return list(value) if isinstance(value, tuple) else value
    lookup.__name__ = lookup.__qualname__ = attr
    return lookup


def install() -> None:
    """Use the memoized lookups (idempotent)."""
    for (owner, attr), original in LOOKUPS.items():
        if owner.__dict__[attr] is original:
            setattr(owner, attr, classproperty(_memoized(owner, attr)))
