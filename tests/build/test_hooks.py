"""The build hooks: lab ids are checked, the command reference is generated, the runtime ships."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from emulator.shell import table

ROOT = Path(__file__).resolve().parents[2]
COPIED = ("mkdocs.yml", "hooks", "tools", "overrides", "docs", "emulator", "labs", "pyproject.toml", "README.md",
          "package.json", "package-lock.json")


def load_hook(name: str):
    spec = importlib.util.spec_from_file_location(f"hook_{name}", ROOT / "hooks" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def project_copy(tmp: Path) -> Path:
    for name in COPIED:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, tmp / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copyfile(source, tmp / name)
    (tmp / "node_modules").symlink_to(ROOT / "node_modules")
    return tmp


def build(root: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-d", str(root / "out")],
                          cwd=root, env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
                          capture_output=True, text=True, check=False)


def test_a_page_naming_an_unknown_lab_fails_the_build_naming_page_and_id(tmp_path):
    root = project_copy(tmp_path)
    (root / "docs" / "zz-bad-lab.md").write_text("---\nlab: no-such-lab\n---\n# Bad\n")
    built = build(root)
    assert built.returncode != 0
    message = built.stdout + built.stderr
    assert "zz-bad-lab.md: unknown lab 'no-such-lab'" in message


def test_a_page_with_a_negative_seed_fails_the_build(tmp_path):
    root = project_copy(tmp_path)
    (root / "docs" / "zz-bad-seed.md").write_text("---\nlab: sandbox\nseed: -3\n---\n# Bad\n")
    built = build(root)
    assert built.returncode != 0
    assert "zz-bad-seed.md: seed must be a whole number" in built.stdout + built.stderr


def test_the_command_reference_shows_every_registered_command_with_its_help():
    reference = load_hook("command_reference").reference_markdown()
    for command in table.commands().commands():
        assert f"### `{command.name}`" in reference
        assert command.help_text().rstrip("\n") in reference


def test_the_command_reference_page_keeps_its_marker():
    hook = load_hook("command_reference")
    assert hook.MARKER in (ROOT / "docs" / hook.PAGE).read_text()


def test_the_wheel_is_pure_python_and_holds_every_module_and_lab():
    hook = load_hook("runtime")
    wheel = hook.build_wheel()
    assert wheel.name.endswith("-py3-none-any.whl")
    hook.check_wheel(wheel, hook._source_files())


def test_the_pyodide_runtime_matches_the_pinned_version():
    hook = load_hook("runtime")
    folder, version = hook.pyodide_dir()
    assert version == json.loads((ROOT / "package.json").read_text())["dependencies"]["pyodide"]
    for name in hook.PYODIDE_FILES:
        assert (folder / name).is_file()


@pytest.mark.parametrize("lab", ["sandbox"])
def test_sandbox_is_always_a_valid_page_lab(lab):
    hook = load_hook("labs")
    assert lab == hook.SANDBOX
