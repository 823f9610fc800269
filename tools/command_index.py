"""Write emulator/commands/index.json: what the registry knows of every command before its family is imported.

Run it after adding, renaming or changing the flags or facts of a command:

    .venv/bin/python tools/command_index.py

``tests/test_command_index.py`` fails while the file is stale.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from emulator.commands import registry  # noqa: E402

INDEX = ROOT / "emulator" / "commands" / "index.json"


def render() -> str:
    """The index as it should be for the current sources: one command a line, so that a diff reads well."""
    entries = [json.dumps(entry, sort_keys=True) for entry in registry.build_index()]
    return "[\n" + ",\n".join(entries) + "\n]\n"


if __name__ == "__main__":
    INDEX.write_text(render())
    print(f"wrote {INDEX.relative_to(ROOT)}")
