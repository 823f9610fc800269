"""``sinfo`` (Slurm 23.11): nodes and partitions, rendered from the scheduler state of the model.

Rows go through Slurm's own format strings (:mod:`emulator.commands.slurm.common`),
so ``-o`` and ``-O`` work as on a real cluster and the defaults are Slurm's
defaults. Nodes sharing a partition and the values shown share a line; a node
whose OS stopped answering shows the ``*`` suffix (``down*``).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from emulator.cluster.hardware import Partition
from emulator.cluster.model import Cluster, Node
from emulator.cluster.scheduler import compress_hostlist
from emulator.commands.kit.command import Command, Context, Outcome
from emulator.commands.slurm import common as sc
from emulator.commands.slurm import json_out as slurm_json
from emulator.commands.slurm.options import comma_values, ctime_line, hostlist_names, long_format_items

#: sinfo's formats by the options that pick them (-l, -N, -s, -R).
SINFO_FORMATS = {
    "default": "%#P %.5a %.10l %.6D %.6t %N",
    "long": "%#P %.5a %.10l %.10s %.4r %.8h %.10g %.6D %.11T %N",
    "node": "%#N %.6D %.#P %6t",
    "node_long": "%#N %.6D %.#P %.11T %.4c %.8z %.6m %.8d %.6w %.8f %20E",
    "summarize": "%#P %.5a %.10l %.16F  %N",
    "reasons": "%20E %9u %19H %N",
    "reasons_long": "%20E %12U %19H %6t %N",
}
#: Column headers by format letter (or -O-only field name).
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


#: ``sinfo -O`` field names → format letters.
SINFO_LONG_NAMES = {
    "partition": "P", "partitionname": "R", "available": "a", "time": "l", "nodes": "D", "statecompact": "t",
    "statelong": "T", "nodelist": "N", "nodehost": "n", "nodeaddr": "o", "nodeaiot": "F", "cpusstate": "C",
    "reason": "E", "user": "u", "userlong": "U", "timestamp": "H", "cpus": "c", "socketcorethread": "z",
    "memory": "m", "disk": "d", "weight": "w", "features": "f", "features_act": "b", "gres": "G",
    "cpusload": "O", "freemem": "e", "allocmem": "allocmem", "gresused": "gresused",
}


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
        parts = _partitions(cluster, comma_values(args.partition))
        wanted_nodes = None
        if args.nodes:
            wanted_nodes = {n for expr in args.nodes for n in hostlist_names(ctx, "sinfo", expr)}
        states = {s.lower() for s in comma_values(args.states)}
        for state in sorted(states):
            if not any(known.startswith(state) for known in NODE_STATE_NAMES):
                raise ctx.fail(f'sinfo: error: Bad state string: "{state}"')
        if "all" in states:
            states = set()
        if args.json:
            # Like the real client, --json ignores the format options and keeps the filters.
            records = [slurm_json.sinfo_record(cluster, part, [cluster.nodes[n] for n in names], node_states)
                       for part, names, node_states in _sinfo_groups(cluster, parts, wanted_nodes, states, args)]
            ctx.outln(slurm_json.sinfo(cluster, records, ["sinfo", "--json"], ctx.user))
            return 0
        fmt = args.format
        if fmt is None:
            key = "reasons" if args.list_reasons else "summarize" if args.summarize else "node" if args.Node \
                else "default"
            if args.long and key in ("reasons", "node", "default"):
                key = {"reasons": "reasons_long", "node": "node_long", "default": "long"}[key]
            fmt = SINFO_FORMATS[key]
        items = long_format_items(ctx, "sinfo", args.Format, SINFO_LONG_NAMES) if args.Format else sc.parse_format(fmt)
        rows = _sinfo_rows(cluster, items, parts, wanted_nodes, states, args)
        if args.long:
            ctx.outln(ctime_line(ctx))
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
    "O": lambda c, n, st: sc.cpu_load_text(n, st),
    "e": lambda c, n, st: str(sc.free_mem_mb(c, n, st) if st.responding else "N/A"),
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


def commands() -> list[Command]:
    return [Sinfo()]
