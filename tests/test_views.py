"""Every step's view builds in every language; what a learner sees in a tooltip is translated."""
import pytest
from panel_material_ui.base import MaterialComponent

from steps.shell import ExplainerApp


@pytest.mark.parametrize("step", ["1", "2", "3", "4", "5", "6", "end"])
@pytest.mark.parametrize("lang", ["id", "pl", "nl"])
def test_no_english_tooltip(step, lang):
    app = ExplainerApp(query={"step": step, "lang": lang})
    layout = app.__panel__()
    view = app.steps[app.state.step]
    view.__panel__()
    model = view.model
    english = {p.doc.strip() for p in model.param.objects().values() if p.doc}
    for widget in layout.select(MaterialComponent):
        desc = getattr(widget, "description", None)
        assert not desc or desc.strip() not in english, (type(widget).__name__, desc)


def test_a_choice_from_before_a_language_switch_still_counts():
    """A click that races a relabel: the value a control sends is the same in every
    language (the labels alone are translated), so it is applied, never refused."""
    app = ExplainerApp(query={"step": "6", "lang": "en"})
    layout = app.__panel__()
    from steps.ui.controls import Controls
    controls = next(c for c in layout.select(Controls) if "window" in c.values)
    app.state.lang = "nl"                      # the labels change ...
    controls._handle_msg({"name": "window", "value": 1024, "seq": 1})   # ... a late click
    assert app.steps[6].model.window == 1024


def test_component_bundles_and_stylesheets_are_looked_up_once_and_stay_the_same(monkeypatch):
    """The memoized lookups give Panel's own answers, per class, attribute and resource mode;
    with autoreload on, Panel is asked every time."""
    import panel_material_ui as pmui
    from panel.io import resources as panel_resources

    import steps.shell  # noqa: F401  (installs it)
    from steps.shell import KeyNav, PrevNext
    from steps.ui import resources
    from steps.ui.question import Question
    lookups = [(pmui.Select, "_bundle_css"), (pmui.Button, "_bundle_css"),
               (pmui.IntSlider, "_bundle_path"), (pmui.Tabs, "_bundle_path"),
               (KeyNav, "_bundle_css"), (PrevNext, "_bundle_path"), (Question, "_bundle_css")]
    for mode in ("server", "cdn"):
        monkeypatch.setattr(panel_resources, "RESOURCE_MODE", mode)
        for cls, attr in lookups:
            owner = next(o for o in (resources.MaterialComponent, resources.ReactiveESM)
                         if issubclass(cls, o))
            def answer(lookup):
                try:
                    return lookup()
                except (AttributeError, ValueError) as error:      # inline code: no bundle
                    return type(error)
            expected = answer(lambda: resources.LOOKUPS[(owner, attr)].f(cls))
            assert answer(lambda: getattr(cls, attr)) == expected
            assert answer(lambda: getattr(cls, attr)) == expected      # the remembered answer
            assert (cls, attr, mode) in resources._memo
    monkeypatch.setattr(resources.config, "autoreload", True)
    calls = []
    original = resources.LOOKUPS[(resources.MaterialComponent, "_bundle_css")]
    monkeypatch.setattr(original, "f", lambda cls: calls.append(cls) or [])
    assert pmui.Select._bundle_css == [] and calls == [pmui.Select]   # autoreload: always asked


def test_the_pages_component_resources_are_listed_once_and_stay_the_same(monkeypatch):
    """Every page lists the same stylesheets and scripts as Panel's own lookup would."""
    from panel.io.resources import Resources

    import steps.shell  # noqa: F401  (installs it)
    from steps.ui import resources
    assert Resources.extra_resources is resources._extra_resources
    for mode in ("server", "cdn"):
        res = Resources(mode=mode)
        for kind in ("__css__", "_bundle_css", "__javascript__", "__javascript_modules__"):
            expected = ["already there"]
            resources._ORIGINAL_EXTRA(res, expected, kind)
            for _ in range(2):                   # the first answer, then the remembered one
                got = ["already there"]
                res.extra_resources(got, kind)
                assert got == expected, (mode, kind)
    assert any(k[0] == "extra" for k in resources._memo)


