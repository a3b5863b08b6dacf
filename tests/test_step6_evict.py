"""Step 6, Part D without Panel: dropping tokens on the live model. The part's numbers come from
the runtime's eviction runs (checked against its constants), its words from the runs' frames
(by hand-made runs, so each sentence is pinned), and its state through the controller: the
controls of the part, the frames, the question that conceals every measured agreement until it
is answered and then moves the controls to the policy it names, and the deep link."""
import json

import pytest

from explainer import runtime as rt
from explainer.i18n import LANGS, Translator
from steps.shell import App
from steps.step6 import model as M
from steps.step6 import text as T
from steps.step6.view import Step6
from steps.ui.conceal import conceal
from steps.ui.state import columns, check_step


EN = Translator("en")


def fake_run(policy="sinks", budget=6, n=4):
    """A run of 4 prompt tokens and n generated, budget 6: positions 0..3+i seen at step i."""
    frames = []
    for i in range(n):
        seen = 4 + i
        kept = [(p, "sink" if p < 1 else "recent") for p in range(seen)
                if p < 1 or p >= seen - (budget - 1)]
        frames.append(rt.EvictionFrame(i, f"w{i}", tuple(kept), i % 2 == 0, 0.5 * i, 0.01 * i,
                                       100 * len(kept), 100 * seen))
    return rt.EvictionRun(policy, budget, ("A", "b", "c", "d"), tuple(frames), 0.5, 1.5, 0.015,
                          frames[-1].nbytes, frames[-1].full_nbytes)


def fake_sweep(best="h2o", high=0.9, low=0.5):
    rows = tuple((p, tuple((b, high if p == best else low, 0.1) for b in M.BUDGET_CHOICES))
                 for p in M.POLICY_CHOICES)
    return M.Sweep(rows, 24, 40)


def test_the_choices_are_the_runtimes():
    """The model's params list the runtime's policies and budgets (written twice so that the
    params import without torch)."""
    assert M.POLICY_CHOICES == rt.POLICIES
    assert M.BUDGET_CHOICES == rt.EVICTION_BUDGETS
    assert {M.QUESTION_BUDGET, M.COMPARE_BUDGET, M.DEFAULT_BUDGET} <= set(M.BUDGET_CHOICES)


@pytest.mark.parametrize("lang", list(LANGS))
def test_the_prompt_is_real_text_in_the_language(lang):
    ids = M.eviction_ids(lang)
    assert len(ids) == rt.EVICTION_PROMPT_TOKENS
    from explainer.prompts import PROMPTS
    start = rt.encode(PROMPTS[lang][M.PROMPT_INDEX])
    assert ids[:len(start)] == start[:len(ids)]
    assert rt.tokenizer().unk_id not in ids


def test_live_jobs_cover_every_policy_and_budget_and_the_sweep():
    keys = [k for k, _ in M.live_jobs("en")]
    ids = M.eviction_ids("en")
    assert M.sweep_key(ids) in keys
    assert all(M.evict_key(ids, p, b) in keys for p in M.POLICY_CHOICES
               for b in M.BUDGET_CHOICES)
    assert len(keys) == len(set(keys))


def test_sweep_best_and_at():
    sw = fake_sweep("sinks")
    assert sw.best(16) == "sinks" and sw.at("h2o", 16) == (0.5, 0.1) and sw.at("h2o", 7) is None
    tie = M.Sweep((("window", ((16, 0.5, 0.2),)), ("sinks", ((16, 0.5, 0.1),))), 24, 40)
    assert tie.best(16) == "sinks" and tie.n_tokens == 64      # same agreement: smaller KL


