"""The workshop pages in the browser: progress exported and imported into a fresh profile, a damaged or
newer file refused with nothing changed, and the instructor page's links, CSV and code checks, offline."""

from __future__ import annotations

import json
import re
from pathlib import Path

from emulator import labs
from emulator.__main__ import run_line
from emulator.completion import verify
from emulator.session import Session

from .site import ROOT
from .terminal import INPUT, OUTPUT, run, wait_ready

PROGRESS = "workshop/progress/"
INSTRUCTOR = "workshop/"
IMPORT = '[data-mdx-action="import"]'
STATUS = "[data-mdx-progress-status]"


def stored(page) -> dict[str, str]:
    """Every key this site keeps in the browser's localStorage, with its value."""
    return page.evaluate("""() => Object.fromEntries(Object.keys(localStorage)
        .filter(k => k.startsWith('mdx-terminal:') && !k.startsWith('mdx-terminal:snapshot'))
        .map(k => [k, localStorage.getItem(k)]))""")


def solve_in_browser(page, site_url: str, lab: str, seed: int) -> None:
    page.goto(f"{site_url}guides/data-loading/?lab={lab}&seed={seed}")
    page.click(INPUT)
    wait_ready(page, 90000)
    truth = Session(lab, seed).cluster.truth()
    run(page, "hint")
    out = run(page, f"submit cause={truth['cause']}")
    assert "Correct" in out and "CL1-" in out, out
    page.wait_for_function("(key) => (localStorage.getItem(key) || '').includes('submit')",
                           arg=f"mdx-terminal:{lab}:{seed}")


def export(page, site_url: str, tmp_path):
    page.goto(site_url + PROGRESS)
    with page.expect_download() as download:
        page.click('[data-mdx-action="export"]')
    path = tmp_path / "progress.json"
    download.value.save_as(path)
    return path


def test_export_then_import_in_a_fresh_browser_restores_everything(browser, site, tmp_path):
    first = browser.new_context()
    page = first.new_page()
    solve_in_browser(page, site.url, "input-wait", 5)
    path = export(page, site.url, tmp_path)
    kept = stored(page)  # read once the lab page has gone: leaving it saves the terminal once more
    data = json.loads(path.read_text())
    assert (data["format"], data["schema"]) == ("gpu-cluster-handbook-progress", 1)
    assert data["solved"]["input-wait"] == {"seed": 5, "hints": 1, "attempts": 1}
    first.close()

    fresh = browser.new_context()
    page = fresh.new_page()
    page.goto(site.url + PROGRESS)
    page.set_input_files(IMPORT, str(path))
    page.wait_for_selector(f'{STATUS}[data-mdx-outcome="imported"]')
    now = stored(page)
    assert {key: now.get(key) for key in kept} == kept
    report = page.inner_text("[data-mdx-progress-table]")
    assert "input-wait" in report and "input-wait, seed 5: the 2 line(s) typed" in report
    page.goto(f"{site.url}guides/data-loading/?lab=input-wait&seed=5")
    page.click(INPUT)
    wait_ready(page, 90000)
    assert "input-wait       5  yes            1      1  -" in run(page, "progress")
    code = run(page, "completion").strip().splitlines()[-1]
    assert verify(code) == "OK lab=input-wait seed=5 student=- hints=1 solutions=no"  # the browser's build is this one
    fresh.close()


def test_progress_export_and_import_typed_in_the_terminal_restore_a_fresh_browser(browser, site, tmp_path):
    first = browser.new_context()
    page = first.new_page()
    solve_in_browser(page, site.url, "storage", 6)
    with page.expect_download() as download:
        run(page, "progress export")
    path = tmp_path / "terminal.json"
    download.value.save_as(path)
    assert download.value.suggested_filename == "progress.json"
    data = json.loads(path.read_text())
    assert data["solved"]["storage"] == {"seed": 6, "hints": 1, "attempts": 1}
    [record] = [r for r in data["terminals"] if (r["lab"], r["seed"]) == ("storage", 6)]
    assert record["history"][-1] == "progress export"
    page.wait_for_function("(sel) => document.querySelector(sel).textContent.includes('saved progress.json')",
                           arg=OUTPUT)
    first.close()

    fresh = browser.new_context()
    page = fresh.new_page()
    page.goto(f"{site.url}guides/training-step/")
    page.click(INPUT)
    wait_ready(page, 90000)
    with page.expect_file_chooser() as chooser:
        run(page, "progress import")
    chooser.value.set_files(str(path))
    page.wait_for_function("(sel) => document.querySelector(sel).textContent.includes('progress import: terminal.json')",
                           arg=OUTPUT)
    assert "1 solve(s) added or updated" in page.inner_text(OUTPUT)
    page.goto(f"{site.url}guides/data-loading/?lab=storage&seed=6")
    page.click(INPUT)
    wait_ready(page, 90000)
    assert re.search(r"^storage +6 +yes +1 +1 +-$", run(page, "progress"), re.M)
    code = run(page, "completion").strip().splitlines()[-1]
    assert verify(code) == "OK lab=storage seed=6 student=- hints=1 solutions=no"

    refused = tmp_path / "cut.json"
    refused.write_text(path.read_text()[:-40])
    before = stored(page)
    with page.expect_file_chooser() as chooser:
        run(page, "progress import")
    chooser.value.set_files(str(refused))
    page.wait_for_function("(sel) => document.querySelector(sel).textContent.includes('cut.json was not imported')",
                           arg=OUTPUT)
    assert "nothing stored changed" in page.inner_text(OUTPUT)
    assert {k: v for k, v in stored(page).items() if k != "mdx-terminal:storage:6"} == \
        {k: v for k, v in before.items() if k != "mdx-terminal:storage:6"}
    fresh.close()


