"""Fabric-wide InfiniBand scans from the current host's port: ``ibdiagnet``,
``iblinkinfo``, ``ibqueryerrors``, ``ibclearcounters``, ``ibnetdiscover``,
``ibhosts``, ``ibswitches`` and ``sminfo``.

Discovery follows the rail of the local port: every compute node's port on
that rail, its leaf switch and the spines. Ports that are down are not
discovered, as on a real subnet. Counters come from
:mod:`emulator.cluster.links`.
"""

from __future__ import annotations

import argparse
import re
import struct
from collections.abc import Generator
from typing import TYPE_CHECKING

from emulator.cluster import counters, links
from emulator.cluster.hardware import NIC
from emulator.cluster.ids import rng
from emulator.commands.fabric.ibtools import VENDOR_PART_ID, DiagCommand, device, devices, fake_pid, is_up
from emulator.commands.kit.command import Command, Context, Outcome, ParsedCommand
from emulator.commands.kit.spec import ArgumentParser

if TYPE_CHECKING:  # pragma: no cover
    from emulator.cluster.model import Node

IBDIAGNET_VERSION = "2.13.0.MLNX20231105.fc5eb6b1"


# -- ibdiagnet ------------------------------------------------------------------------------------

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
        rail = local.rail
        ports: list[tuple[Node, NIC]] = []
        for node in cl.compute_nodes:
            for nic in node.nics:
                if nic.role == "compute" and nic.rail == rail:
                    ports.append((node, nic))
        active = [(n, p) for n, p in ports if links.port_active(n, p)]
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
                what = (f"Unexpected actual link width {nic.width.upper()} (enabled width: 4X)"
                        if nic.width.upper() != "4X" else
                        f"Unexpected actual link speed {links.speed_name(nic)} (enabled speed: NDR)")
                log.append(f"-W- Link: {nic.peer_switch}/P{nic.peer_port} <--> {node.name}/{nic.name}/P1 - {what}, "
                           f"rate {nic.rate_gbps} Gb/s instead of {nic.max_rate_gbps} Gb/s")
        if warnings["Speed / Width checks"]:
            o("-I- Link Speed Check (Compare to supported link speed)")
            o(f"-W- Speed / Width checks finished with {warnings['Speed / Width checks']} warnings")
        else:
            o("-I- Link Speed Check (Compare to supported link speed)")
            o("-I- Speed / Width checks finished successfully")
        o("")
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


def _snake(name: str) -> str:
    """``SymbolErrorCounter`` -> ``symbol_error_counter`` (ibdiagnet's counter names)."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


# -- iblinkinfo -----------------------------------------------------------------------------------------

#: Per-lane signalling rate as iblinkinfo prints it, by IBTA speed name.
LANE_TEXT = {"SDR": "2.5 Gbps", "QDR": "10.0 Gbps", "FDR": "14.0625 Gbps", "EDR": "25.78125 Gbps",
             "HDR": "53.125 Gbps", "NDR": "106.25 Gbps", "XDR": "212.5 Gbps"}


#: Leaf-to-spine links train at the full NDR 4X rate.
UPLINK = ("4X", "NDR")


def _link(lid: int, port: int, trained: tuple[str, str] | None, peer_lid: int, peer_port: int, peer: str,
          note: str) -> str:
    """One iblinkinfo line; ``trained`` is (width, speed name), None for a link that is down."""
    head = f"{'':6}{lid:>6} {port:>4}[  ] ==("
    if trained is None:
        return f"{head}{'Down':>20}/ Polling)==>{'':13}[  ] \"\" ( )"
    width, speed = trained
    return (f"{head}{width:>3} {LANE_TEXT.get(speed, ''):>19} Active/  LinkUp)==>  {peer_lid:>6} {peer_port:>4}[  ] "
            f"\"{peer}\" ( {note})")


def _trained(node: Node, nic: NIC) -> tuple[str, str] | None:
    return (nic.width.upper(), links.speed_name(nic)) if links.port_active(node, nic) else None


def _could_be(nic: NIC) -> str:
    """iblinkinfo's hint when a link trained below what both ends support."""
    if nic.width.upper() != "4X":
        return "Could be 4X"
    if nic.rate_gbps < nic.max_rate_gbps:
        return f"Could be {LANE_TEXT['NDR']}"
    return ""


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
                    if links.port_active(node, nic) and not args.downports:  # a CA behind a down link is not discovered
                        ctx.outln(f"CA: {node.name} {nic.name}:")
                        ctx.outln(_link(nic.lid, 1, _trained(node, nic), links.switch_lid(cl, leaf), nic.peer_port, leaf,
                                        _could_be(nic)))
            return 0
        for leaf in leaves:
            lid = links.switch_lid(cl, leaf)
            ctx.outln(f"Switch: {links.switch_guid(cl, leaf)} {leaf}:")
            for node, nic in sorted(ports[leaf], key=lambda item: item[1].peer_port):
                if args.downports and links.port_active(node, nic):
                    continue
                ctx.outln(_link(lid, nic.peer_port, _trained(node, nic), nic.lid, 1, f"{node.name} {nic.name}",
                                _could_be(nic)))
            if not args.downports:
                for k, spine in enumerate(spines):
                    ctx.outln(_link(lid, 33 + k, UPLINK, links.switch_lid(cl, spine), leaves.index(leaf) + 1, spine, ""))
        if not args.downports:
            for spine in spines:
                lid = links.switch_lid(cl, spine)
                ctx.outln(f"Switch: {links.switch_guid(cl, spine)} {spine}:")
                for k, leaf in enumerate(leaves):
                    ctx.outln(_link(lid, k + 1, UPLINK, links.switch_lid(cl, leaf), 33 + spines.index(spine), leaf, ""))
        return 0


