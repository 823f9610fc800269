"""``mlxlink`` (NVIDIA Firmware Tools): a port's operational state, its module's optics and its BER counters.

The BER counters are the adapter's physical-layer ones (:mod:`emulator.cluster.phy`):
``--pc`` clears them, a PMA reset (``perfquery -R``) does not.
"""

from __future__ import annotations

import argparse

from emulator.cluster import links, phy
from emulator.cluster.hardware import NIC
from emulator.cluster.ids import rng
from emulator.commands.fabric.devices import is_up
from emulator.commands.kit.command import Command, Context, Outcome, ParsedCommand
from emulator.commands.kit.spec import ArgumentParser
from emulator.commands.kit.usage import getopt_error

#: The NVIDIA Firmware Tools release mlxlink reports.
MFT_VERSION = "mft 4.26.1-3"

#: IB_LINK_SPEED bits (mstflint mlxlink/modules/mlxlink_enums.h), in the order
#: IBSupportedSpeeds2Str (mlxlink_utils.cpp) lists them.
IB_SPEEDS = (("NDR", 0x80), ("HDR", 0x40), ("EDR", 0x20), ("FDR", 0x10), ("FDR10", 0x08), ("QDR", 0x04),
             ("DDR", 0x02), ("SDR", 0x01))
#: ETH_LINK_SPEED_EXT bits (the PTYS extended Ethernet protocols), in the order EthExtSupportedSpeeds2Str
#: lists them.
ETH_EXT_SPEEDS = (("400G_8X", 0x8000), ("200G_4X", 0x1000), ("100G_2X", 0x400), ("100G_4X", 0x200),
                  ("50G_1X", 0x100), ("50G_2X", 0x80), ("40G", 0x20), ("25G", 0x40), ("10G", 0x10),
                  ("5G", 0x08), ("2.5G", 0x04), ("1G", 0x02), ("100M", 0x01))
#: The speeds the ports enable: an NDR ConnectX-7 (NDR, HDR, EDR, FDR, DDR) and a 200GbE one.
IB_MASK = 0x000000F2
ETH_EXT_MASK = 0x000017F2


def speeds(mask: int, table: tuple[tuple[str, int], ...]) -> str:
    """``0x000000f2 (NDR,HDR,EDR,FDR,DDR)``: the mask and the speeds its bits name, as mlxlink prints them."""
    return f"0x{mask:08x} ({','.join(name for name, bit in table if mask & bit)})"


def _section(ctx: Context, title: str, rows: list[tuple[str, str]]) -> None:
    ctx.outln()
    ctx.outln(title)
    ctx.outln("-" * len(title))
    for key, value in rows:
        ctx.outln(f"{key:<32}: {value}")


