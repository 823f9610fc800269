"""A picture's markup said once: shared presentation attributes lifted onto ``<g>`` groups.

The kit (``tools/svg_kit.py``) draws each shape with its class, colours, font
size and anchor, so a chart of 32 ranks would repeat them some hundred times,
and a page carries every picture twice (wide and phone layouts, both inline).
:func:`compact` writes the same drawing with each attribute said once per run
of consecutive elements that share it, on a ``<g>`` whose children inherit
it. Paint order is kept (only neighbours are grouped), so the picture renders
the same. A class moves to a group only with the colours it repaints, so the
site's stylesheet still repaints a group's children, which carry no colour of
their own, by inheritance; the body's most common paint, the text ink, and
its most common font size are said once for the whole drawing.
"""

from __future__ import annotations

import itertools
import xml.etree.ElementTree as ET
from collections import Counter
from collections.abc import Iterator
from html import escape

#: Attributes lifted together, outermost first: a class with the colours it repaints, then the stroke, then
#: the font. Each is an inherited property, so a group's children draw as if they carried it themselves.
LAYERS = (("class", "fill", "stroke"), ("stroke-width", "stroke-dasharray"), ("font-size",), ("text-anchor",),
          ("font-weight",))
#: Values that are the property's initial value: said by no element (nothing above it sets another).
DEFAULTS = {"text-anchor": "start", "stroke-width": "1"}


def compact(body: list[str], base: dict[str, str]) -> list[str]:
    """The lines of ``body`` (the kit's elements, in paint order) inside one group painted ``base``, with
    shared attributes lifted onto groups."""
    root = ET.fromstring(f"<g>{''.join(body)}</g>")
    elements = list(root)
    sizes = Counter(size for element in elements if (size := element.get("font-size")))
    base = {**base, **({"font-size": sizes.most_common(1)[0][0]} if sizes else {})}
    for element in elements:
        for name, value in DEFAULTS.items():
            if element.get(name) == value:
                del element.attrib[name]
        if all(element.get(name) == base.get(name) for name in LAYERS[0]):
            for name in LAYERS[0]:
                element.attrib.pop(name, None)
        if "font-size" in element.attrib and element.get("font-size") == base.get("font-size"):
            del element.attrib["font-size"]
    return [_open("g", base), *(line for element in _grouped(elements, LAYERS) for line in _lines(element)),
            "</g>"]


def _grouped(elements: list[ET.Element], layers: tuple[tuple[str, ...], ...]) -> list[ET.Element]:
    """``elements`` with each run of neighbours sharing the first layer's attributes put in a group that says
    them (where that is shorter), and so on for the next layers inside."""
    if not layers:
        return elements
    names, out = layers[0], []
    for values, run in itertools.groupby(elements, key=lambda element: tuple(map(element.get, names))):
        members = list(run)
        shared = {name: value for name, value in zip(names, values, strict=True) if value is not None}
        said = len(_attributes(shared))
        if shared and (len(members) - 1) * said > len("<g></g>\n\n"):
            for member in members:
                for name in shared:
                    del member.attrib[name]
            inner = _grouped(members, layers[1:])
            if len(inner) == 1 and inner[0].tag == "g":    # a group of one group: one group saying both
                shared.update(inner[0].attrib)
                inner = list(inner[0])
            group = ET.Element("g", shared)
            group.extend(inner)
            out.append(group)
        else:
            out.extend(_grouped(members, layers[1:]))
    return out


def _attributes(attrib: dict[str, str]) -> str:
    return "".join(f' {name}="{escape(value)}"' for name, value in attrib.items())


def _open(tag: str, attrib: dict[str, str]) -> str:
    return f"<{tag}{_attributes(attrib)}>"


def _lines(element: ET.Element) -> list[str]:
    """An element as lines of markup: a group's tags on lines of their own, any other element on one line."""
    if element.tag == "g":
        return [_open("g", dict(element.attrib)), *(line for child in element for line in _lines(child)), "</g>"]
    return [_markup(element)]


def _markup(element: ET.Element) -> str:
    inner = escape(element.text or "", quote=False) + "".join(_markup(child) for child in element)
    if not inner:
        return f"<{element.tag}{_attributes(dict(element.attrib))}/>"
    return f"{_open(element.tag, dict(element.attrib))}{inner}</{element.tag}>"


def drawn(picture: ET.Element) -> Iterator[tuple[ET.Element, dict[str, str]]]:
    """Each shape and text of a parsed picture, in paint order, with the attributes it draws with: those its
    groups say for it, then its own (its class is the one that repaints it)."""
    def walk(parent: ET.Element, said: dict[str, str]) -> Iterator[tuple[ET.Element, dict[str, str]]]:
        for child in parent:
            tag = child.tag.rpartition("}")[2]
            if tag == "g":
                yield from walk(child, {**said, **child.attrib})
            elif tag not in ("title", "desc"):
                yield child, {**said, **child.attrib}

    return walk(picture, {})
