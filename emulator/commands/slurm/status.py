"""Slurm 23.11 views of the cluster: ``sinfo``, ``squeue`` and ``scontrol``.

Each renders the scheduler state of the model (:mod:`emulator.cluster.scheduler`)
through Slurm's own format strings, so ``-o`` works as it does on a real
cluster and the defaults are Slurm's defaults. A node whose OS stopped
answering shows the ``*`` suffix (``down*``) everywhere.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from emulator.cluster.hardware import Partition
from emulator.cluster.model import Cluster, Node
from emulator.cluster.scheduler import Job, compress_hostlist, dependency_state, expand_hostlist
from emulator.commands.kit.command import Context, Outcome
from emulator.commands.kit.units import slurm_duration, slurm_elapsed
from emulator.commands.slurm import admin as slurm_admin
from emulator.commands.slurm import common as sc
from emulator.commands.slurm import json_out as slurm_json

SINFO_FORMATS = {
    "default": "%#P %.5a %.10l %.6D %.6t %N",
    "long": "%#P %.5a %.10l %.10s %.4r %.8h %.10g %.6D %.11T %N",
    "node": "%#N %.6D %.#P %6t",
    "node_long": "%#N %.6D %.#P %.11T %.4c %.8z %.6m %.8d %.6w %.8f %20E",
    "summarize": "%#P %.5a %.10l %.16F  %N",
    "reasons": "%20E %9u %19H %N",
    "reasons_long": "%20E %12U %19H %6t %N",
}
SINFO_HEADERS = {
    "P": "PARTITION", "R": "PARTITION", "a": "AVAIL", "l": "TIMELIMIT", "D": "NODES", "t": "STATE", "T": "STATE",
    "N": "NODELIST", "n": "HOSTNAMES", "o": "NODE_ADDR", "F": "NODES(A/I/O/T)", "C": "CPUS(A/I/O/T)",
    "E": "REASON", "u": "USER", "U": "USER", "H": "TIMESTAMP", "c": "CPUS", "z": "S:C:T", "m": "MEMORY",
    "d": "TMP_DISK", "w": "WEIGHT", "f": "AVAIL_FEATURES", "b": "ACTIVE_FEATURES", "s": "JOB_SIZE", "r": "ROOT",
    "h": "OVERSUBSCRIBE", "g": "GROUPS", "G": "GRES", "O": "CPU_LOAD", "e": "FREE_MEM",
    "allocmem": "ALLOCMEM", "gresused": "GRES_USED",
}
#: Node state names ``-t`` accepts (a prefix of one is enough, as in Slurm).
NODE_STATE_NAMES = ("all", "idle", "allocated", "alloc", "mixed", "mix", "down", "drained", "draining", "drain",
                    "drng", "fail", "maint", "no_respond", "reserved", "resv", "completing", "comp", "future",
                    "unknown", "power_save", "reboot")
#: Letters whose value sums over the nodes of a line rather than splitting lines.
SINFO_AGGREGATE = set("DNnoFC")

SQUEUE_DEFAULT = "%.18i %.9P %.8j %.8u %.2t %.10M %.6D %R"
SQUEUE_LONG = "%.18i %.9P %.8j %.8u %.8T %.10M %.9l %.6D %R"
SQUEUE_HEADERS = {
    "i": "JOBID", "A": "JOBID", "j": "NAME", "u": "USER", "U": "UID", "t": "ST", "T": "STATE", "M": "TIME",
    "l": "TIME_LIMIT", "L": "TIME_LEFT", "D": "NODES", "N": "NODELIST", "R": "NODELIST(REASON)", "C": "CPUS",
    "P": "PARTITION", "b": "TRES_PER_NODE", "S": "START_TIME", "V": "SUBMIT_TIME", "e": "END_TIME",
    "a": "ACCOUNT", "q": "QOS", "Q": "PRIORITY", "Z": "WORK_DIR", "o": "COMMAND", "r": "REASON",
    "B": "EXEC_HOST", "p": "PRIORITY", "g": "GROUP",
}


#: ``sinfo -O`` field names → format letters.
SINFO_LONG_NAMES = {
    "partition": "P", "partitionname": "R", "available": "a", "time": "l", "nodes": "D", "statecompact": "t",
    "statelong": "T", "nodelist": "N", "nodehost": "n", "nodeaddr": "o", "nodeaiot": "F", "cpusstate": "C",
    "reason": "E", "user": "u", "userlong": "U", "timestamp": "H", "cpus": "c", "socketcorethread": "z",
    "memory": "m", "disk": "d", "weight": "w", "features": "f", "features_act": "b", "gres": "G",
    "cpusload": "O", "freemem": "e", "allocmem": "allocmem", "gresused": "gresused",
}
#: ``squeue -O`` field names → format letters.
SQUEUE_LONG_NAMES = {
    "jobid": "i", "jobarrayid": "i", "name": "j", "username": "u", "userid": "U", "statecompact": "t",
    "state": "T", "timeused": "M", "timelimit": "l", "timeleft": "L", "numnodes": "D", "nodelist": "N",
    "reasonlist": "R", "reason": "r", "numcpus": "C", "partition": "P", "tres-per-node": "b",
    "starttime": "S", "submittime": "V", "endtime": "e", "account": "a", "qos": "q", "priority": "Q",
    "workdir": "Z", "command": "o", "batchhost": "B",
}


def _long_items(ctx: Context, prog: str, spec: str, names: dict[str, str]) -> list[sc.Field | str]:
    items = sc.parse_long_format(spec, names)
    if isinstance(items, str):
        raise ctx.fail(f"{prog}: error: Invalid job format specification: {items}" if prog == "squeue"
                       else f"{prog}: error: Invalid node format specification: {items}")
    return items


def _ctime(ctx: Context) -> str:
    return ctx.clock.now().strftime("%a %b %d %H:%M:%S %Y")


def _split(values: list[str] | None) -> list[str]:
    return [v for item in values or [] for v in item.split(",") if v]


def _hostlist(ctx: Context, prog: str, expr: str) -> list[str]:
    try:
        return expand_hostlist(expr)
    except ValueError:
        raise ctx.fail(f"{prog}: error: Invalid hostlist: {expr}") from None


# -- sinfo ----------------------------------------------------------------------------------


class Sinfo(sc.SlurmCommand):
    name = "sinfo"
    reads_only = True
    summary = "view information about Slurm nodes and partitions"
    notes = "Default format: %#P %.5a %.10l %.6D %.6t %N. A '*' after a state means the node is not responding."
    json_help = "the records"
    add_help_flag = False

    def configure(self, parser: Any) -> None:
        parser.add_argument("-N", "--Node", action="store_true", help="print one line per node")
        parser.add_argument("-l", "--long", action="store_true", help="print more detail")
        parser.add_argument("-R", "--list-reasons", action="store_true", help="list why nodes are down or drained")
        parser.add_argument("-s", "--summarize", action="store_true", help="one line per partition, A/I/O/T counts")
        parser.add_argument("-p", "--partition", action="append", metavar="PARTITION", help="only these partitions")
        parser.add_argument("-n", "--nodes", action="append", metavar="NODES", help="only these nodes (hostlist)")
        parser.add_argument("-t", "--states", action="append", metavar="STATES", help="only nodes in these states")
        parser.add_argument("-o", "--format", metavar="FORMAT", help="output format (%%P %%t %%N ...)")
        parser.add_argument("-O", "--Format", metavar="FIELDS", help="output fields by name (NodeList,StateLong:10)")
        parser.add_argument("-h", "--noheader", action="store_true", help="do not print a header line")
        parser.add_argument("-r", "--responding", action="store_true", help="only responding nodes")
        parser.add_argument("-d", "--dead", action="store_true", help="only non-responding nodes")
        parser.add_argument("-a", "--all", action="store_true", help="show all partitions")
        parser.add_argument("-e", "--exact", action="store_true", help="do not group nodes with different configs")

    def execute(self, ctx: Context, args: argparse.Namespace) -> Outcome:
        cluster = ctx.cluster
        parts = _partitions(cluster, _split(args.partition))
        wanted_nodes = None
        if args.nodes:
            wanted_nodes = {n for expr in args.nodes for n in _hostlist(ctx, "sinfo", expr)}
        states = {s.lower() for s in _split(args.states)}
        for state in sorted(states):
            if not any(known.startswith(state) for known in NODE_STATE_NAMES):
                raise ctx.fail(f'sinfo: error: Bad state string: "{state}"')
        if "all" in states:
            states = set()
        if args.json:
            # Like the real client, --json ignores the format options and keeps the filters.
            records = [slurm_json.sinfo_record(cluster, part, [cluster.nodes[n] for n in names], node_states)
                       for part, names, node_states in _sinfo_groups(cluster, parts, wanted_nodes, states, args)]
            ctx.outln(slurm_json.sinfo(cluster, records, ["sinfo", "--json"], sc.user(ctx.env)))
            return 0
        fmt = args.format
        if fmt is None:
            key = "reasons" if args.list_reasons else "summarize" if args.summarize else "node" if args.Node \
                else "default"
            if args.long and key in ("reasons", "node", "default"):
                key = {"reasons": "reasons_long", "node": "node_long", "default": "long"}[key]
            fmt = SINFO_FORMATS[key]
        items = _long_items(ctx, "sinfo", args.Format, SINFO_LONG_NAMES) if args.Format else sc.parse_format(fmt)
        rows = _sinfo_rows(cluster, items, parts, wanted_nodes, states, args)
        if args.long:
            ctx.outln(_ctime(ctx))
        for line in sc.render_rows(items, SINFO_HEADERS, rows, not args.noheader, SINFO_HEADERS_MIN):
            ctx.outln(line)
        return 0


#: sinfo sizes the partition and node list columns to their widest value, at least 9.
SINFO_HEADERS_MIN = {"P": 9, "N": 9}


def _partitions(cluster: Cluster, names: list[str]) -> list[Partition]:
    if not names:
        return list(cluster.slurm.partitions)
    return [p for p in cluster.slurm.partitions if p.name in names]


def _reason(cluster: Cluster, node: Node, state: sc.NodeState) -> str:
    reason = cluster.slurm.node_reason.get(node.name, "")
    return reason or ("Not responding" if not state.responding else "none")


def _reason_by(cluster: Cluster, node: Node, long: bool) -> str:
    who = cluster.slurm.reason_set.get(node.name, ("", None))[0]
    if not who:
        return "Unknown"
    return f"{who}({sc.UIDS.get(who, 0)})" if long else who


def _reason_at(cluster: Cluster, node: Node) -> str:
    when = cluster.slurm.reason_set.get(node.name, ("", None))[1]
    return sc.stamp(cluster, when) if when is not None else "Unknown"


def _cpu_load(node: Node, state: sc.NodeState) -> str:
    load = sc.cpu_load(node, state)
    return "N/A" if load is None else f"{load:.2f}"


#: sinfo letters that describe one node: letter → value(cluster, node, state).
NODE_FIELDS: dict[str, Callable[[Cluster, Node, sc.NodeState], str]] = {
    "t": lambda c, n, st: st.short_name,
    "T": lambda c, n, st: st.long_name.lower(),
    "E": _reason,
    "u": lambda c, n, st: _reason_by(c, n, False),
    "U": lambda c, n, st: _reason_by(c, n, True),
    "H": lambda c, n, st: _reason_at(c, n),
    "c": lambda c, n, st: str(n.cpu.count),
    "z": lambda c, n, st: f"{n.cpu.sockets}:{n.cpu.cores_per_socket}:{n.cpu.threads_per_core}",
    "m": lambda c, n, st: str(n.memory_kib // 1024),
    "d": lambda c, n, st: "0",
    "w": lambda c, n, st: "1",
    "f": lambda c, n, st: "(null)",
    "b": lambda c, n, st: "(null)",
    "G": lambda c, n, st: "gpu:h100:8(S:0-1)",
    "O": lambda c, n, st: _cpu_load(n, st),
    "e": lambda c, n, st: str(sc.free_mem_mb(n, st) if st.responding else "N/A"),
    # -O only (no format letter): what the node's jobs hold.
    "allocmem": lambda c, n, st: str(n.memory_kib // 1024 if sc.busy(st) else 0),
    "gresused": lambda c, n, st: "gpu:h100:8(IDX:0-7)" if sc.busy(st) else "gpu:h100:0(IDX:N/A)",
}
#: sinfo letters that describe the partition.
PART_FIELDS: dict[str, Callable[[Partition], str]] = {
    "P": lambda p: p.name + ("*" if p.default else ""),
    "R": lambda p: p.name,
    "a": lambda p: p.state,
    "l": lambda p: "infinite" if p.time_limit == "UNLIMITED" else p.time_limit,
    "s": lambda p: "1-infinite",
    "r": lambda p: "no",
    "h": lambda p: "NO",
    "g": lambda p: "all",
}


def _counts(states: list[sc.NodeState], per: int) -> tuple[int, int, int, int]:
    a = i = o = 0
    for st in states:
        if not st.responding or st.short in ("down", "drain"):
            o += per
        elif st.short in ("alloc", "mix", "drng"):
            a += per
        else:
            i += per
    return a, i, o, len(states) * per


def _sinfo_groups(cluster: Cluster, parts: list[Partition], wanted: set[str] | None, states: set[str],
                  args: argparse.Namespace) -> list[tuple[Partition, list[str], list[sc.NodeState]]]:
    """sinfo's records for --json: per partition, the nodes sharing a state (one node each with -N)."""
    groups: dict[tuple[int, str, str], tuple[Partition, list[str], list[sc.NodeState]]] = {}
    for p_index, part in enumerate(parts):
        for name in part.nodes:
            state = sc.node_state(cluster, name)
            if wanted is not None and name not in wanted:
                continue
            if states and not sc.state_matches(state, states):
                continue
            if (args.responding and not state.responding) or (args.dead and state.responding):
                continue
            key = (p_index, state.scontrol, name if args.Node else "")
            group = groups.setdefault(key, (part, [], []))
            group[1].append(name)
            group[2].append(state)
    return list(groups.values())


