"""Translations and locale formatting, one Translator per session (never a global `_`).

Catalogs are gettext .po files: locales/messages.pot (English source, extracted from the
code) and locales/<lang>/LC_MESSAGES/messages.po. They are parsed once per process with Babel
and shared read-only. Messages use named placeholders, `{n}`, filled with numbers that the
Translator has already formatted for the locale:

    tr = Translator("pl")
    tr._("Cache length")
    tr.n_("{n} token", "{n} tokens", 5, n=tr.int(5))      # Polish: "5 tokenów"
    tr.num(10.0, 1) -> "10,0";  tr.int(2336) -> "2 336";  tr.bytes(2**31, "GB") -> "2,1 GB"

Code marks strings with `_`, `n_` (plural) and `N_` (a string kept for later translation);
tests/test_i18n.py extracts them and checks every catalog. A number that stands before a noun
always goes through `n_` (tests/test_plurals.py): Polish has four forms (1 token, 2 tokeny,
5 tokenów, 1,5 tokena), and a name ("Your model") stands only where no language inflects it.
"""
from __future__ import annotations

import decimal
import gettext
import math
from functools import lru_cache
from pathlib import Path

from babel import Locale, negotiate_locale
from babel.messages.pofile import read_po
from babel.numbers import get_decimal_symbol, get_group_symbol

@lru_cache(maxsize=None)
def _separators(locale: Locale) -> dict:
    """A str.translate table: "," and "." -> the locale's group and decimal signs (Latin
    digits), what Babel looks up in its locale data on every number."""
    return str.maketrans({",": get_group_symbol(locale, numbering_system="latn"),
                          ".": get_decimal_symbol(locale, numbering_system="latn")})


_QUANTUM = [decimal.Decimal(1).scaleb(-d) for d in range(12)]
_INTS = 4096        # whole numbers a translator keeps written (Translator.int)


def fixed(x, digits: int, locale: Locale, percent: bool = False) -> str:
    """`x` with `digits` digits after the separator, grouped by thousands, as Babel's
    "#,##0.0…" pattern ("…%" with `percent`: x × 100) writes it in `locale`, character for
    character: the value read as its shortest decimal, rounded half to even, the locale's
    group and decimal signs, the pattern's "-" and "%". A number card or a frame formats
    hundreds of numbers; this takes a fraction of Babel's time for each (tests/test_i18n.py
    compares them)."""
    value = x if isinstance(x, decimal.Decimal) else decimal.Decimal(str(x))
    if percent:
        value = value.scaleb(2)
    negative = value.is_signed()
    text = format(abs(value).quantize(_QUANTUM[digits]), ",f").translate(_separators(locale))
    return ("-" if negative else "") + text + ("%" if percent else "")


LOCALES = Path(__file__).resolve().parent.parent / "locales"
LANGS = {"en": "English", "id": "Bahasa Indonesia", "pl": "Polski", "nl": "Nederlands"}
DEFAULT_LANG = "en"
DOMAIN = "messages"

UNITS = {"B": 1, "KB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12,
         "KiB": 2 ** 10, "MiB": 2 ** 20, "GiB": 2 ** 30, "TiB": 2 ** 40}


def N_(msg: str) -> str:
    """Mark a string for extraction without translating it now."""
    return msg


def normalize_lang(value) -> str | None:
    """'pl', 'PL', 'pl-PL', 'pl_PL' -> 'pl'; anything else -> None."""
    if not isinstance(value, str):
        return None
    code = value.strip().replace("_", "-").split("-")[0].lower()
    return code if code in LANGS else None


def negotiate(accept_language: str | None) -> str:
    """Pick a language from an Accept-Language header, else English."""
    if not accept_language:
        return DEFAULT_LANG
    prefs = []
    for part in accept_language.split(","):
        tag = part.split(";")[0].strip()
        if tag and tag != "*":
            prefs.append(tag.replace("-", "_"))
    best = negotiate_locale(prefs, list(LANGS), sep="_")
    return normalize_lang(best) or DEFAULT_LANG


@lru_cache(maxsize=None)
def catalog(lang: str):
    """The parsed .po catalog of a language (None for English, the source)."""
    if lang == DEFAULT_LANG:
        return None
    path = LOCALES / lang / "LC_MESSAGES" / f"{DOMAIN}.po"
    with open(path, "rb") as f:
        return read_po(f, locale=lang)


# CLDR's plural categories in the order gettext catalogs list their forms
CATEGORIES = ("zero", "one", "two", "few", "many", "other")


def categories(lang: str) -> tuple:
    """The plural categories of a language in the order of a catalog's forms (CLDR, as Babel
    has it): id ("other",), nl and en ("one", "other"), pl ("one", "few", "many", "other")."""
    tags = Locale.parse(lang).plural_form.tags
    return tuple(c for c in CATEGORIES if c in tags or c == "other")


def is_fraction(n) -> bool:
    """Whether a count is written with digits after the separator (1.5, a Decimal 8.0): CLDR
    gives those their own category (Polish "1,5 tokena", "8,0 miliarda")."""
    if isinstance(n, decimal.Decimal):
        return n.as_tuple().exponent < 0
    return isinstance(n, float) and not n.is_integer()


