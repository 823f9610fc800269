"""The perftest bandwidth tools: ``ib_write_bw``, ``ib_read_bw`` and ``ib_send_bw``.

A run is a client pointed at a server host (``ib_write_bw -d mlx5_3 node02``);
the emulator plays the server side on that host's port of the same name, as
an operator starts it there first. The bandwidth is what the two ports
sustain together (:func:`emulator.cluster.links.effective_gbps` of both,
times perftest's protocol efficiency), so a port trained at HDR measures
about half of its NDR peers. Without a server host the tool waits for a
client as the real server does, until interrupted (bounded in simulated time).
"""

from __future__ import annotations

import argparse
from collections.abc import Generator

from emulator.cluster import links
from emulator.cluster.hardware import NIC
from emulator.cluster.ids import rng
from emulator.commands.fabric.devices import device, devices, is_up
from emulator.commands.kit.command import Command, Context, Outcome, ParsedCommand
from emulator.commands.kit.spec import ArgumentParser
from emulator.commands.kit.usage import getopt_error

EFFICIENCY = {"write": 0.981, "read": 0.975, "send": 0.978}
#: Message size (bytes) at which bandwidth reaches half its peak.
HALF_BW_BYTES = {"write": 1_200, "read": 2_000, "send": 1_500}
TITLES = {"write": "RDMA_Write BW Test", "read": "RDMA_Read BW Test", "send": "Send BW Test"}
RULE = "-" * 87
#: Seconds a server waits for its client before giving up in a non-interactive run.
SERVER_WAIT_S = 600.0


