"""The command line's keys, completion, interrupt, paste and output, on one shared lab page."""

from __future__ import annotations

import pytest

from .terminal import INPUT, OUTPUT, SCREEN, TERMINAL, output, run, runs


@pytest.fixture
def line(lab_page):
    """The module's shared lab page with an empty command line, focused."""
    lab_page.fill(INPUT, "")
    lab_page.focus(INPUT)
    return lab_page


def caret(page) -> tuple[str, int]:
    value, cursor = page.eval_on_selector(INPUT, "el => [el.value, el.selectionStart]")
    return value, cursor


def type_at(page, text: str, cursor: int | None = None) -> None:
    page.fill(INPUT, text)
    if cursor is not None:
        page.eval_on_selector(INPUT, "(el, n) => el.setSelectionRange(n, n)", cursor)


@pytest.mark.parametrize(("key", "start", "cursor", "expected"), [
    ("Control+a", "echo one two", None, ("echo one two", 0)),
    ("Control+e", "echo one two", 2, ("echo one two", 12)),
    ("Control+u", "echo one two", 9, ("two", 0)),
    ("Control+k", "echo one two", 8, ("echo one", 8)),
    ("Control+w", "echo one two", None, ("echo one ", 9)),
    ("Alt+b", "echo one two", None, ("echo one two", 9)),
    ("Alt+f", "echo one two", 0, ("echo one two", 4)),
    ("Home", "echo one two", None, ("echo one two", 0)),
    ("End", "echo one two", 3, ("echo one two", 12)),
    ("Backspace", "echo one two", None, ("echo one tw", 11)),
    ("Delete", "echo one two", 0, ("cho one two", 0)),
    ("ArrowLeft", "echo one two", None, ("echo one two", 11)),
    ("ArrowRight", "echo one two", 0, ("echo one two", 1)),
])
def test_editing_key(line, key, start, cursor, expected):
    type_at(line, start, cursor)
    line.keyboard.press(key)
    assert caret(line) == expected


def test_ctrl_y_yanks_what_ctrl_k_killed(line):
    type_at(line, "echo one two", 8)
    line.keyboard.press("Control+k")
    line.keyboard.press("Control+a")
    line.keyboard.press("Control+y")
    assert caret(line) == (" twoecho one", 4)


def test_up_and_down_walk_the_history(line):
    run(line, "echo first")
    run(line, "echo second")
    line.fill(INPUT, "draft")
    line.keyboard.press("ArrowUp")
    assert caret(line)[0] == "echo second"
    line.keyboard.press("ArrowUp")
    assert caret(line)[0] == "echo first"
    line.keyboard.press("ArrowDown")
    line.keyboard.press("ArrowDown")
    assert caret(line)[0] == "draft"


def test_ctrl_r_finds_an_earlier_line_and_enter_runs_it(line):
    run(line, "echo needle-in-history")
    run(line, "hostname")
    line.keyboard.press("Control+r")
    line.keyboard.type("needle")
    assert "reverse-i-search" in line.text_content(f"{TERMINAL} [data-mdx-prompt]")
    assert caret(line)[0] == "echo needle-in-history"
    before = runs(line)
    line.keyboard.press("Enter")
    line.wait_for_function(f"() => Number(document.querySelector('{TERMINAL}').dataset.mdxRuns) > {before}")
    assert output(line).endswith("$ echo needle-in-history\nneedle-in-history\n")
    assert line.text_content(f"{TERMINAL} [data-mdx-prompt]") == "alice@login01:~$ "


def test_tab_completes_a_unique_command(line):
    type_at(line, "hostn")
    line.keyboard.press("Tab")
    line.wait_for_function(f"() => document.querySelector('{INPUT}').value === 'hostname '")


