"""``scontrol`` actions on nodes and jobs: update (node state), reboot, cancel_reboot, requeue, requeuehold, hold, release.

``update NodeName=LIST State=DRAIN|DOWN|RESUME|IDLE|UNDRAIN|CANCEL_REBOOT Reason=TEXT``
sets the nodes' Slurm state and reason (who set it, and when, for ``sinfo -R``).

A reboot goes through Slurm's states on the simulated clock: REBOOT_REQUESTED
(``sinfo`` shows ``boot``, or ``mix@``/``alloc@``/``drng@`` while jobs still run),
REBOOT_ISSUED once the node is idle (``boot^``; the OS goes down and boots
through :mod:`emulator.cluster.lifecycle`, so uptime, the boot history and the
kernel log start afresh), then the state ``nextstate`` asks for when slurmd
registers. A requeued job returns to PENDING and its run so far is kept as a
REQUEUED record for ``sacct --duplicates``.

These commands take effect for any user, as ``scontrol update`` does here
(the emulator's learner acts as the cluster's operator).
"""

from __future__ import annotations

from dataclasses import replace
from functools import partial

from emulator.cluster import lifecycle
from emulator.cluster.model import Cluster
from emulator.cluster.scheduler import Job, Reboot, close_steps, expand_hostlist, job_steps, release_nodes
from emulator.commands.kit.command import Context
from emulator.commands.slurm import common as sc
from emulator.commands.slurm.allocation import start
from emulator.commands.slurm.options import hostlist_names

#: Seconds before slurmctld's background loop issues a requested reboot on an idle node.
ISSUE_DELAY_S = 5.0
#: Seconds between two looks at a node whose reboot waits for its jobs to end.
BUSY_RECHECK_S = 30.0
#: slurm.conf ResumeTimeout: a rebooting node that has not registered by then is set DOWN.
RESUME_TIMEOUT_S = 600.0
#: Seconds after the login prompt at which slurmd has registered with slurmctld.
REGISTER_S = 1.0
#: How long slurmctld keeps looking (a reboot waiting for jobs, a requeued job waiting for nodes).
RECHECK_LIMIT_S = 2 * 86_400.0
#: Seconds a requeued job waits before it is eligible again (its BeginTime).
REQUEUE_DELAY_S = 121.0


def _nodes(ctx: Context, expr: str, verb: str) -> list[str]:
    slurm = ctx.cluster.slurm
    if expr.upper() == "ALL":
        return [n.name for n in ctx.cluster.compute_nodes]
    try:
        names = expand_hostlist(expr)
    except ValueError:
        names = [""]
    if any(n not in slurm.node_state for n in names):
        raise ctx.fail(f"{verb} error: Invalid node name specified")
    return names


def _busy(cluster: Cluster, name: str) -> bool:
    return any(j.state == "RUNNING" and name in j.nodes for j in cluster.slurm.jobs)


def update(ctx: Context, words: list[str]) -> int:
    """``scontrol update NodeName=... State=... Reason=...``."""
    cluster = ctx.cluster
    slurm = cluster.slurm
    fields: dict[str, str] = {}
    for word in words:
        if "=" not in word:
            raise ctx.fail(f"Invalid input: {word}\nRequest aborted")
        key, value = word.split("=", 1)
        fields[key.lower()] = value
    if "nodename" not in fields:
        raise ctx.fail("No valid entity in update command\nInput line must include \"NodeName\", \"PartitionName\", "
                       "\"Reservation=<name>\", or \"JobId\"")
    names = hostlist_names(ctx, "scontrol", fields["nodename"])
    for name in names:
        if name not in slurm.node_state:
            raise ctx.fail("slurm_update error: Invalid node name specified")
    state = fields.get("state", "").lower()
    if state == "cancel_reboot":
        return cancel_reboot(ctx, [fields["nodename"]])
    reason = fields.get("reason", "")
    if state in ("drain", "down") and not reason:
        raise ctx.fail("You must specify a reason when DOWNING or DRAINING a node. Request denied")
    if state not in ("drain", "down", "resume", "idle", "undrain", ""):
        raise ctx.fail("Invalid node state specified")
    who = sc.user(ctx.env)
    now = ctx.clock.elapsed
    for name in names:
        current = slurm.node_state[name]
        busy = any(j.state == "RUNNING" and name in j.nodes for j in slurm.jobs)
        if state == "drain":
            slurm.node_state[name] = "drng" if busy else "drain"
        elif state == "down":
            slurm.node_state[name] = "down"
        elif state in ("resume", "idle", "undrain"):
            if current in ("drain", "drng", "down"):
                slurm.node_state[name] = "alloc" if busy else "idle"
            slurm.node_reason.pop(name, None)
            slurm.reason_set.pop(name, None)
            continue
        if reason:
            slurm.node_reason[name] = reason
            slurm.reason_set[name] = (who, now)
    return 0


