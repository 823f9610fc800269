"""``scontrol`` actions on jobs: update JobId=... (Requeue=0|1), requeue, requeuehold, hold, release.

Each is a request slurmctld judges, in the order its code does: the job must
exist; then who asks (its owner, or one of Slurm's operators,
:func:`common.operator`); then the job's own state. A requeue is refused with
``Requested operation is presently disabled`` while the job's ``Requeue=`` is 0
(job_mgr.c ``_job_requeue_op``: ESLURM_DISABLED); ``scontrol update JobId=N
Requeue=1`` makes it requeueable. A requeued job returns to PENDING and its run
so far is kept as a REQUEUED record for ``sacct --duplicates``.

Errors print as scontrol prints a job's: ``<slurm_strerror> for job <id>``
(update_job.c), exit 1.
"""

from __future__ import annotations

from dataclasses import replace

from emulator.cluster.model import Cluster
from emulator.cluster.scheduler import Job, close_steps, job_steps, release_nodes
from emulator.commands.kit.command import Context
from emulator.commands.slurm import common as sc
from emulator.commands.slurm.allocation import start

#: Seconds a requeued job waits before it is eligible again (its BeginTime).
REQUEUE_DELAY_S = 121.0
#: Seconds between two looks for free nodes for a requeued job, and for how long slurmctld keeps looking.
RETRY_S = 30.0
RETRY_LIMIT_S = 2 * 86_400.0
#: slurm_strerror() of the error codes these requests meet (src/common/slurm_errno.c).
INVALID_JOB = "Invalid job id specified"          # ESLURM_INVALID_JOB_ID
ACCESS_DENIED = "Access/permission denied"        # ESLURM_ACCESS_DENIED
INVALID_USER = "Invalid user id"                  # ESLURM_USER_ID_MISSING
DISABLED = "Requested operation is presently disabled"   # ESLURM_DISABLED
BATCH_ONLY = "Only batch jobs are accepted or processed"  # ESLURM_BATCH_ONLY
PENDING = "Job is pending execution"              # ESLURM_JOB_PENDING
NOT_PENDING = "Job is no longer pending execution"  # ESLURM_JOB_NOT_PENDING


def _job(ctx: Context, text: str) -> Job | None:
    job = ctx.cluster.slurm.job(int(text)) if text.isdecimal() else None
    return job if job is not None and sc.job_visible(ctx.cluster, job) else None


def _owner_or_operator(ctx: Context, job: Job) -> bool:
    return job.user == ctx.user or sc.operator(ctx.user)


def update(ctx: Context, fields: list[tuple[str, str]]) -> int:
    """``scontrol update JobId=N Requeue=0|1``, the job fields parsed as update_job.c reads them."""
    job_id, requeue = "", None
    for key, value in fields:
        tag = key.lower()
        if len(tag) >= 3 and "jobid".startswith(tag):
            job_id = value
        elif len(tag) >= 4 and "requeue".startswith(tag):
            if not value.isdecimal() or int(value) > 0xFFFF:
                raise ctx.fail(f"scontrol: error: Invalid Requeue value: {value}")
            requeue = int(value)
        else:
            raise ctx.fail(f"Update of this parameter is not supported: {key}={value}\nRequest aborted")
    if requeue is None:
        raise ctx.fail("No changes specified")
    status = 0
    for text in (t for t in job_id.split(",") if t):
        job = _job(ctx, text)
        if job is None:
            error = INVALID_JOB
        elif not _owner_or_operator(ctx, job):
            # job_mgr.c _update_job: "Security violation, JOB_UPDATE RPC", ESLURM_USER_ID_MISSING.
            error = INVALID_USER
        else:
            job.requeue, error = requeue > 0, ""   # slurmctld keeps MIN(requeue, 1)
        if error:
            ctx.err(f"{error} for job {text}\n")
            status = 1
    return status


