"""Truth placeholders in a lab's command lines and evidence: ``<node>``, ``<port>``...

``solutions`` prints them as they are; the replay tests and the evidence
report fill them in from the state's truth.
"""

from __future__ import annotations

import re

#: ``<field>``, but not a regular expression's named group ``(?P<name>...)``.
PLACEHOLDER = re.compile(r"(?<!\?P)<([a-z][a-z_]*)>")


def substitute(text: str, values: dict[str, str]) -> str:
    """``ssh <node> ibstat`` → ``ssh node07 ibstat`` with the state's truth."""
    return PLACEHOLDER.sub(lambda m: str(values.get(m.group(1), m.group(0))), text)


def substitute_pattern(pattern: str, values: dict[str, str]) -> str:
    """A regular expression with ``<field>`` replaced by the escaped truth value."""
    return PLACEHOLDER.sub(lambda m: re.escape(str(values.get(m.group(1), m.group(0)))), pattern)
