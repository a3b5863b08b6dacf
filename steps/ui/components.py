"""Small declarative building blocks: autoescaped templates, one stylesheet per session, metric
cards, notices, paragraphs, legends and tables.

A view binds a pane to a text-layer function (`bound(fn, *args)`); the pane re-renders only
when one of the parameters among its arguments changes. A stage's frames and a question's
content follow their inputs the same way (`built`, `follow`). Markup lives in `templates/*.html.j2`
(autoescape on: text is never concatenated into HTML by hand), looks live in assets/app.css.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from html import escape
from pathlib import Path

import jinja2
from markupsafe import Markup
import panel as pn
import param

from explainer.i18n import N_, Translator
from explainer.memo import memo

HERE = Path(__file__).resolve().parent
APP_CSS = (HERE.parent.parent / "assets" / "app.css").read_text(encoding="utf-8")

TEMPLATES = jinja2.Environment(
    loader=jinja2.FileSystemLoader(HERE / "templates"), autoescape=True,
    undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True)

# provenance badges: label and tooltip (msgids, translated by `badges`)
BADGES = {
    "measured": (N_("measured"), N_("Measured on this server by the live model")),
    "computed": (N_("computed"), N_("Computed from a formula on the named model configuration")),
    "illustrative": (N_("illustrative"), N_("Illustrative: not measured, not exact")),
}
KINDS = tuple(BADGES)


def render(template: str, **context) -> str:
    """A template from steps/ui/templates, autoescaped."""
    return TEMPLATES.get_template(template).render(**context)


def badges(tr: Translator) -> dict[str, list[str]]:
    """{kind: [label, tooltip]} in the session's language (also sent to browser stages)."""
    return {k: [tr._(label), tr._(tip)] for k, (label, tip) in BADGES.items()}


# -- one stylesheet, served by the app ------------------------------------------------------

class AppStyle(pn.pane.HTML):
    """Never shown: lists assets/app.css (linked as steps/ui/app.css) so that Panel's
    component-resource route serves it from this server. Every component then links the same
    URL: the browser loads the file once and caches it, and no pane carries the CSS text."""
    _stylesheets = ["app.css"]


def stylesheet() -> str:
    """The app's stylesheet for a component's `stylesheets`: its URL on this server (one
    shared stylesheet model per session); outside a server, the CSS text itself."""
    doc = pn.state.curdoc
    if doc is None or doc.session_context is None:
        return APP_CSS
    return _stylesheet_url(pn.state.rel_path)


@lru_cache(maxsize=8)
def _stylesheet_url(rel_path) -> str:
    """The URL depends only on the page's path prefix (`rel_path`): worked out once each."""
    from panel.io.resources import component_resource_path
    return component_resource_path(AppStyle, "_stylesheets", "app.css")


# Panel's watchers that follow a change after an object is built of what ours never change
# then: sizing (`Layoutable` notes an explicitly set sizing mode or policy; 3 watchers each,
# a quarter of a session's watchers)
FIXED = ("_update_explicit_sizing",)


def _forget(obj, *methods: str) -> None:
    """Stop the watchers Panel set on `obj` to call its `methods` (by name)."""
    for w in [w for w in obj._internal_callbacks if getattr(w.fn, "__name__", None) in methods]:
        obj.param.unwatch(w)
        obj._internal_callbacks.remove(w)


class _OwnRow(pn.Row):
    """The Row Panel builds around every pane, to unpack it into a layout. An HTML pane is
    never shown through it (it renders and updates its own model), so this one does not
    follow its own parameters: 2 watchers where Panel's Row has 26."""

    def _link_params(self) -> None:
        pass


@memo(maxsize=256)
def _html(text: str) -> tuple[str, str]:
    """(`text`, its model text as Panel's HTML pane makes it: escaped). Sessions that show
    the same HTML (a language's headings, leads, questions and FAQ; the narration of the
    same inputs) hold these two strings once, not each its own copies (about 30 KiB a
    session, 5 % of its memory). Bounded, least recently shown out first: a text only one
    session showed leaves with it."""
    return text, escape(text)


