"""The exercises (each step's steps/stepN/exercises.py, shown by steps/ui/exercises.py) without
Panel: every step has two or three, at least one
on paper and one on the page; every number of a worked answer comes from the cost model (the
test computes it again from `explainer.costs` and finds no other number in the words); each
task's check is false at the step's defaults and true for a state that solves it, and the
step's state shows it done as the learner moves there; every string is translated; the
printable sheet (`?step=end&exercises=1`) lists every exercise and then every answer."""
import re
import string

import pytest
from babel.messages.extract import extract

from explainer import costs, presets
from explainer.format import bytes_bin
from explainer.i18n import LANGS, Translator, catalog
from steps import registry
from steps.common import translator
from steps.registry import NUMBERS
from steps.shell import App, step_class
from steps.ui import exercises as ex
from steps.ui.state import columns, check_page, check_step

EXERCISES = {n: registry.exercises(n) for n in NUMBERS}
ALL = [e for n in NUMBERS for e in EXERCISES[n]]
PAPERS = [e for e in ALL if e.kind == ex.PAPER]
TASKS = [e for e in ALL if e.kind == ex.TASK]
GiB = presets.GiB


def ids(e):
    return e.label


def test_every_step_has_two_or_three_of_both_kinds():
    for n in NUMBERS:
        items = EXERCISES[n]
        # step 6 is in four parts: a pair for part A's arithmetic, a pair for part D's
        # dropped tokens
        assert 2 <= len(items) <= (4 if n == 6 else 3), n
        assert {e.kind for e in items} == {ex.PAPER, ex.TASK}, n
        assert [e.index for e in items] == list(range(1, len(items) + 1))
        assert all(e.step == n for e in items)
    for e in TASKS:
        assert e.check is not None and e.solution is not None, e.label


# -- the numbers come from the cost model -------------------------------------------------

def test_worked_answers_are_the_cost_models_numbers():
    x = EXERCISES[1][0].numbers()
    assert x["total"] == costs.qk_scores_so_far(x["P"], x["n"]) == sum(x["terms"])
    assert x["last"] == x["P"] + x["n"]
    x = EXERCISES[2][0].numbers()
    assert (x["without"], x["with_"]) == (costs.kv_projections_without_cache(10, 20),
                                          costs.kv_projections_with_cache(10, 20)) == (390, 29)
    x = EXERCISES[3][0].numbers()
    assert x["per"] == costs.kv_bytes_per_token("llama3.1-8b") == 128 * 1024
    assert x["seq"] == costs.kv_cache_bytes("llama3.1-8b", 8192) == GiB
    x = EXERCISES[4][0].numbers()
    c = costs.decode_batch_cost("llama2-7b", "h100", 4096, 1)
    assert (x["intensity"], x["bound"], x["tps"]) == (c.intensity, "memory", c.tokens_per_s)
    x = EXERCISES[5][0].numbers()           # the brief's example: Qwen2.5 72B, 32k x 16, H200
    bill = costs.memory_bill("qwen2.5-72b", 32768, 16, "h200", binary_capacity=True)
    assert x["per"] == bill.kv_per_token == 320 * 1024
    assert x["seq"] == 10 * GiB and x["kv"] == bill.kv_bytes == 160 * GiB
    assert (x["fits"], x["room"]) == (False, bill.max_sequences) == (False, 0)
    x = EXERCISES[6][0].numbers()
    assert (x["base"], x["small"], x["factor"]) == (64 * GiB, 8 * GiB, 8.0)


def test_part_d_bytes_on_paper_are_what_the_live_cache_measures():
    """Exercise 6.3's bytes, from the cost model on the live model's configuration, are the
    bytes the eviction runs measure: the full cache at the end, and a window of B tokens."""
    from explainer import runtime as rt
    from steps.step6 import model as M
    x = EXERCISES[6][2].numbers()
    run = M.eviction(M.eviction_ids("en"), "window", x["B"])
    assert (x["T"], x["B"]) == (len(M.eviction_ids("en")) + rt.EVICTION_NEW - 1, 16)
    assert x["small"] == run.nbytes and x["full"] == run.full_nbytes
    assert x["full"] == x["T"] * x["per"] and x["share"] == x["B"] / x["T"]


