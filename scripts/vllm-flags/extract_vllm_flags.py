#!/usr/bin/env python3
"""
Reads the command-line flags of `vllm serve` from a vLLM source tree at one git ref, by static
analysis of the Python source (no vLLM import, so no torch / pydantic are needed), and prints them
as faultline's flag-table JSON (data/vllm-flags/<version>.json).

What it reads, as vLLM builds its parser:
  vllm/entrypoints/cli/serve.py         the `serve` subcommand (positional model_tag, --config, ...)
  vllm/entrypoints/openai/cli_args.py   make_arg_parser + the FrontendArgs dataclasses
  vllm/engine/arg_utils.py              EngineArgs.add_cli_args / AsyncEngineArgs.add_cli_args,
                                        and get_kwargs(...) / _compute_kwargs (flag kind from the
                                        config dataclass field's type hint)
  vllm/config.py or vllm/config/*.py    the config dataclasses (field annotations, defaults, docs)

Every `add_argument(...)` call in those functions becomes one flag. Its kind follows the explicit
kwargs (action, type, nargs, choices) or, for `**xxx_kwargs["field"]`, the field's type hint,
classified the way that release's _compute_kwargs classifies it (dataclass → JSON,
bool → --x/--no-x, Literal → choices, list → nargs '+', int → int or human-readable int, ...).
A value the static reader cannot evaluate (choices computed from a registry at import time) is
recorded as unknown ("choicesOpen"), never guessed.

  python3 scripts/vllm-flags/extract_vllm_flags.py GIT_DIR REF VERSION > data/vllm-flags/VERSION.json
"""
from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
from typing import Any

UNKNOWN = object()


class Tree:
    """Files of one git ref, parsed on demand."""

    def __init__(self, git_dir: str, ref: str):
        self.git_dir = git_dir
        self.ref = ref
        self.commit = self._git("rev-list", "-n1", ref).strip()
        self.date = self._git("log", "-1", "--format=%cI", self.commit).strip()
        self._text: dict[str, str | None] = {}
        self._ast: dict[str, ast.Module | None] = {}

    def _git(self, *args: str) -> str:
        return subprocess.run(["git", "--git-dir", self.git_dir, *args], check=True,
                              capture_output=True, text=True).stdout

    def read(self, path: str) -> str | None:
        if path not in self._text:
            r = subprocess.run(["git", "--git-dir", self.git_dir, "show", f"{self.commit}:{path}"],
                               capture_output=True, text=True)
            self._text[path] = r.stdout if r.returncode == 0 else None
        return self._text[path]

    def module_file(self, module: str) -> str | None:
        base = module.replace(".", "/")
        for p in (f"{base}.py", f"{base}/__init__.py"):
            if self.read(p) is not None:
                return p
        return None

    def parse(self, path: str) -> ast.Module | None:
        if path not in self._ast:
            text = self.read(path)
            self._ast[path] = ast.parse(text) if text is not None else None
        return self._ast[path]


class Module:
    def __init__(self, tree: Tree, name: str, path: str):
        self.tree = tree
        self.name = name
        self.path = path
        self.node = tree.parse(path)
        self.is_package = path.endswith("__init__.py")

    def top_level(self):
        """Top-level statements, looking into if/try blocks (TYPE_CHECKING imports, fallbacks)."""
        stack = list(self.node.body) if self.node else []
        while stack:
            s = stack.pop(0)
            if isinstance(s, ast.If):
                stack[0:0] = s.body + s.orelse
            elif isinstance(s, ast.Try):
                stack[0:0] = s.body + [x for h in s.handlers for x in h.body] + s.orelse
            else:
                yield s


class Resolver:
    """Finds what a name means in a module: a class, an assignment, or what an import points at."""

    def __init__(self, tree: Tree):
        self.tree = tree
        self.modules: dict[str, Module | None] = {}

    def module(self, name: str) -> Module | None:
        if name not in self.modules:
            path = self.tree.module_file(name)
            self.modules[name] = Module(self.tree, name, path) if path else None
        return self.modules[name]

    def absolute(self, mod: Module, node: ast.ImportFrom) -> str:
        if not node.level:
            return node.module or ""
        parts = mod.name.split(".")
        base = parts if mod.is_package else parts[:-1]
        base = base[: len(base) - (node.level - 1)] if node.level > 1 else base
        return ".".join(base + ([node.module] if node.module else []))

    def lookup(self, mod: Module | None, name: str, depth: int = 0):
        """→ ('class', ClassDef, Module) | ('value', expr, Module) | None."""
        if mod is None or mod.node is None or depth > 12:
            return None
        star: list[str] = []
        for s in mod.top_level():
            if isinstance(s, ast.ClassDef) and s.name == name:
                return ("class", s, mod)
            if isinstance(s, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in s.targets):
                return ("value", s.value, mod)
            if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name) and s.target.id == name and s.value is not None:
                return ("value", s.value, mod)
            if isinstance(s, ast.ImportFrom):
                src = self.absolute(mod, s)
                for a in s.names:
                    if a.name == "*":
                        star.append(src)
                    elif (a.asname or a.name) == name:
                        sub = self.module(f"{src}.{a.name}")
                        if sub is not None and sub.path != mod.path:
                            return ("module", sub, sub)
                        return self.lookup(self.module(src), a.name, depth + 1)
        for src in star:
            r = self.lookup(self.module(src), name, depth + 1)
            if r:
                return r
        return None


