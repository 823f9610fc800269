"""The path from a page to the emulator and back: terminal, worker, Pyodide, offline."""

from __future__ import annotations

import re
import shutil
from urllib.parse import urlparse

import pytest

from .site import SiteServer
from .terminal import INPUT, OUTPUT, PROMPT, STATUS, TERMINAL, follow_link, open_lab_page, output, run, wait_ready


def test_help_on_a_lab_page_lists_the_commands(page, site, results):
    open_lab_page(page, site.url)
    assert "Type lab to read the task, and hint" in output(page)
    assert "do not validate your environment" in output(page)
    shown = run(page, "help")
    assert "echo" in shown and "hostname" in shown
    page.locator(TERMINAL).screenshot(path=str(results / "lab-page-help.png"))
    page.screenshot(path=str(results / "lab-page-help-full.png"), full_page=True)


def test_prompt_shows_user_and_host(page, site):
    open_lab_page(page, site.url)
    assert page.text_content(PROMPT) == "alice@login01:~$ "


def test_following_an_in_site_link_reuses_the_worker(page, site, requests):
    open_lab_page(page, site.url)
    page.evaluate("window.__sameWindow = true")
    follow_link(page, "a.md-footer__link--next")
    assert page.evaluate("window.__sameWindow") is True, "the click reloaded the page"
    assert run(page, "hostname").endswith("$ hostname\nlogin01\n")
    assert requests.count("pyodide.asm.wasm") == 1
    assert requests.count("manifest.json") == 1


def test_a_click_has_the_worker_build_the_next_lab_before_its_page_opens_it(page, site):
    """The navigation's stages as performance marks: the click, the worker's PREPARE of the next page's lab
    (another lab than this page's), the next page's mount and its OPEN, in that order."""
    open_lab_page(page, site.url)
    follow_link(page, "a.md-footer__link--next")
    marks = page.evaluate("() => performance.getEntriesByType('mark').filter(m => m.name.startsWith('mdx:'))"
                          ".map(m => [m.name.slice(4), m.startTime])")
    click = max(at for name, at in marks if name == "click")
    after = {}
    for name, at in sorted(marks, key=lambda mark: mark[1]):
        if at >= click:
            after.setdefault(name, at)
    order = ["worker-prepare-received", "worker-prepare-end", "mount", "worker-open-received", "worker-open-end",
             "session-ready"]
    assert all(name in after for name in order), sorted(after)
    assert after["worker-prepare-end"] <= after["worker-open-received"] <= after["worker-open-end"], after
    assert after["mount"] <= after["worker-open-received"] and after["worker-open-end"] <= after["session-ready"], after


def test_no_request_leaves_the_site(page, site, requests):
    open_lab_page(page, site.url)
    run(page, "help")
    hosts = {urlparse(url).hostname for url in requests.urls if not url.startswith(("data:", "blob:"))}
    assert hosts == {"127.0.0.1"}


def test_lines_typed_while_loading_run_once_ready(page, site):
    page.goto(site.url + "guides/training-step/")
    page.fill(INPUT, "echo queued-early")
    page.press(INPUT, "Enter")
    page.wait_for_function(
        "(sel) => document.querySelector(sel).textContent.includes('\\nqueued-early')", arg=OUTPUT)
    assert "$ echo queued-early" in output(page)


def test_a_broken_runtime_says_so_in_plain_words(page, site, tmp_path):
    # Requests from workers bypass Playwright's routing, so serve a copy of the
    # site whose WebAssembly runtime is missing.
    broken = tmp_path / "site"
    shutil.copytree(site.folder, broken, ignore=shutil.ignore_patterns("pyodide.asm.wasm"))
    server = SiteServer()
    server.serve(broken)
    try:
        page.goto(server.url + "guides/training-step/")
        page.click(INPUT)
        page.wait_for_selector(f'{TERMINAL}[data-mdx-state="failed"]', timeout=40000)
    finally:
        server.close()
    assert "failed to load" in page.text_content(STATUS)
    assert page.is_visible("article h1")