def test_part_d_task_answer_is_measured_per_language():
    """Exercise 6.4's answer is the smallest budget of the measured sweep at which H2O agrees
    with the full cache at every token, on each language's passage."""
    from steps.step6 import model as M
    x = EXERCISES[6][3].numbers()
    for lang, b in zip(x["langs"], x["budgets"]):
        sw = M.sweep(M.eviction_ids(lang))
        assert sw.at("h2o", b)[0] == 1.0
        assert all(sw.at("h2o", s)[0] < 1.0 for s in M.BUDGET_CHOICES if s < b)
        words = " ".join(EXERCISES[6][3].answer(translator(lang), x))
        assert translator(lang).int(b) in words


def _formats(v, tr) -> set:
    """Every way the words may write the number `v`."""
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return set()
    out = {tr.int(v), tr.num(v, 1), tr.num(v, 2), tr.pct(v), tr.times(v, 0), tr.times(v, 1),
           tr.seconds(v), bytes_bin(v, tr), tr.bytes(v, "GiB", 2), tr.bytes(v, "GB", 1)}
    for scale in (1e9, 1e12):
        out |= {tr.int(v / scale), tr.num(v / scale, 1), tr.num(v / scale, 2)}
    return {_digits(re.sub(r"[\s\u00a0\u202f]*[A-Za-zµ]+$", "", s.replace("×", "")
                           .replace("%", "").strip())) for s in out}


def _digits(s: str) -> str:
    return s.replace("\u00a0", "").replace("\u202f", "").replace(" ", "")


NUMBER = re.compile(r"(?<![\w.,])\d[\d.,\u00a0\u202f]*\d|(?<![\w.,])\d")


@pytest.mark.parametrize("lang", list(LANGS))
@pytest.mark.parametrize("e", ALL, ids=ids)
def test_no_number_in_the_words_that_the_cost_model_did_not_give(e, lang):
    """A number in a question or answer is one of `numbers()`, formatted, or a constant of a
    formula (2 for K and V, 1 in P + T − 1): nothing worked out by hand."""
    tr = translator(lang)
    x = e.numbers()
    allowed = {"1", "2"}
    for v in x.values():
        for item in (v if isinstance(v, (list, tuple)) else [v]):
            allowed |= _formats(item, tr)
    words = " ".join([e.prompt(tr, x), *e.answer(tr, x)])
    for v in x.values():                       # names (“Llama 3.1 8B”, “H100 SXM”) are not sums
        if isinstance(v, str):
            words = words.replace(v, "")
    found = [_digits(m.group(0).rstrip(".,")) for m in NUMBER.finditer(words)]
    assert [f for f in found if f not in allowed] == [], words


# -- the tasks: false at the defaults, true once solved, shown live -------------------------

def _model(n, **inputs):
    cls = step_class(n).model_class
    m = cls(**inputs)
    return m


@pytest.mark.parametrize("e", TASKS, ids=ids)
def test_each_check_is_false_at_the_defaults_and_true_when_solved(e):
    m = _model(e.step)
    assert e.check(m) is False
    m.param.update(**e.solution(m))
    assert e.check(m) is True


@pytest.mark.parametrize("e", TASKS, ids=ids)
def test_the_step_shows_a_task_done_once_the_learners_moves_solve_it(e):
    step = step_class(e.step)("en")
    slug = f"ex-{e.step}-{e.index}"

    def task_block(state):
        [b] = [b for b in exercises_block(state)["blocks"] if slug in b["cls"].split()]
        return b

    b = task_block(check_step(step.state()))
    assert "not-done" in b["cls"] and b["items"][-1] == "Not yet: move the controls."
    seq = 0
    for name, value in e.solution(step.model).items():
        seq += 1
        if name == "frame":
            step.handle({"frame": value})
        else:
            step.handle({"set": name, "value": value, "seq": seq})
    b = task_block(check_step(step.state()))
    assert "is-done" in b["cls"].split() and b["items"][-1] == "✓ Done."


def exercises_block(state):
    """The step's exercises: the last block of its reading column."""
    block = columns(state)["left"][-1]
    assert block["kind"] == "details" and block["cls"] == "exercises"
    return block


def test_a_step_ends_with_its_exercises_and_a_worked_answer_behind_a_click():
    block = exercises_block(step_class(5)("en").state())
    assert block["summary"] == "Exercises"
    inner = block["blocks"]
    assert inner[0]["heading"] == "Exercise 5.1 · on paper"
    assert inner[1]["kind"] == "details" and inner[1]["summary"] == "Worked answer to exercise 5.1"
    answer = " ".join(inner[1]["blocks"][0]["items"]).replace("\u00a0", " ")
    assert "16 × 10 GiB = 160 GiB" in answer and "does not fit" in answer
    assert inner[2]["heading"] == "Exercise 5.2 · on the page"
    # a worked answer's summary is the key by which an opened one stays open: one per exercise
    summaries = [b["summary"] for n in NUMBERS
                 for b in exercises_block(step_class(n)("en").state())["blocks"]
                 if b["kind"] == "details"]
    assert len(summaries) == len(set(summaries)) == len(PAPERS)