# ---------------------------------------------------------------------------------------------
# Type hints → the kind _compute_kwargs gives them.

BUILTINS = {"bool", "int", "float", "str", "dict", "list", "tuple", "set", "bytes", "Any", "object",
            "Dict", "List", "Tuple", "Set", "Mapping", "Sequence", "Callable", "type", "Type"}
COLLECTION = {"list": "list", "List": "list", "tuple": "tuple", "Tuple": "tuple", "set": "set",
              "Set": "set", "Sequence": "list"}
DICTS = {"dict", "Dict", "Mapping", "MutableMapping"}


class Hint:
    """One member of a union: ('none'|'bool'|'int'|'float'|'str'|'dict'|'list'|'literal'|'dataclass'|'enum'|'other', extra)."""

    def __init__(self, kind: str, extra: Any = None):
        self.kind = kind
        self.extra = extra

    def __repr__(self):
        return f"{self.kind}:{self.extra}" if self.extra is not None else self.kind


def subscript_args(node: ast.Subscript) -> list[ast.expr]:
    s = node.slice
    return list(s.elts) if isinstance(s, ast.Tuple) else [s]


def head_name(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


class Hints:
    def __init__(self, resolver: Resolver):
        self.r = resolver

    def flatten(self, node: ast.expr | None, mod: Module, depth: int = 0) -> list[Hint]:
        if node is None or depth > 10:
            return [Hint("other", "?")]
        if isinstance(node, ast.Constant):
            if node.value is None:
                return [Hint("none")]
            if isinstance(node.value, str):
                try:
                    return self.flatten(ast.parse(node.value, mode="eval").body, mod, depth + 1)
                except SyntaxError:
                    return [Hint("other", node.value)]
            return [Hint("other", repr(node.value))]
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            return self.flatten(node.left, mod, depth + 1) + self.flatten(node.right, mod, depth + 1)
        if isinstance(node, ast.Subscript):
            head = head_name(node.value)
            args = subscript_args(node)
            if head == "Optional":
                return self.flatten(args[0], mod, depth + 1) + [Hint("none")]
            if head == "Union":
                return [h for a in args for h in self.flatten(a, mod, depth + 1)]
            if head in ("Annotated", "SkipValidation", "ClassVar", "InitVar", "Final"):
                return self.flatten(args[0], mod, depth + 1)
            if head == "Literal":
                values = []
                for a in args:
                    v = self.literal_value(a, mod)
                    values.extend(v if isinstance(v, list) else [v])
                return [Hint("literal", values)]
            if head in COLLECTION:
                variadic = any(isinstance(a, ast.Constant) and a.value is Ellipsis for a in args)
                return [Hint("list", {"kind": COLLECTION[head], "n": None if variadic or head != "tuple" else len(args),
                                      "elem": self.flatten(args[0], mod, depth + 1) if args else []})]
            if head in DICTS:
                return [Hint("dict")]
            if head in ("type", "Type", "Callable"):
                return [Hint("other", head)]
            return self.flatten(node.value, mod, depth + 1)
        name = head_name(node)
        if name is None:
            return [Hint("other", ast.dump(node)[:40])]
        if isinstance(node, ast.Name):
            if name in ("bool", "int", "float", "str"):
                return [Hint(name)]
            if name in DICTS:
                return [Hint("dict")]
            if name in COLLECTION:
                return [Hint("list", {"kind": COLLECTION[name], "n": None, "elem": []})]
            if name in ("Any", "object"):
                return [Hint("other", name)]
            found = self.r.lookup(mod, name)
            if found and found[0] == "class":
                return [self.classify_class(found[1], found[2])]
            if found and found[0] == "value":
                val = found[1]
                # A type alias: `X = Literal[...]`, `X = Union[...]`, `X = A | B`, `X = TypeAliasType(...)`.
                if isinstance(val, ast.Call) and head_name(val.func) == "TypeAliasType" and len(val.args) >= 2:
                    return self.flatten(val.args[1], found[2], depth + 1)
                if isinstance(val, (ast.Subscript, ast.BinOp, ast.Name, ast.Attribute)) or (
                        isinstance(val, ast.Constant) and isinstance(val.value, str)):
                    return self.flatten(val, found[2], depth + 1)
                if isinstance(val, ast.Call) and head_name(val.func) in ("NewType",) and len(val.args) >= 2:
                    return self.flatten(val.args[1], found[2], depth + 1)
            return [Hint("other", name)]
        # attribute: torch.dtype, enum members ...
        return [Hint("other", ast.unparse(node))]

    def literal_value(self, node: ast.expr, mod: Module):
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Starred):
            inner = node.value
            if isinstance(inner, ast.Call) and head_name(inner.func) == "get_args" and inner.args:
                hs = self.flatten(inner.args[0], mod)
                return [v for h in hs if h.kind == "literal" for v in h.extra]
        return UNKNOWN

    def classify_class(self, cls: ast.ClassDef, mod: Module) -> Hint:
        bases = {head_name(b) for b in cls.bases}
        decorators = {head_name(d.func if isinstance(d, ast.Call) else d) for d in cls.decorator_list}
        if bases & {"Enum", "IntEnum", "StrEnum"} or any(b and b.endswith("Enum") for b in bases):
            return Hint("enum", cls.name)
        if bases & {"TypedDict", "dict", "Dict"}:
            return Hint("dict")
        if decorators & {"dataclass", "config"} or "BaseModel" in bases:
            return Hint("dataclass", cls.name)
        for b in cls.bases:
            name = head_name(b)
            found = self.r.lookup(mod, name) if name else None
            if found and found[0] == "class" and found[1] is not cls:
                h = self.classify_class(found[1], found[2])
                if h.kind in ("dataclass", "enum", "dict"):
                    return h
        return Hint("other", cls.name)


