"""The lab files: found in the installed package data or the repository, parsed once, looked up by id.

The wheel ships ``labs/*.toml`` as the package ``emulator.labs_data`` (the
browser reads them there); from a source tree they are read from ``labs/``
at the repository's top.
"""

from __future__ import annotations

import tomllib
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from emulator.errors import LabError
from emulator.labs.parse import parse_lab
from emulator.labs.schema import Lab

#: The lab a session runs when it names none: the healthy cluster.
SANDBOX = "sandbox"


def _lab_files() -> list[tuple[str, str]]:
    """(display path, text) of every lab file: the installed package data, else the repository's."""
    try:
        root: Any = resources.files("emulator.labs_data")
    except ModuleNotFoundError:
        root = Path(__file__).resolve().parents[2] / "labs"
    files = sorted((p for p in root.iterdir() if p.name.endswith(".toml")), key=lambda p: p.name)
    return [(f"labs/{p.name}", p.read_text(encoding="utf-8")) for p in files]


def load_text(text: str, source: str) -> Lab:
    """One lab from the text of its file; bad TOML or a bad field raises :class:`LabError` naming ``source``."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise LabError(f"{source}: not valid TOML: {exc}") from None
    return parse_lab(data, source)


@cache
def all_labs() -> dict[str, Lab]:
    """Every lab by id, validated; the first invalid file raises :class:`LabError`."""
    labs: dict[str, Lab] = {}
    for source, text in _lab_files():
        lab = load_text(text, source)
        labs[lab.id] = lab
    return labs


def known_labs() -> list[str]:
    """Ids of every lab file."""
    return list(all_labs())


def get(lab_id: str | None) -> Lab:
    """The lab ``lab_id`` (None: the sandbox); an unknown id raises :class:`LabError`."""
    labs = all_labs()
    key = lab_id or SANDBOX
    if key not in labs:
        raise LabError(f"unknown lab: {lab_id}")
    return labs[key]
