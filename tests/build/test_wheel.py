"""The wheel the site ships, installed in this CPython: it runs, prints what the checkout prints, and its
blanked sources keep every line where the checkout has it (tracebacks point at the same lines)."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from hooks.runtime import build_wheel
from emulator.session import Session
from tools.wheel_sources import blank

ROOT = Path(__file__).resolve().parents[2]
LINES = ("ssh node01 nvidia-smi -L", "man awk", "awk --help", "sinfo", "help")


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    target = tmp_path_factory.mktemp("site-packages")
    subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "--no-index", "--disable-pip-version-check",
                    "-q", "--target", str(target), str(build_wheel())], check=True)
    return target


def _from_wheel(target: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(target)}
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, env=env, cwd=target.parent,
                          check=False)


def test_the_installed_wheel_is_what_python_imports(installed: Path) -> None:
    proc = _from_wheel(installed, "-c", "import emulator; print(emulator.__file__)")
    assert proc.stdout.strip() == str(installed / "emulator" / "__init__.py")


@pytest.mark.parametrize("line", LINES)
def test_python_m_emulator_from_the_wheel_prints_what_the_checkout_prints(installed: Path, line: str) -> None:
    proc = _from_wheel(installed, "-m", "emulator", "-c", line)
    text, status = Session().execute(line)
    assert (proc.returncode, proc.stdout, proc.stderr) == (status, text, "")


def test_awk_help_from_the_wheel_keeps_the_module_docstring_it_shows(installed: Path) -> None:
    proc = _from_wheel(installed, "-m", "emulator", "-c", "awk --help")
    assert "awk: a documented subset of POSIX awk, enough for operators' one-liners." in proc.stdout


def test_blanking_keeps_every_line_number_and_drops_comments() -> None:
    with zipfile.ZipFile(build_wheel()) as wheel:
        names = [n for n in wheel.namelist() if n.endswith(".py")]
        assert len(names) > 100
        for name in names:
            shipped = wheel.read(name).decode()
            source = (ROOT / name).read_text()
            assert shipped.count("\n") == source.count("\n"), name
            assert shipped == blank(source), name
    assert blank('"""Doc."""\nx = 1  # note\n') == '""\nx = 1\n'


MOUNTED = """
import io, json, sys
from contextlib import redirect_stdout
wheel, site_packages, line = sys.argv[1:]
sys.path.insert(0, wheel)
from emulator import wheelimport
wheelimport.mount(wheel, site_packages)
import emulator.web as web
assert web.__file__ == f"{site_packages}/emulator/web.py", web.__file__
assert wheel not in sys.path and not any(m == "emulator" and "zip" in str(type(v.__loader__)) for m, v in sys.modules.items())
sid = json.loads(web.open_session("sandbox", 0, None))["sid"]
web.start(sid, line)
out = []
while True:
    reply = json.loads(web.step(sid))
    out += [text for kind, text in reply["out"]]
    if reply["done"]:
        break
print("".join(out), end="")
"""


@pytest.mark.parametrize("line", ["help", "man awk", "lab list"])
def test_the_package_imported_straight_from_the_wheel_prints_what_the_checkout_prints(
        tmp_path: Path, line: str) -> None:
    """emulator.wheelimport, as the browser's first visit uses it: no unpacking, modules read from the archive
    (here compiled from its sources, since the wheel's bytecode is Pyodide's), package data as files."""
    site_packages = tmp_path / "site-packages"
    proc = subprocess.run([sys.executable, "-I", "-c", MOUNTED, str(build_wheel()), str(site_packages), line],
                          capture_output=True, text=True, cwd=tmp_path, check=False)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == Session("sandbox", 0).execute(line)[0]
    assert sorted(p.name for p in (site_packages / "emulator").iterdir()) == ["commands", "labs_data"]
    assert not list(site_packages.rglob("*.py")), "only the package data is extracted"
