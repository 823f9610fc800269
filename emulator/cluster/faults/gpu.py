"""Faults of the GPU domain (see :mod:`emulator.cluster.faults`).

Each fault changes GPU, service or log state only; nvidia-smi, dcgmi,
systemctl and dmesg render the consequences. Targets are the training job's
GPUs, chosen by the seeded source unless the lab names ``node`` and ``gpu``.
Faults that leave kernel lines report their instant in the truth as ``time``
(UTC, ISO 8601), so a lab can scope an incident by node and interval.

Here: slowdowns (thermal, power brake, power cap), NVLinks and the fabric
manager, a PCIe link trained low. The Xid faults and their kernel lines are
:mod:`emulator.cluster.faults.xid`; choosing targets and recording the
truth, :mod:`emulator.cluster.faults.gpu_targets`. ``FAULTS`` lists both
modules' faults, in catalog order.
"""

from __future__ import annotations

import random

from emulator.cluster.accounts import OPERATORS, uid_of
from emulator.cluster.catalog import H100
from emulator.cluster.faults.base import Fault
from emulator.cluster.faults.gpu_targets import (
    event_at,
    gpu_truth,
    log_kernel,
    pick_gpu,
    pick_node,
    utc_stamp,
)
from emulator.cluster.faults.xid import ecc_dbe_remap, gpu_banner, xid, xid_event
from emulator.cluster.gpu_rates import sm_clock_under_load
from emulator.cluster.hardware import GPU, KernelEvent
from emulator.cluster.lifecycle import lose_psu, maintenance_reboot, sel
from emulator.cluster.model import Cluster, Node
from emulator.cluster.pci import nvswitch_bus_id
from emulator.cluster.startup import fail_at_start

# -- slowdowns --------------------------------------------------------------------------------


#: Chassis fans in front of the GPU tray (the BMC's FAN1_F..FAN6_F), and the GPU behind each one.
FANS = 6


def fan_of(gpu_index: int) -> int:
    """The front fan (1-6) whose air reaches GPU ``gpu_index`` first."""
    return 1 + gpu_index * FANS // 8


def _onset(cluster: Cluster, r: random.Random, params: dict[str, object]) -> float:
    """When a GPU's slowdown began (an offset): the lab's ``at``; else, with a training run that has
    run slow since it (re)started, in the half hour before that start (a restart does not clear it);
    else seeded in the hour before the session."""
    at = params.get("at")
    if isinstance(at, (int, float)):
        return float(at)
    run = cluster.training
    if run is not None:
        return run.started_s - r.uniform(300.0, 1800.0)
    return -r.uniform(900.0, 3600.0)


def gpu_thermal(cluster: Cluster, r: random.Random, params: dict[str, object]) -> dict[str, str]:
    """One GPU starved of cooling: it sits at its slowdown threshold with the SM clock capped.

    Why: the front fan in its air path is failing: it turns at about 700 RPM, under the BMC's
    lower critical threshold (800 RPM), while inlet temperature and the other fans read normal; the
    SEL recorded the threshold crossing when the fan slowed, just before the GPU began to throttle.
    """
    node, gpu = pick_gpu(cluster, r, params)
    gpu.cooling_deficit_c = 30
    gpu.clock_event_reasons = {"HW Thermal Slowdown", "SW Thermal Slowdown"}
    cap = params.get("cap_mhz")
    gpu.slowdown_cap_mhz = int(str(cap)) if cap else r.choice((1305, 1350, 1395, 1440))
    onset = -_onset(cluster, r, params)
    gpu.violation_s = {"HW Thermal Slowdown": round(onset * 0.6, 1), "SW Thermal Slowdown": round(onset, 1)}
    fan = fan_of(gpu.index)
    if node.bmc is not None:
        for sensor in node.bmc.sensors:
            if sensor.name == f"FAN{fan}_F Speed":
                sensor.reading, sensor.status = float(r.randint(66, 76) * 10), "cr"
        sel(node, -onset - r.uniform(60.0, 300.0), f"Fan #0x{0x30 + fan:02x}", f"FAN{fan}_F Speed",
            "Lower Critical going low")
        node.bmc.sel.sort(key=lambda e: e.offset_s)
    return gpu_truth(node, gpu, "thermal", sm_cap_mhz=str(gpu.slowdown_cap_mhz), fan=f"FAN{fan}_F")


