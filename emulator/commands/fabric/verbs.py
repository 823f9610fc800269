"""The verbs views of the current host's RDMA devices (rdma-core): ``ibv_devices`` and ``ibv_devinfo``."""

from __future__ import annotations

import argparse

from emulator.cluster import links
from emulator.cluster.hardware import NIC
from emulator.commands.fabric.devices import (
    IB_CAPMASK,
    PHYS_STATE_NUM,
    PORT_STATE_NUM,
    VENDOR_ID,
    VENDOR_PART_ID,
    colon_guid,
    default_gid,
    device,
    devices,
    is_up,
)
from emulator.commands.kit.command import Command, Context, Outcome, ParsedCommand
from emulator.commands.kit.spec import ArgumentParser
from emulator.commands.kit.usage import getopt_error


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


def commands() -> list[Command]:
    return [IbvDevices(), IbvDevinfo()]
