"""``progress export PATH`` and ``progress import PATH`` in the command-line emulator: the page's file format,
merged so that a fresh session prints the codes of the labs solved elsewhere; a corrupt, foreign or newer file
is refused and changes nothing."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from emulator import web
from emulator.__main__ import run_line
from emulator.completion import verify
from emulator.session import Session
from tests.workshop.test_completion_codes import solve

ROOT = Path(__file__).resolve().parents[2]
PROGRESSFILE = ROOT / "docs/assets/javascripts/workshop/progressfile.js"


def typed(session: Session, line: str) -> int:
    return run_line(session, line, sleep=False, timeout=0)[1]


def test_export_then_import_in_a_fresh_session_restores_the_solve_and_its_code(tmp_path, capsys):
    session, _ = solve("storage", 3, before=("hint",))
    typed(session, "export STUDENT='Ana Lima'")
    path = tmp_path / "progress.json"
    assert typed(session, f"progress export {path}") == 0
    assert capsys.readouterr().out.endswith(f"progress export: saved to {path}\n")
    data = json.loads(path.read_text())
    assert (data["format"], data["schema"], data["student"]) == ("gpu-cluster-handbook-progress", 1, "Ana Lima")
    assert data["solved"] == {"storage": {"seed": 3, "hints": 1, "attempts": 1}}
    [record] = data["terminals"]
    assert (record["lab"], record["seed"], record["history"][-1]) == ("storage", 3, f"progress export {path}")

    fresh = Session()
    assert typed(fresh, f"progress import {path}") == 0
    assert "1 terminal(s) and 1 lab run(s) added" in capsys.readouterr().out
    out, status = fresh.execute("completion --student 'Ana Lima'")
    assert status == 0
    assert verify(out.splitlines()[-1]) == "OK lab=storage seed=3 student=Ana Lima hints=1 solutions=no"
    again = tmp_path / "again.json"
    typed(fresh, f"progress export {again}")
    assert json.loads(again.read_text())["solved"] == data["solved"]


def test_the_page_restores_the_terminal_the_cli_exported(tmp_path):
    session, _ = solve("nvlink", 1)
    path = tmp_path / "p.json"
    typed(session, f"progress export {path}")
    [record] = json.loads(path.read_text())["terminals"]
    opened = json.loads(web.open_session(record["lab"], record["seed"], record["state"]))
    assert (opened["lab"], opened["notice"], opened["solved"]) == ("nvlink", None, {"hints": 0, "attempts": 1})


@pytest.mark.parametrize(("text", "reason"), [
    ('{"format": "gpu-cluster-handbook-progress", "schema": 1, "solved": {}, "terminals": [', "not readable JSON"),
    ('{"format": "someone-else", "schema": 1}', "not a progress file of this site"),
    ('{"format": "gpu-cluster-handbook-progress", "schema": 9, "solved": {}, "terminals": []}',
     "made by a newer version of this site (schema 9; this one reads 1)"),
    ('{"format": "gpu-cluster-handbook-progress", "schema": 1, "solved": {"storage": {"seed": -1}}, '
     '"terminals": []}', "damaged"),
])
def test_a_corrupt_foreign_or_newer_file_is_refused_and_changes_nothing(tmp_path, capsys, text, reason):
    session, _ = solve("storage", 2)
    before = dict(session.lab_runs)
    path = tmp_path / "bad.json"
    path.write_text(text)
    assert typed(session, f"progress import {path}") == 1
    err = capsys.readouterr().err
    assert f"progress import: {path} was not imported, and nothing changed." in err and reason in err
    assert session.lab_runs == before and session.imported == {}


def test_a_missing_file_or_path_and_a_pipe_say_so(tmp_path, capsys):
    session = Session()
    assert typed(session, f"progress import {tmp_path}/none.json") == 1
    assert capsys.readouterr().err == f"progress import: {tmp_path}/none.json: No such file or directory\n"
    assert typed(session, "progress export") == 2
    assert capsys.readouterr().err == "progress export: give the file: progress export PATH\n"
    out, status = session.execute("progress export x | cat")
    assert "not sent to a pipe" in out and session.request is None


@pytest.mark.skipif(shutil.which("node") is None, reason="needs Node")
def test_the_page_reads_the_file_the_cli_writes(tmp_path):
    session, _ = solve("storage", 5)
    path = tmp_path / "p.json"
    typed(session, f"progress export {path}")
    script = (f"import {{ read }} from {json.dumps(PROGRESSFILE.as_uri())};\n"
              f"const data = read({json.dumps(path.read_text())});\n"
              "console.log(JSON.stringify([data.solved, data.terminals.length]));")
    proc = subprocess.run(["node", "--input-type=module", "-e", script], capture_output=True, text=True, check=True)
    assert json.loads(proc.stdout) == [{"storage": {"seed": 5, "hints": 0, "attempts": 1}}, 1]