def test_frames_show_the_kept_tokens_by_role_and_hide_the_answer():
    run = fake_run()
    fs = T.eviction_frames(run, fake_sweep(), True, EN)
    assert len(fs) == 4 and fs[0]["pos"] == "Token 1 of 4"
    f = fs[3]["fig"]
    assert f["words"] == ["A", "b", "c", "d", "w0", "w1", "w2"]
    assert f["roles"] == "sxrrrrr" and f["query"] == 6 and f["next"] == "w3"
    assert f["agree"] is None and all(line["points"] is None for line in f["sweep"]["lines"])
    cards = {c["key"]: c for c in conceal(fs)[3]["cards"]}     # as the page's state sends them
    assert cards["evict_agree"]["value"] == cards["evict_kl"]["value"] == "?"
    assert cards["evict_bytes"]["value"] == "600\u00a0B of 700\u00a0B"
    assert "Next token" not in fs[3]["caption"]
    assert fs[3]["caption"] == ("The cache holds 6 of the 7 tokens so far (Sinks + recent). "
                                "1 token is gone for good.")
    assert fs[3]["table"]["rows"][0] == ["Attention sink", "A (0)"]
    assert fs[3]["table"]["rows"][-1] == ["Dropped (evicted)", "b (1)"]
    shown = T.eviction_frames(run, fake_sweep(), False, EN)
    assert shown[2]["fig"]["agree"] is True and "the same choice" in shown[2]["caption"]
    assert shown[3]["fig"]["agree"] is False and "a different one" in shown[3]["caption"]
    assert shown[3]["fig"]["sweep"]["lines"][2]["points"][0] == 90.0
    assert {c["key"]: c for c in shown[3]["cards"]}["evict_kl"]["value"] == "0.030 nats"


def test_the_question_counts_the_policies_that_stay_close_and_moves_to_its_budget():
    """How many policies keep the full cache's choice at least 90% of the time at the
    question's budget: the options cover every outcome, the right one is what was measured,
    and the explanation fits it."""
    none = T.evict_question(fake_sweep("sinks", 0.8, 0.5), EN)
    assert none["options"] == ["All three", "One or two of them", "None of them"]
    assert none["correct"] == 2 and none["reveal"] == {"budget": M.QUESTION_BUDGET}
    assert none["prompt"] == (
        "The live model reads a prompt and writes a continuation (prompt: 24 tokens; "
        f"continuation: 40 tokens; cache budget: {M.QUESTION_BUDGET} tokens). How many of the "
        "three policies still pick the full cache's next token at least 90% of the time, "
        "counted over the steps after the first?")
    assert none["explain"].startswith("Counted over the steps after the first (39 steps): the "
                                      "first reads the whole prompt, so it always agrees.")
    assert ("kept 50% of the time with the recent window, 80% with sinks + recent and 50% "
            "with heavy hitters + recent.") in none["explain"]
    assert none["explain"].endswith("At a budget of 32, every policy keeps at least 50% of the "
                                    "choices.")
    kept = T.evict_question(M.Sweep(tuple((p, ((M.QUESTION_BUDGET, 0.5, 0.1),
                                               (M.COMPARE_BUDGET, 1.0, 0.0)))
                                          for p in M.POLICY_CHOICES), 24, 40), EN)
    assert kept["explain"].endswith("At a budget of 32, every policy keeps every choice.")
    some = T.evict_question(fake_sweep("h2o", 0.9, 0.5), EN)        # 90% counts as close
    assert some["correct"] == 1 and "compare the three lines" in some["explain"]
    every = T.evict_question(fake_sweep("h2o", 1.0, 0.95), EN)
    assert every["correct"] == 0 and "for every policy" in every["explain"]
    # the key names what is asked, never the answer (it is in the state before the answer)
    assert none["key"] == some["key"] == every["key"] == ("step6", "d", M.QUESTION_BUDGET,
                                                          24, 40)


@pytest.mark.parametrize("lang", list(LANGS))
def test_the_answer_holds_in_every_language_by_a_wide_margin(lang):
    """Measured on each language's passage: at the question's budget no policy comes near
    90% (the best is at least 5 of the 39 steps short of it), so the answer is “none” in all
    four languages and no gap of a token or two decides it; at COMPARE_BUDGET every policy
    keeps at least 90%, the explanation's contrast."""
    import math
    sw = M.sweep(M.eviction_ids(lang))
    steps = sw.n_new - 1
    best = max(sw.at(p, M.QUESTION_BUDGET)[0] for p in M.POLICY_CHOICES)
    assert math.ceil(M.NEARLY * steps - 1e-9) - round(best * steps) >= 5
    q = T.evict_question(sw, Translator(lang))
    assert q["correct"] == 2
    assert sw.least(M.COMPARE_BUDGET) >= M.NEARLY


def test_run_cards_wait_for_the_answer():
    run = fake_run()
    hidden = {c["key"]: c["value"] for c in conceal(T.run_cards(run, EN))}   # as sent
    assert hidden["evict_agreement"] == "?" and hidden["evict_end_bytes"] == "600\u00a0B of 700\u00a0B"
    shown = {c["key"]: c["value"] for c in T.run_cards(run, EN)}
    assert shown["evict_agreement"] == "50%" and shown["evict_mean_kl"] == "0.015 nats"
    assert T.run_cards(None, EN) == []


