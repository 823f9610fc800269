"""``ibstat`` and ``ibstatus``: the basic state of the current host's InfiniBand ports.

Both read the host's NICs in the model through :mod:`emulator.cluster.links`
(LIDs, the SM LID, the rate a port trained at), so a port reads the same here
as in ``ibv_devinfo``, ``perfquery``, ``mlxlink`` and ``rdma link``.
"""

from __future__ import annotations

import argparse

from emulator.cluster import links
from emulator.cluster.hardware import NIC
from emulator.commands.fabric.devices import (
    ETH_CAPMASK,
    IB_CAPMASK,
    PHYS_STATE_NUM,
    PORT_STATE_NUM,
    default_gid,
    device,
    devices,
    port_guid,
)
from emulator.commands.fabric.diag import DiagCommand, fake_pid
from emulator.commands.kit.command import Command, Context, Outcome, ParsedCommand
from emulator.commands.kit.spec import ArgumentParser


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


def commands() -> list[Command]:
    return [Ibstat(), Ibstatus()]
