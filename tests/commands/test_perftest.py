"""perftest bandwidth tools through the shell: a node pair measures what both ports sustain."""

from __future__ import annotations

import re

from emulator.cluster.faults import apply_fault
from emulator.session import Session


def session(*faults: tuple[str, dict[str, object]]) -> Session:
    s = Session(seed=0)
    for name, params in faults:
        apply_fault(s.cluster, name, params)
    s.execute("ssh node01")
    return s


def average(out: str) -> float:
    return float(re.search(r"^ 65536 +5000 +[\d.]+ +([\d.]+)\t\t", out, re.M).group(1))


def test_healthy_ndr_pair_measures_close_to_line_rate():
    out, status = session().execute("ib_write_bw -d mlx5_3 --report_gbits node02")
    assert status == 0
    assert "                    RDMA_Write BW Test\n" in out and " Link type       : IB\n" in out
    assert 375.0 < average(out) < 395.0


def test_a_port_trained_at_hdr_halves_the_pair():
    s = session(("link-rate", {"node": "node02", "port": "mlx5_3"}))
    assert 180.0 < average(s.execute("ib_write_bw -d mlx5_3 --report_gbits node02")[0]) < 200.0
    assert average(s.execute("ib_write_bw -d mlx5_4 --report_gbits node02")[0]) > 375.0


def test_unreachable_server_and_down_port_fail_like_perftest():
    s = session(("port-down", {"node": "node01", "port": "mlx5_2"}))
    out, status = s.execute("ib_write_bw -d mlx5_0 node77")
    assert status == 1 and out.startswith("Unable to resolve host node77")
    assert s.execute("ib_write_bw -d mlx5_2 node02")[1] == 1


def test_server_mode_waits_for_a_client_then_gives_up():
    out, status = session().execute("ib_write_bw -d mlx5_0")
    assert "* Waiting for client to connect... *" in out and status == 1
