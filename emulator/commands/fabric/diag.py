"""What the infiniband-diags tools share: the :class:`DiagCommand` base (getopt
wording on bad flags, status 255 on failure) and the process id their
``ibwarn``/``ibpanic`` lines carry.
"""

from __future__ import annotations

from emulator.cluster.ids import rng
from emulator.commands.kit.command import Context, ParsedCommand
from emulator.commands.kit.usage import getopt_error


def fake_pid(ctx: Context, tool: str) -> int:
    """A process id for diag warnings: stable for a host, tool and instant."""
    return rng(ctx.cluster.seed, ctx.host.name, tool, round(ctx.clock.elapsed, 3)).randint(20_000, 90_000)


class DiagCommand(ParsedCommand):
    """An infiniband-diags/rdma-core tool: getopt wording, status 255 on failure."""

    usage_status = 2
    usage_args = ""

    def usage_error(self, message: str) -> str:
        return f"{getopt_error(self.name, message)}\nUsage: {self.name} [options] {self.usage_args}".rstrip()
