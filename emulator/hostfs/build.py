"""The files each host shows, built from the cluster model.

``/home`` and ``/lustre`` are shared by every host (NFS and the parallel
filesystem); ``/etc``, ``/proc``, ``/sys``, ``/var/log``, ``/tmp`` and
``/dev`` belong to one host. Files under ``/proc``, ``/sys`` and the job
directory are callables rendered from the model when read, so they change
as the simulated clock runs and as faults act.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

from emulator.cluster import counters, links
from emulator.cluster.boots import load_average
from emulator.cluster.checkpoints import checkpoint_files
from emulator.cluster.hardware import GPU, NIC
from emulator.cluster.ids import rng
from emulator.cluster.jobfiles import files as log_files
from emulator.cluster.model import Cluster, Node
from emulator.cluster.pci import pci_devices
from emulator.cluster.scheduler import compress_hostlist
from emulator.cluster.services import journal_source, unit_journal
from emulator.hostfs import procfs
from emulator.vfs import Dir, File, FileSystem

HOME = "/home/alice"
_PORT_STATES = {"Down": "1: DOWN", "Initializing": "2: INIT", "Armed": "3: ARMED", "Active": "4: ACTIVE"}
_PHYS_STATES = {"Sleep": "1: Sleep", "Polling": "2: Polling", "Disabled": "3: Disabled",
                "PortConfigurationTraining": "4: PortConfigurationTraining", "LinkUp": "5: LinkUp",
                "LinkErrorRecovery": "6: LinkErrorRecovery"}
#: sysfs counter file → the model's PMA counter name.
_SYSFS_COUNTERS = {
    "symbol_error": "SymbolErrorCounter", "link_error_recovery": "LinkErrorRecoveryCounter",
    "link_downed": "LinkDownedCounter", "port_rcv_errors": "PortRcvErrors",
    "port_rcv_remote_physical_errors": "PortRcvRemotePhysicalErrors",
    "port_rcv_switch_relay_errors": "PortRcvSwitchRelayErrors", "port_xmit_discards": "PortXmitDiscards",
    "port_xmit_constraint_errors": "PortXmitConstraintErrors",
    "port_rcv_constraint_errors": "PortRcvConstraintErrors",
    "local_link_integrity_errors": "LocalLinkIntegrityErrors",
    "excessive_buffer_overrun_errors": "ExcessiveBufferOverrunErrors", "VL15_dropped": "VL15Dropped",
    "port_xmit_wait": "PortXmitWait", "port_xmit_data": "PortXmitData", "port_rcv_data": "PortRcvData",
    "port_xmit_packets": "PortXmitPkts", "port_rcv_packets": "PortRcvPkts",
    "unicast_xmit_packets": "PortUnicastXmitPkts", "unicast_rcv_packets": "PortUnicastRcvPkts",
    "multicast_xmit_packets": "PortMulticastXmitPkts", "multicast_rcv_packets": "PortMulticastRcvPkts",
}


def _live(render: Callable[[], str], size: int = 0, now: Callable[[], float] | None = None) -> File:
    """A file rendered at read time; ``ls -l`` shows ``size`` (0 for /proc, 4096 for /sys).

    ``now`` gives its modification time live (/proc files always look just written).
    """
    return File(render, mode=0o444, fixed_size=size, live_mtime=now)


def _tree(files: dict[str, File], owner: str = "root") -> Dir:
    """A directory tree from {relative path: file}."""
    root = Dir(owner=owner, group=owner)
    for path, node in files.items():
        parts = path.split("/")
        here = root
        for name in parts[:-1]:
            child = here.children.get(name)
            if not isinstance(child, Dir):
                child = Dir(owner=owner, group=owner)
                here.children[name] = child
            here = child
        here.children[parts[-1]] = node
    return root


def _mount(root: Dir, path: str, node: File | Dir, owner: str = "root") -> None:
    """Place ``node`` at absolute ``path``, creating directories (owned by ``owner``) on the way."""
    parts = [p for p in path.split("/") if p]
    here = root
    for name in parts[:-1]:
        child = here.children.get(name)
        if not isinstance(child, Dir):
            child = Dir(owner=owner, group=owner)
            here.children[name] = child
        here = child
    here.children[parts[-1]] = node


# -- shared trees ----------------------------------------------------------------------------
def shared_dirs(cluster: Cluster) -> dict[str, Dir]:
    """The directories every host mounts: ``/home`` and ``/lustre``."""
    home = Dir({"alice": _home(cluster)})
    lustre = Dir()
    for sub in ("jobs", "datasets", "ckpt", "scratch"):
        lustre.children[sub] = Dir(mode=0o1777 if sub == "scratch" else 0o755)
    if cluster.training is not None:
        _mount(lustre, cluster.training.data_dir.removeprefix("/lustre"), Dir())
        _mount(lustre, cluster.training.checkpoint_dir.removeprefix("/lustre"), Dir(owner="alice", group="alice"),
               "alice")
    _mount_job_logs(cluster, home, lustre)
    return {"home": home, "lustre": lustre}


def _mount_job_logs(cluster: Cluster, home: Dir, lustre: Dir) -> None:
    """The training run's files (log, Slurm output, config) from the step model."""
    for path, render in log_files(cluster).items():
        node = File(render, owner="alice", group="alice", live_mtime=lambda: cluster.clock.elapsed)
        if path.startswith("/lustre/"):
            _mount(lustre, path.removeprefix("/lustre"), node, "alice")
        elif path.startswith("/home/"):
            _mount(home, path.removeprefix("/home"), node, "alice")
    # Checkpoint shards as they stand when the session starts (binary: sizes only).
    for path, (size, mtime) in checkpoint_files(cluster).items():
        shard = File("", owner="alice", group="alice", mtime=mtime, fixed_size=size)
        _mount(lustre, path.removeprefix("/lustre"), shard, "alice")


