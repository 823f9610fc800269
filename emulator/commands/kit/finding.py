"""A learner's finding as typed: ``FIELD=VALUE`` items, a free-text value running on to the next field.

``submit`` (a lab's finding) and ``oncall submit`` (an incident's) read the
same form: ``node=node07 cause=fabric manager not running``. Each item that
names a field starts it; words after a free-text field's value (the cause)
continue that value unquoted. A field given twice, an empty value, an item
that is no field of the form, or a required field missing is refused with
the form's usage line and status 2.
"""

from __future__ import annotations

from dataclasses import dataclass

from emulator.commands.kit.command import Context


@dataclass(frozen=True)
class FindingForm:
    """What one command's finding may state, and how it names itself in an error."""

    #: The command as its errors name it (``submit``, ``oncall submit``).
    prog: str
    #: The usage line shown under every error.
    usage: str
    #: The fields the finding may state.
    fields: tuple[str, ...]
    #: The fields it must state.
    required: tuple[str, ...]
    #: The fields whose value is free text, continued by words that name no field.
    free_text: tuple[str, ...]
    #: Whether an unknown ``FIELD=`` is named as one the lab does not ask for (otherwise: the fields it may state).
    names_unknown: bool = True


def read_finding(ctx: Context, form: FindingForm, items: list[str]) -> dict[str, str]:
    """``items`` as a finding of ``form``; raises the command's usage error when they are not one."""
    usage = f"Usage: {form.usage}"
    finding: dict[str, str] = {}
    last = ""
    for item in items:
        key, sep, value = item.partition("=")
        key = key.strip().lower()
        if sep and key in form.fields:
            if key in finding:
                raise ctx.fail(f"{form.prog}: {key} given twice\n{usage}", 2)
            if not value.strip():
                raise ctx.fail(f"{form.prog}: expected FIELD=VALUE, got '{item}'\n{usage}", 2)
            finding[key], last = value.strip(), key
        elif last in form.free_text:
            finding[last] += " " + item.strip()
        elif not form.names_unknown:
            raise ctx.fail(f"{form.prog}: expected one of {', '.join(form.fields)}=VALUE, got '{item}'\n{usage}", 2)
        elif sep and key:
            raise ctx.fail(f"{form.prog}: this lab does not ask for '{key}'\n{usage}", 2)
        else:
            raise ctx.fail(f"{form.prog}: expected FIELD=VALUE, got '{item}'\n{usage}", 2)
    missing = [f for f in form.required if f not in finding]
    if missing:
        raise ctx.fail(f"{form.prog}: missing {', '.join(missing)}\n{usage}", 2)
    return finding
