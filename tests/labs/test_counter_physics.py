"""Port counters an InfiniBand engineer believes, read as a learner reads them in the labs.

Data counters count 4-byte words in packets no larger than the 4096-byte MTU;
an all-reduce puts the same bytes each way on every rail; an idle port receives
no errored packets because it receives almost no packets; raw errors follow the
weak lane; perfquery's reset and mlxlink's clear are separate; the stale-counter
decoy is not the same number in every lab.
"""

from __future__ import annotations

import re

import pytest

from emulator import labs
from tests.support import on, run


def _value(text: str, name: str) -> int:
    return int(re.search(rf"^{name}:\.+(\d+)$", text, re.M).group(1))


def _field(text: str, name: str) -> str:
    return re.search(rf"^{re.escape(name)}\s+: (.*)$", text, re.M).group(1)


@pytest.mark.parametrize(("lab", "seed"), [("fabric-triage", 0), ("multi-node-slowdown", 3), ("nccl-algorithms", 0)])
def test_data_words_fit_in_mtu_sized_packets_on_every_rail(lab, seed):
    s = on("node01", lab, seed)
    for rail in range(8):
        out = run(s, f"perfquery -x -C mlx5_{rail} -P 1")
        for way in ("Xmit", "Rcv"):
            words_per_pkt = _value(out, f"Port{way}Data") / _value(out, f"Port{way}Pkts")
            # 4096 payload bytes plus headers is ~1032 words; ACKs and MADs pull the mean a little lower.
            assert 900 < words_per_pkt <= 1040, (rail, way, words_per_pkt)


def test_an_all_reduce_puts_symmetric_rail_balanced_bytes_on_its_nodes_ports():
    s = on("node01", "fabric-triage", 0)
    totals = []
    for rail in range(8):
        out = run(s, f"perfquery -x -C mlx5_{rail} -P 1")
        xmit, rcv = _value(out, "PortXmitData"), _value(out, "PortRcvData")
        assert abs(xmit - rcv) < 0.05 * rcv, (rail, xmit, rcv)
        totals.append(rcv)
    assert max(totals) < 1.15 * min(totals)
    run(s, "perfquery -x -R -C mlx5_0 -P 1; perfquery -x -R -C mlx5_5 -P 1")
    run(s, "sleep 10")
    deltas = [run(s, f"perfquery -x -C mlx5_{rail} -P 1") for rail in (0, 5)]
    xmit = [_value(out, "PortXmitData") for out in deltas]
    rcv = [_value(out, "PortRcvData") for out in deltas]
    for x, r in zip(xmit, rcv, strict=True):
        assert x > 10**8 and abs(x - r) < 0.01 * r
    # The two windows differ by the time the commands take; the rails carry the same rate.
    assert abs(xmit[0] - xmit[1]) < 0.2 * xmit[0]


def test_an_idle_port_receives_only_the_subnet_managers_sweeps_and_no_errored_packets():
    s = on("node08", "nccl-algorithms", 0)
    run(s, "perfquery -x -R -C mlx5_0 -P 1")
    run(s, "sleep 10")
    out = run(s, "perfquery -x -C mlx5_0 -P 1")
    assert _value(out, "SymbolErrorCounter") > 0       # the marginal link still decodes idle symbols badly
    assert 0 < _value(out, "PortRcvPkts") <= 2 and _value(out, "PortRcvData") < 200
    assert _value(out, "PortRcvErrors") <= _value(out, "PortRcvPkts")


def test_raw_errors_per_lane_follow_the_weak_receive_lane():
    s = on("node01", "multi-node-slowdown", 0)
    out = run(s, "mlxlink -d mlx5_2 -m -c")
    rx = [float(v) for v in _field(out, "Rx Power Current [dBm]").split()[0].split(",")]
    errors = [int(v) for v in _field(out, "Raw Physical Errors Per Lane").split(",")]
    weak = rx.index(min(rx))
    assert rx[weak] < -5 and errors.index(max(errors)) == weak
    healthy = [n for lane, n in enumerate(errors) if lane != weak]
    assert max(healthy) * 1000 < errors[weak] and len(set(healthy)) == len(healthy)


def test_raw_errors_per_lane_are_no_arithmetic_progression():
    out = run(on("node01", "fabric-triage", 3), "mlxlink -d mlx5_3 -c")
    errors = [int(v) for v in _field(out, "Raw Physical Errors Per Lane").split(",")]
    steps = {b - a for a, b in zip(errors, errors[1:], strict=False)}
    assert len(errors) == 4 and len(steps) > 1 and errors != sorted(errors)


def test_perfquery_reset_leaves_mlxlinks_counters_and_mlxlink_pc_clears_them():
    s = on("node01", "multi-node-slowdown", 0)
    before = run(s, "mlxlink -d mlx5_2 -c")
    run(s, "perfquery -x -R -C mlx5_2 -P 1")
    run(s, "sleep 10")
    after = run(s, "mlxlink -d mlx5_2 -c")
    assert float(_field(after, "Time Since Last Clear [Min]")) > 1000
    assert int(_field(after, "Symbol Errors")) >= int(_field(before, "Symbol Errors")) > 1000
    cleared = run(s, "mlxlink -d mlx5_2 --pc")
    assert cleared.endswith("\nClearing Counters...\n\n")
    run(s, "sleep 60")
    fresh = run(s, "mlxlink -d mlx5_2 -c")
    assert 1.0 <= float(_field(fresh, "Time Since Last Clear [Min]")) < 1.3
    assert 0 < int(_field(fresh, "Symbol Errors")) < 2000
    # ... and the PMA counters kept counting from their own reset.
    assert _value(run(s, "perfquery -x -C mlx5_2 -P 1"), "SymbolErrorCounter") > int(_field(fresh, "Symbol Errors"))


def _stale(lab_id: str, seed: int) -> tuple[int, int, int]:
    lure = next(lure for lure in labs.lures(labs.get(lab_id), seed) if "port" in lure and lure["port"] != "mlx5_8"
                and lure["port"] != "mlx5_9")
    s = on(lure["node"], lab_id, seed)
    line = f"perfquery -x -C {lure['port']} -P 1"
    first = run(s, line)
    values = tuple(_value(first, n) for n in ("SymbolErrorCounter", "LinkErrorRecoveryCounter", "PortRcvErrors"))
    run(s, "sleep 30")
    later = run(s, line)
    assert values == tuple(_value(later, n) for n in ("SymbolErrorCounter", "LinkErrorRecoveryCounter",
                                                      "PortRcvErrors")), "stale counters must not grow"
    assert values[0] > 0 and 0 < values[2] < values[0]
    return values


def test_stale_counter_decoys_differ_from_lab_to_lab_and_seed_to_seed():
    seen = [_stale(lab, seed) for lab in ("fabric-triage", "multi-node-slowdown", "nccl-algorithms")
            for seed in (0, 3)]
    assert len(set(seen)) == len(seen), seen
