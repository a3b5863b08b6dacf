"""Words that agree with their numbers.

Every message that puts a number before a noun is a plural message (`tr.n_`): rendered here in
every language with counts that reach every plural form, 1.5 included, the form each language
picks is the one Babel's (CLDR's) plural rule names, and the Polish forms decline their noun
as the rule asks (2 tokeny, 5 tokenów, 1,5 tokena; in a genitive slot "dla 2 sekwencji")."""
import decimal
import re
import string

import pytest
from babel import Locale

from explainer import catalogs
from explainer.i18n import LANGS, Translator, catalog, categories

COUNTS = (1, 2, 3, 5, 12, 14, 21, 22, 25, 101, 1.5)


def plural_messages():
    """(singular, plural) of every `n_` message in the code."""
    return [m.id for m in catalogs.extract() if m.id and isinstance(m.id, tuple)]


def names(s: str) -> set:
    return {f for _, f, _, _ in string.Formatter().parse(s) if f}


def render(tr: Translator, msg: tuple, n) -> str:
    """The message for count n, every placeholder filled with n as the language writes it."""
    shown = tr.num(n, 1) if isinstance(n, float) and not n.is_integer() else tr.int(n)
    return tr.n_(msg[0], msg[1], n, **{k: shown for k in names(msg[0]) | names(msg[1])})


def test_the_polish_header_rule_is_cldrs_for_whole_numbers():
    """The catalog's gettext expression (what any gettext tool reads) and Babel's rule agree
    on every whole number; the fourth form, CLDR's "other", is the fractions' alone."""
    rule = Locale("pl").plural_form
    order = categories("pl")
    assert order == ("one", "few", "many", "other")
    assert catalog("pl").num_plurals == 4
    tr = Translator("pl")
    for n in range(0, 1200):
        assert tr._plural(n) == order.index(rule(n)), n
    for n in (0.5, 1.5, 2.5, 4.2, 22.5, decimal.Decimal("8.0"), decimal.Decimal("2.0")):
        assert tr._plural(n) == 3, n
    assert tr._plural(decimal.Decimal("2")) == 1


@pytest.mark.parametrize("lang", list(LANGS))
def test_every_plural_message_takes_the_form_cldr_names(lang):
    tr = Translator(lang)
    rule = Locale.parse(lang).plural_form
    order = categories(lang)
    cat = catalog(lang)
    assert (cat.num_plurals if cat else 2) == len(order)
    msgs = plural_messages()
    assert len(msgs) > 60
    for msg in msgs:
        forms = msg if cat is None else cat.get(msg[0]).string
        assert len(forms) == len(order), msg[0]
        for n in COUNTS:
            want = order.index(rule(n))
            assert tr._plural(n) == want, (lang, n)
            text = render(tr, msg, n)
            assert "{" not in text and "}" not in text, text
            shown = tr.num(n, 1) if isinstance(n, float) else tr.int(n)
            assert shown in text, (lang, n, text)
            kw = {k: shown for k in names(msg[0]) | names(msg[1])}
            assert text == forms[want].format(**kw), (lang, n, msg[0])


def test_a_shown_decimal_is_a_fraction():
    """8.0 written "8,0" takes the fractions' form in Polish and the plural in English."""
    pl, en = Translator("pl"), Translator("en")
    assert pl.n_("{count} token", "{count} tokens", pl.shown(8.0, 1), count="8,0") == "8,0 tokena"
    assert pl.n_("{count} token", "{count} tokens", pl.shown(8.0, 0), count="8") == "8 tokenów"
    assert en.n_("{count} token", "{count} tokens", en.shown(1.0, 1), count="1.0") == \
        "1.0 tokens"
    assert en.n_("{count} token", "{count} tokens", 1, count="1") == "1 token"


# -- the Polish forms decline their noun ----------------------------------------------------

