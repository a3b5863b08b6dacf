"""Panel works out, for every page it serves, the stylesheet of every Material component class
(about 600 classes: two path joins and a file check each), about a tenth of what a page costs
the server here. The answer depends only on the class and the resource mode, and cannot change
while a server runs without `--autoreload`; so it is worked out once per class and mode.
With autoreload on (a developer editing components), Panel's own answer is used every time.
"""
from __future__ import annotations

from panel.config import config
from panel.util import classproperty
from panel_material_ui.base import MaterialComponent

_ORIGINAL = MaterialComponent.__dict__["_bundle_css"]
_memo: dict = {}


def _bundle_css(cls):
    from panel.io.resources import RESOURCE_MODE
    if config.autoreload:
        return _ORIGINAL.f(cls)
    key = (cls, RESOURCE_MODE)
    if key not in _memo:
        _memo[key] = tuple(_ORIGINAL.f(cls))
    return list(_memo[key])


def install() -> None:
    """Use the memoized stylesheet lookup (idempotent)."""
    if isinstance(_ORIGINAL, classproperty):
        MaterialComponent._bundle_css = classproperty(_bundle_css)
