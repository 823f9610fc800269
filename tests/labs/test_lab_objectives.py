"""A lab's objectives tick from the learner's own output, prose wraps to the terminal's width, both typed
through the shell as a learner types."""

import json

from emulator import labs, web
from emulator.session import Session


def ticks(session: Session) -> list[bool]:
    return [o.done for o in session.objectives()]


def test_an_objective_ticks_when_the_output_shows_its_evidence_not_when_the_tool_ran():
    session = Session("fabric-triage", 0)
    truth = session.cluster.truth()
    assert truth["cause"] == "link-rate" and truth["node"] == "node02"
    session.execute("ssh node01 ibstatus")  # a healthy node: the tool ran, its output shows no degraded port
    assert ticks(session) == [False, False, False, False]
    session.execute("ssh node02 ibstatus")
    first = session.objectives()[0]
    assert first.done and first.saw == ("rate: 200 Gb/sec (2X NDR)",)


def test_the_objectives_name_the_steps_and_not_the_answer():
    session = Session("fabric-triage", 0)
    texts = [o.text for o in session.objectives()]
    assert texts == [step.title for step in labs.get("fabric-triage").solution]
    truth = session.cluster.truth()
    assert not any(truth["node"] in t or truth["port"] in t for t in texts)


def test_output_piped_away_from_the_screen_is_not_evidence():
    session = Session("fabric-triage", 0)
    session.execute("ssh node02 ibstatus > /tmp/ports.txt")
    assert ticks(session)[0] is False
    session.execute("cat /tmp/ports.txt")
    assert ticks(session)[0] is True


def test_the_evidence_seen_survives_a_snapshot_and_restore():
    session = Session("fabric-triage", 0)
    session.execute("ssh node02 ibstatus")
    restored = Session.restore(json.loads(json.dumps(session.snapshot())))
    assert ticks(restored) == ticks(session) == [True, False, False, False]


def test_a_step_without_evidence_for_this_variant_ticks_when_its_tools_ran_where_the_procedure_runs_them():
    session = Session("fabric-triage", 0)  # link-rate: step 2 names no pattern for it
    session.execute("ssh node02 ibstat mlx5_3")
    assert ticks(session)[1] is False
    session.execute("ssh node02 perfquery -x -C mlx5_3 -P 1")
    assert ticks(session)[1] is True


def test_the_web_reply_carries_the_objectives_and_the_columns_wrap_the_prose():
    sid = json.loads(web.open_session("fabric-triage", 0, None))["sid"]
    web.start(sid, "hint", 44)
    out = ""
    while True:
        reply = json.loads(web.step(sid))
        out += "".join(text for _, text in reply["out"])
        if reply["done"]:
            break
    assert [o["done"] for o in reply["objectives"]] == [False, False, False, False]
    assert out.startswith("Hint 1 of 4:\n")
    assert max(len(line) for line in out.splitlines()) <= 42 < len(out.splitlines()[1]) + 10
    web.close(sid)


def test_lab_prose_wraps_to_columns_and_tool_output_keeps_its_layout():
    session = Session("fabric-triage", 0)
    wide_lab, _ = session.execute("lab")
    wide_smi, _ = session.execute("ssh node01 nvidia-smi")
    session.execute("COLUMNS=40")
    narrow_lab, _ = session.execute("lab")
    assert max(len(line) for line in wide_lab.splitlines() if not line.startswith(("Lab:", "Answer", "State"))) <= 78
    assert max(len(line) for line in narrow_lab.splitlines() if not line.startswith(("Lab:", "Answer", "State"))) <= 38
    assert " ".join(narrow_lab.split()) == " ".join(wide_lab.split())
    narrow_smi, _ = session.execute("ssh node01 nvidia-smi")
    assert [len(line) for line in narrow_smi.splitlines()] == [len(line) for line in wide_smi.splitlines()]
    assert max(len(line) for line in narrow_smi.splitlines()) > 80


def test_the_terminal_width_the_page_reports_is_kept_through_lab_start_and_reset():
    session = Session()
    session.resize(50)
    session.execute("lab start fabric-triage")
    out, _ = session.execute("echo $COLUMNS")
    assert out == "50\n"
    session.reset()
    assert session.execute("echo $COLUMNS")[0] == "50\n"
    assert Session().execute("echo ${COLUMNS:-unset}")[0] == "unset\n"  # the CLI's default, 80, is not a variable


def test_lab_list_marks_the_labs_this_browser_solved_with_the_fewest_hints():
    sid = json.loads(web.open_session(None, 0, None))["sid"]
    web.start(sid, "lab list", 80, json.dumps({"nvlink": {"seed": 2, "hints": 1, "attempts": 3},
                                               "storage": "garbled", "late-rank": {"hints": -4}}))
    out = "".join(text for _, text in json.loads(web.step(sid))["out"])
    rows = {line.split()[0]: line for line in out.splitlines() if line}
    assert rows["nvlink"].endswith("✓ solved, 1 hint")
    assert "✓" not in rows["storage"] and "✓" not in rows["late-rank"]
    assert "✓ marks the labs solved in this browser" in out
    web.close(sid)
