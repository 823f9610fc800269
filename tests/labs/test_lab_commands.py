"""The lab commands as a learner types them: lab, lab list/start/reset, hint, solutions, submit."""

from __future__ import annotations

from emulator import labs
from emulator.session import Session

LAB = "fabric-triage"


def started(seed: int = 1) -> Session:
    session = Session()
    out, status = session.execute(f"lab start {LAB} --seed {seed}")
    assert status == 0, out
    return session


def test_lab_on_the_sandbox_says_no_lab_runs_and_how_to_start_one():
    out, status = Session().execute("lab")
    assert status == 0
    assert out.startswith("No lab is running: this is the healthy sandbox (seed 0).")
    assert "Run 'lab list' to see the labs and 'lab start ID' to start one." in out


def test_lab_list_lists_every_lab_but_the_sandbox_with_its_difficulty():
    out, status = Session().execute("lab list")
    assert status == 0
    lines = out.splitlines()
    assert lines[0].split() == ["LAB", "DIFFICULTY", "TITLE"]
    for lab_id in labs.known_labs():
        lab = labs.get(lab_id)
        listed = [line for line in lines if line.split()[:1] == [lab_id]]
        assert listed == [] if lab.is_sandbox else len(listed) == 1 and lab.difficulty in listed[0]


def test_lab_start_switches_the_terminal_to_the_labs_cluster_and_shows_the_goal():
    session = started(seed=1)
    assert (session.lab, session.seed) == (LAB, 1)
    assert session.cluster.truth() == labs.build(labs.get(LAB), 1).truth()
    out, _ = session.execute("lab")
    assert out.startswith(f"Lab: {labs.get(LAB).title} ({LAB}, seed 1, intermediate)")
    assert "Answer with: submit node=<node> port=<port> cause=<cause> why=<why>" in out
    assert "Progress: 0 of 4 hints used, 0 attempts, not solved yet." in out


def test_the_brief_and_the_hints_list_no_causes():
    for lab_id in labs.known_labs():
        lab = labs.get(lab_id)
        if lab.check is None or not lab.check.causes:
            continue
        session = Session(lab_id, 0)
        text = session.execute("lab")[0] + "".join(session.execute("hint")[0] for _ in lab.hints)
        assert 'State the cause in your own words; quote several: cause="what you saw".' in text
        assert "Causes:" not in text
        assert "cause=" not in text.replace('cause="what you saw"', "").replace("cause=<cause>", "")
        for cause in (c for c in lab.check.causes if "-" in c):  # one-word causes are everyday words
            assert cause not in text.lower(), f"{lab_id}: the brief or a hint names {cause}"


def test_lab_start_with_an_unknown_id_fails_without_changing_the_cluster():
    session = Session()
    out, status = session.execute("lab start nope")
    assert status == 2
    assert out == "lab start: unknown lab 'nope'; 'lab list' shows them\n"
    assert session.lab is None


def test_hint_walks_the_ladder_then_says_there_are_no_more():
    session = started()
    total = len(labs.get(LAB).hints)
    for n in range(1, total + 1):
        out, status = session.execute("hint")
        assert status == 0 and out.startswith(f"Hint {n} of {total}:")
    out, _ = session.execute("hint")
    assert out.startswith(f"No more hints ({total} of {total} used).")
    out, status = session.execute("hint 9")
    assert status == 2 and out == f"hint: this lab has hints 1 to {total}\n"


def test_hint_on_the_sandbox_fails_with_a_pointer_to_lab_list():
    out, status = Session().execute("hint")
    assert status == 1 and out.startswith("hint: no lab is running on this terminal")


def test_solutions_prints_the_procedure_with_placeholders_not_the_answer():
    session = started()
    truth = session.cluster.truth()
    out, status = session.execute("solutions --show")
    assert status == 0
    assert out.startswith(f"Reference procedure: {labs.get(LAB).title} ({LAB})")
    assert "   $ ssh <node> perfquery -x -C <port> -P 1" in out
    assert truth["port"] not in out.replace("mlx5_0 to mlx5_7", "")
    assert out.rstrip().endswith("Finding: submit node=<node> port=<port> cause=<cause> why=<why>")


def test_solutions_alone_on_the_sandbox_lists_the_labs_and_takes_an_id():
    session = Session()
    out, _ = session.execute("solutions")
    assert out.startswith("Reference procedures exist for these labs:")
    out, status = session.execute("solutions late-rank --show")
    assert status == 0 and out.startswith("Reference procedure: A late rank (late-rank)")


def test_submit_rejects_malformed_unknown_and_incomplete_findings_without_counting_them():
    session = started()
    for line, message in [
        ("submit node07", "submit: expected FIELD=VALUE, got 'node07'"),
        ("submit colour=red", "submit: this lab does not ask for 'colour'"),
        ("submit node=node01", "submit: missing port, cause, why"),
        ("submit node=node01 node=node02 port=mlx5_0 cause=rate why=thermal", "submit: node given twice"),
        ("submit node=node01 port=mlx5_0 cause=gremlins why=thermal",
         "submit: cause=gremlins: not a cause this cluster can show; say what you saw\n"),
        ('submit node=node01 port=mlx5_0 cause="rate and flapping" why=thermal',
         'submit: cause="rate and flapping": names more than one cause; say which one you saw\n'),
    ]:
        out, status = session.execute(line)
        assert status == 2 and out.startswith(message), out
    assert "0 attempts" in session.execute("lab")[0]