def _sinfo_rows(cluster: Cluster, items: list[sc.Field | str], parts: list[Partition],
                wanted: set[str] | None, states: set[str], args: argparse.Namespace) -> list[dict[str, str]]:
    letters = {f.letter for f in items if isinstance(f, sc.Field)}
    by_part = bool(letters & set(PART_FIELDS))
    node_letters = sorted(letters & set(NODE_FIELDS))
    part_letters = sorted(letters & set(PART_FIELDS))
    groups: dict[tuple[Any, ...], tuple[list[str], list[sc.NodeState], dict[str, str]]] = {}
    seen: set[str] = set()
    known: dict[str, sc.NodeState] = {}
    for p_index, part in enumerate(parts):
        part_values = {k: PART_FIELDS[k](part) for k in part_letters}
        for name in part.nodes:
            if wanted is not None and name not in wanted:
                continue
            if not by_part and name in seen:
                continue
            seen.add(name)
            state = known.get(name) or known.setdefault(name, sc.node_state(cluster, name))
            if states and not sc.state_matches(state, states):
                continue
            if (args.responding and not state.responding) or (args.dead and state.responding):
                continue
            if args.list_reasons and not states and state.short not in ("down", "drain", "drng"):
                continue
            node = cluster.nodes[name]
            values = {k: NODE_FIELDS[k](cluster, node, state) for k in node_letters}
            key: tuple[Any, ...] = (p_index if by_part else 0, *values.values())
            if args.Node:
                key += (name,)
            group = groups.get(key)
            if group is None:
                group = groups[key] = ([], [], {**part_values, **values})
            group[0].append(name)
            group[1].append(state)
    records = list(groups.items())
    if args.Node:
        records.sort(key=lambda kv: (kv[1][0][0], kv[0][0]))
    else:
        records.sort(key=lambda kv: (kv[0][0], -kv[1][1][0].sort_key))
    per = sc.cpus_per_node(cluster)
    rows = []
    for _key, (names, node_states, values) in records:
        row = dict(values)
        row["D"] = str(len(names))
        if letters & set("Nno"):
            row["N"] = row["n"] = row["o"] = compress_hostlist(names)
        if "F" in letters:
            row["F"] = "/".join(str(c) for c in _counts(node_states, 1))
        if "C" in letters:
            row["C"] = "/".join(str(c) for c in _counts(node_states, per))
        rows.append(row)
    return rows