def job_action(ctx: Context, keyword: str, words: list[str]) -> int:
    """``scontrol requeue|requeuehold|hold|release JOBID[,JOBID...]``; errors name each job."""
    if len(words) != 1:
        raise ctx.fail(f"too {'few' if not words else 'many'} arguments for keyword:{keyword}")
    text = words[0]
    for prefix in ("jobid=", "job="):
        if text.lower().startswith(prefix):
            text = text[len(prefix):]
    status = 0
    for one in (t for t in text.split(",") if t):
        error = _one_job(ctx, keyword, one)
        if error:
            ctx.err(f"{error} for job {one}\n")
            status = 1
    return status


def _one_job(ctx: Context, keyword: str, text: str) -> str:
    cluster = ctx.cluster
    job = _job(ctx, text)
    if job is None:
        return INVALID_JOB
    held = "JobHeldUser" if job.user == ctx.user else "JobHeldAdmin"
    if keyword in ("hold", "release"):
        # A priority update of the job: _update_job's checks, in its order.
        if not _owner_or_operator(ctx, job):
            return INVALID_USER
        if job.state != "PENDING":
            return NOT_PENDING
        if keyword == "hold":
            job.reason = held
        elif job.reason in ("JobHeldUser", "JobHeldAdmin"):
            eligible = max(job.eligible_s or 0.0, ctx.clock.elapsed)
            job.reason = "BeginTime" if eligible > ctx.clock.elapsed else "None"
            cluster.clock.schedule(eligible, lambda: _try_start(cluster, job))
        return ""
    # job_mgr.c _job_requeue_op, in its order: who asks, Requeue=, batch, pending.
    if not _owner_or_operator(ctx, job):
        return ACCESS_DENIED
    if not job.requeue:
        return DISABLED
    if not job.batch:
        return BATCH_ONLY
    if job.state == "PENDING":
        return PENDING
    _requeue(cluster, job, held if keyword == "requeuehold" else "")
    return ""


def _requeue(cluster: Cluster, job: Job, hold: str) -> None:
    """The job's run so far ends as REQUEUED; the job is PENDING again (BeginTime, or held)."""
    now = cluster.clock.elapsed
    run = replace(job, steps=job_steps(job), earlier_runs=[])
    if job.state == "RUNNING":
        run.state, run.end_s = "CANCELLED", now
        close_steps(run)
    run.state, run.reason = "REQUEUED", "None"
    nodes = job.nodes if job.state == "RUNNING" else []
    job.earlier_runs.append(run)
    job.state, job.reason, job.restarts = "PENDING", hold or "BeginTime", job.restarts + 1
    job.nodes, job.steps, job.step_names, job.step_runs = [], [], {}, {}
    job.start_s, job.end_s, job.exit_code, job.failed_node, job.cancelled_by = None, None, "0:0", "", None
    job.eligible_s = now + REQUEUE_DELAY_S
    release_nodes(cluster.slurm, nodes)
    if not hold:
        cluster.clock.schedule(job.eligible_s, lambda: _try_start(cluster, job))


def _try_start(cluster: Cluster, job: Job) -> None:
    """Once eligible and released, the requeued job starts again on free nodes of its partition."""
    if job.state != "PENDING" or job.reason in ("JobHeldUser", "JobHeldAdmin"):
        return
    now = cluster.clock.elapsed
    if job.eligible_s is not None and now < job.eligible_s:
        return
    part = next((p for p in cluster.slurm.partitions if p.name == job.partition), None)
    idle = [n for n in (part.nodes if part else []) if cluster.slurm.node_state.get(n) == "idle"
            and cluster.nodes[n].health.os_up]
    if len(idle) < job.num_nodes:
        job.reason = "Resources"
        if now - (job.eligible_s or now) < RETRY_LIMIT_S:
            cluster.clock.schedule(now + RETRY_S, lambda: _try_start(cluster, job))
        return
    start(cluster, job, idle[:job.num_nodes])
    job.steps = [("batch", "RUNNING", "0:0"), ("extern", "RUNNING", "0:0")]
