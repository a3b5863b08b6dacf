"""Step 2's words per locale from fixed numbers: the reference figures (200 / 20 / 10.0×,
2,336 / 68 / 34.4×), the question built from the state on screen, what waits for the answer,
the live model's pending / failed / ready states,."""
import json
import string
from pathlib import Path

import pytest
from babel.messages.extract import extract_from_dir
from babel.messages.plurals import get_plural

from explainer.i18n import LANGS, Translator, catalog
from steps.step2 import text
from steps.step2.model import FACTS, counts, measure

ROOT = Path(__file__).resolve().parents[1]
L = FACTS["n_layers"]
OLD_KEYS = {"uncached", "cached", "ratio", "measured_uncached", "measured_cached",
            "measured_uncached_all", "measured_cached_all", "time_uncached", "time_cached",
            "same_tokens", "dlogit"}


def sp(s: str) -> str:
    """Normalise the NBSP / narrow NBSP of locale grouping to plain spaces."""
    return s.replace("\u00a0", " ").replace("\u202f", " ")


def tr(lang: str) -> Translator:
    return Translator(lang)


def frames(P=5, lang="en", status="ready", revealed=True):
    meas = measure(lang, P) if status == "ready" else None
    return text.frames(counts(P), meas, status, "no weights" if status == "failed" else "",
                       tr(lang), revealed)


def values(frame, *, more=None):
    return {c["key"]: c["value"] for c in frame["cards"] if more is None or c["more"] == more}


# -- reference figures ------------------------------------------------------------------------

def test_reference_figures_at_the_defaults():
    f = frames()[15]
    v = values(f)
    assert (v["uncached"], v["cached"], v["ratio"]) == ("200", "20", "10.0×")
    assert v["recomputed"] == "180"
    assert (v["measured_uncached"], v["measured_cached"]) == ("200", "20")
    assert (v["measured_uncached_all"], v["measured_cached_all"]) == (str(200 * L), str(20 * L))
    assert v["same_tokens"] == "yes"
    assert f["more"]["summary"] == (
        "Over 16 steps, the K/V projections in each layer of the live model: 200 without a "
        "cache, 20 with one, 10.0 times the work.")
    assert f["more"]["captions"][0] == "200 K/V projections per layer, 180 of them recomputed."
    assert f["more"]["notices"] == []
    out = f["more"]["outputs"]
    assert out["texts"][0] == out["texts"][1] and out["verdict"].startswith(
        "The cache does not change the result")
    assert f["pos"] == "Generated tokens: 16 of 64"
    assert any("removes the recomputation of the earlier positions through the whole network, "
               "not the growing cost of attention" in p for p in text.narration(tr("en")).values())


def test_reference_figures_long_output():
    v = values(frames()[63])
    assert (v["uncached"], v["cached"], v["ratio"]) == ("2,336", "68", "34.4×")
    assert (v["measured_uncached"], v["measured_cached"]) == ("2,336", "68")


def test_polish_formats_numbers():
    f = frames(lang="pl")[63]
    v = values(f)
    assert sp(v["uncached"]) == "2 336" and v["cached"] == "68" and v["ratio"] == "34,4×"
    assert sp(v["measured_uncached"]) == "2 336"
    s = f["more"]["summary"]
    assert "34,4" in s and "34.4" not in s
    assert "Over" not in s                      # the plural sentence is translated


@pytest.mark.parametrize("lang", list(LANGS))
def test_every_locale_formats_the_long_output(lang):
    t = tr(lang)
    v = values(frames(lang=lang, status="pending")[63])
    assert (v["uncached"], v["ratio"]) == (t.int(2336), t.times(2336 / 68, 1))


# -- fewer, louder numbers --------------------------------------------------------------------

def test_at_most_four_headline_cards_and_every_old_key_kept():
    for f in frames():
        head = [c for c in f["cards"] if not c["more"]]
        assert len(head) <= 4
        assert {c["key"] for c in f["cards"]} >= OLD_KEYS | {"recomputed"}
    f = frames()[15]
    assert [c["key"] for c in f["cards"] if not c["more"]] == ["uncached", "cached", "ratio",
                                                                "same_tokens"]
    labels = {c["key"]: c["label"] for c in f["cards"]}
    assert labels["measured_uncached_all"] == f"All {L} layers, without a cache"
    kinds = {c["key"]: c["kind"] for c in f["cards"]}
    assert kinds["uncached"] == "computed" and kinds["measured_uncached"] == "measured"