# ---------------------------------------------------------------------------------------------
# Config dataclasses: fields with annotation, default and attribute docstring.


class Field:
    def __init__(self, name: str, annotation: ast.expr, default: ast.expr | None, doc: str, mod: Module, owner: str):
        self.name = name
        self.annotation = annotation
        self.default = default
        self.doc = doc
        self.mod = mod
        self.owner = owner


def class_fields(resolver: Resolver, cls: ast.ClassDef, mod: Module, depth: int = 0) -> list[Field]:
    out: list[Field] = []
    if depth < 6:
        for b in cls.bases:
            name = head_name(b)
            found = resolver.lookup(mod, name) if name else None
            if found and found[0] == "class" and found[1] is not cls:
                out.extend(class_fields(resolver, found[1], found[2], depth + 1))
    body = cls.body
    for k, s in enumerate(body):
        if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name):
            if head_name(s.annotation.value if isinstance(s.annotation, ast.Subscript) else s.annotation) == "ClassVar":
                continue
            doc = ""
            nxt = body[k + 1] if k + 1 < len(body) else None
            if isinstance(nxt, ast.Expr) and isinstance(nxt.value, ast.Constant) and isinstance(nxt.value.value, str):
                doc = nxt.value.value
            out = [f for f in out if f.name != s.target.id]
            out.append(Field(s.target.id, s.annotation, s.value, doc, mod, cls.name))
    return out


# ---------------------------------------------------------------------------------------------
# Static values (defaults, choices): what is written, or UNKNOWN.


class Values:
    def __init__(self, resolver: Resolver):
        self.r = resolver

    def ev(self, node: ast.expr | None, mod: Module, env: dict[str, Any] | None = None, depth: int = 0):
        env = env or {}
        if node is None or depth > 12:
            return UNKNOWN
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
            items = []
            for e in node.elts:
                if isinstance(e, ast.Starred):
                    v = self.ev(e.value, mod, env, depth + 1)
                    if v is UNKNOWN or not isinstance(v, (list, tuple)):
                        return UNKNOWN
                    items.extend(v)
                else:
                    items.append(self.ev(e, mod, env, depth + 1))
            return UNKNOWN if any(i is UNKNOWN for i in items) else items
        if isinstance(node, ast.Dict):
            return {} if not node.keys else UNKNOWN
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            v = self.ev(node.operand, mod, env, depth + 1)
            return -v if isinstance(v, (int, float)) and not isinstance(v, bool) else UNKNOWN
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Mult, ast.Add, ast.Pow)):
            a, b = self.ev(node.left, mod, env, depth + 1), self.ev(node.right, mod, env, depth + 1)
            if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool) and not isinstance(b, bool):
                return a * b if isinstance(node.op, ast.Mult) else a + b if isinstance(node.op, ast.Add) else a ** b
            if isinstance(a, list) and isinstance(b, list) and isinstance(node.op, ast.Add):
                return a + b
            return UNKNOWN
        if isinstance(node, ast.Name):
            if node.id in env:
                return env[node.id]
            found = self.r.lookup(mod, node.id)
            if found and found[0] == "value":
                return self.ev(found[1], found[2], {}, depth + 1)
            return UNKNOWN
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            # ModelConfig.max_model_len (a dataclass default), SomeEnum.X.value
            found = self.r.lookup(mod, node.value.id)
            if found and found[0] == "class":
                for f in class_fields(self.r, found[1], found[2]):
                    if f.name == node.attr:
                        return default_of(self, f)
                for s in found[1].body:
                    if isinstance(s, ast.Assign) and any(isinstance(t, ast.Name) and t.id == node.attr for t in s.targets):
                        return self.ev(s.value, found[2], {}, depth + 1)
            return UNKNOWN
        if isinstance(node, ast.Call):
            fn = head_name(node.func)
            if fn == "get_args" and node.args:
                hs = Hints(self.r).flatten(node.args[0], mod)
                vals = [v for h in hs if h.kind == "literal" for v in h.extra]
                return vals if vals and all(v is not UNKNOWN for v in vals) else UNKNOWN
            if fn in ("list", "sorted", "tuple") and len(node.args) == 1:
                v = self.ev(node.args[0], mod, env, depth + 1)
                return sorted(v) if fn == "sorted" and isinstance(v, list) else v
            if fn == "field" or fn == "Field":
                for kw in node.keywords:
                    if kw.arg == "default":
                        return self.ev(kw.value, mod, env, depth + 1)
                if fn == "Field" and node.args:
                    return self.ev(node.args[0], mod, env, depth + 1)
            if fn == "get_field" and len(node.args) == 2:
                cls = node.args[0]
                attr = node.args[1]
                if isinstance(cls, ast.Name) and isinstance(attr, ast.Constant):
                    return self.ev(ast.Attribute(value=cls, attr=attr.value), mod, env, depth + 1)
            return UNKNOWN
        if isinstance(node, ast.ListComp) and len(node.generators) == 1:
            g = node.generators[0]
            # [f.value for f in SomeEnum]
            if isinstance(g.iter, ast.Name) and isinstance(g.target, ast.Name) and isinstance(node.elt, ast.Attribute) \
                    and isinstance(node.elt.value, ast.Name) and node.elt.value.id == g.target.id and node.elt.attr == "value":
                found = self.r.lookup(mod, g.iter.id)
                if found and found[0] == "class":
                    vals = []
                    for s in found[1].body:
                        if isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name):
                            v = self.ev(s.value, found[2], {}, depth + 1)
                            if v is UNKNOWN:
                                return UNKNOWN
                            vals.append(v)
                    return vals
            return UNKNOWN
        return UNKNOWN


