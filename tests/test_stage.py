"""The stage's wire format: frames packed once per process and sent as one JSON text."""
import json

from steps.ui.stage import OBJ, SIGIL, Stage, packed_json, prepare


def unpack(packed):
    """PLAYER_JS's unpack, in Python."""
    head, body = packed[0], packed[1:]
    S, O, memo = head["$strings"], head["$objects"], {}

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
            return [sub(v) for v in x]
        if isinstance(x, dict):
            return {k: sub(v) for k, v in x.items()}
        return x
    return [sub(f) for f in body]


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
    sent = stage._process_param_change({"frames": FRAMES})["frames"]
    assert sent == packed_json(FRAMES)
    assert prepare(FRAMES) is FRAMES
    assert stage._process_param_change({"frames": FRAMES})["frames"] is sent   # packed once