def gpu_power_brake(cluster: Cluster, r: random.Random, params: dict[str, object]) -> dict[str, str]:
    """The chassis asserted the power-brake signal: HW Power Brake Slowdown, clocks near the floor.

    ``scope`` ``node`` (default) brakes all eight GPUs, as a PSU event does;
    ``gpu`` brakes one.
    """
    scope = str(params.get("scope") or "node")
    if scope not in ("node", "gpu"):
        raise ValueError("gpu-power-brake: scope must be node or gpu")
    node, first = pick_gpu(cluster, r, params)
    gpus = node.gpus if scope == "node" else [first]
    at = _onset(cluster, r, params)
    cap = int(str(params.get("cap_mhz") or 86))
    for gpu in gpus:
        gpu.clock_event_reasons = {"HW Slowdown", "HW Power Brake Slowdown"}
        gpu.slowdown_cap_mhz = cap
        gpu.violation_s = {"HW Power Brake Slowdown": round(-at, 1), "HW Slowdown": round(-at, 1)}
    if node.bmc is not None and scope == "node":
        # One supply lost its AC feed; the node stays up on the other five (4+2), and the BMC braked
        # the GPUs while the remaining supplies' capacity was in doubt.
        lose_psu(node, r.randint(1, 6), at - 0.4, "Power Supply AC lost")
        node.bmc.sel.sort(key=lambda e: e.offset_s)
    truth = gpu_truth(node, first, "power-brake", scope=scope, sm_cap_mhz=str(cap))
    if scope == "node":
        truth["gpu"] = "all"
    return truth


def gpu_power_excursion(cluster: Cluster, r: random.Random, params: dict[str, object]) -> dict[str, str]:
    """One GPU's own protection cuts its clocks: HW Slowdown alone, with no thermal or power-brake reason.

    Why: NVML documents HW Slowdown as engaged by high temperature, by the external power-brake
    signal, or by power draw so high that Fast Trigger protection reduces the clocks. The GPU runs
    at a normal temperature and the baseboard asserts no brake (the PSUs and SEL are clean), so what
    is left is that GPU's own power sensing: a per-GPU fault, its neighbours unaffected.
    """
    node, gpu = pick_gpu(cluster, r, params)
    at = event_at(r, params)
    gpu.clock_event_reasons = {"HW Slowdown"}
    gpu.slowdown_cap_mhz = int(str(params.get("cap_mhz") or 990))
    gpu.violation_s = {"HW Slowdown": round(-at, 1)}
    return gpu_truth(node, gpu, "power-excursion", sm_cap_mhz=str(gpu.slowdown_cap_mhz))


def gpu_power_cap(cluster: Cluster, r: random.Random, params: dict[str, object]) -> dict[str, str]:
    """Someone lowered one GPU's power limit: it pins at the cap with SW Power Cap active.

    Why: an operator ran ``sudo nvidia-smi -i N -pl W`` on the node (a power-budget test left
    behind); sudo's audit lines in ``/var/log/auth.log`` and the journal name the user, the time
    and the command, in the format of sudo 1.9 with pam_unix on Ubuntu 22.04.
    """
    node, gpu = pick_gpu(cluster, r, params)
    limit = float(str(params.get("limit_w") or 400))
    if not H100.power_min_w <= limit < H100.power_limit_w:
        raise ValueError(f"gpu-power-cap: limit_w must be in [{H100.power_min_w:.0f}, {H100.power_limit_w:.0f})")
    gpu.power_limit_w = limit
    gpu.clock_event_reasons = {"SW Power Cap"}
    # The clock follows from the lowered limit (emulator.cluster.gpu_rates); no slowdown caps it.
    gpu.violation_s = {"SW Power Cap": round(-_onset(cluster, r, params), 1)}
    user = r.choice(OPERATORS)
    at = -gpu.violation_s["SW Power Cap"] - r.uniform(20.0, 240.0)
    node.hw.auth_log += [
        (at, "sudo", f"{user:>8} : TTY=pts/{r.randint(0, 3)} ; PWD=/home/{user} ; USER=root ; "
                     f"COMMAND=/usr/bin/nvidia-smi -i {gpu.index} -pl {limit:.0f}"),
        (at, "sudo", f"pam_unix(sudo:session): session opened for user root(uid=0) by {user}(uid={uid_of(user)})"),
        (at + 0.4, "sudo", "pam_unix(sudo:session): session closed for user root"),
    ]
    node.hw.auth_log.sort(key=lambda e: e[0])
    return gpu_truth(node, gpu, "power-cap", limit_w=f"{limit:.0f}", sm_cap_mhz=str(sm_clock_under_load(gpu)),
                     user=user, time=utc_stamp(cluster, at))


# -- links and services -------------------------------------------------------------------------


