"""Faults of the training domain (see :mod:`emulator.cluster.faults`).

Each fault changes state only: the training run's configuration, its rank
placement and environment, a GPU's clock cap, the parallel filesystem's
background load. The step model (:mod:`emulator.cluster.steps`) turns that
into step times, logs, ``py-spy`` stacks and ``timeline`` bars, and the
collective model into nccl-tests numbers.
"""

from __future__ import annotations

import random
from dataclasses import replace

from emulator.cluster.checkpoints import latest_checkpoint
from emulator.cluster.faults.base import Fault
from emulator.cluster.faults.gpu import gpu_power_excursion, gpu_thermal
from emulator.cluster.model import Cluster
from emulator.cluster.steps import profile
from emulator.cluster.timeline import NCCL_TIMEOUT_MS, PAST_ATTEMPT_S, TEARDOWN_S
from emulator.cluster.training import Rank, TrainingRun


def training_run(cluster: Cluster) -> TrainingRun:
    if cluster.training is None or not cluster.training.ranks:
        raise ValueError("this fault needs a training run (training_nodes > 0)")
    return cluster.training


def _rank(run: TrainingRun, r: random.Random, params: dict[str, object]) -> Rank:
    given = params.get("rank")
    if given is None or given == "":
        return r.choice(run.ranks[1:] or run.ranks)
    if not str(given).isdecimal() or int(str(given)) >= run.world_size:
        raise ValueError(f"no rank {given} in a world of {run.world_size}")
    return run.ranks[int(str(given))]


def _step_s(cluster: Cluster) -> float:
    return profile(cluster).step_s


def remember_baseline(cluster: Cluster, run: TrainingRun) -> None:
    """Record the healthy step (and its input wait) before a fault changes it."""
    prof = profile(cluster)
    run.baseline_step_s = prof.step_s
    run.baseline_data_s = prof.data_wait_s
    run.baseline_checkpoint_s = prof.checkpoint_write_s


# -- input and storage ----------------------------------------------------------------------


def slow_input(cluster: Cluster, r: random.Random, params: dict[str, object]) -> dict[str, str]:
    """Too few loader workers for heavy per-batch CPU work: the GPUs wait for input."""
    run = training_run(cluster)
    run.baseline_step_s = _step_s(cluster)
    run.loader_workers = int(str(params["workers"]))
    run.batch_cpu_s = float(str(params["batch_cpu_s"]))
    return {"cause": "slow-input", "workers": str(run.loader_workers), "batch_cpu_s": f"{run.batch_cpu_s:g}"}


def checkpoint_stall(cluster: Cluster, r: random.Random, params: dict[str, object]) -> dict[str, str]:
    """Synchronous saves that stall every rank and, when the lab asks for it, a latest save that never completed.

    ``why`` (empty: every save completes) says why one rank's shard write
    failed: ``ost-full`` (the OST its object landed on filled up, as ``lfs
    df`` shows), ``quota`` (the project's quota ran out during the save's
    last writes, as ``lfs quota -v -p`` shows) or ``oom`` (its GPU had no
    room left for the contiguous copy DCP makes of a non-contiguous tensor,
    as ``nvidia-smi`` on its node shows). DCP reports the rank's exception to
    every rank and writes no ``.metadata``. The seed picks where the run
    stands (so the failed step) and the failed rank (so its node).
    """

    run = training_run(cluster)
    run.async_checkpoint = False
    run.checkpoint_every = int(str(params["every"]))
    cluster.storage.background_write_load = float(str(params["write_load"]))
    why = str(params.get("why") or "")
    if not why:
        return {"cause": "checkpoint-stall"}
    if why not in SHARD_FAILURES:
        raise ValueError(f"checkpoint-stall: unknown why {why} (one of {', '.join(SHARD_FAILURES)})")
    # Whole save intervals: every time on the clock stays where it was, only the step numbers move.
    run.start_step += run.checkpoint_every * (cluster.seed * 7 % 31 - 15)
    step = latest_checkpoint(cluster)
    missing = (5 + 11 * cluster.seed) % len(run.ranks)
    run.broken_checkpoints[step] = missing
    run.checkpoint_why = why
    if why == "ost-full":       # the OST the shard's object landed on filled up
        osts = [t for t in cluster.storage.targets if t.kind == "OST"]
        run.full_ost = missing % len(osts)
        ost = osts[run.full_ost]
        ost.used_kib = ost.size_kib - r.randint(2_000, 60_000)
    return {"cause": "checkpoint-stall", "step": str(step), "missing_rank": str(missing), "why": why,
            "rank_node": run.ranks[missing].node}