def test_a_page_opened_from_a_file_explains_why_the_terminal_cannot_start(page, site):
    page.goto((site.folder / "guides/training-step/index.html").as_uri())
    page.wait_for_selector(f'{TERMINAL}[data-mdx-state="failed"]')
    assert "opened as a file" in page.text_content(STATUS)
    assert page.is_visible("article h1")


def test_leaving_a_page_mid_command_and_coming_back_keeps_the_session_usable(page, site):
    open_lab_page(page, site.url)
    run(page, "cd /tmp")
    page.fill(INPUT, "watch -n 1 hostname")
    page.press(INPUT, "Enter")
    page.wait_for_function(f"() => document.querySelector('{OUTPUT}').textContent.includes('Every 1.0s')")
    follow_link(page, "a.md-footer__link--next")
    page.go_back()
    page.wait_for_function("() => location.pathname.endsWith('/guides/training-step/')")
    wait_ready(page)
    assert page.text_content(PROMPT) == "alice@login01:/tmp$ "
    assert run(page, "echo still-here").endswith("$ echo still-here\nstill-here\n")


def test_loading_shows_its_stages_and_the_bytes_downloaded(page, site):
    """Over a link slower than loopback (20 Mbit/s): the runtime starts from <head>, so on loopback its
    downloads may be over before the terminal mounts and shows them."""
    cdp = page.context.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.send("Network.emulateNetworkConditions",
             {"offline": False, "latency": 20, "downloadThroughput": 20e6 / 8, "uploadThroughput": 20e6 / 8})
    page.add_init_script("""window.__statuses = [];
        document.addEventListener('DOMContentLoaded', () => setInterval(() => {
            const el = document.querySelector('[data-mdx-status]');
            if (el && !window.__statuses.includes(el.textContent)) window.__statuses.push(el.textContent);
        }, 10));""")
    open_lab_page(page, site.url)
    statuses = page.evaluate("window.__statuses")
    assert any(re.fullmatch(r"Downloading the Python runtime… \d+\.\d of \d+\.\d MB", s) for s in statuses), statuses
    assert any(s.startswith("Opening the session…") for s in statuses), statuses


def test_a_browser_without_webassembly_is_told_so(page, site):
    page.add_init_script("delete globalThis.WebAssembly")
    page.goto(site.url + "guides/training-step/")
    page.wait_for_selector(f'{TERMINAL}[data-mdx-state="failed"]')
    assert "cannot run WebAssembly" in page.text_content(STATUS)


def test_returning_after_visiting_many_labs_reopens_the_first_from_its_saved_state(page, site, requests):
    open_lab_page(page, site.url)
    run(page, "cd /tmp")
    for _ in range(9):
        follow_link(page, "a.md-footer__link--next")
    page.click('.md-nav a[href$="guides/training-step/"]')
    page.wait_for_function("() => location.pathname.endsWith('/guides/training-step/')")
    wait_ready(page)
    assert run(page, "pwd").endswith("$ pwd\n/tmp\n")
    assert "Error" not in output(page)
    assert requests.count("pyodide.asm.wasm") == 1


@pytest.mark.slow
def test_a_runtime_that_never_becomes_ready_times_out_with_a_plain_message(page, site):
    # A server whose policy lacks 'wasm-unsafe-eval' makes Pyodide wait forever instead of failing.
    server = SiteServer(headers={"Content-Security-Policy": "default-src 'self'; script-src 'self'"})
    server.serve(site.folder)
    try:
        page.goto(server.url + "guides/training-step/")
        page.click(INPUT)
        page.wait_for_selector(f'{TERMINAL}[data-mdx-state="failed"]', timeout=45000)
    finally:
        server.close()
    assert "did not start within 30 seconds" in page.text_content(STATUS)
