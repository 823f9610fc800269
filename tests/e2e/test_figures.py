"""The figures drawn from the model are inline on their pages, follow the palette toggle, and fit a phone.

Each figure's text takes the palette's text colour (not a fixed colour on a
light panel), so it stays readable in light and dark; screenshots of every
figure in both palettes are kept in ``test-results/``, at 1280 px and at 390 px, where
each figure shows its phone layout instead of scrolling sideways.
"""

from __future__ import annotations

from tools.figures import FIGURES

PAGES = sorted({f.page.removesuffix(".md") + "/" for f in FIGURES})

INKS = """() => [...document.querySelectorAll('figure.mdx-figure')].map(fig => {
    const ink = fig.querySelector('.mdx-fig-ink');
    return {id: fig.id, ink: getComputedStyle(ink).fill, caption: fig.querySelector('figcaption').textContent,
            name: fig.querySelector('svg').getAttribute('aria-labelledby')};
})"""


def test_every_figure_is_inline_named_captioned_and_follows_the_palette(browser, site, results):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        page = context.new_page()
        page.set_default_timeout(30000)
        seen: dict[str, dict[str, str]] = {}
        for scheme in ("default", "slate"):
            for path in PAGES:
                page.goto(site.url + path)
                if page.evaluate("document.body.dataset.mdColorScheme") != scheme:
                    page.click("form[data-md-component=palette] label:not([hidden])")
                    page.wait_for_function(f"() => document.body.dataset.mdColorScheme === '{scheme}'")
                page.evaluate("document.querySelectorAll('details').forEach(d => d.open = true)")
                for fig in page.evaluate(INKS):
                    assert fig["caption"].strip() and fig["name"].endswith("-title")
                    seen.setdefault(fig["id"], {})[scheme] = fig["ink"]
                    page.locator(f"#{fig['id']}").screenshot(path=str(results / f"{fig['id']}-{scheme}.png"))
    finally:
        context.close()
    assert sorted(seen) == sorted(f"figure-{f.name}" for f in FIGURES)
    for figure, inks in seen.items():
        assert inks["default"] != inks["slate"], f"{figure} keeps one text colour in both palettes"


PHONE = """() => [...document.querySelectorAll('figure.mdx-figure')].map(fig => {
    const shown = [...fig.querySelectorAll('svg')].filter(svg => svg.getBoundingClientRect().width > 0);
    const svg = shown[0];
    const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
    const sizes = [...svg.querySelectorAll('text')].map(t => Number(t.getAttribute('font-size')));
    return {id: fig.id, shown: shown.length, name: svg.getAttribute('aria-labelledby'),
            scroll: fig.scrollWidth, box: fig.clientWidth, page: document.documentElement.scrollWidth,
            smallest: Math.min(...sizes) * scale, ink: getComputedStyle(svg.querySelector('.mdx-fig-ink')).fill};
})"""


def test_on_a_phone_every_figure_is_redrawn_to_fit_its_column_in_both_palettes(browser, site, results):
    """At 390x844 each figure shows its phone layout: nothing scrolls sideways and no text is under 11 px."""
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True,
                                  device_scale_factor=2)
    try:
        page = context.new_page()
        page.set_default_timeout(30000)
        seen: dict[str, dict[str, str]] = {}
        for scheme in ("default", "slate"):
            for path in PAGES:
                page.goto(site.url + path)
                if page.evaluate("document.body.dataset.mdColorScheme") != scheme:
                    page.evaluate("document.querySelector('form[data-md-component=palette] label:not([hidden])')"
                                  ".click()")
                    page.wait_for_function(f"() => document.body.dataset.mdColorScheme === '{scheme}'")
                page.evaluate("document.querySelectorAll('details').forEach(d => d.open = true)")
                for fig in page.evaluate(PHONE):
                    assert fig["shown"] == 1, f"{fig['id']}: one drawing shown, not both"
                    assert fig["name"] == fig["id"].removeprefix("figure-") + "-narrow-title", fig["id"]
                    assert fig["scroll"] <= fig["box"], f"{fig['id']} scrolls sideways on a phone"
                    assert fig["smallest"] >= 10.9, f"{fig['id']}: text of {fig['smallest']:.1f} px"
                    seen.setdefault(fig["id"], {})[scheme] = fig["ink"]
                    page.locator(f"#{fig['id']}").screenshot(path=str(results / f"{fig['id']}-390-{scheme}.png"))
                assert page.evaluate("document.documentElement.scrollWidth") <= 390, f"{path} scrolls sideways"
    finally:
        context.close()
    assert sorted(seen) == sorted(f"figure-{f.name}" for f in FIGURES)
    for figure, inks in seen.items():
        assert inks["default"] != inks["slate"], f"{figure} keeps one text colour in both palettes"
