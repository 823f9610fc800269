"""``ipmitool`` 1.8.19 against the nodes' BMCs, rendered from the model: its options, the session, the commands.

Out of band (``-I lanplus -H node05-bmc -U admin -P ...``) a BMC answers
whatever its host's OS is doing; in band (no ``-H``) ipmitool talks to the
local BMC through ``/dev/ipmi0``, which only compute nodes have. Power
commands change the model through :mod:`emulator.cluster.lifecycle`, so a
``power on`` boots the host after a simulated delay and Slurm, the SEL and
the boot history follow.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from emulator.cluster.model import Node
from emulator.commands.bmc.chassis import chassis, power
from emulator.commands.bmc.inventory import fru, lan, mc
from emulator.commands.bmc.sel import sel
from emulator.commands.bmc.sensors import sdr, sensor
from emulator.commands.bmc.sol import sol
from emulator.commands.kit.command import Command, Context, Outcome, ParsedCommand

VERSION = "1.8.19"
NO_SESSION = "Error: Unable to establish IPMI v2 / RMCP+ session"
NO_DEVICE = "Could not open device at /dev/ipmi0 or /dev/ipmi/0 or /dev/ipmidev/0: No such file or directory"
COMMANDS_HELP = """\
Commands:
\traw           Send a RAW IPMI request and print response
\tlan           Configure LAN Channels
\tchassis       Get chassis status and set power state
\tpower         Shortcut to chassis power commands
\tmc            Management Controller status and global enables
\tsdr           Print Sensor Data Repository entries and readings
\tsensor        Print detailed sensor information
\tsel           Print System Event Log (SEL)
\tsol           Configure and connect IPMIv2.0 Serial-over-LAN
"""

#: Each command's handler, called with the node whose BMC answers and the words after the command.
HANDLERS: dict[str, Callable[[Context, Node, list[str]], Outcome]] = {
    "power": power, "chassis": chassis, "sel": sel, "sdr": sdr, "sensor": sensor, "fru": fru, "lan": lan,
    "mc": mc, "bmc": mc, "sol": sol,
}


class Ipmitool(ParsedCommand):
    name = "ipmitool"
    summary = "utility for controlling IPMI-enabled devices (BMCs)"
    section = "Out-of-band management"
    usage_status = 1
    add_help_flag = False
    notes = ("Commands: chassis status|power|restart_cause|identify|poh|bootdev, power status|on|off|cycle|reset|soft, "
             "sel list|elist [first|last N], sel info|clear|time get, sdr [list|elist [full]|type TYPE], "
             "sensor [list|get NAME], fru print, mc selftest, "
             "lan print [1], mc info, sol activate. The BMC numbers GPUs from 1 (GPU1 Temp is nvidia-smi's GPU 0). "
             "sol activate ends by itself after a few seconds, as if ~. had been typed. "
             "The BMCs take the operator account kept in /etc/ipmi/bmc.cred on the login node (root only: "
             "sudo cat it); a wrong user or password fails like the real tool. Give it with -P, or -E with "
             "IPMI_PASSWORD.")

    def configure(self, parser: Any) -> None:
        parser.add_argument("-I", dest="interface", metavar="INTF", help="interface: open, lan, lanplus")
        parser.add_argument("-H", dest="host", metavar="ADDRESS", help="remote BMC hostname or IP")
        parser.add_argument("-U", dest="user", metavar="USERNAME", help="remote session username")
        parser.add_argument("-P", dest="password", metavar="PASSWORD", help="remote session password")
        parser.add_argument("-E", dest="env_password", action="store_true", help="read the password from IPMI_PASSWORD")
        parser.add_argument("-L", dest="level", metavar="LEVEL", help="session privilege level")
        parser.add_argument("-p", dest="port", metavar="PORT", help="remote RMCP port")
        parser.add_argument("-C", dest="cipher", metavar="CIPHER", help="cipher suite for lanplus")
        parser.add_argument("-c", dest="csv", action="store_true", help="CSV output")
        parser.add_argument("-v", dest="verbose", action="count", default=0, help="verbose output")
        parser.add_argument("-V", dest="version", action="store_true", help="print the version")
        parser.add_argument("-h", dest="help", action="help", help="show this help")
        parser.add_argument("words", nargs=argparse.REMAINDER, metavar="COMMAND", help="command and its arguments")

    def usage_error(self, message: str) -> str:
        return f"ipmitool: {message}\nipmitool version {VERSION}\n\nusage: ipmitool [options...] <command>"

    def execute(self, ctx: Context, args: argparse.Namespace) -> Outcome:
        if args.version:
            ctx.outln(f"ipmitool version {VERSION}")
            return 0
        if not args.words:
            ctx.err("No command provided!\n" + COMMANDS_HELP)
            return 1
        node = _connect(ctx, args)
        verb, rest = args.words[0], list(args.words[1:])
        handler = HANDLERS.get(verb)
        if handler is None:
            raise ctx.fail(f"Invalid command: {verb}")
        return handler(ctx, node, rest)


def _connect(ctx: Context, args: argparse.Namespace) -> Node:
    """The node whose BMC answers, or the real tool's failure."""
    cluster = ctx.cluster
    interface = args.interface or ("lanplus" if args.host else "open")
    if interface not in ("open", "lan", "lanplus"):
        raise ctx.fail(f"Error: Invalid interface '{interface}'")
    if interface == "open":
        if ctx.host.bmc is None:
            raise ctx.fail(NO_DEVICE)
        return ctx.host
    if not args.host:
        raise ctx.fail("Error: No hostname specified!" if interface == "lanplus" else NO_SESSION)
    password = args.password
    if args.env_password:
        password = ctx.env.get("IPMI_PASSWORD")
        if password is None:
            raise ctx.fail("Unable to read password from environment")
    node = cluster.bmc_host(args.host)
    # A wrong user or password fails the RAKP exchange; ipmitool names it only with -v (lanplus.c logs
    # "> RAKP 2 HMAC is invalid" at LOG_INFO) and otherwise prints the session error, status 1.
    known = node.bmc.users if node is not None and node.bmc is not None else {}
    if node is not None and password and known.get(args.user or "") != password and interface == "lanplus" \
            and args.verbose:
        ctx.err("> RAKP 2 HMAC is invalid\n" if (args.user or "") in known
                else "RAKP 2 message indicates an error : unauthorized name\n")
    if node is None or not password or known.get(args.user or "") != password:
        if node is not None and interface == "lan":
            raise ctx.fail("Error: Unable to establish LAN session\nError: Unable to establish IPMI v1.5 / RMCP session")
        raise ctx.fail(NO_SESSION)
    return node


def commands() -> list[Command]:
    return [Ipmitool()]

