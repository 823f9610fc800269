"""``dcgmi stats`` (DCGM 3.3.9): process and job statistics of the host's GPUs.

``dcgmi stats -j 48213 -v`` on a node of the training job reports that
job's GPUs since the prolog started recording it; a learner may also record
their own (``-e``, ``-s``, ``-x``, ``-r``, ``-a``). This module reads the
flags and carries out the action; the records are
:mod:`emulator.commands.dcgm.stats_records`, the figures
:mod:`emulator.commands.dcgm.stats_figures`, the boxes
:mod:`emulator.commands.dcgm.stats_report`.
"""

from __future__ import annotations

from emulator.cluster.hardware import DcgmJobRecord
from emulator.cluster.model import Node
from emulator.commands.dcgm.options import HELP_FLAG, parse_options
from emulator.commands.dcgm.stats_records import ALL_GPUS, GPU_GROUPS, SWITCH_GROUP, jobs, watched_since
from emulator.commands.dcgm.stats_report import job_report, pid_report
from emulator.commands.kit.command import Context
from emulator.commands.kit.spec import Flag

#: dcgmi's exit status for each DCGM return code (the code as an unsigned byte).
NO_DATA, NOT_WATCHED, NOT_CONFIGURED, BADPARAM, GENERIC, DUPLICATE = 242, 240, 251, 255, 253, 230

HELP = """\
 stats -- Used to view process statistics.

 Usage: dcgmi stats
   dcgmi stats [--host <IP/FQDN>] [-g <groupId>] -e [-u <>] [-m <>]
   dcgmi stats [--host <IP/FQDN>] [-g <groupId>] -d
   dcgmi stats [--host <IP/FQDN>] [-g <groupId>] -p <pid> [-v]
   dcgmi stats [--host <IP/FQDN>] [-g <groupId>] -s <job id>
   dcgmi stats [--host <IP/FQDN>] -x <job id>
   dcgmi stats [--host <IP/FQDN>] -j <job id> [-v]
   dcgmi stats [--host <IP/FQDN>] -r <job id>
   dcgmi stats [--host <IP/FQDN>] -a

Flags:
  -g  --group       groupId  The GPU group to query on the specified host.
  -e  --enable               Enable system watches and start recording information.
  -d  --disable              Disable system watches and stop recording information.
  -p  --pid         pid      View statistics for the specified pid.
  -s  --jstart      job id   Start recording job statistics.
  -x  --jstop       job id   Stop recording job statistics.
  -j  --job         job id   Display job statistics.
  -r  --jremove     job id   Remove job statistics.
  -a  --jremoveall           Remove all job statistics.
  -v  --verbose              Show process information for each GPU.
  -u  --update-interval      How often to update the underlying job stats in ms.
  -m  --max-keep-age         How long to retain job stats data for in seconds.
  -h  --help                 Displays usage information and exits.
"""

#: The flags of ``stats``.
STATS_FLAGS = (
    HELP_FLAG,
    Flag("-g", "--group", "GROUPID", "the GPU group to query"),
    Flag("-e", "--enable", "", "enable system watches and start recording information"),
    Flag("-d", "--disable", "", "disable system watches and stop recording information"),
    Flag("-p", "--pid", "PID", "view statistics for the specified pid"),
    Flag("-s", "--jstart", "JOBID", "start recording job statistics"),
    Flag("-x", "--jstop", "JOBID", "stop recording job statistics"),
    Flag("-j", "--job", "JOBID", "display job statistics"),
    Flag("-r", "--jremove", "JOBID", "remove job statistics"),
    Flag("-a", "--jremoveall", "", "remove all job statistics"),
    Flag("-v", "--verbose", "", "show process information for each GPU"),
    Flag("-u", "--update-interval", "MS", "how often to update the underlying job stats in ms"),
    Flag("-m", "--max-keep-age", "SECONDS", "how long to retain job stats data for in seconds"),
    Flag("", "--host", "IP/FQDN", "the host engine to connect to"),
)
#: Short flag of each long option, so either spelling reads the same.
ALIASES = {flag.long[2:]: flag.short[1:] for flag in STATS_FLAGS if flag.short and flag.long}


