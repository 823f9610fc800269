"""Benchmarks of the site build: a full ``mkdocs build`` and a rebuild after one edit."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
Row = tuple[str, float, str, float | None, str]


def _build(source: Path, out: Path) -> float:
    env = {**os.environ, "SITE_URL": "http://127.0.0.1:8000/", "NO_MKDOCS_2_WARNING": "1"}
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "-d", str(out)],
                   cwd=source, env=env, check=True)
    return time.perf_counter() - start


def build_times() -> list[Row]:
    """Time a full build of a copy of the project, then a build after editing one page."""
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "project"
        shutil.copytree(ROOT, copy, ignore=shutil.ignore_patterns(".git", ".venv", ".cache", "site", "test-results",
                                                                   "bench-results", "__pycache__", "node_modules"))
        (copy / "node_modules").symlink_to(ROOT / "node_modules")
        full = _build(copy, Path(tmp) / "site")
        page = copy / "docs" / "index.md"
        page.write_text(page.read_text() + "\n<!-- edited by the benchmark -->\n")
        again = _build(copy, Path(tmp) / "site")
    return [("full mkdocs build", full, "s", 30.0, "max"),
            ("rebuild after editing one page", again, "s", None, "")]
