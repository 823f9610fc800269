"""The emulator's house rules: small modules, every package named in the wheel, each package's public face stated.

The import floors themselves are checked by ``lint-imports`` (contracts in
``pyproject.toml``), which ``make lint`` runs before any test.
"""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

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
