"""The package shows its plan: only packages at the root, a layer named in every package, no import cycle.

The layers contract itself (`.importlinter`) is checked by `lint-imports` in CI; these tests check
what that contract does not: cycles inside a layer, and the shape of the tree.
"""

from __future__ import annotations

import ast
from pathlib import Path

import grimp
import pytest

import radeid

PACKAGE = Path(radeid.__file__).parent
REPO = PACKAGE.parents[1]


def _strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's algorithm, iterative (the import graph is a few hundred modules deep at most)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[list[str]] = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_tarjan_finds_a_cycle_and_ignores_a_chain() -> None:
    assert _strongly_connected({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _strongly_connected({"a": {"b"}, "b": {"c"}, "c": set()}) == []


@pytest.fixture(scope="module")
def import_graph() -> dict[str, set[str]]:
    # Imports inside functions count (grimp reads every import statement); imports made only for
    # type checking do not run, so they cannot form a cycle at run time.
    graph = grimp.build_graph("radeid", exclude_type_checking_imports=True)
    return {module: set(graph.find_modules_directly_imported_by(module)) for module in graph.modules}


def test_no_import_cycle_between_modules(import_graph: dict[str, set[str]]) -> None:
    assert _strongly_connected(import_graph) == []


def test_the_package_root_holds_only_packages() -> None:
    modules = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert modules == ["__init__.py", "__main__.py"]


LAYERS = ["core", "config", "patterns", "resolve", "detect", "replace", "pipeline", "io", "secure", "run"]
TOOLS = ["evaluate", "model", "synth", "train"]
INTERFACES = ["cli", "server", "spark", "review"]


def test_every_package_names_its_layer() -> None:
    packages = sorted(p.parent.name for p in PACKAGE.glob("*/__init__.py"))
    assert packages == sorted(LAYERS + TOOLS + INTERFACES)
    for name in packages:
        doc = ast.get_docstring(ast.parse((PACKAGE / name / "__init__.py").read_text(encoding="utf-8")))
        assert doc, name
        first = doc.split("\n\n")[0]
        assert any(word in first for word in ("Layer", "Tool layer", "Interface")), (name, first)


def test_the_contract_lists_every_package_in_order() -> None:
    """The `.importlinter` layers, read bottom-up, are the layers above (siblings on one line)."""
    text = (REPO / ".importlinter").read_text(encoding="utf-8")
    block = text.split("layers =", 1)[1].splitlines()
    rows = [line.strip() for line in block if line.startswith("    ") and line.strip()]
    named = [name.strip() for row in rows for name in row.replace(":", "|").split("|")]
    assert sorted(named) == sorted(LAYERS + TOOLS + INTERFACES)
    bottom_up = [name for name in reversed(named) if name in LAYERS]
    assert bottom_up == LAYERS