def reboot(ctx: Context, words: list[str]) -> int:
    """``scontrol reboot [ASAP] [nextstate=resume|down] [reason=...] ALL|NODELIST``."""
    cluster = ctx.cluster
    slurm = cluster.slurm
    asap, next_state, reason, target = False, "resume", "", ""
    for word in words:
        key, eq, value = word.partition("=")
        if word.upper() == "ASAP":
            asap = True
        elif eq and key.lower() == "nextstate":
            if value.lower() not in ("resume", "down"):
                raise ctx.fail("Invalid nextstate option. Valid options are RESUME and DOWN.")
            next_state = value.lower()
        elif eq and key.lower() == "reason":
            reason = value
        elif target:
            raise ctx.fail("too many arguments for keyword:reboot")
        else:
            target = word
    if not target:
        raise ctx.fail("Missing node list. Specify ALL|<NodeList>")
    names = _nodes(ctx, target, "scontrol_reboot_nodes")
    who, now = sc.user(ctx.env), ctx.clock.elapsed
    for name in names:
        state = slurm.node_state[name]
        drained = state in ("drain", "drng")
        if asap and not drained:
            slurm.node_state[name] = "drng" if _busy(cluster, name) else "drain"
        text = reason or slurm.node_reason.get(name) or ("Reboot ASAP" if asap else "reboot requested")
        slurm.node_reason[name] = text
        slurm.reason_set[name] = (who, now)
        slurm.reboots[name] = Reboot(asap=asap, drain=asap or drained, next_state=next_state, requested_s=now)
        cluster.clock.schedule(now + ISSUE_DELAY_S, partial(_issue, cluster, name))
    return 0


def _issue(cluster: Cluster, name: str) -> None:
    """slurmctld issues the reboot once the node runs no job; the OS restarts."""
    slurm = cluster.slurm
    pending = slurm.reboots.get(name)
    if pending is None or pending.issued:
        return
    now = cluster.clock.elapsed
    if _busy(cluster, name):
        if now - pending.requested_s < RECHECK_LIMIT_S:
            cluster.clock.schedule(now + BUSY_RECHECK_S, lambda: _issue(cluster, name))
        return
    pending.issued = True
    slurm.node_state[name] = "down"
    slurm.node_reason[name] = slurm.node_reason.get(name, "reboot requested") + " : reboot issued"
    node = cluster.nodes[name]
    if node.health.os_up and node.bmc is not None and node.bmc.power_on:
        lifecycle.os_lost(cluster, node, now, "reboot", [])
        node.bmc.restart_cause = "soft reset"
        lifecycle.start_boot(cluster, node, now)
        done = now + lifecycle.BOOT_S + REGISTER_S
        cluster.clock.schedule(done, lambda: _registered(cluster, name, pending))
    cluster.clock.schedule(now + RESUME_TIMEOUT_S, lambda: _timed_out(cluster, name, pending))


