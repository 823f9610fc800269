"""``perfquery``: one port's PMA counters, local or by LID/GUID, read and reset.

A target LID may be a compute port, a switch port or the subnet manager's own
port on the rail; the counters come from :mod:`emulator.cluster.counters` at
the simulated instant, so a reset here shows in every other view.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from emulator.cluster import counters, links
from emulator.cluster.hardware import NIC
from emulator.commands.fabric.devices import ADDL_PORT_CTRS_EXT, SWITCH_PMA_CAPS, device, devices, is_up, pma_caps
from emulator.commands.fabric.diag import DiagCommand, fake_pid
from emulator.commands.kit.command import Command, Context, Outcome
from emulator.commands.kit.spec import ArgumentParser

if TYPE_CHECKING:  # pragma: no cover
    from emulator.cluster.model import Cluster, Node


def nic_by_lid(cluster: Cluster, lid: int) -> tuple[Node, NIC] | None:
    """The compute port holding ``lid`` (LIDs are assigned 100 + 8 per node + rail)."""
    if lid < 100:
        return None
    index, rail = divmod(lid - 100, 8)
    for node in cluster.compute_nodes:
        if node.index == index + 1:
            for nic in node.nics:
                if nic.role == "compute" and nic.lid == lid and links.port_active(node, nic):
                    return node, nic
    return None


def nic_by_guid(cluster: Cluster, guid: str) -> tuple[Node, NIC] | None:
    want = int(guid, 16)
    for node in cluster.compute_nodes:
        for nic in node.nics:
            if nic.link_layer == "InfiniBand" and int(nic.port_guid, 16) == want and links.port_active(node, nic):
                return node, nic
    return None


#: Basic PortCounters in print order with their widths in bits (they saturate).
BASIC_FIELDS = (
    ("SymbolErrorCounter", 16), ("LinkErrorRecoveryCounter", 8), ("LinkDownedCounter", 8), ("PortRcvErrors", 16),
    ("PortRcvRemotePhysicalErrors", 16), ("PortRcvSwitchRelayErrors", 16), ("PortXmitDiscards", 16),
    ("PortXmitConstraintErrors", 8), ("PortRcvConstraintErrors", 8), ("CounterSelect2", 0),
    ("LocalLinkIntegrityErrors", 4), ("ExcessiveBufferOverrunErrors", 4), ("QP1Dropped", 16), ("VL15Dropped", 16),
    ("PortXmitData", 32), ("PortRcvData", 32), ("PortXmitPkts", 32), ("PortRcvPkts", 32), ("PortXmitWait", 32),
)


#: PortCountersExtended in print order: the 64-bit data and packet counters every port here has
#: (IB_PC_EXT_FIRST_F to IB_PC_EXT_LAST_F), then the 64-bit error counters a port advertising
#: IsAdditionalPortCountersExtendedSupported adds (IB_PC_EXT_COUNTER_SELECT2_F to IB_PC_EXT_ERR_LAST_F).
EXTENDED_DATA_FIELDS = links.DATA_COUNTERS
EXTENDED_ERROR_FIELDS = (
    "CounterSelect2", "SymbolErrorCounter", "LinkErrorRecoveryCounter", "LinkDownedCounter",
    "PortRcvErrors", "PortRcvRemotePhysicalErrors", "PortRcvSwitchRelayErrors", "PortXmitDiscards",
    "PortXmitConstraintErrors", "PortRcvConstraintErrors", "LocalLinkIntegrityErrors",
    "ExcessiveBufferOverrunErrors", "VL15Dropped", "PortXmitWait", "QP1Dropped",
)


def dotted(name: str, value: object) -> str:
    """``PortXmitData:....................123`` (mad_dump field layout)."""
    return f"{name}:".ljust(33, ".") + str(value)


class Perfquery(DiagCommand):
    name = "perfquery"
    directory = "/usr/sbin"
    summary = "query InfiniBand port counters on a single port"
    section = "Fabric"
    usage_args = "[<lid|guid> [[port(s)] [reset_mask]]]"
    notes = ("Examples:\n  perfquery               # read local port performance counters\n"
             "  perfquery -x 32 1        # read extended counters of lid 32 port 1\n"
             "  perfquery -C mlx5_3 -P 1 # read counters of the local port mlx5_3:1\n"
             "  perfquery -R             # reset the local port's counters\n"
             "PortXmitData and PortRcvData count 4-byte words.")

    def configure(self, parser: ArgumentParser) -> None:
        parser.add_argument("-x", "--extended", action="store_true", help="show extended port counters")
        parser.add_argument("-r", "--reset_after_read", action="store_true", help="reset counters after read")
        parser.add_argument("-R", "--Reset_only", action="store_true", help="only reset counters")
        parser.add_argument("-a", "--all_ports", action="store_true", help="show aggregated counters")
        parser.add_argument("-G", "--Guid", action="store_true", help="use GUID address argument")
        parser.add_argument("-C", "--Ca", metavar="CA", help="Ca name to use")
        parser.add_argument("-P", "--Port", metavar="PORT", help="Ca port number to use")
        parser.add_argument("target", nargs="?", metavar="lid|guid", help="destination port (default: local port)")
        parser.add_argument("port", nargs="?", help="port number at the destination (default 1)")
        parser.add_argument("reset_mask", nargs="?", help="counters to reset (all by default)")

    def execute(self, ctx: Context, args: argparse.Namespace) -> Outcome:
        pid = fake_pid(ctx, self.name)
        ib = [n for n in devices(ctx) if n.link_layer == "InfiniBand"]
        ca, ca_port = args.Ca, args.Port or "1"
        local: NIC | None
        if ca:
            local = device(ctx, ca)
        else:
            local = next((n for n in ib if is_up(n)), ib[0] if ib else None)
        if local is None or local.link_layer != "InfiniBand" or ca_port != "1":
            name = ca if ca else "(null)"
            num = ca_port if ca else "0"
            raise ctx.fail(f"ibwarn: [{pid}] mad_rpc_open_port: can't open UMAD port ({name}:{num})\n"
                           f"perfquery: iberror: failed: Failed to open '{name}' port '{num}'", 255)
        if not is_up(local):
            raise ctx.fail(f"ibwarn: [{pid}] _do_madrpc: send failed; Invalid argument\n"
                           f"ibwarn: [{pid}] mad_rpc: _do_madrpc failed; dport (Lid 0)\n"
                           "perfquery: iberror: failed: classportinfo query", 255)
        cl = ctx.cluster
        found: tuple[Node, NIC] | None = (ctx.host, local)
        switch: str | None = None
        sm_rail: int | None = None  # the rail whose subnet manager answers at the target LID
        shown = str(local.lid)
        if args.target is not None:
            try:
                if args.Guid:
                    found = nic_by_guid(cl, args.target)
                    shown = args.target
                else:
                    lid = int(args.target, 0)
                    found, shown = nic_by_lid(cl, lid), str(lid)
                    switch = links.switch_by_lid(cl, lid) if found is None else None
                    sm_rail = local.rail if lid == local.sm_lid else None
            except ValueError:
                raise ctx.fail(f"perfquery: iberror: [{pid}] main: can't resolve destination port {args.target}",
                               255) from None
        port = args.port or "1"
        valid_port = port.isdecimal() and (links.switch_port_exists(cl, switch, int(port)) if switch else port == "1")
        if (found is None and switch is None and sm_rail is None) or not valid_port:
            raise ctx.fail(f"ibwarn: [{pid}] _do_madrpc: recv failed: Connection timed out\n"
                           f"ibwarn: [{pid}] mad_rpc: _do_madrpc failed; dport (Lid {shown})\n"
                           "perfquery: iberror: failed: classportinfo query", 255)
        caps = SWITCH_PMA_CAPS
        if sm_rail is not None:
            # The subnet manager's own HCA port on this rail's subnet.
            values = counters.sm_counters(cl, sm_rail)
            lid, number = local.sm_lid, 1
        elif switch is not None:
            values = counters.switch_counters(cl, switch, int(port))
            lid, number = links.switch_lid(cl, switch), int(port)
        else:
            assert found is not None
            node, nic = found
            values = counters.counters(cl, node, nic)
            lid, number, caps = nic.lid, 1, pma_caps(nic)
        if not args.Reset_only:
            self._print(ctx, values, lid, number, args.extended, caps)
        if args.reset_after_read or args.Reset_only:
            if sm_rail is not None:
                counters.reset_sm_counters(cl, sm_rail)
            elif switch is not None:
                counters.reset_switch_counters(cl, switch, number)
            else:
                counters.reset_counters(cl, node, nic)
        return 0

    @staticmethod
    def _print(ctx: Context, values: dict[str, int], lid: int, port: int, extended: bool,
               caps: tuple[int, int]) -> None:
        capmask, capmask2 = caps
        if extended:
            # perfquery.c dump_perfcounters: "(CapMask: 0x%02X CapMask2: 0x%07X)", then the error
            # counters only where CapMask2 advertises them (dump_perfcounters_ext).
            ctx.outln(f"# Port extended counters: Lid {lid} port {port} (CapMask: 0x{capmask:02X} "
                      f"CapMask2: 0x{capmask2:07X})")
            ctx.outln(dotted("PortSelect", port))
            ctx.outln(dotted("CounterSelect", "0x0000"))
            for name in EXTENDED_DATA_FIELDS:
                ctx.outln(dotted(name, values.get(name, 0)))
            for name in EXTENDED_ERROR_FIELDS if capmask2 & ADDL_PORT_CTRS_EXT else ():
                ctx.outln(dotted(name, "0x00000000" if name == "CounterSelect2" else values.get(name, 0)))
            return
        ctx.outln(f"# Port counters: Lid {lid} port {port} (CapMask: 0x{capmask:02X})")
        ctx.outln(dotted("PortSelect", port))
        ctx.outln(dotted("CounterSelect", "0x0000"))
        for name, bits in BASIC_FIELDS:
            ctx.outln(dotted(name, "0x00" if name == "CounterSelect2" else counters.clamp(values.get(name, 0), bits)))


def commands() -> list[Command]:
    return [Perfquery()]
