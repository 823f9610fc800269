"""Build hook: generate the command reference from the command table.

``docs/emulator/commands.md`` holds an introduction and the marker
``<!-- command-reference -->``; this hook replaces the marker with one section
per help section and, for each command, its summary and ``--help`` text, all
read from :func:`emulator.shell.table.commands`. The page cannot drift
from what the terminal accepts.
"""

from __future__ import annotations

import sys
from pathlib import Path

from mkdocs.exceptions import PluginError

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from emulator.shell import table  # noqa: E402

PAGE = "emulator/commands.md"
MARKER = "<!-- command-reference -->"


def reference_markdown() -> str:
    """The generated part of the page."""
    listed = table.commands().commands()
    if not listed:
        return "No commands are registered yet.\n"
    parts: list[str] = []
    section = None
    for command in listed:
        if command.section != section:
            section = command.section
            parts.append(f"## {section}\n")
            parts.append(_section_table([c for c in listed if c.section == section]))
        aliases = f" (also `{'`, `'.join(command.aliases)}`)" if command.aliases else ""
        parts.append(f"### `{command.name}`\n\n{command.summary}{aliases}\n")
        text = command.help_text().rstrip("\n")
        parts.append(f"```text\n{text}\n```\n")
    return "\n".join(parts)


def _section_table(section: list) -> str:
    """One row per command of a section: name (linking to its entry) and summary."""
    rows = ["| Command | What it does |", "|---|---|"]
    for command in section:
        summary = command.summary.replace("|", "\\|")
        rows.append(f"| [`{command.name}`](#{_anchor(command.name)}) | {summary} |")
    return "\n".join(rows) + "\n"


def _anchor(name: str) -> str:
    """The id MkDocs' toc gives the heading ``### `name` ``."""
    return "".join(ch for ch in name.lower() if ch.isalnum() or ch in "-_")


def on_page_markdown(markdown, page, config, files):
    if page.file.src_uri != PAGE:
        return markdown
    if MARKER not in markdown:
        raise PluginError(f"{PAGE}: the marker {MARKER} is missing, so the command reference has nowhere to go")
    return markdown.replace(MARKER, reference_markdown())
