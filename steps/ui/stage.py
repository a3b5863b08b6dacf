"""The stage: a step's animated visual, played in the browser.

The server computes every frame for the current inputs once and sends them together
(`frames`); Play / Pause / Step back / Step forward / Reset and the keys (Space, “.” and “,”)
then move through them in the page, with no server round trip per frame. The server hears the
position (`frame`) only when playback stops: on Pause, Step, Reset and at the last frame, so
that the URL and the session state follow.

A frame is a dict of already translated, locale-formatted text plus the figure's numbers:

    {"pos": "Generated tokens: 3 of 11",       # the player's position line
     "say": "Token 8: the query of “Paris” reads 8 keys.",   # announced after Step / Pause
     "desc": "one sentence: what the figure shows now",
     "cards": [{"key", "label", "value", "kind", "hidden", "more"}],  # data-metric cards
                                                # (`more`: under a collapsed “All numbers”)
     "caption": "a sentence under the figure",
     "table": {"head": [...], "rows": [[...]]},  # the chart's text twin
     "fig": {...}}                              # whatever this stage's `draw` reads

`text` holds the static labels (buttons, badges, the figure's name). Each subclass supplies
`_draw_js`: the body of `function draw(holder, fig, ctx)` that (re)builds the figure's SVG in
`holder`; `ctx` = {text, index, count, reduced, concealed}. `_draw_js` may also define
`function extra(box, frame, ctx)`: it fills a box under the caption with what else a frame
carries (texts that follow the frame, captions whose numbers wait while `ctx.concealed`).
Everything is written with textContent and setAttribute: data never reaches innerHTML.
"""
from __future__ import annotations

import functools
import json
from collections.abc import Sequence

import param
import panel as pn

from explainer.memo import memo

from .batch import OnLoop, one_patch
from .components import Listening, stylesheet
from .shared import shared

