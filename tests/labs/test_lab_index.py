"""The labs index page lists every lab with its page, difficulty and a seeded link, and every
page a lab names is in the site's navigation."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from emulator import labs

ROOT = Path(__file__).resolve().parents[2]
INDEX = ROOT / "docs" / "labs" / "index.md"
LABS = [labs.get(i) for i in labs.known_labs() if not labs.get(i).is_sandbox]


@pytest.mark.parametrize("lab", LABS, ids=lambda lab: lab.id)
def test_the_index_has_a_row_for_each_lab_with_a_seeded_link_to_its_page(lab):
    rows = [line for line in INDEX.read_text().splitlines() if f"`{lab.id}`" in line]
    assert len(rows) == 1, f"{lab.id}: expected one row in docs/labs/index.md"
    row = rows[0]
    assert f"{lab.title}<br>" in row
    assert f"| {lab.difficulty} |" in row
    assert f"(../{lab.pages[0]}?lab={lab.id}&seed=" in row


def test_every_lab_page_is_in_the_site_navigation():
    nav = set(re.findall(r"^\s*-\s*(?:[^:\n]+:\s*)?(\S+\.md)\s*$", (ROOT / "mkdocs.yml").read_text(), re.M))
    for lab_id in labs.known_labs():
        for page in labs.get(lab_id).pages:
            assert page in nav, f"{lab_id}: page {page} is not in mkdocs.yml's nav"


def front_matter_lab(page: Path) -> str:
    """The ``lab:`` of a page's front matter (``sandbox`` when it names none)."""
    text = page.read_text()
    if text.startswith("---\n"):
        head = text[4:text.index("\n---", 4)]
        found = re.search(r"^lab:\s*(\S+)\s*$", head, re.M)
        if found:
            return found.group(1)
    return labs.SANDBOX


def test_each_page_opens_a_lab_that_names_the_page_and_each_lab_opens_on_its_first_page():
    docs = ROOT / "docs"
    for page in sorted(docs.rglob("*.md")):
        path = page.relative_to(docs).as_posix()
        assert path in labs.get(front_matter_lab(page)).pages, f"{path}: its lab does not list it in pages"
    for lab_id in labs.known_labs():
        first = docs / labs.get(lab_id).pages[0]
        assert front_matter_lab(first) == lab_id, f"{lab_id}: {first} opens another lab"