# singular then plural: nominative, genitive, dative, accusative, instrumental, locative
CASES = ("nom", "gen", "dat", "acc", "ins", "loc")
PARADIGMS = {
    "token": ("token tokena tokenowi token tokenem tokenie",
              "tokeny tokenów tokenom tokeny tokenami tokenach"),
    "sekwencja": ("sekwencja sekwencji sekwencji sekwencję sekwencją sekwencji",
                  "sekwencje sekwencji sekwencjom sekwencje sekwencjami sekwencjach"),
    "warstwa": ("warstwa warstwy warstwie warstwę warstwą warstwie",
                "warstwy warstw warstwom warstwy warstwami warstwach"),
    "klucz": ("klucz klucza kluczowi klucz kluczem kluczu",
              "klucze kluczy kluczom klucze kluczami kluczach"),
    "blok": ("blok bloku blokowi blok blokiem bloku", "bloki bloków blokom bloki blokami blokach"),
    "krok": ("krok kroku krokowi krok krokiem kroku", "kroki kroków krokom kroki krokami krokach"),
    "wiersz": ("wiersz wiersza wierszowi wiersz wierszem wierszu",
               "wiersze wierszy wierszom wiersze wierszami wierszach"),
    "pozycja": ("pozycja pozycji pozycji pozycję pozycją pozycji",
                "pozycje pozycji pozycjom pozycje pozycjami pozycjach"),
    "projekcja": ("projekcja projekcji projekcji projekcję projekcją projekcji",
                  "projekcje projekcji projekcjom projekcje projekcjami projekcjach"),
    "głowica": ("głowica głowicy głowicy głowicę głowicą głowicy",
                "głowice głowic głowicom głowice głowicami głowicach"),
    "liczba": ("liczba liczby liczbie liczbę liczbą liczbie",
               "liczby liczb liczbom liczby liczbami liczbach"),
    "żądanie": ("żądanie żądania żądaniu żądanie żądaniem żądaniu",
                "żądania żądań żądaniom żądania żądaniami żądaniach"),
    "bajt": ("bajt bajtu bajtowi bajt bajtem bajcie", "bajty bajtów bajtom bajty bajtami bajtach"),
    "parametr": ("parametr parametru parametrowi parametr parametrem parametrze",
                 "parametry parametrów parametrom parametry parametrami parametrach"),
    "miliard": ("miliard miliarda miliardowi miliard miliardem miliardzie",
                "miliardy miliardów miliardom miliardy miliardami miliardach"),
    "znak": ("znak znaku znakowi znak znakiem znaku", "znaki znaków znakom znaki znakami znakach"),
    "słowo": ("słowo słowa słowu słowo słowem słowie", "słowa słów słowom słowa słowami słowach"),
    "element": ("element elementu elementowi element elementem elemencie",
                "elementy elementów elementom elementy elementami elementach"),
    "wymiar": ("wymiar wymiaru wymiarowi wymiar wymiarem wymiarze",
               "wymiary wymiarów wymiarom wymiary wymiarami wymiarach"),
    "wynik": ("wynik wyniku wynikowi wynik wynikiem wyniku",
              "wyniki wyników wynikom wyniki wynikami wynikach"),
    "iloczyn": ("iloczyn iloczynu iloczynowi iloczyn iloczynem iloczynie",
                "iloczyny iloczynów iloczynom iloczyny iloczynami iloczynach"),
    "miejsce": ("miejsce miejsca miejscu miejsce miejscem miejscu",
                "miejsca miejsc miejscom miejsca miejscami miejscach"),
    "zdarzenie": ("zdarzenie zdarzenia zdarzeniu zdarzenie zdarzeniem zdarzeniu",
                  "zdarzenia zdarzeń zdarzeniom zdarzenia zdarzeniami zdarzeniach"),
    "wybór": ("wybór wyboru wyborowi wybór wyborem wyborze",
              "wybory wyborów wyborom wybory wyborami wyborach"),
    "pole": ("pole pola polu pole polem polu", "pola pól polom pola polami polach"),
}
DECLINED = {lemma: ({c: w for c, w in zip(CASES, sg.split())},
                    {c: w for c, w in zip(CASES, pl.split())})
            for lemma, (sg, pl) in PARADIGMS.items()}


def expected(lemma: str, case: str) -> tuple:
    """The noun after a count of each category when one item stands in `case`: in the
    nominative and accusative 2–4 take the plural of the case and 5+ the genitive plural; in
    the other cases every whole count keeps the case's plural; a fraction takes the genitive
    singular."""
    sg, pl = DECLINED[lemma]
    if case == "po":  # distributive "po": po 1 tokenie, po 2 tokeny, po 5 tokenów
        return sg["loc"], pl["acc"], pl["gen"], sg["gen"]
    many = pl["gen"] if case in ("nom", "acc") else pl[case]
    return sg[case], pl[case], many, sg["gen"]


def test_the_polish_forms_decline_the_counted_noun():
    """For each placeholder whose noun changes between the forms (the message's count), the
    four nouns are one case of one paradigm: "1 token / 2 tokeny / 5 tokenów / 1,5 tokena",
    "przy 1 sekwencji / 2 sekwencjach / 5 sekwencjach / 1,5 sekwencji"."""
    forms_of = {w: lemma for lemma, (sg, pl) in DECLINED.items()
                for w in (*sg.values(), *pl.values())}
    cat = catalog("pl")
    checked, wrong = 0, []
    for msg in plural_messages():
        forms = cat.get(msg[0]).string
        for name in names(msg[0]) | names(msg[1]):
            after = [re.findall(r"\{" + name + r"\}[ \u00a0](\w+)", f) for f in forms]
            if not all(after) or len({len(a) for a in after}) != 1:
                continue
            for nouns in zip(*after):
                if len(set(nouns)) == 1 or not all(w in forms_of for w in nouns):
                    continue
                lemma = forms_of[nouns[0]]
                checked += 1
                if not any(expected(lemma, c) == nouns for c in (*CASES, "po")):
                    wrong.append((msg[0], name, nouns))
    assert checked > 30
    assert wrong == [], "\n".join(map(str, wrong))


