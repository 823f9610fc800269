"""The pictures drawn from the model, figures and charts, are inline on their pages and fit a phone.

Each figure's text takes the palette's text colour (not a fixed colour on a
light panel), so it stays readable in light and dark; a chart keeps the plain
colours of its own light panel in both. Screenshots of every picture in both
palettes are kept in ``test-results/``, at 1280 px and at 390 px, where each
picture shows its phone layout instead of shrinking or scrolling sideways. A
picture in a content tab is checked with its tab selected, as a reader sees it.
"""

from __future__ import annotations

from collections.abc import Iterator

from tools.charts import CHARTS
from tools.figures import FIGURES

from .site import ROOT

DOCS = ROOT / "docs"
CHART_PAGES = {str(p.relative_to(DOCS)) for p in DOCS.rglob("*.md")
               if any(f"images/charts/{c.name}.svg" in p.read_text(encoding="utf-8") for c in CHARTS)}
PAGES = sorted({page.removesuffix(".md") + "/" for page in {f.page for f in FIGURES} | CHART_PAGES})
EXPECTED = sorted(f"figure-{p.name}" for p in (*FIGURES, *CHARTS))
CHART_IDS = {f"figure-{c.name}" for c in CHARTS}

SHOWN = "[...document.querySelectorAll('figure.mdx-figure')].filter(fig => fig.getClientRects().length > 0)"
INKS = "() => " + SHOWN + """.map(fig => {
    const ink = fig.querySelector('.mdx-fig-ink');
    return {id: fig.id, ink: getComputedStyle(ink).fill, caption: fig.querySelector('figcaption').textContent,
            name: fig.querySelector('svg').getAttribute('aria-labelledby')};
})"""


def _views(page) -> Iterator[None]:
    """The page as loaded, then with each of its content tabs selected in turn (a selected tab is remembered
    across pages, so the first is selected again too)."""
    yield
    for label in page.locator(".tabbed-labels > label").all():
        label.click()
        yield


def _palette(page, scheme: str) -> None:
    if page.evaluate("document.body.dataset.mdColorScheme") != scheme:
        page.evaluate("document.querySelector('form[data-md-component=palette] label:not([hidden])').click()")
        page.wait_for_function(f"() => document.body.dataset.mdColorScheme === '{scheme}'")
    page.evaluate("document.querySelectorAll('details').forEach(d => d.open = true)")


def _check_palettes(seen: dict[str, dict[str, str]]) -> None:
    assert sorted(seen) == EXPECTED
    for picture, inks in seen.items():
        if picture in CHART_IDS:
            assert inks["default"] == inks["slate"], f"{picture} is repainted: a chart keeps its own panel"
        else:
            assert inks["default"] != inks["slate"], f"{picture} keeps one text colour in both palettes"


def test_every_picture_is_inline_named_captioned_and_follows_the_palette(browser, site, results):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        page = context.new_page()
        page.set_default_timeout(30000)
        seen: dict[str, dict[str, str]] = {}
        for scheme in ("default", "slate"):
            for path in PAGES:
                page.goto(site.url + path)
                _palette(page, scheme)
                for _ in _views(page):
                    for fig in page.evaluate(INKS):
                        assert fig["caption"].strip() and fig["name"].endswith("-title")
                        seen.setdefault(fig["id"], {})[scheme] = fig["ink"]
                        page.locator(f"#{fig['id']}").screenshot(path=str(results / f"{fig['id']}-{scheme}.png"))
    finally:
        context.close()
    _check_palettes(seen)


PHONE = "() => " + SHOWN + """.map(fig => {
    const shown = [...fig.querySelectorAll('svg')].filter(svg => svg.getBoundingClientRect().width > 0);
    const svg = shown[0];
    const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
    const sizes = [...svg.querySelectorAll('text')].map(t => parseFloat(getComputedStyle(t).fontSize));
    return {id: fig.id, shown: shown.length, name: svg.getAttribute('aria-labelledby'),
            scroll: fig.scrollWidth, box: fig.clientWidth, wide: svg.getBoundingClientRect().width,
            smallest: Math.min(...sizes) * scale, ink: getComputedStyle(svg.querySelector('.mdx-fig-ink')).fill};
})"""


def test_on_a_phone_every_picture_is_redrawn_to_fit_its_column_in_both_palettes(browser, site, results):
    """At 390x844 each figure and chart shows its phone layout: nothing scrolls sideways, no text is under 11 px."""
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True,
                                  device_scale_factor=2)
    try:
        page = context.new_page()
        page.set_default_timeout(30000)
        seen: dict[str, dict[str, str]] = {}
        for scheme in ("default", "slate"):
            for path in PAGES:
                page.goto(site.url + path)
                _palette(page, scheme)
                for _ in _views(page):
                    for fig in page.evaluate(PHONE):
                        assert fig["shown"] == 1, f"{fig['id']}: one drawing shown, not both"
                        assert fig["name"] == fig["id"].removeprefix("figure-") + "-narrow-title", fig["id"]
                        assert fig["scroll"] <= fig["box"], f"{fig['id']} scrolls sideways on a phone"
                        assert fig["wide"] <= fig["box"], f"{fig['id']} is wider than its column"
                        assert fig["smallest"] >= 10.9, f"{fig['id']}: text of {fig['smallest']:.1f} px"
                        seen.setdefault(fig["id"], {})[scheme] = fig["ink"]
                        page.locator(f"#{fig['id']}").screenshot(path=str(results / f"{fig['id']}-390-{scheme}.png"))
                    assert page.evaluate("document.documentElement.scrollWidth") <= 390, f"{path} scrolls sideways"
    finally:
        context.close()
    _check_palettes(seen)
