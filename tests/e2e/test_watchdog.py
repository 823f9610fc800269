"""The terminal's limits in the browser: a command whose worker stops answering is stopped by the
watchdog and the session comes back without it; a save that no longer fits in localStorage keeps what
fits and says so once."""

from __future__ import annotations

from .terminal import INPUT, OUTPUT, TERMINAL, output, run, wait_ready

#: The line the test hook makes hang (watchdog.js sends it as a STALL only when TEST_STALL names it).
STALL_LINE = "sleep-forever-for-the-test"
TEST_STALL = "mdx-terminal:test-stall"
STOPPED = ("The command stopped answering for 10 seconds, so it was stopped: the terminal restarted its runtime "
           "and restored your session without that line.")
FULL = "This browser's storage for the site is full"
LAB_PAGE = "guides/training-step/"
#: A cold runtime load on a busy machine may take longer than the shared helpers wait.
LOAD_MS = 90000


def open_lab_page(page, url: str) -> None:
    page.goto(url + LAB_PAGE)
    page.click(INPUT)
    wait_ready(page, timeout=LOAD_MS)


def test_a_hung_command_is_stopped_and_the_session_restored_without_it(page, site):
    open_lab_page(page, site.url)
    run(page, "export COLOR=teal")
    run(page, "cd /tmp")
    assert "Hint 1 of 4" in run(page, "hint")
    # Without the test's switch, the line is an ordinary (unknown) command.
    assert "command not found" in run(page, STALL_LINE)
    page.evaluate("([key, line]) => localStorage.setItem(key, line)", [TEST_STALL, STALL_LINE])
    said = run(page, STALL_LINE, timeout=60000)
    assert STOPPED in said
    wait_ready(page, timeout=LOAD_MS)
    # Every earlier line's effect is back, the lab progress too, and the next command answers.
    assert run(page, "echo $COLOR; pwd").endswith("teal\n/tmp\n")
    assert "Progress: 1 of 4 hints used" in run(page, "lab")
    assert output(page).count(STOPPED) == 1


def _fill_storage(page) -> int:
    """Fill localStorage with filler keys until it refuses more, then free about 2 KB; the filler count."""
    return page.evaluate(
        """() => {
          let n = 0;
          for (const size of [1 << 20, 1 << 16, 1 << 12, 1 << 8]) {
            const text = "x".repeat(size);
            try { for (;;) { localStorage.setItem(`filler${n}`, text); n += 1; } } catch { /* full at this size */ }
          }
          for (let i = 1; i <= 8; i += 1) localStorage.removeItem(`filler${n - i}`);
          return n;
        }""")


def test_a_full_storage_keeps_what_fits_and_says_so_once(page, site):
    open_lab_page(page, site.url)
    run(page, "export COLOR=teal")
    solved = '{"late-rank": {"seed": 0, "hints": 1, "attempts": 2}}'
    page.evaluate("(v) => localStorage.setItem('mdx-terminal:solved', v)", solved)
    assert _fill_storage(page) > 8
    said = run(page, "seq 1 3000")
    page.wait_for_function(f"() => document.querySelector('{OUTPUT}').textContent.includes(\"{FULL}\")")
    assert "progress export" in output(page)
    run(page, "seq 1 3000")
    run(page, "echo after")
    assert output(page).count(FULL) == 1, said
    # The labs solved are never cut; the saved session holds the newest lines.
    assert page.evaluate("() => localStorage.getItem('mdx-terminal:solved')") == solved
    saved = page.evaluate("() => JSON.parse(localStorage.getItem('mdx-terminal:late-rank:0')).state")
    assert saved is not None and "export COLOR=teal" in saved
    # After a reload the session comes back from what was kept.
    open_lab_page(page, site.url)
    assert run(page, "echo $COLOR").endswith("teal\n")
    assert page.get_attribute(TERMINAL, "data-mdx-open") == "true"
