"""``diag-snapshot``: collect the raw evidence of an incident into one bundle file.

For a scope (``--nodes node[03-04]`` or ``--job ID``) and a UTC interval
(``--since``/``--until``) it runs the operator tools an escalation needs, each
through the shell exactly as typed (``ctx.run``), and writes their raw output
into ONE text bundle in the virtual filesystem:

* on each node whose OS answers: ``nvidia-smi -q``, ``nvidia-smi topo -m``,
  the kernel log and the Fabric Manager journal for the interval, the GPU
  services' ``systemctl status``, ``ibstat`` and ``perfquery -x`` per port;
* for each node, out of band: ``ipmitool chassis status``, ``sel elist``,
  ``sdr elist`` (credentials come from the collector, never the bundle);
* from the controller: ``sinfo``, ``scontrol show node``, ``squeue`` and
  ``sacct`` for the scope and the interval.

The bundle is plain text: members follow one another, each introduced by a
``==> path <==`` line (as ``head`` and ``tail`` mark files), starting with a
``MANIFEST`` that gives the scope, the interval, every member with the
command and exit status that produced it, and everything that could NOT be
collected and why (a down host's OS tools). ``--list`` prints the members of
a bundle; ``--extract`` prints one member, like ``tar -tf`` and ``tar -xOf``.
"""

from __future__ import annotations

import argparse
import re
import shlex
from collections.abc import Generator
from datetime import UTC, datetime
from typing import Any

from emulator.cluster.accounts import BMC_CREDENTIAL
from emulator.cluster.model import Cluster, Node
from emulator.cluster.scheduler import compress_hostlist, expand_hostlist
from emulator.commands.kit.command import Command, Context, Outcome, ParsedCommand
from emulator.vfs import FsError

VERSION = "1.4.2"
HEADER = '# diag-snapshot bundle, format 1: members follow, each after a "==> path <==" line.\n'
MEMBER = re.compile(r"^==> (.+) <==$", re.M)
#: The GPU services whose state the bundle records.
SERVICES = ("nvidia-fabricmanager", "nvidia-persistenced", "nvidia-dcgm")
#: Default interval length when --since is not given.
DEFAULT_WINDOW_S = 3600.0
#: Most nodes one snapshot may cover (keeps the command bounded).
MAX_NODES = 16
#: Seconds each collection takes (the tool's first word; ``ipmitool`` over lanplus is the slowest),
#: so the bundle's members are read at the instants they would be and the clock moves by the total.
COST_S = {"sinfo": 0.3, "scontrol": 0.3, "squeue": 0.3, "sacct": 0.6, "ipmitool": 1.5, "nvidia-smi": 0.9,
          "journalctl": 0.4, "systemctl": 0.2, "ibstat": 0.2, "perfquery": 0.1}
#: How long ssh waits before "No route to host" for a host whose OS does not answer.
SSH_UNREACHABLE_S = 3.0


