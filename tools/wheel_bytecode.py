"""Add bytecode compiled by the vendored Pyodide to the emulator wheel.

The browser runs the wheel in Pyodide, whose CPython would otherwise compile
every module from source on each fresh start (over a second for this
package). The build runs that same CPython once under Node
(``wheel_bytecode.mjs``), compiles each module to an unchecked-hash ``.pyc``
(PEP 552: imported without looking at the source's timestamp), leaving out
the docstrings and function annotations nothing reads at run time and the
column ranges of tracebacks (``wheel_bytecode.mjs`` says which stay), and adds the files to the wheel, with their
``RECORD`` lines, recompressing the whole wheel at deflate's highest level. CPython here ignores them:
their magic number is another version's.
"""

from __future__ import annotations

import base64
import hashlib
import shutil
import subprocess
import tempfile
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
#: A fixed timestamp for the added entries, so the same sources give the same bytes.
ZIP_TIME = (1980, 1, 1, 0, 0, 0)


class BytecodeError(RuntimeError):
    """Compiling under Pyodide failed; the message says why."""


def _record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def add_bytecode(wheel: Path, root: Path) -> int:
    """Rewrite ``wheel`` in place with Pyodide bytecode added; the number of .pyc files."""
    node = shutil.which("node")
    if node is None:
        raise BytecodeError("node is not installed: the build compiles the wheel with Pyodide under Node")
    with tempfile.TemporaryDirectory(prefix="wheel-bytecode-") as tmp:
        out = Path(tmp) / "pyc"
        proc = subprocess.run([node, str(HERE / "wheel_bytecode.mjs"), str(wheel), str(out)], cwd=root,
                              capture_output=True, text=True, check=False)
        if proc.returncode != 0:
            raise BytecodeError(f"compiling the wheel under Pyodide failed: {proc.stderr.strip()}")
        added = sorted(p for p in out.rglob("*.pyc"))
        rebuilt = Path(tmp) / wheel.name
        with zipfile.ZipFile(wheel) as source, zipfile.ZipFile(rebuilt, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as target:
            record_name = next(n for n in source.namelist() if n.endswith(".dist-info/RECORD"))
            record = source.read(record_name).decode().rstrip("\n").split("\n")
            for info in source.infolist():
                if info.filename != record_name:
                    target.writestr(info, source.read(info.filename), compresslevel=9)
            for path in added:
                name = path.relative_to(out).as_posix()
                data = path.read_bytes()
                target.writestr(zipfile.ZipInfo(name, ZIP_TIME), data, zipfile.ZIP_DEFLATED, compresslevel=9)
                record.insert(-1, _record_line(name, data))
            target.writestr(source.getinfo(record_name), "\n".join(record) + "\n", compresslevel=9)
        shutil.copyfile(rebuilt, wheel)
    return len(added)