def default_of(values: Values, f: Field):
    if f.default is None:
        return UNKNOWN
    return values.ev(f.default, f.mod)


def jsonable(v: Any):
    if v is UNKNOWN:
        return None
    if isinstance(v, (str, int, float, bool)) or v is None:
        return v
    if isinstance(v, (list, tuple)):
        items = [jsonable(x) for x in v]
        return items
    if isinstance(v, dict):
        return v
    return None


# ---------------------------------------------------------------------------------------------
# _compute_kwargs of this release: which rules it has.


class ComputeRules:
    def __init__(self, arg_utils_text: str):
        m = re.search(r"\ndef _compute_kwargs\(.*?(?=\ndef |\Z)", arg_utils_text, re.S) or \
            re.search(r"\ndef get_kwargs\(.*?(?=\ndef |\Z)", arg_utils_text, re.S)
        body = m.group(0) if m else ""
        self.present = bool(body)
        self.optional_value = "type_hints == {bool, str, type(None)}" in body
        self.human_readable_auto = set(re.findall(r'name == "(\w+)":\s*\n\s*kwargs\[name\]\["type"\] = human_readable_int_or_auto', body))
        hr: set[str] = set()
        for block in re.findall(r"\{([^{}]*)\}", body):
            names = re.findall(r'"(\w+)"', block)
            if names and "human_readable" in body and all(re.fullmatch(r"[a-z_]+", n) for n in names) and \
                    any(n.startswith("max_") or n.endswith("_bytes") or n.endswith("_size") for n in names):
                hr.update(names)
        if not hr and "human_readable_int" in body:
            hr.update(re.findall(r'name == "(\w+)"', body))
        self.human_readable = hr - self.human_readable_auto


def kind_from_hints(hints: list[Hint], name: str, rules: ComputeRules) -> dict[str, Any]:
    kinds = {h.kind for h in hints}
    out: dict[str, Any] = {}
    if "dataclass" in kinds:
        out["kind"] = "json"
        out["dataclass"] = next(h.extra for h in hints if h.kind == "dataclass")
    elif rules.optional_value and kinds == {"bool", "str", "none"}:
        out["kind"] = "optional-value"
    elif "bool" in kinds:
        out["kind"] = "bool"
    elif "literal" in kinds:
        values = [v for h in hints if h.kind == "literal" for v in h.extra]
        if any(v is UNKNOWN for v in values):
            out["kind"] = "choice"
            out["choicesOpen"] = True
            values = [v for v in values if v is not UNKNOWN]
        else:
            out["kind"] = "choice"
        types = {type(v).__name__ for v in values}
        out["choices"] = [str(v) for v in values]
        if types == {"int"}:
            out["choiceType"] = "int"
    elif "list" in kinds:
        lst = next(h.extra for h in hints if h.kind == "list")
        out["kind"] = "list"
        out["nargs"] = lst["n"] if lst["n"] else "+"
        elem = {h.kind for h in lst["elem"]}
        if elem & {"int"} and not elem & {"str"}:
            out["elementType"] = "int"
    elif "int" in kinds:
        out["kind"] = "int"
        if name in rules.human_readable_auto:
            out["humanReadableInt"] = True
            out["acceptsAuto"] = True
        elif name in rules.human_readable:
            out["humanReadableInt"] = True
    elif "float" in kinds:
        out["kind"] = "float"
    elif "dict" in kinds and ("str" in kinds or any(k in ("other", "enum") for k in kinds)):
        out["kind"] = "json"
        out["orString"] = True
    elif "dict" in kinds:
        out["kind"] = "json"
    else:
        out["kind"] = "string"
        if "enum" in kinds:
            out["enum"] = next(h.extra for h in hints if h.kind == "enum")
    if "none" in kinds and out["kind"] not in ("bool",):
        out["acceptsNone"] = True
    return out