def run_stats(ctx: Context, argv: list[str]) -> int:
    """Carry out one ``dcgmi stats`` action."""
    opts = {ALIASES.get(k, k): v for k, v in parse_options(ctx, "stats", argv, STATS_FLAGS).items()}
    actions = [k for k in "edpsxjra" if k in opts]
    if "h" in opts or "help" in opts or not actions:
        ctx.out(HELP)
        return 0
    if len(actions) > 1:
        second = next(long for long, short in ALIASES.items() if short == actions[1])
        raise ctx.fail(f"Error: Mutually exclusive argument already set! for arg -{actions[1]} (--{second}).",
                       BADPARAM)
    node = ctx.host
    engine = node.hw.dcgm
    group = _number(ctx, opts.get("g", str(ALL_GPUS)), "group", "-g (--group)")
    action, value = actions[0], opts.get(actions[0], "")
    if action in "sxjr" and len(value) > 64:
        verb = {"s": "start job for group", "x": "stop job for group", "j": "stop job for group",
                "r": "stop job for group"}[action]
        raise ctx.fail(f"Error: Unable to {verb}. Return: Job ID too long.", BADPARAM)
    known = group in GPU_GROUPS or group == SWITCH_GROUP
    if action == "e":
        if not known:
            raise ctx.fail("Error: Unable to enable process watches for group. Return: The Group is not found.",
                           NOT_CONFIGURED)
        if group == SWITCH_GROUP:
            raise ctx.fail("Error: Unable to enable process watches for group. Return: Bad parameter passed to "
                           "function.", BADPARAM)
        engine.watched.setdefault(group, ctx.clock.elapsed)
        ctx.outln("Successfully started process watches.")
        return 0
    if action == "d":
        if not known:
            raise ctx.fail("Error: Unable to get group information. Return: The Group is not found", GENERIC)
        ctx.outln("Process stats watches cannot be disabled at this time.")
        return 0
    if action == "p":
        return _pid(ctx, node, group, known, _number(ctx, value, "pid", "-p (--pid)"), "v" in opts)
    records = jobs(ctx, node)
    if action == "s":
        if not known or group == SWITCH_GROUP:
            raise ctx.fail("Error: Unable to start job for group. Return: The Group is not found.", NOT_CONFIGURED)
        if not value:
            raise ctx.fail("Error: Unable to start job for group. Return: Bad parameter passed to function.",
                           BADPARAM)
        if value in records:
            raise ctx.fail("Error: Unable to start job for group. Return: This Job Id is in use. Please use another "
                           "job Id.", DUPLICATE)
        engine.jobs[value] = DcgmJobRecord(group, ctx.clock.elapsed)
        engine.removed.discard(value)
        ctx.outln(f"Successfully started recording stats for {value}.")
        return 0
    if action == "a":
        engine.jobs.clear()
        engine.removed.update(records)
        ctx.outln("Successfully removed all jobs.")
        return 0
    if value not in records:
        if action == "j":
            raise ctx.fail("Error: Unable to retrieve job statistics. Return: No data is available.", NO_DATA)
        raise ctx.fail(f"Error: Job {value} was not found.", NO_DATA)
    record = records[value]
    if action == "x":
        if record.end_s is None:
            engine.jobs[value] = DcgmJobRecord(record.group, record.start_s, ctx.clock.elapsed)
        ctx.outln(f"Successfully stopped recording stats for {value}.")
        return 0
    if action == "r":
        engine.jobs.pop(value, None)
        engine.removed.add(value)
        ctx.outln(f"Successfully removed job {value}.")
        return 0
    ctx.out(job_report(ctx, node, value, record, "v" in opts))
    return 0


def _pid(ctx: Context, node: Node, group: int, known: bool, pid: int, verbose: bool) -> int:
    since = watched_since(ctx, node)
    if since is None:
        raise ctx.fail("Error: Watches have not been enabled. Unable to get PID info.", NOT_WATCHED)
    if not known:
        raise ctx.fail(f"Error: Unable to get information for process with PID {pid}. Return: The Group is not "
                       "found.", NOT_CONFIGURED)
    text = pid_report(ctx, node, pid, since, verbose) if group in GPU_GROUPS else None
    if text is None:
        raise ctx.fail(f"Error: Unable to get information for process with PID {pid}. Return: No data is "
                       "available.", NO_DATA)
    ctx.out(text)
    return 0


def _number(ctx: Context, text: str, name: str, flag: str) -> int:
    """An integer argument as TCLAP reads it; a negative one is refused as dcgmi refuses it."""
    try:
        value = int(text, 0)
        if value > 0x7FFFFFFF:   # TCLAP reads an int
            raise ValueError(text)
    except ValueError:
        raise ctx.fail(f"Error: Couldn't read argument value from string '{text}' for arg {flag}.",
                       BADPARAM) from None
    if value < 0:
        raise ctx.fail(f"Error: Positive value expected, negative value found for arg {name}.", BADPARAM)
    return value
