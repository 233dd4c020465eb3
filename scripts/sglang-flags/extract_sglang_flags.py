#!/usr/bin/env python3
"""
Reads the command-line flags of SGLang's server (`python -m sglang.launch_server`, `sglang serve`)
from an SGLang source tree at one git commit, by static analysis of
python/sglang/srt/server_args.py (no SGLang import, so no torch is needed), and prints them as
faultline's SGLang flag-table JSON (data/sglang-flags/<version>.json).

What it reads, as SGLang builds its parser:
  ServerArgs (a dataclass)        field defaults (literals only; anything computed is left out)
  ServerArgs.add_cli_args(parser) every `<parser or group>.add_argument(...)` call: option strings,
                                  type, action, nargs, choices, default, const, dest, help
  module-level constants          `choices=SOME_CHOICES` lists and `default=ServerArgs.x`
  ServerArgs fields `x: A[T, "help" | Arg(...)]` (releases from v0.5.14 on): the flags that
                                  add_cli_args_from_dataclass(parser, ServerArgs) derives from the
                                  annotations, where add_cli_args calls it (see dataclass_flags)
A value the static reader cannot evaluate (a choices list built at import time, a default from
a function call) is recorded as open / absent, never guessed.

  python3 scripts/sglang-flags/extract_sglang_flags.py GIT_DIR COMMIT VERSION REPOSITORY > data/sglang-flags/VERSION.json
"""
from __future__ import annotations

import ast
import hashlib
import json
import subprocess
import sys
from typing import Any

PATH = "python/sglang/srt/server_args.py"
ARG_UTILS = "python/sglang/srt/arg_groups/arg_utils.py"
UNKNOWN = object()
MISSING = object()
# The add_cli_args_from_dataclass whose rules dataclass_flags() follows, by the sha256 of its source
# with whitespace runs as one space (the function is the same at v0.5.14 … v0.5.18 and at main
# d55f1c28, 2026-08-18). A release whose function differs stops the extractor: read the new
# function, change dataclass_flags to match it, add its digest here.
KNOWN_DERIVATIONS = {
    "096d023374bed72a582521ad54a0cb9acaa34f3c3f6b04281fb4d8445c025a9f",
}


def git(git_dir: str, *args: str) -> str:
    return subprocess.run(["git", "--git-dir", git_dir, *args], check=True,
                          capture_output=True, text=True).stdout


def literal(node: ast.AST, env: dict[str, Any]) -> Any:
    """A Python literal, a module constant, `ServerArgs.field`, or string concatenation; else UNKNOWN."""
    try:
        v = ast.literal_eval(node)
        # A set has no order of its own (argparse lists its choices in hash order): sorted, so
        # that a table is the same from run to run.
        return sorted(v, key=str) if isinstance(v, (set, frozenset)) else v
    except Exception:
        pass
    if isinstance(node, ast.Name):
        return env.get(node.id, UNKNOWN)
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        # `ServerArgs.field` defaults and `Class.CONSTANT` of classes imported from SGLang modules
        return env.get(f"{node.value.id}.{node.attr}", UNKNOWN)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        a, b = literal(node.left, env), literal(node.right, env)
        if isinstance(a, str) and isinstance(b, str):
            return a + b
        if isinstance(a, list) and isinstance(b, list):
            return a + b
        return UNKNOWN
    if isinstance(node, ast.JoinedStr):
        return UNKNOWN
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        items = [literal(e, env) for e in node.elts]
        if any(i is UNKNOWN for i in items):
            return UNKNOWN
        return sorted(items, key=str) if isinstance(node, ast.Set) else items
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("list", "sorted") and node.args:
        v = literal(node.args[0], env)
        if isinstance(v, (list, set, tuple)):
            return sorted(v) if node.func.id == "sorted" else list(v)
        if isinstance(v, dict):
            return sorted(v.keys()) if node.func.id == "sorted" else list(v.keys())
    return UNKNOWN


def assigned_constants(body: list[ast.stmt]) -> dict[str, Any]:
    """`NAME = literal` assignments of a module or class body; later ones may name earlier ones (`ALL = (A, B)`)."""
    env: dict[str, Any] = {}
    for stmt in body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            v = literal(stmt.value, env)
            if v is not UNKNOWN:
                env[stmt.targets[0].id] = v
    return env


def module_constants(tree: ast.Module) -> dict[str, Any]:
    return assigned_constants(tree.body)