# ---------------------------------------------------------------------------------------------
# Walking the parser-building functions.

TYPE_KINDS = {
    "int": "int", "float": "float", "str": "string", "nullable_str": "string",
    "human_readable_int": "int", "human_readable_int_or_auto": "int",
}


class Extractor:
    def __init__(self, tree: Tree):
        self.tree = tree
        self.r = Resolver(tree)
        self.values = Values(self.r)
        self.hints = Hints(self.r)
        au = tree.read("vllm/engine/arg_utils.py") or ""
        self.rules = ComputeRules(au)
        self.flags: list[dict[str, Any]] = []
        self.notes: list[str] = []
        self.files: set[str] = set()

    # -- entry -----------------------------------------------------------------------------
    def run(self):
        serve = self.r.module("vllm.entrypoints.cli.serve")
        cli = self.r.module("vllm.entrypoints.openai.cli_args")
        if serve and serve.node:
            fn = find_function(serve.node, "subparser_init")
            if fn:
                self.walk(fn, serve, cls=None)
        if cli and cli.node:
            fn = find_function(cli.node, "make_arg_parser")
            if fn is None:
                raise SystemExit("make_arg_parser not found in cli_args.py")
            self.walk(fn, cli, cls=None)
        else:
            raise SystemExit("vllm/entrypoints/openai/cli_args.py not found")

    def record(self, flag: dict[str, Any]):
        existing = {o for f in self.flags for o in f["options"]}
        if any(o in existing for o in flag["options"]) or (
                flag.get("positional") and any(f.get("positional") and f["dest"] == flag["dest"] for f in self.flags)):
            return  # argparse would raise on a conflicting option; the first registration stands
        self.flags.append(flag)

    # -- functions ---------------------------------------------------------------------------
    def walk(self, fn: ast.FunctionDef, mod: Module, cls: tuple[ast.ClassDef, Module] | None, depth: int = 0):
        self.files.add(mod.path)
        kwargs_vars: dict[str, dict[str, dict[str, Any]]] = {}
        for node in statements(fn.body):
            self.statement(node, mod, cls, kwargs_vars, depth)

    def statement(self, node: ast.stmt, mod: Module, cls, kwargs_vars, depth: int):
        # xxx_kwargs = get_kwargs(Cls)   /   xxx_kwargs = cls._customize_cli_kwargs(xxx_kwargs)
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            target = node.targets[0].id
            v = node.value
            if isinstance(v, ast.Call) and head_name(v.func) == "get_kwargs" and v.args:
                owner = self.class_of(v.args[0], mod, cls)
                if owner:
                    kwargs_vars[target] = self.compute_kwargs(*owner)
                return
            if isinstance(v, ast.Call) and head_name(v.func) == "_customize_cli_kwargs" and cls and target in kwargs_vars:
                # Base classes first: each override calls super() before its own changes.
                for c, cm in reversed(class_chain(self.r, *cls)):
                    m = find_method(c, "_customize_cli_kwargs")
                    if m:
                        param = m.args.args[1].arg if len(m.args.args) > 1 else target
                        for s in statements(m.body):
                            if any(isinstance(n, ast.Call) and head_name(n.func) == "_customize_cli_kwargs" for n in ast.walk(s)):
                                continue
                            self.statement(rename(s, param, target), cm, cls, kwargs_vars, depth)
                return
        # alias = xxx_kwargs["field"]: the same dict, changed through the alias below
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            path = kwargs_path(node.value)
            if path and path[0] in kwargs_vars and len(path) == 2 and path[1] in kwargs_vars[path[0]]:
                kwargs_vars[node.targets[0].id] = {"": kwargs_vars[path[0]][path[1]]}
                return
        # xxx_kwargs["field"]["key"] = value   /   alias["key"] = value
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            path = kwargs_path(node.targets[0])
            if path and path[0] in kwargs_vars and len(path) == 3:
                entry = kwargs_vars[path[0]].setdefault(path[1], {})
                entry[path[2]] = ("expr", node.value, mod)
                return
            if path and path[0] in kwargs_vars and len(path) == 2 and "" in kwargs_vars[path[0]]:
                kwargs_vars[path[0]][""][path[1]] = ("expr", node.value, mod)
                return
        if isinstance(node, ast.Delete):
            for t in node.targets:
                path = kwargs_path(t)
                if path and path[0] in kwargs_vars and len(path) == 3:
                    kwargs_vars[path[0]].get(path[1], {}).pop(path[2], None)
                elif path and path[0] in kwargs_vars and len(path) == 2:
                    kwargs_vars[path[0]].pop(path[1], None)
            return
        if isinstance(node, ast.For) and isinstance(node.iter, ast.Call) and isinstance(node.iter.func, ast.Attribute) \
                and node.iter.func.attr == "items" and isinstance(node.iter.func.value, ast.Name) \
                and node.iter.func.value.id in kwargs_vars:
            self.kwargs_loop(node, mod, kwargs_vars[node.iter.func.value.id])
            return
        # for arg, type in [("--a", str), ...]: add_argument(arg, type=type, ...)
        if isinstance(node, ast.For) and isinstance(node.iter, (ast.List, ast.Tuple)):
            for item in node.iter.elts:
                binding = bind_target(node.target, item)
                if binding is None:
                    break
                for s in node.body:
                    self.statement(_Substitute(binding).visit(ast.parse(ast.unparse(s)).body[0]), mod, cls, kwargs_vars, depth)
            return
        for call in calls_in(node):
            self.call(call, mod, cls, kwargs_vars, depth)

    def call(self, call: ast.Call, mod: Module, cls, kwargs_vars, depth: int):
        fn = call.func
        if isinstance(fn, ast.Attribute) and fn.attr == "add_argument":
            self.add_argument(call, mod, kwargs_vars)
            return
        # parser = EngineArgs.add_cli_args(parser) / FrontendArgs.add_cli_args(parser) / make_arg_parser(parser)
        if depth > 6:
            return
        if isinstance(fn, ast.Attribute) and fn.attr in ("add_cli_args",) and isinstance(fn.value, ast.Name):
            owner = self.class_of(fn.value, mod, cls)
            if owner:
                for c, cm in class_chain(self.r, *owner):
                    m = find_method(c, "add_cli_args")
                    if m:
                        self.walk(m, cm, owner, depth + 1)
                        break
            return
        if isinstance(fn, ast.Attribute) and fn.attr == "add_cli_args" and isinstance(fn.value, ast.Call):
            return
        if isinstance(fn, ast.Name) and fn.id == "make_arg_parser":
            found = self.r.lookup(mod, "make_arg_parser")
            if found is None:
                cli = self.r.module("vllm.entrypoints.openai.cli_args")
                f2 = find_function(cli.node, "make_arg_parser") if cli and cli.node else None
                if f2:
                    self.walk(f2, cli, None, depth + 1)
            return
        if isinstance(fn, ast.Attribute) and isinstance(fn.value, ast.Name) and fn.value.id == "super" and fn.attr == "add_cli_args":
            return

    def class_of(self, node: ast.expr, mod: Module, cls):
        if isinstance(node, ast.Name) and node.id == "cls" and cls:
            return cls
        if isinstance(node, ast.Name):
            found = self.r.lookup(mod, node.id)
            if found and found[0] == "class":
                return (found[1], found[2])
        return None

    # -- kwargs of a config class ---------------------------------------------------------------
    def compute_kwargs(self, cls: ast.ClassDef, mod: Module) -> dict[str, dict[str, Any]]:
        out: dict[str, dict[str, Any]] = {}
        for f in class_fields(self.r, cls, mod):
            if f.name.startswith("_"):
                continue
            self.files.add(f.mod.path)
            hints = self.hints.flatten(f.annotation, f.mod)
            k = kind_from_hints(hints, f.name, self.rules)
            entry: dict[str, Any] = {"computed": k, "field": f"{f.owner}.{f.name}", "help": f.doc,
                                     "default": default_of(self.values, f)}
            out[f.name] = entry
        return out

    def kwargs_loop(self, loop: ast.For, mod: Module, kw: dict[str, dict[str, Any]]):
        for key, entry in kw.items():
            extra = entry.get("flags")
            names = [f"--{key.replace('_', '-')}"]
            if isinstance(extra, tuple) and extra[0] == "expr":
                v = self.values.ev(extra[1], extra[2])
                if isinstance(v, list):
                    names = [str(x) for x in v] + names
            self.record(self.flag_from(names, entry, mod, {}))

    # -- one add_argument call -------------------------------------------------------------------
    def add_argument(self, call: ast.Call, mod: Module, kwargs_vars):
        names: list[str] = []
        for a in call.args:
            v = self.values.ev(a, mod)
            if isinstance(v, str):
                names.append(v)
            elif isinstance(a, ast.Starred):
                continue
            else:
                self.notes.append(f"{mod.path}:{a.lineno}: an option name that is not a literal ({ast.unparse(a)[:60]})")
                return
        entry: dict[str, Any] = {}
        explicit: dict[str, Any] = {}
        for kw in call.keywords:
            if kw.arg is None:
                entry.update(self.splat(kw.value, mod, kwargs_vars, explicit, call))
                continue
            explicit[kw.arg] = ("expr", kw.value, mod)
        if not names:
            return
        self.record(self.flag_from(names, entry, mod, explicit))

    def splat(self, node: ast.expr, mod: Module, kwargs_vars, explicit: dict[str, Any], call: ast.Call) -> dict[str, Any]:
        """`**xxx_kwargs["field"]`, `**alias`, `**{**xxx_kwargs["field"], "default": None}`."""
        if isinstance(node, ast.Name) and node.id in kwargs_vars and "" in kwargs_vars[node.id]:
            return dict(kwargs_vars[node.id][""])
        path = kwargs_path(node)
        if path and path[0] in kwargs_vars and len(path) == 2:
            entry = dict(kwargs_vars[path[0]].get(path[1], {}))
            if not entry:
                self.notes.append(f"{mod.path}:{call.lineno}: {ast.unparse(node)} names no field")
            return entry
        if isinstance(node, ast.Dict):
            out: dict[str, Any] = {}
            for k, v in zip(node.keys, node.values):
                if k is None:
                    out.update(self.splat(v, mod, kwargs_vars, explicit, call))
                elif isinstance(k, ast.Constant) and isinstance(k.value, str):
                    explicit[k.value] = ("expr", v, mod)
            return out
        self.notes.append(f"{mod.path}:{call.lineno}: **{ast.unparse(node)[:60]} not read")
        return {}

    def flag_from(self, names: list[str], entry: dict[str, Any], mod: Module, explicit: dict[str, Any]):
        options = [n for n in names if n.startswith("-")]
        positional = [n for n in names if not n.startswith("-")]
        computed = dict(entry.get("computed", {}))
        over = {k: v for k, v in entry.items() if isinstance(v, tuple) and v[0] == "expr"}
        over.update(explicit)
        long = next((o for o in options if o.startswith("--")), options[0] if options else positional[0])
        dest_expr = over.get("dest")
        dest = self.values.ev(dest_expr[1], dest_expr[2]) if dest_expr else None
        if not isinstance(dest, str):
            dest = long.lstrip("-").replace("-", "_")
        flag: dict[str, Any] = {"dest": dest, "options": options}
        if positional:
            flag["positional"] = True
        if "field" in entry:
            flag["field"] = entry["field"]
        kind = self.explicit_kind(over, computed, flag)
        flag.update(kind)
        default = entry.get("default", UNKNOWN)
        if "default" in over:
            default = self.values.ev(over["default"][1], over["default"][2])
        d = jsonable(default)
        if d is not None or default is None:
            flag["default"] = d
        help_text = entry.get("help", "")
        if "help" in over:
            h = self.values.ev(over["help"][1], over["help"][2])
            help_text = h if isinstance(h, str) else help_text
        if "deprecated" in over:
            dv = self.values.ev(over["deprecated"][1], over["deprecated"][2])
            if dv is True:
                flag["deprecated"] = True
        summary = first_sentence(help_text)
        if summary:
            flag["help"] = summary
        if re.search(r"\b[Dd]eprecated\b|will be removed", help_text or "") and "deprecated" not in flag:
            flag["deprecatedInHelp"] = True
        return flag

    def explicit_kind(self, over: dict[str, Any], computed: dict[str, Any], flag: dict[str, Any]) -> dict[str, Any]:
        ev = lambda key: self.values.ev(over[key][1], over[key][2]) if key in over else UNKNOWN
        src = lambda key: ast.unparse(over[key][1]) if key in over else ""
        out = dict(computed)
        action = src("action")
        if action:
            a = ev("action")
            name = a if isinstance(a, str) else action.split(".")[-1]
            if name in ("store_true", "store_false"):
                return {"kind": "bool", "action": name}
            if name == "BooleanOptionalAction":
                return {"kind": "bool"}
            if name == "StoreBoolean":
                return {"kind": "bool-value"}
            if name in ("append",):
                out = {"kind": "string", "append": True}
            elif name == "count":
                return {"kind": "count"}
            else:
                out["action"] = name
        if "type" in over:
            t = src("type")
            base = re.sub(r"^optional_type\((.*)\)$", r"\1", t)
            fname = base.split("(")[0].split(".")[-1]
            if base in ("json.loads",) or fname in ("from_cli", "from_json", "parse_dataclass") or "json.loads" in base:
                out = {"kind": "json", **({"orString": True} if out.get("orString") else {})}
            elif fname == "lambda" or t.startswith("lambda"):
                out["typeFunction"] = "lambda"
            elif fname in TYPE_KINDS:
                out = {k: v for k, v in out.items() if k in ("choices", "choicesOpen", "choiceType", "nargs", "append", "action")}
                out["kind"] = TYPE_KINDS[fname] if "choices" not in out else "choice"
                if fname.startswith("human_readable"):
                    out["humanReadableInt"] = True
                if fname == "human_readable_int_or_auto":
                    out["acceptsAuto"] = True
                if fname == "int":
                    out.pop("humanReadableInt", None)
            elif fname == "union_dict_and_str":
                out = {"kind": "json", "orString": True}
            else:
                out.setdefault("kind", "string")
                out["typeFunction"] = fname
            if base != t:
                out["acceptsNone"] = True
        if "choices" in over:
            c = ev("choices")
            if isinstance(c, list):
                out["kind"] = "choice"
                out["choices"] = [str(x) for x in c]
                out.pop("choicesOpen", None)
            else:
                out["kind"] = "choice"
                out["choices"] = []
                out["choicesOpen"] = True
        if "nargs" in over:
            n = ev("nargs")
            if n == "?":
                out["nargs"] = "?"
            elif n in ("+", "*") or isinstance(n, int):
                out["nargs"] = n
                if out.get("kind") not in ("choice",):
                    out["kind"] = "list"
                else:
                    out["list"] = True
        elif out.get("kind") == "list" and "nargs" not in out:
            out["nargs"] = "+"
        if (out.get("nargs") in ("+", "*") or isinstance(out.get("nargs"), int)) and not out.get("append"):
            if out.get("kind") == "choice":
                out["list"] = True
            else:
                out["kind"] = "list"
        elif out.get("append") and out.get("kind") == "list":
            out["kind"] = "string"
            out.pop("nargs", None)
        if out.get("nargs") == "?" and "const" in over:
            out["const"] = jsonable(ev("const"))
        if flag.get("positional"):
            out.setdefault("kind", "string")
        out.setdefault("kind", "string")
        return out