PLAYER_JS = r"""
const SVGNS = "http://www.w3.org/2000/svg";
function svg(tag, attrs, parent) {
  const e = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (parent) parent.appendChild(e);
  return e;
}
function h(tag, cls, parent, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined && text !== null) e.textContent = text;
  if (parent) parent.appendChild(e);
  return e;
}
const ICONS = { reset: "M3 3h2v10H3z M13 3 6 8l7 5z", back: "M11 3 4 8l7 5z M12 3h1v10h-1z",
                next: "M5 3l7 5-7 5z M3 3h1v10H3z", play: "M4 2l10 6-10 6z",
                pause: "M4 3h3v10H4z M9 3h3v10H9z" };
function icon(name) {
  const s = svg("svg", { viewBox: "0 0 16 16", width: "14", height: "14", class: "player-icon",
                         "aria-hidden": "true", focusable: "false" });
  svg("path", { d: ICONS[name], fill: "currentColor" }, s);
  return s;
}
const SKIP = ["INPUT", "TEXTAREA", "SELECT", "BUTTON", "A", "SUMMARY"];
const SKIP_ROLES = ["slider", "radio", "tab", "combobox", "listbox", "option", "menuitem",
                    "spinbutton", "textbox", "button"];

function unpack(packed) {
  if (!packed || !packed.length || !packed[0] || !packed[0]["$strings"]) return packed || [];
  const S = packed[0]["$strings"], O = packed[0]["$objects"] || [];
  const K = packed[0]["$keys"] || [], memo = [];
  const sub = (x) => {
    if (typeof x === "string") {
      if (x.startsWith("\u00a7")) return S[parseInt(x.slice(1), 36)];
      if (x.startsWith("\u00b6")) {
        const k = parseInt(x.slice(1), 36);
        if (memo[k] === undefined) memo[k] = sub(O[k]);
        return memo[k];
      }
      return x;
    }
    if (Array.isArray(x)) {
      const mark = x.length && typeof x[0] === "string" ? x[0].charAt(0) : "";
      if (mark === "\u00a6") return sub(x[0].slice(1)).concat([sub(x[1])]);   // a list + 1
      if (mark === "\u00a4") {                                                 // a dict
        const o = {};
        K[parseInt(x[0].slice(1), 36)].forEach((k, j) => { o[k] = sub(x[j + 1]); });
        return o;
      }
      return x.map(sub);
    }
    if (x && typeof x === "object") { const o = {}; for (const k in x) o[k] = sub(x[k]); return o; }
    return x;
  };
  return packed.slice(1).map(sub);
}

/*DRAW*/

export function render({ model, el }) {
  const root = h("div", "stage");
  const bar = h("div", "player", root);
  const mk = (cls, name) => {
    const wrap = h("span", cls, bar);
    const b = h("button", "player-btn", wrap);
    b.type = "button";
    b.appendChild(icon(name));
    const l = h("span", "player-label", b);
    return [b, l];
  };
  const [bReset, lReset] = mk("player-reset", "reset");
  const [bBack, lBack] = mk("player-back", "back");
  const [bPlay, lPlay] = mk("player-play", "play");
  const [bNext, lNext] = mk("player-next", "next");
  bPlay.classList.add("primary");
  const pos = h("span", "player-pos", bar);
  const cards = h("div", "metrics stage-cards", root);
  cards.setAttribute("role", "group");
  const figure = h("figure", "stage-figure", root);
  const holder = h("div", "stage-svg", figure);
  holder.setAttribute("role", "img");
  const caption = h("p", "stage-caption", root);
  const extraBox = h("div", "stage-extra", root);   // a stage's own `extra` fills it
  extraBox.hidden = typeof extra !== "function";
  const more = h("details", "more-numbers", root);         // cards with `more`: collapsed
  const moreSummary = h("summary", "", more);
  const moreCards = h("div", "metrics", more);
  moreCards.setAttribute("role", "group");
  more.hidden = true;
  const twin = h("details", "twin", root);
  const twinSummary = h("summary", "", twin);
  const twinTable = h("table", "kv", twin);
  const say = h("p", "sr-only stage-say", root);
  say.setAttribute("role", "status");
  say.setAttribute("aria-live", "polite");

  const reduced = window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches;
  if (reduced) root.classList.add("reduced-motion");
  let i = model.frame;
  let timer = null;

  const frames = () => unpack(JSON.parse(model.frames || "[]"));
  let F = frames();                      // the frames, parsed and unpacked once per change
  const count = () => F.length;
  const clamp = (k) => Math.max(0, Math.min(count() - 1, k));

  function fillCards(list) {
    const badges = (model.text && model.text.badges) || {};
    cards.replaceChildren();
    moreCards.replaceChildren();
    let nMore = 0;
    for (const c of list || []) {
      if (c.more) nMore += 1;
      const card = h("div", "metric" + (c.hidden ? " answer-bearing" : ""), c.more ? moreCards : cards);
      card.setAttribute("data-metric", c.key);
      h("div", "metric-label", card, c.label);
      h("div", "metric-value", card, c.hidden && model.concealed ? "?" : c.value);
      if (c.kind && badges[c.kind]) {
        const b = h("span", "badge badge-" + c.kind, card, badges[c.kind][0]);
        b.title = badges[c.kind][1];
      }
    }
    more.hidden = !nMore;
  }
  function fillTable(t) {
    twinTable.replaceChildren();
    if (!t) { twin.hidden = true; return; }
    twin.hidden = false;
    const head = h("tr", "", h("thead", "", twinTable));
    for (const c of t.head) h("th", "", head, c).setAttribute("scope", "col");
    const body = h("tbody", "", twinTable);
    for (const r of t.rows) {
      const tr = h("tr", "", body);
      r.forEach((c, k) => { const e = h(k ? "td" : "th", "", tr, c); if (!k) e.setAttribute("scope", "row"); });
    }
  }
  function show() {
    const n = count();
    const text = model.text || {};
    lReset.textContent = text.reset || "";
    lBack.textContent = text.back || "";
    lNext.textContent = text.next || "";
    lPlay.textContent = timer ? (text.pause || "") : (text.play || "");
    bPlay.querySelector(".player-icon").replaceWith(icon(timer ? "pause" : "play"));
    bPlay.setAttribute("aria-pressed", timer ? "true" : "false");
    twinSummary.textContent = text.table || "";
    moreSummary.textContent = text.more || "";
    root.classList.toggle("concealed", !!model.concealed);
    if (!n) return;
    i = clamp(i);
    const f = F[i];
    bBack.disabled = i <= 0;
    bNext.disabled = i >= n - 1;
    pos.textContent = f.pos || "";
    fillCards(f.cards);
    caption.textContent = f.caption || "";
    caption.hidden = !f.caption;
    holder.setAttribute("aria-label", (text.figure ? text.figure + ": " : "") + (f.desc || ""));
    fillTable(f.table);
    const ctx = { text, index: i, count: n, reduced, concealed: !!model.concealed };
    try {
      draw(holder, f.fig || {}, ctx);
    } catch (err) {
      console.warn("stage draw failed", err);
    }
    if (typeof extra === "function") {
      try { extra(extraBox, f, ctx); } catch (err) { console.warn("stage extra failed", err); }
    }
  }
  function announce() {
    const f = F[i];
    if (f) say.textContent = [f.pos, f.say].filter(Boolean).join(". ");
  }
  function sync() { if (model.frame !== i) model.frame = i; }
  function stop() {
    if (timer) { clearInterval(timer); timer = null; }
  }
  function tick() {
    if (i >= count() - 1) { stop(); show(); announce(); sync(); return; }
    i += 1;
    if (i >= count() - 1) { stop(); show(); announce(); sync(); return; }
    show();
  }
  function play() {
    if (i >= count() - 1) i = 0;         // Play at the end starts over
    timer = setInterval(tick, model.interval);
    show();
  }
  function toggle() {
    if (timer) { stop(); show(); announce(); sync(); } else { play(); }
  }
  function step(d) { stop(); i = clamp(i + d); show(); announce(); sync(); }
  function reset() { stop(); i = 0; show(); announce(); sync(); }

  bReset.addEventListener("click", reset);
  bBack.addEventListener("click", () => step(-1));
  bNext.addEventListener("click", () => step(1));
  bPlay.addEventListener("click", toggle);

  bar.hidden = !model.player;
  const onkey = (e) => {
    if (!model.player || e.defaultPrevented || e.altKey || e.ctrlKey || e.metaKey) return;
    if (!root.isConnected) return;
    const t = e.composedPath()[0];
    if (t && (t.isContentEditable || SKIP.includes(t.tagName) ||
        (t.getAttribute && SKIP_ROLES.includes(t.getAttribute("role"))))) return;
    if (e.key === " ") { e.preventDefault(); toggle(); }
    else if (e.key === ".") { e.preventDefault(); step(1); }
    else if (e.key === ",") { e.preventDefault(); step(-1); }
    else if (model.present && e.key === "PageDown") {
      e.preventDefault();
      if (i < count() - 1) step(1); else model.send_msg("next-step");
    } else if (model.present && e.key === "PageUp") {
      e.preventDefault();
      if (i > 0) step(-1); else model.send_msg("previous-step");
    }
  };
  document.addEventListener("keydown", onkey);   // before the page-level keys on window

  // a control changed the frames (a slider, the language): show them and, unless playing,
  // say what changed in the live region
  model.on("frames", () => { F = frames(); show(); if (!timer) announce(); });
  model.on("text", () => show());
  model.on("concealed", () => show());
  model.on("frame", () => {
    if (!timer && model.frame !== i) { i = model.frame; show(); announce(); }
  });
  model.on("remove", () => { stop(); document.removeEventListener("keydown", onkey); });
  show();
  return root;
}
"""


