"""NCCL's algorithm choice through the shell: what all_reduce_perf reports and what NCCL_DEBUG=INFO says it chose."""

from __future__ import annotations

import re

import pytest

from emulator.cluster.faults import apply_fault
from emulator.session import Session
from tests.commands.test_nccl import rows

TWO = "mpirun -np 16 -H node07:8,node08:8"
TUNING = "-x NCCL_DEBUG=INFO -x NCCL_DEBUG_SUBSYS=INIT,TUNING"
#: One NDR port: 400 Gb/s is 50 GB/s; eight rails a node.
NIC_GBPS, RAILS = 50.0, 8


def busbw(session: Session, line: str) -> float:
    out, status = session.execute(line)
    assert status == 0, out
    return rows(out)[-1][2]


def picks(out: str) -> dict[int, set[tuple[int, int]]]:
    """Per message size, the (algorithm, protocol) indices of rank 0's per-call TUNING lines."""
    found: dict[int, set[tuple[int, int]]] = {}
    for m in re.finditer(r"NCCL INFO (\d+) Bytes -> Algo (\d) proto (\d) time [\d.]+$", out, re.M):
        found.setdefault(int(m.group(1)), set()).add((int(m.group(2)), int(m.group(3))))
    return found


def test_nvls_inside_a_node_reports_busbw_above_the_nvlink_line_rate() -> None:
    s = Session()
    nvls = busbw(s, "ssh node07 all_reduce_perf -b 8G -e 8G -g 8")
    ring = busbw(s, "ssh node07 NCCL_ALGO=Ring all_reduce_perf -b 8G -e 8G -g 8")
    assert nvls > 450 > ring
    assert nvls / ring == pytest.approx(1.29, abs=0.06)     # stas00's H200 measurement: 473.1 / 365.6


def test_a_two_node_default_run_exceeds_what_the_nics_carry_in_a_ring() -> None:
    s = Session()
    tree = busbw(s, f"{TWO} all_reduce_perf -b 8G -e 8G -g 1")
    ring = busbw(s, f"{TWO} -x NCCL_ALGO=Ring all_reduce_perf -b 8G -e 8G -g 1")
    assert tree > NIC_GBPS * RAILS > ring
    # The ring carries busbw / 8 on each NIC: near the line rate of 50 GB/s.
    assert 0.85 * NIC_GBPS <= ring / RAILS <= NIC_GBPS
    # The tree moves S per node: busbw x (k-1)/(n-1) is each NIC's share, below the line rate.
    assert tree * 1 / 15 < NIC_GBPS


def test_forced_ring_reveals_a_port_that_the_default_tree_hides() -> None:
    s = Session()
    tree_before = busbw(s, f"{TWO} all_reduce_perf -b 8G -e 8G -g 1")
    ring_before = busbw(s, f"{TWO} -x NCCL_ALGO=Ring all_reduce_perf -b 8G -e 8G -g 1")
    apply_fault(s.cluster, "symbol-errors", {"node": "node08", "port": "mlx5_5", "retransmit": 0.25})
    tree_after = busbw(s, f"{TWO} all_reduce_perf -b 8G -e 8G -g 1")
    ring_after = busbw(s, f"{TWO} -x NCCL_ALGO=Ring all_reduce_perf -b 8G -e 8G -g 1")
    assert tree_after == pytest.approx(tree_before, rel=0.02)
    assert ring_after / ring_before == pytest.approx(0.75, abs=0.04)


def test_a_port_at_hdr_halves_the_forced_ring_and_only_dents_the_tree() -> None:
    s = Session()
    apply_fault(s.cluster, "link-rate", {"node": "node08", "port": "mlx5_2"})
    tree = busbw(s, f"{TWO} all_reduce_perf -b 8G -e 8G -g 1")
    ring = busbw(s, f"{TWO} -x NCCL_ALGO=Ring all_reduce_perf -b 8G -e 8G -g 1")
    assert ring / RAILS == pytest.approx(25.0 * 0.92, rel=0.08)     # the slowest NIC, 200 Gb/s
    assert tree > 1.7 * ring


