"""Checks every drawn picture of the handbook passes: its committed file is what the model draws now, and it
is an accessible image (role, title and a text description that says what it shows)."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Callable
from typing import TypeVar

from tools.svg_kit import Picture

SVG = "{http://www.w3.org/2000/svg}"
P = TypeVar("P", bound=Picture)


def assert_committed_as_drawn(picture: P, render: Callable[[P], str], tool: str) -> None:
    """The committed SVG is byte for byte what ``render`` draws from the model now; ``tool`` rewrites it."""
    name = picture.path.name
    assert picture.path.exists(), f"{name} missing: run {tool}"
    assert picture.path.read_text(encoding="utf-8") == render(picture), \
        f"{name} is stale: run {tool} and review the picture"


def assert_accessible(drawn: str, name: str) -> None:
    """The SVG text is an image named by its title and described by a description of some length."""
    root = ET.fromstring(drawn)
    assert root.get("role") == "img"
    assert root.get("aria-labelledby") == f"{name}-title"
    assert root.get("aria-describedby") == f"{name}-desc"
    title, desc = root.find(f"{SVG}title"), root.find(f"{SVG}desc")
    assert title is not None and title.text and desc is not None and desc.text
    assert len(desc.text) > 80
