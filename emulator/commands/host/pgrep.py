"""``pgrep`` (procps-ng): the process IDs whose name, or command line, matches a pattern."""

from __future__ import annotations

import argparse
import re

from emulator.cluster.processes import processes
from emulator.commands.kit.command import Context, Outcome, ParsedCommand
from emulator.commands.kit.regex import RegexError, compile_python, posix_regex
from emulator.commands.kit.spec import ArgumentParser

PGREP_USAGE = "\nUsage:\n pgrep [options] <pattern>\n\nFor more details see pgrep(1)."


class Pgrep(ParsedCommand):
    name = "pgrep"
    summary = "list the process IDs whose name (or, with -f, command line) matches a pattern"
    section = "Host"
    usage_status = 2
    notes = "Exit status 0 when a process matched, 1 when none did, 2 for bad usage (procps-ng)."

    def configure(self, parser: ArgumentParser) -> None:
        parser.add_argument("-f", "--full", action="store_true", help="match against the full command line")
        parser.add_argument("-l", "--list-name", action="store_true", help="list the process name as well")
        parser.add_argument("-a", "--list-full", action="store_true", help="list the full command line as well")
        parser.add_argument("-u", "--euid", metavar="USER", help="only processes of this user")
        parser.add_argument("-c", "--count", action="store_true", help="print the number of matches")
        parser.add_argument("-x", "--exact", action="store_true", help="the name must match exactly")
        parser.add_argument("-n", "--newest", action="store_true", help="select only the newest matching process")
        parser.add_argument("-o", "--oldest", action="store_true", help="select only the oldest matching process")
        parser.add_argument("pattern", metavar="PATTERN", nargs="?", help="extended regular expression")

    def usage_error(self, message: str) -> str:
        """procps-ng's wording: an unknown option, then a pointer to the help."""
        bad = message.split(":", 1)[-1].split()[0] if message.startswith("unrecognized arguments:") and \
            message.split(":", 1)[-1].split() else ""
        if bad.startswith("--"):
            message = f"unrecognized option '{bad}'"
        elif bad.startswith("-"):
            message = f"invalid option -- '{bad[1:2]}'"
        elif "required" in message:
            message = "no matching criteria specified"
        return f"pgrep: {message}\n{PGREP_USAGE}"

    def execute(self, ctx: Context, args: argparse.Namespace) -> Outcome:

        if args.newest and args.oldest:
            raise ctx.fail(PGREP_USAGE.lstrip("\n"), 2)
        if args.pattern is None and not (args.newest or args.oldest or args.euid):
            raise ctx.fail(self.usage_error("the following arguments are required: PATTERN"), 2)
        try:
            regex = compile_python(posix_regex(args.pattern or "", True))
        except (re.error, RegexError) as exc:
            raise ctx.fail(f"pgrep: {exc}", 2) from None
        found = []
        for proc in processes(ctx.cluster, ctx.host):
            subject = proc.args if args.full else proc.comm[:15]
            hit = regex.fullmatch(subject) if args.exact else regex.search(subject)
            if hit and (args.euid is None or proc.user == args.euid):
                found.append(proc)
        if found and (args.newest or args.oldest):
            # procps-ng: the latest (earliest) start time; a tie goes to the higher (lower) PID.
            pick = max if args.newest else min
            found = [pick(found, key=lambda p: (p.start_s, p.pid))]
        if args.count:
            ctx.outln(str(len(found)))
        for proc in [] if args.count else found:
            if args.list_full:
                ctx.outln(f"{proc.pid} {proc.args}")
            elif args.list_name:
                ctx.outln(f"{proc.pid} {proc.comm[:15]}")
            else:
                ctx.outln(str(proc.pid))
        return 0 if found else 1
