"""Fabric tools: InfiniBand diagnostics (infiniband-diags, rdma-core, MFT) and
the Linux network views (iproute2, ethtool) of the current host's ports.

Every value comes from the host's NICs in the cluster model and from
:mod:`emulator.cluster.links` (rates, counters at the simulated instant,
resets), so one port reads the same in ``ibstat``, ``ibstatus``,
``ibv_devinfo``, ``perfquery``, ``mlxlink``, ``rdma link`` and ``ip link``.
Formats follow MLNX_OFED 23.10 (rdma-core 2307mlnx47, MFT 4.26).
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Generator
from typing import TYPE_CHECKING

from ..cluster import links
from ..cluster.hardware import NIC
from ..cluster.ids import rng
from .base import ArgumentParser, Command, Context, Outcome

if TYPE_CHECKING:  # pragma: no cover
    from ..cluster.model import Cluster, Node

#: ConnectX-7 identifiers as the verbs and diag tools print them.
VENDOR_ID = 0x02C9
VENDOR_PART_ID = 4129
IB_CAPMASK = 0xA751E848
ETH_CAPMASK = 0x00010000
PMA_CAPMASK = "0x5A00"
MFT_VERSION = "mft 4.26.1-3"
IBDIAGNET_VERSION = "2.13.0.MLNX20231105.fc5eb6b1"

PORT_STATE_NUM = {"Down": 1, "Initializing": 2, "Armed": 3, "Active": 4}
PHYS_STATE_NUM = {"Sleep": 1, "Polling": 2, "Disabled": 3, "PortConfigurationTraining": 4, "LinkUp": 5,
                  "LinkErrorRecovery": 6, "PhyTest": 7}


# -- shared helpers -------------------------------------------------------------------


def getopt_error(prog: str, message: str) -> str:
    """An argparse message in getopt's words (``invalid option -- 'z'``)."""
    m = re.search(r"unrecognized arguments: (\S+)", message)
    if m:
        opt = m.group(1)
        if opt.startswith("--"):
            return f"{prog}: unrecognized option '{opt}'"
        if opt.startswith("-"):
            return f"{prog}: invalid option -- '{opt[1:2]}'"
        return f"{prog}: extra operand '{opt}'"
    m = re.search(r"argument (-\w)(?:/\S+)?: expected one argument", message)
    if m:
        return f"{prog}: option requires an argument -- '{m.group(1)[1:]}'"
    return f"{prog}: {message}"


def devices(ctx: Context) -> list[NIC]:
    """The host's RDMA devices in name order (``mlx5_0`` ... ``mlx5_9``)."""
    return sorted(ctx.host.nics, key=lambda n: int(n.name.rsplit("_", 1)[1]))


def device(ctx: Context, name: str) -> NIC | None:
    for nic in ctx.host.nics:
        if nic.name == name:
            return nic
    return None


def is_up(nic: NIC) -> bool:
    return nic.state == "Active"


def colon_guid(guid: str) -> str:
    """``0xa088c20300e2ba22`` -> ``a088:c203:00e2:ba22`` (ibv_devinfo, rdma)."""
    h = guid[2:].rjust(16, "0")
    return ":".join(h[i:i + 4] for i in range(0, 16, 4))


def eui64(mac: str) -> str:
    """The EUI-64 interface id of a MAC address, as 16 hex digits."""
    octets = [int(o, 16) for o in mac.split(":")]
    octets[0] ^= 0x02
    return "".join(f"{o:02x}" for o in octets[:3] + [0xFF, 0xFE] + octets[3:])


def link_local(interface_id: str, flip: bool = True) -> str:
    """``fe80::a288:c203:e2:ba22/64`` from a 64-bit interface id (U/L bit flipped for a GUID)."""
    value = int(interface_id, 16) ^ ((0x02 << 56) if flip else 0)
    h = f"{value:016x}"
    return "fe80::" + ":".join(f"{int(h[i:i + 4], 16):x}" for i in range(0, 16, 4)) + "/64"


def port_guid(nic: NIC) -> str:
    """Port GUID: the IB port's own, or the MAC-derived one of a RoCE port."""
    if nic.link_layer == "Ethernet" and nic.mac:
        return "0x" + eui64(nic.mac)
    return nic.port_guid


def default_gid(nic: NIC) -> str:
    """The port's GID 0 (link-local prefix plus port GUID), as ibstatus prints it."""
    h = port_guid(nic)[2:].rjust(16, "0")
    return "fe80:0000:0000:0000:" + ":".join(h[i:i + 4] for i in range(0, 16, 4))


def fake_pid(ctx: Context, tool: str) -> int:
    """A process id for diag warnings: stable for a host, tool and instant."""
    return rng(ctx.cluster.seed, ctx.host.name, tool, round(ctx.clock.elapsed, 3)).randint(20_000, 90_000)


def nic_by_lid(cluster: Cluster, lid: int) -> tuple[Node, NIC] | None:
    """The compute port holding ``lid`` (LIDs are assigned 100 + 8 per node + rail)."""
    if lid < 100:
        return None
    index, rail = divmod(lid - 100, 8)
    for node in cluster.compute_nodes:
        if node.index == index + 1:
            for nic in node.nics:
                if nic.role == "compute" and nic.lid == lid and is_up(nic):
                    return node, nic
    return None


def nic_by_guid(cluster: Cluster, guid: str) -> tuple[Node, NIC] | None:
    want = int(guid, 16)
    for node in cluster.compute_nodes:
        for nic in node.nics:
            if nic.link_layer == "InfiniBand" and int(nic.port_guid, 16) == want and is_up(nic):
                return node, nic
    return None


class DiagCommand(Command):
    """An infiniband-diags/rdma-core tool: getopt wording, status 255 on failure."""

    usage_status = 2
    usage_args = ""

    def usage_error(self, message: str) -> str:
        return f"{getopt_error(self.name, message)}\nUsage: {self.name} [options] {self.usage_args}".rstrip()


# -- ibstat ---------------------------------------------------------------------------


def ibstat_port(nic: NIC, pre: str) -> list[str]:
    hdr = pre[:-1] if pre else ""
    rate = nic.rate_gbps
    return [
        f"{hdr}Port 1:",
        f"{pre}State: {nic.state}",
        f"{pre}Physical state: {nic.phys_state}",
        f"{pre}Rate: {rate}",
        f"{pre}Base lid: {links.port_lid(nic)}",
        f"{pre}LMC: 0",
        f"{pre}SM lid: {links.port_sm_lid(nic)}",
        f"{pre}Capability mask: 0x{IB_CAPMASK if nic.link_layer == 'InfiniBand' else ETH_CAPMASK:08x}",
        f"{pre}Port GUID: {port_guid(nic)}",
        f"{pre}Link layer: {nic.link_layer}",
    ]


