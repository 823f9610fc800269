"""Decoys: benign-looking-bad conditions on healthy parts that a lazy sweep trips on.

A lab lists its decoys by name (``decoys = ["stale-counters"]``); after its
faults are applied, each decoy (given the lab's id) picks a healthy place from the seed and the
fault's truth, marks it, and names the *lure*: the finding a learner who
stopped at the first odd reading would submit (its cause in a learner's
words, read through the lab's cause phrases). The replay tests submit
each lure (it must be judged wrong) and replay the reference procedure at
the lure's place (its evidence must not show there).

``stale-counters``
    A compute port on one of the job's nodes, not the fault's, carries
    (or, when the fault sits off the job, another port of the fault's node) carries
    non-zero SymbolErrorCounter, LinkErrorRecoveryCounter and PortRcvErrors
    from an old event (a reseated cable), flat since: two readings apart
    show no growth. The event's size is drawn per lab and seed, so no value
    is the decoy's by heart.
``warm-gpu``
    A GPU of the job on another node than the fault's runs fifteen-odd degrees
    warmer than its neighbours (a weaker fan zone), still far below its
    slowdown temperature: full clocks, no clock-event reason, not late.
``storage-port``
    Changes nothing: each node's two storage NICs (mlx5_8, mlx5_9) run
    200 Gb/s Ethernet by design, which a sweep for "200 Gb/sec" trips on;
    their link layer says what they are.
``maintenance-drain``
    A node outside the job, not the fault's, drained by root hours ago for
    scheduled maintenance, with the change ticket as its reason: ``sinfo -R``
    lists it, a careful reading of the reason and of the node's own health
    rules it out. The lure names it with the fault's cause.
``tenant-job``
    Another tenant's batch-inference job has run on a spare node since yesterday:
    ``squeue`` lists it, and a sweep that blames "the other tenants" trips on
    it; its start is a day before anything slowed down and its GPUs read
    nothing from the parallel filesystem at checkpoint pace.
``fewer-workers``
    The edited configuration also lowered the data-loader workers per rank
    (the previous run had four more): a diff of the two config lines shows it,
    but the loader keeps up with fewer: the data wait stays at milliseconds
    of a four-second step, and the previous run's is the same with either count.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from emulator.cluster.ids import rng
from emulator.cluster.model import Cluster
from emulator.cluster.scheduler import Job


def _job_nodes(cluster: Cluster) -> list[str]:
    run = cluster.training
    return run.nodes if run is not None and run.nodes else [n.name for n in cluster.compute_nodes]


def _spare_node(cluster: Cluster, truth: dict[str, str], r: random.Random) -> str:
    """An idle compute node, drawn with ``r``, outside the job and not the fault's: a place for a decoy of its own."""
    busy = set(_job_nodes(cluster)) | {truth.get("node")}
    spare = [n.name for n in cluster.compute_nodes
             if n.name not in busy and cluster.slurm.node_state.get(n.name, "idle") == "idle"]
    return spare[r.randrange(len(spare))]


def stale_counters(cluster: Cluster, truth: dict[str, str], lab: str) -> dict[str, str]:
    r = rng(cluster.seed, "decoy", "stale-counters")
    nodes = _job_nodes(cluster)
    if truth.get("node") and truth["node"] not in nodes:   # a fault off the job: its node's other ports
        nodes = [truth["node"]]
    places = [(name, nic) for name in nodes for node in [cluster.node(name)] if node is not None
              for nic in node.nics if nic.role == "compute"
              and (name, nic.name) != (truth.get("node"), truth.get("port")) and not nic.counter_rates]
    name, nic = places[r.randrange(len(places))]
    # The old event's size differs from lab to lab as well as seed to seed: the values teach nothing by heart.
    size = rng(cluster.seed, "decoy", "stale-counters", lab, "size")
    symbols = size.randint(40, 2400)
    nic.counters["SymbolErrorCounter"] += symbols
    nic.counters["LinkErrorRecoveryCounter"] += size.randint(1, 4)
    # Only the symbol errors that struck a packet in flight failed one: a share of them.
    nic.counters["PortRcvErrors"] += max(1, int(symbols * size.uniform(0.02, 0.12)))
    return {"node": name, "port": nic.name, "cause": "symbol-errors"}


