"""The handbook's section on limits (docs/emulator/index.md) names every limit in emulator/limits.py with its value (its console example is
replayed by test_console_examples)."""

from __future__ import annotations

from pathlib import Path

import pytest

from emulator import limits

PAGE = Path(__file__).resolve().parents[2] / "docs" / "emulator" / "index.md"
#: Limits the page states in other words than their number.
IN_WORDS = {"SLEEP_LIMIT_S": "a week", "SESSION_LIMIT": "eight"}


def _limits() -> list[tuple[str, int | float]]:
    return [(name, value) for name, value in vars(limits).items()
            if name.isupper() and isinstance(value, int | float)]


@pytest.mark.parametrize(("name", "value"), _limits())
def test_the_page_states_each_limit(name, value):
    text = PAGE.read_text()
    shown = IN_WORDS.get(name) or f"{int(value):,}"
    assert shown in text, f"{name} = {value} is not on {PAGE.name} (as {shown!r})"

