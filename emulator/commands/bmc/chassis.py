"""``ipmitool chassis`` and ``power``: the chassis status, identify, boot device, and power control.

Power actions change the model through :mod:`emulator.cluster.lifecycle`, so
a ``power on`` boots the host after a simulated delay and Slurm, the SEL and
the boot history follow.
"""

from __future__ import annotations

from emulator.cluster import lifecycle
from emulator.cluster.hardware import BMC
from emulator.cluster.ids import rng
from emulator.cluster.model import Node
from emulator.commands.kit.command import Context

#: What ``power`` with an unknown action prints.
POWER_USAGE = "chassis power Commands: status, on, off, cycle, reset, diag, soft"
#: The devices ``chassis bootdev`` accepts.
BOOT_DEVICES = ("none", "pxe", "disk", "safe", "diag", "cdrom", "bios", "floppy")


def chassis(ctx: Context, node: Node, words: list[str]) -> int:
    """``chassis status|power|restart_cause|identify|poh|bootdev``."""
    bmc = node.bmc
    assert bmc is not None
    if words[:1] == ["status"]:
        _chassis_status(ctx, bmc)
        return 0
    if words[:1] == ["power"]:
        return power(ctx, node, words[1:])
    if words[:1] == ["restart_cause"]:
        ctx.outln(f"System restart cause: {bmc.restart_cause}")
        return 0
    if words[:1] == ["identify"]:
        seconds = words[1] if len(words) > 1 else ""
        if seconds and not seconds.isdecimal() and seconds != "force":
            raise ctx.fail("Invalid interval given.")
        shown = "default (15 seconds)" if not seconds else (
            "indefinite" if seconds == "force" else "off" if seconds == "0" else f"{seconds} seconds")
        ctx.outln(f"Chassis identify interval: {shown}")
        return 0
    if words[:1] == ["poh"]:
        # Hours before the clock's start (seeded per node) plus the simulated time since.
        hours = rng(ctx.cluster.seed, node.name, "poh").randint(4_000, 9_000) + int(ctx.clock.elapsed // 3600)
        ctx.outln(f"POH Counter  : {hours} hours total ({hours // 24} days, {hours % 24} hours)")
        return 0
    if words[:1] == ["bootdev"]:
        if len(words) < 2 or words[1] not in BOOT_DEVICES:
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
        ctx.outln(f"Set Boot Device to {words[1]}")
        return 0
    ctx.err("Chassis Commands:  status, power, identify, policy, restart_cause, poh, bootdev, bootparam, "
            "selftest\n")
    return 1 if words else 0


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


def power(ctx: Context, node: Node, words: list[str]) -> int:
    """``power status|on|off|cycle|reset|soft|diag`` (also ``chassis power ...``)."""
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
