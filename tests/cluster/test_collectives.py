"""The collective bandwidth model: nccl-tests' arithmetic, NVLink/NVLS inside a node, the slowest hop across nodes."""

from __future__ import annotations

import pytest

from emulator.cluster.build import ClusterSpec, build_cluster
from emulator.cluster.collectives import (
    CollectiveError,
    NcclInitError,
    algbw_gbps,
    bus_factor,
    busbw_gbps,
    collective,
    hca_filter,
    net_plan,
)

GiB = 2**30


def ranks(*nodes: str, gpus: int = 8) -> list[tuple[str, int]]:
    return [(n, g) for n in nodes for g in range(gpus)]


@pytest.mark.parametrize(("op", "n", "factor"), [
    ("all_reduce", 8, 2 * 7 / 8), ("all_reduce", 16, 2 * 15 / 16), ("all_gather", 8, 7 / 8),
    ("reduce_scatter", 16, 15 / 16), ("alltoall", 32, 31 / 32), ("broadcast", 8, 1.0), ("reduce", 8, 1.0),
    ("sendrecv", 16, 1.0),
])
def test_bus_factor_follows_nccl_tests_performance_doc(op: str, n: int, factor: float) -> None:
    assert bus_factor(op, n) == pytest.approx(factor)


def test_busbw_reproduces_the_two_node_sample_row() -> None:
    # 8 GiB all-reduce over 16 ranks in 47535 us: algbw 180.71, busbw 338.82 GB/s.
    t = 47535e-6
    assert algbw_gbps(8 * GiB, t) == pytest.approx(180.71, abs=0.01)
    assert busbw_gbps("all_reduce", 8 * GiB, t, 16) == pytest.approx(338.82, abs=0.02)


def test_every_result_obeys_the_busbw_formula() -> None:
    cluster = build_cluster(ClusterSpec(seed=3))
    for op in ("all_reduce", "all_gather", "alltoall", "broadcast", "sendrecv"):
        r = collective(cluster, op, 64 * 2**20, ranks("node01", "node02"))
        assert r.algbw == pytest.approx(r.size_bytes / (r.time_us * 1e-6) / 1e9)
        assert r.busbw == pytest.approx(r.algbw * bus_factor(op, 16))


def test_healthy_eight_gpu_all_reduce_reaches_nvls_bandwidth_at_8_gib() -> None:
    r = collective(build_cluster(ClusterSpec()), "all_reduce", 8 * GiB, ranks("node01"))
    assert r.algorithm == "NVLS"
    assert 460 <= r.busbw <= 495


def test_nvls_disabled_falls_back_to_a_ring_near_370_gbps() -> None:
    r = collective(build_cluster(ClusterSpec()), "all_reduce", 8 * GiB, ranks("node01"), {"NCCL_NVLS_ENABLE": "0"})
    assert r.algorithm == "Ring"
    assert 350 <= r.busbw <= 385


def test_small_messages_are_latency_bound_in_microseconds() -> None:
    r = collective(build_cluster(ClusterSpec()), "all_reduce", 8, ranks("node01"))
    assert 5 <= r.time_us <= 30
    assert r.busbw < 0.01


RING = {"NCCL_ALGO": "Ring"}


def test_two_node_ring_is_bounded_by_eight_400g_ports() -> None:
    r = collective(build_cluster(ClusterSpec()), "all_reduce", 8 * GiB, ranks("node01", "node02"), RING)
    assert (r.transport, r.algorithm) == ("NET/IB", "Ring")
    assert 320 <= r.busbw <= 8 * 400 / 8


def test_two_nodes_default_to_nvls_tree_above_the_rings_network_bound() -> None:
    r = collective(build_cluster(ClusterSpec()), "all_reduce", 8 * GiB, ranks("node01", "node02"))
    assert (r.algorithm, r.protocol) == ("NVLSTree", "Simple")
    assert 8 * 400 / 8 < r.busbw < 495


def test_from_three_nodes_on_the_ring_wins_large_messages_again() -> None:
    r = collective(build_cluster(ClusterSpec()), "all_reduce", 8 * GiB, ranks("node01", "node02", "node03", "node04"))
    assert r.algorithm == "Ring"