def test_frames_are_every_token_count_with_the_grid_rows():
    fs = frames(P=7, status="pending")
    assert len(fs) == 64
    for T, f in enumerate(fs, start=1):
        fig = f["fig"]
        assert (fig["P"], fig["T"], len(fig["rows"])) == (7, T, T)
        assert sum(r[0] for r in fig["rows"]) == counts(7).at(T).uncached
        assert sum(r[1] for r in fig["rows"]) == counts(7).at(T).cached
        assert len(f["table"]["rows"]) == T
    assert fs[15]["fig"]["yt"] == [[1, "1"], [5, "5"], [10, "10"], [15, "15"]]


# -- predict, then reveal ---------------------------------------------------------------------

@pytest.mark.parametrize("lang", list(LANGS))
def test_question_follows_the_deep_link_in_every_language(lang):
    t = tr(lang)
    q = text.question(5, 64, t)                    # ?step=2&tokens=64&prompt=5
    assert t.int(64) in q["prompt"] and "5" in q["prompt"] and "16" not in q["prompt"]
    assert q["options"][q["correct"]] == t.int(2336)
    assert len(set(q["options"])) == 3
    assert t.int(2336) in q["explain"] and "68" in q["explain"]
    assert q["key"] == ("step2", 5, 64)
    if lang != "en":
        assert "How many" not in q["prompt"] and "Without a cache" not in q["explain"]


def test_question_at_the_defaults_keeps_the_old_answer():
    q = text.question(5, 16, tr("en"))
    assert q["prompt"] == ("The prompt has 5 tokens. How many K/V projections per layer does "
                           "generating 16 tokens need without a cache?")
    assert q["options"] == ["20", "80", "200"] and q["correct"] == 2


@pytest.mark.parametrize("P,T", [(1, 1), (1, 2), (2, 1), (16, 64), (3, 3)])
def test_question_options_stay_distinct(P, T):
    q = text.question(P, T, tr("en"))
    assert len(set(q["options"])) == 3
    assert q["options"][q["correct"]] == tr("en").int(T * P + T * (T - 1) // 2)


def test_answer_bearing_numbers_wait_for_the_answer():
    for T in (16, 64):
        f = frames()[T - 1]
        answer = values(f)["uncached"]
        hidden = {c["key"] for c in f["cards"] if c["hidden"]}
        assert hidden >= {"uncached", "cached", "ratio", "recomputed", "measured_uncached",
                          "measured_cached", "measured_uncached_all", "measured_cached_all"}
        waiting = frames(revealed=False)[T - 1]
        concealed = [waiting["more"]["summary"], *waiting["more"]["captions"]]
        assert all("?" in s and answer not in s for s in concealed)
        assert {k: v for k, v in waiting.items() if k != "more"} == \
            {k: v for k, v in f.items() if k != "more"}        # the rest as after the answer
        # what shows before the answer: the newest row's caption, the announcement, the figure
        for s in (f["caption"], f["say"], f["desc"]):
            assert answer not in s and values(f)["ratio"] not in s


def test_live_model_pending_and_failed():
    f = frames(status="pending")[15]
    v = values(f)
    assert v["uncached"] == "200" and v["measured_uncached"] == "…" and v["same_tokens"] == "…"
    assert f["more"]["outputs"] is None
    assert f["more"]["notices"][0].startswith("The live model is generating 64 tokens")
    f = frames(status="failed")[15]
    assert values(f)["measured_cached"] == "–"
    assert f["more"]["notices"] == ["The live model could not run: no weights"]
    # a measurement of another prompt length is never shown as this one's
    stale = text.frames(counts(6), measure("en", 5), "ready", "", tr("en"))[15]
    assert values(stale)["measured_uncached"] == "…"


def test_narration_starts_with_what_to_look_at_and_press():
    first = text.narration(tr("en"))["look"][0]
    assert first.startswith("Look at the two grids") and "Press Play" in first
    assert "Step forward" in first


# -- translations of the new strings ----------------------------------------------------------

def placeholders(s: str) -> set:
    return {f for _, f, _, _ in string.Formatter().parse(s) if f}


def step2_msgids() -> dict:
    kw = {"_": None, "n_": (1, 2), "N_": None}
    out = {}
    for _, _, msg, _, _ in extract_from_dir(str(ROOT / "steps" / "step2"),
                                           method_map=[("**.py", "python")], keywords=kw):
        out[msg if isinstance(msg, str) else msg[0]] = msg
    return out