def test_tab_lists_several_candidates_as_bash_does(line):
    type_at(line, "h")
    line.keyboard.press("Tab")
    line.wait_for_function(f"() => /\\$ h\\n[^$]*hostname/.test(document.querySelector('{OUTPUT}').textContent)")
    shown = output(line)
    assert "$ h\n" in shown
    listing = shown.rsplit("$ h\n", 1)[1]
    assert listing.split() == sorted(listing.split())
    assert {"head", "help", "hint", "history", "hostname"} <= set(listing.split())
    assert caret(line)[0] == "h"


def test_tab_completes_options_from_the_command_spec(line):
    type_at(line, "nvidia-smi --query-g")
    line.keyboard.press("Tab")
    line.wait_for_function(f"() => document.querySelector('{INPUT}').value === 'nvidia-smi --query-gpu '")


def test_ctrl_c_without_selection_clears_the_line(line):
    type_at(line, "echo never")
    line.keyboard.press("Control+c")
    assert caret(line)[0] == ""
    assert output(line).endswith("$ echo never^C\n")


def test_ctrl_c_interrupts_a_streaming_command(line):
    before = runs(line)
    line.fill(INPUT, "watch -n 1 hostname")
    line.keyboard.press("Enter")
    line.wait_for_function(f"() => document.querySelector('{OUTPUT}').textContent.includes('Every 1.0s')")
    line.wait_for_timeout(1500)
    assert runs(line) == before, "watch ended by itself"
    line.keyboard.press("Control+c")
    line.wait_for_function(f"() => Number(document.querySelector('{TERMINAL}').dataset.mdxRuns) > {before}",
                           timeout=5000)
    assert "^C" in output(line)
    assert run(line, "echo after").endswith("after\n")


def test_ctrl_l_clears_the_screen(line):
    run(line, "echo something")
    line.focus(INPUT)
    line.keyboard.press("Control+l")
    assert output(line) == ""


def test_pasting_several_lines_runs_them_in_order(line):
    before = runs(line)
    line.eval_on_selector(INPUT, """el => {
        const data = new DataTransfer();
        data.setData('text/plain', 'echo one\\necho two\\necho thr');
        el.dispatchEvent(new ClipboardEvent('paste', {clipboardData: data, bubbles: true, cancelable: true}));
    }""")
    line.wait_for_function(f"() => Number(document.querySelector('{TERMINAL}').dataset.mdxRuns) >= {before + 2}")
    assert output(line).endswith("$ echo one\none\nalice@login01:~$ echo two\ntwo\n")
    assert caret(line)[0] == "echo thr"


def test_output_is_text_never_html(line):
    dialogs = []
    line.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    shown = run(line, "echo '<img src=x onerror=alert(1)>'")
    assert shown.endswith("\n<img src=x onerror=alert(1)>\n")
    assert line.query_selector(f"{OUTPUT} img") is None
    assert dialogs == []


def test_wide_output_scrolls_sideways_without_wrapping(line):
    wide = "x" * 300
    run(line, f"echo {wide}")
    assert wide + "\n" in output(line)
    # The output scrolls sideways on its own; the screen, and the command line in it, do not.
    widths = line.eval_on_selector(OUTPUT, "el => [el.scrollWidth, el.clientWidth]")
    assert widths[0] > widths[1]
    screen = line.eval_on_selector(SCREEN, "el => [el.scrollWidth, el.clientWidth]")
    assert screen[0] == screen[1]
    white_space = line.eval_on_selector(OUTPUT, "el => getComputedStyle(el).whiteSpace")
    assert white_space == "pre"


def test_each_command_is_announced_once_in_the_live_region(line):
    run(line, "hostname")
    assert line.text_content(f"{TERMINAL} [data-mdx-live]") == "login01"
    assert line.get_attribute(f"{TERMINAL} [data-mdx-live]", "aria-live") == "polite"
    assert line.get_attribute(OUTPUT, "aria-live") is None


def test_tab_completes_paths(line):
    type_at(line, "ls /et")
    line.keyboard.press("Tab")
    line.wait_for_function(f"() => document.querySelector('{INPUT}').value === 'ls /etc/'")


