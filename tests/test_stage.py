"""The stage's wire format: frames packed once per process and sent as one JSON text."""
import json

from steps.ui.stage import Packed, Stage, packed_json, packs, unpack


FRAMES = [{"pos": f"Token {i} of 3", "cards": [{"key": "rows", "label": "Rows read",
                                                   "value": str(i * 7)},
                                                  {"key": "same", "label": "Rows read twice",
                                                   "value": "unchanged"}],
           "fig": {"row": [1, 2, 3, 4, 5, 6], "name": "“quoted” <b>&</b> § ¶"}}
          for i in range(3)]


def test_packed_frames_are_one_json_text_that_unpacks_to_the_frames():
    text = packed_json(FRAMES)
    assert isinstance(text, str)
    packed = json.loads(text)
    assert unpack(packed) == FRAMES
    assert len(text) < len(json.dumps(FRAMES, ensure_ascii=False))   # repeats sent once
    assert "Rows read twice" in packed[0]["$strings"]


def test_the_browser_gets_the_text_and_python_keeps_the_list():
    stage = Stage(frames=FRAMES)
    assert stage.frames is FRAMES
    assert stage._process_param_change({"frames": FRAMES})["frames"] == packed_json(FRAMES)


def test_shared_frames_are_kept_packed_and_sent_as_they_are():
    """A view's shared frames are packed once per process; the cache keeps only the text,
    which every session sends unchanged, and which still reads as the frames."""
    calls = []

    def frames(n):
        calls.append(n)
        return FRAMES[:n]
    shared_frames = packs(frames)
    a, b = shared_frames(2), shared_frames(2)
    assert a is b and calls == [2]
    assert isinstance(a, Packed) and a.json == packed_json(FRAMES[:2])
    assert len(a) == 2 and a[1] == FRAMES[1] and list(a) == FRAMES[:2]
    stage = Stage(frames=a)
    assert stage._process_param_change({"frames": a})["frames"] == a.json
