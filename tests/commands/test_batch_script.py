"""Batch scripts run on the batch host with the job's environment, as slurmstepd runs them."""

from __future__ import annotations

from emulator.commands.slurm.batch_script import logical_lines
from emulator.session import Session

SCRIPT = r"""#!/bin/bash
#SBATCH -N 2
#SBATCH -J smoke
export GREETING=hello
set -x
module load cuda/12.4
echo $GREETING from ${SLURM_JOB_NODELIST} \
     on $(scontrol show hostnames $SLURM_JOB_NODELIST | head -n 1)
srun -l hostname | sort -r
nvcc --version
"""


def submit(script: str = SCRIPT) -> Session:
    s = Session()
    s.shell.fs.write("/home/alice/smoke.sh", script)
    assert s.execute("sbatch /home/alice/smoke.sh") == ("Submitted batch job 48218\n", 0)
    return s


def test_logical_lines_join_continuations_and_drop_comments():
    assert logical_lines("#!/bin/sh\n# c\nfoo \\\n  bar\n\nbaz\n") == [(3, "foo    bar"), (6, "baz")]


def test_the_script_runs_with_its_exports_substitutions_and_steps_inside_the_job():
    s = submit()
    out = s.shell.fs.read("/home/alice/slurm-48218.out")
    assert out == ("hello from node[07-08] on node07\n"
                   "1: node08\n0: node07\n"
                   "/var/spool/slurmd/job48218/slurm_script: line 10: nvcc: command not found\n")
    steps, _ = s.execute("sacct -n -j 48218 -o JobID,JobName")
    assert steps.split()[-2:] == ["48218.0", "hostname"]


def test_exports_in_the_script_stay_out_of_the_learners_shell():
    s = submit()
    assert s.execute("echo ${GREETING:-unset}")[0] == "unset\n"
    assert "SLURM_JOB_ID" not in s.execute("env")[0]


def test_the_last_command_sets_the_job_exit_code():
    s = submit()
    s.execute("sleep 60")
    assert s.execute("sacct -X -n -j 48218 -o State,ExitCode")[0].split() == ["FAILED", "127:0"]


def test_a_program_srun_cannot_exec_fails_like_slurmstepd_says():
    s = submit("#!/bin/bash\nsrun -N1 torchrun train.py\n")
    assert s.shell.fs.read("/home/alice/slurm-48218.out") == (
        "slurmstepd: error: execve(): torchrun: No such file or directory\n"
        "srun: error: node07: task 0: Exited with exit code 2\n")
