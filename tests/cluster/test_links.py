"""Effective rates, counters over simulated time, resets, and the fabric faults."""

from __future__ import annotations

import pytest

from emulator.cluster import counters, links, phy
from emulator.cluster.build import ClusterSpec, build_cluster
from emulator.cluster.faults import apply_fault


def _cluster(seed: int = 0):
    return build_cluster(ClusterSpec(nodes=4, seed=seed, training_nodes=4))


def test_healthy_port_carries_full_rate():
    c = _cluster()
    nic = c.nodes["node01"].nics[0]
    assert links.effective_gbps(nic) == 400.0
    assert links.rate_text(nic) == "400 Gb/sec (4X NDR)"


def test_error_counters_grow_with_simulated_time():
    c = _cluster()
    apply_fault(c, "symbol-errors", {"node": "node02", "port": "mlx5_3", "errors_per_s": 10})
    node = c.nodes["node02"]
    nic = node.nic("mlx5_3")
    before = counters.counters(c, node, nic)["SymbolErrorCounter"]
    c.clock.advance(60)
    after = counters.counters(c, node, nic)["SymbolErrorCounter"]
    assert after - before == 600
    assert links.effective_gbps(nic) < 400.0


def test_data_counters_grow_only_on_the_job_rails():
    c = _cluster()
    busy, login = c.nodes["node01"], c.nodes["login01"]
    rail, storage = busy.nic("mlx5_0"), busy.nic("mlx5_8")
    start = counters.counters(c, busy, rail)
    c.clock.advance(10)
    end = counters.counters(c, busy, rail)
    words = end["PortXmitData"] - start["PortXmitData"]
    payload_words = counters.job_rail_gbps(c) * 1e9 / 8 * 10 / 4
    # Headers and ACKs on top of the payload, a few words in a thousand.
    assert payload_words < words < payload_words * 1.01
    assert 900 < words / (end["PortXmitPkts"] - start["PortXmitPkts"]) <= 1040
    assert 1.0 < counters.job_rail_gbps(c) < 400.0
    assert counters.traffic_gbps(c, busy, storage) == 0.0
    assert counters.traffic_gbps(c, login, login.nics[0]) == 0.0


def test_one_slow_port_lowers_traffic_on_every_rail():
    c = _cluster()
    healthy = counters.job_rail_gbps(c)
    apply_fault(c, "link-rate", {"node": "node03", "port": "mlx5_5", "rate_gbps": 100})
    assert counters.job_rail_gbps(c) < healthy


def test_reset_counts_from_the_baseline():
    c = _cluster()
    apply_fault(c, "symbol-errors", {"node": "node01", "port": "mlx5_0", "errors_per_s": 5})
    node = c.nodes["node01"]
    nic = node.nic("mlx5_0")
    c.clock.advance(5)
    counters.reset_counters(c, node, nic)
    assert counters.counters(c, node, nic)["SymbolErrorCounter"] == 0
    assert counters.counters(c, node, nic)["PortXmitData"] == 0
    c.clock.advance(20)
    assert counters.counters(c, node, nic)["SymbolErrorCounter"] == 100
    # The adapter's physical-layer counters are not the PMA's: the reset leaves them counting since boot.
    assert phy.seconds_since_clear(c, node, nic) > 86400
    assert phy.phy_counters(c, node, nic)["SymbolErrorCounter"] > 100


def test_mlxlink_clear_is_separate_from_the_pma_reset():
    c = _cluster()
    apply_fault(c, "symbol-errors", {"node": "node01", "port": "mlx5_0", "errors_per_s": 5})
    node = c.nodes["node01"]
    nic = node.nic("mlx5_0")
    before = counters.counters(c, node, nic)["SymbolErrorCounter"]
    phy.clear(c, node, nic)
    c.clock.advance(20)
    assert phy.seconds_since_clear(c, node, nic) == 20
    assert phy.phy_counters(c, node, nic)["SymbolErrorCounter"] == 100
    assert counters.counters(c, node, nic)["SymbolErrorCounter"] == before + 100


def test_raw_errors_follow_the_weak_lane():
    c = _cluster()
    apply_fault(c, "symbol-errors", {"node": "node01", "port": "mlx5_0", "errors_per_s": 5})
    node = c.nodes["node01"]
    nic = node.nic("mlx5_0")
    rx, _ = phy.lane_optics(c, node, nic)
    errors = phy.lane_errors(c, node, nic)
    weak = rx.index(min(rx))
    assert errors.index(max(errors)) == weak
    healthy = [n for lane, n in enumerate(errors) if lane != weak]
    assert max(healthy) * 1000 < errors[weak] and len(set(healthy)) == 3


