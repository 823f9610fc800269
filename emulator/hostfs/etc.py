"""A host's ``/etc``: hostname, hosts, OS release, time zone, and the Slurm configuration.

``/etc/hosts`` lists every node and BMC of the cluster; ``slurm.conf`` is
rendered from the scheduler's partitions and the compute nodes' hardware;
the site's prolog and epilog record each job's GPU statistics with DCGM.
"""

from __future__ import annotations

from emulator.cluster.accounts import BMC_CREDENTIAL
from emulator.cluster.model import Cluster, Node
from emulator.cluster.scheduler import compress_hostlist
from emulator.hostfs.tree import tree
from emulator.vfs import Dir, File


def etc_dir(cluster: Cluster, node: Node) -> Dir:
    """The node's ``/etc``."""
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
    if node.role == "login":
        # The operators' BMC account, readable by root only (sudo cat /etc/ipmi/bmc.cred).
        user, password = BMC_CREDENTIAL
        files["ipmi/bmc.cred"] = File(f"# BMC operator account for ipmitool -I lanplus -H nodeNN-bmc\n"
                                      f"IPMI_USER={user}\nIPMI_PASSWORD={password}\n",
                                      mode=0o600, owner="root", group="root", mtime=-8_640_000.0)
    return tree(files)


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
