"""Every console example in the handbook is what the emulator prints.

The blocks of each page (see ``tools/console_examples.py`` for the format)
are replayed in order in one fresh Session on the page's lab and seed; each
command's output must match the page exactly. A failure names the page, the
line, the command and a diff; ``tools/console_examples.py PAGE`` regenerates
a page whose examples changed on purpose.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from pathlib import Path

import pytest

from emulator.session import Session
from tools.console_examples import Example, console_examples, emulator_output, front_matter, lab_and_seed, regenerate

DOCS = Path(__file__).resolve().parents[2] / "docs"


@dataclass
class Page:
    path: Path
    lab: str
    seed: int
    examples: list[Example]


def pages() -> list[Page]:
    found = []
    for path in sorted(DOCS.rglob("*.md")):
        text = path.read_text(encoding="utf-8")
        examples = console_examples(text)
        if examples:
            found.append(Page(path, *lab_and_seed(text), examples))
    return found


def test_parser_reads_commands_and_outputs_from_indented_blocks() -> None:
    text = (
        "---\nlab: nvlink\nseed: 3\n---\n\n"
        "=== \"Tab\"\n\n    ```console\n    $ hostname\n    login01\n    $ true\n    ```\n\n"
        "```bash\n$ not-an-example\n```\n"
    )
    assert front_matter(text) == {"lab": "nvlink", "seed": "3"}
    assert lab_and_seed(text) == ("nvlink", 3)
    examples = console_examples(text)
    assert [(e.command, e.expected, e.line) for e in examples] == [("hostname", "login01", 9), ("true", "", 11)]


def test_parser_keeps_blank_lines_inside_an_output() -> None:
    examples = console_examples("```console\n$ cmd\na\n\nb\n```\n")
    assert examples[0].output == ["a", "", "b"]


def test_regenerate_writes_the_output_under_each_command_and_keeps_the_rest() -> None:
    page = "---\nlab: sandbox\n---\n\nText.\n\n!!! note\n\n    ```console\n    $ hostname\n    stale\n    ```\n\nEnd.\n"
    assert regenerate(page) == page.replace("stale", "login01")


PAGES = pages()


@pytest.mark.parametrize("page", PAGES, ids=[str(p.path.relative_to(DOCS)) for p in PAGES])
def test_console_examples_match_the_emulator(page: Page) -> None:
    session = Session(lab=page.lab, seed=page.seed)
    where = page.path.relative_to(DOCS)
    for example in page.examples:
        out, _status = session.execute(example.command)
        actual = emulator_output(out)
        if actual != example.expected:
            diff = "\n".join(difflib.unified_diff(
                example.expected.splitlines(), actual.splitlines(),
                fromfile=f"{where} (page)", tofile="emulator", lineterm=""))
            pytest.fail(f"{where}:{example.line}: lab {page.lab} seed {page.seed}: "
                        f"output of `{example.command}` differs\n{diff}", pytrace=False)
