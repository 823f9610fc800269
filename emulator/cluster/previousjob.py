"""The previous job of the training run, as Slurm's accounting remembers it.

A fault that compares the run with its previous job (``run.previous_config``)
also leaves that job in the scheduler's history, so ``sacct`` lists it with
the times its log (``train.log.1``) shows: it started a few seconds before its
first log line, its user cancelled it (``scancel``) after the checkpoint this
run resumed from, and the current job was submitted after it ended.
"""

from __future__ import annotations

from emulator.cluster.accounts import UIDS
from emulator.cluster.model import Cluster
from emulator.cluster.scheduler import Job
from emulator.cluster.steps import previous_run
from emulator.cluster.trainlog import previous_schedule

#: Seconds between the previous job's submission and its start, and its start and its first log line.
QUEUED_S = 45.0
LAUNCH_S = 9.0
#: Seconds Slurm takes to end the job after the program stopped on SIGTERM.
TEARDOWN_S = 3.0


def record_previous_job(cluster: Cluster) -> None:
    """Add the previous job to the scheduler's history, once, if the run has one."""
    run = cluster.training
    timing = previous_schedule(cluster)
    before = previous_run(run) if run is not None else None
    if run is None or run.previous_job_id is None or timing is None or before is None:
        return
    if cluster.slurm.job(run.previous_job_id) is not None:
        return
    current = cluster.slurm.job(run.job_id)
    if current is None:
        return
    sched, end = timing
    start = sched.started_s - LAUNCH_S
    cluster.slurm.jobs.append(Job(
        job_id=run.previous_job_id, name=current.name, user=current.user, partition=current.partition,
        nodes=list(before.nodes), state="CANCELLED", submit_s=start - QUEUED_S, start_s=start,
        end_s=end + TEARDOWN_S, time_limit=current.time_limit, cpus_per_task=current.cpus_per_task,
        ntasks_per_node=current.ntasks_per_node, account=current.account, qos=current.qos,
        command=current.command, workdir=current.workdir, requeue=current.requeue,
        cancelled_by=UIDS.get(current.user, 1000)))
