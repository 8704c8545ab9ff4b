"""The import-direction check behind tests/test_layering.py (docs/architecture.md has the table).

Reads every module of a `toolpolicy` tree with `ast`, top-level and deferred (in-function) imports
alike; imports under `if TYPE_CHECKING:` are skipped (they never run). A package may import its own
modules and the packages of *lower* layers; packages of one layer never import each other. Module
level import cycles are reported too (a package's `__init__` importing its own submodules, and them
importing it back, is the usual facade and is allowed). Adapted from the review's `layering.py`.
"""

from __future__ import annotations

import ast
from pathlib import Path

# Bottom up. `(root)` is `toolpolicy/__init__.py`, a lazy facade that imports nothing at run time.
LAYERS: tuple[frozenset[str], ...] = tuple(
    frozenset(names.split())
    for names in (
        "(root) source vocabulary",
        "errors",
        "ast",
        "runtime grammar",
        "policies",
        "compiler",
        "analysis testing discover",
        "api lint",
        "adapters install replay integrations",
        "report serve mcp_proxy",
        "cli",
        "__main__",
    )
)
RANK = {name: rank for rank, names in enumerate(LAYERS) for name in names}


def package_of(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "(root)"


def modules(src: Path) -> dict[str, Path]:
    """Dotted module name -> file, for every module under `src/toolpolicy`."""
    root = src / "toolpolicy"
    found: dict[str, Path] = {}
    for path in root.rglob("*.py"):
        parts = list(path.relative_to(src).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


def _resolve(mods: dict[str, Path], module: str, node: ast.ImportFrom) -> list[str]:
    is_package = mods[module].name == "__init__.py"
    base = module.split(".") if is_package else module.split(".")[:-1]
    if node.level:
        base = base[: len(base) - (node.level - 1)]
        target = ".".join(base + ([node.module] if node.module else []))
    else:
        target = node.module or ""
    out = [target, *(f"{target}.{alias.name}" for alias in node.names)]
    return [t for t in out if t in mods]


def imports_of(mods: dict[str, Path], module: str) -> set[str]:
    """The toolpolicy modules `module` imports when it runs (any depth, TYPE_CHECKING excepted)."""
    tree = ast.parse(mods[module].read_text(encoding="utf-8"))
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skipped.update(id(sub) for stmt in node.body for sub in ast.walk(stmt))
    found: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name in mods)
        elif isinstance(node, ast.ImportFrom):
            found.update(_resolve(mods, module, node))
    found.discard(module)
    return found


def graph_of(src: Path) -> dict[str, set[str]]:
    mods = modules(src)
    return {m: imports_of(mods, m) for m in mods}


def violations(graph: dict[str, set[str]]) -> list[str]:
    """`a -> b` for every import of a package that is not below the importer's layer."""
    out: list[str] = []
    for module, targets in sorted(graph.items()):
        mine = package_of(module)
        for target in sorted(targets):
            theirs = package_of(target)
            if theirs == mine:
                continue
            if mine not in RANK or theirs not in RANK:
                out.append(
                    f"{module} -> {target}: package `{mine if mine not in RANK else theirs}` has no layer"
                )
            elif RANK[theirs] >= RANK[mine]:
                out.append(f"{module} -> {target}: `{mine}` may not import `{theirs}`")
    return out


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (iterative Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in graph:
        if start in index:
            continue
        work: list[tuple[str, list[str]]] = [(start, sorted(graph[start]))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, pending = work[-1]
            if pending:
                nxt = pending.pop()
                if nxt not in graph:
                    continue
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, sorted(graph[nxt])))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component: list[str] = []
                while True:
                    top = stack.pop()
                    on_stack.discard(top)
                    component.append(top)
                    if top == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))

    def is_facade(component: list[str]) -> bool:
        head = min(component, key=len)
        return all(m == head or m.startswith(head + ".") for m in component)

    return [c for c in found if not is_facade(c)]
