"""Bokeh's property containers, each holding its owners in a tuple instead of a set.

A list or dict property of a Bokeh model (`tags`, `css_classes`, `stylesheets`,
`js_event_callbacks`...) holds a container that tells the models owning it when it is changed
in place. Bokeh fills in every such property when it creates a model, about ten per model,
and each container keeps its owners in a set of its own: 216 bytes for an empty or
one-element set. Nearly every container has one owner, so those sets were a quarter of a
session's memory (945 of them, 169 KiB of 633 KiB on step 1, measured with tracemalloc).

Here the owners are a tuple: none costs nothing, one costs 48 bytes. Registering, unregistering
and telling the owners work as before; an owner registered twice is held once (as a set holds
it). The three methods are Bokeh's, with the set's `add`/`discard` done on a tuple; they are
installed only where Bokeh's container still has that shape (`install`).
"""
from __future__ import annotations

from bokeh.core.property.wrappers import PropertyValueContainer

_BOKEH = {name: PropertyValueContainer.__dict__.get(name)
          for name in ("__init__", "_register_owner", "_unregister_owner")}


def _init(self, *args, **kwargs) -> None:
    self._owners = ()
    super(PropertyValueContainer, self).__init__(*args, **kwargs)


def _register_owner(self, owner, descriptor) -> None:
    if not any(o is owner and d is descriptor for o, d in self._owners):
        self._owners = (*self._owners, (owner, descriptor))


def _unregister_owner(self, owner, descriptor) -> None:
    self._owners = tuple((o, d) for o, d in self._owners
                         if not (o is owner and d is descriptor))


def _fits() -> bool:
    """Bokeh's container as this module knows it: a set of owners made in `__init__`,
    changed only through the methods replaced here (and otherwise only iterated, as
    `_notify_owners` does)."""
    if any(fn is None for fn in _BOKEH.values()) or "_notify_owners" not in \
            PropertyValueContainer.__dict__:
        return False
    probe = PropertyValueContainer.__new__(PropertyValueContainer)
    _BOKEH["__init__"](probe)
    return type(getattr(probe, "_owners", None)) is set


def install() -> bool:
    """Hold owners in tuples (idempotent); False, leaving Bokeh as it is, if its container
    is not the one described above."""
    if PropertyValueContainer.__init__ is _init:
        return True
    if not _fits():
        return False
    PropertyValueContainer.__init__ = _init
    PropertyValueContainer._register_owner = _register_owner
    PropertyValueContainer._unregister_owner = _unregister_owner
    return True
