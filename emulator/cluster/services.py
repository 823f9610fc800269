"""The systemd units of a host: each daemon's binary and command line, and the journal lines a unit writes."""

from __future__ import annotations

from emulator.cluster.hardware import Service
from emulator.cluster.model import Cluster, Node

#: Daemon binary and command line of each unit (what CGroup and the journal show).
EXEC = {
    "nvidia-fabricmanager": ("nv-fabricmanager", "/usr/bin/nv-fabricmanager -c /usr/share/nvidia/nvswitch/fabricmanager.cfg",
                             "/lib/systemd/system/nvidia-fabricmanager.service", "forking"),
    "nvidia-persistenced": ("nvidia-persistenced", "/usr/bin/nvidia-persistenced --user nvidia-persistenced --verbose",
                            "/lib/systemd/system/nvidia-persistenced.service", "forking"),
    "nvidia-dcgm": ("nv-hostengine", "/usr/bin/nv-hostengine -n --service-account nvidia-dcgm",
                    "/lib/systemd/system/nvidia-dcgm.service", "simple"),
    "slurmd": ("slurmd", "/usr/sbin/slurmd -D -s", "/lib/systemd/system/slurmd.service", "simple"),
    "slurmctld": ("slurmctld", "/usr/sbin/slurmctld -D -s", "/lib/systemd/system/slurmctld.service", "simple"),
    "ssh": ("sshd", "sshd: /usr/sbin/sshd -D [listener] 0 of 10-100 startups", "/lib/systemd/system/ssh.service",
            "notify"),
}



def journal_source(unit: str, service: Service, message: str) -> str:
    desc = service.description
    if message in (f"Starting {desc}...", f"Started {desc}.", f"Stopping {desc}...", f"Stopped {desc}.",
                   f"Failed to start {desc}.") or message.startswith(f"{service.name}.service:"):
        return "systemd[1]"
    return f"{EXEC.get(service.name, (service.name,))[0]}[{service.main_pid}]"



def unit_journal(cluster: Cluster, node: Node, service: Service) -> list[tuple[float, str]]:
    """A unit's journal messages: the model's, or for a unit that logged nothing of its own the
    lines systemd (and slurmd) write when it starts."""
    if service.journal:
        return service.journal
    start, desc = service.since_s, service.description
    lines = [(start - 0.4, f"Starting {desc}..."), (start, f"Started {desc}.")]
    if service.name == "slurmd":
        cpu = node.cpu
        uptime = int(start - (node.health.boots[-1].offset_s if node.health.boots else start))
        when = cluster.clock.at(start + 0.2)
        lines += [(start + 0.1, f"slurmd version {cluster.versions.slurm} started"),
                  (start + 0.2, f"slurmd started on {when:%a, %d %b %Y %H:%M:%S} +0000"),
                  (start + 0.2, f"CPUs={cpu.count} Boards=1 Sockets={cpu.sockets} Cores={cpu.cores_per_socket} "
                                f"Threads={cpu.threads_per_core} Memory={node.memory_kib // 1024} TmpDisk=1831159 "
                                f"Uptime={uptime} CPUSpecList=(null) FeaturesAvail=(null) FeaturesActive=(null)")]
    return lines
