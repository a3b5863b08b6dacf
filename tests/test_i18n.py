"""Catalogs complete and consistent; per-session translators; locale formatting."""
import re
import string

import pytest
from babel.messages.pofile import read_po

from explainer import catalogs
from explainer.i18n import LANGS, LOCALES, Translator, categories, negotiate, normalize_lang

TARGETS = [l for l in LANGS if l != "en"]
# English words that must not survive in an id/pl/nl sentence (none of them is a word there)
ENGLISH = {"the", "and", "with", "which", "this", "that", "from", "every", "each", "would",
           "there", "their", "what", "when", "how", "does", "only", "into", "than"}
# terms natives keep in English (glossary.md), plus symbols and names
KEPT = {"KV", "cache", "prefill", "decode", "token", "tokens", "GPU", "MHA", "GQA", "MQA", "MLA",
        "RoPE", "BERT", "fp16", "fp8", "int8", "int4", "fp32", "q·k", "d", "GB", "GiB", "MiB",
        "KiB", "KB", "ms", "TFLOP", "s", "FLOP", "byte", "vLLM", "PagedAttention", "query",
        "key", "value", "head", "batch", "prompt", "softmax", "H2O", "Llama", "Mistral",
        "OPT", "unk", "config", "json", "q", "k", "layer", "prompt", "W", "K", "V", "Roofline",
        # attention names and words the id and nl glossaries keep in English
        "attention", "multi", "grouped", "latent", "output", "per",
        # compute-bound / memory-bound: kept in English by the id glossary
        "compute", "memory", "bound",
        # the glossary's lists of a term's forms (steps/glossary.py), where id or nl writers
        # keep the English: nl plurals, id's "rotary position embedding" and "time to first
        # token (TTFT)", and the letters of fp16, bf16, int4 (the words here are letters only)
        "prompts", "queries", "keys", "values", "logits", "logit", "rotary", "position",
        "embedding", "time", "to", "first", "TTFT", "fp", "bf", "int",
        # step 6's Part D: the papers' terms natives keep (attention sink, heavy hitter, the
        # method's name), two words Dutch shares with English (recent, budget); "bit" (id)
        "bit", "sink", "sinks", "heavy", "hitter", "hitters", "StreamingLLM", "recent", "budget",
        # words Indonesian or Dutch share with English; head_dim, a config field's name
        "parameter", "parameters", "in", "dim", "B"}
KEPT_LOWER = {w.lower() for w in KEPT}


def placeholders(s: str) -> set:
    return {f for _, f, _, _ in string.Formatter().parse(s) if f}


def load(lang):
    with open(LOCALES / lang / "LC_MESSAGES" / "messages.po", "rb") as f:
        return read_po(f, locale=lang)


def messages(cat):
    return [m for m in cat if m.id]


def test_template_is_up_to_date_with_the_code():
    code = {m.id if isinstance(m.id, str) else m.id[0] for m in messages(catalogs.extract())}
    with open(LOCALES / "messages.pot", "rb") as f:
        pot = {m.id if isinstance(m.id, str) else m.id[0] for m in messages(read_po(f))}
    assert code - pot == set(), "run `python -m explainer.catalogs`: new strings are missing"
    assert pot - code == set(), "run `python -m explainer.catalogs`: obsolete strings remain"


@pytest.mark.parametrize("lang", TARGETS)
def test_every_message_is_translated_with_the_same_placeholders(lang):
    cat = load(lang)
    code = {m.id if isinstance(m.id, str) else m.id[0] for m in messages(catalogs.extract())}
    have = {m.id if isinstance(m.id, str) else m.id[0]: m for m in messages(cat)}
    assert code - set(have) == set(), f"{lang}: messages missing from the catalog"
    nplurals = len(categories(lang))  # CLDR's categories: Polish has a form for fractions
    assert cat.num_plurals == nplurals
    problems = []
    for m in have.values():
        if m.fuzzy:
            problems.append(("fuzzy", m.id))
        if isinstance(m.id, (tuple, list)):
            forms = m.string if isinstance(m.string, (tuple, list)) else (m.string,)
            if len(forms) != nplurals or not all(forms):
                problems.append(("plural forms", m.id[0]))
            want = placeholders(m.id[0]) | placeholders(m.id[1])
            for f in forms:
                if f and placeholders(f) != want:
                    problems.append(("placeholders", m.id[0], f))
        else:
            if not m.string:
                problems.append(("untranslated", m.id))
            elif placeholders(m.string) != placeholders(m.id):
                problems.append(("placeholders", m.id, m.string))
    assert problems == []


