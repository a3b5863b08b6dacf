"""The page's JavaScript, from the ES modules in `steps/ui/js/` to the one file the browser
loads (`Page._bundle`), and its stylesheet, from the CSS files beside them to the one the
page's component loads (`Page._stylesheets`: `steps/ui/app.css`).

The modules import each other by relative path (`import { h } from "./dom.js";`), which a
browser cannot resolve for a module Panel serves on its own, so they are joined here: each
module once, after the modules it imports, in a scope of its own (a function that returns its
exports), its import lines turned into reads of those exports. The entry's exports are
exported again at the end. Run `python -m steps.ui.bundle` to write it; the app writes it at
import when a module changed (`build`). `exposing=True` makes a variant for tests that puts
every module's exports on `globalThis.KV["draw/arcs.js"]` etc. instead.

The stylesheet is written the same way (`css_source`, `build`). Its parts (`css_parts`): the
page's own rules (`assets/app.css`: the colour table, the shell, blocks, controls, stage, page
modes), then the rules of each module that has a `.css` file beside it, in the bundle's order
(`js/draw/<name>.css`: a figure's rules beside its renderer), then each page's own
(`steps/<package>/style.css`, found through `steps.registry`), in the steps' order. A part's
presenter-mode rules start at its line that begins with `/* presenter mode`; they are joined
after every part's other rules (the parts' presenter-mode rules in the same order), so that
they stay after the rules they override, as in one file written top to bottom.
"""
from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path

JS = Path(__file__).resolve().parent / "js"
ENTRY = JS / "page.js"
OUT = JS / "dist" / "page.bundle.js"
CSS_BASE = JS.parents[2] / "assets" / "app.css"
CSS_OUT = JS.parent / "app.css"
PRESENTING = "/* presenter mode"

IMPORT = re.compile(r'^import\s*\{([^}]*)\}\s*from\s*"(\.{1,2}/[^"]+)";\s*$', re.M)
ANY_IMPORT = re.compile(r"^\s*import\b", re.M)
DECLARED = re.compile(r"^(export\s+)?(?:async\s+)?(?:function\*?|const|let|class)\s+([A-Za-z_$][\w$]*)",
                      re.M)


def modules(entry: Path = ENTRY) -> list[Path]:
    """The entry and every module it imports, each after the modules it imports."""
    order: list[Path] = []
    seen: set[Path] = set()

    def visit(path: Path, stack: tuple) -> None:
        if path in stack:
            raise ValueError(f"import cycle: {' -> '.join(p.name for p in (*stack, path))}")
        if path in seen:
            return
        text = path.read_text(encoding="utf-8")
        for _names, rel in IMPORT.findall(text):
            visit((path.parent / rel).resolve(), (*stack, path))
        seen.add(path)
        order.append(path)
    visit(entry.resolve(), ())
    return order


def exported(text: str) -> list[str]:
    return [name for export, name in DECLARED.findall(text) if export]


def _var(path: Path) -> str:
    return "$" + re.sub(r"\W", "_", path.relative_to(JS).as_posix()[:-3])


def source(entry: Path = ENTRY, exposing: bool = False) -> str:
    parts = []
    order = modules(entry)
    for path in order:
        text = path.read_text(encoding="utf-8")
        reads = [f"  const {{ {names.strip()} }} = {_var((path.parent / rel).resolve())};"
                 for names, rel in IMPORT.findall(text)]
        body = IMPORT.sub("", text)
        if ANY_IMPORT.search(body):
            raise ValueError(f"{path.name}: only `import {{ ... }} from \"./x.js\";` lines")
        body = re.sub(r"^export\s+", "", body, flags=re.M).strip()
        parts.append(f"// ---- {path.relative_to(JS).as_posix()}\n"
                     f"const {_var(path)} = (() => {{\n" + "\n".join(reads) + "\n"
                     + body + f"\nreturn {{ {', '.join(exported(text))} }};\n}})();\n")
    if exposing:
        tail = "globalThis.KV = {\n" + ",\n".join(
            f'  "{p.relative_to(JS).as_posix()}": {_var(p)}' for p in order) + "\n};"
    else:
        tail = "\n".join(f"export const {n} = {_var(order[-1])}.{n};"
                         for n in exported(entry.read_text(encoding="utf-8")))
    head = "// Built by steps/ui/bundle.py from steps/ui/js/: edit those files, not this one.\n"
    return head + "\n".join(parts) + tail + "\n"


def css_parts(entry: Path = ENTRY) -> list[Path]:
    """The stylesheet's files, in order: the page's own, each module's (`x.css` beside `x.js`,
    in the bundle's order), each page's (`steps/<package>/style.css`, in the steps' order)."""
    from steps import registry
    pages = [registry.stylesheet(n) for n in (*registry.NUMBERS, registry.END)]
    return [CSS_BASE, *(p for p in (m.with_suffix(".css") for m in modules(entry)) if p.is_file()),
            *(p for p in pages if p is not None)]


def css_halves(path: Path) -> tuple[str, str]:
    """A part's own rules and its presenter-mode rules (from its line that begins with
    `PRESENTING`; "" when it has none)."""
    text = path.read_text(encoding="utf-8")
    at = text.find("\n" + PRESENTING)
    return (text, "") if at < 0 else (text[:at + 1], text[at + 1:])


def _name(path: Path) -> str:
    try:
        return path.resolve().relative_to(JS.parents[2]).as_posix()
    except ValueError:                  # a step package outside the repository
        return path.name


def css_source(parts: list[Path] | None = None) -> str:
    """The page's one stylesheet: every part's rules, then every part's presenter-mode rules."""
    rules, presenting = [], []
    for path in parts if parts is not None else css_parts():
        own, present = css_halves(path)
        rules.append(f"/* ---- {_name(path)} */\n" + own.strip() + "\n")
        if present.strip():
            presenting.append(f"/* ---- {_name(path)}: presenter mode */\n" + present.strip() + "\n")
    head = ("/* Built by steps/ui/bundle.py from assets/app.css and the .css files beside the "
            "modules and in the steps' packages: edit those files, not this one. */\n")
    return head + "\n".join(rules + presenting)


def _write(out: Path, text: str) -> Path:
    """Write `out` if it differs from `text` (atomically: several server processes may start
    at once)."""
    if out.exists() and out.read_text(encoding="utf-8") == text:
        return out
    out.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=out.parent, suffix=".tmp")
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(text)
    os.chmod(tmp, 0o644)                # (mkstemp's 0600) readable like the sources
    os.replace(tmp, out)
    return out


def build(out: Path = OUT, css_out: Path = CSS_OUT) -> Path:
    """Write the bundle and the stylesheet where they differ from their sources."""
    _write(css_out, css_source())
    return _write(out, source())


if __name__ == "__main__":
    print(build(), CSS_OUT)