def test_a_file_the_cli_exported_imports_through_the_choose_a_file_button_into_the_same_terminal(browser, site,
                                                                                                  tmp_path):
    session = Session("storage", 8)
    truth = session.cluster.truth()
    path = tmp_path / "cli.json"
    for line in ("hint", f"submit cause={truth['cause']}", f"progress export {path}"):
        run_line(session, line, sleep=False, timeout=0)
    context = browser.new_context()
    context.add_init_script("Object.defineProperty(navigator, 'userActivation', {value: {isActive: false}})")
    page = context.new_page()
    page.goto(f"{site.url}guides/data-loading/?lab=storage&seed=8")
    page.click(INPUT)
    wait_ready(page, 90000)
    assert "choose the progress file" in run(page, "progress import")
    with page.expect_file_chooser() as chooser:
        page.click(f'{OUTPUT} button[data-mdx-action="import"]')
    chooser.value.set_files(str(path))
    page.wait_for_function("(sel) => document.querySelector(sel).textContent.includes('continues the imported run')",
                           arg=OUTPUT)
    wait_ready(page)
    assert re.search(r"^storage +8 +yes +1 +1 +-$", run(page, "progress"), re.M)
    assert verify(run(page, "completion").strip().splitlines()[-1]).startswith("OK lab=storage seed=8 ")
    context.close()


def test_a_student_link_names_the_student_in_the_code(page, site):
    page.goto(f"{site.url}guides/data-loading/?lab=input-wait&seed=3&student=Ana%20%20Lima")
    page.click(INPUT)
    wait_ready(page, 90000)
    truth = Session("input-wait", 3).cluster.truth()
    code = run(page, f"submit cause={truth['cause']}").strip().splitlines()[-1]
    assert verify(code) == "OK lab=input-wait seed=3 student=Ana Lima hints=0 solutions=no"
    assert page.evaluate("localStorage.getItem('mdx-terminal:student')") == "Ana Lima"
    other = run(page, "completion --student Bo").strip().splitlines()[-1]
    assert verify(other).startswith("OK lab=input-wait seed=3 student=Bo ")


def test_a_damaged_foreign_or_newer_file_is_refused_and_nothing_changes(browser, site, tmp_path):
    context = browser.new_context()
    page = context.new_page()
    solve_in_browser(page, site.url, "storage", 2)
    good = json.loads(export(page, site.url, tmp_path).read_text())
    before = stored(page)
    other = json.loads(json.dumps(good))
    other["terminals"][0]["seed"] = 9
    other["terminals"].append({"schema": 1, "lab": "nvlink", "seed": 1, "history": "not a list"})
    cases = {
        "damaged.json": (json.dumps(other), "is damaged"),
        "cut.json": (json.dumps(good)[:-40], "not readable JSON"),
        "foreign.json": (json.dumps({"format": "something-else", "schema": 1}), "not a progress file of this site"),
        "newer.json": (json.dumps({**good, "schema": 2}), "newer version of this site"),
    }
    for name, (text, reason) in cases.items():
        path = tmp_path / name
        path.write_text(text)
        page.set_input_files(IMPORT, str(path))
        page.wait_for_function("([sel, name]) => document.querySelector(sel).textContent.startsWith(name)",
                               arg=[STATUS, name])
        status = page.inner_text(STATUS)
        assert "nothing stored changed" in status and reason in status, status
        assert stored(page) == before
    context.close()


