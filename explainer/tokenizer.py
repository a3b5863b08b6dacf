"""Word-level tokenizer: one token per word or punctuation mark, so a learner sees words.

Case and diacritics are kept (`Paryż`, `Stolicą`, `België`); punctuation is split off;
a word outside the vocabulary becomes `<unk>`. decode() joins tokens with single spaces and
re-attaches punctuation, so text in normal spelling round-trips.
"""
from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

UNK = "<unk>"
SPECIALS = (UNK,)
# a word (letters/digits, with inner apostrophes or hyphens: "l'eau", "Noord-Holland"),
# or any single other non-space character
TOKEN_RE = re.compile(r"\w+(?:['’-]\w+)*|[^\w\s]")
_NO_SPACE_BEFORE = set(".,;:!?)]}%…»”")
_NO_SPACE_AFTER = set("([{«„“")


def split(text: str) -> list[str]:
    return TOKEN_RE.findall(text)


class Tokenizer:
    def __init__(self, vocab: list[str]):
        if list(vocab[: len(SPECIALS)]) != list(SPECIALS):
            raise ValueError(f"the vocabulary must start with {SPECIALS}")
        self.itos = list(vocab)
        self.stoi = {w: i for i, w in enumerate(self.itos)}
        self.unk_id = self.stoi[UNK]

    def __len__(self):
        return len(self.itos)

    @classmethod
    def build(cls, texts, max_size: int | None = None, min_count: int = 1) -> "Tokenizer":
        """Most frequent words first; ties broken alphabetically so the build is deterministic."""
        counts = Counter(t for text in texts for t in split(text))
        words = sorted((w for w, c in counts.items() if c >= min_count),
                       key=lambda w: (-counts[w], w))
        if max_size is not None:
            words = words[: max_size - len(SPECIALS)]
        return cls(list(SPECIALS) + words)

    def encode(self, text: str) -> list[int]:
        return [self.stoi.get(t, self.unk_id) for t in split(text)]

    def tokens(self, text: str) -> list[str]:
        """The tokens the model sees, with unknown words shown as <unk>."""
        return [t if t in self.stoi else UNK for t in split(text)]

    def unknown(self, text: str) -> list[str]:
        return [t for t in split(text) if t not in self.stoi]

    def decode(self, ids) -> str:
        return join([self.itos[i] for i in ids])

    def save(self, path: Path):
        Path(path).write_text(json.dumps(self.itos, ensure_ascii=False, indent=0), encoding="utf-8")

    @classmethod
    def load(cls, path: Path) -> "Tokenizer":
        return cls(json.loads(Path(path).read_text(encoding="utf-8")))


def spaced(tokens: list[str]) -> list[bool]:
    """Per token, whether a space comes before it as text is written: none before the
    first token, before punctuation that closes (".", ",", ")") nor after one that opens
    ("(", "„"). What `join` writes, for a page that marks tokens one by one."""
    out, last = [], ""                      # the last character written so far
    for t in tokens:
        out.append(bool(last) and t not in _NO_SPACE_BEFORE and last not in _NO_SPACE_AFTER)
        last = t[-1:] or last
    return out


def join(tokens: list[str]) -> str:
    return "".join((" " if sp else "") + t for t, sp in zip(tokens, spaced(tokens)))