def test_small_multi_node_messages_take_a_tree_with_low_latency_protocol() -> None:
    r = collective(build_cluster(ClusterSpec()), "all_reduce", 8, ranks("node01", "node02", "node03", "node04"))
    assert (r.algorithm, r.protocol) == ("Tree", "LL")


def test_nccl_algo_and_proto_force_the_choice_with_nccl_2_21_fallbacks() -> None:
    cluster = build_cluster(ClusterSpec())
    r = collective(cluster, "all_reduce", 8 * GiB, ranks("node01"), {"NCCL_ALGO": "tree", "NCCL_PROTO": "LL128"})
    assert (r.algorithm, r.protocol) == ("Tree", "LL128")
    assert collective(cluster, "all_reduce", 8 * GiB, ranks("node01"), {"NCCL_ALGO": "^NVLS"}).algorithm == "Ring"
    # NVLS cannot run across nodes: with nothing else asked for, NCCL turns Ring and Tree back on.
    two = collective(cluster, "all_reduce", 8 * GiB, ranks("node01", "node02"), {"NCCL_ALGO": "NVLS"})
    assert two.algorithm in ("Ring", "Tree")
    # AllGather has no tree: a collective with nothing left runs as a ring.
    assert collective(cluster, "all_gather", 8 * GiB, ranks("node01"), {"NCCL_ALGO": "Tree"}).algorithm == "Ring"
    assert collective(cluster, "alltoall", GiB, ranks("node01"), {"NCCL_ALGO": "Tree"}).algorithm == "P2P"


def test_one_port_at_200g_halves_the_whole_jobs_large_message_busbw() -> None:
    healthy = build_cluster(ClusterSpec())
    degraded = build_cluster(ClusterSpec())
    degraded.nodes["node02"].nics[5].rate_gbps = 200
    two = ranks("node01", "node02")
    before = collective(healthy, "all_reduce", 8 * GiB, two, RING).busbw
    after = collective(degraded, "all_reduce", 8 * GiB, two, RING).busbw
    assert after / before == pytest.approx(0.5, abs=0.03)


def test_a_tree_on_two_nodes_hides_a_port_that_lost_a_quarter_to_retransmits() -> None:
    healthy = build_cluster(ClusterSpec())
    degraded = build_cluster(ClusterSpec())
    degraded.nodes["node02"].nics[5].retransmit_fraction = 0.25
    two = ranks("node01", "node02")
    assert collective(degraded, "all_reduce", 8 * GiB, two).busbw == \
        pytest.approx(collective(healthy, "all_reduce", 8 * GiB, two).busbw, rel=0.02)
    ring = collective(degraded, "all_reduce", 8 * GiB, two, RING).busbw / \
        collective(healthy, "all_reduce", 8 * GiB, two, RING).busbw
    assert ring == pytest.approx(0.75, abs=0.04)


def test_a_gpu_out_of_the_nvlink_fabric_fails_nccl_init_and_not_a_share_of_bandwidth() -> None:
    cluster = build_cluster(ClusterSpec())
    gpu = cluster.nodes["node01"].gpus[3]
    gpu.nvlinks[0].up = False
    gpu.fabric_status = "Unknown Error"
    with pytest.raises(NcclInitError) as err:
        collective(cluster, "all_reduce", 8 * GiB, ranks("node01"))
    assert "P2P is disabled between NVLINK connected GPUs 3 and 0" in err.value.warning
    # Forced past the check, every hop to that GPU goes through host memory: PCIe class, not ~400.
    forced = collective(cluster, "all_reduce", 8 * GiB, ranks("node01"), {"NCCL_IGNORE_DISABLED_P2P": "1"})
    assert forced.transport == "SHM" and forced.busbw < 30
    # A GPU alone on its node has no peers to check; the other nodes are untouched.
    assert collective(cluster, "all_reduce", 8 * GiB, [("node01", 3), ("node02", 0)]).busbw > 10
    assert collective(cluster, "all_reduce", 8 * GiB, ranks("node02")).busbw > 440


