"""Build hook: put the terminal's runtime into the site.

After the pages are written this hook

* builds the ``emulator`` package into a pure-Python wheel (``py3-none-any``)
  from a clean copy of the sources, cached under ``.cache/wheels/`` by a hash
  of those sources, with the modules' comments and docstrings blanked
  (``tools/wheel_sources.py``: every line keeps its number);
* adds bytecode compiled by the vendored Pyodide's own CPython
  (``tools/wheel_bytecode.py``), so browsers import it instead of compiling
  every module at start;
* copies it to ``assets/emulator/<sha>/`` and writes
  ``assets/emulator/manifest.json`` (wheel path, sha256, Pyodide folder and
  version, and ``snapshot``: whether browsers may start the runtime from a
  memory snapshot they made themselves, from ``extra: snapshot:`` in
  mkdocs.yml, on unless set to false, and ``pages``: the lab and seed of each
  page whose terminal opens a lab, by the page's address in the site, so that
  the worker builds the next page's session as soon as its link is clicked),
  the one stable address the terminal's worker reads;
* copies the Pyodide runtime files from ``node_modules/pyodide`` (the version
  pinned in ``package.json``) to ``assets/pyodide/<version>/``, and sets
  ``extra.pyodide_version`` for the templates before the pages are written;
* before the pages are written, also compiles the standard-library modules
  that Pyodide and the emulator import (``tools/stdlib_bytecode.py``), cached
  under ``.cache/stdlib/``: the terminal loads Pyodide with that archive
  (``assets/emulator/<sha>/python_stdlib.zip``, named in the manifest as
  ``stdlib`` with its ``stdlibSha256``, and given to prestart.js as
  ``extra.stdlib_path``) instead of the one of sources it ships with.

Any missing piece fails the build with a message saying what to run.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

from mkdocs.exceptions import PluginError

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tools.stdlib_bytecode import StdlibError, compile_stdlib  # noqa: E402
from tools.wheel_bytecode import BytecodeError, add_bytecode  # noqa: E402
from tools.wheel_sources import blank_tree  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
PYODIDE_FILES = ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json")
WHEEL_SOURCES = ("pyproject.toml", "README.md", "emulator", "labs")


def _source_files() -> list[Path]:
    files: list[Path] = []
    for name in WHEEL_SOURCES:
        path = ROOT / name
        if not path.exists():
            raise PluginError(f"cannot build the emulator wheel: {name} is missing")
        if path.is_file():
            files.append(path)
        else:
            files += sorted(p for p in path.rglob("*") if p.is_file() and "__pycache__" not in p.parts
                            and p.suffix != ".pyc")
    return files


def _sources_hash(files: list[Path]) -> str:
    digest = hashlib.sha256()
    for path in files:
        digest.update(path.relative_to(ROOT).as_posix().encode() + b"\0")
        digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def build_wheel() -> Path:
    """The emulator wheel for the current sources, built once per change."""
    files = _source_files()
    tools = [ROOT / "tools" / name for name in ("wheel_bytecode.py", "wheel_bytecode.mjs", "wheel_sources.py")]
    tools.append(ROOT / "package-lock.json")
    cache = ROOT / ".cache" / "wheels" / _sources_hash(files + tools)
    built = sorted(cache.glob("*.whl")) if cache.is_dir() else []
    if built:
        return built[0]
    with tempfile.TemporaryDirectory(prefix="emulator-wheel-") as tmp:
        src = Path(tmp) / "src"
        for path in files:
            target = src / path.relative_to(ROOT)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target)
        blank_tree(src / "emulator")
        out = Path(tmp) / "dist"
        proc = subprocess.run(
            [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index",
             "--disable-pip-version-check", "-q", "-w", str(out), str(src)],
            capture_output=True, text=True, check=False,
        )
        if proc.returncode != 0:
            raise PluginError(f"building the emulator wheel failed:\n{proc.stdout}{proc.stderr}")
        wheels = sorted(out.glob("emulator-*.whl"))
        if len(wheels) != 1 or not wheels[0].name.endswith("-py3-none-any.whl"):
            raise PluginError(f"expected one py3-none-any emulator wheel, got {[w.name for w in wheels]}")
        check_wheel(wheels[0], files)
        try:
            add_bytecode(wheels[0], ROOT)
        except BytecodeError as error:
            raise PluginError(str(error)) from error
        cache.mkdir(parents=True, exist_ok=True)
        return Path(shutil.copy2(wheels[0], cache / wheels[0].name))


def build_stdlib(wheel: Path) -> Path:
    """Pyodide's standard library with what Pyodide and ``wheel`` import compiled, built once per change."""
    folder, _ = pyodide_dir()
    tools = [ROOT / "tools" / name for name in ("stdlib_bytecode.py", "stdlib_bytecode.mjs")]
    digest = hashlib.sha256(wheel.read_bytes() + b"\0" + (folder / "python_stdlib.zip").read_bytes())
    for path in tools:
        digest.update(b"\0" + path.read_bytes())
    built = ROOT / ".cache" / "stdlib" / digest.hexdigest()[:16] / "python_stdlib.zip"
    if built.is_file():
        return built
    built.parent.mkdir(parents=True, exist_ok=True)
    partial = built.with_suffix(".part")
    try:
        compile_stdlib(folder / "python_stdlib.zip", wheel, partial, ROOT)
    except StdlibError as error:
        raise PluginError(str(error)) from error
    partial.replace(built)
    return built


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def check_wheel(wheel: Path, files: list[Path]) -> None:
    """Every module, data file and lab file of the sources is in the wheel."""
    with zipfile.ZipFile(wheel) as archive:
        inside = set(archive.namelist())
    wanted = {p.relative_to(ROOT).as_posix() for p in files
              if p.suffix in (".py", ".json") and p.parent != ROOT / "labs"}
    wanted = {name for name in wanted if name.startswith("emulator/")}
    wanted |= {"emulator/labs_data/" + p.name for p in files if p.parent == ROOT / "labs" and p.suffix == ".toml"}
    missing = sorted(wanted - inside)
    if missing:
        raise PluginError("the emulator wheel lacks " + ", ".join(missing)
                          + ": list their packages under [tool.setuptools] packages (and data files under"
                          " package-data) in pyproject.toml")