class Mlxlink(ParsedCommand):
    name = "mlxlink"
    summary = "check and debug link status (NVIDIA Firmware Tools)"
    section = "Fabric"
    usage_status = 1

    def configure(self, parser: ArgumentParser) -> None:
        parser.add_argument("-d", "--device", metavar="DEVICE", help="Perform operation for a specified mst device")
        parser.add_argument("-p", "--port", metavar="PORT", default="1", help="Port Number")
        parser.add_argument("-c", "--show_counters", action="store_true", help="Show Physical Counters and BER Info")
        parser.add_argument("--show_ber", action="store_true", help="Show Physical Counters and BER Info")
        parser.add_argument("-m", "--show_module", action="store_true", help="Show Module Info")
        parser.add_argument("--pc", "--clear_counters", dest="clear_counters", action="store_true",
                            help="Clear the counters")
        parser.add_argument("-v", "--version", action="store_true", help="Display version info")

    def usage_error(self, message: str) -> str:
        return f"-E- {getopt_error(self.name, message).split(': ', 1)[1]}"

    def execute(self, ctx: Context, args: argparse.Namespace) -> Outcome:
        if args.version:
            ctx.outln(f"mlxlink, {MFT_VERSION}, built on Oct 31 2023, 15:47:42. Git SHA Hash: N/A")
            return 0
        if not args.device:
            raise ctx.fail("-E- Please provide a device name using -d", 1)
        nic = self._resolve(ctx, args.device)
        if nic is None:
            raise ctx.fail(f"-E- Failed to open device: \"{args.device}\", No such file or directory", 1)
        if args.port != "1":
            raise ctx.fail(f"-E- Invalid port number: {args.port}", 1)
        up = is_up(nic)
        ib = nic.link_layer == "InfiniBand"
        speed = (f"IB-{links.speed_name(nic)}" if ib else f"{nic.rate_gbps}G") if up else "N/A"
        fec = "N/A"
        if up:
            fec = ("Interleaved Standard RS-FEC - (544,514)" if links.speed_name(nic) == "NDR"
                   else "Standard RS-FEC - RS(544,514)")
        supported = speeds(IB_MASK, IB_SPEEDS) if ib else speeds(ETH_EXT_MASK, ETH_EXT_SPEEDS)
        enabled = supported
        if ib and nic.enabled_speeds:   # narrowed with mlxlink --speeds: the cable still supports them all
            enabled = speeds(sum(bit for name, bit in IB_SPEEDS if name in nic.enabled_speeds), IB_SPEEDS)
        ext = "" if ib else " (Ext.)"   # mlxlink_commander.cpp: an Ethernet port's extended protocols
        _section(ctx, "Operational Info", [
            ("State", nic.state if up else ("Disable" if nic.phys_state == "Disabled" else "Polling")),
            ("Physical state", "LinkUp" if up else nic.phys_state),
            ("Speed", speed),
            ("Width", f"{links.lanes(nic)}x" if up else "N/A"),
            ("FEC", fec),
            ("Loopback Mode", "No Loopback"),
            ("Auto Negotiation", "ON"),
        ])
        _section(ctx, "Supported Info", [(f"Enabled Link Speed{ext}", enabled),
                                         (f"Supported Cable Speed{ext}", supported)])
        if up:
            opcode, group, advice = "0", "N/A", "No issue was observed"
        elif nic.phys_state == "Disabled":
            opcode, group, advice = "0", "N/A", "Port is disabled by command"
        else:
            opcode, group, advice = "1024", "PHY FW", "Cable is unplugged or the remote port is down"
        _section(ctx, "Troubleshooting Info",
                 [("Status Opcode", opcode), ("Group Opcode", group), ("Recommendation", advice)])
        _section(ctx, "Tool Information", [("Firmware Version", nic.firmware), ("amBER Version", "2.22"),
                                           ("MFT Version", MFT_VERSION)])
        if args.show_module:
            self._module(ctx, nic)
        if args.show_counters or args.show_ber:
            self._counters(ctx, nic)
        if args.clear_counters:     # mlxlink_commander.cpp clearCounters: PPCNT, every group
            ctx.outln()
            ctx.outln("Clearing Counters...")
            phy.clear(ctx.cluster, ctx.host, nic)
        ctx.outln()
        return 0

    def _resolve(self, ctx: Context, spec: str) -> NIC | None:
        for nic in ctx.host.nics:
            bus = nic.pci_bus_id.lower()
            if spec.lower() in (nic.name, bus, bus[5:], bus[5:-2]):
                return nic
        return None

    def _module(self, ctx: Context, nic: NIC) -> None:
        """The transceiver's identity and live optics. A marginal link shows one weak
        receive lane, a link trained at 2X two dark ones; a port polling for a peer receives no light at all."""
        r = rng(ctx.cluster.seed, ctx.host.name, nic.name, "module")
        rx, tx = phy.lane_optics(ctx.cluster, ctx.host, nic, r)
        ib = nic.link_layer == "InfiniBand"
        part, compliance = ("MMA4Z00-NS400", "400GBASE-SR4") if ib else ("MMA1L30-CM", "200GBASE-SR4")
        serial = f"MT{2300 + r.randrange(40)}FT{r.randrange(10**5):05d}"
        _section(ctx, "Module Info", [
            ("Identifier", "OSFP" if ib else "QSFP112"), ("Compliance", compliance),
            ("Cable Technology", "850 nm VCSEL"), ("Cable Type", "Optical Module (separated)"),
            ("OUI", "Mellanox"), ("Vendor Name", "Mellanox"), ("Vendor Part Number", part),
            ("Vendor Serial Number", serial), ("Rev", "A2"), ("Wavelength [nm]", "850"),
            ("Transfer Distance [m]", "50"), ("FW Version", "47.120.0"),
            ("Digital Diagnostic Monitoring", "Yes"), ("Power Class", "8.0 W max"),
            ("CDR RX", "ON,ON,ON,ON"), ("CDR TX", "ON,ON,ON,ON"),
            ("Temperature [C]", f"{_temp(nic, r.randint(44, 58))} [-5..75]"),
            ("Voltage [mV]", f"{r.uniform(3270, 3300):.1f} [3135..3465]"),
            ("Bias Current [mA]", ",".join(f"{r.uniform(6.6, 7.2):.3f}" for _ in range(4)) + " [2..15]"),
            ("Rx Power Current [dBm]", ",".join(f"{v:.3f}" for v in rx) + " [-10.4..5]"),
            ("Tx Power Current [dBm]", ",".join(f"{v:.3f}" for v in tx) + " [-8.4..4]"),
        ])

    def _counters(self, ctx: Context, nic: NIC) -> None:
        cl, node = ctx.cluster, ctx.host
        values = phy.phy_counters(cl, node, nic)
        per_lane = ",".join(str(n) for n in phy.lane_errors(cl, node, nic)) or ",".join("0" * links.lanes(nic))
        raw = phy.raw_ber(cl, node, nic)
        symbols = values["SymbolErrorCounter"]
        _section(ctx, "Physical Counters and BER Info", [
            ("Time Since Last Clear [Min]", f"{phy.seconds_since_clear(cl, node, nic) / 60:.1f}"),
            ("Effective Physical Errors", str(symbols)),
            ("Effective Physical BER", phy.ber_text(phy.symbol_ber(cl, node, nic))),
            ("Raw Physical Errors Per Lane", per_lane),
            ("Raw Physical BER", phy.ber_text(raw)),
            ("Symbol Errors", str(symbols)),
            ("Symbol BER", phy.ber_text(phy.symbol_ber(cl, node, nic))),
            ("Link Down Counter", str(values["LinkDownedCounter"])),
            ("Link Error Recovery Counter", str(values["LinkErrorRecoveryCounter"])),
        ])


def _temp(nic: NIC, normal: int) -> int:
    """The module's temperature: what a fault drove it to, else its normal reading."""
    return normal if nic.module_temp_c is None else nic.module_temp_c


def commands() -> list[Command]:
    return [Mlxlink()]