def test_stopped_fabric_manager_fails_cuda_init() -> None:
    cluster = build_cluster(ClusterSpec())
    cluster.nodes["node01"].hw.services["nvidia-fabricmanager"].active = False
    with pytest.raises(CollectiveError) as info:
        collective(cluster, "all_reduce", 1024, ranks("node01"))
    assert info.value.cuda_error == "system not yet initialized"


def test_hca_list_naming_netdevs_falls_back_to_sockets_far_slower() -> None:
    cluster = build_cluster(ClusterSpec())
    env = {"NCCL_IB_HCA": "=ibp24s0,ibp64s0"}
    plan = net_plan(cluster, ["node01", "node02"], env)
    assert plan.transport == "Socket"
    slow = collective(cluster, "all_reduce", GiB, ranks("node01", "node02"), env)
    fast = collective(cluster, "all_reduce", GiB, ranks("node01", "node02"))
    assert slow.transport == "NET/Socket"
    assert slow.busbw < fast.busbw / 50


def test_hca_filter_prefix_exact_and_exclusion() -> None:
    names = ["mlx5_0", "mlx5_1", "mlx5_10", "mlx5_2"]
    assert hca_filter("mlx5_1", names) == ["mlx5_1", "mlx5_10"]
    assert hca_filter("=mlx5_1:1", names) == ["mlx5_1"]
    assert hca_filter("^mlx5_1", names) == ["mlx5_0", "mlx5_2"]


def test_hca_list_with_storage_ports_lowers_multi_node_bandwidth() -> None:
    cluster = build_cluster(ClusterSpec())
    two = ranks("node01", "node02")
    rails = collective(cluster, "all_reduce", 8 * GiB, two).busbw
    wide = collective(cluster, "all_reduce", 8 * GiB, two, {"NCCL_IB_HCA": "mlx5"}).busbw
    assert wide < 0.75 * rails


def test_results_are_deterministic_for_a_seed() -> None:
    a = collective(build_cluster(ClusterSpec(seed=5)), "all_gather", GiB, ranks("node01"), sample=1)
    b = collective(build_cluster(ClusterSpec(seed=5)), "all_gather", GiB, ranks("node01"), sample=1)
    assert a == b


def test_a_gpu_trained_at_pcie_gen4_halves_its_rail_and_the_ring() -> None:
    healthy = build_cluster(ClusterSpec())
    slow = build_cluster(ClusterSpec())
    slow.nodes["node01"].gpus[2].pcie_gen_current = 4
    two = ranks("node01", "node02")
    ratio = collective(slow, "all_reduce", 8 * GiB, two, RING).busbw / \
        collective(healthy, "all_reduce", 8 * GiB, two, RING).busbw
    assert ratio == pytest.approx(26.5 / 50.0, abs=0.03)


def test_p2p_disabled_bounces_through_host_memory() -> None:
    r = collective(build_cluster(ClusterSpec()), "all_reduce", 8 * GiB, ranks("node01"), {"NCCL_P2P_DISABLE": "1"})
    assert r.transport == "SHM"
    assert r.busbw < 20


@pytest.mark.parametrize("nodes", [1, 2, 4])
@pytest.mark.parametrize("env", [{}, {"NCCL_ALGO": "Ring"}, {"NCCL_PROTO": "Simple"}, {"NCCL_ALGO": "Tree"}])
def test_a_larger_message_never_takes_less_time(nodes: int, env: dict[str, str]) -> None:
    """NCCL picks by its estimate and the run pays what the hardware gives: the nccl-tests column stays ordered."""
    cluster = build_cluster(ClusterSpec(seed=0))
    names = [f"node{i:02d}" for i in range(1, nodes + 1)]
    for op in ("all_reduce", "all_gather", "reduce_scatter", "broadcast", "alltoall"):
        times = [collective(cluster, op, 8 * 2**k, ranks(*names), env).predicted_us for k in range(0, 28)]
        slower = [(8 * 2**k, times[k], times[k + 1]) for k in range(len(times) - 1) if times[k + 1] < times[k]]
        assert not slower, f"{op} on {nodes} node(s) {env}: {slower}"