#: Why a rank's shard write can fail (see :func:`checkpoint_stall`).
SHARD_FAILURES = ("ost-full", "quota", "oom")


# -- a late rank ------------------------------------------------------------------------------


def straggler(cluster: Cluster, r: random.Random, params: dict[str, object]) -> dict[str, str]:
    """One rank holds the others at every all-reduce: its GPU is slowed, or it is stuck reading."""
    run = training_run(cluster)
    rank = _rank(run, r, params)
    kind = str(params.get("kind") or r.choice(("thermal", "hw-slowdown", "io")))
    target = {"node": rank.node, "gpu": rank.gpu}
    remember_baseline(cluster, run)
    if kind == "thermal":
        # The rank fell behind during the run: its GPU's cooling failed after the run started.
        gpu_thermal(cluster, r, {**target, "at": -r.uniform(900.0, 3600.0)})
        cause = "gpu-thermal"
    elif kind == "hw-slowdown":
        gpu_power_excursion(cluster, r, {**target, "cap_mhz": params.get("cap_mhz") or 990})
        cause = "gpu-hw-slowdown"
    elif kind == "io":
        at = params.get("at")
        run.hang_rank = rank.rank
        run.hang_in = "io"
        run.hang_s = float(str(at)) if at not in (None, "") else -r.uniform(420.0, 540.0)
        # It hung before: the previous attempt died of the same stuck read just before this one started.
        past = run.started_s - 8.0 - TEARDOWN_S - NCCL_TIMEOUT_MS / 1000.0
        run.past_hangs.append((past, rank.rank))
        job = cluster.slurm.job(run.job_id)
        if job is not None and job.start_s is not None:
            # The allocation began with the first attempt.
            job.start_s = min(job.start_s, past - PAST_ATTEMPT_S - run.alloc_s)
            job.submit_s = min(job.submit_s, job.start_s - 60.0)
        cause = "io"
    else:
        raise ValueError("straggler: kind must be thermal, hw-slowdown or io")
    if kind != "io":
        node = cluster.node(rank.node)
        assert node is not None
        violations = node.gpus[rank.gpu].violation_s.values()
        run.degraded_s = -max(violations) if violations else None
    return {"cause": cause, "rank": str(rank.rank), "node": rank.node, "gpu": str(rank.gpu), "pid": str(rank.pid)}


def numa_misbinding(cluster: Cluster, r: random.Random, params: dict[str, object]) -> dict[str, str]:
    """One rank (and its loader workers) bound away from its GPU and NIC's socket.

    ``bind`` says which binding is wrong: ``cpu`` (the launcher binds the
    rank's CPUs to the other node while its memory stays bound to the GPU's:
    ``taskset`` shows the other socket's CPUs) or ``memory`` (the CPUs are right,
    but the memory policy binds to the other node: only ``/proc/PID/numa_maps``
    shows it). Each is one wrong half of ``numactl --cpunodebind=N --membind=N``.
    """
    run = training_run(cluster)
    rank = _rank(run, r, params)
    node = cluster.node(rank.node)
    assert node is not None
    right = node.gpus[rank.gpu].numa_node
    other = 1 - right if node.numa_nodes > 1 else right
    bind = str(params["bind"])
    if bind == "cpu":
        run.rank_numa[rank.rank] = other
        run.rank_membind[rank.rank] = right
        cause = "cpu-misbinding"
    elif bind == "memory":
        run.rank_membind[rank.rank] = other
        cause = "memory-misbinding"
    else:
        raise ValueError("numa-misbinding: bind must be cpu or memory")
    cpus = node.cpu.cpus_of_numa(run.rank_numa.get(rank.rank, right))
    return {"cause": cause, "rank": str(rank.rank), "node": rank.node, "gpu": str(rank.gpu),
            "numa": str(other), "cpus": cpus, "pid": str(rank.pid)}


# -- NCCL's network ---------------------------------------------------------------------------


