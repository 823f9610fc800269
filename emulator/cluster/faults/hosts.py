"""Faults of the hosts domain (see :mod:`emulator.cluster.faults`).

``host-down``: a compute node's OS stops answering while its BMC still does.
The seed picks the cause, and each cause leaves its own consistent trace:
the SEL records, the chassis power state, the serial console, and Slurm's
``down*`` with the training job ended in NODE_FAIL.

``node-drained``: an administrator drained a node with a reason.
"""

from __future__ import annotations

import random

from emulator.cluster import lifecycle
from emulator.cluster.faults.base import Fault
from emulator.cluster.model import Cluster, Node

#: The causes ``host-down`` chooses among.
CAUSES = ("psu-failure", "cpu-ierr", "kernel-panic", "watchdog")

#: Reasons operators write when draining a node, as ``sinfo -R`` shows them.
DRAIN_REASONS = (
    "xid 79 on gpu 3, needs reseat",
    "ib port mlx5_2 flapping, cable swap",
    "nhc: ecc dbe on gpu 5",
    "fw update bmc+bios",
    "dcgmi diag r3 fail, rma",
)


def _target(cluster: Cluster, rnd: random.Random, params: dict[str, object], prefer_job: bool) -> Node:
    name = params.get("node")
    if name:
        node = cluster.node(str(name))
        if node is None or node.role != "compute":
            raise ValueError(f"no compute node {name}")
        return node
    names = [n.name for n in cluster.compute_nodes]
    if prefer_job and cluster.training is not None:
        names = cluster.training.nodes or names
    return cluster.nodes[rnd.choice(names)]


def _panic_console(rnd: random.Random, cpu: int, uptime_s: float) -> list[str]:
    """The panic as the serial console printed it, stamped with seconds since boot."""
    stamp = uptime_s + rnd.random()
    return [
        f"[{stamp:12.6f}] NMI watchdog: Watchdog detected hard LOCKUP on cpu {cpu}",
        f"[{stamp:12.6f}] Kernel panic - not syncing: Hard LOCKUP",
        f"[{stamp:12.6f}] CPU: {cpu} PID: 0 Comm: swapper/{cpu} Tainted: P           OE     5.15.0-122-generic #132-Ubuntu",
        f"[{stamp + 0.000311:12.6f}] Kernel Offset: 0x1c600000 from 0xffffffff81000000 "
        "(relocation range: 0xffffffff80000000-0xffffffffbfffffff)",
        f"[{stamp + 0.021874:12.6f}] ---[ end Kernel panic - not syncing: Hard LOCKUP ]---",
    ]


def _initramfs_console() -> list[str]:
    return [
        "Gave up waiting for root file system device.  Common problems:",
        " - Boot args (cat /proc/cmdline)",
        "   - Check rootdelay= (did the system wait long enough?)",
        " - Missing modules (cat /proc/modules; ls /dev)",
        "ALERT!  UUID=5e6f1c52-3b1c-4a57-9a83-0c1d2e3f4a5b does not exist.  Dropping to a shell!",
        "",
        "",
        "BusyBox v1.30.1 (Ubuntu 1:1.30.1-7ubuntu3.1) built-in shell (ash)",
        "Enter 'help' for a list of built-in commands.",
        "",
        "(initramfs) ",
    ]


def host_down(cluster: Cluster, rnd: random.Random, params: dict[str, object]) -> dict[str, str]:
    node = _target(cluster, rnd, params, prefer_job=True)
    cause = str(params.get("cause") or rnd.choice(CAUSES))
    if cause not in CAUSES:
        raise ValueError(f"host-down: unknown cause {cause} (one of {', '.join(CAUSES)})")
    at = float(str(params.get("at_s") or -round(rnd.uniform(900.0, 2700.0))))
    sel = lifecycle.sel
    if cause == "psu-failure":
        # 4+2 supplies: PSU2 failed days ago and nobody read the SEL (redundancy degraded); now the
        # PDU feeding PSU4-6 trips. Two supplies (6.6 kW) cannot carry a ~9 kW training load, so main
        # power trips on overload; the BMC stays up on standby power.
        failed = round(rnd.uniform(2.0, 5.0) * 86_400.0)
        lifecycle.lose_psu(node, 2, at - failed)
        for psu in (4, 5, 6):
            lifecycle.lose_psu(node, psu, at - 1.0, "Power Supply AC lost")
        lifecycle.power_off(cluster, node, at, event="overload")
        node.health.down_cause = cause
    elif cause == "cpu-ierr":
        cpu = rnd.randint(0, 1)
        sensor, name = f"Processor #0x{0x60 + cpu:02x}", f"CPU{cpu} Status"
        sel(node, at, sensor, name, "Uncorrectable machine check exception")
        sel(node, at, sensor, name, "IERR")
        lifecycle.os_lost(cluster, node, at, cause, [])
    elif cause == "kernel-panic":
        sel(node, at, "OS Critical Stop #0x4e", "OS Stop", "Run-time critical stop")
        uptime = at - node.health.boots[-1].offset_s if node.health.boots else 0.0
        lifecycle.os_lost(cluster, node, at, cause, _panic_console(rnd, rnd.randrange(node.cpu.count), uptime))
    else:  # watchdog: the OS hung, the BMC watchdog power-cycled it, the boot never finished
        sel(node, at, "Watchdog2 #0x71", "OS Watchdog", "Power cycle")
        sel(node, at + 2.0, "Power Unit #0x01", "Pwr Unit Status", "Power off/down")
        sel(node, at + 7.0, "Power Unit #0x01", "Pwr Unit Status", "Power off/down", "Deasserted")
        sel(node, at + 77.0, "System Event #0x0c", "Sys Boot Event", "OEM System boot event")
        lifecycle.os_lost(cluster, node, at, cause, _initramfs_console())
        assert node.bmc is not None
        node.bmc.restart_cause = "watchdog expired"
    return {"node": node.name, "cause": cause}


def node_drained(cluster: Cluster, rnd: random.Random, params: dict[str, object]) -> dict[str, str]:
    node = _target(cluster, rnd, params, prefer_job=False)
    reason = str(params.get("reason") or rnd.choice(DRAIN_REASONS))
    at = float(str(params.get("at_s") or -round(rnd.uniform(3600.0, 86_400.0))))
    slurm = cluster.slurm
    state = slurm.node_state.get(node.name, "idle")
    slurm.node_state[node.name] = "drng" if state in ("alloc", "mix") else "drain"
    slurm.node_reason[node.name] = reason
    slurm.reason_set[node.name] = ("root", at)
    return {"node": node.name, "cause": "admin-drain", "reason": reason}


FAULTS: list[Fault] = [
    Fault("host-down", "a compute node's OS stops answering; its BMC still does", host_down,
          {"node": "", "cause": "", "at_s": 0.0}),
    Fault("node-drained", "an administrator drained a node with a reason", node_drained,
          {"node": "", "reason": "", "at_s": 0.0}),
]