def class_constants(cls: ast.ClassDef) -> dict[str, Any]:
    return assigned_constants(cls.body)


def imported_class_constants(tree: ast.Module, git_dir: str, commit: str) -> tuple[dict[str, Any], dict[str, str]]:
    """`Class.CONSTANT` of every class server_args.py imports from another sglang module (the
    enum-like `Backend` whose `Backend.BREAKABLE` a deprecated alias stores), read from that module at
    the same commit; with the module each came from."""
    env: dict[str, Any] = {}
    origin: dict[str, str] = {}
    for stmt in tree.body:
        if not (isinstance(stmt, ast.ImportFrom) and stmt.module and stmt.module.startswith("sglang.")):
            continue
        path = "python/" + stmt.module.replace(".", "/") + ".py"
        names = {a.name: a.asname or a.name for a in stmt.names}
        try:
            source = git(git_dir, "show", f"{commit}:{path}")
        except subprocess.CalledProcessError:
            continue
        for c in ast.parse(source).body:
            if isinstance(c, ast.ClassDef) and c.name in names:
                for k, v in class_constants(c).items():
                    env[f"{names[c.name]}.{k}"] = v
                    origin[f"{names[c.name]}.{k}"] = path
    return env, origin


class UsageRecordingEnv(dict):
    """The constants' environment, recording which imported constants a table value came from, so
    that the table names exactly the modules it was read from."""

    def __init__(self, values: dict[str, Any], origin: dict[str, str]):
        super().__init__(values)
        self.origin = origin
        self.used: set[str] = set()

    def get(self, key: str, default: Any = None) -> Any:
        if key in self.origin and key in self:
            self.used.add(self.origin[key])
        return super().get(key, default)


def server_args_class(tree: ast.Module) -> ast.ClassDef:
    for stmt in tree.body:
        if isinstance(stmt, ast.ClassDef) and stmt.name == "ServerArgs":
            return stmt
    raise SystemExit("no ServerArgs class")


