"""Every console example in the handbook is what the emulator prints.

A fenced block with the language ``console`` is a transcript: a line that
starts with ``$ `` is a command typed at the page's terminal, and the lines
after it, up to the next ``$ `` line or the end of the block, are its exact
output. The page's front matter names the lab (``lab:``) and optionally the
seed (``seed:``, default 0). All blocks of a page are replayed in order in one
fresh Session, as a reader clicking "Run in terminal" down the page would, and
each output must match exactly (the block cannot show a trailing newline, so
one is ignored).
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from emulator.session import Session

DOCS = Path(__file__).resolve().parents[2] / "docs"
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
class Page:
    path: Path
    lab: str
    seed: int
    examples: list[Example]


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


def console_examples(text: str) -> list[Example]:
    """Commands and outputs of every ``console`` block, in page order.

    Blocks may be indented (inside admonitions or content tabs); the fence's
    indentation is removed from each line of the block.
    """
    examples: list[Example] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        match = FENCE.match(lines[i])
        if not match:
            i += 1
            continue
        indent, fence, info = match["indent"], match["fence"], match["info"]
        closing = re.compile(rf"^{re.escape(indent)}{re.escape(fence[0])}{{{len(fence)},}}\s*$")
        i += 1
        body_start = i
        while i < len(lines) and not closing.match(lines[i]):
            i += 1
        if info == "console":
            current: Example | None = None
            for number, raw in enumerate(lines[body_start:i], start=body_start + 1):
                line = raw[len(indent):] if raw.startswith(indent) else raw.lstrip(" ")
                if line.startswith(PROMPT):
                    current = Example(number, line[len(PROMPT):])
                    examples.append(current)
                elif current is not None:
                    current.output.append(line)
        i += 1
    return examples


def pages() -> list[Page]:
    found = []
    for path in sorted(DOCS.rglob("*.md")):
        text = path.read_text(encoding="utf-8")
        examples = console_examples(text)
        if examples:
            meta = front_matter(text)
            found.append(Page(path, meta.get("lab", "sandbox"), int(meta.get("seed", "0") or 0), examples))
    return found


def test_parser_reads_commands_and_outputs_from_indented_blocks() -> None:
    text = (
        "---\nlab: nvlink\nseed: 3\n---\n\n"
        "=== \"Tab\"\n\n    ```console\n    $ hostname\n    login01\n    $ true\n    ```\n\n"
        "```bash\n$ not-an-example\n```\n"
    )
    assert front_matter(text) == {"lab": "nvlink", "seed": "3"}
    examples = console_examples(text)
    assert [(e.command, e.expected) for e in examples] == [("hostname", "login01"), ("true", "")]


def test_parser_keeps_blank_lines_inside_an_output() -> None:
    examples = console_examples("```console\n$ cmd\na\n\nb\n```\n")
    assert examples[0].output == ["a", "", "b"]


PAGES = pages()


@pytest.mark.parametrize("page", PAGES, ids=[str(p.path.relative_to(DOCS)) for p in PAGES])
def test_console_examples_match_the_emulator(page: Page) -> None:
    session = Session(lab=page.lab, seed=page.seed)
    where = page.path.relative_to(DOCS)
    for example in page.examples:
        out, _status = session.execute(example.command)
        actual = out[:-1] if out.endswith("\n") else out
        if actual != example.expected:
            diff = "\n".join(difflib.unified_diff(
                example.expected.splitlines(), actual.splitlines(),
                fromfile=f"{where} (page)", tofile="emulator", lineterm=""))
            pytest.fail(f"{where}:{example.line}: lab {page.lab} seed {page.seed}: "
                        f"output of `{example.command}` differs\n{diff}", pytrace=False)
