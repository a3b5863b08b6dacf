"""explainer.format: one policy for bytes, GPU memory and axis ticks, in every locale."""
import pytest

from explainer.format import bytes_bin, bytes_dec, decimal_ticks, gib, int_ticks
from explainer.i18n import Translator

GiB, KiB = 2 ** 30, 2 ** 10
NBSP = "\u00a0"


def says(text: str) -> str:
    """The no-break space between number and unit, written as a plain one."""
    assert NBSP in text and " " not in text
    return text.replace(NBSP, " ")


@pytest.mark.parametrize("lang, comma", [("en", "."), ("pl", ","), ("nl", ",")])
def test_binary_bytes_whole_or_one_decimal(lang, comma):
    tr = Translator(lang)
    assert says(bytes_bin(2 * GiB, tr)) == "2 GiB"
    assert says(bytes_bin(512 * KiB, tr)) == "512 KiB"
    assert says(bytes_bin(1.625 * GiB, tr)) == f"1{comma}6 GiB"       # rounded half to even
    assert says(bytes_bin(4224, tr)) == f"4{comma}1 KiB"
    assert says(bytes_bin(0, tr)) == "0 B"
    assert says(bytes_bin(640, tr)) == "640 B"                         # under 1 KiB: bytes


@pytest.mark.parametrize("lang, comma", [("en", "."), ("pl", ","), ("nl", ",")])
def test_binary_bytes_precise_exact_or_three_figures(lang, comma):
    tr = Translator(lang)
    assert says(bytes_bin(2 * GiB, tr, precise=True)) == "2 GiB"
    assert says(bytes_bin(4224, tr, precise=True)) == f"4{comma}125 KiB"     # exact: 3 decimals
    assert says(bytes_bin(1.5 * GiB, tr, precise=True)) == f"1{comma}5 GiB"
    assert says(bytes_bin(1.63 * GiB, tr, precise=True)) == f"1{comma}63 GiB"  # 3 figures
    assert says(bytes_bin(123.4567 * GiB, tr, precise=True)) == "123 GiB"
    assert says(bytes_bin(0, tr, precise=True)) == "0 B"


@pytest.mark.parametrize("lang, comma", [("en", "."), ("pl", ","), ("nl", ",")])
def test_decimal_bytes_one_decimal_in_the_largest_unit(lang, comma):
    tr = Translator(lang)
    assert says(bytes_dec(2 * GiB, tr)) == f"2{comma}1 GB"
    assert says(bytes_dec(68.72e9, tr)) == f"68{comma}7 GB"
    assert says(bytes_dec(34.6e6, tr)) == f"34{comma}6 MB"
    assert says(bytes_dec(1.234e12, tr)) == f"1{comma}2 TB"
    assert says(bytes_dec(512, tr)) == "512 B"


@pytest.mark.parametrize("lang", ["en", "pl", "nl"])
def test_gib_is_a_whole_vendor_size(lang):
    tr = Translator(lang)
    assert says(gib(80, tr)) == "80 GiB"
    assert says(gib(141, tr)) == "141 GiB"


def test_bytes_and_gib_agree():
    tr = Translator("en")
    for n in (16, 24, 40, 80, 94, 141):
        assert gib(n, tr) == bytes_bin(n * GiB, tr) == bytes_bin(n * GiB, tr, precise=True)


def test_int_ticks_start_at_lo_with_one_even_step():
    assert int_ticks(1, 1) == [1]
    assert int_ticks(1, 5) == [1, 2, 3, 4, 5]
    assert int_ticks(1, 16) == [1, 5, 10, 15]           # not 1, 2, 4, 6
    assert int_ticks(1, 79) == [1, 10, 20, 30, 40, 50, 60, 70]
    assert int_ticks(0, 100) == [0, 20, 40, 60, 80, 100]
    assert int_ticks(1, 30, max_n=4) == [1, 10, 20, 30]
    for hi in range(1, 400):
        ticks = int_ticks(1, hi)
        assert ticks[0] == 1 and ticks[-1] <= hi and len(ticks) <= 10
        steps = {b - a for a, b in zip(ticks[1:], ticks[2:])}
        assert len(steps) <= 1 and all(isinstance(t, int) for t in ticks)


def test_decimal_ticks_from_zero_with_the_digits_their_labels_need():
    assert decimal_ticks(86.4, 5) == ([0, 20, 40, 60, 80], 0)
    assert decimal_ticks(150.3, 5) == ([0, 50, 100, 150], 0)
    assert decimal_ticks(10, 4) == ([0.0, 2.5, 5.0, 7.5, 10.0], 1)
    assert decimal_ticks(0.3, 4) == ([0.0, 0.1, 0.2, 0.3], 1)
    assert decimal_ticks(0, 5) == ([0], 0)
    for hi in (0.7, 1.9, 3.3, 17.2, 68.7, 240.0, 1234.5):
        for n in (3, 4, 5):
            ticks, digits = decimal_ticks(hi, n)
            assert ticks[0] == 0 and ticks[-1] <= hi + 1e-9 and len(ticks) - 1 <= n
            step = ticks[1] - ticks[0]
            assert all(abs((b - a) - step) < 1e-9 for a, b in zip(ticks, ticks[1:]))