SIGIL = "\u00a7"          # a packed string: SIGIL + its index (base 36) in the string table
OBJ = "\u00b6"            # a packed list or dict: OBJ + its index in the object table
GROW = "\u00a6"           # [GROW + OBJ reference of a list, one item]: that list plus the item
SHAPE = "\u00a4"          # [SHAPE + index in the key table, values...]: a dict with those keys
MARKS = (SIGIL, OBJ, GROW, SHAPE)


def pack(frames: list) -> list:
    """Frames as sent. Frames repeat most of what they hold, so:
    - every string that occurs more than once (card labels, names) and every list or dict
      that occurs more than once (a table row, a card) is sent once, in tables at the head of
      the list, and referenced by SIGIL/OBJ + index;
    - a list that is another frame's list plus one item (a grid that gains a row per frame,
      a table that gains a line) is sent as [GROW + that list's reference, the item], so a
      growing list costs its length once, not once per frame;
    - a dict whose keys occur in the same order in other dicts (every card, every frame) is
      sent as [SHAPE + index of its keys in the key table, its values...].
    Strings that begin with one of these marks always go to the string table, so a mark is
    never data. The browser unpacks the frames once per change (`unpack` in PLAYER_JS)."""
    strings: dict[str, int] = {}
    canon: dict[int, str] = {}
    objects: dict[str, int] = {}
    lists: dict[str, list] = {}        # a list's JSON text -> the first list with that text
    shapes: dict[tuple, int] = {}

    def count(x) -> None:
        """Count every string, every list or dict (by its JSON text) and every dict's keys."""
        if isinstance(x, str):
            strings[x] = strings.get(x, 0) + 1
            return
        if isinstance(x, dict):
            values = x.values()
            shapes[tuple(x)] = shapes.get(tuple(x), 0) + 1
        elif isinstance(x, (list, tuple)):
            values = x
        else:
            return
        for v in values:
            count(v)
        c = _canonical(x)
        canon[id(x)] = c
        objects[c] = objects.get(c, 0) + 1
        if not isinstance(x, dict):
            lists.setdefault(c, x)
    for f in frames:
        count(f)

    def json_of(v) -> str:
        return canon[id(v)] if isinstance(v, (dict, list, tuple)) else _canonical(v)
    grows: dict[str, str] = {}         # a list's text -> the text of the list it extends
    for c, x in lists.items():
        if len(x) >= 2:
            shorter = "[" + ",".join(json_of(v) for v in x[:-1]) + "]"
            if len(shorter) > 12 and shorter in lists:
                grows[c] = shorter
    extended = set(grows.values())
    stable = [t for t, n in strings.items() if (n > 1 and len(t) > 4) or t.startswith(MARKS)]
    sref = {t: SIGIL + _base36(i) for i, t in enumerate(stable)}
    keys = [k for k, n in shapes.items() if n > 1 and len(k) >= 2]
    kref = {k: SHAPE + _base36(i) for i, k in enumerate(keys)}
    otable: list = []
    oref: dict[str, str] = {}

    def sub(x, top: bool = False):
        if isinstance(x, str):
            return sref.get(x, x)
        if not isinstance(x, (dict, list, tuple)):
            return x
        c = canon[id(x)]
        if not top and (c in extended or (objects[c] > 1 and len(c) >= 16)):
            if c not in oref:
                k = len(otable)
                oref[c] = OBJ + _base36(k)
                otable.append(None)          # its place, before what it holds takes theirs
                otable[k] = body(x, c)
            return oref[c]
        return body(x, c)

    def body(x, c: str):
        if isinstance(x, dict):
            shape = kref.get(tuple(x))
            if shape is not None:
                return [shape] + [sub(v) for v in x.values()]
            return {k: sub(v) for k, v in x.items()}
        if c in grows:
            return [GROW + sub(lists[grows[c]]), sub(x[-1])]
        return [sub(v) for v in x]
    body_ = [sub(f, top=True) for f in frames]
    head = {"$strings": stable, "$objects": otable, "$keys": [list(k) for k in keys]}
    count = json_of = sub = body = None     # noqa: F841  (the helpers name each other: without
    return [head] + body_                   # this, they and their tables wait for the collector)


