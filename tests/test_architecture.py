"""The layering, read off the source with the ast module (no imports of gitmem code,
except the one start-up check at the end).

Layers are packages; a module belongs to the package its path names, and may import
only from its own package and the packages ALLOWED lists for it:

    frontends        cli, commands/, daemon/, mcp, hookrun, launch
    api              the facade (gitmem/api.py)
    features         lifecycle, sync, recall, agents, encryption, doctor
    service          memories
    engines, rules   store (git), index (DuckDB and the model), policy
    base             core

Only the object layer touches git, only the index touches DuckDB and the model."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parent.parent / "gitmem"

# package -> the packages it may import (besides itself). `gitmem` is the package
# __init__ (open/init, __version__).
ALLOWED = {
    "core": set(),
    "store": {"core"},
    "index": {"core", "store"},
    "policy": {"core"},
    "memories": {"core", "store", "index", "policy"},
    "encryption": {"core", "store", "memories"},
    "recall": {"core", "store", "index", "policy", "memories"},
    "agents": {"core", "store", "policy", "memories", "recall"},
    "lifecycle": {"core", "store", "index", "policy", "memories", "encryption", "agents"},
    "sync": {"core", "store", "policy", "memories", "encryption", "lifecycle"},
    "doctor": {"core", "store", "index", "policy", "memories", "encryption", "recall", "sync"},
    "api": {"gitmem", "core", "store", "index", "policy", "memories", "encryption", "recall", "agents",
            "lifecycle", "sync", "doctor", "facade"},
    # The facade's methods by area, mixed into api.Store: the facade layer's rights.
    "facade": {"core", "store", "index", "policy", "memories", "encryption", "recall", "agents",
               "lifecycle", "sync", "doctor"},
    # Front ends reach the store through gitmem.api; from below it they take only the base
    # and presentation: the Hit record and prompt templates.
    "frontends": {"gitmem", "core", "api", "recall.hits", "recall.render"},
    "gitmem": {"api", "core"},
    "__main__": {"frontends"},
}
MAX_TOP_MODULES = 6
MAX_LINES = 500


def package(mod: str) -> str:
    """`gitmem.recall.engine` -> `recall`; `gitmem.api` -> `api`; `gitmem` -> `gitmem`."""
    parts = mod.split(".")
    return parts[1] if len(parts) > 1 else "gitmem"


def may_import(mod: str, dep: str) -> bool:
    src, dst = package(mod), package(dep)
    if src == dst:
        return True
    allowed = ALLOWED[src]
    if dst in allowed:
        return True
    sub = ".".join(dep.split(".")[1:3])
    return sub in allowed


def modules() -> dict[str, ast.Module]:
    out = {}
    for path in sorted(PKG.rglob("*.py")):
        rel = path.relative_to(PKG.parent).with_suffix("")
        parts = list(rel.parts)
        if parts[-1] == "__init__" and len(parts) > 1:
            parts = parts[:-1]
        out[".".join(parts)] = ast.parse(path.read_text(), filename=str(path))
    return out


MODS = modules()


def _resolve(mod: str, node: ast.ImportFrom | ast.Import) -> list[str]:
    """gitmem modules an import statement loads (relative imports resolved)."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names if a.name.split(".")[0] == "gitmem"]
    base = mod.split(".")
    if node.level:
        base = base[: len(base) - node.level + (1 if _is_pkg(mod) else 0)]
        target = ".".join(base + ([node.module] if node.module else []))
    else:
        target = node.module or ""
    if not target.startswith("gitmem"):
        return []
    out = []
    for a in node.names:
        sub = f"{target}.{a.name}"
        out.append(sub if sub in MODS else target)
    return out


def _is_pkg(mod: str) -> bool:
    return (PKG.parent / mod.replace(".", "/") / "__init__.py").exists()


def imports(mod: str) -> set[str]:
    out: set[str] = set()
    for node in ast.walk(MODS[mod]):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            out.update(m for m in _resolve(mod, node) if m in MODS)
    out.discard(mod)
    return out


def third_party(mod: str) -> set[str]:
    out = set()
    for node in ast.walk(MODS[mod]):
        if isinstance(node, ast.Import):
            out.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            out.add(node.module.split(".")[0])
    return out


def test_the_package_is_found():
    assert {"gitmem.api", "gitmem.store.repo", "gitmem.memories.service", "gitmem.frontends.cli"} <= set(MODS)


def test_every_package_is_a_known_layer_with_a_docstring():
    for mod, tree in MODS.items():
        assert package(mod) in ALLOWED, f"{mod}: a package the layering does not know"
    for init in PKG.rglob("__init__.py"):
        tree = ast.parse(init.read_text())
        assert ast.get_docstring(tree), f"{init.relative_to(PKG.parent)} says nothing of what it owns"


def test_few_modules_at_the_top_and_none_too_long():
    top = sorted(p.name for p in PKG.glob("*.py"))
    assert len(top) <= MAX_TOP_MODULES, top
    long = {str(p.relative_to(PKG.parent)): n for p in PKG.rglob("*.py")
            if (n := len(p.read_text().splitlines())) > MAX_LINES}
    assert long == {}, f"modules over {MAX_LINES} lines: {long}"