class Ibstat(DiagCommand):
    name = "ibstat"
    summary = "query basic status of InfiniBand device(s)"
    section = "Fabric"
    usage_args = "<ca_name> [portnum]"
    notes = "Examples:\n  ibstat -l       # list all IB devices\n  ibstat mlx5_3 1 # stat port 1 of 'mlx5_3'"

    def configure(self, parser: ArgumentParser) -> None:
        parser.add_argument("-l", "--list_of_cas", action="store_true", help="list all IB devices")
        parser.add_argument("-s", "--short", action="store_true", help="short output")
        parser.add_argument("-p", "--port_list", action="store_true", help="show port list")
        parser.add_argument("ca_name", nargs="?", help="the device to show (all by default)")
        parser.add_argument("portnum", nargs="?", help="the port to show")

    def execute(self, ctx: Context, args: argparse.Namespace | None) -> Outcome:
        assert args is not None
        pid = fake_pid(ctx, self.name)
        chosen = devices(ctx)
        if not chosen:
            raise ctx.fail(f"ibpanic: [{pid}] main: can't list IB device names", 255)
        if args.ca_name:
            nic = next((n for n in chosen if args.ca_name.startswith(n.name)), None)
            if nic is None:
                raise ctx.fail(f"ibpanic: [{pid}] main: '{args.ca_name}' IB device can't be found", 255)
            chosen = [nic]
        if args.port_list:
            for nic in chosen:
                ctx.outln(port_guid(nic))
            return 0
        for nic in chosen:
            if args.list_of_cas:
                ctx.outln(nic.name)
                continue
            if args.portnum is not None and not args.short:
                try:
                    port = int(args.portnum, 0)
                except ValueError:
                    port = 0
                if port != 1:
                    raise ctx.fail(f"ibwarn: [{pid}] ca_stat: CA: '{nic.name}' has no port number {port} - max (1)\n"
                                   f"ibpanic: [{pid}] main: stat of IB device '{nic.name}' failed", 255)
                ctx.outln(f"CA: '{nic.name}'")
                for line in ibstat_port(nic, ""):
                    ctx.outln(line)
                continue
            ctx.outln(f"CA '{nic.name}'")
            ctx.outln(f"\tCA type: {nic.ca_type}")
            ctx.outln("\tNumber of ports: 1")
            ctx.outln(f"\tFirmware version: {nic.firmware}")
            ctx.outln("\tHardware version: 0")
            ctx.outln(f"\tNode GUID: {nic.node_guid}")
            ctx.outln(f"\tSystem image GUID: {nic.node_guid}")
            if not args.short:
                for line in ibstat_port(nic, "\t\t"):
                    ctx.outln(line)
        return 0


# -- ibstatus -----------------------------------------------------------------------------


class Ibstatus(Command):
    name = "ibstatus"
    summary = "query basic status of InfiniBand device(s)"
    section = "Fabric"
    description = "Reads the port state from /sys/class/infiniband for each device[:port] named, or all."

    def configure(self, parser: ArgumentParser) -> None:
        parser.add_argument("devices", nargs="*", metavar="devname[:portnum]", help="devices (and ports) to show")

    def usage_error(self, message: str) -> str:
        return "Usage: ibstatus [-h] [devname1[:portnum]] [devname2[:portnum]]..."

    def execute(self, ctx: Context, args: argparse.Namespace | None) -> Outcome:
        assert args is not None
        status = 0
        for spec in args.devices or [n.name for n in devices(ctx)]:
            name, _, port = spec.partition(":")
            nic = device(ctx, name)
            if nic is None or port not in ("", "1"):
                what = f"{name}/ports/{port or ''}".rstrip("/")
                ctx.err(f"ls: cannot access '/sys/class/infiniband/{what}': No such file or directory\n")
                status = 2
                continue
            state, phys = nic.state.upper(), nic.phys_state
            ctx.outln(f"Infiniband device '{nic.name}' port 1 status:")
            ctx.outln(f"\tdefault gid:\t {default_gid(nic)}")
            ctx.outln(f"\tbase lid:\t 0x{links.port_lid(nic):x}")
            ctx.outln(f"\tsm lid:\t\t 0x{links.port_sm_lid(nic):x}")
            ctx.outln(f"\tstate:\t\t {PORT_STATE_NUM.get(nic.state, 1)}: {state}")
            ctx.outln(f"\tphys state:\t {PHYS_STATE_NUM.get(phys, 3)}: {phys}")
            ctx.outln(f"\trate:\t\t {links.rate_text(nic)}")
            ctx.outln(f"\tlink_layer:\t {nic.link_layer}")
            ctx.outln()
        return status


# -- verbs: ibv_devices, ibv_devinfo ---------------------------------------------------------


class IbvDevices(Command):
    name = "ibv_devices"
    summary = "list RDMA devices"
    section = "Fabric"

    def execute(self, ctx: Context, args: argparse.Namespace | None) -> Outcome:
        ctx.outln(f"    {'device':<16}\t   node GUID")
        ctx.outln(f"    {'------':<16}\t----------------")
        for nic in devices(ctx):
            ctx.outln(f"    {nic.name:<16}\t{nic.node_guid[2:]:0>16}")
        return 0


MTU_ENUM = {256: 1, 512: 2, 1024: 3, 2048: 4, 4096: 5}