class BwTest(ParsedCommand):
    """One of the perftest bandwidth tests (set ``verb``)."""

    verb = "write"
    section = "Fabric"
    usage_status = 1

    def configure(self, parser: ArgumentParser) -> None:
        parser.add_argument("-d", "--ib-dev", metavar="DEVICE", help="use IB device DEVICE (default first found)")
        parser.add_argument("-i", "--ib-port", metavar="PORT", default="1", help="use port PORT of IB device")
        parser.add_argument("-s", "--size", metavar="SIZE", type=int, default=65536, help="size of message (bytes)")
        parser.add_argument("-a", "--all", action="store_true", help="run sizes from 2 till 2^23")
        parser.add_argument("-n", "--iters", metavar="ITERS", type=int, default=5000, help="number of exchanges")
        parser.add_argument("-F", "--CPU-freq", action="store_true", help="do not fail on CPU frequency warnings")
        parser.add_argument("--report_gbits", action="store_true", help="report bandwidth in Gb/sec")
        parser.add_argument("-q", "--qp", metavar="QPS", type=int, default=1, help="number of QPs")
        parser.add_argument("server", nargs="?", help="server host to connect to (server mode without it)")

    def usage_error(self, message: str) -> str:
        return getopt_error(self.name, message) + f"\n Usage:\n  {self.name}            start a server and wait " \
            f"for connection\n  {self.name} <host>     connect to server at <host>"

    def execute(self, ctx: Context, args: argparse.Namespace) -> Outcome:
        if args.size < 1 or args.size > 2**31 or args.iters < 1 or args.iters > 10**8 or not 1 <= args.qp <= 64:
            raise ctx.fail(" Invalid size, iteration or QP count", 1)
        local = device(ctx, args.ib_dev) if args.ib_dev else next((n for n in devices(ctx) if is_up(n)), None)
        if local is None:
            raise ctx.fail(f" IB device {args.ib_dev or ''} not found\n Unable to find the Infiniband/RoCE device", 1)
        if args.ib_port != "1":
            raise ctx.fail(f" Couldn't get context for the device\n Unable to open port {args.ib_port}", 1)
        if not is_up(local):
            raise ctx.fail(" Port number 1 state is Down\n Couldn't get context for the device", 1)
        if args.server is None:
            return self._serve(ctx, args, local)
        host = ctx.cluster.node(args.server)
        peer = host.nic(local.name) if host is not None and host.health.os_up else None
        if host is None:
            raise ctx.fail(f"Unable to resolve host {args.server}\n Couldn't connect to {args.server}:18515", 1)
        if peer is None or not is_up(peer) or peer.link_layer != local.link_layer:
            raise ctx.fail(f" Couldn't connect to {args.server}:18515\nUnable to open file descriptor for socket "
                           "connection Unable to init the socket connection", 1)
        return self._client(ctx, args, local, host.name, peer)

    def _serve(self, ctx: Context, args: argparse.Namespace, local: NIC) -> Generator[float, None, int]:
        self._banner(ctx, args, local)
        ctx.outln("\n************************************")
        ctx.outln("* Waiting for client to connect... *")
        ctx.outln("************************************")
        waited = 0.0
        while waited < SERVER_WAIT_S:
            yield 5.0
            waited += 5.0
        return 1

    def _banner(self, ctx: Context, args: argparse.Namespace, local: NIC) -> None:
        o = ctx.outln
        ib = local.link_layer == "InfiniBand"
        o("")
        o(RULE)
        o(f"{TITLES[self.verb]:>{20 + len(TITLES[self.verb])}}")
        o(f" Dual-port       : OFF\t\tDevice         : {local.name}")
        o(f" Number of qps   : {args.qp}\t\tTransport type : IB")
        o(" Connection type : RC\t\tUsing SRQ      : OFF")
        o(" PCIe relax order: ON")
        o(" ibv_wr* API     : ON")
        o(" TX depth        : 128")
        if self.verb == "read":
            o(" Outstand reads  : 16")
        o(" CQ Moderation   : 1")
        o(f" Mtu             : {4096 if ib else 1024}[B]")
        o(f" Link type       : {'IB' if ib else 'Ethernet'}")
        if not ib:
            o(" GID index       : 3")
        o(" Max inline data : 0[B]")
        o(" rdma_cm QPs\t : OFF")
        o(" Data ex. method : Ethernet")
        o(RULE)

    def _client(self, ctx: Context, args: argparse.Namespace, local: NIC, peer_host: str,
                peer: NIC) -> Generator[float, None, int]:
        self._banner(ctx, args, local)
        r = rng(ctx.cluster.seed, ctx.host.name, peer_host, local.name, self.verb, round(ctx.clock.elapsed))
        for side, nic in (("local", local), ("remote", peer)):
            lid = links.port_lid(nic)
            ctx.outln(f" {side} address: LID {lid:#06x} QPN {r.randrange(0x100, 0x3000):#06x} "
                      f"PSN {r.getrandbits(24):#08x} RKey {r.getrandbits(24):#08x} VAddr {0x7f0000000000 | r.getrandbits(36):#016x}")
        ctx.outln(RULE)
        gbits = args.report_gbits
        unit = "Gb/sec" if gbits else "MB/sec"
        ctx.outln(f" #bytes     #iterations    BW peak[{unit}]    BW average[{unit}]   MsgRate[Mpps]")
        line_gbps = min(links.effective_gbps(local), links.effective_gbps(peer)) * EFFICIENCY[self.verb]
        sizes = [2**k for k in range(1, 24)] if args.all else [args.size]
        for size in sizes:
            avg = line_gbps * size / (size + HALF_BW_BYTES[self.verb]) * r.uniform(0.995, 1.0)
            peak = avg * r.uniform(1.0, 1.004)
            rate = avg * 1e9 / 8 / size / 1e6
            show = (lambda g: g) if gbits else (lambda g: g * 1e9 / 8 / 2**20)
            iters = args.iters if not args.all else 5000
            ctx.outln(f" {size:<10} {iters:<10}       {show(peak):<19.2f}{show(avg):.2f}\t\t   {rate:.6f}")
            # Each size moves iters x size bytes at the measured rate.
            yield max(0.001, iters * size * 8 / max(avg * 1e9, 1.0))
        ctx.outln(RULE)
        return 0


class IbWriteBw(BwTest):
    name = "ib_write_bw"
    summary = "RDMA write bandwidth test between two hosts (perftest)"
    verb = "write"


class IbReadBw(BwTest):
    name = "ib_read_bw"
    summary = "RDMA read bandwidth test between two hosts (perftest)"
    verb = "read"


class IbSendBw(BwTest):
    name = "ib_send_bw"
    summary = "send bandwidth test between two hosts (perftest)"
    verb = "send"


def commands() -> list[Command]:
    return [IbWriteBw(), IbReadBw(), IbSendBw()]
