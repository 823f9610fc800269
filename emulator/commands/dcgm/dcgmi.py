"""``dcgmi`` (DCGM 3.3.9): the command, which hands each subsystem to its module.

``discovery`` and ``group`` list what the host engine sees, ``diag`` runs the
diagnostics, ``dmon`` monitors fields, ``health`` checks the watches,
``stats`` reports jobs and processes. Each subsystem declares its flags and
reads them with getopt (:mod:`emulator.commands.dcgm.options`); a host
without GPUs has no host engine to connect to.
"""

from __future__ import annotations

from collections.abc import Callable

from emulator.commands.dcgm.diag import run_diag
from emulator.commands.dcgm.discovery import run_discovery, run_group
from emulator.commands.dcgm.dmon import run_dmon
from emulator.commands.dcgm.health import run_health
from emulator.commands.dcgm.stats import run_stats
from emulator.commands.kit.command import Command, Context, Outcome, RawCommand
from emulator.commands.kit.spec import Flag

NO_HOSTENGINE = ("Error: unable to establish a connection to the specified host: localhost\n"
                 "Error: Unable to connect to host engine. Host engine connection invalid/disconnected.\n")

USAGE = """\
 dcgmi -- Command line interface for the DCGM host engine.

 Usage: dcgmi <subsystem> [options]

 Subsystems:
    discovery   Discover GPUs on the system
    diag        System validation/diagnostic
    dmon        Stats monitoring of GPUs
    health      Monitor the health of the system
    group       GPU group management
    stats       Process statistics

 Options:
    -h  --help  Displays usage information and exits.
    -v  --version  Displays the version of DCGM.
"""

#: Each subsystem and what runs it, in the order ``dcgmi -h`` lists them.
SUBSYSTEMS: dict[str, Callable[[Context, list[str]], Outcome]] = {
    "discovery": run_discovery, "diag": run_diag, "dmon": run_dmon, "health": run_health, "group": run_group,
    "stats": run_stats,
}


class Dcgmi(RawCommand):
    name = "dcgmi"
    streams = True
    needs_gpus = True
    summary = "NVIDIA Data Center GPU Manager CLI: discovery, diag, dmon, health, stats"
    section = "GPU"
    notes = ("DCGM 3.3.9. diag -r 1|2|3 advances the simulated clock by the run's length. stats -j JOBID [-v] "
             "reports a Slurm job's GPUs (the prolog records each job on every node it runs on).")
    flags = (
        Flag("-h", "--help", "", "display usage information and exit"),
        Flag("-v", "--version", "", "display the version of DCGM"),
    )
    words = tuple(SUBSYSTEMS)
    synopsis = "<subsystem> [options]"

    def help_text(self) -> str:
        return USAGE

    def leaves_model(self, words: list[str]) -> bool:
        """``dmon`` only samples the GPUs, pausing between rows."""
        return words[:1] == ["dmon"]

    def execute(self, ctx: Context) -> Outcome:
        argv = ctx.argv[1:]
        if not argv or argv[0] in ("-h", "--help"):
            ctx.out(USAGE)
            return 0
        if argv[0] in ("-v", "--version"):
            ctx.out(f"dcgmi  version: {ctx.cluster.versions.dcgm}\n")
            return 0
        sub, rest = argv[0], argv[1:]
        if sub not in SUBSYSTEMS:
            ctx.err(f"dcgmi: unrecognized subsystem '{sub}'\n{USAGE}")
            return 255
        if not ctx.host.gpus:
            ctx.err(NO_HOSTENGINE)
            return 255
        return SUBSYSTEMS[sub](ctx, rest)


def commands() -> list[Command]:
    return [Dcgmi()]