def tabbed(indent: int, key: str, value: object, column: int) -> str:
    """``\tkey:\t\tvalue`` with tabs up to ``column``, as ibv_devinfo aligns its fields."""
    width = indent * 8 + len(key) + 1
    tabs = max(1, (column - width + 7) // 8)
    return "\t" * indent + f"{key}:" + "\t" * tabs + str(value)


class IbvDevinfo(Command):
    name = "ibv_devinfo"
    summary = "query RDMA devices"
    section = "Fabric"
    usage_status = 255

    def configure(self, parser: ArgumentParser) -> None:
        parser.add_argument("-d", "--ib-dev", metavar="DEVICE", help="use IB device DEVICE (default first device found)")
        parser.add_argument("-i", "--ib-port", metavar="PORT", help="use port PORT of IB device (default all ports)")
        parser.add_argument("-l", "--list", action="store_true", help="print only the IB devices names")
        parser.add_argument("-v", "--verbose", action="store_true", help="print all the attributes of the IB device(s)")

    def usage_error(self, message: str) -> str:
        return getopt_error(self.name, message) + f"\nUsage: {self.name}"

    def execute(self, ctx: Context, args: argparse.Namespace | None) -> Outcome:
        assert args is not None
        chosen = devices(ctx)
        if not chosen:
            raise ctx.fail("No IB devices found", 255)
        if args.list:
            ctx.outln(f"{len(chosen)} HCA{'s' if len(chosen) != 1 else ''} found:")
            for nic in chosen:
                ctx.outln(f"\t{nic.name}")
            return 0
        if args.ib_dev:
            named = device(ctx, args.ib_dev)
            if named is None:
                raise ctx.fail(f"IB device '{args.ib_dev}' wasn't found", 255)
            chosen = [named]
        if args.ib_port is not None and args.ib_port != "1":
            raise ctx.fail(f"Failed to query port {args.ib_port} props", 255)
        for nic in chosen:
            self._device(ctx, nic, args.verbose)
        return 0

    def _device(self, ctx: Context, nic: NIC, verbose: bool) -> None:
        o = ctx.outln
        o(f"hca_id:\t{nic.name}")
        o("\ttransport:\t\t\tInfiniBand (0)")
        o(f"\tfw_ver:\t\t\t\t{nic.firmware}")
        o(f"\tnode_guid:\t\t\t{colon_guid(nic.node_guid)}")
        o(f"\tsys_image_guid:\t\t\t{colon_guid(nic.node_guid)}")
        o(f"\tvendor_id:\t\t\t0x{VENDOR_ID:04x}")
        o(f"\tvendor_part_id:\t\t\t{VENDOR_PART_ID}")
        o("\thw_ver:\t\t\t\t0x0")
        o("\tboard_id:\t\t\tMT_0000000838")
        o("\tphys_port_cnt:\t\t\t1")
        if verbose:
            for key, value in (("max_mr_size", "0xffffffffffffffff"), ("page_size_cap", "0xfffffffffffff000"),
                               ("max_qp", "131072"), ("max_qp_wr", "32768"), ("max_cq", "16777216"),
                               ("max_cqe", "4194303"), ("max_mr", "16777216"), ("max_pd", "8388608")):
                o(tabbed(1, key, value, 40))
        mtu = 4096 if nic.link_layer == "InfiniBand" or nic.mtu >= 4096 else 1024
        active_mtu = mtu if is_up(nic) or nic.link_layer == "InfiniBand" else 1024
        o("\t\tport:\t1")
        o(f"\t\t\tstate:\t\t\tPORT_{nic.state.upper()} ({PORT_STATE_NUM.get(nic.state, 1)})")
        o(f"\t\t\tmax_mtu:\t\t4096 ({MTU_ENUM[4096]})")
        o(f"\t\t\tactive_mtu:\t\t{active_mtu} ({MTU_ENUM[active_mtu]})")
        o(f"\t\t\tsm_lid:\t\t\t{links.port_sm_lid(nic)}")
        o(f"\t\t\tport_lid:\t\t{links.port_lid(nic)}")
        o("\t\t\tport_lmc:\t\t0x00")
        o(f"\t\t\tlink_layer:\t\t{nic.link_layer}")
        if verbose:
            o("\t\t\tmax_msg_sz:\t\t0x40000000")
            o(f"\t\t\tport_cap_flags:\t\t0x{IB_CAPMASK if nic.link_layer == 'InfiniBand' else 0x04010000:08x}")
            o("\t\t\tport_cap_flags2:\t0x0000")
            o("\t\t\tmax_vl_num:\t\t4 (3)")
            o("\t\t\tbad_pkey_cntr:\t\t0x0")
            o("\t\t\tqkey_viol_cntr:\t\t0x0")
            o("\t\t\tsm_sl:\t\t\t0")
            o("\t\t\tpkey_tbl_len:\t\t128")
            o("\t\t\tgid_tbl_len:\t\t8" if nic.link_layer == "InfiniBand" else "\t\t\tgid_tbl_len:\t\t255")
            o("\t\t\tsubnet_timeout:\t\t18")
            o("\t\t\tinit_type_reply:\t0")
            width = nic.width.upper()
            o(f"\t\t\tactive_width:\t\t{width} ({links.WIDTH_ENUM.get(width, 2)})")
            lane = links.lane_gbps(nic)
            o(f"\t\t\tactive_speed:\t\t{lane:.1f} Gbps ({links.SPEED_ENUM.get(lane, 1)})")
            if nic.link_layer == "InfiniBand":
                phys = {"LinkUp": "LINK_UP", "Disabled": "DISABLED", "Polling": "POLLING"}.get(nic.phys_state, "DISABLED")
                o(f"\t\t\tphys_state:\t\t{phys} ({PHYS_STATE_NUM.get(nic.phys_state, 3)})")
            o(f"\t\t\tGID[  0]:\t\t{default_gid(nic)}" + (", RoCE v1" if nic.link_layer == "Ethernet" else ""))
        o("")


# -- perfquery -------------------------------------------------------------------------------

#: Basic PortCounters in print order with their widths in bits (they saturate).
BASIC_FIELDS = (
    ("SymbolErrorCounter", 16), ("LinkErrorRecoveryCounter", 8), ("LinkDownedCounter", 8), ("PortRcvErrors", 16),
    ("PortRcvRemotePhysicalErrors", 16), ("PortRcvSwitchRelayErrors", 16), ("PortXmitDiscards", 16),
    ("PortXmitConstraintErrors", 8), ("PortRcvConstraintErrors", 8), ("CounterSelect2", 0),
    ("LocalLinkIntegrityErrors", 4), ("ExcessiveBufferOverrunErrors", 4), ("QP1Dropped", 16), ("VL15Dropped", 16),
    ("PortXmitData", 32), ("PortRcvData", 32), ("PortXmitPkts", 32), ("PortRcvPkts", 32), ("PortXmitWait", 32),
)

#: PortCountersExtended in print order (64-bit data and error counters).
EXTENDED_FIELDS = (
    *links.DATA_COUNTERS, "CounterSelect2", "SymbolErrorCounter", "LinkErrorRecoveryCounter", "LinkDownedCounter",
    "PortRcvErrors", "PortRcvRemotePhysicalErrors", "PortRcvSwitchRelayErrors", "PortXmitDiscards",
    "PortXmitConstraintErrors", "PortRcvConstraintErrors", "LocalLinkIntegrityErrors",
    "ExcessiveBufferOverrunErrors", "VL15Dropped", "PortXmitWait", "QP1Dropped",
)


def dotted(name: str, value: object) -> str:
    """``PortXmitData:....................123`` (mad_dump field layout)."""
    return f"{name}:".ljust(33, ".") + str(value)


class Perfquery(DiagCommand):
    name = "perfquery"
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

    def execute(self, ctx: Context, args: argparse.Namespace | None) -> Outcome:
        assert args is not None
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
        found: tuple[Node, NIC] | None = (ctx.host, local)
        shown = str(local.lid)
        if args.target is not None:
            try:
                if args.Guid:
                    found = nic_by_guid(ctx.cluster, args.target)
                    shown = args.target
                else:
                    lid = int(args.target, 0)
                    found, shown = nic_by_lid(ctx.cluster, lid), str(lid)
            except ValueError:
                raise ctx.fail(f"perfquery: iberror: [{pid}] main: can't resolve destination port {args.target}",
                               255) from None
        port = args.port or "1"
        if found is None or port not in ("1", "255"):
            raise ctx.fail(f"ibwarn: [{pid}] _do_madrpc: recv failed: Connection timed out\n"
                           f"ibwarn: [{pid}] mad_rpc: _do_madrpc failed; dport (Lid {shown})\n"
                           "perfquery: iberror: failed: classportinfo query", 255)
        node, nic = found
        if not args.Reset_only:
            values = links.counters(ctx.cluster, node, nic)
            if args.extended:
                ctx.outln(f"# Port extended counters: Lid {nic.lid} port 1 (CapMask: {PMA_CAPMASK})")
                ctx.outln(dotted("PortSelect", 1))
                ctx.outln(dotted("CounterSelect", "0x0000"))
                for name in EXTENDED_FIELDS:
                    value = "0x00000000" if name == "CounterSelect2" else values.get(name, 0)
                    ctx.outln(dotted(name, value))
            else:
                ctx.outln(f"# Port counters: Lid {nic.lid} port 1 (CapMask: {PMA_CAPMASK})")
                ctx.outln(dotted("PortSelect", 1))
                ctx.outln(dotted("CounterSelect", "0x0000"))
                for name, bits in BASIC_FIELDS:
                    value = "0x00" if name == "CounterSelect2" else links.clamp(values.get(name, 0), bits)
                    ctx.outln(dotted(name, value))
        if args.reset_after_read or args.Reset_only:
            links.reset_counters(ctx.cluster, node, nic)
        return 0


# -- mlxlink ---------------------------------------------------------------------------------------


def _section(ctx: Context, title: str, rows: list[tuple[str, str]]) -> None:
    ctx.outln()
    ctx.outln(title)
    ctx.outln("-" * len(title))
    for key, value in rows:
        ctx.outln(f"{key:<32}: {value}")


class Mlxlink(Command):
    name = "mlxlink"
    summary = "check and debug link status (NVIDIA Firmware Tools)"
    section = "Fabric"
    usage_status = 1

    def configure(self, parser: ArgumentParser) -> None:
        parser.add_argument("-d", "--device", metavar="DEVICE", help="Perform operation for a specified mst device")
        parser.add_argument("-p", "--port", metavar="PORT", default="1", help="Port Number")
        parser.add_argument("-c", "--show_counters", action="store_true", help="Show Physical Counters and BER Info")
        parser.add_argument("--show_ber", action="store_true", help="Show Physical Counters and BER Info")
        parser.add_argument("-m", "--show_module", action="store_true", help="Show Module Info")
        parser.add_argument("-v", "--version", action="store_true", help="Display version info")

    def usage_error(self, message: str) -> str:
        return f"-E- {getopt_error(self.name, message).split(': ', 1)[1]}"

    def execute(self, ctx: Context, args: argparse.Namespace | None) -> Outcome:
        assert args is not None
        if args.version:
            ctx.outln(f"mlxlink, {MFT_VERSION}, built on Oct 31 2023, 15:47:42. Git SHA Hash: N/A")
            return 0
        if not args.device:
            raise ctx.fail("-E- Please provide a device name using -d", 1)
        nic = self._resolve(ctx, args.device)
        if nic is None:
            raise ctx.fail(f"-E- Failed to open device: \"{args.device}\", No such file or directory", 1)
        if args.port != "1":
            raise ctx.fail(f"-E- Invalid port number: {args.port}", 1)
        up = is_up(nic)
        ib = nic.link_layer == "InfiniBand"
        speed = (f"IB-{links.speed_name(nic)}" if ib else f"{nic.rate_gbps}G") if up else "N/A"
        fec = "N/A"
        if up:
            fec = ("Interleaved Standard RS-FEC - (544,514)" if links.speed_name(nic) == "NDR"
                   else "Standard RS-FEC - RS(544,514)")
        enabled = "0x000000f2 (NDR,HDR,EDR,FDR,SDR)" if ib else "0x000017f2 (200G,100G_2X,100G_4X,50G_1X,40G,25G,10G,1G)"
        _section(ctx, "Operational Info", [
            ("State", nic.state if up else ("Disable" if nic.phys_state == "Disabled" else "Polling")),
            ("Physical state", "LinkUp" if up else nic.phys_state),
            ("Speed", speed),
            ("Width", f"{links.lanes(nic)}x" if up else "N/A"),
            ("FEC", fec),
            ("Loopback Mode", "No Loopback"),
            ("Auto Negotiation", "ON"),
        ])
        _section(ctx, "Supported Info", [("Enabled Link Speed", enabled), ("Supported Cable Speed", enabled)])
        if up:
            opcode, group, advice = "0", "N/A", "No issue was observed"
        elif nic.phys_state == "Disabled":
            opcode, group, advice = "0", "N/A", "Port is disabled by command"
        else:
            opcode, group, advice = "1024", "PHY FW", "Cable is unplugged or the remote port is down"
        _section(ctx, "Troubleshooting Info",
                 [("Status Opcode", opcode), ("Group Opcode", group), ("Recommendation", advice)])
        _section(ctx, "Tool Information", [("Firmware Version", nic.firmware), ("amBER Version", "2.22"),
                                           ("MFT Version", MFT_VERSION)])
        if args.show_counters or args.show_ber:
            self._counters(ctx, nic)
        ctx.outln()
        return 0

    def _resolve(self, ctx: Context, spec: str) -> NIC | None:
        for nic in ctx.host.nics:
            bus = nic.pci_bus_id.lower()
            if spec.lower() in (nic.name, bus, bus[5:], bus[5:-2]):
                return nic
        return None

    def _counters(self, ctx: Context, nic: NIC) -> None:
        cl, node = ctx.cluster, ctx.host
        values = links.counters(cl, node, nic, rail_gbps=0.0)  # error counters only: traffic is not shown
        bits = links.bits_since_clear(cl, node, nic)
        raw = links.raw_ber(cl, node, nic) if is_up(nic) else 0.0
        lane_errors = int(raw * bits / max(1, links.lanes(nic)))
        per_lane = ",".join(str(lane_errors + k * (lane_errors // 7)) for k in range(links.lanes(nic)))
        symbols = values["SymbolErrorCounter"]
        _section(ctx, "Physical Counters and BER Info", [
            ("Time Since Last Clear [Min]", f"{links.seconds_since_clear(cl, node, nic) / 60:.1f}"),
            ("Effective Physical Errors", str(symbols)),
            ("Effective Physical BER", links.ber_text(links.symbol_ber(cl, node, nic))),
            ("Raw Physical Errors Per Lane", per_lane),
            ("Raw Physical BER", links.ber_text(raw)),
            ("Symbol Errors", str(symbols)),
            ("Symbol BER", links.ber_text(links.symbol_ber(cl, node, nic))),
            ("Link Down Counter", str(values["LinkDownedCounter"])),
            ("Link Error Recovery Counter", str(values["LinkErrorRecoveryCounter"])),
        ])


# -- rdma ---------------------------------------------------------------------------------------


class Rdma(Command):
    name = "rdma"
    summary = "RDMA tool (iproute2): show RDMA devices and links"
    section = "Fabric"
    parses_args = False

    def execute(self, ctx: Context, args: argparse.Namespace | None) -> Outcome:
        words = [w for w in ctx.argv[1:] if w not in ("-d", "-p", "-details", "-pretty")]
        if words and words[0] in ("-h", "--help", "help"):
            ctx.out("Usage: rdma [ OPTIONS ] OBJECT { COMMAND | help }\n"
                    "       rdma [ -f[orce] ] -b[atch] filename\n"
                    "where  OBJECT := { dev | link | resource | system | statistic | help }\n"
                    "       OPTIONS := { -V[ersion] | -d[etails] | -j[son] | -p[retty]}\n")
            return 0
        if not words:
            raise ctx.fail("Usage: rdma [ OPTIONS ] OBJECT { COMMAND | help }", 1)
        obj, rest = words[0], words[1:]
        if rest and rest[0] in ("show", "list", "sh", "s"):
            rest = rest[1:]
        want = rest[0] if rest else ""
        if "link".startswith(obj):
            shown = 0
            for nic in devices(ctx):
                if want and want not in (nic.name, f"{nic.name}/1"):
                    continue
                shown += 1
                state = "ACTIVE" if is_up(nic) else nic.state.upper()
                phys = {"LinkUp": "LINK_UP", "Disabled": "DISABLED", "Polling": "POLLING"}.get(nic.phys_state,
                                                                                            nic.phys_state.upper())
                ib = ""
                if nic.link_layer == "InfiniBand":
                    ib = f"subnet_prefix fe80:0000:0000:0000 lid {links.port_lid(nic)} sm_lid {links.port_sm_lid(nic)} lmc 0 "
                ctx.outln(f"link {nic.name}/1 {ib}state {state} physical_state {phys} netdev {nic.netdev}")
            if want and not shown:
                raise ctx.fail(f"Wrong device name\nUnknown device: {want.split('/')[0]}" if "/" not in want
                               else "Wrong device name", 1)
            return 0
        if "dev".startswith(obj):
            for i, nic in enumerate(devices(ctx)):
                if want and want != nic.name:
                    continue
                g = colon_guid(nic.node_guid)
                ctx.outln(f"{i}: {nic.name}: node_type ca fw {nic.firmware} node_guid {g} sys_image_guid {g}")
            return 0
        raise ctx.fail(f'Object "{obj}" is unknown, try "rdma help".', 1)


# -- ibdiagnet ------------------------------------------------------------------------------------

IBDIAG_DIR = "/var/tmp/ibdiagnet2"


class Ibdiagnet(Command):
    name = "ibdiagnet"
    summary = "scan the InfiniBand fabric and report problems (summary mode)"
    section = "Fabric"
    usage_status = 1
    notes = ("Runs discovery, LID, link, port-counter and speed/width checks over the fabric the local port\n"
             "reaches, then prints the summary table. Details go to /var/tmp/ibdiagnet2/ibdiagnet2.log.")

    def configure(self, parser: ArgumentParser) -> None:
        parser.add_argument("-i", "--device", metavar="DEVICE", help="local device to send from (default: first active)")
        parser.add_argument("-p", "--port", metavar="PORT", default="1", help="local port number")
        parser.add_argument("--pc", action="store_true", help="reset all the fabric port counters")
        parser.add_argument("-P", "--counter", metavar="NAME=VALUE", help="report counters above the threshold")
        parser.add_argument("--get_phy_info", action="store_true", help="collect BER information")
        parser.add_argument("-o", "--output_path", metavar="DIR", default=IBDIAG_DIR, help="output directory")

    def usage_error(self, message: str) -> str:
        return f"-E- {message}\n-I- For help use: ibdiagnet --help"

    def execute(self, ctx: Context, args: argparse.Namespace | None) -> Outcome:
        assert args is not None
        return self._run(ctx, args)

    def _run(self, ctx: Context, args: argparse.Namespace) -> Generator[float, None, int]:
        cl = ctx.cluster
        o = ctx.outln
        ib = [n for n in devices(ctx) if n.link_layer == "InfiniBand"]
        local = device(ctx, args.device) if args.device else next((n for n in ib if is_up(n)), None)
        o(f"ibdiagnet {IBDIAGNET_VERSION}, IBDM 2.1.1.MLNX20231105.fc5eb6b1")
        if local is None or local.link_layer != "InfiniBand" or not is_up(local):
            what = f"device {args.device}" if args.device else "any active IB port"
            raise ctx.fail(f"-E- Failed to find {what} on this host", 1)
        o(f"-I- Using port {args.port} as the local port ({local.name}).")
        rail = local.rail
        ports: list[tuple[Node, NIC]] = []
        for node in cl.compute_nodes:
            for nic in node.nics:
                if nic.role == "compute" and nic.rail == rail and node.health.os_up:
                    ports.append((node, nic))
        active = [(n, p) for n, p in ports if is_up(p)]
        switches = [name for name, (kind, r) in cl.switches.items() if r in (rail, -1)]
        total = len(active) + len(switches)
        log: list[str] = []
        warnings = dict.fromkeys(("Discovery", "Lids Check", "Links Check", "Subnet Manager", "Port Counters",
                                  "Nodes Information", "Speed / Width checks", "Cable Diagnostic (Plugin)"), 0)
        errors = dict(warnings)
        o("")
        o("---------------------------------------------")
        o("Discovery")
        o(f"-I- Discovering ... {total} nodes ({len(switches)} Switches & {len(active)} CA-s) discovered.")
        o("-I- Fabric Discover finished successfully")
        o("")
        o("-I- Duplicated GUIDs detection finished successfully")
        o("")
        o("-I- Duplicated Node Description detection finished successfully")
        o("")
        o("---------------------------------------------")
        o("Lids Check")
        o("-I- Lids Check finished successfully")
        o("")
        o("---------------------------------------------")
        o("Links Check")
        o("-I- Links Check finished successfully")
        o("")
        o("---------------------------------------------")
        o("Subnet Manager")
        o("-I- SM Info retrieving finished successfully")
        o("")
        o("-I- Subnet Manager Check finished successfully")
        o("")
        o("---------------------------------------------")
        o("Port Counters")
        o(f"-I- Retrieving ... {total}/{total} nodes ({len(switches)}/{len(switches)} Switches & "
          f"{len(active)}/{len(active)} CA-s) retrieved.")
        o("-I- Ports counters retrieving finished successfully")
        o("")
        rail_gbps = links.job_rail_gbps(cl)
        first = {id(p): links.counters(cl, n, p, rail_gbps) for n, p in active}
        o("-I- Going to sleep for 1 seconds until next counters sample")
        o("-I- Time left to sleep ... 1 seconds.")
        yield 1.0
        o("")
        o(f"-I- Retrieving ... {total}/{total} nodes ({len(switches)}/{len(switches)} Switches & "
          f"{len(active)}/{len(active)} CA-s) retrieved.")
        o("-I- Ports counters retrieving (second time) finished successfully")
        o("")
        checked = ("SymbolErrorCounter", "LinkErrorRecoveryCounter", "LinkDownedCounter", "PortRcvErrors",
                   "PortRcvRemotePhysicalErrors", "PortXmitDiscards", "LocalLinkIntegrityErrors",
                   "ExcessiveBufferOverrunErrors")
        for node, nic in active:
            now = links.counters(cl, node, nic, rail_gbps)
            for name in checked:
                if now[name] > 0:
                    warnings["Port Counters"] += 1
                    log.append(f"-W- lid=0x{nic.lid:04x} dev={VENDOR_PART_ID} {node.name}/{nic.name}/P1\n"
                               f"        Performance Monitor counter     : Value\n"
                               f"        {_snake(name):<32}: {now[name]} (threshold=1)")
                delta = now[name] - first[id(nic)][name]
                if delta > 0:
                    errors["Port Counters"] += 1
                    log.append(f"-E- lid=0x{nic.lid:04x} dev={VENDOR_PART_ID} {node.name}/{nic.name}/P1\n"
                               f"        Performance Monitor counter     : Value\n"
                               f"        {_snake(name):<32}: {delta} (overflow=0, difference during run)")
        o("-{}- Ports counters value Check finished with {}".format(
            "W" if warnings["Port Counters"] else "I",
            f"{warnings['Port Counters']} warnings" if warnings["Port Counters"] else "success").replace(
            "finished with success", "finished successfully"))
        o("")
        if errors["Port Counters"]:
            o(f"-E- Ports counters Difference Check (during run) finished with {errors['Port Counters']} errors")
        else:
            o("-I- Ports counters Difference Check (during run) finished successfully")
        o("")
        o("---------------------------------------------")
        o("Speed / Width checks")
        for node, nic in active:
            if nic.rate_gbps < nic.max_rate_gbps or nic.width.upper() != "4X":
                warnings["Speed / Width checks"] += 1
                log.append(f"-W- Link: {nic.peer_switch}/P{nic.peer_port} <--> {node.name}/{nic.name}/P1 - "
                           f"Unexpected actual link speed {links.speed_name(nic)} or width {nic.width.upper()} "
                           f"(enabled speed: NDR, enabled width: 4X), rate {nic.rate_gbps} Gb/s instead of "
                           f"{nic.max_rate_gbps} Gb/s")
        if warnings["Speed / Width checks"]:
            o("-I- Link Speed Check (Compare to supported link speed)")
            o(f"-W- Speed / Width checks finished with {warnings['Speed / Width checks']} warnings")
        else:
            o("-I- Link Speed Check (Compare to supported link speed)")
            o("-I- Speed / Width checks finished successfully")
        o("")
        if args.pc:
            for node, nic in active:
                links.reset_counters(cl, node, nic, rail_gbps)
            o("-I- Ports counters reset finished successfully")
            o("")
        o("---------------------------------------------")
        o("Summary")
        o(f"-I- {'Stage':<26}{'Warnings':<11}{'Errors':<11}Comment")
        for stage in warnings:
            o(f"-I- {stage:<26}{warnings[stage]:<11}{errors[stage]:<11}")
        o("")
        out_dir = args.output_path.rstrip("/") or "/"
        o(f"-I- You can find detailed errors/warnings in: {out_dir}/ibdiagnet2.log")
        o("")
        o(f"-I- Database                  : {out_dir}/ibdiagnet2.db_csv")
        o(f"-I- LST                       : {out_dir}/ibdiagnet2.lst")
        o(f"-I- Ports Counters            : {out_dir}/ibdiagnet2.pm")
        self._write_files(ctx, out_dir, log, active, rail_gbps)
        return 1 if any(errors.values()) else 0

    def _write_files(self, ctx: Context, out_dir: str, log: list[str], active: list[tuple[Node, NIC]],
                     rail_gbps: float) -> None:
        stamp = ctx.clock.now().strftime("%Y-%m-%d %H:%M:%S")
        lst = [f'{{ CA Ports:1 SystemGUID:{n.node_guid[2:]} NodeGUID:{n.node_guid[2:]} PortGUID:{n.port_guid[2:]} '
               f'VenID:000002C9 DevID:1021 Rev:00000000 {{{node.name} {n.name}}} LID:{n.lid:04X} PN:01 }} '
               f'{{ SW Ports:40 {{{n.peer_switch}}} PN:{n.peer_port:02X} }} '
               f'PHY={n.width.upper()} LOG=ACT SPD={links.speed_name(n)}' for node, n in active]
        pm = []
        for node, nic in active:
            values = links.counters(ctx.cluster, node, nic, rail_gbps)
            pm.append(f"Port=1 Lid=0x{nic.lid:04x} GUID={nic.port_guid} Device={VENDOR_PART_ID} "
                      f"Port Name={node.name}/{nic.name}/P1")
            pm += [f"{_snake(k)}=0x{v:016x}" for k, v in values.items()]
            pm.append("")
        files = {
            "ibdiagnet2.log": "\n".join([f"-I- ibdiagnet {IBDIAGNET_VERSION} run at {stamp}", *log, ""]),
            "ibdiagnet2.lst": "\n".join(lst) + "\n",
            "ibdiagnet2.pm": "\n".join(pm) + "\n",
            "ibdiagnet2.db_csv": f"# This database file was automatically generated by IBDIAG {stamp}\n",
        }
        try:
            ctx.fs.mkdir(out_dir, parents=True)
            for name, text in files.items():
                ctx.fs.write(f"{out_dir}/{name}", text)
        except Exception as exc:  # the vfs raises FsError with errno wording
            ctx.err(f"-E- Failed to write to {out_dir}: {getattr(exc, 'strerror', exc)}\n")


def _snake(name: str) -> str:
    """``SymbolErrorCounter`` -> ``symbol_error_counter`` (ibdiagnet's counter names)."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower().replace("port_", "port_")


# -- iblinkinfo -----------------------------------------------------------------------------------------

#: Per-lane signalling rate as iblinkinfo prints it, by IBTA speed name.
LANE_TEXT = {"SDR": "2.5 Gbps", "QDR": "10.0 Gbps", "FDR": "14.0625 Gbps", "EDR": "25.78125 Gbps",
             "HDR": "53.125 Gbps", "NDR": "106.25 Gbps", "XDR": "212.5 Gbps"}


#: Leaf-to-spine links train at the full NDR 4X rate.
UPLINK = ("4X", "NDR")


def switch_lid(cluster: Cluster, name: str) -> int:
    """Switches take the LIDs after the subnet manager's (2, 3, ...), in name order."""
    return 2 + sorted(cluster.switches).index(name)


def switch_guid(cluster: Cluster, name: str) -> str:
    return f"0x{0xFC6A1C:06x}0300{rng(cluster.seed, 'switch', name).getrandbits(24):06x}"


def _link(lid: int, port: int, trained: tuple[str, str] | None, peer_lid: int, peer_port: int, peer: str,
          note: str) -> str:
    """One iblinkinfo line; ``trained`` is (width, speed name), None for a link that is down."""
    head = f"{'':6}{lid:>6} {port:>4}[  ] ==("
    if trained is None:
        return f"{head}{'Down':>20}/ Polling)==>{'':13}[  ] \"\" ( )"
    width, speed = trained
    return (f"{head}{width:>3} {LANE_TEXT.get(speed, ''):>19} Active/  LinkUp)==>  {peer_lid:>6} {peer_port:>4}[  ] "
            f"\"{peer}\" ( {note})")


def _trained(nic: NIC) -> tuple[str, str] | None:
    return (nic.width.upper(), links.speed_name(nic)) if is_up(nic) else None


def _could_be(nic: NIC) -> str:
    """iblinkinfo's hint when a link trained below what both ends support."""
    if nic.width.upper() != "4X":
        return "Could be 4X"
    if nic.rate_gbps < nic.max_rate_gbps:
        return f"Could be {LANE_TEXT['NDR']}"
    return ""


class Iblinkinfo(DiagCommand):
    name = "iblinkinfo"
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

    def execute(self, ctx: Context, args: argparse.Namespace | None) -> Outcome:
        assert args is not None
        cl = ctx.cluster
        pid = fake_pid(ctx, self.name)
        ib = [n for n in devices(ctx) if n.link_layer == "InfiniBand"]
        local = device(ctx, args.Ca) if args.Ca else next((n for n in ib if is_up(n)), None)
        if local is None or local.link_layer != "InfiniBand" or not is_up(local):
            raise ctx.fail(f"ibwarn: [{pid}] mad_rpc_open_port: can't open UMAD port ({args.Ca or '(null)'}:0)\n"
                           "iblinkinfo: iberror: failed: discover failed", 255)
        rail = local.rail
        ports: dict[str, list[tuple[Node, NIC]]] = {}
        for node in cl.compute_nodes:
            for nic in node.nics:
                if nic.role == "compute" and nic.rail == rail:
                    ports.setdefault(nic.peer_switch, []).append((node, nic))
        leaves = sorted(ports)
        spines = sorted(name for name, (kind, _) in cl.switches.items() if kind == "spine")
        if args.cas_only:
            for leaf in leaves:
                for node, nic in ports[leaf]:
                    if is_up(nic) and not args.downports:  # a CA behind a down link is not discovered
                        ctx.outln(f"CA: {node.name} {nic.name}:")
                        ctx.outln(_link(nic.lid, 1, _trained(nic), switch_lid(cl, leaf), nic.peer_port, leaf,
                                        _could_be(nic)))
            return 0
        for leaf in leaves:
            lid = switch_lid(cl, leaf)
            ctx.outln(f"Switch: {switch_guid(cl, leaf)} {leaf}:")
            for node, nic in sorted(ports[leaf], key=lambda item: item[1].peer_port):
                if args.downports and is_up(nic):
                    continue
                ctx.outln(_link(lid, nic.peer_port, _trained(nic), nic.lid, 1, f"{node.name} {nic.name}",
                                _could_be(nic)))
            if not args.downports:
                for k, spine in enumerate(spines):
                    ctx.outln(_link(lid, 33 + k, UPLINK, switch_lid(cl, spine), leaves.index(leaf) + 1, spine, ""))
        if not args.downports:
            for spine in spines:
                lid = switch_lid(cl, spine)
                ctx.outln(f"Switch: {switch_guid(cl, spine)} {spine}:")
                for k, leaf in enumerate(leaves):
                    ctx.outln(_link(lid, k + 1, UPLINK, switch_lid(cl, leaf), 33 + spines.index(spine), leaf, ""))
        return 0


# -- ibdev2netdev, ibhosts, ibswitches -------------------------------------------------------------------

#: Part number and description ibdev2netdev -v reads from the adapter's VPD, by link layer.
CX7_VPD = {"InfiniBand": ("MCX75310AAS-NEAT", "NVIDIA ConnectX-7 HHHL adapter card, 400Gb/s NDR IB, single-port OSFP, "
                                              "PCIe 5.0 x16"),
           "Ethernet": ("MCX755106AS-HEAT", "NVIDIA ConnectX-7 HHHL adapter card, 200GbE, dual-port QSFP112, "
                                            "PCIe 5.0 x16")}


class Ibdev2netdev(Command):
    name = "ibdev2netdev"
    summary = "map RDMA devices to their network interfaces (MLNX_OFED)"
    section = "Fabric"

    def configure(self, parser: ArgumentParser) -> None:
        parser.add_argument("-v", action="store_true", help="verbose: PCI address, part, firmware and port state")

    def usage_error(self, message: str) -> str:
        return "Usage: ibdev2netdev [-h] [-v]"

    def execute(self, ctx: Context, args: argparse.Namespace | None) -> Outcome:
        assert args is not None
        for nic in devices(ctx):
            link = "Up" if is_up(nic) else "Down"
            if args.v:
                state = "ACTIVE" if is_up(nic) else nic.state.upper()
                part, text = CX7_VPD[nic.link_layer]
                ctx.outln(f"{nic.pci_bus_id} {nic.name} ({nic.ca_type} - {part}) {text} "
                          f"fw {nic.firmware} port 1 ({state}) ==> {nic.netdev} ({link})")
            else:
                ctx.outln(f"{nic.name} port 1 ==> {nic.netdev} ({link})")
        return 0


def _fabric_cas(ctx: Context) -> tuple[NIC, list[tuple[Node, NIC]]] | None:
    """The local active IB port and every CA port its subnet (rail) reaches."""
    local = next((n for n in devices(ctx) if n.link_layer == "InfiniBand" and is_up(n)), None)
    if local is None:
        return None
    found = [(node, nic) for node in ctx.cluster.compute_nodes for nic in node.nics
             if nic.role == "compute" and nic.rail == local.rail and is_up(nic)]
    return local, found


class Ibhosts(DiagCommand):
    name = "ibhosts"
    summary = "show InfiniBand host (CA) nodes in the fabric"
    section = "Fabric"

    def execute(self, ctx: Context, args: argparse.Namespace | None) -> Outcome:
        fabric = _fabric_cas(ctx)
        if fabric is None:
            raise ctx.fail(f"ibwarn: [{fake_pid(ctx, self.name)}] mad_rpc_open_port: can't open UMAD port ((null):0)\n"
                           "/usr/sbin/ibnetdiscover: iberror: failed: discover failed", 255)
        for node, nic in fabric[1]:
            ctx.outln(f"Ca\t: {nic.node_guid} ports 1 \"{node.name} {nic.name}\"")
        return 0


class Ibswitches(DiagCommand):
    name = "ibswitches"
    summary = "show InfiniBand switch nodes in the fabric"
    section = "Fabric"

    def execute(self, ctx: Context, args: argparse.Namespace | None) -> Outcome:
        fabric = _fabric_cas(ctx)
        if fabric is None:
            raise ctx.fail(f"ibwarn: [{fake_pid(ctx, self.name)}] mad_rpc_open_port: can't open UMAD port ((null):0)\n"
                           "/usr/sbin/ibnetdiscover: iberror: failed: discover failed", 255)
        rail = fabric[0].rail
        cl = ctx.cluster
        for name, (_, r) in sorted(cl.switches.items()):
            if r in (rail, -1):
                ctx.outln(f"Switch\t: {switch_guid(cl, name)} ports 64 \"{name}\" enhanced port 0 "
                          f"lid {switch_lid(cl, name)} lmc 0")
        return 0


# -- ip, ethtool --------------------------------------------------------------------------------------


def _eno1_mac(ctx: Context, node: Node) -> str:
    r = rng(ctx.cluster.seed, node.name, "eno1")
    low = r.getrandbits(24)
    return f"7c:c2:55:{low >> 16:02x}:{(low >> 8) & 0xFF:02x}:{low & 0xFF:02x}"


def interfaces(ctx: Context) -> list[dict[str, object]]:
    """The host's network interfaces in ifindex order, from the model."""
    node = ctx.host
    items: list[dict[str, object]] = [
        {"name": "lo", "kind": "loopback", "up": True, "mtu": 65536, "mac": "00:00:00:00:00:00",
         "inet": "127.0.0.1/8", "inet6": "::1/128", "speed": 0, "nic": None},
        {"name": "eno1", "kind": "ether", "up": True, "mtu": 1500, "mac": _eno1_mac(ctx, node),
         "inet": f"{node.mgmt_ipv4}/16", "inet6": link_local(eui64(_eno1_mac(ctx, node)), flip=False),
         "speed": 25000, "nic": None},
    ]
    for nic in sorted(node.nics, key=lambda n: n.pci_bus_id):
        if nic.link_layer == "InfiniBand":
            guid = nic.port_guid[2:].rjust(16, "0")
            hw = "00:00:10:" + f"{0x29 + 2 * (nic.rail or 0):02x}:fe:80:00:00:00:00:00:00:" + \
                ":".join(guid[i:i + 2] for i in range(0, 16, 2))
            inet6 = link_local(guid)
            items.append({"name": nic.netdev, "kind": "infiniband", "up": is_up(nic), "mtu": 4092, "mac": hw,
                          "inet": "", "inet6": inet6, "speed": nic.rate_gbps * 1000, "nic": nic})
        else:
            inet6 = link_local(eui64(nic.mac), flip=False)
            items.append({"name": nic.netdev, "kind": "ether", "up": is_up(nic), "mtu": 9000, "mac": nic.mac,
                          "inet": f"{nic.ipv4}/16" if nic.ipv4 else "", "inet6": inet6,
                          "speed": nic.rate_gbps * 1000, "nic": nic})
    return items


class Ip(Command):
    name = "ip"
    summary = "show network interfaces and addresses (iproute2)"
    section = "Fabric"
    parses_args = False
    notes = "Supported: ip [-br] [-4|-6] link|addr [show [dev] IFNAME], ip route."

    def execute(self, ctx: Context, args: argparse.Namespace | None) -> Outcome:
        words = ctx.argv[1:]
        brief, family = False, ""
        while words and words[0].startswith("-"):
            flag = words.pop(0)
            if flag in ("-br", "-brief"):
                brief = True
            elif flag in ("-4", "-6"):
                family = flag
            elif flag in ("-h", "-help", "--help"):
                ctx.out("Usage: ip [ OPTIONS ] OBJECT { COMMAND | help }\n"
                        "where  OBJECT := { address | link | route | ... }\n"
                        "       OPTIONS := { -4 | -6 | -br[ief] | -s[tatistics] | ... }\n")
                return 0
            elif flag in ("-s", "-stats", "-statistics", "-c", "-color", "-d", "-details"):
                continue
            else:
                raise ctx.fail(f'Option "{flag}" is unknown, try "ip -help".', 255)
        if not words:
            raise ctx.fail("Usage: ip [ OPTIONS ] OBJECT { COMMAND | help }", 255)
        obj, rest = words[0], words[1:]
        if rest and rest[0] in ("show", "list", "sh", "ls", "lst"):
            rest = rest[1:]
        if rest and rest[0] == "dev":
            rest = rest[1:]
        want = rest[0] if rest else ""
        items = interfaces(ctx)
        if want:
            items = [i for i in items if i["name"] == want]
            if not items:
                raise ctx.fail(f'Device "{want}" does not exist.', 1)
        if obj in ("l", "li", "lin", "link"):
            self._show(ctx, items, brief, addresses=False, family=family)
        elif obj in ("a", "ad", "add", "addr", "addre", "addres", "address"):
            self._show(ctx, items, brief, addresses=True, family=family)
        elif obj in ("r", "ro", "rou", "rout", "route"):
            node = ctx.host
            ctx.outln("default via 10.10.0.1 dev eno1 proto static")
            ctx.outln(f"10.10.0.0/16 dev eno1 proto kernel scope link src {node.mgmt_ipv4}")
            for nic in node.nics:
                if nic.ipv4 and is_up(nic):
                    ctx.outln(f"10.30.0.0/16 dev {nic.netdev} proto kernel scope link src {nic.ipv4}")
        else:
            raise ctx.fail(f'Object "{obj}" is unknown, try "ip help".', 255)
        return 0

    def _flags(self, item: dict[str, object]) -> tuple[str, str]:
        if item["kind"] == "loopback":
            return "<LOOPBACK,UP,LOWER_UP>", "UNKNOWN"
        if item["up"]:
            return "<BROADCAST,MULTICAST,UP,LOWER_UP>", "UP"
        return "<NO-CARRIER,BROADCAST,MULTICAST,UP>", "DOWN"

    def _show(self, ctx: Context, items: list[dict[str, object]], brief: bool, addresses: bool, family: str) -> None:
        all_items = interfaces(ctx)
        for item in items:
            flags, state = self._flags(item)
            index = all_items.index(item) + 1 if item in all_items else 0
            name = str(item["name"])
            inet, inet6 = str(item["inet"]), str(item["inet6"])
            if family == "-4":
                inet6 = ""
            if family == "-6":
                inet = ""
            if brief:
                if addresses:
                    addrs = " ".join(a for a in (inet, inet6) if a)
                    ctx.outln(f"{name:<16} {state:<14} {addrs} ".rstrip() + " ")
                else:
                    mac = item["mac"] if item["kind"] != "infiniband" else str(item["mac"])
                    ctx.outln(f"{name:<16} {state:<14} {mac} {flags} ")
                continue
            if addresses and family and not (inet if family == "-4" else inet6):
                continue
            qdisc = "noqueue" if item["kind"] == "loopback" else "mq"
            qlen = 256 if item["kind"] == "infiniband" else 1000
            mode = "" if addresses else " mode DEFAULT"
            ctx.outln(f"{index}: {name}: {flags} mtu {item['mtu']} qdisc {qdisc} state {state}{mode} "
                      f"group default qlen {qlen}")
            if not family:
                if item["kind"] == "infiniband":
                    ctx.outln(f"    link/infiniband {item['mac']} brd 00:ff:ff:ff:ff:12:40:1b:ff:ff:00:00:00:00:00:00:"
                              f"ff:ff:ff:ff")
                else:
                    brd = "00:00:00:00:00:00" if item["kind"] == "loopback" else "ff:ff:ff:ff:ff:ff"
                    ctx.outln(f"    link/{item['kind']} {item['mac']} brd {brd}")
            if not addresses:
                continue
            if inet:
                scope = "host" if item["kind"] == "loopback" else "global"
                brd = "" if item["kind"] == "loopback" else f" brd {_broadcast(inet)}"
                ctx.outln(f"    inet {inet}{brd} scope {scope} {name}")
                ctx.outln("       valid_lft forever preferred_lft forever")
            if inet6 and item["up"]:
                scope = "host" if item["kind"] == "loopback" else "link"
                ctx.outln(f"    inet6 {inet6} scope {scope} ")
                ctx.outln("       valid_lft forever preferred_lft forever")


def _broadcast(cidr: str) -> str:
    addr, _, bits = cidr.partition("/")
    value = int.from_bytes(bytes(int(p) for p in addr.split(".")), "big")
    mask = (1 << (32 - int(bits))) - 1
    b = (value | mask).to_bytes(4, "big")
    return ".".join(str(x) for x in b)


class Ethtool(Command):
    name = "ethtool"
    summary = "query network device settings and statistics"
    section = "Fabric"
    usage_status = 1

    def configure(self, parser: ArgumentParser) -> None:
        parser.add_argument("-S", "--statistics", action="store_true", help="show adapter statistics")
        parser.add_argument("-i", "--driver", action="store_true", help="show driver information")
        parser.add_argument("devname", help="the network interface")

    def usage_error(self, message: str) -> str:
        if "required" in message:
            return "ethtool: bad command line argument(s)\nFor more information run ethtool -h"
        return getopt_error(self.name, message) + "\nFor more information run ethtool -h"

    def execute(self, ctx: Context, args: argparse.Namespace | None) -> Outcome:
        assert args is not None
        item = next((i for i in interfaces(ctx) if i["name"] == args.devname), None)
        if item is None:
            raise ctx.fail(f"netlink error: no device matches name ({args.devname})\n"
                           f"netlink error: No such device", 1 if args.statistics else 75)
        nic = item["nic"]
        assert nic is None or isinstance(nic, NIC)
        if args.driver:
            driver = "mlx5_core[ib_ipoib]" if item["kind"] == "infiniband" else ("mlx5_core" if nic else "ice")
            ctx.outln(f"driver: {driver}")
            ctx.outln(f"version: {ctx.cluster.versions.kernel}")
            ctx.outln(f"firmware-version: {nic.firmware} (MT_0000000838)" if nic else "firmware-version: 4.40 0x8001af2c")
            ctx.outln(f"bus-info: {nic.pci_bus_id if nic else '0000:8a:00.0'}")
            return 0
        if args.statistics:
            return self._stats(ctx, item, nic)
        up = bool(item["up"])
        ctx.outln(f"Settings for {args.devname}:")
        if item["kind"] == "infiniband":
            ctx.outln("\tSupported ports: [  ]")
            ctx.outln("\tSupported link modes:   Not reported")
            ctx.outln("\tSupported pause frame use: No")
            ctx.outln("\tSupports auto-negotiation: No")
            ctx.outln("\tSupported FEC modes: Not reported")
            ctx.outln("\tAdvertised link modes:  Not reported")
            ctx.outln("\tAdvertised pause frame use: No")
            ctx.outln("\tAdvertised auto-negotiation: No")
            ctx.outln("\tAdvertised FEC modes: Not reported")
        elif item["kind"] == "ether":
            gbit = int(str(item["speed"])) // 1000
            ctx.outln("\tSupported ports: [ FIBRE ]" if nic else "\tSupported ports: [ TP ]")
            ctx.outln(f"\tSupported link modes:   {gbit * 1000}base{'CR4' if nic else 'T'}/Full")
            ctx.outln("\tSupported pause frame use: Symmetric")
            ctx.outln("\tSupports auto-negotiation: Yes")
            ctx.outln(f"\tAdvertised link modes:  {gbit * 1000}base{'CR4' if nic else 'T'}/Full")
            ctx.outln("\tAdvertised pause frame use: Symmetric")
            ctx.outln("\tAdvertised auto-negotiation: Yes")
            ctx.outln("\tAdvertised FEC modes: RS" if nic else "\tAdvertised FEC modes: Not reported")
        if up and item["kind"] != "loopback":
            ctx.outln(f"\tSpeed: {item['speed']}Mb/s")
            ctx.outln("\tDuplex: Full")
        else:
            ctx.outln("\tSpeed: Unknown!")
            ctx.outln("\tDuplex: Unknown! (255)" if item["kind"] != "loopback" else "\tDuplex: Unknown! (255)")
        ctx.outln("\tAuto-negotiation: on" if item["kind"] == "ether" else "\tAuto-negotiation: off")
        port = {"infiniband": "Other", "loopback": "Other"}.get(str(item["kind"]),
                                                                 "Direct Attach Copper" if nic else "Twisted Pair")
        ctx.outln(f"\tPort: {port}")
        ctx.outln("\tPHYAD: 0" if item["kind"] == "ether" else "\tPHYAD: 255")
        ctx.outln("\tTransceiver: internal")
        ctx.outln(f"\tLink detected: {'yes' if up else 'no'}")
        return 0

    def _stats(self, ctx: Context, item: dict[str, object], nic: NIC | None) -> int:
        if item["kind"] == "loopback":
            raise ctx.fail("no stats available", 95)
        r = rng(ctx.cluster.seed, ctx.host.name, str(item["name"]), "stats")
        t = ctx.clock.elapsed
        if nic is not None and nic.link_layer == "InfiniBand":
            # IPoIB carries only the little IP traffic of the rail; RDMA bypasses the netdev.
            ipoib = r.randrange(10**6, 10**7) + int(40 * t)
            rows = [("rx_packets", ipoib), ("rx_bytes", ipoib * 310), ("tx_packets", ipoib + r.randrange(1000)),
                    ("tx_bytes", ipoib * 296), ("rx_csum_complete", ipoib - r.randrange(1000)),
                    ("rx_csum_none", 0), ("tx_csum_partial", ipoib // 3), ("tx_queue_dropped", 0),
                    ("rx_wqe_err", 0), ("tx_cqe_err", 0)]
        else:
            rate_bps = 0.08 * (nic.rate_gbps if nic else 25) * 1e9 / 8 if item["up"] else 0.0
            rx_bytes = r.randrange(10**12, 10**13) + int(rate_bps * t)
            tx_bytes = r.randrange(10**11, 10**12) + int(rate_bps * 0.2 * t)
            rows = [("rx_packets", rx_bytes // 8200), ("rx_bytes", rx_bytes), ("tx_packets", tx_bytes // 4100),
                    ("tx_bytes", tx_bytes), ("rx_csum_unnecessary", rx_bytes // 8300),
                    ("rx_crc_errors_phy", 0), ("rx_discards_phy", 0), ("tx_discards_phy", 0),
                    ("rx_out_of_buffer", 0), ("link_down_events_phy", 0 if item["up"] else 1)]
        ctx.outln("NIC statistics:")
        for key, value in rows:
            ctx.outln(f"     {key}: {value}")
        return 0


def commands() -> list[Command]:
    return [Ibstat(), Ibstatus(), IbvDevices(), IbvDevinfo(), Perfquery(), Mlxlink(), Rdma(), Ibdiagnet(), Iblinkinfo(),
            Ibdev2netdev(), Ibhosts(), Ibswitches(), Ip(), Ethtool()]
