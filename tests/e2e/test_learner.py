"""What a learner keeps and controls: persistence, reset, the lab panel, shared addresses, looks, access."""

from __future__ import annotations

import base64
import hashlib
import json
import re

from .conftest import ROOT
from .terminal import INPUT, OUTPUT, PROMPT, STATUS, TERMINAL, follow_link, open_lab_page, output, run, wait_ready

LAB_PAGE = "guides/training-step/"
STORAGE_KEY = "mdx-terminal:late-rank:0"


def test_history_and_session_state_survive_a_reload(page, site):
    open_lab_page(page, site.url)
    run(page, "cd /tmp")
    run(page, "echo kept")
    page.wait_for_function(f"() => (localStorage.getItem('{STORAGE_KEY}') || '').includes('/tmp')")
    page.reload()
    page.click(INPUT)
    wait_ready(page)
    assert page.text_content(PROMPT) == "alice@login01:/tmp$ "
    assert "$ echo kept\nkept\n" in output(page)
    page.keyboard.press("ArrowUp")
    assert page.input_value(INPUT) == "echo kept"
    saved = json.loads(page.evaluate(f"localStorage.getItem('{STORAGE_KEY}')"))
    assert saved["schema"] == 1


def test_lab_progress_survives_a_reload(page, site):
    open_lab_page(page, site.url)
    run(page, "hint")
    page.wait_for_timeout(300)  # the snapshot is saved after the command
    page.reload()
    page.click(INPUT)
    wait_ready(page)
    assert "1 of 4 hints used" in run(page, "lab")


def test_the_scrollback_is_bounded(lab_page):
    page = lab_page
    run(page, "seq 1 60000")
    kept = len(page.text_content(OUTPUT))
    assert 150_000 < kept <= 200_000
    assert output(page).endswith("59999\n60000\n")


def test_a_command_that_never_stops_is_recovered_by_restarting_the_runtime(page, site):
    open_lab_page(page, site.url)
    run(page, "cd /tmp")
    page.fill(INPUT, "watch -n 1 hostname")
    page.press(INPUT, "Enter")
    page.wait_for_function(f"() => document.querySelector('{OUTPUT}').textContent.includes('Every 1.0s')")
    # Freeze the worker, as a command stuck inside Python would.
    worker = next(w for w in page.workers if w.url.split("?")[0].endswith("/terminal/worker.js"))
    worker.evaluate("() => { setTimeout(() => { const end = Date.now() + 60000; while (Date.now() < end); }, 0); }")
    page.wait_for_timeout(200)
    page.press(INPUT, "Control+c")
    page.wait_for_function(f"() => document.querySelector('{OUTPUT}').textContent.includes('did not stop')",
                           timeout=10000)
    wait_ready(page)
    assert page.text_content(PROMPT) == "alice@login01:/tmp$ "
    assert run(page, "echo back").endswith("back\n")


def test_unreadable_storage_starts_fresh_with_a_notice(page, site):
    page.goto(site.url + LAB_PAGE)
    page.evaluate(f"localStorage.setItem('{STORAGE_KEY}', '{{not json')")
    page.reload()
    page.click(INPUT)
    wait_ready(page)
    assert "could not be read" in output(page)
    assert run(page, "hostname").endswith("login01\n")


def test_storage_of_another_schema_starts_fresh_with_a_notice(page, site):
    page.goto(site.url + LAB_PAGE)
    old = json.dumps({"schema": 0, "lab": "late-rank", "seed": 0, "history": ["x"]})
    page.evaluate("([k, v]) => localStorage.setItem(k, v)", [STORAGE_KEY, old])
    page.reload()
    page.click(INPUT)
    wait_ready(page)
    assert "could not be read" in output(page)


def test_a_saved_session_the_engine_rejects_starts_fresh(page, site):
    page.goto(site.url + LAB_PAGE)
    bad = json.dumps({"schema": 1, "lab": "late-rank", "seed": 0, "history": [], "state": "{\"schema\": -1}",
                      "scrollback": []})
    page.evaluate("([k, v]) => localStorage.setItem(k, v)", [STORAGE_KEY, bad])
    page.reload()
    page.click(INPUT)
    wait_ready(page)
    assert "fresh" in output(page)
    assert run(page, "hostname").endswith("login01\n")


def test_reset_lab_returns_to_the_starting_state(lab_page):
    page = lab_page
    run(page, "cd /tmp")
    reset = f'{TERMINAL} [data-mdx-action="reset"]'
    page.click(reset)
    assert page.text_content(reset) == "Click again to reset"
    assert page.text_content(PROMPT) == "alice@login01:/tmp$ "
    page.click(reset)
    page.wait_for_function(f"() => document.querySelector('{PROMPT}').textContent === 'alice@login01:~$ '")
    assert output(page).startswith("Lab: A late rank. Type lab to read the task")


def test_the_lab_panel_shows_the_goal_and_a_hint_on_request(lab_page):
    page = lab_page
    panel = f"{TERMINAL} [data-mdx-panel]"
    assert not page.is_visible(panel)
    page.click(f'{TERMINAL} [data-mdx-action="panel"]')
    assert page.is_visible(panel)
    assert "late" in page.text_content(f"{panel} [data-mdx-lab-goal]").lower()
    assert page.get_attribute(f"{panel} [data-mdx-share]", "href") == "?lab=late-rank&seed=0"
    page.click(f'{panel} [data-mdx-run="hint"]')
    page.wait_for_function(f"() => document.querySelector('{OUTPUT}').textContent.includes('Hint 1 of')")


