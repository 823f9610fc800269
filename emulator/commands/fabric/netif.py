"""The Linux network views of the current host: ``ip`` (iproute2) and ``ethtool``.

Interfaces come from the model: ``lo``, the management port ``eno1``, the
IPoIB netdevs of the rail NICs (``ibp24s0``...) and the storage Ethernet
ports; their state follows the NIC's port state, their speed its rate.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from emulator.cluster.hardware import NIC
from emulator.cluster.ids import rng
from emulator.commands.fabric.devices import eui64, is_up, link_local
from emulator.commands.fabric.iproute2 import spellings
from emulator.commands.kit.command import Command, Context, Outcome, ParsedCommand, RawCommand
from emulator.commands.kit.spec import ArgumentParser, Flag
from emulator.commands.kit.usage import getopt_error

if TYPE_CHECKING:  # pragma: no cover
    from emulator.cluster.model import Cluster, Node


def _eno1_mac(cluster: Cluster, node: Node) -> str:
    r = rng(cluster.seed, node.name, "eno1")
    low = r.getrandbits(24)
    return f"7c:c2:55:{low >> 16:02x}:{(low >> 8) & 0xFF:02x}:{low & 0xFF:02x}"


def interfaces(cluster: Cluster, node: Node) -> list[dict[str, object]]:
    """A host's network interfaces in ifindex order, from the model (for ``ip``,
    ``ethtool`` and a /sys/class/net view): name, kind, up, mtu, mac, inet, inet6,
    speed in Mb/s, and the NIC behind it (None for ``lo`` and ``eno1``)."""
    items: list[dict[str, object]] = [
        {"name": "lo", "kind": "loopback", "up": True, "mtu": 65536, "mac": "00:00:00:00:00:00",
         "inet": "127.0.0.1/8", "inet6": "::1/128", "speed": 0, "nic": None},
        {"name": "eno1", "kind": "ether", "up": True, "mtu": 1500, "mac": _eno1_mac(cluster, node),
         "inet": f"{node.mgmt_ipv4}/16", "inet6": link_local(eui64(_eno1_mac(cluster, node)), flip=False),
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


# ip's options, grouped by what they set: the parser checks each word against a group's spellings.
BRIEF_FLAGS = (Flag("-br", "-brief", "", "one line per interface: name, state and addresses (or MAC)"),)
STATS_FLAGS = (Flag("-s", "-statistics", "", "with link: the RX and TX bytes and packets of each interface"),
               Flag("", "-stats", "", "the same as -s"))
FAMILY_FLAGS = (Flag("-4", "", "", "IPv4 only"), Flag("-6", "", "", "IPv6 only (the last of -4 and -6 wins)"))
PLAIN_FLAGS = (Flag("-c", "-color", "", "accepted; the output is never coloured"),
               Flag("-d", "-details", "", "accepted; the output shows no further details"))
HELP_FLAGS = (Flag("-h", "-help", "", "print the usage and exit"), Flag("", "--help", "", "the same as -h"))
#: iproute2's own usage text, shortened to what the emulator offers.
USAGE = ("Usage: ip [ OPTIONS ] OBJECT { COMMAND | help }\n"
         "where  OBJECT := { address | link | route | ... }\n"
         "       OPTIONS := { -4 | -6 | -br[ief] | -s[tatistics] | ... }\n")


class Ip(RawCommand):
    name = "ip"
    directory = "/usr/sbin"
    summary = "show network interfaces and addresses (iproute2)"
    section = "Fabric"
    description = ("OBJECT is link (l), address (a, addr) or route (r), each optionally followed by show [dev] IFNAME.\n"
                   "Interface state follows the port in the model.")
    flags = (*BRIEF_FLAGS, *STATS_FLAGS, *FAMILY_FLAGS, *PLAIN_FLAGS, *HELP_FLAGS)
    words = ("address", "link", "route")
    synopsis = "[-br] [-s] [-4|-6] {link | address | route} [show [dev] IFNAME]"

    def execute(self, ctx: Context) -> Outcome:
        words = ctx.argv[1:]
        brief, family, stats = False, "", False
        while words and words[0].startswith("-"):
            flag = words.pop(0)
            if flag in spellings(BRIEF_FLAGS):
                brief = True
            elif flag in spellings(STATS_FLAGS):
                stats = True
            elif flag in spellings(FAMILY_FLAGS):
                family = flag
            elif flag in spellings(HELP_FLAGS):
                ctx.out(USAGE)
                return 0
            elif flag in spellings(PLAIN_FLAGS):
                continue
            else:
                raise ctx.fail(f'Option "{flag}" is unknown, try "ip -help".', 255)
        if not words:
            raise ctx.fail(USAGE.splitlines()[0], 255)
        obj, rest = words[0], words[1:]
        if rest and rest[0] in ("show", "list", "sh", "ls", "lst"):
            rest = rest[1:]
        if rest and rest[0] == "dev":
            rest = rest[1:]
        want = rest[0] if rest else ""
        items = interfaces(ctx.cluster, ctx.host)
        if want:
            items = [i for i in items if i["name"] == want]
            if not items:
                raise ctx.fail(f'Device "{want}" does not exist.', 1)
        if obj in ("l", "li", "lin", "link"):
            self._show(ctx, items, brief, addresses=False, family=family, stats=stats)
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

    def _show(self, ctx: Context, items: list[dict[str, object]], brief: bool, addresses: bool, family: str,
              stats: bool = False) -> None:
        all_items = interfaces(ctx.cluster, ctx.host)
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
            if stats and not addresses:
                t = traffic(ctx.cluster, ctx.host, item)
                ctx.outln("    RX:  bytes packets errors dropped  missed   mcast           ")
                ctx.outln(f"    {t['rx_bytes']:>10} {t['rx_packets']:>7} {0:>6} {0:>7} {0:>7} {0:>7} ")
                ctx.outln("    TX:  bytes packets errors dropped carrier collsns           ")
                ctx.outln(f"    {t['tx_bytes']:>10} {t['tx_packets']:>7} {0:>6} {0:>7} {0:>7} {0:>7} ")
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


class Ethtool(ParsedCommand):
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

    def execute(self, ctx: Context, args: argparse.Namespace) -> Outcome:
        item = next((i for i in interfaces(ctx.cluster, ctx.host) if i["name"] == args.devname), None)
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
        t = traffic(ctx.cluster, ctx.host, item)
        if nic is not None and nic.link_layer == "InfiniBand":
            rows = [("rx_packets", t["rx_packets"]), ("rx_bytes", t["rx_bytes"]), ("tx_packets", t["tx_packets"]),
                    ("tx_bytes", t["tx_bytes"]), ("rx_csum_complete", t["rx_packets"]), ("rx_csum_none", 0),
                    ("tx_csum_partial", t["tx_packets"] // 3), ("tx_queue_dropped", 0), ("rx_wqe_err", 0),
                    ("tx_cqe_err", 0)]
        else:
            rows = [("rx_packets", t["rx_packets"]), ("rx_bytes", t["rx_bytes"]), ("tx_packets", t["tx_packets"]),
                    ("tx_bytes", t["tx_bytes"]), ("rx_csum_unnecessary", t["rx_packets"] - t["rx_packets"] // 90),
                    ("rx_crc_errors_phy", 0), ("rx_discards_phy", 0), ("tx_discards_phy", 0),
                    ("rx_out_of_buffer", 0), ("link_down_events_phy", 0 if item["up"] else 1)]
        ctx.outln("NIC statistics:")
        for key, value in rows:
            ctx.outln(f"     {key}: {value}")
        return 0


def traffic(cluster: Cluster, node: Node, item: dict[str, object]) -> dict[str, int]:
    """Bytes and packets an interface moved since boot (``ip -s``, ``ethtool -S``).

    IPoIB netdevs carry only the little IP traffic of the rails (RDMA bypasses
    them); the storage ports carry the parallel filesystem's reads; ``eno1`` the
    management and bootstrap traffic.
    """
    r = rng(cluster.seed, node.name, str(item["name"]), "stats")
    t = cluster.clock.elapsed
    nic = item["nic"]
    if item["kind"] == "loopback":
        packets = r.randrange(10**5, 10**6) + int(3 * t)
        return {"rx_bytes": packets * 180, "rx_packets": packets, "tx_bytes": packets * 180, "tx_packets": packets}
    if isinstance(nic, NIC) and nic.link_layer == "InfiniBand":
        packets = r.randrange(10**6, 10**7) + int(40 * t)
        return {"rx_bytes": packets * 310, "rx_packets": packets, "tx_bytes": packets * 296,
                "tx_packets": packets + r.randrange(1000)}
    speed = int(str(item["speed"])) * 1e6 / 8
    rate = 0.08 * speed if item["up"] else 0.0
    rx_bytes = r.randrange(10**12, 10**13) + int(rate * t)
    tx_bytes = r.randrange(10**11, 10**12) + int(rate * 0.2 * t)
    return {"rx_bytes": rx_bytes, "rx_packets": rx_bytes // 8200, "tx_bytes": tx_bytes, "tx_packets": tx_bytes // 4100}


def commands() -> list[Command]:
    return [Ip(), Ethtool()]
