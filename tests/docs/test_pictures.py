"""Every drawn picture of the handbook, figure or chart, is what the emulator's model draws now, and an image
a screen reader can name and describe.

Each picture in ``tools.figures.FIGURES`` and ``tools.charts.CHARTS`` is drawn again (from a fresh session of
its lab and seed where it has one) and compared byte for byte with the committed file; the tool named in the
failure rewrites them after a deliberate change. So is its phone layout (``NAME-narrow.svg``), which must say
the same title and description, fit a 390 px phone's column unscaled, and have no text under 11 px.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Callable
from typing import Any

import pytest

from tools import charts, figures
from tools.svg_compact import drawn

SVG = "{http://www.w3.org/2000/svg}"
#: (picture, its drawing function, the tool that rewrites it).
PICTURES: list[tuple[Any, Callable[[Any], str], str]] = [
    *((f, figures.render, "tools/figures.py") for f in figures.FIGURES),
    *((c, charts.render, "tools/charts.py") for c in charts.CHARTS),
]
IDS = [picture.name for picture, _render, _tool in PICTURES]
PHONE = [(picture, render, tool) for picture, render, tool in PICTURES if picture.has_narrow]


@pytest.mark.parametrize(("picture", "render", "tool"), PICTURES, ids=IDS)
def test_committed_picture_matches_the_model(picture: Any, render: Callable[[Any], str], tool: str) -> None:
    name = picture.path.name
    assert picture.path.exists(), f"{name} missing: run {tool}"
    assert picture.path.read_text(encoding="utf-8") == render(picture), \
        f"{name} is stale: run {tool} and review the picture"


@pytest.mark.parametrize(("picture", "render", "tool"), PICTURES, ids=IDS)
def test_picture_is_an_image_with_a_title_and_a_text_description(picture: Any, render: Callable[[Any], str],
                                                                 tool: str) -> None:
    root = ET.fromstring(render(picture))
    assert root.get("role") == "img"
    assert root.get("aria-labelledby") == f"{picture.name}-title"
    assert root.get("aria-describedby") == f"{picture.name}-desc"
    title, desc = root.find(f"{SVG}title"), root.find(f"{SVG}desc")
    assert title is not None and title.text and desc is not None and desc.text
    assert len(desc.text) > 80, f"{picture.name}: a description of a few words says too little ({tool})"


@pytest.mark.parametrize(("picture", "render", "tool"), PHONE, ids=[picture.name for picture, _r, _t in PHONE])
def test_committed_phone_layout_matches_the_model_and_says_the_same(picture: Any, render: Callable[..., str],
                                                                   tool: str) -> None:
    name = picture.narrow_path.name
    assert picture.narrow_path.exists(), f"{name} missing: run {tool}"
    committed = picture.narrow_path.read_text(encoding="utf-8")
    assert committed == render(picture, narrow=True), f"{name} is stale: run {tool} and review the picture"
    wide, narrow = ET.fromstring(render(picture)), ET.fromstring(committed)
    assert narrow.get("aria-labelledby") == f"{picture.name}-narrow-title", "ids unique on the page"
    for part in ("title", "desc"):
        assert narrow.find(f"{SVG}{part}").text == wide.find(f"{SVG}{part}").text  # type: ignore[union-attr]
    assert int(narrow.get("width")) <= 358, "fits a 390 px phone's column unscaled"  # type: ignore[arg-type]
    assert min(int(said["font-size"]) for el, said in drawn(narrow) if el.tag == f"{SVG}text") >= 11