@pytest.mark.parametrize("part", ["a", "b", "c", "d"])
def test_every_part_of_step_6_ends_with_the_exercises(part):
    step = step_class(6)("en")
    step.handle({"set": "part", "value": part, "seq": 1})
    assert exercises_block(check_step(step.state()))["summary"] == "Exercises"
    step.close()


# -- words ------------------------------------------------------------------------------------

def _msgids() -> list:
    """Every string of the exercises: the kit's and each step's exercises.py."""
    import importlib
    kw = {"_": None, "n_": (1, 2), "N_": None}
    files = [ex.__file__, *(importlib.import_module(registry.module_of(n) + ".exercises").__file__
                            for n in NUMBERS)]
    out = []
    for path in files:
        with open(path, "rb") as f:
            out += [m for _, m, _, _ in extract("python", f, keywords=kw)]
    return out


@pytest.mark.parametrize("lang", [l for l in LANGS if l != "en"])
def test_every_string_is_translated(lang):
    cat = catalog(lang)
    fmt = string.Formatter()
    for msg in _msgids():
        key = msg if isinstance(msg, str) else msg[0]
        m = cat.get(key)
        assert m is not None and m.string and not m.fuzzy, (lang, key)
        forms = m.string if isinstance(m.string, (tuple, list)) else [m.string]
        assert all(forms), (lang, key)
        names = {f[1] for f in fmt.parse(key) if f[1]}
        for form in forms:
            assert {f[1] for f in fmt.parse(form) if f[1]} == names, (lang, key, form)


@pytest.mark.parametrize("lang", [l for l in LANGS if l != "en"])
def test_each_exercise_reads_in_the_sessions_language(lang):
    en, tr = translator("en"), translator(lang)
    for e in ALL:
        x = e.numbers()
        assert e.prompt(tr, x) != e.prompt(en, x), (lang, e.label)
        assert e.answer(tr, x) != e.answer(en, x), (lang, e.label)


# -- the printable sheet ----------------------------------------------------------------------

def test_the_sheet_lists_every_exercise_then_every_answer():
    app = App(query={"step": "end", "exercises": "1", "lang": "nl"})
    st = check_page(app.state())
    assert app.url_query() == "?step=end&lang=nl&exercises=1"
    [block] = columns(st)["left"]
    html = block["html"]
    answers_at = html.index('class="sheet-answers"')
    for e in ALL:
        slug = f"ex-{e.step}-{e.index}"
        assert html.index(f"sheet-exercise {slug}") < answers_at < html.index(
            f"sheet-answer {slug}")
    assert "Antwoorden" in html and "Opgave 5.1 · op papier" in html
    assert html.count('class="sheet-exercise ') == html.count('class="sheet-answer ') == len(ALL)


@pytest.mark.parametrize("lang", ["en", "id", "pl", "nl"])
def test_the_printed_sheet_names_its_licence(lang):
    """A lecturer who hands the sheet out can read on paper what they may do with it: CC BY
    4.0 for the text and exercises, MIT for the code, in the sheet's language."""
    app = App(query={"step": "end", "exercises": "1", "lang": lang})
    [block] = columns(check_page(app.state()))["left"]
    html = block["html"]
    line = re.search(r'<p class="sheet-licence">([^<]*)</p>', html)
    assert line and html.index("sheet-licence") > html.index('class="sheet-answers"')
    text = line.group(1)
    assert "CC BY 4.0" in text and "MIT" in text and "creativecommons.org/licenses/by/4.0" in text
    assert Translator(lang)._("KV Cache Explainer") in text
    if lang != "en":
        assert "licensed" not in text


def test_the_key_ideas_link_to_the_sheet_and_keep_a_short_link():
    app = App(query={"step": "end", "lang": "pl"})
    assert app.url_query() == "?step=end&lang=pl"
    html = " ".join(b.get("html", "") for b in columns(app.state())["left"])
    assert "?step=end&amp;exercises=1&amp;lang=pl" in html
