"""What a reader meets first: the home page's way in for someone who arrives with a symptom."""

from __future__ import annotations


def test_the_home_page_opens_with_a_link_to_the_symptom_table(page, site, results):
    page.goto(site.url)
    first = page.locator("article h1 + p a").first
    assert first.text_content() == "Start here: I have a symptom"
    assert first.is_visible() and first.bounding_box()["y"] < 400
    first.click()
    page.wait_for_function("() => location.hash === '#find-the-responsible-component'")
    table = page.locator("#find-the-responsible-component ~ .md-typeset__scrollwrap table").first
    assert "Observation" in table.locator("th").first.text_content()
    assert table.bounding_box()["y"] < 900
    page.screenshot(path=str(results / "home-start-here.png"))
