"""Fabric tools for the current host's RDMA ports: InfiniBand diagnostics
(infiniband-diags, rdma-core), the verbs views, MFT's ``mlxlink`` and
``ibdev2netdev``.

Every value comes from the host's NICs in the cluster model and from
:mod:`emulator.cluster.links` (rates, counters at the simulated instant,
resets), so one port reads the same in ``ibstat``, ``ibstatus``,
``ibv_devinfo``, ``perfquery``, ``mlxlink`` and ``rdma link``. The
fabric-wide scans live in :mod:`emulator.commands.fabric.ibscan`, the Linux network
views in :mod:`emulator.commands.fabric.netif`. Formats follow MLNX_OFED 23.10
(rdma-core 2307mlnx47, MFT 4.26).
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from emulator.cluster import counters, links
from emulator.cluster.hardware import NIC
from emulator.cluster.ids import rng
from emulator.commands.kit.command import Command, Context, Outcome, ParsedCommand, RawCommand
from emulator.commands.kit.spec import ArgumentParser
from emulator.commands.kit.usage import getopt_error

if TYPE_CHECKING:  # pragma: no cover
    from emulator.cluster.model import Cluster, Node

#: ConnectX-7 identifiers as the verbs and diag tools print them.
VENDOR_ID = 0x02C9
VENDOR_PART_ID = 4129
IB_CAPMASK = 0xA751E848
ETH_CAPMASK = 0x00010000
PMA_CAPMASK = "0x5A00"
MFT_VERSION = "mft 4.26.1-3"

PORT_STATE_NUM = {"Down": 1, "Initializing": 2, "Armed": 3, "Active": 4}
PHYS_STATE_NUM = {"Sleep": 1, "Polling": 2, "Disabled": 3, "PortConfigurationTraining": 4, "LinkUp": 5,
                  "LinkErrorRecovery": 6, "PhyTest": 7}


# -- shared helpers -------------------------------------------------------------------


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


class DiagCommand(ParsedCommand):
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
    reads_only = True
    directory = "/usr/sbin"
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

    def execute(self, ctx: Context, args: argparse.Namespace) -> Outcome:
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


class Ibstatus(ParsedCommand):
    name = "ibstatus"
    reads_only = True
    directory = "/usr/sbin"
    summary = "query basic status of InfiniBand device(s)"
    section = "Fabric"
    description = "Reads the port state from /sys/class/infiniband for each device[:port] named, or all."

    def configure(self, parser: ArgumentParser) -> None:
        parser.add_argument("devices", nargs="*", metavar="devname[:portnum]", help="devices (and ports) to show")

    def usage_error(self, message: str) -> str:
        return "Usage: ibstatus [-h] [devname1[:portnum]] [devname2[:portnum]]..."

    def execute(self, ctx: Context, args: argparse.Namespace) -> Outcome:
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


class IbvDevices(ParsedCommand):
    name = "ibv_devices"
    summary = "list RDMA devices"
    section = "Fabric"

    def execute(self, ctx: Context, args: argparse.Namespace) -> Outcome:
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


class IbvDevinfo(ParsedCommand):
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

    def execute(self, ctx: Context, args: argparse.Namespace) -> Outcome:
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
            lid, number = nic.lid, 1
        if not args.Reset_only:
            self._print(ctx, values, lid, number, args.extended)
        if args.reset_after_read or args.Reset_only:
            if sm_rail is not None:
                counters.reset_sm_counters(cl, sm_rail)
            elif switch is not None:
                counters.reset_switch_counters(cl, switch, number)
            else:
                counters.reset_counters(cl, node, nic)
        return 0

    @staticmethod
    def _print(ctx: Context, values: dict[str, int], lid: int, port: int, extended: bool) -> None:
        if extended:
            ctx.outln(f"# Port extended counters: Lid {lid} port {port} (CapMask: {PMA_CAPMASK})")
            ctx.outln(dotted("PortSelect", port))
            ctx.outln(dotted("CounterSelect", "0x0000"))
            for name in EXTENDED_FIELDS:
                ctx.outln(dotted(name, "0x00000000" if name == "CounterSelect2" else values.get(name, 0)))
            return
        ctx.outln(f"# Port counters: Lid {lid} port {port} (CapMask: {PMA_CAPMASK})")
        ctx.outln(dotted("PortSelect", port))
        ctx.outln(dotted("CounterSelect", "0x0000"))
        for name, bits in BASIC_FIELDS:
            ctx.outln(dotted(name, "0x00" if name == "CounterSelect2" else counters.clamp(values.get(name, 0), bits)))


# -- mlxlink ---------------------------------------------------------------------------------------


def _section(ctx: Context, title: str, rows: list[tuple[str, str]]) -> None:
    ctx.outln()
    ctx.outln(title)
    ctx.outln("-" * len(title))
    for key, value in rows:
        ctx.outln(f"{key:<32}: {value}")


class Mlxlink(ParsedCommand):
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

    def execute(self, ctx: Context, args: argparse.Namespace) -> Outcome:
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
        if args.show_module:
            self._module(ctx, nic)
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

    def _module(self, ctx: Context, nic: NIC) -> None:
        """The transceiver's identity and live optics. A marginal link shows one weak
        receive lane; a port polling for a peer receives no light at all."""
        r = rng(ctx.cluster.seed, ctx.host.name, nic.name, "module")
        rx = [round(r.uniform(0.9, 2.1), 3) for _ in range(4)]
        tx = [round(r.uniform(0.8, 1.6), 3) for _ in range(4)]
        if nic.counter_rates.get("SymbolErrorCounter", 0.0) > 0:
            rx[r.randrange(4)] = round(r.uniform(-8.6, -7.2), 3)
        if nic.phys_state == "Polling":
            rx = [-40.0] * 4
        if nic.phys_state == "Disabled":
            tx = [-40.0] * 4
        ib = nic.link_layer == "InfiniBand"
        part, compliance = ("MMA4Z00-NS400", "400GBASE-SR4") if ib else ("MMA1L30-CM", "200GBASE-SR4")
        serial = f"MT{2300 + r.randrange(40)}FT{r.randrange(10**5):05d}"
        _section(ctx, "Module Info", [
            ("Identifier", "OSFP" if ib else "QSFP112"), ("Compliance", compliance),
            ("Cable Technology", "850 nm VCSEL"), ("Cable Type", "Optical Module (separated)"),
            ("OUI", "Mellanox"), ("Vendor Name", "Mellanox"), ("Vendor Part Number", part),
            ("Vendor Serial Number", serial), ("Rev", "A2"), ("Wavelength [nm]", "850"),
            ("Transfer Distance [m]", "50"), ("FW Version", "47.120.0"),
            ("Digital Diagnostic Monitoring", "Yes"), ("Power Class", "8.0 W max"),
            ("CDR RX", "ON,ON,ON,ON"), ("CDR TX", "ON,ON,ON,ON"),
            ("Temperature [C]", f"{r.randint(44, 58)} [-5..75]"),
            ("Voltage [mV]", f"{r.uniform(3270, 3300):.1f} [3135..3465]"),
            ("Bias Current [mA]", ",".join(f"{r.uniform(6.6, 7.2):.3f}" for _ in range(4)) + " [2..15]"),
            ("Rx Power Current [dBm]", ",".join(f"{v:.3f}" for v in rx) + " [-10.4..5]"),
            ("Tx Power Current [dBm]", ",".join(f"{v:.3f}" for v in tx) + " [-8.4..4]"),
        ])

    def _counters(self, ctx: Context, nic: NIC) -> None:
        cl, node = ctx.cluster, ctx.host
        values = counters.counters(cl, node, nic, rail_gbps=0.0)  # error counters only: traffic is not shown
        bits = counters.bits_since_clear(cl, node, nic)
        raw = counters.raw_ber(cl, node, nic) if is_up(nic) else 0.0
        lane_errors = int(raw * bits / max(1, links.lanes(nic)))
        per_lane = ",".join(str(lane_errors + k * (lane_errors // 7)) for k in range(links.lanes(nic)))
        symbols = values["SymbolErrorCounter"]
        _section(ctx, "Physical Counters and BER Info", [
            ("Time Since Last Clear [Min]", f"{counters.seconds_since_clear(cl, node, nic) / 60:.1f}"),
            ("Effective Physical Errors", str(symbols)),
            ("Effective Physical BER", counters.ber_text(counters.symbol_ber(cl, node, nic))),
            ("Raw Physical Errors Per Lane", per_lane),
            ("Raw Physical BER", counters.ber_text(raw)),
            ("Symbol Errors", str(symbols)),
            ("Symbol BER", counters.ber_text(counters.symbol_ber(cl, node, nic))),
            ("Link Down Counter", str(values["LinkDownedCounter"])),
            ("Link Error Recovery Counter", str(values["LinkErrorRecoveryCounter"])),
        ])


# -- rdma ---------------------------------------------------------------------------------------


class Rdma(RawCommand):
    name = "rdma"
    summary = "RDMA tool (iproute2): show RDMA devices and links"
    section = "Fabric"
    add_help_flag = False
    description = ("rdma link [show [DEV[/PORT]]] lists each RDMA port's state, physical state and netdev (and LID\n"
                   "on InfiniBand); rdma dev [show [DEV]] lists the devices with firmware and GUIDs.")

    def execute(self, ctx: Context) -> Outcome:
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
                raise ctx.fail("Wrong device name", 1)
            return 0
        if "dev".startswith(obj):
            for i, nic in enumerate(devices(ctx)):
                if want and want != nic.name:
                    continue
                g = colon_guid(nic.node_guid)
                ctx.outln(f"{i}: {nic.name}: node_type ca fw {nic.firmware} node_guid {g} sys_image_guid {g}")
            return 0
        raise ctx.fail(f'Object "{obj}" is unknown, try "rdma help".', 1)


# -- ibdev2netdev -------------------------------------------------------------------

#: Part number and description ibdev2netdev -v reads from the adapter's VPD, by link layer.
CX7_VPD = {"InfiniBand": ("MCX75310AAS-NEAT", "NVIDIA ConnectX-7 HHHL adapter card, 400Gb/s NDR IB, single-port OSFP, "
                                              "PCIe 5.0 x16"),
           "Ethernet": ("MCX755106AS-HEAT", "NVIDIA ConnectX-7 HHHL adapter card, 200GbE, dual-port QSFP112, "
                                            "PCIe 5.0 x16")}


class Ibdev2netdev(ParsedCommand):
    name = "ibdev2netdev"
    summary = "map RDMA devices to their network interfaces (MLNX_OFED)"
    section = "Fabric"

    def configure(self, parser: ArgumentParser) -> None:
        parser.add_argument("-v", action="store_true", help="verbose: PCI address, part, firmware and port state")

    def usage_error(self, message: str) -> str:
        return "Usage: ibdev2netdev [-h] [-v]"

    def execute(self, ctx: Context, args: argparse.Namespace) -> Outcome:
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


# -- show_gids -------------------------------------------------------------------------------------


class ShowGids(ParsedCommand):
    name = "show_gids"
    summary = "list the GID table of each RDMA port (MLNX_OFED), with RoCE versions and IPv4"
    section = "Fabric"

    def configure(self, parser: ArgumentParser) -> None:
        parser.add_argument("device", nargs="?", help="only this device")

    def execute(self, ctx: Context, args: argparse.Namespace) -> Outcome:
        chosen = [n for n in devices(ctx) if not args.device or n.name == args.device]
        ctx.outln("DEV\tPORT\tINDEX\tGID\t\t\t\t\tIPv4  \t\tVER\tDEV")
        ctx.outln("---\t----\t-----\t---\t\t\t\t\t------------  \t---\t---")
        found = 0
        for nic in chosen:
            gid = default_gid(nic)
            rows = [(gid, "", "v1")]
            if nic.link_layer == "Ethernet":
                rows.append((gid, "", "v2"))
                if nic.ipv4 and is_up(nic):
                    a, b, c, d = (int(x) for x in nic.ipv4.split("."))
                    mapped = f"0000:0000:0000:0000:0000:ffff:{a:02x}{b:02x}:{c:02x}{d:02x}"
                    rows += [(mapped, nic.ipv4, "v1"), (mapped, nic.ipv4, "v2")]
            for index, (g, ip, ver) in enumerate(rows):
                ctx.outln(f"{nic.name}\t1\t{index}\t{g}\t{ip:<12}\t{ver}\t{nic.netdev}")
                found += 1
        ctx.outln(f"n_gids_found={found}")
        return 0


def commands() -> list[Command]:
    return [Ibstat(), Ibstatus(), IbvDevices(), IbvDevinfo(), Perfquery(), Mlxlink(), Rdma(), Ibdev2netdev(),
            ShowGids()]
