"""A count and its noun as one phrase that stands on its own: in a list, after a colon, in a
label or a table cell ("4 layers"; Polish "4 warstwy", "5 warstw", "1,5 warstwy").

A number never stands before a noun in a plain `_` message: it goes through a plural message
(`tr.n_`), in the language's own forms (tests/test_plurals.py). These are the phrases several
steps share. They are nominative, so a sentence puts them where no language inflects them; a
sentence that governs the count's case (Polish "dla 2 sekwencji", "o długości 5 tokenów") is a
plural message of its own.
"""
from __future__ import annotations

from explainer.i18n import Translator


def tokens(n: int, tr: Translator) -> str:
    return tr.n_("{count} token", "{count} tokens", n, count=tr.int(n))


def sequences(n: int, tr: Translator) -> str:
    return tr.n_("{count} sequence", "{count} sequences", n, count=tr.int(n))


def layers(n: int, tr: Translator) -> str:
    return tr.n_("{count} layer", "{count} layers", n, count=tr.int(n))


def heads(n: int, tr: Translator) -> str:
    """Attention heads of a model that has as many key/value heads as query heads."""
    return tr.n_("{count} attention head", "{count} attention heads", n, count=tr.int(n))


def query_heads(n: int, tr: Translator) -> str:
    return tr.n_("{count} query head", "{count} query heads", n, count=tr.int(n))


def kv_heads(n: int, tr: Translator) -> str:
    return tr.n_("{count} key/value head", "{count} key/value heads", n, count=tr.int(n))


def parameters(n: int, tr: Translator) -> str:
    return tr.n_("{count} parameter", "{count} parameters", n, count=tr.int(n))


def billions(n: float, digits: int, tr: Translator) -> str:
    """A count of parameters in billions, as written with `digits` decimals ("8.0 billion
    parameters"; Polish "8,0 miliarda parametrów", a fraction)."""
    x = n / 1e9
    return tr.n_("{count} billion parameters", "{count} billion parameters",
                 tr.shown(x, digits), count=tr.num(x, digits))


def hypothetical(context: int, tr: Translator) -> str:
    """A context past a model's own limit, still computed."""
    return tr.n_("A context of {context} token is hypothetical for it, although the arithmetic "
                 "is the same.", "A context of {context} tokens is hypothetical for it, "
                 "although the arithmetic is the same.", context, context=tr.int(context))


def context_notice(model: str, limit: int, context: int, tr: Translator) -> str:
    """A context past what a model was built for: its limit and the context, each counted in
    a sentence of its own ({model} the subject, where no language inflects it)."""
    return " ".join((tr.n_("{model} was built for contexts of at most {max} token.",
                           "{model} was built for contexts of at most {max} tokens.", limit,
                           model=model, max=tr.int(limit)),
                     hypothetical(context, tr)))
