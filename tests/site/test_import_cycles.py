"""No two modules of the platform import each other, directly or through others, counting the
imports inside functions: a move's path runs one way (docs/architecture.md). The layers
themselves are import-linter's contracts in pyproject.toml, checked by the test command."""

import grimp

PACKAGES = ("games", "accounts", "infra", "microchip_site", "benchmarks")


def import_cycles(graph) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm)."""
    index, low, stack, on_stack, groups = {}, {}, [], set(), []

    def visit(module):
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for imported in graph.find_modules_directly_imported_by(module):
            if imported not in index:
                visit(imported)
                low[module] = min(low[module], low[imported])
            elif imported in on_stack:
                low[module] = min(low[module], index[imported])
        if low[module] == index[module]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == module:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for module in sorted(graph.modules):
        if module not in index:
            visit(module)
    return groups


def test_no_module_of_the_platform_imports_itself_through_others():
    graph = grimp.build_graph(*PACKAGES)
    assert import_cycles(graph) == []


def test_the_check_finds_a_cycle_through_an_import_inside_a_function(tmp_path, monkeypatch):
    package = tmp_path / "looped"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from looped import b\n")
    (package / "b.py").write_text("def later():\n    from looped import c\n")
    (package / "c.py").write_text("import looped.a\n")
    monkeypatch.syspath_prepend(str(tmp_path))

    graph = grimp.build_graph("looped", cache_dir=None)

    assert import_cycles(graph) == [["looped.a", "looped.b", "looped.c"]]
