"""The Pyodide lane: the emulator in CPython here and in WebAssembly must agree.

The browser runs the emulator wheel in Pyodide (a newer CPython compiled to
WebAssembly). This test builds the wheel, replays the same scenarios in this
CPython and in the vendored Pyodide under Node, and compares every output and
exit status. The wheel is the one the site ships (``hooks.runtime.build_wheel``:
blanked sources, Pyodide bytecode without docstrings and annotations), so what
the build strips is proved unread; Pyodide loads the standard library the site
ships (``hooks.runtime.build_stdlib``: the modules Pyodide and the emulator
import, compiled), and imports the emulator straight from the wheel, as the
browser does on a first visit. No standard-library module is compiled from
source on the way. Scenarios: the representative commands of
the benchmark and every command's manual page on the healthy sandbox, and
every lab's reference procedure with the right finding.
"""

from __future__ import annotations

import difflib
import json
import shutil
import subprocess
from pathlib import Path

import pytest

from emulator import labs
from emulator.commands import registry
from hooks.runtime import build_stdlib, build_wheel

from .transcript import run_scenarios

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent

pytestmark = pytest.mark.skipif(shutil.which("node") is None or not (ROOT / "node_modules/pyodide").is_dir(),
                                reason="needs Node and node_modules/pyodide (make test installs both)")


def representative_commands() -> list[str]:
    lines = (ROOT / "bench/representative_commands.txt").read_text().splitlines()
    return [line for line in lines if line.strip() and not line.startswith("#")]


def reference_lines(lab_id: str, seed: int) -> list[str]:
    """The lab's reference procedure with its placeholders filled, then the right finding."""
    lab = labs.get(lab_id)
    truth = labs.cluster_for(lab_id, seed).truth()
    lines = [labs.substitute(line, truth) for step in lab.solution for line in step.run]
    if lab.check is not None:
        lines.append(labs.substitute(lab.submit_form(), truth))
    return lines


def scenarios() -> list[dict]:
    manuals = [f"man {entry['name']}" for entry in registry.index()]
    found = [{"lab": None, "seed": 0, "lines": representative_commands() + manuals}]
    for lab_id in labs.known_labs():
        if not labs.get(lab_id).is_sandbox:
            found.append({"lab": lab_id, "seed": 3, "lines": reference_lines(lab_id, 3)})
    return found


@pytest.fixture(scope="module")
def wheel() -> Path:
    """The wheel the site ships, bytecode included."""
    return build_wheel()


def test_pyodide_transcripts_match_cpython(wheel: Path, tmp_path: Path) -> None:
    """Every scenario prints the same text and status in Pyodide as in CPython."""
    plan = scenarios()
    spec = tmp_path / "scenarios.json"
    spec.write_text(json.dumps(plan))
    proc = subprocess.run(["node", str(HERE / "lane.mjs"), str(wheel), str(build_stdlib(wheel)),
                           str(HERE / "transcript.py"), str(spec)],
                          capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert proc.returncode == 0, proc.stderr[-4000:]
    lane = json.loads(proc.stdout)
    assert lane["fromSource"] == [], "compiled from source in the browser: " + ", ".join(lane["fromSource"])
    in_wasm = lane["transcripts"]
    here = run_scenarios(plan)
    assert len(in_wasm) == len(here)
    for a, b in zip(here, in_wasm):
        if a != b:
            diff = "\n".join(difflib.unified_diff(a["text"].splitlines(), b["text"].splitlines(),
                                                  "cpython", "pyodide", lineterm=""))
            pytest.fail(f"[{a['lab']} seed {a['seed']}] {a['line']!r}: status {a['status']} vs {b['status']}\n{diff}")