def test_a_documents_data_model_definitions_are_encoded_once_and_stay_the_same():
    """Every page's document carries the same definitions as Bokeh's own encoding."""
    from bokeh.core.has_props import MetaHasProps
    from bokeh.core.serialization import Serializer
    from bokeh.document import Document

    import steps.shell  # noqa: F401  (installs it)
    from steps.ui import resources
    app = steps.shell.ExplainerApp(query={"step": "1"})
    doc = Document()
    app.__panel__().server_doc(doc)
    assert Serializer._encoders[MetaHasProps] is resources._model_def
    first, second = doc.to_json(deferred=False), doc.to_json(deferred=False)
    try:
        Serializer._encoders[MetaHasProps] = resources._ORIGINAL_DEF
        bokehs = doc.to_json(deferred=False)
    finally:
        Serializer._encoders[MetaHasProps] = resources._model_def
    assert first == second == bokehs
    assert len(first["defs"]) > 20 and any(v for v in resources._model_defs.values())


def test_design_modifiers_are_remembered_and_each_caller_gets_its_own_copy():
    import panel as pn
    from panel_material_ui.theme import MaterialDesign

    import steps.shell  # noqa: F401  (installs it)
    from steps.ui import resources
    pane = pn.pane.HTML("x")
    theme = MaterialDesign().theme
    for isolated in (None, True):
        expected = resources._ORIGINAL_MODIFIERS.__func__(MaterialDesign, pane, theme, isolated)
        got = MaterialDesign._get_modifiers(pane, theme=theme, isolated=isolated)
        assert got == expected
        got[0].setdefault("stylesheets", []).append("changed by a caller")
        assert MaterialDesign._get_modifiers(pane, theme=theme, isolated=isolated) == expected


def test_a_missing_attribute_of_a_component_model_is_a_plain_attribute_error():
    from panel.models.esm import ReactiveESM

    import steps.shell  # noqa: F401  (installs it)
    model = ReactiveESM()
    assert getattr(model, "frames", None) is None
    with pytest.raises(AttributeError, match="unexpected attribute 'frames'"):
        model.frames


def test_a_pane_update_that_arrives_after_its_model_left_is_dropped():
    """A change made on a worker thread reaches the page a tick later: if the step was
    left meanwhile, the pane's model is gone and nothing fails."""
    from bokeh.document import Document

    from steps.ui.components import pane
    p = pane("<p>one</p>")
    doc = Document()
    p.server_doc(doc)
    (ref, (model, parent)), = p._models.items()
    root = doc.get_model_by_id(ref)
    p._cleanup(root)                            # the learner moved on
    assert ref not in p._models
    p._update_object(ref, doc, root, parent, None)       # the late update: no KeyError


def test_a_pane_update_sets_the_text_as_panel_renders_it_and_nothing_else():
    """Our pane sets only its model's text on an update (Panel would set every property
    again); the text is what Panel renders for the same HTML, escapes included."""
    import panel as pn
    from bokeh.document import Document

    from steps.ui.components import pane
    html = '<p class="x">Tom &amp; “Jerry” <b>&lt;3</b></p>'
    p, ref = pane("<p>one</p>", css_classes=["narration"]), pn.pane.HTML(html)
    doc = Document()
    p.server_doc(doc)
    (model, _), = p._models.values()
    changed = []
    doc.on_change(lambda event: changed.append(getattr(event, "attr", None)))
    p.object = html
    assert changed == ["text"]
    assert model.text == ref.get_root(Document()).text
    assert model.css_classes == ["narration"] and "narration" in p.css_classes