def test_notices():
    assert T.eviction_notices("ready", "", "ready", "", EN, True) == []
    assert T.eviction_notices("pending", "", "pending", "", EN, False) == [
        "Measuring this setting on the live model…"]
    assert "every policy" in T.eviction_notices("ready", "", "pending", "", EN, True)[0]
    assert "boom" in T.eviction_notices("failed", "boom", "ready", "", EN, True)[0]


# -- the controller, on the live model ---------------------------------------------------------

@pytest.fixture(scope="module")
def part_d():
    s = Step6("en", saved={"model": {"part": "d"}})
    yield s
    s.close()


def cards(st) -> dict:
    return {c["key"]: c for b in columns(st)["right"] if b["kind"] == "metrics" for c in b["cards"]}


def test_part_d_state_before_and_after_the_answer():
    step = Step6("en", saved={"model": {"part": "d"}})
    st = check_step(step.state())
    assert st["stage"]["figure"] == "strip" and st["tabs"]["active"] == "d"
    specs = {c["name"]: c for c in st["controls"]}
    assert not specs["policy"].get("hidden") and not specs["budget"].get("hidden")
    assert all(specs[n].get("hidden") for n in ("kv_heads", "precision", "window"))
    assert [o[0] for o in specs["budget"]["options"]] == list(M.BUDGET_CHOICES)
    # each policy is named with the positions it runs (N17): the kept keys stay at their
    # original positions, which is not StreamingLLM's own numbering
    assert [o[1] for o in specs["policy"]["options"]] == [
        "Recent window", "Sinks + recent tokens as in StreamingLLM, at original positions",
        "Heavy hitters + recent tokens as in H2O, at original positions"]
    # projected, the policies and budgets go by short names (the labels stay for screen readers)
    assert [o[2] for o in specs["policy"]["options"]] == ["Recent window", "Sinks + recent",
                                                          "Heavy hitters + recent"]
    assert [o[2] for o in specs["budget"]["options"]] == [str(b) for b in M.BUDGET_CHOICES]
    frames = json.loads(st["frames"])
    assert len(frames) == rt.EVICTION_NEW
    assert st["concealed"] and cards(st)["evict_agreement"]["value"] == "?"
    assert all(line["points"] is None and f["fig"]["agree"] is None     # nothing measured
               for f in frames for line in f["fig"]["sweep"]["lines"])  # about quality is sent
    q = st["question"]
    assert q["options"] == ["All three", "One or two of them", "None of them"]
    # the projected wording: shorter, the same numbers (budget, all the tokens)
    assert q["projected"] and len(q["projected"]) < 0.8 * len(q["prompt"])
    assert f"Cache budget: {M.QUESTION_BUDGET} tokens (the text: 64 tokens)" in q["projected"]
    sweep = step.model.sweep.value
    right = T.evict_question(sweep, EN)["correct"]
    assert q["correct"] is None and q["explain"] == ""          # told once answered
    assert st["values"]["budget"] == M.DEFAULT_BUDGET != M.QUESTION_BUDGET
    step.handle({"answer": (right + 1) % 3})                    # a wrong pick still reveals
    st = check_step(step.state())
    assert not st["concealed"] and st["question"]["correct"] == right == 2
    # the answer moves the controls to the budget it asks about; the policy stays
    assert st["values"]["policy"] == "window" and st["values"]["budget"] == M.QUESTION_BUDGET
    run = step.model.evict.value
    assert (run.policy, run.budget) == ("window", M.QUESTION_BUDGET)
    assert cards(st)["evict_agreement"]["value"] == EN.pct(run.agreement, 0)
    assert run.agreement == sweep.at("window", M.QUESTION_BUDGET)[0]    # the same measurement
    assert EN.pct(run.agreement, 0) in st["question"]["explain"]
    frames = json.loads(st["frames"])                           # the chart's lines are out
    assert all(line["points"] for line in frames[-1]["fig"]["sweep"]["lines"])
    step.close()


@pytest.mark.parametrize("policy", M.POLICY_CHOICES)
def test_each_policy_keeps_at_most_its_budget(part_d, policy):
    part_d.handle({"set": "policy", "value": policy, "seq": 10 + M.POLICY_CHOICES.index(policy)})
    st = part_d.state()
    frames = json.loads(st["frames"])
    budget = part_d.model.budget
    for f in frames[1:]:
        kept = len(f["fig"]["roles"]) - f["fig"]["roles"].count("x")
        assert kept <= budget
    roles = frames[-1]["fig"]["roles"]
    assert ("s" in roles) == (policy == "sinks") and ("h" in roles) == (policy == "h2o")


