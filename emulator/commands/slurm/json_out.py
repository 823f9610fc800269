"""``squeue``, ``sacct`` and ``sinfo --json``: Slurm 23.11's data_parser v0.0.40 layout.

Exporters and scripts read these instead of parsing columns. Numbers that may
be unset or infinite are ``{"set", "infinite", "number"}`` objects, times are
Unix epoch seconds, states are lists of flags, as slurmrestd and the clients
print them. Values come from the same job records ``squeue`` and ``scontrol``
render.
"""

from __future__ import annotations

import json
from typing import Any

from emulator.cluster.hardware import Partition
from emulator.cluster.model import Cluster, Node
from emulator.cluster.scheduler import Job, compress_hostlist, job_steps
from emulator.commands.slurm import common as sc

DATA_PARSER = "data_parser/v0.0.40"
#: Signal numbers of exit codes ``0:N`` → names, as the exit_code object spells them.
SIGNALS = {9: "KILL", 15: "TERM", 6: "ABRT", 11: "SEGV"}


def number(value: float | None, infinite: bool = False) -> dict[str, Any]:
    """A v0.0.40 optional number."""
    return {"infinite": infinite, "number": 0 if value is None else value, "set": value is not None}


def _epoch(cluster: Cluster, offset: float | None) -> dict[str, Any]:
    return number(None if offset is None else int(cluster.clock.at(offset).timestamp()))


def exit_code(text: str, state: str) -> dict[str, Any]:
    """``1:0`` → the exit_code object (status, return code, signal)."""
    code, _, sig = text.partition(":")
    rc, signal = int(code or 0), int(sig or 0)
    status = "SIGNALED" if signal else ("PENDING" if state == "PENDING" else "SUCCESS" if rc == 0 else "ERROR")
    return {"return_code": number(None if state == "PENDING" else rc),
            "signal": {"id": number(signal or None), "name": SIGNALS.get(signal, "")},
            "status": [status]}


def _resources(cluster: Cluster, job: Job) -> dict[str, Any]:
    """What the job holds on each node: every core (exclusive jobs) and all of RealMemory."""
    node = cluster.compute_nodes[0] if cluster.compute_nodes else None
    sockets, cores = (node.cpu.sockets, node.cpu.cores_per_socket) if node else (0, 0)
    layout = {str(s): {"cores": {str(c): "allocated" for c in range(cores)}} for s in range(sockets)}
    return {
        "allocated_cores": sockets * cores * len(job.nodes), "allocated_cpus": 0,
        "allocated_hosts": len(job.nodes),
        "allocated_nodes": [{"cpus_used": 0, "memory_allocated": sc.mem_mb(cluster), "memory_used": 0,
                             "nodename": name, "sockets": layout} for name in job.nodes],
        "nodes": compress_hostlist(job.nodes),
    }