def _home(cluster: Cluster) -> Dir:
    files = {
        ".bashrc": File(_BASHRC, owner="alice", group="alice", mtime=-8_640_000.0),
        ".profile": File(_PROFILE, owner="alice", group="alice", mtime=-8_640_000.0),
    }
    home = _tree(files, owner="alice")
    home.mode = 0o750
    return home


_BASHRC = """# ~/.bashrc: executed by bash(1) for non-login shells.
HISTCONTROL=ignoreboth
HISTSIZE=1000
export PATH=/usr/local/cuda/bin:$PATH
alias ll='ls -alF'
alias sq='squeue -u $USER'
"""

_PROFILE = """# ~/.profile: executed by the command interpreter for login shells.
if [ -n "$BASH_VERSION" ] && [ -f "$HOME/.bashrc" ]; then
    . "$HOME/.bashrc"
fi
"""


# -- per-host trees --------------------------------------------------------------------------
def build(cluster: Cluster, node: Node, shared: dict[str, Dir]) -> FileSystem:
    """The whole tree of one host."""
    root = Dir({
        "home": shared["home"],
        "lustre": shared["lustre"],
        "tmp": Dir(mode=0o1777),
        "dev": Dir({"null": File("", mode=0o666), "zero": File("", mode=0o666)}),
        "etc": _etc(cluster, node),
        "proc": _proc(cluster, node),
        "sys": Dir(populate=lambda d: _sys(cluster, node, d)),
        "var": Dir({"log": _var_log(cluster, node), "tmp": Dir(mode=0o1777)}),
        "opt": Dir(),
        "usr": Dir({"bin": Dir(), "sbin": Dir(), "local": Dir({"cuda": Dir(), "bin": Dir()})}),
    })
    if node.role == "compute":
        root.children["raid"] = Dir(mode=0o1777)
    return FileSystem(root, lambda: cluster.clock.elapsed)