def nccl_socket_fallback(cluster: Cluster, r: random.Random, params: dict[str, object]) -> dict[str, str]:
    """NCCL finds no IB device (HCA list names netdevs, or IB disabled) and falls back to TCP sockets."""
    run = training_run(cluster)
    _edit_script(run)
    variant = str(params.get("variant") or r.choice(("netdev-names", "ib-disabled")))
    node = cluster.node(run.nodes[0])
    assert node is not None
    if variant == "netdev-names":
        run.env["NCCL_IB_HCA"] = ",".join(n.netdev for n in node.nics if n.role == "compute")
    elif variant == "ib-disabled":
        run.env["NCCL_IB_DISABLE"] = "1"
    else:
        raise ValueError("nccl-socket-fallback: variant must be netdev-names or ib-disabled")
    return {"cause": "nccl-socket-fallback", "variant": variant}


def wrong_hca_list(cluster: Cluster, r: random.Random, params: dict[str, object]) -> dict[str, str]:
    """NCCL_IB_HCA pulls in the storage ports, or leaves rails out."""
    run = training_run(cluster)
    _edit_script(run)
    variant = str(params.get("variant") or r.choice(("storage-ports", "missing-rails")))
    if variant == "storage-ports":
        run.env["NCCL_IB_HCA"] = "mlx5"
    elif variant == "missing-rails":
        run.env["NCCL_IB_HCA"] = "mlx5_0,mlx5_1,mlx5_2,mlx5_3"
    else:
        raise ValueError("wrong-hca-list: variant must be storage-ports or missing-rails")
    return {"cause": "wrong-hca-list", "variant": variant, "value": run.env["NCCL_IB_HCA"]}


def _edit_script(run: TrainingRun) -> None:
    """The job was resubmitted with an edited batch script: the previous job ran the script as it was."""
    run.previous_config = {"env": dict(run.env)}
    run.previous_job_id = run.job_id - PREVIOUS_JOB_GAP


# -- placement, scale, configuration ----------------------------------------------------------


def tp_across_nodes(cluster: Cluster, r: random.Random, params: dict[str, object]) -> dict[str, str]:
    """A tensor-parallel group of one node's size placed across nodes by a real configuration; ``how`` says which.

    ``rank-order``: the config orders the data-parallel dimension first (``order: dp-tp``); torchrun numbers
    ranks node-major, so the group strides by the data-parallel size over every node. ``cyclic``: the job
    script launches one srun task per GPU with ``--distribution=cyclic``, so consecutive ranks (one
    tensor-parallel group under ``order: tp-dp``) land on different nodes. TP must divide the model's
    key/value heads (Megatron-Core asserts ``num_query_groups % tensor_model_parallel_size == 0``).
    """
    run = training_run(cluster)
    # The previous job ran the same model with data parallelism alone.
    run.previous_config = {"tp": run.tp, "grad_accum": run.grad_accum, "parallel_order": run.parallel_order}
    run.previous_job_id = run.job_id - PREVIOUS_JOB_GAP
    run.tp = int(str(params["tp"]))
    if run.tp < 1 or run.kv_heads % run.tp:
        raise ValueError(f"tp-across-nodes: tp {run.tp} does not divide the model's {run.kv_heads} key/value heads")
    how = str(params.get("how") or r.choice(("rank-order", "cyclic")))
    run.grad_accum = max(1, run.grad_accum * run.tp)
    run.baseline_step_s = _step_s(cluster)
    nodes = run.nodes
    if how == "rank-order":
        run.parallel_order = "dp-tp"
        cause = "tp-rank-order"
    elif how == "cyclic":
        run.distribution = "cyclic"
        for rank in run.ranks:
            rank.rank = rank.local_rank * len(nodes) + nodes.index(rank.node)
        run.ranks.sort(key=lambda rank: rank.rank)
        job = cluster.slurm.job(run.job_id)
        if job is not None:
            job.ntasks_per_node, job.cpus_per_task, job.distribution = 8, 28, "Cyclic"
        cause = "tp-cyclic-distribution"
    else:
        raise ValueError("tp-across-nodes: how must be rank-order or cyclic")
    return {"cause": cause, "tp": str(run.tp), "how": how}


