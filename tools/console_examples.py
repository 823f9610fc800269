"""Console examples of the handbook: parse them, and regenerate their output.

A fenced block with the language ``console`` is a transcript: a line that
starts with ``$ `` is a command typed at the page's terminal, and the lines
after it, up to the next ``$ `` line or the end of the block, are its exact
output. The page's front matter names the lab (``lab:``) and optionally the
seed (``seed:``, default 0); all blocks of a page run in order in one fresh
session, as a reader clicking "Run in terminal" down the page would.

``tests/docs/test_console_examples.py`` checks every page with these
functions. To write or refresh a page's examples, type only the ``$ `` lines
and run::

    .venv/bin/python tools/console_examples.py docs/reference/nccl.md

which replaces every block's output with what the emulator prints.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

PROMPT = "$ "
FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})\s*(?P<info>[^`\s]*)(?P<rest>.*)$")


@dataclass
class Example:
    """One command of a console block and the output the page shows for it."""

    line: int
    command: str
    output: list[str] = field(default_factory=list)

    @property
    def expected(self) -> str:
        return "\n".join(self.output)


@dataclass
class Block:
    """A fenced block: where its body starts and ends (0-based, end exclusive), its indent and language."""

    start: int
    end: int
    indent: str
    info: str


def front_matter(text: str) -> dict[str, str]:
    """The ``key: value`` pairs of a page's YAML front matter (flat keys only)."""
    lines = text.splitlines()
    if not lines or lines[0].strip() != "---":
        return {}
    meta: dict[str, str] = {}
    for line in lines[1:]:
        if line.strip() == "---":
            break
        key, sep, value = line.partition(":")
        if sep and not line.startswith((" ", "\t")):
            meta[key.strip()] = value.strip().strip("\"'")
    return meta


def lab_and_seed(text: str) -> tuple[str, int]:
    meta = front_matter(text)
    return meta.get("lab", "sandbox"), int(meta.get("seed", "0") or 0)


def blocks(lines: list[str]) -> list[Block]:
    """Every fenced block of a page, indented ones (in admonitions, tabs, lists) included."""
    found: list[Block] = []
    i = 0
    while i < len(lines):
        match = FENCE.match(lines[i])
        if not match:
            i += 1
            continue
        indent, fence = match["indent"], match["fence"]
        closing = re.compile(rf"^{re.escape(indent)}{re.escape(fence[0])}{{{len(fence)},}}\s*$")
        start = i = i + 1
        while i < len(lines) and not closing.match(lines[i]):
            i += 1
        found.append(Block(start, i, indent, match["info"]))
        i += 1
    return found


def _dedent(raw: str, indent: str) -> str:
    return raw[len(indent):] if raw.startswith(indent) else raw.lstrip(" ")


def console_examples(text: str) -> list[Example]:
    """Commands and outputs of every ``console`` block, in page order."""
    lines = text.splitlines()
    examples: list[Example] = []
    for block in blocks(lines):
        if block.info != "console":
            continue
        current: Example | None = None
        for number in range(block.start, block.end):
            line = _dedent(lines[number], block.indent)
            if line.startswith(PROMPT):
                current = Example(number + 1, line[len(PROMPT):])
                examples.append(current)
            elif current is not None:
                current.output.append(line)
    return examples


def emulator_output(out: str) -> str:
    """What a block can show of a command's output: all of it but one trailing newline."""
    return out[:-1] if out.endswith("\n") else out


def regenerate(text: str) -> str:
    """The page with every console block's output replaced by what the emulator prints."""
    from emulator.session import Session

    lab, seed = lab_and_seed(text)
    session = Session(lab=lab, seed=seed)
    lines = text.splitlines()
    result: list[str] = []
    done = 0
    for block in blocks(lines):
        if block.info != "console":
            continue
        result.extend(lines[done:block.start])
        for raw in lines[block.start:block.end]:
            line = _dedent(raw, block.indent)
            if not line.startswith(PROMPT):
                continue
            result.append(block.indent + line)
            out, _status = session.execute(line[len(PROMPT):])
            output = emulator_output(out)
            if output:
                result.extend(block.indent + part if part else "" for part in output.split("\n"))
        done = block.end
    result.extend(lines[done:])
    return "\n".join(result) + "\n"


def main(argv: list[str]) -> int:
    if not argv:
        print("usage: console_examples.py PAGE.md...", file=sys.stderr)
        return 2
    for name in argv:
        path = Path(name)
        path.write_text(regenerate(path.read_text(encoding="utf-8")), encoding="utf-8")
        print(f"regenerated {path}")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    sys.exit(main(sys.argv[1:]))