def _etc(cluster: Cluster, node: Node) -> Dir:
    v = cluster.versions
    files = {
        "hostname": File(f"{node.name}\n"),
        "hosts": File(lambda: _hosts(cluster)),
        "os-release": File(_os_release(v.os_name)),
        "lsb-release": File("DISTRIB_ID=Ubuntu\nDISTRIB_RELEASE=22.04\nDISTRIB_CODENAME=jammy\n"
                            f"DISTRIB_DESCRIPTION=\"{v.os_name}\"\n"),
        "slurm/slurm.conf": File(lambda: _slurm_conf(cluster)),
        "slurm/prolog.d/50-dcgm-stats.sh": File(_DCGM_PROLOG, mode=0o755, mtime=-8_640_000.0),
        "slurm/epilog.d/50-dcgm-stats.sh": File(_DCGM_EPILOG, mode=0o755, mtime=-8_640_000.0),
        "timezone": File("Etc/UTC\n"),
    }
    return _tree(files)


#: The site's prolog and epilog record each job's GPU statistics with DCGM (``dcgmi stats -j JOBID``).
_DCGM_PROLOG = """#!/bin/bash
# Record this job's GPU statistics with DCGM; read them on the node with: dcgmi stats -j $SLURM_JOB_ID -v
dcgmi stats --enable --max-keep-age 604800 > /dev/null
dcgmi stats --jstart "$SLURM_JOB_ID" > /dev/null
exit 0
"""
_DCGM_EPILOG = """#!/bin/bash
# Stop recording this job's GPU statistics; the record stays until the node reboots.
dcgmi stats --jstop "$SLURM_JOB_ID" > /dev/null
exit 0
"""


def _os_release(name: str) -> str:
    return (f'PRETTY_NAME="{name}"\nNAME="Ubuntu"\nVERSION_ID="22.04"\nVERSION="22.04.5 LTS (Jammy Jellyfish)"\n'
            'VERSION_CODENAME=jammy\nID=ubuntu\nID_LIKE=debian\nHOME_URL="https://www.ubuntu.com/"\n'
            'SUPPORT_URL="https://help.ubuntu.com/"\nBUG_REPORT_URL="https://bugs.launchpad.net/ubuntu/"\n'
            'PRIVACY_POLICY_URL="https://www.ubuntu.com/legal/terms-and-policies/privacy-policy"\n'
            'UBUNTU_CODENAME=jammy\n')


def _hosts(cluster: Cluster) -> str:
    lines = ["127.0.0.1\tlocalhost", "::1\tlocalhost ip6-localhost ip6-loopback", ""]
    for n in cluster.nodes.values():
        lines.append(f"{n.mgmt_ipv4}\t{n.name}.{cluster.domain} {n.name}")
    for n in cluster.nodes.values():
        if n.bmc is not None:
            lines.append(f"{n.bmc.ipv4}\t{n.bmc.hostname}.{cluster.domain} {n.bmc.hostname}")
    return "\n".join(lines) + "\n"


def _slurm_conf(cluster: Cluster) -> str:
    slurm = cluster.slurm
    compute = cluster.compute_nodes
    names = compress_hostlist([n.name for n in compute])
    cpu = compute[0].cpu if compute else None
    lines = [
        "# slurm.conf (summary)",
        f"ClusterName={slurm.cluster_name}",
        f"SlurmctldHost={slurm.controller}",
        "SlurmUser=slurm",
        "AuthType=auth/munge",
        "ProctrackType=proctrack/cgroup",
        "TaskPlugin=task/affinity,task/cgroup",
        "SelectType=select/cons_tres",
        "SelectTypeParameters=CR_Core_Memory",
        "GresTypes=gpu",
        "SchedulerType=sched/backfill",
        "PriorityType=priority/multifactor",
        "JobAcctGatherType=jobacct_gather/cgroup",
        "AccountingStorageType=accounting_storage/slurmdbd",
        "SlurmdTimeout=300",
        "ReturnToService=1",
        "Prolog=/etc/slurm/prolog.d/*",
        "Epilog=/etc/slurm/epilog.d/*",
        "",
    ]
    if cpu is not None and compute:
        mem_mb = compute[0].memory_kib // 1024 - 16_384
        lines.append(f"NodeName={names} CPUs={cpu.sockets * cpu.cores_per_socket * cpu.threads_per_core} "
                     f"Sockets={cpu.sockets} CoresPerSocket={cpu.cores_per_socket} "
                     f"ThreadsPerCore={cpu.threads_per_core} RealMemory={mem_mb} Gres=gpu:h100:8 State=UNKNOWN")
    for part in slurm.partitions:
        lines.append(f"PartitionName={part.name} Nodes={compress_hostlist(part.nodes)} "
                     f"Default={'YES' if part.default else 'NO'} MaxTime={part.time_limit} "
                     f"State={part.state.upper()}")
    return "\n".join(lines) + "\n"


