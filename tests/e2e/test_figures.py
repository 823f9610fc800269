"""The figures drawn from the model are inline on their pages and follow the palette toggle.

Each figure's text takes the palette's text colour (not a fixed colour on a
light panel), so it stays readable in light and dark; screenshots of every
figure in both palettes are kept in ``test-results/``.
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