def test_link_rate_fault_keeps_the_port_active():
    c = _cluster(seed=7)
    truth = apply_fault(c, "link-rate").truth
    nic = c.nodes[truth["node"]].nic(truth["port"])
    assert (nic.state, nic.phys_state, nic.rate_gbps) == ("Active", "LinkUp", 200)
    assert links.rate_text(nic) == "200 Gb/sec (4X HDR)"
    assert truth["cause"] == "link-rate"


def test_link_rate_fault_can_narrow_the_width():
    c = _cluster()
    apply_fault(c, "link-rate", {"node": "node01", "port": "mlx5_2", "width": "2X"})
    assert links.rate_text(c.nodes["node01"].nic("mlx5_2")) == "200 Gb/sec (2X NDR)"


def test_fault_targets_vary_with_the_seed():
    targets = {tuple(apply_fault(_cluster(seed), "link-rate").truth.values()) for seed in range(6)}
    assert len(targets) > 1


def test_link_flap_counts_link_downs_and_logs_them():
    c = _cluster()
    truth = apply_fault(c, "link-flap", {"node": "node04", "port": "mlx5_6", "period_s": 300}).truth
    node = c.nodes["node04"]
    nic = node.nic("mlx5_6")
    first = counters.counters(c, node, nic)["LinkDownedCounter"]
    assert first >= 1
    c.clock.advance(3600)
    assert counters.counters(c, node, nic)["LinkDownedCounter"] > first
    downs = [e for e in node.hw.kernel_log if e.text.endswith(f"{nic.netdev}: Link down")]
    assert len(downs) == len(nic.link_down_events)
    assert nic.state == "Active" and truth["cause"] == "link-flap"


def test_port_down_reads_down_and_carries_nothing():
    c = _cluster()
    apply_fault(c, "port-down", {"node": "node02", "port": "mlx5_1"})
    nic = c.nodes["node02"].nic("mlx5_1")
    assert (nic.state, nic.phys_state, nic.rate_gbps) == ("Down", "Disabled", 40)
    assert links.effective_gbps(nic) == 0.0


def test_congestion_raises_xmit_wait_not_errors():
    c = _cluster()
    truth = apply_fault(c, "congestion", {"nodes": 2}).truth
    assert truth["cause"] == "congestion"
    name = truth["nodes"].replace("[", "").split(",")[0].split("-")[0]
    node = c.nodes[name if name.startswith("node") else "node" + name]
    nic = node.nic("mlx5_0")
    before = counters.counters(c, node, nic)
    c.clock.advance(10)
    after = counters.counters(c, node, nic)
    assert after["PortXmitWait"] > before["PortXmitWait"]
    assert after["SymbolErrorCounter"] == before["SymbolErrorCounter"] == 0


@pytest.mark.parametrize("params", [{"node": "node99"}, {"port": "mlx5_8"}, {"width": "3X"}, {"rate_gbps": 400}])
def test_bad_fault_parameters_are_rejected(params):
    with pytest.raises(ValueError):
        apply_fault(_cluster(), "link-rate", params)


def test_ber_text_matches_the_tool_notation():
    assert phy.ber_text(0) == "15E-255"
    assert phy.ber_text(3e-12) == "3E-12"


def test_congestion_takes_a_share_of_the_ports_but_leaves_the_rate():
    c = _cluster()
    truth = apply_fault(c, "congestion", {"nodes": 4, "oversubscription": 2.0}).truth
    assert truth["nodes"] == "node[01-04]"
    nic = c.nodes["node01"].nic("mlx5_0")
    assert nic.rate_gbps == 400 and nic.state == "Active"
    assert 160.0 <= links.effective_gbps(nic) <= 240.0


def test_data_counters_stop_when_a_rank_hangs():
    c = _cluster()
    apply_fault(c, "straggler", {"kind": "io", "rank": 3, "at": 30})
    node = c.nodes["node02"]
    nic = node.nic("mlx5_0")
    c.clock.advance(40)
    at_40 = counters.counters(c, node, nic)["PortXmitData"]
    c.clock.advance(60)
    # Only the subnet manager's sweeps still reach the port: one MAD every ten seconds.
    assert counters.counters(c, node, nic)["PortXmitData"] - at_40 == 6 * counters.MAD_WORDS