def job(cluster: Cluster, j: Job) -> dict[str, Any]:
    """One job as ``squeue --json`` lists it."""
    limit = sc.limit_seconds(j.time_limit)
    end = j.end_s if j.end_s is not None else (
        j.start_s + limit if j.start_s is not None and limit is not None else None)
    uid = sc.UIDS.get(j.user, 1000)
    cpus = sc.job_cpus(cluster, j)
    mem = sc.mem_mb(cluster)
    gpus = j.gpus_per_node * j.num_nodes
    tres = f"cpu={cpus},mem={mem * j.num_nodes}M,node={j.num_nodes},billing={cpus}" + (f",gres/gpu={gpus}" if gpus else "")
    active = j.state in ("RUNNING", "SUSPENDED", "COMPLETING")
    ended = j.end_s is not None
    return {
        "account": j.account, "accrue_time": _epoch(cluster, j.submit_s), "admin_comment": "",
        "allocating_node": cluster.login, "array_job_id": number(0), "array_max_tasks": number(0),
        "array_task_id": number(None), "array_task_string": "", "association_id": 2 + uid % 97,
        "batch_features": "", "batch_flag": j.batch, "batch_host": j.nodes[0] if j.nodes else "",
        "billable_tres": number(float(cpus)), "burst_buffer": "", "burst_buffer_state": "",
        "cluster": cluster.slurm.cluster_name, "cluster_features": "", "command": j.command or j.name,
        "comment": "", "container": "", "container_id": "", "contiguous": False, "core_spec": 0,
        "cores_per_socket": number(None), "cpu_frequency_governor": number(None),
        "cpu_frequency_maximum": number(None), "cpu_frequency_minimum": number(None), "cpus": number(cpus),
        "cpus_per_task": number(j.cpus_per_task), "cpus_per_tres": "", "cron": "",
        "current_working_directory": j.workdir or f"/home/{j.user}", "deadline": number(0),
        "delay_boot": number(0), "dependency": j.dependency,
        "derived_exit_code": exit_code("0:0", j.state), "eligible_time": _epoch(cluster, j.eligible_s or j.submit_s),
        "end_time": _epoch(cluster, end if j.start_s is not None else None), "excluded_nodes": "",
        "exclusive": ["true"] if j.gpus_per_node == 8 else [], "exit_code": exit_code(j.exit_code, j.state),
        "extra": "", "failed_node": j.failed_node, "features": "", "federation_origin": "",
        "federation_siblings_active": "", "federation_siblings_viable": "",
        "flags": ["JOB_WAS_RUNNING"] if j.start_s is not None else [],
        "gres_detail": [f"gpu:h100:{j.gpus_per_node}(IDX:0-{j.gpus_per_node - 1})"] * len(j.nodes)
        if active and j.gpus_per_node else [],
        "group_id": uid, "group_name": j.user, "het_job_id": number(0), "het_job_id_set": "",
        "het_job_offset": number(0), "job_id": j.job_id,
        "job_resources": _resources(cluster, j) if j.nodes and (active or ended) else {},
        "job_size_str": [], "job_state": [j.state],
        "last_sched_evaluation": _epoch(cluster, j.start_s if j.start_s is not None else j.submit_s),
        "licenses": "", "mail_type": [], "mail_user": j.user, "max_cpus": number(0), "max_nodes": number(0),
        "maximum_switch_wait_time": 0, "mcs_label": "", "memory_per_cpu": number(None),
        "memory_per_node": number(mem), "memory_per_tres": "", "minimum_cpus_per_node": number(1),
        "minimum_switches": 0, "minimum_tmp_disk_per_node": number(0), "name": j.name, "network": "", "nice": 0,
        "node_count": number(j.num_nodes), "nodes": compress_hostlist(j.nodes) if j.nodes else "",
        "oversubscribe": False, "partition": j.partition, "power": {"flags": []}, "pre_sus_time": number(0),
        "preempt_time": number(0), "preemptable_time": number(0), "prefer": "",
        "priority": number(sc.priority(j) if j.state in ("PENDING", "RUNNING") else 0), "profile": ["NOT_SET"],
        "qos": j.qos, "reboot": False, "requeue": j.requeue, "required_nodes": "",
        "resize_time": number(0), "restart_cnt": j.restarts, "resv_name": "", "scheduled_nodes": "",
        "selinux_context": "", "shared": [], "show_flags": ["DETAIL", "LOCAL"], "sockets_per_board": 0,
        "sockets_per_node": number(None), "standard_error": j.stdout or f"/home/{j.user}/slurm-{j.job_id}.out",
        "standard_input": "/dev/null", "standard_output": j.stdout or f"/home/{j.user}/slurm-{j.job_id}.out",
        "start_time": _epoch(cluster, j.start_s), "state_description": "", "state_reason": j.reason,
        "submit_time": _epoch(cluster, j.submit_s), "suspend_time": number(0), "system_comment": "",
        "tasks": number(j.num_nodes * j.ntasks_per_node), "tasks_per_board": number(0),
        "tasks_per_core": number(None, infinite=True), "tasks_per_node": number(j.ntasks_per_node),
        "tasks_per_socket": number(None, infinite=True), "tasks_per_tres": number(0), "thread_spec": 32766,
        "threads_per_core": number(None), "time_limit": number(None if limit is None else limit // 60,
                                                               infinite=limit is None),
        "time_minimum": number(0), "tres_alloc_str": tres if j.nodes else "", "tres_bind": "", "tres_freq": "",
        "tres_per_job": "", "tres_per_node": f"gres/gpu:{j.gpus_per_node}" if j.gpus_per_node else "",
        "tres_per_socket": "", "tres_per_task": "", "tres_req_str": tres, "user_id": uid, "user_name": j.user,
        "wckey": "",
    }


