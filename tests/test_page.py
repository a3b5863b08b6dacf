"""The component's parts (steps/ui/page.py): each a JSON text, the frames as they are, and
after a move only the parts whose text changed."""
import json

from steps.shell import App
from steps.ui.page import TEXT_PARTS, Changes, connect
from steps.ui.state import STEP_KEYS


def test_every_part_is_the_json_text_of_the_state():
    app = App(query={"step": ["3"], "lang": ["pl"]}, accept_language="en")
    page = connect(app)
    state = app.state()
    assert TEXT_PARTS == {"frames"}
    for name in ("shell", "query", "glossary", *STEP_KEYS):
        text = getattr(page, name)
        assert isinstance(text, str), name
        if name in TEXT_PARTS:
            assert text == state[name] and json.loads(text)        # already JSON: as it is
        else:
            assert json.loads(text) == json.loads(json.dumps(state[name])), name


def test_a_move_sets_only_the_parts_it_changed():
    app = App(query={"step": ["5"]}, accept_language="en")
    page = connect(app)
    events = []
    page.param.watch(lambda *e: events.extend(x.name for x in e),
                     ["shell", "query", "glossary", *STEP_KEYS])
    app.handle({"set": "batch", "value": 16, "seq": 1})
    assert events and {"values", "acks"} <= set(events)
    assert not {"shell", "glossary", "controls", "number"} & set(events)
    assert json.loads(page.values)["batch"] == 16 and json.loads(page.acks) == {"batch": 1}
    events.clear()
    app.handle({"set": "batch", "value": 16, "seq": 2})           # the same value again
    assert events == ["acks"]


def test_changes_compares_texts_and_skips_the_same_object():
    ch, frames = Changes(), '[{"pos":"1"}]'
    shared = {"a": [1, 2]}
    assert ch.changed({"frames": frames, "values": shared}) == \
        {"frames": frames, "values": '{"a":[1,2]}'}
    assert ch.changed({"frames": frames, "values": shared}) == {}
    assert ch.changed({"frames": frames, "values": {"a": [1, 2]}}) == {}   # equal text
    assert ch.changed({"frames": "", "values": {"a": [1, 3]}}) == \
        {"frames": "", "values": '{"a":[1,3]}'}