class DiagSnapshot(ParsedCommand):
    name = "diag-snapshot"
    summary = "collect raw tool output for nodes and a UTC interval into one bundle file"
    section = "Diagnostics"
    usage_status = 2
    description = """\
Runs, for each node in scope, the tools an escalation needs and writes their raw
output into ONE plain-text bundle: nvidia-smi -q and topo -m, the kernel log and
the Fabric Manager journal for the interval, systemctl status of the GPU
services, ibstat and perfquery -x per port; out of band, ipmitool chassis
status, sel elist and sdr elist for every node (the BMC password stays in the
collector); from the controller, sinfo, scontrol show node, squeue and sacct.

Each member starts with a "==> path <==" line, as head and tail mark files. The
first member, MANIFEST, gives the scope, the UTC interval, every member with the
command and exit status that produced it, and what could NOT be collected and
why (a host whose OS does not answer only has its BMC data)."""
    notes = ("Examples:\n"
             "  diag-snapshot --nodes node[03-04] --since 2026-03-11T08:00:00Z --until 2026-03-11T09:00:00Z\n"
             "  diag-snapshot --job 48213 -o /home/alice/incident-48213.txt\n"
             "  diag-snapshot --list /home/alice/incident-48213.txt\n"
             "  diag-snapshot --extract /home/alice/incident-48213.txt MANIFEST")

    def configure(self, parser: Any) -> None:
        parser.add_argument("-n", "--nodes", metavar="HOSTLIST", help="nodes in scope (node[03-04],node07)")
        parser.add_argument("-j", "--job", metavar="JOBID", help="the nodes of this Slurm job are in scope")
        parser.add_argument("--since", metavar="UTC", help="interval start, YYYY-MM-DDTHH:MM:SSZ (default: 1 h ago)")
        parser.add_argument("--until", metavar="UTC", help="interval end, YYYY-MM-DDTHH:MM:SSZ (default: now)")
        parser.add_argument("-o", "--output", metavar="FILE", help="bundle path (default: ~/diag-snapshot-STAMP.txt)")
        parser.add_argument("--list", metavar="BUNDLE", help="list the members of a bundle")
        parser.add_argument("--extract", nargs=2, metavar="BUNDLE MEMBER", help="print one member of a bundle")
        parser.add_argument("-V", "--version", action="store_true", help="print the version")

    def execute(self, ctx: Context, args: argparse.Namespace) -> Outcome:
        if args.version:
            ctx.outln(f"diag-snapshot {VERSION}")
            return 0
        if args.list:
            for name, _ in members(_read(ctx, args.list)):
                ctx.outln(name)
            return 0
        if args.extract:
            bundle, wanted = args.extract
            for name, body in members(_read(ctx, bundle)):
                if name == wanted:
                    ctx.out(body)
                    return 0
            raise ctx.fail(f"diag-snapshot: {wanted}: not found in bundle {bundle}", 1)
        return _collect(ctx, args)


def members(text: str) -> list[tuple[str, str]]:
    """The (path, content) pairs of a bundle."""
    marks = list(MEMBER.finditer(text))
    found = []
    for i, mark in enumerate(marks):
        end = marks[i + 1].start() if i + 1 < len(marks) else len(text)
        found.append((mark.group(1), text[mark.end() + 1:end]))
    return found


def _read(ctx: Context, path: str) -> str:
    try:
        text = ctx.fs.read(path)
    except FsError as exc:
        raise ctx.fail(exc.message("diag-snapshot"), 1) from None
    if not text.startswith(HEADER):
        raise ctx.fail(f"diag-snapshot: {path}: not a diag-snapshot bundle", 1)
    return text


def _utc(ctx: Context, text: str, option: str) -> float:
    """An ISO 8601 UTC instant → offset on the simulated clock."""
    m = re.fullmatch(r"(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}(?::\d{2})?)(Z|\+00:00)?", text.strip())
    if not m:
        raise ctx.fail(f"diag-snapshot: {option}: invalid UTC time '{text}' (expected YYYY-MM-DDTHH:MM:SSZ)")
    clock = m.group(2) if m.group(2).count(":") == 2 else m.group(2) + ":00"
    at = datetime.strptime(f"{m.group(1)} {clock}", "%Y-%m-%d %H:%M:%S").replace(tzinfo=UTC)
    return (at - ctx.clock.start).total_seconds()


def _iso(cluster: Cluster, offset: float) -> str:
    return cluster.clock.at(offset).strftime("%Y-%m-%dT%H:%M:%SZ")


def _scope(ctx: Context, args: argparse.Namespace) -> list[str]:
    cluster = ctx.cluster
    if args.nodes and args.job:
        raise ctx.fail("diag-snapshot: give --nodes or --job, not both")
    if args.job:
        job = cluster.slurm.job(int(args.job)) if args.job.isdecimal() and len(args.job) <= 18 else None
        if job is None or not job.nodes:
            raise ctx.fail(f"diag-snapshot: job {args.job}: no such job with allocated nodes", 1)
        return list(job.nodes)
    if not args.nodes:
        raise ctx.fail("diag-snapshot: no scope: give --nodes HOSTLIST or --job JOBID\n"
                       "Try 'diag-snapshot --help' for more information.")
    try:
        names = expand_hostlist(args.nodes)
    except ValueError:
        raise ctx.fail(f"diag-snapshot: invalid hostlist '{args.nodes}'") from None
    unknown = [n for n in names if cluster.node(n) is None or cluster.nodes[n].role != "compute"]
    if unknown:
        raise ctx.fail(f"diag-snapshot: unknown compute node(s): {compress_hostlist(unknown)}", 1)
    if len(names) > MAX_NODES:
        raise ctx.fail(f"diag-snapshot: {len(names)} nodes in scope; at most {MAX_NODES} per bundle", 1)
    return list(dict.fromkeys(names))