def storage_port(cluster: Cluster, truth: dict[str, str], lab: str) -> dict[str, str]:
    r = rng(cluster.seed, "decoy", "storage-port")
    nodes = _job_nodes(cluster)
    name = truth.get("node") or nodes[r.randrange(len(nodes))]
    node = cluster.node(name)
    storage = [nic.name for nic in node.nics if nic.role == "storage"] if node is not None else []
    return {"node": name, "port": storage[r.randrange(len(storage))] if storage else "mlx5_8", "cause": "link-rate"}


def warm_gpu(cluster: Cluster, truth: dict[str, str], lab: str) -> dict[str, str]:
    r = rng(cluster.seed, "decoy", "warm-gpu")
    run = cluster.training
    ranks = [rk for rk in (run.ranks if run is not None else []) if rk.node != truth.get("node")]
    rank = ranks[r.randrange(len(ranks))]
    node = cluster.node(rank.node)
    assert node is not None
    node.gpus[rank.gpu].cooling_deficit_c = r.randint(16, 20)
    return {"node": rank.node, "gpu": str(rank.gpu), "rank": str(rank.rank), "pid": str(rank.pid),
            "cause": "too hot"}


#: Reasons an operator writes when draining a node for planned work, as ``sinfo -R`` shows them.
MAINTENANCE_REASONS = (
    "sched maint CHG-4471: bmc+bios fw update",
    "sched maint CHG-4502: pdu swap rack b2",
    "sched maint CHG-4388: nvme firmware",
)


def maintenance_drain(cluster: Cluster, truth: dict[str, str], lab: str) -> dict[str, str]:
    r = rng(cluster.seed, "decoy", "maintenance-drain")
    slurm = cluster.slurm
    name = _spare_node(cluster, truth, r)
    slurm.node_state[name] = "drain"
    slurm.node_reason[name] = MAINTENANCE_REASONS[r.randrange(len(MAINTENANCE_REASONS))]
    slurm.reason_set[name] = ("root", -float(r.randint(2, 9) * 3600 + r.randint(0, 3599)))
    return {"node": name, "cause": truth.get("cause", "")}


def tenant_job(cluster: Cluster, truth: dict[str, str], lab: str) -> dict[str, str]:
    r = rng(cluster.seed, "decoy", "tenant-job")
    slurm = cluster.slurm
    node = _spare_node(cluster, truth, r)
    start = -float(r.randint(20, 30) * 3600 + r.randint(0, 3599))
    user = ("carol", "dave", "erin")[r.randrange(3)]
    slurm.jobs.append(Job(job_id=slurm.next_job_id, name="batch-infer", user=user, partition="gpu", nodes=[node],
                          state="RUNNING", submit_s=start - r.uniform(30.0, 600.0), start_s=start,
                          time_limit="3-00:00:00", gpus_per_node=8, ntasks_per_node=1, cpus_per_task=32,
                          command=f"/home/{user}/infer/run.sbatch", workdir=f"/home/{user}/infer", account="research"))
    slurm.next_job_id += 1
    slurm.node_state[node] = "alloc"
    return {"cause": "other tenants"}


def fewer_workers(cluster: Cluster, truth: dict[str, str], lab: str) -> dict[str, str]:
    run = cluster.training
    assert run is not None and run.previous_config, "fewer-workers needs a previous configuration"
    run.previous_config["loader_workers"] = run.loader_workers + 4
    return {"setting": "num_workers"}


DECOYS: dict[str, Callable[[Cluster, dict[str, str], str], dict[str, str]]] = {
    "stale-counters": stale_counters,
    "storage-port": storage_port,
    "warm-gpu": warm_gpu,
    "maintenance-drain": maintenance_drain,
    "tenant-job": tenant_job,
    "fewer-workers": fewer_workers,
}


def apply_decoys(cluster: Cluster, names: list[str], lab: str) -> list[dict[str, str]]:
    """Place each decoy on ``cluster`` (after its faults) for lab ``lab``; the lures, in order."""
    truth = cluster.truth()
    return [DECOYS[name](cluster, truth, lab) for name in names]
