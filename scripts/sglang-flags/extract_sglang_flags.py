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
A value the static reader cannot evaluate (a choices list built at import time, a default from
a function call) is recorded as open / absent, never guessed.

  python3 scripts/sglang-flags/extract_sglang_flags.py GIT_DIR COMMIT VERSION REPOSITORY > data/sglang-flags/VERSION.json
"""
from __future__ import annotations

import ast
import json
import subprocess
import sys
from typing import Any

PATH = "python/sglang/srt/server_args.py"
UNKNOWN = object()


def git(git_dir: str, *args: str) -> str:
    return subprocess.run(["git", "--git-dir", git_dir, *args], check=True,
                          capture_output=True, text=True).stdout


def literal(node: ast.AST, env: dict[str, Any]) -> Any:
    """A Python literal, a module constant, `ServerArgs.field`, or string concatenation; else UNKNOWN."""
    try:
        return ast.literal_eval(node)
    except Exception:
        pass
    if isinstance(node, ast.Name):
        return env.get(node.id, UNKNOWN)
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "ServerArgs":
        return env.get(f"ServerArgs.{node.attr}", UNKNOWN)
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
        return UNKNOWN if any(i is UNKNOWN for i in items) else items
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("list", "sorted") and node.args:
        v = literal(node.args[0], env)
        if isinstance(v, (list, set, tuple)):
            return sorted(v) if node.func.id == "sorted" else list(v)
        if isinstance(v, dict):
            return sorted(v.keys()) if node.func.id == "sorted" else list(v.keys())
    return UNKNOWN


def module_constants(tree: ast.Module) -> dict[str, Any]:
    env: dict[str, Any] = {}
    for stmt in tree.body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            v = literal(stmt.value, env)
            if v is not UNKNOWN:
                env[stmt.targets[0].id] = v
    return env


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
    if action in ("store_true", "store_false", "store_const", "DeprecatedStoreTrueAction", "count"):
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
        elif kw.arg in ("default", "const", "nargs", "dest", "required", "help", "new_flag"):
            v = literal(kw.value, env)
            if v is not UNKNOWN:
                spec[{"new_flag": "newFlag"}.get(kw.arg, kw.arg)] = v
            elif kw.arg == "default":
                spec["defaultComputed"] = True
    longs = [o for o in options if o.startswith("--")]
    spec["dest"] = spec.get("dest") or (longs[0] if longs else options[0]).lstrip("-").replace("-", "_")
    if spec.get("action") == "store_false" and "default" not in spec:
        spec["default"] = True
    spec["kind"] = kind_of(spec)
    if isinstance(spec.get("help"), str):
        spec["help"] = " ".join(spec["help"].split())
    return spec


def flags_of(fn: ast.FunctionDef, env: dict[str, Any]) -> list[dict[str, Any]]:
    flags: list[dict[str, Any]] = []
    for node in ast.walk(fn):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "add_argument":
            spec = read_flag(node, env)
            if spec:
                spec["line"] = node.lineno
                flags.append(spec)
    flags.sort(key=lambda f: f["line"])
    return flags


def main() -> None:
    git_dir, commit, version, repository = sys.argv[1:5]
    commit = git(git_dir, "rev-parse", commit).strip()
    text = git(git_dir, "show", f"{commit}:{PATH}")
    tree = ast.parse(text)
    env = module_constants(tree)
    cls = server_args_class(tree)
    defaults = field_defaults(cls, env)
    flags = flags_of(add_cli_args(cls), env)
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
            "files": [PATH],
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