def field_defaults(cls: ast.ClassDef, env: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for stmt in cls.body:
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.value is not None:
            v = literal(stmt.value, env)
            if v is not UNKNOWN:
                out[stmt.target.id] = v
                env[f"ServerArgs.{stmt.target.id}"] = v
    return out


def add_cli_args(cls: ast.ClassDef) -> ast.FunctionDef:
    for stmt in cls.body:
        if isinstance(stmt, ast.FunctionDef) and stmt.name == "add_cli_args":
            return stmt
    raise SystemExit("no ServerArgs.add_cli_args")


def cli_renames(cls: ast.ClassDef) -> dict[str, str]:
    """`args.tp_size = args.tensor_parallel_size` lines of from_cli_args: argparse dest → ServerArgs field."""
    out: dict[str, str] = {}
    for stmt in cls.body:
        if isinstance(stmt, ast.FunctionDef) and stmt.name == "from_cli_args":
            for node in ast.walk(stmt):
                if (isinstance(node, ast.Assign) and len(node.targets) == 1
                        and isinstance(node.targets[0], ast.Attribute) and isinstance(node.value, ast.Attribute)
                        and isinstance(node.targets[0].value, ast.Name) and isinstance(node.value.value, ast.Name)
                        and node.targets[0].value.id == node.value.value.id):
                    out[node.value.attr] = node.targets[0].attr
    return out


def callee_name(node: ast.AST) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = callee_name(node.value)
        return f"{base}.{node.attr}" if base else node.attr
    return None


def kind_of(spec: dict[str, Any]) -> str:
    action = spec.get("action")
    if action in ("store_true", "store_false", "store_const", "DeprecatedStoreTrueAction",
                  "DeprecatedStoreConstAction", "BooleanOptionalAction", "count"):
        return "flag"
    if action == "DeprecatedAction" and spec.get("nargs") in (None, 0):
        return "flag"
    nargs = spec.get("nargs")
    if nargs in ("+", "*"):
        return "list"
    t = spec.get("type")
    if spec.get("choices") is not None or spec.get("choicesOpen"):
        return "choice"
    if t in ("int", "human_readable_int"):
        return "int"
    if t == "float":
        return "float"
    if t in ("json.loads", "json_list_type"):
        return "json"
    return "string"


def boolean_optional(spec: dict[str, Any]) -> None:
    """argparse.BooleanOptionalAction also registers --no-X for every --X option string."""
    if spec.get("action") == "BooleanOptionalAction":
        longs = [o for o in spec["options"] if o.startswith("--") and not o.startswith("--no-")]
        spec["options"] = spec["options"] + [f"--no-{o[2:]}" for o in longs]


def read_flag(call: ast.Call, env: dict[str, Any]) -> dict[str, Any] | None:
    options = [a.value for a in call.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
    if not options or not options[0].startswith("-"):
        return None
    spec: dict[str, Any] = {"options": options}
    for kw in call.keywords:
        if kw.arg is None:
            spec["kwargsSpread"] = True
            continue
        if kw.arg == "type":
            name = callee_name(kw.value)
            spec["type"] = name if name else "callable"
        elif kw.arg == "action":
            v = literal(kw.value, env)
            spec["action"] = v if isinstance(v, str) else (callee_name(kw.value) or "custom").split(".")[-1]
        elif kw.arg == "choices":
            v = literal(kw.value, env)
            if isinstance(v, (list, tuple, set)):
                spec["choices"] = [str(x) for x in v]
            else:
                spec["choicesOpen"] = True
        elif kw.arg in ("default", "const", "const_value", "nargs", "dest", "required", "help", "new_flag"):
            v = literal(kw.value, env)
            if v is not UNKNOWN:
                # SGLang's DeprecatedStoreConstAction takes its constant as const_value
                spec[{"new_flag": "newFlag", "const_value": "const"}.get(kw.arg, kw.arg)] = v
            elif kw.arg == "default":
                spec["defaultComputed"] = True
    longs = [o for o in options if o.startswith("--")]
    spec["dest"] = spec.get("dest") or (longs[0] if longs else options[0]).lstrip("-").replace("-", "_")
    if spec.get("action") == "store_false" and "default" not in spec:
        spec["default"] = True
    boolean_optional(spec)
    spec["kind"] = kind_of(spec)
    if isinstance(spec.get("help"), str):
        spec["help"] = " ".join(spec["help"].split())
    return spec


def _name(node: ast.AST) -> str | None:
    """`Optional` / `typing.Optional` → "Optional"."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def _is_none(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def _subscript(node: ast.AST) -> tuple[str | None, list[ast.expr]]:
    """`Name[a, b]` → ("Name", [a, b]); anything else → (None, [])."""
    if not isinstance(node, ast.Subscript):
        return None, []
    sl = node.slice
    return _name(node.value), list(sl.elts) if isinstance(sl, ast.Tuple) else [sl]


def _unwrap_optional(tp: ast.expr) -> ast.expr:
    """Optional[X], Union[X, None], X | None → X (as arg_utils._unwrap_optional)."""
    head, args = _subscript(tp)
    if head == "Optional" and len(args) == 1:
        return args[0]
    if head == "Union":
        rest = [a for a in args if not _is_none(a)]
        if len(rest) == 1:
            return rest[0]
    if isinstance(tp, ast.BinOp) and isinstance(tp.op, ast.BitOr):
        if _is_none(tp.right):
            return tp.left
        if _is_none(tp.left):
            return tp.right
    return tp


def _type_func(tp: ast.expr | None) -> str:
    """arg_utils._infer_type_func: str / int / float, everything else str."""
    n = _name(tp) if tp is not None else None
    return n if n in ("str", "int", "float") else "str"


def _arg_meta(elts: list[ast.expr], env: dict[str, Any]) -> dict[str, ast.expr] | None:
    """The first `Arg(...)` or string among Annotated's metadata, as Arg's keyword → expression."""
    for e in elts:
        if isinstance(e, ast.Call) and _name(e.func) == "Arg":
            return {kw.arg: kw.value for kw in e.keywords if kw.arg}
        if isinstance(e, ast.JoinedStr) or isinstance(literal(e, env), str):
            return {"help": e}
    return None


def _field_default(value: ast.expr | None, env: dict[str, Any]) -> Any:
    """The field's default: a literal, UNKNOWN (computed or a factory) or MISSING (none)."""
    if value is None:
        return MISSING
    if isinstance(value, ast.Call) and _name(value.func) == "field":
        kws = {kw.arg: kw.value for kw in value.keywords}
        if "default" in kws:
            return literal(kws["default"], env)
        return UNKNOWN if "default_factory" in kws else MISSING
    return literal(value, env)


def dataclass_flags(cls: ast.ClassDef, env: dict[str, Any], only: list[str] | None) -> list[dict[str, Any]]:
    """The add_argument calls add_cli_args_from_dataclass(parser, ServerArgs) makes, read statically:
    for each field annotated A[T, "help"] or A[T, Arg(...)] (fields without one, and no_cli ones,
    are skipped), the option strings (cli_name or --field-name, then aliases), dest = the field,
    and — in the function's order — a custom action, Literal → choices, List[X] → nargs '+',
    bool → store_true, else a scalar of T (str / int / float, or Arg.type_parser)."""
    flags: list[dict[str, Any]] = []
    # A field annotated twice in the class body is one dataclass field: at the place of its first
    # annotation, with the last one's type, metadata and default (as dataclasses.fields sees it).
    fields: dict[str, ast.AnnAssign] = {}
    for stmt in cls.body:
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
            fields[stmt.target.id] = stmt
    for name, stmt in fields.items():
        if only is not None and name not in only:
            continue
        head, elts = _subscript(stmt.annotation)
        if head not in ("A", "Annotated") or not elts:
            continue
        meta = _arg_meta(elts[1:], env)
        if meta is None:
            continue
        val = {k: literal(v, env) for k, v in meta.items()}
        if val.get("no_cli") is True:
            continue
        cli = val.get("cli_name") if isinstance(val.get("cli_name"), str) else "--" + name.replace("_", "-")
        aliases = val.get("aliases") if isinstance(val.get("aliases"), list) else []
        spec: dict[str, Any] = {"options": [cli, *[a for a in aliases if isinstance(a, str)]], "dest": name}
        default = _field_default(stmt.value, env)

        def put_default() -> None:
            if default is UNKNOWN:
                spec["defaultComputed"] = True
            elif default is not MISSING:
                spec["default"] = default

        def put(key: str) -> None:
            """Arg.<key> when it is set (not None), as a literal."""
            if key in meta and not _is_none(meta[key]):
                v = val[key]
                if v is not UNKNOWN:
                    spec[key] = v

        def put_choices(node: ast.expr | None, fallback: list[Any] | None = None) -> None:
            v = literal(node, env) if node is not None and not _is_none(node) else None
            if node is not None and not _is_none(node) and v is UNKNOWN:
                spec["choicesOpen"] = True
            elif isinstance(v, (list, tuple, set)) and v:
                spec["choices"] = [str(x) for x in v if x is not None]
            elif fallback is not None:
                spec["choices"] = [str(x) for x in fallback if x is not None]

        parser = meta.get("type_parser")
        parser_name = None if parser is None or _is_none(parser) else (callee_name(parser) or "callable")
        if "action" in meta and not _is_none(meta["action"]):
            a = val["action"]
            spec["action"] = a if isinstance(a, str) else (callee_name(meta["action"]) or "custom").split(".")[-1]
            put_default()
            extra = meta.get("action_kwargs")
            if isinstance(extra, ast.Dict):
                for k, v in zip(extra.keys, extra.values):
                    key = literal(k, env) if k is not None else None
                    if key == "choices":
                        put_choices(v)
                    elif key == "type":
                        spec["type"] = callee_name(v) or "callable"
                    elif key in ("nargs", "const", "default", "new_flag", "dest"):
                        lv = literal(v, env)
                        if lv is not UNKNOWN:
                            spec[{"new_flag": "newFlag"}.get(key, key)] = lv
        else:
            inner = _unwrap_optional(elts[0])
            ihead, iargs = _subscript(inner)
            if ihead == "Literal":
                values = [literal(a, env) for a in iargs]
                first = values[0] if values else ""
                spec["type"] = parser_name or {bool: "bool", int: "int", float: "float"}.get(type(first), "str")
                if any(v is UNKNOWN for v in values):
                    spec["choicesOpen"] = True
                else:
                    put_choices(meta.get("choices"), values)
                put_default()
                put("const")
            elif (ihead in ("List", "list") or _name(inner) in ("List", "list")) and parser_name is None:
                spec["type"] = _type_func(iargs[0] if iargs else None)
                spec["nargs"] = val["nargs"] if isinstance(val.get("nargs"), (str, int)) else "+"
                if "choices" in meta:
                    put_choices(meta["choices"])
                put_default()
                put("const")
            elif _name(inner) == "bool":
                spec["action"] = "store_true"
                put_default()
            else:
                spec["type"] = parser_name or _type_func(inner)
                if "choices" in meta:
                    put_choices(meta["choices"])
                put("nargs")
                put_default()
                put("const")
                req = val.get("required")
                if req is True or (req in (None, UNKNOWN) and "required" not in meta and default is MISSING):
                    spec["required"] = True
        if "help" in meta and isinstance(val["help"], str):
            spec["help"] = " ".join(val["help"].split())
        boolean_optional(spec)
        spec["kind"] = kind_of(spec)
        flags.append(spec)
    return flags


def derivation_digest(git_dir: str, commit: str) -> str | None:
    """sha256 of the source of add_cli_args_from_dataclass (whitespace runs as one space) in the
    release's arg_groups/arg_utils.py."""
    r = subprocess.run(["git", "--git-dir", git_dir, "show", f"{commit}:{ARG_UTILS}"],
                       capture_output=True, text=True)
    if r.returncode != 0:
        return None
    for stmt in ast.parse(r.stdout).body:
        if isinstance(stmt, ast.FunctionDef) and stmt.name == "add_cli_args_from_dataclass":
            text = " ".join((ast.get_source_segment(r.stdout, stmt) or "").split())
            return hashlib.sha256(text.encode()).hexdigest()
    return None


def flags_of(fn: ast.FunctionDef, cls: ast.ClassDef, env: dict[str, Any]) -> tuple[list[dict[str, Any]], bool]:
    """The flags add_cli_args registers, in its order; and whether it derives any from the dataclass."""
    flags: list[dict[str, Any]] = []
    derived = False
    for node in ast.walk(fn):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "add_argument":
            spec = read_flag(node, env)
            if spec:
                spec["line"] = (node.lineno, 0)
                flags.append(spec)
        elif (isinstance(node, ast.Call) and _name(node.func) == "add_cli_args_from_dataclass"
              and len(node.args) >= 2 and _name(node.args[1]) == "ServerArgs"):
            only = None
            for kw in node.keywords:
                if kw.arg == "fields":
                    v = literal(kw.value, env)
                    if not isinstance(v, list):
                        raise SystemExit("add_cli_args_from_dataclass(fields=...) is not a literal list")
                    only = v
            derived = True
            for i, spec in enumerate(dataclass_flags(cls, env, only)):
                spec["line"] = (node.lineno, i + 1)
                flags.append(spec)
    flags.sort(key=lambda f: f["line"])
    return flags, derived


def main() -> None:
    git_dir, commit, version, repository = sys.argv[1:5]
    # The commit itself (an annotated tag names a tag object; the table names the commit it points at).
    commit = git(git_dir, "rev-parse", f"{commit}^{{commit}}").strip()
    text = git(git_dir, "show", f"{commit}:{PATH}")
    tree = ast.parse(text)
    imported, origin = imported_class_constants(tree, git_dir, commit)
    env = UsageRecordingEnv({**imported, **module_constants(tree)}, origin)
    cls = server_args_class(tree)
    defaults = field_defaults(cls, env)
    flags, derived = flags_of(add_cli_args(cls), cls, env)
    checked = None
    if derived:
        digest = derivation_digest(git_dir, commit)
        if digest not in KNOWN_DERIVATIONS:
            raise SystemExit(f"{ARG_UTILS} at {commit}: add_cli_args_from_dataclass is not one this "
                             f"extractor follows (ast digest {digest}); read it and update dataclass_flags")
        checked = {"path": ARG_UTILS, "function": "add_cli_args_from_dataclass", "sourceSha256": digest}
    renames = cli_renames(cls)
    for f in flags:
        del f["line"]
        if f["dest"] in renames:
            f["field"] = renames[f["dest"]]
    out = {
        "sglangVersion": None if version == "main" else version,
        "source": {
            "repository": repository,
            "upstream": "sgl-project/sglang",
            "commit": commit,
            "date": git(git_dir, "log", "-1", "--format=%cI", commit).strip(),
            "subject": git(git_dir, "log", "-1", "--format=%s", commit).strip(),
            "files": [PATH, *sorted(env.used)],
            **({"derivationCheckedAgainst": checked} if checked else {}),
        },
        "generator": "scripts/sglang-flags/extract_sglang_flags.py",
        "parser": {"allowAbbrev": True},
        "fieldDefaults": {k: defaults[k] for k in sorted(defaults)},
        "flags": flags,
    }
    json.dump(out, sys.stdout, indent=1, ensure_ascii=False, sort_keys=False)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
