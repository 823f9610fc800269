"""The fault framework and the hosts domain: host-down and node-drained change the model coherently."""

from __future__ import annotations

import pytest

from emulator.cluster.build import ClusterSpec, build_cluster
from emulator.cluster.faults import apply_fault, catalog
from emulator.cluster.faults.hosts import CAUSES


def cluster(seed: int = 0):
    return build_cluster(ClusterSpec(seed=seed))


def test_catalog_lists_the_host_faults_once():
    faults = catalog()
    assert {"host-down", "node-drained"} <= set(faults)


def test_unknown_fault_and_unknown_parameter_are_refused():
    c = cluster()
    with pytest.raises(ValueError, match="unknown fault"):
        apply_fault(c, "no-such-fault")
    with pytest.raises(ValueError, match="unknown parameter"):
        apply_fault(c, "host-down", {"colour": "red"})


def test_host_down_targets_a_training_node_chosen_by_the_seed_and_is_deterministic():
    truths = [apply_fault(cluster(seed), "host-down").truth for seed in range(6)]
    again = [apply_fault(cluster(seed), "host-down").truth for seed in range(6)]
    assert truths == again
    assert all(t["node"] in ("node01", "node02", "node03", "node04") for t in truths)
    assert all(t["cause"] in CAUSES for t in truths)
    assert len({t["cause"] for t in truths}) > 1


@pytest.mark.parametrize("cause", CAUSES)
def test_host_down_stops_the_os_and_slurm_sets_the_node_down_and_fails_its_job(cause):
    c = cluster()
    truth = apply_fault(c, "host-down", {"node": "node02", "cause": cause}).truth
    assert truth == {"node": "node02", "cause": cause}
    node = c.nodes["node02"]
    assert node.health.os_up is False
    assert node.health.down_cause == cause
    assert c.slurm.node_state["node02"] == "down"
    assert c.slurm.node_reason["node02"] == "Not responding"
    who, when = c.slurm.reason_set["node02"]
    assert who == "slurm" and when == node.health.last_seen_s + c.slurm.slurmd_timeout_s
    job = next(j for j in c.slurm.jobs if j.is_training)
    assert job.state == "NODE_FAIL" and job.end_s == when and job.reason == "NodeDown"
    assert all(c.slurm.node_state[n] == "idle" for n in ("node01", "node03", "node04"))


def test_host_down_sel_power_and_console_tell_the_cause():
    expected = {
        "psu-failure": ("Failure detected", False, "overload"),
        "cpu-ierr": ("IERR", True, ""),
        "kernel-panic": ("Run-time critical stop", True, ""),
        "watchdog": ("Power cycle", True, ""),
    }
    for cause, (event, powered, last_event) in expected.items():
        c = cluster()
        apply_fault(c, "host-down", {"node": "node03", "cause": cause})
        bmc = c.nodes["node03"].bmc
        assert any(e.event == event for e in bmc.sel), cause
        assert bmc.power_on is powered, cause
        assert bmc.last_power_event == last_event, cause
    c = cluster()
    apply_fault(c, "host-down", {"node": "node03", "cause": "kernel-panic"})
    assert any("Kernel panic - not syncing" in line for line in c.nodes["node03"].health.console)


def test_host_down_rejects_an_unknown_cause_or_node():
    with pytest.raises(ValueError, match="unknown cause"):
        apply_fault(cluster(), "host-down", {"cause": "gremlins"})
    with pytest.raises(ValueError, match="no compute node"):
        apply_fault(cluster(), "host-down", {"node": "login01"})


def test_node_drained_on_an_allocated_node_is_draining_with_the_admin_reason():
    c = cluster()
    truth = apply_fault(c, "node-drained", {"node": "node01", "reason": "fw update"}).truth
    assert truth == {"node": "node01", "cause": "admin-drain", "reason": "fw update"}
    assert c.slurm.node_state["node01"] == "drng"
    assert c.slurm.node_reason["node01"] == "fw update"
    assert c.slurm.reason_set["node01"][0] == "root"


def test_node_drained_on_an_idle_node_is_drained():
    c = cluster()
    apply_fault(c, "node-drained", {"node": "node08"})
    assert c.slurm.node_state["node08"] == "drain"
    assert c.slurm.node_reason["node08"]


def test_host_down_leaves_the_dependent_job_pending_with_dependency_never_satisfied():
    c = cluster()
    apply_fault(c, "host-down", {"node": "node01", "cause": "cpu-ierr"})
    dependant = next(j for j in c.slurm.jobs if j.dependency)
    assert (dependant.state, dependant.reason) == ("PENDING", "DependencyNeverSatisfied")
