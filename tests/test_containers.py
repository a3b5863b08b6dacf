"""Bokeh's property containers hold their owners in tuples (steps/ui/containers.py)."""
import sys

from bokeh.core.property.wrappers import PropertyValueContainer, PropertyValueList
from bokeh.document import Document
from bokeh.models import Div

from steps.ui import containers


def test_installed_for_the_bokeh_this_app_runs_on():
    import steps.shell  # noqa: F401  (installs it)
    assert containers.install() is True
    assert PropertyValueContainer.__init__ is containers._init


def test_a_container_tells_its_owner_of_a_change_in_place_as_before():
    containers.install()
    div = Div(css_classes=["a"])
    doc = Document()
    doc.add_root(div)
    changes = []
    doc.on_change(lambda event: changes.append((event.model, event.attr, event.new)))
    div.css_classes.append("b")
    div.tags.append(7)                      # a default Bokeh filled in at creation
    assert changes == [(div, "css_classes", ["a", "b"]), (div, "tags", [7])]
    assert type(div.css_classes._owners) is tuple and len(div.css_classes._owners) == 1


def test_owners_registered_once_and_unregistered():
    containers.install()
    first, second = Div(), Div()
    shared = PropertyValueList([1])
    descriptor = Div.lookup("tags")
    assert shared._owners == ()
    for owner in (first, first, second):
        shared._register_owner(owner, descriptor)
    assert [o for o, _ in shared._owners] == [first, second]
    shared._unregister_owner(first, descriptor)
    shared._unregister_owner(first, descriptor)
    assert [o for o, _ in shared._owners] == [second]
    # through Bokeh: a value set on two models, then replaced on the first
    value = PropertyValueList([2])
    first.tags = value
    second.tags = value
    assert [o for o, _ in value._owners] == [first, second]
    first.tags = []
    assert [o for o, _ in value._owners] == [second]


def test_the_owners_of_a_new_model_cost_less_than_bokeh_s_sets():
    containers.install()
    div = Div()
    owners = [c._owners for c in div._unstable_default_values.values()
              if isinstance(c, PropertyValueContainer)]
    assert len(owners) >= 5
    assert sum(map(sys.getsizeof, owners)) * 3 < len(owners) * sys.getsizeof(set())


def test_bokeh_left_as_it_is_when_its_container_changed_shape(monkeypatch):
    monkeypatch.setattr(PropertyValueContainer, "__init__", containers._BOKEH["__init__"])
    monkeypatch.setitem(containers._BOKEH, "_register_owner", None)
    assert containers.install() is False
    assert PropertyValueContainer.__init__ is containers._BOKEH["__init__"]
