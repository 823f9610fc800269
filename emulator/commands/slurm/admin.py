"""``scontrol`` actions on nodes: update (node state), reboot, cancel_reboot.

``update NodeName=LIST State=DRAIN|DOWN|RESUME|IDLE|UNDRAIN|CANCEL_REBOOT Reason=TEXT``
sets the nodes' Slurm state and reason (who set it, and when, for ``sinfo -R``).

A reboot goes through Slurm's states on the simulated clock: REBOOT_REQUESTED
(``sinfo`` shows ``boot``, or ``mix@``/``alloc@``/``drng@`` while jobs still run),
REBOOT_ISSUED once the node is idle (``boot^``; the OS goes down and boots
through :mod:`emulator.cluster.lifecycle`, so uptime, the boot history and the
kernel log start afresh), then, when slurmd registers, the state ``nextstate``
asks for: RESUME returns the node to service with its drain and reason cleared;
DOWN leaves it down with the reason kept and ``reboot complete`` appended; with
neither, an ``ASAP`` reboot's drain is cleared and a node drained before keeps
its drain (scontrol(1), ``reboot``).

Only Slurm's operators (root and SlurmUser, :func:`common.operator`) may run
them, as slurmctld's validate_super_user() decides: an ordinary user gets
slurmctld's refusal (``sudo scontrol ...`` or ``sudo -u slurm scontrol ...``
acts as one).
"""

from __future__ import annotations

from functools import partial

from emulator.cluster import lifecycle
from emulator.cluster.model import Cluster
from emulator.cluster.scheduler import Reboot, expand_hostlist
from emulator.commands.kit.command import Context
from emulator.commands.slurm import common as sc
from emulator.commands.slurm.options import hostlist_names

#: Seconds before slurmctld's background loop issues a requested reboot on an idle node.
ISSUE_DELAY_S = 5.0
#: Seconds between two looks at a node whose reboot waits for its jobs to end.
BUSY_RECHECK_S = 30.0
#: slurm.conf ResumeTimeout: a rebooting node that has not registered by then is set DOWN.
RESUME_TIMEOUT_S = 600.0
#: Seconds after the login prompt at which slurmd has registered with slurmctld.
REGISTER_S = 1.0
#: How long slurmctld keeps looking at a reboot that waits for the node's jobs.
RECHECK_LIMIT_S = 2 * 86_400.0


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


def update(ctx: Context, fields: dict[str, str]) -> int:
    """``scontrol update NodeName=... State=... Reason=...`` (``fields`` keyed in lower case)."""
    slurm = ctx.cluster.slurm
    state = fields.get("state", "").lower()
    if state == "cancel_reboot":
        return cancel_reboot(ctx, [fields["nodename"]])
    # scontrol checks these itself (update_node.c) before it asks slurmctld.
    reason = fields.get("reason", "")
    if state in ("drain", "down") and not reason:
        raise ctx.fail("You must specify a reason when DOWNING or DRAINING a node. Request denied")
    if state not in ("drain", "down", "resume", "idle", "undrain", ""):
        raise ctx.fail("Invalid node state specified")
    names = hostlist_names(ctx, "scontrol", fields["nodename"])
    if not sc.operator(ctx.user):
        # slurmctld's _slurm_rpc_update_node answers ESLURM_USER_ID_MISSING ("Invalid user id")
        # to anyone but root and SlurmUser; scontrol prints it after "slurm_update error".
        raise ctx.fail("slurm_update error: Invalid user id")
    for name in names:
        if name not in slurm.node_state:
            raise ctx.fail("slurm_update error: Invalid node name specified")
    who = ctx.user
    now = ctx.clock.elapsed
    for name in names:
        current = slurm.node_state[name]
        if state == "drain":
            slurm.node_state[name] = "drng" if _busy(ctx.cluster, name) else "drain"
        elif state == "down":
            slurm.node_state[name] = "down"
        elif state in ("resume", "idle", "undrain"):
            if current in ("drain", "drng", "down"):
                slurm.node_state[name] = "alloc" if _busy(ctx.cluster, name) else "idle"
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
    asap, next_state, reason, target = False, "", "", ""
    for word in words:
        key, eq, value = word.partition("=")
        if word.upper() == "ASAP":
            asap = True
        elif eq and key.lower() == "nextstate":
            # scontrol.c _process_reboot_command: DOWN or RESUME, or any prefix of them.
            if not value:
                raise ctx.fail("missing state")
            next_state = next((s for s in ("down", "resume") if s.startswith(value.lower())), "")
            if not next_state:
                raise ctx.fail(f"Invalid state: {value}\nValid states: DOWN, RESUME")
        elif eq and key.lower() == "reason":
            if not value:
                raise ctx.fail("missing reason")
            reason = value
        elif target:
            raise ctx.fail("too many arguments for keyword:reboot")
        else:
            target = word
    if not target:
        raise ctx.fail("Missing node list. Specify ALL|<NodeList>")
    if not sc.operator(ctx.user):
        # slurmctld's _slurm_rpc_reboot_nodes answers EACCES to anyone but root and SlurmUser.
        raise ctx.fail("scontrol_reboot_nodes error: Permission denied")
    names = _nodes(ctx, target, "scontrol_reboot_nodes")
    who, now = ctx.user, ctx.clock.elapsed
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
    """slurmd registers after the boot and the REBOOT flag clears; the node takes ``nextstate``.

    scontrol(1): DOWN "will remain in a down state after rebooting", its reason appended with
    "reboot complete"; RESUME "will resume as normal and the node's reason and DRAIN state will be
    cleared"; the DRAIN flag is cleared "if the reboot was ASAP, nextstate=resume or down", so a
    node drained before a plain reboot stays drained, with its reason.
    """
    slurm = cluster.slurm
    if slurm.reboots.get(name) is not pending or not cluster.nodes[name].health.os_up:
        return
    del slurm.reboots[name]
    if pending.next_state == "down":
        slurm.node_state[name] = "down"
        slurm.node_reason[name] = slurm.node_reason.get(name, "reboot requested") + " : reboot complete"
        return
    if pending.drain and not pending.asap and not pending.next_state:
        slurm.node_state[name] = "drain"
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
        raise ctx.fail(f"{'missing argument' if not words else 'too many arguments'} for keyword:cancel_reboot")
    slurm = ctx.cluster.slurm
    if not sc.operator(ctx.user):
        # An update of the node (NODE_STATE_REBOOT_CANCEL): the same refusal as scontrol update.
        raise ctx.fail("slurm_update error: Invalid user id")
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
