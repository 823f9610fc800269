"""The site builds with no network at all.

The build runs in a new network namespace (``unshare -n``: only a loopback
interface, down), so any attempt to fetch a font, a CDN script or a package
fails it. Where the kernel does not allow unprivileged namespaces the test is
skipped and says why.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

from .test_hooks import project_copy


def _namespaces_allowed() -> str | None:
    if shutil.which("unshare") is None:
        return "unshare (util-linux) is not installed"
    probe = subprocess.run(["unshare", "-n", "--", "true"], capture_output=True, text=True, check=False)
    if probe.returncode != 0:
        return f"this machine does not allow a new network namespace: {probe.stderr.strip()}"
    return None


def test_the_site_builds_with_the_network_unavailable(tmp_path):
    reason = _namespaces_allowed()
    if reason:
        pytest.skip(reason)
    root = project_copy(tmp_path)
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "PIP_NO_INDEX": "1"}
    built = subprocess.run(["unshare", "-n", "--", sys.executable, "-m", "mkdocs", "build", "--strict", "-q",
                            "-d", str(root / "out")], cwd=root, env=env, capture_output=True, text=True, check=False)
    assert built.returncode == 0, built.stdout + built.stderr
    assert (root / "out" / "assets" / "emulator" / "manifest.json").is_file()
    (pyodide,) = (root / "out" / "assets" / "pyodide").iterdir()
    assert (pyodide / "pyodide.asm.wasm").is_file()
