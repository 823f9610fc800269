"""The BMC's fixed records: ``ipmitool fru`` (board, chassis, product), ``lan print`` and ``mc info``/``selftest``."""

from __future__ import annotations

from emulator.cluster.hardware import BMC
from emulator.cluster.model import Node
from emulator.commands.kit.command import Context


def fru(ctx: Context, node: Node, words: list[str]) -> int:
    """``fru [print|list]``: the board, chassis and product records."""
    bmc = node.bmc
    assert bmc is not None
    if words and words[0] not in ("print", "list"):
        raise ctx.fail(f"Invalid FRU command: {words[0]}")
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
    return 0


def lan(ctx: Context, node: Node, words: list[str]) -> int:
    """``lan print [1]``: the BMC's LAN channel configuration."""
    bmc = node.bmc
    assert bmc is not None
    if words[:1] != ["print"]:
        raise ctx.fail("usage: lan print [channel]")
    if words[1:2] not in ([], ["1"]):
        raise ctx.fail(f"Invalid channel: {words[1]}")
    _lan_print(ctx, bmc)
    return 0


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


def mc(ctx: Context, node: Node, words: list[str]) -> int:
    """``mc info`` and ``mc selftest`` (``bmc`` is the same command)."""
    bmc = node.bmc
    assert bmc is not None
    if words[:1] == ["selftest"]:
        ctx.outln("Selftest: passed")
        return 0
    if words[:1] != ["info"]:
        raise ctx.fail("MC Commands:\n  reset <warm|cold>\n  guid\n  info\n  watchdog <get|reset|off>\n"
                       "  selftest\n  getenables\n  setenables <option=on|off> ...")
    _mc_info(ctx, bmc)
    return 0


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