def test_an_address_names_the_lab_and_seed_to_open(page, site):
    page.goto(site.url + "index.html?lab=late-rank&seed=7")
    page.click(INPUT)
    wait_ready(page)
    assert page.text_content(f"{TERMINAL} [data-mdx-variant]") == "lab late-rank · seed 7"
    assert "(late-rank, seed 7," in run(page, "lab")


def test_the_runtime_starts_without_a_click_or_a_key(page, site):
    """prestart.js starts it from <head>; where it cannot, client.js starts it once the page is idle."""
    page.goto(site.url + LAB_PAGE)
    wait_ready(page)


def test_run_in_terminal_types_a_console_block_into_the_terminal(page, site):
    page.goto(site.url + "emulator/")
    wait_ready(page)
    button = page.locator(".md-content .language-console .mdx-run").first
    code = button.evaluate("b => b.parentElement.querySelector('code').textContent")
    command = next(line[2:] for line in code.splitlines() if line.startswith("$ "))
    button.click()
    page.wait_for_function(
        "([sel, c]) => document.querySelector(sel).textContent.includes('$ ' + c + '\\n')", arg=[OUTPUT, command])


def test_the_terminal_follows_the_palette_toggle(lab_page):
    page = lab_page
    colours = "el => [getComputedStyle(el).backgroundColor, getComputedStyle(el).color]"
    light = page.eval_on_selector(TERMINAL, colours)
    page.click("form[data-md-component=palette] label:not([hidden])")
    page.wait_for_function("() => document.body.dataset.mdColorScheme === 'slate'")
    dark = page.eval_on_selector(TERMINAL, colours)
    page.click("form[data-md-component=palette] label:not([hidden])")
    page.wait_for_function("() => document.body.dataset.mdColorScheme === 'default'")
    assert light != dark
    assert light[0] == "rgb(246, 247, 249)" and dark[0] == "rgb(17, 19, 26)"


def test_pages_allow_only_the_site_itself_and_report_no_violations(page, site):
    page.add_init_script("""window.__violations = [];
        document.addEventListener('securitypolicyviolation',
            e => window.__violations.push(e.violatedDirective + ' ' + e.blockedURI));""")
    open_lab_page(page, site.url)
    run(page, "help")
    follow_link(page, "a.md-footer__link--next")
    policy = page.get_attribute('meta[http-equiv="Content-Security-Policy"]', "content")
    assert "'wasm-unsafe-eval'" in policy and "'unsafe-eval'" not in policy and "'unsafe-inline'" not in policy
    assert page.evaluate("window.__violations") == []
    inline = page.evaluate("[...document.scripts].filter(s => !s.src && s.type !== 'application/json')"
                           ".map(s => s.textContent)")
    # The one inline script is prestart.js (hooks/prestart.py): the policy names it by its hash, and nothing else.
    assert len(inline) == 1 and "mdxPrestarted" in inline[0]
    digest = base64.b64encode(hashlib.sha256(inline[0].encode()).digest()).decode()
    assert re.findall(r"'sha256-[^']+'", policy) == [f"'sha256-{digest}'"]


def test_a_lab_page_has_no_serious_accessibility_violations(lab_page):
    page = lab_page
    run(page, "help")
    page.evaluate((ROOT / "node_modules/axe-core/axe.min.js").read_text())
    scan = """async () => {
        const result = await axe.run(document, {resultTypes: ['violations']});
        return result.violations.filter(v => ['serious', 'critical'].includes(v.impact))
            .map(v => v.id + ': ' + v.nodes.map(n => n.target.join(' ')).join(', '));
    }"""
    found = page.evaluate(scan)
    assert found == [], "\n".join(found)
    page.click("form[data-md-component=palette] label:not([hidden])")
    page.wait_for_function("() => document.body.dataset.mdColorScheme === 'slate'")
    found = page.evaluate(scan)
    page.click("form[data-md-component=palette] label:not([hidden])")
    page.wait_for_function("() => document.body.dataset.mdColorScheme === 'default'")
    assert found == [], "dark palette:\n" + "\n".join(found)


def test_on_a_phone_the_soft_keyboard_and_on_screen_keys_drive_the_terminal(browser, site):
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True,
                                  device_scale_factor=3)
    try:
        page = context.new_page()
        page.goto(site.url + LAB_PAGE)
        page.tap("[data-mdx-sheet-open]")  # a lab page's terminal is a bottom sheet on a phone
        page.tap(INPUT)
        wait_ready(page)
        assert page.is_visible(f'{TERMINAL} [data-mdx-key="Tab"]')
        page.keyboard.type("hostn")
        page.tap(f'{TERMINAL} [data-mdx-key="Tab"]')
        page.wait_for_function(f"() => document.querySelector('{INPUT}').value === 'hostname '")
        page.keyboard.press("Enter")
        page.wait_for_function(f"() => document.querySelector('{OUTPUT}').textContent.endsWith('login01\\n')")
        page.tap(f'{TERMINAL} [data-mdx-key="ArrowUp"]')
        assert page.input_value(INPUT) == "hostname "
        page.tap(f'{TERMINAL} [data-mdx-key="Ctrl-C"]')
        assert page.input_value(INPUT) == ""
        assert page.evaluate("document.activeElement.matches('[data-mdx-input]')")
    finally:
        context.close()


def test_the_status_line_says_nothing_once_ready(lab_page):
    assert lab_page.is_hidden(STATUS)
