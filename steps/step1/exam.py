"""Step 1's exam-style questions, printed on the sheet with their minutes and room to write:
why the causal mask makes the cache safe, and what the cache does not save.

What an exam question is, and how the sheet shows it: steps/ui/exercises.py (`EXAM`)."""
from __future__ import annotations

from explainer.i18n import N_

from ..ui.exercises import EXAM, Exercise, fixed, fixed_lines, no_numbers

QUESTIONS: tuple[Exercise, ...] = (
    Exercise(1, 1, EXAM, no_numbers, fixed(N_(
        "Why can a decoder keep the keys and values of earlier tokens and never compute them "
        "again? Name the property of its attention that makes this safe, and say what would go "
        "wrong in a bidirectional encoder such as BERT.")), fixed_lines(N_(
            "The causal mask: each token attends only to itself and to the tokens before it, so "
            "its key and value, in every layer, depend only on the text up to it. A later token "
            "cannot change them: computed once, they can be kept."), N_(
            "In a bidirectional encoder every token also attends to the tokens after it. A new "
            "token would change the outputs of all earlier tokens, and with them their keys and "
            "values in every layer after the first: almost nothing could be reused (only the "
            "first layer's, which depend on the token and its position alone).")), minutes=5),
    Exercise(1, 2, EXAM, no_numbers, fixed(N_(
        "Does the KV cache reduce the number of q·k scores a new token computes? Explain, and say "
        "how the work per new token grows with the length of the text.")), fixed_lines(N_(
            "No. The new token's query is still scored against every key in the cache, its own "
            "included: the token at position n computes n scores."), N_(
            "The cache saves the projections of the earlier tokens' keys and values, not "
            "attention's reading of them: the work per new token grows in proportion to the "
            "length of the text, and the total over a whole generation with its square.")),
        minutes=4),
)
"""In order; steps.registry.exam finds them."""
