"""The lab panel follows the session: `lab start`, a reload of a switched session, the reset control."""

from __future__ import annotations

from .terminal import INPUT, OUTPUT, TERMINAL, follow_link, open_lab_page, output, run, wait_ready

VARIANT = f"{TERMINAL} [data-mdx-variant]"
PANEL = f"{TERMINAL} [data-mdx-panel]"
TOGGLE = f'{TERMINAL} [data-mdx-action="panel"]'
RESET = f'{TERMINAL} [data-mdx-action="reset"]'
INPUT_WAIT_GOAL = "What makes the training loop wait for its input?"


def wait_label(page, text: str) -> None:
    """Wait until the bar names ``text`` (the panel follows once the session's state is saved)."""
    page.wait_for_function("([sel, text]) => document.querySelector(sel).textContent === text",
                           arg=[VARIANT, text], timeout=10000)


def panel_text(page, part: str) -> str:
    return page.text_content(f"{PANEL} [data-mdx-lab-{part}]") or ""


def test_lab_start_moves_the_panel_and_a_reload_keeps_it_there(page, site):
    open_lab_page(page, site.url)
    assert page.text_content(VARIANT) == "lab late-rank"
    run(page, "lab start input-wait --seed 3")
    wait_label(page, "lab input-wait · seed 3")
    assert panel_text(page, "title") == "Input wait"
    assert panel_text(page, "goal") == INPUT_WAIT_GOAL
    assert page.get_attribute(f"{PANEL} [data-mdx-share]", "href") == "?lab=input-wait&seed=3"
    run(page, "hint")
    page.wait_for_timeout(300)  # the snapshot is saved after the command

    page.reload()
    page.click(INPUT)
    wait_ready(page)
    wait_label(page, "lab input-wait · seed 3")
    assert panel_text(page, "goal") == INPUT_WAIT_GOAL
    page.click(TOGGLE)
    assert page.is_visible(PANEL)
    page.click(f'{PANEL} [data-mdx-run="lab"]')
    page.wait_for_function(f"() => document.querySelector('{OUTPUT}').textContent.includes('1 of 4 hints used')")
    assert "(input-wait, seed 3," in output(page)


def test_the_reset_control_names_the_page_lab_it_returns_to(page, site):
    open_lab_page(page, site.url)
    run(page, "lab start input-wait --seed 3")
    wait_label(page, "lab input-wait · seed 3")
    page.click(RESET)
    assert page.text_content(RESET) == "Click again to reset to lab late-rank"
    page.click(RESET)
    wait_label(page, "lab late-rank")
    assert "Reset to a fresh lab late-rank.\n" in output(page)
    assert panel_text(page, "title") == "A late rank"
    assert page.get_attribute(f"{PANEL} [data-mdx-share]", "href") == "?lab=late-rank&seed=0"
    assert "(late-rank, seed 0," in run(page, "lab")


def test_lab_reset_restarts_the_lab_the_session_is_in(page, site):
    open_lab_page(page, site.url)
    run(page, "lab start input-wait --seed 3")
    run(page, "hint")
    said = run(page, "lab reset")
    # The lab restarts; the hints and attempts it cost are counted across a reset (they feed the completion record).
    assert "Lab: Input wait (input-wait, seed 3," in said and "1 of 4 hints used" in said
    page.wait_for_timeout(300)
    assert page.text_content(VARIANT) == "lab input-wait · seed 3"


def test_a_page_of_the_healthy_cluster_gets_a_panel_when_a_lab_starts(page, site):
    page.goto(site.url)
    page.click(INPUT)
    wait_ready(page)
    assert page.text_content(VARIANT) == "healthy cluster"
    assert page.query_selector(PANEL) is None and page.query_selector(TOGGLE) is None
    run(page, "lab start late-rank --seed 2")
    wait_label(page, "lab late-rank · seed 2")
    page.click(TOGGLE)
    assert page.is_visible(PANEL)
    assert page.get_attribute(TOGGLE, "aria-expanded") == "true"
    assert panel_text(page, "goal") == "Which rank is late, on which node and GPU, and why?"
    assert page.get_attribute(f"{PANEL} [data-mdx-share]", "href") == "?lab=late-rank&seed=2"
    page.click(f'{PANEL} [data-mdx-run="hint"]')
    page.wait_for_function(f"() => document.querySelector('{OUTPUT}').textContent.includes('Hint 1 of')")

    run(page, "lab start sandbox")
    wait_label(page, "healthy cluster")
    assert not page.is_visible(TOGGLE) and not page.is_visible(PANEL)


def test_the_next_page_of_the_healthy_cluster_rejoins_the_session_in_its_lab(page, site):
    page.goto(site.url + "emulator/")
    page.click(INPUT)
    wait_ready(page)
    run(page, "lab start late-rank --seed 2")
    wait_label(page, "lab late-rank · seed 2")
    follow_link(page, "a.md-footer__link--next")
    page.wait_for_function("() => location.pathname.endsWith('/emulator/shell/')")
    wait_label(page, "lab late-rank · seed 2")
    assert panel_text(page, "title") == "A late rank"
    assert "(late-rank, seed 2," in run(page, "lab")
