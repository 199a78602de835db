"""The import graphs of runner/ and site_builder/ stand on floors: no circle, no import running back up.

Every import of a package's own modules counts, those made inside a function too. A "room" is
a top-level module of the package or one of its folders (runner/agents/, site_builder/viewer/,
...); the rooms must form no circle either, so each stands on a floor above everything it
imports. `python -m tests.test_import_graph` prints, for each package, the floors and the five
longest files and functions.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RUNNER = ROOT / "runner"
SITE_BUILDER = ROOT / "site_builder"
#: Modules that play a game live or hold what it is made of: none of them may need the checker.
LIVE = ("runner.play", "runner.run", "runner.plan", "runner.tournament", "runner.suite", "runner.deals", "runner.errors",
        "runner.seeds", "runner.agents", "runner.games", "runner.llm", "runner.replay")


def modules(package: Path = RUNNER) -> dict[str, Path]:
    """Every module of a package by dotted name (a package by its __init__.py)."""
    found = {}
    for path in sorted(package.rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def imported(name: str, path: Path, known: Iterable[str]) -> set[str]:
    """The modules of `known` that a module imports, wherever in it the import stands."""
    known = set(known)
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package[:len(package) - node.level + 1] + ([base] if base else []))
            targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base for alias in node.names]
        else:
            continue
        for target in targets:
            while target and target not in known:  # a name of a module, not a module itself
                target = target.rpartition(".")[0]
            if target and target != name:
                found.add(target)
    return found


def graph(package: Path = RUNNER) -> dict[str, set[str]]:
    """Module -> the modules of the same package it imports."""
    found = modules(package)
    return {name: imported(name, path, found) for name, path in found.items()}


def room(name: str) -> str:
    """The top-level module or folder of its package a module belongs to."""
    parts = name.split(".")
    top = parts[0]
    if len(parts) > 2 or (len(parts) == 2 and (ROOT / top / parts[1]).is_dir()):
        return f"{top}/{parts[1]}/"
    return f"{top}/{parts[1]}.py" if len(parts) == 2 else f"{top}/__init__.py"


def rooms(edges: Mapping[str, set[str]]) -> dict[str, set[str]]:
    """The graph of rooms: one room imports another if any module of it does."""
    found: dict[str, set[str]] = {room(name): set() for name in edges}
    for name, targets in edges.items():
        found[room(name)].update(room(t) for t in targets if room(t) != room(name))
    return found


def circles(edges: Mapping[str, set[str]]) -> list[list[str]]:
    """Every set of two or more nodes that import each other in a loop (Tarjan's components)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for target in sorted(edges[node]):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                component.append(stack.pop())
                if component[-1] == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def floors(edges: Mapping[str, set[str]]) -> dict[str, int]:
    """Each node's floor, 1 for one that imports nothing here (the graph must have no circle)."""
    floor: dict[str, int] = {}

    def of(node: str) -> int:
        if node not in floor:
            floor[node] = 1 + max((of(t) for t in edges[node]), default=0)
        return floor[node]

    for node in edges:
        of(node)
    return floor


def test_no_module_of_the_runner_imports_itself_through_others():
    assert circles(graph()) == []


def test_the_runners_folders_and_modules_stand_on_floors_with_no_import_running_back_up():
    assert circles(rooms(graph())) == []


def test_the_file_format_and_the_shared_errors_import_nothing_above_them():
    edges = graph()
    assert edges["runner.errors"] == set()
    for name in edges:
        if name.startswith("runner.replay."):
            assert {t for t in edges[name] if not t.startswith("runner.replay")} == set(), name


def test_playing_a_game_live_never_needs_the_checker():
    edges = graph()
    for name, targets in edges.items():
        if name.startswith(LIVE):
            assert not {t for t in targets if t.startswith("runner.rerun")}, name


def test_the_runner_never_imports_the_site_builder():
    for path in modules().values():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names = [alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names]
        names += [node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)]
        assert not [n for n in names if n.split(".")[0] == "site_builder"], path


def test_no_module_or_folder_of_the_site_builder_imports_itself_through_others():
    edges = graph(SITE_BUILDER)
    assert circles(edges) == []
    assert circles(rooms(edges)) == []


def test_a_circle_is_found_where_there_is_one():
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert circles(edges) == [["a", "b", "c"]]
    assert floors({"a": {"b"}, "b": set(), "d": {"a", "b"}}) == {"a": 2, "b": 1, "d": 3}


def describe(package: Path) -> None:
    """Print a package's floors of rooms, its five longest files and its five longest functions."""
    edges = graph(package)
    by_room = rooms(edges)
    print(f"{package.name}/: modules {len(edges)}, imports {sum(map(len, edges.values()))}, "
          f"circles {len(circles(edges))}; rooms {len(by_room)}, circles {len(circles(by_room))}")
    for circle in circles(by_room):
        print("  circle of rooms: " + ", ".join(circle))
    if not circles(by_room):
        floor = floors(by_room)
        for top in range(max(floor.values()), 0, -1):
            print(f"floor {top:2}: " + ", ".join(sorted(r for r, f in floor.items() if f == top)))
    paths = modules(package).values()
    lengths = sorted(((len(p.read_text(encoding="utf-8").splitlines()), p.relative_to(ROOT)) for p in paths),
                     reverse=True)
    print("longest files: " + ", ".join(f"{p} {n}" for n, p in lengths[:5]))
    functions = sorted(((node.end_lineno - node.lineno + 1, f"{p.relative_to(ROOT)}:{node.name}")
                        for p in paths for node in ast.walk(ast.parse(p.read_text(encoding="utf-8")))
                        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.end_lineno),
                       reverse=True)
    print("longest functions: " + ", ".join(f"{name} {n}" for n, name in functions[:5]))
    print(f"functions {len(functions)}, over 50 lines {sum(1 for n, _ in functions if n > 50)}")


def main() -> None:
    """Print both packages' floors, longest files and longest functions."""
    describe(RUNNER)
    print()
    describe(SITE_BUILDER)


if __name__ == "__main__":
    main()
