"""Frames on the wire: one JSON text per change; shared frames built once per process, kept
compressed, and decoded once for every session that shows them."""
import json

from steps.ui.frames import Frames, frames_json, shared_frames

FRAMES = [{"pos": f"Token {i} of 5", "cards": [{"key": "seq_len", "label": "Sequence length",
                                               "value": str(5 + i)}],
           "fig": {"rows": [[j, "§ ¶ ¦ ¤ “marks” are data"] for j in range(i)]}}
          for i in range(6)]


def test_frames_are_one_json_text():
    text = frames_json(FRAMES)
    assert json.loads(text) == FRAMES and "“marks”" in text      # UTF-8, not escaped
    assert frames_json([]) == "[]"


def test_shared_frames_are_built_once_kept_compressed_and_read_as_frames():
    calls = []

    def frames(n):
        calls.append(n)
        return FRAMES[:n]
    build = shared_frames(frames)
    a, b = build(3), build(3)
    assert a is b and calls == [3]
    assert isinstance(a, Frames) and a.json == frames_json(FRAMES[:3])
    assert len(a._compressed) < len(a.json.encode()) / 2
    assert len(a) == 3 and a[1] == FRAMES[1] and list(a) == FRAMES[:3]


def test_sessions_showing_the_same_frames_hold_one_text():
    """Two sessions' pages on the same shared frames get the very same text (decoded once,
    not once per session); it goes when an idle server releases what its visitors added."""
    from explainer import memo
    shared = Frames(FRAMES)
    texts = [shared.json, shared.json]
    assert texts[0] == frames_json(FRAMES) and texts[0] is texts[1]
    memo.release_all()
    assert shared.json == texts[0] and shared.json is not texts[0]


def test_shared_frames_are_concealed_once_when_built(monkeypatch):
    """Until the answer, a page gets the frames with their answer-bearing cards as “?”: shared
    frames keep that text from their build, so no move conceals them again."""
    import steps.ui.frames as frames
    hidden = [{**f, "cards": [{"key": "next", "label": "Next", "value": "42", "hidden": True}]}
              for f in FRAMES[:3]]
    shared, plain = Frames(hidden), Frames(FRAMES)
    monkeypatch.setattr(frames, "conceal", None)           # concealing now would fail
    assert json.loads(shared.text(True))[1]["cards"][0]["value"] == "?"
    assert shared.text(False) == frames_json(hidden) == shared.json
    assert frames.frames_text(shared, True) == shared.text(True)
    assert plain.text(True) is plain.text(False)            # nothing to conceal: one text
    assert frames.frames_text(None, True) == ""


def test_concealing_the_text_gives_what_concealing_the_frames_gives():
    """Shared frames are concealed from their JSON text (`conceal.conceal_text`): the same
    text, character for character, as concealing the frames and writing them, on step 2's
    real frames before the answer (hidden cards in every frame) and on nested cases."""
    from steps.common import translator
    from steps.step2 import model as m2, text as t2
    from steps.ui.conceal import conceal, conceal_text
    m = m2.Step2Model(lang="pl")
    frames = t2.frames(m.run, None, "pending", "", translator("pl"), False)
    nested = [{"a": [[1, 2.5, None], {"key": "k", "value": "7", "hidden": True, "x": [0]}],
               "b": {"key": "j", "value": "8", "hidden": False}, "c": "ż\u2009≈", "d": float("nan")}]
    for f in (frames, nested, [{"no": "cards"}]):
        text = frames_json(f)
        assert conceal_text(text) == frames_json(conceal(list(f)))
    assert '"value":"?"' in conceal_text(frames_json(frames))
