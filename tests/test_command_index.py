"""The command index: current with the sources, true to the real commands, and what keeps families unimported.

The registry answers ``help``, completion and dispatch facts from
``emulator/commands/index.json`` and imports a family only when one of its
commands runs; ``tools/command_index.py`` regenerates the file.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from emulator.commands import registry
from emulator.shell import table
from tools import command_index

ROOT = Path(__file__).resolve().parents[1]


def test_the_index_is_current():
    assert command_index.INDEX.read_text() == command_index.render(), "run: .venv/bin/python tools/command_index.py"


@pytest.mark.parametrize("entry", registry.index(), ids=lambda e: e["name"])
def test_an_indexed_command_answers_as_the_real_one(entry):
    indexed = table.commands().lookup(entry["name"])
    assert isinstance(indexed, registry.IndexedCommand)
    real = indexed.real()
    for fact in ("name", "aliases", "section", "summary", "builtin", "directory", "streams", "filters_lines",
                 "whole_input_flags", "reads_only"):
        assert getattr(indexed, fact) == getattr(real, fact), fact
    assert indexed.option_strings() == real.option_strings()
    assert indexed.subcommands() == real.subcommands()
    assert indexed.help_text() == real.help_text()
    for words in ([], ["-f"], ["x", "y"], ["-q", "-x"]):
        assert indexed.pure(words) == real.pure(words)


def _imported_after(lines: list[str]) -> set[str]:
    """The emulator's command families imported by a fresh CPython after typing ``lines``."""
    script = ("import json, sys\nfrom emulator.session import Session\ns = Session()\n"
              f"for line in {lines!r}:\n    s.execute(line)\n"
              "print(json.dumps(sorted(m for m in sys.modules if m.startswith('emulator.commands.'))))")
    out = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, check=True)
    return {name.split(".")[2] for name in json.loads(out.stdout)}


def test_help_lists_every_command_without_importing_their_families():
    families = _imported_after(["help", "hostname"]) & set(registry.FAMILIES)
    assert families == {"help", "basics"}, families


def test_a_command_imports_its_own_family_only():
    families = _imported_after(["ssh node01 nvidia-smi -L"]) & set(registry.FAMILIES)
    assert families == {"nvsmi"}, families
