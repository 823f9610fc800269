"""axe-core finds no violation on any built page, in either palette, on a desktop and a phone.

Every page the build wrote is scanned, not a sample: one browser context per
viewport, the pages visited in turn by in-site navigation (so the terminal's
runtime starts once per context), first in the light palette, then, after one
click on Material's palette toggle, in the dark one. The 404 page is opened
directly. All of axe's default rules count, whatever their impact.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .site import ROOT

AXE = ROOT / "node_modules/axe-core/axe.min.js"
VIEWPORTS = {
    "desktop": {"viewport": {"width": 1280, "height": 900}},
    "phone": {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True,
              "device_scale_factor": 3},
}
SCHEMES = ("default", "slate")

SCAN = """async () => {
    // Collapsed blocks are scanned open; then Material and the theme's scripts lay the page out (two frames).
    document.querySelectorAll('details').forEach(d => { d.open = true; });
    await new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)));
    const result = await axe.run(document, {resultTypes: ['violations']});
    return result.violations.map(v => ({id: v.id, impact: v.impact,
        nodes: v.nodes.slice(0, 3).map(n => n.target.join(' ') + ' ' + (n.failureSummary || '').split('\\n')[1]),
        count: v.nodes.length}));
}"""

# Material's instant navigation intercepts clicks on in-site links: a link the
# test adds to the page and clicks loads the next page the way a reader's click does.
GO = """(url) => {
    window.__before = document.querySelector('article');
    const a = document.createElement('a');
    a.href = url;
    document.body.append(a);
    a.click();
    a.remove();
}"""
ARRIVED = """(path) => location.pathname === path && document.querySelector('article') !== window.__before
    && document.querySelector('article') !== null"""


def built_pages(folder: Path) -> list[str]:
    """The site-relative address of every page the build wrote, but the 404 page."""
    pages = []
    for html in sorted(folder.rglob("index.html")):
        relative = html.parent.relative_to(folder).as_posix()
        if relative.startswith("assets"):
            continue
        pages.append("" if relative == "." else relative + "/")
    return pages


def _scheme(page) -> str:
    return page.evaluate("document.body.dataset.mdColorScheme")


def _toggle_to(page, scheme: str) -> None:
    if _scheme(page) != scheme:
        page.click("form[data-md-component=palette] label:not([hidden])")
        page.wait_for_function(f"() => document.body.dataset.mdColorScheme === '{scheme}'")


def _scan(page, where: str, found: list[str]) -> None:
    if not page.evaluate("typeof axe === 'object'"):
        page.evaluate(AXE.read_text())
    for violation in page.evaluate(SCAN):
        found.append(f"{where}: {violation['id']} ({violation['impact']}, {violation['count']}×) "
                     + " | ".join(violation["nodes"]))


@pytest.mark.parametrize("viewport", list(VIEWPORTS))
def test_every_page_in_both_palettes_has_no_accessibility_violation(browser, site, viewport, results):
    pages = built_pages(site.folder)
    assert len(pages) > 20 and "" in pages and "emulator/commands/" in pages
    base = site.url.rstrip("/")
    context = browser.new_context(**VIEWPORTS[viewport])
    found: list[str] = []
    scanned = 0
    try:
        page = context.new_page()
        page.set_default_timeout(30000)
        for scheme in SCHEMES:
            page.goto(site.url + pages[0])
            _toggle_to(page, scheme)
            for i, path in enumerate(pages):
                if i:
                    page.evaluate(GO, base + "/" + path)
                    page.wait_for_function(ARRIVED, arg="/" + path)
                assert _scheme(page) == scheme, f"{path} lost the {scheme} palette"
                _scan(page, f"{viewport} {scheme} /{path}", found)
                scanned += 1
            page.goto(site.url + "404.html")
            _toggle_to(page, scheme)
            _scan(page, f"{viewport} {scheme} /404.html", found)
            scanned += 1
            page.screenshot(path=str(results / f"axe-{viewport}-{scheme}-404.png"))
    finally:
        context.close()
    assert scanned == 2 * (len(pages) + 1)
    assert found == [], f"{len(found)} violations:\n" + "\n".join(found)
