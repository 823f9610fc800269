"""The subnet-wide scans find the lab's faulty port on whichever rail it is, typed through the shell.

``ibdiagnet``, ``ibqueryerrors`` and ``iblinkinfo`` walk every rail of the one subnet, so the
fault of fabric-triage and multi-node-slowdown is reported with the LID, GUID and counter values
that ``ibstat`` and ``perfquery`` show for the same port. ``ibqueryerrors`` reports values, not
growth: the stale decoy is listed too, and only a second reading tells the live port from it.
The healthy twin reports nothing.
"""

from __future__ import annotations

import re

import pytest

from emulator.session import Session
from tests.support import run

LABS = [(lab, seed) for lab in ("fabric-triage", "multi-node-slowdown") for seed in range(4)]


def _flagged(report: str) -> dict[str, str]:
    """``ibqueryerrors``' CA ports with errors: "node mlx5_N" -> the counters line."""
    return dict(re.findall(r'^Errors for "([^"]+)"\n   (GUID .*)$', report, re.M))


@pytest.mark.parametrize(("lab", "seed"), LABS)
def test_every_rail_is_discovered_and_the_faulty_port_is_reported(lab: str, seed: int) -> None:
    session = Session(lab, seed)
    t = session.cluster.truth()
    node, port, lid = t["node"], t["port"], int(t["lid"])
    cas = 8 * len(session.cluster.compute_nodes)
    switches = len(session.cluster.switches)
    identity = run(session, f"ssh {node} ibstat {port}")
    assert f"Base lid: {lid}\n" in identity and f"Port GUID: {t['guid']}\n" in identity

    diag, _ = session.execute("ssh node03 ibdiagnet")
    assert f"-I- Discovering ... {cas + switches} nodes ({switches} Switches & {cas} CA-s) discovered." in diag
    hosts = run(session, "ssh node03 ibhosts")
    assert hosts.count("\n") == cas and f'"{node} {port}"' in hosts
    nic = next(n for n in session.cluster.nodes[node].nics if n.name == port)
    both = run(session, f"ssh {node} 'ibqueryerrors; perfquery -x -C {port} -P 1'")
    flagged = _flagged(both)
    if t["cause"] == "link-rate":
        what = ("width 2X (enabled width: 4X)" if t["width"] == "2X" else "speed HDR (enabled speed: NDR)")
        assert (f"-W- Speed / Width checks finished with 1 warnings\n"
                f"-W- Link: {nic.peer_switch}/P{nic.peer_port} <--> {node}/{port}/P1 - Unexpected actual link {what}"
                ) in diag
        hint = "Could be 4X" if t["width"] == "2X" else "Could be 106.25 Gbps"
        assert re.search(rf'==>\s+{lid}\s+1\[  \] "{node} {port}" \( {hint}\)', run(session, "ssh node03 iblinkinfo"))
        # A rate is no counter: ibqueryerrors has nothing to say about the port.
        assert f"{node} {port}" not in flagged
        return
    assert "-I- Speed / Width checks finished successfully" in diag
    assert f"-W- lid=0x{lid:04x} dev=4129 {node}/{port}/P1" in diag
    counter = "SymbolErrorCounter" if t["cause"] == "symbol-errors" else "LinkDownedCounter"
    value = re.search(rf"^{counter}:\.+(\d+)$", both, re.M).group(1)
    assert flagged[f"{node} {port}"].startswith(f"GUID {t['guid']} port 1:")
    assert f"[{counter} == {value} (" in flagged[f"{node} {port}"]
    if t["cause"] == "symbol-errors":   # still counting while ibdiagnet sampled twice
        assert f"-E- lid=0x{lid:04x} dev=4129 {node}/{port}/P1" in diag


@pytest.mark.parametrize(("lab", "seed"), LABS)
def test_the_stale_decoy_is_listed_by_value_and_only_a_second_reading_rules_it_out(lab: str, seed: int) -> None:
    session = Session(lab, seed)
    t = session.cluster.truth()
    first = _flagged(run(session, "ssh node02 ibqueryerrors"))
    run(session, "sleep 10")
    second = _flagged(run(session, "ssh node02 ibqueryerrors"))
    stale = {name for name in first if name != f"{t['node']} {t['port']}"}
    assert stale   # every seed of both labs carries the decoy
    for name in stale:
        assert first[name] == second[name]      # listed both times, with the same values
    diag, _ = session.execute("ssh node02 ibdiagnet")
    for name in stale:
        host, dev = name.split()
        assert re.search(rf"^-W- lid=0x[0-9a-f]{{4}} dev=4129 {host}/{dev}/P1$", diag, re.M)
        assert not re.search(rf"^-E- lid=0x[0-9a-f]{{4}} dev=4129 {host}/{dev}/P1$", diag, re.M)
    if t["cause"] == "symbol-errors":
        live = f"{t['node']} {t['port']}"
        assert first[live] != second[live]


@pytest.mark.parametrize(("lab", "seed"), LABS)
def test_the_healthy_twin_reports_nothing(lab: str, seed: int) -> None:
    session = Session(lab, seed, faults=False)
    report = run(session, "ssh node02 ibqueryerrors")
    assert "Errors for" not in report and " 0 ports have errors beyond threshold" in report
    diag, status = session.execute("ssh node02 ibdiagnet")
    assert status == 0
    assert "-I- Speed / Width checks finished successfully" in diag
    assert "-I- Port Counters             0          0" in diag
