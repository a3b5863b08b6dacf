"""Decode speed of the live model with and without the KV cache, on this machine.

    python benchmarks/bench_decode.py [--variant mha] [--repeats 5] [--new 64]

For prompts of 5, 64, 256 and 512 tokens (real corpus text) it generates 64 tokens greedily
and prints the median time per generated token with the cache (one-token decode steps) and
without it (the whole sequence recomputed every step), their ratio, and prefill tokens/s vs
decode tokens/s. Figures only: nothing here asserts a speed.
"""
from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from explainer import runtime as rt  # noqa: E402
from explainer.runtime import _generate  # noqa: E402  (uncached: measure, don't memoise)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--variant", default="mha", choices=rt.VARIANT_NAMES)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--new", type=int, default=64)
    ap.add_argument("--prompts", type=int, nargs="+", default=[5, 64, 256, 512])
    a = ap.parse_args(argv)
    facts = rt.model_facts(a.variant)
    print(f"live model {a.variant}: {facts['n_layers']} layers, {facts['n_heads']} heads "
          f"({facts['n_kv_heads']} KV), head_dim {facts['head_dim']}, {facts['n_params']:,} "
          f"parameters, device {facts['device']}; median of {a.repeats} runs, {a.new} new tokens")
    ids_all = rt.corpus_ids()
    _generate(a.variant, ids_all[:8], 4, "fp32", None, False)          # warm-up
    head = (f"{'prompt':>6} | {'ms/token cached':>15} | {'ms/token uncached':>17} | {'ratio':>6} "
            f"| {'prefill tok/s':>13} | {'decode tok/s':>12}")
    print(head)
    print("-" * len(head))
    for P in a.prompts:
        ids = ids_all[:P]
        cached, uncached, prefill = [], [], []
        for _ in range(a.repeats):
            c = _generate(a.variant, ids, a.new, "fp32", None, False)
            u = _generate(a.variant, ids, a.new, None, None, False)
            cached.append(statistics.median(c.decode_s))     # one-token decode steps
            uncached.append(statistics.median(u.times[1:]))   # same steps, prefix recomputed
            prefill.append(c.prefill_s)
        mc, mu, mp = (statistics.median(x) for x in (cached, uncached, prefill))
        print(f"{P:>6} | {mc * 1e3:>15.3f} | {mu * 1e3:>17.3f} | {mu / mc:>5.1f}× "
              f"| {P / mp:>13,.0f} | {1 / mc:>12,.0f}")


if __name__ == "__main__":
    main()