# -- /proc ---------------------------------------------------------------------------------
def _proc(cluster: Cluster, node: Node) -> Dir:
    v = cluster.versions

    def now() -> float:
        return cluster.clock.elapsed

    files = {
        "cpuinfo": _live(_once(lambda: _cpuinfo(node)), now=now),
        "meminfo": _live(lambda: _meminfo(cluster, node), now=now),
        "uptime": _live(lambda: _uptime(cluster, node), now=now),
        "loadavg": _live(lambda: _loadavg(cluster, node), now=now),
        "version": _live(lambda: f"Linux version {v.kernel} (buildd@lcy02-amd64-047) (gcc (Ubuntu 11.4.0-1ubuntu1~22.04) "
                                 f"11.4.0, GNU ld (GNU Binutils for Ubuntu) 2.38) {v.kernel_build}\n", now=now),
        "cmdline": _live(lambda: f"BOOT_IMAGE=/boot/vmlinuz-{v.kernel} root=UUID=5e6f1c52-3b1c-4a57-9a83-"
                                 "0c1d2e3f4a5b ro pci=realloc=off iommu=pt\n", now=now),
    }
    if node.role == "compute":
        files["driver/nvidia/version"] = _live(lambda: _nvidia_version(cluster), now=now)
    files["sys/kernel/random/boot_id"] = procfs.boot_id_file(cluster, node)
    return procfs.ProcDir(cluster, node, _tree(files).children)


def _once(render: Callable[[], str]) -> Callable[[], str]:
    """A renderer for text that never changes, computed on first read only."""
    cache: list[str] = []

    def text() -> str:
        if not cache:
            cache.append(render())
        return cache[0]

    return text