# -- squeue -----------------------------------------------------------------------------------


class Squeue(sc.SlurmCommand):
    name = "squeue"
    reads_only = True
    summary = "view information about jobs in the Slurm scheduling queue"
    notes = "Default format: %.18i %.9P %.8j %.8u %.2t %.10M %.6D %R. Pending jobs sort first."
    add_help_flag = False
    json_help = "the jobs"

    def configure(self, parser: Any) -> None:
        parser.add_argument("-u", "--user", action="append", metavar="USERS", help="only jobs of these users")
        parser.add_argument("--me", action="store_true", help="only my jobs")
        parser.add_argument("-j", "--jobs", action="append", metavar="JOBS", help="only these job ids")
        parser.add_argument("-p", "--partition", action="append", metavar="PARTITIONS", help="only these partitions")
        parser.add_argument("-t", "--states", action="append", metavar="STATES", help="only jobs in these states")
        parser.add_argument("-w", "--nodelist", action="append", metavar="NODES", help="only jobs on these nodes")
        parser.add_argument("-l", "--long", action="store_true", help="more detail (STATE, TIME_LIMIT)")
        parser.add_argument("-o", "--format", metavar="FORMAT", help="output format (%%i %%j %%T ...)")
        parser.add_argument("-O", "--Format", metavar="FIELDS", help="output fields by name (JobID,Name:30,State)")
        parser.add_argument("-h", "--noheader", action="store_true", help="do not print a header line")
        parser.add_argument("-a", "--all", action="store_true", help="show jobs in hidden partitions")
        parser.add_argument("-r", "--array", action="store_true", help="one job array element per line")

    def execute(self, ctx: Context, args: argparse.Namespace) -> Outcome:
        cluster = ctx.cluster
        users = set(_split(args.user))
        if args.me:
            users.add(sc.user(ctx.env))
        for name in sorted(users):
            if name not in sc.UIDS:
                raise ctx.fail(f"squeue: error: Invalid user: {name}")
        ids: set[int] = set()
        for text in _split(args.jobs):
            if not text.isdecimal():
                raise ctx.fail(f"squeue: error: Invalid job id: {text}")
            ids.add(int(text))
        states = _job_states(ctx, _split(args.states))
        nodes = {n for expr in args.nodelist or [] for n in _hostlist(ctx, "squeue", expr)}
        parts = set(_split(args.partition))
        jobs = [j for j in cluster.slurm.jobs if sc.job_visible(cluster, j)]
        if ids:
            jobs = [j for j in jobs if j.job_id in ids]
            if not jobs:
                raise ctx.fail("slurm_load_jobs error: Invalid job id specified")
        if states is None:
            if not ids:
                jobs = [j for j in jobs if j.state in ("PENDING", "RUNNING", "SUSPENDED", "COMPLETING", "CONFIGURING")]
        elif states:
            jobs = [j for j in jobs if j.state in states]
        if users:
            jobs = [j for j in jobs if j.user in users]
        if parts:
            jobs = [j for j in jobs if j.partition in parts]
        if nodes:
            jobs = [j for j in jobs if nodes & set(j.nodes)]
        order = {s: i for i, s in enumerate(sc.JOB_ORDER)}
        jobs.sort(key=lambda j: (j.partition, order.get(j.state, 99), -sc.priority(j), j.job_id))
        if args.json:
            ctx.outln(slurm_json.squeue(cluster, sorted(jobs, key=lambda j: j.job_id), ["squeue", "--json"],
                                        sc.user(ctx.env)))
            return 0
        items = _long_items(ctx, "squeue", args.Format, SQUEUE_LONG_NAMES) if args.Format else \
            sc.parse_format(args.format or (SQUEUE_LONG if args.long else SQUEUE_DEFAULT))
        rows = [_job_values(cluster, j) for j in jobs]
        if args.long:
            ctx.outln(_ctime(ctx))
        for line in sc.render_rows(items, SQUEUE_HEADERS, rows, not args.noheader, {}):
            ctx.outln(line)
        return 0


