"""numastat -p: a process's memory per NUMA node, the same pages /proc/PID/numa_maps lists."""

from __future__ import annotations

import re

from emulator.session import Session
from tests.support import on, run


def _numa_maps_mb(text: str) -> dict[int, float]:
    pages: dict[int, int] = {}
    for node, count in re.findall(r"\bN(\d+)=(\d+)", text):
        pages[int(node)] = pages.get(int(node), 0) + int(count)
    return {node: count * 4 / 1024 for node, count in pages.items()}


def test_a_rank_whose_memory_is_bound_to_the_other_node_has_it_there_in_numastat_and_numa_maps() -> None:
    session = Session("topology", 3)
    t = session.cluster.truth()
    assert t["cause"] == "memory-misbinding"
    run(session, f"ssh {t['node']}")
    table = run(session, f"numastat -p {t['pid']}")
    assert f"Per-node process memory usage (in MBs) for PID {t['pid']} (pt_main_thread)" in table
    m = re.search(r"^Total\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)$", table, re.M)
    assert m is not None
    per_node = {0: float(m[1]), 1: float(m[2])}
    maps = _numa_maps_mb(run(session, f"cat /proc/{t['pid']}/numa_maps"))
    assert per_node[int(t["numa"])] > 0 and per_node[1 - int(t["numa"])] == 0.0
    assert all(abs(per_node[n] - maps.get(n, 0.0)) < 0.01 for n in (0, 1))


def test_several_matches_get_one_row_each_and_the_system_wide_form_says_it_is_not_kept() -> None:
    session = on("node01", "topology", 0)
    rows = [line for line in run(session, "numastat -c -p pt_main").splitlines() if re.match(r"^\d+ \(", line)]
    assert len(rows) == 8 and all(len(line.split()[1]) <= 10 for line in rows)
    out = run(session, "numastat; echo status=$?")
    assert "not kept" in out and "a limit of this simulated terminal" in out and out.endswith("status=1\n")


def test_an_unknown_option_is_refused_in_getopts_words_with_status_1() -> None:
    out = run(on("node01"), "numastat -x; echo status=$?")
    assert out.startswith("numastat: invalid option -- 'x'\nUsage: numastat ") and out.endswith("status=1\n")
