"""The app of one session, without Panel: the step on screen, the language, the page mode and
the deep link, and the state of the page around the step (`shell_state`).

URL parameters: `step` (1..COUNT, or `end` for the key ideas), `lang` (en, id, pl, nl),
`embed=1` (the step alone, for course pages: it tells its parent frame its height),
`figure=1` (with `embed`, which it implies: only the figure, its controls and the lead
sentence, for a course page that brings its own text; nothing waits for an answer),
`present=1` (presenter mode: figure first, larger type, no FAQ; PageDown/PageUp also move
through the player and the steps; S opens the speaker view), `speaker=1` (with `present`,
which it implies: the speaker view, the notes, the answer, a clock and the step's full prose,
following the projected page: {"follow": query} below), `copy=1` (with `present`, which it
implies: the projected page as the speaker view shows it, scaled: it follows the projected
page as the speaker view does and takes no input), and the controls of the current step (each
step's `url_names`).
Unknown or invalid values fall back to the defaults with a short translated notice.

The page (`steps.ui.page`) sends the learner's moves to `handle`: {"nav": ±1}, {"goto": n},
{"lang": code}, {"follow": query, "answer": i, "shown": bool} (the speaker view takes on the
projected page's view); anything else is the step's (`steps.ui.step.Step.handle`). After a move, or
when the step's model changes by itself (a live measurement arriving), the listeners hear
`on_change` once and read `state()`.
"""
from __future__ import annotations

import importlib
from functools import lru_cache
from urllib.parse import parse_qs, urlencode

import param

from explainer.i18n import LANGS, N_, negotiate, normalize_lang

from .common import AppState, translator
from .faq import FAQ, REFERENCES
from .glossary import glossary_state
from .registry import COUNT, END, END_TITLE, STEP_TITLES, STEPS, minutes, module_of, notes
from .ui.words import badges, render

ALWAYS_OK = {"theme"}           # Panel's own query parameters
FLAGS = ("embed", "present", "figure", "speaker", "copy")   # page modes, 1 or 0 (figure=1
                                                # implies embed=1, speaker=1 and copy=1 present=1)


def step_class(n: int):
    """The controller class of step `n` (its view module's `STEP`)."""
    return importlib.import_module(module_of(n) + ".view").STEP


def parse_value(p: param.Parameter, raw: str):
    """A URL string -> a value of the parameter's type (validation is the parameter's)."""
    if isinstance(p, param.Integer):
        return int(raw)
    if isinstance(p, param.Number):
        return float(raw)
    if isinstance(p, param.Selector):
        for obj in p.objects:
            if str(obj) == raw:
                return obj
        raise ValueError(raw)
    if isinstance(p, param.Boolean):
        if raw.lower() not in ("true", "false", "1", "0"):
            raise ValueError(raw)
        return raw.lower() in ("true", "1")
    return raw


def _first(values):
    v = values[0] if isinstance(values, (list, tuple)) and values else values
    return v.decode("utf-8", "replace") if isinstance(v, bytes) else str(v)