_canonical = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


def _base36(i: int) -> str:
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    out = ""
    while True:
        i, r = divmod(i, 36)
        out = digits[r] + out
        if not i:
            return out


def packed_json(frames: list) -> str:
    """The packed frames as one JSON text: Bokeh sends a string as it is, where a nested
    list would be walked value by value (looking for models inside) on every change. A single
    frame goes as it is: it repeats little, and packing it took 15 times as long as writing it
    (2.3 against 0.16 ms for step 4's, measured) to save a tenth of its size."""
    return json.dumps(pack(frames) if len(frames) > 1 else list(frames), ensure_ascii=False,
                      separators=(",", ":"))


def unpack(packed: list) -> list:
    """`pack` undone (PLAYER_JS's `unpack`, in Python); frames that were not packed (a
    single one) as they are."""
    if not packed or not isinstance(packed[0], dict) or "$strings" not in packed[0]:
        return list(packed)
    head, body = packed[0], packed[1:]
    S, O, K, memo = head["$strings"], head["$objects"], head.get("$keys", []), {}

    def sub(x):
        if isinstance(x, str):
            if x.startswith(SIGIL):
                return S[int(x[1:], 36)]
            if x.startswith(OBJ):
                k = int(x[1:], 36)
                if k not in memo:
                    memo[k] = sub(O[k])
                return memo[k]
            return x
        if isinstance(x, list):
            mark = x[0][:1] if x and isinstance(x[0], str) else ""
            if mark == GROW:
                return sub(x[0][1:]) + [sub(x[1])]
            if mark == SHAPE:
                return dict(zip(K[int(x[0][1:], 36)], map(sub, x[1:])))
            return [sub(v) for v in x]
        if isinstance(x, dict):
            return {k: sub(v) for k, v in x.items()}
        return x
    frames = [sub(f) for f in body]
    sub = None                              # noqa: F841  (no cycle left for the collector)
    return frames


