"""The vendored Pyodide's standard library with the modules the terminal imports compiled to bytecode.

Pyodide's ``python_stdlib.zip`` holds only ``.py`` sources, and ``zipimport``
cannot cache what it compiles: every fresh start compiled some 165 modules
from source in the browser, most of them while Pyodide itself started (about
two thirds of its start under Node). ``stdlib_bytecode.mjs`` runs that same
Pyodide under Node, imports the emulator as the browser does, and compiles
each standard-library module then loaded to an unchecked-hash ``.pyc`` (PEP
552) without column ranges. This module writes the archive the site ships:
the original, with each of those sources replaced by its ``.pyc`` at the same
path (``zipimport`` imports a ``.pyc`` that has no source beside it). Every
other file stays as it was, so a module no start imports is still there, as
source. Entries get one fixed timestamp, so the same inputs give the same
bytes.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
#: The timestamp of every entry, so the same inputs give the same archive.
ZIP_TIME = (1980, 1, 1, 0, 0, 0)


class StdlibError(RuntimeError):
    """Compiling under Pyodide failed; the message says why."""


def compile_stdlib(stdlib: Path, wheel: Path, out: Path, root: Path) -> int:
    """Write to ``out`` the archive ``stdlib`` with the modules Pyodide and ``wheel`` import compiled; how many."""
    node = shutil.which("node")
    if node is None:
        raise StdlibError("node is not installed: the build compiles the standard library with Pyodide under Node")
    with tempfile.TemporaryDirectory(prefix="stdlib-bytecode-") as tmp:
        compiled = Path(tmp) / "pyc"
        proc = subprocess.run([node, str(HERE / "stdlib_bytecode.mjs"), str(stdlib), str(wheel), str(compiled)],
                              cwd=root, capture_output=True, text=True, check=False)
        if proc.returncode != 0:
            raise StdlibError(f"compiling the standard library under Pyodide failed: {proc.stderr.strip()}")
        names = {path.relative_to(compiled).as_posix() for path in compiled.rglob("*.pyc")}
        with zipfile.ZipFile(stdlib) as source, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as target:
            for info in source.infolist():
                name = info.filename + "c" if info.filename + "c" in names else info.filename
                data = (compiled / name).read_bytes() if name in names else source.read(info.filename)
                entry = zipfile.ZipInfo(name, ZIP_TIME)
                entry.external_attr = info.external_attr
                target.writestr(entry, data, zipfile.ZIP_DEFLATED, compresslevel=9)
    return len(names)
