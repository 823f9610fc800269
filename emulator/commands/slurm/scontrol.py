"""``scontrol``: show records, update node state, reboot nodes, act on jobs, ping the controller.

The show records live in :mod:`emulator.commands.slurm.records`; the actions
that change the model live with what they act on: on nodes (update NodeName=,
reboot, cancel_reboot) in :mod:`emulator.commands.slurm.admin`, on jobs (update
JobId=, requeue, requeuehold, hold, release) in
:mod:`emulator.commands.slurm.job_admin`.
"""

from __future__ import annotations

import argparse
from typing import Any

from emulator.cluster.scheduler import compress_hostlist
from emulator.commands.kit.command import Command, Context, Outcome
from emulator.commands.slurm import admin as slurm_admin
from emulator.commands.slurm import common as sc
from emulator.commands.slurm import job_admin
from emulator.commands.slurm.options import hostlist_names
from emulator.commands.slurm.records import config_record, job_record, node_record, partition_record

#: scontrol options that may also follow the command (``scontrol show nodes -o``).
SCONTROL_FLAGS = {"-o": ("oneliner",), "--oneliner": ("oneliner",), "-d": ("details",), "--details": ("details",),
                  "-od": ("oneliner", "details"), "-do": ("oneliner", "details")}


class Scontrol(sc.SlurmCommand):
    name = "scontrol"
    summary = "view or modify Slurm configuration and state"
    notes = ("Supported: show job|node|partition|config|hostnames|hostlist [NAME], ping, "
             "update NodeName=LIST State=DRAIN|DOWN|RESUME|IDLE Reason=TEXT, update JobId=ID Requeue=0|1, "
             "reboot [ASAP] [nextstate=RESUME|DOWN] [reason=TEXT] ALL|NODELIST, cancel_reboot NODELIST, "
             "requeue|requeuehold|hold|release JOBID. Node updates and reboots need Slurm's operator "
             "(root or SlurmUser): run them with sudo.")
    add_help_flag = False

    def configure(self, parser: Any) -> None:
        parser.add_argument("-o", "--oneliner", action="store_true", help="print one record per line")
        parser.add_argument("-d", "--details", action="store_true", help="print more detail")
        parser.add_argument("words", nargs=argparse.REMAINDER, metavar="COMMAND", help="show ..., update ...")

    def execute(self, ctx: Context, args: argparse.Namespace) -> Outcome:
        cluster = ctx.cluster
        words = []
        for word in args.words:  # GNU getopt permutes: options may follow the command
            flags = SCONTROL_FLAGS.get(word)
            if flags is None:
                words.append(word)
            for flag in flags or ():
                setattr(args, flag, True)
        if not words:
            raise ctx.fail("scontrol: no command given (interactive mode is not available here)")
        keyword = words[0].lower()
        if keyword == "show":
            records = _show(ctx, words[1:])
        elif keyword == "update":
            return _update(ctx, words[1:])
        elif keyword == "reboot":
            return slurm_admin.reboot(ctx, words[1:])
        elif keyword == "cancel_reboot":
            return slurm_admin.cancel_reboot(ctx, words[1:])
        elif keyword in ("requeue", "requeuehold", "hold", "release"):
            return job_admin.job_action(ctx, keyword, words[1:])
        elif keyword == "ping":
            ctx.outln(f"Slurmctld(primary) at {cluster.slurm.controller} is UP")
            return 0
        elif keyword == "version":
            ctx.outln(f"slurm {cluster.versions.slurm}")
            return 0
        else:
            raise ctx.fail(f"invalid keyword: {words[0]}")
        blank = words[1].lower().startswith(("job", "node", "part")) and records != [["No jobs in the system"]]
        for record in records:
            if args.oneliner and blank:
                ctx.outln(" ".join(line.strip() for line in record))
                continue
            for line in record:
                ctx.outln(line)
            if blank:
                ctx.outln()
        return 0


def _update(ctx: Context, words: list[str]) -> int:
    """``scontrol update``: the first entity tag (``NodeName=``, ``JobId=``, at least 3 letters) says what
    is updated, as scontrol.c's _update_it reads it."""
    fields: list[tuple[str, str]] = []
    for word in words:
        key, eq, value = word.partition("=")
        if not eq:
            raise ctx.fail(f"Invalid input: {word}\nRequest aborted")
        fields.append((key, value))
    for key, _ in fields:
        tag = key.lower()
        if len(tag) >= 3 and "nodename".startswith(tag):
            return slurm_admin.update(ctx, {("nodename" if k.lower() == tag else k.lower()): v for k, v in fields})
        if len(tag) >= 3 and "jobid".startswith(tag):
            return job_admin.update(ctx, fields)
    raise ctx.fail("No valid entity in update command\nInput line must include \"NodeName\", \"PartitionName\", "
                   "\"Reservation=<name>\", or \"JobId\"")


def _show(ctx: Context, words: list[str]) -> list[list[str]]:
    cluster = ctx.cluster
    if not words:
        raise ctx.fail("too few arguments for keyword:show")
    entity, rest = words[0].lower(), words[1:]
    arg = rest[0] if rest else None
    if entity in ("job", "jobs", "jobid"):
        jobs = [j for j in cluster.slurm.jobs if sc.job_visible(cluster, j)]
        if arg is not None:
            jobs = [j for j in jobs if arg.isdecimal() and j.job_id == int(arg)]
            if not jobs:
                raise ctx.fail("slurm_load_jobs error: Invalid job id specified")
        if not jobs:
            return [["No jobs in the system"]]
        return [job_record(cluster, j) for j in sorted(jobs, key=lambda j: j.job_id)]
    if entity in ("node", "nodes"):
        names = [n.name for n in cluster.compute_nodes]
        if arg is not None:
            wanted = hostlist_names(ctx, "scontrol", arg)
            missing = [n for n in wanted if n not in cluster.slurm.node_state]
            if missing:
                raise ctx.fail(f"Node {missing[0]} not found")
            names = wanted
        return [node_record(cluster, cluster.nodes[n]) for n in names]
    if entity in ("partition", "partitions"):
        parts = cluster.slurm.partitions
        if arg is not None:
            parts = [p for p in parts if p.name == arg]
            if not parts:
                raise ctx.fail(f"Partition {arg} not found")
        return [partition_record(cluster, p) for p in parts]
    if entity == "hostnames":
        expr = arg or ctx.env.get("SLURM_JOB_NODELIST", "")
        if not expr:
            raise ctx.fail("scontrol: error: host list is empty")
        return [[name] for name in hostlist_names(ctx, "scontrol", expr)]
    if entity in ("config", "configuration"):
        return [config_record(ctx)]
    if entity in ("hostlist", "hostlistsorted"):
        if arg is None:
            raise ctx.fail("scontrol: error: host list is empty")
        names = hostlist_names(ctx, "scontrol", arg)
        return [[compress_hostlist(sorted(names) if entity == "hostlistsorted" else names)]]
    raise ctx.fail(f"invalid entity:{words[0]} for keyword:show")


def commands() -> list[Command]:
    return [Scontrol()]
