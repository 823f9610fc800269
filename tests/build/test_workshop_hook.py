"""The workshop hook: instructor notes and the lab checkboxes come from the lab files; a lost marker fails."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import SimpleNamespace

import pytest
from mkdocs.exceptions import PluginError

from emulator import labs

ROOT = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("hook_workshop", ROOT / "hooks" / "workshop.py")
hook = importlib.util.module_from_spec(spec)
spec.loader.exec_module(hook)

LABS = [lab for lab in labs.all_labs().values() if not lab.is_sandbox]
CONFIG = {"docs_dir": str(ROOT / "docs")}


def page(src: str):
    return SimpleNamespace(file=SimpleNamespace(src_uri=src))


def test_the_notes_name_every_lab_with_its_time_pages_and_the_judges_advice():
    text = hook.on_page_markdown("# Notes\n\n<!-- instructor-notes -->\n", page("workshop/notes.md"), CONFIG, None)
    for lab in LABS:
        assert f"(`{lab.id}`)" in text
        assert f"about {hook.expected_minutes(lab)} minutes" in text
        for advice in lab.check.wrong.values():
            assert hook._text(advice.say) in text
    assert "&lt;node&gt;" not in text.split("## The labs")[0]


def test_the_running_orders_fit_their_sessions_and_go_from_introductory_up():
    for minutes in hook.SESSIONS.values():
        order = hook.running_order(LABS, minutes)
        assert order and sum(hook.expected_minutes(lab) for lab in order) <= minutes
        ranks = [labs.DIFFICULTIES.index(lab.difficulty) for lab in order]
        assert ranks == sorted(ranks)
    assert len(hook.running_order(LABS, hook.SESSIONS["Full day"])) > len(hook.running_order(LABS, hook.SESSIONS["Half day"]))


def test_the_instructor_page_gets_one_checkbox_per_lab_pointing_at_its_first_page():
    html = hook.on_page_markdown("<!-- workshop-labs -->", page("workshop/index.md"), CONFIG, None)
    assert html.count('name="lab"') == len(LABS)
    assert 'value="input-wait" data-mdx-page="guides/data-loading/"' in html


def test_a_lost_or_unknown_marker_fails_the_build():
    with pytest.raises(PluginError, match="lost its"):
        hook.on_page_markdown("# Notes\n", page("workshop/notes.md"), CONFIG, None)
    with pytest.raises(PluginError, match="unknown workshop marker"):
        hook.on_page_markdown("<!-- workshop-roster -->", page("workshop/index.md"), CONFIG, None)