def test_a_full_budget_agrees_everywhere():
    """The largest budget holds every token: the run is the full cache's, measured."""
    ids = M.eviction_ids("en")
    assert M.BUDGET_CHOICES[-1] >= len(ids) + rt.EVICTION_NEW - 1
    for policy in M.POLICY_CHOICES:
        r = M.eviction(ids, policy, M.BUDGET_CHOICES[-1])
        assert r.agreement == 1.0 and r.max_dlogit == 0.0 and r.mean_kl == 0.0
        # as much as the full cache holds (H2O also its scores: one number per token)
        assert (r.nbytes > r.full_nbytes) if policy == "h2o" else r.nbytes == r.full_nbytes


def test_deep_link_and_bad_values():
    app = App(query={"step": "6", "part": "d", "policy": "h2o", "budget": "8", "frame": "12"})
    st = check_step(app.step.state())
    m = app.step.model
    assert (m.part, m.policy, m.budget, m.frame, st["frame"]) == ("d", "h2o", 8, 12, 12)
    assert app.notice_texts(app.state_.tr) == []
    q = app.url_query()
    assert "part=d" in q and "policy=h2o" in q and "budget=8" in q and "frame=12" in q
    app.step.close()
    bad = App(query={"step": "6", "part": "d", "policy": "lru", "budget": "7", "frame": "999"})
    m = bad.step.model
    assert (m.policy, m.budget) == ("window", 16) and len(bad.notices) == 2
    bad.step.state()
    assert m.frame == rt.EVICTION_NEW - 1                  # kept within the part's frames
    bad.step.close()


@pytest.mark.parametrize("lang", list(LANGS))
def test_part_d_in_every_language(lang):
    s = Step6(lang, saved={"model": {"part": "d"}})
    st = check_step(s.state())
    assert json.loads(st["frames"]) and st["question"]["prompt"]
    s.handle({"shown": True})
    check_step(s.state())
    s.close()


# -- the Go deeper's measurements: positions and where the attention goes ----------------------

def live_section(st) -> list:
    [b] = [b for b in columns(st)["left"] if b["kind"] == "details" and "deeper-live" in b["cls"]]
    return b["blocks"]


def measured_cards(st) -> dict:
    return {c["key"]: c for b in live_section(st) if b["kind"] == "metrics"
            for c in b["cards"]}


def test_live_jobs_measure_both_numberings_and_the_attention_shares():
    keys = [k for k, _ in M.live_jobs("en")]
    ids = M.eviction_ids("en")
    assert M.shares_key(ids) in keys
    assert all(M.evict_key(ids, p, b, "cache") in keys for p in M.POLICY_CHOICES
               for b in M.BUDGET_CHOICES)
    assert M.evict_key(ids, "h2o", 16, "cache") != M.evict_key(ids, "h2o", 16)
    assert M.SINKS == rt.EVICTION_SINKS


def test_the_attention_shares_are_the_runtimes_with_an_even_spread_beside_them():
    ids = M.eviction_ids("en")
    sh = M.shares(ids)
    a = rt.attention_shares(M.EVICTION_VARIANT, ids, rt.EVICTION_NEW, M.SINKS, M.RECENT_SHARE)
    assert (sh.first_share, sh.recent_share) == (a.first_share, a.recent_share)
    assert (sh.first, sh.recent) == (M.SINKS, M.RECENT_SHARE)
    # the steps read 13 to 63 keys: an even spread gives the first 4 between 4/63 and 4/13
    assert M.SINKS / 63 < sh.even_first < M.SINKS / 13
    assert sh.even_recent == pytest.approx(sh.even_first * M.RECENT_SHARE / M.SINKS)


