"""numastat -p: a process's memory per NUMA node, the same pages /proc/PID/numa_maps lists."""

from __future__ import annotations

import re

from tests.support import on, run


def _numa_maps_mb(text: str) -> dict[int, float]:
    pages: dict[int, int] = {}
    for node, count in re.findall(r"\bN(\d+)=(\d+)", text):
        pages[int(node)] = pages.get(int(node), 0) + int(count)
    return {node: count * 4 / 1024 for node, count in pages.items()}


def test_a_rank_bound_to_the_other_socket_has_its_memory_there_in_numastat_and_numa_maps() -> None:
    session = on("node01", "topology", 0)
    pids = run(session, "pgrep pt_main_thread").split()
    tables = {pid: run(session, f"numastat -p {pid}") for pid in pids}
    total = {pid: re.search(r"^Total\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)$", t, re.M) for pid, t in tables.items()}
    on_node1 = [pid for pid, m in total.items() if m and float(m[2]) > 0]
    assert len(on_node1) == 3, "ranks 5-7 keep their memory on NUMA node 1; rank 4 was bound to node 0"
    rank4 = pids[4]
    assert "Per-node process memory usage (in MBs) for PID " + rank4 + " (pt_main_thread)" in tables[rank4]
    maps = _numa_maps_mb(run(session, f"cat /proc/{rank4}/numa_maps"))
    m = total[rank4]
    assert m is not None and abs(float(m[1]) - maps.get(0, 0.0)) < 0.01 and float(m[2]) == maps.get(1, 0.0) == 0.0


def test_several_matches_get_one_row_each_and_the_system_wide_form_says_it_is_not_kept() -> None:
    session = on("node01", "topology", 0)
    rows = [line for line in run(session, "numastat -c -p pt_main").splitlines() if re.match(r"^\d+ \(", line)]
    assert len(rows) == 8 and all(len(line.split()[1]) <= 10 for line in rows)
    out = run(session, "numastat; echo status=$?")
    assert "not kept" in out and "a limit of this simulated terminal" in out and out.endswith("status=1\n")
