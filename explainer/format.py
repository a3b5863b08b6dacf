"""One formatting policy for bytes, GPU memory and axis ticks (no Panel).

The byte formatters take the session's Translator, whose number helpers
(`explainer.i18n.Translator.num`, `.sig`, `.bytes`) write the locale's separators:

    bytes_bin(2**31, tr)                    -> "2 GiB"       (pl: "2 GiB")
    bytes_bin(1.625 * 2**30, tr)            -> "1.6 GiB"     (pl: "1,6 GiB")
    bytes_bin(4224, tr, precise=True)       -> "4.125 KiB"   (pl: "4,125 KiB")
    bytes_dec(2**31, tr)                    -> "2.1 GB"      (pl: "2,1 GB")
    gib(80, tr)                             -> "80 GiB"

Between number and unit is a no-break space (U+00A0). The tick functions return numbers
only; the text layer writes their labels (`tr.int(t)`, `tr.num(t, digits)`).
"""
from __future__ import annotations

import math

from explainer.i18n import UNITS, Translator, auto_unit


# -- bytes -----------------------------------------------------------------------------------

def bytes_bin(n: float, tr: Translator, precise: bool = False) -> str:
    """`n` bytes in the largest binary unit it reaches (B, KiB, MiB, GiB, TiB).

    By default a whole value has no decimals and any other one: "2 GiB", "512 KiB", "1.6 GiB".
    With `precise`, a value that three or fewer decimals state exactly is written with the
    fewest that do ("4.125 KiB"), any other with three significant figures ("1.63 GiB"):
    for sizes that are compared digit by digit. Zero is "0 B" either way."""
    unit = auto_unit(n, binary=True)
    value = n / UNITS[unit]
    for digits in range(4 if precise else 1):
        if abs(round(value, digits) - value) < 1e-9:
            return tr.bytes(n, unit, digits)
    if precise:
        return f"{tr.sig(value, 3)}\u00a0{unit}"
    return tr.bytes(n, unit, 1)


def bytes_dec(n: float, tr: Translator) -> str:
    """`n` bytes in the largest decimal unit it reaches (B, KB, MB, GB, TB), one decimal:
    "2.1 GB", "34.6 MB" (bytes themselves without decimals: "512 B")."""
    return tr.bytes(n, "auto", 1)


def gib(n_gib: float, tr: Translator) -> str:
    """A GPU's memory in the vendor's binary units, whole: “80 GiB” (sold as “80 GB”)."""
    return tr.bytes(n_gib * UNITS["GiB"], "GiB", 0)


# -- axis ticks ------------------------------------------------------------------------------

def int_ticks(lo: int, hi: int, max_n: int = 8) -> list[int]:
    """Ticks for a count axis that starts at `lo`: `lo`, then multiples of one step (1, 5, 10,
    20, 25, 50 or 100, the smallest that gives about `max_n` ticks) up to `hi`; a multiple
    closer to `lo` than half a step is left out. One even spacing: 1, 5, 10, 15 rather than
    1, 2, 4, 6."""
    for step in (1, 5, 10, 20, 25, 50, 100):
        if (hi - lo) / step <= max_n:
            break
    return [lo] + [v for v in range(step, hi + 1, step) if v - lo >= max(1, step // 2)]


def decimal_ticks(hi: float, n: int = 5) -> tuple[list[float], int]:
    """Ticks for a value axis from 0 to `hi`: (ticks, digits). The step is 1, 2, 2.5 or 5
    times a power of ten, the smallest that needs at most `n` steps to reach `hi`; `digits` is
    how many decimals their labels need (`tr.num(t, digits)`)."""
    raw = hi / max(1, n)
    mag = 10 ** math.floor(math.log10(raw)) if raw > 0 else 1
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
    ticks = [round(i * step, 10) for i in range(int(hi / step + 1e-9) + 1)]
    digits = max(0, -math.floor(math.log10(step))) if step < 1 else (1 if step % 1 else 0)
    return ticks, digits