@lru_cache(maxsize=None)
def _plural_index(lang: str):
    """n -> the index of the catalog's plural form. Whole numbers go through the catalog's
    gettext expression (its header: what any gettext tool would pick); a fraction goes by its
    CLDR category, counted in the catalog's order of forms (the Polish catalog's fourth form
    is CLDR's "other", the form of fractions, which no integer takes)."""
    cat = catalog(lang)
    expr = cat.plural_expr if cat is not None else "(n != 1)"
    whole = gettext.c2py(expr)
    nplurals = cat.num_plurals if cat is not None else 2
    order = categories(lang)
    rule = Locale.parse(lang).plural_form

    def index(n):
        if is_fraction(n) and len(order) == nplurals:
            return order.index(rule(abs(n)))
        return whole(abs(int(n)))
    return index


class Translator:
    """A session's language: messages, plurals and locale number formatting."""

    def __init__(self, lang: str = DEFAULT_LANG):
        self.lang = normalize_lang(lang) or DEFAULT_LANG
        self._cat = catalog(self.lang)
        self._plural = _plural_index(self.lang)
        self.locale = Locale.parse(self.lang)
        self._ints: list = [None] * _INTS       # int(k) for 0 <= k < _INTS, as written

    # -- messages ------------------------------------------------------------------------
    def gettext(self, msg: str) -> str:
        if self._cat is not None:
            m = self._cat.get(msg)
            if m is not None and m.string and not m.fuzzy and isinstance(m.string, str):
                return m.string
        return msg

    def _(self, msg: str, **kw) -> str:
        text = self.gettext(msg)
        return text.format(**kw) if kw else text

    def n_(self, singular: str, plural: str, count, /, **kw) -> str:
        """Plural-aware: the catalog's form for `count` (Polish: one / few / many, and a
        fourth form for fractions). `count` is the number as shown: an int, a float, or a
        Decimal with the digits shown (`tr.shown(8.0, 1)` is 8.0, a fraction in Polish)."""
        text = None
        if self._cat is not None:
            m = self._cat.get(singular)
            if m is not None and not m.fuzzy and isinstance(m.string, (tuple, list)):
                forms = m.string
                i = self._plural(count)
                if i < len(forms) and forms[i]:
                    text = forms[i]
        if text is None:
            text = (singular, plural)[self._plural(count)]
        return text.format(**kw)

    def shown(self, x: float, digits: int = 1) -> decimal.Decimal:
        """The count as `num(x, digits)` writes it, for `n_`: 8.0 written "8.0" is a
        fraction to the plural rules, 8 written "8" is not."""
        return decimal.Decimal(str(x)).quantize(_QUANTUM[max(0, digits)])

    # -- numbers -------------------------------------------------------------------------
    def num(self, x: float, digits: int = 1) -> str:
        """A decimal with a fixed number of digits after the separator: 10,0 / 10.0."""
        if x is None or (isinstance(x, float) and not math.isfinite(x)):
            return "–"
        return fixed(x, max(0, digits), self.locale)

    def int(self, n) -> str:
        """A whole number, grouped: 12.345 / 12,345. The small ones a frame's grid repeats
        thousands of times are written once per translator (`_INTS`)."""
        k = n if type(n) is int else round(n)
        if 0 <= k < _INTS:
            text = self._ints[k]
            if text is None:
                text = self._ints[k] = self.num(k, 0)
            return text
        return self.num(k, 0)

    def sig(self, x: float, digits: int = 3) -> str:
        """About `digits` significant figures: 0,00012 / 1,23 / 502 / 13.900."""
        if x == 0:
            return self.num(0, 0)
        mag = math.floor(math.log10(abs(x)))
        return self.num(x, max(0, digits - 1 - mag))

    def sig_count(self, x: float, digits: int = 3):
        """The count `sig(x, digits)` writes, for `n_` (6.90 is a fraction, 502 is not)."""
        if x == 0:
            return 0
        mag = math.floor(math.log10(abs(x)))
        return self.shown(x, max(0, digits - 1 - mag))

    def pct(self, x: float, digits: int = 0) -> str:
        return fixed(x, max(0, digits), self.locale, percent=True)

    def times(self, x: float, digits: int = 1) -> str:
        """A ratio: 10,0×."""
        return self.num(x, digits) + "×"

    def bytes(self, n: float, unit: str = "auto", digits: int = 1, binary: bool = False) -> str:
        """Bytes in a named unit (GB = 1e9, GiB = 2**30); 'auto' picks a readable one."""
        if unit == "auto":
            unit = auto_unit(n, binary)
        value = n / UNITS[unit]
        d = 0 if unit == "B" or float(value).is_integer() and digits == 0 else digits
        return f"{self.num(value, d)}\u00a0{unit}"

    def seconds(self, s: float) -> str:
        """A duration in s, ms or µs: two significant figures (three from 100 up)."""
        if s is None or not math.isfinite(s):
            return "–"
        value, unit = (s, "s") if s >= 1 else (s * 1e3, "ms") if s >= 1e-3 else (s * 1e6, "µs")
        return f"{self.sig(value, 2 if value < 100 else 3)}\u00a0{unit}"


def auto_unit(n: float, binary: bool = False) -> str:
    units = ("B", "KiB", "MiB", "GiB", "TiB") if binary else ("B", "KB", "MB", "GB", "TB")
    for u in reversed(units):
        if abs(n) >= UNITS[u]:
            return u
    return "B"