def _registered(cluster: Cluster, name: str, pending: Reboot) -> None:
    """slurmd registers after the boot: the node takes ``nextstate``; DRAIN and the reboot flag clear."""
    slurm = cluster.slurm
    if slurm.reboots.get(name) is not pending or not cluster.nodes[name].health.os_up:
        return
    del slurm.reboots[name]
    if pending.next_state == "down":
        slurm.node_state[name] = "down"
        slurm.node_reason[name] = slurm.node_reason.get(name, "reboot requested") + " : reboot complete"
        return
    slurm.node_state[name] = "idle"
    slurm.node_reason.pop(name, None)
    slurm.reason_set.pop(name, None)


def _timed_out(cluster: Cluster, name: str, pending: Reboot) -> None:
    """The node did not register within ResumeTimeout: DOWN, ``reboot timed out``."""
    slurm = cluster.slurm
    if slurm.reboots.get(name) is not pending:
        return
    del slurm.reboots[name]
    slurm.node_state[name] = "down"
    slurm.node_reason[name] = slurm.node_reason.get(name, "reboot requested") + " : reboot timed out"


def cancel_reboot(ctx: Context, words: list[str]) -> int:
    """``scontrol cancel_reboot NODELIST``: a reboot not yet issued is dropped; an ASAP drain is undone."""
    if len(words) != 1:
        raise ctx.fail(f"too {'few' if not words else 'many'} arguments for keyword:cancel_reboot")
    slurm = ctx.cluster.slurm
    names = _nodes(ctx, words[0], "slurm_update")
    for name in names:
        pending = slurm.reboots.get(name)
        if pending is not None and pending.issued:
            raise ctx.fail("slurm_update error: Reboot already in progress")
    for name in names:
        pending = slurm.reboots.pop(name, None)
        if pending is None:
            continue
        if slurm.node_reason.get(name) in ("Reboot ASAP", "reboot requested"):
            slurm.node_reason.pop(name, None)
            slurm.reason_set.pop(name, None)
        if pending.asap:
            slurm.node_state[name] = {"drng": "alloc", "drain": "idle"}.get(slurm.node_state[name],
                                                                           slurm.node_state[name])
    return 0


# -- jobs ------------------------------------------------------------------------------------


def job_action(ctx: Context, keyword: str, words: list[str]) -> int:
    """``scontrol requeue|requeuehold|hold|release JOBID[,JOBID...]``; errors name each job."""
    if len(words) != 1:
        raise ctx.fail(f"too {'few' if not words else 'many'} arguments for keyword:{keyword}")
    status = 0
    for text in (t for t in words[0].split(",") if t):
        error = _one_job(ctx, keyword, text)
        if error:
            ctx.err(f"{error} for job {text}\n")
            status = 1
    return status


def _one_job(ctx: Context, keyword: str, text: str) -> str:
    cluster = ctx.cluster
    job = cluster.slurm.job(int(text)) if text.isdecimal() else None
    if job is None or not sc.job_visible(cluster, job):
        return "Invalid job id specified"
    me = sc.user(ctx.env)
    if job.user != me and me != "root":
        return "Access/permission denied"
    held = "JobHeldUser" if job.user == me else "JobHeldAdmin"
    if keyword in ("hold", "release"):
        if job.state != "PENDING":
            return "Job is no longer pending execution"
        if keyword == "hold":
            job.reason = held
        elif job.reason in ("JobHeldUser", "JobHeldAdmin"):
            eligible = max(job.eligible_s or 0.0, ctx.clock.elapsed)
            job.reason = "BeginTime" if eligible > ctx.clock.elapsed else "None"
            cluster.clock.schedule(eligible, lambda: _try_start(cluster, job))
        return ""
    if job.state == "PENDING":
        return "Job is pending execution"
    if not job.batch:
        return "Only batch jobs are accepted or processed"
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
    job.nodes, job.steps, job.step_names = [], [], {}
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
        if now - (job.eligible_s or now) < RECHECK_LIMIT_S:
            cluster.clock.schedule(now + BUSY_RECHECK_S, lambda: _try_start(cluster, job))
        return
    start(cluster, job, idle[:job.num_nodes])
    job.steps = [("batch", "RUNNING", "0:0"), ("extern", "RUNNING", "0:0")]
