"""The one drawing kit of the handbook's pictures: SVG that takes its colours from the page's palette.

The figures (``tools/figures.py``, ``tools/figure_diagrams.py``) and the
charts of the training run (``tools/charts.py``) are all drawn with these
primitives, so a text, a box, a line or a document reads the same in each,
and written by one loop (:func:`write_pictures`).

Every shape and label carries a class (``mdx-fig-ink``, ``mdx-fig-box``,
``mdx-fig-line``, ``mdx-fig-accent``, ``mdx-fig-hot``...) and a plain colour
as a presentation attribute. Opened on its own, a figure shows the plain
colours; inlined in a page (``hooks/figures.py``), the site's stylesheet
(``site.css``, "Figures") repaints each class from Material's palette
variables, so one drawing reads in the light and the dark palette alike.
Presentation attributes and classes only: the site's Content-Security-Policy
forbids inline styles.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Iterable
from html import escape
from pathlib import Path
from typing import Protocol, TypeVar

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


def _paint(cls: str) -> str:
    return f'class="mdx-fig-{cls}" {PAINT[cls]}'


def text(x: float, y: float, body: str, size: int = 12, anchor: str = "start", bold: bool = False,
         cls: str = "ink") -> str:
    weight = ' font-weight="600"' if bold else ""
    return (f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" text-anchor="{anchor}"{weight} '
            f'{_paint(cls)}>{escape(body)}</text>')


def rect(x: float, y: float, w: float, h: float, cls: str = "box", rx: float = 4, width: float = 1) -> str:
    return (f'<rect x="{x:.1f}" y="{y:.1f}" width="{w:.1f}" height="{h:.1f}" rx="{rx}" stroke-width="{width}" '
            f'{_paint(cls)}/>')


def line(x1: float, y1: float, x2: float, y2: float, cls: str = "line", width: float = 1.2,
         dashed: bool = False) -> str:
    dash = ' stroke-dasharray="5 4"' if dashed else ""
    return (f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" stroke-width="{width}"{dash} '
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
            + f'<path d="M{x2:.1f},{y2:.1f} L{left[0]:.1f},{left[1]:.1f} L{right[0]:.1f},{right[1]:.1f} z" '
            f'{_paint(head_cls)}/>')


def swatch(x: float, y: float, w: float, h: float, colour: str, tip: str = "", outline: bool = False) -> str:
    """A patch of a data series' own colour (a chart's phase or part of a step), with an optional tooltip.

    Series colours are the data's, not the palette's: they stay the same in
    both palettes, on a chart's own light panel (``svg(..., panel=True)``).
    """
    edge = ' stroke="#4b5563" stroke-width="0.5"' if outline else ""
    shape = f'<rect x="{x:.1f}" y="{y:.1f}" width="{w:.1f}" height="{h:.1f}" class="mdx-fig-series" fill="{colour}"{edge}'
    return f"{shape}><title>{escape(tip)}</title></rect>" if tip else f"{shape}/>"


def marker(x: float, y: float, colour: str) -> str:
    """A small downward triangle whose tip is at (x, y), in a data series' colour."""
    return (f'<path d="M{x - 4:.1f},{y - 7:.1f} L{x + 4:.1f},{y - 7:.1f} L{x:.1f},{y:.1f} z" '
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
        f'  <title id="{name}-title">{escape(title)}</title>',
        f'  <desc id="{name}-desc">{escape(desc)}</desc>',
        *("  " + part for part in backdrop + body),
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
