"""Panel works out, for every page it serves, the bundle and the stylesheet of every
browser-drawn component class (about 600 Material classes and every `JSComponent`: path joins
and file checks each), and again for every component it draws: a sixth of what a page cost the
server here; then it lists them all for the page (`Resources.extra_resources`), another
tenth. The answers depend only on the class and the resource mode, and cannot change
while a server runs without `--autoreload`; so each is worked out once per class and mode.
With autoreload on (a developer editing components), Panel's own answer is used every time.
"""
from __future__ import annotations

from typing import NamedTuple

from bokeh.core.has_props import MetaHasProps
from bokeh.core.serialization import Ref, Serializer
from bokeh.core.types import ID
from panel.config import config
from panel.custom import ReactiveESM
from panel.io.resources import Resources
from panel.util import classproperty
from panel.models.esm import ReactiveESM as BkReactiveESM
from panel_material_ui.base import MaterialComponent
from panel_material_ui.theme import MaterialDesign

# (class that defines it, attribute): Panel's own classproperty
LOOKUPS = {(MaterialComponent, "_bundle_css"): MaterialComponent.__dict__["_bundle_css"],
           (ReactiveESM, "_bundle_css"): ReactiveESM.__dict__["_bundle_css"],
           (MaterialComponent, "_bundle_path"): MaterialComponent.__dict__["_bundle_path"],
           (ReactiveESM, "_bundle_path"): ReactiveESM.__dict__["_bundle_path"]}
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


_ORIGINAL_EXTRA = Resources.extra_resources


def _extra_resources(self, resources, resource_type):
    """Panel's `Resources.extra_resources` (the stylesheets and scripts of every component
    class whose extension is loaded), remembered per resource type, mode, path prefix, set of
    loaded extensions and set of component classes: the same for every page of a server."""
    from panel.io.state import state
    from panel.reactive import ReactiveCustomBase, ReactiveMetaBase
    from panel.util import _descendents
    if config.autoreload:
        return _ORIGINAL_EXTRA(self, resources, resource_type)
    extensions = state._extensions
    key = ("extra", resource_type, self.mode, state.rel_path,
           frozenset(ReactiveMetaBase._loaded_extensions),
           None if extensions is None else frozenset(extensions),
           len(_descendents(ReactiveCustomBase, concrete=True)))
    if key not in _memo:
        found: list = []
        _ORIGINAL_EXTRA(self, found, resource_type)
        _memo[key] = tuple(found)
    for resource in _memo[key]:
        if resource not in resources:
            resources.append(resource)


_ORIGINAL_DEF = Serializer._encoders[MetaHasProps]
_model_defs: dict = {}


def _model_def(cls, serializer: Serializer):
    """Bokeh's encoding of a model class. Every document it sends lists the definition of
    every data-model class of the process (about 160 here: each browser-drawn component
    class has one), a sixth of a session's CPU when each page encoded them again. A
    definition depends only on its class: it is encoded once and the same (read-only)
    encoding is reused. Classes that extend another data model, or whose defaults carry
    binary buffers, are encoded as Bokeh does."""
    from bokeh.core.has_props import is_DataModel
    if config.autoreload or not is_DataModel(cls):
        return _ORIGINAL_DEF(cls, serializer)
    cached = _model_defs.get(cls)
    if cached is None:
        fresh = Serializer()
        rep = _ORIGINAL_DEF(cls, fresh)
        cached = _model_defs[cls] = (rep if rep.get("extends") is None and not fresh.buffers
                                     else False)
    if cached is False:
        return _ORIGINAL_DEF(cls, serializer)
    serializer.add_ref(cls, Ref(id=ID(cls.__qualified_model__)))
    return cached


_ORIGINAL_MODIFIERS = MaterialDesign.__dict__["_get_modifiers"]
_modifiers: dict = {}


def _get_modifiers(cls, viewable, theme, isolated=None):
    """The Material design's modifiers (stylesheets, sizing) for a component, asked on every
    change of every component (path checks each time): remembered per component class,
    theme class and kind of page. Each caller gets its own copy (callers change it)."""
    from panel.io.state import state
    if config.autoreload:
        return _ORIGINAL_MODIFIERS.__func__(cls, viewable, theme, isolated)
    is_server = bool(state.curdoc.session_context) if not state._is_pyodide and state.curdoc \
        else False
    # the theme by its class: this app never gives a theme instance a stylesheet of its own
    theme_type = theme if isinstance(theme, type) else type(theme)
    key = (cls, type(viewable), theme_type, is_server, isolated)
    if key not in _modifiers:
        _modifiers[key] = _ORIGINAL_MODIFIERS.__func__(cls, viewable, theme, isolated)
    modifiers, child_modifiers = _modifiers[key]
    copy = lambda d: {k: list(v) if isinstance(v, list) else v  # noqa: E731
                      for k, v in d.items()} if isinstance(d, dict) else d
    return copy(modifiers), copy(child_modifiers)


def _plain_attribute_error(self, name, properties):
    """Panel asks every browser-drawn component's Bokeh model for each changed property with
    `getattr(model, name, None)`, though the property lives on the model's `data`: Bokeh then
    builds a “did you mean” message with difflib before the error is discarded, about 0.6 ms
    each time, on every change. The error is raised without the suggestions."""
    raise AttributeError(f"unexpected attribute {name!r} to {type(self).__name__}")


def install() -> None:
    """Use the memoized lookups (idempotent)."""
    for (owner, attr), original in LOOKUPS.items():
        if owner.__dict__[attr] is original:
            setattr(owner, attr, classproperty(_memoized(owner, attr)))
    if Resources.__dict__["extra_resources"] is _ORIGINAL_EXTRA:
        Resources.extra_resources = _extra_resources
    if Serializer._encoders[MetaHasProps] is _ORIGINAL_DEF:
        Serializer._encoders[MetaHasProps] = _model_def
    if MaterialDesign.__dict__["_get_modifiers"] is _ORIGINAL_MODIFIERS:
        MaterialDesign._get_modifiers = classmethod(_get_modifiers)
    BkReactiveESM._raise_attribute_error_with_matches = _plain_attribute_error
