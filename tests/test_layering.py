"""Imports follow the layering of docs/architecture.md: no import against it (top-level or deferred),
no import cycle, and the runtime imports only `ast`, `source`, `errors`, `vocabulary` and itself."""

from __future__ import annotations

from pathlib import Path

import pytest

from layering import LAYERS, RANK, cycles, graph_of, package_of, violations

SRC = Path(__file__).resolve().parents[1] / "src"


@pytest.fixture(scope="module")
def graph() -> dict[str, set[str]]:
    return graph_of(SRC)


def test_every_package_has_a_layer(graph: dict[str, set[str]]) -> None:
    assert {package_of(m) for m in graph} <= set(RANK)


def test_no_import_goes_against_the_layering(graph: dict[str, set[str]]) -> None:
    assert violations(graph) == []


def test_no_import_cycle(graph: dict[str, set[str]]) -> None:
    assert cycles(graph) == []


def test_the_runtime_imports_only_the_leaves(graph: dict[str, set[str]]) -> None:
    reached = {package_of(t) for m, ts in graph.items() if package_of(m) == "runtime" for t in ts}
    assert reached <= {"runtime", "ast", "source", "errors", "vocabulary"}


def _tree(tmp_path: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = tmp_path / "toolpolicy" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return tmp_path


def test_the_check_sees_deferred_imports_and_ignores_type_checking(tmp_path: Path) -> None:
    src = _tree(
        tmp_path,
        {
            "__init__.py": "",
            "runtime/__init__.py": "",
            "runtime/engine.py": "def f():\n    from ..compiler import when\n",
            "runtime/typed.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ..compiler import when\n",
            "compiler/__init__.py": "",
            "compiler/when.py": "from ..runtime import engine\n",
        },
    )
    found = violations(graph_of(src))
    assert found == [
        "toolpolicy.runtime.engine -> toolpolicy.compiler: `runtime` may not import `compiler`",
        "toolpolicy.runtime.engine -> toolpolicy.compiler.when: `runtime` may not import `compiler`",
    ]


def test_the_check_sees_cycles_and_sibling_imports(tmp_path: Path) -> None:
    src = _tree(
        tmp_path,
        {
            "__init__.py": "",
            "grammar/__init__.py": "",
            "grammar/a.py": "from . import b\nfrom ..runtime import c\n",
            "grammar/b.py": "import toolpolicy.grammar.a\n",
            "runtime/__init__.py": "",
            "runtime/c.py": "",
        },
    )
    graph = graph_of(src)
    assert cycles(graph) == [["toolpolicy.grammar.a", "toolpolicy.grammar.b"]]
    assert violations(graph) == [
        "toolpolicy.grammar.a -> toolpolicy.runtime: `grammar` may not import `runtime`",
        "toolpolicy.grammar.a -> toolpolicy.runtime.c: `grammar` may not import `runtime`",
    ]
    assert RANK["runtime"] == RANK["grammar"] and len(LAYERS) > 5