def _job_states(ctx: Context, names: list[str]) -> set[str] | None:
    if not names:
        return None
    states: set[str] = set()
    for name in names:
        upper = name.upper()
        if upper == "ALL":
            return set()
        match = [s for s, code in sc.JOB_CODES.items() if upper in (s, code)]
        if not match:
            raise ctx.fail(f"squeue: error: Invalid job state specified: {name}\n"
                           f"squeue: error: Valid job states include: {','.join(sc.JOB_ORDER)},COMPLETING")
        states.update(match)
    return states


def _job_values(cluster: Cluster, job: Job) -> dict[str, str]:
    running = job.state == "RUNNING"
    limit = sc.limit_seconds(job.time_limit)
    used = sc.run_time(cluster, job)
    nodelist = compress_hostlist(job.nodes) if job.nodes else ""
    end = job.end_s if job.end_s is not None else (
        job.start_s + limit if job.start_s is not None and limit is not None else None)
    return {
        "i": str(job.job_id), "A": str(job.job_id), "j": job.name, "u": job.user, "U": str(sc.UIDS.get(job.user, 0)),
        "g": job.user, "t": sc.JOB_CODES.get(job.state, job.state[:2]), "T": job.state, "M": slurm_duration(used),
        "l": job.time_limit, "L": slurm_duration(limit - used) if limit is not None and running else "INVALID",
        "D": str(job.num_nodes), "N": nodelist,
        "R": f"({job.reason})" if job.state == "PENDING" else (nodelist or f"({job.reason})"),
        "r": job.reason, "C": str(sc.job_cpus(cluster, job)), "P": job.partition,
        "b": f"gres/gpu:{job.gpus_per_node}" if job.gpus_per_node else "N/A",
        "S": sc.stamp(cluster, job.start_s, "N/A"), "V": sc.stamp(cluster, job.submit_s),
        "e": sc.stamp(cluster, end, "N/A"), "a": job.account, "q": job.qos, "Q": str(sc.priority(job)),
        "p": f"{sc.priority(job) / 4294967295:.8f}", "Z": job.workdir or f"/home/{job.user}",
        "o": job.command or job.name, "B": job.nodes[0] if job.nodes else "n/a",
    }


