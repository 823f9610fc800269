"""The one drawing kit of the handbook's pictures: SVG that takes its colours from the page's palette.

The figures (``tools/figures.py``, ``tools/figure_diagrams.py``) and the
charts of the training run (``tools/charts.py``) are all drawn with these
primitives, so a text, a box, a line or a document reads the same in each,
and written by one loop (:func:`write_pictures`).

Every shape and label is drawn with a class (``mdx-fig-ink``, ``mdx-fig-box``,
``mdx-fig-line``, ``mdx-fig-accent``, ``mdx-fig-hot``...) and a plain colour
as a presentation attribute. Opened on its own, a figure shows the plain
colours; inlined in a page (``hooks/figures.py``), the site's stylesheet
(``site.css``, "Figures") repaints each class from Material's palette
variables, so one drawing reads in the light and the dark palette alike.
Presentation attributes and classes only: the site's Content-Security-Policy
forbids inline styles (a ``<style>`` element too). :func:`svg` writes the
markup compact (``tools/svg_compact.py``): what neighbouring shapes share,
class and colours included, is said once on a group they inherit it from.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Callable, Iterable
from html import escape
from pathlib import Path
from typing import Protocol, TypeVar

from tools.svg_compact import compact

FONT = 'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif'

#: class → (presentation attributes for a figure opened on its own).
PAINT = {
    "ink": 'fill="#1f2937"',
    "box": 'fill="#f3f4f6" stroke="#6b7280"',
    "line": 'stroke="#6b7280" fill="none"',
    "accent": 'stroke="#3949ab" fill="none"',
    "accent-fill": 'fill="#3949ab"',
    "accent-box": 'fill="#e8eaf6" stroke="#3949ab"',
    "hot": 'stroke="#c62828" fill="none"',
    "hot-fill": 'fill="#c62828"',
    "hot-box": 'fill="#ffebee" stroke="#c62828"',
    "hot-ink": 'fill="#b71c1c"',
    "muted": 'fill="#4b5563"',
    "grid": 'stroke="#d1d5db" fill="none"',
    "panel": 'fill="#f8fafc" stroke="#d1d5db"',
}


def _attributes(said: str) -> dict[str, str]:
    return dict(re.findall(r'([a-z-]+)="([^"]*)"', said))


def _paint(cls: str) -> str:
    return f'class="mdx-fig-{cls}" {PAINT[cls]}'


def num(value: float) -> str:
    """A coordinate to a tenth of a pixel, as short as it is said: ``10`` for 10.0, ``0`` for -0.0."""
    said = f"{value:.1f}".removesuffix(".0")
    return "0" if said == "-0" else said


def text(x: float, y: float, body: str, size: int = 12, anchor: str = "start", bold: bool = False,
         cls: str = "ink") -> str:
    weight = ' font-weight="600"' if bold else ""
    return (f'<text x="{num(x)}" y="{num(y)}" font-size="{size}" text-anchor="{anchor}"{weight} '
            f'{_paint(cls)}>{escape(body)}</text>')


def rect(x: float, y: float, w: float, h: float, cls: str = "box", rx: float = 4, width: float = 1) -> str:
    return (f'<rect x="{num(x)}" y="{num(y)}" width="{num(w)}" height="{num(h)}" rx="{rx}" stroke-width="{width}" '
            f'{_paint(cls)}/>')


def line(x1: float, y1: float, x2: float, y2: float, cls: str = "line", width: float = 1.2,
         dashed: bool = False) -> str:
    dash = ' stroke-dasharray="5 4"' if dashed else ""
    return (f'<line x1="{num(x1)}" y1="{num(y1)}" x2="{num(x2)}" y2="{num(y2)}" stroke-width="{width}"{dash} '
            f'{_paint(cls)}/>')


def arrow(x1: float, y1: float, x2: float, y2: float, cls: str = "line", width: float = 1.4) -> str:
    """A line from (x1, y1) with an arrowhead at (x2, y2)."""
    dx, dy = x2 - x1, y2 - y1
    length = max((dx * dx + dy * dy) ** 0.5, 1e-6)
    ux, uy = dx / length, dy / length
    bx, by = x2 - 8 * ux, y2 - 8 * uy
    left = (bx - 4 * uy, by + 4 * ux)
    right = (bx + 4 * uy, by - 4 * ux)
    head_cls = {"line": "ink", "accent": "accent-fill", "hot": "hot-fill"}[cls]
    return (line(x1, y1, bx, by, cls, width)
            + f'<path d="M{num(x2)} {num(y2)}L{num(left[0])} {num(left[1])} {num(right[0])} {num(right[1])}z" '
            f'{_paint(head_cls)}/>')


def swatch(x: float, y: float, w: float, h: float, colour: str, tip: str = "", outline: bool = False) -> str:
    """A patch of a data series' own colour (a chart's phase or part of a step), with an optional tooltip.

    Series colours are the data's, not the palette's: they stay the same in
    both palettes, on a chart's own light panel (``svg(..., panel=True)``).
    """
    edge = ' stroke="#4b5563" stroke-width="0.5"' if outline else ""
    shape = f'<rect x="{num(x)}" y="{num(y)}" width="{num(w)}" height="{num(h)}" class="mdx-fig-series" fill="{colour}"{edge}'
    return f"{shape}><title>{escape(tip)}</title></rect>" if tip else f"{shape}/>"


def swatches(patches: Iterable[tuple[float, float, float, float]], colour: str) -> str:
    """Patches (x, y, width, height) of one data series' colour, none overlapping another, as one shape: the
    bars of a chart without tooltips."""
    outline, corner = [], None
    for x, y, w, h in patches:
        left, top = num(x), num(y)
        # A patch straight below the one before it moves there relative to that one's first corner.
        move = (f"m0 {num(float(top) - float(corner[1]))}" if corner and corner[0] == left
                else f"M{left} {top}")
        outline.append(f"{move}h{num(w)}v{num(h)}H{left}z")
        corner = (left, top)
    return f'<path d="{"".join(outline)}" class="mdx-fig-series" fill="{colour}"/>'


def marker(x: float, y: float, colour: str) -> str:
    """A small downward triangle whose tip is at (x, y), in a data series' colour."""
    return (f'<path d="M{num(x - 4)} {num(y - 7)}H{num(x + 4)}L{num(x)} {num(y)}z" '
            f'class="mdx-fig-series" fill="{colour}"/>')


