"""Benchmarks of the emulator package itself: the wheel the browser downloads, and its import time.

Both must not grow as the emulator's layers are reshaped: the targets are the
figures measured at the last commit before the reshaping (d7e9f88), with this
same code, on this machine.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
Row = tuple[str, float, str, float | None, str]

#: The wheel's size and the median import time before the layers were reshaped.
WHEEL_KB_BEFORE = 1358.0
IMPORT_MS_BEFORE = 433.0

#: Imports the session facade and builds the command table, as the first command does, in a fresh process.
_IMPORT = """
import time
start = time.process_time()
from emulator.session import Session
Session().execute("true")
print((time.process_time() - start) * 1000.0)
"""


def wheel_kb(root: Path = ROOT) -> float:
    """Size of the wheel the site ships (bytecode included), in KiB."""
    sys.path.insert(0, str(root))
    try:
        from hooks.runtime import build_wheel

        return build_wheel().stat().st_size / 1024.0
    finally:
        sys.path.remove(str(root))


def import_ms(root: Path = ROOT, runs: int = 7) -> float:
    """Median CPU time to import the session facade and run a first command, each in a fresh CPython with
    bytecode (CPU time, so that other work on the shared cores does not count)."""
    samples = []
    subprocess.run([sys.executable, "-c", _IMPORT], cwd=root, capture_output=True, check=True)  # write bytecode
    for _ in range(runs):
        out = subprocess.run([sys.executable, "-c", _IMPORT], cwd=root, capture_output=True, text=True,
                             check=True)
        samples.append(float(out.stdout.strip().splitlines()[-1]))
    return statistics.median(samples)


def package_figures() -> list[Row]:
    return [("emulator wheel", wheel_kb(), "KiB", WHEEL_KB_BEFORE, "max"),
            ("import and first command, fresh CPython", import_ms(), "ms", IMPORT_MS_BEFORE, "max")]
