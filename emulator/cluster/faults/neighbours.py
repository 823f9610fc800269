"""Faults of a neighbour: another user's work that takes what the training job needs.

Another tenant's job saturating the parallel filesystem (slow reads, crawling
saves), or a user's processes started over ssh outside Slurm crowding the
CPUs of a node of the job (:mod:`emulator.cluster.strays`). Each changes
state only; the step model turns it into the job's data wait.
"""

from __future__ import annotations

import random

from emulator.cluster.accounts import uid_of
from emulator.cluster.faults.base import Fault
from emulator.cluster.faults.training import remember_baseline, training_run
from emulator.cluster.hardware import StrayLoad
from emulator.cluster.model import Cluster
from emulator.cluster.scheduler import Job

#: Seconds the contending tenant's job ran before its reads slowed the filesystem: more than one
#: train.log window (ten steps) so the job is running before the first slow step is logged.
TENANT_LEAD_S = 60.0


def storage_contention(cluster: Cluster, r: random.Random, params: dict[str, object]) -> dict[str, str]:
    """Another tenant saturates the parallel filesystem: reads queue, checkpoint writes crawl."""
    run = training_run(cluster)
    remember_baseline(cluster, run)
    # Early enough that at least one checkpoint save ran under the load before the session starts.
    run.degraded_s = -r.uniform(2700.0, 3600.0)
    fs = cluster.storage
    load = float(str(params["load"]))
    fs.background_read_load = load
    fs.background_write_load = max(0.0, load - 0.02)
    fs.background_metadata_load = max(0.0, load - 0.08)
    fs.client_cache_hit = 0.05
    tenant = str(params.get("tenant") or r.choice(("bob", "carol", "dave", "erin")))
    # The tenant's job started a little before its readers saturated the servers (train.log averages
    # its step times over windows of ten steps, so the first slow window begins before the change).
    job = _tenant_job(cluster, r, tenant, run.degraded_s - TENANT_LEAD_S)
    truth = {"cause": "storage-contention", "tenant": tenant, "load": f"{load:g}"}
    return {**truth, "tenant_job": str(job.job_id)} if job is not None else truth


#: What a stray tokenizer process costs: one busy thread per physical core of the node (its thread
#: pool's default), and the CPU time each DataLoader worker of the job spends per micro-batch while it
#: tokenises and packs text on the fly (the job's own setting, heavier than reading pre-tokenised shards).
STRAY_PROCS = (14, 18)
TOKENIZE_BATCH_CPU_S = 1.2


def cpu_contention(cluster: Cluster, r: random.Random, params: dict[str, object]) -> dict[str, str]:
    """Another user's tokenizer, started over ssh on the node of rank 0 outside any Slurm job, crowds
    its CPUs with busy threads: the job's loader workers get a small share of a CPU each and fall behind."""
    run = training_run(cluster)
    run.batch_cpu_s = float(str(params["batch_cpu_s"]))
    remember_baseline(cluster, run)
    run.degraded_s = -r.uniform(2700.0, 3600.0)
    user = str(params.get("tenant") or r.choice(("bob", "carol", "dave", "erin")))
    node = cluster.node(run.ranks[0].node)
    assert node is not None
    # Started before its threads crowded the CPUs enough to slow a step (it loads its inputs first), and
    # more than one train.log window before the first slow one, as a tenant's job does (TENANT_LEAD_S).
    start = run.degraded_s - TENANT_LEAD_S - r.uniform(0.0, 5.0)
    ssh_at = start - r.uniform(40.0, 110.0)
    procs = r.randint(*STRAY_PROCS)
    args = f"python3 /home/{user}/prep/tokenize_corpus.py --tokenizer llama3 --out /lustre/scratch/{user}/tok"
    node.hw.strays.append(StrayLoad(user=user, args=args, procs=procs, threads=node.cpu.count // 2,
                                    start_s=start, first_pid=r.randint(240_000, 260_000)))
    port = r.randint(40_000, 60_000)
    sshd = f"sshd[{r.randint(200_000, 239_000)}]"
    node.hw.auth_log += [
        (ssh_at, sshd, f"Accepted publickey for {user} from 10.10.0.2 port {port} ssh2: ED25519 SHA256:"
                       f"{''.join(r.choice('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/') for _ in range(43))}"),
        (ssh_at, sshd, f"pam_unix(sshd:session): session opened for user {user}(uid={uid_of(user)}) by (uid=0)"),
        (start + r.uniform(20.0, 90.0), sshd, f"pam_unix(sshd:session): session closed for user {user}"),
    ]
    node.hw.auth_log.sort(key=lambda e: e[0])
    return {"cause": "cpu-contention", "tenant": user, "node": node.name, "procs": str(procs)}


def _tenant_job(cluster: Cluster, r: random.Random, tenant: str, start: float) -> Job | None:
    """Who contends: the tenant's data-preparation job, running on a free node since the slowdown
    began (``squeue`` shows it; its start agrees with the first slow save)."""
    slurm = cluster.slurm
    free = [n.name for n in cluster.compute_nodes if slurm.node_state.get(n.name) == "idle"]
    if not free:
        return None
    node = free[-1]
    job = Job(job_id=slurm.next_job_id, name=r.choice(("dedup-shards", "tokenize-c4", "repack-webdata")), user=tenant,
              partition="gpu", nodes=[node], state="RUNNING", submit_s=start - r.uniform(20.0, 90.0), start_s=start,
              gpus_per_node=0, cpus_per_task=1, ntasks_per_node=64, command=f"/home/{tenant}/prep.sbatch",
              workdir=f"/home/{tenant}", account="data")
    slurm.next_job_id += 1
    slurm.jobs.append(job)
    slurm.node_state[node] = "mix"
    return job


FAULTS: list[Fault] = [
    Fault("storage-contention", "Another tenant saturates the parallel filesystem: slow reads, stalled saves",
          storage_contention, {"load": 0.997, "tenant": ""}),
    Fault("cpu-contention", "Another user's processes outside Slurm crowd the CPUs of rank 0's node: its loader falls behind",
          cpu_contention, {"tenant": "", "batch_cpu_s": TOKENIZE_BATCH_CPU_S}),
]
