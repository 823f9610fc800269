"""Driving a page's terminal from a test, as a learner would."""

from __future__ import annotations

TERMINAL = '[data-mdx-component="terminal"]'
INPUT = f"{TERMINAL} [data-mdx-input]"
OUTPUT = f"{TERMINAL} [data-mdx-output]"
STATUS = f"{TERMINAL} [data-mdx-status]"
PROMPT = f"{TERMINAL} [data-mdx-prompt]"
SCREEN = f"{TERMINAL} [data-mdx-screen]"


def wait_ready(page, timeout: float = 30000) -> None:
    """Wait until the runtime is ready and the terminal's session is open."""
    page.wait_for_selector(f'{TERMINAL}[data-mdx-state="ready"][data-mdx-open="true"]', timeout=timeout)


def follow_link(page, selector: str, timeout: float = 30000) -> None:
    """Click an in-site link; wait until the next page's terminal is ready and open.

    Material changes the address as soon as the link is clicked, while the old
    page and its terminal are still there: only a terminal element other than
    the old one counts."""
    page.evaluate(f"window.__oldTerminal = document.querySelector('{TERMINAL}')")
    page.click(selector)
    page.wait_for_function(
        f"() => {{ const t = document.querySelector('{TERMINAL}'); return t && t !== window.__oldTerminal"
        " && t.dataset.mdxState === 'ready' && t.dataset.mdxOpen === 'true'; }", timeout=timeout)


def runs(page) -> int:
    return int(page.get_attribute(TERMINAL, "data-mdx-runs") or 0)


def output(page) -> str:
    return page.inner_text(OUTPUT)


def run(page, line: str, timeout: float = 30000) -> str:
    """Type ``line``, press Enter, wait for it to finish; the output it added."""
    before = runs(page)
    seen = len(page.text_content(OUTPUT) or "")
    page.fill(INPUT, line)
    page.press(INPUT, "Enter")
    page.wait_for_function(
        "([sel, n]) => Number(document.querySelector(sel).dataset.mdxRuns || 0) > n",
        arg=[TERMINAL, before], timeout=timeout,
    )
    return (page.text_content(OUTPUT) or "")[seen:]


def open_lab_page(page, site_url: str, path: str = "guides/training-step/") -> None:
    page.goto(site_url + path)
    page.click(INPUT)
    wait_ready(page)
