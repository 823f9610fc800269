"""A port that trained below its rate says why, the same way in every tool that shows it, typed
through the shell: at 4X HDR an operator's ``mlxlink --speeds`` left behind (sudo's audit lines, the
narrowed Enabled Link Speed, the toggle's link down/up); at 2X NDR two dark receive lanes."""

import re

from emulator.session import Session
from tests.support import run


def _lab(width: str) -> tuple[Session, dict[str, str]]:
    """The first fabric-triage seed whose link-rate fault trained at ``width``."""
    for seed in range(6):
        session = Session("fabric-triage", seed)
        truth = session.cluster.truth()
        if truth["cause"] == "link-rate" and truth["width"] == width:
            return session, truth
    raise AssertionError(f"no seed of fabric-triage trains a port at {width}")


def test_a_port_at_4x_hdr_had_its_speeds_narrowed_by_an_operator_who_left_an_audit_trail():
    session, t = _lab("4X")
    node, port = t["node"], t["port"]
    module = run(session, f"ssh {node} mlxlink -d {port}")
    assert "Speed                           : IB-HDR" in module
    assert "Enabled Link Speed              : 0x00000040 (HDR)" in module
    assert "Supported Cable Speed           : 0x000000f2 (NDR,HDR,EDR,FDR,DDR)" in module
    audit = run(session, f"ssh {node} sudo grep COMMAND=/usr/bin/mlxlink /var/log/auth.log").splitlines()
    assert len(audit) == 2 and all(f" {t['user']} : " in line for line in audit)
    assert audit[0].endswith(f"COMMAND=/usr/bin/mlxlink -d {port} --speeds HDR")
    assert audit[1].endswith(f"COMMAND=/usr/bin/mlxlink -d {port} -a TG")
    # The toggle retrained the link once: the kernel saw it go down in the minute of the second
    # sudo line, and LinkDownedCounter counts that one event.
    toggled = audit[1].split()[2][:5]
    kernel = run(session, f"ssh {node} dmesg -T")
    down = [line for line in kernel.splitlines() if line.endswith(f"{t['netdev']}: Link down")]
    assert len(down) == 1 and f" {toggled}:" in down[0]
    counters = run(session, f"ssh {node} perfquery -x -C {port} -P 1")
    assert re.search(r"LinkDownedCounter:\.+1$", counters, re.M)


def test_the_healthy_twin_enables_every_speed_and_logs_no_mlxlink_change():
    session, t = _lab("4X")
    twin = Session("fabric-triage", session.seed, faults=False)
    module = run(twin, f"ssh {t['node']} mlxlink -d {t['port']}")
    assert "Enabled Link Speed              : 0x000000f2 (NDR,HDR,EDR,FDR,DDR)" in module
    assert "mlxlink" not in twin.execute(f"ssh {t['node']} sudo cat /var/log/auth.log")[0]


def test_a_port_at_2x_trained_around_two_dark_receive_lanes():
    session, t = _lab("2X")
    node, port = t["node"], t["port"]
    assert "rate:\t\t 200 Gb/sec (2X NDR)" in run(session, f"ssh {node} ibstatus {port}")
    assert "active_width:\t\t2X (16)" in run(session, f"ssh {node} ibv_devinfo -v -d {port}")
    module = run(session, f"ssh {node} mlxlink -d {port} -m")
    assert "Width                           : 2x" in module
    assert "Enabled Link Speed              : 0x000000f2 (NDR,HDR,EDR,FDR,DDR)" in module
    rx = re.search(r"Rx Power Current \[dBm\]\s+: (\S+) ", module)
    assert rx is not None and rx.group(1).split(",")[2:] == ["-40.000", "-40.000"]
    assert "-40.000" not in rx.group(1).split(",")[:2]
    twin = Session("fabric-triage", session.seed, faults=False)
    assert "-40.000" not in run(twin, f"ssh {node} mlxlink -d {port} -m")