@pytest.mark.parametrize("lib,owners", [
    ("pygit2", ("gitmem.store",)),
    ("duckdb", ("gitmem.index",)),
    ("fastembed", ("gitmem.index.embed",)),
    ("onnxruntime", ("gitmem.index.embed",)),
    ("cryptography", ("gitmem.store",)),
])
def test_only_the_owner_imports_the_engine(lib, owners):
    bad = [m for m in MODS if lib in third_party(m) and not m.startswith(owners)]
    assert bad == [], f"{lib} imported outside {owners}: {bad}"


def test_only_the_object_layer_runs_git():
    bad = []
    for mod, tree in MODS.items():
        if mod.startswith("gitmem.store"):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.List) and node.elts and isinstance(node.elts[0], ast.Constant) \
                    and node.elts[0].value == "git":
                bad.append(f"{mod}:{node.lineno}")
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.startswith("--git-dir"):
                bad.append(f"{mod}:{node.lineno}")
    assert bad == [], f"git run outside gitmem.store: {bad}"


ALLOWED_PRIVATE = {"_exit", "_replace", "_asdict", "_fields", "_make", "_getframe"}


def test_no_module_reads_another_modules_private_names():
    bad = []
    for mod, tree in MODS.items():
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                for a in node.names:
                    if a.name.startswith("_") and not a.name.startswith("__"):
                        bad.append(f"{mod}:{node.lineno} imports {a.name}")
            elif isinstance(node, ast.Attribute):
                name = node.attr
                if not name.startswith("_") or name.startswith("__") or name in ALLOWED_PRIVATE:
                    continue
                owner = node.value
                if isinstance(owner, ast.Name) and owner.id in ("self", "cls"):
                    continue
                # a private attribute of another object: allowed only on classes of this module
                if isinstance(owner, ast.Name) and _defines_class_with(tree, name):
                    continue
                bad.append(f"{mod}:{node.lineno} reads .{name}")
    assert bad == [], "private names read across modules:\n" + "\n".join(bad)


def _defines_class_with(tree: ast.Module, attr: str) -> bool:
    """`obj._x` where this module's own classes define `_x` (e.g. `other._c` in __eq__)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            for sub in ast.walk(node):
                if isinstance(sub, ast.Attribute) and sub.attr == attr and \
                        isinstance(sub.value, ast.Name) and sub.value.id == "self":
                    return True
                if isinstance(sub, ast.Constant) and sub.value == attr:  # __slots__
                    return True
    return False


def test_dependencies_point_down():
    bad = [f"{mod} -> {dep}" for mod in MODS for dep in imports(mod) if not may_import(mod, dep)]
    assert bad == [], "imports the layering does not allow:\n" + "\n".join(bad)


def test_no_import_cycles():
    graph = {m: imports(m) for m in MODS}  # package __init__ files included
    cycles = []
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(n: str) -> None:
        state[n] = 1
        stack.append(n)
        for d in sorted(graph.get(n, ())):
            if state.get(d) == 1:
                cycles.append(stack[stack.index(d):] + [d])
            elif d not in state:
                visit(d)
        stack.pop()
        state[n] = 2

    for m in sorted(graph):
        if m not in state:
            visit(m)
    assert cycles == [], "import cycles:\n" + "\n".join(" -> ".join(c) for c in cycles)


def test_importing_the_cli_stays_light():
    code = ("import sys, gitmem.frontends.cli; heavy = {'pygit2', 'duckdb', 'numpy', 'yaml', 'fastembed', "
            "'onnxruntime'} & {m.split('.')[0] for m in sys.modules}; print(sorted(heavy))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_library_code_does_not_print_exit_or_touch_environ():
    front = {m for m in MODS if package(m) in ("frontends", "__main__")}
    bad = []
    for mod, tree in MODS.items():
        if mod in front:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("print", "exit"):
                bad.append(f"{mod}:{node.lineno} {node.func.id}()")
            if isinstance(node, ast.Attribute) and node.attr == "exit" and \
                    isinstance(node.value, ast.Name) and node.value.id == "sys":
                bad.append(f"{mod}:{node.lineno} sys.exit")
            if isinstance(node, (ast.Assign, ast.AugAssign, ast.Delete)):
                targets = node.targets if isinstance(node, (ast.Assign, ast.Delete)) else [node.target]
                for t in targets:
                    if isinstance(t, ast.Subscript) and "environ" in ast.unparse(t.value):
                        bad.append(f"{mod}:{node.lineno} mutates os.environ")
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                src = ast.unparse(node.func)
                if src in ("os.environ.update", "os.environ.pop", "os.environ.setdefault", "os.putenv") \
                        or src.startswith("pygit2.settings."):
                    bad.append(f"{mod}:{node.lineno} {src}()")
    assert bad == [], "\n".join(bad)


def test_front_ends_do_not_reach_into_the_store():
    """Front ends call api.Store's methods; its service (`.memories`) and git (`.git`)
    are not theirs to touch."""
    bad = []
    for mod, tree in MODS.items():
        if package(mod) != "frontends":
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and node.attr in ("git", "memories") \
                    and isinstance(node.value, ast.Name) and node.value.id in ("store", "st", "s", "self"):
                bad.append(f"{mod}:{node.lineno} {node.value.id}.{node.attr}")
    assert bad == []