def shared_html(text):
    """`text`, as the one string the sessions showing it share (`_html`); anything else as
    it is."""
    return _html(text)[0] if isinstance(text, str) else text


class Listening:
    """Mixin (first in the bases) for a pane, layout or browser-drawn component of ours:
    after it is built, it listens only to what a view changes on it: its visibility, classes
    and styles, the parameters its own classes declare (a stage's frames, a question's
    content) and `LIVE`. Panel's objects follow every synced parameter (size, margins, alignment,
    scroll position...: 25 for a Column, about 30 for a component), for every object of
    every session; nor does it note a later change of its sizing (`FIXED`). A Column: 10
    watchers where Panel's has 33."""

    LIVE: tuple = ()
    SHARED = True        # False for a class whose parameters a view binds to (`obj.param.x`)

    def __init__(self, *args, **params):
        if self.SHARED:
            shares_parameters(type(self))
        super().__init__(*args, **params)
        _forget(self, *FIXED)

    def _link_params(self) -> None:
        listened = _listened(type(self))
        self._internal_callbacks.append(self.param.watch(
            self._param_change, [p for p in self._synced_params if p in listened]))


_LIBRARIES = ("panel", "panel_material_ui", "param")


def shares_parameters(cls) -> None:
    """Objects of `cls` read its class's parameter objects instead of a copy each.

    param copies a parameter for an object the first time anything asks the object for it
    (`obj.param[name]`), and Panel asks for every parameter while it builds an object's
    model: about 140 copies a session on step 1 (a third of them for the controls), 50 KiB
    of its memory. The copies are there for an object whose parameter settings (bounds,
    labels) change on their own, and for a reference to one object's parameter
    (`pn.bind(fn, obj.param.x)`, which names `obj` through the copy). Ours do neither, except
    those that set `SHARED = False` (a question: views follow its `revealed`). `follow`
    refuses a class's parameter, so a view that binds to a shared one fails at once. Set on
    `cls` itself (each class has its own), never on a class of Panel's."""
    own = cls.__dict__.get("_param__private")     # param's descriptor of the class's own state
    private = getattr(own, "class_ns", None)
    if private is not None and not private.disable_instance_params:
        private.disable_instance_params = True


@lru_cache(maxsize=None)
def _listened(cls) -> frozenset:
    """What an object of `cls` listens to (`Listening`): its own classes' parameters, its
    visibility, classes and styles, and `cls.LIVE`."""
    own = {name for name, p in cls.param.objects(instance=False).items()
           if p.owner.__module__.split(".")[0] not in _LIBRARIES}
    return frozenset({*own, "visible", "css_classes", "styles", *cls.LIVE})


class Pane(Listening, pn.pane.HTML):
    """An HTML pane whose late updates are safe: a change made on a worker thread reaches the
    page on the next tick of the server's loop; if the learner has moved to another step
    meanwhile, the pane's model is gone and the update has nothing left to do (Panel would
    fail the callback with a KeyError).

    After it is built, a pane of ours changes its HTML (`object`) and at most its
    visibility, classes and styles: those are what it listens to (`Listening`), where Panel
    listens to its size, margins and every other parameter too, for every pane of every
    session: 8 watchers where Panel's pane has 46 (with its Row: about 60 KiB less per
    session, 8 %, measured with tracemalloc on steps 1-6)."""

    LIVE = ("object",)

    default_layout = param.ClassSelector(default=_OwnRow, class_=pn.layout.Panel,
                                         is_instance=False)

    def __init__(self, object=None, **params):
        super().__init__(object, **params)
        # Panel keeps the pane's own Row in step with the pane's size and margins (20
        # watchers); the Row is never shown (`_OwnRow`), so it need not follow
        _forget(self, "_sync_layoutable")
        _forget(self.layout, *FIXED)

    def _update_object(self, ref, doc, root, parent, comm) -> None:
        if ref not in self._models:
            return
        super()._update_object(ref, doc, root, parent, comm)

    def _transform_object(self, obj) -> dict:
        if isinstance(obj, str) and not self.sanitize_html:
            return {"object": _html(obj)[1]}
        return super()._transform_object(obj)

    def _update(self, ref: str, model) -> None:
        """A new HTML text: set the model's text alone. (Panel sets every property of the
        model again, a dozen of them, each validated: most of a language switch's time.)"""
        model.text = self._transform_object(self.object)["object"]