def test_a_pane_listens_for_what_changes_after_it_is_built():
    """A pane listens to its HTML and to its visibility, classes and styles, not to the size,
    margin and other parameters Panel would watch for every pane; its own Row (never shown)
    follows neither its children nor its margins. What the pane listens to still reaches the
    page, and its model is built with every property."""
    import panel as pn
    from bokeh.document import Document

    from steps.ui.components import Pane, pane
    def watchers(obj) -> dict:
        return {name: sum(len(ws) for ws in kinds.values())
                for name, kinds in obj._param__private.watchers.items()
                if any(kinds.values())}
    p = pane("<p>one</p>", css_classes=["narration"])
    plain = pn.pane.HTML("<p>one</p>", margin=(0, 0), sizing_mode="stretch_width")
    ours, panel_s = watchers(p), watchers(plain)
    assert {"object", *Pane.LIVE} <= set(ours)
    assert not {"margin", "width", "min_height", "align", "stylesheets", "width_policy"} & \
        set(ours)
    assert {"margin", "width", "min_height", "align"} <= set(panel_s)
    assert sum(ours.values()) * 3 < sum(panel_s.values())
    assert not {"objects", "margin", "css_classes"} & set(watchers(p.layout))
    assert sum(watchers(p.layout).values()) * 4 < sum(watchers(plain.layout).values())
    doc = Document()
    p.server_doc(doc)
    (model, _), = p._models.values()
    p.param.update(visible=False, css_classes=["narration", "shrink"], styles={"color": "red"})
    assert (model.visible, model.css_classes, model.styles) == (
        False, ["narration", "shrink"], {"color": "red"})
    p.object = "<p>two</p>"
    assert "two" in model.text
    assert model.margin == plain.get_root(Document()).margin       # built with every property


def test_a_layout_listens_for_what_changes_after_it_is_built():
    """Our Column and Row listen to their children, visibility, classes and styles, not to
    the size, margin and scroll parameters Panel's layouts watch; what they listen to still
    reaches the page (a step change replaces a layout's children), and their models are built
    with every property."""
    import panel as pn
    from bokeh.document import Document

    from steps.ui.components import Column, Row, pane

    def watched(obj) -> set:
        return {name for name, kinds in obj._param__private.watchers.items()
                if any(kinds.values())}
    for ours, plain in ((Column(sizing_mode="stretch_width", margin=(0, 8)),
                         pn.Column(sizing_mode="stretch_width", margin=(0, 8))),
                        (Row(css_classes=["step-grid"]), pn.Row(css_classes=["step-grid"]))):
        assert set(Column.LIVE) <= watched(ours)
        assert not {"margin", "min_height", "scroll", "stylesheets", "sizing_mode",
                    "width_policy"} & watched(ours)
        assert {"margin", "min_height", "scroll", "sizing_mode", "width_policy"} <= \
            watched(plain)
        doc = Document()
        ours.server_doc(doc)
        (model, _), = ours._models.values()
        assert model.margin == plain.get_root(Document()).margin
        ours.objects = [pane("<p>one</p>"), pane("<p>two</p>")]
        assert [("one" in c.text, "two" in c.text) for c in model.children] == [
            (True, False), (False, True)]
        ours.param.update(visible=False, css_classes=["x"], styles={"color": "red"})
        assert (model.visible, model.css_classes, model.styles) == (
            False, ["x"], {"color": "red"})


def test_a_component_listens_to_its_own_parameters_after_it_is_built():
    """A browser-drawn component of ours listens to the parameters its classes declare and
    to its visibility and classes, not to the size and margin parameters Panel's components
    watch; its own parameters still reach the page."""
    import panel as pn
    from bokeh.document import Document

    from steps.ui.question import Question

    class Plain(pn.custom.JSComponent):
        view = Question.param.view
    q = Question(margin=(0, 4))
    listened = {name for name, kinds in q._param__private.watchers.items()
                if any(kinds.values())}
    assert {"view", "shown", "visible", "css_classes"} <= listened
    assert not {"margin", "width", "align", "min_height", "width_policy"} & listened
    plain = Plain()
    assert {"margin", "width", "align"} <= {
        name for name, kinds in plain._param__private.watchers.items() if any(kinds.values())}
    doc = Document()
    q.server_doc(doc)
    (model, _), = q._models.values()
    q.param.update(view={"stem": "two"}, visible=False)
    assert model.data.view == {"stem": "two"} and model.visible is False


