"""Every decoder ``model_type`` transformers ships, each built from its default config.

The list (:func:`decoder_types`) is read from transformers' auto modules, not
written by hand: every ``model_type`` of ``CONFIG_MAPPING_NAMES`` that has a
class in ``MODEL_FOR_CAUSAL_LM_MAPPING_NAMES`` or
``MODEL_FOR_IMAGE_TEXT_TO_TEXT_MAPPING_NAMES``, less

- the encoder-only families: a type that also has a class in
  ``MODEL_FOR_MASKED_LM_MAPPING_NAMES`` (BERT, RoBERTa, ELECTRA, XLM...): their
  causal-LM class is the bidirectional encoder run with ``is_decoder=True``,
  not a model anyone serves with a KV cache (BART and mBART are in that
  mapping too and are encoder-decoders anyway);
- the encoder-decoders: a type in ``MODEL_FOR_SEQ_TO_SEQ_CAUSAL_LM_MAPPING_NAMES``
  or whose default config says ``is_encoder_decoder`` (Whisper, Pix2Struct,
  Florence-2, T5Gemma 2, ``vision-encoder-decoder``...).

For each type :func:`default_entry` builds ``AutoConfig.for_model(type)``
(the config class with its defaults, unchanged: on the meta device even the
defaults that describe large models build in about 0.1 s, all the types in
about 30 s); the oracle (``tests/oracle.py``) reads that config's
``to_dict()``, and the same dict, as JSON, is what the reader gets.

Importing transformers and building about 250 models takes about 35 s, so the results are
cached in ``tests/data/oracle_types.json`` with the transformers version that
made them; ``python -m tests.oracle_types --write`` rebuilds it and
``tests/test_hfconfig_types.py`` checks the version and rebuilds a sample live.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

TYPES_FILE = Path(__file__).parent / "data" / "oracle_types.json"


def decoder_types() -> list[str]:
    """The decoder model_types of the installed transformers (rule in the module doc)."""
    from transformers.models.auto import configuration_auto as ca
    from transformers.models.auto import modeling_auto as ma

    cands = (set(ma.MODEL_FOR_CAUSAL_LM_MAPPING_NAMES)
             | set(ma.MODEL_FOR_IMAGE_TEXT_TO_TEXT_MAPPING_NAMES))
    cands &= set(ca.CONFIG_MAPPING_NAMES)
    cands -= set(ma.MODEL_FOR_MASKED_LM_MAPPING_NAMES)
    cands -= set(ma.MODEL_FOR_SEQ_TO_SEQ_CAUSAL_LM_MAPPING_NAMES)
    out = []
    for mt in sorted(cands):
        cls = ca.CONFIG_MAPPING[mt]
        if getattr(cls, "is_encoder_decoder", False) is True:
            continue
        try:
            if getattr(cls(), "is_encoder_decoder", False):
                continue
        except Exception:  # noqa: BLE001 - a default that fails to build is reported later
            pass
        out.append(mt)
    return out


def default_config(mt: str) -> dict:
    """transformers' default config of ``mt`` as a dict (``model_type`` set)."""
    from transformers import AutoConfig

    d = AutoConfig.for_model(mt).to_dict()
    d["model_type"] = mt
    return d


def default_entry(mt: str) -> dict:
    """The oracle's result on ``default_config(mt)``; the config itself under ``config``."""
    from tests.oracle import oracle

    try:
        d = default_config(mt)
    except Exception as e:  # noqa: BLE001 - reported, never hidden
        return {"status": "unbuildable", "why": f"default config: {type(e).__name__}: "
                                               f"{str(e)[:120]}"}
    try:
        json.dumps(d)
    except (TypeError, ValueError) as e:
        return {"status": "unbuildable", "why": f"to_dict is not JSON: {str(e)[:120]}"}
    got = oracle(json.loads(json.dumps(d)))
    got["config"] = d
    return got


def compute(types=None) -> dict:
    return {mt: default_entry(mt) for mt in (types if types is not None else decoder_types())}


def main(argv: list[str]) -> int:
    import time

    import transformers

    from tests.oracle import report

    t0 = time.perf_counter()
    results = compute()
    took = time.perf_counter() - t0
    if "--write" in argv:
        # one line per type: a diff names the types that changed; 0.77 MB, not 1.15
        rows = [f" {json.dumps(mt)}: {json.dumps(r, sort_keys=True)}"
                for mt, r in sorted(results.items())]
        TYPES_FILE.write_text(
            f'{{"transformers": {json.dumps(transformers.__version__)}, "types": {{\n'
            + ",\n".join(rows) + "\n}}\n")
    report(results, f"{len(results)} types in {took:.1f} s: ")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