def test_ctrl_c_with_text_selected_copies_instead_of_clearing(line):
    line.context.grant_permissions(["clipboard-read", "clipboard-write"])
    type_at(line, "echo copied")
    line.eval_on_selector(INPUT, "el => el.setSelectionRange(5, 11)")
    line.keyboard.press("Control+c")
    assert caret(line)[0] == "echo copied"
    assert line.evaluate("navigator.clipboard.readText()") == "copied"


def test_escape_then_tab_leaves_the_terminal(line):
    line.keyboard.press("Escape")
    line.keyboard.press("Tab")
    assert not line.evaluate("document.activeElement.matches('[data-mdx-input]')")


def test_tab_on_an_empty_line_asks_before_listing_every_command(line):
    line.keyboard.press("Tab")
    line.wait_for_function(f"() => /Display all \\d+ possibilities\\? \\(y or n\\)$/.test("
                           f"document.querySelector('{OUTPUT}').textContent)")
    line.keyboard.press("y")
    line.wait_for_function(f"() => /nvidia-smi/.test(document.querySelector('{OUTPUT}').textContent.split('possibilities')"
                           ".pop())")
    assert caret(line)[0] == ""


def test_ctrl_d_deletes_under_the_cursor_or_logs_out_of_an_empty_line(line):
    type_at(line, "echo one", 0)
    line.keyboard.press("Control+d")
    assert caret(line) == ("cho one", 0)
    line.fill(INPUT, "")
    run(line, "ssh node03")
    assert line.text_content(f"{TERMINAL} [data-mdx-prompt]") == "alice@node03:~$ "
    before = runs(line)
    line.keyboard.press("Control+d")
    line.wait_for_function(f"() => Number(document.querySelector('{TERMINAL}').dataset.mdxRuns) > {before}")
    assert output(line).endswith("alice@node03:~$ logout\nConnection to node03 closed.\n")
    assert line.text_content(f"{TERMINAL} [data-mdx-prompt]") == "alice@login01:~$ "


def test_output_selected_with_the_mouse_copies_as_plain_text(line):
    line.context.grant_permissions(["clipboard-read", "clipboard-write"])
    run(line, "printf 'a\\tb\\n'")
    line.eval_on_selector(OUTPUT, """el => {
        el.focus();
        const last = [...el.querySelectorAll('[data-stream]')].pop();  // the last chunk drawn
        const range = document.createRange();
        range.selectNodeContents(last);
        getSelection().removeAllRanges();
        getSelection().addRange(range);
    }""")
    line.keyboard.press("Control+c")
    assert line.evaluate("navigator.clipboard.readText()").rstrip("\n") == "a\tb"


def test_an_unfinished_command_asks_for_more_lines_as_bash_does(line):
    run(line, "for i in 1 2; do")
    assert line.text_content(f"{TERMINAL} [data-mdx-prompt]") == "> "
    run(line, "echo item $i")
    shown = run(line, "done")
    assert output(line).endswith("$ for i in 1 2; do\n> echo item $i\n> done\nitem 1\nitem 2\n")
    assert shown.endswith("> done\nitem 1\nitem 2\n")
    assert line.text_content(f"{TERMINAL} [data-mdx-prompt]") == "alice@login01:~$ "


def test_a_pasted_here_document_runs_as_one_command(line):
    before = runs(line)
    line.eval_on_selector(INPUT, """el => {
        const data = new DataTransfer();
        data.setData('text/plain', 'cat <<EOF\\nfirst\\nsecond\\nEOF\\n');
        el.dispatchEvent(new ClipboardEvent('paste', {clipboardData: data, bubbles: true, cancelable: true}));
    }""")
    line.wait_for_function(f"() => Number(document.querySelector('{TERMINAL}').dataset.mdxRuns) >= {before + 4}")
    assert output(line).endswith("$ cat <<EOF\n> first\n> second\n> EOF\nfirst\nsecond\n")
