"""TypedDicts turned into a JSON Schema (draft-07) and into JSDoc typedefs: the page's state is
written once, as TypedDicts (`steps/ui/state.py` and the presenters' figure payloads), and both
the tests' checks and the renderers' comments are made from it.

`Schema(overrides)` converts annotations one by one (`of`): str, int, float, bool, None, Any,
list[X], tuple[X, ...] (an array of X), tuple[A, B] (an array of exactly those items: JSON has
no tuples, so a presenter may build it as a list), dict[str, X], Literal[...], unions (`A | B`:
`anyOf`; one `type` list when every member is a plain JSON type, one `enum` when every member
is a Literal or None) and TypedDicts. A TypedDict becomes a definition of its own under its
class name (`#/definitions/Name`), closed (`additionalProperties: false`), each key required
unless the class is `total=False` or the key is `NotRequired[...]`; its docstring and each
field's trailing `# comment` are the descriptions. Definitions are made once, so a recursive
type (a details block holding blocks) is a `$ref` to itself. `overrides` maps a TypedDict to
the schema used wherever it is named (the state's stage and widget, whose real shape depends
on the renderer: `state.json_schema`).

`validator(schema)` compiles a schema into a checking function once (fastjsonschema, a test
requirement: it writes Python code for the schema), and `explain` makes its message precise
where a value matches no member of a union: the members are told apart by the fields each
fixes to its own values (a block's `kind`), the one the value can be is checked alone, and its
error is the one reported.
"""
from __future__ import annotations

import ast
import functools
import inspect
import json
import re
import sys
import types
import typing
from typing import Any, Literal, NotRequired, Required, Union, get_args, get_origin

DRAFT = "http://json-schema.org/draft-07/schema#"
PLAIN = {str: "string", bool: "boolean", int: "integer", float: "number", type(None): "null"}
JS = {"string": "string", "boolean": "boolean", "integer": "number", "number": "number",
      "null": "null"}


def fields(td) -> dict[str, tuple[Any, bool]]:
    """{key: (annotation without Required/NotRequired, required)} of a TypedDict. Python 3.11
    does not see `NotRequired` in string annotations (`from __future__ import annotations`)
    in `__required_keys__`, so it is read here from the resolved hints; `__optional_keys__`
    still says which keys a `total=False` class (or base) leaves optional."""
    out = {}
    for name, tp in typing.get_type_hints(td, include_extras=True).items():
        required = name not in td.__optional_keys__
        if get_origin(tp) in (NotRequired, Required):
            required, tp = get_origin(tp) is Required, get_args(tp)[0]
        out[name] = (tp, required)
    return out


@functools.lru_cache(maxsize=None)
def _source(module: str) -> tuple[dict[str, ast.ClassDef], list[str]]:
    """A module's top-level classes by name, and its lines (read and parsed once)."""
    try:
        text = inspect.getsource(sys.modules[module])
    except (OSError, TypeError):
        return {}, []
    tree = ast.parse(text)
    return {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}, text.splitlines()


def bases(td) -> list:
    """The TypedDicts that a TypedDict's class statement names (Python 3.11 keeps none of them:
    a TypedDict's only base is dict), found in its module by name."""
    node, names = _source(td.__module__)[0].get(td.__name__), vars(sys.modules[td.__module__])
    return [names[b.id] for b in (node.bases if node else ())
            if isinstance(b, ast.Name) and typing.is_typeddict(names.get(b.id))]


def comments(td) -> dict[str, str]:
    """Each field's trailing `# comment` in the class's source (a comment line under it, more
    indented than its name, goes on), its bases' first: the field's description."""
    out, last, indent = {}, None, 0
    for base in bases(td):
        out.update(comments(base))
    classes, source = _source(td.__module__)
    node = classes.get(td.__name__)
    if node is None:
        return out
    end = node.end_lineno                    # and the comment lines under its last field
    while end < len(source) and re.match(r"\s+#", source[end]):
        end += 1
    lines = source[node.lineno - 1:end]
    for line in lines[1:]:
        m = re.match(r"(\s+)(\w+)\s*:[^#]*?(?:#\s*(.*))?$", line)
        cont = re.match(r"(\s+)#\s*(.*)$", line)
        if m and m.group(2) in td.__annotations__:
            last, indent = m.group(2), len(m.group(1))
            if m.group(3):
                out[last] = m.group(3).strip()
        elif cont and last in out and len(cont.group(1)) > indent:
            out[last] += " " + cont.group(2).strip()
        else:
            last = None
    return out


