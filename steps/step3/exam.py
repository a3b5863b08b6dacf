"""Step 3's exam-style questions, printed on the sheet with their minutes and room to write:
why keys are stored after RoPE, and what the cache's size per token depends on.

What an exam question is, and how the sheet shows it: steps/ui/exercises.py (`EXAM`)."""
from __future__ import annotations

from functools import lru_cache

from explainer import costs, presets
from explainer.format import bytes_bin

from explainer.i18n import N_

from ..ui.exercises import EXAM, Exercise, fixed, fixed_lines, no_numbers


@lru_cache(maxsize=None)
def _n3() -> dict:
    m = presets.ALL_MODELS[presets.REFERENCE_MODEL]
    return dict(name=m.name, L=m.n_layers, H=m.n_kv_heads, d=m.head_dim,
                b=presets.PRECISIONS["fp16"].bits // 8, per=costs.kv_bytes_per_token(m, "fp16"))


def _q2(tr, x):
    return tr._("Which of these does the size of the KV cache per token depend on: the layers, "
                "the query heads, the KV heads, the head dimension, the vocabulary, the "
                "precision? Write the formula and work it out for {model} in fp16 (layers: {L}, "
                "KV heads: {H}, head dimension: {d}).", model=x["name"], L=tr.int(x["L"]),
                H=tr.int(x["H"]), d=tr.int(x["d"]))


def _a2(tr, x):
    return [tr._("On the layers, the KV heads, the head dimension and the precision: bytes per "
                 "token = 2 (K and V) × layers × KV heads × head_dim × bytes per value. Not on "
                 "the query heads (only the KV heads are stored; with GQA several query heads "
                 "share one) nor on the vocabulary."),
            tr._("{model}: 2 × {L} × {H} × {d} × {b} B = {per} per token.", model=x["name"],
                 L=tr.int(x["L"]), H=tr.int(x["H"]), d=tr.int(x["d"]), b=tr.int(x["b"]),
                 per=bytes_bin(x["per"], tr))]


QUESTIONS: tuple[Exercise, ...] = (
    Exercise(3, 1, EXAM, no_numbers, fixed(N_(
        "The keys are stored in the cache after the rotary position embedding (RoPE) has been "
        "applied. Why is that possible, and what would go wrong if each new token were given "
        "position 0?")), fixed_lines(N_(
            "RoPE rotates each query and key by an angle set by its own position, and the score "
            "q·k of two rotated vectors depends only on the difference of their positions. A key "
            "rotated once, at its own absolute position, never needs to change: stored after "
            "RoPE, it is ready for every later query."), N_(
            "A new token given position 0 would be rotated as if it were the first token: its "
            "scores against the cached keys would be computed for the wrong distances, and its "
            "attention would be wrong.")), minutes=5),
    Exercise(3, 2, EXAM, _n3, _q2, _a2, minutes=4),
)
"""In order; steps.registry.exam finds them."""