def larger_allocation(cluster: Cluster, r: random.Random, params: dict[str, object]) -> dict[str, str]:
    """The job resubmitted on twice the nodes at the same global batch; ``why`` says what eats the gain.

    ``spine``: the added nodes sit under other leaf switches, so the gradient
    all-reduce crosses the tapered spine and its exposed part grows as the
    compute per rank halves. ``loader``: the nodes share one leaf, but each
    rank's data loader (``num_workers`` in the config) takes as long per step
    as before, which the halved compute no longer hides.
    """
    run = training_run(cluster)
    why = str(params["why"])
    if why not in ("spine", "loader"):
        raise ValueError("larger-allocation: why must be spine or loader")
    if why == "loader":
        run.loader_workers = int(str(params["workers"]))
        run.batch_cpu_s = float(str(params["batch_cpu_s"]))
    nodes = run.nodes
    half = max(1, len(nodes) // 2)
    small = [rk for rk in run.ranks if rk.node in nodes[:half]]
    run.micro_batch = int(str(params["micro_batch"]))
    run.grad_accum = 1
    before = replace(run, ranks=small, micro_batch=run.micro_batch * 2)
    saved, cluster.training = cluster.training, before
    try:
        baseline = _step_s(cluster)
    finally:
        cluster.training = saved
    run.baseline_step_s = baseline
    run.previous_config = {"ranks": small, "micro_batch": run.micro_batch * 2}
    run.previous_job_id = run.job_id - PREVIOUS_JOB_GAP
    truth = {"nodes": str(len(nodes)), "baseline_nodes": str(half), "why": why, "workers": str(run.loader_workers)}
    if why == "loader":
        return {"cause": "input-bound", **truth}
    cluster.oversubscription = float(str(params["oversubscription"]))
    for name in nodes[half:]:
        node = cluster.node(name)
        assert node is not None
        for nic in node.nics:
            if nic.role == "compute":
                nic.peer_switch = f"leaf-r{nic.rail}-02"
                cluster.switches.setdefault(nic.peer_switch, ("leaf", nic.rail if nic.rail is not None else -1))
    return {"cause": "communication-bound", **truth}


#: How many job ids before the current one the previous run of the job was submitted.
PREVIOUS_JOB_GAP = 29

#: Settings config-regression may change, with the value it sets.
REGRESSIONS = {"activation_checkpointing": ("activation_recompute", True), "micro_batch_size": ("micro_batch", 1)}


def config_regression(cluster: Cluster, r: random.Random, params: dict[str, object]) -> dict[str, str]:
    """A config change between two runs explains a tokens/s regression."""
    run = training_run(cluster)
    setting = str(params.get("setting") or r.choice(sorted(REGRESSIONS)))
    if setting not in REGRESSIONS:
        raise ValueError(f"config-regression: setting must be one of {', '.join(sorted(REGRESSIONS))}")
    run.baseline_step_s = _step_s(cluster)
    field, value = REGRESSIONS[setting]
    run.previous_config = {field: getattr(run, field)}
    run.previous_job_id = run.job_id - PREVIOUS_JOB_GAP
    if field == "micro_batch":
        run.previous_config["grad_accum"] = run.grad_accum
        run.grad_accum = run.grad_accum * run.micro_batch // int(str(value))
    setattr(run, field, value)
    return {"cause": "config-regression", "setting": setting}


FAULTS: list[Fault] = [
    Fault("slow-input", "Too few loader workers for the per-batch CPU work: data wait dominates the step",
          slow_input, {"workers": 1, "batch_cpu_s": 2.2}),
    Fault("checkpoint-stall", "Synchronous checkpoint saves stall every rank; with a why, the latest save is incomplete",
          checkpoint_stall, {"every": 100, "write_load": 0.88, "why": ""}),
    Fault("straggler", "One rank is late to every all-reduce: a slowed GPU, or a read that never returns",
          straggler, {"rank": None, "kind": "", "cap_mhz": None, "at": None}),
    Fault("numa-misbinding", "One rank and its loader workers bound to the wrong socket: CPUs, or only memory",
          numa_misbinding, {"rank": None, "bind": "cpu"}),
    Fault("nccl-socket-fallback", "NCCL finds no usable IB device and falls back to NET/Socket",
          nccl_socket_fallback, {"variant": ""}),
    Fault("wrong-hca-list", "NCCL_IB_HCA includes the storage ports or omits rails",
          wrong_hca_list, {"variant": ""}),
    Fault("tp-across-nodes", "Tensor-parallel groups placed across nodes instead of inside the NVLink domain",
          tp_across_nodes, {"tp": 8, "how": ""}),
    Fault("larger-allocation", "Twice the nodes at the same global batch: exposed communication or the loader eats the gain",
          larger_allocation, {"micro_batch": 1, "oversubscription": 4.0, "why": "spine", "workers": 2, "batch_cpu_s": 1.4}),
    Fault("config-regression", "A config change (activation checkpointing, micro-batch) costs tokens/s",
          config_regression, {"setting": ""}),
]
