"""What a learner sees first and at the turning points: the task-first banner, the tip for a GPU tool on the
login node, a solve's verdict and badge, and lines typed before the runtime is ready."""

from __future__ import annotations

from .terminal import INPUT, OUTPUT, STATUS, TERMINAL, follow_link, open_lab_page, output, run, wait_ready

LAB_PAGE = "guides/training-step/"  # late-rank, seed 0
SOLVE = 'submit rank=2 node=node01 gpu=2 cause="gpu too hot"'


def test_a_lab_page_opens_with_the_task_the_place_and_hint(page, site, results):
    open_lab_page(page, site.url, LAB_PAGE)
    banner = output(page)
    assert banner.startswith("Lab: A late rank. Type lab to read the task, and hint when you are stuck.\n")
    assert "You are on login01, the login node, which has no GPUs" in banner
    assert "ssh node01" in banner and "Job 48213 (llm-pretrain) runs on node[01-04]." in banner
    assert "solutions" not in banner
    assert banner.rstrip().endswith("Simulated outputs do not validate your environment.")
    for width, height in ((1280, 900), (390, 844)):
        page.set_viewport_size({"width": width, "height": height})
        if width < 960:
            page.click("[data-mdx-sheet-open]")  # a lab page's terminal is a bottom sheet on a phone
        page.locator(TERMINAL).screenshot(path=str(results / f"learner-banner-{width}.png"))


def test_the_sandbox_keeps_a_general_banner(page, site):
    page.goto(site.url + "labs/")
    page.click(INPUT)
    wait_ready(page)
    banner = output(page)
    assert banner.startswith("Type help for the list of commands, and lab list for the labs")
    assert "Simulated outputs do not validate your environment." in banner


def test_a_gpu_tool_on_the_login_node_gets_one_dim_tip(page, site):
    open_lab_page(page, site.url, LAB_PAGE)
    said = run(page, "nvidia-smi")
    assert "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver" in said
    tips = page.locator(f"{OUTPUT} .mdx-terminal__tip")
    assert tips.count() == 1
    tip = tips.first.text_content()
    assert tip.startswith("tip: login01 has no GPUs") and "ssh node01" in tip
    driver = page.locator(f"{OUTPUT} .mdx-terminal__out", has_text="NVIDIA-SMI has failed").first
    style = "e => getComputedStyle(e).color"
    assert tips.first.evaluate(style) != driver.evaluate(style)
    run(page, "dcgmi discovery -l")
    assert tips.count() == 1, "the tip is given once a session"
    assert "tip:" not in run(page, "ssh node01 nvidia-smi -L")


def test_a_solve_is_a_verdict_with_a_badge_and_a_mark_on_the_labs_page(page, site, results):
    open_lab_page(page, site.url, LAB_PAGE)
    badge = page.locator(f"{TERMINAL} [data-mdx-solved]")
    assert badge.is_hidden()
    run(page, "hint")
    run(page, SOLVE)
    verdict = page.locator(f"{OUTPUT} .mdx-terminal__ok")
    assert verdict.count() == 1 and verdict.first.text_content() == "✓ Correct: A late rank.\n"
    assert badge.is_visible() and badge.text_content() == "✓ Solved"
    assert "1 hint" in badge.get_attribute("title")
    page.locator(TERMINAL).screenshot(path=str(results / "learner-solved-1280.png"))
    assert "A late rank  ✓ solved, 1 hint" in run(page, "lab list")
    follow_link(page, 'a[href$="labs/"]')
    mark = page.locator('[data-mdx-lab-solved="late-rank"]')
    assert mark.text_content() == "✓ Solved, 1 hint"
    assert page.locator(".mdx-lab-solved").count() == 1
    page.reload()
    assert page.locator('[data-mdx-lab-solved="late-rank"]').text_content() == "✓ Solved, 1 hint"


def test_a_line_entered_before_the_runtime_is_ready_runs_once_every_time(browser, site):
    """Ten cold visits: the keys go in as soon as the command line exists, before the modules mount."""
    early = 0
    for attempt in range(10):
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        try:
            page = context.new_page()
            page.set_default_timeout(60000)
            page.goto(site.url + LAB_PAGE, wait_until="commit")
            page.wait_for_selector(INPUT, state="attached")
            page.focus(INPUT)
            page.keyboard.type(f"echo early-{attempt}")
            mounted = page.evaluate(f"() => Boolean(document.querySelector('{TERMINAL}').dataset.mdxState)")
            page.keyboard.press("Enter")
            early += not mounted
            assert "needs JavaScript" not in (page.text_content(STATUS) or "")
            assert "needs JavaScript" not in page.inner_text(TERMINAL), "the no-JavaScript fallback is on screen"
            page.wait_for_function(
                f"() => Number(document.querySelector('{TERMINAL}').dataset.mdxRuns || 0) >= 1", timeout=60000)
            shown = output(page)
            assert shown.count(f"$ echo early-{attempt}\n") == 1, shown
            assert f"\nearly-{attempt}\n" in shown
            assert page.input_value(INPUT) == ""
        finally:
            context.close()
    print(f"{early} of 10 lines were entered before the terminal mounted")
    assert early >= 1, "no line was entered before the terminal mounted: the test did not reach the race"


def test_a_line_entered_on_the_next_page_before_its_terminal_mounts_runs_once(page, site):
    """After an in-site click the line goes in with the first DOM change that shows the next page's command line,
    mounted or not, and Enter is pressed at once; it runs once, and no fallback text shows meanwhile."""
    open_lab_page(page, site.url, LAB_PAGE)
    said = page.evaluate(
        """([sel]) => new Promise((done) => {
            const old = document.querySelector(sel); const seen = [];
            const observer = new MutationObserver(() => {
                const t = document.querySelector(sel);
                if (!t || t === old || seen.length) return;
                const input = t.querySelector('[data-mdx-input]');
                if (!input) return;
                seen.push(Boolean(t.dataset.mdxState), t.innerText.includes('needs JavaScript'));
                input.value = 'echo next-page';
                input.dispatchEvent(new KeyboardEvent('keydown', {key: 'Enter', bubbles: true, cancelable: true}));
                observer.disconnect();
                done(seen);
            });
            observer.observe(document, {childList: true, subtree: true});
            document.querySelector('a.md-footer__link--next').click();
        })""", [TERMINAL])
    mounted, fallback = said
    assert not fallback, "the no-JavaScript fallback is on screen"
    page.wait_for_function(f"() => Number(document.querySelector('{TERMINAL}').dataset.mdxRuns || 0) >= 1")
    shown = output(page)
    assert shown.count("$ echo next-page\n") == 1 and "\nnext-page\n" in shown, shown
    assert page.input_value(INPUT) == ""
    assert "needs JavaScript" not in page.inner_text(TERMINAL)
    print("the next page's terminal was", "mounted" if mounted else "not mounted yet", "when Enter was pressed")

