"""The page's JavaScript, from the ES modules in `steps/ui/js/` to the one file the browser
loads (`Page._bundle`).

The modules import each other by relative path (`import { h } from "./dom.js";`), which a
browser cannot resolve for a module Panel serves on its own, so they are joined here: each
module once, after the modules it imports, in a scope of its own (a function that returns its
exports), its import lines turned into reads of those exports. The entry's exports are
exported again at the end. Run `python -m steps.ui.bundle` to write it; the app writes it at
import when a module changed (`build`). `exposing=True` makes a variant for tests that puts
every module's exports on `globalThis.KV["draw/arcs.js"]` etc. instead.
"""
from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path

JS = Path(__file__).resolve().parent / "js"
ENTRY = JS / "page.js"
OUT = JS / "dist" / "page.bundle.js"

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


def build(out: Path = OUT) -> Path:
    """Write the bundle if it differs from the modules (atomically: several server processes
    may start at once)."""
    text = source()
    if out.exists() and out.read_text(encoding="utf-8") == text:
        return out
    out.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=out.parent, suffix=".tmp")
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, out)
    return out


if __name__ == "__main__":
    print(build())
