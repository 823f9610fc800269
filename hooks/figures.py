"""Build hook: a page's figure (``docs/assets/images/figures/*.svg``) is drawn into the page itself.

A page shows a figure as an ordinary image, ``![alt text](../assets/images/figures/NAME.svg)``.
This hook replaces that image with ``<figure>``: the SVG inline, so the site's
stylesheet paints it in the reader's palette (``tools/svg_kit.py``), and
the image's alt text as the caption. A figure drawn a second time for a phone
(``NAME-narrow.svg``, ``tools/figures.py``) is inlined beside the wide one and
the stylesheet shows one of the two by the screen's width, so a phone redraws
the figure rather than scrolling it sideways; a figure without one shrinks to
the column. The SVG keeps its own ``<title>`` (its
accessible name) and ``<desc>`` (its text description). An image of a figure
that does not exist, or without alt text, fails the build.
"""

from __future__ import annotations

import re
from html import unescape
from pathlib import Path

from mkdocs.exceptions import PluginError

FOLDER = "assets/images/figures"
IMAGE = re.compile(r'(?:<p>\s*)?<img\b(?P<attrs>[^>]*?\bsrc="[^"]*?' + FOLDER + r'/(?P<name>[a-z0-9-]+)\.svg"[^>]*?)/?>'
                   r'(?:\s*</p>)?')
ALT = re.compile(r'\balt="(?P<alt>[^"]*)"')


def on_page_content(html, page, config, files):
    folder = Path(config["docs_dir"]) / FOLDER

    def inline(match: re.Match[str]) -> str:
        name = match["name"]
        source = folder / f"{name}.svg"
        alt = ALT.search(match["attrs"])
        if not source.exists():
            raise PluginError(f"{page.file.src_uri}: no figure {FOLDER}/{name}.svg (run tools/figures.py)")
        if alt is None or not unescape(alt["alt"]).strip():
            raise PluginError(f"{page.file.src_uri}: the figure {name} needs alt text")
        drawing = source.read_text(encoding="utf-8").strip()
        phone = folder / f"{name}-narrow.svg"
        if not phone.exists():
            return (f'<figure class="mdx-figure" id="figure-{name}">\n<div class="mdx-figure__wide">{drawing}</div>\n'
                    f'<figcaption>{alt["alt"]}</figcaption>\n</figure>')
        narrow = phone.read_text(encoding="utf-8").strip()
        return (f'<figure class="mdx-figure mdx-figure--redrawn" id="figure-{name}">\n'
                f'<div class="mdx-figure__wide">{drawing}</div>\n<div class="mdx-figure__narrow">{narrow}</div>\n'
                f'<figcaption>{alt["alt"]}</figcaption>\n</figure>')

    return IMAGE.sub(inline, html)
