"""Build hook: a page's drawn picture, figure or chart, is drawn into the page itself.

A page shows a figure or a chart as an ordinary image,
``![alt text](../assets/images/figures/NAME.svg)`` (``tools/figures.py``) or
``![alt text](../assets/images/charts/NAME.svg)`` (``tools/charts.py``).
This hook replaces that image with ``<figure>``: the SVG inline, so the site's
stylesheet paints a figure in the reader's palette (``tools/svg_kit.py``; a
chart keeps the plain colours of its own light panel), and the image's alt
text as the caption. A picture drawn a second time for a phone
(``NAME-narrow.svg`` beside it) is inlined beside the wide one and the
stylesheet shows one of the two by the screen's width, so a phone redraws the
picture rather than shrinking or scrolling it sideways; a picture without one
shrinks to the column. The SVG keeps its own ``<title>`` (its accessible name)
and ``<desc>`` (its text description). An image of a picture that does not
exist, or without alt text, fails the build.
"""

from __future__ import annotations

import re
from html import unescape
from pathlib import Path

from mkdocs.exceptions import PluginError

#: folder of the site's drawn pictures → the tool that draws them.
FOLDERS = {"assets/images/figures": "tools/figures.py", "assets/images/charts": "tools/charts.py"}
IMAGE = re.compile(r'(?:<p>\s*)?<img\b(?P<attrs>[^>]*?\bsrc="[^"]*?(?P<folder>'
                   + "|".join(map(re.escape, FOLDERS)) + r')/(?P<name>[a-z0-9-]+)\.svg"[^>]*?)/?>(?:\s*</p>)?')
ALT = re.compile(r'\balt="(?P<alt>[^"]*)"')


def on_page_content(html, page, config, files):
    def inline(match: re.Match[str]) -> str:
        name, folder = match["name"], Path(config["docs_dir"]) / match["folder"]
        source = folder / f"{name}.svg"
        alt = ALT.search(match["attrs"])
        if not source.exists():
            raise PluginError(f"{page.file.src_uri}: no picture {match['folder']}/{name}.svg "
                              f"(run {FOLDERS[match['folder']]})")
        if alt is None or not unescape(alt["alt"]).strip():
            raise PluginError(f"{page.file.src_uri}: the picture {name} needs alt text")
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
