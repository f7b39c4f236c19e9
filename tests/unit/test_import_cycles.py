"""No module of the package imports itself back through others.

Two cycles used to exist (core/config.py <-> core/verdict/adaptive.py over shared defaults;
core/suite.py -> core/run/runner.py -> core/run/workers.py -> ...). A cycle makes the import order
matter and hides which module owns what; this test keeps them closed. It reads the import graph
with grimp (import-linter's engine), counting imports under ``TYPE_CHECKING`` and inside functions
too: a lazy import still ties the two modules together.
"""

from __future__ import annotations

import grimp


def _cycles(graph: grimp.ImportGraph) -> list[list[str]]:
    """Strongly connected groups of more than one module (Tarjan, iterative)."""
    modules = sorted(m for m in graph.modules if m.startswith("promptcanary"))
    edges = {
        m: sorted(x for x in graph.find_modules_directly_imported_by(m) if x in graph.modules)
        for m in modules
    }
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for root in modules:
        if root in index:
            continue
        work = [(root, 0)]
        while work:
            node, i = work.pop()
            if i == 0:
                index[node] = low[node] = counter
                counter += 1
                stack.append(node)
                on_stack.add(node)
            targets = [t for t in edges.get(node, []) if t.startswith("promptcanary")]
            if i < len(targets):
                work.append((node, i + 1))
                target = targets[i]
                if target not in index:
                    work.append((target, 0))
                elif target in on_stack:
                    low[node] = min(low[node], index[target])
                continue
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    found.append(sorted(group))
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
    return found


def test_the_package_has_no_import_cycles() -> None:
    graph = grimp.build_graph("promptcanary", cache_dir=None)
    assert _cycles(graph) == []


def test_the_cycle_finder_finds_a_cycle() -> None:
    graph = grimp.ImportGraph()
    for module in ("promptcanary.a", "promptcanary.b", "promptcanary.c"):
        graph.add_module(module)
    graph.add_import(importer="promptcanary.a", imported="promptcanary.b")
    graph.add_import(importer="promptcanary.b", imported="promptcanary.a")
    graph.add_import(importer="promptcanary.b", imported="promptcanary.c")
    assert _cycles(graph) == [["promptcanary.a", "promptcanary.b"]]
