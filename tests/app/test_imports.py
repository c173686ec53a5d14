"""The service's modules import each other in one direction: no import circle in app/.

Every import counts, at module level, inside functions and under ``TYPE_CHECKING`` alike: a
circle hidden behind a late import is still two modules that cannot be understood one at a time.
"""

from __future__ import annotations

import ast
from pathlib import Path

APP = Path(__file__).resolve().parents[2] / "app"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(APP.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports_of(path: Path, modules: set[str]) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            # ``from package import module`` depends on the module; ``from m import name`` on m.
            subs = [f"{node.module}.{alias.name}" for alias in node.names]
            names = [sub for sub in subs if sub in modules] or [node.module]
        found.update(name for name in names if name in modules)
    return found


def import_graph() -> dict[str, set[str]]:
    paths = {module_name(p): p for p in APP.rglob("*.py")}
    modules = set(paths)
    return {name: imports_of(path, modules) - {name} for name, path in paths.items()}


def find_circle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import circle (as a path that returns to its start), or None."""
    done: set[str] = set()
    stack: list[str] = []

    def visit(name: str) -> list[str] | None:
        if name in stack:
            return [*stack[stack.index(name) :], name]
        if name in done:
            return None
        stack.append(name)
        for other in sorted(graph.get(name, ())):
            circle = visit(other)
            if circle is not None:
                return circle
        stack.pop()
        done.add(name)
        return None

    for name in sorted(graph):
        circle = visit(name)
        if circle is not None:
            return circle
    return None


def test_app_has_no_import_circle() -> None:
    graph = import_graph()
    assert "app.rooms.manager" in graph and "app.rooms.cluster" in graph
    assert find_circle(graph) is None, " -> ".join(find_circle(graph) or [])


def test_the_check_finds_a_circle() -> None:
    assert find_circle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_circle({"a": {"b"}, "b": set()}) is None