def first_sentence(text: str) -> str:
    t = " ".join((text or "").split())
    if not t:
        return ""
    m = re.match(r"(.+?[.!?])(\s|$)", t)
    s = m.group(1) if m else t
    return s if len(s) <= 200 else s[:197] + "..."


def find_function(mod: ast.Module, name: str) -> ast.FunctionDef | None:
    for n in ast.walk(mod):
        if isinstance(n, ast.FunctionDef) and n.name == name:
            return n
    return None


def find_method(cls: ast.ClassDef, name: str) -> ast.FunctionDef | None:
    for n in cls.body:
        if isinstance(n, ast.FunctionDef) and n.name == name:
            return n
    return None


def class_chain(resolver: Resolver, cls: ast.ClassDef, mod: Module):
    """The class and its bases found in the tree, most derived first."""
    out = [(cls, mod)]
    k = 0
    while k < len(out) and k < 8:
        c, m = out[k]
        for b in c.bases:
            name = head_name(b)
            found = resolver.lookup(m, name) if name else None
            if found and found[0] == "class":
                out.append((found[1], found[2]))
        k += 1
    return out


def statements(body: list[ast.stmt]):
    """Statements in order, looking into if/with/try blocks (both branches of an `if`)."""
    for s in body:
        if isinstance(s, ast.If):
            yield from statements(s.body)
            yield from statements(s.orelse)
        elif isinstance(s, (ast.With, ast.Try)):
            yield from statements(s.body)
            if isinstance(s, ast.Try):
                for h in s.handlers:
                    yield from statements(h.body)
        else:
            yield s


