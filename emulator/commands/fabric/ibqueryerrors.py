"""``ibqueryerrors``: the port counters above their thresholds across the fabric the local port reaches.

Values print as the tool's extended PMA counters, with infiniband-diags'
human-readable form; ``--data`` and ``-r`` add data counters and link info to
each port reported, ``-k`` clears the counters after reading them.
"""

from __future__ import annotations

import argparse
import struct

from emulator.cluster import counters, links
from emulator.commands.fabric.devices import ADDL_PORT_CTRS_EXT, SWITCH_PMA_CAPS, pma_caps
from emulator.commands.fabric.diag import DiagCommand, fake_pid
from emulator.commands.fabric.discovery import LANE_TEXT, UPLINK, could_be, fabric_cas, trained_as
from emulator.commands.fabric.perfquery import BASIC_FIELDS
from emulator.commands.kit.command import Command, Context, Outcome
from emulator.commands.kit.spec import ArgumentParser

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
        fabric = fabric_cas(ctx, args.Ca) if args.Port in (None, "1") else None
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

        def report(values: dict[str, int], capmask2: int = SWITCH_PMA_CAPS[1]) -> str:
            # ibqueryerrors.c check_threshold: a port advertising IsAdditionalPortCountersExtendedSupported
            # is read in 64 bits and printed with a human-readable form; any other from PortCounters, each
            # counter at its own width, as a plain number.
            extended = bool(capmask2 & ADDL_PORT_CTRS_EXT)
            if not extended:
                values = {**values, **{name: counters.clamp(values[name], bits) for name, bits in BASIC_FIELDS
                                       if name in ERROR_THRESHOLDS}}
            found = "".join(f" [{name} == {values[name]}" + (f" ({human(values[name])})]" if extended else "]")
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
                found = report(counters.counters(cl, node, nic, rail_gbps), pma_caps(nic)[1])
                if found:
                    bad_nodes, bad_ports = bad_nodes + 1, bad_ports + 1
                    ctx.outln(f"Errors for \"{node.name} {nic.name}\"")
                    ctx.outln(f"   GUID {nic.port_guid} port 1:{found}")
                    if args.report_port:
                        ctx.outln(_link_info(nic.lid, 1, trained_as(node, nic), links.switch_guid(cl, nic.peer_switch),
                                             links.switch_lid(cl, nic.peer_switch), nic.peer_port, nic.peer_switch,
                                             could_be(nic)))
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
            return _link_info(lid, port, trained_as(node, nic), nic.port_guid, nic.lid, 1, f"{node.name} {nic.name}",
                              could_be(nic))

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
               peer_port: int, peer: str, hint: str) -> str:
    """The ``Link info:`` line ``-r`` prints under a port with errors (print_port_config)."""
    if trained is None:
        return f"       Link info: {lid:6d}{port:4d}[  ] ==(              {'Down':>6}/{'Polling':>8})==>  " \
               '           [  ] "" ( )'
    width, speed = trained
    width_msg, speed_msg = (hint, "") if hint.endswith("X") else ("", hint)
    return (f"       Link info: {lid:6d}{port:4d}[  ] ==({width:>3} {LANE_TEXT.get(speed, ''):>18} {'Active':>6}/"
            f"{'LinkUp':>8})==>  0x{int(peer_guid, 16):016x} {peer_lid:6d} {peer_port:4d}[  ] \"{peer}\" "
            f"({width_msg} {speed_msg})")


def commands() -> list[Command]:
    return [Ibqueryerrors()]
