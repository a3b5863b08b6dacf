"""Speaker notes: what a lecturer says aloud on each step, one short paragraph per step (and
one for the key-ideas page), shown in presenter mode's speaker view (`?present=1&speaker=1`,
opened with the S key). Keyed by the step's number in `steps/registry.py`; a test checks that
every step has its notes and that every language translates them."""
from __future__ import annotations

from explainer.i18n import N_, Translator

from .registry import COUNT, END

NOTES: dict[int, str] = {
    1: N_("Ask the question first and let the room vote before anything moves. Then add one "
          "token at a time with PageDown and point at the arcs: the newest token's "
          "query reads the key of every earlier token and its own. The earlier keys come from "
          "the cache; a token never looks ahead, so they never change."),
    2: N_("Compare the two grids: without a cache, every pass computes the keys and values of "
          "the whole text again; with a cache, only the new token's. Ask what happens to the "
          "waste when the text gets twice as long, then move the slider to check: it grows with "
          "the square of the length."),
    3: N_("The cache is a table that gains one key row and one value row per token, in every "
          "layer and KV head. Step through the decode steps: the earlier rows are read, never "
          "rewritten. Stress that the output is exactly the same as without the cache: the "
          "cache saves work, it does not approximate."),
    4: N_("Prefill takes the whole prompt at once and keeps the GPU busy computing. A decode "
          "step makes one token per sequence but must read all the weights and the whole "
          "cache, so at a small batch it waits on memory. Point at the two points on the "
          "roofline, then raise the batch and watch decode move towards the ridge."),
    5: N_("Ask the question before touching anything. Then move the context and the batch: "
          "the cache grows in proportion to both, and at long contexts or large batches it "
          "outgrows the model's weights. Read the formula aloud once: two (keys and values) × "
          "layers × KV heads × head dimension × bytes per number, per token."),
    6: N_("Take the levers one part at a time: fewer KV heads (GQA, MQA), fewer bits per "
          "number, fewer tokens kept (a sliding window) and no reserved waste (paged memory). "
          "For each one, ask the room what it costs: quality, forgotten context or "
          "bookkeeping. In part D, let the room guess which tokens a small cache should keep "
          "before you play it: the latest, the first few (sinks) or the most attended (heavy "
          "hitters)."),
    END: N_("Sum up with the key ideas on this page. Ask someone to explain in one sentence why "
            "decoding with a cache waits on memory, and hand out the printed page."),
}

assert set(NOTES) == set(range(1, COUNT + 1)) | {END}, "every step needs its speaker notes"


def notes(n: int, tr: Translator) -> str:
    """Step `n`'s speaker notes in the translator's language."""
    return tr._(NOTES[n])
