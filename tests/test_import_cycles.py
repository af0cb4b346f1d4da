"""The package's import graph has no cycles, counting imports inside functions.

A cycle hidden in a function-level import still ties two layers together:
moving either module then means moving both.  The graph is read from the
source (AST), so nothing is imported to check it.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE_ROOT = Path(__file__).resolve().parents[1] / "src" / "agentscan"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE_ROOT.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    return {_module_name(path): path for path in PACKAGE_ROOT.rglob("*.py")}


def _imported(name: str, modules: dict[str, Path]) -> str | None:
    """The module a dotted import name lands in (``a.b.c`` may be a name in ``a.b``)."""
    while name:
        if name in modules:
            return name
        name = name.rpartition(".")[0]
    return None


def _is_type_checking(node: ast.AST) -> bool:
    test = getattr(node, "test", None)
    return isinstance(node, ast.If) and (
        (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING")
        or (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")
    )


def _runtime_nodes(tree: ast.AST) -> list[ast.AST]:
    """Every node that can run: ``if TYPE_CHECKING:`` blocks never do, so a
    type-only import there is no dependency (their ``else`` branches still are)."""
    found: list[ast.AST] = []
    stack = [tree]
    while stack:
        node = stack.pop()
        found.append(node)
        if _is_type_checking(node):
            stack.extend(node.orelse)  # type: ignore[attr-defined]
            continue
        stack.extend(ast.iter_child_nodes(node))
    return found


def import_graph() -> dict[str, set[str]]:
    modules = _modules()
    graph: dict[str, set[str]] = {}
    for module, path in modules.items():
        edges: set[str] = set()
        for node in _runtime_nodes(ast.parse(path.read_bytes(), str(path))):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [f"{node.module}.{alias.name}" for alias in node.names]
                # ``from pkg import submodule`` depends on the submodule; a
                # name defined in pkg itself is a dependency on pkg.
                if any(name not in modules for name in names):
                    names.append(node.module)
            for name in names:
                target = _imported(name, modules)
                # A package's own __init__ is loaded by any import beneath it;
                # that parent edge is not a design choice, so it is skipped.
                if target and target != module and not module.startswith(target + "."):
                    edges.add(target)
        graph[module] = edges
    return graph


def find_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []
    counter = 0

    def visit(node: str) -> None:
        nonlocal counter
        index[node] = low[node] = counter
        counter += 1
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return cycles


def test_the_checker_finds_a_cycle() -> None:
    assert find_cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert find_cycles({"a": {"b"}, "b": set()}) == []


def test_the_graph_sees_function_level_imports() -> None:
    graph = import_graph()
    # entry.py imports the CLI and the hook capture only inside main()
    assert {"agentscan.cli", "agentscan.hooks.capture"} <= graph["agentscan.entry"]


def test_type_checking_imports_are_not_dependencies() -> None:
    source = "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import a\nelse:\n    import b\nimport c\n"
    names = {alias.name for node in _runtime_nodes(ast.parse(source)) if isinstance(node, ast.Import) for alias in node.names}
    assert names == {"b", "c"}


def test_no_import_cycles() -> None:
    cycles = find_cycles(import_graph())
    assert cycles == [], "import cycles: " + "; ".join(" <-> ".join(c) for c in cycles)


# Layers from docs/architecture.md: a module may not import a later layer.
LAYERS = ["agentscan.toolkit", "agentscan.providers", "agentscan.scan", "agentscan.export", "agentscan.cli"]


def _layer(module: str) -> int | None:
    for index, prefix in enumerate(LAYERS):
        if module == prefix or module.startswith(prefix + "."):
            return index
    return None


def test_layers_import_only_earlier_layers() -> None:
    wrong = []
    for module, targets in import_graph().items():
        own = _layer(module)
        if own is None:
            continue
        for target in targets:
            other = _layer(target)
            if other is not None and other > own:
                wrong.append(f"{module} -> {target}")
    assert wrong == [], "imports against the data flow: " + ", ".join(sorted(wrong))