def _fabric_cas(ctx: Context, ca: str | None = None) -> tuple[NIC, list[tuple[Node, NIC]]] | None:
    """The local active IB port (``ca``'s, or the first) and every CA port its subnet (rail) reaches."""
    local = next((n for n in devices(ctx) if n.link_layer == "InfiniBand" and is_up(n) and ca in (None, n.name)),
                 None)
    if local is None:
        return None
    found = [(node, nic) for node in ctx.cluster.compute_nodes for nic in node.nics
             if nic.role == "compute" and nic.rail == local.rail and links.port_active(node, nic)]
    return local, found


class Ibhosts(DiagCommand):
    name = "ibhosts"
    summary = "show InfiniBand host (CA) nodes in the fabric"
    section = "Fabric"

    def execute(self, ctx: Context, args: argparse.Namespace) -> Outcome:
        fabric = _fabric_cas(ctx)
        if fabric is None:
            raise ctx.fail(f"ibwarn: [{fake_pid(ctx, self.name)}] mad_rpc_open_port: can't open UMAD port ((null):0)\n"
                           "/usr/sbin/ibnetdiscover: iberror: failed: discover failed", 255)
        for node, nic in fabric[1]:
            ctx.outln(f"Ca\t: {nic.node_guid} ports 1 \"{node.name} {nic.name}\"")
        return 0


class Ibswitches(DiagCommand):
    name = "ibswitches"
    directory = "/usr/sbin"
    summary = "show InfiniBand switch nodes in the fabric"
    section = "Fabric"

    def execute(self, ctx: Context, args: argparse.Namespace) -> Outcome:
        fabric = _fabric_cas(ctx)
        if fabric is None:
            raise ctx.fail(f"ibwarn: [{fake_pid(ctx, self.name)}] mad_rpc_open_port: can't open UMAD port ((null):0)\n"
                           "/usr/sbin/ibnetdiscover: iberror: failed: discover failed", 255)
        rail = fabric[0].rail
        cl = ctx.cluster
        for name, (_, r) in sorted(cl.switches.items()):
            if r in (rail, -1):
                ctx.outln(f"Switch\t: {links.switch_guid(cl, name)} ports 64 \"{name}\" enhanced port 0 "
                          f"lid {links.switch_lid(cl, name)} lmc 0")
        return 0


def _discover_failed(ctx: Context, tool: str) -> Exception:
    return ctx.fail(f"ibwarn: [{fake_pid(ctx, tool)}] mad_rpc_open_port: can't open UMAD port ((null):0)\n"
                    f"{tool}: iberror: failed: discover failed", 255)


class Ibnetdiscover(DiagCommand):
    name = "ibnetdiscover"
    directory = "/usr/sbin"
    summary = "discover the InfiniBand topology and print it as a topology file"
    section = "Fabric"

    def configure(self, parser: ArgumentParser) -> None:
        parser.add_argument("-l", "--list", action="store_true", help="list of connected nodes")
        parser.add_argument("-H", "--Hca_list", action="store_true", help="list of connected CAs")
        parser.add_argument("-S", "--Switch_list", action="store_true", help="list of connected switches")

    def execute(self, ctx: Context, args: argparse.Namespace) -> Outcome:
        fabric = _fabric_cas(ctx)
        if fabric is None:
            raise _discover_failed(ctx, self.name)
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


