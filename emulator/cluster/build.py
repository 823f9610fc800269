"""Build a healthy cluster from a spec and a seed.

The result is deterministic: the same :class:`ClusterSpec` gives the same
identifiers, placements and readings. Faults are applied afterwards by
:func:`emulator.cluster.faults.apply_faults`.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime

from emulator.cluster import catalog, links
from emulator.cluster.accounts import BMC_CREDENTIAL
from emulator.cluster.clock import DEFAULT_START, SimClock
from emulator.cluster.gpu_rates import DEMAND_W
from emulator.cluster.hardware import (
    BMC,
    GPU,
    NIC,
    BlockDevice,
    BootRecord,
    Cpu,
    HostHealth,
    KernelEvent,
    NVLink,
    Partition,
    PCIeSwitch,
    SelEntry,
    Sensor,
    Service,
)
from emulator.cluster.ids import gpu_uuid, guid, mac, rng, serial
from emulator.cluster.model import Cluster, Hardware, Node
from emulator.cluster.scheduler import Job, SlurmState
from emulator.cluster.storage import LocalDisk, ParallelFS, Target
from emulator.cluster.telemetry import FULLY_REDUNDANT, PSU_COUNT
from emulator.cluster.training import Rank, TrainingRun

#: Seconds the compute nodes had been up when the clock starts (boot ~ 12.5 days before).
UPTIME_S = 1_080_000.0
#: Nodes per leaf switch on each rail.
NODES_PER_LEAF = 32


@dataclass
class ClusterSpec:
    """What a lab asks for. Defaults give the healthy sandbox."""

    nodes: int = 8
    seed: int = 0
    name: str = "hpc1"
    start: datetime = DEFAULT_START
    #: Nodes the training job runs on (the first N compute nodes).
    training_nodes: int = 4
    #: Other tenants' running jobs (count) on idle nodes, for a realistic squeue.
    other_jobs: int = 2
    #: Training configuration overrides (field names of TrainingRun).
    training: dict[str, object] = field(default_factory=dict)


def node_names(count: int) -> list[str]:
    width = max(2, len(str(count)))
    return [f"node{i:0{width}d}" for i in range(1, count + 1)]


def build_cluster(spec: ClusterSpec) -> Cluster:
    if spec.nodes < 1 or spec.nodes > 4096:
        raise ValueError("cluster size must be between 1 and 4096 nodes")
    clock = SimClock(spec.start)
    cpu = Cpu("Intel(R) Xeon(R) Platinum 8480C", sockets=2, cores_per_socket=56, threads_per_core=2, mhz_max=3800.0)
    login_cpu = Cpu("Intel(R) Xeon(R) Gold 6430", sockets=2, cores_per_socket=32, threads_per_core=2, mhz_max=3400.0)
    nodes: dict[str, Node] = {}
    login = Node(
        name="login01", index=0, role="login", mgmt_ipv4="10.10.0.2", cpu=login_cpu,
        memory_kib=527_975_064, bmc=None,
        health=HostHealth(boots=[BootRecord(-UPTIME_S - 86_400.0, catalog.VERSIONS.kernel)]),
        _build=lambda node: _login_hardware(node, spec.seed),
    )
    nodes[login.name] = login
    for i, name in enumerate(node_names(spec.nodes), start=1):
        r = rng(spec.seed, name, "bmc")
        boot = -UPTIME_S - rng(spec.seed, name, "boot").uniform(0, 3600)
        bmc = BMC(hostname=f"{name}-bmc", ipv4=f"10.20.{i // 250}.{i % 250 + 1}", mac=mac(r, 0x7C8AE1),
                  firmware=catalog.VERSIONS.bmc_firmware, sensors=_sensors(spec.seed, name), sel=_baseline_sel(boot),
                  board_serial=f"OM23{r.randrange(10**2):02d}S6{r.randrange(10**5):05d}",
                  system_serial=f"S{r.randrange(10**6):06d}X3A{r.randrange(10**5):05d}",
                  users=dict([BMC_CREDENTIAL]))
        nodes[name] = Node(
            name=name, index=i, role="compute", mgmt_ipv4=f"10.10.{i // 250}.{i % 250 + 10}",
            cpu=cpu, memory_kib=2_113_407_116, bmc=bmc,
            health=HostHealth(boots=[BootRecord(boot, catalog.VERSIONS.kernel)]),
            local_disk=LocalDisk(),
            _build=functools.partial(_compute_hardware, seed=spec.seed, cluster_nodes=spec.nodes),
        )
    compute = [n for n in nodes.values() if n.role == "compute"]
    switches = _fabric_switches(len(compute))
    training_nodes = [n.name for n in compute[: max(0, min(spec.training_nodes, len(compute)))]]
    slurm = _slurm(spec, compute, training_nodes)
    training = _training(spec, training_nodes, slurm) if training_nodes else None
    cluster = Cluster(
        name=spec.name, seed=spec.seed, clock=clock, nodes=nodes, login=login.name,
        slurm=slurm, storage=_parallel_fs(), training=training, switches=switches,
    )
    return cluster


# -- hardware ----------------------------------------------------------------------


def _compute_hardware(node: Node, seed: int, cluster_nodes: int) -> Hardware:
    gpu_model, nic_model = catalog.H100, catalog.CX7
    hw = Hardware(nvswitches=gpu_model.nvswitches)
    for s, bus in enumerate(catalog.PCIE_SWITCH_BUSES):
        hw.pcie_switches.append(PCIeSwitch(index=s, numa_node=0 if s < 4 else 1, bus=f"0000:{bus:02x}:00.0"))
    hw.pcie_switches.append(PCIeSwitch(index=8, numa_node=0, bus="0000:27:00.0"))
    hw.pcie_switches.append(PCIeSwitch(index=9, numa_node=1, bus="0000:a8:00.0"))
    for i, bus in enumerate(catalog.GPU_BUSES):
        r = rng(seed, node.name, "gpu", i)
        gpu = GPU(
            index=i, uuid=gpu_uuid(r), pci_bus_id=f"00000000:{bus:02X}:00.0", serial=serial(r),
            numa_node=0 if i < 4 else 1, pcie_switch=i, minor=i,
            sm_clock_mhz=gpu_model.idle_sm_mhz, mem_clock_mhz=gpu_model.max_mem_mhz,
            temp_c=r.randint(30, 36), mem_temp_c=r.randint(38, 44),
            power_w=round(r.uniform(68.0, 74.0), 2), power_limit_w=gpu_model.power_limit_w,
            remap_available_banks=2560,
            nvlinks=[NVLink(index=k, switch=k % gpu_model.nvswitches, speed_gbps=gpu_model.nvlink_gbps)
                     for k in range(gpu_model.nvlinks)],
        )
        # A separate source, so the identities drawn above stay as they were.
        gpu.load_demand_w = round(rng(seed, node.name, "gpu", i, "demand").uniform(*DEMAND_W), 1)
        hw.gpus.append(gpu)
    lid_base = 100 + (node.index - 1) * 8
    group = (node.index - 1) // NODES_PER_LEAF
    history = _traffic_history(seed, node)
    for rail, bus in enumerate(catalog.RAIL_NIC_BUSES):
        r = rng(seed, node.name, "nic", rail)
        g = guid(r)
        xmit_data, rcv_data, xmit_pkts, rcv_pkts = history(r)
        hw.nics.append(NIC(
            name=f"mlx5_{rail}", role="compute", pci_bus_id=f"0000:{bus:02x}:00.0", netdev=f"ibp{bus}s0",
            numa_node=0 if rail < 4 else 1, pcie_switch=rail, ca_type=nic_model.ca_type,
            firmware=nic_model.firmware, node_guid=g, port_guid=g, link_layer="InfiniBand", rail=rail,
            lid=lid_base + rail, rate_gbps=nic_model.rate_gbps, max_rate_gbps=nic_model.rate_gbps,
            peer_switch=f"leaf-r{rail}-{group + 1:02d}", peer_port=(node.index - 1) % NODES_PER_LEAF + 1,
            xmit_data=xmit_data, rcv_data=rcv_data, xmit_pkts=xmit_pkts, rcv_pkts=rcv_pkts,
        ))
    for k, bus in enumerate(catalog.STORAGE_NIC_BUSES):
        r = rng(seed, node.name, "storage-nic", k)
        g = guid(r)
        hw.nics.append(NIC(
            name=f"mlx5_{8 + k}", role="storage", pci_bus_id=f"0000:{bus:02x}:00.0", netdev=f"enp{bus}s0f0np0",
            numa_node=k, pcie_switch=8 + k, ca_type=catalog.CX7_STORAGE.ca_type,
            firmware=catalog.CX7_STORAGE.firmware, node_guid=g, port_guid=g, link_layer="Ethernet",
            rate_gbps=catalog.CX7_STORAGE.rate_gbps, max_rate_gbps=catalog.CX7_STORAGE.rate_gbps,
            mac=mac(r), ipv4=f"10.30.{node.index // 250}.{node.index % 250 + 10 + 100 * k}",
            peer_switch=f"stor-leaf-{group + 1:02d}", peer_port=(node.index - 1) % NODES_PER_LEAF * 2 + 1 + k,
        ))
    hw.disks = [BlockDevice("nvme0n1", "SAMSUNG MZ1L21T9HCLS-00A07", 1_920_383_410_176, "/", 0),
                BlockDevice("nvme1n1", "SAMSUNG MZ1L21T9HCLS-00A07", 1_920_383_410_176, "", 0)]
    hw.disks += [BlockDevice(f"nvme{i}n1", "SAMSUNG MZQL23T8HCLS-00A07", 3_840_755_982_336, "/raid",
                             catalog.numa_of_bus(catalog.NVME_BUSES[i])) for i in range(2, 10)]
    boot = node.health.boots[-1].offset_s
    hw.services = _compute_services(node, boot, seed)
    hw.kernel_log = _boot_log(node, hw, boot)
    return hw


def _traffic_history(seed: int, node: Node) -> Callable[[random.Random], tuple[int, int, int, int]]:
    """Data and packet counters a rail port holds at the clock's start from the jobs the node ran
    since boot: collectives put about the same bytes each way on every rail, in packets of
    nearly a full MTU (fewer words per packet than a full one: ACKs and other small packets)."""
    r = rng(seed, node.name, "nic-history")
    words = r.randrange(10**12, 10**13)                    # data words each way per rail
    words_per_pkt = r.uniform(0.93, 0.985) * links.PACKET_BYTES / 4

    def rail(draw: random.Random) -> tuple[int, int, int, int]:
        xmit = int(words * draw.uniform(0.97, 1.03))
        rcv = int(xmit * draw.uniform(0.985, 1.015))
        per_pkt = words_per_pkt * draw.uniform(0.995, 1.005)
        return xmit, rcv, int(xmit / per_pkt), int(rcv / per_pkt)
    return rail


def _login_hardware(node: Node, seed: int) -> Hardware:
    r = rng(seed, node.name, "eth")
    hw = Hardware()
    hw.disks = [BlockDevice("nvme0n1", "SAMSUNG MZ1L21T9HCLS-00A07", 1_920_383_410_176, "/", 0)]
    hw.services = {"sshd": Service("ssh", "OpenBSD Secure Shell server", main_pid=1187),
                   "slurmctld": Service("slurmctld", "Slurm controller daemon", main_pid=2210)}
    hw.kernel_log = [KernelEvent(node.health.boots[-1].offset_s, f"Linux version {catalog.VERSIONS.kernel} (buildd@lcy02-amd64-047) "
                                      f"(gcc (Ubuntu 11.4.0-1ubuntu1~22.04) 11.4.0, GNU ld (GNU Binutils for Ubuntu) 2.38) "
                                      f"{catalog.VERSIONS.kernel_build}")]
    hw.nics = [NIC(name="mlx5_0", role="storage", pci_bus_id="0000:31:00.0", netdev="enp49s0f0np0", numa_node=0,
                   pcie_switch=0, ca_type=catalog.CX7_STORAGE.ca_type, firmware=catalog.CX7_STORAGE.firmware,
                   node_guid=guid(r), port_guid=guid(r), link_layer="Ethernet", rate_gbps=100, max_rate_gbps=100,
                   mac=mac(r), ipv4="10.30.0.2")]
    return hw


def _compute_services(node: Node, boot: float, seed: int) -> dict[str, Service]:
    r = rng(seed, node.name, "pids")
    started = boot + 24.0
    fm = Service("nvidia-fabricmanager", "NVIDIA fabric manager service", since_s=started,
                 main_pid=r.randint(2000, 2600))
    fm.journal = [(started - 1.0, "Starting NVIDIA fabric manager service..."),
                  (started, "Connected to 1 node."),
                  (started + 0.5, "Successfully configured all the available NVSwitches to route GPU NVLink traffic. "
                                  "NVLink Peer-to-Peer support will be enabled once the GPUs are successfully registered "
                                  "with the NVLink fabric."),
                  (started + 0.6, "Started NVIDIA fabric manager service.")]
    pers = Service("nvidia-persistenced", "NVIDIA Persistence Daemon", since_s=boot + 20.0,
                   main_pid=r.randint(1800, 1999))
    pers.journal = [(boot + 19.5, "Starting NVIDIA Persistence Daemon..."),
                    (boot + 19.8, "Verbose syslog connection opened"),
                    (boot + 19.9, "Started Daemon"),
                    (boot + 20.0, "Started NVIDIA Persistence Daemon.")]
    return {
        "nvidia-fabricmanager": fm,
        "nvidia-persistenced": pers,
        "nvidia-dcgm": Service("nvidia-dcgm", "NVIDIA DCGM service", since_s=boot + 30.0, main_pid=r.randint(2700, 2900)),
        "slurmd": Service("slurmd", "Slurm node daemon", since_s=boot + 35.0, main_pid=r.randint(3000, 3200)),
        "sshd": Service("ssh", "OpenBSD Secure Shell server", since_s=boot + 15.0, main_pid=r.randint(1100, 1300)),
    }


def _boot_log(node: Node, hw: Hardware, boot: float) -> list[KernelEvent]:
    """Kernel messages at boot; offsets are relative to the clock's start."""
    v = catalog.VERSIONS
    log = [
        KernelEvent(boot + 0.0, f"Linux version {v.kernel} (buildd@lcy02-amd64-047) (gcc (Ubuntu 11.4.0-1ubuntu1~22.04) "
                                f"11.4.0, GNU ld (GNU Binutils for Ubuntu) 2.38) {v.kernel_build}"),
        KernelEvent(boot + 0.0, f"Command line: BOOT_IMAGE=/boot/vmlinuz-{v.kernel} root=UUID=5e6f1c52-3b1c-4a57-9a83-"
                                f"0c1d2e3f4a5b ro pci=realloc=off iommu=pt"),
        KernelEvent(boot + 0.42, "NUMA: Node 0 [mem 0x00000000-0x7fffffff] + [mem 0x100000000-0x207fffffff] -> "
                                 "[mem 0x00000000-0x207fffffff]"),
    ]
    for nic in hw.nics:
        log.append(KernelEvent(boot + 6.1 + 0.01 * int(nic.name.split("_")[1]),
                               f"mlx5_core {nic.pci_bus_id}: firmware version: {nic.firmware.replace('.', '.', 2)}"))
    log.append(KernelEvent(boot + 9.8, "nvidia: loading out-of-tree module taints kernel."))
    log.append(KernelEvent(boot + 9.9, "nvidia-nvlink: Nvlink Core is being initialized, major device number 509"))
    for gpu in hw.gpus:
        log.append(KernelEvent(boot + 10.0 + 0.1 * gpu.index,
                               f"nvidia {gpu.pci_bus_id[4:].lower()}: enabling device (0000 -> 0002)"))
    log.append(KernelEvent(boot + 10.9, f"NVRM: loading NVIDIA UNIX x86_64 Kernel Module  {v.driver}  "
                                        f"Fri May 24 00:09:27 UTC 2024"))
    for nic in hw.nics:
        if nic.link_layer == "InfiniBand":
            log.append(KernelEvent(boot + 14.0 + 0.01 * int(nic.name.split("_")[1]),
                                   f"mlx5_core {nic.pci_bus_id}: Port module event: module 0, Cable plugged"))
    log.sort(key=lambda e: e.offset_s)
    return log


