"""Fabric discovery from the current host's port, as the scanning tools see it.

The compute fabric is one subnet: every rail's LIDs are unique across the
fabric (``NIC.lid``), every port reports the one subnet manager at LID 1, and
the spines are cabled to every rail's leaves. Discovery from any local port
therefore reaches every compute node's port on every rail, every leaf and the
spines. The storage ports are Ethernet (RoCE) and not on the subnet. Ports
that are down are not discovered, as on a real subnet. ``iblinkinfo``, ``ibqueryerrors``,
``ibnetdiscover``, ``sminfo`` and ``ibclearcounters`` read it here, with the
trained width and speed of each link and the hint when it trained low.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from emulator.cluster import links
from emulator.cluster.hardware import NIC
from emulator.commands.fabric.devices import devices, is_up
from emulator.commands.fabric.diag import fake_pid
from emulator.commands.kit.command import Context
from emulator.commands.kit.spec import ArgumentParser

if TYPE_CHECKING:  # pragma: no cover
    from emulator.cluster.model import Node


#: Per-lane signalling rate as iblinkinfo prints it, by IBTA speed name.
LANE_TEXT = {"SDR": "2.5 Gbps", "QDR": "10.0 Gbps", "FDR": "14.0625 Gbps", "EDR": "25.78125 Gbps",
             "HDR": "53.125 Gbps", "NDR": "106.25 Gbps", "XDR": "212.5 Gbps"}
#: Leaf-to-spine links train at the full NDR 4X rate.
UPLINK = ("4X", "NDR")


def trained_as(node: Node, nic: NIC) -> tuple[str, str] | None:
    """(width, speed name) a port trained at, None when its link is down."""
    return (nic.width.upper(), links.speed_name(nic)) if links.port_active(node, nic) else None


def could_be(nic: NIC) -> str:
    """iblinkinfo's hint when a link trained below what both ends support."""
    if nic.width.upper() != "4X":
        return "Could be 4X"
    if nic.rate_gbps < nic.max_rate_gbps:
        return f"Could be {LANE_TEXT['NDR']}"
    return ""


def fabric_cas(ctx: Context, ca: str | None = None) -> tuple[NIC, list[tuple[Node, NIC]]] | None:
    """The local active IB port (``ca``'s, or the first) and every CA port of the subnet, rail by rail."""
    local = next((n for n in devices(ctx) if n.link_layer == "InfiniBand" and is_up(n) and ca in (None, n.name)),
                 None)
    if local is None:
        return None
    found = [(node, nic) for node, nic in subnet_ports(ctx) if links.port_active(node, nic)]
    return local, found


def subnet_ports(ctx: Context) -> list[tuple[Node, NIC]]:
    """Every compute (rail) port cabled to the subnet, up or down, ordered by rail then node."""
    ports = [(node, nic) for node in ctx.cluster.compute_nodes for nic in node.nics if nic.role == "compute"]
    return sorted(ports, key=lambda item: (item[1].rail or 0, item[0].index))


def discover_failed(ctx: Context, tool: str, ca: str | None = None, port: str | None = None) -> Exception:
    """The error to raise when no local port is up to discover from, in the tool's words."""
    return ctx.fail(f"ibwarn: [{fake_pid(ctx, tool)}] mad_rpc_open_port: can't open UMAD port "
                    f"({ca or '(null)'}:{port or 0})\n{tool}: iberror: failed: discover failed", 255)


def add_port_options(parser: ArgumentParser) -> None:
    """The local CA and port every infiniband-diags tool sends from (``-C ca -P port``)."""
    parser.add_argument("-C", "--Ca", metavar="CA", help="Ca name to use")
    parser.add_argument("-P", "--Port", metavar="PORT", help="Ca port number to use")


def local_fabric(ctx: Context, args: argparse.Namespace, tool: str) -> tuple[NIC, list[tuple[Node, NIC]]]:
    """:func:`fabric_cas` from the port ``-C``/``-P`` name, or the tool's error when it cannot be opened."""
    fabric = fabric_cas(ctx, args.Ca) if args.Port in (None, "1") else None
    if fabric is None:
        raise discover_failed(ctx, tool, args.Ca, args.Port)
    return fabric
