"""The labs index is generated from the lab files: a new lab appears without editing the page."""

from __future__ import annotations

import re

from emulator.labs import all_labs

from .test_hooks import build, project_copy


def test_a_new_lab_file_appears_in_the_built_index_with_its_link_and_solve_markup(tmp_path):
    root = project_copy(tmp_path)
    source = (root / "labs" / "workloads-cost.toml").read_text(encoding="utf-8")
    (root / "labs" / "zz-new-lab.toml").write_text(
        source.replace('id = "workloads-cost"', 'id = "zz-new-lab"')
              .replace('title = "A bigger allocation that barely helps"', 'title = "A lab nobody listed"'),
        encoding="utf-8")
    built = build(root)
    assert built.returncode == 0, built.stdout + built.stderr
    page = (root / "out" / "labs" / "index.html").read_text(encoding="utf-8")
    table = page.split('data-mdx-component="lab-solves"', 1)[1].split("</table>", 1)[0]
    rows = re.findall(r"<tr>\s*<td>(.*?)</td>", table, re.S)
    ids = [re.search(r"<code>([^<]+)</code>", row)[1] for row in rows]
    expected = sorted(lab.id for lab in all_labs().values() if not lab.is_sandbox) + ["zz-new-lab"]
    assert sorted(ids) == sorted(expected)
    assert "A lab nobody listed" in table
    assert 'href="../guides/workloads/?lab=zz-new-lab&amp;seed=7"' in table
    in_the_terminal = page.split('id="in-the-terminal"', 1)[1]
    assert "zz-new-lab" in in_the_terminal.split("</pre>", 1)[0], "`lab list` on the page misses the lab"



def test_the_index_page_keeps_only_its_markers(tmp_path):
    text = (project_copy(tmp_path) / "docs" / "labs" / "index.md").read_text(encoding="utf-8")
    assert "<!-- lab-table -->" in text and "<!-- lab-list -->" in text
    assert "`input-wait`" not in text, "a lab row is written by hand"
