"""``mpirun`` (Open MPI 4.1): N ranks placed on the ``-H`` hosts, each run with its ``OMPI_COMM_WORLD_*`` environment.

Ranks fill each host's slots in order; the output of every rank is collected
and printed when all have finished. A rank on another host than mpirun's sees
that host's login environment, the ``-x`` variables and ``OMPI_COMM_WORLD_*``,
not what the launching shell exported (Open MPI forwards only ``-x``); a rank
on mpirun's own host inherits its environment.
"""

from __future__ import annotations

import argparse

from emulator.commands.kit.command import Context, ParsedCommand
from emulator.commands.kit.spec import ArgumentParser
from emulator.commands.nccl.numbers import c_int
from emulator.limits import RANK_LIMIT, limit_reached


class Mpirun(ParsedCommand):
    """Open MPI's launcher, enough for ``mpirun -np N -H hosts program``."""

    name = "mpirun"
    summary = "Run a program as N MPI ranks across hosts (Open MPI 4.1)"
    section = "Collectives"
    usage_status = 1
    notes = ("Ranks are placed on the -H hosts in order (host:slots fills slots first). Output is collected "
             "and printed when every rank finished. Ranks on other hosts get only the variables given with -x "
             "(-x NCCL_ALGO=Ring, or -x NCCL_ALGO to pass on this shell's value), not this shell's exports.")

    def configure(self, parser: ArgumentParser) -> None:
        parser.add_argument("-np", "-n", "--np", dest="np", type=int, metavar="N", help="number of ranks")
        parser.add_argument("-H", "--host", "-host", dest="hosts", metavar="HOSTS", help="host[:slots],... to run on")
        parser.add_argument("-N", "-npernode", "--npernode", dest="npernode", type=int, metavar="N",
                            help="ranks per node")
        parser.add_argument("-x", dest="export", action="append", default=[], metavar="VAR[=VALUE]",
                            help="export an environment variable to the ranks")
        parser.add_argument("--bind-to", dest="bind", metavar="WHAT", help="binding (accepted)")
        parser.add_argument("--map-by", dest="map", metavar="WHAT", help="mapping (accepted)")
        parser.add_argument("--mca", "-mca", dest="mca", nargs=2, action="append", default=[],
                            metavar=("KEY", "VALUE"), help="MCA parameter (accepted)")
        parser.add_argument("--allow-run-as-root", action="store_true", help="accepted")
        parser.add_argument("program", nargs=argparse.REMAINDER, help="program and its arguments")

    def usage_error(self, message: str) -> str:
        return f"mpirun: Error: {message}"

    def _placement(self, ctx: Context, np_: int | None, hosts: str | None, npernode: int | None) -> list[str]:
        slots: list[tuple[str, int]] = []
        # Without -H, Open MPI runs locally with one slot per core (more need --oversubscribe).
        for item in (hosts or f"{ctx.host.name}:{ctx.host.cpu.sockets * ctx.host.cpu.cores_per_socket}").split(","):
            name, _, n = item.partition(":")
            if name:
                slots.append((name, c_int(n) if n else (npernode or 1)))
        if npernode:
            slots = [(h, npernode) for h, _ in slots]
        total = np_ if np_ is not None else sum(s for _, s in slots)
        placed: list[str] = []
        for host, count in slots:
            placed += [host] * count
        if total > len(placed):
            raise ctx.fail(
                "--------------------------------------------------------------------------\n"
                f"There are not enough slots available in the system to satisfy the {total}\n"
                f"slots that were requested by the application:\n\n  {' '.join(self._program)}\n\n"
                "Either request fewer slots for your application, or make more slots\navailable for use.\n"
                "--------------------------------------------------------------------------", 1)
        return placed[:total]

    def execute(self, ctx: Context, args: argparse.Namespace) -> int:
        program = [p for p in args.program if p != "--"]
        self._program = program
        if not program:
            raise ctx.fail("mpirun could not find anything to do.\n\nIt is possible that you forgot to specify "
                           "how many processes to run\nvia the \"-np\" argument.", 1)
        placed = self._placement(ctx, args.np, args.hosts, args.npernode)
        for host in set(placed):
            node = ctx.cluster.node(host)
            if node is None:
                raise ctx.fail(f"ssh: Could not resolve hostname {host}: Name or service not known\n"
                               "--------------------------------------------------------------------------\n"
                               "ORTE was unable to reliably start one or more daemons.", 1)
        exported: dict[str, str] = {}
        for item in args.export:
            key, eq, value = item.partition("=")
            exported[key] = value if eq else ctx.env.get(key, "")
        status = 0
        locals_: dict[str, int] = {}
        every_host = ",".join(placed)
        for rank, host in enumerate(placed[:RANK_LIMIT]):
            local = locals_.get(host, 0)
            locals_[host] = local + 1
            env = {**exported, "OMPI_COMM_WORLD_RANK": str(rank), "OMPI_COMM_WORLD_SIZE": str(len(placed)),
                   "OMPI_COMM_WORLD_LOCAL_RANK": str(local), "OMPI_COMM_WORLD_LOCAL_SIZE": str(placed.count(host)),
                   "OMPI_COMM_WORLD_HOSTS": every_host}
            # A rank on another host starts from that host's login environment: only -x carries a variable there.
            result = ctx.run(program, host=ctx.cluster.node(host), env=env, inherit=host == ctx.host.name)
            ctx.out(result.stdout)
            if result.stderr:
                ctx.err(result.stderr)
            status = status or result.status
        if len(placed) > RANK_LIMIT:
            ctx.err(limit_reached(f"mpirun: stopped after starting {RANK_LIMIT} ranks") + "\n")
            return 1
        return status
