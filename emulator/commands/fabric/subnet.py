"""The subnet as a whole: ``sminfo`` (its master subnet manager) and ``ibclearcounters`` (clear every port it reaches)."""

from __future__ import annotations

import argparse

from emulator.cluster import counters, links
from emulator.cluster.ids import rng
from emulator.commands.fabric.diag import DiagCommand
from emulator.commands.fabric.discovery import add_port_options, local_fabric
from emulator.commands.kit.command import Command, Context, Outcome
from emulator.commands.kit.spec import ArgumentParser


class Sminfo(DiagCommand):
    name = "sminfo"
    directory = "/usr/sbin"
    summary = "query the InfiniBand subnet manager's info"
    section = "Fabric"

    def configure(self, parser: ArgumentParser) -> None:
        add_port_options(parser)

    def execute(self, ctx: Context, args: argparse.Namespace) -> Outcome:
        fabric = local_fabric(ctx, args, self.name)
        cl = ctx.cluster
        r = rng(cl.seed, "sm", 0)  # one subnet, one master SM, whichever rail asks
        guid = f"0x{0xFC6A1C:06x}0300{r.getrandbits(24):06x}"
        activity = r.randrange(10**6, 10**7) + int(cl.clock.elapsed / 10)
        ctx.outln(f"sminfo: sm lid {fabric[0].sm_lid} sm guid {guid}, activity count {activity} priority 15 state 3 "
                  "SMINFO_MASTER")
        return 0


class Ibclearcounters(DiagCommand):
    name = "ibclearcounters"
    summary = "clear the port counters of every port in the fabric"
    section = "Fabric"
    notes = "Clears the counters of every CA and switch port the local port reaches (as perfquery -R on each)."

    def configure(self, parser: ArgumentParser) -> None:
        add_port_options(parser)

    def execute(self, ctx: Context, args: argparse.Namespace) -> Outcome:
        fabric = local_fabric(ctx, args, self.name)
        cl = ctx.cluster
        rail_gbps = counters.job_rail_gbps(cl)
        cables = links.cabling(cl)
        cas = fabric[1]
        leaves = sorted({nic.peer_switch for _, nic in cas})
        for node, nic in cas:
            counters.reset_counters(cl, node, nic, rail_gbps)
            counters.reset_switch_counters(cl, nic.peer_switch, nic.peer_port, cables)
        for leaf in leaves:
            for k, spine in enumerate(cables.spines):
                counters.reset_switch_counters(cl, leaf, links.DOWNLINKS + 1 + k, cables)
                counters.reset_switch_counters(cl, spine, cables.leaves.index(leaf) + 1, cables)
        ctx.outln(f"## Summary: {len(cas) + len(leaves) + len(cables.spines)} nodes cleared 0 errors")
        return 0


def commands() -> list[Command]:
    return [Sminfo(), Ibclearcounters()]