def test_a_first_wrong_finding_names_the_wrong_part_and_a_right_one_is_judged_on_state():
    session = started(seed=1)
    truth = session.cluster.truth()
    other = "mlx5_7" if truth["port"] != "mlx5_7" else "mlx5_6"
    out, status = session.execute(f"submit node={truth['node']} port={other} cause={truth['cause']} why={truth['why']}")
    assert status == 1
    assert out.splitlines()[0] == "Not yet (attempt 1): 1 of 4 parts do not match the cluster."
    assert f"  port={other}: not what the cluster shows. The node is right" in out
    assert f"  node={truth['node']}: correct" in out
    short = truth["node"].replace("node0", "node")
    out, status = session.execute(f"submit node={short} port={truth['port']}/1 cause={truth['cause'].upper()} "
                                  f"why={truth['why']}")
    assert status == 0 and out.startswith(f"✓ Correct: {labs.get(LAB).title}.\n")
    assert "\nSolved in 2 attempts, 0 hints.\n" in out
    assert "Progress: solved in 2 attempts, 0 hints." in session.execute("lab")[0]


def test_advice_that_takes_another_part_as_right_depends_on_that_parts_verdict():
    session = started(seed=1)
    truth = session.cluster.truth()
    node = "node01" if truth["node"] != "node01" else "node02"
    out, _ = session.execute(f"submit node={node} port=mlx5_7 cause={truth['cause']} why={truth['why']}")
    assert "The node is right" not in out
    assert "port=mlx5_7: not what the cluster shows. Find the node first" in out


def test_from_the_second_attempt_feedback_counts_the_wrong_parts_without_naming_them():
    session = started(seed=1)
    truth = session.cluster.truth()
    session.execute("submit node=node01 port=mlx5_0 cause=flapping why=thermal")
    other = "mlx5_7" if truth["port"] != "mlx5_7" else "mlx5_6"
    out, status = session.execute(f"submit node={truth['node']} port={other} cause=\"cable is bad\" why={truth['why']}")
    assert status == 1
    lines = out.splitlines()
    assert lines[0] == "Not yet (attempt 2): 1 of 4 parts do not match the cluster."
    assert '  cause="cable is bad" was read as symbol-errors.' in lines
    assert "correct" not in out and "not what the cluster shows" not in out and "node is right" not in out
    assert "Which parts are wrong is said on a first attempt only" in out


def test_a_correct_finding_reports_the_evidence_the_learner_looked_at():
    session = started(seed=1)
    truth = session.cluster.truth()
    session.execute(f"ssh {truth['node']}")
    session.execute(f"perfquery -x -C {truth['port']} -P 1")
    session.execute("exit")
    out, _ = session.execute(f"submit node={truth['node']} port={truth['port']} cause={truth['cause']} "
                             f"why={truth['why']}")
    text = " ".join(out.split())
    assert "What you used of the reference procedure (any route to the finding counts):" in out
    assert ("1. Read the negotiated rate of every rail port on the job's nodes: not used: the reference "
            "procedure runs ibstatus on node01, node02, node03 and node04 here, to record any port below") in text
    # The step's evidence (a symbol error count) was in the learner's own perfquery output: it is quoted.
    assert ("3. Measure the counter delta and the kernel's view: used. Your output showed "
            '"SymbolErrorCounter:..............') in text
    assert (f"2. Take the port's identity and counters on the suspect node: partly used: the reference "
            f"procedure also runs ibstat on {truth['node']} here") in text


def test_lab_reset_starts_the_cluster_again_but_not_the_count():
    session = started()
    session.execute("hint")
    session.execute("submit node=node01 port=mlx5_0 cause=flapping why=thermal")
    before = session.cluster
    out, status = session.execute("lab reset")
    assert session.cluster is not before
    assert status == 0 and "Progress: 1 of 4 hints used, 1 attempt, not solved yet." in out
    out, _ = session.execute("submit node=node01 port=mlx5_0 cause=flapping why=thermal")
    assert out.startswith("Not yet (attempt 2)") and "not what the cluster shows" not in out
    session.execute("lab start input-wait")
    session.execute("lab start fabric-triage --seed 1")
    assert "2 attempts" in session.execute("lab")[0]


def test_progress_survives_snapshot_and_restore():
    session = started()
    session.execute("hint")
    session.execute("submit node=node01 port=mlx5_0 cause=link-flap why=thermal")
    restored = Session.restore(session.snapshot())
    assert restored.execute("lab")[0] == session.execute("lab")[0]
    assert restored.lab_progress == session.lab_progress


def test_tool_runs_follow_ssh_exit_and_srun_to_the_host_each_tool_ran_on():
    lines = ["ssh node03", "ibstat mlx5_1 | grep Rate", "exit", "ssh node04 perfquery -x",
             "srun -w node02 nvidia-smi -q; sinfo -R", "sudo dmesg -T", "srun -N 2 hostname"]
    assert labs.tool_runs(lines) == [("node03", "ibstat"), ("node03", "grep"), ("node04", "perfquery"),
                                     ("node02", "nvidia-smi"), ("login01", "sinfo"), ("login01", "dmesg"),
                                     (None, "hostname")]


def test_tool_runs_see_through_loops_and_take_a_variable_host_as_any_host():
    lines = ["for n in node01 node02; do ssh $n ibstatus; done", "if true; then sinfo -R; fi"]
    assert labs.tool_runs(lines) == [(None, "ibstatus"), ("login01", "sinfo")]


def test_solutions_prints_every_labs_steps_and_commands_in_order():
    session = Session()
    for lab_id in labs.known_labs():
        lab = labs.get(lab_id)
        if lab.is_sandbox:
            continue
        out, status = session.execute(f"solutions {lab_id} --show")
        assert status == 0
        positions = [out.index(f"{n}. {step.title}\n") for n, step in enumerate(lab.solution, start=1)]
        assert positions == sorted(positions)
        for step in lab.solution:
            for line in step.run:
                assert f"   $ {line}\n" in out
