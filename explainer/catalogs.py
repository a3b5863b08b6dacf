"""Keep the gettext catalogs in step with the code.

    python -m explainer.catalogs          # extract -> locales/messages.pot, merge into each .po
    python -m explainer.catalogs new.json # ... then fill untranslated entries from JSON files
                                          # {"msgid": {"id": "..", "pl": [..plural forms..]}}

Strings are found where the code calls `_("...")`, `n_("...", "...", n)` (method calls such as
`tr._(...)` included) or marks them with `N_("...")`. Existing translations are kept; new
messages arrive empty (untranslated) and obsolete ones are dropped.
"""
from __future__ import annotations

from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po, write_po

from .i18n import DEFAULT_LANG, DOMAIN, LANGS, LOCALES

ROOT = Path(__file__).resolve().parent.parent
KEYWORDS = {"_": None, "n_": (1, 2), "N_": None}
SOURCES = ("steps", "app.py")
HEADER = "KV Cache Explainer"


def extract() -> Catalog:
    cat = Catalog(project=HEADER, domain=DOMAIN, charset="utf-8")
    for src in SOURCES:
        path = ROOT / src
        if path.is_file():
            entries = _extract_file(path)
        else:
            entries = ((f, *rest) for f, *rest in
                       extract_from_dir(str(path), method_map=[("**.py", "python")],
                                        keywords=KEYWORDS, comment_tags=("TRANSLATORS:",)))
        for fname, lineno, message, comments, context in entries:
            loc = (f"{src}/{fname}" if path.is_dir() else src, lineno)
            cat.add(message, locations=[loc], auto_comments=comments, context=context,
                    flags=("python-brace-format",) if "{" in (message if isinstance(message, str)
                                                             else message[0]) else ())
    return cat


def _extract_file(path: Path):
    from babel.messages.extract import extract
    with open(path, "rb") as f:
        for lineno, message, comments, context in extract("python", f, keywords=KEYWORDS,
                                                          comment_tags=("TRANSLATORS:",)):
            yield path.name, lineno, message, comments, context


def update(langs=None) -> dict:
    template = extract()
    LOCALES.mkdir(exist_ok=True)
    with open(LOCALES / f"{DOMAIN}.pot", "wb") as f:
        write_po(f, template, width=100, sort_output=False, omit_header=False)
    counts = {}
    for lang in langs or [l for l in LANGS if l != DEFAULT_LANG]:
        po = LOCALES / lang / "LC_MESSAGES" / f"{DOMAIN}.po"
        po.parent.mkdir(parents=True, exist_ok=True)
        if po.exists():
            with open(po, "rb") as f:
                cat = read_po(f, locale=lang)
        else:
            cat = Catalog(locale=lang, project=HEADER, domain=DOMAIN, charset="utf-8")
        cat.update(template, no_fuzzy_matching=True)
        cat.obsolete.clear()
        with open(po, "wb") as f:
            write_po(f, cat, width=100, sort_output=False, ignore_obsolete=True)
        counts[lang] = sum(1 for m in cat if m.id and not m.string or
                           (isinstance(m.string, tuple) and not all(m.string)))
    return counts


def fill(paths, langs=None) -> dict:
    """Fill empty translations from JSON files of new translations (written by translators
    who never touch the .po files); existing translations are left as they are."""
    import json
    new = {}
    for path in paths:
        new.update(json.loads(Path(path).read_text(encoding="utf-8")))
    filled = {}
    for lang in langs or [l for l in LANGS if l != DEFAULT_LANG]:
        po = LOCALES / lang / "LC_MESSAGES" / f"{DOMAIN}.po"
        with open(po, "rb") as f:
            cat = read_po(f, locale=lang)
        n = 0
        for m in cat:
            key = m.id if isinstance(m.id, str) else (m.id[0] if m.id else None)
            if not key or key not in new or lang not in new[key]:
                continue
            empty = not m.string or (isinstance(m.string, tuple) and not all(m.string))
            if empty:
                value = new[key][lang]
                m.string = tuple(value) if isinstance(m.id, tuple) else value
                n += 1
        with open(po, "wb") as f:
            write_po(f, cat, width=100, sort_output=False, ignore_obsolete=True)
        filled[lang] = n
    return filled


if __name__ == "__main__":
    import sys
    for lang, missing in update().items():
        print(f"{lang}: {missing} untranslated after extraction")
    if sys.argv[1:]:
        for lang, n in fill(sys.argv[1:]).items():
            print(f"{lang}: {n} filled from {len(sys.argv) - 1} file(s)")