def labelled_box(x: float, y: float, w: float, h: float, lines: list[str], cls: str = "box", size: int = 12,
                 bold_first: bool = True) -> list[str]:
    """A box with one or more centred lines of text."""
    ink = "hot-ink" if cls == "hot-box" else "ink"
    out = [rect(x, y, w, h, cls, width=2 if cls == "hot-box" else 1)]
    top = y + h / 2 - (len(lines) - 1) * (size + 2) / 2 + size * 0.35
    for i, body in enumerate(lines):
        out.append(text(x + w / 2, top + i * (size + 2), body, size, "middle", bold_first and i == 0, ink))
    return out


#: Width of an average character of the figures' sans-serif face, as a fraction of its size (a safe over-estimate).
CHAR_WIDTH = 0.56


def fit(lines: list[str], width: float, size: int = 12, bold: bool = False) -> list[str]:
    """``lines`` wrapped at spaces so that each fits ``width`` at ``size`` (for a box or a paragraph)."""
    chars = max(8, int(width / (size * CHAR_WIDTH * (1.12 if bold else 1))))
    return [part for body in lines for part in (textwrap.wrap(body, chars, break_on_hyphens=False) or [""])]


def paragraph(x: float, y: float, body: str, width: float, size: int = 12, bold: bool = False,
              cls: str = "ink") -> tuple[list[str], float]:
    """A paragraph of ``body`` wrapped to ``width`` from (x, y); its texts and the y under its last line."""
    parts = fit([body], width, size, bold)
    return [text(x, y + i * (size + 4), part, size, bold=bold, cls=cls) for i, part in enumerate(parts)], \
        y + len(parts) * (size + 4)


def svg(name: str, width: int, height: int, title: str, desc: str, body: list[str], panel: bool = False) -> str:
    """A picture: its accessible name is ``title``, its text description ``desc`` (ids unique per picture).

    With ``panel``, the drawing sits on its own light panel, for a picture
    shown as an image whose series colours must read the same in both palettes;
    such a picture keeps its plain colours (no ``mdx-fig`` class to repaint it).
    """
    backdrop = [rect(0.5, 0.5, width - 1, height - 1, "panel", rx=8)] if panel else []
    repaint = "" if panel else 'class="mdx-fig" '
    head = (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" width="{width}" '
            f'height="{height}" role="img" aria-labelledby="{name}-title" aria-describedby="{name}-desc" '
            f'{repaint}font-family=\'{FONT}\'>')
    return "\n".join([
        head,
        f'<title id="{name}-title">{escape(title)}</title>',
        f'<desc id="{name}-desc">{escape(desc)}</desc>',
        *compact(backdrop + body, {"class": "mdx-fig-ink", **_attributes(PAINT["ink"])}),
        "</svg>",
        "",
    ])


class Picture(Protocol):
    """A picture a page shows: where its committed SVG file lives."""

    @property
    def path(self) -> Path: ...


P = TypeVar("P", bound=Picture)


def write_pictures(pictures: Iterable[P], render: Callable[[P], str],
                   where: Callable[[P], Path] = lambda picture: picture.path) -> int:
    """Draw each picture again and write it over its committed file, ``where(picture)`` (after a deliberate
    change); exit status 0."""
    for picture in pictures:
        path = where(picture)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(render(picture), encoding="utf-8")
        print(f"wrote {path}")
    return 0
