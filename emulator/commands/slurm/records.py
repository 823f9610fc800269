"""The records ``scontrol show`` prints: a job, a node, a partition, and the configuration.

Each is a list of lines in scontrol's ``Key=Value`` layout, rendered from the
model; ``scontrol -o`` joins a record's lines into one.
"""

from __future__ import annotations

from emulator.cluster.hardware import Partition
from emulator.cluster.model import Cluster, Node
from emulator.cluster.scheduler import Job, compress_hostlist, dependency_state
from emulator.commands.kit.command import Context
from emulator.commands.kit.units import slurm_elapsed
from emulator.commands.slurm import common as sc


def config_record(ctx: Context) -> list[str]:
    """``scontrol show config``: the slurm.conf settings the model's behaviour follows."""
    cluster = ctx.cluster
    slurm = cluster.slurm
    settings = {
        "AccountingStorageEnforce": "associations,limits,qos",
        "AccountingStorageHost": slurm.controller,
        "AccountingStorageType": "accounting_storage/slurmdbd",
        "AuthType": "auth/munge",
        "ClusterName": slurm.cluster_name,
        "CompleteWait": "0 sec",
        "DefMemPerNode": "UNLIMITED",
        "GresTypes": "gpu",
        "InactiveLimit": "0 sec",
        "JobAcctGatherFrequency": "30",
        "JobAcctGatherType": "jobacct_gather/cgroup",
        "JobRequeue": "0",
        "KillOnBadExit": "1",
        "KillWait": "30 sec",
        "MaxJobCount": "10000",
        "MinJobAge": f"{int(sc.MIN_JOB_AGE_S)} sec",
        "MpiDefault": "pmix",
        "OverTimeLimit": "0 min",
        "PriorityType": "priority/multifactor",
        "ProctrackType": "proctrack/cgroup",
        "ResumeTimeout": "600 sec",
        "ReturnToService": "1",
        "SchedulerType": "sched/backfill",
        "SelectType": "select/cons_tres",
        "SelectTypeParameters": "CR_CORE_MEMORY",
        "SlurmctldHost[0]": slurm.controller,
        "SlurmctldPort": "6817",
        "SlurmctldTimeout": "120 sec",
        "SlurmdPort": "6818",
        "SlurmdTimeout": f"{int(slurm.slurmd_timeout_s)} sec",
        "SlurmUser": sc.uid_label(sc.SLURM_USER),
        "SLURM_CONF": "/etc/slurm/slurm.conf",
        "SLURM_VERSION": cluster.versions.slurm,
        "TaskPlugin": "task/affinity,task/cgroup",
        "TreeWidth": "16",
    }
    lines = [f"Configuration data as of {sc.stamp(cluster, ctx.clock.elapsed)}"]
    lines += [f"{key:<23} = {value}" for key, value in sorted(settings.items(), key=lambda kv: kv[0].lower())]
    return lines


def job_record(cluster: Cluster, job: Job) -> list[str]:
    st = lambda off, none="Unknown": sc.stamp(cluster, off, none)  # noqa: E731
    limit = sc.limit_seconds(job.time_limit)
    end = job.end_s if job.end_s is not None else (
        job.start_s + limit if job.start_s is not None and limit is not None else None)
    cpus = sc.job_cpus(cluster, job)
    tasks = job.num_nodes * job.ntasks_per_node
    mem = sc.mem_mb(cluster) * job.num_nodes
    tres = f"cpu={cpus},mem={mem}M,node={job.num_nodes},billing={cpus},gres/gpu={job.gpus_per_node * job.num_nodes}"
    nodes = compress_hostlist(job.nodes) if job.nodes else "(null)"
    batch = job.batch
    lines = [
        f"JobId={job.job_id} JobName={job.name}",
        f"   UserId={sc.uid_label(job.user)} GroupId={sc.uid_label(job.user)} MCS_label=N/A",
        f"   Priority={sc.priority(job) if job.state == 'PENDING' or job.state == 'RUNNING' else 0} Nice=0 "
        f"Account={job.account} QOS={job.qos}",
        f"   JobState={job.state} Reason={job.reason} Dependency={_dependency(cluster, job)}",
        f"   Requeue={int(job.requeue)} Restarts={job.restarts} BatchFlag={int(batch)} Reboot=0 ExitCode={job.exit_code}",
        f"   RunTime={slurm_elapsed(sc.run_time(cluster, job))} TimeLimit={job.time_limit} TimeMin=N/A",
        f"   SubmitTime={st(job.submit_s)} EligibleTime={st(job.eligible_s or job.submit_s)}",
        f"   AccrueTime={st(job.submit_s)}",
        f"   StartTime={st(job.start_s)} EndTime={st(end)} Deadline=N/A",
        f"   SuspendTime=None SecsPreSuspend=0 LastSchedEval={st(job.start_s if job.start_s is not None else job.submit_s)} "
        "Scheduler=Main",
        f"   Partition={job.partition} AllocNode:Sid={cluster.login}:{41_000 + job.job_id % 900}",
        "   ReqNodeList=(null) ExcNodeList=(null)",
        f"   NodeList={nodes if job.nodes else '(null)'}",
    ]
    if job.nodes:
        lines.append(f"   BatchHost={job.nodes[0]}")
    lines += [
        f"   NumNodes={job.num_nodes} NumCPUs={cpus} NumTasks={tasks} CPUs/Task={job.cpus_per_task} ReqB:S:C:T=0:0:*:*",
        f"   ReqTRES={tres}",
        f"   AllocTRES={tres if job.nodes else '(null)'}",
        f"   Socks/Node=* NtasksPerN:B:S:C={job.ntasks_per_node}:0:*:* CoreSpec=*",
        f"   MinCPUsNode={job.ntasks_per_node * job.cpus_per_task} MinMemoryNode=0 MinTmpDiskNode=0",
        "   Features=(null) DelayBoot=00:00:00",
        "   OverSubscribe=NO Contiguous=0 Licenses=(null) Network=(null)",
        f"   Command={job.command or job.name}",
        f"   WorkDir={job.workdir or '/home/' + job.user}",
    ]
    if batch:
        out = job.stdout or f"{job.workdir or '/home/' + job.user}/slurm-{job.job_id}.out"
        lines += [f"   StdErr={out}", "   StdIn=/dev/null", f"   StdOut={out}"]
    lines.append(f"   TresPerNode=gres/gpu:{job.gpus_per_node}")
    return lines


