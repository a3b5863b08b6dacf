"""The page's one stylesheet, joined by steps/ui/bundle.py from the page's own rules
(assets/app.css), each figure's (steps/ui/js/draw/<name>.css, beside its renderer) and each
page's (steps/<package>/style.css): every part is in it, in order, presenter mode's rules after
every part's other rules; the component loads a built file, not a link."""
from __future__ import annotations

import re

from steps import registry
from steps.ui import bundle


def test_the_stylesheet_holds_every_part_in_order():
    parts = bundle.css_parts()
    css = bundle.css_source()
    at, seen = 0, []
    for own, _ in map(bundle.css_halves, parts):           # every part's own rules, in order ...
        at = css.index(own.strip(), at)
        seen.append(at)
    for _, present in map(bundle.css_halves, parts):       # ... then every presenter-mode part, in order
        if present.strip():
            at = css.index(present.strip(), at)
            seen.append(at)
    assert seen == sorted(seen)


def test_every_css_file_is_a_part():
    """A figure's rules sit beside its renderer (a module the bundle reaches); each page's in
    its package; no stylesheet lies about that nothing joins."""
    parts = set(bundle.css_parts())
    beside = {p for p in bundle.JS.rglob("*.css") if "dist" not in p.parts}
    assert beside <= parts, sorted(map(str, beside - parts))
    assert all(p.with_suffix(".js").is_file() for p in beside)
    pages = {registry.stylesheet(n) for n in (*registry.NUMBERS, registry.END)} - {None}
    assert pages <= parts
    packages = {p for p in bundle.JS.parents[2].glob("steps/*/style.css")}
    assert packages == pages, sorted(map(str, packages ^ pages))
    # the figures and the steps with rules of their own
    names = {p.name if p.parent.name == "draw" else p.parent.name for p in parts}
    assert {"arcs.css", "grids.css", "cache.css", "roofline.css", "bill.css", "pool.css",
            "strip.css", "step5", "step6", "ending"} <= names


def test_no_rule_is_for_a_host_that_never_has_the_class():
    """The page's component is one element (`Page`): `:host(.x)` matched the old kit's panes."""
    for path in bundle.css_parts():
        assert not re.search(r":host\(", path.read_text(encoding="utf-8")), path


def test_the_component_loads_the_built_stylesheet():
    """steps/ui/app.css is the join, written when the modules are (a plain file: a link to
    assets/ would not check out on Windows)."""
    bundle.build()
    assert not bundle.CSS_OUT.is_symlink()
    assert bundle.CSS_OUT.read_text(encoding="utf-8") == bundle.css_source()
    from steps.ui.page import Page
    assert Page._stylesheets == [bundle.CSS_OUT.name]
    assert bundle.CSS_OUT.parent == bundle.JS.parent