class Column(Listening, pn.Column):
    """A Column that listens to its children and `Listening`'s few."""
    LIVE = ("objects",)


class Row(Listening, pn.Row):
    """A Row that listens to its children and `Listening`'s few."""
    LIVE = ("objects",)


def pane(obj="", **kw) -> pn.pane.HTML:
    """An HTML pane with the app's stylesheet; `obj` may be a string or a bound function."""
    kw.setdefault("sizing_mode", "stretch_width")
    kw.setdefault("margin", (0, 0))
    return Pane(obj, stylesheets=[stylesheet()], **kw)


def style_widgets(layout) -> None:
    """Give every Material widget in `layout` the app's stylesheet too, so that the one focus
    ring (assets/app.css, `:focus-visible`) shows on every control, inside its shadow root."""
    from panel_material_ui.base import MaterialComponent
    sheet = stylesheet()
    for widget in layout.select(MaterialComponent):
        if sheet not in widget.stylesheets:
            widget.stylesheets = [*widget.stylesheets, sheet]


def _is_parameter(arg) -> bool:
    """A parameter of a Parameterized object (`model.param.run`), not of a class."""
    return isinstance(arg, param.Parameter) and isinstance(arg.owner, param.Parameterized)


def _call(fn, args: tuple):
    """`fn(*args)`, each parameter among `args` passed as its value."""
    return fn(*(getattr(a.owner, a.name) if _is_parameter(a) else a for a in args))


def follow(target: param.Parameterized, now: bool = True, **bindings) -> None:
    """Keep parameters of `target` derived from others: `follow(stage, frames=(fn, *args))`
    sets `stage.frames = fn(*args)` (now, unless `now=False`) and again whenever an argument
    that is a parameter of a Parameterized object (`model.param.run`, `view.param.lang`)
    changes. Such an argument is passed as its value; any other argument as it is. What one
    change makes new is set together (the target's watchers hear it as one batch).

    The owners of those parameters are watched directly, one watcher per owner. (With
    `pn.bind`, param resolves the bound function as a reference of the target on every
    change, and sets it through `param.update`, which first reads the value of each of the
    target's parameters, 45 for an HTML pane; a move re-derives several of them.)"""
    specs = {name: (fn, tuple(args)) for name, (fn, *args) in bindings.items()}
    for _, args in specs.values():
        for arg in args:
            if isinstance(arg, param.Parameter) and not _is_parameter(arg):
                raise TypeError(f"{arg.name}: a parameter of a class, not of an object, cannot "
                                "be followed (does its class share parameters? see "
                                "`shares_parameters`)")
    readers: dict[int, tuple[param.Parameterized, dict[str, set]]] = {}
    for name, (_, args) in specs.items():
        for arg in filter(_is_parameter, args):
            _, by_param = readers.setdefault(id(arg.owner), (arg.owner, {}))
            by_param.setdefault(arg.name, set()).add(name)

    def derive(names: list) -> None:
        if len(names) == 1:
            setattr(target, names[0], _call(*specs[names[0]]))
            return
        values = {name: _call(*specs[name]) for name in names}
        with param.parameterized.batch_call_watchers(target):
            for name, value in values.items():
                setattr(target, name, value)

    if now:
        derive(list(specs))
    for owner, by_param in readers.values():
        def changed(*events, by_param=by_param) -> None:
            derive([n for n in specs if any(n in by_param[e.name] for e in events)])
        owner.param.watch(changed, list(by_param))