def meta(cluster: Cluster, argv: list[str], user: str) -> dict[str, Any]:
    major, minor, micro = (cluster.versions.slurm.split(".") + ["0", "0"])[:3]
    return {
        "client": {"group": user, "source": "/dev/pts/0", "user": user},
        "command": argv,
        "plugin": {"accounting_storage": "", "data_parser": DATA_PARSER, "name": "", "type": ""},
        "slurm": {"cluster": cluster.slurm.cluster_name, "release": cluster.versions.slurm,
                  "version": {"major": major, "micro": micro, "minor": minor}},
    }


def squeue(cluster: Cluster, jobs: list[Job], argv: list[str], user: str) -> str:
    """The whole ``squeue --json`` document for ``jobs``."""
    now = int(cluster.clock.now().timestamp())
    document = {
        "errors": [], "jobs": [job(cluster, j) for j in jobs],
        "last_backfill": number(now - 17), "last_update": number(now - 3),
        "meta": meta(cluster, argv, user), "warnings": [],
    }
    return json.dumps(document, indent=2, sort_keys=True)


def _tres(cluster: Cluster, nodes: int, gpus_per_node: int) -> list[dict[str, Any]]:
    """A TRES list (cpu, mem, node, billing, gres/gpu) for ``nodes`` whole nodes."""
    cpus = sc.cpus_per_node(cluster) * nodes
    items = [("cpu", "", 1, cpus), ("mem", "", 2, sc.mem_mb(cluster) * nodes), ("node", "", 4, nodes),
             ("billing", "", 5, cpus)]
    if gpus_per_node:
        items.append(("gres", "gpu", 1001, gpus_per_node * nodes))
    return [{"count": count, "id": tid, "name": name, "type": kind} for kind, name, tid, count in items]


def _cpu_time() -> dict[str, int]:
    return {"microseconds": 0, "seconds": 0}


def _step(cluster: Cluster, j: Job, name: str, state: str, code: str) -> dict[str, Any]:
    ran = j.step_runs.get(name)   # a step srun ran in the allocation: its own nodes, tasks, start and end
    nodes = j.nodes[:1] if name == "batch" else list(ran.nodes) if ran is not None else j.nodes
    start, end = j.start_s, j.end_s
    elapsed = int(sc.run_time(cluster, j))
    if ran is not None:
        start, end, elapsed = ran.start_s, ran.end_s, int(ran.end_s - ran.start_s)
    step_id = f"{j.job_id}.{name}"
    program = {"batch": "batch", "extern": "extern"}.get(name) or j.step_names.get(name) or \
        ("torchrun" if j.is_training else j.name)
    return {
        "CPU": {"governor": "", "requested_frequency": {"max": number(None), "min": number(None)}},
        "exit_code": exit_code(code, state), "kill_request_user": "",
        "nodes": {"count": len(nodes), "list": list(nodes), "range": compress_hostlist(nodes)},
        "pid": "", "state": [state],
        "statistics": {"CPU": {"actual_frequency": 0}, "energy": {"consumed": number(0)}},
        "step": {"id": step_id, "name": program},
        "task": {"distribution": j.distribution if name not in ("batch", "extern") else "Unknown"},
        "tasks": {"count": ran.ntasks if ran is not None else
                  len(nodes) * (j.ntasks_per_node if name not in ("batch", "extern") else 1)},
        "time": {"elapsed": elapsed, "end": _epoch(cluster, end), "start": _epoch(cluster, start),
                 "suspended": 0, "system": _cpu_time(), "total": _cpu_time(), "user": _cpu_time()},
        "tres": {"allocated": _tres(cluster, len(nodes), j.gpus_per_node),
                 "consumed": {"average": [], "max": [], "min": [], "total": []},
                 "requested": {"average": [], "max": [], "min": [], "total": []}},
    }