def pyodide_dir() -> tuple[Path, str]:
    """The installed Pyodide package and its version, checked against the pin."""
    pinned = json.loads((ROOT / "package.json").read_text())["dependencies"]["pyodide"]
    folder = ROOT / "node_modules" / "pyodide"
    meta = folder / "package.json"
    if not meta.is_file():
        raise PluginError("node_modules/pyodide is missing: run `npm ci` (or `make site`)")
    version = json.loads(meta.read_text())["version"]
    if version != pinned:
        raise PluginError(f"node_modules/pyodide is {version} but package.json pins {pinned}: run `npm ci`")
    missing = [name for name in PYODIDE_FILES if not (folder / name).is_file()]
    if missing:
        raise PluginError(f"node_modules/pyodide lacks {', '.join(missing)}: run `npm ci`")
    return folder, version


def snapshots_enabled(config) -> bool:
    """``extra: snapshot:`` in mkdocs.yml: true (the default) or false."""
    value = (config.get("extra") or {}).get("snapshot", True)
    if not isinstance(value, bool):
        raise PluginError(f"mkdocs.yml extra: snapshot: must be true or false, not {value!r}")
    return value


#: [lab, seed] of each page whose terminal opens a lab (not the sandbox), by the page's address ("guides/x/").
_page_labs: dict[str, list[str | int]] = {}


def on_pre_build(config):
    _page_labs.clear()


def on_page_context(context, page, config, nav):
    """Note the page's lab (hooks/labs.py has set ``lab`` and ``seed`` in its metadata) for the manifest."""
    lab = page.meta.get("lab")
    if lab and lab != "sandbox":
        _page_labs[page.url] = [lab, int(page.meta.get("seed") or 0)]
    return context


def on_config(config):
    """Tell the templates the Pyodide version and the compiled standard library's path: prestart.js hints both
    to the worker (see main.html)."""
    config["extra"]["pyodide_version"] = pyodide_dir()[1]
    stdlib = _sha256(build_stdlib(build_wheel()))[:12]
    config["extra"]["stdlib_path"] = f"assets/emulator/{stdlib}/python_stdlib.zip"
    return config


def on_post_build(config):
    site = Path(config["site_dir"])
    folder, version = pyodide_dir()
    runtime = site / "assets" / "pyodide" / version
    runtime.mkdir(parents=True, exist_ok=True)
    for name in PYODIDE_FILES:
        shutil.copyfile(folder / name, runtime / name)

    wheel = build_wheel()
    sha256 = hashlib.sha256(wheel.read_bytes()).hexdigest()
    assets = site / "assets" / "emulator"
    if assets.exists():
        shutil.rmtree(assets)
    (assets / sha256[:12]).mkdir(parents=True)
    shutil.copyfile(wheel, assets / sha256[:12] / wheel.name)
    stdlib = build_stdlib(wheel)
    stdlib_sha256 = _sha256(stdlib)
    (assets / stdlib_sha256[:12]).mkdir(exist_ok=True)
    shutil.copyfile(stdlib, assets / stdlib_sha256[:12] / stdlib.name)
    manifest = {
        "wheel": f"{sha256[:12]}/{wheel.name}",
        "sha256": sha256,
        "stdlib": f"{stdlib_sha256[:12]}/{stdlib.name}",
        "stdlibSha256": stdlib_sha256,
        "pyodide": f"../pyodide/{version}/",
        "pyodideVersion": version,
        "snapshot": snapshots_enabled(config),
        "pages": dict(sorted(_page_labs.items())),
    }
    (assets / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
