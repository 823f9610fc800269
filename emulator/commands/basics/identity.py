"""Who and where: hostname, whoami, id, nproc, uname and uptime."""

from __future__ import annotations

import argparse

from emulator.cluster.accounts import UIDS, groups_of
from emulator.cluster.boots import boot_offset, load_average
from emulator.commands.kit.command import Context, Outcome, ParsedCommand
from emulator.commands.kit.spec import ArgumentParser

SECTION = "Shell"


class Hostname(ParsedCommand):
    name = "hostname"
    reads_only = True
    summary = "show the name of the current host"
    section = SECTION

    def configure(self, parser: ArgumentParser) -> None:
        parser.add_argument("-f", "--fqdn", "--long", action="store_true", help="the fully qualified domain name")
        parser.add_argument("-s", "--short", action="store_true", help="the short host name")
        parser.add_argument("-i", "--ip-address", action="store_true", help="the host's addresses")
        parser.add_argument("-I", "--all-ip-addresses", action="store_true", help="every address of the host")

    def execute(self, ctx: Context, args: argparse.Namespace) -> Outcome:
        if args.ip_address or args.all_ip_addresses:
            addresses = [ctx.host.mgmt_ipv4] + [n.ipv4 for n in ctx.host.nics if getattr(n, "ipv4", "")]
            ctx.outln(" ".join(addresses) + (" " if args.all_ip_addresses else ""))
        elif args.fqdn:
            ctx.outln(f"{ctx.host.name}.{ctx.cluster.domain}")
        else:
            ctx.outln(ctx.host.name)
        return 0


class Whoami(ParsedCommand):
    name = "whoami"
    reads_only = True
    summary = "print the user name"
    section = SECTION

    def execute(self, ctx: Context, args: argparse.Namespace) -> Outcome:
        ctx.outln(ctx.user)
        return 0


class Nproc(ParsedCommand):
    name = "nproc"
    reads_only = True
    summary = "print the number of processing units available"
    section = SECTION

    def configure(self, parser: ArgumentParser) -> None:
        parser.add_argument("--all", action="store_true", help="print the number of installed processors")

    def execute(self, ctx: Context, args: argparse.Namespace) -> Outcome:
        cpu = ctx.host.cpu
        ctx.outln(str(cpu.sockets * cpu.cores_per_socket * cpu.threads_per_core))
        return 0


class Id(ParsedCommand):
    name = "id"
    reads_only = True
    summary = "print user and group ids"
    section = SECTION

    def configure(self, parser: ArgumentParser) -> None:
        parser.add_argument("-u", "--user", action="store_true", help="only the user id")
        parser.add_argument("-n", "--name", action="store_true", help="a name instead of a number")

    def execute(self, ctx: Context, args: argparse.Namespace) -> Outcome:
        uid = UIDS[ctx.user]
        if args.user:
            ctx.outln(ctx.user if args.name else str(uid))
        else:
            groups = ",".join(f"{gid}({name})" for gid, name in groups_of(ctx.user))
            ctx.outln(f"uid={uid}({ctx.user}) gid={uid}({ctx.user}) groups={groups}")
        return 0


class Uname(ParsedCommand):
    name = "uname"
    reads_only = True
    summary = "print system information (-a -s -n -r -v -m -o)"
    section = SECTION

    def configure(self, parser: ArgumentParser) -> None:
        for short, long, text in (("-a", "--all", "all of the below"), ("-s", "--kernel-name", "kernel name"),
                                  ("-n", "--nodename", "host name"), ("-r", "--kernel-release", "kernel release"),
                                  ("-v", "--kernel-version", "kernel version"), ("-m", "--machine", "machine"),
                                  ("-p", "--processor", "processor type"), ("-i", "--hardware-platform", "platform"),
                                  ("-o", "--operating-system", "operating system")):
            parser.add_argument(short, long, action="store_true", help=text)

    def execute(self, ctx: Context, args: argparse.Namespace) -> Outcome:
        v = ctx.cluster.versions
        fields = [("kernel_name", "Linux"), ("nodename", ctx.host.name), ("kernel_release", v.kernel),
                  ("kernel_version", v.kernel_build), ("machine", "x86_64"), ("processor", "x86_64"),
                  ("hardware_platform", "x86_64"), ("operating_system", "GNU/Linux")]
        chosen = [value for key, value in fields if args.all or getattr(args, key)]
        ctx.outln(" ".join(chosen or ["Linux"]))
        return 0


class Uptime(ParsedCommand):
    name = "uptime"
    reads_only = True
    summary = "tell how long the system has been running, and its load"
    section = SECTION

    def configure(self, parser: ArgumentParser) -> None:
        parser.add_argument("-p", "--pretty", action="store_true", help="show uptime in pretty format")
        parser.add_argument("-s", "--since", action="store_true", help="system up since")

    def execute(self, ctx: Context, args: argparse.Namespace) -> Outcome:
        boot = boot_offset(ctx.host)
        up = int(ctx.clock.elapsed - boot)
        if args.since:
            ctx.outln(ctx.clock.at(boot).strftime("%Y-%m-%d %H:%M:%S"))
            return 0
        days, rest = divmod(up, 86_400)
        hours, minutes = rest // 3600, rest % 3600 // 60
        if args.pretty:
            weeks, days_left = divmod(days, 7)
            parts = [f"{n} {unit}{'s' if n != 1 else ''}" for n, unit in
                     ((weeks, "week"), (days_left, "day"), (hours, "hour"), (minutes, "minute")) if n]
            ctx.outln("up " + ", ".join(parts or ["0 minutes"]))
            return 0
        text = ctx.clock.now().strftime(" %H:%M:%S up ")
        if days:
            text += f"{days} day{'s' if days != 1 else ''}, "
        text += f"{hours:2d}:{minutes:02d}, " if hours else f"{minutes} min, "
        one, five, fifteen = load_average(ctx.cluster, ctx.host)
        text += f" 1 user,  load average: {one:.2f}, {five:.2f}, {fifteen:.2f}"
        ctx.outln(text)
        return 0
