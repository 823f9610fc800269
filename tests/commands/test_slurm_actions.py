"""Slurm operator actions through the shell: salloc, scontrol reboot / cancel_reboot, requeue."""

from __future__ import annotations

from emulator.session import Session


def lines(session: Session, line: str) -> list[str]:
    out, status = session.execute(line)
    assert status == 0, out
    return out.splitlines()


# -- salloc -------------------------------------------------------------------------


def test_salloc_grants_nodes_and_starts_a_shell_with_the_allocation():
    s = Session()
    out, status = s.execute("salloc -N2 --gres=gpu:8 -t 30 -J probe")
    assert status == 0
    job = out.split()[4]
    assert out == f"salloc: Granted job allocation {job}\nsalloc: Nodes node[07-08] are ready for job\n"
    assert lines(s, "echo $SLURM_JOB_ID $SLURM_JOB_NODELIST $SLURM_NNODES $SLURM_JOB_NAME $SHLVL") == \
        [f"{job} node[07-08] 2 probe 2"]
    assert lines(s, "hostname") == ["login01"]
    assert lines(s, "srun hostname") == ["node07", "node08"]
    assert lines(s, f"squeue -h -j {job} -o '%i %j %T %D %N'") == [f"{job} probe RUNNING 2 node[07-08]"]
    assert "BatchFlag=0" in s.execute(f"scontrol show job {job}")[0]
    assert lines(s, "sinfo -h -n node07 -o %t") == ["alloc"]


def test_exit_relinquishes_the_allocation_and_drops_its_variables():
    s = Session()
    job = s.execute("salloc -N1")[0].split()[4]
    s.execute("export MINE=1; cd /tmp")
    out, status = s.execute("exit")
    assert (out, status) == (f"exit\nsalloc: Relinquishing job allocation {job}\n", 0)
    assert lines(s, "echo x${SLURM_JOB_ID}x${MINE}x $SHLVL; pwd") == ["xxx 1", "/home/alice"]
    assert lines(s, f"sacct -X -n -j {job} -o JobName,State") == ["interacti+  COMPLETED "]
    assert lines(s, "sinfo -h -n node07 -o %t") == ["idle"]
    assert s.execute("exit")[0] == "logout\n"  # back on the login shell


def test_a_subshell_exit_inside_salloc_does_not_end_it():
    s = Session()
    s.execute("salloc -N1")
    assert lines(s, "( exit 3 ); echo $? $SLURM_NNODES") == ["3 1"]


def test_salloc_with_a_command_runs_it_then_relinquishes():
    s = Session()
    out, status = s.execute("salloc -N2 -n 4 srun -l hostname")
    assert status == 0
    job = out.split()[4]
    assert out.splitlines()[2:] == ["0: node07", "1: node07", "2: node08", "3: node08",
                                    f"salloc: Relinquishing job allocation {job}"]
    assert "SLURM_JOB_ID" not in s.execute("env")[0]


def test_srun_inside_salloc_uses_its_task_count():
    s = Session()
    s.execute("salloc -N2 -n 4")
    assert lines(s, "srun -l hostname | sort") == ["0: node07", "1: node07", "2: node08", "3: node08"]


def test_unsatisfiable_requests_get_slurms_errors():
    for line, reason in [("salloc -N99", "Requested node configuration is not available"),
                         ("salloc --gres=gpu:9", "Requested node configuration is not available"),
                         ("salloc -p nope", "Invalid partition name specified"),
                         ("salloc -w node99", "Invalid node name specified")]:
        out, status = Session().execute(line)
        assert (out, status) == (f"salloc: error: Job submit/allocate failed: {reason}\n", 1), line


def test_salloc_on_a_busy_node_queues_and_ctrl_c_revokes_the_request():
    s = Session()
    run = s.run("salloc -w node06")
    first = run.step()
    assert first is not None and first.text() == ("salloc: Pending job allocation 48218\n"
                                                  "salloc: job 48218 queued and waiting for resources\n")
    assert lines(s, "squeue -h -j 48218 -o '%T %R'") == ["PENDING (Resources)"]
    run.interrupt()
    while run.step() is not None:
        pass
    assert lines(s, "sacct -X -n -j 48218 -o State%20") == ["   CANCELLED by 1000 "]
