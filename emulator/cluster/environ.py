"""The environment each process was started with, as ``/proc/<pid>/environ`` holds it.

A training rank inherits the Slurm step's variables (the job, its nodes, the GPUs
the step was given as ``CUDA_VISIBLE_DEVICES``) and torchrun adds its own:
``RANK``, ``LOCAL_RANK``, ``WORLD_SIZE``, ``MASTER_ADDR`` and the rest of the
``torch.distributed`` rendezvous. ``LOCAL_RANK`` indexes ``CUDA_VISIBLE_DEVICES``,
so the pair names the physical GPU a rank drives. DataLoader workers are forked
from their rank and hold the same environment; the torchrun agent holds the
step's variables without the per-rank ones; daemons hold what systemd gives them.
"""

from __future__ import annotations

from emulator.cluster.model import Cluster, Node
from emulator.cluster.processes import Proc, worker_pid
from emulator.cluster.training import Rank, TrainingRun

#: What systemd passes a service (systemd.exec(5), "Environment variables in spawned processes").
SERVICE_ENV = [("LANG", "C.UTF-8"),
               ("PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin")]


def environ(cluster: Cluster, node: Node, proc: Proc) -> list[tuple[str, str]]:
    """The (name, value) pairs in ``proc``'s environment, in the order the kernel keeps them."""
    if proc.vsz_kib == 0:
        return []      # a kernel thread has no environment
    run = cluster.training
    if run is not None and proc.user == "alice" and node.name in run.nodes:
        ranks = [rk for rk in run.ranks if rk.node == node.name]
        for rank in ranks:
            workers = {worker_pid(rank.pid, rank.local_rank, run.loader_workers, k)
                       for k in range(run.loader_workers)}
            if proc.pid == rank.pid or proc.pid in workers:
                return _step_env(run, node, ranks) + _rank_env(run, node, rank, len(ranks))
        if proc.comm == "torchrun":
            return _step_env(run, node, ranks)
    return list(SERVICE_ENV)


def _step_env(run: TrainingRun, node: Node, ranks: list[Rank]) -> list[tuple[str, str]]:
    """The variables slurmstepd gives the job step's task on ``node``."""
    visible = ",".join(str(rk.gpu) for rk in sorted(ranks, key=lambda rk: rk.local_rank))
    node_id = run.nodes.index(node.name)
    return [("SHELL", "/bin/bash"), ("HOME", "/home/alice"), ("USER", "alice"), ("LOGNAME", "alice"),
            ("PATH", "/usr/local/bin:/usr/bin:/bin"), ("LANG", "C.UTF-8"),
            ("SLURM_JOB_ID", str(run.job_id)), ("SLURM_JOB_NAME", run.name),
            ("SLURM_JOB_NUM_NODES", str(len(run.nodes))), ("SLURM_NNODES", str(len(run.nodes))),
            ("SLURM_NODEID", str(node_id)), ("SLURM_PROCID", str(node_id)), ("SLURM_LOCALID", "0"),
            ("SLURM_STEP_ID", "0"), ("SLURMD_NODENAME", node.name), ("SLURM_STEP_GPUS", visible),
            ("CUDA_VISIBLE_DEVICES", visible), ("OMP_NUM_THREADS", "1")]


def _rank_env(run: TrainingRun, node: Node, rank: Rank, local_world: int) -> list[tuple[str, str]]:
    """The variables torchrun sets for one worker (torch.distributed.elastic.agent.server.local_elastic_agent)."""
    group_rank = run.nodes.index(node.name)
    world = str(len(run.ranks))
    return [("LOCAL_RANK", str(rank.local_rank)), ("RANK", str(rank.rank)), ("GROUP_RANK", str(group_rank)),
            ("ROLE_RANK", str(rank.rank)), ("ROLE_NAME", "default"), ("LOCAL_WORLD_SIZE", str(local_world)),
            ("WORLD_SIZE", world), ("GROUP_WORLD_SIZE", str(len(run.nodes))), ("ROLE_WORLD_SIZE", world),
            ("MASTER_ADDR", run.nodes[0]), ("MASTER_PORT", "29500"),
            ("TORCHELASTIC_RESTART_COUNT", "0"), ("TORCHELASTIC_MAX_RESTARTS", "0"),
            ("TORCHELASTIC_RUN_ID", str(run.job_id)), ("TORCHELASTIC_USE_AGENT_STORE", "True"),
            ("TORCH_NCCL_ASYNC_ERROR_HANDLING", "1")]
