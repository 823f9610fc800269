"""MLNX_OFED's helper scripts: ``ibdev2netdev`` (RDMA device to network interface) and ``show_gids``."""

from __future__ import annotations

import argparse

from emulator.commands.fabric.devices import default_gid, devices, is_up
from emulator.commands.kit.command import Command, Context, Outcome, ParsedCommand
from emulator.commands.kit.spec import ArgumentParser

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
    return [Ibdev2netdev(), ShowGids()]
