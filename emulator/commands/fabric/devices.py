"""The current host's RDMA devices and how the fabric tools name them.

Device lookups (``mlx5_0`` ... ``mlx5_9`` in name order), port state, and the
spellings of GUIDs, GIDs and link-local addresses that ``ibstat``,
``ibstatus``, ``ibv_devinfo``, ``rdma``, ``show_gids`` and ``ip`` print, so one
port reads the same in each. Formats follow MLNX_OFED 23.10 (rdma-core
2307mlnx47, MFT 4.26).
"""

from __future__ import annotations

from emulator.cluster.hardware import NIC
from emulator.commands.kit.command import Context

#: ConnectX-7 identifiers as the verbs and diag tools print them.
VENDOR_ID = 0x02C9
VENDOR_PART_ID = 4129
IB_CAPMASK = 0xA751E848
ETH_CAPMASK = 0x00010000

#: What a port's performance-management agent answers in ClassPortInfo, as perfquery prints it:
#: (CapMask, CapMask2). CapMask 0x5A00 sets bit 9, 64-bit data and packet counters in
#: PortCountersExtended, and bit 12, PortXmitWait; CapMask2 bit 1, IsAdditionalPortCountersExtendedSupported
#: (libibmad's IB_PM_IS_ADDL_PORT_CTRS_EXT_SUP), says that attribute carries 64-bit error counters too.
#: The model's HCAs are ConnectX-7 (MT4129), which set it; a CA type outside the table is taken to have
#: the extended data counters only.
PMA_CAPS = {"MT4129": (0x5A00, 0x0000002)}
OTHER_CA_PMA_CAPS = (0x5A00, 0x0000000)
#: The Quantum-2 switch ports and the subnet manager's port answer as the ConnectX-7 does.
SWITCH_PMA_CAPS = (0x5A00, 0x0000002)
#: CapMask2's IsAdditionalPortCountersExtendedSupported bit, after perfquery's ``>> 5``.
ADDL_PORT_CTRS_EXT = 0x2

#: Port and physical states as numbered by the IB spec (ibstatus, ibv_devinfo).
PORT_STATE_NUM = {"Down": 1, "Initializing": 2, "Armed": 3, "Active": 4}
PHYS_STATE_NUM = {"Sleep": 1, "Polling": 2, "Disabled": 3, "PortConfigurationTraining": 4, "LinkUp": 5,
                  "LinkErrorRecovery": 6, "PhyTest": 7}


def devices(ctx: Context) -> list[NIC]:
    """The host's RDMA devices in name order (``mlx5_0`` ... ``mlx5_9``)."""
    return sorted(ctx.host.nics, key=lambda n: int(n.name.rsplit("_", 1)[1]))


def device(ctx: Context, name: str) -> NIC | None:
    for nic in ctx.host.nics:
        if nic.name == name:
            return nic
    return None


def is_up(nic: NIC) -> bool:
    return nic.state == "Active"


def colon_guid(guid: str) -> str:
    """``0xa088c20300e2ba22`` -> ``a088:c203:00e2:ba22`` (ibv_devinfo, rdma)."""
    h = guid[2:].rjust(16, "0")
    return ":".join(h[i:i + 4] for i in range(0, 16, 4))


def eui64(mac: str) -> str:
    """The EUI-64 interface id of a MAC address, as 16 hex digits."""
    octets = [int(o, 16) for o in mac.split(":")]
    octets[0] ^= 0x02
    return "".join(f"{o:02x}" for o in octets[:3] + [0xFF, 0xFE] + octets[3:])


def link_local(interface_id: str, flip: bool = True) -> str:
    """``fe80::a288:c203:e2:ba22/64`` from a 64-bit interface id (U/L bit flipped for a GUID)."""
    value = int(interface_id, 16) ^ ((0x02 << 56) if flip else 0)
    h = f"{value:016x}"
    return "fe80::" + ":".join(f"{int(h[i:i + 4], 16):x}" for i in range(0, 16, 4)) + "/64"


def port_guid(nic: NIC) -> str:
    """Port GUID: the IB port's own, or the MAC-derived one of a RoCE port."""
    if nic.link_layer == "Ethernet" and nic.mac:
        return "0x" + eui64(nic.mac)
    return nic.port_guid


def default_gid(nic: NIC) -> str:
    """The port's GID 0 (link-local prefix plus port GUID), as ibstatus prints it."""
    h = port_guid(nic)[2:].rjust(16, "0")
    return "fe80:0000:0000:0000:" + ":".join(h[i:i + 4] for i in range(0, 16, 4))


def pma_caps(nic: NIC) -> tuple[int, int]:
    """(CapMask, CapMask2) of the port's PMA, by its CA type."""
    return PMA_CAPS.get(nic.ca_type, OTHER_CA_PMA_CAPS)
