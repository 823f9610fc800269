"""sacct, squeue and sinfo read the way Slurm exporters and accounting scripts read them."""

from __future__ import annotations

import json
import re

from emulator.cluster.scheduler import expand_hostlist
from tests.conformance import parsers
from tests.conformance.support import on, together

#: vpenso/prometheus-slurm-exporter's pattern for one GPU gres (``gpu:h100:8(S:0-1)`` → 8).
GRES_GPU = re.compile(r"gpu:(\(null\)|[^:(]*):?([0-9]+)(\([^)]*\))?")


def test_sacct_parsable2_has_no_trailing_bar_and_one_cell_per_field() -> None:
    out, status = on(None).execute("sacct -a --parsable2 --format=JobID,JobName,State,ExitCode,Elapsed,NodeList,AllocTRES")
    assert status == 0
    rows = parsers.parsable2(out)
    assert rows and list(rows[0]) == ["JobID", "JobName", "State", "ExitCode", "Elapsed", "NodeList", "AllocTRES"]
    for row in rows:
        assert re.fullmatch(r"\d+(\.(batch|extern|\d+))?", row["JobID"]), row
        assert re.fullmatch(r"\d+:\d+", row["ExitCode"])
        assert re.fullmatch(r"(\d+-)?\d\d:\d\d:\d\d", row["Elapsed"])


def test_sacct_parsable_ends_each_line_with_a_bar() -> None:
    out, _ = on(None).execute("sacct -a --parsable -n -X --format=JobID,State")
    assert out and all(line.endswith("|") and line.count("|") == 2 for line in out.splitlines())


def test_sacct_allocated_gpus_add_up_to_what_sinfo_counts_as_allocated() -> None:
    s = on(None)
    jobs, nodes = together(s, "sacct -a -X -n -P --state=RUNNING --format=JobID,AllocTRES",
                           'sinfo -h -N -o "%N|%T|%G"')
    allocated = 0
    for row in parsers.parsable2(jobs, header=False, names=["JobID", "AllocTRES"]):
        tres = dict(item.split("=", 1) for item in row["AllocTRES"].split(","))
        allocated += int(tres.get("gres/gpu", 0))
    busy = [r for r in parsers.parsable2(nodes, header=False, names=["node", "state", "gres"])
            if r["state"].lower() in ("allocated", "mixed")]
    per_node = {int(m[2]) for r in busy for m in [GRES_GPU.search(r["gres"])] if m}
    assert per_node == {8} and allocated == 8 * len(busy)


def test_squeue_format_with_noheader_splits_on_the_separator() -> None:
    out, status = on(None).execute('squeue -a -r -h -o "%A|%T|%r|%D|%N"')
    assert status == 0
    rows = parsers.parsable2(out, header=False, names=["id", "state", "reason", "nodes", "nodelist"])
    assert rows
    for row in rows:
        assert row["state"] in ("PENDING", "RUNNING", "COMPLETING", "SUSPENDED")
        if row["state"] == "RUNNING":
            assert len(expand_hostlist(row["nodelist"])) == int(row["nodes"]) and row["reason"] == "None"
        else:
            assert row["nodelist"] == "" and row["reason"] != "None"


def test_sinfo_cpu_summary_is_alloc_idle_other_total() -> None:
    out, _ = on(None).execute("sinfo -h -o %C")
    alloc, idle, other, total = (int(x) for x in out.strip().split("/"))
    assert alloc + idle + other == total


def test_sinfo_node_states_sum_to_the_node_count() -> None:
    s = on(None)
    counts, nodes = together(s, 'sinfo -h -o "%D,%T"', 'sinfo -h -N -o "%N"')
    total = sum(int(line.split(",")[0]) for line in counts.splitlines())
    assert total == len(set(nodes.split()))


def test_sinfo_long_format_gres_counts_gpus_like_the_exporter() -> None:
    out, status = on(None).execute('sinfo -a -h --Format="Nodes: ,Gres: "')
    assert status == 0
    total = 0
    for line in out.splitlines():
        count, gres = line.split()[:2]
        total += int(count) * int(GRES_GPU.search(gres)[2])  # type: ignore[index]
    assert total == 8 * len(on(None).cluster.nodes) or total > 0


def test_exporter_allocated_gpu_query_runs() -> None:
    out, status = on(None).execute('sinfo -a -h --Format="Nodes: ,GresUsed:" --state=allocated')
    assert status == 0 and GRES_GPU.search(out)


def test_squeue_accepts_an_abbreviated_long_option() -> None:
    out, status = on(None).execute('squeue -h --state=running -o "%i"')
    assert status == 0 and out.strip()


def test_sinfo_long_state_is_lower_case_like_the_exporter_fixtures() -> None:
    out, _ = on(None).execute('sinfo -h -N -o "%N,%T"')
    states = {line.split(",")[1] for line in out.splitlines()}
    assert states <= {"idle", "allocated", "mixed", "drained", "draining", "down", "down*", "drained*"}


def test_sinfo_node_memory_query_runs() -> None:
    out, status = on(None).execute('sinfo -h -N -O "NodeList,AllocMem,Memory,CPUsState"')
    assert status == 0
    for line in out.splitlines():
        name, alloc, total, cpus = line.split()
        assert int(alloc) <= int(total) and cpus.count("/") == 3


def test_scontrol_oneliner_after_the_command_gives_one_line_per_node() -> None:
    out, status = on(None).execute("scontrol show nodes -o")
    assert status == 0 and len(out.splitlines()) == 8 and out.startswith("NodeName=node01 ")


def test_squeue_json_parses() -> None:
    out, status = on(None).execute("squeue --json")
    assert status == 0 and json.loads(out)["jobs"]


def test_srun_overlap_inside_a_running_allocation() -> None:
    out, status = on(None).execute("srun --jobid=48213 --overlap -w node01 nvidia-smi -L")
    assert status == 0 and out.startswith("GPU 0: ")