def test_sessions_showing_the_same_html_hold_it_once():
    """Two sessions on the same step and language hold one string per text their panes show,
    and one escaped text per model; an equal text computed again (a language switch back) is
    the shared one."""
    from bokeh.document import Document
    from panel.io.state import set_curdoc

    from steps.ui.components import Pane

    def texts(app, doc) -> list[tuple[str, str]]:
        return [(p.object, m.text) for p in app.__panel__().select(Pane) for (m, _) in
                p._models.values() if m.document is doc and isinstance(p.object, str)]
    sessions = []
    for lang in ("nl", "nl", "pl"):
        doc = Document()
        with set_curdoc(doc):
            app = ExplainerApp(query={"step": "4", "lang": lang})
            doc.add_root(app.__panel__().get_root(doc))
        sessions.append((app, doc))
    one, two, other = (texts(app, doc) for app, doc in sessions)
    assert len(one) >= 5 and len(one) == len(two)
    assert all(a is b and ma is mb for (a, ma), (b, mb) in zip(one, two))
    assert sum(a != b for (a, _), (b, _) in zip(one, other)) >= 3     # Polish: its own texts
    app, doc = sessions[0]
    with set_curdoc(doc):
        app.state.lang = "en"
        app.state.lang = "nl"
    assert all(a is b and ma is mb for (a, ma), (b, mb) in zip(texts(app, doc), two))


def test_a_bound_pane_renders_its_arguments_and_follows_their_changes():
    """`bound(fn, *args)`: parameters of Parameterized objects are passed as their values and
    re-render the pane when they change (once for a batch of changes on one object); other
    arguments pass as they are. The pane watches those objects itself: nothing of it is a
    reference that param resolves on every change."""
    import param

    from steps.ui.components import bound

    class Inputs(param.Parameterized):
        a = param.Integer(1)
        b = param.Integer(2)
        other = param.Integer(0)

    class Lang(param.Parameterized):
        lang = param.String("en")

    calls = []

    def html(a, b, lang, part):
        calls.append((a, b, lang, part))
        return f"<p>{a}+{b} {lang} {part}</p>"

    m, v = Inputs(), Lang()
    p = bound(html, m.param.a, m.param.b, v.param.lang, "notes", css_classes=["x"])
    assert p.object == "<p>1+2 en notes</p>" and p.css_classes == ["x"]
    m.a = 5
    assert p.object == "<p>5+2 en notes</p>"
    n = len(calls)
    m.param.update(a=6, b=7)                  # one batch: one render
    assert len(calls) == n + 1 and p.object == "<p>6+7 en notes</p>"
    v.lang = "nl"
    assert p.object == "<p>6+7 nl notes</p>"
    n = len(calls)
    m.other = 3                               # not an argument: no render
    m.a = 6                                   # the same value: no render
    assert len(calls) == n
    assert not p._param__private.refs


def test_derived_parameters_follow_their_arguments_together():
    """`follow`/`built`: a stage's frames and text derive from the model and the language; a
    language switch sets both, and the stage hears them as one batch (one message to the
    page), not one after the other."""
    import param

    from steps.ui.components import built, follow

    class Model(param.Parameterized):
        run = param.Integer(1)

    class Lang(param.Parameterized):
        lang = param.String("en")

    class Target(param.Parameterized):
        frames = param.Parameter(None)
        text = param.Parameter(None)
        interval = param.Integer(0)

    m, v = Model(), Lang()
    t = built(Target, {"frames": (lambda run, l: f"{run}-{l}", m.param.run, v.param.lang),
                       "text": (lambda l: l.upper(), v.param.lang)}, interval=900)
    assert (t.frames, t.text, t.interval) == ("1-en", "EN", 900)
    heard = []
    t.param.watch(lambda *events: heard.append(sorted(e.name for e in events)),
                  ["frames", "text"])
    v.lang = "pl"
    assert heard == [["frames", "text"]] and (t.frames, t.text) == ("1-pl", "PL")
    m.run = 2                                 # the text does not read the run
    assert heard[-1] == ["frames"] and t.frames == "2-pl"
    other = Target()
    follow(other, text=(lambda l, suffix: l + suffix, v.param.lang, "!"))
    assert other.text == "pl!"
    v.lang = "nl"
    assert other.text == "nl!"