def test_tuning_lines_name_the_algorithm_per_size() -> None:
    out, status = Session().execute(f"{TWO} {TUNING} all_reduce_perf -b 8 -e 8G -f 1024 -g 1 -n 1")
    assert status == 0
    chosen = picks(out)
    assert chosen[8] == {(0, 0)}              # Tree / LL: latency wins
    assert chosen[8 * 2**30] == {(5, 2)}      # NVLSTree / Simple: bandwidth wins
    assert re.search(r"NCCL INFO   Algorithm   \|\s+Tree\s+\|\s+Ring\s+\|\s+CollNetDirect\s+\|$", out, re.M)
    assert re.search(r"NCCL INFO     AllReduce \|(\s+[\d.]+/\s*[\d.]+ \|){9}$", out, re.M)
    single, _ = Session().execute(f"ssh node07 {TUNING.replace('-x ', '')} all_reduce_perf -b 8G -e 8G -g 8")
    assert picks(single)[8 * 2**30] == {(4, 2)}   # NVLS inside one node


def allreduce_cells(out: str) -> dict[tuple[int, int], tuple[float, float]]:
    """The TUNING table's AllReduce cells: (algorithm, protocol) index -> (latency us, bandwidth GB/s)."""
    rows = re.findall(r"NCCL INFO     AllReduce \|(.*)$", out, re.M)
    cells = [tuple(map(float, c)) for row in rows for c in re.findall(r"([\d.]+)/\s*([\d.]+) \|", row)]
    assert len(cells) == 18, out
    return {(i // 3, i % 3): (lat, bw) for i, (lat, bw) in enumerate(cells)}


# node05 and node06 run other tenants' jobs: 1 GiB buffers fit beside them, 8 GiB do not.
@pytest.mark.parametrize(("hosts", "top", "sizes"), [("node07:8,node08:8", "8G", 11),
                                                     ("node05:8,node06:8,node07:8,node08:8", "1G", 10)])
def test_each_printed_time_is_latency_plus_size_over_bandwidth_of_the_fastest_cell(hosts: str, top: str,
                                                                                   sizes: int) -> None:
    np = 8 * hosts.count(":")
    out, status = Session().execute(f"mpirun -np {np} -H {hosts} {TUNING} all_reduce_perf -b 8 -e {top} -f 8 -g 1 -n 1")
    assert status == 0
    cells = allreduce_cells(out)
    lines = re.findall(r"NCCL INFO (\d+) Bytes -> Algo (\d) proto (\d) time ([\d.]+)$", out, re.M)
    assert len({int(size) for size, *_ in lines}) == sizes
    for size_text, algo, proto, time_text in lines:
        size, time = int(size_text), float(time_text)
        # The documented model: time = latency + size / (1000 x bandwidth), latency in us, bandwidth in GB/s.
        model = {k: lat + size / (1e3 * bw) for k, (lat, bw) in cells.items() if bw > 0}
        assert time == pytest.approx(model[(int(algo), int(proto))], rel=2e-3, abs=0.06)
        assert time <= min(model.values()) * 1.002 + 0.06, f"{size} B: a cell's time is lower than the pick's"


def test_tuning_lines_interleave_with_the_row_like_nccl_tests_output() -> None:
    out, _ = Session().execute(f"{TWO} {TUNING} all_reduce_perf -b 1G -e 1G -g 1 -n 2")
    assert re.search(r"^  1073741824     268435456     float     sum      -1node07:\d+:\d+ \[0\] NCCL INFO 1073741824 "
                     r"Bytes -> Algo 5 proto 2", out, re.M)


def test_nccl_algo_and_proto_are_honoured_and_logged_under_env() -> None:
    s = Session()
    out, _ = s.execute(f"{TWO} -x NCCL_DEBUG=INFO -x NCCL_DEBUG_SUBSYS=ENV,TUNING -x NCCL_ALGO=ring "
                       "-x NCCL_PROTO=LL128 all_reduce_perf -b 1G -e 1G -g 1 -n 1")
    assert "NCCL INFO NCCL_ALGO set by environment to ring" in out
    assert "NCCL INFO NCCL_PROTO set by environment to LL128" in out
    assert picks(out)[2**30] == {(1, 1)}
    ll = busbw(s, f"{TWO} -x NCCL_PROTO=LL all_reduce_perf -b 1G -e 1G -g 1")
    assert ll < 0.3 * busbw(s, f"{TWO} all_reduce_perf -b 1G -e 1G -g 1")


def test_an_algorithm_list_nccl_cannot_run_falls_back_to_ring_and_tree() -> None:
    s = Session()
    default = busbw(s, f"{TWO} all_reduce_perf -b 8G -e 8G -g 1")
    # NVLS is one NVLink domain: across nodes NCCL 2.21 drops it and, with nothing left, turns Ring and Tree on.
    out, status = s.execute(f"{TWO} {TUNING} -x NCCL_ALGO=NVLS all_reduce_perf -b 8G -e 8G -g 1 -n 1")
    assert status == 0 and picks(out)[8 * 2**30] <= {(0, 2), (1, 2)}
    # A misspelt name is ignored without a word: the same fallback, and NVLSTree's bandwidth is gone.
    typo = busbw(s, f"{TWO} -x NCCL_ALGO=NVLStre all_reduce_perf -b 8G -e 8G -g 1")
    assert typo < 0.85 * default
    # Tree is an all-reduce algorithm: all_gather, left with nothing, runs as a ring.
    _, status = s.execute("ssh node07 NCCL_ALGO=Tree all_gather_perf -b 1M -e 1M -g 8")
    assert status == 0


@pytest.mark.parametrize(("line", "ring"), [
    (f"export NCCL_ALGO=Ring; {TWO} {TUNING}", False),             # exported in the shell only: not on the nodes
    (f"NCCL_ALGO=Ring {TWO} {TUNING}", False),                     # mpirun's own environment: not on the nodes
    (f"{TWO} -x NCCL_ALGO=Ring {TUNING}", True),
    (f"export NCCL_ALGO=Ring; {TWO} -x NCCL_ALGO {TUNING}", True),  # -x VAR passes on the shell's value
    (f"ssh node07; export NCCL_ALGO=Ring; mpirun -np 8 -H node07:8 {TUNING}", True),  # ranks on mpirun's host
])
def test_mpirun_gives_ranks_on_other_hosts_only_the_variables_of_its_x_options(line: str, ring: bool) -> None:
    out, status = Session().execute(f"{line} all_reduce_perf -b 8G -e 8G -g 1 -n 1")
    assert status == 0, out
    assert picks(out)[8 * 2**30] == ({(1, 2)} if ring else {(5, 2)} if "node08" in line else {(4, 2)})


def test_point_to_point_collectives_ignore_nccl_algo() -> None:
    out, status = Session().execute("ssh node07 NCCL_ALGO=Tree alltoall_perf -b 1M -e 1M -g 8")
    assert status == 0 and rows(out)


def test_without_nccl_debug_nothing_is_logged() -> None:
    out, _ = Session().execute(f"{TWO} -x NCCL_ALGO=Ring all_reduce_perf -b 1M -e 1M -g 1")
    assert "NCCL INFO" not in out and "NCCL WARN" not in out


def test_an_unknown_protocol_leaves_every_protocol_of_the_ring() -> None:
    out, status = Session().execute(f"ssh node07 {TUNING.replace('-x ', '')} NCCL_PROTO=LL256 all_reduce_perf "
                                    "-b 8 -e 8G -f 1024 -g 8 -n 1")
    assert status == 0
    chosen = picks(out)
    assert chosen[8] == {(1, 0)} and chosen[8 * 2**30] == {(1, 2)}     # Ring / LL, then Ring / Simple


def test_collnet_is_never_chosen_without_a_network_plugin() -> None:
    out, status = Session().execute(f"{TWO} {TUNING} -x NCCL_ALGO=CollNetDirect,CollNetChain "
                                    "all_reduce_perf -b 8G -e 8G -g 1 -n 1")
    assert status == 0 and not picks(out)[8 * 2**30] & {(2, 2), (3, 2)}


def test_without_nvls_a_tree_beats_a_network_bound_ring_on_two_nodes() -> None:
    """On 200 Gb/s rails (25 GB/s a NIC) the ring is network-bound; Tree goes past it, NCCL picks Tree."""
    s = Session()
    for node in ("node07", "node08"):
        for port in range(8):
            apply_fault(s.cluster, "link-rate", {"node": node, "port": f"mlx5_{port}"})
    out, status = s.execute(f"{TWO} -x NCCL_NVLS_ENABLE=0 {TUNING} all_reduce_perf -b 8G -e 8G -g 1 -n 1")
    assert status == 0 and picks(out)[8 * 2**30] == {(0, 2)}      # Tree / Simple
    tree = busbw(s, f"{TWO} -x NCCL_NVLS_ENABLE=0 all_reduce_perf -b 8G -e 8G -g 1")
    ring = busbw(s, f"{TWO} -x NCCL_ALGO=Ring all_reduce_perf -b 8G -e 8G -g 1")
    assert ring <= 25.0 * RAILS < tree
