"""A stage's frames as the browser receives them.

The server computes every frame of the current inputs once and sends them together; the
browser's player (`steps/ui/js/player.js`) then moves through them with no round trip per
frame. A frame is a dict of already translated, locale-formatted text plus the figure's
numbers (its shape: `steps.ui.state.Frame`).

Frames repeat most of what they hold (card labels, a grid that gains a row per frame), so they
travel packed (`pack`); `steps/ui/js/unpack.js` undoes it in the browser, and `unpack` here
(for tests and tools). Packed frames are built and kept once per process for every session
(`packs`).
"""
from __future__ import annotations

import functools
import json
from collections.abc import Sequence

from explainer.memo import memo

from .shared import shared

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
    never data. The browser unpacks the frames once per change (`unpack` in js/unpack.js)."""
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
    """`pack` undone (js/unpack.js, in Python); frames that were not packed (a
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