def _cpuinfo(node: Node) -> str:
    cpu = node.cpu
    cores = cpu.cores_per_socket
    threads = cpu.sockets * cores * cpu.threads_per_core
    blocks = []
    for n in range(threads):
        socket = (n // cores) % cpu.sockets
        core = n % cores
        blocks.append(
            f"processor\t: {n}\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 143\n"
            f"model name\t: {cpu.model}\nstepping\t: 8\nmicrocode\t: 0x2b000590\ncpu MHz\t\t: 2000.000\n"
            f"cache size\t: 107520 KB\nphysical id\t: {socket}\nsiblings\t: {cores * cpu.threads_per_core}\n"
            f"core id\t\t: {core}\ncpu cores\t: {cores}\napicid\t\t: {n * 2 % 256}\n"
            "fpu\t\t: yes\nfpu_exception\t: yes\ncpuid level\t: 32\nwp\t\t: yes\n"
            "flags\t\t: fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat pse36 clflush dts acpi "
            "mmx fxsr sse sse2 ss ht tm pbe syscall nx pdpe1gb rdtscp lm constant_tsc avx avx2 avx512f avx512bw "
            "amx_bf16 amx_tile amx_int8\n"
            "bogomips\t: 4000.00\nclflush size\t: 64\ncache_alignment\t: 64\n"
            "address sizes\t: 46 bits physical, 57 bits virtual\npower management:\n")
    return "\n".join(blocks) + "\n"


def _meminfo(cluster: Cluster, node: Node) -> str:
    total = node.memory_kib
    busy = any(j.state == "RUNNING" and node.name in j.nodes for j in cluster.slurm.jobs)
    r = rng(cluster.seed, node.name, "meminfo", int(cluster.clock.elapsed // 10))
    used_fraction = (0.38 if busy else 0.03) + r.uniform(0.0, 0.01)
    cached = int(total * (0.42 if busy else 0.08))
    free = int(total * (1 - used_fraction) - cached)
    rows = [("MemTotal", total), ("MemFree", free), ("MemAvailable", free + int(cached * 0.9)),
            ("Buffers", int(total * 0.002)), ("Cached", cached), ("SwapCached", 0),
            ("Active", int(total * used_fraction * 0.9)), ("Inactive", int(cached * 0.6)),
            ("SwapTotal", 0), ("SwapFree", 0), ("Dirty", r.randint(100, 4000)), ("Writeback", 0),
            ("AnonPages", int(total * used_fraction * 0.85)), ("Mapped", int(total * 0.01)),
            ("Shmem", int(total * (0.02 if busy else 0.001))), ("Slab", int(total * 0.006)),
            ("PageTables", int(total * 0.001)), ("HugePages_Total", 0), ("HugePages_Free", 0),
            ("Hugepagesize", 2048)]
    out = []
    for name, value in rows:
        unit = "" if name.startswith("HugePages_") else " kB"
        out.append(f"{name + ':':<16}{value:>8}{unit}")
    return "\n".join(out) + "\n"


def _uptime(cluster: Cluster, node: Node) -> str:
    boot = node.health.boots[-1].offset_s if node.health.boots else -86_400.0
    up = cluster.clock.elapsed - boot
    threads = node.cpu.sockets * node.cpu.cores_per_socket * node.cpu.threads_per_core
    idle = up * threads * (0.45 if any(j.state == "RUNNING" and node.name in j.nodes for j in cluster.slurm.jobs)
                           else 0.99)
    return f"{up:.2f} {idle:.2f}\n"


def _loadavg(cluster: Cluster, node: Node) -> str:
    one, five, fifteen = load_average(cluster, node)
    running = max(1, int(one))
    return f"{one:.2f} {five:.2f} {fifteen:.2f} {running}/{1800 + int(one) * 12} {48_213 + int(cluster.clock.elapsed)}\n"


def _nvidia_version(cluster: Cluster) -> str:
    v = cluster.versions
    return (f"NVRM version: NVIDIA UNIX x86_64 Kernel Module  {v.driver}  Fri May 24 00:09:27 UTC 2024\n"
            "GCC version:  gcc version 11.4.0 (Ubuntu 11.4.0-1ubuntu1~22.04) \n")


# -- /sys ------------------------------------------------------------------------------------
def _sys(cluster: Cluster, node: Node, sys_dir: Dir) -> None:
    """/sys/class/infiniband/mlx5_N: device attributes and port 1's state, rate and counters."""
    files: dict[str, File] = {}
    for nic in node.nics:
        base = f"class/infiniband/{nic.name}"
        port = f"{base}/ports/1"
        attributes: dict[str, Callable[[NIC], object]] = {
            f"{base}/fw_ver": lambda n: n.firmware,
            f"{base}/node_guid": lambda n: _guid_text(n.node_guid),
            f"{base}/sys_image_guid": lambda n: _guid_text(n.node_guid),
            f"{base}/hca_type": lambda n: n.ca_type,
            f"{base}/board_id": lambda n: "MT_0000000838",
            f"{base}/device/numa_node": lambda n: n.numa_node,
            f"{port}/state": lambda n: _PORT_STATES.get(n.state, "1: DOWN"),
            f"{port}/phys_state": lambda n: _PHYS_STATES.get(n.phys_state, "3: Disabled"),
            f"{port}/rate": links.rate_text,
            f"{port}/lid": lambda n: f"0x{n.lid:x}",
            f"{port}/sm_lid": lambda n: f"0x{n.sm_lid:x}",
            f"{port}/link_layer": lambda n: n.link_layer,
            f"class/net/{nic.netdev}/device/numa_node": lambda n: n.numa_node,
        }
        for path, render in attributes.items():
            files[path] = _attribute(nic, render)
        for sysfs_name, counter in _SYSFS_COUNTERS.items():
            files[f"{port}/counters/{sysfs_name}"] = _counter(cluster, node, nic, counter)
    for gpu in node.gpus:
        bus = f"bus/pci/devices/{gpu.pci_bus_id[4:].lower()}"
        files[f"{bus}/numa_node"] = File(f"{gpu.numa_node}\n", mode=0o444, fixed_size=4096)
        for name, field in (("current_link_speed", "pcie_gen_current"), ("current_link_width", "pcie_width_current"),
                            ("max_link_speed", "pcie_gen_max"), ("max_link_width", "pcie_width_max")):
            files[f"{bus}/{name}"] = _live(functools.partial(_pcie_link, gpu, field), 4096)
    for dev in pci_devices(node):
        # Every PCI function's NUMA node, as lspci -vv prints it (the GPUs' already set above).
        files.setdefault(f"bus/pci/devices/0000:{dev.bus}/numa_node", File(f"{dev.numa}\n", mode=0o444, fixed_size=4096))
    files["devices/system/node/online"] = File(f"0-{node.cpu.sockets - 1}\n", mode=0o444, fixed_size=4096)
    sys_dir.children.update(_tree(files).children)


#: PCIe generation → the link speed as sysfs prints it.
_PCIE_GTS = {1: "2.5 GT/s", 2: "5.0 GT/s", 3: "8.0 GT/s", 4: "16.0 GT/s", 5: "32.0 GT/s"}


def _pcie_link(gpu: GPU, field: str) -> str:
    """A GPU's PCIe link attribute, read live: ``16.0 GT/s PCIe`` for a speed, ``16`` for a width."""
    value = getattr(gpu, field)
    return f"{_PCIE_GTS[value]} PCIe\n" if "gen" in field else f"{value}\n"


def _attribute(nic: NIC, render: Callable[[NIC], object]) -> File:
    """A sysfs attribute of a NIC, read live."""
    return _live(lambda: f"{render(nic)}\n", 4096)


def _counter(cluster: Cluster, node: Node, nic: NIC, name: str) -> File:
    """A port counter file: the PMA counter as a reader sees it now."""
    return _live(lambda: f"{counters.counters(cluster, node, nic).get(name, 0)}\n", 4096)


def _guid_text(guid: str) -> str:
    """``0xa088c20300da6342`` as sysfs prints it: ``a088:c203:00da:6342``."""
    h = guid.removeprefix("0x").rjust(16, "0")
    return ":".join(h[i:i + 4] for i in range(0, 16, 4))


# -- /var/log --------------------------------------------------------------------------------
def _var_log(cluster: Cluster, node: Node) -> Dir:
    return _tree({
        "kern.log": File(lambda: _kern_log(cluster, node), mode=0o640, owner="syslog", group="adm"),
        "syslog": File(lambda: _syslog(cluster, node), mode=0o640, owner="syslog", group="adm"),
    })


def _syslog_stamp(cluster: Cluster, offset: float) -> str:
    return cluster.clock.at(offset).strftime("%b %e %H:%M:%S")


def _kern_log(cluster: Cluster, node: Node) -> str:
    boot = node.health.boots[-1].offset_s if node.health.boots else 0.0
    now = cluster.clock.elapsed
    lines = []
    for event in node.hw.kernel_log:
        if event.offset_s > now:
            continue
        lines.append(f"{_syslog_stamp(cluster, event.offset_s)} {node.name} kernel: "
                     f"[{max(0.0, event.offset_s - boot):12.6f}] {event.text}")
    return "\n".join(lines[-5000:]) + ("\n" if lines else "")


def _syslog(cluster: Cluster, node: Node) -> str:
    """Kernel messages and service journals, named as ``journalctl`` names their sources."""
    now = cluster.clock.elapsed
    entries: list[tuple[float, str]] = []
    boot = node.health.boots[-1].offset_s if node.health.boots else 0.0
    for event in node.hw.kernel_log:
        if event.offset_s <= now:
            entries.append((event.offset_s, f"kernel: [{max(0.0, event.offset_s - boot):12.6f}] {event.text}"))
    for unit, service in node.hw.services.items():
        for offset, message in unit_journal(cluster, node, service):
            if offset <= now:
                entries.append((offset, f"{journal_source(unit, service, message)}: {message}"))
    entries.sort(key=lambda e: e[0])
    lines = [f"{_syslog_stamp(cluster, at)} {node.name} {text}" for at, text in entries[-5000:]]
    return "\n".join(lines) + ("\n" if lines else "")
