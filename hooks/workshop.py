"""Build hook: the workshop pages' parts that come from the lab files, so that they cannot drift.

* ``<!-- workshop-labs -->`` (the instructor page) becomes one checkbox per
  lab, for the links each student gets;
* ``<!-- instructor-notes -->`` (the notes page) becomes, per lab, the expected
  time, the pages to read first, the common wrong turns as the judge's feedback
  words them, and a running order for a half-day and a full-day workshop.

A page that names a marker the hook does not know, or a notes page without its
marker, fails the build.

The expected time is an estimate for someone new to the lab: a fixed part for
reading the brief and a part per step of the reference procedure, larger for a
harder lab (:data:`MINUTES`), rounded up to 5 minutes. The running orders take
the labs from introductory to advanced (lab-file order within a difficulty)
while their expected times fit the session's lab time (:data:`SESSIONS`).
"""

from __future__ import annotations

import html
import re
import sys
from pathlib import Path

from mkdocs.exceptions import PluginError

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from emulator.errors import LabError  # noqa: E402
from emulator.labs import DIFFICULTIES, Lab, all_labs  # noqa: E402

#: Minutes per difficulty: (reading the brief and a first look, each step of the reference procedure).
MINUTES = {"introductory": (10, 4), "intermediate": (10, 5), "advanced": (15, 6)}
#: Lab time of a session in minutes (the rest of the day goes to talks and breaks).
SESSIONS = {"Half day": 150, "Full day": 330}
MARKER = re.compile(r"<!-- (workshop-[a-z-]+|instructor-notes) -->")
NOTES_PAGE = "workshop/notes.md"


def _labs() -> list[Lab]:
    try:
        return [lab for lab in all_labs().values() if not lab.is_sandbox]
    except LabError as exc:
        raise PluginError(f"the lab files do not load: {exc}") from None


def expected_minutes(lab: Lab) -> int:
    """The estimate of :data:`MINUTES`, rounded up to 5 minutes."""
    fixed, per_step = MINUTES[lab.difficulty]
    total = fixed + per_step * len(lab.solution)
    return -(-total // 5) * 5


def running_order(labs: list[Lab], minutes: int) -> list[Lab]:
    """Labs from introductory to advanced, while their expected times fit ``minutes``."""
    ordered = sorted(labs, key=lambda lab: DIFFICULTIES.index(lab.difficulty))
    chosen, used = [], 0
    for lab in ordered:
        if used + expected_minutes(lab) <= minutes:
            chosen.append(lab)
            used += expected_minutes(lab)
    return chosen


def _text(text: str) -> str:
    """Lab text as Markdown: one line, and ``<field>`` placeholders shown, not read as HTML."""
    return html.escape(" ".join(text.split()), quote=False)


def _title(docs_dir: Path, page: str) -> str:
    """The first heading of a docs page (its path when it has none)."""
    path = docs_dir / page
    if not path.is_file():
        raise PluginError(f"a lab names the page {page}, which does not exist")
    heading = next((line[2:].strip() for line in path.read_text().splitlines() if line.startswith("# ")), page)
    return heading


def wrong_turns(lab: Lab) -> list[str]:
    """The judge's feedback on wrong findings: per wrong field, and per cause that is a known detour."""
    assert lab.check is not None
    turns = [f"A wrong **{name}**: {_text(advice.say)}" for name, advice in lab.check.wrong.items() if advice.say]
    for feedback in lab.check.feedback:
        when = ", ".join(f"{key}={value}" for key, value in feedback.when.items())
        turns.append(f"A finding with `{when}`: {_text(feedback.say)}")
    return turns


def notes_markdown(labs: list[Lab], docs_dir: Path) -> str:
    """The generated part of the notes page."""
    out = ["## Running order", ""]
    for name, minutes in SESSIONS.items():
        order = running_order(labs, minutes)
        total = sum(expected_minutes(lab) for lab in order)
        names = ", ".join(f"`{lab.id}`" for lab in order)
        out.append(f"- **{name}** ({minutes} minutes of lab time; these take about {total}): {names}.")
    out += ["", "## The labs", ""]
    for lab in sorted(labs, key=lambda lab: (DIFFICULTIES.index(lab.difficulty), lab.id)):
        assert lab.check is not None
        reads = ", ".join(f"[{_title(docs_dir, page)}](../{page})" for page in lab.pages)
        out += [f"### {_text(lab.title)} (`{lab.id}`)", "",
                f"- Difficulty: {lab.difficulty}; expected time: about {expected_minutes(lab)} minutes "
                f"({len(lab.solution)} steps in the reference procedure, {len(lab.hints)} hints).",
                f"- Read first: {reads}.",
                f"- The finding: `{lab.submit_form()}`.",
                "- Common wrong turns, as the judge answers them:", ""]
        out += [f"    - {turn}" for turn in wrong_turns(lab)] or ["    - (the judge gives no advice beyond the verdict)"]
        out.append("")
    return "\n".join(out)


def labs_checkboxes(labs: list[Lab]) -> str:
    """One checkbox per lab (all ticked), in a fieldset the instructor page's script reads."""
    rows = [f'<li><label><input type="checkbox" name="lab" value="{lab.id}" data-mdx-page="{_url(lab.pages[0])}" '
            f'checked> '
            f'<code>{lab.id}</code> {html.escape(lab.title)} ({lab.difficulty}, about {expected_minutes(lab)} '
            f"min)</label></li>" for lab in labs]
    return ('<fieldset class="mdx-workshop__labs"><legend>Labs to hand out</legend><ul>'
            + "".join(rows) + "</ul></fieldset>")


def _url(page: str) -> str:
    """A docs page's address from the site's root (directory URLs): ``guides/cost.md`` → ``guides/cost/``."""
    path = page.removesuffix(".md")
    return path.removesuffix("index") if path.endswith("index") else path + "/"


def on_page_markdown(markdown, page, config, files):
    """Fill the workshop markers from the lab files."""
    src = page.file.src_uri
    found = set(MARKER.findall(markdown))
    if src == NOTES_PAGE and "instructor-notes" not in found:
        raise PluginError(f"{src} lost its <!-- instructor-notes --> marker")
    unknown = found - {"workshop-labs", "instructor-notes"}
    if unknown:
        raise PluginError(f"{src}: unknown workshop marker(s): {', '.join(sorted(unknown))}")
    if not found:
        return markdown
    labs = _labs()
    markdown = markdown.replace("<!-- workshop-labs -->", labs_checkboxes(labs))
    return markdown.replace("<!-- instructor-notes -->", notes_markdown(labs, Path(config["docs_dir"])))
