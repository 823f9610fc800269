"""The contributors' page tells the truth: its minimal lab is the lab file itself."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "contributing.md"
LAB = ROOT / "labs" / "workloads-cost.toml"
ANNOTATION = re.compile(r"  # \(\d+\)!$", re.M)


def _minimal_lab_block() -> str:
    text = PAGE.read_text(encoding="utf-8")
    section = text.split("## A minimal lab to copy", 1)[1]
    return section.split("```toml\n", 1)[1].split("\n```", 1)[0] + "\n"


def test_the_minimal_lab_is_the_real_lab_file_with_notes_added():
    block = _minimal_lab_block()
    notes = ANNOTATION.findall(block)
    assert len(notes) >= 8, "the block lost its numbered notes"
    assert ANNOTATION.sub("", block) == LAB.read_text(encoding="utf-8")


def test_every_note_marker_has_its_note():
    section = PAGE.read_text(encoding="utf-8").split("## A minimal lab to copy", 1)[1].split("\n## ", 1)[0]
    markers = [int(n) for n in re.findall(r"  # \((\d+)\)!$", section, re.M)]
    listed = [int(n) for n in re.findall(r"^(\d+)\.\s", section, re.M)]
    assert markers == list(range(1, len(markers) + 1)) == listed