class Sminfo(DiagCommand):
    name = "sminfo"
    directory = "/usr/sbin"
    summary = "query the InfiniBand subnet manager's info"
    section = "Fabric"

    def execute(self, ctx: Context, args: argparse.Namespace) -> Outcome:
        fabric = _fabric_cas(ctx)
        if fabric is None:
            raise _discover_failed(ctx, self.name)
        cl = ctx.cluster
        r = rng(cl.seed, "sm", fabric[0].rail)
        guid = f"0x{0xFC6A1C:06x}0300{r.getrandbits(24):06x}"
        activity = r.randrange(10**6, 10**7) + int(cl.clock.elapsed / 10)
        ctx.outln(f"sminfo: sm lid {fabric[0].sm_lid} sm guid {guid}, activity count {activity} priority 15 state 3 "
                  "SMINFO_MASTER")
        return 0


class Ibclearcounters(DiagCommand):
    name = "ibclearcounters"
    summary = "clear the port counters of every port in the fabric"
    section = "Fabric"
    notes = "Clears the counters of every CA and switch port the local port reaches (as perfquery -R on each)."

    def execute(self, ctx: Context, args: argparse.Namespace) -> Outcome:
        fabric = _fabric_cas(ctx)
        if fabric is None:
            raise _discover_failed(ctx, self.name)
        cl = ctx.cluster
        rail_gbps = counters.job_rail_gbps(cl)
        cables = links.cabling(cl)
        cas = fabric[1]
        leaves = sorted({nic.peer_switch for _, nic in cas})
        for node, nic in cas:
            counters.reset_counters(cl, node, nic, rail_gbps)
            counters.reset_switch_counters(cl, nic.peer_switch, nic.peer_port, cables)
        for leaf in leaves:
            for k, spine in enumerate(cables.spines):
                counters.reset_switch_counters(cl, leaf, links.DOWNLINKS + 1 + k, cables)
                counters.reset_switch_counters(cl, spine, cables.leaves.index(leaf) + 1, cables)
        ctx.outln(f"## Summary: {len(cas) + len(leaves) + len(cables.spines)} nodes cleared 0 errors")
        return 0


#: ibqueryerrors' default thresholds (an error count at or below them is not reported).
ERROR_THRESHOLDS = {
    "SymbolErrorCounter": 10, "LinkErrorRecoveryCounter": 10, "LinkDownedCounter": 10, "PortRcvErrors": 10,
    "PortRcvRemotePhysicalErrors": 100, "PortRcvSwitchRelayErrors": 100, "PortXmitDiscards": 100,
    "PortXmitConstraintErrors": 100, "PortRcvConstraintErrors": 100, "LocalLinkIntegrityErrors": 10,
    "ExcessiveBufferOverrunErrors": 10, "VL15Dropped": 100, "PortXmitWait": 0,
}


#: Data counters ``--data`` appends to a port with errors (extended PMA counters).
DATA_FIELDS = ("PortXmitData", "PortRcvData", "PortXmitPkts", "PortRcvPkts", "PortUnicastXmitPkts",
               "PortUnicastRcvPkts", "PortMulticastXmitPkts", "PortMulticastRcvPkts")


