"""The conformance oracle: what transformers itself builds from a ``config.json``.

For one config (a dict), :func:`oracle` reads it through the configuration
class transformers registers for its ``model_type`` (``CONFIG_MAPPING``;
remote code is never trusted), builds the model on the ``meta`` device (no
memory, no weights: ``AutoModelForCausalLM``, the image-text-to-text auto
class for multimodal configs, else the transformers class its
``architectures`` names, such as Voxtral's) and reads from the built modules:

- ``params``: every parameter of the language model (tied embeddings once;
  for a multimodal model the vision tower and projector are left out, as the
  reader counts the language model only);
- ``layers``: one entry per decoder layer, ``[kind, span, values]`` and, for
  a K/V layer, ``kv_heads, head_dim`` (the module's ``head_dim``; K/V heads =
  values / 2 / head_dim):
  ``kind`` is ``full``, ``sliding`` (span W), ``chunked`` (span C),
  ``mla`` (latent), ``shared`` (reads another layer's K/V: Gemma 3n),
  ``cross`` (attends to the image), ``state`` (Mamba, linear attention: no
  K/V) or ``none`` (no attention and no recurrent mixer: Nemotron-H's MLP
  and MoE blocks); ``values`` is what the layer caches per token
  (K + V output features of its projections, twice K's where K doubles as
  V, Gemma 4's ``attention_k_eq_v``; for MLA the compressed
  ``kv_a_proj_with_mqa`` output, kv_lora_rank + qk_rope_head_dim, plus the
  DSA indexer's key, ``indexer.wk``, where DeepSeek-V3.2 has one).

The kind and span come from the built attention module (its
``is_kv_shared_layer``, ``sliding_window`` and ``layer_type``, set by
transformers from the config's ``layer_types``) and, where a module does
not record them, from the config's ``layer_types``, ``sliding_window`` and
``attention_chunk_size``. Results:

- ``{"status": "built", ...}``;
- ``{"status": "refused", "why": "encoder_decoder" | "no_kv_cache"}`` for an
  encoder-decoder or a model without any attention layer;
- ``{"status": "unbuildable", "why": ...}`` where transformers has no class
  for the config (remote code, no ``model_type``): the corpus's
  ``truths.json`` holds a hand-written truth for those.

``python -m tests.oracle --write --docs`` rebuilds ``tests/data/corpus/oracle.json``
(every corpus file and the 30 review configs of ``tests/data/configs``) and
``docs/configs.md``; ``--time`` prints the import and build times.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).parent / "data"
CORPUS = ROOT / "corpus"
REVIEW = ROOT / "configs"
ORACLE_FILE = CORPUS / "oracle.json"

_OUT_NAMES = ("o_proj", "dense", "c_proj", "out_proj", "wo", "out_lin")
_FUSED_NAMES = ("query_key_value", "c_attn", "Wqkv", "qkv_proj", "W_pack", "qkv")


def corpus_files() -> dict[str, Path]:
    """Every config the oracle covers: ``name -> path`` (corpus, then the review's)."""
    files: dict[str, Path] = {}
    for path in sorted(CORPUS.glob("*.json")):
        if path.name not in ("sources.json", "truths.json", "oracle.json"):
            files[path.stem] = path
    for path in sorted(REVIEW.iterdir()):
        if path.name == "truths.json" or not path.name.endswith((".json", ".json.txt")):
            continue
        name = "review--" + path.name.removesuffix(".txt").removesuffix(".json")
        files[name] = path
    return files


def load(path: Path) -> dict:
    """The config as the reader gets it (JSON with Infinity/NaN allowed)."""
    return json.loads(path.read_text())


def _out_features(module) -> int | None:
    # nn.Linear names it out_features; GPT-2's Conv1D (weight in x out) names it nf
    return getattr(module, "out_features", None) or getattr(module, "nf", None)


def _in_features(module) -> int | None:
    if getattr(module, "in_features", None):
        return module.in_features
    w = getattr(module, "weight", None)
    if getattr(module, "nf", None) and w is not None:  # Conv1D: weight is (in, out)
        return int(w.shape[0])
    return None


def _text_config(cfg):
    if hasattr(cfg, "get_text_config"):
        return cfg.get_text_config()
    return cfg


def _decoder_layers(model, n_layers: int):
    """The ModuleList of the language model's decoder layers."""
    import torch.nn as nn

    best = None
    for name, mod in model.named_modules():
        if not isinstance(mod, nn.ModuleList) or len(mod) != n_layers:
            continue
        low = name.lower()
        if any(v in low for v in ("vision", "visual", "image", "audio", "encoder.", "tower")):
            continue
        if best is None or "language" in low or "text" in low:
            best = mod
    return best


def _attention(layer):
    """The self-attention module of one decoder layer, or None."""
    for attr in ("self_attn", "attention", "attn", "self_attention", "cross_attn",
                 "mixer", "linear_attn", "mamba", "temporal_block"):
        mod = getattr(layer, attr, None)
        if mod is not None and _kv_projections(mod) is not None:
            return mod
    for _, mod in layer.named_modules():
        if mod is layer:
            continue
        if _kv_projections(mod) is not None:
            return mod
    return None


def _kv_projections(mod):
    """(values per token, query features) of an attention module, or None."""
    kv_a = getattr(mod, "kv_a_proj_with_mqa", None)
    if kv_a is not None:
        # DeepSeek-V3.2: the DSA indexer caches its own key per token as well
        # (``cache.update_indexer``: index_head_dim values, ``indexer.wk``)
        wk = getattr(getattr(mod, "indexer", None), "wk", None)
        return ("mla", _out_features(kv_a) + (_out_features(wk) if wk is not None else 0))
    k, v = getattr(mod, "k_proj", None), getattr(mod, "v_proj", None)
    if k is not None and v is not None and _out_features(k) and _out_features(v):
        return ("kv", _out_features(k) + _out_features(v))
    if k is not None and _out_features(k) and hasattr(mod, "v_proj") and v is None:
        # Gemma 4's attention_k_eq_v: no v_proj, V is the normed K; the cache
        # still holds both (``cache.update(key_states, value_states)``)
        return ("kv", 2 * _out_features(k))
    for name in _FUSED_NAMES:
        fused = getattr(mod, name, None)
        if fused is None or not _out_features(fused):
            continue
        for out in _OUT_NAMES:
            o = getattr(mod, out, None)
            if o is not None and _in_features(o):
                q = _in_features(o)
                if name == "c_attn" and getattr(mod, "is_cross_attention", False):
                    continue
                return ("kv", _out_features(fused) - q)
    return None


def _windows_every_layer(attn) -> bool:
    """True when the model's code builds one sliding-window mask for all layers
    from ``config.sliding_window`` (Mistral, Mixtral, Phi-3, Starcoder2 in
    transformers 5: ``create_sliding_window_causal_mask`` without ``layer_types``)."""
    import inspect

    module = sys.modules.get(type(attn).__module__)
    try:
        return module is not None and "create_sliding_window_causal_mask" in inspect.getsource(module)
    except (OSError, TypeError):
        return False


def _span(cfg, attn, i: int):
    """(kind, span) of layer i from the module and the text config."""
    types = getattr(cfg, "layer_types", None)
    lt = getattr(attn, "layer_type", None) or (types[i] if types else None)
    if lt in ("chunked_attention",):
        return "chunked", int(cfg.attention_chunk_size)
    sw = getattr(attn, "sliding_window", None)
    if lt in ("sliding_attention", "local_attention", "sliding_window"):
        w = sw or getattr(cfg, "sliding_window", None) or getattr(cfg, "attention_window_size", None)
        return "sliding", int(w)
    if lt is None and sw:
        return "sliding", int(sw)
    if lt is None and not types:
        w = getattr(cfg, "sliding_window", None)
        if w and getattr(cfg, "use_sliding_window", True) and _windows_every_layer(attn):
            return "sliding", int(w)
    return "full", None


def _params(model, cfg) -> int:
    """Parameters of the language model (a multimodal one's towers left out)."""
    seen = set()
    total = 0
    skip = ("vision", "visual", "image", "audio", "projector",
            "embed_vision", "embed_audio", "vpm", "resampler")
    for name, p in model.named_parameters(remove_duplicate=True):
        if any(s in name for s in skip):
            continue
        if id(p) in seen:
            continue
        seen.add(id(p))
        total += p.numel()
    return int(total)


def oracle(d: dict) -> dict:
    """What transformers builds from the config dict ``d`` (see the module doc)."""
    import torch
    import transformers
    from transformers import AutoModelForCausalLM, AutoModelForImageTextToText
    from transformers.models.auto.configuration_auto import CONFIG_MAPPING

    mt = d.get("model_type")
    if not mt:
        return {"status": "unbuildable", "why": "no model_type"}
    if mt not in CONFIG_MAPPING:
        return {"status": "unbuildable", "why": f"model_type {mt} is not in transformers"}
    try:
        cfg = CONFIG_MAPPING[mt].from_dict(dict(d))
    except Exception as e:  # noqa: BLE001 - reported, never hidden
        return {"status": "unbuildable", "why": f"config: {type(e).__name__}: {str(e)[:120]}"}
    if getattr(cfg, "is_encoder_decoder", False):
        return {"status": "refused", "why": "encoder_decoder"}
    model = None
    errors = []
    builders = [(a.__name__, lambda c, a=a: a.from_config(c, trust_remote_code=False))
                for a in (AutoModelForCausalLM, AutoModelForImageTextToText)]
    for arch in d.get("architectures") or []:  # transformers' own class (Voxtral...)
        cls = getattr(transformers, str(arch), None)
        if isinstance(cls, type) and hasattr(cls, "_from_config"):
            builders.append((arch, cls._from_config))
    for label, build in builders:
        try:
            with torch.device("meta"):
                model = build(cfg)
            break
        except Exception as e:  # noqa: BLE001
            errors.append(f"{label}: {type(e).__name__}: {str(e)[:100]}")
    if model is None:
        return {"status": "unbuildable", "why": "; ".join(errors)}
    tc = _text_config(cfg)
    n_layers = int(getattr(tc, "num_hidden_layers", 0) or getattr(tc, "n_layer", 0)
                   or getattr(tc, "num_layers", 0))
    layers_mod = _decoder_layers(model, n_layers)
    if layers_mod is None:
        return {"status": "unbuildable", "why": f"no decoder ModuleList of {n_layers} layers"}
    cross = set(getattr(tc, "cross_attention_layers", None) or [])
    layers = []
    for i, layer in enumerate(layers_mod):
        attn = _attention(layer)
        if i in cross or "Cross" in type(layer).__name__:
            layers.append(["cross", None, 0])
            continue
        if attn is None:
            mixers = [getattr(layer, a) for a in (
                "mamba", "mixer", "linear_attn", "temporal_block", "mamba_mixer",
                "block_sparse_moe_mamba", "conv", "short_conv", "feed_forward_mamba")
                if getattr(layer, a, None) is not None]
            # a block whose mixer is an MLP or a mixture of experts (Nemotron-H's
            # "-" and "E") holds no state: only recurrent mixers do
            recurrent = [m for m in mixers
                         if not type(m).__name__.endswith(("MLP", "MoE", "Moe", "MoeBlock"))]
            layers.append(["state" if recurrent else "none", None, 0])
            continue
        if getattr(attn, "is_kv_shared_layer", False):
            layers.append(["shared", None, 0])
            continue
        what, values = _kv_projections(attn)
        if what == "mla":
            layers.append(["mla", None, int(values)])
            continue
        kind, span = _span(tc, attn, i)
        head_dim = int(getattr(attn, "head_dim", 0) or getattr(attn, "head_size", 0)
                       or getattr(tc, "head_dim", 0) or 0)
        kv_heads = values // (2 * head_dim) if head_dim else None
        layers.append([kind, span, int(values), kv_heads, head_dim or None])
    if not any(e[0] in ("full", "sliding", "chunked", "mla") for e in layers):
        return {"status": "refused", "why": "no_kv_cache"}
    return {
        "status": "built",
        "model_type": mt,
        "class": type(model).__name__,
        "params": _params(model, cfg),
        "layers": layers,
    }


def compute_all(names=None) -> dict:
    files = corpus_files()
    out = {}
    for name, path in files.items():
        if names is not None and name not in names:
            continue
        try:
            d = load(path)
        except ValueError as e:
            out[name] = {"status": "unbuildable", "why": f"not JSON: {e}"}
            continue
        if not isinstance(d, dict):
            out[name] = {"status": "unbuildable", "why": "not an object"}
            continue
        out[name] = oracle(d)
    return out


DOCS = Path(__file__).parent.parent / "docs" / "configs.md"


def sources_text() -> str:
    """tests/data/corpus/SOURCES.md, the table of ``sources.json``."""
    rows = json.loads((CORPUS / "sources.json").read_text())
    lines = [
        "# Corpus sources", "",
        "Generated from `sources.json` by `PYTHONPATH=. .venv/bin/python -m tests.oracle --docs`.",
        "Each file is a model's `config.json` exactly as published in the repository named, at the",
        "commit named. The 30 review configs of `tests/data/configs/` are checked too (as",
        "`review--<file>`) and are not repeated here.", "",
        "| file | model | model_type | repository | path | commit | note |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(f"| {r['file']} | {r['model']} | {r['model_type']} | {r['repository']} | "
                     f"`{r['path']}` | {r['commit'][:12]} | {r.get('note', '')} |")
    return "\n".join(lines) + "\n"


def docs_text() -> str:
    """docs/configs.md: every config's verdict and every disagreement's reason."""
    from tests.test_hfconfig_oracle import KNOWN, all_verdicts

    results = json.loads(ORACLE_FILE.read_text())
    truths = json.loads((CORPUS / "truths.json").read_text())
    verdicts = all_verdicts()
    sources = {s["file"]: s for s in json.loads((CORPUS / "sources.json").read_text())}
    files = corpus_files()
    counts: dict[str, int] = {}
    for v in verdicts.values():
        key = "disagree" if v.startswith("disagree") else v
        counts[key] = counts.get(key, 0) + 1
    lines = [
        "# Pasted configs checked against transformers",
        "",
        "Generated by `PYTHONPATH=. .venv/bin/python -m tests.oracle --docs`; "
        "`tests/test_hfconfig_oracle.py` fails when this page is out of date.",
        "",
        "Each real `config.json` of `tests/data/corpus/` (sources in `SOURCES.md` there) and of "
        "`tests/data/configs/` (`review--`) is read by the app's reader "
        "(`explainer.hfconfig.parse_config`) and built by transformers "
        "on the meta device (`tests/oracle.py`, results in `tests/data/corpus/oracle.json`). "
        "**agree**: per layer the same kind, window/chunk and values per token (so the same "
        "bytes per token at 16 bits) and parameters within 1 %; **both refuse**: an "
        "encoder-decoder or a model without attention layers, refused by both. Where "
        "transformers has no class for a config (remote code), the hand-written truth of "
        "`tests/data/corpus/truths.json` stands in (marked *truth*).",
        "",
        f"{len(verdicts)} configs: " + ", ".join(
            f"{counts.get(k, 0)} {k}" for k in ("agree", "both refuse", "disagree")) + ". "
        f"{len(sources)} of them are `config.json` files copied from public repositories "
        "(the source column: repository, path and commit); the others are the review's "
        "test vectors.",
        "",
        "| config | model_type | source (repository, path @ commit) | built by "
        "| layers (kind × count) | KV B/token (16-bit) | parameters | verdict |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for name in sorted(verdicts):
        r = results[name]
        by = r.get("class", r["status"])
        if r["status"] == "unbuildable" and name in truths:
            r, by = truths[name], "*truth*"
        mt = r.get("model_type") or (sources.get(name + ".json") or {}).get("model_type") or ""
        if r["status"] == "built":
            kinds: dict[str, int] = {}
            for k, span, *_ in r["layers"]:
                label = f"{k} {span}" if span else k
                kinds[label] = kinds.get(label, 0) + 1
            layers = ", ".join(f"{k} × {n}" for k, n in kinds.items())
            kv = f"{sum(e[2] for e in r['layers']) * 2:,}"
            params = f"{r['params'] / 1e9:.3f} B"
        else:
            layers, kv, params = f"refused: {r['why']}", "", ""
        src = sources.get(name + ".json")
        where = (f"{src['repository']} `{src['path']}` @{src['commit'][:12]}" if src
                 else f"`tests/data/configs/{files[name].name}` "
                      "(a review test vector, see its README)")
        lines.append(f"| {name} | {mt} | {where} | {by} | {layers} | {kv} | {params} "
                     f"| {verdicts[name]} |")
    lines += ["", "## Disagreements left", ""]
    if KNOWN:
        lines += ["| config | why |", "|---|---|"]
        lines += [f"| {n} | {why} |" for n, why in sorted(KNOWN.items())]
    else:
        lines.append("None.")
    lines += ["", "KV B/token sums every layer's K/V (windowed layers included, as if the "
              "context were within the window); state layers hold a fixed state not "
              "counted here.", ""]
    lines += types_text(files)
    return "\n".join(lines)


def types_text(files: dict[str, Path]) -> list[str]:
    """docs/configs.md's table of every decoder model_type and how it is covered."""
    from tests.test_hfconfig_types import CACHE, KNOWN_TYPES, UNBUILT_TYPES, type_verdicts

    real: dict[str, int] = {}
    for path in files.values():
        try:
            mt = load(path).get("model_type")
        except (ValueError, AttributeError):
            continue
        if isinstance(mt, str):
            real[mt] = real.get(mt, 0) + 1
    verdicts = type_verdicts()
    counts = {"real": sum(1 for mt in verdicts if real.get(mt))}
    for v in verdicts.values():
        key = v.split(":")[0]
        counts[key] = counts.get(key, 0) + 1
    lines = [
        f"## Every decoder model_type of transformers {CACHE['transformers']}", "",
        "`tests/oracle_types.py` lists them from transformers' auto mappings (a class for "
        "causal LM or image-text-to-text, less the encoder-only families, which also have a "
        "masked-LM class, and the encoder-decoders) and builds each from transformers' "
        "default config (`AutoConfig.for_model`); `tests/test_hfconfig_types.py` gives the "
        "reader that config's `to_dict()` and holds it to the same verdicts as the corpus "
        "(results cached in `tests/data/oracle_types.json`). **real**: how many corpus or "
        "review configs of the type are checked above.", "",
        f"{len(verdicts)} types: {counts['real']} with real configs; default configs: "
        + ", ".join(f"{counts.get(k, 0)} {k}" for k in ("agree", "both refuse", "disagree",
                                                       "unbuilt")) + ".", "",
        "| model_type | real | default config | reason |", "|---|---|---|---|",
    ]
    for mt in sorted(verdicts):
        v = verdicts[mt]
        short = v.split(":")[0]
        why = KNOWN_TYPES.get(mt) or UNBUILT_TYPES.get(mt) or ""
        why = why.replace("|", "\\|")
        lines.append(f"| {mt} | {real.get(mt, '')} | {short} | {why} |")
    return lines + [""]


def main(argv: list[str]) -> int:
    import resource

    t0 = time.perf_counter()
    import torch  # noqa: F401
    from transformers import AutoModelForCausalLM  # noqa: F401  (the real import)
    from transformers.models.auto.configuration_auto import CONFIG_MAPPING  # noqa: F401
    t_import = time.perf_counter() - t0
    if argv == ["--docs"]:
        DOCS.write_text(docs_text())
        (CORPUS / "SOURCES.md").write_text(sources_text())
        return 0
    files = corpus_files()
    results, times = {}, {}
    for name, path in files.items():
        t = time.perf_counter()
        results.update(compute_all([name]))
        times[name] = time.perf_counter() - t
    if "--write" in argv:
        ORACLE_FILE.write_text(json.dumps(results, indent=1, sort_keys=True) + "\n")
    if "--docs" in argv:
        DOCS.write_text(docs_text())
        (CORPUS / "SOURCES.md").write_text(sources_text())
    if "--time" in argv or "--write" in argv:
        built = [times[n] for n, r in results.items() if r["status"] == "built"]
        print(f"import torch + transformers: {t_import:.2f} s; peak RSS "
              f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB")
        if built:
            built.sort()
            print(f"built {len(built)}: median {built[len(built) // 2]:.3f} s, "
                  f"max {built[-1]:.3f} s, total {sum(times.values()):.1f} s")
    report(results)
    return 0


def report(results: dict, head: str = "") -> None:
    """Print the count of each status and why each config not built was not."""
    counts: dict[str, int] = {}
    for r in results.values():
        counts[r["status"]] = counts.get(r["status"], 0) + 1
    print(f"{head}{counts}")
    for n, r in results.items():
        if r["status"] != "built":
            print(f"  {n}: {r['status']}: {r['why']}")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
