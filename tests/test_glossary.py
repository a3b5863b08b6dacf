"""The glossary without a browser: every entry in four languages, the page's state carries it
once (a part of its own, not the shell's, not a move's), the glossary page and its link."""
import re
from urllib.parse import parse_qs

import pytest
from babel.messages.pofile import read_po

from explainer.i18n import LANGS, LOCALES
from steps.common import translator
from steps.glossary import (BADGE_MEANINGS, TERMS, check_glossary, entries, glossary_state,
                            names)
from steps.registry import END
from steps.shell import App
from steps.ui.state import columns, check_page
from steps.ui.words import BADGES

MSGIDS = [m for pair in TERMS for m in pair] + list(BADGE_MEANINGS.values())


@pytest.mark.parametrize("lang", [l for l in LANGS if l != "en"])
def test_every_entry_is_translated(lang):
    with open(LOCALES / lang / "LC_MESSAGES" / "messages.po", "rb") as f:
        cat = read_po(f, locale=lang)
    for msgid in MSGIDS:
        m = cat.get(msgid)
        assert m is not None and m.string and not m.fuzzy, f"{lang}: {msgid!r}"
    tr = translator(lang)
    for n, d in TERMS:
        assert tr._(d) != d, f"{lang}: the definition of {n!r} is the English one"
        forms = names(tr, n)
        assert forms and all(f.strip() == f and "|" not in f for f in forms), forms


def test_definitions_are_one_or_two_plain_sentences():
    for n, d in TERMS:
        sentences = [s for s in re.split(r"(?<=[.!?])\s+", d) if s]
        assert 1 <= len(sentences) <= 2 and len(d.split()) <= 45, n
        assert "<" not in d and "|" not in d, n


def test_names_put_the_term_first_without_repeats():
    tr = translator("en")
    assert names(tr, "KV cache|KV caches|cache|caches") == ["KV cache", "KV caches", "cache",
                                                           "caches"]
    assert names(tr, "token| tokens |token|") == ["token", "tokens"]


@pytest.mark.parametrize("lang", list(LANGS))
def test_the_glossary_state_is_whole_in_every_language(lang):
    g = check_glossary(glossary_state(lang))
    assert g["lang"] == lang and len(g["terms"]) == len(TERMS)
    assert [k for k, _, _ in g["legend"]["items"]] == list(BADGES)
    tr = translator(lang)
    assert [b for _, b, _ in g["legend"]["items"]] == [tr._(BADGES[k][0]) for k in BADGES]
    assert glossary_state(lang) is g                    # one object per language
    terms = [t for t, _, _ in g["terms"]]
    assert len(set(terms)) == len(terms), "two entries with the same name"


def test_the_page_carries_the_glossary_once_and_a_move_leaves_it():
    app = App(query={"step": [b"2"]})
    before = check_page(app.state())
    assert before["glossary"] is glossary_state("en")
    assert "glossary" not in before["shell"]            # not sent again with each step
    app.handle({"set": "tokens", "value": 40, "seq": 1})
    assert app.state()["glossary"] is before["glossary"]
    app.handle({"goto": 3})
    assert app.state()["glossary"] is before["glossary"]
    app.handle({"lang": "pl"})
    after = check_page(app.state())
    assert after["glossary"]["lang"] == "pl" and after["glossary"] is glossary_state("pl")


def test_the_key_ideas_link_to_the_glossary():
    for lang in LANGS:
        app = App(query={"step": [b"end"], "lang": [lang.encode()]})
        html = " ".join(b.get("html", "") for b in columns(app.state())["left"])
        assert f'href="?step=end&amp;glossary=1&amp;lang={lang}"' in html
        assert "glossary" not in app.url_query()        # the key ideas' link stays short


@pytest.mark.parametrize("lang", list(LANGS))
def test_the_glossary_page_lists_every_term_and_the_badges(lang):
    app = App(query={"step": [b"end"], "glossary": [b"1"], "lang": [lang.encode()]})
    assert app.app_state.step == END and app.view_model()["notices"] == []
    state = check_page(app.state())
    assert "glossary-page" in state["classes"]
    html = columns(state)["left"][0]["html"]
    tr = translator(lang)
    listed = re.findall(r"<dt>([^<]*?)</dt>", html)             # the badges' come after
    from markupsafe import escape
    assert listed == [str(escape(t)) for t, _ in entries(tr)]
    assert len(listed) == len(TERMS)
    for _, d in entries(tr):
        assert str(escape(d)) in html
    for k in BADGES:
        assert f"badge-{k}" in html and str(escape(tr._(BADGE_MEANINGS[k]))) in html
    assert f'href="?step=end&amp;lang={lang}"' in html          # back to the key ideas
    assert parse_qs(app.url_query()[1:])["glossary"] == ["1"]


def test_entries_are_in_alphabetical_order():
    for lang in LANGS:
        keys = [t.casefold() for t, _ in entries(translator(lang))]
        firsts = [k[0] for k in keys]
        assert firsts == sorted(firsts, key=lambda c: c.replace("ł", "l")), lang


def test_each_term_is_used_in_the_explainer_in_its_language():
    """A term's forms are the words the steps really use: every entry but a handful matches
    some translated sentence of the catalog (the rest are defined for the glossary page)."""
    with open(LOCALES / "messages.pot", "rb") as f:
        source = [m.id for m in read_po(f) if m.id and isinstance(m.id, str)]
    glossary_ids = set(MSGIDS)
    for lang in LANGS:
        tr = translator(lang)
        text = " ".join(tr._(s) for s in source if s not in glossary_ids)
        unused = []
        for n, _ in TERMS:
            forms = names(tr, n)
            if not any(re.search(r"(?<![\w])" + re.escape(f) + r"(?![\w])", text, re.I)
                       for f in forms):
                unused.append(forms[0])
        assert len(unused) <= 4, f"{lang}: never used: {unused}"


def test_the_mla_entry_does_not_rebuild_keys_and_values():
    """truth3 N15: MLA's cache holds a latent (512 values in DeepSeek-V3) plus a decoupled
    RoPE key (64), and optimised kernels attend to the latent directly, as step 5 says; the
    entry must not say the keys and values are rebuilt from one compressed vector."""
    (d,) = [d for n, d in TERMS if n.startswith("MLA|")]
    said = " ".join(d.split())
    assert "are rebuilt from it" not in said
    assert "512 values in DeepSeek-V3" in said and "(64)" in said
    assert "attend to the compressed vector directly" in said
    for lang in ("id", "pl", "nl"):
        assert "512" in translator(lang)._(d) and "64" in translator(lang)._(d)


def test_arithmetic_intensity_counts_bytes_moved_both_ways():
    """truth3 N24: step 4 counts the bytes moved to or from memory (a prefill writes its
    cache, not only reads weights), so the glossary's arithmetic intensity does too."""
    (d,) = [d for n, d in TERMS if n.startswith("arithmetic intensity|")]
    said = " ".join(d.split())
    assert "per byte it moves to or from memory" in said and "reads from memory" not in said
