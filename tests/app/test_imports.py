"""The service's modules import each other one way: down the floors of docs/ARCHITECTURE.md.

``engine`` → ``app.store`` → ``app.players`` → ``app.rooms`` → the edges (``app.api``, ``app.ws``)
→ ``app.main`` → ``app.cli``, on a ground of small modules that know nothing of the floors above
them. A module may import what stands on a lower floor, or a module of its own package; never a
higher floor, never a sibling on its own floor. Every import counts, at module level, inside
functions and under ``TYPE_CHECKING`` alike: an arrow hidden behind a late import is still an
arrow.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# Lowest first. Each entry is a package (``app.store`` and everything in it) or a module.
FLOORS: tuple[tuple[str, ...], ...] = (
    # the ground: errors, configuration, and batching many callers into one trip; nothing else
    ("app.errors", "app.settings", "app.batch"),
    # the vocabulary and the plumbing: room settings, the lobby's seam to the live tables, logs,
    # metrics, the bus, who is calling, page cursors, the WebSocket wire
    (
        "app.presets",
        "app.live",
        "app.logs",
        "app.metrics",
        "app.bus",
        "app.clients",
        "app.cursors",
        "app.wire",
    ),
    ("app.tournaments",),  # pairing, pools, brackets and standings: pure, on the vocabulary
    ("app.store",),  # models and repositories
    # accounts, tokens, ratings, history: the players' services; the schema's migrations
    ("app.players", "app.migrations"),
    ("app.rooms",),  # live tables, their lifecycle, the protocol, the cluster
    ("app.api", "app.ws"),  # the edges: REST and the table socket, each thin
    ("app.main",),
    ("app.cli",),
)


def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
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


def import_graph(*roots: Path) -> dict[str, set[str]]:
    """Module -> the app modules it imports, over the ``app`` packages under ``roots``."""
    paths = {module_name(p, root): p for root in roots for p in (root / "app").rglob("*.py")}
    modules = set(paths)
    return {name: imports_of(path, modules) - {name} for name, path in paths.items()}


def floor_of(module: str) -> tuple[int, str]:
    """(floor, the package or module of FLOORS that holds ``module``)."""
    for level, places in enumerate(FLOORS):
        for place in places:
            if module == place or module.startswith(place + "."):
                return level, place
    raise LookupError(f"{module} stands on no floor: add its package to FLOORS")


def wrong_arrows(graph: dict[str, set[str]]) -> list[str]:
    """Every import that does not go down a floor (or stay inside its own package)."""
    wrong = []
    for module, imported in sorted(graph.items()):
        if module == "app":
            continue
        level, place = floor_of(module)
        for other in sorted(imported - {"app"}):
            other_level, other_place = floor_of(other)
            if other_place != place and other_level >= level:
                wrong.append(f"{module} -> {other}")
    return wrong


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


def test_imports_go_down_the_floors() -> None:
    graph = import_graph(ROOT)
    assert "app.rooms.protocol" in graph and "app.store.games" in graph
    assert wrong_arrows(graph) == []


def test_every_module_stands_on_a_floor() -> None:
    for module in import_graph(ROOT):
        if module != "app":
            floor_of(module)


def test_a_new_arrow_up_fails(tmp_path: Path) -> None:
    """A store module that imports a table's core, in a temporary tree beside the real one."""
    bad = tmp_path / "app" / "store" / "shortcut.py"
    bad.parent.mkdir(parents=True)
    bad.write_text("from app.rooms import core\n")
    assert wrong_arrows(import_graph(ROOT, tmp_path)) == ["app.store.shortcut -> app.rooms.core"]


def test_a_sibling_arrow_fails(tmp_path: Path) -> None:
    """The socket edge borrowing from the REST edge (or the reverse) is refused too."""
    bad = tmp_path / "app" / "ws" / "borrowed.py"
    bad.parent.mkdir(parents=True)
    bad.write_text("def f() -> None:\n    from app.api.errors import ApiError\n")
    assert wrong_arrows(import_graph(ROOT, tmp_path)) == ["app.ws.borrowed -> app.api.errors"]


def test_a_module_off_the_floors_is_refused(tmp_path: Path) -> None:
    stray = tmp_path / "app" / "stray.py"
    stray.parent.mkdir(parents=True)
    stray.write_text("")
    with pytest.raises(LookupError, match=r"app\.stray stands on no floor"):
        wrong_arrows(import_graph(ROOT, tmp_path))


def test_app_has_no_import_circle() -> None:
    graph = import_graph(ROOT)
    assert find_circle(graph) is None, " -> ".join(find_circle(graph) or [])


def test_the_check_finds_a_circle() -> None:
    assert find_circle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_circle({"a": {"b"}, "b": set()}) is None
