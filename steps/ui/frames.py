"""A stage's frames as the browser receives them: one JSON text.

The server computes every frame of the current inputs once and sends them together; the
browser's player (`steps/ui/js/player.js`) then moves through them with no round trip per
frame. A frame is a dict of already translated, locale-formatted text plus the figure's
numbers (its shape: `steps.ui.state.Frame`).

Frames repeat most of what they hold (card labels, a grid that gains a row per frame), which
is what the websocket's permessage-deflate removes on the wire (`panel serve
--websocket-compression-level`); for the same reason a process keeps the frames it shares
between sessions compressed (`Frames`), and the sessions that show them hold one decoded text
(`_text`). Until the learner answers, the page gets the frames with their answer-bearing cards
concealed (`steps/ui/conceal.py`): shared frames keep that text too, made once when they are
built, so that no move conceals them again. Comparison with the hand-made packing this replaced: docs/performance.md.
"""
from __future__ import annotations

import functools
import json
import zlib
from collections.abc import Sequence

from explainer.memo import memo

from .conceal import conceal, conceal_text
from .shared import shared

_encode = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


def frames_json(frames: list) -> str:
    """The frames as the page's `frames` part."""
    return _encode(list(frames))


@memo(maxsize=64)
def _text(compressed: bytes) -> str:
    """The text of shared frames, decoded once for every session that shows them (each
    session's page holds it); the most recent ones are kept."""
    return zlib.decompress(compressed).decode("utf-8")


def _pack(text: str) -> bytes:
    return zlib.compress(text.encode("utf-8"), 6)


class Frames(Sequence):
    """Frames built once and shared by every session (`shared_frames`), kept compressed, as
    they are and with their answer-bearing cards concealed (`text`); read on the server
    (tests, tools), they are the frames."""
    __slots__ = ("_compressed", "_concealed")

    def __init__(self, frames: list):
        text = frames_json(frames)
        hidden = conceal_text(text)
        self._compressed = _pack(text)
        self._concealed = self._compressed if hidden == text else _pack(hidden)

    @property
    def json(self) -> str:
        return _text(self._compressed)

    def text(self, concealed: bool) -> str:
        """The page's `frames` part: the JSON text, concealed or not."""
        return _text(self._concealed if concealed else self._compressed)

    def frames(self) -> list:
        return json.loads(self.json)

    def __len__(self) -> int:
        return len(self.frames())

    def __getitem__(self, i):
        return self.frames()[i]

    def __iter__(self):
        return iter(self.frames())


def shared_frames(fn, maxsize: int = 256, disk: bool = True):
    """`fn` (a text layer's frames) built and kept once per process for every session
    (`shared`, by the value of its arguments), as `Frames`; the warm-up's are kept on disk
    between starts (`steps.warmcache`) unless `disk` is False (frames that show a speed
    measured by this process)."""
    @functools.wraps(fn)
    def build(*args):
        return Frames(fn(*args))
    return shared(build, maxsize=maxsize, disk=disk)


def frames_text(frames, concealed: bool) -> str:
    """The page's `frames` part: `frames` (a list, or `Frames` shared by the sessions) as one
    JSON text, its answer-bearing cards concealed when `concealed`."""
    if frames is None:
        return ""
    if isinstance(frames, (list, tuple)):
        return frames_json(conceal(list(frames)) if concealed else frames)
    return frames.text(concealed)