# -- scontrol ---------------------------------------------------------------------------------


#: scontrol options that may also follow the command (``scontrol show nodes -o``).
SCONTROL_FLAGS = {"-o": ("oneliner",), "--oneliner": ("oneliner",), "-d": ("details",), "--details": ("details",),
                  "-od": ("oneliner", "details"), "-do": ("oneliner", "details")}


class Scontrol(sc.SlurmCommand):
    name = "scontrol"
    summary = "view or modify Slurm configuration and state"
    notes = ("Supported: show job|node|partition|config|hostnames|hostlist [NAME], ping, "
             "update NodeName=LIST State=DRAIN|DOWN|RESUME|IDLE Reason=TEXT, "
             "reboot [ASAP] [nextstate=RESUME|DOWN] [reason=TEXT] ALL|NODELIST, cancel_reboot NODELIST, "
             "requeue|requeuehold|hold|release JOBID.")
    add_help_flag = False

    def configure(self, parser: Any) -> None:
        parser.add_argument("-o", "--oneliner", action="store_true", help="print one record per line")
        parser.add_argument("-d", "--details", action="store_true", help="print more detail")
        parser.add_argument("words", nargs=argparse.REMAINDER, metavar="COMMAND", help="show ..., update ...")

    def execute(self, ctx: Context, args: argparse.Namespace) -> Outcome:
        cluster = ctx.cluster
        words = []
        for word in args.words:  # GNU getopt permutes: options may follow the command
            flags = SCONTROL_FLAGS.get(word)
            if flags is None:
                words.append(word)
            for flag in flags or ():
                setattr(args, flag, True)
        if not words:
            raise ctx.fail("scontrol: no command given (interactive mode is not available here)")
        keyword = words[0].lower()
        if keyword == "show":
            records = _show(ctx, words[1:])
        elif keyword == "update":
            return _update(ctx, words[1:])
        elif keyword == "reboot":
            return slurm_admin.reboot(ctx, words[1:])
        elif keyword == "cancel_reboot":
            return slurm_admin.cancel_reboot(ctx, words[1:])
        elif keyword in ("requeue", "requeuehold", "hold", "release"):
            return slurm_admin.job_action(ctx, keyword, words[1:])
        elif keyword == "ping":
            ctx.outln(f"Slurmctld(primary) at {cluster.slurm.controller} is UP")
            return 0
        elif keyword == "version":
            ctx.outln(f"slurm {cluster.versions.slurm}")
            return 0
        else:
            raise ctx.fail(f"invalid keyword: {words[0]}")
        blank = words[1].lower().startswith(("job", "node", "part")) and records != [["No jobs in the system"]]
        for record in records:
            if args.oneliner and blank:
                ctx.outln(" ".join(line.strip() for line in record))
                continue
            for line in record:
                ctx.outln(line)
            if blank:
                ctx.outln()
        return 0