class App:
    """One per session (see the module doc)."""

    def __init__(self, query: dict | None = None, accept_language: str | None = None):
        self.state_ = AppState()
        self.step = None                       # the step on screen (a steps.ui.step.Step)
        self._saved: dict[int, dict] = {}      # steps visited before -> what they restore
        self._watchers: list = []
        self._listeners: list = []
        self._busy = False
        self.notices: list[tuple[str, dict]] = []
        self.asked_controls: str | None = None   # `controls=`: an embed's controls, by name
        self._apply_query({k: _first(v) for k, v in (query or {}).items()}, accept_language)

    @property
    def app_state(self) -> AppState:
        return self.state_

    # -- URL -------------------------------------------------------------------------------
    def _apply_query(self, query: dict, accept_language: str | None):
        """Validate the URL once, before anything renders: bad values -> defaults + notice."""
        st = self.state_
        lang = query.get("lang")
        if lang is not None:
            code = normalize_lang(lang)
            if code:
                st.lang = code
            else:
                self.notices.append((N_("Unknown language “{value}”: showing {lang}."),
                                     {"value": lang, "lang": LANGS["en"]}))
        else:
            st.lang = negotiate(accept_language)
        for flag in FLAGS:
            if flag in query:
                if query[flag] in ("1", "0", "true", "false"):
                    setattr(st, flag, query[flag] in ("1", "true"))
                else:
                    self.notices.append((N_("The value “{value}” of “{name}” is not valid "
                                            "here: using {default}."),
                                         {"value": query[flag], "name": flag, "default": 0}))
        if st.figure:
            st.embed = True
        if st.speaker or st.copy:
            st.present = True
        if isinstance(query.get("controls"), str) and st.embed:
            self.asked_controls = query["controls"][:400]
        if "step" in query:
            try:
                raw = query["step"].strip().lower()
                n = END if raw == "end" else int(raw)
                if not 1 <= n <= END:
                    raise ValueError
                st.step = n
            except ValueError:
                self.notices.append((N_("There is no step “{value}”: showing step 1."),
                                     {"value": query["step"]}))
        self._show(st.step)
        model = self.step.model
        known = {"step", "lang", "controls", *FLAGS, *ALWAYS_OK, *self.step.url_names.values()}
        for name in query:
            if name not in known:
                self.notices.append((N_("The link parameter “{name}” is not used by this step "
                                        "and was ignored."), {"name": name}))
        changed = []
        with param.parameterized.discard_events(model):     # one batch: see below
            for p, q in self.step.url_names.items():
                if q not in query:
                    continue
                raw, default = query[q], getattr(model, p)
                try:
                    setattr(model, p, parse_value(model.param[p], raw))   # validated by param
                    changed.append(p)
                except Exception:
                    setattr(model, p, default)
                    self.notices.append((N_("The value “{value}” of “{name}” is not valid "
                                            "here: using {default}."),
                                         {"value": raw, "name": q, "default": default}))
        if changed:
            model.param.trigger(*changed)       # no watcher sees half a link
        self.step.linked(changed)               # a step in parts opens the part it needs

    def url_query(self, **override) -> str:
        """?step=..&lang=..&<every control of the current step>, in a stable order."""
        n = self.state_.step
        q = {"step": "end" if n == END else n, "lang": self.state_.lang}
        for name, v in self.step.url_state().items():
            if isinstance(v, str) and not v.strip():
                continue
            q[name] = v
        for flag in FLAGS:
            if getattr(self.state_, flag):
                q[flag] = 1
        if self.asked_controls is not None:
            q["controls"] = self.asked_controls
        q.update(override)
        return "?" + urlencode({k: v for k, v in q.items() if v is not None})

    # -- moves -----------------------------------------------------------------------------
    def on_change(self, listener) -> None:
        """`listener()` is called once after each change of the state."""
        self._listeners.append(listener)

    def _changed(self, *events) -> None:
        if not self._busy:
            for listener in self._listeners:
                listener()

    def handle(self, msg: dict) -> None:
        """A message from the page (see the module doc)."""
        self._busy = True
        try:
            if "nav" in msg:
                if msg["nav"] in (-1, 1):
                    self.go(msg["nav"])
            elif "goto" in msg:
                n = msg["goto"]
                if isinstance(n, int) and not isinstance(n, bool) and 1 <= n <= END:
                    self.goto(n)
            elif "lang" in msg:
                if msg["lang"] in LANGS:
                    self.set_lang(msg["lang"])
            elif "follow" in msg:
                if isinstance(msg["follow"], str) and len(msg["follow"]) <= 4000:
                    self.follow(msg["follow"], msg.get("answer"), msg.get("shown"))
            elif self.step is not None:
                self.step.handle(msg)
        finally:
            self._busy = False
        self._changed()

    def follow(self, query: str, answer=None, shown=None) -> None:
        """Take on another page's view (the speaker view follows the projected page): its
        step, language, every control and the playhead from its query string, and its answer.
        The page modes stay this session's; an invalid value is skipped without a notice."""
        q = {k: v[0] for k, v in parse_qs(query.lstrip("?")).items() if v}
        raw = q.get("step", "").strip().lower()
        n = END if raw == "end" else int(raw) if raw.isdigit() else None
        if n is not None and 1 <= n <= END:
            self.goto(n)
        if q.get("lang") in LANGS and q["lang"] != self.state_.lang:
            self.set_lang(q["lang"])
        model, changed = self.step.model, []
        with param.parameterized.discard_events(model):     # one batch, as a link's
            for p, name in self.step.url_names.items():
                old = getattr(model, p)
                try:
                    new = parse_value(model.param[p], q[name]) if name in q \
                        else model.param[p].default
                    if new != old:
                        setattr(model, p, new)              # validated by param
                        changed.append(p)
                except Exception:
                    setattr(model, p, old)
        if changed:
            model.param.trigger(*changed)
        if isinstance(answer, int) and not isinstance(answer, bool) and answer != self.step.answer:
            self.step.handle({"answer": answer})
        if shown is True and not self.step.shown:
            self.step.handle({"shown": True})

    def go(self, d: int) -> None:
        self.goto(min(END, max(1, self.state_.step + d)))

    def goto(self, n: int) -> None:
        if n != self.state_.step:
            self.notices = []
            self._show(n)

    def set_lang(self, lang: str) -> None:
        self.state_.lang = lang
        self.step.lang = lang
        if "lang" in self.step.model.param:
            self.step.model.lang = lang

    def _show(self, n: int) -> None:
        """Show step `n`; the step left keeps only what it saves (numbers)."""
        if self.step is not None:
            self._saved[self.step.number] = self.step.saved()
            for obj, w in self._watchers:
                obj.param.unwatch(w)
            self._watchers = []
            self.step.close()
        self.state_.step = n
        self.step = step_class(n)(self.state_.lang, saved=self._saved.get(n))
        self.step.unasked = self.state_.figure      # figure-only: no question, nothing hidden
        self.step.tells_answer = self.state_.speaker   # the speaker view's panel says it
        if self.state_.embed:                          # an embed's controls (`controls=`)
            unknown = self.step.choose_controls(self.asked_controls, self.state_.figure)
            for name in unknown:
                self.notices.append((N_("This step has no control “{name}”: it was left "
                                        "out."), {"name": name}))
        for obj, names in self.step.watched():
            self._watchers.append((obj, obj.param.watch(self._changed, names)))

    # -- state -----------------------------------------------------------------------------
    def state(self) -> dict:
        """The page's state: {"shell": ShellState, "query": the address bar's query string,
        **StepState}. The query changes with almost every move, the shell's words seldom:
        they are separate parts so that a move does not send the shell again."""
        step = self.step.state()
        if self.state_.figure:
            step["question"] = None                 # the course page brings its own text
        return {"shell": self.shell_state(), "query": self.url_query(),
                "glossary": glossary_state(self.state_.lang), **step}

    def shell_state(self) -> dict:
        st, t, n = self.state_, self.state_.tr, self.state_.step
        app_title = t._("KV Cache Explainer")
        own = self.step.title(t)                # the page's own title (the sheet's), or None
        return {
            "lang": st.lang, "title": f"{app_title} · {own or step_title(t, n)}",
            "embed": st.embed, "present": st.present, "figure": st.figure,
            "app_title": app_title,
            "language": {"label": t._("Language"), "value": st.lang,
                         "options": [[code, name] for code, name in LANGS.items()]},
            "nav": {"label": t._("Steps"), "active": n - 1,
                    "items": [t._(s) for s in STEP_TITLES] + [t._(END_TITLE)]},
            "prev": t._("Previous"), "next": t._("Next"), "at_start": n == 1, "at_end": n == END,
            "notices": self.notice_texts(t), "heading": heading_html(st.lang, n, own),
            "embed_bar": self._embed_bar() if st.embed else None,
            "faq": "" if st.embed or st.present else faq_html(st.lang),
            "badges": badges(t),
            "speaker": st.speaker, "copy": st.copy,
            "talk": self._talk() if st.present else None,
            "link": None if st.figure else {    # a figure-only embed: the course page's
                "label": t._("Copy link"), "done": t._("Link copied"),
                "field": t._("Link to this view"),
                "manual": t._("The link is selected: press Ctrl+C to copy it."),
                "frame": self._frame_param(), "modes": [*FLAGS, "controls"]},
            "save": {"label": t._("Save the figure:"), "svg": t._("Save the figure as SVG"),
                     "png": t._("Save the figure as PNG")},
        }

    def _frame_param(self) -> str | None:
        """The link's parameter that follows the player (the copy link sets it to the frame on
        screen, which the server hears of only when the player stops): `frame`, or the one a
        step names (`frame_url`: step 2's player moves `tokens`)."""
        return self.step.url_names.get("frame") or getattr(self.step, "frame_url", None)

    def _talk(self) -> dict:
        """Presenter mode: the speaker view's words (the page's notes: its package's `NOTES`,
        found by `registry.notes`; the next step's title, or the next part's label; the clock's
        line, set against the minutes its package suggests, `registry.minutes`) and the
        projected page's hint."""
        t, n = self.state_.tr, self.state_.step
        return {"notes_label": t._("Say aloud"), "notes": t._(notes(n)),
                "next_label": t._("Next step"),
                "next": step_title(t, n + 1) if n < END else "",
                "next_part_label": t._("Next part"),
                "clock": t._("{time} on this step (suggested: about {minutes} min)",
                             time="{time}", minutes=t.int(minutes(n))),
                "prose_toggle": t._("Prose and exercises (P)"),
                "answer_label": t._("Answer"), "prose_label": t._("On the learners' page"),
                "hint": t._("S: speaker view"), "title": t._("Speaker view")}

    def _embed_bar(self) -> dict:
        t, n = self.state_.tr, self.state_.step
        if n == END:
            line = t._("KV cache explainer · {title}",
                       title=self.step.title(t) or step_title(t, n))
        else:
            line = t._("KV cache explainer · Step {n}: {title}", n=t.int(n),
                       title=step_title(t, n))
        return {"line": line, "open": t._("Open the full explainer")}   # its link: the query

    def notice_texts(self, t) -> list[str]:
        """The URL notices in the session's language (numbers in its format)."""
        fmt = lambda v: t.int(v) if isinstance(v, int) and not isinstance(v, bool) else v  # noqa: E731
        return [t._(m, **{k: fmt(v) for k, v in kw.items()}) for m, kw in self.notices]

    def view_model(self) -> dict:
        return {"step": self.state_.step, "lang": self.state_.lang,
                "notices": self.notice_texts(self.state_.tr)}


