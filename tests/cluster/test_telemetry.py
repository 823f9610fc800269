"""GPU readings under load: busy versus idle, seeded jitter, slowdowns."""

from __future__ import annotations

from emulator.cluster import gpu_rates, telemetry
from emulator.cluster.build import ClusterSpec, build_cluster
from emulator.cluster.faults import apply_fault


def _cluster(seed: int = 0):
    return build_cluster(ClusterSpec(nodes=8, seed=seed, training_nodes=4))


def test_training_gpus_are_busy_at_the_software_power_cap():
    c = _cluster()
    node = c.nodes["node01"]
    clocks = set()
    for gpu in node.gpus:
        r = telemetry.sample(c, node, gpu)
        assert r.busy and r.util_pct >= 99 and 1700 <= r.sm_mhz < 1980 and r.mem_mhz == 2619
        assert 60 * 1024 <= r.mem_used_mib <= 76 * 1024
        assert 690 <= r.power_w < 700 and 50 <= r.temp_c <= 70
        assert r.reasons == frozenset({"SW Power Cap"})
        assert gpu_rates.gpu_speed_factor(gpu) == 1.0
        clocks.add(r.sm_mhz)
    assert len(clocks) > 2   # each GPU's own demand sets its clock


def test_idle_gpus_read_like_an_idle_h100():
    c = _cluster()
    node = c.nodes["node08"]
    for gpu in node.gpus:
        r = telemetry.sample(c, node, gpu)
        assert not r.busy and r.util_pct == 0 and r.sm_mhz == 345 and r.mem_used_mib == 1
        assert 66 <= r.power_w <= 76 and r.reasons == frozenset({"Idle"})


def test_each_rank_is_a_process_with_its_pid():
    c = _cluster()
    node = c.nodes["node02"]
    rank = next(r for r in c.training.ranks if r.node == "node02" and r.gpu == 3)
    procs = telemetry.processes(c, node, node.gpus[3])
    assert [p.pid for p in procs] == [rank.pid] and procs[0].name == "/usr/bin/python3"


def test_samples_repeat_at_one_instant_and_vary_over_time():
    c = _cluster()
    node, gpu = c.nodes["node01"], c.nodes["node01"].gpus[0]
    assert telemetry.sample(c, node, gpu) == telemetry.sample(c, node, gpu)
    powers = {telemetry.sample(c, node, gpu, at=t).power_w for t in range(0, 60, 5)}
    assert len(powers) > 5


def test_same_seed_same_readings_other_seed_other_readings():
    a, b, other = _cluster(3), _cluster(3), _cluster(4)
    read = [telemetry.sample(x, x.nodes["node01"], x.nodes["node01"].gpus[1]) for x in (a, b, other)]
    assert read[0] == read[1] and read[0] != read[2]


def test_thermal_slowdown_holds_the_gpu_at_its_threshold_and_caps_the_clock():
    c = _cluster()
    apply_fault(c, "gpu-thermal", {"node": "node01", "gpu": 4, "cap_mhz": 1350})
    node, gpu = c.nodes["node01"], c.nodes["node01"].gpus[4]
    r = telemetry.sample(c, node, gpu)
    assert 1320 <= r.sm_mhz <= 1350 and 88 <= r.temp_c <= 90
    assert {"HW Thermal Slowdown", "SW Thermal Slowdown"} <= r.reasons
    assert "SW Power Cap" not in r.reasons and r.power_w < 600
    assert gpu_rates.gpu_speed_factor(gpu) == 1350 / gpu_rates.HEALTHY_MHZ


def test_power_cap_pins_draw_below_the_lowered_limit():
    c = _cluster()
    apply_fault(c, "gpu-power-cap", {"node": "node03", "gpu": 0, "limit_w": 450})
    node, gpu = c.nodes["node03"], c.nodes["node03"].gpus[0]
    r = telemetry.sample(c, node, gpu)
    assert 440 <= r.power_w < 450 and "SW Power Cap" in r.reasons and r.sm_mhz < 1980
    # Its healthy peers are power-capped too, but at the default 700 W and a higher clock.
    peers = [telemetry.sample(c, node, g) for g in node.gpus if g is not gpu]
    assert all(p.power_w > 690 and p.sm_mhz > r.sm_mhz + 300 for p in peers)
    assert {g.power_limit_w for g in node.gpus if g is not gpu} == {700.0}


def test_power_brake_drops_every_gpu_of_the_node_to_the_floor():
    c = _cluster()
    apply_fault(c, "gpu-power-brake", {"node": "node02"})
    node = c.nodes["node02"]
    for gpu in node.gpus:
        r = telemetry.sample(c, node, gpu)
        assert r.sm_mhz == 86 and r.power_w < 100 and "HW Power Brake Slowdown" in r.reasons


def test_violation_counters_grow_while_the_reason_is_active():
    c = _cluster()
    apply_fault(c, "gpu-thermal", {"node": "node01", "gpu": 2})
    gpu = c.nodes["node01"].gpus[2]
    before = telemetry.violation_s(c, gpu, "HW Thermal Slowdown")
    c.clock.advance(120)
    assert telemetry.violation_s(c, gpu, "HW Thermal Slowdown") == before + 120