def solved_code(lab: str, seed: int, student: str) -> str:
    session = Session(lab, seed)
    truth = session.cluster.truth()
    assert labs.get(lab).check.fields == ["cause"]
    session.execute(f"submit cause={truth['cause']}")
    out, status = session.execute(f"completion --student '{student}'")
    assert status == 0
    return out.strip()


def test_the_instructor_page_makes_links_and_checks_codes_in_the_page(page, site, requests):
    page.goto(site.url + INSTRUCTOR)
    page.fill("[data-mdx-workshop-name]", "GPU week")
    page.fill("[data-mdx-students]", "Ana Lima\nBo\n")
    page.click('[data-mdx-action="links"]')
    ana, bo = labs.student_seed("GPU week", "Ana Lima"), labs.student_seed("GPU week", "Bo")
    roster = page.inner_text("[data-mdx-roster]")
    assert f"Ana Lima (seed {ana})" in roster and f"Bo (seed {bo})" in roster
    assert f"{site.url}guides/data-loading/?lab=input-wait&seed={ana}" in roster
    with page.expect_download() as download:
        page.click('[data-mdx-action="csv"]')
    csv = Path(download.value.path()).read_text().splitlines()
    assert csv[0] == "workshop,student,seed,lab,link"
    assert (f"GPU week,Ana Lima,{ana},input-wait,{site.url}guides/data-loading/?lab=input-wait&seed={ana}"
            "&student=Ana%20Lima") in csv

    good = solved_code("input-wait", ana, "Ana Lima")
    friend = solved_code("input-wait", bo, "Bo")
    typo = good[:10] + ("A" if good[10] != "A" else "B") + good[11:]
    page.fill("[data-mdx-codes]", f"Ana Lima,{good}\nAna Lima,{friend}\nBo,{typo}\n")
    page.click('[data-mdx-action="verify"]')
    page.wait_for_function("() => document.querySelector('[data-mdx-verify-status]').textContent.startsWith('Checked')",
                           timeout=120000)
    rows = page.eval_on_selector_all("[data-mdx-verdicts] tbody tr",
                                     "rows => rows.map(r => [r.dataset.mdxResult, r.innerText])")
    assert [result for result, _ in rows] == ["ok", "invalid", "invalid"]
    assert f"{ana}" in rows[0][1] and "valid" in rows[0][1]
    assert f"seed {bo} is not Ana Lima's seed in this workshop ({ana})" in rows[1][1]
    assert "checksum mismatch" in rows[2][1]
    assert page.inner_text("[data-mdx-verify-status]") == "Checked 3 code(s): 1 valid."

    page.mouse.move(0, 0)  # a hovered button takes the accent colour, Material's own
    page.evaluate("document.activeElement.blur()")
    page.evaluate((ROOT / "node_modules/axe-core/axe.min.js").read_text())
    found = page.evaluate("""async () => {
        const result = await axe.run(document, {resultTypes: ['violations']});
        return result.violations.filter(v => ['serious', 'critical'].includes(v.impact))
            .map(v => v.id + ': ' + v.nodes.map(n => n.target.join(' ')).join(', '));
    }""")
    assert found == [], "\n".join(found)
    assert requests.elsewhere() == []


def test_the_notes_page_is_generated_from_the_lab_files(page, site):
    page.goto(site.url + "workshop/notes/")
    text = page.inner_text("article")
    for lab in labs.all_labs().values():
        if not lab.is_sandbox:
            assert f"({lab.id})" in text
    assert "Half day" in text and "Full day" in text


def test_every_labs_reference_solve_verifies_on_the_instructor_page(page, site):
    codes = []
    for lab in labs.all_labs().values():
        for seed in (0, 3):
            if lab.is_sandbox:
                continue
            session = Session(lab.id, seed)
            truth = session.cluster.truth()
            for step in lab.solution:
                for line in step.run:
                    session.execute(labs.substitute(line, truth))
            session.execute("submit " + " ".join(f'{k}="{truth[k]}"' for k in lab.check.fields))
            codes.append(session.execute("completion")[0].strip())
    page.goto(site.url + INSTRUCTOR)
    page.fill("[data-mdx-codes]", "\n".join(codes))
    page.click('[data-mdx-action="verify"]')
    page.wait_for_function("() => !document.querySelector('[data-mdx-verify-status]').textContent.startsWith('Checking')",
                           timeout=600000)
    assert page.inner_text("[data-mdx-verify-status]") == f"Checked {len(codes)} code(s): {len(codes)} valid."
