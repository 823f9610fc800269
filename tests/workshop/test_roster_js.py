"""The instructor page's script computes the same student seeds as Python, and reads rosters and codes as documented.

Runs docs/assets/javascripts/workshop/roster.js under Node (skipped without it).
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from emulator import labs

ROOT = Path(__file__).resolve().parents[2]
ROSTER = ROOT / "docs/assets/javascripts/workshop/roster.js"
pytestmark = pytest.mark.skipif(shutil.which("node") is None, reason="needs Node")

NAMES = ["Ana Lima", "  ana   LIMA ", "Bo", "José Ñúñez", "李雷", "O'Brien, Pat", "x" * 64]


def node(script: str):
    """The JSON a script printed, with roster.js imported as ``r``."""
    code = f"import * as r from {json.dumps(ROSTER.as_uri())};\n{script}"
    proc = subprocess.run(["node", "--input-type=module", "-e", code], capture_output=True, text=True, check=True)
    return json.loads(proc.stdout)


def test_the_page_and_python_derive_the_same_seed_for_every_name():
    seeds = node(f"console.log(JSON.stringify({json.dumps(NAMES)}.map(n => r.studentSeed('GPU week, March', n))))")
    assert seeds == [labs.student_seed("GPU week, March", name) for name in NAMES]


def test_students_come_from_lines_or_a_csv_with_a_header_each_once():
    text = 'Name,email\n"O\'Brien, Pat",p@x\nAna Lima,a@x\n\nana  lima,dup@x\n'
    assert node(f"console.log(JSON.stringify(r.parseStudents({json.dumps(text)})))") == ["O'Brien, Pat", "Ana Lima"]


def test_codes_come_bare_or_after_a_student_and_the_csv_quotes_what_needs_it():
    text = "student,code\nAna Lima,CL1-ABC\nCL1-XYZ\nnot a code\n"
    assert node(f"console.log(JSON.stringify(r.parseCodes({json.dumps(text)})))") == [
        {"student": "Ana Lima", "code": "CL1-ABC"}, {"student": "", "code": "CL1-XYZ"}]
    rows = node("""const rows = r.roster("W", ["O'Brien, Pat"], [{lab: "nvlink", page: "reference/nvlink-nvswitch/"}],
                   "http://127.0.0.1:8000/"); console.log(JSON.stringify(r.rosterCsv("W", rows)))""")
    seed = labs.student_seed("W", "O'Brien, Pat")
    assert rows == ("workshop,student,seed,lab,link\n"
                    f'W,"O\'Brien, Pat",{seed},nvlink,http://127.0.0.1:8000/reference/nvlink-nvswitch/?lab=nvlink&seed={seed}'
                    "&student=O%27Brien%2C%20Pat\n")
