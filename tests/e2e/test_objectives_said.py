"""An objective ticked by the learner's own output is said once, politely; a reload or a new lab says nothing."""

from __future__ import annotations

from .terminal import INPUT, TERMINAL, run, wait_ready

LAB_PAGE = "reference/fabric-triage/"  # fabric-triage, seed 0: node02's mlx5_3 trained at 200 Gb/s
PROGRESS = f"{TERMINAL} [data-mdx-progress]"
FIRST = "Read the negotiated rate of every rail port on the job's nodes"


def said(page) -> str:
    return page.text_content(PROGRESS) or ""


def test_a_ticked_objective_is_said_once_and_not_again_after_a_reload(page, site, results):
    page.goto(site.url + LAB_PAGE)
    page.click(INPUT)
    wait_ready(page, 90000)
    assert page.get_attribute(PROGRESS, "aria-live") == "polite"
    assert said(page) == ""
    run(page, "ssh node01 ibstatus")  # a healthy node shows no degraded port: nothing ticks, nothing is said
    assert said(page) == ""
    run(page, "ssh node02 ibstatus")
    page.wait_for_function(f"() => document.querySelector('{PROGRESS}').textContent !== ''")
    assert said(page) == f"Objective done: {FIRST} (1 of 4)"
    page.click(f'{TERMINAL} [data-mdx-action="panel"]')
    page.locator(TERMINAL).screenshot(path=str(results / "objective-said.png"))
    # The same evidence again ticks nothing new: the region keeps its one sentence, not said twice.
    page.evaluate(f"document.querySelector('{PROGRESS}').replaceChildren()")
    run(page, "ssh node02 ibstatus")
    assert said(page) == ""
    # A reload restores the ticked objective without reading it out again.
    page.wait_for_timeout(300)  # the snapshot is saved after the command
    page.reload()
    page.click(INPUT)
    wait_ready(page)
    page.click(f'{TERMINAL} [data-mdx-action="panel"]')
    page.wait_for_function(f"() => document.querySelector('{TERMINAL} [data-mdx-objective]')?.dataset.mdxObjective"
                           " === 'done'")
    assert said(page) == ""
    # Another lab's objectives are a new checklist, not progress.
    run(page, "lab start input-wait --seed 3")
    assert said(page) == ""