def nvlink_down(cluster: Cluster, r: random.Random, params: dict[str, object]) -> dict[str, str]:
    """One or more access NVLinks of a GPU failed to train when the node booted.

    On HGX H100 Fabric Manager's default ``ACCESS_LINK_FAILURE_MODE=0`` removes such a GPU from
    NVSwitch routing: it registers with the fabric in error and loses NVLink peer-to-peer with
    every other GPU, not a share of its bandwidth; CUDA still runs on it (NVIDIA Fabric Manager
    User Guide, *High Availability Modes*). The failed links read ``<inactive>``; why is in
    that boot's logs (:func:`_log_training_faults`): each faulted as it trained. NCCL's init on the node then fails
    (:func:`emulator.cluster.collectives.check_p2p`), so the job fails at start-up
    (:func:`emulator.cluster.startup.fail_at_start`). The links failed to train at the reboot that
    ended the node's maintenance window, shortly before the job launched.
    """
    target = pick_node(cluster, r, params)
    _maintenance(cluster, r, target)
    node, gpu = pick_gpu(cluster, r, {**params, "node": target.name})
    count = int(str(params.get("links") or 1))
    if not 1 <= count <= len(gpu.nvlinks):
        raise ValueError(f"nvlink-down: links must be 1..{len(gpu.nvlinks)}")
    down = sorted(r.sample(range(len(gpu.nvlinks)), count))
    for index in down:
        gpu.nvlinks[index].up = False
    _log_training_faults(node, gpu, down)
    # Which nvmlReturn_t the failed registration reports is not documented for this case [unverified].
    gpu.fabric_status = "Unknown Error"
    fail_at_start(cluster)
    return gpu_truth(node, gpu, "nvlink-down", links=",".join(map(str, down)))


def _log_training_faults(node: Node, gpu: GPU, down: list[int]) -> None:
    """What the boot's logs say about access links that faulted while Fabric Manager trained them.

    The NVSwitch driver reports SXid 20034 (LTSSM Fault Up) for the switch port, the GPU driver
    Xid 74 for its link, and Fabric Manager logs the fatal SXid against the switch's PCI address,
    physical id and port: the formats of real logs (leptonai/gpud's Fabric Manager and kernel log
    parsers, NVIDIA/NVSentinel's Xid 74 analyser). Port numbers follow the GPU's links in order.
    """
    fm = node.hw.services["nvidia-fabricmanager"]
    at = fm.since_s + 0.2
    events = gpu_banner(gpu, at)
    for n, index in enumerate(down):
        link = gpu.nvlinks[index]
        switch, port, t = link.switch, gpu.index * 5 + index // 4, at + 0.004 * n
        bus = nvswitch_bus_id(switch)
        events += [KernelEvent(t, f"nvidia-nvswitch{switch}: SXid (PCI:{bus}): 20034, Fatal, Link {port} "
                                  "LTSSM Fault Up", "err"),
                   xid_event(gpu, t + 0.001, 74, "'<unknown>'", "<unknown>",
                             f"NVLink: fatal error detected on link {index}(0x10000, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0)")]
        fm.journal.append((t + 0.002, f"detected NVSwitch fatal error 20034 on NodeId 0 on NVSwitch pci bus id "
                                      f"0000{bus} physical id {switch} port {port}"))
    fm.journal.sort(key=lambda e: e[0])
    log_kernel(node, events)
    gpu.xids.append(74)


#: A Fabric Manager release newer than the driver (550.90.07): the package an unpinned upgrade installs.
SKEWED_FM = "550.127.05"


def _maintenance(cluster: Cluster, r: random.Random, node: Node) -> float:
    """The node's maintenance window ended with a reboot before the job launched; returns the boot offset."""
    run = cluster.training
    launch = run.started_s if run is not None else 0.0
    boot = launch - r.uniform(900.0, 2400.0)
    maintenance_reboot(cluster, node, boot)
    return boot


def fabricmanager_stopped(cluster: Cluster, r: random.Random, params: dict[str, object]) -> dict[str, str]:
    """nvidia-fabricmanager failed at boot on one of the job's nodes: its GPUs never join the
    NVLink fabric, their access NVLinks are never trained (``<inactive>``), CUDA init fails with
    'system not yet initialized', and the job fails at start-up.

    Why: the maintenance window upgraded the unpinned ``nvidia-fabricmanager`` package past the
    running driver; Fabric Manager refuses a driver of another version, with the message real
    releases print ("fabric manager NVIDIA GPU driver interface version X don't match with driver
    version Y", NVIDIA/gpu-operator issue 544, siderolabs/pkgs issue 720; Azure/azhpc-images PR 86
    pins the package for this reason).
    """
    node = pick_node(cluster, r, params)
    boot = _maintenance(cluster, r, node)
    service = node.hw.services["nvidia-fabricmanager"]
    started = boot + 24.0
    service.active = False
    service.sub_state = "failed"
    service.result = "exit-code"
    service.exit_status = 1
    service.since_s = started + 0.2
    service.journal = [
        (started - 1.0, "Starting NVIDIA fabric manager service..."),
        (started + 0.1, f"fabric manager NVIDIA GPU driver interface version {SKEWED_FM} don't match with driver "
                        f"version {cluster.versions.driver}. Please update with matching NVIDIA driver package."),
        (started + 0.2, "nvidia-fabricmanager.service: Control process exited, code=exited, status=1/FAILURE"),
        (started + 0.2, "nvidia-fabricmanager.service: Failed with result 'exit-code'."),
        (started + 0.2, "Failed to start NVIDIA fabric manager service."),
    ]
    for gpu in node.gpus:
        gpu.fabric_state = "In Progress"
        gpu.fabric_status = "N/A"
        # On HGX H100 Fabric Manager trains the GPU-to-NVSwitch access links ("coordinates with
        # the GPU driver to initialize and train NVSwitch to GPU NVLink interconnects", Fabric
        # Manager User Guide): with it dead they never come up, and the GPUs are not NVLink peers.
        for link in gpu.nvlinks:
            link.up = False
    fail_at_start(cluster)
    return {"node": node.name, "service": "nvidia-fabricmanager", "cause": "fabricmanager-stopped"}


