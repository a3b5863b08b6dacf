"""Frames on the wire: packed once per process and sent as one JSON text."""
import json

from steps.ui.frames import GROW, OBJ, SHAPE, SIGIL, Packed, pack, packed_json, packs, unpack


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


def test_a_single_frame_goes_as_it_is():
    """Steps 4 and 5 have one frame: packing it cost more than it saved, so it is sent as
    plain JSON, which both unpackers (Python here, the page's in the browser tests) take as
    it is, marks and all."""
    one = [dict(FRAMES[0], say="§0 ¶1 ¤2 ¦3")]
    text = packed_json(one)
    assert json.loads(text) == one
    assert unpack(json.loads(text)) == one and Packed(one).frames() == one
    assert unpack([]) == []


def test_a_growing_list_is_sent_once_and_dicts_without_their_keys():
    """A grid that gains a row per frame costs its rows once, not once per frame; every card
    and frame is sent as its values, its keys once in the key table."""
    rows = [[p, 1, p - 1] for p in range(5, 69)]
    frames = [{"T": t, "rows": rows[:t], "cards": [{"key": "n", "label": "Rows", "value": t}]}
              for t in range(1, 65)]
    packed = pack(frames)
    text = json.dumps(packed, ensure_ascii=False, separators=(",", ":"))
    assert unpack(json.loads(text)) == frames
    full = json.dumps(frames, ensure_ascii=False, separators=(",", ":"))
    assert len(text) < len(full) / 5                    # O(T) instead of O(T²)
    last = packed[-1]
    assert last[0].startswith(SHAPE) and ["T", "rows", "cards"] in packed[0]["$keys"]
    grown = last[2]                                     # frame 64's rows: frame 63's + one
    assert grown[0].startswith(GROW + OBJ) and grown[1] == [68, 1, 67]


def test_data_that_looks_like_a_mark_stays_data():
    odd = [SIGIL + "1", OBJ + "0", GROW + OBJ + "0", SHAPE + "0", "§", "¶x", "¦", "¤"]
    frames = [{"a": odd, "b": [odd[:k] for k in range(1, 9)], "c": {SHAPE: GROW, OBJ: [odd]}},
              {"a": odd[::-1], "b": [[GROW + OBJ + "0", 1], [SHAPE + "0", 2]],
               "c": {SHAPE: GROW, OBJ: [odd]}}]
    assert unpack(json.loads(packed_json(frames))) == frames
    assert unpack(json.loads(packed_json([]))) == []
    assert unpack(json.loads(packed_json([{}, {"x": []}, {"x": [[]]}]))) == [{}, {"x": []},
                                                                            {"x": [[]]}]


def test_sessions_showing_the_same_frames_hold_one_text():
    """Two sessions' stages on the same shared frames put the very same text in their
    models (decoded once, not once per session); the text goes when an idle server
    releases what its visitors added."""
    from explainer import memo
    shared_frames = Packed(FRAMES)
    texts = [shared_frames.json, shared_frames.json]   # what each session's page is sent
    assert texts[0] == packed_json(FRAMES) and texts[0] is texts[1]
    memo.release_all()
    assert shared_frames.json == texts[0] and shared_frames.json is not texts[0]


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


def test_pack_and_unpack_leave_no_garbage():
    """Their helpers name each other; they are let go at the end, so a move that packs frames
    leaves nothing for the garbage collector (whose pauses stall every session)."""
    import gc
    frames = [{"cards": [{"key": "a", "value": str(i)}], "rows": list(range(i))}
              for i in range(12)]
    gc.collect()
    gc.disable()
    try:
        assert unpack(pack(frames)) == frames
        assert gc.collect() == 0
    finally:
        gc.enable()