def step_title(t, n: int) -> str:
    return t._(END_TITLE) if n == END else t._(STEP_TITLES[n - 1])


@lru_cache(maxsize=len(LANGS))
def faq_html(lang: str) -> str:
    t = translator(lang)
    return render("faq.html.j2", faq=t._("Frequently asked questions"), refs=t._("References"),
                  items=[(t._(q), t._(a)) for q, a in FAQ],
                  references=[(ref, t._(note)) for ref, note in REFERENCES])


@lru_cache(maxsize=len(LANGS) * (END + 3))
def heading_html(lang: str, n: int, title: str | None = None) -> str:
    """Step `n`'s heading in `lang`: where it is, its title (`title`: the page's own, as the
    sheet's “Exercises”) and the attention schematic with the step's parts highlighted (the
    same for every session: made once each)."""
    t = translator(lang)
    if n == END:
        return render("step_heading.html.j2", where="", title=title or t._(END_TITLE),
                      schematic="")
    label = t._("One attention layer: the new token x is projected into a query q, a key k "
                "and a value v; k and v join the K and V cache; the layer's output is "
                "softmax(q·Kᵀ/√d)·V. Highlighted: what step {n} is about.", n=t.int(n))
    schematic = render("schematic.svg.j2", highlight=STEPS[n - 1].highlight, label=label,
                       k_cache=t._("K cache"), v_cache=t._("V cache"), output=t._("output"),
                       caption=t._("One attention layer; in bold, what step {n} is about.",
                                   n=t.int(n)))
    return render("step_heading.html.j2",
                  where=t._("Step {n} of {total}", n=t.int(n), total=t.int(COUNT)),
                  title=t._(STEP_TITLES[n - 1]), schematic=schematic)