def _show(ctx: Context, words: list[str]) -> list[list[str]]:
    cluster = ctx.cluster
    if not words:
        raise ctx.fail("too few arguments for keyword:show")
    entity, rest = words[0].lower(), words[1:]
    arg = rest[0] if rest else None
    if entity in ("job", "jobs", "jobid"):
        jobs = [j for j in cluster.slurm.jobs if sc.job_visible(cluster, j)]
        if arg is not None:
            jobs = [j for j in jobs if arg.isdecimal() and j.job_id == int(arg)]
            if not jobs:
                raise ctx.fail("slurm_load_jobs error: Invalid job id specified")
        if not jobs:
            return [["No jobs in the system"]]
        return [_job_record(cluster, j) for j in sorted(jobs, key=lambda j: j.job_id)]
    if entity in ("node", "nodes"):
        names = [n.name for n in cluster.compute_nodes]
        if arg is not None:
            wanted = _hostlist(ctx, "scontrol", arg)
            missing = [n for n in wanted if n not in cluster.slurm.node_state]
            if missing:
                raise ctx.fail(f"Node {missing[0]} not found")
            names = wanted
        return [_node_record(cluster, cluster.nodes[n]) for n in names]
    if entity in ("partition", "partitions"):
        parts = cluster.slurm.partitions
        if arg is not None:
            parts = [p for p in parts if p.name == arg]
            if not parts:
                raise ctx.fail(f"Partition {arg} not found")
        return [_partition_record(cluster, p) for p in parts]
    if entity == "hostnames":
        expr = arg or ctx.env.get("SLURM_JOB_NODELIST", "")
        if not expr:
            raise ctx.fail("scontrol: error: host list is empty")
        return [[name] for name in _hostlist(ctx, "scontrol", expr)]
    if entity in ("config", "configuration"):
        return [_config(ctx)]
    if entity in ("hostlist", "hostlistsorted"):
        if arg is None:
            raise ctx.fail("scontrol: error: host list is empty")
        names = _hostlist(ctx, "scontrol", arg)
        return [[compress_hostlist(sorted(names) if entity == "hostlistsorted" else names)]]
    raise ctx.fail(f"invalid entity:{words[0]} for keyword:show")