def test_components_share_their_class_parameters_and_nothing_binds_to_them():
    """Our panes, layouts and browser-drawn components read their class's parameter objects
    (no copy per object: `components.shares_parameters`), except the classes that say
    `SHARED = False`. Nothing in any step or part binds to one of those shared parameters: a
    binding would watch the class, not the object (`follow` refuses a class's parameter;
    param keeps a class parameter's watchers on the parameter object itself)."""
    import param
    from bokeh.document import Document
    from panel.io.state import set_curdoc

    from steps.ui.components import Listening, bound
    from steps.ui.question import Question

    def built_objects(query):
        doc = Document()
        with set_curdoc(doc):
            app = ExplainerApp(query=query)
            doc.add_root(app.__panel__().get_root(doc))
        return app, doc

    seen = []
    for query in [{"step": str(n), "lang": "pl"} for n in range(1, 6)] + [
            {"step": "6", "part": p} for p in "abc"] + [{"step": "7"}]:
        app, doc = built_objects(query)
        with set_curdoc(doc):
            for part in "abc":                 # every part of step 6, as a learner opens them
                if 6 in app.steps:
                    app.steps[6].model.part = part
        seen += [o for o in app.__panel__().select() if isinstance(o, Listening)]
        for view in app.steps.values():
            seen += [o for o in view.__panel__().select() if isinstance(o, Listening)]
    classes = {type(o) for o in seen}
    shared = {c for c in classes if c.SHARED}
    assert len(shared) >= 8 and Question in classes - shared
    for cls in shared:
        assert cls._param__private.disable_instance_params, cls
        for name, p in cls.param.objects(instance=False).items():
            assert not p.watchers, f"{cls.__name__}.param.{name} is watched: set SHARED = False"
    obj = next(o for o in seen if type(o).SHARED)
    assert not obj._param__private.params                   # no copy per object
    q = next(o for o in seen if isinstance(o, Question))
    assert q.param.revealed is not Question.param.revealed  # its own, for the views to follow
    assert isinstance(q.param.revealed, param.Boolean)
    with pytest.raises(TypeError, match="parameter of a class"):
        bound(lambda v: str(v), obj.param.visible)


def test_prose_is_one_pane_of_blocks_that_follow_their_arguments():
    """`prose(block(...), ...)`: the blocks' HTML in order, each in a div of its classes
    (escaped) when it has some; a block with nothing to say leaves nothing; a change of any
    block's argument renders the pane again."""
    import param

    from steps.ui.components import Pane, block, notices_html, paragraphs_html, prose

    class Model(param.Parameterized):
        n = param.Integer(default=1)
        lang = param.String(default="en")
    m = Model()
    p = prose(block(lambda n: paragraphs_html([f"n is {n} <b>"]), m.param.n,
                    cls='narration "x"'),
              block(lambda n, l: notices_html([f"{l}: too many"]) if n > 2 else "",
                    m.param.n, m.param.lang),
              block(lambda l: paragraphs_html([l]), m.param.lang, cls="live-facts"))
    assert isinstance(p, Pane)
    assert p.object == ('<div class="narration &#34;x&#34;"><p>n is 1 &lt;b&gt;</p></div>'
                        '<div class="live-facts"><p>en</p></div>')
    m.n = 3
    assert '<p class="notice" role="status">en: too many</p>' in p.object
    assert p.object.index("notice") < p.object.index("live-facts")
    m.lang = "pl"
    assert p.object.endswith('<div class="live-facts"><p>pl</p></div>')
    assert "pl: too many" in p.object and "n is 3" in p.object
