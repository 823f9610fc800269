"""``ibdiagnet``: a scan of the subnet (every rail's CA ports, leaves and spines), its summary table and the files it writes.

It samples every discovered port's counters twice, a simulated second apart,
checks speed and width against what the ports support, and writes its log,
LST and PM files under ``/var/tmp/ibdiagnet2`` (or ``-o DIR``).
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Callable, Generator
from typing import TYPE_CHECKING

from emulator.cluster import counters, links
from emulator.cluster.hardware import NIC
from emulator.commands.fabric.devices import VENDOR_PART_ID, device, devices, is_up
from emulator.commands.fabric.discovery import subnet_ports
from emulator.commands.kit.command import Command, Context, Outcome, ParsedCommand
from emulator.commands.kit.spec import ArgumentParser

if TYPE_CHECKING:  # pragma: no cover
    from emulator.cluster.model import Node


IBDIAGNET_VERSION = "2.13.0.MLNX20231105.fc5eb6b1"
#: Errors or warnings a stage prints on screen (--screen_num_errs default); all of them go to the log.
#: Source: https://docs.nvidia.com/networking/display/ibdiagnetusermanualv290/warnings+and+errors+printing+policy
SCREEN_NUM_ERRS = 5
#: Where ibdiagnet writes its log, LST and PM files unless told otherwise (-o).
IBDIAG_DIR = "/var/tmp/ibdiagnet2"


class Ibdiagnet(ParsedCommand):
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

    def execute(self, ctx: Context, args: argparse.Namespace) -> Outcome:
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
        active = [(n, p) for n, p in subnet_ports(ctx) if links.port_active(n, p)]
        switches = sorted(cl.switches)
        total = len(active) + len(switches)
        log: list[str] = []
        counter_msgs: list[str] = []
        speed_msgs: list[str] = []
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
        rail_gbps = counters.job_rail_gbps(cl)
        first = {id(p): counters.counters(cl, n, p, rail_gbps) for n, p in active}
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
        second: dict[int, dict[str, int]] = {}
        for node, nic in active:
            now = second[id(nic)] = counters.counters(cl, node, nic, rail_gbps)
            for name in checked:
                if now[name] > 0:
                    warnings["Port Counters"] += 1
                    counter_msgs.append(f"-W- lid=0x{nic.lid:04x} dev={VENDOR_PART_ID} {node.name}/{nic.name}/P1\n"
                               f"        Performance Monitor counter     : Value\n"
                               f"        {_snake(name):<32}: {now[name]} (threshold=1)")
                delta = now[name] - first[id(nic)][name]
                if delta > 0:
                    errors["Port Counters"] += 1
                    counter_msgs.append(f"-E- lid=0x{nic.lid:04x} dev={VENDOR_PART_ID} {node.name}/{nic.name}/P1\n"
                               f"        Performance Monitor counter     : Value\n"
                               f"        {_snake(name):<32}: {delta} (overflow=0, difference during run)")
        o("-{}- Ports counters value Check finished with {}".format(
            "W" if warnings["Port Counters"] else "I",
            f"{warnings['Port Counters']} warnings" if warnings["Port Counters"] else "success").replace(
            "finished with success", "finished successfully"))
        _screen(o, [m for m in counter_msgs if m.startswith("-W-")])
        o("")
        if errors["Port Counters"]:
            o(f"-E- Ports counters Difference Check (during run) finished with {errors['Port Counters']} errors")
            _screen(o, [m for m in counter_msgs if m.startswith("-E-")])
        else:
            o("-I- Ports counters Difference Check (during run) finished successfully")
        o("")
        o("---------------------------------------------")
        o("Speed / Width checks")
        for node, nic in active:
            if nic.rate_gbps < nic.max_rate_gbps or nic.width.upper() != "4X":
                warnings["Speed / Width checks"] += 1
                what = (f"Unexpected actual link width {nic.width.upper()} (enabled width: 4X)"
                        if nic.width.upper() != "4X" else
                        f"Unexpected actual link speed {links.speed_name(nic)} (enabled speed: NDR)")
                speed_msgs.append(f"-W- Link: {nic.peer_switch}/P{nic.peer_port} <--> {node.name}/{nic.name}/P1 - {what}, "
                           f"rate {nic.rate_gbps} Gb/s instead of {nic.max_rate_gbps} Gb/s")
        if warnings["Speed / Width checks"]:
            o("-I- Link Speed Check (Compare to supported link speed)")
            o(f"-W- Speed / Width checks finished with {warnings['Speed / Width checks']} warnings")
            _screen(o, speed_msgs)
        else:
            o("-I- Link Speed Check (Compare to supported link speed)")
            o("-I- Speed / Width checks finished successfully")
        o("")
        log += counter_msgs + speed_msgs
        if args.pc:
            for node, nic in active:
                counters.reset_counters(cl, node, nic, rail_gbps)
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
        self._write_files(ctx, out_dir, log, active, second)
        return 1 if any(errors.values()) else 0

    def _write_files(self, ctx: Context, out_dir: str, log: list[str], active: list[tuple[Node, NIC]],
                     counters: dict[int, dict[str, int]]) -> None:
        stamp = ctx.clock.now().strftime("%Y-%m-%d %H:%M:%S")
        lst = [f'{{ CA Ports:1 SystemGUID:{n.node_guid[2:]} NodeGUID:{n.node_guid[2:]} PortGUID:{n.port_guid[2:]} '
               f'VenID:000002C9 DevID:1021 Rev:00000000 {{{node.name} {n.name}}} LID:{n.lid:04X} PN:01 }} '
               f'{{ SW Ports:64 {{{n.peer_switch}}} PN:{n.peer_port:02X} }} '
               f'PHY={n.width.upper()} LOG=ACT SPD={links.speed_name(n)}' for node, n in active]
        pm = []
        for node, nic in active:
            values = counters[id(nic)]
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


def _screen(out: Callable[[str], None], messages: list[str]) -> None:
    """A stage's first warnings or errors, as ibdiagnet prints them on screen (the rest go to the log only)."""
    for message in messages[:SCREEN_NUM_ERRS]:
        out(message)


def _snake(name: str) -> str:
    """``SymbolErrorCounter`` -> ``symbol_error_counter`` (ibdiagnet's counter names)."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def commands() -> list[Command]:
    return [Ibdiagnet()]