def _config(ctx: Context) -> list[str]:
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
        "SLURM_CONF": "/etc/slurm/slurm.conf",
        "SLURM_VERSION": cluster.versions.slurm,
        "TaskPlugin": "task/affinity,task/cgroup",
        "TreeWidth": "16",
    }
    lines = [f"Configuration data as of {sc.stamp(cluster, ctx.clock.elapsed)}"]
    lines += [f"{key:<23} = {value}" for key, value in sorted(settings.items(), key=lambda kv: kv[0].lower())]
    return lines


def _job_record(cluster: Cluster, job: Job) -> list[str]:
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


def _node_record(cluster: Cluster, node: Node) -> list[str]:
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
        f"CPULoad={_cpu_load(node, state)}",
        "   AvailableFeatures=(null)",
        "   ActiveFeatures=(null)",
        "   Gres=gpu:h100:8(S:0-1)",
        f"   NodeAddr={node.name} NodeHostName={node.name} Version={v.slurm}",
        f"   OS=Linux {v.kernel} {v.kernel_build} ",
        f"   RealMemory={mem} AllocMem={mem if busy else 0} "
        f"FreeMem={sc.free_mem_mb(node, state) if state.responding else 'N/A'} Sockets={node.cpu.sockets} Boards=1",
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


def _partition_record(cluster: Cluster, part: Partition) -> list[str]:
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


