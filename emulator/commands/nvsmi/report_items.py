"""The pieces of nvidia-smi's ``-q`` report: an :class:`Item` carries both renderings of one value.

Every item has its ``-q`` label and its XML element name
(``nvsmi_device_v12.dtd``); an :class:`Entry` places a top-level item in the
full text, the ``-q -d TYPE`` text and the XML log.
"""

from __future__ import annotations

from dataclasses import dataclass, field

#: Where an entry appears: the full ``-q`` text, the ``-q -d TYPE`` text, the XML log.
FULL, DISPLAY, XML = "full", "display", "xml"
EVERYWHERE = frozenset((FULL, DISPLAY, XML))
FULL_ONLY = frozenset((FULL, XML))
DISPLAY_ONLY = frozenset((DISPLAY,))
XML_ONLY = frozenset((XML,))


@dataclass
class Item:
    """A value (``value`` set) or a group (``children`` set) of the report.

    ``label`` is the ``-q`` name (None: the group is transparent in text, its
    children print at its own depth); ``tag`` the XML element (None: text
    only). ``indent`` pushes the text line deeper than the tree depth;
    ``xml_value`` replaces the value in XML where the two forms differ.
    """

    label: str | None
    tag: str | None
    value: object = None
    children: list[Item] | None = None
    indent: int = 0
    xml_value: object = None
    only: str = ""  # "text" or "xml" when the item belongs to one rendering


def leaf(label: str | None, tag: str | None, value: object, **kw: object) -> Item:
    return Item(label, tag, value, **kw)  # type: ignore[arg-type]


def group(label: str | None, tag: str | None, *children: Item, **kw: object) -> Item:
    return Item(label, tag, None, list(children), **kw)  # type: ignore[arg-type]


@dataclass
class Entry:
    """A top-level item, the ``-d`` display type it belongs to, and where it appears."""

    item: Item
    display: str  # ``-d`` types, space separated
    where: frozenset[str] = field(default=EVERYWHERE)
