"""A host's processes and memory now: one process table for ps, top, free, vmstat, numactl, taskset and /proc.

:func:`processes` lists system daemons, the services of the model, and on a
node running the training job its torchrun agent, the eight ranks
(``pt_main_thread``, pids from ``cluster.training.ranks``) and their
DataLoader workers (``pt_data_worker``), with CPU shares from the step
model. :func:`memory` derives the memory figures from it, so every tool agrees."""

from __future__ import annotations

import math
from dataclasses import dataclass

from emulator.cluster import steps, storage, timeline
from emulator.cluster.boots import boot_offset
from emulator.cluster.hardware import StrayLoad
from emulator.cluster.ids import rng
from emulator.cluster.model import Cluster, Node
from emulator.cluster.scheduler import Job
from emulator.cluster.services import EXEC
from emulator.cluster.strays import cpu_share, strays_now


@dataclass(frozen=True)
class Memory:
    """A host's memory in KiB, as /proc/meminfo would report it now."""

    total: int
    used: int
    free: int
    shared: int
    buffers: int
    cached: int

    @property
    def buff_cache(self) -> int:
        return self.buffers + self.cached

    @property
    def available(self) -> int:
        return self.free + int(self.cached * 0.92) + self.buffers



def memory(cluster: Cluster, node: Node, procs: list[Proc] | None = None) -> Memory:
    """The host's memory now; ``procs`` is :func:`processes` when the caller has it already."""
    total = node.memory_kib
    r = rng(cluster.seed, node.name, "meminfo")
    procs = processes(cluster, node) if procs is None else procs
    used = 5_800_000 + sum(p.rss_kib for p in procs if p.user != "root" or p.pid < 100) + r.randrange(200_000)
    training = any(p.comm == "pt_main_thread" for p in procs)
    shared = (14_600_000 if training else 60_000) + r.randrange(50_000)
    cached = (total // 5 if node.role == "compute" else total // 12) + r.randrange(10**7)
    buffers = 1_800_000 + r.randrange(400_000)
    free = max(0, total - used - cached - buffers)
    return Memory(total, used, free, shared, buffers, cached)



#: Where each kind of sleeping process waits, as ``/proc/PID/wchan`` names it on the model's kernel
#: (5.15: the sleeping function outside the scheduler, with ``ep_poll``/``do_poll`` inlined into their
#: callers; the futex wait is ``futex_wait_queue_me`` until 5.16 renamed it ``futex_wait_queue``,
#: torvalds/linux kernel/futex.c v5.15 and kernel/futex/waitwake.c v5.16). Event-loop daemons
#: (systemd, journald, resolved, the NVIDIA and Slurm daemons) default to ``do_epoll_wait``.
WAITS_IN = {
    "kthreadd": "kthreadd", "rcu_gp": "rescuer_thread", "sshd": "do_sys_poll", "bash": "do_wait",
    # slurmstepd's main thread reaps the step's tasks (waitpid); the torchrun agent sleeps between
    # monitor passes (time.sleep, clock_nanosleep); an idle DataLoader worker polls its index queue's
    # pipe (multiprocessing Queue.get with a timeout).
    "slurmstepd": "do_wait", "torchrun": "hrtimer_nanosleep", "pt_data_worker": "do_sys_poll",
    "python3": "futex_wait_queue_me",
}
#: Where a read from Lustre waits for its pages: cl_sync_io_wait (lustre/obdclass/cl_io.c), the
#: synchronous-I/O wait of a client read, which hung-task traces of Lustre clients show.
LUSTRE_READ_WAIT = "cl_sync_io_wait"


@dataclass(frozen=True)
class Proc:
    pid: int
    ppid: int
    user: str
    comm: str
    args: str
    cpu_pct: float
    rss_kib: int
    vsz_kib: int
    shr_kib: int
    state: str
    start_s: float             # offset from the clock's start
    threads: int = 1
    tty: str = "?"
    nice: int = 0
    #: CPU seconds used before the current %CPU began (a rank that ran, then hung).
    cpu_before_s: float = 0.0
    #: When the current %CPU began (None: since the start).
    rate_since_s: float | None = None
    #: The kernel function a sleeping process waits in (``ps -o wchan``); "" for a daemon's default.
    waits_in: str = ""

    @property
    def wchan(self) -> str:
        """``/proc/PID/wchan`` as ps prints it: ``-`` while running, else where the task sleeps."""
        if self.state.startswith("R"):
            return "-"
        return self.waits_in or WAITS_IN.get(self.comm, "do_epoll_wait")

    def cpu_time_s(self, now: float) -> float:
        since = self.start_s if self.rate_since_s is None else self.rate_since_s
        return self.cpu_before_s + max(0.0, now - since) * self.cpu_pct / 100.0



def running_jobs(cluster: Cluster, node: Node) -> list[Job]:
    return [j for j in cluster.slurm.jobs if j.state == "RUNNING" and node.name in j.nodes]



def processes(cluster: Cluster, node: Node) -> list[Proc]:
    """The host's processes now: system daemons, services, and the jobs' workers."""
    boot = boot_offset(node)
    r = rng(cluster.seed, node.name, "procs")
    procs = [
        Proc(1, 0, "root", "systemd", "/sbin/init", 0.0, 13_140, 168_084, 8_400, "Ss", boot),
        Proc(2, 0, "root", "kthreadd", "[kthreadd]", 0.0, 0, 0, 0, "S", boot),
        Proc(3, 2, "root", "rcu_gp", "[rcu_gp]", 0.0, 0, 0, 0, "I<", boot),
        Proc(r.randint(900, 990), 1, "root", "systemd-journal", "/lib/systemd/systemd-journald", 0.0,
             r.randint(90_000, 160_000), 199_120, 80_000, "Ss", boot + 3.0),
        Proc(r.randint(1000, 1090), 1, "systemd+", "systemd-resolve", "/lib/systemd/systemd-resolved", 0.0,
             13_900, 25_532, 8_700, "Ss", boot + 4.0),
    ]
    for service in node.hw.services.values():
        if not service.active or not service.main_pid:
            continue
        binary, cmdline = EXEC.get(service.name, (service.name, f"/usr/sbin/{service.name}"))[:2]
        user = "nvidia-+" if service.name == "nvidia-persistenced" else "root"
        cpu = 0.3 if service.name == "nvidia-dcgm" else 0.0
        procs.append(Proc(service.main_pid, 1, user, binary[:15], cmdline, cpu, r.randint(8_000, 60_000),
                          r.randint(80_000, 900_000), 6_000, "Ssl" if service.name != "ssh" else "Ss",
                          max(boot, service.since_s)))
    run = cluster.training
    for job in running_jobs(cluster, node):
        start = job.start_s if job.start_s is not None else 0.0
        if run is not None and job.job_id == run.job_id:
            procs += _training_procs(cluster, node, start)
        elif job.gpus_per_node == 0:
            procs += _cpu_job_procs(cluster, node, job, start)
        else:
            base = rng(cluster.seed, node.name, "job", job.job_id).randint(100_000, 170_000)
            procs.append(Proc(base - 4, 1, "root", "slurmstepd", f"slurmstepd: [{job.job_id}.0]", 0.0, 9_000,
                              330_000, 7_000, "Sl", start))
            for g in range(job.gpus_per_node):
                procs.append(Proc(base + g * 5, base - 4, job.user, "python3", f"python3 {job.command or 'run.py'}",
                                  round(98.0 + rng(cluster.seed, node.name, "p", g).uniform(0, 4), 1), 18_000_000,
                                  96_000_000, 1_300_000, "Rl", start + 40.0, threads=64))
    for stray in strays_now(cluster, node):
        procs += _stray_procs(cluster, node, stray)
    return sorted(procs, key=lambda p: p.pid)



def _stray_procs(cluster: Cluster, node: Node, stray: StrayLoad) -> list[Proc]:
    """A user's processes outside any job: started from an ssh session that has ended (so init's
    children), each with its busy threads' share of the CPUs."""
    share = cpu_share(cluster, node)
    procs = []
    for k in range(stray.procs):
        j = rng(cluster.seed, node.name, "stray", k)
        procs.append(Proc(stray.first_pid + 3 * k, 1, stray.user, "python3", f"{stray.args} --shard {k}",
                          round(stray.threads * share * 100.0 * j.uniform(0.96, 1.04), 1),
                          j.randint(2_800_000, 4_600_000), j.randint(9_000_000, 11_000_000), 60_000, "Rl",
                          stray.start_s + 0.05 * k, threads=stray.threads + 4))
    return procs



def _cpu_job_procs(cluster: Cluster, node: Node, job: Job, start: float) -> list[Proc]:
    """A CPU-only data-preparation job: its batch script and one task per CPU it asked for, each
    reading shards from the parallel filesystem (a third at a time asleep in a Lustre read)."""
    base = rng(cluster.seed, node.name, "job", job.job_id).randint(100_000, 170_000)
    script = f"/var/spool/slurmd/job{job.job_id}/slurm_script"
    procs = [Proc(base - 9, 1, "root", "slurmstepd", f"slurmstepd: [{job.job_id}.batch]", 0.0, 9_000, 330_000,
                  7_000, "Sl", start),
             Proc(base - 8, base - 9, job.user, "bash", f"/bin/bash {script}", 0.0, 3_600, 8_900, 3_200, "S",
                  start + 0.1),
             Proc(base - 4, 1, "root", "slurmstepd", f"slurmstepd: [{job.job_id}.0]", 0.0, 9_000, 330_000,
                  7_000, "Sl", start + 0.4)]
    for task in range(job.ntasks_per_node):
        j = rng(cluster.seed, node.name, "job", job.job_id, "task", task)
        reading = task % 3 == 0
        procs.append(Proc(base + task, base - 4, job.user, "python3",
                          f"python3 /home/{job.user}/prep/{job.name}.py --task {task} --of {job.ntasks_per_node}",
                          round(j.uniform(8.0, 20.0) if reading else j.uniform(55.0, 80.0), 1),
                          j.randint(700_000, 1_400_000), j.randint(2_100_000, 2_600_000), 40_000,
                          "D" if reading else "R", start + 0.6, waits_in=LUSTRE_READ_WAIT if reading else ""))
    return procs


def _training_procs(cluster: Cluster, node: Node, start: float) -> list[Proc]:
    """torchrun, its eight ranks and their DataLoader workers on one node (the ranks straight under
    slurmstepd when srun launched one task per GPU)."""
    run = cluster.training
    assert run is not None
    ranks = [rk for rk in run.ranks if rk.node == node.name]
    if not ranks:
        return []
    n_i = run.nodes.index(node.name)
    pid0 = min(rk.pid for rk in ranks)
    agent = pid0 - 31 - n_i    # the torchrun agent pid the job log names
    started = run.started_s + run.alloc_s
    args = (f"/usr/bin/python3 -u train.py --config /home/alice/jobs/configs/{run.model_name}.yaml")
    torchrun = (f"/usr/bin/python3 /usr/local/bin/torchrun --nnodes={len(run.nodes)} --nproc-per-node=8 "
                f"--rdzv-id={run.job_id} --rdzv-backend=c10d --rdzv-endpoint={run.nodes[0]}:29500 train.py "
                f"--config /home/alice/jobs/configs/{run.model_name}.yaml")
    procs = [
        Proc(agent - 6, 1, "root", "slurmstepd", f"slurmstepd: [{run.job_id}.0]", 0.0, 9_240, 331_460, 7_300, "Sl",
             run.started_s),
    ]
    if run.distribution:
        agent -= 6
    else:
        procs.append(Proc(agent, agent - 6, "alice", "torchrun", torchrun, 0.4, 412_000, 2_964_000, 160_000, "Sl",
                          run.started_s + 2))
    try:
        prof = steps.profile(cluster)
        step_s, hang_s = prof.step_s, timeline.schedule(cluster, prof).hang_s
    except (ValueError, ZeroDivisionError):
        step_s, hang_s = math.inf, None
    hung = hang_s is not None and cluster.clock.elapsed >= hang_s
    per_worker = run.grad_accum / max(1, run.loader_workers) * run.batch_cpu_s
    worker_pct = min(99.7, 100.0 * per_worker / step_s) if math.isfinite(step_s) and step_s > 0 else 0.0
    if hung:
        worker_pct = 0.0   # no step completes: the loaders' queues are full
    # On a saturated filesystem most workers sit in uninterruptible reads; on CPUs crowded by threads
    # outside the job every thread of it is runnable and gets only a share of a CPU.
    slow_io = not hung and io_stretch(cluster) > 8.0
    share = cpu_share(cluster, node)
    # Since when the CPUs are crowded (None: never): each process used its own full rate before.
    crowded = min((s.start_s for s in strays_now(cluster, node)), default=None) if share < 1.0 else None
    calm_worker_pct = 100.0 * per_worker / (run.baseline_step_s or step_s) if math.isfinite(step_s) else 0.0
    for rank in ranks:
        j = rng(cluster.seed, node.name, "rank", rank.rank)
        # Ranks busy-poll in NCCL even while they wait; a rank stuck in I/O sleeps in the kernel.
        full = round(101.0 + j.uniform(0, 9), 1)
        state, pct = "Rl", round(full * share, 1)
        before, since = 0.0, None
        if crowded is not None:
            before, since = max(0.0, crowded - started) * full / 100.0, crowded
        if hung and hang_s is not None and rank.rank == run.hang_rank and run.hang_in == "io":
            before, since = max(0.0, hang_s - started) * pct / 100.0, hang_s
            state, pct = "Dl", 0.3
        waits_in = LUSTRE_READ_WAIT if state.startswith("D") else ""
        procs.append(Proc(rank.pid, agent, "alice", "pt_main_thread", args, pct,
                          21_400_000 + j.randrange(2_000_000), 186_000_000 + j.randrange(4_000_000),
                          2_100_000 + j.randrange(300_000), state, started, threads=97, cpu_before_s=before,
                          rate_since_s=since, waits_in=waits_in))
        for k in range(run.loader_workers):
            w = rng(cluster.seed, node.name, "worker", rank.rank, k)
            pct = round(max(0.0, worker_pct * w.uniform(0.9, 1.1)), 1)
            state = "R" if pct > 80 or share < 1.0 else "D" if slow_io and k % 3 else "S"
            before, since = 0.0, None
            if crowded is not None:
                before = max(0.0, crowded - started - 90.0) * calm_worker_pct * w.uniform(0.9, 1.1) / 100.0
                since = crowded
            procs.append(Proc(worker_pid(rank.pid, rank.local_rank, run.loader_workers, k), rank.pid, "alice", "pt_data_worker", args, min(99.9, pct),
                              3_100_000 + w.randrange(400_000), 160_000_000 + w.randrange(2_000_000),
                              1_900_000 + w.randrange(200_000), state, started + 90.0,
                              threads=9, cpu_before_s=before, rate_since_s=since,
                              waits_in=LUSTRE_READ_WAIT if state == "D" else ""))
    return procs



def worker_pid(rank_pid: int, local_rank: int, workers: int, k: int) -> int:
    """PID of DataLoader worker ``k`` of the rank with ``rank_pid`` (ranks' pids are 7 apart)."""
    return rank_pid + 60 + local_rank * workers + k - local_rank * 7



def io_stretch(cluster: Cluster) -> float:
    """How many times longer an input read takes than on an idle parallel filesystem."""
    return storage.read_latency_ms(cluster.storage) / storage.READ_SERVICE_MS



def cpu_split(cluster: Cluster, node: Node, sample: int, procs: list[Proc]) -> tuple[float, float, float, float]:
    """%user, %system, %iowait and %idle of the host: the processes' CPU, and the loader
    workers' wait on the parallel filesystem when it is slow."""
    busy = sum(p.cpu_pct for p in procs) / node.cpu.count
    r = rng(cluster.seed, node.name, "cpu", sample, int(cluster.clock.elapsed))
    user = min(99.0, busy * 0.9 + r.uniform(0, 0.4))
    system = min(99.0 - user, busy * 0.1 + 0.3 + r.uniform(0, 0.1))
    iowait = 0.05 + r.uniform(0, 0.05)
    workers = sum(1 for p in procs if p.comm == "pt_data_worker")
    if workers:
        iowait += min(25.0, 0.02 * workers * (io_stretch(cluster) - 1.0)) * r.uniform(0.9, 1.1)
    elif any(p.state == "D" for p in procs):
        # Tasks asleep in a read leave their CPU idle waiting for I/O.
        iowait += 100.0 * sum(p.state == "D" for p in procs) / node.cpu.count * r.uniform(0.9, 1.1)
    iowait = min(iowait, 99.0 - user - system)
    return user, system, iowait, max(0.0, 100.0 - user - system - iowait)



def affinity(cluster: Cluster, node: Node, pid: int, procs: list[Proc] | None = None) -> str | None:
    """The CPU list a process may run on: a rank and its loader workers are bound to one
    socket (their GPU's, unless the run binds them elsewhere); others may use every CPU."""
    binding = rank_binding(cluster, node, pid)
    if binding is not None:
        return node.cpu.cpus_of_numa(binding[0])
    if any(p.pid == pid for p in (processes(cluster, node) if procs is None else procs)):
        return f"0-{node.cpu.count - 1}"
    return None


def rank_binding(cluster: Cluster, node: Node, pid: int) -> tuple[int, int] | None:
    """The NUMA nodes a training rank (or one of its loader workers) with ``pid`` is bound to, as
    (CPUs, memory): its GPU's node for both, unless the run binds it elsewhere; None for other pids."""
    run = cluster.training
    if run is None or not any(j.is_training for j in running_jobs(cluster, node)):
        return None
    for rank in run.ranks:
        if rank.node != node.name:
            continue
        workers = {worker_pid(rank.pid, rank.local_rank, run.loader_workers, k) for k in range(run.loader_workers)}
        if pid == rank.pid or pid in workers:
            gpu_numa = node.gpus[rank.gpu].numa_node if rank.gpu < len(node.gpus) else 0
            cpus = run.rank_numa.get(rank.rank, gpu_numa)
            return cpus, run.rank_membind.get(rank.rank, cpus)
    return None
