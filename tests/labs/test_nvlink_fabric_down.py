"""With Fabric Manager failed, every tool agrees that the node's NVLinks never trained, typed through
the shell: Fabric Manager trains the GPU-to-NVSwitch access links on HGX H100, so ``nvidia-smi nvlink``
shows them inactive, ``topo -m`` shows PCIe paths between the GPUs, ``topo -p2p n`` no NVLink peers,
``-q`` a fabric registration in progress, and the job's test cannot initialise CUDA."""

import re

from emulator.session import Session
from tests.support import run


def _fm_failed() -> tuple[Session, str]:
    session = Session("nvlink", 0)
    t = session.cluster.truth()
    assert t["cause"] == "fabricmanager-stopped"
    return session, t["node"]


def test_no_link_of_any_gpu_is_active_on_the_node_whose_fabric_manager_failed():
    session, node = _fm_failed()
    status = run(session, f"ssh {node} nvidia-smi nvlink -s")
    assert len(re.findall(r"Link \d+: <inactive>", status)) == 8 * 18
    assert "GB/s" not in status
    assert "<inactive>" not in run(session, "ssh node01 nvidia-smi nvlink -s" if node != "node01"
                                   else "ssh node03 nvidia-smi nvlink -s")


def test_the_matrix_shows_pcie_paths_and_the_p2p_matrix_no_nvlink_peers():
    session, node = _fm_failed()
    matrix = run(session, f"ssh {node} nvidia-smi topo -m")
    gpu_rows = [line.split("\t")[1:9] for line in matrix.splitlines() if line.startswith("GPU")]
    assert len(gpu_rows) == 8
    assert not any(cell.startswith("NV") for row in gpu_rows for cell in row)
    assert {cell for row in gpu_rows for cell in row} == {" X ", "NODE", "SYS"}
    p2p = run(session, f"ssh {node} nvidia-smi topo -p2p n")
    rows = [line.split("\t")[1:9] for line in p2p.splitlines() if line.startswith(" GPU")]
    assert {cell for row in rows for cell in row} == {"X", "NS"}


def test_fabric_state_service_and_cuda_tell_the_same_story():
    session, node = _fm_failed()
    assert re.search(r"State\s+: In Progress", run(session, f"ssh {node} nvidia-smi -q -i 0"))
    out, status = session.execute(f"ssh {node} systemctl status nvidia-fabricmanager")
    assert status == 3 and "Active: failed" in out
    out, status = session.execute(f"ssh {node} all_reduce_perf -b 1G -e 1G -g 8")
    assert status != 0 and "system not yet initialized" in out
    assert "Xid" not in run(session, f"ssh {node} dmesg")     # nothing tried to train, nothing faulted


def test_the_healthy_twin_keeps_every_link_and_peer():
    twin = Session("nvlink", 0, faults=False)
    assert "<inactive>" not in run(twin, "ssh node02 nvidia-smi nvlink -s")
    assert "NS\t" not in run(twin, "ssh node02 nvidia-smi topo -p2p n")