class Ibqueryerrors(DiagCommand):
    name = "ibqueryerrors"
    directory = "/usr/sbin"
    summary = "query and report IB port counters above their thresholds across the fabric"
    section = "Fabric"
    notes = ("PortXmitWait is reported too: it counts ticks a port waited to send (congestion), not errors.\n"
             "-s NAME[,NAME] suppresses counters; -k clears the counters after reading them.\n"
             "--data appends the data counters and -r the link of every port reported; --switch and --ca\n"
             "limit the report to switches or to CAs.")

    def configure(self, parser: ArgumentParser) -> None:
        parser.add_argument("-s", "--suppress", metavar="ERR1,ERR2", help="suppress errors listed")
        parser.add_argument("-c", "--suppress-common", action="store_true",
                            help="suppress some of the common counters (RcvSwRelayErrors)")
        parser.add_argument("-r", "--report-port", action="store_true", help="report port link information")
        parser.add_argument("--data", action="store_true", help="include data counters for ports with errors")
        parser.add_argument("--switch", action="store_true", help="print data for switches only")
        parser.add_argument("--ca", action="store_true", help="print data for CA's only")
        parser.add_argument("--router", action="store_true", help="print data for routers only")
        parser.add_argument("--details", action="store_true", help="include transmit discard details")
        parser.add_argument("-k", "--clear-errors", action="store_true", help="clear error counters after read")
        parser.add_argument("-K", "--clear-counts", action="store_true", help="clear data counters after read")
        parser.add_argument("-C", "--Ca", metavar="CA", help="Ca name to use")
        parser.add_argument("-P", "--Port", metavar="PORT", help="Ca port number to use")
        parser.add_argument("-v", "--verbose", action="count", default=0, help="increase verbosity level")

    def execute(self, ctx: Context, args: argparse.Namespace) -> Outcome:
        cl = ctx.cluster
        fabric = _fabric_cas(ctx, args.Ca) if args.Port in (None, "1") else None
        if fabric is None:
            name, num = args.Ca or "(null)", args.Port or "0"
            raise ctx.fail(f"ibwarn: [{fake_pid(ctx, self.name)}] mad_rpc_open_port: can't open UMAD port "
                           f"({name}:{num})\nibqueryerrors: iberror: failed: Failed to open '{name}' port '{num}'", 255)
        suppressed = {n.strip() for n in (args.suppress or "").split(",") if n.strip()}
        if args.suppress_common:
            suppressed.add("PortRcvSwitchRelayErrors")
        unknown = sorted(suppressed - set(ERROR_THRESHOLDS))
        if unknown:
            raise ctx.fail(f"ibqueryerrors: iberror: failed: Invalid suppress error field: {unknown[0]}", 255)
        # --switch, --ca and --router each select a node type; several together print each of them.
        kinds = {k for k, on in (("switch", args.switch), ("ca", args.ca), ("router", args.router)) if on} or \
            {"switch", "ca", "router"}
        rail_gbps = counters.job_rail_gbps(cl)
        bad_nodes = bad_ports = 0

        def report(values: dict[str, int]) -> str:
            # CX-7 and Quantum-2 PMAs have the extended error counters: 64-bit values with a human-readable form.
            found = "".join(f" [{name} == {values[name]} ({human(values[name])})]"
                            + (_rcv_error_details(values) if name == "PortRcvErrors" and args.details else "")
                            for name, limit in ERROR_THRESHOLDS.items()
                            if name not in suppressed and values[name] > limit)
            if found and args.data:
                found += "".join(f" [{name} == {values[name]} ({human(values[name], name in DATA_WORDS)})]"
                                 for name in DATA_FIELDS if values[name])
            return found

        cas = fabric[1]
        leaves = sorted({nic.peer_switch for _, nic in cas})
        spines = sorted(name for name, (kind, _) in cl.switches.items() if kind == "spine")
        all_leaves = sorted(name for name, (kind, _) in cl.switches.items() if kind == "leaf")
        by_port = {(nic.peer_switch, nic.peer_port): (node, nic) for node, nic in cas}
        if "ca" in kinds:
            for node, nic in cas:
                found = report(counters.counters(cl, node, nic, rail_gbps))
                if found:
                    bad_nodes, bad_ports = bad_nodes + 1, bad_ports + 1
                    ctx.outln(f"Errors for \"{node.name} {nic.name}\"")
                    ctx.outln(f"   GUID {nic.port_guid} port 1:{found}")
                    if args.report_port:
                        ctx.outln(_link_info(nic.lid, 1, _trained(node, nic), links.switch_guid(cl, nic.peer_switch),
                                             links.switch_lid(cl, nic.peer_switch), nic.peer_port, nic.peer_switch,
                                             _could_be(nic)))
                if args.clear_errors:
                    counters.reset_counters(cl, node, nic, rail_gbps)
        in_use = {leaf: [nic.peer_port for _, nic in cas if nic.peer_switch == leaf] +
                  [links.DOWNLINKS + 1 + k for k in range(len(spines))] for leaf in leaves}
        in_use.update({spine: [all_leaves.index(leaf) + 1 for leaf in leaves] for spine in spines})
        cables = links.cabling(cl)

        def link_info(switch: str, port: int) -> str:
            lid = links.switch_lid(cl, switch)
            if switch in spines:
                leaf = all_leaves[port - 1]
                return _link_info(lid, port, UPLINK, links.switch_guid(cl, leaf), links.switch_lid(cl, leaf),
                                  links.DOWNLINKS + 1 + spines.index(switch), leaf, "")
            if port > links.DOWNLINKS:
                spine = spines[port - links.DOWNLINKS - 1]
                return _link_info(lid, port, UPLINK, links.switch_guid(cl, spine), links.switch_lid(cl, spine),
                                  all_leaves.index(switch) + 1, spine, "")
            node, nic = by_port[(switch, port)]
            return _link_info(lid, port, _trained(node, nic), nic.port_guid, nic.lid, 1, f"{node.name} {nic.name}",
                              _could_be(nic))

        for switch, used in in_use.items() if "switch" in kinds else ():
            lines = []
            for port in sorted(used):
                found = report(counters.switch_counters(cl, switch, port, rail_gbps, cables))
                if found:
                    lines.append(f"   GUID {links.switch_guid(cl, switch)} port {port}:{found}")
                    if args.report_port:
                        lines.append(link_info(switch, port))
                if args.clear_errors:
                    counters.reset_switch_counters(cl, switch, port, cables)
            if lines:
                bad_nodes, bad_ports = bad_nodes + 1, bad_ports + sum(1 for ln in lines if ln.startswith("   GUID"))
                ctx.outln(f"Errors for {links.switch_guid(cl, switch)} \"{switch}\"")
                for line in lines:
                    ctx.outln(line)
        nodes = (len(cas) if "ca" in kinds else 0) + (len(leaves) + len(spines) if "switch" in kinds else 0)
        checked = (len(cas) if "ca" in kinds else 0) + \
            (sum(len(p) for p in in_use.values()) if "switch" in kinds else 0)
        ctx.outln()
        ctx.outln(f"## Summary: {nodes} nodes checked, {bad_nodes} bad nodes found")
        ctx.outln(f"##          {checked} ports checked, {bad_ports} ports have errors beyond threshold")
        ctx.outln("## Thresholds: " + "".join(f"[{name} = {limit}]" for name, limit in ERROR_THRESHOLDS.items()
                                              if name != "PortXmitWait"))
        ctx.outln("## Suppressed:" + "".join(f" {n}" for n in ERROR_THRESHOLDS if n in suppressed))
        return 0


