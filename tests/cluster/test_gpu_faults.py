"""Each GPU fault, seen through every GPU tool that should show it, with the same identifiers."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from emulator.cluster.faults import apply_fault
from emulator.cluster.faults.xid import XID_MEANINGS
from emulator.session import Session
from tests.support import on, run


def faulty(fault: str, params: dict[str, object]) -> tuple[Session, dict[str, str]]:
    """A sandbox session with ``fault`` applied, standing on the node it hit (entered by typing ``ssh``)."""
    s = on(None)
    truth = apply_fault(s.cluster, fault, params).truth
    run(s, f"ssh {truth['node']}")
    return s, truth


def test_thermal_shows_in_smi_query_dmon_and_dcgm():
    s, t = faulty("gpu-thermal", {})
    g = t["gpu"]
    q = run(s, f"nvidia-smi -q -d PERFORMANCE,TEMPERATURE,CLOCK -i {g}")
    assert re.search(r"HW Thermal Slowdown\s+: Active", q) and re.search(r"SW Thermal Slowdown\s+: Active", q)
    sm = int(re.search(r"\n        SM\s+: (\d+) MHz", q).group(1))
    assert sm <= int(t["sm_cap_mhz"]) < 1980
    margin = int(q.split("GPU T.Limit Temp                  : ")[1].split(" C")[0])
    assert margin <= -1
    dmon = run(s, f"nvidia-smi dmon -c 1 -s v -i {g}").splitlines()[-1].split()
    assert dmon[-1] == "1"
    assert f"Fail - GPU: {g}" in s.execute("dcgmi diag -r 2")[0]


def test_power_brake_is_node_wide_and_leaves_a_sel_record():
    s, t = faulty("gpu-power-brake", {})
    csv = run(s, "nvidia-smi --query-gpu=clocks.sm,clocks_event_reasons.hw_power_brake_slowdown "
                 "--format=csv,noheader,nounits")
    assert csv.splitlines() == ["86, Active"] * 8
    node = s.cluster.nodes[t["node"]]
    assert any(e.event == "Power Supply AC lost" for e in node.bmc.sel)
    assert "power violation" in run(s, "dcgmi health -c")


def test_power_cap_shows_the_lowered_limit_everywhere():
    s, t = faulty("gpu-power-cap", {"limit_w": 350})
    g = t["gpu"]
    assert "Current Power Limit               : 350.00 W" in run(s, f"nvidia-smi -q -d POWER -i {g}")
    row = [ln for ln in run(s, "nvidia-smi").splitlines() if "W /  350W" in ln]
    assert len(row) == 1
    assert run(s, f"nvidia-smi --query-gpu=clocks_event_reasons.sw_power_cap --format=csv,noheader -i {g}") == \
        "Active\n"
    assert f"GPU {g} Max power of" in s.execute("dcgmi diag -r 3")[0]


@pytest.mark.parametrize("code", sorted(XID_MEANINGS))
def test_every_xid_code_logs_nvrm_lines_naming_the_gpu(code):
    s, t = faulty("xid", {"code": code})
    tag = "0000:" + t["bus_id"].split(":", 1)[1].lower().rsplit(".", 1)[0]
    log = run(s, "dmesg")
    assert f"NVRM: GPU at PCI:{tag}: {t['uuid']}" in log
    assert f"NVRM: Xid (PCI:{tag}): {code}, " in log
    assert t["meaning"] == XID_MEANINGS[code]


def test_xid_13_is_a_burst_ending_in_43_from_the_app():
    s, _ = faulty("xid", {"code": 13})
    lines = [ln for ln in run(s, "dmesg").splitlines() if "NVRM: Xid" in ln]
    assert all("): 13, " in ln for ln in lines[:-1]) and "): 43, " in lines[-1]
    assert all("name=pt_main_thread" in ln for ln in lines)


def test_xid_79_removes_the_gpu_from_every_tool():
    s, t = faulty("xid", {"code": 79})
    out, status = s.execute("nvidia-smi")
    assert status == 15 and "Unknown Error" in out
    listing = s.execute("nvidia-smi -L")[0]
    assert listing.count("GPU ") >= 7 and t["uuid"] not in listing
    assert run(s, "dcgmi discovery -l").startswith("7 GPUs found.")
    assert "GPU has fallen off the bus." in run(s, "dmesg -l err")


def test_dbe_counts_the_error_and_marks_the_remap_pending_in_smi_and_dcgm():
    s, t = faulty("ecc-dbe-remap", {})
    g = t["gpu"]
    q = run(s, f"nvidia-smi -q -d ECC,ROW_REMAPPER -i {g}")
    assert "DRAM Uncorrectable            : 1" in q and "Pending                           : Yes" in q
    assert run(s, f"nvidia-smi --query-gpu=ecc.errors.uncorrected.volatile.total --format=csv,noheader -i {g}") == "1\n"
    assert run(s, f"nvidia-smi --query-remapped-rows=gpu_bus_id,remapped_rows.pending,remapped_rows.failure "
                  f"--format=csv,noheader -i {g}") == f"{t['bus_id']}, 1, 0\n"
    assert f"GPU {g} has uncorrectable memory errors and row" in s.execute("dcgmi diag -r 1")[0]


def test_nvlink_down_at_start_up_takes_the_gpu_out_of_the_fabric():
    s, t = faulty("nvlink-down", {"links": 2})
    g = t["gpu"]
    links = t["links"].split(",")
    status = run(s, f"nvidia-smi nvlink -s -i {g}")
    for link in links:
        assert f"\t Link {link}: <inactive>" in status
    assert "NV16" in run(s, "nvidia-smi topo -m")
    q = run(s, f"nvidia-smi -q -i {g}")
    assert "        State                             : Completed" in q
    assert "        Status                            : Unknown Error" in q
    # Each link faulted as it trained at boot: an Xid 74 for it, and no Xid for any other link.
    faulted = re.findall(r"\): 74, .*NVLink: fatal error detected on link (\d+)\(", run(s, "dmesg"))
    assert faulted == links
    out, status_ = s.execute("all_reduce_perf -b 1G -e 1G -g 8")
    assert status_ == 1 and "Test NCCL failure common.cu:904 'unhandled cuda error" in out
    assert "P2P is disabled between NVLINK connected GPUs" in out


def test_fabric_manager_stopped_shows_in_systemctl_smi_and_dcgm():
    s, t = faulty("fabricmanager-stopped", {})
    assert t["node"] in s.cluster.training.nodes
    assert "No running processes found" in run(s, "nvidia-smi")
    assert s.execute("systemctl is-active nvidia-fabricmanager")[0] == "failed\n"
    q = run(s, "nvidia-smi -q -i 0")
    assert "        State                             : In Progress" in q
    assert "Fail - All" in s.execute("dcgmi diag -r 2")[0]


def test_pcie_downgrade_shows_in_smi_query_dmesg_and_dcgm():
    s, t = faulty("pcie-downgrade", {"width": 8, "gen": 5})
    g = t["gpu"]
    assert run(s, f"nvidia-smi --query-gpu=pcie.link.gen.current,pcie.link.width.current --format=csv,noheader "
                  f"-i {g}") == "5, 8\n"
    assert "limited by 32.0 GT/s PCIe x8 link" in run(s, "dmesg")
    assert f"Fail - GPU: {g}" in s.execute("dcgmi diag -r 2")[0]


def test_targets_are_seeded_and_named_params_win():
    a = faulty("gpu-thermal", {})[1]
    b = faulty("gpu-thermal", {})[1]
    assert a == b and a["node"] in ("node01", "node02", "node03", "node04")
    named = faulty("gpu-thermal", {"node": "node02", "gpu": 6})[1]
    assert (named["node"], named["gpu"]) == ("node02", "6")


def test_bad_parameters_are_refused():
    s = Session(None, 0)
    with pytest.raises(ValueError):
        apply_fault(s.cluster, "xid", {"code": 12})
    with pytest.raises(ValueError):
        apply_fault(s.cluster, "gpu-thermal", {"node": "node01", "gpu": 9})
    with pytest.raises(ValueError):
        apply_fault(s.cluster, "pcie-downgrade", {"gen": 5, "width": 16})


def test_truth_time_is_the_instant_the_kernel_logged():
    s, t = faulty("xid", {"code": 48})
    first = next(ln for ln in run(s, "dmesg --time-format iso").splitlines() if "NVRM: Xid" in ln)
    assert first.startswith(t["time"].rstrip("Z") + ",")


def test_an_xid_that_kills_the_rank_ends_the_run_on_every_node():
    s, t = faulty("xid", {"code": 94})
    run_ = s.cluster.training
    assert run_.hang_rank is not None and run_.hang_in == "gpu"
    other = next(n for n in run_.nodes if n != t["node"])
    assert "No running processes found" in run(s, f"ssh {other} nvidia-smi")


def test_an_xid_that_spares_the_rank_leaves_the_run_alone():
    s, _ = faulty("xid", {"code": 92})
    assert s.cluster.training.hang_s is None
    assert "/usr/bin/python3" in run(s, "nvidia-smi")


GOLDEN = Path(__file__).parent / "golden"


@pytest.mark.parametrize("fault,params,line", [
    ("gpu-thermal", {}, "nvidia-smi -q -d PERFORMANCE,TEMPERATURE,CLOCK -i {gpu}"),
    ("gpu-power-brake", {}, "nvidia-smi --query-gpu=index,clocks.sm,power.draw,temperature.gpu,"
                            "clocks_event_reasons.active --format=csv"),
    ("gpu-power-cap", {}, "nvidia-smi"),
    ("xid", {"code": 48}, "dmesg -T -l err"),
    ("xid", {"code": 79}, "nvidia-smi --query-gpu=index,pci.bus_id --format=csv"),
    ("ecc-dbe-remap", {}, "nvidia-smi -q -d ECC,ROW_REMAPPER -i {gpu}"),
    ("nvlink-down", {"links": 2}, "nvidia-smi nvlink -s -i {gpu}"),
    ("fabricmanager-stopped", {}, "systemctl status nvidia-fabricmanager"),
    ("pcie-downgrade", {}, "dcgmi diag -r 2"),
])
def test_fault_output_matches_golden(fault, params, line):
    s, t = faulty(fault, params)
    out, _ = s.execute(line.format(gpu=t.get("gpu", "0")))
    name = f"{fault}{''.join(f'-{v}' for v in params.values())}.txt"
    path = GOLDEN / name
    if os.environ.get("REGOLD"):
        path.write_text(out)
    assert out == path.read_text()


def test_one_incident_names_the_gpu_the_same_way_in_every_tool():
    s, t = faulty("ecc-dbe-remap", {})
    g, bus, uuid, serial = t["gpu"], t["bus_id"], t["uuid"], t["serial"]
    tag = "0000:" + bus.split(":", 1)[1].lower().rsplit(".", 1)[0]
    assert f"NVRM: GPU at PCI:{tag}: {uuid}" in run(s, "dmesg")
    assert f"NVRM: GPU Board Serial Number: {serial}" in run(s, "dmesg")
    assert f"GPU {g}: NVIDIA H100 80GB HBM3 (UUID: {uuid})" in run(s, "nvidia-smi -L")
    assert run(s, f"nvidia-smi --query-gpu=pci.bus_id,serial --format=csv,noheader -i {uuid}") == f"{bus}, {serial}\n"
    discovery = run(s, "dcgmi discovery -l")
    block = discovery.split(f"| {g:<7}| Name:")[1].split("+--------+")[0]
    assert f"PCI Bus ID: {bus}" in block and f"Device UUID: {uuid}" in block
    assert f"GPU {g} has uncorrectable memory errors and row" in s.execute("dcgmi diag -r 1")[0]
