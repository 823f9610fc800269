"""The lab files: found in the installed package data or the repository, each parsed once when first looked up.

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


def _root() -> Any:
    """The folder of the lab files: the installed package data, else the repository's ``labs/``."""
    try:
        return resources.files("emulator.labs_data")
    except ModuleNotFoundError:
        return Path(__file__).resolve().parents[2] / "labs"


def _lab_files() -> list[tuple[str, str]]:
    """(display path, text) of every lab file."""
    files = sorted((p for p in _root().iterdir() if p.name.endswith(".toml")), key=lambda p: p.name)
    return [(f"labs/{p.name}", p.read_text(encoding="utf-8")) for p in files]


@cache
def _lab_ids() -> tuple[str, ...]:
    """The id of every lab file (a lab's id is its file's name, which :func:`parse_lab` checks), sorted."""
    return tuple(sorted(p.name.removesuffix(".toml") for p in _root().iterdir() if p.name.endswith(".toml")))


#: The labs read so far, by id.
_loaded: dict[str, Lab] = {}


def _load(lab_id: str) -> Lab:
    """The lab in ``<lab_id>.toml``, parsed and validated once."""
    if lab_id not in _loaded:
        name = f"{lab_id}.toml"
        _loaded[lab_id] = load_text((_root() / name).read_text(encoding="utf-8"), f"labs/{name}")
    return _loaded[lab_id]


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
    return {lab_id: _load(lab_id) for lab_id in _lab_ids()}


def known_labs() -> list[str]:
    """Ids of every lab file."""
    return list(_lab_ids())


def get(lab_id: str | None) -> Lab:
    """The lab ``lab_id`` (None: the sandbox); an unknown id raises :class:`LabError`.

    Only that lab's file is read and validated: opening a session does not
    pay for parsing every other lab (about 0.25 s of the browser's first
    command before)."""
    key = lab_id or SANDBOX
    if key not in _lab_ids():
        raise LabError(f"unknown lab: {lab_id}")
    return _load(key)


def warm_next() -> bool:
    """Read the first lab not read yet, so that a page of another lab opens without parsing it;
    False when every lab is read (the worker calls it between requests, before warming the command families)."""
    for lab_id in _lab_ids():
        if lab_id not in _loaded:
            _load(lab_id)
            return True
    return False
