"""ping across the management network, by host name, FQDN, BMC name or address."""

from __future__ import annotations

import argparse

from emulator.cluster.ids import rng
from emulator.commands.kit.command import Context, Outcome, ParsedCommand
from emulator.commands.kit.spec import ArgumentParser

SECTION = "Shell"


class Ping(ParsedCommand):
    name = "ping"
    streams = True
    summary = "send ICMP echo requests to a host (-c COUNT, -i INTERVAL, -q)"
    section = SECTION
    usage_status = 2
    notes = "Without -c, ping stops by itself after 10 packets here (Ctrl-C stops it sooner)."

    def configure(self, parser: ArgumentParser) -> None:
        parser.add_argument("-c", dest="count", type=int, metavar="COUNT", help="stop after sending COUNT packets")
        parser.add_argument("-i", dest="interval", type=float, default=1.0, metavar="INTERVAL",
                            help="seconds between sending each packet")
        parser.add_argument("-W", dest="timeout", type=float, metavar="TIMEOUT", help="time to wait for a response")
        parser.add_argument("-q", dest="quiet", action="store_true", help="quiet output")
        parser.add_argument("-n", dest="numeric", action="store_true", help="no reverse DNS name resolution")
        parser.add_argument("host", metavar="HOST", help="host name or address")

    def usage_error(self, message: str) -> str:
        if "required" in message:
            return "ping: usage error: Destination address required"
        return f"ping: {message}"

    def execute(self, ctx: Context, args: argparse.Namespace) -> Outcome:
        target = _resolve(ctx, args.host)
        if target is None:
            raise ctx.fail(f"ping: {args.host}: Name or service not known", 2)
        if args.count is not None and args.count <= 0:
            raise ctx.fail(f"ping: invalid argument: '{args.count}': out of range: 1 <= value <= 9223372036854775807", 1)
        name, address, up = target
        count = args.count or 10
        interval = max(0.2, min(args.interval, 60.0))
        shown = address if args.numeric else name

        ctx.outln(f"PING {args.host} ({address}) 56(84) bytes of data.")
        times: list[float] = []
        for seq in range(1, count + 1):
            if up:
                rtt = rng(ctx.cluster.seed, "ping", address, int(ctx.clock.elapsed), seq).uniform(0.085, 0.19)
                times.append(rtt)
                if not args.quiet:
                    ctx.outln(f"64 bytes from {shown} ({address}): icmp_seq={seq} ttl=64 time={rtt:.3f} ms")
            elif not args.quiet and seq % 3 == 0:
                for missed in range(seq - 2, seq + 1):
                    ctx.outln(f"From {ctx.host.mgmt_ipv4} icmp_seq={missed} Destination Host Unreachable")
            if seq < count:
                yield interval
        if not up and not args.quiet:
            for missed in range(count - count % 3 + 1, count + 1):
                ctx.outln(f"From {ctx.host.mgmt_ipv4} icmp_seq={missed} Destination Host Unreachable")
        elapsed = int((count - 1) * interval * 1000 + (3 if up else 30))
        ctx.outln()
        ctx.outln(f"--- {args.host} ping statistics ---")
        if up:
            mean = sum(times) / len(times)
            mdev = (sum((t - mean) ** 2 for t in times) / len(times)) ** 0.5
            ctx.outln(f"{count} packets transmitted, {count} received, 0% packet loss, time {elapsed}ms")
            ctx.outln(f"rtt min/avg/max/mdev = {min(times):.3f}/{mean:.3f}/{max(times):.3f}/{mdev:.3f} ms")
            return 0
        ctx.outln(f"{count} packets transmitted, 0 received, +{count} errors, 100% packet loss, time {elapsed}ms")
        ctx.outln(f"pipe {min(count, 3)}")
        return 1



def _resolve(ctx: Context, name: str) -> tuple[str, str, bool] | None:
    """(reverse name, address, answers) for a host name, FQDN, BMC name or address."""
    cluster = ctx.cluster
    domain = cluster.domain
    for node in cluster.nodes.values():
        if name in (node.name, f"{node.name}.{domain}", node.mgmt_ipv4):
            return f"{node.name}.{domain}", node.mgmt_ipv4, node.health.os_up
        bmc = node.bmc
        if bmc is not None and name in (bmc.hostname, f"{bmc.hostname}.{domain}", bmc.ipv4):
            return f"{bmc.hostname}.{domain}", bmc.ipv4, True
    if name in ("localhost", "127.0.0.1"):
        return "localhost", "127.0.0.1", True
    return None