def _sensors(seed: int, name: str) -> list[Sensor]:
    r = rng(seed, name, "sensors")
    sensors = [
        Sensor("Inlet Temp", float(r.randint(21, 25)), "degrees C", sensor_id="0x01"),
        Sensor("Exhaust Temp", float(r.randint(38, 46)), "degrees C", sensor_id="0x02"),
        Sensor("CPU0 Temp", float(r.randint(45, 60)), "degrees C", entity="3.1", sensor_id="0x03"),
        Sensor("CPU1 Temp", float(r.randint(45, 60)), "degrees C", entity="3.2", sensor_id="0x04"),
        # Read live from the GPUs' draw and the rest of the system (telemetry.system_power_w).
        Sensor("Total Power", None, "Watts", entity="21.0", sensor_id="0x10"),
        # Six supplies in 4+2 redundancy, and the BMC's redundancy sensor over them (telemetry.PSU_COUNT).
        *(Sensor(f"PSU{i} Status", None, "discrete", entity=f"10.{i}", sensor_id=f"0x{0x20 + i:02x}",
                 states=("Presence detected",)) for i in range(1, PSU_COUNT + 1)),
        Sensor("PS Redundancy", None, "discrete", entity="10.0", sensor_id="0x27", states=(FULLY_REDUNDANT,)),
    ]
    for fan in range(1, 7):
        sensors.append(Sensor(f"FAN{fan}_F Speed", float(r.randint(70, 95) * 100), "RPM", entity="29.1",
                              sensor_id=f"0x{0x30 + fan:02x}"))
    return sensors


