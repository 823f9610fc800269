"""The emulator's house rules: small modules, every package named in the wheel, each package's public face stated.

The import floors themselves are checked by ``lint-imports`` (contracts in
``pyproject.toml``), which ``make lint`` runs before any test.
"""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

import grimp

ROOT = Path(__file__).resolve().parents[1]
EMULATOR = ROOT / "emulator"
#: Lines a module may hold; a longer one must say in its docstring why it is one concept.
LIMIT = 400
#: The words a longer module's docstring starts its reason with.
REASON = "One concept:"


def modules() -> list[Path]:
    return sorted(EMULATOR.rglob("*.py"))


def test_no_module_is_over_the_limit_without_a_stated_reason():
    over = []
    for path in modules():
        lines = len(path.read_text().splitlines())
        doc = ast.get_docstring(ast.parse(path.read_text())) or ""
        if lines > LIMIT and REASON not in doc:
            over.append(f"{path.relative_to(ROOT)}: {lines} lines")
    assert not over, "modules over the limit, with no '" + REASON + "' reason in the docstring:\n" + "\n".join(over)


def test_every_package_ships_in_the_wheel():
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    found = {".".join(p.parent.relative_to(ROOT).parts) for p in EMULATOR.rglob("__init__.py")}
    assert found - listed == set(), "packages missing from [tool.setuptools] packages in pyproject.toml"


def test_every_package_states_its_public_face():
    for init in sorted(EMULATOR.rglob("__init__.py")):
        tree = ast.parse(init.read_text())
        assert ast.get_docstring(tree), f"{init.relative_to(ROOT)}: no docstring saying what the package owns"
        names = [t.id for node in tree.body if isinstance(node, ast.Assign) for t in node.targets if isinstance(t, ast.Name)]
        names += [node.target.id for node in tree.body if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)]
        assert "__all__" in names, f"{init.relative_to(ROOT)}: no __all__"


def test_no_module_imports_itself_through_others():
    """No import cycle anywhere in the emulator, counting imports inside functions and for type checkers."""
    graph = grimp.build_graph("emulator", include_external_packages=False, exclude_type_checking_imports=False)
    cycles = [sorted(group) for group in _strongly_connected(graph) if len(group) > 1]
    assert not cycles, f"import cycles: {cycles}"


def _strongly_connected(graph: grimp.ImportGraph) -> list[set[str]]:
    """Tarjan's strongly connected components of the module graph, without recursion."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[set[str]] = []
    for root in sorted(graph.modules):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.find_modules_directly_imported_by(root))))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.find_modules_directly_imported_by(child)))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.add(member)
                    if member == node:
                        break
                groups.append(group)
    return groups