def calls_in(node: ast.AST):
    for n in ast.walk(node):
        if isinstance(n, ast.Call):
            yield n


def kwargs_path(node: ast.expr) -> list[str] | None:
    """xxx_kwargs["field"]["key"] → ["xxx_kwargs", "field", "key"]."""
    parts: list[str] = []
    while isinstance(node, ast.Subscript):
        s = node.slice
        if not (isinstance(s, ast.Constant) and isinstance(s.value, str)):
            return None
        parts.insert(0, s.value)
        node = node.value
    if isinstance(node, ast.Name) and parts:
        return [node.id, *parts]
    return None


class _Rename(ast.NodeTransformer):
    def __init__(self, old: str, new: str):
        self.old = old
        self.new = new

    def visit_Name(self, node: ast.Name):
        return ast.copy_location(ast.Name(id=self.new, ctx=node.ctx), node) if node.id == self.old else node


class _Substitute(ast.NodeTransformer):
    def __init__(self, binding: dict[str, ast.expr]):
        self.binding = binding

    def visit_Name(self, node: ast.Name):
        return self.binding.get(node.id, node)


def bind_target(target: ast.expr, item: ast.expr) -> dict[str, ast.expr] | None:
    if isinstance(target, ast.Name):
        return {target.id: item}
    if isinstance(target, ast.Tuple) and isinstance(item, ast.Tuple) and len(target.elts) == len(item.elts):
        out: dict[str, ast.expr] = {}
        for t, v in zip(target.elts, item.elts):
            b = bind_target(t, v)
            if b is None:
                return None
            out.update(b)
        return out
    return None


def rename(s: ast.stmt, old: str, new: str) -> ast.stmt:
    return _Rename(old, new).visit(ast.parse(ast.unparse(s)).body[0]) if old != new else s


def main(argv: list[str]) -> None:
    if len(argv) != 4:
        raise SystemExit(__doc__)
    git_dir, ref, version = argv[1:]
    tree = Tree(git_dir, ref)
    ex = Extractor(tree)
    ex.run()
    out = {
        "vllmVersion": version,
        "source": {"repository": "vllm-project/vllm", "ref": ref, "commit": tree.commit, "date": tree.date,
                   "files": sorted(ex.files)},
        "generator": "scripts/vllm-flags/extract_vllm_flags.py",
        "parser": {"allowAbbrev": True},
        "flags": sorted(ex.flags, key=lambda f: f["options"][0] if f["options"] else f["dest"]),
        "notes": ex.notes,
    }
    json.dump(out, sys.stdout, indent=1, sort_keys=False)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main(sys.argv)
