"""The package's modules import one another without a circle: every import of a tvspark module
counts (at the top, inside a function, or only for type checking), read from the source with ast,
so a module can be understood, tested and changed below the ones that use it."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "tvspark"


def imported_modules(path: Path) -> set[str]:
    """The tvspark modules a source file imports, by module name (`ranges`, `remote`, …)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ImportFrom):
            if node.level == 1 and node.module:  # from .x import …
                found.add(node.module.split(".")[0])
            elif node.level == 1:  # from . import x, y
                found.update(alias.name for alias in node.names)
            elif node.level == 0 and node.module and node.module.startswith("tvspark."):
                found.add(node.module.split(".")[1])
        elif isinstance(node, ast.Import):
            found.update(alias.name.split(".")[1] for alias in node.names if alias.name.startswith("tvspark."))
    return found


def import_graph() -> dict[str, set[str]]:
    modules = {path.stem: path for path in PACKAGE.glob("*.py") if path.stem != "__init__"}
    return {name: imported_modules(path) & modules.keys() - {name} for name, path in modules.items()}


def first_circle(graph: dict[str, set[str]]) -> list[str] | None:
    """A circle of imports (its modules, the first one again at the end), or None."""
    done: set[str] = set()

    def visit(name: str, path: list[str]) -> list[str] | None:
        if name in path:
            return path[path.index(name):] + [name]
        if name in done:
            return None
        for imported in sorted(graph[name]):
            circle = visit(imported, [*path, name])
            if circle:
                return circle
        done.add(name)
        return None

    for name in sorted(graph):
        circle = visit(name, [])
        if circle:
            return circle
    return None


def test_the_graph_is_read_from_the_sources() -> None:
    graph = import_graph()
    assert len(graph) >= 20, sorted(graph)  # every module of tvspark/, not an empty folder
    assert "store" in graph["direct"] and "ranges" in graph["direct"]


def test_no_module_imports_itself_through_others() -> None:
    circle = first_circle(import_graph())
    assert circle is None, "import circle: " + " -> ".join(circle or [])


def test_a_circle_is_found() -> None:
    assert first_circle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert first_circle({"a": {"b"}, "b": set()}) is None
