"""The topology of the fabric the local port reaches: ``ibnetdiscover`` (a topology file or node lists), ``ibhosts`` and ``ibswitches``."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from emulator.cluster import links
from emulator.commands.fabric.diag import DiagCommand
from emulator.commands.fabric.discovery import add_port_options, local_fabric
from emulator.commands.kit.command import Command, Context, Outcome
from emulator.commands.kit.spec import ArgumentParser

if TYPE_CHECKING:  # pragma: no cover
    from emulator.cluster.hardware import NIC
    from emulator.cluster.model import Node


class Ibhosts(DiagCommand):
    name = "ibhosts"
    directory = "/usr/sbin"
    summary = "show InfiniBand host (CA) nodes in the fabric"
    section = "Fabric"

    def configure(self, parser: ArgumentParser) -> None:
        add_port_options(parser)

    def execute(self, ctx: Context, args: argparse.Namespace) -> Outcome:
        fabric = local_fabric(ctx, args, "/usr/sbin/ibnetdiscover")
        for node, nic in fabric[1]:
            ctx.outln(f"Ca\t: {nic.node_guid} ports 1 \"{node.name} {nic.name}\"")
        return 0


class Ibswitches(DiagCommand):
    name = "ibswitches"
    directory = "/usr/sbin"
    summary = "show InfiniBand switch nodes in the fabric"
    section = "Fabric"

    def configure(self, parser: ArgumentParser) -> None:
        add_port_options(parser)

    def execute(self, ctx: Context, args: argparse.Namespace) -> Outcome:
        local_fabric(ctx, args, "/usr/sbin/ibnetdiscover")  # fails when no local port is up
        cl = ctx.cluster
        for name in sorted(cl.switches):
            ctx.outln(f"Switch\t: {links.switch_guid(cl, name)} ports 64 \"{name}\" enhanced port 0 "
                          f"lid {links.switch_lid(cl, name)} lmc 0")
        return 0


class Ibnetdiscover(DiagCommand):
    name = "ibnetdiscover"
    directory = "/usr/sbin"
    summary = "discover the InfiniBand topology and print it as a topology file"
    section = "Fabric"

    def configure(self, parser: ArgumentParser) -> None:
        parser.add_argument("-l", "--list", action="store_true", help="list of connected nodes")
        parser.add_argument("-H", "--Hca_list", action="store_true", help="list of connected CAs")
        parser.add_argument("-S", "--Switch_list", action="store_true", help="list of connected switches")
        add_port_options(parser)

    def execute(self, ctx: Context, args: argparse.Namespace) -> Outcome:
        fabric = local_fabric(ctx, args, self.name)
        cl = ctx.cluster
        local, cas = fabric
        by_leaf: dict[str, list[tuple[Node, NIC]]] = {}
        for node, nic in cas:
            by_leaf.setdefault(nic.peer_switch, []).append((node, nic))
        leaves = sorted(by_leaf)
        spines = sorted(name for name, (kind, _) in cl.switches.items() if kind == "spine")
        all_leaves = sorted(name for name, (kind, _) in cl.switches.items() if kind == "leaf")
        if args.list or args.Hca_list or args.Switch_list:
            if args.list or args.Switch_list:
                for sw in leaves + spines:
                    g = links.switch_guid(cl, sw)
                    ctx.outln(f"Switch    : {g} ports 64 \"{sw}\" enhanced port 0 lid {links.switch_lid(cl, sw)} "
                              "lmc 0")
            if args.list or args.Hca_list:
                for node, nic in cas:
                    ctx.outln(f"Ca        : {nic.node_guid} ports 1 \"{node.name} {nic.name}\"")
            return 0
        o = ctx.outln
        o("#")
        o(f"# Topology file: generated on {ctx.clock.now():%a %b %d %H:%M:%S %Y}")
        o("#")
        o(f"# Initiated from node {local.node_guid[2:]} port {local.port_guid[2:]}")
        for sw in leaves + spines:
            g = links.switch_guid(cl, sw)[2:]
            o("")
            o("vendid=0x2c9")
            o("devid=0xd2f2")
            o(f"sysimgguid=0x{g}")
            o(f"switchguid=0x{g}({g})")
            o(f'Switch\t64 "S-{g}"\t\t# "{sw}" enhanced port 0 lid {links.switch_lid(cl, sw)} lmc 0')
            if sw in by_leaf:
                for node, nic in sorted(by_leaf[sw], key=lambda item: item[1].peer_port):
                    width, speed = nic.width.lower(), links.speed_name(nic)
                    o(f'[{nic.peer_port}]\t"H-{nic.node_guid[2:]}"[1]({nic.port_guid[2:]}) \t\t'
                      f'# "{node.name} {nic.name}" lid {nic.lid} {width}{speed}')
                for k, spine in enumerate(spines):
                    sg = links.switch_guid(cl, spine)[2:]
                    o(f'[{links.DOWNLINKS + 1 + k}]\t"S-{sg}"[{all_leaves.index(sw) + 1}]\t\t'
                      f'# "{spine}" lid {links.switch_lid(cl, spine)} 4xNDR')
            else:
                for leaf in leaves:
                    lg = links.switch_guid(cl, leaf)[2:]
                    o(f'[{all_leaves.index(leaf) + 1}]\t"S-{lg}"[{links.DOWNLINKS + 1 + spines.index(sw)}]\t\t'
                      f'# "{leaf}" lid {links.switch_lid(cl, leaf)} 4xNDR')
        for node, nic in cas:
            g = nic.node_guid[2:]
            lg = links.switch_guid(cl, nic.peer_switch)[2:]
            o("")
            o("vendid=0x2c9")
            o("devid=0x1021")
            o(f"sysimgguid=0x{g}")
            o(f"caguid=0x{g}")
            o(f'Ca\t1 "H-{g}"\t\t# "{node.name} {nic.name}"')
            o(f'[1]({nic.port_guid[2:]}) \t"S-{lg}"[{nic.peer_port}]\t\t# lid {nic.lid} lmc 0 '
              f'"{nic.peer_switch}" lid {links.switch_lid(cl, nic.peer_switch)} {nic.width.lower()}'
              f'{links.speed_name(nic)}')
        return 0


def commands() -> list[Command]:
    return [Ibnetdiscover(), Ibhosts(), Ibswitches()]