# -- no number before a noun outside a plural form ------------------------------------------

# the English nouns (and what may stand between a count and its noun) that a count would
# inflect in some language; a unit (GB, FLOP/byte, tokens/s) is none of them
NOUNS = (r"(?:tokens?|layers?|heads?|sequences?|keys?|values?|rows?|blocks?|steps?|bytes?|"
         r"parameters?|experts?|positions?|characters?|entry|entries|dimensions?|numbers?|"
         r"requests?|words?|slots?|billion|choices?|box|boxes|sinks?|hitters?|projections?|"
         r"scores?|reservations?|events?|scales?)")
PLURALS = (r"(?:tokens|layers|heads|sequences|keys|values|rows|blocks|steps|bytes|parameters|"
           r"experts|positions|characters|entries|dimensions|numbers|requests|words|slots|"
           r"choices|boxes|sinks|hitters|projections|scores|reservations|events|scales)")
BETWEEN = (r"(?:(?:prompt|generated|output|decode|key/value|KV|query|attention|full-attention|"
           r"sliding-window|chunked-attention|state|MLA|new|earlier|cached|recent|active|latent|"
           r"rotary-key|initial|heavy|dot|fp16|q·k|more|such|own|other|physical|token)\s)*")
COUNTED = re.compile(r"\{(\w+)\}[ \u00a0]" + BETWEEN + NOUNS + r"\b(?!/)")
SECONDARY = re.compile(r"\{(\w+)\}[ \u00a0]" + BETWEEN + PLURALS + r"\b(?!/)")


def test_no_number_stands_before_a_noun_outside_a_plural_form():
    """A `_` message never puts a placeholder before a counted noun ("{n} tokens"): that is a
    plural message's work. In a plural message the singular form names one count's noun in
    the singular; a second count before a plural noun there ("room for {n} sequence of {T}
    tokens") is a count no form follows: it stands as a label or in a sentence of its own."""
    found = []
    for m in catalogs.extract():
        if not m.id:
            continue
        if isinstance(m.id, str):
            found += [(m.id, c.group(0)) for c in COUNTED.finditer(m.id)]
        else:
            found += [(m.id[0], c.group(0)) for c in SECONDARY.finditer(m.id[0])]
    assert found == [], "\n".join(f"{hit!r} in {msg[:90]!r}" for msg, hit in found)


# -- a name where no language inflects it ----------------------------------------------------

NAMED = ("Llama-3.1-8B.json", "Mistral-7B-v0.1.json", "gemma-3-27b-it.json",
         "DeepSeek-V2-Lite.json", "Phi-3-mini-4k-instruct.json")


def strings(x):
    """Every string in a page state (a nested dict/list), once."""
    if isinstance(x, str):
        yield x
    elif isinstance(x, dict):
        for v in x.values():
            yield from strings(v)
    elif isinstance(x, (list, tuple)):
        for v in x:
            yield from strings(v)


@pytest.mark.parametrize("lang", list(LANGS))
def test_your_model_stands_where_no_language_inflects_it(lang):
    """A pasted config's model is “Your model” (Polish “Twój model”): step 5 never puts it
    after a word that would decline it (“Wagi modelu Twój model”, “the cache of Your
    model”). It opens a sentence or a label, or stands after a colon or in brackets; the
    page and the question's answer are read in every language, for five kinds of model, at
    a context past some of their limits (32,768)."""
    from pathlib import Path

    from steps.shell import App
    from steps.step5 import text
    from steps.step5.model import CUSTOM, Step5Model
    tr = Translator(lang)
    name = tr._("Your model")
    assert name != ("Your model" if lang != "en" else "")
    checked, wrong = 0, []
    for config in NAMED:
        m = Step5Model(context=32768)
        m.config = (Path(__file__).parent / "data" / "configs" / config).read_text()
        assert m.parsed.ok and m.spec.custom
        q = text.question(m.spec, tr)
        app = App(query={"step": [b"5"], "model": [CUSTOM.encode()], "lang": [lang.encode()],
                         "custom": [m.custom.encode()], "context": [b"32768"]})
        said = {q["prompt"], q["explain"], text.crossing(m.spec, m.curve, tr),
                *text.notices(m.spec, m.bill, tr), *strings(app.state())}
        for s in said:
            for hit in re.finditer(re.escape(name), s):
                checked += 1
                before = s[:hit.start()]
                if re.search(r"[\w,]\s*$", before):
                    wrong.append(s[max(0, hit.start() - 40):hit.end() + 20])
    assert checked >= 10
    assert wrong == [], "\n".join(wrong)