def built(cls, derived: dict, **params):
    """`cls(**params)` with the parameters in `derived` ({name: (fn, *args)}) set from their
    bindings and kept so (`follow`): `built(Question, {"content": (fn, m.param.run, lang)})`."""
    obj = cls(**params, **{name: _call(fn, tuple(args)) for name, (fn, *args) in derived.items()})
    follow(obj, now=False, **derived)
    return obj


def bound(fn, *args, **kw) -> pn.pane.HTML:
    """A pane whose HTML is `fn(*args)`, re-rendered when an argument that is a parameter
    changes (`follow`)."""
    p = pane(shared_html(_call(fn, tuple(args))), **kw)
    follow(p, now=False, object=(lambda *values: shared_html(fn(*values)), *args))
    return p


@dataclass(frozen=True)
class Block:
    """One block of a `prose` pane (made by `block`)."""
    fn: Callable[..., str]
    args: tuple
    cls: str


def block(fn, *args, cls: str = "") -> Block:
    """A block of text for `prose`: the HTML `fn(*args)` (arguments as for `bound`), in a
    `<div class="cls">` when `cls` is given (the classes a pane of its own had)."""
    return Block(fn, args, cls)


def prose(*blocks: Block, **kw) -> Pane:
    """Consecutive blocks of text, one after another, as one pane: `prose(block(fn, lang,
    cls="narration"), block(notices_fn, m.param.run, lang))`. A block whose HTML is empty
    leaves nothing (a notice that has nothing to say). A change of any block's argument
    renders them all again (they are short texts).

    A pane of its own per block cost each step change a Panel pane, its row and a Bokeh
    model (about a millisecond), and each session about 8 KiB, for texts that are never
    apart on the page."""
    args = tuple(a for b in blocks for a in b.args)
    ends = [0]
    for b in blocks:
        ends.append(ends[-1] + len(b.args))

    def html(*values) -> str:
        parts = []
        for b, i, j in zip(blocks, ends, ends[1:]):
            text = b.fn(*values[i:j])
            if text:
                parts.append(render("block.html.j2", cls=b.cls, html=Markup(text))
                             if b.cls else text)
        return "".join(parts)
    return bound(html, *args, **kw)


# -- cards -----------------------------------------------------------------------------------

@dataclass(frozen=True)
class Card:
    """One number card: `key` is the data-metric hook, `label` a msgid, `kind` the badge
    (None for inputs and categories: badges go on results only). `hidden`: the card answers
    the step's question, so its value waits until the learner has answered. `more`: not a
    headline number: a stage shows it under its collapsed “All numbers”."""
    key: str
    label: str
    kind: str | None = "computed"
    hidden: bool = False
    more: bool = False


def card_dicts(specs, values: dict, tr: Translator, labels: dict | None = None) -> list[dict]:
    """Specs + {key: formatted value} -> the dicts the templates and the browser stage draw.
    `labels` overrides a spec's label with an already translated text (labels with numbers)."""
    labels = labels or {}
    return [dict(key=c.key, label=labels.get(c.key) or tr._(c.label), value=values[c.key],
                 kind=c.kind, hidden=c.hidden, more=c.more) for c in specs if c.key in values]


def metrics_html(cards: list[dict], tr: Translator, label: str = "",
                 concealed: bool = False) -> str:
    """A row of cards; while `concealed`, answer-bearing values show as “?”."""
    shown = [dict(c, value="?") if concealed and c.get("hidden") else c for c in cards]
    return render("metrics.html.j2", cards=shown, badges=badges(tr), label=label)


def notices_html(notices: list[str]) -> str:
    return render("notices.html.j2", notices=notices)


def paragraphs_html(paragraphs: list[str], heading: str = "") -> str:
    return render("paragraphs.html.j2", paragraphs=paragraphs, heading=heading)


def legend_html(items: list[tuple[str, str]]) -> str:
    """Colour chips with their names: items are (palette key, label)."""
    return render("legend.html.j2", items=items)


def table_html(head: list[str], rows: list[list[str]], caption: str = "") -> str:
    return render("table.html.j2", head=head, rows=rows, caption=caption)
