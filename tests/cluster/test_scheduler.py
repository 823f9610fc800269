"""Slurm state helpers and the host lifecycle that drives Slurm's view of a node."""

from __future__ import annotations

import pytest

from emulator.cluster import lifecycle
from emulator.cluster.build import ClusterSpec, build_cluster
from emulator.cluster.clock import SimClock
from emulator.cluster.faults import apply_fault
from emulator.cluster.scheduler import compress_hostlist, expand_hostlist


def test_compress_hostlist_uses_slurm_ranges():
    assert compress_hostlist(["node01", "node02", "node03", "node07"]) == "node[01-03,07]"
    assert compress_hostlist(["node05"]) == "node05"
    assert compress_hostlist(["login01", "node01", "node02"]) == "login01,node[01-02]"


def test_expand_hostlist_inverts_compress():
    assert expand_hostlist("node[01-03,07],login01") == ["node01", "node02", "node03", "node07", "login01"]
    for bad in ("node[03-01]", "node[01-", "node[a-b]"):
        with pytest.raises(ValueError):
            expand_hostlist(bad)


def test_clock_timers_fire_in_order_when_the_clock_reaches_them():
    clock = SimClock()
    fired: list[str] = []
    clock.schedule(10.0, lambda: fired.append("b"))
    clock.schedule(5.0, lambda: fired.append("a"))
    clock.advance(4.0)
    assert fired == []
    clock.advance(20.0)
    assert fired == ["a", "b"] and clock.timers == []


def test_a_past_timer_fires_at_once():
    clock = SimClock()
    fired: list[int] = []
    clock.schedule(-1.0, lambda: fired.append(1))
    assert fired == [1]


def test_power_cycle_of_a_hung_host_boots_it_and_returns_it_to_service():
    c = build_cluster(ClusterSpec(seed=0))
    apply_fault(c, "host-down", {"node": "node02", "cause": "cpu-ierr"})
    node = c.nodes["node02"]
    boots = len(node.health.boots)
    lifecycle.reset(c, node, c.clock.elapsed, cycle=True)
    c.clock.advance(lifecycle.BOOT_S - 1)
    assert node.health.os_up is False
    c.clock.advance(1)
    assert node.health.os_up is True
    assert len(node.health.boots) == boots + 1
    assert c.slurm.node_state["node02"] == "idle"
    assert "node02" not in c.slurm.node_reason


def test_power_off_of_a_running_host_sets_it_down_after_slurmd_timeout():
    c = build_cluster(ClusterSpec(seed=0))
    node = c.nodes["node07"]
    lifecycle.power_off(c, node, c.clock.elapsed)
    assert node.health.os_up is False and node.bmc.power_on is False
    assert c.slurm.node_state["node07"] == "idle"
    c.clock.advance(c.slurm.slurmd_timeout_s)
    assert c.slurm.node_state["node07"] == "down"
    assert c.slurm.node_reason["node07"] == "Not responding"


def test_a_drained_node_stays_drained_after_it_reboots():
    c = build_cluster(ClusterSpec(seed=0))
    apply_fault(c, "node-drained", {"node": "node08", "reason": "rma"})
    node = c.nodes["node08"]
    lifecycle.power_off(c, node, 0.0)
    c.clock.advance(400)
    lifecycle.power_on(c, node, c.clock.elapsed)
    c.clock.advance(lifecycle.BOOT_S)
    assert node.health.os_up is True
    assert c.slurm.node_state["node08"] == "drain"
    assert c.slurm.node_reason["node08"] == "rma"