def _dependency(cluster: Cluster, job: Job) -> str:
    if not job.dependency or job.state != "PENDING":
        return "(null)"
    return f"{job.dependency}({dependency_state(cluster.slurm, job)})"


def node_record(cluster: Cluster, node: Node) -> list[str]:
    state = sc.node_state(cluster, node.name)
    slurm = cluster.slurm
    cpus = node.cpu.count
    busy = state.short in ("alloc", "mix", "drng")
    parts = ",".join(p.name for p in slurm.partitions if node.name in p.nodes)
    boot = node.health.boots[-1].offset_s if node.health.boots else 0.0
    mem = node.memory_kib // 1024
    v = cluster.versions
    lines = [
        f"NodeName={node.name} Arch=x86_64 CoresPerSocket={node.cpu.cores_per_socket} ",
        f"   CPUAlloc={cpus if busy else 0} CPUEfctv={cpus} CPUTot={cpus} "
        f"CPULoad={sc.cpu_load_text(node, state)}",
        "   AvailableFeatures=(null)",
        "   ActiveFeatures=(null)",
        "   Gres=gpu:h100:8(S:0-1)",
        f"   NodeAddr={node.name} NodeHostName={node.name} Version={v.slurm}",
        f"   OS=Linux {v.kernel} {v.kernel_build} ",
        f"   RealMemory={mem} AllocMem={mem if busy else 0} "
        f"FreeMem={sc.free_mem_mb(cluster, node, state) if state.responding else 'N/A'} Sockets={node.cpu.sockets} Boards=1",
        f"   State={state.scontrol} ThreadsPerCore={node.cpu.threads_per_core} TmpDisk=0 Weight=1 Owner=N/A "
        "MCS_label=N/A",
        f"   Partitions={parts} ",
        f"   BootTime={sc.stamp(cluster, boot)} SlurmdStartTime={sc.stamp(cluster, boot + 35.0)}",
        f"   LastBusyTime={sc.stamp(cluster, _last_busy(cluster, node))} ResumeAfterTime=None",
        f"   CfgTRES=cpu={cpus},mem={mem}M,billing={cpus},gres/gpu=8",
        f"   AllocTRES={f'cpu={cpus},mem={mem}M,gres/gpu=8' if busy else ''}",
        "   CapWatts=n/a",
        "   CurrentWatts=0 AveWatts=0",
        "   ExtSensorsJoules=n/a ExtSensorsWatts=0 ExtSensorsTemp=n/a",
    ]
    reason = slurm.node_reason.get(node.name)
    if reason:
        who, when = slurm.reason_set.get(node.name, ("root", 0.0))
        lines.append(f"   Reason={reason} [{who}@{sc.stamp(cluster, when)}]")
    return lines


def _last_busy(cluster: Cluster, node: Node) -> float:
    ends = [j.end_s for j in cluster.slurm.jobs if node.name in j.nodes and j.end_s is not None]
    running = any(j.state == "RUNNING" and node.name in j.nodes for j in cluster.slurm.jobs)
    if running:
        return cluster.clock.elapsed
    return max(ends, default=node.health.boots[-1].offset_s + 35.0 if node.health.boots else 0.0)


def partition_record(cluster: Cluster, part: Partition) -> list[str]:
    cpus = sc.cpus_per_node(cluster) * len(part.nodes)
    mem = sc.mem_mb(cluster) * len(part.nodes)
    return [
        f"PartitionName={part.name}",
        "   AllowGroups=ALL AllowAccounts=ALL AllowQos=ALL",
        f"   AllocNodes=ALL Default={'YES' if part.default else 'NO'} QoS=N/A",
        "   DefaultTime=NONE DisableRootJobs=NO ExclusiveUser=NO GraceTime=0 Hidden=NO",
        f"   MaxNodes=UNLIMITED MaxTime={part.time_limit} MinNodes=0 LLN=NO MaxCPUsPerNode=UNLIMITED "
        "MaxCPUsPerSocket=UNLIMITED",
        f"   Nodes={compress_hostlist(part.nodes)}",
        "   PriorityJobFactor=1 PriorityTier=1 RootOnly=NO ReqResv=NO OverSubscribe=NO",
        "   OverTimeLimit=NONE PreemptMode=OFF",
        f"   State={part.state.upper()} TotalCPUs={cpus} TotalNodes={len(part.nodes)} SelectTypeParameters=NONE",
        "   JobDefaults=(null)",
        "   DefMemPerNode=UNLIMITED MaxMemPerNode=UNLIMITED",
        f"   TRES=cpu={cpus},mem={mem}M,node={len(part.nodes)},billing={cpus},gres/gpu={8 * len(part.nodes)}",
    ]