@pytest.mark.parametrize("lang", TARGETS)
def test_no_english_left(lang):
    left = []
    for m in messages(load(lang)):
        forms = m.string if isinstance(m.string, (tuple, list)) else (m.string,)
        for s in forms:
            words = set(re.findall(r"[A-Za-z]+", re.sub(r"\{[^}]*\}", "", s)))
            if {w.lower() for w in words} & ENGLISH:
                left.append(s)
            src = m.id if isinstance(m.id, str) else m.id[0]
            if s == src and {w.lower() for w in words} - KEPT_LOWER:
                # identical to English: only acceptable for terms natives keep
                left.append(s)
    assert left == []


def test_polish_plural_forms():
    pl = Translator("pl")
    forms = {n: pl._plural(n) for n in (1, 2, 4, 5, 12, 22, 25, 101, 112)}
    assert forms == {1: 0, 2: 1, 4: 1, 5: 2, 12: 2, 22: 1, 25: 2, 101: 2, 112: 2}
    assert Translator("id")._plural(7) == 0
    assert Translator("nl")._plural(1) == 0 and Translator("nl")._plural(2) == 1


def test_number_formats_per_locale():
    nb = "\u00a0"
    assert Translator("en").int(2336) == "2,336"
    assert Translator("id").int(2336) == "2.336"
    assert Translator("nl").int(2336) == "2.336"
    assert Translator("pl").int(2336) == f"2{nb}336"
    for lang, ten in (("en", "10.0×"), ("id", "10,0×"), ("nl", "10,0×"), ("pl", "10,0×")):
        assert Translator(lang).times(10.0) == ten
    assert Translator("nl").bytes(2 ** 31, "GB") == f"2,1{nb}GB"
    assert Translator("en").bytes(2.5 * 2 ** 20, "MiB") == f"2.5{nb}MiB"
    assert Translator("pl").seconds(0.0069) == f"6,9{nb}ms"


def test_translators_are_per_session_not_global():
    a, b = Translator("pl"), Translator("en")
    assert a._("Next") != b._("Next")
    assert b._("Next") == "Next"


def test_language_negotiation():
    assert normalize_lang("pl-PL") == "pl" and normalize_lang("NL") == "nl"
    assert normalize_lang("xx") is None and normalize_lang(None) is None
    assert negotiate("pl-PL,pl;q=0.9,en;q=0.8") == "pl"
    assert negotiate("de-DE,nl;q=0.5") == "nl"
    assert negotiate("fr") == "en" and negotiate(None) == "en"


def test_fixed_point_numbers_are_written_as_babel_writes_them():
    """`fixed` (num, int, pct, bytes, …) against Babel's own pattern formatting, in every
    language: signs, grouping, half-to-even rounding of the shortest decimal, percentages."""
    import random

    from babel import Locale
    from babel.numbers import parse_pattern

    from explainer.i18n import LANGS, fixed
    rng = random.Random(7)
    values = [0, 0.0, -0.0, 0.5, 1.5, 2.5, 0.125, 2.675, 1e-9, 999.95, 1234.5, -1234.5,
              12345678.9, 10 ** 15, -0.04, 0.005, 0.015]
    values += [rng.uniform(-1e7, 1e7) for _ in range(150)]
    values += [rng.uniform(0, 1) for _ in range(150)]
    values += [rng.randint(-10 ** 9, 10 ** 9) for _ in range(50)]
    for lang in LANGS:
        locale = Locale.parse(lang)
        for digits in range(4):
            for percent in (False, True):
                pattern = parse_pattern("#,##0" + ("." + "0" * digits if digits else "")
                                        + ("%" if percent else ""))
                for x in values:
                    want = pattern.apply(x, locale, numbering_system="latn")
                    assert fixed(x, digits, locale, percent) == want, (lang, digits, percent, x)
