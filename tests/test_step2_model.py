"""Step 2's numbers from its controls, without Panel: the formula's frames for every T of a
prompt length, the grids' cells, the live model's measurement of the same counts, and the
controls' URL names, bounds and defaults."""
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from explainer import costs, presets
from explainer import runtime as rt
from explainer.prompts import PROMPTS
from steps.step2.model import (FACTS, T_MAX, T_MIN, VARIANT, Step2Model, counts, grid_cells,
                               measure, passage_ids, prompt_ids)
from explainer.format import int_ticks as nice_ticks

ROOT = Path(__file__).resolve().parents[1]
L = FACTS["n_layers"]


def test_the_model_imports_no_panel():
    code = ("import sys, steps.step2.model, steps.step2; "
            "assert 'panel' not in sys.modules and 'bokeh' not in sys.modules")
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True)


def test_controls_keep_their_names_bounds_and_defaults():
    m = Step2Model()
    assert (m.tokens, m.prompt) == (presets.STEP2["T"], presets.STEP2["P"]) == (16, 5)
    assert m.param.tokens.bounds == (1, 64) and m.param.prompt.bounds == (1, 16)
    assert (T_MIN, T_MAX) == (1, 64)
    assert m.frame == 15 and m.live_args == ("en", 5)


def test_frame_is_tokens_both_ways_and_at_both_ends():
    m = Step2Model()
    m.tokens = 3                       # the slider (or a deep link) sets the frame
    assert m.frame == 2
    m.frame = 20                       # the player stopped there
    assert m.tokens == 21
    m.frame = 0
    assert m.tokens == 1
    m.tokens = 64
    assert m.frame == 63 == len(m.run.frames) - 1
    assert Step2Model(tokens=40).frame == 39


def test_frames_depend_on_the_prompt_only():
    m = Step2Model()
    run = m.run
    m.tokens = 50
    assert m.run is run                # moving T recomputes nothing
    m.lang = "pl"
    assert m.run is run and m.live_args == ("pl", 5)
    m.prompt = 7
    assert m.run is not run and m.run.P == 7 and m.live_args == ("pl", 7)
    assert Step2Model(prompt=7).run is m.run          # shared by every session
    assert len(m.run.frames) == T_MAX - T_MIN + 1
    assert [c.T for c in m.run.frames] == list(range(1, 65))


def test_reference_figures():
    c = counts(5).at(16)
    assert (c.uncached, c.cached, c.recomputed) == (200, 20, 180)
    assert c.ratio == pytest.approx(10.0)
    long = counts(5).at(64)
    assert (long.uncached, long.cached) == (2336, 68)
    assert round(long.ratio, 1) == 34.4
    assert Step2Model(tokens=17).current().uncached == 221            # 17*5 + 17*16/2


def test_grids_follow_the_per_step_breakdown():
    c = counts(5).at(16)
    assert grid_cells(c, cached=False) == {"new": 20, "recomputed": 180}
    assert grid_cells(c, cached=True) == {"new": 20, "cached": 180}
    assert len(c.rows) == 16 and c.width == 20 == max(w.context for w in c.rows)
    assert c.rows == costs.wasted_work_steps(5, 16)


@pytest.mark.parametrize("P,T", [(1, 1), (16, 64), (1, 64), (16, 1)])
def test_extremes_measure_the_formula(P, T):
    c = counts(P).at(T)
    a, b = costs.kv_projections_without_cache(P, T), costs.kv_projections_with_cache(P, T)
    assert (c.uncached, c.cached) == (a, b)
    assert grid_cells(c, False)["new"] + grid_cells(c, False)["recomputed"] == a
    assert grid_cells(c, True)["new"] == b
    m = measure("en", P).at(T)
    assert (m.rows_uncached, m.rows_cached) == (a, b)
    assert len(m.ids_uncached) == T and len(measure("en", P).prompt_ids) == P
    assert m.same
    if T == 1:
        assert c.ratio == 1.0


def test_measurement_at_the_defaults():
    m = Step2Model().measurement()
    assert (m.lang, m.P) == ("en", 5)
    x = m.at(16)
    assert (x.rows_uncached, x.rows_cached) == (200, 20)
    assert (x.rows_uncached_all, x.rows_cached_all) == (200 * L, 20 * L)
    assert x.rows_uncached_layers == (200,) * L and x.rows_cached_layers == (20,) * L
    assert x.same and x.dlogit < 1e-3
    assert x.text_uncached == x.text_cached and x.ids_uncached == x.ids_cached
    assert m.at(64).rows_uncached == 2336 and m.at(64).rows_cached == 68
    assert m.prompt_text == rt.tokenizer().decode(list(prompt_ids("en", 5)))


def test_measured_numbers_come_from_the_live_model(monkeypatch):
    """Every number is a slice of the two runs `measure` made (runs not kept by the runtime's
    trace cache: the Measurement holds what the frames show)."""
    ids = prompt_ids("en", 7)
    runs, real = [], rt.run

    def spy(*a, **k):
        runs.append(real(*a, **k))
        return runs[-1]

    monkeypatch.setattr(rt, "run", spy)
    x = measure("en", 7).at(23)
    u, c = runs
    assert (u.cache_kind, c.cache_kind, u.prompt_ids, c.prompt_ids) == (None, "fp32", ids, ids)
    assert len(u.new_ids) == len(c.new_ids) == T_MAX
    assert x.rows_uncached == int(u.kv_rows[:23, 0].sum())
    assert x.rows_cached_all == int(c.kv_rows[:23].sum())
    assert x.time_uncached == pytest.approx(float(u.times[:23].sum()))
    assert x.time_cached == pytest.approx(float(c.times[:23].sum()))
    assert x.ids_cached == c.new_ids[:23]
    assert x.dlogit == pytest.approx(float(np.abs(u.logits[:23] - c.logits[:23]).max()))
    # a slice of the 64-token run is exactly the shorter run
    short = rt.generate(VARIANT, ids, 23, None, record_kv=False)
    assert short.new_ids == x.ids_uncached
    np.testing.assert_allclose(short.logits, u.logits[:23], atol=1e-4)
    cmp = rt.compare_cached_uncached(VARIANT, ids, T_MAX)
    end = measure("en", 7).at(T_MAX)
    assert end.dlogit == pytest.approx(cmp.max_abs_dlogit)
    assert end.same == cmp.same_tokens and end.rows_uncached == cmp.rows_uncached


def test_each_language_measures_its_own_passage():
    m = measure("pl", 5)
    assert m.prompt_ids == passage_ids("pl")[:5] != passage_ids("en")[:5]
    assert Step2Model(lang="pl").measurement() is m


@pytest.mark.parametrize("lang", list(PROMPTS))
def test_prompt_is_the_long_passage(lang):
    ids = passage_ids(lang)
    own = rt.encode(PROMPTS[lang][3])
    assert len(ids) >= 16
    assert ids[:min(len(own), 16)] == own[:16]
    assert rt.tokenizer().unk_id not in ids


def test_nice_ticks_are_evenly_spaced():
    assert nice_ticks(1, 5) == [1, 2, 3, 4, 5]
    assert nice_ticks(1, 79) == [1, 10, 20, 30, 40, 50, 60, 70]
    assert nice_ticks(1, 1) == [1]
    assert nice_ticks(1, 16) == [1, 5, 10, 15]          # not 1, 2, 4, 6 (mixed steps)
    assert nice_ticks(1, 20) == [1, 5, 10, 15, 20]
