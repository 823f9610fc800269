"""A picture's compact markup draws exactly what the kit drew: every shape and text, in the same order, with
the same attributes (its own or its groups'), and the site's stylesheet still repaints it by its class."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Callable
from typing import Any

import pytest

from tools import charts, figures, svg_compact, svg_kit

PICTURES: list[tuple[Any, Callable[..., str], bool]] = [
    *((f, figures.render, narrow) for f in figures.FIGURES for narrow in (False, True) if narrow <= f.has_narrow),
    *((c, charts.render, narrow) for c in charts.CHARTS for narrow in (False, True) if narrow <= c.has_narrow),
]
#: What a shape draws with; a text draws with the font's attributes too (a group's font size means nothing to
#: a rect).
SHAPE = {"class", "fill", "stroke", "stroke-width", "stroke-dasharray", "rx", "x", "y", "width", "height", "d",
         "x1", "y1", "x2", "y2"}
IDS = [f"{picture.name}{'-narrow' if narrow else ''}" for picture, _render, narrow in PICTURES]


def _as_drawn(markup: str) -> list[tuple[str, dict[str, str], str]]:
    """Each shape and text of a picture: its tag, the attributes it draws with (a property at its initial value
    left unsaid) and its text and tooltip."""
    return [(element.tag, {name: value for name, value in said.items() if svg_compact.DEFAULTS.get(name) != value
                           and (name in SHAPE or element.tag.endswith("}text"))},
             "".join(element.itertext()))
            for element, said in svg_compact.drawn(ET.fromstring(markup))]


def _uncompacted(body: list[str], base: dict[str, str]) -> list[str]:
    return [f'<g class="{base["class"]}" fill="{base["fill"]}">', *body, "</g>"]


@pytest.mark.parametrize(("picture", "render", "narrow"), PICTURES, ids=IDS)
def test_compact_markup_draws_what_the_kit_drew(picture: Any, render: Callable[..., str], narrow: bool,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    compact = render(picture, narrow=narrow)
    monkeypatch.setattr(svg_kit, "compact", _uncompacted)
    plain = render(picture, narrow=narrow)
    assert _as_drawn(compact) == _as_drawn(plain)
    assert len(compact) < len(plain)


def test_a_class_moves_to_a_group_only_with_the_colours_it_repaints() -> None:
    body = [svg_kit.rect(0, 0, 10, 10, "hot-box"), svg_kit.rect(20, 0, 10, 10, "hot-box"),
            svg_kit.text(0, 30, "a", cls="hot-ink"), svg_kit.text(0, 50, "b", cls="hot-ink")]
    root = ET.fromstring("\n".join(svg_compact.compact(body, {"class": "mdx-fig-ink", "fill": "#1f2937"})))
    for group in root.iter("g"):
        assert ("class" in group.attrib) == ("fill" in group.attrib)
    for element in (e for e in root.iter() if e.tag != "g"):
        assert not {"class", "fill", "stroke"} & set(element.attrib), "a grouped shape keeps a colour of its own"


def test_neighbours_only_are_grouped_so_paint_order_holds() -> None:
    body = [svg_kit.text(0, 10, "first"), svg_kit.rect(0, 0, 50, 20), svg_kit.text(0, 30, "last")]
    lines = svg_compact.compact(body, {"class": "mdx-fig-ink", "fill": "#1f2937"})
    assert [line.split(" ")[0] for line in lines] == ["<g", "<text", "<rect", "<text", "</g>"]
