"""Train the live model on the corpus in assets/corpus, deterministically, on the CPU.

    python -m explainer.train            # all three variants: mha, gqa, mqa
    python -m explainer.train --variant mha --steps 300

Writes assets/vocab.json and assets/model_<variant>.pt (fp16 weights + config).
The three variants share the recipe and the seed; they differ only in n_kv_heads.
"""
from __future__ import annotations

import argparse
import math
import time
from pathlib import Path

import torch

from .model import Config, Decoder
from .tokenizer import Tokenizer, split

ASSETS = Path(__file__).resolve().parent.parent / "assets"
CORPUS = ASSETS / "corpus"
LANGS = ("en", "id", "pl", "nl")
VARIANTS = {"mha": 4, "gqa": 2, "mqa": 1}     # name -> n_kv_heads (n_heads = 4)
MAX_VOCAB = 2400
SEED = 1234

# the recipe: small enough for 2 CPU cores in about a minute a variant
RECIPE = dict(steps=600, batch=32, seq_len=64, lr=3e-3, warmup=30, weight_decay=0.05,
              unk_rate=0.01)


def read_corpus(corpus_dir: Path = CORPUS) -> list[str]:
    lines = []
    for lang in LANGS:
        text = (corpus_dir / f"{lang}.txt").read_text(encoding="utf-8")
        lines += [ln.strip() for ln in text.splitlines() if ln.strip()]
    return lines


def model_config(vocab_size: int, variant: str = "mha") -> Config:
    return Config(vocab_size=vocab_size, n_kv_heads=VARIANTS[variant])


class Batches:
    """Windows of seq_len+1 tokens that start at the start of a line (prompts start there too),
    drawn with a seeded generator. A few tokens become <unk> so that embedding is trained."""

    def __init__(self, lines, tok: Tokenizer, seq_len: int, unk_rate: float, seed: int):
        ids, starts = [], []
        for ln in lines:
            starts.append(len(ids))
            ids += tok.encode(ln)
        ids += ids[: seq_len + 1]                       # wrap around for windows near the end
        self.ids = torch.tensor(ids)
        self.starts = torch.tensor(starts)
        self.seq_len, self.unk_rate, self.unk_id = seq_len, unk_rate, tok.unk_id
        self.g = torch.Generator().manual_seed(seed)

    def next(self, batch: int):
        s = self.starts[torch.randint(len(self.starts), (batch,), generator=self.g)]
        idx = s[:, None] + torch.arange(self.seq_len + 1)[None, :]
        xy = self.ids[idx]
        x, y = xy[:, :-1].clone(), xy[:, 1:]
        drop = torch.rand(x.shape, generator=self.g) < self.unk_rate
        x[drop] = self.unk_id
        return x, y


def train(cfg: Config, lines, tok: Tokenizer, steps: int, batch: int, seq_len: int, lr: float,
          warmup: int, weight_decay: float, unk_rate: float, seed: int = SEED, log=print):
    """Returns (model, losses). Same inputs and seed -> same weights (CPU, deterministic)."""
    torch.manual_seed(seed)
    torch.use_deterministic_algorithms(True)
    model = Decoder(cfg)
    data = Batches(lines, tok, seq_len, unk_rate, seed)
    decay = [p for n, p in model.named_parameters() if p.dim() >= 2]
    no_decay = [p for n, p in model.named_parameters() if p.dim() < 2]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": weight_decay},
                             {"params": no_decay, "weight_decay": 0.0}], lr=lr, betas=(0.9, 0.95))
    losses = []
    t0 = time.time()
    for step in range(steps):
        # linear warmup, then cosine decay to 10 %
        f = (step + 1) / warmup if step < warmup else \
            0.1 + 0.45 * (1 + math.cos(math.pi * (step - warmup) / max(1, steps - warmup)))
        for group in opt.param_groups:
            group["lr"] = lr * f
        x, y = data.next(batch)
        logits = model(x)
        loss = torch.nn.functional.cross_entropy(logits.reshape(-1, cfg.vocab_size), y.reshape(-1))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        losses.append(loss.item())
        if log and (step % 100 == 0 or step == steps - 1):
            log(f"step {step:4d}  loss {loss.item():.3f}  {time.time() - t0:5.1f}s")
    model.eval()
    return model, losses


def save(model: Decoder, path: Path):
    """fp16 weights (half the bytes; the app computes in fp32) + the config."""
    state = {k: v.half() for k, v in model.state_dict().items() if k != "head.weight"}
    torch.save({"config": model.cfg.to_dict(), "state": state}, path)


def load(path: Path, device=None) -> Decoder:
    ckpt = torch.load(path, map_location="cpu", weights_only=True)
    model = Decoder(Config(**ckpt["config"]))
    state = {k: v.float() for k, v in ckpt["state"].items()}
    state["head.weight"] = state["embed.weight"]          # tied
    model.load_state_dict(state)
    return model.to(device).eval()


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--variant", choices=[*VARIANTS, "all"], default="all")
    ap.add_argument("--steps", type=int, default=RECIPE["steps"])
    ap.add_argument("--out", type=Path, default=ASSETS)
    ap.add_argument("--threads", type=int, default=2, help="CPU threads (fixed for repeatability)")
    a = ap.parse_args(argv)
    torch.set_num_threads(a.threads)
    lines = read_corpus()
    tok = Tokenizer.build(lines, max_size=MAX_VOCAB)
    a.out.mkdir(parents=True, exist_ok=True)
    tok.save(a.out / "vocab.json")
    print(f"{len(lines)} lines, {sum(len(split(l)) for l in lines)} tokens, vocabulary {len(tok)}")
    for name in (VARIANTS if a.variant == "all" else [a.variant]):
        cfg = model_config(len(tok), name)
        print(f"== {name}: n_kv_heads={cfg.n_kv_heads}")
        recipe = {**RECIPE, "steps": a.steps}
        model, _ = train(cfg, lines, tok, **recipe)
        save(model, a.out / f"model_{name}.pt")
        print(f"   {model.n_params():,} parameters -> {a.out / f'model_{name}.pt'}")


if __name__ == "__main__":
    main()