class Schema:
    """One conversion: `of(tp)` the schema of an annotation, `definitions` those it made."""

    def __init__(self, overrides: dict | None = None):
        self.overrides = overrides or {}
        self.definitions: dict[str, dict] = {}
        self.types: dict[str, Any] = {}       # definition name -> its TypedDict

    def of(self, tp) -> dict:
        if tp in self.overrides:
            return self.overrides[tp]
        if tp is Any:
            return {}
        if hasattr(tp, "__supertype__"):              # typing.NewType (state.JSONText)
            return self.of(tp.__supertype__)
        if tp in PLAIN:
            return {"type": PLAIN[tp]}
        if typing.is_typeddict(tp):
            return {"$ref": f"#/definitions/{self.define(tp)}"}
        origin, args = get_origin(tp), get_args(tp)
        if origin is Literal:
            return {"const": args[0]} if len(args) == 1 else {"enum": list(args)}
        if origin in (Union, types.UnionType):
            parts = []                        # a member that is a union: its members
            for a in args:
                part = self.of(a)
                parts += part["anyOf"] if set(part) == {"anyOf"} else [part]
            if all(set(p) == {"type"} for p in parts):
                return {"type": [p["type"] for p in parts]}
            if all(set(p) in ({"const"}, {"enum"}) or p == {"type": "null"} for p in parts):
                return {"enum": [v for p in parts for v in
                                 ([p["const"]] if "const" in p else p.get("enum", [None]))]}
            return {"anyOf": parts}
        if origin is list:
            return {"type": "array", "items": self.of(args[0])}
        if origin is tuple:
            if len(args) == 2 and args[1] is Ellipsis:
                return {"type": "array", "items": self.of(args[0])}
            return {"type": "array", "items": [self.of(a) for a in args],
                    "minItems": len(args), "additionalItems": False}
        if origin is dict and args[0] is str:
            return {"type": "object", "additionalProperties": self.of(args[1])}
        raise TypeError(f"no JSON Schema for {tp!r}")

    def define(self, td) -> str:
        """The definition of a TypedDict, made once (its name is reserved first, so that a
        type that holds itself refers to it)."""
        name = td.__name__
        if name in self.types:
            assert self.types[name] is td, f"two TypedDicts named {name}"
            return name
        self.types[name] = td
        self.definitions[name] = {}
        hints, notes = fields(td), comments(td)
        props = {}
        for key, (tp, _) in hints.items():
            props[key] = dict(self.of(tp))
            if key in notes:
                props[key] = ({"description": notes[key], **props[key]} if "$ref" not in
                              props[key] else {"description": notes[key],
                                               "allOf": [props[key]]})
        self.definitions[name] = {
            **({"description": inspect.cleandoc(td.__doc__)} if td.__doc__ else {}),
            "type": "object", "properties": props,
            "required": [k for k, (_, req) in hints.items() if req],
            "additionalProperties": False}
        return name


# -- JSDoc ---------------------------------------------------------------------------------------