class Bundle:
    """Members gathered so far, and what could not be gathered."""

    def __init__(self) -> None:
        self.parts: list[tuple[str, str, int, str]] = []   # path, command, status, content
        self.missing: list[tuple[str, str, str]] = []      # path, command, why

    def run(self, ctx: Context, path: str, argv: list[str], host: Node | None = None,
            env: dict[str, str] | None = None, assign: dict[str, str] | None = None) -> float:
        """Collect one member; returns the seconds it took.

        ``assign`` is environment the manifest shows before the command (``TZ=UTC sacct ...``), as a
        shell line would set it; ``env`` is environment it keeps out of the bundle (a password).
        """
        result = ctx.run(argv, host=host, env={**(env or {}), **(assign or {})})
        text = result.stdout + result.stderr
        if text and not text.endswith("\n"):
            text += "\n"
        shown = " ".join(f"{key}={shlex.quote(value)}" for key, value in (assign or {}).items())
        self.parts.append((path, f"{shown} {shlex.join(argv)}".lstrip(), result.status, text))
        return COST_S.get(argv[0], 0.2)

    def skip(self, path: str, argv: list[str], why: str) -> None:
        self.missing.append((path, shlex.join(argv), why))


def _collect(ctx: Context, args: argparse.Namespace) -> Generator[float, None, int]:
    cluster = ctx.cluster
    names = _scope(ctx, args)
    now = ctx.clock.elapsed
    until = _utc(ctx, args.until, "--until") if args.until else now
    since = _utc(ctx, args.since, "--since") if args.since else until - DEFAULT_WINDOW_S
    if since >= until:
        raise ctx.fail("diag-snapshot: --since must be earlier than --until")
    if since > now:
        raise ctx.fail("diag-snapshot: --since is in the future")
    stamp = cluster.clock.now().strftime("%Y%m%dT%H%M%SZ")
    output = args.output or f"/home/{ctx.env.get('USER', 'alice')}/diag-snapshot-{stamp}.txt"
    # journalctl reads a time as local unless it ends in " UTC" (systemd.time(7)); --utc prints it as UTC.
    journal_since = cluster.clock.at(since).strftime("%Y-%m-%d %H:%M:%S UTC")
    journal_until = cluster.clock.at(min(until, now)).strftime("%Y-%m-%d %H:%M:%S UTC")
    hostlist = compress_hostlist(names)
    bundle = Bundle()

    # The controller's view of the scope.
    yield bundle.run(ctx, "slurm/sinfo.txt", ["sinfo", "-N", "-l", "-n", hostlist])
    yield bundle.run(ctx, "slurm/sinfo-R.txt", ["sinfo", "-R", "-n", hostlist])
    yield bundle.run(ctx, "slurm/scontrol-show-node.txt", ["scontrol", "show", "node", hostlist])
    yield bundle.run(ctx, "slurm/squeue.txt", ["squeue", "-w", hostlist])
    # sacct reads and prints times in the local zone (TZ); TZ=UTC makes both the interval's UTC.
    yield bundle.run(ctx, "slurm/sacct.txt", ["sacct", "-a", "-N", hostlist, "-S", _iso(cluster, since)[:-1],
                                              "-E", _iso(cluster, until)[:-1], "--format",
                                              "JobID,JobName,User,State,ExitCode,Start,End,Elapsed,NodeList%30"],
                     assign={"TZ": "UTC"})

    for name in names:
        node = cluster.nodes[name]
        bmc = f"{name}-bmc"
        for member, words in (("chassis-status", ["chassis", "status"]), ("sel-elist", ["sel", "elist"]),
                              ("sdr-elist", ["sdr", "elist"])):
            yield bundle.run(ctx, f"{name}/bmc/{member}.txt",
                       ["ipmitool", "-I", "lanplus", "-H", bmc, "-U", BMC_CREDENTIAL[0], "-E", *words],
                       env={"IPMI_PASSWORD": BMC_CREDENTIAL[1]})
        commands = _node_commands(node, journal_since, journal_until)
        if not node.health.os_up:
            probe = ctx.run(["ssh", name, "true"])
            yield SSH_UNREACHABLE_S
            why = (probe.stderr.strip() or "host does not answer") + "; only out-of-band data collected"
            for path, argv in commands:
                bundle.skip(f"{name}/{path}", argv, why)
            continue
        for path, argv in commands:
            yield bundle.run(ctx, f"{name}/{path}", argv, host=node)

    text = _render(ctx, bundle, names, since, until, output)
    try:
        ctx.fs.write(output, text)
    except FsError as exc:
        raise ctx.fail(exc.message("diag-snapshot"), 1) from None
    got = sum(1 for n in names if cluster.nodes[n].health.os_up)
    ctx.outln(f"diag-snapshot: {len(bundle.parts)} files from {len(names)} node(s) ({hostlist}), "
              f"{_iso(cluster, since)} .. {_iso(cluster, until)}")
    if bundle.missing:
        down = sorted({p.split("/")[0] for p, _, _ in bundle.missing})
        ctx.outln(f"diag-snapshot: {len(bundle.missing)} items NOT collected on {compress_hostlist(down)} "
                  "(see MANIFEST)")
    ctx.outln(f"diag-snapshot: wrote {output} ({len(text.encode())} bytes; OS data from {got} of {len(names)} node(s))")
    return 0