@pytest.mark.parametrize("policy", M.POLICY_CHOICES)
def test_the_go_deeper_shows_both_numberings_measured_once_answered(policy):
    """The sentence and the cards give the agreement of the run played (original positions)
    and of the same setting with StreamingLLM's positions, both measured by the runtime;
    while the question is open they wait."""
    step = Step6("en", saved={"model": {"part": "d", "policy": policy, "budget": 12}})
    ids = M.eviction_ids("en")
    orig = rt.eviction_run(M.EVICTION_VARIANT, ids, rt.EVICTION_NEW, policy, 12)
    cache = rt.eviction_run(M.EVICTION_VARIANT, ids, rt.EVICTION_NEW, policy, 12,
                            positions="cache")
    assert cache.positions == "cache" and orig.positions == "original"
    st = check_step(step.state())
    words = " ".join(i for b in live_section(st) for i in b.get("items", []))
    assert "once you have answered" in words and "agrees with" not in words
    assert set(measured_cards(st)) == {"first_share", "recent_share"}
    step.handle({"shown": True})
    assert (step.model.policy, step.model.budget) == (policy, M.QUESTION_BUDGET)
    step.handle({"set": "policy", "value": policy, "seq": 1})
    step.handle({"set": "budget", "value": 12, "seq": 2})
    st = check_step(step.state())
    words = " ".join(i for b in live_section(st) for i in b.get("items", []))
    cards = measured_cards(st)
    assert all(c["kind"] == "measured" for c in cards.values())
    assert cards["agree_original"]["value"] == EN.pct(orig.agreement, 0)
    assert cards["agree_cache"]["value"] == EN.pct(cache.agreement, 0)
    assert f"{EN.pct(orig.agreement, 0)} of the time (mean KL divergence " \
           f"{T.kl(orig.mean_kl, EN)})" in words or policy == "window"
    assert f"{EN.pct(cache.agreement, 0)} of the time (mean KL divergence " \
           f"{T.kl(cache.mean_kl, EN)})" in words or policy == "window"
    if policy == "window":          # no gaps: the two numberings are the same run
        assert (orig.agreement, orig.mean_kl) == (cache.agreement, cache.mean_kl)
        assert "both ways of numbering give the same run" in words
    sh = M.shares(ids)
    assert cards["first_share"]["value"] == EN.pct(sh.first_share, 0)
    assert cards["first_share"]["label"] == "Attention on the first 4 tokens"
    assert (f"puts {EN.pct(sh.first_share, 0)} of its attention on the first tokens (4 "
            f"tokens) and {EN.pct(sh.recent_share, 0)} on the last ones (8 tokens)") in words
    step.close()


def test_a_stale_cache_run_is_not_shown_as_this_settings():
    run, other = fake_run("sinks", 6), fake_run("h2o", 6)
    import dataclasses
    cache = dataclasses.replace(run, positions="cache")
    assert T.same_setting(run, cache) and not T.same_setting(run, run)
    assert not T.same_setting(run, dataclasses.replace(other, positions="cache"))
    d = T.part_d_deeper(None, None, EN, run=run, cache_run=dataclasses.replace(
        other, positions="cache"), shares=None, concealed=False)
    assert not any("numbered inside the cache" in x for x in d["live"] if isinstance(x, str))


def test_part_d_player_keeps_its_step_forward_label():
    """The strip's own “next” word has its own key: the player's button still says Step forward."""
    from steps.common import translator
    from steps.step6 import text as T
    words = T.strip_stage_text(translator("en"))
    assert words["next"] == "Step forward" and words["next_token"] == "next"


def test_the_sinks_verdict_is_derived_from_the_measurement():
    """“No strong attention sinks” is said only when the first tokens draw less than twice an
    even share of the attention; a model whose first tokens draw more is said to have them.
    The same for the lean to the latest tokens (at least 1.5 times theirs)."""
    def line(first, recent):
        return T.shares_line(M.Shares(4, 8, first, recent, 0.1, 0.2), EN)
    weak = line(0.09, 0.41)
    assert "the first tokens draw 0.9× their even share, less than 2×: this small model has " \
           "no strong attention sinks" in weak
    assert "The last tokens draw 2.0× theirs: its attention leans to the latest tokens" in weak
    strong = line(0.5, 0.25)
    assert "draw 5.0× their even share: this model has attention sinks" in strong
    assert "no strong" not in strong and "does not lean to the latest tokens" in strong


@pytest.mark.parametrize("lang", list(LANGS))
def test_no_strong_sinks_holds_in_every_language(lang):
    """Measured on each passage: the first 4 tokens draw at most about an even share (well
    under 2×) and the last 8 clearly more than theirs (over 1.5×), so the Go deeper's
    verdicts are the same in all four languages, by a margin."""
    sh = M.shares(M.eviction_ids(lang))
    assert sh.first_share / sh.even_first < 0.75 * T.SINK_RATIO
    assert sh.recent_share / sh.even_recent > 1.25 * T.LEAN_RATIO
    assert "no strong attention sinks" in T.shares_line(sh, EN)