def _baseline_sel(boot: float) -> list[SelEntry]:
    """The SEL since commissioning: cleared, then the power-on and firmware boot before the kernel at ``boot``."""
    return [SelEntry(boot - 7200.0, "Event Logging Disabled #0x0f", "Log area reset/cleared", name="SEL Status"),
            SelEntry(boot - 200.0, "Power Unit #0x01", "Power off/down", "Deasserted", name="Pwr Unit Status"),
            SelEntry(boot - 130.0, "System Event #0x0c", "OEM System boot event", name="Sys Boot Event")]


# -- fabric, scheduler, storage, training ---------------------------------------------


def _fabric_switches(compute_count: int) -> dict[str, tuple[str, int]]:
    switches: dict[str, tuple[str, int]] = {}
    groups = max(1, (compute_count + NODES_PER_LEAF - 1) // NODES_PER_LEAF)
    for rail in range(8):
        for g in range(groups):
            switches[f"leaf-r{rail}-{g + 1:02d}"] = ("leaf", rail)
    for s in range(max(2, min(32, groups * 2))):
        switches[f"spine-{s + 1:02d}"] = ("spine", -1)
    return switches


def _slurm(spec: ClusterSpec, compute: list[Node], training_nodes: list[str]) -> SlurmState:
    names = [n.name for n in compute]
    state = {n: "idle" for n in names}
    jobs: list[Job] = []
    next_id = 48213
    if training_nodes:
        for n in training_nodes:
            state[n] = "alloc"
        jobs.append(Job(job_id=next_id, name="llm-pretrain", user="alice", partition="gpu", nodes=list(training_nodes),
                        state="RUNNING", submit_s=-5460.0, start_s=-5400.0, is_training=True,
                        ntasks_per_node=1, cpus_per_task=1,  # one torchrun per node, as pretrain.sbatch asks
                        command="/home/alice/jobs/pretrain.sbatch", workdir="/home/alice/jobs",
                        stdout=f"/lustre/jobs/llm-pretrain/slurm-{next_id}.out"))
        next_id += 1
    free = [n for n in names if state[n] == "idle"]
    r = rng(spec.seed, "slurm")
    users = ("bob", "carol", "dave", "erin")
    for j in range(spec.other_jobs):
        if not free:
            break
        size = min(len(free), max(1, len(free) // (spec.other_jobs + 2) or 1), 2 ** r.randint(0, 3))
        take, free = free[:size], free[size:]
        for n in take:
            state[n] = "alloc"
        start = -r.uniform(600.0, 40_000.0)
        jobs.append(Job(job_id=next_id, name=("finetune-sft", "eval-harness", "vlm-pretrain", "rm-train")[j % 4],
                        user=users[j % 4], partition="gpu", nodes=take, state="RUNNING", submit_s=start - 300.0,
                        start_s=start, command=f"/home/{users[j % 4]}/run.sbatch", workdir=f"/home/{users[j % 4]}"))
        next_id += 1
    # One pending job waiting for resources, one held by dependency.
    jobs.append(Job(job_id=next_id, name="sweep-lr", user="bob", partition="gpu", nodes=[], state="PENDING",
                    submit_s=-900.0, num_nodes=min(len(names), 8), reason="Resources"))
    training_id = next((j.job_id for j in jobs if j.is_training), None)
    jobs.append(Job(job_id=next_id + 1, name="eval-ckpt", user="alice", partition="gpu", nodes=[], state="PENDING",
                    submit_s=-600.0, num_nodes=1, reason="Dependency",
                    dependency=f"afterok:{training_id}" if training_id else ""))
    # A history of finished jobs for sacct.
    jobs.append(Job(job_id=next_id - 40, name="nccl-check", user="alice", partition="gpu",
                    nodes=names[: min(2, len(names))], state="COMPLETED", submit_s=-90_000.0, start_s=-89_990.0,
                    end_s=-89_700.0))
    partitions = [Partition("gpu", names, default=True, time_limit="2-00:00:00"),
                  Partition("debug", names[: min(2, len(names))], time_limit="30:00")]
    return SlurmState(cluster_name=spec.name, controller="login01", partitions=partitions, node_state=state,
                      node_reason={}, jobs=jobs, next_job_id=next_id + 2)


def _training(spec: ClusterSpec, training_nodes: list[str], slurm: SlurmState) -> TrainingRun:
    job = next(j for j in slurm.jobs if j.is_training)
    run = TrainingRun(job_id=job.job_id, name=job.name)
    for key, value in spec.training.items():
        if not hasattr(run, key):
            raise ValueError(f"unknown training setting: {key}")
        setattr(run, key, value)
    r = rng(spec.seed, "training", "pids")
    for n_i, node in enumerate(training_nodes):
        base = r.randint(180_000, 240_000)
        for g in range(8):
            run.ranks.append(Rank(rank=n_i * 8 + g, node=node, gpu=g, local_rank=g, pid=base + g * 7))
    run.env = {"NCCL_IB_HCA": "mlx5_0,mlx5_1,mlx5_2,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_7",
               "NCCL_SOCKET_IFNAME": "eno1", "TORCH_NCCL_ASYNC_ERROR_HANDLING": "1", **run.env}
    return run


def _parallel_fs() -> ParallelFS:
    fs = ParallelFS()
    tib = 1024 ** 3  # KiB per TiB
    fs.targets.append(Target("lustre-MDT0000", "MDT", 12 * tib // 1024 * 1024 // 1024, 3 * tib // 1024, "mds01"))
    r = rng(0, "lustre")
    for i in range(8):
        size = 480 * tib
        fs.targets.append(Target(f"lustre-OST{i:04x}", "OST", size, int(size * r.uniform(0.55, 0.7)), f"oss{i // 2 + 1:02d}"))
    return fs