def _node_commands(node: Node, since: str, until: str) -> list[tuple[str, list[str]]]:
    commands: list[tuple[str, list[str]]] = [
        ("nvidia-smi-q.txt", ["nvidia-smi", "-q"]),
        ("nvidia-smi-topo-m.txt", ["nvidia-smi", "topo", "-m"]),
        ("kernel.log", ["journalctl", "-k", "-o", "short-iso", "--no-pager", "--since", since, "--until", until,
                        "--utc"]),
        ("fabricmanager.log", ["journalctl", "-u", "nvidia-fabricmanager", "-o", "short-iso", "--no-pager",
                               "--since", since, "--until", until, "--utc"]),
        ("systemctl-status.txt", ["systemctl", "status", "--no-pager", *SERVICES]),
        ("ibstat.txt", ["ibstat"]),
    ]
    ports = [nic.name for nic in node.nics if nic.link_layer == "InfiniBand"] if node.health.os_up else \
        [f"mlx5_{i}" for i in range(8)]
    for port in ports:
        commands.append((f"perfquery-{port}.txt", ["perfquery", "-x", "-C", port, "-P", "1"]))
    return commands


def _render(ctx: Context, bundle: Bundle, names: list[str], since: float, until: float, output: str) -> str:
    cluster = ctx.cluster
    v = cluster.versions
    lines = [
        f"diag-snapshot {VERSION}",
        f"bundle:    {output}",
        f"created:   {_iso(cluster, ctx.clock.elapsed)} by {ctx.env.get('USER', 'alice')}@{ctx.host.name}",
        f"cluster:   {cluster.name} (Slurm {v.slurm}, driver {v.driver}, CUDA {v.cuda}, {v.ofed})",
        f"scope:     {compress_hostlist(names)} ({len(names)} node{'s' if len(names) != 1 else ''})",
        f"interval:  {_iso(cluster, since)} .. {_iso(cluster, until)} (UTC; applies to logs, sacct; "
        "other files are state at collection time)",
        "",
        f"collected ({len(bundle.parts)}):",
    ]
    width = max((len(p) for p, *_ in bundle.parts), default=10)
    for path, command, status, text in bundle.parts:
        lines.append(f"  {path:<{width}}  exit={status:<3} {len(text.encode()):>7} bytes  $ {command}")
    lines.append("")
    lines.append(f"not collected ({len(bundle.missing)}):")
    if not bundle.missing:
        lines.append("  (nothing)")
    reasons: dict[str, list[tuple[str, str]]] = {}
    for path, command, why in bundle.missing:
        reasons.setdefault(why, []).append((path, command))
    for why, items in reasons.items():
        lines.append(f"  reason: {why}")
        width = max(len(p) for p, _ in items)
        lines += [f"    {path:<{width}}  $ {command}" for path, command in items]
    manifest = "\n".join(lines) + "\n"
    out = [HEADER, "==> MANIFEST <==\n", manifest]
    for path, _command, _status, text in bundle.parts:
        out.append(f"==> {path} <==\n")
        out.append(text)
    return "".join(out)


def commands() -> list[Command]:
    return [DiagSnapshot()]

