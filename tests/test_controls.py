"""A step's controls without Panel: their spec and values in the state, and a learner's
change checked and applied to the view-model (steps/ui/step.py, steps/ui/controls.py)."""
import param
import pytest

from explainer.i18n import N_
from steps.ui.controls import choice, segments, slider, text_field
from steps.ui.step import Step


class Model(param.Parameterized):
    lang = param.Selector(default="en", objects=["en", "id", "pl", "nl"])
    layer = param.Integer(default=0, bounds=(0, 4))
    tokens = param.Integer(default=32, bounds=(16, 512))
    window = param.Selector(default=0, objects=[0, 1024, 4096])
    text = param.String(default="")
    example = param.Integer(default=0, bounds=(0, 3))


def layers(tr):
    return {tr._("Average of all layers"): 0,
            **{tr._("Layer {i}", i=tr.int(i)): i for i in range(1, 5)}}


def windows(tr):
    return {(tr._("Full context") if not w else
             tr.n_("{count} token", "{count} tokens", w, count=tr.int(w))): w
            for w in (0, 1024, 4096)}


class Controls(Step):
    """A step made of these controls only: `spec`, `values` and `move` as the page sees them."""
    model_class = Model

    def controls(self):
        return CONTROLS(self.model)

    def page(self, tr):
        return {}

    @property
    def spec(self):
        return self.state()["controls"]

    @property
    def values(self):
        return self.state()["values"]

    def send(self, msg):
        self.handle(msg)


def CONTROLS(m):
    return [
        choice("layer", N_("Layer"), layers, size="narrow"),
        slider("tokens", N_("Output tokens"), step=16),
        segments("window", N_("Sliding window"), windows),
        choice("example", N_("Example prompt"), lambda t: {"a": 0, "b": 1, "c": 2, "d": 3},
               on_change=lambda v: m.param.update(example=v, text=""),
               shown=lambda m: None if m.text.strip() else m.example),
        text_field("text", N_("Or type your own prompt"), max_length=10,
                   placeholder=N_("Type a few words, then press Enter")),
    ]


@pytest.fixture
def setup():
    c = Controls("en")
    return c.model, c


def entry(c, name):
    return next(e for e in c.spec if e["name"] == name)


def test_spec_and_values_start_from_the_model(setup):
    m, c = setup
    assert c.values == {"layer": 0, "tokens": 32, "window": 0, "example": 0, "text": ""}
    assert entry(c, "layer")["options"][:2] == [[0, "Average of all layers"], [1, "Layer 1"]]
    assert {k: entry(c, "tokens")[k] for k in ("start", "end", "step")} == \
        {"start": 16, "end": 512, "step": 16}
    assert entry(c, "text")["max_length"] == 10
    assert entry(c, "window")["kind"] == "radio"


def test_a_language_switch_relabels_and_keeps_the_values(setup):
    m, c = setup
    values = dict(c.values)
    c.lang = m.lang = "pl"
    assert entry(c, "layer")["label"] == "Warstwa"
    assert entry(c, "layer")["options"][1] == [1, "Warstwa 1"]
    assert entry(c, "window")["options"][1][1] == "1\u00a0024 tokeny"
    assert c.values == values


def test_a_learners_change_reaches_the_model(setup):
    m, c = setup
    c.move("layer", 3)
    c.move("window", 4096)
    assert (m.layer, m.window) == (3, 4096)


def test_sliders_snap_to_their_step_and_stay_inside_their_bounds(setup):
    m, c = setup
    c.move("tokens", 70)
    assert m.tokens == 64 and c.values["tokens"] == 64
    c.move("tokens", 10_000)
    assert m.tokens == 512 and c.values["tokens"] == 512


@pytest.mark.parametrize("name, bad", [("layer", 9), ("layer", "1"), ("layer", True),
                                       ("window", 2048), ("tokens", "64"),
                                       ("tokens", float("nan")), ("text", 5),
                                       ("nothing", 1)])
def test_values_a_control_cannot_take_are_refused_and_shown_back(setup, bad, name):
    m, c = setup
    before = (m.layer, m.window, m.tokens, m.text)
    c.move(name, bad)
    assert (m.layer, m.window, m.tokens, m.text) == before
    assert c.values == {"layer": before[0], "tokens": before[2], "window": before[1],
                        "example": 0, "text": before[3]}


def test_text_is_cut_to_its_length_and_shown_choices_follow_the_model(setup):
    m, c = setup
    c.move("text", "a rather long prompt")
    assert m.text == "a rather l"
    assert c.values["example"] is None          # a typed prompt: no example is chosen
    c.move("example", 2)                        # on_change: the example replaces the text
    assert (m.example, m.text) == (2, "")
    assert c.values["example"] == 2 and c.values["text"] == ""


def test_the_browser_sends_one_message_per_change(setup):
    """Only the control changed travels: a value the server changed meanwhile is never
    written back by a stale copy."""
    m, c = setup
    m.layer = 2                                  # the server moved it (a URL, a reset)
    c.send({"set": "tokens", "value": 48})
    assert (m.tokens, m.layer) == (48, 2)
    assert c.values["layer"] == 2 and c.values["tokens"] == 48
    for junk in ({"set": None}, {"set": 5}, {"value": 3}, {"set": ["tokens"], "value": 64}):
        c.send(junk)
    assert m.tokens == 48


def test_changes_handled_out_of_order_keep_the_newest(setup):
    """Three quick key presses handled out of order, the last one first."""
    m, c = setup
    for value, seq in ((64, 3), (32, 1), (48, 2)):
        c.send({"set": "tokens", "value": value, "seq": seq})
    assert m.tokens == 64 and c.values["tokens"] == 64
    assert c.state()["acks"] == {"tokens": 3}      # the page waits for this one, not older
    c.send({"set": "layer", "value": 2, "seq": 1})     # another control: its own order
    assert m.layer == 2


def test_the_model_changing_by_itself_updates_the_values(setup):
    m, c = setup
    m.param.update(layer=4, window=1024)
    assert (c.values["layer"], c.values["window"]) == (4, 1024)


def test_every_step_has_its_controls_in_order():
    from steps.shell import App
    for step, names in {"1": ["example", "text", "layer", "head"], "2": ["tokens", "prompt"],
                        "3": ["example", "layer", "head"],
                        "4": ["prompt", "output", "batch", "model", "gpu"],
                        # step 5's part A (its tabs: the hidden `part`; part B's are hidden)
                        "5": ["context", "batch", "model"]}.items():
        app = App(query={"step": step, "lang": "nl"})
        state = app.state()
        assert [e["name"] for e in state["controls"] if not e.get("hidden")] == names, step
        assert state["shell"]["language"]["label"] == "Taal"
