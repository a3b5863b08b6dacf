"""The suite collects as one: pytest imports test modules by basename (rootdir-relative, no
packages), so a browser test may not share a file name with a unit test."""
from pathlib import Path

HERE = Path(__file__).parent


def test_no_test_module_name_is_used_twice():
    unit = {p.name for p in HERE.glob("test_*.py")}
    browser = {p.name for p in (HERE / "browser").glob("test_*.py")}
    assert unit & browser == set()
