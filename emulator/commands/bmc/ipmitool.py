"""``ipmitool`` 1.8.19 against the nodes' BMCs, rendered from the model.

Out of band (``-I lanplus -H node05-bmc -U admin -P ...``) a BMC answers
whatever its host's OS is doing; in band (no ``-H``) ipmitool talks to the
local BMC through ``/dev/ipmi0``, which only compute nodes have. Power
commands change the model through :mod:`emulator.cluster.lifecycle`, so a
``power on`` boots the host after a simulated delay and Slurm, the SEL and
the boot history follow.
"""

from __future__ import annotations

import argparse
from collections.abc import Generator
from typing import Any

from emulator.cluster import lifecycle, telemetry
from emulator.cluster.hardware import BMC, SelEntry, Sensor
from emulator.cluster.ids import rng
from emulator.cluster.model import Cluster, Node
from emulator.commands.kit.command import Command, Context, Outcome, ParsedCommand

VERSION = "1.8.19"
NO_SESSION = "Error: Unable to establish IPMI v2 / RMCP+ session"
NO_DEVICE = "Could not open device at /dev/ipmi0 or /dev/ipmi/0 or /dev/ipmidev/0: No such file or directory"
POWER_USAGE = "chassis power Commands: status, on, off, cycle, reset, diag, soft"
#: SEL capacity as ``sel info`` reports it (allocation units of 18 bytes).
SEL_UNITS = 3639
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
#: SDR entity and type of each sensor name prefix, for ``sdr type``.
SENSOR_TYPES = {"degrees C": "Temperature", "RPM": "Fan", "Watts": "Current", "Volts": "Voltage"}


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
             "Passwords are not checked, but one must be given (-P or -E with IPMI_PASSWORD).")

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
        bmc = node.bmc
        assert bmc is not None
        words = list(args.words)
        verb, rest = words[0], words[1:]
        if verb == "power":
            return _power(ctx, node, rest)
        if verb == "chassis":
            if rest[:1] == ["status"]:
                _chassis_status(ctx, bmc)
                return 0
            if rest[:1] == ["power"]:
                return _power(ctx, node, rest[1:])
            if rest[:1] == ["restart_cause"]:
                ctx.outln(f"System restart cause: {bmc.restart_cause}")
                return 0
            if rest[:1] == ["identify"]:
                seconds = rest[1] if len(rest) > 1 else ""
                if seconds and not seconds.isdecimal() and seconds != "force":
                    raise ctx.fail("Invalid interval given.")
                shown = "default (15 seconds)" if not seconds else (
                    "indefinite" if seconds == "force" else "off" if seconds == "0" else f"{seconds} seconds")
                ctx.outln(f"Chassis identify interval: {shown}")
                return 0
            if rest[:1] == ["poh"]:
                # Hours before the clock's start (seeded per node) plus the simulated time since.
                hours = rng(ctx.cluster.seed, node.name, "poh").randint(4_000, 9_000) + int(ctx.clock.elapsed // 3600)
                ctx.outln(f"POH Counter  : {hours} hours total ({hours // 24} days, {hours % 24} hours)")
                return 0
            if rest[:1] == ["bootdev"]:
                devices = ("none", "pxe", "disk", "safe", "diag", "cdrom", "bios", "floppy")
                if len(rest) < 2 or rest[1] not in devices:
                    raise ctx.fail("bootdev <device> [clear-cmos=yes|no]\n"
                                   "bootdev <device> [options=help,...]\n"
                                   "  none  : Do not change boot device order\n"
                                   "  pxe   : Force PXE boot\n"
                                   "  disk  : Force boot from default Hard-drive\n"
                                   "  safe  : Force boot from default Hard-drive, request Safe Mode\n"
                                   "  diag  : Force boot from Diagnostic Partition\n"
                                   "  cdrom : Force boot from CD/DVD\n"
                                   "  bios  : Force boot into BIOS Setup\n"
                                   "  floppy: Force boot from Floppy/primary removable media")
                ctx.outln(f"Set Boot Device to {rest[1]}")
                return 0
            ctx.err("Chassis Commands:  status, power, identify, policy, restart_cause, poh, bootdev, bootparam, "
                    "selftest\n")
            return 1 if rest else 0
        if verb == "sel":
            return _sel(ctx, node, rest)
        if verb == "sdr":
            return _sdr(ctx, bmc, live_sensors(ctx.cluster, node), rest)
        if verb == "sensor":
            if rest[:1] == ["get"]:
                return _sensor_get(ctx, live_sensors(ctx.cluster, node), rest[1:], bmc.power_on)
            if rest and rest[0] != "list":
                raise ctx.fail(f"Invalid sensor command: {rest[0]}")
            for sensor in live_sensors(ctx.cluster, node):
                ctx.outln(_sensor_line(sensor, bmc.power_on))
            return 0
        if verb == "fru":
            if rest and rest[0] not in ("print", "list"):
                raise ctx.fail(f"Invalid FRU command: {rest[0]}")
            _fru(ctx, node)
            return 0
        if verb == "lan":
            if rest[:1] != ["print"]:
                raise ctx.fail("usage: lan print [channel]")
            if rest[1:2] not in ([], ["1"]):
                raise ctx.fail(f"Invalid channel: {rest[1]}")
            _lan_print(ctx, bmc)
            return 0
        if verb in ("mc", "bmc"):
            if rest[:1] == ["selftest"]:
                ctx.outln("Selftest: passed")
                return 0
            if rest[:1] != ["info"]:
                raise ctx.fail("MC Commands:\n  reset <warm|cold>\n  guid\n  info\n  watchdog <get|reset|off>\n"
                               "  selftest\n  getenables\n  setenables <option=on|off> ...")
            _mc_info(ctx, bmc)
            return 0
        if verb == "sol":
            if rest[:1] != ["activate"]:
                raise ctx.fail("SOL Commands: info [<channel number>]\n              activate [<usesolkeepalive|"
                               "usesolkeepalive>] [instance=<number>]\n              deactivate [instance=<number>]")
            return _sol(ctx, node)
        raise ctx.fail(f"Invalid command: {verb}")


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
    if node is None or node.bmc is None or not password or (args.user or "") not in node.bmc.users:
        if node is not None and interface == "lan":
            raise ctx.fail("Error: Unable to establish LAN session\nError: Unable to establish IPMI v1.5 / RMCP session")
        raise ctx.fail(NO_SESSION)
    return node


# -- chassis and power ----------------------------------------------------------------------


def _chassis_status(ctx: Context, bmc: BMC) -> None:
    event = bmc.last_power_event
    off = not bmc.power_on
    rows = [
        ("System Power", "on" if bmc.power_on else "off"),
        ("Power Overload", _bool(off and event == "overload")),
        ("Power Interlock", "inactive"),
        ("Main Power Fault", _bool(off and event == "fault")),
        ("Power Control Fault", "false"),
        ("Power Restore Policy", "previous"),
        ("Last Power Event", event if event in ("", "command") else f"{event} "),  # ipmitool's own spacing
        ("Chassis Intrusion", "inactive"),
        ("Front-Panel Lockout", "inactive"),
        ("Drive Fault", "false"),
        ("Cooling/Fan Fault", "false"),
    ]
    for label, value in rows:
        ctx.outln(f"{label:<21}: {value}")


def _bool(value: bool) -> str:
    return "true" if value else "false"


def _power(ctx: Context, node: Node, words: list[str]) -> int:
    bmc = node.bmc
    assert bmc is not None
    cluster, now = ctx.cluster, ctx.clock.elapsed
    action = words[0] if words else ""
    if action == "status":
        ctx.outln(f"Chassis Power is {'on' if bmc.power_on else 'off'}")
        return 0
    if action in ("cycle", "reset") and not bmc.power_on:
        raise ctx.fail(f"Set Chassis Power Control to {action.capitalize()} failed: "
                       "Command not supported in present state")
    labels = {"on": "Up/On", "up": "Up/On", "off": "Down/Off", "down": "Down/Off", "cycle": "Cycle",
              "reset": "Reset", "soft": "Soft", "diag": "Diag"}
    if action not in labels:
        ctx.err(POWER_USAGE + "\n")
        return 1
    if action in ("on", "up"):
        lifecycle.power_on(cluster, node, now)
    elif action in ("off", "down"):
        if bmc.power_on:
            lifecycle.power_off(cluster, node, now)
    elif action in ("cycle", "reset"):
        lifecycle.reset(cluster, node, now, cycle=action == "cycle")
    elif action == "soft":
        lifecycle.soft_off(cluster, node, now)
    ctx.outln(f"Chassis Power Control: {labels[action]}")
    return 0


# -- SEL ----------------------------------------------------------------------------------------


def _entries(ctx: Context, bmc: BMC) -> list[SelEntry]:
    """SEL records logged up to now, oldest first."""
    now = ctx.clock.elapsed
    return sorted((e for e in bmc.sel if e.offset_s <= now), key=lambda e: e.offset_s)


def _sel(ctx: Context, node: Node, words: list[str]) -> int:
    bmc = node.bmc
    assert bmc is not None
    cluster = ctx.cluster
    action = words[0] if words else "info"
    entries = _entries(ctx, bmc)
    if action in ("list", "elist"):
        if not entries:
            ctx.outln("SEL has no entries")
            return 0
        numbered = list(enumerate(entries, start=1))
        if len(words) >= 3 and words[1] in ("first", "last"):
            if not words[2].isdecimal():
                raise ctx.fail(f"Invalid count: {words[2]}")
            count = int(words[2])
            numbered = numbered[:count] if words[1] == "first" else numbered[-count:] if count else []
        for i, entry in numbered:
            at = cluster.clock.at(entry.offset_s)
            sensor = entry.sensor
            if action == "elist" and entry.name:
                sensor = f"{entry.sensor.split(' #')[0]} {entry.name}"
            ctx.outln(f"{i:4x} | {at:%m/%d/%Y} | {at:%H:%M:%S} | {sensor} | {entry.event} | {entry.direction}")
        return 0
    if action == "info":
        used = len(entries)
        last_add = cluster.clock.at(entries[-1].offset_s) if entries else None
        last_del = cluster.clock.at(entries[0].offset_s) if entries else None
        ctx.out(
            "SEL Information\n"
            "Version          : 1.5 (v1.5, v2 compliant)\n"
            f"Entries          : {used}\n"
            f"Free Space       : {(SEL_UNITS - used) * 18} bytes\n"
            f"Percent Used     : {used * 100 // SEL_UNITS}%\n"
            f"Last Add Time    : {f'{last_add:%m/%d/%Y %H:%M:%S}' if last_add else 'Not Available'}\n"
            f"Last Del Time    : {f'{last_del:%m/%d/%Y %H:%M:%S}' if last_del else 'Not Available'}\n"
            "Overflow         : false\n"
            "Supported Cmds   : 'Reserve' 'Get Alloc Info' \n"
            f"# of Alloc Units : {SEL_UNITS}\n"
            "Alloc Unit Size  : 18\n"
            f"# Free Units     : {SEL_UNITS - used}\n"
            f"Largest Free Blk : {SEL_UNITS - used}\n"
            "Max Record Size  : 18\n"
        )
        return 0
    if action == "time" and words[1:2] == ["get"]:
        ctx.outln(f"{cluster.clock.now():%m/%d/%Y %H:%M:%S}")
        return 0
    if action == "clear":
        now = ctx.clock.elapsed
        bmc.sel[:] = [e for e in bmc.sel if e.offset_s > now]
        bmc.sel.insert(0, SelEntry(now, "Event Logging Disabled #0x0f", "Log area reset/cleared", name="SEL Status"))
        ctx.outln("Clearing SEL.  Please allow a few seconds to erase.")
        return 0
    raise ctx.fail(f"Invalid SEL command: {action}")


# -- sensors ------------------------------------------------------------------------------------


def _reading(sensor: Sensor, powered: bool) -> float | None:
    """A sensor's value now: host-side sensors read nothing while main power is off."""
    if sensor.unit == "discrete":
        return None
    if not powered and not sensor.name.startswith("Inlet"):
        return None
    return sensor.reading


def _number(value: float) -> str:
    return f"{value:.0f}" if value == int(value) else f"{value:.2f}"


def _discrete_state(sensor: Sensor) -> str:
    return "Presence detected, Failure detected" if sensor.status == "cr" else "Presence detected"


def live_sensors(cluster: Cluster, node: Node) -> list[Sensor]:
    """The BMC's sensors read now: power and CPU heat follow the load, GPU
    temperatures are the ones NVML reports (the BMC numbers them from 1)."""
    bmc = node.bmc
    assert bmc is not None
    busy = node.health.os_up and any(j.state == "RUNNING" and node.name in j.nodes for j in cluster.slurm.jobs)
    scale = {"Total Power": 1.0 if busy else 0.42, "CPU0 Temp": 1.0 if busy else 0.78,
             "CPU1 Temp": 1.0 if busy else 0.78}
    found: list[Sensor] = []
    for sensor in bmc.sensors:
        reading = sensor.reading
        if reading is not None and sensor.name in scale:
            reading = float(round(reading * scale[sensor.name]))
        found.append(Sensor(sensor.name, reading, sensor.unit, sensor.status, sensor.entity, sensor.sensor_id))
        if sensor.name == "CPU1 Temp":
            for gpu in node.gpus:
                temp = float(telemetry.sample(cluster, node, gpu).temp_c) if gpu.present else None
                found.append(Sensor(f"GPU{gpu.index + 1} Temp", temp, "degrees C", "ok" if temp is not None else "ns",
                                    f"11.{gpu.index + 1}", f"0x{0x50 + gpu.index:02x}"))
    return found


def _sdr(ctx: Context, bmc: BMC, sensors: list[Sensor], words: list[str]) -> int:
    mode = words[0] if words else "list"
    if mode == "type":
        if len(words) < 2:
            ctx.outln("Sensor Types:\n\tTemperature               (0x01)   Voltage                   (0x02)\n"
                      "\tCurrent                   (0x03)   Fan                       (0x04)\n"
                      "\tPower Supply              (0x08)   Processor                 (0x07)")
            return 0
        wanted = " ".join(words[1:]).lower()
        sensors = [s for s in sensors if _sensor_type(s).lower() == wanted]
        if not sensors and wanted not in ("temperature", "fan", "current", "voltage", "power supply"):
            raise ctx.fail(f"Invalid SDR type: {' '.join(words[1:])}")
        mode = "elist"
    elif mode not in ("list", "elist") or words[1:2] not in ([], ["all"], ["full"], ["compact"]):
        raise ctx.fail(f"Invalid SDR command: {' '.join(words)}")
    for sensor in sensors:
        value = _reading(sensor, bmc.power_on)
        status = sensor.status if value is not None or sensor.unit == "discrete" else "ns"
        if mode == "list":
            if sensor.unit == "discrete":
                shown = "0x02" if sensor.status == "cr" else "0x01"
            else:
                shown = "no reading" if value is None else f"{_number(value)} {sensor.unit}"
            ctx.outln(f"{sensor.name:<16} | {shown:<17} | {status}")
        else:
            if sensor.unit == "discrete":
                shown = _discrete_state(sensor)
            else:
                shown = "No Reading" if value is None else f"{_number(value)} {sensor.unit}"
            ctx.outln(f"{sensor.name:<16} | {int(sensor.sensor_id, 16):02X}h | {status:<3} | {sensor.entity:>4} | {shown}")
    return 0


def _sensor_get(ctx: Context, sensors: list[Sensor], names: list[str], powered: bool) -> int:
    """``sensor get NAME...``: one block per sensor, as ipmitool prints a sensor record."""
    if not names:
        raise ctx.fail("Not enough parameters given.")
    status = 0
    ctx.outln("Locating sensor record...")
    for name in names:
        sensor = next((x for x in sensors if x.name == name), None)
        if sensor is None:
            ctx.err(f"Sensor data record \"{name}\" not found!\n")
            status = 1
            continue
        ident = f"{sensor.name} ({int(sensor.sensor_id, 16):#x})"
        if sensor.unit == "discrete":
            states = ["[Presence detected]"] + (["[Failure detected]"] if sensor.status == "cr" else [])
            ctx.outln(f"Sensor ID              : {ident}")
            ctx.outln(f" Entity ID             : {sensor.entity}")
            ctx.outln(" Sensor Type (Discrete): Power Supply")
            ctx.outln(" States Asserted       : Power Supply\n" + "\n".join(f"{'':25}{x}" for x in states))
            continue
        value = _reading(sensor, powered)
        ctx.outln(f"Sensor ID              : {ident}")
        ctx.outln(f" Entity ID             : {sensor.entity}")
        ctx.outln(f" Sensor Type (Threshold)  : {_sensor_type(sensor)}")
        if value is None:
            ctx.outln(" Sensor Reading        : No Reading")
        else:
            ctx.outln(f" Sensor Reading        : {_number(value)} (+/- 0) {sensor.unit}")
            ctx.outln(f" Status                : {sensor.status}")
    return status


def _sensor_type(sensor: Sensor) -> str:
    if sensor.unit == "discrete":
        return "Power Supply"
    return SENSOR_TYPES.get(sensor.unit, "Other")


def _sensor_line(sensor: Sensor, powered: bool) -> str:
    value = _reading(sensor, powered)
    if sensor.unit == "discrete":
        return (f"{sensor.name:<16} | {'0x2' if sensor.status == 'cr' else '0x1':<10} | {'discrete':<10} | "
                f"{'0x0300' if sensor.status == 'cr' else '0x0100':<6}| na        | na        | na        | "
                "na        | na        | na        ")
    shown = "na" if value is None else f"{value:.3f}"
    status = "na" if value is None else sensor.status
    limits = {"degrees C": ("na", "na", "na", "85.000", "90.000", "na"),
              "RPM": ("na", "600.000", "800.000", "na", "na", "na"),
              "Watts": ("na", "na", "na", "na", "na", "na")}.get(sensor.unit, ("na",) * 6)
    cols = "| ".join(f"{v:<10}" for v in limits)
    return f"{sensor.name:<16} | {shown:<10} | {sensor.unit:<10} | {status:<6}| {cols}"


def _fru(ctx: Context, node: Node) -> None:
    bmc = node.bmc
    assert bmc is not None
    ctx.out(
        "FRU Device Description : Builtin FRU Device (ID 0)\n"
        " Chassis Type          : Rack Mount Chassis\n"
        " Chassis Part Number   : CSE-GP801TS-R000NP\n"
        f" Chassis Serial        : C8210MN{bmc.system_serial[-8:]}\n"
        " Board Mfg Date        : Mon Jan  8 09:12:00 2024 UTC\n"
        " Board Mfg             : Supermicro\n"
        " Board Product         : X13DEG-OAD\n"
        f" Board Serial          : {bmc.board_serial}\n"
        " Board Part Number     : X13DEG-OAD\n"
        " Product Manufacturer  : Supermicro\n"
        " Product Name          : SYS-821GE-TNHR\n"
        " Product Part Number   : SYS-821GE-TNHR\n"
        " Product Version       : 0123456789\n"
        f" Product Serial        : {bmc.system_serial}\n"
        "\n"
    )


# -- LAN, MC ------------------------------------------------------------------------------------


def _lan_print(ctx: Context, bmc: BMC) -> None:
    gateway = ".".join(bmc.ipv4.split(".")[:3] + ["254"])
    ctx.out(
        "Set in Progress         : Set Complete\n"
        "Auth Type Support       : \n"
        "Auth Type Enable        : Callback : \n"
        "                        : User     : \n"
        "                        : Operator : \n"
        "                        : Admin    : \n"
        "                        : OEM      : \n"
        "IP Address Source       : Static Address\n"
        f"IP Address              : {bmc.ipv4}\n"
        "Subnet Mask             : 255.255.0.0\n"
        f"MAC Address             : {bmc.mac}\n"
        "SNMP Community String   : public\n"
        "BMC ARP Control         : ARP Responses Enabled, Gratuitous ARP Disabled\n"
        f"Default Gateway IP      : {gateway}\n"
        "Default Gateway MAC     : 00:00:00:00:00:00\n"
        "Backup Gateway IP       : 0.0.0.0\n"
        "Backup Gateway MAC      : 00:00:00:00:00:00\n"
        "802.1q VLAN ID          : Disabled\n"
        "802.1q VLAN Priority    : 0\n"
        "RMCP+ Cipher Suites     : 3,17\n"
        "Cipher Suite Priv Max   : XXXaXXXXXXXXXXX\n"
        "                        :     X=Cipher Suite Unused\n"
        "                        :     c=CALLBACK\n"
        "                        :     u=USER\n"
        "                        :     o=OPERATOR\n"
        "                        :     a=ADMIN\n"
        "                        :     O=OEM\n"
        "Bad Password Threshold  : Not Available\n"
    )


def _mc_info(ctx: Context, bmc: BMC) -> None:
    major, minor = (bmc.firmware.split(".") + ["0"])[:2]
    ctx.out(
        "Device ID                 : 32\n"
        "Device Revision           : 1\n"
        f"Firmware Revision         : {int(major)}.{int(minor):02d}\n"
        "IPMI Version              : 2.0\n"
        "Manufacturer ID           : 10876\n"
        "Manufacturer Name         : Super Micro Computer Inc.\n"
        "Product ID                : 6929 (0x1b11)\n"
        "Product Name              : Unknown (0x1B11)\n"
        "Device Available          : yes\n"
        "Provides Device SDRs      : no\n"
        "Additional Device Support :\n"
        "    Sensor Device\n"
        "    SDR Repository Device\n"
        "    SEL Device\n"
        "    FRU Inventory Device\n"
        "    IPMB Event Receiver\n"
        "    IPMB Event Generator\n"
        "    Chassis Device\n"
        "Aux Firmware Rev Info     : \n"
        "    0x00\n"
        "    0x00\n"
        "    0x00\n"
        "    0x00\n"
    )


# -- SOL ------------------------------------------------------------------------------------------


#: How long ``sol activate`` watches the console before it ends by itself: (chunks, seconds each).
SOL_CHUNKS, SOL_PAUSE_S = 4, 5.0


def _sol(ctx: Context, node: Node) -> Generator[float, None, int]:
    """The serial console as it scrolls: new lines appear while the session is open."""
    ctx.outln("[SOL Session operational.  Use ~? for help]")
    shown: list[str] = []
    for _ in range(SOL_CHUNKS):
        lines = lifecycle.console(ctx.cluster, node)
        fresh = lines[len(shown):] if lines[:len(shown)] == shown else lines
        if fresh:
            if shown and shown[-1].endswith(" "):
                ctx.out("\n")
            ctx.out("\n".join(fresh) + ("" if fresh[-1].endswith(" ") else "\n"))
        shown = lines
        yield SOL_PAUSE_S
    if shown and shown[-1].endswith(" "):
        ctx.out("\n")
    ctx.outln("[terminated ipmitool]")
    return 0


def commands() -> list[Command]:
    return [Ipmitool()]