def _f32(value: float) -> float:
    """``value`` rounded to a C float, as the tool computes it."""
    return float(struct.unpack("f", struct.pack("f", value))[0])


def human(value: int, data: bool = False) -> str:
    """infiniband-diags' conv_cnt_human_readable: ``32.238K``; data counters count 4-byte words → ``1.540TB``."""
    units = ("B", "KB", "MB", "GB", "TB", "PB", "EB") if data else ("", "K", "M", "G", "T", "P", "E")
    ui, div, tmp = 0, 1, value // 1024
    while tmp:
        ui, tmp, div = ui + 1, tmp // 1024, div * 1024
    val = _f32(float(value))
    if data:
        val = _f32(val * 4)
        if val / div > 1024:
            ui, div = ui + 1, div * 1024
    val = _f32(val / div)
    return f"{val:5.3f}{units[ui] if ui < len(units) else ''}"


#: Data counters that count 4-byte words.
DATA_WORDS = ("PortXmitData", "PortRcvData")


def _rcv_error_details(values: dict[str, int]) -> str:
    """``--details`` for PortRcvErrors: the tool reads PortRcvErrorDetails but labels its 16-bit
    fields with the PortXmitDiscardDetails names, so local physical errors print as the first of those."""
    physical = min(values["PortRcvErrors"], 0xFFFF)
    return f" [PortInactiveDiscards == {physical}]" if physical else ""


def _link_info(lid: int, port: int, trained: tuple[str, str] | None, peer_guid: str, peer_lid: int,
               peer_port: int, peer: str, could_be: str) -> str:
    """The ``Link info:`` line ``-r`` prints under a port with errors (print_port_config)."""
    if trained is None:
        return f"       Link info: {lid:6d}{port:4d}[  ] ==(              {'Down':>6}/{'Polling':>8})==>  " \
               '           [  ] "" ( )'
    width, speed = trained
    width_msg, speed_msg = (could_be, "") if could_be.endswith("X") else ("", could_be)
    return (f"       Link info: {lid:6d}{port:4d}[  ] ==({width:>3} {LANE_TEXT.get(speed, ''):>18} {'Active':>6}/"
            f"{'LinkUp':>8})==>  0x{int(peer_guid, 16):016x} {peer_lid:6d} {peer_port:4d}[  ] \"{peer}\" "
            f"({width_msg} {speed_msg})")


def commands() -> list[Command]:
    return [Ibdiagnet(), Iblinkinfo(), Ibhosts(), Ibswitches(), Ibqueryerrors(), Ibnetdiscover(), Sminfo(),
            Ibclearcounters()]
