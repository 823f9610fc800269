"""The built site: every page has its terminal, nothing is fetched from elsewhere, the runtime is complete."""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from emulator.shell import table

ROOT = Path(__file__).resolve().parents[2]
FRONT_MATTER = re.compile(r"\A---\n(.*?)\n---\n", re.S)


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("site")
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-d", str(out)], cwd=ROOT,
                          env={**os.environ, "NO_MKDOCS_2_WARNING": "1"}, capture_output=True, text=True,
                          check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return out


def page_meta(source: Path) -> dict[str, str]:
    match = FRONT_MATTER.match(source.read_text())
    meta: dict[str, str] = {}
    for line in (match.group(1) if match else "").splitlines():
        key, _, value = line.partition(":")
        meta[key.strip()] = value.strip()
    return meta


def html_for(built: Path, source: Path) -> Path:
    rel = source.relative_to(ROOT / "docs").with_suffix("")
    if rel.name == "index":
        return built / rel.parent / "index.html"
    return built / rel / "index.html"


def test_every_page_carries_one_terminal_with_its_lab_and_seed(built):
    pages = sorted((ROOT / "docs").rglob("*.md"))
    assert pages
    for source in pages:
        html = html_for(built, source).read_text()
        meta = page_meta(source)
        assert html.count('data-mdx-component="terminal"') == 1, source
        assert f'data-mdx-lab="{meta.get("lab", "sandbox")}"' in html, source
        assert f'data-mdx-seed="{meta.get("seed", "0")}"' in html, source
        assert "its outputs do not validate your environment" in html, source


def test_no_page_loads_anything_from_another_host(built):
    loads = re.compile(r'<(?:script|img|iframe|source)\b[^>]*\bsrc="(https?:)?//'
                       r'|<link\b(?=[^>]*\brel="(?:stylesheet|preconnect|preload|modulepreload|icon|dns-prefetch)")'
                       r'[^>]*\bhref="(https?:)?//')
    for html in built.rglob("*.html"):
        assert not loads.search(html.read_text()), html
    for css in built.rglob("*.css"):
        assert not re.search(r"@import|url\((['\"]?)(https?:)?//", css.read_text()), css


def test_the_one_inline_script_of_a_page_is_prestart(built):
    """Scripts come from files, except prestart.js, which hooks/prestart.py inlines (the policy names it by hash)."""
    for html in built.rglob("*.html"):
        inline = [tag for tag in re.findall(r"<script\b[^>]*>", html.read_text())
                  if "src=" not in tag and 'type="application/json"' not in tag]
        assert len(inline) <= 1 and all("data-worker=" in tag for tag in inline), (html, inline)


def test_the_manifest_names_the_wheel_by_its_sha256(built):
    manifest = json.loads((built / "assets/emulator/manifest.json").read_text())
    wheel = built / "assets/emulator" / manifest["wheel"]
    assert wheel.name.endswith("-py3-none-any.whl")
    assert hashlib.sha256(wheel.read_bytes()).hexdigest() == manifest["sha256"]
    runtime = (built / "assets/emulator" / manifest["pyodide"]).resolve()
    for name in ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json"):
        assert (runtime / name).is_file(), name


def test_pyodide_loads_the_standard_library_compiled_by_the_build(built):
    """The manifest and every page's prestart name one archive: the vendored one, with the modules Pyodide and
    the emulator import as bytecode in place of their sources, and every other file as it was."""
    manifest = json.loads((built / "assets/emulator/manifest.json").read_text())
    stdlib = built / "assets/emulator" / manifest["stdlib"]
    assert hashlib.sha256(stdlib.read_bytes()).hexdigest() == manifest["stdlibSha256"]
    page = (built / "guides/training-step/index.html").read_text()
    hint = re.search(r'<script data-worker="[^"]*" data-pyodide="[^"]*" data-stdlib="([^"]+)">', page)
    assert hint and (built / "guides/training-step" / hint[1]).resolve() == stdlib.resolve()
    stock = built / "assets/emulator" / manifest["pyodide"] / "python_stdlib.zip"
    with zipfile.ZipFile(stdlib) as compiled, zipfile.ZipFile(stock) as original:
        names, sources = set(compiled.namelist()), set(original.namelist())
    for module in ("inspect", "dataclasses", "json/__init__", "asyncio/__init__", "tomllib/_parser"):
        assert f"{module}.pyc" in names and f"{module}.py" not in names, module
    assert {name.removesuffix("c") for name in names} == sources
    assert "pydoc.py" in names, "a module no start imports stays as source"


def test_the_manifest_names_the_lab_of_each_lab_page(built):
    """The worker builds the next page's session when its link is clicked (protocol.js PREPARE)."""
    pages = json.loads((built / "assets/emulator/manifest.json").read_text())["pages"]
    assert pages["guides/training-step/"] == ["late-rank", 0]
    assert pages["guides/data-loading/"] == ["input-wait", 0]
    assert "" not in pages and "labs/" not in pages  # sandbox pages: every one rejoins the same session


def test_the_command_reference_page_lists_every_command(built):
    html = (built / "emulator/commands/index.html").read_text()
    for command in table.commands().commands():
        assert f'id="{command.name}"' in html or f"<code>{command.name}</code>" in html, command.name


def test_the_command_reference_tables_link_to_each_entry(built):
    html = (built / "emulator/commands/index.html").read_text()
    targets = re.findall(r'href="#([^"]+)"><code>', html)
    assert len(targets) >= len(table.commands().commands())
    for target in targets:
        assert f'id="{target}"' in html, target
