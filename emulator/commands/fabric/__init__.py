"""The InfiniBand and RDMA tools: infiniband-diags (ibstat, perfquery, ibnetdiscover, ibdiagnet, ...), rdma-core, mlxlink, perftest's bandwidth tests, and the host's network interfaces (ip, ethtool).

A tool family: it imports the model (``emulator.cluster``, ``emulator.hostfs``,
``emulator.vfs``) and the shared kit (``emulator.commands.kit``), never another
family, the registry or the shell.
"""

from __future__ import annotations

from emulator.commands.fabric import (
    ibdiagnet,
    iblinkinfo,
    ibnetdiscover,
    ibqueryerrors,
    ibstat,
    mlxlink,
    netif,
    ofed,
    perfquery,
    perftest,
    rdma,
    subnet,
    verbs,
)
from emulator.commands.kit.command import Command

__all__ = ["commands"]


def commands() -> list[Command]:
    """Every command of the family, for the registry."""
    return [*ibstat.commands(), *verbs.commands(), *perfquery.commands(), *mlxlink.commands(), *rdma.commands(),
            *ofed.commands(), *ibdiagnet.commands(), *iblinkinfo.commands(), *ibnetdiscover.commands(),
            *ibqueryerrors.commands(), *subnet.commands(), *netif.commands(), *perftest.commands()]