@memo(maxsize=64)
def _text(utf8: bytes) -> str:
    """The text of packed frames, decoded once for every session that shows them: each
    session's stage holds it in its model, and step 2's, decoded per session, took 198 KiB of
    every session on that step (measured with tracemalloc); the most recent ones are shared."""
    return utf8.decode("utf-8")


class Packed(Sequence):
    """Frames packed once, as the browser receives them: a shared cache keeps this text (a
    third of the frames' size in Python objects) and every session sends it as it is. Read on
    the server (tests, tools), it unpacks to the frames."""
    __slots__ = ("_utf8",)

    def __init__(self, frames: list):
        # kept as UTF-8: a str with one “ or a non-breaking space in it takes two or four
        # bytes for every character, and a server holds about a thousand of these
        self._utf8 = packed_json(frames).encode("utf-8")

    @property
    def json(self) -> str:
        return _text(self._utf8)

    def frames(self) -> list:
        return unpack(json.loads(self.json))

    def __len__(self) -> int:
        return len(self.frames())

    def __getitem__(self, i):
        return self.frames()[i]

    def __iter__(self):
        return iter(self.frames())        # unpacked once, not once per frame


def packs(fn, maxsize: int = 256):
    """`fn` (a text layer's frames) built, packed and kept once per process for every
    session (`shared`): what the cache holds is the packed text only."""
    @functools.wraps(fn)
    def packed(*args):
        return Packed(fn(*args))
    return shared(packed, maxsize=maxsize)


class Stage(Listening, OnLoop, pn.custom.JSComponent):
    """Frames computed on the server, played in the browser (see the module docstring)."""

    frames = param.Parameter(default=[], doc="every frame of the current inputs (a list, or "
                             "`Packed`; the browser receives them packed, as one JSON text)")
    frame = param.Integer(default=0, doc="where playback stopped (synced on stop, not per tick)")
    text = param.Dict(default={}, doc="static labels in the session's language")
    interval = param.Integer(default=900, doc="milliseconds between frames while playing")
    concealed = param.Boolean(default=False, doc="answer-bearing cards show “?”")
    present = param.Boolean(default=False, doc="presenter mode: PageDown/PageUp step too")
    player = param.Boolean(default=True, doc="False: a still chart (one frame, no player, "
                                             "no keys)")

    _draw_js = "function draw(holder, fig, ctx) {}"
    browser_sets = ("frame",)     # where playback stopped (the rest come from the server)

    def __init_subclass__(cls, **kw):
        super().__init_subclass__(**kw)
        cls._esm = PLAYER_JS.replace("/*DRAW*/", cls._draw_js)

    def __init__(self, on_nav=None, **params):
        params.setdefault("stylesheets", [stylesheet()])
        params.setdefault("sizing_mode", "stretch_width")
        self._last_packed = None
        super().__init__(**params)
        self._on_nav = on_nav

    def _process_param_change(self, params):
        params = super()._process_param_change(params)
        if "frames" in params:
            params["frames"] = self._packed(params["frames"])
        return params

    def _packed(self, frames) -> str:
        """The text sent for `frames`: Panel asks for it more than once per change, so the
        last one is kept (this stage's current frames only)."""
        if isinstance(frames, Packed):
            return frames.json
        last = self._last_packed
        if last is None or last[0] is not frames:
            last = self._last_packed = (frames, packed_json(frames))
        return last[1]

    @one_patch
    def _handle_msg(self, msg):
        if self._on_nav is not None and msg in ("next-step", "previous-step"):
            self._on_nav(1 if msg == "next-step" else -1)


Stage._esm = PLAYER_JS.replace("/*DRAW*/", Stage._draw_js)


def player_text(tr) -> dict:
    """The player's labels (shared by every stage)."""
    from .components import badges
    return dict(reset=tr._("Reset"), back=tr._("Step back"), next=tr._("Step forward"),
                play=tr._("Play"), pause=tr._("Pause"), table=tr._("Show as table"),
                more=tr._("All numbers"),
                badges=badges(tr))
