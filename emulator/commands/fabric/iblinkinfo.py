"""``iblinkinfo``: every switch port of the subnet (all rails' leaves and the spines), with the link's width, lane speed and far end."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from emulator.cluster import links
from emulator.commands.fabric.devices import device, devices, is_up
from emulator.commands.fabric.diag import DiagCommand, fake_pid
from emulator.commands.fabric.discovery import LANE_TEXT, UPLINK, could_be, subnet_ports, trained_as
from emulator.commands.kit.command import Command, Context, Outcome
from emulator.commands.kit.spec import ArgumentParser

if TYPE_CHECKING:  # pragma: no cover
    from emulator.cluster.hardware import NIC
    from emulator.cluster.model import Node


def _link(lid: int, port: int, trained: tuple[str, str] | None, peer_lid: int, peer_port: int, peer: str,
          note: str) -> str:
    """One iblinkinfo line; ``trained`` is (width, speed name), None for a link that is down."""
    head = f"{'':6}{lid:>6} {port:>4}[  ] ==("
    if trained is None:
        return f"{head}{'Down':>20}/ Polling)==>{'':13}[  ] \"\" ( )"
    width, speed = trained
    return (f"{head}{width:>3} {LANE_TEXT.get(speed, ''):>19} Active/  LinkUp)==>  {peer_lid:>6} {peer_port:>4}[  ] "
            f"\"{peer}\" ( {note})")


class Iblinkinfo(DiagCommand):
    name = "iblinkinfo"
    directory = "/usr/sbin"
    summary = "report link info for all links in the fabric"
    section = "Fabric"
    usage_args = ""
    notes = ("Lists every switch port of the fabric the local port reaches (or the CA ports with --cas-only),\n"
             "with width, lane speed and state of each link and the node at the other end.")

    def configure(self, parser: ArgumentParser) -> None:
        parser.add_argument("--switches-only", action="store_true", help="Show only switches")
        parser.add_argument("--cas-only", action="store_true", help="Show only CAs")
        parser.add_argument("-d", "--downports", action="store_true", help="print only down links")
        parser.add_argument("-C", "--Ca", metavar="CA", help="Ca name to use")

    def execute(self, ctx: Context, args: argparse.Namespace) -> Outcome:
        cl = ctx.cluster
        pid = fake_pid(ctx, self.name)
        ib = [n for n in devices(ctx) if n.link_layer == "InfiniBand"]
        local = device(ctx, args.Ca) if args.Ca else next((n for n in ib if is_up(n)), None)
        if local is None or local.link_layer != "InfiniBand" or not is_up(local):
            raise ctx.fail(f"ibwarn: [{pid}] mad_rpc_open_port: can't open UMAD port ({args.Ca or '(null)'}:0)\n"
                           "iblinkinfo: iberror: failed: discover failed", 255)
        ports: dict[str, list[tuple[Node, NIC]]] = {}
        for node, nic in subnet_ports(ctx):
            ports.setdefault(nic.peer_switch, []).append((node, nic))
        leaves = sorted(ports)
        spines = sorted(name for name, (kind, _) in cl.switches.items() if kind == "spine")
        all_leaves = sorted(name for name, (kind, _) in cl.switches.items() if kind == "leaf")
        if args.cas_only:
            for leaf in leaves:
                for node, nic in ports[leaf]:
                    if links.port_active(node, nic) and not args.downports:  # a CA behind a down link is not discovered
                        ctx.outln(f"CA: {node.name} {nic.name}:")
                        ctx.outln(_link(nic.lid, 1, trained_as(node, nic), links.switch_lid(cl, leaf), nic.peer_port, leaf,
                                        could_be(nic)))
            return 0
        for leaf in leaves:
            lid = links.switch_lid(cl, leaf)
            shown = [(node, nic) for node, nic in sorted(ports[leaf], key=lambda item: item[1].peer_port)
                     if not (args.downports and links.port_active(node, nic))]
            if args.downports and not shown:  # -d heads only the switches that have a down port
                continue
            ctx.outln(f"Switch: {links.switch_guid(cl, leaf)} {leaf}:")
            for node, nic in shown:
                ctx.outln(_link(lid, nic.peer_port, trained_as(node, nic), nic.lid, 1, f"{node.name} {nic.name}",
                                could_be(nic)))
            if not args.downports:
                for k, spine in enumerate(spines):
                    ctx.outln(_link(lid, 33 + k, UPLINK, links.switch_lid(cl, spine), all_leaves.index(leaf) + 1,
                                    spine, ""))
        if not args.downports:
            for spine in spines:
                lid = links.switch_lid(cl, spine)
                ctx.outln(f"Switch: {links.switch_guid(cl, spine)} {spine}:")
                for leaf in leaves:
                    ctx.outln(_link(lid, all_leaves.index(leaf) + 1, UPLINK, links.switch_lid(cl, leaf),
                                    33 + spines.index(spine), leaf, ""))
        return 0


def commands() -> list[Command]:
    return [Iblinkinfo()]
