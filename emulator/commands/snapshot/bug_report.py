"""``nvidia-bug-report.sh``: the driver's bug-report script, the log an NVIDIA case or RMA asks for.

As the real script, it runs only as root (``ERROR: Please run
nvidia-bug-report.sh as root.``, status 1), prints its start banner, and
writes one log in the current directory: a prologue (version, date, ``uname
-a``, the command line flags), then sections, each after a line of
underscores and the command that produced it, and the epilogue ``End of
NVIDIA bug report log file.``. Each section is the raw output of the tool as
the shell runs it here (``ctx.run``), so the log tells what every other tool
tells: ``nvidia-smi --query``, the kernel ring buffer (``dmesg``, with its
NVRM and Xid lines), ``lspci -nntv`` and ``-nnDvvv``, and ``dcgmi discovery
-l``.

The real script compresses the log through ``gzip -c`` into
``nvidia-bug-report.log.gz`` when ``which gzip`` finds gzip, and otherwise
writes it uncompressed as ``nvidia-bug-report.log`` (its ``set_filename``).
The emulated hosts have no gzip (their files are text), so the script takes
that second branch, file name and banner included; an existing log is moved
to ``nvidia-bug-report.log.old`` first, as the script does.

Limits: ``lspci`` runs without the ``xxxx`` hex dump of configuration space
the script asks for (the emulated ``lspci`` has no ``-x``); the many files and
X, Vulkan and journal sections a workstation's report holds are left out. The
version is the Perforce change number the script prints: that of a published
script with this banner; which change ships with driver 550.90.07 is
[unverified].
"""

from __future__ import annotations

import argparse
import shlex
from collections.abc import Generator
from typing import Any

from emulator.commands.kit.command import Command, Context, Outcome, ParsedCommand
from emulator.vfs import FsError, normpath

NAME = "nvidia-bug-report.sh"
BASE_LOG = "nvidia-bug-report.log"
#: The script's ``$Change:`` number (the version it prints) [unverified for driver 550.90.07].
VERSION = "32599928"
RULE = "_" * 44
#: The tools whose output the log holds, in the script's order, with the seconds each takes to collect.
SECTIONS: tuple[tuple[list[str], float], ...] = (
    (["nvidia-smi", "--query"], 2.5),
    (["dmesg"], 0.3),
    (["lspci", "-nntv"], 0.4),
    (["lspci", "-nnDvvv"], 0.8),
    (["dcgmi", "discovery", "-l"], 0.6),
)


def _banner(log: str) -> str:
    """What the script prints before it runs, naming the file it writes."""
    return f"""
nvidia-bug-report.sh will now collect information about your
system and create the file '{log}' in the current
directory.  It may take several seconds to run.  In some
cases, it may hang trying to capture data generated dynamically
by the Linux kernel and/or the NVIDIA kernel module.  While
the bug report log file will be incomplete if this happens, it
may still contain enough data to diagnose your problem.

If nvidia-bug-report.sh hangs, consider running with the --safe-mode
and --extra-system-data command line arguments.

Please include the '{log}' log file when reporting
your bug via the NVIDIA Linux forum (see forums.developer.nvidia.com)
or by sending email to 'linux-bugs@nvidia.com'.

By delivering '{log}' to NVIDIA, you acknowledge
and agree that personal information may inadvertently be included in
the output.  Notwithstanding the foregoing, NVIDIA will use the
output only for the purpose of investigating your reported issue.

"""


class NvidiaBugReport(ParsedCommand):
    name = NAME
    summary = "collect the NVIDIA driver's bug-report log (root only) into the current directory"
    section = "Diagnostics"
    description = """\
Collects the state of the GPUs and the driver into one log for an NVIDIA
support case or RMA request: nvidia-smi --query, the kernel log (dmesg, with
its NVRM: Xid lines), lspci of every device and dcgmi discovery -l. Run it as
root, as soon as the problem is seen and before a reset or reboot clears the
state. The log is written to the current directory: nvidia-bug-report.log.gz
where gzip is installed, nvidia-bug-report.log (uncompressed) where it is not,
as on these hosts."""
    notes = ("Examples:\n"
             "  sudo nvidia-bug-report.sh\n"
             "  sudo nvidia-bug-report.sh --output-file /home/alice/node01-bug-report.log")

    def configure(self, parser: Any) -> None:
        parser.add_argument("--output-file", metavar="FILE",
                            help="write output to FILE (default: nvidia-bug-report.log)")

    def execute(self, ctx: Context, args: argparse.Namespace) -> Outcome:
        if ctx.user != "root":
            ctx.outln(f"ERROR: Please run {NAME} as root.")
            return 1
        return _collect(ctx, args.output_file or BASE_LOG, ctx.argv[1:])


def _section(ctx: Context, argv: list[str]) -> str:
    result = ctx.run(argv)
    text = result.stdout + result.stderr
    if text and not text.endswith("\n"):
        text += "\n"
    return f"{RULE}\n\n{shlex.join(argv)}\n\n{text}\n"


def _collect(ctx: Context, log: str, flags: list[str]) -> Generator[float, None, int]:
    path = normpath(ctx.cwd, log)
    try:
        if ctx.fs.exists(path):
            ctx.fs.write(path + ".old", ctx.fs.read(path))
        ctx.fs.write(path, "")
    except FsError:
        ctx.outln(f"\nERROR: Working directory is not writable; please cd to a directory\n"
                  f"       where you have write permission so that the {log}\n"
                  f"       file can be written.\n")
        return 1
    ctx.out(_banner(log) + f"Running {NAME}...")
    date = ctx.run(["date"]).stdout.strip()
    uname = ctx.run(["uname", "-a"]).stdout.strip()
    parts = [f"{RULE}\n\nStart of NVIDIA bug report log file.  Please include this file, along\n"
             "with a detailed description of your problem, when reporting a graphics\n"
             "driver bug via the NVIDIA Linux forum (see forums.developer.nvidia.com)\n"
             "or by sending email to 'linux-bugs@nvidia.com'.\n\n"
             f"{NAME} Version: {VERSION}\n\nDate: {date}\nuname: {uname}\n"
             f"command line flags: {shlex.join(flags)}\n\n"]
    for argv, seconds in SECTIONS:
        parts.append(_section(ctx, argv))
        yield seconds
    parts.append(f"{RULE}\n\nEnd of NVIDIA bug report log file.\n")
    try:
        ctx.fs.write(path, "".join(parts))
    except FsError as exc:
        ctx.outln()
        raise ctx.fail(exc.message(NAME), 1) from None
    ctx.outln(" complete.")
    ctx.outln()
    return 0


def commands() -> list[Command]:
    return [NvidiaBugReport()]