def js_type(s: dict) -> str:
    """A JSDoc type expression for a schema made by `Schema.of`."""
    if "$ref" in s:
        return s["$ref"].rsplit("/", 1)[1]
    if "allOf" in s:
        return js_type(s["allOf"][0])
    if "const" in s:
        return json.dumps(s["const"])
    if "enum" in s:
        return "(" + "|".join(json.dumps(v) for v in s["enum"]) + ")"
    if "anyOf" in s:
        return "(" + "|".join(js_type(p) for p in s["anyOf"]) + ")"
    t = s.get("type")
    if isinstance(t, list):
        return "(" + "|".join(dict.fromkeys(JS[x] for x in t)) + ")"
    if t == "array":
        items = s["items"]
        if isinstance(items, list):
            return "[" + ", ".join(js_type(i) for i in items) + "]"
        inner = js_type(items)
        return f"Array<{inner}>" if inner.startswith("(") else inner + "[]"
    if t == "object":
        return f"Object<string, {js_type(s['additionalProperties'])}>"
    return JS.get(t, "*")


JSDOC_FIRST = "// Generated from the TypedDicts"


def jsdoc(definitions: dict, roots: list[str], skip: set[str], source: str) -> str:
    """JSDoc typedefs of the definitions `roots` and of those they use, in that order, except
    those in `skip` (named, not written): one comment block each, after a first line that says
    where they come from (`source`, the command that writes them)."""
    order, todo = [], list(roots)
    while todo:
        n = todo.pop(0)
        if n in order:
            continue
        order.append(n)
        refs = re.findall(r'"#/definitions/(\w+)"', json.dumps(definitions[n]))
        todo += [r for r in refs if r not in order and r not in skip]
    out = [f"{JSDOC_FIRST} (`{source}` writes them);",
           "// the types named here and not defined are in steps/ui/state.py."]
    for n in order:
        d = definitions[n]
        lines = [f"@typedef {{Object}} {n}"]
        lines += d.get("description", "").splitlines()
        for key, s in d["properties"].items():
            name = key if key in d["required"] else f"[{key}]"
            note = f" {s['description']}" if s.get("description") else ""
            lines.append(f"@property {{{js_type(s)}}} {name}{note}")
        out.append("/**\n" + "\n".join(f" * {ln}".rstrip() for ln in lines) + "\n */")
    return "\n".join(out)


# -- checking --------------------------------------------------------------------------------------

def validator(schema: dict):
    """`schema` compiled into a function that returns the value or raises
    `fastjsonschema.JsonSchemaValueException` (compiled once: keep the function)."""
    import fastjsonschema
    return fastjsonschema.compile(schema)


_BRANCHES: dict[str, Any] = {}


def _fixed(member: dict) -> dict:
    """{field: the values a union's member allows it} of its constant or enumerated fields."""
    return {k: [p["const"]] if "const" in p else p["enum"]
            for k, p in member.get("properties", {}).items() if "const" in p or "enum" in p}


def explain(err, value, definitions: dict) -> str:
    """The message of `err` (from a `validator`) for `value`. Where the value matched no
    member of a union, the error of the one member it can be: the union's objects are told
    apart by the fields fixed in each to different values (a block's `kind`, a stage's
    `figure`, a widget's `widget`; none for `X | None`), and the value's decide."""
    if err.rule != "anyOf":
        return err.message
    sub = value
    for step in err.path[1:]:
        sub = sub[int(step)] if isinstance(sub, list) else sub[step]
    objects = [(b, _fixed(full)) for b in err.definition["anyOf"]
               for full in [definitions[b["$ref"].rsplit("/", 1)[1]] if "$ref" in b else b]
               if full.get("type") == "object"]
    tags = {k for k in (set.intersection(*(set(f) for _, f in objects)) if objects else ())
            if len({json.dumps(f[k]) for _, f in objects}) > 1}
    branches = [b for b, f in objects if isinstance(sub, dict)
                and all(sub.get(k) in f[k] for k in tags)]
    if len(branches) != 1:
        return f"{err.message}: {json.dumps(sub, ensure_ascii=False)[:200]}"
    key = json.dumps(branches[0], sort_keys=True)
    if key not in _BRANCHES:
        _BRANCHES[key] = validator({"definitions": definitions, **branches[0]})
    try:
        _BRANCHES[key](sub)
    except type(err) as inner:
        return err.name + explain(inner, sub, definitions).removeprefix("data")
    return err.message