def accounting_job(cluster: Cluster, j: Job) -> dict[str, Any]:
    """One job as ``sacct --json`` lists it: the allocation with its steps."""
    limit = sc.limit_seconds(j.time_limit)
    uid = sc.UIDS.get(j.user, 1000)
    state = j.state
    return {
        "account": j.account, "allocation_nodes": len(j.nodes),
        "array": {"job_id": 0, "limits": {"max": {"running": {"tasks": 0}}}, "task": "", "task_id": number(None)},
        "association": {"account": j.account, "cluster": cluster.slurm.cluster_name, "id": 2 + uid % 97,
                        "partition": "", "user": j.user},
        "block": "", "cluster": cluster.slurm.cluster_name,
        "comment": {"administrator": "", "job": "", "system": ""}, "constraints": "", "container": "",
        "derived_exit_code": exit_code("0:0", state), "exit_code": exit_code(j.exit_code, state), "extra": "",
        "failed_node": j.failed_node, "flags": ["STARTED_ON_SUBMIT"] if j.start_s == j.submit_s else [],
        "group": j.user, "het": {"job_id": 0, "job_offset": number(None)}, "hold": False, "job_id": j.job_id,
        "kill_request_user": next((name for name, u in sc.UIDS.items() if u == j.cancelled_by), ""),
        "licenses": "", "mcs": {"label": ""}, "name": j.name,
        "nodes": compress_hostlist(j.nodes) if j.nodes else "None assigned", "partition": j.partition,
        "priority": number(sc.priority(j) if state in ("PENDING", "RUNNING") else 0), "qos": j.qos,
        "required": {"CPUs": sc.job_cpus(cluster, j), "memory_per_cpu": number(None),
                     "memory_per_node": number(sc.mem_mb(cluster))},
        "reservation": {"id": 0, "name": ""}, "restart_cnt": j.restarts, "script": "",
        "state": {"current": [state], "reason": j.reason},
        "steps": [_step(cluster, j, name, st, code) for name, st, code in job_steps(j)],
        "stderr": j.stdout, "stdin": "/dev/null", "stdout": j.stdout,
        "submit_line": f"sbatch {j.command}" if j.command.startswith("/") else j.command,
        "time": {"elapsed": int(sc.run_time(cluster, j)), "eligible": int(cluster.clock.at(j.eligible_s or j.submit_s).timestamp()),
                 "end": int(cluster.clock.at(j.end_s).timestamp()) if j.end_s is not None else 0,
                 "limit": number(None if limit is None else limit // 60, infinite=limit is None),
                 "planned": number(int((j.start_s if j.start_s is not None else cluster.clock.elapsed) - j.submit_s)),
                 "start": int(cluster.clock.at(j.start_s).timestamp()) if j.start_s is not None else 0,
                 "submission": int(cluster.clock.at(j.submit_s).timestamp()), "suspended": 0,
                 "system": _cpu_time(), "total": _cpu_time(), "user": _cpu_time()},
        "tres": {"allocated": _tres(cluster, len(j.nodes), j.gpus_per_node) if j.nodes else [],
                 "requested": _tres(cluster, j.num_nodes, j.gpus_per_node)},
        "used_gres": "", "user": j.user, "wckey": {"flags": [], "wckey": ""},
        "working_directory": j.workdir or f"/home/{j.user}",
    }


def sacct(cluster: Cluster, jobs: list[Job], argv: list[str], user: str) -> str:
    """The whole ``sacct --json`` document for ``jobs``."""
    document = {"errors": [], "jobs": [accounting_job(cluster, j) for j in jobs],
                "meta": meta(cluster, argv, user), "warnings": []}
    return json.dumps(document, indent=2, sort_keys=True)


def _partition(cluster: Cluster, part: Partition) -> dict[str, Any]:
    """A partition as v0.0.40 ``partition_info`` (the same values ``scontrol show partition`` prints)."""
    cpus = sc.cpus_per_node(cluster) * len(part.nodes)
    mem = sc.mem_mb(cluster) * len(part.nodes)
    limit = sc.limit_seconds(part.time_limit)
    return {
        "accounts": {"allowed": "", "deny": ""}, "alternate": "", "cluster": cluster.slurm.cluster_name,
        "cpus": {"task_binding": 0, "total": cpus},
        "defaults": {"job": "", "memory_per_cpu": 0, "partition_memory_per_cpu": number(None),
                     "partition_memory_per_node": number(None), "time": number(None)},
        "grace_time": 0, "groups": {"allowed": ""},
        "maximums": {"cpus_per_node": number(None, infinite=True), "cpus_per_socket": number(None, infinite=True),
                     "memory_per_cpu": 0, "nodes": number(None, infinite=True),
                     "over_time_limit": number(None), "oversubscribe": {"flags": [], "jobs": 1},
                     "partition_memory_per_cpu": number(None), "partition_memory_per_node": number(0),
                     "shares": 1, "time": number(None if limit is None else limit // 60, infinite=limit is None)},
        "minimums": {"nodes": 0}, "name": part.name, "node_sets": "",
        "nodes": {"allowed_allocation": "", "configured": compress_hostlist(part.nodes), "total": len(part.nodes)},
        "partition": {"state": [part.state.upper()]},
        "priority": {"job_factor": 1, "tier": 1},
        "qos": {"allowed": "", "assigned": "", "deny": ""}, "suspend_time": number(None),
        "timeouts": {"resume": number(None), "suspend": number(None)},
        "tres": {"billing_weights": "",
                 "configured": f"cpu={cpus},mem={mem}M,node={len(part.nodes)},billing={cpus},"
                               f"gres/gpu={8 * len(part.nodes)}"},
    }


def _span(values: list[int]) -> dict[str, int]:
    return {"maximum": max(values), "minimum": min(values)}


def sinfo_record(cluster: Cluster, part: Partition, nodes: list[Node], states: list[sc.NodeState]) -> dict[str, Any]:
    """One sinfo record: nodes of one partition that share a state, as ``sinfo --json`` lists them."""
    slurm = cluster.slurm
    per = sc.cpus_per_node(cluster)
    busy = [sc.busy(st) for st in states]
    other = [not st.responding or st.short in ("down", "drain") for st in states]
    alloc = sum(b and not o for b, o in zip(busy, other, strict=True))
    out = sum(other)
    loads = [int(round((sc.cpu_load(n, st) or 0.0) * 100)) for n, st in zip(nodes, states, strict=True)]
    free = [sc.free_mem_mb(cluster, n, st) for n, st in zip(nodes, states, strict=True)]
    known = [f for f in free if f is not None]
    first = nodes[0]
    reason = slurm.node_reason.get(first.name, "")
    who, when = slurm.reason_set.get(first.name, ("", None))
    return {
        "cluster": slurm.cluster_name, "comment": "",
        "cores": _span([n.cpu.cores_per_socket for n in nodes]),
        "cpus": {"allocated": alloc * per, "idle": (len(nodes) - alloc - out) * per,
                 "load": _span(loads), "maximum": per, "minimum": per, "other": out * per,
                 "per_node": {"max": number(None, infinite=True)}, "total": len(nodes) * per},
        "disk": {"maximum": 0, "minimum": 0}, "extra": "",
        "features": {"active": "", "total": ""},
        "gres": {"total": "gpu:h100:8(S:0-1)",
                 "used": "gpu:h100:8(IDX:0-7)" if any(busy) else "gpu:h100:0(IDX:N/A)"},
        "memory": {"allocated": sum(n.memory_kib // 1024 for n, b in zip(nodes, busy, strict=True) if b),
                   "free": {"maximum": number(max(known) if known else None),
                            "minimum": number(min(known) if known else None)},
                   "maximum": max(n.memory_kib // 1024 for n in nodes),
                   "minimum": min(n.memory_kib // 1024 for n in nodes)},
        "node": {"state": states[0].scontrol.split("+")},
        "nodes": {"addresses": [n.name for n in nodes], "allocated": alloc, "hostnames": [n.name for n in nodes],
                  "idle": len(nodes) - alloc - out, "nodes": [n.name for n in nodes], "other": out,
                  "total": len(nodes)},
        "partition": _partition(cluster, part), "port": 6818,
        "reason": {"description": reason,
                   "time": int(cluster.clock.at(when).timestamp()) if reason and when is not None else 0,
                   "user": who if reason else ""},
        "reservation": "",
        "sockets": _span([n.cpu.sockets for n in nodes]),
        "threads": _span([n.cpu.threads_per_core for n in nodes]),
        "weight": {"maximum": 1, "minimum": 1},
    }


def sinfo(cluster: Cluster, records: list[dict[str, Any]], argv: list[str], user: str) -> str:
    """The whole ``sinfo --json`` document."""
    document = {"errors": [], "meta": meta(cluster, argv, user), "sinfo": records, "warnings": []}
    return json.dumps(document, indent=2, sort_keys=True)
