"""``nvidia-smi topo -p2p r|w|n|a|p``: NVML's peer-to-peer status of each GPU pair, typed through the shell."""

import re

import pytest

from emulator.session import Session
from tests.support import run


def _cells(text: str) -> dict[tuple[int, int], str]:
    rows = [line for line in text.splitlines() if line.startswith(" GPU")]
    return {(i, j): cell for i, line in enumerate(rows) for j, cell in enumerate(line.split("\t")[1:9])}


@pytest.mark.parametrize("cap", ["r", "w", "n", "a", "p"])
def test_a_healthy_node_reports_every_pair_ok_in_the_real_layout(cap):
    session = Session("nvlink", 3, faults=False)
    out = run(session, f"ssh node03 nvidia-smi topo -p2p {cap}")
    lines = out.splitlines()
    assert lines[0] == " \t" + "".join(f"GPU{i}\t" for i in range(8))
    assert lines[1] == " GPU0\tX\t" + "OK\t" * 7
    assert "  NS   = Not supported" in lines and "  CNS  = Chipset not supported" in lines
    assert set(_cells(out).values()) == {"X", "OK"}


def test_the_gpu_left_out_of_the_fabric_is_no_nvlink_peer_of_any_gpu():
    session = Session("nvlink", 3)
    t = session.cluster.truth()
    assert t["cause"] == "nvlink-down"
    node, bad = t["node"], int(t["gpu"])
    for cap in ("n", "r", "w"):
        cells = _cells(run(session, f"ssh {node} nvidia-smi topo -p2p {cap}"))
        assert {pair for pair, cell in cells.items() if cell == "NS"} == (
            {(bad, j) for j in range(8) if j != bad} | {(i, bad) for i in range(8) if i != bad})
    assert set(_cells(run(session, f"ssh {node} nvidia-smi topo -p2p p")).values()) == {"X", "OK"}
    # The NCCL test names the same GPU as the one whose P2P status is not OK.
    out, status = session.execute(f"ssh {node} all_reduce_perf -b 1G -e 1G -g 8")
    assert status != 0 and re.search(rf"P2P is disabled between NVLINK connected GPUs ({bad} and \d|\d and {bad})", out)


@pytest.mark.parametrize(("line", "message"), [
    ("nvidia-smi topo -p2p", 'Option "-p2p" is missing its value.'),
    ("nvidia-smi topo -p2p x", "Invalid value: x. Please run 'nvidia-smi topo -h'."),
    ("nvidia-smi nvlink -p2p n", "ERROR: Option -p2p is not recognized."),
])
def test_a_bad_p2p_request_is_refused_in_the_tools_voice(line, message):
    session = Session("nvlink", 0, faults=False)
    out, status = session.execute(f"ssh node01 {line}")
    assert status != 0 and out.startswith(message)


def test_the_topo_help_lists_the_p2p_capabilities():
    out = run(Session("nvlink", 0, faults=False), "ssh node01 nvidia-smi topo -h")
    assert "[-p2p | --p2pstatus]" in out and "n - p2p nvlink capability" in out