def pcie_downgrade(cluster: Cluster, r: random.Random, params: dict[str, object]) -> dict[str, str]:
    """A GPU's host link trained below Gen5 x16 at boot; the kernel logged the bandwidth limit."""
    node, gpu = pick_gpu(cluster, r, params)
    gen = int(str(params.get("gen") or 4))
    width = int(str(params.get("width") or 16))
    if gen not in (1, 2, 3, 4, 5) or width not in (1, 2, 4, 8, 16) or (gen, width) == (5, 16):
        raise ValueError("pcie-downgrade: gen must be 1-5 and width 1-16, and not both at maximum")
    gpu.pcie_gen_current, gpu.pcie_width_current = gen, width
    boot = node.health.boots[-1].offset_s if node.health.boots else -3600.0
    bus = int(gpu.pci_bus_id.split(":")[1], 16)
    gts = {1: 2.5, 2: 5.0, 3: 8.0, 4: 16.0, 5: 32.0}
    enc = {1: 8 / 10, 2: 8 / 10, 3: 128 / 130, 4: 128 / 130, 5: 128 / 130}

    def mbps(g: int, w: int) -> int:
        return int(gts[g] * 1000 * enc[g]) * w

    have, cap = mbps(gen, width), mbps(5, 16)
    text = (f"pci 0000:{bus:02x}:00.0: {have // 1000}.{have % 1000:03d} Gb/s available PCIe bandwidth, limited by "
            f"{gts[gen]:.1f} GT/s PCIe x{width} link at 0000:{bus - 1:02x}:00.0 (capable of "
            f"{cap // 1000}.{cap % 1000:03d} Gb/s with 32.0 GT/s PCIe x16 link)")
    log_kernel(node, [KernelEvent(boot + 1.93 + 0.01 * gpu.index, text, "info")])
    return gpu_truth(node, gpu, "pcie-downgrade", gen=str(gen), width=str(width))


FAULTS: list[Fault] = [
    Fault("gpu-thermal", "One GPU in thermal slowdown: hot, SM clock capped, violation time growing",
          gpu_thermal, {"node": "", "gpu": None, "cap_mhz": None, "at": None}),
    Fault("gpu-power-brake", "HW Power Brake Slowdown on a node's GPUs (or one GPU): clocks near the floor",
          gpu_power_brake, {"node": "", "gpu": None, "scope": "node", "cap_mhz": 86, "at": None}),
    Fault("gpu-power-cap", "One GPU's power limit lowered: SW Power Cap active, clock below boost",
          gpu_power_cap, {"node": "", "gpu": None, "limit_w": 400, "at": None}),
    Fault("xid", "The driver raised an Xid on one GPU, with its kernel lines and state change",
          xid, {"node": "", "gpu": None, "code": 48, "at": None}),
    Fault("ecc-dbe-remap", "Double-bit ECC error in HBM: Xid 48, 63, 94 and a row remap pending reset",
          ecc_dbe_remap, {"node": "", "gpu": None, "at": None}),
    Fault("nvlink-down", "NVLinks of one GPU failed at start-up: the GPU is out of the NVLink fabric, no P2P",
          nvlink_down, {"node": "", "gpu": None, "links": 1}),
    Fault("fabricmanager-stopped", "nvidia-fabricmanager failed on a node: GPUs not in the NVLink fabric",
          fabricmanager_stopped, {"node": ""}),
    Fault("pcie-downgrade", "A GPU's PCIe link trained below Gen5 x16",
          pcie_downgrade, {"node": "", "gpu": None, "gen": 4, "width": 16}),
]