def _update(ctx: Context, words: list[str]) -> int:
    cluster = ctx.cluster
    slurm = cluster.slurm
    fields: dict[str, str] = {}
    for word in words:
        if "=" not in word:
            raise ctx.fail(f"Invalid input: {word}\nRequest aborted")
        key, value = word.split("=", 1)
        fields[key.lower()] = value
    if "nodename" not in fields:
        raise ctx.fail("No valid entity in update command\nInput line must include \"NodeName\", \"PartitionName\", "
                       "\"Reservation=<name>\", or \"JobId\"")
    names = _hostlist(ctx, "scontrol", fields["nodename"])
    for name in names:
        if name not in slurm.node_state:
            raise ctx.fail("slurm_update error: Invalid node name specified")
    state = fields.get("state", "").lower()
    if state == "cancel_reboot":
        return slurm_admin.cancel_reboot(ctx, [fields["nodename"]])
    reason = fields.get("reason", "")
    if state in ("drain", "down") and not reason:
        raise ctx.fail("You must specify a reason when DOWNING or DRAINING a node. Request denied")
    if state not in ("drain", "down", "resume", "idle", "undrain", ""):
        raise ctx.fail("Invalid node state specified")
    who = sc.user(ctx.env)
    now = ctx.clock.elapsed
    for name in names:
        current = slurm.node_state[name]
        busy = any(j.state == "RUNNING" and name in j.nodes for j in slurm.jobs)
        if state == "drain":
            slurm.node_state[name] = "drng" if busy else "drain"
        elif state == "down":
            slurm.node_state[name] = "down"
        elif state in ("resume", "idle", "undrain"):
            if current in ("drain", "drng", "down"):
                slurm.node_state[name] = "alloc" if busy else "idle"
            slurm.node_reason.pop(name, None)
            slurm.reason_set.pop(name, None)
            continue
        if reason:
            slurm.node_reason[name] = reason
            slurm.reason_set[name] = (who, now)
    return 0


def commands() -> list[Any]:
    return [Sinfo(), Squeue(), Scontrol()]
